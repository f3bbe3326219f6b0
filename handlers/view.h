/*
 * view.h — the enriched view of an episode of any type, and its renderings:
 * the EpisodeView protobuf (published on NNG), JSON (tools and MCP), the
 * strategy context, a text board for people and a language model's prompt.
 *
 * kd_episode_view is the domain form. It is built from a committed event
 * (handlers), from a stored snapshot (queries), or from a received
 * EpisodeView (subscribers), so every consumer renders the same thing. It
 * knows no game: the type's public view bytes (view_encode) and encoded
 * engine state ride along, and every rendering goes through the type's
 * entry in the caller's kd_type_table (episodes/episode_type.h):
 *
 *   state ──view_encode(PUBLIC)──► view bytes ──view_json──────► JSON members
 *     │                               │        ─strategy_context► strategy JSON
 *     └─status()──► phase, winner,    │        ─render_text─────► text board
 *                   to_move           └────────prompt(seat)─────► prompt
 *
 * A view whose type the caller's table does not know (type == NULL) keeps
 * its raw bytes and renders only the generic fields.
 *
 * Ownership: a kd_episode_view owns its view and state buffers: init it,
 * fill it with one builder, fini it (the builders start by emptying it, so
 * one view may be refilled). Plain struct copies share the buffers: fini
 * only one of them. Threading: a view is used by one thread at a time; the
 * type table must outlive it.
 */
#ifndef KD_HANDLERS_VIEW_H
#define KD_HANDLERS_VIEW_H

#include <jansson.h>

#include "engine/engine.h"
#include "episodes/episode_type.h"

typedef struct {
    uint32_t episode_id;
    const kd_episode_type *type; /* NULL when the caller's table does not know type_name */
    char type_name[KD_TYPE_NAME_MAX];
    kd_participants participants; /* in seat order */
    kd_event_kind last_event;
    /* The position the view reflects, each member of the same one: the
     * commit (log entry) that changed the episode last, its block, the
     * chained digest after it and the chain height after it. */
    uint8_t block_hash[KD_HASH_LEN];
    uint64_t log_seq;
    uint8_t digest[KD_HASH_LEN];
    uint64_t height;
    int final;      /* that position is beyond the finality depth: no reorg undoes it (read from the store only) */
    int deleted;    /* the creation was rolled back: no state, no view */
    uint64_t moves; /* the move counter: commands applied (a seat's choice or a duty paid for it) */
    kd_game_status status; /* in progress with nobody to move when deleted or unknown */
    kd_buf view;           /* the type's public view message (view_encode, KD_SEAT_PUBLIC) */
    kd_buf state;          /* the type's encoded engine state (ops->encode_state) */
} kd_episode_view;

/* Empties `view` (status: in progress, no seat to move). */
void kd_episode_view_init(kd_episode_view *view);
/* Frees the buffers; accepts an initialised or filled view. */
void kd_episode_view_fini(kd_episode_view *view);

/* From a commit event (the state after the commit), the type looked up in
 * `types` by the event's type name. Errors: KD_ERR_NOMEM. */
kd_err kd_episode_view_from_event(const kd_type_table *types, const kd_episode_event *event, const kd_commit *commit,
                                  kd_episode_view *out) KD_WARN_UNUSED;
/* From a stored snapshot; `digest` (may be NULL) is the digest after the
 * snapshot's log position (kd_read_log_position, in the same read handle),
 * which the caller also sets `height` and `final` from. Errors:
 * KD_ERR_NOMEM. */
kd_err kd_episode_view_from_snapshot(const kd_type_table *types, const kd_episode_snapshot *snap, const uint8_t *digest,
                                     kd_episode_view *out) KD_WARN_UNUSED;
/* Reads episode `id` as a view through read handle `rd`: its state, and
 * the digest and height after its last event's log entry (not the tip's:
 * the position, the digest and the height shown together are one
 * position's), `final` from the tip's height and finality depth. Errors:
 * KD_ERR_NOT_FOUND,
 * KD_ERR_UNKNOWN_TYPE (not registered with the engine), storage errors,
 * KD_ERR_NOMEM. */
kd_err kd_episode_view_read(const kd_type_table *types, kd_read *rd, uint32_t id, kd_episode_view *out) KD_WARN_UNUSED;

/* EpisodeView protobuf bytes, appended to `out`. Errors: KD_ERR_NOMEM. */
kd_err kd_episode_view_pack(const kd_episode_view *view, kd_buf *out) KD_WARN_UNUSED;
/* Parses and validates EpisodeView bytes (hash and key lengths, the seats
 * of the status; for a type `types` knows, that the state decodes and the
 * view renders). A type it does not know keeps its raw bytes (type NULL).
 * Errors: KD_ERR_DECODE, KD_ERR_NOMEM; `out` is then empty and holds no
 * storage (fini is not needed, and harmless). */
kd_err kd_episode_view_unpack(const kd_type_table *types, const uint8_t *data, size_t len,
                              kd_episode_view *out) KD_WARN_UNUSED;

/* The enriched view as JSON (new reference, NULL on allocation failure):
 * the generic fields {episode_id, type, participants[hex], last_event,
 * block_hash, log_seq, digest, height, final, deleted, move_count (the
 * move counter: every command applied, a seat's choice or a duty paid for
 * it, as signatures count them), phase ("in_progress" | "won" |
 * "draw"), winner (seat or null), to_move (seat or null), seats (names, one
 * per participant), state (hex)}, then the type's view_json members at the
 * top level; a type's member never replaces a generic one of the same
 * name. */
json_t *kd_episode_view_json(const kd_episode_view *view);
/* The type's strategy context (kdapp_get_strategy_context), new
 * reference; NULL when
 * the type is unknown, the episode deleted, or on allocation failure. */
json_t *kd_episode_view_strategy_json(const kd_episode_view *view);
/* Appends the type's text board (no NUL); `flags` as render_text's
 * (KD_RENDER_UNICODE). Errors: KD_ERR_UNKNOWN_TYPE (type NULL),
 * KD_ERR_NOT_FOUND (deleted), KD_ERR_DECODE, KD_ERR_NOMEM. */
kd_err kd_episode_view_render(const kd_episode_view *view, unsigned flags, kd_buf *out) KD_WARN_UNUSED;
/* Appends the type's turn prompt for `seat` (no NUL): what the MCP prompt
 * kdapp_turn and the language-model player show. Errors: as render, and
 * KD_ERR_INVALID_ARG (no such seat). */
kd_err kd_episode_view_prompt(const kd_episode_view *view, int seat, kd_buf *out) KD_WARN_UNUSED;

/* Appends the legal moves of `seat` in the view's state (the type's
 * legal_moves over the decoded state bytes): each a command with its
 * notation, none when the seat may not act. Errors: KD_ERR_UNKNOWN_TYPE,
 * KD_ERR_NOT_FOUND (deleted), KD_ERR_DECODE, KD_ERR_NOMEM. */
kd_err kd_episode_view_legal_moves(const kd_episode_view *view, int seat, kd_legal_moves *out) KD_WARN_UNUSED;

/* "initialize", "command", "rollback". */
const char *kd_event_kind_name(kd_event_kind kind);

#endif
