/*
 * bench_latency_sessions.c — many MCP sessions on one HTTP gateway
 * (bench_latency_int.h): `kdapp mcp --http` attached to the hosted node,
 * with N sessions (1,000; 50 in --quick), each on a connection of its own,
 * initialized, subscribed to the one episode the chain plays (all share
 * it, so every block notifies every session), and with its GET event
 * stream open. One epoll loop reads them all.
 *
 * Measured: block commit → the notification at each session, p50, p99
 * and max over every (session, block) pair; and the gateway's memory per
 * session, (VmRSS with N sessions − VmRSS with none) / N, VmRSS read from
 * /proc (the resident set now, not the peak).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <unistd.h>

#include "tools/bench/bench_latency_int.h"

#define SESSIONS_FULL 1000u
#define SESSIONS_QUICK 50u
#define MIN_BLOCKS 10
#define GAP_S 0.005
#define MARK "notifications/resources/updated"

typedef struct {
    const kd_bench_ctx *b;
    kd_lat_chain *chain;
    kd_bench_proc gw;
    char log[700];
    kd_lat_stream *s;
    size_t n, opened;
    int ep;
    double *lat;
    size_t n_lat, cap_lat;
    double *first, *last; /* per block: the earliest and the latest session */
} sessions;

/* Lets this process (and the gateway it starts) open a socket per session. */
static void raise_fd_limit(void)
{
    struct rlimit r;
    if (getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < r.rlim_max) {
        r.rlim_cur = r.rlim_max;
        setrlimit(RLIMIT_NOFILE, &r);
    }
}

static int gateway_start(sessions *ss, uint16_t *port, char *why, size_t why_len)
{
    /* Every session comes from this one loopback client, each with a GET
     * stream: its shares must hold them all. */
    char limit[64], conns[64], per_client[64], streams[64];
    snprintf(limit, sizeof limit, "KDAPP_MCP_SESSIONS=%zu", ss->n + 16);
    snprintf(conns, sizeof conns, "KDAPP_MCP_CONNECTIONS=%zu", ss->n + 64);
    snprintf(per_client, sizeof per_client, "KDAPP_MCP_SESSIONS_PER_CLIENT=%zu", ss->n + 16);
    snprintf(streams, sizeof streams, "KDAPP_MCP_STREAMS_PER_CLIENT=%zu", ss->n + 16);
    const char *env[] = {limit, conns, per_client, streams, NULL};
    char *argv[] = {(char *)ss->b->kdapp_path,
                    "mcp",
                    "--http",
                    "127.0.0.1:0",
                    "--data",
                    ss->chain->data,
                    "--keys",
                    ss->chain->keys,
                    "--views",
                    ss->chain->views_url,
                    "--devnet",
                    ss->chain->devnet_url,
                    NULL};
    if (kd_bench_proc_spawn(&ss->gw, argv, env, ss->log, 0) != 0) {
        snprintf(why, why_len, "cannot start kdapp mcp --http: %s", strerror(errno));
        return -1;
    }
    if ((*port = kd_bench_http_port(&ss->gw, ss->log, KD_LAT_START_S)) == 0) {
        snprintf(why, why_len, "the sessions' gateway did not say its port");
        return -1;
    }
    return 0;
}

/* Waits until every session has counted want (or the deadline), stamping
 * arrivals at the time epoll returned. 0; 1 at the deadline; -1 with why. */
static int wait_all(sessions *ss, uint64_t want, double deadline, char *why, size_t why_len)
{
    struct epoll_event ev[256];
    size_t missing = 0;
    for (size_t i = 0; i < ss->n; i++)
        missing += ss->s[i].count < want;
    while (missing) {
        double left = deadline - kd_bench_now();
        if (left <= 0)
            return 1;
        int n = epoll_wait(ss->ep, ev, 256, (int)(left * 1000) + 1);
        double now = kd_bench_now();
        if (n < 0 && errno != EINTR) {
            snprintf(why, why_len, "epoll: %s", strerror(errno));
            return -1;
        }
        for (int k = 0; k < n; k++) {
            kd_lat_stream *s = &ss->s[ev[k].data.u64];
            uint64_t before = s->count;
            if (kd_lat_drain(s, MARK, now) != 0) {
                snprintf(why, why_len, "session %llu's stream closed", (unsigned long long)ev[k].data.u64);
                return -1;
            }
            missing -= before < want && s->count >= want;
        }
    }
    return 0;
}

