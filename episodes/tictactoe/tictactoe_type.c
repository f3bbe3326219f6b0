/*
 * tictactoe_type.c — tic-tac-toe's entry in the type table (episode_type.h):
 * its seats, rule codes and engine defaults, JSON <-> bytes for params and
 * commands, status, legal moves, the simulator's random command and the
 * search bot. The view and its renderings are in tictactoe_view.c.
 *
 *   params   {"cap": n|null}: 1..8 stress, 9 or more classic, absent or
 *            null the engine default (KDAPP_TTT_STRESS / _MAX_SYMBOLS)
 *   command  {"type": "move", "row": R, "col": C, "player": "X"|"O"};
 *            "type" may be left out, and "player" when the acting seat is
 *            known (seat 0 plays X, seat 1 O)
 */
#include <stdio.h>
#include <string.h>

#include "tictactoe.pb-c.h"
#include "episodes/episode_type.h"
#include "episodes/tictactoe/tictactoe.h"

static const char *const seat_names[] = {"X", "O"};

static const char *const env_names[] = {"KDAPP_TTT_STRESS", "KDAPP_TTT_MAX_SYMBOLS", NULL};

#define PARAMS_SCHEMA                                                                                              \
    "{\"type\":\"object\",\"properties\":{\"cap\":{\"type\":[\"integer\",\"null\"],\"minimum\":1,\"maximum\":255," \
    "\"description\":\"1-8: stress mode, at most cap symbols (the oldest is removed before each move); 9 or "      \
    "more: classic; absent or null: the engine default\"}},\"additionalProperties\":false}"

#define COMMAND_SCHEMA                                                                                          \
    "{\"type\":\"object\",\"properties\":{\"type\":{\"type\":\"string\",\"enum\":[\"move\"]},"                  \
    "\"row\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":255},"                                             \
    "\"col\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":255},"                                             \
    "\"player\":{\"type\":\"string\",\"enum\":[\"X\",\"O\"],\"description\":\"the mover; may be left out when " \
    "the acting seat is known\"}},\"required\":[\"row\",\"col\"]}"

/* ------------------------------------------------------------- config */

static kd_err config_from_env(kd_getenv_fn get, void *get_ctx, void *config, char *why, size_t why_len)
{
    return kd_ttt_config_parse(get(get_ctx, "KDAPP_TTT_STRESS"), get(get_ctx, "KDAPP_TTT_MAX_SYMBOLS"), config, why,
                               why_len);
}

/* --------------------------------------------------------------- JSON */

static kd_err params_from_json(const json_t *params, kd_buf *out, char *why, size_t why_len)
{
    if (!params || json_is_null(params))
        return KD_OK;
    if (!json_is_object(params)) {
        kd_reject_write(why, why_len, "tictactoe params must be an object {\"cap\": n|null}");
        return KD_ERR_BAD_PARAMS;
    }
    const char *key;
    json_t *value;
    json_object_foreach((json_t *)params, key, value)
    {
        if (strcmp(key, "cap") != 0) {
            kd_reject_write(why, why_len, "tictactoe params have no member '%.40s': the only one is cap", key);
            return KD_ERR_BAD_PARAMS;
        }
    }
    json_t *cap = json_object_get(params, "cap");
    if (!cap || json_is_null(cap))
        return KD_OK;
    json_int_t n = json_is_integer(cap) ? json_integer_value(cap) : -1;
    if (n < 1 || n > 255) {
        kd_reject_write(why, why_len,
                        "cap must be an integer from 1 to 255 (1-8 stress mode, 9 or more classic) or null "
                        "(the engine default)");
        return KD_ERR_BAD_PARAMS;
    }
    return kd_ttt_params_encode((uint32_t)n, out);
}

/* A member that must be an integer in 0..255 (the wire's cell range is
 * wider than the board: out_of_bounds is the engine's to say). */
