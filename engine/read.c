/*
 * read.c — the read API (engine.h, "read"): read handles, each one LMDB
 * read transaction, the reads made through them, and the map lock that
 * every transaction of the process holds shared so that the map can change
 * size only while no transaction is open.
 *
 * Why the lock is needed and how a reader adopts a map that another
 * process grew (LMDB answers mdb_txn_begin with MDB_MAP_RESIZED, and
 * mdb_env_set_mapsize(env, 0) adopts the new size, which remaps the file
 * under every transaction of this process):
 *
 *   reader A  shared ── txn ── reads ── end ── release
 *   reader B  shared ── begin: MAP_RESIZED ── release ── exclusive (waits for A)
 *             ── generation still the one B saw? adopt, generation + 1
 *             ── release ── shared ── begin again
 *   reader C  (also saw MAP_RESIZED at that generation) ── exclusive
 *             ── generation moved on: B adopted, nothing to do ── retry
 *   writer    shared ── write txn ── commit ── release
 *             MAP_FULL: abort ── release ── exclusive ── grow ── release ── retry
 *
 * The generation is read under the shared lock and changed only under the
 * exclusive one, so "check again after taking it" is one comparison. The
 * lock prefers writers (engine.c): a stream of readers cannot starve an
 * adoption or a growth, which is also why a thread may not hold two handles
 * on one engine at once.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/crypto.h"
#include "engine/engine_internal.h"
#include "engine/logger.h"
#include "kdapp.pb-c.h"
#include "store.pb-c.h"

/* Adoptions one kd_engine_read_begin tries before giving up on a map that
 * another process keeps growing. */
#define MAX_ADOPTIONS 8

struct kd_read {
    kd_engine *engine;
    MDB_txn *txn;
};

/* ------------------------------------------------------------- map lock */

kd_err kd_engine_map_hold(kd_engine *engine)
{
    int rc = pthread_rwlock_rdlock(&engine->map_lock);
    if (rc)
        KD_LOG_E("engine", "cannot take the map lock shared: %s", strerror(rc));
    return rc ? KD_ERR_INTERNAL : KD_OK;
}

void kd_engine_map_release(kd_engine *engine) { pthread_rwlock_unlock(&engine->map_lock); }

/* Runs `change` on the store with the map lock exclusive, unless `seen`
 * is given and the map changed since that generation (another thread
 * adopted the new size meanwhile). */
static kd_err change_map(kd_engine *engine, const uint64_t *seen, kd_err (*change)(kd_store *store))
{
    int rc = pthread_rwlock_wrlock(&engine->map_lock);
    if (rc) {
        KD_LOG_E("engine", "cannot take the map lock exclusively: %s", strerror(rc));
        return KD_ERR_INTERNAL;
    }
    kd_err err = KD_OK;
    if (!seen || engine->map_generation == *seen) {
        err = change(&engine->store);
        if (!err)
            engine->map_generation++;
    }
    pthread_rwlock_unlock(&engine->map_lock);
    return err;
}

kd_err kd_engine_map_grow(kd_engine *engine)
{
    /* The writer holds no transaction here; its map is full whatever
     * happened meanwhile, so it grows unconditionally. */
    return change_map(engine, NULL, kd_store_grow);
}

/* ---------------------------------------------------------------- handles */

kd_err kd_engine_read_begin(kd_engine *engine, kd_read **out)
{
    *out = NULL;
    kd_read *rd = calloc(1, sizeof *rd);
    if (!rd)
        return KD_ERR_NOMEM;
    rd->engine = engine;
    kd_err err;
    for (int adoptions = 0;; adoptions++) {
        if ((err = kd_engine_map_hold(engine)))
            break;
        uint64_t seen = engine->map_generation;
        int rc = mdb_txn_begin(engine->store.env, NULL, MDB_RDONLY, &rd->txn);
        if (rc == 0) {
            *out = rd;
            return KD_OK;
        }
        kd_engine_map_release(engine);
        if (rc != MDB_MAP_RESIZED || adoptions == MAX_ADOPTIONS) {
            err = kd_store_err(rc, "begin read transaction");
            break;
        }
        if ((err = change_map(engine, &seen, kd_store_adopt_map)))
            break;
    }
    free(rd);
    return err;
}

