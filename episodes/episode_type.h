/*
 * episode_type.h — the type table: what every layer above the engine needs
 * of an episode type.
 *
 * The engine knows a type only through its kd_episode_ops (engine/
 * episode.h): rules, undo, encodings. Everything else — the gateway's
 * schemas and answers, block scripts, the CLI's renderings, the simulator,
 * perft, the players, the page — goes through one kd_episode_type per type,
 * so none of them knows a particular game:
 *
 *   kd_type_table            (caller's storage, one per program)
 *   ├── tictactoe  ─┬─ ops ──────────► engine (execute, rollback, encodings)
 *   │               ├─ config        ◄ the environment, read once at start
 *   │               ├─ JSON ⇄ bytes  ◄ gateway, block scripts, submit
 *   │               ├─ view bytes    ► EpisodeView.view on PUB, the views
 *   │               ├─ legal moves, random command, bot ► sim, perft, players
 *   │               └─ rule codes    ► kdapp://types, docs
 *   └── …one entry per registered type
 *
 * Adding a game is its own folder episodes/<game>/ (its .c and .h files and
 * its README.md), its sources in episodes/CMakeLists.txt and one line in
 * types.c (kd_builtin_types); a test may add a type of its own to its
 * table. What every game writes the same way is written once beside this
 * file: the ops adapters (ops_adapter.h), the house of the chance games
 * (house.h, fair.h), the seats' secrets (secrets.h), the protobuf helpers
 * (wire_alloc.h), the bots' alpha-beta step (bot.h); what every type owes
 * the engine is checked for all at once (tests/episodes/type_laws_test.c).
 *
 * Seats: a type's participants sit in seats 0..n-1 in NewEpisode order
 * (tic-tac-toe: 0 plays X, 1 plays O). KD_SEAT_PUBLIC asks for what anyone
 * may see. Engine state is public by design (DESIGN.md): a hidden-information
 * game keeps only commitments in it, and a seat's secrets stay with that
 * seat; so a view for the public must never carry a seat's secret.
 *
 * Views: a type's view is its own protobuf message (tictactoe: TttView in
 * proto/tictactoe.proto), encoded by view_encode from a state and carried as
 * bytes in EpisodeView.view. Every rendering (JSON, strategy context, text,
 * prompt) is made from those bytes, so a subscriber that only has the
 * published EpisodeView renders exactly what a reader of the store does.
 *
 * Threading: a type's functions are pure and reentrant (no globals, no
 * environment except config_from_env's getter, no clock); a kd_type_table is
 * filled before threads start and only read afterwards.
 */
#ifndef KD_EPISODES_EPISODE_TYPE_H
#define KD_EPISODES_EPISODE_TYPE_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>
#include <protobuf-c/protobuf-c.h>

#include "engine/bytes.h"
#include "engine/crypto.h"
#include "engine/episode.h"
#include "engine/err.h"
#include "episodes/fair.h"

#define KD_SEAT_PUBLIC (-1)
#define KD_SEAT_NONE (-1)
#define KD_COMMAND_MAX 128    /* bytes of one enumerated legal command */
#define KD_NOTATION_MAX 32    /* "(1, 2)", "e7e8q", a checkers jump over every man: 13 squares */
#define KD_TYPE_CONFIG_MAX 64 /* bytes of a type's engine defaults */
#define KD_TYPES_MAX KD_REGISTRY_MAX
/* render_text flags */
#define KD_RENDER_UNICODE 1u /* the output may use UTF-8 symbols beyond ASCII */

/* ------------------------------------------------------------- status */

typedef enum { KD_PHASE_IN_PROGRESS = 0, KD_PHASE_WON = 1, KD_PHASE_DRAW = 2 } kd_game_phase;

/* Where a game stands: in progress with a seat to move (KD_SEAT_NONE when
 * no single seat must act), won by a seat, or drawn. */
typedef struct {
    kd_game_phase phase;
    int winner;  /* the winning seat when phase is KD_PHASE_WON, else KD_SEAT_NONE */
    int to_move; /* the seat to act when in progress, else KD_SEAT_NONE */
} kd_game_status;

