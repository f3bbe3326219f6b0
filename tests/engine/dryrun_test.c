/*
 * dryrun_test.c — the engine's dry run (engine/dryrun.c): a move rejected
 * earlier in a block does not count towards the next move's counter; a
 * dry run changes nothing; and, over seeded random blocks of every kind
 * of transaction (creations good and bad, legal and illegal moves, stale
 * and forged signatures, unsigned moves, garbage), its prediction equals
 * what the engine then does, tx by tx and counter by counter.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "engine/support.h"

static et_env env;

static void setup(void) { et_env_open_relaxed(&env, 0, 0); }
static void teardown(void) { et_env_fini(&env); }

TestSuite(dryrun, .init = setup, .fini = teardown);

static uint64_t stored_counter(uint32_t id)
{
    kd_ttt_state st;
    uint64_t counter = 0;
    ET_ASSERT_OK(et_ttt_read(env.engine, id, &st, &counter));
    return counter;
}

static void expect_counter(kd_dryrun *run, uint32_t id, int want_exists, uint64_t want)
{
    int exists = -1;
    uint64_t counter = 99;
    ET_ASSERT_OK(kd_dryrun_episode(run, id, &exists, &counter));
    cr_expect_eq(exists, want_exists, "episode %u: exists %d, want %d", id, exists, want_exists);
    cr_expect_eq(counter, want, "episode %u: counter %llu, want %llu", id, (unsigned long long)counter,
                 (unsigned long long)want);
}

/* The case of the bug report: the block's first move on episode 7 is
 * rejected (O moves on X's turn), the second is legal. The dry run says
 * the second is to be signed for counter 0, and the engine applies it. */
Test(dryrun, a_rejected_move_does_not_count)
{
    et_txs txs;
    et_txs_init(&txs);
    et_add_create(&txs, 7, "alice", "bob", -1);
    et_accept_ok(env.engine, "b1", &txs);
    et_txs_clear(&txs);
    uint8_t before[KD_HASH_LEN], after[KD_HASH_LEN];
    et_fingerprint(env.engine, before);

    kd_dryrun *run;
    ET_ASSERT_OK(kd_dryrun_alloc(env.engine, &run));
    uint8_t block[KD_HASH_LEN], tx_id[KD_HASH_LEN] = {1};
    et_hash("b2", block);
    kd_block_meta where = {.block_hash = block, .daa = 2, .time_ms = 200, .tx_id = tx_id};
    kd_tx_result r;
    kd_buf p;
    kd_buf_init(&p);
    expect_counter(run, 7, 1, 0);
    et_move_payload(&p, 7, 0, 0, 1, "bob", 0); /* O on X's turn */
    ET_ASSERT_OK(kd_dryrun_tx(run, &where, p.data, p.len, &r));
    cr_expect_eq(r.applied, 0);
    ET_EXPECT_REJECTED(r, "wrong_turn");
    ET_EXPECT_ERR(r.err, KD_ERR_RULE);
    expect_counter(run, 7, 1, 0);
    p.len = 0;
    et_move_payload(&p, 7, 0, 0, 0, "alice", 0); /* X, legal, counter 0 */
    ET_ASSERT_OK(kd_dryrun_tx(run, &where, p.data, p.len, &r));
    cr_expect_eq(r.applied, 1, "the legal move should apply: %s", r.detail);
    expect_counter(run, 7, 1, 1);
    kd_dryrun_free(run);
    kd_buf_fini(&p);

    et_fingerprint(env.engine, after);
    et_expect_hash_eq(before, after, "a dry run must change nothing");

    et_add_move(&txs, 7, 0, 0, 1, "bob", 0);
    et_add_move(&txs, 7, 0, 0, 0, "alice", 0);
    kd_msg_result res;
    et_accept(env.engine, "b2", &txs, &res);
    cr_assert_eq(res.tx_count, 2);
    cr_expect_eq(res.txs[0].applied, 0);
    cr_expect_eq(res.txs[1].applied, 1, "the engine should apply it too: %s", res.txs[1].detail);
    cr_expect_eq(stored_counter(7), 1);
    kd_msg_result_fini(&res);
    et_txs_fini(&txs);
}

