/*
 * fourinarow.c — the rules of four-in-a-row, its state and undo encodings
 * and the kd_episode_ops table that plugs them into the engine. Pure
 * functions of their inputs: no environment, no clock, no I/O. Formats and
 * rules are described in fourinarow.h.
 */
#include "episodes/fourinarow/fourinarow.h"
#include "episodes/ops_adapter.h"

#include <string.h>

#include "engine/crypto.h"

const kd_rule_code kd_fiar_rule_codes[] = {
    {"game_over", "the game has ended: four in a line, or a full board"},
    {"unauthorised", "the command is unsigned, or signed by a key that is not a participant"},
    {"not_your_turn", "the signer is the participant of the seat that is not to move"},
    {"out_of_bounds", "the column is beyond the board (columns are 0 to 6)"},
    {"column_full", "the column already holds six discs"},
    {NULL, NULL},
};

static const char *const seat_words[2] = {"red", "yellow"};

/* The colour (1, 2) at (column, row), 0 outside the board or empty. */
static uint8_t at(const uint8_t cells[KD_FIAR_CELLS], int col, int row)
{
    if (col < 0 || col >= KD_FIAR_COLS || row < 0 || row >= KD_FIAR_ROWS)
        return 0;
    return cells[col * KD_FIAR_ROWS + row];
}

/* Whether the disc at (col, row) is in a line of four of its colour. */
static int line_through(const uint8_t cells[KD_FIAR_CELLS], int col, int row)
{
    static const int dirs[4][2] = {{1, 0}, {0, 1}, {1, 1}, {1, -1}};
    uint8_t c = at(cells, col, row);
    if (!c)
        return 0;
    for (int d = 0; d < 4; d++) {
        int n = 1;
        for (int k = 1; k < 4 && at(cells, col + k * dirs[d][0], row + k * dirs[d][1]) == c; k++)
            n++;
        for (int k = 1; k < 4 && at(cells, col - k * dirs[d][0], row - k * dirs[d][1]) == c; k++)
            n++;
        if (n >= 4)
            return 1;
    }
    return 0;
}

int kd_fiar_has_line(const uint8_t cells[KD_FIAR_CELLS], uint8_t colour)
{
    for (int col = 0; col < KD_FIAR_COLS; col++)
        for (int row = 0; row < KD_FIAR_ROWS; row++)
            if (at(cells, col, row) == colour && line_through(cells, col, row))
                return 1;
    return 0;
}

/* ------------------------------------------------------------ rules */

kd_err kd_fiar_state_init(kd_fiar_state *state, const kd_participants *participants, kd_reject *rej)
{
    memset(state, 0, sizeof *state);
    if (kd_two_seats_check(participants, "four-in-a-row", seat_words, rej) != KD_OK)
        return KD_ERR_BAD_PARTICIPANTS;
    state->turn = KD_FIAR_RED;
    state->status = KD_FIAR_IN_PROGRESS;
    state->last_column = KD_FIAR_NO_COLUMN;
    memcpy(state->players, participants->keys, sizeof state->players);
    return KD_OK;
}

kd_err kd_fiar_drop_unchecked(kd_fiar_state *state, uint32_t column, kd_fiar_undo *undo, kd_reject *rej)
{
    if (state->status != KD_FIAR_IN_PROGRESS)
        return kd_reject_rule(rej, "game_over", "the game is over: %s",
                              state->status == KD_FIAR_DRAW      ? "the board is full, a draw"
                              : state->status == KD_FIAR_RED_WON ? "red has four in a line"
                                                                 : "yellow has four in a line");
    if (column >= KD_FIAR_COLS)
        return kd_reject_rule(rej, "out_of_bounds", "there is no column %u: the columns are 0 to %d", (unsigned)column,
                              KD_FIAR_COLS - 1);
    if (state->heights[column] >= KD_FIAR_ROWS)
        return kd_reject_rule(rej, "column_full", "column %u is full", (unsigned)column);

    memset(undo, 0, sizeof(kd_fiar_undo));
    undo->column = (uint8_t)column;
    undo->prev_last_column = state->last_column;
    int row = state->heights[column];
    state->cells[column * KD_FIAR_ROWS + row] = (uint8_t)(state->turn + 1);
    state->heights[column]++;
    state->last_column = (uint8_t)column;
    state->move_count++;
    if (line_through(state->cells, (int)column, row))
        state->status = state->turn == KD_FIAR_RED ? KD_FIAR_RED_WON : KD_FIAR_YELLOW_WON;
    else if (state->move_count == KD_FIAR_CELLS)
        state->status = KD_FIAR_DRAW;
    state->turn = (uint8_t)(1 - state->turn);
    return KD_OK;
}

