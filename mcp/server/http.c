/*
 * http.c — the Streamable HTTP transport: the libmicrohttpd daemon, the
 * checks every request passes, and the POST, GET and DELETE handlers.
 *
 * libmicrohttpd calls on_request several times per request: once when the
 * headers are in (all header checks run then, and a refusal is queued at
 * once so that an oversized or forbidden body is never read), then once per
 * chunk of body, then once more with no data, when the POST is handled:
 * at once when the server calls it quick (kd_mcp_server_is_quick: all but
 * tool calls that may wait, such as a move waiting for its block), else on
 * a worker with the connection suspended; the worker resumes it with the
 * answer ready, and one more call queues it. Every call runs on one of
 * libmicrohttpd's few polling threads, so none may block (http_int.h shows
 * the threads). Connections that send nothing for connection_timeout_s
 * are closed by libmicrohttpd: a half-sent request, or an idle keep-alive
 * connection; a suspended one (a POST being handled, a quiet event stream)
 * is not idle.
 *
 * Order of checks, first failure wins:
 *
 *   path /mcp? ─no─▶ 404     Host loopback? ─no─▶ 403   Origin ok? ─no─▶ 403
 *   (a web-app path, when there is a page callback: served here, GET only;
 *   the callback decides whether its answer needs the bearer token)
 *   token ok? ─no─▶ 401      (/metrics, the events path: served here)
 *   GET|POST|DELETE? ─no─▶ 405
 *   MCP-Protocol-Version supported (when present)? ─no─▶ 400
 *   POST: Content-Type json? ─no─▶ 415   Accept json? ─no─▶ 406
 *         Content-Length ≤ limit? ─no─▶ 413
 *   GET:  Accept event-stream? ─no─▶ 406
 *   then the session: id missing ─▶ 400, unknown or ended ─▶ 404,
 *         another token's ─▶ 403
 *
 * "token ok": with bearer_token set or beyond loopback, the request must
 * carry one of the configured tokens; on loopback without bearer_token it
 * may carry none (the public), but a token it carries must be a known one
 * (see kd_http_authenticate). The token a request carried (its index in
 * h->tokens, or KD_HTTP_NO_TOKEN) is who it is: a session is created for
 * it, and only it may use that session afterwards.
 *
 * Every refusal carries a JSON-RPC error body (id null unless known) whose
 * message says what was wrong.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "engine/logger.h"
#include "mcp/server/http_int.h"
#include "mcp/server/jsonrpc.h"

#define ENDPOINT "/mcp"
#define METRICS_PATH "/metrics"
#define H_SESSION "Mcp-Session-Id"
#define H_VERSION "MCP-Protocol-Version"
#define SESSION_NOT_FOUND (-32001) /* as the reference SDKs answer */
#define SESSION_NOT_FOUND_MSG "Session not found: it ended or never existed; send initialize for a new one"
#define SESSION_NOT_YOURS_MSG "Forbidden: this session belongs to another token"

/* An answer built off the polling thread, queued on it. */
typedef struct {
    unsigned status;
    char *body;        /* malloc'd, or NULL for none */
    const char *ctype; /* static strings, or NULL */
    const char *xname, *xvalue;
    char sid[KD_HTTP_SESSION_ID_HEX + 1]; /* Mcp-Session-Id to send, or "" */
    int close;                            /* Connection: close */
} answer;

/* Where a request is (on_request is called again at each step). */
typedef enum {
    REQ_BODY,    /* reading a POST body */
    REQ_RUNNING, /* a worker handles it; the connection is suspended */
    REQ_READY,   /* the worker's answer waits to be queued */
    REQ_SENT,    /* a response is queued; any remaining body is dropped */
} req_stage;

typedef struct {
    kd_http_job job; /* the pool's link (http_pool.c) */
    kd_mcp_http *h;
    struct MHD_Connection *conn;
    req_stage stage;
    int too_large;
    kd_http_client_key who; /* the client: the token it carried (authenticate), or its address */
    char *sid;              /* the request's Mcp-Session-Id, or NULL */
    char *body;
    size_t len, cap;
    kd_jsonrpc_msg msg; /* the parsed body, for handle_post */
    answer out;
    /* A costly page, built on a worker (serve_page): */
    int page, authorized;
    const void *principal;
    char *url;
    kd_mcp_http_page pg;
    kd_err pg_err;
} req;

/* ---- responses --------------------------------------------------------- */

/* Fills `a`; `body` (malloc'd or NULL) is taken, `sid` copied. */
static void answer_set(answer *a, unsigned status, char *body, const char *ctype, const char *sid, const char *xname,
                       const char *xvalue)
{
    free(a->body);
    a->status = status;
    a->body = body;
    a->ctype = ctype;
    a->xname = xname;
    a->xvalue = xvalue;
    snprintf(a->sid, sizeof a->sid, "%s", sid != NULL ? sid : "");
}

/* Queues `a`; its body goes to libmicrohttpd. */
static enum MHD_Result answer_send(const kd_mcp_http *h, struct MHD_Connection *c, answer *a)
{
    struct MHD_Response *r;
    enum MHD_Result ret;
    char *body = a->body;

