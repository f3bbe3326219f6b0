/*
 * bench_episode.h — the episodes `kdapp bench` plays itself, whatever the
 * types: which types it can play alone (chosen from the type table by what
 * they offer, never by name) and one way to start an episode of them
 * (its state here, its creation payload for a block). Internal to the
 * bench; pure functions of their arguments.
 */
#ifndef KD_TOOLS_BENCH_EPISODE_H
#define KD_TOOLS_BENCH_EPISODE_H

#include <stddef.h>
#include <stdint.h>

#include "engine/bytes.h"
#include "engine/err.h"
#include "episodes/episode_type.h"
#include "tools/bench/bench.h"

/* Whether the bench can play `t` with test keys alone: it draws random
 * commands, keeps no seat's secret and has no house seat. */
int kd_bench_type_playable(const kd_episode_type *t);
/* The type the bench plays where one game is enough: b->type when it is
 * playable, else the first playable type of b->types; NULL when none is. */
const kd_episode_type *kd_bench_play_type(const kd_bench_ctx *b);
/* How many seats the bench fills in an episode of `t`: two when it may, else its minimum. */
size_t kd_bench_seats(const kd_episode_type *t);

/* The chain the bench's own stores follow (every one it opens names it),
 * which its creations' consents sign. */
#define KD_BENCH_CHAIN "local:62656e63680000000000000000000000"

/*
 * Starts episode `id` of `t` among the keys seats[0..n-1] with `params`
 * (NewEpisode bytes; the engine defaults of `types` resolve them as the
 * engine will): its state into `state` (t->ops->state_size bytes,
 * overwritten) and its creation payload, every seat consenting on `chain`
 * (engine/rules.c), appended to `payload`. Errors: the type's from
 * resolve_params and init, kd_consent_sign's, kd_wire's; KD_ERR_NOMEM.
 */
kd_err kd_bench_episode_create(const kd_type_table *types, const kd_episode_type *t, const kd_buf *params, uint32_t id,
                               const kd_key *seats, size_t n, const char *chain, void *state,
                               kd_buf *payload) KD_WARN_UNUSED;

#endif
