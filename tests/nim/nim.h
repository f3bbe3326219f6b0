/*
 * nim.h — Nim, an episode type that exists only in tests/: the proof that
 * the type table (episodes/episode_type.h) and the engine's kd_episode_ops
 * are generic. The test that uses it registers it itself; no generic file
 * names it.
 *
 * Rules (normal play): 1..6 heaps of 1..15 counters (default 3, 4, 5). Two
 * seats, "first" and "second", move in turn, first moving first; a move
 * takes at least one counter from one heap; whoever takes the last counter
 * wins. There is no draw: every move removes a counter, so a game lasts at
 * most 90 moves.
 *
 * Wire formats are this file's own fixed bytes (no .proto: a test type must
 * not touch proto/):
 *
 *   params   version (1), heap count n (1..6), n heap sizes (1..15)
 *            zero bytes = "the engine default" (resolve_params fills it)
 *   command  version (1), heap (1..255, numbered from 1), take (1..255)
 *   state    version (1), n, status, turn, move_count u32 BE,
 *            players[0], players[1] (33 bytes each), n x (start, left)
 *   undo     version (1), heap, take
 *   view     version (1), n, status, turn, move_count u32 BE, n x (start, left)
 *
 * A heap or a take that is in form but beyond the position (heap 9 of 3,
 * take 7 of 5) is refused by a rule of the game, with a code of
 * kd_nim_rule_codes; a command whose bytes are not of that form is
 * KD_ERR_BAD_COMMAND.
 *
 * nim.c holds the rules, the encodings and the ops table (engine only);
 * nim_type.c the kd_episode_type (JSON, views, moves, bot, configuration),
 * which needs the type-table helpers of episodes/types.c. Every function is
 * pure and reentrant; a kd_nim_state must not be used from two threads at
 * once.
 */
#ifndef KD_TESTS_NIM_NIM_H
#define KD_TESTS_NIM_NIM_H

#include <stddef.h>
#include <stdint.h>

#include "engine/bytes.h"
#include "engine/episode.h"
#include "engine/err.h"
#include "episodes/episode_type.h"

#define KD_NIM_TYPE_NAME "nim"
#define KD_NIM_MAX_HEAPS 6
#define KD_NIM_MAX_COUNTERS 15 /* per heap, at creation */
#define KD_NIM_VERSION 1       /* first byte of every encoding */
#define KD_NIM_COMMAND_LEN 3
#define KD_NIM_UNDO_LEN 3
#define KD_NIM_STATE_FIXED_LEN 74 /* before the n x (start, left) pairs */
#define KD_NIM_VIEW_FIXED_LEN 8
#define KD_NIM_ENV_HEAPS "KDAPP_NIM_HEAPS"

/* Seats: participants in NewEpisode order. */
enum { KD_NIM_FIRST = 0, KD_NIM_SECOND = 1 };

typedef enum { KD_NIM_IN_PROGRESS = 0, KD_NIM_FIRST_WON = 1, KD_NIM_SECOND_WON = 2 } kd_nim_status;

/* The heaps of a game (params, configuration). */
typedef struct {
    uint8_t count;                   /* 1..KD_NIM_MAX_HEAPS; 0 in a config: the built-in default */
    uint8_t sizes[KD_NIM_MAX_HEAPS]; /* 1..KD_NIM_MAX_COUNTERS each; unused entries zero */
} kd_nim_heaps;

/* The engine default (kd_episode_ops config pointer, config_from_env). */
typedef struct {
    kd_nim_heaps heaps; /* count 0: 3, 4, 5 */
} kd_nim_config;

/*
 * The state of one game: plain data, zeroed before it is filled (unused
 * heaps zero), so two states compare equal with memcmp exactly when their
 * encodings are equal. `turn` is the seat to move: move_count % 2, also
 * after the last move. Invariants (kd_nim_state_decode checks them):
 * left[i] <= start[i]; the game is over exactly when every heap is empty,
 * and then the seat that moved last won; every move took at least one
 * counter, so sum(start) - sum(left) >= move_count.
 */
typedef struct {
    uint8_t heap_count;
    uint8_t start[KD_NIM_MAX_HEAPS];
    uint8_t left[KD_NIM_MAX_HEAPS];
    uint8_t turn;   /* KD_NIM_FIRST / KD_NIM_SECOND */
    uint8_t status; /* kd_nim_status */
    uint32_t move_count;
    kd_pubkey players[2];
} kd_nim_state;

/* What one execute changed. The previous status is always "in progress"
 * and the previous turn the other seat, so neither is stored. */
typedef struct {
    uint8_t heap; /* 1..heap_count */
    uint8_t take; /* >= 1 */
} kd_nim_undo;

/* A decoded command. */
typedef struct {
    uint8_t heap; /* 1..255 */
    uint8_t take; /* 1..255 */
} kd_nim_move;

