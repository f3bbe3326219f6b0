/*
 * players.h — the players of `kdapp play`: where a move comes from, for
 * any registered episode type (episodes/episode_type.h).
 *
 *   random   a uniformly random move among the turn's legal moves (seeded)
 *   search   the type's bot (bot_command), for types that have one, at a
 *            fixed depth or within a time budget per move:
 *              search                 --depth/--think-ms of the command
 *              search:depth=6         6 plies, whatever the time
 *              search:ms=500          iterative deepening within 500 ms
 *              search:ms=500:depth=12 the same, no deeper than 12 plies
 *            A time budget deepens in the tool, not in the type's bot (which
 *            stays clock-free): depths 1, 2, ... while the time spent plus
 *            the next iteration's predicted time fits, keeping the deepest
 *            completed answer (depth 1 always completes). Either way no
 *            deeper than the type's bot_max_depth when it has one (what
 *            its bot would search anyway). A timed game
 *            replays exactly only where the same depths are reached.
 *   llm:URL  an OpenAI-compatible chat-completions endpoint (player_llm.c):
 *            the gateway's kdapp_turn prompt, the reply parsed as the type's
 *            command JSON
 *   human    a legal move typed at the terminal (player_human.c): its
 *            notation, its number in the list, or the command JSON
 *   house    a seat the gateway holds as the house: its key holder (the
 *            gateway) pays what the seat owes after each block, and it
 *            chooses no move
 *
 * A seat no player is named for gets its type's default
 * (kd_play_default_player): so `kdapp play --type T` plays every type with
 * nothing else.
 *
 * A player sees one kd_play_turn: the episode's type, the seat to act, the
 * state (decoded from the view's "state" bytes), the legal moves of that
 * seat and a way to fetch the gateway's kdapp_turn prompt. A move is a
 * kd_legal_move: command bytes and a notation. Nothing here keeps a mirror
 * of the game between turns; the coordinator (play.c) asks the gateway
 * every turn.
 *
 * Determinism: every random choice comes from the player's own generator,
 * seeded from --seed, so a game replays exactly (an llm's answers aside).
 *
 * Threading: a player is used by one thread at a time; the parsers are
 * reentrant.
 */
#ifndef KD_TOOLS_PLAYERS_H
#define KD_TOOLS_PLAYERS_H

#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "episodes/episode_type.h"

#define KD_SEARCH_DEFAULT_DEPTH 4u
/* The deepest search: --depth's limit, and a time budget's default cap. */
#define KD_PLAYER_MAX_DEPTH 64u
/* The longest time budget per move (--think-ms, ms=): ten minutes. */
#define KD_PLAYER_MAX_THINK_MS 600000u
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

/* ---------------------------------------------------------------- turns */

/* What a player gets each turn. */
typedef struct {
    uint32_t episode_id;
    const kd_episode_type *type;
    int seat;                    /* the seat to act */
    const char *seat_name;       /* its name ("X") */
    const void *state;           /* ops->state_size bytes: the episode's state this turn */
    const kd_legal_moves *legal; /* the seat's legal moves (at least one) */
    /* Fetches the gateway's kdapp_turn prompt for the seat (malloc'd text).
     * Set by the coordinator; players that need no prompt never call it. */
    kd_err (*get_prompt)(void *ctx, char **text, char *why, size_t why_len);
    void *prompt_ctx;
    /* Fetches what the seat alone sees (the gateway's own_secret for it: a
     * new reference, NULL when the gateway gives none), for a type with
     * bot_secret_command; may be NULL. Shares prompt_ctx. */
    kd_err (*get_own_secret)(void *ctx, json_t **out, char *why, size_t why_len);
} kd_play_turn;

/*
 * Fills `move` with command bytes for `turn`: the notation of the legal
 * move with the same bytes, else the command's JSON (compact, truncated to
 * fit). Errors: KD_ERR_TOO_LARGE (longer than KD_COMMAND_MAX).
 */
kd_err kd_play_move_of(const kd_play_turn *turn, const uint8_t *command, size_t len,
                       kd_legal_move *move) KD_WARN_UNUSED;

/*
 * Parses an llm reply strictly as the type's command JSON for `seat`
 * (player_llm.c). Accepted: exactly one JSON object, optionally with
 * surrounding whitespace, inside one Markdown code fence (```json ... ```
 * or ``` ... ```), and after one leading <think>...</think> block
 * (reasoning models emit one); its members must be among the properties of
 * the type's command schema, and command_from_json must take it. Anything
 * else — prose around the object, two objects, strings for numbers, extra
 * members — is refused. Appends the command bytes to `out`. Errors:
 * KD_ERR_PARSE with a sentence in `why` that can be shown to the model
 * (it names the members the command has), KD_ERR_NOMEM.
 */
kd_err kd_llm_parse_command(const char *content, const kd_episode_type *type, int seat, kd_buf *out, char *why,
                            size_t why_len) KD_WARN_UNUSED;

