/*
 * holdem_proof.h — the zero-knowledge proofs of hold'em's deck (protocol
 * 2): a proof of shuffle for each seat's shuffle, and a Chaum–Pedersen
 * proof (DLEQ) for each position of each seat's lock, so a cheat is
 * refused when it arrives and no hand secret is ever published.
 *
 * Notation: points are compressed secp256k1 points (33 bytes), scalars
 * 32 bytes big-endian in [1, n - 1] (n the group order), G the generator;
 * `||` concatenation, `·` point multiplication. Every byte is specified in
 * episodes/holdem/README.md ("The proofs"), which also works one proof
 * through by hand; tests/episodes/holdem_check.py verifies both kinds in
 * plain Python from that page.
 *
 * What a proof is bound to (kd_hm_bind): the episode id, the hand, the
 * seat and the seat's public key, and the whole statement; all of it goes
 * into the Fiat–Shamir hashes, so a proof copied from another hand,
 * episode, seat or statement does not verify.
 *
 * The shuffle. Statement: the input deck X[0..51], the output deck
 * Y[0..51] and the seat's deck key for the hand H; the prover knows x and
 * a permutation π with H = x·G and Y[j] = x·X[π(j)]. The proof is the
 * proof of a shuffle of Terelius and Wikström (AFRICACRYPT 2010, as
 * Wikström's Verificatum implements it: a commitment to the permutation
 * matrix, a chain of commitments showing that the challenge vector it
 * permutes keeps its product, hence a permutation matrix), with the
 * re-encryption relation replaced by one exponent:
 *   sum_j e_π(j)·Y[j] = x·sum_i e_i·X[i]   and   H = x·G,
 * which for challenges e drawn after the permutation is committed holds
 * only when every Y[j] is x·X[π(j)]. Soundness error at most (52 + 2)/n
 * < 2^-250 per hash query (Schwartz–Zippel for the product, the linear
 * relation, special soundness); against a prover who grinds 2^128 hash
 * queries it stays below 2^-120. Size KD_HM_SHUFFLE_PROOF_LEN (6,920
 * bytes): 104 points and 109 scalars.
 *
 * The lock. For each position i the seat publishes L_i = m_i·In_i and
 * K_i = m_i·H with m_i = k_i / x (so K_i = k_i·G, the commitment its
 * published key k_i is later checked against) and proves log_H K_i =
 * log_In_i L_i (Chaum–Pedersen, 64 bytes: challenge and response).
 *
 * Randomness: the prover's nonces come from the seat's hand secret and the
 * statement (as RFC 6979 does for signatures), so the same statement gives
 * the same proof and another statement other nonces.
 *
 * Arithmetic through libsecp256k1's public API only (parse, serialize,
 * tweak_mul, combine, negate, the seckey tweaks); pure functions,
 * thread-safe.
 */
#ifndef KD_EPISODES_HOLDEM_PROOF_H
#define KD_EPISODES_HOLDEM_PROOF_H

#include <stddef.h>
#include <stdint.h>

#include "engine/episode.h"
#include "episodes/holdem/holdem_deck.h"

/* U[52], B[52] (points); c, kbar, kr, kbeta, kx; k'[52], khat[52] (scalars) */
#define KD_HM_SHUFFLE_PROOF_LEN (2 * KD_HM_CARDS * KD_HM_POINT_LEN + (5 + 2 * KD_HM_CARDS) * KD_HM_SCALAR_LEN)
/* challenge and response */
#define KD_HM_DLEQ_LEN (2 * KD_HM_SCALAR_LEN)
#define KD_HM_LOCK_PROOF_LEN (KD_HM_DEALT * KD_HM_DLEQ_LEN)
/* The generators the shuffle proof commits with: Q, P_0..P_51, F. */
#define KD_HM_GENERATORS (KD_HM_CARDS + 2)

/* What a proof is bound to, besides its statement. */
typedef struct {
    uint32_t episode;
    uint32_t hand;
    uint8_t seat;
    kd_pubkey signer; /* the seat's key */
} kd_hm_bind;

/* Generator g (0..KD_HM_GENERATORS-1): 02 || SHA-256("kdapp/holdem/gen/v1"
 * || g || ctr) for the first ctr that makes a point (Q = 0, P_j = 1 + j,
 * F = 53). Errors: KD_ERR_INTERNAL (never for these inputs). */
