/*
 * feeder_test.c — the feeder (tools/feeder.c) signs each move for the
 * counter its episode will have when the move is applied: after earlier
 * moves of the same block that the engine rejects (wrong turn, occupied
 * cell) as well as after ones it applies, for a local engine (dry run
 * alongside the encoding) and through a predictor (the path of
 * `kdapp feed --connect`, here answered by a dry run of the block prefix
 * the feeder hands over). A script's explicit counter still wins.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "engine/support.h"
#include "tools/script/blockscript.h"
#include "tools/script/feeder.h"

/* Block 2: X's move is preceded by O's (wrong turn). Block 3: O's first
 * move is on an occupied cell, its second is legal, then X plays. Block 4:
 * a stale explicit counter, which must be kept (and rejected). */
static const char script_text[] =
    "{\"accept\": {\"hash\": \"b1\", \"txs\": [{\"new_episode\": {\"id\": 7, \"type\": \"tictactoe\", "
    "\"participants\": [\"test:alice\", \"test:bob\"]}}]}}\n"
    "{\"accept\": {\"hash\": \"b2\", \"txs\": ["
    "{\"move\": {\"episode\": 7, \"row\": 0, \"col\": 0, \"player\": \"O\", \"signer\": \"test:bob\"}}, "
    "{\"move\": {\"episode\": 7, \"row\": 0, \"col\": 0, \"player\": \"X\", \"signer\": \"test:alice\"}}]}}\n"
    "{\"accept\": {\"hash\": \"b3\", \"txs\": ["
    "{\"move\": {\"episode\": 7, \"row\": 0, \"col\": 0, \"player\": \"O\", \"signer\": \"test:bob\"}}, "
    "{\"move\": {\"episode\": 7, \"row\": 1, \"col\": 1, \"player\": \"O\", \"signer\": \"test:bob\"}}, "
    "{\"move\": {\"episode\": 7, \"row\": 2, \"col\": 2, \"player\": \"X\", \"signer\": \"test:alice\"}}]}}\n"
    "{\"accept\": {\"hash\": \"b4\", \"txs\": ["
    "{\"move\": {\"episode\": 7, \"row\": 2, \"col\": 0, \"player\": \"O\", \"signer\": \"test:bob\", "
    "\"counter\": 1}}]}}\n";

/* Expected outcome of each tx, per op: 1 applied, 0 rejected under the
 * short code `why`. */
typedef struct {
    int applied;
    const char *why;
} outcome;
static const outcome want[4][3] = {
    {{1, ""}},
    {{0, "wrong_turn"}, {1, ""}},
    {{0, "cell_occupied"}, {1, ""}, {1, ""}},
    {{0, "stale_command"}}, /* signed for move 1, at move 3: O's turn, so the rules alone would take it */
};

/* The predictor of a remote feed, answered by a dry run of the prefix on
 * a local engine (as the daemon's ingest server does). */
static kd_err predict_by_dry_run(void *ctx, const kd_buf *earlier, uint32_t id, uint64_t *counter)
{
    kd_dryrun *run;
    kd_msg_result res;
    int exists;
    kd_err err = kd_dryrun_alloc(ctx, &run);
    if (!err && !(err = kd_dryrun_block(run, earlier->data, earlier->len, &res)))
        err = kd_dryrun_episode(run, id, &exists, counter);
    kd_msg_result_fini(&res);
    kd_dryrun_free(run);
    return err;
}

/* Feeds the script through `feeder` into env's engine, checking outcomes. */
static void feed_and_check(et_env *env, kd_feeder *feeder, uint8_t digest[KD_HASH_LEN])
{
    kd_script script;
    kd_script_init(&script);
    char why[256] = "";
    ET_ASSERT_OK(kd_script_parse(script_text, strlen(script_text), NULL, &script, why, sizeof why));
    cr_assert_eq(script.count, 4);
    kd_buf msg;
    kd_buf_init(&msg);
    for (size_t i = 0; i < script.count; i++) {
        msg.len = 0;
        ET_ASSERT_OK(kd_feeder_encode(feeder, &script.ops[i], &msg));
        kd_msg_result res;
        et_ingest(env->engine, &msg, &res);
        cr_assert_eq(res.status, KD_MSG_APPLIED, "op %zu", i);
        for (size_t t = 0; t < res.tx_count; t++) {
            cr_expect_eq(res.txs[t].applied, want[i][t].applied, "op %zu tx %zu: %s", i, t, res.txs[t].detail);
            cr_expect_str_eq(res.txs[t].code, want[i][t].why, "op %zu tx %zu: %s", i, t, res.txs[t].detail);
        }
        kd_msg_result_fini(&res);
    }
    kd_tip tip;
    et_tip(env->engine, &tip);
    memcpy(digest, tip.digest, KD_HASH_LEN);
    kd_ttt_state st;
    uint64_t counter = 0;
    ET_ASSERT_OK(et_ttt_read(env->engine, 7, &st, &counter));
    cr_expect_eq(counter, 3, "three moves applied, counter %llu", (unsigned long long)counter);
    kd_buf_fini(&msg);
    kd_script_fini(&script);
}

Test(feeder, signs_after_rejected_moves_local_and_remote)
{
    et_env local, remote;
    et_env_open(&local, 0, 0);
    et_env_open(&remote, 0, 0);
    kd_feeder *f = NULL;
    uint8_t d1[KD_HASH_LEN], d2[KD_HASH_LEN];

    ET_ASSERT_OK(kd_feeder_alloc_local(local.engine, &f));
    feed_and_check(&local, f, d1);
    kd_feeder_free(f);

    ET_ASSERT_OK(kd_feeder_alloc_remote(predict_by_dry_run, remote.engine, kd_engine_chain(remote.engine), &f));
    feed_and_check(&remote, f, d2);
    kd_feeder_free(f);

    et_expect_hash_eq(d1, d2, "local and remote feeds");
    et_env_fini(&local);
    et_env_fini(&remote);
}
