/*
 * holdem.c — the rules of heads-up no-limit hold'em dealt by the players:
 * the phases of a hand, betting, settling, the deck steps and their proofs
 * (protocol 2), and the kd_episode_ops table. Cards opened, and protocol
 * 1's check (a seat's steps recomputed from its hand secret), are in
 * holdem_check.c. Rules and formats in holdem.h.
 */
#include "episodes/holdem/holdem.h"
#include "episodes/ops_adapter.h"

#include <stdlib.h>
#include <string.h>

const kd_rule_code kd_hm_rule_codes[] = {
    {"game_over", "the match has ended"},
    {"unauthorised", "the command is unsigned, or signed by a key that is not a participant"},
    {"not_your_turn", "the signer may not make this step now: the other seat shuffles, locks or bets"},
    {"wrong_phase", "the command belongs to another phase of the hand (a bet during the shuffle, a key at the check)"},
    {"bad_deck", "a shuffle that is not 52 valid compressed points"},
    {"duplicate_point", "a shuffle or lock that holds the same point twice"},
    {"bad_lock", "a lock whose cards or commitments are not 9 valid compressed points each"},
    {"wrong_positions", "keys for positions the seat does not owe now, or not in ascending order"},
    {"wrong_key", "a key that does not match the seat's commitment (k·G) for its position"},
    {"keys_owed", "a bet before the cards of the street are dealt: a seat still owes keys"},
    {"cannot_check", "a check while facing a bet"},
    {"nothing_to_call", "a call with nothing to call"},
    {"raise_too_small",
     "a bet or raise that adds less than the previous bet or raise (or the big blind) and is not all in"},
    {"raise_too_large", "a bet or raise beyond the seat's stack"},
    {"raise_closed", "a raise when the betting is not open to the seat: a short all-in did not reopen it, or the other "
                     "seat is all in"},
    {"nothing_to_dispute", "a dispute before the seat's own hole cards are dealt, or after the hand ended"},
    {"already_revealed", "the seat has published its hand secret already"},
    {"too_early", "a claim before the deadline (timeout in DAA score after the wait began)"},
    {"nothing_to_claim", "a claim while the other seat owes nothing, or by a seat that owes something itself"},
    {"bad_shuffle_proof", "protocol 2: a shuffle without its key and proof, or whose proof does not show its deck is "
                          "the deck before it, permuted and raised by the key it publishes"},
    {"bad_lock_proof", "protocol 2: a lock without its proofs, or a position whose proof does not show it is locked "
                       "under the seat's deck key and its commitment"},
    {"nothing_to_muck", "a muck by a seat that does not owe a show now (before the showdown, or after it showed)"},
    {"must_show", "a muck in a showdown where a seat is all in: both hands are shown"},
    {"not_in_protocol", "a step of the other deck protocol: a hand secret or dispute in protocol 2, a muck in protocol "
                        "1"},
    {NULL, NULL},
};

const char *const kd_hm_seat_names[2] = {"seat0", "seat1"};

#define OTHER(s) (1 - (s))

uint32_t kd_hm_pot(const kd_hm_state *s) { return s->put[0] + s->put[1]; }

/* Protocol 2: each step proved, no hand secret published. */
static int proved(const kd_hm_state *s) { return s->params.protocol >= 2; }

/* The positions a street opens to everyone (bits). */
static unsigned board_bits(unsigned street)
{
    unsigned b = 0;
    if (street >= KD_HM_FLOP)
        b |= 0x70u;
    if (street >= KD_HM_TURN)
        b |= 0x80u;
    if (street >= KD_HM_RIVER)
        b |= 0x100u;
    return b;
}

static unsigned hole_bits(int seat) { return 0x3u << (2 * seat); }

/* Whether `seat` shows now at the showdown: in protocol 2 the first to
 * show, then the other once it has (both at once when one is all in). */
static int shows_now(const kd_hm_state *s, int seat)
{
    int first = s->first_show;
    if (!proved(s) || first > 1 || seat == first)
        return 1;
    return (s->opened[first] & hole_bits(first)) == hole_bits(first);
}

unsigned kd_hm_keys_owed(const kd_hm_state *s, int seat)
{
    if (s->phase != KD_HM_PLAY || (seat != 0 && seat != 1))
        return 0;
    unsigned due = hole_bits(OTHER(seat)) | board_bits(s->street);
    if (s->street == KD_HM_SHOWDOWN && shows_now(s, seat))
        due |= hole_bits(seat);
    return due & ~(unsigned)s->opened[seat];
}

static int dealing(const kd_hm_state *s) { return kd_hm_keys_owed(s, 0) || kd_hm_keys_owed(s, 1); }

unsigned kd_hm_owes(const kd_hm_state *s, int seat)
{
    if (seat != 0 && seat != 1)
        return 0;
    switch (s->phase) {
    case KD_HM_SHUFFLE:
        return s->step == seat ? KD_HM_OWE_SHUFFLE : 0;
    case KD_HM_LOCK:
        return s->step == seat ? KD_HM_OWE_LOCK : 0;
    case KD_HM_PLAY:
        if (kd_hm_keys_owed(s, seat))
            return proved(s) && s->street == KD_HM_SHOWDOWN ? KD_HM_OWE_SHOW : KD_HM_OWE_KEYS;
        return !dealing(s) && s->to_act == seat ? KD_HM_OWE_BET : 0;
    case KD_HM_CHECK:
        return s->revealed & (1u << seat) ? 0 : KD_HM_OWE_SECRET;
    }
    return 0;
}

