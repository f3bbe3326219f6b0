/*
 * tictactoe_view.c — tic-tac-toe's public view: TttView bytes from a state
 * (what EpisodeView.view carries on PUB and in every view), and everything
 * rendered from those bytes: the enriched view's fields as JSON, the
 * strategy context (kdapp_get_strategy_context), the text board and the
 * turn prompt for a language model. These shapes are a public contract
 * (DESIGN.md, MCP tools): tests/handlers, tests/golden and
 * tests/episodes/tictactoe_type_test.c hold golden copies.
 *
 * The one boundary between TttView and protobuf-c is here
 * (kd_ttt_view_encode / kd_ttt_view_decode); the renderings only see a
 * validated kd_ttt_view.
 */
#include <stdio.h>
#include <string.h>

#include "episodes/episode_type.h"
#include "episodes/tictactoe/tictactoe.h"
#include "episodes/wire_alloc.h"
#include "tictactoe.pb-c.h"

const char *kd_ttt_status_name(uint8_t status)
{
    switch (status) {
    case KD_TTT_IN_PROGRESS:
        return "in_progress";
    case KD_TTT_X_WON:
        return "x_won";
    case KD_TTT_O_WON:
        return "o_won";
    case KD_TTT_DRAW:
        return "draw";
    }
    return "unknown";
}

/* ------------------------------------------------------- TttView bytes */

static Kdapp__TttCell *cell_out(Kdapp__TttCell *storage, const kd_ttt_cell *c)
{
    Kdapp__TttCell init = KDAPP__TTT_CELL__INIT;
    *storage = init;
    storage->row = c->row;
    storage->col = c->col;
    storage->player = c->symbol;
    return storage;
}

kd_err kd_ttt_view_encode(const kd_ttt_view *t, kd_buf *out)
{
    Kdapp__TttView tv = KDAPP__TTT_VIEW__INIT;
    uint32_t board[9];
    Kdapp__TttCell cells[10], *recent[9];
    for (int i = 0; i < 9; i++)
        board[i] = t->board[i / 3][i % 3];
    tv.n_board = 9;
    tv.board = board;
    tv.current = t->current;
    tv.status = (Kdapp__TttStatus)t->status;
    tv.cap = t->cap;
    size_t n_recent = t->recent_len < 9 ? t->recent_len : 9;
    for (size_t i = 0; i < n_recent; i++)
        recent[i] = cell_out(&cells[i], &t->recent[i]);
    tv.n_recent_moves = n_recent;
    tv.recent_moves = recent;
    if (t->has_next_to_remove)
        tv.next_to_remove = cell_out(&cells[9], &t->next_to_remove);
    tv.move_count = t->move_count;
    return kd_pb_append(&tv.base, out);
}

static int cell_in(const Kdapp__TttCell *c, kd_ttt_cell *out)
{
    if (!c || c->row > 2 || c->col > 2 || (c->player != KD_TTT_X && c->player != KD_TTT_O))
        return 0;
    out->row = (uint8_t)c->row;
    out->col = (uint8_t)c->col;
    out->symbol = (uint8_t)c->player;
    return 1;
}

kd_err kd_ttt_view_decode(const uint8_t *data, size_t len, kd_ttt_view *t)
{
    memset(t, 0, sizeof *t);
    Kdapp__TttView *tv = kdapp__ttt_view__unpack(NULL, len, data);
    if (!tv)
        return KD_ERR_DECODE;
    kd_err err = KD_ERR_DECODE;
    if (tv->n_board != 9 || tv->n_recent_moves > 9 || tv->cap > KD_TTT_MAX_CAP || (unsigned)tv->status > KD_TTT_DRAW ||
        (tv->current != KD_TTT_X && tv->current != KD_TTT_O))
        goto done;
    for (int i = 0; i < 9; i++) {
        if (tv->board[i] > KD_TTT_O)
            goto done;
        t->board[i / 3][i % 3] = (uint8_t)tv->board[i];
    }
    t->current = (uint8_t)tv->current;
    t->status = (uint8_t)tv->status;
    t->cap = (uint8_t)tv->cap;
    for (size_t i = 0; i < tv->n_recent_moves; i++)
        if (!cell_in(tv->recent_moves[i], &t->recent[i]))
            goto done;
    t->recent_len = (uint8_t)tv->n_recent_moves;
    if (tv->next_to_remove && !cell_in(tv->next_to_remove, &t->next_to_remove))
        goto done;
    t->has_next_to_remove = tv->next_to_remove != NULL;
    t->move_count = tv->move_count;
    err = KD_OK;
done:
    kdapp__ttt_view__free_unpacked(tv, NULL);
    if (err)
        memset(t, 0, sizeof *t);
    return err;
}

