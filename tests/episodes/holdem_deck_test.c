/*
 * holdem_deck_test.c — the deck with no dealer on its own: card points
 * (valid, distinct, pinned), layers that commute and come off in any order,
 * the keys of a hand (deterministic, distinct per hand and seat, a true
 * permutation), and two seats shuffling, locking and dealing every position
 * to the card the composed permutations put there. Prints the time of a
 * shuffle step and of its check.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "episodes/holdem/holdem_deck.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void seed_of(uint8_t seed[KD_SECRET_SEED_LEN], uint8_t tag)
{
    memset(seed, 0, KD_SECRET_SEED_LEN);
    seed[0] = tag;
}

Test(holdem_deck, card_points_are_distinct_points)
{
    kd_hm_point cards[KD_HM_CARDS];
    cr_assert_eq(kd_hm_card_points(cards), KD_OK);
    for (int c = 0; c < KD_HM_CARDS; c++) {
        cr_expect(kd_hm_point_valid(cards[c]));
        cr_expect_eq(kd_hm_card_find(cards, cards[c]), c);
        for (int d = 0; d < c; d++)
            cr_expect_neq(memcmp(cards[c], cards[d], KD_HM_POINT_LEN), 0);
    }
    /* pinned: the first try for 2c, SHA-256("kdapp/holdem/card/v1" 00 00) */
    uint8_t msg[22], h[KD_HASH_LEN];
    memcpy(msg, "kdapp/holdem/card/v1", 20);
    msg[20] = 0;
    msg[21] = 0;
    kd_sha256(msg, sizeof msg, h);
    kd_hm_point first = {0x02};
    memcpy(first + 1, h, KD_HASH_LEN);
    if (kd_hm_point_valid(first))
        cr_expect_eq(memcmp(first, cards[0], KD_HM_POINT_LEN), 0);
    else
        cr_expect_neq(memcmp(first, cards[0], KD_HM_POINT_LEN), 0);
}

Test(holdem_deck, layers_commute_and_come_off_in_any_order)
{
    kd_hm_point cards[KD_HM_CARDS], ab, ba, t, back;
    cr_assert_eq(kd_hm_card_points(cards), KD_OK);
    kd_hm_keys a, b;
    uint8_t hs[KD_HASH_LEN] = {1};
    kd_hm_keys_derive(hs, &a);
    hs[0] = 2;
    kd_hm_keys_derive(hs, &b);
    cr_assert_eq(kd_hm_point_mul(cards[7], a.deck_key, t), KD_OK);
    cr_assert_eq(kd_hm_point_mul(t, b.deck_key, ab), KD_OK);
    cr_assert_eq(kd_hm_point_mul(cards[7], b.deck_key, t), KD_OK);
    cr_assert_eq(kd_hm_point_mul(t, a.deck_key, ba), KD_OK);
    cr_expect_eq(memcmp(ab, ba, KD_HM_POINT_LEN), 0, "a·b·C = b·a·C");
    cr_assert_eq(kd_hm_unlock(ab, a.deck_key, t), KD_OK);
    cr_assert_eq(kd_hm_unlock(t, b.deck_key, back), KD_OK);
    cr_expect_eq(kd_hm_card_find(cards, back), 7);
    cr_assert_eq(kd_hm_unlock(ab, b.card_keys[0], t), KD_OK);
    cr_expect_eq(kd_hm_card_find(cards, t), -1, "a wrong key strips to no card");
    kd_hm_scalar zero = {0};
    cr_expect_eq(kd_hm_unlock(ab, zero, t), KD_ERR_BAD_KEY);
    kd_hm_point bad = {0x05};
    cr_expect_eq(kd_hm_point_mul(bad, a.deck_key, t), KD_ERR_DECODE);
    kd_hm_point commit;
    cr_assert_eq(kd_hm_commit(a.card_keys[3], commit), KD_OK);
    cr_expect(kd_hm_key_matches(a.card_keys[3], commit));
    cr_expect(!kd_hm_key_matches(a.card_keys[4], commit));
}