Test(dryrun, refuses_what_is_not_an_accepted_block)
{
    kd_dryrun *run;
    ET_ASSERT_OK(kd_dryrun_alloc(env.engine, &run));
    kd_buf msg;
    kd_buf_init(&msg);
    et_revert_msg("b1", &msg);
    kd_msg_result res;
    ET_EXPECT_ERR(kd_dryrun_block(run, msg.data, msg.len, &res), KD_ERR_DECODE);
    cr_expect_neq(res.detail[0], '\0');
    kd_msg_result_fini(&res);
    ET_EXPECT_ERR(kd_dryrun_block(run, (const uint8_t *)"\xff\xff", 2, &res), KD_ERR_DECODE);
    kd_msg_result_fini(&res);
    kd_buf_fini(&msg);
    kd_dryrun_free(run);
}

/* ------------------------------------------------------ random blocks */

#define EPISODES 4 /* ids 1..4; 5 never exists */
static const char *const xs[] = {"x1", "x2", "x3", "x4"}, *const os[] = {"o1", "o2", "o3", "o4"};

/* One random tx for the block being built; moves are signed for the
 * counter `run` (the dry run of the block so far) predicts, or for a
 * stale or future one, by the right or the wrong key. */
static void random_tx(uint64_t *rng, kd_dryrun *run, et_txs *txs)
{
    uint32_t kind = et_below(rng, 20), id = 1 + et_below(rng, EPISODES + 1);
    int exists;
    uint64_t counter;
    ET_ASSERT_OK(kd_dryrun_episode(run, id, &exists, &counter));
    if (kind < 3) { /* a creation: new, or of an existing id, or id 0 */
        uint32_t cid = kind == 2 && et_below(rng, 2) ? 0 : id;
        et_add_create(txs, cid, xs[(id - 1) % EPISODES], os[(id - 1) % EPISODES], (int)et_below(rng, 6) - 1);
    } else if (kind < 15) { /* a signed move, mostly for the right counter */
        uint8_t player = (uint8_t)et_below(rng, 2);
        const char *signer = et_below(rng, 8) ? (player ? os : xs)[(id - 1) % EPISODES] : "mallory";
        uint64_t c = et_below(rng, 6) ? counter : counter + 1 - 2 * (counter > 0 && et_below(rng, 2));
        et_add_move(txs, id, (uint8_t)et_below(rng, 3), (uint8_t)et_below(rng, 3), player, signer, c);
    } else if (kind < 17) { /* unsigned */
        et_add_move(txs, id, (uint8_t)et_below(rng, 3), (uint8_t)et_below(rng, 3), 0, NULL, 0);
    } else if (kind < 18) { /* out of bounds */
        et_add_move(txs, id, 3, 0, 0, xs[(id - 1) % EPISODES], counter);
    } else { /* garbage */
        et_add_raw(txs, "\xff\x01\x02", 3);
    }
}

/* The outcome of the last tx of `txs` in `run`. */
static void run_last(kd_dryrun *run, const char *name, const et_txs *txs, kd_tx_result *r)
{
    uint8_t block[KD_HASH_LEN], tx_id[KD_HASH_LEN] = {0};
    et_hash(name, block);
    kd_block_meta where = {.block_hash = block, .daa = 1, .time_ms = 100, .tx_id = tx_id};
    ET_ASSERT_OK(kd_dryrun_tx(run, &where, txs->p[txs->n - 1].data, txs->p[txs->n - 1].len, r));
}

