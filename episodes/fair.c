/* fair.c — the draws of the house's VRF and the numbers made from them (fair.h). */
#include "episodes/fair.h"

#include <string.h>

#include "engine/bytes.h"

static const char DRAW_V2_TAG[] = "kdapp-draw-v2";

void kd_fair_alpha(uint32_t episode_id, uint32_t index, const uint8_t entropy[KD_FAIR_ENTROPY_LEN],
                   uint8_t out[KD_FAIR_ALPHA_LEN])
{
    size_t at = sizeof DRAW_V2_TAG - 1;
    memcpy(out, DRAW_V2_TAG, at);
    kd_put_u32be(out + at, episode_id);
    kd_put_u32be(out + at + 4, index);
    memcpy(out + at + 8, entropy, KD_FAIR_ENTROPY_LEN);
}

kd_err kd_fair_house_key(const uint8_t seed[KD_SECRET_SEED_LEN], kd_pubkey *key)
{
    uint8_t secret[KD_VRF_SECRET_LEN];
    kd_err err = kd_vrf_key_from_seed(seed, secret, key);
    memset(secret, 0, sizeof secret);
    return err;
}

kd_err kd_fair_prove(const uint8_t seed[KD_SECRET_SEED_LEN], uint32_t episode_id, uint32_t index,
                     const uint8_t entropy[KD_FAIR_ENTROPY_LEN], uint8_t proof[KD_VRF_PROOF_LEN])
{
    uint8_t secret[KD_VRF_SECRET_LEN], alpha[KD_FAIR_ALPHA_LEN];
    kd_pubkey key;
    kd_fair_alpha(episode_id, index, entropy, alpha);
    kd_err err = kd_vrf_key_from_seed(seed, secret, &key);
    if (!err)
        err = kd_vrf_prove(secret, alpha, sizeof alpha, proof);
    memset(secret, 0, sizeof secret);
    return err;
}

kd_err kd_fair_verify(const kd_pubkey *key, uint32_t episode_id, uint32_t index,
                      const uint8_t entropy[KD_FAIR_ENTROPY_LEN], const uint8_t proof[KD_VRF_PROOF_LEN],
                      uint8_t draw[KD_HASH_LEN])
{
    uint8_t alpha[KD_FAIR_ALPHA_LEN];
    kd_fair_alpha(episode_id, index, entropy, alpha);
    return kd_vrf_verify(key, alpha, sizeof alpha, proof, draw);
}

kd_fair_stream *kd_fair_stream_init(kd_fair_stream *s, const uint8_t seed[KD_HASH_LEN])
{
    memset(s, 0, sizeof *s);
    memcpy(s->seed, seed, KD_HASH_LEN);
    s->used = KD_HASH_LEN;
    return s;
}

static uint32_t next_word(kd_fair_stream *s)
{
    if (s->used + 4 > KD_HASH_LEN) {
        uint8_t buf[KD_HASH_LEN + 4];
        memcpy(buf, s->seed, KD_HASH_LEN);
        kd_put_u32be(buf + KD_HASH_LEN, s->counter++);
        kd_sha256(buf, sizeof buf, s->block);
        s->used = 0;
    }
    uint32_t w = kd_get_u32be(s->block + s->used);
    s->used += 4;
    return w;
}

uint32_t kd_fair_below(kd_fair_stream *s, uint32_t n)
{
    if (n <= 1)
        return 0;
    uint64_t limit = ((uint64_t)1 << 32) - (((uint64_t)1 << 32) % n); /* a multiple of n */
    for (;;) {
        uint32_t block = s->used + 4 > KD_HASH_LEN ? s->counter : s->counter - 1;
        uint32_t w = next_word(s);
        if (s->on_word)
            s->on_word(s->on_word_ctx, block, w, n, limit, w < limit);
        if (w < limit)
            return w % n;
    }
}
