/*
 * roulette_test.c — "roulette" (episodes/roulette/roulette.h): the layout (every
 * bet's coverage and payout), a spin paid from the house's VRF, every
 * refusal with its rule code, a cheating house (a proof of another draw,
 * no reveal: the claim), byte-exact rollback of bets, reveals and claims, random play, the
 * type entry, and 10^5 spins against the exact odds (chi-square over the
 * 38 pockets; the observed return of red against 36/38), fixed seed
 * (KD_TEST_SEED overrides).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "chance_support.h"
#include "episodes/roulette/roulette.h"
#include "type_support.h"

#define ENT "\"entropy\":\"00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\""

static kd_roulette_state *st(chance_game *g) { return g->state; }

Test(roulette, every_bet_covers_its_pockets_at_its_payout)
{
    static const struct {
        unsigned kind, n, n2, covered;
    } bets[] = {{KD_RBET_STRAIGHT, 37, 0, 1}, {KD_RBET_STRAIGHT, 17, 0, 1}, {KD_RBET_SPLIT, 0, 37, 2},
                {KD_RBET_SPLIT, 17, 18, 2},   {KD_RBET_SPLIT, 17, 20, 2},   {KD_RBET_STREET, 34, 0, 3},
                {KD_RBET_CORNER, 32, 0, 4},   {KD_RBET_SIX_LINE, 31, 0, 6}, {KD_RBET_TOP_LINE, 0, 0, 5},
                {KD_RBET_RED, 0, 0, 18},      {KD_RBET_BLACK, 0, 0, 18},    {KD_RBET_ODD, 0, 0, 18},
                {KD_RBET_EVEN, 0, 0, 18},     {KD_RBET_LOW, 0, 0, 18},      {KD_RBET_HIGH, 0, 0, 18},
                {KD_RBET_DOZEN, 3, 0, 12},    {KD_RBET_COLUMN, 1, 0, 12}};
    for (size_t i = 0; i < sizeof bets / sizeof bets[0]; i++) {
        cr_assert(kd_roulette_bet_valid(bets[i].kind, bets[i].n, bets[i].n2), "bet %zu valid", i);
        unsigned covered = 0;
        for (unsigned p = 0; p < KD_ROULETTE_POCKETS; p++)
            covered += (unsigned)kd_roulette_bet_covers(bets[i].kind, bets[i].n, bets[i].n2, p);
        cr_expect_eq(covered, bets[i].covered, "%s covers %u", kd_roulette_bet_name(bets[i].kind), covered);
        /* the American layout: every bet returns 36 units over its pockets
         * (stake x (payout + 1) x covered), the top line 35 */
        cr_expect_eq((kd_roulette_payout(bets[i].kind) + 1) * covered, bets[i].kind == KD_RBET_TOP_LINE ? 35u : 36u,
                     "%s", kd_roulette_bet_name(bets[i].kind));
    }
    cr_expect_not(kd_roulette_bet_valid(KD_RBET_SPLIT, 3, 4), "3 and 4 are not adjacent");
    cr_expect_not(kd_roulette_bet_valid(KD_RBET_STREET, 2, 0));
    cr_expect_not(kd_roulette_bet_valid(KD_RBET_CORNER, 3, 0));
    cr_expect_not(kd_roulette_bet_valid(KD_RBET_CORNER, 33, 0));
    cr_expect_not(kd_roulette_bet_valid(KD_RBET_DOZEN, 4, 0));
    cr_expect_not(kd_roulette_bet_covers(KD_RBET_EVEN, 0, 0, 0), "0 loses the outside bets");
    cr_expect_not(kd_roulette_bet_covers(KD_RBET_LOW, 0, 0, 37), "00 too");
}

