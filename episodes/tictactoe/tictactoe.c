/*
 * tictactoe.c — the rules of tic-tac-toe (classic and stress mode), the
 * state and undo encodings, the view helpers and the ops table that plugs
 * them into the engine. Everything here is a pure function of its inputs:
 * no protobuf (commands and params are decoded by tictactoe_wire.c), no
 * environment, no clock, no I/O.
 */
#include "episodes/tictactoe/tictactoe.h"
#include "episodes/ops_adapter.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "engine/crypto.h"

#define STATE_FIXED_LEN 75 /* version .. history_len, see tictactoe.h */
#define UNDO_LEN 9

/* The eight lines of three, as (row, col) triples. */
static const uint8_t lines[8][3][2] = {
    {{0, 0}, {0, 1}, {0, 2}}, {{1, 0}, {1, 1}, {1, 2}}, {{2, 0}, {2, 1}, {2, 2}}, {{0, 0}, {1, 0}, {2, 0}},
    {{0, 1}, {1, 1}, {2, 1}}, {{0, 2}, {1, 2}, {2, 2}}, {{0, 0}, {1, 1}, {2, 2}}, {{0, 2}, {1, 1}, {2, 0}},
};

const kd_rule_code kd_ttt_rule_codes[] = {
    {"game_over", "the game has ended: no move is accepted"},
    {"out_of_bounds", "row or col is outside 0..2"},
    {"wrong_turn", "the move's player is not the side to move"},
    {"unauthorised", "the move is unsigned, or signed by another key than the mover's"},
    {"cell_occupied", "the cell holds a mark (in stress mode also the oldest, removed only by this move)"},
    {NULL, NULL},
};

static uint8_t other(uint8_t symbol) { return symbol == KD_TTT_X ? KD_TTT_O : KD_TTT_X; }

/* The side to move after `moves` moves: X moves first and turns alternate. */
static uint8_t turn_after(uint32_t moves) { return (moves % 2 == 0) ? KD_TTT_X : KD_TTT_O; }

static int valid_symbol(uint8_t symbol) { return symbol == KD_TTT_X || symbol == KD_TTT_O; }

static int has_line(const uint8_t board[3][3], uint8_t symbol)
{
    for (size_t i = 0; i < 8; i++) {
        int all = 1;
        for (size_t j = 0; j < 3; j++)
            all = all && board[lines[i][j][0]][lines[i][j][1]] == symbol;
        if (all)
            return 1;
    }
    return 0;
}

/* The number of marks the history must hold after `moves` moves. */
static uint32_t window_len(uint8_t cap, uint32_t moves) { return (cap && moves > cap) ? cap : moves; }

static const char *status_sentence(uint8_t status)
{
    switch (status) {
    case KD_TTT_X_WON:
        return "X won";
    case KD_TTT_O_WON:
        return "O won";
    case KD_TTT_DRAW:
        return "it ended in a draw";
    default:
        return "it is in progress";
    }
}

char kd_ttt_symbol_char(uint8_t symbol) { return symbol == KD_TTT_X ? 'X' : symbol == KD_TTT_O ? 'O' : '.'; }

uint8_t kd_ttt_cap_resolve(uint32_t wire_cap, const kd_ttt_config *config)
{
    if (wire_cap == 0) {
        if (!config || config->default_cap > KD_TTT_MAX_CAP)
            return 0;
        return config->default_cap;
    }
    return wire_cap <= KD_TTT_MAX_CAP ? (uint8_t)wire_cap : 0;
}

/* ------------------------------------------------------------------ rules */

kd_err kd_ttt_state_init(kd_ttt_state *state, const kd_participants *participants, uint8_t cap, kd_reject *rej)
{
    memset(state, 0, sizeof *state);
    if (kd_two_seats_check(participants, "tic-tac-toe", (const char *const[2]){"X", "O"}, rej) != KD_OK)
        return KD_ERR_BAD_PARTICIPANTS;
    assert(cap <= KD_TTT_MAX_CAP);
    state->cap = cap <= KD_TTT_MAX_CAP ? cap : 0;
    state->turn = KD_TTT_X;
    state->status = KD_TTT_IN_PROGRESS;
    memcpy(state->players, participants->keys, sizeof state->players);
    return KD_OK;
}

