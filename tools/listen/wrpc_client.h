/*
 * wrpc_client.h — a client of kaspad's wRPC interface with JSON encoding,
 * over one WebSocket (libwebsockets). Calls are synchronous: the calling
 * thread services the socket until the reply with its id arrives, the
 * connection drops or the time runs out; notifications that arrive
 * meanwhile are counted (virtualChainChangedNotification) or logged, and a
 * frame that does not parse is logged with what is wrong and dropped.
 *
 *   kd_wrpc *c;  kd_wrpc_open("ws://127.0.0.1:18210", 5000, &c, why, n);
 *   json_t *res; kd_wrpc_call(c, "getSink", params, 5000, &res, why, n);
 *
 * Threading: one thread uses a client; kd_wrpc_interrupt may be called
 * from any thread (it wakes a waiting call, which returns KD_ERR_CLOSED).
 */
#ifndef KD_TOOLS_WRPC_CLIENT_H
#define KD_TOOLS_WRPC_CLIENT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/err.h"

typedef struct kd_wrpc kd_wrpc;

/* Creates a client for `url` (ws://HOST[:PORT][/PATH]; wss:// too) and
 * connects, waiting up to timeout_ms. Errors: KD_ERR_INVALID_ARG (a URL it
 * cannot use), KD_ERR_NET (refused, closed), KD_ERR_TIMEOUT,
 * KD_ERR_NOMEM; `why` says which. On a connection error *out is still set
 * (the client can kd_wrpc_reconnect); on others it is NULL. */
kd_err kd_wrpc_open(const char *url, uint32_t timeout_ms, kd_wrpc **out, char *why, size_t why_len) KD_WARN_UNUSED;
/* Closes the connection and frees; accepts NULL. */
void kd_wrpc_close(kd_wrpc *c);
/* Drops the connection (if any) and connects again. Errors as open. */
kd_err kd_wrpc_reconnect(kd_wrpc *c, uint32_t timeout_ms, char *why, size_t why_len) KD_WARN_UNUSED;

/* Sends {"id", "method", "params"} (params borrowed) and waits for the
 * reply. On KD_OK *result is the reply's params (a new reference: the
 * caller json_decref's it). Errors: KD_ERR_NOT_FOUND (the node answered
 * with an error: `why` holds its message), KD_ERR_PARSE (the reply frame is
 * malformed), KD_ERR_NET (not connected, or the connection dropped),
 * KD_ERR_TIMEOUT, KD_ERR_CLOSED (interrupted), KD_ERR_NOMEM. */
kd_err kd_wrpc_call(kd_wrpc *c, const char *method, const json_t *params, uint32_t timeout_ms, json_t **result,
                    char *why, size_t why_len) KD_WARN_UNUSED;

/* Services the connection for up to `ms` or until a virtual chain
 * notification is pending, the connection drops or an interrupt; returns
 * the notifications counted since the last call (and resets the count). */
unsigned kd_wrpc_wait(kd_wrpc *c, uint32_t ms);
/* 1 while connected. */
int kd_wrpc_connected(const kd_wrpc *c);
/* Frames dropped because they did not parse, since open. */
uint64_t kd_wrpc_bad_frames(const kd_wrpc *c);

/* Makes the current or next wait return KD_ERR_CLOSED; any thread. */
void kd_wrpc_interrupt(kd_wrpc *c);

#endif
