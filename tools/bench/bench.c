/* bench.c — `kdapp bench`: the driver, paired comparisons, recording and the reports (bench.h). */
#include "tools/bench/bench.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "tools/common/cli.h"
#include "tools/common/options.h"
#include "tools/sim/perft.h"

#define QUICK_MARK "[quick: smoke test, not a measurement] "

/* ------------------------------------------------------------ statistics */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

kd_bench_stat kd_bench_stat_of(double *samples, size_t n)
{
    kd_bench_stat s = {0, 0, 0};
    if (!n)
        return s;
    qsort(samples, n, sizeof *samples, cmp_double);
    s.min = samples[0];
    s.max = samples[n - 1];
    s.median = n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
    return s;
}

double kd_bench_percentile(double *samples, size_t n, double p)
{
    if (!n)
        return 0;
    qsort(samples, n, sizeof *samples, cmp_double);
    size_t i = (size_t)(p * (double)(n - 1) + 0.5);
    return samples[i < n ? i : n - 1];
}

/* -------------------------------------------------------------- the machine */

double kd_bench_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

double kd_bench_load(void)
{
    FILE *f = fopen("/proc/loadavg", "r");
    double load = -1;
    if (f && fscanf(f, "%lf", &load) != 1)
        load = -1;
    if (f)
        fclose(f);
    return load;
}

/* The value of the first "key<spaces>: value" line of /proc/cpuinfo or /proc/meminfo. */
static void proc_field(const char *file, const char *key, char *out, size_t len)
{
    char line[512];
    size_t klen = strlen(key);
    FILE *f = fopen(file, "r");
    snprintf(out, len, "unknown");
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, key, klen) != 0 || !strchr(line + klen, ':'))
            continue;
        const char *v = strchr(line + klen, ':') + 1;
        v += strspn(v, " \t");
        snprintf(out, len, "%.*s", (int)strcspn(v, "\n"), v);
        break;
    }
    if (f)
        fclose(f);
}

static const char *fs_name(const char *dir)
{
    struct statfs st;
    if (statfs(dir, &st) != 0)
        return "unknown filesystem";
    switch ((unsigned long)st.f_type) {
    case 0xEF53UL:
        return "ext4";
    case 0x01021994UL:
        return "tmpfs";
    case 0x794C7630UL:
        return "overlayfs";
    case 0x58465342UL:
        return "xfs";
    case 0x9123683EUL:
        return "btrfs";
    default:
        return "another filesystem";
    }
}

void kd_bench_machine(const char *dir, char *out, size_t len)
{
    char cpu[160], mem[64];
    struct utsname u;
    proc_field("/proc/cpuinfo", "model name", cpu, sizeof cpu);
    proc_field("/proc/meminfo", "MemTotal", mem, sizeof mem);
    unsigned long kb = strtoul(mem, NULL, 10);
    if (uname(&u) != 0)
        snprintf(u.release, sizeof u.release, "unknown");
    snprintf(out, len, "%s, %ld cores, %.0f GiB memory, Linux %s, data on %s", cpu, sysconf(_SC_NPROCESSORS_ONLN),
             (double)kb / 1048576.0, u.release, fs_name(dir));
}

/* ---------------------------------------------------------------- output */

/* A number for people: thousands separated above 1000, three figures below. */
static void fmt_num(double v, char *out, size_t len)
{
    double a = v < 0 ? -v : v;
    if (a >= 1000) {
        char digits[64];
        snprintf(digits, sizeof digits, "%.0f", a);
        size_t n = strlen(digits), o = 0;
        if (v < 0 && o + 1 < len)
            out[o++] = '-';
        for (size_t i = 0; i < n && o + 2 < len; i++) {
            if (i && (n - i) % 3 == 0)
                out[o++] = ',';
            out[o++] = digits[i];
        }
        out[o] = '\0';
    } else if (a >= 100) {
        snprintf(out, len, "%.0f", v);
    } else if (a >= 10) {
        snprintf(out, len, "%.1f", v);
    } else {
        snprintf(out, len, "%.3g", v);
    }
}

static void vline(const kd_bench_ctx *b, const char *indent, const char *fmt, va_list ap)
{
    fputs(b->quick ? QUICK_MARK : "", b->out);
    fputs(indent, b->out);
    vfprintf(b->out, fmt, ap);
    fputc('\n', b->out);
    fflush(b->out);
}