static int coordinate(const json_t *command, const char *name, uint8_t *out, char *why, size_t why_len)
{
    json_t *j = json_object_get(command, name);
    json_int_t v = json_is_integer(j) ? json_integer_value(j) : -1;
    if (v < 0 || v > 255) {
        kd_reject_write(why, why_len, "a tictactoe move needs %s, an integer from 0 to 2", name);
        return -1;
    }
    *out = (uint8_t)v;
    return 0;
}

static kd_err command_from_json(const json_t *command, int seat, kd_buf *out, char *why, size_t why_len)
{
    if (!json_is_object(command)) {
        kd_reject_write(why, why_len,
                        "a tictactoe command must be an object {\"row\": R, \"col\": C, \"player\": "
                        "\"X\"|\"O\"}");
        return KD_ERR_BAD_COMMAND;
    }
    json_t *type = json_object_get(command, "type");
    if (type && (!json_is_string(type) || strcmp(json_string_value(type), "move") != 0)) {
        kd_reject_write(why, why_len, "tictactoe has one command, \"type\": \"move\"");
        return KD_ERR_BAD_COMMAND;
    }
    uint8_t row, col;
    if (coordinate(command, "row", &row, why, why_len) || coordinate(command, "col", &col, why, why_len))
        return KD_ERR_BAD_COMMAND;
    json_t *player = json_object_get(command, "player");
    int side;
    if (player) {
        side = kd_episode_type_seat(&kd_tictactoe_type, json_string_value(player));
        if (side == KD_SEAT_NONE) {
            kd_reject_write(why, why_len, "player must be \"X\" or \"O\"");
            return KD_ERR_BAD_COMMAND;
        }
    } else if (seat == 0 || seat == 1) {
        side = seat;
    } else {
        kd_reject_write(why, why_len, "the move names no player (\"X\" or \"O\") and the acting seat is not known");
        return KD_ERR_BAD_COMMAND;
    }
    return kd_ttt_move_encode(row, col, (uint8_t)side, out);
}

static json_t *command_to_json(const uint8_t *command, size_t len)
{
    kd_ttt_move m;
    if (kd_ttt_command_decode(command, len, &m, NULL) != KD_OK || m.row > 255 || m.col > 255)
        return NULL;
    return json_pack("{s:s, s:i, s:i, s:s}", "type", "move", "row", (int)m.row, "col", (int)m.col, "player",
                     seat_names[m.player]);
}

/* -------------------------------------------------------------- state */

static kd_game_status status(const void *state)
{
    const kd_ttt_state *s = state;
    kd_game_status st = {.phase = KD_PHASE_IN_PROGRESS, .winner = KD_SEAT_NONE, .to_move = KD_SEAT_NONE};
    switch (s->status) {
    case KD_TTT_IN_PROGRESS:
        st.to_move = s->turn == KD_TTT_X ? 0 : 1;
        break;
    case KD_TTT_X_WON:
    case KD_TTT_O_WON:
        st.phase = KD_PHASE_WON;
        st.winner = s->status == KD_TTT_X_WON ? 0 : 1;
        break;
    default:
        st.phase = KD_PHASE_DRAW;
        break;
    }
    return st;
}

/* Tic-tac-toe hides nothing: every seat sees the public view. */
static kd_err view_encode(const void *state, int seat, kd_buf *out)
{
    (void)seat;
    kd_ttt_view v;
    kd_ttt_view_of(state, &v);
    return kd_ttt_view_encode(&v, out);
}

static int seat_to_move(const kd_ttt_state *s)
{
    return s->status == KD_TTT_IN_PROGRESS ? (s->turn == KD_TTT_X ? 0 : 1) : KD_SEAT_NONE;
}

static kd_err legal_moves(const void *state, int seat, kd_legal_moves *out)
{
    const kd_ttt_state *s = state;
    if (seat < 0 || seat != seat_to_move(s))
        return KD_OK;
    kd_ttt_cell cells[9];
    size_t n = kd_ttt_legal_moves(s, cells);
    kd_buf cmd;
    kd_buf_init(&cmd);
    kd_err err = KD_OK;
    for (size_t i = 0; !err && i < n; i++) {
        char notation[KD_NOTATION_MAX];
        snprintf(notation, sizeof notation, "(%u, %u)", cells[i].row, cells[i].col);
        cmd.len = 0;
        err = kd_ttt_move_encode(cells[i].row, cells[i].col, (uint8_t)seat, &cmd);
        if (!err)
            err = kd_legal_moves_push(out, cmd.data, cmd.len, notation);
    }
    kd_buf_fini(&cmd);
    return err;
}

