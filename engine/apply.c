/*
 * apply.c — the single writer's entry points and the accept path: applying
 * a block's transactions, the chained state digest, pruning beyond the
 * finality depth. Reverting is in revert.c; the transaction plumbing both
 * share (working set, log, meta, commit) in txn.c.
 *
 * The undo bookkeeping of one block:
 *
 *   blocks[B] = { seq, height h, parent P, digest D, effects:
 *                 [ (7, CREATE, 0, -),
 *                   (7, COMMAND, 1, undo record of episode 7's first command),
 *                   (9, COMMAND, 42, undo record of episode 9's 42nd command) ] }
 *
 * Revert walks the effects newest first: a COMMAND checks the episode is
 * at its depth, rolls the state back with the effect's undo record; a
 * CREATE deletes the episode. When a block falls `finality` blocks below
 * the tip, its record is rewritten without its effects (the undo records
 * go with them) and keeps only what idempotence and digests need (final =
 * true).
 *
 * Why the undo records live in the block's record (schema 3; schema 2 had
 * a db "undo" keyed by episode id and depth): a block of 200 moves on 200
 * games put 200 records at 200 places of that tree, each dirtying its own
 * leaf page, and pruning deleted them again at as many places; in a large
 * store those pages lie far apart in the file and a synced commit writes
 * each on its own. In the block's record they are one value on
 * consecutive pages, written and freed as one.
 *
 * Digest: D(B) = SHA-256(D(P) || B || for each episode B touched, by id:
 * id (u32 BE) || SHA-256(encoded state) or 32 zero bytes when deleted).
 * Revert restores D(P) from the parent's record (zero at genesis).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/crashpoint.h"
#include "engine/logger.h"
#include "engine/netutil.h"
#include "engine/rules.h"
#include "engine/table.h"
#include "engine/txn.h"

#define MAX_GROWS 12

/* ------------------------------------------------------------ accepting */

kd_err kd_apply_start(kd_txn *c, uint32_t id, const kd_registry_entry *type, const kd_participants *parts,
                      const uint8_t *params, size_t len, const ProtobufCBinaryData *override, const kd_block_meta *meta,
                      kd_tx_result *r, kd_buf *effective, int *ok)
{
    kd_txn_episode *ep = NULL;
    kd_err err = kd_txn_add(c, id, type, &ep);
    if (err)
        return err;
    err = kd_rules_init(type, params, len, override, parts, meta, ep->state, effective, r, ok);
    if (err || !*ok) {
        free(ep->state);
        c->n_eps--;
        return err;
    }
    ep->participants = *parts;
    ep->creation_daa = meta->daa;
    memcpy(ep->created_in, meta->block_hash, KD_HASH_LEN);
    ep->dirty = 1;
    ep->last_event = KD_EVENT_INITIALIZE;
    kd_txn_event *ev;
    if ((err = kd_txn_add_effect(c, ep->id, KDAPP__STORE__EFFECT_KIND__EFFECT_CREATE, 0, NULL, 0)) ||
        (err = kd_txn_add_event(c, KD_EVENT_INITIALIZE, ep->id, &ev)))
        return err;
    return KD_OK;
}

static kd_err apply_create(kd_txn *c, const Kdapp__EpisodeMessage *em, const kd_block_meta *meta,
                           const ProtobufCBinaryData *override, unsigned trust, kd_tx_result *r, kd_buf *effective)
{
    kd_txn_episode *ep = NULL;
    kd_err err = kd_txn_get(c, em->episode_id, &ep);
    if (err && err != KD_ERR_NOT_FOUND)
        return err;
    int exists = err == KD_OK;
    if (!exists && em->episode_id && (err = kd_table_exists(c, em->episode_id, &exists)))
        return err;
    kd_participants parts;
    uint32_t open;
    const kd_registry_entry *type =
        kd_rules_check_create(c->engine->registry, c->engine->chain, em, exists, trust, &parts, &open, r);
    if (!type)
        return KD_OK;
    if (open)
        return kd_table_open(c, em, type, &parts, open, meta, r);
    const Kdapp__NewEpisode *ne = em->new_episode;
    int ok;
    if ((err = kd_apply_start(c, em->episode_id, type, &parts, ne->params.data, ne->params.len, override, meta, r,
                              effective, &ok)) ||
        !ok)
        return err;
    r->applied = 1;
    return KD_OK;
}

