/*
 * apply.c — the single writer: accept and revert of blocks, pruning beyond
 * the finality depth, the chained state digest and the append-only log.
 *
 * Why a working set: a block may touch an episode many times (100 moves
 * across a handful of games). Each touched episode is decoded once into
 * `ws`, mutated in memory move by move, and written back once before the
 * commit; only the undo records are written per move. The same working set
 * feeds the commit listener, so views are built from the state that was
 * committed, without a second read.
 *
 * The undo bookkeeping of one block:
 *
 *   blocks[B] = { seq, height h, parent P, digest D, effects:
 *                 [ (7, CREATE, 0), (7, COMMAND, 1), (9, COMMAND, 42) ] }
 *   undo[(7,1)] = undo record of episode 7's first command
 *   undo[(9,42)] = undo record of episode 9's 42nd command
 *
 * Revert walks the effects newest first: a COMMAND pops undo[(id, depth)]
 * and rolls the state back; a CREATE deletes the episode. When a block
 * falls `finality` blocks below the tip, its undo records are deleted and
 * its record keeps only what idempotence and digests need (final = true).
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
#include "engine/crypto.h"
#include "engine/engine_internal.h"
#include "engine/logger.h"
#include "engine/netutil.h"
#include "kdapp.pb-c.h"
#include "store.pb-c.h"

#define MAX_GROWS 12

typedef struct {
    uint32_t id;
    const kd_registry_entry *type;
    kd_participants participants;
    uint64_t creation_daa;
    uint8_t created_in[KD_HASH_LEN];
    uint64_t undo_depth;
    void *state;
    int dirty, deleted;
    kd_event_kind last_event;
} ws_episode;

typedef struct {
    kd_event_kind kind;
    uint32_t episode_id;
    size_t command_off; /* into apply_ctx.arena (the message is freed per tx) */
    size_t command_len;
    int has_signer;
    kd_pubkey signer;
    int has_undo;
    size_t undo_off;    /* into apply_ctx.arena */
} pending_event;

typedef struct {
    kd_engine *engine;
    MDB_txn *txn;
    ws_episode *eps;
    size_t n_eps, cap_eps;
    pending_event *events;
    size_t n_events, cap_events;
    kd_buf arena;
    Kdapp__Store__Effect *effects;
    size_t n_effects, cap_effects;
    kd_buf scratch;
} apply_ctx;

/* ------------------------------------------------------------ small tools */

static void reject(kd_tx_result *r, kd_err err, const char *detail)
{
    r->applied = 0;
    r->err = err;
    snprintf(r->detail, sizeof r->detail, "%s", detail && detail[0] ? detail : kd_err_str(err));
}

static kd_err grow_array(void **arr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return KD_OK;
    size_t ncap = *cap ? *cap * 2 : 16;
    while (ncap < need)
        ncap *= 2;
    void *p = realloc(*arr, ncap * elem);
    if (!p)
        return KD_ERR_NOMEM;
    *arr = p;
    *cap = ncap;
    return KD_OK;
}

static void ctx_init(apply_ctx *c, kd_engine *engine)
{
    memset(c, 0, sizeof *c);
    c->engine = engine;
    kd_buf_init(&c->arena);
    kd_buf_init(&c->scratch);
}

static void ctx_fini(apply_ctx *c)
{
    if (c->txn)
        mdb_txn_abort(c->txn);
    for (size_t i = 0; i < c->n_eps; i++)
        free(c->eps[i].state);
    free(c->eps);
    free(c->events);
    free(c->effects);
    kd_buf_fini(&c->arena);
    kd_buf_fini(&c->scratch);
    memset(c, 0, sizeof *c);
}

static kd_err put(apply_ctx *c, MDB_dbi dbi, const void *k, size_t klen, const void *v, size_t vlen,
                  const char *what)
{
    MDB_val key = kd_val(k, klen), val = kd_val(v, vlen);
    int rc = mdb_put(c->txn, dbi, &key, &val, 0);
    if (rc == 0)
        KD_CRASHPOINT("after_put"); /* crash test: a half-written transaction */
    return kd_store_err(rc, what);
}

static kd_err del(apply_ctx *c, MDB_dbi dbi, const void *k, size_t klen, const char *what)
{
    MDB_val key = kd_val(k, klen);
    int rc = mdb_del(c->txn, dbi, &key, NULL);
    return kd_store_err(rc == MDB_NOTFOUND ? 0 : rc, what);
}

static kd_err add_event(apply_ctx *c, kd_event_kind kind, uint32_t id, pending_event **out)
{
    kd_err err = grow_array((void **)&c->events, &c->cap_events, c->n_events + 1, sizeof *c->events);
    if (err)
        return err;
    pending_event *e = &c->events[c->n_events++];
    memset(e, 0, sizeof *e);
    e->kind = kind;
    e->episode_id = id;
    *out = e;
    return KD_OK;
}

static kd_err add_effect(apply_ctx *c, uint32_t id, Kdapp__Store__EffectKind kind, uint64_t depth)
{
    kd_err err = grow_array((void **)&c->effects, &c->cap_effects, c->n_effects + 1, sizeof *c->effects);
    if (err)
        return err;
    Kdapp__Store__Effect init = KDAPP__STORE__EFFECT__INIT;
    init.episode_id = id;
    init.kind = kind;
    init.undo_depth = depth;
    c->effects[c->n_effects++] = init;
    return KD_OK;
}

/* Reserves `size` zeroed bytes in the arena (undo records and command
 * copies for the listener); returns their offset, stable across growth. */
static kd_err arena_reserve(apply_ctx *c, size_t size, size_t *off)
{
    kd_err err = kd_buf_reserve(&c->arena, size);
    if (err)
        return err;
    *off = c->arena.len;
    memset(c->arena.data + *off, 0, size);
    c->arena.len += size;
    return KD_OK;
}

/* ---------------------------------------------------------- working set */

static ws_episode *ws_find(apply_ctx *c, uint32_t id)
{
    for (size_t i = 0; i < c->n_eps; i++)
        if (c->eps[i].id == id)
            return &c->eps[i];
    return NULL;
}

static kd_err ws_add(apply_ctx *c, uint32_t id, const kd_registry_entry *type, ws_episode **out)
{
    kd_err err = grow_array((void **)&c->eps, &c->cap_eps, c->n_eps + 1, sizeof *c->eps);
    if (err)
        return err;
    ws_episode *ep = &c->eps[c->n_eps];
    memset(ep, 0, sizeof *ep);
    ep->state = calloc(1, type->ops->state_size);
    if (!ep->state)
        return KD_ERR_NOMEM;
    ep->id = id;
    ep->type = type;
    c->n_eps++;
    *out = ep;
    return KD_OK;
}