int kd_hm_to_move(const kd_hm_state *s)
{
    if (kd_hm_owes(s, 0))
        return 0;
    return kd_hm_owes(s, 1) ? 1 : KD_SEAT_NONE;
}

static uint32_t current(const kd_hm_state *s) { return s->bets[0] > s->bets[1] ? s->bets[0] : s->bets[1]; }

void kd_hm_limits_of(const kd_hm_state *s, int seat, kd_hm_limits *out)
{
    memset(out, 0, sizeof *out);
    out->min_to = 1;
    if (seat != 0 && seat != 1)
        return;
    uint32_t cur = current(s), max_to = s->bets[seat] + s->stacks[seat];
    out->can_check = s->bets[seat] == cur;
    out->call =
        cur > s->bets[seat] ? (cur - s->bets[seat] < s->stacks[seat] ? cur - s->bets[seat] : s->stacks[seat]) : 0;
    if (!s->acted[seat] && s->stacks[OTHER(seat)] > 0 && max_to > cur) {
        out->max_to = max_to;
        out->min_to = cur + s->min_raise < max_to ? cur + s->min_raise : max_to;
    }
}

/* Whether `seat` must still act in this betting round. */
static int needs(const kd_hm_state *s, int seat)
{
    return s->folded == KD_HM_NO_SEAT && s->stacks[seat] > 0 &&
           (s->bets[seat] < current(s) || (!s->acted[seat] && s->stacks[OTHER(seat)] > 0));
}

static void pay(kd_hm_state *s, int seat, uint32_t chips)
{
    s->stacks[seat] -= chips;
    s->bets[seat] += chips;
    s->put[seat] += chips;
}

/* Posts the blinds and starts hand `hand` with `button`. */
static void start_hand(kd_hm_state *s, uint32_t hand, int button, uint64_t daa)
{
    s->hand = hand;
    s->button = (uint8_t)button;
    s->phase = KD_HM_SHUFFLE;
    s->step = 0;
    s->street = KD_HM_PREFLOP;
    s->to_act = KD_HM_NO_SEAT;
    s->folded = KD_HM_NO_SEAT;
    s->disputer = KD_HM_NO_SEAT;
    s->revealed = 0;
    memset(s->acted, 0, sizeof s->acted);
    memset(s->bets, 0, sizeof s->bets);
    memset(s->put, 0, sizeof s->put);
    memset(s->opened, 0, sizeof s->opened);
    memset(s->board, KD_HM_NO_CARD, sizeof s->board);
    memset(s->shown, KD_HM_NO_CARD, sizeof s->shown);
    memset(s->values, 0, sizeof s->values);
    memset(s->deck, 0, sizeof s->deck);
    memset(s->locked, 0, sizeof s->locked);
    memset(s->commits, 0, sizeof s->commits);
    memset(s->keys, 0, sizeof s->keys);
    memset(s->secrets, 0, sizeof s->secrets);
    if (proved(s)) {
        memset(s->xkeys, 0, sizeof s->xkeys);
        s->aggressor = KD_HM_NO_SEAT;
        s->first_show = KD_HM_NO_SEAT;
    }
    s->min_raise = s->params.big_blind;
    uint32_t sb = s->params.small_blind, bb = s->params.big_blind;
    pay(s, button, sb < s->stacks[button] ? sb : s->stacks[button]);
    pay(s, OTHER(button), bb < s->stacks[OTHER(button)] ? bb : s->stacks[OTHER(button)]);
    s->since = daa;
}

static void match_over(kd_hm_state *s, int winner, kd_hm_end end)
{
    s->phase = KD_HM_OVER;
    s->winner = (uint8_t)(winner < 0 ? KD_HM_NO_SEAT : winner);
    s->end = (uint8_t)end;
    s->to_act = KD_HM_NO_SEAT;
}

/* How a hand ends besides its cheaters (settle's `how`). */
enum { PLAYED = -1, VOIDED = -2 }; /* else the seat that mucked */

/* Moves the chips of the hand that ended, records the result and starts
 * the next hand or ends the match. `cheats`: bit s, seat s cheated. `how`:
 * PLAYED (a fold, the showdown), the seat that mucked, or VOIDED (cards
 * that do not open in protocol 2, which its proofs rule out: each takes
 * back its own, nobody named). */
