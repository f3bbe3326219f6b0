/*
 * bench_http.c — many MCP sessions and event streams over HTTP on libcurl's
 * multi interface (bench_http.h).
 *
 * One easy handle per stream walks its steps; a finished transfer moves it
 * to the next one, the last never finishes while the gateway lives:
 *
 *   POST initialize ─▶ POST initialized ─▶ POST subscribe ─▶ GET (event stream)
 *   (Mcp-Session-Id)     (202)               (200)             open at its 200 head
 *
 * libcurl tells the client which sockets to watch (socket callback → the
 * epoll set) and when to run its timers (timer callback); kd_bench_http_run
 * hands each ready socket to curl_multi_socket_action, so a wake-up costs
 * the ready sockets' work, never a walk over every stream.
 */
#define _GNU_SOURCE /* memmem */

#include "tools/bench/bench_http.h"

#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "tools/bench/bench.h"
#include "tools/bench/bench_mcp_int.h" /* kd_bench_call_line, KD_BENCH_TOOL, KD_BENCH_CALL_S */
#include "tools/bench/bench_proc.h"

#define PARALLEL 64 /* sessions in setup at once */
#define EVENTS 256  /* epoll events taken per wake-up */
#define MARK_MCP "notifications/resources/updated"
#define BODY_KEEP 240 /* bytes of a setup answer kept for an error message */

#define MARK_ISERROR "\"isError\":true" /* counted on call answers */

enum { STEP_INIT, STEP_INITIALIZED, STEP_SUBSCRIBE, STEP_STREAM, STEP_CALL, STEP_DELETE };

typedef struct {
    kd_bench_marks st;
    kd_bench_http *h;
    CURL *easy;
    struct curl_slist *hdr;
    char url[96], sid[96], sub[320]; /* sub: the subscribe request, or the call's args */
    char call[320];
    int step, open, index;
    long id;
    size_t made, warm, calls; /* calls answered; the warm-up and the timed ones (0: a stream) */
    double end;               /* when its last timed call was answered */
    char body[BODY_KEEP + 1];
    size_t body_len;
} conn;

struct kd_bench_http {
    CURLM *multi;
    int ep;
    long timeout_ms; /* libcurl's next timer, -1 none */
    double timer_at; /* when it falls due (kd_bench_now) */
    conn **c;
    size_t n, cap;
    size_t opening;  /* streams not yet open (callers: not yet warmed up) */
    size_t finished; /* callers done, DELETE answered */
    uint64_t want;
    size_t missing;
    double now; /* when the current wake-up began */
    int failed;
    char why[512];
};

/* ------------------------------------------------------- the counting */

void kd_bench_marks_init(kd_bench_marks *m, const char *marker)
{
    memset(m, 0, sizeof *m);
    m->marker = marker;
}

size_t kd_bench_marks_feed(kd_bench_marks *s, const char *data, size_t n, double now)
{
    size_t m = strlen(s->marker), found = 0;
    char joined[128];
    /* the tail and the start of the new bytes: a marker across the seam */
    size_t head = n < m - 1 ? n : m - 1;
    memcpy(joined, s->tail, s->tail_len);
    memcpy(joined + s->tail_len, data, head);
    for (size_t i = 0; i + m <= s->tail_len + head; i++)
        found += i < s->tail_len && memcmp(joined + i, s->marker, m) == 0;
    for (const char *p = data; (p = memmem(p, n - (size_t)(p - data), s->marker, m)) != NULL; p += m)
        found++;
    /* keep the last m-1 bytes of tail+data */
    size_t total = s->tail_len + n, keep = total < m - 1 ? total : m - 1;
    if (n >= keep) {
        memcpy(s->tail, data + n - keep, keep);
    } else {
        size_t from_tail = keep - n;
        memmove(s->tail, s->tail + s->tail_len - from_tail, from_tail);
        memcpy(s->tail + from_tail, data, n);
    }
    s->tail_len = keep;
    s->count += found;
    if (found)
        s->last = now;
    return found;
}

int kd_bench_marks_drain(kd_bench_marks *m, int fd, double now)
{
    char buf[16384];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        if (n <= 0)
            return -1;
        kd_bench_marks_feed(m, buf, (size_t)n, now);
    }
}