static kd_err apply_command(kd_txn *c, const Kdapp__EpisodeMessage *em, const kd_block_meta *meta, int trusted_sig,
                            int trusted_applied, kd_tx_result *r)
{
    kd_txn_episode *ep;
    kd_err err = kd_txn_get(c, em->episode_id, &ep);
    if (err == KD_ERR_NOT_FOUND) {
        kd_rules_reject_missing(em->episode_id, r);
        return KD_OK;
    }
    if (err)
        return err;
    const ProtobufCBinaryData *cmd;
    const kd_pubkey *signer;
    kd_pubkey pk;
    uint64_t signed_at;
    kd_auth auth = kd_rules_authorise(em, ep->id, ep->undo_depth, c->engine->sig_batch, trusted_sig, &pk, &signer, &cmd,
                                      &signed_at, r);
    if (auth == KD_AUTH_REFUSED)
        return KD_OK;
    const kd_episode_ops *ops = ep->type->ops;
    size_t undo_off;
    if ((err = kd_txn_arena_reserve(c, ops->undo_size, &undo_off)))
        return err;
    if (auth == KD_AUTH_STALE) { /* never applied; refused under its real rule */
        err = kd_rules_refuse_stale(ops, ep->state, &c->scratch, cmd, signer, meta, c->arena.data + undo_off, ep->id,
                                    signed_at, ep->undo_depth, r);
        c->arena.len = undo_off;
        return err;
    }
    int ok;
    if ((err = kd_rules_execute(ops, ep->state, &c->scratch, cmd, signer, meta, c->engine->sig_batch, trusted_applied,
                                c->arena.data + undo_off, r, &ok)) ||
        !ok) {
        c->arena.len = undo_off;
        return err;
    }
    c->scratch.len = 0;
    if ((err = ops->encode_undo(c->arena.data + undo_off, &c->scratch)))
        return err;
    ep->undo_depth++;
    ep->dirty = 1;
    ep->last_event = KD_EVENT_COMMAND;
    kd_txn_event *ev;
    if ((err = kd_txn_add_effect(c, ep->id, KDAPP__STORE__EFFECT_KIND__EFFECT_COMMAND, ep->undo_depth, c->scratch.data,
                                 c->scratch.len)) ||
        (err = kd_txn_add_event(c, KD_EVENT_COMMAND, ep->id, &ev)))
        return err;
    size_t command_off;
    if ((err = kd_txn_arena_reserve(c, cmd->len, &command_off)))
        return err;
    memcpy(c->arena.data + command_off, cmd->data, cmd->len);
    ev->command_off = command_off;
    ev->command_len = cmd->len;
    ev->has_signer = signer != NULL;
    if (signer)
        ev->signer = *signer;
    ev->has_undo = 1;
    ev->undo_off = undo_off;
    r->applied = 1;
    return KD_OK;
}

/* What apply_tx hands its handlers besides the transaction. */
typedef struct {
    kd_txn *c;
    const ProtobufCBinaryData *override;
    unsigned trust; /* KD_RULES_TRUSTED, KD_RULES_LEGACY (rules.h) */
    kd_buf *effective;
} apply_ctx;

static kd_err on_create(void *ctx, const Kdapp__EpisodeMessage *em, const kd_block_meta *meta, kd_tx_result *r)
{
    apply_ctx *a = ctx;
    return apply_create(a->c, em, meta, a->override, a->trust, r, a->effective);
}

static kd_err on_command(void *ctx, const Kdapp__EpisodeMessage *em, const kd_block_meta *meta, kd_tx_result *r)
{
    apply_ctx *a = ctx;
    return apply_command(a->c, em, meta, (a->trust & KD_RULES_TRUSTED) != 0, (a->trust & KD_RULES_PRECHECKED) != 0, r);
}

static kd_err on_table(void *ctx, const Kdapp__EpisodeMessage *em, const kd_block_meta *meta, kd_tx_result *r)
{
    apply_ctx *a = ctx;
    int trusted = (a->trust & KD_RULES_TRUSTED) != 0;
    if (em->body_case == KDAPP__EPISODE_MESSAGE__BODY_JOIN)
        return kd_table_join(a->c, em, meta, a->override, trusted, r, a->effective);
    return kd_table_cancel(a->c, em, meta, trusted, r);
}

