/*
 * holdem.h — heads-up no-limit hold'em dealt by the players, the "holdem"
 * episode type: no dealer, no trusted party; the two seats shuffle and deal
 * between themselves (holdem_deck.h) and every hand is checked from the log.
 *
 * The match: two seats with `stack` chips each, blinds `small_blind` /
 * `big_blind`, optionally `hand_limit` hands. Seat 0 has the button in
 * hand 1; it alternates. Heads-up order: the button posts the small blind,
 * acts first before the flop and last after it. A seat that cannot cover a
 * blind posts what it has, all in. The match ends when a seat has no chips
 * (the other wins) or after `hand_limit` hands (the bigger stack wins,
 * equal stacks draw), or when a cheater loses it (below).
 *
 * The deck protocol is fixed at creation (params `protocol`): 2, each step
 * proved as it arrives and no hand secret ever published; 1, kept for the
 * matches created before protocol 2 (a hand secret published at the end of
 * each hand and every step recomputed from it), so a store's log replays
 * exactly.
 *
 * A hand, phase by phase (who owes what is in the view's `owes`):
 *   shuffle   seat 0, then seat 1, re-encrypts and permutes the deck; in
 *             protocol 2 with the seat's deck key for the hand (x·G) and a
 *             proof of shuffle, checked on arrival (bad_shuffle_proof)
 *   lock      seat 0, then seat 1, replaces its deck key on positions 0..8
 *             with a key per position and commits to each (k·G); in
 *             protocol 2 with a Chaum–Pedersen proof per position against
 *             its deck key (bad_lock_proof)
 *   play      positions 0, 1 are seat 0's hole cards, 2, 3 seat 1's, 4..8
 *             the board (no burn cards: the encrypted deck has nothing to
 *             burn). Each seat opens the other's hole positions (its keys
 *             for them, each checked against its commitment: wrong_key);
 *             the owner strips its own in private. Betting waits until the
 *             cards of the street are dealt; the flop (4, 5, 6), turn (7)
 *             and river (8) are opened by both seats' keys and decrypted by
 *             the rules.
 *   showdown  protocol 2: the last seat to bet or raise on the river shows
 *             first (opens its own hole positions), else the first to act
 *             on it (the seat without the button); then the other shows
 *             or mucks ({"muck": true}: it gives up the pot unseen). When
 *             a seat is all in, both must show (must_show). A fold ends the
 *             hand at once: a folded hand shows nothing.
 *             Protocol 1: both seats open their hole positions, then the
 *   check     both publish their hand secret; the rules recompute every
 *             step each seat made from it and compare byte for byte. A seat
 *             whose data differs cheated. Only then do chips move.
 * Every step has a deadline: `timeout` DAA score after the wait began.
 * A seat late to bet is folded by the other's claim; a seat late with a
 * shuffle, lock, key, show or secret loses as a cheater.
 *
 * A cheater (protocol 2: a step withheld past its deadline; protocol 1
 * also data that fails the check, a dispute when no one cheated) loses the
 * pot: the other seat takes all both put in the hand; and the match too
 * unless `pot_only`. Both cheating: the hand is void (each takes back its
 * own) and, unless `pot_only`, the match is drawn. A deck or lock that is
 * malformed (not points, a point twice), whose proof fails, or a key that
 * does not match its commitment is refused outright (bad_deck,
 * duplicate_point, bad_lock, bad_shuffle_proof, bad_lock_proof, wrong_key):
 * the seat may still send the right one before its deadline.
 *
 * Betting (TDA rules): fold, check, call, and "raise to" a total for the
 * round (a bet when nothing is bet). A bet or raise adds at least the
 * previous bet or raise of the round (the big blind when none), or is all
 * in. An all-in short of a full raise does not reopen the betting to a seat
 * that has acted since the last full raise; no one raises a seat that is
 * all in. An uncalled bet goes back to its maker. A split pot's odd chip
 * goes to the first seat left of the button: heads-up, the big blind.
 *
 * Wire formats:
 *   params   HmParams (proto/holdem.proto); effective params have every
 *            default resolved
 *   command  HmCommand (holdem_wire.c)
 *   state    KD_HM_STATE_LEN_1 or _2 bytes (holdem_codec.c), by protocol
 *   undo     version, the state before, the SHA-256 of the state after
 *   view     HmView (holdem_view.c)
 *
 * Threading: every function is pure and reentrant.
 */
