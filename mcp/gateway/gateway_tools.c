/*
 * gateway_tools.c — the kdapp tools. Each validates its arguments (the
 * server already checked them against the inputSchema; a command and params
 * are checked here against their episode type's schema), reads or writes
 * through the gateway, and answers structuredContent plus a text rendering.
 * A failed call (unknown episode, illegal move) is a result with isError and
 * text an agent can act on, such as the legal moves.
 *
 * No tool knows a game: the type of an episode comes from the store, and
 * everything about it (params and command JSON, status and seat to move,
 * legal moves, renderings) from its entry in the gateway's kd_type_table.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/wire.h"
#include "mcp/gateway/gateway_int.h"

#define LIST_PAGE 50

/* ------------------------------------------------------------ schemas */

/* The enriched view: generic fields (handlers/view.h), then the type's own
 * members, which the schema leaves open. */
#define SEAT_OR_NULL "{\"type\":[\"integer\",\"null\"]}"
#define VIEW_SCHEMA                                                                                                 \
    "{\"type\":\"object\",\"properties\":{"                                                                         \
    "\"episode_id\":{\"type\":\"integer\"},\"type\":{\"type\":\"string\"},"                                         \
    "\"participants\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"                                        \
    "\"last_event\":{\"type\":\"string\"},\"block_hash\":{\"type\":\"string\"},\"log_seq\":{\"type\":\"integer\"}," \
    "\"digest\":{\"type\":\"string\"},\"deleted\":{\"type\":\"boolean\"},"                                          \
    "\"phase\":{\"type\":\"string\",\"enum\":[\"in_progress\",\"won\",\"draw\"]},"                                  \
    "\"winner\":" SEAT_OR_NULL ",\"to_move\":" SEAT_OR_NULL ","                                                     \
    "\"seats\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},\"state\":{\"type\":\"string\"}},"              \
    "\"required\":[\"episode_id\",\"type\",\"participants\",\"last_event\",\"block_hash\",\"log_seq\",\"digest\"]}"
/* A seat as {seat, name}, or null. */
#define SEAT_OBJECT                                                                                        \
    "{\"oneOf\":[{\"type\":\"object\",\"properties\":{\"seat\":{\"type\":\"integer\"},\"name\":{\"type\":" \
    "\"string\"}},\"required\":[\"seat\",\"name\"]},{\"type\":\"null\"}]}"
#define MOVES_SCHEMA                                                                                        \
    "{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{\"command\":{\"type\":\"object\"}," \
    "\"notation\":{\"type\":\"string\"}},\"required\":[\"command\",\"notation\"]}}"
#define PLAYER_ARG                                                                                                  \
    ",\"player\":{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"integer\",\"minimum\":0}],\"description\":\"A seat " \
    "(its name or number) whose "                                                                                   \
    "key this gateway holds: adds own_secret, what that seat alone may see (a hidden board or hand), in games "     \
    "with secrets.\"}"
#define KEY_SCHEMA                                                                                           \
    "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},\"pubkey\":{\"type\":\"string\"}}," \
    "\"required\":[\"name\",\"pubkey\"]}"
#define EPISODE_ARG                                                              \
    "\"episode_id\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":4294967295," \
    "\"description\":\"The episode's id (kdapp_list_episodes lists them).\"}"

/* ------------------------------------------------------------ helpers */

json_t *kd_gw_fail(const char *fmt, ...)
{
    char text[800];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return kd_mcp_tool_error(text);
}

static uint32_t arg_episode(json_t *args) { return (uint32_t)json_integer_value(json_object_get(args, "episode_id")); }

/* "episode 5 (<type>)\n" and the type's text board; malloc'ed, NULL when
 * out of memory. */