static void line(const kd_bench_ctx *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line(const kd_bench_ctx *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vline(b, "", fmt, ap);
    va_end(ap);
}

void kd_bench_note(const kd_bench_ctx *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vline(b, "  ", fmt, ap);
    va_end(ap);
}

void kd_bench_heading(const kd_bench_ctx *b, const char *fmt, ...)
{
    va_list ap;
    fputc('\n', b->out);
    va_start(ap, fmt);
    vline(b, "", fmt, ap);
    va_end(ap);
}

static json_t *stat_json(kd_bench_stat s)
{
    return json_pack("{s:f, s:f, s:f}", "median", s.median, "min", s.min, "max", s.max);
}

static void record(const kd_bench_ctx *b, json_t *entry)
{
    if (b->results && entry)
        json_array_append(b->results, entry);
    json_decref(entry);
}

void kd_bench_figure(const kd_bench_ctx *b, const char *id, const char *what, double value, const char *unit,
                     const kd_bench_stat *spread)
{
    char v[48], lo[48], hi[48];
    fmt_num(value, v, sizeof v);
    if (spread) {
        fmt_num(spread->min, lo, sizeof lo), fmt_num(spread->max, hi, sizeof hi);
        kd_bench_note(b, "%s: %s %s (min %s, max %s)", what, v, unit, lo, hi);
    } else {
        kd_bench_note(b, "%s: %s %s", what, v, unit);
    }
    json_t *e =
        json_pack("{s:s, s:s, s:s, s:f, s:s}", "kind", "figure", "id", id, "what", what, "value", value, "unit", unit);
    if (e && spread)
        json_object_set_new(e, "spread", stat_json(*spread));
    record(b, e);
}

void kd_bench_table(const kd_bench_ctx *b, const char *id, const char *title, const char *const *columns,
                    size_t n_columns, const char *const *rows, size_t n_rows, const char *chart)
{
    json_t *cols = json_array(), *rs = json_array();
    kd_bench_heading(b, "%s", title);
    for (size_t c = 0; c < n_columns; c++)
        json_array_append_new(cols, json_string(columns[c]));
    for (size_t r = 0; r < n_rows; r++) {
        json_t *row = json_array();
        char text[1024];
        size_t off = 0;
        for (size_t c = 0; c < n_columns; c++) {
            const char *cell = rows[r * n_columns + c] ? rows[r * n_columns + c] : "";
            json_array_append_new(row, json_string(cell));
            int n = snprintf(text + off, sizeof text - off, "%s%s", c ? " | " : "", cell);
            off = n > 0 && off + (size_t)n < sizeof text ? off + (size_t)n : off;
        }
        json_array_append_new(rs, row);
        kd_bench_note(b, "%s", text);
    }
    json_t *e =
        json_pack("{s:s, s:s, s:s, s:o, s:o}", "kind", "table", "id", id, "title", title, "columns", cols, "rows", rs);
    if (e && chart)
        json_object_set_new(e, "chart", json_string(chart));
    record(b, e);
}

/* ------------------------------------------------------- paired comparisons */

const char *kd_bench_verdict(const kd_bench_ctx *b, double target, int higher_is_better, kd_bench_stat ratio)
{
    if (target <= 0)
        return "";
    double worst = higher_is_better ? ratio.min : ratio.max, best = higher_is_better ? ratio.max : ratio.min;
    int worst_met = higher_is_better ? worst >= target : worst <= target;
    int best_met = higher_is_better ? best >= target : best <= target;
    if (worst_met)
        return "met";
    if (!best_met)
        return "SHORT";
    double spread = ratio.median > 0 ? (ratio.max - ratio.min) / ratio.median : 1e9;
    if (spread > b->max_spread)
        return "WIDE";
    int met = higher_is_better ? ratio.median >= target : ratio.median <= target;
    return met ? "met" : "SHORT";
}

size_t kd_bench_units_for(const kd_bench_ctx *b, size_t units, double elapsed)
{
    if (elapsed >= b->run_s || units == 0)
        return units ? units : 1;
    double want = (double)units * b->run_s / (elapsed > 1e-6 ? elapsed : 1e-6) * 1.2;
    return want > 1e9 ? (size_t)1e9 : (size_t)want + 1;
}

static int run_side(const kd_bench_pair *p, int side, double *out, char *why, size_t why_len)
{
    for (size_t k = 0; k < p->n_metrics; k++)
        out[k] = 0;
    return p->run(p->ctx, side, out, why, why_len);
}

/* Metric k of one side over the pairs (rows of b->repeats × nm in `v`,
 * sorted in `col`): its line, and its stat. */
static kd_bench_stat side_line(const kd_bench_ctx *b, const char *name, const char *who, const char *unit,
                               const double *v, size_t nm, size_t k, double *col)
{
    size_t pairs = (size_t)b->repeats;
    char f[3][48];
    for (size_t i = 0; i < pairs; i++)
        col[i] = v[i * nm + k];
    kd_bench_stat s = kd_bench_stat_of(col, pairs);
    fmt_num(s.median, f[0], sizeof f[0]), fmt_num(s.min, f[1], sizeof f[1]), fmt_num(s.max, f[2], sizeof f[2]);
    kd_bench_note(b, "%-11s %-32.32s %10s %-8s (min %s, max %s)", name, who, f[0], unit, f[1], f[2]);
    return s;
}

int kd_bench_paired(const kd_bench_ctx *b, const kd_bench_pair *p)
{
    size_t pairs = (size_t)b->repeats, nm = p->n_metrics;
    double *subj = calloc(pairs * nm, sizeof *subj), *base = calloc(pairs * nm, sizeof *base);
    double *ratio = calloc(pairs, sizeof *ratio), *col = calloc(pairs, sizeof *col), warm[KD_BENCH_METRICS_MAX];
    char why[512] = "";
    int missed = 0, failed = !subj || !base || !ratio || !col || nm == 0 || nm > KD_BENCH_METRICS_MAX;
    double load0 = kd_bench_load(), t0 = kd_bench_now();

    kd_bench_heading(b, "%s", p->scenario);
    if (failed)
        snprintf(why, sizeof why, "out of memory");
    /* a warm-up run of each side (caches, JIT, page faults), then the pairs */
    if (!failed)
        failed = run_side(p, 0, warm, why, sizeof why) || run_side(p, 1, warm, why, sizeof why);
    for (size_t i = 0; i < pairs && !failed; i++)
        failed = run_side(p, 0, subj + i * nm, why, sizeof why) || run_side(p, 1, base + i * nm, why, sizeof why);
    double load1 = kd_bench_load();
    json_t *entry =
        json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:f, s:f, s:f, s:b}", "kind", "pair", "id", p->id, "scenario",
                  p->scenario, "subject", p->subject, "baseline", p->baseline, "pairs", (int)pairs, "run_s", b->run_s,
                  "load_before", load0, "load_after", load1, "quick", b->quick);
    json_t *metrics = json_array();
    if (failed) {
        kd_bench_note(b, "FAILED: %s", why);
        if (entry)
            json_object_set_new(entry, "error", json_string(why));
        for (size_t k = 0; k < nm && k < KD_BENCH_METRICS_MAX; k++)
            missed += p->metrics[k].target > 0;
    }
    for (size_t k = 0; k < nm && !failed; k++) {
        const kd_bench_metric *m = &p->metrics[k];
        for (size_t i = 0; i < pairs; i++)
            ratio[i] = base[i * nm + k] > 0 ? subj[i * nm + k] / base[i * nm + k] : 0;
        kd_bench_stat rs = kd_bench_stat_of(ratio, pairs),
                      ss = side_line(b, m->name, p->subject, m->unit, subj, nm, k, col),
                      bs = side_line(b, "", p->baseline, m->unit, base, nm, k, col);
        const char *v = kd_bench_verdict(b, m->target, m->higher_is_better, rs);
        double spread = rs.median > 0 ? (rs.max - rs.min) / rs.median : 0;
        if (m->target > 0)
            kd_bench_note(b, "%-11s ratio %.3g (min %.3g, max %.3g, spread %.0f%%), target %s %.3g: %s", "", rs.median,
                          rs.min, rs.max, spread * 100, m->higher_is_better ? ">=" : "<=", m->target, v);
        else
            kd_bench_note(b, "%-11s ratio %.3g (min %.3g, max %.3g, spread %.0f%%)", "", rs.median, rs.min, rs.max,
                          spread * 100);
        missed += strcmp(v, "SHORT") == 0;
        json_t *mj = json_pack("{s:s, s:s, s:o, s:o, s:o, s:f, s:b, s:s}", "name", m->name, "unit", m->unit, "subject",
                               stat_json(ss), "baseline", stat_json(bs), "ratio", stat_json(rs), "target", m->target,
                               "higher_is_better", m->higher_is_better, "verdict", v);
        json_array_append_new(metrics, mj);
    }
    kd_bench_note(b,
                  "%zu pairs of runs of at least %.2g s (subject then baseline), %.0f s in all; load average %.2f "
                  "before, %.2f after",
                  pairs, b->run_s, kd_bench_now() - t0, load0, load1);
    if (entry)
        json_object_set_new(entry, "metrics", metrics);
    else
        json_decref(metrics);
    record(b, entry);
    free(subj), free(base), free(ratio), free(col);
    return missed;
}

