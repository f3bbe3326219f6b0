/*
 * netutil.h — NNG error translation, socket set-up, requests and
 * interruptible receives shared by every component that speaks NNG (ingest
 * server, publisher, devnet, clients, gateway), and the monotonic clock
 * their waits use.
 *
 * Concurrency the nng way: a REQ socket that several threads share sends
 * each request through a context of its own (kd_nng_request), and a loop
 * blocked in a receive is woken by stopping its aio (kd_nng_recv_wait), not
 * by polling a flag on a receive timeout.
 */
#ifndef KD_ENGINE_NETUTIL_H
#define KD_ENGINE_NETUTIL_H

#include <nng/nng.h>
#include <pthread.h>
#include <time.h>

#include "engine/err.h"

/* Translates an NNG return code, logging it with `what` (subsystem "net"). */
kd_err kd_nng_err(int rv, const char *what);

/* The longest path an ipc:// URL may name: a Unix socket address holds
 * its path in sun_path, 108 bytes with the terminating NUL on Linux. */
#define KD_IPC_PATH_MAX 107

/* KD_OK unless `url` is an ipc:// URL whose path is longer than
 * KD_IPC_PATH_MAX: then KD_ERR_INVALID_ARG with a sentence in `why` that
 * names the path, its length and the limit, and what to do (a shorter
 * XDG_RUNTIME_DIR, or tcp:// URLs). NNG alone would say "Address invalid". */
kd_err kd_ipc_url_check(const char *url, char *why, size_t why_len) KD_WARN_UNUSED;

/* Listens on every URL of a comma-separated list ("ipc:///x,tcp://127.0.0.1:5555").
 * Creates the directory of ipc:// paths (mode 0700) when missing. On failure
 * `why` names the URL and the NNG error (a path over KD_IPC_PATH_MAX: as
 * kd_ipc_url_check says). */
kd_err kd_nng_listen_all(nng_socket sock, const char *urls, char *why, size_t why_len) KD_WARN_UNUSED;

/* Closes an NNG socket, giving up after `KD_NNG_CLOSE_MS` with a logged
 * warning. NNG 1.5.2 (Debian's) can deadlock inside nng_close (nanomsg/nng
 * #1543, #1813, fixed upstream later); callers close sockets they no longer
 * use, so a close that never returns would only keep a process from
 * exiting: the kernel releases its descriptors anyway. */
#define KD_NNG_CLOSE_MS 3000
void kd_nng_close(nng_socket sock);

/* What became of a request (kd_nng_request). */
typedef struct {
    int rv;   /* the NNG error; 0 on success */
    int sent; /* the request left for the peer, which may have acted on it even if no reply came */
} kd_nng_req_fate;

/*
 * Sends one request on REQ socket `sock` and waits for its reply, through
 * an NNG context opened for this request alone: a request sent on the
 * socket itself would cancel any other thread's outstanding one (its wait
 * ends in NNG_ECANCELED although the peer acted on it).
 *
 * resend_ms: NNG re-sends an unanswered request after this long, for
 * idempotent requests only; NNG_DURATION_INFINITE never re-sends.
 * timeout_ms bounds the send (which waits for a connected peer) and the
 * receive, each; NNG_DURATION_INFINITE waits forever.
 *
 * On success *reply is the caller's (nng_msg_free). Errors: as kd_nng_err
 * (KD_ERR_TIMEOUT, KD_ERR_CLOSED, KD_ERR_NET, KD_ERR_NOMEM, ...); *fate
 * (may be NULL) gets the NNG code and whether the request was sent.
 * Threading: any number of threads at once on one socket.
 */
kd_err kd_nng_request(nng_socket sock, const void *frame, size_t len, nng_duration resend_ms, nng_duration timeout_ms,
                      nng_msg **reply, kd_nng_req_fate *fate) KD_WARN_UNUSED;

