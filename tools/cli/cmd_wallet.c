/*
 * cmd_wallet.c — `kdapp wallet`: a key's Kaspa address, and a kdapp
 * command built into a signed Kaspa transaction offline (tools/kaspa).
 *
 *   kdapp wallet address [--keys DIR] [--key NAME] [--network NET]
 *   kdapp wallet build --utxos FILE.json (--payload-hex HEX | --payload-file
 *         FILE) [--key NAME]
 *         [--network NET] [--fee-rate R] [--change ADDR] [--prefix HEX8 |
 *         --no-filter] [--nonce N] [--rules crescendo|v0.14] [--daa-score N]
 *   kdapp wallet verify --utxos FILE.json --tx FILE.json [--rules ...]
 *   kdapp wallet balance|utxos --rpc ws://NODE [--key NAME] [--network NET]
 *   kdapp wallet send --rpc ws://NODE (--payload-hex HEX | --payload-file
 *         FILE) [--funding NAME] [--network NET] [--fee-rate R] [--dry-run]
 *
 * `build` prints one JSON object: the transaction as the node's JSON
 * (RpcTransaction, what submitTransaction takes) and its id, mass and fee,
 * so anyone can check it; it never talks to a node. The UTXO file is what
 * getUtxosByAddresses answers (kaspa_utxo.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/bytes.h"
#include "engine/crypto.h"
#include "tools/cli/commands.h"
#include "tools/common/options.h"
#include "tools/kaspa/kaspa_addr.h"
#include "tools/kaspa/kaspa_build.h"
#include "tools/kaspa/kaspa_utxo.h"
#include "tools/kaspa/kaspa_wallet.h"
#include "tools/kaspa/kaspa_writer.h"
#include "tools/listen/kaspa_rpc.h"

#define DEFAULT_KEY "wallet"

static int load_key(const kd_cli *cli, const char *prog, const char *name, kd_key *key)
{
    char why[512];
    kd_err err = kd_key_resolve(cli->keys_dir, name, key, why, sizeof why);
    if (err) {
        fprintf(stderr, "%s: %s\n", prog, why);
        return err == KD_ERR_INVALID_ARG || err == KD_ERR_NOT_FOUND ? KD_EXIT_USAGE : KD_EXIT_FAIL;
    }
    return KD_EXIT_OK;
}

static int parse_net(const char *prog, const char *name, kd_kaspa_net *net)
{
    if (kd_kaspa_net_parse(name, net)) {
        fprintf(stderr, "%s: --network %s is not mainnet, testnet-10, testnet-11, devnet or simnet\n", prog, name);
        return KD_EXIT_USAGE;
    }
    return KD_EXIT_OK;
}

static int wallet_address(kd_cli *cli, int argc, char **argv)
{
    static const char usage[] = "usage: kdapp wallet address [--keys DIR] [--key NAME] [--network "
                                "mainnet|testnet-10|testnet-11|devnet|simnet]\n";
    const char *key_name = DEFAULT_KEY, *network = "mainnet";
    const kd_option opts[] = {KD_CLI_OPTIONS(cli),
                              {.name = "key", .kind = KD_OPT_STRING, .value = &key_name},
                              {.name = "network", .kind = KD_OPT_STRING, .value = &network},
                              {0}};
    const kd_usage u = {.prog = "kdapp wallet address", .print = kd_usage_print_text, .ctx = usage};
    int first, stop, rc = kd_options_parse_usage(&u, opts, argc, argv, &first, &stop);
    if (rc || stop)
        return rc;
    kd_kaspa_net net;
    kd_key key;
    if ((rc = parse_net(u.prog, network, &net)) || (rc = load_key(cli, u.prog, key_name, &key)))
        return rc;
    kd_kaddr addr;
    char text[KD_KADDR_TEXT_MAX];
    kd_kaddr_of_key(&key, net, &addr);
    memset(&key, 0, sizeof key);
    if (kd_kaddr_encode(&addr, text))
        return KD_EXIT_FAIL;
    printf("%s\n", text);
    return KD_EXIT_OK;
}

static int parse_rules(const char *text, void *value)
{
    if (!strcmp(text, "crescendo"))
        *(kd_kaspa_rules *)value = KD_KASPA_RULES_CRESCENDO;
    else if (!strcmp(text, "v0.14"))
        *(kd_kaspa_rules *)value = KD_KASPA_RULES_V014;
    else
        return -1;
    return 0;
}

/* The bytes of the file `path` (named by option `opt` in errors) into a
 * new buffer (kd_buf_fini it, also on an error). */
