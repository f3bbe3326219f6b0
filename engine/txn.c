/* txn.c — one write transaction: working set, writes, commit, dispatch (see txn.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/crashpoint.h"
#include "engine/logger.h"
#include "engine/netutil.h"
#include "engine/txn.h"

/* ------------------------------------------------------------ small tools */

void kd_txn_reject(kd_tx_result *r, kd_err err, const char *code, const char *detail)
{
    r->applied = 0;
    r->err = err;
    snprintf(r->code, sizeof r->code, "%s", code && code[0] ? code : kd_err_code(err));
    snprintf(r->detail, sizeof r->detail, "%s", detail && detail[0] ? detail : kd_err_str(err));
}

kd_err kd_grow_array(void **arr, size_t *cap, size_t need, size_t elem)
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

void kd_txn_init(kd_txn *c, kd_engine *engine)
{
    memset(c, 0, sizeof *c);
    c->engine = engine;
    kd_buf_init(&c->arena);
    kd_buf_init(&c->scratch);
    kd_buf_init(&c->table_marks);
    kd_buf_init(&c->undo_enc);
}

/* Stored episode records carry a kdapp.ViewEvent; the numbers are the
 * same as kd_event_kind's, pinned here so that neither can drift. */
_Static_assert((int)KD_EVENT_INITIALIZE == (int)KDAPP__VIEW_EVENT__VIEW_INITIALIZE &&
                   (int)KD_EVENT_COMMAND == (int)KDAPP__VIEW_EVENT__VIEW_COMMAND &&
                   (int)KD_EVENT_ROLLBACK == (int)KDAPP__VIEW_EVENT__VIEW_ROLLBACK,
               "kd_event_kind numbers are stored as kdapp.ViewEvent");

kd_err kd_txn_begin(kd_txn *c)
{
    kd_err err = kd_engine_map_hold(c->engine);
    if (err)
        return err;
    c->map_held = 1;
    return kd_store_err(mdb_txn_begin(c->engine->store.env, NULL, 0, &c->txn), "begin write");
}

/* Ends the transaction (when still open) and the map lock hold. */
static void end_txn(kd_txn *c)
{
    if (c->txn && !c->batched)
        mdb_txn_abort(c->txn);
    c->txn = NULL;
    if (c->map_held)
        kd_engine_map_release(c->engine);
    c->map_held = 0;
}

void kd_txn_fini(kd_txn *c)
{
    end_txn(c);
    for (size_t i = 0; i < c->n_eps; i++)
        free(c->eps[i].state);
    free(c->eps);
    free(c->events);
    free(c->effects);
    free(c->undo_offs);
    kd_buf_fini(&c->undo_enc);
    kd_buf_fini(&c->arena);
    kd_buf_fini(&c->scratch);
    kd_buf_fini(&c->table_marks);
    memset(c, 0, sizeof *c);
}

kd_err kd_txn_put(kd_txn *c, MDB_dbi dbi, const void *k, size_t klen, const void *v, size_t vlen, const char *what)
{
    return kd_txn_put_flags(c, dbi, k, klen, v, vlen, 0, what);
}

kd_err kd_txn_put_flags(kd_txn *c, MDB_dbi dbi, const void *k, size_t klen, const void *v, size_t vlen, unsigned flags,
                        const char *what)
{
    MDB_val key = kd_val(k, klen), val = kd_val(v, vlen);
    int rc = mdb_put(c->txn, dbi, &key, &val, flags);
    if (rc == 0)
        KD_CRASHPOINT("after_put"); /* crash test: a half-written transaction */
    return kd_store_err(rc, what);
}

kd_err kd_txn_del(kd_txn *c, MDB_dbi dbi, const void *k, size_t klen, const char *what)
{
    MDB_val key = kd_val(k, klen);
    int rc = mdb_del(c->txn, dbi, &key, NULL);
    return kd_store_err(rc == MDB_NOTFOUND ? 0 : rc, what);
}

