/*
 * netutil.h — NNG error translation and socket set-up shared by every
 * component that speaks NNG (ingest server, publisher, devnet, clients).
 */
#ifndef KD_ENGINE_NETUTIL_H
#define KD_ENGINE_NETUTIL_H

#include <nng/nng.h>

#include "engine/err.h"

/* Translates an NNG return code, logging it with `what` (subsystem "net"). */
kd_err kd_nng_err(int rv, const char *what);

/* Listens on every URL of a comma-separated list ("ipc:///x,tcp://127.0.0.1:5555").
 * Creates the directory of ipc:// paths (mode 0700) when missing. On failure
 * `why` names the URL and the NNG error. */
kd_err kd_nng_listen_all(nng_socket sock, const char *urls, char *why, size_t why_len) KD_WARN_UNUSED;

/* Closes an NNG socket, giving up after `KD_NNG_CLOSE_MS` with a logged
 * warning. NNG 1.5.2 (Debian's) can deadlock inside nng_close (nanomsg/nng
 * #1543, #1813, fixed upstream later); callers close sockets they no longer
 * use, so a close that never returns would only keep a process from
 * exiting: the kernel releases its descriptors anyway. */
#define KD_NNG_CLOSE_MS 3000
void kd_nng_close(nng_socket sock);

/* Milliseconds from a monotonic clock. */
uint64_t kd_now_ms(void);
/* Microseconds from a monotonic clock. */
uint64_t kd_now_us(void);
/* Milliseconds since the Unix epoch. */
uint64_t kd_wall_ms(void);

#endif