static int read_file(const char *prog, const char *opt, const char *path, kd_buf *b)
{
    kd_buf_init(b);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s: %s %s: %s\n", prog, opt, path, strerror(errno));
        return KD_EXIT_USAGE;
    }
    uint8_t chunk[4096];
    size_t n;
    int rc = KD_EXIT_OK;
    while (rc == KD_EXIT_OK && (n = fread(chunk, 1, sizeof chunk, f)) > 0)
        if (kd_buf_append(b, chunk, n))
            rc = KD_EXIT_FAIL;
    if (ferror(f)) {
        fprintf(stderr, "%s: %s %s: read error\n", prog, opt, path);
        rc = KD_EXIT_FAIL;
    }
    fclose(f);
    return rc;
}

/* A JSON file loaded as the node's JSON is (kd_kaspa_json_load: every
 * u64 exact, also above 2^63). */
static int load_json(const char *prog, const char *opt, const char *path, json_t **out)
{
    kd_buf b;
    int rc = read_file(prog, opt, path, &b);
    char why[256];
    if (!rc && kd_kaspa_json_load(b.data ? (const char *)b.data : "", b.len, out, why, sizeof why)) {
        fprintf(stderr, "%s: %s %s: %s\n", prog, opt, path, why);
        rc = KD_EXIT_USAGE;
    }
    kd_buf_fini(&b);
    return rc;
}

static int read_utxos(const char *prog, const char *path, kd_kutxo_list *list)
{
    json_t *j;
    int rc = load_json(prog, "--utxos", path, &j);
    if (rc)
        return rc;
    char why[256] = "";
    kd_err err = kd_kutxo_list_parse(j, list, why, sizeof why);
    json_decref(j);
    if (err) {
        fprintf(stderr, "%s: --utxos %s: %s\n", prog, path, err == KD_ERR_PARSE ? why : kd_err_str(err));
        return err == KD_ERR_PARSE ? KD_EXIT_USAGE : KD_EXIT_FAIL;
    }
    return KD_EXIT_OK;
}

/* The message from --payload-hex or --payload-file (its raw bytes). */
static int read_message(const char *prog, const char *hex, const char *path, uint8_t **out, size_t *len)
{
    if (hex) {
        *out = malloc(*len + 1);
        if (!*out)
            return KD_EXIT_FAIL;
        if (*len && kd_hex_decode(hex, *out, *len)) {
            fprintf(stderr, "%s: --payload-hex is not hex\n", prog);
            return KD_EXIT_USAGE;
        }
        return KD_EXIT_OK;
    }
    kd_buf b;
    int rc = read_file(prog, "--payload-file", path, &b);
    *out = b.data;
    *len = b.len;
    return rc;
}

static int print_result(const kd_kbuild_result *res, kd_kaspa_net net, kd_kaspa_rules rules, uint64_t fee_rate)
{
    char *tx_json = NULL, id[2 * KD_KASPA_HASH_LEN + 1];
    if (kd_ktx_json_render(res->tx, &tx_json))
        return KD_EXIT_FAIL;
    kd_hex_encode(res->id, KD_KASPA_HASH_LEN, id);
    printf("{\"id\":\"%s\",\"network\":\"%s\",\"rules\":\"%s\",\"nonce\":%" PRIu32
           ",\"inputs\":%zu,\"totalIn\":%" PRIu64 ",\"fee\":%" PRIu64 ",\"change\":%" PRIu64 ",\"mass\":%" PRIu64
           ",\"computeMass\":%" PRIu64 ",\"storageMass\":%" PRIu64 ",\"transientMass\":%" PRIu64 ",\"size\":%" PRIu64
           ",\"feeMass\":%" PRIu64 ",\"minFee\":%" PRIu64 ",\"feeRate\":%" PRIu64 ",\"leftover\":%" PRIu64
           ",\"transaction\":%s}\n",
           id, kd_kaspa_net_prefix(net), rules == KD_KASPA_RULES_CRESCENDO ? "crescendo" : "v0.14", res->nonce,
           res->tx->n_inputs, res->total_in, res->fee, res->change, res->mass.total, res->mass.compute,
           res->mass.storage, res->mass.transient, res->mass.size, res->mass.fee_mass,
           kd_kaspa_min_fee(&res->mass, rules), fee_rate, res->leftover, tx_json);
    free(tx_json);
    char note[512];
    if (kd_kbuild_note(res, note, sizeof note))
        fprintf(stderr, "kdapp wallet build: %s\n", note);
    return KD_EXIT_OK;
}

