/*
 * stdio_test.c — the stdio transport over pipes: one reply line per
 * request, notifications written from another thread, the line limit,
 * CRLF and a last line without its newline, and the stop descriptor.
 */
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "mcp/fake_server.h"
#include "mcp/server/stdio.h"

typedef struct {
    kd_mcp_server *srv;
    kd_mcp_stdio_options opts;
    kd_err result;
    pthread_t thread;
} runner;

static int to_server[2], from_server[2], stop_pipe[2];
static runner run;
static char inbuf[1 << 20];
static size_t inlen;

static void *run_main(void *arg)
{
    runner *r = arg;

    r->result = kd_mcp_stdio_run(r->srv, &r->opts);
    return NULL;
}

/* Serves a session whose principal is `principal` (NULL: the public). */
static void start_as(size_t max_line, const char *principal)
{
    cr_assert_eq(pipe(to_server), 0);
    cr_assert_eq(pipe(from_server), 0);
    cr_assert_eq(pipe(stop_pipe), 0);
    inlen = 0;
    run.srv = fake_server_new(NULL);
    fake_add_whoami(run.srv);
    run.opts = (kd_mcp_stdio_options){.in_fd = to_server[0],
                                      .out_fd = from_server[1],
                                      .stop_fd = stop_pipe[0],
                                      .max_line = max_line,
                                      .principal = principal};
    cr_assert_eq(pthread_create(&run.thread, NULL, run_main, &run), 0);
}

static void start(size_t max_line) { start_as(max_line, NULL); }

static void finish(void)
{
    pthread_join(run.thread, NULL);
    kd_mcp_server_free(run.srv);
    close(to_server[0]);
    close(from_server[0]);
    close(from_server[1]);
    close(stop_pipe[0]);
    close(stop_pipe[1]);
}

static void send_text(const char *text)
{
    size_t n = strlen(text);

    cr_assert_eq(write(to_server[1], text, n), (ssize_t)n);
}

static double now_s(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* Reads the next output line within 5 s; returns it parsed. */
static json_t *next_line(void)
{
    double deadline = now_s() + 5.0;
    char *nl;
    json_t *v;
    ssize_t r;

    while ((nl = memchr(inbuf, '\n', inlen)) == NULL) {
        struct pollfd p = {.fd = from_server[0], .events = POLLIN};
        int ms = (int)((deadline - now_s()) * 1000);

        cr_assert_gt(ms, 0, "no line from the server within 5 s");
        if (poll(&p, 1, ms) <= 0)
            continue;
        r = read(from_server[0], inbuf + inlen, sizeof inbuf - inlen);
        cr_assert_gt(r, 0);
        inlen += (size_t)r;
    }
    *nl = '\0';
    v = fake_parse(inbuf);
    memmove(inbuf, nl + 1, inlen - (size_t)(nl + 1 - inbuf));
    inlen -= (size_t)(nl + 1 - inbuf);
    return v;
}

static const char *INIT = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
                          "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
                          "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n";

Test(stdio, session_over_pipes)
{
    json_t *v;

    start(0);
    send_text(INIT);
    v = next_line();
    cr_expect_str_eq(json_string_value(json_object_get(json_object_get(v, "result"), "protocolVersion")), "2025-06-18");
    json_decref(v);
    send_text("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\r\n\n   \n");
    send_text("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/subscribe\",\"params\":"
              "{\"uri\":\"test://a\"}}\n");
    v = next_line();
    cr_expect_eq(json_integer_value(json_object_get(v, "id")), 2,
                 "notifications and blank "
                 "lines get no reply");
    json_decref(v);

    /* A notification from this (another) thread. */
    kd_mcp_server_notify_resource_updated(run.srv, "test://a");
    v = next_line();
    cr_expect_str_eq(json_string_value(json_object_get(v, "method")), "notifications/resources/updated");
    json_decref(v);

    send_text("{broken\n");
    v = next_line();
    cr_expect_eq(fake_error_code(v), KD_JSONRPC_PARSE_ERROR);
    json_decref(v);

    /* The last message may lack its newline. */
    send_text("{\"jsonrpc\":\"2.0\",\"id\":\"last\",\"method\":\"ping\"}");
    close(to_server[1]);
    v = next_line();
    cr_expect_str_eq(json_string_value(json_object_get(v, "id")), "last");
    json_decref(v);
    finish();
    cr_expect_eq(run.result, KD_OK);
}

Test(stdio, line_limit)
{
    char big[5000];
    json_t *v;

    start(1024);
    memset(big, 'x', sizeof big);
    big[sizeof big - 1] = '\n';
    cr_assert_eq(write(to_server[1], big, sizeof big), (ssize_t)sizeof big);
    v = next_line();
    cr_expect_eq(fake_error_code(v), KD_JSONRPC_INVALID_REQUEST);
    cr_expect(strstr(json_string_value(json_object_get(json_object_get(v, "error"), "message")), "1024") != NULL,
              "the error names the limit");
    json_decref(v);
    send_text("{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}\n");
    v = next_line();
    cr_expect_eq(json_integer_value(json_object_get(v, "id")), 9, "the stream recovers");
    json_decref(v);
    cr_assert_eq(write(stop_pipe[1], "x", 1), 1);
    finish();
    close(to_server[1]);
    cr_expect_eq(run.result, KD_OK);
}

/* The principal of the one session: the seats the process was started for
 * (the public when none). */
static void expect_principal(const char *principal)
{
    json_t *v, *who;

    start_as(0, principal);
    send_text(INIT);
    json_decref(next_line());
    send_text("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
              "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"whoami\"}}\n");
    v = next_line();
    who = json_object_get(json_object_get(json_object_get(v, "result"), "structuredContent"), "principal");
    if (principal != NULL)
        cr_expect_str_eq(json_string_value(who), principal);
    else
        cr_expect(json_is_null(who), "no principal: the public");
    json_decref(v);
    close(to_server[1]);
    finish();
    cr_expect_eq(run.result, KD_OK);
}

Test(stdio, principal) { expect_principal("seats red and blue"); }

Test(stdio, no_principal_is_the_public) { expect_principal(NULL); }
