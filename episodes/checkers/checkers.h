/*
 * checkers.h — English draughts, the "checkers" episode type.
 *
 * Rules: an 8 x 8 board; pieces stand on the playing squares, where file +
 * rank is even (a1 is one). Two seats: "white" (seat 0) starts on the
 * playing squares of ranks 6 to 8 and moves first, toward rank 1 (the
 * orientation of games-mcp); "black" (seat 1) starts on ranks 1 to 3 and
 * moves toward rank 8. A man moves one square diagonally forward, a king
 * one square diagonally either way. A capture jumps an adjacent enemy piece
 * to the empty square beyond it and removes it; captures are mandatory, and
 * a jump sequence must go on while the jumping piece can jump again (any
 * capturing sequence may be chosen, not necessarily the longest). A man
 * reaching the far rank is crowned king and its move ends there, even if it
 * could jump on. A side with no legal move (no piece left, or all blocked)
 * loses. After 80 plies (40 moves by each side) with no capture and no man
 * moved (only kings stepping), the game is drawn; a side left without a
 * move loses even on that ply.
 *
 * Coordinates: squares 0..63 from a1, index (rank - 1) * 8 + (file - 1):
 * a1 = 0, b2 = 9, h8 = 63. Board codes: 0 empty, 1 white man, 2 white
 * king, 3 black man, 4 black king. The start, as the state text and the
 * boards draw it (light squares blank):
 *
 *       a b c d e f g h
 *     8   w   w   w   w      white: 12 men on ranks 6-8, moving down
 *     7 w   w   w   w
 *     6   w   w   w   w      b6 = 41, d6 = 43 ...
 *     5 .   .   .   .
 *     4   .   .   .   .
 *     3 b   b   b   b        black: 12 men on ranks 1-3, moving up
 *     2   b   b   b   b
 *     1 b   b   b   b        a1 = 0, c1 = 2 ...
 *
 * Notation (games-mcp): the squares the moving piece visits, "b6a5",
 * "b6d4f2". State text (games-mcp): "<rank8>/<rank7>/.../<rank1> <turn>",
 * each row 8 characters of w W b B . from file a to h, turn w or b.
 *
 * Wire formats:
 *   params   CheckersParams (proto/checkers.proto): zero bytes for the
 *            standard start, or `start`, a state text; the effective params
 *            are zero bytes or a CheckersParams with the text re-written
 *            canonically
 *   command  CheckersCommand { repeated uint32 squares } (checkers_wire.c)
 *   state    this file's own bytes, version 1 (KD_CK_STATE_LEN): version,
 *            status, turn, quiet plies, move_count u32 BE, players[0],
 *            players[1] (33 bytes each), last move (count, 13 squares,
 *            unused ones 0), 32 playing squares from a1 (a1, c1, e1, g1,
 *            b2, ..., h8), each a board code
 *   undo     version 1 (KD_CK_UNDO_LEN): the move (count, 13 squares), the
 *            previous last move (count, 13 squares), the kings among the
 *            captured pieces (u16 BE, bit i the i-th jump's), crowned,
 *            previous quiet plies, previous status
 *   view     CheckersView (checkers_type.c)
 *
 * A command in form (decodes as a CheckersCommand) whose squares are too
 * few or too many, off the board or light is refused by a rule (not_a_move,
 * bad_square); bytes that are not a CheckersCommand are KD_ERR_BAD_COMMAND.
 *
 * Threading: every function is pure and reentrant; a kd_ck_state must not
 * be used from two threads at once.
 */
#ifndef KD_EPISODES_CHECKERS_H
#define KD_EPISODES_CHECKERS_H

#include <stddef.h>
#include <stdint.h>

#include "engine/bytes.h"
#include "engine/episode.h"
#include "engine/err.h"
#include "episodes/episode_type.h"