/* All checks of kd_ttt_play, in the documented order; touches nothing. */
static kd_err check_move(const kd_ttt_state *state, const kd_ttt_move *move, const kd_pubkey *signer, kd_reject *rej)
{
    if (move->player > 1)
        return kd_reject_say(rej, KD_ERR_BAD_COMMAND, "player must be 0 (X) or 1 (O), got %u", (unsigned)move->player);
    if (state->status != KD_TTT_IN_PROGRESS)
        return kd_reject_rule(rej, "game_over", "the game is over: %s", status_sentence(state->status));
    if (move->row > 2 || move->col > 2)
        return kd_reject_rule(rej, "out_of_bounds", "cell (%u,%u) is outside the board: rows and columns are 0..2",
                              (unsigned)move->row, (unsigned)move->col);
    uint8_t symbol = move->player == 0 ? KD_TTT_X : KD_TTT_O;
    if (symbol != state->turn)
        return kd_reject_rule(rej, "wrong_turn", "it is %c's turn, not %c's", kd_ttt_symbol_char(state->turn),
                              kd_ttt_symbol_char(symbol));
    const kd_pubkey *mover = &state->players[state->turn == KD_TTT_X ? 0 : 1];
    if (!signer)
        return kd_reject_rule(rej, "unauthorised", "the move is unsigned; %c's moves must be signed by participant %d",
                              kd_ttt_symbol_char(state->turn), state->turn == KD_TTT_X ? 1 : 2);
    if (memcmp(signer->bytes, mover->bytes, KD_PUBKEY_LEN) != 0)
        return kd_reject_rule(rej, "unauthorised", "the signer is not %c's participant (participant %d)",
                              kd_ttt_symbol_char(state->turn), state->turn == KD_TTT_X ? 1 : 2);
    uint8_t held = state->board[move->row][move->col];
    if (held != KD_TTT_EMPTY) {
        const kd_ttt_cell *oldest = &state->history[0];
        int evicting =
            state->cap && state->history_len == state->cap && oldest->row == move->row && oldest->col == move->col;
        return kd_reject_rule(rej, "cell_occupied", "cell (%u,%u) is occupied by %c%s", (unsigned)move->row,
                              (unsigned)move->col, kd_ttt_symbol_char(held),
                              evicting ? " (the oldest mark: it is removed only when a move elsewhere is made)" : "");
    }
    if (state->move_count == UINT32_MAX)
        return kd_reject_say(rej, KD_ERR_TOO_LARGE, "the episode has reached its limit of %u moves",
                             (unsigned)UINT32_MAX);
    return KD_OK;
}

/*
 * Stress mode, cap 3, window full, O plays (2,2):
 *
 *   history [X(0,0) O(1,1) X(0,1)]  ->  evict X(0,0) first  ->  place O(2,2)
 *   history [O(1,1) X(0,1) O(2,2)]      undo.removed = X(0,0)
 *
 * The eviction happens before the placement, so a line is judged on the
 * board without the oldest mark; the occupancy check (check_move) happened
 * before the eviction, so the oldest mark's cell was not playable.
 */
kd_err kd_ttt_play(kd_ttt_state *state, const kd_ttt_move *move, const kd_pubkey *signer, kd_ttt_undo *undo,
                   kd_reject *rej)
{
    kd_err err = check_move(state, move, signer, rej);
    if (err)
        return err;

    memset(undo, 0, sizeof *undo);
    undo->row = (uint8_t)move->row;
    undo->col = (uint8_t)move->col;
    undo->prev_turn = state->turn;
    undo->prev_status = state->status;

    if (state->cap && state->history_len == state->cap) {
        kd_ttt_cell oldest = state->history[0];
        undo->has_removed = 1;
        undo->removed = oldest;
        state->board[oldest.row][oldest.col] = KD_TTT_EMPTY;
        memmove(&state->history[0], &state->history[1], (size_t)(state->history_len - 1) * sizeof state->history[0]);
        state->history_len--;
        memset(&state->history[state->history_len], 0, sizeof state->history[0]);
    }

    uint8_t mover = state->turn;
    state->board[undo->row][undo->col] = mover;
    state->history[state->history_len].row = undo->row;
    state->history[state->history_len].col = undo->col;
    state->history[state->history_len].symbol = mover;
    state->history_len++;
    state->move_count++;
    if (has_line(state->board, mover))
        state->status = mover == KD_TTT_X ? KD_TTT_X_WON : KD_TTT_O_WON;
    else if (!state->cap && state->history_len == 9)
        state->status = KD_TTT_DRAW;
    state->turn = other(mover);
    return KD_OK;
}

