/*
 * holdem_proof_test.c — hold'em's proofs on their own (holdem_proof.h):
 * the generators (valid, distinct, pinned); an honest shuffle and lock
 * verify and are deterministic; a cheating prover's claims are refused
 * (a shuffle that repeats a card and drops one, a card replaced, a deck
 * raised by another key than the one published, a lock under another key);
 * a proof bound to another hand, episode, seat or key, or with a byte
 * changed, is refused. Prints the time of each prove and verify and the
 * sizes.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "episodes/holdem/holdem_proof.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void keys_of(uint8_t tag, kd_hm_keys *k)
{
    uint8_t hs[KD_HASH_LEN] = {tag, 0x42};
    kd_hm_keys_derive(hs, k);
}

static kd_hm_bind bind_of(uint8_t seat)
{
    kd_hm_bind b = {.episode = 7, .hand = 3, .seat = seat};
    memset(b.signer.bytes, 0, sizeof b.signer.bytes);
    b.signer.bytes[0] = 0x02;
    b.signer.bytes[1] = seat;
    return b;
}

/* A seat's honest shuffle of `in`, checked to verify. */
typedef struct {
    kd_hm_point out[KD_HM_CARDS], key;
    uint8_t proof[KD_HM_SHUFFLE_PROOF_LEN];
} shuffled;

static int verifies(const kd_hm_bind *b, const kd_hm_point *in, const shuffled *s)
{
    int valid = -1;
    cr_assert_eq(kd_hm_shuffle_verify(b, in, s->out, s->key, s->proof, &valid), KD_OK);
    return valid;
}

Test(holdem_proof, generators_are_distinct_points)
{
    kd_hm_point g[KD_HM_GENERATORS], cards[KD_HM_CARDS];
    cr_assert_eq(kd_hm_card_points(cards), KD_OK);
    for (unsigned i = 0; i < KD_HM_GENERATORS; i++) {
        cr_assert_eq(kd_hm_generator(i, g[i]), KD_OK);
        cr_expect(kd_hm_point_valid(g[i]));
        cr_expect_eq(kd_hm_card_find(cards, g[i]), -1, "no generator is a card");
        for (unsigned j = 0; j < i; j++)
            cr_expect_neq(memcmp(g[i], g[j], KD_HM_POINT_LEN), 0);
    }
    kd_hm_point none;
    cr_expect_eq(kd_hm_generator(KD_HM_GENERATORS, none), KD_ERR_INTERNAL);
    /* pinned: Q is 02 || SHA-256("kdapp/holdem/gen/v1" 00 ctr) for the first ctr giving a point */
    uint8_t msg[21];
    memcpy(msg, "kdapp/holdem/gen/v1", 19);
    msg[19] = 0;
    for (unsigned ctr = 0; ctr < 256; ctr++) {
        kd_hm_point p = {0x02};
        msg[20] = (uint8_t)ctr;
        kd_sha256(msg, sizeof msg, p + 1);
        if (kd_hm_point_valid(p)) {
            cr_expect_eq(memcmp(p, g[0], KD_HM_POINT_LEN), 0);
            break;
        }
    }
    cr_expect_eq(KD_HM_SHUFFLE_PROOF_LEN, 6920);
    cr_expect_eq(KD_HM_LOCK_PROOF_LEN, 576);
}

Test(holdem_proof, honest_shuffles_verify)
{
    kd_hm_point cards[KD_HM_CARDS];
    cr_assert_eq(kd_hm_card_points(cards), KD_OK);
    kd_hm_keys a, b;
    keys_of(1, &a);
    keys_of(2, &b);
    kd_hm_bind b0 = bind_of(0), b1 = bind_of(1);
    static shuffled s0, s1, again;
    double t0 = now_s();
    cr_assert_eq(kd_hm_shuffle_prove(&b0, &a, (const kd_hm_point *)cards, s0.out, s0.key, s0.proof), KD_OK);
    double t1 = now_s();
    cr_expect(verifies(&b0, (const kd_hm_point *)cards, &s0));
    double t2 = now_s();
    cr_assert_eq(kd_hm_shuffle_prove(&b1, &b, (const kd_hm_point *)s0.out, s1.out, s1.key, s1.proof), KD_OK);
    cr_expect(verifies(&b1, (const kd_hm_point *)s0.out, &s1));
    /* the deck is the plain shuffle step, the key x·G */
    kd_hm_point plain[KD_HM_CARDS], key;
    cr_assert_eq(kd_hm_shuffle(&a, (const kd_hm_point *)cards, plain), KD_OK);
    cr_expect_eq(memcmp(plain, s0.out, sizeof plain), 0);
    cr_assert_eq(kd_hm_commit(a.deck_key, key), KD_OK);
    cr_expect_eq(memcmp(key, s0.key, KD_HM_POINT_LEN), 0);
    /* deterministic: the same statement, the same proof */
    cr_assert_eq(kd_hm_shuffle_prove(&b0, &a, (const kd_hm_point *)cards, again.out, again.key, again.proof), KD_OK);
    cr_expect_eq(memcmp(again.proof, s0.proof, sizeof again.proof), 0);
    fprintf(stderr, "holdem_proof: shuffle prove %.1f ms, verify %.1f ms; deck %d + key %d + proof %d bytes\n",
            (t1 - t0) * 1e3, (t2 - t1) * 1e3, KD_HM_CARDS * KD_HM_POINT_LEN, KD_HM_POINT_LEN, KD_HM_SHUFFLE_PROOF_LEN);
}