/* "in_progress", "won", "draw". */
const char *kd_game_phase_name(kd_game_phase phase);

/* How one seat came out of a game (what ratings count, handlers/ratings.h):
 * none while the game is in progress; a cheat (data that fails the rules'
 * check: a commitment opened false, an illegal fleet) and a forfeit (a
 * duty left past its deadline and claimed) are losses that say why. */
typedef enum {
    KD_RESULT_NONE = 0,
    KD_RESULT_WIN = 1,
    KD_RESULT_LOSS = 2,
    KD_RESULT_DRAW = 3,
    KD_RESULT_CHEAT = 4,
    KD_RESULT_FORFEIT = 5,
} kd_seat_result;

/* "none", "win", "loss", "draw", "cheat", "forfeit". */
const char *kd_seat_result_name(kd_seat_result result);

/* --------------------------------------------------------- legal moves */

/* One legal move: its command bytes (what execute takes) and a short
 * notation for people and logs. The command's JSON is the type's
 * command_to_json of the bytes. */
typedef struct {
    uint8_t command[KD_COMMAND_MAX];
    size_t command_len;
    char notation[KD_NOTATION_MAX];
} kd_legal_move;

/* A growable list in the caller's storage: init, fill, fini. */
typedef struct {
    kd_legal_move *moves;
    size_t count, cap;
} kd_legal_moves;

void kd_legal_moves_init(kd_legal_moves *list);
/* Empties the list, keeping its storage. */
void kd_legal_moves_clear(kd_legal_moves *list);
void kd_legal_moves_fini(kd_legal_moves *list);
/* Appends one move; `notation` is truncated to fit. Errors: KD_ERR_NOMEM,
 * KD_ERR_TOO_LARGE (command longer than KD_COMMAND_MAX). */
kd_err kd_legal_moves_push(kd_legal_moves *list, const uint8_t *command, size_t len,
                           const char *notation) KD_WARN_UNUSED;

/* The seeded generator random_command draws from (splitmix64). */
uint64_t kd_type_rng_next(uint64_t *rng);
/* Uniform in [0, n); n > 0. */
uint32_t kd_type_rng_below(uint64_t *rng, uint32_t n);
/* Bytes as a JSON string of lowercase hex (new reference; NULL on
 * allocation failure): how every JSON rendering writes keys, hashes,
 * proofs and payloads. */
json_t *kd_json_hex(const uint8_t *data, size_t len);
/* The whole number member `name` of a params JSON object into `out`: left
 * as it is (the default) when absent. Errors: KD_ERR_BAD_PARAMS, `why`:
 * "params: <name> must be an integer from <lo> to <hi>". */
kd_err kd_params_uint(const json_t *params, const char *name, uint32_t lo, uint32_t hi, uint32_t *out, char *why,
                      size_t why_len) KD_WARN_UNUSED;
/* The participants of a new episode of a two-seat game: exactly 2, each a
 * valid compressed public key. Refusals (KD_ERR_BAD_PARTICIPANTS, a
 * sentence in `rej`): "<game> needs exactly 2 participants (<seat 0>,
 * <seat 1>), got N"; "participant I (<seat>) is not a valid compressed
 * secp256k1 public key". */
kd_err kd_two_seats_check(const kd_participants *participants, const char *game, const char *const seat_words[2],
                          kd_reject *rej) KD_WARN_UNUSED;

/* ------------------------------------------------------- the house's terms */

/* One of the terms a house consents to (kd_episode_type.house_terms): a
 * whole number of the creation params that bounds what the house stakes
 * or owes (start chips, the largest bet, rounds, its time to reveal). A
 * gateway playing the house for all comers (`kdapp mcp --house`) signs
 * its consent only to a creation whose every term lies within its limits:
 * these defaults, or its operator's (`--house-limit NAME=MAX`,
 * `NAME=MIN..MAX`). */
