/*
 * server.c — the MCP server object: registries of tools, resources and
 * prompts, the list of live sessions, and the messages the server sends on
 * its own (resource updates, list changes, log messages).
 *
 * The MCP methods themselves live in server_methods.c. Registration copies
 * everything it is given and prebuilds the JSON objects the list methods
 * return, so a tools/list is a few reference-count increments under the
 * server lock. See server_int.h for the lock order.
 */
#include "mcp/server/server_int.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/logger.h"

static const char *const PROTOCOLS[] = {"2025-11-25", "2025-06-18", "2025-03-26"};

static const char *const LEVEL_NAMES[] = {"debug", "info",     "notice", "warning",
                                          "error", "critical", "alert",  "emergency"};

#define DEFAULT_MAX_MESSAGE (1024u * 1024u)
#define DEFAULT_MAX_SUBS 256u
#define DEFAULT_RATE 50u
#define DEFAULT_PAGE 100u

int kd_mcp_protocol_supported(const char *version)
{
    size_t i;

    if (version == NULL)
        return 0;
    for (i = 0; i < sizeof PROTOCOLS / sizeof PROTOCOLS[0]; i++)
        if (strcmp(version, PROTOCOLS[i]) == 0)
            return 1;
    return 0;
}

int kd_mcp_log_level_parse(const char *name, kd_mcp_log_level *out)
{
    size_t i;

    if (name == NULL)
        return -1;
    for (i = 0; i < sizeof LEVEL_NAMES / sizeof LEVEL_NAMES[0]; i++) {
        if (strcmp(name, LEVEL_NAMES[i]) == 0) {
            *out = (kd_mcp_log_level)i;
            return 0;
        }
    }
    return -1;
}

const char *kd_mcp_log_level_name(kd_mcp_log_level level)
{
    if ((unsigned)level >= sizeof LEVEL_NAMES / sizeof LEVEL_NAMES[0])
        return "debug";
    return LEVEL_NAMES[level];
}