/* Finds episode `id` in the working set or loads it. KD_ERR_NOT_FOUND when
 * it does not exist (or was deleted in this transaction). */
static kd_err ws_get(apply_ctx *c, uint32_t id, ws_episode **out)
{
    ws_episode *ep = ws_find(c, id);
    if (ep) {
        *out = ep;
        return ep->deleted ? KD_ERR_NOT_FOUND : KD_OK;
    }
    uint8_t key[4];
    kd_put_u32be(key, id);
    MDB_val k = kd_val(key, 4), v;
    int rc = mdb_get(c->txn, c->engine->store.episodes, &k, &v);
    if (rc == MDB_NOTFOUND)
        return KD_ERR_NOT_FOUND;
    kd_err err = kd_store_err(rc, "read episode");
    if (err)
        return err;
    Kdapp__Store__EpisodeRecord *rec = kdapp__store__episode_record__unpack(NULL, v.mv_size, v.mv_data);
    if (!rec) {
        KD_LOG_E("engine", "episode %u: stored record does not decode", id);
        return KD_ERR_STORE;
    }
    const kd_registry_entry *type = kd_registry_find(c->engine->registry, rec->episode_type);
    if (!type) {
        KD_LOG_E("engine", "episode %u: stored type '%s' is not registered", id, rec->episode_type);
        err = KD_ERR_UNKNOWN_TYPE;
        goto done;
    }
    if ((err = ws_add(c, id, type, &ep)))
        goto done;
    ep->creation_daa = rec->creation_daa;
    ep->undo_depth = rec->undo_depth;
    ep->last_event = (kd_event_kind)rec->last_event;
    if (rec->created_in.len == KD_HASH_LEN)
        memcpy(ep->created_in, rec->created_in.data, KD_HASH_LEN);
    for (size_t i = 0; i < rec->n_participants && i < KD_MAX_PARTICIPANTS; i++) {
        if (rec->participants[i].len != KD_PUBKEY_LEN)
            continue;
        memcpy(ep->participants.keys[ep->participants.count++].bytes, rec->participants[i].data,
               KD_PUBKEY_LEN);
    }
    if (type->ops->decode_state(rec->state.data, rec->state.len, ep->state) != KD_OK) {
        KD_LOG_E("engine", "episode %u: stored state does not decode", id);
        err = KD_ERR_STORE;
        c->n_eps--; /* drop the half-built entry */
        free(ep->state);
        goto done;
    }
    *out = ep;
done:
    kdapp__store__episode_record__free_unpacked(rec, NULL);
    return err;
}

static int cmp_ws_id(const void *a, const void *b)
{
    uint32_t x = ((const ws_episode *)a)->id, y = ((const ws_episode *)b)->id;
    return x < y ? -1 : x > y;
}

/* Writes every dirty episode back (or deletes it) in id order, extending
 * the digest with each one's state hash. */
static kd_err ws_flush(apply_ctx *c, kd_sha256_ctx *digest, const uint8_t *block, uint64_t seq)
{
    kd_err err = KD_OK;
    if (c->n_eps > 1) /* (qsort's array may not be NULL, even when empty) */
        qsort(c->eps, c->n_eps, sizeof *c->eps, cmp_ws_id);
    for (size_t i = 0; i < c->n_eps; i++) {
        ws_episode *ep = &c->eps[i];
        if (!ep->dirty)
            continue;
        uint8_t key[4], state_hash[KD_HASH_LEN] = {0};
        kd_put_u32be(key, ep->id);
        kd_sha256_update(digest, key, 4);
        if (ep->deleted) {
            kd_sha256_update(digest, state_hash, KD_HASH_LEN);
            if ((err = del(c, c->engine->store.episodes, key, 4, "delete episode")))
                return err;
            continue;
        }
        c->scratch.len = 0;
        if ((err = ep->type->ops->encode_state(ep->state, &c->scratch)))
            return err;
        kd_sha256(c->scratch.data, c->scratch.len, state_hash);
        kd_sha256_update(digest, state_hash, KD_HASH_LEN);

        ProtobufCBinaryData parts[KD_MAX_PARTICIPANTS];
        for (size_t p = 0; p < ep->participants.count; p++) {
            parts[p].data = ep->participants.keys[p].bytes;
            parts[p].len = KD_PUBKEY_LEN;
        }
        Kdapp__Store__EpisodeRecord rec = KDAPP__STORE__EPISODE_RECORD__INIT;
        rec.episode_type = (char *)ep->type->ops->type_name;
        rec.n_participants = ep->participants.count;
        rec.participants = parts;
        rec.creation_daa = ep->creation_daa;
        rec.state.data = c->scratch.data;
        rec.state.len = c->scratch.len;
        rec.undo_depth = ep->undo_depth;
        rec.created_in.data = ep->created_in;
        rec.created_in.len = KD_HASH_LEN;
        rec.updated_seq = seq;
        rec.updated_block.data = (uint8_t *)block;
        rec.updated_block.len = KD_HASH_LEN;
        rec.last_event = (Kdapp__ViewEvent)ep->last_event;
        size_t n = kdapp__store__episode_record__get_packed_size(&rec);
        uint8_t *buf = malloc(n ? n : 1);
        if (!buf)
            return KD_ERR_NOMEM;
        kdapp__store__episode_record__pack(&rec, buf);
        err = put(c, c->engine->store.episodes, key, 4, buf, n, "write episode");
        free(buf);
        if (err)
            return err;
    }
    return KD_OK;
}

/* ------------------------------------------------------------ accepting */

