/*
 * sim_report.h — what the simulator reports: the summary of a run, and the
 * reproduction script of a session (its chain events as block-script
 * lines, written out on a mismatch so that `kdapp feed` replays them).
 */
#ifndef KD_TOOLS_SIM_REPORT_H
#define KD_TOOLS_SIM_REPORT_H

#include <jansson.h>
#include <stdio.h>

#include "engine/wire.h"
#include "tools/sim/sim.h"

/* Appends an accept (txs as payload_hex with their tx ids) or a revert to
 * `lines`, a JSON array of block-script lines. */
void kd_sim_repro_accept(json_t *lines, const uint8_t hash[KD_HASH_LEN], uint64_t daa, uint64_t time_ms,
                         const kd_wire_tx *txs, size_t n);
void kd_sim_repro_revert(json_t *lines, const uint8_t hash[KD_HASH_LEN]);
/* Writes `lines` to o->repro_path (or kdapp-sim-seed<S>-step<N>.jsonl) with a
 * header saying how to feed it; tells `out` where it went. */
void kd_sim_repro_write(const json_t *lines, const kd_sim_options *o, uint64_t step, FILE *out);

#endif
