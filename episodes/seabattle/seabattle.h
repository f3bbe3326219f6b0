/*
 * seabattle.h — sea battle with committed fleets, the "seabattle" episode
 * type: hidden information on a public log.
 *
 * Rules: two seats, "blue" (seat 0, shoots first) and "red", each with a
 * 10 x 10 board holding a fleet of five ships: ids 1..5 of lengths 5, 4, 3,
 * 3, 2, each straight (one row or one column), no two touching, not even
 * diagonally. The seats shoot in turn, one shot each (a hit gives no extra
 * shot); the defender must answer each shot by opening the cell. The engine
 * checks the opening against the defender's committed root and records a
 * miss or a hit on ship k; ship k is sunk when the hits on id k reach its
 * length; a fleet is sunk when all five are. Sinking the other's fleet, or
 * the other's resignation, ends the play and opens the reveal: both seats
 * open their whole boards, and the engine checks each against its root and
 * for a legal fleet consistent with the answers given. The result: the
 * provisional winner (who sank, or did not resign) wins unless its own
 * fleet is illegal while the other's is legal. A seat that does not answer
 * a shot, or reveal, within `timeout` DAA score loses to the waiting seat's
 * claim. An opening or board that does not match the root is refused
 * (false_opening, false_board): the seat may still answer truthfully
 * before the deadline.
 *
 * Cells: index row * 10 + column, rows 1..10 and columns a..j: "a1" is 0,
 * "j1" 9, "a2" 10, "j10" 99. Contents: 0 empty, 1..5 the ship id.
 *
 * Commitment: leaf(i) = SHA-256(0x00 || i (1 byte) || content (1 byte) ||
 * salt (32 bytes)) for the cells i = 0..99; leaves 100..127 are 32 zero
 * bytes (padding to 128 = 2^7); node = SHA-256(0x01 || left || right); the
 * root is the node over all 128 leaves. A cell's path is its 7 siblings,
 * bottom-up. A seat's fleet and salts derive from its secret seed
 * (kd_secret_seed, bound to the seat's binding, which the params carry
 * beside its root: engine/crypto.h): salt(i) = SHA-256("kdapp/seabattle/salt/v1" || seed ||
 * i (1 byte)); the fleet is drawn uniformly among legal fleets by rejection
 * (kd_fair_stream over SHA-256("kdapp/seabattle/fleet/v1" || seed): each
 * ship in turn gets an orientation and a position uniformly; the whole
 * placement is redrawn when a ship overlaps or touches an earlier one).
 *
 * Wire formats:
 *   params   SbParams (proto/seabattle.proto): roots, bindings; effective
 *            params have the timeout resolved (default 600, at least
 *            KD_DEADLINE_MIN)
 *   command  SbCommand: shot, answer, reveal, resign, claim (seabattle_wire.c)
 *   state    KD_SB_STATE_LEN bytes (seabattle_codec.c)
 *   undo     version (1), the state before (KD_SB_STATE_LEN bytes) and the
 *            SHA-256 of the state after (the rollback checks it)
 *   view     SbView (seabattle_type.c)
 *
 * Threading: every function is pure and reentrant.
 */
#ifndef KD_EPISODES_SEABATTLE_H
#define KD_EPISODES_SEABATTLE_H

#include <stddef.h>
#include <stdint.h>

#include "engine/bytes.h"
#include "engine/crypto.h"
#include "engine/episode.h"
#include "engine/err.h"
#include "episodes/episode_type.h"
#include "episodes/fair.h"

