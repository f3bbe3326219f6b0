/*
 * http_daemon.c — the Streamable HTTP transport's daemon: options and
 * their defaults, the listening socket, libmicrohttpd's polling threads,
 * the workers and the keepalive timer, and the order in which they start
 * and stop.
 *
 * The limits, and why each has its value:
 *
 *   connections in all  1000, fewer when the open-file limit is lower:
 *                       idle and half-open connections cost a socket and a
 *                       few kilobytes each, so hundreds of them leave room
 *                       for well-behaved clients
 *   per address         64 beyond loopback (http_conns.c): one host cannot
 *                       take every slot
 *   without a token     an eighth of the connections each (http_conns.c):
 *                       waiting for a request and not known as a granted
 *                       client's, half of it for fresh ones and half for
 *                       those kept alive after a request (beyond either
 *                       half its oldest is closed, once it has had half a
 *                       second, its grace), serving
 *                       /mcp without a token, serving the web app (at
 *                       least 80: its 64 event streams and the files) —
 *                       three eighths in all, less than the share of one
 *                       polling thread of two, so that granted clients
 *                       always find a thread that accepts them
 *   connection timeout  30 s without a byte in or out closes a connection
 *                       (an incomplete request, an idle keep-alive); a POST
 *                       being handled and a quiet event stream are
 *                       suspended, not idle, and streams send a keepalive
 *                       at least every half of it
 *   request deadline    10 s from a connection's opening to its whole
 *                       first request (headers and body), however its
 *                       bytes trickle: a request of the largest body takes
 *                       milliseconds on loopback. Kept alive, the
 *                       connection timeout that answers announce
 *                       (Keep-Alive: timeout=30: a pooling client may pick
 *                       it until then) and 10 s more from the end of the
 *                       previous request
 *   sessions            64, a quarter of them per client (http_clients.c):
 *                       one client cannot take them all, and idle ones are
 *                       shed before a new client is refused
 *   streams per client  8 (event streams and sessions' GET streams): a
 *                       browser page holds one, an MCP client one per
 *                       session it listens on
 *   costly page paths   4 a second per client, in bursts of 16 (and 16
 *                       a second for all the clients without a token): an
 *                       audit replays its episode's log, on a worker; a
 *                       viewer asks for one when it opens the proof and
 *                       as each move comes
 *   polling threads     2: they only move bytes
 *   workers             64 at most, started as needed: tool calls that may
 *                       wait (a move waiting for its block) handled at once
 *
 * Stopping, in order: sessions end and every stream is woken (it then
 * ends); the workers finish what they hold, each resuming its connection;
 * the timer stops; libmicrohttpd stops, which it may only do with no
 * connection left suspended.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "engine/logger.h"
#include "mcp/server/http_int.h"

#define ENDPOINT "/mcp"
#define DEFAULT_MAX_CONNECTIONS 1000u
#define FD_RESERVE 256u /* descriptors left for LMDB, NNG, logs, clients of ours */
#define DEFAULT_PER_ADDRESS 64u
#define DEFAULT_TIMEOUT_S 30u
#define DEFAULT_REQUEST_S 10u
#define DEFAULT_COSTLY_PER_S 4u
#define GRACE_MS 500u /* a new connection's time to send its headers before a newcomer may close it */
#define DEFAULT_POLL_THREADS 2u
#define DEFAULT_WORKERS 64u
#define DEFAULT_KEEPALIVE_MS 15000u
#define LISTEN_BACKLOG 256
#define LOG_WINDOW_MS 10000u /* repeated warnings: at most LOG_BURST per window */
#define LOG_BURST 5u

