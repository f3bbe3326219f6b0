/*
 * gateway_content.c — resources (kdapp://types, what the gateway's episode
 * types are and take; kdapp://episodes, the list; and
 * kdapp://episodes/{episode_id}, an episode's enriched view) and the
 * kdapp_turn prompt, the episode type's own prompt for a seat.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/gateway/gateway_int.h"

#define TYPES_URI "kdapp://types"
#define LIST_URI "kdapp://episodes"
#define TABLES_URI "kdapp://tables"
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
    json_array_append_new(out, json_pack("{s:s, s:s, s:s, s:s}", "uri", TYPES_URI, "name", "types", "description",
                                         "The episode types: seats, params and command schemas, rule codes", "mimeType",
                                         "application/json"));
    json_array_append_new(out, json_pack("{s:s, s:s, s:s, s:s}", "uri", LIST_URI, "name", "episodes", "description",
                                         "All episodes with their status", "mimeType", "application/json"));
    json_array_append_new(out, json_pack("{s:s, s:s, s:s, s:s}", "uri", TABLES_URI, "name", "tables", "description",
                                         "The open tables: who sits where, the open seats, the deadline", "mimeType",
                                         "application/json"));
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
    if (strcmp(uri, TYPES_URI) == 0) {
        *contents = json_contents(uri, kd_gw_types_json(gw));
        return *contents ? KD_OK : KD_ERR_NOMEM;
    }
    if (strcmp(uri, TABLES_URI) == 0) {
        *contents = json_contents(uri, kd_gw_tables_json(gw));
        return *contents ? KD_OK : KD_ERR_NOMEM;
    }
    if (strcmp(uri, LIST_URI) == 0) {
        kd_episode_view *views;
        size_t n;
        uint32_t next;
        kd_err err = kd_gw_read_page(gw, 0, MAX_LISTED, &views, &n, &next);
        if (err)
            return err;
        json_t *arr = json_array();
        for (size_t i = 0; i < n; i++) {
            json_array_append_new(arr, kd_gw_summary_json(&views[i]));
            kd_episode_view_fini(&views[i]);
        }
        free(views);
        *contents = json_contents(uri, json_pack("{s:o}", "episodes", arr));
        return *contents ? KD_OK : KD_ERR_NOMEM;
    }
    uint32_t id;
    if (episode_of_uri(uri, &id) != 0)
        return KD_ERR_NOT_FOUND;
    kd_episode_view v;
    kd_episode_view_init(&v);
    kd_err err = kd_gw_read_view(gw, id, &v);
    if (!err) {
        *contents = json_contents(uri, kd_episode_view_json(&v));
        err = *contents ? KD_OK : KD_ERR_NOMEM;
    }
    kd_episode_view_fini(&v);
    return err;
}

/* The seat a prompt argument names: a seat name of the type ("X") or a
 * seat index ("0"); KD_SEAT_NONE when it names none. */
static int prompt_seat(const kd_episode_type *t, size_t seats, const char *arg)
{
    int seat = kd_episode_type_seat(t, arg);
    char *end;
    unsigned long n = strtoul(arg, &end, 10);
    if (seat == KD_SEAT_NONE && *arg >= '0' && *arg <= '9' && !*end && n < seats)
        seat = (int)n;
    return seat >= 0 && (size_t)seat < seats ? seat : KD_SEAT_NONE;
}

static json_t *get_turn_prompt(void *ctx, kd_mcp_session *s, json_t *args, int *code, char *msg, size_t len)
{
    (void)s;
    kd_gateway *gw = ctx;
    const char *id_text = json_string_value(json_object_get(args, "episode_id"));
    const char *player = json_string_value(json_object_get(args, "player"));
    char *end = NULL;
    unsigned long long id = id_text ? strtoull(id_text, &end, 10) : 0;
    *code = -32602;
    if (!id_text || !*id_text || *end || id == 0 || id > UINT32_MAX) {
        snprintf(msg, len, "episode_id must be a decimal episode id, got '%s'", id_text ? id_text : "");
        return NULL;
    }
    kd_episode_view v;
    kd_episode_view_init(&v);
    kd_err err = kd_gw_read_view(gw, (uint32_t)id, &v);
    json_t *r = NULL;
    int seat = KD_SEAT_NONE;
    char seats[256] = "";
    if (err)
        snprintf(msg, len, "episode %llu %s", id, err == KD_ERR_NOT_FOUND ? "does not exist" : "cannot be read");
    else if (!v.type)
        snprintf(msg, len, "episode %llu is of type %s, which this gateway does not serve", id, v.type_name);
    else if ((seat = prompt_seat(v.type, v.participants.count, player ? player : "")) == KD_SEAT_NONE)
        snprintf(msg, len, "player must name a seat of episode %llu (%s): %s, or its index", id, v.type_name,
                 kd_gw_seats_sentence(v.type, seats, sizeof seats) ? "" : seats);
    kd_buf text;
    kd_buf_init(&text);
    if (seat != KD_SEAT_NONE && (kd_episode_view_prompt(&v, seat, &text) || kd_buf_append(&text, "", 1)))
        snprintf(msg, len, "episode %llu has no prompt for %s", id, player);
    else if (seat != KD_SEAT_NONE) {
        char desc[160];
        snprintf(desc, sizeof desc, "%s's turn prompt for episode %llu (%s)", kd_episode_type_seat_name(v.type, seat),
                 id, v.type->title);
        r = json_pack("{s:s, s:[{s:s, s:{s:s, s:s}}]}", "description", desc, "messages", "role", "user", "content",
                      "type", "text", "text", (const char *)text.data);
        *code = r ? 0 : *code;
    }
    kd_buf_fini(&text);
    kd_episode_view_fini(&v);
    return r;
}

kd_err kd_gw_add_content(kd_gateway *gw)
{
    kd_mcp_resource_provider p = {.name = "kdapp", .list = list_resources, .read = read_resource, .ctx = gw};
    kd_mcp_resource_template t = {
        .uri_template = "kdapp://episodes/{episode_id}",
        .name = "episode",
        .title = "An episode's enriched view",
        .description = "Its type, participants, phase, winner and seat to move, and the type's own members (its "
                       "position and what its rules need shown); subscribe to be told of every block that changes "
                       "it, including rollbacks.",
        .mime_type = "application/json",
    };
    kd_mcp_prompt prompt = {
        .name = "kdapp_turn",
        .title = "Your turn",
        .description = "The episode type's prompt for a player's next move: the rules in force, the position, "
                       "what the rules will do next, the legal moves and the exact answer format (the command JSON).",
        .arguments_json = "[{\"name\":\"episode_id\",\"description\":\"the episode\",\"required\":true},"
                          "{\"name\":\"player\",\"description\":\"the seat: its name (kdapp://types lists each "
                          "type's seats) or its index from 0\",\"required\":true}]",
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