static kd_err apply_create(apply_ctx *c, const Kdapp__EpisodeMessage *em, const kd_block_meta *meta,
                           const ProtobufCBinaryData *override, kd_tx_result *r, kd_buf *effective)
{
    const Kdapp__NewEpisode *ne = em->new_episode;
    char detail[KD_DETAIL_MAX];
    kd_reject rej = {{0}};
    ws_episode *ep = NULL;
    if (em->episode_id == 0) {
        reject(r, KD_ERR_BAD_EPISODE_ID, "episode id 0 is not valid");
        return KD_OK;
    }
    kd_err err = ws_get(c, em->episode_id, &ep);
    if (err == KD_OK) {
        snprintf(detail, sizeof detail, "episode %u already exists", em->episode_id);
        reject(r, KD_ERR_EPISODE_EXISTS, detail);
        return KD_OK;
    }
    if (err != KD_ERR_NOT_FOUND)
        return err;
    const char *type_name = ne->episode_type ? ne->episode_type : "";
    const kd_registry_entry *type = kd_registry_find(c->engine->registry, type_name);
    if (!type) {
        snprintf(detail, sizeof detail, "episode type '%.64s' is not registered", type_name);
        reject(r, KD_ERR_UNKNOWN_TYPE, detail);
        return KD_OK;
    }
    kd_participants parts = {.count = 0};
    if (ne->n_participants == 0 || ne->n_participants > KD_MAX_PARTICIPANTS) {
        snprintf(detail, sizeof detail, "an episode needs 1 to %d participants, got %zu",
                 KD_MAX_PARTICIPANTS, ne->n_participants);
        reject(r, KD_ERR_BAD_PARTICIPANTS, detail);
        return KD_OK;
    }
    for (size_t i = 0; i < ne->n_participants; i++) {
        if (ne->participants[i].len != KD_PUBKEY_LEN) {
            snprintf(detail, sizeof detail, "participant %zu is %zu bytes, not a 33-byte compressed key",
                     i, ne->participants[i].len);
            reject(r, KD_ERR_BAD_PARTICIPANTS, detail);
            return KD_OK;
        }
        memcpy(parts.keys[i].bytes, ne->participants[i].data, KD_PUBKEY_LEN);
        if (kd_pubkey_check(&parts.keys[i]) != KD_OK) {
            snprintf(detail, sizeof detail, "participant %zu is not a valid secp256k1 key", i);
            reject(r, KD_ERR_BAD_PARTICIPANTS, detail);
            return KD_OK;
        }
    }
    parts.count = ne->n_participants;
    if (override) {
        if ((err = kd_buf_append(effective, override->data, override->len)))
            return err;
    } else if ((err = type->ops->resolve_params(type->config, ne->params.data, ne->params.len,
                                                effective, &rej))) {
        reject(r, err, rej.detail);
        return KD_OK;
    }
    if ((err = ws_add(c, em->episode_id, type, &ep)))
        return err;
    kd_err rule = type->ops->init(ep->state, &parts, effective->data, effective->len, meta, &rej);
    if (rule) {
        free(ep->state);
        c->n_eps--;
        reject(r, rule, rej.detail);
        return KD_OK;
    }
    ep->participants = parts;
    ep->creation_daa = meta->daa;
    memcpy(ep->created_in, meta->block_hash, KD_HASH_LEN);
    ep->dirty = 1;
    ep->last_event = KD_EVENT_INITIALIZE;
    pending_event *ev;
    if ((err = add_effect(c, ep->id, KDAPP__STORE__EFFECT_KIND__EFFECT_CREATE, 0)) ||
        (err = add_event(c, KD_EVENT_INITIALIZE, ep->id, &ev)))
        return err;
    r->applied = 1;
    return KD_OK;
}

