/*
 * bench_mcp_flood.c — the slowloris scenario of `kdapp bench` (issue 37,
 * R4): how long a granted agent's tool call takes while 1,010 tokenless
 * sockets from loopback each send one header line every 8 s, against
 * `kdapp mcp --http` as an operator starts it (the defaults: 1,000
 * connections, a 10 s request deadline).
 *
 * The flood runs on a thread of its own, polling its sockets: each sends a
 * request line and Host at once, then one header line every 8 s; a socket
 * the gateway closes is opened again a second later, so that the flood
 * holds its 1,010 sockets as long as the gateway lets it. The agent
 * (agent1's grant, its token read from the gateway's output) calls
 * kdapp_get_strategy_context on a new connection each time, the worst case
 * under the flood (a connection kept alive is no stranger), first without
 * the flood, then beside it for the hold. Figures, not a paired
 * comparison: the quiet calls are the reference.
 */
#include <curl/curl.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tools/bench/bench_mcp_int.h"

#define TRICKLERS 1010
#define LINE_EVERY_S 8.0
#define REOPEN_S 1.0
#define HOLD_S 30.0      /* three request deadlines [--quick: 3] */
#define CALL_EVERY_S 0.1 /* the agent's pace */
#define FD_ROOM 4096     /* the descriptors the flood and the gateway need */
#define BODY_KEEP 512

/* ----------------------------------------------------------- the flood */

typedef struct {
    int fd; /* -1: closed (reopened at reopen_at) */
    int connected;
    unsigned lines;
    double next_line, reopen_at;
} trickler;

typedef struct {
    uint16_t port;
    trickler t[TRICKLERS];
    struct pollfd pfd[TRICKLERS];
    int map[TRICKLERS];
    atomic_int stop;
    atomic_size_t opened, closed; /* connections opened; closed by the gateway */
    pthread_t thread;
} flood;

static void trickler_open(flood *fl, trickler *t)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(fl->port)};

    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    t->connected = 0;
    t->lines = 0;
    t->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (t->fd < 0) {
        t->reopen_at = kd_bench_now() + REOPEN_S;
        return;
    }
    if (connect(t->fd, (struct sockaddr *)&a, sizeof a) != 0 && errno != EINPROGRESS) {
        close(t->fd);
        t->fd = -1;
        t->reopen_at = kd_bench_now() + REOPEN_S;
        return;
    }
    atomic_fetch_add(&fl->opened, 1);
}

static void trickler_closed(flood *fl, trickler *t, double now)
{
    close(t->fd);
    t->fd = -1;
    t->reopen_at = now + REOPEN_S;
    atomic_fetch_add(&fl->closed, 1);
}

/* One header line when it is due (the request line and Host first). */
static void trickler_line(trickler *t, double now)
{
    char line[64];
    int n;

    if (!t->connected || now < t->next_line)
        return;
    n = t->lines == 0 ? snprintf(line, sizeof line, "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                      : snprintf(line, sizeof line, "X-Trickle-%u: x\r\n", t->lines);
    (void)send(t->fd, line, (size_t)n, MSG_NOSIGNAL); /* a closed one shows at the next poll */
    t->lines++;
    t->next_line = now + LINE_EVERY_S;
}

static void *flood_main(void *arg)
{
    flood *fl = arg;
    char buf[512];

    for (size_t i = 0; i < TRICKLERS; i++)
        trickler_open(fl, &fl->t[i]);
    while (!atomic_load(&fl->stop)) {
        nfds_t n = 0;
        for (int i = 0; i < TRICKLERS; i++) {
            if (fl->t[i].fd < 0)
                continue;
            fl->pfd[n] = (struct pollfd){.fd = fl->t[i].fd, .events = fl->t[i].connected ? POLLIN : POLLOUT};
            fl->map[n++] = i;
        }
        int ready = poll(fl->pfd, n, 100);
        double now = kd_bench_now();
        for (nfds_t k = 0; ready > 0 && k < n; k++) {
            trickler *t = &fl->t[fl->map[k]];
            short ev = fl->pfd[k].revents;
            if (!ev)
                continue;
            if (!t->connected && (ev & POLLOUT) && !(ev & (POLLERR | POLLHUP))) {
                t->connected = 1;
                t->next_line = now;
                continue;
            }
            ssize_t got = (ev & POLLIN) ? recv(t->fd, buf, sizeof buf, MSG_DONTWAIT) : 0;
            if (got <= 0 && !(got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)))
                trickler_closed(fl, t, now);
        }
        for (int i = 0; i < TRICKLERS; i++) {
            trickler *t = &fl->t[i];
            if (t->fd >= 0)
                trickler_line(t, now);
            else if (now >= t->reopen_at)
                trickler_open(fl, t);
        }
    }
    for (int i = 0; i < TRICKLERS; i++)
        if (fl->t[i].fd >= 0)
            close(fl->t[i].fd);
    return NULL;
}