    a->body = NULL;
    if (body != NULL)
        r = MHD_create_response_from_buffer(strlen(body), body, MHD_RESPMEM_MUST_FREE);
    else
        r = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
    if (r == NULL) {
        free(body);
        return MHD_NO;
    }
    if (a->ctype != NULL)
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, a->ctype);
    if (a->sid[0] != '\0')
        MHD_add_response_header(r, H_SESSION, a->sid);
    if (a->xname != NULL)
        MHD_add_response_header(r, a->xname, a->xvalue);
    if (a->close)
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    /* Tells clients that pool connections (undici, behind the TypeScript
     * SDK) when an idle one will be closed, so they stop reusing it first
     * instead of sending a request into a closing socket. */
    MHD_add_response_header(r, "Keep-Alive", h->keep_alive);
    ret = MHD_queue_response(c, a->status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result queue(const kd_mcp_http *h, struct MHD_Connection *c, unsigned status, char *body,
                             const char *ctype, const char *sid, const char *xname, const char *xvalue)
{
    answer a = {0};

    answer_set(&a, status, body, ctype, sid, xname, xvalue);
    return answer_send(h, c, &a);
}

static void vfail_with(answer *a, unsigned status, json_t *id, int code, const char *xname, const char *xvalue,
                       const char *fmt, va_list ap) __attribute__((format(printf, 7, 0)));

/* Fills `a` with `status` and a JSON-RPC error body (id null unless
 * known) whose message says what was wrong. */
static void vfail_with(answer *a, unsigned status, json_t *id, int code, const char *xname, const char *xvalue,
                       const char *fmt, va_list ap)
{
    char msg[400];
    json_t *e;

    vsnprintf(msg, sizeof msg, fmt, ap);
    KD_LOG_D("mcp", "http: %u: %s", status, msg);
    e = kd_jsonrpc_error(id, code, msg, NULL);
    answer_set(a, status, kd_jsonrpc_dumps(e), "application/json", NULL, xname, xvalue);
    json_decref(e);
}

static void fail_with(answer *a, unsigned status, json_t *id, int code, const char *xname, const char *xvalue,
                      const char *fmt, ...) __attribute__((format(printf, 7, 8)));

static void fail_with(answer *a, unsigned status, json_t *id, int code, const char *xname, const char *xvalue,
                      const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vfail_with(a, status, id, code, xname, xvalue, fmt, ap);
    va_end(ap);
}

static enum MHD_Result refuse(const kd_mcp_http *h, struct MHD_Connection *c, unsigned status, json_t *id, int code,
                              const char *xname, const char *xvalue, const char *fmt, ...)
    __attribute__((format(printf, 8, 9)));

/* Queues `status` with a JSON-RPC error body, on the polling thread. */
static enum MHD_Result refuse(const kd_mcp_http *h, struct MHD_Connection *c, unsigned status, json_t *id, int code,
                              const char *xname, const char *xvalue, const char *fmt, ...)
{
    answer a = {0};
    va_list ap;

    va_start(ap, fmt);
    vfail_with(&a, status, id, code, xname, xvalue, fmt, ap);
    va_end(ap);
    return answer_send(h, c, &a);
}

/* ---- header checks ----------------------------------------------------- */

static const char *header(struct MHD_Connection *c, const char *name)
{
    return MHD_lookup_connection_value(c, MHD_HEADER_KIND, name);
}

/* Splits "host[:port]" / "[v6][:port]"; the host part's length, or 0 when
 * malformed. */
static size_t host_part(const char *v)
{
    size_t n;
    const char *rest;

    if (v[0] == '[') {
        const char *end = strchr(v, ']');

        if (end == NULL)
            return 0;
        n = (size_t)(end - v) + 1;
    } else {
        n = strcspn(v, ":");
    }
    rest = v + n;
    if (n == 0)
        return 0;
    if (*rest == '\0')
        return n;
    if (*rest != ':' || rest[1] == '\0' || strlen(rest + 1) > 5 || strspn(rest + 1, "0123456789") != strlen(rest + 1))
        return 0;
    return n;
}

static int loopback_name(const char *v, size_t n)
{
    static const char *const NAMES[] = {"localhost", "127.0.0.1", "[::1]"};
    size_t i;

    for (i = 0; i < sizeof NAMES / sizeof NAMES[0]; i++)
        if (strlen(NAMES[i]) == n && strncasecmp(v, NAMES[i], n) == 0)
            return 1;
    return 0;
}

static int listed(char *const *list, size_t n, const char *v, size_t vlen)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (strlen(list[i]) == vlen && strncasecmp(list[i], v, vlen) == 0)
            return 1;
    return 0;
}

/* DNS-rebinding protection: on loopback, Host must name a loopback host. */
static int host_ok(const kd_mcp_http *h, const char *host)
{
    size_t n;

    if (host == NULL) /* HTTP/1.0 without Host: no name to rebind */
        return 1;
    if (h->n_hosts > 0 && (listed(h->hosts, h->n_hosts, host, strlen(host)) ||
                           ((n = host_part(host)) > 0 && listed(h->hosts, h->n_hosts, host, n))))
        return 1;
    if (!h->loopback)
        return h->n_hosts == 0;
    n = host_part(host);
    return n > 0 && loopback_name(host, n);
}

