/*
 * gateway_page.c — the board page's routes (kd_gateway_page): the built-in
 * files of mcp/web/ (web_assets.h) and the JSON they read. The page knows
 * no game either: each type may ship its renderer as mcp/web/types/<type>.js
 * (named in the episode's JSON when present), and the page falls back to
 * the type's text board.
 *
 *   /                     index.html: the episode list
 *   /episodes/{id}        episode.html: one episode (its script reads the id)
 *   /<file>               a built-in file: /app.js, /types/<type>.js, ...
 *   /api/episodes         {"episodes": [listing...]}              (token)
 *   /api/episodes/{id}    {"view", "text", "renderer", "audit", "title",
 *                         "rules": the type's title and summary}   (token)
 *   /api/episodes/{id}/audit {"audit", "text"}: kdapp audit of a game
 *   /api/ratings          kdapp://ratings (gateway_ratings.c)      (token)
 *   /api/tables           the lobby: the open tables (gateway_lobby.c) (token)
 *                         that draws (handlers/audit.h; "audit" in the
 *                         episode's JSON names it, null for the others);
 *                         costly: a few a second per client (429 beyond)
 *
 * The events (/api/events) are the transport's (kd_mcp_http_publish), fed
 * by the views thread through kd_gateway_set_view_listener: each carries
 * the episode's listing and its page JSON, so the page draws every view
 * the engine published (a rollback too, however soon the next block
 * follows it) without asking again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handlers/audit.h"
#include "mcp/gateway/gateway_int.h"
#include "mcp/gateway/web_assets.h"

#define API_LIST "/api/episodes"
#define API_ONE "/api/episodes/"
#define API_AUDIT "/audit"
#define API_RATINGS "/api/ratings"
#define API_TABLES "/api/tables"
#define PAGE_ONE "/episodes/"
#define JSON_TYPE "application/json"
#define LIST_MAX 1000 /* episodes in the page's list; the oldest first */

const kd_web_asset *kd_web_asset_find(const char *path)
{
    for (const kd_web_asset *a = kd_web_assets; a->path; a++)
        if (strcmp(a->path, path) == 0)
            return a;
    return NULL;
}

static const char *content_type(const char *path)
{
    static const char *const TYPES[][2] = {{".html", "text/html; charset=utf-8"},
                                           {".css", "text/css; charset=utf-8"},
                                           {".js", "text/javascript; charset=utf-8"},
                                           {".svg", "image/svg+xml"}};
    size_t n = strlen(path);
    for (size_t i = 0; i < sizeof TYPES / sizeof TYPES[0]; i++) {
        size_t m = strlen(TYPES[i][0]);
        if (n >= m && strcmp(path + n - m, TYPES[i][0]) == 0)
            return TYPES[i][1];
    }
    return "application/octet-stream";
}

/* An episode id: 1 to 10 digits, no sign, no leading zero; 0 when not. */
static uint32_t parse_id(const char *s)
{
    size_t n = strspn(s, "0123456789");
    if (n == 0 || n > 10 || s[n] != '\0' || s[0] == '0')
        return 0;
    unsigned long long v = strtoull(s, NULL, 10);
    return v <= UINT32_MAX ? (uint32_t)v : 0;
}

static kd_err answer_text(kd_mcp_http_page *out, unsigned status, const char *ctype, const void *data, size_t len)
{
    out->status = status;
    out->content_type = ctype;
    return kd_buf_append(&out->body, data, len);
}

/* Takes `j` (NULL: out of memory). */
static kd_err answer_json(kd_mcp_http_page *out, unsigned status, json_t *j)
{
    char *text = j ? json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(j);
    if (!text)
        return KD_ERR_NOMEM;
    kd_err err = answer_text(out, status, JSON_TYPE, text, strlen(text));
    free(text);
    return err;
}

static kd_err answer_error(kd_mcp_http_page *out, unsigned status, const char *msg)
{
    return answer_json(out, status, json_pack("{s:s}", "error", msg));
}

static kd_err api_list(kd_gateway *gw, kd_mcp_http_page *out)
{
    json_t *arr = json_array();
    uint32_t after = 0, next = 0;
    kd_err err = arr ? KD_OK : KD_ERR_NOMEM;
    do {
        kd_episode_view *views = NULL;
        size_t n = 0;
        if (!err && (err = kd_gw_read_page(gw, after, 100, &views, &n, &next)) == KD_OK) {
            for (size_t i = 0; i < n; i++) {
                json_t *e = kd_gw_listing_json(&views[i]);
                if (!e || json_array_append_new(arr, e))
                    err = KD_ERR_NOMEM;
                kd_episode_view_fini(&views[i]);
            }
            free(views);
        }
        after = next;
    } while (!err && next && json_array_size(arr) < LIST_MAX);
    if (err) {
        json_decref(arr);
        return err == KD_ERR_NOMEM ? err : answer_error(out, 500, "the episodes could not be read");
    }
    return answer_json(out, 200, json_pack("{s:o}", "episodes", arr));
}

json_t *kd_gw_page_episode_json(const kd_episode_view *v)
{
    char renderer[KD_TYPE_NAME_MAX + 16];
    snprintf(renderer, sizeof renderer, "/types/%s.js", v->type_name);
    kd_buf text;
    kd_buf_init(&text);
    if (!v->deleted && kd_episode_view_render(v, KD_RENDER_UNICODE, &text) != KD_OK)
        text.len = 0; /* nothing to draw: the page says so */
    char audit[64];
    snprintf(audit, sizeof audit, API_ONE "%u" API_AUDIT, (unsigned)v->episode_id);
    int draws = v->type && v->type->draw_of;
    json_t *j = json_pack("{s:o, s:s%, s:o, s:o, s:o, s:o}", "view", kd_episode_view_json(v), "text",
                          text.data ? (const char *)text.data : "", text.len, "renderer",
                          kd_web_asset_find(renderer) ? json_string(renderer) : json_null(), "audit",
                          draws ? json_string(audit) : json_null(), "title",
                          v->type ? json_string(v->type->title) : json_null(), "rules",
                          v->type && v->type->summary ? json_string(v->type->summary) : json_null());
    kd_buf_fini(&text);
    return j;
}