/* ---------------------------------------------------------------- JSON */

static json_t *player_json(uint8_t symbol)
{
    char s[2] = {kd_ttt_symbol_char(symbol), '\0'};
    return json_string(s);
}

static json_t *cell_json(const kd_ttt_cell *c)
{
    return json_pack("{s:i, s:i, s:o}", "row", c->row, "col", c->col, "player", player_json(c->symbol));
}

static json_t *board_json(const kd_ttt_view *t)
{
    json_t *rows = json_array();
    for (int r = 0; rows && r < 3; r++)
        json_array_append_new(rows, json_pack("[i,i,i]", t->board[r][0], t->board[r][1], t->board[r][2]));
    return rows;
}

static json_t *recent_json(const kd_ttt_view *t)
{
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < t->recent_len; i++)
        json_array_append_new(arr, cell_json(&t->recent[i]));
    return arr;
}

json_t *kd_ttt_view_json(const uint8_t *view, size_t len)
{
    kd_ttt_view t;
    if (kd_ttt_view_decode(view, len, &t))
        return NULL;
    return json_pack("{s:o, s:o, s:s, s:o, s:o, s:o, s:I}", "board", board_json(&t), "current", player_json(t.current),
                     "status", kd_ttt_status_name(t.status), "cap", t.cap ? json_integer(t.cap) : json_null(),
                     "recent_moves", recent_json(&t), "next_to_remove",
                     t.has_next_to_remove ? cell_json(&t.next_to_remove) : json_null(), "move_count",
                     (json_int_t)t.move_count);
}

json_t *kd_ttt_strategy_json(const uint8_t *view, size_t len)
{
    kd_ttt_view t;
    if (kd_ttt_view_decode(view, len, &t))
        return NULL;
    char rule[256];
    kd_ttt_rule_text(t.cap, rule, sizeof rule);
    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:s}", "board", board_json(&t), "current", player_json(t.current),
                     "cap", t.cap ? json_integer(t.cap) : json_null(), "next_to_remove",
                     t.has_next_to_remove ? cell_json(&t.next_to_remove) : json_null(), "recent_moves", recent_json(&t),
                     "rule_text", rule);
}

/* ---------------------------------------------------------------- text */

static kd_err render(const kd_ttt_view *t, kd_buf *out)
{
    char text[512];
    size_t n = 0;
    n += (size_t)snprintf(text + n, sizeof text - n, "    0 1 2\n");
    for (int r = 0; r < 3; r++) {
        n += (size_t)snprintf(text + n, sizeof text - n, "  %d", r);
        for (int c = 0; c < 3; c++) {
            int next = t->has_next_to_remove && t->next_to_remove.row == r && t->next_to_remove.col == c;
            char mark = kd_ttt_symbol_char(t->board[r][c]);
            /* The mark removed next is shown lower-case: x / o. */
            if (next)
                mark = mark == 'X' ? 'x' : 'o';
            n += (size_t)snprintf(text + n, sizeof text - n, " %c", mark);
        }
        n += (size_t)snprintf(text + n, sizeof text - n, "\n");
    }
    if (t->status == KD_TTT_IN_PROGRESS)
        n += (size_t)snprintf(text + n, sizeof text - n, "  %c to move", kd_ttt_symbol_char(t->current));
    else
        n += (size_t)snprintf(text + n, sizeof text - n, "  game over: %s", kd_ttt_status_name(t->status));
    if (t->cap)
        n += (size_t)snprintf(text + n, sizeof text - n, " | stress cap %u", t->cap);
    else
        n += (size_t)snprintf(text + n, sizeof text - n, " | classic");
    if (t->has_next_to_remove)
        n += (size_t)snprintf(text + n, sizeof text - n, " | removed next: %c at (%u,%u)",
                              kd_ttt_symbol_char(t->next_to_remove.symbol), t->next_to_remove.row,
                              t->next_to_remove.col);
    n += (size_t)snprintf(text + n, sizeof text - n, " | moves %u\n", t->move_count);
    return kd_buf_append(out, text, n);
}

kd_err kd_ttt_render_text(const uint8_t *view, size_t len, unsigned flags, kd_buf *out)
{
    (void)flags; /* X and O are ASCII */
    kd_ttt_view t;
    kd_err err = kd_ttt_view_decode(view, len, &t);
    return err ? err : render(&t, out);
}

/* -------------------------------------------------------------- prompt */

/* The rule in force, the board, the recent moves oldest to newest and the
 * mark removed next (stress mode), then whose turn it is with the legal
 * moves and the answer format. */
