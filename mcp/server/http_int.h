/*
 * http_int.h — the inside of the Streamable HTTP transport, shared by
 * http.c (daemon, request checks, POST/GET/DELETE), http_session.c (the
 * session table, outbound queues, SSE streams and their keepalive timer),
 * http_pool.c (the workers that run slow POSTs and costly pages),
 * http_conns.c (connections per client address and per class, and their
 * request deadline), http_rate.c (the rate of costly pages per client),
 * http_events.c (the web app's broadcast event streams, which the
 * keepalive timer serves too) and http_clients.c (the tokens, who a client
 * is, and its share of sessions and streams). Not public.
 *
 * Threads: libmicrohttpd's polling threads (a small pool) serve every
 * socket; none of them ever blocks. A POST whose body is in is handled
 * right there when it is quick (everything but a tool call that may wait,
 * kd_mcp_server_is_quick), else handed to a worker (http_pool.c) with its
 * connection suspended until the worker has the answer: a hand-off costs
 * two thread wake-ups, which would double the latency of a read that
 * takes tens of microseconds. An event stream with nothing to send
 * suspends its connection until a message, the end of its session or its
 * keepalive deadline resumes it. So an idle or half-open connection costs a socket
 * and a few kilobytes, never a thread, and a slow tool call holds a worker,
 * never a polling thread.
 *
 *   polling thread            worker                    timer
 *   ──────────────            ──────                    ─────
 *   POST body complete
 *     quick: handle, answer
 *     else: suspend, submit ─▶ handle the message
 *                             answer ready, resume ─┐
 *   answer queued  ◀────────────────────────────────┘
 *   GET stream: nothing to send
 *     suspend ◀──── resume: hs_send (a message), the session ended,
 *                   or the keepalive deadline ◀──────────────── timer
 *
 * Why sessions are reference counted: an HTTP session is touched by
 * several threads at once — POSTs in flight, open GET streams, the table
 * itself — and a DELETE or an expiry can come at any moment. Each holder
 * takes a reference; the session leaves the table at once (so its id
 * answers 404), and the memory goes when the last holder lets go.
 *
 *             POST initialize (no id)
 *                     │ hs_create: reserve a slot (shedding an idle
 *                     │   session at a limit), CSPRNG id
 *                     ▼
 *   ┌──────────── pending ────initialize failed──▶ discarded
 *   │                 │ initialize ok: hs_publish (Mcp-Session-Id sent)
 *   │                 ▼
 *   │              live ◀──── POST/GET with the id and its token: hs_find (+1 ref)
 *   │                 │ DELETE, idle expiry, shed for a new one, transport stop
 *   │                 ▼
 *   │              ended: out of the table, streams told to finish,
 *   │                 │   messages dropped; later requests → 404
 *   │                 ▼ last reference released
 *   └──────────▶   freed (kd_mcp_session_free, then the wrapper)
 *
 * One mutex (h->lock) guards the table, every session's counters, queue
 * and streams, the clients and their counts, and whether each stream is
 * suspended or evicted: a stream suspends its
 * connection and every waker resumes it under h->lock, so a resume always
 * follows its suspend. h->cond wakes the keepalive timer. Lock order:
 * h->lock, then libmicrohttpd's internal locks (suspend and resume take
 * one; libmicrohttpd never calls us with it held, except for its log
 * callback, which takes only a log limiter's leaf lock). The core
 * session's send callback (hs_send) takes h->lock; nothing here calls into
 * the core session while holding h->lock (see server_int.h's lock order).
 * The worker pool, the connection tables (conns_lock) and the rates of
 * costly requests (rate_lock) have their own leaf locks.
 */
#ifndef KD_MCP_HTTP_INT_H
#define KD_MCP_HTTP_INT_H

#include <pthread.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>

#include <microhttpd.h>

#include "engine/logger.h"
#include "mcp/server/http.h"

#define KD_HTTP_SESSION_ID_HEX 64 /* 32 random bytes */
#define KD_HTTP_SHED_KEPT 64      /* shed sessions remembered, to say why they answer 404 */

typedef struct kd_http_stream kd_http_stream;               /* an open GET stream */
typedef struct kd_http_events_stream kd_http_events_stream; /* a GET on events_path */

#define KD_HTTP_EVENTS_KEPT 64    /* broadcast events kept for slow streams */
#define KD_HTTP_EVENTS_STREAMS 64 /* open event streams at most */