#define KD_SB_TYPE_NAME "seabattle"
#define KD_SB_SIZE 10
#define KD_SB_CELLS 100
#define KD_SB_SHIPS 5
#define KD_SB_FLEET_CELLS 17 /* 5 + 4 + 3 + 3 + 2 */
#define KD_SB_SALT_LEN 32
#define KD_SB_DEPTH 7 /* 128 leaves */
#define KD_SB_LEAVES 128
#define KD_SB_VERSION 2
#define KD_SB_NO_CELL 255
#define KD_SB_NO_SEAT 255
#define KD_SB_DEFAULT_TIMEOUT 600u
#define KD_SB_TIMEOUT_MAX 100000000u
#define KD_SB_STATE_LEN (2 * KD_PUBKEY_LEN + 2 * KD_HASH_LEN + 2 * KD_SECRET_BINDING_LEN + 8 + 8 + 2 * KD_SB_CELLS + 12)
#define KD_SB_UNDO_LEN (1 + KD_SB_STATE_LEN + KD_HASH_LEN)
#define KD_SB_COMMAND_MAX 16 /* bytes of a packed shot, claim or resign, with room */

enum { KD_SB_BLUE = 0, KD_SB_RED = 1 };
typedef enum { KD_SB_PLAY = 0, KD_SB_REVEAL = 1, KD_SB_OVER = 2 } kd_sb_phase;
/* Why the play ended. */
typedef enum {
    KD_SB_REASON_NONE = 0,
    KD_SB_REASON_SUNK = 1,      /* a fleet was sunk */
    KD_SB_REASON_RESIGNED = 2,  /* a seat resigned */
    KD_SB_REASON_EXHAUSTED = 3, /* every cell of a board was shot without sinking it: not a legal fleet */
    KD_SB_REASON_NO_ANSWER = 4, /* a shot was not answered by the deadline */
    KD_SB_REASON_NO_REVEAL = 5, /* a board was not revealed by the deadline */
} kd_sb_reason;
/* Marks on a board: 0 unshot, 1 miss, 2..6 a hit on ship 1..5. */
#define KD_SB_MARK_MISS 1
/* revealed[]: 0 not yet, 1 a legal fleet, 2 an illegal one. */
enum { KD_SB_UNREVEALED = 0, KD_SB_LEGAL = 1, KD_SB_ILLEGAL = 2 };

/* The lengths of ships 1..5 (index 0 unused). */
extern const uint8_t kd_sb_ship_len[KD_SB_SHIPS + 1];

/*
 * The public state: roots, shots and answers, never a fleet. Plain data,
 * zeroed before it is filled (memcmp compares states).
 */
typedef struct {
    uint64_t timeout; /* DAA score a seat has to answer or reveal */
    uint64_t since;   /* the DAA score the current wait began at */
    kd_pubkey players[2];
    uint8_t roots[2][KD_HASH_LEN];
    uint8_t bindings[2][KD_SECRET_BINDING_LEN]; /* what each seat's fleet is drawn under */
    uint8_t marks[2][KD_SB_CELLS];              /* marks[s]: seat s's board as shot by the other */
    uint8_t phase;                              /* kd_sb_phase */
    uint8_t turn;                               /* the shooter */
    uint8_t pending;                            /* the cell shot and unanswered, KD_SB_NO_CELL */
    uint8_t winner;                             /* KD_SB_NO_SEAT until the play ends (provisional in the reveal) */
    uint8_t reason;                             /* kd_sb_reason */
    uint8_t revealed[2];
    uint8_t pad;
    uint32_t move_count; /* commands applied */
} kd_sb_state;

/* The state before a command and the hash of the state after it. */
typedef struct {
    kd_sb_state before;
    uint8_t after_hash[KD_HASH_LEN];
} kd_sb_undo;

/* A decoded command. */
typedef enum { KD_SB_SHOT = 1, KD_SB_ANSWER, KD_SB_REVEAL_BOARD, KD_SB_RESIGN, KD_SB_CLAIM } kd_sb_kind;
typedef struct {
    kd_sb_kind kind;
    uint32_t cell;    /* shot, answer */
    uint32_t content; /* answer */
    uint8_t salt[KD_SB_SALT_LEN];
    uint8_t path[KD_SB_DEPTH][KD_HASH_LEN];
    uint8_t contents[KD_SB_CELLS]; /* reveal */
    uint8_t salts[KD_SB_CELLS][KD_SB_SALT_LEN];
} kd_sb_command;