static kd_err apply_command(apply_ctx *c, const Kdapp__EpisodeMessage *em, const kd_block_meta *meta,
                            int trusted_sig, kd_tx_result *r)
{
    char detail[KD_DETAIL_MAX];
    ws_episode *ep;
    kd_err err = ws_get(c, em->episode_id, &ep);
    if (err == KD_ERR_NOT_FOUND) {
        snprintf(detail, sizeof detail, "episode %u does not exist", em->episode_id);
        reject(r, KD_ERR_UNKNOWN_EPISODE, detail);
        return KD_OK;
    }
    if (err)
        return err;
    const ProtobufCBinaryData *cmd;
    const kd_pubkey *signer = NULL;
    kd_pubkey pk;
    if (em->body_case == KDAPP__EPISODE_MESSAGE__BODY_SIGNED_COMMAND) {
        const Kdapp__SignedCommand *sc = em->signed_command;
        cmd = &sc->command;
        if (sc->pubkey.len != KD_PUBKEY_LEN) {
            snprintf(detail, sizeof detail, "signer key is %zu bytes, not a 33-byte compressed key",
                     sc->pubkey.len);
            reject(r, KD_ERR_BAD_PUBKEY, detail);
            return KD_OK;
        }
        memcpy(pk.bytes, sc->pubkey.data, KD_PUBKEY_LEN);
        uint8_t digest[KD_HASH_LEN];
        kd_command_digest(ep->id, ep->undo_depth, cmd->data, cmd->len, digest);
        kd_err sig = KD_OK;
        if (trusted_sig)
            ; /* replaying our own log, which recorded this signature as good */
        else if (!kd_sig_batch_lookup(c->engine->sig_batch, &pk, digest, sc->signature.data, sc->signature.len, &sig))
            sig = kd_sig_verify(&pk, digest, sc->signature.data, sc->signature.len);
        if (sig) {
            snprintf(detail, sizeof detail,
                     sig == KD_ERR_BAD_PUBKEY
                         ? "signer key is not a valid secp256k1 key"
                         : "signature does not verify for episode %u at move counter %llu "
                           "(signatures are single-use)",
                     ep->id, (unsigned long long)ep->undo_depth);
            reject(r, sig, detail);
            return KD_OK;
        }
        signer = &pk;
    } else {
        cmd = &em->unsigned_command->command;
    }
    const kd_episode_ops *ops = ep->type->ops;
    size_t undo_off;
    if ((err = arena_reserve(c, ops->undo_size, &undo_off)))
        return err;
    /* Keep a copy so a misbehaving type cannot leave a rejected command's
     * half-applied state behind. */
    c->scratch.len = 0;
    if ((err = kd_buf_append(&c->scratch, ep->state, ops->state_size)))
        return err;
    kd_reject rej = {{0}};
    kd_err rule = ops->execute(ep->state, cmd->data, cmd->len, signer, meta,
                               c->arena.data + undo_off, &rej);
    if (rule) {
        memcpy(ep->state, c->scratch.data, ops->state_size);
        c->arena.len = undo_off;
        reject(r, rule, rej.detail);
        return KD_OK;
    }
    c->scratch.len = 0;
    if ((err = ops->encode_undo(c->arena.data + undo_off, &c->scratch)))
        return err;
    uint8_t key[KD_UNDO_KEY_LEN];
    kd_undo_key(key, ep->id, ep->undo_depth + 1);
    if ((err = put(c, c->engine->store.undo, key, sizeof key, c->scratch.data, c->scratch.len, "write undo")))
        return err;
    ep->undo_depth++;
    ep->dirty = 1;
    ep->last_event = KD_EVENT_COMMAND;
    pending_event *ev;
    if ((err = add_effect(c, ep->id, KDAPP__STORE__EFFECT_KIND__EFFECT_COMMAND, ep->undo_depth)) ||
        (err = add_event(c, KD_EVENT_COMMAND, ep->id, &ev)))
        return err;
    size_t command_off;
    if ((err = arena_reserve(c, cmd->len, &command_off)))
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

/* Applies one transaction; rejections go into `r`, only storage failures
 * are returned. */
static kd_err apply_tx(apply_ctx *c, const Kdapp__BlockAccepted *ba, size_t index,
                       const ProtobufCBinaryData *override, int trusted_sig, kd_tx_result *r, kd_buf *effective)
{
    const Kdapp__Tx *tx = ba->txs[index];
    char detail[KD_DETAIL_MAX];
    r->applied = 0;
    if (tx->tx_id.len != KD_HASH_LEN) {
        snprintf(detail, sizeof detail, "tx %zu: tx_id is %zu bytes, not 32", index, tx->tx_id.len);
        reject(r, KD_ERR_DECODE, detail);
        return KD_OK;
    }
    memcpy(r->tx_id, tx->tx_id.data, KD_HASH_LEN);
    Kdapp__EpisodeMessage *em = kdapp__episode_message__unpack(NULL, tx->payload.len, tx->payload.data);
    if (!em) {
        snprintf(detail, sizeof detail, "payload (%zu bytes) is not a kdapp.EpisodeMessage",
                 tx->payload.len);
        reject(r, KD_ERR_DECODE, detail);
        return KD_OK;
    }
    r->episode_id = em->episode_id;
    kd_block_meta meta = {
        .block_hash = ba->accepting_hash.data,
        .daa = ba->accepting_daa,
        .time_ms = ba->accepting_time,
        .tx_id = tx->tx_id.data,
        .episode_id = em->episode_id,
    };
    kd_err err = KD_OK;
    switch (em->body_case) {
    case KDAPP__EPISODE_MESSAGE__BODY_NEW_EPISODE:
        err = apply_create(c, em, &meta, override, r, effective);
        break;
    case KDAPP__EPISODE_MESSAGE__BODY_SIGNED_COMMAND:
    case KDAPP__EPISODE_MESSAGE__BODY_UNSIGNED_COMMAND:
        err = apply_command(c, em, &meta, trusted_sig, r);
        break;
    default:
        reject(r, KD_ERR_DECODE, "episode message has no body (new_episode, signed_command or unsigned_command)");
        break;
    }
    kdapp__episode_message__free_unpacked(em, NULL);
    return err;
}

/* ------------------------------------------------------- commit helpers */

typedef struct {
    int has_tip;
    uint8_t tip[KD_HASH_LEN];
    uint64_t height;
    uint8_t digest[KD_HASH_LEN];
} chain_pos;

static kd_err write_meta(apply_ctx *c, const chain_pos *pos, uint64_t next_seq, kd_metrics *m)
{
    m->last_commit_ms = kd_wall_ms();
    c->scratch.len = 0;
    kd_err merr = kd_metrics_encode(m, &c->scratch);
    if (merr || (merr = put(c, c->engine->store.meta, KD_META_METRICS, strlen(KD_META_METRICS), c->scratch.data,
                            c->scratch.len, "write metrics")))
        return merr;
    kd_store *s = &c->engine->store;
    uint8_t h[8], n[8];
    kd_put_u64be(h, pos->height);
    kd_put_u64be(n, next_seq);
    kd_err err;
    if (pos->has_tip)
        err = put(c, s->meta, KD_META_TIP, strlen(KD_META_TIP), pos->tip, KD_HASH_LEN, "write tip");
    else
        err = del(c, s->meta, KD_META_TIP, strlen(KD_META_TIP), "clear tip");
    if (err || (err = put(c, s->meta, KD_META_HEIGHT, strlen(KD_META_HEIGHT), h, 8, "write height")) ||
        (err = put(c, s->meta, KD_META_DIGEST, strlen(KD_META_DIGEST), pos->digest, KD_HASH_LEN, "write digest")) ||
        (err = put(c, s->meta, KD_META_NEXT_SEQ, strlen(KD_META_NEXT_SEQ), n, 8, "write next_seq")))
        return err;
    return KD_OK;
}

/* Appends the log entry for `seq`. */
static kd_err write_log(apply_ctx *c, uint64_t seq, Kdapp__Store__LogEntry *entry)
{
    uint8_t key[8];
    kd_put_u64be(key, seq);
    size_t n = kdapp__store__log_entry__get_packed_size(entry);
    uint8_t *buf = malloc(n ? n : 1);
    if (!buf)
        return KD_ERR_NOMEM;
    kdapp__store__log_entry__pack(entry, buf);
    kd_err err = put(c, c->engine->store.log, key, 8, buf, n, "append log");
    free(buf);
    return err;
}

static kd_err read_block(apply_ctx *c, const uint8_t *hash, Kdapp__Store__BlockRecord **out)
{
    MDB_val k = kd_val(hash, KD_HASH_LEN), v;
    int rc = mdb_get(c->txn, c->engine->store.blocks, &k, &v);
    *out = NULL;
    if (rc == MDB_NOTFOUND)
        return KD_ERR_NOT_FOUND;
    kd_err err = kd_store_err(rc, "read block");
    if (err)
        return err;
    *out = kdapp__store__block_record__unpack(NULL, v.mv_size, v.mv_data);
    if (!*out) {
        KD_LOG_E("engine", "stored block record does not decode");
        return KD_ERR_STORE;
    }
    return KD_OK;
}

static kd_err write_block(apply_ctx *c, const uint8_t *hash, const Kdapp__Store__BlockRecord *rec)
{
    size_t n = kdapp__store__block_record__get_packed_size(rec);
    uint8_t *buf = malloc(n ? n : 1);
    if (!buf)
        return KD_ERR_NOMEM;
    kdapp__store__block_record__pack(rec, buf);
    kd_err err = put(c, c->engine->store.blocks, hash, KD_HASH_LEN, buf, n, "write block");
    free(buf);
    return err;
}

/* Makes the block at `height` final: deletes its undo records and strips
 * its effects. Blocks that are already final (or absent) are left alone. */
static kd_err prune_height(apply_ctx *c, uint64_t height)
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
    if ((err = read_block(c, hash, &rec)))
        return err == KD_ERR_NOT_FOUND ? KD_ERR_STORE : err;
    for (size_t i = 0; i < rec->n_effects && !err; i++) {
        const Kdapp__Store__Effect *e = rec->effects[i];
        if (e->kind != KDAPP__STORE__EFFECT_KIND__EFFECT_COMMAND)
            continue;
        uint8_t ukey[KD_UNDO_KEY_LEN];
        kd_undo_key(ukey, e->episode_id, e->undo_depth);
        err = del(c, s->undo, ukey, sizeof ukey, "prune undo");
    }
    if (!err) {
        size_t n_effects = rec->n_effects;
        rec->final = 1;
        rec->n_effects = 0; /* pack without them; restored for free_unpacked */
        err = write_block(c, hash, rec);
        rec->n_effects = n_effects;
    }
    if (!err)
        err = del(c, s->heights, hkey, 8, "prune height");
    kdapp__store__block_record__free_unpacked(rec, NULL);
    return err;
}

