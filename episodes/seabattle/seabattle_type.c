/*
 * seabattle_type.c — sea battle's entry in the type table: schemas, JSON
 * for params and commands, status, legal moves, random commands, and the
 * secret hooks (a seat's root from its seed at creation; the answer to a
 * shot and the final reveal as duties). Views are in seabattle_view.c, the
 * bot in seabattle_bot.c. Pure functions.
 *
 * Command JSON:
 *   {"shot": "c5"}                 (a cell name; an integer cell index too)
 *   {"answer": {"cell": "c5", "content": 0..5, "salt": "<64 hex>",
 *               "path": ["<64 hex>", ... 7, bottom-up]}}
 *   {"reveal": {"contents": "<200 hex: 100 bytes>", "salts": "<6400 hex>"}}
 *   {"resign": true}   {"claim": true}
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seabattle.pb-c.h"
#include "episodes/seabattle/seabattle.h"
#include "episodes/seabattle/seabattle_int.h"

static const char *const root_names[2] = {"blue_root", "red_root"};
static const char *const binding_names[2] = {"blue_binding", "red_binding"};

/* ------------------------------------------------------------ status */

static kd_game_status status(const void *state_ptr)
{
    const kd_sb_state *s = state_ptr;
    kd_game_status st = {KD_PHASE_IN_PROGRESS, KD_SEAT_NONE, kd_sb_to_move(s)};
    if (s->phase == KD_SB_OVER) {
        st.phase = KD_PHASE_WON;
        st.winner = s->winner & 1;
        st.to_move = KD_SEAT_NONE;
    }
    return st;
}

/* The loser of an illegal fleet (shown at the reveal, or shot through
 * without sinking) cheated; one that let a deadline pass forfeited. */
static kd_seat_result seat_result(const void *state_ptr, int seat)
{
    const kd_sb_state *s = state_ptr;
    if (s->phase != KD_SB_OVER || seat < 0 || seat > 1)
        return KD_RESULT_NONE;
    if ((s->winner & 1) == seat)
        return KD_RESULT_WIN;
    if (s->revealed[seat] == KD_SB_ILLEGAL || s->reason == KD_SB_REASON_EXHAUSTED)
        return KD_RESULT_CHEAT;
    if (s->reason == KD_SB_REASON_NO_ANSWER || s->reason == KD_SB_REASON_NO_REVEAL)
        return KD_RESULT_FORFEIT;
    return KD_RESULT_LOSS;
}

/* ------------------------------------------------------- JSON ⇄ bytes */

static const char params_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"blue_root\":{\"type\":\"string\",\"minLength\":64,\"maxLength\":64,\"description\":\"blue's Merkle root over "
    "its 100 cells, hex (added by whoever holds blue's key)\"},"
    "\"red_root\":{\"type\":\"string\",\"minLength\":64,\"maxLength\":64,\"description\":\"red's root, hex\"},"
    "\"blue_binding\":{\"type\":\"string\",\"minLength\":64,\"maxLength\":64,\"description\":\"what blue's fleet "
    "is drawn under, hex (set with blue_root)\"},"
    "\"red_binding\":{\"type\":\"string\",\"minLength\":64,\"maxLength\":64,\"description\":\"red's binding, hex\"},"
    "\"timeout\":{\"type\":\"integer\",\"minimum\":100,\"maximum\":100000000,\"description\":\"DAA score a seat has "
    "to answer a shot or reveal its board (default 600, a minute at 10 blocks/s; at least 100)\"}}}";

