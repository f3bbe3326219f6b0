/*
 * engine_internal.h — the engine handle, shared by engine.c (open, meta,
 * reads) and apply.c (the single writer). Not for use outside engine/.
 */
#ifndef KD_ENGINE_ENGINE_INTERNAL_H
#define KD_ENGINE_ENGINE_INTERNAL_H

#include <pthread.h>

#include "engine/engine.h"
#include "engine/metrics.h"
#include "engine/sigcheck.h"
#include "engine/store.h"

/* meta keys */
#define KD_META_SCHEMA "schema"
#define KD_META_FINALITY "finality"
#define KD_META_TIP "tip"
#define KD_META_HEIGHT "height"
#define KD_META_DIGEST "digest"
#define KD_META_NEXT_SEQ "next_seq"
#define KD_META_METRICS "metrics"

struct kd_engine {
    kd_store store;
    const kd_registry *registry;
    uint64_t finality;
    kd_commit_fn listener;
    void *listener_ctx;
    /* Writer's view of meta, loaded at open and updated after each commit. */
    kd_tip tip;
    uint64_t next_seq;
    /* Writer's metrics, stored with every commit (metrics.h). */
    kd_metrics metrics;
    int metrics_unsaved; /* changed since the last commit (duplicates, latency) */
    /* Signature verdicts computed ahead of the writer (sigcheck.h), or NULL. */
    kd_sig_batch *sig_batch;
    int trust_replayed_signatures; /* kd_engine_trust_replayed_signatures */
    uint64_t last_commit_us;       /* duration of the last mdb_txn_commit */
    /* In-process readers hold it shared for their (short) read transaction;
     * the writer holds it exclusively only to grow the map, which LMDB
     * forbids while this process has a transaction open. */
    pthread_rwlock_t map_lock;
};

/* Stores the writer's metrics in a transaction of their own (at close). */
void kd_engine_save_metrics(kd_engine *engine);

/* Reads the tip meta inside `txn`. */
kd_err kd_engine_meta_tip(kd_engine *engine, MDB_txn *txn, kd_tip *out, uint64_t *next_seq) KD_WARN_UNUSED;

#endif
