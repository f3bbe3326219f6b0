/*
 * blackjack_view.c — blackjack's view (BjView, proto/blackjack.proto) and
 * its renderings: JSON, strategy context, text and the prompt. The view
 * carries the public state whole (the house's seed never enters the
 * state), so renderings rebuild the state from it and share the rules'
 * totals and legal moves.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blackjack.pb-c.h"
#include "episodes/blackjack/blackjack.h"
#include "episodes/wire_alloc.h"

static const char *const await_names[] = {"idle", "deal", "player", "card", "dealer"};
static const char *const outcome_names[] = {"open", "win", "blackjack", "push", "lose", "bust", "claimed"};

void kd_bj_card_text(uint8_t card, char out[4])
{
    static const char *const ranks[13] = {"A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"};
    snprintf(out, 4, "%s%c", ranks[card % 13u], "CDHS"[(card / 13u) & 3u]);
}

/* ------------------------------------------------------------- encode */

static void hand_msg(const kd_bj_hand *h, Kdapp__BjHand *m, uint32_t *cards)
{
    for (size_t i = 0; i < h->n; i++)
        cards[i] = h->cards[i];
    m->n_cards = h->n;
    m->cards = cards;
    m->bet = h->bet;
    m->doubled = h->doubled;
    m->split_aces = h->split_aces;
    m->outcome = h->outcome;
}

kd_err kd_bj_view_encode(const void *state_ptr, int seat, kd_buf *out)
{
    (void)seat; /* everything in the state is public */
    const kd_bj_state *s = state_ptr;
    Kdapp__BjParams params = KDAPP__BJ_PARAMS__INIT;
    params.decks = s->params.decks;
    params.timeout = s->params.timeout;
    params.stack = s->params.stack;
    params.min_bet = s->params.min_bet;
    params.max_bet = s->params.max_bet;
    params.rounds = s->params.rounds;
    params.reveal_depth = s->params.reveal_depth;
    params.draw_input = s->params.draw_input;
    params.house_key.len = KD_PUBKEY_LEN;
    params.house_key.data = (uint8_t *)s->params.house_key.bytes;
    params.house_binding.len = KD_SECRET_BINDING_LEN;
    params.house_binding.data = (uint8_t *)s->params.house_binding;
    Kdapp__BjSeat seats[KD_BJ_MAX_PLAYERS], *seat_ptrs[KD_BJ_MAX_PLAYERS];
    Kdapp__BjHand hands[KD_BJ_MAX_PLAYERS][KD_BJ_HANDS_MAX + 1], *hand_ptrs[KD_BJ_MAX_PLAYERS][KD_BJ_HANDS_MAX];
    uint32_t cards[KD_BJ_MAX_PLAYERS][KD_BJ_HANDS_MAX + 1][KD_BJ_HAND_MAX], shoe[KD_BJ_CARDS];
    for (size_t i = 0; i < s->n_players; i++) {
        const kd_bj_player *p = &s->players[i];
        const kd_bj_round *r = &p->round;
        Kdapp__BjSeat *m = &seats[i];
        kdapp__bj_seat__init(m);
        seat_ptrs[i] = m;
        m->seat = (uint32_t)i + 1;
        m->chips = p->chips;
        m->rounds_played = p->rounds_played;
        m->await = r->await;
        m->active = r->active;
        m->net = r->net;
        m->can_bet = kd_bj_can_bet(s, i);
        if (r->await == KD_BJ_DEAL || r->await == KD_BJ_CARD || r->await == KD_BJ_DEALER) {
            m->claim_after_daa = kd_bj_deadline(s, i);
            m->asked = r->pending.asked;
            m->entropy.len = KD_FAIR_ASK_LEN;
            m->entropy.data = (uint8_t *)r->pending.ask;
        }
        for (size_t h = 0; h <= r->n_hands; h++) {
            kdapp__bj_hand__init(&hands[i][h]);
            hand_msg(h < r->n_hands ? &r->hands[h] : &r->dealer, &hands[i][h], cards[i][h]);
            if (h < r->n_hands)
                hand_ptrs[i][h] = &hands[i][h];
        }
        m->n_hands = r->n_hands;
        m->hands = hand_ptrs[i];
        m->dealer = &hands[i][r->n_hands];
    }
    for (size_t c = 0; c < KD_BJ_CARDS; c++)
        shoe[c] = s->shoe[c];
    Kdapp__BjView v = KDAPP__BJ_VIEW__INIT;
    v.params = &params;
    v.n_seats = s->n_players;
    v.seats = seat_ptrs;
    v.shoe_left = s->shoe_left;
    v.draws = s->draws;
    v.last_reveal_daa = s->last_reveal_daa;
    v.house_net = s->house_net;
    v.commands = s->seq;
    v.over = kd_bj_over(s);
    v.n_shoe = KD_BJ_CARDS;
    v.shoe = shoe;
    return kd_pb_append(&v.base, out);
}