/* Applies one transaction; rejections go into `r`, only storage failures
 * are returned. */
static kd_err apply_tx(kd_txn *c, const Kdapp__BlockAccepted *ba, size_t index, const ProtobufCBinaryData *override,
                       unsigned trust, kd_tx_result *r, kd_buf *effective)
{
    static const kd_rules_handlers handlers = {.create = on_create, .command = on_command, .table = on_table};
    apply_ctx a = {.c = c, .override = override, .trust = trust, .effective = effective};
    return kd_rules_run_tx(ba, index, &handlers, &a, r);
}

/* Makes the block at `height` final: strips its effects, and with them
 * its undo records (one record rewritten: the pages its undo records
 * took are freed together). Blocks that are already final (or absent)
 * are left alone. */
static kd_err prune_height(kd_txn *c, uint64_t height)
{
    kd_store *s = &c->engine->store;
    uint8_t hkey[8];
    kd_put_u64be(hkey, height);
    MDB_val k = kd_val(hkey, 8), v;
    int rc = mdb_get(c->txn, s->heights, &k, &v);
    if (rc == MDB_NOTFOUND)
        return KD_OK;
    kd_err err = kd_store_err(rc, "read height");
    if (err)
        return err;
    uint8_t hash[KD_HASH_LEN];
    if (v.mv_size != KD_HASH_LEN)
        return KD_ERR_STORE;
    memcpy(hash, v.mv_data, KD_HASH_LEN);
    Kdapp__Store__BlockRecord *rec = NULL;
    if ((err = kd_txn_read_block(c, hash, &rec)))
        return err == KD_ERR_NOT_FOUND ? KD_ERR_STORE : err;
    size_t n_effects = rec->n_effects;
    rec->final = 1;
    rec->n_effects = 0; /* pack without them; restored for free_unpacked */
    err = kd_txn_write_block(c, hash, rec);
    rec->n_effects = n_effects;
    if (!err)
        err = kd_txn_del(c, s->heights, hkey, 8, "prune height");
    kdapp__store__block_record__free_unpacked(rec, NULL);
    return err;
}

static void hex_short(const uint8_t *hash, char out[17]) { kd_hex_encode(hash, 8, out); }

/* A re-delivered accept (its first ack was lost, e.g. to a crash after the
 * commit) is answered with the outcomes recorded when it was applied, so
 * the sender learns what applied exactly as from the first answer: a feed
 * tracking move counters stays right (found by tests/crash). */
static kd_err duplicate_outcomes(kd_txn *c, const Kdapp__BlockAccepted *ba, kd_msg_result *res)
{
    Kdapp__Store__BlockRecord *rec = NULL;
    Kdapp__Store__LogEntry *le = NULL;
    kd_err err = kd_txn_read_block(c, ba->accepting_hash.data, &rec);
    if (err)
        return err;
    uint8_t key[8];
    kd_put_u64be(key, rec->log_seq);
    MDB_val k = kd_val(key, 8), v;
    if ((err = kd_store_err(mdb_get(c->txn, c->engine->store.log, &k, &v), "read log")))
        goto done;
    if (!(le = kdapp__store__log_entry__unpack(NULL, v.mv_size, v.mv_data))) {
        KD_LOG_E("engine", "log entry %llu does not decode", (unsigned long long)rec->log_seq);
        err = KD_ERR_STORE;
        goto done;
    }
    if (!(res->txs = calloc(le->n_txs ? le->n_txs : 1, sizeof *res->txs))) {
        err = KD_ERR_NOMEM;
        goto done;
    }
    res->tx_count = le->n_txs;
    for (size_t i = 0; i < le->n_txs; i++) {
        const Kdapp__Store__TxOutcome *o = le->txs[i];
        kd_tx_result *r = &res->txs[i];
        if (i < ba->n_txs && ba->txs[i]->tx_id.len == KD_HASH_LEN)
            memcpy(r->tx_id, ba->txs[i]->tx_id.data, KD_HASH_LEN);
        r->episode_id = o->episode_id;
        r->applied = o->applied;
        if (!o->applied)
            kd_tx_result_set_rejected(r, o->error_code, o->error);
    }
done:
    if (le)
        kdapp__store__log_entry__free_unpacked(le, NULL);
    kdapp__store__block_record__free_unpacked(rec, NULL);
    return err;
}

