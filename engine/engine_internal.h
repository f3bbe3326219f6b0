/*
 * engine_internal.h — the engine handle, shared by engine.c (open, meta),
 * read.c (read handles, the map lock) and apply.c, revert.c, txn.c (the
 * single writer). Not for use outside engine/.
 */
#ifndef KD_ENGINE_ENGINE_INTERNAL_H
#define KD_ENGINE_ENGINE_INTERNAL_H

#include <pthread.h>

#include "engine/chain.h"
#include "engine/crypto.h"
#include "engine/engine.h"
#include "engine/metrics.h"
#include "engine/sigcheck.h"
#include "engine/store.h"

/* meta keys */
#define KD_META_SCHEMA "schema"
#define KD_META_STORE_ID "store_id"
#define KD_META_CHAIN "chain"
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
    uint8_t store_id[KD_STORE_ID_LEN]; /* read (or made) at open; never changes */
    char chain[KD_CHAIN_MAX];          /* the chain it follows (chain.h); set at open, never changes */
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
    /* LMDB forbids changing the map size while any transaction of this
     * process is open. So every transaction holds map_lock shared: each
     * read handle from begin to end, each write transaction of the writer
     * from begin to commit or abort. The size changes only under it
     * exclusively: the writer growing a full map (kd_engine_map_grow,
     * holding no transaction), or a reader adopting a map another process
     * grew (kd_engine_read_begin, after releasing its shared hold, then
     * checking map_generation again: another reader may have adopted it
     * meanwhile). Writers are preferred, so readers cannot starve either;
     * the protocol is drawn in read.c. */
    pthread_rwlock_t map_lock;
    uint64_t map_generation; /* map size changes; read shared, written exclusive */
};

/* The map lock, shared: around each write transaction of the writer. */
kd_err kd_engine_map_hold(kd_engine *engine) KD_WARN_UNUSED;
void kd_engine_map_release(kd_engine *engine);
/* Grows a full map with the map lock exclusive. The caller (the writer)
 * holds no transaction. Errors: as kd_store_grow. */
kd_err kd_engine_map_grow(kd_engine *engine) KD_WARN_UNUSED;

/* Stores the writer's metrics in a transaction of their own (at close). */
void kd_engine_save_metrics(kd_engine *engine);

/* Reads the tip meta inside `txn`. */
kd_err kd_engine_meta_tip(kd_engine *engine, MDB_txn *txn, kd_tip *out, uint64_t *next_seq) KD_WARN_UNUSED;
/* Reads the stored metrics inside `txn` (zero when absent or unreadable,
 * with a warning). */
kd_err kd_engine_meta_metrics(kd_engine *engine, MDB_txn *txn, kd_metrics *out) KD_WARN_UNUSED;

#endif
