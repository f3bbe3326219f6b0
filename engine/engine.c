/*
 * engine.c — opening an engine on a data directory (schema and settings
 * checks) and reading its meta. The read API used by tools, handlers and
 * the MCP gateway is in read.c; the writer half (apply, revert, pruning,
 * digest) in apply.c, revert.c and txn.c.
 */
#define _XOPEN_SOURCE 700 /* pthread_rwlockattr_setkind_np */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine_internal.h"
#include "engine/crashpoint.h"
#include "engine/crypto.h"
#include "engine/logger.h"
#include "kdapp.pb-c.h"
#include "store.pb-c.h"

void kd_tx_result_set_rejected(kd_tx_result *r, const char *code, const char *detail)
{
    if (!code || !code[0])
        code = kd_err_code(KD_ERR_RULE);
    kd_err err;
    r->applied = 0;
    r->err = kd_err_parse(code, &err) == KD_OK ? err : KD_ERR_RULE;
    snprintf(r->code, sizeof r->code, "%s", code);
    snprintf(r->detail, sizeof r->detail, "%s", detail ? detail : "");
}

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
    /* The unpruned blocks are exactly the applied blocks still in
     * `heights` (pruning and reverting delete their entries). */
    MDB_stat st;
    int src = mdb_stat(txn, s->heights, &st);
    if (src)
        return kd_store_err(src, "count heights");
    out->revertible = st.ms_entries;
    if (next_seq)
        *next_seq = next;
    return KD_OK;
}

kd_err kd_engine_meta_metrics(kd_engine *engine, MDB_txn *txn, kd_metrics *out)
{
    MDB_val k = kd_val(KD_META_METRICS, strlen(KD_META_METRICS)), v;
    memset(out, 0, sizeof *out);
    int rc = mdb_get(txn, engine->store.meta, &k, &v);
    if (rc == MDB_NOTFOUND)
        return KD_OK;
    if (rc)
        return kd_store_err(rc, "read metrics");
    if (kd_metrics_decode(v.mv_data, v.mv_size, out) != KD_OK)
        KD_LOG_W("engine", "the stored metrics cannot be read; counting from zero");
    return KD_OK;
}

/* The store id of an existing store (schema 2 writes it at creation). */
static kd_err read_store_id(MDB_txn *txn, const kd_store *s, uint8_t out[KD_STORE_ID_LEN], char *why, size_t why_len)
{
    MDB_val k = kd_val(KD_META_STORE_ID, strlen(KD_META_STORE_ID)), v;
    int rc = mdb_get(txn, s->meta, &k, &v);
    if (rc && rc != MDB_NOTFOUND)
        return kd_store_err(rc, "read store id");
    if (rc == MDB_NOTFOUND || v.mv_size != KD_STORE_ID_LEN) {
        snprintf(why, why_len, "data directory %s has no valid store id (%s): it is damaged", s->dir,
                 rc == MDB_NOTFOUND ? "none" : "not 16 bytes");
        return KD_ERR_STORE;
    }
    memcpy(out, v.mv_data, KD_STORE_ID_LEN);
    return KD_OK;
}

/* The chain the store follows (chain.h) into engine->chain: written when
 * the store is new (`want` when it names a chain, else the store's own
 * local chain); read, and checked against `want`, when it exists. A store
 * made before chains were named has none: it reads as its own local
 * chain, and a writable open naming a chain adopts that one (its log has
 * only v1 consents, which name no chain). */
static kd_err meta_chain(kd_engine *engine, MDB_txn *txn, const char *want, int created, char *why, size_t why_len)
{
    kd_store *s = &engine->store;
    MDB_val k = kd_val(KD_META_CHAIN, strlen(KD_META_CHAIN)), v;
    int named = want && want[0] && strcmp(want, KD_CHAIN_LOCAL) != 0;
    int rc = created ? MDB_NOTFOUND : mdb_get(txn, s->meta, &k, &v);
    if (rc && rc != MDB_NOTFOUND)
        return kd_store_err(rc, "read chain");
    if (rc == 0) {
        if (v.mv_size == 0 || v.mv_size >= KD_CHAIN_MAX) {
            snprintf(why, why_len, "data directory %s has no valid chain name (%zu bytes): it is damaged", s->dir,
                     v.mv_size);
            return KD_ERR_STORE;
        }
        memcpy(engine->chain, v.mv_data, v.mv_size);
        engine->chain[v.mv_size] = '\0';
        if (!kd_chain_valid(engine->chain)) {
            snprintf(why, why_len, "data directory %s names no valid chain ('%s'): it is damaged", s->dir,
                     engine->chain);
            return KD_ERR_STORE;
        }
    } else if (named && !s->read_only) {
        snprintf(engine->chain, sizeof engine->chain, "%s", want);
        if (!created)
            KD_LOG_I("engine", "data directory %s names no chain (made before chains were named): it follows %s now",
                     s->dir, want);
    } else {
        kd_chain_local(engine->store_id, engine->chain);
        if (!created && !kd_chain_matches(engine->chain, want)) {
            snprintf(why, why_len,
                     "data directory %s names no chain (made before chains were named), and read-only it reads as "
                     "%s, not %s",
                     s->dir, engine->chain, want);
            return KD_ERR_SETTINGS;
        }
        if (!created)
            return KD_OK; /* read as local, written only once an open names a chain */
    }
    if (rc == MDB_NOTFOUND) {
        MDB_val cv = kd_val(engine->chain, strlen(engine->chain));
        return kd_store_err(mdb_put(txn, s->meta, &k, &cv, 0), "write chain");
    }
    if (!kd_chain_matches(engine->chain, want)) {
        if (strcmp(want, KD_CHAIN_LOCAL) == 0)
            snprintf(why, why_len,
                     "data directory %s follows chain %s, not a local chain (a devnet's): a store follows one chain, "
                     "so give the devnet a new data directory",
                     s->dir, engine->chain);
        else
            snprintf(why, why_len,
                     "data directory %s follows chain %s, not %s: a store follows one chain (use a new data "
                     "directory for %s)",
                     s->dir, engine->chain, want, want);
        return KD_ERR_SETTINGS;
    }
    return KD_OK;
}

