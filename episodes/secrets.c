/* secrets.c — a seat's commitment and its seed (secrets.h). */
#include "episodes/secrets.h"

#include <string.h>

kd_err kd_seat_commit(const kd_episode_type *t, const kd_key *key, const uint8_t store_id[KD_STORE_ID_LEN],
                      uint32_t episode_id, int seat, json_t *params, char *why, size_t why_len)
{
    return kd_seat_commit_nonce(t, key, store_id, episode_id, seat, NULL, params, why, why_len);
}

kd_err kd_seat_commit_nonce(const kd_episode_type *t, const kd_key *key, const uint8_t store_id[KD_STORE_ID_LEN],
                            uint32_t episode_id, int seat, const uint8_t nonce[KD_SECRET_NONCE_LEN], json_t *params,
                            char *why, size_t why_len)
{
    if (!t->secret_commit)
        return KD_ERR_UNSUPPORTED;
    uint8_t binding[KD_SECRET_BINDING_LEN], seed[KD_SECRET_SEED_LEN];
    kd_err err = KD_OK;
    if (nonce)
        kd_secret_binding_make(key, store_id, t->ops->type_name, episode_id, seat, nonce, binding);
    else
        err = kd_secret_binding_fresh(key, store_id, t->ops->type_name, episode_id, seat, binding);
    if (err) {
        kd_reject_write(why, why_len, "no random bytes for the binding of seat %d's commitment", seat);
        return err;
    }
    kd_secret_seed(key, t->ops->type_name, episode_id, seat, binding, seed);
    err = t->secret_commit(seat, seed, binding, params, why, why_len);
    memset(seed, 0, sizeof seed);
    return err;
}

kd_err kd_seat_seed(const kd_episode_type *t, const kd_key *key, const uint8_t store_id[KD_STORE_ID_LEN],
                    uint32_t episode_id, int seat, const void *state, uint8_t seed[KD_SECRET_SEED_LEN])
{
    if (!t->secret_binding)
        return KD_ERR_UNSUPPORTED;
    uint8_t binding[KD_SECRET_BINDING_LEN];
    kd_err err = t->secret_binding(state, seat, binding);
    if (err)
        return err;
    if (!kd_secret_binding_ours(key, store_id, t->ops->type_name, episode_id, seat, binding))
        return KD_ERR_NOT_FOUND;
    kd_secret_seed(key, t->ops->type_name, episode_id, seat, binding, seed);
    return KD_OK;
}
