/*
 * chess_bot.c — chess's bot: negamax with alpha-beta pruning over a
 * private copy of the state (kd_chess_make / kd_chess_unmake, so every
 * rule, draws included, is the game's own), captures first by MVV-LVA,
 * material and piece-square evaluation at the leaves. Pure and reentrant:
 * the search lives on the stack.
 */
#include <string.h>

#include "episodes/chess/chess.h"
#include "episodes/bot.h"

#define MATE 100000
#define INF 1000000
#define MAX_DEPTH KD_CHESS_BOT_MAX_DEPTH
#define DEFAULT_DEPTH 3

static const int value[7] = {0, 100, 320, 330, 500, 900, 0};

/* Piece-square tables, rank 8 first as printed (a8 is index 0): white
 * reads square sq ^ 56, black sq. Simplified evaluation (Michniewski). */
static const int8_t pst[7][64] = {
    {0},
    /* pawn */
    {
        0,  0,   0,  0, 0,  0,  0,  0,   50,  50, 50, 50, 50, 50, 50, 50, 10, 10, 20, 30, 30,  20,
        10, 10,  5,  5, 10, 25, 25, 10,  5,   5,  0,  0,  0,  20, 20, 0,  0,  0,  5,  -5, -10, 0,
        0,  -10, -5, 5, 5,  10, 10, -20, -20, 10, 10, 5,  0,  0,  0,  0,  0,  0,  0,  0,
    },
    /* knight */
    {
        -50, -40, -30, -30, -30, -30, -40, -50, -40, -20, 0,   0,   0,   0,   -20, -40, -30, 0,   10,  15,  15, 10,
        0,   -30, -30, 5,   15,  20,  20,  15,  5,   -30, -30, 0,   15,  20,  20,  15,  0,   -30, -30, 5,   10, 15,
        15,  10,  5,   -30, -40, -20, 0,   5,   5,   0,   -20, -40, -50, -40, -30, -30, -30, -30, -40, -50,
    },
    /* bishop */
    {
        -20, -10, -10, -10, -10, -10, -10, -20, -10, 0,   0,   0,   0,   0,   0,   -10, -10, 0,   5,   10,  10, 5,
        0,   -10, -10, 5,   5,   10,  10,  5,   5,   -10, -10, 0,   10,  10,  10,  10,  0,   -10, -10, 10,  10, 10,
        10,  10,  10,  -10, -10, 5,   0,   0,   0,   0,   5,   -10, -20, -10, -10, -10, -10, -10, -10, -20,
    },
    /* rook */
    {
        0,  0, 0, 0, 0, 0, 0, 0,  5,  10, 10, 10, 10, 10, 10, 5,  -5, 0, 0, 0, 0, 0, 0, -5, -5, 0, 0, 0, 0, 0, 0, -5,
        -5, 0, 0, 0, 0, 0, 0, -5, -5, 0,  0,  0,  0,  0,  0,  -5, -5, 0, 0, 0, 0, 0, 0, -5, 0,  0, 0, 5, 5, 0, 0, 0,
    },
    /* queen */
    {
        -20, -10, -10, -5,  -5,  -10, -10, -20, -10, 0,  0, 0,   0,   0,   0,   -10, -10, 0,   5,   5,   5, 5,
        0,   -10, -5,  0,   5,   5,   5,   5,   0,   -5, 0, 0,   5,   5,   5,   5,   0,   -5,  -10, 5,   5, 5,
        5,   5,   0,   -10, -10, 0,   5,   0,   0,   0,  0, -10, -20, -10, -10, -5,  -5,  -10, -10, -20,
    },
    /* king */
    {
        -30, -40, -40, -50, -50, -40, -40, -30, -30, -40, -40, -50, -50, -40, -40, -30, -30, -40, -40, -50, -50, -40,
        -40, -30, -30, -40, -40, -50, -50, -40, -40, -30, -20, -30, -30, -40, -40, -30, -30, -20, -10, -20, -20, -20,
        -20, -20, -20, -10, 20,  20,  0,   0,   0,   0,   20,  20,  20,  30,  10,  0,   0,   10,  30,  20,
    },
};