static int wallet_build(kd_cli *cli, int argc, char **argv)
{
    static const char usage[] =
        "usage: kdapp wallet build --utxos FILE.json (--payload-hex HEX | --payload-file FILE) [--keys DIR]\n"
        "         [--key NAME] [--network mainnet|testnet-10|testnet-11|devnet|simnet]\n"
        "         [--fee-rate SOMPI_PER_KG] [--change ADDRESS] [--prefix HEX8 | --no-filter] [--nonce N]\n"
        "         [--rules crescendo|v0.14] [--daa-score N]\n"
        "Builds and signs the transaction of a command offline and prints it as the node's JSON.\n"
        "--fee-rate defaults to the minimum relay fee rate (100000 sompi/kg, kaspad v2's; 1000 under v0.14);\n"
        "--daa-score is the node's virtualDaaScore (getBlockDagInfo), needed to spend coinbase UTXOs\n"
        "(spendable 1000 DAA scores after their block).\n";
    const char *key_name = DEFAULT_KEY, *network = "mainnet", *utxos_path = NULL, *payload_hex = NULL;
    const char *change_text = NULL, *prefix = NULL, *payload_file = NULL;
    uint64_t fee_rate = 0, nonce = 0, daa_score = 0;
    int no_filter = 0, nonce_seen = 0, daa_seen = 0;
    kd_kaspa_rules rules = KD_KASPA_RULES_CRESCENDO;
    const kd_option opts[] = {
        KD_CLI_OPTIONS(cli),
        {.name = "key", .kind = KD_OPT_STRING, .value = &key_name},
        {.name = "network", .kind = KD_OPT_STRING, .value = &network},
        {.name = "utxos", .kind = KD_OPT_STRING, .value = &utxos_path},
        {.name = "payload-hex", .kind = KD_OPT_STRING, .value = &payload_hex},
        {.name = "payload-file", .kind = KD_OPT_STRING, .value = &payload_file},
        {.name = "change", .kind = KD_OPT_STRING, .value = &change_text},
        {.name = "prefix", .kind = KD_OPT_STRING, .value = &prefix},
        {.name = "no-filter", .kind = KD_OPT_FLAG, .value = &no_filter},
        {.name = "fee-rate", .kind = KD_OPT_UINT, .value = &fee_rate, .min = 1, .max = 1000000000000ull},
        {.name = "nonce", .kind = KD_OPT_UINT, .value = &nonce, .max = UINT32_MAX, .seen = &nonce_seen},
        {.name = "rules", .kind = KD_OPT_CUSTOM, .value = &rules, .parse = parse_rules, .use = "crescendo or v0.14"},
        {.name = "daa-score", .kind = KD_OPT_UINT, .value = &daa_score, .max = UINT64_MAX, .seen = &daa_seen},
        {0}};
    const kd_usage u = {.prog = "kdapp wallet build", .print = kd_usage_print_text, .ctx = usage};
    int first, stop, rc = kd_options_parse_usage(&u, opts, argc, argv, &first, &stop);
    if (rc || stop)
        return rc;
    if (!utxos_path || !payload_hex == !payload_file) {
        fprintf(stderr, "%s: --utxos and one of --payload-hex and --payload-file are required\n", u.prog);
        return kd_usage_fail(&u);
    }
    if (no_filter && prefix) {
        fprintf(stderr, "%s: --prefix and --no-filter exclude each other\n", u.prog);
        return kd_usage_fail(&u);
    }
    kd_tx_filter filter;
    kd_tx_filter_default(&filter);
    if (prefix && kd_tx_filter_parse_prefix(prefix, &filter.prefix)) {
        fprintf(stderr, "%s: --prefix %s is not 8 hex digits\n", u.prog, prefix);
        return KD_EXIT_USAGE;
    }
    size_t hex_len = payload_hex ? strlen(payload_hex) : 0;
    if (hex_len % 2) {
        fprintf(stderr, "%s: --payload-hex has an odd number of hex digits\n", u.prog);
        return KD_EXIT_USAGE;
    }
    kd_kaspa_net net;
    if ((rc = parse_net(u.prog, network, &net)))
        return rc;
    kd_kaddr change;
    char why[512] = "";
    if (change_text && kd_kaddr_decode(change_text, &change, why, sizeof why)) {
        fprintf(stderr, "%s: --change %s: %s\n", u.prog, change_text, why);
        return KD_EXIT_USAGE;
    }
    if (change_text && change.net != net) {
        fprintf(stderr, "%s: --change %s is not a %s address (--network %s)\n", u.prog, change_text,
                kd_kaspa_net_prefix(net), network);
        return KD_EXIT_USAGE;
    }
    uint8_t *message = NULL;
    size_t message_len = hex_len / 2;
    kd_key key;
    kd_kutxo_list list = {0};
    kd_kbuild_result res = {0};
    if ((rc = read_message(u.prog, payload_hex, payload_file, &message, &message_len)))
        goto done;
    if ((rc = load_key(cli, u.prog, key_name, &key)) || (rc = read_utxos(u.prog, utxos_path, &list)))
        goto done;
    if (!change_text)
        kd_kaddr_of_key(&key, net, &change);
    uint32_t start = (uint32_t)nonce;
    if (!nonce_seen && kd_random_bytes((uint8_t *)&start, sizeof start)) {
        rc = KD_EXIT_FAIL;
        goto done;
    }
    const kd_kbuild_req req = {.utxos = list.utxos,
                               .n_utxos = list.n,
                               .key = &key,
                               .change = &change,
                               .message = message,
                               .message_len = message_len,
                               .filter = no_filter ? NULL : &filter,
                               .nonce_start = start,
                               .fee_rate = fee_rate,
                               .rules = rules,
                               .daa_score = daa_score,
                               .has_daa_score = daa_seen};
    kd_err err = kd_kaspa_build(&req, &res, why, sizeof why);
    if (err) {
        fprintf(stderr, "%s: %s\n", u.prog, why[0] ? why : kd_err_str(err));
        rc = err == KD_ERR_NOMEM || err == KD_ERR_INTERNAL || err == KD_ERR_IO ? KD_EXIT_FAIL : KD_EXIT_USAGE;
        goto done;
    }
    rc = print_result(&res, net, rules, fee_rate ? fee_rate : kd_kaspa_fee_floor(rules));
done:
    memset(&key, 0, sizeof key);
    kd_kbuild_result_fini(&res);
    kd_kutxo_list_fini(&list);
    free(message);
    return rc;
}

