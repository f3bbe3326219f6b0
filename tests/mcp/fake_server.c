/*
 * fake_server.c — the fixture server shared by the mcp/ tests.
 */
#include "mcp/fake_server.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <criterion/criterion.h>

static json_t *echo_call(void *ctx, kd_mcp_session *s, json_t *args, int *code, char *msg, size_t len)
{
    (void)ctx;
    (void)s;
    (void)code;
    (void)msg;
    (void)len;
    return kd_mcp_tool_result(json_pack("{s:O}", "echo", args), NULL);
}

static json_t *fail_call(void *ctx, kd_mcp_session *s, json_t *args, int *code, char *msg, size_t len)
{
    (void)ctx;
    (void)s;
    (void)args;
    (void)code;
    (void)msg;
    (void)len;
    return kd_mcp_tool_error("the move is illegal; legal moves: (0,0)");
}

static json_t *proto_call(void *ctx, kd_mcp_session *s, json_t *args, int *code, char *msg, size_t len)
{
    (void)ctx;
    (void)s;
    (void)args;
    *code = KD_JSONRPC_INVALID_PARAMS;
    snprintf(msg, len, "Invalid params: the episode id is malformed");
    return NULL;
}

static json_t *null_call(void *ctx, kd_mcp_session *s, json_t *args, int *code, char *msg, size_t len)
{
    (void)ctx;
    (void)s;
    (void)args;
    (void)code;
    (void)msg;
    (void)len;
    return NULL;
}

static kd_err res_list(void *ctx, kd_mcp_session *s, json_t *out)
{
    (void)ctx;
    (void)s;
    json_array_append_new(out,
                          json_pack("{s:s,s:s,s:s}", "uri", "test://a", "name", "a", "mimeType", "application/json"));
    json_array_append_new(out, json_pack("{s:s,s:s}", "uri", "test://b", "name", "b"));
    return KD_OK;
}

static kd_err res_read(void *ctx, kd_mcp_session *s, const char *uri, json_t **contents)
{
    (void)ctx;
    (void)s;
    if (strcmp(uri, "test://a") == 0 || strcmp(uri, "test://b") == 0 || strncmp(uri, "test://items/", 13) == 0) {
        *contents = kd_mcp_text_contents(uri, "application/json", "{\"ok\":true}");
        return KD_OK;
    }
    if (strcmp(uri, "test://broken") == 0)
        return KD_ERR_STORE;
    return KD_ERR_NOT_FOUND;
}

static json_t *prompt_get(void *ctx, kd_mcp_session *s, json_t *args, int *code, char *msg, size_t len)
{
    char text[128];

    (void)ctx;
    (void)s;
    (void)code;
    (void)msg;
    (void)len;
    snprintf(text, sizeof text, "You play %s.", json_string_value(json_object_get(args, "player")));
    return json_pack("{s:s,s:[{s:s,s:{s:s,s:s}}]}", "description", "turn prompt", "messages", "role", "user", "content",
                     "type", "text", "text", text);
}

/* Answers after `ms` milliseconds: a tool call slower than a timeout. */
static json_t *sleep_call(void *ctx, kd_mcp_session *s, json_t *args, int *code, char *msg, size_t len)
{
    json_int_t ms = json_integer_value(json_object_get(args, "ms"));
    struct timespec t = {.tv_sec = (time_t)(ms / 1000), .tv_nsec = (long)(ms % 1000) * 1000000L};

    (void)ctx;
    (void)s;
    (void)code;
    (void)msg;
    (void)len;
    while (nanosleep(&t, &t) != 0)
        ;
    return kd_mcp_tool_result(json_pack("{s:I}", "slept_ms", ms), NULL);
}

static json_t *whoami_call(void *ctx, kd_mcp_session *s, json_t *args, int *code, char *msg, size_t len)
{
    const char *who = kd_mcp_session_principal(s);

    (void)ctx;
    (void)args;
    (void)code;
    (void)msg;
    (void)len;
    return kd_mcp_tool_result(json_pack("{s:o}", "principal", who != NULL ? json_string(who) : json_null()), NULL);
}

void fake_add_whoami(kd_mcp_server *srv)
{
    cr_assert_eq(kd_mcp_server_add_tool(srv, &(kd_mcp_tool){.name = "whoami",
                                                            .description = "The session's principal.",
                                                            .quick = 1,
                                                            .call = whoami_call}),
                 KD_OK);
}

