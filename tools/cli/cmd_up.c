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
 *
 * With --rpc ws://NODE the chain is a Kaspa node instead of the devnet:
 *
 *   kaspad ──wRPC──► listener (tools/listen) ──inproc──► engine ingest
 *     ▲                                                     │
 *   writer (tools/kaspa) ◄── ipc devnet URL (submit, status) └──► views
 *
 * The control socket speaks the devnet's protocol, so `kdapp submit` and
 * `kdapp mcp` attach unchanged: a submit becomes a Kaspa transaction paid
 * by the seat's key or the --funding wallet, and its answer is the
 * transaction's id, which the engine applies once the listener sees the
 * node accept it on the virtual chain. A reorg request is refused: a real
 * node reorganises by itself, and the listener follows it.
 */
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "engine/bytes.h"
#include "tools/chain/devnet.h"
#include "tools/chain/devnet_control.h"
#include "tools/chain/ingest_client.h"
#include "tools/chain/node.h"
#include "tools/chain/report.h"
#include "tools/cli/commands.h"
#include "tools/common/endpoints.h"
#include "tools/common/options.h"
#include "tools/kaspa/kaspa_wallet.h"
#include "tools/kaspa/kaspa_writer.h"
#include "tools/listen/follower.h"
#include "tools/listen/kaspa_rpc.h"
#include "tools/listen/network.h"

/* ------------------------------------------------ --rpc: a Kaspa node */

typedef struct {
    kd_kwriter *w;
    kd_listener *l;
    int quiet;
} rpc_ctx;

/* Says what became of a write: refused with why, or sent (with its fee,
 * and any leftover paid as fee: never silent, even with --quiet). `res`
 * may be NULL (a client's own transaction: none of ours paid). */
static kd_err writer_said(const rpc_ctx *r, kd_err err, const char *what, const uint8_t tx_id[KD_HASH_LEN],
                          const kd_kbuild_result *res, const char *why)
{
    if (err) {
        fprintf(stderr, "kdapp up: %s was not sent: %s\n", what, why);
        return err;
    }
    char h[2 * KD_HASH_LEN + 1], note[512];
    kd_hex_encode(tx_id, KD_HASH_LEN, h);
    if (!r->quiet && res)
        fprintf(stderr, "kdapp up: sent transaction %s, fee %" PRIu64 " sompi\n", h, res->fee);
    else if (!r->quiet)
        fprintf(stderr, "kdapp up: sent transaction %s\n", h);
    if (res && kd_kbuild_note(res, note, sizeof note))
        fprintf(stderr, "kdapp up: transaction %s: %s\n", h, note);
    return err;
}
static kd_err writer_submit(void *ctx, const uint8_t *payload, size_t len, const kd_chain_spend *spend,
                            uint8_t tx_id[KD_HASH_LEN], char *why, size_t why_len)
{
    rpc_ctx *r = ctx;
    kd_kbuild_result res;
    kd_err err = kd_kwriter_submit(r->w, payload, len, spend, tx_id, &res, why, why_len);
    err = writer_said(r, err, "a command", tx_id, &res, why);
    kd_kbuild_result_fini(&res);
    return err;
}
static kd_err writer_submit_tx(void *ctx, const char *json, size_t len, uint8_t tx_id[KD_HASH_LEN], char *why,
                               size_t why_len)
{
    rpc_ctx *r = ctx;
    return writer_said(r, kd_kwriter_submit_tx(r->w, json, len, tx_id, why, why_len), "a client's transaction", tx_id,
                       NULL, why);
}

static void writer_status(void *ctx, kd_devnet_info *info)
{
    rpc_ctx *r = ctx;
    kd_kwriter_stats st;
    kd_kwriter_stats_get(r->w, &st);
    memset(info, 0, sizeof *info);
    info->pending = (uint32_t)st.pending;
}

static void on_listen_event(void *ctx, const kd_listen_event *ev)
{
    const rpc_ctx *r = ctx;
    char h[2 * KD_HASH_LEN + 1] = "";
    if (ev->hash)
        kd_hex_encode(ev->hash, KD_HASH_LEN, h);
    if (ev->kind == KD_LISTEN_EVENT_CONNECTED)
        fprintf(stderr, "kdapp up: following %s\n", ev->text);
    else if (ev->kind == KD_LISTEN_EVENT_RETRY)
        fprintf(stderr, "kdapp up: the listener: %s\n", ev->text);
    else if (!r->quiet && ev->kind == KD_LISTEN_EVENT_REVERT)
        fprintf(stderr, "kdapp up: revert %.16s\n", h);
    else if (!r->quiet && ev->kind == KD_LISTEN_EVENT_ACCEPT && ev->txs_matched)
        fprintf(stderr, "kdapp up: accept %.16s: %u kdapp tx%s, %u applied\n", h, ev->txs_matched,
                ev->txs_matched == 1 ? "" : "s", ev->txs_applied);
}