void kd_engine_read_end(kd_read *rd)
{
    if (!rd)
        return;
    mdb_txn_abort(rd->txn);
    kd_engine_map_release(rd->engine);
    free(rd);
}

/* ------------------------------------------------------------------ reads */

kd_err kd_read_tip(kd_read *rd, kd_tip *out) { return kd_engine_meta_tip(rd->engine, rd->txn, out, NULL); }

kd_err kd_read_metrics(kd_read *rd, kd_metrics *out) { return kd_engine_meta_metrics(rd->engine, rd->txn, out); }

void kd_episode_snapshot_fini(kd_episode_snapshot *snap)
{
    if (!snap)
        return;
    free(snap->state);
    snap->state = NULL;
}

kd_err kd_read_episode(kd_read *rd, uint32_t id, kd_episode_snapshot *out)
{
    kd_engine *engine = rd->engine;
    memset(out, 0, sizeof *out);
    Kdapp__Store__EpisodeRecord *rec = NULL;
    MDB_val v;
    kd_err err = kd_store_get_episode(rd->txn, &engine->store, id, &v);
    if (err)
        return err;
    rec = kdapp__store__episode_record__unpack(NULL, v.mv_size, v.mv_data);
    if (!rec) {
        KD_LOG_E("engine", "episode %u: stored record does not decode", id);
        return KD_ERR_STORE;
    }
    const kd_registry_entry *type = kd_registry_find(engine->registry, rec->episode_type);
    if (!type) {
        err = KD_ERR_UNKNOWN_TYPE;
        goto done;
    }
    out->id = id;
    out->ops = type->ops;
    out->creation_daa = rec->creation_daa;
    out->undo_depth = rec->undo_depth;
    out->updated_seq = rec->updated_seq;
    out->last_event = (kd_event_kind)rec->last_event /* same numbers (txn.c) */;
    if (rec->updated_block.len == KD_HASH_LEN)
        memcpy(out->updated_block, rec->updated_block.data, KD_HASH_LEN);
    for (size_t i = 0; i < rec->n_participants && i < KD_MAX_PARTICIPANTS; i++)
        if (rec->participants[i].len == KD_PUBKEY_LEN)
            memcpy(out->participants.keys[out->participants.count++].bytes, rec->participants[i].data, KD_PUBKEY_LEN);
    out->state = calloc(1, type->ops->state_size);
    if (!out->state) {
        err = KD_ERR_NOMEM;
        goto done;
    }
    if ((err = type->ops->decode_state(rec->state.data, rec->state.len, out->state))) {
        KD_LOG_E("engine", "episode %u: stored state does not decode", id);
        err = KD_ERR_STORE;
    }
done:
    kdapp__store__episode_record__free_unpacked(rec, NULL);
    if (err)
        kd_episode_snapshot_fini(out);
    return err;
}

kd_err kd_read_episode_ids(kd_read *rd, uint32_t after, uint32_t *ids, size_t max, size_t *count)
{
    *count = 0;
    MDB_cursor *cur = NULL;
    uint8_t key[4];
    kd_put_u32be(key, after);
    MDB_val k = kd_val(key, 4), v;
    int rc = mdb_cursor_open(rd->txn, rd->engine->store.ids, &cur);
    if (rc == 0)
        rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
    while (rc == 0 && *count < max) {
        uint32_t id = kd_get_u32be(k.mv_data);
        if (id > after)
            ids[(*count)++] = id;
        rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT);
    }
    if (rc == MDB_NOTFOUND)
        rc = 0;
    if (cur)
        mdb_cursor_close(cur);
    return kd_store_err(rc, "list episodes");
}

