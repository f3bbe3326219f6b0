/*
 * server_test.c — the transport-independent MCP session: lifecycle and
 * version negotiation, every method's success and error paths against the
 * fake server, subscriptions and server-initiated notifications, limits,
 * and arbitrary bytes (seeded; KD_TEST_SEED overrides the seed).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "mcp/fake_server.h"
#include "mcp/server/server.h"

/* Captures server-initiated messages of a session. */
typedef struct {
    pthread_mutex_t lock;
    char *lines[64];
    size_t n;
} sink;

static void sink_send(void *ctx, const char *text)
{
    sink *k = ctx;

    pthread_mutex_lock(&k->lock);
    if (k->n < 64)
        k->lines[k->n++] = strdup(text);
    pthread_mutex_unlock(&k->lock);
}

static void sink_fini(sink *k)
{
    size_t i;

    for (i = 0; i < k->n; i++)
        free(k->lines[i]);
    pthread_mutex_destroy(&k->lock);
}

static kd_mcp_server *srv;
static kd_mcp_session *ses;
static sink out;

static void setup(void)
{
    memset(&out, 0, sizeof out);
    pthread_mutex_init(&out.lock, NULL);
    srv = fake_server_new(NULL);
    cr_assert_eq(kd_mcp_session_alloc(srv, sink_send, &out, &ses), KD_OK);
}

static void teardown(void)
{
    kd_mcp_session_free(ses);
    kd_mcp_server_free(srv);
    sink_fini(&out);
}

static json_t *result_of(json_t *reply)
{
    json_t *r = json_object_get(reply, "result");

    cr_assert_not_null(r, "expected a result, got %s", json_dumps(reply, JSON_COMPACT));
    return r;
}

TestSuite(lifecycle, .init = setup, .fini = teardown);
TestSuite(methods, .init = setup, .fini = teardown);
TestSuite(notify, .init = setup, .fini = teardown);

Test(lifecycle, negotiation)
{
    static const struct {
        const char *asked, *answered;
    } CASES[] = {
        {"2025-11-25", "2025-11-25"}, {"2025-06-18", "2025-06-18"}, {"2025-03-26", "2025-03-26"},
        {"2024-11-05", "2025-11-25"}, {"1999-01-01", "2025-11-25"},
    };
    size_t i;
    char msg[256];

    for (i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        kd_mcp_session *s;
        json_t *reply, *r;

        cr_assert_eq(kd_mcp_session_alloc(srv, NULL, NULL, &s), KD_OK);
        snprintf(msg, sizeof msg,
                 "{\"jsonrpc\":\"2.0\",\"id\":\"init\",\"method\":\"initialize\",\"params\":"
                 "{\"protocolVersion\":\"%s\",\"capabilities\":{\"x-unknown\":{}},"
                 "\"clientInfo\":{\"name\":\"c\",\"version\":\"1\"},\"_meta\":{\"k\":1}}}",
                 CASES[i].asked);
        reply = fake_call(s, msg);
        r = result_of(reply);
        cr_expect_str_eq(json_string_value(json_object_get(reply, "id")), "init");
        cr_expect_str_eq(json_string_value(json_object_get(r, "protocolVersion")), CASES[i].answered);
        cr_expect_str_eq(kd_mcp_session_protocol(s), CASES[i].answered);
        cr_expect_str_eq(json_string_value(json_object_get(json_object_get(r, "serverInfo"), "name")), "fake");
        cr_expect(json_is_true(
            json_object_get(json_object_get(json_object_get(r, "capabilities"), "resources"), "subscribe")));
        cr_expect_not_null(json_object_get(json_object_get(r, "capabilities"), "logging"));
        cr_expect_not_null(json_object_get(json_object_get(r, "capabilities"), "prompts"));
        cr_expect_not_null(json_object_get(json_object_get(r, "capabilities"), "tools"));
        json_decref(reply);
        kd_mcp_session_free(s);
    }
}

