/*
 * audit.h — one episode's draws proved from the log (`kdapp audit`).
 *
 * The episode is replayed from its creation through its type's own rules
 * (kd_episode_ops: resolve nothing, the log keeps the params in effect),
 * with the transactions of the canonical chain only, in log order, found
 * through the store's index of the episode's own log entries
 * (kd_read_episode_history): an audit reads that episode's entries, not
 * the whole log, so its cost does not grow with the store. Each
 * command that answers a draw (kd_episode_type.draw_of) is shown as anyone
 * can re-check it by hand: the VRF input, the proof and whether it
 * verifies under the house's committed key, the output, every word its
 * number stream read (kept or skipped, with the bound) and the outcome the
 * rules give it. At the end the replayed state is compared with the
 * store's, so the audit also says whether the store's view is what the log
 * proves.
 *
 * The report (a JSON object):
 *   {"episode", "type", "participants": [hex], "params": {...},
 *    "created": {"log_seq", "block", "daa"},
 *    "draws": [{"draw", "log_seq", "block", "daa", "tx", "house_key",
 *               "draw_input" (3, or 2 for episodes created before
 *               issue 37), "input_parts": {"tag", "tag_hex",
 *               "episode_id", "draw", "ask_sha256" (version 2:
 *               "entropy")}, "ask": {"log_seq", "tx", "command": the
 *               ask's bytes} (version 3; null when no applied command
 *               hashes to it) or "entropy" (version 2), "input", "proof",
 *               "verified", "output",
 *               "words": [{"block", "word", "n", "bound", "kept", "value"}],
 *               "outcome": {...}}],
 *    "commands": applied commands replayed,
 *    "replay_matches_store": bool, "verdict": "ok" or a sentence}
 * A draw whose proof does not verify, a command the log says applied and
 * the rules refuse on replay, or a final state other than the store's
 * make the verdict a sentence naming it.
 */
#ifndef KD_HANDLERS_AUDIT_H
#define KD_HANDLERS_AUDIT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"
#include "episodes/episode_type.h"

/* The audit of episode `id` (above) in *out (new reference), read through
 * one read handle of `engine`. Errors, with a sentence in `why`:
 * KD_ERR_NOT_FOUND (no creation of `id` on the canonical chain),
 * KD_ERR_UNKNOWN_TYPE (its type is not in `types`), KD_ERR_UNSUPPORTED
 * (its type draws nothing: no draw_of), storage errors, KD_ERR_NOMEM. */
kd_err kd_audit_episode(kd_engine *engine, const kd_type_table *types, uint32_t id, json_t **out, char *why,
                        size_t why_len) KD_WARN_UNUSED;

/* The audit as text for people: one paragraph per draw, then the verdict. */
kd_err kd_audit_text(const json_t *audit, kd_buf *out) KD_WARN_UNUSED;

#endif