char *kd_gw_view_text(const kd_episode_view *v)
{
    kd_buf b;
    kd_buf_init(&b);
    char head[96];
    int n = snprintf(head, sizeof head, "episode %u (%s)\n", v->episode_id, v->type_name);
    kd_err err = kd_buf_append(&b, head, (size_t)n);
    if (!err && v->type && !v->deleted && kd_episode_view_render(v, 0, &b) != KD_OK)
        b.len = (size_t)n; /* a view that does not render keeps its head line */
    if (err || kd_buf_append(&b, "", 1)) {
        kd_buf_fini(&b);
        return NULL;
    }
    return (char *)b.data;
}

/* The tool error for a view read that failed with `err`, or whose type
 * this gateway does not serve; NULL when the view is there to answer. */
static json_t *view_error(kd_err err, uint32_t id, const kd_episode_view *v)
{
    if (err == KD_ERR_NOT_FOUND)
        return kd_gw_fail("episode %u does not exist; kdapp_list_episodes lists the episodes, "
                          "kdapp_start_episode creates one",
                          id);
    if (err)
        return kd_gw_fail("cannot read episode %u: %s", id, kd_err_str(err));
    if (!v->type)
        return kd_gw_fail("episode %u is of type %s, which this gateway does not serve (kdapp://types lists its types)",
                          id, v->type_name);
    return NULL;
}

/* Reads a view (kd_episode_view_init'ed by the caller) or produces the
 * tool error for it: unknown episode, or a type this gateway does not serve. */
json_t *kd_gw_read_view_or_fail(kd_gateway *gw, uint32_t id, kd_episode_view *v)
{
    return view_error(kd_gw_read_view(gw, id, v), id, v);
}

/* The legal moves of the seat to move in a view's state, and their text
 * ("legal moves for X: (0, 0) ..." into `text`, NUL-terminated). */
json_t *kd_gw_view_moves(const kd_episode_view *v, char *text, size_t text_len)
{
    kd_legal_moves list;
    kd_legal_moves_init(&list);
    kd_buf t;
    kd_buf_init(&t);
    json_t *moves = NULL;
    int seat = v->status.to_move;
    if (seat < 0 || kd_episode_view_legal_moves(v, seat, &list) == KD_OK)
        moves = kd_gw_moves_json(v->type, &list, seat, v->status.phase != KD_PHASE_IN_PROGRESS, &t);
    snprintf(text, text_len, "%.*s", (int)t.len, t.data ? (const char *)t.data : "");
    if (!moves)
        snprintf(text, text_len, "the legal moves of episode %u cannot be listed", v->episode_id);
    kd_buf_fini(&t);
    kd_legal_moves_fini(&list);
    return moves ? moves : json_array();
}

/* ---------------------------------------------------------------- tools */

/*
 * The read tools whose answer is a function of the log position (see
 * gateway_cache.c): each builds its answer from one view read, and the
 * answer, encoded once, is kept for every reader of the same position,
 * arguments and view class.
 */
enum { READ_STATE, READ_STRATEGY, READ_MOVES };

typedef json_t *(*build_fn)(kd_gateway *gw, kd_mcp_session *s, json_t *args, const kd_episode_view *v);

static json_t *build_state(kd_gateway *gw, kd_mcp_session *s, json_t *args, const kd_episode_view *v)
{
    char *text = kd_gw_view_text(v);
    json_t *r = kd_gw_with_own_secret(gw, s, v, args, kd_episode_view_json(v), text);
    free(text);
    return r;
}

static json_t *build_strategy(kd_gateway *gw, kd_mcp_session *s, json_t *args, const kd_episode_view *v)
{
    json_t *sc = kd_episode_view_strategy_json(v);
    /* the text is the context's JSON, written once with the reply */
    return sc ? kd_gw_with_own_secret(gw, s, v, args, sc, NULL)
              : kd_gw_fail("episode %u (%s) has no strategy context", v->episode_id, v->type_name);
}

/* Copies the members `names` of the view JSON that it has into `out`. */
static void copy_members(json_t *out, const json_t *view, const char *const *names)
{
    for (; view && *names; names++) {
        json_t *m = json_object_get(view, *names);
        if (m)
            json_object_set(out, *names, m);
    }
}

