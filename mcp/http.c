/*
 * http.c — the Streamable HTTP transport: the libmicrohttpd daemon, the
 * checks every request passes, and the POST, GET and DELETE handlers.
 *
 * libmicrohttpd calls on_request several times per request: once when the
 * headers are in (all header checks run then, and a refusal is queued at
 * once so that an oversized or forbidden body is never read), then once per
 * chunk of body, then once more with no data, when the POST is handled.
 * The daemon runs one thread per connection, so a slow tool call or an
 * open event stream blocks only its own connection.
 *
 * Order of checks, first failure wins:
 *
 *   path /mcp? ─no─▶ 404     Host loopback? ─no─▶ 403   Origin ok? ─no─▶ 403
 *   bearer ok? ─no─▶ 401     GET|POST|DELETE? ─no─▶ 405
 *   MCP-Protocol-Version supported (when present)? ─no─▶ 400
 *   POST: Content-Type json? ─no─▶ 415   Accept json? ─no─▶ 406
 *         Content-Length ≤ limit? ─no─▶ 413
 *   GET:  Accept event-stream? ─no─▶ 406
 *   then the session: id missing ─▶ 400, unknown or ended ─▶ 404
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

#include <openssl/crypto.h>

#include "engine/logger.h"
#include "mcp/http_int.h"
#include "mcp/jsonrpc.h"

#define ENDPOINT "/mcp"
#define METRICS_PATH "/metrics"
#define H_SESSION "Mcp-Session-Id"
#define H_VERSION "MCP-Protocol-Version"
#define SESSION_NOT_FOUND (-32001) /* as the reference SDKs answer */

typedef struct {
    int is_post, responded, too_large;
    char *body;
    size_t len, cap;
} req;

/* ---- responses --------------------------------------------------------- */

