/*
 * fiar_support.h — helpers shared by the four-in-a-row tests: the test keys,
 * a game created through resolve_params and init as the engine does, drops
 * through the ops table. Test code only; failures are cr_assert'ed.
 */
#ifndef KD_TESTS_FIAR_SUPPORT_H
#define KD_TESTS_FIAR_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

#include "engine/crypto.h"
#include "episodes/fourinarow/fourinarow.h"

/* The test keys "red", "yellow" and "stranger"; parts = [red, yellow]. */
typedef struct {
    kd_key red, yellow, stranger;
    kd_participants parts;
} fiar_keys;

void fiar_keys_make(fiar_keys *k);

/* A new game between red and yellow. */
void fiar_new_game(kd_fiar_state *s);

/* Executes a drop into `column` through the ops table (encoded bytes). */
kd_err fiar_exec(kd_fiar_state *s, uint32_t column, const kd_pubkey *signer, kd_fiar_undo *undo, kd_reject *rej);

/* Drops for the seat to move, signed by its participant; asserts success. */
void fiar_drop(kd_fiar_state *s, uint32_t column);

/* Plays `n` columns; asserts each succeeds and the game is open before it. */
void fiar_play(kd_fiar_state *s, const int *cols, size_t n);

/* Replaces `out`'s contents with the state encoding. */
void fiar_encode(const kd_fiar_state *s, kd_buf *out);

/* FIAR_PLAY(&s, 3, 3, 4): fiar_play with a literal list. */
#define FIAR_PLAY(s, ...)                                      \
    do {                                                       \
        static const int cols_[] = {__VA_ARGS__};              \
        fiar_play((s), cols_, sizeof cols_ / sizeof cols_[0]); \
    } while (0)

#endif