static void settle(kd_hm_state *s, unsigned cheats, int how, uint64_t daa)
{
    uint32_t pot = kd_hm_pot(s), won[2] = {0, 0};
    kd_hm_result result;
    if (how == VOIDED) {
        won[0] = s->put[0];
        won[1] = s->put[1];
        result = KD_HM_RESULT_VOID;
    } else if (how >= 0) {
        won[OTHER(how)] = pot;
        result = KD_HM_RESULT_MUCK;
    } else if (cheats == 3u) {
        won[0] = s->put[0];
        won[1] = s->put[1];
        result = KD_HM_RESULT_VOID;
    } else if (cheats) {
        won[cheats == 1u ? 1 : 0] = pot;
        result = KD_HM_RESULT_CHEAT;
    } else if (s->folded != KD_HM_NO_SEAT) {
        won[OTHER(s->folded)] = pot;
        result = KD_HM_RESULT_FOLD;
    } else if (s->values[0] != s->values[1]) {
        won[s->values[0] > s->values[1] ? 0 : 1] = pot;
        result = KD_HM_RESULT_SHOWDOWN;
    } else {
        /* the odd chip to the first seat left of the button: the big blind */
        won[s->button] = pot / 2;
        won[OTHER(s->button)] = pot - pot / 2;
        result = KD_HM_RESULT_SPLIT;
    }
    for (int i = 0; i < 2; i++) {
        s->stacks[i] += won[i];
        s->last_won[i] = (int32_t)won[i] - (int32_t)s->put[i];
        s->put[i] = 0;
        s->bets[i] = 0;
    }
    s->result = (uint8_t)result;
    s->cheats = (uint8_t)cheats;
    if (proved(s)) { /* what the hand showed stays in view */
        memcpy(s->last_board, s->board, sizeof s->last_board);
        memcpy(s->last_shown, s->shown, sizeof s->last_shown);
        memcpy(s->last_values, s->values, sizeof s->last_values);
    }
    if (cheats && !s->params.pot_only)
        match_over(s, cheats == 3u ? -1 : (cheats == 1u ? 1 : 0), KD_HM_END_CHEAT);
    else if (!s->stacks[0] || !s->stacks[1])
        match_over(s, s->stacks[0] ? 0 : 1, KD_HM_END_BUST);
    else if (s->params.hand_limit && s->hand >= s->params.hand_limit)
        match_over(s, s->stacks[0] == s->stacks[1] ? -1 : (s->stacks[0] > s->stacks[1] ? 0 : 1), KD_HM_END_LIMIT);
    else
        start_hand(s, s->hand + 1, OTHER(s->button), daa);
}

static void enter_check(kd_hm_state *s)
{
    s->phase = KD_HM_CHECK;
    s->to_act = KD_HM_NO_SEAT;
}

/* The betting of the round is over: the uncalled part goes back, the next
 * street's cards become due. */
static void close_round(kd_hm_state *s)
{
    for (int i = 0; i < 2; i++)
        if (s->bets[i] > s->bets[OTHER(i)]) {
            uint32_t back = s->bets[i] - s->bets[OTHER(i)];
            s->stacks[i] += back;
            s->put[i] -= back;
        }
    memset(s->bets, 0, sizeof s->bets);
    memset(s->acted, 0, sizeof s->acted);
    s->min_raise = s->params.big_blind;
    s->to_act = KD_HM_NO_SEAT;
    if (proved(s) && s->street == KD_HM_RIVER) /* TDA: the river's last aggressor shows first, else the first to act */
        s->first_show = !s->stacks[0] || !s->stacks[1] ? KD_HM_NO_SEAT
                        : s->aggressor <= 1            ? s->aggressor
                                                       : (uint8_t)OTHER(s->button);
    if (proved(s))
        s->aggressor = KD_HM_NO_SEAT;
    s->street++;
}

/* Opens the board cards both seats have keyed, and at the showdown both
 * hands: 0, or -1 when a card is no card or comes twice (the check will
 * tell who cheated). */
static int open_cards(kd_hm_state *s)
{
    kd_hm_point cards[KD_HM_CARDS];
    if (kd_hm_card_points(cards) != KD_OK)
        return -1;
    uint64_t seen = 0;
    for (unsigned pos = 4; pos < KD_HM_DEALT; pos++) {
        if (!(s->opened[0] & s->opened[1] & (1u << pos)))
            continue;
        int c = s->board[pos - 4] != KD_HM_NO_CARD ? s->board[pos - 4] : kd_hm_open_position(s, cards, pos);
        if (c < 0 || (seen & (1ull << c)))
            return -1;
        seen |= 1ull << c;
        s->board[pos - 4] = (uint8_t)c;
    }
    if (s->street != KD_HM_SHOWDOWN)
        return 0;
    for (int i = 0; i < 2; i++) { /* each hand shown: both seats' keys for it are out */
        unsigned hole = hole_bits(i);
        if ((s->opened[0] & s->opened[1] & hole) != hole)
            continue;
        for (unsigned pos = 2u * (unsigned)i; pos < 2u * (unsigned)i + 2; pos++) {
            int c = kd_hm_open_position(s, cards, pos);
            if (c < 0 || (seen & (1ull << c)))
                return -1;
            seen |= 1ull << c;
            s->shown[i][pos % 2] = (uint8_t)c;
        }
        uint8_t seven[7] = {s->shown[i][0], s->shown[i][1]};
        memcpy(seven + 2, s->board, KD_HM_BOARD);
        s->values[i] = kd_hm_eval(seven, 7);
    }
    return 0;
}

/* The cards of the street are all keyed: open them; then betting starts,
 * or (nobody can bet) the next street comes, or the showdown. In protocol
 * 2 each hand is shown as its keys come, and the hand is settled when both
 * are. */
