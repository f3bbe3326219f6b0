/*
 * mcp_client.c — the MCP client of `kdapp play` (see mcp_client.h): a
 * child process on a socketpair, or Streamable HTTP through libcurl, both
 * behind one "send a message, read messages until the answer with this id"
 * exchange.
 */
#include "tools/play/mcp_client.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "engine/bytes.h"
#include "engine/netutil.h"
#include "engine/episode.h"
#include "mcp/server/jsonrpc.h"

#define MAX_LINE ((size_t)64 << 20) /* one inbound message */
#define CLOSE_WAIT_MS 10000u        /* for the child to exit after its input closed */
#define RATE_RETRY_MS 30000u        /* a request refused by the server's call rate is retried this long */
#define RATE_PAUSE_MS 100L          /* between those tries */

struct kd_mcp_client {
    int http;
    /* stdio */
    pid_t pid;
    int fd;
    kd_buf rx; /* bytes read but not yet consumed */
    /* http */
    CURL *curl;
    char *url, *bearer;
    char session_id[256];
    /* both */
    char protocol[32];
    uint32_t timeout_ms;
    json_int_t next_id;
};

static int remaining_ms(uint64_t deadline)
{
    uint64_t now = kd_now_ms();
    return now >= deadline ? 0 : (int)(deadline - now > 1000000 ? 1000000 : deadline - now);
}

/* ------------------------------------------------------------- stdio */

static kd_err spawn(kd_mcp_client *c, const kd_mcp_client_options *o, char *why, size_t why_len)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        kd_reject_write(why, why_len, "cannot create a socketpair for the MCP server: %s", strerror(errno));
        return KD_ERR_IO;
    }
    pid_t pid = fork();
    if (pid < 0) {
        kd_reject_write(why, why_len, "cannot start the MCP server: fork: %s", strerror(errno));
        close(sv[0]);
        close(sv[1]);
        return KD_ERR_IO;
    }
    if (pid == 0) { /* child: async-signal-safe calls only */
        /* A process group of its own: the terminal's Ctrl-C reaches the
         * client, which stops after its turn and then closes the server's
         * input, instead of killing the server under it. The signal mask
         * and ignored signals of the client (kd_signals_block) are not
         * the server's. */
        sigset_t none;
        sigemptyset(&none);
        struct sigaction dfl = {.sa_handler = SIG_DFL};
        if (setpgid(0, 0) != 0 || sigprocmask(SIG_SETMASK, &none, NULL) != 0 || sigaction(SIGPIPE, &dfl, NULL) != 0)
            _exit(127);
        if (dup2(sv[1], 0) < 0 || dup2(sv[1], 1) < 0)
            _exit(127);
        if (o->command)
            execl("/bin/sh", "sh", "-c", o->command, (char *)NULL);
        else
            execv(o->argv[0], o->argv);
        static const char msg[] = "kdapp: cannot execute the MCP server\n";
        if (write(2, msg, sizeof msg - 1) < 0)
            _exit(127);
        _exit(127);
    }
    close(sv[1]);
    c->pid = pid;
    c->fd = sv[0];
    return KD_OK;
}

static kd_err stdio_send(kd_mcp_client *c, const char *line, size_t len, uint64_t deadline, char *why, size_t why_len)
{
    size_t done = 0;
    while (done < len) {
        struct pollfd p = {.fd = c->fd, .events = POLLOUT};
        int n = poll(&p, 1, remaining_ms(deadline));
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0) {
            kd_reject_write(why, why_len, "the MCP server did not read its input within %u ms", c->timeout_ms);
            return KD_ERR_TIMEOUT;
        }
        ssize_t w = send(c->fd, line + done, len - done, MSG_NOSIGNAL);
        if (w < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (w < 0) {
            kd_reject_write(why, why_len, "the MCP server closed its input (%s); did it exit? (see its messages above)",
                            strerror(errno));
            return KD_ERR_CLOSED;
        }
        done += (size_t)w;
    }
    return KD_OK;
}

