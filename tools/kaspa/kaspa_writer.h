/*
 * kaspa_writer.h — kdapp commands sent to a kaspad node as transactions:
 * the writer takes an encoded EpisodeMessage, picks the key that pays,
 * builds and signs the transaction (kaspa_build.h, Crescendo rules, the
 * node's fee rate) and submits it (submitTransaction over wRPC), so
 * `kdapp up --rpc` can serve the devnet's control protocol on a real node.
 *
 * Who pays: a signed command's own signer when its key is in the key
 * directory (or among the extra payers), a creation's first participant
 * likewise; otherwise, or when that key has no coins to pay with, the
 * funding wallet; otherwise a refusal that says so. The funding wallet
 * also pays when the key could pay only by leaving a leftover to the fee
 * (kaspa_build.h) and the funding wallet would not.
 *
 * Chaining. Each paying key has a list of its own transactions the node
 * has not settled yet (the pending list). A new command spends
 *
 *   the node's UTXOs of the key  −  what pending txs spend  +  their change
 *
 * so successive commands chain on the wallet's unconfirmed change without
 * waiting for a block. Before each build the writer asks the node about
 * every pending tx, oldest first:
 *
 *   in the mempool (getMempoolEntry)          kept
 *   not, and an input still live (in the      kept for a grace period (it may sit in
 *   node's UTXOs or another pending change)   a block not yet accepted), then given back
 *   not, and no input live                    settled: forgotten (its change, if it was
 *                                             accepted, is among the node's UTXOs now)
 *
 * A tx the node rejects at submission never enters the list: its inputs
 * stay available at once.
 *
 * Never paying twice. When the connection drops during submitTransaction
 * the writer does not know whether the node took the tx. It reconnects and
 * asks (getMempoolEntry, then whether the tx's inputs are still unspent)
 * before anything else, and a resend is the SAME signed transaction (same
 * id), which the node can accept at most once. A node that answers "is an
 * orphan" (the coins of the chain's previous command are in a block the
 * virtual chain has not accepted yet) is asked again after a short wait,
 * with a transaction built anew: the refused one cost nothing.
 *
 * Threading: one call at a time per writer (a mutex serialises callers).
 */
#ifndef KD_TOOLS_KASPA_WRITER_H
#define KD_TOOLS_KASPA_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "engine/crypto.h"
#include "engine/err.h"
#include "tools/kaspa/kaspa_build.h"
#include "tools/listen/txfilter.h"

typedef struct {
    const char *rpc_url;  /* ws://HOST:PORT; required */
    const char *network;  /* the node must be on it ("testnet-10"); NULL: any */
    const char *keys_dir; /* where a seat's key is looked up; NULL: none */
    const char *payers;   /* more key refs that may pay their own commands ("test:alice,test:bob"); NULL */
    const char *funding;  /* key ref paying what no seat key pays; NULL: none */
    uint64_t fee_rate;    /* sompi per 1000 grams; 0: the node's (kd_kwallet_fee_rate) */
    kd_tx_filter filter;  /* the listener's: the prefix and the id pattern */
    uint32_t timeout_ms;  /* one call to the node; 0: 10000 */
    uint32_t retry_ms;    /* how long a command is retried (reconnects, orphans); 0: 20000 */
    uint32_t grace_ms;    /* a pending tx absent from the mempool; 0: 30000 */
} kd_kwriter_options;

typedef struct kd_kwriter kd_kwriter;

/* Copies the options, resolves the funding key and the payers, connects and
 * checks the node's network. Errors (each with a sentence): KD_ERR_NET,
 * KD_ERR_TIMEOUT (no node at the URL), KD_ERR_INVALID_ARG (another network, a
 * URL it cannot use), KD_ERR_NOT_FOUND / KD_ERR_BAD_KEY (a key ref),
 * KD_ERR_NOMEM. */
kd_err kd_kwriter_open(const kd_kwriter_options *o, kd_kwriter **out, char *why, size_t why_len) KD_WARN_UNUSED;
/* Closes the connection and frees (wiping the keys); accepts NULL. */
void kd_kwriter_close(kd_kwriter *w);

/* Sends one command: `message` is the EpisodeMessage (the header is the
 * writer's). On KD_OK tx_id is the Kaspa id of the transaction the node
 * holds, and `out` (may be NULL) the build of it: its fee, masses and any
 * leftover paid as fee (show kd_kbuild_note; release with
 * kd_kbuild_result_fini). Errors, each with a sentence in `why`: KD_ERR_DENIED (no key pays
 * for it), KD_ERR_INSUFFICIENT_FUNDS, KD_ERR_NOT_FOUND (the payer has no
 * coins), KD_ERR_TOO_LARGE (over the standard mass), KD_ERR_UNSUPPORTED
 * (the node has no --utxoindex), KD_ERR_REJECTED (the node refused the
 * transaction: its words are quoted), KD_ERR_NET / KD_ERR_TIMEOUT (the node
 * stayed unreachable: nothing was submitted, or — `why` says which — a
 * submission whose fate is unknown; the writer asks again before the next
 * command spends the same coins), KD_ERR_NOMEM, KD_ERR_INTERNAL. */
kd_err kd_kwriter_submit(kd_kwriter *w, const uint8_t *message, size_t len, uint8_t tx_id[KD_KASPA_HASH_LEN],
                         kd_kbuild_result *out, char *why, size_t why_len) KD_WARN_UNUSED;

/* Builds and signs the command's transaction as kd_kwriter_submit would,
 * without submitting it (the dry run): *tx_json is the node's JSON of it
 * (free() it), `res` (may be NULL) its id, mass and fee (release with
 * kd_kbuild_result_fini). Errors as kd_kwriter_submit, without the node's
 * refusals. */
kd_err kd_kwriter_dry_run(kd_kwriter *w, const uint8_t *message, size_t len, char **tx_json, kd_kbuild_result *res,
                          char *why, size_t why_len) KD_WARN_UNUSED;

typedef struct {
    uint64_t submitted;  /* txs the node took */
    uint64_t rejected;   /* txs the node refused */
    uint64_t resent;     /* same-id resends after a dropped connection */
    uint64_t recovered;  /* dropped submissions found held by the node */
    uint64_t given_back; /* pending txs dropped after the grace period */
    size_t pending;      /* pending txs now, every payer */
    uint64_t fee_rate;   /* the rate used last */
} kd_kwriter_stats;

void kd_kwriter_stats_get(kd_kwriter *w, kd_kwriter_stats *out);

#endif