static size_t on_body(char *data, size_t size, size_t nmemb, void *arg)
{
    conn *c = arg;
    size_t n = size * nmemb;
    if (c->step == STEP_STREAM) {
        uint64_t before = c->st.count, want = c->h->want;
        kd_bench_marks_feed(&c->st, data, n, c->h->now);
        if (before < want && c->st.count >= want && c->h->missing)
            c->h->missing--;
        return n;
    }
    if (c->step == STEP_CALL)
        kd_bench_marks_feed(&c->st, data, n, 0);
    size_t room = BODY_KEEP - c->body_len, k = n < room ? n : room;
    memcpy(c->body + c->body_len, data, k);
    c->body_len += k;
    c->body[c->body_len] = '\0';
    return n;
}

/* The value of an Mcp-Session-Id header line into sid: 1, else 0. */
static int session_header(const char *data, size_t n, char *sid, size_t cap)
{
    static const char name[] = "Mcp-Session-Id:";
    size_t h = sizeof name - 1;
    if (n <= h || strncasecmp(data, name, h) != 0)
        return 0;
    while (h < n && (data[h] == ' ' || data[h] == '\t'))
        h++;
    while (n > h && (data[n - 1] == '\r' || data[n - 1] == '\n' || data[n - 1] == ' '))
        n--;
    if (n - h >= cap)
        return 0;
    memcpy(sid, data + h, n - h);
    sid[n - h] = '\0';
    return 1;
}

/* Takes the session id; at the end of a GET's head, the stream is open. */
static size_t on_header(char *data, size_t size, size_t nmemb, void *arg)
{
    conn *c = arg;
    size_t n = size * nmemb;
    if (!session_header(data, n, c->sid, sizeof c->sid) && c->step == STEP_STREAM && !c->open && (n == 2 || n == 1) &&
        (data[0] == '\r' || data[0] == '\n')) {
        long status = 0;
        curl_easy_getinfo(c->easy, CURLINFO_RESPONSE_CODE, &status);
        if (status == 200) {
            c->open = 1;
            c->h->opening--;
        }
    }
    return n;
}

/* ----------------------------------------------------- libcurl's events */

static int on_socket(CURL *easy, curl_socket_t s, int what, void *arg, void *socketp)
{
    (void)easy;
    kd_bench_http *h = arg;
    if (what == CURL_POLL_REMOVE) {
        epoll_ctl(h->ep, EPOLL_CTL_DEL, s, NULL);
        curl_multi_assign(h->multi, s, NULL);
        return 0;
    }
    struct epoll_event ev = {.events = (what & CURL_POLL_IN ? EPOLLIN : 0u) | (what & CURL_POLL_OUT ? EPOLLOUT : 0u),
                             .data.fd = s};
    if (epoll_ctl(h->ep, socketp ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, s, &ev) != 0 && !h->failed) {
        h->failed = 1;
        snprintf(h->why, sizeof h->why, "epoll_ctl: %s", strerror(errno));
    }
    if (!socketp)
        curl_multi_assign(h->multi, s, h);
    return 0;
}

static int on_timer(CURLM *multi, long timeout_ms, void *arg)
{
    (void)multi;
    kd_bench_http *h = arg;
    h->timeout_ms = timeout_ms;
    h->timer_at = timeout_ms >= 0 ? kd_bench_now() + (double)timeout_ms / 1e3 : 0;
    return 0;
}

/* ------------------------------------------------------------ the steps */

