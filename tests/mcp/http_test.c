/*
 * http_test.c — the Streamable HTTP transport end to end with libcurl on
 * 127.0.0.1 and a port the system picks: sessions, POST/GET/DELETE, SSE
 * delivery of server notifications, every refusal (400, 401, 403, 404,
 * 405, 406, 413, 415, 429, 503), and capacity: hundreds of half-open
 * connections, timeouts, the per-address limit.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <curl/curl.h>

#include "engine/logger.h"
#include "mcp/fake_server.h"
#include "mcp/http.h"

typedef struct {
    long status;
    char *body;
    size_t len;
    char sid[128], ctype[128], www_auth[256];
} resp;

static kd_mcp_server *srv;
static kd_mcp_http *http;
static char base[96];
static char host_port[64];

/* Starts the transport on `srv` with `ho` (NULL: defaults). */
static void serve_with(const kd_mcp_http_options *ho)
{
    cr_assert_eq(kd_mcp_http_start(srv, ho, &http), KD_OK);
    cr_assert_gt(kd_mcp_http_port(http), 0);
    snprintf(host_port, sizeof host_port, "127.0.0.1:%u", kd_mcp_http_port(http));
    snprintf(base, sizeof base, "http://%s", host_port);
}

static void start_with(const kd_mcp_server_options *so, const kd_mcp_http_options *ho)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
    srv = fake_server_new(so);
    serve_with(ho);
}

static void setup(void) { start_with(NULL, &(kd_mcp_http_options){.port = 0, .keepalive_ms = 200}); }

/* Restarts the transport with `ho`, and the server too when `so` is not
 * NULL. */
static void restart(const kd_mcp_server_options *so, const kd_mcp_http_options *ho)
{
    kd_mcp_http_stop(http);
    if (so != NULL) {
        kd_mcp_server_free(srv);
        srv = fake_server_new(so);
    }
    serve_with(ho);
}

static void teardown(void)
{
    kd_mcp_http_stop(http);
    kd_mcp_server_free(srv);
    curl_global_cleanup();
}

TestSuite(http, .init = setup, .fini = teardown, .timeout = 60);

static size_t on_body(char *p, size_t size, size_t n, void *ud)
{
    resp *r = ud;
    char *nb = realloc(r->body, r->len + size * n + 1);

    if (nb == NULL)
        return 0;
    r->body = nb;
    memcpy(r->body + r->len, p, size * n);
    r->len += size * n;
    r->body[r->len] = '\0';
    return size * n;
}

static void grab(const char *line, size_t n, const char *name, char *dst, size_t cap)
{
    size_t k = strlen(name), v;

    if (n <= k + 1 || strncasecmp(line, name, k) != 0 || line[k] != ':')
        return;
    line += k + 1;
    n -= k + 1;
    while (n > 0 && *line == ' ') {
        line++;
        n--;
    }
    while (n > 0 && (line[n - 1] == '\r' || line[n - 1] == '\n'))
        n--;
    v = n < cap - 1 ? n : cap - 1;
    memcpy(dst, line, v);
    dst[v] = '\0';
}

static size_t on_header(char *p, size_t size, size_t n, void *ud)
{
    resp *r = ud;

    grab(p, size * n, "Mcp-Session-Id", r->sid, sizeof r->sid);
    grab(p, size * n, "Content-Type", r->ctype, sizeof r->ctype);
    grab(p, size * n, "WWW-Authenticate", r->www_auth, sizeof r->www_auth);
    return size * n;
}

static int has_header(const char *const *extra, const char *name)
{
    size_t k = strlen(name);

    for (; extra != NULL && *extra != NULL; extra++)
        if (strncasecmp(*extra, name, k) == 0 && (*extra)[k] == ':')
            return 1;
    return 0;
}

/* One request; CURLE_OK when an answer came. `extra` (NULL-terminated,
 * may be NULL) comes first and replaces the JSON defaults of the same
 * name. */
