/*
 * vrf.h — a verifiable random function: ECVRF on secp256k1 with SHA-256.
 *
 * A VRF gives, for a key pair and an input `alpha`, one output `beta` and a
 * proof `pi`. Whoever has the public key checks the proof and gets the same
 * beta; nobody without the secret can predict beta for an alpha not yet
 * proved; and the holder of the secret cannot choose among outputs: for one
 * (key, alpha) there is exactly one beta a proof can verify to. That is
 * what a house needs to draw on a public log: the draw's input is fixed by
 * the player's command, the house can only answer it (or not), and anyone
 * checks the answer (episodes/house.h, README "Fair chance").
 *
 * The construction follows RFC 9381 (ECVRF_prove, ECVRF_verify,
 * ECVRF_proof_to_hash) step by step, with a suite of our own, which is NOT
 * one of RFC 9381's suites (those are on P-256 and edwards25519):
 *
 *   suite_string   "kdapp-vrf-v1" (12 bytes)
 *   curve, B       secp256k1, its generator; cofactor 1; q its order
 *   points         33-byte compressed SEC1 (point_to_string)
 *   Hash           SHA-256; cLen = 16, ptLen = 33, qLen = 32
 *   encode_to_curve  try-and-increment (RFC 9381 5.4.1.1): for ctr = 0,
 *                  1, ... 255, h = Hash(suite || 0x01 || Y || alpha || ctr
 *                  (1 byte) || 0x00) and H is the point whose compressed
 *                  string is 0x02 || h, the first that is on the curve
 *   nonce k        not RFC 6979: for ctr = 0, 1, ..., k = Hash(suite ||
 *                  0x04 || x (32 bytes) || H || ctr (1 byte) || 0x00), the
 *                  first in [1, q - 1] (rejection, so k is uniform; a
 *                  SHA-256 output is at or above q with probability
 *                  below 2^-127). Deterministic: a proof depends only on
 *                  the secret and alpha.
 *   challenge c    the first 16 bytes of Hash(suite || 0x02 || Y || H ||
 *                  Gamma || U || V || 0x00), big-endian
 *   s              (k + c x) mod q, 32 bytes big-endian
 *   proof pi       Gamma (33) || c (16) || s (32) = 81 bytes
 *   beta           Hash(suite || 0x03 || Gamma || 0x00), 32 bytes
 *
 * Verification: Gamma must be a point, s in [1, q - 1], c nonzero; U =
 * s B - c Y, V = s H - c Gamma (neither the point at infinity) and the
 * challenge of (Y, H, Gamma, U, V) must be c. RFC 9381 allows s = 0 and
 * c = 0; this implementation refuses both (libsecp256k1's public API
 * cannot multiply by zero), and an honest prover meets them with
 * probability below 2^-127: kd_vrf_prove then fails with KD_ERR_INTERNAL
 * rather than make a proof the verifier refuses.
 *
 * All point and scalar arithmetic is libsecp256k1's public API; hashing is
 * OpenSSL's SHA-256. tests/episodes/chance_check.py implements the same
 * in plain Python (its own curve arithmetic), and tests/engine/vrf_test.c
 * checks known answers from it both ways.
 *
 * Threading: every function is reentrant and thread-safe (each call uses
 * its own libsecp256k1 context or the library's static one).
 */
#ifndef KD_ENGINE_VRF_H
#define KD_ENGINE_VRF_H

#include <stddef.h>
#include <stdint.h>

#include "engine/episode.h"
#include "engine/err.h"

#define KD_VRF_SUITE "kdapp-vrf-v1"
#define KD_VRF_PROOF_LEN 81 /* Gamma (33) || c (16) || s (32) */
#define KD_VRF_SECRET_LEN 32
#define KD_VRF_SEED_LEN 32

/* The VRF key pair of a 32-byte seed: secret = the first of
 * SHA-256("kdapp-vrf-key-v1" || seed || ctr (1 byte)), ctr = 0, 1, ...,
 * that is a valid secp256k1 scalar; `pub` = secret * B, compressed.
 * Errors: KD_ERR_NOMEM (no libsecp256k1 context), KD_ERR_INTERNAL (256
 * candidates refused: never in practice). `secret` holds the key: wipe it
 * after use. */
kd_err kd_vrf_key_from_seed(const uint8_t seed[KD_VRF_SEED_LEN], uint8_t secret[KD_VRF_SECRET_LEN],
                            kd_pubkey *pub) KD_WARN_UNUSED;

/* The proof for input `alpha` (`len` bytes; may be NULL when len is 0)
 * under `secret`, into `proof`. Deterministic. Errors: KD_ERR_BAD_KEY
 * (`secret` is not a valid scalar), KD_ERR_NOMEM, KD_ERR_INTERNAL (no point
 * found for alpha in 256 tries, or the negligible c = 0 / s = 0 above).
 * `proof` is unspecified on error. */
kd_err kd_vrf_prove(const uint8_t secret[KD_VRF_SECRET_LEN], const uint8_t *alpha, size_t len,
                    uint8_t proof[KD_VRF_PROOF_LEN]) KD_WARN_UNUSED;

/* Checks `proof` for `alpha` under `pub` and writes the output to `beta`.
 * Errors: KD_ERR_BAD_PUBKEY (`pub` is not a valid compressed point),
 * KD_ERR_BAD_SIGNATURE (the proof does not verify: a bad Gamma, c or s,
 * another key or another alpha), KD_ERR_NOMEM, KD_ERR_INTERNAL (no point
 * for alpha in 256 tries). `beta` is written only on KD_OK. */
kd_err kd_vrf_verify(const kd_pubkey *pub, const uint8_t *alpha, size_t len, const uint8_t proof[KD_VRF_PROOF_LEN],
                     uint8_t beta[KD_HASH_LEN]) KD_WARN_UNUSED;

/* beta of a proof without verifying it (ECVRF_proof_to_hash): for a proof
 * already checked. Errors: KD_ERR_BAD_SIGNATURE (Gamma is not a point). */
kd_err kd_vrf_proof_to_hash(const uint8_t proof[KD_VRF_PROOF_LEN], uint8_t beta[KD_HASH_LEN]) KD_WARN_UNUSED;

#endif