kd_err kd_fiar_drop(kd_fiar_state *state, uint32_t column, const kd_pubkey *signer, kd_fiar_undo *undo, kd_reject *rej)
{
    if (state->status != KD_FIAR_IN_PROGRESS)
        return kd_fiar_drop_unchecked(state, column, undo, rej); /* game_over */
    const kd_pubkey *mover = &state->players[state->turn];
    const kd_pubkey *waiter = &state->players[1 - state->turn];
    if (!signer)
        return kd_reject_rule(rej, "unauthorised", "the move is unsigned; %s's moves must be signed by participant %d",
                              seat_words[state->turn], state->turn + 1);
    int is_mover = memcmp(signer->bytes, mover->bytes, KD_PUBKEY_LEN) == 0;
    if (!is_mover && memcmp(signer->bytes, waiter->bytes, KD_PUBKEY_LEN) != 0)
        return kd_reject_rule(rej, "unauthorised", "the signer is not a participant of this game");
    if (!is_mover)
        return kd_reject_rule(rej, "not_your_turn", "it is %s's turn, not %s's", seat_words[state->turn],
                              seat_words[1 - state->turn]);
    return kd_fiar_drop_unchecked(state, column, undo, rej);
}

/* The colour of the top disc of `col` in `s`, 0 when empty. */
static uint8_t top(const kd_fiar_state *s, uint8_t col)
{
    return s->heights[col] ? s->cells[col * KD_FIAR_ROWS + s->heights[col] - 1] : 0;
}

kd_err kd_fiar_rollback(kd_fiar_state *state, const kd_fiar_undo *undo)
{
    if (state->move_count == 0 || undo->column >= KD_FIAR_COLS || state->last_column != undo->column ||
        state->heights[undo->column] == 0 || top(state, undo->column) != 2 - state->turn)
        return KD_ERR_DECODE;
    /* After the rollback: the last drop before it was the other seat's, in
     * a column whose top disc is that seat's; none before the first drop. */
    uint8_t prev = undo->prev_last_column;
    kd_fiar_state s = *state;
    s.heights[undo->column]--;
    s.cells[undo->column * KD_FIAR_ROWS + s.heights[undo->column]] = 0;
    if (s.move_count == 1 ? prev != KD_FIAR_NO_COLUMN
                          : prev >= KD_FIAR_COLS || top(&s, prev) != (uint8_t)(state->turn + 1))
        return KD_ERR_DECODE;
    s.last_column = prev;
    s.move_count--;
    s.turn = (uint8_t)(1 - s.turn);
    s.status = KD_FIAR_IN_PROGRESS;
    *state = s;
    return KD_OK;
}

/* -------------------------------------------------------- encodings */

kd_err kd_fiar_state_encode(const kd_fiar_state *state, kd_buf *out)
{
    uint8_t bytes[KD_FIAR_STATE_LEN];
    size_t n = 0;
    bytes[n++] = KD_FIAR_VERSION;
    bytes[n++] = state->status;
    bytes[n++] = state->turn;
    bytes[n++] = state->last_column;
    kd_put_u32be(&bytes[n], state->move_count);
    n += 4;
    memcpy(&bytes[n], state->players, 2 * KD_PUBKEY_LEN);
    n += 2 * KD_PUBKEY_LEN;
    memcpy(&bytes[n], state->cells, KD_FIAR_CELLS);
    n += KD_FIAR_CELLS;
    return kd_buf_append(out, bytes, n);
}

/* The status the board of `s` must carry (its last disc given). */
static int board_status(const kd_fiar_state *s, uint8_t *status)
{
    int red = kd_fiar_has_line(s->cells, 1), yellow = kd_fiar_has_line(s->cells, 2);
    if (red && yellow)
        return -1;
    if (!red && !yellow) {
        *status = s->move_count == KD_FIAR_CELLS ? KD_FIAR_DRAW : KD_FIAR_IN_PROGRESS;
        return 0;
    }
    /* A win is the last mover's, and the board before its drop had none. */
    uint8_t last = (uint8_t)(2 - s->turn);
    if ((red ? 1 : 2) != last || s->last_column >= KD_FIAR_COLS)
        return -1;
    kd_fiar_state before = *s;
    before.cells[s->last_column * KD_FIAR_ROWS + s->heights[s->last_column] - 1] = 0;
    if (kd_fiar_has_line(before.cells, last))
        return -1;
    *status = red ? KD_FIAR_RED_WON : KD_FIAR_YELLOW_WON;
    return 0;
}

