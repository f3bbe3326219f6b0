/*
 * house_test.c — the house's pending draw (episodes/house.h) on its own:
 * ask, reveal and claim with their refusals, each undone exactly (memcmp);
 * a reveal's draw is the VRF output of the input written out here by hand
 * ("kdapp-draw-v3" || episode || index || SHA-256 of the ask's bytes);
 * every proof that is not the pending draw's is refused (bad_proof): another
 * index, ask, episode, input version or key, a changed byte, a proof
 * published before a reorg, and (issue 37, R1) the proof of an ask whose
 * entropy is the same but whose bets changed; episodes created before
 * issue 37 keep their input ("kdapp-draw-v2" || ... || entropy) and their
 * bytes; the reveal depth moves the claim deadline; the encodings
 * round-trip and malformed bytes are refused; the commitment and the
 * house's terms set in params JSON (replacing a caller's), the params read
 * with their ranges and the deadline floor.
 */
#include <string.h>

#include <criterion/criterion.h>

#include "chance.pb-c.h"
#include "episodes/house.h"

#define EPISODE 7u
#define HEAD_VERSION 2 /* the chance types' state version (kd_house_head_encode) */

/* A house committed from the seed of "house-test", drawing with input
 * `version` and reveal depth `depth`. */
static void setup_house(kd_house *h, uint8_t seed[KD_SECRET_SEED_LEN], uint32_t timeout, uint32_t version,
                        uint32_t depth)
{
    kd_house_params p;
    memset(&p, 0, sizeof p);
    kd_sha256("house-test", 10, seed);
    cr_assert_eq(kd_fair_house_key(seed, &p.key), KD_OK);
    memset(p.binding, 0xb1, sizeof p.binding);
    p.timeout = timeout;
    p.draw_input = version;
    p.depth = depth;
    kd_house_init(h, &p, EPISODE);
}

/* The house through the state's head and the undo through its bytes. */
static void expect_roundtrip(const kd_house *h, const kd_house_undo *u)
{
    uint8_t b[KD_HOUSE_HEAD_MAX], ub[KD_HOUSE_UNDO_LEN];
    kd_pubkey players[2], back_players[2];
    memset(players, 0x02, sizeof players);
    kd_house back;
    kd_house_undo uback;
    size_t n = kd_house_head_encode(HEAD_VERSION, h, players, b), used = 0;
    cr_expect_eq(n, h->draw_input == KD_FAIR_DRAW_V2 ? KD_HOUSE_HEAD_LEN : KD_HOUSE_HEAD_MAX);
    cr_assert_eq(kd_house_head_decode(b, n, HEAD_VERSION, &back, back_players, &used), KD_OK);
    cr_expect_eq(used, n);
    cr_expect(memcmp(&back, h, sizeof back) == 0, "the house round-trips");
    kd_house_undo_encode(u, ub);
    cr_assert_eq(kd_house_undo_decode(ub, &uback), KD_OK);
    cr_expect(memcmp(&uback, u, sizeof uback) == 0, "the undo round-trips");
}

/* The ask `command` (its bytes, as the engine gives them to the rules) with
 * its entropy: SHA-256 of the bytes in `digest`. */
static void ask_of(const char *command, uint8_t entropy[32], uint8_t digest[32])
{
    memset(entropy, 0, 32);
    memcpy(entropy, command, strlen(command) < 32 ? strlen(command) : 32);
    kd_fair_ask_digest((const uint8_t *)command, strlen(command), digest);
}

/* The VRF output of draw `index` for the ask `command`, from the alpha
 * written out here ("kdapp-draw-v3" || episode || index || SHA-256 of the
 * ask's bytes), not kd_fair_alpha. */
static void expected_draw(const kd_house *h, uint32_t index, const char *command, const uint8_t proof[81],
                          uint8_t out[KD_HASH_LEN])
{
    uint8_t alpha[13 + 8 + 32];
    memcpy(alpha, "kdapp-draw-v3", 13);
    kd_put_u32be(alpha + 13, EPISODE);
    kd_put_u32be(alpha + 17, index);
    kd_sha256(command, strlen(command), alpha + 21);
    cr_assert_eq(kd_vrf_verify(&h->key, alpha, sizeof alpha, proof, out), KD_OK);
}