static int origin_ok(const kd_mcp_http *h, const char *origin)
{
    const char *rest;
    size_t n;

    if (origin == NULL)
        return 1; /* not a browser */
    if (listed(h->origins, h->n_origins, origin, strlen(origin)))
        return 1;
    if (strncasecmp(origin, "http://", 7) == 0)
        rest = origin + 7;
    else if (strncasecmp(origin, "https://", 8) == 0)
        rest = origin + 8;
    else
        return 0;
    n = host_part(rest);
    return n > 0 && loopback_name(rest, n);
}

/* 1 when the media-type list `v` admits `type` ("text/event-stream"). */
static int accepts(const char *v, const char *type)
{
    const char *slash = strchr(type, '/');
    size_t major = (size_t)(slash - type);
    char item[128];
    size_t n, a, b;

    if (v == NULL)
        return 0;
    while (*v != '\0') {
        n = strcspn(v, ",");
        a = 0;
        while (a < n && (v[a] == ' ' || v[a] == '\t'))
            a++;
        b = a + strcspn(v + a, ";,");
        while (b > a && (v[b - 1] == ' ' || v[b - 1] == '\t'))
            b--;
        if (b - a < sizeof item) {
            memcpy(item, v + a, b - a);
            item[b - a] = '\0';
            if (strcasecmp(item, type) == 0 || strcmp(item, "*/*") == 0 ||
                (b - a == major + 2 && strncasecmp(item, type, major + 1) == 0 && item[major + 1] == '*'))
                return 1;
        }
        v += n;
        if (*v == ',')
            v++;
    }
    return 0;
}

static int json_content_type(const char *v)
{
    size_t n;

    if (v == NULL)
        return 0;
    n = strcspn(v, ";");
    while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t'))
        n--;
    return n == 16 && strncasecmp(v, "application/json", 16) == 0;
}

/* GET /metrics: the Prometheus text the program supplies. */
static enum MHD_Result serve_metrics(kd_mcp_http *h, struct MHD_Connection *c, const char *method)
{
    if (strcmp(method, "GET") != 0)
        return refuse(h, c, MHD_HTTP_METHOD_NOT_ALLOWED, NULL, KD_JSONRPC_INVALID_REQUEST, MHD_HTTP_HEADER_ALLOW, "GET",
                      "Method Not Allowed: use GET for " METRICS_PATH);
    kd_buf out;
    kd_buf_init(&out);
    if (h->metrics(h->metrics_ctx, &out) != KD_OK || out.len == 0 || out.data[out.len - 1] != '\0') {
        kd_buf_fini(&out);
        return refuse(h, c, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL, KD_JSONRPC_INTERNAL_ERROR, NULL, NULL,
                      "Internal Server Error: the metrics could not be read");
    }
    /* queue() takes ownership of the NUL-terminated text */
    return queue(h, c, MHD_HTTP_OK, (char *)out.data, "text/plain; version=0.0.4; charset=utf-8", NULL, NULL, NULL);
}

/* The headers of every answer of the web app: nothing but this origin's
 * own files may run or load, the answer is never sniffed, cached or named
 * in a Referer (which could carry a token in a fragment). */
static void page_headers(struct MHD_Response *r)
{
    MHD_add_response_header(r, "Content-Security-Policy",
                            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
                            "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
    MHD_add_response_header(r, "X-Frame-Options", "DENY");
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
}

/* Asks the program for its answer to a GET of `url` (kd_buf_init'ed
 * here). */
static kd_err page_build(kd_mcp_http *h, const char *url, int authorized, const void *principal, kd_mcp_http_page *p)
{
    memset(p, 0, sizeof *p);
    kd_buf_init(&p->body);
    return h->page(h->page_ctx, url, authorized, principal, p);
}

/* Queues the answer page_build made (`built`: what it returned); its body
 * goes to libmicrohttpd. */
static enum MHD_Result page_send(kd_mcp_http *h, struct MHD_Connection *c, kd_mcp_http_page *p, kd_err built)
{
    struct MHD_Response *r;
    enum MHD_Result ret;

    if (built != KD_OK) {
        kd_buf_fini(&p->body);
        return refuse(h, c, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL, KD_JSONRPC_INTERNAL_ERROR, NULL, NULL,
                      "Internal Server Error: the page could not be built");
    }
    r = MHD_create_response_from_buffer(p->body.len, p->body.len ? p->body.data : (void *)"",
                                        p->body.len ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
    if (r == NULL) {
        kd_buf_fini(&p->body);
        return MHD_NO;
    }
    if (p->body.len)
        kd_buf_init(&p->body); /* libmicrohttpd frees it */
    else
        kd_buf_fini(&p->body);
    if (p->content_type != NULL)
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, p->content_type);
    if (p->status == MHD_HTTP_UNAUTHORIZED)
        MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer realm=\"mcp\"");
    page_headers(r);
    ret = MHD_queue_response(c, p->status ? p->status : MHD_HTTP_NOT_FOUND, r);
    MHD_destroy_response(r);
    return ret;
}

