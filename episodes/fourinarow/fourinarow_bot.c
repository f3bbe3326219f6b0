/*
 * fourinarow_bot.c — four-in-a-row's bot: negamax with alpha-beta pruning
 * over a private copy of the board, centre columns first, a window count
 * at the leaves. Pure and reentrant: the search lives on the stack.
 */
#include <string.h>

#include "episodes/fourinarow/fourinarow.h"
#include "episodes/bot.h"

#define WIN 100000
#define INF 1000000
#define MAX_DEPTH KD_FIAR_BOT_MAX_DEPTH
#define DEFAULT_DEPTH 5

static const int order[KD_FIAR_COLS] = {3, 2, 4, 1, 5, 0, 6};

typedef struct {
    uint8_t cells[KD_FIAR_CELLS];
    uint8_t heights[KD_FIAR_COLS];
    unsigned discs;
} board;

static uint8_t cell(const board *b, int col, int row)
{
    if (col < 0 || col >= KD_FIAR_COLS || row < 0 || row >= KD_FIAR_ROWS)
        return 0;
    return b->cells[col * KD_FIAR_ROWS + row];
}

/* Whether the disc at (col, row) completes a line of four. */
static int wins_at(const board *b, int col, int row)
{
    static const int dirs[4][2] = {{1, 0}, {0, 1}, {1, 1}, {1, -1}};
    uint8_t c = cell(b, col, row);
    for (int d = 0; d < 4; d++) {
        int n = 1;
        for (int k = 1; k < 4 && cell(b, col + k * dirs[d][0], row + k * dirs[d][1]) == c; k++)
            n++;
        for (int k = 1; k < 4 && cell(b, col - k * dirs[d][0], row - k * dirs[d][1]) == c; k++)
            n++;
        if (n >= 4)
            return 1;
    }
    return 0;
}

/* The position for `me` (1, 2): every window of four that only one colour
 * occupies counts for that colour (1, 4, 16 by its discs), and centre
 * discs count 3. */
static int evaluate(const board *b, uint8_t me)
{
    static const int dirs[4][2] = {{1, 0}, {0, 1}, {1, 1}, {1, -1}};
    static const int weight[5] = {0, 1, 4, 16, 0};
    int score = 0;
    for (int row = 0; row < KD_FIAR_ROWS; row++)
        score += cell(b, 3, row) == me ? 3 : cell(b, 3, row) ? -3 : 0;
    for (int col = 0; col < KD_FIAR_COLS; col++)
        for (int row = 0; row < KD_FIAR_ROWS; row++)
            for (int d = 0; d < 4; d++) {
                int ec = col + 3 * dirs[d][0], er = row + 3 * dirs[d][1];
                if (ec >= KD_FIAR_COLS || er < 0 || er >= KD_FIAR_ROWS)
                    continue;
                int mine = 0, theirs = 0;
                for (int k = 0; k < 4; k++) {
                    uint8_t c = cell(b, col + k * dirs[d][0], row + k * dirs[d][1]);
                    mine += c == me;
                    theirs += c && c != me;
                }
                if (!theirs)
                    score += weight[mine];
                else if (!mine)
                    score -= weight[theirs];
            }
    return score;
}

/* The value of `b` for `me` to move, searched `depth` plies; `ply` plies
 * from the root (quicker wins score higher). */
static int negamax(board *b, uint8_t me, unsigned depth, int alpha, int beta, int ply)
{
    if (b->discs == KD_FIAR_CELLS)
        return 0;
    if (depth == 0)
        return evaluate(b, me);
    int best = -INF;
    for (int i = 0; i < KD_FIAR_COLS; i++) {
        int col = order[i], row = b->heights[col];
        if (row >= KD_FIAR_ROWS)
            continue;
        b->cells[col * KD_FIAR_ROWS + row] = me;
        b->heights[col]++;
        b->discs++;
        int score =
            wins_at(b, col, row) ? WIN - ply : -negamax(b, (uint8_t)(3 - me), depth - 1, -beta, -alpha, ply + 1);
        b->discs--;
        b->heights[col]--;
        b->cells[col * KD_FIAR_ROWS + row] = 0;
        if (kd_bot_cutoff(score, &best, &alpha, beta))
            break;
    }
    return best;
}

kd_err kd_fiar_bot_command(const void *state_ptr, unsigned depth, uint64_t tiebreak, kd_buf *out)
{
    const kd_fiar_state *s = state_ptr;
    if (s->status != KD_FIAR_IN_PROGRESS)
        return KD_ERR_NO_MOVE;
    unsigned d = kd_bot_depth(depth, DEFAULT_DEPTH, MAX_DEPTH);
    board b;
    memcpy(b.cells, s->cells, sizeof b.cells);
    memcpy(b.heights, s->heights, sizeof b.heights);
    b.discs = s->move_count;
    uint8_t me = (uint8_t)(s->turn + 1);
    /* Each child is searched with alpha just below the best so far, so a
     * column as good as the best returns its exact value: the ties are
     * exact, and the tiebreak chooses among them. */
    int best = -INF, ties[KD_FIAR_COLS], n = 0;
    for (int i = 0; i < KD_FIAR_COLS; i++) {
        int col = order[i], row = b.heights[col];
        if (row >= KD_FIAR_ROWS)
            continue;
        b.cells[col * KD_FIAR_ROWS + row] = me;
        b.heights[col]++;
        b.discs++;
        int alpha = best == -INF ? -INF : best - 1;
        int score = wins_at(&b, col, row) ? WIN - 1 : -negamax(&b, (uint8_t)(3 - me), d - 1, -INF, -alpha, 2);
        b.discs--;
        b.heights[col]--;
        b.cells[col * KD_FIAR_ROWS + row] = 0;
        if (score > best) {
            best = score;
            n = 0;
        }
        if (score == best)
            ties[n++] = col;
    }
    if (n == 0)
        return KD_ERR_NO_MOVE; /* unreachable: a game in progress has an open column */
    uint8_t bytes[KD_FIAR_COMMAND_MAX];
    size_t len = kd_fiar_command_pack((uint32_t)ties[tiebreak % (uint64_t)n], bytes);
    return kd_buf_append(out, bytes, len);
}
