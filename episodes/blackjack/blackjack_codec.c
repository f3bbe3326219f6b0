/*
 * blackjack_codec.c — blackjack's state and undo encodings and the
 * kd_episode_ops table. One walk over the state (walk_state) both writes
 * and reads, so the two directions cannot drift apart; the reader then
 * checks every range the rules rely on.
 *
 * State bytes, big-endian integers: version (2: draw input 2, the
 * episodes created before issue 37, whose bytes stay as they were; 3: draw
 * input 3), params (6 x u32: decks, timeout, stack, min_bet, max_bet,
 * rounds; version 3: reveal_depth u32; the house's VRF key 33, its binding
 * 32), the house's signing key 33, n_players, shoe 52, shoe_left u16,
 * episode id u32, draws u32, last_reveal_daa u64, seq u64, house_net i64,
 * then per player (n_players of them): key 33, chips u32, rounds_played
 * u32, and its round: n_hands, active, await, ask 32 (the pending draw's
 * input ends with it), asked_daa u64, asked u64, version 3: ask_daa u64,
 * net i64, the dealer's hand and n_hands hands, each: n, n cards, doubled,
 * split_aces, outcome, bet u32. The undo is the state before, in the same
 * bytes.
 */
#include <string.h>

#include "episodes/blackjack/blackjack.h"
#include "episodes/house.h"
#include "episodes/ops_adapter.h"

#define STATE_MAX 4096

typedef struct {
    uint8_t *buf; /* writing: STATE_MAX bytes */
    const uint8_t *in;
    size_t len, pos;
    int reading, bad;
} walker;

static void io_bytes(walker *w, void *v, size_t n)
{
    if (w->bad || (w->reading ? w->pos + n > w->len : w->pos + n > STATE_MAX)) {
        w->bad = 1;
        return;
    }
    if (w->reading)
        memcpy(v, w->in + w->pos, n);
    else
        memcpy(w->buf + w->pos, v, n);
    w->pos += n;
}

static void io_u8(walker *w, uint8_t *v) { io_bytes(w, v, 1); }

static void io_u64(walker *w, uint64_t *v)
{
    uint8_t b[8];
    kd_put_u64be(b, *v);
    io_bytes(w, b, 8);
    if (w->reading && !w->bad)
        *v = kd_get_u64be(b);
}

static void io_u32(walker *w, uint32_t *v)
{
    uint64_t x = *v;
    uint8_t b[4];
    kd_put_u32be(b, (uint32_t)x);
    io_bytes(w, b, 4);
    if (w->reading && !w->bad)
        *v = kd_get_u32be(b);
}

static void io_u16(walker *w, uint16_t *v)
{
    uint8_t b[2] = {(uint8_t)(*v >> 8), (uint8_t)*v};
    io_bytes(w, b, 2);
    if (w->reading && !w->bad)
        *v = (uint16_t)(b[0] << 8 | b[1]);
}

static void io_i64(walker *w, int64_t *v)
{
    uint64_t x = (uint64_t)*v;
    io_u64(w, &x);
    if (w->reading)
        *v = (int64_t)x;
}

static void walk_hand(walker *w, kd_bj_hand *h)
{
    io_u8(w, &h->n);
    if (h->n > KD_BJ_HAND_MAX)
        w->bad = 1;
    else
        io_bytes(w, h->cards, h->n);
    io_u8(w, &h->doubled);
    io_u8(w, &h->split_aces);
    io_u8(w, &h->outcome);
    io_u32(w, &h->bet);
}

static void walk_player(walker *w, kd_bj_player *p, int v3)
{
    kd_bj_round *r = &p->round;
    io_bytes(w, p->key.bytes, KD_PUBKEY_LEN);
    io_u32(w, &p->chips);
    io_u32(w, &p->rounds_played);
    io_u8(w, &r->n_hands);
    io_u8(w, &r->active);
    io_u8(w, &r->await);
    io_bytes(w, r->pending.ask, KD_FAIR_ASK_LEN);
    io_u64(w, &r->pending.asked_daa);
    io_u64(w, &r->pending.asked);
    if (v3)
        io_u64(w, &r->pending.ask_daa);
    io_i64(w, &r->net);
    walk_hand(w, &r->dealer);
    if (r->n_hands > KD_BJ_HANDS_MAX)
        w->bad = 1;
    for (size_t i = 0; !w->bad && i < r->n_hands; i++)
        walk_hand(w, &r->hands[i]);
}

