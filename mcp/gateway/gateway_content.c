/*
 * gateway_content.c — resources (kdapp://episodes, the list, and
 * kdapp://episodes/{episode_id}, an episode's enriched view) and the
 * kdapp_turn prompt.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handlers/prompt.h"
#include "mcp/gateway/gateway_int.h"

#define LIST_URI "kdapp://episodes"
#define EPISODE_PREFIX "kdapp://episodes/"
#define MAX_LISTED 1000

/* Parses "kdapp://episodes/<id>"; returns 0 when it is one. */
static int episode_of_uri(const char *uri, uint32_t *id)
{
    size_t n = strlen(EPISODE_PREFIX);
    if (strncmp(uri, EPISODE_PREFIX, n) != 0 || !uri[n] || uri[n] == '0')
        return -1;
    char *end;
    unsigned long long v = strtoull(uri + n, &end, 10);
    if (*end || v == 0 || v > UINT32_MAX)
        return -1;
    *id = (uint32_t)v;
    return 0;
}

static kd_err list_resources(void *ctx, kd_mcp_session *s, json_t *out)
{
    (void)s;
    kd_gateway *gw = ctx;
    json_array_append_new(out, json_pack("{s:s, s:s, s:s, s:s}", "uri", LIST_URI, "name", "episodes", "description",
                                         "All episodes with their status", "mimeType", "application/json"));
    uint32_t ids[MAX_LISTED];
    size_t n = 0;
    kd_read *rd;
    kd_err err = kd_engine_read_begin(gw->o.engine, &rd);
    if (!err)
        err = kd_read_episode_ids(rd, 0, ids, MAX_LISTED, &n);
    kd_engine_read_end(rd);
    for (size_t i = 0; !err && i < n; i++) {
        char uri[64], name[32];
        snprintf(uri, sizeof uri, EPISODE_PREFIX "%u", ids[i]);
        snprintf(name, sizeof name, "episode %u", ids[i]);
        json_array_append_new(out,
                              json_pack("{s:s, s:s, s:s}", "uri", uri, "name", name, "mimeType", "application/json"));
    }
    return err;
}

static json_t *json_contents(const char *uri, json_t *body)
{
    char *text = body ? json_dumps(body, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(body);
    if (!text)
        return NULL;
    json_t *c = kd_mcp_text_contents(uri, "application/json", text);
    free(text);
    return c;
}

static kd_err read_resource(void *ctx, kd_mcp_session *s, const char *uri, json_t **contents)
{
    (void)s;
    kd_gateway *gw = ctx;
    if (strcmp(uri, LIST_URI) == 0) {
        kd_episode_view *views;
        size_t n;
        uint32_t next;
        kd_err err = kd_gw_read_page(gw, 0, MAX_LISTED, &views, &n, &next);
        if (err)
            return err;
        json_t *arr = json_array();
        for (size_t i = 0; i < n; i++)
            json_array_append_new(arr, kd_gw_summary_json(&views[i]));
        free(views);
        *contents = json_contents(uri, json_pack("{s:o}", "episodes", arr));
        return *contents ? KD_OK : KD_ERR_NOMEM;
    }
    uint32_t id;
    if (episode_of_uri(uri, &id) != 0)
        return KD_ERR_NOT_FOUND;
    kd_episode_view v;
    kd_err err = kd_gw_read_view(gw, id, &v);
    if (err)
        return err;
    *contents = json_contents(uri, kd_episode_view_json(&v));
    return *contents ? KD_OK : KD_ERR_NOMEM;
}

static json_t *get_turn_prompt(void *ctx, kd_mcp_session *s, json_t *args, int *code, char *msg, size_t len)
{
    (void)s;
    kd_gateway *gw = ctx;
    const char *id_text = json_string_value(json_object_get(args, "episode_id"));
    const char *player = json_string_value(json_object_get(args, "player"));
    char *end = NULL;
    unsigned long long id = id_text ? strtoull(id_text, &end, 10) : 0;
    if (!id_text || !*id_text || *end || id == 0 || id > UINT32_MAX) {
        *code = -32602;
        snprintf(msg, len, "episode_id must be a decimal episode id, got '%s'", id_text ? id_text : "");
        return NULL;
    }
    if (!player || (strcmp(player, "X") != 0 && strcmp(player, "O") != 0)) {
        *code = -32602;
        snprintf(msg, len, "player must be \"X\" or \"O\"");
        return NULL;
    }
    kd_episode_view v;
    kd_err err = kd_gw_read_view(gw, (uint32_t)id, &v);
    if (err) {
        *code = -32602;
        snprintf(msg, len, "episode %llu %s", id, err == KD_ERR_NOT_FOUND ? "does not exist" : "cannot be read");
        return NULL;
    }
    kd_buf text;
    kd_buf_init(&text);
    if (kd_turn_prompt(&v, player[0], &text) != KD_OK) {
        kd_buf_fini(&text);
        *code = -32602;
        snprintf(msg, len, "episode %llu is not a tic-tac-toe episode", id);
        return NULL;
    }
    char desc[96];
    snprintf(desc, sizeof desc, "%s's turn prompt for episode %llu (%s)", player, id,
             v.ttt.cap ? "stress mode" : "classic");
    json_t *r = json_pack("{s:s, s:[{s:s, s:{s:s, s:s}}]}", "description", desc, "messages", "role", "user", "content",
                          "type", "text", "text", (const char *)text.data);
    kd_buf_fini(&text);
    return r;
}

kd_err kd_gw_add_content(kd_gateway *gw)
{
    kd_mcp_resource_provider p = {.name = "kdapp", .list = list_resources, .read = read_resource, .ctx = gw};
    kd_mcp_resource_template t = {
        .uri_template = "kdapp://episodes/{episode_id}",
        .name = "episode",
        .title = "An episode's enriched view",
        .description = "Board, side to move, status, cap, recent moves, the mark removed next; subscribe to be "
                       "told of every block that changes it, including rollbacks.",
        .mime_type = "application/json",
    };
    kd_mcp_prompt prompt = {
        .name = "kdapp_turn",
        .title = "Your turn",
        .description = "The prompt for a player's next move: the rule in force (stress or classic), the board, the "
                       "recent moves oldest to newest and the mark removed next.",
        .arguments_json = "[{\"name\":\"episode_id\",\"description\":\"the episode\",\"required\":true},"
                          "{\"name\":\"player\",\"description\":\"X or O\",\"required\":true}]",
        .get = get_turn_prompt,
        .ctx = gw,
    };
    kd_err err = kd_mcp_server_add_resource_provider(gw->srv, &p);
    if (!err)
        err = kd_mcp_server_add_resource_template(gw->srv, &t);
    if (!err)
        err = kd_mcp_server_add_prompt(gw->srv, &prompt);
    return err;
}
