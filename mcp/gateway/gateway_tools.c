/*
 * gateway_tools.c — the kdapp tools. Each validates its arguments (the
 * server already checked them against the inputSchema), reads or writes
 * through the gateway, and answers structuredContent plus a text rendering.
 * A failed call (unknown episode, illegal move) is a result with isError and
 * text an agent can act on, such as the legal moves.
 */
#include <openssl/rand.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/wire.h"
#include "episodes/tictactoe.h"
#include "mcp/gateway/gateway_int.h"

#define LIST_PAGE 50

/* ------------------------------------------------------------ schemas */

#define CELL_SCHEMA                                                                                       \
    "{\"type\":\"object\",\"properties\":{\"row\":{\"type\":\"integer\"},\"col\":{\"type\":\"integer\"}," \
    "\"player\":{\"type\":\"string\",\"enum\":[\"X\",\"O\"]}},\"required\":[\"row\",\"col\",\"player\"]}"
#define BOARD_SCHEMA                                                                                   \
    "{\"type\":\"array\",\"items\":{\"type\":\"array\",\"items\":{\"type\":\"integer\",\"minimum\":0," \
    "\"maximum\":2},\"minItems\":3,\"maxItems\":3},\"minItems\":3,\"maxItems\":3}"
#define VIEW_SCHEMA                                                                                              \
    "{\"type\":\"object\",\"properties\":{"                                                                      \
    "\"episode_id\":{\"type\":\"integer\"},\"type\":{\"type\":\"string\"},"                                      \
    "\"participants\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"                                     \
    "\"board\":" BOARD_SCHEMA ",\"current\":{\"type\":\"string\",\"enum\":[\"X\",\"O\"]},"                       \
    "\"status\":{\"type\":\"string\",\"enum\":[\"in_progress\",\"x_won\",\"o_won\",\"draw\"]},"                  \
    "\"cap\":{\"type\":[\"integer\",\"null\"]},\"recent_moves\":{\"type\":\"array\",\"items\":" CELL_SCHEMA "}," \
    "\"next_to_remove\":{\"oneOf\":[" CELL_SCHEMA ",{\"type\":\"null\"}]},"                                      \
    "\"move_count\":{\"type\":\"integer\"},\"last_event\":{\"type\":\"string\"},"                                \
    "\"block_hash\":{\"type\":\"string\"},\"log_seq\":{\"type\":\"integer\"},"                                   \
    "\"digest\":{\"type\":\"string\"},\"deleted\":{\"type\":\"boolean\"}},"                                      \
    "\"required\":[\"episode_id\",\"type\",\"participants\",\"last_event\",\"block_hash\",\"log_seq\",\"digest\"]}"
#define EPISODE_ARG                                                              \
    "\"episode_id\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":4294967295," \
    "\"description\":\"The episode's id (kdapp_list_episodes lists them).\"}"

/* ------------------------------------------------------------ helpers */

