/*
 * blackjack.h — blackjack against the house, every card a draw of the
 * house's VRF, the "blackjack" episode type (README "Blackjack").
 *
 * Seats: seat 0 is the house (the dealer; its only commands are reveals),
 * seats 1..7 the players ("player1".."player7"), each with its own chips
 * and its own round against the dealer (one box each; the players share
 * the shoe and the house's key). Keys must be distinct.
 *
 * Rules (stated once, here and in the README): a shoe of `decks` decks;
 * European no-hole-card: the bet deals the player two cards and the dealer
 * one, the dealer's second card is drawn when the player's hands are done;
 * the dealer draws to 17 and stands on every 17, soft ones too (S17);
 * blackjack (two cards, 21, not after a split) pays 3:2 (rounded down),
 * and pushes against a dealer blackjack; a dealer blackjack beats every
 * other hand, doubled and split bets included; double on any two cards,
 * also after a split; split any two cards of one value up to 4 hands,
 * split aces take one card each; a hand reaching 21 stands by itself.
 * The shoe is refilled at a bet when under a quarter is left and no other
 * round is on (and whenever a card is needed from an empty shoe).
 *
 * Cards: every card is one draw of the house's VRF (episodes/fair.h): the
 * command that needs cards (bet, hit, double, split, stand) carries 32
 * bytes of the player's entropy and opens a pending draw; the house answers
 * each card with a reveal {proof}, the VRF proof of draw i (the episode's
 * i-th card) for that command (the SHA-256 of its bytes, so its amount and
 * action are in the input; draw input 2, before issue 37: its entropy
 * alone), and the card is the k-th of the cards left
 * in the shoe (card order 0..51), k = kd_fair_below(remaining) over the
 * stream of the VRF output.
 *
 * The order of answers is the rules', never the house's: a reveal names no
 * seat, and it answers the round that waits for a card whose asking
 * command came first (the smallest `asked`, the state's command number of
 * the ask), across all players; a round keeps its place until it waits for
 * no more cards (a deal's three, the dealer's draws). So the house cannot
 * choose who gets which card: each draw's input is fixed before it
 * answers.
 *
 * Deadlines: a round waiting for a card may claim once `timeout` DAA score
 * has passed since the latest of its ask (or its last card), the house's
 * last reveal in the episode (an honest house answering other rounds in
 * order is never late) and, with draw input 3, its ask's block +
 * reveal_depth (the house's term: it reveals an ask only once its block is
 * that deep); every hand not busted is then paid 1:1. timeout is at least
 * KD_DEADLINE_MIN.
 *
 * The game ends when no round is on and no player can bet (rounds played,
 * or chips below the minimum).
 *
 * Chips are 32-bit: the params must keep stack + 8 x rounds x max_bet (four
 * doubled hands won every round) within it.
 *
 * Wire formats:
 *   params   BjParams (proto/blackjack.proto); effective params carry every
 *            field resolved (defaults below)
 *   command  BjCommand (blackjack_wire.c)
 *   state    this type's own bytes (blackjack_codec.c), version 2
 *   undo     the state before the command, in the state's encoding (a
 *            round's bookkeeping is too varied to invert by parts; the
 *            record is checked to be the state one command back)
 *   view     BjView (blackjack_view.c)
 *
 * Threading: every function is pure and reentrant.
 */
#ifndef KD_EPISODES_BLACKJACK_H
#define KD_EPISODES_BLACKJACK_H

#include <stddef.h>
#include <stdint.h>

#include "engine/bytes.h"
#include "engine/episode.h"
#include "engine/err.h"
#include "episodes/episode_type.h"
#include "episodes/fair.h"