/* Suspends `c` and hands `r` to a worker that runs `run` and resumes it
 * with the answer ready (suspended first, so that the resume always
 * follows); a request without a token is a stranger's job (http_pool.c).
 * When no worker takes it, the answer is a 503 at once. */
static enum MHD_Result to_worker(kd_mcp_http *h, struct MHD_Connection *c, req *r, void (*run)(kd_http_job *job))
{
    r->h = h;
    r->conn = c;
    r->job.run = run;
    r->job.stranger = r->who.token == KD_HTTP_NO_TOKEN;
    r->stage = REQ_RUNNING;
    MHD_suspend_connection(c);
    if (kd_http_pool_submit(h->pool, &r->job) != KD_OK) {
        fail_with(&r->out, MHD_HTTP_SERVICE_UNAVAILABLE, r->page ? NULL : r->msg.id, KD_MCP_LIMIT_EXCEEDED,
                  MHD_HTTP_HEADER_RETRY_AFTER, "5",
                  "Service Unavailable: the server is stopping or out of threads; retry later");
        if (!r->page)
            kd_jsonrpc_msg_fini(&r->msg);
        r->page = 0; /* the answer is r->out */
        r->stage = REQ_READY;
        MHD_resume_connection(c);
    }
    return MHD_YES;
}

/* The worker's side of a costly page: build it, then hand the connection
 * back. */
static void run_page(kd_http_job *job)
{
    req *r = (req *)job;
    struct MHD_Connection *c = r->conn;

    r->pg_err = page_build(r->h, r->url, r->authorized, r->principal, &r->pg);
    r->stage = REQ_READY;
    MHD_resume_connection(c); /* r may be gone from here on */
}

static int identified(kd_mcp_http *h, struct MHD_Connection *c, kd_http_class cls, int holds);
static enum MHD_Result refuse_share(kd_mcp_http *h, struct MHD_Connection *c, kd_http_class cls);

/*
 * GET on any other path: the web app the program supplies, answered at
 * once on this polling thread; a costly path (page_costly) within its
 * client's rate is built on a worker instead, the connection suspended
 * until the answer is ready, as a slow POST is.
 */
static enum MHD_Result serve_page(kd_mcp_http *h, struct MHD_Connection *c, req *r, const char *url, const char *method,
                                  int authorized, const void *principal)
{
    kd_http_class cls = r->who.token != KD_HTTP_NO_TOKEN ? KD_HTTP_GRANTED : KD_HTTP_PUBLIC;
    kd_mcp_http_page p;
    char retry[16];
    unsigned wait;

    if (strcmp(method, "GET") != 0)
        return refuse(h, c, MHD_HTTP_METHOD_NOT_ALLOWED, NULL, KD_JSONRPC_INVALID_REQUEST, MHD_HTTP_HEADER_ALLOW, "GET",
                      "Method Not Allowed: the web page is read-only (GET)");
    if (h->page_costly == NULL || !h->page_costly(h->page_ctx, url)) {
        (void)identified(h, c, cls, 0); /* answered at once: never refused */
        kd_err built = page_build(h, url, authorized, principal, &p);
        return page_send(h, c, &p, built);
    }
    if ((wait = kd_http_rate_take(h, &r->who)) > 0) {
        snprintf(retry, sizeof retry, "%u", wait);
        return refuse(h, c, MHD_HTTP_TOO_MANY_REQUESTS, NULL, KD_MCP_LIMIT_EXCEEDED, MHD_HTTP_HEADER_RETRY_AFTER, retry,
                      "Too Many Requests: %.80s is costly; each client (its token, else its address) may ask for %u "
                      "a second, and the clients without a token %u together; retry in %u s",
                      url, h->costly_per_s, KD_HTTP_COSTLY_TOKENLESS * h->costly_per_s, wait);
    }
    if (!identified(h, c, cls, 1))
        return refuse_share(h, c, cls);
    if ((r->url = strdup(url)) == NULL)
        return MHD_NO;
    r->page = 1;
    r->authorized = authorized;
    r->principal = principal;
    return to_worker(h, c, r, run_page);
}

/* GET events_path: the broadcast event stream (http_events.c). */
static enum MHD_Result serve_events(kd_mcp_http *h, struct MHD_Connection *c, const char *method,
                                    const kd_http_client_key *who)
{
    struct MHD_Response *r;
    enum MHD_Result ret;
    unsigned status;

    if (strcmp(method, "GET") != 0)
        return refuse(h, c, MHD_HTTP_METHOD_NOT_ALLOWED, NULL, KD_JSONRPC_INVALID_REQUEST, MHD_HTTP_HEADER_ALLOW, "GET",
                      "Method Not Allowed: use GET for the event stream");
    if (!accepts(header(c, MHD_HTTP_HEADER_ACCEPT), "text/event-stream"))
        return refuse(h, c, MHD_HTTP_NOT_ACCEPTABLE, NULL, KD_JSONRPC_INVALID_REQUEST, NULL, NULL,
                      "Not Acceptable: Accept must include text/event-stream");
    if ((r = kd_http_events_open(h, c, who, &status)) == NULL)
        return refuse(h, c, status, NULL, KD_JSONRPC_INTERNAL_ERROR, NULL, NULL, "Internal error: out of memory");
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/event-stream");
    page_headers(r);
    ret = MHD_queue_response(c, MHD_HTTP_OK, r);
    MHD_destroy_response(r);
    return ret;
}

