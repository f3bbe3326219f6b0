/*
 * blackjack.c — the rules of blackjack (blackjack.h): bets, the player's
 * actions, the house's reveals (in the order the asks came) and claims,
 * settling a round, rollback. The draw of a card is blackjack_draw.c's.
 *
 * Rule codes retired with the hash chain (issue 24), never to be reused
 * (engine/err.h): no_such_seat (a reveal named a seat), chain_exhausted,
 * wrong_link.
 */
#include "episodes/blackjack/blackjack.h"

#include <string.h>

#include "engine/crypto.h"

const kd_rule_code kd_bj_rule_codes[] = {
    {"game_over", "the game has ended: no round is on and no player can bet"},
    {"unauthorised", "unsigned, signed by a key that is no participant, or by the wrong side (the house only reveals)"},
    {"round_in_progress", "a bet while the player's round is on"},
    {"no_round", "hit, stand, double, split or claim without a round on"},
    {"awaiting_house", "the player acts while the house owes a card"},
    {"bet_out_of_range", "the bet is below the table's minimum or above its maximum"},
    {"not_enough_chips", "the player's chips do not cover the bet, the double or the split"},
    {"no_rounds_left", "the player has played the rounds the table allows"},
    {"cannot_double", "double is only on a hand of two cards"},
    {"cannot_split", "split is only on two cards of one value, up to four hands"},
    {"nothing_owed", "a reveal while no round waits for a card, or a claim for a round that waits for none"},
    {"bad_proof",
     "the house's proof does not verify for the next draw (the oldest ask waiting for a card) against its key"},
    {"too_early", "a claim before the house's deadline has passed"},
    {NULL, NULL},
};

/* ------------------------------------------------------------ totals */

unsigned kd_bj_card_value(uint8_t card)
{
    unsigned rank = card % 13u;
    return rank >= 9 ? 10 : rank + 1;
}

unsigned kd_bj_total(const uint8_t *cards, size_t n, int *soft)
{
    unsigned total = 0;
    int ace = 0;
    for (size_t i = 0; i < n; i++) {
        total += kd_bj_card_value(cards[i]);
        ace |= cards[i] % 13u == 0;
    }
    int s = ace && total + 10 <= 21;
    if (soft)
        *soft = s;
    return s ? total + 10 : total;
}

int kd_bj_natural(const kd_bj_round *r)
{
    return r->n_hands == 1 && r->hands[0].n == 2 && kd_bj_total(r->hands[0].cards, 2, NULL) == 21;
}

static unsigned hand_total(const kd_bj_hand *h) { return kd_bj_total(h->cards, h->n, NULL); }

/* ------------------------------------------------------------ seats */

int kd_bj_seat_of(const kd_bj_state *s, const kd_pubkey *key)
{
    if (!key)
        return -1;
    if (memcmp(key->bytes, s->house.bytes, KD_PUBKEY_LEN) == 0)
        return KD_BJ_HOUSE;
    for (size_t i = 0; i < s->n_players; i++)
        if (memcmp(key->bytes, s->players[i].key.bytes, KD_PUBKEY_LEN) == 0)
            return (int)i + 1;
    return -1;
}

static size_t rounds_on(const kd_bj_state *s)
{
    size_t n = 0;
    for (size_t i = 0; i < s->n_players; i++)
        n += s->players[i].round.await != KD_BJ_IDLE;
    return n;
}

int kd_bj_can_bet(const kd_bj_state *s, size_t i)
{
    const kd_bj_player *p = &s->players[i];
    return p->round.await == KD_BJ_IDLE && p->rounds_played < s->params.rounds && p->chips >= s->params.min_bet;
}

int kd_bj_over(const kd_bj_state *s)
{
    if (rounds_on(s))
        return 0;
    for (size_t i = 0; i < s->n_players; i++)
        if (kd_bj_can_bet(s, i))
            return 0;
    return 1;
}

static int waits_for_house(const kd_bj_round *r)
{
    return r->await == KD_BJ_DEAL || r->await == KD_BJ_CARD || r->await == KD_BJ_DEALER;
}

int kd_bj_owed(const kd_bj_state *s)
{
    int owed = -1;
    for (size_t i = 0; i < s->n_players; i++) {
        const kd_bj_round *r = &s->players[i].round;
        if (waits_for_house(r) && (owed < 0 || r->pending.asked < s->players[owed].round.pending.asked))
            owed = (int)i;
    }
    return owed;
}

uint64_t kd_bj_deadline(const kd_bj_state *s, size_t i)
{
    uint64_t from = s->players[i].round.pending.asked_daa, due = kd_bj_due(s, i);
    from = from > s->last_reveal_daa ? from : s->last_reveal_daa;
    return (from > due ? from : due) + s->params.timeout;
}