Test(lifecycle, before_initialize)
{
    json_t *r;

    r = fake_call(ses, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
    cr_expect_not_null(json_object_get(r, "result"), "ping works before initialize");
    json_decref(r);
    r = fake_call(ses, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}");
    cr_expect_eq(fake_error_code(r), KD_JSONRPC_INVALID_REQUEST);
    json_decref(r);
    r = fake_call(ses, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"initialize\",\"params\":{}}");
    cr_expect_eq(fake_error_code(r), KD_JSONRPC_INVALID_PARAMS, "protocolVersion is required");
    json_decref(r);
    r = fake_call(ses, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"initialize\",\"params\":[1]}");
    cr_expect_eq(fake_error_code(r), KD_JSONRPC_INVALID_PARAMS);
    json_decref(r);
    cr_expect_eq(kd_mcp_session_initialized(ses), 0);
    fake_initialize(ses);
    cr_expect_eq(kd_mcp_session_initialized(ses), 1);
    r = fake_call(ses, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"initialize\",\"params\":"
                       "{\"protocolVersion\":\"2025-11-25\"}}");
    cr_expect_eq(fake_error_code(r), KD_JSONRPC_INVALID_REQUEST, "a second initialize is refused");
    json_decref(r);
}

Test(lifecycle, framing_errors)
{
    json_t *r;

    r = fake_call(ses, "{oops");
    cr_expect_eq(fake_error_code(r), KD_JSONRPC_PARSE_ERROR);
    cr_expect(json_is_null(json_object_get(r, "id")));
    json_decref(r);
    r = fake_call(ses, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]");
    cr_expect_eq(fake_error_code(r), KD_JSONRPC_INVALID_REQUEST, "batches are refused");
    json_decref(r);
    fake_initialize(ses);
    r = fake_call(ses, "{\"jsonrpc\":\"2.0\",\"id\":\"abc\",\"method\":\"nope/nope\"}");
    cr_expect_eq(fake_error_code(r), KD_JSONRPC_METHOD_NOT_FOUND);
    cr_expect_str_eq(json_string_value(json_object_get(r, "id")), "abc");
    json_decref(r);
    cr_expect_null(fake_call(ses, "{\"jsonrpc\":\"2.0\",\"method\":\"nope/nope\"}"),
                   "an unknown notification gets no reply");
    cr_expect_null(fake_call(ses, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
                                  "\"params\":{\"requestId\":1,\"reason\":\"x\"}}"));
    cr_expect_null(fake_call(ses, "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{}}"),
                   "a response from the client gets no reply");
    r = fake_call(ses, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\",\"params\":{\"_meta\":"
                       "{\"progressToken\":1}},\"extra\":true}");
    cr_expect_not_null(json_object_get(r, "result"), "_meta and unknown members are tolerated");
    json_decref(r);
}

Test(methods, tools)
{
    json_t *r, *tools, *t;
    size_t i;
    int saw_echo = 0, saw_write = 0;

    fake_initialize(ses);
    r = fake_call(ses, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{}}");
    tools = json_object_get(result_of(r), "tools");
    json_array_foreach(tools, i, t)
    {
        const char *name = json_string_value(json_object_get(t, "name"));

        cr_expect(json_is_object(json_object_get(t, "inputSchema")), "%s has inputSchema", name);
        if (strcmp(name, "echo") == 0) {
            saw_echo = 1;
            cr_expect(json_is_object(json_object_get(t, "outputSchema")));
            cr_expect(json_is_true(json_object_get(json_object_get(t, "annotations"), "readOnlyHint")));
        }
        saw_write |= strcmp(name, "write") == 0;
    }
    cr_expect(saw_echo && saw_write);
    json_decref(r);

    r = fake_call(ses, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":"
                       "{\"name\":\"echo\",\"arguments\":{\"row\":1,\"tag\":\"t\"}}}");
    t = result_of(r);
    cr_expect_eq(
        json_integer_value(json_object_get(json_object_get(json_object_get(t, "structuredContent"), "echo"), "row")),
        1);
    cr_expect_str_eq(json_string_value(json_object_get(json_array_get(json_object_get(t, "content"), 0), "type")),
                     "text");
    /* the text is the structured content's JSON, encoded once for both */
    char *structured = json_dumps(json_object_get(t, "structuredContent"), JSON_COMPACT);
    cr_expect_str_eq(json_string_value(json_object_get(json_array_get(json_object_get(t, "content"), 0), "text")),
                     structured);
    free(structured);
    cr_expect_null(json_object_get(t, "isError"));
    json_decref(r);

    r = fake_call(ses, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":"
                       "{\"name\":\"echo\",\"arguments\":{\"row\":\"one\"}}}");
    t = result_of(r);
    cr_expect(json_is_true(json_object_get(t, "isError")), "a bad argument is a tool error");
    cr_expect(strstr(json_string_value(json_object_get(json_array_get(json_object_get(t, "content"), 0), "text")),
                     "expected integer") != NULL);
    json_decref(r);

    r = fake_call(ses, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":"
                       "{\"name\":\"fail\"}}");
    cr_expect(json_is_true(json_object_get(result_of(r), "isError")));
    json_decref(r);

    r = fake_call(ses, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":"
                       "{\"name\":\"nope\"}}");
    cr_expect_eq(fake_error_code(r), KD_JSONRPC_INVALID_PARAMS, "unknown tool");
    json_decref(r);
    r = fake_call(ses, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":"
                       "{\"name\":\"proto\",\"arguments\":{}}}");
    cr_expect_eq(fake_error_code(r), KD_JSONRPC_INVALID_PARAMS);
    cr_expect_str_eq(json_string_value(json_object_get(json_object_get(r, "error"), "message")),
                     "Invalid params: the episode id is malformed");
    json_decref(r);
    r = fake_call(ses, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":"
                       "{\"name\":\"null\"}}");
    cr_expect_eq(fake_error_code(r), KD_JSONRPC_INTERNAL_ERROR);
    json_decref(r);
    r = fake_call(ses, "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\",\"params\":"
                       "{\"name\":5}}");
    cr_expect_eq(fake_error_code(r), KD_JSONRPC_INVALID_PARAMS);
    json_decref(r);
    r = fake_call(ses, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":"
                       "{\"name\":\"echo\",\"arguments\":[1]}}");
    cr_expect_eq(fake_error_code(r), KD_JSONRPC_INVALID_PARAMS);
    json_decref(r);
}

Test(methods, read_only_hides_writers)
{
    kd_mcp_server *ro = fake_server_new(&(kd_mcp_server_options){.read_only = 1});
    kd_mcp_session *s;
    json_t *r, *t;
    size_t i;

    cr_assert_eq(kd_mcp_session_alloc(ro, NULL, NULL, &s), KD_OK);
    fake_initialize(s);
    r = fake_call(s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
    json_array_foreach(json_object_get(result_of(r), "tools"), i, t)
        cr_expect_str_neq(json_string_value(json_object_get(t, "name")), "write");
    json_decref(r);
    r = fake_call(s, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":"
                     "{\"name\":\"write\",\"arguments\":{}}}");
    cr_expect_eq(fake_error_code(r), KD_JSONRPC_INVALID_PARAMS);
    json_decref(r);
    kd_mcp_session_free(s);
    kd_mcp_server_free(ro);
}

Test(methods, extensions_and_tool_meta)
{
    kd_mcp_server *x =
        fake_server_new(&(kd_mcp_server_options){.extensions_json = "{\"io.modelcontextprotocol/ui\":{\"k\":1}}"});
    kd_mcp_session *s;
    json_t *r, *t, *found = NULL;
    size_t i;

    cr_assert_eq(kd_mcp_server_add_tool(x, &(kd_mcp_tool){.name = "board",
                                                          .meta_json = "{\"ui\":{\"resourceUri\":\"ui://x/b\"}}",
                                                          .call = (void *)1}),
                 KD_OK);
    cr_assert_eq(kd_mcp_session_alloc(x, NULL, NULL, &s), KD_OK);
    r = fake_call(s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                     "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"c\",\"version\":\"1\"}}}");
    cr_expect_eq(json_integer_value(json_object_get(
                     json_object_get(json_object_get(json_object_get(result_of(r), "capabilities"), "extensions"),
                                     "io.modelcontextprotocol/ui"),
                     "k")),
                 1);
    json_decref(r);
    r = fake_call(s, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}");
    json_array_foreach(json_object_get(result_of(r), "tools"), i, t)
    {
        if (strcmp(json_string_value(json_object_get(t, "name")), "board") == 0)
            found = t;
        else
            cr_expect_null(json_object_get(t, "_meta"), "only the tool given a _meta has one");
    }
    cr_assert_not_null(found);
    cr_expect_str_eq(
        json_string_value(json_object_get(json_object_get(json_object_get(found, "_meta"), "ui"), "resourceUri")),
        "ui://x/b");
    json_decref(r);
    kd_mcp_session_free(s);
    kd_mcp_server_free(x);

    /* without extensions_json, capabilities has no "extensions" */
    r = fake_call(ses, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                       "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"c\",\"version\":\"1\"}}}");
    cr_expect_null(json_object_get(json_object_get(result_of(r), "capabilities"), "extensions"));
    json_decref(r);

    /* bad JSON is refused at registration and at alloc */
    cr_expect_eq(kd_mcp_server_add_tool(srv, &(kd_mcp_tool){.name = "m", .meta_json = "[1]", .call = (void *)1}),
                 KD_ERR_PARSE);
    cr_expect_eq(kd_mcp_server_add_tool(srv, &(kd_mcp_tool){.name = "m", .meta_json = "{", .call = (void *)1}),
                 KD_ERR_PARSE);
    x = NULL;
    cr_expect_eq(
        kd_mcp_server_alloc(&(kd_mcp_server_options){.name = "n", .version = "1", .extensions_json = "[]"}, &x),
        KD_ERR_PARSE);
    cr_expect_null(x);
}

Test(methods, registration_errors)
{
    kd_mcp_tool t = {.name = "echo", .call = (void *)1};

    cr_expect_eq(kd_mcp_server_add_tool(srv, &t), KD_ERR_EXISTS);
    t.name = "bad name";
    cr_expect_eq(kd_mcp_server_add_tool(srv, &t), KD_ERR_INVALID_ARG);
    t.name = "ok";
    t.input_schema_json = "{nope";
    cr_expect_eq(kd_mcp_server_add_tool(srv, &t), KD_ERR_PARSE);
    t.input_schema_json = "[]";
    cr_expect_eq(kd_mcp_server_add_tool(srv, &t), KD_ERR_PARSE);
    cr_expect_eq(
        kd_mcp_server_add_prompt(srv, &(kd_mcp_prompt){.name = "p", .get = (void *)1, .arguments_json = "[{}]"}),
        KD_ERR_PARSE);
}

Test(methods, resources)
{
    json_t *r, *c;

    fake_initialize(ses);
    r = fake_call(ses, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/list\"}");
    cr_expect_eq(json_array_size(json_object_get(result_of(r), "resources")), 2);
    json_decref(r);
    r = fake_call(ses, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/templates/list\"}");
    cr_expect_str_eq(json_string_value(json_object_get(
                         json_array_get(json_object_get(result_of(r), "resourceTemplates"), 0), "uriTemplate")),
                     "test://items/{id}");
    json_decref(r);
    r = fake_call(ses, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/read\",\"params\":"
                       "{\"uri\":\"test://items/7\"}}");
    c = json_array_get(json_object_get(result_of(r), "contents"), 0);
    cr_expect_str_eq(json_string_value(json_object_get(c, "uri")), "test://items/7");
    cr_expect_str_eq(json_string_value(json_object_get(c, "text")), "{\"ok\":true}");
    json_decref(r);
    r = fake_call(ses, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"resources/read\",\"params\":"
                       "{\"uri\":\"test://missing\"}}");
    cr_expect_eq(fake_error_code(r), KD_MCP_RESOURCE_NOT_FOUND);
    cr_expect_str_eq(json_string_value(json_object_get(json_object_get(json_object_get(r, "error"), "data"), "uri")),
                     "test://missing");
    json_decref(r);
    r = fake_call(ses, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"resources/read\",\"params\":"
                       "{\"uri\":\"test://broken\"}}");
    cr_expect_eq(fake_error_code(r), KD_JSONRPC_INTERNAL_ERROR);
    json_decref(r);
    r = fake_call(ses, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"resources/read\",\"params\":"
                       "{\"uri\":7}}");
    cr_expect_eq(fake_error_code(r), KD_JSONRPC_INVALID_PARAMS);
    json_decref(r);
}

Test(methods, pagination)
{
    kd_mcp_server *small = fake_server_new(&(kd_mcp_server_options){.page_size = 2});
    kd_mcp_session *s;
    json_t *r, *res;
    char msg[200];
    size_t total = 0;
    const char *cursor = NULL;
    char cur[32] = "";

    cr_assert_eq(kd_mcp_session_alloc(small, NULL, NULL, &s), KD_OK);
    fake_initialize(s);
    do {
        if (cursor == NULL)
            snprintf(msg, sizeof msg, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
        else
            snprintf(msg, sizeof msg,
                     "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\","
                     "\"params\":{\"cursor\":\"%s\"}}",
                     cur);
        r = fake_call(s, msg);
        res = result_of(r);
        cr_expect_leq(json_array_size(json_object_get(res, "tools")), 2);
        total += json_array_size(json_object_get(res, "tools"));
        cursor = json_string_value(json_object_get(res, "nextCursor"));
        if (cursor != NULL)
            snprintf(cur, sizeof cur, "%s", cursor);
        json_decref(r);
    } while (cursor != NULL);
    cr_expect_eq(total, 6);
    r = fake_call(s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\","
                     "\"params\":{\"cursor\":\"bogus\"}}");
    cr_expect_eq(fake_error_code(r), KD_JSONRPC_INVALID_PARAMS);
    json_decref(r);
    kd_mcp_session_free(s);
    kd_mcp_server_free(small);
}

Test(methods, prompts)
{
    json_t *r;

    fake_initialize(ses);
    r = fake_call(ses, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"prompts/list\"}");
    cr_expect_str_eq(
        json_string_value(json_object_get(json_array_get(json_object_get(result_of(r), "prompts"), 0), "name")),
        "turn");
    json_decref(r);
    r = fake_call(ses, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"prompts/get\",\"params\":"
                       "{\"name\":\"turn\",\"arguments\":{\"player\":\"X\"}}}");
    cr_expect_str_eq(
        json_string_value(json_object_get(
            json_object_get(json_array_get(json_object_get(result_of(r), "messages"), 0), "content"), "text")),
        "You play X.");
    json_decref(r);
    r = fake_call(ses, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"prompts/get\",\"params\":"
                       "{\"name\":\"turn\"}}");
    cr_expect_eq(fake_error_code(r), KD_JSONRPC_INVALID_PARAMS, "missing required argument");
    json_decref(r);
    r = fake_call(ses, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"prompts/get\",\"params\":"
                       "{\"name\":\"turn\",\"arguments\":{\"player\":1}}}");
    cr_expect_eq(fake_error_code(r), KD_JSONRPC_INVALID_PARAMS, "arguments are strings");
    json_decref(r);
    r = fake_call(ses, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"prompts/get\",\"params\":"
                       "{\"name\":\"nope\"}}");
    cr_expect_eq(fake_error_code(r), KD_JSONRPC_INVALID_PARAMS, "unknown prompt");
    json_decref(r);
}

Test(notify, subscriptions)
{
    json_t *r, *n;
    kd_mcp_session *other;
    sink other_out;

    memset(&other_out, 0, sizeof other_out);
    pthread_mutex_init(&other_out.lock, NULL);
    cr_assert_eq(kd_mcp_session_alloc(srv, sink_send, &other_out, &other), KD_OK);
    fake_initialize(other);
    fake_initialize(ses);
    r = fake_call(ses, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/subscribe\","
                       "\"params\":{\"uri\":\"test://items/1\"}}");
    result_of(r);
    json_decref(r);
    r = fake_call(ses, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/subscribe\","
                       "\"params\":{\"uri\":\"not a uri\"}}");
    cr_expect_eq(fake_error_code(r), KD_JSONRPC_INVALID_PARAMS);
    json_decref(r);

    kd_mcp_server_notify_resource_updated(srv, "test://items/1");
    kd_mcp_server_notify_resource_updated(srv, "test://items/2");
    cr_assert_eq(out.n, 1, "only the subscribed uri is notified");
    cr_expect_eq(other_out.n, 0, "the other session did not subscribe");
    n = fake_parse(out.lines[0]);
    cr_expect_str_eq(json_string_value(json_object_get(n, "method")), "notifications/resources/updated");
    cr_expect_str_eq(json_string_value(json_object_get(json_object_get(n, "params"), "uri")), "test://items/1");
    cr_expect_null(json_object_get(n, "id"));
    json_decref(n);

    r = fake_call(ses, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/unsubscribe\","
                       "\"params\":{\"uri\":\"test://items/1\"}}");
    result_of(r);
    json_decref(r);
    kd_mcp_server_notify_resource_updated(srv, "test://items/1");
    cr_expect_eq(out.n, 1, "no update after unsubscribe");

    kd_mcp_server_notify_list_changed(srv, KD_MCP_LIST_RESOURCES);
    cr_expect_eq(out.n, 2);
    cr_expect_eq(other_out.n, 1, "list_changed goes to every initialized session");
    cr_expect(strstr(out.lines[1], "notifications/resources/list_changed") != NULL);
    kd_mcp_session_free(other);
    sink_fini(&other_out);
}

Test(notify, subscription_limit)
{
    kd_mcp_server *small = fake_server_new(&(kd_mcp_server_options){.max_subscriptions = 2});
    kd_mcp_session *s;
    json_t *r;

    cr_assert_eq(kd_mcp_session_alloc(small, NULL, NULL, &s), KD_OK);
    fake_initialize(s);
    json_decref(fake_call(s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/subscribe\","
                             "\"params\":{\"uri\":\"a:1\"}}"));
    json_decref(fake_call(s, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/subscribe\","
                             "\"params\":{\"uri\":\"a:2\"}}"));
    r = fake_call(s, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/subscribe\","
                     "\"params\":{\"uri\":\"a:2\"}}");
    cr_expect_not_null(json_object_get(r, "result"), "a repeated subscription is free");
    json_decref(r);
    r = fake_call(s, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"resources/subscribe\","
                     "\"params\":{\"uri\":\"a:3\"}}");
    cr_expect_eq(fake_error_code(r), KD_MCP_LIMIT_EXCEEDED);
    cr_expect(strstr(json_string_value(json_object_get(json_object_get(r, "error"), "message")), "at most 2") != NULL);
    json_decref(r);
    kd_mcp_session_free(s);
    kd_mcp_server_free(small);
}

Test(notify, logging)
{
    json_t *r;

    fake_initialize(ses);
    kd_mcp_server_log(srv, KD_MCP_LOG_INFO, "engine", json_string("below the default level"));
    cr_expect_eq(out.n, 0);
    r = fake_call(ses, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"logging/setLevel\","
                       "\"params\":{\"level\":\"debug\"}}");
    result_of(r);
    json_decref(r);
    kd_mcp_server_log(srv, KD_MCP_LOG_INFO, "engine", json_string("now visible"));
    kd_mcp_session_log(ses, KD_MCP_LOG_DEBUG, NULL, json_pack("{s:i}", "n", 1));
    cr_assert_eq(out.n, 2);
    cr_expect(strstr(out.lines[0], "\"level\":\"info\"") != NULL);
    cr_expect(strstr(out.lines[0], "\"logger\":\"engine\"") != NULL);
    cr_expect(strstr(out.lines[1], "notifications/message") != NULL);
    r = fake_call(ses, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"logging/setLevel\","
                       "\"params\":{\"level\":\"loud\"}}");
    cr_expect_eq(fake_error_code(r), KD_JSONRPC_INVALID_PARAMS);
    json_decref(r);
}

Test(notify, nothing_before_initialize)
{
    kd_mcp_server_notify_list_changed(srv, KD_MCP_LIST_TOOLS);
    cr_expect_eq(out.n, 0);
}

/* Sends `n` tools/list and returns how many the call-rate limit refused. */
static int limited_of(kd_mcp_session *s, int n)
{
    const char *msg = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}";
    kd_mcp_handle_info info;
    kd_jsonrpc_msg m;
    char *reply;
    int i, limited = 0;

    for (i = 0; i < n; i++) {
        cr_assert_eq(kd_jsonrpc_parse(msg, strlen(msg), &m), KD_OK);
        cr_assert_eq(kd_mcp_session_handle_msg(s, &m, &reply, &info), KD_OK);
        limited += info.rate_limited;
        if (info.rate_limited)
            cr_expect(strstr(reply, "-32000") != NULL && strstr(reply, "Rate limit") != NULL);
        free(reply);
        kd_jsonrpc_msg_fini(&m);
    }
    return limited;
}

/* The limit runs on the injected clock, so the counts are exact however
 * slowly the machine runs. */
Test(methods, rate_limit)
{
    fake_clock clock = {.ns = 1000000000000u};
    kd_mcp_server *slow = fake_server_new(&(kd_mcp_server_options){
        .calls_per_second = 1, .call_burst = 3, .clock_ns = fake_clock_ns, .clock_ctx = &clock});
    kd_mcp_session *s;

    cr_assert_eq(kd_mcp_session_alloc(slow, NULL, NULL, &s), KD_OK);
    fake_initialize(s);
    cr_expect_eq(limited_of(s, 6), 3, "a burst of 3 passes, the rest is limited");
    fake_clock_advance(&clock, 999999999u);
    cr_expect_eq(limited_of(s, 1), 1, "less than a second refills less than one call");
    fake_clock_advance(&clock, 1u);
    cr_expect_eq(limited_of(s, 2), 1, "one second refills one call");
    fake_clock_advance(&clock, 60000000000u);
    cr_expect_eq(limited_of(s, 4), 1, "a long pause refills up to the burst, no more");
    kd_mcp_session_free(s);
    kd_mcp_server_free(slow);
}

/* Which messages a transport may handle on an event thread: all but tool
 * calls that may wait. */
Test(methods, quick_messages)
{
    static const struct {
        const char *msg;
        int quick;
    } CASES[] = {
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}", 1},
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}", 1},
        {"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", 1},
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\"}}", 1},
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"nope\"}}", 1},
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{}}", 1},
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"sleep\"}}", 0},
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"write\"}}", 0},
    };
    kd_jsonrpc_msg m;
    size_t i;

    for (i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        cr_assert_eq(kd_jsonrpc_parse(CASES[i].msg, strlen(CASES[i].msg), &m), KD_OK);
        cr_expect_eq(kd_mcp_server_is_quick(srv, &m), CASES[i].quick, "%s", CASES[i].msg);
        kd_jsonrpc_msg_fini(&m);
    }
}

