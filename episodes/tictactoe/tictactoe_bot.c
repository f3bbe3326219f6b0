/*
 * tictactoe_bot.c — the search bot: negamax with alpha-beta over the real
 * rules (kd_ttt_play), so stress-mode evictions are simulated exactly. The
 * search players (tools/players.c) and the type table's bot_command
 * (tictactoe_type.c) use it. Pure and reentrant: no state, no I/O.
 */
#include <string.h>

#include "episodes/tictactoe/tictactoe.h"

#define SCORE_WIN 10000
#define SCORE_INF 1000000

static const uint8_t lines[8][3][2] = {
    {{0, 0}, {0, 1}, {0, 2}}, {{1, 0}, {1, 1}, {1, 2}}, {{2, 0}, {2, 1}, {2, 2}}, {{0, 0}, {1, 0}, {2, 0}},
    {{0, 1}, {1, 1}, {2, 1}}, {{0, 2}, {1, 2}, {2, 2}}, {{0, 0}, {1, 1}, {2, 2}}, {{0, 2}, {1, 1}, {2, 0}},
};

/* Plays `m` for the side to move on a copy; 0 when the rules refuse it. */
static int play_on(const kd_ttt_state *s, const kd_ttt_cell *m, kd_ttt_state *child)
{
    *child = *s;
    kd_ttt_move mv = {.row = m->row, .col = m->col, .player = s->turn == KD_TTT_X ? 0 : 1};
    kd_ttt_undo undo;
    return kd_ttt_play(child, &mv, &child->players[mv.player], &undo, NULL) == KD_OK;
}

static int won(const kd_ttt_state *s) { return s->status == KD_TTT_X_WON || s->status == KD_TTT_O_WON; }

/* Legal moves, centre first, then corners, then edges: better cut-offs. */
static size_t ordered_moves(const kd_ttt_state *s, kd_ttt_cell out[9])
{
    static const uint8_t order[9][2] = {{1, 1}, {0, 0}, {0, 2}, {2, 0}, {2, 2}, {0, 1}, {1, 0}, {1, 2}, {2, 1}};
    size_t n = 0;
    if (s->status != KD_TTT_IN_PROGRESS)
        return 0;
    for (size_t i = 0; i < 9; i++)
        if (s->board[order[i][0]][order[i][1]] == KD_TTT_EMPTY)
            out[n++] = (kd_ttt_cell){order[i][0], order[i][1], s->turn};
    return n;
}

/* 1 when the side to move in `s` has a move that wins at once. */
static int can_win_now(const kd_ttt_state *s)
{
    kd_ttt_cell moves[9];
    size_t n = ordered_moves(s, moves);
    for (size_t i = 0; i < n; i++) {
        kd_ttt_state child;
        if (play_on(s, &moves[i], &child) && won(&child))
            return 1;
    }
    return 0;
}

/*
 * The leaf score for the side to move. A win available now is scored as
 * the win it is. Otherwise open lines are counted on the board as the next
 * move will find it: in stress mode with a full window the oldest mark is
 * gone before anything is placed, so it counts for nobody.
 */
static int evaluate(const kd_ttt_state *s, int ply)
{
    if (can_win_now(s))
        return SCORE_WIN - (ply + 1);
    /* Lost when every move leaves the opponent a win in one: a double
     * threat, or a threat on the cell of the mover's own oldest mark, which
     * the mover cannot play and its own move frees. */
    kd_ttt_cell moves[9];
    size_t n = ordered_moves(s, moves);
    int lost = n > 0;
    for (size_t i = 0; lost && i < n; i++) {
        kd_ttt_state child;
        lost = play_on(s, &moves[i], &child) && can_win_now(&child);
    }
    if (lost)
        return -(SCORE_WIN - (ply + 2));
    uint8_t b[3][3];
    memcpy(b, s->board, sizeof b);
    if (s->cap && s->history_len == s->cap)
        b[s->history[0].row][s->history[0].col] = KD_TTT_EMPTY;
    int score = 0;
    for (size_t i = 0; i < 8; i++) {
        int mine = 0, theirs = 0;
        for (size_t k = 0; k < 3; k++) {
            uint8_t v = b[lines[i][k][0]][lines[i][k][1]];
            mine += v == s->turn;
            theirs += v != KD_TTT_EMPTY && v != s->turn;
        }
        if (mine && theirs)
            continue;
        score += mine == 2 ? 8 : mine;
        score -= theirs == 2 ? 8 : theirs;
    }
    return score;
}

/* Negamax with alpha-beta; the score is for the side to move in `s`. */
static int negamax(const kd_ttt_state *s, unsigned depth, int ply, int alpha, int beta)
{
    if (s->status == KD_TTT_DRAW)
        return 0;
    if (won(s)) /* the previous mover won */
        return -(SCORE_WIN - ply);
    if (depth == 0)
        return evaluate(s, ply);
    kd_ttt_cell moves[9];
    size_t n = ordered_moves(s, moves);
    int best = -SCORE_INF;
    for (size_t i = 0; i < n; i++) {
        kd_ttt_state child;
        if (!play_on(s, &moves[i], &child))
            continue;
        int v = -negamax(&child, depth - 1, ply + 1, -beta, -alpha);
        if (v > best)
            best = v;
        if (v > alpha)
            alpha = v;
        if (alpha >= beta)
            break;
    }
    return best == -SCORE_INF ? 0 : best;
}

kd_err kd_search_move(const kd_ttt_state *s, unsigned depth, uint64_t tiebreak, kd_ttt_cell *out)
{
    kd_ttt_cell moves[9], pick[9];
    kd_ttt_state child[9];
    size_t n = kd_ttt_legal_moves(s, moves), npick = 0;
    if (!n)
        return KD_ERR_NO_MOVE;
    if (depth < 1)
        depth = 1;
    if (depth > KD_SEARCH_MAX_DEPTH)
        depth = KD_SEARCH_MAX_DEPTH;
    if (!s->cap)
        depth = 9; /* classic: search to the end */
    int ok[9] = {0}, safe[9] = {0}, any_safe = 0;
    for (size_t i = 0; i < n; i++) {
        ok[i] = play_on(s, &moves[i], &child[i]);
        if (ok[i] && won(&child[i]))
            pick[npick++] = moves[i];
    }
    if (npick) { /* 1. win at once */
        *out = pick[tiebreak % npick];
        return KD_OK;
    }
    for (size_t i = 0; i < n; i++) { /* 2. do not hand the opponent a win in one */
        safe[i] = ok[i] && !can_win_now(&child[i]);
        any_safe |= safe[i];
    }
    int best = -SCORE_INF;
    int scores[9];
    for (size_t i = 0; i < n; i++) { /* 3. look ahead */
        if (!ok[i] || (any_safe && !safe[i]))
            continue;
        scores[i] = -negamax(&child[i], depth - 1, 1, -SCORE_INF, SCORE_INF);
        if (scores[i] > best)
            best = scores[i];
    }
    for (size_t i = 0; i < n; i++)
        if (ok[i] && (!any_safe || safe[i]) && scores[i] == best)
            pick[npick++] = moves[i];
    if (!npick)
        return KD_ERR_NO_MOVE;
    *out = pick[tiebreak % npick];
    return KD_OK;
}
