/*
 * server.h — a generic, transport-independent MCP server.
 *
 * A kd_mcp_server holds what every client sees: the server's identity, the
 * registered tools, resource providers, resource templates and prompts, and
 * the limits. A kd_mcp_session is one client conversation (the stdio
 * connection, or one Mcp-Session-Id over HTTP): its lifecycle state, the
 * negotiated protocol version, its log level, its resource subscriptions and
 * its call-rate budget. The transports (stdio.h, http.h) read messages,
 * hand each to kd_mcp_session_handle_msg and write the reply; messages the
 * server sends on its own (notifications/resources/updated, list_changed,
 * notifications/message) leave through the send callback each session was
 * created with. Nothing here knows about episodes; the gateway binds its
 * tools through this API.
 *
 * Protocol revisions: 2025-11-25 (latest), 2025-06-18 and 2025-03-26. An
 * initialize naming one of them is answered with it; any other gets the
 * latest, and the client decides whether to continue.
 *
 * Threading: every function here may be called from any thread unless its
 * comment says otherwise. Callbacks (tools, providers, prompts) run on the
 * thread of the transport that received the request, with no lock held, and
 * may run concurrently with each other, also within one session. A
 * transport that serves many clients from a few event threads (HTTP) runs
 * a tool that is not marked `quick` on a worker; everything else (other
 * methods, resource providers, prompts, quick tools) may run on an event
 * thread, so it must answer promptly and never wait on other events.
 */
#ifndef KD_MCP_SERVER_H
#define KD_MCP_SERVER_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "engine/err.h"
#include "mcp/server/jsonrpc.h"

typedef struct kd_mcp_server kd_mcp_server;
typedef struct kd_mcp_session kd_mcp_session;
typedef struct kd_mcp_encoded kd_mcp_encoded; /* a tool result encoded once (below) */

/* The MCP log levels (RFC 5424 severities), least severe first. */
typedef enum {
    KD_MCP_LOG_DEBUG = 0,
    KD_MCP_LOG_INFO,
    KD_MCP_LOG_NOTICE,
    KD_MCP_LOG_WARNING,
    KD_MCP_LOG_ERROR,
    KD_MCP_LOG_CRITICAL,
    KD_MCP_LOG_ALERT,
    KD_MCP_LOG_EMERGENCY,
} kd_mcp_log_level;

/* Which list changed, for kd_mcp_server_notify_list_changed. */
typedef enum {
    KD_MCP_LIST_TOOLS,
    KD_MCP_LIST_RESOURCES,
    KD_MCP_LIST_PROMPTS,
} kd_mcp_list;

#define KD_MCP_PROTOCOL_LATEST "2025-11-25"

/* Server options. Zero means the default given in brackets. */
typedef struct {
    const char *name;              /* serverInfo.name (required) */
    const char *title;             /* serverInfo.title (optional) */
    const char *version;           /* serverInfo.version (required) */
    const char *instructions;      /* InitializeResult.instructions (optional) */
    int read_only;                 /* hide and refuse tools with `writes` set */
    size_t max_message_bytes;      /* one inbound message [1 MiB] */
    unsigned max_subscriptions;    /* resources/subscribe per session [256] */
    unsigned calls_per_second;     /* sustained requests per session [50] */
    unsigned call_burst;           /* requests allowed at once [2 * rate] */
    unsigned page_size;            /* items per page of the list methods [100] */
    const char *default_log_level; /* before logging/setLevel ["warning"] */
    /* Protocol extensions the server offers (capabilities.extensions, as
     * in MCP Apps: {"io.modelcontextprotocol/ui": {}}): a JSON object text,
     * or NULL for none. Parsed at alloc (KD_ERR_PARSE when it is not an
     * object). */
    const char *extensions_json;
    /* The clock of the call-rate limit, in nanoseconds on any monotonic
     * scale [CLOCK_MONOTONIC]. Tests inject their own so that the limit
     * does not depend on how fast the machine runs. Called from any
     * thread, with a session lock held: it must be thread-safe and must
     * not call into the server. */
    uint64_t (*clock_ns)(void *ctx);
    void *clock_ctx;
} kd_mcp_server_options;

