/*
 * jsonrpc.c — parsing, classification and building of JSON-RPC 2.0 messages.
 *
 * The parser is the first thing arbitrary bytes from a client reach, so it
 * trusts nothing: jansson rejects invalid UTF-8, NUL bytes, duplicate keys
 * and nesting deeper than its fixed limit; every member is then checked for
 * its type before it is used. MCP narrows JSON-RPC in two ways that matter
 * here: ids are strings or integers (never null, never fractional), and there
 * are no batches.
 */
#include "mcp/server/jsonrpc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void set_invalid(kd_jsonrpc_msg *m, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void set_invalid(kd_jsonrpc_msg *m, int code, const char *fmt, ...)
{
    va_list ap;

    m->kind = KD_JSONRPC_INVALID;
    m->error_code = code;
    va_start(ap, fmt);
    vsnprintf(m->error_message, sizeof m->error_message, fmt, ap);
    va_end(ap);
}

/* An id MCP accepts: a string or an integer. */
static int valid_id(const json_t *id) { return json_is_string(id) || json_is_integer(id); }

kd_err kd_jsonrpc_parse(const char *text, size_t len, kd_jsonrpc_msg *out)
{
    json_error_t jerr;
    json_t *root, *v, *id, *method, *params;

    memset(out, 0, sizeof *out);
    if (text == NULL) {
        set_invalid(out, KD_JSONRPC_PARSE_ERROR, "Parse error: empty message");
        return KD_ERR_PARSE;
    }
    root = json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
    if (root == NULL) {
        set_invalid(out, KD_JSONRPC_PARSE_ERROR, "Parse error: %s (line %d, column %d)", jerr.text, jerr.line,
                    jerr.column);
        return KD_ERR_PARSE;
    }
    out->root = root;
    if (json_is_array(root)) {
        set_invalid(out, KD_JSONRPC_INVALID_REQUEST,
                    "Invalid Request: JSON-RPC batches are not supported; send one message at a time");
        return KD_ERR_INVALID_ARG;
    }
    if (!json_is_object(root)) {
        set_invalid(out, KD_JSONRPC_INVALID_REQUEST, "Invalid Request: a message must be a JSON object");
        return KD_ERR_INVALID_ARG;
    }

    /* Keep the id when it is usable so that even an invalid request gets an
     * error the client can match. */
    id = json_object_get(root, "id");
    if (id != NULL && valid_id(id))
        out->id = id;

    v = json_object_get(root, "jsonrpc");
    if (!json_is_string(v) || strcmp(json_string_value(v), "2.0") != 0) {
        set_invalid(out, KD_JSONRPC_INVALID_REQUEST, "Invalid Request: member \"jsonrpc\" must be the string \"2.0\"");
        return KD_ERR_INVALID_ARG;
    }
    if (id != NULL && !valid_id(id)) {
        set_invalid(out, KD_JSONRPC_INVALID_REQUEST, "Invalid Request: member \"id\" must be a string or an integer");
        return KD_ERR_INVALID_ARG;
    }

    method = json_object_get(root, "method");
    if (method != NULL) {
        if (!json_is_string(method) || json_string_length(method) == 0) {
            set_invalid(out, KD_JSONRPC_INVALID_REQUEST,
                        "Invalid Request: member \"method\" must be a non-empty string");
            return KD_ERR_INVALID_ARG;
        }
        params = json_object_get(root, "params");
        if (params != NULL && !json_is_object(params) && !json_is_array(params)) {
            set_invalid(out, KD_JSONRPC_INVALID_REQUEST, "Invalid Request: member \"params\" must be an object");
            return KD_ERR_INVALID_ARG;
        }
        out->method = json_string_value(method);
        out->params = params;
        out->kind = id != NULL ? KD_JSONRPC_REQUEST : KD_JSONRPC_NOTIFICATION;
        return KD_OK;
    }

    if (json_object_get(root, "result") != NULL || json_object_get(root, "error") != NULL) {
        if (id == NULL) {
            set_invalid(out, KD_JSONRPC_INVALID_REQUEST, "Invalid Request: a response needs an \"id\"");
            return KD_ERR_INVALID_ARG;
        }
        out->kind = KD_JSONRPC_RESPONSE;
        return KD_OK;
    }
    set_invalid(out, KD_JSONRPC_INVALID_REQUEST,
                "Invalid Request: a message needs a \"method\" (request or notification) or a "
                "\"result\"/\"error\" (response)");
    return KD_ERR_INVALID_ARG;
}

