/*
 * bench.h — `kdapp bench`: throughput and latency against baselines
 * measured in the same run on the same machine (targets are ratios, since
 * the machines are shared and noisy).
 *
 * Paired runs. A comparison alternates its two sides, subject then
 * baseline (ABAB…), each run at least `run_s` seconds of work, for `pairs`
 * pairs after one warm-up run of each side. Every pair gives a ratio
 * (subject / baseline), so a burst of load from other processes falls on
 * both sides of it; the report is the median ratio with its min–max, each
 * side's median with its min–max, the load average before and after, and
 * the verdict against the target (kd_bench_verdict): met, SHORT, or WIDE
 * when the pairs fall on both sides of the target and their ratios spread
 * more than `max_spread` around their median (too noisy to judge).
 * `--quick` runs everything briefly as a smoke test and says so on every
 * line it prints.
 *
 * Every reported figure is also recorded (b->results) for `--json FILE`
 * and `--markdown FILE` (the README's Performance section,
 * tools/scripts/bench_readme.sh).
 *
 * bench.c drives the run, pairs the sides and formats results;
 * bench_engine.c holds the engine scenarios (ingest, replay, revert,
 * commit latency, sim), bench_mcp*.c the gateway scenarios (stdio against
 * its floor, HTTP, the TypeScript SDK reference server), bench_latency*.c
 * block commit to every kind of client, many sessions and a whole move,
 * bench_scale*.c the cost as a store grows (--scale), bench_perft.c perft
 * through the type table, alone or against a peer program's perft (its
 * protocol is described there), bench_duties.c the cost of the steps a
 * seat owes from its secret (proofs), and bench_proc.c the child processes and
 * the stdio client they share.
 */
#ifndef KD_TOOLS_BENCH_H
#define KD_TOOLS_BENCH_H

#include <stdio.h>
#include <sys/types.h>

#include <jansson.h>

#include "engine/err.h"
#include "episodes/episode_type.h"
#include "tools/common/cli.h"

typedef struct {
    int quick;                   /* every scenario briefly: a smoke test, marked so on every line */
    int repeats;                 /* pairs of runs per comparison (median/min/max over them) */
    double run_s;                /* least seconds of work in one run of one side [1; --quick 0.1] */
    double max_spread;           /* (max - min) / median of a comparison's ratios beyond which it is WIDE [0.25] */
    const char *work_dir;        /* scratch data directories (removed afterwards) */
    const char *kdapp_path;      /* this binary, for child processes */
    unsigned soak_minutes;       /* --soak: flat memory and bounded files over time */
    const kd_type_table *types;  /* the types, configured from the environment */
    const kd_episode_type *type; /* the engine scenarios' episodes (--type; default the first registered) */
    const json_t *params;        /* their params JSON (--params), NULL: the engine defaults */
    int type_given;              /* --type was given: perft measures that type only (else each type) */
    unsigned perft_depth;        /* --perft-depth; 0: grown until a count takes about half a second */
    const char *peer;            /* --peer: a perft command to compare with (bench_perft.c), or NULL */
    double peer_target;          /* --peer-target: the ratio ours/peer to reach; 0: none */
    unsigned peer_timeout_s;     /* --peer-timeout: a peer run still going after this is stopped [600] */
    int scale;                   /* --scale: the cost-as-the-work-grows scenarios (bench_scale.c) */
    unsigned scale_max_exp;      /* --scale-max: grow to 10^N episodes [6; --quick 3] */
    const char *chart_dir;       /* where --scale writes its table, gnuplot script and chart [the current directory] */
    json_t *results;             /* every recorded figure, in order (kd_bench_record_*) */
    FILE *out;
} kd_bench_ctx;

typedef struct {
    double median, min, max;
} kd_bench_stat;

/* median/min/max of n samples (sorts them). */
kd_bench_stat kd_bench_stat_of(double *samples, size_t n);
/* The p-quantile (0..1, nearest rank) of n samples (sorts them); 0 when n is 0. */
double kd_bench_percentile(double *samples, size_t n, double p);

/* ------------------------------------------------------- paired comparisons */

#define KD_BENCH_METRICS_MAX 4

/* One figure a run of either side yields. */
typedef struct {
    const char *name;     /* "throughput", "p50", "p99", … */
    const char *unit;     /* "moves/s", "us", … */
    double target;        /* the subject/baseline ratio to reach; 0: reported without a target */
    int higher_is_better; /* which way the ratio must go against `target` */
} kd_bench_metric;

typedef struct {
    const char *id;       /* a short stable key: "ingest", "stdio", … (JSON, markdown) */
    const char *scenario; /* what is measured, one line */
    const char *subject;  /* side 0: what kdapp-c does */
    const char *baseline; /* side 1: the floor or reference it is held against */
    kd_bench_metric metrics[KD_BENCH_METRICS_MAX];
    size_t n_metrics;
    /*
     * One run of one side (0 subject, 1 baseline): at least b->run_s
     * seconds of work, sized by the run itself (kd_bench_now helps); fills
     * out[0..n_metrics). 0, or -1 with a sentence in `why` (the comparison
     * is then reported as failed and counted as missed).
     */
    int (*run)(void *ctx, int side, double *out, char *why, size_t why_len);
    void *ctx;
} kd_bench_pair;

/*
 * The verdict on a ratio's median and min–max over the pairs against a
 * target: "met" when every pair meets it, "SHORT" when none does; when the
 * pairs fall on both sides, the median decides unless the ratios spread
 * more than b->max_spread around it: "WIDE", too noisy to judge. "" when
 * target is 0 (no target).
 */