static json_t *build_moves(kd_gateway *gw, kd_mcp_session *s, json_t *args, const kd_episode_view *v)
{
    (void)gw, (void)s, (void)args;
    /* the view members today's clients read beside the moves;
     * "move_rules": what a type says of the choice beside the list (a
     * capture is mandatory, the side to move is in check); "log_seq": the
     * log entry the list is for, so a client that read the state apart
     * can tell whether the episode moved in between */
    static const char *const kept[] = {"current", "status", "move_rules", "log_seq", NULL};
    char text[1024];
    json_t *moves = kd_gw_view_moves(v, text, sizeof text);
    /* games-mcp's discipline: the player picks exactly one of the list */
    json_t *out =
        json_pack("{s:i, s:s, s:s, s:o, s:o, s:o, s:{s:b, s:b}}", "episode_id", (json_int_t)v->episode_id, "type",
                  v->type_name, "phase", kd_game_phase_name(v->status.phase), "winner",
                  kd_gw_seat_json(v->type, v->status.winner), "to_move", kd_gw_seat_json(v->type, v->status.to_move),
                  "moves", moves, "policy", "must_choose_from_moves", 1, "choose_exactly_one", 1);
    json_t *vj = out ? kd_episode_view_json(v) : NULL;
    copy_members(out, vj, kept);
    json_decref(vj);
    /* a type's move_rules are an object when it has them now (a card game
     * between its bets has none: null in the view), as the schema says */
    if (out && json_is_null(json_object_get(out, "move_rules")))
        json_object_del(out, "move_rules");
    return out ? kd_mcp_tool_result(out, text) : kd_gw_fail("out of memory");
}

/* The answer of read tool `tool` to `args` for session `s`: the one kept
 * for the store's position, or built from a view read at that position
 * (in the same read handle as the position) and kept. */
static kd_mcp_encoded *answer(kd_gateway *gw, int tool, kd_mcp_session *s, json_t *args, build_fn build)
{
    kd_gw_cache_key k;
    memset(&k, 0, sizeof k);
    k.tool = tool;
    k.episode_id = arg_episode(args);
    const json_t *player = json_object_get(args, "player");
    int keep = 1;
    if (player) {
        /* what "player" may see is the session's grant's to decide */
        char *p = json_dumps(player, JSON_COMPACT | JSON_ENCODE_ANY);
        keep = p && strlen(p) < sizeof k.player;
        if (keep)
            memcpy(k.player, p, strlen(p) + 1);
        free(p);
        k.view_class = kd_gw_session_grant(s);
    }
    kd_read *rd = NULL;
    kd_tip tip;
    kd_err err = kd_engine_read_begin(gw->o.engine, &rd);
    if (!err && !(err = kd_read_tip(rd, &tip))) {
        k.seq = tip.last_seq;
        memcpy(k.digest, tip.digest, KD_HASH_LEN);
        kd_mcp_encoded *e = keep ? kd_gw_cache_get(gw->cache, &k) : NULL;
        if (e) {
            kd_engine_read_end(rd);
            return e;
        }
    }
    kd_episode_view v;
    kd_episode_view_init(&v);
    if (!err)
        err = kd_episode_view_read(gw->types, rd, k.episode_id, &v);
    if (rd)
        kd_engine_read_end(rd);
    json_t *r = view_error(err, k.episode_id, &v);
    if (!r)
        r = build(gw, s, args, &v);
    kd_episode_view_fini(&v);
    kd_mcp_encoded *e = kd_mcp_encoded_alloc(r);
    if (e && keep && (err == KD_OK || err == KD_ERR_NOT_FOUND))
        kd_gw_cache_put(gw->cache, &k, e);
    return e;
}

static kd_mcp_encoded *tool_get_state(void *ctx, kd_mcp_session *s, json_t *args, int *code, char *msg, size_t len)
{
    (void)code, (void)msg, (void)len;
    return answer(ctx, READ_STATE, s, args, build_state);
}