/* Sets up `c`'s next transfer and adds it to the multi handle. 0 or -1. */
static int step_start(conn *c)
{
    static const char init[] =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"" KD_BENCH_PROTOCOL
        "\",\"capabilities\":{},\"clientInfo\":{\"name\":\"kdapp-bench\",\"version\":\"0.1.0\"}}}";
    static const char done[] = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";
    char sid[160];
    curl_slist_free_all(c->hdr);
    c->hdr = NULL;
    c->body_len = 0;
    c->body[0] = '\0';
    if (c->sid[0]) {
        snprintf(sid, sizeof sid, "Mcp-Session-Id: %s", c->sid);
        if (!(c->hdr = curl_slist_append(c->hdr, sid)) ||
            !(c->hdr = curl_slist_append(c->hdr, "MCP-Protocol-Version: " KD_BENCH_PROTOCOL)))
            return -1;
    }
    CURL *e = c->easy;
    if (c->step == STEP_DELETE) {
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, "DELETE");
        curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
    } else if (c->step == STEP_STREAM) {
        if (!(c->hdr = curl_slist_append(c->hdr, "Accept: text/event-stream")))
            return -1;
        curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
    } else {
        const char *body = c->step == STEP_INIT ? init : c->step == STEP_INITIALIZED ? done : c->sub;
        if (c->step == STEP_CALL && kd_bench_call_line(c->call, sizeof c->call, c->id++, KD_BENCH_TOOL, c->sub))
            body = c->call;
        if (!(c->hdr = curl_slist_append(c->hdr, "Content-Type: application/json")) ||
            !(c->hdr = curl_slist_append(c->hdr, "Accept: application/json, text/event-stream")))
            return -1;
        curl_easy_setopt(e, CURLOPT_POSTFIELDS, body);
    }
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, c->hdr);
    return curl_multi_add_handle(c->h->multi, e) == CURLM_OK ? 0 : -1;
}

static void fail(kd_bench_http *h, const conn *c, const char *what)
{
    if (h->failed)
        return;
    h->failed = 1;
    snprintf(h->why, sizeof h->why, "stream %d (%s): %s%s%.160s", c->index + 1, c->url, what, c->body_len ? ": " : "",
             c->body);
}

/* A transfer ended: the next step, or the failure of the stream. */
static void step_done(kd_bench_http *h, conn *c, CURLcode rc)
{
    long status = 0;
    curl_easy_getinfo(c->easy, CURLINFO_RESPONSE_CODE, &status);
    curl_multi_remove_handle(h->multi, c->easy);
    if (c->step == STEP_DELETE) {
        h->finished++;
        return;
    }
    if (c->step == STEP_STREAM) {
        fail(h, c,
             rc != CURLE_OK  ? curl_easy_strerror(rc)
             : status != 200 ? "the GET was refused"
                             : "the stream ended");
        return;
    }
    if (rc != CURLE_OK) {
        fail(h, c, curl_easy_strerror(rc));
        return;
    }
    if ((status != 200 && status != 202) ||
        (c->step == STEP_CALL ? c->st.count || !strstr(c->body, "\"result\":") : !!strstr(c->body, "\"error\":"))) {
        char what[64];
        if (c->step == STEP_CALL && c->st.count)
            snprintf(what, sizeof what, "call %zu was answered with isError", c->made + 1);
        else
            snprintf(what, sizeof what, "step %d answered HTTP %ld", c->step + 1, status);
        fail(h, c, what);
        return;
    }
    if (c->step == STEP_INIT && !c->sid[0]) {
        fail(h, c, "initialize was answered without Mcp-Session-Id");
        return;
    }
    if (c->step == STEP_CALL) {
        if (++c->made == c->warm) { /* parked until every caller is warm */
            h->opening--;
            return;
        }
        if (c->made == c->warm + c->calls) {
            c->end = kd_bench_now();
            c->step = STEP_DELETE; /* end the session: repeats stay under the session limit */
        }
    } else {
        c->step = c->step == STEP_INITIALIZED && c->calls ? STEP_CALL : c->step + 1;
    }
    if (step_start(c) != 0)
        fail(h, c, "out of memory");
}

/* Hands the finished transfers to step_done. */
static void take_done(kd_bench_http *h)
{
    CURLMsg *m;
    int left;
    while ((m = curl_multi_info_read(h->multi, &left)) != NULL) {
        if (m->msg != CURLMSG_DONE)
            continue;
        conn *c = NULL;
        CURLcode rc = m->data.result;
        curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&c);
        if (c)
            step_done(h, c, rc);
    }
}

/* --------------------------------------------------------------- public */

kd_bench_http *kd_bench_http_alloc(void)
{
    kd_bench_http *h = calloc(1, sizeof *h);
    if (!h)
        return NULL;
    h->ep = -1;
    h->timeout_ms = -1;
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        free(h);
        return NULL;
    }
    if (!(h->multi = curl_multi_init()) || (h->ep = epoll_create1(EPOLL_CLOEXEC)) < 0) {
        kd_bench_http_free(h);
        return NULL;
    }
    curl_multi_setopt(h->multi, CURLMOPT_SOCKETFUNCTION, on_socket);
    curl_multi_setopt(h->multi, CURLMOPT_SOCKETDATA, h);
    curl_multi_setopt(h->multi, CURLMOPT_TIMERFUNCTION, on_timer);
    curl_multi_setopt(h->multi, CURLMOPT_TIMERDATA, h);
    return h;
}