/* Counts the connection to `cls` (http_conns.c): 1, or 0 when the request
 * `holds` its connection (a POST, a stream) and the share of `cls` is
 * full. */
static int identified(kd_mcp_http *h, struct MHD_Connection *c, kd_http_class cls, int holds)
{
    return kd_http_conn_identify(h, c, cls, holds) == 0;
}

/* The answer to a request beyond the share of its class: 503, and the
 * connection closes. */
static enum MHD_Result refuse_share(kd_mcp_http *h, struct MHD_Connection *c, kd_http_class cls)
{
    answer a = {0};

    fail_with(&a, MHD_HTTP_SERVICE_UNAVAILABLE, NULL, KD_MCP_LIMIT_EXCEEDED, MHD_HTTP_HEADER_RETRY_AFTER, "5",
              "Service Unavailable: the clients without a token hold their share of connections (%u %s); retry "
              "later, or use a token",
              h->max_class[cls], cls == KD_HTTP_PUBLIC ? "for the web page and /metrics" : "on " ENDPOINT);
    a.close = 1;
    return answer_send(h, c, &a);
}

/* Runs the checks common to every method; returns 1 after queueing a
 * refusal (or the answer of /metrics, the web app or the events path) in
 * *ret, else 0 with r->who set to the client: the token the request
 * carried, or its address. */
static int refused(kd_mcp_http *h, struct MHD_Connection *c, req *r, const char *url, const char *method,
                   enum MHD_Result *ret)
{
    const char *v;
    kd_http_auth auth;
    int token;

    int metrics = h->metrics && strcmp(url, METRICS_PATH) == 0;
    int events = h->events_path && strcmp(url, h->events_path) == 0;
    int page = h->page && !metrics && !events && strcmp(url, ENDPOINT) != 0;
    if (strcmp(url, ENDPOINT) != 0 && !metrics && !events && !page) {
        *ret = refuse(h, c, MHD_HTTP_NOT_FOUND, NULL, KD_JSONRPC_INVALID_REQUEST, NULL, NULL,
                      "Not Found: the MCP endpoint is " ENDPOINT);
        return 1;
    }
    if (!host_ok(h, header(c, MHD_HTTP_HEADER_HOST))) {
        KD_LOG_W("mcp", "http: refused a request for Host %.80s (DNS-rebinding protection)",
                 header(c, MHD_HTTP_HEADER_HOST));
        *ret = refuse(h, c, MHD_HTTP_FORBIDDEN, NULL, KD_JSONRPC_INVALID_REQUEST, NULL, NULL,
                      "Forbidden: Host header is not an allowed host");
        return 1;
    }
    if (!origin_ok(h, header(c, MHD_HTTP_HEADER_ORIGIN))) {
        KD_LOG_W("mcp", "http: refused a request from Origin %.80s", header(c, MHD_HTTP_HEADER_ORIGIN));
        *ret = refuse(h, c, MHD_HTTP_FORBIDDEN, NULL, KD_JSONRPC_INVALID_REQUEST, NULL, NULL,
                      "Forbidden: Origin is not allowed");
        return 1;
    }
    auth = kd_http_authenticate(h, header(c, MHD_HTTP_HEADER_AUTHORIZATION), &token);
    if (page) { /* its public files need no token; its data does (serve_page) */
        kd_http_client_key_of(c, auth == KD_HTTP_AUTH_OK ? token : KD_HTTP_NO_TOKEN, &r->who);
        *ret = serve_page(h, c, r, url, method, auth == KD_HTTP_AUTH_OK,
                          auth == KD_HTTP_AUTH_OK && token != KD_HTTP_NO_TOKEN ? h->tokens[token].principal : NULL);
        return 1;
    }
    if (auth != KD_HTTP_AUTH_OK) {
        *ret = refuse(h, c, MHD_HTTP_UNAUTHORIZED, NULL, KD_JSONRPC_INVALID_REQUEST, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
                      auth != KD_HTTP_AUTH_MISSING ? "Bearer realm=\"mcp\", error=\"invalid_token\""
                                                   : "Bearer realm=\"mcp\"",
                      "Unauthorized: %s: send a token kdapp mcp printed at start (\"grant NAMES token T\" for a seat, "
                      "or KDAPP_MCP_TOKEN) as Authorization: Bearer T; this gateway does no OAuth",
                      kd_http_auth_problem(auth));
        return 1;
    }
    kd_http_class cls = token != KD_HTTP_NO_TOKEN ? KD_HTTP_GRANTED
                        : metrics || events       ? KD_HTTP_PUBLIC
                                                  : KD_HTTP_TOKENLESS;
    if (!identified(h, c, cls, !metrics && strcmp(method, "DELETE") != 0)) {
        *ret = refuse_share(h, c, cls);
        return 1;
    }
    kd_http_client_key_of(c, token, &r->who);
    if (metrics) {
        *ret = serve_metrics(h, c, method);
        return 1;
    }
    if (events) {
        *ret = serve_events(h, c, method, &r->who);
        return 1;
    }
    if (strcmp(method, "POST") != 0 && strcmp(method, "GET") != 0 && strcmp(method, "DELETE") != 0) {
        *ret = refuse(h, c, MHD_HTTP_METHOD_NOT_ALLOWED, NULL, KD_JSONRPC_INVALID_REQUEST, MHD_HTTP_HEADER_ALLOW,
                      "GET, POST, DELETE", "Method Not Allowed: use POST, GET or DELETE");
        return 1;
    }
    v = header(c, H_VERSION);
    if (v != NULL && !kd_mcp_protocol_supported(v)) {
        *ret = refuse(h, c, MHD_HTTP_BAD_REQUEST, NULL, KD_JSONRPC_INVALID_REQUEST, NULL, NULL,
                      "Bad Request: unsupported " H_VERSION " \"%.40s\" (supported: 2025-11-25, "
                      "2025-06-18, 2025-03-26)",
                      v);
        return 1;
    }
    if (strcmp(method, "POST") != 0)
        return 0;
    if (!json_content_type(header(c, MHD_HTTP_HEADER_CONTENT_TYPE))) {
        *ret = refuse(h, c, MHD_HTTP_UNSUPPORTED_MEDIA_TYPE, NULL, KD_JSONRPC_INVALID_REQUEST, NULL, NULL,
                      "Unsupported Media Type: Content-Type must be application/json");
        return 1;
    }
    if (!accepts(header(c, MHD_HTTP_HEADER_ACCEPT), "application/json")) {
        *ret = refuse(h, c, MHD_HTTP_NOT_ACCEPTABLE, NULL, KD_JSONRPC_INVALID_REQUEST, NULL, NULL,
                      "Not Acceptable: Accept must include application/json and "
                      "text/event-stream");
        return 1;
    }
    v = header(c, MHD_HTTP_HEADER_CONTENT_LENGTH);
    if (v != NULL && strtoull(v, NULL, 10) > h->max_body) {
        *ret = refuse(h, c, MHD_HTTP_CONTENT_TOO_LARGE, NULL, KD_JSONRPC_INVALID_REQUEST, NULL, NULL,
                      "Content Too Large: the body limit is %zu bytes", h->max_body);
        return 1;
    }
    return 0;
}