/* Reads one line (without its newline) into *line (malloc'd). */
static kd_err stdio_read_line(kd_mcp_client *c, uint64_t deadline, char **line, char *why, size_t why_len)
{
    for (;;) {
        uint8_t *nl = c->rx.len ? memchr(c->rx.data, '\n', c->rx.len) : NULL;
        if (nl) {
            size_t n = (size_t)(nl - c->rx.data);
            *line = malloc(n + 1);
            if (!*line)
                return KD_ERR_NOMEM;
            memcpy(*line, c->rx.data, n);
            (*line)[n] = '\0';
            memmove(c->rx.data, nl + 1, c->rx.len - n - 1);
            c->rx.len -= n + 1;
            return KD_OK;
        }
        if (c->rx.len > MAX_LINE) {
            kd_reject_write(why, why_len, "the MCP server sent a line longer than %zu bytes", MAX_LINE);
            return KD_ERR_TOO_LARGE;
        }
        struct pollfd p = {.fd = c->fd, .events = POLLIN};
        int n = poll(&p, 1, remaining_ms(deadline));
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0) {
            kd_reject_write(why, why_len, "the MCP server did not answer within %u ms", c->timeout_ms);
            return KD_ERR_TIMEOUT;
        }
        if (kd_buf_reserve(&c->rx, 65536))
            return KD_ERR_NOMEM;
        ssize_t r = recv(c->fd, c->rx.data + c->rx.len, 65536, 0);
        if (r < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (r <= 0) {
            kd_reject_write(why, why_len, "the MCP server closed its output%s%s; did it exit? (see its messages above)",
                            r < 0 ? ": " : "", r < 0 ? strerror(errno) : "");
            return KD_ERR_CLOSED;
        }
        c->rx.len += (size_t)r;
    }
}

/* Waits for the child to exit within `ms`; returns its status or -1. */
static int reap(pid_t pid, uint32_t ms)
{
    uint64_t deadline = kd_now_ms() + ms;
    for (;;) {
        int status;
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid)
            return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        if (r < 0 && errno != EINTR)
            return -1;
        if (kd_now_ms() >= deadline)
            return -2;
        struct timespec ts = {0, 10 * 1000 * 1000}; /* polling a bounded exit; nothing to wait on */
        nanosleep(&ts, NULL);
    }
}

static int stdio_close(kd_mcp_client *c)
{
    int rc = 0;
    if (c->fd >= 0) {
        shutdown(c->fd, SHUT_WR); /* EOF on the server's stdin: it ends */
        uint64_t deadline = kd_now_ms() + CLOSE_WAIT_MS;
        char buf[4096];
        for (;;) { /* drain until the server closes its output */
            struct pollfd p = {.fd = c->fd, .events = POLLIN};
            int n = poll(&p, 1, remaining_ms(deadline));
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            ssize_t r = recv(c->fd, buf, sizeof buf, 0);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0)
                break;
        }
        close(c->fd);
        c->fd = -1;
    }
    if (c->pid > 0) {
        rc = reap(c->pid, 5000);
        if (rc == -2) {
            kill(c->pid, SIGTERM);
            rc = reap(c->pid, 3000);
            if (rc == -2) {
                kill(c->pid, SIGKILL);
                waitpid(c->pid, NULL, 0);
            }
            rc = -1;
        }
        c->pid = 0;
    }
    return rc;
}

/* ------------------------------------------------------------- http */

typedef struct {
    kd_buf body;
    char session_id[256];
    char content_type[128];
} http_reply;

static size_t on_body(char *data, size_t size, size_t n, void *ctx)
{
    http_reply *r = ctx;
    if (r->body.len + size * n > MAX_LINE || kd_buf_append(&r->body, data, size * n))
        return 0;
    return size * n;
}

/* Copies the value of header `name` from one header line, trimmed. */
static void header_value(const char *line, size_t len, const char *name, char *out, size_t out_len)
{
    size_t k = strlen(name);
    if (len <= k || strncasecmp(line, name, k) != 0 || line[k] != ':')
        return;
    const char *v = line + k + 1;
    const char *end = line + len;
    while (v < end && (*v == ' ' || *v == '\t'))
        v++;
    while (end > v && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' '))
        end--;
    size_t n = (size_t)(end - v) < out_len - 1 ? (size_t)(end - v) : out_len - 1;
    memcpy(out, v, n);
    out[n] = '\0';
}