/* ------------------------------------------------------------- decode */

static int hand_from(const Kdapp__BjHand *m, kd_bj_hand *h)
{
    if (!m)
        return 0;
    if (m->n_cards > KD_BJ_HAND_MAX || m->outcome > KD_BJ_CLAIMED)
        return -1;
    for (size_t i = 0; i < m->n_cards; i++) {
        if (m->cards[i] >= KD_BJ_CARDS)
            return -1;
        h->cards[i] = (uint8_t)m->cards[i];
    }
    h->n = (uint8_t)m->n_cards;
    h->bet = m->bet;
    h->doubled = m->doubled;
    h->split_aces = m->split_aces;
    h->outcome = (uint8_t)m->outcome;
    return 0;
}

static int seat_from(const Kdapp__BjSeat *m, kd_bj_player *p)
{
    kd_bj_round *r = &p->round;
    if (m->await > KD_BJ_DEALER || m->n_hands > KD_BJ_HANDS_MAX || (m->n_hands && m->active >= m->n_hands) ||
        (m->entropy.len != 0 && m->entropy.len != KD_FAIR_ASK_LEN))
        return -1;
    r->pending.asked = m->asked;
    if (m->entropy.len)
        memcpy(r->pending.ask, m->entropy.data, KD_FAIR_ASK_LEN);
    p->chips = m->chips;
    p->rounds_played = m->rounds_played;
    r->await = (uint8_t)m->await;
    r->active = (uint8_t)m->active;
    r->n_hands = (uint8_t)m->n_hands;
    r->net = m->net;
    for (size_t h = 0; h < m->n_hands; h++)
        if (hand_from(m->hands[h], &r->hands[h]) != 0)
            return -1;
    return hand_from(m->dealer, &r->dealer);
}

/* The state of the view bytes, and each seat's deadline (0: none). */
static kd_err view_decode(const uint8_t *data, size_t len, kd_bj_state *s, uint64_t claim_after[KD_BJ_MAX_PLAYERS])
{
    memset(s, 0, sizeof *s);
    memset(claim_after, 0, KD_BJ_MAX_PLAYERS * sizeof claim_after[0]);
    Kdapp__BjView *v = data && len ? kdapp__bj_view__unpack(NULL, len, data) : NULL;
    kd_err err = KD_ERR_DECODE;
    if (!v || !v->params || v->n_seats < 1 || v->n_seats > KD_BJ_MAX_PLAYERS || v->n_shoe != KD_BJ_CARDS ||
        v->params->house_key.len != KD_PUBKEY_LEN || v->params->house_binding.len != KD_SECRET_BINDING_LEN)
        goto done;
    kd_bj_params *p = &s->params;
    p->decks = v->params->decks;
    p->timeout = v->params->timeout;
    p->stack = v->params->stack;
    p->min_bet = v->params->min_bet;
    p->max_bet = v->params->max_bet;
    p->rounds = v->params->rounds;
    p->reveal_depth = v->params->reveal_depth;
    p->draw_input = v->params->draw_input ? v->params->draw_input : KD_FAIR_DRAW_V2;
    memcpy(p->house_key.bytes, v->params->house_key.data, KD_PUBKEY_LEN);
    memcpy(p->house_binding, v->params->house_binding.data, KD_SECRET_BINDING_LEN);
    s->n_players = (uint8_t)v->n_seats;
    for (size_t i = 0; i < v->n_seats; i++) {
        if (seat_from(v->seats[i], &s->players[i]) != 0)
            goto done;
        claim_after[i] = v->seats[i]->claim_after_daa;
    }
    for (size_t c = 0; c < KD_BJ_CARDS; c++) {
        if (v->shoe[c] > 255)
            goto done;
        s->shoe[c] = (uint8_t)v->shoe[c];
    }
    s->shoe_left = (uint16_t)v->shoe_left;
    s->draws = v->draws;
    s->last_reveal_daa = v->last_reveal_daa;
    s->house_net = v->house_net;
    s->seq = v->commands;
    err = KD_OK;
done:
    kdapp__bj_view__free_unpacked(v, NULL);
    if (err)
        memset(s, 0, sizeof *s);
    return err;
}

