/*
 * secrets_test.c — a seat's secret bound to its commitment (engine/crypto.h
 * kd_secret_binding_*, kd_secret_seed; episodes/secrets.h): the binding's
 * layout recomputed here by hand; a key holder recognises only the
 * bindings it made for its own store, type, episode and seat; and the
 * attacks of issue 24 that these stop:
 *   B2/B3  a caller-chosen house commitment: kd_seat_commit replaces it, and
 *          a key holder finds no seed for a commitment it did not make (the
 *          duties thread never reveals for it);
 *   B4     two stores, the same key directory, the same episode id: the
 *          house keys are unrelated, a proof from one store is refused by
 *          the other, and neither acts on the other's commitment.
 */
#include <string.h>

#include <criterion/criterion.h>

#include "episodes/dice/dice.h"
#include "episodes/secrets.h"
#include "type_support.h"

static const uint8_t STORE_A[KD_STORE_ID_LEN] = {'s', 't', 'o', 'r', 'e', '-', 'a'};
static const uint8_t STORE_B[KD_STORE_ID_LEN] = {'s', 't', 'o', 'r', 'e', '-', 'b'};

Test(secrets, the_binding_is_laid_out_as_documented)
{
    kd_key key;
    cr_assert_eq(kd_key_test("house", &key), KD_OK);
    uint8_t nonce[KD_SECRET_NONCE_LEN], binding[KD_SECRET_BINDING_LEN], buf[256], h[32], seed[32], want[32];
    memset(nonce, 0x42, sizeof nonce);
    kd_secret_binding_make(&key, STORE_A, "dice", 0x01020304u, 1, nonce, binding);
    size_t n = 0;
    memcpy(buf, "kdapp/secret-binding/v1", 23);
    n += 23;
    memcpy(buf + n, key.secret, 32);
    n += 32;
    memcpy(buf + n, STORE_A, 16);
    n += 16;
    memcpy(buf + n, "dice\0\x01\x02\x03\x04\x01", 10);
    n += 10;
    memcpy(buf + n, nonce, 16);
    n += 16;
    kd_sha256(buf, n, h);
    cr_expect_arr_eq(binding, nonce, 16, "the nonce first");
    cr_expect_arr_eq(binding + 16, h, 16, "then 16 bytes of the tag");
    n = 0;
    memcpy(buf, "kdapp-secret-v2", 15);
    n += 15;
    memcpy(buf + n, key.secret, 32);
    n += 32;
    memcpy(buf + n, "dice\0\x01\x02\x03\x04\x01", 10);
    n += 10;
    memcpy(buf + n, binding, 32);
    n += 32;
    kd_sha256(buf, n, want);
    kd_secret_seed(&key, "dice", 0x01020304u, 1, binding, seed);
    cr_expect_arr_eq(seed, want, 32, "the seed of the key and the binding");
}

