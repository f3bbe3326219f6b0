/* txfilter.c — the kdapp transaction filter (txfilter.h). */
#include "tools/listen/txfilter.h"

#include <string.h>

#include "engine/bytes.h"

/* Ten positions spread over the 256 bits, alternating values: any fixed
 * choice works, as long as clients and listener share it. */
static const kd_tx_pattern_bit default_pattern[KD_TX_PATTERN_BITS] = {
    {3, 1}, {29, 0}, {58, 1}, {87, 0}, {111, 1}, {140, 0}, {169, 1}, {198, 0}, {222, 1}, {251, 0},
};

void kd_tx_filter_default(kd_tx_filter *f)
{
    memcpy(f->bits, default_pattern, sizeof f->bits);
    f->prefix = KD_TX_DEFAULT_PREFIX;
}

int kd_tx_filter_id(const kd_tx_filter *f, const uint8_t id[KD_HASH_LEN])
{
    for (int i = 0; i < KD_TX_PATTERN_BITS; i++) {
        unsigned pos = f->bits[i].pos;
        if (((id[pos / 8] >> (pos % 8)) & 1u) != f->bits[i].val)
            return 0;
    }
    return 1;
}

static void put_u32le(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

int kd_tx_filter_payload(const kd_tx_filter *f, const uint8_t *payload, size_t len)
{
    uint8_t want[4];
    put_u32le(want, f->prefix);
    return len >= KD_TX_HEADER_LEN && memcmp(payload, want, 4) == 0;
}

void kd_tx_header_write(const kd_tx_filter *f, uint32_t nonce, uint8_t out[KD_TX_HEADER_LEN])
{
    put_u32le(out, f->prefix);
    put_u32le(out + 4, nonce);
}

int kd_tx_filter_parse_prefix(const char *text, uint32_t *out)
{
    uint8_t b[4];
    if (!text || strlen(text) != 8 || kd_hex_decode(text, b, 4))
        return -1;
    *out = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    return 0;
}