kd_err kd_bj_state_init(kd_bj_state *s, const kd_participants *parts, const kd_bj_params *params, uint32_t episode_id,
                        kd_reject *rej)
{
    memset(s, 0, sizeof *s);
    if (!parts || parts->count < 2)
        return kd_reject_say(rej, KD_ERR_BAD_PARTICIPANTS,
                             "blackjack needs the house and at least one player (2 to %d participants), got %zu",
                             KD_MAX_PARTICIPANTS, parts ? parts->count : (size_t)0);
    for (size_t i = 0; i < parts->count; i++) {
        if (kd_pubkey_check(&parts->keys[i]) != KD_OK)
            return kd_reject_say(rej, KD_ERR_BAD_PARTICIPANTS,
                                 "participant %zu is not a valid compressed secp256k1 public key", i + 1);
        for (size_t j = 0; j < i; j++)
            if (memcmp(parts->keys[i].bytes, parts->keys[j].bytes, KD_PUBKEY_LEN) == 0) {
                memset(s, 0, sizeof *s);
                return kd_reject_say(rej, KD_ERR_BAD_PARTICIPANTS,
                                     "participants %zu and %zu have the same key: the house and every player "
                                     "need keys of their own",
                                     j + 1, i + 1);
            }
    }
    s->params = *params;
    s->house = parts->keys[0];
    s->n_players = (uint8_t)(parts->count - 1);
    for (size_t i = 0; i + 1 < parts->count; i++) {
        s->players[i].key = parts->keys[i + 1];
        s->players[i].chips = params->stack;
    }
    s->episode_id = episode_id;
    kd_bj_shoe_fill(s);
    return KD_OK;
}

/* ------------------------------------------------------------ settling */

/* Settles every hand of `r` against the dealer and pays `p`. */
static void settle(kd_bj_state *s, kd_bj_player *p)
{
    kd_bj_round *r = &p->round;
    unsigned dealer = hand_total(&r->dealer);
    int dealer_bj = r->dealer.n == 2 && dealer == 21, natural = kd_bj_natural(r);
    int64_t net = 0;
    for (size_t i = 0; i < r->n_hands; i++) {
        kd_bj_hand *h = &r->hands[i];
        unsigned t = hand_total(h);
        uint64_t back = 0;
        if (t > 21) {
            h->outcome = KD_BJ_BUST;
        } else if (natural) {
            h->outcome = dealer_bj ? KD_BJ_PUSH : KD_BJ_BLACKJACK;
            back = dealer_bj ? h->bet : (uint64_t)h->bet + (uint64_t)h->bet * 3 / 2;
        } else if (dealer_bj) {
            h->outcome = KD_BJ_LOSE;
        } else if (dealer > 21 || t > dealer) {
            h->outcome = KD_BJ_WIN;
            back = 2 * (uint64_t)h->bet;
        } else {
            h->outcome = t == dealer ? KD_BJ_PUSH : KD_BJ_LOSE;
            back = t == dealer ? h->bet : 0;
        }
        net += (int64_t)back - (int64_t)h->bet;
        p->chips += (uint32_t)back;
    }
    r->net = net;
    s->house_net -= net;
    r->await = KD_BJ_IDLE;
}

/* The active hand is done: the next split hand takes its second card, or
 * the dealer plays (nothing to draw when every hand busted). */
static void hand_done(kd_bj_state *s, kd_bj_player *p)
{
    kd_bj_round *r = &p->round;
    if (r->active + 1 < r->n_hands) {
        r->active++;
        r->await = KD_BJ_CARD;
        return;
    }
    for (size_t i = 0; i < r->n_hands; i++)
        if (hand_total(&r->hands[i]) <= 21) {
            r->await = KD_BJ_DEALER;
            return;
        }
    settle(s, p);
}

/* Puts a revealed card where the round of `p` wants it and moves on. */
static void place_card(kd_bj_state *s, kd_bj_player *p, uint8_t card)
{
    kd_bj_round *r = &p->round;
    if (r->await == KD_BJ_DEAL) {
        kd_bj_hand *h = r->hands[0].n < 2 ? &r->hands[0] : &r->dealer;
        h->cards[h->n++] = card;
        if (r->dealer.n == 0)
            return;
        if (!kd_bj_natural(r))
            r->await = KD_BJ_PLAYER;
        else if (kd_bj_card_value(r->dealer.cards[0]) >= 10 || kd_bj_card_value(r->dealer.cards[0]) == 1)
            r->await = KD_BJ_DEALER; /* the dealer's second card decides the push */
        else
            settle(s, p);
    } else if (r->await == KD_BJ_CARD) {
        kd_bj_hand *h = &r->hands[r->active];
        h->cards[h->n++] = card;
        unsigned t = hand_total(h);
        if (h->split_aces || h->doubled || t >= 21 || h->n == KD_BJ_HAND_MAX)
            hand_done(s, p);
        else
            r->await = KD_BJ_PLAYER;
    } else {
        kd_bj_hand *d = &r->dealer;
        d->cards[d->n++] = card;
        if (kd_bj_natural(r) || hand_total(d) >= 17 || d->n == KD_BJ_HAND_MAX)
            settle(s, p);
    }
}

