/*
 * seabattle_bot.c — a hunt-and-target shooter for sea battle (the type's
 * bot_command). It counts, for every unshot cell of the enemy board, the
 * placements of the ships still afloat that cover it and agree with what
 * the answers showed: no placement through a miss, a cell of another ship,
 * a sunk ship or a neighbour of a hit on another ship (ships do not touch),
 * and a ship already hit lies through all its hits. While a ship is hit and
 * afloat only that ship's placements count (target); else all (hunt). The
 * answers name the ship hit, so a target is exact. Pure function.
 */
#include <string.h>

#include "episodes/seabattle/seabattle.h"

/* Whether ship `id` of length `len` may lie from (row, col) on board
 * `marks`, covering every hit on it. */
static int fits(const uint8_t marks[KD_SB_CELLS], unsigned id, int row, int col, int horizontal, unsigned hits)
{
    int len = kd_sb_ship_len[id], dr = horizontal ? 0 : 1, dc = horizontal ? 1 : 0;
    unsigned covered = 0;
    for (int k = 0; k < len; k++) {
        int r = row + k * dr, c = col + k * dc;
        if (r >= KD_SB_SIZE || c >= KD_SB_SIZE)
            return 0;
        uint8_t m = marks[r * KD_SB_SIZE + c];
        if (m == id + 1)
            covered++;
        else if (m)
            return 0; /* a miss or another ship */
        for (int nr = r - 1; nr <= r + 1; nr++)
            for (int nc = c - 1; nc <= c + 1; nc++) {
                if (nr < 0 || nr >= KD_SB_SIZE || nc < 0 || nc >= KD_SB_SIZE)
                    continue;
                uint8_t o = marks[nr * KD_SB_SIZE + nc];
                if (o > KD_SB_MARK_MISS && o != id + 1)
                    return 0; /* touching another ship */
            }
    }
    return covered == hits;
}

/* Adds the placements of ship `id` to `score`. */
static void count_ship(const uint8_t marks[KD_SB_CELLS], unsigned id, unsigned hits, uint32_t score[KD_SB_CELLS])
{
    int len = kd_sb_ship_len[id];
    for (int horizontal = 0; horizontal < 2; horizontal++)
        for (int row = 0; row < KD_SB_SIZE; row++)
            for (int col = 0; col < KD_SB_SIZE; col++) {
                if (!fits(marks, id, row, col, horizontal, hits))
                    continue;
                for (int k = 0; k < len; k++) {
                    int i = (row + (horizontal ? 0 : k)) * KD_SB_SIZE + col + (horizontal ? k : 0);
                    if (!marks[i])
                        score[i]++;
                }
            }
}

kd_err kd_sb_bot_command(const void *state_ptr, unsigned depth, uint64_t tiebreak, kd_buf *out)
{
    (void)depth; /* one ply: the densest cell */
    const kd_sb_state *s = state_ptr;
    if (s->phase != KD_SB_PLAY || s->pending != KD_SB_NO_CELL)
        return KD_ERR_NO_MOVE;
    const uint8_t *marks = s->marks[1 - s->turn];
    unsigned hits[KD_SB_SHIPS + 1] = {0};
    int target = 0;
    for (unsigned id = 1; id <= KD_SB_SHIPS; id++) {
        hits[id] = kd_sb_hits(s, 1 - s->turn, id);
        target |= hits[id] > 0 && hits[id] < kd_sb_ship_len[id];
    }
    uint32_t score[KD_SB_CELLS] = {0};
    for (unsigned id = 1; id <= KD_SB_SHIPS; id++)
        if (hits[id] < kd_sb_ship_len[id] && (!target || hits[id] > 0))
            count_ship(marks, id, hits[id], score);
    uint32_t best = 0, n_best = 0, n_open = 0;
    for (int i = 0; i < KD_SB_CELLS; i++) {
        if (marks[i])
            continue;
        n_open++;
        if (score[i] > best) {
            best = score[i];
            n_best = 0;
        }
        n_best += score[i] == best;
    }
    if (!n_open)
        return KD_ERR_NO_MOVE;
    uint64_t pick = tiebreak % n_best;
    for (uint32_t i = 0; i < KD_SB_CELLS; i++)
        if (!marks[i] && score[i] == best && pick-- == 0) {
            kd_sb_command c;
            memset(&c, 0, sizeof c);
            c.kind = KD_SB_SHOT;
            c.cell = i;
            return kd_sb_command_encode(&c, out);
        }
    return KD_ERR_NO_MOVE;
}
