/*
 * feeder.h — turns block-script ops into EngineMsg bytes, signing moves.
 *
 * A signed move commits to the episode's move counter (engine/crypto.h), so
 * the feeder must know each episode's counter when it signs. It keeps a
 * shadow of the counters, updated only from the engine's verdicts
 * (kd_feeder_observe): +1 per applied command, back again when its block is
 * reverted. This works the same for a local engine and for a remote daemon
 * that it only knows through ingest replies. An episode seen for the first
 * time is seeded through the optional callback (the local engine's
 * undo_depth); without one it starts at 0. Within one block, a move is
 * signed for the counter it will have if every earlier move of the block
 * applies; a script may override it with "counter".
 */
#ifndef KD_TOOLS_FEEDER_H
#define KD_TOOLS_FEEDER_H

#include "engine/engine.h"
#include "tools/blockscript.h"

typedef struct kd_feeder kd_feeder;

/* Returns the current counter of `episode_id`; *found = 0 when unknown. */
typedef kd_err (*kd_counter_seed_fn)(void *ctx, uint32_t episode_id, uint64_t *counter, int *found);

kd_err kd_feeder_alloc(kd_counter_seed_fn seed, void *seed_ctx, kd_feeder **out) KD_WARN_UNUSED;
void kd_feeder_free(kd_feeder *feeder);

/* Encodes `op` as an EngineMsg (appended to `out`). */
kd_err kd_feeder_encode(kd_feeder *feeder, const kd_script_op *op, kd_buf *out) KD_WARN_UNUSED;
/* Learns from the engine's verdict on `op`. */
kd_err kd_feeder_observe(kd_feeder *feeder, const kd_script_op *op, const kd_msg_result *res) KD_WARN_UNUSED;

/* A seed callback reading a local engine (ctx = kd_engine *). */
kd_err kd_feeder_seed_from_engine(void *engine, uint32_t episode_id, uint64_t *counter, int *found);

#endif