typedef struct {
    const char *name;    /* the params JSON member: "start_chips" */
    const char *field;   /* where the params message (params_message) holds it, dotted: "house.reveal_timeout";
                            NULL: the field of that name at the top */
    const char *meaning; /* for docs and refusals: "the player's chips at the start" */
    uint32_t min, max;   /* the limits a house keeps unless its operator sets others */
} kd_house_term;
#define KD_HOUSE_TERMS_MAX 8

/* ------------------------------------------------------------ the table */

/* One rule of the type that can refuse a command: its stable short code
 * (what kd_reject_rule puts in kd_reject.code: logged, stored, sent) and
 * what it means. Codes are append-only, like the engine's (err.h). */
typedef struct {
    const char *code;
    const char *meaning;
} kd_rule_code;

/* A reader of the environment (getenv, or a test's table). */
typedef const char *(*kd_getenv_fn)(void *ctx, const char *name);

typedef struct kd_episode_type {
    /* ---- identity */
    const kd_episode_ops *ops; /* the engine's contract; ops->type_name is the type's name */
    const char *title;         /* "Tic-tac-toe" */
    const char *summary;       /* the rules in a few sentences (kdapp://types, --help) */
    size_t min_seats, max_seats;
    const char *const *seat_names;  /* max_seats names: "X", "O" */
    const kd_rule_code *rule_codes; /* the codes its rules refuse with, ending with {NULL, NULL} */

    /* ---- engine defaults (may be NULL: no configuration) */
    const char *const *env_names; /* the variables read, NULL-terminated (for --help and docs) */
    /* Fills `config` (config_size <= KD_TYPE_CONFIG_MAX bytes, zeroed) from
     * the environment; the pointer is what ops->resolve_params receives.
     * Errors: KD_ERR_INVALID_ARG with a sentence in `why` naming the
     * variable, the bad value and the valid range. */
    kd_err (*config_from_env)(kd_getenv_fn get, void *get_ctx, void *config, char *why, size_t why_len);
    size_t config_size;

    /* ---- JSON <-> bytes (JSON Schema texts for the gateway and docs) */
    const char *params_schema;  /* a JSON Schema object, as text */
    const char *command_schema; /* a JSON Schema object, as text */
    /* NewEpisode.params bytes from JSON (`params` NULL or {}: the engine
     * defaults, which may be zero bytes). Errors: KD_ERR_BAD_PARAMS with
     * `why`, KD_ERR_NOMEM. */
    kd_err (*params_from_json)(const json_t *params, kd_buf *out, char *why, size_t why_len);
    /* The params message's protobuf-c descriptor (NewEpisode.params and
     * the effective params the log keeps), so a tool prints a creation's
     * params in effect without knowing the game (kdapp log --json). NULL:
     * the params are shown as hex. */
    const ProtobufCMessageDescriptor *params_message;
    /* Command bytes from the type's command JSON for `seat` (the acting
     * seat, for types whose command names it; KD_SEAT_NONE when unknown).
     * Only the form is checked: legality is the engine's. Errors:
     * KD_ERR_BAD_COMMAND with `why`, KD_ERR_NOMEM. */
    kd_err (*command_from_json)(const json_t *command, int seat, kd_buf *out, char *why, size_t why_len);
    /* The command JSON of command bytes (new reference), NULL when the
     * bytes do not decode. command_from_json(command_to_json(b)) == b. */
    json_t *(*command_to_json)(const uint8_t *command, size_t len);

    /* ---- views, from a state (ops->state_size bytes, as decode_state fills) */
    /* The status and the seat to move. */
    kd_game_status (*status)(const void *state);
    /* Appends the view message bytes for `seat` (KD_SEAT_PUBLIC: the public
     * view, what PUB carries). Errors: KD_ERR_NOMEM. */
    kd_err (*view_encode)(const void *state, int seat, kd_buf *out);

    /* ---- renderings, from view bytes (view_encode's output) */
    /* The type's view fields as a JSON object (new reference; NULL when the
     * bytes do not decode or on allocation failure). They are merged into
     * the enriched view beside the generic fields (episode_id, type,
     * participants, status of the game, block, digest). A member
     * "move_rules" (an object), when present, says what the type's rules
     * say of the choice of move beside the list ({"must_capture": true,
     * "forced_captures": [...]}, {"check": true}); kdapp_legal_moves
     * answers it beside the moves. */
    json_t *(*view_json)(const uint8_t *view, size_t len);
    /* What a player needs to decide a move (kdapp_get_strategy_context),
     * new reference or NULL. */
    json_t *(*strategy_context)(const uint8_t *view, size_t len);
    /* A text board for people, appended to `out` (no NUL): ASCII, or with
     * KD_RENDER_UNICODE in `flags` the type's Unicode symbols (chess
     * pieces) for a terminal that shows UTF-8. Errors: KD_ERR_DECODE,
     * KD_ERR_NOMEM. */
    kd_err (*render_text)(const uint8_t *view, size_t len, unsigned flags, kd_buf *out);
    /* The turn prompt for a language model playing `seat` in episode
     * `episode_id`: the rules in force, the position, the legal moves and
     * the exact answer format (the command JSON), appended (no NUL).
     * Errors: KD_ERR_DECODE, KD_ERR_INVALID_ARG (no such seat), KD_ERR_NOMEM. */
    kd_err (*prompt)(const uint8_t *view, size_t len, uint32_t episode_id, int seat, kd_buf *out);

    /* ---- moves, from a state */
    /* Appends the legal moves of `seat` (none when it may not act or the
     * game is over), each a command execute would apply when signed by
     * that seat. Errors: KD_ERR_NOMEM. */
    kd_err (*legal_moves)(const void *state, int seat, kd_legal_moves *out);
    /* A random command for `seat`: a legal one when `legal`, else one the
     * rules refuse (a rule of the type, not a malformed message), when the
     * type can make one. Errors: KD_ERR_NO_MOVE (no legal move: the
     * game is over; rule refusals are the type's codes, not engine
     * errors), KD_ERR_UNSUPPORTED (no illegal command possible),
     * KD_ERR_NOMEM. */
    kd_err (*random_command)(const void *state, int seat, int legal, uint64_t *rng, kd_buf *out);
    /* Optional (NULL: the type has no bot): a strong move for the seat to
     * move, searched `depth` plies where the type searches; ties broken by
     * `tiebreak`. Errors: KD_ERR_NO_MOVE (no legal move), KD_ERR_NOMEM. */
    kd_err (*bot_command)(const void *state, unsigned depth, uint64_t tiebreak, kd_buf *out);
    /* The deepest bot_command searches: a deeper `depth` searches this
     * deep, so `kdapp play`'s search player asks no deeper (and a timed
     * search stops deepening there); 0: no limit. */
    unsigned bot_max_depth;
    /* Optional (NULL: bot_command only): the bot of a seat that sees its own
     * secret, for a hidden-information type whose bot needs it (hold'em's
     * hole cards): `own_secret` is what secret_view gives `seat` (the
     * gateway's own_secret; borrowed). A caller without it uses
     * bot_command. Errors: bot_command's. */
    kd_err (*bot_secret_command)(const void *state, int seat, const json_t *own_secret, unsigned depth,
                                 uint64_t tiebreak, kd_buf *out);
    /* Optional (NULL: the boards say it all): what changed from state
     * `from` to state `to` of one episode that a board alone does not say,
     * for people, one sentence a line, each ending in '\n', appended to
     * `out` (nothing when there is nothing to add). `to` is one move after
     * `from`, or a rollback of some moves (the players show both: a move's
     * side effects, and what a reorg undid and brought back). Errors:
     * KD_ERR_NOMEM. */
    kd_err (*describe_change)(const void *from, const void *to, kd_buf *out);

    /* ---- secrets (optional; secret_commit, secret_binding and secret_duty
     * all or none; NULL: nothing is hidden)
     * A chance or hidden-information game keeps in its state only what
     * seats commit to; a seat's secret (the house's VRF key, a sea battle
     * fleet and its salts) comes from its 32-byte seed, which the seat's
     * key holder derives (kd_secret_seed in engine/crypto.h: from the
     * seat's private key, the type, the episode id, the seat and a fresh
     * public binding) and never publishes. The binding is committed beside
     * the commitment and kept in the state, so the key holder finds its
     * seed again, and recognises the commitments it made for its own store
     * (kd_secret_binding_ours): nobody else's are acted on. Callers go
     * through episodes/secrets.h (kd_seat_commit, kd_seat_seed): the
     * gateway at kdapp_start_episode and after each block
     * (mcp/gateway/gateway_duties.c), `kdapp commit` / `kdapp duty`, the
     * simulator, perft and the tests. */
    /* SETS what `seat` commits to from `seed` and its `binding` in
     * `params`, the creation params JSON object (before params_from_json),
     * e.g. {"house_key": "<hex>", "house_binding": "<hex>"}, replacing what
     * a caller put there. KD_ERR_UNSUPPORTED: the seat keeps no secret
     * (nothing set). Errors: KD_ERR_BAD_PARAMS (params it cannot commit
     * under, with `why`), KD_ERR_NOMEM. */
    kd_err (*secret_commit)(int seat, const uint8_t seed[KD_SECRET_SEED_LEN],
                            const uint8_t binding[KD_SECRET_BINDING_LEN], json_t *params, char *why, size_t why_len);
    /* The binding `seat` committed with, from the state. Errors:
     * KD_ERR_UNSUPPORTED (the seat keeps no secret), KD_ERR_NOT_FOUND (it
     * has none). */
    kd_err (*secret_binding)(const void *state, int seat, uint8_t out[KD_SECRET_BINDING_LEN]);
    /* The command `seat` owes now, made from its secret (the house's proof
     * for a pending draw; the opening of the cell a shot hit), as execute
     * takes it signed by the seat. Errors: KD_ERR_NO_MOVE (it owes nothing
     * now), KD_ERR_NOMEM. */
    kd_err (*secret_duty)(const void *state, int seat, const uint8_t seed[KD_SECRET_SEED_LEN], kd_buf *command);
    /* Optional (NULL: a seat sees nothing more than the public view; needs
     * the hooks above): what `seat` alone may see in `state` from its
     * seed, as a JSON object (new reference; NULL on allocation failure),
     * e.g. a seat's own hidden board beside the public shots. The gateway adds
     * it as "own_secret" to kdapp_get_episode_state and
     * kdapp_get_strategy_context when asked for a "player" whose key it
     * holds; it is never put in a public view. */
    json_t *(*secret_view)(const void *state, int seat, const uint8_t seed[KD_SECRET_SEED_LEN]);
    /* Optional (NULL: at once; needs the hooks above): the DAA score the
     * chain's tip must reach before `seat` pays the duty it owes in
     * `state`, by its own terms: a house reveals a draw only once the
     * ask's block is its reveal depth deep (episodes/house.h,
     * kd_house_due), so a reorg that drops an answered ask must be deeper
     * than that. 0: at once. The gateway's duties thread waits for it. */
    uint64_t (*duty_due)(const void *state, int seat);
    /* ---- audit (optional; both or none: the games that draw)
     * `kdapp audit` replays an episode from the log through the rules and
     * shows each draw's derivation: the hooks name the draw a command
     * answers and what its numbers mean; the caller checks the proof and
     * reads the numbers (episodes/fair.h). */
    /* 1 and `draw` filled when `command` answers a draw in `state` (the
     * house's reveal of the pending draw): the house's key, the draw's
     * number, its input's version and last 32 bytes (the SHA-256 of the
     * ask's bytes; for draw input 2 the ask's entropy) and the proof; 0
     * when it answers none. */
    int (*draw_of)(const void *state, const uint8_t *command, size_t len, kd_fair_draw *draw);
    /* The outcome of the draw pending in `state`, its numbers read from
     * `stream` (started from the draw's VRF output) as the rules read them,
     * as a JSON object (new reference; NULL on allocation failure), e.g.
     * {"dice": [5, 4, 4], "total": 15}. */
    json_t *(*draw_outcome)(const void *state, kd_fair_stream *stream);
    /* The seats that serve all comers as a house (bit s: seat s): the
     * chance games' house seat, blackjack's dealer (seat 0); 0 in the
     * other types. A gateway's house key plays only there. */
    unsigned house_seats;
    /* ---- the house's terms (every type with house_seats has them): the
     * terms its house consents to, at most KD_HOUSE_TERMS_MAX, ending
     * with {NULL}; NULL: none. Each is a whole number of the params
     * message (params_message) as resolve_params makes it (the episode as
     * it will be created, every default named), which the gateway reads
     * generically (mcp/gateway/gateway_terms.c). */
    const kd_house_term *house_terms;
    /* ---- outcome (optional; NULL: from status, the winner wins, every
     * other seat loses, a draw is a draw for all)
     * How `seat` came out of the game in `state`: KD_RESULT_NONE while it
     * is in progress; for a type whose games end by a cheat or a forfeit,
     * which seat lost that way. Agrees with status: a won game gives its
     * winner KD_RESULT_WIN and every other seat a loss of some kind.
     * Callers use kd_episode_seat_result. */
    kd_seat_result (*seat_result)(const void *state, int seat);
} kd_episode_type;

