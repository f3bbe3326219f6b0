/*
 * chance_support.h — what the chance types' tests (dice_test.c,
 * roulette_test.c, slots_test.c) do the same way: the player's and the house's test keys, an
 * episode created through the type's JSON with the house's commitment
 * (kd_seat_commit for a test store id, CHANCE_STORE_ID), and a
 * command executed from its JSON with every success checked for byte-exact
 * rollback through the encodings. Criterion assertions; one thread.
 */
#ifndef KD_TESTS_EPISODES_CHANCE_SUPPORT_H
#define KD_TESTS_EPISODES_CHANCE_SUPPORT_H

#include <jansson.h>

#include "engine/crypto.h"
#include "episodes/episode_type.h"

#define CHANCE_EPISODE 9u
/* The store id the tests' house commits for. */
extern const uint8_t CHANCE_STORE_ID[KD_STORE_ID_LEN];

typedef struct {
    const kd_episode_type *type;
    kd_key player, house, stranger;
    kd_participants parts;
    uint8_t seed[KD_SECRET_SEED_LEN]; /* the house's (kd_seat_seed once created) */
    void *state;                      /* ops->state_size bytes (malloc'd) */
} chance_game;

/* Creates the episode with `params_text` (the house commits, replacing any
 * house_key or house_binding the text has). */
void chance_new(chance_game *g, const kd_episode_type *type, const char *params_text);
void chance_free(chance_game *g);
/* Executes the command JSON `text` signed by `signer` (NULL: unsigned) at
 * DAA `daa`; on success checks the encodings round-trip and that rollback
 * gives back the exact bytes; on refusal that nothing changed. */
kd_err chance_exec(chance_game *g, const char *text, const kd_key *signer, uint64_t daa, kd_reject *rej);
/* The reveal command JSON {"reveal": "<proof>"} of draw `index` (draw
 * input 3) for the 64-hex `ask` (the 32 bytes the input ends with), proved
 * from `seed` (the house's, or another, to cheat) into `out` (at least 200
 * bytes). */
void chance_reveal_text(const uint8_t seed[KD_SECRET_SEED_LEN], uint32_t index, const char *ask, char *out, size_t len);
/* The 32 bytes a draw asked by the command JSON `text` has in its input:
 * SHA-256 of the command's bytes (kd_fair_ask_digest), into `out`, and as
 * 64 hex digits into `hex` (NULL: not wanted; else 65 bytes). */
void chance_ask_digest(const chance_game *g, const char *text, uint8_t out[32], char *hex);
/* The house pays its duty (secret_duty) at `daa`. */
kd_err chance_reveal(chance_game *g, uint64_t daa, kd_reject *rej);
/* Expects a rule refusal with `code`, a code of the type. */
void chance_expect_rule(chance_game *g, kd_err err, const kd_reject *rej, const char *code);
/* The chi-square critical value for `df` degrees of freedom at p = 0.001
 * (Wilson-Hilferty). */
double chance_chi2_critical(unsigned df);

#endif
