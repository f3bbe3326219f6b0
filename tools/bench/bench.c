/* bench.c — `kdapp bench`: the driver and the result formatting (bench.h). */
#include "tools/bench/bench.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/common/cli.h"
#include "tools/common/options.h"
#include "tools/sim/perft.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
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

void kd_bench_report(const kd_bench_ctx *b, const char *scenario, const char *unit, kd_bench_stat v,
                     const char *baseline_name, kd_bench_stat base, double target, int higher_is_better)
{
    double ratio = base.median > 0 ? v.median / base.median : 0;
    int met = higher_is_better ? ratio >= target : ratio <= target;
    fprintf(b->out, "%-34s %12.1f %-9s (min %.1f, max %.1f)\n", scenario, v.median, unit, v.min, v.max);
    fprintf(b->out, "  %-32s %12.1f %-9s (min %.1f, max %.1f)\n", baseline_name, base.median, unit, base.min, base.max);
    fprintf(b->out, "  ratio %.2f, target %s %.2f: %s\n", ratio, higher_is_better ? ">=" : "<=", target,
            met ? "met" : "SHORT");
    fflush(b->out);
}

void kd_bench_note(const kd_bench_ctx *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("  ", b->out);
    vfprintf(b->out, fmt, ap);
    fputc('\n', b->out);
    va_end(ap);
    fflush(b->out);
}

unsigned long kd_bench_peak_rss_kb(pid_t pid)
{
    char path[64], line[256];
    if (pid)
        snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
    else
        snprintf(path, sizeof path, "/proc/self/status");
    FILE *f = fopen(path, "r");
    unsigned long kb = 0;
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %lu kB", &kb) == 1)
            break;
    fclose(f);
    return kb;
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
    "usage: kdapp bench [--quick] [--repeats N] [--soak MINUTES] [--only engine|mcp|perft] [--dir DIR]\n"
    "                   [--type T] [--params JSON] [--perft-depth N]\n"
    "                   [--peer CMD [--peer-target R] [--peer-timeout S]]\n"
    "  --type/--params: the episodes of the engine scenarios (default: the first registered\n"
    "  type with the engine defaults of the environment) and the start position of perft\n"
    "  (default: each registered type from its start)\n"
    "  --perft-depth N: perft to depth N [grown until a count takes about half a second]\n"
    "  --peer CMD: compare perft with another program's (needs --type); CMD runs under\n"
    "  /bin/sh -c with KDAPP_PERFT_TYPE, KDAPP_PERFT_DEPTH and KDAPP_PERFT_PARAMS (the\n"
    "  --params JSON) in its environment and prints 'nodes N seconds S'; a different N fails\n"
    "  --peer-target R: the ratio of nodes/s ours/peer to reach (met or SHORT)\n"
    "  --peer-timeout S: a peer run not finished after S seconds is stopped and fails [600]\n";

static int parse_only(const char *text, void *value)
{
    if (strcmp(text, "engine") != 0 && strcmp(text, "mcp") != 0 && strcmp(text, "perft") != 0)
        return -1;
    *(const char **)value = text;
    return 0;
}

int kd_cmd_bench(kd_cli *cli, int argc, char **argv)
{
    kd_bench_ctx b = {.repeats = 5, .peer_timeout_s = 600, .out = stdout, .types = &cli->types};
    const char *only = NULL, *type = NULL, *params = NULL;
    const kd_option opts[] = {
        {.name = "quick", .kind = KD_OPT_FLAG, .value = &b.quick},
        {.name = "repeats",
         .kind = KD_OPT_UINT,
         .value = &b.repeats,
         .size = sizeof b.repeats,
         .min = 1,
         .max = 100,
         .use = "1 to 100"},
        {.name = "soak",
         .kind = KD_OPT_UINT,
         .value = &b.soak_minutes,
         .size = sizeof b.soak_minutes,
         .min = 1,
         .max = 24 * 60,
         .use = "minutes, 1 to 1440"},
        {.name = "dir", .kind = KD_OPT_STRING, .value = &b.work_dir},
        {.name = "only", .kind = KD_OPT_CUSTOM, .value = &only, .parse = parse_only, .use = "engine, mcp or perft"},
        {.name = "type", .kind = KD_OPT_STRING, .value = &type},
        {.name = "params", .kind = KD_OPT_STRING, .value = &params},
        {.name = "perft-depth",
         .kind = KD_OPT_UINT,
         .value = &b.perft_depth,
         .size = sizeof b.perft_depth,
         .min = 1,
         .max = KD_PERFT_MAX_DEPTH,
         .use = "1 to 64"},
        {.name = "peer", .kind = KD_OPT_STRING, .value = &b.peer},
        {.name = "peer-target",
         .kind = KD_OPT_DOUBLE,
         .value = &b.peer_target,
         .dmin = 0.001,
         .dmax = 1e6,
         .use = "a ratio above 0"},
        {.name = "peer-timeout",
         .kind = KD_OPT_UINT,
         .value = &b.peer_timeout_s,
         .size = sizeof b.peer_timeout_s,
         .min = 1,
         .max = 86400,
         .use = "seconds, 1 to 86400"},
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
    b.type_given = type != NULL;
    b.type = type ? kd_cli_find_type(cli, type) : cli->types.count ? cli->types.entries[0].type : NULL;
    if (!b.type) {
        fprintf(stderr, "kdapp bench: --type '%s' is not a registered episode type\n", type ? type : "");
        return KD_EXIT_USAGE;
    }
    json_t *params_json = NULL;
    if (params) {
        json_error_t jerr;
        if (!(params_json = json_loads(params, JSON_REJECT_DUPLICATES, &jerr))) {
            fprintf(stderr, "kdapp bench: --params is not JSON: %s\n", jerr.text);
            return KD_EXIT_USAGE;
        }
        kd_buf check;
        kd_buf_init(&check);
        char why[KD_REJECT_DETAIL_MAX] = "";
        kd_err err = b.type->params_from_json(params_json, &check, why, sizeof why);
        kd_buf_fini(&check);
        if (err) {
            fprintf(stderr, "kdapp bench: --params: %s\n", why);
            json_decref(params_json);
            return KD_EXIT_USAGE;
        }
    }
    b.params = params_json;
    if (b.quick && b.repeats > 3)
        b.repeats = 3;
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
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    fprintf(b.out, "kdapp bench: %s, %d run%s per scenario, %ld cores, data under %s\n", b.quick ? "quick" : "full",
            b.repeats, b.repeats == 1 ? "" : "s", cores, b.work_dir);
    int missed = 0;
    if (!only || strcmp(only, "engine") == 0)
        missed += kd_bench_engine(&b);
    if (!only || strcmp(only, "mcp") == 0)
        missed += kd_bench_mcp(&b);
    kd_err err = KD_OK;
    char why[1200] = "";
    if (!only || strcmp(only, "perft") == 0)
        err = kd_bench_perft(&b, &missed, why, sizeof why);
    json_decref(params_json);
    if (err) {
        fprintf(b.out, "\n%s\n", why);
        fprintf(stderr, "kdapp bench: %s\n", why);
        return KD_EXIT_FAIL;
    }
    fprintf(b.out, "\n%d target%s missed\n", missed, missed == 1 ? "" : "s");
    return KD_EXIT_OK;
}
