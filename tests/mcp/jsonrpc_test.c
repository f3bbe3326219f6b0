/*
 * jsonrpc_test.c — the JSON-RPC 2.0 framing: classification, the error
 * each malformed message gets, ids echoed as given, builders and rendering.
 */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "mcp/server/jsonrpc.h"
#include "mcp/server/schema.h"

static kd_err parse(const char *text, kd_jsonrpc_msg *m) { return kd_jsonrpc_parse(text, strlen(text), m); }

Test(jsonrpc, request_notification_response)
{
    kd_jsonrpc_msg m;

    cr_assert_eq(parse("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}", &m), KD_OK);
    cr_expect_eq(m.kind, KD_JSONRPC_REQUEST);
    cr_expect_str_eq(m.method, "ping");
    cr_expect_eq(json_integer_value(m.id), 7);
    cr_expect_null(m.params);
    kd_jsonrpc_msg_fini(&m);

    cr_assert_eq(parse("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\","
                       "\"params\":{\"_meta\":{}}}",
                       &m),
                 KD_OK);
    cr_expect_eq(m.kind, KD_JSONRPC_NOTIFICATION);
    cr_expect_null(m.id);
    cr_expect(json_is_object(m.params));
    kd_jsonrpc_msg_fini(&m);

    cr_assert_eq(parse("{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"result\":{}}", &m), KD_OK);
    cr_expect_eq(m.kind, KD_JSONRPC_RESPONSE);
    kd_jsonrpc_msg_fini(&m);
}

/* Each malformed input, the code it must get, and whether its id survives. */
static const struct {
    const char *text;
    kd_err err;
    int code;
    int keeps_id;
} BAD[] = {
    {"", KD_ERR_PARSE, KD_JSONRPC_PARSE_ERROR, 0},
    {"{", KD_ERR_PARSE, KD_JSONRPC_PARSE_ERROR, 0},
    {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",}", KD_ERR_PARSE, KD_JSONRPC_PARSE_ERROR, 0},
    {"not json", KD_ERR_PARSE, KD_JSONRPC_PARSE_ERROR, 0},
    {"{\"a\":1,\"a\":2}", KD_ERR_PARSE, KD_JSONRPC_PARSE_ERROR, 0},
    {"\"\xff\xfe\"", KD_ERR_PARSE, KD_JSONRPC_PARSE_ERROR, 0},
    {"[]", KD_ERR_INVALID_ARG, KD_JSONRPC_INVALID_REQUEST, 0},
    {"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]", KD_ERR_INVALID_ARG, KD_JSONRPC_INVALID_REQUEST, 0},
    {"42", KD_ERR_INVALID_ARG, KD_JSONRPC_INVALID_REQUEST, 0},
    {"null", KD_ERR_INVALID_ARG, KD_JSONRPC_INVALID_REQUEST, 0},
    {"{\"id\":1,\"method\":\"ping\"}", KD_ERR_INVALID_ARG, KD_JSONRPC_INVALID_REQUEST, 1},
    {"{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}", KD_ERR_INVALID_ARG, KD_JSONRPC_INVALID_REQUEST, 1},
    {"{\"jsonrpc\":2.0,\"id\":1,\"method\":\"ping\"}", KD_ERR_INVALID_ARG, KD_JSONRPC_INVALID_REQUEST, 1},
    {"{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}", KD_ERR_INVALID_ARG, KD_JSONRPC_INVALID_REQUEST, 0},
    {"{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}", KD_ERR_INVALID_ARG, KD_JSONRPC_INVALID_REQUEST, 0},
    {"{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}", KD_ERR_INVALID_ARG, KD_JSONRPC_INVALID_REQUEST, 0},
    {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":5}", KD_ERR_INVALID_ARG, KD_JSONRPC_INVALID_REQUEST, 1},
    {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\"}", KD_ERR_INVALID_ARG, KD_JSONRPC_INVALID_REQUEST, 1},
    {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":3}", KD_ERR_INVALID_ARG, KD_JSONRPC_INVALID_REQUEST, 1},
    {"{\"jsonrpc\":\"2.0\",\"id\":1}", KD_ERR_INVALID_ARG, KD_JSONRPC_INVALID_REQUEST, 1},
    {"{\"jsonrpc\":\"2.0\",\"result\":{}}", KD_ERR_INVALID_ARG, KD_JSONRPC_INVALID_REQUEST, 0},
    {"{\"jsonrpc\":\"2.0\",\"id\":99999999999999999999999,\"method\":\"ping\"}", KD_ERR_PARSE, KD_JSONRPC_PARSE_ERROR,
     0},
};

Test(jsonrpc, malformed_messages)
{
    size_t i;
    kd_jsonrpc_msg m;

    for (i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        kd_err err = parse(BAD[i].text, &m);

        cr_expect_eq(err, BAD[i].err, "case %zu (%s): err %d", i, BAD[i].text, err);
        cr_expect_eq(m.kind, KD_JSONRPC_INVALID, "case %zu", i);
        cr_expect_eq(m.error_code, BAD[i].code, "case %zu (%s): code %d", i, BAD[i].text, m.error_code);
        cr_expect_eq(m.id != NULL, BAD[i].keeps_id, "case %zu: id kept", i);
        cr_expect_gt(strlen(m.error_message), 10, "case %zu has a message", i);
        kd_jsonrpc_msg_fini(&m);
    }
}

