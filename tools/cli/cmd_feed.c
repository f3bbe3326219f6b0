/*
 * cmd_feed.c — `kdapp feed FILE`: applies a block script through the
 * engine, one line of output per chain event with its outcome and digest;
 * with --connect, through a daemon's ingest socket. Signed moves get the
 * counters a dry run predicts (tools/feeder.h).
 */
#include <stdio.h>
#include <string.h>

#include "engine/wire.h"
#include "tools/chain/ingest_client.h"
#include "tools/chain/report.h"
#include "tools/cli/commands.h"
#include "tools/common/options.h"
#include "tools/script/feeder.h"

/* The usage goes to stderr, for --help too (as it always has). */
static void usage(FILE *out, const void *ctx)
{
    (void)out;
    (void)ctx;
    fputs("usage: kdapp feed [--data DIR] [--keys DIR] [--finality N] [--chain CHAIN] [--quiet]\n"
          "                  [--connect URL [--timeout MS]] FILE|-\n"
          "  --chain  the chain of the store fed (engine/chain.h: kaspa:NETWORK, local:<store id>): a new\n"
          "           store follows it, the consents of the script's creations are signed for it\n"
          "           (default: the store's own; with --connect, the daemon's, and requests name it)\n",
          stderr);
}

/* The remote predictor: a dry run of the block's earlier txs on the daemon. */
typedef struct {
    kd_ingest_client *client;
    char why[KD_DETAIL_MAX + 64]; /* the daemon's answer when it refused */
} remote_predictor;

static kd_err predict_remote(void *ctx, const kd_buf *earlier, uint32_t episode_id, uint64_t *counter)
{
    remote_predictor *p = ctx;
    kd_ingest_reply reply;
    kd_err err = kd_ingest_client_dry_run(p->client, earlier, &episode_id, 1, &reply);
    if (err)
        return err;
    if (reply.err || !reply.has_dry_run) {
        snprintf(p->why, sizeof p->why, "the engine did not answer a dry run (%s: %s)", kd_err_code(reply.err),
                 reply.detail);
        err = reply.err ? reply.err : KD_ERR_DECODE;
    }
    *counter = 0;
    for (size_t i = 0; i < reply.counter_count; i++)
        if (reply.counters[i].episode_id == episode_id)
            *counter = reply.counters[i].counter;
    kd_ingest_reply_fini(&reply);
    return err;
}

/* The chain the consents are signed for: --chain (then every request
 * names it, so a daemon of another chain refuses them), else the one the
 * daemon names in its answer to an empty dry run. */
static kd_err remote_chain(kd_cli *cli, kd_ingest_client *client, char out[KD_CHAIN_MAX], char *why, size_t why_len)
{
    if (cli->chain) {
        snprintf(out, KD_CHAIN_MAX, "%s", cli->chain);
        kd_err err = kd_ingest_client_name_chain(client, cli->chain);
        if (err)
            snprintf(why, why_len, "--chain '%.80s' is not a chain name (kaspa:NETWORK, local:<32 hex digits>)",
                     cli->chain);
        return err;
    }
    uint8_t none[KD_HASH_LEN] = {0};
    kd_buf block;
    kd_buf_init(&block);
    kd_ingest_reply reply;
    kd_err err = kd_wire_accept(none, 0, 0, NULL, 0, &block);
    if (!err && !(err = kd_ingest_client_dry_run(client, &block, NULL, 0, &reply))) {
        snprintf(out, KD_CHAIN_MAX, "%s", reply.chain);
        kd_ingest_reply_fini(&reply);
        if (!out[0]) {
            snprintf(why, why_len, "the engine names no chain (it predates chains): give --chain");
            err = KD_ERR_INVALID_ARG;
        }
    } else if (err) {
        snprintf(why, why_len, "cannot ask the engine for its chain: %s", kd_err_str(err));
    }
    kd_buf_fini(&block);
    return err;
}

/* Sends each op to a daemon over NNG; each signed move's counter comes
 * from a dry run on the daemon (tools/feeder.h). */