/* The engine's contract: type_name "nim", state_size sizeof(kd_nim_state),
 * undo_size sizeof(kd_nim_undo); its config pointer is a
 * `const kd_nim_config *` or NULL (3, 4, 5). */
extern const kd_episode_ops kd_nim_ops;

/* The type table entry (nim_type.c): what a test adds to its
 * kd_type_table with kd_type_table_add. Its config is a kd_nim_config. */
extern const kd_episode_type kd_nim_type;

/* The codes Nim's rules refuse with, ending with {NULL, NULL}. */
extern const kd_rule_code kd_nim_rule_codes[];

/* The heaps 3, 4, 5. */
kd_nim_heaps kd_nim_default_heaps(void);

/* ------------------------------------------------------------ rules */

/*
 * Starts a game on `heaps` (validated: 1..6 heaps of 1..15). `participants`
 * must be exactly two valid compressed keys (the same key twice is allowed:
 * one holder plays both seats). Errors: KD_ERR_BAD_PARTICIPANTS,
 * KD_ERR_BAD_PARAMS, with a sentence in `rej` (may be NULL); `state` is
 * then zeroed.
 */
kd_err kd_nim_state_init(kd_nim_state *state, const kd_participants *participants, const kd_nim_heaps *heaps,
                         kd_reject *rej) KD_WARN_UNUSED;

/*
 * Applies `move` signed by `signer` (NULL: unsigned). Checks, in order, each
 * a KD_ERR_RULE with its code in `rej` (may be NULL):
 *   game_over      every heap is empty
 *   unauthorised   unsigned, or the signer is neither participant
 *   not_your_turn  the signer is the participant of the seat not to move
 *   no_such_heap   heap > heap_count
 *   take_too_many  take > the counters left in the heap
 * On success fills `undo`; on error neither `state` nor `undo` is touched.
 */
kd_err kd_nim_play(kd_nim_state *state, const kd_nim_move *move, const kd_pubkey *signer, kd_nim_undo *undo,
                   kd_reject *rej) KD_WARN_UNUSED;

/* Whether `undo` can be the record of the last move applied to `state`
 * (a move was made; the heap exists; giving the counters back keeps it
 * within its start and leaves at least one counter per earlier move).
 * Errors: KD_ERR_DECODE. */
kd_err kd_nim_undo_check(const kd_nim_state *state, const kd_nim_undo *undo) KD_WARN_UNUSED;

/* Inverts the kd_nim_play that produced `undo`. Errors: KD_ERR_DECODE (a
 * record kd_nim_undo_check refuses; `state` untouched). */
kd_err kd_nim_rollback(kd_nim_state *state, const kd_nim_undo *undo) KD_WARN_UNUSED;

/* The XOR of the heaps left: the mover wins with best play iff it is not 0. */
unsigned kd_nim_sum(const kd_nim_state *state);

/* -------------------------------------------------------- encodings */

/* Appends the encodings (formats above). Errors: KD_ERR_NOMEM. */
kd_err kd_nim_params_encode(const kd_nim_heaps *heaps, kd_buf *out) KD_WARN_UNUSED;
kd_err kd_nim_command_encode(uint8_t heap, uint8_t take, kd_buf *out) KD_WARN_UNUSED;
kd_err kd_nim_state_encode(const kd_nim_state *state, kd_buf *out) KD_WARN_UNUSED;
kd_err kd_nim_undo_encode(const kd_nim_undo *undo, kd_buf *out) KD_WARN_UNUSED;

/* Decodes params (not empty). Errors: KD_ERR_BAD_PARAMS with a sentence in
 * `rej` (may be NULL). */
kd_err kd_nim_params_decode(const uint8_t *data, size_t len, kd_nim_heaps *heaps, kd_reject *rej) KD_WARN_UNUSED;
/* Decodes a command. Errors: KD_ERR_BAD_COMMAND with a sentence. */
kd_err kd_nim_command_decode(const uint8_t *data, size_t len, kd_nim_move *move, kd_reject *rej) KD_WARN_UNUSED;
/* Decode and validate everything (invariants above); the output is zeroed
 * first and stays zeroed on error. Errors: KD_ERR_DECODE. */
kd_err kd_nim_state_decode(const uint8_t *data, size_t len, kd_nim_state *state) KD_WARN_UNUSED;
kd_err kd_nim_undo_decode(const uint8_t *data, size_t len, kd_nim_undo *undo) KD_WARN_UNUSED;

/* Parses "3,4,5" (1..6 comma-separated sizes 1..15, spaces allowed after
 * commas). Returns 0 and fills `heaps`, or -1. */
int kd_nim_heaps_parse(const char *text, kd_nim_heaps *heaps);

#endif
