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
#include <getopt.h>
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
#include "tools/cli/commands.h"
#include "tools/chain/devnet.h"
#include "tools/chain/devnet_client.h"
#include "tools/common/endpoints.h"
#include "tools/chain/node.h"
#include "tools/chain/report.h"

/* ---------------------------------------------------------------- devnet */

int kd_cmd_devnet(kd_cli *cli, int argc, char **argv)
{
    static const struct option longopts[] = {KD_CLI_COMMON_LONGOPTS,
                                             {"listen", required_argument, NULL, 'l'},
                                             {"engine", required_argument, NULL, 'e'},
                                             {"block-ms", required_argument, NULL, 'b'},
                                             {"seed", required_argument, NULL, 's'},
                                             {"max-txs", required_argument, NULL, 'm'},
                                             {"quiet", no_argument, NULL, 'q'},
                                             {"help", no_argument, NULL, 'h'},
                                             {0}};
    static const char usage[] = "usage: kdapp devnet [--data DIR] [--listen URLS] [--engine URL] [--block-ms N]\n"
                                "                    [--seed S] [--max-txs N] [--quiet]\n";
    kd_devnet_options o = {0};
    const char *listen = NULL, *engine = NULL;
    uint64_t v;
    int quiet = 0, opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "qh", longopts, NULL)) != -1) {
        if (kd_cli_common_option(cli, opt, optarg))
            continue;
        switch (opt) {
        case 'l':
            listen = optarg;
            break;
        case 'e':
            engine = optarg;
            break;
        case 'b':
            if (kd_cli_parse_u64(optarg, 1, 3600000, &v) != 0) {
                fprintf(stderr, "kdapp devnet: --block-ms '%s' is not valid: use 1 to 3600000\n", optarg);
                return KD_EXIT_USAGE;
            }
            o.block_ms = (uint32_t)v;
            break;
        case 's':
            if (kd_cli_parse_u64(optarg, 0, UINT64_MAX, &o.seed) != 0) {
                fprintf(stderr, "kdapp devnet: --seed '%s' is not valid: use a non-negative integer\n", optarg);
                return KD_EXIT_USAGE;
            }
            break;
        case 'm':
            if (kd_cli_parse_u64(optarg, 1, KD_INGEST_MAX_MSGS * 100u, &v) != 0) {
                fprintf(stderr, "kdapp devnet: --max-txs '%s' is not valid: use 1 to %u\n", optarg,
                        KD_INGEST_MAX_MSGS * 100u);
                return KD_EXIT_USAGE;
            }
            o.max_txs_per_block = (uint32_t)v;
            break;
        case 'q':
            quiet = 1;
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
    o.listen_urls = listen ? listen : ep.devnet;
    o.engine_url = engine ? engine : ep.ingest;
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
    static const struct option longopts[] = {KD_CLI_COMMON_LONGOPTS,
                                             {"devnet", required_argument, NULL, 'n'},
                                             {"depth", required_argument, NULL, 'd'},
                                             {"drop", required_argument, NULL, 'p'},
                                             {"reorder", no_argument, NULL, 'r'},
                                             {"timeout", required_argument, NULL, 't'},
                                             {"help", no_argument, NULL, 'h'},
                                             {0}};
    static const char usage[] = "usage: kdapp devnet-reorg [--data DIR] [--devnet URL] --depth N [--drop P] "
                                "[--reorder] [--timeout MS]\n";
    const char *url = NULL;
    uint64_t depth = 0, timeout = 30000;
    double drop = 0;
    int reorder = 0, opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        if (kd_cli_common_option(cli, opt, optarg))
            continue;
        if (opt == 'n') {
            url = optarg;
        } else if (opt == 'd') {
            if (kd_cli_parse_u64(optarg, 1, KD_DEVNET_CHAIN_MAX, &depth) != 0) {
                fprintf(stderr, "kdapp devnet-reorg: --depth '%s' is not valid: use 1 to %u\n", optarg,
                        KD_DEVNET_CHAIN_MAX);
                return KD_EXIT_USAGE;
            }
        } else if (opt == 'p') {
            if (kd_cli_parse_probability(optarg, &drop) != 0) {
                fprintf(stderr, "kdapp devnet-reorg: --drop '%s' is not valid: use a probability from 0 to 1\n",
                        optarg);
                return KD_EXIT_USAGE;
            }
        } else if (opt == 'r') {
            reorder = 1;
        } else if (opt == 't') {
            if (kd_cli_parse_u64(optarg, 1, UINT32_MAX, &timeout) != 0) {
                fprintf(stderr, "kdapp devnet-reorg: --timeout '%s' is not valid: use milliseconds\n", optarg);
                return KD_EXIT_USAGE;
            }
        } else {
            fputs(usage, stderr);
            return opt == 'h' ? KD_EXIT_OK : KD_EXIT_USAGE;
        }
    }
    if (optind != argc || depth == 0) {
        fputs(usage, stderr);
        return KD_EXIT_USAGE;
    }
    kd_endpoints ep;
    if (kd_endpoints_default(cli->data_dir, &ep) != KD_OK)
        return KD_EXIT_FAIL;
    kd_devnet_client *c = NULL;
    kd_devnet_answer ans;
    memset(&ans, 0, sizeof ans);
    char why[512] = "";
    kd_err err = kd_devnet_client_open(url ? url : ep.devnet, (uint32_t)timeout, &c, why, sizeof why);
    if (!err)
        err = kd_devnet_client_reorg(c, (uint32_t)depth, drop, reorder, &ans, why, sizeof why);
    kd_devnet_client_close(c);
    if (err && err != KD_ERR_TIMEOUT && err != KD_ERR_NET && err != KD_ERR_DECODE && ans.reverted == 0) {
        fprintf(stderr, "kdapp devnet-reorg: refused (%s): %s\n", kd_err_code(err), why);
        return err == KD_ERR_NOT_FOUND || err == KD_ERR_INVALID_ARG ? KD_EXIT_USAGE : KD_EXIT_FAIL;
    }
    if (err == KD_ERR_TIMEOUT || err == KD_ERR_NET || err == KD_ERR_DECODE || err == KD_ERR_INVALID_ARG) {
        fprintf(stderr, "kdapp devnet-reorg: %s\n", why);
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
    static const struct option longopts[] = {KD_CLI_COMMON_LONGOPTS,
                                             {"devnet", required_argument, NULL, 'n'},
                                             {"timeout", required_argument, NULL, 't'},
                                             {"help", no_argument, NULL, 'h'},
                                             {0}};
    const char *url = NULL;
    uint64_t timeout = 5000;
    int opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        if (kd_cli_common_option(cli, opt, optarg))
            continue;
        if (opt == 'n') {
            url = optarg;
        } else if (opt == 't' && kd_cli_parse_u64(optarg, 1, UINT32_MAX, &timeout) == 0) {
            continue;
        } else {
            fputs("usage: kdapp devnet-status [--data DIR] [--devnet URL] [--timeout MS]\n", stderr);
            return opt == 'h' ? KD_EXIT_OK : KD_EXIT_USAGE;
        }
    }
    if (optind != argc) {
        fputs("usage: kdapp devnet-status [--data DIR] [--devnet URL] [--timeout MS]\n", stderr);
        return KD_EXIT_USAGE;
    }
    kd_endpoints ep;
    if (kd_endpoints_default(cli->data_dir, &ep) != KD_OK)
        return KD_EXIT_FAIL;
    kd_devnet_client *c = NULL;
    kd_devnet_answer ans;
    char why[512] = "";
    kd_err err = kd_devnet_client_open(url ? url : ep.devnet, (uint32_t)timeout, &c, why, sizeof why);
    if (!err)
        err = kd_devnet_client_status(c, &ans, why, sizeof why);
    kd_devnet_client_close(c);
    if (err) {
        fprintf(stderr, "kdapp devnet-status: %s\n", why);
        return KD_EXIT_FAIL;
    }
    char h[2 * KD_HASH_LEN + 1] = "genesis";
    if (ans.has_tip)
        kd_hex_encode(ans.tip, KD_HASH_LEN, h);
    printf("height %llu pending %u tip %s\n", (unsigned long long)ans.height, ans.pending, h);
    return KD_EXIT_OK;
}