Test(dryrun, predicts_what_the_engine_does, .timeout = 100)
{
    uint64_t rng = et_seed("dryrun/predicts_what_the_engine_does", 20251123);
    et_txs txs;
    et_txs_init(&txs);
    kd_buf msg;
    kd_buf_init(&msg);
    size_t applied = 0, rejected = 0, after_rejected = 0;
    for (int b = 0; b < 300; b++) {
        char name[32];
        snprintf(name, sizeof name, "r%d", b);
        et_txs_clear(&txs);
        kd_dryrun *building;
        ET_ASSERT_OK(kd_dryrun_alloc(env.engine, &building));
        size_t n = 1 + et_below(&rng, 8);
        kd_tx_result predicted[8];
        for (size_t i = 0; i < n; i++) {
            random_tx(&rng, building, &txs);
            run_last(building, name, &txs, &predicted[i]);
        }
        /* The whole block again in one call, as the ingest server runs it. */
        msg.len = 0;
        et_accept_msg(name, &txs, &msg);
        kd_dryrun *whole;
        kd_msg_result dry, res;
        ET_ASSERT_OK(kd_dryrun_alloc(env.engine, &whole));
        ET_ASSERT_OK(kd_dryrun_block(whole, msg.data, msg.len, &dry));
        et_ingest(env.engine, &msg, &res);
        cr_assert_eq(res.status, KD_MSG_APPLIED);
        cr_assert_eq(res.tx_count, n);
        cr_assert_eq(dry.tx_count, n);
        for (size_t i = 0; i < n; i++) {
            const kd_tx_result *got = &res.txs[i];
            cr_expect_eq(predicted[i].applied, got->applied, "block %d tx %zu: predicted %d (%s), engine %d (%s)", b, i,
                         predicted[i].applied, predicted[i].detail, got->applied, got->detail);
            cr_expect_eq(predicted[i].err, got->err, "block %d tx %zu: predicted %s, engine %s", b, i,
                         kd_err_code(predicted[i].err), kd_err_code(got->err));
            cr_expect_str_eq(predicted[i].code, got->code, "block %d tx %zu: predicted %s, engine %s", b, i,
                             predicted[i].code, got->code);
            cr_expect_str_eq(predicted[i].detail, got->detail, "block %d tx %zu", b, i);
            cr_expect_eq(dry.txs[i].applied, got->applied, "block %d tx %zu (whole-block dry run)", b, i);
            cr_expect_eq(dry.txs[i].err, got->err, "block %d tx %zu (whole-block dry run)", b, i);
            cr_expect_str_eq(dry.txs[i].code, got->code, "block %d tx %zu (whole-block dry run)", b, i);
            applied += (size_t)got->applied;
            rejected += (size_t)!got->applied;
            for (size_t j = 0; j < i && got->applied; j++) /* the case of the bug report */
                if (!res.txs[j].applied && res.txs[j].episode_id == got->episode_id && got->episode_id) {
                    after_rejected++;
                    break;
                }
        }
        for (uint32_t id = 1; id <= EPISODES + 1; id++) {
            kd_ttt_state st;
            uint64_t stored = 0;
            kd_err err = et_ttt_read(env.engine, id, &st, &stored);
            expect_counter(building, id, err == KD_OK, stored);
            expect_counter(whole, id, err == KD_OK, stored);
        }
        kd_msg_result_fini(&dry);
        kd_msg_result_fini(&res);
        kd_dryrun_free(building);
        kd_dryrun_free(whole);
        if (b > 0 && et_below(&rng, 10) == 0) { /* now and then the chain reverts its tip */
            snprintf(name, sizeof name, "r%d", b);
            et_revert_ok(env.engine, name);
        }
    }
    cr_expect_gt(applied, 100, "too few txs applied (%zu) to mean much", applied);
    cr_expect_gt(rejected, 100, "too few txs rejected (%zu) to mean much", rejected);
    cr_expect_gt(after_rejected, 10, "too few moves applied after a rejected one on their episode (%zu)",
                 after_rejected);
    kd_buf_fini(&msg);
    et_txs_fini(&txs);
}
