/*
 * vrf_test.c — ECVRF on secp256k1 (engine/vrf.h): known answers from the
 * independent Python implementation (tests/episodes/chance_check.py
 * vrf-vectors: its own curve arithmetic and hashlib), checked both ways
 * (our proof is byte for byte Python's, which Python verified; Python's
 * proof verifies here to Python's beta); round trips; and refusals: every
 * byte of a proof changed, a wrong key, a wrong alpha, a Gamma off the
 * curve, c = 0, s = 0, s at or above the group's order, a bad public key.
 * Fixed seed 24 for the random alphas (KD_TEST_SEED overrides).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "engine/bytes.h"
#include "engine/crypto.h"
#include "engine/vrf.h"

typedef struct {
    const char *seed, *alpha, *pub, *proof, *beta;
} vector;

/* python3 tests/episodes/chance_check.py vrf-vectors */
static const vector vectors[] = {
    {"0000000000000000000000000000000000000000000000000000000000000000", "",
     "02397e8f0c752b3d6a93d35bbc38ecdfd9da50bcddc871825cfbc418c33a5acde1",
     "02c4d99c989b92841da54165e94411ee70782edde7881877fa5d985acef3b072901f91b75abfd2e485a7a3f985216f14dfde21e6cc8b6688f"
     "b7ffbbbd624c3f5de0784f7d09bbf11f033c5467033ced214",
     "884264d6bde0e702b27328d50a1afa1c0fb9ddca5921fcc500018fe62909e420"},
    {"0000000000000000000000000000000000000000000000000000000000000000", "616263",
     "02397e8f0c752b3d6a93d35bbc38ecdfd9da50bcddc871825cfbc418c33a5acde1",
     "02bafb70bec9aa1e3992ac535b98c563549e51cecc81f0ac0e55b63c8ff72be24774e8fb4b4e513c712cf8c1002702a7664cd54b11335d6d3"
     "0a45f58819965fc1d8332c464035322d3638de37f681eb15e",
     "fd323f12c03cb95d6bafbbc24f5675775ed18c5ce2f87427737069adeb88e056"},
    {"0000000000000000000000000000000000000000000000000000000000000000",
     "6b646170702d647261772d76320000000700000001000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
     "02397e8f0c752b3d6a93d35bbc38ecdfd9da50bcddc871825cfbc418c33a5acde1",
     "03f75faa579b9f6f191151af330bc561ab07158531faba96f360c043299f8ae02d35810b4d0db3178e0d9a9c9773d3e8db09f3d18e8cdf861"
     "6edc48cea98a3124d84443dcafb32c83bc53edb8f5566777e",
     "c68ec58f189fa5ee8ed577373f7826b89f52b4646afbaa5f76712fca068e4c6f"},
    {"0000000000000000000000000000000000000000000000000000000000000000",
     "a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a"
     "5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5"
     "a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a"
     "5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5",
     "02397e8f0c752b3d6a93d35bbc38ecdfd9da50bcddc871825cfbc418c33a5acde1",
     "030319166b840cdb81dd12605b4ea8d113ecdc70b86470ecb24f1c9f5ee3af740e0b82a51944967eb63a117239a464e1ff041c197755d5d71"
     "f1471ee53d5bb7240aeca7ed3aadc62187fd04c7734938b5d",
     "f92386e9f0a39663815ad4b8a403bbadd6a324f3c848e114f0aae800958f60ac"},
    {"7e56071a10439ce45e2db1f831c427bdd84d88a6f952b1ce2cbc24c51588bf3b", "616263",
     "020f7c5770fb5269a72c4ad149ecc6bdbbbc28699b6b4452183e09f478b4f68db9",
     "0313213f81be1ef97c917962ba694deaa25e406c26c7b31ee97a50b46bd87d3021c0c007d6aac0eb61c63c31cf7091f4b507dd4e3f52bf1f1"
     "6e23632ff274f6b3502823eb7798f2a742c27d89b3e5f93a4",
     "a34f924c7d07b205feb0c0fe52665130b1aa6f72ac1b6ecefd49cdfedd484f3b"},
    {"7e56071a10439ce45e2db1f831c427bdd84d88a6f952b1ce2cbc24c51588bf3b",
     "6b646170702d647261772d76320000000700000001000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
     "020f7c5770fb5269a72c4ad149ecc6bdbbbc28699b6b4452183e09f478b4f68db9",
     "0365d4134f15175d5933122c701e39adfd50f9794602bd5f076aaa1125edfea3dd26612ceaf5fd23e6d205a9d5205c961ccb10610d9a25019"
     "280fda6b2e2c9033cbc467ef2bd7a3388235e34ed00eb5451",
     "2cb45696d2add8c6fb74b8b7314586447e54c314a9a7ebe874f6437f64e47fce"},
    {"7e56071a10439ce45e2db1f831c427bdd84d88a6f952b1ce2cbc24c51588bf3b",
     "a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a"
     "5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5"
     "a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a"
     "5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5",
     "020f7c5770fb5269a72c4ad149ecc6bdbbbc28699b6b4452183e09f478b4f68db9",
     "023934b51527a5c50779a11781a58598bbe9ef5ff17610e809b75ca661d0f9c87988de323f02ed0e2ea67bb32139cc030a240f8ac3e432d74"
     "97cbc833909924cdce01f953b6ef769bc0468fbfbd8dca236",
     "9f40b6165b7f396a489fb019ede80e0fe98ba2c5b0aec12d8e25260263e92e4d"},
    {"7e56071a10439ce45e2db1f831c427bdd84d88a6f952b1ce2cbc24c51588bf3b", "",
     "020f7c5770fb5269a72c4ad149ecc6bdbbbc28699b6b4452183e09f478b4f68db9",
     "02dc629f89afb1abb74b1166ccfb4886fef7116509fc46e20b4298da9d2557d812f9cd246174efd7004b3ad87e143950546bb0d3a751d9c8f"
     "2fee3761770279ae2d5470f2c45b791da45c66ea248c6c3f9",
     "14afced35178760991488e60a248a1e12ce38dd89d19cf155daa061d326579a0"},
    {"5182d36fee24c1e56602f92b4f91d4a22f8099ba7a5c1175c446be7db3906d61",
     "6b646170702d647261772d76320000000700000001000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
     "0244560865fc2ba652ae8890e61acc360a623ed6d94a8ef2c563a656bb252b4d9c",
     "0387e67b0790026c5a0bc8a6c992f7859e0415a85ab303f7442c324e7cb25f53f8246420f03d1783cc058052db781ca5379919a7576cfd954"
     "6d15b701bc263d4153f0d1cc7822b4267f93880776863cfd3",
     "f4b942e17ddfc22b9de450bb915b9e1e8d0d65f51bbb2891702e95ebacbec088"},
    {"5182d36fee24c1e56602f92b4f91d4a22f8099ba7a5c1175c446be7db3906d61",
     "a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a"
     "5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5"
     "a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a"
     "5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5",
     "0244560865fc2ba652ae8890e61acc360a623ed6d94a8ef2c563a656bb252b4d9c",
     "02cad99b03a3673125c202aa82806ff73007921f358e68df264063e59546dc7f40ae4d731f7144e75c7ae9ca9973809f70bd6a35eaae94ed8"
     "cd9eb27c4c406aa7d250c2bc813472cb2f2bb6a23f5b07ef7",
     "b87505e415f61048a3bb990af16f215991e6570819368ee853132ae48b74eba5"},
    {"5182d36fee24c1e56602f92b4f91d4a22f8099ba7a5c1175c446be7db3906d61", "",
     "0244560865fc2ba652ae8890e61acc360a623ed6d94a8ef2c563a656bb252b4d9c",
     "024c06b3fcff78005ec1c1d79577179379bd7f49a8ba1bc353b5f40cc622f24f913db21f66cc0cdf964afa18635efe639894fecd50d47ec01"
     "d360160abc0a8656a07a7f8d62e193ae13b986bbb55ba6b01",
     "f8b35203cbb646e9956530368c658fc756373949c851a53b5ed2deea0dba5f98"},
    {"7f360df703e4b90d9f566af97065541f64cbe46f865d07871495bd79cd24593e",
     "a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a"
     "5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5"
     "a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a"
     "5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5",
     "02fdda88bee3cb396765f6ecc2763e25f6e35aeccd9b5aff877283d2dfb5de19df",
     "02a674082e77622d9870b574b7dba404cb92d89e28b4ce8f282ee333bee166ce8a38c26284441e8a4a9f369944170711c2f1be060ea2bcd8e"
     "9f0d86c5820ca61a3f7cc34d58f78f6cc701560dc9cef3d89",
     "bd10ea06ea7219014574656ca1aeaed20c43e68dac0a9fd154e42714b27dab48"},
    {"7f360df703e4b90d9f566af97065541f64cbe46f865d07871495bd79cd24593e", "",
     "02fdda88bee3cb396765f6ecc2763e25f6e35aeccd9b5aff877283d2dfb5de19df",
     "03ae738a22bbf7ec6e10324be15ed07db281a5db0b3abd7a51d9c564d30bd22152f942b1a63a998201cc7e23fd61dd99f478d2879adec26d8"
     "ac92d7f0d2a7cf5839b517703fa907c5ca32f1fd773ca9d82",
     "bbe2985b700b5262d1691966f2ad30945dcae67ec5070a171cf680ffe859e666"},
};

