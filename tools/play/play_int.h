/*
 * play_int.h — what the coordinator's files share (internal to
 * tools/play/): a tool call that must succeed, and the open tables of
 * `kdapp play --open` and `--join` (play_table.c), where each owner's
 * kdapp play plays its own seats and waits for the others'.
 *
 *   --open    kdapp_start_episode with "open" participants ─► table ID
 *             (prints the command another owner pastes) ─┐
 *   --join ID kdapp_list_tables {ID} ─► kdapp_join_episode ┤
 *                                                           ▼
 *             kdapp_list_tables {ID} until "started" (or cancelled,
 *             closed past its deadline) ─► the game, our seats only
 */
#ifndef KD_TOOLS_PLAY_INT_H
#define KD_TOOLS_PLAY_INT_H

#include "tools/play/mcp_client.h"
#include "tools/play/play.h"

/*
 * tools/call `tool` (args stolen) that must succeed: *sc is its structured
 * result (a new reference). A tool error is KD_ERR_UNSUPPORTED with "TOOL
 * failed: its text" in `why`; other errors the client's.
 */
kd_err kd_play_call(kd_mcp_client *mcp, const char *tool, json_t *args, json_t **sc, char *why,
                    size_t why_len) KD_WARN_UNUSED;

/* A table as the gateway lists it (kdapp_list_tables {episode_id}). */
typedef struct {
    char type[64];
    char status[16]; /* open, started, cancelled, closed */
    size_t seats;
    uint32_t taken; /* bit s: seat s has a key */
    uint64_t deadline_daa, tip_daa;
} kd_play_table;

/*
 * Reads table `id`. Errors: KD_ERR_NOT_FOUND (no such table: the gateway's
 * sentence in `why`), KD_ERR_DECODE (an answer without its members), the
 * client's.
 */
kd_err kd_play_table_read(kd_mcp_client *mcp, uint32_t id, kd_play_table *t, char *why, size_t why_len) KD_WARN_UNUSED;

/*
 * Opens a table of `type` with `seats` seats: the seats of `mine` (bit per
 * seat) get the embedded gateway's agent keys (agent1, agent2, ... in seat
 * order; through --mcp-url or --mcp-cmd the session's granted keys, by
 * kdapp_get_agent_pubkeys), the others are open; o->params and
 * o->join_timeout go with it. *id is the table. Errors: the gateway's
 * refusal (KD_ERR_INVALID_ARG, its sentence), the client's.
 */
kd_err kd_play_table_open(kd_mcp_client *mcp, const kd_play_options *o, const kd_episode_type *type, size_t seats,
                          uint32_t mine, uint32_t *id, char *why, size_t why_len) KD_WARN_UNUSED;

/*
 * Joins table `id` at `seat` with a key of the session (the gateway's
 * choice: the first not at the table). Errors: KD_ERR_INVALID_ARG with the
 * gateway's sentence (no such table, full, cancelled, past its deadline,
 * not an open seat, no key to sit with) or the chain's refusal, the
 * client's.
 */
kd_err kd_play_table_join(kd_mcp_client *mcp, uint32_t id, int seat, char *why, size_t why_len) KD_WARN_UNUSED;

/*
 * Waits until table `id` has started (every seat taken), printing to `out`
 * (unless quiet) each seat as it is taken. Returns KD_OK with *stopped set
 * when `stop` became non-zero first. Errors, with a sentence: KD_ERR_CLOSED
 * (cancelled, or closed unfilled past its deadline), the client's.
 */
kd_err kd_play_table_wait(kd_mcp_client *mcp, uint32_t id, const kd_episode_type *type, const atomic_int *stop,
                          int quiet, FILE *out, int *stopped, char *why, size_t why_len) KD_WARN_UNUSED;

/*
 * The seats of `participants` (a view's or a table's keys, hex; null for
 * an open seat) whose keys the session holds (kdapp_get_agent_pubkeys: its
 * agents and the house), as a bit per seat in *mine. Errors: the client's.
 */
kd_err kd_play_seats_held(kd_mcp_client *mcp, const json_t *participants, uint32_t *mine, char *why,
                          size_t why_len) KD_WARN_UNUSED;

#endif
