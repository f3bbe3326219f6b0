/* cmd_sim.c — `kdapp sim`: the seeded reorg simulator (see tools/sim.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/cli/commands.h"
#include "tools/common/options.h"
#include "tools/sim/sim.h"

static const char usage[] = "usage: kdapp sim [--type T] [--seed S] [--steps N] [--session-steps N] [--finality N]\n"
                            "                 [--max-reorg D] [--reorg-rate P] [--drop-rate P]\n"
                            "                 [--dir DIR] [--keep] [--connect URL] [--repro FILE] [--verbose]\n"
                            "  --type: simulate one registered type (default: all of them, mixed); the engine\n"
                            "  defaults of the types come from the environment, as for every command\n"
                            "  --keep: keep each session's store under --dir (printed as `sim: session kept:\n"
                            "  DIR/live`), for kdapp log, show, audit and outside verifiers\n";

/* "NAME=VALUE ..." of the types' settings that are set in the environment. */
static void env_note(const kd_type_table *types, char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < types->count; i++) {
        const char *const *names = types->entries[i].type->env_names;
        for (size_t k = 0; names && names[k]; k++) {
            const char *v = getenv(names[k]);
            if (v && *v && used < len)
                used += (size_t)snprintf(out + used, len - used, "%s%s=%s", used ? " " : "", names[k], v);
        }
    }
}

int kd_cmd_sim(kd_cli *cli, int argc, char **argv)
{
    kd_sim_options o;
    kd_sim_options_default(&o);
    const char *env_seed = getenv("KD_TEST_SEED");
    if (env_seed && kd_cli_parse_u64(env_seed, 0, UINT64_MAX, &o.seed) != 0) {
        fprintf(stderr, "kdapp sim: KD_TEST_SEED='%s' is not a number\n", env_seed);
        return KD_EXIT_USAGE;
    }
    static const char probability[] = "a probability from 0 to 1";
    const kd_option opts[] = {
        {.name = "type", .kind = KD_OPT_STRING, .value = &o.type},
        {.name = "seed", .kind = KD_OPT_UINT, .value = &o.seed, .use = "a non-negative integer"},
        {.name = "steps", .kind = KD_OPT_UINT, .value = &o.steps, .min = 1, .use = "1 or more"},
        {.name = "session-steps", .kind = KD_OPT_UINT, .value = &o.session_steps, .min = 10, .use = "10 or more"},
        {.name = "finality",
         .kind = KD_OPT_UINT,
         .value = &o.finality,
         .min = 1,
         .max = 1000000,
         .use = "1 to 1000000"},
        {.name = "max-reorg",
         .kind = KD_OPT_UINT,
         .value = &o.max_reorg,
         .size = sizeof o.max_reorg,
         .min = 1,
         .max = 60,
         .use = "1 to 60"},
        {.name = "reorg-rate", .kind = KD_OPT_DOUBLE, .value = &o.p_reorg, .dmax = 1, .use = probability},
        {.name = "drop-rate", .kind = KD_OPT_DOUBLE, .value = &o.p_drop, .dmax = 1, .use = probability},
        {.name = "dir", .kind = KD_OPT_STRING, .value = &o.work_dir},
        {.name = "keep", .kind = KD_OPT_FLAG, .value = &o.keep},
        {.name = "connect", .kind = KD_OPT_STRING, .value = &o.connect},
        {.name = "repro", .kind = KD_OPT_STRING, .value = &o.repro_path},
        {.name = "verbose", .short_name = 'v', .kind = KD_OPT_FLAG, .value = &o.verbose},
        {0},
    };
    const kd_usage u = {.prog = "kdapp sim", .print = kd_usage_print_text, .ctx = usage};
    int first, stop, rc = kd_options_parse_usage(&u, opts, argc, argv, &first, &stop);
    if (rc || stop)
        return rc;
    if (o.type) {
        const kd_episode_type *type = kd_cli_find_type(cli, o.type);
        if (!type) {
            return kd_cli_unknown_type(cli, "kdapp sim", "--type", o.type);
        }
        o.type = type->ops->type_name;
    }
    char note[256];
    env_note(&cli->types, note, sizeof note);
    o.types = &cli->types;
    o.env_note = note;
    if (!o.work_dir) {
        /* Sessions are throw-away: tmpfs makes each synced commit cheap. */
        const char *tmp = getenv("TMPDIR");
        o.work_dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : tmp && *tmp ? tmp : "/tmp";
    } else {
        struct stat st;
        if (stat(o.work_dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
            fprintf(stderr, "kdapp sim: --dir %s %s: make it first (mkdir -p %s), or leave --dir out (/dev/shm)\n",
                    o.work_dir, stat(o.work_dir, &st) != 0 ? "does not exist" : "is not a directory", o.work_dir);
            return KD_EXIT_USAGE;
        }
        if (access(o.work_dir, W_OK) != 0) {
            fprintf(stderr, "kdapp sim: --dir %s is not writable by you: give a directory of yours\n", o.work_dir);
            return KD_EXIT_USAGE;
        }
    }
    printf("sim: seed %llu (reproduce with --seed %llu or KD_TEST_SEED=%llu)\n", (unsigned long long)o.seed,
           (unsigned long long)o.seed, (unsigned long long)o.seed);
    fflush(stdout);
    kd_sim_summary sum;
    kd_err err = kd_sim_run(&o, &sum, stdout);
    kd_sim_print_summary(&sum, &o, stdout);
    if (err) {
        fprintf(stderr, "kdapp sim: stopped: %s\n", kd_err_str(err));
        return KD_EXIT_FAIL;
    }
    return sum.mismatches ? KD_EXIT_FAIL : KD_EXIT_OK;
}