#define KD_BJ_TYPE_NAME "blackjack"
#define KD_BJ_VERSION 2
#define KD_BJ_HOUSE 0
#define KD_BJ_MAX_PLAYERS (KD_MAX_PARTICIPANTS - 1)
#define KD_BJ_CARDS 52
#define KD_BJ_HAND_MAX 22 /* cards one hand can hold before 21 (eight decks of aces) */
#define KD_BJ_HANDS_MAX 4
#define KD_BJ_COMMAND_MAX 96 /* a reveal: the proof, 81 bytes, framed */

/* defaults and ranges of the params */
#define KD_BJ_DECKS_DEFAULT 6u
#define KD_BJ_DECKS_MAX 8u
#define KD_BJ_TIMEOUT_DEFAULT 600u /* DAA score: a minute at 10 blocks a second */
#define KD_BJ_TIMEOUT_MAX 86400000u
#define KD_BJ_STACK_DEFAULT 1000u
#define KD_BJ_MIN_BET_DEFAULT 10u
#define KD_BJ_MAX_BET_DEFAULT 100u
#define KD_BJ_ROUNDS_DEFAULT 10u
#define KD_BJ_ROUNDS_MAX 100000u
#define KD_BJ_CHIPS_MAX 1000000000u

/* What a player's round waits for. */
typedef enum {
    KD_BJ_IDLE = 0,   /* no round on: the player may bet (the last round stays shown) */
    KD_BJ_DEAL = 1,   /* the house owes the opening cards */
    KD_BJ_PLAYER = 2, /* the player acts on the active hand */
    KD_BJ_CARD = 3,   /* the house owes a card to the active hand */
    KD_BJ_DEALER = 4, /* the house owes the dealer's cards */
} kd_bj_await;

/* A hand's result once settled. */
typedef enum {
    KD_BJ_OPEN = 0,
    KD_BJ_WIN = 1,       /* paid 1:1 */
    KD_BJ_BLACKJACK = 2, /* paid 3:2 */
    KD_BJ_PUSH = 3,      /* the bet back */
    KD_BJ_LOSE = 4,
    KD_BJ_BUST = 5,
    KD_BJ_CLAIMED = 6, /* the house missed its deadline: paid 1:1 */
} kd_bj_outcome;

/* Cards are 0..51: rank card % 13 (0 ace, 1..9 two..ten, 10 jack, 11
 * queen, 12 king), suit card / 13 (clubs, diamonds, hearts, spades). */
typedef struct {
    uint8_t cards[KD_BJ_HAND_MAX];
    uint8_t n;
    uint8_t doubled;
    uint8_t split_aces; /* one card only */
    uint8_t outcome;    /* kd_bj_outcome */
    uint32_t bet;
} kd_bj_hand;

/* A pending draw: the 32 bytes its input ends with (the SHA-256 of the
 * asking command's bytes; with draw input 2, its entropy), the command's
 * number (the order of answers), the DAA score of its block (draw input
 * 3: the house reveals once it is reveal_depth deep) and the DAA score the
 * deadline counts from (blackjack_draw.c). */
typedef struct {
    uint8_t ask[KD_FAIR_ASK_LEN];
    uint64_t asked_daa; /* the ask's block, then each card's: the deadline counts from here */
    uint64_t asked;     /* the state's seq when the asking command came */
    uint64_t ask_daa;   /* draw input 3: the ask's block (0 with draw input 2) */
} kd_bj_pending;

typedef struct {
    kd_bj_hand hands[KD_BJ_HANDS_MAX];
    kd_bj_hand dealer;
    uint8_t n_hands;
    uint8_t active;
    uint8_t await; /* kd_bj_await */
    kd_bj_pending pending;
    int64_t net; /* the round's result for the player, once settled */
} kd_bj_round;

typedef struct {
    kd_pubkey key;
    uint32_t chips;
    uint32_t rounds_played;
    kd_bj_round round;
} kd_bj_player;