/*
 * Accepting a block, step by step, in one write transaction:
 *
 *   accept_check       the hash is 32 bytes (else refused), the block is
 *                      not applied yet (else a duplicate, answered with
 *                      the outcomes recorded when it was)
 *   run_txs            every tx through the rules, in block order: the
 *                      working set changes, undo records are written, and
 *                      each tx gets its outcome (res->txs, TxOutcome)
 *   flush_with_digest  the touched episodes written back; the digest
 *   write_block        the block record, its height, the revert mark
 *                      cleared, the block beyond finality pruned
 *   commit_accept      the history index (store.h), the log entry and
 *                      the metrics, the commit, then the answer and the
 *                      commit listener
 *
 * The writes happen in that order (the crash tests name the points
 * between them: tests/crash).
 */

/* The log entry's record of each tx. outcomes[i] points into res->txs[i]
 * (code, detail) and effective[i] (a creation's effective params), so the
 * record lives as long as both. */
typedef struct {
    size_t n;
    Kdapp__Store__TxOutcome *outcomes;
    Kdapp__Store__TxOutcome **ptrs;
    kd_buf *effective;
    uint32_t applied;
} tx_outcomes;

static kd_err tx_outcomes_alloc(tx_outcomes *o, size_t n)
{
    memset(o, 0, sizeof *o);
    o->outcomes = calloc(n ? n : 1, sizeof *o->outcomes);
    o->ptrs = calloc(n ? n : 1, sizeof *o->ptrs);
    o->effective = calloc(n ? n : 1, sizeof *o->effective);
    if (!o->outcomes || !o->ptrs || !o->effective)
        return KD_ERR_NOMEM;
    o->n = n;
    for (size_t i = 0; i < n; i++)
        kd_buf_init(&o->effective[i]);
    return KD_OK;
}

static void tx_outcomes_fini(tx_outcomes *o)
{
    for (size_t i = 0; o->effective && i < o->n; i++)
        kd_buf_fini(&o->effective[i]);
    free(o->effective);
    free(o->outcomes);
    free(o->ptrs);
    memset(o, 0, sizeof *o);
}

/* Step 1. Sets *fresh when the block is to be applied; otherwise `res` is
 * answered: refused (logged and committed) or duplicate. */
static kd_err accept_check(kd_txn *c, const Kdapp__BlockAccepted *ba, const uint8_t *msg, size_t len,
                           kd_msg_result *res, int *fresh)
{
    kd_engine *e = c->engine;
    *fresh = 0;
    if (ba->accepting_hash.len != KD_HASH_LEN) {
        char detail[KD_DETAIL_MAX];
        snprintf(detail, sizeof detail, "accepting_hash is %zu bytes, not 32", ba->accepting_hash.len);
        return kd_txn_refuse(c, msg, len, KD_ERR_BAD_HASH, detail, res);
    }
    memcpy(res->block_hash, ba->accepting_hash.data, KD_HASH_LEN);
    MDB_val k = kd_val(ba->accepting_hash.data, KD_HASH_LEN), v;
    int rc = mdb_get(c->txn, e->store.blocks, &k, &v);
    if (rc == 0) {
        res->status = KD_MSG_DUPLICATE;
        e->metrics.duplicates++; /* stored with the next commit */
        e->metrics_unsaved = 1;
        return duplicate_outcomes(c, ba, res);
    }
    if (rc != MDB_NOTFOUND)
        return kd_store_err(rc, "read block");
    *fresh = 1;
    return KD_OK;
}

/* The effective parameters a replayed log entry recorded for tx i (a
 * creation it applied), or NULL. */
static const ProtobufCBinaryData *replay_params(const Kdapp__Store__LogEntry *replay, size_t i)
{
    if (replay && i < replay->n_txs && replay->txs[i]->applied && replay->txs[i]->effective_params.len)
        return &replay->txs[i]->effective_params;
    return NULL;
}