/*
 * A tool. Strings are copied at registration; schemas are JSON texts parsed
 * then (each must be an object; input_schema NULL means {"type":"object"}).
 *
 * call: runs the tool with `arguments` (a borrowed object, already checked
 * against input_schema). It returns a CallToolResult object (new reference),
 * normally built with kd_mcp_tool_result or kd_mcp_tool_error — a failure the
 * model should see and can correct (unknown episode, illegal move) is such a
 * result with isError. For a protocol-level failure it returns NULL and may
 * set *rpc_code (e.g. KD_JSONRPC_INVALID_PARAMS) and a message in rpc_msg;
 * NULL with *rpc_code left 0 is answered with -32603.
 */
typedef struct {
    const char *name; /* 1-128 chars of [A-Za-z0-9_.-] */
    const char *title, *description;
    const char *input_schema_json, *output_schema_json;
    int read_only_hint, destructive_hint, idempotent_hint, open_world_hint;
    /* The tool's _meta (a JSON object text, or NULL): what hosts read
     * beside the definition, e.g. MCP Apps' {"ui": {"resourceUri": ...}}. */
    const char *meta_json;
    int writes; /* hidden when the server is read-only */
    int quick;  /* answers at once, waiting on nothing (reads, computes):
                   it may run on a transport's event thread (see above) */
    json_t *(*call)(void *ctx, kd_mcp_session *s, json_t *arguments, int *rpc_code, char *rpc_msg, size_t rpc_msg_len);
    /* Optional, in place of call: the result already encoded
     * (kd_mcp_encoded_alloc), a reference the server drops once the reply
     * is written. For tools that answer many readers with one result
     * encoded once (a cache); NULL with the same convention as call. */
    kd_mcp_encoded *(*call_encoded)(void *ctx, kd_mcp_session *s, json_t *arguments, int *rpc_code, char *rpc_msg,
                                    size_t rpc_msg_len);
    void *ctx;
} kd_mcp_tool;

/*
 * A resource provider: a dynamic set of resources. Providers are asked in
 * registration order.
 *
 * list: appends Resource objects ({uri, name, title?, description?,
 *   mimeType?}) to `out` (a borrowed array). NULL means it lists nothing
 *   (template-only providers). An error fails resources/list with -32603.
 * read: for a URI it serves, sets *contents to a new array of resource
 *   contents (kd_mcp_text_contents builds one) and returns KD_OK; returns
 *   KD_ERR_NOT_FOUND for a URI it does not serve or that names nothing
 *   (the next provider is asked; when none serves it the client gets
 *   -32002); any other error is answered with -32603.
 */
typedef struct {
    const char *name; /* for logs */
    kd_err (*list)(void *ctx, kd_mcp_session *s, json_t *out);
    kd_err (*read)(void *ctx, kd_mcp_session *s, const char *uri, json_t **contents);
    void *ctx;
} kd_mcp_resource_provider;

/* A resource template (RFC 6570 uri_template), listed by
 * resources/templates/list. Strings are copied. */
typedef struct {
    const char *uri_template, *name, *title, *description, *mime_type;
} kd_mcp_resource_template;

/*
 * A prompt. arguments_json is a JSON array of PromptArgument objects
 * ({name, description?, required?}), NULL for none; the server checks that
 * required arguments are present and that every value is a string before
 * calling get. get returns a GetPromptResult ({description?, messages[]})
 * as a new reference, or NULL with the same error convention as tools.
 */
typedef struct {
    const char *name, *title, *description;
    const char *arguments_json;
    json_t *(*get)(void *ctx, kd_mcp_session *s, json_t *arguments, int *rpc_code, char *rpc_msg, size_t rpc_msg_len);
    void *ctx;
} kd_mcp_prompt;

/*
 * Delivers one server-initiated message (a compact one-line JSON text,
 * borrowed for the call) to the session's client. Called with the session's
 * delivery lock held, from any thread; it must not call back into the
 * session or the server, and should not block for long.
 */
typedef void (*kd_mcp_send_fn)(void *ctx, const char *json_text);

