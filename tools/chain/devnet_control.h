/*
 * devnet_control.h — the devnet's control socket: an NNG REP socket that
 * answers DevnetRequest (submit, reorg, status) with DevnetReply through
 * the devnet's public API, so `kdapp submit`, `kdapp devnet-reorg` and the
 * gateway can drive a devnet in another process.
 */
#ifndef KD_TOOLS_DEVNET_CONTROL_H
#define KD_TOOLS_DEVNET_CONTROL_H

#include "tools/chain/devnet.h"

typedef struct kd_devnet_control kd_devnet_control;

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
