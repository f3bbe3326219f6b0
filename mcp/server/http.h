/*
 * http.h — the MCP Streamable HTTP transport (revision 2025-11-25) on one
 * endpoint, /mcp, served by libmicrohttpd.
 *
 *   POST   one JSON-RPC message; a request is answered with
 *          application/json, a notification or response with 202 and no
 *          body. An initialize without Mcp-Session-Id creates a session and
 *          the answer carries its id; every other POST must carry it.
 *   GET    opens a text/event-stream of server-initiated messages for the
 *          session (several at once are allowed; each message goes to one).
 *   DELETE ends the session; its id then answers 404.
 *
 * Security: binds 127.0.0.1 by default; on loopback the Host header must
 * name a loopback host (DNS-rebinding protection); a present Origin must be
 * a loopback origin or one of allowed_origins. Body size, sessions, streams
 * per session and (through the server) request rate are bounded, each
 * refusal with a JSON-RPC error body that names the limit.
 *
 * Tokens and principals: besides the access token (bearer_token: a
 * session opened with it has no principal), the program may configure
 * seat tokens, each with a principal (an opaque pointer, e.g. the grant of
 * seats the token stands for) that a session initialized with that token
 * gets (kd_mcp_session_principal). Every request on /mcp, /metrics and
 * events_path must carry one of the configured tokens ("Authorization:
 * Bearer <token>", compared in constant time) when bearer_token is set or
 * the address is beyond loopback (which requires at least one token). On
 * loopback without bearer_token, a request with no Authorization header is
 * the public (principal NULL), but one that carries a token must carry a
 * known one: an unknown or malformed one is answered 401, never taken as
 * the public. A session belongs to the token it was initialized with (or
 * to "no token"): every later request with its Mcp-Session-Id (POST, GET,
 * DELETE) must carry that same token, else 403 ("this session belongs to
 * another token") and the session is left alone, so a leaked session id
 * does not let another token's holder into it.
 *
 * Optionally, beside /mcp: GET /metrics (the program's Prometheus text),
 * a read-only web app on every other GET path (the `page` callback) and a
 * broadcast event stream (events_path, fed by kd_mcp_http_publish), behind
 * the same Host and Origin checks and with strict browser headers
 * (Content-Security-Policy, nosniff, no referrer).
 *
 * Fair shares: a client (its token, or its peer address without one) holds
 * at most max_sessions_per_client sessions and max_event_streams_per_client
 * streams. An initialize beyond its share, or into a full table, first
 * sheds an idle session (no request in flight, no open stream; least
 * recently used) of that client, or when the table is full of the client
 * holding the most; a shed session answers 404, and the initialize is
 * refused (503) only when nothing is idle. A stream beyond the client's
 * share closes the client's own oldest one; a full table of event streams
 * closes the oldest one of the client holding the most. So a client that
 * holds nothing is never locked out by another.
 *
 * Capacity: a few polling threads serve every socket and never block; tool
 * calls that may wait (not marked quick) run on workers started as needed;
 * idle and half-open connections cost no
 * thread and are closed after connection_timeout_s without traffic; one
 * client address beyond loopback holds at most
 * max_connections_per_address of them (http_daemon.c explains the values).
 * A request must come in whole within request_timeout_s, however slowly
 * its bytes trickle. Clients without a token, on loopback too, share a
 * bounded number of connections (waiting for a request, serving /mcp,
 * serving the web app), so that the rest of max_connections stays for
 * the holders of tokens (http_conns.c).
 */
#ifndef KD_MCP_HTTP_H
#define KD_MCP_HTTP_H

#include <stddef.h>
#include <stdint.h>

#include "engine/err.h"
#include "engine/bytes.h"
#include "mcp/server/server.h"

typedef struct kd_mcp_http kd_mcp_http;

/* One answer of the optional web app (kd_mcp_http_options.page). */
typedef struct {
    unsigned status;          /* an HTTP status; 0 is taken as 404 */
    const char *content_type; /* a static string, e.g. "text/html; charset=utf-8" */
    kd_buf body;              /* filled by the callback (kd_buf_init'ed by the caller) */
} kd_mcp_http_page;

/* A seat token: a session initialized with `token` gets `principal`
 * (kd_mcp_session_principal). The string is copied at start; the principal
 * is not interpreted or freed, and must outlive the transport. */
typedef struct {
    const char *token;
    const void *principal;
} kd_mcp_http_token;