/* Effective params. */
typedef struct {
    uint32_t decks, timeout, stack, min_bet, max_bet, rounds;
    uint32_t reveal_depth;                        /* the house's term (house.h): DAA score an ask is deep first */
    uint32_t draw_input;                          /* KD_FAIR_DRAW_V3, or V2 for creations before issue 37 */
    kd_pubkey house_key;                          /* the house's VRF key for the episode */
    uint8_t house_binding[KD_SECRET_BINDING_LEN]; /* what its seed is bound to */
    uint8_t spare[3];
} kd_bj_params;

/* The state: plain data, zeroed before it is filled (memcmp compares). */
typedef struct {
    kd_bj_params params;
    kd_pubkey house;
    uint8_t n_players;
    uint8_t shoe[KD_BJ_CARDS]; /* copies of each card left */
    uint16_t shoe_left;
    uint32_t episode_id;      /* the draws' input names it */
    uint32_t draws;           /* cards drawn; the next reveal is draw draws + 1 */
    uint8_t pad[4];           /* zero: no padding inside the struct */
    uint64_t last_reveal_daa; /* the DAA score of the house's last reveal (0: none yet) */
    uint64_t seq;             /* commands applied */
    int64_t house_net;        /* the house's result over all rounds */
    kd_bj_player players[KD_BJ_MAX_PLAYERS];
} kd_bj_state;

/* The undo record: the state before the command. */
typedef struct {
    kd_bj_state before;
} kd_bj_undo;

/* A decoded command. */
typedef enum {
    KD_BJ_CMD_BET = 1,
    KD_BJ_CMD_HIT = 2,
    KD_BJ_CMD_STAND = 3,
    KD_BJ_CMD_DOUBLE = 4,
    KD_BJ_CMD_SPLIT = 5,
    KD_BJ_CMD_REVEAL = 6,
    KD_BJ_CMD_CLAIM = 7,
} kd_bj_action;

typedef struct {
    kd_bj_action action;
    uint32_t amount;                      /* bet */
    uint8_t entropy[KD_FAIR_ENTROPY_LEN]; /* bet, hit, stand, double, split */
    uint8_t digest[KD_FAIR_ASK_LEN];      /* the same: SHA-256 of the bytes it was decoded from (the draws' input) */
    uint8_t proof[KD_VRF_PROOF_LEN];      /* reveal */
} kd_bj_command;

extern const kd_episode_ops kd_bj_ops;
extern const kd_episode_type kd_blackjack_type;
extern const kd_rule_code kd_bj_rule_codes[];

/* ------------------------------------------------------------ rules (blackjack.c) */

/* The point value of a card: ace 1, two..ten 2..10, faces 10. */
unsigned kd_bj_card_value(uint8_t card);
/* The best total of `n` cards (an ace counts 11 when that stays <= 21);
 * *soft (may be NULL) says an ace counts 11. */
unsigned kd_bj_total(const uint8_t *cards, size_t n, int *soft);
/* Whether round `r` holds a natural (one hand of two cards, 21, never split). */
int kd_bj_natural(const kd_bj_round *r);

/* A new game, episode `episode_id`: participants house, player1..;
 * distinct valid keys. Errors: KD_ERR_BAD_PARTICIPANTS (state zeroed). */
kd_err kd_bj_state_init(kd_bj_state *state, const kd_participants *participants, const kd_bj_params *params,
                        uint32_t episode_id, kd_reject *rej) KD_WARN_UNUSED;

/* Applies a command signed by `signer` at `meta` (daa).
 * Refusals are KD_ERR_RULE with a code of kd_bj_rule_codes; `state` is
 * then untouched. On success `undo` holds the state before. */
kd_err kd_bj_apply(kd_bj_state *state, const kd_bj_command *cmd, const kd_pubkey *signer, const kd_block_meta *meta,
                   kd_bj_undo *undo, kd_reject *rej) KD_WARN_UNUSED;
/* Restores the state before the command of `undo`. Errors: KD_ERR_DECODE
 * (not the record of the state's last command; state untouched). */