static const char command_schema[] =
    "{\"type\":\"object\",\"description\":\"one of shot, answer, reveal, resign, claim\",\"properties\":{"
    "\"shot\":{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"integer\",\"minimum\":0,\"maximum\":99}],"
    "\"description\":\"the cell to fire at: a..j then 1..10, e.g. c5 (or its index 0..99)\"},"
    "\"answer\":{\"type\":\"object\",\"properties\":{\"cell\":{\"anyOf\":[{\"type\":\"string\"},{\"type\":"
    "\"integer\",\"minimum\":0,\"maximum\":99}]},\"content\":{\"type\":\"integer\",\"minimum\":0},\"salt\":{"
    "\"type\":\"string\"},\"path\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}},"
    "\"required\":[\"cell\",\"content\",\"salt\",\"path\"],\"description\":\"the opening of the cell just shot "
    "(sent for you from your key)\"},"
    "\"reveal\":{\"type\":\"object\",\"properties\":{\"contents\":{\"type\":\"string\"},\"salts\":{\"type\":"
    "\"string\"}},\"required\":[\"contents\",\"salts\"],\"description\":\"the whole board at the end, the cells' "
    "contents and salts as hex (sent for you from your key)\"},"
    "\"resign\":{\"const\":true},\"claim\":{\"const\":true,\"description\":\"win when the other seat missed its "
    "deadline\"}}}";

static kd_err bad_params(char *why, size_t why_len, const char *what)
{
    kd_reject_write(why, why_len, "%s", what);
    return KD_ERR_BAD_PARAMS;
}

static kd_err params_from_json(const json_t *params, kd_buf *out, char *why, size_t why_len)
{
    kd_sb_params p;
    memset(&p, 0, sizeof p);
    if (!json_is_object(params))
        return bad_params(why, why_len,
                          "sea battle needs params {\"blue_root\": hex, \"blue_binding\": hex, \"red_root\": hex, "
                          "\"red_binding\": hex}: each seat's commitment (a gateway holding a seat's key adds it)");
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)params, key, v)
    {
        if (strcmp(key, root_names[0]) && strcmp(key, root_names[1]) && strcmp(key, binding_names[0]) &&
            strcmp(key, binding_names[1]) && strcmp(key, "timeout")) {
            kd_reject_write(why, why_len,
                            "unknown sea-battle param \"%s\": the params are blue_root, blue_binding, red_root, "
                            "red_binding, timeout",
                            key);
            return KD_ERR_BAD_PARAMS;
        }
    }
    for (int s = 0; s < 2; s++) {
        const json_t *r = json_object_get(params, root_names[s]), *b = json_object_get(params, binding_names[s]);
        if (!json_is_string(r) || kd_hex_decode(json_string_value(r), p.roots[s], KD_HASH_LEN) != 0) {
            kd_reject_write(why, why_len, "%s must be 64 hex digits (the seat's Merkle root); it is %s", root_names[s],
                            r ? "malformed" : "missing");
            return KD_ERR_BAD_PARAMS;
        }
        if (!json_is_string(b) || kd_hex_decode(json_string_value(b), p.bindings[s], KD_SECRET_BINDING_LEN) != 0) {
            kd_reject_write(why, why_len, "%s must be 64 hex digits (set with the seat's root); it is %s",
                            binding_names[s], b ? "malformed" : "missing");
            return KD_ERR_BAD_PARAMS;
        }
    }
    const json_t *t = json_object_get(params, "timeout");
    json_int_t timeout = t ? (json_is_integer(t) ? json_integer_value(t) : -1) : KD_SB_DEFAULT_TIMEOUT;
    if (timeout < KD_DEADLINE_MIN || timeout > KD_SB_TIMEOUT_MAX) {
        kd_reject_write(why, why_len,
                        "timeout must be an integer %u..%u (DAA score; the rules' floor under every deadline is %u)",
                        KD_DEADLINE_MIN, KD_SB_TIMEOUT_MAX, KD_DEADLINE_MIN);
        return KD_ERR_BAD_PARAMS;
    }
    p.timeout = (uint64_t)timeout;
    return kd_sb_params_encode(&p, out);
}

/* Fills `out` (len bytes) from the hex string `v`: 0, or -1. */
static int hex_member(const json_t *v, uint8_t *out, size_t len)
{
    return json_is_string(v) ? kd_hex_decode(json_string_value(v), out, len) : -1;
}

