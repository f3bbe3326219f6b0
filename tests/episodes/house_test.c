/*
 * house_test.c — the house's pending draw (episodes/house.h) on its own:
 * ask, reveal and claim with their refusals, each undone exactly (memcmp);
 * a reveal's draw is the VRF output of the input written out here by hand;
 * every proof that is not the pending draw's is refused (bad_proof): another
 * index, entropy, episode or key, a changed byte, a proof published before
 * a reorg; the deadline's edge; the encodings round-trip and malformed
 * bytes are refused; the commitment set in params JSON (replacing a
 * caller's), the params read with their ranges and the deadline floor.
 */
#include <string.h>

#include <criterion/criterion.h>

#include "chance.pb-c.h"
#include "episodes/house.h"

#define EPISODE 7u

/* A house committed from the seed of "house-test". */
static void setup_house(kd_house *h, uint8_t seed[KD_SECRET_SEED_LEN], uint32_t timeout)
{
    kd_house_params p;
    memset(&p, 0, sizeof p);
    kd_sha256("house-test", 10, seed);
    cr_assert_eq(kd_fair_house_key(seed, &p.key), KD_OK);
    memset(p.binding, 0xb1, sizeof p.binding);
    p.timeout = timeout;
    kd_house_init(h, &p, EPISODE);
}

static void expect_roundtrip(const kd_house *h, const kd_house_undo *u)
{
    uint8_t b[KD_HOUSE_ENCODED_LEN], ub[KD_HOUSE_UNDO_LEN];
    kd_house back;
    kd_house_undo uback;
    kd_house_encode(h, b);
    cr_assert_eq(kd_house_decode(b, &back), KD_OK);
    cr_expect(memcmp(&back, h, sizeof back) == 0, "the house round-trips");
    kd_house_undo_encode(u, ub);
    cr_assert_eq(kd_house_undo_decode(ub, &uback), KD_OK);
    cr_expect(memcmp(&uback, u, sizeof uback) == 0, "the undo round-trips");
}

/* The VRF output of draw `index` for `entropy`, from the alpha written out
 * here ("kdapp-draw-v2" || episode || index || entropy), not kd_fair_alpha. */
static void expected_draw(const kd_house *h, uint32_t index, const uint8_t *entropy, const uint8_t proof[81],
                          uint8_t out[KD_HASH_LEN])
{
    uint8_t alpha[13 + 8 + 32];
    memcpy(alpha, "kdapp-draw-v2", 13);
    kd_put_u32be(alpha + 13, EPISODE);
    kd_put_u32be(alpha + 17, index);
    memcpy(alpha + 21, entropy, 32);
    cr_assert_eq(kd_vrf_verify(&h->key, alpha, sizeof alpha, proof, out), KD_OK);
}

Test(house, ask_reveal_claim_and_their_undo)
{
    kd_house h, before;
    kd_house_undo u;
    uint8_t seed[KD_SECRET_SEED_LEN], proof[KD_VRF_PROOF_LEN], draw[KD_HASH_LEN], ent[KD_FAIR_ENTROPY_LEN];
    kd_reject rej = {{0}, {0}};
    setup_house(&h, seed, 100);
    memset(ent, 7, sizeof ent);
    cr_expect_eq(kd_house_owed_proof(&h, seed, proof), KD_ERR_NO_MOVE, "nothing owed before an ask");
    memset(proof, 0, sizeof proof);
    cr_expect_eq(kd_house_reveal(&h, proof, draw, &u, &rej), KD_ERR_RULE);
    cr_expect_str_eq(rej.code, "no_draw_pending");

    before = h;
    cr_assert_eq(kd_house_ask(&h, 0, ent, 100, &u, &rej), KD_OK);
    expect_roundtrip(&h, &u);
    cr_expect_eq(kd_house_ask(&h, 0, ent, 101, &u, &rej), KD_ERR_RULE);
    cr_expect_str_eq(rej.code, "draw_pending");
    kd_house asked = h, again = before;
    kd_house_undo ask_undo;
    cr_assert_eq(kd_house_ask(&again, 0, ent, 100, &ask_undo, &rej), KD_OK);
    cr_assert_eq(kd_house_rollback(&again, &ask_undo), KD_OK);
    cr_expect(memcmp(&again, &before, sizeof again) == 0, "the ask's undo is exact");

    /* a changed proof, then the right one; its undo gives back the pending draw */
    cr_assert_eq(kd_house_owed_proof(&h, seed, proof), KD_OK);
    proof[50] ^= 1;
    cr_expect_eq(kd_house_reveal(&h, proof, draw, &u, &rej), KD_ERR_RULE);
    cr_expect_str_eq(rej.code, "bad_proof");
    proof[50] ^= 1;
    cr_expect(memcmp(&h, &asked, sizeof h) == 0, "a refusal changes nothing");
    cr_assert_eq(kd_house_reveal(&h, proof, draw, &u, &rej), KD_OK);
    uint8_t want[KD_HASH_LEN];
    expected_draw(&h, 1, ent, proof, want);
    cr_expect_arr_eq(draw, want, KD_HASH_LEN, "draw 1 is the VRF output of (episode, 1, entropy)");
    cr_expect_eq(h.draws, 1);
    expect_roundtrip(&h, &u);
    kd_house revealed = h;
    cr_assert_eq(kd_house_rollback(&h, &u), KD_OK);
    cr_expect(memcmp(&h, &asked, sizeof h) == 0, "the reveal's undo is exact");
    cr_expect_eq(kd_house_rollback(&h, &u), KD_ERR_DECODE, "an undo that is not the last change is refused");
    h = revealed;

    /* the claim: only the asker, only from asked_daa + timeout */
    cr_assert_eq(kd_house_ask(&h, 0, ent, 200, &u, &rej), KD_OK);
    kd_house pending = h;
    cr_expect_eq(kd_house_claim(&h, 1, 300, &u, &rej), KD_ERR_RULE);
    cr_expect_str_eq(rej.code, "not_the_asker");
    cr_expect_eq(kd_house_claim(&h, 0, 299, &u, &rej), KD_ERR_RULE);
    cr_expect_str_eq(rej.code, "too_early");
    cr_expect_eq(kd_house_deadline(&h), 300);
    cr_assert_eq(kd_house_claim(&h, 0, 300, &u, &rej), KD_OK);
    expect_roundtrip(&h, &u);
    cr_expect_eq(h.draws, 1, "a claim draws nothing");
    cr_assert_eq(kd_house_rollback(&h, &u), KD_OK);
    cr_expect(memcmp(&h, &pending, sizeof h) == 0, "the claim's undo is exact");
}

