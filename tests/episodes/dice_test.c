/*
 * dice_test.c — "dice" (episodes/dice/dice.h) and the house (episodes/house.h):
 * rolls revealed and claimed, every refusal with its rule code, byte-exact
 * rollback of every command (roll, reveal, claim) through the encodings,
 * the deadline floor in the rules (issue 24, B8), the type-table entry
 * (JSON, views, legal moves, secret hooks), and 10^5 simulated rolls of
 * each die against the exact odds (chi-square, fixed seed, overridable by
 * KD_TEST_SEED).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "chance_support.h"
#include "engine/crypto.h"
#include "episodes/dice/dice.h"
#include "type_support.h"

#define ENT_HEX "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
#define ENT "\"entropy\":\"" ENT_HEX "\""
#define OTHER_HEX "ff112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"

Test(dice, roll_reveal_gives_the_draw_of_the_vrf)
{
    chance_game g;
    chance_new(&g, &kd_dice_type, "{\"max_rolls\": 3}");
    kd_dice_state *s = g.state;
    kd_reject rej = {{0}, {0}};
    cr_assert_eq(chance_exec(&g, "{\"roll\":\"3d6+2\"," ENT "}", &g.player, 100, &rej), KD_OK, "%s", rej.detail);
    cr_expect_eq(kd_dice_type.status(s).to_move, KD_DICE_HOUSE);
    kd_legal_moves lm;
    kd_legal_moves_init(&lm);
    cr_assert_eq(kd_dice_type.legal_moves(s, KD_DICE_HOUSE, &lm), KD_OK);
    cr_expect_eq(lm.count, 0, "the house owes a duty: no legal move");
    cr_assert_eq(kd_dice_type.legal_moves(s, KD_DICE_PLAYER, &lm), KD_OK);
    cr_expect_eq(lm.count, 0);
    uint64_t rng = 1;
    kd_buf b;
    kd_buf_init(&b);
    cr_expect_eq(kd_dice_type.random_command(s, KD_DICE_HOUSE, 1, &rng, &b), KD_ERR_NO_MOVE);
    cr_assert_eq(chance_reveal(&g, 130, &rej), KD_OK, "%s", rej.detail);

    /* recompute: the VRF output of draw 1 for the roll's bytes, three d6 */
    uint8_t proof[KD_VRF_PROOF_LEN], draw[32], dice[3], ask[32];
    chance_ask_digest(&g, "{\"roll\":\"3d6+2\"," ENT "}", ask, NULL);
    cr_assert_eq(kd_fair_prove(g.seed, KD_FAIR_DRAW_V3, CHANCE_EPISODE, 1, ask, proof), KD_OK);
    cr_assert_eq(kd_fair_verify(&s->house.key, KD_FAIR_DRAW_V3, CHANCE_EPISODE, 1, ask, proof, draw), KD_OK);
    kd_fair_stream stream;
    kd_dice_outcome(kd_fair_stream_init(&stream, draw), 3, 6, dice);
    cr_expect_eq(s->n_recent, 1);
    cr_expect_arr_eq(s->recent[0].dice, dice, 3);
    cr_expect_eq(s->recent[0].total, dice[0] + dice[1] + dice[2] + 2);
    cr_expect_eq(kd_dice_type.status(s).to_move, KD_DICE_PLAYER);
    cr_assert_eq(kd_dice_type.legal_moves(s, KD_DICE_PLAYER, &lm), KD_OK);
    cr_expect_gt(lm.count, 5);

    /* the view */
    kd_buf view;
    kd_buf_init(&view);
    type_test_view(&kd_dice_type, s, KD_SEAT_PUBLIC, &view);
    json_t *vj = kd_dice_type.view_json(view.data, view.len);
    cr_assert(vj);
    json_t *last = json_object_get(vj, "last_roll");
    cr_expect_str_eq(json_string_value(json_object_get(last, "roll")), "3d6+2");
    cr_expect_eq(json_integer_value(json_object_get(last, "total")), s->recent[0].total);
    cr_expect_eq(json_array_size(json_object_get(last, "dice")), 3);
    kd_buf text;
    kd_buf_init(&text);
    cr_assert_eq(kd_dice_type.render_text(view.data, view.len, 0, &text), KD_OK);
    cr_assert_eq(kd_dice_type.prompt(view.data, view.len, CHANCE_EPISODE, KD_DICE_PLAYER, &text), KD_OK);
    cr_assert_eq(kd_buf_append(&text, "", 1), KD_OK);
    cr_expect(strstr((char *)text.data, "{\"roll\": \"2d6+1\", \"entropy\""), "the prompt gives the command JSON");

    /* two more rolls end the episode */
    cr_assert_eq(chance_exec(&g, "{\"roll\":\"d100\"," ENT "}", &g.player, 200, &rej), KD_OK, "%s", rej.detail);
    cr_assert_eq(chance_reveal(&g, 201, &rej), KD_OK);
    cr_assert_eq(chance_exec(&g, "{\"roll\":\"100d4-1000\"," ENT "}", &g.player, 300, &rej), KD_OK, "%s", rej.detail);
    cr_assert_eq(chance_reveal(&g, 301, &rej), KD_OK);
    cr_expect_eq(kd_dice_type.status(s).phase, KD_PHASE_DRAW, "finished after max_rolls");
    chance_expect_rule(&g, chance_exec(&g, "{\"roll\":\"1d6\"," ENT "}", &g.player, 400, &rej), &rej, "game_over");
    json_decref(vj);
    kd_buf_fini(&view);
    kd_buf_fini(&text);
    kd_buf_fini(&b);
    kd_legal_moves_fini(&lm);
    chance_free(&g);
}

