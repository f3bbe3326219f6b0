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
#include <openssl/rand.h>
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
#define EPISODE_ARG                                                              \
    "\"episode_id\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":4294967295," \
    "\"description\":\"The episode's id (kdapp_list_episodes lists them).\"}"

/* ------------------------------------------------------------ helpers */

__attribute__((format(printf, 1, 2))) static json_t *fail(const char *fmt, ...)
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
static char *view_text(const kd_episode_view *v)
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

/* Reads a view (kd_episode_view_init'ed by the caller) or produces the
 * tool error for it: unknown episode, or a type this gateway does not serve. */
static json_t *read_view_or_fail(kd_gateway *gw, uint32_t id, kd_episode_view *v)
{
    kd_err err = kd_gw_read_view(gw, id, v);
    if (err == KD_ERR_NOT_FOUND)
        return fail("episode %u does not exist; kdapp_list_episodes lists the episodes, "
                    "kdapp_start_episode creates one",
                    id);
    if (err)
        return fail("cannot read episode %u: %s", id, kd_err_str(err));
    if (!v->type)
        return fail("episode %u is of type %s, which this gateway does not serve (kdapp://types lists its types)", id,
                    v->type_name);
    return NULL;
}

/* The legal moves of the seat to move in a view's state, and their text
 * ("legal moves for X: (0, 0) ..." into `text`, NUL-terminated). */
static json_t *view_moves(const kd_episode_view *v, char *text, size_t text_len)
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

/* A chain error after which the request may still have taken effect (see
 * kd_gateway_chain). */
static int outcome_unknown(kd_err err) { return err == KD_ERR_TIMEOUT || err == KD_ERR_NET || err == KD_ERR_CLOSED; }

/*
 * Submits a payload and waits for the block that carries it. The log
 * position noted first lets the wait find the outcome in the engine's log
 * when the block summary is missed. On an error, `why` says what happened
 * and *maybe whether the chain may still apply the payload (it was, or may
 * have been, queued); *maybe = 0 means it certainly was not.
 */
kd_err kd_gw_submit_and_wait(kd_gateway *gw, const kd_buf *payload, kd_gw_outcome *out, int *maybe, char *why,
                             size_t why_len)
{
    uint8_t tx_id[KD_HASH_LEN];
    kd_tip tip;
    *maybe = 0;
    kd_err err = kd_engine_tip(gw->o.engine, &tip);
    if (err) {
        snprintf(why, why_len, "cannot read the engine's tip (%s), so nothing was submitted", kd_err_str(err));
        return err;
    }
    if ((err = gw->o.chain.submit(gw->o.chain.ctx, payload->data, payload->len, tx_id, why, why_len))) {
        *maybe = outcome_unknown(err);
        if (!why[0])
            snprintf(why, why_len, "%s", kd_err_str(err));
        return err;
    }
    if (!(err = kd_gw_wait_outcome(gw, tx_id, tip.last_seq, out)))
        return KD_OK;
    *maybe = 1;
    char h[17];
    kd_hex_encode(tx_id, 8, h);
    if (err == KD_ERR_CLOSED)
        snprintf(why, why_len, "the gateway is shutting down; transaction %s… was submitted", h);
    else
        snprintf(why, why_len,
                 "transaction %s… was submitted, but no applied block carried it within %u ms (is the chain "
                 "producing blocks for this engine?)",
                 h, gw->o.wait_ms ? gw->o.wait_ms : 30000);
    return err;
}

/* ---------------------------------------------------------------- tools */

static json_t *tool_get_state(void *ctx, kd_mcp_session *s, json_t *args, int *code, char *msg, size_t len)
{
    (void)s, (void)code, (void)msg, (void)len;
    kd_episode_view v;
    kd_episode_view_init(&v);
    json_t *r = read_view_or_fail(ctx, arg_episode(args), &v);
    if (!r) {
        char *text = view_text(&v);
        r = kd_gw_with_own_secret(ctx, &v, args, kd_episode_view_json(&v), text);
        free(text);
    }
    kd_episode_view_fini(&v);
    return r;
}