/* Every proof but the pending draw's is refused: the house has exactly one
 * answer for each draw, and it cannot answer another draw with it. */
Test(house, only_the_pending_draws_proof_verifies)
{
    kd_house h;
    kd_house_undo u;
    uint8_t seed[KD_SECRET_SEED_LEN], proof[KD_VRF_PROOF_LEN], draw[KD_HASH_LEN], ent[32], other[32];
    kd_reject rej = {{0}, {0}};
    setup_house(&h, seed, 100);
    memset(ent, 3, sizeof ent);
    memset(other, 4, sizeof other);
    cr_assert_eq(kd_house_ask(&h, 0, ent, 10, &u, &rej), KD_OK);
    const kd_house asked = h;
    struct {
        uint32_t episode, index;
        const uint8_t *entropy;
        const char *what;
    } wrong[] = {{EPISODE, 2, ent, "another index"},
                 {EPISODE, 1, other, "another entropy"},
                 {EPISODE + 1, 1, ent, "another episode"}};
    for (size_t i = 0; i < sizeof wrong / sizeof wrong[0]; i++) {
        cr_assert_eq(kd_fair_prove(seed, wrong[i].episode, wrong[i].index, wrong[i].entropy, proof), KD_OK);
        cr_expect_eq(kd_house_reveal(&h, proof, draw, &u, &rej), KD_ERR_RULE, "%s", wrong[i].what);
        cr_expect_str_eq(rej.code, "bad_proof", "%s", wrong[i].what);
    }
    uint8_t stranger[KD_SECRET_SEED_LEN];
    kd_sha256("another house", 13, stranger);
    cr_assert_eq(kd_fair_prove(stranger, EPISODE, 1, ent, proof), KD_OK);
    cr_expect_eq(kd_house_reveal(&h, proof, draw, &u, &rej), KD_ERR_RULE, "another key");
    cr_expect(memcmp(&h, &asked, sizeof h) == 0, "refusals change nothing");
    cr_assert_eq(kd_fair_prove(seed, EPISODE, 1, ent, proof), KD_OK);
    cr_expect_eq(kd_house_reveal(&h, proof, draw, &u, &rej), KD_OK, "the pending draw's own proof");
}

/*
 * Issue 24, B5: bet, the house reveals draw i, a reorg removes the ask and
 * the reveal, and the player asks draw i again with entropy ground against
 * what was published. With the hash chain the published link fixed the
 * draw for any entropy (SHA-256 of link, entropy, id, i), so grinding won
 * every time. Here the player grinds its entropy until that formula, fed
 * the published output in place of the link, says "a six"; then the house
 * answers the new ask: a six comes one time in six, and the published
 * proof is refused for the new ask.
 */