/* A configured token, kept as its SHA-256 so that every comparison takes
 * the same time whatever the presented token's length (http.c). */
typedef struct {
    unsigned char digest[32];
    const void *principal; /* NULL for the access token */
} kd_http_token;

/* Who a request authenticated as: the index of its token in h->tokens, or
 * KD_HTTP_NO_TOKEN (a tokenless request where none is required). */
#define KD_HTTP_NO_TOKEN (-1)

/*
 * A client: its token when the request carried one, else its peer address
 * (loopback included, so every tokenless loopback program is one client).
 * The sessions and streams one client may hold are bounded
 * (http_clients.c), so that one client cannot lock the others out.
 */
typedef struct {
    int token;              /* an index in h->tokens, or KD_HTTP_NO_TOKEN */
    int family;             /* without a token: AF_INET or AF_INET6 (0: unknown) */
    unsigned char addr[16]; /* without a token: the address (IPv4 in the first 4) */
} kd_http_client_key;

typedef struct kd_http_client {
    struct kd_http_client *next; /* h->clients */
    kd_http_client_key key;
    unsigned sessions; /* live and pending sessions */
    unsigned streams;  /* open streams of both kinds */
    unsigned events;   /* of which on events_path */
} kd_http_client;

/*
 * What the two kinds of streams share (the first member of each): the
 * list of every open stream, oldest first, and what is needed to close
 * one to make room. All under h->lock.
 */
typedef struct kd_http_stream_base {
    struct kd_http_stream_base *prev, *next; /* h->streams, oldest first */
    kd_http_client *client;                  /* counted in; NULL once evicted */
    struct MHD_Connection *conn;
    int suspended; /* conn is suspended, waiting for a wake */
    int evicted;   /* closed to make room: it ends at its next read */
    int events;    /* on events_path (else a session's GET stream) */
} kd_http_stream_base;

/* What a lookup by session id found. */
typedef enum {
    KD_HTTP_FOUND,
    KD_HTTP_UNKNOWN,   /* no live session has this id */
    KD_HTTP_NOT_YOURS, /* it belongs to another token (or to none) */
} kd_http_lookup;

typedef struct kd_http_msg {
    struct kd_http_msg *next;
    char *text;
} kd_http_msg;

typedef struct kd_http_session {
    struct kd_http_session *next; /* table link */
    kd_mcp_http *http;
    char id[KD_HTTP_SESSION_ID_HEX + 1];
    kd_mcp_session *core;
    int owner;              /* the token it was initialized with, or KD_HTTP_NO_TOKEN */
    kd_http_client *client; /* who holds it (counted in): while live or pending */
    unsigned refs;          /* table + requests in flight + open streams */
    unsigned busy;          /* requests in flight */
    unsigned streams;       /* open GET streams */
    int in_table, ended;
    struct timespec last_used; /* CLOCK_MONOTONIC */
    kd_http_msg *head, *tail;  /* server messages waiting for a stream */
    unsigned queued;
    kd_http_stream *stream_list; /* the open streams */
} kd_http_session;

/* ---- worker pool (http_pool.c) ---------------------------------------- */

/* A job: embedded in its owner (a request), so submitting allocates
 * nothing. `run` is called once, on a worker thread. */
typedef struct kd_http_job {
    struct kd_http_job *next;
    void (*run)(struct kd_http_job *job);
    int stranger; /* for a client without a token: runs on three quarters of the workers at most */
} kd_http_job;

typedef struct kd_http_pool kd_http_pool;

/* A pool that starts threads as jobs need them, up to max_threads, and
 * keeps them until stop. KD_ERR_NOMEM. */
kd_err kd_http_pool_start(unsigned max_threads, kd_http_pool **out) KD_WARN_UNUSED;
/* Queues `job`; a thread takes it at once when one is idle or may be
 * started, else when one is free (first in, first out; a granted job
 * before a stranger's, and a stranger's only while fewer than three
 * quarters of max_threads run strangers' jobs). KD_ERR_CLOSED once
 * stop has begun; KD_ERR_NOMEM when no thread runs and none can start. */
kd_err kd_http_pool_submit(kd_http_pool *p, kd_http_job *job) KD_WARN_UNUSED;
/* Refuses new jobs, runs the queued ones, joins the threads and frees the
 * pool. NULL is a no-op. */
