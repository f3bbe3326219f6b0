/*
 * gateway_widget.c — the MCP App widget (SEP-1865): the board drawn inside
 * a chat host from the result of a tool that returns a board.
 *
 *   ui://kdapp/board.html             text/html;profile=mcp-app (MCP Apps)
 *   ui://kdapp/board-skybridge.html   text/html+skybridge (OpenAI Apps SDK)
 *
 * Both are one document: mcp/web/widget.html with the page's styles
 * (app.css, widget.css) and scripts (render.js, every types/<type>.js,
 * widget.js) put in where it marks them, so the widget draws each type
 * exactly as the board page does and loads nothing from anywhere. The
 * tools that return a board name it in their _meta (KD_GW_WIDGET_META).
 */
#include <string.h>

#include "engine/logger.h"
#include "mcp/gateway/gateway_int.h"
#include "mcp/gateway/web_assets.h"

#define TEMPLATE "/widget.html" /* not served by the page (gateway_page.c) */
#define STYLES_MARK "/*kdapp:styles*/"
#define SCRIPTS_MARK "/*kdapp:scripts*/"
#define TYPES_DIR "/types/"

/* Appends a file that goes inside <style> or <script>: it must not hold
 * "</", which would end the element early. */
static kd_err append_inline(kd_buf *out, const kd_web_asset *a)
{
    if (!a)
        return KD_ERR_NOT_FOUND;
    for (size_t i = 0; i + 1 < a->len; i++)
        if (a->data[i] == '<' && a->data[i + 1] == '/') {
            KD_LOG_E("mcp", "widget: %s holds \"</\" and cannot be put inline", a->path);
            return KD_ERR_INVALID_ARG;
        }
    kd_err err = kd_buf_append(out, a->data, a->len);
    return err ? err : kd_buf_append(out, "\n", 1);
}

static kd_err append_styles(kd_buf *out)
{
    kd_err err = append_inline(out, kd_web_asset_find("/app.css"));
    return err ? err : append_inline(out, kd_web_asset_find("/widget.css"));
}

static kd_err append_scripts(kd_buf *out)
{
    kd_err err = append_inline(out, kd_web_asset_find("/render.js"));
    for (const kd_web_asset *a = kd_web_assets; !err && a->path; a++)
        if (strncmp(a->path, TYPES_DIR, strlen(TYPES_DIR)) == 0)
            err = append_inline(out, a);
    return err ? err : append_inline(out, kd_web_asset_find("/widget.js"));
}

/* Appends the template's bytes [*from, mark) and moves *from past the mark;
 * KD_ERR_NOT_FOUND when the mark is not in the template. */
static kd_err append_until(kd_buf *out, const kd_web_asset *t, size_t *from, const char *mark)
{
    size_t n = strlen(mark);
    for (size_t i = *from; i + n <= t->len; i++)
        if (memcmp(t->data + i, mark, n) == 0) {
            kd_err err = kd_buf_append(out, t->data + *from, i - *from);
            *from = i + n;
            return err;
        }
    return KD_ERR_NOT_FOUND;
}

kd_err kd_gw_widget_html(kd_buf *out)
{
    const kd_web_asset *t = kd_web_asset_find(TEMPLATE);
    size_t at = 0;
    kd_err err = t ? KD_OK : KD_ERR_NOT_FOUND;
    if (!err && !(err = append_until(out, t, &at, STYLES_MARK)) && !(err = append_styles(out)) &&
        !(err = append_until(out, t, &at, SCRIPTS_MARK)) && !(err = append_scripts(out)))
        err = kd_buf_append(out, t->data + at, t->len - at);
    if (err == KD_ERR_NOT_FOUND)
        KD_LOG_E("mcp", "widget: %s or a file it needs is not built in", TEMPLATE);
    return err;
}

/* The two forms: URI, MIME type, and the resource's _meta. */
static const struct {
    const char *uri, *mime, *name, *meta_json;
} FORMS[] = {
    {KD_GW_WIDGET_URI, "text/html;profile=mcp-app", "board",
     "{\"ui\":{\"prefersBorder\":true,\"csp\":{\"connectDomains\":[],\"resourceDomains\":[]}}}"},
    {KD_GW_WIDGET_SKYBRIDGE_URI, "text/html+skybridge", "board (OpenAI Apps SDK)",
     "{\"openai/widgetDescription\":\"The episode's board, whose turn it is and its status, as the tool "
     "answered.\",\"openai/widgetPrefersBorder\":true,"
     "\"openai/widgetCSP\":{\"connect_domains\":[],\"resource_domains\":[]}}"},
};

static json_t *form_meta(size_t i) { return json_loads(FORMS[i].meta_json, 0, NULL); }

static kd_err list_widgets(void *ctx, kd_mcp_session *s, json_t *out)
{
    (void)ctx;
    (void)s;
    for (size_t i = 0; i < sizeof FORMS / sizeof FORMS[0]; i++) {
        json_t *r = json_pack("{s:s, s:s, s:s, s:s, s:o}", "uri", FORMS[i].uri, "name", FORMS[i].name, "description",
                              "The board of an episode, drawn from a tool result (display only)", "mimeType",
                              FORMS[i].mime, "_meta", form_meta(i));
        if (!r || json_array_append_new(out, r))
            return KD_ERR_NOMEM;
    }
    return KD_OK;
}

static kd_err read_widget(void *ctx, kd_mcp_session *s, const char *uri, json_t **contents)
{
    (void)ctx;
    (void)s;
    size_t i = 0;
    while (i < sizeof FORMS / sizeof FORMS[0] && strcmp(uri, FORMS[i].uri) != 0)
        i++;
    if (i == sizeof FORMS / sizeof FORMS[0])
        return KD_ERR_NOT_FOUND;
    kd_buf html;
    kd_buf_init(&html);
    kd_err err = kd_gw_widget_html(&html);
    if (!err)
        err = kd_buf_append(&html, "", 1);
    if (!err) {
        *contents = kd_mcp_text_contents(uri, FORMS[i].mime, (const char *)html.data);
        json_t *meta = form_meta(i);
        if (!*contents || !meta || json_object_set_new(json_array_get(*contents, 0), "_meta", meta))
            err = KD_ERR_NOMEM;
    }
    kd_buf_fini(&html);
    return err == KD_ERR_NOT_FOUND ? KD_ERR_IO : err; /* built in: missing is a broken build, not a bad URI */
}

kd_err kd_gw_add_widget(kd_gateway *gw)
{
    kd_mcp_resource_provider p = {.name = "widget", .list = list_widgets, .read = read_widget, .ctx = gw};
    return kd_mcp_server_add_resource_provider(gw->srv, &p);
}
