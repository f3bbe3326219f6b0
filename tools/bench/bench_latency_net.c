/*
 * bench_latency_net.c — the clients of the latency scenarios
 * (bench_latency_int.h; children and stdio clients are bench_proc.h's): a
 * small HTTP/1.1 client written by hand for MCP sessions
 * and event streams, so that a thousand of them cost a socket each and
 * one poll loop reads them all.
 *
 * An event stream is not parsed: the bench counts a marker (the
 * notification's method name, "event: view") in the bytes as they come,
 * chunked framing included; a marker split across two reads is found
 * through the tail kept from the previous one.
 */
#define _GNU_SOURCE /* memmem */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tools/bench/bench_latency_int.h"

void kd_lat_sleep(double s)
{
    struct timespec t = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&t, &t) != 0 && errno == EINTR)
        ;
}

void kd_lat_quantiles_us(double *samples, size_t n, double out[3])
{
    out[0] = kd_bench_percentile(samples, n, 0.50) * 1e6;
    out[1] = kd_bench_percentile(samples, n, 0.99) * 1e6;
    out[2] = n ? samples[n - 1] * 1e6 : 0; /* sorted by the percentile */
}

/* ---------------------------------------------------------- HTTP client */

void kd_lat_stream_init(kd_lat_stream *s)
{
    memset(s, 0, sizeof *s);
    s->fd = -1;
}

void kd_lat_stream_close(kd_lat_stream *s)
{
    if (s->fd >= 0)
        close(s->fd);
    kd_lat_stream_init(s);
}

static int tcp_connect(uint16_t port)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0)
        return -1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* The value of header `name` in the head (up to the blank line), copied. */
static int header_value(const char *head, const char *name, char *out, size_t len)
{
    size_t nl = strlen(name);
    for (const char *p = strstr(head, "\r\n"); p && p[2] != '\r'; p = strstr(p + 2, "\r\n")) {
        if (strncasecmp(p + 2, name, nl) != 0 || p[2 + nl] != ':')
            continue;
        const char *v = p + 3 + nl;
        v += strspn(v, " \t");
        size_t n = strcspn(v, "\r");
        if (n >= len)
            return -1;
        memcpy(out, v, n);
        out[n] = '\0';
        return 0;
    }
    return -1;
}

/*
 * Sends one request and reads its head; for a POST also its body (by
 * Content-Length). The status into *status; the session id, when the
 * answer carries one, into sid. Bytes after the head of a GET stay in the
 * reader. 0, or -1 with `why`.
 */
static int http_exchange(kd_bench_reader *r, const char *req, int is_get, int *status, char *sid, size_t sid_len,
                         char *why, size_t why_len)
{
    double deadline = kd_bench_now() + KD_LAT_START_S;
    if (kd_bench_write_all(r->fd, req, strlen(req)) != 0) {
        snprintf(why, why_len, "the gateway closed the connection");
        return -1;
    }
    char *at, *end; /* at: the unread bytes, NUL-terminated by the reader */
    for (;;) {
        at = r->buf + r->off;
        if (r->len > r->off && (end = strstr(at, "\r\n\r\n")) != NULL)
            break;
        if (kd_bench_reader_fill(r, deadline) != 0) {
            snprintf(why, why_len, "no HTTP answer");
            return -1;
        }
    }
    size_t head = (size_t)(end - at) + 4;
    char value[96];
    end[2] = '\0';
    if (sscanf(at, "HTTP/1.1 %d", status) != 1) {
        snprintf(why, why_len, "not an HTTP answer: %.60s", at);
        return -1;
    }
    if (sid && header_value(at, "Mcp-Session-Id", value, sizeof value) == 0)
        snprintf(sid, sid_len, "%s", value);
    size_t body = 0;
    if (!is_get && header_value(at, "Content-Length", value, sizeof value) == 0)
        body = strtoul(value, NULL, 10);
    else if (!is_get && *status != 202) {
        snprintf(why, why_len, "an answer without Content-Length (status %d)", *status);
        return -1;
    }
    kd_bench_reader_consume(r, head);
    while (r->len - r->off < body)
        if (kd_bench_reader_fill(r, deadline) != 0) {
            snprintf(why, why_len, "the answer's body was cut short");
            return -1;
        }
    if (is_get)
        return 0;
    at = r->buf + r->off;
    if (body) {
        char keep = at[body];
        at[body] = '\0';
        if (*status != 200 || strstr(at, "\"error\":")) {
            snprintf(why, why_len, "the gateway answered %d: %.200s", *status, at);
            return -1;
        }
        at[body] = keep;
    }
    kd_bench_reader_consume(r, body);
    return 0;
}

