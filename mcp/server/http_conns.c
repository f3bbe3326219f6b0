/*
 * http_conns.c — every connection of the HTTP transport from accept to
 * close: its client address, whom its request serves (its class), the
 * total deadline of the request it is reading, and the shares that keep
 * clients without a token from taking the capacity the others need.
 *
 * Why a deadline of our own: libmicrohttpd's connection timeout is an idle
 * timer that every byte restarts, so a client that sends one header line
 * every few seconds held its connection for ever; 1,010 such sockets from
 * loopback locked every granted agent out for as long as they lasted
 * (issue 37, R4). And why shares by class: whom a connection serves is
 * known only once its headers are in, so until then a granted agent's new
 * connection and a trickler's look alike. So a connection is
 *
 *   waiting    from accept, or from the end of its previous request (kept
 *              alive), until its next request is wholly in: the headers,
 *              and a POST's body. It is closed once it has waited
 *              request_ms since its accept, however its bytes trickle;
 *              kept alive, kept_ms (the idle timeout its answers
 *              announced in Keep-Alive, during which a client may pick
 *              it from its pool) and request_ms since its previous
 *              answer. The keepalive timer sweeps, the oldest first
 *              (kd_http_conns_sweep).
 *   stranger   a waiting connection not known to be a granted client's:
 *              it has carried no request yet, or its last one had no
 *              token. At most max_waiting fresh ones (never a request
 *              yet) and max_waiting kept alive after one, once they have
 *              had their grace (grace_ms, half a second): beyond that, a
 *              new connection, or the sweep, closes the oldest of the
 *              same list, so that a flood of fresh connections never cuts
 *              a tokenless client's pooled connection under its next
 *              request (client_idle: an SDK client beside 300 half-open
 *              sockets). So a flood of them never keeps a newcomer out and
 *              holds 2 * max_waiting sockets, plus those it opened within
 *              the last grace.
 *   counted    from its headers to the end of its request, to its class:
 *                granted    it carried a token: no share but the
 *                           connection limit
 *                tokenless  /mcp without a token: at most
 *                           max_class[KD_HTTP_TOKENLESS]; beyond, a
 *                           request that may hold its connection (a POST,
 *                           a GET stream) answers 503 and closes
 *                public     the web app, /metrics, the events stream, a
 *                           refusal: at most max_class[KD_HTTP_PUBLIC];
 *                           beyond, an events stream answers 503
 *              A request answered at once (a DELETE, a file of the web
 *              app, /metrics) is counted, never refused: it holds its
 *              connection no longer than its answer takes.
 *
 *   accept ─▶ waiting, stranger ─headers─▶ counted ─whole request─▶ served
 *               ▲   │ request_ms, or the oldest      (a POST's body    │
 *               │   ▼ of too many old strangers       still runs the   │
 *               │  closed                             deadline)        │
 *               └─ waiting (a stranger unless it carried a token) ◀─ ended
 *
 * Why a grace, and not simply the oldest: a flood that opens again what
 * was closed comes in bursts, which are accepted from the listen queue
 * faster than a polling thread reads the requests already in, so a
 * granted agent's fresh connection was at times the oldest of the
 * strangers before its headers were read, and was closed (the attack's
 * test saw it). Its grace is time, which no burst can spend: a client has
 * half a second from accept to send its headers, and takes milliseconds.
 * A flood that opens more than max_waiting connections per grace holds
 * more while they are young, up to the connection limit; a granted
 * agent's connection then waits in the listen queue until the sweep
 * closes the old ones, a grace at most.
 *
 * So clients without a token hold at most 2 * max_waiting + the tokenless
 * and public shares, on loopback too, beside the connections they opened
 * within the last grace, and the rest of the connection limit stays for
 * granted ones. libmicrohttpd splits its connection limit between its
 * polling threads and stops accepting on a full one only, so the shares'
 * defaults (http_daemon.c) sum to less than one thread's part.
 *
 * Closing: shutdown(2) on the connection's socket, from any thread; its
 * polling thread then reads the end of the stream and closes it. The
 * socket is still the connection's then: libmicrohttpd tells
 * kd_http_conn_notify that a connection closed (which unlinks it here,
 * under conns_lock) before it closes its socket.
 *
 * Per address: libmicrohttpd asks kd_http_peer_admit (its accept policy)
 * before it takes a connection; the count moves only in
 * kd_http_conn_notify, so it never drifts from what the daemon holds. Two
 * polling threads may admit the same address at once before either counts
 * its connection, so an address can briefly exceed the limit by the number
 * of polling threads, never more. Loopback clients are exempt by default
 * (every program of the machine shares the address, granted agents
 * included); the shares above bound them instead.
 *
 * Every table here is under conns_lock, a leaf. The peers table is a list
 * of the addresses holding connections; the waiting and stranger lists
 * are ordered by when each connection began to wait, so the sweep and the
 * shedding look at their heads only.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "mcp/server/http_int.h"

#define SWEEP_PARTS 2 /* the sweep looks every half of the grace (http_daemon.c) */

