/*
 * ops_adapter.h — the members of a game's kd_episode_ops (engine/episode.h)
 * that only turn the engine's void pointers into the game's own types and
 * call the game's functions: written once here for every game, instead of
 * a copy in each. A game whose functions follow the names
 *
 *   kd_<p>_state, kd_<p>_undo                     the state and undo structs
 *   kd_<p>_rollback(state, undo)                  (KD_OPS_ROLLBACK)
 *   kd_<p>_state_encode / _state_decode           (KD_OPS_STATE_CODEC)
 *   kd_<p>_undo_encode / _undo_decode             (KD_OPS_UNDO_CODEC)
 *   kd_<p>_params_decode(bytes, len, &p, rej)
 *     / _params_encode(&p, out)                   (KD_OPS_PARAMS_CODEC)
 *   kd_<p>_state_init(state, participants, &p, episode_id, rej)
 *                                                 (KD_OPS_INIT_EPISODE)
 *   kd_<p>_command_decode(bytes, len, cmd, rej)
 *     + an apply(state, cmd, signer, daa, undo, rej)  (KD_OPS_EXECUTE_DAA)
 *
 * writes, in its .c file after its own header,
 *
 *   KD_OPS_CODEC(dice);            // ops_rollback, ops_{en,de}code_{state,undo}
 *   KD_OPS_PARAMS_CODEC(dice);     // ops_resolve_params
 *   ...its own ops_init / ops_execute, or the macros above...
 *   const kd_episode_ops kd_dice_ops = {
 *       .type_name = KD_DICE_TYPE_NAME,
 *       KD_OPS_MEMBERS(dice),
 *   };
 *
 * and keeps as its own code only what differs (chess's unmake, tic-tac-toe's
 * undo check, the params a board game resolves). Every macro defines static
 * functions named ops_<member> and ends with a declaration, so it is used
 * like one (with a ';').
 */
#ifndef KD_EPISODES_OPS_ADAPTER_H
#define KD_EPISODES_OPS_ADAPTER_H

#include <stdlib.h>
#include <string.h>

#include "engine/episode.h"

/* ops_rollback: kd_<p>_rollback. */
#define KD_OPS_ROLLBACK(p)                                                                               \
    static kd_err ops_rollback(void *state, const void *undo) { return kd_##p##_rollback(state, undo); } \
    _Static_assert(sizeof(kd_##p##_undo) > 0, "kd_" #p "_undo")

/* ops_encode_state, ops_decode_state: kd_<p>_state_encode, _state_decode. */
#define KD_OPS_STATE_CODEC(p)                                                                                    \
    static kd_err ops_encode_state(const void *state, kd_buf *out) { return kd_##p##_state_encode(state, out); } \
    static kd_err ops_decode_state(const uint8_t *data, size_t len, void *state)                                 \
    {                                                                                                            \
        return kd_##p##_state_decode(data, len, state);                                                          \
    }                                                                                                            \
    _Static_assert(sizeof(kd_##p##_state) > 0, "kd_" #p "_state")

/* ops_encode_undo, ops_decode_undo: kd_<p>_undo_encode, _undo_decode. */
#define KD_OPS_UNDO_CODEC(p)                                                                                 \
    static kd_err ops_encode_undo(const void *undo, kd_buf *out) { return kd_##p##_undo_encode(undo, out); } \
    static kd_err ops_decode_undo(const uint8_t *data, size_t len, void *undo)                               \
    {                                                                                                        \
        return kd_##p##_undo_decode(data, len, undo);                                                        \
    }                                                                                                        \
    _Static_assert(sizeof(kd_##p##_undo) > 0, "kd_" #p "_undo")

/* The three above. */
#define KD_OPS_CODEC(p)    \
    KD_OPS_ROLLBACK(p);    \
    KD_OPS_STATE_CODEC(p); \
    KD_OPS_UNDO_CODEC(p)

/* ops_resolve_params: the params decoded (kd_<p>_params_decode, which
 * fills the defaults and checks them) and encoded again
 * (kd_<p>_params_encode): the effective params name every default. */
#define KD_OPS_PARAMS_CODEC(p)                                                                                 \
    static kd_err ops_resolve_params(const void *config, const uint8_t *params, size_t len, kd_buf *effective, \
                                     kd_reject *rej)                                                           \
    {                                                                                                          \
        (void)config;                                                                                          \
        kd_##p##_params pr;                                                                                    \
        kd_err err = kd_##p##_params_decode(params, len, &pr, rej);                                            \
        return err ? err : kd_##p##_params_encode(&pr, effective);                                             \
    }                                                                                                          \
    _Static_assert(sizeof(kd_##p##_params) > 0, "kd_" #p "_params")

/* ops_init: the params decoded and kd_<p>_state_init(state, participants,
 * &params, the episode id, rej); the state zeroed when the params are
 * refused. */
#define KD_OPS_INIT_EPISODE(p)                                                                                  \
    static kd_err ops_init(void *state, const kd_participants *participants, const uint8_t *params, size_t len, \
                           const kd_block_meta *meta, kd_reject *rej)                                           \
    {                                                                                                           \
        kd_##p##_params pr;                                                                                     \
        kd_err err = kd_##p##_params_decode(params, len, &pr, rej);                                             \
        if (err) {                                                                                              \
            memset(state, 0, sizeof(kd_##p##_state));                                                           \
            return err;                                                                                         \
        }                                                                                                       \
        return kd_##p##_state_init(state, participants, &pr, meta ? meta->episode_id : 0, rej);                 \
    }                                                                                                           \
    _Static_assert(sizeof(kd_##p##_state) > 0, "kd_" #p "_state")

/* ops_execute: the command decoded into a kd_<p>_command on the heap (some
 * are kilobytes) and given to `apply`(state, command, signer, the block's
 * DAA score, undo, rej). */
#define KD_OPS_EXECUTE_DAA(p, apply)                                                                    \
    static kd_err ops_execute(void *state, const uint8_t *command, size_t len, const kd_pubkey *signer, \
                              const kd_block_meta *meta, void *undo, kd_reject *rej)                    \
    {                                                                                                   \
        kd_##p##_command *cmd = calloc(1, sizeof *cmd);                                                 \
        if (!cmd)                                                                                       \
            return KD_ERR_NOMEM;                                                                        \
        kd_err err = kd_##p##_command_decode(command, len, cmd, rej);                                   \
        if (!err)                                                                                       \
            err = apply(state, cmd, signer, meta ? meta->daa : 0, undo, rej);                           \
        free(cmd);                                                                                      \
        return err;                                                                                     \
    }                                                                                                   \
    _Static_assert(sizeof(kd_##p##_command) > 0, "kd_" #p "_command")

/* The members of the kd_episode_ops initializer past the name: the sizes of kd_<p>_state and kd_<p>_undo and the eight
 * ops_ functions, whether a macro above or the game wrote them. */
#define KD_OPS_MEMBERS(p)                                                                                           \
    .state_size = sizeof(kd_##p##_state), .undo_size = sizeof(kd_##p##_undo), .resolve_params = ops_resolve_params, \
    .init = ops_init, .execute = ops_execute, .rollback = ops_rollback, .encode_state = ops_encode_state,           \
    .decode_state = ops_decode_state, .encode_undo = ops_encode_undo, .decode_undo = ops_decode_undo

#endif
