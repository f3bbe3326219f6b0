/*
 * bench_mcp_http.c — the Streamable HTTP scenario of `kdapp bench`: 1 and
 * 8 client threads, each with its own keep-alive libcurl connection and
 * its own session (initialize, then tools/call kdapp_get_strategy_context
 * over and over), against `kdapp mcp --http` and against a minimal
 * libmicrohttpd server in this process that answers every POST with the
 * gateway's own reply, byte for byte, under the same thread model.
 *
 * Client threads warm up, wait at a gate until all are ready, and only then
 * does the clock start; it stops when the last one finishes its calls.
 */
#include <curl/curl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
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

static void gate_pass(gate *g)
{
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

/* One HTTP client thread: its own connection (kept alive) and session. */
typedef struct {
    const char *url;
    uint32_t episode;
    size_t warm, calls;
    gate *start;
    int failed;
    double end; /* when the timed calls ended */
    char why[200];
    char sid[128];
    char *body;
    size_t len, cap;
} http_client;

static size_t on_body(char *p, size_t size, size_t n, void *ctx)
{
    http_client *c = ctx;
    size_t k = size * n;
    if (c->len + k + 1 > c->cap) {
        size_t cap = (c->len + k + 1) * 2;
        char *nb = realloc(c->body, cap);
        if (!nb)
            return 0;
        c->body = nb, c->cap = cap;
    }
    memcpy(c->body + c->len, p, k);
    c->len += k;
    c->body[c->len] = '\0';
    return k;
}

static size_t on_header(char *p, size_t size, size_t n, void *ctx)
{
    http_client *c = ctx;
    if (!c->sid[0])
        kd_bench_session_header(p, size * n, c->sid, sizeof c->sid);
    return size * n;
}

/* POSTs `body`; 0 when the answer is 200 with a result (or 202 for a
 * notification), else -1 with the reason in c->why. */
static int http_post(CURL *h, http_client *c, const char *body, int notification)
{
    long status = 0;
    c->len = 0;
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
    CURLcode rc = curl_easy_perform(h);
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    if (rc == CURLE_OK && (notification ? status == 202 || status == 200
                                        : status == 200 && c->body && strstr(c->body, "\"result\":") &&
                                              !strstr(c->body, "\"isError\":true")))
        return 0;
    snprintf(c->why, sizeof c->why, "HTTP %ld %s: %.120s", status, curl_easy_strerror(rc), c->len ? c->body : "");
    return -1;
}

#define INITIALIZE                                                                                                 \
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"" KD_BENCH_PROTOCOL \
    "\",\"capabilities\":{},\"clientInfo\":{\"name\":\"kdapp-bench\",\"version\":\"0.1.0\"}}}"

/* A client: initialize, warm up, wait at the gate, the timed calls, DELETE. */
static void *http_thread(void *arg)
{
    http_client *c = arg;
    CURL *h = curl_easy_init();
    struct curl_slist *hdr = curl_slist_append(NULL, "Content-Type: application/json");
    char body[256], args[64], sid[160];
    long id = KD_BENCH_ID_BASE;
    int at_start = 0;

    snprintf(args, sizeof args, "{\"episode_id\":%u}", c->episode);
    if (!h || !hdr || !curl_slist_append(hdr, "Accept: application/json, text/event-stream"))
        goto fail;
    kd_bench_curl_setup(h, c->url, on_body, on_header, c);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)(KD_BENCH_CALL_S * 1000));
    if (http_post(h, c, INITIALIZE, 0) != 0)
        goto fail;
    snprintf(sid, sizeof sid, "Mcp-Session-Id: %s", c->sid);
    if (!curl_slist_append(hdr, sid) || !curl_slist_append(hdr, "MCP-Protocol-Version: " KD_BENCH_PROTOCOL))
        goto fail;
    if (http_post(h, c, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", 1) != 0)
        goto fail;
    for (size_t i = 0; i < c->warm + c->calls; i++) {
        if (i == c->warm) {
            at_start = 1;
            gate_pass(c->start);
        }
        kd_bench_call_line(body, sizeof body, id++, KD_BENCH_TOOL, args);
        if (http_post(h, c, body, 0) != 0)
            goto fail;
    }
    c->end = kd_bench_now();
    goto end;
fail:
    c->failed = 1;
end:
    if (!at_start)
        gate_pass(c->start);
    if (h && c->sid[0]) { /* end the session, so repeats stay under the session limit */
        curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, "DELETE");
        curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
        curl_easy_perform(h);
    }
    curl_slist_free_all(hdr);
    curl_easy_cleanup(h);
    free(c->body);
    return NULL;
}

/* n clients, each `calls` timed calls after warm-up; the seconds from the
 * gate opening to the last call answered, or -1 with `why`. */
static double http_run(const char *url, uint32_t episode, unsigned n, size_t calls, char *why, size_t why_len)
{
    http_client c[8];
    pthread_t t[8];
    gate g = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};
    unsigned started = 0;
    double secs = -1;

    for (; started < n && started < 8; started++) {
        c[started] = (http_client){.url = url, .episode = episode, .warm = calls / 10 + 1, .calls = calls, .start = &g};
        if (pthread_create(&t[started], NULL, http_thread, &c[started]) != 0)
            break;
    }
    gate_open(&g, started);
    double t0 = kd_bench_now(), t1 = t0;
    for (unsigned i = 0; i < started; i++) {
        pthread_join(t[i], NULL);
        t1 = c[i].end > t1 ? c[i].end : t1;
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
    const char *url[2];
    uint32_t episode;
    unsigned clients;
    size_t calls[2];
} http_pair;

static int http_side(void *ctx, int side, double *out, char *why, size_t why_len)
{
    http_pair *hp = ctx;
    double secs = http_run(hp->url[side], hp->episode, hp->clients, hp->calls[side], why, why_len);
    if (secs <= 0)
        return -1;
    out[0] = (double)(hp->calls[side] * hp->clients) / secs;
    hp->calls[side] = kd_bench_units_for(hp->b, hp->calls[side], secs);
    return 0;
}

int kd_bench_mcp_http(const kd_bench_ctx *b, kd_bench_fixture *f)
{
    static const unsigned clients[2] = {1, 8};
    static const char *const ids[2] = {"http1", "http8"};
    char url[64], ref_url[64], why[256] = "", name[2][96];
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
    snprintf(url, sizeof url, "http://127.0.0.1:%u/mcp", port);
    snprintf(ref_url, sizeof ref_url, "http://127.0.0.1:%u/mcp", rs.port);
    for (int k = 0; k < 2; k++) {
        http_pair hp = {
            .b = b, .url = {url, ref_url}, .episode = f->episode, .clients = clients[k], .calls = {200, 200}};
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
