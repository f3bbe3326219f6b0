/*
 * slots_test.c — "slots" (episodes/slots/slots.h): the exact return to player
 * (the enumeration against a closed form from the strip's symbol counts),
 * a spin paid from the house's VRF, every refusal with its rule code, a
 * house that does not reveal losing to the claim, byte-exact rollback of
 * spins, reveals and claims, random play, and 10^5 spins: the paytable's
 * lines against their exact probabilities (chi-square, p = 0.001) and the
 * observed return against the exact RTP within 4 standard deviations
 * (computed from the paytable), fixed seed (KD_TEST_SEED overrides).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "chance_support.h"
#include "episodes/slots/slots.h"
#include "type_support.h"

#define ENT "\"entropy\":\"00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\""

/* How many stops of the strip show `sym`. */
static unsigned count_of(unsigned sym)
{
    unsigned n = 0;
    for (int i = 0; i < KD_SLOTS_STOPS; i++)
        n += kd_slots_strip[i] == sym;
    return n;
}

/* The combinations each paytable line pays, from the symbol counts. */
static void line_ways(uint64_t ways[KD_SLOTS_PAYS])
{
    for (int i = 0; i < 7; i++) { /* three of a kind, lines 0..6 */
        uint64_t c = count_of(kd_slots_paytable[i].sym[0]);
        ways[i] = c * c * c;
    }
    uint64_t ch = count_of(KD_SYM_CHERRY), other = KD_SLOTS_STOPS - ch;
    ways[7] = ch * ch * other;             /* cherry cherry, then not a cherry */
    ways[8] = ch * other * KD_SLOTS_STOPS; /* cherry, then not a cherry, then anything */
}

Test(slots, the_return_to_player_is_exact)
{
    uint64_t ways[KD_SLOTS_PAYS], sum = 0, num, den;
    line_ways(ways);
    for (int i = 0; i < KD_SLOTS_PAYS; i++)
        sum += ways[i] * kd_slots_paytable[i].multiplier;
    kd_slots_rtp(&num, &den);
    cr_expect_eq(num * 8000, sum * den, "the enumeration agrees with the closed form: %llu/8000",
                 (unsigned long long)sum);
    cr_expect_eq(num, 1543);
    cr_expect_eq(den, 1600, "96.4375%%");
    /* every combination pays exactly the line it matches */
    uint64_t seen[KD_SLOTS_PAYS] = {0};
    uint8_t s[3];
    for (s[0] = 0; s[0] < KD_SLOTS_STOPS; s[0]++)
        for (s[1] = 0; s[1] < KD_SLOTS_STOPS; s[1]++)
            for (s[2] = 0; s[2] < KD_SLOTS_STOPS; s[2]++) {
                int line = kd_slots_line(s);
                if (line >= 0)
                    seen[line]++;
            }
    cr_expect_arr_eq(seen, ways, sizeof seen);
}

Test(slots, a_spin_pays_from_the_chain_and_show_prints_the_rtp)
{
    chance_game g;
    chance_new(&g, &kd_slots_type, "{\"start_credits\": 100, \"max_rounds\": 3}");
    kd_slots_state *s = g.state;
    kd_reject rej = {{0}, {0}};
    cr_assert_eq(chance_exec(&g, "{\"spin\": 10," ENT "}", &g.player, 10, &rej), KD_OK, "%s", rej.detail);
    cr_expect_eq(s->table.credits, 90);
    cr_assert_eq(chance_reveal(&g, 11, &rej), KD_OK, "%s", rej.detail);
    uint8_t proof[KD_VRF_PROOF_LEN], ask[32], draw[32], stops[3];
    chance_ask_digest(&g, "{\"spin\": 10," ENT "}", ask, NULL);
    cr_assert_eq(kd_fair_prove(g.seed, KD_FAIR_DRAW_V3, CHANCE_EPISODE, 1, ask, proof), KD_OK);
    cr_assert_eq(kd_fair_verify(&s->house.key, KD_FAIR_DRAW_V3, CHANCE_EPISODE, 1, ask, proof, draw), KD_OK);
    kd_fair_stream stream;
    kd_slots_outcome(kd_fair_stream_init(&stream, draw), stops);
    for (int r = 0; r < 3; r++)
        cr_expect_eq(s->table.stops[r], stops[r] + 1);
    cr_expect_eq(s->table.credits, 90 + 10 * kd_slots_multiplier(stops));
    kd_buf view, text;
    kd_buf_init(&view);
    kd_buf_init(&text);
    type_test_view(&kd_slots_type, g.state, KD_SEAT_PUBLIC, &view);
    cr_assert_eq(kd_slots_type.render_text(view.data, view.len, 0, &text), KD_OK);
    cr_assert_eq(kd_buf_append(&text, "", 1), KD_OK);
    cr_expect(strstr((char *)text.data, "return to player: 1543/1600 = 96.4375%"), "%s", (char *)text.data);
    json_t *vj = kd_slots_type.view_json(view.data, view.len);
    cr_assert(vj);
    cr_expect_eq(json_integer_value(json_object_get(json_object_get(vj, "return_to_player"), "numerator")), 1543);
    cr_expect_eq(json_array_size(json_object_get(vj, "last_symbols")), 3);
    text.len = 0;
    cr_assert_eq(kd_slots_type.prompt(view.data, view.len, 1, KD_SLOTS_PLAYER, &text), KD_OK);
    cr_assert_eq(kd_buf_append(&text, "", 1), KD_OK);
    cr_expect(strstr((char *)text.data, "{\"spin\": 10, \"entropy\""), "the prompt gives the command JSON");
    json_decref(vj);
    kd_buf_fini(&view);
    kd_buf_fini(&text);
    chance_free(&g);
}

