/*
 * players.h — the players of `kdapp play`: where a move comes from.
 *
 *   random   a uniformly random legal move (seeded)
 *   search   negamax with alpha-beta over the real rules (kd_ttt_play), so
 *            the lookahead sees the sliding window: the eviction of the
 *            mover's and the opponent's oldest marks
 *   llm:URL  an OpenAI-compatible chat-completions endpoint (player_llm.c)
 *   human    "row col" typed at the terminal (player_human.c)
 *
 * A player sees one kd_play_turn: the strategy context the gateway served
 * this turn (as a kd_ttt_view), the state rebuilt from it for lookahead, and
 * a way to fetch the gateway's kdapp_turn prompt. Nothing here keeps a
 * mirror of the game between turns; the coordinator (play.c) asks the
 * gateway every turn.
 *
 * Determinism: every random choice comes from the player's own generator,
 * seeded from --seed, so a game replays exactly (an llm's answers aside).
 *
 * Threading: a player is used by one thread at a time; the pure functions
 * (kd_search_move, the parsers) are reentrant.
 */
#ifndef KD_TOOLS_PLAYERS_H
#define KD_TOOLS_PLAYERS_H

#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "episodes/tictactoe.h"

#define KD_SEARCH_DEFAULT_DEPTH 4u
/* KD_SEARCH_MAX_DEPTH: episodes/tictactoe.h */
/* Retries a player gets in one turn after a refused answer (unparsable or
 * illegal); when the last one is refused too, a random legal move is played
 * for it. The human player is asked until it answers or its input ends. */
#define KD_PLAYER_RETRY_LIMIT 3u

/* ---------------------------------------------------------------- rng */

/* A small seeded generator (splitmix64), in the caller's storage. */
typedef struct {
    uint64_t s;
} kd_play_rng;

void kd_play_rng_seed(kd_play_rng *rng, uint64_t seed);
uint64_t kd_play_rng_next(kd_play_rng *rng);
/* Uniform in [0, n); n > 0. */
uint32_t kd_play_rng_below(kd_play_rng *rng, uint32_t n);

/* ---------------------------------------------------- context and state */

/*
 * Fills `out` (zeroed first) from a strategy context ({board, current, cap,
 * next_to_remove, recent_moves, rule_text}) or an enriched view (the same
 * fields plus status and move_count). Missing status means in progress.
 * Errors: KD_ERR_DECODE with a sentence in `why` naming the bad field.
 */
kd_err kd_play_view_from_json(const json_t *j, kd_ttt_view *out, char *why, size_t why_len) KD_WARN_UNUSED;

/*
 * Rebuilds a kd_ttt_state that kd_ttt_play accepts from a view: board,
 * side to move, cap; in stress mode the history is recent_moves (oldest
 * first), in classic mode the marks in row-major order (their order does
 * not matter to the classic rules). Both seats hold the same all-zero key,
 * so a lookahead signs with &state->players[0]. move_count is the smallest
 * count consistent with the window and the side to move. Errors:
 * KD_ERR_DECODE when the board and recent_moves disagree.
 */
kd_err kd_play_state_from_view(const kd_ttt_view *v, kd_ttt_state *out, char *why, size_t why_len) KD_WARN_UNUSED;

/* ---------------------------------------------------------- pure moves */

/* A uniformly random legal move. Errors: KD_ERR_NO_MOVE (none). */
kd_err kd_random_move(const kd_ttt_state *s, kd_play_rng *rng, kd_ttt_cell *out) KD_WARN_UNUSED;

/* The search player's move: kd_search_move (episodes/tictactoe.h). */

/*
 * Parses an llm reply strictly (player_llm.c). Accepted: exactly one JSON
 * object {"row": R, "col": C} with integer R and C in 0..2 and no other
 * members, optionally with surrounding whitespace, inside one Markdown code
 * fence (```json ... ``` or ``` ... ```), and after one leading
 * <think>...</think> block (reasoning models emit one). Anything else —
 * prose around the object, two objects, strings for numbers, extra
 * members — is refused. Errors: KD_ERR_PARSE with a sentence in `why` that
 * can be shown to the model.
 */
kd_err kd_llm_parse_move(const char *content, kd_ttt_cell *out, char *why, size_t why_len) KD_WARN_UNUSED;

/* -------------------------------------------------------------- players */