/* What one handled message was, for transports that answer differently. */
typedef struct {
    kd_jsonrpc_kind kind; /* the message's kind (INVALID for bad ones) */
    int initialized_now;  /* it was an initialize that succeeded */
    int rate_limited;     /* refused by the per-session call rate limit */
} kd_mcp_handle_info;

/* ---- server ------------------------------------------------------------ */

/*
 * Creates a server. Errors: KD_ERR_INVALID_ARG (name or version missing),
 * KD_ERR_PARSE (extensions_json is not a JSON object), KD_ERR_NOMEM. The server must outlive every session and
 * transport that uses it.
 */
kd_err kd_mcp_server_alloc(const kd_mcp_server_options *opts, kd_mcp_server **out) KD_WARN_UNUSED;

/* Frees the server; every session must have been freed first. NULL is a no-op. */
void kd_mcp_server_free(kd_mcp_server *srv);

/*
 * Registers a tool, a resource provider, a template or a prompt. Usually
 * done before the transports start, but safe at any time (send
 * kd_mcp_server_notify_list_changed afterwards). Errors: KD_ERR_INVALID_ARG
 * (bad name, missing callback), KD_ERR_PARSE (a schema, meta_json or
 * arguments_json is not the JSON it should be), KD_ERR_EXISTS (the name is taken), KD_ERR_NOMEM.
 * The callbacks' ctx must stay valid while the server lives.
 */
kd_err kd_mcp_server_add_tool(kd_mcp_server *srv, const kd_mcp_tool *tool) KD_WARN_UNUSED;
kd_err kd_mcp_server_add_resource_provider(kd_mcp_server *srv, const kd_mcp_resource_provider *p) KD_WARN_UNUSED;
kd_err kd_mcp_server_add_resource_template(kd_mcp_server *srv, const kd_mcp_resource_template *t) KD_WARN_UNUSED;
kd_err kd_mcp_server_add_prompt(kd_mcp_server *srv, const kd_mcp_prompt *prompt) KD_WARN_UNUSED;

/* Sends notifications/resources/updated {uri} to every session subscribed
 * to exactly `uri`. */
void kd_mcp_server_notify_resource_updated(kd_mcp_server *srv, const char *uri);

/* Sends notifications/{tools,resources,prompts}/list_changed to every
 * initialized session. */
void kd_mcp_server_notify_list_changed(kd_mcp_server *srv, kd_mcp_list which);

/* Sends notifications/message to every initialized session whose log level
 * admits `level`. `data` (any JSON value) is stolen; `logger` may be NULL. */
void kd_mcp_server_log(kd_mcp_server *srv, kd_mcp_log_level level, const char *logger, json_t *data);

/* 1 when handling `msg` waits on nothing, so a transport may handle it on
 * an event thread: any message but a tools/call of a registered tool not
 * marked quick. */
int kd_mcp_server_is_quick(kd_mcp_server *srv, const kd_jsonrpc_msg *msg);

/* 1 when `version` (may be NULL) is a protocol revision this server speaks. */
int kd_mcp_protocol_supported(const char *version);

/* The limits in force (defaults applied). */
size_t kd_mcp_server_max_message_bytes(const kd_mcp_server *srv);

/* ---- sessions ---------------------------------------------------------- */

/*
 * Creates a session in the "not initialized" state. `send` (may be NULL:
 * server messages are then dropped) receives server-initiated messages
 * until kd_mcp_session_free. Errors: KD_ERR_NOMEM.
 */
kd_err kd_mcp_session_alloc(kd_mcp_server *srv, kd_mcp_send_fn send, void *send_ctx,
                            kd_mcp_session **out) KD_WARN_UNUSED;

/*
 * Ends a session. After it returns, `send` is never called again for it.
 * The caller must ensure no kd_mcp_session_handle* call on it is running or
 * will start (the transports count in-flight requests). NULL is a no-op.
 */
void kd_mcp_session_free(kd_mcp_session *s);

/*
 * Handles one inbound message text and produces the reply text: a
 * malloc'd compact JSON line the caller frees with free(), or NULL when the
 * message gets no reply (a notification or a response). Any bytes are
 * accepted: malformed input is answered with a JSON-RPC error, never a
 * crash. Returns KD_OK, or KD_ERR_NOMEM (no reply could be built).
 */