static uint64_t monotonic_ns(void *ctx)
{
    struct timespec t;

    (void)ctx;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Sets key to a copy of `s` when `s` is not NULL; 0 on success. */
static int set_opt_str(json_t *o, const char *key, const char *s)
{
    if (s == NULL)
        return 0;
    return json_object_set_new(o, key, json_string(s));
}

static json_t *parse_json(const char *what, const char *name, const char *text, int want_array);

kd_err kd_mcp_server_alloc(const kd_mcp_server_options *opts, kd_mcp_server **out)
{
    kd_mcp_server *srv = NULL;
    kd_err err = KD_ERR_NOMEM;

    *out = NULL;
    if (opts == NULL || opts->name == NULL || opts->version == NULL) {
        KD_LOG_E("mcp", "server: a name and a version are required");
        return KD_ERR_INVALID_ARG;
    }
    srv = calloc(1, sizeof *srv);
    if (srv == NULL)
        return KD_ERR_NOMEM;
    if (pthread_mutex_init(&srv->lock, NULL) != 0) {
        free(srv);
        return KD_ERR_NOMEM;
    }
    srv->read_only = opts->read_only != 0;
    srv->max_message_bytes = opts->max_message_bytes ? opts->max_message_bytes : DEFAULT_MAX_MESSAGE;
    srv->max_subscriptions = opts->max_subscriptions ? opts->max_subscriptions : DEFAULT_MAX_SUBS;
    srv->calls_per_second = opts->calls_per_second ? opts->calls_per_second : DEFAULT_RATE;
    srv->call_burst = opts->call_burst ? opts->call_burst : 2 * srv->calls_per_second;
    srv->page_size = opts->page_size ? opts->page_size : DEFAULT_PAGE;
    srv->clock_ns = opts->clock_ns ? opts->clock_ns : monotonic_ns;
    srv->clock_ctx = opts->clock_ns ? opts->clock_ctx : NULL;
    srv->default_level = KD_MCP_LOG_WARNING;
    if (opts->default_log_level != NULL && kd_mcp_log_level_parse(opts->default_log_level, &srv->default_level) != 0) {
        KD_LOG_E("mcp",
                 "server: unknown default log level \"%s\" (debug, info, notice, "
                 "warning, error, critical, alert, emergency)",
                 opts->default_log_level);
        err = KD_ERR_INVALID_ARG;
        goto fail;
    }
    srv->server_info = json_object();
    srv->templates = json_array();
    if (srv->server_info == NULL || srv->templates == NULL)
        goto fail;
    if (set_opt_str(srv->server_info, "name", opts->name) != 0 ||
        set_opt_str(srv->server_info, "title", opts->title) != 0 ||
        set_opt_str(srv->server_info, "version", opts->version) != 0)
        goto fail;
    if (opts->instructions != NULL && (srv->instructions = strdup(opts->instructions)) == NULL)
        goto fail;
    if (opts->extensions_json != NULL &&
        (srv->extensions = parse_json("extensions", opts->name, opts->extensions_json, 0)) == NULL) {
        err = KD_ERR_PARSE;
        goto fail;
    }
    *out = srv;
    return KD_OK;
fail:
    kd_mcp_server_free(srv);
    return err;
}

void kd_mcp_server_free(kd_mcp_server *srv)
{
    size_t i;

    if (srv == NULL)
        return;
    if (srv->sessions != NULL)
        KD_LOG_E("mcp", "server freed while sessions are still open (a transport leaked one)");
    for (i = 0; i < srv->n_tools; i++) {
        free(srv->tools[i].name);
        json_decref(srv->tools[i].def);
    }
    for (i = 0; i < srv->n_prompts; i++) {
        free(srv->prompts[i].name);
        json_decref(srv->prompts[i].def);
    }
    free(srv->tools);
    free(srv->prompts);
    free(srv->providers);
    json_decref(srv->templates);
    json_decref(srv->server_info);
    json_decref(srv->extensions);
    free(srv->instructions);
    pthread_mutex_destroy(&srv->lock);
    free(srv);
}

size_t kd_mcp_server_max_message_bytes(const kd_mcp_server *srv) { return srv->max_message_bytes; }

/* Tool names per MCP 2025-11-25: 1-128 of [A-Za-z0-9_.-]. */
static int valid_name(const char *name)
{
    size_t n;

    if (name == NULL)
        return 0;
    n = strlen(name);
    if (n == 0 || n > 128)
        return 0;
    return strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") == n;
}

/* Parses a JSON text that must be an object (or array when want_array). */
static json_t *parse_json(const char *what, const char *name, const char *text, int want_array)
{
    json_error_t jerr;
    json_t *v = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);

    if (v == NULL) {
        KD_LOG_E("mcp", "%s of \"%s\" is not JSON: %s (line %d)", what, name, jerr.text, jerr.line);
        return NULL;
    }
    if (want_array ? !json_is_array(v) : !json_is_object(v)) {
        KD_LOG_E("mcp", "%s of \"%s\" must be a JSON %s", what, name, want_array ? "array" : "object");
        json_decref(v);
        return NULL;
    }
    return v;
}

/* Grows an array of `size`-byte items to hold one more. */
static int grow(void **items, size_t *cap, size_t n, size_t size)
{
    void *p;
    size_t c;

    if (n < *cap)
        return 0;
    c = *cap ? *cap * 2 : 8;
    p = realloc(*items, c * size);
    if (p == NULL)
        return -1;
    *items = p;
    *cap = c;
    return 0;
}

static json_t *tool_def(const kd_mcp_tool *t, json_t *input, json_t *output, json_t *meta)
{
    json_t *def = json_object(), *ann = json_object();

    if (def == NULL || ann == NULL)
        goto fail;
    if (json_object_set_new(ann, "readOnlyHint", json_boolean(t->read_only_hint)) != 0 ||
        json_object_set_new(ann, "destructiveHint", json_boolean(t->destructive_hint)) != 0 ||
        json_object_set_new(ann, "idempotentHint", json_boolean(t->idempotent_hint)) != 0 ||
        json_object_set_new(ann, "openWorldHint", json_boolean(t->open_world_hint)) != 0 ||
        set_opt_str(ann, "title", t->title) != 0)
        goto fail;
    if (set_opt_str(def, "name", t->name) != 0 || set_opt_str(def, "title", t->title) != 0 ||
        set_opt_str(def, "description", t->description) != 0 || json_object_set(def, "inputSchema", input) != 0 ||
        (output != NULL && json_object_set(def, "outputSchema", output) != 0) ||
        (meta != NULL && json_object_set(def, "_meta", meta) != 0))
        goto fail;
    if (json_object_set_new(def, "annotations", ann) != 0) {
        ann = NULL;
        goto fail;
    }
    return def;
fail:
    json_decref(ann);
    json_decref(def);
    return NULL;
}

