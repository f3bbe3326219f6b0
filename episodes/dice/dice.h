/*
 * dice.h — RPG dice answered by the house's VRF, the "dice" episode type.
 *
 * Seats: "player" (seat 0) rolls, "house" (seat 1) reveals. A roll "NdM+K"
 * (N dice of M sides plus K) asks the house for a draw (episodes/house.h)
 * with 32 bytes of the player's entropy; the house's reveal (its VRF proof
 * for the draw, episodes/fair.h) gives the dice, each kd_fair_below(M) + 1
 * from the draw's stream in order, and the total (their sum plus K). A house
 * that does not reveal within reveal_timeout DAA score of the roll loses:
 * the player's claim ends the episode, won by the player (house_forfeit).
 * Otherwise the episode ends (finished, a draw in the generic phase) when
 * max_rolls rolls have been revealed.
 *
 * Limits, each a rule with its code: M one of 4, 6, 8, 10, 12, 20, 100
 * (bad_die); 1 <= N <= 100 (dice_count); -1000 <= K <= 1000
 * (modifier_out_of_range).
 *
 * Wire formats:
 *   params   DiceParams (proto/chance.proto): the house's key, binding and
 *            reveal timeout; max_rolls (default 100)
 *   command  DiceCommand { roll | reveal | claim } (dice_wire.c)
 *   state    this file's bytes (version 2 for draw input 2, 3 for draw
 *            input 3: kd_house_head_encode), see dice.c
 *   undo     the house's undo and what a reveal or claim replaced
 *   view     DiceView (dice_type.c)
 *
 * Threading: pure and reentrant; a state is used by one thread at a time.
 */
#ifndef KD_EPISODES_DICE_H
#define KD_EPISODES_DICE_H

#include <stddef.h>
#include <stdint.h>

#include "engine/bytes.h"
#include "engine/episode.h"
#include "engine/err.h"
#include "episodes/episode_type.h"
#include "episodes/house.h"

#define KD_DICE_TYPE_NAME "dice"
#define KD_DICE_VERSION 2
#define KD_DICE_MAX_COUNT 100
#define KD_DICE_MAX_MODIFIER 1000
#define KD_DICE_RECENT 5 /* rolls the state and the view keep, newest last */
#define KD_DICE_MAX_ROLLS_DEFAULT 100u
#define KD_DICE_MAX_ROLLS_MAX 10000u
#define KD_DICE_ROLL_LEN (3 + 2 + 4 + 4 + KD_DICE_MAX_COUNT)
#define KD_DICE_TABLE_LEN (4 + 4 + 1 + 1 + (1 + KD_DICE_RECENT) * KD_DICE_ROLL_LEN) /* after the house's head */
#define KD_DICE_STATE_LEN (KD_HOUSE_HEAD_LEN + KD_DICE_TABLE_LEN)                   /* draw input 2 */
#define KD_DICE_STATE_MAX (KD_HOUSE_HEAD_MAX + KD_DICE_TABLE_LEN)                   /* draw input 3 */
#define KD_DICE_UNDO_LEN (1 + KD_HOUSE_UNDO_LEN + 1 + 1 + 1 + 2 * KD_DICE_ROLL_LEN)
#define KD_DICE_COMMAND_MAX 96 /* a roll; a reveal is KD_VRF_PROOF_LEN + 4 */

enum { KD_DICE_PLAYER = 0, KD_DICE_HOUSE = 1 };
typedef enum { KD_DICE_IN_PROGRESS = 0, KD_DICE_FINISHED = 1, KD_DICE_HOUSE_FORFEIT = 2 } kd_dice_status;
typedef enum {
    KD_DICE_CMD_ROLL = KD_HOUSE_CMD_ASK,
    KD_DICE_CMD_REVEAL = KD_HOUSE_CMD_REVEAL,
    KD_DICE_CMD_CLAIM = KD_HOUSE_CMD_CLAIM
} kd_dice_cmd_kind;

/* One roll: asked (count, sides, modifier), then revealed (dice, total) or
 * claimed. Padding-free, zeroed beyond `count` dice. */
typedef struct {
    int32_t total;
    uint32_t index; /* 1-based roll number */
    int16_t modifier;
    uint8_t count, sides, claimed, spare;
    uint8_t dice[KD_DICE_MAX_COUNT];
    uint8_t spare2[2];
} kd_dice_roll;

