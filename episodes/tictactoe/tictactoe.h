/*
 * tictactoe.h — the tic-tac-toe episode type: classic and stress mode.
 *
 * Two participants play on a 3x3 board; the first plays X and moves first,
 * the second plays O. In classic mode (cap 0) the game ends on a line of
 * three or, with a full board, in a draw. In stress mode (cap N in 1..8) the
 * board keeps at most N marks: when N marks are on it, the oldest is removed
 * before the new one is placed, and there is no draw. The cap is fixed at
 * creation (resolve_params) and kept in the state, so a replay under another
 * environment gives the same result.
 *
 * The rules (tictactoe.c) are pure: no protobuf, no environment, no I/O.
 * tictactoe_wire.c is the one file that converts TttCommand / TttParams
 * bytes; tictactoe_config.c parses the engine default cap from environment
 * values handed in by the caller; tictactoe_type.c is the type's entry in
 * the type table (episode_type.h), tictactoe_view.c its public view (TttView
 * bytes) and the renderings made from it, tictactoe_bot.c the search bot.
 * Every function here is reentrant and keeps no state of its own; a
 * kd_ttt_state must not be used from two threads at once.
 */
#ifndef KD_EPISODES_TICTACTOE_H
#define KD_EPISODES_TICTACTOE_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "engine/bytes.h"
#include "engine/episode.h"
#include "engine/err.h"
#include "episodes/episode_type.h"

#define KD_TTT_TYPE_NAME "tictactoe"
#define KD_TTT_DEFAULT_STRESS_CAP 6
#define KD_TTT_MAX_CAP 8 /* caps 1..8 are stress mode; 0 means classic in the state */
/* The TttParams cap that means "classic" in effective params (0 on the wire
 * means "engine default", so classic is written as 9). */
#define KD_TTT_WIRE_CLASSIC 9

/* Format versions of the state and undo encodings (first byte). */
#define KD_TTT_STATE_VERSION 1
#define KD_TTT_UNDO_VERSION 1

enum { KD_TTT_EMPTY = 0, KD_TTT_X = 1, KD_TTT_O = 2 }; /* board codes */

typedef enum { KD_TTT_IN_PROGRESS = 0, KD_TTT_X_WON = 1, KD_TTT_O_WON = 2, KD_TTT_DRAW = 3 } kd_ttt_status;

typedef struct {
    uint8_t row, col, symbol; /* symbol: KD_TTT_X / KD_TTT_O */
} kd_ttt_cell;

/*
 * The state of one game. Plain data (no pointers), zero-initialised before
 * it is filled, so two states compare equal with memcmp exactly when their
 * encodings are equal.
 *
 *   history (oldest first)        board
 *   [ X(0,0) O(1,1) X(0,1) ]      X X .
 *                                 . O .
 *                                 . . .
 *
 * The non-empty cells are exactly the history's cells. In stress mode the
 * history is the sliding window of the last min(move_count, cap) moves; in
 * classic mode it is every move. `turn` is the side to move: X after an even
 * number of moves, O after an odd number (it keeps alternating on the move
 * that ends the game).
 */
typedef struct {
    uint8_t board[3][3];
    uint8_t turn;   /* KD_TTT_X or KD_TTT_O: side to move */
    uint8_t status; /* kd_ttt_status */
    uint8_t cap;    /* 0 classic, 1..8 stress */
    uint8_t history_len;
    kd_ttt_cell history[9]; /* marks on the board, oldest first (kept in both modes) */
    uint32_t move_count;    /* moves applied */
    kd_pubkey players[2];   /* [0] plays X, [1] plays O */
} kd_ttt_state;

/* What one execute changed: enough to invert it exactly. `removed` is all
 * zero when has_removed is 0. move_count is not stored: rollback decrements. */
typedef struct {
    uint8_t row, col, prev_turn, prev_status;
    uint8_t has_removed;
    kd_ttt_cell removed;
} kd_ttt_undo;

/* The engine default for episodes created without a cap. */
typedef struct {
    uint8_t default_cap; /* 0 = classic, 1..8 stress */
} kd_ttt_config;

/* A decoded Move command. row/col are kept wide so that an out-of-bounds
 * value is reported as such (after the game-over check) rather than lost. */
typedef struct {
    uint32_t row, col;
    uint8_t player; /* 0 = X, 1 = O */
} kd_ttt_move;

/* The registered ops table: type_name "tictactoe", state_size =
 * sizeof(kd_ttt_state), undo_size = sizeof(kd_ttt_undo). Its config pointer
 * (kd_registry_add) is a `const kd_ttt_config *` or NULL (classic default). */