kd_err kd_mcp_server_add_tool(kd_mcp_server *srv, const kd_mcp_tool *t)
{
    json_t *input = NULL, *output = NULL, *meta = NULL, *def = NULL;
    char *name = NULL;
    kd_err err = KD_ERR_PARSE;
    size_t i;

    if (t == NULL || !valid_name(t->name) || (t->call == NULL && t->call_encoded == NULL)) {
        KD_LOG_E("mcp", "add_tool: a tool needs a name of 1-128 [A-Za-z0-9_.-] and a callback");
        return KD_ERR_INVALID_ARG;
    }
    input = t->input_schema_json ? parse_json("inputSchema", t->name, t->input_schema_json, 0)
                                 : json_pack("{s:s}", "type", "object");
    if (input == NULL)
        goto fail;
    if (t->output_schema_json != NULL &&
        (output = parse_json("outputSchema", t->name, t->output_schema_json, 0)) == NULL)
        goto fail;
    if (t->meta_json != NULL && (meta = parse_json("_meta", t->name, t->meta_json, 0)) == NULL)
        goto fail;
    err = KD_ERR_NOMEM;
    def = tool_def(t, input, output, meta);
    name = strdup(t->name);
    if (def == NULL || name == NULL)
        goto fail;
    pthread_mutex_lock(&srv->lock);
    for (i = 0; i < srv->n_tools; i++) {
        if (strcmp(srv->tools[i].name, name) == 0) {
            pthread_mutex_unlock(&srv->lock);
            KD_LOG_E("mcp", "add_tool: a tool named \"%s\" is already registered", name);
            err = KD_ERR_EXISTS;
            goto fail;
        }
    }
    if (grow((void **)&srv->tools, &srv->cap_tools, srv->n_tools, sizeof *srv->tools) != 0) {
        pthread_mutex_unlock(&srv->lock);
        goto fail;
    }
    srv->tools[srv->n_tools++] = (kd_mcp_tool_entry){
        .name = name,
        .writes = t->writes != 0,
        .quick = t->quick != 0,
        .def = def,
        .input_schema = json_object_get(def, "inputSchema"),
        .call = t->call,
        .call_encoded = t->call_encoded,
        .ctx = t->ctx,
    };
    pthread_mutex_unlock(&srv->lock);
    json_decref(input);
    json_decref(output);
    json_decref(meta);
    return KD_OK;
fail:
    free(name);
    json_decref(def);
    json_decref(meta);
    json_decref(output);
    json_decref(input);
    return err;
}

int kd_mcp_server_is_quick(kd_mcp_server *srv, const kd_jsonrpc_msg *msg)
{
    const char *name;
    int quick = 1;
    size_t i;

    if (msg->kind != KD_JSONRPC_REQUEST || strcmp(msg->method, "tools/call") != 0)
        return 1;
    name = json_string_value(json_object_get(msg->params, "name"));
    if (name == NULL)
        return 1; /* answered with an error at once */
    pthread_mutex_lock(&srv->lock);
    for (i = 0; i < srv->n_tools; i++) {
        if (strcmp(srv->tools[i].name, name) == 0) {
            quick = srv->tools[i].quick;
            break;
        }
    }
    pthread_mutex_unlock(&srv->lock);
    return quick;
}

kd_err kd_mcp_server_add_resource_provider(kd_mcp_server *srv, const kd_mcp_resource_provider *p)
{
    if (p == NULL || p->read == NULL) {
        KD_LOG_E("mcp", "add_resource_provider: a provider needs a read callback");
        return KD_ERR_INVALID_ARG;
    }
    pthread_mutex_lock(&srv->lock);
    if (grow((void **)&srv->providers, &srv->cap_providers, srv->n_providers, sizeof *srv->providers) != 0) {
        pthread_mutex_unlock(&srv->lock);
        return KD_ERR_NOMEM;
    }
    srv->providers[srv->n_providers++] = *p;
    pthread_mutex_unlock(&srv->lock);
    return KD_OK;
}

