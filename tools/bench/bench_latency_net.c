/*
 * bench_latency_net.c — the clients of the latency scenarios
 * (bench_latency_int.h): `kdapp mcp` children, a line reader for stdio
 * gateways, and a small HTTP/1.1 client written by hand for MCP sessions
 * and event streams, so that a thousand of them cost a socket each and
 * one poll loop reads them all.
 *
 * An event stream is not parsed: the bench counts a marker (the
 * notification's method name, "event: view") in the bytes as they come,
 * chunked framing included; a marker split across two reads is found
 * through the tail kept from the previous one.
 */
#define _GNU_SOURCE /* pipe2, memmem, memrchr */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tools/bench/bench_latency_int.h"

extern char **environ;

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

/* ------------------------------------------------------------ processes */

int kd_lat_write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int kd_lat_spawn(kd_lat_proc *p, char *const argv[], const char *const *env, const char *log, int pipes)
{
    int in[2] = {-1, -1}, out[2] = {-1, -1}, fa_ok = 0, rc = -1;
    size_t n = 0, k = 0;
    char **envp = NULL;
    posix_spawn_file_actions_t fa;

    p->pid = -1, p->to = p->from = -1;
    while (environ[n])
        n++;
    while (env && env[k])
        k++;
    if ((envp = calloc(n + k + 1, sizeof *envp)) == NULL)
        goto done;
    memcpy(envp, environ, n * sizeof *envp);
    memcpy(envp + n, env, k * sizeof *envp);
    if (pipes && (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0))
        goto done;
    if (posix_spawn_file_actions_init(&fa) != 0)
        goto done;
    fa_ok = 1;
    posix_spawn_file_actions_addopen(&fa, 2, log, O_WRONLY | O_CREAT | O_APPEND, 0600);
    if (pipes) {
        posix_spawn_file_actions_adddup2(&fa, in[0], 0);
        posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    } else {
        posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
        posix_spawn_file_actions_adddup2(&fa, 2, 1);
    }
    if ((errno = posix_spawn(&p->pid, argv[0], &fa, NULL, argv, envp)) != 0) {
        p->pid = -1;
        goto done;
    }
    if (pipes) {
        p->to = in[1], p->from = out[0];
        in[1] = out[0] = -1;
    }
    rc = 0;
done:
    for (int i = 0; i < 2; i++) {
        if (in[i] >= 0)
            close(in[i]);
        if (out[i] >= 0)
            close(out[i]);
    }
    if (fa_ok)
        posix_spawn_file_actions_destroy(&fa);
    free(envp);
    return rc;
}

/* Waits until `deadline` for the child to exit; 0, or -1 when it has not. */
static int reap(pid_t pid, double deadline)
{
    for (;;) {
        pid_t r = waitpid(pid, NULL, WNOHANG);
        if (r == pid || (r < 0 && errno != EINTR))
            return 0;
        if (kd_bench_now() >= deadline)
            return -1;
        kd_lat_sleep(0.005);
    }
}

void kd_lat_stop(kd_lat_proc *p)
{
    if (p->to >= 0)
        close(p->to);
    if (p->pid > 0) {
        kill(p->pid, SIGTERM);
        if (reap(p->pid, kd_bench_now() + 5) != 0) {
            kill(p->pid, SIGKILL);
            waitpid(p->pid, NULL, 0);
        }
    }
    if (p->from >= 0)
        close(p->from);
    p->pid = -1, p->to = p->from = -1;
}

uint16_t kd_lat_http_port(const char *log, double timeout_s)
{
    double deadline = kd_bench_now() + timeout_s;
    char line[1024];
    while (kd_bench_now() < deadline) {
        FILE *f = fopen(log, "r");
        while (f && fgets(line, sizeof line, f)) {
            const char *u = strstr(line, "http://");
            const char *m = u ? strstr(u, "/mcp") : NULL;
            const char *colon = m ? memrchr(u, ':', (size_t)(m - u)) : NULL;
            if (colon && colon > u + 6) {
                unsigned long port = strtoul(colon + 1, NULL, 10);
                fclose(f);
                return port > 0 && port < 65536 ? (uint16_t)port : 0;
            }
        }
        if (f)
            fclose(f);
        kd_lat_sleep(0.01);
    }
    return 0;
}

