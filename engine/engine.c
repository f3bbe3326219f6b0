/*
 * engine.c — opening an engine on a data directory (schema and settings
 * checks) and the read API used by tools, handlers and the MCP gateway.
 * The writer half (apply, revert, pruning, digest) lives in apply.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine_internal.h"
#include "engine/crypto.h"
#include "engine/logger.h"
#include "kdapp.pb-c.h"
#include "store.pb-c.h"

static kd_err meta_get_u64(MDB_txn *txn, MDB_dbi meta, const char *name, uint64_t *out, int *found)
{
    MDB_val k = kd_val(name, strlen(name)), v;
    int rc = mdb_get(txn, meta, &k, &v);
    *found = 0;
    if (rc == MDB_NOTFOUND)
        return KD_OK;
    if (rc)
        return kd_store_err(rc, name);
    if (v.mv_size != 8)
        return KD_ERR_STORE;
    *out = kd_get_u64be(v.mv_data);
    *found = 1;
    return KD_OK;
}

static kd_err meta_put_u64(MDB_txn *txn, MDB_dbi meta, const char *name, uint64_t value)
{
    uint8_t b[8];
    kd_put_u64be(b, value);
    MDB_val k = kd_val(name, strlen(name)), v = kd_val(b, 8);
    return kd_store_err(mdb_put(txn, meta, &k, &v, 0), name);
}

kd_err kd_engine_meta_tip(kd_engine *engine, MDB_txn *txn, kd_tip *out, uint64_t *next_seq)
{
    kd_store *s = &engine->store;
    int found = 0;
    kd_err err;
    memset(out, 0, sizeof *out);
    out->finality_depth = engine->finality;
    MDB_val k = kd_val(KD_META_TIP, strlen(KD_META_TIP)), v;
    int rc = mdb_get(txn, s->meta, &k, &v);
    if (rc == 0 && v.mv_size == KD_HASH_LEN) {
        out->has_tip = 1;
        memcpy(out->hash, v.mv_data, KD_HASH_LEN);
    } else if (rc != 0 && rc != MDB_NOTFOUND) {
        return kd_store_err(rc, "read tip");
    }
    k = kd_val(KD_META_DIGEST, strlen(KD_META_DIGEST));
    rc = mdb_get(txn, s->meta, &k, &v);
    if (rc == 0 && v.mv_size == KD_HASH_LEN)
        memcpy(out->digest, v.mv_data, KD_HASH_LEN);
    else if (rc != 0 && rc != MDB_NOTFOUND)
        return kd_store_err(rc, "read digest");
    if ((err = meta_get_u64(txn, s->meta, KD_META_HEIGHT, &out->height, &found)))
        return err;
    uint64_t next = 1;
    if ((err = meta_get_u64(txn, s->meta, KD_META_NEXT_SEQ, &next, &found)))
        return err;
    if (!found)
        next = 1;
    out->last_seq = next - 1;
    if (next_seq)
        *next_seq = next;
    return KD_OK;
}

/* The stored metrics; zero when absent or from another version. */
static kd_err read_metrics(kd_engine *engine, MDB_txn *txn, kd_metrics *out)
{
    MDB_val k = kd_val(KD_META_METRICS, strlen(KD_META_METRICS)), v;
    memset(out, 0, sizeof *out);
    int rc = mdb_get(txn, engine->store.meta, &k, &v);
    if (rc == MDB_NOTFOUND)
        return KD_OK;
    if (rc)
        return kd_store_err(rc, "read metrics");
    if (kd_metrics_decode(v.mv_data, v.mv_size, out) != KD_OK)
        KD_LOG_W("engine", "stored metrics are from another version; starting from zero");
    return KD_OK;
}