kd_err kd_mcp_server_add_resource_template(kd_mcp_server *srv, const kd_mcp_resource_template *t)
{
    json_t *o;
    int rc;

    if (t == NULL || t->uri_template == NULL || t->name == NULL) {
        KD_LOG_E("mcp", "add_resource_template: a template needs a uri_template and a name");
        return KD_ERR_INVALID_ARG;
    }
    o = json_object();
    if (o == NULL || set_opt_str(o, "uriTemplate", t->uri_template) != 0 || set_opt_str(o, "name", t->name) != 0 ||
        set_opt_str(o, "title", t->title) != 0 || set_opt_str(o, "description", t->description) != 0 ||
        set_opt_str(o, "mimeType", t->mime_type) != 0) {
        json_decref(o);
        return KD_ERR_NOMEM;
    }
    pthread_mutex_lock(&srv->lock);
    rc = json_array_append_new(srv->templates, o);
    pthread_mutex_unlock(&srv->lock);
    return rc == 0 ? KD_OK : KD_ERR_NOMEM;
}

kd_err kd_mcp_server_add_prompt(kd_mcp_server *srv, const kd_mcp_prompt *p)
{
    json_t *args = NULL, *def = NULL;
    char *name = NULL;
    kd_err err = KD_ERR_PARSE;
    size_t i;

    if (p == NULL || !valid_name(p->name) || p->get == NULL) {
        KD_LOG_E("mcp", "add_prompt: a prompt needs a name of 1-128 [A-Za-z0-9_.-] and a callback");
        return KD_ERR_INVALID_ARG;
    }
    if (p->arguments_json != NULL) {
        const json_t *a;

        if ((args = parse_json("arguments", p->name, p->arguments_json, 1)) == NULL)
            goto fail;
        json_array_foreach(args, i, a)
        {
            if (!json_is_string(json_object_get(a, "name"))) {
                KD_LOG_E("mcp", "add_prompt: every argument of \"%s\" needs a name", p->name);
                goto fail;
            }
        }
    }
    err = KD_ERR_NOMEM;
    def = json_object();
    name = strdup(p->name);
    if (def == NULL || name == NULL || set_opt_str(def, "name", p->name) != 0 ||
        set_opt_str(def, "title", p->title) != 0 || set_opt_str(def, "description", p->description) != 0 ||
        (args != NULL && json_object_set(def, "arguments", args) != 0))
        goto fail;
    pthread_mutex_lock(&srv->lock);
    for (i = 0; i < srv->n_prompts; i++) {
        if (strcmp(srv->prompts[i].name, name) == 0) {
            pthread_mutex_unlock(&srv->lock);
            KD_LOG_E("mcp", "add_prompt: a prompt named \"%s\" is already registered", name);
            err = KD_ERR_EXISTS;
            goto fail;
        }
    }
    if (grow((void **)&srv->prompts, &srv->cap_prompts, srv->n_prompts, sizeof *srv->prompts) != 0) {
        pthread_mutex_unlock(&srv->lock);
        goto fail;
    }
    srv->prompts[srv->n_prompts++] = (kd_mcp_prompt_entry){
        .name = name,
        .def = def,
        .args = json_object_get(def, "arguments"),
        .get = p->get,
        .ctx = p->ctx,
    };
    pthread_mutex_unlock(&srv->lock);
    json_decref(args);
    return KD_OK;
fail:
    free(name);
    json_decref(def);
    json_decref(args);
    return err;
}

/* ---- sessions ---------------------------------------------------------- */

kd_err kd_mcp_session_alloc(kd_mcp_server *srv, kd_mcp_send_fn send, void *send_ctx, kd_mcp_session **out)
{
    kd_mcp_session *s;

    *out = NULL;
    s = calloc(1, sizeof *s);
    if (s == NULL)
        return KD_ERR_NOMEM;
    if (pthread_mutex_init(&s->lock, NULL) != 0) {
        free(s);
        return KD_ERR_NOMEM;
    }
    s->srv = srv;
    s->send = send;
    s->send_ctx = send_ctx;
    s->level = srv->default_level;
    s->tokens = srv->call_burst;
    s->refilled_ns = srv->clock_ns(srv->clock_ctx);
    s->refs = 1;
    atomic_init(&s->principal, NULL);
    pthread_mutex_lock(&srv->lock);
    s->next = srv->sessions;
    if (srv->sessions != NULL)
        srv->sessions->prev = s;
    srv->sessions = s;
    pthread_mutex_unlock(&srv->lock);
    *out = s;
    return KD_OK;
}

