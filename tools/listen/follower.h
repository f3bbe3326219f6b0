/*
 * follower.h — `kdapp listen`'s core: follows a kaspad node's virtual
 * chain over wRPC (wrpc_client.h) and feeds the engine over the ingest
 * socket (tools/chain/ingest_client.h), as kdapp's listener does
 * (kasperience/kdapp kdapp/src/proxy.rs, run_listener).
 *
 * What reaches the engine, per answer of getVirtualChainFromBlock from the
 * engine's tip:
 *   - every removed chain block: BlockReverted, newest first, as the node
 *     lists them;
 *   - every added chain block, oldest first: BlockAccepted with its hash,
 *     DAA score, time (header timestamp, ms) and the payloads (header
 *     stripped) of the kdapp transactions it accepts (txfilter.h), in the
 *     node's acceptance order. Blocks without kdapp transactions are sent
 *     too (no txs), so the engine's tip is always the node's chain block
 *     and every later revert names a block the engine holds.
 * A batch is sent only once all of it is fetched and parsed: a malformed
 * answer or a dropped connection applies nothing.
 *
 * Start: the engine's stored tip; on an engine without one, --from HASH
 * or the node's sink, sent as an accept with no transactions (the anchor).
 * Faults: a dropped connection reconnects with exponential backoff and
 * resumes from the engine's tip (the engine's idempotence covers re-sent
 * messages); a node that no longer knows the tip (pruned, or a reorg
 * deeper than its retention) stops the run with KD_ERR_NOT_FOUND and a
 * message saying how to re-sync; a reorg deeper than the finality depth
 * (the engine's, or Kaspa's 432,000 chain blocks) stops it with
 * KD_ERR_BEYOND_FINALITY before any of it reaches the engine. A frame the
 * node garbles fails the request it answered at once (wrpc_client.h):
 * nothing of that round is applied, and the follower reconnects. Notifications (virtualChainChanged) only
 * wake the follower early; it also polls every poll_ms, so duplicated,
 * lost or reordered notifications change nothing.
 *
 * Threading: kd_listener_run runs on one thread; kd_listener_stop may be
 * called from any thread.
 */
#ifndef KD_TOOLS_FOLLOWER_H
#define KD_TOOLS_FOLLOWER_H

#include <stdint.h>

#include "tools/chain/ingest_client.h"
#include "tools/listen/txfilter.h"

/* Kaspa's finality depth in chain blocks: 43,200 seconds at 10 blocks a
 * second (rusty-kaspa consensus/core/src/config/constants.rs
 * FINALITY_DURATION, bps.rs finality_depth), on every network. */
#define KD_KASPA_FINALITY_DEPTH 432000u

typedef enum {
    KD_LISTEN_EVENT_CONNECTED = 1, /* text: the node's version and network */
    KD_LISTEN_EVENT_ANCHOR,        /* hash, daa: the start block sent as an empty accept */
    KD_LISTEN_EVENT_ACCEPT,        /* hash, daa, txs_matched, txs_applied */
    KD_LISTEN_EVENT_REVERT,        /* hash */
    KD_LISTEN_EVENT_RETRY,         /* text: why, delay_ms: the backoff */
} kd_listen_event_kind;

typedef struct {
    kd_listen_event_kind kind;
    const uint8_t *hash;
    uint64_t daa;
    uint32_t txs_matched, txs_applied;
    uint32_t delay_ms;
    const char *text;
} kd_listen_event;

typedef struct {
    const char *rpc_url;      /* ws://HOST:PORT; required */
    const char *network;      /* the node's network id must equal it; NULL: any */
    kd_ingest_client *ingest; /* borrowed; required */
    const uint8_t *from;      /* start block for an engine without a tip, or NULL (the sink) */
    kd_tx_filter filter;      /* which txs are kdapp's */
    uint32_t rpc_timeout_ms;  /* one call; 0: 10000 */
    uint32_t poll_ms;         /* poll interval without notifications; 0: 1000 */
    uint32_t backoff_max_ms;  /* reconnect backoff cap; 0: 30000 */
    /* The engine's finality depth (blocks): a reorg removing more chain
     * blocks is refused before any of it is sent; 0: Kaspa's own
     * (KD_KASPA_FINALITY_DEPTH), which no honest node exceeds. */
    uint64_t finality_depth;
    void (*on_event)(void *ctx, const kd_listen_event *ev); /* may be NULL; on the run thread */
    void *event_ctx;
} kd_listen_options;

typedef struct kd_listener kd_listener;

/* Copies the options (not the ingest client). Errors: KD_ERR_NOMEM. */
kd_err kd_listener_alloc(const kd_listen_options *opts, kd_listener **out) KD_WARN_UNUSED;
/* Frees; accepts NULL. Call after kd_listener_run returned. */
void kd_listener_free(kd_listener *l);

/* Follows the node until kd_listener_stop (KD_OK) or a condition that
 * retrying cannot fix, described in `why`: KD_ERR_NOT_FOUND (the node no
 * longer knows the engine's tip: a re-sync is needed), KD_ERR_INVALID_ARG
 * (a URL it cannot use, the node on another network), or the engine's
 * refusal of a message (its error). Connection faults are retried. */
kd_err kd_listener_run(kd_listener *l, char *why, size_t why_len) KD_WARN_UNUSED;
/* Makes kd_listener_run return soon (within an ingest timeout); any thread. */
void kd_listener_stop(kd_listener *l);

#endif