/* `wallet verify`: checks every input's Schnorr signature against our
 * sighash, so a transaction another signer made (the WASM SDK, another
 * wallet) can be checked against this implementation. */
static int wallet_verify(kd_cli *cli, int argc, char **argv)
{
    static const char usage[] =
        "usage: kdapp wallet verify --utxos FILE.json --tx FILE.json [--rules crescendo|v0.14]\n"
        "Verifies every input's signature of a transaction (the node's JSON, or what\n"
        "`kdapp wallet build` prints) against the sighash of the UTXOs it spends.\n";
    const char *utxos_path = NULL, *tx_path = NULL;
    kd_kaspa_rules rules = KD_KASPA_RULES_CRESCENDO;
    const kd_option opts[] = {
        KD_CLI_OPTIONS(cli),
        {.name = "utxos", .kind = KD_OPT_STRING, .value = &utxos_path},
        {.name = "tx", .kind = KD_OPT_STRING, .value = &tx_path},
        {.name = "rules", .kind = KD_OPT_CUSTOM, .value = &rules, .parse = parse_rules, .use = "crescendo or v0.14"},
        {0}};
    const kd_usage u = {.prog = "kdapp wallet verify", .print = kd_usage_print_text, .ctx = usage};
    int first, stop, rc = kd_options_parse_usage(&u, opts, argc, argv, &first, &stop);
    if (rc || stop)
        return rc;
    if (!utxos_path || !tx_path) {
        fprintf(stderr, "%s: --utxos and --tx are required\n", u.prog);
        return kd_usage_fail(&u);
    }
    kd_kutxo_list list = {0};
    if ((rc = read_utxos(u.prog, utxos_path, &list)))
        return rc;
    json_t *j = NULL;
    kd_ktx *tx = NULL;
    char why[256] = "";
    if ((rc = load_json(u.prog, "--tx", tx_path, &j)))
        goto done;
    rc = KD_EXIT_USAGE;
    const json_t *inner = json_object_get(j, "transaction");
    if (kd_ktx_json_parse(inner ? inner : j, &tx, why, sizeof why)) {
        fprintf(stderr, "%s: --tx %s: %s\n", u.prog, tx_path, why);
        goto done;
    }
    /* One entry per input, found by outpoint. */
    kd_kutxo *entries = calloc(tx->n_inputs ? tx->n_inputs : 1, sizeof *entries);
    if (!entries) {
        rc = KD_EXIT_FAIL;
        goto done;
    }
    rc = KD_EXIT_OK;
    for (size_t i = 0; i < tx->n_inputs && rc == KD_EXIT_OK; i++) {
        size_t m = 0;
        while (m < list.n && memcmp(&list.utxos[m].outpoint.txid, tx->inputs[i].prev.txid, KD_KASPA_HASH_LEN) |
                                 (list.utxos[m].outpoint.index != tx->inputs[i].prev.index))
            m++;
        if (m == list.n) {
            fprintf(stderr, "%s: input %zu spends an outpoint that is not in %s\n", u.prog, i, utxos_path);
            rc = KD_EXIT_USAGE;
        } else {
            entries[i] = list.utxos[m];
        }
    }
    for (size_t i = 0; i < tx->n_inputs && rc == KD_EXIT_OK; i++) {
        kd_err err = kd_ktx_verify_input(tx, entries, i, rules);
        printf("input %zu: %s\n", i, err ? kd_err_str(err) : "ok");
        if (err)
            rc = KD_EXIT_FAIL;
    }
    free(entries);
done:
    kd_ktx_free(tx);
    json_decref(j);
    kd_kutxo_list_fini(&list);
    return rc;
}