#define KD_CK_TYPE_NAME "checkers"
#define KD_CK_SQUARES 64
#define KD_CK_PLAYING 32    /* playing squares */
#define KD_CK_PATH_MAX 13   /* squares of the longest move: a king jumping 12 pieces */
#define KD_CK_PIECES_MAX 12 /* pieces per side */
#define KD_CK_DRAW_PLIES 80 /* quiet plies that draw */
#define KD_CK_VERSION 1     /* first byte of the state and undo encodings */
#define KD_CK_STATE_LEN (8 + 2 * KD_PUBKEY_LEN + 1 + KD_CK_PATH_MAX + KD_CK_PLAYING)
#define KD_CK_UNDO_LEN (1 + 2 * (1 + KD_CK_PATH_MAX) + 2 + 3)
#define KD_CK_COMMAND_MAX 80 /* bytes of a packed CheckersCommand: 13 squares of up to 5 bytes, with room */
#define KD_CK_TEXT_LEN 74    /* "<8 rows of 8>/... <turn>" and its NUL */

/* Seats: participants in NewEpisode order. */
enum { KD_CK_WHITE = 0, KD_CK_BLACK = 1 };

/* Board codes. */
enum { KD_CK_EMPTY = 0, KD_CK_WHITE_MAN = 1, KD_CK_WHITE_KING = 2, KD_CK_BLACK_MAN = 3, KD_CK_BLACK_KING = 4 };

typedef enum { KD_CK_IN_PROGRESS = 0, KD_CK_WHITE_WON = 1, KD_CK_BLACK_WON = 2, KD_CK_DRAW = 3 } kd_ck_status;

/* The squares one move visits: count 0 (none), else 2..KD_CK_PATH_MAX,
 * unused squares 0. */
typedef struct {
    uint8_t count;
    uint8_t squares[KD_CK_PATH_MAX];
} kd_ck_path;

/*
 * The state of one game: plain data without padding, zeroed before it is
 * filled, so two states compare equal with memcmp exactly when their
 * encodings are equal. Invariants (kd_ck_state_decode checks them): pieces
 * only on playing squares, at most 12 per side, no man on its crowning
 * rank; quiet <= 80 and <= move_count; `last` is empty exactly when
 * move_count is 0, else a path of diagonal steps ending on a piece of the
 * side that moved last; the status is the board's (the side to move loses
 * when it has no legal move, else a draw at 80 quiet plies).
 */
typedef struct {
    uint32_t move_count;          /* plies played */
    kd_pubkey players[2];         /* white, black */
    uint8_t board[KD_CK_SQUARES]; /* board codes, index from a1 */
    uint8_t turn;                 /* the seat to move (also after the end) */
    uint8_t status;               /* kd_ck_status */
    uint8_t quiet;                /* plies since the last capture or man move */
    kd_ck_path last;              /* the last move, count 0 before any */
    uint8_t reserved;             /* 0: keeps the struct free of padding */
} kd_ck_state;

/* What one move changed, all rollback needs: the squares visited (the
 * jumped pieces stood between them), which captured pieces were kings,
 * whether the mover was crowned, the last move, quiet plies and status
 * before it. Bytes only (alignment 1): the engine's tools keep undo
 * records in rows of undo_size bytes. */
typedef struct {
    kd_ck_path path;
    kd_ck_path prev_last;
    uint8_t king_captures[2]; /* big-endian u16: bit i set when the i-th jump took a king */
    uint8_t crowned;
    uint8_t prev_quiet;
    uint8_t prev_status;
    uint8_t reserved; /* 0 */
} kd_ck_undo;

/* A decoded command: the squares as sent (any value), `count` of them;
 * only the first KD_CK_PATH_MAX are kept. */
typedef struct {
    uint32_t squares[KD_CK_PATH_MAX];
    uint32_t count;
} kd_ck_command;

/* A position for move generation: a board and the side to move. */
typedef struct {
    uint8_t board[KD_CK_SQUARES];
    uint8_t turn;
} kd_ck_position;

