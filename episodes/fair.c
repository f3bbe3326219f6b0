/* fair.c — the house's hash chain and the draws made from it (fair.h). */
#include "episodes/fair.h"

#include <string.h>

#include "engine/bytes.h"

static const char CHAIN_TAG[] = "kdapp-house-chain-v1";
static const char DRAW_TAG[] = "kdapp-draw-v1";

kd_err kd_fair_link(const uint8_t seed[KD_SECRET_SEED_LEN], uint32_t length, uint32_t index,
                    uint8_t out[KD_FAIR_LINK_LEN])
{
    if (length == 0 || length > KD_FAIR_LENGTH_MAX || index > length)
        return KD_ERR_INVALID_ARG;
    uint8_t buf[sizeof CHAIN_TAG - 1 + KD_SECRET_SEED_LEN];
    memcpy(buf, CHAIN_TAG, sizeof CHAIN_TAG - 1);
    memcpy(buf + sizeof CHAIN_TAG - 1, seed, KD_SECRET_SEED_LEN);
    kd_sha256(buf, sizeof buf, out); /* h[length] */
    memset(buf, 0, sizeof buf);
    return kd_sha256_repeat(out, length - index);
}

void kd_fair_chain_init(kd_fair_chain *chain, const uint8_t commit[KD_FAIR_LINK_LEN], uint32_t length)
{
    memset(chain, 0, sizeof *chain);
    memcpy(chain->head, commit, KD_FAIR_LINK_LEN);
    chain->length = length;
}

int kd_fair_chain_next_ok(const kd_fair_chain *chain, const uint8_t link[KD_FAIR_LINK_LEN])
{
    if (chain->revealed >= chain->length)
        return 0;
    uint8_t h[KD_HASH_LEN];
    kd_sha256(link, KD_FAIR_LINK_LEN, h);
    return memcmp(h, chain->head, KD_FAIR_LINK_LEN) == 0;
}

void kd_fair_chain_advance(kd_fair_chain *chain, const uint8_t link[KD_FAIR_LINK_LEN])
{
    memcpy(chain->head, link, KD_FAIR_LINK_LEN);
    chain->revealed++;
}

void kd_fair_draw(const uint8_t link[KD_FAIR_LINK_LEN], const uint8_t entropy[KD_FAIR_ENTROPY_LEN], uint32_t episode_id,
                  uint32_t index, uint8_t out[KD_HASH_LEN])
{
    uint8_t buf[sizeof DRAW_TAG - 1 + KD_FAIR_LINK_LEN + KD_FAIR_ENTROPY_LEN + 8];
    size_t at = sizeof DRAW_TAG - 1;
    memcpy(buf, DRAW_TAG, at);
    memcpy(buf + at, link, KD_FAIR_LINK_LEN);
    at += KD_FAIR_LINK_LEN;
    memcpy(buf + at, entropy, KD_FAIR_ENTROPY_LEN);
    at += KD_FAIR_ENTROPY_LEN;
    kd_put_u32be(buf + at, episode_id);
    kd_put_u32be(buf + at + 4, index);
    kd_sha256(buf, sizeof buf, out);
}

void kd_fair_stream_init(kd_fair_stream *s, const uint8_t seed[KD_HASH_LEN])
{
    memset(s, 0, sizeof *s);
    memcpy(s->seed, seed, KD_HASH_LEN);
    s->used = KD_HASH_LEN;
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
        uint32_t w = next_word(s);
        if (w < limit)
            return w % n;
    }
}
