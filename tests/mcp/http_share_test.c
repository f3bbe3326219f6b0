/*
 * http_share_test.c — one client cannot use up the HTTP transport's
 * sessions or event streams. The attacks as they were done: a loopback
 * client opens 64 sessions and never ends them, or 64 event streams, and
 * every other client got 503 or 429 until they expired. Now a client (its
 * token, or its address without one) holds its share, idle sessions and
 * old streams make room, and a client that holds nothing always gets in.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "mcp/fake_server.h"
#include "mcp/http_client.h"

#define A "Authorization: Bearer client-a-token"
#define B "Authorization: Bearer client-b-token"
#define EVENTS "/events"
#define KD_HTTP_EVENTS_STREAMS_TEST 64 /* KD_HTTP_EVENTS_STREAMS (http_int.h) */

static const kd_mcp_http_token TOKENS[] = {{.token = "client-a-token"}, {.token = "client-b-token"}};
static const char *const PING = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}";

TestSuite(http_share, .init = setup, .fini = teardown, .timeout = 120);

/* Loopback with the two tokens (tokenless clients allowed), and `o`'s
 * limits. */
static void serve(kd_mcp_http_options o)
{
    o.tokens = TOKENS;
    o.n_tokens = 2;
    o.keepalive_ms = 200;
    o.events_path = EVENTS;
    restart(NULL, &o);
}

/* initialize as `auth` (NULL: no token); the status, and the id in sid. */
static long init_as(const char *auth, char *sid, size_t cap)
{
    resp r;
    long status;

    req(&r, "POST", "/mcp", NULL, INIT, (const char *[]){auth, NULL});
    status = r.status;
    if (status == 503)
        cr_expect(r.body != NULL && strstr(r.body, "limit") != NULL, "the 503 names the limit: %s", r.body);
    snprintf(sid, cap, "%s", r.sid);
    resp_fini(&r);
    return status;
}

/* The status of a ping on `sid` as `auth`. */
static long ping_as(const char *sid, const char *auth)
{
    resp r;
    long status;

    req(&r, "POST", "/mcp", sid, PING, (const char *[]){auth, NULL});
    status = r.status;
    resp_fini(&r);
    return status;
}

/* The body of a ping on `sid` as `auth` that answers 404: it holds `text`. */
static void expect_404_saying(const char *sid, const char *auth, const char *text)
{
    resp r;

    req(&r, "POST", "/mcp", sid, PING, (const char *[]){auth, NULL});
    cr_expect_eq(r.status, 404);
    cr_expect(r.body != NULL && strstr(r.body, text) != NULL, "the 404 says \"%s\": %s", text, r.body);
    resp_fini(&r);
}

/* ---- sessions ---------------------------------------------------------- */

/* The attack: 64 sessions from one loopback client (no token), never
 * ended. Before, the 65th initialize of anyone was 503 for an hour. */
Test(http_share, idle_sessions_of_one_client_lock_no_one_out)
{
    static char sids[64][128];
    char b[128];
    int i, gone = 0;

    serve((kd_mcp_http_options){0}); /* 64 sessions, 16 per client */
    for (i = 0; i < 64; i++)
        cr_assert_eq(init_as(NULL, sids[i], sizeof sids[i]), 200, "session %d of the greedy client", i);
    cr_expect_eq(kd_mcp_http_session_count(http), 16, "the client holds its share, no more");
    cr_expect_eq(init_as(B, b, sizeof b), 200, "another client still gets in");
    cr_expect_eq(ping_as(b, B), 200);
    for (i = 0; i < 64; i++)
        gone += ping_as(sids[i], NULL) == 404;
    cr_expect_eq(gone, 48, "the shed sessions answer 404 (MCP clients then start a new one)");
    cr_expect_eq(ping_as(sids[63], NULL), 200, "the newest ones live on");
}

/* A client at its share sheds its own least recently used idle session,
 * never another client's. */