kd_err kd_bj_view_state(const uint8_t *view, size_t len, kd_bj_state *state)
{
    uint64_t claim_after[KD_BJ_MAX_PLAYERS];
    return view_decode(view, len, state, claim_after);
}

/* --------------------------------------------------------------- JSON */

static json_t *cards_json(const kd_bj_hand *h)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < h->n; i++) {
        char t[4];
        kd_bj_card_text(h->cards[i], t);
        json_array_append_new(a, json_string(t));
    }
    return a;
}

static json_t *hand_json(const kd_bj_hand *h, int with_bet)
{
    int soft = 0;
    unsigned total = kd_bj_total(h->cards, h->n, &soft);
    json_t *j = json_pack("{s:o, s:i, s:b}", "cards", cards_json(h), "total", (int)total, "soft", soft);
    if (j && with_bet) {
        json_object_set_new(j, "bet", json_integer(h->bet));
        json_object_set_new(j, "doubled", json_boolean(h->doubled));
        json_object_set_new(j, "outcome", json_string(outcome_names[h->outcome]));
    }
    return j;
}

static json_t *seat_json(const kd_bj_state *s, size_t i, uint64_t claim_after)
{
    const kd_bj_player *p = &s->players[i];
    const kd_bj_round *r = &p->round;
    json_t *hands = json_array();
    for (size_t h = 0; hands && h < r->n_hands; h++)
        json_array_append_new(hands, hand_json(&r->hands[h], 1));
    char name[16];
    snprintf(name, sizeof name, "player%zu", i + 1);
    return json_pack("{s:i, s:s, s:I, s:I, s:s, s:o, s:i, s:o, s:o, s:I, s:b}", "seat", (int)i + 1, "name", name,
                     "chips", (json_int_t)p->chips, "rounds_played", (json_int_t)p->rounds_played, "await",
                     await_names[r->await], "hands", hands, "active_hand", (int)r->active, "dealer",
                     hand_json(&r->dealer, 0), "claim_after_daa",
                     claim_after ? json_integer((json_int_t)claim_after) : json_null(), "last_net", (json_int_t)r->net,
                     "can_bet", kd_bj_can_bet(s, i));
}

/* {"seat", "draw", "ask_sha256"} of the draw the house's next reveal
 * answers ("entropy" for draw input 2), or null. */
static json_t *owed_json(const kd_bj_state *s)
{
    int owed = kd_bj_owed(s);
    if (owed < 0)
        return json_null();
    char name[24], ask[2 * KD_FAIR_ASK_LEN + 1];
    snprintf(name, sizeof name, "player%d", owed + 1);
    kd_hex_encode(s->players[owed].round.pending.ask, KD_FAIR_ASK_LEN, ask);
    return json_pack("{s:s, s:I, s:s}", "seat", name, "draw", (json_int_t)s->draws + 1,
                     s->params.draw_input == KD_FAIR_DRAW_V2 ? "entropy" : "ask_sha256", ask);
}

