/*
 * ratings_test.c — the Elo formula of handlers/ratings.h at known values:
 * FIDE's table 8.1(b) at its bounds, the 400-point rule, the changes of a
 * win, a draw and a loss in hundredths, and how a seat result scores (a
 * cheat and a forfeit are losses), and open tables that never started on
 * a real engine. The whole computation on a real store, with reorgs and an
 * outsider, is tests/tools/ratings_kdapp.sh.
 */
#include <criterion/criterion.h>
#include <stdio.h>

#include "engine/support.h"
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

/* Tables that never started are no games (issue 39): in one store a table
 * left open, one cancelled, and one a stranger joined and lost. Their
 * creations, joins and cancel are applied transactions whose id holds no
 * episode (kd_read_episode: not found); the ratings count the one game and
 * nothing else (they failed whole before: `kdapp ratings`, `kdapp log
 * --json` and kdapp_get_ratings with them). */
Test(ratings, tables_that_never_started_are_no_games)
{
    et_env env;
    et_env_open(&env, 9, 0);
    kd_type_table types;
    kd_type_table_init(&types);
    const char *chain = kd_engine_chain(env.engine);
    kd_key alice = et_key("alice"), bob = et_key("bob");
    kd_participants p = {.count = 2};
    p.keys[0] = alice.pub; /* seat 1 open: 33 zero bytes */
    et_txs txs;
    et_txs_init(&txs);
    kd_buf b;
    kd_buf_init(&b);
    /* one block: three tables, the cancel of one and a join of another
     * (one block, so no join is past its table's deadline) */
    for (uint32_t id = 5; id <= 9; id += 2) { /* alice, the one named seat, consents */
        kd_consent consent;
        ET_ASSERT_OK(kd_consent_sign(&alice, 0, chain, id, "tictactoe", &p, NULL, 0, &consent));
        ET_ASSERT_OK(kd_wire_new_episode_consented(id, "tictactoe", &p, NULL, 0, &consent, 1, &b));
        et_add_raw(&txs, b.data, b.len);
        b.len = 0;
    }
    ET_ASSERT_OK(kd_wire_cancel(chain, 7, "tictactoe", &alice, &b));
    et_add_raw(&txs, b.data, b.len);
    b.len = 0;
    ET_ASSERT_OK(kd_wire_join(chain, 9, "tictactoe", NULL, 0, 1, &bob, NULL, 0, &b));
    et_add_raw(&txs, b.data, b.len);
    kd_buf_fini(&b);
    kd_msg_result res;
    et_accept(env.engine, "tables", &txs, &res);
    cr_assert_eq(res.tx_count, 5);
    for (size_t i = 0; i < res.tx_count; i++)
        cr_assert(res.txs[i].applied, "tx %zu applied: %s (%s)", i, res.txs[i].code, res.txs[i].detail);
    kd_msg_result_fini(&res);
    /* alice (X) wins table 9's game on the top row */
    static const uint8_t moves[][2] = {{0, 0}, {1, 0}, {0, 1}, {1, 1}, {0, 2}};
    for (uint64_t i = 0; i < 5; i++) {
        et_txs_clear(&txs);
        et_add_move(&txs, 9, moves[i][0], moves[i][1], (uint8_t)(i % 2), i % 2 ? "bob" : "alice", i);
        char name[16];
        snprintf(name, sizeof name, "move%llu", (unsigned long long)i);
        et_accept_ok(env.engine, name, &txs);
    }
    et_txs_fini(&txs);

    kd_read *rd;
    ET_ASSERT_OK(kd_engine_read_begin(env.engine, &rd));
    kd_ratings r;
    kd_err err = kd_ratings_compute(rd, &types, NULL, &r);
    kd_engine_read_end(rd);
    ET_ASSERT_OK(err);
    cr_expect_eq(r.n_games, 1, "one game: the open and the cancelled tables are none");
    cr_expect_eq(r.n_games ? r.games[0].episode : 0, 9);
    cr_assert_eq(r.n_ratings, 2);
    cr_expect_arr_eq(r.ratings[0].key.bytes, alice.pub.bytes, KD_PUBKEY_LEN, "alice first");
    cr_expect_eq(r.ratings[0].rating, 151000);
    cr_expect_eq(r.ratings[1].rating, 149000);
    kd_ratings_fini(&r);
    et_env_fini(&env);
}
