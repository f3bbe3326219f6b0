/*
 * checkers.c — the rules of checkers (English draughts), its state and undo
 * encodings and the kd_episode_ops table that plugs them into the engine.
 * Pure functions of their inputs: no environment, no clock, no I/O.
 * Formats and rules are described in checkers.h; move generation is in
 * checkers_moves.c, the texts in checkers_text.c.
 */
#include "episodes/checkers/checkers.h"
#include "episodes/ops_adapter.h"

#include <stdlib.h>
#include <string.h>

#include "engine/crypto.h"

const kd_rule_code kd_ck_rule_codes[] = {
    {"game_over", "the game has ended: a side without a legal move lost, or 80 quiet plies drew it"},
    {"unauthorised", "the command is unsigned, or signed by a key that is not a participant"},
    {"not_your_turn", "the signer is the participant of the seat that is not to move"},
    {"not_a_move", "a move names 2 to 13 squares: where the piece stands and each square it visits"},
    {"bad_square", "a square is off the board or a light square (pieces stand where file + rank is even)"},
    {"no_piece", "the first square holds no piece of the side to move"},
    {"move_ends_on_crowning", "a man crowned on the far rank ends its move there, even if it could jump on"},
    {"not_a_legal_move", "a step is not a diagonal step or a jump over an enemy piece, or continues a simple move"},
    {"wrong_direction", "a man moves only forward: white toward rank 1, black toward rank 8"},
    {"square_occupied", "a step lands on a square that is not empty"},
    {"capture_required", "the side to move can capture, and captures are mandatory: a simple move is refused"},
    {"jump_incomplete", "a jump sequence stopped where the jumping piece can jump again: it must go on"},
    {NULL, NULL},
};

static const char *const seat_words[2] = {"white", "black"};
static const char *const piece_words[5] = {"nothing", "a white man", "a white king", "a black man", "a black king"};

static int is_man(uint8_t piece) { return piece == KD_CK_WHITE_MAN || piece == KD_CK_BLACK_MAN; }

static uint8_t king_of(int side) { return side == KD_CK_WHITE ? KD_CK_WHITE_KING : KD_CK_BLACK_KING; }

static uint8_t man_of(int side) { return side == KD_CK_WHITE ? KD_CK_WHITE_MAN : KD_CK_BLACK_MAN; }

static int iabs(int v) { return v < 0 ? -v : v; }

/* The position of a state. */
static void position_of(const kd_ck_state *s, kd_ck_position *pos)
{
    memcpy(pos->board, s->board, sizeof pos->board);
    pos->turn = s->turn;
}

/* The status after a move, the side to move being `s->turn`: it loses when
 * it has no move, else 80 quiet plies draw. */
static uint8_t status_after(const kd_ck_state *s)
{
    kd_ck_position pos;
    position_of(s, &pos);
    if (!kd_ck_has_move(&pos))
        return s->turn == KD_CK_WHITE ? KD_CK_BLACK_WON : KD_CK_WHITE_WON;
    return s->quiet >= KD_CK_DRAW_PLIES ? KD_CK_DRAW : KD_CK_IN_PROGRESS;
}

/* ------------------------------------------------------- positions */

void kd_ck_position_start(kd_ck_position *pos)
{
    memset(pos, 0, sizeof *pos);
    for (uint32_t sq = 0; sq < KD_CK_SQUARES; sq++) {
        if (!kd_ck_is_playing(sq))
            continue;
        if (sq / 8 <= 2)
            pos->board[sq] = KD_CK_BLACK_MAN;
        else if (sq / 8 >= 5)
            pos->board[sq] = KD_CK_WHITE_MAN;
    }
    pos->turn = KD_CK_WHITE;
}

/* Checks the board alone (not the side to move's moves): 0, or -1 with a
 * sentence in `why`. */
static int board_check(const uint8_t board[KD_CK_SQUARES], char *why, size_t why_len)
{
    unsigned count[2] = {0, 0};
    for (uint32_t sq = 0; sq < KD_CK_SQUARES; sq++) {
        uint8_t p = board[sq];
        char name[3];
        kd_ck_square_name(sq, name);
        if (p > KD_CK_BLACK_KING || (p && !kd_ck_is_playing(sq))) {
            kd_reject_write(why, why_len, "%s is a light square: it must be empty", name);
            return -1;
        }
        int side = kd_ck_owner(p);
        if (side < 0)
            continue;
        if (is_man(p) && (int)(sq / 8) == kd_ck_crown_rank(side)) {
            kd_reject_write(why, why_len, "a %s man on %s would have been crowned", seat_words[side], name);
            return -1;
        }
        if (++count[side] > KD_CK_PIECES_MAX) {
            kd_reject_write(why, why_len, "%s has more than %d pieces", seat_words[side], KD_CK_PIECES_MAX);
            return -1;
        }
    }
    return 0;
}