/* ---------------------------------------------------------------- submit */

typedef struct {
    const char *devnet, *views;
    uint32_t episode;
    int is_new, has_cap, has_move, has_counter, wait;
    uint32_t cap;
    const char *participants, *signer;
    int row, col, player;
    uint64_t counter, timeout_ms;
} submit_args;

/* "A,B,..." of key references or 66-hex pubkeys. */
static int parse_participants(const char *list, const char *keys_dir, kd_participants *out)
{
    memset(out, 0, sizeof *out);
    char *copy = strdup(list), *save = NULL;
    int rc = copy ? KD_EXIT_OK : KD_EXIT_FAIL;
    for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t && !rc; t = strtok_r(NULL, ",", &save)) {
        if (out->count == KD_MAX_PARTICIPANTS) {
            fprintf(stderr, "kdapp submit: at most %d participants\n", KD_MAX_PARTICIPANTS);
            rc = KD_EXIT_USAGE;
            break;
        }
        kd_pubkey *pk = &out->keys[out->count];
        if (strlen(t) == 2 * KD_PUBKEY_LEN && kd_hex_decode(t, pk->bytes, KD_PUBKEY_LEN) == 0) {
            out->count++;
            continue;
        }
        kd_key key;
        char why[256];
        if (kd_key_resolve(keys_dir, t, &key, why, sizeof why) != KD_OK) {
            fprintf(stderr, "kdapp submit: participant '%s': %s\n", t, why);
            rc = KD_EXIT_USAGE;
            break;
        }
        *pk = key.pub;
        memset(&key, 0, sizeof key);
        out->count++;
    }
    free(copy);
    if (!rc && out->count == 0) {
        fprintf(stderr, "kdapp submit: --participants names nobody\n");
        rc = KD_EXIT_USAGE;
    }
    return rc;
}

