/*
 * server_methods.c — the MCP methods: one handler per method, a dispatch
 * table, and kd_mcp_session_handle*, the transport-independent entry point
 * that turns one inbound message into at most one reply.
 *
 * Session lifecycle (per MCP 2025-11-25 "Lifecycle"):
 *
 *      new ──initialize ok──▶ initialized ──notifications/initialized──▶ ready
 *       │                        │
 *       └ ping only; other       └ every method; a second initialize is
 *         requests → -32600        refused with -32600
 *
 * Requests are served as soon as initialize has been answered (a client
 * whose initialized notification was lost keeps working); server-initiated
 * messages go only to initialized sessions. Unknown members and `_meta` are
 * ignored everywhere. Params are checked here (wrong type → -32602) so that
 * callbacks only see the shapes they were promised.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/logger.h"
#include "mcp/server/schema.h"
#include "mcp/server/server_int.h"

#define MAX_URI 4096

typedef struct {
    kd_mcp_session *s;
    json_t *params; /* object or NULL */
    int code;       /* error when non-zero */
    char msg[512];
    json_t *data; /* error data (owned) */
    kd_mcp_handle_info *info;
    kd_mcp_encoded *encoded; /* a result already encoded (owned); the method then returns JSON null */
} call;

typedef json_t *(*method_fn)(call *c);

