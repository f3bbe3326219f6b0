/*
 * fair.h — chance on a public log: the house's verifiable random function
 * (engine/vrf.h) and the numbers drawn from its outputs (issue 24; README
 * "Fair chance"). It replaced the hash chain of issue 14, whose links a
 * reorg could make the house reveal twice for entropy chosen after the
 * first reveal.
 *
 * The house's key for an episode is the VRF key of its seat's secret seed
 * (kd_secret_seed of its private key, bound to a fresh public binding:
 * engine/crypto.h), committed in the creation params. Draw i of the
 * episode is answered by the VRF proof of an input fixed by the rules and
 * the player's command that asked for it (kd_fair_alpha below); its seed
 * is the VRF output, and a stream of uniform numbers comes from the seed
 * (kd_fair_stream: SHA-256(seed || counter) blocks, rejection sampling, so
 * no value is favoured). Pure functions, no clock, no state of their own.
 */
#ifndef KD_EPISODES_FAIR_H
#define KD_EPISODES_FAIR_H

#include <stddef.h>
#include <stdint.h>

#include "engine/crypto.h"
#include "engine/vrf.h"

/* The floor under every deadline of the rules (the house's reveal_timeout,
 * blackjack's and sea battle's timeout), in DAA score: 10 s at Kaspa's 10
 * blocks a second, while a house on a normal link answers in a few blocks.
 * Creation params below it are refused by the rules (bad_params), so a raw
 * transaction cannot do what a gateway refuses. */
#define KD_DEADLINE_MIN 100u

#define KD_FAIR_ENTROPY_LEN 32

/*
 * Draws: the house's verifiable random function (engine/vrf.h). The
 * house's key for an episode is the VRF key of its seat's seed
 * (kd_fair_house_key); draw `index` (1-based, the draws of the episode in
 * the order they are revealed) has the input
 *
 *   alpha = tag (13 bytes) || episode_id (u32 BE) || index (u32 BE) ||
 *           ask (32 bytes)
 *
 * where the draw input's version, fixed at the episode's creation (the
 * house's params), says what the tag and the 32 bytes are:
 *
 *   version 3  "kdapp-draw-v3"; ask = SHA-256 of the asking command's
 *              bytes (SignedCommand.command: its bets, amounts, action and
 *              entropy), so a changed ask gets an unrelated output
 *   version 2  "kdapp-draw-v2"; ask = the asking command's 32 bytes of
 *              entropy alone (episodes created before issue 37, replayed
 *              as they were: a re-ask with the same entropy and other bets
 *              after a reorg got the published output back)
 *
 * the house answers with the VRF proof of alpha, and the draw's seed is
 * the VRF output beta. The house cannot choose the output (one per key and
 * alpha), nobody can predict it before the proof, and a new ask (other
 * bytes, or the same bytes at another index) gets an output unrelated to
 * every proof already published, so no reorg can replay a draw.
 */
#define KD_FAIR_ALPHA_LEN (13 + 4 + 4 + KD_FAIR_ASK_LEN)
#define KD_FAIR_ASK_LEN 32
#define KD_FAIR_DRAW_V2 2u /* the input of episodes created before issue 37 */
#define KD_FAIR_DRAW_V3 3u /* every new creation's */

/* A draw as the house answered it: all anyone needs to check it. */
typedef struct {
    kd_pubkey key; /* the house's VRF key (the params' house_key) */
    uint32_t episode_id;
    uint32_t index;               /* the draw's number in the episode, from 1 */
    uint32_t version;             /* the draw input's: KD_FAIR_DRAW_V2 or V3 */
    uint8_t ask[KD_FAIR_ASK_LEN]; /* the input's last 32 bytes (above) */
    uint8_t proof[KD_VRF_PROOF_LEN];
} kd_fair_draw;

/* The VRF input of a draw (above); `version` is KD_FAIR_DRAW_V2 or V3
 * (anything else is taken as V3). */
void kd_fair_alpha(uint32_t version, uint32_t episode_id, uint32_t index, const uint8_t ask[KD_FAIR_ASK_LEN],
                   uint8_t out[KD_FAIR_ALPHA_LEN]);
/* The 32 bytes a version-3 draw's input ends with: SHA-256 of the asking
 * command's bytes, exactly as the engine gave them to the rules
 * (SignedCommand.command in the transaction). */
void kd_fair_ask_digest(const uint8_t *command, size_t len, uint8_t out[KD_FAIR_ASK_LEN]);
/* The house's VRF public key of a seat's seed. Errors: kd_vrf_key_from_seed's. */
kd_err kd_fair_house_key(const uint8_t seed[KD_SECRET_SEED_LEN], kd_pubkey *key) KD_WARN_UNUSED;
/* The house's proof for a draw, from its seed. Errors: kd_vrf_prove's. */
kd_err kd_fair_prove(const uint8_t seed[KD_SECRET_SEED_LEN], uint32_t version, uint32_t episode_id, uint32_t index,
                     const uint8_t ask[KD_FAIR_ASK_LEN], uint8_t proof[KD_VRF_PROOF_LEN]) KD_WARN_UNUSED;
/* Checks the house's `proof` for a draw against its `key` and writes the
 * draw's seed (beta). Errors: KD_ERR_BAD_SIGNATURE (it does not verify),
 * KD_ERR_BAD_PUBKEY, KD_ERR_NOMEM, KD_ERR_INTERNAL. */
kd_err kd_fair_verify(const kd_pubkey *key, uint32_t version, uint32_t episode_id, uint32_t index,
                      const uint8_t ask[KD_FAIR_ASK_LEN], const uint8_t proof[KD_VRF_PROOF_LEN],
                      uint8_t draw[KD_HASH_LEN]) KD_WARN_UNUSED;
/* kd_fair_verify of a whole kd_fair_draw. */
kd_err kd_fair_draw_verify(const kd_fair_draw *d, uint8_t draw[KD_HASH_LEN]) KD_WARN_UNUSED;

/* What an auditor is told of each word a stream reads (kd_fair_below):
 * the number of its SHA-256 block, the word, the n asked for, the bound
 * (the largest multiple of n not above 2^32) and whether the word was kept
 * (below the bound) or skipped. */
typedef void (*kd_fair_word_fn)(void *ctx, uint32_t block, uint32_t word, uint32_t n, uint64_t bound, int kept);

/* Uniform numbers from a draw's seed. */
typedef struct {
    uint8_t seed[KD_HASH_LEN];
    uint32_t counter; /* the next block's number */
    uint8_t block[KD_HASH_LEN];
    unsigned used;           /* bytes of block consumed (32: none left) */
    kd_fair_word_fn on_word; /* NULL, or told of every word read (kdapp audit) */
    void *on_word_ctx;
} kd_fair_stream;

/* Starts the stream of `seed` (no observer); returns `s`. */
kd_fair_stream *kd_fair_stream_init(kd_fair_stream *s, const uint8_t seed[KD_HASH_LEN]);
/* A number uniform in [0, n), n >= 1: 32-bit big-endian words, eight
 * from each block SHA-256(seed || counter) (counter 4 bytes big-endian,
 * from 0; the words in block order), one stream for all the numbers of a
 * draw; the value is word mod n, a word at or above the bound (the largest
 * multiple of n not above 2^32, so 2^32 itself for n a power of two:
 * nothing skipped) being skipped. n = 1 reads no word and gives 0. */
uint32_t kd_fair_below(kd_fair_stream *s, uint32_t n);

#endif
