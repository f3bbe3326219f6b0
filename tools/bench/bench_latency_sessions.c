/*
 * bench_latency_sessions.c — fan-out: block commit → notification at many
 * MCP sessions over HTTP (bench_latency_int.h), at 1, 100, 1,000 and 10,000
 * sessions (--quick: 1, 10, 50 and 100).
 *
 * A set of sessions is one `kdapp mcp --http` gateway attached to a chain
 * of its own (bench_latency_chain.c), with every session on a connection
 * of its own, initialized, subscribed to the chain's one episode and with
 * its GET event stream open; the bench reads them all on one thread through
 * libcurl's multi interface (bench_http.h). Each set has its own chain so
 * that a block notifies that set alone while the other set of its pair sits
 * idle on another gateway:
 *
 *   chain A ── PUB ──▶ gateway A ══ N sessions ══╗
 *   chain B ── PUB ──▶ gateway B ══ n sessions ══╬══▶ bench (curl multi, epoll)
 *
 * Two paired comparisons, each with its two sets open throughout:
 *   - linear: 10,000 sessions against 100. Per block, the cost per session
 *     is (last arrival − first arrival) / (sessions − 1): what one more
 *     session adds, without the fixed cost of a commit; the target is a
 *     ratio ≤ 1.2 (linear fan-out).
 *   - p99: 1,000 sessions against one, commit → notification p99 over every
 *     (session, block); the target is ≤ 3.
 * The last run of the 1,000 also gives the figures the README has shown
 * since the first many-sessions scenario (p50, p99, max, the gateway's
 * memory per session: (VmRSS with them − without) / sessions).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "tools/bench/bench_latency_int.h"

#define MIN_BLOCKS 10
#define GAP_S 0.005
#define FD_SPARE 512 /* descriptors beyond one per session: the store, the sockets, libcurl's idle connections */

/* The set sizes: one, small, mid, big (in --quick, 100 at most). */
static const size_t SIZES[2][4] = {{1, 100, 1000, 10000}, {1, 10, 50, 100}};

typedef struct {
    const kd_bench_ctx *b;
    kd_lat_chain chain;
    int chain_up;
    kd_bench_proc gw;
    char log[700];
    kd_bench_http *http;
    size_t n;
    uint64_t base;             /* the count every stream has reached */
    unsigned long rss0, rss_n; /* the gateway's VmRSS without sessions and with them */
    double *lat;               /* the current run's latencies, every (session, block) */
    size_t n_lat, cap_lat;
    double *first, *last, *cost; /* per block of the run */
    size_t blocks, cap_blocks;
    double cpu_gw, cpu_bench; /* CPU seconds the run took in the gateway and in this process (-1: unknown) */
} fanset;

/* Lets this process (and the gateways it starts) open a socket per session. */
static int raise_fd_limit(size_t sessions, char *why, size_t why_len)
{
    struct rlimit r;
    if (getrlimit(RLIMIT_NOFILE, &r) != 0)
        return 0;
    if (r.rlim_cur < r.rlim_max) {
        r.rlim_cur = r.rlim_max;
        setrlimit(RLIMIT_NOFILE, &r);
    }
    if (r.rlim_cur != RLIM_INFINITY && r.rlim_cur < sessions + FD_SPARE) {
        snprintf(why, why_len,
                 "%zu sessions need %zu descriptors, and the hard limit is %llu (ulimit -Hn; raise it in "
                 "/etc/security/limits.conf or the service's LimitNOFILE)",
                 sessions, sessions + FD_SPARE, (unsigned long long)r.rlim_cur);
        return -1;
    }
    return 0;
}

static int gateway_start(fanset *s, uint16_t *port, char *why, size_t why_len)
{
    /* Every session comes from this one loopback client without a token,
     * each with a GET stream: its shares must hold them all (and libcurl's
     * idle connections), and so must the connections' shares of the
     * clients without a token. */
    char limit[64], conns[64], per_client[64], streams[64], tokenless[64], waiting[64];
    snprintf(limit, sizeof limit, "KDAPP_MCP_SESSIONS=%zu", s->n + 16);
    snprintf(conns, sizeof conns, "KDAPP_MCP_CONNECTIONS=%zu", s->n + 256);
    snprintf(per_client, sizeof per_client, "KDAPP_MCP_SESSIONS_PER_CLIENT=%zu", s->n + 16);
    snprintf(streams, sizeof streams, "KDAPP_MCP_STREAMS_PER_CLIENT=%zu", s->n + 16);
    snprintf(tokenless, sizeof tokenless, "KDAPP_MCP_CONNECTIONS_TOKENLESS=%zu", s->n + 128);
    snprintf(waiting, sizeof waiting, "KDAPP_MCP_CONNECTIONS_WAITING=%zu", s->n + 128);
    const char *env[] = {limit, conns, per_client, streams, tokenless, waiting, NULL};
    snprintf(s->log, sizeof s->log, "%s/sessions.log", s->chain.dir);
    return kd_lat_gateway(s->b, &s->chain, env, s->log, &s->gw, port, why, why_len);
}