static void dealt(kd_hm_state *s, uint64_t daa)
{
    if (proved(s) && s->phase == KD_HM_PLAY && s->street == KD_HM_SHOWDOWN) {
        if (open_cards(s) != 0)
            settle(s, 0, VOIDED, daa);
        else if (!dealing(s))
            settle(s, 0, PLAYED, daa);
        return;
    }
    while (s->phase == KD_HM_PLAY && !dealing(s)) {
        if (open_cards(s) != 0) {
            if (proved(s)) {
                settle(s, 0, VOIDED, daa);
                return;
            }
            s->disputer = 2; /* the rules: a card is no card */
            enter_check(s);
            return;
        }
        if (s->street == KD_HM_SHOWDOWN) {
            if (proved(s))
                dealt(s, daa);
            else
                enter_check(s);
            return;
        }
        int first = s->street == KD_HM_PREFLOP ? s->button : OTHER(s->button);
        s->to_act = needs(s, first) ? (uint8_t)first : needs(s, OTHER(first)) ? (uint8_t)OTHER(first) : KD_HM_NO_SEAT;
        if (s->to_act != KD_HM_NO_SEAT)
            return;
        close_round(s); /* nobody can bet: the next street, its keys due */
    }
}

/* After `seat` acted: the other acts, or the round closes. */
static void next_actor(kd_hm_state *s, int seat, uint64_t daa)
{
    if (needs(s, OTHER(seat)))
        s->to_act = (uint8_t)OTHER(seat);
    else if (needs(s, seat))
        s->to_act = (uint8_t)seat;
    else {
        close_round(s);
        dealt(s, daa); /* no-op while keys are due: they are, from the flop on */
    }
}

/* A hand ends by a fold (or a bet claimed late): protocol 2 settles it at
 * once, showing nothing; protocol 1 goes to the check. */
static void fold(kd_hm_state *s, int seat, uint64_t daa)
{
    s->folded = (uint8_t)seat;
    if (proved(s))
        settle(s, 0, PLAYED, daa);
    else
        enter_check(s);
}

/* ------------------------------------------------------------ commands */

static int points_distinct(const kd_hm_point *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < i; j++)
            if (memcmp(p[i], p[j], KD_HM_POINT_LEN) == 0)
                return 0;
    return 1;
}

void kd_hm_bind_of(const kd_hm_state *s, int seat, kd_hm_bind *out)
{
    memset(out, 0, sizeof *out);
    out->episode = s->episode;
    out->hand = s->hand;
    out->seat = (uint8_t)seat;
    out->signer = s->players[seat & 1];
}

kd_err kd_hm_proof_check(const kd_hm_state *s, int seat, const kd_hm_command *c, kd_reject *rej)
{
    if (!proved(s) || (seat != 0 && seat != 1))
        return KD_OK;
    kd_hm_bind bind;
    kd_hm_bind_of(s, seat, &bind);
    if (c->kind == KD_HM_CMD_SHUFFLE) {
        if (!c->proved)
            return kd_reject_rule(rej, "bad_shuffle_proof", "a shuffle of protocol 2 carries its key and its proof");
        kd_hm_point *cards = NULL;
        const kd_hm_point *in = s->deck[0];
        if (seat == 0) {
            if (!(cards = malloc(sizeof(kd_hm_point) * KD_HM_CARDS)))
                return KD_ERR_NOMEM;
            kd_err err = kd_hm_card_points(cards);
            if (err) {
                free(cards);
                return err;
            }
            in = cards;
        }
        int valid = 0;
        kd_err err = kd_hm_shuffle_verify(&bind, in, c->deck, c->key, c->proof, &valid);
        free(cards);
        if (!err && !valid)
            return kd_reject_rule(rej, "bad_shuffle_proof",
                                  "%s's proof does not show its deck is the deck before it permuted and raised by "
                                  "the key it publishes, for hand %u",
                                  kd_hm_seat_names[seat], s->hand);
        return err;
    }
    if (c->kind == KD_HM_CMD_LOCK) {
        if (!c->proved)
            return kd_reject_rule(rej, "bad_lock_proof", "a lock of protocol 2 carries a proof for each position");
        int bad = -1;
        kd_err err = kd_hm_lock_verify(&bind, s->xkeys[seat], seat == 0 ? s->deck[1] : s->locked[0], c->cards,
                                       c->commits, c->proofs, &bad);
        if (!err && bad >= 0)
            return kd_reject_rule(rej, "bad_lock_proof",
                                  "position %d: %s's proof does not show it is locked under its deck key and its "
                                  "commitment, for hand %u",
                                  bad, kd_hm_seat_names[seat], s->hand);
        return err;
    }
    return KD_OK;
}

/* The proof of a shuffle or lock: the verdict the engine found ahead
 * (kd_hm_precheck: the same check on this very command and state), else
 * checked here. */
static kd_err proof_verdict(const kd_hm_state *s, int seat, const kd_hm_command *c, const kd_precheck *pre,
                            kd_reject *rej)
{
    if (!proved(s))
        return KD_OK;
    if (!pre)
        return kd_hm_proof_check(s, seat, c, rej);
    if (pre->verdict && rej)
        *rej = pre->rej;
    return pre->verdict;
}

