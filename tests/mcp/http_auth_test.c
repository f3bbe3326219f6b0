/*
 * http_auth_test.c — who an HTTP session is: seat tokens and their
 * principals, the access token, the public on loopback, unknown tokens
 * refused (never taken as the public), and sessions bound to the token
 * that opened them, over real HTTP on 127.0.0.1.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "mcp/fake_server.h"
#include "mcp/http_client.h"

#define RED "Authorization: Bearer red-token-0123456789"
#define BLUE "Authorization: Bearer blue-token-0123456789"
#define ACCESS "Authorization: Bearer access-token-0123456789"
#define BAD_SESSION "this session belongs to another token"

static const char *const PING = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}";
static const char *const WHOAMI =
    "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\",\"params\":{\"name\":\"whoami\"}}";

/* Principals are strings here, so that whoami can print them. */
static const kd_mcp_http_token SEATS[] = {
    {.token = "red-token-0123456789", .principal = "seat red"},
    {.token = "blue-token-0123456789", .principal = "seat blue"},
};

static void auth_setup(void)
{
    setup();
    fake_add_whoami(srv);
}

TestSuite(http_auth, .init = auth_setup, .fini = teardown, .timeout = 60);

/* Loopback, no access token, the two seat tokens. */
static void serve_seats(const char *access)
{
    restart(NULL, &(kd_mcp_http_options){.bearer_token = access, .tokens = SEATS, .n_tokens = 2, .keepalive_ms = 200});
}

