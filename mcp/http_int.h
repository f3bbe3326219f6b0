/*
 * http_int.h — the inside of the Streamable HTTP transport, shared by
 * http.c (daemon, request checks, POST/GET/DELETE) and http_session.c
 * (the session table, outbound queues and SSE streams). Not public.
 *
 * Why sessions are reference counted: an HTTP session is touched by
 * several connection threads at once — POSTs in flight, open GET streams,
 * the table itself — and a DELETE or an expiry can come at any moment. Each
 * holder takes a reference; the session leaves the table at once (so its id
 * answers 404), and the memory goes when the last holder lets go.
 *
 *             POST initialize (no id)
 *                     │ hs_create: reserve a slot, CSPRNG id
 *                     ▼
 *   ┌──────────── pending ────initialize failed──▶ discarded
 *   │                 │ initialize ok: hs_publish (Mcp-Session-Id sent)
 *   │                 ▼
 *   │              live ◀──── POST/GET with the id: hs_find (+1 ref)
 *   │                 │ DELETE, idle expiry, transport stop
 *   │                 ▼
 *   │              ended: out of the table, streams told to finish,
 *   │                 │   messages dropped; later requests → 404
 *   │                 ▼ last reference released
 *   └──────────▶   freed (kd_mcp_session_free, then the wrapper)
 *
 * One mutex (h->lock) guards the table, every session's counters and
 * queue, and the streams; one condition variable (h->cond) wakes streams
 * when a message is queued, a session ends or the transport stops. The core
 * session's send callback (hs_send) takes h->lock; nothing here calls into
 * the core session while holding h->lock (see server_int.h's lock order).
 */
#ifndef KD_MCP_HTTP_INT_H
#define KD_MCP_HTTP_INT_H

#include <pthread.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>

#include <microhttpd.h>

#include "mcp/http.h"

#define KD_HTTP_SESSION_ID_HEX 64 /* 32 random bytes */

typedef struct kd_http_msg {
    struct kd_http_msg *next;
    char *text;
} kd_http_msg;

typedef struct kd_http_session {
    struct kd_http_session *next; /* table link */
    kd_mcp_http *http;
    char id[KD_HTTP_SESSION_ID_HEX + 1];
    kd_mcp_session *core;
    unsigned refs;    /* table + requests in flight + open streams */
    unsigned busy;    /* requests in flight */
    unsigned streams; /* open GET streams */
    int in_table, ended;
    struct timespec last_used; /* CLOCK_MONOTONIC */
    kd_http_msg *head, *tail;  /* server messages waiting for a stream */
    unsigned queued;
} kd_http_session;

struct kd_mcp_http {
    kd_mcp_server *srv;
    struct MHD_Daemon *daemon;
    pthread_mutex_t lock;
    pthread_cond_t cond; /* CLOCK_MONOTONIC */
    int stopping;
    uint16_t port;
    int loopback;
    char *token;
    char **origins, **hosts;
    size_t n_origins, n_hosts;
    size_t max_body;
    unsigned max_sessions, max_streams, idle_s, keepalive_ms, max_queued;
    kd_http_session *sessions;
    unsigned n_sessions;                       /* live + pending (reserved) */
    kd_err (*metrics)(void *ctx, kd_buf *out); /* GET /metrics, or NULL */
    void *metrics_ctx;
};

/* Creates a pending session holding one reference for the caller.
 * KD_ERR_BUSY when max_sessions are live; KD_ERR_NOMEM; KD_ERR_INTERNAL
 * when the CSPRNG fails. */
kd_err kd_http_session_create(kd_mcp_http *h, kd_http_session **out) KD_WARN_UNUSED;
/* Puts a pending session into the table (its initialize succeeded). */
void kd_http_session_publish(kd_http_session *hs);
/* Finds a live session by id, with a reference and counted as busy;
 * NULL when unknown or ended. */
kd_http_session *kd_http_session_find(kd_mcp_http *h, const char *id);
/* Releases a reference from create or find (busy is dropped too). */
void kd_http_session_release(kd_http_session *hs, int was_busy);
/* Ends the session (DELETE); 0, or -1 when the id is unknown or ended. */
int kd_http_session_end(kd_mcp_http *h, const char *id);
/* Ends every session and wakes every stream (transport stop). */
void kd_http_session_end_all(kd_mcp_http *h);

/* Opens a text/event-stream response for `hs` (which must be referenced by
 * the caller; the stream takes its own reference). NULL with *status set
 * (429 at the stream limit, 500) on failure. */
struct MHD_Response *kd_http_sse_open(kd_http_session *hs, unsigned *status);

#endif