void kd_http_pool_stop(kd_http_pool *p);

/* ---- libmicrohttpd's messages (http_daemon.c) -------------------------- */

/* 1 when a libmicrohttpd message only says the client went away (logged
 * at debug level, not as a warning). */
int kd_http_peer_gone(const char *msg);

/* ---- connections: per address, per class, deadlines (http_conns.c) -- */

typedef struct kd_http_peer kd_http_peer;
typedef struct kd_http_conn kd_http_conn;

/* Whom a connection's request serves, known once its headers are in. */
typedef enum {
    KD_HTTP_GRANTED,   /* it carried a configured token */
    KD_HTTP_TOKENLESS, /* /mcp without a token (loopback, no bearer_token) */
    KD_HTTP_PUBLIC,    /* without a token: the web app, /metrics, the events
                          path, and refusals answered at once */
    KD_HTTP_CLASSES
} kd_http_class;

/* The address of `sa` as (family, 16 bytes: IPv4 in the first 4, an
 * IPv4-mapped IPv6 address as IPv4); 0, or -1 when it is not an IP
 * address. */
int kd_http_addr_key(const struct sockaddr *sa, int *family, unsigned char addr[16]);
/* libmicrohttpd's accept policy: refuses a client that already holds
 * per_address connections (loopback clients are exempt unless
 * limit_loopback). cls: the transport. */
enum MHD_Result kd_http_peer_admit(void *cls, const struct sockaddr *addr, socklen_t len);
/* MHD_OPTION_NOTIFY_CONNECTION: a connection starts waiting for its first
 * request (a stranger; the oldest waiting strangers beyond max_waiting are
 * closed to make room), and is counted to its address from start to
 * close. cls: the transport. */
void kd_http_conn_notify(void *cls, struct MHD_Connection *c, void **socket_context,
                         enum MHD_ConnectionNotificationCode code);
/* The headers of the request on `c` are in, and it serves `cls`: the
 * connection is no longer a stranger to shed, and is counted to `cls`
 * until the request ends. 0, or -1 when the request `holds` its connection
 * beyond an answer at once (a POST, a stream) and `cls`'s share is full
 * (nothing is counted: the caller answers 503 and closes). Polling
 * thread. */
int kd_http_conn_identify(kd_mcp_http *h, struct MHD_Connection *c, kd_http_class cls, int holds) KD_WARN_UNUSED;
/* The whole request on `c` is in (its headers, and a POST's body): its
 * deadline stops. Polling thread. */
void kd_http_conn_served(kd_mcp_http *h, struct MHD_Connection *c);
/* The request on `c` ended (libmicrohttpd's completion callback): the
 * connection is uncounted from its class and waits for its next request,
 * its deadline running again; a stranger again unless the request carried
 * a token. Polling thread. */
void kd_http_conn_ended(kd_mcp_http *h, struct MHD_Connection *c);
/* Closes the connections whose request has not come in whole within
 * request_ms of their wait's start (kept_ms more when kept alive after a
 * request), and the oldest strangers beyond
 * max_waiting that have had their grace (the timer, under h->lock); the
 * milliseconds until it should look again, at most `cap_ms`. */
long kd_http_conns_sweep(kd_mcp_http *h, long cap_ms);
/* Frees what is left of the tables (nothing once the daemon stopped). */
void kd_http_conns_fini(kd_mcp_http *h);

/* ---- the rate of costly requests per client (http_rate.c) ------------ */

typedef struct kd_http_bucket kd_http_bucket;
typedef struct kd_http_rates kd_http_rates;

#define KD_HTTP_COSTLY_TOKENLESS 4u /* the clients without a token together: this many clients' rate */

/* The buckets of the configured tokens (after kd_http_tokens_init) and
 * the table of addresses. KD_ERR_NOMEM. */
kd_err kd_http_rates_init(kd_mcp_http *h) KD_WARN_UNUSED;
void kd_http_rates_fini(kd_mcp_http *h);
/* Takes one costly request of client `who`: 0 when it may go, else the
 * seconds until one would (for Retry-After). Thread-safe. */
unsigned kd_http_rate_take(kd_mcp_http *h, const kd_http_client_key *who);