Test(jsonrpc, nul_byte_and_deep_nesting)
{
    static const char with_nul[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\0\"method\":\"ping\"}";
    kd_jsonrpc_msg m;
    size_t depth = 100000, i;
    char *deep = malloc(2 * depth + 1);

    cr_expect_eq(kd_jsonrpc_parse(with_nul, sizeof with_nul - 1, &m), KD_ERR_PARSE);
    kd_jsonrpc_msg_fini(&m);
    cr_assert_not_null(deep);
    for (i = 0; i < depth; i++) {
        deep[i] = '[';
        deep[depth + i] = ']';
    }
    deep[2 * depth] = '\0';
    cr_expect_eq(parse(deep, &m), KD_ERR_PARSE, "nesting beyond the parser's limit is refused");
    kd_jsonrpc_msg_fini(&m);
    free(deep);
}

Test(jsonrpc, huge_string_parses)
{
    size_t n = 4u << 20, i;
    const char *head = "{\"jsonrpc\":\"2.0\",\"id\":\"big\",\"method\":\"x\",\"params\":{\"s\":\"";
    char *text = malloc(strlen(head) + n + 8);
    kd_jsonrpc_msg m;

    cr_assert_not_null(text);
    strcpy(text, head);
    for (i = 0; i < n; i++)
        text[strlen(head) + i] = 'a';
    strcpy(text + strlen(head) + n, "\"}}");
    cr_expect_eq(parse(text, &m), KD_OK);
    cr_expect_eq(json_string_length(json_object_get(m.params, "s")), n);
    kd_jsonrpc_msg_fini(&m);
    free(text);
}

Test(jsonrpc, builders_echo_ids)
{
    json_t *sid = json_string("req-\"1\"\n"), *iid = json_integer(-42), *msg;
    char *text;

    msg = kd_jsonrpc_result(sid, json_object());
    text = kd_jsonrpc_dumps(msg);
    cr_expect_str_eq(text, "{\"jsonrpc\":\"2.0\",\"id\":\"req-\\\"1\\\"\\n\",\"result\":{}}");
    cr_expect(strchr(text, '\n') == NULL);
    free(text);
    json_decref(msg);

    msg = kd_jsonrpc_error(iid, KD_JSONRPC_METHOD_NOT_FOUND, "Method not found", NULL);
    text = kd_jsonrpc_dumps(msg);
    cr_expect_str_eq(text, "{\"jsonrpc\":\"2.0\",\"id\":-42,\"error\":{\"code\":-32601,"
                           "\"message\":\"Method not found\"}}");
    free(text);
    json_decref(msg);

    msg = kd_jsonrpc_error(NULL, KD_JSONRPC_PARSE_ERROR, "bad \xe2\x82", json_pack("{s:i}", "a", 1));
    cr_assert_not_null(msg, "a message with a cut UTF-8 sequence is still rendered");
    cr_expect(json_is_null(json_object_get(msg, "id")));
    json_decref(msg);

    msg = kd_jsonrpc_notification("notifications/resources/updated", json_pack("{s:s}", "uri", "x:y"));
    text = kd_jsonrpc_dumps(msg);
    cr_expect_str_eq(text, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/resources/updated\","
                           "\"params\":{\"uri\":\"x:y\"}}");
    free(text);
    json_decref(msg);
    json_decref(sid);
    json_decref(iid);
}

Test(schema, subset)
{
    json_t *schema = json_loads("{\"type\":\"object\",\"required\":[\"row\"],\"additionalProperties\":false,"
                                "\"properties\":{\"row\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":2},"
                                "\"who\":{\"enum\":[\"X\",\"O\"]},\"list\":{\"type\":\"array\",\"maxItems\":2,"
                                "\"items\":{\"type\":\"string\"}}}}",
                                0, NULL);
    static const struct {
        const char *value;
        int ok;
        const char *why;
    } CASES[] = {
        {"{\"row\":1}", 1, ""},
        {"{\"row\":2.0}", 1, ""},
        {"{}", 0, "missing required property \"row\""},
        {"{\"row\":\"1\"}", 0, "argument /row: expected integer, got string"},
        {"{\"row\":3}", 0, "argument /row: 3 is above the maximum 2"},
        {"{\"row\":1,\"x\":1}", 0, "unknown property \"x\""},
        {"{\"row\":1,\"who\":\"Z\"}", 0, "argument /who: is not one of the allowed values"},
        {"{\"row\":1,\"list\":[\"a\",2]}", 0, "argument /list/1: expected string, got integer"},
        {"{\"row\":1,\"list\":[\"a\",\"b\",\"c\"]}", 0, "more than the maximum"},
    };
    size_t i;
    char why[200];

    cr_assert_not_null(schema);
    for (i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        json_t *v = json_loads(CASES[i].value, 0, NULL);

        cr_expect_eq(kd_mcp_schema_check(schema, v, why, sizeof why), CASES[i].ok, "case %zu", i);
        cr_expect(strstr(why, CASES[i].why) != NULL, "case %zu: \"%s\" lacks \"%s\"", i, why, CASES[i].why);
        json_decref(v);
    }
    json_decref(schema);
}