#ifndef KD_EPISODES_HOLDEM_H
#define KD_EPISODES_HOLDEM_H

#include <stddef.h>
#include <stdint.h>

#include "engine/bytes.h"
#include "engine/crypto.h"
#include "engine/episode.h"
#include "engine/err.h"
#include "episodes/episode_type.h"
#include "episodes/holdem/holdem_deck.h"
#include "episodes/holdem/holdem_eval.h"
#include "episodes/holdem/holdem_proof.h"

#define KD_HM_TYPE_NAME "holdem"
#define KD_HM_VERSION 1   /* the state and undo encoding of protocol 1 */
#define KD_HM_VERSION_2 2 /* of protocol 2 */
#define KD_HM_PROTOCOL 2  /* the deck protocol of a new match */
#define KD_HM_NO_SEAT 255
#define KD_HM_DEFAULT_STACK 1000u
#define KD_HM_DEFAULT_SB 5u
#define KD_HM_DEFAULT_BB 10u
#define KD_HM_DEFAULT_TIMEOUT 600u
#define KD_HM_TIMEOUT_MAX 100000000u
#define KD_HM_STACK_MAX 1000000000u /* two stacks fit in 31 bits */
#define KD_HM_HAND_LIMIT_MAX 1000000u
#define KD_HM_BOARD 5
#define KD_HM_SHUFFLE_LEN (KD_HM_CARDS * KD_HM_POINT_LEN)
#define KD_HM_LOCK_LEN (KD_HM_DEALT * KD_HM_POINT_LEN)

typedef enum { KD_HM_SHUFFLE = 0, KD_HM_LOCK = 1, KD_HM_PLAY = 2, KD_HM_CHECK = 3, KD_HM_OVER = 4 } kd_hm_phase;
enum { KD_HM_PREFLOP = 0, KD_HM_FLOP = 1, KD_HM_TURN = 2, KD_HM_RIVER = 3, KD_HM_SHOWDOWN = 4 };
/* What a seat owes now (the view's owes[s], bits). */
enum {
    KD_HM_OWE_SHUFFLE = 1,
    KD_HM_OWE_LOCK = 2,
    KD_HM_OWE_KEYS = 4,
    KD_HM_OWE_BET = 8,
    KD_HM_OWE_SECRET = 16, /* protocol 1 */
    KD_HM_OWE_SHOW = 32,   /* protocol 2: show (its own hole keys) or muck */
};
/* How the last settled hand ended. */
typedef enum {
    KD_HM_RESULT_NONE = 0,
    KD_HM_RESULT_FOLD = 1,     /* a seat folded (or was folded by a claim) */
    KD_HM_RESULT_SHOWDOWN = 2, /* the better hand took the pot */
    KD_HM_RESULT_SPLIT = 3,    /* equal hands split it */
    KD_HM_RESULT_CHEAT = 4,    /* a seat's data failed or came late: the other took the pot */
    KD_HM_RESULT_VOID = 5,     /* both cheated: each took back its own */
    KD_HM_RESULT_MUCK = 6,     /* protocol 2: a seat mucked at the showdown; the other took the pot */
} kd_hm_result;
/* Why the match ended. */
typedef enum {
    KD_HM_END_NONE = 0,
    KD_HM_END_BUST = 1,  /* a seat has no chips */
    KD_HM_END_LIMIT = 2, /* the hand limit */
    KD_HM_END_CHEAT = 3, /* a cheater lost the match */
} kd_hm_end;

/*
 * Creation params (resolved: every default filled in). The terms both
 * seats play under, and apart from them each seat's own part: its binding
 * (what its keys for the match derive under, set by its key's holder). A
 * seat commits to nothing else at creation: in protocol 2 its deck key for
 * each hand comes with its shuffle, proved there.
 */
typedef struct {
    uint8_t bindings[2][KD_SECRET_BINDING_LEN]; /* per seat */
    uint32_t stack, small_blind, big_blind, hand_limit;
    uint64_t timeout;
    uint8_t pot_only;
    uint32_t protocol; /* 1 or 2 (KD_HM_PROTOCOL) */
} kd_hm_params;