static void walk_state(walker *w, kd_bj_state *s)
{
    kd_bj_params *p = &s->params;
    uint8_t version = KD_BJ_VERSION + (p->draw_input != KD_FAIR_DRAW_V2);
    io_u8(w, &version);
    if (version != KD_BJ_VERSION && version != KD_BJ_VERSION + 1)
        w->bad = 1;
    int v3 = version == KD_BJ_VERSION + 1;
    p->draw_input = v3 ? KD_FAIR_DRAW_V3 : KD_FAIR_DRAW_V2;
    io_u32(w, &p->decks);
    io_u32(w, &p->timeout);
    io_u32(w, &p->stack);
    io_u32(w, &p->min_bet);
    io_u32(w, &p->max_bet);
    io_u32(w, &p->rounds);
    if (v3)
        io_u32(w, &p->reveal_depth);
    io_bytes(w, p->house_key.bytes, KD_PUBKEY_LEN);
    io_bytes(w, p->house_binding, KD_SECRET_BINDING_LEN);
    io_bytes(w, s->house.bytes, KD_PUBKEY_LEN);
    io_u8(w, &s->n_players);
    io_bytes(w, s->shoe, KD_BJ_CARDS);
    io_u16(w, &s->shoe_left);
    io_u32(w, &s->episode_id);
    io_u32(w, &s->draws);
    io_u64(w, &s->last_reveal_daa);
    io_u64(w, &s->seq);
    io_i64(w, &s->house_net);
    if (s->n_players < 1 || s->n_players > KD_BJ_MAX_PLAYERS)
        w->bad = 1;
    for (size_t i = 0; !w->bad && i < s->n_players; i++)
        walk_player(w, &s->players[i], v3);
}

/* The ranges the rules rely on (indexes, counts, enums). */
static int plausible(const kd_bj_state *s)
{
    const kd_bj_params *p = &s->params;
    if (p->decks < 1 || p->decks > KD_BJ_DECKS_MAX || p->min_bet < 1 || p->min_bet > p->max_bet ||
        p->timeout < KD_DEADLINE_MIN || p->reveal_depth > KD_HOUSE_DEPTH_MAX ||
        (p->house_key.bytes[0] != 0x02 && p->house_key.bytes[0] != 0x03))
        return 0;
    unsigned left = 0;
    for (size_t c = 0; c < KD_BJ_CARDS; c++) {
        if (s->shoe[c] > p->decks)
            return 0;
        left += s->shoe[c];
    }
    if (left != s->shoe_left)
        return 0;
    for (size_t i = 0; i < s->n_players; i++) {
        const kd_bj_round *r = &s->players[i].round;
        if (r->await > KD_BJ_DEALER || (r->await != KD_BJ_IDLE && (r->n_hands < 1 || r->active >= r->n_hands)) ||
            (r->await != KD_BJ_IDLE && r->pending.asked >= s->seq))
            return 0;
        for (size_t h = 0; h < r->n_hands; h++)
            for (size_t c = 0; c < r->hands[h].n; c++)
                if (r->hands[h].cards[c] >= KD_BJ_CARDS || r->hands[h].outcome > KD_BJ_CLAIMED)
                    return 0;
        for (size_t c = 0; c < r->dealer.n; c++)
            if (r->dealer.cards[c] >= KD_BJ_CARDS)
                return 0;
    }
    return 1;
}

kd_err kd_bj_state_encode(const kd_bj_state *state, kd_buf *out)
{
    uint8_t buf[STATE_MAX];
    kd_bj_state copy;
    memcpy(&copy, state, sizeof copy);
    walker w = {.buf = buf};
    walk_state(&w, &copy);
    if (w.bad)
        return KD_ERR_INVALID_ARG;
    return kd_buf_append(out, buf, w.pos);
}

kd_err kd_bj_state_decode(const uint8_t *data, size_t len, kd_bj_state *state)
{
    memset(state, 0, sizeof *state);
    if (!data)
        return KD_ERR_DECODE;
    walker w = {.in = data, .len = len, .reading = 1};
    walk_state(&w, state);
    if (w.bad || w.pos != len || !plausible(state)) {
        memset(state, 0, sizeof *state);
        return KD_ERR_DECODE;
    }
    return KD_OK;
}

/* -------------------------------------------------------- ops table */

KD_OPS_PARAMS_CODEC(bj);
KD_OPS_INIT_EPISODE(bj);

static kd_err ops_execute(void *state, const uint8_t *command, size_t len, const kd_pubkey *signer,
                          const kd_block_meta *meta, void *undo, kd_reject *rej)
{
    kd_bj_command cmd;
    kd_err err = kd_bj_command_decode(command, len, &cmd, rej);
    return err ? err : kd_bj_apply(state, &cmd, signer, meta, undo, rej);
}

KD_OPS_ROLLBACK(bj);
KD_OPS_STATE_CODEC(bj);

/* An undo is the whole state before the command. */
static kd_err ops_encode_undo(const void *undo, kd_buf *out)
{
    return kd_bj_state_encode(&((const kd_bj_undo *)undo)->before, out);
}

static kd_err ops_decode_undo(const uint8_t *data, size_t len, void *undo)
{
    return kd_bj_state_decode(data, len, &((kd_bj_undo *)undo)->before);
}

const kd_episode_ops kd_bj_ops = {
    .type_name = KD_BJ_TYPE_NAME,
    KD_OPS_MEMBERS(bj),
};