kd_err kd_ck_position_check(const kd_ck_position *pos, char *why, size_t why_len)
{
    if (pos->turn > KD_CK_BLACK) {
        kd_reject_write(why, why_len, "the side to move is white or black");
        return KD_ERR_BAD_PARAMS;
    }
    if (board_check(pos->board, why, why_len) != 0)
        return KD_ERR_BAD_PARAMS;
    if (!kd_ck_has_move(pos)) {
        kd_reject_write(why, why_len, "%s is to move and has no legal move: the game would be over before it starts",
                        seat_words[pos->turn]);
        return KD_ERR_BAD_PARAMS;
    }
    return KD_OK;
}

/* ------------------------------------------------------------ rules */

kd_err kd_ck_state_init(kd_ck_state *state, const kd_participants *participants, const kd_ck_position *start,
                        kd_reject *rej)
{
    memset(state, 0, sizeof *state);
    if (kd_two_seats_check(participants, "checkers", seat_words, rej) != KD_OK)
        return KD_ERR_BAD_PARTICIPANTS;
    kd_ck_position pos;
    if (start) {
        char why[KD_REJECT_DETAIL_MAX];
        if (kd_ck_position_check(start, why, sizeof why) != KD_OK)
            return kd_reject_say(rej, KD_ERR_BAD_PARAMS, "the start position: %s", why);
        pos = *start;
    } else {
        kd_ck_position_start(&pos);
    }
    memcpy(state->board, pos.board, sizeof state->board);
    state->turn = pos.turn;
    state->status = KD_CK_IN_PROGRESS;
    memcpy(state->players, participants->keys, sizeof state->players);
    return KD_OK;
}

/* A move being checked and made on a copy of the board. */
typedef struct {
    uint8_t board[KD_CK_SQUARES];
    uint8_t piece; /* the moving piece, a king once crowned */
    int side, jumps, crowned;
    uint16_t king_captures;
} move_work;

/* Checks that each square of `cmd` is on the board and a playing square. */
static kd_err check_form(const kd_ck_command *cmd, kd_reject *rej)
{
    if (cmd->count < 2 || cmd->count > KD_CK_PATH_MAX)
        return kd_reject_rule(rej, "not_a_move", "a move names 2 to %d squares, not %u", KD_CK_PATH_MAX,
                              (unsigned)cmd->count);
    for (uint32_t i = 0; i < cmd->count; i++) {
        if (cmd->squares[i] >= KD_CK_SQUARES)
            return kd_reject_rule(rej, "bad_square", "square %u is off the board: squares are 0 (a1) to 63 (h8)",
                                  (unsigned)cmd->squares[i]);
        if (!kd_ck_is_playing(cmd->squares[i])) {
            char name[3];
            kd_ck_square_name(cmd->squares[i], name);
            return kd_reject_rule(rej, "bad_square", "%s is a light square: pieces stand where file + rank is even",
                                  name);
        }
    }
    return KD_OK;
}

/* The first squares of a capture the mover has, as a notation. */
static int first_capture(void *ctx, const kd_ck_path *path)
{
    kd_ck_path_format(path, ctx);
    return 1;
}