/* ---- GET and DELETE ---------------------------------------------------- */

/* Fills `a` with the refusal of a request whose session was not found
 * (KD_HTTP_UNKNOWN: 404) or is another token's (KD_HTTP_NOT_YOURS: 403). */
static void session_refusal(kd_mcp_http *h, const char *sid, answer *a, kd_http_lookup found, json_t *id)
{
    int shed = found == KD_HTTP_NOT_YOURS ? -1 : kd_http_session_shed_why(h, sid);
    if (found == KD_HTTP_NOT_YOURS)
        fail_with(a, MHD_HTTP_FORBIDDEN, id, KD_JSONRPC_INVALID_REQUEST, NULL, NULL, SESSION_NOT_YOURS_MSG);
    else if (shed == 1) /* a token shared by more agents than its share: say so, and the fix */
        fail_with(a, MHD_HTTP_NOT_FOUND, id, SESSION_NOT_FOUND, NULL, NULL,
                  "Session not found: it was idle and was shed to make room for a new session of the same client "
                  "(a client, one token from one address, holds at most %u sessions: "
                  "KDAPP_MCP_SESSIONS_PER_CLIENT); send initialize for a new one, and give many agents tokens "
                  "of their own or raise the share",
                  h->max_sessions_per_client);
    else if (shed == 0)
        fail_with(a, MHD_HTTP_NOT_FOUND, id, SESSION_NOT_FOUND, NULL, NULL,
                  "Session not found: it was idle and was shed to make room, the gateway holding its %u sessions "
                  "(KDAPP_MCP_SESSIONS); send initialize for a new one",
                  h->max_sessions);
    else
        fail_with(a, MHD_HTTP_NOT_FOUND, id, SESSION_NOT_FOUND, NULL, NULL, SESSION_NOT_FOUND_MSG);
}

static enum MHD_Result session_missing(kd_mcp_http *h, struct MHD_Connection *c, const char *sid, kd_http_lookup found)
{
    answer a = {0};

    if (sid == NULL)
        return refuse(h, c, MHD_HTTP_BAD_REQUEST, NULL, KD_JSONRPC_INVALID_REQUEST, NULL, NULL,
                      "Bad Request: the " H_SESSION " header is required");
    session_refusal(h, sid, &a, found, NULL);
    return answer_send(h, c, &a);
}