static int open_all(sessions *ss, uint16_t port, char *why, size_t why_len)
{
    char uri[64];
    snprintf(uri, sizeof uri, "kdapp://episodes/%u", ss->chain->episode);
    if ((ss->s = calloc(ss->n, sizeof *ss->s)) == NULL || (ss->ep = epoll_create1(EPOLL_CLOEXEC)) < 0) {
        snprintf(why, why_len, "out of memory or descriptors");
        return -1;
    }
    for (size_t i = 0; i < ss->n; i++) {
        char one[200];
        if (kd_lat_session_open(&ss->s[i], port, uri, one, sizeof one) != 0) {
            snprintf(why, why_len, "session %zu of %zu: %s", i + 1, ss->n, one);
            return -1;
        }
        ss->opened = i + 1;
        struct epoll_event ev = {.events = EPOLLIN, .data.u64 = i};
        if (epoll_ctl(ss->ep, EPOLL_CTL_ADD, ss->s[i].fd, &ev) != 0) {
            snprintf(why, why_len, "epoll_ctl: %s", strerror(errno));
            return -1;
        }
    }
    return 0;
}

/* Blocks until every session has had one since it opened; then every
 * session's count is brought to the same value. */
static int settle(sessions *ss, uint64_t *base, char *why, size_t why_len)
{
    double t0, deadline = kd_bench_now() + KD_LAT_START_S;
    uint64_t want = 1;
    for (size_t i = 0; i < ss->n; i++)
        if (ss->s[i].count + 1 > want)
            want = ss->s[i].count + 1;
    kd_lat_chain_request(ss->chain);
    if (kd_lat_chain_wait(ss->chain, deadline, &t0, why, why_len) != 0)
        return -1;
    int rc = wait_all(ss, want, deadline, why, why_len);
    if (rc == 1)
        snprintf(why, why_len, "a block did not reach every session in %.0f s", KD_LAT_START_S);
    if (rc)
        return -1;
    kd_lat_sleep(0.2);
    for (size_t i = 0; i < ss->n; i++) /* what is left of the settling */
        if (kd_lat_drain(&ss->s[i], MARK, kd_bench_now()) != 0) {
            snprintf(why, why_len, "session %zu's stream closed", i);
            return -1;
        }
    for (size_t i = 0; i < ss->n; i++)
        ss->s[i].count = want; /* the bytes before this block counted for nothing */
    *base = want;
    return 0;
}

static int measure(sessions *ss, uint64_t base, size_t *blocks, char *why, size_t why_len)
{
    double start = kd_bench_now(), t0;
    for (*blocks = 0; *blocks < MIN_BLOCKS || kd_bench_now() - start < ss->b->run_s; ++*blocks) {
        uint64_t want = base + *blocks + 1;
        if (ss->n_lat + ss->n > ss->cap_lat) {
            size_t cap = (ss->cap_lat + ss->n) * 2;
            double *nl = realloc(ss->lat, cap * sizeof *nl);
            if (!nl) {
                snprintf(why, why_len, "out of memory");
                return -1;
            }
            ss->lat = nl, ss->cap_lat = cap;
        }
        kd_lat_chain_request(ss->chain);
        double deadline = kd_bench_now() + KD_LAT_DELIVER_S;
        int rc = wait_all(ss, want, deadline, why, why_len);
        if (kd_lat_chain_wait(ss->chain, deadline, &t0, why, why_len) != 0)
            return -1;
        if (rc == 1)
            snprintf(why, why_len, "a block did not reach every session in %.0f s", KD_LAT_DELIVER_S);
        if (rc)
            return -1;
        double lo = 1e9, hi = 0;
        for (size_t i = 0; i < ss->n; i++) {
            double l = ss->s[i].last - t0;
            lo = l < lo ? l : lo, hi = l > hi ? l : hi;
            if (ss->s[i].count != want) {
                snprintf(why, why_len, "session %zu got %llu notifications for one block", i,
                         (unsigned long long)(ss->s[i].count - want + 1));
                return -1;
            }
            ss->lat[ss->n_lat++] = l;
        }
        double *f = realloc(ss->first, (*blocks + 1) * sizeof *f),
               *g = f ? realloc(ss->last, (*blocks + 1) * sizeof *g) : NULL;
        if (f)
            ss->first = f;
        if (g)
            ss->last = g;
        if (!f || !g) {
            snprintf(why, why_len, "out of memory");
            return -1;
        }
        ss->first[*blocks] = lo, ss->last[*blocks] = hi;
        kd_lat_sleep(GAP_S);
    }
    return 0;
}

