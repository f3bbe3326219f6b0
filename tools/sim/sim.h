/*
 * sim.h — `kdapp sim`: a seeded, reproducible chain simulator that drives
 * the engine through forks and reorganisations and checks it after every
 * step against the model oracle (tools/sim_model.h).
 *
 * Each step sends one chain event:
 *
 *   new block      1..6 txs of every registered type (tools/sim_gen.h):
 *                  creations with varied params, legal commands, commands
 *                  the type's rules refuse, wrong signers, unsigned, stale
 *                  counters, replayed signatures, unknown episodes, and
 *                  undecodable payloads
 *   reorg          revert d tips (d from a geometric distribution, some
 *                  deeper than the stress window, some past the finality
 *                  depth, which must be refused), then a new branch that
 *                  re-includes the reverted txs (some dropped, some
 *                  reordered) plus new ones
 *   duplicate      an applied block delivered again; a reverted block's
 *                  revert delivered again
 *   bogus revert   an unknown hash, or an applied block that is not the tip
 *
 * After each step the engine's verdict (status, refusal reason, every tx's
 * verdict) and its digest must equal the model's. Every session (a fresh
 * data directory) ends with a fresh engine fed only the canonical chain and
 * a full log replay, both of which must match the live store exactly.
 */
#ifndef KD_TOOLS_SIM_H
#define KD_TOOLS_SIM_H

#include <stdio.h>

#include "engine/engine.h"
#include "episodes/episode_type.h"

typedef struct {
    uint64_t seed;
    uint64_t steps;             /* chain events to send in all */
    uint64_t session_steps;     /* events per fresh data directory (local mode) */
    uint64_t finality;          /* finality depth of the engines */
    uint32_t max_reorg;         /* deepest ordinary reorg (deep ones go past finality) */
    double p_reorg;             /* chance a step starts a reorg */
    double p_drop;              /* chance a re-included tx is dropped */
    const char *work_dir;       /* where session directories go */
    int keep;                   /* keep each session's stores (its directory's "live" is the store) */
    const char *connect;        /* drive a daemon at this ingest URL instead */
    const char *repro_path;     /* reproduction script on a mismatch */
    const kd_type_table *types; /* the types and their engine defaults (borrowed, required) */
    const char *type;           /* simulate only this type; NULL: every type of `types`, mixed */
    const char *env_note;       /* "NAME=VALUE ..." of the types' settings in force, for the repro line */
    int verbose;
} kd_sim_options;

#define KD_SIM_MAX_DEPTH 64

typedef struct {
    uint64_t steps, blocks, reorgs, reverts, duplicates, refusals;
    uint64_t reorgs_by_depth[KD_SIM_MAX_DEPTH + 1]; /* last bucket: deeper */
    uint64_t moves_applied, moves_rolled_back;
    uint64_t episodes_created, sessions, oracle_checks;
    kd_code_counts rejections; /* by short code (engine or rule code) */
    uint64_t refused[64];      /* by kd_err */
    uint64_t mismatches;
    double seconds;
} kd_sim_summary;

void kd_sim_options_default(kd_sim_options *opts);
/* Runs the simulation. Returns KD_OK when it ran (mismatches are counted
 * in the summary and reported on `out`); other errors are environmental. */
kd_err kd_sim_run(const kd_sim_options *opts, kd_sim_summary *sum, FILE *out) KD_WARN_UNUSED;
void kd_sim_print_summary(const kd_sim_summary *sum, const kd_sim_options *opts, FILE *out);

#endif