Test(http_share, a_client_at_its_share_sheds_its_own_oldest)
{
    char a[3][128], b[128];

    serve((kd_mcp_http_options){.max_sessions = 8, .max_sessions_per_client = 2});
    cr_assert_eq(init_as(B, b, sizeof b), 200);
    cr_assert_eq(init_as(A, a[0], sizeof a[0]), 200);
    cr_assert_eq(init_as(A, a[1], sizeof a[1]), 200);
    cr_expect_eq(ping_as(a[0], A), 200); /* a[0] is now the more recently used */
    cr_assert_eq(init_as(A, a[2], sizeof a[2]), 200);
    cr_expect_eq(ping_as(a[1], A), 404, "the least recently used is shed");
    /* issue 41: the shed session's answer says why, and the fix */
    expect_404_saying(a[1], A, "shed to make room for a new session of the same client");
    expect_404_saying(a[1], A, "at most 2 sessions: KDAPP_MCP_SESSIONS_PER_CLIENT");
    expect_404_saying("0000000000000000000000000000000000000000000000000000000000000000", A,
                      "it ended or never existed");
    cr_expect_eq(ping_as(a[0], A), 200);
    cr_expect_eq(ping_as(a[2], A), 200);
    cr_expect_eq(ping_as(b, B), 200, "the other client's session is untouched");
    cr_expect_eq(kd_mcp_http_session_count(http), 3);
}

/* A full table sheds the least recently used idle session of the client
 * holding the most, to let a new client in. */
Test(http_share, a_full_table_sheds_from_the_client_holding_the_most)
{
    char a[6][128], b[2][128], c[128];
    int i;

    serve((kd_mcp_http_options){.max_sessions = 8, .max_sessions_per_client = 8});
    for (i = 0; i < 6; i++)
        cr_assert_eq(init_as(A, a[i], sizeof a[i]), 200);
    for (i = 0; i < 2; i++)
        cr_assert_eq(init_as(B, b[i], sizeof b[i]), 200);
    cr_expect_eq(ping_as(a[0], A), 200); /* a[1] is A's least recently used */
    cr_assert_eq(init_as(NULL, c, sizeof c), 200, "a third client gets in");
    cr_expect_eq(ping_as(a[1], A), 404, "from the client holding the most, its least recently used");
    expect_404_saying(a[1], A, "holding its 8 sessions (KDAPP_MCP_SESSIONS)");
    cr_expect_eq(ping_as(b[0], B), 200, "the lighter client keeps its oldest");
    cr_expect_eq(ping_as(a[0], A), 200);
    cr_expect_eq(kd_mcp_http_session_count(http), 8);
}

/* Sessions with an open stream are not idle: with nothing idle the limit
 * refuses, naming it, and only that client. */
Test(http_share, busy_sessions_are_not_shed)
{
    char a[3][128], b[128];
    stream s[2];
    int i;

    serve((kd_mcp_http_options){.max_sessions = 8, .max_sessions_per_client = 2});
    for (i = 0; i < 2; i++) {
        cr_assert_eq(init_as(A, a[i], sizeof a[i]), 200);
        stream_start_with(&s[i], "", a[i], A);
        WAIT_FOR(count(&s[i], ": stream open") == 1);
    }
    cr_expect_eq(init_as(A, a[2], sizeof a[2]), 503, "nothing of A's is idle");
    cr_expect_eq(init_as(B, b, sizeof b), 200, "B is not A");
    cr_expect_eq(ping_as(a[0], A), 200);
    cr_expect_eq(ping_as(a[1], A), 200);
    kd_mcp_http_stop(http); /* ends the streams */
    http = NULL;
    for (i = 0; i < 2; i++) {
        pthread_join(s[i].thread, NULL);
        pthread_mutex_destroy(&s[i].lock);
    }
}

/* Without a token a client is its address: another loopback address is
 * another client. */
Test(http_share, without_a_token_a_client_is_its_address)
{
    char a[3][128], other[128];
    int i;

    serve((kd_mcp_http_options){.max_sessions = 8, .max_sessions_per_client = 2});
    snprintf(source_ip, sizeof source_ip, "127.0.0.2");
    cr_assert_eq(init_as(NULL, other, sizeof other), 200);
    source_ip[0] = '\0';
    for (i = 0; i < 3; i++)
        cr_assert_eq(init_as(NULL, a[i], sizeof a[i]), 200);
    cr_expect_eq(ping_as(a[0], NULL), 404, "127.0.0.1 holds its share of 2");
    snprintf(source_ip, sizeof source_ip, "127.0.0.2");
    cr_expect_eq(ping_as(other, NULL), 200, "127.0.0.2 is another client");
    source_ip[0] = '\0';
}

