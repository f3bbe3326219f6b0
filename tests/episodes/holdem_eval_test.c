/*
 * holdem_eval_test.c — the hand evaluator against the slow reference
 * (hm_ref.c) on seeded random hands of 5, 6 and 7 cards and on hands of
 * every category, and their comparisons; card names. The full enumeration
 * of C(52,7) lives in holdem_eval_full_test.c (release pass only).
 * Seed: KD_HM_SEED (default printed).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "episodes/episode_type.h"
#include "episodes/holdem/holdem_eval.h"
#include "hm_ref.h"

static uint64_t seed_from_env(void)
{
    const char *s = getenv("KD_HM_SEED");
    uint64_t seed = s ? strtoull(s, NULL, 0) : 0x5eed26u;
    fprintf(stderr, "holdem_eval_test: seed %llu (KD_HM_SEED)\n", (unsigned long long)seed);
    return seed;
}

static void deal(uint64_t *rng, uint8_t *cards, size_t n)
{
    uint64_t used = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned c;
        do
            c = kd_type_rng_below(rng, KD_HM_CARDS);
        while (used & (1ull << c));
        used |= 1ull << c;
        cards[i] = (uint8_t)c;
    }
}

static void cards_of(const char *text, uint8_t *cards, size_t *n)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%s", text);
    *n = 0;
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
        int c = kd_hm_card_parse(tok);
        cr_assert(c >= 0, "%s is a card", tok);
        cards[(*n)++] = (uint8_t)c;
    }
}

Test(holdem_eval, agrees_with_the_reference_on_random_hands)
{
    uint64_t rng = seed_from_env();
    for (int i = 0; i < 900; i++) {
        uint8_t a[7], b[7];
        size_t n = 5 + (size_t)(i % 3);
        deal(&rng, a, n);
        deal(&rng, b, n);
        uint32_t fa = kd_hm_eval(a, n), fb = kd_hm_eval(b, n);
        cr_assert_eq(fa, hm_ref_eval(a, n), "hand %d of %zu cards", i, n);
        cr_assert_eq(fb, hm_ref_eval(b, n), "hand %d of %zu cards", i, n);
        cr_expect_eq(fa < fb, hm_ref_eval(a, n) < hm_ref_eval(b, n));
    }
}

Test(holdem_eval, each_category_and_its_edges)
{
    static const struct {
        const char *hand;
        kd_hm_category cat;
    } cases[] = {
        {"As Ks Qs Js Ts 2c 3d", KD_HM_STRAIGHT_FLUSH}, {"5h 4h 3h 2h Ah Kd Kc", KD_HM_STRAIGHT_FLUSH},
        {"9c 9d 9h 9s Ac Ad Ah", KD_HM_QUADS},          {"Kc Kd Kh Qc Qd Qh 2s", KD_HM_FULL_HOUSE},
        {"2c 4c 6c 8c Tc Ac Ad", KD_HM_FLUSH},          {"Ac 2d 3h 4s 5c Kd Qd", KD_HM_STRAIGHT},
        {"Tc Jd Qh Ks Ac 9d 8d", KD_HM_STRAIGHT},       {"7c 7d 7h 2s 9c Jd Kd", KD_HM_TRIPS},
        {"7c 7d 2h 2s 9c 9d Kd", KD_HM_TWO_PAIR},       {"Ac Ad 2h 5s 9c Jd Kd", KD_HM_PAIR},
        {"Ac 3d 5h 7s 9c Jd Kd", KD_HM_HIGH_CARD},      {"Qc Kd Ah 2s 3c 8d 9h", KD_HM_HIGH_CARD},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t c[7];
        size_t n;
        cards_of(cases[i].hand, c, &n);
        uint32_t v = kd_hm_eval(c, n);
        cr_expect_eq(kd_hm_value_category(v), cases[i].cat, "%s: %s", cases[i].hand,
                     kd_hm_category_name(kd_hm_value_category(v)));
        cr_expect_eq(v, hm_ref_eval(c, n), "%s", cases[i].hand);
    }
    /* the wheel loses to a six-high straight; the third pair plays as the kicker */
    uint8_t a[7], b[7];
    size_t na, nb;
    cards_of("Ac 2d 3h 4s 5c Kd Qd", a, &na);
    cards_of("6c 2d 3h 4s 5c Kd Qd", b, &nb);
    cr_expect_lt(kd_hm_eval(a, na), kd_hm_eval(b, nb));
    cards_of("7c 7d 2h 2s 9c 9d 3d", a, &na);
    cards_of("7c 7d 2h 3s 9c 9d 3d", b, &nb);
    cr_expect_eq(kd_hm_eval(a, na), kd_hm_eval(b, nb),
                 "nines and sevens, a three kicker: the third pair plays only as a kicker");
    char text[48];
    kd_hm_value_text(kd_hm_eval(a, na), text, sizeof text);
    cr_expect_str_eq(text, "two pair 9 7 3");
}

/* Each category's text names its deciding ranks, exactly as many as the
 * value packs (trips: the rank and two kickers, no fourth). */
Test(holdem_eval, every_category_text_names_its_deciding_ranks)
{
    static const struct {
        const char *hand, *text;
    } cases[] = {
        {"Ac Kd 9h 7s 5c 3d 2h", "high card A K 9 7 5"},   {"Ac Ad 9h 7s 5c 3d 2h", "pair A 9 7 5"},
        {"Ac Ad 9h 9s 5c 3d 2h", "two pair A 9 5"},        {"3c 3d 3h Ks Jc 2d 2h", "full house 3 2"},
        {"3c 3d 3h Ks Jc 2d 5h", "three of a kind 3 K J"}, {"9c Td Jh Qs Kc 3d 2h", "straight K"},
        {"Ac Kc 9c 7c 5c 3d 2h", "flush A K 9 7 5"},       {"Ac Ad Ah 9s 9c 3d 2h", "full house A 9"},
        {"Ac Ad Ah As 9c 3d 2h", "four of a kind A 9"},    {"9c Tc Jc Qc Kc 3d 2h", "straight flush K"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t c[7];
        size_t n;
        char text[48];
        cards_of(cases[i].hand, c, &n);
        kd_hm_value_text(kd_hm_eval(c, n), text, sizeof text);
        cr_expect_str_eq(text, cases[i].text, "%s", cases[i].hand);
    }
}

Test(holdem_eval, card_names)
{
    char name[3];
    kd_hm_card_name(0, name);
    cr_expect_str_eq(name, "2c");
    kd_hm_card_name(51, name);
    cr_expect_str_eq(name, "As");
    kd_hm_card_name(52, name);
    cr_expect_str_eq(name, "??");
    for (unsigned c = 0; c < KD_HM_CARDS; c++) {
        kd_hm_card_name(c, name);
        cr_expect_eq(kd_hm_card_parse(name), (int)c);
    }
    cr_expect_eq(kd_hm_card_parse("1s"), -1);
    cr_expect_eq(kd_hm_card_parse("Ax"), -1);
    cr_expect_eq(kd_hm_card_parse("As "), -1);
    cr_expect_eq(kd_hm_card_parse(""), -1);
}