/* A seat's secret board: what it commits to. */
typedef struct {
    uint8_t contents[KD_SB_CELLS];
    uint8_t salts[KD_SB_CELLS][KD_SB_SALT_LEN];
} kd_sb_board;

extern const kd_episode_ops kd_sb_ops;
extern const kd_episode_type kd_seabattle_type;
extern const kd_rule_code kd_sb_rule_codes[];

/* ------------------------------------------------ commitment (seabattle_fleet.c) */

/* The leaf of cell `cell` (format above). */
void kd_sb_leaf(uint32_t cell, uint8_t content, const uint8_t salt[KD_SB_SALT_LEN], uint8_t out[KD_HASH_LEN]);
/* The root of a board. */
void kd_sb_root(const kd_sb_board *board, uint8_t out[KD_HASH_LEN]);
/* The path of `cell` (< 100) in `board`. */
void kd_sb_path(const kd_sb_board *board, uint32_t cell, uint8_t path[KD_SB_DEPTH][KD_HASH_LEN]);
/* 1 when (cell, content, salt, path) opens to `root`, else 0. */
int kd_sb_path_ok(const uint8_t root[KD_HASH_LEN], uint32_t cell, uint8_t content, const uint8_t salt[KD_SB_SALT_LEN],
                  const uint8_t path[KD_SB_DEPTH][KD_HASH_LEN]);
/* The board of a seat's secret seed: a uniformly drawn legal fleet and the
 * salts (see above). */
void kd_sb_board_from_seed(const uint8_t seed[KD_SECRET_SEED_LEN], kd_sb_board *board);
/* Only the fleet of a seed (contents); what kd_sb_board_from_seed places. */
void kd_sb_fleet_from_seed(const uint8_t seed[KD_SECRET_SEED_LEN], uint8_t contents[KD_SB_CELLS]);
/* 1 when `contents` hold a legal fleet (ids 1..5 each a straight line of
 * its length, nothing else, no two ships touching even diagonally); else 0
 * with a sentence in `why` (may be NULL). */
int kd_sb_fleet_legal(const uint8_t contents[KD_SB_CELLS], char *why, size_t why_len);

/* ---------------------------------------------------- rules (seabattle.c) */

/* Creation params: each seat's root and binding, the deadline. */
typedef struct {
    uint8_t roots[2][KD_HASH_LEN];
    uint8_t bindings[2][KD_SECRET_BINDING_LEN];
    uint64_t timeout; /* 0 when absent (decode); KD_DEADLINE_MIN..KD_SB_TIMEOUT_MAX once resolved */
} kd_sb_params;

/* Starts a game: two valid keys, the effective params. Errors:
 * KD_ERR_BAD_PARTICIPANTS, KD_ERR_BAD_PARAMS (rej: a timeout outside
 * KD_DEADLINE_MIN..KD_SB_TIMEOUT_MAX). */
kd_err kd_sb_state_init(kd_sb_state *state, const kd_participants *participants, const kd_sb_params *params,
                        kd_reject *rej) KD_WARN_UNUSED;
/*
 * Applies a command signed by `signer` at DAA score `daa`. Refusals
 * (KD_ERR_RULE, code in rej): game_over, unauthorised, not_your_turn,
 * out_of_bounds, already_shot, answer_owed, no_shot_pending, wrong_cell,
 * bad_content, false_opening, not_reveal_phase, already_revealed,
 * false_board, too_early, nothing_to_claim. On error `state` is untouched.
 */
kd_err kd_sb_apply(kd_sb_state *state, const kd_sb_command *cmd, const kd_pubkey *signer, uint64_t daa,
                   kd_sb_undo *undo, kd_reject *rej) KD_WARN_UNUSED;