static kd_err do_shuffle(kd_hm_state *s, int seat, const kd_hm_command *c, const kd_precheck *pre, kd_reject *rej)
{
    if (s->phase != KD_HM_SHUFFLE)
        return kd_reject_rule(rej, "wrong_phase", "the deck is shuffled at the start of a hand only");
    if (s->step != seat)
        return kd_reject_rule(rej, "not_your_turn", "%s shuffles now", kd_hm_seat_names[s->step & 1]);
    for (int j = 0; j < KD_HM_CARDS; j++)
        if (!kd_hm_point_valid(c->deck[j]))
            return kd_reject_rule(rej, "bad_deck", "point %d of the shuffle is not a valid compressed point", j);
    if (!points_distinct(c->deck, KD_HM_CARDS))
        return kd_reject_rule(rej, "duplicate_point", "the shuffle holds the same point twice");
    kd_err err = proof_verdict(s, seat, c, pre, rej);
    if (err)
        return err;
    memcpy(s->deck[seat], c->deck, sizeof s->deck[seat]);
    if (proved(s))
        memcpy(s->xkeys[seat], c->key, KD_HM_POINT_LEN);
    if (++s->step == 2) {
        s->phase = KD_HM_LOCK;
        s->step = 0;
    }
    return KD_OK;
}

static kd_err do_lock(kd_hm_state *s, int seat, const kd_hm_command *c, const kd_precheck *pre, kd_reject *rej)
{
    if (s->phase != KD_HM_LOCK)
        return kd_reject_rule(rej, "wrong_phase", "the deck is locked after both shuffles only");
    if (s->step != seat)
        return kd_reject_rule(rej, "not_your_turn", "%s locks now", kd_hm_seat_names[s->step & 1]);
    for (int i = 0; i < KD_HM_DEALT; i++)
        if (!kd_hm_point_valid(c->cards[i]) || !kd_hm_point_valid(c->commits[i]))
            return kd_reject_rule(rej, "bad_lock", "position %d of the lock is not a valid compressed point", i);
    if (!points_distinct(c->cards, KD_HM_DEALT))
        return kd_reject_rule(rej, "duplicate_point", "the lock holds the same point twice");
    kd_err err = proof_verdict(s, seat, c, pre, rej);
    if (err)
        return err;
    memcpy(s->locked[seat], c->cards, sizeof s->locked[seat]);
    memcpy(s->commits[seat], c->commits, sizeof s->commits[seat]);
    if (++s->step == 2) {
        s->phase = KD_HM_PLAY;
        s->step = 0;
        s->street = KD_HM_PREFLOP;
    }
    return KD_OK;
}

static kd_err do_keys(kd_hm_state *s, int seat, const kd_hm_command *c, uint64_t daa, kd_reject *rej)
{
    if (s->phase != KD_HM_PLAY)
        return kd_reject_rule(rej, "wrong_phase", "keys open cards during the play of a hand only");
    unsigned owed = kd_hm_keys_owed(s, seat), got = 0;
    if (!c->n_keys)
        return kd_reject_rule(rej, "wrong_positions", "the keys name no position");
    for (uint32_t i = 0; i < c->n_keys; i++) {
        unsigned pos = c->positions[i];
        if (pos >= KD_HM_DEALT || !(owed & (1u << pos)) || (i && pos <= c->positions[i - 1]))
            return kd_reject_rule(rej, "wrong_positions",
                                  "position %u: %s owes keys for positions mask 0x%03x now, ascending", pos,
                                  kd_hm_seat_names[seat], owed);
        if (!kd_hm_key_matches(c->keys[i], s->commits[seat][pos]))
            return kd_reject_rule(rej, "wrong_key", "the key for position %u does not match %s's commitment", pos,
                                  kd_hm_seat_names[seat]);
        got |= 1u << pos;
    }
    for (uint32_t i = 0; i < c->n_keys; i++)
        memcpy(s->keys[seat][c->positions[i]], c->keys[i], KD_HM_SCALAR_LEN);
    s->opened[seat] = (uint16_t)(s->opened[seat] | got);
    dealt(s, daa);
    return KD_OK;
}