/* The episode's move counter from the data directory, read-only. */
static int read_counter(kd_cli *cli, uint32_t episode, uint64_t *out)
{
    kd_engine *engine = NULL;
    int rc = kd_cli_open_engine(cli, NULL, 1, 0, &engine);
    if (rc)
        return rc;
    kd_episode_snapshot snap;
    kd_err err = kd_engine_episode_read(engine, episode, &snap);
    *out = 0;
    if (err == KD_ERR_NOT_FOUND) {
        fprintf(stderr, "kdapp submit: episode %u is not in %s yet; signing for move counter 0\n", episode,
                cli->data_dir);
    } else if (err) {
        fprintf(stderr, "kdapp submit: cannot read episode %u: %s\n", episode, kd_err_str(err));
        rc = KD_EXIT_FAIL;
    } else {
        *out = snap.undo_depth;
        kd_episode_snapshot_fini(&snap);
    }
    kd_engine_close(engine);
    return rc;
}

/* Builds the payload the arguments describe. */
static int build_payload(kd_cli *cli, const submit_args *a, kd_buf *out)
{
    kd_err err;
    if (a->is_new) {
        kd_participants parts;
        int rc = parse_participants(a->participants, cli->keys_dir, &parts);
        if (rc)
            return rc;
        kd_buf params;
        kd_buf_init(&params);
        err = a->has_cap ? kd_ttt_params_encode(a->cap, &params) : KD_OK;
        if (!err)
            err = kd_wire_new_episode(a->episode, KD_TTT_TYPE_NAME, &parts, params.data, params.len, out);
        kd_buf_fini(&params);
        return err ? KD_EXIT_FAIL : KD_EXIT_OK;
    }
    kd_key key;
    char why[256];
    if ((err = kd_key_resolve(cli->keys_dir, a->signer, &key, why, sizeof why))) {
        fprintf(stderr, "kdapp submit: --signer '%s': %s\n", a->signer, why);
        return KD_EXIT_USAGE;
    }
    uint64_t counter = a->counter;
    int rc = a->has_counter ? KD_EXIT_OK : read_counter(cli, a->episode, &counter);
    kd_buf cmd;
    kd_buf_init(&cmd);
    if (!rc && ((err = kd_ttt_move_encode((uint8_t)a->row, (uint8_t)a->col, (uint8_t)a->player, &cmd)) ||
                (err = kd_wire_signed_command(a->episode, cmd.data, cmd.len, &key, counter, out))))
        rc = KD_EXIT_FAIL;
    kd_buf_fini(&cmd);
    memset(&key, 0, sizeof key);
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
        printf("rejected in block %s (log seq %llu): %s: %s\n", h, (unsigned long long)seq, kd_err_code(r.err),
               r.detail);
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

static int submit_usage(void)
{
    fputs("usage: kdapp submit [--devnet URL] [--data DIR] [--keys DIR] --episode ID\n"
          "         (--new --participants A,B [--cap N]\n"
          "          | --row R --col C --player X|O --signer KEY [--counter N])\n"
          "         [--wait [--views URL] [--timeout MS]]\n",
          stderr);
    return KD_EXIT_USAGE;
}

static int parse_submit(kd_cli *cli, int argc, char **argv, submit_args *a)
{
    static const struct option longopts[] = {KD_CLI_COMMON_LONGOPTS,
                                             {"devnet", required_argument, NULL, 'n'},
                                             {"views", required_argument, NULL, 'v'},
                                             {"episode", required_argument, NULL, 'e'},
                                             {"new", no_argument, NULL, 'N'},
                                             {"participants", required_argument, NULL, 'P'},
                                             {"cap", required_argument, NULL, 'c'},
                                             {"row", required_argument, NULL, 'r'},
                                             {"col", required_argument, NULL, 'C'},
                                             {"player", required_argument, NULL, 'p'},
                                             {"signer", required_argument, NULL, 's'},
                                             {"counter", required_argument, NULL, 'k'},
                                             {"wait", no_argument, NULL, 'w'},
                                             {"timeout", required_argument, NULL, 't'},
                                             {"help", no_argument, NULL, 'h'},
                                             {0}};
    memset(a, 0, sizeof *a);
    a->row = a->col = a->player = -1;
    a->timeout_ms = 30000;
    uint64_t v;
    int opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        if (kd_cli_common_option(cli, opt, optarg))
            continue;
        const char *bad = NULL, *range = NULL;
        switch (opt) {
        case 'n':
            a->devnet = optarg;
            break;
        case 'v':
            a->views = optarg;
            break;
        case 'N':
            a->is_new = 1;
            break;
        case 'P':
            a->participants = optarg;
            break;
        case 's':
            a->signer = optarg;
            break;
        case 'w':
            a->wait = 1;
            break;
        case 'e':
            if (kd_cli_parse_u64(optarg, 1, UINT32_MAX, &v) == 0)
                a->episode = (uint32_t)v;
            else
                bad = "--episode", range = "1 to 4294967295";
            break;
        case 'c':
            if (kd_cli_parse_u64(optarg, 1, KD_TTT_WIRE_CLASSIC, &v) == 0)
                a->cap = (uint32_t)v, a->has_cap = 1;
            else
                bad = "--cap", range = "1 to 8 (stress mode) or 9 (classic)";
            break;
        case 'r':
        case 'C':
            if (kd_cli_parse_u64(optarg, 0, 255, &v) == 0)
                *(opt == 'r' ? &a->row : &a->col) = (int)v;
            else
                bad = opt == 'r' ? "--row" : "--col", range = "0 to 2 (up to 255 reaches the engine)";
            break;
        case 'p':
            if (strcmp(optarg, "X") == 0 || strcmp(optarg, "x") == 0 || strcmp(optarg, "0") == 0)
                a->player = 0;
            else if (strcmp(optarg, "O") == 0 || strcmp(optarg, "o") == 0 || strcmp(optarg, "1") == 0)
                a->player = 1;
            else
                bad = "--player", range = "X or O";
            break;
        case 'k':
            if (kd_cli_parse_u64(optarg, 0, UINT64_MAX, &a->counter) == 0)
                a->has_counter = 1;
            else
                bad = "--counter", range = "a non-negative integer";
            break;
        case 't':
            if (kd_cli_parse_u64(optarg, 1, UINT32_MAX, &a->timeout_ms) != 0)
                bad = "--timeout", range = "milliseconds, 1 or more";
            break;
        default:
            submit_usage();
            return opt == 'h' ? -1 : KD_EXIT_USAGE;
        }
        if (bad) {
            fprintf(stderr, "kdapp submit: %s '%s' is not valid: use %s\n", bad, optarg, range);
            return KD_EXIT_USAGE;
        }
    }
    a->has_move = a->row >= 0 || a->col >= 0 || a->player >= 0 || a->signer;
    if (optind != argc || !a->episode || a->is_new == a->has_move)
        return submit_usage();
    if (a->is_new && !a->participants) {
        fprintf(stderr, "kdapp submit: --new needs --participants A,B\n");
        return KD_EXIT_USAGE;
    }
    if (a->has_move && (a->row < 0 || a->col < 0 || a->player < 0 || !a->signer)) {
        fprintf(stderr, "kdapp submit: a move needs --row, --col, --player and --signer\n");
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
    if (kd_endpoints_default(cli->data_dir, &ep) != KD_OK)
        return KD_EXIT_FAIL;
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
        if ((rc = views_open(a.views ? a.views : ep.publish, &sub)))
            goto done;
        sub_open = 1;
        kd_engine_options eo = {.data_dir = cli->data_dir, .registry = &cli->registry, .read_only = 1};
        kd_tip tip;
        char ignored[256];
        if (kd_engine_open(&eo, &store, ignored, sizeof ignored) == KD_OK && kd_engine_tip(store, &tip) == KD_OK)
            after_seq = tip.last_seq;
    }
    uint8_t tx_id[1][KD_HASH_LEN];
    char why[512];
    kd_err err = kd_devnet_client_open(a.devnet ? a.devnet : ep.devnet, 0, &c, why, sizeof why);
    if (!err)
        err = kd_devnet_client_submit(c, &payload, 1, tx_id, NULL, NULL, why, sizeof why);
    if (err) {
        fprintf(stderr, "kdapp submit: %s\n", why);
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