kd_err kd_hm_generator(unsigned g, kd_hm_point out) KD_WARN_UNUSED;

/* The seat's shuffle from its keys (kd_hm_keys_derive): out[j] =
 * x·in[perm[j]], key = x·G, and the proof. Errors: KD_ERR_DECODE (a point
 * of `in` is not a point), KD_ERR_NOMEM, KD_ERR_INTERNAL (a scalar came
 * out zero: probability 2^-256). */
kd_err kd_hm_shuffle_prove(const kd_hm_bind *bind, const kd_hm_keys *keys, const kd_hm_point in[KD_HM_CARDS],
                           kd_hm_point out[KD_HM_CARDS], kd_hm_point key,
                           uint8_t proof[KD_HM_SHUFFLE_PROOF_LEN]) KD_WARN_UNUSED;
/* The prover's side for a claimed shuffle (`out`, `key`) with the
 * witnesses keys->perm and keys->deck_key, unchecked: for a false claim
 * (out is not in permuted by perm and raised by x, a perm that repeats an
 * index, key not x·G) it makes a proof that does not verify. The tests'
 * cheating prover; kd_hm_shuffle_prove makes the claim true first.
 * Errors: as kd_hm_shuffle_prove (KD_ERR_DECODE: a point of in or out). */
kd_err kd_hm_shuffle_prove_claim(const kd_hm_bind *bind, const kd_hm_keys *keys, const kd_hm_point in[KD_HM_CARDS],
                                 const kd_hm_point out[KD_HM_CARDS], const kd_hm_point key,
                                 uint8_t proof[KD_HM_SHUFFLE_PROOF_LEN]) KD_WARN_UNUSED;
/* *valid = 1 when `proof` shows that `out` is `in` permuted and raised by
 * the discrete log of `key`, bound to `bind`; 0 otherwise (a point or
 * scalar out of range included). Errors: KD_ERR_NOMEM (no verdict). */
kd_err kd_hm_shuffle_verify(const kd_hm_bind *bind, const kd_hm_point in[KD_HM_CARDS],
                            const kd_hm_point out[KD_HM_CARDS], const kd_hm_point key,
                            const uint8_t proof[KD_HM_SHUFFLE_PROOF_LEN], int *valid) KD_WARN_UNUSED;

/* The seat's lock of positions 0..8 from its keys: out[i] = (k_i / x)·in[i],
 * commits[i] = k_i·G, and a DLEQ proof for each against key = x·G.
 * Errors: KD_ERR_DECODE, KD_ERR_NOMEM, KD_ERR_INTERNAL. */
kd_err kd_hm_lock_prove(const kd_hm_bind *bind, const kd_hm_keys *keys, const kd_hm_point in[KD_HM_DEALT],
                        kd_hm_point out[KD_HM_DEALT], kd_hm_point commits[KD_HM_DEALT],
                        uint8_t proofs[KD_HM_LOCK_PROOF_LEN]) KD_WARN_UNUSED;
/* The prover's side for a claimed lock (`out`, `commits`) with the
 * witnesses k_i / x from `keys`, unchecked (the tests' cheating prover).
 * Errors: as kd_hm_lock_prove. */
kd_err kd_hm_lock_prove_claim(const kd_hm_bind *bind, const kd_hm_keys *keys, const kd_hm_point in[KD_HM_DEALT],
                              const kd_hm_point out[KD_HM_DEALT], const kd_hm_point commits[KD_HM_DEALT],
                              uint8_t proofs[KD_HM_LOCK_PROOF_LEN]) KD_WARN_UNUSED;
/* *bad = -1 when every position's proof shows log_key commits[i] =
 * log_in[i] out[i], bound to `bind` and the whole lock; else the first
 * position whose proof fails. Errors: KD_ERR_NOMEM (no verdict). */
kd_err kd_hm_lock_verify(const kd_hm_bind *bind, const kd_hm_point key, const kd_hm_point in[KD_HM_DEALT],
                         const kd_hm_point out[KD_HM_DEALT], const kd_hm_point commits[KD_HM_DEALT],
                         const uint8_t proofs[KD_HM_LOCK_PROOF_LEN], int *bad) KD_WARN_UNUSED;

#endif