/* The cheating prover: a claim that is false gives a proof that fails. */
Test(holdem_proof, false_shuffles_are_refused)
{
    kd_hm_point cards[KD_HM_CARDS];
    cr_assert_eq(kd_hm_card_points(cards), KD_OK);
    const kd_hm_point *in = (const kd_hm_point *)cards;
    kd_hm_keys a, other;
    keys_of(1, &a);
    keys_of(9, &other);
    kd_hm_bind b0 = bind_of(0);
    static shuffled s;
    /* a card repeated and one dropped: perm[5] = perm[9], out as claimed */
    kd_hm_keys bad = a;
    bad.perm[5] = bad.perm[9];
    for (int j = 0; j < KD_HM_CARDS; j++)
        cr_assert_eq(kd_hm_point_mul(in[bad.perm[j]], bad.deck_key, s.out[j]), KD_OK);
    cr_assert_eq(kd_hm_commit(bad.deck_key, s.key), KD_OK);
    cr_assert_eq(kd_hm_shuffle_prove_claim(&b0, &bad, in, s.out, s.key, s.proof), KD_OK);
    cr_expect(!verifies(&b0, in, &s), "a repeated card fails the product argument");
    /* a card replaced by a point that is no card (dropped) */
    cr_assert_eq(kd_hm_shuffle_prove(&b0, &a, in, s.out, s.key, s.proof), KD_OK);
    cr_assert_eq(kd_hm_point_mul(s.out[0], a.card_keys[0], s.out[17]), KD_OK);
    cr_assert_eq(kd_hm_shuffle_prove_claim(&b0, &a, in, s.out, s.key, s.proof), KD_OK);
    cr_expect(!verifies(&b0, in, &s), "a card dropped fails the linear relation");
    /* the deck raised by another key than the one published */
    memcpy(other.perm, a.perm, sizeof other.perm);
    cr_assert_eq(kd_hm_shuffle(&other, in, s.out), KD_OK);
    cr_assert_eq(kd_hm_commit(a.deck_key, s.key), KD_OK);
    cr_assert_eq(kd_hm_shuffle_prove_claim(&b0, &a, in, s.out, s.key, s.proof), KD_OK);
    cr_expect(!verifies(&b0, in, &s), "a deck under another key fails");
}

Test(holdem_proof, a_shuffle_proof_is_bound_to_its_statement)
{
    kd_hm_point cards[KD_HM_CARDS];
    cr_assert_eq(kd_hm_card_points(cards), KD_OK);
    const kd_hm_point *in = (const kd_hm_point *)cards;
    kd_hm_keys a;
    keys_of(1, &a);
    kd_hm_bind b0 = bind_of(0);
    static shuffled s, t;
    cr_assert_eq(kd_hm_shuffle_prove(&b0, &a, in, s.out, s.key, s.proof), KD_OK);
    cr_assert(verifies(&b0, in, &s));
    kd_hm_bind other = b0;
    other.hand++;
    cr_expect(!verifies(&other, in, &s), "another hand");
    other = b0;
    other.episode++;
    cr_expect(!verifies(&other, in, &s), "another episode");
    other = bind_of(1);
    cr_expect(!verifies(&other, in, &s), "another seat and key");
    other = b0;
    other.signer.bytes[5] ^= 1;
    cr_expect(!verifies(&other, in, &s), "another signer");
    /* two outputs swapped */
    t = s;
    memcpy(t.out[3], s.out[4], KD_HM_POINT_LEN);
    memcpy(t.out[4], s.out[3], KD_HM_POINT_LEN);
    cr_expect(!verifies(&b0, in, &t), "a changed order");
    /* every part of the proof matters: one bit of each field flipped */
    static const size_t at[] = {0,         1716,      3432 + 5, 3464, 3496, 3528, 3560,
                                3592 + 40, 5256 + 40, 6919,     100,  2000, 3431, 3433};
    for (size_t k = 0; k < sizeof at / sizeof at[0]; k++) {
        t = s;
        t.proof[at[k]] ^= 0x01;
        cr_expect(!verifies(&b0, in, &t), "byte %zu of the proof changed", at[k]);
    }
    /* a response out of range */
    t = s;
    memset(t.proof + 3464, 0xff, 32);
    cr_expect(!verifies(&b0, in, &t), "a scalar not below n");
    memset(t.proof + 3464, 0, 32);
    cr_expect(!verifies(&b0, in, &t), "a zero scalar");
}

