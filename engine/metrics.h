/*
 * metrics.h — the engine's counters and histograms (DESIGN.md,
 * Observability): blocks applied and reverted, reorg depth, undo records
 * per revert, apply and revert latency, duplicates, rejections and
 * refusals by reason, and lag behind the chain tip.
 *
 * The writer updates them inside each commit and stores them in the meta
 * database (key "metrics") in the same transaction, so they survive
 * restarts and any process can read them (`kdapp stats`, the gateway's
 * /metrics) without talking to the daemon. Duplicates, which write
 * nothing, are carried over to the next commit.
 *
 * The stored form (store.proto's Metrics) names each error code and
 * histogram: the enums below and in err.h index the arrays in memory only,
 * so adding a code or a histogram anywhere changes no stored count.
 */
#ifndef KD_ENGINE_METRICS_H
#define KD_ENGINE_METRICS_H

#include <stdint.h>

#include "engine/bytes.h"
#include "engine/err.h"

#define KD_HIST_BUCKETS 12

/* Cumulative histogram with fixed upper bounds (see kd_metrics_bounds). */
typedef struct {
    uint64_t count;
    uint64_t sum;
    uint64_t buckets[KD_HIST_BUCKETS]; /* observations <= bound[i] (not cumulative) */
} kd_histogram;

typedef enum {
    KD_HIST_REORG_DEPTH = 0, /* blocks reverted before the next accept */
    KD_HIST_UNDO_PER_REVERT, /* undo records applied by one revert */
    KD_HIST_APPLY_US,        /* accept latency, microseconds, commit included */
    KD_HIST_REVERT_US,       /* revert latency, microseconds, commit included */
    KD_HIST_COUNT_
} kd_hist_id;

/* In memory; stored by name (kd_metrics_encode). */
typedef struct {
    uint64_t blocks_applied;
    uint64_t blocks_reverted;
    uint64_t duplicates;
    uint64_t txs_applied;
    uint64_t txs_rejected;
    uint64_t refusals;
    uint64_t rejections[KD_ERR_COUNT_]; /* txs rejected, by reason */
    uint64_t refused[KD_ERR_COUNT_];    /* chain events refused, by reason */
    uint64_t revert_streak;             /* reverts since the last accept */
    uint64_t tip_time_ms;               /* block time of the tip */
    uint64_t last_commit_ms;            /* wall clock of the last commit */
    kd_histogram hist[KD_HIST_COUNT_];
} kd_metrics;

/* Upper bounds of a histogram's buckets (KD_HIST_BUCKETS values). */
const uint64_t *kd_metrics_bounds(kd_hist_id id);
const char *kd_metrics_hist_name(kd_hist_id id);
void kd_histogram_observe(kd_histogram *h, kd_hist_id id, uint64_t value);

/* Stored form (store.proto's Metrics), appended to `out`. */
kd_err kd_metrics_encode(const kd_metrics *m, kd_buf *out) KD_WARN_UNUSED;
/* Reads a stored form: store.proto's Metrics, or the positional layout of
 * earlier versions. Counts under codes or histograms this build does not
 * know are left out with a warning. Errors: KD_ERR_DECODE (neither; the
 * caller starts from zero). */
kd_err kd_metrics_decode(const uint8_t *data, size_t len, kd_metrics *out) KD_WARN_UNUSED;

/* Prometheus text exposition format (appended, NUL-terminated). `now_ms`
 * is the wall clock for the lag gauge. */
kd_err kd_metrics_prometheus(const kd_metrics *m, uint64_t now_ms, kd_buf *out) KD_WARN_UNUSED;

#endif