void kd_jsonrpc_msg_fini(kd_jsonrpc_msg *msg)
{
    if (msg == NULL)
        return;
    json_decref(msg->root);
    memset(msg, 0, sizeof *msg);
}

/* Starts {"jsonrpc":"2.0","id":id}; NULL when out of memory. */
static json_t *envelope(json_t *id)
{
    json_t *o = json_object();

    if (o == NULL)
        return NULL;
    if (json_object_set_new(o, "jsonrpc", json_string("2.0")) != 0 ||
        json_object_set_new(o, "id", id != NULL ? json_incref(id) : json_null()) != 0) {
        json_decref(o);
        return NULL;
    }
    return o;
}

json_t *kd_jsonrpc_result(json_t *id, json_t *result)
{
    json_t *o = envelope(id);

    if (o == NULL || result == NULL) {
        json_decref(result);
        json_decref(o);
        return NULL;
    }
    if (json_object_set_new(o, "result", result) != 0) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/*
 * A JSON string of `text`, with every byte that is not part of a valid UTF-8
 * sequence replaced by '?'. Error messages quote client input truncated to a
 * byte count, which may cut a character in two; the reply must still be
 * valid JSON.
 */
static json_t *lossy_string(const char *text)
{
    json_t *v = json_string(text);
    char *copy;
    size_t i, n, k, len;
    unsigned char c;

    if (v != NULL)
        return v;
    n = strlen(text);
    if ((copy = malloc(n + 1)) == NULL)
        return NULL;
    memcpy(copy, text, n + 1);
    for (i = 0; i < n; i += len) {
        c = (unsigned char)copy[i];
        len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
        for (k = 1; len > 1 && k < len; k++)
            if (i + k >= n || ((unsigned char)copy[i + k] & 0xc0) != 0x80)
                len = 0;
        if (len == 0) {
            copy[i] = '?';
            len = 1;
        }
    }
    v = json_string(copy);
    free(copy);
    return v != NULL ? v : json_string("(message not representable)");
}

json_t *kd_jsonrpc_error(json_t *id, int code, const char *message, json_t *data)
{
    json_t *o = envelope(id), *e = json_object();

    if (o == NULL || e == NULL)
        goto fail;
    if (json_object_set_new(e, "code", json_integer(code)) != 0 ||
        json_object_set_new(e, "message", lossy_string(message != NULL ? message : "error")) != 0)
        goto fail;
    if (data != NULL) {
        json_t *d = data;

        data = NULL;
        if (json_object_set_new(e, "data", d) != 0)
            goto fail;
    }
    if (json_object_set_new(o, "error", e) != 0) {
        e = NULL;
        goto fail;
    }
    return o;
fail:
    json_decref(data);
    json_decref(e);
    json_decref(o);
    return NULL;
}

json_t *kd_jsonrpc_notification(const char *method, json_t *params)
{
    json_t *o = json_object();

    if (o == NULL)
        goto fail;
    if (json_object_set_new(o, "jsonrpc", json_string("2.0")) != 0 ||
        json_object_set_new(o, "method", json_string(method)) != 0)
        goto fail;
    if (params != NULL) {
        json_t *p = params;

        params = NULL;
        if (json_object_set_new(o, "params", p) != 0)
            goto fail;
    }
    return o;
fail:
    json_decref(params);
    json_decref(o);
    return NULL;
}

char *kd_jsonrpc_dumps(const json_t *msg)
{
    if (msg == NULL)
        return NULL;
    /* JSON_COMPACT never emits a raw newline: those inside strings are
     * escaped, which is what newline-delimited stdio framing needs. */
    return json_dumps(msg, JSON_COMPACT | JSON_ENCODE_ANY);
}