struct kd_http_peer {
    struct kd_http_peer *next;
    int family; /* AF_INET or AF_INET6 */
    unsigned char addr[16];
    unsigned n; /* open connections */
};

struct kd_http_conn {
    kd_http_conn *prev, *next;   /* h->waiting_*[returning]: while its deadline runs */
    kd_http_conn *sprev, *snext; /* h->strangers_*[returning]: while a waiting stranger */
    kd_http_peer *peer;          /* its address's count, or NULL (exempt) */
    int fd;
    int family; /* its address, for logs (0: unknown) */
    unsigned char addr[16];
    struct timespec since; /* CLOCK_MONOTONIC: when its wait began */
    int waiting, stranger; /* on each list */
    int returning;         /* it has carried a request: a kept-alive stranger, shed after the fresh */
    int cls;               /* the class it is counted to, or -1 */
    int granted;           /* its last request carried a token */
    int closing;           /* shut down: its polling thread closes it */
};

static const char *const CLASS_NAMES[KD_HTTP_CLASSES] = {"granted", "tokenless", "public"};

/* ---- per address ------------------------------------------------------- */

int kd_http_addr_key(const struct sockaddr *sa, int *family, unsigned char addr[16])
{
    static const unsigned char V4_MAPPED[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

    memset(addr, 0, 16);
    *family = 0;
    if (sa == NULL)
        return -1;
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *v4 = (const struct sockaddr_in *)sa;

        *family = AF_INET;
        memcpy(addr, &v4->sin_addr, 4);
    } else if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)sa;

        if (memcmp(&v6->sin6_addr, V4_MAPPED, sizeof V4_MAPPED) == 0) {
            *family = AF_INET;
            memcpy(addr, (const unsigned char *)&v6->sin6_addr + 12, 4);
        } else {
            *family = AF_INET6;
            memcpy(addr, &v6->sin6_addr, 16);
        }
    } else {
        return -1;
    }
    return 0;
}

static int is_loopback(int family, const unsigned char addr[16])
{
    return family == AF_INET ? addr[0] == 127 : IN6_IS_ADDR_LOOPBACK((const struct in6_addr *)addr);
}

/* The entry of an address (under conns_lock), or NULL. */
static kd_http_peer *peer_find_locked(kd_mcp_http *h, int family, const unsigned char addr[16])
{
    kd_http_peer *p;

    for (p = h->peers; p != NULL; p = p->next)
        if (p->family == family && memcmp(p->addr, addr, 16) == 0)
            return p;
    return NULL;
}

static void addr_text(int family, const unsigned char addr[16], char *text, size_t len)
{
    if (family == 0 || inet_ntop(family, addr, text, (socklen_t)len) == NULL)
        snprintf(text, len, "an unknown address");
}

enum MHD_Result kd_http_peer_admit(void *cls, const struct sockaddr *addr, socklen_t len)
{
    kd_mcp_http *h = cls;
    unsigned char key[16];
    char text[INET6_ADDRSTRLEN + 32];
    kd_http_peer *p;
    unsigned n;
    int family;

