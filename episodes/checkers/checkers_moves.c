/*
 * checkers_moves.c — move generation for checkers (see checkers.h): the
 * legal moves of a position, whether a side can capture, whether a piece
 * can jump on. Captured pieces leave the board as they are jumped, which in
 * English draughts gives the same moves as removing them at the end: a
 * jump lands two squares away, so it never lands where a jumped piece
 * stood, and a piece is never jumped twice.
 */
#include <string.h>

#include "episodes/checkers/checkers.h"

/* The four diagonal directions: rank step, file step. */
static const int dirs[4][2] = {{1, -1}, {1, 1}, {-1, -1}, {-1, 1}};

int kd_ck_owner(uint8_t piece)
{
    if (piece == KD_CK_WHITE_MAN || piece == KD_CK_WHITE_KING)
        return KD_CK_WHITE;
    if (piece == KD_CK_BLACK_MAN || piece == KD_CK_BLACK_KING)
        return KD_CK_BLACK;
    return -1;
}

int kd_ck_crown_rank(int side) { return side == KD_CK_WHITE ? 0 : 7; }

int kd_ck_is_playing(uint32_t sq) { return sq < KD_CK_SQUARES && ((sq / 8 + sq % 8) % 2) == 0; }

/* Whether `piece` may go in direction `d` (men forward only: white toward
 * rank 1, black toward rank 8). */
static int may_go(uint8_t piece, int d)
{
    if (piece == KD_CK_WHITE_MAN)
        return dirs[d][0] < 0;
    if (piece == KD_CK_BLACK_MAN)
        return dirs[d][0] > 0;
    return 1;
}

/* The square `k` steps from `sq` in direction `d`, or -1 off the board. */
static int step(int sq, int d, int k)
{
    int rank = sq / 8 + k * dirs[d][0], file = sq % 8 + k * dirs[d][1];
    if (rank < 0 || rank > 7 || file < 0 || file > 7)
        return -1;
    return rank * 8 + file;
}

int kd_ck_can_jump(const uint8_t board[KD_CK_SQUARES], int sq, uint8_t piece)
{
    int side = kd_ck_owner(piece);
    for (int d = 0; d < 4; d++) {
        if (!may_go(piece, d))
            continue;
        int mid = step(sq, d, 1), land = step(sq, d, 2);
        if (land >= 0 && board[land] == KD_CK_EMPTY && kd_ck_owner(board[mid]) == 1 - side)
            return 1;
    }
    return 0;
}

int kd_ck_can_capture(const uint8_t board[KD_CK_SQUARES], int side)
{
    for (int sq = 0; sq < KD_CK_SQUARES; sq++)
        if (kd_ck_owner(board[sq]) == side && kd_ck_can_jump(board, sq, board[sq]))
            return 1;
    return 0;
}

/* A walk over the capture sequences of one piece. */
typedef struct {
    uint8_t board[KD_CK_SQUARES]; /* the piece lifted, jumped pieces removed */
    kd_ck_path path;
    kd_ck_move_fn fn;
    void *ctx;
} jump_walk;

/* Extends the sequence in `w` from `sq` by every jump of `piece`; emits it
 * where it cannot go on (or the man is crowned). Returns nonzero when the
 * callback stopped the walk. */
static int jumps_from(jump_walk *w, int sq, uint8_t piece)
{
    int side = kd_ck_owner(piece), extended = 0;
    for (int d = 0; d < 4; d++) {
        if (!may_go(piece, d))
            continue;
        int mid = step(sq, d, 1), land = step(sq, d, 2);
        if (land < 0 || w->board[land] != KD_CK_EMPTY || kd_ck_owner(w->board[mid]) != 1 - side)
            continue;
        extended = 1;
        uint8_t taken = w->board[mid];
        w->board[mid] = KD_CK_EMPTY;
        w->path.squares[w->path.count++] = (uint8_t)land;
        int crowned = (piece == KD_CK_WHITE_MAN || piece == KD_CK_BLACK_MAN) && land / 8 == kd_ck_crown_rank(side);
        int stop = crowned ? w->fn(w->ctx, &w->path) : jumps_from(w, land, piece);
        w->path.squares[--w->path.count] = 0;
        w->board[mid] = taken;
        if (stop)
            return 1;
    }
    if (!extended && w->path.count >= 2)
        return w->fn(w->ctx, &w->path);
    return 0;
}

/* Visits the simple moves of the side to move. */
static int each_step(const kd_ck_position *pos, kd_ck_move_fn fn, void *ctx)
{
    kd_ck_path path;
    memset(&path, 0, sizeof path);
    path.count = 2;
    for (int sq = 0; sq < KD_CK_SQUARES; sq++) {
        uint8_t piece = pos->board[sq];
        if (kd_ck_owner(piece) != pos->turn)
            continue;
        for (int d = 0; d < 4; d++) {
            int to = step(sq, d, 1);
            if (!may_go(piece, d) || to < 0 || pos->board[to] != KD_CK_EMPTY)
                continue;
            path.squares[0] = (uint8_t)sq;
            path.squares[1] = (uint8_t)to;
            if (fn(ctx, &path))
                return 1;
        }
    }
    return 0;
}

int kd_ck_each_move(const kd_ck_position *pos, kd_ck_move_fn fn, void *ctx)
{
    if (!kd_ck_can_capture(pos->board, pos->turn))
        return each_step(pos, fn, ctx);
    jump_walk w;
    memcpy(w.board, pos->board, sizeof w.board);
    w.fn = fn;
    w.ctx = ctx;
    for (int sq = 0; sq < KD_CK_SQUARES; sq++) {
        uint8_t piece = pos->board[sq];
        if (kd_ck_owner(piece) != pos->turn)
            continue;
        memset(&w.path, 0, sizeof w.path);
        w.path.squares[0] = (uint8_t)sq;
        w.path.count = 1;
        w.board[sq] = KD_CK_EMPTY;
        int stop = jumps_from(&w, sq, piece);
        w.board[sq] = piece;
        if (stop)
            return 1;
    }
    return 0;
}

static int stop_at_first(void *ctx, const kd_ck_path *path)
{
    (void)ctx;
    (void)path;
    return 1;
}

int kd_ck_has_move(const kd_ck_position *pos) { return kd_ck_each_move(pos, stop_at_first, NULL); }

static int collect(void *ctx, const kd_ck_path *path)
{
    kd_ck_moves *out = ctx;
    if (out->count == KD_CK_MOVES_MAX)
        return 1;
    out->moves[out->count++] = *path;
    return 0;
}

size_t kd_ck_moves_list(const kd_ck_position *pos, kd_ck_moves *out)
{
    out->count = 0;
    kd_ck_each_move(pos, collect, out);
    return out->count;
}
