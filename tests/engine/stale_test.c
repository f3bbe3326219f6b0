/*
 * stale_test.c — a command whose signature verifies only at an earlier
 * move counter (another command came first) is authentic but stale
 * (engine/rules.c, kd_rules_refuse_stale): it is never applied, and it is
 * refused under the rule that refuses it now, with the move it was signed
 * for, or `stale_command` when the rules alone would take it. One signed
 * more than KD_STALE_WINDOW moves back is `bad_signature` as before. The
 * state and the counter never change; the dry run says the same; replaying
 * the log, trusted or not, reproduces the store.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "engine/support.h"
#include "tools/sim/replay.h"

static et_env env;

static void setup(void) { et_env_open_relaxed(&env, 0, 0); }
static void teardown(void) { et_env_fini(&env); }

TestSuite(stale, .init = setup, .fini = teardown, .timeout = 60);

/* Episode 1 (alice X, bob O, classic) after `n` moves of a game that
 * does not end: X (0,0), O (1,1), X (2,2), O (0,2), X (2,0). */
static void play(size_t n)
{
    static const uint8_t cells[5][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 2}, {2, 0}};
    et_txs t;
    et_txs_init(&t);
    et_add_create(&t, 1, "alice", "bob", -1);
    for (size_t i = 0; i < n; i++)
        et_add_move(&t, 1, cells[i][0], cells[i][1], (uint8_t)(i % 2), i % 2 ? "bob" : "alice", i);
    et_accept_ok(env.engine, "game", &t);
    et_txs_fini(&t);
}

/* Predicts `payload` with a dry run, applies it alone in block `name`,
 * and expects both to refuse it under `code` with a sentence holding
 * `part`; the episode's bytes and counter stay as they were. */
static void expect_refused(const char *name, const kd_buf *payload, const char *code, const char *part)
{
    kd_buf before, after;
    kd_buf_init(&before);
    kd_buf_init(&after);
    et_episode_bytes(env.engine, 1, &before);

    kd_tx_result predicted;
    et_dry_run_one(env.engine, name, payload, &predicted);

    et_txs t;
    et_txs_init(&t);
    et_add_raw(&t, payload->data, payload->len);
    kd_msg_result res;
    et_accept(env.engine, name, &t, &res);
    cr_assert_eq(res.tx_count, 1);
    ET_EXPECT_REJECTED(res.txs[0], code);
    cr_expect(strstr(res.txs[0].detail, part) != NULL, "%s: \"%s\" should say \"%s\"", name, res.txs[0].detail, part);
    cr_expect_eq(predicted.applied, 0, "%s: the dry run predicted it applies", name);
    cr_expect_str_eq(predicted.code, res.txs[0].code, "%s: the dry run's code", name);
    cr_expect_str_eq(predicted.detail, res.txs[0].detail, "%s: the dry run's sentence", name);
    kd_msg_result_fini(&res);
    et_txs_fini(&t);

    et_episode_bytes(env.engine, 1, &after);
    cr_expect_eq(after.len, before.len);
    cr_expect(after.len == before.len && memcmp(after.data, before.data, after.len) == 0,
              "%s: the state and the counter must not change", name);
    kd_buf_fini(&before);
    kd_buf_fini(&after);
}

Test(stale, refused_by_the_rule_that_refuses_it_now)
{
    play(1); /* X played; O to move at move 1 */
    kd_buf p;
    kd_buf_init(&p);
    /* alice's second X, signed before her first applied. */
    et_move_payload(&p, 1, 1, 0, 0, "alice", 0);
    expect_refused("wrong-turn", &p, "wrong_turn", "(signed for move 0, the episode is at move 1)");
    /* bob's O on the cell X took meanwhile (the reveal-in-flight case). */
    p.len = 0;
    et_move_payload(&p, 1, 0, 0, 1, "bob", 0);
    expect_refused("occupied", &p, "cell_occupied", "(signed for move 0, the episode is at move 1)");
    kd_buf_fini(&p);
}