static void chain_pos_of(const kd_tip *tip, chain_pos *pos)
{
    memset(pos, 0, sizeof *pos);
    pos->has_tip = tip->has_tip;
    memcpy(pos->tip, tip->hash, KD_HASH_LEN);
    pos->height = tip->height;
    memcpy(pos->digest, tip->digest, KD_HASH_LEN);
}

/* Commits, then updates the writer's cached tip and tells the listener. */
static kd_err commit(apply_ctx *c, const chain_pos *pos, uint64_t seq, const kd_metrics *m)
{
    kd_engine *e = c->engine;
    uint64_t t0 = kd_now_us();
    KD_CRASHPOINT("before_commit"); /* crash test: all put, nothing durable */
    int rc = mdb_txn_commit(c->txn);
    e->last_commit_us = kd_now_us() - t0;
    c->txn = NULL;
    kd_err err = kd_store_err(rc, "commit");
    if (err)
        return err;
    KD_CRASHPOINT("after_commit"); /* crash test: durable, not acknowledged */
    e->metrics = *m;
    e->metrics_unsaved = 0;
    e->tip.has_tip = pos->has_tip;
    memcpy(e->tip.hash, pos->tip, KD_HASH_LEN);
    e->tip.height = pos->height;
    memcpy(e->tip.digest, pos->digest, KD_HASH_LEN);
    e->tip.last_seq = seq;
    e->next_seq = seq + 1;
    return KD_OK;
}

static void dispatch(apply_ctx *c, int reverted, const uint8_t *block, uint64_t daa, uint64_t time_ms,
                     uint64_t seq, const kd_msg_result *res)
{
    kd_engine *e = c->engine;
    if (!e->listener)
        return;
    kd_episode_event *events = calloc(c->n_events ? c->n_events : 1, sizeof *events);
    if (!events) {
        KD_LOG_E("engine", "out of memory building commit events; views not published for seq %llu",
                 (unsigned long long)seq);
        return;
    }
    for (size_t i = 0; i < c->n_events; i++) {
        const pending_event *pe = &c->events[i];
        const ws_episode *ep = ws_find(c, pe->episode_id);
        kd_episode_event *ev = &events[i];
        ev->kind = pe->kind;
        ev->episode_id = pe->episode_id;
        ev->ops = ep->type->ops;
        ev->participants = &ep->participants;
        ev->state = ep->deleted ? NULL : ep->state;
        if (pe->kind == KD_EVENT_COMMAND) {
            ev->command = c->arena.data + pe->command_off;
            ev->command_len = pe->command_len;
        }
        ev->signer = pe->has_signer ? &pe->signer : NULL;
        ev->undo = pe->has_undo ? c->arena.data + pe->undo_off : NULL;
    }
    kd_commit commit_info = {
        .reverted = reverted,
        .block_hash = block,
        .daa = daa,
        .time_ms = time_ms,
        .log_seq = seq,
        .tip_hash = e->tip.has_tip ? e->tip.hash : NULL,
        .tip_height = e->tip.height,
        .digest = e->tip.digest,
        .events = events,
        .event_count = c->n_events,
        .txs = res->txs,
        .tx_count = res->tx_count,
    };
    for (size_t i = 0; i < res->tx_count; i++) {
        if (res->txs[i].applied)
            commit_info.txs_applied++;
        else
            commit_info.txs_rejected++;
    }
    e->listener(e->listener_ctx, &commit_info);
    free(events);
}

/* Logs a refused message (nothing else changes). */
static kd_err refuse(apply_ctx *c, const uint8_t *msg, size_t len, kd_err why, const char *detail,
                     kd_msg_result *res)
{
    kd_engine *e = c->engine;
    uint64_t seq = e->next_seq;
    res->status = KD_MSG_REFUSED;
    res->err = why;
    snprintf(res->detail, sizeof res->detail, "%s", detail);
    Kdapp__Store__LogEntry entry = KDAPP__STORE__LOG_ENTRY__INIT;
    entry.message.data = (uint8_t *)msg;
    entry.message.len = len;
    entry.status = KDAPP__MSG_STATUS__MSG_REFUSED;
    entry.error_code = (char *)kd_err_code(why);
    entry.error = res->detail;
    entry.digest.data = e->tip.digest;
    entry.digest.len = KD_HASH_LEN;
    entry.tip_height = e->tip.height;
    chain_pos pos;
    chain_pos_of(&e->tip, &pos);
    kd_metrics m = e->metrics;
    m.refusals++;
    m.refused[why]++;
    kd_err err = write_log(c, seq, &entry);
    if (!err)
        err = write_meta(c, &pos, seq + 1, &m);
    if (!err)
        err = commit(c, &pos, seq, &m);
    if (!err)
        res->log_seq = seq;
    return err;
}

static void hex_short(const uint8_t *hash, char out[17])
{
    kd_hex_encode(hash, 8, out);
}