/* Reads until every stream has `want` notifications; 0, 1 at the deadline, -1 with why. */
static int wait_all(fanset *s, uint64_t want, double deadline, char *why, size_t why_len)
{
    kd_bench_http_expect(s->http, want);
    while (kd_bench_http_missing(s->http)) {
        double left = deadline - kd_bench_now();
        if (left <= 0)
            return 1;
        if (kd_bench_http_run(s->http, left, why, why_len) != 0)
            return -1;
    }
    return 0;
}

/* One block to the set and back: every session has it, once. */
static int one_block(fanset *s, double deliver_s, double *t0, char *why, size_t why_len)
{
    uint64_t want = s->base + 1;
    kd_lat_chain_request(&s->chain);
    double deadline = kd_bench_now() + deliver_s;
    int rc = wait_all(s, want, deadline, why, why_len);
    if (kd_lat_chain_wait(&s->chain, deadline, t0, why, why_len) != 0)
        return -1;
    if (rc == 1)
        snprintf(why, why_len, "a block did not reach %zu of the %zu sessions in %.0f s",
                 kd_bench_http_missing(s->http), s->n, deliver_s);
    if (rc)
        return -1;
    s->base = want;
    return 0;
}

static void fanset_init(const kd_bench_ctx *b, fanset *s, size_t n)
{
    memset(s, 0, sizeof *s);
    s->b = b, s->n = n;
    kd_bench_proc_init(&s->gw);
}

static void fanset_close(fanset *s)
{
    kd_bench_http_free(s->http);
    kd_bench_proc_stop(&s->gw, 1);
    if (s->chain_up)
        kd_lat_chain_close(&s->chain);
    free(s->lat), free(s->first), free(s->last), free(s->cost);
    fanset_init(s->b, s, 0);
}

/* A chain, its gateway and n sessions, settled: every stream has had a
 * block since it opened, and nothing of that is left in flight. */
static int fanset_open(fanset *s, char *why, size_t why_len)
{
    char uri[64];
    uint16_t port = 0;
    size_t n = s->n;
    double t0;
    if (kd_lat_chain_open(s->b, &s->chain, why, why_len) != 0)
        return -1;
    s->chain_up = 1;
    if (gateway_start(s, &port, why, why_len) != 0)
        return -1;
    kd_bench_sleep(0.5); /* started and quiet: its memory without sessions */
    s->rss0 = kd_bench_rss_kb(s->gw.pid);
    snprintf(uri, sizeof uri, "kdapp://episodes/%u", s->chain.episode);
    if (!(s->http = kd_bench_http_alloc())) {
        snprintf(why, why_len, "libcurl did not initialise");
        return -1;
    }
    double deadline = kd_bench_now() + KD_LAT_START_S + (double)n * 0.01;
    if (kd_bench_http_sessions(s->http, port, n, uri, deadline, why, why_len) != 0)
        return -1;
    /* subscriptions are asynchronous: a block every stream sees, then quiet */
    uint64_t most = 0;
    for (size_t i = 0; i < n; i++)
        if (kd_bench_http_stream(s->http, i)->count > most)
            most = kd_bench_http_stream(s->http, i)->count;
    s->base = most;
    if (one_block(s, KD_LAT_START_S, &t0, why, why_len) != 0)
        return -1;
    kd_bench_sleep(0.2);
    if (kd_bench_http_run(s->http, 0, why, why_len) != 0)
        return -1;
    kd_bench_http_recount(s->http, s->base); /* the bytes before counted for nothing */
    s->rss_n = kd_bench_rss_kb(s->gw.pid);
    return 0;
}

static int grow(fanset *s)
{
    if (s->n_lat + s->n > s->cap_lat) {
        size_t cap = (s->cap_lat + s->n) * 2;
        double *nl = realloc(s->lat, cap * sizeof *nl);
        if (!nl)
            return -1;
        s->lat = nl, s->cap_lat = cap;
    }
    if (s->blocks == s->cap_blocks) {
        size_t cap = s->cap_blocks ? 2 * s->cap_blocks : 64;
        double *f = realloc(s->first, cap * sizeof *f);
        if (f)
            s->first = f;
        double *l = f ? realloc(s->last, cap * sizeof *l) : NULL;
        if (l)
            s->last = l;
        double *c = l ? realloc(s->cost, cap * sizeof *c) : NULL;
        if (!c)
            return -1;
        s->cost = c, s->cap_blocks = cap;
    }
    return 0;
}

