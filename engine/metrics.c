/* metrics.c — histogram buckets, the stored form and Prometheus text. */
#include "engine/metrics.h"

#include <stdio.h>
#include <string.h>

#include "engine/logger.h"
#include "store.pb-c.h"

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

/* ------------------------------------------------------------ code counts */

/* A name that may be counted, shown and exported as it is: 1..31 bytes
 * of letters, digits and '_' (stored names come from disk). */
static int countable_name(const char *code)
{
    size_t n = code ? strlen(code) : 0;
    if (n == 0 || n >= KD_METRICS_CODE_MAX)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char ch = code[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_'))
            return 0;
    }
    return 1;
}

void kd_code_counts_add(kd_code_counts *c, kd_err err, const char *code, uint64_t n)
{
    kd_err named;
    if (err != KD_ERR_RULE || !countable_name(code)) {
        if ((unsigned)err < KD_ERR_COUNT_)
            c->engine[err] += n;
        return;
    }
    if (kd_err_parse(code, &named) == KD_OK) { /* "rule", or a type that took an engine name */
        c->engine[named] += n;
        return;
    }
    for (size_t i = 0; i < c->n_rules; i++) {
        if (strcmp(c->rules[i].code, code) == 0) {
            c->rules[i].count += n;
            return;
        }
    }
    if (c->n_rules == KD_METRICS_RULE_CODES) {
        c->engine[KD_ERR_RULE] += n;
        return;
    }
    kd_rule_count *r = &c->rules[c->n_rules++];
    memset(r->code, 0, sizeof r->code);
    memcpy(r->code, code, strlen(code));
    r->count = n;
}

void kd_code_counts_add_name(kd_code_counts *c, const char *code, uint64_t n)
{
    kd_err e;
    if (code && kd_err_parse(code, &e) == KD_OK)
        c->engine[e] += n;
    else
        kd_code_counts_add(c, KD_ERR_RULE, code, n);
}

uint64_t kd_code_counts_get(const kd_code_counts *c, const char *code)
{
    kd_err e;
    if (!code)
        return 0;
    if (kd_err_parse(code, &e) == KD_OK)
        return c->engine[e];
    for (size_t i = 0; i < c->n_rules; i++)
        if (strcmp(c->rules[i].code, code) == 0)
            return c->rules[i].count;
    return 0;
}

uint64_t kd_code_counts_total(const kd_code_counts *c)
{
    uint64_t sum = 0;
    for (int e = 0; e < KD_ERR_COUNT_; e++)
        sum += c->engine[e];
    for (size_t i = 0; i < c->n_rules; i++)
        sum += c->rules[i].count;
    return sum;
}