/* Checks (or, for a new store, writes) the schema version, the store id,
 * the settings and the chain. */
static kd_err check_meta(kd_engine *engine, uint64_t want_finality, const char *want_chain, char *why, size_t why_len)
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
    if (has_schema && (schema == 2 || schema == 3) && s->read_only) {
        snprintf(why, why_len,
                 "data directory %s has schema version %llu; this kdapp reads version %u: open it once with a "
                 "writing kdapp (kdapp engine --data %s), which upgrades it in place, then attach again",
                 s->dir, (unsigned long long)schema, KD_SCHEMA_VERSION, s->dir);
        err = KD_ERR_SCHEMA;
        goto fail;
    }
    if (has_schema && (schema == 2 || schema == 3)) { /* upgraded in this transaction: all or nothing */
        uint64_t from = schema;
        if ((schema == 2 && (err = kd_store_migrate_2_to_3(txn, s, why, why_len))) ||
            (err = kd_store_migrate_3_to_4(txn, s, why, why_len)) ||
            (err = meta_put_u64(txn, s->meta, KD_META_SCHEMA, KD_SCHEMA_VERSION))) {
            if (!why[0])
                snprintf(why, why_len, "cannot upgrade data directory %s from schema %llu to %u: %s", s->dir,
                         (unsigned long long)from, KD_SCHEMA_VERSION, kd_err_str(err));
            goto fail;
        }
        schema = KD_SCHEMA_VERSION;
        KD_CRASHPOINT("upgraded"); /* crash test: the upgrade written, not committed */
    }
    if (has_schema && schema != KD_SCHEMA_VERSION) {
        snprintf(why, why_len,
                 "data directory %s has schema version %llu; this kdapp reads version %u and upgrades "
                 "only versions 2 and 3 (replay its log with a matching kdapp, or use a new directory)",
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
        if ((err = kd_random_bytes(engine->store_id, KD_STORE_ID_LEN))) {
            snprintf(why, why_len, "cannot draw a store id for %s: the OS random generator failed", s->dir);
            goto fail;
        }
        MDB_val k = kd_val(KD_META_STORE_ID, strlen(KD_META_STORE_ID)), v = kd_val(engine->store_id, KD_STORE_ID_LEN);
        if ((err = meta_put_u64(txn, s->meta, KD_META_SCHEMA, KD_SCHEMA_VERSION)) ||
            (err = kd_store_err(mdb_put(txn, s->meta, &k, &v, 0), "write store id")) ||
            (err = meta_put_u64(txn, s->meta, KD_META_FINALITY, finality)) ||
            (err = meta_put_u64(txn, s->meta, KD_META_NEXT_SEQ, 1)))
            goto fail;
    } else if (!has_finality) {
        snprintf(why, why_len, "data directory %s has no finality setting: it is damaged", s->dir);
        err = KD_ERR_STORE;
        goto fail;
    } else if ((err = read_store_id(txn, s, engine->store_id, why, why_len))) {
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
    if ((err = meta_chain(engine, txn, want_chain, !has_schema, why, why_len)))
        goto fail;
    if ((err = kd_engine_meta_tip(engine, txn, &engine->tip, &engine->next_seq)))
        goto fail;
    if ((err = kd_engine_meta_metrics(engine, txn, &engine->metrics)))
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
    if ((err = kd_chain_check(opts->chain, why, why_len)))
        return err;
    kd_engine *engine = calloc(1, sizeof *engine);
    if (!engine)
        return KD_ERR_NOMEM;
    engine->registry = opts->registry;
    engine->store.lock_fd = -1;
    engine->store.readers_fd = -1;
    /* Writers first: readers arriving while a map change waits queue
     * behind it (read.c), so a busy gateway cannot starve it. */
    pthread_rwlockattr_t attr;
    int rc = pthread_rwlockattr_init(&attr);
    if (!rc) {
        rc = pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
        if (!rc)
            rc = pthread_rwlock_init(&engine->map_lock, &attr);
        pthread_rwlockattr_destroy(&attr);
    }
    if (rc) {
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
    if ((err = check_meta(engine, opts->finality_depth, opts->chain, why, why_len)))
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

kd_err kd_engine_store_id(kd_engine *e, uint8_t out[KD_STORE_ID_LEN])
{
    if (!e || !out)
        return KD_ERR_INVALID_ARG;
    memcpy(out, e->store_id, KD_STORE_ID_LEN);
    return KD_OK;
}

const char *kd_engine_chain(const kd_engine *e) { return e->chain; }