/* The engine's contract: type_name "checkers", no configuration. */
extern const kd_episode_ops kd_ck_ops;
/* The type-table entry (checkers_type.c). */
extern const kd_episode_type kd_checkers_type;
/* The codes the rules refuse with, ending with {NULL, NULL}. */
extern const kd_rule_code kd_ck_rule_codes[];

/* ------------------------------------------------------------ rules */

/* Starts a game from `start` (NULL: the standard position; else a position
 * kd_ck_position_check accepts): `participants` must be exactly two valid
 * compressed keys (white, black; the same key twice is allowed). Errors:
 * KD_ERR_BAD_PARTICIPANTS, KD_ERR_BAD_PARAMS (a start where the side to
 * move has no move) with a sentence in `rej` (may be NULL); `state` is
 * then zeroed. */
kd_err kd_ck_state_init(kd_ck_state *state, const kd_participants *participants, const kd_ck_position *start,
                        kd_reject *rej) KD_WARN_UNUSED;

/*
 * Plays `cmd` for the side to move, signed by `signer` (NULL: unsigned).
 * Checks, in order, each a KD_ERR_RULE with its code in `rej` and a
 * sentence naming the squares:
 *   game_over             the game has ended
 *   unauthorised          unsigned, or signed by neither participant
 *   not_your_turn         signed by the participant of the seat not to move
 *   not_a_move            fewer than 2 or more than 13 squares
 *   bad_square            a square off the board (over 63) or a light one
 *   no_piece              the first square holds no piece of the mover
 *   then step by step:
 *   move_ends_on_crowning a square after the one where a man was crowned
 *   not_a_legal_move      a step that is not one diagonal square or a jump
 *                         of two, a second step after a simple move, a
 *                         simple step after a jump, or a jump over a square
 *                         without an enemy piece
 *   wrong_direction       a man stepping or jumping backward
 *   square_occupied       a step onto an occupied square
 *   capture_required      a simple move while the mover can capture
 *   and at the end:
 *   jump_incomplete       a jump sequence stopped where the piece can jump on
 * On success fills `undo`; on error neither `state` nor `undo` is touched.
 */
kd_err kd_ck_play(kd_ck_state *state, const kd_ck_command *cmd, const kd_pubkey *signer, kd_ck_undo *undo,
                  kd_reject *rej) KD_WARN_UNUSED;

/* The same move with no signature checks (search, perft). */
kd_err kd_ck_play_unchecked(kd_ck_state *state, const kd_ck_command *cmd, kd_ck_undo *undo,
                            kd_reject *rej) KD_WARN_UNUSED;

/* Inverts the move that produced `undo`. Errors: KD_ERR_DECODE (a record
 * that cannot be the last move's: `state` untouched). */
kd_err kd_ck_rollback(kd_ck_state *state, const kd_ck_undo *undo) KD_WARN_UNUSED;

/* The standard start: white on ranks 6-8, black on ranks 1-3, white to
 * move. */
void kd_ck_position_start(kd_ck_position *pos);

/* Whether `pos` may start a game: codes 0..4, pieces only on playing
 * squares, at most 12 a side, no man on its crowning rank, and the side to
 * move has a move. Errors: KD_ERR_BAD_PARAMS with a sentence in `why`. */
kd_err kd_ck_position_check(const kd_ck_position *pos, char *why, size_t why_len) KD_WARN_UNUSED;

/* checkers_moves.c: move generation on a position. */

/* Called with each legal move's path; a nonzero return stops the walk. */
typedef int (*kd_ck_move_fn)(void *ctx, const kd_ck_path *path);

/* Visits every legal move of the side to move: its capture sequences (each
 * taken to its end) when it can capture, else its simple moves. Returns
 * nonzero when `fn` stopped the walk. */
