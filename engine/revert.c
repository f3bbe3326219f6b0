/*
 * revert.c — reverting the tip block: its effects are undone newest first
 * (a command pops its undo record and rolls the state back; a creation
 * deletes the episode), the parent becomes the tip and its digest comes
 * back. A revert that does not name the tip, names an unknown block, or
 * reaches a block beyond the finality depth is refused and changes
 * nothing; a revert re-delivered after it was applied is a duplicate.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/table.h"
#include "engine/crashpoint.h"
#include "engine/logger.h"
#include "engine/netutil.h"
#include "engine/txn.h"

/* ------------------------------------------------------------- reverting */

static kd_err revert_effect(kd_txn *c, const Kdapp__Store__Effect *fx)
{
    if (fx->kind == KDAPP__STORE__EFFECT_KIND__EFFECT_TABLE)
        return kd_table_revert(c, fx);
    kd_txn_episode *ep;
    kd_err err = kd_txn_get(c, fx->episode_id, &ep);
    if (err) {
        KD_LOG_E("engine", "revert: episode %u of an applied block is missing", fx->episode_id);
        return err == KD_ERR_NOT_FOUND ? KD_ERR_STORE : err;
    }
    kd_txn_event *ev;
    if (fx->kind == KDAPP__STORE__EFFECT_KIND__EFFECT_CREATE) {
        if (ep->undo_depth != 0) {
            KD_LOG_E("engine", "revert: episode %u still has %llu commands at its creation", ep->id,
                     (unsigned long long)ep->undo_depth);
            return KD_ERR_STORE;
        }
        ep->deleted = 1;
        ep->dirty = 1;
        return kd_txn_add_event(c, KD_EVENT_ROLLBACK, ep->id, &ev);
    }
    if (fx->undo_depth != ep->undo_depth) {
        KD_LOG_E("engine", "revert: episode %u is at depth %llu, block expects %llu", ep->id,
                 (unsigned long long)ep->undo_depth, (unsigned long long)fx->undo_depth);
        return KD_ERR_STORE;
    }
    const kd_episode_ops *ops = ep->type->ops;
    size_t off;
    if ((err = kd_txn_arena_reserve(c, ops->undo_size, &off)))
        return err;
    if (ops->decode_undo(fx->undo.data, fx->undo.len, c->arena.data + off) != KD_OK) {
        KD_LOG_E("engine", "revert: undo record (%u, %llu) does not decode", ep->id,
                 (unsigned long long)ep->undo_depth);
        return KD_ERR_STORE;
    }
    if (ops->rollback(ep->state, c->arena.data + off) != KD_OK) {
        KD_LOG_E("engine", "revert: undo record (%u, %llu) does not fit the episode's state", ep->id,
                 (unsigned long long)ep->undo_depth);
        return KD_ERR_STORE;
    }
    ep->undo_depth--;
    ep->dirty = 1;
    ep->last_event = KD_EVENT_ROLLBACK;
    if ((err = kd_txn_add_event(c, KD_EVENT_ROLLBACK, ep->id, &ev)))
        return err;
    ev->has_undo = 1;
    ev->undo_off = off;
    return KD_OK;
}

/*
 * Reverting the tip, step by step, in one write transaction:
 *
 *   revert_check     the hash is 32 bytes, the block is applied (or was
 *                    reverted: a duplicate), it is the tip, it is not
 *                    final; else refused (logged and committed)
 *   undo_effects     its effects undone newest first (working set)
 *   parent_position  where the chain stands after: the parent, its digest
 *   write_revert     the episodes written back, the block's record and
 *                    height deleted, the block marked reverted
 *   commit_revert    the history index (store.h), the log entry and the
 *                    metrics, the commit, then the answer and the
 *                    commit listener
 *
 * The writes happen in that order (the crash tests name the points
 * between them: tests/crash).
 */

/* Step 1. Sets *rec (freed by the caller) to the tip's record when it may
 * be reverted; otherwise `res` is answered (duplicate, or refused: logged
 * and committed) and *rec stays NULL. */