/* ------------------------------------------------------------- the report */

static double num(const json_t *o, const char *key) { return json_number_value(json_object_get(o, key)); }

/* "median unit (min–max)" of a stat object. */
static void fmt_stat(const json_t *s, const char *unit, char *out, size_t len)
{
    char m[48], lo[48], hi[48];
    fmt_num(num(s, "median"), m, sizeof m);
    fmt_num(num(s, "min"), lo, sizeof lo);
    fmt_num(num(s, "max"), hi, sizeof hi);
    snprintf(out, len, "%s %s (%s–%s)", m, unit, lo, hi);
}

static const char *str(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

/* The unit as the README writes it. */
static const char *md_unit(const char *unit, char *buf, size_t len)
{
    if (strncmp(unit, "us", 2) != 0 || (unit[2] != '\0' && unit[2] != '/'))
        return unit;
    snprintf(buf, len, "µs%s", unit + 2);
    return buf;
}

static void markdown_pairs(FILE *f, const json_t *results)
{
    size_t i;
    json_t *e;
    int any = 0;
    json_array_foreach(results, i, e)
    {
        if (strcmp(str(e, "kind"), "pair") != 0)
            continue;
        if (!any++) {
            fprintf(f, "| scenario | figure | kdapp-c | baseline (same run) | ratio (min–max) | target | verdict |\n");
            fprintf(f, "|---|---|---|---|---|---|---|\n");
        }
        if (json_object_get(e, "error")) {
            fprintf(f, "| %s | | failed: %s | | | | failed |\n", str(e, "scenario"), str(e, "error"));
            continue;
        }
        size_t k;
        json_t *m;
        json_array_foreach(json_object_get(e, "metrics"), k, m)
        {
            char sv[160], bv[160], r[160], t[48] = "", ub[48];
            const char *unit = md_unit(str(m, "unit"), ub, sizeof ub);
            fmt_stat(json_object_get(m, "subject"), unit, sv, sizeof sv);
            fmt_stat(json_object_get(m, "baseline"), unit, bv, sizeof bv);
            const json_t *ratio = json_object_get(m, "ratio");
            snprintf(r, sizeof r, "%.2f (%.2f–%.2f)", num(ratio, "median"), num(ratio, "min"), num(ratio, "max"));
            if (num(m, "target") > 0)
                snprintf(t, sizeof t, "%s %.2g", json_is_true(json_object_get(m, "higher_is_better")) ? "≥" : "≤",
                         num(m, "target"));
            fprintf(f, "| %s | %s | %s | %s: %s | %s | %s | %s |\n", k ? "" : str(e, "scenario"), str(m, "name"), sv,
                    str(e, "baseline"), bv, r, t, str(m, "verdict"));
        }
    }
}

static void markdown_figures(FILE *f, const json_t *results)
{
    size_t i;
    json_t *e;
    int any = 0;
    json_array_foreach(results, i, e)
    {
        if (strcmp(str(e, "kind"), "figure") != 0)
            continue;
        char v[256], ub[48];
        if (!any++)
            fprintf(f, "\n| figure | value |\n|---|---|\n");
        if (json_object_get(e, "spread")) {
            char lo[48], hi[48], m[48];
            fmt_num(num(e, "value"), m, sizeof m);
            fmt_num(num(json_object_get(e, "spread"), "min"), lo, sizeof lo);
            fmt_num(num(json_object_get(e, "spread"), "max"), hi, sizeof hi);
            snprintf(v, sizeof v, "%s %s (%s–%s)", m, md_unit(str(e, "unit"), ub, sizeof ub), lo, hi);
        } else {
            fmt_num(num(e, "value"), v, sizeof v);
            snprintf(v + strlen(v), sizeof v - strlen(v), " %s", md_unit(str(e, "unit"), ub, sizeof ub));
        }
        fprintf(f, "| %s | %s |\n", str(e, "what"), v);
    }
}

static void markdown_tables(FILE *f, const json_t *results)
{
    size_t i;
    json_t *e;
    json_array_foreach(results, i, e)
    {
        if (strcmp(str(e, "kind"), "table") != 0)
            continue;
        size_t c, r;
        json_t *cell, *row;
        fprintf(f, "\n**%s**\n\n", str(e, "title"));
        if (json_object_get(e, "chart"))
            fprintf(f, "![%s](%s)\n\n", str(e, "title"), str(e, "chart"));
        json_array_foreach(json_object_get(e, "columns"), c, cell) fprintf(f, "| %s ", json_string_value(cell));
        fprintf(f, "|\n");
        json_array_foreach(json_object_get(e, "columns"), c, cell) fprintf(f, "|---");
        fprintf(f, "|\n");
        json_array_foreach(json_object_get(e, "rows"), r, row)
        {
            json_array_foreach(row, c, cell) fprintf(f, "| %s ", json_string_value(cell));
            fprintf(f, "|\n");
        }
    }
}

/* The README's Performance figures: the machine, then the comparisons,
 * the figures and the tables, from what the run recorded. */
static int write_markdown(const kd_bench_ctx *b, const char *path, const char *machine, const char *command,
                          double load0, double load1)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    time_t now = time(NULL);
    char day[32];
    strftime(day, sizeof day, "%Y-%m-%d", gmtime(&now));
    fprintf(f, "<!-- written by `%s` on %s; regenerate with tools/scripts/bench_readme.sh -->\n\n", command, day);
    if (b->quick)
        fprintf(f, "**A `--quick` smoke test: these figures are not measurements.**\n\n");
    fprintf(f,
            "Measured on %s with `%s`, %s: %d pairs of runs per comparison, each run at least %.2g s of work; load "
            "average %.2f at the start and %.2f at the end. Each row gives medians over the pairs with their min–max; "
            "a verdict is met when every pair meets its target, SHORT when none does, and between the two the median "
            "decides unless the ratios spread more than %.0f%% around it: WIDE, too noisy to judge.\n\n",
            day, command, machine, b->repeats, b->run_s, load0, load1, b->max_spread * 100);
    markdown_pairs(f, b->results);
    markdown_figures(f, b->results);
    markdown_tables(f, b->results);
    return fclose(f) == 0 ? 0 : -1;
}