static kd_err accept_block(apply_ctx *c, const Kdapp__BlockAccepted *ba, const uint8_t *msg, size_t len,
                           const Kdapp__Store__LogEntry *replay, kd_msg_result *res)
{
    KD_CRASHPOINT("before_put"); /* crash test: transaction open, nothing written */
    kd_engine *e = c->engine;
    kd_err err;
    char detail[KD_DETAIL_MAX];
    if (ba->accepting_hash.len != KD_HASH_LEN) {
        snprintf(detail, sizeof detail, "accepting_hash is %zu bytes, not 32", ba->accepting_hash.len);
        return refuse(c, msg, len, KD_ERR_BAD_HASH, detail, res);
    }
    const uint8_t *hash = ba->accepting_hash.data;
    memcpy(res->block_hash, hash, KD_HASH_LEN);
    MDB_val k = kd_val(hash, KD_HASH_LEN), v;
    int rc = mdb_get(c->txn, e->store.blocks, &k, &v);
    if (rc == 0) {
        res->status = KD_MSG_DUPLICATE;
        e->metrics.duplicates++; /* stored with the next commit */
        e->metrics_unsaved = 1;
        return KD_OK;
    }
    if (rc != MDB_NOTFOUND)
        return kd_store_err(rc, "read block");

    uint64_t seq = e->next_seq;
    res->txs = calloc(ba->n_txs ? ba->n_txs : 1, sizeof *res->txs);
    if (!res->txs)
        return KD_ERR_NOMEM;
    res->tx_count = ba->n_txs;
    Kdapp__Store__TxOutcome *outcomes = calloc(ba->n_txs ? ba->n_txs : 1, sizeof *outcomes);
    Kdapp__Store__TxOutcome **outcome_ptrs = calloc(ba->n_txs ? ba->n_txs : 1, sizeof *outcome_ptrs);
    kd_buf *effective = calloc(ba->n_txs ? ba->n_txs : 1, sizeof *effective);
    uint32_t applied = 0;
    if (!outcomes || !outcome_ptrs || !effective) {
        err = KD_ERR_NOMEM;
        goto done;
    }
    for (size_t i = 0; i < ba->n_txs; i++) {
        const ProtobufCBinaryData *override = NULL;
        if (replay && i < replay->n_txs && replay->txs[i]->applied && replay->txs[i]->effective_params.len)
            override = &replay->txs[i]->effective_params;
        kd_buf_init(&effective[i]);
        /* A replay may trust its log's signature verdicts: a tx recorded as
         * applied, or rejected by a rule checked after the signature. */
        int trusted = 0;
        if (replay && c->engine->trust_replayed_signatures && i < replay->n_txs) {
            const Kdapp__Store__TxOutcome *o = replay->txs[i];
            trusted = o->applied || (strcmp(o->error_code, kd_err_code(KD_ERR_BAD_SIGNATURE)) != 0 &&
                                     strcmp(o->error_code, kd_err_code(KD_ERR_BAD_PUBKEY)) != 0 &&
                                     strcmp(o->error_code, kd_err_code(KD_ERR_UNKNOWN_EPISODE)) != 0 &&
                                     strcmp(o->error_code, kd_err_code(KD_ERR_DECODE)) != 0);
        }
        if ((err = apply_tx(c, ba, i, override, trusted, &res->txs[i], &effective[i])))
            goto done;
        Kdapp__Store__TxOutcome o = KDAPP__STORE__TX_OUTCOME__INIT;
        o.applied = res->txs[i].applied;
        o.episode_id = res->txs[i].episode_id;
        o.error_code = (char *)(o.applied ? "" : kd_err_code(res->txs[i].err));
        o.error = o.applied ? (char *)"" : res->txs[i].detail;
        if (o.applied && effective[i].len) {
            o.effective_params.data = effective[i].data;
            o.effective_params.len = effective[i].len;
        }
        outcomes[i] = o;
        outcome_ptrs[i] = &outcomes[i];
        applied += (uint32_t)o.applied;
    }

    chain_pos pos;
    chain_pos_of(&e->tip, &pos);
    kd_sha256_ctx sha;
    if ((err = kd_sha256_init(&sha))) {
        kd_sha256_fini(&sha);
        goto done;
    }
    kd_sha256_update(&sha, pos.digest, KD_HASH_LEN);
    kd_sha256_update(&sha, hash, KD_HASH_LEN);
    err = ws_flush(c, &sha, hash, seq);
    uint8_t digest[KD_HASH_LEN];
    kd_sha256_final(&sha, digest);
    kd_sha256_fini(&sha);
    if (err)
        goto done;

    Kdapp__Store__Effect **effect_ptrs = calloc(c->n_effects ? c->n_effects : 1, sizeof *effect_ptrs);
    if (!effect_ptrs) {
        err = KD_ERR_NOMEM;
        goto done;
    }
    for (size_t i = 0; i < c->n_effects; i++)
        effect_ptrs[i] = &c->effects[i];
    Kdapp__Store__BlockRecord rec = KDAPP__STORE__BLOCK_RECORD__INIT;
    rec.log_seq = seq;
    rec.height = pos.height + 1;
    if (pos.has_tip) {
        rec.parent.data = pos.tip;
        rec.parent.len = KD_HASH_LEN;
    }
    rec.digest.data = digest;
    rec.digest.len = KD_HASH_LEN;
    rec.n_effects = c->n_effects;
    rec.effects = effect_ptrs;
    rec.daa = ba->accepting_daa;
    rec.time = ba->accepting_time;
    err = write_block(c, hash, &rec);
    free(effect_ptrs);
    if (err)
        goto done;
    uint8_t hkey[8];
    kd_put_u64be(hkey, rec.height);
    if ((err = put(c, e->store.heights, hkey, 8, hash, KD_HASH_LEN, "write height")) ||
        (err = del(c, e->store.reverted, hash, KD_HASH_LEN, "unmark reverted")))
        goto done;
    if (rec.height > e->finality && (err = prune_height(c, rec.height - e->finality)))
        goto done;

    pos.has_tip = 1;
    memcpy(pos.tip, hash, KD_HASH_LEN);
    pos.height = rec.height;
    memcpy(pos.digest, digest, KD_HASH_LEN);
    Kdapp__Store__LogEntry entry = KDAPP__STORE__LOG_ENTRY__INIT;
    entry.message.data = (uint8_t *)msg;
    entry.message.len = len;
    entry.status = KDAPP__MSG_STATUS__MSG_APPLIED;
    entry.n_txs = ba->n_txs;
    entry.txs = outcome_ptrs;
    entry.digest.data = digest;
    entry.digest.len = KD_HASH_LEN;
    entry.tip_height = pos.height;
    kd_metrics m = e->metrics;
    m.blocks_applied++;
    m.txs_applied += applied;
    m.txs_rejected += ba->n_txs - applied;
    for (size_t i = 0; i < ba->n_txs; i++)
        if (!res->txs[i].applied && (unsigned)res->txs[i].err < KD_ERR_COUNT_)
            m.rejections[res->txs[i].err]++;
    if (m.revert_streak) {
        kd_histogram_observe(&m.hist[KD_HIST_REORG_DEPTH], KD_HIST_REORG_DEPTH, m.revert_streak);
        m.revert_streak = 0;
    }
    m.tip_time_ms = ba->accepting_time;
    if ((err = write_log(c, seq, &entry)) || (err = write_meta(c, &pos, seq + 1, &m)) ||
        (err = commit(c, &pos, seq, &m)))
        goto done;
    res->status = KD_MSG_APPLIED;
    res->log_seq = seq;
    {
        char h[17];
        hex_short(hash, h);
        KD_LOG_D("engine", "applied block %s at height %llu: %u/%zu txs", h,
                 (unsigned long long)pos.height, applied, ba->n_txs);
    }
    dispatch(c, 0, hash, ba->accepting_daa, ba->accepting_time, seq, res);
    KD_CRASHPOINT("after_apply"); /* crash test: committed and dispatched, no reply yet */
done:
    if (effective)
        for (size_t i = 0; i < ba->n_txs; i++)
            kd_buf_fini(&effective[i]);
    free(effective);
    free(outcomes);
    free(outcome_ptrs);
    return err;
}