static kd_err revert_check(kd_txn *c, const Kdapp__BlockReverted *br, const uint8_t *msg, size_t len,
                           kd_msg_result *res, Kdapp__Store__BlockRecord **rec)
{
    kd_engine *e = c->engine;
    char detail[KD_DETAIL_MAX], h[2 * KD_HASH_LEN + 1], t[2 * KD_HASH_LEN + 1];
    *rec = NULL;
    if (br->accepting_hash.len != KD_HASH_LEN) {
        snprintf(detail, sizeof detail, "accepting_hash is %zu bytes, not 32", br->accepting_hash.len);
        return kd_txn_refuse(c, msg, len, KD_ERR_BAD_HASH, detail, res);
    }
    const uint8_t *hash = br->accepting_hash.data;
    memcpy(res->block_hash, hash, KD_HASH_LEN);
    kd_hex_encode(hash, KD_HASH_LEN, h);
    Kdapp__Store__BlockRecord *found = NULL;
    kd_err err = kd_txn_read_block(c, hash, &found);
    if (err == KD_ERR_NOT_FOUND) {
        MDB_val k = kd_val(hash, KD_HASH_LEN), v;
        int rc = mdb_get(c->txn, e->store.reverted, &k, &v);
        if (rc == 0) { /* re-delivered after it was reverted: acknowledge again */
            res->status = KD_MSG_DUPLICATE;
            e->metrics.duplicates++;
            e->metrics_unsaved = 1;
            return KD_OK;
        }
        if (rc != MDB_NOTFOUND)
            return kd_store_err(rc, "read reverted");
        snprintf(detail, sizeof detail, "block %s is not applied; nothing to revert", h);
        return kd_txn_refuse(c, msg, len, KD_ERR_UNKNOWN_BLOCK, detail, res);
    }
    if (err)
        return err;
    if (!e->tip.has_tip || memcmp(e->tip.hash, hash, KD_HASH_LEN) != 0) {
        kd_hex_encode(e->tip.hash, KD_HASH_LEN, t);
        snprintf(detail, sizeof detail, "block %s is not the tip; revert the tip %s first", h, t);
        err = kd_txn_refuse(c, msg, len, KD_ERR_NOT_TIP, detail, res);
    } else if (found->final) {
        snprintf(detail, sizeof detail,
                 "block %s is beyond the finality depth (%llu blocks): its undo records were "
                 "pruned; a re-sync is needed",
                 h, (unsigned long long)e->finality);
        err = kd_txn_refuse(c, msg, len, KD_ERR_BEYOND_FINALITY, detail, res);
    } else {
        *rec = found; /* the caller reverts it */
        return KD_OK;
    }
    kdapp__store__block_record__free_unpacked(found, NULL);
    return err;
}

/* Step 2. Undoes the block's effects, newest first. */
static kd_err undo_effects(kd_txn *c, const Kdapp__Store__BlockRecord *rec)
{
    kd_err err = KD_OK;
    for (size_t i = rec->n_effects; i-- > 0 && !err;)
        err = revert_effect(c, rec->effects[i]);
    return err;
}

/* Step 3. The chain position after the revert: the parent (its hash and
 * digest; none at genesis) one block lower, and the parent's block time
 * (0 at genesis). */
static kd_err parent_position(kd_txn *c, const Kdapp__Store__BlockRecord *rec, kd_chain_pos *pos, uint64_t *parent_time)
{
    memset(pos, 0, sizeof *pos);
    *parent_time = 0;
    pos->height = rec->height - 1;
    if (rec->parent.len != KD_HASH_LEN)
        return KD_OK;
    Kdapp__Store__BlockRecord *parent = NULL;
    kd_err err = kd_txn_read_block(c, rec->parent.data, &parent);
    if (err)
        return err == KD_ERR_NOT_FOUND ? KD_ERR_STORE : err;
    pos->has_tip = 1;
    memcpy(pos->tip, rec->parent.data, KD_HASH_LEN);
    if (parent->digest.len == KD_HASH_LEN)
        memcpy(pos->digest, parent->digest.data, KD_HASH_LEN);
    *parent_time = parent->time;
    kdapp__store__block_record__free_unpacked(parent, NULL);
    return KD_OK;
}

/* Step 4. Writes the rolled-back and deleted episodes, deletes the block's
 * record and height, and marks it reverted (at log position `seq`). */
static kd_err write_revert(kd_txn *c, const uint8_t *hash, const Kdapp__Store__BlockRecord *rec, uint64_t seq)
{
    kd_engine *e = c->engine;
    kd_sha256_ctx unused; /* a revert restores the parent's digest */
    kd_err err = kd_sha256_init(&unused);
    if (!err)
        err = kd_txn_flush(c, &unused, hash, seq);
    kd_sha256_fini(&unused);
    if (err)
        return err;
    uint8_t hkey[8], seq_be[8];
    kd_put_u64be(hkey, rec->height);
    kd_put_u64be(seq_be, seq);
    if ((err = kd_txn_del(c, e->store.blocks, hash, KD_HASH_LEN, "delete block")) ||
        (err = kd_txn_del(c, e->store.heights, hkey, 8, "delete height")))
        return err;
    return kd_txn_put(c, e->store.reverted, hash, KD_HASH_LEN, seq_be, 8, "mark reverted");
}

