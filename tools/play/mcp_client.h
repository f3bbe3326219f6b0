/*
 * mcp_client.h — a small MCP client, enough for `kdapp play`: JSON-RPC 2.0
 * over a child process's stdio (one message per line) or over Streamable
 * HTTP (libcurl), the initialize handshake, tools/call and prompts/get.
 *
 *   stdio   the child gets one end of a socketpair as its stdin and stdout
 *           (its stderr stays ours, so a server's logs reach the terminal);
 *           writes use MSG_NOSIGNAL, so a server that dies is an error,
 *           never a SIGPIPE. The child runs in a process group of its own,
 *           with no signal blocked, so the terminal's Ctrl-C reaches the
 *           client alone, which ends the conversation itself.
 *   http    every request is one POST to the endpoint; the answer may be
 *           application/json or a text/event-stream whose events carry it.
 *           The Mcp-Session-Id from initialize and the negotiated
 *           MCP-Protocol-Version go with every later request; close sends
 *           DELETE.
 *
 * Server-initiated notifications (resources/updated, list_changed, log
 * messages) are read and ignored; a server request is answered: ping with
 * an empty result, anything else with -32601. Every wait is bounded by the
 * request timeout.
 *
 * Threading: a client is used by one thread at a time.
 */
#ifndef KD_TOOLS_MCP_CLIENT_H
#define KD_TOOLS_MCP_CLIENT_H

#include <stdint.h>

#include <jansson.h>

#include "engine/err.h"

#define KD_MCP_CLIENT_TIMEOUT_MS 60000u
#define KD_MCP_CLIENT_PROTOCOL "2025-06-18"

typedef struct kd_mcp_client kd_mcp_client;

/* Exactly one of url, command and argv is set. Strings are copied. */
typedef struct {
    const char *url;          /* Streamable HTTP endpoint, e.g. http://127.0.0.1:8787/mcp */
    const char *command;      /* a stdio server started with /bin/sh -c COMMAND */
    char *const *argv;        /* a stdio server started with execv(argv[0], argv) */
    const char *bearer_token; /* HTTP: sent as "Authorization: Bearer ..." (may be NULL) */
    uint32_t timeout_ms;      /* each request, the handshake included [KD_MCP_CLIENT_TIMEOUT_MS] */
    const char *client_name;  /* clientInfo.name ["kdapp"] */
} kd_mcp_client_options;

/*
 * Starts the server (stdio) or reaches it (HTTP) and runs the initialize
 * handshake. Errors, each with a sentence in `why`: KD_ERR_INVALID_ARG (not
 * exactly one transport), KD_ERR_IO (cannot start the child), KD_ERR_CLOSED
 * (the server exited or closed its output), KD_ERR_TIMEOUT, KD_ERR_NET
 * (HTTP failure or status), KD_ERR_PARSE (an answer that is not JSON-RPC),
 * KD_ERR_UNSUPPORTED (the server refused initialize), KD_ERR_NOMEM.
 */
kd_err kd_mcp_client_open(const kd_mcp_client_options *opts, kd_mcp_client **out, char *why,
                          size_t why_len) KD_WARN_UNUSED;

/*
 * Ends the conversation: stdio closes the child's input and waits (bounded)
 * for it to exit, escalating to SIGTERM then SIGKILL; HTTP sends DELETE.
 * Returns the child's exit status (0 for HTTP or a clean exit, -1 when it
 * had to be killed or could not be waited for). NULL is a no-op returning 0.
 */
int kd_mcp_client_close(kd_mcp_client *c);

/*
 * Sends one request and waits for its answer. `params` is stolen (may be
 * NULL). On KD_OK *result is the result member (a new reference). A
 * request the server refuses under its per-session call rate (it never
 * ran) is sent again every 100 ms for up to 30 s. A JSON-RPC error answer
 * is KD_ERR_UNSUPPORTED with "CODE: message" in `why` and *rpc_code (may
 * be NULL) set; other errors as for open.
 */
kd_err kd_mcp_client_request(kd_mcp_client *c, const char *method, json_t *params, json_t **result, int *rpc_code,
                             char *why, size_t why_len) KD_WARN_UNUSED;

/*
 * tools/call `name` with `arguments` (stolen; NULL means {}). On KD_OK:
 * *structured is the structuredContent (new reference), or, when the
 * result has none, the first text content parsed as JSON when it is JSON,
 * else NULL; *is_error is the result's isError; a tool error's text is
 * copied into `why` (empty otherwise). Errors as for request.
 */
kd_err kd_mcp_client_call_tool(kd_mcp_client *c, const char *name, json_t *arguments, json_t **structured,
                               int *is_error, char *why, size_t why_len) KD_WARN_UNUSED;

/*
 * prompts/get `name` with `arguments` (stolen; values must be strings).
 * On KD_OK *text is the text of every message, joined with blank lines
 * (malloc'd; free with free()). Errors as for request; KD_ERR_PARSE when
 * the result carries no text message.
 */
kd_err kd_mcp_client_get_prompt(kd_mcp_client *c, const char *name, json_t *arguments, char **text, char *why,
                                size_t why_len) KD_WARN_UNUSED;

#endif