static int count_verdicts(const json_t *results, const char *verdict_name)
{
    size_t i, k;
    json_t *e, *m;
    int n = 0;
    json_array_foreach(results, i, e)
    {
        json_array_foreach(json_object_get(e, "metrics"), k, m) n += strcmp(str(m, "verdict"), verdict_name) == 0;
    }
    return n;
}

/* ------------------------------------------------------------ the driver */

unsigned long kd_bench_peak_rss_kb(pid_t pid)
{
    char path[64], text[256];
    if (pid)
        snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
    else
        snprintf(path, sizeof path, "/proc/self/status");
    FILE *f = fopen(path, "r");
    unsigned long kb = 0;
    if (!f)
        return 0;
    while (fgets(text, sizeof text, f))
        if (sscanf(text, "VmHWM: %lu kB", &kb) == 1)
            break;
    fclose(f);
    return kb;
}

double kd_bench_cpu_s(pid_t pid)
{
    char path[64], text[1024];
    snprintf(path, sizeof path, pid ? "/proc/%ld/stat" : "/proc/self/stat", (long)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    /* the command name may hold spaces and parentheses: fields follow the last ')' */
    const char *rest = strrchr(text, ')');
    unsigned long long utime, stime;
    if (!rest || sscanf(rest + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime, &stime) != 2)
        return -1;
    long hz = sysconf(_SC_CLK_TCK);
    return hz > 0 ? (double)(utime + stime) / (double)hz : -1;
}

unsigned long long kd_bench_file_size(const char *data_dir)
{
    char path[4200];
    struct stat st;
    snprintf(path, sizeof path, "%s/data.mdb", data_dir);
    /* The allocated size: LMDB's file is sparse up to its map size. */
    return stat(path, &st) == 0 ? (unsigned long long)st.st_blocks * 512ull : 0;
}

int kd_bench_mkdtemp(const kd_bench_ctx *b, const char *tag, char *out, size_t len)
{
    snprintf(out, len, "%s/kdapp-bench-%s.XXXXXX", b->work_dir, tag);
    return mkdtemp(out) ? 0 : -1;
}

static const char bench_usage[] =
    "usage: kdapp bench [--quick] [--repeats N] [--seconds S] [--only engine|mcp|latency|fanout|perft|duties]\n"
    "                   [--dir DIR]\n"
    "                   [--json FILE] [--markdown FILE] [--soak MINUTES]\n"
    "                   [--scale [--scale-max N] [--chart-dir DIR]]\n"
    "                   [--type T] [--params JSON] [--perft-depth N]\n"
    "                   [--peer CMD [--peer-target R] [--peer-timeout S]]\n"
    "  every comparison alternates kdapp-c and its baseline, one run each, --repeats pairs [5]\n"
    "  of at least --seconds S of work per run [1]; --quick: 3 pairs of 0.1 s, a smoke test\n"
    "  --max-spread F: ratios spread more than F around their median are too noisy to judge [0.25]\n"
    "  --json FILE / --markdown FILE: every figure recorded, as JSON / as the README's tables\n"
    "  --scale: cost as the store grows to 10^N episodes (--scale-max N, 3 to 6 [6]); writes\n"
    "  scale.tsv, scale.gp and scale.svg (gnuplot) into --chart-dir [.]\n"
    "  --type/--params: the episodes of the engine scenarios (default: the first registered\n"
    "  type with the engine defaults of the environment) and the start position of perft\n"
    "  (default: each registered type from its start)\n"
    "  --perft-depth N: perft to depth N [grown until a count takes about half a second]\n"
    "  duties: each type's secret duties (proofs) made and verified, CPU ms, and their payload bytes\n"
    "  --peer CMD: compare perft with another program's (needs --type); CMD runs under\n"
    "  /bin/sh -c with KDAPP_PERFT_TYPE, KDAPP_PERFT_DEPTH and KDAPP_PERFT_PARAMS (the\n"
    "  --params JSON) in its environment and prints 'nodes N seconds S'; a different N fails\n"
    "  --peer-target R: the ratio of nodes/s ours/peer to reach (met or SHORT)\n"
    "  --peer-timeout S: a peer run not finished after S seconds is stopped and fails [600]\n";

static const char *const groups[] = {"engine", "mcp", "latency", "fanout", "perft", "duties"};

static int parse_only(const char *text, void *value)
{
    for (size_t i = 0; i < sizeof groups / sizeof *groups; i++)
        if (strcmp(text, groups[i]) == 0) {
            *(const char **)value = groups[i];
            return 0;
        }
    return -1;
}

/* The --params JSON, checked by the type: a new reference, or NULL with a usage error printed. */
static json_t *load_params(const kd_episode_type *type, const char *text)
{
    json_error_t jerr;
    json_t *params = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
    if (!params) {
        fprintf(stderr, "kdapp bench: --params is not JSON: %s\n", jerr.text);
        return NULL;
    }
    kd_buf check;
    kd_buf_init(&check);
    char why[KD_REJECT_DETAIL_MAX] = "";
    kd_err err = type->params_from_json(params, &check, why, sizeof why);
    kd_buf_fini(&check);
    if (err) {
        fprintf(stderr, "kdapp bench: --params: %s\n", why);
        json_decref(params);
        return NULL;
    }
    return params;
}

/* The command line as given, for the report ("kdapp bench --scale"),
 * without where the reports are written. */
static void command_text(int argc, char **argv, char *out, size_t len)
{
    size_t off = (size_t)snprintf(out, len, "kdapp");
    for (int i = 0; i < argc && off < len; i++) {
        if (strcmp(argv[i], "--json") == 0 || strcmp(argv[i], "--markdown") == 0) {
            i++;
            continue;
        }
        if (strncmp(argv[i], "--json=", 7) == 0 || strncmp(argv[i], "--markdown=", 11) == 0)
            continue;
        int n = snprintf(out + off, len - off, " %s", argv[i]);
        off += n > 0 ? (size_t)n : 0;
    }
}

static int run_groups(const kd_bench_ctx *b, const char *only, kd_err *err, char *why, size_t why_len)
{
    int missed = 0;
    if (!only || strcmp(only, "engine") == 0)
        missed += kd_bench_engine(b);
    if (!only || strcmp(only, "mcp") == 0)
        missed += kd_bench_mcp(b);
    if (!only || strcmp(only, "latency") == 0)
        missed += kd_bench_latency(b);
    else if (strcmp(only, "fanout") == 0)
        missed += kd_bench_fanout(b);
    if (!only || strcmp(only, "perft") == 0)
        *err = kd_bench_perft(b, &missed, why, why_len);
    if (!*err && (!only || strcmp(only, "duties") == 0))
        *err = kd_bench_duties(b, why, why_len);
    if (!*err && b->scale)
        missed += kd_bench_scale(b);
    return missed;
}

#define OPT_UINT(n, v, lo, hi, u)                                                                        \
    {                                                                                                    \
        .name = n, .kind = KD_OPT_UINT, .value = &(v), .size = sizeof(v), .min = lo, .max = hi, .use = u \
    }
#define OPT_DOUBLE(n, v, lo, hi, u)                                                       \
    {                                                                                     \
        .name = n, .kind = KD_OPT_DOUBLE, .value = &(v), .dmin = lo, .dmax = hi, .use = u \
    }

int kd_cmd_bench(kd_cli *cli, int argc, char **argv)
{
    kd_bench_ctx b = {.repeats = 5, .max_spread = 0.25, .peer_timeout_s = 600, .out = stdout, .types = &cli->types};
    const char *only = NULL, *type = NULL, *params = NULL, *json_path = NULL, *md_path = NULL;
    const kd_option opts[] = {
        {.name = "quick", .kind = KD_OPT_FLAG, .value = &b.quick},
        OPT_UINT("repeats", b.repeats, 1, 100, "1 to 100"),
        OPT_DOUBLE("seconds", b.run_s, 0.01, 600, "seconds, 0.01 to 600"),
        OPT_DOUBLE("max-spread", b.max_spread, 0.001, 100, "a fraction above 0"),
        OPT_UINT("soak", b.soak_minutes, 1, 24 * 60, "minutes, 1 to 1440"),
        {.name = "dir", .kind = KD_OPT_STRING, .value = &b.work_dir},
        {.name = "json", .kind = KD_OPT_STRING, .value = &json_path},
        {.name = "markdown", .kind = KD_OPT_STRING, .value = &md_path},
        {.name = "only",
         .kind = KD_OPT_CUSTOM,
         .value = &only,
         .parse = parse_only,
         .use = "engine, mcp, latency, fanout, perft or duties"},
        {.name = "scale", .kind = KD_OPT_FLAG, .value = &b.scale},
        OPT_UINT("scale-max", b.scale_max_exp, 3, 6, "3 to 6"),
        {.name = "chart-dir", .kind = KD_OPT_STRING, .value = &b.chart_dir},
        {.name = "type", .kind = KD_OPT_STRING, .value = &type},
        {.name = "params", .kind = KD_OPT_STRING, .value = &params},
        OPT_UINT("perft-depth", b.perft_depth, 1, KD_PERFT_MAX_DEPTH, "1 to 64"),
        {.name = "peer", .kind = KD_OPT_STRING, .value = &b.peer},
        OPT_DOUBLE("peer-target", b.peer_target, 0.001, 1e6, "a ratio above 0"),
        OPT_UINT("peer-timeout", b.peer_timeout_s, 1, 86400, "seconds, 1 to 86400"),
        {0},
    };
    const kd_usage u = {.prog = "kdapp bench", .print = kd_usage_print_text, .ctx = bench_usage};
    int first, stop, rc = kd_options_parse_usage(&u, opts, argc, argv, &first, &stop);
    if (rc || stop)
        return rc;
    if ((b.peer || b.peer_target > 0) && !type) {
        fprintf(stderr, "kdapp bench: --peer and --peer-target need --type (the type the peer counts)\n");
        return KD_EXIT_USAGE;
    }
    if (b.peer_target > 0 && !b.peer) {
        fprintf(stderr, "kdapp bench: --peer-target needs --peer (the program to compare with)\n");
        return KD_EXIT_USAGE;
    }
    if ((b.scale_max_exp || b.chart_dir) && !b.scale) {
        fprintf(stderr, "kdapp bench: --scale-max and --chart-dir need --scale\n");
        return KD_EXIT_USAGE;
    }
    b.type_given = type != NULL;
    b.type = type ? kd_cli_find_type(cli, type) : cli->types.count ? cli->types.entries[0].type : NULL;
    if (!b.type) {
        return kd_cli_unknown_type(cli, "kdapp bench", "--type", type);
    }
    json_t *params_json = params ? load_params(b.type, params) : NULL;
    if (params && !params_json)
        return KD_EXIT_USAGE;
    b.params = params_json;
    if (b.quick && b.repeats > 3)
        b.repeats = 3;
    if (b.run_s <= 0)
        b.run_s = b.quick ? 0.1 : 1.0;
    if (!b.scale_max_exp)
        b.scale_max_exp = b.quick ? 3 : 6;
    if (!b.chart_dir)
        b.chart_dir = ".";
    static char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        fprintf(stderr, "kdapp bench: cannot find this binary\n");
        json_decref(params_json);
        return KD_EXIT_FAIL;
    }
    self[n] = '\0';
    b.kdapp_path = self;
    if (!b.work_dir) {
        const char *tmp = getenv("TMPDIR");
        b.work_dir = tmp && *tmp ? tmp : "/tmp"; /* a real disk: fsync costs what it costs */
    }
    struct stat st;
    int dir_err = stat(b.work_dir, &st) != 0             ? errno
                  : !S_ISDIR(st.st_mode)                 ? ENOTDIR
                  : access(b.work_dir, W_OK | X_OK) != 0 ? errno
                                                         : 0;
    if (dir_err) { /* a setup failure, not a measurement: no target is judged */
        fprintf(stderr, "kdapp bench: --dir %s: %s; give a directory this user can write, on the disk to measure\n",
                b.work_dir, strerror(dir_err));
        json_decref(params_json);
        return KD_EXIT_USAGE;
    }
    b.results = json_array();
    char machine[512], command[1024];
    kd_bench_machine(b.work_dir, machine, sizeof machine);
    command_text(argc, argv, command, sizeof command);
    double load0 = kd_bench_load();
    line(&b, "kdapp bench: %s; %s", b.quick ? "quick (a smoke test: no figure is a measurement)" : "full", machine);
    line(&b, "%d pairs per comparison, each run at least %.2g s of work; data under %s; load average %.2f", b.repeats,
         b.run_s, b.work_dir, load0);
    kd_err err = KD_OK;
    char why[1200] = "";
    /* A child that dies while the bench writes to it (a gateway, a
     * client) is an error the scenario reports, not a SIGPIPE that ends
     * the bench; children get the default back (kd_bench_proc_spawn). */
    struct sigaction ign = {.sa_handler = SIG_IGN}, old;
    sigaction(SIGPIPE, &ign, &old);
    int missed = run_groups(&b, only, &err, why, sizeof why);
    sigaction(SIGPIPE, &old, NULL);
    double load1 = kd_bench_load();
    json_decref(params_json);
    if (err) {
        fprintf(b.out, "\n%s\n", why);
        fprintf(stderr, "kdapp bench: %s\n", why);
        json_decref(b.results);
        return KD_EXIT_FAIL;
    }
    rc = KD_EXIT_OK;
    if (md_path && write_markdown(&b, md_path, machine, command, load0, load1) != 0) {
        fprintf(stderr, "kdapp bench: cannot write %s\n", md_path);
        rc = KD_EXIT_FAIL;
    }
    json_t *doc = json_pack("{s:s, s:s, s:b, s:i, s:f, s:f, s:f, s:O}", "machine", machine, "command", command, "quick",
                            b.quick, "pairs", b.repeats, "run_s", b.run_s, "load_before", load0, "load_after", load1,
                            "results", b.results);
    if (json_path && (!doc || json_dump_file(doc, json_path, JSON_INDENT(2)) != 0)) {
        fprintf(stderr, "kdapp bench: cannot write %s\n", json_path);
        rc = KD_EXIT_FAIL;
    }
    json_decref(doc);
    int wide = count_verdicts(b.results, "WIDE");
    fputc('\n', b.out);
    line(&b, "%d target%s missed, %d too noisy to judge (WIDE); load average %.2f at the end", missed,
         missed == 1 ? "" : "s", wide, load1);
    json_decref(b.results);
    return rc;
}
