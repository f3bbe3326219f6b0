/* cmd_sim.c — `kdapp sim`: the seeded reorg simulator (see tools/sim.h). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/cli/commands.h"
#include "tools/sim/sim.h"

static int usage(void)
{
    fprintf(stderr, "usage: kdapp sim [--seed S] [--steps N] [--session-steps N] [--finality N]\n"
                    "                 [--max-reorg D] [--reorg-rate P] [--drop-rate P] [--default-cap N]\n"
                    "                 [--dir DIR] [--connect URL] [--repro FILE] [--verbose]\n");
    return KD_EXIT_USAGE;
}

int kd_cmd_sim(kd_cli *cli, int argc, char **argv)
{
    (void)cli;
    static const struct option longopts[] = {{"seed", required_argument, NULL, 's'},
                                             {"steps", required_argument, NULL, 'n'},
                                             {"session-steps", required_argument, NULL, 'S'},
                                             {"finality", required_argument, NULL, 'f'},
                                             {"max-reorg", required_argument, NULL, 'm'},
                                             {"reorg-rate", required_argument, NULL, 'r'},
                                             {"drop-rate", required_argument, NULL, 'd'},
                                             {"default-cap", required_argument, NULL, 'c'},
                                             {"dir", required_argument, NULL, 'D'},
                                             {"connect", required_argument, NULL, 'C'},
                                             {"repro", required_argument, NULL, 'R'},
                                             {"verbose", no_argument, NULL, 'v'},
                                             {"help", no_argument, NULL, 'h'},
                                             {0}};
    kd_sim_options o;
    kd_sim_options_default(&o);
    const char *env_seed = getenv("KD_TEST_SEED");
    if (env_seed && kd_cli_parse_u64(env_seed, 0, UINT64_MAX, &o.seed) != 0) {
        fprintf(stderr, "kdapp sim: KD_TEST_SEED='%s' is not a number\n", env_seed);
        return KD_EXIT_USAGE;
    }
    uint64_t v;
    int opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "vh", longopts, NULL)) != -1) {
        int bad = 0;
        const char *range = "";
        switch (opt) {
        case 's':
            bad = kd_cli_parse_u64(optarg, 0, UINT64_MAX, &o.seed);
            range = "a non-negative integer";
            break;
        case 'n':
            bad = kd_cli_parse_u64(optarg, 1, UINT64_MAX, &o.steps);
            range = "1 or more";
            break;
        case 'S':
            bad = kd_cli_parse_u64(optarg, 10, UINT64_MAX, &o.session_steps);
            range = "10 or more";
            break;
        case 'f':
            bad = kd_cli_parse_u64(optarg, 1, 1000000, &o.finality);
            range = "1 to 1000000";
            break;
        case 'm':
            bad = kd_cli_parse_u64(optarg, 1, 60, &v);
            o.max_reorg = (uint32_t)v;
            range = "1 to 60";
            break;
        case 'r':
            bad = kd_cli_parse_probability(optarg, &o.p_reorg);
            range = "a probability from 0 to 1";
            break;
        case 'd':
            bad = kd_cli_parse_probability(optarg, &o.p_drop);
            range = "a probability from 0 to 1";
            break;
        case 'c':
            bad = kd_cli_parse_u64(optarg, 0, 8, &v);
            o.default_cap = (uint8_t)v;
            range = "0 (classic) to 8";
            break;
        case 'D':
            o.work_dir = optarg;
            break;
        case 'C':
            o.connect = optarg;
            break;
        case 'R':
            o.repro_path = optarg;
            break;
        case 'v':
            o.verbose = 1;
            break;
        case 'h':
            usage();
            return KD_EXIT_OK;
        default:
            return usage();
        }
        if (bad) {
            const char *name = "?";
            for (const struct option *lo = longopts; lo->name; lo++)
                if (lo->val == opt)
                    name = lo->name;
            fprintf(stderr, "kdapp sim: --%s '%s' is not valid: use %s\n", name, optarg, range);
            return KD_EXIT_USAGE;
        }
    }
    if (optind != argc)
        return usage();
    if (!o.work_dir) {
        /* Sessions are throw-away: tmpfs makes each synced commit cheap. */
        const char *tmp = getenv("TMPDIR");
        o.work_dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : tmp && *tmp ? tmp : "/tmp";
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