Test(dice, every_refusal_has_its_rule_code)
{
    chance_game g;
    chance_new(&g, &kd_dice_type, "{\"reveal_timeout\": 100}");
    kd_dice_state *s = g.state;
    kd_reject rej = {{0}, {0}};
    chance_expect_rule(&g, chance_exec(&g, "{\"roll\":\"1d7\"," ENT "}", &g.player, 10, &rej), &rej, "bad_die");
    chance_expect_rule(&g, chance_exec(&g, "{\"roll\":\"0d6\"," ENT "}", &g.player, 10, &rej), &rej, "dice_count");
    chance_expect_rule(&g, chance_exec(&g, "{\"roll\":\"101d6\"," ENT "}", &g.player, 10, &rej), &rej, "dice_count");
    chance_expect_rule(&g, chance_exec(&g, "{\"roll\":\"1d6+1001\"," ENT "}", &g.player, 10, &rej), &rej,
                       "modifier_out_of_range");
    chance_expect_rule(&g, chance_exec(&g, "{\"roll\":\"1d6\"," ENT "}", &g.house, 10, &rej), &rej, "not_the_player");
    chance_expect_rule(&g, chance_exec(&g, "{\"roll\":\"1d6\"," ENT "}", &g.stranger, 10, &rej), &rej, "unauthorised");
    chance_expect_rule(&g, chance_exec(&g, "{\"roll\":\"1d6\"," ENT "}", NULL, 10, &rej), &rej, "unauthorised");
    chance_expect_rule(&g, chance_exec(&g, "{\"claim\":true}", &g.player, 10, &rej), &rej, "no_draw_pending");
    char text[256];
    chance_reveal_text(g.seed, 1, ENT_HEX, text, sizeof text);
    chance_expect_rule(&g, chance_exec(&g, text, &g.house, 10, &rej), &rej, "no_draw_pending");

    cr_assert_eq(chance_exec(&g, "{\"roll\":\"2d20\"," ENT "}", &g.player, 100, &rej), KD_OK);
    char ask[65];
    uint8_t ask_bytes[32];
    chance_ask_digest(&g, "{\"roll\":\"2d20\"," ENT "}", ask_bytes, ask);
    chance_expect_rule(&g, chance_exec(&g, "{\"roll\":\"1d6\"," ENT "}", &g.player, 101, &rej), &rej, "draw_pending");
    chance_expect_rule(&g, chance_exec(&g, text, &g.player, 101, &rej), &rej, "not_the_house");
    chance_expect_rule(&g, chance_exec(&g, "{\"claim\":true}", &g.house, 101, &rej), &rej, "not_the_player");
    /* a cheating house: the proof of draw 2, of another ask, of the entropy alone (the input before issue
     * 37), of another house's key */
    chance_reveal_text(g.seed, 2, ask, text, sizeof text);
    chance_expect_rule(&g, chance_exec(&g, text, &g.house, 102, &rej), &rej, "bad_proof");
    chance_reveal_text(g.seed, 1, OTHER_HEX, text, sizeof text);
    chance_expect_rule(&g, chance_exec(&g, text, &g.house, 102, &rej), &rej, "bad_proof");
    chance_reveal_text(g.seed, 1, ENT_HEX, text, sizeof text);
    chance_expect_rule(&g, chance_exec(&g, text, &g.house, 102, &rej), &rej, "bad_proof");
    uint8_t other[KD_SECRET_SEED_LEN];
    kd_sha256("another house", 13, other);
    chance_reveal_text(other, 1, ask, text, sizeof text);
    chance_expect_rule(&g, chance_exec(&g, text, &g.house, 102, &rej), &rej, "bad_proof");
    chance_reveal_text(g.seed, 1, ask, text, sizeof text);
    cr_expect(strstr(text, "reveal"), "the honest proof is made from the same helper");
    /* the deadline: asked at 100, timeout 100 */
    chance_expect_rule(&g, chance_exec(&g, "{\"claim\":true}", &g.player, 199, &rej), &rej, "too_early");
    cr_assert_eq(chance_exec(&g, "{\"claim\":true}", &g.player, 200, &rej), KD_OK, "%s", rej.detail);
    kd_game_status st = kd_dice_type.status(s);
    cr_expect_eq(st.phase, KD_PHASE_WON);
    cr_expect_eq(st.winner, KD_DICE_PLAYER, "a house that does not reveal loses");
    cr_expect(s->recent[0].claimed);
    chance_expect_rule(&g, chance_exec(&g, "{\"roll\":\"1d6\"," ENT "}", &g.player, 201, &rej), &rej, "game_over");
    kd_buf cmd;
    kd_buf_init(&cmd);
    cr_expect_eq(kd_dice_type.secret_duty(s, KD_DICE_HOUSE, g.seed, &cmd), KD_ERR_NO_MOVE);
    kd_buf_fini(&cmd);
    chance_free(&g);
}