static kd_mcp_encoded *tool_strategy(void *ctx, kd_mcp_session *s, json_t *args, int *code, char *msg, size_t len)
{
    (void)code, (void)msg, (void)len;
    return answer(ctx, READ_STRATEGY, s, args, build_strategy);
}

static kd_mcp_encoded *tool_legal_moves(void *ctx, kd_mcp_session *s, json_t *args, int *code, char *msg, size_t len)
{
    (void)code, (void)msg, (void)len;
    return answer(ctx, READ_MOVES, s, args, build_moves);
}

static json_t *tool_list(void *ctx, kd_mcp_session *s, json_t *args, int *code, char *msg, size_t len)
{
    (void)s;
    kd_gateway *gw = ctx;
    uint64_t after = 0;
    const char *cursor = json_string_value(json_object_get(args, "cursor"));
    if (cursor && *cursor) {
        char *end;
        after = strtoull(cursor, &end, 10);
        if (*end || after > UINT32_MAX) {
            *code = -32602;
            snprintf(msg, len, "cursor '%s' is not one this server gave out", cursor);
            return NULL;
        }
    }
    kd_episode_view *views;
    size_t n;
    uint32_t next;
    kd_err err = kd_gw_read_page(gw, (uint32_t)after, LIST_PAGE, &views, &n, &next);
    if (err)
        return kd_gw_fail("cannot list episodes: %s", kd_err_str(err));
    json_t *eps = json_array();
    kd_buf text;
    kd_buf_init(&text);
    for (size_t i = 0; i < n; i++) {
        json_t *e = kd_gw_summary_json(&views[i]);
        json_t *status = json_object_get(e, "status"), *moves = json_object_get(e, "move_count");
        char count[40] = "", line[200];
        if (json_is_integer(moves))
            snprintf(count, sizeof count, ", %lld moves", (long long)json_integer_value(moves));
        int k = snprintf(line, sizeof line, "episode %u: %s, %.64s%s\n", views[i].episode_id, views[i].type_name,
                         json_is_string(status) ? json_string_value(status) : kd_game_phase_name(views[i].status.phase),
                         count);
        if (!err && (!e || json_array_append_new(eps, e) != 0 || kd_buf_append(&text, line, (size_t)k)))
            err = KD_ERR_NOMEM;
        kd_episode_view_fini(&views[i]);
    }
    free(views);
    if (err || kd_buf_append(&text, n ? "" : "no episodes yet\n", n ? 1 : sizeof "no episodes yet\n")) {
        json_decref(eps);
        kd_buf_fini(&text);
        return kd_gw_fail("out of memory");
    }
    json_t *out = json_pack("{s:o}", "episodes", eps);
    if (next) {
        char cursor_out[16];
        snprintf(cursor_out, sizeof cursor_out, "%u", next);
        json_object_set_new(out, "nextCursor", json_string(cursor_out));
    }
    json_t *r = kd_mcp_tool_result(out, (char *)text.data);
    kd_buf_fini(&text);
    return r;
}

/* {name, pubkey} of a key, and its line of the text answer. */
static json_t *key_json(const kd_gw_key *k, const char *label, kd_buf *text)
{
    char hex[2 * KD_PUBKEY_LEN + 1], line[200];
    kd_hex_encode(k->key.pub.bytes, KD_PUBKEY_LEN, hex);
    int n = snprintf(line, sizeof line, "%s%s %s\n", label, k->name, hex);
    if (kd_buf_append(text, line, (size_t)n))
        return NULL;
    return json_pack("{s:s, s:s}", "name", k->name, "pubkey", hex);
}