static void mhd_log(void *cls, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

/* 1 when a libmicrohttpd message only says that the connection ended as
 * connections do (a send after the peer closed or reset, a request cut
 * short, or a connection we closed at its deadline or to make room,
 * http_conns.c): a client that disconnects, as clients do after their
 * answer or when they stop a stream, is no warning. */
int kd_http_peer_gone(const char *msg)
{
    static const char *const gone[] = {
        "Failed to send",   /* the headers, body, chunked body or footers: the peer closed */
        "closed by remote", /* "Connection was closed by remote side with incomplete request." */
        "forcibly closed by remote peer",
        "Connection socket is closed",
        "connection closure", /* "... detected connection closure": either side closed it */
    };
    for (size_t i = 0; i < sizeof gone / sizeof gone[0]; i++)
        if (strstr(msg, gone[i]))
            return 1;
    return 0;
}

/* libmicrohttpd's messages. One arrives per refused connection at the
 * connection limit, under libmicrohttpd's own lock: limited, and taking
 * only the limiter's leaf lock. A client that went away is logged at
 * debug level only. */
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
    kd_mcp_http *h = cls;
    char line[300];
    size_t n;

    vsnprintf(line, sizeof line, fmt, ap);
    n = strlen(line);
    while (n > 0 && line[n - 1] == '\n')
        line[--n] = '\0';
    if (kd_http_peer_gone(line))
        KD_LOG_D("mcp", "http (libmicrohttpd): %s (the client went away, or was closed)", line);
    else
        KD_LOG_LIMITED(&h->log_mhd, KD_LOG_WARN, "mcp", "http (libmicrohttpd): %s", line);
}

