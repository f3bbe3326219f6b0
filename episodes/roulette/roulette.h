/*
 * roulette.h — American roulette answered by the house's VRF, the "roulette"
 * episode type.
 *
 * 38 pockets: 0, 00 (pocket 37 here) and 1..36. Seats "player" (seat 0)
 * and "house" (seat 1). The player has chips (params start_chips) and puts
 * up to 16 bets on the table in one command with 32 bytes of entropy; the
 * stakes leave the chips at once and a draw is asked (episodes/house.h).
 * The house's reveal picks the pocket, kd_fair_below(38) of the draw's
 * stream, and each winning bet pays its stake times (payout + 1):
 *
 *   kind      covers                                  payout
 *   straight  one pocket (0, 00, 1..36)               35:1
 *   split     two adjacent numbers (n, n+1 in a row;  17:1
 *             n, n+3), or 0-00
 *   street    a row of three, by its first number      11:1
 *   corner    four, by the lowest (n, n+1, n+3, n+4)    8:1
 *   six_line  two rows, by the first number            5:1
 *   top_line  0, 00, 1, 2, 3                            6:1
 *   red, black, odd, even, low (1-18), high (19-36)     1:1
 *   dozen     1-12, 13-24, 25-36 (number 1..3)         2:1
 *   column    1,4..34 / 2,5..35 / 3,6..36 (1..3)       2:1
 *
 * 0 and 00 lose every outside bet. A house that does not reveal within the
 * deadline forfeits: the player's claim gives back the stakes and pays
 * every bet as if it had won, and ends the episode, won by the player.
 * Otherwise it ends when the chips are gone (won by the house) or after
 * max_rounds spins: won by whoever is ahead of start_chips, a draw when
 * even.
 *
 * Threading: pure and reentrant; a state is used by one thread at a time.
 */
#ifndef KD_EPISODES_ROULETTE_H
#define KD_EPISODES_ROULETTE_H

#include <stddef.h>
#include <stdint.h>

#include "engine/bytes.h"
#include "engine/episode.h"
#include "episodes/episode_type.h"
#include "episodes/house.h"

#define KD_ROULETTE_TYPE_NAME "roulette"
#define KD_ROULETTE_VERSION 2
#define KD_ROULETTE_POCKETS 38
#define KD_ROULETTE_DOUBLE_ZERO 37
#define KD_ROULETTE_MAX_BETS 16
#define KD_ROULETTE_RECENT 10
#define KD_ROULETTE_CHIPS_MAX 1000000u
#define KD_ROULETTE_CHIPS_DEFAULT 1000u
#define KD_ROULETTE_ROUNDS_DEFAULT 100u
#define KD_ROULETTE_ROUNDS_MAX 10000u
#define KD_ROULETTE_BET_LEN 7 /* kind, number, number2, amount u32 */
#define KD_ROULETTE_TABLE_LEN (4 * 6 + 4 + KD_ROULETTE_MAX_BETS * KD_ROULETTE_BET_LEN + KD_ROULETTE_RECENT)
#define KD_ROULETTE_STATE_LEN (KD_HOUSE_HEAD_LEN + KD_ROULETTE_TABLE_LEN) /* draw input 2 */
#define KD_ROULETTE_STATE_MAX (KD_HOUSE_HEAD_MAX + KD_ROULETTE_TABLE_LEN) /* draw input 3 */
#define KD_ROULETTE_UNDO_LEN (1 + KD_HOUSE_UNDO_LEN + 1 + KD_ROULETTE_TABLE_LEN)

enum { KD_ROULETTE_PLAYER = 0, KD_ROULETTE_HOUSE = 1 };
typedef enum {
    KD_RBET_STRAIGHT = 1,
    KD_RBET_SPLIT,
    KD_RBET_STREET,
    KD_RBET_CORNER,
    KD_RBET_SIX_LINE,
    KD_RBET_TOP_LINE,
    KD_RBET_RED,
    KD_RBET_BLACK,
    KD_RBET_ODD,
    KD_RBET_EVEN,
    KD_RBET_LOW,
    KD_RBET_HIGH,
    KD_RBET_DOZEN,
    KD_RBET_COLUMN,
    KD_RBET_KINDS = KD_RBET_COLUMN
} kd_roulette_bet_kind;
typedef enum {
    KD_ROULETTE_IN_PROGRESS = 0,
    KD_ROULETTE_FINISHED,
    KD_ROULETTE_BROKE,
    KD_ROULETTE_HOUSE_FORFEIT
} kd_roulette_status;
typedef enum {
    KD_ROULETTE_CMD_BETS = KD_HOUSE_CMD_ASK,
    KD_ROULETTE_CMD_REVEAL = KD_HOUSE_CMD_REVEAL,
    KD_ROULETTE_CMD_CLAIM = KD_HOUSE_CMD_CLAIM
} kd_roulette_cmd_kind;

typedef struct {
    uint32_t amount;
    uint8_t kind, number, number2, spare;
} kd_roulette_bet;