static int cell_member(const json_t *v, uint32_t *cell)
{
    if (json_is_integer(v) && json_integer_value(v) >= 0 && json_integer_value(v) <= (json_int_t)UINT32_MAX) {
        *cell = (uint32_t)json_integer_value(v);
        return 0;
    }
    int c = json_is_string(v) ? kd_sb_cell_parse(json_string_value(v)) : -1;
    *cell = (uint32_t)c;
    return c < 0 ? -1 : 0;
}

static int answer_from_json(const json_t *a, kd_sb_command *c)
{
    const json_t *content = json_object_get(a, "content"), *path = json_object_get(a, "path");
    if (cell_member(json_object_get(a, "cell"), &c->cell) || !json_is_integer(content) ||
        json_integer_value(content) < 0 || json_integer_value(content) > (json_int_t)UINT32_MAX ||
        hex_member(json_object_get(a, "salt"), c->salt, KD_SB_SALT_LEN) || !json_is_array(path) ||
        json_array_size(path) != KD_SB_DEPTH)
        return -1;
    c->content = (uint32_t)json_integer_value(content);
    for (size_t i = 0; i < KD_SB_DEPTH; i++)
        if (hex_member(json_array_get(path, i), c->path[i], KD_HASH_LEN))
            return -1;
    return 0;
}

static kd_err parse_command(const json_t *j, kd_sb_command *c, char *why, size_t why_len)
{
    const json_t *v;
    int bad = 0;
    if ((v = json_object_get(j, "shot"))) {
        c->kind = KD_SB_SHOT;
        bad = cell_member(v, &c->cell);
    } else if ((v = json_object_get(j, "answer"))) {
        c->kind = KD_SB_ANSWER;
        bad = !json_is_object(v) || answer_from_json(v, c);
    } else if ((v = json_object_get(j, "reveal"))) {
        c->kind = KD_SB_REVEAL_BOARD;
        bad = !json_is_object(v) || hex_member(json_object_get(v, "contents"), c->contents, KD_SB_CELLS) ||
              hex_member(json_object_get(v, "salts"), &c->salts[0][0], sizeof c->salts);
    } else if ((v = json_object_get(j, "resign"))) {
        c->kind = KD_SB_RESIGN;
        bad = !json_is_true(v);
    } else if ((v = json_object_get(j, "claim"))) {
        c->kind = KD_SB_CLAIM;
        bad = !json_is_true(v);
    } else {
        bad = 1;
    }
    if (!bad)
        return KD_OK;
    kd_reject_write(why, why_len,
                    "a sea-battle command is {\"shot\": \"c5\"} (a..j, 1..10), {\"resign\": true}, {\"claim\": true}, "
                    "{\"answer\": {\"cell\", \"content\" 0..5, \"salt\" 64 hex, \"path\" 7 x 64 hex}} or "
                    "{\"reveal\": {\"contents\" 200 hex, \"salts\" 6400 hex}}");
    return KD_ERR_BAD_COMMAND;
}

static kd_err command_from_json(const json_t *command, int seat, kd_buf *out, char *why, size_t why_len)
{
    (void)seat; /* the signer says who acts */
    kd_sb_command *c = calloc(1, sizeof *c);
    if (!c)
        return KD_ERR_NOMEM;
    kd_err err = json_is_object(command) ? parse_command(command, c, why, why_len) : KD_ERR_BAD_COMMAND;
    if (err == KD_ERR_BAD_COMMAND && !json_is_object(command))
        kd_reject_write(why, why_len, "a sea-battle command is a JSON object such as {\"shot\": \"c5\"}");
    if (!err)
        err = kd_sb_command_encode(c, out);
    free(c);
    return err;
}

static json_t *cell_json(uint32_t cell)
{
    char name[4];
    if (cell >= KD_SB_CELLS)
        return json_integer(cell);
    kd_sb_cell_name(cell, name);
    return json_string(name);
}

