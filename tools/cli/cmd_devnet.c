/*
 * cmd_devnet.c — the devnet's commands:
 *
 *   kdapp devnet        run a local chain feeding an engine (tools/devnet.h)
 *   kdapp devnet-reorg  ask a running devnet to revert its last N blocks
 *   kdapp devnet-status print a running devnet's height, pending txs and tip
 *   kdapp submit        build a payload (new episode or a signed move),
 *                       submit it to a devnet, optionally wait for the block
 *                       that carries it and print the engine's verdict
 *
 * Every URL defaults to the data directory's endpoints (tools/endpoints.h),
 * so with `kdapp up` or `kdapp engine` + `kdapp devnet` on the same --data
 * no flags are needed.
 */
#include <nng/nng.h>
#include <nng/protocol/pubsub0/sub.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/crypto.h"
#include "engine/ingest.h"
#include "engine/netutil.h"
#include "engine/wire.h"
#include "handlers/publisher.h"
#include "kdapp.pb-c.h"
#include "tools/chain/devnet.h"
#include "tools/chain/devnet_client.h"
#include "tools/chain/node.h"
#include "tools/chain/report.h"
#include "tools/cli/commands.h"
#include "tools/common/endpoints.h"
#include "tools/common/options.h"
#include "tools/script/blockscript.h"
#include "tools/script/feeder.h"

/* ---------------------------------------------------------------- devnet */

/* Prints why a devnet request failed; when no devnet answered at the
 * default URL of the data directory, says so of the directory (the hashed
 * socket path alone names nothing a user chose) and how to start one. */
static void devnet_failed(const kd_cli *cli, const char *prog, const char *url, const kd_endpoints *ep, kd_err err,
                          const char *why)
{
    if (err == KD_ERR_TIMEOUT && strcmp(url, ep->devnet) == 0 && strstr(why, "could not be sent"))
        fprintf(stderr,
                "%s: no devnet runs for data directory %s (nothing answers at %s): start one with `kdapp up "
                "--data %s`, or give the data directory of the one running (--data DIR)\n",
                prog, cli->data_dir, url, cli->data_dir);
    else
        fprintf(stderr, "%s: %s\n", prog, why);
}

