/*
 * network.h — the chain a Kaspa listener's store follows (engine/chain.h):
 * "kaspa:<network id>". `kdapp listen` and `kdapp up --rpc` fix it before
 * they open the store (a new store keeps it; an existing one must match),
 * and name it in every ingest request (a `kdapp engine` of another chain
 * refuses them), so the consents made for that store name the network.
 */
#ifndef KD_TOOLS_LISTEN_NETWORK_H
#define KD_TOOLS_LISTEN_NETWORK_H

#include <stdint.h>

#include "engine/chain.h"

/*
 * The chain of a listener of the node at `rpc_url` into a store that
 * follows `store_chain` ("" or NULL: no store yet), given `network`
 * (--network, or NULL):
 *
 *   --network NET            kaspa:NET (the follower then checks the node is on NET)
 *   a store of kaspa:NET     kaspa:NET (the node need not be up yet)
 *   otherwise                kaspa:<the node's network id>, read now (getServerInfo)
 *
 * Errors, each with a sentence in `why`: KD_ERR_INVALID_ARG (a network id
 * that is no chain's), the connection's errors (KD_ERR_NET, KD_ERR_TIMEOUT,
 * KD_ERR_PARSE: the node cannot tell its network; start it, or give
 * --network). One thread; blocks up to about twice `timeout_ms`.
 */
kd_err kd_listen_chain(const char *rpc_url, const char *network, const char *store_chain, uint32_t timeout_ms,
                       char chain[KD_CHAIN_MAX], char *why, size_t why_len) KD_WARN_UNUSED;

#endif