/* How `seat` came out of the game in `state` (a state of `type`): the
 * type's seat_result, else from its status. */
kd_seat_result kd_episode_seat_result(const kd_episode_type *type, const void *state, int seat);

/* The seat named `name` ("X"), or KD_SEAT_NONE. */
int kd_episode_type_seat(const kd_episode_type *type, const char *name);
/* The name of `seat`, or "?" when out of range. */
const char *kd_episode_type_seat_name(const kd_episode_type *type, int seat);

/*
 * The types a program knows, with their engine defaults: caller's storage,
 * filled before threads start, read-only afterwards.
 *
 *   kd_type_table types;
 *   kd_type_table_init(&types);                 // the built-in types (types.c)
 *   kd_type_table_add(&types, &nim_type);       // a test's own type
 *   kd_type_table_configure(&types, get, NULL, why, sizeof why);
 *   kd_type_table_registry(&types, &registry);  // what kd_engine_open takes
 */
typedef struct {
    const kd_episode_type *type;
    _Alignas(max_align_t) unsigned char config[KD_TYPE_CONFIG_MAX];
    int configured; /* config holds the environment's defaults */
} kd_type_entry;

typedef struct {
    kd_type_entry entries[KD_TYPES_MAX];
    size_t count;
} kd_type_table;

