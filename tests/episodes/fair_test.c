/*
 * fair_test.c — the house's hash chain and the draws (episodes/fair.h):
 * links check against their predecessors and against an independent
 * recomputation, a wrong or a repeated link is refused, the chain ends at
 * its length, draws depend on every input, and kd_fair_below is in range
 * and uniform (chi-square over 60,000 draws of a d6 and of 37 pockets,
 * fixed seeds).
 */
#include <string.h>

#include <criterion/criterion.h>

#include "engine/crypto.h"
#include "episodes/fair.h"

static void seed_of(const char *text, uint8_t seed[KD_SECRET_SEED_LEN]) { kd_sha256(text, strlen(text), seed); }

Test(fair, chain_links_verify_in_order)
{
    uint8_t seed[KD_SECRET_SEED_LEN], commit[KD_FAIR_LINK_LEN], link[KD_FAIR_LINK_LEN];
    seed_of("house", seed);
    cr_assert_eq(kd_fair_link(seed, 16, 0, commit), KD_OK);

    /* independently: h[16] from the seed, then hash down to h[0] */
    uint8_t h[KD_FAIR_LINK_LEN], buf[20 + KD_SECRET_SEED_LEN];
    memcpy(buf, "kdapp-house-chain-v1", 20);
    memcpy(buf + 20, seed, KD_SECRET_SEED_LEN);
    kd_sha256(buf, sizeof buf, h);
    for (int i = 0; i < 16; i++)
        kd_sha256(h, sizeof h, h);
    cr_assert_arr_eq(h, commit, sizeof h, "the commit is h[0]");

    kd_fair_chain chain;
    kd_fair_chain_init(&chain, commit, 16);
    for (uint32_t i = 1; i <= 16; i++) {
        cr_assert_eq(kd_fair_link(seed, 16, i, link), KD_OK);
        uint8_t wrong[KD_FAIR_LINK_LEN];
        memcpy(wrong, link, sizeof wrong);
        wrong[7] ^= 1;
        cr_expect_not(kd_fair_chain_next_ok(&chain, wrong), "a changed link %u is refused", i);
        if (i < 16) {
            uint8_t later[KD_FAIR_LINK_LEN];
            cr_assert_eq(kd_fair_link(seed, 16, i + 1, later), KD_OK);
            cr_expect_not(kd_fair_chain_next_ok(&chain, later), "link %u may not skip ahead", i + 1);
        }
        cr_assert(kd_fair_chain_next_ok(&chain, link), "link %u follows", i);
        kd_fair_chain_advance(&chain, link);
        cr_expect_eq(chain.revealed, i);
        cr_expect_not(kd_fair_chain_next_ok(&chain, link), "link %u may not be revealed twice", i);
    }
    uint8_t beyond[KD_FAIR_LINK_LEN] = {0};
    cr_expect_not(kd_fair_chain_next_ok(&chain, beyond), "a spent chain takes no more links");
    cr_expect_eq(kd_fair_link(seed, 16, 17, link), KD_ERR_INVALID_ARG);
    cr_expect_eq(kd_fair_link(seed, 0, 0, link), KD_ERR_INVALID_ARG);
    cr_expect_eq(kd_fair_link(seed, KD_FAIR_LENGTH_MAX + 1, 0, link), KD_ERR_INVALID_ARG);
}

Test(fair, draws_depend_on_every_input)
{
    uint8_t link[KD_FAIR_LINK_LEN], entropy[KD_FAIR_ENTROPY_LEN], d[6][KD_HASH_LEN];
    seed_of("link", link);
    seed_of("entropy", entropy);
    kd_fair_draw(link, entropy, 7, 1, d[0]);
    kd_fair_draw(link, entropy, 7, 1, d[1]);
    cr_expect_arr_eq(d[0], d[1], KD_HASH_LEN, "a draw is a pure function");
    kd_fair_draw(link, entropy, 8, 1, d[2]);
    kd_fair_draw(link, entropy, 7, 2, d[3]);
    entropy[0] ^= 1;
    kd_fair_draw(link, entropy, 7, 1, d[4]);
    link[31] ^= 1;
    kd_fair_draw(link, entropy, 7, 1, d[5]);
    for (int i = 2; i < 6; i++)
        cr_expect(memcmp(d[0], d[i], KD_HASH_LEN) != 0, "changing input %d changes the draw", i);
}

/* Pearson's chi-square of `n` counts against a uniform expectation. */
static double chi_square(const unsigned *counts, unsigned n, unsigned total)
{
    double e = (double)total / n, x = 0;
    for (unsigned i = 0; i < n; i++)
        x += (counts[i] - e) * (counts[i] - e) / e;
    return x;
}

Test(fair, below_is_in_range_and_uniform)
{
    /* critical values at p = 0.001: 20.52 for 5 degrees of freedom, 69.35 for 36 */
    static const struct {
        uint32_t n;
        double critical;
    } CASES[] = {{6, 20.52}, {37, 69.35}};
    for (size_t c = 0; c < sizeof CASES / sizeof CASES[0]; c++) {
        unsigned counts[37] = {0}, total = 60000;
        uint8_t seed[KD_HASH_LEN];
        seed_of(c ? "pockets" : "dice", seed);
        kd_fair_stream s;
        kd_fair_stream_init(&s, seed);
        for (unsigned i = 0; i < total; i++) {
            uint32_t v = kd_fair_below(&s, CASES[c].n);
            cr_assert_lt(v, CASES[c].n);
            counts[v]++;
        }
        double x = chi_square(counts, CASES[c].n, total);
        cr_expect_lt(x, CASES[c].critical, "below(%u): chi-square %.2f", CASES[c].n, x);
    }
    kd_fair_stream s;
    uint8_t seed[KD_HASH_LEN] = {0};
    kd_fair_stream_init(&s, seed);
    cr_expect_eq(kd_fair_below(&s, 1), 0u);
    cr_expect_eq(kd_fair_below(&s, 0), 0u);
}