static json_t *tool_strategy(void *ctx, kd_mcp_session *s, json_t *args, int *code, char *msg, size_t len)
{
    (void)s, (void)code, (void)msg, (void)len;
    kd_episode_view v;
    kd_episode_view_init(&v);
    json_t *r = read_view_or_fail(ctx, arg_episode(args), &v);
    if (!r) {
        json_t *sc = kd_episode_view_strategy_json(&v);
        /* the text is the context's JSON, written once with the reply */
        r = sc ? kd_gw_with_own_secret(ctx, &v, args, sc, NULL)
               : fail("episode %u (%s) has no strategy context", v.episode_id, v.type_name);
    }
    kd_episode_view_fini(&v);
    return r;
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

static json_t *tool_legal_moves(void *ctx, kd_mcp_session *s, json_t *args, int *code, char *msg, size_t len)
{
    (void)s, (void)code, (void)msg, (void)len;
    /* the view members today's clients read beside the moves, and
     * "move_rules": what a type says of the choice beside the list (a
     * capture is mandatory, the side to move is in check) */
    static const char *const kept[] = {"current", "status", "move_rules", NULL};
    kd_episode_view v;
    kd_episode_view_init(&v);
    json_t *r = read_view_or_fail(ctx, arg_episode(args), &v);
    if (!r) {
        char text[1024];
        json_t *moves = view_moves(&v, text, sizeof text);
        /* games-mcp's discipline: the player picks exactly one of the list */
        json_t *out =
            json_pack("{s:i, s:s, s:s, s:o, s:o, s:o, s:{s:b, s:b}}", "episode_id", (json_int_t)v.episode_id, "type",
                      v.type_name, "phase", kd_game_phase_name(v.status.phase), "winner",
                      kd_gw_seat_json(v.type, v.status.winner), "to_move", kd_gw_seat_json(v.type, v.status.to_move),
                      "moves", moves, "policy", "must_choose_from_moves", 1, "choose_exactly_one", 1);
        json_t *vj = out ? kd_episode_view_json(&v) : NULL;
        copy_members(out, vj, kept);
        json_decref(vj);
        r = out ? kd_mcp_tool_result(out, text) : fail("out of memory");
    }
    kd_episode_view_fini(&v);
    return r;
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
        return fail("cannot list episodes: %s", kd_err_str(err));
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
        return fail("out of memory");
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

static json_t *tool_agent_pubkeys(void *ctx, kd_mcp_session *s, json_t *args, int *code, char *msg, size_t len)
{
    (void)s, (void)args, (void)code, (void)msg, (void)len;
    kd_gateway *gw = ctx;
    char names[KD_GW_MAX_AGENTS][KD_KEY_NAME_MAX + 1];
    size_t n = kd_gw_list_keys(gw, names, KD_GW_MAX_AGENTS);
    json_t *agents = json_array();
    kd_buf text;
    kd_buf_init(&text);
    for (size_t i = 0; i < n; i++) {
        kd_key key;
        char why[256], hex[2 * KD_PUBKEY_LEN + 1], line[200];
        if (kd_key_load(gw->keys_dir, names[i], &key, why, sizeof why) != KD_OK)
            continue;
        kd_hex_encode(key.pub.bytes, KD_PUBKEY_LEN, hex);
        memset(&key, 0, sizeof key);
        json_array_append_new(agents, json_pack("{s:s, s:s}", "name", names[i], "pubkey", hex));
        int k = snprintf(line, sizeof line, "%s %s\n", names[i], hex);
        if (kd_buf_append(&text, line, (size_t)k))
            break;
    }
    if (kd_buf_append(&text, "", 1)) {
        kd_buf_fini(&text);
        json_decref(agents);
        return fail("out of memory");
    }
    json_t *r = kd_mcp_tool_result(json_pack("{s:o}", "agents", agents), (char *)text.data);
    kd_buf_fini(&text);
    return r;
}

/* The default seats of a type: agent1..agentN for its minimum number of
 * seats N, or the first N keys of the key directory. */
static kd_err default_participants(kd_gateway *gw, const kd_episode_type *t, kd_participants *parts, char *why,
                                   size_t why_len)
{
    char names[KD_GW_MAX_AGENTS][KD_KEY_NAME_MAX + 1], agent[KD_KEY_NAME_MAX + 1];
    size_t n = kd_gw_list_keys(gw, names, KD_GW_MAX_AGENTS), need = t->min_seats, agents = 0;
    const char *seats[KD_MAX_PARTICIPANTS];
    for (size_t s = 0; s < need; s++) {
        snprintf(agent, sizeof agent, "agent%zu", s + 1);
        for (size_t i = 0; i < n; i++)
            if (strcmp(names[i], agent) == 0) {
                seats[s] = names[i];
                agents++;
            }
    }
    if (agents < need) {
        if (n < need) {
            kd_reject_write(why, why_len,
                            "no participants given, and the key directory %.300s holds %zu key%s where %s needs %zu",
                            gw->keys_dir, n, n == 1 ? "" : "s", t->ops->type_name, need);
            return KD_ERR_BAD_PARTICIPANTS;
        }
        for (size_t s = 0; s < need; s++)
            seats[s] = names[s];
    }
    for (size_t s = 0; s < need; s++) {
        kd_key key;
        kd_err err = kd_key_load(gw->keys_dir, seats[s], &key, why, why_len);
        if (err)
            return err;
        parts->keys[s] = key.pub;
        memset(&key, 0, sizeof key);
    }
    parts->count = need;
    return KD_OK;
}

static uint32_t fresh_episode_id(kd_gateway *gw)
{
    for (int tries = 0; tries < 32; tries++) {
        uint32_t id = 0;
        if (RAND_bytes((unsigned char *)&id, sizeof id) != 1)
            continue;
        id &= 0x7fffffffu;
        kd_episode_snapshot snap;
        if (id && kd_engine_episode_read(gw->o.engine, id, &snap) == KD_ERR_NOT_FOUND)
            return id;
        if (id)
            kd_episode_snapshot_fini(&snap);
    }
    return 0;
}

/* The NewEpisode payload of a start call, or the tool error. */
static json_t *start_payload(kd_gateway *gw, json_t *args, const kd_episode_type *t, uint32_t id, kd_buf *payload)
{
    char why[512] = "";
    kd_participants parts = {.count = 0};
    json_t *jp = json_object_get(args, "participants");
    if (jp && json_array_size(jp) > 0) {
        size_t i;
        json_t *item;
        json_array_foreach(jp, i, item)
        {
            kd_key key;
            int has_secret;
            if (i >= KD_MAX_PARTICIPANTS)
                return fail("at most %d participants", KD_MAX_PARTICIPANTS);
            if (kd_gw_resolve_key(gw, json_string_value(item), 1, &key, &parts.keys[i], &has_secret, why, sizeof why) !=
                KD_OK)
                return fail("participant %zu: %s", i, why);
            memset(&key, 0, sizeof key);
            parts.count = i + 1;
        }
        if (kd_gw_check_seats(t, parts.count, why, sizeof why) != KD_OK)
            return fail("%s", why);
    } else if (default_participants(gw, t, &parts, why, sizeof why) != KD_OK) {
        return fail("%s", why);
    }
    json_t *params = kd_gw_start_params(args, why, sizeof why);
    if (!params)
        return fail("%s", why);
    if (kd_gw_commit_secrets(gw, t, id, &parts, params, why, sizeof why) != KD_OK) {
        json_decref(params);
        return fail("params of %s: %s", t->ops->type_name, why);
    }
    kd_buf pbytes;
    kd_buf_init(&pbytes);
    json_t *r = NULL;
    char what[64];
    snprintf(what, sizeof what, "params of %s", t->ops->type_name);
    if (!kd_gw_check_json(kd_gw_type_schema(gw, t, 0), params, what, why, sizeof why))
        r = fail("%s (kdapp://types has the params_schema of each type)", why);
    else if (t->params_from_json(params, &pbytes, why, sizeof why) != KD_OK)
        r = fail("params of %s: %s", t->ops->type_name, why);
    else if (kd_gw_creation_payload(gw, t, id, &parts, pbytes.data, pbytes.len, payload) != KD_OK)
        r = fail("cannot build the new episode's payload (or sign a consent)");
    json_decref(params);
    kd_buf_fini(&pbytes);
    return r;
}

static json_t *tool_start(void *ctx, kd_mcp_session *s, json_t *args, int *code, char *msg, size_t len)
{
    (void)s, (void)code, (void)msg, (void)len;
    kd_gateway *gw = ctx;
    const char *type_name = json_string_value(json_object_get(args, "type"));
    const kd_episode_type *t = kd_gw_type(gw, type_name);
    if (!t)
        return fail("there is no episode type '%s' (kdapp://types lists them)", type_name);
    json_t *jid = json_object_get(args, "episode_id");
    uint32_t id = jid ? (uint32_t)json_integer_value(jid) : fresh_episode_id(gw);
    if (!id)
        return fail("could not pick a free episode id");
    kd_buf payload;
    kd_buf_init(&payload);
    json_t *r = start_payload(gw, args, t, id, &payload);
    char why[512] = "";
    kd_gw_outcome out;
    int maybe = 0;
    kd_err err = r ? KD_OK : kd_gw_submit_and_wait(gw, &payload, &out, &maybe, why, sizeof why);
    kd_buf_fini(&payload);
    if (r)
        return r;
    if (err && !maybe)
        return fail("the episode was not created: %s", why);
    if (err)
        return fail("episode %u is not confirmed: %s. It may still be created: kdapp_get_episode_state with "
                    "episode_id %u shows it once a block carrying it is applied",
                    id, why, id);
    if (!out.applied)
        return fail("the chain rejected the new episode %u: %s: %s", id, out.error_code, out.error);
    kd_episode_view v;
    kd_episode_view_init(&v);
    if (!(r = read_view_or_fail(gw, id, &v))) {
        char *text = view_text(&v);
        r = kd_mcp_tool_result(json_pack("{s:i, s:o}", "episode_id", (json_int_t)id, "view", kd_episode_view_json(&v)),
                               text);
        free(text);
    }
    kd_episode_view_fini(&v);
    return r;
}

/* The seat of `pub` among the participants, or KD_SEAT_NONE. */
static int seat_of(const kd_participants *parts, const kd_pubkey *pub)
{
    for (size_t i = 0; i < parts->count; i++)
        if (memcmp(parts->keys[i].bytes, pub->bytes, KD_PUBKEY_LEN) == 0)
            return (int)i;
    return KD_SEAT_NONE;
}

/* How a command is signed (kdapp_execute_command): by the client (pubkey
 * and signature), by a named key, or by the gateway's key of the seat to
 * move. *seat is the acting seat (the signer's seat when it is one, else
 * the seat to move), what the type's command_from_json receives. */
typedef struct {
    int presigned;
    kd_pubkey pub;
    uint8_t sig[KD_SIG_MAX_LEN];
    size_t sig_len;
    kd_key key; /* when not presigned; wiped by the caller */
    int seat;
} signing;

static json_t *choose_signer(kd_gateway *gw, json_t *args, const kd_episode_snapshot *snap, const kd_episode_type *t,
                             signing *sg)
{
    char why[512];
    const char *signer = json_string_value(json_object_get(args, "signer"));
    const char *pub_hex = json_string_value(json_object_get(args, "pubkey"));
    const char *sig_hex = json_string_value(json_object_get(args, "signature"));
    int to_move = t->status(snap->state).to_move;
    if (pub_hex || sig_hex) {
        sg->presigned = 1;
        sg->sig_len = sig_hex ? strlen(sig_hex) / 2 : 0;
        if (!pub_hex || !sig_hex)
            return fail("a client-signed command needs both pubkey and signature");
        if (strlen(pub_hex) != 2 * KD_PUBKEY_LEN || kd_hex_decode(pub_hex, sg->pub.bytes, KD_PUBKEY_LEN) != 0)
            return fail("pubkey must be 66 hex digits (a compressed secp256k1 key)");
        if (sg->sig_len == 0 || sg->sig_len > KD_SIG_MAX_LEN || kd_hex_decode(sig_hex, sg->sig, sg->sig_len) != 0)
            return fail("signature must be hex: 64 bytes compact or DER (up to 72 bytes)");
        sg->seat = seat_of(&snap->participants, &sg->pub);
    } else if (signer) {
        int has_secret;
        if (kd_gw_resolve_key(gw, signer, 0, &sg->key, &sg->pub, &has_secret, why, sizeof why) != KD_OK)
            return fail("signer: %s", why);
        sg->seat = seat_of(&snap->participants, &sg->pub);
    } else {
        /* The seat to move; when no single seat is (the game is over), the
         * first seat the gateway holds a key of, so that the rules answer. */
        char name[KD_KEY_NAME_MAX + 1];
        int found = 0;
        for (size_t i = 0; !found && i < snap->participants.count; i++) {
            int seat = to_move >= 0 ? to_move : (int)i;
            found = (size_t)seat < snap->participants.count &&
                    kd_gw_find_key(gw, &snap->participants.keys[seat], &sg->key, name, sizeof name) == KD_OK;
            if (found)
                sg->seat = seat;
            if (to_move >= 0)
                break;
        }
        if (!found && to_move >= 0)
            return fail("no key in %.300s belongs to the seat to move, seat %s of episode %u: name a signer, or pass "
                        "pubkey and signature",
                        gw->keys_dir, kd_episode_type_seat_name(t, to_move), snap->id);
        if (!found)
            return fail("no key in %.300s belongs to a seat of episode %u: name a signer, or pass pubkey and "
                        "signature",
                        gw->keys_dir, snap->id);
        return NULL;
    }
    if (sg->seat == KD_SEAT_NONE)
        sg->seat = to_move;
    return NULL;
}

/* Builds the signed payload of a command (see kdapp_execute_command). */
static json_t *command_payload(kd_gateway *gw, json_t *args, const kd_episode_snapshot *snap, const kd_episode_type *t,
                               kd_buf *payload)
{
    char why[512];
    json_t *command = json_object_get(args, "command");
    signing sg;
    memset(&sg, 0, sizeof sg);
    sg.seat = KD_SEAT_NONE;
    kd_buf cmd;
    kd_buf_init(&cmd);
    json_t *r = choose_signer(gw, args, snap, t, &sg), *filled = NULL;
    kd_err ferr = r || sg.presigned ? KD_OK : kd_gw_fill_entropy(gw, t, command, &filled);
    if (ferr)
        r = fail("cannot fill the command's entropy: %s", kd_err_str(ferr));
    if (filled)
        command = filled;
    if (!r && !kd_gw_check_json(kd_gw_type_schema(gw, t, 1), command, "command", why, sizeof why))
        r = fail("%s (a %s command: kdapp://types has its command_schema; kdapp_legal_moves lists the legal ones)", why,
                 t->ops->type_name);
    else if (!r && t->command_from_json(command, sg.seat, &cmd, why, sizeof why) != KD_OK)
        r = fail("command: %s", why);
    kd_err err = KD_OK;
    if (!r && sg.presigned)
        err = kd_wire_presigned_command(snap->id, cmd.data, cmd.len, &sg.pub, sg.sig, sg.sig_len, payload);
    else if (!r)
        err = kd_wire_signed_command(snap->id, cmd.data, cmd.len, &sg.key, snap->undo_depth, payload);
    if (!r && err)
        r = fail("cannot build the command: %s", kd_err_str(err));
    memset(&sg.key, 0, sizeof sg.key);
    kd_buf_fini(&cmd);
    json_decref(filled);
    return r;
}

/* The answer to a command whose block was applied: {legal: true, view},
 * or the error result {legal: false, error, error_code, legal_moves, view}. */
static json_t *command_answer(kd_gateway *gw, uint32_t id, const kd_gw_outcome *out)
{
    kd_episode_view v;
    kd_episode_view_init(&v);
    json_t *r = read_view_or_fail(gw, id, &v);
    if (r) {
        kd_episode_view_fini(&v);
        return r;
    }
    char *board = view_text(&v);
    if (out->applied) {
        r = kd_mcp_tool_result(json_pack("{s:b, s:o}", "legal", 1, "view", kd_episode_view_json(&v)), board);
    } else {
        char moves_text[1024], text[2600];
        json_t *moves = view_moves(&v, moves_text, sizeof moves_text);
        snprintf(text, sizeof text, "illegal command (%s): %s\n%s\n%s", out->error_code, out->error, moves_text,
                 board ? board : "");
        json_t *sc = json_pack("{s:b, s:s, s:s, s:o, s:o}", "legal", 0, "error", out->error, "error_code",
                               out->error_code, "legal_moves", moves, "view", kd_episode_view_json(&v));
        r = kd_mcp_tool_result(sc, text);
        if (r)
            json_object_set_new(r, "isError", json_true());
    }
    free(board);
    kd_episode_view_fini(&v);
    return r;
}

static json_t *tool_execute(void *ctx, kd_mcp_session *s, json_t *args, int *code, char *msg, size_t len)
{
    (void)s, (void)code, (void)msg, (void)len;
    kd_gateway *gw = ctx;
    uint32_t id = arg_episode(args);
    kd_episode_snapshot snap;
    kd_err err = kd_engine_episode_read(gw->o.engine, id, &snap);
    if (err == KD_ERR_NOT_FOUND)
        return fail("episode %u does not exist; kdapp_list_episodes lists the episodes", id);
    if (err)
        return fail("cannot read episode %u: %s", id, kd_err_str(err));
    const kd_episode_type *t = kd_gw_type(gw, snap.ops->type_name);
    kd_buf payload;
    kd_buf_init(&payload);
    json_t *r = t ? command_payload(gw, args, &snap, t, &payload)
                  : fail("episode %u is of type %s, which this gateway does not serve (kdapp://types lists its types)",
                         id, snap.ops->type_name);
    kd_episode_snapshot_fini(&snap);
    char why[512] = "";
    kd_gw_outcome out;
    int maybe = 0;
    if (!r && (err = kd_gw_submit_and_wait(gw, &payload, &out, &maybe, why, sizeof why))) {
        if (maybe)
            r = fail("the command is not confirmed: %s. It may still be applied: kdapp_get_episode_state for "
                     "episode %u shows whether it was (log_seq, and the type's own members)",
                     why, id);
        else
            r = fail("the command was not submitted: %s", why);
    }
    kd_buf_fini(&payload);
    return r ? r : command_answer(gw, id, &out);
}

static json_t *tool_reorg(void *ctx, kd_mcp_session *s, json_t *args, int *code, char *msg, size_t len)
{
    (void)s, (void)code, (void)msg, (void)len;
    kd_gateway *gw = ctx;
    json_int_t depth = json_integer_value(json_object_get(args, "depth"));
    char why[512] = "";
    json_t *report = NULL;
    kd_err err = gw->o.chain.reorg(gw->o.chain.ctx, (uint32_t)depth, &report, why, sizeof why);
    if (err) {
        json_decref(report);
        if (outcome_unknown(err))
            return fail("the reorg is not confirmed: %s. It may still happen: kdapp_get_episode_state shows the "
                        "episodes as the chain has them",
                        why[0] ? why : kd_err_str(err));
        return fail("the reorg did not happen: %s", why[0] ? why : kd_err_str(err));
    }
    char text[256];
    snprintf(text, sizeof text, "reverted %lld blocks; %lld transactions re-included, %lld dropped",
             (long long)json_integer_value(json_object_get(report, "reverted")),
             (long long)json_integer_value(json_object_get(report, "reincluded")),
             (long long)json_integer_value(json_object_get(report, "dropped")));
    return kd_mcp_tool_result(report, text);
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
                               "\"view\":" VIEW_SCHEMA "},\"required\":[\"episode_id\",\"view\"]}",
         .open_world_hint = 1,
         .writes = 1,
         .meta_json = KD_GW_WIDGET_META,
         .call = tool_start},
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
         .call = tool_execute},
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
         .call = tool_get_state},
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
         .call = tool_strategy},
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
         .call = tool_legal_moves},
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
         .description = "The keys the gateway can sign with (its key directory), by name.",
         .input_schema_json = "{\"type\":\"object\",\"properties\":{}}",
         .output_schema_json = "{\"type\":\"object\",\"properties\":{\"agents\":{\"type\":\"array\",\"items\":"
                               "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},"
                               "\"pubkey\":{\"type\":\"string\"}},\"required\":[\"name\",\"pubkey\"]}}},"
                               "\"required\":[\"agents\"]}",
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
    if (err || !gw->o.chain.reorg)
        return err;
    kd_mcp_tool reorg = {
        .name = "kdapp_simulate_reorg",
        .title = "Simulate a reorg (devnet)",
        .description = "Makes the devnet revert its last `depth` blocks and re-include their transactions in new "
                       "blocks, as a real chain reorganisation would; subscribers see the rollback.",
        .input_schema_json = "{\"type\":\"object\",\"properties\":{\"depth\":{\"type\":\"integer\",\"minimum\":1,"
                             "\"maximum\":1000}},\"required\":[\"depth\"]}",
        .output_schema_json = "{\"type\":\"object\",\"properties\":{\"reverted\":{\"type\":\"integer\"},"
                              "\"reincluded\":{\"type\":\"integer\"},\"dropped\":{\"type\":\"integer\"},"
                              "\"height\":{\"type\":\"integer\"}},\"required\":[\"reverted\"]}",
        .destructive_hint = 1,
        .open_world_hint = 1,
        .writes = 1,
        .call = tool_reorg,
        .ctx = gw,
    };
    return kd_mcp_server_add_tool(gw->srv, &reorg);
}