kd_err kd_read_log_entry(kd_read *rd, uint64_t seq, const uint8_t **data, size_t *len)
{
    uint8_t key[8];
    kd_put_u64be(key, seq);
    MDB_val k = kd_val(key, 8), v;
    int rc = mdb_get(rd->txn, rd->engine->store.log, &k, &v);
    if (rc == MDB_NOTFOUND)
        return KD_ERR_NOT_FOUND;
    kd_err err = kd_store_err(rc, "read log");
    if (err)
        return err;
    *data = v.mv_data;
    *len = v.mv_size;
    return KD_OK;
}

/* One varint of the protobuf wire at *p (< end); 0 when it runs off the end. */
static int wire_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    *v = 0;
    for (unsigned shift = 0; *p < end && shift < 64; shift += 7) {
        uint8_t b = *(*p)++;
        *v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return 1;
    }
    return 0;
}

/* Reads LogEntry.digest (6) and tip_height (7) off the wire, skipping the
 * other fields unread: an entry carries its whole block (field 1) and
 * every transaction's outcome (5), which a view needs none of. */
kd_err kd_read_log_position(kd_read *rd, uint64_t seq, uint8_t digest[KD_HASH_LEN], uint64_t *height)
{
    const uint8_t *p, *end;
    size_t len;
    kd_err err = kd_read_log_entry(rd, seq, &p, &len);
    if (err)
        return err;
    end = p + len;
    int has_digest = 0;
    *height = 0;
    while (p < end) {
        uint64_t tag, v;
        if (!wire_varint(&p, end, &tag))
            break;
        unsigned field = (unsigned)(tag >> 3), wire = (unsigned)(tag & 7);
        if (wire == 0) {
            if (!wire_varint(&p, end, &v))
                break;
            if (field == 7)
                *height = v;
        } else if (wire == 2) {
            if (!wire_varint(&p, end, &v) || v > (uint64_t)(end - p))
                break;
            if (field == 6 && v == KD_HASH_LEN) {
                memcpy(digest, p, KD_HASH_LEN);
                has_digest = 1;
            }
            p += v;
        } else if (wire == 1 && end - p >= 8) {
            p += 8;
        } else if (wire == 5 && end - p >= 4) {
            p += 4;
        } else {
            break;
        }
    }
    if (p != end || !has_digest) {
        KD_LOG_E("engine", "log entry %llu has no digest or does not decode", (unsigned long long)seq);
        return KD_ERR_STORE;
    }
    return KD_OK;
}

kd_err kd_read_fingerprint(kd_read *rd, uint8_t out[KD_HASH_LEN])
{
    kd_sha256_ctx sha;
    MDB_cursor *cur = NULL;
    kd_tip tip;
    kd_err err = kd_sha256_init(&sha);
    if (err)
        return err;
    if ((err = kd_read_tip(rd, &tip)))
        goto done;
    kd_sha256_update(&sha, tip.digest, KD_HASH_LEN);
    int rc = mdb_cursor_open(rd->txn, rd->engine->store.ids, &cur);
    MDB_val k, v;
    if (rc == 0)
        rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST);
    /* Only what the rules determine: not the log positions, which differ
     * between a live store and a replay of its canonical chain, nor the
     * slot numbers, which differ when a creation was reverted; in id order. */
    while (rc == 0) {
        if (k.mv_size != 4) {
            err = KD_ERR_STORE;
            goto done;
        }
        if ((err = kd_store_get_episode(rd->txn, &rd->engine->store, kd_get_u32be(k.mv_data), &v)))
            goto done;
        Kdapp__Store__EpisodeRecord *rec = kdapp__store__episode_record__unpack(NULL, v.mv_size, v.mv_data);
        if (!rec) {
            err = KD_ERR_STORE;
            goto done;
        }
        uint8_t depth[8];
        kd_put_u64be(depth, rec->undo_depth);
        kd_sha256_update(&sha, k.mv_data, k.mv_size);
        kd_sha256_update(&sha, rec->episode_type, strlen(rec->episode_type) + 1);
        for (size_t i = 0; i < rec->n_participants; i++)
            kd_sha256_update(&sha, rec->participants[i].data, rec->participants[i].len);
        kd_sha256_update(&sha, rec->state.data, rec->state.len);
        kd_sha256_update(&sha, depth, sizeof depth);
        kdapp__store__episode_record__free_unpacked(rec, NULL);
        rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT);
    }
    err = kd_store_err(rc == MDB_NOTFOUND ? 0 : rc, "fingerprint");
    kd_sha256_final(&sha, out);