extern const kd_episode_ops kd_tictactoe_ops;

/* The codes tic-tac-toe's rules refuse with (kd_reject_rule, KD_ERR_RULE),
 * each with its meaning, ending with {NULL, NULL}: game_over,
 * out_of_bounds, wrong_turn, unauthorised, cell_occupied. They are the
 * names the engine's error table carried before rule errors became the
 * type's own, so everything stored, sent and shown under them keeps its
 * meaning; like engine codes they are never renamed, reused or removed. */
extern const kd_rule_code kd_ttt_rule_codes[];

/* ------------------------------------------------------------ rules (pure) */

/*
 * Resolves a TttParams cap against the engine default: 0 -> the default
 * (`config` NULL means classic), 1..8 -> that cap, 9 or more -> classic.
 * Returns the state cap (0 classic, 1..8 stress).
 */
uint8_t kd_ttt_cap_resolve(uint32_t wire_cap, const kd_ttt_config *config);

/*
 * Starts a game: empty board, X to move. `participants` must hold exactly
 * two valid compressed keys (kd_pubkey_check): the first plays X, the second
 * O. The same key twice is allowed (one holder plays both sides, e.g. a solo
 * agent or a demo): turn order is still enforced by the `player` field and
 * the turn, and signatures stay single-use through the move counter.
 * `cap` is 0 (classic) or 1..8; larger values are a programmer error and
 * are treated as classic.
 * Errors: KD_ERR_BAD_PARTICIPANTS (detail in `rej`, which may be NULL);
 * on error `state` is left zeroed.
 */
kd_err kd_ttt_state_init(kd_ttt_state *state, const kd_participants *participants, uint8_t cap,
                         kd_reject *rej) KD_WARN_UNUSED;

/*
 * Applies a move signed by `signer` (NULL: unsigned). Checks, in order, each
 * with its own error and a sentence in `rej` (may be NULL); the rules'
 * refusals are KD_ERR_RULE with rej->code one of kd_ttt_rule_codes:
 *   KD_ERR_BAD_COMMAND          player is not 0 or 1
 *   KD_ERR_RULE game_over       the game has ended
 *   KD_ERR_RULE out_of_bounds   row or col outside 0..2
 *   KD_ERR_RULE wrong_turn      `player` is not the side to move
 *   KD_ERR_RULE unauthorised    unsigned, or signed by another key than the
 *                               mover's
 *   KD_ERR_RULE cell_occupied   the cell holds a mark (in stress mode this
 *                               includes the oldest mark, which would only be
 *                               removed by this very move)
 *   KD_ERR_TOO_LARGE            the move counter would overflow (2^32-1 moves)
 * On success fills `undo` (zeroed first); on error neither `state` nor
 * `undo` is touched.
 */
kd_err kd_ttt_play(kd_ttt_state *state, const kd_ttt_move *move, const kd_pubkey *signer, kd_ttt_undo *undo,
                   kd_reject *rej) KD_WARN_UNUSED;

/*
 * Checks that `undo` is the record of the last move applied to `state`
 * (the newest history entry is its cell, the removed cell is free, ...), so
 * that kd_ttt_rollback can invert it. Records from disk should pass this
 * before rollback. Errors: KD_ERR_INVALID_ARG.
 */
kd_err kd_ttt_undo_check(const kd_ttt_state *state, const kd_ttt_undo *undo) KD_WARN_UNUSED;

/*
 * Exactly inverts the kd_ttt_play that produced `undo`: clears the placed
 * cell, pops the newest history entry, puts a removed mark back on its cell
 * and at the front of the history, restores turn and status and decrements
 * move_count. A record that fails kd_ttt_undo_check is a programmer error:
 * it is asserted, and in release builds leaves the state unchanged.
 */
void kd_ttt_rollback(kd_ttt_state *state, const kd_ttt_undo *undo);

/* ---------------------------------------------------------------- encodings */

/*
 * State encoding, version 1 (75 + 3 * history_len bytes, deterministic):
 *
 *   0      version (1)
 *   1      cap (0..8)
 *   2      turn (1 X, 2 O)
 *   3      status (kd_ttt_status)
 *   4..7   move_count, u32 big-endian
 *   8..40  players[0] (33 bytes)
 *   41..73 players[1]
 *   74     history_len
 *   75..   history_len x (row, col, symbol), oldest first
 *
 * The board is not stored: decode rebuilds it from the history, so the two
 * cannot disagree.
 *
 * kd_ttt_state_encode appends to `out`. Errors: KD_ERR_NOMEM.
 * kd_ttt_state_decode validates everything (version, length, ranges, keys,
 * distinct cells, alternating marks, window length, turn parity, status
 * agreeing with the board) and fills `state` (zeroed first). Errors:
 * KD_ERR_DECODE; `state` is then zeroed.
 */
