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
 *    for compute mass M"                                        (v2.0.1; also "for normalized transient
 *                                                                 mass M (proportional to transaction byte size)")
 *   "transaction <id> is not standard: transaction has F fees which is under the required amount of R"  (v1.1)
 *   "transaction <id> is not standard: transaction output #i: payment of V is dust"          (v1.1)
 *   "transaction <id> is not standard: transaction compute mass of M is larger than max allowed size of 100000"
 *                                                                (and transient (storage) mass, storage mass)
 *   "one of the transaction inputs spends an immature UTXO: transaction input #i tried to spend coinbase
 *    outpoint (<txid>, <i>) with daa score of D\n    while the merging block daa score is V and the coinbase
 *    maturity period of 1000 hasn't passed yet"
 *
 * each behind "Rejected transaction <id>: ". The rules are those of the
 * kaspad the fixture plays (fx_kaspad): v2.0.1 asks fee >= max(compute
 * mass, transient mass / 2) × 100,000 sompi/kg and has no dust rule; v1.1
 * (and v0.14) fee >= compute mass × 1,000 sompi/kg and the dust rule; all
 * refuse a mass over 100,000 and an immature coinbase spend (the virtual
 * DAA score is the sink's). An accepted transaction joins
 * the chain's pending pool (fixture_chain.h) and is mined from there; its
 * outputs are the node's UTXOs once a chain block accepts it, and a reorg
 * puts it back in the pool, as a node does. The funding outputs: three of
 * 1000 KAS to each of test:alice, bob, carol, dave, erin, frank, house,
 * wallet and funder (engine/crypto.h kd_key_test), on the fixture's
 * network; and coinbase outputs: test:miner has a 500 KAS coinbase output
 * of DAA score 1000 (the genesis's: immature for the next 1000 DAA scores)
 * and a 2 KAS output, test:minter a 700 KAS coinbase output of DAA score 0
 * (mature) and a 1 KAS output; test:scrap one output of 0.01 KAS (a
 * move leaves too little of it for a change output: KIP-9).
 */
#ifndef KD_TESTS_FIXTURE_LEDGER_H
#define KD_TESTS_FIXTURE_LEDGER_H

#include <jansson.h>
#include <stdio.h>

#include "fixture_chain.h"
#include "tools/kaspa/kaspa_addr.h"
#include "tools/kaspa/kaspa_sighash.h"

/* Which kaspad the fixture plays. */
typedef enum {
    FX_KASPAD_V2 = 0, /* v2.0.1 "Toccata" (the default) */
    FX_KASPAD_V11,    /* v1.1.0 (Crescendo) */
    FX_KASPAD_V014,   /* v0.14.1's JSON (the pinned WASM SDK's), v1.1's rules */
} fx_kaspad;

typedef struct {
    kd_kaspa_net net;
    fx_kaspad kaspad;
    kd_kutxo *funding; /* scripts owned */
    size_t n_funding;
    kd_ktx **subs; /* every transaction accepted from a client, owned */
    uint8_t (*sub_ids)[KD_HASH_LEN];
    size_t n_subs;
    uint64_t min_rate; /* sompi per 1000 grams: the kaspad's default, or --min-relay-fee */
    char **sub_lines;  /* per accepted submission: {"id", "transaction", "entries"} (fx_ledger_write_subs) */
} fx_ledger;

/* Writes every accepted submission, one JSON a line: its id, the
 * transaction as submitted and the entries it spends ({amount,
 * scriptPublicKey}, in input order), for an outside check
 * (tests/kaspa/kaspa_check.py subs). */
kd_err fx_ledger_write_subs(const fx_ledger *l, FILE *out) KD_WARN_UNUSED;

kd_err fx_ledger_init(fx_ledger *l, kd_kaspa_net net, fx_kaspad kaspad) KD_WARN_UNUSED;
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
