/*
 * fixture_ledger.h — the fixture kaspad's coins (fixture_wrpc.c): funding
 * outputs to the test keys' addresses, and every transaction a client
 * submitted, checked as kaspad's mempool checks one and answered in its
 * words (rusty-kaspa mining/errors/src/mempool.rs, rpc/core/src/error.rs):
 *
 *   "transaction <id> is already in the mempool"
 *   "transaction <id> was already accepted by the consensus"
 *   "transaction <id> is an orphan where orphan is disallowed"   (an input it never served)
 *   "output (<txid>, <i>) already spent by transaction <id> in the mempool"
 *   "transaction <id> is not standard: transaction has F fees which is under the required amount of R
 *    for compute mass M"
 *
 * each behind "Rejected transaction <id>: ". An accepted transaction joins
 * the chain's pending pool (fixture_chain.h) and is mined from there; its
 * outputs are the node's UTXOs once a chain block accepts it, and a reorg
 * puts it back in the pool, as a node does. The funding outputs: three of
 * 1000 KAS to each of test:alice, bob, carol, dave, erin, frank, house,
 * wallet and funder (engine/crypto.h kd_key_test), on the fixture's network.
 */
#ifndef KD_TESTS_FIXTURE_LEDGER_H
#define KD_TESTS_FIXTURE_LEDGER_H

#include <jansson.h>

#include "fixture_chain.h"
#include "tools/kaspa/kaspa_addr.h"
#include "tools/kaspa/kaspa_sighash.h"

typedef struct {
    kd_kaspa_net net;
    kd_kutxo *funding; /* scripts owned */
    size_t n_funding;
    kd_ktx **subs; /* every transaction accepted from a client, owned */
    uint8_t (*sub_ids)[KD_HASH_LEN];
    size_t n_subs;
    uint64_t min_rate; /* sompi per 1000 grams */
} fx_ledger;

kd_err fx_ledger_init(fx_ledger *l, kd_kaspa_net net) KD_WARN_UNUSED;
void fx_ledger_fini(fx_ledger *l);

/* getUtxosByAddresses' answer for params {"addresses": [...]}: the
 * confirmed UTXOs. NULL and `msg` set for a bad address. */
json_t *fx_ledger_utxos(const fx_ledger *l, const fx_chain *c, const json_t *params, char *msg, size_t msg_len);

/* submitTransaction: checks params {"transaction"} and, if it passes, puts
 * the transaction in the pending pool. 0 with id_hex set, or -1 with the
 * node's refusal in `msg`. */
int fx_ledger_submit(fx_ledger *l, fx_chain *c, const json_t *params, char id_hex[2 * KD_HASH_LEN + 1], char *msg,
                     size_t msg_len);

/* 1 when the pending pool holds the transaction of `id`. */
int fx_ledger_in_mempool(const fx_chain *c, const uint8_t id[KD_HASH_LEN]);

#endif