/* ----------------------------------------------------------- the agent */

typedef struct {
    char url[64], auth[128], sid[128];
    char body[BODY_KEEP + 1];
    size_t body_len;
} agent;

static size_t agent_body(char *p, size_t size, size_t n, void *arg)
{
    agent *a = arg;
    size_t len = size * n, room = BODY_KEEP - a->body_len, k = len < room ? len : room;
    memcpy(a->body + a->body_len, p, k);
    a->body_len += k;
    a->body[a->body_len] = '\0';
    return len;
}

static size_t agent_header(char *p, size_t size, size_t n, void *arg)
{
    agent *a = arg;
    size_t len = size * n;
    static const char name[] = "Mcp-Session-Id:";
    if (len > sizeof name && strncasecmp(p, name, sizeof name - 1) == 0) {
        const char *v = p + sizeof name - 1;
        while (*v == ' ')
            v++;
        snprintf(a->sid, sizeof a->sid, "%.*s", (int)strcspn(v, "\r\n"), v);
    }
    return len;
}

/* One POST of `body` on a new connection; its HTTP status (0: none). */
static long agent_post(agent *a, const char *body)
{
    char sid[160];
    struct curl_slist *h = NULL;
    long status = 0;
    CURL *c = curl_easy_init();

    if (!c)
        return 0;
    h = curl_slist_append(h, "Content-Type: application/json");
    h = curl_slist_append(h, "Accept: application/json, text/event-stream");
    h = curl_slist_append(h, a->auth);
    if (a->sid[0]) {
        snprintf(sid, sizeof sid, "Mcp-Session-Id: %s", a->sid);
        h = curl_slist_append(h, sid);
    }
    a->body_len = 0;
    a->body[0] = '\0';
    curl_easy_setopt(c, CURLOPT_URL, a->url);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, agent_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, a);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, agent_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, a);
    curl_easy_setopt(c, CURLOPT_FRESH_CONNECT, 1L);
    curl_easy_setopt(c, CURLOPT_FORBID_REUSE, 1L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)(KD_BENCH_CALL_S * 1000));
    if (curl_easy_perform(c) == CURLE_OK)
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    return status;
}

/* Calls for `secs` seconds, one every CALL_EVERY_S; each call's seconds
 * into `lat` (a kd_buf of doubles). 0, or -1 with why. */
static int agent_calls(agent *a, uint32_t episode, double secs, kd_buf *lat, char *why, size_t why_len)
{
    char call[160];
    double end = kd_bench_now() + secs;

    snprintf(call, sizeof call,
             "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"" KD_BENCH_TOOL
             "\",\"arguments\":{\"episode_id\":%u}}}",
             episode);
    lat->len = 0;
    while (kd_bench_now() < end) {
        double t = kd_bench_now();
        long status = agent_post(a, call);
        double s = kd_bench_now() - t;
        if (status != 200 || strstr(a->body, "\"isError\":true")) {
            snprintf(why, why_len, "a granted call answered %ld after %.0f ms: %.200s", status, s * 1000, a->body);
            return -1;
        }
        if (kd_buf_append(lat, &s, sizeof s) != KD_OK) {
            snprintf(why, why_len, "out of memory");
            return -1;
        }
        kd_bench_sleep(CALL_EVERY_S); /* the agent's pace */
    }
    return 0;
}

/* The token the gateway printed for `grant` in its log. 0, or -1. */
static int grant_token(const char *log, const char *grant, char *out, size_t len)
{
    char line[512], want[96];
    FILE *f = fopen(log, "r");
    int found = -1;

    snprintf(want, sizeof want, "grant %s token ", grant);
    while (f && found && fgets(line, sizeof line, f))
        if (strncmp(line, want, strlen(want)) == 0) {
            snprintf(out, len, "%.*s", (int)strcspn(line + strlen(want), "\r\n"), line + strlen(want));
            found = 0;
        }
    if (f)
        fclose(f);
    return found;
}

static void figures(const kd_bench_ctx *b, const char *id, const char *what, kd_buf *lat)
{
    double q[3], *s = (double *)lat->data;
    size_t n = lat->len / sizeof *s;
    char key[64], name[160];

    kd_bench_quantiles_us(s, n, q);
    snprintf(key, sizeof key, "http.%s_p50_ms", id);
    snprintf(name, sizeof name, "%s: p50 of %zu calls", what, n);
    kd_bench_figure(b, key, name, q[0] / 1000, "ms", NULL);
    snprintf(key, sizeof key, "http.%s_p99_ms", id);
    snprintf(name, sizeof name, "%s: p99", what);
    kd_bench_figure(b, key, name, q[1] / 1000, "ms", NULL);
    snprintf(key, sizeof key, "http.%s_max_ms", id);
    snprintf(name, sizeof name, "%s: max", what);
    kd_bench_figure(b, key, name, q[2] / 1000, "ms", NULL);
}