kd_err kd_bj_rollback(kd_bj_state *state, const kd_bj_undo *undo) KD_WARN_UNUSED;

/* The seat (1..) of player key `key`, 0 for the house, -1 for none. */
int kd_bj_seat_of(const kd_bj_state *state, const kd_pubkey *key);
/* Whether player `i` (0-based) may bet now. */
int kd_bj_can_bet(const kd_bj_state *state, size_t i);
/* Whether the game is over: no round on and nobody can bet. */
int kd_bj_over(const kd_bj_state *state);
/* The player (0-based) whose round the house's next reveal answers: of the
 * rounds waiting for a card, the one whose ask came first; -1 for none. */
int kd_bj_owed(const kd_bj_state *state);
/* The DAA score from which player `i`'s round, waiting for a card, may be
 * claimed (see the deadlines above). */
uint64_t kd_bj_deadline(const kd_bj_state *state, size_t i);

/* ------------------------------------------------------- draws (blackjack_draw.c) */

/* Opens a pending draw of `state` in `p` for the asking command `c` at
 * `daa` (the state's seq numbers it): its input ends with c's digest
 * (draw input 3) or c's entropy (2). */
void kd_bj_pending_ask(const kd_bj_state *state, kd_bj_pending *p, const kd_bj_command *c, uint64_t daa);
/* The DAA score from which the house reveals the draw of player `i`
 * (0-based, waiting for a card) by its own term: the ask's block +
 * reveal_depth (draw input 3; 0 with draw input 2). */
uint64_t kd_bj_due(const kd_bj_state *state, size_t i);
/* Checks `proof` as the VRF proof of the next draw (draws + 1) for the
 * ask of `p` and writes the draw's seed (the VRF output). Refusal:
 * bad_proof. */
kd_err kd_bj_draw_verify(const kd_bj_state *state, const kd_bj_pending *p, const uint8_t proof[KD_VRF_PROOF_LEN],
                         uint8_t seed[KD_HASH_LEN], kd_reject *rej) KD_WARN_UNUSED;
/* Draws one card from the shoe with the numbers of `stream` (started from
 * a draw's seed), uniform among the cards left (an empty shoe is refilled
 * first: a full shoe of the table's decks, the cards on the table
 * included), and counts the draw. */
uint8_t kd_bj_draw_card(kd_bj_state *state, kd_fair_stream *stream);
/* What a reveal does once its proof has verified: the round the house owes
 * (kd_bj_owed) takes the card of `seed` at DAA `daa`. kd_bj_apply calls it;
 * statistics over many draws (blackjack_odds_test) call it with seeds of
 * their own, which the VRF's outputs are indistinguishable from. Refusal:
 * nothing_owed. */
kd_err kd_bj_reveal_seed(kd_bj_state *state, const uint8_t seed[KD_HASH_LEN], uint64_t daa,
                         kd_reject *rej) KD_WARN_UNUSED;
/* The card a draw picks from `shoe` (left cards): the k-th in card order
 * (each card value counted shoe[c] times), k = kd_fair_below(left) of
 * `stream`, initialised from the draw's seed. */
uint8_t kd_bj_pick(kd_fair_stream *stream, const uint8_t shoe[KD_BJ_CARDS], uint32_t left);
/* A full shoe of `decks` decks. */
void kd_bj_shoe_fill(kd_bj_state *state);

/* ---------------------------------------------------- encodings (blackjack_codec.c) */

kd_err kd_bj_state_encode(const kd_bj_state *state, kd_buf *out) KD_WARN_UNUSED;
/* Decodes and checks the ranges of everything; zeroed on error. Errors: KD_ERR_DECODE. */
kd_err kd_bj_state_decode(const uint8_t *data, size_t len, kd_bj_state *state) KD_WARN_UNUSED;

/* ------------------------------------------------------- wire (blackjack_wire.c) */