/* ------------------------------------------------------------ online */

static int exit_of(kd_err err)
{
    return err == KD_ERR_INVALID_ARG || err == KD_ERR_NOT_FOUND || err == KD_ERR_UNSUPPORTED || err == KD_ERR_DENIED ||
                   err == KD_ERR_TOO_LARGE || err == KD_ERR_INSUFFICIENT_FUNDS || err == KD_ERR_REJECTED
               ? KD_EXIT_USAGE
               : KD_EXIT_FAIL;
}

/* `wallet balance` and `wallet utxos`: the key's coins as the node holds them. */
static int wallet_online(kd_cli *cli, int argc, char **argv, int list)
{
    static const char usage[] = "usage: kdapp wallet balance|utxos --rpc ws://HOST:PORT [--keys DIR] [--key NAME]\n"
                                "         [--network mainnet|testnet-10|testnet-11|devnet|simnet]\n"
                                "The key's coins as the node holds them (getUtxosByAddresses; kaspad needs "
                                "--utxoindex).\n";
    const char *key_name = DEFAULT_KEY, *network = NULL, *rpc = NULL;
    const kd_option opts[] = {KD_CLI_OPTIONS(cli),
                              {.name = "rpc", .kind = KD_OPT_STRING, .value = &rpc},
                              {.name = "key", .kind = KD_OPT_STRING, .value = &key_name},
                              {.name = "network", .kind = KD_OPT_STRING, .value = &network},
                              {0}};
    const kd_usage u = {
        .prog = list ? "kdapp wallet utxos" : "kdapp wallet balance", .print = kd_usage_print_text, .ctx = usage};
    int first, stop, rc = kd_options_parse_usage(&u, opts, argc, argv, &first, &stop);
    if (rc || stop)
        return rc;
    if (!rpc) {
        fprintf(stderr, "%s: --rpc ws://HOST:PORT is required (kaspad's wRPC JSON endpoint)\n", u.prog);
        return kd_usage_fail(&u);
    }
    kd_kaspa_net net;
    kd_key key;
    if ((network && (rc = parse_net(u.prog, network, &net))) || (rc = load_key(cli, u.prog, key_name, &key)))
        return rc;
    char why[KD_KWALLET_WHY_MAX] = "", node_net[32] = "";
    kd_wrpc *c = NULL;
    kd_kutxo_list l = {0};
    kd_kaddr addr;
    kd_err err = kd_kwallet_connect(rpc, network, 0, &c, &net, node_net, why, sizeof why);
    if (!err) {
        kd_kaddr_of_key(&key, net, &addr);
        err = kd_kwallet_utxos(c, &addr, 0, &l, why, sizeof why);
    }
    memset(&key, 0, sizeof key);
    if (err) {
        fprintf(stderr, "%s: %s\n", u.prog, why[0] ? why : kd_err_str(err));
        rc = exit_of(err);
        goto done;
    }
    char text[KD_KADDR_TEXT_MAX];
    if (kd_kaddr_encode(&addr, text)) {
        rc = KD_EXIT_FAIL;
        goto done;
    }
    uint64_t total = 0;
    for (size_t i = 0; i < l.n; i++) {
        total += l.utxos[i].amount;
        if (list) {
            char id[2 * KD_KASPA_HASH_LEN + 1];
            kd_hex_encode(l.utxos[i].outpoint.txid, KD_KASPA_HASH_LEN, id);
            printf("%s:%" PRIu32 " %" PRIu64 " sompi\n", id, l.utxos[i].outpoint.index, l.utxos[i].amount);
        }
    }
    printf("%s on %s: %" PRIu64 " sompi (%" PRIu64 ".%08" PRIu64 " KAS) in %zu UTXO%s\n", text, node_net, total,
           (uint64_t)(total / KD_KASPA_SOMPI_PER_KAS), (uint64_t)(total % KD_KASPA_SOMPI_PER_KAS), l.n,
           l.n == 1 ? "" : "s");
done:
    kd_kutxo_list_fini(&l);
    kd_wrpc_close(c);
    return rc;
}

