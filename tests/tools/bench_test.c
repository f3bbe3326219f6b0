/* bench_test.c — the paired comparisons of `kdapp bench` (tools/bench/bench.c)
 * with scripted sides: pairs alternate subject and baseline after one
 * warm-up run each, the ratio is the median of the pairs' ratios with its
 * min–max, the verdicts (met, SHORT, WIDE, none) and the count of missed
 * targets, a failing run, what is recorded for --json, and the statistics. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "tools/bench/bench.h"

/* A scripted side: run k of side s returns values[s][k] (one metric). */
typedef struct {
    double values[2][8];
    int runs[2];
    char order[32]; /* the sides in the order they ran: "0101…" */
    int fail_at;    /* the run (in order) that fails; -1: none */
} script;

static int scripted(void *ctx, int side, double *out, char *why, size_t why_len)
{
    script *s = ctx;
    size_t n = strlen(s->order);
    if ((int)n == s->fail_at) {
        snprintf(why, why_len, "scripted failure");
        return -1;
    }
    s->order[n] = (char)('0' + side);
    out[0] = s->values[side][s->runs[side]++];
    return 0;
}

static kd_bench_ctx ctx_for(FILE *out, json_t *results)
{
    return (kd_bench_ctx){.repeats = 5, .run_s = 0.01, .max_spread = 0.25, .results = results, .out = out};
}

static kd_bench_pair pair_for(script *s, double target, int higher_is_better)
{
    return (kd_bench_pair){.id = "t",
                           .scenario = "scripted",
                           .subject = "ours",
                           .baseline = "floor",
                           .metrics = {{"throughput", "ops/s", target, higher_is_better}},
                           .n_metrics = 1,
                           .run = scripted,
                           .ctx = s};
}

static const json_t *metric0(const json_t *results, size_t i)
{
    return json_array_get(json_object_get(json_array_get(results, i), "metrics"), 0);
}

Test(bench, pairs_alternate_after_a_warm_up_and_the_median_ratio_decides)
{
    FILE *out = tmpfile();
    json_t *results = json_array();
    kd_bench_ctx b = ctx_for(out, results);
    /* warm-up first (index 0), then five pairs with ratios 0.8 0.9 1.0 1.1 1.2 */
    script s = {.values = {{99, 8, 9, 10, 11, 12}, {1, 10, 10, 10, 10, 10}}, .fail_at = -1};
    kd_bench_pair p = pair_for(&s, 0.95, 1);
    cr_assert_eq(kd_bench_paired(&b, &p), 0);
    cr_assert_str_eq(s.order, "010101010101");
    const json_t *m = metric0(results, 0);
    const json_t *ratio = json_object_get(m, "ratio");
    cr_assert_float_eq(json_real_value(json_object_get(ratio, "median")), 1.0, 1e-9);
    cr_assert_float_eq(json_real_value(json_object_get(ratio, "min")), 0.8, 1e-9);
    cr_assert_float_eq(json_real_value(json_object_get(ratio, "max")), 1.2, 1e-9);
    /* spread (1.2 - 0.8) / 1.0 = 40 % > 25 %: too noisy to judge */
    cr_assert_str_eq(json_string_value(json_object_get(m, "verdict")), "WIDE");
    cr_assert_float_eq(json_real_value(json_object_get(json_object_get(m, "subject"), "median")), 10, 1e-9);
    json_decref(results);
    fclose(out);
}

Test(bench, a_tight_comparison_is_met_or_short_and_short_counts_as_missed)
{
    FILE *out = tmpfile();
    json_t *results = json_array();
    kd_bench_ctx b = ctx_for(out, results);
    script met = {.values = {{1, 10, 10, 11, 10, 10}, {1, 20, 20, 20, 20, 20}}, .fail_at = -1};
    kd_bench_pair p = pair_for(&met, 0.5, 1);
    cr_assert_eq(kd_bench_paired(&b, &p), 0);
    cr_assert_str_eq(json_string_value(json_object_get(metric0(results, 0), "verdict")), "met");
    /* lower is better: a latency 2.1 times its floor misses a target of 2 */
    script slow = {.values = {{1, 21, 21, 21, 21, 21}, {1, 10, 10, 10, 10, 10}}, .fail_at = -1};
    p = pair_for(&slow, 2.0, 0);
    cr_assert_eq(kd_bench_paired(&b, &p), 1);
    cr_assert_str_eq(json_string_value(json_object_get(metric0(results, 1), "verdict")), "SHORT");
    /* no target: reported, never judged */
    script plain = {.values = {{1, 21, 21, 21, 21, 21}, {1, 10, 10, 10, 10, 10}}, .fail_at = -1};
    p = pair_for(&plain, 0, 0);
    cr_assert_eq(kd_bench_paired(&b, &p), 0);
    cr_assert_str_eq(json_string_value(json_object_get(metric0(results, 2), "verdict")), "");
    json_decref(results);
    fclose(out);
}