/* BjCommand bytes of `cmd`, appended. Errors: KD_ERR_NOMEM. */
kd_err kd_bj_command_encode(const kd_bj_command *cmd, kd_buf *out) KD_WARN_UNUSED;
/* Errors: KD_ERR_BAD_COMMAND (with a sentence in rej), KD_ERR_NOMEM. */
kd_err kd_bj_command_decode(const uint8_t *data, size_t len, kd_bj_command *cmd, kd_reject *rej) KD_WARN_UNUSED;
/* BjParams: decode with defaults filled and ranges checked (house_key and
 * house_binding required, timeout at least KD_DEADLINE_MIN), and encode
 * (every field). Errors: KD_ERR_BAD_PARAMS, KD_ERR_NOMEM. */
kd_err kd_bj_params_decode(const uint8_t *data, size_t len, kd_bj_params *params, kd_reject *rej) KD_WARN_UNUSED;
kd_err kd_bj_params_encode(const kd_bj_params *params, kd_buf *out) KD_WARN_UNUSED;

/* ------------------------------------------------------- bot (blackjack_bot.c) */

/* Basic strategy for these rules (S17, no hole card, double after split,
 * no surrender) for the hand `cards` against the dealer's `up` card:
 * KD_BJ_CMD_HIT, STAND, DOUBLE or SPLIT, with double and split only when
 * `can_double` / `can_split`. */
kd_bj_action kd_bj_basic_strategy(const uint8_t *cards, size_t n, uint8_t up, int can_double, int can_split);
/* The type's bot_command: the minimum bet, then basic strategy, for the
 * seat to move (a player). Errors: KD_ERR_NO_MOVE, KD_ERR_NOMEM. */
kd_err kd_bj_bot_command(const void *state, unsigned depth, uint64_t tiebreak, kd_buf *out) KD_WARN_UNUSED;
/* The entropy the listed moves of `seat` carry: SHA-256 of the state's
 * command count, the seat and the action (anyone may replace it). */
void kd_bj_listed_entropy(const kd_bj_state *state, int seat, kd_bj_action action, uint8_t out[KD_FAIR_ENTROPY_LEN]);

/* ------------------------------------------------ table entry (blackjack_type.c) */

/* "", "bet", "hit", "stand", "double", "split", "reveal", "claim" (by kd_bj_action). */
extern const char *const kd_bj_action_names[];
/* The rules for people and prompts. */
extern const char kd_bj_rules_text[];
/* The type's legal_moves: a player's bets (the minimum, its doubles, the
 * most the chips and table allow) or its actions, each with the listed
 * entropy; none for the house. Errors: KD_ERR_NOMEM. */
kd_err kd_bj_legal_moves(const void *state, int seat, kd_legal_moves *out) KD_WARN_UNUSED;

/* ---------------------------------------------------- view (blackjack_view.c) */

/* The type table's view functions (episode_type.h); the view is public
 * (nothing of the state is secret: the house's seed never enters it). */
kd_err kd_bj_view_encode(const void *state, int seat, kd_buf *out) KD_WARN_UNUSED;
json_t *kd_bj_view_json(const uint8_t *view, size_t len);
json_t *kd_bj_strategy_context(const uint8_t *view, size_t len);
kd_err kd_bj_render_text(const uint8_t *view, size_t len, unsigned flags, kd_buf *out) KD_WARN_UNUSED;
kd_err kd_bj_prompt(const uint8_t *view, size_t len, uint32_t episode_id, int seat, kd_buf *out) KD_WARN_UNUSED;
/* The state a view carries (keys left zero). Errors: KD_ERR_DECODE. */
kd_err kd_bj_view_state(const uint8_t *view, size_t len, kd_bj_state *state) KD_WARN_UNUSED;
/* A card as text: "AS", "10H", "KD". out: 4 bytes. */
void kd_bj_card_text(uint8_t card, char out[4]);

#endif