/* ---- event streams ----------------------------------------------------- */

static stream streams[KD_HTTP_EVENTS_STREAMS_TEST + 1];

/* Opens n event streams as `auth`, each seen open before the next. */
static void open_events(stream *s, int n, const char *auth)
{
    for (int i = 0; i < n; i++) {
        stream_start_get(&s[i], EVENTS, auth);
        WAIT_FOR(count(&s[i], ": stream open") == 1 || stream_done(&s[i]));
        cr_assert_eq(count(&s[i], ": stream open"), 1, "event stream %d opened (status %ld)", i, s[i].status);
    }
}

static int open_count(stream *s, int n)
{
    int open = 0;

    for (int i = 0; i < n; i++)
        open += !stream_done(&s[i]);
    return open;
}

static void end_all(stream *s, int n)
{
    kd_mcp_http_stop(http);
    http = NULL;
    for (int i = 0; i < n; i++) {
        pthread_join(s[i].thread, NULL);
        pthread_mutex_destroy(&s[i].lock);
    }
}

/* The attack: 64 event streams from one loopback client. Before, the
 * next stream of anyone was 429. */
Test(http_share, event_streams_of_one_client_lock_no_one_out)
{
    enum { N = KD_HTTP_EVENTS_STREAMS_TEST };

    serve((kd_mcp_http_options){0}); /* 24 streams per client: 64 sessions / 4, + 8 */
    open_events(streams, N, NULL);
    WAIT_FOR(open_count(streams, N) == 24);
    for (int i = 0; i < N - 24; i++)
        cr_expect(stream_done(&streams[i]), "the oldest streams were closed: %d", i);
    open_events(&streams[N], 1, B);
    kd_mcp_http_publish(http, "tick", "{\"n\":1}");
    WAIT_FOR(count(&streams[N], "event: tick") == 1);
    WAIT_FOR(count(&streams[N - 1], "event: tick") == 1);
    end_all(streams, N + 1);
}

/* A full table closes the oldest stream of the client holding the most. */
Test(http_share, a_full_table_of_streams_closes_the_heaviest_clients_oldest)
{
    enum { N = KD_HTTP_EVENTS_STREAMS_TEST };

    serve((kd_mcp_http_options){.max_event_streams_per_client = N});
    open_events(streams, N, A);
    cr_expect_eq(open_count(streams, N), N);
    open_events(&streams[N], 1, B);
    WAIT_FOR(stream_done(&streams[0]));
    cr_expect_eq(open_count(streams, N + 1), N, "one closed to let the new client in, no more");
    kd_mcp_http_publish(http, "tick", "{\"n\":2}");
    WAIT_FOR(count(&streams[N], "event: tick") == 1);
    WAIT_FOR(count(&streams[1], "event: tick") == 1);
    end_all(streams, N + 1);
}

/* Session GET streams count to the same share: a client at it has its own
 * oldest stream, of either kind, closed. */
Test(http_share, session_streams_share_the_clients_streams)
{
    char a[128], b[128];
    stream s[4];
    resp r;

    serve((kd_mcp_http_options){.max_event_streams_per_client = 2});
    cr_assert_eq(init_as(A, a, sizeof a), 200);
    cr_assert_eq(init_as(B, b, sizeof b), 200);
    stream_start_with(&s[0], "", a, A);
    WAIT_FOR(count(&s[0], ": stream open") == 1);
    open_events(&s[1], 1, A);
    stream_start_with(&s[2], "", b, B);
    WAIT_FOR(count(&s[2], ": stream open") == 1);
    stream_start_with(&s[3], "", a, A);
    WAIT_FOR(count(&s[3], ": stream open") == 1);
    WAIT_FOR(stream_done(&s[0]));
    cr_expect_eq(stream_done(&s[1]), 0, "A's newer stream stays");
    cr_expect_eq(stream_done(&s[2]), 0, "B's stream is untouched");
    req(&r, "POST", "/mcp", a,
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/subscribe\",\"params\":{\"uri\":\"test://a\"}}",
        (const char *[]){A, NULL});
    resp_fini(&r);
    kd_mcp_server_notify_resource_updated(srv, "test://a");
    WAIT_FOR(count(&s[3], "resources/updated") == 1);
    end_all(s, 4);
}