/* What a player gets each turn. */
typedef struct {
    uint32_t episode_id;
    char me;            /* 'X' or 'O': the side to move */
    kd_ttt_view view;   /* this turn's strategy context */
    kd_ttt_state state; /* rebuilt from it (kd_play_state_from_view) */
    /* Fetches the gateway's kdapp_turn prompt for `me` (malloc'd text).
     * Set by the coordinator; players that need no prompt never call it. */
    kd_err (*get_prompt)(void *ctx, char **text, char *why, size_t why_len);
    void *prompt_ctx;
} kd_play_turn;

typedef struct {
    uint64_t seed;           /* this player's generator */
    unsigned depth;          /* search: plies [KD_SEARCH_DEFAULT_DEPTH] */
    const char *model;       /* llm: the "model" member (omitted when NULL) */
    const char *api_key;     /* llm: bearer token (NULL: none) */
    uint32_t llm_timeout_ms; /* llm: one chat completion [120000] */
    int show_prompts;        /* llm: print every prompt and reply to `log` */
    FILE *in, *out;          /* human: where moves are read and asked [stdin, stdout] */
    FILE *log;               /* show_prompts output [stderr] */
} kd_player_options;

/* A player kind: an ops table, filled with designated initialisers. */
typedef struct {
    const char *kind;
    /* Chooses a move. `feedback` is NULL on a turn's first attempt, else
     * why the previous answer was refused, with the legal moves. Returns
     * KD_OK with *move set; KD_ERR_PARSE when the answer could not be
     * understood (counted as a failed attempt, `why` says what was wrong);
     * any other error ends the game (`why` says why). */
    kd_err (*choose)(void *impl, const kd_play_turn *turn, const char *feedback, kd_ttt_cell *move, char *why,
                     size_t why_len);
    void (*free)(void *impl);
    unsigned retry_limit; /* retries after refused answers per turn; 0: unlimited */
    int interactive;      /* a person at the terminal: it shows the feedback itself */
} kd_player_ops;

typedef struct kd_player kd_player;

/*
 * Creates a player from a spec: "random", "search", "llm:URL" (URL is the
 * API base, e.g. http://127.0.0.1:1234/v1, or a full .../chat/completions
 * URL) or "human". Errors: KD_ERR_INVALID_ARG (unknown spec, bad URL) with
 * `why`, KD_ERR_NOMEM. Strings in `opts` are copied.
 */
kd_err kd_player_alloc(const char *spec, const kd_player_options *opts, kd_player **out, char *why,
                       size_t why_len) KD_WARN_UNUSED;
void kd_player_free(kd_player *p);

/* The spec it was made from ("search", "llm:http://..."). Valid until free. */
const char *kd_player_name(const kd_player *p);
/* Retries after refused answers in one turn before the fallback (0: unlimited). */
unsigned kd_player_retry_limit(const kd_player *p);
/* 1 for a person at the terminal (the human player). */
int kd_player_interactive(const kd_player *p);

/* The ops choose (see kd_player_ops); counts KD_ERR_PARSE answers. */
kd_err kd_player_choose(kd_player *p, const kd_play_turn *turn, const char *feedback, kd_ttt_cell *move, char *why,
                        size_t why_len) KD_WARN_UNUSED;

/* Plays a random legal move for the player (its own generator) and counts
 * it as a fallback. Errors: KD_ERR_NO_MOVE (no legal move). */
kd_err kd_player_fallback(kd_player *p, const kd_play_turn *turn, kd_ttt_cell *move) KD_WARN_UNUSED;

/* Counters for the summary. */
typedef struct {
    unsigned moves;     /* moves the server accepted (kd_player_note_move) */
    unsigned refused;   /* answers refused: unparsable or illegal */
    unsigned fallbacks; /* random moves played for it */
} kd_player_stats;

void kd_player_note_move(kd_player *p);
void kd_player_note_refused(kd_player *p);
kd_player_stats kd_player_get_stats(const kd_player *p);

/* The kinds defined in player_llm.c and player_human.c. */
extern const kd_player_ops kd_player_llm_ops;
extern const kd_player_ops kd_player_human_ops;
kd_err kd_player_llm_open(const char *url, const kd_player_options *opts, void **impl, char *why,
                          size_t why_len) KD_WARN_UNUSED;
kd_err kd_player_human_open(const kd_player_options *opts, void **impl) KD_WARN_UNUSED;

#endif
