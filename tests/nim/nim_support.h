/*
 * nim_support.h — helpers shared by the Nim tests: a game created through
 * resolve_params and init as the engine does, and the independent count of
 * move sequences over heap tuples that perft results are checked against.
 * Test code only; failures are reported with cr_assert.
 */
#ifndef KD_TESTS_NIM_NIM_SUPPORT_H
#define KD_TESTS_NIM_NIM_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

#include "nim/nim.h"

/* A fresh game on `heaps` (NULL: the built-in default) between the test
 * keys alice (first) and bob (second). */
void nt_new_game(kd_nim_state *state, const kd_nim_heaps *heaps);

/* The sequences of exactly `depth` moves from heaps `h[0..n)`, counted by
 * arithmetic on the tuple alone: a move takes 1..h[i] from heap i, and a
 * table of empty heaps has no move. `h` is restored before returning. */
uint64_t nt_tuple_count(uint8_t h[KD_NIM_MAX_HEAPS], size_t n, unsigned depth);

#endif