/* The state: plain data, zeroed before it is filled (memcmp-comparable). */
typedef struct {
    kd_house house;
    kd_pubkey players[2]; /* player, house */
    uint8_t status;       /* kd_dice_status */
    uint8_t n_recent;
    uint8_t spare[4];
    uint32_t max_rolls;
    uint32_t rolls;                      /* rolls revealed or claimed */
    kd_dice_roll pending;                /* the asked roll while house.pending, else zero */
    kd_dice_roll recent[KD_DICE_RECENT]; /* oldest first */
} kd_dice_state;

typedef struct {
    kd_house_undo house;
    uint8_t kind; /* kd_dice_cmd_kind */
    uint8_t prev_status;
    uint8_t evicted_valid; /* the reveal or claim pushed `evicted` out of recent */
    kd_dice_roll pending;  /* the pending roll before a reveal or claim */
    kd_dice_roll evicted;
} kd_dice_undo;

/* A decoded command. */
typedef struct {
    uint8_t kind; /* kd_dice_cmd_kind */
    uint32_t count, sides;
    int32_t modifier;
    uint8_t entropy[KD_FAIR_ENTROPY_LEN];
    uint8_t digest[KD_FAIR_ASK_LEN]; /* a roll: SHA-256 of the bytes it was decoded from (the draw's input) */
    uint8_t proof[KD_VRF_PROOF_LEN];
} kd_dice_command;

/* Creation params, resolved. */
typedef struct {
    kd_house_params house;
    uint32_t max_rolls;
} kd_dice_params;

extern const kd_episode_ops kd_dice_ops;
extern const kd_episode_type kd_dice_type;
extern const kd_rule_code kd_dice_rule_codes[];

/* Whether `sides` is a die the game has (4, 6, 8, 10, 12, 20, 100). */
int kd_dice_die_ok(uint32_t sides);

/* The outcome of a draw: `count` dice of `sides` from `stream`,
 * initialised from the draw's seed: one kd_fair_below(sides) + 1 per die
 * in order, all from the one stream. */
void kd_dice_outcome(kd_fair_stream *stream, uint32_t count, uint32_t sides, uint8_t *dice);

/* Starts episode `episode_id`: two valid participants (player, house).
 * Errors: KD_ERR_BAD_PARTICIPANTS. */
kd_err kd_dice_state_init(kd_dice_state *state, const kd_participants *parts, const kd_dice_params *params,
                          uint32_t episode_id, kd_reject *rej) KD_WARN_UNUSED;

/*
 * Applies a command signed by `signer` at DAA `daa` in episode `episode_id`.
 * Refusals (KD_ERR_RULE, code in rej), in order: game_over; unauthorised
 * (unsigned or not a participant); not_the_house (a reveal not signed by
 * the house); not_the_player (a roll or claim not signed by the player);
 * draw_pending (a roll while one waits); bad_die, dice_count,
 * modifier_out_of_range; no_draw_pending; bad_proof; too_early.
 * On error nothing is touched.
 */
kd_err kd_dice_execute(kd_dice_state *state, const kd_dice_command *cmd, const kd_pubkey *signer, uint64_t daa,
                       kd_dice_undo *undo, kd_reject *rej) KD_WARN_UNUSED;
/* Inverts the command of `undo`. Errors: KD_ERR_DECODE (nothing touched). */
kd_err kd_dice_rollback(kd_dice_state *state, const kd_dice_undo *undo) KD_WARN_UNUSED;

kd_err kd_dice_state_encode(const kd_dice_state *state, kd_buf *out) KD_WARN_UNUSED;
kd_err kd_dice_state_decode(const uint8_t *data, size_t len, kd_dice_state *state) KD_WARN_UNUSED;
kd_err kd_dice_undo_encode(const kd_dice_undo *undo, kd_buf *out) KD_WARN_UNUSED;
kd_err kd_dice_undo_decode(const uint8_t *data, size_t len, kd_dice_undo *undo) KD_WARN_UNUSED;

/* dice_wire.c. Errors: KD_ERR_BAD_COMMAND / KD_ERR_BAD_PARAMS with a
 * sentence in `rej` (may be NULL), KD_ERR_NOMEM. Params decode fills the
 * defaults of absent members. */
kd_err kd_dice_command_encode(const kd_dice_command *cmd, kd_buf *out) KD_WARN_UNUSED;
kd_err kd_dice_command_decode(const uint8_t *data, size_t len, kd_dice_command *cmd, kd_reject *rej) KD_WARN_UNUSED;
kd_err kd_dice_params_encode(const kd_dice_params *params, kd_buf *out) KD_WARN_UNUSED;
kd_err kd_dice_params_decode(const uint8_t *data, size_t len, kd_dice_params *params, kd_reject *rej) KD_WARN_UNUSED;

#endif