/* Checks and makes step `i` (from square `from` to `to`) of a move on `w`. */
static kd_err take_step(const kd_ck_state *s, move_work *w, uint32_t i, int from, int to, kd_reject *rej)
{
    char a[3], b[3], m[3];
    kd_ck_square_name((uint32_t)from, a);
    kd_ck_square_name((uint32_t)to, b);
    int dr = to / 8 - from / 8, df = to % 8 - from % 8, dist = iabs(df);
    if (w->crowned)
        return kd_reject_rule(rej, "move_ends_on_crowning", "the %s man was crowned on %s: its move ends there",
                              seat_words[w->side], a);
    if (i > 1 && w->jumps == 0)
        return kd_reject_rule(rej, "not_a_legal_move", "a simple move goes one square: it cannot go on from %s to %s",
                              a, b);
    if (iabs(dr) != dist || dist < 1 || dist > 2)
        return kd_reject_rule(rej, "not_a_legal_move",
                              "%s to %s is neither a diagonal step of one square nor a jump of two", a, b);
    if (is_man(w->piece) && (w->side == KD_CK_WHITE ? dr > 0 : dr < 0))
        return kd_reject_rule(rej, "wrong_direction", "%s to %s goes backward: %s men move toward rank %d", a, b,
                              seat_words[w->side], w->side == KD_CK_WHITE ? 1 : 8);
    if (w->board[to] != KD_CK_EMPTY)
        return kd_reject_rule(rej, "square_occupied", "%s is occupied by %s", b, piece_words[w->board[to]]);
    if (dist == 1) {
        if (w->jumps > 0)
            return kd_reject_rule(rej, "not_a_legal_move",
                                  "after a jump a move goes on only by jumping: %s to %s is a single step", a, b);
        if (kd_ck_can_capture(s->board, w->side)) {
            char capture[KD_NOTATION_MAX] = "";
            kd_ck_position pos;
            position_of(s, &pos);
            kd_ck_each_move(&pos, first_capture, capture);
            return kd_reject_rule(rej, "capture_required",
                                  "%s can capture (%s), and captures are mandatory: %s%s is a simple move",
                                  seat_words[w->side], capture, a, b);
        }
    } else {
        int mid = (from + to) / 2;
        kd_ck_square_name((uint32_t)mid, m);
        if (kd_ck_owner(w->board[mid]) != 1 - w->side)
            return kd_reject_rule(rej, "not_a_legal_move", "%s to %s jumps over %s, which holds %s, not a %s piece", a,
                                  b, m, piece_words[w->board[mid]], seat_words[1 - w->side]);
        if (w->board[mid] == king_of(1 - w->side))
            w->king_captures |= (uint16_t)(1u << w->jumps);
        w->board[mid] = KD_CK_EMPTY;
        w->jumps++;
    }
    if (is_man(w->piece) && to / 8 == kd_ck_crown_rank(w->side)) {
        w->piece = king_of(w->side);
        w->crowned = 1;
    }
    return KD_OK;
}

kd_err kd_ck_play_unchecked(kd_ck_state *state, const kd_ck_command *cmd, kd_ck_undo *undo, kd_reject *rej)
{
    if (state->status != KD_CK_IN_PROGRESS)
        return kd_reject_rule(rej, "game_over", "the game is over: %s",
                              state->status == KD_CK_DRAW        ? "80 plies without a capture or a man moved, a draw"
                              : state->status == KD_CK_WHITE_WON ? "white won, black has no legal move"
                                                                 : "black won, white has no legal move");
    kd_err err = check_form(cmd, rej);
    if (err)
        return err;
    move_work w;
    memset(&w, 0, sizeof w);
    memcpy(w.board, state->board, sizeof w.board);
    w.side = state->turn;
    int from = (int)cmd->squares[0];
    w.piece = w.board[from];
    if (kd_ck_owner(w.piece) != w.side) {
        char a[3];
        kd_ck_square_name((uint32_t)from, a);
        return kd_reject_rule(rej, "no_piece", "%s holds %s, not a %s piece", a, piece_words[w.piece],
                              seat_words[w.side]);
    }
    uint8_t original = w.piece;
    w.board[from] = KD_CK_EMPTY;
    int at = from;
    for (uint32_t i = 1; i < cmd->count; i++) {
        err = take_step(state, &w, i, at, (int)cmd->squares[i], rej);
        if (err)
            return err;
        at = (int)cmd->squares[i];
    }
    if (w.jumps > 0 && !w.crowned && kd_ck_can_jump(w.board, at, w.piece)) {
        char a[3];
        kd_ck_square_name((uint32_t)at, a);
        return kd_reject_rule(rej, "jump_incomplete", "the jumping %s can jump again from %s: the sequence must go on",
                              piece_words[w.piece] + 2, a);
    }
    w.board[at] = w.piece;

    memset(undo, 0, sizeof(kd_ck_undo));
    undo->king_captures[0] = (uint8_t)(w.king_captures >> 8);
    undo->king_captures[1] = (uint8_t)w.king_captures;
    undo->path.count = (uint8_t)cmd->count;
    for (uint32_t i = 0; i < cmd->count; i++)
        undo->path.squares[i] = (uint8_t)cmd->squares[i];
    undo->prev_last = state->last;
    undo->crowned = (uint8_t)w.crowned;
    undo->prev_quiet = state->quiet;
    undo->prev_status = state->status;

    memcpy(state->board, w.board, sizeof state->board);
    state->last = undo->path;
    state->quiet = (uint8_t)(!is_man(original) && w.jumps == 0 ? state->quiet + 1 : 0);
    state->move_count++;
    state->turn = (uint8_t)(1 - state->turn);
    state->status = status_after(state);
    return KD_OK;
}

