/*
 * sb_support.h — helpers shared by the sea-battle tests: a game between the
 * test keys "blue" and "red" created through resolve_params and init as
 * the engine does, with each seat's board from its secret seed (bound to a
 * fresh binding for the test store SB_STORE_ID); commands
 * through the ops table, each checked for a byte-exact rollback and a
 * deterministic re-apply. Test code only; failures are cr_assert'ed.
 */
#ifndef KD_TESTS_SB_SUPPORT_H
#define KD_TESTS_SB_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

#include "engine/crypto.h"
#include "episodes/seabattle/seabattle.h"

#define SB_EPISODE 7u
#define SB_TIMEOUT 100u /* the rules' floor, KD_DEADLINE_MIN */

extern const uint8_t SB_STORE_ID[KD_STORE_ID_LEN];

typedef struct {
    kd_key key[2], stranger;
    uint8_t binding[2][KD_SECRET_BINDING_LEN];
    uint8_t seed[2][KD_SECRET_SEED_LEN];
    kd_sb_board board[2]; /* each seat's secret board (from its seed unless a test set its own) */
    kd_sb_state state;
    uint64_t daa; /* the DAA score the next command is applied at */
} sb_game;

/* A new game; when `boards` is not NULL its two boards are committed in
 * place of the seeds' boards. */
void sb_new_game(sb_game *g, const kd_sb_board *boards);

/* Executes command bytes signed by `signer` (NULL: unsigned) at g->daa
 * through the ops table. On success also checks: the rollback restores the
 * exact bytes, the re-apply gives the same state, state and undo encodings
 * round-trip. */
kd_err sb_exec(sb_game *g, const kd_buf *cmd, const kd_pubkey *signer, kd_reject *rej);
/* A command of `kind` (shot: `cell`) for `seat`, executed with sb_exec. */
kd_err sb_simple(sb_game *g, int seat, kd_sb_kind kind, uint32_t cell, kd_reject *rej);
/* The duty `seat` owes (from g->board[seat]): answer or reveal, executed;
 * asserts one is owed. */
kd_err sb_pay(sb_game *g, int seat, kd_reject *rej);
/* The duty command bytes of `seat` from its board (kd_sb_duty's format). */
void sb_duty_bytes(const sb_game *g, int seat, kd_buf *out);

#endif
