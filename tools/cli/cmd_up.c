/*
 * cmd_up.c — `kdapp up`: embedded mode, the default that needs no
 * configuration. One process runs the engine (kd_node: LMDB, view
 * publisher, ingest server) and a devnet as threads:
 *
 *   devnet ──inproc://kdapp-up-<pid>──► engine ingest ◄── ipc ingest (other feeders)
 *     ▲                                     │
 *   ipc devnet URL (submit, devnet-reorg)   └──► ipc views URL (watch, submit --wait)
 *
 * The devnet talks to the engine over inproc://; the ipc:// URLs of the
 * data directory (tools/endpoints.h) let `kdapp submit`, `kdapp watch` and
 * `kdapp devnet-reorg` in other terminals work with no flags. SIGINT or
 * SIGTERM stops the devnet first (no new blocks), then the node (finishing
 * the transaction in progress).
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tools/chain/devnet.h"
#include "tools/chain/node.h"
#include "tools/chain/report.h"
#include "tools/cli/commands.h"
#include "tools/common/endpoints.h"
#include "tools/common/options.h"

int kd_cmd_up(kd_cli *cli, int argc, char **argv)
{
    static const char usage[] = "usage: kdapp up [--data DIR] [--block-ms N] [--finality N] [--seed S] [--quiet]\n";
    kd_node_options no = {0};
    kd_devnet_options dopts = {0};
    int quiet = 0;
    const kd_option opts[] = {
        KD_CLI_OPTIONS(cli),
        KD_DEVNET_CHAIN_OPTIONS(dopts),
        KD_FINALITY_OPTION(no.finality),
        {.name = "quiet", .short_name = 'q', .kind = KD_OPT_FLAG, .value = &quiet},
        {0},
    };
    const kd_usage u = {.prog = "kdapp up", .print = kd_usage_print_text, .ctx = usage};
    int first, stop, rc = kd_options_parse_usage(&u, opts, argc, argv, &first, &stop);
    if (rc || stop)
        return rc;
    kd_endpoints ep;
    char ep_why[512];
    if (kd_endpoints_default(cli->data_dir, &ep, ep_why, sizeof ep_why) != KD_OK) {
        fprintf(stderr, "kdapp up: %s\n", ep_why);
        return KD_EXIT_FAIL;
    }
    char inproc[64], ingest[KD_URL_MAX + 80];
    snprintf(inproc, sizeof inproc, "inproc://kdapp-up-%ld", (long)getpid());
    snprintf(ingest, sizeof ingest, "%s,%s", inproc, ep.ingest);
    no.ingest_urls = ingest;
    no.publish_urls = ep.publish;

    kd_signals_block();
    kd_node node;
    kd_devnet *dev = NULL;
    char why[512];
    kd_err err = kd_node_start(&node, cli, &no, why, sizeof why);
    if (err) {
        fprintf(stderr, "kdapp up: %s\n", why);
        return err == KD_ERR_LOCKED ? KD_EXIT_USAGE : KD_EXIT_FAIL;
    }
    dopts.listen_urls = ep.devnet;
    dopts.engine_url = inproc;
    if (!quiet)
        dopts.on_event = kd_report_devnet_event;
    if ((err = kd_devnet_open(&dopts, &dev, why, sizeof why))) {
        fprintf(stderr, "kdapp up: devnet: %s\n", why);
        kd_node_stop(&node);
        return err == KD_ERR_LOCKED ? KD_EXIT_USAGE : KD_EXIT_FAIL;
    }
    fprintf(stderr,
            "kdapp up: engine and devnet running on %s (a block every %u ms)\n"
            "  ingest  %s\n  views   %s\n  devnet  %s\n"
            "try: kdapp submit --data %s --episode 1 --new --participants test:alice,test:bob --cap 6 --wait\n"
            "     kdapp watch --data %s\n",
            cli->data_dir, dopts.block_ms ? dopts.block_ms : KD_DEVNET_DEFAULT_BLOCK_MS, ingest, ep.publish, ep.devnet,
            cli->data_dir, cli->data_dir);
    int sig = kd_signals_wait();
    fprintf(stderr, "kdapp up: %s received, stopping the devnet, then the engine\n",
            sig == SIGINT ? "SIGINT" : "SIGTERM");
    kd_devnet_close(dev);
    kd_node_stop(&node);
    fprintf(stderr, "kdapp up: stopped cleanly\n");
    return KD_EXIT_OK;
}