/*
 * A random command for `seat`. Legal: one of its legal moves. Illegal, one
 * of what the rules refuse: after the game, any move (game_over); else a
 * move for the side not to move (wrong_turn), or the mover's move onto an
 * occupied cell (cell_occupied, or unauthorised when `seat` is not the
 * mover's).
 */
static kd_err random_command(const void *state, int seat, int legal, uint64_t *rng, kd_buf *out)
{
    const kd_ttt_state *s = state;
    if (legal) {
        kd_ttt_cell cells[9];
        size_t n = seat >= 0 && seat == seat_to_move(s) ? kd_ttt_legal_moves(s, cells) : 0;
        if (!n)
            return KD_ERR_NO_MOVE;
        const kd_ttt_cell *c = &cells[kd_type_rng_below(rng, (uint32_t)n)];
        return kd_ttt_move_encode(c->row, c->col, (uint8_t)seat, out);
    }
    uint8_t mover = s->turn == KD_TTT_X ? 0 : 1;
    if (s->status != KD_TTT_IN_PROGRESS) {
        uint32_t cell = kd_type_rng_below(rng, 9);
        return kd_ttt_move_encode((uint8_t)(cell / 3), (uint8_t)(cell % 3), seat == 1 ? 1 : 0, out);
    }
    if (s->history_len && kd_type_rng_below(rng, 2)) {
        const kd_ttt_cell *c = &s->history[kd_type_rng_below(rng, s->history_len)];
        return kd_ttt_move_encode(c->row, c->col, mover, out);
    }
    uint32_t cell = kd_type_rng_below(rng, 9);
    return kd_ttt_move_encode((uint8_t)(cell / 3), (uint8_t)(cell % 3), (uint8_t)(1 - mover), out);
}

static kd_err bot_command(const void *state, unsigned depth, uint64_t tiebreak, kd_buf *out)
{
    const kd_ttt_state *s = state;
    kd_ttt_cell c;
    kd_err err = kd_search_move(s, depth, tiebreak, &c);
    return err ? err : kd_ttt_move_encode(c.row, c.col, s->turn == KD_TTT_X ? 0 : 1, out);
}

/* ---------------------------------------------------------- the entry */

const kd_episode_type kd_tictactoe_type = {
    .ops = &kd_tictactoe_ops,
    .title = "Tic-tac-toe",
    .summary = "Two players, X (the first participant, moves first) and O, place marks on a 3x3 board; three in "
               "a row, column or diagonal win. Classic mode ends in a draw on a full board. Stress mode (cap "
               "1-8) keeps at most cap marks: the oldest is removed before each new one, and there is no draw.",
    .min_seats = 2,
    .max_seats = 2,
    .seat_names = seat_names,
    .rule_codes = kd_ttt_rule_codes,
    .env_names = env_names,
    .config_from_env = config_from_env,
    .config_size = sizeof(kd_ttt_config),
    .params_schema = PARAMS_SCHEMA,
    .command_schema = COMMAND_SCHEMA,
    .params_from_json = params_from_json,
    .params_message = &kdapp__ttt_params__descriptor,
    .command_from_json = command_from_json,
    .command_to_json = command_to_json,
    .status = status,
    .view_encode = view_encode,
    .view_json = kd_ttt_view_json,
    .strategy_context = kd_ttt_strategy_json,
    .render_text = kd_ttt_render_text,
    .prompt = kd_ttt_prompt,
    .legal_moves = legal_moves,
    .random_command = random_command,
    .bot_command = bot_command,
    .bot_max_depth = KD_SEARCH_MAX_DEPTH,
    .describe_change = kd_ttt_describe_change,
};