kd_err kd_ttt_undo_check(const kd_ttt_state *state, const kd_ttt_undo *undo)
{
    if (state->history_len == 0 || state->move_count == 0)
        return KD_ERR_INVALID_ARG;
    const kd_ttt_cell *newest = &state->history[state->history_len - 1];
    if (undo->row > 2 || undo->col > 2 || newest->row != undo->row || newest->col != undo->col ||
        !valid_symbol(undo->prev_turn) || newest->symbol != undo->prev_turn || state->turn != other(undo->prev_turn) ||
        undo->prev_status != KD_TTT_IN_PROGRESS)
        return KD_ERR_INVALID_ARG;
    int must_remove = state->cap && state->move_count > state->cap;
    if ((undo->has_removed != 0) != must_remove || undo->has_removed > 1)
        return KD_ERR_INVALID_ARG;
    if (undo->has_removed) {
        const kd_ttt_cell *r = &undo->removed;
        if (r->row > 2 || r->col > 2 || state->board[r->row][r->col] != KD_TTT_EMPTY ||
            r->symbol != turn_after(state->move_count - 1 - state->cap))
            return KD_ERR_INVALID_ARG;
    } else {
        kd_ttt_cell zero = {0, 0, 0};
        if (memcmp(&undo->removed, &zero, sizeof zero) != 0)
            return KD_ERR_INVALID_ARG;
    }
    return KD_OK;
}

void kd_ttt_rollback(kd_ttt_state *state, const kd_ttt_undo *undo)
{
    if (kd_ttt_undo_check(state, undo) != KD_OK) {
        assert(!"kd_ttt_rollback: the undo record is not the last move's");
        return;
    }
    state->board[undo->row][undo->col] = KD_TTT_EMPTY;
    state->history_len--;
    memset(&state->history[state->history_len], 0, sizeof state->history[0]);
    if (undo->has_removed) {
        memmove(&state->history[1], &state->history[0], (size_t)state->history_len * sizeof state->history[0]);
        state->history[0] = undo->removed;
        state->history_len++;
        state->board[undo->removed.row][undo->removed.col] = undo->removed.symbol;
    }
    state->turn = undo->prev_turn;
    state->status = undo->prev_status;
    state->move_count--;
}

/* -------------------------------------------------------------- encodings */

kd_err kd_ttt_state_encode(const kd_ttt_state *state, kd_buf *out)
{
    uint8_t bytes[STATE_FIXED_LEN + 3 * 9];
    size_t n = 0;
    assert(state->history_len <= 9);
    bytes[n++] = KD_TTT_STATE_VERSION;
    bytes[n++] = state->cap;
    bytes[n++] = state->turn;
    bytes[n++] = state->status;
    kd_put_u32be(&bytes[n], state->move_count);
    n += 4;
    memcpy(&bytes[n], state->players, 2 * KD_PUBKEY_LEN);
    n += 2 * KD_PUBKEY_LEN;
    bytes[n++] = state->history_len;
    for (size_t i = 0; i < state->history_len && i < 9; i++) {
        bytes[n++] = state->history[i].row;
        bytes[n++] = state->history[i].col;
        bytes[n++] = state->history[i].symbol;
    }
    return kd_buf_append(out, bytes, n);
}

/* Checks that the status agrees with the board (history already checked). */
static int status_consistent(const kd_ttt_state *s)
{
    int x_line = has_line(s->board, KD_TTT_X);
    int o_line = has_line(s->board, KD_TTT_O);
    uint8_t last = s->history_len ? s->history[s->history_len - 1].symbol : KD_TTT_EMPTY;
    switch (s->status) {
    case KD_TTT_IN_PROGRESS:
        return !x_line && !o_line && (s->cap || s->history_len < 9);
    case KD_TTT_X_WON:
        return x_line && !o_line && last == KD_TTT_X;
    case KD_TTT_O_WON:
        return o_line && !x_line && last == KD_TTT_O;
    case KD_TTT_DRAW:
        return !x_line && !o_line && !s->cap && s->history_len == 9;
    default:
        return 0;
    }
}