int kd_code_counts_next(const kd_code_counts *c, size_t *pos, const char **code, uint64_t *count)
{
    for (; *pos < (size_t)KD_ERR_COUNT_ + c->n_rules; (*pos)++) {
        size_t i = *pos;
        uint64_t n = i < KD_ERR_COUNT_ ? c->engine[i] : c->rules[i - KD_ERR_COUNT_].count;
        if (!n)
            continue;
        *code = i < KD_ERR_COUNT_ ? kd_err_code((kd_err)i) : c->rules[i - KD_ERR_COUNT_].code;
        *count = n;
        (*pos)++;
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------------ stored form
 *
 * The stored form is store.proto's Metrics: plain counters by field
 * number, counts per error code under the code's short name (an engine
 * code's or a type's rule code's), histograms under their names with
 * their bounds. Nothing depends on the order of the kd_err or kd_hist_id
 * enums, so a code added anywhere in err.h keeps every stored count with
 * the code it counted; a rejection under a name the engine does not know
 * is a type's rule code and is read into the rule-code table.
 *
 * The layout before it was the struct itself as big-endian u64 words, the
 * per-code arrays indexed by the enum of that time. Stores written so are
 * still read, by the frozen order below: a blob of exactly that size whose
 * first byte is 0 (a protobuf encoding never starts with a zero byte).
 */

/* KD_ERR_TABLE's order when metrics were stored by position. Frozen: do
 * not edit, even when err.h changes. */
static const char *const legacy_codes[] = {
    "ok",
    "no_memory",
    "invalid_argument",
    "io",
    "no_space",
    "store",
    "map_full",
    "schema_mismatch",
    "settings_mismatch",
    "locked",
    "not_found",
    "too_large",
    "decode",
    "parse",
    "unknown_type",
    "unknown_episode",
    "episode_exists",
    "bad_episode_id",
    "bad_participants",
    "bad_params",
    "bad_command",
    "bad_pubkey",
    "bad_signature",
    "game_over",
    "out_of_bounds",
    "wrong_turn",
    "unauthorised",
    "cell_occupied",
    "bad_hash",
    "unknown_block",
    "not_tip",
    "beyond_finality",
    "bad_key",
    "exists",
    "network",
    "timeout",
    "closed",
    "busy",
    "unsupported",
    "internal",
};
#define LEGACY_CODES (sizeof legacy_codes / sizeof legacy_codes[0])
/* blocks_applied .. refusals, rejections, refused, revert_streak,
 * tip_time_ms, last_commit_ms, then per histogram count, sum, buckets. */
#define LEGACY_WORDS (6 + 2 * LEGACY_CODES + 3 + 4 * (2 + KD_HIST_BUCKETS))

#define MAX_CODE_COUNTS (KD_ERR_COUNT_ + KD_METRICS_RULE_CODES)

/* Appends one CodeCount (when non-zero) at cc[*n]. */
static void code_count(const char *code, uint64_t count, Kdapp__Store__CodeCount *cc, Kdapp__Store__CodeCount **ptrs,
                       size_t *n)
{
    if (!count)
        return;
    Kdapp__Store__CodeCount init = KDAPP__STORE__CODE_COUNT__INIT;
    cc[*n] = init;
    cc[*n].code = (char *)code;
    cc[*n].count = count;
    ptrs[*n] = &cc[*n];
    (*n)++;
}

/* Keeps the non-zero counts of a per-code array as CodeCounts; returns
 * how many. */
static size_t code_counts(const uint64_t *counts, Kdapp__Store__CodeCount *cc, Kdapp__Store__CodeCount **ptrs)
{
    size_t n = 0;
    for (int e = 0; e < KD_ERR_COUNT_; e++)
        code_count(kd_err_code((kd_err)e), counts[e], cc, ptrs, &n);
    return n;
}

/* The same for engine and rule codes. */
static size_t all_code_counts(const kd_code_counts *c, Kdapp__Store__CodeCount *cc, Kdapp__Store__CodeCount **ptrs)
{
    size_t n = 0, pos = 0;
    const char *code;
    uint64_t count;
    while (kd_code_counts_next(c, &pos, &code, &count))
        code_count(code, count, cc, ptrs, &n);
    return n;
}

kd_err kd_metrics_encode(const kd_metrics *m, kd_buf *out)
{
    Kdapp__Store__Metrics rec = KDAPP__STORE__METRICS__INIT;
    Kdapp__Store__CodeCount rej[MAX_CODE_COUNTS], ref[KD_ERR_COUNT_], *rej_p[MAX_CODE_COUNTS], *ref_p[KD_ERR_COUNT_];
    Kdapp__Store__Histogram hist[KD_HIST_COUNT_], *hist_p[KD_HIST_COUNT_];
    rec.blocks_applied = m->blocks_applied;
    rec.blocks_reverted = m->blocks_reverted;
    rec.duplicates = m->duplicates;
    rec.txs_applied = m->txs_applied;
    rec.txs_rejected = m->txs_rejected;
    rec.refusals = m->refusals;
    rec.n_rejections = all_code_counts(&m->rejections, rej, rej_p);
    rec.rejections = rej_p;
    rec.n_refused = code_counts(m->refused, ref, ref_p);
    rec.refused = ref_p;
    rec.revert_streak = m->revert_streak;
    rec.tip_time_ms = m->tip_time_ms;
    rec.source_tip_time_ms = m->source_tip_time_ms;
    rec.last_commit_ms = m->last_commit_ms;
    for (int h = 0; h < KD_HIST_COUNT_; h++) {
        Kdapp__Store__Histogram init = KDAPP__STORE__HISTOGRAM__INIT;
        hist[h] = init;
        hist[h].name = (char *)names[h];
        hist[h].count = m->hist[h].count;
        hist[h].sum = m->hist[h].sum;
        hist[h].n_bounds = KD_HIST_BUCKETS;
        hist[h].bounds = (uint64_t *)bounds[h];
        hist[h].n_buckets = KD_HIST_BUCKETS;
        hist[h].buckets = (uint64_t *)m->hist[h].buckets;
        hist_p[h] = &hist[h];
    }
    rec.n_histograms = KD_HIST_COUNT_;
    rec.histograms = hist_p;
    size_t n = kdapp__store__metrics__get_packed_size(&rec);
    kd_err err = kd_buf_reserve(out, n);
    if (err)
        return err;
    kdapp__store__metrics__pack(&rec, out->data + out->len);
    out->len += n;
    return KD_OK;
}

/* Adds a count to the engine code named `code`; 0, or -1 for a code this
 * build does not know. */
static int add_count(uint64_t *counts, const char *code, uint64_t count)
{
    kd_err e;
    if (kd_err_parse(code, &e) != KD_OK)
        return -1;
    counts[e] += count;
    return 0;
}

static int hist_of(const char *name, kd_hist_id *out)
{
    for (int h = 0; h < KD_HIST_COUNT_; h++) {
        if (name && strcmp(names[h], name) == 0) {
            *out = (kd_hist_id)h;
            return 0;
        }
    }
    return -1;
}

static kd_err decode_legacy(const uint8_t *data, kd_metrics *out, size_t *dropped)
{
    static const char *const legacy_hists[] = {"kdapp_reorg_depth_blocks", "kdapp_undo_records_per_revert",
                                               "kdapp_apply_latency_seconds", "kdapp_revert_latency_seconds"};
    uint64_t w[LEGACY_WORDS];
    for (size_t i = 0; i < LEGACY_WORDS; i++)
        w[i] = kd_get_u64be(data + 8 * i);
    const uint64_t *p = w;
    out->blocks_applied = *p++;
    out->blocks_reverted = *p++;
    out->duplicates = *p++;
    out->txs_applied = *p++;
    out->txs_rejected = *p++;
    out->refusals = *p++;
    for (size_t i = 0; i < LEGACY_CODES; i++, p++)
        if (*p)
            kd_code_counts_add_name(&out->rejections, legacy_codes[i], *p);
    for (size_t i = 0; i < LEGACY_CODES; i++, p++)
        *dropped += *p && add_count(out->refused, legacy_codes[i], *p) != 0;
    out->revert_streak = *p++;
    out->tip_time_ms = *p++;
    out->last_commit_ms = *p++;
    for (size_t i = 0; i < 4; i++, p += 2 + KD_HIST_BUCKETS) {
        kd_hist_id h;
        if (hist_of(legacy_hists[i], &h) != 0) {
            *dropped += 1;
            continue;
        }
        out->hist[h].count = p[0];
        out->hist[h].sum = p[1];
        memcpy(out->hist[h].buckets, p + 2, sizeof out->hist[h].buckets);
    }
    return KD_OK;
}

kd_err kd_metrics_decode(const uint8_t *data, size_t len, kd_metrics *out)
{
    memset(out, 0, sizeof *out);
    size_t dropped = 0;
    if (len == 8 * LEGACY_WORDS && data[0] == 0) {
        decode_legacy(data, out, &dropped);
        KD_LOG_I("metrics", "read the stored metrics in the layout before codes were stored by name");
        goto done;
    }
    Kdapp__Store__Metrics *rec = kdapp__store__metrics__unpack(NULL, len, data);
    if (!rec) {
        KD_LOG_W("metrics", "the stored metrics (%zu bytes) do not decode", len);
        return KD_ERR_DECODE;
    }
    out->blocks_applied = rec->blocks_applied;
    out->blocks_reverted = rec->blocks_reverted;
    out->duplicates = rec->duplicates;
    out->txs_applied = rec->txs_applied;
    out->txs_rejected = rec->txs_rejected;
    out->refusals = rec->refusals;
    for (size_t i = 0; i < rec->n_rejections; i++)
        kd_code_counts_add_name(&out->rejections, rec->rejections[i]->code, rec->rejections[i]->count);
    for (size_t i = 0; i < rec->n_refused; i++)
        dropped += add_count(out->refused, rec->refused[i]->code, rec->refused[i]->count) != 0;
    out->revert_streak = rec->revert_streak;
    out->tip_time_ms = rec->tip_time_ms;
    out->source_tip_time_ms = rec->source_tip_time_ms;
    out->last_commit_ms = rec->last_commit_ms;
    for (size_t i = 0; i < rec->n_histograms; i++) {
        const Kdapp__Store__Histogram *sh = rec->histograms[i];
        kd_hist_id h;
        /* Buckets with other bounds would mean other things: left out. */
        if (hist_of(sh->name, &h) != 0 || sh->n_bounds != KD_HIST_BUCKETS || sh->n_buckets != KD_HIST_BUCKETS ||
            memcmp(sh->bounds, bounds[h], sizeof bounds[h]) != 0) {
            dropped++;
            continue;
        }
        out->hist[h].count = sh->count;
        out->hist[h].sum = sh->sum;
        memcpy(out->hist[h].buckets, sh->buckets, sizeof out->hist[h].buckets);
    }
    kdapp__store__metrics__free_unpacked(rec, NULL);
done:
    if (dropped)
        KD_LOG_W("metrics",
                 "%zu stored counts are under refusal codes or histograms this kdapp does not know (a newer "
                 "kdapp's?), or in buckets with other bounds; they are left out",
                 dropped);
    return KD_OK;
}

static kd_err counter(kd_buf *out, const char *name, const char *help, uint64_t v)
{
    kd_err err = kd_buf_appendf(out, "# HELP %s %s\n# TYPE %s counter\n", name, help, name);
    return err ? err : kd_buf_appendf(out, "%s %llu\n", name, (unsigned long long)v);
}

static kd_err histogram(kd_buf *out, const kd_metrics *m, kd_hist_id id, const char *help)
{
    const kd_histogram *h = &m->hist[id];
    int seconds = id == KD_HIST_APPLY_US || id == KD_HIST_REVERT_US;
    kd_err err = kd_buf_appendf(out, "# HELP %s %s\n# TYPE %s histogram\n", names[id], help, names[id]);
    uint64_t cum = 0;
    for (int i = 0; !err && i < KD_HIST_BUCKETS; i++) {
        cum += h->buckets[i];
        if (bounds[id][i] == UINT64_MAX)
            err = kd_buf_appendf(out, "%s_bucket{le=\"+Inf\"} %llu\n", names[id], (unsigned long long)cum);
        else if (seconds)
            err = kd_buf_appendf(out, "%s_bucket{le=\"%g\"} %llu\n", names[id], (double)bounds[id][i] / 1e6,
                                 (unsigned long long)cum);
        else
            err = kd_buf_appendf(out, "%s_bucket{le=\"%llu\"} %llu\n", names[id], (unsigned long long)bounds[id][i],
                                 (unsigned long long)cum);
    }
    if (!err && seconds)
        err = kd_buf_appendf(out, "%s_sum %g\n", names[id], (double)h->sum / 1e6);
    else if (!err)
        err = kd_buf_appendf(out, "%s_sum %llu\n", names[id], (unsigned long long)h->sum);
    return err ? err : kd_buf_appendf(out, "%s_count %llu\n", names[id], (unsigned long long)h->count);
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
    if ((err = kd_buf_appendf(out, "# HELP kdapp_txs_rejected_total Transactions rejected, by reason.\n"
                                   "# TYPE kdapp_txs_rejected_total counter\n")))
        return err;
    size_t pos = 0;
    const char *code;
    uint64_t count;
    while (!err && kd_code_counts_next(&m->rejections, &pos, &code, &count))
        err = kd_buf_appendf(out, "kdapp_txs_rejected_total{reason=\"%s\"} %llu\n", code, (unsigned long long)count);
    if (!err)
        err = kd_buf_appendf(out, "# HELP kdapp_events_refused_total Chain events refused, by reason.\n"
                                  "# TYPE kdapp_events_refused_total counter\n");
    for (int e = 0; e < KD_ERR_COUNT_ && !err; e++)
        if (m->refused[e])
            err = kd_buf_appendf(out, "kdapp_events_refused_total{reason=\"%s\"} %llu\n", kd_err_code((kd_err)e),
                                 (unsigned long long)m->refused[e]);
    if (err || (err = histogram(out, m, KD_HIST_REORG_DEPTH, "Blocks reverted by one reorg.")) ||
        (err = histogram(out, m, KD_HIST_UNDO_PER_REVERT, "Undo records applied by one block revert.")) ||
        (err = histogram(out, m, KD_HIST_APPLY_US, "Time to apply and commit one accepted block.")) ||
        (err = histogram(out, m, KD_HIST_REVERT_US, "Time to revert and commit one block.")))
        return err;
    double lag = m->tip_time_ms && now_ms > m->tip_time_ms ? (double)(now_ms - m->tip_time_ms) / 1000.0 : 0.0;
    err = kd_buf_appendf(out,
                         "# HELP kdapp_tip_lag_seconds Wall clock minus the tip block's time.\n"
                         "# TYPE kdapp_tip_lag_seconds gauge\nkdapp_tip_lag_seconds %.3f\n",
                         lag);
    if (!err && m->source_tip_time_ms) /* only when a feeder with a chain source told it */
        err = kd_buf_appendf(out,
                             "# HELP kdapp_source_lag_seconds The chain source's tip time (e.g. a Kaspa node's sink) "
                             "minus the tip block's time, as the feeder last told.\n"
                             "# TYPE kdapp_source_lag_seconds gauge\nkdapp_source_lag_seconds %.3f\n",
                             (double)kd_metrics_source_lag_ms(m) / 1000.0);
    return err ? err : kd_buf_append(out, "", 1);
}

uint64_t kd_metrics_source_lag_ms(const kd_metrics *m)
{
    return m->source_tip_time_ms > m->tip_time_ms && m->tip_time_ms ? m->source_tip_time_ms - m->tip_time_ms : 0;
}
