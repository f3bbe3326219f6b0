/* fair.c — the draws of the house's VRF and the numbers made from them (fair.h). */
#include "episodes/fair.h"

#include <string.h>

#include "engine/bytes.h"

/* The tags of the draw inputs (fair.h), 13 bytes each. */
static const char DRAW_V2_TAG[] = "kdapp-draw-v2";
static const char DRAW_V3_TAG[] = "kdapp-draw-v3";
_Static_assert(sizeof DRAW_V2_TAG == 14 && sizeof DRAW_V3_TAG == 14, "13-byte tags");

void kd_fair_alpha(uint32_t version, uint32_t episode_id, uint32_t index, const uint8_t ask[KD_FAIR_ASK_LEN],
                   uint8_t out[KD_FAIR_ALPHA_LEN])
{
    size_t at = sizeof DRAW_V3_TAG - 1;
    memcpy(out, version == KD_FAIR_DRAW_V2 ? DRAW_V2_TAG : DRAW_V3_TAG, at);
    kd_put_u32be(out + at, episode_id);
    kd_put_u32be(out + at + 4, index);
    memcpy(out + at + 8, ask, KD_FAIR_ASK_LEN);
}

void kd_fair_ask_digest(const uint8_t *command, size_t len, uint8_t out[KD_FAIR_ASK_LEN])
{
    kd_sha256(command, len, out);
}

kd_err kd_fair_house_key(const uint8_t seed[KD_SECRET_SEED_LEN], kd_pubkey *key)
{
    uint8_t secret[KD_VRF_SECRET_LEN];
    kd_err err = kd_vrf_key_from_seed(seed, secret, key);
    memset(secret, 0, sizeof secret);
    return err;
}

kd_err kd_fair_prove(const uint8_t seed[KD_SECRET_SEED_LEN], uint32_t version, uint32_t episode_id, uint32_t index,
                     const uint8_t ask[KD_FAIR_ASK_LEN], uint8_t proof[KD_VRF_PROOF_LEN])
{
    uint8_t secret[KD_VRF_SECRET_LEN], alpha[KD_FAIR_ALPHA_LEN];
    kd_pubkey key;
    kd_fair_alpha(version, episode_id, index, ask, alpha);
    kd_err err = kd_vrf_key_from_seed(seed, secret, &key);
    if (!err)
        err = kd_vrf_prove(secret, alpha, sizeof alpha, proof);
    memset(secret, 0, sizeof secret);
    return err;
}

kd_err kd_fair_verify(const kd_pubkey *key, uint32_t version, uint32_t episode_id, uint32_t index,
                      const uint8_t ask[KD_FAIR_ASK_LEN], const uint8_t proof[KD_VRF_PROOF_LEN],
                      uint8_t draw[KD_HASH_LEN])
{
    uint8_t alpha[KD_FAIR_ALPHA_LEN];
    kd_fair_alpha(version, episode_id, index, ask, alpha);
    return kd_vrf_verify(key, alpha, sizeof alpha, proof, draw);
}

kd_err kd_fair_draw_verify(const kd_fair_draw *d, uint8_t draw[KD_HASH_LEN])
{
    return kd_fair_verify(&d->key, d->version, d->episode_id, d->index, d->ask, d->proof, draw);
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
