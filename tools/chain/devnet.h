/*
 * devnet.h — a local chain standing in for Kaspa and its listener, for
 * development, demos and tests.
 *
 * Clients submit episode payloads (a tx id comes back at once); every
 * block_ms a producer thread packs the pending ones into a block and sends it
 * to the engine's ingest socket, re-sending until the engine acknowledges it
 * (so the devnet rides out an engine restart). On request it reorganises:
 * the last N blocks are reverted (one IngestRequest carrying the
 * BlockReverted messages newest first) and their transactions go back to the
 * front of the pending queue, optionally thinned out and shuffled, to be
 * re-included in new blocks, the way a real reorg may re-mine them: those
 * blocks follow each other without waiting for block_ms, as a real
 * chain's new branch carries them already. It mines only when
 * transactions wait, or when asked to advance (empty blocks until a DAA
 * score: a house waiting until an ask is deep enough, where Kaspa's
 * blocks would come by themselves).
 *
 *     submit ──► pending ──(producer, every block_ms)──► block ──► engine
 *                  ▲                                        │ ack
 *                  └──── reorg: txs of reverted blocks ◄── chain (last 4096)
 *
 * Chain identity. Block hashes are SHA-256("kdapp-devnet-block" || parent ||
 * height || nonce), with a per-run random genesis parent, so a restarted
 * devnet never produces a hash the engine already applied (which the engine
 * would acknowledge as a duplicate without applying its txs). Tx ids are
 * SHA-256("kdapp-devnet-tx" || run salt || payload || counter): unique, and
 * kept when a tx is re-included after a reorg. DAA scores always increase,
 * also across reorgs; block time is the wall clock.
 *
 * Sequencing. Block production and reorgs never interleave: each takes the
 * devnet's one "sequence" (a busy flag under the mutex) for the whole
 * exchange with the engine, and network I/O happens with the mutex released,
 * so status and submit answer at once even while a block waits for an
 * engine that is down.
 *
 * Threading: every function may be called from any thread. The control
 * socket (DevnetRequest on REP) runs on its own thread when listen URLs are
 * given.
 */
#ifndef KD_TOOLS_DEVNET_H
#define KD_TOOLS_DEVNET_H

#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"

#define KD_DEVNET_DEFAULT_BLOCK_MS 100u /* Kaspa mines 10 blocks a second */
#define KD_DEVNET_DEFAULT_MAX_TXS 1000u
/* Applied blocks remembered for reorgs. */
#define KD_DEVNET_CHAIN_MAX 4096u
/* Largest payload accepted by submit. */
#define KD_DEVNET_MAX_PAYLOAD ((size_t)1 << 20)
/* The room a submission's refusal gets in a DevnetReply, and should get
 * at the client that reads it: a chain that is a Kaspa node (kdapp up
 * --rpc) quotes the node's refusal whole. */
#define KD_CHAIN_WHY_MAX 2048
/* Most payloads waiting for a block. */
#define KD_DEVNET_MAX_PENDING 100000u

typedef struct kd_devnet kd_devnet;

/* What the devnet tells its owner (for progress output; the library never
 * prints). Pointers are valid during the call only. */
typedef enum { KD_DEVNET_EVENT_BLOCK = 1, KD_DEVNET_EVENT_REORG = 2 } kd_devnet_event_kind;

typedef struct {
    kd_devnet_event_kind kind;
    const uint8_t *hash;  /* BLOCK: the block; REORG: the new tip (NULL at genesis) */
    uint64_t height;      /* the devnet's height afterwards */
    uint64_t daa;         /* BLOCK */
    uint32_t tx_count;    /* BLOCK: txs in the block */
    uint32_t txs_applied; /* BLOCK: the engine's verdicts */
    uint32_t txs_rejected;
    int duplicate;     /* BLOCK: the engine had it already (a re-send) */
    uint32_t reverted; /* REORG */
    uint32_t reincluded, dropped;
    kd_err err;         /* BLOCK: dropped by the engine; REORG: a refused revert */
    const char *detail; /* a sentence when err is set, else "" */
} kd_devnet_event;

/* Called on the devnet's threads with no lock held; must not call back
 * into the devnet's blocking functions (reorg, wait_idle, close). */
typedef void (*kd_devnet_event_fn)(void *ctx, const kd_devnet_event *event);

typedef struct {
    const char *listen_urls;     /* REP control socket, comma-separated; NULL or "": in-process only */
    const char *engine_url;      /* the engine's ingest URL; required */
    uint32_t block_ms;           /* 0: KD_DEVNET_DEFAULT_BLOCK_MS */
    uint64_t seed;               /* reorg drop/reorder randomness */
    uint32_t max_txs_per_block;  /* 0: KD_DEVNET_DEFAULT_MAX_TXS */
    kd_devnet_event_fn on_event; /* optional */
    void *event_ctx;
} kd_devnet_options;

