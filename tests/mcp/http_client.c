/*
 * http_client.c — the client side of the HTTP transport tests: the
 * fixture (a fake server behind a transport on a port the system picks),
 * libcurl requests, SSE streams read on a thread, and raw connections
 * that send half a request.
 */
#include "mcp/http_client.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "mcp/fake_server.h"

kd_mcp_server *srv;
kd_mcp_http *http;
char base[96];
char host_port[64];
char source_ip[32];

/* Starts the transport on `srv` with `ho` (NULL: defaults). */
static void serve_with(const kd_mcp_http_options *ho)
{
    cr_assert_eq(kd_mcp_http_start(srv, ho, &http), KD_OK);
    cr_assert_gt(kd_mcp_http_port(http), 0);
    snprintf(host_port, sizeof host_port, "127.0.0.1:%u", kd_mcp_http_port(http));
    snprintf(base, sizeof base, "http://%s", host_port);
}

void setup(void)
{
    source_ip[0] = '\0';
    curl_global_init(CURL_GLOBAL_DEFAULT);
    srv = fake_server_new(NULL);
    serve_with(&(kd_mcp_http_options){.port = 0, .keepalive_ms = 200});
}

/* Restarts the transport with `ho`, and the server too when `so` is not
 * NULL. */
void restart(const kd_mcp_server_options *so, const kd_mcp_http_options *ho)
{
    kd_mcp_http_stop(http);
    if (so != NULL) {
        kd_mcp_server_free(srv);
        srv = fake_server_new(so);
    }
    serve_with(ho);
}

void teardown(void)
{
    kd_mcp_http_stop(http);
    kd_mcp_server_free(srv);
    curl_global_cleanup();
}

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
    grab(p, size * n, "Content-Security-Policy", r->csp, sizeof r->csp);
    grab(p, size * n, "X-Content-Type-Options", r->nosniff, sizeof r->nosniff);
    grab(p, size * n, "Retry-After", r->retry_after, sizeof r->retry_after);
    grab(p, size * n, "Connection", r->connection, sizeof r->connection);
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
CURLcode try_req(resp *out, const char *method, const char *path, const char *sid, const char *body,
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
    if (source_ip[0] != '\0')
        curl_easy_setopt(c, CURLOPT_INTERFACE, source_ip);
    rc = curl_easy_perform(c);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &out->status);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    return rc;
}

/* The status of a GET of `path`, 0 when no answer came. */
long status_of(const char *path)
{
    resp r;
    long status = try_req(&r, "GET", path, NULL, NULL, NULL) == CURLE_OK ? r.status : 0;

    free(r.body);
    return status;
}

/* One request that must be answered. */
void req(resp *out, const char *method, const char *path, const char *sid, const char *body, const char *const *extra)
{
    CURLcode rc = try_req(out, method, path, sid, body, extra);

    cr_assert_eq(rc, CURLE_OK, "%s %s failed: %s", method, path, curl_easy_strerror(rc));
}

void resp_fini(resp *r)
{
    free(r->body);
    r->body = NULL;
}

const char *const INIT = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
                         "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                         "\"clientInfo\":{\"name\":\"curl\",\"version\":\"1\"}}}";

/* initialize + notifications/initialized; writes the session id. */
void open_session(char *sid, size_t cap)
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

int error_code(const resp *r)
{
    json_t *v = json_loads(r->body != NULL ? r->body : "", 0, NULL);
    int code = (int)json_integer_value(json_object_get(json_object_get(v, "error"), "code"));

    json_decref(v);
    return code;
}

double now_s(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

void pause_ms(long ms)
{
    struct timespec t = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};

    nanosleep(&t, NULL);
}

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
    char line[200], url[200];

    snprintf(url, sizeof url, "%s%s", base, s->path[0] ? s->path : "/mcp");
    if (s->sid[0]) {
        snprintf(line, sizeof line, "Mcp-Session-Id: %s", s->sid);
        h = curl_slist_append(h, line);
    }
    if (s->header[0])
        h = curl_slist_append(h, s->header);
    h = curl_slist_append(h, "Accept: text/event-stream");
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_stream);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, s);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 120L);
    if (s->source[0] != '\0')
        curl_easy_setopt(c, CURLOPT_INTERFACE, s->source);
    s->rc = curl_easy_perform(c);
    pthread_mutex_lock(&s->lock);
    s->done = 1;
    pthread_mutex_unlock(&s->lock);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &s->status);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    return NULL;
}

void stream_start(stream *s, const char *sid)
{
    memset(s, 0, sizeof *s);
    pthread_mutex_init(&s->lock, NULL);
    snprintf(s->sid, sizeof s->sid, "%s", sid);
    snprintf(s->source, sizeof s->source, "%s", source_ip);
    cr_assert_eq(pthread_create(&s->thread, NULL, stream_main, s), 0);
}

void stream_start_with(stream *s, const char *path, const char *sid, const char *header)
{
    memset(s, 0, sizeof *s);
    pthread_mutex_init(&s->lock, NULL);
    snprintf(s->path, sizeof s->path, "%s", path);
    snprintf(s->sid, sizeof s->sid, "%s", sid);
    snprintf(s->header, sizeof s->header, "%s", header ? header : "");
    snprintf(s->source, sizeof s->source, "%s", source_ip);
    cr_assert_eq(pthread_create(&s->thread, NULL, stream_main, s), 0);
}

void stream_start_get(stream *s, const char *path, const char *header) { stream_start_with(s, path, "", header); }

size_t count(stream *s, const char *needle)
{
    size_t n = 0;
    const char *p;

    pthread_mutex_lock(&s->lock);
    for (p = s->buf; (p = strstr(p, needle)) != NULL; p++)
        n++;
    pthread_mutex_unlock(&s->lock);
    return n;
}

/* A connection that sends half the headers of a POST, then nothing (send
 * errors are ignored: the server may have closed it already). */
int half_open(void)
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
int closed_count(int *fds, int n)
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

int stream_done(stream *s)
{
    int done;

    pthread_mutex_lock(&s->lock);
    done = s->done;
    pthread_mutex_unlock(&s->lock);
    return done;
}