kd_err kd_ttt_state_decode(const uint8_t *data, size_t len, kd_ttt_state *state)
{
    kd_ttt_state s;
    memset(&s, 0, sizeof s);
    memset(state, 0, sizeof *state);
    if (!data || len < STATE_FIXED_LEN || data[0] != KD_TTT_STATE_VERSION)
        goto fail;
    s.cap = data[1];
    s.turn = data[2];
    s.status = data[3];
    s.move_count = kd_get_u32be(&data[4]);
    memcpy(s.players, &data[8], 2 * KD_PUBKEY_LEN);
    s.history_len = data[74];
    if (s.cap > KD_TTT_MAX_CAP || !valid_symbol(s.turn) || s.history_len > 9 ||
        len != STATE_FIXED_LEN + 3 * (size_t)s.history_len)
        goto fail;
    if (s.turn != turn_after(s.move_count) || s.history_len != window_len(s.cap, s.move_count))
        goto fail;
    /* The keys were checked on the curve when the episode was created; a
     * stored state only needs their form (a compressed key's prefix), which
     * keeps every read of an episode free of elliptic-curve work. */
    for (size_t i = 0; i < 2; i++)
        if (s.players[i].bytes[0] != 0x02 && s.players[i].bytes[0] != 0x03)
            goto fail;
    /* The history is the last history_len moves: distinct cells, marks
     * alternating and ending with the side that moved last. */
    const uint8_t *h = &data[STATE_FIXED_LEN];
    for (size_t i = 0; i < s.history_len; i++) {
        kd_ttt_cell c = {h[3 * i], h[3 * i + 1], h[3 * i + 2]};
        uint32_t index = s.move_count - s.history_len + (uint32_t)i;
        if (c.row > 2 || c.col > 2 || s.board[c.row][c.col] != KD_TTT_EMPTY || c.symbol != turn_after(index))
            goto fail;
        s.board[c.row][c.col] = c.symbol;
        s.history[i] = c;
    }
    if (!status_consistent(&s))
        goto fail;
    *state = s;
    return KD_OK;
fail:
    return KD_ERR_DECODE;
}

kd_err kd_ttt_undo_encode(const kd_ttt_undo *undo, kd_buf *out)
{
    uint8_t bytes[UNDO_LEN] = {
        KD_TTT_UNDO_VERSION, undo->row, undo->col, undo->prev_turn, undo->prev_status, undo->has_removed, 0, 0, 0,
    };
    if (undo->has_removed) {
        bytes[6] = undo->removed.row;
        bytes[7] = undo->removed.col;
        bytes[8] = undo->removed.symbol;
    }
    return kd_buf_append(out, bytes, sizeof bytes);
}

kd_err kd_ttt_undo_decode(const uint8_t *data, size_t len, kd_ttt_undo *undo)
{
    kd_ttt_undo u;
    memset(&u, 0, sizeof u);
    memset(undo, 0, sizeof *undo);
    if (!data || len != UNDO_LEN || data[0] != KD_TTT_UNDO_VERSION)
        goto fail;
    u.row = data[1];
    u.col = data[2];
    u.prev_turn = data[3];
    u.prev_status = data[4];
    u.has_removed = data[5];
    if (u.row > 2 || u.col > 2 || !valid_symbol(u.prev_turn) || u.prev_status != KD_TTT_IN_PROGRESS ||
        u.has_removed > 1)
        goto fail;
    if (u.has_removed) {
        u.removed.row = data[6];
        u.removed.col = data[7];
        u.removed.symbol = data[8];
        if (u.removed.row > 2 || u.removed.col > 2 || !valid_symbol(u.removed.symbol) ||
            (u.removed.row == u.row && u.removed.col == u.col))
            goto fail;
    } else if (data[6] || data[7] || data[8]) {
        goto fail;
    }
    *undo = u;
    return KD_OK;
fail:
    return KD_ERR_DECODE;
}

