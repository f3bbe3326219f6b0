/*
 * chess_support.h — helpers shared by the chess tests: the test keys, a
 * game created through resolve_params and init as the engine does (from a
 * FEN or the standard position), moves in UCI through the ops table.
 * Test code only; failures are cr_assert'ed.
 */
#ifndef KD_TESTS_CHESS_SUPPORT_H
#define KD_TESTS_CHESS_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

#include "engine/crypto.h"
#include "episodes/chess/chess.h"

/* The test keys "white", "black" and "stranger"; parts = [white, black]. */
typedef struct {
    kd_key white, black, stranger;
    kd_participants parts;
} chess_keys;

void chess_keys_make(chess_keys *k);

/* A new game between white and black from `fen` (NULL: the standard
 * position), through resolve_params and init. */
void chess_new_game(kd_chess_state *s, const char *fen);

/* Executes the UCI move through the ops table (encoded bytes). */
kd_err chess_exec(kd_chess_state *s, const char *uci, const kd_pubkey *signer, kd_chess_undo *undo, kd_reject *rej);

/* Plays space-separated UCI moves for the side to move, each signed by its
 * participant; asserts each succeeds. */
void chess_play(kd_chess_state *s, const char *moves);

/* The FEN of `s` (static storage of the caller: `out`). */
const char *chess_fen(const kd_chess_state *s, char out[KD_CHESS_FEN_MAX]);

/* Replaces `out`'s contents with the state encoding. */
void chess_encode(const kd_chess_state *s, kd_buf *out);

/* Leaf count of the legal move tree, by kd_chess_make / kd_chess_unmake,
 * asserting the state's bytes are restored after every move. */
uint64_t chess_perft(kd_chess_state *s, unsigned depth);

#endif
