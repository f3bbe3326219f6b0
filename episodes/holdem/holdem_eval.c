/*
 * holdem_eval.c — the bit-parallel hand evaluator (holdem_eval.h).
 *
 * From the four suit lanes s0..s3 (13 bits each):
 *
 *   any   = s0 | s1 | s2 | s3          ranks held at least once
 *   two   = ranks held at least twice  (some pair of lanes shares the bit)
 *   three = ranks held three times or more
 *   four  = s0 & s1 & s2 & s3
 *
 * then the categories from the best down: a flush lane (5+ bits) with a
 * straight in it, four of a kind, a full house (trips and another rank held
 * twice or more), the flush, a straight in `any`, trips, two pair, a pair,
 * high card. Kickers are the highest bits left once the deciding ranks are
 * taken out.
 */
#include "episodes/holdem/holdem_eval.h"

#include <stdio.h>
#include <string.h>

static const char rank_chars[] = "23456789TJQKA";
static const char suit_chars[] = "cdhs";

static inline unsigned top(uint32_t bits) { return 31u - (unsigned)__builtin_clz(bits); }

/* The top card of the best straight in a rank set, or -1. */
static inline int straight_top(uint32_t ranks)
{
    uint32_t ext = (ranks << 1) | ((ranks >> 12) & 1u); /* bit 0: the ace below the deuce */
    uint32_t runs = ext & (ext << 1) & (ext << 2) & (ext << 3) & (ext << 4);
    return runs ? (int)top(runs) - 1 : -1;
}

/* The `k` highest ranks of `bits`, packed from place 4 down (r1 at 16). */
static inline uint32_t kickers(uint32_t bits, unsigned k, unsigned place)
{
    uint32_t v = 0;
    for (unsigned i = 0; i < k && bits; i++) {
        unsigned r = top(bits);
        bits &= ~(1u << r);
        v |= (uint32_t)r << (4 * (place - i));
    }
    return v;
}

uint32_t kd_hm_eval_mask(uint64_t hand)
{
    uint32_t s0 = (uint32_t)(hand & 0x1fff), s1 = (uint32_t)((hand >> 16) & 0x1fff);
    uint32_t s2 = (uint32_t)((hand >> 32) & 0x1fff), s3 = (uint32_t)((hand >> 48) & 0x1fff);
    uint32_t any = s0 | s1 | s2 | s3;
    uint32_t two = (s0 & s1) | (s0 & s2) | (s0 & s3) | (s1 & s2) | (s1 & s3) | (s2 & s3);
    uint32_t three = (s0 & s1 & s2) | (s0 & s1 & s3) | (s0 & s2 & s3) | (s1 & s2 & s3);
    uint32_t four = s0 & s1 & s2 & s3;
    uint32_t flush = 0;
    if (__builtin_popcount(s0) >= 5)
        flush = s0;
    else if (__builtin_popcount(s1) >= 5)
        flush = s1;
    else if (__builtin_popcount(s2) >= 5)
        flush = s2;
    else if (__builtin_popcount(s3) >= 5)
        flush = s3;
    if (flush) {
        int st = straight_top(flush);
        if (st >= 0)
            return (uint32_t)KD_HM_STRAIGHT_FLUSH << 20 | (uint32_t)st << 16;
    }
    if (four) {
        unsigned q = top(four);
        return (uint32_t)KD_HM_QUADS << 20 | q << 16 | kickers(any & ~(1u << q), 1, 3);
    }
    if (three) {
        unsigned t = top(three);
        uint32_t rest = two & ~(1u << t);
        if (rest)
            return (uint32_t)KD_HM_FULL_HOUSE << 20 | t << 16 | top(rest) << 12;
    }
    if (flush)
        return (uint32_t)KD_HM_FLUSH << 20 | kickers(flush, 5, 4);
    int st = straight_top(any);
    if (st >= 0)
        return (uint32_t)KD_HM_STRAIGHT << 20 | (uint32_t)st << 16;
    if (three) {
        unsigned t = top(three);
        return (uint32_t)KD_HM_TRIPS << 20 | t << 16 | kickers(any & ~(1u << t), 2, 3);
    }
    if (two) {
        unsigned p1 = top(two);
        uint32_t rest = two & ~(1u << p1);
        if (rest) {
            unsigned p2 = top(rest);
            return (uint32_t)KD_HM_TWO_PAIR << 20 | p1 << 16 | p2 << 12 |
                   kickers(any & ~(1u << p1) & ~(1u << p2), 1, 2);
        }
        return (uint32_t)KD_HM_PAIR << 20 | p1 << 16 | kickers(any & ~(1u << p1), 3, 3);
    }
    return (uint32_t)KD_HM_HIGH_CARD << 20 | kickers(any, 5, 4);
}

uint32_t kd_hm_eval(const uint8_t *cards, size_t n)
{
    uint64_t m = 0;
    for (size_t i = 0; i < n; i++)
        m |= kd_hm_card_bit(cards[i] % KD_HM_CARDS);
    return kd_hm_eval_mask(m);
}

const char *kd_hm_category_name(kd_hm_category category)
{
    static const char *const names[] = {"high card", "pair",       "two pair",       "three of a kind", "straight",
                                        "flush",     "full house", "four of a kind", "straight flush"};
    return (unsigned)category < sizeof names / sizeof names[0] ? names[category] : "?";
}

void kd_hm_value_text(uint32_t value, char *out, size_t len)
{
    static const unsigned places[] = {5, 4, 3, 3, 1, 5, 2, 2, 1}; /* deciding ranks per category (kd_hm_eval_mask) */
    kd_hm_category c = kd_hm_value_category(value);
    size_t n = (size_t)snprintf(out, len, "%s", kd_hm_category_name(c));
    for (unsigned i = 0; (unsigned)c < 9 && i < places[c] && n + 2 < len; i++) {
        out[n++] = ' ';
        out[n++] = rank_chars[(value >> (16 - 4 * i)) & 0xf];
        out[n] = '\0';
    }
}

void kd_hm_card_name(unsigned card, char out[3])
{
    if (card >= KD_HM_CARDS) {
        memcpy(out, "??", 3);
        return;
    }
    out[0] = rank_chars[card / 4];
    out[1] = suit_chars[card % 4];
    out[2] = '\0';
}

int kd_hm_card_parse(const char *text)
{
    if (!text || !text[0] || !text[1] || text[2])
        return -1;
    const char *r = strchr(rank_chars, text[0]), *s = strchr(suit_chars, text[1]);
    if (!r || !s || !*r || !*s)
        return -1;
    return (int)(r - rank_chars) * 4 + (int)(s - suit_chars);
}
