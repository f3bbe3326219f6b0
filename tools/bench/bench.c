/* bench.c — `kdapp bench`: the driver and the result formatting (bench.h). */
#include "tools/bench/bench.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/common/cli.h"

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

int kd_cmd_bench(kd_cli *cli, int argc, char **argv)
{
    (void)cli;
    static const struct option longopts[] = {{"quick", no_argument, NULL, 'q'},
                                             {"repeats", required_argument, NULL, 'r'},
                                             {"soak", required_argument, NULL, 's'},
                                             {"dir", required_argument, NULL, 'd'},
                                             {"only", required_argument, NULL, 'o'},
                                             {"help", no_argument, NULL, 'h'},
                                             {0}};
    kd_bench_ctx b = {.repeats = 5, .out = stdout};
    const char *only = NULL;
    uint64_t v;
    int opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (opt) {
        case 'q':
            b.quick = 1;
            break;
        case 'r':
            if (kd_cli_parse_u64(optarg, 1, 100, &v)) {
                fprintf(stderr, "kdapp bench: --repeats '%s' is not valid: use 1 to 100\n", optarg);
                return KD_EXIT_USAGE;
            }
            b.repeats = (int)v;
            break;
        case 's':
            if (kd_cli_parse_u64(optarg, 1, 24 * 60, &v)) {
                fprintf(stderr, "kdapp bench: --soak '%s' is not valid: use minutes, 1 to 1440\n", optarg);
                return KD_EXIT_USAGE;
            }
            b.soak_minutes = (unsigned)v;
            break;
        case 'd':
            b.work_dir = optarg;
            break;
        case 'o':
            if (strcmp(optarg, "engine") != 0 && strcmp(optarg, "mcp") != 0) {
                fprintf(stderr, "kdapp bench: --only takes engine or mcp\n");
                return KD_EXIT_USAGE;
            }
            only = optarg;
            break;
        default:
            fprintf(stderr,
                    "usage: kdapp bench [--quick] [--repeats N] [--soak MINUTES] [--only engine|mcp] [--dir DIR]\n");
            return opt == 'h' ? KD_EXIT_OK : KD_EXIT_USAGE;
        }
    }
    if (b.quick && b.repeats > 3)
        b.repeats = 3;
    static char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        fprintf(stderr, "kdapp bench: cannot find this binary\n");
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
    fprintf(b.out, "\n%d target%s missed\n", missed, missed == 1 ? "" : "s");
    return KD_EXIT_OK;
}