static void close_all(sessions *ss)
{
    for (size_t i = 0; ss->s && i < ss->opened; i++)
        kd_lat_stream_close(&ss->s[i]);
    if (ss->ep >= 0)
        close(ss->ep);
    kd_bench_proc_stop(&ss->gw, 1);
    free(ss->s);
    free(ss->lat);
    free(ss->first);
    free(ss->last);
}

int kd_lat_sessions(const kd_bench_ctx *b, kd_lat_chain *c)
{
    sessions ss = {.b = b, .chain = c, .n = b->quick ? SESSIONS_QUICK : SESSIONS_FULL, .ep = -1};
    char why[512] = "";
    uint16_t port = 0;
    uint64_t base = 0;
    size_t blocks = 0;
    kd_bench_proc_init(&ss.gw);
    snprintf(ss.log, sizeof ss.log, "%s/sessions.log", c->dir);
    kd_bench_heading(b,
                     "latency: %zu MCP sessions over HTTP on one gateway, each subscribed to the same episode with "
                     "its SSE stream open",
                     ss.n);
    raise_fd_limit();
    if (gateway_start(&ss, &port, why, sizeof why) != 0)
        goto failed;
    kd_lat_sleep(0.5); /* started and quiet: its memory without sessions */
    unsigned long rss0 = kd_bench_rss_kb(ss.gw.pid);
    double t_open = kd_bench_now();
    if (open_all(&ss, port, why, sizeof why) != 0 || settle(&ss, &base, why, sizeof why) != 0)
        goto failed;
    t_open = kd_bench_now() - t_open;
    unsigned long rss_n = kd_bench_rss_kb(ss.gw.pid);
    if (measure(&ss, base, &blocks, why, sizeof why) != 0)
        goto failed;
    double q[3];
    kd_lat_quantiles_us(ss.lat, ss.n_lat, q);
    kd_bench_note(b,
                  "sessions: %zu opened and subscribed in %.1f s; %zu blocks, one every %.0f ms after the last "
                  "session got the previous one; %zu notifications timed",
                  ss.n, t_open, blocks, GAP_S * 1e3, ss.n_lat);
    kd_bench_figure(b, "sessions-p50", "block commit → notification at each of the sessions, p50", q[0], "us", NULL);
    kd_bench_figure(b, "sessions-p99", "block commit → notification at each of the sessions, p99", q[1], "us", NULL);
    kd_bench_figure(b, "sessions-max", "block commit → notification at each of the sessions, max", q[2], "us", NULL);
    kd_bench_figure(b, "sessions-memory", "gateway memory per MCP session (VmRSS with them − without, / sessions)",
                    rss_n > rss0 ? (double)(rss_n - rss0) / (double)ss.n : 0, "KiB", NULL);
    kd_bench_note(b,
                  "sessions: per block, the first session had it after %.0f us and the last after %.0f us (p50 over "
                  "blocks): the fan-out to %zu sessions takes the difference",
                  kd_bench_percentile(ss.first, blocks, 0.5) * 1e6, kd_bench_percentile(ss.last, blocks, 0.5) * 1e6,
                  ss.n);
    kd_bench_note(b, "sessions: gateway VmRSS %lu KiB without sessions, %lu KiB with %zu", rss0, rss_n, ss.n);
    close_all(&ss);
    return 0;
failed:
    kd_bench_note(b, "FAILED: %s", why);
    kd_bench_show_log(ss.log);
    close_all(&ss);
    return 1;
}
