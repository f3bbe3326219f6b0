/*
 * blackjack_bot.c — basic strategy for this table's rules: the dealer
 * stands on soft 17, no hole card (European: a dealer blackjack takes
 * doubles and splits too), double on any two cards and after splits, no
 * surrender, four or more decks. The standard multi-deck S17 table with
 * the no-hole-card changes: 11 against a ten or an ace hits, 8-8 against
 * a ten or an ace hits, A-A against an ace hits.
 */
#include <string.h>

#include "episodes/blackjack/blackjack.h"

enum {
    H = KD_BJ_CMD_HIT,
    S = KD_BJ_CMD_STAND,
    D = KD_BJ_CMD_DOUBLE,
    P = KD_BJ_CMD_SPLIT,
    X = 9 /* double, else stand */
};

/* Dealer up cards in columns: 2 3 4 5 6 7 8 9 10 A. */
static const unsigned char hard[22][10] = {
    [5] = {H, H, H, H, H, H, H, H, H, H},  [6] = {H, H, H, H, H, H, H, H, H, H},  [7] = {H, H, H, H, H, H, H, H, H, H},
    [8] = {H, H, H, H, H, H, H, H, H, H},  [9] = {H, D, D, D, D, H, H, H, H, H},  [10] = {D, D, D, D, D, D, D, D, H, H},
    [11] = {D, D, D, D, D, D, D, D, H, H}, [12] = {H, H, S, S, S, H, H, H, H, H}, [13] = {S, S, S, S, S, H, H, H, H, H},
    [14] = {S, S, S, S, S, H, H, H, H, H}, [15] = {S, S, S, S, S, H, H, H, H, H}, [16] = {S, S, S, S, S, H, H, H, H, H},
};

/* Soft totals 13 .. 20. */
static const unsigned char soft[21][10] = {
    [13] = {H, H, H, D, D, H, H, H, H, H}, [14] = {H, H, H, D, D, H, H, H, H, H}, [15] = {H, H, D, D, D, H, H, H, H, H},
    [16] = {H, H, D, D, D, H, H, H, H, H}, [17] = {H, D, D, D, D, H, H, H, H, H}, [18] = {S, X, X, X, X, S, S, H, H, H},
    [19] = {S, S, S, S, S, S, S, S, S, S}, [20] = {S, S, S, S, S, S, S, S, S, S},
};

/* Pairs by card value 1 (aces) .. 10: split (P) or not (0: play the total). */
static const unsigned char pairs[11][10] = {
    [1] = {P, P, P, P, P, P, P, P, P, 0},  [2] = {P, P, P, P, P, P, 0, 0, 0, 0}, [3] = {P, P, P, P, P, P, 0, 0, 0, 0},
    [4] = {0, 0, 0, P, P, 0, 0, 0, 0, 0},  [5] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, [6] = {P, P, P, P, P, 0, 0, 0, 0, 0},
    [7] = {P, P, P, P, P, P, 0, 0, 0, 0},  [8] = {P, P, P, P, P, P, P, P, 0, 0}, [9] = {P, P, P, P, P, 0, P, P, 0, 0},
    [10] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
};

kd_bj_action kd_bj_basic_strategy(const uint8_t *cards, size_t n, uint8_t up, int can_double, int can_split)
{
    unsigned v = kd_bj_card_value(up), col = v == 1 ? 9 : v - 2;
    if (n == 2 && can_split && kd_bj_card_value(cards[0]) == kd_bj_card_value(cards[1]) &&
        pairs[kd_bj_card_value(cards[0])][col] == P)
        return KD_BJ_CMD_SPLIT;
    int is_soft = 0;
    unsigned total = kd_bj_total(cards, n, &is_soft);
    unsigned char a;
    if (total >= 21 || (!is_soft && total >= 17) || (is_soft && total >= 19))
        a = S;
    else if (is_soft)
        a = total >= 13 ? soft[total][col] : H;
    else
        a = total >= 5 ? hard[total][col] : H;
    if (a == X)
        return can_double ? KD_BJ_CMD_DOUBLE : KD_BJ_CMD_STAND;
    if (a == D)
        return can_double ? KD_BJ_CMD_DOUBLE : KD_BJ_CMD_HIT;
    return (kd_bj_action)a;
}

kd_err kd_bj_bot_command(const void *state_ptr, unsigned depth, uint64_t tiebreak, kd_buf *out)
{
    (void)depth;
    (void)tiebreak; /* basic strategy has one answer */
    const kd_bj_state *s = state_ptr;
    kd_game_status st = kd_blackjack_type.status(s);
    if (st.phase != KD_PHASE_IN_PROGRESS || st.to_move < 1)
        return KD_ERR_NO_MOVE;
    const kd_bj_player *p = &s->players[st.to_move - 1];
    const kd_bj_round *r = &p->round;
    kd_bj_command c;
    memset(&c, 0, sizeof c);
    if (r->await == KD_BJ_PLAYER) {
        const kd_bj_hand *h = &r->hands[r->active];
        int can_double = h->n == 2 && p->chips >= h->bet;
        int can_split = h->n == 2 && r->n_hands < KD_BJ_HANDS_MAX && p->chips >= h->bet;
        c.action = kd_bj_basic_strategy(h->cards, h->n, r->dealer.cards[0], can_double, can_split);
    } else if (kd_bj_can_bet(s, (size_t)st.to_move - 1)) {
        c.action = KD_BJ_CMD_BET;
        c.amount = s->params.min_bet;
    } else {
        return KD_ERR_NO_MOVE;
    }
    kd_bj_listed_entropy(s, st.to_move, c.action, c.entropy);
    return kd_bj_command_encode(&c, out);
}
