/* metrics.c — histogram buckets, the stored form and Prometheus text. */
#include "engine/metrics.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const uint64_t bounds[KD_HIST_COUNT_][KD_HIST_BUCKETS] = {
    [KD_HIST_REORG_DEPTH] = {1, 2, 3, 4, 5, 6, 8, 10, 16, 32, 100, UINT64_MAX},
    [KD_HIST_UNDO_PER_REVERT] = {0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, UINT64_MAX},
    [KD_HIST_APPLY_US] = {100, 250, 500, 1000, 2500, 5000, 10000, 25000, 50000, 100000, 1000000, UINT64_MAX},
    [KD_HIST_REVERT_US] = {100, 250, 500, 1000, 2500, 5000, 10000, 25000, 50000, 100000, 1000000, UINT64_MAX},
};

static const char *const names[KD_HIST_COUNT_] = {
    [KD_HIST_REORG_DEPTH] = "kdapp_reorg_depth_blocks",
    [KD_HIST_UNDO_PER_REVERT] = "kdapp_undo_records_per_revert",
    [KD_HIST_APPLY_US] = "kdapp_apply_latency_seconds",
    [KD_HIST_REVERT_US] = "kdapp_revert_latency_seconds",
};

const uint64_t *kd_metrics_bounds(kd_hist_id id) { return bounds[id]; }

const char *kd_metrics_hist_name(kd_hist_id id) { return names[id]; }

void kd_histogram_observe(kd_histogram *h, kd_hist_id id, uint64_t value)
{
    h->count++;
    h->sum += value;
    for (int i = 0; i < KD_HIST_BUCKETS; i++) {
        if (value <= bounds[id][i]) {
            h->buckets[i]++;
            return;
        }
    }
}

#define N_WORDS (sizeof(kd_metrics) / sizeof(uint64_t))
_Static_assert(sizeof(kd_metrics) % sizeof(uint64_t) == 0, "kd_metrics is an array of uint64_t");

kd_err kd_metrics_encode(const kd_metrics *m, kd_buf *out)
{
    const uint64_t *w = (const uint64_t *)m;
    kd_err err = kd_buf_reserve(out, N_WORDS * 8);
    if (err)
        return err;
    for (size_t i = 0; i < N_WORDS; i++)
        kd_put_u64be(out->data + out->len + 8 * i, w[i]);
    out->len += N_WORDS * 8;
    return KD_OK;
}

kd_err kd_metrics_decode(const uint8_t *data, size_t len, kd_metrics *out)
{
    memset(out, 0, sizeof *out);
    if (len != N_WORDS * 8)
        return KD_ERR_DECODE;
    uint64_t *w = (uint64_t *)out;
    for (size_t i = 0; i < N_WORDS; i++)
        w[i] = kd_get_u64be(data + 8 * i);
    return KD_OK;
}

__attribute__((format(printf, 2, 3))) static kd_err put(kd_buf *out, const char *fmt, ...)
{
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    return n < 0 ? KD_ERR_INTERNAL : kd_buf_append(out, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

static kd_err counter(kd_buf *out, const char *name, const char *help, uint64_t v)
{
    kd_err err = put(out, "# HELP %s %s\n# TYPE %s counter\n", name, help, name);
    return err ? err : put(out, "%s %llu\n", name, (unsigned long long)v);
}

static kd_err histogram(kd_buf *out, const kd_metrics *m, kd_hist_id id, const char *help)
{
    const kd_histogram *h = &m->hist[id];
    int seconds = id == KD_HIST_APPLY_US || id == KD_HIST_REVERT_US;
    kd_err err = put(out, "# HELP %s %s\n# TYPE %s histogram\n", names[id], help, names[id]);
    uint64_t cum = 0;
    for (int i = 0; !err && i < KD_HIST_BUCKETS; i++) {
        cum += h->buckets[i];
        if (bounds[id][i] == UINT64_MAX)
            err = put(out, "%s_bucket{le=\"+Inf\"} %llu\n", names[id], (unsigned long long)cum);
        else if (seconds)
            err = put(out, "%s_bucket{le=\"%g\"} %llu\n", names[id], (double)bounds[id][i] / 1e6,
                      (unsigned long long)cum);
        else
            err = put(out, "%s_bucket{le=\"%llu\"} %llu\n", names[id], (unsigned long long)bounds[id][i],
                      (unsigned long long)cum);
    }
    if (!err && seconds)
        err = put(out, "%s_sum %g\n", names[id], (double)h->sum / 1e6);
    else if (!err)
        err = put(out, "%s_sum %llu\n", names[id], (unsigned long long)h->sum);
    return err ? err : put(out, "%s_count %llu\n", names[id], (unsigned long long)h->count);
}

kd_err kd_metrics_prometheus(const kd_metrics *m, uint64_t now_ms, kd_buf *out)
{
    kd_err err;
    if ((err = counter(out, "kdapp_blocks_applied_total", "Accepted blocks applied.", m->blocks_applied)) ||
        (err = counter(out, "kdapp_blocks_reverted_total", "Blocks rolled back by reorgs.", m->blocks_reverted)) ||
        (err = counter(out, "kdapp_duplicates_total", "Chain events delivered again and acknowledged without effect.",
                       m->duplicates)) ||
        (err = counter(out, "kdapp_txs_applied_total", "Transactions that changed an episode.", m->txs_applied)) ||
        (err = counter(out, "kdapp_refusals_total", "Chain events refused (not the tip, unknown, beyond finality).",
                       m->refusals)))
        return err;
    if ((err = put(out, "# HELP kdapp_txs_rejected_total Transactions rejected, by reason.\n"
                        "# TYPE kdapp_txs_rejected_total counter\n")))
        return err;
    for (int e = 0; e < KD_ERR_COUNT_ && !err; e++)
        if (m->rejections[e])
            err = put(out, "kdapp_txs_rejected_total{reason=\"%s\"} %llu\n", kd_err_code((kd_err)e),
                      (unsigned long long)m->rejections[e]);
    if (!err)
        err = put(out, "# HELP kdapp_events_refused_total Chain events refused, by reason.\n"
                       "# TYPE kdapp_events_refused_total counter\n");
    for (int e = 0; e < KD_ERR_COUNT_ && !err; e++)
        if (m->refused[e])
            err = put(out, "kdapp_events_refused_total{reason=\"%s\"} %llu\n", kd_err_code((kd_err)e),
                      (unsigned long long)m->refused[e]);
    if (err || (err = histogram(out, m, KD_HIST_REORG_DEPTH, "Blocks reverted by one reorg.")) ||
        (err = histogram(out, m, KD_HIST_UNDO_PER_REVERT, "Undo records applied by one block revert.")) ||
        (err = histogram(out, m, KD_HIST_APPLY_US, "Time to apply and commit one accepted block.")) ||
        (err = histogram(out, m, KD_HIST_REVERT_US, "Time to revert and commit one block.")))
        return err;
    double lag = m->tip_time_ms && now_ms > m->tip_time_ms ? (double)(now_ms - m->tip_time_ms) / 1000.0 : 0.0;
    err = put(out,
              "# HELP kdapp_tip_lag_seconds Wall clock minus the tip block's time.\n"
              "# TYPE kdapp_tip_lag_seconds gauge\nkdapp_tip_lag_seconds %.3f\n",
              lag);
    return err ? err : kd_buf_append(out, "", 1);
}
