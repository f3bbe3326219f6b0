/*
 * fourinarow_type.c — four-in-a-row's entry in the type table
 * (episodes/episode_type.h): schemas and JSON for params and commands, the
 * view (FiarView) and its renderings, legal moves, random commands for the
 * simulator, and the bot (fourinarow_bot.c). Pure functions.
 *
 * Renderings show the board top row first; view_json's "board" is the rows
 * top to bottom, each the columns 0..6 left to right, as 0 empty, 1 red,
 * 2 yellow. Notation of a move: its column number ("3"), as in the command
 * JSON {"column": 3}.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "episodes/fourinarow/fourinarow.h"
#include "episodes/wire_alloc.h"
#include "fourinarow.pb-c.h"

static const char *const seat_names[2] = {"red", "yellow"};

#define RULES_TEXT                                                                                             \
    "Four-in-a-row: a board of 7 columns (0 to 6, left to right) and 6 rows stands upright; red moves first, " \
    "then the players alternate, each dropping one disc into a column that is not full, where it falls to "    \
    "the lowest free cell. Four discs of one colour in a line (horizontal, vertical or diagonal) win; a "      \
    "full board without one is a draw."

/* ------------------------------------------------------------- view bytes */

/* The decoded view. cells: column-major like the state. */
typedef struct {
    uint8_t cells[KD_FIAR_CELLS];
    uint8_t current; /* 1 red, 2 yellow */
    uint8_t status;  /* kd_fiar_status */
    uint32_t move_count;
    int last_column; /* -1: none */
} fiar_view;

static kd_err view_encode(const void *state_ptr, int seat, kd_buf *out)
{
    (void)seat; /* no secret: every seat sees the public view */
    const kd_fiar_state *s = state_ptr;
    uint32_t board[KD_FIAR_CELLS];
    for (int row = 0; row < KD_FIAR_ROWS; row++)
        for (int col = 0; col < KD_FIAR_COLS; col++)
            board[row * KD_FIAR_COLS + col] = s->cells[col * KD_FIAR_ROWS + row];
    Kdapp__FiarView v = KDAPP__FIAR_VIEW__INIT;
    v.n_board = KD_FIAR_CELLS;
    v.board = board;
    v.current = (uint32_t)s->turn + 1;
    v.status = (Kdapp__FiarStatus)s->status;
    v.move_count = s->move_count;
    v.last_column = s->last_column < KD_FIAR_COLS ? (uint32_t)s->last_column + 1 : 0;
    return kd_pb_append(&v.base, out);
}

/* Decodes and checks view bytes: 0, or -1 when malformed (or no memory). */
static int view_decode(const uint8_t *data, size_t len, fiar_view *out)
{
    memset(out, 0, sizeof *out);
    if (!data || len == 0)
        return -1;
    Kdapp__FiarView *v = kdapp__fiar_view__unpack(NULL, len, data);
    int rc = -1;
    if (!v || v->n_board != KD_FIAR_CELLS || v->current < 1 || v->current > 2 || v->status > 3 ||
        v->last_column > KD_FIAR_COLS)
        goto done;
    for (int i = 0; i < KD_FIAR_CELLS; i++) {
        if (v->board[i] > 2)
            goto done;
        out->cells[(i % KD_FIAR_COLS) * KD_FIAR_ROWS + i / KD_FIAR_COLS] = (uint8_t)v->board[i];
    }
    out->current = (uint8_t)v->current;
    out->status = (uint8_t)v->status;
    out->move_count = v->move_count;
    out->last_column = (int)v->last_column - 1;
    rc = 0;
done:
    kdapp__fiar_view__free_unpacked(v, NULL);
    return rc;
}

static const char *status_name(uint8_t status)
{
    switch (status) {
    case KD_FIAR_RED_WON:
        return "red_won";
    case KD_FIAR_YELLOW_WON:
        return "yellow_won";
    case KD_FIAR_DRAW:
        return "draw";
    default:
        return "in_progress";
    }
}