/* How far a replay may trust its log on tx i (rules.h): KD_RULES_LEGACY
 * for a tx recorded as applied (a creation made before consents named
 * their chain verifies with its v1 consent), and KD_RULES_TRUSTED when
 * `kdapp replay` trusts the signature verdicts (kd_engine_trust_replayed_
 * signatures) and the log's verdict on tx i may be trusted (a command's
 * signature, a creation's consents): a tx recorded as applied,
 * or rejected by a rule checked after the signatures, which the same state
 * refuses again the same way. A verdict on the signatures themselves is
 * never trusted: skipping the check would apply what was refused.
 *
 * A stale command (rules.h, kd_rules_refuse_stale) was refused either by
 * a rule, run on a copy of the state it now meets again with the same
 * signer and block, so the trusted replay, skipping the signature, runs
 * the same pure execute on the same state and is refused by the same rule
 * (its sentence lacks the note on the move it was signed for, the code
 * and the state are the same); or as stale_command, when the rules would
 * have taken it: that verdict is on the signature, and is never trusted
 * (skipped, the command would apply). A tx the trusted replay's log
 * recorded as applied is KD_RULES_PRECHECKED too: the precheck of its
 * type held (a proof it carries), which the replay trusts as well. */
static unsigned replay_trust(const kd_engine *e, const Kdapp__Store__LogEntry *replay, size_t i)
{
    if (!replay || i >= replay->n_txs)
        return 0;
    const Kdapp__Store__TxOutcome *o = replay->txs[i];
    unsigned legacy = o->applied ? KD_RULES_LEGACY : 0;
    if (!e->trust_replayed_signatures)
        return legacy;
    static const kd_err untrusted[] = {
        KD_ERR_BAD_SIGNATURE, KD_ERR_BAD_PUBKEY, KD_ERR_UNKNOWN_EPISODE,
        KD_ERR_DECODE,        KD_ERR_NO_CONSENT, KD_ERR_STALE_COMMAND,
    };
    if (o->applied)
        return legacy | KD_RULES_TRUSTED | KD_RULES_PRECHECKED; /* applied: its type's precheck held too */
    for (size_t k = 0; k < sizeof untrusted / sizeof untrusted[0]; k++)
        if (strcmp(o->error_code, kd_err_code(untrusted[k])) == 0)
            return 0;
    return KD_RULES_TRUSTED;
}

/* Step 2. Runs every tx of the block in order: res->txs gets each one's
 * outcome and `out` (allocated here) its TxOutcome. Only storage and
 * memory failures are returned. */
static kd_err run_txs(kd_txn *c, const Kdapp__BlockAccepted *ba, const Kdapp__Store__LogEntry *replay,
                      kd_msg_result *res, tx_outcomes *out)
{
    res->txs = calloc(ba->n_txs ? ba->n_txs : 1, sizeof *res->txs);
    if (!res->txs)
        return KD_ERR_NOMEM;
    res->tx_count = ba->n_txs;
    kd_err err = tx_outcomes_alloc(out, ba->n_txs);
    for (size_t i = 0; i < ba->n_txs && !err; i++) {
        const kd_tx_result *r = &res->txs[i];
        if ((err = apply_tx(c, ba, i, replay_params(replay, i), replay_trust(c->engine, replay, i), &res->txs[i],
                            &out->effective[i])))
            break;
        Kdapp__Store__TxOutcome o = KDAPP__STORE__TX_OUTCOME__INIT;
        o.applied = r->applied;
        o.episode_id = r->episode_id;
        o.error_code = o.applied ? (char *)"" : (char *)r->code;
        o.error = o.applied ? (char *)"" : (char *)r->detail;
        if (o.applied && out->effective[i].len) {
            o.effective_params.data = out->effective[i].data;
            o.effective_params.len = out->effective[i].len;
        }
        out->outcomes[i] = o;
        out->ptrs[i] = &out->outcomes[i];
        out->applied += (uint32_t)o.applied;
    }
    return err;
}

/* Step 3. Writes the working set back and chains the block's digest:
 * D(B) = SHA-256(D(P) || B || per touched episode, by id: id || state
 * hash), see the top of this file. */