    (void)len;
    if (kd_http_addr_key(addr, &family, key) != 0 || (is_loopback(family, key) && !h->limit_loopback))
        return MHD_YES;
    pthread_mutex_lock(&h->conns_lock);
    p = peer_find_locked(h, family, key);
    n = p != NULL ? p->n : 0;
    pthread_mutex_unlock(&h->conns_lock);
    if (n < h->per_address)
        return MHD_YES;
    addr_text(family, key, text, sizeof text);
    KD_LOG_LIMITED(&h->log_refused, KD_LOG_WARN, "mcp",
                   "http: refused a connection from %s: it holds %u connections, the per-address limit", text, n);
    return MHD_NO;
}

/* Counts `k` to its address (under conns_lock) unless it is exempt; out
 * of memory, the connection goes uncounted. */
static void peer_count_locked(kd_mcp_http *h, kd_http_conn *k)
{
    kd_http_peer *p;

    if (k->family == 0 || (is_loopback(k->family, k->addr) && !h->limit_loopback))
        return;
    if ((p = peer_find_locked(h, k->family, k->addr)) == NULL && (p = calloc(1, sizeof *p)) != NULL) {
        p->family = k->family;
        memcpy(p->addr, k->addr, 16);
        p->next = h->peers;
        h->peers = p;
    }
    if (p != NULL)
        p->n++;
    k->peer = p;
}

static void peer_uncount_locked(kd_mcp_http *h, kd_http_conn *k)
{
    kd_http_peer *p = k->peer, **pp;

    if (p == NULL)
        return;
    k->peer = NULL;
    if (--p->n > 0)
        return;
    for (pp = &h->peers; *pp != p; pp = &(*pp)->next)
        ;
    *pp = p->next;
    free(p);
}

/* ---- the lists --------------------------------------------------------- */

static void now_mono(struct timespec *t) { clock_gettime(CLOCK_MONOTONIC, t); }

static long ms_between(const struct timespec *a, const struct timespec *b)
{
    return (long)(b->tv_sec - a->tv_sec) * 1000L + (b->tv_nsec - a->tv_nsec) / 1000000L;
}

/* Starts `k`'s wait now: the newest on the waiting list, and on the
 * strangers' unless it is known as a granted client's. */
static void wait_locked(kd_mcp_http *h, kd_http_conn *k)
{
    now_mono(&k->since);
    k->waiting = 1;
    k->next = NULL;
    k->prev = h->waiting_tail[k->returning];
    *(k->prev != NULL ? &k->prev->next : &h->waiting_head[k->returning]) = k;
    h->waiting_tail[k->returning] = k;
    if (k->granted)
        return;
    k->stranger = 1;
    k->snext = NULL;
    k->sprev = h->strangers_tail[k->returning];
    *(k->sprev != NULL ? &k->sprev->snext : &h->strangers_head[k->returning]) = k;
    h->strangers_tail[k->returning] = k;
    h->n_strangers[k->returning]++;
}

static void unlink_stranger_locked(kd_mcp_http *h, kd_http_conn *k)
{
    if (!k->stranger)
        return;
    *(k->sprev != NULL ? &k->sprev->snext : &h->strangers_head[k->returning]) = k->snext;
    *(k->snext != NULL ? &k->snext->sprev : &h->strangers_tail[k->returning]) = k->sprev;
    k->sprev = k->snext = NULL;
    k->stranger = 0;
    h->n_strangers[k->returning]--;
}

static void unlink_waiting_locked(kd_mcp_http *h, kd_http_conn *k)
{
    unlink_stranger_locked(h, k);
    if (!k->waiting)
        return;
    *(k->prev != NULL ? &k->prev->next : &h->waiting_head[k->returning]) = k->next;
    *(k->next != NULL ? &k->next->prev : &h->waiting_tail[k->returning]) = k->prev;
    k->prev = k->next = NULL;
    k->waiting = 0;
}