/* ------------------------------------------------------------------- view */

void kd_ttt_view_of(const kd_ttt_state *state, kd_ttt_view *out)
{
    memset(out, 0, sizeof *out);
    memcpy(out->board, state->board, sizeof out->board);
    out->current = state->turn;
    out->status = state->status;
    out->cap = state->cap;
    out->move_count = state->move_count;
    if (!state->cap)
        return;
    out->recent_len = state->history_len;
    memcpy(out->recent, state->history, (size_t)state->history_len * sizeof out->recent[0]);
    if (state->history_len && state->history_len == state->cap) {
        out->has_next_to_remove = 1;
        out->next_to_remove = state->history[0];
    }
}

size_t kd_ttt_legal_moves(const kd_ttt_state *state, kd_ttt_cell out[9])
{
    size_t n = 0;
    if (state->status != KD_TTT_IN_PROGRESS)
        return 0;
    for (uint8_t r = 0; r < 3; r++)
        for (uint8_t c = 0; c < 3; c++)
            if (state->board[r][c] == KD_TTT_EMPTY) {
                out[n].row = r;
                out[n].col = c;
                out[n].symbol = state->turn;
                n++;
            }
    return n;
}

void kd_ttt_rule_text(uint8_t cap, char *out, size_t len)
{
    if (!out || len == 0)
        return;
    if (cap == 0 || cap > KD_TTT_MAX_CAP)
        snprintf(out, len,
                 "Classic tic-tac-toe: nine cells, no removals; a full board without a "
                 "line of three is a draw.");
    else
        snprintf(out, len,
                 "The board shows at most %u symbol%s; before your move, the oldest symbol is "
                 "removed.",
                 (unsigned)cap, cap == 1 ? "" : "s");
}

/* -------------------------------------------------------------- ops table */

static kd_err ops_resolve_params(const void *config, const uint8_t *params, size_t len, kd_buf *effective,
                                 kd_reject *rej)
{
    uint32_t wire_cap = 0;
    kd_err err = kd_ttt_params_decode(params, len, &wire_cap, rej);
    if (err)
        return err;
    uint8_t cap = kd_ttt_cap_resolve(wire_cap, config);
    return kd_ttt_params_encode(cap ? cap : KD_TTT_WIRE_CLASSIC, effective);
}

static kd_err ops_init(void *state, const kd_participants *participants, const uint8_t *params, size_t len,
                       const kd_block_meta *meta, kd_reject *rej)
{
    (void)meta;
    uint32_t wire_cap = 0;
    kd_err err = kd_ttt_params_decode(params, len, &wire_cap, rej);
    if (err) {
        memset(state, 0, sizeof(kd_ttt_state));
        return err;
    }
    if (wire_cap == 0) {
        /* Effective params always name the cap; 0 would make the rules
         * depend on whichever default is in force at replay. */
        memset(state, 0, sizeof(kd_ttt_state));
        return kd_reject_say(rej, KD_ERR_BAD_PARAMS,
                             "the params are not resolved: cap 0 means the engine default; effective params "
                             "carry 1..8 or 9 (classic)");
    }
    return kd_ttt_state_init(state, participants, kd_ttt_cap_resolve(wire_cap, NULL), rej);
}

static kd_err ops_execute(void *state, const uint8_t *command, size_t len, const kd_pubkey *signer,
                          const kd_block_meta *meta, void *undo, kd_reject *rej)
{
    (void)meta;
    kd_ttt_move move;
    kd_err err = kd_ttt_command_decode(command, len, &move, rej);
    if (err)
        return err;
    return kd_ttt_play(state, &move, signer, undo, rej);
}

static kd_err ops_rollback(void *state, const void *undo)
{
    if (kd_ttt_undo_check(state, undo) != KD_OK)
        return KD_ERR_DECODE;
    kd_ttt_rollback(state, undo);
    return KD_OK;
}

KD_OPS_STATE_CODEC(ttt);
KD_OPS_UNDO_CODEC(ttt);

const kd_episode_ops kd_tictactoe_ops = {
    .type_name = KD_TTT_TYPE_NAME,
    KD_OPS_MEMBERS(ttt),
};