static int feed_remote(kd_cli *cli, const kd_script *script, const char *url, uint32_t timeout_ms, int quiet)
{
    remote_predictor pred = {.client = NULL};
    kd_feeder *feeder = NULL;
    kd_buf msg;
    kd_buf_init(&msg);
    char why[512], chain[KD_CHAIN_MAX];
    int rc = KD_EXIT_OK;
    kd_err err = kd_ingest_client_open(url, timeout_ms, &pred.client, why, sizeof why);
    if (!err)
        err = remote_chain(cli, pred.client, chain, why, sizeof why);
    if (err || (err = kd_feeder_alloc_remote(predict_remote, &pred, chain, &feeder))) {
        fprintf(stderr, "kdapp feed: %s\n", err == KD_ERR_NOMEM ? "out of memory" : why);
        rc = err == KD_ERR_INVALID_ARG ? KD_EXIT_USAGE : KD_EXIT_FAIL;
        goto done;
    }
    kd_ingest_reply reply = {0};
    for (size_t i = 0; i < script->count; i++) {
        const kd_script_op *op = &script->ops[i];
        msg.len = 0;
        if ((err = kd_feeder_encode(feeder, op, &msg)) || (err = kd_ingest_client_send(pred.client, &msg, 1, &reply))) {
            fprintf(stderr, "kdapp feed: line %u: %s (%s)\n", op->line, pred.why[0] ? pred.why : kd_err_str(err), url);
            rc = KD_EXIT_FAIL;
            goto done;
        }
        if (reply.err || reply.count != 1) {
            fprintf(stderr, "kdapp feed: line %u: the engine answered %s: %s\n", op->line, kd_err_code(reply.err),
                    reply.detail);
            kd_ingest_reply_fini(&reply);
            rc = KD_EXIT_FAIL;
            goto done;
        }
        if (!quiet)
            kd_report_result(stdout, op->line, &reply.results[0], &reply.tip);
        if (i + 1 == script->count) {
            char d[2 * KD_HASH_LEN + 1];
            kd_hex_encode(reply.tip.digest, KD_HASH_LEN, d);
            printf("tip height %llu digest %s\n", (unsigned long long)reply.tip.height, d);
        }
        kd_ingest_reply_fini(&reply);
    }
done:
    kd_buf_fini(&msg);
    kd_feeder_free(feeder);
    kd_ingest_client_close(pred.client);
    return rc;
}

int kd_cmd_feed(kd_cli *cli, int argc, char **argv)
{
    uint64_t finality = 0, timeout_ms = 0;
    const char *connect = NULL;
    int quiet = 0;
    const kd_option opts[] = {
        KD_CLI_OPTIONS(cli),
        KD_FINALITY_OPTION(finality),
        KD_CHAIN_OPTION(cli),
        {.name = "quiet", .short_name = 'q', .kind = KD_OPT_FLAG, .value = &quiet},
        {.name = "connect", .kind = KD_OPT_STRING, .value = &connect},
        {.name = "timeout",
         .kind = KD_OPT_UINT,
         .value = &timeout_ms,
         .min = 1,
         .max = UINT32_MAX,
         .use = "milliseconds, 1 or more"},
        {0},
    };
    const kd_usage u = {.prog = "kdapp feed", .print = usage, .operands = 1};
    int optind_first, stop, rc = kd_options_parse_usage(&u, opts, argc, argv, &optind_first, &stop);
    if (rc || stop)
        return rc;
    const char *path = argv[optind_first];

    /* Parse the whole script first: a malformed line stops the feed before
     * anything is applied. */
    kd_script script;
    kd_script_init_types(&script, &cli->types);
    char why[512];
    kd_err err = kd_script_load(path, cli->keys_dir, &script, why, sizeof why);
    if (err) {
        fprintf(stderr, "kdapp feed: %s: %s\n", path, why);
        kd_script_fini(&script);
        return KD_EXIT_USAGE;
    }
    if (connect) {
        rc = feed_remote(cli, &script, connect, (uint32_t)timeout_ms, quiet);
        kd_script_fini(&script);
        return rc;
    }
    kd_engine *engine = NULL;
    kd_feeder *feeder = NULL;
    kd_buf msg;
    kd_buf_init(&msg);
    rc = kd_cli_open_engine(cli, NULL, 0, finality, &engine);
    if (rc)
        goto done;
    if ((err = kd_feeder_alloc_local(engine, &feeder))) {
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
        kd_msg_result_fini(&res);
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