Test(dice, malformed_json_names_the_part)
{
    static const char *const bad[] = {"{\"roll\":\"2x6\"," ENT "}",
                                      "{\"roll\":\"2d\"," ENT "}",
                                      "{\"roll\":\"2d6+\"," ENT "}",
                                      "{\"roll\":\"2d6*2\"," ENT "}",
                                      "{\"roll\":\"2d6\"}",
                                      "{\"roll\":\"2d6\",\"entropy\":\"00\"}",
                                      "{\"claim\":false}",
                                      "{\"reveal\":\"zz\"}",
                                      "{}",
                                      "{\"roll\":\"1d6\",\"claim\":true}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *j = type_test_parse(bad[i]);
        kd_buf b;
        kd_buf_init(&b);
        char why[256] = "";
        cr_expect_eq(kd_dice_type.command_from_json(j, KD_SEAT_NONE, &b, why, sizeof why), KD_ERR_BAD_COMMAND, "%s",
                     bad[i]);
        cr_expect_neq(why[0], 0, "a sentence for %s", bad[i]);
        kd_buf_fini(&b);
        json_decref(j);
    }
    json_t *p = type_test_parse("{\"max_rolls\": 5}");
    kd_buf b;
    kd_buf_init(&b);
    char why[256] = "";
    cr_expect_eq(kd_dice_type.params_from_json(p, &b, why, sizeof why), KD_ERR_BAD_PARAMS, "no house_key");
    cr_expect(strstr(why, "house_key"), "%s", why);
    kd_buf_fini(&b);
    json_decref(p);
}

/* 10^5 rolls of each die through kd_dice_outcome (one die per draw, the
 * draw seeds SHA-256 outputs of a fixed seed, as the VRF's outputs are):
 * chi-square against the uniform odds at p = 0.001 (critical values for
 * df = sides - 1). */
Test(dice, faces_are_uniform_chi_square)
{
    static const struct {
        unsigned sides;
        double critical; /* chi-square, df = sides - 1, p = 0.001 */
    } dies[] = {{4, 16.27}, {6, 20.52}, {8, 24.32}, {10, 27.88}, {12, 31.26}, {20, 43.82}, {100, 148.23}};
    const char *env = getenv("KD_TEST_SEED");
    uint32_t seed = env ? (uint32_t)strtoul(env, NULL, 10) : 14u;
    cr_log_info("KD_TEST_SEED=%u", (unsigned)seed);
    for (size_t d = 0; d < sizeof dies / sizeof dies[0]; d++) {
        unsigned counts[100] = {0};
        const unsigned n = 100000;
        uint8_t draw[32];
        kd_sha256(&seed, sizeof seed, draw);
        for (unsigned i = 0; i < n; i++) {
            kd_sha256(draw, 32, draw);
            uint8_t face;
            kd_fair_stream stream;
            kd_dice_outcome(kd_fair_stream_init(&stream, draw), 1, dies[d].sides, &face);
            cr_assert(face >= 1 && face <= dies[d].sides);
            counts[face - 1]++;
        }
        double expect = (double)n / dies[d].sides, chi = 0;
        for (unsigned f = 0; f < dies[d].sides; f++)
            chi += (counts[f] - expect) * (counts[f] - expect) / expect;
        cr_log_info("d%u: chi-square %.2f (critical %.2f)", dies[d].sides, chi, dies[d].critical);
        cr_expect_lt(chi, dies[d].critical, "d%u faces: chi-square %.2f", dies[d].sides, chi);
    }
}