/* Decodes `hex` (any even length) into a malloc'ed buffer of *len bytes. */
static uint8_t *unhex(const char *hex, size_t *len)
{
    *len = strlen(hex) / 2;
    uint8_t *b = malloc(*len ? *len : 1);
    cr_assert(b);
    cr_assert_eq(kd_hex_decode(hex, b, *len), 0, "hex %s", hex);
    return b;
}

static void unhex_fixed(const char *hex, uint8_t *out, size_t len)
{
    cr_assert_eq(strlen(hex), 2 * len);
    cr_assert_eq(kd_hex_decode(hex, out, len), 0);
}

Test(vrf, known_answers_both_ways)
{
    for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++) {
        const vector *v = &vectors[i];
        uint8_t seed[32], secret[32], proof[KD_VRF_PROOF_LEN], want_proof[KD_VRF_PROOF_LEN], beta[32], want_beta[32];
        kd_pubkey pub, want_pub;
        size_t alen;
        uint8_t *alpha = unhex(v->alpha, &alen);
        unhex_fixed(v->seed, seed, 32);
        unhex_fixed(v->pub, want_pub.bytes, KD_PUBKEY_LEN);
        unhex_fixed(v->proof, want_proof, KD_VRF_PROOF_LEN);
        unhex_fixed(v->beta, want_beta, 32);
        cr_assert_eq(kd_vrf_key_from_seed(seed, secret, &pub), KD_OK);
        cr_expect_arr_eq(pub.bytes, want_pub.bytes, KD_PUBKEY_LEN, "vector %zu: the key of the seed", i);
        cr_assert_eq(kd_vrf_prove(secret, alpha, alen, proof), KD_OK);
        cr_expect_arr_eq(proof, want_proof, KD_VRF_PROOF_LEN, "vector %zu: our proof is Python's", i);
        cr_assert_eq(kd_vrf_verify(&want_pub, alpha, alen, want_proof, beta), KD_OK, "vector %zu: Python's proof", i);
        cr_expect_arr_eq(beta, want_beta, 32, "vector %zu: the same beta", i);
        memset(beta, 0, sizeof beta);
        cr_assert_eq(kd_vrf_proof_to_hash(want_proof, beta), KD_OK);
        cr_expect_arr_eq(beta, want_beta, 32, "vector %zu: proof_to_hash", i);
        free(alpha);
    }
}