static void session_destroy(kd_mcp_session *s)
{
    size_t i;

    for (i = 0; i < s->n_subs; i++)
        free(s->subs[i]);
    free(s->subs);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

static void session_unref(kd_mcp_session *s)
{
    kd_mcp_server *srv = s->srv;
    unsigned refs;

    pthread_mutex_lock(&srv->lock);
    refs = --s->refs;
    pthread_mutex_unlock(&srv->lock);
    if (refs == 0)
        session_destroy(s);
}

void kd_mcp_session_free(kd_mcp_session *s)
{
    kd_mcp_server *srv;

    if (s == NULL)
        return;
    srv = s->srv;
    pthread_mutex_lock(&srv->lock);
    if (s->prev != NULL)
        s->prev->next = s->next;
    else
        srv->sessions = s->next;
    if (s->next != NULL)
        s->next->prev = s->prev;
    s->prev = s->next = NULL;
    pthread_mutex_unlock(&srv->lock);
    /* Waiting for s->lock also waits out a delivery in progress. */
    pthread_mutex_lock(&s->lock);
    s->closed = 1;
    s->send = NULL;
    s->send_ctx = NULL;
    pthread_mutex_unlock(&s->lock);
    session_unref(s);
}

int kd_mcp_session_initialized(kd_mcp_session *s)
{
    int v;

    pthread_mutex_lock(&s->lock);
    v = s->initialized;
    pthread_mutex_unlock(&s->lock);
    return v;
}

const char *kd_mcp_session_protocol(kd_mcp_session *s)
{
    const char *v;

    pthread_mutex_lock(&s->lock);
    v = s->protocol;
    pthread_mutex_unlock(&s->lock);
    return v;
}

void kd_mcp_session_set_user(kd_mcp_session *s, void *user)
{
    pthread_mutex_lock(&s->lock);
    s->user = user;
    pthread_mutex_unlock(&s->lock);
}

void *kd_mcp_session_user(kd_mcp_session *s)
{
    void *u;

    pthread_mutex_lock(&s->lock);
    u = s->user;
    pthread_mutex_unlock(&s->lock);
    return u;
}

void kd_mcp_session_set_principal(kd_mcp_session *s, const void *principal) { atomic_store(&s->principal, principal); }

const void *kd_mcp_session_principal(const kd_mcp_session *s) { return atomic_load(&s->principal); }

int kd_mcp_session_take_token(kd_mcp_session *s)
{
    kd_mcp_server *srv = s->srv;
    uint64_t now;
    int ok;

    pthread_mutex_lock(&s->lock);
    /* Read under the lock, so that the refill times of one session never
     * go backwards when two of its requests race. */
    now = srv->clock_ns(srv->clock_ctx);
    if (now > s->refilled_ns) {
        s->tokens += (double)(now - s->refilled_ns) / 1e9 * srv->calls_per_second;
        if (s->tokens > srv->call_burst)
            s->tokens = srv->call_burst;
        s->refilled_ns = now;
    }
    ok = s->tokens >= 1.0;
    if (ok)
        s->tokens -= 1.0;
    pthread_mutex_unlock(&s->lock);
    return ok;
}

void kd_mcp_session_deliver(kd_mcp_session *s, const char *text)
{
    pthread_mutex_lock(&s->lock);
    if (!s->closed && s->initialized && s->send != NULL)
        s->send(s->send_ctx, text);
    pthread_mutex_unlock(&s->lock);
}

kd_err kd_mcp_session_notify(kd_mcp_session *s, const char *method, json_t *params)
{
    json_t *msg = kd_jsonrpc_notification(method, params);
    char *text = kd_jsonrpc_dumps(msg);
    kd_err err = KD_OK;

    json_decref(msg);
    if (text == NULL)
        return KD_ERR_NOMEM;
    pthread_mutex_lock(&s->lock);
    if (!s->closed && s->initialized && s->send != NULL)
        s->send(s->send_ctx, text);
    else
        err = KD_ERR_CLOSED;
    pthread_mutex_unlock(&s->lock);
    free(text);
    return err;
}

/* notifications/message params; steals data. */
static json_t *log_params(kd_mcp_log_level level, const char *logger, json_t *data)
{
    json_t *p = json_object();

    if (p == NULL)
        goto fail;
    if (json_object_set_new(p, "level", json_string(kd_mcp_log_level_name(level))) != 0 ||
        set_opt_str(p, "logger", logger) != 0)
        goto fail;
    if (json_object_set_new(p, "data", data != NULL ? data : json_null()) != 0)
        data = NULL;
    else
        return p;
fail:
    json_decref(data);
    json_decref(p);
    return NULL;
}

void kd_mcp_session_log(kd_mcp_session *s, kd_mcp_log_level level, const char *logger, json_t *data)
{
    json_t *p;
    int wanted;

    pthread_mutex_lock(&s->lock);
    wanted = level >= s->level;
    pthread_mutex_unlock(&s->lock);
    if (!wanted) {
        json_decref(data);
        return;
    }
    p = log_params(level, logger, data);
    if (p != NULL && kd_mcp_session_notify(s, "notifications/message", p) == KD_ERR_NOMEM)
        KD_LOG_W("mcp", "out of memory: a log message for the client was dropped");
}

/* ---- broadcasts -------------------------------------------------------- */

typedef int (*want_fn)(kd_mcp_session *s, const void *arg); /* called under s->lock */

static int want_subscribed(kd_mcp_session *s, const void *arg)
{
    size_t i;

    for (i = 0; i < s->n_subs; i++)
        if (strcmp(s->subs[i], (const char *)arg) == 0)
            return 1;
    return 0;
}

static int want_level(kd_mcp_session *s, const void *arg) { return *(const kd_mcp_log_level *)arg >= s->level; }

/* Sends `msg` (stolen) to every open, initialized session that `want`
 * (NULL: every one) accepts. */
static void broadcast(kd_mcp_server *srv, json_t *msg, want_fn want, const void *arg)
{
    kd_mcp_session **list = NULL, *s;
    size_t n = 0, i;
    char *text = kd_jsonrpc_dumps(msg);

    json_decref(msg);
    if (text == NULL) {
        KD_LOG_E("mcp", "out of memory building a notification; it was dropped");
        return;
    }
    pthread_mutex_lock(&srv->lock);
    for (s = srv->sessions; s != NULL; s = s->next)
        n++;
    if (n > 0 && (list = malloc(n * sizeof *list)) == NULL) {
        pthread_mutex_unlock(&srv->lock);
        KD_LOG_E("mcp", "out of memory sending a notification to %zu sessions; it was dropped", n);
        free(text);
        return;
    }
    for (i = 0, s = srv->sessions; s != NULL; s = s->next, i++) {
        s->refs++;
        list[i] = s;
    }
    pthread_mutex_unlock(&srv->lock);
    for (i = 0; i < n; i++) {
        s = list[i];
        pthread_mutex_lock(&s->lock);
        if (!s->closed && s->initialized && s->send != NULL && (want == NULL || want(s, arg)))
            s->send(s->send_ctx, text);
        pthread_mutex_unlock(&s->lock);
        session_unref(s);
    }
    free(list);
    free(text);
}

void kd_mcp_server_notify_resource_updated(kd_mcp_server *srv, const char *uri)
{
    json_t *params;

    if (uri == NULL || (params = json_pack("{s:s}", "uri", uri)) == NULL)
        return;
    broadcast(srv, kd_jsonrpc_notification("notifications/resources/updated", params), want_subscribed, uri);
}

void kd_mcp_server_notify_list_changed(kd_mcp_server *srv, kd_mcp_list which)
{
    static const char *const METHODS[] = {
        [KD_MCP_LIST_TOOLS] = "notifications/tools/list_changed",
        [KD_MCP_LIST_RESOURCES] = "notifications/resources/list_changed",
        [KD_MCP_LIST_PROMPTS] = "notifications/prompts/list_changed",
    };

    if ((unsigned)which > KD_MCP_LIST_PROMPTS)
        return;
    broadcast(srv, kd_jsonrpc_notification(METHODS[which], NULL), NULL, NULL);
}

void kd_mcp_server_log(kd_mcp_server *srv, kd_mcp_log_level level, const char *logger, json_t *data)
{
    json_t *params = log_params(level, logger, data);

    if (params != NULL)
        broadcast(srv, kd_jsonrpc_notification("notifications/message", params), want_level, &level);
}

/* ---- result helpers (tool results and replies: server_reply.c) ---------- */

json_t *kd_mcp_text_contents(const char *uri, const char *mime_type, const char *text)
{
    json_t *c = json_object(), *arr;

    if (c == NULL || set_opt_str(c, "uri", uri) != 0 || set_opt_str(c, "mimeType", mime_type) != 0 ||
        json_object_set_new(c, "text", json_string(text != NULL ? text : "")) != 0) {
        json_decref(c);
        return NULL;
    }
    arr = json_array();
    if (arr == NULL) {
        json_decref(c);
        return NULL;
    }
    if (json_array_append_new(arr, c) != 0) {
        json_decref(arr);
        return NULL;
    }
    return arr;
}
