/*
 * kaspa_mass.h — a transaction's mass and fee as rusty-kaspa's node takes
 * them (consensus/core/src/mass, consensus/src/processes/mass.rs, mining/
 * src/mempool/check_transaction_standard.rs, wallet/core/src/tx/mass.rs),
 * with mainnet's parameters (the same on every network):
 *
 *   compute mass   = serialised size × 1 + Σ outputs (2 + script len) × 10
 *                    + Σ inputs sig_op_count × 1000
 *   size           = 2 + 8 + Σ inputs (32 + 4 + 8 + script len + 8) + 8
 *                    + Σ outputs (8 + 2 + 8 + script len) + 8 + 20 + 8
 *                    + 32 + 8 + payload len
 *   storage mass   = KIP-9: max(0, C·(Σ 1/o − |I|/A(I))), C = 10^12, with
 *                    the relaxed C·Σ 1/i for the inputs when |O| = 1,
 *                    |I| = 1 or |O| = |I| = 2 (computed with integer
 *                    divisions in rusty-kaspa's order)
 *   transient mass = size × 4 (KIP-13)
 *   fee(m, r)      = m × r / 1000 sompi (r in sompi per 1000 grams), and
 *                    r itself when that is 0 (the mempool's
 *                    minimum_required_transaction_relay_fee)
 *
 * The fee a node asks, kaspad v2.0.1 ("Toccata", mining/src/mempool/
 * check_transaction_standard.rs, check_transaction_standard_in_context,
 * for a transaction submitted over RPC, before and after activation):
 *
 *   fee mass       = max(compute mass, ⌈transient mass × 1/2⌉)  (the
 *                    transient mass normalised by the post-Toccata block
 *                    limits' cofactor, compute 500,000 / transient
 *                    1,000,000; storage mass pays no relay fee)
 *   minimum fee    = fee(fee mass, 100,000)  (config.rs
 *                    DEFAULT_MINIMUM_RELAY_TRANSACTION_FEE: 100 sompi a
 *                    gram; v1.x asked fee(compute mass, 1,000))
 *
 * and the mempool orders transactions by fee per gram of max(fee mass,
 * storage mass) (MutableTransaction::calculated_feerate). The builder
 * pays the minimum fee plus the priority of a rate above the floor:
 *
 *   fee            = minimum fee + (rate − 100,000) × max(fee mass,
 *                    storage mass) / 1000
 *
 * so at the floor rate it pays exactly the minimum, and a fee that meets
 * v2's rule also meets v1.x's (v2's mass and rate are never lower).
 *
 * The two rule sets (kaspa_sighash.h):
 *
 *   KD_KASPA_RULES_V014       rusty-kaspa v0.14.1 (the WASM SDK the tests
 *                             compare with): the node's mass is compute +
 *                             storage (Kip9Version::Alpha, the arithmetic
 *                             formula for the inputs in every case), no
 *                             transient mass.
 *   KD_KASPA_RULES_CRESCENDO  rusty-kaspa v1.0 on (live networks): the
 *                             node's mass is max(compute, transient,
 *                             storage), storage with the relaxed formula
 *                             and each UTXO's plurality ⌈(63 + script
 *                             len) / 100⌉ (1 for every standard script).
 *
 * A transaction is standard (relayed) when each of its masses is at most
 * KD_KASPA_MAX_STANDARD_MASS: v1.x's limit, and v2.0.1's until 30 minutes
 * before Toccata activates (MAXIMUM_STANDARD_TRANSACTION_MASS_PRE_TOCCATA;
 * after it only the block limits bound a transaction). kdapp keeps to it
 * on every version, so what it builds relays on v1.1 and v2 nodes alike;
 * this is what bounds a payload (about 99 KB under V014, about 24.8 KB
 * under Crescendo, whose transient mass counts each byte four times). An
 * output is dust when spending it would cost more than a third of its
 * value at v1.x's minimum rate (value × 1000 / (3 × (output size + 148))
 * < 1000: under 600 sompi for a P2PK output), or when its script is
 * shorter than 33 bytes (the wallet's unspendable rule). v2's mempool has
 * no dust rule (storage mass prices small outputs); v1.x nodes still
 * apply it.
 *
 * Coinbase maturity: a coinbase output is spendable once the virtual DAA
 * score reaches its block's DAA score + KD_KASPA_COINBASE_MATURITY
 * (consensus/core/src/config: 100 seconds × 10 blocks a second on every
 * network; TxRuleError::ImmatureCoinbaseSpend otherwise).
 */