const char *kd_bench_verdict(const kd_bench_ctx *b, double target, int higher_is_better, kd_bench_stat ratio);

/* Runs and reports a comparison (see the top of this file); returns the
 * number of its targets missed (a failed run misses every target; a WIDE
 * verdict is not counted as missed but reported as unjudged). */
int kd_bench_paired(const kd_bench_ctx *b, const kd_bench_pair *p);

/* How many units of work the next run of a side should do so that it
 * lasts at least run_s, given that `units` took `elapsed` seconds (runs
 * that count their work rather than watch the clock). Never fewer than `units`. */
size_t kd_bench_units_for(const kd_bench_ctx *b, size_t units, double elapsed);

/* --------------------------------------------------------------- recording */

/* A figure without a baseline (memory, file size, a rate): printed and
 * recorded under `id`; `spread` is the min–max over runs when known (NULL
 * otherwise). */
void kd_bench_figure(const kd_bench_ctx *b, const char *id, const char *what, double value, const char *unit,
                     const kd_bench_stat *spread);
/* A table of rows of strings, recorded for the markdown report (and
 * printed): `columns` names n_columns columns, `rows` is n_rows *
 * n_columns cells, row by row. `chart` is a file the table is drawn in
 * (relative to the README), or NULL. */
void kd_bench_table(const kd_bench_ctx *b, const char *id, const char *title, const char *const *columns,
                    size_t n_columns, const char *const *rows, size_t n_rows, const char *chart);

/* CLOCK_MONOTONIC in seconds. Thread-safe. */
double kd_bench_now(void);
/* The 1-minute load average (from /proc/loadavg); -1 when unknown. */
double kd_bench_load(void);
/* One line describing the machine: CPU model, cores, memory, kernel, and
 * the filesystem of `dir`. */
void kd_bench_machine(const char *dir, char *out, size_t len);

/* A line of explanation, indented (not recorded). In --quick, every line
 * the bench prints carries the smoke-test mark. */
void kd_bench_note(const kd_bench_ctx *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A heading line (a blank line before it). */
void kd_bench_heading(const kd_bench_ctx *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Peak resident memory in KiB of a process (0 = this one), from
 * /proc/PID/status VmHWM; 0 when unknown. */
unsigned long kd_bench_peak_rss_kb(pid_t pid);
/* CPU time in seconds (user + system, all threads) a process (0 = this
 * one) has used so far, from /proc/PID/stat; -1 when unknown. */
double kd_bench_cpu_s(pid_t pid);
/* Size in bytes of DIR/data.mdb (0 when missing). */
unsigned long long kd_bench_file_size(const char *data_dir);
/* A fresh scratch directory under b->work_dir (caller removes it). */
int kd_bench_mkdtemp(const kd_bench_ctx *b, const char *tag, char *out, size_t len);

/* Scenario groups; each returns the number of targets missed. */
int kd_bench_engine(const kd_bench_ctx *b);
int kd_bench_mcp(const kd_bench_ctx *b);
/* End-to-end latency: block commit → PUB view, → MCP notification over
 * stdio and HTTP SSE, → the board page's event stream, against one NNG
 * hop plus one write; a whole move as an agent sees it; many sessions
 * (bench_latency.c). */
int kd_bench_latency(const kd_bench_ctx *b);
/* Fan-out: block commit → notification at many MCP sessions over HTTP,
 * each set on a gateway and chain of its own (bench_latency_sessions.c;
 * part of kd_bench_latency, alone with --only fanout). */
int kd_bench_fanout(const kd_bench_ctx *b);
/* Issue 37's costs that grew with the store: an audit as the log grows,
 * through the index against reading the whole chain; a reorg of 1,000
 * blocks in one transaction against one per revert (bench_reorg.c; part
 * of kd_bench_engine). Returns the number of scenarios that failed. */
int kd_bench_reorg(const kd_bench_ctx *b);
/* --scale: cost as the store grows to 10^scale_max_exp episodes, with a
 * table and a gnuplot chart in b->chart_dir (bench_scale.c). */
int kd_bench_scale(const kd_bench_ctx *b);
/*
 * perft nodes/s of b->type (when b->type_given or b->params) or of each
 * registered type, and against b->peer when set; adds the missed peer
 * target to *missed. Errors, with a sentence in `why`: the type's from kd_perft_start
 * and kd_perft_count; with a peer, KD_ERR_INTERNAL (its count differs from
 * ours), KD_ERR_IO (it could not run or exited non-zero), KD_ERR_PARSE (it
 * printed no result line); KD_ERR_NOMEM. Runs child processes.
 */
kd_err kd_bench_perft(const kd_bench_ctx *b, int *missed, char *why, size_t why_len) KD_WARN_UNUSED;

/*
 * The duties of b->type (when b->type_given or b->params) or of each type
 * with secret duties: each kind of duty command made (secret_duty), taken
 * by the rules (execute), and for a type with a precheck that precheck and
 * the writer's share, in CPU ms, and its payload bytes (bench_duties.c).
 * Errors, with a sentence in `why`: the type's from kd_perft_start, a duty
 * refused by the rules (KD_ERR_INTERNAL), KD_ERR_NOMEM.
 */
kd_err kd_bench_duties(const kd_bench_ctx *b, char *why, size_t why_len) KD_WARN_UNUSED;

/* `kdapp bench`: argv with argv[0] = "bench"; returns the exit code. */
int kd_cmd_bench(kd_cli *cli, int argc, char **argv);

#endif
