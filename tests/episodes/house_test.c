/*
 * house_test.c — the house's pending draw (episodes/house.h) on its own:
 * ask, reveal and claim with their refusals, each undone exactly (memcmp),
 * the deadline's edge, the encodings round-trip and malformed bytes
 * refused, the commit added to params JSON (and kept when present), the
 * params read with their ranges.
 */
#include <string.h>

#include <criterion/criterion.h>

#include "episodes/house.h"

static void setup_house(kd_house *h, uint8_t seed[KD_SECRET_SEED_LEN])
{
    uint8_t commit[KD_FAIR_LINK_LEN];
    kd_sha256("house-test", 10, seed);
    cr_assert_eq(kd_fair_link(seed, 4, 0, commit), KD_OK);
    kd_house_init(h, commit, 4, 10);
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

Test(house, ask_reveal_claim_and_their_undo)
{
    kd_house h, before;
    kd_house_undo u;
    uint8_t seed[KD_SECRET_SEED_LEN], link[KD_FAIR_LINK_LEN], draw[KD_HASH_LEN], ent[KD_FAIR_ENTROPY_LEN];
    kd_reject rej = {{0}, {0}};
    setup_house(&h, seed);
    memset(ent, 7, sizeof ent);
    cr_expect_eq(kd_house_owed_link(&h, seed, link), KD_ERR_NO_MOVE, "nothing owed before an ask");
    cr_expect_eq(kd_house_reveal(&h, link, 1, draw, &u, &rej), KD_ERR_RULE);
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

    /* a wrong link, then the right one; its undo gives back the pending draw */
    cr_assert_eq(kd_house_owed_link(&h, seed, link), KD_OK);
    link[0] ^= 1;
    cr_expect_eq(kd_house_reveal(&h, link, 1, draw, &u, &rej), KD_ERR_RULE);
    cr_expect_str_eq(rej.code, "wrong_link");
    link[0] ^= 1;
    cr_expect(memcmp(&h, &asked, sizeof h) == 0, "a refusal changes nothing");
    cr_assert_eq(kd_house_reveal(&h, link, 1, draw, &u, &rej), KD_OK);
    uint8_t want[KD_HASH_LEN];
    kd_fair_draw(link, ent, 1, 1, want);
    cr_expect_arr_eq(draw, want, KD_HASH_LEN, "draw 1 mixes link 1, the entropy, the episode and the index");
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
    cr_expect_eq(kd_house_claim(&h, 0, 209, &u, &rej), KD_ERR_RULE);
    cr_expect_str_eq(rej.code, "deadline_not_passed");
    cr_expect_eq(kd_house_deadline(&h), 210);
    cr_assert_eq(kd_house_claim(&h, 0, 210, &u, &rej), KD_OK);
    expect_roundtrip(&h, &u);
    cr_expect_eq(h.chain.revealed, 1, "a claim reveals nothing");
    cr_assert_eq(kd_house_rollback(&h, &u), KD_OK);
    cr_expect(memcmp(&h, &pending, sizeof h) == 0, "the claim's undo is exact");
}

Test(house, the_chain_runs_out)
{
    kd_house h;
    kd_house_undo u;
    uint8_t seed[KD_SECRET_SEED_LEN], link[KD_FAIR_LINK_LEN], draw[KD_HASH_LEN], ent[KD_FAIR_ENTROPY_LEN] = {0};
    kd_reject rej = {{0}, {0}};
    setup_house(&h, seed);
    for (int i = 0; i < 4; i++) {
        cr_assert_eq(kd_house_ask(&h, 0, ent, (uint64_t)i, &u, &rej), KD_OK);
        cr_assert_eq(kd_house_owed_link(&h, seed, link), KD_OK);
        cr_assert_eq(kd_house_reveal(&h, link, 1, draw, &u, &rej), KD_OK);
    }
    cr_expect_eq(kd_house_ask(&h, 0, ent, 9, &u, &rej), KD_ERR_RULE);
    cr_expect_str_eq(rej.code, "chain_exhausted");
}

Test(house, malformed_bytes_are_refused)
{
    kd_house h, out;
    uint8_t seed[KD_SECRET_SEED_LEN], b[KD_HOUSE_ENCODED_LEN], ub[KD_HOUSE_UNDO_LEN] = {0};
    setup_house(&h, seed);
    kd_house_encode(&h, b);
    b[32 + 4 + 4 + 4] = 2; /* pending must be 0 or 1 */
    cr_expect_eq(kd_house_decode(b, &out), KD_ERR_DECODE);
    kd_house_encode(&h, b);
    b[32 + 4 + 4 + 4 + 2] = 1; /* entropy without a pending draw */
    cr_expect_eq(kd_house_decode(b, &out), KD_ERR_DECODE);
    kd_house_encode(&h, b);
    kd_put_u32be(b + 32, 5); /* more revealed than the chain's 4 links */
    cr_expect_eq(kd_house_decode(b, &out), KD_ERR_DECODE);
    kd_house_undo u;
    cr_expect_eq(kd_house_undo_decode(ub, &u), KD_ERR_DECODE, "kind 0");
    ub[0] = 9;
    cr_expect_eq(kd_house_undo_decode(ub, &u), KD_ERR_DECODE, "kind 9");
}

Test(house, commit_and_params_json)
{
    uint8_t seed[KD_SECRET_SEED_LEN], commit[KD_FAIR_LINK_LEN], want[KD_FAIR_LINK_LEN];
    char why[256] = "";
    kd_sha256("house-test", 10, seed);
    json_t *p = json_pack("{s:i}", "chain_length", 16);
    cr_assert_eq(kd_house_commit_json(seed, p, why, sizeof why), KD_OK, "%s", why);
    uint32_t length = 0, timeout = 0;
    cr_assert_eq(kd_house_params_from_json(p, commit, &length, &timeout, why, sizeof why), KD_OK, "%s", why);
    cr_assert_eq(kd_fair_link(seed, 16, 0, want), KD_OK);
    cr_expect_arr_eq(commit, want, KD_FAIR_LINK_LEN, "the commit is h0 of a 16-link chain");
    cr_expect_eq(length, 16);
    cr_expect_eq(timeout, KD_HOUSE_TIMEOUT_DEFAULT);
    json_object_set_new(p, "house_commit", json_string("ab"));
    cr_assert_eq(kd_house_commit_json(seed, p, why, sizeof why), KD_OK, "a commit already there is kept");
    cr_expect_str_eq(json_string_value(json_object_get(p, "house_commit")), "ab");
    cr_expect_eq(kd_house_params_from_json(p, commit, &length, &timeout, why, sizeof why), KD_ERR_BAD_PARAMS);
    cr_expect(strstr(why, "house_commit"), "%s", why);
    json_decref(p);
    p = json_pack("{s:i}", "chain_length", 70000);
    cr_expect_eq(kd_house_commit_json(seed, p, why, sizeof why), KD_ERR_BAD_PARAMS);
    cr_expect(strstr(why, "chain_length"), "%s", why);
    json_decref(p);
}