kd_err kd_txn_add_event(kd_txn *c, kd_event_kind kind, uint32_t id, kd_txn_event **out)
{
    kd_err err = kd_grow_array((void **)&c->events, &c->cap_events, c->n_events + 1, sizeof *c->events);
    if (err)
        return err;
    kd_txn_event *e = &c->events[c->n_events++];
    memset(e, 0, sizeof *e);
    e->kind = kind;
    e->episode_id = id;
    *out = e;
    return KD_OK;
}

kd_err kd_txn_add_effect(kd_txn *c, uint32_t id, Kdapp__Store__EffectKind kind, uint64_t depth, const uint8_t *undo,
                         size_t undo_len)
{
    kd_err err = kd_grow_array((void **)&c->effects, &c->cap_effects, c->n_effects + 1, sizeof *c->effects);
    if (!err)
        err = kd_grow_array((void **)&c->undo_offs, &c->cap_undo_offs, c->n_effects + 1, sizeof *c->undo_offs);
    if (!err && undo_len)
        err = kd_buf_append(&c->undo_enc, undo, undo_len);
    if (err)
        return err;
    Kdapp__Store__Effect init = KDAPP__STORE__EFFECT__INIT;
    init.episode_id = id;
    init.kind = kind;
    init.undo_depth = depth;
    init.undo.len = undo_len;
    c->undo_offs[c->n_effects] = c->undo_enc.len - undo_len;
    c->effects[c->n_effects++] = init;
    return KD_OK;
}

void kd_txn_effects_fix(kd_txn *c)
{
    for (size_t i = 0; i < c->n_effects; i++)
        c->effects[i].undo.data = c->effects[i].undo.len ? c->undo_enc.data + c->undo_offs[i] : NULL;
}

/* Reserves `size` zeroed bytes in the arena (undo records and command
 * copies for the listener); returns their offset, stable across growth. */
kd_err kd_txn_arena_reserve(kd_txn *c, size_t size, size_t *off)
{
    size_t start = kd_record_stride(c->arena.len); /* the buffer's start is malloc-aligned */
    kd_err err = kd_buf_reserve(&c->arena, start - c->arena.len + size);
    if (err)
        return err;
    *off = start;
    memset(c->arena.data + c->arena.len, 0, start - c->arena.len + size);
    c->arena.len = start + size;
    return KD_OK;
}

/* ---------------------------------------------------------- working set */

kd_txn_episode *kd_txn_find(kd_txn *c, uint32_t id)
{
    for (size_t i = 0; i < c->n_eps; i++)
        if (c->eps[i].id == id)
            return &c->eps[i];
    return NULL;
}

