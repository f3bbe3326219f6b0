/*
 * fair_test.c — the draws of the house's VRF (episodes/fair.h): the input
 * laid out as documented in both versions, a draw verifies only for its
 * own (key, input version, episode, index, ask) and its seed is the VRF
 * output, the house key is the VRF
 * key of the seed; kd_fair_below is in range and uniform (chi-square over
 * 60,000 draws of a d6 and of 37 pockets, fixed seeds).
 */
#include <string.h>

#include <criterion/criterion.h>

#include "engine/crypto.h"
#include "episodes/fair.h"

static void seed_of(const char *text, uint8_t seed[KD_SECRET_SEED_LEN]) { kd_sha256(text, strlen(text), seed); }

Test(fair, alpha_is_laid_out_as_documented)
{
    uint8_t entropy[KD_FAIR_ENTROPY_LEN], alpha[KD_FAIR_ALPHA_LEN], digest[KD_FAIR_ASK_LEN], want[KD_HASH_LEN];
    seed_of("entropy", entropy);
    static const uint8_t ids[8] = {1, 2, 3, 4, 0x0a, 0x0b, 0x0c, 0x0d};
    kd_fair_alpha(KD_FAIR_DRAW_V2, 0x01020304u, 0x0a0b0c0du, entropy, alpha);
    cr_expect_eq(KD_FAIR_ALPHA_LEN, 53);
    cr_expect(memcmp(alpha, "kdapp-draw-v2", 13) == 0);
    cr_expect_arr_eq(alpha + 13, ids, 8, "episode id and index, big-endian");
    cr_expect_arr_eq(alpha + 21, entropy, KD_FAIR_ENTROPY_LEN);
    /* version 3: the ask's bytes hashed */
    static const uint8_t command[] = {0x0a, 0x03, 0x08, 0x01, 0x10};
    kd_fair_ask_digest(command, sizeof command, digest);
    kd_sha256(command, sizeof command, want);
    cr_expect_arr_eq(digest, want, KD_HASH_LEN, "the ask's digest is SHA-256 of its bytes");
    kd_fair_alpha(KD_FAIR_DRAW_V3, 0x01020304u, 0x0a0b0c0du, digest, alpha);
    cr_expect(memcmp(alpha, "kdapp-draw-v3", 13) == 0);
    cr_expect_arr_eq(alpha + 13, ids, 8, "episode id and index, big-endian");
    cr_expect_arr_eq(alpha + 21, digest, KD_FAIR_ASK_LEN);
}

Test(fair, draws_depend_on_every_input)
{
    uint8_t seed[KD_SECRET_SEED_LEN], entropy[KD_FAIR_ENTROPY_LEN], proof[KD_VRF_PROOF_LEN], again[KD_VRF_PROOF_LEN];
    uint8_t d[2][KD_HASH_LEN], secret[KD_VRF_SECRET_LEN], alpha[KD_FAIR_ALPHA_LEN];
    kd_pubkey key, vrf_key;
    seed_of("house seed", seed);
    seed_of("entropy", entropy);
    cr_assert_eq(kd_fair_house_key(seed, &key), KD_OK);
    cr_assert_eq(kd_vrf_key_from_seed(seed, secret, &vrf_key), KD_OK);
    cr_expect_arr_eq(key.bytes, vrf_key.bytes, KD_PUBKEY_LEN, "the house key is the VRF key of the seed");
    const uint32_t v3 = KD_FAIR_DRAW_V3;
    cr_assert_eq(kd_fair_prove(seed, v3, 7, 1, entropy, proof), KD_OK);
    cr_assert_eq(kd_fair_prove(seed, v3, 7, 1, entropy, again), KD_OK);
    cr_expect_arr_eq(proof, again, KD_VRF_PROOF_LEN, "a proof is a pure function");
    cr_assert_eq(kd_fair_verify(&key, v3, 7, 1, entropy, proof, d[0]), KD_OK);
    kd_fair_alpha(v3, 7, 1, entropy, alpha);
    cr_assert_eq(kd_vrf_verify(&key, alpha, sizeof alpha, proof, d[1]), KD_OK);
    cr_expect_arr_eq(d[0], d[1], KD_HASH_LEN, "the draw's seed is the VRF output");
    cr_expect_eq(kd_fair_verify(&key, v3, 8, 1, entropy, proof, d[1]), KD_ERR_BAD_SIGNATURE, "another episode");
    cr_expect_eq(kd_fair_verify(&key, v3, 7, 2, entropy, proof, d[1]), KD_ERR_BAD_SIGNATURE, "another index");
    cr_expect_eq(kd_fair_verify(&key, KD_FAIR_DRAW_V2, 7, 1, entropy, proof, d[1]), KD_ERR_BAD_SIGNATURE,
                 "another version of the input");
    entropy[0] ^= 1;
    cr_expect_eq(kd_fair_verify(&key, v3, 7, 1, entropy, proof, d[1]), KD_ERR_BAD_SIGNATURE, "another ask");
    cr_assert_eq(kd_fair_prove(seed, v3, 7, 1, entropy, again), KD_OK);
    cr_assert_eq(kd_fair_verify(&key, v3, 7, 1, entropy, again, d[1]), KD_OK);
    cr_expect(memcmp(d[0], d[1], KD_HASH_LEN) != 0, "another ask, another draw");
    seed[0] ^= 1;
    cr_assert_eq(kd_fair_house_key(seed, &vrf_key), KD_OK);
    cr_expect_eq(kd_fair_verify(&vrf_key, v3, 7, 1, entropy, again, d[1]), KD_ERR_BAD_SIGNATURE, "another key");
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