static void *wait_signal(void *arg)
{
    rpc_ctx *r = arg;
    int sig = kd_signals_wait();
    fprintf(stderr, "kdapp up: %s received, stopping the listener, then the engine\n",
            sig == SIGINT ? "SIGINT" : "SIGTERM");
    kd_listener_stop(r->l);
    return NULL;
}

static int parse_prefix_opt(const char *text, void *value) { return kd_tx_filter_parse_prefix(text, value); }

static int parse_budget_opt(const char *text, void *value) { return kd_kbudget_parse(text, value); }

static int up_rpc(kd_cli *cli, int argc, char **argv)
{
    static const char usage[] =
        "usage: kdapp up --rpc ws://HOST:PORT [--network NET] [--funding NAME] [--funding-budget G,H,T]\n"
        "                [--payers REF,REF...] [--fee-rate SOMPI_PER_KG] [--prefix HEX8] [--data DIR]\n"
        "                [--finality N] [--quiet]\n"
        "Runs the engine, a listener following the Kaspa node and a writer sending commands to it as\n"
        "transactions, serving the devnet's control socket (kdapp submit, kdapp mcp attach unchanged).\n"
        "  --network         the network the node must be on (testnet-10, mainnet, ...)\n"
        "  --funding         the wallet (key name) paying for the grants' commands no seat's own key pays for\n"
        "                    (never for a gateway session without a grant)\n"
        "  --funding-budget  what the funding wallet pays at most, in sompi: per grant, per hour, in total\n"
        "                    (each a number or none; default 100000000,200000000,1000000000: 1, 2, 10 KAS)\n"
        "  --payers          more keys that pay for their own commands (test:NAME, key names)\n";
    kd_node_options no = {0};
    kd_kwriter_options wo = {0};
    kd_listen_options lo = {0};
    kd_tx_filter_default(&wo.filter);
    kd_kbudget_default(&wo.budget);
    rpc_ctx r = {0};
    const kd_option opts[] = {
        KD_CLI_OPTIONS(cli),
        {.name = "rpc", .kind = KD_OPT_STRING, .value = &wo.rpc_url},
        {.name = "network", .kind = KD_OPT_STRING, .value = &wo.network},
        {.name = "funding", .kind = KD_OPT_STRING, .value = &wo.funding},
        {.name = "funding-budget",
         .kind = KD_OPT_CUSTOM,
         .value = &wo.budget,
         .parse = parse_budget_opt,
         .use = "GRANT,HOUR,TOTAL in sompi, each a number or none (e.g. 100000000,200000000,1000000000)"},
        {.name = "payers", .kind = KD_OPT_STRING, .value = &wo.payers},
        {.name = "fee-rate", .kind = KD_OPT_UINT, .value = &wo.fee_rate, .min = 1, .max = 1000000000000ull},
        {.name = "prefix",
         .kind = KD_OPT_CUSTOM,
         .value = &wo.filter.prefix,
         .parse = parse_prefix_opt,
         .use = "8 hex digits"},
        KD_FINALITY_OPTION(no.finality),
        {.name = "quiet", .short_name = 'q', .kind = KD_OPT_FLAG, .value = &r.quiet},
        {0},
    };
    const kd_usage u = {.prog = "kdapp up", .print = kd_usage_print_text, .ctx = usage};
    int first, stop, rc = kd_options_parse_usage(&u, opts, argc, argv, &first, &stop);
    if (rc || stop)
        return rc;
    if (wo.network && !kd_kaspa_json_port(wo.network)) {
        fprintf(stderr, "kdapp up: --network '%s' is not mainnet, testnet-10, testnet-11, devnet or simnet\n",
                wo.network);
        return KD_EXIT_USAGE;
    }
    kd_endpoints ep;
    char why[KD_KWALLET_WHY_MAX];
    if (kd_endpoints_default(cli->data_dir, &ep, why, sizeof why) != KD_OK) {
        fprintf(stderr, "kdapp up: %s\n", why);
        return KD_EXIT_FAIL;
    }
    wo.keys_dir = cli->keys_dir;
    char ledger[4200];
    snprintf(ledger, sizeof ledger, "%s/%s", cli->data_dir, KD_KLEDGER_FILE);
    wo.ledger_path = ledger;
    kd_signals_block();
    /* The chain the store follows, kaspa:<network> (engine/chain.h). */
    char store_chain[KD_CHAIN_MAX] = "", chain[KD_CHAIN_MAX];
    (void)kd_cli_store_chain(cli, NULL, store_chain);
    kd_err err = kd_listen_chain(wo.rpc_url, wo.network, store_chain, 10000, chain, why, sizeof why);
    if (err) {
        fprintf(stderr, "kdapp up: %s\n", why);
        return err == KD_ERR_INVALID_ARG ? KD_EXIT_USAGE : KD_EXIT_FAIL;
    }
    no.chain = chain;
    wo.network = chain + sizeof KD_CHAIN_KASPA - 1; /* the node must be on the store's network */
    err = kd_kwriter_open(&wo, &r.w, why, sizeof why);
    if (err) {
        fprintf(stderr, "kdapp up: %s\n", why);
        return err == KD_ERR_INVALID_ARG || err == KD_ERR_NOT_FOUND ? KD_EXIT_USAGE : KD_EXIT_FAIL;
    }
    char inproc[64], ingest[KD_URL_MAX + 80];
    snprintf(inproc, sizeof inproc, "inproc://kdapp-up-%ld", (long)getpid());
    snprintf(ingest, sizeof ingest, "%s,%s", inproc, ep.ingest);
    no.ingest_urls = ingest;
    no.publish_urls = ep.publish;
    kd_node node;
    kd_ingest_client *ic = NULL;
    kd_devnet_control *ctl = NULL;
    if ((err = kd_node_start(&node, cli, &no, why, sizeof why))) {
        fprintf(stderr, "kdapp up: %s\n", why);
        kd_kwriter_close(r.w);
        return err == KD_ERR_LOCKED || err == KD_ERR_SETTINGS ? KD_EXIT_USAGE : KD_EXIT_FAIL;
    }
    char refusal[KD_URL_MAX + 160];
    snprintf(refusal, sizeof refusal,
             "the chain is the Kaspa node at %s: it reorganises by itself, never on request (the listener follows "
             "its reorganisations)",
             wo.rpc_url);
    const kd_chain_ops ops = {.submit = writer_submit,
                              .submit_tx = writer_submit_tx,
                              .status = writer_status,
                              .no_reorg = refusal,
                              .ctx = &r};
    lo.rpc_url = wo.rpc_url;
    lo.network = wo.network;
    lo.filter = wo.filter;
    lo.on_event = on_listen_event;
    lo.event_ctx = &r;
    if ((err = kd_ingest_client_open(inproc, 1000, &ic, why, sizeof why)) ||
        (err = kd_ingest_client_name_chain(ic, chain)) || (err = (lo.ingest = ic, kd_listener_alloc(&lo, &r.l))) ||
        (err = kd_chain_control_open(&ops, ep.devnet, &ctl, why, sizeof why))) {
        fprintf(stderr, "kdapp up: %s\n", err == KD_ERR_NOMEM ? kd_err_str(err) : why);
        goto done;
    }
    fprintf(stderr,
            "kdapp up: engine, listener and writer running on %s for the Kaspa node %s\n"
            "  ingest  %s\n  views   %s\n  control %s (submit, status; no reorg)\n",
            cli->data_dir, wo.rpc_url, ingest, ep.publish, ep.devnet);
    pthread_t sig_thread;
    if (pthread_create(&sig_thread, NULL, wait_signal, &r)) {
        err = KD_ERR_NOMEM;
        goto done;
    }
    err = kd_listener_run(r.l, why, sizeof why);
    pthread_kill(sig_thread, SIGTERM); /* wakes the signal thread if no signal came */
    pthread_join(sig_thread, NULL);
    if (err)
        fprintf(stderr, "kdapp up: %s\n", why);
done:
    kd_devnet_control_close(ctl);
    kd_listener_free(r.l);
    kd_ingest_client_close(ic);
    kd_node_stop(&node);
    kd_kwriter_close(r.w);
    if (!err)
        fprintf(stderr, "kdapp up: stopped cleanly\n");
    return !err ? KD_EXIT_OK : err == KD_ERR_INVALID_ARG ? KD_EXIT_USAGE : KD_EXIT_FAIL;
}

/* ------------------------------------------------ the devnet */

int kd_cmd_up(kd_cli *cli, int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--rpc") || !strncmp(argv[i], "--rpc=", 6))
            return up_rpc(cli, argc, argv);
    static const char usage[] = "usage: kdapp up [--data DIR] [--block-ms N] [--finality N] [--seed S] [--quiet]\n"
                                "       kdapp up --rpc ws://HOST:PORT [OPTIONS]   on a Kaspa node (--rpc --help)\n";
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
    no.chain = KD_CHAIN_LOCAL; /* the devnet's: a store of a Kaspa network is refused */

    kd_signals_block();
    kd_node node;
    kd_devnet *dev = NULL;
    char why[512];
    kd_err err = kd_node_start(&node, cli, &no, why, sizeof why);
    if (err) {
        fprintf(stderr, "kdapp up: %s\n", why);
        return err == KD_ERR_LOCKED || err == KD_ERR_SETTINGS ? KD_EXIT_USAGE : KD_EXIT_FAIL;
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