/*
 * Issue 24, B8 (and the timeout of B2): a player chose reveal_timeout 1 and
 * its claims, sent every few milliseconds, beat the house. The rules now
 * refuse any deadline under KD_DEADLINE_MIN, from JSON and from raw
 * params bytes alike (resolve_params and init), so a transaction built by
 * hand cannot do what the gateway refuses.
 */
Test(dice, the_deadline_floor_holds_in_the_rules)
{
    chance_game g;
    chance_new(&g, &kd_dice_type, "{}");
    const kd_dice_state *s = g.state;
    kd_dice_params p;
    memset(&p, 0, sizeof p);
    p.house.key = s->house.key;
    memcpy(p.house.binding, s->house.binding, KD_SECRET_BINDING_LEN);
    p.max_rolls = 5;
    for (uint32_t t = 1; t <= KD_DEADLINE_MIN; t++) {
        p.house.timeout = t;
        kd_buf raw, eff;
        kd_buf_init(&raw);
        kd_buf_init(&eff);
        cr_assert_eq(kd_dice_params_encode(&p, &raw), KD_OK);
        kd_reject rej = {{0}, {0}};
        kd_err want = t < KD_DEADLINE_MIN ? KD_ERR_BAD_PARAMS : KD_OK;
        cr_expect_eq(kd_dice_ops.resolve_params(NULL, raw.data, raw.len, &eff, &rej), want, "resolve, timeout %u", t);
        if (t < KD_DEADLINE_MIN)
            cr_expect(strstr(rej.detail, "100"), "the refusal names the floor: %s", rej.detail);
        kd_dice_state st;
        kd_block_meta meta = {.daa = 1, .episode_id = CHANCE_EPISODE};
        cr_expect_eq(kd_dice_ops.init(&st, &g.parts, raw.data, raw.len, &meta, &rej), want, "init, timeout %u", t);
        kd_buf_fini(&raw);
        kd_buf_fini(&eff);
    }
    /* from JSON: the commitment made, then a caller's timeout of 1 */
    json_t *j = type_test_parse("{\"reveal_timeout\": 1}");
    char why[256] = "";
    cr_assert_eq(kd_house_commit_json(g.seed, s->house.binding, j, why, sizeof why), KD_OK);
    kd_buf b;
    kd_buf_init(&b);
    cr_expect_eq(kd_dice_type.params_from_json(j, &b, why, sizeof why), KD_ERR_BAD_PARAMS);
    cr_expect(strstr(why, "reveal_timeout 1 ") && strstr(why, "100"), "%s", why);
    kd_buf_fini(&b);
    json_decref(j);
    chance_free(&g);
}

Test(dice, type_entry_is_complete)
{
    kd_type_table t;
    kd_type_table_init(&t);
    cr_expect_eq(kd_type_table_find(&t, "dice"), &kd_dice_type);
    cr_expect_eq(kd_episode_type_seat(&kd_dice_type, "house"), KD_DICE_HOUSE);
    json_t *schema = type_test_parse(kd_dice_type.command_schema);
    cr_expect(json_object_get(json_object_get(schema, "properties"), "entropy"), "the gateway fills \"entropy\"");
    json_decref(schema);
    json_t *params = type_test_parse(kd_dice_type.params_schema);
    json_t *timeout = json_object_get(json_object_get(params, "properties"), "reveal_timeout");
    cr_expect_eq(json_integer_value(json_object_get(timeout, "minimum")), KD_DEADLINE_MIN, "the schema says the floor");
    json_decref(params);
    cr_expect_eq(kd_dice_type.house_seats, 1u << KD_DICE_HOUSE);
}