static CURLcode try_req(resp *out, const char *method, const char *path, const char *sid, const char *body,
                        const char *const *extra)
{
    CURL *c = curl_easy_init();
    struct curl_slist *h = NULL;
    char url[128], line[200];
    const char *const *e;
    CURLcode rc;

    memset(out, 0, sizeof *out);
    cr_assert_not_null(c);
    snprintf(url, sizeof url, "%s%s", base, path);
    for (e = extra; e != NULL && *e != NULL; e++)
        h = curl_slist_append(h, *e);
    if (!has_header(extra, "Content-Type"))
        h = curl_slist_append(h, "Content-Type: application/json");
    if (!has_header(extra, "Accept"))
        h = curl_slist_append(h, "Accept: application/json, text/event-stream");
    if (sid != NULL) {
        snprintf(line, sizeof line, "Mcp-Session-Id: %s", sid);
        h = curl_slist_append(h, line);
    }
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    if (body != NULL) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
    }
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, out);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 20L);
    rc = curl_easy_perform(c);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &out->status);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    return rc;
}

/* The status of a GET of `path`, 0 when no answer came. */
static long status_of(const char *path)
{
    resp r;
    long status = try_req(&r, "GET", path, NULL, NULL, NULL) == CURLE_OK ? r.status : 0;

    free(r.body);
    return status;
}

/* One request that must be answered. */
static void req(resp *out, const char *method, const char *path, const char *sid, const char *body,
                const char *const *extra)
{
    CURLcode rc = try_req(out, method, path, sid, body, extra);

    cr_assert_eq(rc, CURLE_OK, "%s %s failed: %s", method, path, curl_easy_strerror(rc));
}

static void resp_fini(resp *r)
{
    free(r->body);
    r->body = NULL;
}

static const char *INIT = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
                          "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                          "\"clientInfo\":{\"name\":\"curl\",\"version\":\"1\"}}}";