/* The audit of episode `id_text` ("123/audit"): the replay of the log, so
 * the cost grows with the log; behind the page's token like the rest, on
 * a worker of the transport and at a rate per client
 * (kd_gateway_page_costly). */
static kd_err api_audit(kd_gateway *gw, const char *id_text, kd_mcp_http_page *out)
{
    char digits[16];
    size_t n = strlen(id_text) - strlen(API_AUDIT);
    if (n >= sizeof digits)
        return answer_error(out, 404, "no such episode: the id is a positive integer");
    memcpy(digits, id_text, n);
    digits[n] = '\0';
    uint32_t id = parse_id(digits);
    if (!id)
        return answer_error(out, 404, "no such episode: the id is a positive integer");
    json_t *report;
    char why[512];
    kd_err err = kd_audit_episode(gw->o.engine, gw->types, id, &report, why, sizeof why);
    if (err == KD_ERR_NOT_FOUND || err == KD_ERR_UNSUPPORTED || err == KD_ERR_UNKNOWN_TYPE)
        return answer_error(out, 404, why);
    if (err)
        return err == KD_ERR_NOMEM ? err : answer_error(out, 500, why);
    kd_buf text;
    kd_buf_init(&text);
    err = kd_audit_text(report, &text);
    if (!err)
        err = answer_json(
            out, 200, json_pack("{s:o, s:s%}", "audit", report, "text", text.data ? (char *)text.data : "", text.len));
    else
        json_decref(report);
    kd_buf_fini(&text);
    return err;
}

static kd_err api_one(kd_gateway *gw, const char *id_text, kd_mcp_http_page *out)
{
    uint32_t id = parse_id(id_text);
    if (!id)
        return answer_error(out, 404, "no such episode: the id is a positive integer");
    kd_episode_view v;
    kd_episode_view_init(&v);
    kd_err err = kd_gw_read_view(gw, id, &v);
    if (err == KD_ERR_NOT_FOUND)
        err = answer_error(out, 404, "no such episode");
    else if (err)
        err = answer_error(out, 500, "the episode could not be read");
    else if (!v.type)
        err = answer_error(out, 404, "the episode's type is not served here");
    else
        err = answer_json(out, 200, kd_gw_page_episode_json(&v));
    kd_episode_view_fini(&v);
    return err;
}

/* "/api/episodes/<anything>/audit": the audit route (api_audit checks the id). */
static int is_audit(const char *path)
{
    size_t n = strlen(path);
    return strncmp(path, API_ONE, strlen(API_ONE)) == 0 && n > strlen(API_ONE) + strlen(API_AUDIT) &&
           strcmp(path + n - strlen(API_AUDIT), API_AUDIT) == 0;
}

int kd_gateway_page_costly(void *gw, const char *path)
{
    (void)gw;
    return is_audit(path);
}

kd_err kd_gateway_page(void *ctx, const char *path, int authorized, const void *principal, kd_mcp_http_page *out)
{
    kd_gateway *gw = ctx;
    if (strcmp(path, API_RATINGS) == 0) {
        if (!authorized)
            return answer_error(out, 401, "a bearer token is required: open the page as http://HOST:PORT/#token=TOKEN");
        json_t *j;
        kd_err err = kd_gw_ratings_json(gw, NULL, &j, NULL);
        return err ? (err == KD_ERR_NOMEM ? err : answer_error(out, 500, "the ratings could not be computed"))
                   : answer_json(out, 200, j);
    }
    if (strcmp(path, API_TABLES) == 0) {
        if (!authorized)
            return answer_error(out, 401, "a bearer token is required: open the page as http://HOST:PORT/#token=TOKEN");
        json_t *j;
        kd_err err = kd_gw_lobby_json(gw, principal, &j);
        return err ? (err == KD_ERR_NOMEM ? err : answer_error(out, 500, "the open tables could not be read"))
                   : answer_json(out, 200, j);
    }
    if (strcmp(path, API_LIST) == 0 || strncmp(path, API_ONE, strlen(API_ONE)) == 0) {
        if (!authorized)
            return answer_error(out, 401, "a bearer token is required: open the page as http://HOST:PORT/#token=TOKEN");
        if (strcmp(path, API_LIST) == 0)
            return api_list(gw, out);
        if (is_audit(path))
            return api_audit(gw, path + strlen(API_ONE), out);
        return api_one(gw, path + strlen(API_ONE), out);
    }
    const char *file = path;
    if (strcmp(path, "/") == 0)
        file = "/index.html";
    else if (strncmp(path, PAGE_ONE, strlen(PAGE_ONE)) == 0 && parse_id(path + strlen(PAGE_ONE)))
        file = "/episode.html";
    /* The widget's template is served as an MCP resource (gateway_widget.c). */
    const kd_web_asset *a = strcmp(file, "/widget.html") == 0 ? NULL : kd_web_asset_find(file);
    if (!a) {
        static const char NF[] = "Not Found\n";
        return answer_text(out, 404, "text/plain; charset=utf-8", NF, sizeof NF - 1);
    }
    return answer_text(out, 200, content_type(file), a->data, a->len);
}