/* The percentage of the calls in `lat` that took at most `limit_s`. */
static double within_pct(const kd_buf *lat, double limit_s)
{
    const double *s = (const double *)lat->data;
    size_t i, n = lat->len / sizeof *s, in = 0;

    for (i = 0; i < n; i++)
        in += s[i] <= limit_s;
    return n ? 100.0 * (double)in / (double)n : 0.0;
}

int kd_bench_mcp_flood(const kd_bench_ctx *b, kd_bench_fixture *f)
{
    static flood fl;
    char why[320] = "", *argv[12], log[640], token[80];
    agent a = {0};
    kd_bench_proc gw;
    kd_buf lat;
    struct rlimit rl;
    int k = 0, started = 0, missed = 0;

    kd_bench_heading(b, "MCP over HTTP beside a slowloris flood (issue 37, R4)");
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < FD_ROOM && rl.rlim_max > rl.rlim_cur) {
        rl.rlim_cur = rl.rlim_max < FD_ROOM ? rl.rlim_max : FD_ROOM;
        (void)setrlimit(RLIMIT_NOFILE, &rl); /* the gateway inherits it */
    }
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur < FD_ROOM) {
        kd_bench_note(b, "flood: skipped: it needs %d open files (ulimit -n)", FD_ROOM);
        return 0;
    }
    kd_buf_init(&lat);
    kd_bench_proc_init(&gw);
    snprintf(log, sizeof log, "%s/flood.log",
             f->dir); /* a log of its own: the port and token lines are this gateway's */
    argv[k++] = (char *)b->kdapp_path;
    argv[k++] = "mcp";
    argv[k++] = "--http";
    argv[k++] = "127.0.0.1:0";
    argv[k++] = "--grant";
    argv[k++] = "agent1";
    argv[k++] = "--data";
    argv[k++] = f->data;
    argv[k++] = "--keys";
    argv[k++] = f->keys;
    argv[k] = NULL;
    static const char *const env[] = {"KDAPP_MCP_CALLS_PER_S=100000", NULL};
    uint16_t port = 0;
    if (kd_bench_proc_spawn(&gw, argv, env, log, 0) != 0 || !(port = kd_bench_http_port(&gw, log, KD_BENCH_START_S)) ||
        grant_token(log, "agent1", token, sizeof token) != 0) {
        snprintf(why, sizeof why, "kdapp mcp --http --grant agent1 did not start or print its token");
        goto failed;
    }
    snprintf(a.auth, sizeof a.auth, "Authorization: Bearer %s", token);
    snprintf(a.url, sizeof a.url, "http://127.0.0.1:%u/mcp", port);
    if (agent_post(&a, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                       "\"" KD_BENCH_PROTOCOL
                       "\",\"capabilities\":{},\"clientInfo\":{\"name\":\"bench-agent\",\"version\":\"1\"}}}") != 200 ||
        !a.sid[0] || agent_post(&a, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}") != 202) {
        snprintf(why, sizeof why, "the granted agent's initialize failed: %.200s", a.body);
        goto failed;
    }
    double hold = b->quick ? 3.0 : HOLD_S;
    if (agent_calls(&a, f->episode, b->quick ? 1.0 : 5.0, &lat, why, sizeof why) != 0)
        goto failed;
    figures(b, "flood_quiet", "a granted call on a new connection, no flood", &lat);

    memset(&fl, 0, sizeof fl);
    fl.port = port;
    if (pthread_create(&fl.thread, NULL, flood_main, &fl) != 0) {
        snprintf(why, sizeof why, "cannot start the flood's thread");
        goto failed;
    }
    started = 1;
    kd_bench_sleep(1.0); /* the flood connects (a second: its first sockets are closed and opened again) */
    if (agent_calls(&a, f->episode, hold, &lat, why, sizeof why) != 0)
        goto failed;
    figures(b, "flood", "a granted call on a new connection beside 1,010 trickling sockets", &lat);
    kd_bench_figure(b, "http.flood_within_1s_pct", "of them answered within 1 s (issue 37's bar)",
                    within_pct(&lat, 1.0), "%", NULL);
    kd_bench_note(b,
                  "the flood: 1,010 tokenless loopback sockets, a header line every %.0f s each, reopened %.0f s "
                  "after the gateway closes one: %zu connections opened, %zu closed by the gateway in %.0f s",
                  LINE_EVERY_S, REOPEN_S, atomic_load(&fl.opened), atomic_load(&fl.closed), hold + 1.0);
    goto done;
failed:
    kd_bench_note(b, "flood: failed: %s", why);
    kd_bench_show_log(log);
    missed = 1;
done:
    if (started) {
        atomic_store(&fl.stop, 1);
        pthread_join(fl.thread, NULL);
    }
    kd_bench_proc_stop(&gw, 1);
    kd_buf_fini(&lat);
    return missed;
}
