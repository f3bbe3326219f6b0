/*
 * ck_support.h — helpers shared by the checkers tests: the test keys, a
 * game created through resolve_params and init as the engine does (from
 * the start or from a state text), moves through the ops table by their
 * notation or raw squares. Test code only; failures are cr_assert'ed.
 */
#ifndef KD_TESTS_CK_SUPPORT_H
#define KD_TESTS_CK_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

#include "engine/crypto.h"
#include "episodes/checkers/checkers.h"

/* The games-mcp state text of the standard start. */
#define CK_START_TEXT ".w.w.w.w/w.w.w.w./.w.w.w.w/......../......../b.b.b.b./.b.b.b.b/b.b.b.b. w"

/* The test keys "white", "black" and "stranger"; parts = [white, black]. */
typedef struct {
    kd_key white, black, stranger;
    kd_participants parts;
} ck_keys;

void ck_keys_make(ck_keys *k);

/* A new game between white and black from the standard start. */
void ck_new_game(kd_ck_state *s);

/* A new game from the state text `start` (through CheckersParams). */
void ck_new_game_from(kd_ck_state *s, const char *start);

/* Executes `count` raw squares through the ops table (encoded bytes). */
kd_err ck_exec_squares(kd_ck_state *s, const uint32_t *squares, size_t count, const kd_pubkey *signer, kd_ck_undo *undo,
                       kd_reject *rej);

/* Executes the move `notation` ("b6d4f2") through the ops table. */
kd_err ck_exec(kd_ck_state *s, const char *notation, const kd_pubkey *signer, kd_ck_undo *undo, kd_reject *rej);

/* Plays `notation` for the side to move, signed by its participant;
 * asserts success. */
void ck_move(kd_ck_state *s, const char *notation);

/* Plays the moves of `notations` in turn (each asserted). */
void ck_play(kd_ck_state *s, const char *const *notations, size_t n);

/* Replaces `out`'s contents with the state encoding. */
void ck_encode(const kd_ck_state *s, kd_buf *out);

/* The state text of `s` into `out`. */
void ck_text(const kd_ck_state *s, char out[KD_CK_TEXT_LEN]);

/* CK_PLAY(&s, "b6a5", "c3b4"): ck_play with a literal list. */
#define CK_PLAY(s, ...)                                 \
    do {                                                \
        static const char *const mv_[] = {__VA_ARGS__}; \
        ck_play((s), mv_, sizeof mv_ / sizeof mv_[0]);  \
    } while (0)

#endif