/* The metrics after reverting `rec`. */
static void count_revert(const kd_engine *e, const Kdapp__Store__BlockRecord *rec, uint64_t parent_time, kd_metrics *m)
{
    *m = e->metrics;
    size_t undone = 0;
    for (size_t i = 0; i < rec->n_effects; i++)
        undone += rec->effects[i]->kind == KDAPP__STORE__EFFECT_KIND__EFFECT_COMMAND;
    m->blocks_reverted++;
    m->revert_streak++;
    kd_histogram_observe(&m->hist[KD_HIST_UNDO_PER_REVERT], KD_HIST_UNDO_PER_REVERT, undone);
    m->tip_time_ms = parent_time;
}

/* Step 5. Logs the revert, stores the metrics and the tip `pos` (the
 * parent), commits, then answers `res` and tells the listener. */
static kd_err commit_revert(kd_txn *c, const uint8_t *hash, const Kdapp__Store__BlockRecord *rec, const uint8_t *msg,
                            size_t len, uint64_t seq, const kd_chain_pos *pos, uint64_t parent_time, kd_msg_result *res)
{
    Kdapp__Store__LogEntry entry = KDAPP__STORE__LOG_ENTRY__INIT;
    entry.message.data = (uint8_t *)msg;
    entry.message.len = len;
    entry.status = KDAPP__MSG_STATUS__MSG_APPLIED;
    entry.digest.data = (uint8_t *)pos->digest;
    entry.digest.len = KD_HASH_LEN;
    entry.tip_height = pos->height;
    kd_metrics m;
    count_revert(c->engine, rec, parent_time, &m);
    kd_err err = kd_txn_write_history(c, seq, KD_HISTORY_REVERT);
    if (!err)
        err = kd_txn_log_and_commit(c, seq, &entry, pos, &m);
    if (err)
        return err;
    res->status = KD_MSG_APPLIED;
    res->log_seq = seq;
    char h[17];
    kd_hex_encode(hash, 8, h);
    KD_LOG_D("engine", "reverted block %s (%zu effects)", h, rec->n_effects);
    kd_txn_dispatch(c, 1, hash, rec->daa, rec->time, seq, res);
    KD_CRASHPOINT("after_apply"); /* crash test: committed and dispatched, no reply yet */
    return KD_OK;
}

kd_err kd_txn_revert_block(kd_txn *c, const Kdapp__BlockReverted *br, const uint8_t *msg, size_t len,
                           kd_msg_result *res)
{
    KD_CRASHPOINT("before_put"); /* crash test: transaction open, nothing written */
    res->reverted = 1;
    Kdapp__Store__BlockRecord *rec = NULL;
    kd_err err = revert_check(c, br, msg, len, res, &rec);
    if (err || !rec)
        return err;
    const uint8_t *hash = br->accepting_hash.data;
    uint64_t seq = c->engine->next_seq, parent_time = 0;
    kd_chain_pos pos;
    if (!(err = undo_effects(c, rec)) && !(err = parent_position(c, rec, &pos, &parent_time)) &&
        !(err = write_revert(c, hash, rec, seq)))
        err = commit_revert(c, hash, rec, msg, len, seq, &pos, parent_time, res);
    kdapp__store__block_record__free_unpacked(rec, NULL);
    return err;
}

/* ------------------------------------------------------------ a reorg */

/* Most reverts one shared transaction carries; a longer run is split. */
#define REVERT_BATCH_MAX 1024
/* Times a run's full map may grow before it is applied one by one. */
#define MAX_GROWS 12

/*
 * Why a reorg's reverts share one write transaction: each event used to be
 * synced on its own, so a reorg of 1,000 blocks was 1,000 synced commits
 * (7 ms each on an SSD, about 30 ms on a laptop's disk: 7 to 30 s), while
 * the writer, and so every other game's next move, waited. In one
 * transaction the same reorg syncs once. Each revert still gets the
 * verdict, log entry and listener event it would get alone, and readers
 * see the chain before the reorg or after it, never half-way.
 *
 *   begin ── revert 1 ── revert 2 ── … ── revert k ── commit (one sync)
 *            (each: checks, undo, log entry, meta, as kd_txn_revert_block;
 *             the engine's cached tip follows, the listener waits)
 *   commit ok:  the listener hears each revert in order
 *   any error:  abort; the engine's cached tip, next position and metrics
 *               go back to the snapshot; a full map grows and the run
 *               starts over, any other error has the caller apply the k
 *               reverts one by one (kd_engine_ingest_decoded, which says
 *               what failed)
 */
