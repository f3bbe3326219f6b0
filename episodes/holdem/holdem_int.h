/*
 * holdem_int.h — what hold'em's files share and nothing else uses: the
 * rules text and the view functions of the type table (holdem_view.c).
 */
#ifndef KD_EPISODES_HOLDEM_INT_H
#define KD_EPISODES_HOLDEM_INT_H

#include <jansson.h>

#include "episodes/holdem/holdem.h"

#define KD_HM_RULES_TEXT                                                                                              \
    "Heads-up no-limit hold'em dealt by the players: no dealer; the two seats shuffle and deal between themselves "   \
    "with commutative encryption on secp256k1, each step with a zero-knowledge proof checked when it arrives. Each "  \
    "seat gets two hole cards only it can see; five board cards come in the flop (3), turn and river. The button "    \
    "posts the small blind, acts first before the flop and last after it. Actions: fold, check, call, or raise to a " \
    "total for the round (a bet when nothing is bet): at least the previous bet or raise more (the big blind when "   \
    "none), or all in; a short all-in does not reopen the betting. At the showdown the river's last bettor (else "    \
    "the first to act on it) shows first; the other shows or mucks (all in: both show); the best five of seven "      \
    "cards win the pot. A fold shows nothing. The shuffles, locks, keys and shows are each seat's duties, made from " \
    "its key; a seat that misses a deadline (DAA score) loses the pot, and the match unless pot_only."

/* The view functions of the type table (episode_type.h says what each does). */
kd_err kd_hm_view_encode(const void *state, int seat, kd_buf *out);
json_t *kd_hm_view_json(const uint8_t *view, size_t len);
json_t *kd_hm_strategy_context(const uint8_t *view, size_t len);
kd_err kd_hm_render_text(const uint8_t *view, size_t len, unsigned flags, kd_buf *out);
kd_err kd_hm_prompt(const uint8_t *view, size_t len, uint32_t episode_id, int seat, kd_buf *out);
/* View bytes back into the public fields of a state (deck data, keys and
 * players left zero): 0, or -1 when malformed. */
int kd_hm_view_decode(const uint8_t *data, size_t len, kd_hm_state *out);
/* holdem_bot.c: the type's bot_command (public state only: its own cards
 * unknown) and bot_secret_command (its cards from own_secret); the decision for a seat whose hole cards `own` are known
 * (KD_HM_NO_CARD: unknown), from `seed`; the Monte Carlo equity of `own`
 * on `board` (KD_HM_NO_CARD: not dealt) against a random hand. */
kd_err kd_hm_bot_command(const void *state, unsigned depth, uint64_t tiebreak, kd_buf *out);
kd_err kd_hm_bot_secret_command(const void *state, int seat, const json_t *own_secret, unsigned depth,
                                uint64_t tiebreak, kd_buf *out);
kd_err kd_hm_bot_decide(const kd_hm_state *s, int seat, const uint8_t own[2], uint64_t seed, kd_buf *out);
double kd_hm_equity(const uint8_t board[KD_HM_BOARD], const uint8_t own[2], unsigned samples, uint64_t *rng);
/* The legal bets of `seat` (holdem_type.c), as the type's legal_moves. */
kd_err kd_hm_legal_moves(const void *state, int seat, kd_legal_moves *out);

#endif