/* Options; zero/NULL means the default in brackets. Strings are copied. */
typedef struct {
    const char *bind_address;        /* IPv4 or IPv6 literal, or "localhost" ["127.0.0.1"] */
    uint16_t port;                   /* 0: the system picks a free port [0] */
    const char *bearer_token;        /* the access token (sessions opened with it have
                                        no principal); when set, every request must
                                        carry a configured token */
    const kd_mcp_http_token *tokens; /* seat tokens (see above); each non-empty
                                        and distinct from the others and from
                                        bearer_token. Beyond loopback at least one
                                        token (this or bearer_token) is required */
    size_t n_tokens;
    const char *const *allowed_origins; /* extra Origin values accepted
                                           exactly, e.g. "https://app.example" */
    size_t n_allowed_origins;
    const char *const *allowed_hosts; /* extra Host values ("name" or
                                         "name:port") accepted */
    size_t n_allowed_hosts;
    size_t max_body_bytes;                 /* [the server's max_message_bytes] */
    unsigned max_sessions;                 /* live sessions [64] */
    unsigned max_sessions_per_client;      /* sessions one client holds (a client is
                                              its token, else its peer address: all
                                              tokenless loopback programs are one)
                                              [max_sessions / 4, at least 1] */
    unsigned max_streams_per_session;      /* concurrent GET streams [4] */
    unsigned max_event_streams_per_client; /* open streams of one client, on
                                              events_path and the sessions' GETs
                                              together [max_sessions_per_client + 8] */
    unsigned max_connections;              /* open connections in all [1000, or the
                                              open-file limit less 256 when lower] */
    unsigned max_connections_per_address;  /* open connections of one client
                                              address beyond loopback [64] */
    int limit_loopback;                    /* count loopback clients against
                                              that limit too [0: exempt] */
    unsigned connection_timeout_s;         /* a connection with no byte in or out
                                              for this long is closed: a half-sent
                                              request, an idle keep-alive. Not a
                                              POST being handled, nor a quiet
                                              event stream [30] */
    unsigned request_timeout_s;            /* a connection that has not sent a whole
                                              request (headers and body) within this
                                              long of its opening is closed, however
                                              its bytes trickle; kept alive after a
                                              request, within connection_timeout_s
                                              and this long of that answer [10] */
    unsigned max_waiting_connections;      /* connections waiting for a request that
                                              are not known as a granted client's:
                                              this many that never sent one, and this
                                              many kept alive after one without a
                                              token; beyond either, its oldest that
                                              has had half a second to send its
                                              headers is closed [max_connections / 16] */
    unsigned max_tokenless_connections;    /* connections serving /mcp requests
                                              without a token; more answer 503
                                              [max_connections / 8] */
    unsigned max_public_connections;       /* connections serving the web app,
                                              /metrics and events_path without a
                                              token; more answer 503
                                              [max_connections / 8, at least 80] */
    unsigned poll_threads;                 /* threads that serve the sockets [2] */
    unsigned max_workers;                  /* POSTs handled at once; more wait
                                              their turn [64] */
    unsigned session_idle_timeout_s;       /* unused sessions expire [3600] */
    unsigned keepalive_ms;                 /* SSE comment when idle [15000, at most
                                              half of connection_timeout_s] */
    unsigned max_queued;                   /* server messages kept for a session
                                              while no stream is open [256] */
    /* Optional: serves GET /metrics in the Prometheus text format with what
     * `metrics` appends to `out` (NUL-terminated), behind the same Host,
     * Origin and token checks as /mcp. Called on a polling thread:
     * must be thread-safe and quick. */
    kd_err (*metrics)(void *ctx, kd_buf *out);
    void *metrics_ctx;
    /* Optional: a read-only web app on every other GET path (not /mcp,
     * /metrics or events_path), behind the same Host and Origin checks.
     * `authorized` is 1 when the request carries a configured token (the
     * access token or a seat token), or carries none where none is
     * required (loopback without bearer_token): the callback serves its
     * public files either way and
     * answers 401 for data when 0 (the transport then adds
     * WWW-Authenticate). `principal` is that of the seat token the request
     * carried (kd_mcp_http_options.tokens), NULL for none or the access
     * token: whom the data may be shown as its own. Every answer carries a strict
     * Content-Security-Policy (scripts, styles and fetches from this
     * origin only, nothing inline), X-Content-Type-Options: nosniff,
     * Referrer-Policy: no-referrer and Cache-Control: no-store. Called on a
     * polling thread: thread-safe and quick. An error answers 500. */
    kd_err (*page)(void *ctx, const char *path, int authorized, const void *principal, kd_mcp_http_page *out);
    void *page_ctx;
    /* Optional: 1 when a GET of `path` costs more than a file (an audit
     * that replays a log). Such a request runs on a worker, never on a
     * polling thread, and each client (its token, else its address) may
     * make costly_per_s of them a second, in bursts of costly_burst; all
     * the clients without a token together four times that. Beyond, 429
     * with Retry-After. Called on a polling thread with page_ctx:
     * thread-safe and quick. */
    int (*page_costly)(void *ctx, const char *path);
    unsigned costly_per_s; /* [4] */
    unsigned costly_burst; /* [4 * costly_per_s] */
    /* Optional, e.g. "/api/events": a GET there (a token required as on
     * /mcp) opens a text/event-stream of what kd_mcp_http_publish
     * broadcasts. */
    const char *events_path;
} kd_mcp_http_options;

/*
 * Binds, listens and starts serving on internal threads (the polling
 * threads, the workers and a keepalive timer). Errors: KD_ERR_INVALID_ARG (bad address or option, an
 * empty or repeated token, or a non-loopback address without any token —
 * logged with the reason),
 * KD_ERR_EXISTS (the address is in use by another listener), KD_ERR_NET
 * (the address cannot be bound otherwise; logged with errno), KD_ERR_NOMEM.
 * `srv` must outlive the transport.
 */
kd_err kd_mcp_http_start(kd_mcp_server *srv, const kd_mcp_http_options *opts, kd_mcp_http **out) KD_WARN_UNUSED;

/* The bound TCP port (useful with port 0). */
uint16_t kd_mcp_http_port(const kd_mcp_http *h);

/*
 * Broadcasts one server-sent event ("event: <event>\ndata: <data>") to
 * every stream open on events_path. The transport keeps the last 64 events;
 * a stream that falls further behind gets "event: resync" (reload
 * everything) instead of the events it missed. `data` must not contain a
 * newline (compact JSON). Thread-safe; never blocks on a client. A no-op
 * without events_path or once stopping.
 */
void kd_mcp_http_publish(kd_mcp_http *h, const char *event, const char *data);

/* The number of live sessions. */
unsigned kd_mcp_http_session_count(kd_mcp_http *h);

/*
 * Ends every stream and session, waits for requests in progress to finish
 * (a tool call may take its full deadline) and frees the transport. NULL
 * is a no-op. Must not be called from a callback running on one of its
 * threads.
 */
void kd_mcp_http_stop(kd_mcp_http *h);

#endif
