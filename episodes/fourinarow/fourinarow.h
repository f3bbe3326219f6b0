/*
 * fourinarow.h — four-in-a-row (Connect Four), the "fourinarow" episode type.
 *
 * Rules: a board of 7 columns x 6 rows stands upright; two seats, "red"
 * (seat 0, moves first) and "yellow" (seat 1), drop one disc in turn into a
 * column that is not full, and the disc falls to the lowest free cell. Four
 * discs of one colour in a line (horizontal, vertical or diagonal) win; a
 * full board without one is a draw.
 *
 * Coordinates: columns 0..6 left to right, rows 0..5 from the bottom.
 * Board codes: 0 empty, 1 red, 2 yellow.
 *
 * Wire formats:
 *   params   FiarParams (proto/fourinarow.proto): no fields; effective
 *            params are zero bytes (there is nothing to configure)
 *   command  FiarCommand { drop { column } } (fourinarow_wire.c)
 *   state    this file's own bytes, version 1 (KD_FIAR_STATE_LEN):
 *            version, status, turn, last_column (255: none),
 *            move_count u32 BE, players[0], players[1] (33 bytes each),
 *            42 cells column-major (index column * 6 + row)
 *   undo     version (1), column, previous last_column (255: none)
 *   view     FiarView (fourinarow_type.c)
 *
 * A column that is in form but beyond the board (7 and up) is refused by a
 * rule (out_of_bounds); bytes that are not a FiarCommand are
 * KD_ERR_BAD_COMMAND.
 *
 * Threading: every function is pure and reentrant; a kd_fiar_state must not
 * be used from two threads at once.
 */
#ifndef KD_EPISODES_FOURINAROW_H
#define KD_EPISODES_FOURINAROW_H

#include <stddef.h>
#include <stdint.h>

#include "engine/bytes.h"
#include "engine/episode.h"
#include "engine/err.h"
#include "episodes/episode_type.h"

#define KD_FIAR_TYPE_NAME "fourinarow"
#define KD_FIAR_COLS 7
#define KD_FIAR_ROWS 6
#define KD_FIAR_CELLS (KD_FIAR_COLS * KD_FIAR_ROWS)
#define KD_FIAR_VERSION 1 /* first byte of the state and undo encodings */
#define KD_FIAR_NO_COLUMN 255
#define KD_FIAR_STATE_LEN (8 + 2 * KD_PUBKEY_LEN + KD_FIAR_CELLS)
#define KD_FIAR_UNDO_LEN 3
#define KD_FIAR_COMMAND_MAX 16 /* bytes of a packed FiarCommand, with room */

/* Seats: participants in NewEpisode order. */
enum { KD_FIAR_RED = 0, KD_FIAR_YELLOW = 1 };

typedef enum { KD_FIAR_IN_PROGRESS = 0, KD_FIAR_RED_WON = 1, KD_FIAR_YELLOW_WON = 2, KD_FIAR_DRAW = 3 } kd_fiar_status;

/*
 * The state of one game: plain data, zeroed before it is filled, so two
 * states compare equal with memcmp exactly when their encodings are equal.
 * Invariants (kd_fiar_state_decode checks them): discs lie on one another
 * from the bottom of each column; heights[] are the disc counts per column;
 * red has as many discs as yellow or one more; move_count is the number of
 * discs; turn is move_count % 2; last_column is KD_FIAR_NO_COLUMN exactly
 * before the first drop, else a column whose top disc is the last mover's;
 * the status is that of the board (a win is the last mover's, and the board
 * without the last disc has no line).
 */
typedef struct {
    uint8_t cells[KD_FIAR_CELLS];  /* column * KD_FIAR_ROWS + row; 0, 1 red, 2 yellow */
    uint8_t heights[KD_FIAR_COLS]; /* discs per column */
    uint8_t turn;                  /* the seat to move (also after the end) */
    uint8_t status;                /* kd_fiar_status */
    uint8_t last_column;           /* the last drop's column, KD_FIAR_NO_COLUMN before any */
    uint32_t move_count;
    kd_pubkey players[2];
} kd_fiar_state;

/* What one drop changed: the column (its top disc is removed on rollback)
 * and the last_column before it. The previous status is always "in
 * progress" and the previous turn the other seat. */
typedef struct {
    uint8_t column;
    uint8_t prev_last_column;
} kd_fiar_undo;

/* The engine's contract: type_name "fourinarow", no configuration. */
extern const kd_episode_ops kd_fiar_ops;
/* The type-table entry (fourinarow_type.c). */
extern const kd_episode_type kd_fourinarow_type;
/* The codes the rules refuse with, ending with {NULL, NULL}. */
extern const kd_rule_code kd_fiar_rule_codes[];