kd_err kd_txn_add(kd_txn *c, uint32_t id, const kd_registry_entry *type, kd_txn_episode **out)
{
    kd_err err = kd_grow_array((void **)&c->eps, &c->cap_eps, c->n_eps + 1, sizeof *c->eps);
    if (err)
        return err;
    kd_txn_episode *ep = &c->eps[c->n_eps];
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
kd_err kd_txn_get(kd_txn *c, uint32_t id, kd_txn_episode **out)
{
    kd_txn_episode *ep = kd_txn_find(c, id);
    if (ep) {
        *out = ep;
        return ep->deleted ? KD_ERR_NOT_FOUND : KD_OK;
    }
    uint64_t slot;
    kd_err err = kd_store_slot_of(c->txn, &c->engine->store, id, &slot);
    if (err)
        return err;
    uint8_t key[8];
    kd_put_u64be(key, slot);
    MDB_val k = kd_val(key, 8), v;
    int rc = mdb_get(c->txn, c->engine->store.states, &k, &v);
    if (rc == MDB_NOTFOUND) {
        KD_LOG_E("engine", "episode %u: slot %llu is empty", id, (unsigned long long)slot);
        return KD_ERR_STORE;
    }
    if ((err = kd_store_err(rc, "read episode")))
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
    if ((err = kd_txn_add(c, id, type, &ep)))
        goto done;
    ep->slot = slot;
    ep->creation_daa = rec->creation_daa;
    ep->undo_depth = rec->undo_depth;
    ep->last_event = (kd_event_kind)rec->last_event;
    if (rec->created_in.len == KD_HASH_LEN)
        memcpy(ep->created_in, rec->created_in.data, KD_HASH_LEN);
    for (size_t i = 0; i < rec->n_participants && i < KD_MAX_PARTICIPANTS; i++) {
        if (rec->participants[i].len != KD_PUBKEY_LEN)
            continue;
        memcpy(ep->participants.keys[ep->participants.count++].bytes, rec->participants[i].data, KD_PUBKEY_LEN);
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
    uint32_t x = ((const kd_txn_episode *)a)->id, y = ((const kd_txn_episode *)b)->id;
    return x < y ? -1 : x > y;
}

/* A new episode's slot: the one after the last, then counting on. */
static kd_err assign_slot(kd_txn *c, kd_txn_episode *ep)
{
    kd_err err;
    if (!c->next_slot && (err = kd_store_next_slot(c->txn, &c->engine->store, &c->next_slot)))
        return err;
    ep->slot = c->next_slot++;
    uint8_t id[4], slot[8];
    kd_put_u32be(id, ep->id);
    kd_put_u64be(slot, ep->slot);
    return kd_txn_put(c, c->engine->store.ids, id, 4, slot, 8, "write episode id");
}

/* Deletes a stored episode: its record and its id. */
static kd_err delete_episode(kd_txn *c, const kd_txn_episode *ep)
{
    uint8_t id[4], slot[8];
    kd_put_u32be(id, ep->id);
    kd_put_u64be(slot, ep->slot);
    kd_err err = kd_txn_del(c, c->engine->store.states, slot, 8, "delete episode");
    return err ? err : kd_txn_del(c, c->engine->store.ids, id, 4, "delete episode id");
}

/* Writes every dirty episode back (or deletes it) in id order, extending
 * the digest with each one's state hash. */
kd_err kd_txn_flush(kd_txn *c, kd_sha256_ctx *digest, const uint8_t *block, uint64_t seq)
{
    kd_err err = KD_OK;
    if (c->n_eps > 1) /* (qsort's array may not be NULL, even when empty) */
        qsort(c->eps, c->n_eps, sizeof *c->eps, cmp_ws_id);
    for (size_t i = 0; i < c->n_eps; i++) {
        kd_txn_episode *ep = &c->eps[i];
        if (!ep->dirty)
            continue;
        uint8_t key[4], slot[8], state_hash[KD_HASH_LEN] = {0};
        kd_put_u32be(key, ep->id);
        kd_sha256_update(digest, key, 4);
        if (ep->deleted) {
            kd_sha256_update(digest, state_hash, KD_HASH_LEN);
            if (ep->slot && (err = delete_episode(c, ep)))
                return err;
            continue;
        }
        if (!ep->slot && (err = assign_slot(c, ep)))
            return err;
        kd_put_u64be(slot, ep->slot);
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
        err = kd_txn_put(c, c->engine->store.states, slot, 8, buf, n, "write episode");
        free(buf);
        if (err)
            return err;
    }
    return KD_OK;
}

/* ------------------------------------------------------- commit helpers */

kd_err kd_txn_write_meta(kd_txn *c, const kd_chain_pos *pos, uint64_t next_seq, kd_metrics *m)
{
    m->last_commit_ms = kd_wall_ms();
    c->scratch.len = 0;
    kd_err merr = kd_metrics_encode(m, &c->scratch);
    if (merr || (merr = kd_txn_put(c, c->engine->store.meta, KD_META_METRICS, strlen(KD_META_METRICS), c->scratch.data,
                                   c->scratch.len, "write metrics")))
        return merr;
    kd_store *s = &c->engine->store;
    uint8_t h[8], n[8];
    kd_put_u64be(h, pos->height);
    kd_put_u64be(n, next_seq);
    kd_err err;
    if (pos->has_tip)
        err = kd_txn_put(c, s->meta, KD_META_TIP, strlen(KD_META_TIP), pos->tip, KD_HASH_LEN, "write tip");
    else
        err = kd_txn_del(c, s->meta, KD_META_TIP, strlen(KD_META_TIP), "clear tip");
    if (err || (err = kd_txn_put(c, s->meta, KD_META_HEIGHT, strlen(KD_META_HEIGHT), h, 8, "write height")) ||
        (err = kd_txn_put(c, s->meta, KD_META_DIGEST, strlen(KD_META_DIGEST), pos->digest, KD_HASH_LEN,
                          "write digest")) ||
        (err = kd_txn_put(c, s->meta, KD_META_NEXT_SEQ, strlen(KD_META_NEXT_SEQ), n, 8, "write next_seq")))
        return err;
    return KD_OK;
}

kd_err kd_txn_write_history(kd_txn *c, uint64_t seq, uint8_t kind)
{
    kd_err err = KD_OK;
    for (size_t i = 0; i < c->n_eps && !err; i++) {
        const kd_txn_episode *ep = &c->eps[i];
        if (!ep->dirty || !ep->slot)
            continue;
        uint8_t key[KD_HISTORY_KEY_LEN];
        kd_store_history_key(ep->slot, seq, key);
        err = kd_txn_put(c, c->engine->store.history, key, sizeof key, &kind, 1, "write history");
    }
    return err;
}

/* Appends the log entry for `seq`. */
kd_err kd_txn_write_log(kd_txn *c, uint64_t seq, Kdapp__Store__LogEntry *entry)
{
    uint8_t key[8];
    kd_put_u64be(key, seq);
    size_t n = kdapp__store__log_entry__get_packed_size(entry);
    uint8_t *buf = malloc(n ? n : 1);
    if (!buf)
        return KD_ERR_NOMEM;
    kdapp__store__log_entry__pack(entry, buf);
    kd_err err = kd_txn_put_flags(c, c->engine->store.log, key, 8, buf, n, MDB_APPEND, "append log");
    free(buf);
    return err;
}

kd_err kd_txn_read_block(kd_txn *c, const uint8_t *hash, Kdapp__Store__BlockRecord **out)
{
    return kd_store_read_block(c->txn, &c->engine->store, hash, out);
}

kd_err kd_txn_write_block(kd_txn *c, const uint8_t *hash, const Kdapp__Store__BlockRecord *rec)
{
    size_t n = kdapp__store__block_record__get_packed_size(rec);
    uint8_t *buf = malloc(n ? n : 1);
    if (!buf)
        return KD_ERR_NOMEM;
    kdapp__store__block_record__pack(rec, buf);
    kd_err err = kd_txn_put(c, c->engine->store.blocks, hash, KD_HASH_LEN, buf, n, "write block");
    free(buf);
    return err;
}

void kd_chain_pos_of(const kd_tip *tip, kd_chain_pos *pos)
{
    memset(pos, 0, sizeof *pos);
    pos->has_tip = tip->has_tip;
    memcpy(pos->tip, tip->hash, KD_HASH_LEN);
    pos->height = tip->height;
    memcpy(pos->digest, tip->digest, KD_HASH_LEN);
}

/* The writer's cached tip, next log position and metrics after a commit
 * (or, batched, after the transaction's writes). */
static void adopt(kd_engine *e, const kd_chain_pos *pos, uint64_t seq, const kd_metrics *m)
{
    e->metrics = *m;
    e->metrics_unsaved = 0;
    e->tip.has_tip = pos->has_tip;
    memcpy(e->tip.hash, pos->tip, KD_HASH_LEN);
    e->tip.height = pos->height;
    memcpy(e->tip.digest, pos->digest, KD_HASH_LEN);
    e->tip.last_seq = seq;
    e->next_seq = seq + 1;
}

/* Commits, then updates the writer's cached tip and tells the listener. */
kd_err kd_txn_commit(kd_txn *c, const kd_chain_pos *pos, uint64_t seq, const kd_metrics *m)
{
    kd_engine *e = c->engine;
    if (c->batched) { /* the batch commits; the next event builds on this one */
        adopt(e, pos, seq, m);
        return KD_OK;
    }
    uint64_t t0 = kd_now_us();
    KD_CRASHPOINT("before_commit"); /* crash test: all put, nothing durable */
    int rc = mdb_txn_commit(c->txn);
    e->last_commit_us = kd_now_us() - t0;
    c->txn = NULL; /* committed or, on error, freed by LMDB */
    end_txn(c);
    kd_err err = kd_store_err(rc, "commit");
    if (err)
        return err;
    KD_CRASHPOINT("after_commit"); /* crash test: durable, not acknowledged */
    adopt(e, pos, seq, m);
    return KD_OK;
}

kd_err kd_txn_log_and_commit(kd_txn *c, uint64_t seq, Kdapp__Store__LogEntry *entry, const kd_chain_pos *pos,
                             kd_metrics *m)
{
    kd_err err = kd_txn_write_log(c, seq, entry);
    if (!err)
        err = kd_txn_write_meta(c, pos, seq + 1, m);
    if (!err)
        err = kd_txn_commit(c, pos, seq, m);
    return err;
}

/* Tells the listener, with the tip `tip` the transaction left. */
static void dispatch(kd_txn *c, int reverted, const uint8_t *block, uint64_t daa, uint64_t time_ms, uint64_t seq,
                     const kd_msg_result *res, const kd_tip *tip)
{
    kd_engine *e = c->engine;
    kd_episode_event *events = calloc(c->n_events ? c->n_events : 1, sizeof *events);
    if (!events) {
        KD_LOG_E("engine", "out of memory building commit events; views not published for seq %llu",
                 (unsigned long long)seq);
        return;
    }
    for (size_t i = 0; i < c->n_events; i++) {
        const kd_txn_event *pe = &c->events[i];
        const kd_txn_episode *ep = kd_txn_find(c, pe->episode_id);
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
        ev->moves = ep->undo_depth;
    }
    kd_commit commit_info = {
        .reverted = reverted,
        .block_hash = block,
        .daa = daa,
        .time_ms = time_ms,
        .log_seq = seq,
        .tip_hash = tip->has_tip ? tip->hash : NULL,
        .tip_height = tip->height,
        .digest = tip->digest,
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

void kd_txn_dispatch(kd_txn *c, int reverted, const uint8_t *block, uint64_t daa, uint64_t time_ms, uint64_t seq,
                     const kd_msg_result *res)
{
    kd_engine *e = c->engine;
    if (!e->listener)
        return;
    if (!c->batched) {
        dispatch(c, reverted, block, daa, time_ms, seq, res, &e->tip);
        return;
    }
    c->deferred.due = 1; /* told after the batch's commit */
    c->deferred.reverted = reverted;
    memcpy(c->deferred.block, block, KD_HASH_LEN);
    c->deferred.daa = daa;
    c->deferred.time_ms = time_ms;
    c->deferred.seq = seq;
    c->deferred.res = res;
    c->deferred.tip = e->tip;
}

void kd_txn_dispatch_due(kd_txn *c)
{
    if (!c->deferred.due)
        return;
    c->deferred.due = 0;
    dispatch(c, c->deferred.reverted, c->deferred.block, c->deferred.daa, c->deferred.time_ms, c->deferred.seq,
             c->deferred.res, &c->deferred.tip);
}

/* Logs a refused message (nothing else changes). */
kd_err kd_txn_refuse(kd_txn *c, const uint8_t *msg, size_t len, kd_err why, const char *detail, kd_msg_result *res)
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
    kd_chain_pos pos;
    kd_chain_pos_of(&e->tip, &pos);
    kd_metrics m = e->metrics;
    m.refusals++;
    m.refused[why]++;
    kd_err err = kd_txn_log_and_commit(c, seq, &entry, &pos, &m);
    if (!err)
        res->log_seq = seq;
    return err;
}
