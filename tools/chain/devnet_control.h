/*
 * devnet_control.h — the devnet's control socket: an NNG REP socket that
 * answers DevnetRequest (submit, reorg, status, advance) with DevnetReply through
 * the devnet's public API, so `kdapp submit`, `kdapp devnet-reorg` and the
 * gateway can drive a devnet in another process.
 */
#ifndef KD_TOOLS_DEVNET_CONTROL_H
#define KD_TOOLS_DEVNET_CONTROL_H

#include "tools/chain/devnet.h"
#include "tools/chain/spend.h"

typedef struct kd_devnet_control kd_devnet_control;

/* What the control socket drives: the devnet, or anything else that takes
 * payloads (`kdapp up --rpc`: a Kaspa node through tools/kaspa's writer).
 * The functions run on the control thread, one request at a time. */
typedef struct {
    /* Queues one payload; its tx id into tx_id. `spend` says who asked
     * (spend.h; NULL: the owner): a chain that pays for transactions pays
     * only as it allows. Errors are passed on with `why` (the reply's
     * sentence; KD_CHAIN_WHY_MAX bytes of room: a Kaspa node's refusal is
     * quoted whole). */
    kd_err (*submit)(void *ctx, const uint8_t *payload, size_t len, const kd_chain_spend *spend,
                     uint8_t tx_id[KD_HASH_LEN], char *why, size_t why_len);
    /* Sends a transaction the client built, signed and pays for (the node's
     * JSON, `len` bytes, not NUL-terminated); its id into tx_id. NULL: the
     * chain takes none (refused with KD_ERR_UNSUPPORTED and a sentence). */
    kd_err (*submit_tx)(void *ctx, const char *json, size_t len, uint8_t tx_id[KD_HASH_LEN], char *why, size_t why_len);
    /* NULL: every reorg is refused (KD_ERR_UNSUPPORTED) with `no_reorg`. */
    kd_err (*reorg)(void *ctx, uint32_t depth, double drop, int reorder, kd_devnet_reorg_result *r);
    void (*status)(void *ctx, kd_devnet_info *info);
    /* NULL: the chain's blocks come by themselves (a Kaspa node): every
     * advance is refused (KD_ERR_UNSUPPORTED) and the status says it. */
    kd_err (*advance)(void *ctx, uint64_t daa);
    const char *no_reorg;
    void *ctx;
} kd_chain_ops;

/* Serves `ops` (copied; ops->ctx must outlive the socket) on `urls`.
 * Errors as kd_devnet_control_open. */
kd_err kd_chain_control_open(const kd_chain_ops *ops, const char *urls, kd_devnet_control **out, char *why,
                             size_t why_len) KD_WARN_UNUSED;

/* Listens on `urls` (comma-separated) and serves `dev` on a thread of its
 * own. `dev` must outlive the control socket. Errors: KD_ERR_NET,
 * KD_ERR_LOCKED (address in use), KD_ERR_INVALID_ARG, KD_ERR_NOMEM, with
 * `why`. */
kd_err kd_devnet_control_open(kd_devnet *dev, const char *urls, kd_devnet_control **out, char *why,
                              size_t why_len) KD_WARN_UNUSED;
/* Finishes the request in progress, stops and frees; accepts NULL. Stop
 * the devnet's reorgs first (kd_devnet_close does), so no request waits on
 * an engine. */
void kd_devnet_control_close(kd_devnet_control *ctl);

#endif
