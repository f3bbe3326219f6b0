/*
 * http_test.c — the Streamable HTTP transport end to end with libcurl on
 * 127.0.0.1 and a port the system picks: sessions, POST/GET/DELETE, SSE
 * delivery of server notifications, and every refusal (400, 401, 403, 404,
 * 405, 406, 413, 415, 429, 503).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <criterion/criterion.h>
#include <curl/curl.h>

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

static void start_with(const kd_mcp_server_options *so, const kd_mcp_http_options *ho)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
    srv = fake_server_new(so);
    cr_assert_eq(kd_mcp_http_start(srv, ho, &http), KD_OK);
    cr_assert_gt(kd_mcp_http_port(http), 0);
    snprintf(host_port, sizeof host_port, "127.0.0.1:%u", kd_mcp_http_port(http));
    snprintf(base, sizeof base, "http://%s", host_port);
}

static void setup(void) { start_with(NULL, &(kd_mcp_http_options){.port = 0, .keepalive_ms = 200}); }

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

/* One request. `extra` (NULL-terminated, may be NULL) comes first and
 * replaces the JSON defaults of the same name. */
static void req(resp *out, const char *method, const char *path, const char *sid, const char *body,
                const char *const *extra)
{
    CURL *c = curl_easy_init();
    struct curl_slist *h = NULL;
    char url[128], line[200];
    const char *const *e;

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
    cr_assert_eq(curl_easy_perform(c), CURLE_OK, "%s %s failed", method, path);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &out->status);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
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
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 30L);
    s->rc = curl_easy_perform(c);
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
    kd_mcp_http_stop(http);
    kd_mcp_server_free(srv);
    srv = fake_server_new(NULL);
    cr_assert_eq(kd_mcp_http_start(srv, &(kd_mcp_http_options){.max_body_bytes = 1024}, &http), KD_OK);
    snprintf(host_port, sizeof host_port, "127.0.0.1:%u", kd_mcp_http_port(http));
    snprintf(base, sizeof base, "http://%s", host_port);
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

    kd_mcp_http_stop(http);
    cr_assert_eq(
        kd_mcp_http_start(srv, &(kd_mcp_http_options){.allowed_origins = ORIGINS, .n_allowed_origins = 1}, &http),
        KD_OK);
    snprintf(base, sizeof base, "http://127.0.0.1:%u", kd_mcp_http_port(http));
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

    kd_mcp_http_stop(http);
    cr_assert_eq(kd_mcp_http_start(srv, &(kd_mcp_http_options){.bearer_token = "s3cret"}, &http), KD_OK);
    snprintf(base, sizeof base, "http://127.0.0.1:%u", kd_mcp_http_port(http));
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

    kd_mcp_http_stop(http);
    cr_assert_eq(kd_mcp_http_start(srv, &(kd_mcp_http_options){.max_sessions = 2}, &http), KD_OK);
    snprintf(base, sizeof base, "http://127.0.0.1:%u", kd_mcp_http_port(http));
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
    kd_mcp_http_stop(http);
    kd_mcp_server_free(srv);
    srv = fake_server_new(&(kd_mcp_server_options){
        .calls_per_second = 1, .call_burst = 2, .clock_ns = fake_clock_ns, .clock_ctx = &clock});
    cr_assert_eq(kd_mcp_http_start(srv, NULL, &http), KD_OK);
    snprintf(base, sizeof base, "http://127.0.0.1:%u", kd_mcp_http_port(http));
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

    kd_mcp_http_stop(http);
    cr_assert_eq(kd_mcp_http_start(srv,
                                   &(kd_mcp_http_options){.bearer_token = "s3cret",
                                                          .metrics = fixed_metrics,
                                                          .metrics_ctx = "kdapp_blocks_applied_total 3\n"},
                                   &http),
                 KD_OK);
    snprintf(base, sizeof base, "http://127.0.0.1:%u", kd_mcp_http_port(http));
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