done:
    if (cur)
        mdb_cursor_close(cur);
    kd_sha256_fini(&sha);
    return err;
}

kd_err kd_read_canonical_seqs(kd_read *rd, uint64_t **seqs, size_t *count)
{
    *seqs = NULL;
    *count = 0;
    kd_tip tip;
    uint8_t hash[KD_HASH_LEN];
    uint64_t *out = NULL;
    size_t n = 0;
    kd_err err = kd_read_tip(rd, &tip);
    if (err || !tip.has_tip)
        return err;
    out = malloc((tip.height ? tip.height : 1) * sizeof *out);
    if (!out)
        return KD_ERR_NOMEM;
    memcpy(hash, tip.hash, KD_HASH_LEN);
    for (;;) {
        MDB_val k = kd_val(hash, KD_HASH_LEN), v;
        if ((err = kd_store_err(mdb_get(rd->txn, rd->engine->store.blocks, &k, &v), "read block")))
            break;
        Kdapp__Store__BlockRecord *rec = kdapp__store__block_record__unpack(NULL, v.mv_size, v.mv_data);
        if (!rec || n == tip.height) {
            if (rec)
                kdapp__store__block_record__free_unpacked(rec, NULL);
            err = KD_ERR_STORE;
            break;
        }
        out[n++] = rec->log_seq;
        int more = rec->parent.len == KD_HASH_LEN;
        if (more)
            memcpy(hash, rec->parent.data, KD_HASH_LEN);
        kdapp__store__block_record__free_unpacked(rec, NULL);
        if (!more)
            break;
    }
    if (err) {
        free(out);
        return err == KD_ERR_NOT_FOUND ? KD_ERR_STORE : err; /* a parent link to nowhere */
    }
    for (size_t i = 0; i < n / 2; i++) { /* genesis first */
        uint64_t t = out[i];
        out[i] = out[n - 1 - i];
        out[n - 1 - i] = t;
    }
    *seqs = out;
    *count = n;
    return KD_OK;
}

kd_err kd_read_episode_history(kd_read *rd, uint32_t id, kd_history_entry **out, size_t *count)
{
    *out = NULL;
    *count = 0;
    const kd_store *s = &rd->engine->store;
    uint64_t slot;
    kd_err err = kd_store_slot_of(rd->txn, s, id, &slot);
    if (err)
        return err;
    kd_buf found;
    kd_buf_init(&found);
    uint8_t key[KD_HISTORY_KEY_LEN];
    kd_store_history_key(slot, 0, key);
    MDB_cursor *cur = NULL;
    MDB_val k = kd_val(key, sizeof key), v;
    int rc = mdb_cursor_open(rd->txn, s->history, &cur);
    if (rc == 0)
        rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
    for (; rc == 0 && !err; rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
        if (k.mv_size != KD_HISTORY_KEY_LEN || v.mv_size != 1) {
            KD_LOG_E("engine", "an entry of the history index is %zu + %zu bytes, not 16 + 1", k.mv_size, v.mv_size);
            err = KD_ERR_STORE;
            break;
        }
        if (kd_get_u64be(k.mv_data) != slot)
            break;
        kd_history_entry e = {.seq = kd_get_u64be((const uint8_t *)k.mv_data + 8),
                              .reverted = *(const uint8_t *)v.mv_data == KD_HISTORY_REVERT};
        err = kd_buf_append(&found, &e, sizeof e);
    }
    if (!err && rc != 0 && rc != MDB_NOTFOUND)
        err = kd_store_err(rc, "read history");
    if (cur)
        mdb_cursor_close(cur);
    if (err) {
        kd_buf_fini(&found);
        return err;
    }
    *out = (kd_history_entry *)found.data; /* the caller frees it */
    *count = found.len / sizeof **out;
    return KD_OK;
}