/* ------------------------------------------------------------ rules */

/* Starts a game: `participants` must be exactly two valid compressed keys
 * (red, yellow; the same key twice is allowed). Errors:
 * KD_ERR_BAD_PARTICIPANTS with a sentence in `rej` (may be NULL); `state`
 * is then zeroed. */
kd_err kd_fiar_state_init(kd_fiar_state *state, const kd_participants *participants, kd_reject *rej) KD_WARN_UNUSED;

/*
 * Drops the mover's disc into `column`, signed by `signer` (NULL:
 * unsigned). Checks, in order, each a KD_ERR_RULE with its code in `rej`:
 *   game_over      the game has ended
 *   unauthorised   unsigned, or signed by neither participant
 *   not_your_turn  signed by the participant of the seat not to move
 *   out_of_bounds  column > 6
 *   column_full    the column holds six discs
 * On success fills `undo`; on error neither `state` nor `undo` is touched.
 */
kd_err kd_fiar_drop(kd_fiar_state *state, uint32_t column, const kd_pubkey *signer, kd_fiar_undo *undo,
                    kd_reject *rej) KD_WARN_UNUSED;

/* The same drop with no signature checks (search, perft): refused only by
 * game_over, out_of_bounds or column_full. */
kd_err kd_fiar_drop_unchecked(kd_fiar_state *state, uint32_t column, kd_fiar_undo *undo, kd_reject *rej) KD_WARN_UNUSED;

/* Inverts the drop that produced `undo`. Errors: KD_ERR_DECODE (a record
 * that cannot be the last drop's: `state` untouched). */
kd_err kd_fiar_rollback(kd_fiar_state *state, const kd_fiar_undo *undo) KD_WARN_UNUSED;

/* Whether `cells` (column-major) hold four in a line of `colour` (1, 2). */
int kd_fiar_has_line(const uint8_t cells[KD_FIAR_CELLS], uint8_t colour);

/* -------------------------------------------------------- encodings */

/* Appends the encodings (formats above). Errors: KD_ERR_NOMEM. */
kd_err kd_fiar_state_encode(const kd_fiar_state *state, kd_buf *out) KD_WARN_UNUSED;
kd_err kd_fiar_undo_encode(const kd_fiar_undo *undo, kd_buf *out) KD_WARN_UNUSED;
/* Decode and validate everything (invariants above); the output is zeroed
 * first and stays zeroed on error. Errors: KD_ERR_DECODE. */
kd_err kd_fiar_state_decode(const uint8_t *data, size_t len, kd_fiar_state *state) KD_WARN_UNUSED;
kd_err kd_fiar_undo_decode(const uint8_t *data, size_t len, kd_fiar_undo *undo) KD_WARN_UNUSED;

/* fourinarow_wire.c: FiarCommand and FiarParams. The decoded column may be
 * beyond the board (a rule refuses it). Errors: KD_ERR_BAD_COMMAND /
 * KD_ERR_BAD_PARAMS with a sentence in `rej` (may be NULL), KD_ERR_NOMEM. */
kd_err kd_fiar_command_encode(uint32_t column, kd_buf *out) KD_WARN_UNUSED;
kd_err kd_fiar_command_decode(const uint8_t *data, size_t len, uint32_t *column, kd_reject *rej) KD_WARN_UNUSED;
/* The command bytes of a drop into `column`, written to `out`; returns
 * their length (at most KD_FIAR_COMMAND_MAX). No allocation. */
size_t kd_fiar_command_pack(uint32_t column, uint8_t out[KD_FIAR_COMMAND_MAX]);
/* Empty params or a FiarParams without fields: KD_OK. */
kd_err kd_fiar_params_decode(const uint8_t *data, size_t len, kd_reject *rej) KD_WARN_UNUSED;

/* fourinarow_bot.c: the bot_command of the type table — negamax with
 * alpha-beta, centre columns first, `depth` plies (0: 5; more than
 * KD_FIAR_BOT_MAX_DEPTH: that many);
 * among equally good columns the `tiebreak`-th. An immediate win is
 * always taken and, from depth 2, an immediate loss blocked when it can be.
 * Errors: KD_ERR_NO_MOVE (the game is over), KD_ERR_NOMEM. */
kd_err kd_fiar_bot_command(const void *state, unsigned depth, uint64_t tiebreak, kd_buf *out) KD_WARN_UNUSED;
#define KD_FIAR_BOT_MAX_DEPTH 7u

#endif
