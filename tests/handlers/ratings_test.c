/*
 * ratings_test.c — the Elo formula of handlers/ratings.h at known values:
 * FIDE's table 8.1(b) at its bounds, the 400-point rule, the changes of a
 * win, a draw and a loss in hundredths, and how a seat result scores (a
 * cheat and a forfeit are losses). The whole computation on a real store,
 * with reorgs and an outsider, is tests/tools/ratings_kdapp.sh.
 */
#include <criterion/criterion.h>

#include "handlers/ratings.h"

Test(ratings, fide_table_at_its_bounds)
{
    static const struct {
        int64_t diff;
        int p;
    } cases[] = {{0, 50},   {3, 50},   {4, 51},   {10, 51},  {11, 52},  {25, 53},  {26, 54},  {61, 58},
                 {62, 59},  {99, 64},  {100, 64}, {106, 64}, {107, 65}, {200, 76}, {344, 88}, {345, 89},
                 {391, 91}, {392, 92}, {400, 92}, {401, 92}, {735, 92}, {5000, 92}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cr_expect_eq(kd_elo_expected(cases[i].diff), cases[i].p, "D = %lld: the higher's P", (long long)cases[i].diff);
        cr_expect_eq(kd_elo_expected(-cases[i].diff), 100 - cases[i].p, "D = -%lld: the lower's",
                     (long long)cases[i].diff);
    }
}

Test(ratings, changes_in_hundredths)
{
    /* equals: a win +10.00, a loss -10.00, a draw nothing */
    cr_expect_eq(kd_elo_change(150000, 150000, 100), 1000);
    cr_expect_eq(kd_elo_change(150000, 150000, 0), -1000);
    cr_expect_eq(kd_elo_change(150000, 150000, 50), 0);
    /* 1600 against 1500: P = 0.64; a win +7.20, a loss -12.80, a draw -2.80 */
    cr_expect_eq(kd_elo_change(160000, 150000, 100), 720);
    cr_expect_eq(kd_elo_change(160000, 150000, 0), -1280);
    cr_expect_eq(kd_elo_change(160000, 150000, 50), -280);
    cr_expect_eq(kd_elo_change(150000, 160000, 100), 1280, "the upset");
    /* the difference is read in whole points, truncated: 1503.99 - 1500.00 is 3 */
    cr_expect_eq(kd_elo_change(150399, 150000, 100), 1000);
    cr_expect_eq(kd_elo_change(150400, 150000, 100), 980);
    /* over 400 points counts as 400: P = 0.92 */
    cr_expect_eq(kd_elo_change(250000, 150000, 100), 160);
    cr_expect_eq(kd_elo_change(150000, 250000, 0), -160);
}

Test(ratings, results_score)
{
    cr_expect_eq(kd_elo_score(KD_RESULT_WIN), 100);
    cr_expect_eq(kd_elo_score(KD_RESULT_DRAW), 50);
    cr_expect_eq(kd_elo_score(KD_RESULT_LOSS), 0);
    cr_expect_eq(kd_elo_score(KD_RESULT_CHEAT), 0, "a cheat is a loss");
    cr_expect_eq(kd_elo_score(KD_RESULT_FORFEIT), 0, "a forfeit is a loss");
    cr_expect_eq(kd_elo_score(KD_RESULT_NONE), -1);
    cr_expect_str_eq(kd_seat_result_name(KD_RESULT_FORFEIT), "forfeit");
    cr_expect_str_eq(kd_unrated_name(KD_UNRATED_SELF), "self_play");
}