/* splitmix64 */
static uint64_t next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint64_t test_seed(void)
{
    const char *s = getenv("KD_TEST_SEED");
    uint64_t seed = s ? strtoull(s, NULL, 10) : 24;
    printf("vrf_test: seed %llu (KD_TEST_SEED overrides)\n", (unsigned long long)seed);
    return seed;
}

/* A key and a proof of `alpha` under it, for the refusal tests. */
typedef struct {
    uint8_t secret[32];
    kd_pubkey pub;
    uint8_t proof[KD_VRF_PROOF_LEN];
} proved;

static void prove_one(const char *seed_text, const uint8_t *alpha, size_t len, proved *p)
{
    uint8_t seed[32];
    kd_sha256(seed_text, strlen(seed_text), seed);
    cr_assert_eq(kd_vrf_key_from_seed(seed, p->secret, &p->pub), KD_OK);
    cr_assert_eq(kd_vrf_prove(p->secret, alpha, len, p->proof), KD_OK);
}

Test(vrf, round_trips_and_unique_output)
{
    uint64_t rng = test_seed();
    proved p;
    uint8_t alpha[64], beta[32], again[32], proof2[KD_VRF_PROOF_LEN];
    for (int i = 0; i < 40; i++) {
        size_t len = (size_t)(next(&rng) % sizeof alpha);
        for (size_t j = 0; j < len; j++)
            alpha[j] = (uint8_t)next(&rng);
        prove_one(i % 2 ? "house a" : "house b", alpha, len, &p);
        cr_assert_eq(kd_vrf_verify(&p.pub, alpha, len, p.proof, beta), KD_OK, "round %d", i);
        /* deterministic: the same proof again, the same beta */
        cr_assert_eq(kd_vrf_prove(p.secret, alpha, len, proof2), KD_OK);
        cr_expect_arr_eq(proof2, p.proof, KD_VRF_PROOF_LEN);
        cr_assert_eq(kd_vrf_verify(&p.pub, alpha, len, proof2, again), KD_OK);
        cr_expect_arr_eq(again, beta, 32);
    }
    /* another alpha, another output */
    uint8_t b1[32], b2[32];
    prove_one("house a", (const uint8_t *)"one", 3, &p);
    cr_assert_eq(kd_vrf_verify(&p.pub, (const uint8_t *)"one", 3, p.proof, b1), KD_OK);
    prove_one("house a", (const uint8_t *)"two", 3, &p);
    cr_assert_eq(kd_vrf_verify(&p.pub, (const uint8_t *)"two", 3, p.proof, b2), KD_OK);
    cr_expect_arr_neq(b1, b2, 32);
}

