/*
 * bj_support.h — what the blackjack tests share: a table of test keys (the
 * house "test:bj-house", players "test:bj-p1".., a stranger), a game made
 * through the engine's ops (params from JSON, the house's commitment from
 * kd_seat_commit for the test store BJ_STORE_ID, its seed found again with
 * kd_seat_seed), the house's proofs for the draws it owes, and commands
 * applied through ops->execute with every check of
 * rollback and encodings on the way (bj_exec). Criterion assertions; one
 * thread per test.
 */
#ifndef KD_TESTS_EPISODES_BJ_SUPPORT_H
#define KD_TESTS_EPISODES_BJ_SUPPORT_H

#include "episodes/blackjack/blackjack.h"

#define BJ_TEST_ID 7u

extern const uint8_t BJ_STORE_ID[KD_STORE_ID_LEN];

typedef struct {
    kd_key house, players[KD_BJ_MAX_PLAYERS], stranger;
    uint8_t seed[KD_SECRET_SEED_LEN];     /* the house's */
    uint8_t last_proof[KD_VRF_PROOF_LEN]; /* of the last bj_reveal */
    kd_bj_state state;
    uint64_t daa;   /* the meta of the next command */
    uint64_t rng;   /* entropy for the commands */
    int check_undo; /* bj_exec checks rollback and encodings (default 1) */
} bj_fix;

/* A game of `players` players with params JSON `params_json` (NULL: {}),
 * the house's commitment set from its key. Fails the test when refused. */
void bj_setup(bj_fix *f, size_t players, const char *params_json);
void bj_teardown(bj_fix *f);

/* Applies `cmd` signed by `signer` (NULL: unsigned) at f->daa through
 * ops->execute: KD_OK, or the refusal with its code in `rej` (may be NULL;
 * the state checked untouched). On success, checks that the rollback gives
 * the state back byte for byte, that the undo and both states survive
 * their encodings, and re-applies. */
kd_err bj_exec(bj_fix *f, const kd_key *signer, const kd_bj_command *cmd, kd_reject *rej);
/* A player's command: bet `amount` or an action, with fresh entropy. */
kd_err bj_player(bj_fix *f, size_t seat, kd_bj_action action, uint32_t amount, kd_reject *rej);
/* The house's reveal of the next draw: the proof for the round it owes
 * (kd_bj_owed), which must be `seat`'s (1..; 0: any, or none). */
kd_err bj_reveal(bj_fix *f, size_t seat, kd_reject *rej);
/* The reveal command with the house's proof of draw `index` for `entropy`
 * (to cheat with). */
kd_bj_command bj_reveal_of(const bj_fix *f, uint32_t index, const uint8_t entropy[KD_FAIR_ENTROPY_LEN]);
/* The reveal after the shoe is made to hold `card` only (one copy), so the
 * draw must give it. */
void bj_deal(bj_fix *f, size_t seat, uint8_t card);
/* A card of rank "A23456789TJQK"[rank] in clubs. */
uint8_t bj_card(char rank);

/* Whether `code` is one of blackjack's rule codes. */
int type_rule_known(const char *code);

#endif