/* Parses the bind address; sets loopback. 0, or -1 when not an address. */
static int parse_addr(const char *a, uint16_t port, struct sockaddr_storage *ss, socklen_t *len, int *loopback)
{
    struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;

    memset(ss, 0, sizeof *ss);
    if (strcmp(a, "localhost") == 0)
        a = "127.0.0.1";
    if (inet_pton(AF_INET, a, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons(port);
        *len = sizeof *v4;
        *loopback = (ntohl(v4->sin_addr.s_addr) >> 24) == 127;
        return 0;
    }
    if (inet_pton(AF_INET6, a, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons(port);
        *len = sizeof *v6;
        *loopback = IN6_IS_ADDR_LOOPBACK(&v6->sin6_addr);
        return 0;
    }
    return -1;
}

static int copy_list(const char *const *in, size_t n, char ***out)
{
    size_t i;

    *out = NULL;
    if (n == 0)
        return 0;
    if ((*out = calloc(n, sizeof **out)) == NULL)
        return -1;
    for (i = 0; i < n; i++)
        if (in[i] == NULL || ((*out)[i] = strdup(in[i])) == NULL)
            return -1;
    return 0;
}

static void free_list(char **l, size_t n)
{
    size_t i;

    for (i = 0; l != NULL && i < n; i++)
        free(l[i]);
    free(l);
}

static int listen_on(const struct sockaddr_storage *ss, socklen_t len, uint16_t *port)
{
    int fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
    struct sockaddr_storage bound;
    socklen_t blen = sizeof bound;

    if (fd < 0)
        return -1;
    (void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (ss->ss_family == AF_INET6)
        (void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
    if (bind(fd, (const struct sockaddr *)ss, len) != 0 || listen(fd, LISTEN_BACKLOG) != 0 ||
        getsockname(fd, (struct sockaddr *)&bound, &blen) != 0) {
        int e = errno;

        close(fd);
        errno = e;
        return -1;
    }
    *port = ntohs(bound.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&bound)->sin6_port
                                              : ((struct sockaddr_in *)&bound)->sin_port);
    return fd;
}

/* The default connection limit, within the process's open-file limit
 * (each connection is a descriptor; running out makes libmicrohttpd stop
 * accepting for a while). */
static unsigned default_connections(void)
{
    struct rlimit rl;
    rlim_t room;

    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
        rl.rlim_cur >= DEFAULT_MAX_CONNECTIONS + FD_RESERVE)
        return DEFAULT_MAX_CONNECTIONS;
    room = rl.rlim_cur > 2 * FD_RESERVE ? rl.rlim_cur - FD_RESERVE : rl.rlim_cur / 2;
    KD_LOG_I("mcp", "http: at most %u connections (the open-file limit is %llu; raise it with ulimit -n for more)",
             (unsigned)room, (unsigned long long)rl.rlim_cur);
    return (unsigned)room;
}

/* The transport's locks, condition and log limiters. 0, or -1 (nothing
 * left initialised). */
static int sync_init(kd_mcp_http *h)
{
    pthread_condattr_t ca;

    if (pthread_mutex_init(&h->lock, NULL) != 0)
        goto fail_lock;
    if (pthread_condattr_init(&ca) != 0)
        goto fail_attr;
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    if (pthread_cond_init(&h->cond, &ca) != 0)
        goto fail_cond;
    pthread_condattr_destroy(&ca);
    if (pthread_mutex_init(&h->conns_lock, NULL) != 0)
        goto fail_peers;
    if (pthread_mutex_init(&h->rate_lock, NULL) != 0)
        goto fail_rate;
    kd_log_limit_init(&h->log_mhd, LOG_WINDOW_MS, LOG_BURST);
    kd_log_limit_init(&h->log_refused, LOG_WINDOW_MS, LOG_BURST);
    kd_log_limit_init(&h->log_dropped, LOG_WINDOW_MS, LOG_BURST);
    kd_log_limit_init(&h->log_shed, LOG_WINDOW_MS, LOG_BURST);
    kd_log_limit_init(&h->log_conns, LOG_WINDOW_MS, LOG_BURST);
    return 0;
fail_rate:
    pthread_mutex_destroy(&h->conns_lock);
fail_peers:
    pthread_cond_destroy(&h->cond);
fail_cond:
    pthread_condattr_destroy(&ca);
fail_attr:
    pthread_mutex_destroy(&h->lock);
fail_lock:
    return -1;
}

static void sync_fini(kd_mcp_http *h)
{
    kd_log_limit_fini(&h->log_conns);
    kd_log_limit_fini(&h->log_shed);
    kd_log_limit_fini(&h->log_dropped);
    kd_log_limit_fini(&h->log_refused);
    kd_log_limit_fini(&h->log_mhd);
    pthread_mutex_destroy(&h->rate_lock);
    pthread_mutex_destroy(&h->conns_lock);
    pthread_cond_destroy(&h->cond);
    pthread_mutex_destroy(&h->lock);
}

/* Frees what kd_mcp_http_start copied from the options, and h. */
static void config_free(kd_mcp_http *h)
{
    free_list(h->origins, h->n_origins);
    free_list(h->hosts, h->n_hosts);
    kd_http_rates_fini(h);
    kd_http_tokens_fini(h);
    kd_http_events_fini(h);
    free(h);
}

kd_err kd_mcp_http_start(kd_mcp_server *srv, const kd_mcp_http_options *opts, kd_mcp_http **out)
{
    kd_mcp_http_options o = {0};
    kd_mcp_http *h = NULL;
    struct sockaddr_storage ss;
    socklen_t sslen;
    unsigned connections, timeout_s, request_s, poll_threads, share;
    int loopback, fd;
    kd_err err = KD_ERR_NOMEM;

    *out = NULL;
    if (opts != NULL)
        o = *opts;
    if (o.bind_address == NULL)
        o.bind_address = "127.0.0.1";
    if (parse_addr(o.bind_address, o.port, &ss, &sslen, &loopback) != 0) {
        KD_LOG_E("mcp", "http: \"%s\" is not an IPv4 or IPv6 address", o.bind_address);
        return KD_ERR_INVALID_ARG;
    }
    if (!loopback && (o.bearer_token == NULL || o.bearer_token[0] == '\0') && o.n_tokens == 0) {
        KD_LOG_E("mcp",
                 "http: refusing to listen on %s (beyond loopback) without a token (bearer_token or a seat token)",
                 o.bind_address);
        return KD_ERR_INVALID_ARG;
    }
    connections = o.max_connections ? o.max_connections : default_connections();
    timeout_s = o.connection_timeout_s ? o.connection_timeout_s : DEFAULT_TIMEOUT_S;
    request_s = o.request_timeout_s ? o.request_timeout_s : DEFAULT_REQUEST_S;
    share = connections / 8 ? connections / 8 : 1;
    poll_threads = o.poll_threads ? o.poll_threads : DEFAULT_POLL_THREADS;
    if ((h = calloc(1, sizeof *h)) == NULL)
        return KD_ERR_NOMEM;
    h->srv = srv;
    h->loopback = loopback;
    h->token_required = o.bearer_token != NULL || !loopback;
    h->max_body = o.max_body_bytes ? o.max_body_bytes : kd_mcp_server_max_message_bytes(srv);
    h->metrics = o.metrics;
    h->metrics_ctx = o.metrics_ctx;
    h->page = o.page;
    h->page_ctx = o.page_ctx;
    h->page_costly = o.page_costly;
    h->costly_per_s = o.costly_per_s ? o.costly_per_s : DEFAULT_COSTLY_PER_S;
    h->costly_burst = o.costly_burst ? o.costly_burst : 4 * h->costly_per_s;
    h->max_sessions = o.max_sessions ? o.max_sessions : 64;
    h->max_sessions_per_client = o.max_sessions_per_client ? o.max_sessions_per_client : h->max_sessions / 4;
    if (h->max_sessions_per_client == 0)
        h->max_sessions_per_client = 1;
    h->max_streams = o.max_streams_per_session ? o.max_streams_per_session : 4;
    /* each session its GET stream, and a few pages beside them: a client's
     * own sessions never close each other's streams */
    h->max_streams_per_client =
        o.max_event_streams_per_client ? o.max_event_streams_per_client : h->max_sessions_per_client + 8;
    h->idle_s = o.session_idle_timeout_s ? o.session_idle_timeout_s : 3600;
    h->keepalive_ms = o.keepalive_ms ? o.keepalive_ms : DEFAULT_KEEPALIVE_MS;
    if (h->keepalive_ms > timeout_s * 500u) /* a quiet stream must never look idle */
        h->keepalive_ms = timeout_s * 500u;
    h->max_queued = o.max_queued ? o.max_queued : 256;
    snprintf(h->keep_alive, sizeof h->keep_alive, "timeout=%u", timeout_s);
    h->per_address = o.max_connections_per_address ? o.max_connections_per_address : DEFAULT_PER_ADDRESS;
    h->limit_loopback = o.limit_loopback;
    h->request_ms = request_s * 1000u;
    h->kept_ms = timeout_s * 1000u;
    h->grace_ms = GRACE_MS < h->request_ms / 2 ? GRACE_MS : h->request_ms / 2;
    h->max_waiting = o.max_waiting_connections ? o.max_waiting_connections : share / 2 ? share / 2 : 1;
    h->max_class[KD_HTTP_TOKENLESS] = o.max_tokenless_connections ? o.max_tokenless_connections : share;
    h->max_class[KD_HTTP_PUBLIC] = o.max_public_connections               ? o.max_public_connections
                                   : share > KD_HTTP_EVENTS_STREAMS + 16u ? share
                                                                          : KD_HTTP_EVENTS_STREAMS + 16u;
    h->n_origins = o.n_allowed_origins;
    h->n_hosts = o.n_allowed_hosts;
    if ((err = kd_http_tokens_init(h, &o)) != KD_OK || (err = kd_http_rates_init(h)) != KD_OK)
        goto fail_config;
    err = KD_ERR_NOMEM;
    if (copy_list(o.allowed_origins, o.n_allowed_origins, &h->origins) != 0 ||
        copy_list(o.allowed_hosts, o.n_allowed_hosts, &h->hosts) != 0 ||
        (o.events_path != NULL && (h->events_path = strdup(o.events_path)) == NULL))
        goto fail_config;
    if (sync_init(h) != 0)
        goto fail_config;
    if ((err = kd_http_pool_start(o.max_workers ? o.max_workers : DEFAULT_WORKERS, &h->pool)) != KD_OK)
        goto fail_sync;
    if ((fd = listen_on(&ss, sslen, &h->port)) < 0) {
        int e = errno;
        KD_LOG_E("mcp", "http: cannot listen on %s port %u: %s", o.bind_address, o.port, strerror(e));
        err = e == EADDRINUSE ? KD_ERR_EXISTS : KD_ERR_NET; /* in use: the caller names the fix */
        goto fail_pool;
    }
    if ((err = kd_http_timer_start(h)) != KD_OK)
        goto fail_fd;
    /* THREAD_POOL_SIZE goes last: libmicrohttpd warns about a pool of 1,
     * so for one thread the list ends there instead. */
    h->daemon = MHD_start_daemon(
        MHD_USE_AUTO_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG, 0, kd_http_peer_admit, h,
        kd_http_on_request, h, MHD_OPTION_EXTERNAL_LOGGER, mhd_log, h, /* first: every message goes to our log */
        MHD_OPTION_LISTEN_SOCKET, (MHD_socket)fd, MHD_OPTION_NOTIFY_COMPLETED, kd_http_on_completed, h,
        MHD_OPTION_NOTIFY_CONNECTION, kd_http_conn_notify, h, MHD_OPTION_CONNECTION_LIMIT, connections,
        MHD_OPTION_CONNECTION_TIMEOUT, timeout_s, poll_threads > 1 ? MHD_OPTION_THREAD_POOL_SIZE : MHD_OPTION_END,
        poll_threads, MHD_OPTION_END);
    if (h->daemon == NULL) {
        KD_LOG_E("mcp", "http: libmicrohttpd did not start on %s port %u", o.bind_address, h->port);
        err = KD_ERR_NET;
        goto fail_timer;
    }
    KD_LOG_I("mcp",
             "http: serving http://%s%s%s:%u" ENDPOINT "%s; %u connections, %u per address%s, without a token "
             "%u waiting, %u on /mcp, %u on the page; %u s timeout, %u s per request, %u polling threads",
             strchr(o.bind_address, ':') ? "[" : "", o.bind_address, strchr(o.bind_address, ':') ? "]" : "", h->port,
             h->token_required ? " (bearer token required)" : "", connections, h->per_address,
             h->limit_loopback ? "" : " beyond loopback", h->max_waiting, h->max_class[KD_HTTP_TOKENLESS],
             h->max_class[KD_HTTP_PUBLIC], timeout_s, request_s, poll_threads);
    *out = h;
    return KD_OK;
fail_timer:
    kd_http_timer_stop(h);
fail_fd:
    close(fd);
fail_pool:
    kd_http_pool_stop(h->pool);
fail_sync:
    sync_fini(h);
fail_config:
    config_free(h);
    return err;
}

uint16_t kd_mcp_http_port(const kd_mcp_http *h) { return h->port; }

unsigned kd_mcp_http_session_count(kd_mcp_http *h)
{
    kd_http_session *hs;
    unsigned n = 0;

    pthread_mutex_lock(&h->lock);
    for (hs = h->sessions; hs != NULL; hs = hs->next)
        n++;
    pthread_mutex_unlock(&h->lock);
    return n;
}

void kd_mcp_http_stop(kd_mcp_http *h)
{
    if (h == NULL)
        return;
    kd_http_session_end_all(h); /* streams see `stopping`, are woken, and end */
    kd_http_pool_stop(h->pool); /* every POST in flight answered and resumed */
    kd_http_timer_stop(h);
    MHD_stop_daemon(h->daemon); /* no connection is left suspended */
    kd_http_conns_fini(h);
    kd_http_clients_fini(h);
    sync_fini(h);
    config_free(h);
}
