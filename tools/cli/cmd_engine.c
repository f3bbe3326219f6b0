/*
 * cmd_engine.c — `kdapp engine`: the engine daemon. It serves ingest (REP)
 * and publishes views (PUB) until SIGINT/SIGTERM, then finishes the
 * transaction in progress and exits cleanly.
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "tools/cli/commands.h"
#include "tools/common/endpoints.h"
#include "tools/chain/node.h"

int kd_cli_parse_durability(const char *text, kd_durability *out)
{
    if (strcmp(text, "sync") == 0)
        *out = KD_DURABILITY_SYNC;
    else if (strcmp(text, "relaxed") == 0)
        *out = KD_DURABILITY_RELAXED;
    else
        return -1;
    return 0;
}

int kd_cmd_engine(kd_cli *cli, int argc, char **argv)
{
    static const struct option longopts[] = {KD_CLI_COMMON_LONGOPTS,
                                             {"ingest", required_argument, NULL, 'i'},
                                             {"publish", required_argument, NULL, 'p'},
                                             {"finality", required_argument, NULL, 'f'},
                                             {"durability", required_argument, NULL, 'd'},
                                             {"help", no_argument, NULL, 'h'},
                                             {0}};
    static const char usage[] = "usage: kdapp engine [--data DIR] [--ingest URLS] [--publish URLS] "
                                "[--finality N] [--durability sync|relaxed]\n";
    const char *ingest = NULL, *publish = NULL;
    kd_node_options no = {0};
    int opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        if (kd_cli_common_option(cli, opt, optarg))
            continue;
        switch (opt) {
        case 'i':
            ingest = optarg;
            break;
        case 'p':
            publish = optarg;
            break;
        case 'f':
            if (kd_cli_parse_u64(optarg, 1, 1000000000, &no.finality) != 0) {
                fprintf(stderr, "kdapp engine: --finality '%s' is not valid: use 1 to 1000000000\n", optarg);
                return KD_EXIT_USAGE;
            }
            break;
        case 'd':
            if (kd_cli_parse_durability(optarg, &no.durability) != 0) {
                fprintf(stderr, "kdapp engine: --durability '%s' is not valid: use sync or relaxed\n", optarg);
                return KD_EXIT_USAGE;
            }
            break;
        default:
            fputs(usage, stderr);
            return opt == 'h' ? KD_EXIT_OK : KD_EXIT_USAGE;
        }
    }
    if (optind != argc) {
        fputs(usage, stderr);
        return KD_EXIT_USAGE;
    }
    kd_endpoints ep;
    if (kd_endpoints_default(cli->data_dir, &ep) != KD_OK)
        return KD_EXIT_FAIL;
    no.ingest_urls = ingest ? ingest : ep.ingest;
    no.publish_urls = publish ? publish : ep.publish;
    kd_signals_block();
    kd_node node;
    char why[512];
    kd_err err = kd_node_start(&node, cli, &no, why, sizeof why);
    if (err) {
        fprintf(stderr, "kdapp engine: %s\n", why);
        return err == KD_ERR_LOCKED ? KD_EXIT_USAGE : KD_EXIT_FAIL;
    }
    fprintf(stderr, "kdapp engine: serving %s\n  ingest  %s\n  views   %s\n", cli->data_dir, no.ingest_urls,
            no.publish_urls);
    int sig = kd_signals_wait();
    fprintf(stderr, "kdapp engine: %s received, finishing the current transaction\n",
            sig == SIGINT ? "SIGINT" : "SIGTERM");
    kd_node_stop(&node);
    fprintf(stderr, "kdapp engine: stopped cleanly\n");
    return KD_EXIT_OK;
}