/*
 * Receives the next message on `sock` through `aio` (the caller's, from
 * nng_aio_alloc without a callback), waiting as long as it takes. Any
 * other thread ends the wait with nng_aio_stop(aio), which also fails
 * every later receive on that aio at once: so a receive loop stops
 * promptly, without a receive timeout, and without relying on nng_close
 * (which can hang in NNG 1.5.2, see kd_nng_close) to wake it. Stop the
 * aio, join the loop's thread, then close the socket.
 * Returns KD_OK with *msg (the caller's, nng_msg_free); KD_ERR_CLOSED once
 * the aio was stopped or the socket closed; other NNG errors translated.
 */
kd_err kd_nng_recv_wait(nng_socket sock, nng_aio *aio, nng_msg **msg) KD_WARN_UNUSED;

/* Initialises `cv` to measure timed waits on CLOCK_MONOTONIC, so a step of
 * the wall clock neither cuts a wait short nor stretches it. Errors:
 * KD_ERR_NOMEM (pthread's errors). */
kd_err kd_cond_init_monotonic(pthread_cond_t *cv) KD_WARN_UNUSED;
/* The CLOCK_MONOTONIC time `ms` from now: a deadline for
 * pthread_cond_timedwait on a condition variable from kd_cond_init_monotonic. */
void kd_deadline_after(struct timespec *ts, uint64_t ms);

/*
 * A dialer that does not give up.
 *
 * NNG re-dials after a refused connection or a lost pipe, but NNG 1.5.2
 * (Debian's) stops dialing for good when an attempt fails in the SP
 * handshake with EPIPE: the listener took the connection into its backlog
 * and died before reading our 8-byte header (an engine killed or
 * restarting at that instant). NNG maps EPIPE to NNG_ECLOSED, and its
 * dialer takes NNG_ECLOSED for its own closing ("no further action"). A
 * REQ socket is then left without a peer for ever: `kdapp feed --connect`
 * was found blocked in nng_send beside a live engine, making no connect()
 * call at all (tests/integration/kill_harness.sh; reproduced on demand by
 * delaying the client's header write past the listener's death).
 *
 * The redialer dials without waiting (the peer may start later) and
 * watches the dialer from a thread of its own, through NNG's statistics
 * (nng_stats_get: no pipe callback whose argument could outlive it). A
 * dialer that is trying bumps one of its counters at every attempt
 * (connections made, refused, failed); one that has given up goes still.
 * When the dialer has had no open pipe and no new event for
 * KD_NNG_REDIAL_MS, longer than any reconnect back-off we configure
 * (NNG_OPT_RECONNMAXT <= 1 s), the redialer closes it and dials again. A
 * dialer that is merely backing off, or connecting, is left alone. One
 * window remains: NNG counts a pipe only once its SP handshake is done, so
 * a handshake that stalls for KD_NNG_REDIAL_MS (a heavily loaded peer, or
 * tests/integration/dialer_epipe.sh's injected delay) can see its dialer
 * replaced just as the pipe opens; a request already sent on it is then
 * re-sent by REQ on the next connection. Ingest requests are idempotent;
 * a devnet submit re-sent that way would be queued twice (the same as when
 * a devnet dies holding a request).
 */
#define KD_NNG_REDIAL_MS 2000
typedef struct kd_nng_redialer kd_nng_redialer;

/* Dials `url` on `sock` (NNG_FLAG_NONBLOCK) and starts watching. Set the
 * socket's reconnect options first: new dialers take them. Errors:
 * KD_ERR_INVALID_ARG (a malformed or unsupported URL), KD_ERR_NOMEM,
 * KD_ERR_NET; `why` names the URL and the NNG error. */
kd_err kd_nng_redialer_start(nng_socket sock, const char *url, kd_nng_redialer **out, char *why,
                             size_t why_len) KD_WARN_UNUSED;
/* Stops watching and frees the redialer (its dialer stays with the socket,
 * closed with it). Call it before closing the socket. Accepts NULL. */
void kd_nng_redialer_stop(kd_nng_redialer *r);

/* Milliseconds from a monotonic clock. */
uint64_t kd_now_ms(void);
/* Microseconds from a monotonic clock. */
uint64_t kd_now_us(void);
/* Milliseconds since the Unix epoch. */
uint64_t kd_wall_ms(void);

#endif
