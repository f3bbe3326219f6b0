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
 *
 * Rejections have two kinds of names: the engine's codes (err.h), counted
 * by enum, and the rule codes of the episode types ("cell_occupied"),
 * which the engine does not know in advance: those are counted by name in
 * a small fixed table (kd_code_counts), and a name past its
 * KD_METRICS_RULE_CODES entries is counted under the engine's "rule".
 * Both are stored the same way, as a CodeCount under the name, so counts
 * stored when those rule codes were engine codes (err.h) load into the
 * rule-code table under the same names.
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

#define KD_METRICS_RULE_CODES 64 /* distinct rule codes counted by name */
#define KD_METRICS_CODE_MAX 32   /* bytes of a counted name, NUL included (KD_RULE_CODE_MAX) */

/* A count under a type's rule code. */
typedef struct {
    char code[KD_METRICS_CODE_MAX]; /* "cell_occupied"; zero-padded */
    uint64_t count;
} kd_rule_count;

/* Counts by short code: the engine's codes by enum, the types' rule codes
 * by name in the order first counted. Plain data: zero it to start, copy
 * it by value. */
typedef struct {
    uint64_t engine[KD_ERR_COUNT_];
    kd_rule_count rules[KD_METRICS_RULE_CODES];
    size_t n_rules;
} kd_code_counts;

/* Adds `n` under a short code: `code` when `err` is KD_ERR_RULE (a type's
 * rule code; NULL, "rule", a name that is not 1..31 letters, digits or
 * '_', or a new name past a full table: under "rule"), else under `err`. */
void kd_code_counts_add(kd_code_counts *c, kd_err err, const char *code, uint64_t n);
/* Adds `n` under the name `code` as stored or sent: an engine code's name
 * goes to its enum, any other to the rule codes (as kd_code_counts_add). */
void kd_code_counts_add_name(kd_code_counts *c, const char *code, uint64_t n);
/* The count under a name (an engine code's or a rule code's); 0 when none. */
uint64_t kd_code_counts_get(const kd_code_counts *c, const char *code);
/* The sum of every count. */
uint64_t kd_code_counts_total(const kd_code_counts *c);
/* Walks the non-zero counts, engine codes in table order, then rule codes
 * in the order first counted: start with *pos = 0; returns 1 with *code
 * (valid while `c` is unchanged) and *count set, or 0 at the end. */
int kd_code_counts_next(const kd_code_counts *c, size_t *pos, const char **code, uint64_t *count);

/* In memory; stored by name (kd_metrics_encode). */
typedef struct {
    uint64_t blocks_applied;
    uint64_t blocks_reverted;
    uint64_t duplicates;
    uint64_t txs_applied;
    uint64_t txs_rejected;
    uint64_t refusals;
    kd_code_counts rejections;       /* txs rejected, by reason (engine or rule code) */
    uint64_t refused[KD_ERR_COUNT_]; /* chain events refused, by reason */
    uint64_t revert_streak;          /* reverts since the last accept */
    uint64_t tip_time_ms;            /* block time of the tip */
    uint64_t source_tip_time_ms;     /* the chain source's tip time, as a feeder last told (0: never) */
    uint64_t last_commit_ms;         /* wall clock of the last commit */
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

/* The lag behind the feeder's chain source: source_tip_time_ms minus
 * tip_time_ms, 0 when not ahead or never told. */
uint64_t kd_metrics_source_lag_ms(const kd_metrics *m);

/* Prometheus text exposition format (appended, NUL-terminated). `now_ms`
 * is the wall clock for the lag gauge. */
kd_err kd_metrics_prometheus(const kd_metrics *m, uint64_t now_ms, kd_buf *out) KD_WARN_UNUSED;

#endif