Test(roulette, a_spin_pays_from_the_chain)
{
    chance_game g;
    chance_new(&g, &kd_roulette_type, "{\"start_chips\": 100, \"max_rounds\": 2}");
    kd_reject rej = {{0}, {0}};
    const char *bets = "{\"bets\":[{\"kind\":\"straight\",\"number\":\"00\",\"amount\":10},{\"kind\":\"red\","
                       "\"amount\":20},{\"kind\":\"split\",\"numbers\":[18,17],\"amount\":5},{\"kind\":\"dozen\","
                       "\"number\":2,\"amount\":5}]," ENT "}";
    cr_assert_eq(chance_exec(&g, bets, &g.player, 10, &rej), KD_OK, "%s", rej.detail);
    cr_expect_eq(st(&g)->table.chips, 60, "the stakes leave the chips");
    cr_expect_eq(kd_roulette_type.status(g.state).to_move, KD_ROULETTE_HOUSE);
    kd_legal_moves lm;
    kd_legal_moves_init(&lm);
    cr_assert_eq(kd_roulette_type.legal_moves(g.state, KD_ROULETTE_HOUSE, &lm), KD_OK);
    cr_expect_eq(lm.count, 0, "the house owes its reveal");
    cr_assert_eq(chance_reveal(&g, 11, &rej), KD_OK, "%s", rej.detail);

    uint8_t proof[KD_VRF_PROOF_LEN], ask[32], draw[32];
    chance_ask_digest(&g, bets, ask, NULL);
    cr_assert_eq(kd_fair_prove(g.seed, KD_FAIR_DRAW_V3, CHANCE_EPISODE, 1, ask, proof), KD_OK);
    cr_assert_eq(kd_fair_verify(&st(&g)->house.key, KD_FAIR_DRAW_V3, CHANCE_EPISODE, 1, ask, proof, draw), KD_OK);
    kd_fair_stream stream;
    unsigned p = kd_roulette_outcome(kd_fair_stream_init(&stream, draw));
    unsigned win = (p == 37 ? 360 : 0) + (kd_roulette_bet_covers(KD_RBET_RED, 0, 0, p) ? 40 : 0) +
                   (p == 17 || p == 18 ? 90 : 0) + (p >= 13 && p <= 24 ? 15 : 0);
    cr_expect_eq(st(&g)->table.last_pocket, p + 1);
    cr_expect_eq(st(&g)->table.last_win, win);
    cr_expect_eq(st(&g)->table.chips, 60 + win);
    kd_buf view, text;
    kd_buf_init(&view);
    kd_buf_init(&text);
    type_test_view(&kd_roulette_type, g.state, KD_SEAT_PUBLIC, &view);
    json_t *vj = kd_roulette_type.view_json(view.data, view.len);
    cr_assert(vj);
    cr_expect_eq(json_integer_value(json_object_get(vj, "chips")), 60 + win);
    cr_assert_eq(kd_roulette_type.render_text(view.data, view.len, 0, &text), KD_OK);
    cr_assert_eq(kd_roulette_type.prompt(view.data, view.len, 1, KD_ROULETTE_PLAYER, &text), KD_OK);
    cr_assert_eq(kd_buf_append(&text, "", 1), KD_OK);
    cr_expect(strstr((char *)text.data, "{\"bets\": [{\"kind\": \"straight\""), "the prompt gives the command JSON");
    cr_assert_eq(kd_roulette_type.legal_moves(g.state, KD_ROULETTE_PLAYER, &lm), KD_OK);
    cr_expect_gt(lm.count, 10);
    json_decref(vj);
    kd_buf_fini(&view);
    kd_buf_fini(&text);
    kd_legal_moves_fini(&lm);
    chance_free(&g);
}

Test(roulette, every_refusal_has_its_rule_code)
{
    chance_game g;
    chance_new(&g, &kd_roulette_type, "{\"start_chips\": 50, \"reveal_timeout\": 100}");
    kd_reject rej = {{0}, {0}};
#define BET(kind_json) "{\"bets\":[" kind_json "]," ENT "}"
    chance_expect_rule(&g, chance_exec(&g, BET(""), &g.player, 5, &rej), &rej, "no_bets");
    chance_expect_rule(&g, chance_exec(&g, BET("{\"kind\":\"street\",\"number\":2,\"amount\":1}"), &g.player, 5, &rej),
                       &rej, "bad_bet_number");
    chance_expect_rule(&g,
                       chance_exec(&g, BET("{\"kind\":\"split\",\"numbers\":[3,4],\"amount\":1}"), &g.player, 5, &rej),
                       &rej, "bad_bet_number");
    chance_expect_rule(&g, chance_exec(&g, BET("{\"kind\":\"red\",\"amount\":0}"), &g.player, 5, &rej), &rej,
                       "bad_amount");
    chance_expect_rule(&g, chance_exec(&g, BET("{\"kind\":\"red\",\"amount\":51}"), &g.player, 5, &rej), &rej,
                       "insufficient_chips");
    char many[2048] = "{\"bets\":[";
    for (int i = 0; i < 17; i++)
        strcat(many, i ? ",{\"kind\":\"red\",\"amount\":1}" : "{\"kind\":\"red\",\"amount\":1}");
    strcat(many, "]," ENT "}");
    chance_expect_rule(&g, chance_exec(&g, many, &g.player, 5, &rej), &rej, "too_many_bets");
    chance_expect_rule(&g, chance_exec(&g, BET("{\"kind\":\"red\",\"amount\":1}"), &g.house, 5, &rej), &rej,
                       "not_the_player");
    chance_expect_rule(&g, chance_exec(&g, BET("{\"kind\":\"red\",\"amount\":1}"), &g.stranger, 5, &rej), &rej,
                       "unauthorised");
    chance_expect_rule(&g, chance_exec(&g, "{\"claim\":true}", &g.player, 5, &rej), &rej, "no_draw_pending");

    cr_assert_eq(chance_exec(&g, BET("{\"kind\":\"straight\",\"number\":0,\"amount\":10}"), &g.player, 100, &rej),
                 KD_OK);
    chance_expect_rule(&g, chance_exec(&g, BET("{\"kind\":\"red\",\"amount\":1}"), &g.player, 101, &rej), &rej,
                       "draw_pending");
    char text[256];
    chance_reveal_text(g.seed, 2, "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff", text,
                       sizeof text);
    chance_expect_rule(&g, chance_exec(&g, text, &g.house, 102, &rej), &rej, "bad_proof");
    chance_expect_rule(&g, chance_exec(&g, text, &g.player, 102, &rej), &rej, "not_the_house");
    chance_expect_rule(&g, chance_exec(&g, "{\"claim\":true}", &g.player, 199, &rej), &rej, "too_early");
    /* the house did not reveal: the claim pays the straight as won (10 x 36) and ends the episode */
    cr_assert_eq(chance_exec(&g, "{\"claim\":true}", &g.player, 200, &rej), KD_OK, "%s", rej.detail);
    cr_expect_eq(st(&g)->table.chips, 40 + 360);
    kd_game_status s = kd_roulette_type.status(g.state);
    cr_expect_eq(s.phase, KD_PHASE_WON);
    cr_expect_eq(s.winner, KD_ROULETTE_PLAYER);
    chance_expect_rule(&g, chance_exec(&g, BET("{\"kind\":\"red\",\"amount\":1}"), &g.player, 201, &rej), &rej,
                       "game_over");
    chance_free(&g);
}