static kd_err flush_with_digest(kd_txn *c, const uint8_t parent_digest[KD_HASH_LEN], const uint8_t *hash, uint64_t seq,
                                uint8_t digest[KD_HASH_LEN])
{
    kd_sha256_ctx sha;
    kd_err err = kd_sha256_init(&sha);
    if (!err) {
        kd_sha256_update(&sha, parent_digest, KD_HASH_LEN);
        kd_sha256_update(&sha, hash, KD_HASH_LEN);
        err = kd_txn_flush(c, &sha, hash, seq);
        if (c->table_marks.len) /* the open tables the block touched, in order: id || SHA-256(record) */
            kd_sha256_update(&sha, c->table_marks.data, c->table_marks.len);
        kd_sha256_final(&sha, digest);
    }
    kd_sha256_fini(&sha);
    return err;
}

/* Step 4. Writes the block record (on `parent`, with `digest` and the
 * transaction's effects), its height, clears a revert mark it may carry,
 * and prunes the block that falls beyond the finality depth. */
static kd_err write_block(kd_txn *c, const Kdapp__BlockAccepted *ba, const kd_chain_pos *parent, uint64_t seq,
                          const uint8_t digest[KD_HASH_LEN])
{
    kd_engine *e = c->engine;
    const uint8_t *hash = ba->accepting_hash.data;
    Kdapp__Store__Effect **effect_ptrs = calloc(c->n_effects ? c->n_effects : 1, sizeof *effect_ptrs);
    if (!effect_ptrs)
        return KD_ERR_NOMEM;
    kd_txn_effects_fix(c);
    for (size_t i = 0; i < c->n_effects; i++)
        effect_ptrs[i] = &c->effects[i];
    Kdapp__Store__BlockRecord rec = KDAPP__STORE__BLOCK_RECORD__INIT;
    rec.log_seq = seq;
    rec.height = parent->height + 1;
    if (parent->has_tip) {
        rec.parent.data = (uint8_t *)parent->tip;
        rec.parent.len = KD_HASH_LEN;
    }
    rec.digest.data = (uint8_t *)digest;
    rec.digest.len = KD_HASH_LEN;
    rec.n_effects = c->n_effects;
    rec.effects = effect_ptrs;
    rec.daa = ba->accepting_daa;
    rec.time = ba->accepting_time;
    kd_err err = kd_txn_write_block(c, hash, &rec);
    free(effect_ptrs);
    if (err)
        return err;
    uint8_t hkey[8];
    kd_put_u64be(hkey, rec.height);
    if ((err = kd_txn_put(c, e->store.heights, hkey, 8, hash, KD_HASH_LEN, "write height")) ||
        (err = kd_txn_del(c, e->store.reverted, hash, KD_HASH_LEN, "unmark reverted")))
        return err;
    if (rec.height > e->finality)
        err = prune_height(c, rec.height - e->finality);
    return err;
}

/* The metrics after accepting the block. */
static void count_accept(const kd_engine *e, const Kdapp__BlockAccepted *ba, const kd_msg_result *res, uint32_t applied,
                         kd_metrics *m)
{
    *m = e->metrics;
    m->blocks_applied++;
    m->txs_applied += applied;
    m->txs_rejected += ba->n_txs - applied;
    for (size_t i = 0; i < ba->n_txs; i++)
        if (!res->txs[i].applied)
            kd_code_counts_add(&m->rejections, res->txs[i].err, res->txs[i].code, 1);
    if (m->revert_streak) {
        kd_histogram_observe(&m->hist[KD_HIST_REORG_DEPTH], KD_HIST_REORG_DEPTH, m->revert_streak);
        m->revert_streak = 0;
    }
    m->tip_time_ms = ba->accepting_time;
}

/* Step 5. Logs the block with its outcomes, stores the metrics and the new
 * tip `pos`, commits, then answers `res` and tells the listener. */