kd_err kd_read_block_seq(kd_read *rd, const uint8_t hash[KD_HASH_LEN], uint64_t *seq)
{
    Kdapp__Store__BlockRecord *rec = NULL;
    kd_err err = kd_store_read_block(rd->txn, &rd->engine->store, hash, &rec);
    if (err)
        return err;
    *seq = rec->log_seq;
    kdapp__store__block_record__free_unpacked(rec, NULL);
    return KD_OK;
}

/* Looks for `tx_id` in one log entry; 1 when found (out filled). */
static int entry_has_tx(const Kdapp__Store__LogEntry *le, const uint8_t tx_id[KD_HASH_LEN], kd_tx_result *out,
                        uint8_t block[KD_HASH_LEN])
{
    if (le->status != KDAPP__MSG_STATUS__MSG_APPLIED)
        return 0;
    Kdapp__EngineMsg *m = kdapp__engine_msg__unpack(NULL, le->message.len, le->message.data);
    int found = 0;
    if (m && m->kind_case == KDAPP__ENGINE_MSG__KIND_ACCEPTED) {
        const Kdapp__BlockAccepted *ba = m->accepted;
        for (size_t i = 0; i < ba->n_txs && i < le->n_txs && !found; i++) {
            if (ba->txs[i]->tx_id.len != KD_HASH_LEN || memcmp(ba->txs[i]->tx_id.data, tx_id, KD_HASH_LEN) != 0)
                continue;
            const Kdapp__Store__TxOutcome *o = le->txs[i];
            memset(out, 0, sizeof *out);
            memcpy(out->tx_id, tx_id, KD_HASH_LEN);
            out->episode_id = o->episode_id;
            out->applied = o->applied;
            if (!o->applied)
                kd_tx_result_set_rejected(out, o->error_code, o->error);
            if (block && ba->accepting_hash.len == KD_HASH_LEN)
                memcpy(block, ba->accepting_hash.data, KD_HASH_LEN);
            found = 1;
        }
    }
    if (m)
        kdapp__engine_msg__free_unpacked(m, NULL);
    return found;
}

kd_err kd_read_find_tx(kd_read *rd, uint64_t after_seq, const uint8_t tx_id[KD_HASH_LEN], kd_tx_result *out,
                       uint8_t block[KD_HASH_LEN], uint64_t *seq)
{
    kd_tip tip;
    kd_err err = kd_read_tip(rd, &tip);
    for (uint64_t s = after_seq + 1; !err && s <= tip.last_seq; s++) {
        const uint8_t *data;
        size_t len;
        if ((err = kd_read_log_entry(rd, s, &data, &len)))
            break;
        Kdapp__Store__LogEntry *le = kdapp__store__log_entry__unpack(NULL, len, data);
        if (!le) {
            KD_LOG_E("engine", "log entry %llu does not decode", (unsigned long long)s);
            err = KD_ERR_STORE;
            break;
        }
        int found = entry_has_tx(le, tx_id, out, block);
        kdapp__store__log_entry__free_unpacked(le, NULL);
        if (found) {
            if (seq)
                *seq = s;
            return KD_OK;
        }
    }
    return err ? err : KD_ERR_NOT_FOUND;
}