kd_err kd_ck_play(kd_ck_state *state, const kd_ck_command *cmd, const kd_pubkey *signer, kd_ck_undo *undo,
                  kd_reject *rej)
{
    if (state->status != KD_CK_IN_PROGRESS)
        return kd_ck_play_unchecked(state, cmd, undo, rej); /* game_over */
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
    return kd_ck_play_unchecked(state, cmd, undo, rej);
}

/* Whether `p` is a well-formed path: count 0, or 2..13 playing squares in
 * diagonal steps of one or two, a step of one only in a move of two
 * squares, unused squares 0. */
static int path_ok(const kd_ck_path *p)
{
    if (p->count == 1 || p->count > KD_CK_PATH_MAX)
        return 0;
    for (size_t i = p->count; i < KD_CK_PATH_MAX; i++)
        if (p->squares[i])
            return 0;
    for (size_t i = 0; i < p->count; i++) {
        if (!kd_ck_is_playing(p->squares[i]))
            return 0;
        if (i == 0)
            continue;
        int from = p->squares[i - 1], to = p->squares[i];
        int dr = iabs(to / 8 - from / 8), df = iabs(to % 8 - from % 8);
        if (dr != df || dr < 1 || dr > 2 || (dr == 1 && p->count != 2))
            return 0;
    }
    return 1;
}

/* Counts `side`'s pieces on `board`. */
static unsigned pieces_of(const uint8_t board[KD_CK_SQUARES], int side)
{
    unsigned n = 0;
    for (int sq = 0; sq < KD_CK_SQUARES; sq++)
        n += kd_ck_owner(board[sq]) == side;
    return n;
}

/* The kings among the captured pieces of `u`, bit i the i-th jump's. */
static unsigned kings_taken(const kd_ck_undo *u) { return (unsigned)u->king_captures[0] << 8 | u->king_captures[1]; }

/*
 * Rollback trusts nothing it reads from disk: a record is taken only when
 * it can be the last move's, so a stray or corrupted record leaves the
 * state untouched instead of producing one that no game reaches.
 *
 *   the record's path     == state.last (the move being undone)
 *   its last square        holds a piece of the side that moved; crowned
 *                          only with a king on its crowning rank
 *   its first square       empty (unless the jumps came back to it)
 *   each jumped square     empty, to receive a man or a king of the side to
 *                          move now, as king_captures says (no bit past the
 *                          jumps, 12 pieces a side at most)
 *   quiet plies            state.quiet is prev_quiet + 1 for a king's
 *                          step, else 0
 *   the previous last move ends on a piece of the side to move now, and is
 *                          empty exactly when this was the first move
 */