kd_err kd_ttt_state_encode(const kd_ttt_state *state, kd_buf *out) KD_WARN_UNUSED;
kd_err kd_ttt_state_decode(const uint8_t *data, size_t len, kd_ttt_state *state) KD_WARN_UNUSED;

/*
 * Undo encoding, version 1 (9 bytes): version, row, col, prev_turn,
 * prev_status, has_removed, removed row, removed col, removed symbol (the
 * last three zero when nothing was removed). Decode checks ranges and that
 * the record could come from kd_ttt_play (the previous status is "in
 * progress", the removed cell is not the placed one). Errors as for states.
 */
kd_err kd_ttt_undo_encode(const kd_ttt_undo *undo, kd_buf *out) KD_WARN_UNUSED;
kd_err kd_ttt_undo_decode(const uint8_t *data, size_t len, kd_ttt_undo *undo) KD_WARN_UNUSED;

/* -------------------------------------------------------------------- view */

/* Enriched view pieces. */
typedef struct {
    uint8_t board[3][3];
    uint8_t current; /* KD_TTT_X or KD_TTT_O */
    uint8_t status;
    uint8_t cap;                /* 0 = classic */
    uint8_t recent_len;         /* 0 in classic mode */
    kd_ttt_cell recent[9];      /* oldest -> newest (stress mode only) */
    uint8_t has_next_to_remove; /* stress mode and history_len == cap */
    kd_ttt_cell next_to_remove;
    uint32_t move_count;
} kd_ttt_view;

/* Fills `out` (zeroed first) from `state`. */
void kd_ttt_view_of(const kd_ttt_state *state, kd_ttt_view *out);

/* Legal moves for the side to move (none when the game is over); returns the
 * count and fills row/col row-major, symbol = mover. In stress mode the
 * oldest mark's cell is not legal (it is occupied until the move is made). */
size_t kd_ttt_legal_moves(const kd_ttt_state *state, kd_ttt_cell out[9]);

/* One sentence stating the rule in force for `cap` (0 classic), written to
 * `out` (always NUL-terminated when len > 0, truncated if short). */
void kd_ttt_rule_text(uint8_t cap, char *out, size_t len);

/* 'X', 'O', or '.' for anything else. */
char kd_ttt_symbol_char(uint8_t symbol);

/* ---------------------------------------------- wire (tictactoe_wire.c) */

/*
 * Decodes TttCommand bytes into `move`. Errors: KD_ERR_BAD_COMMAND (the
 * bytes are not a TttCommand, it carries no Move, or player > 1), with a
 * sentence in `rej` (may be NULL); KD_ERR_NOMEM.
 */
kd_err kd_ttt_command_decode(const uint8_t *data, size_t len, kd_ttt_move *move, kd_reject *rej) KD_WARN_UNUSED;

/*
 * Decodes TttParams bytes; empty input is a TttParams with cap 0 (engine
 * default). Errors: KD_ERR_BAD_PARAMS with a sentence in `rej` (may be
 * NULL); KD_ERR_NOMEM.
 */
kd_err kd_ttt_params_decode(const uint8_t *data, size_t len, uint32_t *cap, kd_reject *rej) KD_WARN_UNUSED;

/*
 * Appends TttCommand{Move{row, col, player}} bytes to `out`. Values are not
 * checked (0 = X, 1 = O; tests craft invalid moves on purpose).
 * Errors: KD_ERR_NOMEM.
 */
kd_err kd_ttt_move_encode(uint8_t row, uint8_t col, uint8_t player /*0 X, 1 O*/, kd_buf *out) KD_WARN_UNUSED;

/* Appends TttParams{cap} bytes to `out` (cap 0 encodes as zero bytes:
 * "engine default"; KD_TTT_WIRE_CLASSIC means classic). Errors: KD_ERR_NOMEM. */
kd_err kd_ttt_params_encode(uint32_t cap, kd_buf *out) KD_WARN_UNUSED;

/* ------------------------------------------ config (tictactoe_config.c) */

