/*
 * fair.h — chance on a public log: the house's committed hash chain and the
 * draws made from it (issue 14; README "Fair chance").
 *
 * The house derives a chain of `length` links from its secret seed
 * (kd_secret_seed of its key, engine/crypto.h):
 *
 *   h[length] = SHA-256("kdapp-house-chain-v1" || seed)
 *   h[i - 1]  = SHA-256(h[i])                  commit: h[0], in the params
 *
 * and reveals h[1], h[2], ... one per draw. Anyone checks a revealed link
 * against the one before it (SHA-256(h[i]) == h[i - 1]), so the house can
 * neither choose nor change an outcome after committing, and nobody can
 * predict a link before it is revealed. Draw i mixes the link with the
 * entropy the player gave in the command that asked for it, the episode id
 * and the draw's index:
 *
 *   draw[i] = SHA-256("kdapp-draw-v1" || h[i] || entropy || id || i)
 *
 * (id and i as 4-byte big-endian), and a stream of uniform numbers comes
 * from it (kd_fair_stream: SHA-256(draw || counter) blocks, rejection
 * sampling, so no value is favoured). Pure functions, no clock, no state
 * of their own: an episode keeps a kd_fair_chain in its state and the
 * previous head in its undo record.
 */
#ifndef KD_EPISODES_FAIR_H
#define KD_EPISODES_FAIR_H

#include <stddef.h>
#include <stdint.h>

#include "engine/crypto.h"

#define KD_FAIR_LINK_LEN 32
#define KD_FAIR_ENTROPY_LEN 32
#define KD_FAIR_LENGTH_DEFAULT 1024u /* draws one committed chain allows */
#define KD_FAIR_LENGTH_MAX 65536u

/* What an episode's state keeps of the house's chain: the newest revealed
 * link (the commit h[0] before any) and how many were revealed. */
typedef struct {
    uint8_t head[KD_FAIR_LINK_LEN];
    uint32_t revealed; /* head is h[revealed] */
    uint32_t length;   /* links the commit allows */
} kd_fair_chain;

/* Link `index` (0..length) of the chain of `seed` into `out`; h[0] is the
 * commit. Costs length - index hashes. Errors: KD_ERR_INVALID_ARG (index
 * beyond length, length 0 or over KD_FAIR_LENGTH_MAX), those of
 * kd_sha256_repeat. */
kd_err kd_fair_link(const uint8_t seed[KD_SECRET_SEED_LEN], uint32_t length, uint32_t index,
                    uint8_t out[KD_FAIR_LINK_LEN]) KD_WARN_UNUSED;

/* A chain as committed: head = commit, nothing revealed. */
void kd_fair_chain_init(kd_fair_chain *chain, const uint8_t commit[KD_FAIR_LINK_LEN], uint32_t length);

/* 1 when `link` is the chain's next link (SHA-256(link) == head and a link
 * is left), else 0. */
int kd_fair_chain_next_ok(const kd_fair_chain *chain, const uint8_t link[KD_FAIR_LINK_LEN]);

/* Accepts `link` as the next link (after kd_fair_chain_next_ok). The caller
 * keeps the old head in its undo record to give it back on rollback. */
void kd_fair_chain_advance(kd_fair_chain *chain, const uint8_t link[KD_FAIR_LINK_LEN]);

/* The seed of draw `index` of episode `episode_id` (see above). */
void kd_fair_draw(const uint8_t link[KD_FAIR_LINK_LEN], const uint8_t entropy[KD_FAIR_ENTROPY_LEN], uint32_t episode_id,
                  uint32_t index, uint8_t out[KD_HASH_LEN]);

/* Uniform numbers from a draw's seed. */
typedef struct {
    uint8_t seed[KD_HASH_LEN];
    uint32_t counter; /* the next block's number */
    uint8_t block[KD_HASH_LEN];
    unsigned used; /* bytes of block consumed (32: none left) */
} kd_fair_stream;

void kd_fair_stream_init(kd_fair_stream *s, const uint8_t seed[KD_HASH_LEN]);
/* A number uniform in [0, n), n >= 1: 32-bit words from SHA-256(seed ||
 * counter) blocks (counter 4 bytes big-endian, from 0), a word at or above
 * the largest multiple of n below 2^32 being skipped. */
uint32_t kd_fair_below(kd_fair_stream *s, uint32_t n);

#endif