Test(secrets, a_key_recognises_only_its_own_bindings)
{
    kd_key key, other;
    cr_assert_eq(kd_key_test("house", &key), KD_OK);
    cr_assert_eq(kd_key_test("someone", &other), KD_OK);
    uint8_t b[KD_SECRET_BINDING_LEN], c[KD_SECRET_BINDING_LEN];
    cr_assert_eq(kd_secret_binding_fresh(&key, STORE_A, "dice", 9, 1, b), KD_OK);
    cr_assert_eq(kd_secret_binding_fresh(&key, STORE_A, "dice", 9, 1, c), KD_OK);
    cr_expect(memcmp(b, c, sizeof b) != 0, "every binding is fresh");
    cr_expect(kd_secret_binding_ours(&key, STORE_A, "dice", 9, 1, b));
    cr_expect(!kd_secret_binding_ours(&other, STORE_A, "dice", 9, 1, b), "another key");
    cr_expect(!kd_secret_binding_ours(&key, STORE_B, "dice", 9, 1, b), "another store");
    cr_expect(!kd_secret_binding_ours(&key, STORE_A, "slots", 9, 1, b), "another type");
    cr_expect(!kd_secret_binding_ours(&key, STORE_A, "dice", 10, 1, b), "another episode");
    cr_expect(!kd_secret_binding_ours(&key, STORE_A, "dice", 9, 0, b), "another seat");
    for (size_t i = 0; i < sizeof b; i++) {
        memcpy(c, b, sizeof c);
        c[i] ^= 0x10;
        cr_expect(!kd_secret_binding_ours(&key, STORE_A, "dice", 9, 1, c), "byte %zu changed", i);
    }
    uint8_t s1[32], s2[32];
    kd_secret_seed(&key, "dice", 9, 1, b, s1);
    kd_secret_seed(&key, "dice", 9, 1, b, s2);
    cr_expect_arr_eq(s1, s2, 32, "the seed is a function of the key and the binding");
    c[0] = b[0] ^ 1;
    memcpy(c + 1, b + 1, sizeof b - 1);
    kd_secret_seed(&key, "dice", 9, 1, c, s2);
    cr_expect(memcmp(s1, s2, 32) != 0, "another binding, another seed");
}

/* A dice episode of `params` (JSON, the commitment set by the caller or
 * by kd_seat_commit) for test:player and test:house, in `state`. */
static void create(json_t *params, kd_dice_state *state)
{
    kd_key player, house;
    cr_assert_eq(kd_key_test("player", &player), KD_OK);
    cr_assert_eq(kd_key_test("house", &house), KD_OK);
    kd_participants parts = {.count = 2};
    parts.keys[0] = player.pub;
    parts.keys[1] = house.pub;
    kd_buf raw;
    kd_buf_init(&raw);
    char why[256] = "";
    cr_assert_eq(kd_dice_type.params_from_json(params, &raw, why, sizeof why), KD_OK, "%s", why);
    kd_reject rej = {{0}, {0}};
    kd_block_meta meta = {.daa = 1, .episode_id = 9};
    cr_assert_eq(kd_dice_ops.init(state, &parts, raw.data, raw.len, &meta, &rej), KD_OK, "%s", rej.detail);
    kd_buf_fini(&raw);
}

/* Issue 24, B2/B3: a caller chose the house's commitment (a bogus one, or
 * one copied from elsewhere). Where the key holder commits, its own
 * replaces the caller's; where the episode carries a commitment the key
 * holder did not make, it finds no seed, so it never reveals for it. */
Test(secrets, a_commitment_the_house_did_not_make_is_never_acted_on)
{
    kd_key house;
    cr_assert_eq(kd_key_test("house", &house), KD_OK);
    char why[256] = "";
    /* the caller's bogus commitment, replaced */
    json_t *p =
        type_test_parse("{\"house_key\": \"0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798\", "
                        "\"house_binding\": \"00000000000000000000000000000000000000000000000000000000000000ff\", "
                        "\"reveal_timeout\": 100}");
    json_t *bogus = json_deep_copy(p);
    cr_assert_eq(kd_seat_commit(&kd_dice_type, &house, STORE_A, 9, KD_DICE_HOUSE, p, why, sizeof why), KD_OK, "%s",
                 why);
    cr_expect(!json_equal(json_object_get(p, "house_key"), json_object_get(bogus, "house_key")), "replaced");
    kd_dice_state state;
    create(p, &state);
    uint8_t seed[KD_SECRET_SEED_LEN];
    cr_expect_eq(kd_seat_seed(&kd_dice_type, &house, STORE_A, 9, KD_DICE_HOUSE, &state, seed), KD_OK);
    cr_expect_eq(kd_seat_seed(&kd_dice_type, &house, STORE_A, 9, KD_DICE_PLAYER, &state, seed), KD_ERR_UNSUPPORTED);
    /* an episode created with the bogus commitment: the house's key holder has no seed for it */
    create(bogus, &state);
    cr_expect_eq(kd_seat_seed(&kd_dice_type, &house, STORE_A, 9, KD_DICE_HOUSE, &state, seed), KD_ERR_NOT_FOUND,
                 "a bogus binding is not the house's");
    json_decref(p);
    json_decref(bogus);
}