kd_err kd_mcp_session_handle(kd_mcp_session *s, const char *msg, size_t len, char **reply_out) KD_WARN_UNUSED;

/* The same for a message the transport already parsed; `info` (may be NULL)
 * tells what it was. The message is borrowed. */
kd_err kd_mcp_session_handle_msg(kd_mcp_session *s, const kd_jsonrpc_msg *msg, char **reply_out,
                                 kd_mcp_handle_info *info) KD_WARN_UNUSED;

/* 1 once initialize has been answered successfully. */
int kd_mcp_session_initialized(kd_mcp_session *s);

/* The negotiated protocol revision (static storage), NULL before initialize. */
const char *kd_mcp_session_protocol(kd_mcp_session *s);

/* An opaque pointer for the embedding program (e.g. per-session state of
 * the gateway). Not interpreted or freed here. */
void kd_mcp_session_set_user(kd_mcp_session *s, void *user);
void *kd_mcp_session_user(kd_mcp_session *s);

/*
 * Who the session is: an opaque pointer the program gave the transport for
 * the credential the session was opened with (the gateway's grant of seats
 * for a bearer token over HTTP, or the seats a stdio process was started
 * for). NULL means no grant: the public. The transport sets it before the
 * session handles its first message and never changes it afterwards; the
 * server neither interprets nor frees it, so it must outlive the session.
 * Reading it is thread-safe (tool, provider and prompt callbacks may call
 * kd_mcp_session_principal on any thread).
 */
void kd_mcp_session_set_principal(kd_mcp_session *s, const void *principal);
const void *kd_mcp_session_principal(const kd_mcp_session *s);

/* Sends notifications/message to this session if its level admits `level`
 * and it is initialized. `data` is stolen. Useful inside tool callbacks. */
void kd_mcp_session_log(kd_mcp_session *s, kd_mcp_log_level level, const char *logger, json_t *data);

/* Sends an arbitrary notification (params stolen, may be NULL) to this
 * session if it is initialized. Errors: KD_ERR_NOMEM, KD_ERR_CLOSED. */
kd_err kd_mcp_session_notify(kd_mcp_session *s, const char *method, json_t *params) KD_WARN_UNUSED;

/* ---- result helpers ---------------------------------------------------- */

/* A successful CallToolResult: content [{type:"text", text}] plus
 * structuredContent when `structured` is not NULL (stolen). With text NULL
 * the text is the compact JSON of `structured`: null in the object
 * returned, written when the reply is encoded (once for both). NULL when
 * out of memory. */
json_t *kd_mcp_tool_result(json_t *structured, const char *text);

/* A failed CallToolResult (isError: true) with `text` as its content. */
json_t *kd_mcp_tool_error(const char *text);

/*
 * A CallToolResult encoded once as compact JSON, immutable and reference
 * counted, so that one answer can be the reply to many requests (each
 * reply is its envelope around these bytes). Thread-safe: references may
 * be taken and dropped on any thread.
 */
/* Encodes `result` (stolen; a kd_mcp_tool_result or kd_mcp_tool_error)
 * with one reference for the caller; NULL when out of memory. */
kd_mcp_encoded *kd_mcp_encoded_alloc(json_t *result);
/* Takes one more reference; returns `e`. */
kd_mcp_encoded *kd_mcp_encoded_ref(kd_mcp_encoded *e);
/* Drops a reference; the last frees it. NULL is a no-op. */
void kd_mcp_encoded_free(kd_mcp_encoded *e);
/* The JSON text (NUL-terminated) and its length in bytes, valid while a
 * reference is held. */
const char *kd_mcp_encoded_text(const kd_mcp_encoded *e, size_t *len);

/* [{uri, mimeType?, text}]: the contents array of a text resource. */
json_t *kd_mcp_text_contents(const char *uri, const char *mime_type, const char *text);

/* Parses "debug".."emergency"; returns 0 and sets *out, or -1. */
int kd_mcp_log_level_parse(const char *name, kd_mcp_log_level *out);
const char *kd_mcp_log_level_name(kd_mcp_log_level level);

#endif