static json_t *tool_agent_pubkeys(void *ctx, kd_mcp_session *s, json_t *args, int *code, char *msg, size_t len)
{
    (void)args, (void)code, (void)msg, (void)len;
    kd_gateway *gw = ctx;
    const kd_gw_grant *g = kd_gw_session_grant(s);
    json_t *agents = json_array(), *house = gw->house ? NULL : json_null();
    kd_buf text;
    kd_buf_init(&text);
    int ok = agents != NULL;
    for (size_t i = 0; ok && g && i < g->n; i++)
        ok = json_array_append_new(agents, key_json(g->keys[i], "", &text)) == 0;
    if (ok && gw->house)
        ok = (house = key_json(gw->house, "house: ", &text)) != NULL;
    if (ok && (!g || g->n == 0))
        ok = kd_buf_append(&text, "this session is granted no key: it reads public state only\n",
                           sizeof "this session is granted no key: it reads public state only\n" - 1) == KD_OK;
    json_t *out = ok ? json_pack("{s:o, s:o}", "agents", agents, "house", house) : NULL;
    if (!ok) {
        json_decref(agents);
        json_decref(house);
    }
    json_t *r = out && kd_buf_append(&text, "", 1) == KD_OK ? kd_mcp_tool_result(out, (char *)text.data) : NULL;
    if (!r)
        json_decref(out);
    kd_buf_fini(&text);
    return r ? r : kd_gw_fail("out of memory");
}

/* ---------------------------------------------------------- registration */