/* Blocks for at least run_s (and MIN_BLOCKS), every latency kept. */
static int fanset_run(fanset *s, char *why, size_t why_len)
{
    double start = kd_bench_now(), t0, deliver_s = KD_LAT_DELIVER_S + (double)s->n * 5e-4;
    double gw0 = kd_bench_cpu_s(s->gw.pid), self0 = kd_bench_cpu_s(0);
    s->n_lat = s->blocks = 0;
    while (s->blocks < MIN_BLOCKS || kd_bench_now() - start < s->b->run_s) {
        if (grow(s) != 0) {
            snprintf(why, why_len, "out of memory");
            return -1;
        }
        if (one_block(s, deliver_s, &t0, why, why_len) != 0)
            return -1;
        double lo = 1e9, hi = 0;
        for (size_t i = 0; i < s->n; i++) {
            const kd_bench_marks *m = kd_bench_http_stream(s->http, i);
            if (m->count != s->base) {
                snprintf(why, why_len, "session %zu got %llu notifications for one block", i + 1,
                         (unsigned long long)(m->count - s->base + 1));
                return -1;
            }
            double l = m->last - t0;
            lo = l < lo ? l : lo, hi = l > hi ? l : hi;
            s->lat[s->n_lat++] = l;
        }
        s->first[s->blocks] = lo, s->last[s->blocks] = hi;
        s->cost[s->blocks] = s->n > 1 ? (hi - lo) / (double)(s->n - 1) : hi;
        s->blocks++;
        kd_bench_sleep(GAP_S);
    }
    double gw1 = kd_bench_cpu_s(s->gw.pid), self1 = kd_bench_cpu_s(0);
    s->cpu_gw = gw0 >= 0 && gw1 >= 0 ? gw1 - gw0 : -1;
    s->cpu_bench = self0 >= 0 && self1 >= 0 ? self1 - self0 : -1;
    return 0;
}

/* ------------------------------------------------------------ the pairs */

typedef struct {
    fanset *set[2]; /* subject, baseline */
    int linear;     /* the per-session cost first (else p99 first) */
    int failed;     /* a run failed: no figures from the last one */
} fanpair;

static int pair_side(void *ctx, int side, double *out, char *why, size_t why_len)
{
    fanpair *p = ctx;
    fanset *s = p->set[side];
    if (fanset_run(s, why, why_len) != 0) {
        p->failed = 1;
        return -1;
    }
    double q[3];
    double cost_us = kd_bench_percentile(s->cost, s->blocks, 0.5) * 1e6;
    kd_bench_quantiles_us(s->lat, s->n_lat, q);
    if (p->linear)
        out[0] = cost_us, out[1] = q[0], out[2] = q[1];
    else
        out[0] = q[1], out[1] = q[0], out[2] = q[2];
    return 0;
}

/* Opens the two sets of a pair (fanset_init'ed with their sizes). */
static int open_pair(fanset *big, fanset *small, char *why, size_t why_len)
{
    char one[400];
    size_t n_big = big->n, n_small = small->n;
    if (raise_fd_limit(n_big + n_small, why, why_len) != 0)
        return -1;
    if (fanset_open(big, one, sizeof one) != 0) {
        snprintf(why, why_len, "%zu sessions: %s", n_big, one);
        kd_bench_show_log(big->log);
        return -1;
    }
    if (fanset_open(small, one, sizeof one) != 0) {
        snprintf(why, why_len, "%zu sessions: %s", n_small, one);
        kd_bench_show_log(small->log);
        return -1;
    }
    return 0;
}

/* The figures of the last run of `s`, as before the pairs (ids kept). */
static void mid_figures(const kd_bench_ctx *b, fanset *s)
{
    double q[3];
    kd_bench_quantiles_us(s->lat, s->n_lat, q);
    kd_bench_note(b,
                  "sessions: %zu blocks, one every %.0f ms after the last session got the previous one; %zu "
                  "notifications timed",
                  s->blocks, GAP_S * 1e3, s->n_lat);
    kd_bench_figure(b, "sessions-p50", "block commit → notification at each of the sessions, p50", q[0], "us", NULL);
    kd_bench_figure(b, "sessions-p99", "block commit → notification at each of the sessions, p99", q[1], "us", NULL);
    kd_bench_figure(b, "sessions-max", "block commit → notification at each of the sessions, max", q[2], "us", NULL);
    kd_bench_figure(b, "sessions-memory", "gateway memory per MCP session (VmRSS with them − without, / sessions)",
                    s->rss_n > s->rss0 ? (double)(s->rss_n - s->rss0) / (double)s->n : 0, "KiB", NULL);
    kd_bench_note(b,
                  "sessions: per block, the first session had it after %.0f us and the last after %.0f us (p50 over "
                  "blocks): the fan-out to %zu sessions takes the difference",
                  kd_bench_percentile(s->first, s->blocks, 0.5) * 1e6,
                  kd_bench_percentile(s->last, s->blocks, 0.5) * 1e6, s->n);
    kd_bench_note(b, "sessions: gateway VmRSS %lu KiB without sessions, %lu KiB with %zu", s->rss0, s->rss_n, s->n);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (s->cpu_gw >= 0 && s->cpu_bench >= 0 && s->blocks && cores > 0) {
        double per_block = (s->cpu_gw + s->cpu_bench) / (double)s->blocks;
        kd_bench_note(b,
                      "sessions: one block's %zu notifications took %.1f ms of CPU (gateway and bench): at least "
                      "%.1f ms on %ld cores, a floor under the last arrival whatever the gateway does",
                      s->n, per_block * 1e3, per_block * 1e3 / (double)cores, cores);
    }
}