/* `wallet send`: one command's payload through the writer (kaspa_writer.h),
 * or with --dry-run the signed transaction printed instead. */
static int wallet_send(kd_cli *cli, int argc, char **argv)
{
    static const char usage[] =
        "usage: kdapp wallet send --rpc ws://HOST:PORT (--payload-hex HEX | --payload-file FILE) [--keys DIR]\n"
        "         [--funding NAME] [--payers REF,...] [--network NET] [--fee-rate SOMPI_PER_KG] [--dry-run]\n"
        "Sends one EpisodeMessage as a Kaspa transaction, paid by its signer's key (key directory, --payers)\n"
        "or the --funding wallet; --dry-run prints the signed transaction as the node's JSON instead.\n";
    kd_kwriter_options wo = {0};
    kd_tx_filter_default(&wo.filter);
    const char *payload_hex = NULL, *payload_file = NULL;
    int dry = 0;
    const kd_option opts[] = {
        KD_CLI_OPTIONS(cli),
        {.name = "rpc", .kind = KD_OPT_STRING, .value = &wo.rpc_url},
        {.name = "network", .kind = KD_OPT_STRING, .value = &wo.network},
        {.name = "funding", .kind = KD_OPT_STRING, .value = &wo.funding},
        {.name = "payers", .kind = KD_OPT_STRING, .value = &wo.payers},
        {.name = "payload-hex", .kind = KD_OPT_STRING, .value = &payload_hex},
        {.name = "payload-file", .kind = KD_OPT_STRING, .value = &payload_file},
        {.name = "fee-rate", .kind = KD_OPT_UINT, .value = &wo.fee_rate, .min = 1, .max = 1000000000000ull},
        {.name = "retry-ms", .kind = KD_OPT_UINT, .value = &wo.retry_ms, .size = sizeof wo.retry_ms, .max = 3600000},
        {.name = "dry-run", .kind = KD_OPT_FLAG, .value = &dry},
        {0}};
    const kd_usage u = {.prog = "kdapp wallet send", .print = kd_usage_print_text, .ctx = usage};
    int first, stop, rc = kd_options_parse_usage(&u, opts, argc, argv, &first, &stop);
    if (rc || stop)
        return rc;
    if (!wo.rpc_url || !payload_hex == !payload_file) {
        fprintf(stderr, "%s: --rpc and one of --payload-hex and --payload-file are required\n", u.prog);
        return kd_usage_fail(&u);
    }
    size_t len = payload_hex ? strlen(payload_hex) / 2 : 0;
    if (payload_hex && strlen(payload_hex) % 2) {
        fprintf(stderr, "%s: --payload-hex has an odd number of hex digits\n", u.prog);
        return KD_EXIT_USAGE;
    }
    uint8_t *message = NULL;
    kd_kwriter *w = NULL;
    char why[KD_KWALLET_WHY_MAX] = "", *tx_json = NULL;
    kd_kbuild_result res = {0};
    if ((rc = read_message(u.prog, payload_hex, payload_file, &message, &len)))
        goto done;
    wo.keys_dir = cli->keys_dir;
    kd_err err = kd_kwriter_open(&wo, &w, why, sizeof why);
    uint8_t id[KD_KASPA_HASH_LEN];
    if (!err && dry)
        err = kd_kwriter_dry_run(w, message, len, &tx_json, &res, why, sizeof why);
    else if (!err)
        err = kd_kwriter_submit(w, message, len, NULL, id, &res, why, sizeof why);
    if (err) {
        fprintf(stderr, "%s: %s\n", u.prog, why[0] ? why : kd_err_str(err));
        rc = exit_of(err);
        goto done;
    }
    char hex[2 * KD_KASPA_HASH_LEN + 1], note[512];
    if (dry) {
        kd_hex_encode(res.id, KD_KASPA_HASH_LEN, hex);
        printf("{\"id\":\"%s\",\"fee\":%" PRIu64 ",\"leftover\":%" PRIu64 ",\"mass\":%" PRIu64 ",\"transaction\":%s}\n",
               hex, res.fee, res.leftover, res.mass.total, tx_json);
    } else {
        kd_hex_encode(id, KD_KASPA_HASH_LEN, hex);
        printf("tx %s\nfee %" PRIu64 "\n", hex, res.fee);
    }
    if (kd_kbuild_note(&res, note, sizeof note))
        fprintf(stderr, "%s: %s\n", u.prog, note);
done:
    free(tx_json);
    kd_kbuild_result_fini(&res);
    kd_kwriter_close(w);
    free(message);
    return rc;
}