Test(house, a_reorg_cannot_replay_a_draw)
{
    kd_house h;
    kd_house_undo ask_u, rev_u;
    uint8_t seed[KD_SECRET_SEED_LEN], published[KD_VRF_PROOF_LEN], proof[KD_VRF_PROOF_LEN];
    uint8_t beta[KD_HASH_LEN], draw[KD_HASH_LEN], ent[32] = {0};
    kd_reject rej = {{0}, {0}};
    setup_house(&h, seed, 100);
    unsigned sixes = 0, tries = 600;
    for (unsigned t = 0; t < tries; t++) {
        /* the bet and the reveal, published; then the reorg takes both back */
        kd_put_u32be(ent, t);
        const kd_house before = h;
        cr_assert_eq(kd_house_ask(&h, 0, ent, 10, &ask_u, &rej), KD_OK);
        cr_assert_eq(kd_house_owed_proof(&h, seed, published), KD_OK);
        cr_assert_eq(kd_house_reveal(&h, published, beta, &rev_u, &rej), KD_OK);
        cr_assert_eq(kd_house_rollback(&h, &rev_u), KD_OK);
        cr_assert_eq(kd_house_rollback(&h, &ask_u), KD_OK);
        cr_assert(memcmp(&h, &before, sizeof h) == 0);
        /* grind: the first entropy for which the public predictions give a six */
        uint8_t ground[32];
        for (uint32_t g = 0;; g++) {
            uint8_t buf[13 + 32 + 32 + 8], predicted[KD_HASH_LEN];
            memcpy(ground, ent, 32);
            kd_put_u32be(ground + 28, g + 1);
            memcpy(buf, "kdapp-draw-v1", 13);
            memcpy(buf + 13, beta, 32);
            memcpy(buf + 45, ground, 32);
            kd_put_u32be(buf + 77, EPISODE);
            kd_put_u32be(buf + 81, 1);
            kd_sha256(buf, sizeof buf, predicted);
            kd_fair_stream s;
            kd_fair_stream_init(&s, predicted);
            if (kd_fair_below(&s, 6) == 5)
                break;
        }
        cr_assert_eq(kd_house_ask(&h, 0, ground, 11, &ask_u, &rej), KD_OK);
        cr_expect_eq(kd_house_reveal(&h, published, draw, &rev_u, &rej), KD_ERR_RULE,
                     "the proof published before the reorg does not answer the new ask");
        cr_assert_eq(kd_house_owed_proof(&h, seed, proof), KD_OK);
        cr_assert_eq(kd_house_reveal(&h, proof, draw, &rev_u, &rej), KD_OK);
        kd_fair_stream s;
        kd_fair_stream_init(&s, draw);
        sixes += kd_fair_below(&s, 6) == 5;
        cr_assert_eq(kd_house_rollback(&h, &rev_u), KD_OK);
        cr_assert_eq(kd_house_rollback(&h, &ask_u), KD_OK);
    }
    /* 600 tries at p = 1/6: mean 100, sd 9.1; 5 sd either way */
    cr_expect(sixes >= 55 && sixes <= 145, "sixes at chance, not at will: %u of %u", sixes, tries);
}

Test(house, malformed_bytes_are_refused)
{
    kd_house h, out;
    uint8_t seed[KD_SECRET_SEED_LEN], b[KD_HOUSE_ENCODED_LEN], ub[KD_HOUSE_UNDO_LEN] = {0};
    const size_t pending_at = 12 + KD_PUBKEY_LEN + KD_SECRET_BINDING_LEN;
    setup_house(&h, seed, 100);
    kd_house_encode(&h, b);
    cr_assert_eq(kd_house_decode(b, &out), KD_OK);
    b[pending_at] = 2; /* pending must be 0 or 1 */
    cr_expect_eq(kd_house_decode(b, &out), KD_ERR_DECODE);
    kd_house_encode(&h, b);
    b[pending_at + 2] = 1; /* entropy without a pending draw */
    cr_expect_eq(kd_house_decode(b, &out), KD_ERR_DECODE);
    kd_house_encode(&h, b);
    kd_put_u32be(b + 4, KD_DEADLINE_MIN - 1); /* a timeout under the floor */
    cr_expect_eq(kd_house_decode(b, &out), KD_ERR_DECODE);
    kd_house_encode(&h, b);
    b[12] = 0x04; /* not a compressed key */
    cr_expect_eq(kd_house_decode(b, &out), KD_ERR_DECODE);
    kd_house_undo u;
    cr_expect_eq(kd_house_undo_decode(ub, &u), KD_ERR_DECODE, "kind 0");
    ub[0] = 9;
    cr_expect_eq(kd_house_undo_decode(ub, &u), KD_ERR_DECODE, "kind 9");
}