/* Checks (or, for a new store, writes) the schema version and settings. */
static kd_err check_meta(kd_engine *engine, uint64_t want_finality, char *why, size_t why_len)
{
    kd_store *s = &engine->store;
    MDB_txn *txn = NULL;
    uint64_t schema = 0, finality = 0;
    int has_schema = 0, has_finality = 0;
    kd_err err;
    int rc = mdb_txn_begin(s->env, NULL, s->read_only ? MDB_RDONLY : 0, &txn);
    if (rc)
        return kd_store_err(rc, "begin meta transaction");
    if ((err = meta_get_u64(txn, s->meta, KD_META_SCHEMA, &schema, &has_schema)) ||
        (err = meta_get_u64(txn, s->meta, KD_META_FINALITY, &finality, &has_finality)))
        goto fail;
    if (has_schema && schema != KD_SCHEMA_VERSION) {
        snprintf(why, why_len,
                 "data directory %s has schema version %llu; this kdapp reads version %u "
                 "(replay its log with a matching kdapp, or use a new directory)",
                 s->dir, (unsigned long long)schema, KD_SCHEMA_VERSION);
        err = KD_ERR_SCHEMA;
        goto fail;
    }
    if (!has_schema) {
        if (s->read_only) {
            snprintf(why, why_len, "data directory %s is not initialised yet", s->dir);
            err = KD_ERR_NOT_FOUND;
            goto fail;
        }
        finality = want_finality ? want_finality : KD_DEFAULT_FINALITY;
        if ((err = meta_put_u64(txn, s->meta, KD_META_SCHEMA, KD_SCHEMA_VERSION)) ||
            (err = meta_put_u64(txn, s->meta, KD_META_FINALITY, finality)) ||
            (err = meta_put_u64(txn, s->meta, KD_META_NEXT_SEQ, 1)))
            goto fail;
    } else if (!has_finality) {
        snprintf(why, why_len, "data directory %s has no finality setting: it is damaged", s->dir);
        err = KD_ERR_STORE;
        goto fail;
    } else if (want_finality && want_finality != finality) {
        snprintf(why, why_len,
                 "data directory %s was created with finality depth %llu, not %llu "
                 "(omit the setting, or replay into a new directory)",
                 s->dir, (unsigned long long)finality, (unsigned long long)want_finality);
        err = KD_ERR_SETTINGS;
        goto fail;
    }
    engine->finality = finality;
    if ((err = kd_engine_meta_tip(engine, txn, &engine->tip, &engine->next_seq)))
        goto fail;
    if ((err = read_metrics(engine, txn, &engine->metrics)))
        goto fail;
    if (s->read_only) {
        mdb_txn_abort(txn);
        return KD_OK;
    }
    rc = mdb_txn_commit(txn);
    return kd_store_err(rc, "commit meta");
fail:
    mdb_txn_abort(txn);
    return err;
}

kd_err kd_engine_open(const kd_engine_options *opts, kd_engine **out, char *why, size_t why_len)
{
    kd_err err;
    char scratch[16];
    if (!why) {
        why = scratch;
        why_len = sizeof scratch;
    }
    why[0] = '\0';
    *out = NULL;
    if (!opts || !opts->data_dir || !opts->registry) {
        snprintf(why, why_len, "engine options need a data directory and a registry");
        return KD_ERR_INVALID_ARG;
    }
    kd_engine *engine = calloc(1, sizeof *engine);
    if (!engine)
        return KD_ERR_NOMEM;
    engine->registry = opts->registry;
    engine->store.lock_fd = -1;
    if (pthread_rwlock_init(&engine->map_lock, NULL) != 0) {
        free(engine);
        return KD_ERR_NOMEM;
    }
    kd_store_options so = {
        .dir = opts->data_dir,
        .read_only = opts->read_only,
        .durability = opts->durability,
        .map_size = opts->map_size,
        .max_map_size = opts->max_map_size,
    };
    if ((err = kd_store_open(&engine->store, &so, why, why_len)))
        goto fail;
    if ((err = check_meta(engine, opts->finality_depth, why, why_len)))
        goto fail;
    *out = engine;
    return KD_OK;
fail:
    if (!why[0])
        snprintf(why, why_len, "%s", kd_err_str(err));
    kd_engine_close(engine);
    return err;
}

void kd_engine_close(kd_engine *engine)
{
    if (!engine)
        return;
    if (engine->store.env)
        kd_engine_save_metrics(engine);
    kd_store_close(&engine->store);
    pthread_rwlock_destroy(&engine->map_lock);
    free(engine);
}

