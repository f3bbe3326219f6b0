/* network.c — the chain a Kaspa listener's store follows (see network.h). */
#include "tools/listen/network.h"

#include <stdio.h>
#include <string.h>

#include "tools/listen/kaspa_rpc.h"
#include "tools/listen/wrpc_client.h"

kd_err kd_listen_chain(const char *rpc_url, const char *network, const char *store_chain, uint32_t timeout_ms,
                       char chain[KD_CHAIN_MAX], char *why, size_t why_len)
{
    if (network)
        return kd_chain_kaspa(network, chain, why, why_len);
    if (store_chain && strncmp(store_chain, KD_CHAIN_KASPA, sizeof KD_CHAIN_KASPA - 1) == 0 &&
        kd_chain_valid(store_chain)) {
        snprintf(chain, KD_CHAIN_MAX, "%s", store_chain);
        return KD_OK;
    }
    char inner[256] = "";
    kd_wrpc *c = NULL;
    json_t *params = json_object(), *res = NULL;
    kd_kaspa_server_info si;
    kd_err err = params ? kd_wrpc_open(rpc_url, timeout_ms, &c, inner, sizeof inner) : KD_ERR_NOMEM;
    if (!err)
        err = kd_wrpc_call(c, "getServerInfo", params, timeout_ms, &res, inner, sizeof inner);
    if (!err)
        err = kd_kaspa_server_info_parse(res, &si, inner, sizeof inner);
    if (!err)
        err = kd_chain_kaspa(si.network_id, chain, inner, sizeof inner);
    json_decref(res);
    json_decref(params);
    kd_wrpc_close(c);
    if (err)
        snprintf(why, why_len,
                 "cannot learn the network of the node at %s, which the store's chain names (%s): start the node, "
                 "or give --network NET",
                 rpc_url, inner[0] ? inner : kd_err_str(err));
    return err;
}