/* ------------------------------------------------------------- reverting */

static kd_err revert_effect(apply_ctx *c, const Kdapp__Store__Effect *fx)
{
    ws_episode *ep;
    kd_err err = ws_get(c, fx->episode_id, &ep);
    if (err) {
        KD_LOG_E("engine", "revert: episode %u of an applied block is missing", fx->episode_id);
        return err == KD_ERR_NOT_FOUND ? KD_ERR_STORE : err;
    }
    pending_event *ev;
    if (fx->kind == KDAPP__STORE__EFFECT_KIND__EFFECT_CREATE) {
        if (ep->undo_depth != 0) {
            KD_LOG_E("engine", "revert: episode %u still has %llu commands at its creation", ep->id,
                     (unsigned long long)ep->undo_depth);
            return KD_ERR_STORE;
        }
        ep->deleted = 1;
        ep->dirty = 1;
        return add_event(c, KD_EVENT_ROLLBACK, ep->id, &ev);
    }
    if (fx->undo_depth != ep->undo_depth) {
        KD_LOG_E("engine", "revert: episode %u is at depth %llu, block expects %llu", ep->id,
                 (unsigned long long)ep->undo_depth, (unsigned long long)fx->undo_depth);
        return KD_ERR_STORE;
    }
    const kd_episode_ops *ops = ep->type->ops;
    uint8_t key[KD_UNDO_KEY_LEN];
    kd_undo_key(key, ep->id, ep->undo_depth);
    MDB_val k = kd_val(key, sizeof key), v;
    if ((err = kd_store_err(mdb_get(c->txn, c->engine->store.undo, &k, &v), "read undo")))
        return err == KD_ERR_NOT_FOUND ? KD_ERR_STORE : err;
    size_t off;
    if ((err = arena_reserve(c, ops->undo_size, &off)))
        return err;
    if (ops->decode_undo(v.mv_data, v.mv_size, c->arena.data + off) != KD_OK) {
        KD_LOG_E("engine", "revert: undo record (%u, %llu) does not decode", ep->id,
                 (unsigned long long)ep->undo_depth);
        return KD_ERR_STORE;
    }
    if (ops->rollback(ep->state, c->arena.data + off) != KD_OK) {
        KD_LOG_E("engine", "revert: undo record (%u, %llu) does not fit the episode's state", ep->id,
                 (unsigned long long)ep->undo_depth);
        return KD_ERR_STORE;
    }
    if ((err = del(c, c->engine->store.undo, key, sizeof key, "delete undo")))
        return err;
    ep->undo_depth--;
    ep->dirty = 1;
    ep->last_event = KD_EVENT_ROLLBACK;
    if ((err = add_event(c, KD_EVENT_ROLLBACK, ep->id, &ev)))
        return err;
    ev->has_undo = 1;
    ev->undo_off = off;
    return KD_OK;
}

static kd_err revert_block(apply_ctx *c, const Kdapp__BlockReverted *br, const uint8_t *msg, size_t len,
                           kd_msg_result *res)
{
    KD_CRASHPOINT("before_put"); /* crash test: transaction open, nothing written */
    kd_engine *e = c->engine;
    char detail[KD_DETAIL_MAX], h[2 * KD_HASH_LEN + 1], t[2 * KD_HASH_LEN + 1];
    res->reverted = 1;
    if (br->accepting_hash.len != KD_HASH_LEN) {
        snprintf(detail, sizeof detail, "accepting_hash is %zu bytes, not 32", br->accepting_hash.len);
        return refuse(c, msg, len, KD_ERR_BAD_HASH, detail, res);
    }
    const uint8_t *hash = br->accepting_hash.data;
    memcpy(res->block_hash, hash, KD_HASH_LEN);
    kd_hex_encode(hash, KD_HASH_LEN, h);
    Kdapp__Store__BlockRecord *rec = NULL, *parent = NULL;
    kd_err err = read_block(c, hash, &rec);
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
        return refuse(c, msg, len, KD_ERR_UNKNOWN_BLOCK, detail, res);
    }
    if (err)
        return err;
    if (!e->tip.has_tip || memcmp(e->tip.hash, hash, KD_HASH_LEN) != 0) {
        kd_hex_encode(e->tip.hash, KD_HASH_LEN, t);
        snprintf(detail, sizeof detail, "block %s is not the tip; revert the tip %s first", h, t);
        err = refuse(c, msg, len, KD_ERR_NOT_TIP, detail, res);
        goto done;
    }
    if (rec->final) {
        snprintf(detail, sizeof detail,
                 "block %s is beyond the finality depth (%llu blocks): its undo records were "
                 "pruned; a re-sync is needed",
                 h, (unsigned long long)e->finality);
        err = refuse(c, msg, len, KD_ERR_BEYOND_FINALITY, detail, res);
        goto done;
    }
    uint64_t seq = e->next_seq;
    for (size_t i = rec->n_effects; i-- > 0;)
        if ((err = revert_effect(c, rec->effects[i])))
            goto done;
    chain_pos pos = {0};
    if (rec->parent.len == KD_HASH_LEN) {
        if ((err = read_block(c, rec->parent.data, &parent))) {
            err = err == KD_ERR_NOT_FOUND ? KD_ERR_STORE : err;
            goto done;
        }
        pos.has_tip = 1;
        memcpy(pos.tip, rec->parent.data, KD_HASH_LEN);
        if (parent->digest.len == KD_HASH_LEN)
            memcpy(pos.digest, parent->digest.data, KD_HASH_LEN);
    }
    pos.height = rec->height - 1;
    /* Touch the working set so deleted/rolled-back episodes are written. */
    kd_sha256_ctx unused;
    if ((err = kd_sha256_init(&unused))) {
        kd_sha256_fini(&unused);
        goto done;
    }
    err = ws_flush(c, &unused, hash, seq);
    kd_sha256_fini(&unused);
    if (err)
        goto done;
    uint8_t hkey[8];
    kd_put_u64be(hkey, rec->height);
    uint8_t seq_be[8];
    kd_put_u64be(seq_be, seq);
    if ((err = del(c, e->store.blocks, hash, KD_HASH_LEN, "delete block")) ||
        (err = del(c, e->store.heights, hkey, 8, "delete height")) ||
        (err = put(c, e->store.reverted, hash, KD_HASH_LEN, seq_be, 8, "mark reverted")))
        goto done;
    Kdapp__Store__LogEntry entry = KDAPP__STORE__LOG_ENTRY__INIT;
    entry.message.data = (uint8_t *)msg;
    entry.message.len = len;
    entry.status = KDAPP__MSG_STATUS__MSG_APPLIED;
    entry.digest.data = pos.digest;
    entry.digest.len = KD_HASH_LEN;
    entry.tip_height = pos.height;
    kd_metrics m = e->metrics;
    size_t undone = 0;
    for (size_t i = 0; i < rec->n_effects; i++)
        undone += rec->effects[i]->kind == KDAPP__STORE__EFFECT_KIND__EFFECT_COMMAND;
    m.blocks_reverted++;
    m.revert_streak++;
    kd_histogram_observe(&m.hist[KD_HIST_UNDO_PER_REVERT], KD_HIST_UNDO_PER_REVERT, undone);
    m.tip_time_ms = parent ? parent->time : 0;
    if ((err = write_log(c, seq, &entry)) || (err = write_meta(c, &pos, seq + 1, &m)) ||
        (err = commit(c, &pos, seq, &m)))
        goto done;
    res->status = KD_MSG_APPLIED;
    res->log_seq = seq;
    KD_LOG_D("engine", "reverted block %.16s (%zu effects)", h, rec->n_effects);
    dispatch(c, 1, hash, rec->daa, rec->time, seq, res);
    KD_CRASHPOINT("after_apply"); /* crash test: committed and dispatched, no reply yet */