void kd_engine_set_listener(kd_engine *engine, kd_commit_fn fn, void *ctx)
{
    engine->listener = fn;
    engine->listener_ctx = ctx;
}

const kd_registry *kd_engine_registry(const kd_engine *engine) { return engine->registry; }

const char *kd_engine_dir(const kd_engine *engine) { return engine->store.dir; }

/* --------------------------------------------------------------- reading */

static kd_err read_begin(kd_engine *engine, MDB_txn **txn)
{
    pthread_rwlock_rdlock(&engine->map_lock);
    kd_err err = kd_store_read_begin(&engine->store, txn);
    if (err)
        pthread_rwlock_unlock(&engine->map_lock);
    return err;
}

static void read_end(kd_engine *engine, MDB_txn *txn)
{
    mdb_txn_abort(txn);
    pthread_rwlock_unlock(&engine->map_lock);
}

kd_err kd_engine_tip(kd_engine *engine, kd_tip *out)
{
    MDB_txn *txn;
    kd_err err = read_begin(engine, &txn);
    if (err)
        return err;
    err = kd_engine_meta_tip(engine, txn, out, NULL);
    read_end(engine, txn);
    return err;
}

void kd_episode_snapshot_fini(kd_episode_snapshot *snap)
{
    if (!snap)
        return;
    free(snap->state);
    snap->state = NULL;
}

kd_err kd_engine_episode_read(kd_engine *engine, uint32_t id, kd_episode_snapshot *out)
{
    memset(out, 0, sizeof *out);
    uint8_t key[4];
    kd_put_u32be(key, id);
    MDB_txn *txn;
    kd_err err = read_begin(engine, &txn);
    if (err)
        return err;
    Kdapp__Store__EpisodeRecord *rec = NULL;
    MDB_val k = kd_val(key, 4), v;
    int rc = mdb_get(txn, engine->store.episodes, &k, &v);
    if (rc == MDB_NOTFOUND) {
        err = KD_ERR_NOT_FOUND;
        goto done;
    }
    if ((err = kd_store_err(rc, "read episode")))
        goto done;
    rec = kdapp__store__episode_record__unpack(NULL, v.mv_size, v.mv_data);
    if (!rec) {
        KD_LOG_E("engine", "episode %u: stored record does not decode", id);
        err = KD_ERR_STORE;
        goto done;
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
    out->last_event = (kd_event_kind)rec->last_event;
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
    if (rec)
        kdapp__store__episode_record__free_unpacked(rec, NULL);
    read_end(engine, txn);
    if (err)
        kd_episode_snapshot_fini(out);
    return err;
}

kd_err kd_engine_episode_ids(kd_engine *engine, uint32_t after, uint32_t *ids, size_t max, size_t *count)
{
    *count = 0;
    MDB_txn *txn;
    MDB_cursor *cur = NULL;
    kd_err err = read_begin(engine, &txn);
    if (err)
        return err;
    uint8_t key[4];
    kd_put_u32be(key, after);
    MDB_val k = kd_val(key, 4), v;
    int rc = mdb_cursor_open(txn, engine->store.episodes, &cur);
    if (rc)
        goto done;
    rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
    while (rc == 0 && *count < max) {
        uint32_t id = kd_get_u32be(k.mv_data);
        if (id > after)
            ids[(*count)++] = id;
        rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT);
    }
    if (rc == MDB_NOTFOUND)
        rc = 0;
done:
    err = kd_store_err(rc, "list episodes");
    if (cur)
        mdb_cursor_close(cur);
    read_end(engine, txn);
    return err;
}

kd_err kd_engine_log_get(kd_engine *engine, uint64_t seq, kd_buf *out)
{
    MDB_txn *txn;
    kd_err err = read_begin(engine, &txn);
    if (err)
        return err;
    uint8_t key[8];
    kd_put_u64be(key, seq);
    MDB_val k = kd_val(key, 8), v;
    int rc = mdb_get(txn, engine->store.log, &k, &v);
    if (rc == MDB_NOTFOUND)
        err = KD_ERR_NOT_FOUND;
    else if (!(err = kd_store_err(rc, "read log")))
        err = kd_buf_append(out, v.mv_data, v.mv_size);
    read_end(engine, txn);
    return err;
}