Test(holdem_proof, locks_verify_and_forged_ones_fail)
{
    kd_hm_point cards[KD_HM_CARDS], d1[KD_HM_CARDS], d2[KD_HM_CARDS], key0, key1;
    cr_assert_eq(kd_hm_card_points(cards), KD_OK);
    kd_hm_keys a, b, other;
    keys_of(1, &a);
    keys_of(2, &b);
    keys_of(9, &other);
    cr_assert_eq(kd_hm_shuffle(&a, (const kd_hm_point *)cards, d1), KD_OK);
    cr_assert_eq(kd_hm_shuffle(&b, (const kd_hm_point *)d1, d2), KD_OK);
    cr_assert_eq(kd_hm_commit(a.deck_key, key0), KD_OK);
    cr_assert_eq(kd_hm_commit(b.deck_key, key1), KD_OK);
    kd_hm_bind b0 = bind_of(0), b1 = bind_of(1);
    kd_hm_point l1[KD_HM_DEALT], k1[KD_HM_DEALT], l2[KD_HM_DEALT], k2[KD_HM_DEALT];
    uint8_t p1[KD_HM_LOCK_PROOF_LEN], p2[KD_HM_LOCK_PROOF_LEN], t[KD_HM_LOCK_PROOF_LEN];
    double t0 = now_s();
    cr_assert_eq(kd_hm_lock_prove(&b0, &a, (const kd_hm_point *)d2, l1, k1, p1), KD_OK);
    double t1 = now_s();
    int bad = 99;
    cr_assert_eq(kd_hm_lock_verify(&b0, key0, (const kd_hm_point *)d2, (const kd_hm_point *)l1, (const kd_hm_point *)k1,
                                   p1, &bad),
                 KD_OK);
    double t2 = now_s();
    cr_expect_eq(bad, -1);
    cr_assert_eq(kd_hm_lock_prove(&b1, &b, (const kd_hm_point *)l1, l2, k2, p2), KD_OK);
    cr_assert_eq(kd_hm_lock_verify(&b1, key1, (const kd_hm_point *)l1, (const kd_hm_point *)l2, (const kd_hm_point *)k2,
                                   p2, &bad),
                 KD_OK);
    cr_expect_eq(bad, -1);
    fprintf(stderr, "holdem_proof: lock prove %.2f ms, verify %.2f ms; proofs %d bytes\n", (t1 - t0) * 1e3,
            (t2 - t1) * 1e3, KD_HM_LOCK_PROOF_LEN);
    /* the plain lock step: the same cards and commitments */
    kd_hm_point pl[KD_HM_DEALT], pk[KD_HM_DEALT];
    cr_assert_eq(kd_hm_lock(&a, (const kd_hm_point *)d2, pl, pk), KD_OK);
    cr_expect_eq(memcmp(pl, l1, sizeof pl), 0);
    cr_expect_eq(memcmp(pk, k1, sizeof pk), 0);
    /* position 4 locked under another key (its commitment unchanged) */
    kd_hm_point forged[KD_HM_DEALT];
    memcpy(forged, l1, sizeof forged);
    cr_assert_eq(kd_hm_point_mul(d2[4], other.card_keys[4], forged[4]), KD_OK);
    cr_assert_eq(kd_hm_lock_prove_claim(&b0, &a, (const kd_hm_point *)d2, (const kd_hm_point *)forged,
                                        (const kd_hm_point *)k1, t),
                 KD_OK);
    cr_assert_eq(kd_hm_lock_verify(&b0, key0, (const kd_hm_point *)d2, (const kd_hm_point *)forged,
                                   (const kd_hm_point *)k1, t, &bad),
                 KD_OK);
    cr_expect_eq(bad, 4, "the position locked under another key");
    /* a whole lock made with another deck key than the one published */
    kd_hm_keys swapped = a;
    memcpy(swapped.deck_key, other.deck_key, sizeof swapped.deck_key);
    cr_assert_eq(kd_hm_lock_prove(&b0, &swapped, (const kd_hm_point *)d2, forged, pk, t), KD_OK);
    cr_assert_eq(kd_hm_lock_verify(&b0, key0, (const kd_hm_point *)d2, (const kd_hm_point *)forged,
                                   (const kd_hm_point *)pk, t, &bad),
                 KD_OK);
    cr_expect_eq(bad, 0);
    /* bound to the hand and the whole lock */
    kd_hm_bind next = b0;
    next.hand++;
    cr_assert_eq(kd_hm_lock_verify(&next, key0, (const kd_hm_point *)d2, (const kd_hm_point *)l1,
                                   (const kd_hm_point *)k1, p1, &bad),
                 KD_OK);
    cr_expect_eq(bad, 0, "copied from another hand");
    memcpy(t, p1, sizeof t);
    t[8 * KD_HM_DLEQ_LEN + 40] ^= 4;
    cr_assert_eq(kd_hm_lock_verify(&b0, key0, (const kd_hm_point *)d2, (const kd_hm_point *)l1, (const kd_hm_point *)k1,
                                   t, &bad),
                 KD_OK);
    cr_expect_eq(bad, 8);
}