Test(house, commitment_and_params_json)
{
    uint8_t seed[KD_SECRET_SEED_LEN], binding[KD_SECRET_BINDING_LEN];
    char why[256] = "";
    kd_sha256("house-test", 10, seed);
    memset(binding, 0x5a, sizeof binding);
    /* a caller's key and binding are replaced: the house makes its own */
    json_t *p = json_pack("{s:s, s:s}", "house_key", "02ab", "house_binding", "cd");
    cr_assert_eq(kd_house_commit_json(seed, binding, p, why, sizeof why), KD_OK, "%s", why);
    kd_house_params hp;
    cr_assert_eq(kd_house_params_from_json(p, &hp, why, sizeof why), KD_OK, "%s", why);
    kd_pubkey want;
    cr_assert_eq(kd_fair_house_key(seed, &want), KD_OK);
    cr_expect_arr_eq(hp.key.bytes, want.bytes, KD_PUBKEY_LEN, "the key is the VRF key of the seed");
    cr_expect_arr_eq(hp.binding, binding, KD_SECRET_BINDING_LEN);
    cr_expect_eq(hp.timeout, KD_HOUSE_TIMEOUT_DEFAULT);

    /* the floor: 99 refused naming it, 100 taken */
    json_object_set_new(p, "reveal_timeout", json_integer(KD_DEADLINE_MIN - 1));
    cr_expect_eq(kd_house_params_from_json(p, &hp, why, sizeof why), KD_ERR_BAD_PARAMS);
    cr_expect(strstr(why, "reveal_timeout 99") && strstr(why, "100"), "%s", why);
    json_object_set_new(p, "reveal_timeout", json_integer(1));
    cr_expect_eq(kd_house_params_from_json(p, &hp, why, sizeof why), KD_ERR_BAD_PARAMS);
    json_object_set_new(p, "reveal_timeout", json_integer(KD_DEADLINE_MIN));
    cr_expect_eq(kd_house_params_from_json(p, &hp, why, sizeof why), KD_OK, "%s", why);
    cr_expect_eq(hp.timeout, KD_DEADLINE_MIN);
    json_object_set_new(p, "reveal_timeout", json_integer(KD_HOUSE_TIMEOUT_MAX + 1));
    cr_expect_eq(kd_house_params_from_json(p, &hp, why, sizeof why), KD_ERR_BAD_PARAMS);

    /* a key that is no point, a binding of the wrong length */
    json_object_set_new(p, "reveal_timeout", json_integer(600));
    json_object_set_new(p, "house_key",
                        json_string("04"
                                    "0000000000000000000000000000000000000000000000000000000000000000"));
    cr_expect_eq(kd_house_params_from_json(p, &hp, why, sizeof why), KD_ERR_BAD_PARAMS);
    cr_expect(strstr(why, "house_key"), "%s", why);
    cr_assert_eq(kd_house_commit_json(seed, binding, p, why, sizeof why), KD_OK);
    json_object_set_new(p, "house_binding", json_string("abcd"));
    cr_expect_eq(kd_house_params_from_json(p, &hp, why, sizeof why), KD_ERR_BAD_PARAMS);
    cr_expect(strstr(why, "house_binding"), "%s", why);
    json_decref(p);
    json_t *not_object = json_array();
    cr_expect_eq(kd_house_commit_json(seed, binding, not_object, why, sizeof why), KD_ERR_BAD_PARAMS);
    json_decref(not_object);
}

/* The rules refuse a timeout under the floor in the wire params too (a raw
 * transaction), and fill the default for 0. */
Test(house, the_floor_holds_in_the_wire_params)
{
    uint8_t seed[KD_SECRET_SEED_LEN];
    kd_house_params hp, back;
    kd_reject rej = {{0}, {0}};
    kd_sha256("house-test", 10, seed);
    memset(&hp, 0, sizeof hp);
    cr_assert_eq(kd_fair_house_key(seed, &hp.key), KD_OK);
    Kdapp__HouseParams m = KDAPP__HOUSE_PARAMS__INIT;
    kd_house_params_to_pb(&hp, &m);
    m.reveal_timeout = 0;
    cr_assert_eq(kd_house_params_from_pb(&m, &back, &rej), KD_OK, "%s", rej.detail);
    cr_expect_eq(back.timeout, KD_HOUSE_TIMEOUT_DEFAULT);
    m.reveal_timeout = 1;
    cr_expect_eq(kd_house_params_from_pb(&m, &back, &rej), KD_ERR_BAD_PARAMS);
    cr_expect(strstr(rej.detail, "100"), "%s", rej.detail);
    m.reveal_timeout = KD_DEADLINE_MIN;
    cr_expect_eq(kd_house_params_from_pb(&m, &back, &rej), KD_OK);
    cr_expect_eq(kd_house_params_from_pb(NULL, &back, &rej), KD_ERR_BAD_PARAMS, "no house at all");
    m.key.len = 32;
    cr_expect_eq(kd_house_params_from_pb(&m, &back, &rej), KD_ERR_BAD_PARAMS, "a short key");
}