kd_err kd_engine_fingerprint(kd_engine *engine, uint8_t out[KD_HASH_LEN])
{
    kd_sha256_ctx sha;
    MDB_txn *txn = NULL;
    MDB_cursor *cur = NULL;
    kd_err err = kd_sha256_init(&sha);
    if (err)
        goto done;
    if ((err = read_begin(engine, &txn))) {
        txn = NULL;
        goto done;
    }
    kd_tip tip;
    if ((err = kd_engine_meta_tip(engine, txn, &tip, NULL)))
        goto done;
    kd_sha256_update(&sha, tip.digest, KD_HASH_LEN);
    int rc = mdb_cursor_open(txn, engine->store.episodes, &cur);
    MDB_val k, v;
    if (rc == 0)
        rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST);
    /* Only what the rules determine: not the log positions, which differ
     * between a live store and a replay of its canonical chain. */
    while (rc == 0) {
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
    if (txn)
        read_end(engine, txn);
    kd_sha256_fini(&sha);
    return err;
}

kd_err kd_engine_canonical_seqs(kd_engine *engine, uint64_t **seqs, size_t *count)
{
    *seqs = NULL;
    *count = 0;
    MDB_txn *txn;
    kd_err err = read_begin(engine, &txn);
    if (err)
        return err;
    kd_tip tip;
    uint8_t hash[KD_HASH_LEN];
    uint64_t *out = NULL;
    size_t n = 0;
    if ((err = kd_engine_meta_tip(engine, txn, &tip, NULL)) || !tip.has_tip)
        goto done;
    out = malloc((tip.height ? tip.height : 1) * sizeof *out);
    if (!out) {
        err = KD_ERR_NOMEM;
        goto done;
    }
    memcpy(hash, tip.hash, KD_HASH_LEN);
    for (;;) {
        MDB_val k = kd_val(hash, KD_HASH_LEN), v;
        if ((err = kd_store_err(mdb_get(txn, engine->store.blocks, &k, &v), "read block")))
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
    if (err == KD_ERR_NOT_FOUND)
        err = KD_ERR_STORE; /* a parent link to nowhere */
done:
    read_end(engine, txn);
    if (err) {
        free(out);
        return err;
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

kd_err kd_engine_metrics(kd_engine *engine, kd_metrics *out)
{
    MDB_txn *txn;
    kd_err err = read_begin(engine, &txn);
    if (err)
        return err;
    err = read_metrics(engine, txn, out);
    read_end(engine, txn);
    return err;
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
            out->err = o->applied ? KD_OK : kd_err_from_code(o->error_code);
            snprintf(out->detail, sizeof out->detail, "%s", o->applied ? "" : o->error);
            if (block && ba->accepting_hash.len == KD_HASH_LEN)
                memcpy(block, ba->accepting_hash.data, KD_HASH_LEN);
            found = 1;
        }
    }
    if (m)
        kdapp__engine_msg__free_unpacked(m, NULL);
    return found;
}

kd_err kd_engine_find_tx(kd_engine *engine, uint64_t after_seq, const uint8_t tx_id[KD_HASH_LEN], kd_tx_result *out,
                         uint8_t block[KD_HASH_LEN], uint64_t *seq)
{
    kd_tip tip;
    kd_err err = kd_engine_tip(engine, &tip);
    kd_buf buf;
    kd_buf_init(&buf);
    for (uint64_t s = after_seq + 1; !err && s <= tip.last_seq; s++) {
        buf.len = 0;
        if ((err = kd_engine_log_get(engine, s, &buf)))
            break;
        Kdapp__Store__LogEntry *le = kdapp__store__log_entry__unpack(NULL, buf.len, buf.data);
        if (!le) {
            err = KD_ERR_STORE;
            break;
        }
        int found = entry_has_tx(le, tx_id, out, block);
        kdapp__store__log_entry__free_unpacked(le, NULL);
        if (found) {
            if (seq)
                *seq = s;
            kd_buf_fini(&buf);
            return KD_OK;
        }
    }
    kd_buf_fini(&buf);
    return err ? err : KD_ERR_NOT_FOUND;
}
