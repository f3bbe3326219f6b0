/*
 * http_capacity_test.c — the HTTP transport under idle and half-open
 * connections: hundreds of them beside a served client, their timeout, a
 * slow tool call and a quiet event stream that outlive it, the limit of
 * connections per address and its rate-limited log.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "engine/logger.h"
#include "mcp/fake_server.h"
#include "mcp/http_client.h"

TestSuite(http_capacity, .init = setup, .fini = teardown, .timeout = 240);

/* Hundreds of connections that send half a request and wait. Before, the
 * 129th such connection locked every client out (each new one was reset
 * at once) and none ever timed out. Now clients are served beside them,
 * the server closes them once they have been silent for the timeout, and
 * neither a slower tool call nor a quiet event stream counts as silent. */
Test(http_capacity, half_open_connections_lock_no_one_out)
{
    enum { HALF_OPEN = 300, CALLS = 10 };
    static int fds[HALF_OPEN];
    char sid[128];
    stream s;
    resp r;
    double t;
    int i;

    restart(NULL, &(kd_mcp_http_options){.connection_timeout_s = 2});
    open_session(sid, sizeof sid);
    req(&r, "POST", "/mcp", sid,
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/subscribe\",\"params\":{\"uri\":\"test://a\"}}", NULL);
    resp_fini(&r);
    stream_start(&s, sid);
    WAIT_FOR(count(&s, ": stream open") == 1);

    for (i = 0; i < HALF_OPEN; i++)
        fds[i] = half_open();
    for (i = 0; i < CALLS; i++) {
        t = now_s();
        req(&r, "POST", "/mcp", sid,
            "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\","
            "\"params\":{\"name\":\"echo\",\"arguments\":{\"row\":1}}}",
            NULL);
        t = now_s() - t;
        cr_expect_eq(r.status, 200, "call %d beside %d half-open connections: %ld", i, HALF_OPEN, r.status);
        cr_expect_lt(t, 5.0, "call %d answered in %.2f s (a generous bound; it takes milliseconds)", i, t);
        resp_fini(&r);
    }
    req(&r, "POST", "/mcp", sid,
        "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\","
        "\"params\":{\"name\":\"sleep\",\"arguments\":{\"ms\":3000}}}",
        NULL);
    cr_expect_eq(r.status, 200, "a call slower than the timeout is answered");
    cr_expect(r.body != NULL && strstr(r.body, "\"slept_ms\":3000") != NULL, "%s", r.body);
    resp_fini(&r);

    WAIT_FOR_S(closed_count(fds, HALF_OPEN) == HALF_OPEN, 90);
    cr_expect_eq(stream_done(&s), 0, "the quiet event stream outlived the timeout");
    cr_expect_geq(count(&s, ": keepalive"), 2, "it carried keepalives (every half timeout)");
    kd_mcp_server_notify_resource_updated(srv, "test://a");
    WAIT_FOR(count(&s, "resources/updated") == 1);

    req(&r, "DELETE", "/mcp", sid, NULL, NULL);
    resp_fini(&r);
    pthread_join(s.thread, NULL);
    cr_expect_eq(s.status, 200);
    pthread_mutex_destroy(&s.lock);
}

static atomic_int refusal_lines;

static void count_refusals(void *ctx, kd_log_level level, const char *subsystem, const char *line)
{
    (void)ctx;
    (void)level;
    (void)subsystem;
    if (strstr(line, "per-address limit") != NULL)
        atomic_fetch_add(&refusal_lines, 1);
}

/* One address holds at most max_connections_per_address connections; the
 * refusals are logged a few lines per window, not one line each. Loopback
 * is exempt by default (the test above holds 300 connections from it), so
 * this one counts it; one polling thread makes the order of accepts, and
 * so the count, exact. */
Test(http_capacity, per_address_limit_and_quiet_refusals)
{
    enum { LIMIT = 4, EXTRA = 40 };
    int held[LIMIT], extra[EXTRA], i;

    kd_log_set_sink(count_refusals, NULL);
    restart(NULL, &(kd_mcp_http_options){.max_connections_per_address = LIMIT, .limit_loopback = 1, .poll_threads = 1});
    for (i = 0; i < LIMIT; i++)
        held[i] = half_open();
    for (i = 0; i < EXTRA; i++)
        extra[i] = half_open();
    WAIT_FOR(closed_count(extra, EXTRA) == EXTRA);
    cr_expect_eq(closed_count(held, LIMIT), 0, "the connections within the limit stay");
    cr_expect(atomic_load(&refusal_lines) >= 1 && atomic_load(&refusal_lines) <= 10,
              "%d log lines for %d refusals (at most 5 per 10 s)", atomic_load(&refusal_lines), EXTRA);
    cr_expect_eq(status_of("/metrics"), 0, "a client of that address is refused");
    close(held[0]);
    WAIT_FOR(status_of("/metrics") == 404); /* a slot freed: the client is served */
    for (i = 1; i < LIMIT; i++)
        close(held[i]);
    kd_log_set_sink(NULL, NULL);
}