int kd_cmd_devnet(kd_cli *cli, int argc, char **argv)
{
    static const char usage[] = "usage: kdapp devnet [--data DIR] [--listen URLS] [--engine URL] [--block-ms N]\n"
                                "                    [--seed S] [--max-txs N] [--quiet]\n";
    kd_devnet_options o = {0};
    kd_endpoint_urls urls = {0};
    int quiet = 0;
    char max_txs[32];
    snprintf(max_txs, sizeof max_txs, "1 to %u", KD_INGEST_MAX_MSGS * 100u);
    const kd_option opts[] = {
        KD_CLI_OPTIONS(cli),
        {.name = "listen", .kind = KD_OPT_STRING, .value = &urls.devnet},
        {.name = "engine", .kind = KD_OPT_STRING, .value = &urls.ingest},
        KD_DEVNET_CHAIN_OPTIONS(o),
        {.name = "max-txs",
         .kind = KD_OPT_UINT,
         .value = &o.max_txs_per_block,
         .size = sizeof o.max_txs_per_block,
         .min = 1,
         .max = KD_INGEST_MAX_MSGS * 100u,
         .use = max_txs},
        {.name = "quiet", .short_name = 'q', .kind = KD_OPT_FLAG, .value = &quiet},
        {0},
    };
    const kd_usage u = {.prog = "kdapp devnet", .print = kd_usage_print_text, .ctx = usage};
    int first, stop, rc = kd_options_parse_usage(&u, opts, argc, argv, &first, &stop);
    if (rc || stop)
        return rc;
    kd_endpoints ep;
    char ep_why[512];
    if (kd_endpoints_resolve(cli->data_dir, &urls, &ep, ep_why, sizeof ep_why) != KD_OK) {
        fprintf(stderr, "kdapp devnet: %s\n", ep_why);
        return KD_EXIT_FAIL;
    }
    o.listen_urls = urls.devnet;
    o.engine_url = urls.ingest;
    if (!quiet)
        o.on_event = kd_report_devnet_event;
    kd_signals_block();
    kd_devnet *dev = NULL;
    char why[512];
    kd_err err = kd_devnet_open(&o, &dev, why, sizeof why);
    if (err) {
        fprintf(stderr, "kdapp devnet: %s\n", why);
        return err == KD_ERR_INVALID_ARG || err == KD_ERR_LOCKED ? KD_EXIT_USAGE : KD_EXIT_FAIL;
    }
    fprintf(stderr, "kdapp devnet: a block every %u ms (seed %llu)\n  control %s\n  engine  %s\n",
            o.block_ms ? o.block_ms : KD_DEVNET_DEFAULT_BLOCK_MS, (unsigned long long)o.seed,
            *o.listen_urls ? o.listen_urls : "(none)", o.engine_url);
    int sig = kd_signals_wait();
    fprintf(stderr, "kdapp devnet: %s received, stopping\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
    kd_devnet_close(dev);
    fprintf(stderr, "kdapp devnet: stopped cleanly\n");
    return KD_EXIT_OK;
}

/* ---------------------------------------------------------- devnet-reorg */

int kd_cmd_devnet_reorg(kd_cli *cli, int argc, char **argv)
{
    static const char usage[] = "usage: kdapp devnet-reorg [--data DIR] [--devnet URL] --depth N [--drop P] "
                                "[--reorder] [--timeout MS]\n";
    kd_endpoint_urls urls = {0};
    uint64_t depth = 0, timeout = 30000;
    double drop = 0;
    int reorder = 0;
    char depths[32];
    snprintf(depths, sizeof depths, "1 to %u", KD_DEVNET_CHAIN_MAX);
    const kd_option opts[] = {
        KD_CLI_OPTIONS(cli),
        {.name = "devnet", .kind = KD_OPT_STRING, .value = &urls.devnet},
        {.name = "depth", .kind = KD_OPT_UINT, .value = &depth, .min = 1, .max = KD_DEVNET_CHAIN_MAX, .use = depths},
        {.name = "drop", .kind = KD_OPT_DOUBLE, .value = &drop, .dmax = 1, .use = "a probability from 0 to 1"},
        {.name = "reorder", .kind = KD_OPT_FLAG, .value = &reorder},
        {.name = "timeout", .kind = KD_OPT_UINT, .value = &timeout, .min = 1, .max = UINT32_MAX, .use = "milliseconds"},
        {0},
    };
    const kd_usage u = {.prog = "kdapp devnet-reorg", .print = kd_usage_print_text, .ctx = usage};
    int first, stop, rc = kd_options_parse_usage(&u, opts, argc, argv, &first, &stop);
    if (rc || stop)
        return rc;
    if (depth == 0) /* --depth is required */
        return kd_usage_fail(&u);
    kd_endpoints ep;
    char ep_why[512];
    if (kd_endpoints_resolve(cli->data_dir, &urls, &ep, ep_why, sizeof ep_why) != KD_OK) {
        fprintf(stderr, "kdapp devnet-reorg: %s\n", ep_why);
        return KD_EXIT_FAIL;
    }
    kd_devnet_client *c = NULL;
    kd_devnet_answer ans;
    memset(&ans, 0, sizeof ans);
    char why[512] = "";
    kd_err err = kd_devnet_client_open(urls.devnet, (uint32_t)timeout, &c, why, sizeof why);
    if (!err)
        err = kd_devnet_client_reorg(c, (uint32_t)depth, drop, reorder, &ans, why, sizeof why);
    kd_devnet_client_close(c);
    if (err && err != KD_ERR_TIMEOUT && err != KD_ERR_NET && err != KD_ERR_DECODE && ans.reverted == 0) {
        fprintf(stderr, "kdapp devnet-reorg: refused (%s): %s\n", kd_err_code(err), why);
        return err == KD_ERR_NOT_FOUND || err == KD_ERR_INVALID_ARG ? KD_EXIT_USAGE : KD_EXIT_FAIL;
    }
    if (err == KD_ERR_TIMEOUT || err == KD_ERR_NET || err == KD_ERR_DECODE || err == KD_ERR_INVALID_ARG) {
        devnet_failed(cli, "kdapp devnet-reorg", urls.devnet, &ep, err, why);
        return KD_EXIT_FAIL;
    }
    char h[2 * KD_HASH_LEN + 1] = "genesis";
    if (ans.has_tip)
        kd_hex_encode(ans.tip, KD_HASH_LEN, h);
    printf("reverted %u block%s; %u tx%s re-queued for new blocks, %u dropped%s\n", ans.reverted,
           ans.reverted == 1 ? "" : "s", ans.reincluded, ans.reincluded == 1 ? "" : "s", ans.dropped,
           reorder ? " (reordered)" : "");
    printf("devnet height %llu, tip %s, %u tx%s pending\n", (unsigned long long)ans.height, h, ans.pending,
           ans.pending == 1 ? "" : "s");
    if (err) {
        fprintf(stderr, "kdapp devnet-reorg: stopped early (%s): %s\n", kd_err_code(err), why);
        return KD_EXIT_FAIL;
    }
    return KD_EXIT_OK;
}

/* --------------------------------------------------------- devnet-status */

int kd_cmd_devnet_status(kd_cli *cli, int argc, char **argv)
{
    static const char usage[] = "usage: kdapp devnet-status [--data DIR] [--devnet URL] [--timeout MS]\n";
    kd_endpoint_urls urls = {0};
    uint64_t timeout = 5000;
    const kd_option opts[] = {
        KD_CLI_OPTIONS(cli),
        {.name = "devnet", .kind = KD_OPT_STRING, .value = &urls.devnet},
        {.name = "timeout", .kind = KD_OPT_UINT, .value = &timeout, .min = 1, .max = UINT32_MAX, .use = "milliseconds"},
        {0},
    };
    const kd_usage u = {.prog = "kdapp devnet-status", .print = kd_usage_print_text, .ctx = usage};
    int first, stop, rc = kd_options_parse_usage(&u, opts, argc, argv, &first, &stop);
    if (rc || stop)
        return rc;
    kd_endpoints ep;
    char ep_why[512];
    if (kd_endpoints_resolve(cli->data_dir, &urls, &ep, ep_why, sizeof ep_why) != KD_OK) {
        fprintf(stderr, "kdapp devnet-status: %s\n", ep_why);
        return KD_EXIT_FAIL;
    }
    kd_devnet_client *c = NULL;
    kd_devnet_answer ans;
    char why[512] = "";
    kd_err err = kd_devnet_client_open(urls.devnet, (uint32_t)timeout, &c, why, sizeof why);
    if (!err)
        err = kd_devnet_client_status(c, &ans, why, sizeof why);
    kd_devnet_client_close(c);
    if (err) {
        devnet_failed(cli, "kdapp devnet-status", urls.devnet, &ep, err, why);
        return KD_EXIT_FAIL;
    }
    char h[2 * KD_HASH_LEN + 1] = "genesis";
    if (ans.has_tip)
        kd_hex_encode(ans.tip, KD_HASH_LEN, h);
    printf("height %llu pending %u tip %s\n", (unsigned long long)ans.height, ans.pending, h);
    return KD_EXIT_OK;
}

/* ---------------------------------------------------------------- submit */

/* The repeatable --consent KEYREF (pointers into argv). */
typedef struct {
    const char *refs[KD_MAX_PARTICIPANTS];
    size_t n;
} consent_refs;

typedef struct {
    kd_endpoint_urls urls; /* --devnet, and --views (urls.publish) */
    consent_refs consent;
    uint32_t episode;
    int is_new, has_cap, has_counter, has_row, has_col, wait;
    uint8_t cap, row, col;
    int player; /* -1 unset, 0 X, 1 O: the block-script move shorthand */
    const char *participants, *signer, *type, *params, *command;
    uint64_t counter, timeout_ms;
} submit_args;

/* "A,B,..." (key references or 66-hex pubkeys) as a JSON array of strings:
 * the block script's participants. */
static json_t *participants_json(const char *list)
{
    json_t *arr = json_array();
    char *copy = strdup(list), *save = NULL;
    for (char *t = copy && arr ? strtok_r(copy, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save))
        if (json_array_append_new(arr, json_string(t))) {
            json_decref(arr);
            arr = NULL;
            break;
        }
    free(copy);
    return arr;
}

/* The episode's move counter and type from the data directory, read-only. */
static int read_episode(kd_cli *cli, uint32_t episode, uint64_t *counter, char type[KD_TYPE_NAME_MAX])
{
    kd_engine *engine = NULL;
    int rc = kd_cli_open_engine(cli, NULL, 1, 0, &engine);
    if (rc)
        return rc;
    kd_episode_snapshot snap;
    kd_err err = kd_engine_episode_read(engine, episode, &snap);
    *counter = 0;
    if (err == KD_ERR_NOT_FOUND) {
        fprintf(stderr, "kdapp submit: episode %u is not in %s yet; signing for move counter 0\n", episode,
                cli->data_dir);
    } else if (err) {
        fprintf(stderr, "kdapp submit: cannot read episode %u: %s\n", episode, kd_err_str(err));
        rc = KD_EXIT_FAIL;
    } else {
        *counter = snap.undo_depth;
        snprintf(type, KD_TYPE_NAME_MAX, "%s", snap.ops->type_name);
        kd_episode_snapshot_fini(&snap);
    }
    kd_engine_close(engine);
    return rc;
}

/* The tx the arguments describe, as a block-script tx (blockscript.h), so
 * that submit and block scripts convert through the type table alike. */
static int tx_json(kd_cli *cli, const submit_args *a, json_t **out)
{
    json_t *tx = NULL;
    json_error_t jerr;
    if (a->is_new) {
        json_t *parts = participants_json(a->participants), *params = NULL;
        if (a->params && !(params = json_loads(a->params, JSON_REJECT_DUPLICATES, &jerr))) {
            fprintf(stderr, "kdapp submit: --params is not JSON: %s\n", jerr.text);
            json_decref(parts);
            return KD_EXIT_USAGE;
        }
        const char *type = a->type ? a->type : cli->types.count ? cli->types.entries[0].type->ops->type_name : "";
        tx = json_pack("{s:{s:I, s:s, s:o}}", "new_episode", "id", (json_int_t)a->episode, "type", type, "participants",
                       parts);
        json_t *ne = json_object_get(tx, "new_episode");
        if (tx && params && json_object_set_new(ne, "params", params))
            tx = (json_decref(tx), NULL);
        else if (tx && !params && a->has_cap && json_object_set_new(ne, "cap", json_integer(a->cap)))
            tx = (json_decref(tx), NULL);
        else if (!tx)
            json_decref(params);
        json_t *consent = tx && a->consent.n ? json_array() : NULL;
        for (size_t i = 0; consent && i < a->consent.n; i++)
            if (json_array_append_new(consent, json_string(a->consent.refs[i])))
                consent = (json_decref(consent), NULL);
        if (tx && a->consent.n && (!consent || json_object_set_new(ne, "consent", consent)))
            tx = (json_decref(tx), NULL);
    } else {
        uint64_t counter = a->counter;
        char type[KD_TYPE_NAME_MAX] = "";
        int need_store = !a->has_counter || (a->command && !a->type);
        int rc = need_store ? read_episode(cli, a->episode, &counter, type) : KD_EXIT_OK;
        if (rc)
            return rc;
        if (a->has_counter)
            counter = a->counter;
        if (a->type)
            snprintf(type, sizeof type, "%s", a->type);
        if (a->command) {
            json_t *command = json_loads(a->command, JSON_REJECT_DUPLICATES, &jerr);
            if (!command) {
                fprintf(stderr, "kdapp submit: --command is not JSON: %s\n", jerr.text);
                return KD_EXIT_USAGE;
            }
            if (!type[0]) {
                fprintf(stderr, "kdapp submit: the type of episode %u is not known here: give --type\n", a->episode);
                json_decref(command);
                return KD_EXIT_USAGE;
            }
            tx = json_pack("{s:{s:I, s:s, s:I, s:s, s:o}}", "command", "episode", (json_int_t)a->episode, "signer",
                           a->signer, "counter", (json_int_t)counter, "episode_type", type, "command", command);
        } else {
            tx = json_pack("{s:{s:I, s:i, s:i, s:i, s:s, s:I}}", "move", "episode", (json_int_t)a->episode, "row",
                           (int)a->row, "col", (int)a->col, "player", a->player, "signer", a->signer, "counter",
                           (json_int_t)counter);
        }
    }
    if (!tx) {
        fprintf(stderr, "kdapp submit: out of memory\n");
        return KD_EXIT_FAIL;
    }
    *out = tx;
    return KD_EXIT_OK;
}

/* Builds the payload the arguments describe. */
static int build_payload(kd_cli *cli, const submit_args *a, kd_buf *out)
{
    json_t *tx = NULL, *line = NULL;
    char *text = NULL;
    kd_script script;
    kd_script_init_types(&script, &cli->types);
    int rc = tx_json(cli, a, &tx);
    if (rc)
        goto done;
    rc = KD_EXIT_FAIL;
    line = json_pack("{s:{s:s, s:[O]}}", "accept", "hash", "kdapp-submit", "txs", tx);
    text = line ? json_dumps(line, JSON_COMPACT) : NULL;
    if (!text)
        goto done;
    char why[512] = "";
    kd_err err = kd_script_parse(text, strlen(text), cli->keys_dir, &script, why, sizeof why);
    if (err) {
        /* "line 1: txs[0]: " says nothing about the arguments */
        const char *what = strstr(why, "txs[0]: ");
        fprintf(stderr, "kdapp submit: %s\n", what ? what + 8 : why);
        rc = err == KD_ERR_NOMEM || err == KD_ERR_IO ? KD_EXIT_FAIL : KD_EXIT_USAGE;
        goto done;
    }
    const kd_script_tx *t = &script.ops[0].txs[0];
    if (t->kind != KD_SCRIPT_TX_NEW_EPISODE) {
        err = kd_wire_signed_command(t->episode_id, t->body, t->body_len, &t->signer, t->counter, out);
        rc = err ? KD_EXIT_FAIL : KD_EXIT_OK;
        goto done;
    }
    /* A consent signs the chain of the store the creation is for. */
    char chain[KD_CHAIN_MAX] = "";
    if (cli->chain)
        snprintf(chain, sizeof chain, "%s", cli->chain);
    else if (t->consent_count && !kd_cli_store_chain(cli, NULL, chain)) {
        fprintf(stderr,
                "kdapp submit: a consent names the chain of the store it is for, and %s holds no store to read it "
                "from: give the devnet's --data DIR, or --chain\n",
                cli->data_dir);
        rc = KD_EXIT_USAGE;
        goto done;
    }
    if ((err = kd_feeder_new_episode(t, chain, out))) {
        fprintf(stderr, "kdapp submit: cannot sign the consents: %s\n",
                err == KD_ERR_INVALID_ARG ? "--chain is not a chain name (kaspa:NETWORK, local:<32 hex digits>)"
                                          : kd_err_str(err));
        rc = err == KD_ERR_INVALID_ARG ? KD_EXIT_USAGE : KD_EXIT_FAIL;
        goto done;
    }
    rc = KD_EXIT_OK;
done:
    kd_script_fini(&script);
    free(text);
    json_decref(line);
    json_decref(tx);
    return rc;
}

/* Subscribes to block summaries before submitting, so none is missed. */
static int views_open(const char *url, nng_socket *sock)
{
    int rv = nng_sub0_open(sock);
    if (rv) {
        fprintf(stderr, "kdapp submit: cannot open a subscriber socket: %s\n", nng_strerror(rv));
        return KD_EXIT_FAIL;
    }
    if ((rv = nng_socket_set_size(*sock, NNG_OPT_RECVMAXSZ, 0)) ||
        (rv = nng_socket_set(*sock, NNG_OPT_SUB_SUBSCRIBE, KD_TOPIC_BLOCK, sizeof KD_TOPIC_BLOCK)) ||
        (rv = nng_dial(*sock, url, NULL, 0))) {
        fprintf(stderr, "kdapp submit: cannot subscribe to the engine's views at %s: %s\n", url, nng_strerror(rv));
        kd_nng_close(*sock);
        return KD_EXIT_FAIL;
    }
    return KD_EXIT_OK;
}

/* Looks the tx up in the store's log (the data directory, read-only): the
 * fallback for a block summary the subscription missed (NNG attaches a
 * new subscriber asynchronously). Returns -1 when not found there. */
static int verdict_from_log(kd_engine *store, uint64_t after_seq, const uint8_t tx_id[KD_HASH_LEN])
{
    kd_tx_result r;
    uint8_t block[KD_HASH_LEN];
    uint64_t seq = 0;
    if (!store || kd_engine_find_tx(store, after_seq, tx_id, &r, block, &seq) != KD_OK)
        return -1;
    char h[17];
    kd_hex_encode(block, 8, h);
    if (r.applied)
        printf("applied in block %s (log seq %llu)\n", h, (unsigned long long)seq);
    else
        printf("rejected in block %s (log seq %llu): %s: %s\n", h, (unsigned long long)seq, r.code, r.detail);
    return r.applied ? KD_EXIT_OK : KD_EXIT_FAIL;
}

/* Waits for the block summary carrying `tx_id`; prints the verdict. Every
 * half second without one it also looks in the store's log. */
static int wait_verdict(nng_socket sock, const uint8_t tx_id[KD_HASH_LEN], uint64_t timeout_ms, kd_engine *store,
                        uint64_t after_seq)
{
    uint64_t deadline = kd_now_ms() + timeout_ms;
    for (;;) {
        uint64_t now = kd_now_ms();
        if (now >= deadline) {
            int rc = verdict_from_log(store, after_seq, tx_id);
            if (rc >= 0)
                return rc;
            fprintf(stderr, "kdapp submit: no block carried the tx within %llu ms\n", (unsigned long long)timeout_ms);
            return KD_EXIT_FAIL;
        }
        /* The receive timeout bounds the wait (a failed set would wait forever). */
        int rv =
            nng_socket_set_ms(sock, NNG_OPT_RECVTIMEO, (nng_duration)(deadline - now < 500 ? deadline - now : 500));
        if (rv) {
            fprintf(stderr, "kdapp submit: cannot bound the wait for block summaries: %s\n", nng_strerror(rv));
            return KD_EXIT_FAIL;
        }
        void *buf = NULL;
        size_t len = 0;
        rv = nng_recv(sock, &buf, &len, NNG_FLAG_ALLOC);
        if (rv == NNG_ETIMEDOUT) {
            int rc = verdict_from_log(store, after_seq, tx_id);
            if (rc >= 0)
                return rc;
            continue;
        }
        if (rv) {
            fprintf(stderr, "kdapp submit: receiving block summaries failed: %s\n", nng_strerror(rv));
            return KD_EXIT_FAIL;
        }
        const char *topic;
        const uint8_t *payload;
        size_t plen;
        Kdapp__BlockSummary *s = NULL;
        if (kd_pub_split(buf, len, &topic, &payload, &plen) == 0 && strcmp(topic, KD_TOPIC_BLOCK) == 0)
            s = kdapp__block_summary__unpack(NULL, plen, payload);
        int rc = -1;
        for (size_t i = 0; s && !s->reverted && i < s->n_txs && rc < 0; i++) {
            const Kdapp__TxResult *t = s->txs[i];
            if (t->tx_id.len != KD_HASH_LEN || memcmp(t->tx_id.data, tx_id, KD_HASH_LEN) != 0)
                continue;
            char h[17] = "";
            if (s->block_hash.len == KD_HASH_LEN)
                kd_hex_encode(s->block_hash.data, 8, h);
            if (t->applied)
                printf("applied in block %s (height %llu, log seq %llu)\n", h, (unsigned long long)s->tip_height,
                       (unsigned long long)s->log_seq);
            else
                printf("rejected in block %s (height %llu): %s: %s\n", h, (unsigned long long)s->tip_height,
                       t->error_code, t->error);
            rc = t->applied ? KD_EXIT_OK : KD_EXIT_FAIL;
        }
        if (s)
            kdapp__block_summary__free_unpacked(s, NULL);
        nng_free(buf, len);
        if (rc >= 0)
            return rc;
    }
}

static const char submit_usage[] =
    "usage: kdapp submit [--devnet URL] [--data DIR] [--keys DIR] --episode ID\n"
    "         (--new --participants A,B [--type T] [--params JSON | --cap N] [--consent KEY]...\n"
    "          | --command JSON --signer KEY [--type T] [--counter N]\n"
    "          | --row R --col C --player X|O --signer KEY [--counter N])\n"
    "         [--wait [--views URL] [--timeout MS]]\n"
    "  --command is the type's command JSON (the type of the episode in --data, or --type);\n"
    "  --cap and --row/--col/--player are the block scripts' shorthand (tools/README.md, Block scripts);\n"
    "  --consent KEY (repeatable): that participant signs the creation (a type may require it), for the chain\n"
    "    of the store in --data, or --chain CHAIN\n";

static int parse_player(const char *text, void *value)
{
    int *player = value;
    if (strcmp(text, "X") == 0 || strcmp(text, "x") == 0 || strcmp(text, "0") == 0)
        *player = 0;
    else if (strcmp(text, "O") == 0 || strcmp(text, "o") == 0 || strcmp(text, "1") == 0)
        *player = 1;
    else
        return -1;
    return 0;
}

static int parse_consent(const char *text, void *value)
{
    consent_refs *c = value;
    if (!text[0] || c->n == KD_MAX_PARTICIPANTS)
        return -1;
    c->refs[c->n++] = text;
    return 0;
}

static int parse_submit(kd_cli *cli, int argc, char **argv, submit_args *a)
{
    memset(a, 0, sizeof *a);
    a->player = -1;
    a->timeout_ms = 30000;
    const kd_option opts[] = {
        KD_CLI_OPTIONS(cli),
        {.name = "devnet", .kind = KD_OPT_STRING, .value = &a->urls.devnet},
        {.name = "views", .kind = KD_OPT_STRING, .value = &a->urls.publish},
        {.name = "episode",
         .kind = KD_OPT_UINT,
         .value = &a->episode,
         .size = sizeof a->episode,
         .min = 1,
         .max = UINT32_MAX,
         .use = "1 to 4294967295"},
        {.name = "new", .kind = KD_OPT_FLAG, .value = &a->is_new},
        {.name = "participants", .kind = KD_OPT_STRING, .value = &a->participants},
        {.name = "type", .kind = KD_OPT_STRING, .value = &a->type},
        {.name = "params", .kind = KD_OPT_STRING, .value = &a->params},
        {.name = "cap",
         .kind = KD_OPT_UINT,
         .value = &a->cap,
         .size = sizeof a->cap,
         .min = 1,
         .max = 9,
         .use = "1 to 8 (stress mode) or 9 (classic)",
         .seen = &a->has_cap},
        {.name = "consent",
         .kind = KD_OPT_CUSTOM,
         .value = &a->consent,
         .parse = parse_consent,
         .use = "a key reference, at most 8 times"},
        KD_CHAIN_OPTION(cli),
        {.name = "command", .kind = KD_OPT_STRING, .value = &a->command},
        {.name = "row",
         .kind = KD_OPT_UINT,
         .value = &a->row,
         .size = sizeof a->row,
         .max = 255,
         .use = "0 to 2 (up to 255 reaches the engine)",
         .seen = &a->has_row},
        {.name = "col",
         .kind = KD_OPT_UINT,
         .value = &a->col,
         .size = sizeof a->col,
         .max = 255,
         .use = "0 to 2 (up to 255 reaches the engine)",
         .seen = &a->has_col},
        {.name = "player", .kind = KD_OPT_CUSTOM, .value = &a->player, .parse = parse_player, .use = "X or O"},
        {.name = "signer", .kind = KD_OPT_STRING, .value = &a->signer},
        {.name = "counter",
         .kind = KD_OPT_UINT,
         .value = &a->counter,
         .use = "a non-negative integer",
         .seen = &a->has_counter},
        {.name = "wait", .kind = KD_OPT_FLAG, .value = &a->wait},
        {.name = "timeout",
         .kind = KD_OPT_UINT,
         .value = &a->timeout_ms,
         .min = 1,
         .max = UINT32_MAX,
         .use = "milliseconds, 1 or more"},
        {0},
    };
    const kd_usage u = {.prog = "kdapp submit", .print = kd_usage_print_text, .ctx = submit_usage};
    int first, stop, rc = kd_options_parse_usage(&u, opts, argc, argv, &first, &stop);
    if (rc || stop)
        return stop ? -1 : rc;
    int shorthand = a->has_row || a->has_col || a->player >= 0;
    int has_move = shorthand || a->command || a->signer;
    if (!a->episode || a->is_new == has_move) /* --episode, and a creation or a move */
        return kd_usage_fail(&u);
    if (a->is_new && !a->participants) {
        fprintf(stderr, "kdapp submit: --new needs --participants A,B\n");
        return KD_EXIT_USAGE;
    }
    if (!a->is_new && a->consent.n) {
        fprintf(stderr, "kdapp submit: --consent signs a creation: it needs --new\n");
        return KD_EXIT_USAGE;
    }
    if (a->is_new && a->params && a->has_cap) {
        fprintf(stderr, "kdapp submit: give --params or the shorthand --cap, not both\n");
        return KD_EXIT_USAGE;
    }
    if (has_move && a->command && shorthand) {
        fprintf(stderr, "kdapp submit: give --command or the shorthand --row/--col/--player, not both\n");
        return KD_EXIT_USAGE;
    }
    if (has_move && !a->command && (!a->has_row || !a->has_col || a->player < 0 || !a->signer)) {
        fprintf(stderr, "kdapp submit: a move needs --row, --col, --player and --signer\n");
        return KD_EXIT_USAGE;
    }
    if (a->command && !a->signer) {
        fprintf(stderr, "kdapp submit: --command needs --signer\n");
        return KD_EXIT_USAGE;
    }
    return KD_EXIT_OK;
}

int kd_cmd_submit(kd_cli *cli, int argc, char **argv)
{
    submit_args a;
    int rc = parse_submit(cli, argc, argv, &a);
    if (rc)
        return rc < 0 ? KD_EXIT_OK : rc;
    kd_endpoints ep;
    char ep_why[512];
    if (kd_endpoints_resolve(cli->data_dir, &a.urls, &ep, ep_why, sizeof ep_why) != KD_OK) {
        fprintf(stderr, "kdapp submit: %s\n", ep_why);
        return KD_EXIT_FAIL;
    }
    kd_buf payload;
    kd_buf_init(&payload);
    kd_devnet_client *c = NULL;
    nng_socket sub = NNG_SOCKET_INITIALIZER;
    int sub_open = 0;
    kd_engine *store = NULL; /* the log, for a missed block summary */
    uint64_t after_seq = 0;
    if ((rc = build_payload(cli, &a, &payload)))
        goto done;
    if (a.wait) {
        if ((rc = views_open(a.urls.publish, &sub)))
            goto done;
        sub_open = 1;
        kd_engine_options eo = {.data_dir = cli->data_dir, .registry = &cli->registry, .read_only = 1};
        kd_tip tip;
        char ignored[256];
        if (kd_engine_open(&eo, &store, ignored, sizeof ignored) == KD_OK && kd_engine_tip(store, &tip) == KD_OK)
            after_seq = tip.last_seq;
    }
    uint8_t tx_id[1][KD_HASH_LEN];
    char why[KD_CHAIN_WHY_MAX]; /* the whole of the chain's refusal (a Kaspa node's, quoted) */
    kd_err err = kd_devnet_client_open(a.urls.devnet, 0, &c, why, sizeof why);
    if (!err)
        err = kd_devnet_client_submit(c, &payload, 1, tx_id, NULL, NULL, why, sizeof why);
    if (err) {
        devnet_failed(cli, "kdapp submit", a.urls.devnet, &ep, err, why);
        rc = err == KD_ERR_INVALID_ARG ? KD_EXIT_USAGE : KD_EXIT_FAIL;
        goto done;
    }
    char hex[2 * KD_HASH_LEN + 1];
    kd_hex_encode(tx_id[0], KD_HASH_LEN, hex);
    printf("tx %s\n", hex);
    fflush(stdout);
    if (a.wait)
        rc = wait_verdict(sub, tx_id[0], a.timeout_ms, store, after_seq);
done:
    kd_engine_close(store);
    if (sub_open)
        kd_nng_close(sub);
    kd_devnet_client_close(c);
    kd_buf_fini(&payload);
    return rc;
}