Test(vrf, every_changed_byte_is_refused)
{
    static const uint8_t alpha[] = "kdapp-draw-v2 refusals";
    proved p;
    uint8_t beta[32], bad[KD_VRF_PROOF_LEN];
    prove_one("house", alpha, sizeof alpha - 1, &p);
    cr_assert_eq(kd_vrf_verify(&p.pub, alpha, sizeof alpha - 1, p.proof, beta), KD_OK);
    for (size_t i = 0; i < KD_VRF_PROOF_LEN; i++)
        for (unsigned bit = 0; bit < 8; bit += 7) { /* the lowest and the highest bit of each byte */
            memcpy(bad, p.proof, sizeof bad);
            bad[i] ^= (uint8_t)(1u << bit);
            cr_expect_eq(kd_vrf_verify(&p.pub, alpha, sizeof alpha - 1, bad, beta), KD_ERR_BAD_SIGNATURE,
                         "byte %zu bit %u changed", i, bit);
        }
}

Test(vrf, wrong_key_or_alpha_is_refused)
{
    static const uint8_t alpha[] = "the draw";
    proved p, other;
    uint8_t beta[32];
    prove_one("house", alpha, sizeof alpha - 1, &p);
    prove_one("another house", alpha, sizeof alpha - 1, &other);
    cr_expect_eq(kd_vrf_verify(&other.pub, alpha, sizeof alpha - 1, p.proof, beta), KD_ERR_BAD_SIGNATURE,
                 "another key");
    cr_expect_eq(kd_vrf_verify(&p.pub, alpha, sizeof alpha - 2, p.proof, beta), KD_ERR_BAD_SIGNATURE,
                 "a shorter alpha");
    cr_expect_eq(kd_vrf_verify(&p.pub, (const uint8_t *)"the drav", 8, p.proof, beta), KD_ERR_BAD_SIGNATURE,
                 "another alpha");
    cr_expect_eq(kd_vrf_verify(&p.pub, NULL, 0, p.proof, beta), KD_ERR_BAD_SIGNATURE, "an empty alpha");
    /* the other house's own proof verifies under its key only */
    cr_expect_eq(kd_vrf_verify(&other.pub, alpha, sizeof alpha - 1, other.proof, beta), KD_OK);
    /* a public key that is no point */
    kd_pubkey bad = p.pub;
    bad.bytes[0] = 0x04;
    cr_expect_eq(kd_vrf_verify(&bad, alpha, sizeof alpha - 1, p.proof, beta), KD_ERR_BAD_PUBKEY);
    memset(bad.bytes + 1, 0xff, KD_PUBKEY_LEN - 1); /* x at or above the field's prime */
    bad.bytes[0] = 0x02;
    cr_expect_eq(kd_vrf_verify(&bad, alpha, sizeof alpha - 1, p.proof, beta), KD_ERR_BAD_PUBKEY);
}