/* A figure per size: the cost of one more session, from the last run of its set. */
static void cost_figure(const kd_bench_ctx *b, const fanset *s)
{
    char id[48], what[160];
    snprintf(id, sizeof id, "fanout-cost-%zu", s->n);
    snprintf(what, sizeof what, "fan-out cost per session at %zu sessions ((last − first arrival) / (n − 1), p50)",
             s->n);
    kd_bench_figure(b, id, what, kd_bench_percentile(s->cost, s->blocks, 0.5) * 1e6, "us", NULL);
    /* Which side a growing cost is on: both share the cores. */
    if (s->cpu_gw >= 0 && s->cpu_bench >= 0 && s->n_lat)
        kd_bench_note(b,
                      "fan-out CPU per notification at %zu sessions: gateway %.1f us, the bench reading it %.1f us "
                      "(%zu notifications)",
                      s->n, s->cpu_gw / (double)s->n_lat * 1e6, s->cpu_bench / (double)s->n_lat * 1e6, s->n_lat);
}

/* One pair of sets, `n_big` sessions against `n_small`: judged on the p99,
 * or (linear) on the cost per session. The number of targets missed. */
static int fan_pair(const kd_bench_ctx *b, size_t n_big, size_t n_small, int linear, const char *scenario)
{
    static const kd_bench_metric metrics[2][3] = {
        {{"p99", "us", 3, 0}, {"p50", "us", 0, 0}, {"max", "us", 0, 0}},
        {{"per session", "us", 1.2, 0}, {"p50", "us", 0, 0}, {"p99", "us", 0, 0}},
    };
    fanset big, small;
    char why[600] = "", text[2][64];
    int missed = 1;
    fanset_init(b, &big, n_big);
    fanset_init(b, &small, n_small);
    snprintf(text[0], sizeof text[0], "%zu sessions", n_big);
    snprintf(text[1], sizeof text[1], "%zu session%s", n_small, n_small > 1 ? "s" : "");
    if (open_pair(&big, &small, why, sizeof why) != 0) {
        if (linear)
            kd_bench_heading(b, "%s", scenario);
        kd_bench_note(b, "FAILED: %s", why);
    } else {
        fanpair fp = {.set = {&big, &small}, .linear = linear};
        kd_bench_pair p = {.id = linear ? "fanout-linear" : "fanout-p99",
                           .scenario = scenario,
                           .subject = text[0],
                           .baseline = text[1],
                           .n_metrics = 3,
                           .run = pair_side,
                           .ctx = &fp};
        memcpy(p.metrics, metrics[linear], sizeof metrics[linear]);
        missed = kd_bench_paired(b, &p);
        if (linear) {
            kd_bench_note(b, "fan-out: each size on a gateway of its own, attached to a chain of its own (the other "
                             "set idle); per session = (last arrival − first) / (sessions − 1) per block, p50 over "
                             "blocks");
            cost_figure(b, &small);
            cost_figure(b, &big);
        } else if (!fp.failed) { /* the pair's last run of the subject */
            mid_figures(b, &big);
            cost_figure(b, &big);
        }
    }
    fanset_close(&big);
    fanset_close(&small);
    return missed;
}

int kd_bench_fanout(const kd_bench_ctx *b)
{
    const size_t *n = SIZES[b->quick ? 1 : 0];
    char scenario[256];
    kd_bench_heading(b,
                     "latency: %zu MCP sessions over HTTP on one gateway, each subscribed to the same episode with "
                     "its SSE stream open",
                     n[2]);
    snprintf(scenario, sizeof scenario,
             "fan-out: block commit → notification at each of %zu MCP sessions over HTTP, against one session", n[2]);
    int missed = fan_pair(b, n[2], n[0], 0, scenario);
    snprintf(scenario, sizeof scenario,
             "fan-out: cost per session of a notification to %zu MCP sessions over HTTP, against %zu sessions", n[3],
             n[1]);
    missed += fan_pair(b, n[3], n[1], 1, scenario);
    return missed;
}