static int post(kd_bench_reader *r, uint16_t port, const char *sid, const char *body, char *sid_out, char *why,
                size_t why_len)
{
    char req[2048], sid_header[160] = "";
    int status = 0;
    if (sid && *sid)
        snprintf(sid_header, sizeof sid_header, "Mcp-Session-Id: %s\r\nMCP-Protocol-Version: " KD_BENCH_PROTOCOL "\r\n",
                 sid);
    snprintf(req, sizeof req,
             "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nContent-Type: application/json\r\n"
             "Accept: application/json, text/event-stream\r\n%sContent-Length: %zu\r\n\r\n%s",
             port, sid_header, strlen(body), body);
    if (http_exchange(r, req, 0, &status, sid_out, 96, why, why_len) != 0)
        return -1;
    if (status != 200 && status != 202) {
        snprintf(why, why_len, "the gateway answered HTTP %d", status);
        return -1;
    }
    return 0;
}

/* GET `path` as an event stream; bytes after the head are counted. */
static int get_stream(kd_lat_stream *s, kd_bench_reader *r, uint16_t port, const char *path, const char *marker,
                      char *why, size_t why_len)
{
    char req[512], sid_header[160] = "";
    int status = 0;
    if (s->sid[0])
        snprintf(sid_header, sizeof sid_header, "Mcp-Session-Id: %s\r\nMCP-Protocol-Version: " KD_BENCH_PROTOCOL "\r\n",
                 s->sid);
    snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nAccept: text/event-stream\r\n%s\r\n", path,
             port, sid_header);
    if (http_exchange(r, req, 1, &status, NULL, 0, why, why_len) != 0)
        return -1;
    if (status != 200) {
        snprintf(why, why_len, "GET %s answered HTTP %d", path, status);
        return -1;
    }
    kd_lat_count(s, marker, r->buf + r->off, r->len - r->off);
    fcntl(s->fd, F_SETFL, fcntl(s->fd, F_GETFL) | O_NONBLOCK);
    return 0;
}

int kd_lat_session_open(kd_lat_stream *s, uint16_t port, const char *uri, char *why, size_t why_len)
{
    static const char init[] =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"" KD_BENCH_PROTOCOL
        "\",\"capabilities\":{},\"clientInfo\":{\"name\":\"kdapp-bench\",\"version\":\"0.1.0\"}}}";
    static const char done[] = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";
    char sub[256];
    kd_bench_reader r;
    int rc = -1;
    kd_lat_stream_init(s);
    if ((s->fd = tcp_connect(port)) < 0) {
        snprintf(why, why_len, "cannot connect to port %u: %s", port, strerror(errno));
        return -1;
    }
    kd_bench_reader_init(&r, s->fd);
    snprintf(sub, sizeof sub,
             "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/subscribe\",\"params\":{\"uri\":\"%s\"}}", uri);
    if (post(&r, port, NULL, init, s->sid, why, why_len) != 0)
        goto done;
    if (!s->sid[0]) {
        snprintf(why, why_len, "initialize was answered without Mcp-Session-Id");
        goto done;
    }
    if (post(&r, port, s->sid, done, NULL, why, why_len) != 0 || post(&r, port, s->sid, sub, NULL, why, why_len) != 0)
        goto done;
    rc = get_stream(s, &r, port, "/mcp", "notifications/resources/updated", why, why_len);
done:
    kd_bench_reader_fini(&r);
    if (rc != 0)
        kd_lat_stream_close(s);
    return rc;
}

int kd_lat_events_open(kd_lat_stream *s, uint16_t port, const char *path, char *why, size_t why_len)
{
    kd_bench_reader r;
    kd_lat_stream_init(s);
    if ((s->fd = tcp_connect(port)) < 0) {
        snprintf(why, why_len, "cannot connect to port %u: %s", port, strerror(errno));
        return -1;
    }
    kd_bench_reader_init(&r, s->fd);
    int rc = get_stream(s, &r, port, path, "event: view", why, why_len);
    kd_bench_reader_fini(&r);
    if (rc != 0)
        kd_lat_stream_close(s);
    return rc;
}

size_t kd_lat_count(kd_lat_stream *s, const char *marker, const char *data, size_t n)
{
    size_t m = strlen(marker), found = 0;
    char joined[128];
    /* the tail and the start of the new bytes: a marker across the seam */
    size_t head = n < m - 1 ? n : m - 1;
    memcpy(joined, s->tail, s->tail_len);
    memcpy(joined + s->tail_len, data, head);
    for (size_t i = 0; i + m <= s->tail_len + head; i++)
        found += i < s->tail_len && memcmp(joined + i, marker, m) == 0;
    for (const char *p = data; (p = memmem(p, n - (size_t)(p - data), marker, m)) != NULL; p += m)
        found++;
    /* keep the last m-1 bytes of tail+data */
    size_t total = s->tail_len + n, keep = total < m - 1 ? total : m - 1;
    if (n >= keep) {
        memcpy(s->tail, data + n - keep, keep);
    } else {
        size_t from_tail = keep - n;
        memmove(s->tail, s->tail + s->tail_len - from_tail, from_tail);
        memcpy(s->tail + from_tail, data, n);
    }
    s->tail_len = keep;
    s->count += found;
    return found;
}

int kd_lat_drain(kd_lat_stream *s, const char *marker, double now)
{
    char buf[16384];
    for (;;) {
        ssize_t n = read(s->fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        if (n <= 0)
            return -1;
        if (kd_lat_count(s, marker, buf, (size_t)n))
            s->last = now;
    }
}