kd_err kd_fiar_state_decode(const uint8_t *data, size_t len, kd_fiar_state *state)
{
    kd_fiar_state s;
    memset(&s, 0, sizeof s);
    memset(state, 0, sizeof *state);
    if (!data || len != KD_FIAR_STATE_LEN || data[0] != KD_FIAR_VERSION)
        return KD_ERR_DECODE;
    s.status = data[1];
    s.turn = data[2];
    s.last_column = data[3];
    s.move_count = kd_get_u32be(&data[4]);
    memcpy(s.players, &data[8], 2 * KD_PUBKEY_LEN);
    memcpy(s.cells, &data[8 + 2 * KD_PUBKEY_LEN], KD_FIAR_CELLS);
    /* Keys were checked on the curve at creation; a stored state needs
     * only their form. */
    for (size_t i = 0; i < 2; i++)
        if (s.players[i].bytes[0] != 0x02 && s.players[i].bytes[0] != 0x03)
            return KD_ERR_DECODE;
    unsigned count[3] = {0, 0, 0};
    for (int col = 0; col < KD_FIAR_COLS; col++) {
        int h = 0;
        for (int row = 0; row < KD_FIAR_ROWS; row++) {
            uint8_t c = s.cells[col * KD_FIAR_ROWS + row];
            if (c > 2 || (c && h != row)) /* an unknown code, or a disc above a hole */
                return KD_ERR_DECODE;
            if (c)
                h++;
            count[c]++;
        }
        s.heights[col] = (uint8_t)h;
    }
    if (count[1] != count[2] && count[1] != count[2] + 1)
        return KD_ERR_DECODE;
    if (s.move_count != count[1] + count[2] || s.turn != s.move_count % 2)
        return KD_ERR_DECODE;
    if (s.move_count == 0 ? s.last_column != KD_FIAR_NO_COLUMN
                          : s.last_column >= KD_FIAR_COLS || top(&s, s.last_column) != 2 - s.turn)
        return KD_ERR_DECODE;
    uint8_t want = 0;
    if (board_status(&s, &want) != 0 || s.status != want)
        return KD_ERR_DECODE;
    *state = s;
    return KD_OK;
}

kd_err kd_fiar_undo_encode(const kd_fiar_undo *undo, kd_buf *out)
{
    uint8_t bytes[KD_FIAR_UNDO_LEN] = {KD_FIAR_VERSION, undo->column, undo->prev_last_column};
    return kd_buf_append(out, bytes, sizeof bytes);
}

kd_err kd_fiar_undo_decode(const uint8_t *data, size_t len, kd_fiar_undo *undo)
{
    memset(undo, 0, sizeof *undo);
    if (!data || len != KD_FIAR_UNDO_LEN || data[0] != KD_FIAR_VERSION || data[1] >= KD_FIAR_COLS ||
        (data[2] >= KD_FIAR_COLS && data[2] != KD_FIAR_NO_COLUMN))
        return KD_ERR_DECODE;
    undo->column = data[1];
    undo->prev_last_column = data[2];
    return KD_OK;
}

/* -------------------------------------------------------- ops table */

static kd_err ops_resolve_params(const void *config, const uint8_t *params, size_t len, kd_buf *effective,
                                 kd_reject *rej)
{
    (void)config;
    (void)effective; /* nothing to configure: the effective params are zero bytes */
    return kd_fiar_params_decode(params, len, rej);
}

static kd_err ops_init(void *state, const kd_participants *participants, const uint8_t *params, size_t len,
                       const kd_block_meta *meta, kd_reject *rej)
{
    (void)meta;
    kd_err err = kd_fiar_params_decode(params, len, rej);
    if (err) {
        memset(state, 0, sizeof(kd_fiar_state));
        return err;
    }
    return kd_fiar_state_init(state, participants, rej);
}

static kd_err ops_execute(void *state, const uint8_t *command, size_t len, const kd_pubkey *signer,
                          const kd_block_meta *meta, void *undo, kd_reject *rej)
{
    (void)meta;
    uint32_t column = 0;
    kd_err err = kd_fiar_command_decode(command, len, &column, rej);
    if (err)
        return err;
    return kd_fiar_drop(state, column, signer, undo, rej);
}

KD_OPS_CODEC(fiar);

const kd_episode_ops kd_fiar_ops = {
    .type_name = KD_FIAR_TYPE_NAME,
    KD_OPS_MEMBERS(fiar),
};