int kd_ck_each_move(const kd_ck_position *pos, kd_ck_move_fn fn, void *ctx);
/* Whether `side` (KD_CK_WHITE, KD_CK_BLACK) can capture on `board`. */
int kd_ck_can_capture(const uint8_t board[KD_CK_SQUARES], int side);
/* Whether the piece `piece` (a board code) standing on `sq` can jump. */
int kd_ck_can_jump(const uint8_t board[KD_CK_SQUARES], int sq, uint8_t piece);
/* Whether the side to move has a legal move. */
int kd_ck_has_move(const kd_ck_position *pos);
/* The seat a board code belongs to (KD_CK_WHITE, KD_CK_BLACK), -1 for
 * empty. */
int kd_ck_owner(uint8_t piece);
/* The rank (0..7) where `side`'s men are crowned. */
int kd_ck_crown_rank(int side);
/* Whether square `sq` (0..63) is a playing square. */
int kd_ck_is_playing(uint32_t sq);

/* checkers_text.c: notation and state text. */

/* "a1".."h8" into `out` (3 bytes); "??" off the board. */
void kd_ck_square_name(uint32_t sq, char out[3]);
/* The notation of `path` ("b6d4f2") into `out`. */
void kd_ck_path_format(const kd_ck_path *path, char out[KD_NOTATION_MAX]);
/* Parses a notation: 2..13 squares, each a file a-h and a rank 1-8 (upper
 * case files too), on playing squares; '-' or 'x' between squares are
 * allowed. Errors: KD_ERR_BAD_COMMAND with a sentence in `why`. */
kd_err kd_ck_path_parse(const char *text, kd_ck_path *path, char *why, size_t why_len) KD_WARN_UNUSED;
/* The games-mcp state text of `pos` into `out`. */
void kd_ck_text_format(const kd_ck_position *pos, char out[KD_CK_TEXT_LEN]);
/* Parses a state text (rows of w W b B ., '/' between them, a space, the
 * turn w or b). Only the form is checked (kd_ck_position_check the rest).
 * Errors: KD_ERR_BAD_PARAMS with a sentence in `why`. */
kd_err kd_ck_text_parse(const char *text, kd_ck_position *pos, char *why, size_t why_len) KD_WARN_UNUSED;

/* A fixed list of legal moves, for search and random choice. */
#define KD_CK_MOVES_MAX 256
typedef struct {
    kd_ck_path moves[KD_CK_MOVES_MAX];
    size_t count;
} kd_ck_moves;

/* Fills `out` with the legal moves of the side to move (kd_ck_each_move's
 * order), the first KD_CK_MOVES_MAX of them; returns their count. */
size_t kd_ck_moves_list(const kd_ck_position *pos, kd_ck_moves *out);

/* -------------------------------------------------------- encodings */

/* Appends the encodings (formats above). Errors: KD_ERR_NOMEM. */
kd_err kd_ck_state_encode(const kd_ck_state *state, kd_buf *out) KD_WARN_UNUSED;
kd_err kd_ck_undo_encode(const kd_ck_undo *undo, kd_buf *out) KD_WARN_UNUSED;
/* Decode and validate everything (invariants above); the output is zeroed
 * first and stays zeroed on error. Errors: KD_ERR_DECODE. */
kd_err kd_ck_state_decode(const uint8_t *data, size_t len, kd_ck_state *state) KD_WARN_UNUSED;
kd_err kd_ck_undo_decode(const uint8_t *data, size_t len, kd_ck_undo *undo) KD_WARN_UNUSED;

/* checkers_wire.c: CheckersCommand and CheckersParams. */

/* Errors: KD_ERR_BAD_COMMAND with a sentence in `rej` (may be NULL),
 * KD_ERR_NOMEM. The squares are as sent: the rules judge them. */
kd_err kd_ck_command_decode(const uint8_t *data, size_t len, kd_ck_command *cmd, kd_reject *rej) KD_WARN_UNUSED;
/* Appends the CheckersCommand of `path`. Errors: KD_ERR_NOMEM. */
kd_err kd_ck_command_encode(const kd_ck_path *path, kd_buf *out) KD_WARN_UNUSED;
/* The command bytes of `count` squares (at most KD_CK_PATH_MAX), written
 * to `out`; returns their length. No allocation. */
