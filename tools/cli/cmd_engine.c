/*
 * cmd_engine.c — `kdapp engine`: the engine daemon. It serves ingest (REP)
 * and publishes views (PUB) until SIGINT/SIGTERM, then finishes the
 * transaction in progress and exits cleanly.
 */
#include <signal.h>
#include <stdio.h>

#include "tools/chain/node.h"
#include "tools/cli/commands.h"
#include "tools/common/endpoints.h"
#include "tools/common/options.h"

int kd_cmd_engine(kd_cli *cli, int argc, char **argv)
{
    static const char usage[] =
        "usage: kdapp engine [--data DIR] [--ingest URLS] [--publish URLS] [--finality N] [--durability sync|relaxed]\n"
        "                    [--chain kaspa:NETWORK]\n"
        "  --chain  the chain the store follows: kaspa:NETWORK for `kdapp listen --engine` (kaspa:testnet-10),\n"
        "           else its own local chain (the devnet, feeds); a new store keeps it, an existing one must match\n";
    kd_endpoint_urls urls = {0};
    kd_node_options no = {0};
    const kd_option opts[] = {
        KD_CLI_OPTIONS(cli),
        {.name = "ingest", .kind = KD_OPT_STRING, .value = &urls.ingest},
        {.name = "publish", .kind = KD_OPT_STRING, .value = &urls.publish},
        KD_FINALITY_OPTION(no.finality),
        KD_CHAIN_OPTION(cli),
        {.name = "durability",
         .kind = KD_OPT_CUSTOM,
         .value = &no.durability,
         .parse = kd_cli_parse_durability_opt,
         .use = "sync or relaxed"},
        {0},
    };
    const kd_usage u = {.prog = "kdapp engine", .print = kd_usage_print_text, .ctx = usage};
    int first, stop, rc = kd_options_parse_usage(&u, opts, argc, argv, &first, &stop);
    if (rc || stop)
        return rc;
    kd_endpoints ep;
    char ep_why[512];
    if (kd_endpoints_resolve(cli->data_dir, &urls, &ep, ep_why, sizeof ep_why) != KD_OK) {
        fprintf(stderr, "kdapp engine: %s\n", ep_why);
        return KD_EXIT_FAIL;
    }
    no.ingest_urls = urls.ingest;
    no.publish_urls = urls.publish;
    kd_signals_block();
    kd_node node;
    char why[512];
    kd_err err = kd_node_start(&node, cli, &no, why, sizeof why);
    if (err) {
        fprintf(stderr, "kdapp engine: %s\n", why);
        return err == KD_ERR_LOCKED || err == KD_ERR_SETTINGS || err == KD_ERR_INVALID_ARG ? KD_EXIT_USAGE
                                                                                           : KD_EXIT_FAIL;
    }
    fprintf(stderr, "kdapp engine: serving %s (chain %s)\n  ingest  %s\n  views   %s\n", cli->data_dir,
            kd_engine_chain(node.engine), no.ingest_urls, no.publish_urls);
    int sig = kd_signals_wait();
    fprintf(stderr, "kdapp engine: %s received, finishing the current transaction\n",
            sig == SIGINT ? "SIGINT" : "SIGTERM");
    kd_node_stop(&node);
    fprintf(stderr, "kdapp engine: stopped cleanly\n");
    return KD_EXIT_OK;
}