static json_t *fail(call *c, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static json_t *fail(call *c, int code, const char *fmt, ...)
{
    va_list ap;

    c->code = code;
    va_start(ap, fmt);
    vsnprintf(c->msg, sizeof c->msg, fmt, ap);
    va_end(ap);
    return NULL;
}

/* A string member of params, or NULL with -32602 set when required. */
static const char *str_param(call *c, const char *key, int required)
{
    json_t *v = json_object_get(c->params, key);

    if (v == NULL && !required)
        return NULL;
    if (!json_is_string(v)) {
        fail(c, KD_JSONRPC_INVALID_PARAMS, "Invalid params: \"%s\" must be a string", key);
        return NULL;
    }
    return json_string_value(v);
}

static json_t *empty_result(void) { return json_object(); }

/* ---- pagination -------------------------------------------------------- */

/*
 * Cursors are opaque to clients; here they are the decimal offset of the
 * next item. Returns {key: page, nextCursor?}; steals `all`.
 */
static json_t *paginate(call *c, json_t *all, const char *key)
{
    unsigned page = c->s->srv->page_size;
    const char *cursor = NULL;
    size_t off = 0, n = json_array_size(all), i;
    json_t *out = NULL, *arr = NULL;
    json_t *cv = json_object_get(c->params, "cursor");

    if (all == NULL)
        return fail(c, KD_JSONRPC_INTERNAL_ERROR, "Internal error: out of memory");
    if (cv != NULL && !json_is_null(cv)) {
        char *end;
        unsigned long long v;

        if (!json_is_string(cv)) {
            fail(c, KD_JSONRPC_INVALID_PARAMS, "Invalid params: \"cursor\" must be a string");
            goto fail;
        }
        cursor = json_string_value(cv);
        v = strtoull(cursor, &end, 10);
        if (cursor[0] < '0' || cursor[0] > '9' || *end != '\0' || v > n) {
            fail(c, KD_JSONRPC_INVALID_PARAMS, "Invalid params: unknown cursor; use the nextCursor of a previous page");
            goto fail;
        }
        off = (size_t)v;
    }
    if ((arr = json_array()) == NULL || (out = json_object()) == NULL)
        goto nomem;
    for (i = off; i < n && i - off < page; i++)
        if (json_array_append(arr, json_array_get(all, i)) != 0)
            goto nomem;
    if (json_object_set_new(out, key, arr) != 0) {
        arr = NULL;
        goto nomem;
    }
    arr = NULL;
    if (i < n) {
        char next[32];

        snprintf(next, sizeof next, "%zu", i);
        if (json_object_set_new(out, "nextCursor", json_string(next)) != 0)
            goto nomem;
    }
    json_decref(all);
    return out;
nomem:
    fail(c, KD_JSONRPC_INTERNAL_ERROR, "Internal error: out of memory");
fail:
    json_decref(arr);
    json_decref(out);
    json_decref(all);
    return NULL;
}

/* ---- lifecycle, ping, logging ----------------------------------------- */

static json_t *capabilities(const kd_mcp_server *srv)
{
    json_t *caps = json_pack("{s:{},s:{s:b},s:{s:b,s:b},s:{s:b}}", "logging", "prompts", "listChanged", 1, "resources",
                             "subscribe", 1, "listChanged", 1, "tools", "listChanged", 1);
    if (caps != NULL && srv->extensions != NULL && json_object_set(caps, "extensions", srv->extensions) != 0) {
        json_decref(caps);
        return NULL;
    }
    return caps;
}

static json_t *m_initialize(call *c)
{
    kd_mcp_session *s = c->s;
    kd_mcp_server *srv = s->srv;
    const char *asked = str_param(c, "protocolVersion", 1);
    const char *chosen = KD_MCP_PROTOCOL_LATEST;
    json_t *r;
    int again;

    if (asked == NULL)
        return NULL;
    if (kd_mcp_protocol_supported(asked))
        chosen = asked; /* points into params: replaced by the static copy below */
    r = json_pack("{s:s,s:o,s:O}", "protocolVersion", chosen, "capabilities", capabilities(srv), "serverInfo",
                  srv->server_info);
    if (r == NULL)
        return fail(c, KD_JSONRPC_INTERNAL_ERROR, "Internal error: out of memory");
    if (srv->instructions != NULL && json_object_set_new(r, "instructions", json_string(srv->instructions)) != 0) {
        json_decref(r);
        return fail(c, KD_JSONRPC_INTERNAL_ERROR, "Internal error: out of memory");
    }
    pthread_mutex_lock(&s->lock);
    again = s->initialized;
    if (!again) {
        s->initialized = 1;
        s->protocol = KD_MCP_PROTOCOL_LATEST;
        if (strcmp(chosen, "2025-06-18") == 0)
            s->protocol = "2025-06-18";
        else if (strcmp(chosen, "2025-03-26") == 0)
            s->protocol = "2025-03-26";
    }
    pthread_mutex_unlock(&s->lock);
    if (again) {
        json_decref(r);
        return fail(c, KD_JSONRPC_INVALID_REQUEST, "Invalid Request: the session is already initialized");
    }
    if (c->info != NULL)
        c->info->initialized_now = 1;
    KD_LOG_I("mcp", "session initialized, protocol %s (client asked for %.40s)", s->protocol, asked);
    return r;
}

static json_t *m_ping(call *c)
{
    (void)c;
    return empty_result();
}

static json_t *m_set_level(call *c)
{
    const char *name = str_param(c, "level", 1);
    kd_mcp_log_level level;

    if (name == NULL)
        return NULL;
    if (kd_mcp_log_level_parse(name, &level) != 0)
        return fail(c, KD_JSONRPC_INVALID_PARAMS,
                    "Invalid params: unknown level \"%.40s\" (debug, info, notice, warning, error, "
                    "critical, alert, emergency)",
                    name);
    pthread_mutex_lock(&c->s->lock);
    c->s->level = level;
    pthread_mutex_unlock(&c->s->lock);
    return empty_result();
}

/* ---- tools ------------------------------------------------------------- */

static json_t *m_tools_list(call *c)
{
    kd_mcp_server *srv = c->s->srv;
    json_t *all = json_array();
    size_t i;
    int bad = all == NULL;

    pthread_mutex_lock(&srv->lock);
    for (i = 0; !bad && i < srv->n_tools; i++)
        if (!(srv->read_only && srv->tools[i].writes))
            bad = json_array_append(all, srv->tools[i].def) != 0;
    pthread_mutex_unlock(&srv->lock);
    if (bad) {
        json_decref(all);
        all = NULL;
    }
    return paginate(c, all, "tools");
}

static json_t *m_tools_call(call *c)
{
    kd_mcp_server *srv = c->s->srv;
    const char *name = str_param(c, "name", 1);
    json_t *args = json_object_get(c->params, "arguments"), *schema = NULL, *own_args = NULL, *r;
    kd_mcp_tool_entry t = {0};
    char why[300];
    size_t i;
    int rpc_code = 0;

    if (name == NULL)
        return NULL;
    if (args != NULL && !json_is_object(args))
        return fail(c, KD_JSONRPC_INVALID_PARAMS, "Invalid params: \"arguments\" must be an object");
    pthread_mutex_lock(&srv->lock);
    for (i = 0; i < srv->n_tools; i++) {
        if (strcmp(srv->tools[i].name, name) == 0 && !(srv->read_only && srv->tools[i].writes)) {
            t = srv->tools[i];
            schema = json_incref(t.input_schema);
            break;
        }
    }
    pthread_mutex_unlock(&srv->lock);
    if (t.call == NULL && t.call_encoded == NULL)
        return fail(c, KD_JSONRPC_INVALID_PARAMS, "Invalid params: unknown tool \"%.64s\"%s", name,
                    srv->read_only ? " (the server is read-only; tools that write are hidden)" : "");
    if (args == NULL && (args = own_args = json_object()) == NULL) {
        json_decref(schema);
        return fail(c, KD_JSONRPC_INTERNAL_ERROR, "Internal error: out of memory");
    }
    /* A bad argument is a tool execution error the model can correct. */
    if (!kd_mcp_schema_check(schema, args, why, sizeof why)) {
        json_decref(schema);
        json_decref(own_args);
        r = kd_mcp_tool_error(why);
        return r != NULL ? r : fail(c, KD_JSONRPC_INTERNAL_ERROR, "Internal error: out of memory");
    }
    json_decref(schema);
    c->msg[0] = '\0';
    if (t.call_encoded != NULL) {
        c->encoded = t.call_encoded(t.ctx, c->s, args, &rpc_code, c->msg, sizeof c->msg);
        r = c->encoded != NULL ? json_null() : NULL;
    } else {
        r = t.call(t.ctx, c->s, args, &rpc_code, c->msg, sizeof c->msg);
    }
    json_decref(own_args);
    if (r != NULL && c->encoded == NULL && !json_is_object(r)) {
        KD_LOG_E("mcp", "tool \"%s\" returned a JSON value that is not an object", t.name);
        json_decref(r);
        r = NULL;
        rpc_code = 0;
    }
    if (r == NULL) {
        if (rpc_code == 0 || c->msg[0] == '\0')
            return fail(c, rpc_code ? rpc_code : KD_JSONRPC_INTERNAL_ERROR, "Internal error: tool \"%.64s\" failed",
                        name);
        c->code = rpc_code;
    }
    return r;
}

/* ---- resources --------------------------------------------------------- */

/* Copies the provider table so that callbacks run without the lock. */
static kd_mcp_resource_provider *providers(kd_mcp_server *srv, size_t *n)
{
    kd_mcp_resource_provider *p;

    pthread_mutex_lock(&srv->lock);
    *n = srv->n_providers;
    p = malloc((*n ? *n : 1) * sizeof *p);
    if (p != NULL && *n > 0)
        memcpy(p, srv->providers, *n * sizeof *p);
    pthread_mutex_unlock(&srv->lock);
    return p;
}

static json_t *m_resources_list(call *c)
{
    size_t n, i;
    kd_mcp_resource_provider *p = providers(c->s->srv, &n);
    json_t *all = json_array();
    kd_err err;

    if (p == NULL || all == NULL) {
        free(p);
        json_decref(all);
        return fail(c, KD_JSONRPC_INTERNAL_ERROR, "Internal error: out of memory");
    }
    for (i = 0; i < n; i++) {
        if (p[i].list == NULL)
            continue;
        err = p[i].list(p[i].ctx, c->s, all);
        if (err != KD_OK) {
            KD_LOG_W("mcp", "resources/list: provider %s failed: %s", p[i].name ? p[i].name : "?", kd_err_code(err));
            free(p);
            json_decref(all);
            return fail(c, KD_JSONRPC_INTERNAL_ERROR, "Internal error: listing resources failed: %s", kd_err_str(err));
        }
    }
    free(p);
    return paginate(c, all, "resources");
}

static json_t *m_templates_list(call *c)
{
    kd_mcp_server *srv = c->s->srv;
    json_t *all;

    pthread_mutex_lock(&srv->lock);
    all = json_copy(srv->templates);
    pthread_mutex_unlock(&srv->lock);
    return paginate(c, all, "resourceTemplates");
}

/* A URI worth keeping: a scheme, then printable non-space ASCII or UTF-8. */
static const char *uri_param(call *c)
{
    const char *uri = str_param(c, "uri", 1);
    size_t n, i;

    if (uri == NULL)
        return NULL;
    n = strlen(uri);
    i = strspn(uri, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+.-");
    if (n == 0 || n > MAX_URI || i == 0 || uri[i] != ':' ||
        !((uri[0] >= 'a' && uri[0] <= 'z') || (uri[0] >= 'A' && uri[0] <= 'Z')))
        goto bad;
    for (i = 0; i < n; i++)
        if ((unsigned char)uri[i] <= 0x20 || uri[i] == 0x7f)
            goto bad;
    return uri;
bad:
    fail(c, KD_JSONRPC_INVALID_PARAMS,
         "Invalid params: \"uri\" must be an absolute URI (scheme:...) of at most %d bytes "
         "without spaces or control characters",
         MAX_URI);
    return NULL;
}

static json_t *m_resources_read(call *c)
{
    const char *uri = uri_param(c);
    size_t n, i;
    kd_mcp_resource_provider *p;
    json_t *contents = NULL;
    kd_err err = KD_ERR_NOT_FOUND;

    if (uri == NULL)
        return NULL;
    if ((p = providers(c->s->srv, &n)) == NULL)
        return fail(c, KD_JSONRPC_INTERNAL_ERROR, "Internal error: out of memory");
    for (i = 0; i < n && err == KD_ERR_NOT_FOUND; i++) {
        contents = NULL;
        err = p[i].read(p[i].ctx, c->s, uri, &contents);
        if (err != KD_OK) {
            json_decref(contents);
            contents = NULL;
        }
    }
    free(p);
    if (err == KD_ERR_NOT_FOUND) {
        c->data = json_pack("{s:s}", "uri", uri);
        return fail(c, KD_MCP_RESOURCE_NOT_FOUND, "Resource not found: %.200s", uri);
    }
    if (err != KD_OK || !json_is_array(contents)) {
        json_decref(contents);
        return fail(c, KD_JSONRPC_INTERNAL_ERROR, "Internal error: reading %.200s failed: %s", uri,
                    err != KD_OK ? kd_err_str(err) : "the provider returned no contents array");
    }
    return json_pack("{s:o}", "contents", contents);
}

static json_t *m_subscribe(call *c)
{
    kd_mcp_session *s = c->s;
    const char *uri = uri_param(c);
    size_t i;
    char *copy;

    if (uri == NULL)
        return NULL;
    pthread_mutex_lock(&s->lock);
    for (i = 0; i < s->n_subs; i++) {
        if (strcmp(s->subs[i], uri) == 0) {
            pthread_mutex_unlock(&s->lock);
            return empty_result(); /* idempotent */
        }
    }
    if (s->n_subs >= s->srv->max_subscriptions) {
        pthread_mutex_unlock(&s->lock);
        return fail(c, KD_MCP_LIMIT_EXCEEDED,
                    "Subscription limit reached: at most %u subscriptions per session; "
                    "unsubscribe from one first",
                    s->srv->max_subscriptions);
    }
    if (s->n_subs == s->cap_subs) {
        size_t cap = s->cap_subs ? s->cap_subs * 2 : 8;
        char **subs = realloc(s->subs, cap * sizeof *subs);

        if (subs == NULL)
            goto nomem;
        s->subs = subs;
        s->cap_subs = cap;
    }
    if ((copy = strdup(uri)) == NULL)
        goto nomem;
    s->subs[s->n_subs++] = copy;
    pthread_mutex_unlock(&s->lock);
    return empty_result();
nomem:
    pthread_mutex_unlock(&s->lock);
    return fail(c, KD_JSONRPC_INTERNAL_ERROR, "Internal error: out of memory");
}

static json_t *m_unsubscribe(call *c)
{
    kd_mcp_session *s = c->s;
    const char *uri = uri_param(c);
    size_t i;

    if (uri == NULL)
        return NULL;
    pthread_mutex_lock(&s->lock);
    for (i = 0; i < s->n_subs; i++) {
        if (strcmp(s->subs[i], uri) == 0) {
            free(s->subs[i]);
            s->subs[i] = s->subs[--s->n_subs];
            break;
        }
    }
    pthread_mutex_unlock(&s->lock);
    return empty_result();
}

/* ---- prompts ----------------------------------------------------------- */

static json_t *m_prompts_list(call *c)
{
    kd_mcp_server *srv = c->s->srv;
    json_t *all = json_array();
    size_t i;
    int bad = all == NULL;

    pthread_mutex_lock(&srv->lock);
    for (i = 0; !bad && i < srv->n_prompts; i++)
        bad = json_array_append(all, srv->prompts[i].def) != 0;
    pthread_mutex_unlock(&srv->lock);
    if (bad) {
        json_decref(all);
        all = NULL;
    }
    return paginate(c, all, "prompts");
}

static json_t *m_prompts_get(call *c)
{
    kd_mcp_server *srv = c->s->srv;
    const char *name = str_param(c, "name", 1), *key;
    json_t *args = json_object_get(c->params, "arguments"), *decl = NULL, *own = NULL, *r, *a;
    kd_mcp_prompt_entry p = {0};
    size_t i;
    int rpc_code = 0;

    if (name == NULL)
        return NULL;
    if (args != NULL && !json_is_object(args))
        return fail(c, KD_JSONRPC_INVALID_PARAMS, "Invalid params: \"arguments\" must be an object");
    pthread_mutex_lock(&srv->lock);
    for (i = 0; i < srv->n_prompts; i++) {
        if (strcmp(srv->prompts[i].name, name) == 0) {
            p = srv->prompts[i];
            decl = json_incref(p.args);
            break;
        }
    }
    pthread_mutex_unlock(&srv->lock);
    if (p.get == NULL)
        return fail(c, KD_JSONRPC_INVALID_PARAMS, "Invalid params: unknown prompt \"%.64s\"", name);
    json_object_foreach(args, key, a)
    {
        if (!json_is_string(a)) {
            json_decref(decl);
            return fail(c, KD_JSONRPC_INVALID_PARAMS, "Invalid params: prompt argument \"%.64s\" must be a string",
                        key);
        }
    }
    json_array_foreach(decl, i, a)
    {
        const char *an = json_string_value(json_object_get(a, "name"));

        if (json_is_true(json_object_get(a, "required")) && json_object_get(args, an) == NULL) {
            fail(c, KD_JSONRPC_INVALID_PARAMS, "Invalid params: prompt \"%.64s\" needs the argument \"%.64s\"", name,
                 an);
            json_decref(decl);
            return NULL;
        }
    }
    json_decref(decl);
    if (args == NULL && (args = own = json_object()) == NULL)
        return fail(c, KD_JSONRPC_INTERNAL_ERROR, "Internal error: out of memory");
    c->msg[0] = '\0';
    r = p.get(p.ctx, c->s, args, &rpc_code, c->msg, sizeof c->msg);
    json_decref(own);
    if (r != NULL && c->encoded == NULL && !json_is_object(r)) {
        json_decref(r);
        r = NULL;
        rpc_code = 0;
    }
    if (r == NULL) {
        if (rpc_code == 0 || c->msg[0] == '\0')
            return fail(c, rpc_code ? rpc_code : KD_JSONRPC_INTERNAL_ERROR, "Internal error: prompt \"%.64s\" failed",
                        name);
        c->code = rpc_code;
    }
    return r;
}

/* ---- dispatch ---------------------------------------------------------- */

static const struct {
    const char *name;
    method_fn fn;
    int before_init; /* allowed before initialize */
} METHODS[] = {
    {"initialize", m_initialize, 1},
    {"ping", m_ping, 1},
    {"logging/setLevel", m_set_level, 0},
    {"tools/list", m_tools_list, 0},
    {"tools/call", m_tools_call, 0},
    {"resources/list", m_resources_list, 0},
    {"resources/templates/list", m_templates_list, 0},
    {"resources/read", m_resources_read, 0},
    {"resources/subscribe", m_subscribe, 0},
    {"resources/unsubscribe", m_unsubscribe, 0},
    {"prompts/list", m_prompts_list, 0},
    {"prompts/get", m_prompts_get, 0},
};

static void handle_notification(kd_mcp_session *s, const kd_jsonrpc_msg *m)
{
    if (strcmp(m->method, "notifications/initialized") == 0) {
        pthread_mutex_lock(&s->lock);
        s->client_ready = s->initialized;
        pthread_mutex_unlock(&s->lock);
        if (!s->client_ready)
            KD_LOG_D("mcp", "notifications/initialized before initialize: ignored");
    } else if (strcmp(m->method, "notifications/cancelled") == 0) {
        /* Requests are answered synchronously, so by the time a cancel
         * arrives the request has usually completed; nothing to stop. */
        KD_LOG_D("mcp", "notifications/cancelled received (requests are not interruptible)");
    } else {
        KD_LOG_D("mcp", "notification %.64s ignored", m->method);
    }
}

/* Runs one request; returns the reply object (new reference). A result
 * already encoded goes to *encoded (owned by the caller), the reply's
 * result then being JSON null in its place. */
static json_t *handle_request(kd_mcp_session *s, const kd_jsonrpc_msg *m, kd_mcp_handle_info *info,
                              kd_mcp_encoded **encoded)
{
    call c;
    json_t *result, *reply;
    size_t i;
    int ready;

    memset(&c, 0, sizeof c);
    c.s = s;
    c.info = info;
    for (i = 0; i < sizeof METHODS / sizeof METHODS[0]; i++)
        if (strcmp(m->method, METHODS[i].name) == 0)
            break;
    if (i == sizeof METHODS / sizeof METHODS[0]) {
        snprintf(c.msg, sizeof c.msg, "Method not found: %.100s", m->method);
        return kd_jsonrpc_error(m->id, KD_JSONRPC_METHOD_NOT_FOUND, c.msg, NULL);
    }
    ready = kd_mcp_session_initialized(s);
    if (!ready && !METHODS[i].before_init)
        return kd_jsonrpc_error(m->id, KD_JSONRPC_INVALID_REQUEST,
                                "Invalid Request: the session is not initialized; send initialize "
                                "first",
                                NULL);
    if (m->params != NULL && !json_is_object(m->params))
        return kd_jsonrpc_error(m->id, KD_JSONRPC_INVALID_PARAMS, "Invalid params: \"params\" must be an object", NULL);
    if (ready && strcmp(m->method, "ping") != 0 && !kd_mcp_session_take_token(s)) {
        if (info != NULL)
            info->rate_limited = 1;
        snprintf(c.msg, sizeof c.msg,
                 "Rate limit exceeded: at most %u requests per second per session (bursts of %u); "
                 "retry shortly",
                 s->srv->calls_per_second, s->srv->call_burst);
        return kd_jsonrpc_error(m->id, KD_MCP_LIMIT_EXCEEDED, c.msg, NULL);
    }
    c.params = m->params;
    result = METHODS[i].fn(&c);
    *encoded = c.encoded;
    if (result != NULL)
        return kd_jsonrpc_result(m->id, result);
    if (c.code == 0)
        c.code = KD_JSONRPC_INTERNAL_ERROR;
    if (c.msg[0] == '\0')
        snprintf(c.msg, sizeof c.msg, "Internal error");
    reply = kd_jsonrpc_error(m->id, c.code, c.msg, c.data);
    return reply;
}

kd_err kd_mcp_session_handle_msg(kd_mcp_session *s, const kd_jsonrpc_msg *m, char **reply_out, kd_mcp_handle_info *info)
{
    json_t *reply = NULL;
    kd_mcp_encoded *encoded = NULL;

    *reply_out = NULL;
    if (info != NULL) {
        memset(info, 0, sizeof *info);
        info->kind = m->kind;
    }
    switch (m->kind) {
    case KD_JSONRPC_INVALID:
        reply = kd_jsonrpc_error(m->id, m->error_code, m->error_message, NULL);
        break;
    case KD_JSONRPC_REQUEST:
        reply = handle_request(s, m, info, &encoded);
        break;
    case KD_JSONRPC_NOTIFICATION:
        handle_notification(s, m);
        return KD_OK;
    case KD_JSONRPC_RESPONSE:
        /* This server sends no requests, so no response is expected. */
        KD_LOG_D("mcp", "a response from the client was ignored (no request is pending)");
        return KD_OK;
    }
    if (reply == NULL) {
        kd_mcp_encoded_free(encoded);
        return KD_ERR_NOMEM;
    }
    *reply_out = encoded != NULL ? kd_mcp_reply_encoded(reply, encoded) : kd_mcp_reply_dumps(reply);
    kd_mcp_encoded_free(encoded);
    json_decref(reply);
    return *reply_out != NULL ? KD_OK : KD_ERR_NOMEM;
}

kd_err kd_mcp_session_handle(kd_mcp_session *s, const char *msg, size_t len, char **reply_out)
{
    kd_jsonrpc_msg m;
    kd_err err;

    *reply_out = NULL;
    if (len > s->srv->max_message_bytes) {
        memset(&m, 0, sizeof m);
        m.kind = KD_JSONRPC_INVALID;
        m.error_code = KD_JSONRPC_INVALID_REQUEST;
        snprintf(m.error_message, sizeof m.error_message,
                 "Invalid Request: the message has %zu bytes; the limit is %zu", len, s->srv->max_message_bytes);
    } else {
        kd_err perr = kd_jsonrpc_parse(msg, len, &m);

        if (perr != KD_OK) /* answered from m.error_code below */
            KD_LOG_D("mcp", "invalid message (%s): %s", kd_err_code(perr), m.error_message);
    }
    err = kd_mcp_session_handle_msg(s, &m, reply_out, NULL);
    kd_jsonrpc_msg_fini(&m);
    return err;
}