__attribute__((format(printf, 1, 2))) static json_t *fail(const char *fmt, ...)
{
    char text[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return kd_mcp_tool_error(text);
}

static uint32_t arg_episode(json_t *args) { return (uint32_t)json_integer_value(json_object_get(args, "episode_id")); }

static char *board_text(const kd_episode_view *v)
{
    kd_buf b;
    kd_buf_init(&b);
    char head[96];
    int n = snprintf(head, sizeof head, "episode %u (%s)\n", v->episode_id, v->type);
    if (kd_buf_append(&b, head, (size_t)n) || (v->has_ttt && kd_render_board(&v->ttt, &b)) ||
        kd_buf_append(&b, "", 1)) {
        kd_buf_fini(&b);
        return NULL;
    }
    return (char *)b.data;
}

static json_t *legal_moves_json(const kd_episode_view *v)
{
    json_t *arr = json_array();
    if (!arr || !v->has_ttt || v->ttt.status != KD_TTT_IN_PROGRESS)
        return arr;
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            if (v->ttt.board[r][c] == KD_TTT_EMPTY)
                json_array_append_new(arr, json_pack("{s:i, s:i}", "row", r, "col", c));
    return arr;
}

static void legal_moves_text(const kd_episode_view *v, char *out, size_t len)
{
    size_t n = (size_t)snprintf(out, len, "legal moves for %c:", v->has_ttt ? kd_ttt_symbol_char(v->ttt.current) : '?');
    int any = 0;
    for (int r = 0; v->has_ttt && v->ttt.status == KD_TTT_IN_PROGRESS && r < 3; r++)
        for (int c = 0; c < 3; c++)
            if (v->ttt.board[r][c] == KD_TTT_EMPTY && n < len) {
                n += (size_t)snprintf(out + n, len - n, " (%d,%d)", r, c);
                any = 1;
            }
    if (!any && n < len)
        snprintf(out + n, len - n, " none (the game is over)");
}

/* Reads a view or produces the tool error for it. */
static json_t *read_view_or_fail(kd_gateway *gw, uint32_t id, kd_episode_view *v)
{
    kd_err err = kd_gw_read_view(gw, id, v);
    if (err == KD_ERR_NOT_FOUND)
        return fail("episode %u does not exist; kdapp_list_episodes lists the episodes, "
                    "kdapp_start_episode creates one",
                    id);
    if (err)
        return fail("cannot read episode %u: %s", id, kd_err_str(err));
    return NULL;
}

/* Reads the tic-tac-toe episode named by args.episode_id for a tool that
 * needs its board (`what` names the tool's answer in the error). */
static json_t *read_ttt_or_fail(kd_gateway *gw, json_t *args, kd_episode_view *v, const char *what)
{
    json_t *e = read_view_or_fail(gw, arg_episode(args), v);
    if (!e && !v->has_ttt)
        e = fail("episode %u is a %s, which has no %s", v->episode_id, v->type, what);
    return e;
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
static kd_err submit_and_wait(kd_gateway *gw, const kd_buf *payload, kd_gw_outcome *out, int *maybe, char *why,
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
    json_t *e = read_view_or_fail(ctx, arg_episode(args), &v);
    if (e)
        return e;
    char *text = board_text(&v);
    json_t *r = kd_mcp_tool_result(kd_episode_view_json(&v), text);
    free(text);
    return r;
}

static json_t *tool_strategy(void *ctx, kd_mcp_session *s, json_t *args, int *code, char *msg, size_t len)
{
    (void)s, (void)code, (void)msg, (void)len;
    kd_episode_view v;
    json_t *e = read_ttt_or_fail(ctx, args, &v, "strategy context");
    if (e)
        return e;
    json_t *sc = kd_strategy_context_json(&v.ttt);
    char *text = json_dumps(sc, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_t *r = kd_mcp_tool_result(sc, text);
    free(text);
    return r;
}

static json_t *tool_legal_moves(void *ctx, kd_mcp_session *s, json_t *args, int *code, char *msg, size_t len)
{
    (void)s, (void)code, (void)msg, (void)len;
    kd_episode_view v;
    json_t *e = read_ttt_or_fail(ctx, args, &v, "legal-move list");
    if (e)
        return e;
    char text[256];
    legal_moves_text(&v, text, sizeof text);
    char cur[2] = {kd_ttt_symbol_char(v.ttt.current), 0};
    return kd_mcp_tool_result(json_pack("{s:i, s:s, s:s, s:o}", "episode_id", (json_int_t)v.episode_id, "current", cur,
                                        "status", kd_ttt_status_name(v.ttt.status), "moves", legal_moves_json(&v)),
                              text);
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
    for (size_t i = 0; i < n && !err; i++) {
        const kd_episode_view *v = &views[i];
        json_array_append_new(eps, kd_gw_summary_json(v));
        char line[128];
        int k = snprintf(line, sizeof line, "episode %u: %s, %s, %u moves, %s\n", v->episode_id, v->type,
                         v->has_ttt ? kd_ttt_status_name(v->ttt.status) : "-", v->has_ttt ? v->ttt.move_count : 0,
                         v->has_ttt && v->ttt.cap ? "stress" : "classic");
        err = kd_buf_append(&text, line, (size_t)k);
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

/* The default seats: agent1 as X, agent2 as O (or the first two keys). */
static kd_err default_participants(kd_gateway *gw, kd_participants *parts, char *why, size_t why_len)
{
    char names[KD_GW_MAX_AGENTS][KD_KEY_NAME_MAX + 1];
    size_t n = kd_gw_list_keys(gw, names, KD_GW_MAX_AGENTS);
    const char *x = NULL, *o = NULL;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(names[i], "agent1") == 0)
            x = "agent1";
        if (strcmp(names[i], "agent2") == 0)
            o = "agent2";
    }
    if (!x || !o) {
        if (n < 2) {
            snprintf(why, why_len, "no participants given and the key directory %.300s holds fewer than two keys",
                     gw->keys_dir);
            return KD_ERR_BAD_PARTICIPANTS;
        }
        x = names[0];
        o = names[1];
    }
    const char *seats[2] = {x, o};
    for (int i = 0; i < 2; i++) {
        kd_key key;
        kd_err err = kd_key_load(gw->keys_dir, seats[i], &key, why, why_len);
        if (err)
            return err;
        parts->keys[i] = key.pub;
        memset(&key, 0, sizeof key);
    }
    parts->count = 2;
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

static json_t *tool_start(void *ctx, kd_mcp_session *s, json_t *args, int *code, char *msg, size_t len)
{
    (void)s, (void)code, (void)msg, (void)len;
    kd_gateway *gw = ctx;
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
        if (parts.count != 2)
            return fail("tic-tac-toe needs exactly two participants (X then O), got %zu", parts.count);
    } else if (default_participants(gw, &parts, why, sizeof why) != KD_OK) {
        return fail("%s", why);
    }
    json_t *jcap = json_object_get(args, "cap");
    json_t *jid = json_object_get(args, "episode_id");
    uint32_t id = jid ? (uint32_t)json_integer_value(jid) : fresh_episode_id(gw);
    if (!id)
        return fail("could not pick a free episode id");
    kd_buf params, payload;
    kd_buf_init(&params);
    kd_buf_init(&payload);
    kd_err err =
        jcap && json_is_integer(jcap) ? kd_ttt_params_encode((uint32_t)json_integer_value(jcap), &params) : KD_OK;
    if (!err)
        err = kd_wire_new_episode(id, KD_TTT_TYPE_NAME, &parts, params.data, params.len, &payload);
    kd_buf_fini(&params);
    kd_gw_outcome out;
    int maybe = 0;
    if (err)
        snprintf(why, sizeof why, "cannot build the payload: %s", kd_err_str(err));
    else
        err = submit_and_wait(gw, &payload, &out, &maybe, why, sizeof why);
    kd_buf_fini(&payload);
    if (err && !maybe)
        return fail("the episode was not created: %s", why);
    if (err)
        return fail("episode %u is not confirmed: %s. It may still be created: kdapp_get_episode_state with "
                    "episode_id %u shows it once a block carrying it is applied",
                    id, why, id);
    if (!out.applied)
        return fail("the chain rejected the new episode %u: %s: %s", id, out.error_code, out.error);
    kd_episode_view v;
    json_t *e = read_view_or_fail(gw, id, &v);
    if (e)
        return e;
    char *text = board_text(&v);
    json_t *r = kd_mcp_tool_result(
        json_pack("{s:i, s:o}", "episode_id", (json_int_t)id, "view", kd_episode_view_json(&v)), text);
    free(text);
    return r;
}

/* Builds the signed payload for a move (see kdapp_execute_command). */
static json_t *sign_move(kd_gateway *gw, json_t *args, const kd_episode_snapshot *snap, uint8_t player,
                         const kd_buf *cmd, kd_buf *payload)
{
    char why[512];
    const char *signer = json_string_value(json_object_get(args, "signer"));
    const char *pub_hex = json_string_value(json_object_get(args, "pubkey"));
    const char *sig_hex = json_string_value(json_object_get(args, "signature"));
    kd_key key;
    kd_err err;
    if (pub_hex || sig_hex) {
        kd_pubkey pub;
        uint8_t sig[KD_SIG_MAX_LEN];
        size_t sig_len = sig_hex ? strlen(sig_hex) / 2 : 0;
        if (!pub_hex || !sig_hex)
            return fail("a client-signed move needs both pubkey and signature");
        if (strlen(pub_hex) != 2 * KD_PUBKEY_LEN || kd_hex_decode(pub_hex, pub.bytes, KD_PUBKEY_LEN) != 0)
            return fail("pubkey must be 66 hex digits (a compressed secp256k1 key)");
        if (sig_len == 0 || sig_len > KD_SIG_MAX_LEN || kd_hex_decode(sig_hex, sig, sig_len) != 0)
            return fail("signature must be hex: 64 bytes compact or DER (up to 72 bytes)");
        err = kd_wire_presigned_command(snap->id, cmd->data, cmd->len, &pub, sig, sig_len, payload);
    } else {
        if (signer) {
            int has_secret;
            kd_pubkey pub;
            if (kd_gw_resolve_key(gw, signer, 0, &key, &pub, &has_secret, why, sizeof why) != KD_OK)
                return fail("signer: %s", why);
        } else {
            char name[KD_KEY_NAME_MAX + 1];
            if (player >= snap->participants.count ||
                kd_gw_find_key(gw, &snap->participants.keys[player], &key, name, sizeof name) != KD_OK)
                return fail("no key in %.300s belongs to %c's seat: name a signer, or pass pubkey and signature",
                            gw->keys_dir, player ? 'O' : 'X');
        }
        err = kd_wire_signed_command(snap->id, cmd->data, cmd->len, &key, snap->undo_depth, payload);
        memset(&key, 0, sizeof key);
    }
    return err ? fail("cannot build the move: %s", kd_err_str(err)) : NULL;
}

static json_t *tool_execute(void *ctx, kd_mcp_session *s, json_t *args, int *code, char *msg, size_t len)
{
    (void)s, (void)code, (void)msg, (void)len;
    kd_gateway *gw = ctx;
    uint32_t id = arg_episode(args);
    json_t *command = json_object_get(args, "command");
    json_int_t row = json_integer_value(json_object_get(command, "row"));
    json_int_t col = json_integer_value(json_object_get(command, "col"));
    const char *player = json_string_value(json_object_get(command, "player"));
    uint8_t side = player && strcmp(player, "O") == 0 ? 1 : 0;
    kd_episode_snapshot snap;
    kd_err err = kd_engine_episode_read(gw->o.engine, id, &snap);
    if (err == KD_ERR_NOT_FOUND)
        return fail("episode %u does not exist; kdapp_list_episodes lists the episodes", id);
    if (err)
        return fail("cannot read episode %u: %s", id, kd_err_str(err));
    kd_buf cmd, payload;
    kd_buf_init(&cmd);
    kd_buf_init(&payload);
    json_t *r = NULL;
    if (kd_ttt_move_encode((uint8_t)row, (uint8_t)col, side, &cmd) != KD_OK) {
        r = fail("out of memory");
        goto done;
    }
    if ((r = sign_move(gw, args, &snap, side, &cmd, &payload)))
        goto done;
    char why[512] = "";
    kd_gw_outcome out;
    int maybe = 0;
    if ((err = submit_and_wait(gw, &payload, &out, &maybe, why, sizeof why))) {
        if (maybe)
            r = fail("the move is not confirmed: %s. It may still be applied: kdapp_get_episode_state for "
                     "episode %u shows whether it was (move_count, recent_moves)",
                     why, id);
        else
            r = fail("the move was not submitted: %s", why);
        goto done;
    }
    kd_episode_view v;
    if ((r = read_view_or_fail(gw, id, &v)))
        goto done;
    char *board = board_text(&v);
    if (out.applied) {
        r = kd_mcp_tool_result(json_pack("{s:b, s:o}", "legal", 1, "view", kd_episode_view_json(&v)), board);
    } else {
        char moves[256], text[1400];
        legal_moves_text(&v, moves, sizeof moves);
        snprintf(text, sizeof text, "illegal move (%s): %s\n%s\n%s", out.error_code, out.error, moves,
                 board ? board : "");
        json_t *sc = json_pack("{s:b, s:s, s:s, s:o, s:o}", "legal", 0, "error", out.error, "error_code",
                               out.error_code, "legal_moves", legal_moves_json(&v), "view", kd_episode_view_json(&v));
        r = kd_mcp_tool_result(sc, text);
        if (r)
            json_object_set_new(r, "isError", json_true());
    }
    free(board);
done:
    kd_buf_fini(&cmd);
    kd_buf_fini(&payload);
    kd_episode_snapshot_fini(&snap);
    return r;
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
                        "boards as the chain has them",
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
    const kd_mcp_tool tools[] = {
        {.name = "kdapp_start_episode",
         .title = "Start a tic-tac-toe episode",
         .description = "Creates a tic-tac-toe episode on the chain and returns its id and view once the block "
                        "carrying it is applied. Without participants, the gateway's agent keys agent1 (X) and "
                        "agent2 (O) are seated. cap 1-8 turns on stress mode (at most cap symbols; the oldest is "
                        "removed before each move), 9 means classic, absent means the engine default.",
         .input_schema_json = "{\"type\":\"object\",\"properties\":{"
                              "\"participants\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"maxItems\":8,"
                              "\"description\":\"X then O: key names, test:NAME, or 66-hex public keys\"},"
                              "\"cap\":{\"type\":[\"integer\",\"null\"],\"minimum\":1,\"maximum\":255},"
                              "\"episode_id\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":4294967295}}}",
         .output_schema_json = "{\"type\":\"object\",\"properties\":{\"episode_id\":{\"type\":\"integer\"},"
                               "\"view\":" VIEW_SCHEMA "},\"required\":[\"episode_id\",\"view\"]}",
         .open_world_hint = 1,
         .writes = 1,
         .call = tool_start},
        {.name = "kdapp_execute_command",
         .title = "Play a move",
         .description = "Submits a move and answers after the block carrying it is applied: {legal: true, view} or, "
                        "for an illegal move, an error result {legal: false, error, legal_moves, view} with the "
                        "unchanged view. The move is signed server-side by `signer` (a key name), by the gateway's "
                        "key of the mover's seat when no signer is given, or carries the client's pubkey and "
                        "signature (hex) over the digest documented in the README.",
         .input_schema_json = "{\"type\":\"object\",\"properties\":{" EPISODE_ARG ","
                              "\"command\":{\"type\":\"object\",\"properties\":{"
                              "\"type\":{\"type\":\"string\",\"enum\":[\"move\"]},"
                              "\"row\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":255},"
                              "\"col\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":255},"
                              "\"player\":{\"type\":\"string\",\"enum\":[\"X\",\"O\"]}},"
                              "\"required\":[\"type\",\"row\",\"col\",\"player\"]},"
                              "\"signer\":{\"type\":\"string\"},\"pubkey\":{\"type\":\"string\"},"
                              "\"signature\":{\"type\":\"string\"}},\"required\":[\"episode_id\",\"command\"]}",
         .output_schema_json = "{\"type\":\"object\",\"properties\":{\"legal\":{\"type\":\"boolean\"},"
                               "\"error\":{\"type\":\"string\"},\"error_code\":{\"type\":\"string\"},"
                               "\"legal_moves\":{\"type\":\"array\"},\"view\":" VIEW_SCHEMA "},"
                               "\"required\":[\"legal\",\"view\"]}",
         .open_world_hint = 1,
         .writes = 1,
         .call = tool_execute},
        {.name = "kdapp_get_episode_state",
         .title = "Episode state",
         .description = "The enriched view of an episode: board, side to move, status, stress cap, recent moves "
                        "oldest to newest, the mark removed next, and the block and digest it reflects.",
         .input_schema_json = "{\"type\":\"object\",\"properties\":{" EPISODE_ARG "},\"required\":[\"episode_id\"]}",
         .output_schema_json = VIEW_SCHEMA,
         .read_only_hint = 1,
         .idempotent_hint = 1,
         .quick = 1,
         .call = tool_get_state},
        {.name = "kdapp_get_strategy_context",
         .title = "Strategy context",
         .description = "What a player needs before moving: board (0 empty, 1 X, 2 O), current side, cap (null in "
                        "classic mode), next_to_remove (the mark removed before the next move when the window is "
                        "full), recent_moves oldest to newest, and rule_text. Call it every turn.",
         .input_schema_json = "{\"type\":\"object\",\"properties\":{" EPISODE_ARG "},\"required\":[\"episode_id\"]}",
         .output_schema_json =
             "{\"type\":\"object\",\"properties\":{\"board\":" BOARD_SCHEMA ","
             "\"current\":{\"type\":\"string\",\"enum\":[\"X\",\"O\"]},"
             "\"cap\":{\"type\":[\"integer\",\"null\"]},"
             "\"next_to_remove\":{\"oneOf\":[" CELL_SCHEMA ",{\"type\":\"null\"}]},"
             "\"recent_moves\":{\"type\":\"array\",\"items\":" CELL_SCHEMA "},"
             "\"rule_text\":{\"type\":\"string\"}},"
             "\"required\":[\"board\",\"current\",\"cap\",\"next_to_remove\",\"recent_moves\",\"rule_text\"],"
             "\"additionalProperties\":false}",
         .read_only_hint = 1,
         .idempotent_hint = 1,
         .quick = 1,
         .call = tool_strategy},
        {.name = "kdapp_legal_moves",
         .title = "Legal moves",
         .description = "The empty cells the side to move may play (none once the game is over).",
         .input_schema_json = "{\"type\":\"object\",\"properties\":{" EPISODE_ARG "},\"required\":[\"episode_id\"]}",
         .output_schema_json = "{\"type\":\"object\",\"properties\":{\"episode_id\":{\"type\":\"integer\"},"
                               "\"current\":{\"type\":\"string\"},\"status\":{\"type\":\"string\"},"
                               "\"moves\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
                               "\"row\":{\"type\":\"integer\"},\"col\":{\"type\":\"integer\"}}}}},"
                               "\"required\":[\"episode_id\",\"current\",\"status\",\"moves\"]}",
         .read_only_hint = 1,
         .idempotent_hint = 1,
         .quick = 1,
         .call = tool_legal_moves},
        {.name = "kdapp_list_episodes",
         .title = "List episodes",
         .description = "Episodes in id order, 50 a page; pass nextCursor back as cursor for the next page.",
         .input_schema_json = "{\"type\":\"object\",\"properties\":{\"cursor\":{\"type\":\"string\"}}}",
         .output_schema_json = "{\"type\":\"object\",\"properties\":{\"episodes\":{\"type\":\"array\",\"items\":"
                               "{\"type\":\"object\",\"properties\":{\"episode_id\":{\"type\":\"integer\"},"
                               "\"type\":{\"type\":\"string\"},\"status\":{\"type\":\"string\"},"
                               "\"move_count\":{\"type\":\"integer\"},\"cap\":{\"type\":[\"integer\",\"null\"]}},"
                               "\"required\":[\"episode_id\",\"type\"]}},\"nextCursor\":{\"type\":\"string\"}},"
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
    for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++) {
        kd_mcp_tool t = tools[i];
        t.ctx = gw;
        kd_err err = kd_mcp_server_add_tool(gw->srv, &t);
        if (err)
            return err;
    }
    if (!gw->o.chain.reorg)
        return KD_OK;
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