kd_mcp_server *fake_server_new(const kd_mcp_server_options *opts)
{
    kd_mcp_server_options o = {0};
    kd_mcp_server *srv = NULL;

    if (opts != NULL)
        o = *opts;
    if (o.name == NULL)
        o.name = "fake";
    if (o.version == NULL)
        o.version = "0.0.1";
    cr_assert_eq(kd_mcp_server_alloc(&o, &srv), KD_OK);
    cr_assert_eq(kd_mcp_server_add_tool(
                     srv,
                     &(kd_mcp_tool){
                         .name = "echo",
                         .title = "Echo",
                         .description = "Returns its arguments.",
                         .input_schema_json = "{\"type\":\"object\",\"properties\":{\"row\":{\"type\":\"integer\","
                                              "\"minimum\":0,\"maximum\":2},\"tag\":{\"type\":\"string\"}},"
                                              "\"required\":[\"row\"],\"additionalProperties\":false}",
                         .output_schema_json = "{\"type\":\"object\",\"properties\":{\"echo\":{\"type\":\"object\"}}}",
                         .read_only_hint = 1,
                         .idempotent_hint = 1,
                         .quick = 1,
                         .call = echo_call,
                     }),
                 KD_OK);
    cr_assert_eq(kd_mcp_server_add_tool(
                     srv, &(kd_mcp_tool){.name = "fail", .description = "Always fails as a tool.", .call = fail_call}),
                 KD_OK);
    cr_assert_eq(
        kd_mcp_server_add_tool(
            srv, &(kd_mcp_tool){.name = "proto", .description = "Fails as a protocol error.", .call = proto_call}),
        KD_OK);
    cr_assert_eq(kd_mcp_server_add_tool(
                     srv, &(kd_mcp_tool){.name = "null", .description = "Returns nothing.", .call = null_call}),
                 KD_OK);
    cr_assert_eq(kd_mcp_server_add_tool(srv, &(kd_mcp_tool){.name = "write",
                                                            .description = "Writes.",
                                                            .writes = 1,
                                                            .destructive_hint = 1,
                                                            .call = echo_call}),
                 KD_OK);
    cr_assert_eq(kd_mcp_server_add_tool(srv, &(kd_mcp_tool){.name = "sleep",
                                                            .description = "Answers after ms milliseconds.",
                                                            .input_schema_json =
                                                                "{\"type\":\"object\",\"properties\":{\"ms\":{"
                                                                "\"type\":\"integer\",\"minimum\":0,\"maximum\":"
                                                                "60000}},\"required\":[\"ms\"]}",
                                                            .call = sleep_call}),
                 KD_OK);
    cr_assert_eq(kd_mcp_server_add_resource_provider(
                     srv, &(kd_mcp_resource_provider){.name = "test", .list = res_list, .read = res_read}),
                 KD_OK);
    cr_assert_eq(
        kd_mcp_server_add_resource_template(srv, &(kd_mcp_resource_template){.uri_template = "test://items/{id}",
                                                                             .name = "item",
                                                                             .mime_type = "application/json"}),
        KD_OK);
    cr_assert_eq(
        kd_mcp_server_add_prompt(srv,
                                 &(kd_mcp_prompt){
                                     .name = "turn",
                                     .description = "Your turn.",
                                     .arguments_json = "[{\"name\":\"player\",\"required\":true},{\"name\":\"style\"}]",
                                     .get = prompt_get,
                                 }),
        KD_OK);
    return srv;
}

json_t *fake_parse(const char *text)
{
    json_error_t e;
    json_t *v = json_loads(text, 0, &e);

    cr_assert(json_is_object(v), "not a JSON object: %s (%s)", text, e.text);
    return v;
}

json_t *fake_call(kd_mcp_session *s, const char *msg)
{
    char *reply = NULL;
    json_t *v;

    cr_assert_eq(kd_mcp_session_handle(s, msg, strlen(msg), &reply), KD_OK);
    if (reply == NULL)
        return NULL;
    cr_assert(strchr(reply, '\n') == NULL, "a reply must be one line");
    v = fake_parse(reply);
    free(reply);
    return v;
}

void fake_initialize(kd_mcp_session *s)
{
    json_t *r = fake_call(s, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":"
                             "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                             "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}");

    cr_assert_not_null(json_object_get(r, "result"));
    json_decref(r);
    cr_assert_null(fake_call(s, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"));
}

int fake_error_code(const json_t *reply)
{
    json_t *e = json_object_get(reply, "error");

    return e != NULL ? (int)json_integer_value(json_object_get(e, "code")) : 0;
}

uint64_t fake_clock_ns(void *ctx) { return atomic_load(&((fake_clock *)ctx)->ns); }

void fake_clock_advance(fake_clock *c, uint64_t ns) { atomic_fetch_add(&c->ns, ns); }