static kd_err do_bet(kd_hm_state *s, int seat, const kd_hm_command *c, uint64_t daa, kd_reject *rej)
{
    if (s->phase != KD_HM_PLAY)
        return kd_reject_rule(rej, "wrong_phase", "bets are made during the play of a hand only");
    if (dealing(s))
        return kd_reject_rule(rej, "keys_owed", "the cards of the street are not dealt yet: keys are owed");
    if (s->to_act != seat)
        return kd_reject_rule(rej, "not_your_turn", "%s acts now",
                              s->to_act == KD_HM_NO_SEAT ? "nobody" : kd_hm_seat_names[s->to_act & 1]);
    uint32_t cur = current(s);
    kd_hm_limits lim;
    kd_hm_limits_of(s, seat, &lim);
    switch (c->kind) {
    case KD_HM_CMD_FOLD:
        fold(s, seat, daa);
        return KD_OK;
    case KD_HM_CMD_CHECK:
        if (!lim.can_check)
            return kd_reject_rule(rej, "cannot_check", "%s faces a bet of %u: call, raise or fold",
                                  kd_hm_seat_names[seat], cur - s->bets[seat]);
        break;
    case KD_HM_CMD_CALL:
        if (lim.can_check)
            return kd_reject_rule(rej, "nothing_to_call", "nothing to call: check or bet");
        pay(s, seat, lim.call);
        break;
    default: /* raise */
        if (s->acted[seat] || !s->stacks[OTHER(seat)])
            return kd_reject_rule(rej, "raise_closed",
                                  s->stacks[OTHER(seat)] ? "a short all-in did not reopen the betting: call or fold"
                                                         : "the other seat is all in: call or fold");
        if (c->to > s->bets[seat] + s->stacks[seat])
            return kd_reject_rule(rej, "raise_too_large", "raise to %u: %s has %u in all (bet %u, stack %u)", c->to,
                                  kd_hm_seat_names[seat], s->bets[seat] + s->stacks[seat], s->bets[seat],
                                  s->stacks[seat]);
        if (c->to <= cur || (c->to - cur < s->min_raise && c->to != s->bets[seat] + s->stacks[seat]))
            return kd_reject_rule(rej, "raise_too_small", "raise to %u: the least is %u (or all in for %u)", c->to,
                                  cur + s->min_raise, s->bets[seat] + s->stacks[seat]);
        if (c->to - cur >= s->min_raise) {
            s->min_raise = c->to - cur;
            s->acted[OTHER(seat)] = 0; /* a full raise reopens the betting */
        }
        pay(s, seat, c->to - s->bets[seat]);
        if (proved(s))
            s->aggressor = (uint8_t)seat;
        break;
    }
    s->acted[seat] = 1;
    next_actor(s, seat, daa);
    return KD_OK;
}

static kd_err do_reveal(kd_hm_state *s, int seat, const kd_hm_command *c, uint64_t daa, kd_reject *rej)
{
    if (proved(s))
        return kd_reject_rule(rej, "not_in_protocol",
                              "protocol 2 publishes no hand secret: each step carried its proof");
    if (s->phase != KD_HM_CHECK)
        return kd_reject_rule(rej, "wrong_phase", "hand secrets are published when the hand has ended only");
    if (s->revealed & (1u << seat))
        return kd_reject_rule(rej, "already_revealed", "%s has published its hand secret already",
                              kd_hm_seat_names[seat]);
    memcpy(s->secrets[seat], c->secret, KD_HASH_LEN);
    s->revealed = (uint8_t)(s->revealed | (1u << seat));
    if (s->revealed != 3u)
        return KD_OK;
    unsigned cheats = 0;
    for (int i = 0; i < 2; i++)
        if (!kd_hm_check_seat(s, i, s->secrets[i]))
            cheats |= 1u << i;
    if (!cheats && s->disputer < 2)
        cheats = 1u << s->disputer; /* a dispute with nothing wrong */
    settle(s, cheats, PLAYED, daa);
    return KD_OK;
}

static kd_err do_dispute(kd_hm_state *s, int seat, kd_reject *rej)
{
    if (proved(s))
        return kd_reject_rule(rej, "not_in_protocol",
                              "protocol 2 has no dispute: every card is proved to be a card as it is dealt");
    if (s->phase != KD_HM_PLAY || (s->opened[OTHER(seat)] & hole_bits(seat)) != hole_bits(seat))
        return kd_reject_rule(rej, "nothing_to_dispute", "%s's hole cards are not dealt, or the hand has ended",
                              kd_hm_seat_names[seat]);
    s->disputer = (uint8_t)seat;
    enter_check(s);
    return KD_OK;
}

static kd_err do_muck(kd_hm_state *s, int seat, uint64_t daa, kd_reject *rej)
{
    if (!proved(s))
        return kd_reject_rule(rej, "not_in_protocol", "protocol 1 shows both hands at the showdown");
    if (!(kd_hm_owes(s, seat) & KD_HM_OWE_SHOW))
        return kd_reject_rule(rej, "nothing_to_muck", "%s owes no show now: a hand is mucked at the showdown",
                              kd_hm_seat_names[seat]);
    if (s->first_show > 1)
        return kd_reject_rule(rej, "must_show", "a seat is all in: both hands are shown");
    settle(s, 0, seat, daa);
    return KD_OK;
}

static kd_err do_claim(kd_hm_state *s, int seat, uint64_t daa, kd_reject *rej)
{
    unsigned late = kd_hm_owes(s, OTHER(seat));
    if (!late || kd_hm_owes(s, seat))
        return kd_reject_rule(rej, "nothing_to_claim", "%s owes %s nothing now%s", kd_hm_seat_names[OTHER(seat)],
                              kd_hm_seat_names[seat], kd_hm_owes(s, seat) ? ", and the claimant owes a step" : "");
    if (daa < s->since + s->params.timeout)
        return kd_reject_rule(rej, "too_early", "the deadline is DAA score %llu; this block is at %llu",
                              (unsigned long long)(s->since + s->params.timeout), (unsigned long long)daa);
    if (late & KD_HM_OWE_BET) {
        fold(s, OTHER(seat), daa); /* late to bet: folded */
        return KD_OK;
    }
    unsigned cheats = 1u << OTHER(seat);
    if (s->phase == KD_HM_CHECK && !kd_hm_check_seat(s, seat, s->secrets[seat]))
        cheats |= 1u << seat;
    settle(s, cheats, PLAYED, daa);
    return KD_OK;
}