static enum MHD_Result handle_get(kd_mcp_http *h, struct MHD_Connection *c, const kd_http_client_key *who)
{
    const char *sid = header(c, H_SESSION);
    kd_http_lookup found = KD_HTTP_UNKNOWN;
    kd_http_session *hs = NULL;
    struct MHD_Response *r;
    enum MHD_Result ret;
    unsigned status;

    if (!accepts(header(c, MHD_HTTP_HEADER_ACCEPT), "text/event-stream"))
        return refuse(h, c, MHD_HTTP_NOT_ACCEPTABLE, NULL, KD_JSONRPC_INVALID_REQUEST, NULL, NULL,
                      "Not Acceptable: Accept must include text/event-stream");
    if (sid == NULL || (found = kd_http_session_find(h, sid, who->token, &hs)) != KD_HTTP_FOUND)
        return session_missing(h, c, sid, found);
    r = kd_http_sse_open(hs, c, who, &status);
    if (r == NULL) {
        kd_http_session_release(hs, 1);
        if (status == MHD_HTTP_TOO_MANY_REQUESTS)
            return refuse(h, c, status, NULL, KD_MCP_LIMIT_EXCEEDED, NULL, NULL,
                          "Too Many Requests: at most %u event streams per session", h->max_streams);
        return refuse(h, c, status, NULL, KD_JSONRPC_INTERNAL_ERROR, NULL, NULL, "Internal error: out of memory");
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/event-stream");
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
    MHD_add_response_header(r, H_SESSION, hs->id);
    ret = MHD_queue_response(c, MHD_HTTP_OK, r);
    MHD_destroy_response(r);
    kd_http_session_release(hs, 1);
    return ret;
}

static enum MHD_Result handle_delete(kd_mcp_http *h, struct MHD_Connection *c, const kd_http_client_key *who)
{
    const char *sid = header(c, H_SESSION);
    kd_http_lookup found = KD_HTTP_UNKNOWN;

    if (sid == NULL || (found = kd_http_session_end(h, sid, who->token)) != KD_HTTP_FOUND)
        return session_missing(h, c, sid, found);
    return queue(h, c, MHD_HTTP_NO_CONTENT, NULL, NULL, NULL, NULL, NULL);
}

/* ---- POST -------------------------------------------------------------- */

/* Handles a parsed POST (r->msg, finished here): the answer goes to
 * r->out. Runs on a polling thread when the message is quick, else on a
 * worker, where it may block as long as the tool call does. */
static void handle_post(kd_mcp_http *h, req *r)
{
    answer *a = &r->out;
    kd_jsonrpc_msg *m = &r->msg;
    kd_http_session *hs = NULL;
    kd_http_lookup found;
    kd_mcp_handle_info info;
    char *reply = NULL;
    int created = 0, per_client;
    kd_err err;

    if (r->sid != NULL) {
        if ((found = kd_http_session_find(h, r->sid, r->who.token, &hs)) != KD_HTTP_FOUND) {
            session_refusal(h, r->sid, a, found, NULL);
            goto done;
        }
    } else if (m->kind == KD_JSONRPC_REQUEST && strcmp(m->method, "initialize") == 0) {
        err = kd_http_session_create(h, &r->who, &hs, &per_client);
        if (err == KD_ERR_BUSY && per_client) {
            fail_with(a, MHD_HTTP_SERVICE_UNAVAILABLE, m->id, KD_MCP_LIMIT_EXCEEDED, MHD_HTTP_HEADER_RETRY_AFTER, "30",
                      "Service Unavailable: this client holds its limit of %u sessions (sessions per client) and "
                      "none is idle (each has a request in flight or an open stream); end one with DELETE or retry "
                      "later",
                      h->max_sessions_per_client);
            goto done;
        }
        if (err == KD_ERR_BUSY) {
            fail_with(a, MHD_HTTP_SERVICE_UNAVAILABLE, m->id, KD_MCP_LIMIT_EXCEEDED, MHD_HTTP_HEADER_RETRY_AFTER, "30",
                      "Service Unavailable: the session limit (%u) is reached and no session is idle; end an "
                      "unused session with DELETE or retry later",
                      h->max_sessions);
            goto done;
        }
        if (err != KD_OK) {
            fail_with(a, MHD_HTTP_INTERNAL_SERVER_ERROR, m->id, KD_JSONRPC_INTERNAL_ERROR, NULL, NULL,
                      "Internal error: no session could be created: %s", kd_err_str(err));
            goto done;
        }
        created = 1;
    } else {
        fail_with(a, MHD_HTTP_BAD_REQUEST, m->id, KD_JSONRPC_INVALID_REQUEST, NULL, NULL,
                  "Bad Request: the " H_SESSION " header is required (initialize first)");
        goto done;
    }

    err = kd_mcp_session_handle_msg(hs->core, m, &reply, &info);
    if (err != KD_OK) {
        fail_with(a, MHD_HTTP_INTERNAL_SERVER_ERROR, m->id, KD_JSONRPC_INTERNAL_ERROR, NULL, NULL, "Internal error: %s",
                  kd_err_str(err));
        goto done;
    }
    if (created && info.initialized_now) {
        kd_http_session_publish(hs);
        KD_LOG_I("mcp", "http: session %.8s… created", hs->id);
    }
    if (reply == NULL)
        answer_set(a, MHD_HTTP_ACCEPTED, NULL, NULL, created ? NULL : hs->id, NULL, NULL);
    else if (info.rate_limited)
        answer_set(a, MHD_HTTP_TOO_MANY_REQUESTS, reply, "application/json", hs->id, MHD_HTTP_HEADER_RETRY_AFTER, "1");
    else
        answer_set(a, MHD_HTTP_OK, reply, "application/json", !created || info.initialized_now ? hs->id : NULL, NULL,
                   NULL);
done:
    if (hs != NULL)
        kd_http_session_release(hs, 1);
    kd_jsonrpc_msg_fini(m);
}

/* The worker's side: handle, then hand the connection back. */
static void run_post(kd_http_job *job)
{
    req *r = (req *)job;
    struct MHD_Connection *c = r->conn;

    handle_post(r->h, r);
    r->stage = REQ_READY;
    MHD_resume_connection(c); /* r may be gone from here on */
}

/* The body is in: parses it, then handles it at once when it is quick,
 * else suspends the connection and hands it to a worker (suspended first,
 * so the worker's resume always follows). */
static enum MHD_Result dispatch_post(kd_mcp_http *h, struct MHD_Connection *c, req *r)
{
    kd_http_conn_served(h, c); /* the whole request is in: its deadline stops */
    r->stage = REQ_SENT;
    if (r->too_large)
        return refuse(h, c, MHD_HTTP_CONTENT_TOO_LARGE, NULL, KD_JSONRPC_INVALID_REQUEST, NULL, NULL,
                      "Content Too Large: the body limit is %zu bytes", h->max_body);
    if (kd_jsonrpc_parse(r->body, r->len, &r->msg) != KD_OK) {
        enum MHD_Result ret =
            refuse(h, c, MHD_HTTP_BAD_REQUEST, r->msg.id, r->msg.error_code, NULL, NULL, "%s", r->msg.error_message);

        kd_jsonrpc_msg_fini(&r->msg);
        return ret;
    }
    if (kd_mcp_server_is_quick(h->srv, &r->msg)) {
        handle_post(h, r);
        return answer_send(h, c, &r->out);
    }
    return to_worker(h, c, r, run_post);
}

/* ---- libmicrohttpd callbacks ------------------------------------------ */

enum MHD_Result kd_http_on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                   const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
    kd_mcp_http *h = cls;
    req *r = *con_cls;
    enum MHD_Result ret;
    const char *sid;