/* initialize + notifications/initialized; writes the session id. */
static void open_session(char *sid, size_t cap)
{
    resp r;

    req(&r, "POST", "/mcp", NULL, INIT, NULL);
    cr_assert_eq(r.status, 200, "initialize: %ld %s", r.status, r.body);
    cr_assert_geq(strlen(r.sid), 32, "a session id of 32+ characters");
    snprintf(sid, cap, "%s", r.sid);
    resp_fini(&r);
    req(&r, "POST", "/mcp", sid, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", NULL);
    cr_assert_eq(r.status, 202);
    resp_fini(&r);
}

static int error_code(const resp *r)
{
    json_t *v = json_loads(r->body != NULL ? r->body : "", 0, NULL);
    int code = (int)json_integer_value(json_object_get(json_object_get(v, "error"), "code"));

    json_decref(v);
    return code;
}

static double now_s(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static void pause_ms(long ms)
{
    struct timespec t = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};

    nanosleep(&t, NULL);
}

Test(http, initialize_call_notify_delete)
{
    char sid[128];
    resp r;
    json_t *v;

    req(&r, "POST", "/mcp", NULL, INIT, NULL);
    cr_assert_eq(r.status, 200);
    cr_expect(strncmp(r.ctype, "application/json", 16) == 0);
    cr_expect_eq(strlen(r.sid), 64);
    cr_expect_eq(strspn(r.sid, "0123456789abcdef"), 64, "hex session id");
    snprintf(sid, sizeof sid, "%s", r.sid);
    v = fake_parse(r.body);
    cr_expect_str_eq(json_string_value(json_object_get(json_object_get(v, "result"), "protocolVersion")), "2025-11-25");
    json_decref(v);
    resp_fini(&r);
    cr_expect_eq(kd_mcp_http_session_count(http), 1);

    req(&r, "POST", "/mcp", sid, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
        (const char *[]){"MCP-Protocol-Version: 2025-11-25", NULL});
    cr_expect_eq(r.status, 202);
    cr_expect_eq(r.len, 0, "202 has no body");
    resp_fini(&r);

    req(&r, "POST", "/mcp", sid,
        "{\"jsonrpc\":\"2.0\",\"id\":\"c1\",\"method\":\"tools/call\","
        "\"params\":{\"name\":\"echo\",\"arguments\":{\"row\":2}}}",
        (const char *[]){"MCP-Protocol-Version: 2025-03-26", NULL});
    cr_assert_eq(r.status, 200, "%s", r.body);
    v = fake_parse(r.body);
    cr_expect_str_eq(json_string_value(json_object_get(v, "id")), "c1");
    cr_expect_eq(
        json_integer_value(json_object_get(
            json_object_get(json_object_get(json_object_get(v, "result"), "structuredContent"), "echo"), "row")),
        2);
    json_decref(v);
    resp_fini(&r);

    req(&r, "POST", "/mcp", sid, "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{}}", NULL);
    cr_expect_eq(r.status, 202, "a response gets 202");
    resp_fini(&r);

    req(&r, "DELETE", "/mcp", sid, NULL, NULL);
    cr_expect(r.status == 204 || r.status == 200);
    resp_fini(&r);
    req(&r, "POST", "/mcp", sid, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}", NULL);
    cr_expect_eq(r.status, 404, "an ended session is not found");
    resp_fini(&r);
    req(&r, "DELETE", "/mcp", sid, NULL, NULL);
    cr_expect_eq(r.status, 404);
    resp_fini(&r);
    cr_expect_eq(kd_mcp_http_session_count(http), 0);
}

Test(http, failed_initialize_makes_no_session)
{
    resp r;

    req(&r, "POST", "/mcp", NULL,
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
        "\"params\":{}}",
        NULL);
    cr_expect_eq(r.status, 200);
    cr_expect_eq(error_code(&r), -32602);
    cr_expect_eq(r.sid[0], '\0', "no session id for a failed initialize");
    resp_fini(&r);
    cr_expect_eq(kd_mcp_http_session_count(http), 0);
}

/* ---- SSE --------------------------------------------------------------- */

typedef struct {
    pthread_t thread;
    char sid[128];
    pthread_mutex_t lock;
    char buf[65536];
    size_t len;
    long status;
    CURLcode rc;
    int done; /* the request ended (lock) */
} stream;

static size_t on_stream(char *p, size_t size, size_t n, void *ud)
{
    stream *s = ud;
    size_t k = size * n;

    pthread_mutex_lock(&s->lock);
    if (s->len + k < sizeof s->buf) {
        memcpy(s->buf + s->len, p, k);
        s->len += k;
        s->buf[s->len] = '\0';
    }
    pthread_mutex_unlock(&s->lock);
    return k;
}

static void *stream_main(void *arg)
{
    stream *s = arg;
    CURL *c = curl_easy_init();
    struct curl_slist *h = NULL;
    char line[200], url[128];

    snprintf(url, sizeof url, "%s/mcp", base);
    snprintf(line, sizeof line, "Mcp-Session-Id: %s", s->sid);
    h = curl_slist_append(h, line);
    h = curl_slist_append(h, "Accept: text/event-stream");
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_stream);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, s);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 120L);
    s->rc = curl_easy_perform(c);
    pthread_mutex_lock(&s->lock);
    s->done = 1;
    pthread_mutex_unlock(&s->lock);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &s->status);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    return NULL;
}

static void stream_start(stream *s, const char *sid)
{
    memset(s, 0, sizeof *s);
    pthread_mutex_init(&s->lock, NULL);
    snprintf(s->sid, sizeof s->sid, "%s", sid);
    cr_assert_eq(pthread_create(&s->thread, NULL, stream_main, s), 0);
}

static size_t count(stream *s, const char *needle)
{
    size_t n = 0;
    const char *p;

    pthread_mutex_lock(&s->lock);
    for (p = s->buf; (p = strstr(p, needle)) != NULL; p++)
        n++;
    pthread_mutex_unlock(&s->lock);
    return n;
}