/*
 * The public state: the match, the hand's betting and every public step of
 * its deck. Plain data, zeroed before it is filled (memcmp compares states).
 */
typedef struct {
    kd_pubkey players[2];
    kd_hm_params params;
    uint64_t since; /* the DAA score the current wait began at */
    uint32_t hand;  /* from 1 */
    uint32_t move_count;
    uint32_t stacks[2]; /* behind */
    uint32_t bets[2];   /* this betting round */
    uint32_t put[2];    /* this hand, bets included */
    uint32_t min_raise; /* what a bet or raise must add at least */
    int32_t last_won[2];
    uint8_t phase; /* kd_hm_phase */
    uint8_t step;  /* shuffle, lock: the seat making it */
    uint8_t street;
    uint8_t button;
    uint8_t to_act;                      /* the seat to bet, KD_HM_NO_SEAT */
    uint8_t acted[2];                    /* acted since the last full bet or raise of the round */
    uint8_t folded;                      /* KD_HM_NO_SEAT */
    uint8_t disputer;                    /* KD_HM_NO_SEAT */
    uint8_t winner;                      /* the match's, KD_HM_NO_SEAT (a draw when over) */
    uint8_t end;                         /* kd_hm_end */
    uint8_t result;                      /* kd_hm_result of the last settled hand */
    uint8_t cheats;                      /* the last check: bit s, seat s cheated */
    uint8_t revealed;                    /* bit s: seat s published its hand secret */
    uint16_t opened[2];                  /* bit i: seat s published its key for position i */
    uint8_t board[KD_HM_BOARD];          /* KD_HM_NO_CARD until opened */
    uint8_t shown[2][2];                 /* hole cards opened at the showdown */
    uint32_t values[2];                  /* showdown values */
    kd_hm_point deck[2][KD_HM_CARDS];    /* after seat 0's shuffle, after seat 1's */
    kd_hm_point locked[2][KD_HM_DEALT];  /* after seat 0's lock, after seat 1's */
    kd_hm_point commits[2][KD_HM_DEALT]; /* each seat's k_i·G */
    kd_hm_scalar keys[2][KD_HM_DEALT];   /* the keys published */
    uint8_t secrets[2][KD_HASH_LEN];     /* protocol 1: the hand secrets published */
    /* protocol 2 only (zero in protocol 1, whose encoding lacks them) */
    uint32_t episode;                /* the episode id, which every proof is bound to */
    kd_hm_point xkeys[2];            /* each seat's deck key for the hand, x·G, from its shuffle */
    uint8_t aggressor;               /* the last seat to bet or raise this round, KD_HM_NO_SEAT */
    uint8_t first_show;              /* at the showdown: who shows first, KD_HM_NO_SEAT: both (all in) */
    uint8_t last_board[KD_HM_BOARD]; /* the last settled hand: its board, */
    uint8_t last_shown[2][2];        /* the hole cards shown (KD_HM_NO_CARD: not shown), */
    uint32_t last_values[2];         /* and their values */
} kd_hm_state;

typedef struct {
    kd_hm_state before;
    uint8_t after_hash[KD_HASH_LEN];
} kd_hm_undo;

typedef enum {
    KD_HM_CMD_SHUFFLE = 1,
    KD_HM_CMD_LOCK,
    KD_HM_CMD_KEYS,
    KD_HM_CMD_FOLD,
    KD_HM_CMD_CHECK,
    KD_HM_CMD_CALL,
    KD_HM_CMD_RAISE,
    KD_HM_CMD_REVEAL,
    KD_HM_CMD_DISPUTE,
    KD_HM_CMD_CLAIM,
    KD_HM_CMD_MUCK,
} kd_hm_kind;