/* Adds `id` to the episodes of `ids` (uint32_t) unless it is there. */
static kd_err note_episode(kd_buf *ids, uint32_t id)
{
    for (size_t i = 0; i < ids->len / sizeof id; i++)
        if (((const uint32_t *)ids->data)[i] == id)
            return KD_OK;
    return kd_buf_append(ids, &id, sizeof id);
}

/* Adds the applied command of `payload` (an EpisodeMessage) to `out`. */
static kd_err note_command(kd_log_change *out, uint32_t episode_id, const ProtobufCBinaryData *payload)
{
    Kdapp__EpisodeMessage *em = kdapp__episode_message__unpack(NULL, payload->len, payload->data);
    if (!em)
        return KD_ERR_STORE;
    kd_err err = KD_OK;
    if (em->body_case == KDAPP__EPISODE_MESSAGE__BODY_SIGNED_COMMAND ||
        em->body_case == KDAPP__EPISODE_MESSAGE__BODY_UNSIGNED_COMMAND) {
        kd_log_command c = {.episode_id = episode_id, .at = out->payloads.len, .len = payload->len};
        const Kdapp__SignedCommand *sc = em->signed_command;
        if (em->body_case == KDAPP__EPISODE_MESSAGE__BODY_SIGNED_COMMAND && sc->pubkey.len == KD_PUBKEY_LEN) {
            c.has_signer = 1;
            memcpy(c.signer.bytes, sc->pubkey.data, KD_PUBKEY_LEN);
        }
        err = kd_buf_append(&out->payloads, payload->data, payload->len);
        if (!err)
            err = kd_buf_append(&out->commands, &c, sizeof c);
    }
    kdapp__episode_message__free_unpacked(em, NULL);
    return err;
}

static kd_err read_change(kd_read *rd, uint64_t seq, kd_log_change *out, int with_commands)
{
    memset(out, 0, sizeof *out);
    kd_buf_init(&out->commands);
    kd_buf_init(&out->payloads);
    const uint8_t *data;
    size_t len;
    kd_err err = kd_read_log_entry(rd, seq, &data, &len);
    if (err)
        return err;
    Kdapp__Store__LogEntry *le = kdapp__store__log_entry__unpack(NULL, len, data);
    Kdapp__EngineMsg *m = le ? kdapp__engine_msg__unpack(NULL, le->message.len, le->message.data) : NULL;
    if (!m) {
        KD_LOG_E("engine", "log entry %llu does not decode", (unsigned long long)seq);
        err = KD_ERR_STORE;
    } else if (le->status == KDAPP__MSG_STATUS__MSG_APPLIED) {
        out->applied = 1;
        out->reverted = m->kind_case == KDAPP__ENGINE_MSG__KIND_REVERTED;
        out->daa = out->reverted ? 0 : m->accepted->accepting_daa;
        out->height = le->tip_height;
        const ProtobufCBinaryData *hash = out->reverted ? &m->reverted->accepting_hash : &m->accepted->accepting_hash;
        if (hash->len == KD_HASH_LEN)
            memcpy(out->block, hash->data, KD_HASH_LEN);
        kd_buf ids;
        kd_buf_init(&ids);
        for (size_t i = 0; !out->reverted && !err && i < le->n_txs; i++) {
            if (!le->txs[i]->applied)
                continue;
            err = note_episode(&ids, le->txs[i]->episode_id);
            if (!err && with_commands && i < m->accepted->n_txs)
                err = note_command(out, le->txs[i]->episode_id, &m->accepted->txs[i]->payload);
        }
        out->episodes = (uint32_t *)ids.data; /* kd_log_change_fini frees it */
        out->n_episodes = ids.len / sizeof(uint32_t);
        if (err == KD_ERR_STORE)
            KD_LOG_E("engine", "log entry %llu: an applied payload does not decode", (unsigned long long)seq);
    }
    if (m)
        kdapp__engine_msg__free_unpacked(m, NULL);
    if (le)
        kdapp__store__log_entry__free_unpacked(le, NULL);
    return err;
}

