/*
 * gateway_ratings.c — the ratings through MCP and the page: the tool
 * kdapp_get_ratings {type?}, the resource kdapp://ratings (subscribable:
 * every applied or reverted block may finish or undo a game, so each block
 * summary notifies it) and the page's /api/ratings. All three are the
 * same computation (handlers/ratings.h) made from one read of the store.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handlers/ratings.h"
#include "mcp/gateway/gateway_int.h"

#define RATINGS_URI "kdapp://ratings"

kd_err kd_gw_ratings_json(kd_gateway *gw, const char *type, json_t **out, kd_buf *text)
{
    *out = NULL;
    kd_ratings r = {0};
    kd_read *rd = NULL;
    kd_err err = kd_engine_read_begin(gw->o.engine, &rd);
    if (!err)
        err = kd_ratings_compute(rd, gw->types, type, &r);
    kd_engine_read_end(rd);
    if (!err && !(*out = kd_ratings_json(&r)))
        err = KD_ERR_NOMEM;
    if (!err && text)
        err = kd_ratings_text(&r, text);
    if (err) {
        json_decref(*out);
        *out = NULL;
    }
    kd_ratings_fini(&r);
    return err;
}

static json_t *tool_ratings(void *ctx, kd_mcp_session *s, json_t *args, int *code, char *msg, size_t len)
{
    (void)s, (void)code, (void)msg, (void)len;
    kd_gateway *gw = ctx;
    const char *type = json_string_value(json_object_get(args, "type"));
    if (type && !kd_type_table_find(gw->types, type))
        return kd_gw_fail("unknown episode type '%s': kdapp://types lists the types this gateway serves", type);
    json_t *j;
    kd_buf text;
    kd_buf_init(&text);
    kd_err err = kd_gw_ratings_json(gw, type, &j, &text);
    json_t *r = NULL;
    if (!err && !kd_buf_append(&text, "", 1))
        r = kd_mcp_tool_result(j, (const char *)text.data);
    else if (!err)
        json_decref(j);
    kd_buf_fini(&text);
    if (err)
        return kd_gw_fail("cannot compute the ratings: %s", kd_err_str(err));
    return r ? r : kd_gw_fail("out of memory");
}

static kd_err list_resources(void *ctx, kd_mcp_session *s, json_t *out)
{
    (void)ctx, (void)s;
    json_t *r = json_pack("{s:s, s:s, s:s, s:s}", "uri", RATINGS_URI, "name", "ratings", "description",
                          "Elo ratings per key and episode type, from the finished games of the canonical chain; "
                          "subscribe to be told of every block that may change them",
                          "mimeType", "application/json");
    return r && !json_array_append_new(out, r) ? KD_OK : KD_ERR_NOMEM;
}

static kd_err read_resource(void *ctx, kd_mcp_session *s, const char *uri, json_t **contents)
{
    (void)s;
    if (strcmp(uri, RATINGS_URI) != 0)
        return KD_ERR_NOT_FOUND;
    json_t *j;
    kd_err err = kd_gw_ratings_json(ctx, NULL, &j, NULL);
    if (err)
        return err;
    char *text = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(j);
    *contents = text ? kd_mcp_text_contents(uri, "application/json", text) : NULL;
    free(text);
    return *contents ? KD_OK : KD_ERR_NOMEM;
}

void kd_gw_ratings_changed(kd_gateway *gw) { kd_mcp_server_notify_resource_updated(gw->srv, RATINGS_URI); }

kd_err kd_gw_add_ratings(kd_gateway *gw)
{
    kd_mcp_resource_provider p = {.name = "ratings", .list = list_resources, .read = read_resource, .ctx = gw};
    kd_mcp_tool t = {
        .name = "kdapp_get_ratings",
        .title = "Ratings",
        .description = "The Elo rating of every key per episode type, computed from the finished games of the "
                       "canonical chain (FIDE's table, K 20, start 1500; a cheat or forfeit is a loss, a game "
                       "against oneself and games with a house are not rated). A reorg that undoes a game undoes its "
                       "change. The resource kdapp://ratings is the same, subscribable.",
        .input_schema_json = "{\"type\":\"object\",\"properties\":{\"type\":{\"type\":\"string\",\"description\":"
                             "\"only this episode type (kdapp://types lists them)\"}}}",
        .output_schema_json =
            "{\"type\":\"object\",\"properties\":{\"formula\":{\"type\":\"object\"},\"height\":{\"type\":\"integer\"},"
            "\"games_finished\":{\"type\":\"integer\"},\"games_rated\":{\"type\":\"integer\"},"
            "\"ratings\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
            "\"type\":{\"type\":\"string\"},\"key\":{\"type\":\"string\"},\"rating\":{\"type\":\"integer\"},"
            "\"rating_x100\":{\"type\":\"integer\"},\"games\":{\"type\":\"integer\"},\"wins\":{\"type\":\"integer\"},"
            "\"draws\":{\"type\":\"integer\"},\"losses\":{\"type\":\"integer\"}},"
            "\"required\":[\"type\",\"key\",\"rating\",\"rating_x100\",\"games\",\"wins\",\"draws\",\"losses\"]}}},"
            "\"required\":[\"formula\",\"ratings\",\"games_rated\"]}",
        .read_only_hint = 1,
        .idempotent_hint = 1,
        .call = tool_ratings,
        .ctx = gw,
    };
    kd_err err = kd_mcp_server_add_resource_provider(gw->srv, &p);
    if (!err)
        err = kd_mcp_server_add_tool(gw->srv, &t);
    return err;
}
