/*
 * server_int.h — the inside of kd_mcp_server and kd_mcp_session, shared by
 * server.c (registries, sessions, server-initiated messages) and
 * server_methods.c (the MCP methods). Not part of the public API.
 *
 * Locking, outermost first:
 *
 *   srv->lock      registries, the session list, session reference counts
 *   s->lock        one session's state and its send callback
 *   (transport)    whatever the send callback takes (stdio write lock,
 *                  HTTP session queue lock)
 *
 * A lock is never taken while a later one in this list is held, and no lock
 * is held while a tool, provider or prompt callback runs. Broadcasts take a
 * reference on each target session under srv->lock, release it, then deliver
 * under each session's own lock, so a slow client stalls only itself.
 */
#ifndef KD_MCP_SERVER_INT_H
#define KD_MCP_SERVER_INT_H

#include <pthread.h>
#include <stdatomic.h>

#include "mcp/server/server.h"

typedef struct {
    char *name;
    int writes, quick;
    json_t *def;          /* the Tool object listed by tools/list */
    json_t *input_schema; /* borrowed from def */
    json_t *(*call)(void *ctx, kd_mcp_session *s, json_t *arguments, int *rpc_code, char *rpc_msg, size_t rpc_msg_len);
    kd_mcp_encoded *(*call_encoded)(void *ctx, kd_mcp_session *s, json_t *arguments, int *rpc_code, char *rpc_msg,
                                    size_t rpc_msg_len); /* or NULL: call */
    void *ctx;
} kd_mcp_tool_entry;

typedef struct {
    char *name;
    json_t *def;  /* the Prompt object listed by prompts/list */
    json_t *args; /* borrowed from def: its "arguments" array or NULL */
    json_t *(*get)(void *ctx, kd_mcp_session *s, json_t *arguments, int *rpc_code, char *rpc_msg, size_t rpc_msg_len);
    void *ctx;
} kd_mcp_prompt_entry;

struct kd_mcp_server {
    pthread_mutex_t lock;
    json_t *server_info; /* immutable after alloc */
    char *instructions;  /* immutable after alloc, may be NULL */
    json_t *extensions;  /* capabilities.extensions: immutable, may be NULL */
    int read_only;
    size_t max_message_bytes;
    unsigned max_subscriptions, calls_per_second, call_burst, page_size;
    kd_mcp_log_level default_level;
    uint64_t (*clock_ns)(void *ctx); /* the call-rate clock, never NULL */
    void *clock_ctx;

    kd_mcp_tool_entry *tools;
    size_t n_tools, cap_tools;
    kd_mcp_resource_provider *providers;
    size_t n_providers, cap_providers;
    json_t *templates; /* array of ResourceTemplate objects */
    kd_mcp_prompt_entry *prompts;
    size_t n_prompts, cap_prompts;

    kd_mcp_session *sessions; /* doubly linked through prev/next */
};

struct kd_mcp_session {
    kd_mcp_server *srv;
    kd_mcp_session *prev, *next; /* srv->lock */
    unsigned refs;               /* srv->lock */

    pthread_mutex_t lock; /* everything below */
    int initialized;      /* initialize answered */
    int client_ready;     /* notifications/initialized received */
    int closed;           /* kd_mcp_session_free called */
    const char *protocol; /* static string, NULL before initialize */
    kd_mcp_log_level level;
    char **subs;
    size_t n_subs, cap_subs;
    kd_mcp_send_fn send;
    void *send_ctx;
    double tokens;        /* call-rate token bucket */
    uint64_t refilled_ns; /* srv->clock_ns at the last refill */
    void *user;
    /* Set once by the transport before the first message, read by
     * callbacks on any thread: atomic rather than under s->lock, so the
     * getter can take a const session. */
    _Atomic(const void *) principal;
};

/* Delivers `text` to `s` if it is open and initialized. Takes s->lock. */
void kd_mcp_session_deliver(kd_mcp_session *s, const char *text);

/* The text of a reply (a response envelope whose "result" is its last
 * member), with the text of a kd_mcp_tool_result left null filled with
 * the structured content's JSON, encoded once for both (server_reply.c). NULL
 * when out of memory. May fill in `reply`'s text. */
char *kd_mcp_reply_dumps(json_t *reply);
/* The text of `reply`, a response envelope whose "result" (its last
 * member) is JSON null, with the encoded result `e` in its place
 * (server_reply.c). NULL when out of memory. */
char *kd_mcp_reply_encoded(json_t *reply, const kd_mcp_encoded *e);

/* Takes one token from the session's call-rate bucket; 0 when empty. */
int kd_mcp_session_take_token(kd_mcp_session *s);

#endif