struct kd_mcp_http {
    kd_mcp_server *srv;
    struct MHD_Daemon *daemon;
    kd_http_pool *pool; /* runs POSTs */
    pthread_mutex_t lock;
    pthread_cond_t cond;       /* wakes the timer; CLOCK_MONOTONIC */
    struct timespec timer_due; /* h->lock: when the timer looks next (CLOCK_MONOTONIC) */
    pthread_t timer;
    int stopping, timer_running, timer_stop;
    uint16_t port;
    int loopback;
    int token_required;    /* bearer_token set, or beyond loopback */
    kd_http_token *tokens; /* the access token (if any) and the seat tokens */
    size_t n_tokens;
    char **origins, **hosts;
    size_t n_origins, n_hosts;
    size_t max_body;
    unsigned max_sessions, max_streams, idle_s, keepalive_ms, max_queued;
    unsigned max_sessions_per_client, max_streams_per_client;
    char keep_alive[32]; /* the Keep-Alive header: "timeout=<connection timeout>" */
    kd_http_session *sessions;
    unsigned n_sessions;                       /* live + pending (reserved) */
    kd_err (*metrics)(void *ctx, kd_buf *out); /* GET /metrics, or NULL */
    void *metrics_ctx;
    kd_err (*page)(void *ctx, const char *path, int authorized, const void *principal,
                   kd_mcp_http_page *out); /* or NULL */
    void *page_ctx;
    int (*page_costly)(void *ctx, const char *path); /* or NULL */
    unsigned costly_per_s, costly_burst;             /* per client */
    pthread_mutex_t rate_lock;                       /* a leaf: rates */
    kd_http_rates *rates;
    char *events_path;                  /* or NULL */
    char *events[KD_HTTP_EVENTS_KEPT];  /* h->lock: the last events, by seq % KD_HTTP_EVENTS_KEPT */
    uint64_t events_next;               /* h->lock: the seq of the next event */
    kd_http_events_stream *events_list; /* h->lock: the open event streams */
    unsigned n_events_streams;          /* h->lock */
    kd_http_client *clients;            /* h->lock: clients holding sessions or streams */
    kd_http_stream_base *streams_head;  /* h->lock: every open stream, oldest first */
    kd_http_stream_base *streams_tail;
    /* h->lock: the ids of the sessions shed last, so that their next
     * request says why (KD_HTTP_SHED_KEPT, by shed_next % KD_HTTP_SHED_KEPT),
     * and whether the client's own share (1) or the full table (0) shed it */
    char shed_ids[KD_HTTP_SHED_KEPT][KD_HTTP_SESSION_ID_HEX + 1];
    unsigned char shed_own[KD_HTTP_SHED_KEPT];
    unsigned shed_next;

    pthread_mutex_t conns_lock; /* a leaf: the tables below (http_conns.c) */
    kd_http_peer *peers;        /* addresses holding connections */
    unsigned per_address;       /* connections per address */
    int limit_loopback;
    kd_http_conn *waiting_head[2];       /* connections whose deadline runs, oldest first: */
    kd_http_conn *waiting_tail[2];       /*   [0] fresh, [1] kept alive after a request */
    kd_http_conn *strangers_head[2];     /* of which not known as granted, oldest first: */
    kd_http_conn *strangers_tail[2];     /*   [0] fresh, [1] kept alive after a request */
    unsigned n_strangers[2];             /* on each of those lists */
    unsigned n_class[KD_HTTP_CLASSES];   /* connections serving a request of each class */
    unsigned max_waiting;                /* strangers waiting for a request, on each list */
    unsigned max_class[KD_HTTP_CLASSES]; /* per class; 0: no share (granted) */
    unsigned request_ms;                 /* a request's total deadline */
    unsigned kept_ms;                    /* and before it, a kept-alive connection's idle time */
    unsigned grace_ms;                   /* a new stranger's time to send its headers */

    /* Repeated warnings, each limited (engine/logger.h). */
    kd_log_limit log_mhd;     /* libmicrohttpd's messages (e.g. at the connection limit) */
    kd_log_limit log_refused; /* per-address refusals */
    kd_log_limit log_dropped; /* server messages dropped from a full queue */
    kd_log_limit log_shed;    /* sessions and streams closed to make room */
    kd_log_limit log_conns;   /* connections closed at their deadline or to make room */
};

/* ---- tokens, clients and their share (http_clients.c) ---------------- */