/* The built-in types, in registration order (types.c). */
extern const kd_episode_type *const kd_builtin_types[];
extern const size_t kd_builtin_type_count;

/* Fills `table` with the built-in types, unconfigured (zeroed defaults). */
void kd_type_table_init(kd_type_table *table);
/* Fills `table` with no type at all (tests that register their own). */
void kd_type_table_init_empty(kd_type_table *table);
/* Adds a type. Errors: KD_ERR_INVALID_ARG (duplicate name, missing
 * required function, config_size over KD_TYPE_CONFIG_MAX), KD_ERR_TOO_LARGE
 * (table full). */
kd_err kd_type_table_add(kd_type_table *table, const kd_episode_type *type) KD_WARN_UNUSED;
/* Reads every type's engine defaults through `get`. Errors: the first
 * type's KD_ERR_INVALID_ARG, with `why` naming the variable. */
kd_err kd_type_table_configure(kd_type_table *table, kd_getenv_fn get, void *get_ctx, char *why,
                               size_t why_len) KD_WARN_UNUSED;
/* The process environment as a kd_getenv_fn (ctx unused). */
const char *kd_getenv_process(void *ctx, const char *name);
/* Registers every type with its config in `registry` (kd_registry_init'ed
 * by the caller). The table must outlive the registry. Errors: those of
 * kd_registry_add. */
kd_err kd_type_table_registry(const kd_type_table *table, kd_registry *registry) KD_WARN_UNUSED;
/* The type named `name`, or NULL. */
const kd_episode_type *kd_type_table_find(const kd_type_table *table, const char *name);
/* The config pointer a type's resolve_params receives (NULL when none). */
const void *kd_type_table_config(const kd_type_table *table, const char *name);

#endif
