/*
 * jsonrpc.h — JSON-RPC 2.0 framing for the MCP gateway.
 *
 * One inbound message text is parsed and classified as a request (method +
 * id), a notification (method, no id), a response (result or error + id) or
 * an invalid message that carries the JSON-RPC error to answer with (-32700
 * when the text is not JSON, -32600 when it is JSON but not a valid message;
 * a batch array is answered with -32600 because MCP 2025-06-18 and later have
 * no batches). The builders produce the outbound result, error and
 * notification objects, and kd_jsonrpc_dumps renders any of them as one
 * compact line without newlines, which both transports rely on. Nothing here
 * knows MCP methods; that is server.c's job.
 */
#ifndef KD_MCP_JSONRPC_H
#define KD_MCP_JSONRPC_H

#include <stddef.h>

#include <jansson.h>

#include "engine/err.h"

/* Error codes: JSON-RPC 2.0's reserved ones and the MCP-specific ones. */
enum {
    KD_JSONRPC_PARSE_ERROR = -32700,
    KD_JSONRPC_INVALID_REQUEST = -32600,
    KD_JSONRPC_METHOD_NOT_FOUND = -32601,
    KD_JSONRPC_INVALID_PARAMS = -32602,
    KD_JSONRPC_INTERNAL_ERROR = -32603,
    /* MCP: resources/read of a URI that no provider knows. */
    KD_MCP_RESOURCE_NOT_FOUND = -32002,
    /* Implementation-defined server error: a limit was reached (call rate,
     * sessions, subscriptions, streams). The message names the limit. */
    KD_MCP_LIMIT_EXCEEDED = -32000,
};

typedef enum {
    KD_JSONRPC_INVALID = 0,  /* answer with error_code / error_message */
    KD_JSONRPC_REQUEST,      /* method + id: must be answered */
    KD_JSONRPC_NOTIFICATION, /* method, no id: never answered */
    KD_JSONRPC_RESPONSE,     /* result or error + id: a reply to a server request */
} kd_jsonrpc_kind;

/* A parsed message. Every pointer is borrowed from `root` and lives until
 * kd_jsonrpc_msg_fini. */
typedef struct {
    kd_jsonrpc_kind kind;
    json_t *root;       /* the whole message (owned), NULL when not JSON */
    json_t *id;         /* string or integer; NULL for notifications and
                           when an invalid message has no usable id */
    const char *method; /* requests and notifications */
    json_t *params;     /* object or array, NULL when absent */
    int error_code;     /* KD_JSONRPC_INVALID only */
    char error_message[160];
} kd_jsonrpc_msg;

/*
 * Parses and classifies one message of `len` bytes (need not be
 * NUL-terminated; a NUL byte inside is a parse error). Always fills *out, so
 * the caller can answer an invalid message from error_code/error_message and
 * id. Returns KD_OK for a request, notification or response, KD_ERR_PARSE
 * when the text is not JSON (-32700), KD_ERR_INVALID_ARG when it is not a
 * valid JSON-RPC 2.0 message or is a batch (-32600). Call kd_jsonrpc_msg_fini
 * in every case. Thread-safe (no shared state).
 */
kd_err kd_jsonrpc_parse(const char *text, size_t len, kd_jsonrpc_msg *out) KD_WARN_UNUSED;

/* Releases what kd_jsonrpc_parse stored; accepts a zeroed or finished msg. */
void kd_jsonrpc_msg_fini(kd_jsonrpc_msg *msg);

/*
 * Builders. Each returns a new reference or NULL when out of memory. `id` is
 * borrowed (a new reference is taken; NULL becomes JSON null); `result`,
 * `data` and `params` are stolen, also when the call fails.
 */
json_t *kd_jsonrpc_result(json_t *id, json_t *result);
json_t *kd_jsonrpc_error(json_t *id, int code, const char *message, json_t *data);
json_t *kd_jsonrpc_notification(const char *method, json_t *params);

/* Renders `msg` as compact JSON on one line (newlines inside strings are
 * escaped). Returns a malloc'd string the caller frees with free(), or NULL
 * when out of memory. */
char *kd_jsonrpc_dumps(const json_t *msg);

#endif
