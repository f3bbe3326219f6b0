/*
 * hm_support.h — helpers shared by the hold'em tests: a match between the
 * test keys "hm0" and "hm1" created through resolve_params and init as the
 * engine does, each seat's seed bound to a fresh binding for the test store
 * HM_STORE_ID; commands through the ops table, each checked for a
 * byte-exact rollback (the encoding before equals the encoding after
 * execute and rollback), a refused second rollback, a deterministic
 * re-apply and round-tripping encodings. Test code only; failures are
 * cr_assert'ed.
 */
#ifndef KD_TESTS_HM_SUPPORT_H
#define KD_TESTS_HM_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

#include "engine/crypto.h"
#include "episodes/holdem/holdem.h"

#define HM_EPISODE 26u

extern const uint8_t HM_STORE_ID[KD_STORE_ID_LEN];

typedef struct {
    kd_key key[2], stranger;
    uint8_t seed[2][KD_SECRET_SEED_LEN];
    kd_hm_state state;
    uint64_t daa; /* the DAA score the next command is applied at */
} hm_game;

/* A new match with `params` (NULL: the defaults, timeout 100); the
 * bindings are set here. params->protocol 1: a match of protocol 1, made
 * from effective params without `protocol` as a log from before protocol
 * 2 recorded them (resolve_params refuses protocol 1 for a new match). */
void hm_new(hm_game *g, const kd_hm_params *params);
/* Executes command bytes signed by `signer` (NULL: unsigned) at g->daa
 * (then advances it by one) with the checks above. */
kd_err hm_exec(hm_game *g, const kd_buf *cmd, const kd_pubkey *signer, kd_reject *rej);
/* A command struct, encoded and executed for `seat`. */
kd_err hm_cmd(hm_game *g, int seat, const kd_hm_command *c, kd_reject *rej);
/* A bet of `kind` (raise: to `to`) for `seat`. */
kd_err hm_bet(hm_game *g, int seat, kd_hm_kind kind, uint32_t to, kd_reject *rej);
/* Pays every duty owed (from the seeds) until a seat must bet or the hand
 * is settled (the next one waits for its shuffle); asserts each is
 * accepted. Returns how many. */
unsigned hm_duties(hm_game *g);
/* The duty `seat` owes, decoded (asserts one is owed). */
void hm_duty_command(const hm_game *g, int seat, kd_hm_command *c);
/* Asserts `err` is a refusal with `code`. */
void hm_expect_rule(kd_err err, const kd_reject *rej, const char *code);

#endif
