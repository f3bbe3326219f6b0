/*
 * sim_verdicts.h — the verdicts of the episode types' prechecks (the
 * costly, pure part of execute: a zero-knowledge proof's check, see
 * engine/episode.h), kept by the key the type computes, so the simulator's
 * oracle (sim_model.h) and its generator's scratch copies (sim_gen.h)
 * check each proof once between them, however often a reorg makes them
 * apply it again. It is how the engine's own verifier pool hands the
 * writer its verdicts; the engine under test is never handed these and
 * checks every proof itself.
 *
 * The latest KD_SIM_VERDICTS verdicts are kept (the oldest overwritten).
 * Not thread-safe: one per simulator.
 */
#ifndef KD_TOOLS_SIM_VERDICTS_H
#define KD_TOOLS_SIM_VERDICTS_H

#include "engine/episode.h"

#define KD_SIM_VERDICTS 256

typedef struct kd_sim_verdicts kd_sim_verdicts;

kd_err kd_sim_verdicts_alloc(kd_sim_verdicts **out) KD_WARN_UNUSED;
void kd_sim_verdicts_free(kd_sim_verdicts *v);

/* Before ops->execute of `command` on `state` (`v` may be NULL: nothing
 * kept): when the type has a precheck for it, the verdict is looked up or
 * computed with ops->precheck and kept, written to *pc, and meta->precheck
 * set to pc; meta is left as it was otherwise. Errors: KD_ERR_NOMEM (from
 * the precheck). */
kd_err kd_sim_verdict(kd_sim_verdicts *v, const kd_episode_ops *ops, const void *state, const uint8_t *command,
                      size_t len, const kd_pubkey *signer, kd_block_meta *meta, kd_precheck *pc) KD_WARN_UNUSED;

#endif