unsigned long kd_lat_rss_kb(pid_t pid)
{
    char path[64], text[256];
    unsigned long kb = 0;
    snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
    FILE *f = fopen(path, "r");
    while (f && fgets(text, sizeof text, f))
        if (sscanf(text, "VmRSS: %lu kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb;
}

void kd_lat_show_log(const char *path)
{
    char buf[1200];
    FILE *fp = fopen(path, "r");
    if (!fp)
        return;
    fseek(fp, 0, SEEK_END);
    long size = ftell(fp);
    fseek(fp, size > (long)sizeof buf - 1 ? size - (long)sizeof buf + 1 : 0, SEEK_SET);
    size_t n = fread(buf, 1, sizeof buf - 1, fp);
    buf[n] = '\0';
    fclose(fp);
    fprintf(stderr, "kdapp bench: the end of %s:\n%s\n", path, buf);
}

/* ---------------------------------------------------------- line reader */

void kd_lat_reader_init(kd_lat_reader *r, int fd)
{
    memset(r, 0, sizeof *r);
    r->fd = fd;
}

void kd_lat_reader_fini(kd_lat_reader *r)
{
    free(r->buf);
    free(r->line);
    memset(r, 0, sizeof *r);
    r->fd = -1;
}

/* Reads more into the buffer, waiting until `deadline`; 0 or -1. */
static int reader_fill(kd_lat_reader *r, double deadline)
{
    if (r->len + 4096 > r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 65536;
        char *nb = cap <= ((size_t)64 << 20) ? realloc(r->buf, cap) : NULL;
        if (!nb)
            return -1;
        r->buf = nb, r->cap = cap;
    }
    for (;;) {
        double left = deadline - kd_bench_now();
        struct pollfd pf = {.fd = r->fd, .events = POLLIN};
        int n = left > 0 ? poll(&pf, 1, (int)(left * 1000) + 1) : 0;
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        ssize_t got = read(r->fd, r->buf + r->len, r->cap - r->len - 1);
        if (got < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (got <= 0)
            return -1;
        r->len += (size_t)got;
        return 0;
    }
}

/* Drops the first `n` bytes of the buffer. */
static void reader_consume(kd_lat_reader *r, size_t n)
{
    memmove(r->buf, r->buf + n, r->len - n);
    r->len -= n;
}

int kd_lat_read_line(kd_lat_reader *r, double deadline, char **line)
{
    for (;;) {
        char *nl = r->len ? memchr(r->buf, '\n', r->len) : NULL;
        if (nl) {
            size_t n = (size_t)(nl - r->buf) + 1;
            char *copy = realloc(r->line, n);
            if (!copy)
                return -1;
            memcpy(copy, r->buf, n - 1);
            copy[n - 1] = '\0';
            reader_consume(r, n);
            *line = r->line = copy;
            return 0;
        }
        if (reader_fill(r, deadline) != 0)
            return -1;
    }
}

int kd_lat_stdio_rpc(int to, kd_lat_reader *r, const char *line, long id, double timeout_s, char **answer)
{
    char *last;
    double deadline = kd_bench_now() + timeout_s;
    char needle[32];
    int n = snprintf(needle, sizeof needle, "\"id\":%ld", id);
    if (kd_lat_write_all(to, line, strlen(line)) != 0)
        return -1;
    for (;;) {
        if (kd_lat_read_line(r, deadline, &last) != 0)
            return -1;
        const char *h = strstr(last, needle);
        if (!h || (h[n] != ',' && h[n] != '}'))
            continue;
        if (answer)
            *answer = last;
        return strstr(last, "\"result\":") && !strstr(last, "\"isError\":true") ? 0 : -1;
    }
}

int kd_lat_stdio_handshake(int to, kd_lat_reader *r)
{
    static const char init[] =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"" KD_LAT_PROTOCOL
        "\",\"capabilities\":{},\"clientInfo\":{\"name\":\"kdapp-bench\",\"version\":\"0.1.0\"}}}\n";
    static const char done[] = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";
    if (kd_lat_stdio_rpc(to, r, init, 1, KD_LAT_START_S, NULL) != 0)
        return -1;
    return kd_lat_write_all(to, done, sizeof done - 1);
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
static int http_exchange(kd_lat_reader *r, const char *req, int is_get, int *status, char *sid, size_t sid_len,
                         char *why, size_t why_len)
{
    double deadline = kd_bench_now() + KD_LAT_START_S;
    char *end;
    if (kd_lat_write_all(r->fd, req, strlen(req)) != 0) {
        snprintf(why, why_len, "the gateway closed the connection");
        return -1;
    }
    for (;;) {
        if (r->len) {
            r->buf[r->len] = '\0';
            if ((end = strstr(r->buf, "\r\n\r\n")) != NULL)
                break;
        }
        if (reader_fill(r, deadline) != 0) {
            snprintf(why, why_len, "no HTTP answer");
            return -1;
        }
    }
    size_t head = (size_t)(end - r->buf) + 4;
    char value[96];
    end[2] = '\0';
    if (sscanf(r->buf, "HTTP/1.1 %d", status) != 1) {
        snprintf(why, why_len, "not an HTTP answer: %.60s", r->buf);
        return -1;
    }
    if (sid && header_value(r->buf, "Mcp-Session-Id", value, sizeof value) == 0)
        snprintf(sid, sid_len, "%s", value);
    size_t body = 0;
    if (!is_get && header_value(r->buf, "Content-Length", value, sizeof value) == 0)
        body = strtoul(value, NULL, 10);
    else if (!is_get && *status != 202) {
        snprintf(why, why_len, "an answer without Content-Length (status %d)", *status);
        return -1;
    }
    reader_consume(r, head);
    while (r->len < body)
        if (reader_fill(r, deadline) != 0) {
            snprintf(why, why_len, "the answer's body was cut short");
            return -1;
        }
    if (!is_get && body && (*status != 200 || (r->len = body, r->buf[body] = '\0', strstr(r->buf, "\"error\":")))) {
        snprintf(why, why_len, "the gateway answered %d: %.200s", *status, r->buf);
        return -1;
    }
    if (!is_get)
        reader_consume(r, body);
    return 0;
}

static int post(kd_lat_reader *r, uint16_t port, const char *sid, const char *body, char *sid_out, char *why,
                size_t why_len)
{
    char req[2048], sid_header[160] = "";
    int status = 0;
    if (sid && *sid)
        snprintf(sid_header, sizeof sid_header, "Mcp-Session-Id: %s\r\nMCP-Protocol-Version: " KD_LAT_PROTOCOL "\r\n",
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
static int get_stream(kd_lat_stream *s, kd_lat_reader *r, uint16_t port, const char *path, const char *marker,
                      char *why, size_t why_len)
{
    char req[512], sid_header[160] = "";
    int status = 0;
    if (s->sid[0])
        snprintf(sid_header, sizeof sid_header, "Mcp-Session-Id: %s\r\nMCP-Protocol-Version: " KD_LAT_PROTOCOL "\r\n",
                 s->sid);
    snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nAccept: text/event-stream\r\n%s\r\n", path,
             port, sid_header);
    if (http_exchange(r, req, 1, &status, NULL, 0, why, why_len) != 0)
        return -1;
    if (status != 200) {
        snprintf(why, why_len, "GET %s answered HTTP %d", path, status);
        return -1;
    }
    kd_lat_count(s, marker, r->buf, r->len);
    fcntl(s->fd, F_SETFL, fcntl(s->fd, F_GETFL) | O_NONBLOCK);
    return 0;
}

int kd_lat_session_open(kd_lat_stream *s, uint16_t port, const char *uri, char *why, size_t why_len)
{
    static const char init[] =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"" KD_LAT_PROTOCOL
        "\",\"capabilities\":{},\"clientInfo\":{\"name\":\"kdapp-bench\",\"version\":\"0.1.0\"}}}";
    static const char done[] = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";
    char sub[256];
    kd_lat_reader r;
    int rc = -1;
    kd_lat_stream_init(s);
    if ((s->fd = tcp_connect(port)) < 0) {
        snprintf(why, why_len, "cannot connect to port %u: %s", port, strerror(errno));
        return -1;
    }
    kd_lat_reader_init(&r, s->fd);
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
    kd_lat_reader_fini(&r);
    if (rc != 0)
        kd_lat_stream_close(s);
    return rc;
}

int kd_lat_events_open(kd_lat_stream *s, uint16_t port, const char *path, char *why, size_t why_len)
{
    kd_lat_reader r;
    kd_lat_stream_init(s);
    if ((s->fd = tcp_connect(port)) < 0) {
        snprintf(why, why_len, "cannot connect to port %u: %s", port, strerror(errno));
        return -1;
    }
    kd_lat_reader_init(&r, s->fd);
    int rc = get_stream(s, &r, port, path, "event: view", why, why_len);
    kd_lat_reader_fini(&r);
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
