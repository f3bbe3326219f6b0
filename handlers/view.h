/*
 * view.h — the enriched view of an episode, and its three renderings:
 * the EpisodeView protobuf (published on NNG), JSON (tools and MCP), and a
 * text board for people.
 *
 * kd_episode_view is the domain form. It is built from a committed event
 * (handlers), from a stored snapshot (queries), or from a received
 * EpisodeView (subscribers), so every consumer renders the same thing.
 */
#ifndef KD_HANDLERS_VIEW_H
#define KD_HANDLERS_VIEW_H

#include <jansson.h>

#include "engine/engine.h"
#include "episodes/tictactoe.h"

typedef struct {
    uint32_t episode_id;
    char type[KD_TYPE_NAME_MAX];
    kd_participants participants;
    kd_event_kind last_event;
    uint8_t block_hash[KD_HASH_LEN];
    uint64_t log_seq;
    uint8_t digest[KD_HASH_LEN];
    int deleted; /* the creation was rolled back */
    int has_ttt; /* type "tictactoe": ttt is filled */
    kd_ttt_view ttt;
} kd_episode_view;

/* From a commit event (the state after the commit). */
void kd_episode_view_from_event(const kd_episode_event *event, const kd_commit *commit, kd_episode_view *out);
/* From a stored snapshot; `digest` is the tip digest read in the same read
 * handle as the snapshot (may be NULL). */
void kd_episode_view_from_snapshot(const kd_episode_snapshot *snap, const uint8_t *digest, kd_episode_view *out);
/* Reads episode `id` as a view through read handle `rd`: its state and
 * the tip digest come from the same commit. Errors: KD_ERR_NOT_FOUND,
 * KD_ERR_UNKNOWN_TYPE, storage errors. */
kd_err kd_episode_view_read(kd_read *rd, uint32_t id, kd_episode_view *out) KD_WARN_UNUSED;

/* EpisodeView protobuf bytes, appended to `out`. */
kd_err kd_episode_view_pack(const kd_episode_view *view, kd_buf *out) KD_WARN_UNUSED;
/* Parses EpisodeView bytes. Errors: KD_ERR_DECODE. */
kd_err kd_episode_view_unpack(const uint8_t *data, size_t len, kd_episode_view *out) KD_WARN_UNUSED;

/* The enriched view as JSON (new reference, NULL on allocation failure):
 * {episode_id, type, participants[hex], board[[..]], current, status, cap,
 *  recent_moves[{row,col,player}], next_to_remove, move_count, last_event,
 *  block_hash, log_seq, digest, deleted}. */
json_t *kd_episode_view_json(const kd_episode_view *view);
/* Exactly the kdapp_get_strategy_context shape (DESIGN.md):
 * {board, current, cap, next_to_remove, recent_moves, rule_text}. */
json_t *kd_strategy_context_json(const kd_ttt_view *ttt);

/* A text board ("X . O" rows, whose turn, the mark removed next). */
kd_err kd_render_board(const kd_ttt_view *ttt, kd_buf *out) KD_WARN_UNUSED;

const char *kd_event_kind_name(kd_event_kind kind);
const char *kd_ttt_status_name(uint8_t status);

#endif
