/*
 * bench_mcp_http.c — the Streamable HTTP scenario of `kdapp bench`: 1 and
 * 8 client threads, each one session on bench_http.c's libcurl multi
 * client (kd_bench_http_calls) calling kdapp_get_strategy_context over and
 * over; they warm up, wait at a gate until all are ready, and only then
 * does the clock start. Against `kdapp mcp --http` and against a minimal
 * libmicrohttpd server in this process that answers every POST with the
 * gateway's own reply, byte for byte, under the same thread model.
 */
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "tools/bench/bench_http.h"
#include "tools/bench/bench_mcp_int.h"

/* Where the client threads wait, warmed up, until all are ready. */
typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    unsigned ready;
    int open;
} gate;

static void gate_pass(void *arg)
{
    gate *g = arg;
    pthread_mutex_lock(&g->lock);
    g->ready++;
    pthread_cond_broadcast(&g->cond);
    while (!g->open)
        pthread_cond_wait(&g->cond, &g->lock);
    pthread_mutex_unlock(&g->lock);
}

/* Waits for `n` threads at the gate, then opens it. */
static void gate_open(gate *g, unsigned n)
{
    pthread_mutex_lock(&g->lock);
    while (g->ready < n)
        pthread_cond_wait(&g->cond, &g->lock);
    g->open = 1;
    pthread_cond_broadcast(&g->cond);
    pthread_mutex_unlock(&g->lock);
}

typedef struct {
    kd_bench_calls k;
    int failed;
    char why[256];
} http_client;

static void *http_thread(void *arg)
{
    http_client *c = arg;
    c->failed = kd_bench_http_calls(&c->k, c->why, sizeof c->why) != 0;
    return NULL;
}

/* n client threads, each one session of `calls` timed calls after warm-up;
 * the seconds from the gate opening to the last call answered, or -1. */
static double http_run(uint16_t port, const char *args, unsigned n, size_t calls, char *why, size_t why_len)
{
    http_client c[8];
    pthread_t t[8];
    gate g = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};
    unsigned started = 0;
    double secs = -1;

    for (; started < n && started < 8; started++) {
        c[started] = (http_client){.k = {.port = port,
                                         .sessions = 1,
                                         .warm = calls / 10 + 1,
                                         .calls = calls,
                                         .args = args,
                                         .on_warm = gate_pass,
                                         .ctx = &g}};
        if (pthread_create(&t[started], NULL, http_thread, &c[started]) != 0)
            break;
    }
    gate_open(&g, started);
    double t0 = kd_bench_now(), t1 = t0;
    for (unsigned i = 0; i < started; i++) {
        pthread_join(t[i], NULL);
        t1 = c[i].k.end > t1 ? c[i].k.end : t1;
    }
    if (started == n)
        secs = t1 - t0;
    else
        snprintf(why, why_len, "cannot start %u client threads", n);
    for (unsigned i = 0; i < started; i++)
        if (c[i].failed) {
            snprintf(why, why_len, "%s", c[i].why);
            secs = -1;
        }
    return secs;
}

/*
 * The HTTP baseline: libmicrohttpd with the gateway's polling model (two
 * internal polling threads serving every socket, epoll where there is one)
 * reading each POST body and answering it at once, on the polling thread,
 * with a fixed reply of the gateway's size and headers. The gateway also
 * hands each POST to a worker and back; that is part of what it costs.
 */
typedef struct {
    struct MHD_Daemon *daemon;
    const char *reply;
    size_t len;
    uint16_t port;
} ref_server;

static enum MHD_Result ref_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                   const char *version, const char *upload, size_t *upload_size, void **state)
{
    ref_server *rs = cls;
    (void)url, (void)method, (void)version, (void)upload;
    if (*state == NULL) { /* headers in */
        *state = rs;
        return MHD_YES;
    }
    if (*upload_size) {
        *upload_size = 0;
        return MHD_YES;
    }
    struct MHD_Response *r = MHD_create_response_from_buffer(rs->len, (void *)rs->reply, MHD_RESPMEM_PERSISTENT);
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
    MHD_add_response_header(r, "Mcp-Session-Id", "0123456789abcdef0123456789abcdef");
    enum MHD_Result ret = MHD_queue_response(c, MHD_HTTP_OK, r);
    MHD_destroy_response(r);
    return ret;
}

