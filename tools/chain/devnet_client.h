/*
 * devnet_client.h — the client side of the devnet's control socket: an NNG
 * REQ socket sending DevnetRequest (submit, reorg, status, advance) and reading the
 * DevnetReply. Used by `kdapp submit`, `kdapp devnet-reorg` and anything
 * else that drives a devnet in another process.
 *
 * A request is sent once and never re-sent by NNG: neither submit (it would
 * queue the payloads twice) nor reorg (it would revert twice) is idempotent.
 * Each request waits at most the client's timeout to be sent, then as long
 * for its reply.
 *
 * Threading: any number of threads may share a client (the gateway's HTTP
 * threads do): each request travels in its own NNG context, so one
 * thread's request never cancels another's.
 */
#ifndef KD_TOOLS_DEVNET_CLIENT_H
#define KD_TOOLS_DEVNET_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "engine/bytes.h"
#include "engine/engine.h"
#include "tools/chain/spend.h"

typedef struct kd_devnet_client kd_devnet_client;

/* What the devnet answered (besides tx ids). */
typedef struct {
    uint64_t height;  /* the devnet's chain height after the request */
    uint32_t pending; /* txs waiting for a block */
    int has_tip;
    uint8_t tip[KD_HASH_LEN];
    uint32_t reverted;      /* reorg: blocks reverted */
    uint32_t reincluded;    /* reorg: txs queued again */
    uint32_t dropped;       /* reorg: txs left out */
    int takes_transactions; /* the chain takes kd_devnet_client_submit_tx (a Kaspa node) */
    int on_demand;          /* the chain mines on demand (the devnet); 0: a Kaspa node */
} kd_devnet_answer;

/* Dials `url` without waiting for it (the devnet may start later).
 * timeout_ms: how long a request waits for its reply (0: 10 s).
 * Errors: KD_ERR_INVALID_ARG (bad URL), KD_ERR_NET, KD_ERR_NOMEM; `why` gets
 * a sentence. */
kd_err kd_devnet_client_open(const char *url, uint32_t timeout_ms, kd_devnet_client **out, char *why,
                             size_t why_len) KD_WARN_UNUSED;
/* Closes; accepts NULL. Call once no request is in progress. */
void kd_devnet_client_close(kd_devnet_client *client);

/*
 * The common errors of the three requests, each with a sentence in `why`:
 * KD_ERR_TIMEOUT (no reply in time: the devnet is not running at the URL, or
 * a reorg waits for an engine that is down; `why` says whether the request
 * was sent, and so whether the devnet may have acted on it), KD_ERR_NET
 * (likewise), KD_ERR_DECODE (the reply is not a DevnetReply), KD_ERR_NOMEM;
 * or, when the devnet refused the request, the error named by its error_code (e.g. KD_ERR_TOO_LARGE,
 * KD_ERR_NOT_FOUND, KD_ERR_BEYOND_FINALITY) with the devnet's sentence in
 * `why`. `ans` (may be NULL) is filled whenever a reply arrived, refused or
 * not.
 */

/* Queues `count` payloads; tx_ids (count entries) receives their ids. On a
 * refusal part-way, *queued (may be NULL) says how many were queued (their
 * ids are filled). */
kd_err kd_devnet_client_submit(kd_devnet_client *client, const kd_buf *payloads, size_t count,
                               uint8_t (*tx_ids)[KD_HASH_LEN], size_t *queued, kd_devnet_answer *ans, char *why,
                               size_t why_len) KD_WARN_UNUSED;

/* As kd_devnet_client_submit, saying who asked (spend.h; NULL: the owner,
 * as kd_devnet_client_submit): a chain that pays for transactions refuses
 * what `spend` does not allow, with KD_ERR_DENIED and its sentence. */
kd_err kd_devnet_client_submit_as(kd_devnet_client *client, const kd_buf *payloads, size_t count,
                                  const kd_chain_spend *spend, uint8_t (*tx_ids)[KD_HASH_LEN], size_t *queued,
                                  kd_devnet_answer *ans, char *why, size_t why_len) KD_WARN_UNUSED;

/* Sends a transaction a client built, signed and pays for (the node's JSON,
 * NUL-terminated); its id into tx_id. Refusals: KD_ERR_UNSUPPORTED (the
 * chain is the devnet), the chain's own (KD_ERR_INVALID_ARG, KD_ERR_REJECTED,
 * ...) with its sentence. */
kd_err kd_devnet_client_submit_tx(kd_devnet_client *client, const char *json, uint8_t tx_id[KD_HASH_LEN],
                                  kd_devnet_answer *ans, char *why, size_t why_len) KD_WARN_UNUSED;

/* Reverts the last `depth` blocks (see kd_devnet_reorg). */
kd_err kd_devnet_client_reorg(kd_devnet_client *client, uint32_t depth, double drop, int reorder, kd_devnet_answer *ans,
                              char *why, size_t why_len) KD_WARN_UNUSED;

/* Asks a chain that mines on demand for empty blocks until its DAA score
 * reaches `daa` (kd_devnet_advance). A Kaspa node refuses it:
 * KD_ERR_UNSUPPORTED. */
kd_err kd_devnet_client_advance(kd_devnet_client *client, uint64_t daa, kd_devnet_answer *ans, char *why,
                                size_t why_len) KD_WARN_UNUSED;

/* Height, pending count and tip. */
kd_err kd_devnet_client_status(kd_devnet_client *client, kd_devnet_answer *ans, char *why,
                               size_t why_len) KD_WARN_UNUSED;

#endif
