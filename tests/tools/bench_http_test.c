/* bench_http_test.c — the HTTP streams of `kdapp bench`
 * (tools/bench/bench_http.c) against a small MCP-shaped server in this
 * process (libmicrohttpd, a thread per connection): sessions set up in
 * their four steps and counted on their event streams, a marker split
 * across reads counted once, a refused step and an ended stream reported
 * with what failed, and the count of streams still missing a notification;
 * sessions calling a tool (warm-up, the gate, timed calls, DELETE) and a
 * tool error reported. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/bench/bench.h"
#include "tools/bench/bench_http.h"

#define NOTE "event: message\ndata: {\"method\":\"notifications/resources/updated\"}\n\n"

typedef struct {
    struct MHD_Daemon *d;
    uint16_t port;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    unsigned published; /* notifications every stream is to send */
    unsigned sessions;  /* initialized */
    int refuse_init;    /* answer initialize with 503 */
    int tool_error;     /* answer tools/call with isError */
    unsigned calls;     /* tools/call requests answered */
    unsigned deletes;   /* DELETE requests (sessions ended) */
    int stop;           /* end every stream */
} server;

static server srv;

typedef struct {
    char body[1024];
    size_t len;
} upload;

typedef struct {
    unsigned sent;
} stream_pos;

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    stream_pos *sp = cls;
    pthread_mutex_lock(&srv.lock);
    while (!srv.stop && sp->sent == srv.published)
        pthread_cond_wait(&srv.cond, &srv.lock);
    int stop = srv.stop;
    size_t n = 0;
    while (!stop && sp->sent < srv.published && n + sizeof NOTE - 1 <= max) {
        memcpy(buf + n, NOTE, sizeof NOTE - 1);
        n += sizeof NOTE - 1;
        sp->sent++;
    }
    pthread_mutex_unlock(&srv.lock);
    return stop ? MHD_CONTENT_READER_END_OF_STREAM : (ssize_t)n;
}

static enum MHD_Result answer(struct MHD_Connection *c, unsigned status, const char *body, const char *sid)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_MUST_COPY);
    if (sid)
        MHD_add_response_header(r, "Mcp-Session-Id", sid);
    MHD_add_response_header(r, "Content-Type", "application/json");
    enum MHD_Result rc = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return rc;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *data, size_t *data_len, void **con_cls)
{
    (void)cls, (void)url, (void)version;
    if (strcmp(method, "GET") == 0) {
        stream_pos *sp = calloc(1, sizeof *sp);
        pthread_mutex_lock(&srv.lock);
        sp->sent = srv.published; /* a new stream gets what comes after it opened */
        pthread_mutex_unlock(&srv.lock);
        struct MHD_Response *r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, stream_read, sp, free);
        MHD_add_response_header(r, "Content-Type", "text/event-stream");
        enum MHD_Result rc = MHD_queue_response(c, MHD_HTTP_OK, r);
        MHD_destroy_response(r);
        return rc;
    }
    upload *u = *con_cls;
    if (!u) {
        *con_cls = calloc(1, sizeof *u);
        return MHD_YES;
    }
    if (*data_len) {
        size_t k = *data_len < sizeof u->body - 1 - u->len ? *data_len : sizeof u->body - 1 - u->len;
        memcpy(u->body + u->len, data, k);
        u->len += k;
        *data_len = 0;
        return MHD_YES;
    }
    if (strstr(u->body, "\"initialize\"")) {
        char sid[32];
        pthread_mutex_lock(&srv.lock);
        snprintf(sid, sizeof sid, "s%u", ++srv.sessions);
        int refuse = srv.refuse_init;
        pthread_mutex_unlock(&srv.lock);
        return refuse ? answer(c, 503, "{\"error\":\"full\"}", NULL)
                      : answer(c, MHD_HTTP_OK, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}", sid);
    }
    if (strstr(u->body, "notifications/initialized"))
        return answer(c, 202, "", NULL);
    if (strcmp(method, "DELETE") == 0 || strstr(u->body, "\"tools/call\"")) {
        pthread_mutex_lock(&srv.lock);
        int del = strcmp(method, "DELETE") == 0, err = srv.tool_error;
        srv.deletes += del, srv.calls += !del;
        pthread_mutex_unlock(&srv.lock);
        return answer(c, MHD_HTTP_OK,
                      del   ? ""
                      : err ? "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"content\":[],\"isError\":true}}"
                            : "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"content\":[]}}",
                      NULL);
    }
    return answer(c, MHD_HTTP_OK, "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}", NULL);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe)
{
    (void)cls, (void)c, (void)toe;
    free(*con_cls);
    *con_cls = NULL;
}