/*
 * Parses the values of KDAPP_TTT_STRESS and KDAPP_TTT_MAX_SYMBOLS (NULL =
 * unset); the caller reads the environment.
 *   STRESS: 1|true|yes -> cap 6; 0|false|no|"" -> off (case-insensitive).
 *   MAX_SYMBOLS: decimal integer n >= 1 -> n (n >= 9 means classic);
 *   "" counts as unset.
 * If both are set, MAX_SYMBOLS wins; neither -> classic (0). Both values are
 * validated even when one wins.
 * Errors: KD_ERR_INVALID_ARG, with a sentence in `why` (may be NULL) naming
 * the variable, the bad value and the valid range; `out` is then untouched.
 */
kd_err kd_ttt_config_parse(const char *stress, const char *max_symbols, kd_ttt_config *out, char *why,
                           size_t why_len) KD_WARN_UNUSED;

/* ------------------------------- the type table entry (episode_type.h) */

/* Tic-tac-toe's kd_episode_type (tictactoe_type.c): seats X and O, params
 * {"cap": n|null}, commands {"type":"move","row":R,"col":C,"player":"X"|"O"},
 * TttView as its view, the search bot. */
struct kd_episode_type;
extern const struct kd_episode_type kd_tictactoe_type;

/* ----------------------------------------- views (tictactoe_view.c) */

/* "in_progress", "x_won", "o_won", "draw" ("unknown" otherwise). */
const char *kd_ttt_status_name(uint8_t status);

/* Appends the TttView message (tictactoe.proto) of `view`: what
 * EpisodeView.view carries for a tic-tac-toe episode. Errors: KD_ERR_NOMEM. */
kd_err kd_ttt_view_encode(const kd_ttt_view *view, kd_buf *out) KD_WARN_UNUSED;
/* Parses and validates TttView bytes into `view` (zeroed first, and on
 * error). Errors: KD_ERR_DECODE (not a TttView, or a value out of range). */
kd_err kd_ttt_view_decode(const uint8_t *data, size_t len, kd_ttt_view *view) KD_WARN_UNUSED;

/* The renderings of TttView bytes, as the type table's view_json,
 * strategy_context, render_text and prompt (episode_type.h documents
 * their contracts):
 *   view_json  {board, current, status, cap, recent_moves, next_to_remove,
 *               move_count}
 *   strategy   exactly {board, current, cap, next_to_remove, recent_moves,
 *               rule_text} (DESIGN.md, kdapp_get_strategy_context)
 *   text       "X . O" rows, whose turn, the mark removed next
 *   prompt     the turn prompt for `seat` (0 X, 1 O) */
json_t *kd_ttt_view_json(const uint8_t *view, size_t len);
json_t *kd_ttt_strategy_json(const uint8_t *view, size_t len);
kd_err kd_ttt_render_text(const uint8_t *view, size_t len, unsigned flags, kd_buf *out) KD_WARN_UNUSED;
kd_err kd_ttt_prompt(const uint8_t *view, size_t len, uint32_t episode_id, int seat, kd_buf *out) KD_WARN_UNUSED;
/* The type's describe_change (episode_type.h): after one move, the oldest
 * mark it removed first ("first the oldest mark, X at (1,1), is removed");
 * after a rollback, each mark that came back ("restored: ...") and each
 * mark a reverted move had placed ("undone: ..."). */
kd_err kd_ttt_describe_change(const void *from, const void *to, kd_buf *out) KD_WARN_UNUSED;

/* ------------------------------------------------ bot (tictactoe_bot.c) */

#define KD_SEARCH_MAX_DEPTH 12u

/*
 * The search player's move for the side to move in `s`:
 *   1. a move that wins at once, if any;
 *   2. else only moves after which the opponent cannot win at once, when
 *      there are such moves (an immediate loss is blocked when it can be);
 *   3. among those, the best by negamax with alpha-beta to `depth` plies
 *      (1..KD_SEARCH_MAX_DEPTH) over kd_ttt_play, so evictions are
 *      simulated exactly; wins score higher the sooner they come. Classic
 *      games are searched to the end whatever `depth` says (the tree is
 *      small), which makes the player unbeatable there.
 * Ties are broken by `tiebreak` (any 64-bit value; the player draws it from
 * its generator). Pure: no state, no I/O. Errors: KD_ERR_NO_MOVE (no
 * legal move).
 */
kd_err kd_search_move(const kd_ttt_state *s, unsigned depth, uint64_t tiebreak, kd_ttt_cell *out) KD_WARN_UNUSED;

#endif