static int seat_of(const kd_hm_state *s, const kd_pubkey *signer, kd_reject *rej)
{
    for (int seat = 0; signer && seat < 2; seat++)
        if (memcmp(signer->bytes, s->players[seat].bytes, KD_PUBKEY_LEN) == 0)
            return seat;
    (void)kd_reject_rule(rej, "unauthorised",
                         signer ? "the signer is not a participant of this match"
                                : "the command is unsigned; hold'em commands are signed");
    return -1;
}

static kd_err dispatch(kd_hm_state *s, int seat, const kd_hm_command *c, uint64_t daa, const kd_precheck *pre,
                       kd_reject *rej)
{
    switch (c->kind) {
    case KD_HM_CMD_SHUFFLE:
        return do_shuffle(s, seat, c, pre, rej);
    case KD_HM_CMD_LOCK:
        return do_lock(s, seat, c, pre, rej);
    case KD_HM_CMD_KEYS:
        return do_keys(s, seat, c, daa, rej);
    case KD_HM_CMD_FOLD:
    case KD_HM_CMD_CHECK:
    case KD_HM_CMD_CALL:
    case KD_HM_CMD_RAISE:
        return do_bet(s, seat, c, daa, rej);
    case KD_HM_CMD_MUCK:
        return do_muck(s, seat, daa, rej);
    case KD_HM_CMD_REVEAL:
        return do_reveal(s, seat, c, daa, rej);
    case KD_HM_CMD_DISPUTE:
        return do_dispute(s, seat, rej);
    case KD_HM_CMD_CLAIM:
        return do_claim(s, seat, daa, rej);
    }
    return kd_reject_say(rej, KD_ERR_BAD_COMMAND, "unknown hold'em command");
}

kd_err kd_hm_apply(kd_hm_state *state, const kd_hm_command *cmd, const kd_pubkey *signer, const kd_block_meta *meta,
                   kd_hm_undo *undo, kd_reject *rej)
{
    uint64_t daa = meta ? meta->daa : 0;
    if (state->phase == KD_HM_OVER)
        return kd_reject_rule(rej, "game_over", "the match is over");
    int seat = seat_of(state, signer, rej);
    if (seat < 0)
        return KD_ERR_RULE;
    kd_hm_state *s = malloc(sizeof *s);
    if (!s)
        return KD_ERR_NOMEM;
    *s = *state;
    kd_err err = dispatch(s, seat, cmd, daa, meta ? meta->precheck : NULL, rej);
    if (!err) {
        s->since = daa; /* every step starts the next wait */
        s->move_count++;
        memset(undo, 0, sizeof *undo);
        undo->before = *state;
        kd_hm_state_hash(s, undo->after_hash);
        *state = *s;
    }
    free(s);
    return err;
}

kd_err kd_hm_rollback(kd_hm_state *state, const kd_hm_undo *undo)
{
    uint8_t h[KD_HASH_LEN];
    kd_hm_state_hash(state, h);
    if (memcmp(h, undo->after_hash, KD_HASH_LEN) != 0 || undo->before.move_count + 1 != state->move_count)
        return KD_ERR_DECODE;
    *state = undo->before;
    return KD_OK;
}

kd_err kd_hm_state_init(kd_hm_state *state, const kd_participants *participants, const kd_hm_params *params,
                        kd_reject *rej)
{
    memset(state, 0, sizeof *state);
    if (kd_two_seats_check(participants, "hold'em", kd_hm_seat_names, rej) != KD_OK)
        return KD_ERR_BAD_PARTICIPANTS;
    kd_hm_params p = *params;
    kd_err err = kd_hm_params_resolve(&p, rej);
    if (err)
        return err;
    memcpy(state->players, participants->keys, sizeof state->players);
    state->params = p;
    state->stacks[0] = state->stacks[1] = p.stack;
    state->winner = KD_HM_NO_SEAT;
    if (proved(state)) {
        memset(state->last_board, KD_HM_NO_CARD, sizeof state->last_board);
        memset(state->last_shown, KD_HM_NO_CARD, sizeof state->last_shown);
    }
    start_hand(state, 1, 0, 0);
    return KD_OK;
}

/* -------------------------------------------------------- ops table */

static kd_err ops_resolve_params(const void *config, const uint8_t *params, size_t len, kd_buf *effective,
                                 kd_reject *rej)
{
    (void)config;
    kd_hm_params p;
    kd_err err = kd_hm_params_decode(params, len, &p, rej);
    if (!err && p.protocol && p.protocol != KD_HM_PROTOCOL)
        return kd_reject_say(rej, KD_ERR_BAD_PARAMS,
                             "protocol %u: a new match plays protocol %u (protocol 1 is kept for the matches created "
                             "before it)",
                             p.protocol, KD_HM_PROTOCOL);
    if (!err)
        err = kd_hm_params_resolve(&p, rej);
    return err ? err : kd_hm_params_encode(&p, effective);
}

