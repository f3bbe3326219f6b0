/*
 * play.h — the `kdapp play` coordinator: one player per seat, one episode
 * of any registered type, the MCP gateway in between.
 *
 *   coordinator ──MCP──► gateway (embedded `kdapp mcp` child, --mcp-cmd, or --mcp-url)
 *     │ each turn: kdapp_get_episode_state (phase, to_move, seats, state)
 *     │            + kdapp_legal_moves ─► player ─► kdapp_execute_command
 *     │ every K moves: kdapp_simulate_reorg, then wait for the re-mined moves
 *     └ at the end: kdapp_get_episode_state (result and digest)
 *
 * The coordinator keeps no copy of the game: every turn starts from the
 * gateway's view, whose "state" member (the engine state's hex) it decodes
 * with the type's decode_state for the players, so a reorg or another
 * client cannot make it drift. A refused answer (unparsable, or an illegal move the gateway
 * rejected) goes back to the player with the reason and the legal moves, up
 * to the player's retry limit; then a random legal move is played for it and
 * counted.
 */
#ifndef KD_TOOLS_PLAY_H
#define KD_TOOLS_PLAY_H

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "tools/play/players.h"

#define KD_PLAY_DEFAULT_MAX_MOVES 100u
/* How long the coordinator waits for re-included moves after a reorg. */
#define KD_PLAY_REMINE_WAIT_MS 30000u

#define KD_PLAY_MAX_SEATS 8

typedef struct {
    const kd_type_table *types;             /* the registered types (borrowed, required) */
    const char *type;                       /* the episode's type [the first registered; resuming: the episode's] */
    uint32_t episode;                       /* resume this episode instead of starting one (0: start one) */
    const char *grant;                      /* the embedded gateway's --grant [agent1,...,agentN for N seats] */
    int open;                               /* open a table: the seats given a player are ours (none given:
                                               the first), the others open for other owners (play_table.c) */
    uint32_t join_timeout;                  /* open: the table's wait, DAA score (0: the engine's default) */
    uint32_t join;                          /* join this table (0: none) and play the seat taken */
    const char *join_seat;                  /* join: the seat, its name or number [the first open] */
    const char *join_player;                /* join: our seat's player [its default] */
    const char *join_args;                  /* open: what the join command needs beside --join (" --data D") */
    const char *resume_args;                /* what the resume command needs beside --episode (" --data D") */
    const atomic_int *stop;                 /* set (by a signal's thread): stop after the turn (may be NULL) */
    const char *params;                     /* its params JSON (an object; NULL: the engine defaults) */
    const char *players[KD_PLAY_MAX_SEATS]; /* player spec per seat (players.h) [kd_play_default_player] */
    const char *mcp_url;                    /* a Streamable HTTP gateway; or */
    const char *mcp_cmd;                    /* a stdio gateway started with /bin/sh -c; or, neither set: */
    const char *self_exe;                   /* this kdapp binary, run as `mcp --data D --keys K` [/proc/self/exe] */
    const char *data_dir, *keys_dir;        /* for the embedded gateway */
    uint64_t seed;                          /* every random choice of both players */
    uint32_t max_moves;                     /* [KD_PLAY_DEFAULT_MAX_MOVES] */
    unsigned depth;                         /* search plies, or a timed search's cap (players.h) */
    uint32_t think_ms;                      /* search time budget per move; 0: a fixed depth */
    uint32_t reorg_every, reorg_depth;      /* 0: no reorgs */
    const char *model;                      /* llm players' model */
    const char *llm_api_key;                /* llm players' bearer token (NULL: none) */
    const char *mcp_token;                  /* bearer token for --mcp-url (NULL: none) */
    int show_prompts;                       /* print what llm players are sent */
    int quiet;                              /* only the result lines */
    unsigned render_flags;                  /* boards: KD_RENDER_UNICODE or 0 (ASCII) */
    FILE *out;                              /* progress and result [stdout] */
    FILE *in;                               /* human input [stdin] */
    FILE *log;                              /* prompts [stderr] */
} kd_play_options;

typedef struct {
    uint32_t episode_id;
    int stopped;         /* ended by opts->stop, the game in progress */
    kd_game_phase phase; /* at the end */
    int winner;          /* the winning seat, or KD_SEAT_NONE */
    uint32_t move_count; /* the episode's move counter at the end: every command applied, duties included */
    uint32_t chosen;     /* the moves the players chose in this run (--max-moves counts these) */
    uint32_t reorgs;     /* reorgs performed */
    uint32_t remote;     /* bit per seat another owner plays */
    char digest[65];     /* the final chained digest (hex) */
    size_t seats;
    kd_player_stats stats[KD_PLAY_MAX_SEATS]; /* per seat */
} kd_play_result;

/*
 * Plays one game and prints its course to opts->out: a new episode, or
 * the one opts->episode names from where it stands (its type and seats
 * are the episode's; the players are given or default as for a new one).
 * With opts->open, a table whose other seats other owners take: its id
 * and the command that joins it are printed, and play starts once every
 * seat is taken; with opts->join, the seat taken at that table. Seats
 * another owner plays (a resumed episode's seats whose keys the gateway's
 * session does not hold, too) are waited for, never played.
 * When *opts->stop becomes non-zero, the game stops after the turn in
 * progress, and the result lines say so and give the command that
 * resumes it. Returns KD_OK when
 * the game ended (win, draw) or reached max_moves; `res` (zeroed first) is
 * filled as far as the game got. Errors, with a sentence in `why`:
 * KD_ERR_INVALID_ARG (a player spec, an unknown type, "search" for a type
 * without a bot, more players than seats), the MCP client's errors (the gateway
 * could not be started or reached, timeouts), KD_ERR_NET (an llm endpoint),
 * KD_ERR_CLOSED (a human's input ended; a table cancelled or closed past
 * its deadline before every seat was taken), KD_ERR_NOT_FOUND (no such
 * table), KD_ERR_DECODE (the gateway sent a
 * context that does not hold together). Not thread-safe with itself on
 * the same FILEs.
 */
kd_err kd_play_run(const kd_play_options *opts, kd_play_result *res, char *why, size_t why_len) KD_WARN_UNUSED;

/*
 * What resuming `episode` through the embedded gateway needs, read from
 * the store of `data_dir` (opened read-only, so beside a running daemon)
 * and the key directory: the episode's type name (*type, static), and in
 * `grant` the names of the keys of `keys_dir` that sit in its seats,
 * comma-separated, for the gateway to act for them. Errors, with a
 * sentence in `why` that ends with what to do: KD_ERR_NOT_FOUND (no such
 * episode; no key of the directory for a seat), the engine's open errors.
 */
kd_err kd_play_resume_find(const kd_registry *registry, const char *data_dir, const char *keys_dir, uint32_t episode,
                           const char **type, char *grant, size_t grant_len, char *why, size_t why_len) KD_WARN_UNUSED;

#endif