static int ref_start(ref_server *rs, const char *reply, size_t len)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    rs->reply = reply, rs->len = len;
    rs->daemon = MHD_start_daemon(MHD_USE_AUTO_INTERNAL_THREAD, 0, NULL, NULL, ref_request, rs, MHD_OPTION_SOCK_ADDR,
                                  (struct sockaddr *)&sa, MHD_OPTION_CONNECTION_LIMIT, 1000u,
                                  MHD_OPTION_THREAD_POOL_SIZE, 2u, MHD_OPTION_END);
    const union MHD_DaemonInfo *di = rs->daemon ? MHD_get_daemon_info(rs->daemon, MHD_DAEMON_INFO_BIND_PORT) : NULL;
    rs->port = di ? di->port : 0;
    return rs->port ? 0 : -1;
}

/* Either side of an HTTP comparison: the gateway (0) or the reference (1),
 * `clients` threads; each side's calls per client grown until a run lasts
 * b->run_s. */
typedef struct {
    const kd_bench_ctx *b;
    uint16_t port[2];
    char args[64];
    unsigned clients;
    size_t calls[2];
} http_pair;

static int http_side(void *ctx, int side, double *out, char *why, size_t why_len)
{
    http_pair *hp = ctx;
    size_t calls = hp->calls[side];
    double secs = http_run(hp->port[side], hp->args, hp->clients, calls, why, why_len);
    if (secs <= 0)
        return -1;
    out[0] = (double)(calls * hp->clients) / secs;
    hp->calls[side] = kd_bench_units_for(hp->b, calls, secs);
    return 0;
}

int kd_bench_mcp_http(const kd_bench_ctx *b, kd_bench_fixture *f)
{
    static const unsigned clients[2] = {1, 8};
    static const char *const ids[2] = {"http1", "http8"};
    char why[256] = "", name[2][96];
    ref_server rs = {0};
    kd_bench_proc gw;
    int missed = 0;

    kd_bench_proc_init(&gw);
    if (kd_bench_gateway_spawn(b, f, "127.0.0.1:0", &gw) != 0) {
        snprintf(why, sizeof why, "cannot start kdapp mcp --http");
        goto failed;
    }
    uint16_t port = kd_bench_http_port(&gw, f->log, KD_BENCH_START_S);
    if (!port || ref_start(&rs, f->reply, f->reply_len - 1) != 0) {
        snprintf(why, sizeof why, port ? "the libmicrohttpd baseline did not start" : "kdapp mcp --http did not start");
        goto failed;
    }
    for (int k = 0; k < 2; k++) {
        http_pair hp = {.b = b, .port = {port, rs.port}, .clients = clients[k], .calls = {200, 200}};
        snprintf(hp.args, sizeof hp.args, "{\"episode_id\":%u}", f->episode);
        snprintf(name[k], sizeof name[k], "MCP over HTTP, %u client%s, " KD_BENCH_TOOL, clients[k],
                 clients[k] > 1 ? "s" : "");
        kd_bench_pair pair = {
            .id = ids[k],
            .scenario = name[k],
            .subject = "kdapp mcp --http",
            .baseline = "libmicrohttpd, fixed reply",
            .metrics = {{"throughput", "calls/s", 0.5, 1}},
            .n_metrics = 1,
            .run = http_side,
            .ctx = &hp,
        };
        missed += kd_bench_paired(b, &pair);
    }
    kd_bench_note(b,
                  "keep-alive connections (libcurl), one session per client; both servers on 2 polling threads; "
                  "reply %zu B",
                  f->reply_len - 1);
    kd_bench_figure(b, "http.gateway_peak_kib", "MCP over HTTP: gateway peak memory",
                    (double)kd_bench_peak_rss_kb(gw.pid), "KiB", NULL);
    goto done;
failed:
    kd_bench_note(b, "mcp http: failed: %s", why);
    kd_bench_show_log(f->log);
    missed = 2;
done:
    if (rs.daemon)
        MHD_stop_daemon(rs.daemon);
    kd_bench_proc_stop(&gw, 1);
    return missed;
}
