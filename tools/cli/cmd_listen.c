/*
 * cmd_listen.c — `kdapp listen`: follow a kaspad node's virtual chain over
 * wRPC (JSON) and feed the engine (tools/listen/follower.h).
 *
 *   kaspad ──ws:// wRPC JSON──► listener ──ingest (NNG)──► engine
 *                                           │ --engine URL: a running `kdapp engine`
 *                                           └ otherwise: an engine in this process on --data
 *
 * With the embedded engine (as `kdapp up` runs one) the views are
 * published on the data directory's ipc:// URL, so `kdapp watch` and the
 * gateway work beside it. SIGINT or SIGTERM stops the listener, then the
 * engine.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "engine/bytes.h"
#include "tools/chain/ingest_client.h"
#include "tools/chain/node.h"
#include "tools/cli/commands.h"
#include "tools/common/endpoints.h"
#include "tools/common/options.h"
#include "tools/listen/follower.h"
#include "tools/listen/kaspa_rpc.h"
#include "tools/listen/network.h"

static const char usage_text[] =
    "usage: kdapp listen [--rpc ws://HOST:PORT] [--network mainnet|testnet-10|testnet-11|devnet|simnet]\n"
    "                    [--engine URL | --data DIR] [--from HASH] [--prefix HEX8] [--poll-ms N]\n"
    "                    [--rpc-timeout-ms N] [--finality N] [--quiet]\n"
    "  --rpc      kaspad's wRPC JSON endpoint (default ws://127.0.0.1:<the network's JSON port>)\n"
    "  --network  the network the node must be on; its default JSON port: mainnet 18110,\n"
    "             testnet-* 18210, simnet 18510, devnet 18610\n"
    "  --engine   feed a running `kdapp engine` at this ingest URL instead of an embedded one\n"
    "  --from     the first block when the engine has no tip yet (default: the node's sink)\n"
    "  --prefix   the payload prefix as 8 hex digits of its bytes (default 4b444331, \"KDC1\")\n";

static void on_event(void *ctx, const kd_listen_event *ev)
{
    const int *quiet = ctx;
    char h[2 * KD_HASH_LEN + 1] = "";
    if (ev->hash)
        kd_hex_encode(ev->hash, KD_HASH_LEN, h);
    switch (ev->kind) {
    case KD_LISTEN_EVENT_CONNECTED:
        printf("connected: %s\n", ev->text);
        break;
    case KD_LISTEN_EVENT_ANCHOR:
        printf("start %s daa %llu (sent with no transactions)\n", h, (unsigned long long)ev->daa);
        break;
    case KD_LISTEN_EVENT_ACCEPT:
        if (!*quiet || ev->txs_matched)
            printf("accept %s: %u kdapp tx%s, %u applied\n", h, ev->txs_matched, ev->txs_matched == 1 ? "" : "s",
                   ev->txs_applied);
        break;
    case KD_LISTEN_EVENT_REVERT:
        printf("revert %s\n", h);
        break;
    case KD_LISTEN_EVENT_RETRY:
        if (ev->delay_ms)
            fprintf(stderr, "kdapp listen: %s; retrying in %u ms\n", ev->text, ev->delay_ms);
        else
            fprintf(stderr, "kdapp listen: %s; reconnecting\n", ev->text);
        break;
    }
    fflush(stdout);
}

static int parse_hash_opt(const char *text, void *value) { return kd_kaspa_hash_parse(text, value); }
static int parse_prefix_opt(const char *text, void *value) { return kd_tx_filter_parse_prefix(text, value); }

typedef struct {
    kd_listener *l;
} sig_ctx;

static void *wait_signal(void *arg)
{
    sig_ctx *s = arg;
    int sig = kd_signals_wait();
    fprintf(stderr, "kdapp listen: %s received, stopping\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
    kd_listener_stop(s->l);
    return NULL;
}

int kd_cmd_listen(kd_cli *cli, int argc, char **argv)
{
    const char *rpc = NULL, *network = NULL, *engine_url = NULL;
    uint8_t from[KD_HASH_LEN];
    int has_from = 0, quiet = 0;
    kd_node_options no = {0};
    kd_listen_options lo = {0};
    kd_tx_filter_default(&lo.filter);
    const kd_option opts[] = {
        KD_CLI_OPTIONS(cli),
        {.name = "rpc", .kind = KD_OPT_STRING, .value = &rpc},
        {.name = "network", .kind = KD_OPT_STRING, .value = &network},
        {.name = "engine", .kind = KD_OPT_STRING, .value = &engine_url},
        {.name = "from",
         .kind = KD_OPT_CUSTOM,
         .value = from,
         .parse = parse_hash_opt,
         .use = "64 hex digits",
         .seen = &has_from},
        {.name = "prefix",
         .kind = KD_OPT_CUSTOM,
         .value = &lo.filter.prefix,
         .parse = parse_prefix_opt,
         .use = "8 hex digits"},
        {.name = "poll-ms",
         .kind = KD_OPT_UINT,
         .value = &lo.poll_ms,
         .size = sizeof lo.poll_ms,
         .min = 10,
         .max = 600000},
        {.name = "rpc-timeout-ms",
         .kind = KD_OPT_UINT,
         .value = &lo.rpc_timeout_ms,
         .size = sizeof lo.rpc_timeout_ms,
         .min = 100,
         .max = 600000},
        KD_FINALITY_OPTION(no.finality),
        {.name = "quiet", .short_name = 'q', .kind = KD_OPT_FLAG, .value = &quiet},
        {0},
    };
    const kd_usage u = {.prog = "kdapp listen", .print = kd_usage_print_text, .ctx = usage_text};
    int first, stop, rc = kd_options_parse_usage(&u, opts, argc, argv, &first, &stop);
    if (rc || stop)
        return rc;
    char default_rpc[64];
    if (network && !kd_kaspa_json_port(network)) {
        fprintf(stderr,
                "kdapp listen: --network '%s' is not valid: use mainnet, testnet-10, testnet-11, devnet or "
                "simnet\n",
                network);
        return KD_EXIT_USAGE;
    }
    if (!rpc) {
        if (!network) {
            fprintf(stderr, "kdapp listen: give --rpc ws://HOST:PORT, or --network for a node on this machine\n");
            return kd_usage_fail(&u);
        }
        snprintf(default_rpc, sizeof default_rpc, "ws://127.0.0.1:%u", kd_kaspa_json_port(network));
        rpc = default_rpc;
    }
    if (engine_url && no.finality) {
        fprintf(stderr, "kdapp listen: --finality applies to the embedded engine, not to --engine\n");
        return kd_usage_fail(&u);
    }

    kd_signals_block();
    kd_node node;
    int node_started = 0;
    char why[1024], inproc[64], ingest[KD_URL_MAX + 80];
    /* The chain the store follows, kaspa:<network>: --network, the
     * store's, or the node's (engine/chain.h). */
    char store_chain[KD_CHAIN_MAX] = "", chain[KD_CHAIN_MAX];
    if (!engine_url)
        (void)kd_cli_store_chain(cli, NULL, store_chain);
    kd_err err = kd_listen_chain(rpc, network, store_chain, lo.rpc_timeout_ms ? lo.rpc_timeout_ms : 10000, chain, why,
                                 sizeof why);
    if (err) {
        fprintf(stderr, "kdapp listen: %s\n", why);
        return err == KD_ERR_INVALID_ARG ? KD_EXIT_USAGE : KD_EXIT_FAIL;
    }
    no.chain = chain;
    if (!engine_url) {
        kd_endpoints ep;
        if (kd_endpoints_default(cli->data_dir, &ep, why, sizeof why) != KD_OK) {
            fprintf(stderr, "kdapp listen: %s\n", why);
            return KD_EXIT_FAIL;
        }
        snprintf(inproc, sizeof inproc, "inproc://kdapp-listen-%ld", (long)getpid());
        snprintf(ingest, sizeof ingest, "%s,%s", inproc, ep.ingest);
        no.ingest_urls = ingest;
        no.publish_urls = ep.publish;
        if ((err = kd_node_start(&node, cli, &no, why, sizeof why))) {
            fprintf(stderr, "kdapp listen: %s\n", why);
            return err == KD_ERR_LOCKED || err == KD_ERR_SETTINGS ? KD_EXIT_USAGE : KD_EXIT_FAIL;
        }
        node_started = 1;
        engine_url = inproc;
    }
    kd_ingest_client *ic = NULL;
    kd_listener *l = NULL;
    if ((err = kd_ingest_client_open(engine_url, 1000, &ic, why, sizeof why)) ||
        (err = kd_ingest_client_name_chain(ic, chain))) {
        fprintf(stderr, "kdapp listen: the engine at %s: %s\n", engine_url, why);
        goto done;
    }
    if (node_started) { /* the engine's finality depth: a deeper reorg is refused before any of it is sent */
        kd_read *rd = NULL;
        kd_tip tip;
        if (!kd_engine_read_begin(node.engine, &rd) && !kd_read_tip(rd, &tip))
            lo.finality_depth = tip.finality_depth;
        kd_engine_read_end(rd);
    }
    lo.rpc_url = rpc;
    lo.network = chain + sizeof KD_CHAIN_KASPA - 1; /* the node must stay on the store's network */
    lo.ingest = ic;
    lo.from = has_from ? from : NULL;
    lo.on_event = on_event;
    lo.event_ctx = &quiet;
    if ((err = kd_listener_alloc(&lo, &l))) {
        fprintf(stderr, "kdapp listen: %s\n", kd_err_str(err));
        goto done;
    }
    fprintf(stderr, "kdapp listen: following %s into %s (chain %s)\n", rpc, node_started ? cli->data_dir : engine_url,
            chain);
    sig_ctx sc = {.l = l};
    pthread_t sig_thread;
    if (pthread_create(&sig_thread, NULL, wait_signal, &sc)) {
        err = KD_ERR_NOMEM;
        fprintf(stderr, "kdapp listen: cannot start a thread\n");
        goto done;
    }
    err = kd_listener_run(l, why, sizeof why);
    pthread_kill(sig_thread, SIGTERM); /* wakes the signal thread if no signal came */
    pthread_join(sig_thread, NULL);
    if (err)
        fprintf(stderr, "kdapp listen: %s\n", why);
done:
    kd_listener_free(l);
    kd_ingest_client_close(ic);
    if (node_started)
        kd_node_stop(&node);
    if (!err)
        fprintf(stderr, "kdapp listen: stopped cleanly\n");
    return !err ? KD_EXIT_OK : err == KD_ERR_INVALID_ARG ? KD_EXIT_USAGE : KD_EXIT_FAIL;
}
