/*
 * slots.h — a three-reel slot machine answered by the house's VRF, the
 * "slots" episode type.
 *
 * Seats "player" (seat 0) and "house" (seat 1). The player spins with a bet
 * (1..1000 credits, taken at once) and 32 bytes of entropy; the house's
 * reveal picks the three stops (kd_fair_below(20) of the draw's stream, reel
 * 1, 2, 3 in order) and the payline (the symbols at the stops) pays bet x
 * the paytable's multiplier. The reel strip and the paytable are published
 * constants (kd_slots_strip, kd_slots_paytable), so the return to player is
 * exact: kd_slots_rtp enumerates all 20^3 stop combinations (1543/1600 =
 * 96.4375%), and `kdapp show` prints it. A house that does not reveal
 * within the deadline forfeits: the claim pays the bet x the top
 * multiplier and ends the episode, won by the player. Otherwise it ends
 * when the credits are gone (won by the house) or after max_rounds spins
 * (won by whoever is ahead of start_credits).
 *
 * Threading: pure and reentrant.
 */
#ifndef KD_EPISODES_SLOTS_H
#define KD_EPISODES_SLOTS_H

#include <stddef.h>
#include <stdint.h>

#include "engine/bytes.h"
#include "engine/episode.h"
#include "episodes/episode_type.h"
#include "episodes/house.h"

#define KD_SLOTS_TYPE_NAME "slots"
#define KD_SLOTS_VERSION 2
#define KD_SLOTS_REELS 3
#define KD_SLOTS_STOPS 20
#define KD_SLOTS_BET_MAX 1000u
#define KD_SLOTS_CREDITS_MAX 1000000u
#define KD_SLOTS_CREDITS_DEFAULT 1000u
#define KD_SLOTS_ROUNDS_DEFAULT 100u
#define KD_SLOTS_ROUNDS_MAX 10000u
#define KD_SLOTS_TABLE_LEN (7 * 4 + 1 + KD_SLOTS_REELS)
#define KD_SLOTS_STATE_LEN (KD_HOUSE_HEAD_LEN + KD_SLOTS_TABLE_LEN) /* draw input 2 */
#define KD_SLOTS_STATE_MAX (KD_HOUSE_HEAD_MAX + KD_SLOTS_TABLE_LEN) /* draw input 3 */
#define KD_SLOTS_UNDO_LEN (1 + KD_HOUSE_UNDO_LEN + 1 + KD_SLOTS_TABLE_LEN)

enum { KD_SLOTS_PLAYER = 0, KD_SLOTS_HOUSE = 1 };
typedef enum {
    KD_SYM_CHERRY = 0,
    KD_SYM_LEMON,
    KD_SYM_ORANGE,
    KD_SYM_PLUM,
    KD_SYM_BELL,
    KD_SYM_BAR,
    KD_SYM_SEVEN,
    KD_SYM_COUNT
} kd_slots_symbol;
typedef enum { KD_SLOTS_IN_PROGRESS = 0, KD_SLOTS_FINISHED, KD_SLOTS_BROKE, KD_SLOTS_HOUSE_FORFEIT } kd_slots_status;
typedef enum {
    KD_SLOTS_CMD_SPIN = KD_HOUSE_CMD_ASK,
    KD_SLOTS_CMD_REVEAL = KD_HOUSE_CMD_REVEAL,
    KD_SLOTS_CMD_CLAIM = KD_HOUSE_CMD_CLAIM
} kd_slots_cmd_kind;

/* One line of the paytable: three symbols (KD_SYM_COUNT: any symbol but
 * the ones the lines above it name; see kd_slots_line) and the multiplier. */
typedef struct {
    uint8_t sym[KD_SLOTS_REELS];
    uint32_t multiplier;
    const char *text;
} kd_slots_pay;

/* The reel strip (every reel the same), its symbol names, the paytable
 * (the first line that matches pays; KD_SLOTS_PAYS lines). */