kd_err kd_ttt_prompt(const uint8_t *view, size_t len, uint32_t episode_id, int seat, kd_buf *out)
{
    if (seat != 0 && seat != 1)
        return KD_ERR_INVALID_ARG;
    kd_ttt_view tv;
    kd_err err = kd_ttt_view_decode(view, len, &tv);
    if (err)
        return err;
    const kd_ttt_view *t = &tv;
    char player = seat == 0 ? 'X' : 'O';
    char rule[256];
    kd_ttt_rule_text(t->cap, rule, sizeof rule);
    err = t->cap
              ? kd_buf_appendf(out, "You are playing tic-tac-toe as %c in episode %u, in stress mode.\n", player,
                               episode_id)
              : kd_buf_appendf(out, "You are playing classic tic-tac-toe as %c in episode %u.\n", player, episode_id);
    if (!err)
        err = kd_buf_appendf(out, "Rule: %s\nThree of your marks in a row, column or diagonal win.\n\n", rule);
    if (!err)
        err = kd_buf_appendf(out, "Board (row and column count from 0; X, O, . for empty):\n");
    if (!err)
        err = render(t, out);
    if (!err && t->cap) {
        err = kd_buf_appendf(out, "\nRecent moves (oldest to newest):");
        for (size_t i = 0; !err && i < t->recent_len; i++)
            err = kd_buf_appendf(out, "%s (%u, %u, %c)", i ? "," : "", t->recent[i].row, t->recent[i].col,
                                 kd_ttt_symbol_char(t->recent[i].symbol));
        if (!err && !t->recent_len)
            err = kd_buf_appendf(out, " none yet");
        if (!err && t->has_next_to_remove)
            err = kd_buf_appendf(out,
                                 "\nWill be removed next: (%u, %u, %c) — it disappears before the next mark is placed, "
                                 "and its cell stays occupied until then.",
                                 t->next_to_remove.row, t->next_to_remove.col,
                                 kd_ttt_symbol_char(t->next_to_remove.symbol));
        if (!err)
            err = kd_buf_appendf(out, "\n");
    }
    if (err)
        return err;
    if (t->status != KD_TTT_IN_PROGRESS)
        return kd_buf_appendf(out, "\nThe game is over (%s).\n", kd_ttt_status_name(t->status));
    if (kd_ttt_symbol_char(t->current) != player)
        return kd_buf_appendf(out, "\nIt is %c's turn, not yours; wait for their move.\n",
                              kd_ttt_symbol_char(t->current));
    err = kd_buf_appendf(out, "\nIt is your turn. Legal moves (row, col):");
    for (int r = 0; !err && r < 3; r++)
        for (int c = 0; !err && c < 3; c++)
            if (t->board[r][c] == KD_TTT_EMPTY)
                err = kd_buf_appendf(out, " (%d, %d)", r, c);
    if (!err)
        err =
            kd_buf_appendf(out, "\nAnswer with exactly one move as JSON and nothing else: {\"row\": R, \"col\": C}\n");
    return err;
}

/* ------------------------------------------------------ describe_change */

kd_err kd_ttt_describe_change(const void *from_state, const void *to_state, kd_buf *out)
{
    const kd_ttt_state *from = from_state, *to = to_state;
    kd_err err = KD_OK;
    if (to->move_count == from->move_count + 1) {
        /* One move: a mark of `from` missing from `to` was evicted first. */
        for (int r = 0; !err && r < 3; r++)
            for (int c = 0; !err && c < 3; c++)
                if (from->board[r][c] != KD_TTT_EMPTY && to->board[r][c] != from->board[r][c])
                    err = kd_buf_appendf(out, "first the oldest mark, %c at (%d,%d), is removed\n",
                                         kd_ttt_symbol_char(from->board[r][c]), r, c);
        return err;
    }
    if (to->move_count >= from->move_count)
        return KD_OK;
    /* A rollback: marks back on the board had been evicted by an undone
     * move; marks gone from it had been placed by one. */
    for (int r = 0; !err && r < 3; r++)
        for (int c = 0; !err && c < 3; c++) {
            uint8_t b = from->board[r][c], a = to->board[r][c];
            if (a != KD_TTT_EMPTY && a != b)
                err = kd_buf_appendf(out, "restored: %c at (%d,%d) came back: the undone move had evicted it\n",
                                     kd_ttt_symbol_char(a), r, c);
            if (!err && b != KD_TTT_EMPTY && a != b)
                err = kd_buf_appendf(out, "undone:   %c at (%d,%d) was placed in a reverted block\n",
                                     kd_ttt_symbol_char(b), r, c);
        }
    return err;
}
