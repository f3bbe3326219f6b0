/*
 * feeder.h — turns block-script ops into EngineMsg bytes, signing moves.
 *
 * A signed move commits to its episode's move counter (engine/crypto.h):
 * the number of commands the episode has applied when the move is
 * applied. The feeder signs each move for exactly that: the counter after
 * the block's earlier transactions, as the engine will decide them. A
 * rejected earlier move (wrong turn, occupied cell) does not count, a
 * creation earlier in the block starts at 0, and a script's explicit
 * "counter" wins over all of it. The feeder learns the counter from the
 * engine, never from its own bookkeeping:
 *
 *   local engine (`kdapp feed FILE`): a dry run (engine.h) of the block's
 *     earlier transactions, run alongside the encoding, on the thread that
 *     then ingests the block. Exact.
 *   remote daemon (`kdapp feed --connect`): a predictor callback, which
 *     asks the daemon for a dry run of the block's earlier transactions
 *     (IngestRequest.dry_run, answered by its writer thread from its
 *     store). Exact as of that answer: another feed writing to the same
 *     daemon between the dry run and the block can change the counter, as
 *     it could change the board.
 */
#ifndef KD_TOOLS_FEEDER_H
#define KD_TOOLS_FEEDER_H

#include "engine/engine.h"
#include "tools/script/blockscript.h"

typedef struct kd_feeder kd_feeder;

/* The move counter `episode_id` will have after the transactions of
 * `earlier` (an encoded EngineMsg{BlockAccepted}: the block being encoded,
 * cut before the move) apply as the engine decides; 0 when the episode
 * will not exist. */
typedef kd_err (*kd_feeder_predict_fn)(void *ctx, const kd_buf *earlier, uint32_t episode_id, uint64_t *counter);

/* A feeder for a local engine (dry runs on `engine`, which must outlive
 * it; consents signed for its chain, kd_engine_chain), or for a remote
 * one through `predict`, signing consents for `chain` (the daemon's:
 * IngestReply.chain). Errors: KD_ERR_NOMEM, KD_ERR_INVALID_ARG (`chain`
 * is not a chain name). */
kd_err kd_feeder_alloc_local(kd_engine *engine, kd_feeder **out) KD_WARN_UNUSED;
kd_err kd_feeder_alloc_remote(kd_feeder_predict_fn predict, void *ctx, const char *chain,
                              kd_feeder **out) KD_WARN_UNUSED;
void kd_feeder_free(kd_feeder *feeder);

/* The EpisodeMessage of a new_episode tx, each of its consents signed for
 * `chain` (engine/chain.h: the chain of the store it is for), appended to
 * `out`. Errors: those of kd_consent_sign and
 * kd_wire_new_episode_consented. */
kd_err kd_feeder_new_episode(const kd_script_tx *tx, const char *chain, kd_buf *out) KD_WARN_UNUSED;

/* Encodes `op` as an EngineMsg (appended to `out`), each signed move for
 * the counter its episode will have when it is applied. Call it right
 * before sending the op: the counters are read from the engine's state at
 * that moment. Errors: KD_ERR_NOMEM, the engine's read errors, the
 * predictor's. */
kd_err kd_feeder_encode(kd_feeder *feeder, const kd_script_op *op, kd_buf *out) KD_WARN_UNUSED;

#endif