/* Keeps the digests of the access token and the seat tokens in h->tokens
 * and sets nothing else. KD_ERR_INVALID_ARG, logged with the reason, for
 * an empty token or one given twice (two principals for one token would
 * make a session's grant depend on the order of a list); KD_ERR_NOMEM;
 * KD_ERR_INTERNAL when SHA-256 is unavailable. What was kept stays for
 * kd_http_tokens_fini. */
kd_err kd_http_tokens_init(kd_mcp_http *h, const kd_mcp_http_options *o) KD_WARN_UNUSED;
/* Wipes and frees the digests. */
void kd_http_tokens_fini(kd_mcp_http *h);

/* What a request's Authorization header proved. */
typedef enum {
    KD_HTTP_AUTH_OK,        /* *token: a token's index, or KD_HTTP_NO_TOKEN */
    KD_HTTP_AUTH_MISSING,   /* none, and one is required */
    KD_HTTP_AUTH_MALFORMED, /* not "Bearer <token>" */
    KD_HTTP_AUTH_UNKNOWN,   /* a token that is not configured */
} kd_http_auth;

/* Checks the Authorization header `auth` (NULL when absent) against the
 * configured tokens, in constant time. A request without one is the public
 * (KD_HTTP_NO_TOKEN) only where no token is required; one that carries a
 * token never falls back to the public. Thread-safe. */
kd_http_auth kd_http_authenticate(const kd_mcp_http *h, const char *auth, int *token);
/* What was wrong, for a 401's message ("a bearer token is required"). */
const char *kd_http_auth_problem(kd_http_auth a);

/* The client making a request on `c` that carried token `who` (an index
 * in h->tokens, or KD_HTTP_NO_TOKEN: then its peer address). */
void kd_http_client_key_of(struct MHD_Connection *c, int who, kd_http_client_key *out);
/* "token #2" or the address, for logs and refusals. */
void kd_http_client_name(const kd_http_client_key *key, char *buf, size_t len);
/* The entry of `key` (under h->lock): NULL when it holds nothing. */
kd_http_client *kd_http_client_find_locked(kd_mcp_http *h, const kd_http_client_key *key);
/* The same, made when missing; NULL when out of memory. */
kd_http_client *kd_http_client_get_locked(kd_mcp_http *h, const kd_http_client_key *key);
/* Frees `cl` when it holds nothing any more (under h->lock). */
void kd_http_client_put_locked(kd_mcp_http *h, kd_http_client *cl);
/* Frees what is left of the table (transport stop). */
void kd_http_clients_fini(kd_mcp_http *h);

/*
 * Admits a new stream `st` (events: on events_path) of client `key`, under
 * h->lock: links it as the newest and counts it to its client. To make room
 * it first closes (evicts) the client's own oldest stream when the client
 * holds max_streams_per_client, else, for an events stream when
 * KD_HTTP_EVENTS_STREAMS are open, the oldest events stream of the client
 * holding the most; *evicted_from (may be NULL) then names whose it was.
 * Returns the number of streams evicted (0 or 1), or -1 when out of memory
 * (`st` is not admitted).
 */
int kd_http_stream_admit_locked(kd_mcp_http *h, kd_http_stream_base *st, const kd_http_client_key *key, int events,
                                kd_http_client_key *evicted_from);
/* Logs (info, rate-limited) that a stream of `whose` was closed to make
 * room. Call without h->lock. */
void kd_http_stream_log_evicted(kd_mcp_http *h, const kd_http_client_key *whose);
/* Unlinks and uncounts a stream that ends (under h->lock); nothing for one
 * already evicted, which was then. */
void kd_http_stream_leave_locked(kd_mcp_http *h, kd_http_stream_base *st);
/* Resumes a stream that waits for something to send (under h->lock). */
void kd_http_stream_wake_locked(kd_http_stream_base *st);

/* libmicrohttpd's request callbacks (http.c): the checks and handlers. */
enum MHD_Result kd_http_on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                   const char *version, const char *upload, size_t *upload_size, void **con_cls);
void kd_http_on_completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe);

/* Creates a pending session of client `who` holding one reference for
 * the caller; it belongs to who->token (an index in h->tokens, or
 * KD_HTTP_NO_TOKEN), whose principal its core session gets. When the
 * client holds max_sessions_per_client, or the table is full, an idle
 * session is shed first (http_session.c says which). KD_ERR_BUSY when
 * nothing could be shed (*per_client: 1 when the client's quota was the
 * limit, 0 when the table's); KD_ERR_NOMEM; KD_ERR_INTERNAL when the CSPRNG
 * fails. */