static json_t *to_json(const kd_sb_command *c)
{
    json_t *path;
    switch (c->kind) {
    case KD_SB_SHOT:
        return json_pack("{s:o}", "shot", cell_json(c->cell));
    case KD_SB_ANSWER:
        path = json_array();
        for (int i = 0; path && i < KD_SB_DEPTH; i++)
            if (json_array_append_new(path, kd_json_hex(c->path[i], KD_HASH_LEN)) != 0) {
                json_decref(path);
                path = NULL;
            }
        return json_pack("{s:{s:o, s:I, s:o, s:o}}", "answer", "cell", cell_json(c->cell), "content",
                         (json_int_t)c->content, "salt", kd_json_hex(c->salt, KD_SB_SALT_LEN), "path", path);
    case KD_SB_REVEAL_BOARD:
        return json_pack("{s:{s:o, s:o}}", "reveal", "contents", kd_json_hex(c->contents, KD_SB_CELLS), "salts",
                         kd_json_hex(&c->salts[0][0], sizeof c->salts));
    case KD_SB_RESIGN:
        return json_pack("{s:b}", "resign", 1);
    case KD_SB_CLAIM:
        return json_pack("{s:b}", "claim", 1);
    }
    return NULL;
}

static json_t *command_to_json(const uint8_t *command, size_t len)
{
    kd_sb_command *c = calloc(1, sizeof *c);
    json_t *j = NULL;
    if (c && kd_sb_command_decode(command, len, c, NULL) == KD_OK)
        j = to_json(c);
    free(c);
    return j;
}

/* ------------------------------------------------------------- moves */

static kd_err put_simple(kd_sb_kind kind, uint32_t cell, kd_buf *out)
{
    kd_sb_command c;
    memset(&c, 0, sizeof c);
    c.kind = kind;
    c.cell = cell;
    return kd_sb_command_encode(&c, out);
}

static kd_err legal_moves(const void *state_ptr, int seat, kd_legal_moves *out)
{
    const kd_sb_state *s = state_ptr;
    if (s->phase != KD_SB_PLAY || s->pending != KD_SB_NO_CELL || seat != s->turn)
        return KD_OK; /* answers and reveals are duties, made from the seat's secret */
    kd_buf b;
    kd_buf_init(&b);
    kd_err err = KD_OK;
    for (uint32_t i = 0; !err && i < KD_SB_CELLS; i++) {
        if (s->marks[1 - seat][i])
            continue;
        char name[4];
        kd_sb_cell_name(i, name);
        b.len = 0;
        err = put_simple(KD_SB_SHOT, i, &b);
        if (!err)
            err = kd_legal_moves_push(out, b.data, b.len, name);
    }
    kd_buf_fini(&b);
    return err;
}

/* An answer to the pending shot that opens to nothing: a random salt. */
static kd_err false_answer(const kd_sb_state *s, uint64_t *rng, kd_buf *out)
{
    kd_sb_command *c = calloc(1, sizeof *c);
    if (!c)
        return KD_ERR_NOMEM;
    c->kind = KD_SB_ANSWER;
    c->cell = s->pending;
    c->content = kd_type_rng_below(rng, KD_SB_SHIPS + 1);
    for (size_t i = 0; i < sizeof c->salt; i++)
        c->salt[i] = (uint8_t)kd_type_rng_next(rng);
    kd_err err = kd_sb_command_encode(c, out);
    free(c);
    return err;
}

/*
 * Legal: a uniform unshot cell for the shooter; KD_ERR_NO_MOVE for a seat
 * that owes an answer or a reveal (its duty) or may not act. Illegal: a
 * false answer (false_opening) from the seat that owes one; else a shot at
 * a cell shot before (already_shot) or off the board (out_of_bounds) from
 * the shooter, a shot out of turn (not_your_turn, answer_owed), a shot
 * after the play (game_over).
 */