static void uncount_locked(kd_mcp_http *h, kd_http_conn *k)
{
    if (k->cls >= 0)
        h->n_class[k->cls]--;
    k->cls = -1;
}

/* Closes `k` (its polling thread reads the end of its stream and closes
 * it); it leaves the lists at once. */
static void close_locked(kd_mcp_http *h, kd_http_conn *k)
{
    unlink_waiting_locked(h, k);
    if (k->closing)
        return;
    k->closing = 1;
    (void)shutdown(k->fd, SHUT_RDWR);
}

/* The record of `c` (kd_http_conn_notify made it), or NULL. */
static kd_http_conn *conn_of(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

    return info != NULL ? info->socket_context : NULL;
}

/* 1 when `k` has waited at least GRACE_MS at `now`: a newcomer may close
 * it to make room. */
static int old_enough(const kd_mcp_http *h, const kd_http_conn *k, const struct timespec *now)
{
    return ms_between(&k->since, now) >= (long)h->grace_ms;
}

/* Closes the oldest strangers of each list beyond max_waiting on it that
 * have had their grace (never `keep`); the number closed. A list makes
 * room among its own: a flood of fresh connections never closes a
 * client's pooled one under its next request. */
static unsigned shed_locked(kd_mcp_http *h, const kd_http_conn *keep, const struct timespec *now)
{
    kd_http_conn *k;
    unsigned n = 0;
    int i;

    for (i = 0; i < 2; i++)
        while (h->n_strangers[i] > h->max_waiting && (k = h->strangers_head[i]) != NULL && k != keep &&
               old_enough(h, k, now)) {
            close_locked(h, k);
            n++;
        }
    return n;
}

/* ---- libmicrohttpd's notifications ------------------------------------- */

/* A new connection: counted to its address, waiting as a stranger; the
 * oldest strangers beyond max_waiting are closed to make room. */
static kd_http_conn *conn_started(kd_mcp_http *h, struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *info;
    kd_http_conn *k;
    unsigned shed;
    char text[INET6_ADDRSTRLEN + 32];

    if ((k = calloc(1, sizeof *k)) == NULL)
        return NULL; /* out of memory: this connection goes untracked */
    k->cls = -1;
    info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    k->fd = info != NULL ? info->connect_fd : -1;
    info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || kd_http_addr_key(info->client_addr, &k->family, k->addr) != 0)
        k->family = 0;
    pthread_mutex_lock(&h->conns_lock);
    peer_count_locked(h, k);
    wait_locked(h, k);
    shed = shed_locked(h, k, &k->since);
    pthread_mutex_unlock(&h->conns_lock);
    if (shed > 0) {
        addr_text(k->family, k->addr, text, sizeof text);
        KD_LOG_LIMITED(&h->log_conns, KD_LOG_INFO, "mcp",
                       "http: closed the oldest connection waiting for a request to make room for one from %s "
                       "(connections waiting without a token: %u at most)",
                       text, h->max_waiting);
    }
    return k;
}

static void conn_closed(kd_mcp_http *h, kd_http_conn *k)
{
    pthread_mutex_lock(&h->conns_lock);
    unlink_waiting_locked(h, k);
    uncount_locked(h, k);
    peer_uncount_locked(h, k);
    pthread_mutex_unlock(&h->conns_lock);
    free(k);
}

void kd_http_conn_notify(void *cls, struct MHD_Connection *c, void **socket_context,
                         enum MHD_ConnectionNotificationCode code)
{
    kd_mcp_http *h = cls;

    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        *socket_context = conn_started(h, c);
        return;
    }
    if (*socket_context != NULL)
        conn_closed(h, *socket_context);
    *socket_context = NULL;
}

/* ---- a request's course ------------------------------------------------ */