/* Polls until `cond` holds or 10 s pass. */
#define WAIT_FOR(cond)                                   \
    do {                                                 \
        double deadline_ = now_s() + 10.0;               \
        while (!(cond) && now_s() < deadline_)           \
            pause_ms(10);                                \
        cr_assert(cond, "timed out waiting for " #cond); \
    } while (0)

Test(http, sse_delivers_resource_updated)
{
    char sid[128];
    stream s;
    resp r;

    open_session(sid, sizeof sid);
    req(&r, "POST", "/mcp", sid,
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/subscribe\","
        "\"params\":{\"uri\":\"test://a\"}}",
        NULL);
    cr_assert_eq(r.status, 200);
    resp_fini(&r);
    stream_start(&s, sid);
    WAIT_FOR(count(&s, ": stream open") == 1);
    kd_mcp_server_notify_resource_updated(srv, "test://a");
    WAIT_FOR(count(&s, "notifications/resources/updated") == 1);
    cr_expect_eq(count(&s, "event: message\ndata: {"), 1, "an SSE event with a JSON data line");
    cr_expect_eq(count(&s, "\"uri\":\"test://a\""), 1);
    WAIT_FOR(count(&s, ": keepalive") >= 1); /* keepalive_ms is 200 in this suite */

    req(&r, "DELETE", "/mcp", sid, NULL, NULL);
    resp_fini(&r);
    pthread_join(s.thread, NULL); /* the stream ends with the session */
    cr_expect_eq(s.status, 200);
    pthread_mutex_destroy(&s.lock);
}

Test(http, sse_multiple_streams_each_message_once)
{
    char sid[128];
    stream a, b;
    resp r;

    open_session(sid, sizeof sid);
    req(&r, "POST", "/mcp", sid,
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/subscribe\","
        "\"params\":{\"uri\":\"test://b\"}}",
        NULL);
    resp_fini(&r);
    stream_start(&a, sid);
    stream_start(&b, sid);
    WAIT_FOR(count(&a, ": stream open") == 1 && count(&b, ": stream open") == 1);
    kd_mcp_server_notify_resource_updated(srv, "test://b");
    kd_mcp_server_notify_resource_updated(srv, "test://b");
    kd_mcp_server_notify_resource_updated(srv, "test://b");
    WAIT_FOR(count(&a, "resources/updated") + count(&b, "resources/updated") >= 3);
    pause_ms(100);
    cr_expect_eq(count(&a, "resources/updated") + count(&b, "resources/updated"), 3,
                 "each message goes to exactly one stream");

    /* Concurrent POSTs on the same session while streams are open. */
    req(&r, "POST", "/mcp", sid, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/list\"}", NULL);
    cr_expect_eq(r.status, 200);
    resp_fini(&r);
    req(&r, "DELETE", "/mcp", sid, NULL, NULL);
    resp_fini(&r);
    pthread_join(a.thread, NULL);
    pthread_join(b.thread, NULL);
    pthread_mutex_destroy(&a.lock);
    pthread_mutex_destroy(&b.lock);
}

Test(http, stream_limit)
{
    char sid[128];
    stream s[4];
    resp r;
    int i;

    open_session(sid, sizeof sid);
    for (i = 0; i < 4; i++)
        stream_start(&s[i], sid);
    for (i = 0; i < 4; i++)
        WAIT_FOR(count(&s[i], ": stream open") == 1);
    req(&r, "GET", "/mcp", sid, NULL, (const char *[]){"Accept: text/event-stream", NULL});
    cr_expect_eq(r.status, 429, "beyond max_streams_per_session");
    cr_expect_eq(error_code(&r), -32000);
    resp_fini(&r);
    req(&r, "DELETE", "/mcp", sid, NULL, NULL);
    resp_fini(&r);
    for (i = 0; i < 4; i++) {
        pthread_join(s[i].thread, NULL);
        pthread_mutex_destroy(&s[i].lock);
    }
}

/* ---- refusals ---------------------------------------------------------- */

Test(http, status_codes)
{
    static const char *PING = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}";
    char sid[128], big[8192];
    resp r;

    open_session(sid, sizeof sid);

    req(&r, "POST", "/mcp", NULL, PING, NULL);
    cr_expect_eq(r.status, 400, "no session id");
    cr_expect(strstr(r.body, "Mcp-Session-Id") != NULL);
    resp_fini(&r);
    req(&r, "POST", "/mcp", "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", PING, NULL);
    cr_expect_eq(r.status, 404, "unknown session id");
    cr_expect_eq(error_code(&r), -32001);
    resp_fini(&r);
    req(&r, "GET", "/mcp", NULL, NULL, (const char *[]){"Accept: text/event-stream", NULL});
    cr_expect_eq(r.status, 400, "GET without a session id");
    resp_fini(&r);
    req(&r, "PUT", "/mcp", sid, PING, NULL);
    cr_expect_eq(r.status, 405);
    resp_fini(&r);
    req(&r, "GET", "/other", sid, NULL, NULL);
    cr_expect_eq(r.status, 404);
    resp_fini(&r);
    req(&r, "POST", "/mcp", sid, PING, (const char *[]){"Accept: text/html", NULL});
    cr_expect_eq(r.status, 406);
    resp_fini(&r);
    req(&r, "GET", "/mcp", sid, NULL, (const char *[]){"Accept: application/json", NULL});
    cr_expect_eq(r.status, 406, "GET must accept text/event-stream");
    resp_fini(&r);
    req(&r, "POST", "/mcp", sid, PING, (const char *[]){"Content-Type: text/plain", NULL});
    cr_expect_eq(r.status, 415);
    resp_fini(&r);
    req(&r, "POST", "/mcp", sid, PING,
        (const char *[]){"Content-Type: application/json; charset=utf-8", "Accept: */*", NULL});
    cr_expect_eq(r.status, 200, "parameters and wildcards are understood");
    resp_fini(&r);
    req(&r, "POST", "/mcp", sid, PING, (const char *[]){"MCP-Protocol-Version: 1999-01-01", NULL});
    cr_expect_eq(r.status, 400, "unsupported protocol version header");
    resp_fini(&r);
    req(&r, "POST", "/mcp", sid, "{nope", NULL);
    cr_expect_eq(r.status, 400);
    cr_expect_eq(error_code(&r), -32700);
    resp_fini(&r);
    req(&r, "POST", "/mcp", sid, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]", NULL);
    cr_expect_eq(r.status, 400);
    cr_expect_eq(error_code(&r), -32600, "a batch is an invalid request");
    resp_fini(&r);
    req(&r, "POST", "/mcp", sid, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"nope\"}", NULL);
    cr_expect_eq(r.status, 200);
    cr_expect_eq(error_code(&r), -32601);
    resp_fini(&r);

    memset(big, ' ', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    memcpy(big, PING, strlen(PING));
    restart(&(kd_mcp_server_options){0}, &(kd_mcp_http_options){.max_body_bytes = 1024});
    req(&r, "POST", "/mcp", NULL, big, NULL);
    cr_expect_eq(r.status, 413, "a body over the limit");
    cr_expect(strstr(r.body, "1024") != NULL, "the error names the limit");
    resp_fini(&r);
}

Test(http, origin_and_host)
{
    char host[80];
    resp r;

    req(&r, "POST", "/mcp", NULL, INIT, (const char *[]){"Host: evil.example.com", NULL});
    cr_expect_eq(r.status, 403, "DNS rebinding: a foreign Host");
    resp_fini(&r);
    req(&r, "POST", "/mcp", NULL, INIT, (const char *[]){"Host: evil.example.com:80", NULL});
    cr_expect_eq(r.status, 403);
    resp_fini(&r);
    snprintf(host, sizeof host, "Host: localhost:%u", kd_mcp_http_port(http));
    req(&r, "POST", "/mcp", NULL, INIT, (const char *[]){host, NULL});
    cr_expect_eq(r.status, 200, "localhost with a port");
    resp_fini(&r);
    req(&r, "POST", "/mcp", NULL, INIT, (const char *[]){"Host: [::1]:1234", NULL});
    cr_expect_eq(r.status, 200);
    resp_fini(&r);
    req(&r, "POST", "/mcp", NULL, INIT, (const char *[]){"Origin: http://evil.example", NULL});
    cr_expect_eq(r.status, 403, "a foreign Origin");
    resp_fini(&r);
    req(&r, "POST", "/mcp", NULL, INIT, (const char *[]){"Origin: null", NULL});
    cr_expect_eq(r.status, 403);
    resp_fini(&r);
    req(&r, "POST", "/mcp", NULL, INIT, (const char *[]){"Origin: http://localhost.evil.example", NULL});
    cr_expect_eq(r.status, 403, "a prefix of localhost is not localhost");
    resp_fini(&r);
    req(&r, "POST", "/mcp", NULL, INIT, (const char *[]){"Origin: http://localhost:3000", NULL});
    cr_expect_eq(r.status, 200);
    resp_fini(&r);
    req(&r, "POST", "/mcp", NULL, INIT, (const char *[]){"Origin: https://127.0.0.1", NULL});
    cr_expect_eq(r.status, 200);
    resp_fini(&r);
}

Test(http, allowed_origins_configured)
{
    static const char *const ORIGINS[] = {"https://app.example"};
    resp r;

    restart(NULL, &(kd_mcp_http_options){.allowed_origins = ORIGINS, .n_allowed_origins = 1});
    req(&r, "POST", "/mcp", NULL, INIT, (const char *[]){"Origin: https://app.example", NULL});
    cr_expect_eq(r.status, 200);
    resp_fini(&r);
    req(&r, "POST", "/mcp", NULL, INIT, (const char *[]){"Origin: https://other.example", NULL});
    cr_expect_eq(r.status, 403);
    resp_fini(&r);
}

Test(http, bearer_token)
{
    resp r;

    restart(NULL, &(kd_mcp_http_options){.bearer_token = "s3cret"});
    req(&r, "POST", "/mcp", NULL, INIT, NULL);
    cr_expect_eq(r.status, 401);
    cr_expect(strncmp(r.www_auth, "Bearer", 6) == 0, "WWW-Authenticate: %s", r.www_auth);
    resp_fini(&r);
    req(&r, "POST", "/mcp", NULL, INIT, (const char *[]){"Authorization: Bearer wrong", NULL});
    cr_expect_eq(r.status, 401);
    cr_expect(strstr(r.www_auth, "invalid_token") != NULL);
    resp_fini(&r);
    req(&r, "POST", "/mcp", NULL, INIT, (const char *[]){"Authorization: Bearer s3cret", NULL});
    cr_expect_eq(r.status, 200);
    resp_fini(&r);
}

Test(http, refuses_public_bind_without_token)
{
    kd_mcp_http *h = NULL;

    cr_expect_eq(kd_mcp_http_start(srv, &(kd_mcp_http_options){.bind_address = "0.0.0.0"}, &h), KD_ERR_INVALID_ARG);
    cr_expect_null(h);
    cr_expect_eq(kd_mcp_http_start(srv, &(kd_mcp_http_options){.bind_address = "nonsense"}, &h), KD_ERR_INVALID_ARG);
}

Test(http, session_limit)
{
    char a[128], b[128];
    resp r;

    restart(NULL, &(kd_mcp_http_options){.max_sessions = 2});
    open_session(a, sizeof a);
    open_session(b, sizeof b);
    req(&r, "POST", "/mcp", NULL, INIT, NULL);
    cr_expect_eq(r.status, 503);
    cr_expect_eq(error_code(&r), -32000);
    cr_expect(strstr(r.body, "session limit (2)") != NULL);
    resp_fini(&r);
    req(&r, "DELETE", "/mcp", a, NULL, NULL);
    resp_fini(&r);
    req(&r, "POST", "/mcp", NULL, INIT, NULL);
    cr_expect_eq(r.status, 200, "a slot frees up after DELETE");
    resp_fini(&r);
}

/* Counts the 429 answers among `n` tools/list on session `sid`. */
static int limited_of(const char *sid, int n)
{
    resp r;
    int i, limited = 0;

    for (i = 0; i < n; i++) {
        req(&r, "POST", "/mcp", sid, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}", NULL);
        if (r.status == 429) {
            limited++;
            cr_expect_eq(error_code(&r), -32000);
        } else {
            cr_expect_eq(r.status, 200);
        }
        resp_fini(&r);
    }
    return limited;
}

Test(http, rate_limit)
{
    static fake_clock clock; /* outlives the test body: teardown frees the server */
    char sid[128];

    atomic_store(&clock.ns, 5000000000u);
    restart(
        &(kd_mcp_server_options){
            .calls_per_second = 1, .call_burst = 2, .clock_ns = fake_clock_ns, .clock_ctx = &clock},
        NULL);
    open_session(sid, sizeof sid);
    cr_expect_eq(limited_of(sid, 5), 3, "two pass, three get 429");
    fake_clock_advance(&clock, 1000000000u);
    cr_expect_eq(limited_of(sid, 2), 1, "a second later one more passes");
}

static kd_err fixed_metrics(void *ctx, kd_buf *out)
{
    const char *text = ctx;
    return kd_buf_append(out, text, strlen(text) + 1);
}

Test(http, metrics_endpoint)
{
    resp r;

    /* Without a metrics callback there is no /metrics. */
    req(&r, "GET", "/metrics", NULL, NULL, NULL);
    cr_expect_eq(r.status, 404);
    resp_fini(&r);

    restart(NULL, &(kd_mcp_http_options){.bearer_token = "s3cret",
                                         .metrics = fixed_metrics,
                                         .metrics_ctx = "kdapp_blocks_applied_total 3\n"});
    const char *auth[] = {"Authorization: Bearer s3cret", NULL};
    req(&r, "GET", "/metrics", NULL, NULL, auth);
    cr_expect_eq(r.status, 200);
    cr_expect(r.body && strcmp(r.body, "kdapp_blocks_applied_total 3\n") == 0, "body: %s", r.body);
    resp_fini(&r);
    req(&r, "GET", "/metrics", NULL, NULL, NULL);
    cr_expect_eq(r.status, 401, "the bearer token guards /metrics too");
    resp_fini(&r);
    req(&r, "POST", "/metrics", NULL, "{}", auth);
    cr_expect_eq(r.status, 405);
    resp_fini(&r);
    req(&r, "GET", "/metrics", NULL, NULL,
        (const char *[]){"Authorization: Bearer s3cret", "Host: evil.example", NULL});
    cr_expect_eq(r.status, 403, "DNS-rebinding protection covers /metrics");
    resp_fini(&r);
}

/* ---- idle and half-open connections ------------------------------------ */

/* A connection that sends half the headers of a POST, then nothing (send
 * errors are ignored: the server may have closed it already). */
static int half_open(void)
{
    static const char PART[] = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: appli";
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(kd_mcp_http_port(http))};
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

    cr_assert_geq(fd, 0, "socket: %s", strerror(errno));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0, "connect: %s", strerror(errno));
    (void)send(fd, PART, sizeof PART - 1, MSG_NOSIGNAL);
    return fd;
}