#ifndef KD_TOOLS_KASPA_MASS_H
#define KD_TOOLS_KASPA_MASS_H

#include <stddef.h>
#include <stdint.h>

#include "engine/err.h"
#include "tools/kaspa/kaspa_sighash.h"
#include "tools/kaspa/kaspa_tx.h"

#define KD_KASPA_SOMPI_PER_KAS 100000000ull
#define KD_KASPA_MAX_SOMPI (29000000000ull * KD_KASPA_SOMPI_PER_KAS)
#define KD_KASPA_STORAGE_MASS_PARAMETER (KD_KASPA_SOMPI_PER_KAS * 10000ull)
#define KD_KASPA_MAX_STANDARD_MASS 100000ull
/* kaspad v2's default minimum relay fee rate, sompi per 1000 grams: the
 * floor of every rate kdapp pays under the Crescendo rules. */
#define KD_KASPA_MIN_RELAY_FEE_RATE 100000ull
/* kaspad v0.14 to v1.x's (LEGACY_MINIMUM_RELAY_TRANSACTION_FEE in v2):
 * the floor under the V014 rules, and the dust rule's rate. */
#define KD_KASPA_LEGACY_RELAY_FEE_RATE 1000ull
/* DAA scores before a coinbase output may be spent (every network). */
#define KD_KASPA_COINBASE_MATURITY 1000ull

typedef struct {
    uint64_t size;      /* the estimated serialised size */
    uint64_t compute;   /* compute mass */
    uint64_t storage;   /* KIP-9 storage mass; UINT64_MAX when incomputable */
    uint64_t transient; /* KIP-13 (Crescendo only, else 0) */
    uint64_t total;     /* the mass the node takes, by the rules: each of compute, transient, storage <= it */
    uint64_t fee_mass;  /* the mass the minimum fee is of: max(compute, ⌈transient / 2⌉) (V014: total) */
    uint64_t order;     /* the mass the mempool's fee rate is of: max(fee_mass, storage) (V014: total) */
} kd_kmass;

/* The compute mass of `tx` as it stands (signed: its signature scripts are
 * counted as they are). `unsigned_sig_len` bytes are added for every input
 * whose signature script is still empty (66 for a Schnorr signature, as the
 * wallet does; 0 to count the transaction as it is). */
uint64_t kd_ktx_compute_mass(const kd_ktx *tx, size_t unsigned_sig_len, uint64_t *size_out);

/* The storage mass of a transaction spending `entries` (one per input).
 * UINT64_MAX when incomputable (an output of value 0, an overflow: "too
 * high"). */
uint64_t kd_ktx_storage_mass(const kd_ktx *tx, const kd_kutxo *entries, kd_kaspa_rules rules);

/* Every mass of `tx` (entries: one per input), counting empty signature
 * scripts as Schnorr ones (66 bytes), so the mass of an unsigned
 * transaction is the mass it will have once signed. */
void kd_ktx_mass(const kd_ktx *tx, const kd_kutxo *entries, kd_kaspa_rules rules, kd_kmass *out);

/* The fee of `mass` at `rate` sompi per 1000 grams (the mempool's
 * minimum_required_transaction_relay_fee; at most KD_KASPA_MAX_SOMPI). */
uint64_t kd_kaspa_fee(uint64_t mass, uint64_t rate);

/* The minimum relay fee rate under `rules`: KD_KASPA_MIN_RELAY_FEE_RATE
 * (Crescendo: what v2 nodes ask) or KD_KASPA_LEGACY_RELAY_FEE_RATE (V014). */
uint64_t kd_kaspa_fee_floor(kd_kaspa_rules rules);

/* The least fee a node relays a transaction of masses `m` for:
 * fee(fee mass, floor). */
uint64_t kd_kaspa_min_fee(const kd_kmass *m, kd_kaspa_rules rules);

/* The fee the builder pays at `rate` (>= the floor): under Crescendo the
 * minimum fee plus (rate − floor) × order / 1000; under V014 fee(total,
 * rate), as v0.14's wallet computed it. At most KD_KASPA_MAX_SOMPI. */
uint64_t kd_kaspa_tx_fee(const kd_kmass *m, kd_kaspa_rules rules, uint64_t rate);

/* 1 when the output would be refused as dust by a v1.x node's mempool. */
int kd_kaspa_output_is_dust(uint64_t value, size_t script_len);

#endif