kd_err kd_http_session_create(kd_mcp_http *h, const kd_http_client_key *who, kd_http_session **out,
                              int *per_client) KD_WARN_UNUSED;
/* Puts a pending session into the table (its initialize succeeded). */
void kd_http_session_publish(kd_http_session *hs);
/* Finds a live session by id for a request authenticated as `owner`:
 * KD_HTTP_FOUND with *out referenced and counted as busy; KD_HTTP_UNKNOWN
 * when no live session has the id; KD_HTTP_NOT_YOURS when it belongs to
 * another token (the session is left untouched). */
kd_http_lookup kd_http_session_find(kd_mcp_http *h, const char *id, int owner, kd_http_session **out) KD_WARN_UNUSED;
/* Why session `id` answers 404 when it was shed to make room lately: 1
 * for its client's share (max_sessions_per_client), 0 for the full table;
 * -1 when it was not shed (it ended, expired or never existed). */
int kd_http_session_shed_why(kd_mcp_http *h, const char *id);
/* Releases a reference from create or find (busy is dropped too). */
void kd_http_session_release(kd_http_session *hs, int was_busy);
/* Ends the session (DELETE) when it belongs to `owner`: KD_HTTP_FOUND
 * (ended), or KD_HTTP_UNKNOWN / KD_HTTP_NOT_YOURS as for find. */
kd_http_lookup kd_http_session_end(kd_mcp_http *h, const char *id, int owner) KD_WARN_UNUSED;
/* Ends every session and wakes every stream (transport stop). */
void kd_http_session_end_all(kd_mcp_http *h);

/* Opens a text/event-stream response for `hs` (which must be referenced by
 * the caller; the stream takes its own reference) on connection `c` of
 * client `who`, which the stream suspends while it has nothing to send.
 * NULL with *status set (429 at the limit of streams per session, 500) on
 * failure. Called on a polling thread. */
struct MHD_Response *kd_http_sse_open(kd_http_session *hs, struct MHD_Connection *c, const kd_http_client_key *who,
                                      unsigned *status);

/* ---- broadcast event streams (http_events.c) ------------------------- */

/* Opens a text/event-stream of kd_mcp_http_publish's events on `c` for
 * client `who`, starting after the events already sent; a full table makes
 * room (kd_http_stream_admit_locked). NULL with *status 500 when out of
 * memory. Called on a polling thread. */
struct MHD_Response *kd_http_events_open(kd_mcp_http *h, struct MHD_Connection *c, const kd_http_client_key *who,
                                         unsigned *status);
/* Resumes event streams whose keepalive is due (under h->lock, from the
 * timer); the milliseconds until the next one is due, at most `cap_ms`. */
long kd_http_events_keepalive_locked(kd_mcp_http *h, long cap_ms);
/* Wakes every event stream so that it ends (h->stopping is set; under
 * h->lock). */
void kd_http_events_end_all_locked(kd_mcp_http *h);
/* Frees the kept events (transport stop, after the daemon stopped). */
void kd_http_events_fini(kd_mcp_http *h);

/* Starts and stops the thread that resumes idle streams when their
 * keepalive is due. Start: KD_ERR_NOMEM when no thread can start. Stop:
 * after kd_http_session_end_all. */
kd_err kd_http_timer_start(kd_mcp_http *h) KD_WARN_UNUSED;
/* A stream has just suspended with its last write at `last_write`: wakes
 * the timer only when that stream's keepalive falls due before the timer
 * looks next (under h->lock). A stream that has just written is due a
 * whole keepalive interval later, never sooner than the timer's next look,
 * so a notification to N sessions costs no timer pass (each pass walks
 * every stream: waking it per stream made a broadcast O(N²)). */
/* A keepalive due within this many milliseconds is sent now, by the pass
 * that serves the streams due first: at most eight passes per interval. */
#define KD_HTTP_KEEPALIVE_SLACK_MS(h) ((h)->keepalive_ms / 8)
void kd_http_timer_note_locked(kd_mcp_http *h, const struct timespec *last_write);
void kd_http_timer_stop(kd_mcp_http *h);

#endif