/* initialize + notifications/initialized with `auth` (a header or NULL). */
static void open_as(const char *auth, char *sid, size_t cap)
{
    const char *extra[] = {auth, NULL};
    resp r;

    req(&r, "POST", "/mcp", NULL, INIT, extra);
    cr_assert_eq(r.status, 200, "initialize as %s: %ld %s", auth ? auth : "no token", r.status, r.body);
    snprintf(sid, cap, "%s", r.sid);
    resp_fini(&r);
    req(&r, "POST", "/mcp", sid, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", extra);
    cr_assert_eq(r.status, 202);
    resp_fini(&r);
}

/* The principal whoami reports on `sid` with `auth`: a copy in buf, or
 * "(null)" for none. */
static const char *whoami(const char *sid, const char *auth, char *buf, size_t cap)
{
    resp r;
    json_t *v, *who;

    req(&r, "POST", "/mcp", sid, WHOAMI, (const char *[]){auth, NULL});
    cr_assert_eq(r.status, 200, "%s", r.body);
    v = fake_parse(r.body);
    who = json_object_get(json_object_get(json_object_get(v, "result"), "structuredContent"), "principal");
    cr_assert(who != NULL, "whoami answered: %s", r.body);
    snprintf(buf, cap, "%s", json_is_null(who) ? "(null)" : json_string_value(who));
    json_decref(v);
    resp_fini(&r);
    return buf;
}

/* The status of `method` on session `sid` with `auth`; the body must name
 * the problem when it is a 403. */
static long status_as(const char *method, const char *sid, const char *auth)
{
    int get = strcmp(method, "GET") == 0;
    const char *extra[] = {auth, get ? "Accept: text/event-stream" : NULL, NULL};
    resp r;
    long status;

    req(&r, method, "/mcp", sid, strcmp(method, "POST") == 0 ? PING : NULL, auth != NULL ? extra : extra + 1);
    status = r.status;
    if (status == 403)
        cr_expect(r.body != NULL && strstr(r.body, BAD_SESSION) != NULL, "403 names the problem: %s", r.body);
    resp_fini(&r);
    return status;
}

Test(http_auth, seat_tokens_give_their_principal)
{
    char red[128], blue[128], pub[128], who[64];

    serve_seats(NULL);
    open_as(RED, red, sizeof red);
    open_as(BLUE, blue, sizeof blue);
    open_as(NULL, pub, sizeof pub);
    cr_expect_str_eq(whoami(red, RED, who, sizeof who), "seat red");
    cr_expect_str_eq(whoami(blue, BLUE, who, sizeof who), "seat blue");
    cr_expect_str_eq(whoami(pub, NULL, who, sizeof who), "(null)", "a tokenless loopback session is the public");
}

Test(http_auth, unknown_or_malformed_token_is_refused)
{
    static const char *const BAD[] = {
        "Authorization: Bearer not-a-token",
        "Authorization: Bearer red-token-012345678", /* a prefix of a token */
        "Authorization: Bearer red-token-01234567890",
        "Authorization: Basic cmVkOnRva2Vu",
        "Authorization: Bearer ",
    };
    resp r;
    size_t i;

    serve_seats(NULL);
    for (i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        req(&r, "POST", "/mcp", NULL, INIT, (const char *[]){BAD[i], NULL});
        cr_expect_eq(r.status, 401, "%s: never the public", BAD[i]);
        cr_expect(strstr(r.www_auth, "invalid_token") != NULL, "WWW-Authenticate: %s", r.www_auth);
        cr_expect(r.body != NULL && (strstr(r.body, "not valid") != NULL || strstr(r.body, "Bearer <token>") != NULL),
                  "the body names the problem: %s", r.body);
        cr_expect_eq(r.sid[0], '\0');
        resp_fini(&r);
    }
    cr_expect_eq(kd_mcp_http_session_count(http), 0);
}

Test(http_auth, a_session_belongs_to_its_token)
{
    char red[128], pub[128], who[64];

    serve_seats(NULL);
    open_as(RED, red, sizeof red);
    open_as(NULL, pub, sizeof pub);
    cr_expect_eq(status_as("POST", red, BLUE), 403, "another seat's token");
    cr_expect_eq(status_as("POST", red, NULL), 403, "no token on a seat's session");
    cr_expect_eq(status_as("GET", red, BLUE), 403, "no stream of another token's session");
    cr_expect_eq(status_as("DELETE", red, BLUE), 403, "no DELETE of another token's session");
    cr_expect_eq(status_as("POST", pub, RED), 403, "a token on the public's session");
    cr_expect_eq(kd_mcp_http_session_count(http), 2, "refused requests leave the sessions alone");
    cr_expect_str_eq(whoami(red, RED, who, sizeof who), "seat red");
    cr_expect_eq(status_as("POST", pub, NULL), 200);
    cr_expect_eq(status_as("DELETE", red, RED), 204);
    cr_expect_eq(status_as("POST", red, RED), 404, "then it is gone");
}

Test(http_auth, a_stream_needs_its_sessions_token)
{
    char red[128];
    stream s;
    resp r;

    serve_seats(NULL);
    open_as(RED, red, sizeof red);
    req(&r, "POST", "/mcp", red,
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/subscribe\",\"params\":{\"uri\":\"test://a\"}}",
        (const char *[]){RED, NULL});
    cr_expect_eq(r.status, 200);
    resp_fini(&r);
    stream_start_with(&s, "", red, RED);
    WAIT_FOR(count(&s, ": stream open") == 1);
    kd_mcp_server_notify_resource_updated(srv, "test://a");
    WAIT_FOR(count(&s, "resources/updated") == 1);
    cr_expect_eq(status_as("DELETE", red, RED), 204);
    pthread_join(s.thread, NULL);
    cr_expect_eq(s.status, 200);
    pthread_mutex_destroy(&s.lock);
}

Test(http_auth, access_token_is_no_principal)
{
    char acc[128], red[128], who[64];
    resp r;

    serve_seats("access-token-0123456789");
    req(&r, "POST", "/mcp", NULL, INIT, NULL);
    cr_expect_eq(r.status, 401, "with an access token set, a token is required");
    cr_expect(strstr(r.body, "a bearer token is required") != NULL, "%s", r.body);
    cr_expect(strstr(r.body, "as Authorization: Bearer T; this gateway does no OAuth") != NULL, "the fix: %s", r.body);
    resp_fini(&r);
    open_as(ACCESS, acc, sizeof acc);
    open_as(RED, red, sizeof red);
    cr_expect_str_eq(whoami(acc, ACCESS, who, sizeof who), "(null)");
    cr_expect_str_eq(whoami(red, RED, who, sizeof who), "seat red");
    cr_expect_eq(status_as("POST", red, ACCESS), 403, "the access token does not reach a seat's session");
    cr_expect_eq(status_as("POST", acc, RED), 403);
}

static kd_err fixed_metrics(void *ctx, kd_buf *out)
{
    (void)ctx;
    return kd_buf_append(out, "m 1\n", 5);
}

static kd_err data_page(void *ctx, const char *path, int authorized, const void *principal, kd_mcp_http_page *out)
{
    (void)ctx;
    (void)path;
    out->status = authorized ? 200 : 401;
    const char *who = principal ? principal : "none";
    return kd_buf_append(&out->body, who, strlen(who));
}

/* /metrics, the page's data and the event stream accept any configured
 * token, and no token only where none is required; the page learns the
 * principal of a seat token (whose keys to mark as the reader's own), and
 * none for the access token or no token. */
Test(http_auth, metrics_page_and_events)
{
    static const char *const PATHS[] = {"/metrics", "/data"};
    stream s;
    resp r;
    size_t i;

    for (int access = 0; access < 2; access++) {
        restart(NULL, &(kd_mcp_http_options){.bearer_token = access ? "access-token-0123456789" : NULL,
                                             .tokens = SEATS,
                                             .n_tokens = 2,
                                             .metrics = fixed_metrics,
                                             .page = data_page,
                                             .events_path = "/events"});
        for (i = 0; i < 2; i++) {
            req(&r, "GET", PATHS[i], NULL, NULL, (const char *[]){BLUE, NULL});
            cr_expect_eq(r.status, 200, "%s with a seat token", PATHS[i]);
            if (i == 1)
                cr_expect_str_eq(r.body, "seat blue", "the page is told the seat token's principal");
            resp_fini(&r);
            if (i == 1 && access) {
                req(&r, "GET", PATHS[i], NULL, NULL,
                    (const char *[]){"Authorization: Bearer access-token-0123456789", NULL});
                cr_expect_str_eq(r.body, "none", "the access token is no principal");
                resp_fini(&r);
            }
            req(&r, "GET", PATHS[i], NULL, NULL, (const char *[]){"Authorization: Bearer nope", NULL});
            cr_expect_eq(r.status, 401, "%s with an unknown token", PATHS[i]);
            resp_fini(&r);
            req(&r, "GET", PATHS[i], NULL, NULL, NULL);
            cr_expect_eq(r.status, access ? 401 : 200, "%s without a token, access token %s", PATHS[i],
                         access ? "set" : "unset");
            if (i == 1 && !access)
                cr_expect_str_eq(r.body, "none", "no token: no principal");
            resp_fini(&r);
        }
        stream_start_get(&s, "/events", RED);
        WAIT_FOR(count(&s, ": stream open") == 1);
        kd_mcp_http_stop(http); /* ends the stream */
        http = NULL;
        pthread_join(s.thread, NULL);
        pthread_mutex_destroy(&s.lock);
        serve_seats(NULL); /* restart() stops the transport first */
    }
}

Test(http_auth, bad_token_lists_are_refused)
{
    static const kd_mcp_http_token TWICE[] = {{.token = "a"}, {.token = "a"}};
    static const kd_mcp_http_token EMPTY[] = {{.token = ""}};
    static const kd_mcp_http_token MISSING[] = {{.token = NULL}};
    static const kd_mcp_http_token ONE[] = {{.token = "a"}};
    kd_mcp_http *h = NULL;

    cr_expect_eq(kd_mcp_http_start(srv, &(kd_mcp_http_options){.tokens = TWICE, .n_tokens = 2}, &h),
                 KD_ERR_INVALID_ARG);
    cr_expect_eq(kd_mcp_http_start(srv, &(kd_mcp_http_options){.tokens = EMPTY, .n_tokens = 1}, &h),
                 KD_ERR_INVALID_ARG);
    cr_expect_eq(kd_mcp_http_start(srv, &(kd_mcp_http_options){.tokens = MISSING, .n_tokens = 1}, &h),
                 KD_ERR_INVALID_ARG);
    cr_expect_eq(kd_mcp_http_start(srv, &(kd_mcp_http_options){.tokens = NULL, .n_tokens = 1}, &h), KD_ERR_INVALID_ARG);
    cr_expect_eq(kd_mcp_http_start(srv, &(kd_mcp_http_options){.bearer_token = "a", .tokens = ONE, .n_tokens = 1}, &h),
                 KD_ERR_INVALID_ARG, "the access token may not be a seat token too");
    cr_expect_eq(kd_mcp_http_start(srv, &(kd_mcp_http_options){.bearer_token = ""}, &h), KD_ERR_INVALID_ARG);
    cr_expect_null(h);
}

/* Beyond loopback a token is always required; a seat token alone is
 * enough to start, and the public has no way in. (Bound to every address
 * for a moment, reached through 127.0.0.1.) */
Test(http_auth, beyond_loopback_requires_a_token)
{
    char red[128], who[64];
    kd_mcp_http *h = NULL;
    resp r;

    cr_expect_eq(kd_mcp_http_start(srv, &(kd_mcp_http_options){.bind_address = "0.0.0.0"}, &h), KD_ERR_INVALID_ARG);
    cr_expect_null(h);
    kd_mcp_http_stop(http);
    http = NULL;
    cr_assert_eq(kd_mcp_http_start(
                     srv, &(kd_mcp_http_options){.bind_address = "0.0.0.0", .tokens = SEATS, .n_tokens = 2}, &http),
                 KD_OK);
    snprintf(base, sizeof base, "http://127.0.0.1:%u", kd_mcp_http_port(http));
    req(&r, "POST", "/mcp", NULL, INIT, NULL);
    cr_expect_eq(r.status, 401, "beyond loopback, no token is no entry");
    resp_fini(&r);
    open_as(RED, red, sizeof red);
    cr_expect_str_eq(whoami(red, RED, who, sizeof who), "seat red");
    cr_expect_eq(status_as("POST", red, BLUE), 403);
}