kd_err kd_ck_rollback(kd_ck_state *state, const kd_ck_undo *undo)
{
    const kd_ck_path *p = &undo->path;
    if (state->move_count == 0 || p->count < 2 || !path_ok(p) || !path_ok(&undo->prev_last) ||
        memcmp(p, &state->last, sizeof *p) != 0 || undo->prev_status != KD_CK_IN_PROGRESS ||
        undo->prev_quiet >= KD_CK_DRAW_PLIES || (undo->prev_last.count == 0) != (state->move_count == 1) ||
        undo->reserved != 0)
        return KD_ERR_DECODE;
    int mover = 1 - state->turn, from = p->squares[0], to = p->squares[p->count - 1];
    int jumps = iabs(p->squares[1] / 8 - from / 8) == 2 ? p->count - 1 : 0;
    uint8_t piece = state->board[to];
    if (kd_ck_owner(piece) != mover || (kings_taken(undo) >> jumps) != 0 || undo->crowned > 1 ||
        (undo->crowned && (piece != king_of(mover) || to / 8 != kd_ck_crown_rank(mover))) ||
        (from != to && state->board[from] != KD_CK_EMPTY))
        return KD_ERR_DECODE;
    uint8_t original = undo->crowned ? man_of(mover) : piece;
    int quiet_move = !is_man(original) && jumps == 0;
    if ((is_man(original) && from / 8 == kd_ck_crown_rank(mover)) ||
        state->quiet != (quiet_move ? undo->prev_quiet + 1 : 0) ||
        pieces_of(state->board, 1 - mover) + (unsigned)jumps > KD_CK_PIECES_MAX)
        return KD_ERR_DECODE;
    kd_ck_state s = *state;
    s.board[to] = KD_CK_EMPTY;
    for (int i = 0; i < jumps; i++) {
        int mid = (p->squares[i] + p->squares[i + 1]) / 2;
        if (s.board[mid] != KD_CK_EMPTY)
            return KD_ERR_DECODE;
        s.board[mid] = (kings_taken(undo) >> i) & 1 ? king_of(1 - mover) : man_of(1 - mover);
    }
    s.board[from] = original;
    /* Before it, the last move was the other side's, ending on its piece. */
    const kd_ck_path *prev = &undo->prev_last;
    if (prev->count && kd_ck_owner(s.board[prev->squares[prev->count - 1]]) != 1 - mover)
        return KD_ERR_DECODE;
    s.last = *prev;
    s.quiet = undo->prev_quiet;
    s.status = KD_CK_IN_PROGRESS;
    s.turn = (uint8_t)mover;
    s.move_count--;
    *state = s;
    return KD_OK;
}

/* -------------------------------------------------------- encodings */

kd_err kd_ck_state_encode(const kd_ck_state *state, kd_buf *out)
{
    uint8_t bytes[KD_CK_STATE_LEN];
    size_t n = 0;
    bytes[n++] = KD_CK_VERSION;
    bytes[n++] = state->status;
    bytes[n++] = state->turn;
    bytes[n++] = state->quiet;
    kd_put_u32be(&bytes[n], state->move_count);
    n += 4;
    memcpy(&bytes[n], state->players, 2 * KD_PUBKEY_LEN);
    n += 2 * KD_PUBKEY_LEN;
    bytes[n++] = state->last.count;
    memcpy(&bytes[n], state->last.squares, KD_CK_PATH_MAX);
    n += KD_CK_PATH_MAX;
    for (uint32_t sq = 0; sq < KD_CK_SQUARES; sq++)
        if (kd_ck_is_playing(sq))
            bytes[n++] = state->board[sq];
    return kd_buf_append(out, bytes, n);
}

kd_err kd_ck_state_decode(const uint8_t *data, size_t len, kd_ck_state *state)
{
    kd_ck_state s;
    memset(&s, 0, sizeof s);
    memset(state, 0, sizeof *state);
    if (!data || len != KD_CK_STATE_LEN || data[0] != KD_CK_VERSION)
        return KD_ERR_DECODE;
    size_t n = 1;
    s.status = data[n++];
    s.turn = data[n++];
    s.quiet = data[n++];
    s.move_count = kd_get_u32be(&data[n]);
    n += 4;
    memcpy(s.players, &data[n], 2 * KD_PUBKEY_LEN);
    n += 2 * KD_PUBKEY_LEN;
    s.last.count = data[n++];
    if (s.last.count > KD_CK_PATH_MAX)
        return KD_ERR_DECODE;
    memcpy(s.last.squares, &data[n], KD_CK_PATH_MAX);
    n += KD_CK_PATH_MAX;
    for (uint32_t sq = 0; sq < KD_CK_SQUARES; sq++)
        if (kd_ck_is_playing(sq))
            s.board[sq] = data[n++];
    /* Keys were checked on the curve at creation; a stored state needs
     * only their form. */
    for (size_t i = 0; i < 2; i++)
        if (s.players[i].bytes[0] != 0x02 && s.players[i].bytes[0] != 0x03)
            return KD_ERR_DECODE;
    if (s.status > KD_CK_DRAW || s.turn > KD_CK_BLACK || s.quiet > KD_CK_DRAW_PLIES || s.quiet > s.move_count ||
        board_check(s.board, NULL, 0) != 0 || !path_ok(&s.last) || (s.last.count == 0) != (s.move_count == 0))
        return KD_ERR_DECODE;
    if (s.last.count && kd_ck_owner(s.board[s.last.squares[s.last.count - 1]]) != 1 - s.turn)
        return KD_ERR_DECODE;
    if (s.status != status_after(&s))
        return KD_ERR_DECODE;
    *state = s;
    return KD_OK;
}

