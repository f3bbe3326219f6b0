/*
 * kaspa_wallet.h — a wallet's view of a kaspad node over wRPC
 * (tools/listen/wrpc_client.h): the node's network, its minimum fee rate
 * and a key's UTXOs (getUtxosByAddresses), each refusal a sentence that
 * says what to do and, when the node refused, what it said.
 *
 *   kd_wrpc *c;  kd_kwallet_connect("ws://127.0.0.1:17210", "testnet-10", 10000, &c, &net, why, n);
 *   kd_kutxo_list l;  kd_kwallet_utxos(c, &addr, 10000, &l, why, n);
 *
 * Threading: the functions use the client they are given; one thread at a
 * time (wrpc_client.h).
 */
#ifndef KD_TOOLS_KASPA_WALLET_H
#define KD_TOOLS_KASPA_WALLET_H

#include <stddef.h>
#include <stdint.h>

#include "engine/err.h"
#include "tools/kaspa/kaspa_addr.h"
#include "tools/kaspa/kaspa_utxo.h"
#include "tools/listen/wrpc_client.h"

/* Room for a node's refusal, quoted whole (kaspad's longest name two
 * transaction ids, amounts and masses: about 300 bytes)... */
#define KD_KWALLET_NODE_MAX 1024
/* ...and for a sentence that quotes one: the size of a `why` buffer given
 * to the functions here and to the writer's (kaspa_writer.h). */
#define KD_KWALLET_WHY_MAX 2048

/* Connects to `url` and reads the node's network (getServerInfo).
 * `network` ("testnet-10", ...; NULL: whatever the node runs) must equal
 * the node's networkId. On KD_OK *out is connected and *net is the node's
 * network kind (its address prefix); `node_network` (may be NULL, 32
 * bytes) gets its name. Errors: KD_ERR_NET, KD_ERR_TIMEOUT (no node
 * there), KD_ERR_INVALID_ARG (a URL it cannot use; the node on another
 * network: "the node at URL is on testnet-11, not testnet-10"),
 * KD_ERR_PARSE (an answer it cannot read), KD_ERR_NOMEM; `why` says
 * which. Close the client with kd_wrpc_close. */
kd_err kd_kwallet_connect(const char *url, const char *network, uint32_t timeout_ms, kd_wrpc **out, kd_kaspa_net *net,
                          char node_network[32], char *why, size_t why_len) KD_WARN_UNUSED;

/* The UTXOs of `addr` the node holds (confirmed ones: the node's UTXO
 * index follows the virtual chain). Errors: KD_ERR_UNSUPPORTED (the node
 * runs without --utxoindex; `why` quotes its refusal), KD_ERR_NOT_FOUND
 * (another refusal, quoted), KD_ERR_PARSE, KD_ERR_NET, KD_ERR_TIMEOUT,
 * KD_ERR_NOMEM. Release the list with kd_kutxo_list_fini. */
kd_err kd_kwallet_utxos(kd_wrpc *c, const kd_kaddr *addr, uint32_t timeout_ms, kd_kutxo_list *out, char *why,
                        size_t why_len) KD_WARN_UNUSED;

/* The node's virtual DAA score (getBlockDagInfo's virtualDaaScore): what
 * the mempool judges a coinbase output's maturity at. Errors: the
 * connection's, KD_ERR_NOT_FOUND (the node refused; quoted),
 * KD_ERR_PARSE. */
kd_err kd_kwallet_daa_score(kd_wrpc *c, uint32_t timeout_ms, uint64_t *daa, char *why, size_t why_len) KD_WARN_UNUSED;

/* The node's lowest fee rate, sompi per 1000 grams: getFeeEstimate's
 * lowest bucket (sompi per gram × 1000), never below
 * KD_KASPA_MIN_RELAY_FEE_RATE (kaspad v2's floor: a v1.x node, whose
 * estimate is 1 sompi a gram, is paid v2's rate too, so what it relays
 * stays relayable by v2 peers). A node that does not answer
 * getFeeEstimate gives KD_KASPA_MIN_RELAY_FEE_RATE. Errors: KD_ERR_NET,
 * KD_ERR_TIMEOUT (the connection). */
kd_err kd_kwallet_fee_rate(kd_wrpc *c, uint32_t timeout_ms, uint64_t *rate, char *why, size_t why_len) KD_WARN_UNUSED;

#endif