/* 10^5 spins through kd_roulette_outcome: the 38 pockets against 1/38 by
 * chi-square (p = 0.001), and red's observed return against the exact
 * 36/38 within 4 standard deviations (sd = 1/sqrt(n) per unit staked, about
 * 0.0032 at n = 10^5: a tolerance of 0.0127). */
Test(roulette, pockets_and_returns_match_the_odds)
{
    const char *env = getenv("KD_TEST_SEED");
    uint32_t seed = env ? (uint32_t)strtoul(env, NULL, 10) : 14u;
    cr_log_info("KD_TEST_SEED=%u", (unsigned)seed);
    const unsigned n = 100000;
    unsigned counts[KD_ROULETTE_POCKETS] = {0};
    double red_return = 0;
    uint8_t draw[32]; /* SHA-256 outputs of a fixed seed, as the VRF's outputs are */
    kd_sha256(&seed, sizeof seed, draw);
    for (unsigned i = 0; i < n; i++) {
        kd_sha256(draw, 32, draw);
        kd_fair_stream stream;
        unsigned p = kd_roulette_outcome(kd_fair_stream_init(&stream, draw));
        cr_assert_lt(p, KD_ROULETTE_POCKETS);
        counts[p]++;
        red_return += kd_roulette_bet_covers(KD_RBET_RED, 0, 0, p) ? 2 : 0;
    }
    double expect = (double)n / KD_ROULETTE_POCKETS, chi = 0;
    for (unsigned p = 0; p < KD_ROULETTE_POCKETS; p++)
        chi += (counts[p] - expect) * (counts[p] - expect) / expect;
    double crit = chance_chi2_critical(KD_ROULETTE_POCKETS - 1), rtp = red_return / n;
    cr_log_info("pockets: chi-square %.2f (critical %.2f); red returns %.4f (exact %.4f)", chi, crit, rtp, 36.0 / 38);
    cr_expect_lt(chi, crit, "pockets: chi-square %.2f", chi);
    cr_expect_lt(fabs(rtp - 36.0 / 38), 0.0127, "red returns %.4f", rtp);
}

Test(roulette, malformed_json_names_the_part)
{
    static const char *const bad[] = {"{\"bets\":[{\"kind\":\"purple\",\"amount\":1}]," ENT "}",
                                      "{\"bets\":[{\"kind\":\"split\",\"number\":17,\"amount\":1}]," ENT "}",
                                      "{\"bets\":[{\"kind\":\"red\"}]," ENT "}",
                                      "{\"bets\":[{\"kind\":\"straight\",\"number\":\"000\",\"amount\":1}]," ENT "}",
                                      "{\"bets\":[{\"kind\":\"red\",\"amount\":1}]}",
                                      "{}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *j = type_test_parse(bad[i]);
        kd_buf b;
        kd_buf_init(&b);
        char why[256] = "";
        cr_expect_eq(kd_roulette_type.command_from_json(j, KD_SEAT_NONE, &b, why, sizeof why), KD_ERR_BAD_COMMAND, "%s",
                     bad[i]);
        cr_expect_neq(why[0], 0);
        kd_buf_fini(&b);
        json_decref(j);
    }
}
