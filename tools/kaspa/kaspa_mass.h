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
 *   fee            = mass × rate / 1000 sompi (rate in sompi per 1000
 *                    grams; the node's minimum relay rate is 1000, i.e.
 *                    1 sompi a gram), and the rate itself when that is 0
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
 * A transaction is standard (relayed) when its mass is at most
 * KD_KASPA_MAX_STANDARD_MASS; this is what bounds a payload (about 99 KB
 * under V014, about 24.8 KB under Crescendo, whose transient mass counts
 * each byte four times). An output is dust when spending it would cost
 * more than a third of its value at the minimum rate (value × 1000 /
 * (3 × (output size + 148)) < 1000: under 600 sompi for a P2PK output),
 * or when its script is shorter than 33 bytes (the wallet's unspendable rule).
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
/* The node's default minimum relay fee rate, sompi per 1000 grams. */
#define KD_KASPA_MIN_RELAY_FEE_RATE 1000ull

typedef struct {
    uint64_t size;      /* the estimated serialised size */
    uint64_t compute;   /* compute mass */
    uint64_t storage;   /* KIP-9 storage mass; UINT64_MAX when incomputable */
    uint64_t transient; /* KIP-13 (Crescendo only, else 0) */
    uint64_t total;     /* the mass the node takes, by the rules */
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

/* 1 when the output would be refused as dust by the node's mempool. */
int kd_kaspa_output_is_dust(uint64_t value, size_t script_len);

#endif