static kd_game_status status_of(uint8_t status, int to_move)
{
    kd_game_status st = {KD_PHASE_IN_PROGRESS, KD_SEAT_NONE, to_move};
    if (status == KD_FIAR_DRAW) {
        st.phase = KD_PHASE_DRAW;
        st.to_move = KD_SEAT_NONE;
    } else if (status != KD_FIAR_IN_PROGRESS) {
        st.phase = KD_PHASE_WON;
        st.winner = status == KD_FIAR_RED_WON ? KD_FIAR_RED : KD_FIAR_YELLOW;
        st.to_move = KD_SEAT_NONE;
    }
    return st;
}

static kd_game_status status(const void *state_ptr)
{
    const kd_fiar_state *s = state_ptr;
    return status_of(s->status, s->turn);
}

/* ------------------------------------------------------------ JSON helpers */

/* The rows top to bottom, each [c0..c6]. */
static json_t *board_json(const fiar_view *v)
{
    json_t *rows = json_array();
    for (int row = KD_FIAR_ROWS - 1; rows && row >= 0; row--) {
        json_t *r = json_array();
        for (int col = 0; r && col < KD_FIAR_COLS; col++)
            if (json_array_append_new(r, json_integer(v->cells[col * KD_FIAR_ROWS + row])) != 0) {
                json_decref(r);
                r = NULL;
            }
        if (!r || json_array_append_new(rows, r) != 0) {
            json_decref(rows);
            return NULL;
        }
    }
    return rows;
}

static int column_open(const fiar_view *v, int col) { return v->cells[col * KD_FIAR_ROWS + KD_FIAR_ROWS - 1] == 0; }

