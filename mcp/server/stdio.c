/*
 * stdio.c — newline-delimited JSON-RPC over a pair of file descriptors.
 *
 * The read loop polls the input and the stop descriptor, appends what it
 * reads to a line buffer and hands every complete line to the session. A
 * line longer than the limit is not buffered: the loop drops bytes until the
 * next newline and then answers with an error, so a runaway client costs at
 * most the limit in memory. Writes of replies and of server-initiated
 * messages share one mutex and write each line whole.
 */
#include "mcp/server/stdio.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "engine/logger.h"

#define CHUNK 65536

typedef struct {
    int out_fd;
    pthread_mutex_t lock;
    int write_failed;
} writer;

static int write_all(int fd, const char *p, size_t n)
{
    ssize_t w;

    while (n > 0) {
        w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Writes `text` and its newline with one writev in the common case (one
 * system call per message), finishing any short write piecewise. */
static int write_line_all(int fd, const char *text, size_t n)
{
    struct iovec iov[2] = {{(void *)text, n}, {(void *)"\n", 1}};
    ssize_t w;
    do
        w = writev(fd, iov, 2);
    while (w < 0 && errno == EINTR);
    if (w < 0)
        return -1;
    if ((size_t)w > n)
        return 0; /* text and newline */
    if (write_all(fd, text + w, n - (size_t)w) != 0)
        return -1;
    return write_all(fd, "\n", 1);
}

/* Writes `text` and a newline as one line; the send callback of the session
 * and the reply path both come here. */
static void write_line(void *ctx, const char *text)
{
    writer *w = ctx;

    pthread_mutex_lock(&w->lock);
    if (!w->write_failed && write_line_all(w->out_fd, text, strlen(text)) != 0) {
        w->write_failed = errno ? errno : EIO;
        KD_LOG_E("mcp", "stdio: writing to the client failed: %s", strerror(w->write_failed));
    }
    pthread_mutex_unlock(&w->lock);
}

static int failed(writer *w)
{
    int f;

    pthread_mutex_lock(&w->lock);
    f = w->write_failed;
    pthread_mutex_unlock(&w->lock);
    return f;
}

static int blank(const char *p, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r')
            return 0;
    return 1;
}

static kd_err handle_line(kd_mcp_session *s, writer *w, char *line, size_t n)
{
    char *reply = NULL;
    kd_err err;

    if (n > 0 && line[n - 1] == '\r')
        n--;
    if (blank(line, n))
        return KD_OK;
    err = kd_mcp_session_handle(s, line, n, &reply);
    if (err != KD_OK)
        return err;
    if (reply != NULL) {
        write_line(w, reply);
        free(reply);
    }
    return KD_OK;
}

static void too_long(writer *w, size_t limit)
{
    char text[200];

    snprintf(text, sizeof text,
             "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":%d,\"message\":\"Invalid "
             "Request: the line exceeds the limit of %zu bytes and was discarded\"}}",
             KD_JSONRPC_INVALID_REQUEST, limit);
    KD_LOG_W("mcp", "stdio: a line longer than %zu bytes was discarded", limit);
    write_line(w, text);
}

/* Appends n bytes to the line buffer; 0, or -1 when out of memory. */
static int append(char **buf, size_t *len, size_t *cap, const char *p, size_t n)
{
    if (*len + n > *cap) {
        size_t c = *cap ? *cap : 4096;
        char *nb;

        while (c < *len + n)
            c *= 2;
        if ((nb = realloc(*buf, c)) == NULL)
            return -1;
        *buf = nb;
        *cap = c;
    }
    memcpy(*buf + *len, p, n);
    *len += n;
    return 0;
}

kd_err kd_mcp_stdio_run(kd_mcp_server *srv, const kd_mcp_stdio_options *opts)
{
    writer w = {.out_fd = opts->out_fd};
    kd_mcp_session *s = NULL;
    size_t limit = opts->max_line ? opts->max_line : kd_mcp_server_max_message_bytes(srv);
    size_t len = 0, cap = 0, off, seg;
    char *buf = NULL, *chunk = NULL, *nl;
    int discarding = 0;
    struct pollfd pfd[2];
    kd_err err = KD_ERR_NOMEM;
    ssize_t r;

    if (pthread_mutex_init(&w.lock, NULL) != 0)
        return KD_ERR_NOMEM;
    if ((chunk = malloc(CHUNK)) == NULL)
        goto fail;
    if ((err = kd_mcp_session_alloc(srv, write_line, &w, &s)) != KD_OK)
        goto fail;
    kd_mcp_session_set_principal(s, opts->principal);
    KD_LOG_I("mcp", "stdio: serving (line limit %zu bytes)", limit);
    for (;;) {
        pfd[0] = (struct pollfd){.fd = opts->in_fd, .events = POLLIN};
        pfd[1] = (struct pollfd){.fd = opts->stop_fd, .events = POLLIN};
        if (poll(pfd, opts->stop_fd >= 0 ? 2 : 1, -1) < 0) {
            if (errno == EINTR)
                continue;
            err = KD_ERR_IO;
            goto fail;
        }
        if (opts->stop_fd >= 0 && (pfd[1].revents & (POLLIN | POLLHUP))) {
            err = KD_OK;
            break;
        }
        if (!(pfd[0].revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
        r = read(opts->in_fd, chunk, CHUNK);
        if (r < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (r < 0) {
            KD_LOG_E("mcp", "stdio: reading from the client failed: %s", strerror(errno));
            err = KD_ERR_IO;
            goto fail;
        }
        if (r == 0) {
            /* A last line without its newline is still a message. */
            err = discarding ? KD_OK : handle_line(s, &w, buf, len);
            break;
        }
        for (off = 0; off < (size_t)r; off += seg + (nl != NULL)) {
            nl = memchr(chunk + off, '\n', (size_t)r - off);
            seg = nl != NULL ? (size_t)(nl - (chunk + off)) : (size_t)r - off;
            if (!discarding && len + seg > limit) {
                discarding = 1; /* drop the line's bytes up to its newline */
                len = 0;
            }
            if (!discarding && append(&buf, &len, &cap, chunk + off, seg) != 0) {
                err = KD_ERR_NOMEM;
                goto fail;
            }
            if (nl == NULL)
                continue;
            if (discarding)
                too_long(&w, limit);
            else if ((err = handle_line(s, &w, buf, len)) != KD_OK)
                goto fail;
            discarding = 0;
            len = 0;
        }
        if (failed(&w)) {
            err = KD_ERR_IO;
            goto fail;
        }
    }
    if (err == KD_OK && failed(&w))
        err = KD_ERR_IO;
fail:
    kd_mcp_session_free(s);
    free(chunk);
    free(buf);
    pthread_mutex_destroy(&w.lock);
    return err;
}