/* ------------------------------------------------------------ commands */

static kd_err bet(kd_bj_state *s, kd_bj_player *p, const kd_bj_command *c, const kd_block_meta *meta, kd_reject *rej)
{
    kd_bj_round *r = &p->round;
    if (r->await != KD_BJ_IDLE)
        return kd_reject_rule(rej, "round_in_progress", "the round is on: bet again when it is settled");
    if (p->rounds_played >= s->params.rounds)
        return kd_reject_rule(rej, "no_rounds_left", "this player has played all %u rounds of the table",
                              (unsigned)s->params.rounds);
    if (c->amount < s->params.min_bet || c->amount > s->params.max_bet)
        return kd_reject_rule(rej, "bet_out_of_range", "a bet of %u is outside the table's %u to %u",
                              (unsigned)c->amount, (unsigned)s->params.min_bet, (unsigned)s->params.max_bet);
    if (c->amount > p->chips)
        return kd_reject_rule(rej, "not_enough_chips", "a bet of %u with %u chips", (unsigned)c->amount,
                              (unsigned)p->chips);
    if (rounds_on(s) == 0 && s->shoe_left < s->params.decks * 13u)
        kd_bj_shoe_fill(s);
    memset(r, 0, sizeof *r);
    p->chips -= c->amount;
    p->rounds_played++;
    r->n_hands = 1;
    r->hands[0].bet = c->amount;
    r->await = KD_BJ_DEAL;
    kd_bj_pending_ask(s, &r->pending, c, meta->daa);
    return KD_OK;
}

/* hit, stand, double, split: the player's actions on the active hand. */
static kd_err act(kd_bj_state *s, kd_bj_player *p, const kd_bj_command *c, const kd_block_meta *meta, kd_reject *rej)
{
    kd_bj_round *r = &p->round;
    if (r->await == KD_BJ_IDLE)
        return kd_reject_rule(rej, "no_round", "no round is on: bet first");
    if (r->await != KD_BJ_PLAYER)
        return kd_reject_rule(rej, "awaiting_house", "the house owes a card; wait for its reveal or claim the round");
    kd_bj_hand *h = &r->hands[r->active];
    if (c->action == KD_BJ_CMD_DOUBLE) {
        if (h->n != 2)
            return kd_reject_rule(rej, "cannot_double", "double is on two cards; this hand has %u", (unsigned)h->n);
        if (p->chips < h->bet)
            return kd_reject_rule(rej, "not_enough_chips", "doubling %u needs %u more chips, there are %u",
                                  (unsigned)h->bet, (unsigned)h->bet, (unsigned)p->chips);
    } else if (c->action == KD_BJ_CMD_SPLIT) {
        if (h->n != 2 || kd_bj_card_value(h->cards[0]) != kd_bj_card_value(h->cards[1]))
            return kd_reject_rule(rej, "cannot_split", "split is on two cards of one value");
        if (r->n_hands >= KD_BJ_HANDS_MAX)
            return kd_reject_rule(rej, "cannot_split", "four hands already: no more splits");
        if (p->chips < h->bet)
            return kd_reject_rule(rej, "not_enough_chips", "splitting needs %u more chips, there are %u",
                                  (unsigned)h->bet, (unsigned)p->chips);
    }
    kd_bj_pending_ask(s, &r->pending, c, meta->daa);
    switch (c->action) {
    case KD_BJ_CMD_HIT:
        r->await = KD_BJ_CARD;
        break;
    case KD_BJ_CMD_STAND:
        hand_done(s, p);
        break;
    case KD_BJ_CMD_DOUBLE:
        p->chips -= h->bet;
        h->bet *= 2;
        h->doubled = 1;
        r->await = KD_BJ_CARD;
        break;
    default: { /* split: the second card opens a hand after this one */
        p->chips -= h->bet;
        memmove(&r->hands[r->active + 2], &r->hands[r->active + 1],
                (size_t)(r->n_hands - r->active - 1) * sizeof r->hands[0]);
        kd_bj_hand *n = &r->hands[r->active + 1];
        memset(n, 0, sizeof *n);
        n->cards[0] = h->cards[1];
        n->n = 1;
        n->bet = h->bet;
        h->cards[1] = 0;
        h->n = 1;
        h->split_aces = n->split_aces = h->cards[0] % 13u == 0;
        r->n_hands++;
        r->await = KD_BJ_CARD;
        break;
    }
    }
    return KD_OK;
}