static size_t on_header(char *data, size_t size, size_t n, void *ctx)
{
    http_reply *r = ctx;
    header_value(data, size * n, "Mcp-Session-Id", r->session_id, sizeof r->session_id);
    header_value(data, size * n, "Content-Type", r->content_type, sizeof r->content_type);
    return size * n;
}

/* One HTTP exchange; `body` NULL with DELETE. Fills *status and `reply`. */
static kd_err http_do(kd_mcp_client *c, const char *method, const char *body, long *status, http_reply *reply,
                      char *why, size_t why_len)
{
    struct curl_slist *h = NULL, *t;
    char line[400];
    kd_err err = KD_OK;
#define ADD(s)                                  \
    do {                                        \
        if (!(t = curl_slist_append(h, (s)))) { \
            err = KD_ERR_NOMEM;                 \
            goto done;                          \
        }                                       \
        h = t;                                  \
    } while (0)
    ADD("Content-Type: application/json");
    ADD("Accept: application/json, text/event-stream");
    if (c->session_id[0]) {
        snprintf(line, sizeof line, "Mcp-Session-Id: %s", c->session_id);
        ADD(line);
    }
    if (c->protocol[0]) {
        snprintf(line, sizeof line, "MCP-Protocol-Version: %s", c->protocol);
        ADD(line);
    }
    if (c->bearer) {
        snprintf(line, sizeof line, "Authorization: Bearer %s", c->bearer);
        ADD(line);
    }
#undef ADD
    curl_easy_reset(c->curl);
    curl_easy_setopt(c->curl, CURLOPT_URL, c->url);
    curl_easy_setopt(c->curl, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c->curl, CURLOPT_TIMEOUT_MS, (long)c->timeout_ms);
    curl_easy_setopt(c->curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c->curl, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c->curl, CURLOPT_WRITEDATA, reply);
    curl_easy_setopt(c->curl, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c->curl, CURLOPT_HEADERDATA, reply);
    if (body) {
        curl_easy_setopt(c->curl, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(c->curl, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
    } else {
        curl_easy_setopt(c->curl, CURLOPT_CUSTOMREQUEST, method);
    }
    CURLcode cc = curl_easy_perform(c->curl);
    if (cc != CURLE_OK) {
        kd_reject_write(why, why_len, "MCP request to %s failed: %s", c->url, curl_easy_strerror(cc));
        err = cc == CURLE_OPERATION_TIMEDOUT ? KD_ERR_TIMEOUT : KD_ERR_NET;
        goto done;
    }
    curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, status);
done:
    curl_slist_free_all(h);
    return err;
}

/* Finds the JSON-RPC answer with `id` in an HTTP body (JSON or SSE). */
static json_t *http_find_answer(const http_reply *r, json_int_t id)
{
    const char *body = (const char *)r->body.data;
    size_t len = r->body.len;
    if (strncasecmp(r->content_type, "text/event-stream", 17) != 0) {
        json_error_t e;
        return json_loadb(body, len, 0, &e);
    }
    /* SSE: events separated by blank lines; data: lines joined by \n. */
    kd_buf data;
    kd_buf_init(&data);
    json_t *found = NULL;
    size_t i = 0;
    while (i <= len && !found) {
        const char *nl = i < len ? memchr(body + i, '\n', len - i) : NULL;
        size_t n = nl ? (size_t)(nl - (body + i)) : len - i;
        const char *l = body + i;
        if (n && l[n - 1] == '\r')
            n--;
        if (n == 0 || !nl) { /* end of an event */
            if (data.len) {
                json_error_t e;
                json_t *m = json_loadb((const char *)data.data, data.len, 0, &e);
                json_t *mid = json_object_get(m, "id");
                if (m && json_is_integer(mid) && json_integer_value(mid) == id && !json_object_get(m, "method"))
                    found = m;
                else
                    json_decref(m);
                data.len = 0;
            }
        } else if (n >= 5 && strncmp(l, "data:", 5) == 0) {
            size_t skip = (n > 5 && l[5] == ' ') ? 6 : 5;
            if ((data.len && kd_buf_append(&data, "\n", 1)) || kd_buf_append(&data, l + skip, n - skip))
                break;
        }
        if (!nl)
            break;
        i += (size_t)(nl - (body + i)) + 1;
    }
    kd_buf_fini(&data);
    return found;
}

static kd_err http_exchange(kd_mcp_client *c, const char *text, json_int_t id, json_t **answer, char *why,
                            size_t why_len)
{
    http_reply r = {0};
    kd_buf_init(&r.body);
    long status = 0;
    kd_err err = http_do(c, "POST", text, &status, &r, why, why_len);
    if (err)
        goto done;
    if (status < 200 || status >= 300) {
        kd_reject_write(why, why_len, "the MCP server at %s answered HTTP %ld: %.*s", c->url, status,
                        (int)(r.body.len > 300 ? 300 : r.body.len), r.body.data ? (const char *)r.body.data : "");
        err = status == 401 || status == 403 ? KD_ERR_UNSUPPORTED : KD_ERR_NET;
        goto done;
    }
    if (r.session_id[0] && !c->session_id[0])
        snprintf(c->session_id, sizeof c->session_id, "%s", r.session_id);
    if (!answer)
        goto done;
    if (!(*answer = http_find_answer(&r, id))) {
        kd_reject_write(why, why_len, "the MCP server at %s sent no answer to request %lld", c->url, (long long)id);
        err = KD_ERR_PARSE;
    }
done:
    kd_buf_fini(&r.body);
    return err;
}

/* ---------------------------------------------------------- exchange */

/* Answers a request the server sent us (stdio only; ping gets {}). */
static void answer_server_request(kd_mcp_client *c, const kd_jsonrpc_msg *m, uint64_t deadline)
{
    json_t *reply = strcmp(m->method, "ping") == 0 ? kd_jsonrpc_result(m->id, json_object())
                                                   : kd_jsonrpc_error(m->id, KD_JSONRPC_METHOD_NOT_FOUND,
                                                                      "the kdapp client offers no methods", NULL);
    char *text = reply ? kd_jsonrpc_dumps(reply) : NULL;
    json_decref(reply);
    if (text) {
        size_t n = strlen(text);
        text[n] = '\n';
        (void)stdio_send(c, text, n + 1, deadline, NULL, 0);
        free(text);
    }
}

/* Sends `msg` (borrowed); with id > 0 waits for the answer with that id. */
static kd_err exchange(kd_mcp_client *c, json_t *msg, json_int_t id, json_t **answer, char *why, size_t why_len)
{
    char *text = kd_jsonrpc_dumps(msg);
    if (!text)
        return KD_ERR_NOMEM;
    kd_err err;
    if (c->http) {
        err = http_exchange(c, text, id, id > 0 ? answer : NULL, why, why_len);
        free(text);
        return err;
    }
    uint64_t deadline = kd_now_ms() + c->timeout_ms;
    size_t n = strlen(text);
    char *line = realloc(text, n + 2);
    if (!line) {
        free(text);
        return KD_ERR_NOMEM;
    }
    line[n] = '\n';
    err = stdio_send(c, line, n + 1, deadline, why, why_len);
    free(line);
    while (!err && id > 0) {
        char *in = NULL;
        if ((err = stdio_read_line(c, deadline, &in, why, why_len)))
            break;
        kd_jsonrpc_msg m;
        kd_err perr = kd_jsonrpc_parse(in, strlen(in), &m);
        free(in);
        if (!perr && m.kind == KD_JSONRPC_RESPONSE && json_is_integer(m.id) && json_integer_value(m.id) == id) {
            *answer = json_incref(m.root);
            kd_jsonrpc_msg_fini(&m);
            return KD_OK;
        }
        if (!perr && m.kind == KD_JSONRPC_REQUEST)
            answer_server_request(c, &m, deadline);
        kd_jsonrpc_msg_fini(&m); /* notifications, stray lines: ignored */
    }
    return err;
}

/* The server refused a request under its per-session call rate: the
 * request never ran, so sending it again is safe. */
static int rate_limited(const json_t *error)
{
    const char *message = json_string_value(json_object_get(error, "message"));
    return json_integer_value(json_object_get(error, "code")) == KD_MCP_LIMIT_EXCEEDED && message &&
           strncmp(message, "Rate limit exceeded", 19) == 0;
}

kd_err kd_mcp_client_request(kd_mcp_client *c, const char *method, json_t *params, json_t **result, int *rpc_code,
                             char *why, size_t why_len)
{
    json_t *answer = NULL, *error = NULL;
    kd_err err = KD_OK;
    /* a request refused by the rate limit is sent again (with a new id) after a pause, for a bounded time */
    for (uint64_t give_up = kd_now_ms() + RATE_RETRY_MS;;) {
        json_int_t id = ++c->next_id;
        json_t *msg = json_pack("{s:s, s:I, s:s}", "jsonrpc", "2.0", "id", id, "method", method);
        if (!msg || (params && json_object_set(msg, "params", params) != 0)) {
            json_decref(msg);
            json_decref(params);
            return KD_ERR_NOMEM;
        }
        err = exchange(c, msg, id, &answer, why, why_len);
        json_decref(msg);
        if (err) {
            json_decref(params);
            return err;
        }
        error = json_object_get(answer, "error");
        if (!error || !rate_limited(error) || kd_now_ms() >= give_up)
            break;
        json_decref(answer);
        answer = NULL;
        nanosleep(&(struct timespec){0, RATE_PAUSE_MS * 1000000L}, NULL);
    }
    json_decref(params);
    json_t *res = json_object_get(answer, "result");
    if (error) {
        int code = (int)json_integer_value(json_object_get(error, "code"));
        if (rpc_code)
            *rpc_code = code;
        kd_reject_write(why, why_len, "%s: the server answered error %d: %s", method, code,
                        json_string_value(json_object_get(error, "message"))
                            ? json_string_value(json_object_get(error, "message"))
                            : "(no message)");
        err = KD_ERR_UNSUPPORTED;
    } else if (!res) {
        kd_reject_write(why, why_len, "%s: the answer has neither result nor error", method);
        err = KD_ERR_PARSE;
    } else {
        *result = json_incref(res);
    }
    json_decref(answer);
    return err;
}

kd_err kd_mcp_client_open(const kd_mcp_client_options *o, kd_mcp_client **out, char *why, size_t why_len)
{
    *out = NULL;
    if (!!o->url + !!o->command + !!o->argv != 1 || (o->argv && !o->argv[0])) {
        kd_reject_write(why, why_len, "name exactly one MCP server: a URL, a command or a program");
        return KD_ERR_INVALID_ARG;
    }
    kd_mcp_client *c = calloc(1, sizeof *c);
    if (!c)
        return KD_ERR_NOMEM;
    c->fd = -1;
    kd_buf_init(&c->rx);
    c->timeout_ms = o->timeout_ms ? o->timeout_ms : KD_MCP_CLIENT_TIMEOUT_MS;
    kd_err err = KD_OK;
    json_t *res = NULL;
    if (o->url) {
        c->http = 1;
        c->url = strdup(o->url);
        c->bearer = o->bearer_token && *o->bearer_token ? strdup(o->bearer_token) : NULL;
        c->curl = curl_easy_init();
        if (!c->url || !c->curl || (o->bearer_token && *o->bearer_token && !c->bearer)) {
            err = KD_ERR_NOMEM;
            goto fail;
        }
    } else if ((err = spawn(c, o, why, why_len))) {
        goto fail;
    }
    json_t *params = json_pack("{s:s, s:{}, s:{s:s, s:s}}", "protocolVersion", KD_MCP_CLIENT_PROTOCOL, "capabilities",
                               "clientInfo", "name", o->client_name ? o->client_name : "kdapp", "version", "0.1.0");
    if ((err = kd_mcp_client_request(c, "initialize", params, &res, NULL, why, why_len)))
        goto fail;
    const char *version = json_string_value(json_object_get(res, "protocolVersion"));
    if (!version || strlen(version) >= sizeof c->protocol) {
        kd_reject_write(why, why_len, "the MCP server's initialize answer names no protocol version");
        err = KD_ERR_PARSE;
        goto fail;
    }
    snprintf(c->protocol, sizeof c->protocol, "%s", version);
    json_decref(res);
    res = NULL;
    json_t *note = json_pack("{s:s, s:s}", "jsonrpc", "2.0", "method", "notifications/initialized");
    if (!note) {
        err = KD_ERR_NOMEM;
        goto fail;
    }
    err = exchange(c, note, 0, NULL, why, why_len);
    json_decref(note);
    if (err)
        goto fail;
    *out = c;
    return KD_OK;
fail:
    json_decref(res);
    kd_mcp_client_close(c);
    return err;
}

int kd_mcp_client_close(kd_mcp_client *c)
{
    if (!c)
        return 0;
    int rc = 0;
    if (c->http) {
        if (c->session_id[0] && c->curl) {
            http_reply r = {0};
            kd_buf_init(&r.body);
            long status = 0;
            (void)http_do(c, "DELETE", NULL, &status, &r, NULL, 0);
            kd_buf_fini(&r.body);
        }
        if (c->curl)
            curl_easy_cleanup(c->curl);
        free(c->url);
        free(c->bearer);
    } else {
        rc = stdio_close(c);
    }
    kd_buf_fini(&c->rx);
    free(c);
    return rc;
}

kd_err kd_mcp_client_call_tool(kd_mcp_client *c, const char *name, json_t *arguments, json_t **structured,
                               int *is_error, char *why, size_t why_len)
{
    *structured = NULL;
    *is_error = 0;
    json_t *params = json_pack("{s:s, s:o}", "name", name, "arguments", arguments ? arguments : json_object());
    if (!params)
        return KD_ERR_NOMEM;
    json_t *res = NULL;
    kd_err err = kd_mcp_client_request(c, "tools/call", params, &res, NULL, why, why_len);
    if (err)
        return err;
    *is_error = json_is_true(json_object_get(res, "isError"));
    const char *text = json_string_value(json_object_get(json_array_get(json_object_get(res, "content"), 0), "text"));
    json_t *sc = json_object_get(res, "structuredContent");
    if (sc) {
        *structured = json_incref(sc);
    } else if (text) {
        json_error_t e;
        *structured = json_loads(text, 0, &e);
    }
    if (why && why_len)
        kd_reject_write(why, why_len, "%s", *is_error && text ? text : "");
    json_decref(res);
    return KD_OK;
}

kd_err kd_mcp_client_get_prompt(kd_mcp_client *c, const char *name, json_t *arguments, char **text, char *why,
                                size_t why_len)
{
    *text = NULL;
    json_t *params = json_pack("{s:s, s:o}", "name", name, "arguments", arguments ? arguments : json_object());
    if (!params)
        return KD_ERR_NOMEM;
    json_t *res = NULL;
    kd_err err = kd_mcp_client_request(c, "prompts/get", params, &res, NULL, why, why_len);
    if (err)
        return err;
    kd_buf b;
    kd_buf_init(&b);
    size_t i;
    json_t *m;
    json_array_foreach(json_object_get(res, "messages"), i, m)
    {
        const char *t = json_string_value(json_object_get(json_object_get(m, "content"), "text"));
        if (!t)
            continue;
        if ((b.len && kd_buf_append(&b, "\n\n", 2)) || kd_buf_append(&b, t, strlen(t))) {
            err = KD_ERR_NOMEM;
            goto done;
        }
    }
    if (!b.len) {
        kd_reject_write(why, why_len, "prompts/get %s: the result carries no text message", name);
        err = KD_ERR_PARSE;
        goto done;
    }
    if ((err = kd_buf_append(&b, "", 1)))
        goto done;
    *text = (char *)b.data;
    b.data = NULL;
done:
    kd_buf_fini(&b);
    json_decref(res);
    return err;
}
