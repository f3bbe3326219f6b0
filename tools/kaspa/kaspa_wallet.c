/* kaspa_wallet.c — a wallet's view of a kaspad node (kaspa_wallet.h). */
#include "tools/kaspa/kaspa_wallet.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tools/kaspa/kaspa_mass.h"
#include "tools/listen/kaspa_rpc.h"

#define DEFAULT_TIMEOUT_MS 10000u

static uint32_t timeout_of(uint32_t ms) { return ms ? ms : DEFAULT_TIMEOUT_MS; }

kd_err kd_kwallet_connect(const char *url, const char *network, uint32_t timeout_ms, kd_wrpc **out, kd_kaspa_net *net,
                          char node_network[32], char *why, size_t why_len)
{
    *out = NULL;
    kd_wrpc *c = NULL;
    json_t *res = NULL, *params = json_object();
    kd_err err = params ? kd_wrpc_open(url, timeout_of(timeout_ms), &c, why, why_len) : KD_ERR_NOMEM;
    if (!err)
        err = kd_wrpc_call(c, "getServerInfo", params, timeout_of(timeout_ms), &res, why, why_len);
    kd_kaspa_server_info si;
    if (!err)
        err = kd_kaspa_server_info_parse(res, &si, why, why_len);
    if (!err && network && strcmp(network, si.network_id))
        err = kd_kaspa_why(KD_ERR_INVALID_ARG, why, why_len,
                           "the node at %s is on %s, not %s: give --network %s or a node of %s", url, si.network_id,
                           network, si.network_id, network);
    if (!err && kd_kaspa_net_parse(si.network_id, net))
        err = kd_kaspa_why(KD_ERR_UNSUPPORTED, why, why_len, "the node at %s is on a network kdapp does not know: %s",
                           url, si.network_id);
    json_decref(res);
    json_decref(params);
    if (err) {
        kd_wrpc_close(c);
        return err;
    }
    if (node_network)
        snprintf(node_network, 32, "%s", si.network_id);
    *out = c;
    return KD_OK;
}

/* 1 when the node's getServerInfo says it has no UTXO index. */
static int lacks_utxoindex(kd_wrpc *c, uint32_t timeout_ms)
{
    json_t *params = json_object(), *res = NULL;
    char why[64];
    int lacks = params && !kd_wrpc_call(c, "getServerInfo", params, timeout_ms, &res, why, sizeof why) &&
                json_is_false(json_object_get(res, "hasUtxoIndex"));
    json_decref(res);
    json_decref(params);
    return lacks;
}

kd_err kd_kwallet_utxos(kd_wrpc *c, const kd_kaddr *addr, uint32_t timeout_ms, kd_kutxo_list *out, char *why,
                        size_t why_len)
{
    memset(out, 0, sizeof *out);
    char text[KD_KADDR_TEXT_MAX], node[KD_KWALLET_NODE_MAX] = "";
    if (kd_kaddr_encode(addr, text))
        return kd_kaspa_why(KD_ERR_INVALID_ARG, why, why_len, "the wallet's address does not encode");
    json_t *res = NULL, *params = json_pack("{s:[s]}", "addresses", text);
    if (!params)
        return KD_ERR_NOMEM;
    kd_err err = kd_wrpc_call(c, "getUtxosByAddresses", params, timeout_of(timeout_ms), &res, node, sizeof node);
    json_decref(params);
    if (err == KD_ERR_NOT_FOUND) {
        if (lacks_utxoindex(c, timeout_of(timeout_ms)) || strstr(node, "--utxoindex"))
            return kd_kaspa_why(KD_ERR_UNSUPPORTED, why, why_len,
                                "the node runs without --utxoindex, so it cannot list a wallet's coins (it says: "
                                "\"%s\"); restart kaspad with --utxoindex",
                                node);
        return kd_kaspa_why(err, why, why_len, "the node refused getUtxosByAddresses: \"%s\"", node);
    }
    if (err)
        return kd_kaspa_why(err, why, why_len, "getUtxosByAddresses: %s", node);
    char inner[256] = "";
    err = kd_kutxo_list_parse(res, out, inner, sizeof inner);
    json_decref(res);
    if (err == KD_ERR_PARSE)
        return kd_kaspa_why(err, why, why_len, "getUtxosByAddresses: %s", inner);
    return err;
}

/* `method` with no parameters: its result into *res, a refusal's words
 * into `node`. */
static kd_err call_bare(kd_wrpc *c, const char *method, uint32_t timeout_ms, json_t **res, char *node, size_t node_len)
{
    json_t *params = json_object();
    if (!params)
        return KD_ERR_NOMEM;
    kd_err err = kd_wrpc_call(c, method, params, timeout_of(timeout_ms), res, node, node_len);
    json_decref(params);
    return err;
}

kd_err kd_kwallet_daa_score(kd_wrpc *c, uint32_t timeout_ms, uint64_t *daa, char *why, size_t why_len)
{
    json_t *res = NULL;
    char node[KD_KWALLET_NODE_MAX] = "";
    kd_err err = call_bare(c, "getBlockDagInfo", timeout_ms, &res, node, sizeof node);
    if (err == KD_ERR_NOMEM)
        return err;
    if (err)
        return kd_kaspa_why(err, why, why_len, "getBlockDagInfo: %s", node);
    kd_kaspa_dag_info di;
    err = kd_kaspa_dag_info_parse(res, &di, why, why_len);
    json_decref(res);
    if (!err)
        *daa = di.virtual_daa_score;
    return err;
}

kd_err kd_kwallet_fee_rate(kd_wrpc *c, uint32_t timeout_ms, uint64_t *rate, char *why, size_t why_len)
{
    *rate = KD_KASPA_MIN_RELAY_FEE_RATE;
    json_t *res = NULL;
    char node[KD_KWALLET_NODE_MAX] = "";
    kd_err err = call_bare(c, "getFeeEstimate", timeout_ms, &res, node, sizeof node);
    if (err == KD_ERR_NOMEM)
        return err;
    if (err == KD_ERR_NOT_FOUND || err == KD_ERR_PARSE)
        return KD_OK; /* an older node: the default minimum */
    if (err)
        return kd_kaspa_why(err, why, why_len, "getFeeEstimate: %s", node);
    const json_t *est = json_object_get(res, "estimate"), *low = json_object_get(est, "lowBuckets");
    const json_t *bucket =
        json_array_size(low) ? json_array_get(low, json_array_size(low) - 1) : json_object_get(est, "priorityBucket");
    const json_t *fr = json_object_get(bucket, "feerate");
    if (json_is_number(fr) && json_number_value(fr) > 0 && json_number_value(fr) < 1e12) {
        double kg = ceil(json_number_value(fr) * 1000.0);
        if (kg > (double)*rate)
            *rate = (uint64_t)kg;
    }
    json_decref(res);
    return KD_OK;
}
