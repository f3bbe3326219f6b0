/*
 * kaspa_writer.h — kdapp commands sent to a kaspad node as transactions:
 * the writer takes an encoded EpisodeMessage, picks the key that pays,
 * builds and signs the transaction (kaspa_build.h, Crescendo rules, the
 * node's fee rate) and submits it (submitTransaction over wRPC), so
 * `kdapp up --rpc` can serve the devnet's control protocol on a real node.
 *
 * Who pays, from who asked (tools/chain/spend.h; the owner when the
 * request says nothing):
 *
 *   the key of the command        a signed command's signer, a join's joiner,
 *                                 a cancel's signer, a creation's first
 *                                 participant (for a session: the first
 *                                 participant it is granted), when that key is
 *                                 in the key directory (or among the extra
 *                                 payers) and the request may spend it: the
 *                                 owner may spend any; a session or a duty
 *                                 only the keys it lists (its grant's, the
 *                                 duty's own)
 *   the duty's own key            a duty for a command another key signed
 *                                 (the house sends a player's dropped ask
 *                                 again, issue 37): the key the duty lists
 *   the funding wallet            otherwise, or when that key has no coins:
 *                                 for the owner and for a request that names
 *                                 a grant, never for a session without one,
 *                                 and only within its budgets (kaspa_ledger.h)
 *   nobody                        a refusal (KD_ERR_DENIED) naming the wallet
 *                                 it would have been and why not
 *
 * A refusal costs nothing: it is decided before the node is asked anything.
 * A client may instead send a transaction it built, signed and pays for
 * itself (kd_kwriter_submit_tx): the writer checks that the listener will
 * see it and passes it on; none of the writer's wallets pays.
 *
 * The funding wallet also pays when the key could pay only by leaving a
 * leftover to the fee (kaspa_build.h) and the funding wallet would not, if
 * the request may spend it.
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
#include "tools/chain/spend.h"
#include "tools/kaspa/kaspa_build.h"
#include "tools/kaspa/kaspa_ledger.h"
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
    /* The funding wallet's budgets (kaspa_ledger.h); all 0: the defaults
     * (kd_kbudget_default). */
    kd_kbudget budget;
    /* Where the ledger of payments is kept across restarts (DATA/spend.json);
     * NULL: in memory only. */
    const char *ledger_path;
} kd_kwriter_options;

typedef struct kd_kwriter kd_kwriter;

/* Copies the options, resolves the funding key and the payers, loads the
 * ledger, connects and checks the node's network. Errors (each with a
 * sentence): KD_ERR_PARSE (the ledger file is not one), KD_ERR_NET,
 * KD_ERR_TIMEOUT (no node at the URL), KD_ERR_INVALID_ARG (another network, a
 * URL it cannot use), KD_ERR_NOT_FOUND / KD_ERR_BAD_KEY (a key ref),
 * KD_ERR_NOMEM. */
kd_err kd_kwriter_open(const kd_kwriter_options *o, kd_kwriter **out, char *why, size_t why_len) KD_WARN_UNUSED;
/* Closes the connection and frees (wiping the keys); accepts NULL. */
void kd_kwriter_close(kd_kwriter *w);

/* Sends one command: `message` is the EpisodeMessage (the header is the
 * writer's), asked for by `spend` (NULL: the owner). On KD_OK tx_id is the
 * Kaspa id of the transaction the node holds, and `out` (may be NULL) the
 * build of it: its fee, masses and any leftover paid as fee (show
 * kd_kbuild_note; release with kd_kbuild_result_fini). Errors, each with a
 * sentence in `why`: KD_ERR_DENIED (no wallet may pay for it: the sentence
 * names the wallet and why, a missing grant or a budget),
 * KD_ERR_INSUFFICIENT_FUNDS, KD_ERR_NOT_FOUND (the payer has no
 * coins), KD_ERR_TOO_LARGE (over the standard mass), KD_ERR_UNSUPPORTED
 * (the node has no --utxoindex), KD_ERR_REJECTED (the node refused the
 * transaction: its words are quoted), KD_ERR_NET / KD_ERR_TIMEOUT (the node
 * stayed unreachable: nothing was submitted, or — `why` says which — a
 * submission whose fate is unknown; the writer asks again before the next
 * command spends the same coins), KD_ERR_NOMEM, KD_ERR_INTERNAL. */
kd_err kd_kwriter_submit(kd_kwriter *w, const uint8_t *message, size_t len, const kd_chain_spend *spend,
                         uint8_t tx_id[KD_KASPA_HASH_LEN], kd_kbuild_result *out, char *why,
                         size_t why_len) KD_WARN_UNUSED;

/* Sends a transaction a client built, signed and pays for: `json` (len
 * bytes) is the node's JSON of it (what submitTransaction takes), or an
 * object holding it under "transaction" (what `kdapp wallet send --dry-run`
 * prints). It must carry a kdapp payload the listener sees (the prefix, an
 * id that fits the pattern, an EpisodeMessage); none of the writer's
 * wallets pays. Errors, each with a sentence: KD_ERR_INVALID_ARG (not a
 * transaction, or one the listener would never see), KD_ERR_REJECTED (the
 * node's words), KD_ERR_NET / KD_ERR_TIMEOUT, KD_ERR_NOMEM. */
kd_err kd_kwriter_submit_tx(kd_kwriter *w, const char *json, size_t len, uint8_t tx_id[KD_KASPA_HASH_LEN], char *why,
                            size_t why_len) KD_WARN_UNUSED;

/* Builds and signs the command's transaction as kd_kwriter_submit would,
 * without submitting it (the dry run): *tx_json is the node's JSON of it
 * (free() it), `res` (may be NULL) its id, mass and fee (release with
 * kd_kbuild_result_fini). Errors as kd_kwriter_submit, without the node's
 * refusals. */
kd_err kd_kwriter_dry_run(kd_kwriter *w, const uint8_t *message, size_t len, char **tx_json, kd_kbuild_result *res,
                          char *why, size_t why_len) KD_WARN_UNUSED;

/* A copy of the ledger of payments (kaspa_ledger.h). Thread-safe. */
void kd_kwriter_ledger(kd_kwriter *w, kd_kledger *out);

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
