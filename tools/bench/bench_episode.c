/*
 * bench_episode.c — the types the bench plays and the start of an episode
 * (bench_episode.h).
 */
#include "tools/bench/bench_episode.h"

#include <string.h>

#include "engine/wire.h"

int kd_bench_type_playable(const kd_episode_type *t)
{
    return t && t->random_command && !t->secret_commit && !t->house_seats;
}

const kd_episode_type *kd_bench_play_type(const kd_bench_ctx *b)
{
    if (kd_bench_type_playable(b->type))
        return b->type;
    for (size_t i = 0; i < b->types->count; i++)
        if (kd_bench_type_playable(b->types->entries[i].type))
            return b->types->entries[i].type;
    return NULL;
}

size_t kd_bench_seats(const kd_episode_type *t) { return t->min_seats >= 2 || t->max_seats < 2 ? t->min_seats : 2; }

kd_err kd_bench_episode_create(const kd_type_table *types, const kd_episode_type *t, const kd_buf *params, uint32_t id,
                               const kd_key *seats, size_t n, const char *chain, void *state, kd_buf *payload)
{
    if (n == 0 || n > KD_MAX_PARTICIPANTS)
        return KD_ERR_INVALID_ARG;
    kd_participants all = {.count = n}, *parts = &all;
    kd_consent consents[KD_MAX_PARTICIPANTS];
    for (size_t i = 0; i < n; i++)
        all.keys[i] = seats[i].pub;
    const kd_episode_ops *ops = t->ops;
    kd_buf effective;
    kd_reject rej;
    uint8_t zero[KD_HASH_LEN] = {0};
    kd_block_meta meta = {.block_hash = zero, .tx_id = zero, .episode_id = id};
    kd_buf_init(&effective);
    memset(state, 0, ops->state_size);
    kd_err err =
        ops->resolve_params(kd_type_table_config(types, ops->type_name), params->data, params->len, &effective, &rej);
    if (!err)
        err = ops->init(state, parts, effective.data, effective.len, &meta, &rej);
    for (size_t i = 0; !err && i < n; i++)
        err = kd_consent_sign(&seats[i], (uint32_t)i, chain, id, ops->type_name, parts, params->data, params->len,
                              &consents[i]);
    if (!err)
        err = kd_wire_new_episode_consented(id, ops->type_name, parts, params->data, params->len, consents, n, payload);
    kd_buf_fini(&effective);
    return err;
}
