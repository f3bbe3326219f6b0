/*
 * sim_gen.h — the simulator's transaction generator, for every type of a
 * kd_type_table.
 *
 * Before each block the generator loads a scratch copy of the episodes at
 * the model's tip (kd_sim_scratch_load); each transaction it makes is then
 * applied to that copy with the type's own execute when it is meant to be
 * legal, so later transactions of the block see it. What it makes:
 *
 *   creation   a registered type (or the one chosen), its seat count or one
 *              too few, a key that is not a curve point, an id 0 or one in
 *              use, params drawn from the type's params JSON Schema (integer
 *              properties in their range, mostly near the minimum; null)
 *   legal      type->random_command(legal) for the seat to move, signed by
 *              that seat's key for the episode's counter
 *   illegal    type->random_command(illegal) (a rule of the type refuses
 *              it), or a legal command signed by another key, unsigned, for
 *              a stale or future counter, replayed from an applied block, for
 *              an unknown episode, or for a finished game
 *   junk       payloads that do not decode
 *
 * States are opaque: ops->state_size bytes. Nothing here names a type. Not
 * thread-safe: one generator per simulator.
 */
#ifndef KD_TOOLS_SIM_GEN_H
#define KD_TOOLS_SIM_GEN_H

#include "engine/crypto.h"
#include "episodes/episode_type.h"
#include "engine/chain.h"
#include "tools/sim/sim_model.h"
#include "tools/sim/sim_verdicts.h"

#define KD_SIM_GEN_KEYS 6
#define KD_SIM_GEN_REPLAY 64

/* The generator's view of one episode while it builds a block. */
typedef struct {
    uint32_t id;
    const kd_episode_type *type;
    uint8_t *state; /* ops->state_size bytes, owned */
    uint64_t counter;
    size_t seats;
    int key[KD_MAX_PARTICIPANTS]; /* index into the generator's keys per seat, -1 when not one of them */
} kd_sim_scratch_ep;

typedef struct {
    kd_sim_scratch_ep *eps;
    size_t count, cap;
} kd_sim_scratch;

typedef struct {
    const kd_type_table *types;  /* borrowed */
    const kd_episode_type *only; /* NULL: every type of the table, mixed */
    kd_key keys[KD_SIM_GEN_KEYS];
    uint8_t store_id[KD_STORE_ID_LEN]; /* the simulator's own, from its seed: what its keys commit for */
    char chain[KD_CHAIN_MAX];          /* what its consents are signed for: local:<store_id>, or a daemon's */
    uint64_t rng;
    kd_buf replay[KD_SIM_GEN_REPLAY]; /* signed payloads applied earlier */
    size_t n_replay;
    uint32_t next_id;
    size_t max_new;            /* creations one block may add (scratch room) */
    kd_sim_verdicts *verdicts; /* borrowed: the prechecks' verdicts, shared with the oracle; NULL: none kept */
} kd_sim_gen;

/* Prepares a generator: test keys "sim0".."sim5", the rng and the store id
 * (SHA-256("kdapp-sim-store:" || seed u64 BE), 16 bytes) from `seed`, and
 * the chain of that store id (engine/chain.h), which the simulator's
 * engines follow (a daemon's instead: set `chain` before generating).
 * Errors: KD_ERR_INVALID_ARG (`only` not in `types`, or an empty table),
 * those of kd_key_test. */
kd_err kd_sim_gen_init(kd_sim_gen *g, const kd_type_table *types, const char *only, uint64_t seed) KD_WARN_UNUSED;
void kd_sim_gen_fini(kd_sim_gen *g);

/* The episodes at the model's tip (of types in the table). Errors:
 * KD_ERR_NOMEM. Release with kd_sim_scratch_fini. */
kd_err kd_sim_scratch_load(const kd_sim_gen *g, const kd_model *model, kd_sim_scratch *out) KD_WARN_UNUSED;
void kd_sim_scratch_fini(kd_sim_scratch *sc);

/* Appends one transaction payload (see above) to `payload`, updating the
 * scratch copy. Errors: KD_ERR_NOMEM, the types' encoding errors. */
kd_err kd_sim_gen_tx(kd_sim_gen *g, kd_sim_scratch *sc, kd_buf *payload) KD_WARN_UNUSED;

#endif