kd_err kd_bj_reveal_seed(kd_bj_state *s, const uint8_t seed[KD_HASH_LEN], uint64_t daa, kd_reject *rej)
{
    int owed = kd_bj_owed(s);
    if (owed < 0)
        return kd_reject_rule(rej, "nothing_owed", "no round waits for a card");
    kd_bj_player *p = &s->players[owed];
    kd_fair_stream stream;
    uint8_t card = kd_bj_draw_card(s, kd_fair_stream_init(&stream, seed));
    p->round.pending.asked_daa = daa; /* the next card's deadline counts from here */
    s->last_reveal_daa = daa;
    place_card(s, p, card);
    return KD_OK;
}

/* The reveal answers the round whose ask came first (kd_bj_owed): the
 * house names no seat, so it cannot choose who gets the card. */
static kd_err reveal(kd_bj_state *s, const kd_bj_command *c, const kd_block_meta *meta, kd_reject *rej)
{
    int owed = kd_bj_owed(s);
    if (owed < 0)
        return kd_reject_rule(rej, "nothing_owed", "no round waits for a card");
    uint8_t seed[KD_HASH_LEN];
    kd_err err = kd_bj_draw_verify(s, &s->players[owed].round.pending, c->proof, seed, rej);
    return err ? err : kd_bj_reveal_seed(s, seed, meta->daa, rej);
}

static kd_err claim(kd_bj_state *s, kd_bj_player *p, const kd_block_meta *meta, kd_reject *rej)
{
    kd_bj_round *r = &p->round;
    if (r->await == KD_BJ_IDLE)
        return kd_reject_rule(rej, "no_round", "no round is on: nothing to claim");
    if (r->await == KD_BJ_PLAYER)
        return kd_reject_rule(rej, "nothing_owed", "the round waits for the player, not for the house");
    uint64_t deadline = kd_bj_deadline(s, (size_t)(p - s->players));
    if (meta->daa < deadline)
        return kd_reject_rule(rej, "too_early", "the house may reveal until DAA score %llu; this block is at %llu",
                              (unsigned long long)deadline, (unsigned long long)meta->daa);
    int64_t net = 0;
    for (size_t i = 0; i < r->n_hands; i++) {
        kd_bj_hand *h = &r->hands[i];
        if (hand_total(h) > 21) {
            h->outcome = KD_BJ_BUST;
            net -= h->bet;
            continue;
        }
        h->outcome = KD_BJ_CLAIMED;
        p->chips += 2 * h->bet;
        net += h->bet;
    }
    r->net = net;
    s->house_net -= net;
    r->await = KD_BJ_IDLE;
    return KD_OK;
}

kd_err kd_bj_apply(kd_bj_state *s, const kd_bj_command *c, const kd_pubkey *signer, const kd_block_meta *meta,
                   kd_bj_undo *undo, kd_reject *rej)
{
    if (kd_bj_over(s))
        return kd_reject_rule(rej, "game_over", "the game is over: no round is on and no player can bet");
    int seat = kd_bj_seat_of(s, signer);
    if (seat < 0)
        return kd_reject_rule(rej, "unauthorised",
                              signer ? "the signer is not a participant of this game"
                                     : "the command is unsigned; blackjack commands are signed");
    if ((c->action == KD_BJ_CMD_REVEAL) != (seat == KD_BJ_HOUSE))
        return kd_reject_rule(rej, "unauthorised",
                              seat == KD_BJ_HOUSE ? "the house only reveals cards" : "only the house reveals cards");
    kd_bj_state next;
    memcpy(&next, s, sizeof next);
    kd_bj_player *p = seat > 0 ? &next.players[seat - 1] : NULL;
    kd_err err;
    switch (c->action) {
    case KD_BJ_CMD_BET:
        err = bet(&next, p, c, meta, rej);
        break;
    case KD_BJ_CMD_REVEAL:
        err = reveal(&next, c, meta, rej);
        break;
    case KD_BJ_CMD_CLAIM:
        err = claim(&next, p, meta, rej);
        break;
    default:
        err = act(&next, p, c, meta, rej);
        break;
    }
    if (err)
        return err;
    next.seq++;
    memcpy(&undo->before, s, sizeof *s);
    memcpy(s, &next, sizeof *s);
    return KD_OK;
}

kd_err kd_bj_rollback(kd_bj_state *s, const kd_bj_undo *undo)
{
    const kd_bj_state *b = &undo->before;
    if (b->seq + 1 != s->seq || memcmp(&b->params, &s->params, sizeof b->params) != 0 ||
        memcmp(b->house.bytes, s->house.bytes, KD_PUBKEY_LEN) != 0 || b->n_players != s->n_players)
        return KD_ERR_DECODE;
    memcpy(s, b, sizeof *s);
    return KD_OK;
}
