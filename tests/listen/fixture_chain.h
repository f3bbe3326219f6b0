/*
 * fixture_chain.h — the chain a fixture kaspad serves (fixture_wrpc.c): a
 * selected chain of blocks from a genesis, each block a body of txs (a
 * coinbase first, then kdapp txs and noise), each chain block accepting
 * the body of its selected parent, and every third one also the body of a
 * side block on the same parent (its mergeset: the parent, blue, and the
 * side block, red; the accepted ids in that order). Reorgs replace
 * the newest chain blocks with a new branch and put the removed bodies'
 * kdapp txs back in the pending pool, as a node re-includes them.
 *
 * The kdapp txs are a scripted tic-tac-toe game between test:alice and
 * test:bob, signed for the move counters they will be applied at, their
 * payloads carrying the kdapp header with a nonce ground until the id fits
 * the listener's pattern (tools/listen/txfilter.h). Noise: a tx with a
 * foreign prefix whose id fits the pattern, and one with our prefix and a
 * real move whose id does not (the listener must drop both).
 *
 * Every tx is a whole Kaspa transaction (tools/kaspa/kaspa_tx.h) as a node
 * serves one: inputs spending made-up outpoints with 66-byte Schnorr
 * signature scripts and u64 sequences (every other one 2^64-1), P2PK
 * outputs with values up to 2.9e18 sompi, the coinbase on subnetwork 01;
 * its id is Kaspa's (kd_ktx_id), so the nonce grinding runs on real ids.
 * All of it is a function of the seed.
 */
#ifndef KD_TESTS_FIXTURE_CHAIN_H
#define KD_TESTS_FIXTURE_CHAIN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "engine/crypto.h"
#include "engine/err.h"
#include "tools/kaspa/kaspa_tx.h"

typedef struct {
    uint8_t id[KD_HASH_LEN]; /* kd_ktx_id(tx) */
    kd_ktx *tx;              /* owned; its payload has the kdapp header when kdapp */
    int kdapp;               /* our prefix and the pattern: the listener takes it */
} fx_tx;

typedef struct {
    uint8_t hash[KD_HASH_LEN];
    int parent; /* index, -1 for genesis */
    int red;    /* a side block it merges besides its selected parent (a red), or -1 */
    uint64_t daa, time_ms;
    uint64_t nonce; /* any u64, as a miner's: the genesis 2^64-1, the next 2^63, then random */
    int on_chain;
    fx_tx *txs; /* txs[0] is the coinbase */
    size_t n;
} fx_block;

typedef struct {
    fx_block *blocks;
    size_t n_blocks, cap;
    int *chain; /* indices, genesis first */
    size_t chain_len;
    fx_tx *pending; /* kdapp txs waiting for a block, oldest first */
    size_t n_pending;
    uint64_t branch; /* mixed into new hashes so a new branch differs */
    uint64_t seed;
    uint16_t coinbase_version; /* 1 after Toccata (kaspad v2), 0 before */
} fx_chain;

/* A chain of just the genesis, with the game's txs pending; `seed` changes
 * every hash (two seeds: two unrelated chains). */
kd_err fx_chain_init(fx_chain *c, uint64_t seed, uint16_t coinbase_version) KD_WARN_UNUSED;
void fx_chain_fini(fx_chain *c);
/* Appends `tx` (its tx now owned by the pool) to the pending pool. */
kd_err fx_chain_push_pending(fx_chain *c, const fx_tx *tx) KD_WARN_UNUSED;
/* Empties the pending pool (the scripted game, for a chain that carries
 * only what clients submit). */
void fx_chain_clear_pending(fx_chain *c);
/* Adds n blocks on the sink, each taking the next pending kdapp tx. */
kd_err fx_chain_grow(fx_chain *c, unsigned n) KD_WARN_UNUSED;
/* Replaces the newest `depth` chain blocks with `n` new ones. */
kd_err fx_chain_reorg(fx_chain *c, unsigned depth, unsigned n) KD_WARN_UNUSED;
/* The block with this hash, or -1. */
int fx_chain_find(const fx_chain *c, const uint8_t hash[KD_HASH_LEN]);
int fx_chain_sink(const fx_chain *c);
/* Writes the chain, genesis to sink, as a block script (tools/script):
 * each chain block an accept with its hash, daa, time and the kdapp txs it
 * accepts (header stripped). */
void fx_chain_write_script(const fx_chain *c, FILE *out);

/* Writes every block (side blocks too) as one JSON document, for a test
 * to compare a client's reading with: each u64 as a decimal string (a
 * JavaScript number would round it), hashes in hex.
 *
 *   {"network", "sink", "virtualDaaScore", "chain": [genesis .. sink],
 *    "blocks": [{"hash", "daaScore", "blueScore", "timestamp", "nonce",
 *                "isChainBlock", "mergeSetBlues", "mergeSetReds",
 *                "transactions": [{"transactionId", "hash", "payload",
 *                  "lockTime", "gas", "subnetworkId",
 *                  "inputs": [{"transactionId", "index", "sequence", "sigOpCount"}],
 *                  "outputs": [{"value", "scriptPublicKey"}]}]}]}
 *
 * Errors: KD_ERR_NOMEM, KD_ERR_IO, KD_ERR_INTERNAL (a tx hash). */
kd_err fx_chain_write_record(const fx_chain *c, FILE *out) KD_WARN_UNUSED;

#endif