Test(stale, taken_by_the_rules_it_is_stale_command)
{
    play(1);
    kd_buf p;
    kd_buf_init(&p);
    /* bob's O on a free cell, signed for move 0: the rules would take it
     * now, only its counter is old. Not applied: the state is untouched. */
    et_move_payload(&p, 1, 2, 1, 1, "bob", 0);
    expect_refused("stale", &p, "stale_command",
                   "the command was signed for move 0 of episode 1, now at move 1 (another command came first): "
                   "sign it again for move 1");
    /* Signed again for move 1, it applies. */
    p.len = 0;
    et_move_payload(&p, 1, 2, 1, 1, "bob", 1);
    et_txs t;
    et_txs_init(&t);
    et_add_raw(&t, p.data, p.len);
    kd_msg_result res;
    et_accept(env.engine, "again", &t, &res);
    cr_expect(res.txs[0].applied, "%s", res.txs[0].detail);
    kd_msg_result_fini(&res);
    et_txs_fini(&t);
    kd_buf_fini(&p);
}

Test(stale, the_window_is_four_moves)
{
    play(5); /* O to move at move 5; (0,1) is free */
    kd_buf p;
    kd_buf_init(&p);
    et_move_payload(&p, 1, 0, 1, 1, "bob", 1); /* 4 moves back: recognised */
    expect_refused("in-window", &p, "stale_command", "signed for move 1 of episode 1, now at move 5");
    p.len = 0;
    et_move_payload(&p, 1, 0, 1, 1, "bob", 0); /* 5 moves back: a bad signature */
    expect_refused("beyond", &p, "bad_signature", "does not verify for episode 1 at move counter 5");
    p.len = 0;
    et_move_payload(&p, 1, 0, 1, 1, "bob", 6); /* the future is no stale signature */
    expect_refused("future", &p, "bad_signature", "at move counter 5");
    p.len = 0;
    et_move_payload(&p, 1, 0, 1, 1, "mallory", 3); /* no one's move, signed by a stranger */
    expect_refused("stranger", &p, "unauthorised", "(signed for move 3, the episode is at move 5)");
    kd_buf_fini(&p);
}

static void expect_replay(int trust, int canonical)
{
    et_env copy;
    et_env_open_relaxed(&copy, 0, 0);
    kd_engine_trust_replayed_signatures(copy.engine, trust);
    kd_replay_report rep;
    ET_ASSERT_OK(kd_replay_log(env.engine, copy.engine, canonical, &rep));
    cr_expect(kd_replay_ok(&rep), "replay (trust %d, canonical %d): %s %s", trust, canonical, rep.first_bad_what,
              rep.episode_what);
    et_env_fini(&copy);
}

Test(stale, replay_and_verify_reproduce_a_log_of_stale_commands)
{
    play(2); /* X (0,0), O (1,1): X to move at move 2 */
    et_txs t;
    et_txs_init(&t);
    /* One block: X legal at 2; then, signed for 2 as well, O's move
     * (stale_command: O to move now) and X's (wrong_turn); O at 3. */
    et_add_move(&t, 1, 2, 2, 0, "alice", 2);
    et_add_move(&t, 1, 2, 1, 1, "bob", 2);
    et_add_move(&t, 1, 1, 0, 0, "alice", 2);
    et_add_move(&t, 1, 2, 1, 1, "bob", 3);
    kd_msg_result res;
    et_accept(env.engine, "mixed", &t, &res);
    cr_assert_eq(res.tx_count, 4);
    cr_expect(res.txs[0].applied);
    ET_EXPECT_REJECTED(res.txs[1], "stale_command");
    ET_EXPECT_REJECTED(res.txs[2], "wrong_turn");
    cr_expect(res.txs[3].applied, "%s", res.txs[3].detail);
    kd_msg_result_fini(&res);
    /* A block reverted after a stale refusal, and played again. */
    et_txs_clear(&t);
    et_add_move(&t, 1, 0, 1, 0, "alice", 4);
    et_add_move(&t, 1, 0, 2, 1, "bob", 4); /* stale, and the rules take it */
    et_accept_ok(env.engine, "r1", &t);
    et_revert_ok(env.engine, "r1");
    et_accept_ok(env.engine, "r1-again", &t);

    for (int trust = 0; trust <= 1; trust++)
        for (int canonical = 0; canonical <= 1; canonical++)
            expect_replay(trust, canonical);
    et_txs_fini(&t);
}
