/*
 * secrets.h — a seat's secret side, for whoever holds the seat's key (the
 * gateway, `kdapp commit` / `kdapp duty`, the simulator, perft, tests):
 * the one place a seat's secret seed is derived (engine/crypto.h).
 *
 *   creation   kd_seat_commit: a fresh binding for (key, store, type,
 *              episode, seat), the seed bound to it, and the type's
 *              secret_commit, which sets the commitment and the binding in
 *              the creation params
 *   later      kd_seat_seed: the seed again, from the binding the state
 *              keeps, but only when that binding is this key's for this
 *              store (kd_secret_binding_ours); a commitment someone else
 *              wrote into the params (a bogus one, or one copied from
 *              another store) is never acted on
 *
 * Nothing secret is stored beyond the key file. Pure functions apart from
 * the CSPRNG nonce of kd_seat_commit; thread-safe.
 */
#ifndef KD_EPISODES_SECRETS_H
#define KD_EPISODES_SECRETS_H

#include <stdint.h>

#include <jansson.h>

#include "engine/crypto.h"
#include "episodes/episode_type.h"

/* Commits `seat` of episode `episode_id` of type `t` in `params` (a JSON
 * object) from `key` for the store `store_id`. Errors: KD_ERR_UNSUPPORTED
 * (the type or the seat keeps no secret: params untouched), KD_ERR_IO (no
 * random bytes), the type's secret_commit errors (KD_ERR_BAD_PARAMS with
 * `why`, KD_ERR_NOMEM). */
kd_err kd_seat_commit(const kd_episode_type *t, const kd_key *key, const uint8_t store_id[KD_STORE_ID_LEN],
                      uint32_t episode_id, int seat, json_t *params, char *why, size_t why_len) KD_WARN_UNUSED;

/* kd_seat_commit with the binding's nonce given (NULL: fresh from the
 * CSPRNG, as kd_seat_commit). For a deterministic simulator only: see
 * kd_secret_binding_make. */
kd_err kd_seat_commit_nonce(const kd_episode_type *t, const kd_key *key, const uint8_t store_id[KD_STORE_ID_LEN],
                            uint32_t episode_id, int seat, const uint8_t nonce[KD_SECRET_NONCE_LEN], json_t *params,
                            char *why, size_t why_len) KD_WARN_UNUSED;

/* The secret seed of `seat` in `state` (a decoded state of type `t`, of
 * episode `episode_id`) when `key` made its commitment for the store
 * `store_id`. Errors: KD_ERR_UNSUPPORTED (the type or the seat keeps no
 * secret), KD_ERR_NOT_FOUND (the seat has no binding, or it is not this
 * key's for this store). `seed` is written only on KD_OK; wipe it after
 * use. */
kd_err kd_seat_seed(const kd_episode_type *t, const kd_key *key, const uint8_t store_id[KD_STORE_ID_LEN],
                    uint32_t episode_id, int seat, const void *state, uint8_t seed[KD_SECRET_SEED_LEN]) KD_WARN_UNUSED;

#endif