/* Everything but the house and the players: what an undo gives back whole. */
typedef struct {
    uint32_t chips, start_chips, rounds, max_rounds, last_win;
    uint32_t last_stake;
    uint8_t status;
    uint8_t last_pocket; /* pocket + 1, 0 before any spin */
    uint8_t n_bets;      /* bets on the table (while a spin waits) */
    uint8_t n_recent;
    kd_roulette_bet bets[KD_ROULETTE_MAX_BETS];
    uint8_t recent[KD_ROULETTE_RECENT]; /* oldest first */
    uint8_t spare[2];
} kd_roulette_table;

typedef struct {
    kd_house house;
    kd_pubkey players[2];
    uint8_t spare[6]; /* zero: no padding inside the struct */
    kd_roulette_table table;
} kd_roulette_state;

typedef struct {
    kd_house_undo house;
    uint8_t kind;
    kd_roulette_table prev;
} kd_roulette_undo;

typedef struct {
    uint8_t kind; /* kd_roulette_cmd_kind */
    uint32_t n_bets;
    struct {
        uint32_t kind, number, number2, amount;
    } bets[KD_ROULETTE_MAX_BETS + 1]; /* one more than allowed, so too_many_bets reaches the rules */
    uint8_t entropy[KD_FAIR_ENTROPY_LEN];
    uint8_t digest[KD_FAIR_ASK_LEN]; /* an ask: SHA-256 of the bytes it was decoded from (the draw's input) */
    uint8_t proof[KD_VRF_PROOF_LEN];
} kd_roulette_command;

typedef struct {
    kd_house_params house;
    uint32_t start_chips, max_rounds;
} kd_roulette_params;

extern const kd_episode_ops kd_roulette_ops;
extern const kd_episode_type kd_roulette_type;
extern const kd_rule_code kd_roulette_rule_codes[];

/* The bet kind's name ("straight") / the kind of a name, 0 when unknown. */
const char *kd_roulette_bet_name(unsigned kind);
unsigned kd_roulette_bet_kind_of(const char *name);
/* Whether a bet's numbers are valid for its kind (amount aside). */
int kd_roulette_bet_valid(unsigned kind, unsigned number, unsigned number2);
/* Whether the bet covers `pocket` (0..37). */
int kd_roulette_bet_covers(unsigned kind, unsigned number, unsigned number2, unsigned pocket);
/* The payout of a kind (35 for straight ...), 0 when unknown. */
unsigned kd_roulette_payout(unsigned kind);
/* Whether pocket 1..36 is red. */
int kd_roulette_red(unsigned pocket);
/* The pocket of a draw: kd_fair_below(38) of `stream`, initialised from
 * the draw's seed (37 is 00). */
unsigned kd_roulette_outcome(kd_fair_stream *stream);

/* Starts episode `episode_id`. Errors: KD_ERR_BAD_PARTICIPANTS. */
kd_err kd_roulette_state_init(kd_roulette_state *state, const kd_participants *parts, const kd_roulette_params *params,
                              uint32_t episode_id, kd_reject *rej) KD_WARN_UNUSED;
/*
 * Refusals (KD_ERR_RULE), in order: game_over; unauthorised; not_the_house
 * (a reveal not by the house); not_the_player (bets or a claim not by the
 * player); draw_pending; no_bets, too_many_bets, unknown_bet, bad_bet_number,
 * bad_amount, insufficient_chips; no_draw_pending; bad_proof; not_the_asker;
 * too_early.
 */
kd_err kd_roulette_execute(kd_roulette_state *state, const kd_roulette_command *cmd, const kd_pubkey *signer,
                           uint64_t daa, kd_roulette_undo *undo, kd_reject *rej) KD_WARN_UNUSED;
kd_err kd_roulette_rollback(kd_roulette_state *state, const kd_roulette_undo *undo) KD_WARN_UNUSED;
kd_err kd_roulette_state_encode(const kd_roulette_state *state, kd_buf *out) KD_WARN_UNUSED;
kd_err kd_roulette_state_decode(const uint8_t *data, size_t len, kd_roulette_state *state) KD_WARN_UNUSED;
kd_err kd_roulette_undo_encode(const kd_roulette_undo *undo, kd_buf *out) KD_WARN_UNUSED;
kd_err kd_roulette_undo_decode(const uint8_t *data, size_t len, kd_roulette_undo *undo) KD_WARN_UNUSED;

/* roulette_wire.c */
kd_err kd_roulette_command_encode(const kd_roulette_command *cmd, kd_buf *out) KD_WARN_UNUSED;
kd_err kd_roulette_command_decode(const uint8_t *data, size_t len, kd_roulette_command *cmd,
                                  kd_reject *rej) KD_WARN_UNUSED;
kd_err kd_roulette_params_encode(const kd_roulette_params *params, kd_buf *out) KD_WARN_UNUSED;
kd_err kd_roulette_params_decode(const uint8_t *data, size_t len, kd_roulette_params *params,
                                 kd_reject *rej) KD_WARN_UNUSED;

#endif
