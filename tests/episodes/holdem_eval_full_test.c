/*
 * holdem_eval_full_test.c — every hand: the C(52,7) = 133,784,560 seven-card
 * hands counted by category against the known totals, and the 2,598,960
 * five-card hands falling into exactly 7,462 distinct values. Prints how
 * long each took. Heavy: it runs in the release pass only (excluded from
 * the sanitizer pass by tools/scripts/check.sh).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "episodes/holdem/holdem_eval.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

Test(holdem_eval_full, seven_card_categories, .timeout = 600)
{
    static const uint64_t want[9] = {23294460, 58627800, 31433400, 6461620, 6180020, 4047644, 3473184, 224848, 41584};
    uint64_t got[9] = {0}, bit[KD_HM_CARDS];
    for (unsigned c = 0; c < KD_HM_CARDS; c++)
        bit[c] = kd_hm_card_bit(c);
    double t0 = now_s();
    for (int a = 0; a < 46; a++)
        for (int b = a + 1; b < 47; b++) {
            uint64_t ab = bit[a] | bit[b];
            for (int c = b + 1; c < 48; c++) {
                uint64_t abc = ab | bit[c];
                for (int d = c + 1; d < 49; d++) {
                    uint64_t abcd = abc | bit[d];
                    for (int e = d + 1; e < 50; e++) {
                        uint64_t m5 = abcd | bit[e];
                        for (int f = e + 1; f < 51; f++) {
                            uint64_t m6 = m5 | bit[f];
                            for (int g = f + 1; g < 52; g++)
                                got[kd_hm_eval_mask(m6 | bit[g]) >> 20]++;
                        }
                    }
                }
            }
        }
    double t = now_s() - t0;
    uint64_t total = 0;
    for (int k = 0; k < 9; k++) {
        cr_expect_eq(got[k], want[k], "%s: %llu, want %llu", kd_hm_category_name((kd_hm_category)k),
                     (unsigned long long)got[k], (unsigned long long)want[k]);
        total += got[k];
    }
    cr_expect_eq(total, 133784560ull);
    fprintf(stderr, "holdem_eval_full: 133,784,560 seven-card hands in %.2f s (%.1f ns a hand)\n", t,
            t * 1e9 / 133784560.0);
}

Test(holdem_eval_full, five_card_distinct_values)
{
    size_t span = (size_t)9 << 20;
    uint8_t *seen = calloc(span, 1);
    cr_assert(seen);
    uint64_t hands = 0, distinct = 0;
    double t0 = now_s();
    for (int a = 0; a < 48; a++)
        for (int b = a + 1; b < 49; b++)
            for (int c = b + 1; c < 50; c++)
                for (int d = c + 1; d < 51; d++)
                    for (int e = d + 1; e < 52; e++) {
                        uint32_t v = kd_hm_eval_mask(kd_hm_card_bit((unsigned)a) | kd_hm_card_bit((unsigned)b) |
                                                     kd_hm_card_bit((unsigned)c) | kd_hm_card_bit((unsigned)d) |
                                                     kd_hm_card_bit((unsigned)e));
                        cr_assert_lt(v, span);
                        distinct += !seen[v];
                        seen[v] = 1;
                        hands++;
                    }
    double t = now_s() - t0;
    free(seen);
    cr_expect_eq(hands, 2598960ull);
    cr_expect_eq(distinct, 7462ull, "%llu distinct five-card values, want 7462", (unsigned long long)distinct);
    fprintf(stderr, "holdem_eval_full: 2,598,960 five-card hands, %llu distinct values, in %.2f s\n",
            (unsigned long long)distinct, t);
}