kd_err kd_gw_add_tools(kd_gateway *gw)
{
    char *start_desc = kd_gw_start_description(gw), *start_schema = kd_gw_start_schema(gw);
    char *exec_desc = kd_gw_execute_description(gw), *exec_schema = kd_gw_execute_schema(gw);
    kd_err err = start_desc && start_schema && exec_desc && exec_schema ? KD_OK : KD_ERR_NOMEM;
    const kd_mcp_tool tools[] = {
        {.name = "kdapp_start_episode",
         .title = "Start an episode",
         .description = start_desc,
         .input_schema_json = start_schema,
         .output_schema_json = "{\"type\":\"object\",\"properties\":{\"episode_id\":{\"type\":\"integer\"},"
                               "\"view\":" VIEW_SCHEMA ",\"table\":{\"type\":\"object\"}},"
                               "\"required\":[\"episode_id\"]}",
         .open_world_hint = 1,
         .writes = 1,
         .meta_json = KD_GW_WIDGET_META,
         .call = kd_gw_tool_start},
        {.name = "kdapp_execute_command",
         .title = "Play a command",
         .description = exec_desc,
         .input_schema_json = exec_schema,
         .output_schema_json = "{\"type\":\"object\",\"properties\":{\"legal\":{\"type\":\"boolean\"},"
                               "\"error\":{\"type\":\"string\"},\"error_code\":{\"type\":\"string\"},"
                               "\"legal_moves\":" MOVES_SCHEMA ",\"view\":" VIEW_SCHEMA "},"
                               "\"required\":[\"legal\",\"view\"]}",
         .open_world_hint = 1,
         .writes = 1,
         .meta_json = KD_GW_WIDGET_META,
         .call = kd_gw_tool_execute},
        {.name = "kdapp_get_episode_state",
         .title = "Episode state",
         .description =
             "The enriched view of an episode: its type, participants, phase (in_progress, won, draw), "
             "winner and seat to move, the type's own members (its board or table, and what its rules "
             "need shown), and the block and digest it reflects. With \"player\" (a seat whose key this gateway "
             "holds): "
             "also own_secret, what that seat alone may see (its hidden board or hand), never another seat's.",
         .input_schema_json =
             "{\"type\":\"object\",\"properties\":{" EPISODE_ARG PLAYER_ARG "},\"required\":[\"episode_id\"]}",
         .output_schema_json = VIEW_SCHEMA,
         .read_only_hint = 1,
         .idempotent_hint = 1,
         .quick = 1,
         .meta_json = KD_GW_WIDGET_META,
         .call_encoded = tool_get_state},
        {.name = "kdapp_get_strategy_context",
         .title = "Strategy context",
         .description =
             "What a player needs before moving, in the episode type's own shape: the position, whose "
             "turn it is, the rules in force and what they will do next (each type documents its shape "
             "in kdapp://types). Call it every turn. With \"player\" (a seat whose key this gateway holds): also "
             "own_secret, that seat's own hidden part (its hidden board or hand).",
         .input_schema_json =
             "{\"type\":\"object\",\"properties\":{" EPISODE_ARG PLAYER_ARG "},\"required\":[\"episode_id\"]}",
         .output_schema_json = "{\"type\":\"object\"}",
         .read_only_hint = 1,
         .idempotent_hint = 1,
         .quick = 1,
         .call_encoded = tool_strategy},
        {.name = "kdapp_legal_moves",
         .title = "Legal moves",
         .description = "The commands the seat to move may play (none once the game is over), each as the command "
                        "JSON kdapp_execute_command takes and a short notation; its members are repeated beside "
                        "them. Choose exactly one of them (policy). With the phase, the winner, the seat to move "
                        "and, when the type has them, its move_rules (a capture is mandatory, the king is in "
                        "check).",
         .input_schema_json = "{\"type\":\"object\",\"properties\":{" EPISODE_ARG "},\"required\":[\"episode_id\"]}",
         .output_schema_json = "{\"type\":\"object\",\"properties\":{\"episode_id\":{\"type\":\"integer\"},"
                               "\"type\":{\"type\":\"string\"},"
                               "\"phase\":{\"type\":\"string\",\"enum\":[\"in_progress\",\"won\",\"draw\"]},"
                               "\"winner\":" SEAT_OBJECT ",\"to_move\":" SEAT_OBJECT ","
                               "\"moves\":" MOVES_SCHEMA ",\"move_rules\":{\"type\":\"object\"},"
                               "\"policy\":{\"type\":\"object\",\"properties\":{"
                               "\"must_choose_from_moves\":{\"type\":\"boolean\"},"
                               "\"choose_exactly_one\":{\"type\":\"boolean\"}}}},"
                               "\"required\":[\"episode_id\",\"type\",\"phase\",\"winner\",\"to_move\",\"moves\","
                               "\"policy\"]}",
         .read_only_hint = 1,
         .idempotent_hint = 1,
         .quick = 1,
         .call_encoded = tool_legal_moves},
        {.name = "kdapp_list_episodes",
         .title = "List episodes",
         .description = "Episodes in id order, 50 a page, each with its type and phase (and its status, move count "
                        "and cap when its type shows them); pass nextCursor back as cursor for the next page.",
         .input_schema_json = "{\"type\":\"object\",\"properties\":{\"cursor\":{\"type\":\"string\"}}}",
         .output_schema_json =
             "{\"type\":\"object\",\"properties\":{\"episodes\":{\"type\":\"array\",\"items\":"
             "{\"type\":\"object\",\"properties\":{\"episode_id\":{\"type\":\"integer\"},"
             "\"type\":{\"type\":\"string\"},"
             "\"phase\":{\"type\":\"string\",\"enum\":[\"in_progress\",\"won\",\"draw\"]}},"
             "\"required\":[\"episode_id\",\"type\",\"phase\"]}},\"nextCursor\":{\"type\":\"string\"}},"
             "\"required\":[\"episodes\"]}",
         .read_only_hint = 1,
         .idempotent_hint = 1,
         .quick = 1,
         .call = tool_list},
        {.name = "kdapp_get_agent_pubkeys",
         .title = "Agent public keys",
         .description = "The keys this session may sign with (the seats granted it: kdapp mcp --grant, or its bearer "
                        "token), by name, and the house this gateway plays for all comers (or null). A session "
                        "granted no key reads public state only.",
         .input_schema_json = "{\"type\":\"object\",\"properties\":{}}",
         .output_schema_json = "{\"type\":\"object\",\"properties\":{\"agents\":{\"type\":\"array\",\"items\":"
                               "" KEY_SCHEMA "},\"house\":{\"oneOf\":[" KEY_SCHEMA ",{\"type\":\"null\"}]}},"
                               "\"required\":[\"agents\",\"house\"]}",
         .read_only_hint = 1,
         .idempotent_hint = 1,
         .quick = 1,
         .call = tool_agent_pubkeys},
    };
    for (size_t i = 0; !err && i < sizeof tools / sizeof tools[0]; i++) {
        kd_mcp_tool t = tools[i];
        t.ctx = gw;
        err = kd_mcp_server_add_tool(gw->srv, &t); /* copies the strings */
    }
    free(start_desc);
    free(start_schema);
    free(exec_desc);
    free(exec_schema);
    kd_mcp_tool submit_tx = {
        .name = "kdapp_submit_transaction",
        .title = "Send a transaction you pay for",
        .description =
            "Sends a Kaspa transaction you built, signed and pay for with your own wallet, whose payload is a kdapp "
            "message (the payload_hex of a write no wallet here pays for: kdapp wallet send --dry-run --payload-hex "
            "HEX --funding YOUR_KEY builds the transaction). No wallet of this gateway pays anything. Answers as "
            "kdapp_execute_command does, once the block carrying it is applied.",
        .input_schema_json = "{\"type\":\"object\",\"properties\":{\"transaction\":{\"type\":[\"object\","
                             "\"string\"],\"description\":\"the transaction as the node's JSON (what "
                             "submitTransaction takes, or kdapp wallet send --dry-run's output), or that JSON as a "
                             "string (exact for integers over 2^63-1)\"}},\"required\":[\"transaction\"]}",
        .output_schema_json = "{\"type\":\"object\",\"properties\":{\"legal\":{\"type\":\"boolean\"},"
                              "\"view\":{\"type\":\"object\"}},\"required\":[\"legal\"]}",
        .open_world_hint = 1,
        .writes = 1,
        .call = kd_gw_tool_submit_tx,
        .ctx = gw,
    };
    if (!err && gw->o.chain.submit_tx)
        err = kd_mcp_server_add_tool(gw->srv, &submit_tx);
    if (err || !gw->o.chain.reorg)
        return err;
    /* The deepest reorg the store allows is its finality depth (fixed when
     * the store was made); fewer blocks right after a deep reorg, which
     * the call itself checks (gateway_write.c). */
    kd_tip tip;
    if ((err = kd_engine_tip(gw->o.engine, &tip)))
        return err;
    char reorg_schema[200];
    snprintf(reorg_schema, sizeof reorg_schema,
             "{\"type\":\"object\",\"properties\":{\"depth\":{\"type\":\"integer\",\"minimum\":1,"
             "\"maximum\":%llu}},\"required\":[\"depth\"]}",
             (unsigned long long)(tip.finality_depth ? tip.finality_depth : 1));
    kd_mcp_tool reorg = {
        .name = "kdapp_simulate_reorg",
        .title = "Simulate a reorg (devnet)",
        .description = "Makes the devnet revert its last `depth` blocks and re-include their transactions in new "
                       "blocks, as a real chain reorganisation would; subscribers see the rollback. A depth beyond "
                       "the store's finality (the blocks a revert can still undo) is refused.",
        .input_schema_json = reorg_schema,
        .output_schema_json = "{\"type\":\"object\",\"properties\":{\"reverted\":{\"type\":\"integer\"},"
                              "\"reincluded\":{\"type\":\"integer\"},\"dropped\":{\"type\":\"integer\"},"
                              "\"height\":{\"type\":\"integer\"}},\"required\":[\"reverted\"]}",
        .destructive_hint = 1,
        .open_world_hint = 1,
        .writes = 1,
        .call = kd_gw_tool_reorg,
        .ctx = gw,
    };
    return kd_mcp_server_add_tool(gw->srv, &reorg);
}
