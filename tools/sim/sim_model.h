/*
 * sim_model.h — the simulator's oracle: an in-memory model of what the
 * engine must do, built without any of the engine's storage, undo or
 * revert machinery.
 *
 * It keeps one immutable snapshot of every episode per block of the
 * current chain:
 *
 *   chain:  [genesis] <- [h1: eps, digest] <- [h2: ...] <- ... <- [tip]
 *
 * Accepting a block copies the tip snapshot and applies the block's
 * transactions to the copy with the episode types' own rules (ops->init /
 * ops->execute, never rollback); reverting pops the tip. So rollback in the
 * engine is checked against recomputation from scratch: any difference in
 * a transaction's verdict or in the chained digest is a bug in one of them.
 */
#ifndef KD_TOOLS_SIM_MODEL_H
#define KD_TOOLS_SIM_MODEL_H

#include "engine/engine.h"
#include "tools/sim/sim_verdicts.h"

typedef struct kd_model kd_model;

/* One episode in a snapshot (state: ops->state_size bytes, owned). */
typedef struct {
    uint32_t id;
    const kd_registry_entry *type;
    kd_participants participants;
    uint64_t counter;
    uint8_t *state;
} kd_model_episode;

/* What the model predicts for one message. */
typedef struct {
    kd_msg_status status;
    kd_err err; /* for REFUSED */
    size_t tx_count;
    kd_err *tx_err;                    /* per tx: KD_OK = applied (owned) */
    char (*tx_code)[KD_RULE_CODE_MAX]; /* per tx: its short code, "" = applied (owned) */
    uint32_t moves_rolled_back;        /* for an applied revert */
    uint32_t moves_applied;            /* for an applied accept */
} kd_model_outcome;

void kd_model_outcome_fini(kd_model_outcome *o);

/* A model starting from an empty chain with `genesis_digest` (zeros for a
 * fresh engine), of a store following `chain` (engine/chain.h: what the
 * consents of its creations must sign; copied), taking the verdicts of the
 * types' prechecks from `verdicts` (borrowed; NULL: every proof checked
 * again). */
kd_err kd_model_alloc(const kd_registry *registry, uint64_t finality, const uint8_t genesis_digest[KD_HASH_LEN],
                      const char *chain, kd_sim_verdicts *verdicts, kd_model **out) KD_WARN_UNUSED;
void kd_model_free(kd_model *m);

/* Predicts and applies one encoded EngineMsg. */
kd_err kd_model_ingest(kd_model *m, const uint8_t *msg, size_t len, kd_model_outcome *out) KD_WARN_UNUSED;

/* The current tip digest and height. */
void kd_model_tip(const kd_model *m, uint8_t digest[KD_HASH_LEN], uint64_t *height);
/* Episodes at the tip, sorted by id (valid until the next ingest). */
const kd_model_episode *kd_model_episodes(const kd_model *m, size_t *count);
/* The applied chain: hashes genesis first (valid until the next ingest). */
size_t kd_model_chain(const kd_model *m, const uint8_t (**hashes)[KD_HASH_LEN]);
/* 1 when block `hash` was reverted and not re-applied since. */
int kd_model_was_reverted(const kd_model *m, const uint8_t hash[KD_HASH_LEN]);
#endif