/* secp256k1's group order q, big-endian */
static const uint8_t ORDER[32] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                  0xff, 0xff, 0xff, 0xff, 0xfe, 0xba, 0xae, 0xdc, 0xe6, 0xaf, 0x48,
                                  0xa0, 0x3b, 0xbf, 0xd2, 0x5e, 0x8c, 0xd0, 0x36, 0x41, 0x41};

Test(vrf, out_of_range_parts_are_refused)
{
    static const uint8_t alpha[] = "ranges";
    proved p;
    uint8_t beta[32], bad[KD_VRF_PROOF_LEN];
    prove_one("house", alpha, sizeof alpha - 1, &p);
    uint8_t *gamma = bad, *c = bad + 33, *s = bad + 49;

    /* Gamma off the curve: x = 5 has no y (5^3 + 7 = 132 is not a square mod p) */
    memcpy(bad, p.proof, sizeof bad);
    memset(gamma + 1, 0, 32);
    gamma[32] = 5;
    cr_expect_eq(kd_vrf_verify(&p.pub, alpha, sizeof alpha - 1, bad, beta), KD_ERR_BAD_SIGNATURE,
                 "Gamma off the curve");
    cr_expect_eq(kd_vrf_proof_to_hash(bad, beta), KD_ERR_BAD_SIGNATURE);
    memcpy(bad, p.proof, sizeof bad);
    gamma[0] = 0x04; /* not a compressed point */
    cr_expect_eq(kd_vrf_verify(&p.pub, alpha, sizeof alpha - 1, bad, beta), KD_ERR_BAD_SIGNATURE, "Gamma's prefix");
    memcpy(bad, p.proof, sizeof bad);
    memset(gamma + 1, 0xff, 32); /* x beyond the field */
    cr_expect_eq(kd_vrf_verify(&p.pub, alpha, sizeof alpha - 1, bad, beta), KD_ERR_BAD_SIGNATURE, "Gamma's x >= p");

    memcpy(bad, p.proof, sizeof bad);
    memset(c, 0, 16);
    cr_expect_eq(kd_vrf_verify(&p.pub, alpha, sizeof alpha - 1, bad, beta), KD_ERR_BAD_SIGNATURE, "c = 0");
    memcpy(bad, p.proof, sizeof bad);
    memset(s, 0, 32);
    cr_expect_eq(kd_vrf_verify(&p.pub, alpha, sizeof alpha - 1, bad, beta), KD_ERR_BAD_SIGNATURE, "s = 0");
    memcpy(bad, p.proof, sizeof bad);
    memcpy(s, ORDER, 32);
    cr_expect_eq(kd_vrf_verify(&p.pub, alpha, sizeof alpha - 1, bad, beta), KD_ERR_BAD_SIGNATURE, "s = q");
    memcpy(bad, p.proof, sizeof bad);
    memset(s, 0xff, 32);
    cr_expect_eq(kd_vrf_verify(&p.pub, alpha, sizeof alpha - 1, bad, beta), KD_ERR_BAD_SIGNATURE, "s > q");
    /* s + q, when it fits in 32 bytes, is s again mod q: still refused */
    memcpy(bad, p.proof, sizeof bad);
    unsigned carry = 0;
    for (int i = 31; i >= 0; i--) {
        unsigned sum = (unsigned)s[i] + ORDER[i] + carry;
        s[i] = (uint8_t)sum;
        carry = sum >> 8;
    }
    if (!carry)
        cr_expect_eq(kd_vrf_verify(&p.pub, alpha, sizeof alpha - 1, bad, beta), KD_ERR_BAD_SIGNATURE, "s + q");
}

Test(vrf, bad_secrets_are_refused)
{
    uint8_t zero[32] = {0}, proof[KD_VRF_PROOF_LEN];
    cr_expect_eq(kd_vrf_prove(zero, (const uint8_t *)"a", 1, proof), KD_ERR_BAD_KEY, "secret 0");
    cr_expect_eq(kd_vrf_prove(ORDER, (const uint8_t *)"a", 1, proof), KD_ERR_BAD_KEY, "secret q");
}