/* A decoded command. */
typedef struct {
    kd_hm_kind kind;
    uint32_t to;                            /* raise */
    uint32_t n_keys;                        /* keys */
    uint8_t positions[KD_HM_DEALT];         /* keys */
    kd_hm_scalar keys[KD_HM_DEALT];         /* keys */
    kd_hm_point deck[KD_HM_CARDS];          /* shuffle */
    kd_hm_point cards[KD_HM_DEALT];         /* lock */
    kd_hm_point commits[KD_HM_DEALT];       /* lock */
    uint8_t secret[KD_HASH_LEN];            /* reveal */
    int proved;                             /* shuffle, lock: key and proof(s) present (protocol 2) */
    kd_hm_point key;                        /* shuffle: the seat's deck key x·G */
    uint8_t proof[KD_HM_SHUFFLE_PROOF_LEN]; /* shuffle */
    uint8_t proofs[KD_HM_LOCK_PROOF_LEN];   /* lock */
} kd_hm_command;

extern const kd_episode_ops kd_hm_ops;
extern const kd_episode_type kd_holdem_type;
extern const kd_rule_code kd_hm_rule_codes[];
extern const char *const kd_hm_seat_names[2];

/* ------------------------------------------------------- rules (holdem.c) */

/* Starts a match. Errors: KD_ERR_BAD_PARTICIPANTS, KD_ERR_BAD_PARAMS. */
kd_err kd_hm_state_init(kd_hm_state *state, const kd_participants *participants, const kd_hm_params *params,
                        kd_reject *rej) KD_WARN_UNUSED;
/* Applies a command signed by `signer` in the block `meta` describes (may
 * be NULL: DAA score 0; its precheck: the verdict on the step's proof,
 * found ahead by the engine; NULL: checked here). Refusals (KD_ERR_RULE,
 * code in rej): see kd_hm_rule_codes. On error `state` is untouched. */
kd_err kd_hm_apply(kd_hm_state *state, const kd_hm_command *cmd, const kd_pubkey *signer, const kd_block_meta *meta,
                   kd_hm_undo *undo, kd_reject *rej) KD_WARN_UNUSED;
/* Inverts the command that produced `undo`. Errors: KD_ERR_DECODE. */
/* kd_episode_ops.join_params: a stranger's part of the params at open
 * seat `seat` holds its binding_<seat> (32 bytes each) and nothing else. */
kd_err kd_hm_join_params(int seat, const uint8_t *params, size_t len, kd_reject *rej) KD_WARN_UNUSED;
kd_err kd_hm_rollback(kd_hm_state *state, const kd_hm_undo *undo) KD_WARN_UNUSED;
/* kd_hm_owe bits of `seat` now. */
unsigned kd_hm_owes(const kd_hm_state *state, int seat);
/* The positions whose keys `seat` owes now (bit i: position i). */
unsigned kd_hm_keys_owed(const kd_hm_state *state, int seat);
/* The seat that must act now: the first that owes a step (both owe keys
 * at once for the board: seat 0 is named, the view's owes say both),
 * KD_SEAT_NONE when none does (the match is over). */
int kd_hm_to_move(const kd_hm_state *state);
/* The pot (what both put in this hand). */
uint32_t kd_hm_pot(const kd_hm_state *state);

/* The betting limits of the seat to act: call (what calling pays), the
 * smallest and largest raise-to totals (min_to > max_to: no raise). */
typedef struct {
    uint32_t call;
    uint32_t min_to, max_to;
    int can_check;
} kd_hm_limits;
void kd_hm_limits_of(const kd_hm_state *state, int seat, kd_hm_limits *out);

/* What a proof by `seat` in the state's hand is bound to (holdem_proof.h). */
void kd_hm_bind_of(const kd_hm_state *state, int seat, kd_hm_bind *out);
/* The costly check of a deck step in protocol 2: the proof of `seat`'s
 * shuffle or lock against the state (its input deck, its deck key). KD_OK
 * when it holds or the command carries nothing to prove (another command,
 * protocol 1); KD_ERR_RULE with bad_shuffle_proof or bad_lock_proof; or
 * KD_ERR_NOMEM. Pure: kd_hm_apply runs it after the step's cheap checks. */
kd_err kd_hm_proof_check(const kd_hm_state *state, int seat, const kd_hm_command *cmd, kd_reject *rej) KD_WARN_UNUSED;

/* -------------------------------------------- the check (holdem_check.c) */

/* The steps `seat` made this hand, recomputed from `secret`: 1 when they
 * all match the state byte for byte, 0 when one does not. */