static kd_err commit_accept(kd_txn *c, const Kdapp__BlockAccepted *ba, const uint8_t *msg, size_t len, uint64_t seq,
                            const kd_chain_pos *pos, tx_outcomes *o, kd_msg_result *res)
{
    Kdapp__Store__LogEntry entry = KDAPP__STORE__LOG_ENTRY__INIT;
    entry.message.data = (uint8_t *)msg;
    entry.message.len = len;
    entry.status = KDAPP__MSG_STATUS__MSG_APPLIED;
    entry.n_txs = ba->n_txs;
    entry.txs = o->ptrs;
    entry.digest.data = (uint8_t *)pos->digest;
    entry.digest.len = KD_HASH_LEN;
    entry.tip_height = pos->height;
    kd_metrics m;
    count_accept(c->engine, ba, res, o->applied, &m);
    kd_err err = kd_txn_write_history(c, seq, KD_HISTORY_ACCEPT);
    if (!err)
        err = kd_txn_log_and_commit(c, seq, &entry, pos, &m);
    if (err)
        return err;
    res->status = KD_MSG_APPLIED;
    res->log_seq = seq;
    char h[17];
    hex_short(pos->tip, h);
    KD_LOG_D("engine", "applied block %s at height %llu: %u/%zu txs", h, (unsigned long long)pos->height, o->applied,
             ba->n_txs);
    kd_txn_dispatch(c, 0, pos->tip, ba->accepting_daa, ba->accepting_time, seq, res);
    KD_CRASHPOINT("after_apply"); /* crash test: committed and dispatched, no reply yet */
    return KD_OK;
}

static kd_err accept_block(kd_txn *c, const Kdapp__BlockAccepted *ba, const uint8_t *msg, size_t len,
                           const Kdapp__Store__LogEntry *replay, kd_msg_result *res)
{
    KD_CRASHPOINT("before_put"); /* crash test: transaction open, nothing written */
    int fresh;
    kd_err err = accept_check(c, ba, msg, len, res, &fresh);
    if (err || !fresh)
        return err;
    uint64_t seq = c->engine->next_seq;
    kd_chain_pos parent, pos;
    kd_chain_pos_of(&c->engine->tip, &parent);
    pos = parent;
    pos.has_tip = 1;
    memcpy(pos.tip, ba->accepting_hash.data, KD_HASH_LEN);
    pos.height = parent.height + 1;
    tx_outcomes o = {0};
    if (!(err = run_txs(c, ba, replay, res, &o)) &&
        !(err = flush_with_digest(c, parent.digest, pos.tip, seq, pos.digest)) &&
        !(err = write_block(c, ba, &parent, seq, pos.digest)))
        err = commit_accept(c, ba, msg, len, seq, &pos, &o, res);
    tx_outcomes_fini(&o);
    return err;
}

/* ---------------------------------------------------------------- ingest */

void kd_msg_result_init(kd_msg_result *res) { memset(res, 0, sizeof *res); }

void kd_msg_result_fini(kd_msg_result *res)
{
    if (!res)
        return;
    free(res->txs);
    memset(res, 0, sizeof *res);
}

/* One attempt in one write transaction. */
static kd_err process(kd_engine *engine, const Kdapp__EngineMsg *m, const uint8_t *msg, size_t len,
                      const Kdapp__Store__LogEntry *replay, kd_msg_result *res)
{
    kd_txn c;
    kd_txn_init(&c, engine);
    kd_err err = kd_txn_begin(&c);
    if (err)
        goto done;
    if (m->kind_case == KDAPP__ENGINE_MSG__KIND_ACCEPTED)
        err = accept_block(&c, m->accepted, msg, len, replay, res);
    else
        err = kd_txn_revert_block(&c, m->reverted, msg, len, res);
done:
    kd_txn_fini(&c); /* aborts the transaction unless it was committed */
    return err;
}

/* Applies the decoded message `m`, whose encoding `msg` goes to the log. */
static kd_err ingest_decoded(kd_engine *engine, const Kdapp__EngineMsg *m, const uint8_t *msg, size_t len,
                             const Kdapp__Store__LogEntry *replay, kd_msg_result *res)
{
    kd_msg_result_init(res);
    if (engine->store.read_only) {
        snprintf(res->detail, sizeof res->detail, "the engine is open read-only");
        return KD_ERR_UNSUPPORTED;
    }
    if (m->kind_case != KDAPP__ENGINE_MSG__KIND_ACCEPTED && m->kind_case != KDAPP__ENGINE_MSG__KIND_REVERTED) {
        snprintf(res->detail, sizeof res->detail, "EngineMsg carries neither accepted nor reverted");
        return KD_ERR_DECODE;
    }
    kd_err err = KD_OK;
    uint64_t t0 = kd_now_us();
    for (int grows = 0;; grows++) {
        err = process(engine, m, msg, len, replay, res);
        if (err != KD_ERR_MAP_FULL || grows == MAX_GROWS)
            break;
        kd_msg_result_fini(res);
        /* process() ended its transaction (and its map lock hold):
         * this process now has no transaction of the writer open. */
        if ((err = kd_engine_map_grow(engine)))
            break;
    }
    if (err == KD_ERR_MAP_FULL || err == KD_ERR_NO_SPACE)
        snprintf(res->detail, sizeof res->detail,
                 "%s: nothing of this event was applied and everything acknowledged before it is kept; "
                 "send it again once there is room",
                 err == KD_ERR_MAP_FULL ? "the data file is full and may not grow further" : "the disk is full");
    else if (err && !res->detail[0])
        snprintf(res->detail, sizeof res->detail, "%s", kd_err_str(err));
    if (!err && res->status == KD_MSG_APPLIED) { /* stored with the next commit */
        kd_hist_id h = res->reverted ? KD_HIST_REVERT_US : KD_HIST_APPLY_US;
        kd_histogram_observe(&engine->metrics.hist[h], h, kd_now_us() - t0);
        engine->metrics_unsaved = 1;
    }
    return err;
}

