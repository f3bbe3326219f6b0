/*
 * checkers_bot.c — checkers' bot: negamax with alpha-beta pruning over
 * private copies of the board, captures first (the rules force them
 * anyway), material and the men's advancement at the leaves. Pure and
 * reentrant: the search lives on the stack.
 */
#include <string.h>

#include "episodes/checkers/checkers.h"
#include "episodes/bot.h"

#define WIN 100000
#define INF 1000000
#define MAX_DEPTH KD_CK_BOT_MAX_DEPTH
#define DEFAULT_DEPTH 8
#define MAN 100
#define KING 150

/* The position for the side to move: material, men's advancement toward
 * the crowning rank (3 a rank), kings nearer the centre (1 a step). */
static int evaluate(const kd_ck_position *pos)
{
    int score[2] = {0, 0};
    for (int sq = 0; sq < KD_CK_SQUARES; sq++) {
        uint8_t p = pos->board[sq];
        int rank = sq / 8, file = sq % 8;
        switch (p) {
        case KD_CK_WHITE_MAN:
            score[KD_CK_WHITE] += MAN + 3 * (7 - rank);
            break;
        case KD_CK_BLACK_MAN:
            score[KD_CK_BLACK] += MAN + 3 * rank;
            break;
        case KD_CK_WHITE_KING:
        case KD_CK_BLACK_KING: {
            int dr = rank < 4 ? 3 - rank : rank - 4, df = file < 4 ? 3 - file : file - 4;
            score[kd_ck_owner(p)] += KING - dr - df;
            break;
        }
        default:
            break;
        }
    }
    return score[pos->turn] - score[1 - pos->turn];
}

/* Makes `path` on `pos` (a legal move of the side to move); returns
 * whether it was a king's simple step (a quiet ply). */
static int make(kd_ck_position *pos, const kd_ck_path *path)
{
    int from = path->squares[0], to = path->squares[path->count - 1];
    uint8_t piece = pos->board[from];
    int side = kd_ck_owner(piece), jumped = 0;
    pos->board[from] = KD_CK_EMPTY;
    for (size_t i = 1; i < path->count; i++) {
        int a = path->squares[i - 1], b = path->squares[i];
        if (a / 8 - b / 8 == 2 || b / 8 - a / 8 == 2) {
            pos->board[(a + b) / 2] = KD_CK_EMPTY;
            jumped = 1;
        }
    }
    int man = piece == KD_CK_WHITE_MAN || piece == KD_CK_BLACK_MAN;
    if (man && to / 8 == kd_ck_crown_rank(side))
        piece = side == KD_CK_WHITE ? KD_CK_WHITE_KING : KD_CK_BLACK_KING;
    pos->board[to] = piece;
    pos->turn = (uint8_t)(1 - pos->turn);
    return !man && !jumped;
}

/* The value of `pos` for the side to move, searched `depth` plies; `ply`
 * plies from the root (quicker wins score higher), `quiet` plies since a
 * capture or a man's move. */
static int negamax(const kd_ck_position *pos, unsigned quiet, unsigned depth, int alpha, int beta, int ply)
{
    kd_ck_moves moves;
    if (kd_ck_moves_list(pos, &moves) == 0)
        return -WIN + ply; /* no move loses, even on the ply that would draw */
    if (quiet >= KD_CK_DRAW_PLIES)
        return 0;
    if (depth == 0)
        return evaluate(pos);
    int best = -INF;
    for (size_t i = 0; i < moves.count; i++) {
        kd_ck_position child = *pos;
        unsigned q = make(&child, &moves.moves[i]) ? quiet + 1 : 0;
        int score = -negamax(&child, q, depth - 1, -beta, -alpha, ply + 1);
        if (kd_bot_cutoff(score, &best, &alpha, beta))
            break;
    }
    return best;
}

kd_err kd_ck_bot_command(const void *state_ptr, unsigned depth, uint64_t tiebreak, kd_buf *out)
{
    const kd_ck_state *s = state_ptr;
    if (s->status != KD_CK_IN_PROGRESS)
        return KD_ERR_NO_MOVE;
    unsigned d = kd_bot_depth(depth, DEFAULT_DEPTH, MAX_DEPTH);
    kd_ck_position pos;
    memcpy(pos.board, s->board, sizeof pos.board);
    pos.turn = s->turn;
    kd_ck_moves moves;
    if (kd_ck_moves_list(&pos, &moves) == 0)
        return KD_ERR_NO_MOVE; /* unreachable: a game in progress has a move */
    /* Each child is searched with alpha just below the best so far, so a
     * move as good as the best returns its exact value: the ties are
     * exact, and the tiebreak chooses among them. */
    int best = -INF;
    size_t ties[KD_CK_MOVES_MAX], n = 0;
    for (size_t i = 0; i < moves.count; i++) {
        kd_ck_position child = pos;
        unsigned q = make(&child, &moves.moves[i]) ? s->quiet + 1u : 0;
        int alpha = best == -INF ? -INF : best - 1;
        int score = -negamax(&child, q, d - 1, -INF, -alpha, 1);
        if (score > best) {
            best = score;
            n = 0;
        }
        if (score == best)
            ties[n++] = i;
    }
    return kd_ck_command_encode(&moves.moves[ties[tiebreak % (uint64_t)n]], out);
}
