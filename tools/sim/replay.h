/*
 * replay.h — rebuilding a store from another store's log, and comparing two
 * stores. `kdapp replay` and `kdapp verify` are built on it; so is the
 * simulator's periodic check against a fresh engine.
 *
 * A full replay re-applies every log entry in order, reverts and refusals
 * included; a canonical replay re-applies only the accepts of the blocks
 * still applied. Both must reproduce the live store: the same episodes
 * byte for byte and the same digest.
 */
#ifndef KD_TOOLS_REPLAY_H
#define KD_TOOLS_REPLAY_H

#include "engine/engine.h"

typedef struct {
    uint64_t entries;       /* log entries replayed */
    uint64_t first_bad_seq; /* first entry whose outcome or digest differs; 0 = none */
    char first_bad_what[256];
    int episodes_match;         /* same episodes, same bytes */
    uint32_t first_bad_episode; /* when !episodes_match */
    char episode_what[256];
    int digest_match;
    uint8_t source_digest[KD_HASH_LEN], replay_digest[KD_HASH_LEN];
} kd_replay_report;

/* Replays `src`'s log into the empty engine `dst` (canonical_only: only
 * the blocks still applied), recording the first divergence. Open `dst`
 * following src's chain (kd_engine_options.chain = kd_engine_chain(src)),
 * as `kdapp replay` and `kdapp verify` do: the consents of the log's
 * creations sign that chain, so a replay that checks them (signatures not
 * trusted) into a store of another chain refuses them, a divergence in
 * `rep`. Errors are storage failures only. */
kd_err kd_replay_log(kd_engine *src, kd_engine *dst, int canonical_only, kd_replay_report *rep) KD_WARN_UNUSED;

/* Compares the episodes and digests of two engines into `rep`. */
kd_err kd_replay_compare(kd_engine *a, kd_engine *b, kd_replay_report *rep) KD_WARN_UNUSED;

/* 1 when the report shows no divergence at all. */
int kd_replay_ok(const kd_replay_report *rep);

/* Removes a directory tree (for temporary replay targets). */
void kd_remove_tree(const char *path);

#endif