done:
    if (rec)
        kdapp__store__block_record__free_unpacked(rec, NULL);
    if (parent)
        kdapp__store__block_record__free_unpacked(parent, NULL);
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
    apply_ctx c;
    ctx_init(&c, engine);
    kd_err err = kd_store_err(mdb_txn_begin(engine->store.env, NULL, 0, &c.txn), "begin write");
    if (err) {
        c.txn = NULL;
        goto done;
    }
    if (m->kind_case == KDAPP__ENGINE_MSG__KIND_ACCEPTED)
        err = accept_block(&c, m->accepted, msg, len, replay, res);
    else
        err = revert_block(&c, m->reverted, msg, len, res);
done:
    ctx_fini(&c); /* aborts the transaction unless it was committed */
    return err;
}

static kd_err ingest(kd_engine *engine, const uint8_t *msg, size_t len, const Kdapp__Store__LogEntry *replay,
                     kd_msg_result *res)
{
    kd_msg_result_init(res);
    if (engine->store.read_only) {
        snprintf(res->detail, sizeof res->detail, "the engine is open read-only");
        return KD_ERR_UNSUPPORTED;
    }
    Kdapp__EngineMsg *m = kdapp__engine_msg__unpack(NULL, len, msg);
    if (!m) {
        snprintf(res->detail, sizeof res->detail, "message (%zu bytes) is not a kdapp.EngineMsg", len);
        return KD_ERR_DECODE;
    }
    kd_err err = KD_OK;
    if (m->kind_case != KDAPP__ENGINE_MSG__KIND_ACCEPTED && m->kind_case != KDAPP__ENGINE_MSG__KIND_REVERTED) {
        snprintf(res->detail, sizeof res->detail, "EngineMsg carries neither accepted nor reverted");
        err = KD_ERR_DECODE;
        goto done;
    }
    uint64_t t0 = kd_now_us();
    for (int grows = 0;; grows++) {
        err = process(engine, m, msg, len, replay, res);
        if (err != KD_ERR_MAP_FULL || grows == MAX_GROWS)
            break;
        kd_msg_result_fini(res);
        pthread_rwlock_wrlock(&engine->map_lock);
        err = kd_store_grow(&engine->store);
        pthread_rwlock_unlock(&engine->map_lock);
        if (err)
            break;
    }
    if (err && !res->detail[0])
        snprintf(res->detail, sizeof res->detail, "%s", kd_err_str(err));
    if (!err && res->status == KD_MSG_APPLIED) { /* stored with the next commit */
        kd_hist_id h = res->reverted ? KD_HIST_REVERT_US : KD_HIST_APPLY_US;
        kd_histogram_observe(&engine->metrics.hist[h], h, kd_now_us() - t0);
        engine->metrics_unsaved = 1;
    }
done:
    kdapp__engine_msg__free_unpacked(m, NULL);
    return err;
}

kd_err kd_engine_ingest(kd_engine *engine, const uint8_t *msg, size_t len, kd_msg_result *res)
{
    return ingest(engine, msg, len, NULL, res);
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
    MDB_txn *txn = NULL;
    int rc = kd_metrics_encode(&engine->metrics, &b) == KD_OK ? mdb_txn_begin(engine->store.env, NULL, 0, &txn) : ENOMEM;
    if (rc == 0) {
        MDB_val k = kd_val(KD_META_METRICS, strlen(KD_META_METRICS)), v = kd_val(b.data, b.len);
        rc = mdb_put(txn, engine->store.meta, &k, &v, 0);
        rc = rc ? (mdb_txn_abort(txn), rc) : mdb_txn_commit(txn);
    }
    if (rc)
        KD_LOG_W("engine", "cannot store the last metrics: %s", mdb_strerror(rc));
    else
        engine->metrics_unsaved = 0;
    kd_buf_fini(&b);
}

void kd_engine_use_sig_batch(kd_engine *engine, struct kd_sig_batch *batch) { engine->sig_batch = batch; }

void kd_engine_trust_replayed_signatures(kd_engine *engine, int trust) { engine->trust_replayed_signatures = trust; }

uint64_t kd_engine_last_commit_us(const kd_engine *engine) { return engine->last_commit_us; }
