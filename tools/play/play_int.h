/*
 * play_int.h — what the coordinator's files share (internal to
 * tools/play/): a tool call that must succeed, the open tables of
 * `kdapp play --open` and `--join` as the gateway lists them
 * (play_table.c), and the game one run plays (kd_play_game, its views
 * and the steps play.c runs it with), whose table-side steps are
 * play_owners.c's: each owner's kdapp play plays its own seats and waits
 * for the others'.
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

/* ------------------------------------------------- the coordinator's game
 * (play.c runs it, play_view.c reads and shows its views, play_owners.c
 * plays its tables and waits on the seats another owner plays) */

/* What the coordinator takes from one view. */
typedef struct {
    kd_game_phase phase;
    int winner, to_move;
    char *state_hex;  /* owned */
    void *state;      /* ops->state_size bytes, owned */
    uint64_t log_seq; /* the log entry the view reflects */
    uint64_t moves;   /* the episode's move counter ("move_count": every command applied) */
    uint64_t height;  /* the chain height after that log entry */
    int final;        /* that position is beyond the finality depth */
    int by_command;   /* its last event is a command (not a creation or a rollback) */
} kd_play_view;

/* One run of `kdapp play`: its options, gateway, type, players and the
 * episode they play. */
typedef struct {
    const kd_play_options *o;
    FILE *out;
    kd_mcp_client *mcp;
    const kd_episode_type *type;
    size_t seats;
    kd_player *players[KD_PLAY_MAX_SEATS];
    uint32_t episode;
    uint32_t remote;   /* bit per seat another owner plays: waited for, never played */
    uint32_t moves;    /* moves the players chose that the gateway accepted, in this run */
    kd_play_view last; /* the latest view the gateway sent */
    kd_play_result *res;
} kd_play_game;

/* 1 once the caller asked to stop (Ctrl-C): the turn in progress ends,
 * then the result lines and the resume command are printed. */
static inline int kd_play_game_stopping(const kd_play_game *g) { return g->o->stop && atomic_load(g->o->stop); }

static inline const char *kd_play_game_seat_name(const kd_play_game *g, int seat)
{
    return kd_episode_type_seat_name(g->type, seat);
}

/* 1 when another owner plays `seat` (waited for, never played). */
static inline int kd_play_game_seat_remote(const kd_play_game *g, int seat)
{
    return seat >= 0 && (g->remote & (UINT32_C(1) << seat));
}

/* The episode's arguments of a tool call: {"episode_id": g->episode}. */
static inline json_t *kd_play_game_episode_args(const kd_play_game *g)
{
    return json_pack("{s:I}", "episode_id", (json_int_t)g->episode);
}

/* ----------------------------------------------------------- play_view.c */

/* Parses the generic members of a view `j` of a `type` episode into `v`
 * (released first). Errors: KD_ERR_DECODE (no phase or state, a state
 * that does not decode), KD_ERR_NOMEM. */
kd_err kd_play_view_parse(const kd_episode_type *type, const json_t *j, kd_play_view *v, char *why,
                          size_t why_len) KD_WARN_UNUSED;

/* Releases what `v` owns and zeroes it. */
void kd_play_view_fini(kd_play_view *v);

/* printf to the game's output, unless quiet. */
__attribute__((format(printf, 2, 3))) void kd_play_game_show(kd_play_game *g, const char *fmt, ...);

/* Shows the board of `state` (the type's public view, drawn as text). */
void kd_play_game_print_board(kd_play_game *g, const void *state);

/* Shows the type's describe_change from `from` to `to`: each sentence
 * after `lead`, and `tail` after it ("; " ... "" to stay on a move's line,
 * "  " ... "\n" for lines of their own). */
void kd_play_game_show_change(kd_play_game *g, const void *from, const void *to, const char *lead, const char *tail);

/* kdapp_get_episode_state into `v`; *exists 0 when the episode is gone
 * (its creation rolled back). `digest` (65 bytes, may be NULL) gets the
 * digest. */
kd_err kd_play_game_read_state(kd_play_game *g, kd_play_view *v, int *exists, char *digest, char *why,
                               size_t why_len) KD_WARN_UNUSED;

/* ---------------------------------------------------------------- play.c */

/* The type (`type`, else --type, else the first registered) and one
 * player per seat: `seats` of them when resuming an episode, else as many
 * as named in `specs`, at least the type's minimum. */
kd_err kd_play_game_setup(kd_play_game *g, const char *type, size_t seats, const char *const *specs, char *why,
                          size_t why_len) KD_WARN_UNUSED;

/* Waits until the episode moves on from `now`: *next is the new view
 * (the caller's to release). Polls until `deadline` (kd_now_ms; 0: for as
 * long as it takes); stopped first (Ctrl-C), KD_OK with *next zeroed.
 * Errors: KD_ERR_TIMEOUT (past `deadline`, no sentence: the caller's),
 * KD_ERR_NOT_FOUND (the episode is gone), the gateway's. */
kd_err kd_play_game_await_change(kd_play_game *g, const kd_play_view *now, uint64_t deadline, kd_play_view *next,
                                 char *why, size_t why_len) KD_WARN_UNUSED;

/* Ends the line of a change the game waited for: what changed from `now`
 * (each sentence after `lead`), the board, and *next becomes the game's
 * latest view (taken: *next is zeroed). */
void kd_play_game_take_change(kd_play_game *g, const kd_play_view *now, kd_play_view *next, const char *lead);

/* --------------------------------------------------------- play_owners.c */

/* --open: the table with our seats (those not in g->remote) and the others
 * open; its id and the command that joins it (printed even when quiet:
 * another owner needs it), then the wait for every seat. */
kd_err kd_play_game_open_table(kd_play_game *g, char *why, size_t why_len) KD_WARN_UNUSED;

/* --join: the table's type and seats, the seat (--seat or the first open
 * one) taken with a key of the session, then the wait for every seat.
 * Errors: KD_ERR_INVALID_ARG with a sentence (no such table, not open,
 * an unknown type, no such open seat, the join refused), the client's. */
kd_err kd_play_game_join_table(kd_play_game *g, char *why, size_t why_len) KD_WARN_UNUSED;

/* Resuming table g->episode (`t`), which still waits for players: its
 * type and seats, ours those whose keys the session holds; then the wait,
 * as --open's. */
kd_err kd_play_game_resume_table(kd_play_game *g, const kd_play_table *t, char *why, size_t why_len) KD_WARN_UNUSED;

/* A seat another owner plays (its own kdapp play, through its own gateway)
 * is to act: waits until the episode moves on from `now`, for as long as
 * it takes (a person may be thinking; Ctrl-C stops), and shows what
 * changed. */
kd_err kd_play_game_wait_remote(kd_play_game *g, int seat, const kd_play_view *now, char *why,
                                size_t why_len) KD_WARN_UNUSED;

#endif