static enum MHD_Result queue(struct MHD_Connection *c, unsigned status, char *body, const char *ctype, const char *sid,
                             const char *xname, const char *xvalue)
{
    struct MHD_Response *r;
    enum MHD_Result ret;

    if (body != NULL)
        r = MHD_create_response_from_buffer(strlen(body), body, MHD_RESPMEM_MUST_FREE);
    else
        r = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
    if (r == NULL) {
        free(body);
        return MHD_NO;
    }
    if (ctype != NULL)
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
    if (sid != NULL)
        MHD_add_response_header(r, H_SESSION, sid);
    if (xname != NULL)
        MHD_add_response_header(r, xname, xvalue);
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result refuse(struct MHD_Connection *c, unsigned status, json_t *id, int code, const char *xname,
                              const char *xvalue, const char *fmt, ...) __attribute__((format(printf, 7, 8)));

/* Queues `status` with a JSON-RPC error body. */
static enum MHD_Result refuse(struct MHD_Connection *c, unsigned status, json_t *id, int code, const char *xname,
                              const char *xvalue, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    json_t *e;
    char *body;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    KD_LOG_D("mcp", "http: %u: %s", status, msg);
    e = kd_jsonrpc_error(id, code, msg, NULL);
    body = kd_jsonrpc_dumps(e);
    json_decref(e);
    return queue(c, status, body, "application/json", NULL, xname, xvalue);
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

static int bearer_ok(const kd_mcp_http *h, const char *auth)
{
    size_t n;

    if (h->token == NULL)
        return 1;
    if (auth == NULL || strncasecmp(auth, "Bearer ", 7) != 0)
        return 0;
    auth += 7;
    while (*auth == ' ')
        auth++;
    n = strlen(h->token);
    return strlen(auth) == n && CRYPTO_memcmp(auth, h->token, n) == 0;
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
        return refuse(c, MHD_HTTP_METHOD_NOT_ALLOWED, NULL, KD_JSONRPC_INVALID_REQUEST, MHD_HTTP_HEADER_ALLOW, "GET",
                      "Method Not Allowed: use GET for " METRICS_PATH);
    kd_buf out;
    kd_buf_init(&out);
    if (h->metrics(h->metrics_ctx, &out) != KD_OK || out.len == 0 || out.data[out.len - 1] != '\0') {
        kd_buf_fini(&out);
        return refuse(c, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL, KD_JSONRPC_INTERNAL_ERROR, NULL, NULL,
                      "Internal Server Error: the metrics could not be read");
    }
    /* queue() takes ownership of the NUL-terminated text */
    return queue(c, MHD_HTTP_OK, (char *)out.data, "text/plain; version=0.0.4; charset=utf-8", NULL, NULL, NULL);
}

/* Runs the checks common to every method; returns 1 after queueing a
 * refusal (or the /metrics answer) in *ret. */
static int refused(kd_mcp_http *h, struct MHD_Connection *c, const char *url, const char *method, enum MHD_Result *ret)
{
    const char *v;

    int metrics = h->metrics && strcmp(url, METRICS_PATH) == 0;
    if (strcmp(url, ENDPOINT) != 0 && !metrics) {
        *ret = refuse(c, MHD_HTTP_NOT_FOUND, NULL, KD_JSONRPC_INVALID_REQUEST, NULL, NULL,
                      "Not Found: the MCP endpoint is " ENDPOINT);
        return 1;
    }
    if (!host_ok(h, header(c, MHD_HTTP_HEADER_HOST))) {
        KD_LOG_W("mcp", "http: refused a request for Host %.80s (DNS-rebinding protection)",
                 header(c, MHD_HTTP_HEADER_HOST));
        *ret = refuse(c, MHD_HTTP_FORBIDDEN, NULL, KD_JSONRPC_INVALID_REQUEST, NULL, NULL,
                      "Forbidden: Host header is not an allowed host");
        return 1;
    }
    if (!origin_ok(h, header(c, MHD_HTTP_HEADER_ORIGIN))) {
        KD_LOG_W("mcp", "http: refused a request from Origin %.80s", header(c, MHD_HTTP_HEADER_ORIGIN));
        *ret = refuse(c, MHD_HTTP_FORBIDDEN, NULL, KD_JSONRPC_INVALID_REQUEST, NULL, NULL,
                      "Forbidden: Origin is not allowed");
        return 1;
    }
    if (!bearer_ok(h, header(c, MHD_HTTP_HEADER_AUTHORIZATION))) {
        v = header(c, MHD_HTTP_HEADER_AUTHORIZATION);
        *ret = refuse(c, MHD_HTTP_UNAUTHORIZED, NULL, KD_JSONRPC_INVALID_REQUEST, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
                      v != NULL ? "Bearer realm=\"mcp\", error=\"invalid_token\"" : "Bearer realm=\"mcp\"",
                      "Unauthorized: %s", v != NULL ? "the bearer token is not valid" : "a bearer token is required");
        return 1;
    }
    if (metrics) {
        *ret = serve_metrics(h, c, method);
        return 1;
    }
    if (strcmp(method, "POST") != 0 && strcmp(method, "GET") != 0 && strcmp(method, "DELETE") != 0) {
        *ret = refuse(c, MHD_HTTP_METHOD_NOT_ALLOWED, NULL, KD_JSONRPC_INVALID_REQUEST, MHD_HTTP_HEADER_ALLOW,
                      "GET, POST, DELETE", "Method Not Allowed: use POST, GET or DELETE");
        return 1;
    }
    v = header(c, H_VERSION);
    if (v != NULL && !kd_mcp_protocol_supported(v)) {
        *ret = refuse(c, MHD_HTTP_BAD_REQUEST, NULL, KD_JSONRPC_INVALID_REQUEST, NULL, NULL,
                      "Bad Request: unsupported " H_VERSION " \"%.40s\" (supported: 2025-11-25, "
                      "2025-06-18, 2025-03-26)",
                      v);
        return 1;
    }
    if (strcmp(method, "POST") != 0)
        return 0;
    if (!json_content_type(header(c, MHD_HTTP_HEADER_CONTENT_TYPE))) {
        *ret = refuse(c, MHD_HTTP_UNSUPPORTED_MEDIA_TYPE, NULL, KD_JSONRPC_INVALID_REQUEST, NULL, NULL,
                      "Unsupported Media Type: Content-Type must be application/json");
        return 1;
    }
    if (!accepts(header(c, MHD_HTTP_HEADER_ACCEPT), "application/json")) {
        *ret = refuse(c, MHD_HTTP_NOT_ACCEPTABLE, NULL, KD_JSONRPC_INVALID_REQUEST, NULL, NULL,
                      "Not Acceptable: Accept must include application/json and "
                      "text/event-stream");
        return 1;
    }
    v = header(c, MHD_HTTP_HEADER_CONTENT_LENGTH);
    if (v != NULL && strtoull(v, NULL, 10) > h->max_body) {
        *ret = refuse(c, MHD_HTTP_CONTENT_TOO_LARGE, NULL, KD_JSONRPC_INVALID_REQUEST, NULL, NULL,
                      "Content Too Large: the body limit is %zu bytes", h->max_body);
        return 1;
    }
    return 0;
}

/* ---- GET and DELETE ---------------------------------------------------- */

static enum MHD_Result session_missing(struct MHD_Connection *c, const char *sid)
{
    if (sid == NULL)
        return refuse(c, MHD_HTTP_BAD_REQUEST, NULL, KD_JSONRPC_INVALID_REQUEST, NULL, NULL,
                      "Bad Request: the " H_SESSION " header is required");
    return refuse(c, MHD_HTTP_NOT_FOUND, NULL, SESSION_NOT_FOUND, NULL, NULL,
                  "Session not found: it ended or never existed; send initialize for a new one");
}

static enum MHD_Result handle_get(kd_mcp_http *h, struct MHD_Connection *c)
{
    const char *sid = header(c, H_SESSION);
    kd_http_session *hs;
    struct MHD_Response *r;
    enum MHD_Result ret;
    unsigned status;

    if (!accepts(header(c, MHD_HTTP_HEADER_ACCEPT), "text/event-stream"))
        return refuse(c, MHD_HTTP_NOT_ACCEPTABLE, NULL, KD_JSONRPC_INVALID_REQUEST, NULL, NULL,
                      "Not Acceptable: Accept must include text/event-stream");
    if (sid == NULL || (hs = kd_http_session_find(h, sid)) == NULL)
        return session_missing(c, sid);
    r = kd_http_sse_open(hs, &status);
    if (r == NULL) {
        kd_http_session_release(hs, 1);
        if (status == MHD_HTTP_TOO_MANY_REQUESTS)
            return refuse(c, status, NULL, KD_MCP_LIMIT_EXCEEDED, NULL, NULL,
                          "Too Many Requests: at most %u event streams per session", h->max_streams);
        return refuse(c, status, NULL, KD_JSONRPC_INTERNAL_ERROR, NULL, NULL, "Internal error: out of memory");
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/event-stream");
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
    MHD_add_response_header(r, H_SESSION, hs->id);
    ret = MHD_queue_response(c, MHD_HTTP_OK, r);
    MHD_destroy_response(r);
    kd_http_session_release(hs, 1);
    return ret;
}

static enum MHD_Result handle_delete(kd_mcp_http *h, struct MHD_Connection *c)
{
    const char *sid = header(c, H_SESSION);

    if (sid == NULL || kd_http_session_end(h, sid) != 0)
        return session_missing(c, sid);
    return queue(c, MHD_HTTP_NO_CONTENT, NULL, NULL, NULL, NULL, NULL);
}

/* ---- POST -------------------------------------------------------------- */

static enum MHD_Result handle_post(kd_mcp_http *h, struct MHD_Connection *c, req *r)
{
    const char *sid = header(c, H_SESSION);
    kd_jsonrpc_msg m;
    kd_http_session *hs = NULL;
    kd_mcp_handle_info info;
    char *reply = NULL;
    enum MHD_Result ret;
    int created = 0;
    kd_err err;

    if (r->too_large)
        return refuse(c, MHD_HTTP_CONTENT_TOO_LARGE, NULL, KD_JSONRPC_INVALID_REQUEST, NULL, NULL,
                      "Content Too Large: the body limit is %zu bytes", h->max_body);
    if (kd_jsonrpc_parse(r->body, r->len, &m) != KD_OK) {
        ret = refuse(c, MHD_HTTP_BAD_REQUEST, m.id, m.error_code, NULL, NULL, "%s", m.error_message);
        goto done;
    }
    if (sid != NULL) {
        if ((hs = kd_http_session_find(h, sid)) == NULL) {
            ret = session_missing(c, sid);
            goto done;
        }
    } else if (m.kind == KD_JSONRPC_REQUEST && strcmp(m.method, "initialize") == 0) {
        err = kd_http_session_create(h, &hs);
        if (err == KD_ERR_BUSY) {
            ret =
                refuse(c, MHD_HTTP_SERVICE_UNAVAILABLE, m.id, KD_MCP_LIMIT_EXCEEDED, MHD_HTTP_HEADER_RETRY_AFTER, "30",
                       "Service Unavailable: the session limit (%u) is reached; end an unused "
                       "session with DELETE or retry later",
                       h->max_sessions);
            goto done;
        }
        if (err != KD_OK) {
            ret = refuse(c, MHD_HTTP_INTERNAL_SERVER_ERROR, m.id, KD_JSONRPC_INTERNAL_ERROR, NULL, NULL,
                         "Internal error: no session could be created: %s", kd_err_str(err));
            goto done;
        }
        created = 1;
    } else {
        ret = refuse(c, MHD_HTTP_BAD_REQUEST, m.id, KD_JSONRPC_INVALID_REQUEST, NULL, NULL,
                     "Bad Request: the " H_SESSION " header is required (initialize first)");
        goto done;
    }

    err = kd_mcp_session_handle_msg(hs->core, &m, &reply, &info);
    if (err != KD_OK) {
        ret = refuse(c, MHD_HTTP_INTERNAL_SERVER_ERROR, m.id, KD_JSONRPC_INTERNAL_ERROR, NULL, NULL,
                     "Internal error: %s", kd_err_str(err));
        goto done;
    }
    if (created && info.initialized_now) {
        kd_http_session_publish(hs);
        KD_LOG_I("mcp", "http: session %.8s… created", hs->id);
    }
    if (reply == NULL)
        ret = queue(c, MHD_HTTP_ACCEPTED, NULL, NULL, created ? NULL : hs->id, NULL, NULL);
    else if (info.rate_limited)
        ret = queue(c, MHD_HTTP_TOO_MANY_REQUESTS, reply, "application/json", hs->id, MHD_HTTP_HEADER_RETRY_AFTER, "1");
    else
        ret = queue(c, MHD_HTTP_OK, reply, "application/json", !created || info.initialized_now ? hs->id : NULL, NULL,
                    NULL);
done:
    if (hs != NULL)
        kd_http_session_release(hs, 1);
    kd_jsonrpc_msg_fini(&m);
    return ret;
}

/* ---- daemon ------------------------------------------------------------ */

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
    kd_mcp_http *h = cls;
    req *r = *con_cls;
    enum MHD_Result ret;

    (void)version;
    if (r == NULL) {
        if ((r = calloc(1, sizeof *r)) == NULL)
            return MHD_NO;
        *con_cls = r;
        if (refused(h, c, url, method, &ret)) {
            r->responded = 1;
            return ret;
        }
        if (strcmp(method, "POST") == 0) {
            r->is_post = 1;
            return MHD_YES; /* the body follows */
        }
        r->responded = 1;
        return strcmp(method, "GET") == 0 ? handle_get(h, c) : handle_delete(h, c);
    }
    if (r->responded) {
        *upload_size = 0;
        return MHD_YES;
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
    r->responded = 1;
    return handle_post(h, c, r);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe)
{
    req *r = *con_cls;

    (void)cls;
    (void)c;
    (void)toe;
    if (r != NULL) {
        free(r->body);
        free(r);
        *con_cls = NULL;
    }
}

static void mhd_log(void *cls, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
    char line[300];
    size_t n;

    (void)cls;
    vsnprintf(line, sizeof line, fmt, ap);
    n = strlen(line);
    while (n > 0 && line[n - 1] == '\n')
        line[--n] = '\0';
    KD_LOG_W("mcp", "http (libmicrohttpd): %s", line);
}

/* Parses the bind address; sets loopback. 0, or -1 when not an address. */
static int parse_addr(const char *a, uint16_t port, struct sockaddr_storage *ss, socklen_t *len, int *loopback)
{
    struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;

    memset(ss, 0, sizeof *ss);
    if (strcmp(a, "localhost") == 0)
        a = "127.0.0.1";
    if (inet_pton(AF_INET, a, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons(port);
        *len = sizeof *v4;
        *loopback = (ntohl(v4->sin_addr.s_addr) >> 24) == 127;
        return 0;
    }
    if (inet_pton(AF_INET6, a, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons(port);
        *len = sizeof *v6;
        *loopback = IN6_IS_ADDR_LOOPBACK(&v6->sin6_addr);
        return 0;
    }
    return -1;
}

static int copy_list(const char *const *in, size_t n, char ***out)
{
    size_t i;

    *out = NULL;
    if (n == 0)
        return 0;
    if ((*out = calloc(n, sizeof **out)) == NULL)
        return -1;
    for (i = 0; i < n; i++)
        if (in[i] == NULL || ((*out)[i] = strdup(in[i])) == NULL)
            return -1;
    return 0;
}

static void free_list(char **l, size_t n)
{
    size_t i;

    for (i = 0; l != NULL && i < n; i++)
        free(l[i]);
    free(l);
}

static int listen_on(const struct sockaddr_storage *ss, socklen_t len, uint16_t *port)
{
    int fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
    struct sockaddr_storage bound;
    socklen_t blen = sizeof bound;

    if (fd < 0)
        return -1;
    (void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (ss->ss_family == AF_INET6)
        (void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
    if (bind(fd, (const struct sockaddr *)ss, len) != 0 || listen(fd, 64) != 0 ||
        getsockname(fd, (struct sockaddr *)&bound, &blen) != 0) {
        int e = errno;

        close(fd);
        errno = e;
        return -1;
    }
    *port = ntohs(bound.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&bound)->sin6_port
                                              : ((struct sockaddr_in *)&bound)->sin_port);
    return fd;
}

kd_err kd_mcp_http_start(kd_mcp_server *srv, const kd_mcp_http_options *opts, kd_mcp_http **out)
{
    kd_mcp_http_options o = {0};
    kd_mcp_http *h = NULL;
    struct sockaddr_storage ss;
    socklen_t sslen;
    pthread_condattr_t ca;
    int loopback, fd = -1, sync_ok = 0;
    unsigned timeout;
    kd_err err = KD_ERR_NOMEM;

    *out = NULL;
    if (opts != NULL)
        o = *opts;
    if (o.bind_address == NULL)
        o.bind_address = "127.0.0.1";
    if (parse_addr(o.bind_address, o.port, &ss, &sslen, &loopback) != 0) {
        KD_LOG_E("mcp", "http: \"%s\" is not an IPv4 or IPv6 address", o.bind_address);
        return KD_ERR_INVALID_ARG;
    }
    if (!loopback && (o.bearer_token == NULL || o.bearer_token[0] == '\0')) {
        KD_LOG_E("mcp", "http: refusing to listen on %s (beyond loopback) without a bearer token", o.bind_address);
        return KD_ERR_INVALID_ARG;
    }
    if ((h = calloc(1, sizeof *h)) == NULL)
        return KD_ERR_NOMEM;
    h->srv = srv;
    h->loopback = loopback;
    h->max_body = o.max_body_bytes ? o.max_body_bytes : kd_mcp_server_max_message_bytes(srv);
    h->metrics = o.metrics;
    h->metrics_ctx = o.metrics_ctx;
    h->max_sessions = o.max_sessions ? o.max_sessions : 64;
    h->max_streams = o.max_streams_per_session ? o.max_streams_per_session : 4;
    h->idle_s = o.session_idle_timeout_s ? o.session_idle_timeout_s : 3600;
    h->keepalive_ms = o.keepalive_ms ? o.keepalive_ms : 15000;
    h->max_queued = o.max_queued ? o.max_queued : 256;
    h->n_origins = o.n_allowed_origins;
    h->n_hosts = o.n_allowed_hosts;
    if ((o.bearer_token != NULL && (h->token = strdup(o.bearer_token)) == NULL) ||
        copy_list(o.allowed_origins, o.n_allowed_origins, &h->origins) != 0 ||
        copy_list(o.allowed_hosts, o.n_allowed_hosts, &h->hosts) != 0)
        goto fail;
    if (pthread_mutex_init(&h->lock, NULL) != 0)
        goto fail;
    if (pthread_condattr_init(&ca) != 0) {
        pthread_mutex_destroy(&h->lock);
        goto fail;
    }
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    if (pthread_cond_init(&h->cond, &ca) != 0) {
        pthread_condattr_destroy(&ca);
        pthread_mutex_destroy(&h->lock);
        goto fail;
    }
    pthread_condattr_destroy(&ca);
    sync_ok = 1;
    if ((fd = listen_on(&ss, sslen, &h->port)) < 0) {
        KD_LOG_E("mcp", "http: cannot listen on %s port %u: %s", o.bind_address, o.port, strerror(errno));
        err = KD_ERR_NET;
        goto fail;
    }
    timeout = 2 * (h->keepalive_ms / 1000) + 60;
    h->daemon = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL_INTERNAL_THREAD | MHD_USE_ERROR_LOG, 0,
                                 NULL, NULL, on_request, h, MHD_OPTION_EXTERNAL_LOGGER, mhd_log,
                                 h, /* first, so every message goes to our log */
                                 MHD_OPTION_LISTEN_SOCKET, (MHD_socket)fd, MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
                                 MHD_OPTION_CONNECTION_LIMIT, (unsigned)(o.max_connections ? o.max_connections : 128),
                                 MHD_OPTION_CONNECTION_TIMEOUT, timeout, MHD_OPTION_END);
    if (h->daemon == NULL) {
        KD_LOG_E("mcp", "http: libmicrohttpd did not start on %s port %u", o.bind_address, h->port);
        close(fd);
        err = KD_ERR_NET;
        goto fail;
    }
    KD_LOG_I("mcp", "http: serving http://%s%s%s:%u" ENDPOINT "%s", strchr(o.bind_address, ':') ? "[" : "",
             o.bind_address, strchr(o.bind_address, ':') ? "]" : "", h->port,
             h->token ? " (bearer token required)" : "");
    *out = h;
    return KD_OK;
fail:
    if (sync_ok) {
        pthread_cond_destroy(&h->cond);
        pthread_mutex_destroy(&h->lock);
    }
    free_list(h->origins, h->n_origins);
    free_list(h->hosts, h->n_hosts);
    free(h->token);
    free(h);
    return err;
}

uint16_t kd_mcp_http_port(const kd_mcp_http *h) { return h->port; }

unsigned kd_mcp_http_session_count(kd_mcp_http *h)
{
    kd_http_session *hs;
    unsigned n = 0;

    pthread_mutex_lock(&h->lock);
    for (hs = h->sessions; hs != NULL; hs = hs->next)
        n++;
    pthread_mutex_unlock(&h->lock);
    return n;
}

void kd_mcp_http_stop(kd_mcp_http *h)
{
    if (h == NULL)
        return;
    kd_http_session_end_all(h); /* streams see `stopping` and finish */
    MHD_stop_daemon(h->daemon); /* joins every connection thread */
    pthread_cond_destroy(&h->cond);
    pthread_mutex_destroy(&h->lock);
    free_list(h->origins, h->n_origins);
    free_list(h->hosts, h->n_hosts);
    free(h->token);
    free(h);
}