    (void)version;
    if (r == NULL) {
        if ((r = calloc(1, sizeof *r)) == NULL)
            return MHD_NO;
        *con_cls = r;
        r->stage = REQ_SENT;
        if (strcmp(method, "POST") != 0) /* the whole request is in */
            kd_http_conn_served(h, c);
        if (refused(h, c, r, url, method, &ret))
            return ret;
        if (strcmp(method, "POST") != 0)
            return strcmp(method, "GET") == 0 ? handle_get(h, c, &r->who) : handle_delete(h, c, &r->who);
        /* The worker reads no header: what it needs is copied now. */
        if ((sid = header(c, H_SESSION)) != NULL && (r->sid = strdup(sid)) == NULL)
            return MHD_NO;
        r->stage = REQ_BODY;
        return MHD_YES; /* the body follows */
    }
    switch (r->stage) {
    case REQ_READY:
        r->stage = REQ_SENT;
        return r->page ? page_send(h, c, &r->pg, r->pg_err) : answer_send(h, c, &r->out);
    case REQ_RUNNING: /* not called while suspended */
    case REQ_SENT:
        *upload_size = 0;
        return MHD_YES;
    case REQ_BODY:
        break;
    }
    if (*upload_size > 0) {
        size_t n = *upload_size;

        *upload_size = 0;
        if (r->too_large || r->len + n > h->max_body) {
            r->too_large = 1; /* keep reading, drop the bytes, answer 413 */
            free(r->body);
            r->body = NULL;
            r->len = r->cap = 0;
            return MHD_YES;
        }
        if (r->len + n > r->cap) {
            size_t cap = r->cap ? r->cap : 4096;
            char *nb;

            while (cap < r->len + n)
                cap *= 2;
            if ((nb = realloc(r->body, cap)) == NULL)
                return MHD_NO;
            r->body = nb;
            r->cap = cap;
        }
        memcpy(r->body + r->len, upload, n);
        r->len += n;
        return MHD_YES;
    }
    return dispatch_post(h, c, r);
}

void kd_http_on_completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe)
{
    req *r = *con_cls;

    (void)toe;
    kd_http_conn_ended(cls, c); /* it waits for its next request */
    if (r != NULL) {
        free(r->out.body);
        kd_buf_fini(&r->pg.body);
        free(r->url);
        free(r->sid);
        free(r->body);
        free(r);
        *con_cls = NULL;
    }
}