kd_err kd_read_log_change(kd_read *rd, uint64_t seq, kd_log_change *out) { return read_change(rd, seq, out, 0); }

kd_err kd_read_log_commands(kd_read *rd, uint64_t seq, kd_log_change *out) { return read_change(rd, seq, out, 1); }

void kd_log_change_fini(kd_log_change *c)
{
    free(c->episodes);
    kd_buf_fini(&c->commands);
    kd_buf_fini(&c->payloads);
    memset(c, 0, sizeof *c);
}

/* ------------------------------------------------------------- one-shots */

kd_err kd_engine_tip(kd_engine *engine, kd_tip *out)
{
    kd_read *rd;
    kd_err err = kd_engine_read_begin(engine, &rd);
    if (err)
        return err;
    err = kd_read_tip(rd, out);
    kd_engine_read_end(rd);
    return err;
}

kd_err kd_engine_episode_read(kd_engine *engine, uint32_t id, kd_episode_snapshot *out)
{
    kd_read *rd;
    memset(out, 0, sizeof *out);
    kd_err err = kd_engine_read_begin(engine, &rd);
    if (err)
        return err;
    err = kd_read_episode(rd, id, out);
    kd_engine_read_end(rd);
    return err;
}

kd_err kd_engine_find_tx(kd_engine *engine, uint64_t after_seq, const uint8_t tx_id[KD_HASH_LEN], kd_tx_result *out,
                         uint8_t block[KD_HASH_LEN], uint64_t *seq)
{
    kd_read *rd;
    kd_err err = kd_engine_read_begin(engine, &rd);
    if (err)
        return err;
    err = kd_read_find_tx(rd, after_seq, tx_id, out, block, seq);
    kd_engine_read_end(rd);
    return err;
}

/* ------------------------------------------------------------- open tables */

kd_err kd_read_tables(kd_read *rd, kd_table_fn fn, void *ctx)
{
    MDB_txn *txn = rd->txn;
    const kd_store *s = &rd->engine->store;
    if (!s->tables)
        return KD_OK; /* a read-only store that never had a table */
    MDB_cursor *cur;
    kd_err err = kd_store_err(mdb_cursor_open(txn, s->tables, &cur), "open tables cursor");
    if (err)
        return err;
    MDB_val k, v;
    int rc;
    for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); !rc && !err; rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
        if (k.mv_size != 4)
            continue;
        Kdapp__Store__TableRecord *rec = kdapp__store__table_record__unpack(NULL, v.mv_size, v.mv_data);
        if (!rec) {
            err = KD_ERR_STORE;
            break;
        }
        kd_table_info t;
        memset(&t, 0, sizeof t);
        t.episode_id = kd_get_u32be(k.mv_data);
        snprintf(t.type_name, sizeof t.type_name, "%s", rec->episode_type);
        t.participants.count = rec->n_participants < KD_MAX_PARTICIPANTS ? rec->n_participants : KD_MAX_PARTICIPANTS;
        for (size_t i = 0; i < t.participants.count; i++)
            if (rec->participants[i].len == KD_PUBKEY_LEN) {
                memcpy(t.participants.keys[i].bytes, rec->participants[i].data, KD_PUBKEY_LEN);
                t.taken |= UINT32_C(1) << i;
            }
        t.open_seats = rec->open_seats;
        t.deadline_daa = rec->deadline_daa;
        t.creation_daa = rec->creation_daa;
        t.cancelled = rec->cancelled;
        t.started = rec->started;
        t.params = rec->params.data;
        t.params_len = rec->params.len;
        err = fn(ctx, &t);
        kdapp__store__table_record__free_unpacked(rec, NULL);
    }
    mdb_cursor_close(cur);
    if (!err && rc != MDB_NOTFOUND)
        err = kd_store_err(rc, "read tables");
    return err;
}
