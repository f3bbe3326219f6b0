/*
 * hm_ref.h — a slow reference hand evaluator for the hold'em tests, written
 * apart from episodes/holdem/holdem_eval.c: every five-card subset of the hand is
 * scored by counting ranks and sorting them, and the best score kept. Its
 * scores use the encoding of holdem_eval.h, so the two must agree exactly.
 */
#ifndef KD_TESTS_HM_REF_H
#define KD_TESTS_HM_REF_H

#include <stddef.h>
#include <stdint.h>

/* The value of the best five of `n` cards (5..7), as kd_hm_eval's. */
uint32_t hm_ref_eval(const uint8_t *cards, size_t n);

#endif