/* Issue 24, B4: two stores with the same key directory create the same
 * episode id. The house's keys are unrelated (a proof published in one
 * says nothing of the other and does not verify there), and each key
 * holder acts only on its own store's commitment. */
Test(secrets, two_stores_with_the_same_keys_share_no_secret)
{
    kd_key house;
    cr_assert_eq(kd_key_test("house", &house), KD_OK);
    char why[256] = "";
    json_t *pa = json_object(), *pb = json_object();
    cr_assert_eq(kd_seat_commit(&kd_dice_type, &house, STORE_A, 9, KD_DICE_HOUSE, pa, why, sizeof why), KD_OK);
    cr_assert_eq(kd_seat_commit(&kd_dice_type, &house, STORE_B, 9, KD_DICE_HOUSE, pb, why, sizeof why), KD_OK);
    kd_dice_state a, b;
    create(pa, &a);
    create(pb, &b);
    cr_expect(memcmp(a.house.key.bytes, b.house.key.bytes, KD_PUBKEY_LEN) != 0, "unrelated house keys");
    uint8_t seed_a[KD_SECRET_SEED_LEN], seed_b[KD_SECRET_SEED_LEN], proof[KD_VRF_PROOF_LEN], draw[32];
    cr_assert_eq(kd_seat_seed(&kd_dice_type, &house, STORE_A, 9, KD_DICE_HOUSE, &a, seed_a), KD_OK);
    cr_assert_eq(kd_seat_seed(&kd_dice_type, &house, STORE_B, 9, KD_DICE_HOUSE, &b, seed_b), KD_OK);
    cr_expect(memcmp(seed_a, seed_b, sizeof seed_a) != 0, "unrelated secrets");
    cr_expect_eq(kd_seat_seed(&kd_dice_type, &house, STORE_A, 9, KD_DICE_HOUSE, &b, seed_a), KD_ERR_NOT_FOUND,
                 "store A's key holder does not act on store B's commitment");
    cr_expect_eq(kd_seat_seed(&kd_dice_type, &house, STORE_B, 9, KD_DICE_HOUSE, &a, seed_a), KD_ERR_NOT_FOUND);
    /* a draw proved in store B (the same id, index and entropy) is refused in store A */
    uint8_t entropy[32] = {1, 2, 3};
    cr_assert_eq(kd_fair_prove(seed_b, KD_FAIR_DRAW_V3, 9, 1, entropy, proof), KD_OK);
    cr_expect_eq(kd_fair_verify(&b.house.key, KD_FAIR_DRAW_V3, 9, 1, entropy, proof, draw), KD_OK);
    cr_expect_eq(kd_fair_verify(&a.house.key, KD_FAIR_DRAW_V3, 9, 1, entropy, proof, draw), KD_ERR_BAD_SIGNATURE);
    json_decref(pa);
    json_decref(pb);
}

Test(secrets, a_type_without_secrets_commits_nothing)
{
    kd_type_table t;
    kd_type_table_init(&t);
    const kd_episode_type *ttt = kd_type_table_find(&t, "tictactoe");
    cr_assert(ttt);
    kd_key key;
    cr_assert_eq(kd_key_test("house", &key), KD_OK);
    json_t *p = json_object();
    char why[64];
    uint8_t seed[32];
    cr_expect_eq(kd_seat_commit(ttt, &key, STORE_A, 1, 0, p, why, sizeof why), KD_ERR_UNSUPPORTED);
    cr_expect_eq(json_object_size(p), 0, "nothing set");
    cr_expect_eq(kd_seat_seed(ttt, &key, STORE_A, 1, 0, NULL, seed), KD_ERR_UNSUPPORTED);
    json_decref(p);
}
