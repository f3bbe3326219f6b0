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
 *            when what is left would be dust (it then goes to the fee, as
 *            rusty-kaspa's wallet does)
 *   payload  prefix (u32 LE) | nonce (u32 LE) | message, the nonce ground
 *            until the id fits the filter's pattern (about 1024 tries)
 *   fee      the minimum fee of kaspad v2's rule plus the priority of the
 *            fee rate above the floor (kd_kaspa_tx_fee, kaspa_mass.h):
 *            exactly the minimum at the floor rate, never more but for
 *            a leftover no change output can hold (below)
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
 * A leftover that is not dust but can be no change either (KIP-9: a
 * change of value v weighs about 10^12 / v grams of storage mass, less what
 * the inputs bring, so one under about 0.0125 KAS after a move's fee makes
 * the transaction non-standard; or one that does not pay for its own
 * output) first makes the builder take another input. Only when no number
 * of inputs makes room does it go to the fee; the result says so
 * (`leftover`, kd_kbuild_note) and every caller shows it. Refusing instead
 * would refuse a payment the wallet covers, and the only remedy the user
 * has (another UTXO) is what the builder already tried.
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

/* Why a leftover went to the fee (kd_kbuild_result.leftover). */
typedef enum {
    KD_KLEFTOVER_NONE = 0,
    KD_KLEFTOVER_DUST, /* under the dust threshold (about 600 sompi) */
    KD_KLEFTOVER_MASS, /* a change that small makes the storage mass non-standard */
    KD_KLEFTOVER_COST, /* a change that small does not pay for its own output */
} kd_kleftover;

typedef struct {
    kd_ktx *tx; /* owned: the signed transaction */
    uint8_t id[KD_KASPA_HASH_LEN];
    uint32_t nonce;
    kd_kmass mass;
    uint64_t fee;      /* sompi: inputs − outputs */
    uint64_t change;   /* sompi; 0 when there is no change output */
    uint64_t total_in; /* sompi */
    size_t *used;      /* owned, tx->n_inputs indexes into req->utxos */
    /* Sompi of `fee` above the minimum plus the priority: what was left
     * when no change output could hold it (0 when there is change). */
    uint64_t leftover;
    kd_kleftover leftover_why;
} kd_kbuild_result;

/* Builds and signs. On success `out` holds the transaction (release with
 * kd_kbuild_result_fini). Errors (each with a sentence in `why`):
 * KD_ERR_NOT_FOUND, KD_ERR_TOO_LARGE, KD_ERR_INSUFFICIENT_FUNDS,
 * KD_ERR_INVALID_ARG (a UTXO that is not the key's, a change address of
 * another kind), KD_ERR_NOMEM, KD_ERR_IO, KD_ERR_INTERNAL. */
kd_err kd_kaspa_build(const kd_kbuild_req *req, kd_kbuild_result *out, char *why, size_t why_len) KD_WARN_UNUSED;
/* A sentence saying that, and why, the fee includes a leftover (written to
 * buf, cut to len; "" when it does not). Returns its length, 0 when none:
 * callers show it whenever it is not empty, so a leftover is never paid
 * silently. */
size_t kd_kbuild_note(const kd_kbuild_result *res, char *buf, size_t len);
/* Releases a result; accepts a zeroed one. */
void kd_kbuild_result_fini(kd_kbuild_result *res);

#endif