static kd_err random_command(const void *state_ptr, int seat, int legal, uint64_t *rng, kd_buf *out)
{
    const kd_sb_state *s = state_ptr;
    uint32_t open[KD_SB_CELLS], shot[KD_SB_CELLS], n_open = 0, n_shot = 0;
    for (uint32_t i = 0; i < KD_SB_CELLS; i++) {
        if (s->marks[1 - s->turn][i])
            shot[n_shot++] = i;
        else
            open[n_open++] = i;
    }
    int shooter = s->phase == KD_SB_PLAY && s->pending == KD_SB_NO_CELL && seat == s->turn;
    if (legal)
        return shooter && n_open ? put_simple(KD_SB_SHOT, open[kd_type_rng_below(rng, n_open)], out) : KD_ERR_NO_MOVE;
    if (s->phase == KD_SB_PLAY && s->pending != KD_SB_NO_CELL && seat != s->turn)
        return false_answer(s, rng, out);
    if (shooter && n_shot && kd_type_rng_below(rng, 2) == 0)
        return put_simple(KD_SB_SHOT, shot[kd_type_rng_below(rng, n_shot)], out);
    if (shooter)
        return put_simple(KD_SB_SHOT, KD_SB_CELLS + kd_type_rng_below(rng, 100), out);
    return put_simple(KD_SB_SHOT, kd_type_rng_below(rng, KD_SB_CELLS), out);
}

/* ------------------------------------------------------------ secrets */

static kd_err secret_commit(int seat, const uint8_t seed[KD_SECRET_SEED_LEN],
                            const uint8_t binding[KD_SECRET_BINDING_LEN], json_t *params, char *why, size_t why_len)
{
    if (seat != KD_SB_BLUE && seat != KD_SB_RED)
        return KD_ERR_UNSUPPORTED;
    if (!json_is_object(params))
        return bad_params(why, why_len, "sea-battle params are a JSON object");
    kd_sb_board *board = malloc(sizeof *board);
    if (!board)
        return KD_ERR_NOMEM;
    uint8_t root[KD_HASH_LEN];
    char hex[2 * KD_HASH_LEN + 1], binding_hex[2 * KD_SECRET_BINDING_LEN + 1];
    kd_sb_board_from_seed(seed, board);
    kd_sb_root(board, root);
    memset(board, 0, sizeof *board);
    free(board);
    kd_hex_encode(root, KD_HASH_LEN, hex);
    kd_hex_encode(binding, KD_SECRET_BINDING_LEN, binding_hex);
    if (json_object_set_new(params, root_names[seat], json_string(hex)) != 0 ||
        json_object_set_new(params, binding_names[seat], json_string(binding_hex)) != 0)
        return KD_ERR_NOMEM;
    return KD_OK;
}

static kd_err secret_binding(const void *state_ptr, int seat, uint8_t out[KD_SECRET_BINDING_LEN])
{
    const kd_sb_state *s = state_ptr;
    if (seat != KD_SB_BLUE && seat != KD_SB_RED)
        return KD_ERR_UNSUPPORTED;
    memcpy(out, s->bindings[seat], KD_SECRET_BINDING_LEN);
    return KD_OK;
}

kd_err kd_sb_duty(const void *state_ptr, int seat, const uint8_t seed[KD_SECRET_SEED_LEN], kd_buf *out)
{
    const kd_sb_state *s = state_ptr;
    int answer = s->phase == KD_SB_PLAY && s->pending != KD_SB_NO_CELL && seat == 1 - s->turn;
    int reveal = s->phase == KD_SB_REVEAL && (seat == 0 || seat == 1) && s->revealed[seat] == KD_SB_UNREVEALED;
    if (!answer && !reveal)
        return KD_ERR_NO_MOVE;
    kd_sb_board *board = malloc(sizeof *board);
    kd_sb_command *c = calloc(1, sizeof *c);
    kd_err err = board && c ? KD_OK : KD_ERR_NOMEM;
    if (!err) {
        kd_sb_board_from_seed(seed, board);
        if (answer) {
            c->kind = KD_SB_ANSWER;
            c->cell = s->pending;
            c->content = board->contents[s->pending];
            memcpy(c->salt, board->salts[s->pending], KD_SB_SALT_LEN);
            kd_sb_path(board, s->pending, c->path);
        } else {
            c->kind = KD_SB_REVEAL_BOARD;
            memcpy(c->contents, board->contents, sizeof c->contents);
            memcpy(c->salts, board->salts, sizeof c->salts);
        }
        err = kd_sb_command_encode(c, out);
    }
    if (board)
        memset(board, 0, sizeof *board);
    if (c)
        memset(c, 0, sizeof *c);
    free(board);
    free(c);
    return err;
}