/* How many of `fds` the server has closed (end of file or reset); each
 * closed one is closed here too and set to -1. Never blocks. */
static int closed_count(int *fds, int n)
{
    char b[512];
    ssize_t got;
    int i, closed = 0;

    for (i = 0; i < n; i++) {
        if (fds[i] >= 0) {
            while ((got = recv(fds[i], b, sizeof b, MSG_DONTWAIT)) > 0)
                ; /* an answer before the close, if any */
            if (got == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) {
                close(fds[i]);
                fds[i] = -1;
            }
        }
        closed += fds[i] < 0;
    }
    return closed;
}

static int stream_done(stream *s)
{
    int done;

    pthread_mutex_lock(&s->lock);
    done = s->done;
    pthread_mutex_unlock(&s->lock);
    return done;
}

/* Polls until `cond` holds or `seconds` pass. */
#define WAIT_FOR_S(cond, seconds)                        \
    do {                                                 \
        double deadline_ = now_s() + (seconds);          \
        while (!(cond) && now_s() < deadline_)           \
            pause_ms(20);                                \
        cr_assert(cond, "timed out waiting for " #cond); \
    } while (0)

/* Hundreds of connections that send half a request and wait. Before, the
 * 129th such connection locked every client out (each new one was reset
 * at once) and none ever timed out. Now clients are served beside them,
 * the server closes them once they have been silent for the timeout, and
 * neither a slower tool call nor a quiet event stream counts as silent. */
Test(http, half_open_connections_lock_no_one_out, .timeout = 240)
{
    enum { HALF_OPEN = 300, CALLS = 10 };
    static int fds[HALF_OPEN];
    char sid[128];
    stream s;
    resp r;
    double t;
    int i;

    restart(NULL, &(kd_mcp_http_options){.connection_timeout_s = 2});
    open_session(sid, sizeof sid);
    req(&r, "POST", "/mcp", sid,
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/subscribe\",\"params\":{\"uri\":\"test://a\"}}", NULL);
    resp_fini(&r);
    stream_start(&s, sid);
    WAIT_FOR(count(&s, ": stream open") == 1);

    for (i = 0; i < HALF_OPEN; i++)
        fds[i] = half_open();
    for (i = 0; i < CALLS; i++) {
        t = now_s();
        req(&r, "POST", "/mcp", sid,
            "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\","
            "\"params\":{\"name\":\"echo\",\"arguments\":{\"row\":1}}}",
            NULL);
        t = now_s() - t;
        cr_expect_eq(r.status, 200, "call %d beside %d half-open connections: %ld", i, HALF_OPEN, r.status);
        cr_expect_lt(t, 5.0, "call %d answered in %.2f s (a generous bound; it takes milliseconds)", i, t);
        resp_fini(&r);
    }
    req(&r, "POST", "/mcp", sid,
        "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\","
        "\"params\":{\"name\":\"sleep\",\"arguments\":{\"ms\":3000}}}",
        NULL);
    cr_expect_eq(r.status, 200, "a call slower than the timeout is answered");
    cr_expect(r.body != NULL && strstr(r.body, "\"slept_ms\":3000") != NULL, "%s", r.body);
    resp_fini(&r);

    WAIT_FOR_S(closed_count(fds, HALF_OPEN) == HALF_OPEN, 90);
    cr_expect_eq(stream_done(&s), 0, "the quiet event stream outlived the timeout");
    cr_expect_geq(count(&s, ": keepalive"), 2, "it carried keepalives (every half timeout)");
    kd_mcp_server_notify_resource_updated(srv, "test://a");
    WAIT_FOR(count(&s, "resources/updated") == 1);

    req(&r, "DELETE", "/mcp", sid, NULL, NULL);
    resp_fini(&r);
    pthread_join(s.thread, NULL);
    cr_expect_eq(s.status, 200);
    pthread_mutex_destroy(&s.lock);
}

static atomic_int refusal_lines;

static void count_refusals(void *ctx, kd_log_level level, const char *subsystem, const char *line)
{
    (void)ctx;
    (void)level;
    (void)subsystem;
    if (strstr(line, "per-address limit") != NULL)
        atomic_fetch_add(&refusal_lines, 1);
}

/* One address holds at most max_connections_per_address connections; the
 * refusals are logged a few lines per window, not one line each. Loopback
 * is exempt by default (the test above holds 300 connections from it), so
 * this one counts it; one polling thread makes the order of accepts, and
 * so the count, exact. */
Test(http, per_address_limit_and_quiet_refusals)
{
    enum { LIMIT = 4, EXTRA = 40 };
    int held[LIMIT], extra[EXTRA], i;

    kd_log_set_sink(count_refusals, NULL);
    restart(NULL, &(kd_mcp_http_options){.max_connections_per_address = LIMIT, .limit_loopback = 1, .poll_threads = 1});
    for (i = 0; i < LIMIT; i++)
        held[i] = half_open();
    for (i = 0; i < EXTRA; i++)
        extra[i] = half_open();
    WAIT_FOR(closed_count(extra, EXTRA) == EXTRA);
    cr_expect_eq(closed_count(held, LIMIT), 0, "the connections within the limit stay");
    cr_expect(atomic_load(&refusal_lines) >= 1 && atomic_load(&refusal_lines) <= 10,
              "%d log lines for %d refusals (at most 5 per 10 s)", atomic_load(&refusal_lines), EXTRA);
    cr_expect_eq(status_of("/metrics"), 0, "a client of that address is refused");
    close(held[0]);
    WAIT_FOR(status_of("/metrics") == 404); /* a slot freed: the client is served */
    for (i = 1; i < LIMIT; i++)
        close(held[i]);
    kd_log_set_sink(NULL, NULL);
}