static kd_err revert_batch(kd_engine *e, struct Kdapp__EngineMsg *const *m, size_t k, kd_msg_result *res)
{
    kd_txn *cs = calloc(k, sizeof *cs);
    uint64_t *took = calloc(k, sizeof *took);
    kd_buf msg;
    kd_buf_init(&msg);
    kd_tip tip = e->tip;
    kd_metrics metrics = e->metrics;
    uint64_t next_seq = e->next_seq;
    int unsaved = e->metrics_unsaved, held = 0;
    size_t begun = 0;
    MDB_txn *txn = NULL;
    kd_err err = cs && took ? kd_engine_map_hold(e) : KD_ERR_NOMEM;
    if (!err) {
        held = 1;
        err = kd_store_err(mdb_txn_begin(e->store.env, NULL, 0, &txn), "begin write");
    }
    for (size_t i = 0; i < k && !err; i++) {
        kd_msg_result_init(&res[i]);
        size_t n = kdapp__engine_msg__get_packed_size(m[i]);
        if ((err = kd_buf_reserve(&msg, n)))
            break;
        msg.len = kdapp__engine_msg__pack(m[i], msg.data);
        kd_txn_init(&cs[i], e);
        begun = i + 1;
        cs[i].txn = txn;
        cs[i].batched = 1;
        uint64_t t0 = kd_now_us();
        err = kd_txn_revert_block(&cs[i], m[i]->reverted, msg.data, msg.len, &res[i]);
        took[i] = kd_now_us() - t0;
    }
    if (!err) {
        uint64_t t0 = kd_now_us();
        KD_CRASHPOINT("before_commit"); /* crash test: all put, nothing durable */
        int rc = mdb_txn_commit(txn);
        txn = NULL;
        e->last_commit_us = kd_now_us() - t0;
        if (!(err = kd_store_err(rc, "commit reverts")))
            KD_CRASHPOINT("after_commit"); /* crash test: durable, not acknowledged */
    }
    if (txn)
        mdb_txn_abort(txn);
    if (held)
        kd_engine_map_release(e);
    if (err) { /* nothing of it happened */
        e->tip = tip;
        e->metrics = metrics;
        e->next_seq = next_seq;
        e->metrics_unsaved = unsaved;
        for (size_t i = 0; i < begun; i++)
            kd_msg_result_fini(&res[i]);
    }
    for (size_t i = 0; i < begun; i++) {
        if (!err && res[i].status == KD_MSG_APPLIED) {
            kd_histogram_observe(&e->metrics.hist[KD_HIST_REVERT_US], KD_HIST_REVERT_US,
                                 took[i] + e->last_commit_us / k);
            e->metrics_unsaved = 1; /* stored with the next commit */
        }
        if (!err)
            kd_txn_dispatch_due(&cs[i]);
        kd_txn_fini(&cs[i]);
    }
    kd_buf_fini(&msg);
    free(cs);
    free(took);
    return err;
}

kd_err kd_engine_ingest_reverts(kd_engine *e, struct Kdapp__EngineMsg *const *m, size_t n, kd_msg_result *res,
                                size_t *done)
{
    *done = 0;
    for (size_t i = 0; i < n; i++)
        if (m[i]->kind_case != KDAPP__ENGINE_MSG__KIND_REVERTED)
            return KD_ERR_INVALID_ARG;
    kd_err err = KD_OK;
    kd_buf msg;
    kd_buf_init(&msg);
    while (*done < n && !err) {
        size_t k = n - *done < REVERT_BATCH_MAX ? n - *done : REVERT_BATCH_MAX;
        kd_err berr = k > 1 && !e->store.read_only ? KD_ERR_MAP_FULL : KD_ERR_UNSUPPORTED;
        /* A full map grows (no transaction open) and the run starts over. */
        for (int grows = 0; berr == KD_ERR_MAP_FULL && grows <= MAX_GROWS; grows++)
            if ((berr = revert_batch(e, m + *done, k, res + *done)) == KD_ERR_MAP_FULL && kd_engine_map_grow(e))
                break;
        if (!berr) {
            *done += k;
            continue;
        }
        /* One at a time: a single revert, or a run that failed otherwise
         * (each now in its own transaction, which says what failed). */
        for (size_t i = 0; i < k && !err; i++) {
            size_t len = kdapp__engine_msg__get_packed_size(m[*done]);
            if (!(err = kd_buf_reserve(&msg, len))) {
                msg.len = kdapp__engine_msg__pack(m[*done], msg.data);
                err = kd_engine_ingest_decoded(e, m[*done], msg.data, msg.len, &res[*done]);
            }
            if (!err)
                (*done)++;
        }
    }
    kd_buf_fini(&msg);
    return err;
}