Test(house, ask_reveal_claim_and_their_undo)
{
    kd_house h, before;
    kd_house_undo u;
    uint8_t seed[KD_SECRET_SEED_LEN], proof[KD_VRF_PROOF_LEN], draw[KD_HASH_LEN], ent[KD_FAIR_ENTROPY_LEN],
        dig[KD_FAIR_ASK_LEN];
    kd_reject rej = {{0}, {0}};
    setup_house(&h, seed, 100, KD_FAIR_DRAW_V3, 0);
    ask_of("roll 3d6 entropy 7", ent, dig);
    cr_expect_eq(kd_house_owed_proof(&h, seed, proof), KD_ERR_NO_MOVE, "nothing owed before an ask");
    memset(proof, 0, sizeof proof);
    cr_expect_eq(kd_house_reveal(&h, proof, draw, &u, &rej), KD_ERR_RULE);
    cr_expect_str_eq(rej.code, "no_draw_pending");

    before = h;
    cr_assert_eq(kd_house_ask(&h, 0, ent, dig, 100, &u, &rej), KD_OK);
    cr_expect_arr_eq(h.ask, dig, KD_FAIR_ASK_LEN, "the draw's input ends with the ask's digest");
    expect_roundtrip(&h, &u);
    cr_expect_eq(kd_house_ask(&h, 0, ent, dig, 101, &u, &rej), KD_ERR_RULE);
    cr_expect_str_eq(rej.code, "draw_pending");
    kd_house asked = h, again = before;
    kd_house_undo ask_undo;
    cr_assert_eq(kd_house_ask(&again, 0, ent, dig, 100, &ask_undo, &rej), KD_OK);
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
    expected_draw(&h, 1, "roll 3d6 entropy 7", proof, want);
    cr_expect_arr_eq(draw, want, KD_HASH_LEN, "draw 1 is the VRF output of (episode, 1, the ask's digest)");
    cr_expect_eq(h.draws, 1);
    expect_roundtrip(&h, &u);
    kd_house revealed = h;
    cr_assert_eq(kd_house_rollback(&h, &u), KD_OK);
    cr_expect(memcmp(&h, &asked, sizeof h) == 0, "the reveal's undo is exact");
    cr_expect_eq(kd_house_rollback(&h, &u), KD_ERR_DECODE, "an undo that is not the last change is refused");
    h = revealed;

    /* the claim: only the asker, only from asked_daa + timeout */
    cr_assert_eq(kd_house_ask(&h, 0, ent, dig, 200, &u, &rej), KD_OK);
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
    uint8_t seed[KD_SECRET_SEED_LEN], proof[KD_VRF_PROOF_LEN], draw[KD_HASH_LEN], ent[32], dig[32], other[32];
    kd_reject rej = {{0}, {0}};
    setup_house(&h, seed, 100, KD_FAIR_DRAW_V3, 0);
    ask_of("bets red 1", ent, dig);
    memset(other, 4, sizeof other);
    cr_assert_eq(kd_house_ask(&h, 0, ent, dig, 10, &u, &rej), KD_OK);
    const kd_house asked = h;
    struct {
        uint32_t version, episode, index;
        const uint8_t *ask;
        const char *what;
    } wrong[] = {{KD_FAIR_DRAW_V3, EPISODE, 2, dig, "another index"},
                 {KD_FAIR_DRAW_V3, EPISODE, 1, other, "another ask"},
                 {KD_FAIR_DRAW_V3, EPISODE, 1, ent, "the entropy alone"},
                 {KD_FAIR_DRAW_V2, EPISODE, 1, ent, "the input before issue 37"},
                 {KD_FAIR_DRAW_V2, EPISODE, 1, dig, "the other version's tag"},
                 {KD_FAIR_DRAW_V3, EPISODE + 1, 1, dig, "another episode"}};
    for (size_t i = 0; i < sizeof wrong / sizeof wrong[0]; i++) {
        cr_assert_eq(kd_fair_prove(seed, wrong[i].version, wrong[i].episode, wrong[i].index, wrong[i].ask, proof),
                     KD_OK);
        cr_expect_eq(kd_house_reveal(&h, proof, draw, &u, &rej), KD_ERR_RULE, "%s", wrong[i].what);
        cr_expect_str_eq(rej.code, "bad_proof", "%s", wrong[i].what);
    }
    uint8_t stranger[KD_SECRET_SEED_LEN];
    kd_sha256("another house", 13, stranger);
    cr_assert_eq(kd_fair_prove(stranger, KD_FAIR_DRAW_V3, EPISODE, 1, dig, proof), KD_OK);
    cr_expect_eq(kd_house_reveal(&h, proof, draw, &u, &rej), KD_ERR_RULE, "another key");
    cr_expect(memcmp(&h, &asked, sizeof h) == 0, "refusals change nothing");
    cr_assert_eq(kd_fair_prove(seed, KD_FAIR_DRAW_V3, EPISODE, 1, dig, proof), KD_OK);
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
    uint8_t beta[KD_HASH_LEN], draw[KD_HASH_LEN], ent[32] = {0}, dig[32];
    kd_reject rej = {{0}, {0}};
    setup_house(&h, seed, 100, KD_FAIR_DRAW_V3, 0);
    unsigned sixes = 0, tries = 600;
    for (unsigned t = 0; t < tries; t++) {
        /* the bet and the reveal, published; then the reorg takes both back */
        kd_put_u32be(ent, t);
        kd_fair_ask_digest(ent, sizeof ent, dig); /* the ask's bytes: its entropy alone, here */
        const kd_house before = h;
        cr_assert_eq(kd_house_ask(&h, 0, ent, dig, 10, &ask_u, &rej), KD_OK);
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
        kd_fair_ask_digest(ground, sizeof ground, dig);
        cr_assert_eq(kd_house_ask(&h, 0, ground, dig, 11, &ask_u, &rej), KD_OK);
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

/*
 * Issue 37, R1: roulette, bet 1 on red with entropy E; the house reveals
 * pocket P; a reorg drops the ask and the reveal; the player bets all its
 * chips straight on P with the same E. With the input of issue 24
 * (episode, draw, entropy) the bets were not in it: the published proof
 * answered the new ask and P came back, 36 times the stake each round.
 * Now the input ends with the SHA-256 of the ask's bytes: the published
 * proof is refused for the changed ask and its draw is another. The
 * version-2 house (episodes created before issue 37, replayed as they were)
 * still shows the old behaviour, which is why no new creation gets it.
 */
Test(house, a_changed_ask_with_the_same_entropy_gets_an_unrelated_draw)
{
    static const char *const first = "bets [red 1] entropy E", *const second = "bets [straight P 1000] entropy E";
    for (uint32_t version = KD_FAIR_DRAW_V2; version <= KD_FAIR_DRAW_V3; version++) {
        kd_house h;
        kd_house_undo ask_u, rev_u;
        uint8_t seed[KD_SECRET_SEED_LEN], published[KD_VRF_PROOF_LEN], proof[KD_VRF_PROOF_LEN];
        uint8_t beta[KD_HASH_LEN], draw[KD_HASH_LEN], ent[32], dig1[32], dig2[32];
        kd_reject rej = {{0}, {0}};
        setup_house(&h, seed, 100, version, 0);
        ask_of(first, ent, dig1);
        kd_fair_ask_digest((const uint8_t *)second, strlen(second), dig2); /* the same entropy E, other bets */
        cr_assert_eq(kd_house_ask(&h, 0, ent, dig1, 10, &ask_u, &rej), KD_OK);
        cr_assert_eq(kd_house_owed_proof(&h, seed, published), KD_OK);
        cr_assert_eq(kd_house_reveal(&h, published, beta, &rev_u, &rej), KD_OK);
        cr_assert_eq(kd_house_rollback(&h, &rev_u), KD_OK);
        cr_assert_eq(kd_house_rollback(&h, &ask_u), KD_OK);
        cr_assert_eq(kd_house_ask(&h, 0, ent, dig2, 11, &ask_u, &rej), KD_OK);
        kd_err replayed = kd_house_reveal(&h, published, draw, &rev_u, &rej);
        if (version == KD_FAIR_DRAW_V2) {
            cr_expect_eq(replayed, KD_OK, "the old input: the published proof answers the changed ask");
            cr_expect_arr_eq(draw, beta, KD_HASH_LEN, "and P comes back (kept only for old episodes)");
            continue;
        }
        cr_expect_eq(replayed, KD_ERR_RULE, "the published proof does not answer the changed ask");
        cr_expect_str_eq(rej.code, "bad_proof");
        cr_assert_eq(kd_house_owed_proof(&h, seed, proof), KD_OK);
        cr_assert_eq(kd_house_reveal(&h, proof, draw, &rev_u, &rej), KD_OK);
        cr_expect(memcmp(draw, beta, KD_HASH_LEN) != 0, "the changed ask's draw is another");
        /* every byte of the ask is in the input: one changed bit, another draw */
        cr_assert_eq(kd_house_rollback(&h, &rev_u), KD_OK);
        cr_assert_eq(kd_house_rollback(&h, &ask_u), KD_OK);
        for (size_t at = 0; at < strlen(second); at++) {
            char changed[64];
            strcpy(changed, second);
            changed[at] ^= 1;
            uint8_t dig3[32], other[KD_HASH_LEN];
            kd_fair_ask_digest((const uint8_t *)changed, strlen(changed), dig3);
            cr_assert_eq(kd_house_ask(&h, 0, ent, dig3, 12, &ask_u, &rej), KD_OK);
            cr_expect_eq(kd_house_reveal(&h, proof, other, &rev_u, &rej), KD_ERR_RULE, "byte %zu changed", at);
            cr_assert_eq(kd_house_rollback(&h, &ask_u), KD_OK);
        }
    }
}

/* Episodes created before issue 37 replay exactly as they were: params
 * without draw_input read as version 2 and encode to the same bytes, the
 * state's head keeps version 2 and its length, the draw's input is
 * "kdapp-draw-v2" || episode || index || entropy. */
Test(house, old_episodes_keep_their_input_and_their_bytes)
{
    kd_house h;
    kd_house_undo u;
    uint8_t seed[KD_SECRET_SEED_LEN], proof[KD_VRF_PROOF_LEN], draw[KD_HASH_LEN], ent[32], dig[32];
    kd_reject rej = {{0}, {0}};
    /* the params as a creation before issue 37 wrote them: key, binding, timeout; no draw_input */
    kd_house_params old;
    memset(&old, 0, sizeof old);
    kd_sha256("house-test", 10, seed);
    cr_assert_eq(kd_fair_house_key(seed, &old.key), KD_OK);
    memset(old.binding, 0xb1, sizeof old.binding);
    Kdapp__HouseParams m = KDAPP__HOUSE_PARAMS__INIT;
    m.key.data = old.key.bytes;
    m.key.len = KD_PUBKEY_LEN;
    m.binding.data = old.binding;
    m.binding.len = KD_SECRET_BINDING_LEN;
    m.reveal_timeout = 600;
    uint8_t before[256], after[256];
    size_t n_before = kdapp__house_params__pack(&m, before);
    kd_house_params p;
    cr_assert_eq(kd_house_params_from_pb(&m, &p, &rej), KD_OK, "%s", rej.detail);
    cr_expect_eq(p.draw_input, KD_FAIR_DRAW_V2);
    cr_expect_eq(p.depth, 0);
    Kdapp__HouseParams again = KDAPP__HOUSE_PARAMS__INIT;
    kd_house_params_to_pb(&p, &again);
    size_t n_after = kdapp__house_params__pack(&again, after);
    cr_expect(n_before == n_after && memcmp(before, after, n_before) == 0, "the old params encode as they did");

    kd_house_init(&h, &p, EPISODE);
    ask_of("roll 1d6 entropy", ent, dig);
    cr_assert_eq(kd_house_ask(&h, 0, ent, dig, 40, &u, &rej), KD_OK);
    cr_expect_arr_eq(h.ask, ent, 32, "the old input ends with the entropy");
    expect_roundtrip(&h, &u);
    uint8_t b[KD_HOUSE_HEAD_MAX];
    kd_pubkey players[2];
    memset(players, 0x03, sizeof players);
    cr_expect_eq(kd_house_head_encode(HEAD_VERSION, &h, players, b), KD_HOUSE_HEAD_LEN);
    cr_expect_eq(b[0], HEAD_VERSION, "the old head: the type's version 2, the old length");
    cr_assert_eq(kd_house_owed_proof(&h, seed, proof), KD_OK);
    uint8_t alpha[53], want[KD_HASH_LEN];
    memcpy(alpha, "kdapp-draw-v2", 13);
    kd_put_u32be(alpha + 13, EPISODE);
    kd_put_u32be(alpha + 17, 1);
    memcpy(alpha + 21, ent, 32);
    cr_assert_eq(kd_vrf_verify(&h.key, alpha, sizeof alpha, proof, want), KD_OK, "the proof of the old input");
    cr_assert_eq(kd_house_reveal(&h, proof, draw, &u, &rej), KD_OK, "%s", rej.detail);
    cr_expect_arr_eq(draw, want, KD_HASH_LEN);
}

/* The reveal depth is the house's term: the house reveals from ask +
 * depth (kd_house_due) and the claim deadline counts from there. */
Test(house, the_reveal_depth_moves_the_deadline)
{
    kd_house h;
    kd_house_undo u;
    uint8_t seed[KD_SECRET_SEED_LEN], ent[32], dig[32];
    kd_reject rej = {{0}, {0}};
    setup_house(&h, seed, 100, KD_FAIR_DRAW_V3, 50);
    ask_of("spin 5", ent, dig);
    cr_assert_eq(kd_house_ask(&h, 0, ent, dig, 200, &u, &rej), KD_OK);
    cr_expect_eq(kd_house_due(&h), 250, "the house reveals once the ask is 50 deep");
    cr_expect_eq(kd_house_deadline(&h), 350, "ask + depth + timeout");
    cr_expect_eq(kd_house_claim(&h, 0, 349, &u, &rej), KD_ERR_RULE);
    cr_expect_str_eq(rej.code, "too_early");
    cr_expect(strstr(rej.detail, "350"), "%s", rej.detail);
    cr_assert_eq(kd_house_claim(&h, 0, 350, &u, &rej), KD_OK, "%s", rej.detail);
    expect_roundtrip(&h, &u);
    cr_assert_eq(kd_house_rollback(&h, &u), KD_OK);
    expect_roundtrip(&h, &u);
}

Test(house, malformed_bytes_are_refused)
{
    kd_house h, out;
    uint8_t seed[KD_SECRET_SEED_LEN], b[KD_HOUSE_ENCODED_LEN], ub[KD_HOUSE_UNDO_LEN] = {0};
    const size_t pending_at = 12 + KD_PUBKEY_LEN + KD_SECRET_BINDING_LEN;
    setup_house(&h, seed, 100, KD_FAIR_DRAW_V3, 7);
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
    /* the state's head: the version names the form, the depth has a ceiling, no byte is missing */
    uint8_t head[KD_HOUSE_HEAD_MAX];
    kd_pubkey players[2];
    memset(players, 0x02, sizeof players);
    size_t n = kd_house_head_encode(HEAD_VERSION, &h, players, head), used;
    cr_assert_eq(n, KD_HOUSE_HEAD_MAX);
    cr_expect_eq(head[0], HEAD_VERSION + 1, "draw input 3: the next version");
    cr_assert_eq(kd_house_head_decode(head, n, HEAD_VERSION, &out, players, &used), KD_OK);
    cr_expect_eq(out.depth, 7);
    cr_expect_eq(kd_house_head_decode(head, n - 1, HEAD_VERSION, &out, players, &used), KD_ERR_DECODE, "short");
    head[0] = HEAD_VERSION + 2;
    cr_expect_eq(kd_house_head_decode(head, n, HEAD_VERSION, &out, players, &used), KD_ERR_DECODE, "version 4");
    head[0] = HEAD_VERSION + 1;
    kd_put_u32be(head + 1 + KD_HOUSE_ENCODED_LEN, KD_HOUSE_DEPTH_MAX + 1);
    cr_expect_eq(kd_house_head_decode(head, n, HEAD_VERSION, &out, players, &used), KD_ERR_DECODE, "too deep");
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
    cr_expect_eq(hp.draw_input, KD_FAIR_DRAW_V3, "every creation from JSON draws with input 3");
    cr_expect_eq(hp.depth, 0, "no depth unless the house names one");

    /* the house's terms: its reveal depth replaces a caller's, within its ceiling */
    json_object_set_new(p, "reveal_depth", json_integer(0));
    cr_assert_eq(kd_house_terms_json(p, KD_HOUSE_DEPTH_KASPA, why, sizeof why), KD_OK, "%s", why);
    cr_assert_eq(kd_house_params_from_json(p, &hp, why, sizeof why), KD_OK, "%s", why);
    cr_expect_eq(hp.depth, KD_HOUSE_DEPTH_KASPA);
    cr_expect_eq(kd_house_terms_json(p, KD_HOUSE_DEPTH_MAX + 1, why, sizeof why), KD_ERR_BAD_PARAMS);
    cr_expect(strstr(why, "reveal_depth"), "%s", why);
    json_object_set_new(p, "reveal_depth", json_integer(-1));
    cr_expect_eq(kd_house_params_from_json(p, &hp, why, sizeof why), KD_ERR_BAD_PARAMS);
    cr_expect(strstr(why, "reveal_depth"), "%s", why);
    json_object_set_new(p, "reveal_depth", json_string("2"));
    cr_expect_eq(kd_house_params_from_json(p, &hp, why, sizeof why), KD_ERR_BAD_PARAMS);
    json_object_del(p, "reveal_depth");
    json_t *array = json_array();
    cr_expect_eq(kd_house_terms_json(array, 2, why, sizeof why), KD_ERR_BAD_PARAMS);
    json_decref(array);

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
    /* the draw input's versions and the reveal depth on the wire */
    m.draw_input = 3;
    m.reveal_depth = 100;
    cr_assert_eq(kd_house_params_from_pb(&m, &back, &rej), KD_OK, "%s", rej.detail);
    cr_expect_eq(back.draw_input, KD_FAIR_DRAW_V3);
    cr_expect_eq(back.depth, 100);
    m.draw_input = 2;
    cr_expect_eq(kd_house_params_from_pb(&m, &back, &rej), KD_ERR_BAD_PARAMS, "a depth needs input 3");
    cr_expect(strstr(rej.detail, "reveal_depth"), "%s", rej.detail);
    m.reveal_depth = 0;
    cr_expect_eq(kd_house_params_from_pb(&m, &back, &rej), KD_OK, "2 written out: the old input");
    cr_expect_eq(back.draw_input, KD_FAIR_DRAW_V2);
    m.draw_input = 4;
    cr_expect_eq(kd_house_params_from_pb(&m, &back, &rej), KD_ERR_BAD_PARAMS);
    cr_expect(strstr(rej.detail, "draw_input 4"), "%s", rej.detail);
    m.draw_input = 3;
    m.reveal_depth = KD_HOUSE_DEPTH_MAX + 1;
    cr_expect_eq(kd_house_params_from_pb(&m, &back, &rej), KD_ERR_BAD_PARAMS);
    m.reveal_depth = 0;
    m.key.len = 32;
    cr_expect_eq(kd_house_params_from_pb(&m, &back, &rej), KD_ERR_BAD_PARAMS, "a short key");
}