/* The columns open to the seat to move ([] when the game is over). */
static json_t *open_json(const fiar_view *v)
{
    json_t *a = json_array();
    for (int col = 0; a && v->status == KD_FIAR_IN_PROGRESS && col < KD_FIAR_COLS; col++)
        if (column_open(v, col) && json_array_append_new(a, json_integer(col)) != 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

static json_t *view_json(const uint8_t *view, size_t len)
{
    fiar_view v;
    if (view_decode(view, len, &v) != 0)
        return NULL;
    return json_pack("{s:o, s:s, s:s, s:s, s:I, s:o}", "board", board_json(&v), "board_rows", "top_to_bottom",
                     "current", seat_names[v.current - 1], "status", status_name(v.status), "move_count",
                     (json_int_t)v.move_count, "last_column",
                     v.last_column >= 0 ? json_integer(v.last_column) : json_null());
}

static json_t *strategy_context(const uint8_t *view, size_t len)
{
    fiar_view v;
    if (view_decode(view, len, &v) != 0)
        return NULL;
    kd_game_status st = status_of(v.status, v.current - 1);
    return json_pack("{s:s, s:s, s:o, s:s, s:s, s:s?, s:s?, s:I, s:o, s:o}", "game", KD_FIAR_TYPE_NAME, "rules",
                     RULES_TEXT, "board", board_json(&v), "board_rows", "top_to_bottom (0 empty, 1 red, 2 yellow)",
                     "status", status_name(v.status), "to_move", st.to_move >= 0 ? seat_names[st.to_move] : NULL,
                     "winner", st.winner >= 0 ? seat_names[st.winner] : NULL, "move_count", (json_int_t)v.move_count,
                     "last_column", v.last_column >= 0 ? json_integer(v.last_column) : json_null(), "legal_columns",
                     open_json(&v));
}

/* The board, top row first, with column labels, and the status line. */
static kd_err put_position(const fiar_view *v, kd_buf *out)
{
    static const char mark[3] = {'.', 'R', 'Y'};
    kd_err err = kd_buf_appendf(out, " 0 1 2 3 4 5 6\n");
    for (int row = KD_FIAR_ROWS - 1; !err && row >= 0; row--) {
        char line[2 * KD_FIAR_COLS + 3];
        size_t n = 0;
        line[n++] = '|';
        for (int col = 0; col < KD_FIAR_COLS; col++) {
            line[n++] = mark[v->cells[col * KD_FIAR_ROWS + row]];
            line[n++] = col + 1 < KD_FIAR_COLS ? ' ' : '|';
        }
        line[n++] = '\n';
        err = kd_buf_append(out, line, n);
    }
    if (!err)
        err = kd_buf_appendf(out, "+-------------+\n");
    if (err)
        return err;
    if (v->status == KD_FIAR_IN_PROGRESS)
        return kd_buf_appendf(out, "%s (%c) to move (move %u)\n", seat_names[v->current - 1], mark[v->current],
                              (unsigned)v->move_count + 1);
    if (v->status == KD_FIAR_DRAW)
        return kd_buf_appendf(out, "draw: the board is full\n");
    return kd_buf_appendf(out, "%s won: four in a line\n", v->status == KD_FIAR_RED_WON ? "red" : "yellow");
}

static kd_err render_text(const uint8_t *view, size_t len, unsigned flags, kd_buf *out)
{
    fiar_view v;
    (void)flags; /* R and Y read the same in every terminal */
    if (view_decode(view, len, &v) != 0)
        return KD_ERR_DECODE;
    return put_position(&v, out);
}

static kd_err prompt(const uint8_t *view, size_t len, uint32_t episode_id, int seat, kd_buf *out)
{
    fiar_view v;
    if (view_decode(view, len, &v) != 0)
        return KD_ERR_DECODE;
    if (seat != KD_FIAR_RED && seat != KD_FIAR_YELLOW)
        return KD_ERR_INVALID_ARG;
    kd_err err = kd_buf_appendf(out,
                                "You play four-in-a-row episode %u as %s (%c on the board). %s\n\n"
                                "Board (top row first; R red, Y yellow, . empty):\n",
                                (unsigned)episode_id, seat_names[seat], seat == KD_FIAR_RED ? 'R' : 'Y', RULES_TEXT);
    if (!err)
        err = put_position(&v, out);
    if (!err && v.status == KD_FIAR_IN_PROGRESS && v.current == seat + 1) {
        err = kd_buf_appendf(out, "\nLegal columns:");
        for (int col = 0; !err && col < KD_FIAR_COLS; col++)
            if (column_open(&v, col))
                err = kd_buf_appendf(out, " %d", col);
        if (!err)
            err = kd_buf_appendf(
                out, "\n\nAnswer with the command JSON only, C one of the legal columns: {\"column\": C}\n");
    } else if (!err) {
        err = kd_buf_appendf(out, "\nIt is not your move.\n");
    }
    return err;
}

/* ----------------------------------------------------------- JSON ⇄ bytes */

static const char params_schema[] = "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{},"
                                    "\"description\":\"no params: the board is always 7 columns x 6 rows\"}";

static const char command_schema[] = "{\"type\":\"object\",\"required\":[\"column\"],\"properties\":{"
                                     "\"column\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":4294967295,"
                                     "\"description\":\"the column to drop a disc into, 0 to 6 from the left\"}}}";

static kd_err params_from_json(const json_t *params, kd_buf *out, char *why, size_t why_len)
{
    (void)out;
    if (!params || (json_is_object(params) && json_object_size(params) == 0))
        return KD_OK; /* zero bytes: nothing to set */
    kd_reject_write(why, why_len, "four-in-a-row has no params: give {} or none");
    return KD_ERR_BAD_PARAMS;
}

/* Reads `column`; other members are left to whoever wraps the command (a
 * block script's episode and signer). */
static kd_err command_from_json(const json_t *command, int seat, kd_buf *out, char *why, size_t why_len)
{
    (void)seat; /* the signer says who moves */
    const json_t *c = json_is_object(command) ? json_object_get(command, "column") : NULL;
    if (!json_is_integer(c) || json_integer_value(c) < 0 || json_integer_value(c) > (json_int_t)UINT32_MAX) {
        kd_reject_write(why, why_len, "a four-in-a-row command is {\"column\": 0..6}");
        return KD_ERR_BAD_COMMAND;
    }
    return kd_fiar_command_encode((uint32_t)json_integer_value(c), out);
}

static json_t *command_to_json(const uint8_t *command, size_t len)
{
    uint32_t column = 0;
    if (kd_fiar_command_decode(command, len, &column, NULL) != KD_OK)
        return NULL;
    return json_pack("{s:I}", "column", (json_int_t)column);
}

/* ------------------------------------------------------------------ moves */

static kd_err push_column(kd_legal_moves *out, unsigned column)
{
    uint8_t cmd[KD_FIAR_COMMAND_MAX];
    size_t len = kd_fiar_command_pack(column, cmd);
    char notation[KD_NOTATION_MAX];
    snprintf(notation, sizeof notation, "%u", column);
    return kd_legal_moves_push(out, cmd, len, notation);
}

static kd_err legal_moves(const void *state_ptr, int seat, kd_legal_moves *out)
{
    const kd_fiar_state *s = state_ptr;
    kd_err err = KD_OK;
    if (s->status != KD_FIAR_IN_PROGRESS || seat != s->turn)
        return KD_OK;
    for (unsigned col = 0; !err && col < KD_FIAR_COLS; col++)
        if (s->heights[col] < KD_FIAR_ROWS)
            err = push_column(out, col);
    return err;
}

static kd_err put_command(uint32_t column, kd_buf *out)
{
    uint8_t cmd[KD_FIAR_COMMAND_MAX];
    size_t len = kd_fiar_command_pack(column, cmd);
    return kd_buf_append(out, cmd, len);
}

/*
 * Legal: uniform over the open columns. Illegal, refused by a rule: a seat
 * not to move sends any column (not_your_turn); the seat to move sends a
 * full column when there is one and a coin says so, else a column beyond
 * the board (out_of_bounds). A finished game refuses everything (game_over).
 */
static kd_err random_command(const void *state_ptr, int seat, int legal, uint64_t *rng, kd_buf *out)
{
    const kd_fiar_state *s = state_ptr;
    uint32_t open[KD_FIAR_COLS], full[KD_FIAR_COLS], n_open = 0, n_full = 0;
    for (uint32_t col = 0; col < KD_FIAR_COLS; col++) {
        if (s->heights[col] < KD_FIAR_ROWS)
            open[n_open++] = col;
        else
            full[n_full++] = col;
    }
    if (legal) {
        if (s->status != KD_FIAR_IN_PROGRESS || seat != s->turn || n_open == 0)
            return KD_ERR_NO_MOVE;
        return put_command(open[kd_type_rng_below(rng, n_open)], out);
    }
    if (seat != s->turn || s->status != KD_FIAR_IN_PROGRESS)
        return put_command(kd_type_rng_below(rng, KD_FIAR_COLS), out);
    if (n_full > 0 && kd_type_rng_below(rng, 2) == 0)
        return put_command(full[kd_type_rng_below(rng, n_full)], out);
    return put_command(KD_FIAR_COLS + kd_type_rng_below(rng, 100), out);
}

const kd_episode_type kd_fourinarow_type = {
    .ops = &kd_fiar_ops,
    .title = "Four-in-a-row",
    .summary = RULES_TEXT " Seats: red (first participant), yellow. Command {\"column\": 0..6}.",
    .min_seats = 2,
    .max_seats = 2,
    .seat_names = seat_names,
    .rule_codes = kd_fiar_rule_codes,
    .params_schema = params_schema,
    .command_schema = command_schema,
    .params_from_json = params_from_json,
    .params_message = &kdapp__fiar_params__descriptor,
    .command_from_json = command_from_json,
    .command_to_json = command_to_json,
    .status = status,
    .view_encode = view_encode,
    .view_json = view_json,
    .strategy_context = strategy_context,
    .render_text = render_text,
    .prompt = prompt,
    .legal_moves = legal_moves,
    .random_command = random_command,
    .bot_command = kd_fiar_bot_command,
    .bot_max_depth = KD_FIAR_BOT_MAX_DEPTH,
};