static void server_start(void)
{
    memset(&srv, 0, sizeof srv);
    pthread_mutex_init(&srv.lock, NULL);
    pthread_cond_init(&srv.cond, NULL);
    srv.d = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL, on_request,
                             NULL, MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL, MHD_OPTION_END);
    cr_assert(srv.d, "the test server did not start");
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(srv.d, MHD_DAEMON_INFO_BIND_PORT);
    srv.port = info->port;
}

static void server_stop(void)
{
    pthread_mutex_lock(&srv.lock);
    srv.stop = 1;
    pthread_cond_broadcast(&srv.cond);
    pthread_mutex_unlock(&srv.lock);
    MHD_stop_daemon(srv.d);
    pthread_cond_destroy(&srv.cond);
    pthread_mutex_destroy(&srv.lock);
}

static void publish(unsigned n)
{
    pthread_mutex_lock(&srv.lock);
    srv.published += n;
    pthread_cond_broadcast(&srv.cond);
    pthread_mutex_unlock(&srv.lock);
}

/* Runs the client until no stream misses `want` (or 10 s). */
static void wait_for(kd_bench_http *h, uint64_t want)
{
    char why[512] = "";
    double deadline = kd_bench_now() + 10;
    kd_bench_http_expect(h, want);
    while (kd_bench_http_missing(h) && kd_bench_now() < deadline)
        cr_assert_eq(kd_bench_http_run(h, 0.1, why, sizeof why), 0, "%s", why);
    cr_assert_eq(kd_bench_http_missing(h), 0, "%zu streams never had %llu notifications", kd_bench_http_missing(h),
                 (unsigned long long)want);
}

TestSuite(bench_http, .init = server_start, .fini = server_stop, .timeout = 60);

Test(bench_http, sessions_are_set_up_and_every_stream_counts_each_notification_once)
{
    char why[512] = "";
    kd_bench_http *h = kd_bench_http_alloc();
    cr_assert(h);
    int rc = kd_bench_http_sessions(h, srv.port, 20, "kdapp://episodes/1", kd_bench_now() + 20, why, sizeof why);
    cr_assert_eq(rc, 0, "%s", why);
    cr_assert_eq(kd_bench_http_count(h), 20);
    cr_expect_eq(srv.sessions, 20, "one initialize per session: %u", srv.sessions);
    rc = kd_bench_http_events(h, srv.port, "/api/events", "notifications/resources/updated", kd_bench_now() + 20, why,
                              sizeof why);
    cr_assert_eq(rc, 0, "%s", why);
    cr_assert_eq(kd_bench_http_count(h), 21);
    cr_expect_eq(kd_bench_http_expect(h, 1), 21, "nothing counted before a notification");
    double before = kd_bench_now();
    publish(1);
    wait_for(h, 1);
    for (size_t i = 0; i < 21; i++) {
        const kd_bench_marks *m = kd_bench_http_stream(h, i);
        cr_expect_eq(m->count, 1, "stream %zu counted %llu", i, (unsigned long long)m->count);
        cr_expect_geq(m->last, before, "stream %zu: its arrival is not stamped", i);
    }
    publish(3);
    wait_for(h, 4);
    cr_expect_eq(kd_bench_http_stream(h, 7)->count, 4);
    kd_bench_http_recount(h, 0);
    cr_expect_eq(kd_bench_http_expect(h, 1), 21, "recount sets every stream's count");
    kd_bench_http_free(h);
}

Test(bench_http, a_refused_initialize_names_the_session_and_the_status)
{
    char why[512] = "";
    srv.refuse_init = 1;
    kd_bench_http *h = kd_bench_http_alloc();
    cr_assert(h);
    int rc = kd_bench_http_sessions(h, srv.port, 3, "kdapp://episodes/1", kd_bench_now() + 20, why, sizeof why);
    cr_expect_eq(rc, -1);
    cr_expect(strstr(why, "HTTP 503") && strstr(why, "stream "), "why: %s", why);
    kd_bench_http_free(h);
}