static json_t *view_json_of(const kd_bj_state *s, const uint64_t *claim_after)
{
    json_t *seats = json_array();
    for (size_t i = 0; seats && i < s->n_players; i++)
        json_array_append_new(seats, seat_json(s, i, claim_after[i]));
    char key[2 * KD_PUBKEY_LEN + 1], binding[2 * KD_SECRET_BINDING_LEN + 1];
    kd_hex_encode(s->params.house_key.bytes, KD_PUBKEY_LEN, key);
    kd_hex_encode(s->params.house_binding, KD_SECRET_BINDING_LEN, binding);
    return json_pack("{s:o, s:{s:i, s:I, s:I, s:I, s:I, s:I}, s:{s:I, s:I}, s:{s:s, s:s, s:I, s:I, s:I, s:o}, s:I, "
                     "s:I, s:b}",
                     "players", seats, "table", "decks", (int)s->params.decks, "min_bet", (json_int_t)s->params.min_bet,
                     "max_bet", (json_int_t)s->params.max_bet, "stack", (json_int_t)s->params.stack, "rounds",
                     (json_int_t)s->params.rounds, "timeout_daa", (json_int_t)s->params.timeout, "shoe", "left",
                     (json_int_t)s->shoe_left, "of", (json_int_t)(s->params.decks * KD_BJ_CARDS), "house", "key", key,
                     "binding", binding, "draws", (json_int_t)s->draws, "draw_input", (json_int_t)s->params.draw_input,
                     "reveal_depth", (json_int_t)s->params.reveal_depth, "owed", owed_json(s), "house_net",
                     (json_int_t)s->house_net, "commands", (json_int_t)s->seq, "over", kd_bj_over(s));
}

json_t *kd_bj_view_json(const uint8_t *view, size_t len)
{
    kd_bj_state s;
    uint64_t claim_after[KD_BJ_MAX_PLAYERS];
    if (view_decode(view, len, &s, claim_after) != KD_OK)
        return NULL;
    return view_json_of(&s, claim_after);
}

/* {"player1": "hit", ...}: basic strategy's action for each round that
 * waits for its player (blackjack_bot.c). */
static json_t *advice_json(const kd_bj_state *s)
{
    json_t *a = json_object();
    for (size_t i = 0; a && i < s->n_players; i++) {
        const kd_bj_player *p = &s->players[i];
        const kd_bj_round *r = &p->round;
        if (r->await != KD_BJ_PLAYER)
            continue;
        const kd_bj_hand *h = &r->hands[r->active];
        int can_double = h->n == 2 && p->chips >= h->bet;
        int can_split = can_double && r->n_hands < KD_BJ_HANDS_MAX;
        char name[16];
        snprintf(name, sizeof name, "player%zu", i + 1);
        kd_bj_action act = kd_bj_basic_strategy(h->cards, h->n, r->dealer.cards[0], can_double, can_split);
        json_object_set_new(a, name, json_string(kd_bj_action_names[act]));
    }
    return a;
}

json_t *kd_bj_strategy_context(const uint8_t *view, size_t len)
{
    kd_bj_state s;
    uint64_t claim_after[KD_BJ_MAX_PLAYERS];
    if (view_decode(view, len, &s, claim_after) != KD_OK)
        return NULL;
    json_t *j = view_json_of(&s, claim_after);
    if (j && (json_object_set_new(j, "rules", json_string(kd_bj_rules_text)) != 0 ||
              json_object_set_new(j, "game", json_string(KD_BJ_TYPE_NAME)) != 0 ||
              json_object_set_new(j, "basic_strategy", advice_json(&s)) != 0)) {
        json_decref(j);
        return NULL;
    }
    return j;
}

/* --------------------------------------------------------------- text */

static kd_err put_hand(kd_buf *out, const kd_bj_hand *h)
{
    kd_err err = kd_buf_appendf(out, "[");
    for (size_t i = 0; !err && i < h->n; i++) {
        char t[4];
        kd_bj_card_text(h->cards[i], t);
        err = kd_buf_appendf(out, "%s%s", i ? " " : "", t);
    }
    int soft = 0;
    unsigned total = kd_bj_total(h->cards, h->n, &soft);
    return err ? err : kd_buf_appendf(out, "] %s%u", soft ? "soft " : "", total);
}