Test(bench, a_failed_run_misses_every_target_and_says_why)
{
    char text[4096] = "";
    FILE *out = fmemopen(text, sizeof text - 1, "w");
    json_t *results = json_array();
    kd_bench_ctx b = ctx_for(out, results);
    script s = {.values = {{1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1}}, .fail_at = 5};
    kd_bench_pair p = pair_for(&s, 1.0, 1);
    cr_assert_eq(kd_bench_paired(&b, &p), 1);
    fflush(out);
    cr_assert(strstr(text, "FAILED: scripted failure"), "%s", text);
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(results, 0), "error")), "scripted failure");
    json_decref(results);
    fclose(out);
}

Test(bench, quick_marks_every_line)
{
    char text[4096] = "";
    FILE *out = fmemopen(text, sizeof text - 1, "w");
    kd_bench_ctx b = ctx_for(out, NULL);
    b.quick = 1;
    script s = {.values = {{1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1}}, .fail_at = -1};
    kd_bench_pair p = pair_for(&s, 1.0, 1);
    kd_bench_paired(&b, &p);
    kd_bench_figure(&b, "f", "a figure", 12345.6, "ops/s", NULL);
    fclose(out);
    int lines = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"), lines++)
        cr_assert(strncmp(line, "[quick: smoke test, not a measurement] ", 39) == 0, "unmarked: %s", line);
    cr_assert_gt(lines, 4);
}

Test(bench, figures_and_tables_are_recorded)
{
    FILE *out = tmpfile();
    json_t *results = json_array();
    kd_bench_ctx b = ctx_for(out, results);
    kd_bench_stat spread = {10, 9, 12};
    kd_bench_figure(&b, "mem", "peak memory", 10, "MiB", &spread);
    const char *cols[] = {"episodes", "µs"}, *rows[] = {"1,000", "5", "10,000", "6"};
    kd_bench_table(&b, "scale", "Cost", cols, 2, rows, 2, "chart.svg");
    const json_t *fig = json_array_get(results, 0), *tab = json_array_get(results, 1);
    cr_assert_str_eq(json_string_value(json_object_get(fig, "kind")), "figure");
    cr_assert_float_eq(json_real_value(json_object_get(json_object_get(fig, "spread"), "max")), 12, 1e-9);
    cr_assert_str_eq(json_string_value(json_object_get(tab, "chart")), "chart.svg");
    cr_assert_str_eq(json_string_value(json_array_get(json_array_get(json_object_get(tab, "rows"), 1), 0)), "10,000");
    json_decref(results);
    fclose(out);
}

Test(bench, statistics)
{
    double v[] = {5, 1, 4, 2, 3};
    kd_bench_stat s = kd_bench_stat_of(v, 5);
    cr_assert_float_eq(s.median, 3, 1e-12);
    cr_assert_float_eq(s.min, 1, 1e-12);
    cr_assert_float_eq(s.max, 5, 1e-12);
    double even[] = {4, 1, 3, 2};
    cr_assert_float_eq(kd_bench_stat_of(even, 4).median, 2.5, 1e-12);
    double hundred[100];
    for (int i = 0; i < 100; i++)
        hundred[i] = 100 - i;
    cr_assert_float_eq(kd_bench_percentile(hundred, 100, 0.99), 99, 1e-12);
    cr_assert_float_eq(kd_bench_percentile(hundred, 100, 0.5), 51, 1e-12);
    cr_assert_float_eq(kd_bench_percentile(hundred, 0, 0.5), 0, 1e-12);
    kd_bench_ctx b = {.run_s = 1.0};
    cr_assert_eq(kd_bench_units_for(&b, 100, 0.5), 241);
    cr_assert_eq(kd_bench_units_for(&b, 100, 2.0), 100);
}

Test(bench, the_spread_matters_only_when_the_pairs_straddle_the_target)
{
    kd_bench_ctx b = {.max_spread = 0.25};
    /* every pair meets it, however spread: met; none does: SHORT */
    cr_assert_str_eq(kd_bench_verdict(&b, 3.0, 0, (kd_bench_stat){1.5, 1.0, 2.9}), "met");
    cr_assert_str_eq(kd_bench_verdict(&b, 0.5, 1, (kd_bench_stat){0.3, 0.1, 0.49}), "SHORT");
    /* on both sides, narrowly: the median decides */
    cr_assert_str_eq(kd_bench_verdict(&b, 2.0, 0, (kd_bench_stat){1.95, 1.9, 2.1}), "met");
    cr_assert_str_eq(kd_bench_verdict(&b, 2.0, 0, (kd_bench_stat){2.05, 1.9, 2.1}), "SHORT");
    /* on both sides and spread wide: too noisy to judge */
    cr_assert_str_eq(kd_bench_verdict(&b, 2.0, 0, (kd_bench_stat){1.5, 1.0, 4.7}), "WIDE");
    cr_assert_str_eq(kd_bench_verdict(&b, 0, 0, (kd_bench_stat){1.5, 1.0, 4.7}), "");
}