void kd_bench_http_free(kd_bench_http *h)
{
    if (!h)
        return;
    for (size_t i = 0; i < h->n; i++) {
        conn *c = h->c[i];
        if (h->multi)
            curl_multi_remove_handle(h->multi, c->easy);
        curl_easy_cleanup(c->easy);
        curl_slist_free_all(c->hdr);
        free(c);
    }
    free(h->c);
    if (h->multi)
        curl_multi_cleanup(h->multi);
    if (h->ep >= 0)
        close(h->ep);
    curl_global_cleanup();
    free(h);
}

/* A new stream on `port` (not yet started); NULL when out of memory. */
static conn *conn_new(kd_bench_http *h, uint16_t port, const char *path, const char *marker)
{
    if (h->n == h->cap) {
        size_t cap = h->cap ? 2 * h->cap : 64;
        conn **nc = realloc(h->c, cap * sizeof *nc);
        if (!nc)
            return NULL;
        h->c = nc, h->cap = cap;
    }
    conn *c = calloc(1, sizeof *c);
    if (!c || !(c->easy = curl_easy_init())) {
        free(c);
        return NULL;
    }
    c->h = h;
    kd_bench_marks_init(&c->st, marker);
    c->index = (int)h->n;
    snprintf(c->url, sizeof c->url, "http://127.0.0.1:%u%s", port, path);
    curl_easy_setopt(c->easy, CURLOPT_URL, c->url);
    curl_easy_setopt(c->easy, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c->easy, CURLOPT_WRITEDATA, c);
    curl_easy_setopt(c->easy, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c->easy, CURLOPT_HEADERDATA, c);
    curl_easy_setopt(c->easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c->easy, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(c->easy, CURLOPT_PRIVATE, c);
    curl_easy_setopt(c->easy, CURLOPT_CONNECTTIMEOUT_MS, (long)(KD_BENCH_START_S * 1000));
    h->c[h->n++] = c;
    h->opening++;
    return c;
}

/* Runs until no stream is opening, starting those from `next` as room
 * frees up. 0, or -1 with `why`. */
static int open_pending(kd_bench_http *h, size_t next, double deadline, char *why, size_t why_len)
{
    while (h->opening) {
        size_t setting_up = h->opening - (h->n - next); /* started, not yet open */
        while (next < h->n && setting_up < PARALLEL) {
            if (step_start(h->c[next]) != 0) {
                snprintf(why, why_len, "stream %zu: out of memory", next + 1);
                return -1;
            }
            next++, setting_up++;
        }
        double left = deadline - kd_bench_now();
        if (left <= 0) {
            snprintf(why, why_len, "%zu of %zu streams were not open in time", h->opening, h->n);
            return -1;
        }
        if (kd_bench_http_run(h, left < 0.05 ? left : 0.05, why, why_len) != 0)
            return -1;
    }
    return 0;
}

int kd_bench_http_sessions(kd_bench_http *h, uint16_t port, size_t n, const char *uri, double deadline, char *why,
                           size_t why_len)
{
    size_t first = h->n;
    for (size_t i = 0; i < n; i++) {
        conn *c = conn_new(h, port, "/mcp", MARK_MCP);
        if (!c) {
            snprintf(why, why_len, "out of memory for session %zu", i + 1);
            return -1;
        }
        snprintf(c->sub, sizeof c->sub,
                 "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/subscribe\",\"params\":{\"uri\":\"%s\"}}", uri);
    }
    return open_pending(h, first, deadline, why, why_len);
}

int kd_bench_http_calls(kd_bench_calls *k, char *why, size_t why_len)
{
    kd_bench_http *h = kd_bench_http_alloc();
    int rc = -1, warm = 0;
    if (!h || !k->sessions || k->sessions > PARALLEL || !k->warm || !k->calls) {
        snprintf(why, why_len, h ? "%u sessions (1 to %d) of at least one call" : "libcurl did not initialise",
                 k->sessions, PARALLEL);
        goto done;
    }
    for (unsigned i = 0; i < k->sessions; i++) {
        conn *c = conn_new(h, k->port, "/mcp", MARK_ISERROR);
        if (!c) {
            snprintf(why, why_len, "out of memory for session %u", i + 1);
            goto done;
        }
        c->id = KD_BENCH_ID_BASE, c->warm = k->warm, c->calls = k->calls;
        snprintf(c->sub, sizeof c->sub, "%s", k->args);
        curl_easy_setopt(c->easy, CURLOPT_TIMEOUT_MS, (long)(KD_BENCH_CALL_S * 1000));
    }
    double deadline = kd_bench_now() + KD_BENCH_START_S + (double)k->warm * KD_BENCH_CALL_S;
    if (open_pending(h, 0, deadline, why, why_len) != 0)
        goto done;
    warm = 1;
    if (k->on_warm)
        k->on_warm(k->ctx);
    k->start = k->end = kd_bench_now();
    for (size_t i = 0; i < h->n; i++)
        if (step_start(h->c[i]) != 0) {
            snprintf(why, why_len, "out of memory");
            goto done;
        }
    while (h->finished < h->n)
        if (kd_bench_http_run(h, 0.05, why, why_len) != 0)
            goto done;
    for (size_t i = 0; i < h->n; i++)
        k->end = h->c[i]->end > k->end ? h->c[i]->end : k->end;
    rc = 0;
done:
    if (!warm && k->on_warm)
        k->on_warm(k->ctx);
    kd_bench_http_free(h);
    return rc;
}

int kd_bench_http_events(kd_bench_http *h, uint16_t port, const char *path, const char *marker, double deadline,
                         char *why, size_t why_len)
{
    size_t first = h->n;
    conn *c = conn_new(h, port, path, marker);
    if (!c) {
        snprintf(why, why_len, "out of memory");
        return -1;
    }
    c->step = STEP_STREAM;
    return open_pending(h, first, deadline, why, why_len);
}

size_t kd_bench_http_count(const kd_bench_http *h) { return h->n; }

const kd_bench_marks *kd_bench_http_stream(const kd_bench_http *h, size_t i) { return &h->c[i]->st; }

void kd_bench_http_recount(kd_bench_http *h, uint64_t count)
{
    for (size_t i = 0; i < h->n; i++)
        h->c[i]->st.count = count;
}

size_t kd_bench_http_expect(kd_bench_http *h, uint64_t want)
{
    h->want = want;
    h->missing = 0;
    for (size_t i = 0; i < h->n; i++)
        h->missing += h->c[i]->st.count < want;
    return h->missing;
}

size_t kd_bench_http_missing(const kd_bench_http *h) { return h->missing; }

int kd_bench_http_fd(const kd_bench_http *h) { return h->ep; }

int kd_bench_http_run(kd_bench_http *h, double wait_s, char *why, size_t why_len)
{
    struct epoll_event ev[EVENTS];
    int running = 0;
    double timer_left = h->timeout_ms >= 0 ? h->timer_at - kd_bench_now() : wait_s;
    double wait = timer_left < wait_s ? timer_left : wait_s;
    int n = epoll_wait(h->ep, ev, EVENTS, wait > 0 ? (int)(wait * 1000) + 1 : 0);
    h->now = kd_bench_now();
    if (n < 0 && errno != EINTR) {
        snprintf(why, why_len, "epoll: %s", strerror(errno));
        return -1;
    }
    for (int i = 0; i < n; i++) {
        int what = (ev[i].events & EPOLLIN ? CURL_CSELECT_IN : 0) | (ev[i].events & EPOLLOUT ? CURL_CSELECT_OUT : 0) |
                   (ev[i].events & (EPOLLERR | EPOLLHUP) ? CURL_CSELECT_ERR : 0);
        h->now = kd_bench_now(); /* each socket's bytes stamped when it is read: a stamp per socket, never per batch */
        curl_multi_socket_action(h->multi, ev[i].data.fd, what, &running);
    }
    if (h->timeout_ms >= 0 && h->now >= h->timer_at) {
        h->timeout_ms = -1;
        curl_multi_socket_action(h->multi, CURL_SOCKET_TIMEOUT, 0, &running);
    }
    take_done(h);
    if (h->failed) {
        snprintf(why, why_len, "%s", h->why);
        return -1;
    }
    return 0;
}