/* Inverts the command that produced `undo`. Errors: KD_ERR_DECODE (the
 * record is not the last command's; state untouched). */
/* kd_episode_ops.join_params: a stranger's part of the params at open
 * seat `seat` holds its root_<seat> and binding_<seat> (32 bytes each) and nothing else. */
kd_err kd_sb_join_params(int seat, const uint8_t *params, size_t len, kd_reject *rej) KD_WARN_UNUSED;
kd_err kd_sb_rollback(kd_sb_state *state, const kd_sb_undo *undo) KD_WARN_UNUSED;
/* Hits on ship `id` (1..5) of seat `seat`'s board. */
unsigned kd_sb_hits(const kd_sb_state *state, int seat, unsigned id);
/* Whether all five ships of seat `seat` are sunk. */
int kd_sb_fleet_sunk(const kd_sb_state *state, int seat);
/* The seat that must act now (the shooter, the defender owing an answer,
 * the first seat owing its reveal), KD_SEAT_NONE when the game is over. */
int kd_sb_to_move(const kd_sb_state *state);

/* ------------------------------------------------- encodings (seabattle_codec.c) */

kd_err kd_sb_state_encode(const kd_sb_state *state, kd_buf *out) KD_WARN_UNUSED;
kd_err kd_sb_state_decode(const uint8_t *data, size_t len, kd_sb_state *state) KD_WARN_UNUSED;
kd_err kd_sb_undo_encode(const kd_sb_undo *undo, kd_buf *out) KD_WARN_UNUSED;
kd_err kd_sb_undo_decode(const uint8_t *data, size_t len, kd_sb_undo *undo) KD_WARN_UNUSED;
/* The SHA-256 of a state's encoding. */
void kd_sb_state_hash(const kd_sb_state *state, uint8_t out[KD_HASH_LEN]);

/* ------------------------------------------------------ wire (seabattle_wire.c) */

/* Encodes a command (only the members of its kind). Errors: KD_ERR_NOMEM. */
kd_err kd_sb_command_encode(const kd_sb_command *cmd, kd_buf *out) KD_WARN_UNUSED;
/* Decodes an SbCommand (form only: lengths of salts and paths). Errors:
 * KD_ERR_BAD_COMMAND (rej), KD_ERR_NOMEM. */
kd_err kd_sb_command_decode(const uint8_t *data, size_t len, kd_sb_command *cmd, kd_reject *rej) KD_WARN_UNUSED;
/* SbParams to params (timeout 0 when absent). Errors: KD_ERR_BAD_PARAMS
 * (a root or binding missing or not 32 bytes). */
kd_err kd_sb_params_decode(const uint8_t *data, size_t len, kd_sb_params *params, kd_reject *rej) KD_WARN_UNUSED;
kd_err kd_sb_params_encode(const kd_sb_params *params, kd_buf *out) KD_WARN_UNUSED;

/* The command a seat owes from its seed (an answer, a reveal), encoded;
 * KD_ERR_NO_MOVE when none (the type's secret_duty). */
kd_err kd_sb_duty(const void *state, int seat, const uint8_t seed[KD_SECRET_SEED_LEN], kd_buf *out) KD_WARN_UNUSED;

/* seabattle_bot.c: hunt and target. Among unshot cells of the other board,
 * the one covered by the most placements of the ships not yet sunk
 * (placements through known misses, sunk ships or their neighbours
 * excluded); while a ship is hit and not sunk, only placements through its
 * hits count (target). Ties: the `tiebreak`-th. Errors: KD_ERR_NO_MOVE. */
kd_err kd_sb_bot_command(const void *state, unsigned depth, uint64_t tiebreak, kd_buf *out) KD_WARN_UNUSED;

/* "c5" -> 42; -1 when not a cell. */
int kd_sb_cell_parse(const char *text);
/* 42 -> "c5" (out: 4 bytes at least). */
void kd_sb_cell_name(uint32_t cell, char out[4]);

#endif
