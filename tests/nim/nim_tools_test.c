/*
 * nim_tools_test.c — Nim (tests/nim, kd_nim_type), added to a table by the
 * test itself, through the generic tools: perft against an
 * independent count, the simulator against its oracle (Nim alone and mixed
 * with the built-in types), and the generic block-script forms fed to a
 * real engine. Nothing generic changes for it.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/engine.h"
#include "nim/nim.h"
#include "nim/nim_support.h"
#include "tools/script/blockscript.h"
#include "tools/script/feeder.h"
#include "tools/sim/perft.h"
#include "tools/sim/sim.h"

Test(nim, perft_counts_match_an_independent_count)
{
    json_t *params = json_pack("{s:[i,i,i]}", "heaps", 2, 3, 4);
    kd_nim_state state;
    kd_perft_signers signers;
    char why[256] = "";
    cr_assert_eq(kd_perft_start(&kd_nim_type, NULL, params, 2, &state, &signers, why, sizeof why), KD_OK, "%s", why);
    for (unsigned depth = 0; depth <= 10; depth++) {
        uint64_t nodes = 0;
        uint8_t heaps[KD_NIM_MAX_HEAPS] = {2, 3, 4};
        cr_assert_eq(kd_perft_count(&kd_nim_type, &signers, &state, depth, NULL, NULL, &nodes, why, sizeof why), KD_OK,
                     "%s", why);
        cr_expect_eq(nodes, nt_tuple_count(heaps, 3, depth), "depth %u: %llu", depth, (unsigned long long)nodes);
    }
    json_decref(params);
}

static const char *tmp_base(void)
{
    const char *t = getenv("KD_TEST_TMP");
    return t && *t ? t : "/tmp";
}

static void simulate(kd_type_table *types, const char *only)
{
    kd_sim_options o;
    kd_sim_options_default(&o);
    o.types = types;
    o.type = only;
    o.steps = 600;
    o.session_steps = 300;
    o.seed = 11;
    o.work_dir = tmp_base();
    FILE *out = tmpfile();
    cr_assert_not_null(out);
    kd_sim_summary sum;
    cr_assert_eq(kd_sim_run(&o, &sum, out), KD_OK);
    cr_expect_eq(sum.mismatches, 0, "the engine and the oracle agree");
    cr_expect_gt(sum.moves_applied, 50, "games were played: %llu moves", (unsigned long long)sum.moves_applied);
    cr_expect_gt(sum.moves_rolled_back, 0, "reorgs rolled moves back");
    fclose(out);
}

Test(nim, the_simulator_checks_it_against_the_oracle, .timeout = 240)
{
    kd_type_table only_nim, mixed;
    kd_type_table_init_empty(&only_nim);
    cr_assert_eq(kd_type_table_add(&only_nim, &kd_nim_type), KD_OK);
    simulate(&only_nim, NULL);
    kd_type_table_init(&mixed);
    cr_assert_eq(kd_type_table_add(&mixed, &kd_nim_type), KD_OK);
    simulate(&mixed, NULL);
    simulate(&mixed, "nim");
}

Test(nim, generic_block_script_forms_feed_a_real_engine)
{
    kd_type_table types;
    kd_type_table_init(&types);
    cr_assert_eq(kd_type_table_add(&types, &kd_nim_type), KD_OK);
    const char *text =
        "{\"accept\": {\"hash\": \"n1\", \"txs\": [{\"new_episode\": {\"id\": 3, \"type\": \"nim\","
        " \"participants\": [\"test:alice\", \"test:bob\"], \"params\": {\"heaps\": [4]}}}]}}\n"
        "{\"accept\": {\"hash\": \"n2\", \"txs\": ["
        "{\"command\": {\"episode\": 3, \"signer\": \"test:alice\", \"heap\": 1, \"take\": 2}},"
        "{\"command\": {\"episode\": 3, \"signer\": \"test:alice\", \"heap\": 1, \"take\": 1}},"
        "{\"command\": {\"episode\": 3, \"signer\": \"test:bob\", \"command\": {\"heap\": 1, \"take\": 3}}},"
        "{\"command\": {\"episode\": 3, \"signer\": \"test:bob\", \"heap\": 1, \"take\": 2}}]}}\n";
    kd_script script;
    kd_script_init_types(&script, &types);
    char why[256] = "";
    cr_assert_eq(kd_script_parse(text, strlen(text), NULL, &script, why, sizeof why), KD_OK, "%s", why);
    cr_assert_eq(script.count, 2);

    char dir[4096];
    snprintf(dir, sizeof dir, "%s/nim-XXXXXX", tmp_base());
    cr_assert_not_null(mkdtemp(dir));
    kd_registry reg;
    kd_registry_init(&reg);
    cr_assert_eq(kd_type_table_registry(&types, &reg), KD_OK);
    kd_engine_options eo = {.data_dir = dir, .registry = &reg};
    kd_engine *engine = NULL;
    cr_assert_eq(kd_engine_open(&eo, &engine, why, sizeof why), KD_OK, "%s", why);
    kd_feeder *feeder = NULL;
    cr_assert_eq(kd_feeder_alloc_local(engine, &feeder), KD_OK);
    /* alice takes 2 of 4; alice again (not her turn); bob takes 3 (only
     * 2 are left); bob takes the last 2 and wins */
    static const int applied[2][4] = {{1}, {1, 0, 0, 1}};
    static const char *const codes[2][4] = {{NULL}, {NULL, "not_your_turn", "take_too_many", NULL}};
    kd_buf msg;
    kd_buf_init(&msg);
    for (size_t i = 0; i < script.count; i++) {
        msg.len = 0;
        cr_assert_eq(kd_feeder_encode(feeder, &script.ops[i], &msg), KD_OK);
        kd_msg_result res;
        cr_assert_eq(kd_engine_ingest(engine, msg.data, msg.len, &res), KD_OK);
        cr_assert_eq(res.status, KD_MSG_APPLIED, "op %zu", i);
        for (size_t t = 0; t < res.tx_count; t++) {
            cr_expect_eq(res.txs[t].applied, applied[i][t], "op %zu tx %zu: %s", i, t, res.txs[t].detail);
            if (codes[i][t]) {
                cr_expect_eq(res.txs[t].err, KD_ERR_RULE, "op %zu tx %zu (%s): %s", i, t, codes[i][t],
                             res.txs[t].detail);
                cr_expect_str_eq(res.txs[t].code, codes[i][t], "op %zu tx %zu", i, t);
            }
        }
        kd_msg_result_fini(&res);
    }
    kd_episode_snapshot snap;
    cr_assert_eq(kd_engine_episode_read(engine, 3, &snap), KD_OK);
    kd_game_status st = kd_nim_type.status(snap.state);
    cr_expect_eq(st.phase, KD_PHASE_WON);
    cr_expect_eq(st.winner, 1, "bob took the last token");
    kd_episode_snapshot_fini(&snap);
    kd_buf_fini(&msg);
    kd_feeder_free(feeder);
    kd_engine_close(engine);
    kd_script_fini(&script);
}