static kd_err secret_duty(const void *state, int seat, const uint8_t seed[KD_SECRET_SEED_LEN], kd_buf *command)
{
    return kd_sb_duty(state, seat, seed, command);
}

/* The seat's own fleet from its seed: the board rows (row 1 first; '.'
 * water, 1..5 the ship id) and each ship's cells, hits and whether sunk. */
static json_t *secret_view(const void *state_ptr, int seat, const uint8_t seed[KD_SECRET_SEED_LEN])
{
    const kd_sb_state *s = state_ptr;
    uint8_t fleet[KD_SB_CELLS];
    if (seat != KD_SB_BLUE && seat != KD_SB_RED)
        return json_object();
    kd_sb_fleet_from_seed(seed, fleet);
    json_t *rows = json_array(), *ships = json_array();
    for (int r = 0; rows && r < KD_SB_SIZE; r++) {
        char line[KD_SB_SIZE + 1];
        for (int c = 0; c < KD_SB_SIZE; c++)
            line[c] = fleet[r * KD_SB_SIZE + c] ? (char)('0' + fleet[r * KD_SB_SIZE + c]) : '.';
        line[KD_SB_SIZE] = '\0';
        json_array_append_new(rows, json_string(line));
    }
    for (unsigned id = 1; ships && id <= KD_SB_SHIPS; id++) {
        json_t *cells = json_array();
        for (uint32_t i = 0; cells && i < KD_SB_CELLS; i++)
            if (fleet[i] == id)
                json_array_append_new(cells, cell_json(i));
        unsigned hits = kd_sb_hits(s, seat, id);
        json_array_append_new(ships, json_pack("{s:I, s:I, s:o, s:I, s:b}", "id", (json_int_t)id, "length",
                                               (json_int_t)kd_sb_ship_len[id], "cells", cells, "hits", (json_int_t)hits,
                                               "sunk", hits >= kd_sb_ship_len[id]));
    }
    memset(fleet, 0, sizeof fleet);
    return json_pack("{s:o, s:s, s:o}", "fleet", rows, "fleet_rows", "row 1 first, columns a..j; . water, 1..5 ship id",
                     "ships", ships);
}

const kd_episode_type kd_seabattle_type = {
    .ops = &kd_sb_ops,
    .title = "Sea battle",
    .summary = KD_SB_RULES_TEXT " Seats: blue (first participant), red. Command {\"shot\": \"c5\"}; answers and "
                                "reveals are made from each seat's key.",
    .min_seats = 2,
    .max_seats = 2,
    .seat_names = kd_sb_seat_names,
    .rule_codes = kd_sb_rule_codes,
    .params_schema = params_schema,
    .command_schema = command_schema,
    .params_from_json = params_from_json,
    .params_message = &kdapp__sb_params__descriptor,
    .command_from_json = command_from_json,
    .command_to_json = command_to_json,
    .status = status,
    .view_encode = kd_sb_view_encode,
    .view_json = kd_sb_view_json,
    .strategy_context = kd_sb_strategy_context,
    .render_text = kd_sb_render_text,
    .prompt = kd_sb_prompt,
    .legal_moves = legal_moves,
    .random_command = random_command,
    .bot_command = kd_sb_bot_command,
    .bot_max_depth = 1,
    .secret_commit = secret_commit,
    .secret_binding = secret_binding,
    .secret_duty = secret_duty,
    .secret_view = secret_view,
    .seat_result = seat_result,
};