extern const uint8_t kd_slots_strip[KD_SLOTS_STOPS];
extern const char *const kd_slots_symbol_names[KD_SYM_COUNT];
#define KD_SLOTS_PAYS 9
extern const kd_slots_pay kd_slots_paytable[KD_SLOTS_PAYS];

/* The paytable line the stops pay (0..KD_SLOTS_PAYS-1), -1 for none. */
int kd_slots_line(const uint8_t stops[KD_SLOTS_REELS]);
/* The multiplier the stops pay (0 for none). */
uint32_t kd_slots_multiplier(const uint8_t stops[KD_SLOTS_REELS]);
/* The exact return to player: sum of the multipliers over every stop
 * combination / 20^3, reduced. */
void kd_slots_rtp(uint64_t *numerator, uint64_t *denominator);
/* The stops of a draw: kd_fair_below(20) per reel, in order, all from
 * `stream`, initialised from the draw's seed. */
void kd_slots_outcome(kd_fair_stream *stream, uint8_t stops[KD_SLOTS_REELS]);

typedef struct {
    uint32_t credits, start_credits, rounds, max_rounds, last_win, last_bet, bet; /* bet: pending, 0 none */
    uint8_t status;
    uint8_t stops[KD_SLOTS_REELS]; /* the last spin's stops + 1, 0 before any */
} kd_slots_table;

typedef struct {
    kd_house house;
    kd_pubkey players[2];
    uint8_t spare[6];
    kd_slots_table table;
} kd_slots_state;

typedef struct {
    kd_house_undo house;
    uint8_t kind;
    kd_slots_table prev;
} kd_slots_undo;

typedef struct {
    uint8_t kind;
    uint32_t bet;
    uint8_t entropy[KD_FAIR_ENTROPY_LEN];
    uint8_t digest[KD_FAIR_ASK_LEN]; /* an ask: SHA-256 of the bytes it was decoded from (the draw's input) */
    uint8_t proof[KD_VRF_PROOF_LEN];
} kd_slots_command;

typedef struct {
    kd_house_params house;
    uint32_t start_credits, max_rounds;
} kd_slots_params;

extern const kd_episode_ops kd_slots_ops;
extern const kd_episode_type kd_slots_type;
extern const kd_rule_code kd_slots_rule_codes[];

/* Refusals (KD_ERR_RULE), in order: game_over; unauthorised; not_the_house;
 * not_the_player; draw_pending; bad_bet (0 or over 1000);
 * insufficient_credits; no_draw_pending; bad_proof; not_the_asker;
 * too_early. */
kd_err kd_slots_execute(kd_slots_state *state, const kd_slots_command *cmd, const kd_pubkey *signer, uint64_t daa,
                        kd_slots_undo *undo, kd_reject *rej) KD_WARN_UNUSED;
kd_err kd_slots_rollback(kd_slots_state *state, const kd_slots_undo *undo) KD_WARN_UNUSED;
/* The state's and an undo's bytes (see slots.c). */
kd_err kd_slots_state_encode(const kd_slots_state *state, kd_buf *out) KD_WARN_UNUSED;
kd_err kd_slots_state_decode(const uint8_t *data, size_t len, kd_slots_state *state) KD_WARN_UNUSED;
kd_err kd_slots_undo_encode(const kd_slots_undo *undo, kd_buf *out) KD_WARN_UNUSED;
kd_err kd_slots_undo_decode(const uint8_t *data, size_t len, kd_slots_undo *undo) KD_WARN_UNUSED;

kd_err kd_slots_command_encode(const kd_slots_command *cmd, kd_buf *out) KD_WARN_UNUSED;
kd_err kd_slots_command_decode(const uint8_t *data, size_t len, kd_slots_command *cmd, kd_reject *rej) KD_WARN_UNUSED;
kd_err kd_slots_params_encode(const kd_slots_params *params, kd_buf *out) KD_WARN_UNUSED;
kd_err kd_slots_params_decode(const uint8_t *data, size_t len, kd_slots_params *params, kd_reject *rej) KD_WARN_UNUSED;

#endif
