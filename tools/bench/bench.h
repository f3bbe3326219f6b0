/*
 * bench.h — `kdapp bench`: throughput and latency against baselines
 * measured in the same run on the same machine (targets are ratios, since
 * the machines are shared and noisy). Each scenario runs `repeats` times
 * and reports median, min and max, the baseline's the same way, and the
 * ratio against the target.
 *
 * bench.c drives the run and formats results; bench_engine.c holds the
 * engine scenarios (ingest, replay, revert, commit latency, sim),
 * bench_mcp.c the gateway scenarios (stdio, HTTP, the TypeScript SDK
 * reference server) and bench_perft.c perft through the type table, alone
 * or against a peer program's perft (its protocol is described there).
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
    int quick;                   /* every scenario briefly (the whole run in < 3 minutes) */
    int repeats;                 /* runs per scenario (median/min/max over them) */
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
    FILE *out;
} kd_bench_ctx;

typedef struct {
    double median, min, max;
} kd_bench_stat;

/* median/min/max of n samples (sorts them). */
kd_bench_stat kd_bench_stat_of(double *samples, size_t n);

/* One result line: "scenario: median (min..max) unit | baseline ... | ratio r (target ...) ok|SHORT".
 * `higher_is_better` says which way the ratio must go against `target`. */
void kd_bench_report(const kd_bench_ctx *b, const char *scenario, const char *unit, kd_bench_stat value,
                     const char *baseline_name, kd_bench_stat baseline, double target, int higher_is_better);
/* A line without a baseline (figures only). */
void kd_bench_note(const kd_bench_ctx *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Peak resident memory in KiB of a process (0 = this one), from
 * /proc/PID/status VmHWM; 0 when unknown. */
unsigned long kd_bench_peak_rss_kb(pid_t pid);
/* Size in bytes of DIR/data.mdb (0 when missing). */
unsigned long long kd_bench_file_size(const char *data_dir);
/* A fresh scratch directory under b->work_dir (caller removes it). */
int kd_bench_mkdtemp(const kd_bench_ctx *b, const char *tag, char *out, size_t len);

/* Scenario groups; each returns the number of targets missed. */
int kd_bench_engine(const kd_bench_ctx *b);
int kd_bench_mcp(const kd_bench_ctx *b);
/*
 * perft nodes/s of b->type (when b->type_given or b->params) or of each
 * registered type, and against b->peer when set; adds the missed peer
 * target to *missed. Errors, with a sentence in `why`: the type's from kd_perft_start
 * and kd_perft_count; with a peer, KD_ERR_INTERNAL (its count differs from
 * ours), KD_ERR_IO (it could not run or exited non-zero), KD_ERR_PARSE (it
 * printed no result line); KD_ERR_NOMEM. Runs child processes.
 */
kd_err kd_bench_perft(const kd_bench_ctx *b, int *missed, char *why, size_t why_len) KD_WARN_UNUSED;

/* `kdapp bench`: argv with argv[0] = "bench"; returns the exit code. */
int kd_cmd_bench(kd_cli *cli, int argc, char **argv);

#endif