Test(slots, every_refusal_has_its_rule_code)
{
    chance_game g;
    chance_new(&g, &kd_slots_type, "{\"start_credits\": 30, \"reveal_timeout\": 100}");
    kd_slots_state *s = g.state;
    kd_reject rej = {{0}, {0}};
    chance_expect_rule(&g, chance_exec(&g, "{\"spin\": 0," ENT "}", &g.player, 5, &rej), &rej, "bad_bet");
    chance_expect_rule(&g, chance_exec(&g, "{\"spin\": 1001," ENT "}", &g.player, 5, &rej), &rej, "bad_bet");
    chance_expect_rule(&g, chance_exec(&g, "{\"spin\": 31," ENT "}", &g.player, 5, &rej), &rej, "insufficient_credits");
    chance_expect_rule(&g, chance_exec(&g, "{\"spin\": 1," ENT "}", &g.house, 5, &rej), &rej, "not_the_player");
    chance_expect_rule(&g, chance_exec(&g, "{\"spin\": 1," ENT "}", NULL, 5, &rej), &rej, "unauthorised");
    chance_expect_rule(&g, chance_exec(&g, "{\"claim\": true}", &g.player, 5, &rej), &rej, "no_draw_pending");
    cr_assert_eq(chance_exec(&g, "{\"spin\": 2," ENT "}", &g.player, 50, &rej), KD_OK);
    chance_expect_rule(&g, chance_exec(&g, "{\"spin\": 1," ENT "}", &g.player, 51, &rej), &rej, "draw_pending");
    char text[256];
    chance_reveal_text(g.seed, 2, "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff", text,
                       sizeof text);
    chance_expect_rule(&g, chance_exec(&g, text, &g.house, 51, &rej), &rej, "bad_proof");
    chance_expect_rule(&g, chance_exec(&g, "{\"claim\": true}", &g.player, 149, &rej), &rej, "too_early");
    cr_assert_eq(chance_exec(&g, "{\"claim\": true}", &g.player, 150, &rej), KD_OK, "%s", rej.detail);
    cr_expect_eq(s->table.credits, 28 + 2 * 300, "the claim pays the top line");
    cr_expect_eq(kd_slots_type.status(g.state).winner, KD_SLOTS_PLAYER);
    chance_expect_rule(&g, chance_exec(&g, "{\"spin\": 1," ENT "}", &g.player, 151, &rej), &rej, "game_over");
    chance_free(&g);
}

Test(slots, spins_match_the_paytable_odds)
{
    const char *env = getenv("KD_TEST_SEED");
    uint32_t seed = env ? (uint32_t)strtoul(env, NULL, 10) : 14u;
    cr_log_info("KD_TEST_SEED=%u", (unsigned)seed);
    const unsigned n = 100000;
    uint64_t ways[KD_SLOTS_PAYS], lines[KD_SLOTS_PAYS + 1] = {0}, paid = 0;
    line_ways(ways);
    uint8_t draw[32], stops[3]; /* SHA-256 outputs of a fixed seed, as the VRF's outputs are */
    kd_sha256(&seed, sizeof seed, draw);
    for (unsigned i = 0; i < n; i++) {
        kd_sha256(draw, 32, draw);
        kd_fair_stream stream;
        kd_slots_outcome(kd_fair_stream_init(&stream, draw), stops);
        int line = kd_slots_line(stops);
        lines[line < 0 ? KD_SLOTS_PAYS : line]++;
        paid += kd_slots_multiplier(stops);
    }
    /* chi-square over the 9 lines and "no win" against ways / 8000 */
    double chi = 0, mean = 0, second = 0;
    uint64_t losing = 8000;
    for (int i = 0; i <= KD_SLOTS_PAYS; i++) {
        uint64_t w = i < KD_SLOTS_PAYS ? ways[i] : losing;
        if (i < KD_SLOTS_PAYS) {
            losing -= ways[i];
            double p = ways[i] / 8000.0, m = kd_slots_paytable[i].multiplier;
            mean += p * m;
            second += p * m * m;
        }
        double expect = n * (w / 8000.0);
        chi += (lines[i] - expect) * (lines[i] - expect) / expect;
    }
    double crit = chance_chi2_critical(KD_SLOTS_PAYS), rtp = (double)paid / n, sd = sqrt((second - mean * mean) / n);
    cr_log_info("paytable lines: chi-square %.2f (critical %.2f); return %.4f, exact %.4f, sd %.4f", chi, crit, rtp,
                mean, sd);
    cr_expect_lt(chi, crit, "lines: chi-square %.2f", chi);
    cr_expect_lt(fabs(rtp - 1543.0 / 1600), 4 * sd, "observed return %.4f, exact 0.9644, 4 sd = %.4f", rtp, 4 * sd);
}
