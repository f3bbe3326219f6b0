/* hm_ref.c — the slow reference evaluator (hm_ref.h). */
#include "hm_ref.h"

#include <string.h>

/* Scores exactly five cards. */
static uint32_t five(const uint8_t c[5])
{
    int count[13] = {0}, suit0 = c[0] % 4, flush = 1;
    for (int i = 0; i < 5; i++) {
        count[c[i] / 4]++;
        flush &= c[i] % 4 == suit0;
    }
    /* ranks ordered by (count, rank) descending */
    int order[5], n = 0;
    for (int want = 4; want >= 1; want--)
        for (int r = 12; r >= 0; r--)
            if (count[r] == want)
                order[n++] = r;
    int straight = -1;
    if (n == 5) {
        if (order[0] - order[4] == 4)
            straight = order[0];
        else if (order[0] == 12 && order[1] == 3 && order[4] == 0)
            straight = 3; /* the wheel: five high */
    }
    uint32_t cat;
    if (straight >= 0 && flush)
        cat = 8;
    else if (count[order[0]] == 4)
        cat = 7;
    else if (count[order[0]] == 3 && count[order[1]] == 2)
        cat = 6;
    else if (flush)
        cat = 5;
    else if (straight >= 0)
        cat = 4;
    else if (count[order[0]] == 3)
        cat = 3;
    else if (count[order[0]] == 2 && count[order[1]] == 2)
        cat = 2;
    else if (count[order[0]] == 2)
        cat = 1;
    else
        cat = 0;
    uint32_t v = cat << 20;
    if (cat == 8 || cat == 4)
        return v | (uint32_t)straight << 16;
    for (int i = 0; i < n; i++)
        v |= (uint32_t)order[i] << (16 - 4 * i);
    return v;
}

uint32_t hm_ref_eval(const uint8_t *cards, size_t n)
{
    uint32_t best = 0;
    uint8_t pick[5];
    /* every 5-subset by bitmask */
    for (unsigned m = 0; m < (1u << n); m++) {
        if (__builtin_popcount(m) != 5)
            continue;
        int k = 0;
        for (size_t i = 0; i < n; i++)
            if (m & (1u << i))
                pick[k++] = cards[i];
        uint32_t v = five(pick);
        if (v > best)
            best = v;
    }
    return best;
}