/* The position for the side to move. */
static int evaluate(const kd_chess_state *s)
{
    int score = 0;
    for (int sq = 0; sq < 64; sq++) {
        uint8_t p = s->board[sq];
        if (!p)
            continue;
        int t = KD_CHESS_TYPE(p), white = KD_CHESS_COLOUR(p) == KD_CHESS_WHITE;
        int v = value[t] + pst[t][white ? sq ^ 56 : sq];
        score += white ? v : -v;
    }
    return s->side == KD_CHESS_WHITE ? score : -score;
}

/* Orders moves: promotions and captures first, most valuable victim by
 * least valuable attacker. */
static void order_moves(const kd_chess_state *s, kd_chess_move *moves, int n)
{
    int keys[KD_CHESS_MOVES_MAX];
    for (int i = 0; i < n; i++) {
        int victim = moves[i].flags & KD_CHESS_EN_PASSANT ? KD_CHESS_PAWN : KD_CHESS_TYPE(s->board[moves[i].to]);
        int attacker = KD_CHESS_TYPE(s->board[moves[i].from]);
        keys[i] = (victim ? 100 + value[victim] - attacker : 0) + (moves[i].promo ? value[moves[i].promo] : 0);
    }
    for (int i = 1; i < n; i++) { /* insertion sort, stable */
        kd_chess_move m = moves[i];
        int k = keys[i], j = i - 1;
        for (; j >= 0 && keys[j] < k; j--) {
            moves[j + 1] = moves[j];
            keys[j + 1] = keys[j];
        }
        moves[j + 1] = m;
        keys[j + 1] = k;
    }
}

/* The value of a finished position for the side to move, `ply` plies from
 * the root (a quicker mate scores higher). */
static int terminal(kd_chess_status status, int ply)
{
    if (status == KD_CHESS_WHITE_WON || status == KD_CHESS_BLACK_WON)
        return -(MATE - ply);
    return 0;
}

static int negamax(kd_chess_state *s, unsigned depth, int alpha, int beta, int ply)
{
    kd_chess_status status = kd_chess_status_of(s);
    if (status != KD_CHESS_IN_PROGRESS)
        return terminal(status, ply);
    if (depth == 0)
        return evaluate(s);
    kd_chess_move moves[KD_CHESS_MOVES_MAX];
    int n = kd_chess_legal_moves(s, moves), best = -INF;
    order_moves(s, moves, n);
    for (int i = 0; i < n; i++) {
        kd_chess_undo undo;
        kd_chess_make(s, moves[i], &undo);
        int score = -negamax(s, depth - 1, -beta, -alpha, ply + 1);
        kd_err err = kd_chess_unmake(s, &undo);
        (void)err; /* the record is the move just made */
        if (kd_bot_cutoff(score, &best, &alpha, beta))
            break;
    }
    return best;
}

kd_err kd_chess_bot_command(const void *state_ptr, unsigned depth, uint64_t tiebreak, kd_buf *out)
{
    kd_chess_state s;
    memcpy(&s, state_ptr, sizeof s);
    if (kd_chess_status_of(&s) != KD_CHESS_IN_PROGRESS)
        return KD_ERR_NO_MOVE;
    unsigned d = kd_bot_depth(depth, DEFAULT_DEPTH, MAX_DEPTH);
    kd_chess_move moves[KD_CHESS_MOVES_MAX], ties[KD_CHESS_MOVES_MAX];
    int n = kd_chess_legal_moves(&s, moves), best = -INF, n_ties = 0;
    order_moves(&s, moves, n);
    /* Each child is searched with alpha just below the best so far, so a
     * move as good as the best returns its exact value: the ties are
     * exact, and the tiebreak chooses among them. */
    for (int i = 0; i < n; i++) {
        kd_chess_undo undo;
        kd_chess_make(&s, moves[i], &undo);
        int alpha = best == -INF ? -INF : best - 1;
        int score = -negamax(&s, d - 1, -INF, -alpha, 1);
        kd_err err = kd_chess_unmake(&s, &undo);
        (void)err;
        if (score > best) {
            best = score;
            n_ties = 0;
        }
        if (score == best)
            ties[n_ties++] = moves[i];
    }
    if (n_ties == 0)
        return KD_ERR_NO_MOVE; /* unreachable: a game in progress has a legal move */
    kd_chess_move m = ties[tiebreak % (uint64_t)n_ties];
    return kd_chess_command_encode(m.from, m.to, m.promo, out);
}