int kd_cmd_wallet(kd_cli *cli, int argc, char **argv)
{
    static const char usage[] = "usage: kdapp wallet address [OPTIONS]   a key's Kaspa address\n"
                                "       kdapp wallet build [OPTIONS]     a command as a signed Kaspa transaction "
                                "(offline)\n"
                                "       kdapp wallet verify [OPTIONS]    check a transaction's signatures against "
                                "our sighash\n"
                                "       kdapp wallet balance|utxos --rpc ws://NODE   the key's coins on the node\n"
                                "       kdapp wallet send --rpc ws://NODE [OPTIONS]  one command as a transaction "
                                "(--dry-run: print it)\n"
                                "(kdapp wallet SUBCOMMAND --help for its options)\n";
    if (argc >= 2 && !strcmp(argv[1], "address"))
        return wallet_address(cli, argc - 1, argv + 1);
    if (argc >= 2 && !strcmp(argv[1], "build"))
        return wallet_build(cli, argc - 1, argv + 1);
    if (argc >= 2 && !strcmp(argv[1], "verify"))
        return wallet_verify(cli, argc - 1, argv + 1);
    if (argc >= 2 && (!strcmp(argv[1], "balance") || !strcmp(argv[1], "utxos")))
        return wallet_online(cli, argc - 1, argv + 1, !strcmp(argv[1], "utxos"));
    if (argc >= 2 && !strcmp(argv[1], "send"))
        return wallet_send(cli, argc - 1, argv + 1);
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        fputs(usage, stdout);
        return KD_EXIT_OK;
    }
    if (argc >= 2)
        fprintf(stderr, "kdapp wallet: unknown subcommand '%s'\n", argv[1]);
    fputs(usage, stderr);
    return KD_EXIT_USAGE;
}