/* Writes `p` (count, 13 squares) at `bytes`. */
static void put_path(uint8_t *bytes, const kd_ck_path *p)
{
    bytes[0] = p->count;
    memcpy(&bytes[1], p->squares, KD_CK_PATH_MAX);
}

kd_err kd_ck_undo_encode(const kd_ck_undo *undo, kd_buf *out)
{
    uint8_t bytes[KD_CK_UNDO_LEN];
    bytes[0] = KD_CK_VERSION;
    put_path(&bytes[1], &undo->path);
    put_path(&bytes[1 + 1 + KD_CK_PATH_MAX], &undo->prev_last);
    size_t n = 1 + 2 * (1 + KD_CK_PATH_MAX);
    bytes[n++] = undo->king_captures[0];
    bytes[n++] = undo->king_captures[1];
    bytes[n++] = undo->crowned;
    bytes[n++] = undo->prev_quiet;
    bytes[n++] = undo->prev_status;
    return kd_buf_append(out, bytes, n);
}

kd_err kd_ck_undo_decode(const uint8_t *data, size_t len, kd_ck_undo *undo)
{
    memset(undo, 0, sizeof *undo);
    if (!data || len != KD_CK_UNDO_LEN || data[0] != KD_CK_VERSION || data[1] > KD_CK_PATH_MAX ||
        data[2 + KD_CK_PATH_MAX] > KD_CK_PATH_MAX)
        return KD_ERR_DECODE;
    kd_ck_undo u;
    memset(&u, 0, sizeof u);
    u.path.count = data[1];
    memcpy(u.path.squares, &data[2], KD_CK_PATH_MAX);
    u.prev_last.count = data[2 + KD_CK_PATH_MAX];
    memcpy(u.prev_last.squares, &data[3 + KD_CK_PATH_MAX], KD_CK_PATH_MAX);
    size_t n = 1 + 2 * (1 + KD_CK_PATH_MAX);
    u.king_captures[0] = data[n];
    u.king_captures[1] = data[n + 1];
    u.crowned = data[n + 2];
    u.prev_quiet = data[n + 3];
    u.prev_status = data[n + 4];
    if (u.path.count < 2 || !path_ok(&u.path) || !path_ok(&u.prev_last) || u.crowned > 1 ||
        u.prev_status != KD_CK_IN_PROGRESS || u.prev_quiet >= KD_CK_DRAW_PLIES || kings_taken(&u) >= 1u << 12)
        return KD_ERR_DECODE;
    *undo = u;
    return KD_OK;
}

/* -------------------------------------------------------- ops table */

static kd_err ops_resolve_params(const void *config, const uint8_t *params, size_t len, kd_buf *effective,
                                 kd_reject *rej)
{
    (void)config;
    kd_ck_position start;
    int has_start = 0;
    kd_err err = kd_ck_params_decode(params, len, &start, &has_start, rej);
    if (err || !has_start)
        return err; /* the standard start: zero bytes */
    return kd_ck_params_encode(&start, effective);
}

static kd_err ops_init(void *state, const kd_participants *participants, const uint8_t *params, size_t len,
                       const kd_block_meta *meta, kd_reject *rej)
{
    (void)meta;
    kd_ck_position start;
    int has_start = 0;
    kd_err err = kd_ck_params_decode(params, len, &start, &has_start, rej);
    if (err) {
        memset(state, 0, sizeof(kd_ck_state));
        return err;
    }
    return kd_ck_state_init(state, participants, has_start ? &start : NULL, rej);
}

static kd_err ops_execute(void *state, const uint8_t *command, size_t len, const kd_pubkey *signer,
                          const kd_block_meta *meta, void *undo, kd_reject *rej)
{
    (void)meta;
    kd_ck_command cmd;
    kd_err err = kd_ck_command_decode(command, len, &cmd, rej);
    if (err)
        return err;
    return kd_ck_play(state, &cmd, signer, undo, rej);
}

KD_OPS_CODEC(ck);

const kd_episode_ops kd_ck_ops = {
    .type_name = KD_CK_TYPE_NAME,
    KD_OPS_MEMBERS(ck),
};