int kd_hm_check_seat(const kd_hm_state *state, int seat, const uint8_t secret[KD_HASH_LEN]);
/* Decrypts position `pos` with both seats' published keys: the card, or
 * -1 when it is no card. */
int kd_hm_open_position(const kd_hm_state *state, const kd_hm_point cards[KD_HM_CARDS], unsigned pos);
/* The hole cards of `seat` from its seed, when the other seat's keys for
 * them are published: 0 and the cards, or -1 (not dealt yet, or they do
 * not decrypt to cards: out holds KD_HM_NO_CARD then). */
int kd_hm_own_cards(const kd_hm_state *state, int seat, const uint8_t seed[KD_SECRET_SEED_LEN], uint8_t out[2]);

/* ------------------------------------------------ encodings (holdem_codec.c) */

/* protocol 1's state (version 1), and protocol 2's (version 2): the same
 * fields and then its own */
#define KD_HM_STATE_LEN_1                                                                                         \
    (1 + 2 * KD_PUBKEY_LEN + 2 * KD_SECRET_BINDING_LEN + 4 * 4 + 8 + 1 + 8 + 4 + 4 + 2 * 4 * 3 + 4 + 2 * 4 + 14 + \
     2 * 2 + KD_HM_BOARD + 4 + 2 * 4 + 2 * KD_HM_SHUFFLE_LEN + 4 * KD_HM_LOCK_LEN +                               \
     2 * KD_HM_DEALT * KD_HM_SCALAR_LEN + 2 * KD_HASH_LEN)
#define KD_HM_STATE_LEN_2 (KD_HM_STATE_LEN_1 + 4 + 2 * KD_HM_POINT_LEN + 2 + KD_HM_BOARD + 4 + 2 * 4)
#define KD_HM_STATE_LEN KD_HM_STATE_LEN_2 /* the longest */
#define KD_HM_UNDO_LEN (1 + KD_HM_STATE_LEN + KD_HASH_LEN)

kd_err kd_hm_state_encode(const kd_hm_state *state, kd_buf *out) KD_WARN_UNUSED;
kd_err kd_hm_state_decode(const uint8_t *data, size_t len, kd_hm_state *state) KD_WARN_UNUSED;
kd_err kd_hm_undo_encode(const kd_hm_undo *undo, kd_buf *out) KD_WARN_UNUSED;
kd_err kd_hm_undo_decode(const uint8_t *data, size_t len, kd_hm_undo *undo) KD_WARN_UNUSED;
void kd_hm_state_hash(const kd_hm_state *state, uint8_t out[KD_HASH_LEN]);

/* ----------------------------------------------------- wire (holdem_wire.c) */

kd_err kd_hm_command_encode(const kd_hm_command *cmd, kd_buf *out) KD_WARN_UNUSED;
/* Decodes an HmCommand (form only: lengths). Errors: KD_ERR_BAD_COMMAND
 * (rej), KD_ERR_NOMEM. */
kd_err kd_hm_command_decode(const uint8_t *data, size_t len, kd_hm_command *cmd, kd_reject *rej) KD_WARN_UNUSED;
/* HmParams to params (zeros where absent). Errors: KD_ERR_BAD_PARAMS. */
kd_err kd_hm_params_decode(const uint8_t *data, size_t len, kd_hm_params *params, kd_reject *rej) KD_WARN_UNUSED;
kd_err kd_hm_params_encode(const kd_hm_params *params, kd_buf *out) KD_WARN_UNUSED;
/* Fills in the defaults and checks the ranges. Errors: KD_ERR_BAD_PARAMS. */
kd_err kd_hm_params_resolve(kd_hm_params *params, kd_reject *rej) KD_WARN_UNUSED;

/* ------------------------------------------- duties and secrets (holdem_duty.c) */

/* The command `seat` owes now from its seed (a shuffle, a lock, keys, its
 * hand secret, or a dispute when its own cards do not decrypt), encoded;
 * KD_ERR_NO_MOVE when none (the type's secret_duty). */
kd_err kd_hm_duty(const void *state, int seat, const uint8_t seed[KD_SECRET_SEED_LEN], kd_buf *out) KD_WARN_UNUSED;

#endif
