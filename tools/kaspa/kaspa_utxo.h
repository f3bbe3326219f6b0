/*
 * kaspa_utxo.h — a wallet's UTXOs in the node's JSON: the entries of a
 * getUtxosByAddresses answer (rusty-kaspa rpc/core/src/model/address.rs
 * RpcUtxosByAddressesEntry, serde camelCase):
 *
 *   {"address": "kaspatest:...",
 *    "outpoint": {"transactionId": "<hex>", "index": 0},
 *    "utxoEntry": {"amount": 100000000, "scriptPublicKey": "0000<script>",
 *                  "blockDaaScore": 1234, "isCoinbase": false}}
 *
 * given as a JSON array of them, or as the answer's params {"entries": [...]}.
 * The script public key is the "<version as 4 hex><script>" string or an
 * object {"version", "script"}; u64 values are integers or decimal strings.
 */
#ifndef KD_TOOLS_KASPA_UTXO_H
#define KD_TOOLS_KASPA_UTXO_H

#include <jansson.h>
#include <stddef.h>

#include "engine/err.h"
#include "tools/kaspa/kaspa_sighash.h"

/* A parsed UTXO list: utxos[i].spk.script points into storage the list owns. */
typedef struct {
    kd_kutxo *utxos;
    size_t n;
} kd_kutxo_list;

/* Errors: KD_ERR_PARSE with a sentence naming the entry and field
 * ("entries[2].utxoEntry.amount is missing"), KD_ERR_NOMEM. */
kd_err kd_kutxo_list_parse(const json_t *json, kd_kutxo_list *out, char *why, size_t why_len) KD_WARN_UNUSED;
/* Releases the list; accepts a zeroed one. */
void kd_kutxo_list_fini(kd_kutxo_list *list);

#endif