/* Starts the producer (and the control thread when listen_urls is set).
 * The strings in `opts` are copied. Errors: KD_ERR_INVALID_ARG (no engine
 * URL, bad URL), KD_ERR_NET, KD_ERR_LOCKED (listen address in use),
 * KD_ERR_NOMEM; `why` gets a sentence. */
kd_err kd_devnet_open(const kd_devnet_options *opts, kd_devnet **out, char *why, size_t why_len) KD_WARN_UNUSED;

/* Stops the threads and frees. A block still waiting for the engine is
 * abandoned (it was never acknowledged, so the engine either has it or
 * not; both are consistent). Pending txs are lost. Accepts NULL. */
void kd_devnet_close(kd_devnet *dev);

/* Queues one payload for the next block and writes its tx id.
 * Errors: KD_ERR_TOO_LARGE (over KD_DEVNET_MAX_PAYLOAD), KD_ERR_BUSY (the
 * queue holds KD_DEVNET_MAX_PENDING), KD_ERR_CLOSED (stopping),
 * KD_ERR_NOMEM. The payload is copied. */
kd_err kd_devnet_submit(kd_devnet *dev, const uint8_t *payload, size_t len,
                        uint8_t tx_id_out[KD_HASH_LEN]) KD_WARN_UNUSED;

typedef struct {
    uint32_t reverted;   /* blocks the engine rolled back */
    uint32_t reincluded; /* txs queued again */
    uint32_t dropped;    /* txs left out */
    uint64_t height;     /* the devnet's chain height afterwards */
    int has_tip;
    uint8_t tip[KD_HASH_LEN];
    kd_err engine_err;          /* KD_OK, or why the engine refused a revert */
    char detail[KD_DETAIL_MAX]; /* a sentence when something was refused */
} kd_devnet_reorg_result;

/*
 * Reverts the last `depth` blocks and re-queues their txs at the front of
 * the pending queue (each dropped with probability `drop`, the rest shuffled
 * when `reorder`; seeded by the options' seed). Waits up to 2 s for a block
 * in flight to be acknowledged first (else KD_ERR_BUSY, nothing done), then
 * for the engine's acknowledgement of the reverts (indefinitely, unless the
 * devnet is closed: an engine that went down with no block in flight makes
 * the reorg wait for its return, and it completes then).
 *
 * A depth beyond the store's finality (more blocks than the engine's last
 * reply said a revert can still undo, kd_tip.revertible) is refused with
 * KD_ERR_BEYOND_FINALITY and nothing is reverted.
 *
 * Returns KD_OK when every revert was applied. When the engine refuses one
 * (e.g. beyond its finality depth, or the tip is not ours), the blocks
 * reverted before it are still handled and counted, and the engine's error
 * is returned (also in result->engine_err, with result->detail).
 * Other errors: KD_ERR_INVALID_ARG (depth 0, drop outside [0,1]),
 * KD_ERR_NOT_FOUND (the devnet knows fewer than `depth` blocks),
 * KD_ERR_BUSY (a block in flight is not acknowledged: engine down?),
 * KD_ERR_CLOSED, KD_ERR_NOMEM; result->detail says why.
 */
kd_err kd_devnet_reorg(kd_devnet *dev, uint32_t depth, double drop, int reorder,
                       kd_devnet_reorg_result *result) KD_WARN_UNUSED;

typedef struct {
    uint64_t height;      /* applied blocks in the devnet's chain */
    uint64_t blocks_sent; /* blocks acknowledged since start */
    uint32_t pending;     /* txs waiting for a block */
    uint64_t daa;         /* the DAA score of the newest block made */
    int busy;             /* a block or reorg is being exchanged with the engine */
    int has_tip;
    uint8_t tip[KD_HASH_LEN];
    kd_tip engine_tip; /* from the last reply (has_tip 0 before any) */
} kd_devnet_info;

/* Mines empty blocks, one a block_ms, until the newest block's DAA score
 * reaches `daa` (at once when it has; a lower `daa` than asked before
 * changes nothing), besides the blocks of the txs that wait: the devnet
 * mines on demand, and a house that reveals only once an ask's block is
 * some DAA score deep asks it for the blocks Kaspa would mine anyway.
 * Errors: KD_ERR_CLOSED. Never blocks on the network. */
kd_err kd_devnet_advance(kd_devnet *dev, uint64_t daa) KD_WARN_UNUSED;

/* A snapshot of the devnet's state. Never blocks on the network. */
void kd_devnet_status(kd_devnet *dev, kd_devnet_info *out);

/* Waits until nothing is pending, no block is in flight (the last block
 * acknowledged) and no advance is under way. timeout_ms 0 waits forever. Errors: KD_ERR_TIMEOUT,
 * KD_ERR_CLOSED. */
kd_err kd_devnet_wait_idle(kd_devnet *dev, uint32_t timeout_ms) KD_WARN_UNUSED;

#endif