/* --------------------------------------------------------------- search */

/* How long a search player thinks: `depth` plies when `think_ms` is 0, else
 * iterative deepening within `think_ms` up to `depth` plies. 0 in a field
 * parsed from a spec: not given there. */
typedef struct {
    unsigned depth;    /* 1..KD_PLAYER_MAX_DEPTH, 0: not given */
    uint32_t think_ms; /* 1..KD_PLAYER_MAX_THINK_MS, 0: not given (a fixed depth) */
} kd_search_budget;

/*
 * Parses a search player's spec: "search", or "search" followed by
 * ":depth=N" and/or ":ms=T" (each at most once, in either order). Fills
 * `budget` with what the spec gives (zeros for "search"). Errors:
 * KD_ERR_INVALID_ARG with a sentence in `why` (not a search spec, an
 * unknown option, a value out of range, an option twice). Reentrant.
 */
kd_err kd_search_spec_parse(const char *spec, kd_search_budget *budget, char *why, size_t why_len) KD_WARN_UNUSED;

/*
 * The stopping rule of a timed search: 1 when one more iteration fits in
 * `budget_us` after `spent_us`, its time predicted as the last iteration's
 * (`last_us`) times the growth of the last step (`last_us / prev_us`, at
 * least 2; 4 when `prev_us` is 0, unknown). Pure.
 */
int kd_search_next_fits(uint64_t budget_us, uint64_t spent_us, uint64_t last_us, uint64_t prev_us);

/* -------------------------------------------------------------- players */

typedef struct {
    uint64_t seed;           /* this player's generator */
    unsigned depth;          /* search: plies for the type's bot, or the cap of a timed search
                                [KD_SEARCH_DEFAULT_DEPTH; timed: KD_PLAYER_MAX_DEPTH] */
    uint32_t think_ms;       /* search: time budget per move (iterative deepening); 0: a fixed depth */
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
    kd_err (*choose)(void *impl, const kd_play_turn *turn, const char *feedback, kd_legal_move *move, char *why,
                     size_t why_len);
    void (*free)(void *impl);
    unsigned retry_limit; /* retries after refused answers per turn; 0: unlimited */
    int interactive;      /* a person at the terminal: it shows the feedback itself */
} kd_player_ops;

typedef struct kd_player kd_player;

/*
 * Creates a player from a spec: "random", "search" (with its options, see
 * the top of the file; a spec's own options replace opts->depth and
 * opts->think_ms), "llm:URL" (URL is the API base, e.g.
 * http://127.0.0.1:1234/v1, or a full .../chat/completions URL) or "human".
 * Errors: KD_ERR_INVALID_ARG (unknown spec, bad search options, bad URL)
 * with `why`, KD_ERR_NOMEM. Strings in `opts` are copied.
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
kd_err kd_player_choose(kd_player *p, const kd_play_turn *turn, const char *feedback, kd_legal_move *move, char *why,
                        size_t why_len) KD_WARN_UNUSED;
/* 1 when the player needs the type's bot (search). */
int kd_player_needs_bot(const kd_player *p);

/* Plays a random legal move for the player (its own generator) and counts
 * it as a fallback. Errors: KD_ERR_NO_MOVE. */
kd_err kd_player_fallback(kd_player *p, const kd_play_turn *turn, kd_legal_move *move) KD_WARN_UNUSED;

/* Counters for the summary. */
typedef struct {
    unsigned moves;     /* moves the server accepted (kd_player_note_move) */
    unsigned refused;   /* answers refused: unparsable or illegal */
    unsigned fallbacks; /* random moves played for it */
    /* search: the shallowest and deepest depth of its moves (0: none yet),
     * and its longest time on one move */
    unsigned depth_min, depth_max;
    uint32_t think_ms_max;
} kd_player_stats;

void kd_player_note_move(kd_player *p);
void kd_player_note_refused(kd_player *p);
kd_player_stats kd_player_get_stats(const kd_player *p);

/*
 * The player of `seat` of `type` when none is named, from the type table
 * alone: "house" in a seat the type marks as the house's (house_seats:
 * the gateway pays its duties), "search" where the type has a bot, else
 * "random". A static string.
 */
const char *kd_play_default_player(const kd_episode_type *type, int seat);
/* 1 for the house player (it chooses nothing: the gateway acts for it). */
int kd_player_is_house(const kd_player *p);

/* The kinds defined in player_llm.c and player_human.c. */
extern const kd_player_ops kd_player_llm_ops;
extern const kd_player_ops kd_player_human_ops;
kd_err kd_player_llm_open(const char *url, const kd_player_options *opts, void **impl, char *why,
                          size_t why_len) KD_WARN_UNUSED;
kd_err kd_player_human_open(const kd_player_options *opts, void **impl) KD_WARN_UNUSED;

#endif
