/*
 * holdem_eval.h — exact hold'em hand ranks for 5, 6 or 7 cards.
 *
 * Cards are 0..51: rank = card / 4 (0 = deuce .. 12 = ace), suit = card % 4
 * (clubs, diamonds, hearts, spades): "2c" is 0, "As" 51. A hand is a set of
 * cards, kept as a 64-bit mask with the card of rank r and suit s at bit
 * s * 16 + r, so each suit is a 13-bit lane and the four lanes combine with
 * plain bit operations.
 *
 * The evaluator is bit-parallel and needs no table: from the four lanes it
 * finds the ranks held at least twice, three and four times, a suit with
 * five or more cards, and straights (five consecutive bits of the rank set,
 * the ace also below the deuce), then picks the best five cards of the best
 * category. The value orders hands exactly:
 *
 *   value = category << 20 | r1 << 16 | r2 << 12 | r3 << 8 | r4 << 4 | r5
 *
 * with the category 0 (high card) .. 8 (straight flush) and r1..r5 the
 * ranks that decide within it, most significant first (the straight's top
 * card alone; a full house's trips then pair; unused places zero). Two
 * hands tie exactly when their values are equal; the 2,598,960 five-card
 * hands take 7,462 distinct values (tests/episodes/holdem_eval_test.c).
 *
 * Pure functions; thread-safe.
 */
#ifndef KD_EPISODES_HOLDEM_EVAL_H
#define KD_EPISODES_HOLDEM_EVAL_H

#include <stddef.h>
#include <stdint.h>

#define KD_HM_CARDS 52
#define KD_HM_NO_CARD 255

typedef enum {
    KD_HM_HIGH_CARD = 0,
    KD_HM_PAIR = 1,
    KD_HM_TWO_PAIR = 2,
    KD_HM_TRIPS = 3,
    KD_HM_STRAIGHT = 4,
    KD_HM_FLUSH = 5,
    KD_HM_FULL_HOUSE = 6,
    KD_HM_QUADS = 7,
    KD_HM_STRAIGHT_FLUSH = 8,
} kd_hm_category;

/* The mask bit of `card` (0..51). */
static inline uint64_t kd_hm_card_bit(unsigned card) { return 1ull << ((card % 4) * 16 + card / 4); }

/* The value of the best five cards among those of `hand` (5 to 7 cards;
 * with fewer the best category they make is still exact). */
uint32_t kd_hm_eval_mask(uint64_t hand);
/* The value of `n` cards (n 5..7, each 0..51, distinct). */
uint32_t kd_hm_eval(const uint8_t *cards, size_t n);
/* The category of a value. */
static inline kd_hm_category kd_hm_value_category(uint32_t value) { return (kd_hm_category)(value >> 20); }
/* "high card", "pair", ..., "straight flush". */
const char *kd_hm_category_name(kd_hm_category category);
/* A value for people: "two pair, kings and sevens, ace kicker" style,
 * short: "two pair K 7 A" (out: 40 bytes at least). */
void kd_hm_value_text(uint32_t value, char *out, size_t len);

/* "As", "Td", "2c" (out: 3 bytes at least); "??" for no card. */
void kd_hm_card_name(unsigned card, char out[3]);
/* "As" -> 51; -1 when not a card. */
int kd_hm_card_parse(const char *text);

#endif