static kd_err ops_init(void *state, const kd_participants *participants, const uint8_t *params, size_t len,
                       const kd_block_meta *meta, kd_reject *rej)
{
    kd_hm_params p;
    memset(state, 0, sizeof(kd_hm_state));
    kd_err err = kd_hm_params_decode(params, len, &p, rej);
    if (!err && !p.protocol)
        p.protocol = 1; /* effective params without it: a match from before protocol 2 */
    if (!err)
        err = kd_hm_state_init(state, participants, &p, rej);
    kd_hm_state *s = state;
    if (!err) {
        s->since = meta->daa;
        if (proved(s))
            s->episode = meta->episode_id;
    }
    return err;
}

static kd_err ops_execute(void *state, const uint8_t *command, size_t len, const kd_pubkey *signer,
                          const kd_block_meta *meta, void *undo, kd_reject *rej)
{
    kd_hm_command *cmd = calloc(1, sizeof *cmd);
    if (!cmd)
        return KD_ERR_NOMEM;
    kd_err err = kd_hm_command_decode(command, len, cmd, rej);
    if (!err)
        err = kd_hm_apply(state, cmd, signer, meta, undo, rej);
    free(cmd);
    return err;
}

/*
 * The precheck (engine/episode.h): the proof of a protocol 2 shuffle or
 * lock, checked by the engine's verifier pool ahead of the writer. Its key
 * hashes everything kd_hm_proof_check reads: the episode, hand, seat and
 * its key, the step's input (the deck before it, or the deck or lock the
 * lock starts from, and the seat's deck key) and the command's bytes:
 *
 *   SHA-256("kdapp/holdem/precheck/v1" || episode (u32 BE) || hand (u32 BE)
 *           || seat || seat's key || input || deck key || command)
 */
typedef struct {
    kd_hm_command cmd;
    int seat;
} precheck_of;

/* The seat whose shuffle or lock of protocol 2 `command` is, now: 0 and
 * `out` filled, or -1 (nothing to precheck: the rules refuse it cheaply or
 * it carries no proof). */
static int precheck_command(const kd_hm_state *s, const uint8_t *command, size_t len, const kd_pubkey *signer,
                            precheck_of *out)
{
    if (!proved(s) || !signer || kd_hm_command_decode(command, len, &out->cmd, NULL) != KD_OK || !out->cmd.proved)
        return -1;
    out->seat = -1;
    for (int i = 0; i < 2; i++)
        if (memcmp(signer->bytes, s->players[i].bytes, KD_PUBKEY_LEN) == 0)
            out->seat = i;
    int step = out->cmd.kind == KD_HM_CMD_SHUFFLE ? KD_HM_SHUFFLE : out->cmd.kind == KD_HM_CMD_LOCK ? KD_HM_LOCK : -1;
    return out->seat >= 0 && s->phase == step && s->step == out->seat ? 0 : -1;
}

static int ops_precheck_key(const void *state, const uint8_t *command, size_t len, const kd_pubkey *signer,
                            uint32_t episode_id, uint8_t key[KD_HASH_LEN])
{
    (void)episode_id; /* the state's: proofs are bound to it */
    const kd_hm_state *s = state;
    precheck_of *p = malloc(sizeof *p);
    kd_sha256_ctx h;
    int has = p && precheck_command(s, command, len, signer, p) == 0 && kd_sha256_init(&h) == KD_OK;
    if (has) {
        static const char tag[] = "kdapp/holdem/precheck/v1";
        kd_hm_bind bind;
        uint8_t head[9];
        kd_hm_bind_of(s, p->seat, &bind);
        kd_put_u32be(head, bind.episode);
        kd_put_u32be(head + 4, bind.hand);
        head[8] = bind.seat;
        kd_sha256_update(&h, tag, sizeof tag - 1);
        kd_sha256_update(&h, head, sizeof head);
        kd_sha256_update(&h, bind.signer.bytes, KD_PUBKEY_LEN);
        if (p->cmd.kind == KD_HM_CMD_SHUFFLE && p->seat == 1)
            kd_sha256_update(&h, s->deck[0], sizeof s->deck[0]);
        if (p->cmd.kind == KD_HM_CMD_LOCK)
            kd_sha256_update(&h, p->seat == 0 ? s->deck[1][0] : s->locked[0][0], KD_HM_LOCK_LEN);
        if (p->cmd.kind == KD_HM_CMD_LOCK)
            kd_sha256_update(&h, s->xkeys[p->seat], KD_HM_POINT_LEN);
        kd_sha256_update(&h, command, len);
        kd_sha256_final(&h, key);
        kd_sha256_fini(&h);
    }
    free(p);
    return has;
}

static kd_err ops_precheck(const void *state, const uint8_t *command, size_t len, const kd_pubkey *signer,
                           uint32_t episode_id, kd_reject *rej)
{
    (void)episode_id;
    precheck_of *p = malloc(sizeof *p);
    if (!p)
        return KD_ERR_NOMEM;
    kd_err err =
        precheck_command(state, command, len, signer, p) == 0 ? kd_hm_proof_check(state, p->seat, &p->cmd, rej) : KD_OK;
    free(p);
    return err;
}

KD_OPS_CODEC(hm);

const kd_episode_ops kd_hm_ops = {
    .type_name = KD_HM_TYPE_NAME,
    KD_OPS_MEMBERS(hm),
    .join_params = kd_hm_join_params,
    .precheck_key = ops_precheck_key,
    .precheck = ops_precheck,
};