static kd_err put_position(const kd_bj_state *s, const uint64_t *claim_after, kd_buf *out)
{
    kd_err err = kd_buf_appendf(out, "shoe %u of %u cards | %u cards drawn | house %+lld%s\n", (unsigned)s->shoe_left,
                                (unsigned)(s->params.decks * KD_BJ_CARDS), (unsigned)s->draws, (long long)s->house_net,
                                kd_bj_over(s) ? " | game over" : "");
    for (size_t i = 0; !err && i < s->n_players; i++) {
        const kd_bj_player *p = &s->players[i];
        const kd_bj_round *r = &p->round;
        err = kd_buf_appendf(out, "player%zu: %u chips, round %u of %u, %s\n", i + 1, (unsigned)p->chips,
                             (unsigned)p->rounds_played, (unsigned)s->params.rounds, await_names[r->await]);
        if (!err && r->n_hands) {
            err = kd_buf_appendf(out, "  dealer ");
            if (!err)
                err = put_hand(out, &r->dealer);
            for (size_t h = 0; !err && h < r->n_hands; h++) {
                err = kd_buf_appendf(out, "\n  hand %zu ", h + 1);
                if (!err)
                    err = put_hand(out, &r->hands[h]);
                if (!err)
                    err = kd_buf_appendf(out, ", bet %u%s, %s%s", (unsigned)r->hands[h].bet,
                                         r->hands[h].doubled ? " doubled" : "", outcome_names[r->hands[h].outcome],
                                         r->await == KD_BJ_PLAYER && h == r->active ? "  <- to act" : "");
            }
            if (!err && r->await == KD_BJ_IDLE)
                err = kd_buf_appendf(out, "\n  settled: %+lld", (long long)r->net);
            if (!err && claim_after[i])
                err = kd_buf_appendf(out, "\n  the house owes a card; claimable from DAA score %llu",
                                     (unsigned long long)claim_after[i]);
            if (!err)
                err = kd_buf_appendf(out, "\n");
        }
    }
    return err;
}

kd_err kd_bj_render_text(const uint8_t *view, size_t len, unsigned flags, kd_buf *out)
{
    (void)flags;
    kd_bj_state s;
    uint64_t claim_after[KD_BJ_MAX_PLAYERS];
    if (view_decode(view, len, &s, claim_after) != KD_OK)
        return KD_ERR_DECODE;
    return put_position(&s, claim_after, out);
}

kd_err kd_bj_prompt(const uint8_t *view, size_t len, uint32_t episode_id, int seat, kd_buf *out)
{
    kd_bj_state s;
    uint64_t claim_after[KD_BJ_MAX_PLAYERS];
    if (view_decode(view, len, &s, claim_after) != KD_OK)
        return KD_ERR_DECODE;
    if (seat < 0 || seat > s.n_players)
        return KD_ERR_INVALID_ARG;
    kd_legal_moves moves;
    kd_legal_moves_init(&moves);
    kd_err err = kd_buf_appendf(out, "You play blackjack episode %u as %s. %s\n\n", (unsigned)episode_id,
                                seat ? "a player" : "the house", kd_bj_rules_text);
    if (!err && seat)
        err = kd_buf_appendf(out, "You are player%d (seat %d).\n", seat, seat);
    if (!err)
        err = put_position(&s, claim_after, out);
    if (!err)
        err = kd_bj_legal_moves(&s, seat, &moves);
    if (!err && moves.count) {
        err = kd_buf_appendf(out, "\nYour legal commands (answer with exactly one of these JSON objects, nothing "
                                  "else; you may put 64 hex digits of your own in \"entropy\"):\n");
        for (size_t i = 0; !err && i < moves.count; i++) {
            json_t *j = kd_blackjack_type.command_to_json(moves.moves[i].command, moves.moves[i].command_len);
            char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
            err = text ? kd_buf_appendf(out, "%s\n", text) : KD_ERR_NOMEM;
            free(text);
            json_decref(j);
        }
    } else if (!err) {
        err = kd_buf_appendf(out, "\nIt is not your move.\n");
    }
    kd_legal_moves_fini(&moves);
    return err;
}
