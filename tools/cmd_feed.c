/*
 * cmd_feed.c — `kdapp feed FILE`: applies a block script through the
 * engine, one line of output per chain event with its outcome and digest.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "tools/cli.h"
#include "tools/feeder.h"
#include "tools/report.h"

static int usage(void)
{
    fprintf(stderr, "usage: kdapp feed [--data DIR] [--keys DIR] [--finality N] [--quiet] FILE|-\n");
    return KD_EXIT_USAGE;
}

int kd_cmd_feed(kd_cli *cli, int argc, char **argv)
{
    static const struct option longopts[] = {KD_CLI_COMMON_LONGOPTS,
                                             {"finality", required_argument, NULL, 'f'},
                                             {"quiet", no_argument, NULL, 'q'},
                                             {"help", no_argument, NULL, 'h'},
                                             {0}};
    uint64_t finality = 0;
    int quiet = 0, opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "qh", longopts, NULL)) != -1) {
        if (kd_cli_common_option(cli, opt, optarg))
            continue;
        if (opt == 'f' && kd_cli_parse_u64(optarg, 1, 1000000000, &finality) == 0)
            continue;
        if (opt == 'f') {
            fprintf(stderr, "kdapp feed: --finality '%s' is not valid: use 1 to 1000000000\n", optarg);
            return KD_EXIT_USAGE;
        }
        if (opt == 'q') {
            quiet = 1;
            continue;
        }
        usage();
        return opt == 'h' ? KD_EXIT_OK : KD_EXIT_USAGE;
    }
    if (optind + 1 != argc)
        return usage();
    const char *path = argv[optind];

    /* Parse the whole script first: a malformed line stops the feed before
     * anything is applied. */
    kd_script script;
    kd_script_init(&script);
    char why[512];
    kd_err err = kd_script_load(path, cli->keys_dir, &script, why, sizeof why);
    if (err) {
        fprintf(stderr, "kdapp feed: %s: %s\n", path, why);
        kd_script_fini(&script);
        return KD_EXIT_USAGE;
    }
    kd_engine *engine = NULL;
    kd_feeder *feeder = NULL;
    kd_buf msg;
    kd_buf_init(&msg);
    int rc = kd_cli_open_engine(cli, 0, finality, &engine);
    if (rc)
        goto done;
    if ((err = kd_feeder_alloc(kd_feeder_seed_from_engine, engine, &feeder))) {
        rc = KD_EXIT_FAIL;
        goto done;
    }
    for (size_t i = 0; i < script.count; i++) {
        const kd_script_op *op = &script.ops[i];
        kd_msg_result res;
        msg.len = 0;
        if ((err = kd_feeder_encode(feeder, op, &msg))) {
            fprintf(stderr, "kdapp feed: line %u: cannot encode: %s\n", op->line, kd_err_str(err));
            rc = KD_EXIT_FAIL;
            goto done;
        }
        err = kd_engine_ingest(engine, msg.data, msg.len, &res);
        if (err) {
            fprintf(stderr, "kdapp feed: line %u: %s\n", op->line, res.detail);
            kd_msg_result_fini(&res);
            rc = KD_EXIT_FAIL;
            goto done;
        }
        kd_tip tip;
        if (!quiet && kd_engine_tip(engine, &tip) == KD_OK)
            kd_report_result(stdout, op->line, &res, &tip);
        err = kd_feeder_observe(feeder, op, &res);
        kd_msg_result_fini(&res);
        if (err) {
            rc = KD_EXIT_FAIL;
            goto done;
        }
    }
    kd_tip tip;
    if (kd_engine_tip(engine, &tip) == KD_OK) {
        char d[2 * KD_HASH_LEN + 1];
        kd_hex_encode(tip.digest, KD_HASH_LEN, d);
        printf("tip height %llu digest %s\n", (unsigned long long)tip.height, d);
    }
done:
    kd_buf_fini(&msg);
    kd_feeder_free(feeder);
    kd_engine_close(engine);
    kd_script_fini(&script);
    return rc;
}
