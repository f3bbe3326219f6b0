/*
 * bench_scale_int.h — what the parts of `kdapp bench --scale` share: a
 * store grown to a number of episodes (bench_scale_grow.c) and probe blocks
 * of signed moves on its live episodes; the checkpoints, the children and
 * the report are in bench_scale.c. Internal to the bench; single-threaded
 * callers (the growth signs on two threads inside one call).
 */
#ifndef KD_TOOLS_BENCH_SCALE_INT_H
#define KD_TOOLS_BENCH_SCALE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"
#include "engine/sigcheck.h"
#include "tools/bench/bench.h"

#define KD_SCALE_KEYS 8         /* test keys "scale0".."scale7" sign every move */
#define KD_SCALE_MOVES_PER_EP 9 /* moves per episode at most: with its creation, 10 txs */
#define KD_SCALE_VARIANTS_MAX 8

/* One kind of episode the growth creates: a type and its params. */
typedef struct {
    const kd_episode_type *type;
    kd_buf params; /* NewEpisode params bytes */
} kd_scale_variant;

typedef struct kd_scale_lane kd_scale_lane;

/* A store being grown, with its engine open (or closed between phases). */
typedef struct {
    const kd_bench_ctx *b;
    char dir[400];
    kd_registry reg;
    kd_engine *engine; /* NULL while closed */
    uint64_t finality; /* blocks of undo kept */
    kd_key keys[KD_SCALE_KEYS];
    kd_scale_variant var[KD_SCALE_VARIANTS_MAX];
    size_t n_var;
    kd_scale_lane *lanes; /* the episodes being played, one tx each per block */
    size_t n_lanes;
    uint8_t *states;
    size_t stride;
    void *undo;
    kd_sig_pool *pool;
    uint64_t rng;
    uint32_t episodes; /* created */
    uint64_t txs;      /* applied transactions: creations and moves */
    uint64_t blocks;   /* blocks applied by the growth */
    char tag[16];
} kd_scale_store;

/* Creates an empty store in `dir` (txs of `lanes` episodes per block,
 * undo kept for `finality` blocks) with the episode kinds of b->types that
 * need no hidden secrets. Errors: KD_ERR_NOT_FOUND (no such type),
 * KD_ERR_NOMEM, the engine's from kd_engine_open (`why`). */
kd_err kd_scale_store_open(const kd_bench_ctx *b, kd_scale_store *s, const char *dir, const char *tag, size_t lanes,
                           uint64_t finality, char *why, size_t why_len) KD_WARN_UNUSED;
/* Closes the engine and frees everything (the directory stays). */
void kd_scale_store_close(kd_scale_store *s);
/* Closes or reopens the engine (for child processes or a copy). */
void kd_scale_store_detach(kd_scale_store *s);
kd_err kd_scale_store_attach(kd_scale_store *s, char *why, size_t why_len) KD_WARN_UNUSED;
/* Grows until `episodes` were created. Errors: the engine's; KD_ERR_INTERNAL
 * when a transaction of the growth was rejected (it never should). */
kd_err kd_scale_store_grow(kd_scale_store *s, uint32_t episodes, char *why, size_t why_len) KD_WARN_UNUSED;
/* Opens an engine on another directory with the store's types and finality. */
kd_err kd_scale_engine_open(kd_scale_store *s, const char *dir, int read_only, kd_engine **out, char *why,
                            size_t why_len) KD_WARN_UNUSED;

/* A block of signed moves on distinct live episodes and its revert. */
typedef struct {
    kd_buf accept, revert;
    size_t moves;
    uint32_t *ids;    /* the episodes moved */
    kd_sig_job *jobs; /* their signatures, already verified */
} kd_scale_probe;

/* Builds a probe of up to `moves` moves on episodes of `engine` drawn at
 * random from ids first..last (those in progress), signed with s's keys.
 * Errors: KD_ERR_NOT_FOUND (no live episode found), KD_ERR_NOMEM. */
kd_err kd_scale_probe_make(kd_scale_store *s, kd_engine *engine, uint32_t first, uint32_t last, size_t moves,
                           uint64_t seed, kd_scale_probe *p) KD_WARN_UNUSED;
void kd_scale_probe_fini(kd_scale_probe *p);

#endif