Test(methods, message_size_limit)
{
    kd_mcp_server *small = fake_server_new(&(kd_mcp_server_options){.max_message_bytes = 64});
    kd_mcp_session *s;
    json_t *r;

    cr_assert_eq(kd_mcp_session_alloc(small, NULL, NULL, &s), KD_OK);
    r = fake_call(s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"pad\":"
                     "\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}}");
    cr_expect_eq(fake_error_code(r), KD_JSONRPC_INVALID_REQUEST);
    json_decref(r);
    kd_mcp_session_free(s);
    kd_mcp_server_free(small);
}

/* Arbitrary bytes and mutated valid messages must never crash, and every
 * request-shaped reply must be one valid JSON object. */
Test(methods, arbitrary_bytes)
{
    static const char *const SEEDS[] = {
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\","
        "\"arguments\":{\"row\":1}}}",
        "{\"jsonrpc\":\"2.0\",\"id\":\"s\",\"method\":\"resources/read\",\"params\":{\"uri\":\"test://a\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"prompts/get\",\"params\":{\"name\":\"turn\","
        "\"arguments\":{\"player\":\"O\"}}}",
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/subscribe\",\"params\":{\"uri\":\"a:b\"}}",
    };
    unsigned seed = 12345, i, k;
    const char *env = getenv("KD_TEST_SEED");
    char buf[512];
    char *reply;

    if (env != NULL)
        seed = (unsigned)strtoul(env, NULL, 10);
    cr_log_info("arbitrary_bytes seed %u (set KD_TEST_SEED to override)", seed);
    srand(seed);
    fake_initialize(ses);
    for (i = 0; i < 20000; i++) {
        const char *base = SEEDS[i % 4];
        size_t n = strlen(base);

        memcpy(buf, base, n);
        if (i % 5 == 0) {
            n = (size_t)rand() % sizeof buf;
            for (k = 0; k < n; k++)
                buf[k] = (char)(rand() & 0xff);
        } else {
            for (k = 0; k < 1 + (unsigned)rand() % 4; k++)
                buf[(size_t)rand() % n] = (char)(rand() & 0xff);
            if (rand() % 3 == 0)
                n = (size_t)rand() % n;
        }
        cr_assert_eq(kd_mcp_session_handle(ses, buf, n, &reply), KD_OK);
        if (reply != NULL) {
            json_t *v = json_loads(reply, 0, NULL);

            cr_assert(json_is_object(v), "reply is not JSON: %s", reply);
            json_decref(v);
            free(reply);
        }
    }
}