size_t kd_ck_command_pack(const uint32_t *squares, size_t count, uint8_t out[KD_CK_COMMAND_MAX]);
/* Params bytes to a start position: `*has_start` 0 for the standard start
 * (zero bytes, or a CheckersParams without a start). Errors:
 * KD_ERR_BAD_PARAMS (not a CheckersParams, unknown fields, a start that is
 * not a state text or kd_ck_position_check refuses) with a sentence in
 * `rej` (may be NULL), KD_ERR_NOMEM. */
kd_err kd_ck_params_decode(const uint8_t *data, size_t len, kd_ck_position *start, int *has_start,
                           kd_reject *rej) KD_WARN_UNUSED;
/* Appends the CheckersParams carrying `start`'s canonical text. Errors:
 * KD_ERR_NOMEM. */
kd_err kd_ck_params_encode(const kd_ck_position *start, kd_buf *out) KD_WARN_UNUSED;

/* checkers_view.c: the public view (CheckersView) and its renderings. */

/* A decoded view. */
typedef struct {
    kd_ck_position pos; /* the board and the seat to move */
    uint8_t status;     /* kd_ck_status */
    uint32_t move_count, quiet;
    kd_ck_path last;
} kd_ck_view;

/* The type table's status of a kd_ck_state. */
kd_game_status kd_ck_status_of(const void *state);
/* Appends the CheckersView of a kd_ck_state (every seat sees the same).
 * Errors: KD_ERR_NOMEM. */
kd_err kd_ck_view_encode(const void *state, int seat, kd_buf *out) KD_WARN_UNUSED;
/* Parses and validates CheckersView bytes into `view` (zeroed first).
 * Errors: KD_ERR_DECODE (also when out of memory). */
kd_err kd_ck_view_decode(const uint8_t *data, size_t len, kd_ck_view *view) KD_WARN_UNUSED;
/* The renderings of CheckersView bytes, as the type table's view_json,
 * strategy_context, render_text and prompt (episode_type.h):
 *   view_json  {state_text (games-mcp's "state"; the enriched view's
 *              "state" is the engine's bytes in hex), board (rank 8 first, strings of w W b B .),
 *              board_rows, turn, current, status, move_count, pieces,
 *              draw_counter, draw_at, last_move, move_rules {must_capture,
 *              forced_captures}}
 *   strategy   {game, rules, state_text, board, to_move, status, winner,
 *              move_count, draw_counter, last_move, legal_moves,
 *              must_capture, forced_captures} */
json_t *kd_ck_view_json(const uint8_t *view, size_t len);
json_t *kd_ck_strategy_json(const uint8_t *view, size_t len);
kd_err kd_ck_render_text(const uint8_t *view, size_t len, unsigned flags, kd_buf *out) KD_WARN_UNUSED;
kd_err kd_ck_prompt(const uint8_t *view, size_t len, uint32_t episode_id, int seat, kd_buf *out) KD_WARN_UNUSED;

/* checkers_bot.c: the bot_command of the type table — negamax with
 * alpha-beta over material (man 100, king 150) and the men's advancement,
 * `depth` plies (0: 8; more than KD_CK_BOT_MAX_DEPTH: that many, under
 * half a second a move even among sixteen kings); among equally good
 * moves the `tiebreak`-th.
 * Captures are forced as the rules force them; a side without a move loses
 * before 80 quiet plies draw. Errors: KD_ERR_NO_MOVE (the game is over),
 * KD_ERR_NOMEM. */
kd_err kd_ck_bot_command(const void *state, unsigned depth, uint64_t tiebreak, kd_buf *out) KD_WARN_UNUSED;
#define KD_CK_BOT_MAX_DEPTH 9u

#endif