int kd_http_conn_identify(kd_mcp_http *h, struct MHD_Connection *c, kd_http_class cls, int holds)
{
    kd_http_conn *k = conn_of(c);
    unsigned held = 0;
    int ok = 1;

    if (k == NULL)
        return 0;
    pthread_mutex_lock(&h->conns_lock);
    unlink_stranger_locked(h, k);
    uncount_locked(h, k);
    if (holds && h->max_class[cls] > 0 && h->n_class[cls] >= h->max_class[cls]) {
        held = h->n_class[cls];
        ok = 0;
    } else {
        k->cls = (int)cls;
        h->n_class[cls]++;
    }
    k->granted = cls == KD_HTTP_GRANTED;
    pthread_mutex_unlock(&h->conns_lock);
    if (!ok)
        KD_LOG_LIMITED(&h->log_conns, KD_LOG_WARN, "mcp",
                       "http: refused a %s request: %u connections serve %s requests, the share of the clients "
                       "without a token",
                       CLASS_NAMES[cls], held, CLASS_NAMES[cls]);
    return ok ? 0 : -1;
}

void kd_http_conn_served(kd_mcp_http *h, struct MHD_Connection *c)
{
    kd_http_conn *k = conn_of(c);

    if (k == NULL)
        return;
    pthread_mutex_lock(&h->conns_lock);
    unlink_waiting_locked(h, k);
    pthread_mutex_unlock(&h->conns_lock);
}

void kd_http_conn_ended(kd_mcp_http *h, struct MHD_Connection *c)
{
    kd_http_conn *k = conn_of(c);

    if (k == NULL)
        return;
    pthread_mutex_lock(&h->conns_lock);
    uncount_locked(h, k);
    unlink_waiting_locked(h, k);
    k->returning = 1;
    if (!k->closing)
        wait_locked(h, k);
    pthread_mutex_unlock(&h->conns_lock);
}

long kd_http_conns_sweep(kd_mcp_http *h, long cap_ms)
{
    struct timespec now;
    kd_http_conn *k;
    unsigned closed = 0, shed;
    long left = cap_ms;
    int i;
    char text[INET6_ADDRSTRLEN + 32] = "";

    /* A connection may start waiting at any moment, due a whole deadline
     * or grace later: a look every SWEEP_PARTS-th of the shorter closes it
     * within that part of it. */
    if (cap_ms > (long)(h->grace_ms < h->request_ms ? h->grace_ms : h->request_ms) / SWEEP_PARTS)
        cap_ms = (long)(h->grace_ms < h->request_ms ? h->grace_ms : h->request_ms) / SWEEP_PARTS;
    if (cap_ms < 1)
        cap_ms = 1;
    now_mono(&now);
    pthread_mutex_lock(&h->conns_lock);
    for (i = 0; i < 2; i++) {
        long allowed = (long)h->request_ms + (i ? (long)h->kept_ms : 0);

        while ((k = h->waiting_head[i]) != NULL && (left = allowed - ms_between(&k->since, &now)) <= 0) {
            if (closed++ == 0)
                addr_text(k->family, k->addr, text, sizeof text);
            close_locked(h, k);
        }
        if (k != NULL && left < cap_ms)
            cap_ms = left;
    }
    shed = shed_locked(h, NULL, &now);
    pthread_mutex_unlock(&h->conns_lock);
    if (shed > 0)
        KD_LOG_LIMITED(&h->log_conns, KD_LOG_INFO, "mcp",
                       "http: closed the %u oldest connections waiting for a request to make room (connections "
                       "waiting without a token: %u at most)",
                       shed, h->max_waiting);
    if (closed > 0)
        KD_LOG_LIMITED(&h->log_conns, KD_LOG_INFO, "mcp",
                       "http: closed %u connection%s (the first from %s) that had not sent a whole request within "
                       "%u ms of its opening, or of its previous answer and the %u ms a kept-alive one may idle",
                       closed, closed > 1 ? "s" : "", text, h->request_ms, h->kept_ms);
    return cap_ms;
}

void kd_http_conns_fini(kd_mcp_http *h)
{
    kd_http_peer *p, *next;

    for (p = h->peers; p != NULL; p = next) {
        next = p->next;
        free(p);
    }
    h->peers = NULL;
}