Test(holdem_deck, keys_of_a_hand)
{
    uint8_t seed[KD_SECRET_SEED_LEN], h1[KD_HASH_LEN], h2[KD_HASH_LEN], h1b[KD_HASH_LEN];
    seed_of(seed, 9);
    kd_hm_hand_secret(seed, 1, h1);
    kd_hm_hand_secret(seed, 2, h2);
    kd_hm_hand_secret(seed, 1, h1b);
    cr_expect_eq(memcmp(h1, h1b, KD_HASH_LEN), 0);
    cr_expect_neq(memcmp(h1, h2, KD_HASH_LEN), 0, "each hand its own keys");
    kd_hm_keys k1, k2;
    kd_hm_keys_derive(h1, &k1);
    kd_hm_keys_derive(h2, &k2);
    cr_expect_neq(memcmp(k1.deck_key, k2.deck_key, KD_HM_SCALAR_LEN), 0);
    cr_expect_neq(memcmp(k1.perm, k2.perm, KD_HM_CARDS), 0);
    uint64_t seen = 0;
    for (int j = 0; j < KD_HM_CARDS; j++)
        seen |= 1ull << k1.perm[j];
    cr_expect_eq(seen, (1ull << KD_HM_CARDS) - 1, "a permutation of the 52 cards");
}

Test(holdem_deck, two_seats_deal_every_position)
{
    kd_hm_point cards[KD_HM_CARDS], d1[KD_HM_CARDS], d2[KD_HM_CARDS], l1[KD_HM_DEALT], l2[KD_HM_DEALT], k1[KD_HM_DEALT],
        k2[KD_HM_DEALT], check[KD_HM_CARDS];
    cr_assert_eq(kd_hm_card_points(cards), KD_OK);
    uint8_t seed[KD_SECRET_SEED_LEN], hs[KD_HASH_LEN];
    kd_hm_keys a, b;
    seed_of(seed, 1);
    kd_hm_hand_secret(seed, 1, hs);
    kd_hm_keys_derive(hs, &a);
    seed_of(seed, 2);
    kd_hm_hand_secret(seed, 1, hs);
    kd_hm_keys_derive(hs, &b);
    double t0 = now_s();
    cr_assert_eq(kd_hm_shuffle(&a, (const kd_hm_point *)cards, d1), KD_OK);
    double t1 = now_s();
    cr_assert_eq(kd_hm_shuffle(&a, (const kd_hm_point *)cards, check), KD_OK);
    cr_expect_eq(memcmp(check, d1, sizeof d1), 0, "a shuffle is checked by recomputing it");
    double t2 = now_s();
    cr_assert_eq(kd_hm_shuffle(&b, (const kd_hm_point *)d1, d2), KD_OK);
    cr_assert_eq(kd_hm_lock(&a, (const kd_hm_point *)d2, l1, k1), KD_OK);
    cr_assert_eq(kd_hm_lock(&b, (const kd_hm_point *)l1, l2, k2), KD_OK);
    fprintf(stderr, "holdem_deck: a shuffle step %.2f ms, its check %.2f ms\n", (t1 - t0) * 1e3, (t2 - t1) * 1e3);
    uint64_t dealt = 0;
    for (int i = 0; i < KD_HM_DEALT; i++) {
        int want = a.perm[b.perm[i]];
        kd_hm_point t, c;
        cr_expect(kd_hm_key_matches(a.card_keys[i], k1[i]));
        cr_expect(kd_hm_key_matches(b.card_keys[i], k2[i]));
        /* the owner strips the other's published key, then its own */
        cr_assert_eq(kd_hm_unlock(l2[i], b.card_keys[i], t), KD_OK);
        cr_assert_eq(kd_hm_unlock(t, a.card_keys[i], c), KD_OK);
        cr_expect_eq(kd_hm_card_find(cards, c), want, "position %d", i);
        cr_expect_eq(kd_hm_card_find(cards, t), -1, "one key off leaves the card hidden");
        dealt |= 1ull << want;
    }
    cr_expect_eq(__builtin_popcountll(dealt), KD_HM_DEALT, "nine different cards");
}
