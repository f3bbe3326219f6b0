/*
 * kaspa_build.h — a kdapp command as a signed Kaspa transaction, offline.
 *
 * Given the wallet's UTXOs (all paying the signing key's P2PK script), the
 * command's message (the EpisodeMessage bytes) and the listener's filter
 * (tools/listen/txfilter.h), the builder makes
 *
 *   inputs   the fewest UTXOs that pay for it, largest first; each with
 *            sequence 0 and sig_op_count 1, signed SIGHASH_ALL
 *   outputs  one: the change back to the wallet's change address, or none
 *            when the change would be dust (it then goes to the fee, as
 *            rusty-kaspa's wallet does)
 *   payload  prefix (u32 LE) | nonce (u32 LE) | message, the nonce ground
 *            until the id fits the filter's pattern (about 1024 tries)
 *   fee      the minimum fee of kaspad v2's rule plus the priority of the
 *            fee rate above the floor (kd_kaspa_tx_fee, kaspa_mass.h):
 *            exactly the minimum at the floor rate, never more
 *
 * Coinbase UTXOs are spent only once mature at the node's virtual DAA
 * score (req.daa_score); a build without it refuses a coinbase UTXO.
 *
 * and refuses with a sentence naming the amounts: a fee rate below the
 * floor (KD_ERR_INVALID_ARG), a coinbase UTXO without a DAA score
 * (KD_ERR_INVALID_ARG), no UTXOs or only immature ones
 * (KD_ERR_NOT_FOUND), a payload that
 * makes the transaction non-standard (KD_ERR_TOO_LARGE, saying how many
 * bytes fit), funds that do not cover the fee (KD_ERR_INSUFFICIENT_FUNDS,
 * saying how much is needed and how much there is), more inputs than a
 * standard transaction holds (KD_ERR_TOO_LARGE).
 *
 * The fee and the change depend on each other through the storage mass
 * (a smaller change weighs more): the builder iterates to the fixed point,
 * so the fee it pays is never below what the node asks for the mass of the
 * transaction it signs.
 */
#ifndef KD_TOOLS_KASPA_BUILD_H
#define KD_TOOLS_KASPA_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "engine/crypto.h"
#include "engine/err.h"
#include "tools/kaspa/kaspa_addr.h"
#include "tools/kaspa/kaspa_mass.h"
#include "tools/kaspa/kaspa_sighash.h"
#include "tools/kaspa/kaspa_tx.h"
#include "tools/listen/txfilter.h"

typedef struct {
    const kd_kutxo *utxos; /* the wallet's, borrowed; each pays `key`'s P2PK script */
    size_t n_utxos;
    const kd_key *key;      /* signs every input */
    const kd_kaddr *change; /* where the change goes */
    const uint8_t *message; /* after the header: the EpisodeMessage */
    size_t message_len;
    /* Prefix and id pattern; NULL: the payload is the message alone and the
     * id is not ground. */
    const kd_tx_filter *filter;
    uint32_t nonce_start; /* the first nonce tried */
    uint64_t fee_rate;    /* sompi per 1000 grams; 0 = the rules' floor (kd_kaspa_fee_floor); below it: refused */
    kd_kaspa_rules rules;
    /* The node's virtual DAA score: coinbase UTXOs younger than
     * KD_KASPA_COINBASE_MATURITY at it are left out. Without it
     * (has_daa_score 0) a coinbase UTXO is refused. */
    uint64_t daa_score;
    int has_daa_score;
} kd_kbuild_req;

typedef struct {
    kd_ktx *tx; /* owned: the signed transaction */
    uint8_t id[KD_KASPA_HASH_LEN];
    uint32_t nonce;
    kd_kmass mass;
    uint64_t fee;      /* sompi: inputs − outputs */
    uint64_t change;   /* sompi; 0 when there is no change output */
    uint64_t total_in; /* sompi */
    size_t *used;      /* owned, tx->n_inputs indexes into req->utxos */
} kd_kbuild_result;

/* Builds and signs. On success `out` holds the transaction (release with
 * kd_kbuild_result_fini). Errors (each with a sentence in `why`):
 * KD_ERR_NOT_FOUND, KD_ERR_TOO_LARGE, KD_ERR_INSUFFICIENT_FUNDS,
 * KD_ERR_INVALID_ARG (a UTXO that is not the key's, a change address of
 * another kind), KD_ERR_NOMEM, KD_ERR_IO, KD_ERR_INTERNAL. */
kd_err kd_kaspa_build(const kd_kbuild_req *req, kd_kbuild_result *out, char *why, size_t why_len) KD_WARN_UNUSED;
/* Releases a result; accepts a zeroed one. */
void kd_kbuild_result_fini(kd_kbuild_result *res);

#endif