Test(bench_http, a_stream_that_ends_is_an_error)
{
    char why[512] = "";
    kd_bench_http *h = kd_bench_http_alloc();
    cr_assert(h);
    cr_assert_eq(kd_bench_http_sessions(h, srv.port, 2, "kdapp://episodes/1", kd_bench_now() + 20, why, sizeof why), 0,
                 "%s", why);
    pthread_mutex_lock(&srv.lock);
    srv.stop = 1;
    pthread_cond_broadcast(&srv.cond);
    pthread_mutex_unlock(&srv.lock);
    int rc = 0;
    for (double deadline = kd_bench_now() + 10; rc == 0 && kd_bench_now() < deadline;)
        rc = kd_bench_http_run(h, 0.1, why, sizeof why);
    cr_expect_eq(rc, -1);
    cr_expect(strstr(why, "the stream ended"), "why: %s", why);
    kd_bench_http_free(h);
}

/* on_warm: how many calls the server had answered when every session was warm. */
static void note_warm(void *ctx)
{
    unsigned *at = ctx;
    pthread_mutex_lock(&srv.lock);
    at[0]++, at[1] = srv.calls;
    pthread_mutex_unlock(&srv.lock);
}

Test(bench_http, calls_warm_up_then_are_timed_and_every_session_ends_with_delete)
{
    unsigned warm[2] = {0, 0};
    char why[512] = "";
    kd_bench_calls k = {.port = srv.port,
                        .sessions = 3,
                        .warm = 2,
                        .calls = 5,
                        .args = "{\"episode_id\":1}",
                        .on_warm = note_warm,
                        .ctx = warm};
    cr_assert_eq(kd_bench_http_calls(&k, why, sizeof why), 0, "%s", why);
    cr_assert_eq(warm[0], 1u, "on_warm is called once");
    cr_assert_eq(warm[1], 6u, "on_warm comes after the 2 warm-up calls of each of 3 sessions, before any timed one");
    cr_assert_eq(srv.calls, 21u, "3 sessions × (2 + 5) calls, got %u", srv.calls);
    cr_assert_eq(srv.deletes, 3u, "each session ends with DELETE, got %u", srv.deletes);
    cr_assert(k.end > k.start, "the timed calls take time");
}

Test(bench_http, a_call_answered_with_is_error_fails_and_says_so)
{
    unsigned warm[2] = {0, 0};
    char why[512] = "";
    srv.tool_error = 1;
    kd_bench_calls k = {
        .port = srv.port, .sessions = 1, .warm = 1, .calls = 1, .args = "{}", .on_warm = note_warm, .ctx = warm};
    cr_assert_eq(kd_bench_http_calls(&k, why, sizeof why), -1);
    cr_assert(strstr(why, "call 1 was answered with isError"), "why: %s", why);
    cr_assert_eq(warm[0], 1u, "on_warm is called after a failure too (a waiting gate is released)");
    k.sessions = 65;
    cr_assert_eq(kd_bench_http_calls(&k, why, sizeof why), -1);
    cr_assert(strstr(why, "65 sessions (1 to 64)"), "why: %s", why);
}

Test(bench_marks, a_marker_split_across_reads_counts_once, .timeout = 10)
{
    static const char text[] = "xx notifications/resources/updated yy notifications/resources/updated";
    for (size_t cut = 0; cut <= sizeof text - 1; cut++) {
        kd_bench_marks m;
        kd_bench_marks_init(&m, "notifications/resources/updated");
        size_t a = kd_bench_marks_feed(&m, text, cut, 1.0);
        size_t b = kd_bench_marks_feed(&m, text + cut, sizeof text - 1 - cut, 2.0);
        cr_expect_eq(a + b, 2, "cut at %zu: %zu + %zu", cut, a, b);
        cr_expect_eq(m.count, 2, "cut at %zu", cut);
        cr_expect_eq(m.last, b ? 2.0 : 1.0, "cut at %zu: stamped %g", cut, m.last);
    }
}

Test(bench_marks, a_pipe_is_drained_until_it_would_block_and_its_end_is_an_error, .timeout = 10)
{
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    kd_bench_marks m;
    kd_bench_marks_init(&m, "event: view");
    cr_assert_eq(write(fds[1], "event: view\nevent: vi", 21), 21);
    cr_assert_eq(fcntl(fds[0], F_SETFL, O_NONBLOCK), 0);
    cr_expect_eq(kd_bench_marks_drain(&m, fds[0], 5.0), 0);
    cr_expect_eq(m.count, 1);
    cr_assert_eq(write(fds[1], "ew\n", 3), 3);
    close(fds[1]);
    cr_expect_eq(kd_bench_marks_drain(&m, fds[0], 6.0), -1, "the writer closed");
    cr_expect_eq(m.count, 2, "the marker across the two writes");
    cr_expect_eq(m.last, 6.0);
    close(fds[0]);
}