static kd_err ingest(kd_engine *engine, const uint8_t *msg, size_t len, const Kdapp__Store__LogEntry *replay,
                     kd_msg_result *res)
{
    Kdapp__EngineMsg *m = kdapp__engine_msg__unpack(NULL, len, msg);
    if (!m) {
        kd_msg_result_init(res);
        snprintf(res->detail, sizeof res->detail, "message (%zu bytes) is not a kdapp.EngineMsg", len);
        return KD_ERR_DECODE;
    }
    kd_err err = ingest_decoded(engine, m, msg, len, replay, res);
    kdapp__engine_msg__free_unpacked(m, NULL);
    return err;
}

kd_err kd_engine_ingest(kd_engine *engine, const uint8_t *msg, size_t len, kd_msg_result *res)
{
    return ingest(engine, msg, len, NULL, res);
}

kd_err kd_engine_ingest_decoded(kd_engine *engine, const struct Kdapp__EngineMsg *m, const uint8_t *msg, size_t len,
                                kd_msg_result *res)
{
    return ingest_decoded(engine, m, msg, len, NULL, res);
}

kd_err kd_engine_replay_entry(kd_engine *engine, const uint8_t *entry, size_t len, kd_msg_result *res)
{
    kd_msg_result_init(res);
    Kdapp__Store__LogEntry *le = kdapp__store__log_entry__unpack(NULL, len, entry);
    if (!le) {
        snprintf(res->detail, sizeof res->detail, "log entry (%zu bytes) does not decode", len);
        return KD_ERR_DECODE;
    }
    kd_err err = ingest(engine, le->message.data, le->message.len, le, res);
    kdapp__store__log_entry__free_unpacked(le, NULL);
    return err;
}

void kd_engine_save_metrics(kd_engine *engine)
{
    if (engine->store.read_only || !engine->metrics_unsaved)
        return;
    kd_buf b;
    kd_buf_init(&b);
    kd_txn c;
    kd_txn_init(&c, engine);
    kd_err err = kd_metrics_encode(&engine->metrics, &b);
    if (!err)
        err = kd_txn_begin(&c);
    if (!err)
        err = kd_txn_put(&c, engine->store.meta, KD_META_METRICS, strlen(KD_META_METRICS), b.data, b.len, "metrics");
    if (!err) {
        err = kd_store_err(mdb_txn_commit(c.txn), "commit metrics");
        c.txn = NULL; /* committed or, on error, freed by LMDB */
    }
    kd_txn_fini(&c);
    if (err)
        KD_LOG_W("engine", "cannot store the last metrics: %s", kd_err_str(err));
    else
        engine->metrics_unsaved = 0;
    kd_buf_fini(&b);
}

void kd_engine_use_sig_batch(kd_engine *engine, struct kd_sig_batch *batch) { engine->sig_batch = batch; }

void kd_engine_note_source_tip(kd_engine *engine, uint64_t time_ms)
{
    engine->metrics.source_tip_time_ms = time_ms;
    engine->metrics_unsaved = 1;
}

void kd_engine_trust_replayed_signatures(kd_engine *engine, int trust) { engine->trust_replayed_signatures = trust; }

uint64_t kd_engine_last_commit_us(const kd_engine *engine) { return engine->last_commit_us; }
