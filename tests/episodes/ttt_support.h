/*
 * ttt_support.h — helpers shared by the tic-tac-toe tests: test keys,
 * creating games through the ops table, playing move strings ("00 11 02"),
 * the invariants every state must keep, and a seeded random generator whose
 * seed is printed and can be overridden with KD_TEST_SEED.
 */
#ifndef KD_TESTS_TTT_SUPPORT_H
#define KD_TESTS_TTT_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

#include "engine/crypto.h"
#include "episodes/tictactoe/tictactoe.h"

/* The X and O test keys ("x", "o") and the participants list [x, o]. */
typedef struct {
    kd_key x, o;
    kd_participants parts;
} ttt_keys;

void ttt_keys_make(ttt_keys *keys);

/* A new game with state cap `cap` (0 classic, 1..8), created through the
 * ops table (resolve_params + init) with the test keys. */
void ttt_new(kd_ttt_state *state, uint8_t cap);

/* Executes Move{row, col, player} through the ops table (encoded bytes). */
kd_err ttt_exec(kd_ttt_state *state, uint8_t row, uint8_t col, uint8_t player, const kd_pubkey *signer,
                kd_ttt_undo *undo, kd_reject *rej);

/* Plays (row, col) for the side to move, signed by its participant. */
kd_err ttt_move(kd_ttt_state *state, uint8_t row, uint8_t col, kd_ttt_undo *undo, kd_reject *rej);

/* Plays a move string such as "00 11 02" (row then column per move),
 * asserting that every move is accepted. */
void ttt_play(kd_ttt_state *state, const char *moves);

/* Encodes `state` into `out` (initialised by the caller), asserting success. */
void ttt_encode(const kd_ttt_state *state, kd_buf *out);

/* Asserts the state invariants: history_len <= cap, the non-empty cells are
 * exactly the history's cells, marks alternate, turn follows move_count,
 * encode/decode round-trips. */
void ttt_check_invariants(const kd_ttt_state *state);

/* Seeded generator (splitmix64). ttt_seed returns KD_TEST_SEED if set, else
 * `fallback`, and prints it with the test's name. */
uint64_t ttt_seed(const char *test, uint64_t fallback);
uint64_t ttt_rand(uint64_t *rng);
/* Uniform in 0..n-1 (n > 0). */
uint32_t ttt_rand_below(uint64_t *rng, uint32_t n);

#endif