/* The proof README.md works through by hand ("One proof by hand"), made
 * here as the seats make theirs: the same bytes as holdem_check.py's own
 * prover (`holdem_check.py example`), written from the README. */
Test(holdem_proof, the_readme_example_is_this_proof)
{
    uint8_t hs[KD_HASH_LEN];
    kd_sha256("kdapp/holdem/example", 20, hs);
    kd_hm_keys k;
    kd_hm_keys_derive(hs, &k);
    kd_hm_point cards[KD_HM_CARDS], out[KD_HM_DEALT], commits[KD_HM_DEALT], key;
    cr_assert_eq(kd_hm_card_points(cards), KD_OK);
    kd_hm_bind bind = {.episode = 1, .hand = 1, .seat = 0};
    static const uint8_t g[KD_PUBKEY_LEN] = {0x02, 0x79, 0xbe, 0x66, 0x7e, 0xf9, 0xdc, 0xbb, 0xac, 0x55, 0xa0,
                                             0x62, 0x95, 0xce, 0x87, 0x0b, 0x07, 0x02, 0x9b, 0xfc, 0xdb, 0x2d,
                                             0xce, 0x28, 0xd9, 0x59, 0xf2, 0x81, 0x5b, 0x16, 0xf8, 0x17, 0x98};
    memcpy(bind.signer.bytes, g, sizeof g);
    uint8_t proofs[KD_HM_LOCK_PROOF_LEN];
    cr_assert_eq(kd_hm_lock_prove(&bind, &k, (const kd_hm_point *)cards, out, commits, proofs), KD_OK);
    cr_assert_eq(kd_hm_commit(k.deck_key, key), KD_OK);
    char hex[2 * KD_HM_DLEQ_LEN + 1], point[2 * KD_HM_POINT_LEN + 1];
    kd_hex_encode(key, KD_HM_POINT_LEN, point);
    cr_expect_str_eq(point, "036d02483ec658dea2207ef24b021a0abaea01f867096a9444c1814d534dec5852");
    kd_hex_encode(out[0], KD_HM_POINT_LEN, point);
    cr_expect_str_eq(point, "026c07f1f6c99c2360f19cbd395edbef4923c3ee25afaa70c7590a0263f21a86ae");
    kd_hex_encode(proofs, KD_HM_DLEQ_LEN, hex);
    cr_expect_str_eq(hex, "56a1e719379800b1fa1e7b6205dd689cbd8a5edc65c07c7da3253a5d46d8634c"
                          "db3adf756d2deb5ba24cde43df63e37dc2bf1180eb753c929812159bd64329fe");
    int bad = 99;
    cr_assert_eq(kd_hm_lock_verify(&bind, key, (const kd_hm_point *)cards, (const kd_hm_point *)out,
                                   (const kd_hm_point *)commits, proofs, &bad),
                 KD_OK);
    cr_expect_eq(bad, -1);
}
