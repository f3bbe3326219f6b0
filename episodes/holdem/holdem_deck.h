/*
 * holdem_deck.h — a deck with no dealer: commutative encryption of card
 * points on secp256k1 (mental poker, after Shamir–Rivest–Adleman and
 * Barnett–Smart), for the hold'em type.
 *
 * Card points. Card c (0..51, holdem_eval.h) is the point
 *   C_c = lift_x(SHA-256("kdapp/holdem/card/v1" || c (1 byte) || ctr (1 byte)))
 * for the first ctr = 0, 1, ... whose hash is the x of a curve point (the
 * even-y one: 0x02 || hash parsed as a compressed key): try-and-increment
 * hashing to the curve, so no one knows any card's discrete log, nor the
 * ratio of two cards (with C_c = c·G the ratio of two encrypted cards would
 * give the shuffle away).
 *
 * Encrypting with a scalar k is P -> k·P (secp256k1_ec_pubkey_tweak_mul);
 * layers commute (a·(b·P) = b·(a·P)), and k^-1 mod n (OpenSSL BN_mod_inverse)
 * removes a layer whatever lies beneath it.
 *
 * A seat's keys for hand h come from its secret seed (kd_secret_seed:
 * bound to its key, the type, the episode, the seat and a binding made for
 * one store) and h:
 *   hs     = SHA-256("kdapp/holdem/hand/v1" || seed || h (u32 BE))
 *   x      = the deck key: SHA-256("kdapp/holdem/deck-key/v1" || hs || ctr)
 *   perm   = a Fisher–Yates shuffle drawn from kd_fair_stream(
 *            SHA-256("kdapp/holdem/perm/v1" || hs)): for j = 51..1 swap j
 *            with kd_fair_below(j + 1), starting from the identity
 *   k_i    = the key of dealt position i (0..8): SHA-256(
 *            "kdapp/holdem/card-key/v1" || hs || i (1 byte) || ctr)
 * (ctr, one byte from 0, the first giving a valid non-zero scalar). In
 * protocol 2 hs is never published (each step carries its proof,
 * holdem_proof.h); in protocol 1 revealing it at the end of a hand reveals
 * exactly that hand's keys, and anyone recomputes every step the seat made.
 *
 * The steps (seat A then seat B; C the 52 card points in card order):
 *   shuffle   D1[j] = x_A · C[perm_A[j]]        D2[j] = x_B · D1[perm_B[j]]
 *   lock      L1[i] = k_Ai · x_A^-1 · D2[i]     L2[i] = k_Bi · x_B^-1 · L1[i]
 *             (positions i = 0..8 only: the cards a hand can deal), with
 *             each key's commitment K_Ai = k_Ai · G, K_Bi = k_Bi · G
 * so L2[i] = k_Ai · k_Bi · C_card. A card is dealt by publishing keys: the
 * engine checks a published k against its commitment (k·G = K); with both
 * keys anyone strips L2[i] to the card; with the other's key only, the
 * owner strips its own in private.
 *
 * Pure functions; thread-safe.
 */
#ifndef KD_EPISODES_HOLDEM_DECK_H
#define KD_EPISODES_HOLDEM_DECK_H

#include <stddef.h>
#include <stdint.h>

#include "engine/crypto.h"
#include "engine/err.h"
#include "episodes/holdem/holdem_eval.h"

#define KD_HM_POINT_LEN 33  /* a compressed point */
#define KD_HM_SCALAR_LEN 32 /* a scalar mod n, big-endian */
#define KD_HM_DEALT 9       /* positions a hand can deal: 4 hole cards, 5 board cards */

typedef uint8_t kd_hm_point[KD_HM_POINT_LEN];
typedef uint8_t kd_hm_scalar[KD_HM_SCALAR_LEN];

/* One seat's keys for one hand (above). Secret: wipe after use. */
typedef struct {
    uint8_t hand_secret[KD_HASH_LEN];
    kd_hm_scalar deck_key;
    uint8_t perm[KD_HM_CARDS];
    kd_hm_scalar card_keys[KD_HM_DEALT];
} kd_hm_keys;

/* The 52 card points in card order. Errors: KD_ERR_INTERNAL (no ctr gave
 * a point: never for these inputs). */
kd_err kd_hm_card_points(kd_hm_point out[KD_HM_CARDS]) KD_WARN_UNUSED;
/* The card whose point is `p` among `cards` (kd_hm_card_points), or -1. */
int kd_hm_card_find(const kd_hm_point cards[KD_HM_CARDS], const kd_hm_point p);

/* The hand secret of a seat's `seed` for hand `hand`. */
void kd_hm_hand_secret(const uint8_t seed[KD_SECRET_SEED_LEN], uint32_t hand, uint8_t out[KD_HASH_LEN]);
/* Every key of a hand from its hand secret. */
void kd_hm_keys_derive(const uint8_t hand_secret[KD_HASH_LEN], kd_hm_keys *keys);

/* The shuffle step: out[j] = deck_key · in[perm[j]]. Errors:
 * KD_ERR_DECODE (a point of `in` is not a curve point). */
kd_err kd_hm_shuffle(const kd_hm_keys *keys, const kd_hm_point in[KD_HM_CARDS],
                     kd_hm_point out[KD_HM_CARDS]) KD_WARN_UNUSED;
/* The lock step over positions 0..8: out[i] = card_keys[i] · deck_key^-1 ·
 * in[i], commits[i] = card_keys[i] · G. Errors: KD_ERR_DECODE (a point of
 * `in` is not a curve point), KD_ERR_NOMEM, KD_ERR_INTERNAL. */
kd_err kd_hm_lock(const kd_hm_keys *keys, const kd_hm_point in[KD_HM_DEALT], kd_hm_point out[KD_HM_DEALT],
                  kd_hm_point commits[KD_HM_DEALT]) KD_WARN_UNUSED;
/* k · G. Errors: KD_ERR_BAD_KEY (k is zero or not below n). */
kd_err kd_hm_commit(const kd_hm_scalar k, kd_hm_point out) KD_WARN_UNUSED;
/* 1 when k · G is `commit`, else 0. */
int kd_hm_key_matches(const kd_hm_scalar k, const kd_hm_point commit);
/* Removes the layer of key k: out = k^-1 · p. Errors: KD_ERR_DECODE (p is
 * not a point), KD_ERR_BAD_KEY (k is zero or not below n), KD_ERR_NOMEM. */
kd_err kd_hm_unlock(const kd_hm_point p, const kd_hm_scalar k, kd_hm_point out) KD_WARN_UNUSED;
/* k · p. Errors: KD_ERR_DECODE, KD_ERR_BAD_KEY. */
kd_err kd_hm_point_mul(const kd_hm_point p, const kd_hm_scalar k, kd_hm_point out) KD_WARN_UNUSED;
/* out = k^-1 mod n. Errors: KD_ERR_BAD_KEY (k zero or not below n), KD_ERR_NOMEM. */
kd_err kd_hm_scalar_inverse(const kd_hm_scalar k, kd_hm_scalar out) KD_WARN_UNUSED;
/* 1 when `p` is a valid compressed point. */
int kd_hm_point_valid(const kd_hm_point p);

#endif
