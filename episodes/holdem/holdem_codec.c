/*
 * holdem_codec.c — hold'em's state and undo encodings.
 *
 * State, in this order, integers big-endian: version (1: protocol 1,
 * KD_HM_STATE_LEN_1 bytes; 2: protocol 2, KD_HM_STATE_LEN_2); players (2 x 33); bindings (2 x 32); stack, small_blind,
 * big_blind, hand_limit (u32 each); timeout (u64); pot_only (1); since
 * (u64); hand, move_count (u32); stacks, bets, put (2 x u32 each);
 * min_raise (u32); last_won (2 x i32); phase, step, street, button, to_act,
 * acted[2], folded, disputer, winner, end, result, cheats, revealed (1 byte
 * each); opened (2 x u16); board (5); shown (2 x 2); values (2 x u32);
 * decks (2 x 52 x 33); locked, commits (2 x 9 x 33 each); keys (2 x 9 x 32);
 * secrets (2 x 32); then, version 2 only: episode (u32), the seats' deck
 * keys (2 x 33), aggressor, first_show (1 byte each), last_board (5),
 * last_shown (2 x 2), last_values (2 x u32). One walk over the fields both
 * writes and reads, so the two directions cannot drift apart. Undo:
 * version, the state before, the SHA-256 of the state after.
 *
 * Protocol 1's bytes are exactly those it always had: a store holding its
 * matches decodes, re-encodes and hashes them as before.
 */
#include <string.h>

#include "episodes/holdem/holdem.h"

typedef struct {
    uint8_t *b;
    size_t n;
    int reading;
} cursor;

static void field(cursor *c, void *v, size_t len)
{
    if (c->reading)
        memcpy(v, c->b + c->n, len);
    else
        memcpy(c->b + c->n, v, len);
    c->n += len;
}

static void u32(cursor *c, uint32_t *v)
{
    if (c->reading)
        *v = kd_get_u32be(c->b + c->n);
    else
        kd_put_u32be(c->b + c->n, *v);
    c->n += 4;
}

static void u64(cursor *c, uint64_t *v)
{
    if (c->reading)
        *v = kd_get_u64be(c->b + c->n);
    else
        kd_put_u64be(c->b + c->n, *v);
    c->n += 8;
}

static void u16(cursor *c, uint16_t *v)
{
    if (c->reading)
        *v = (uint16_t)(c->b[c->n] << 8 | c->b[c->n + 1]);
    else {
        c->b[c->n] = (uint8_t)(*v >> 8);
        c->b[c->n + 1] = (uint8_t)*v;
    }
    c->n += 2;
}

/* The encoding version of a state: its protocol's. */
static uint8_t version_of(const kd_hm_state *s) { return s->params.protocol >= 2 ? KD_HM_VERSION_2 : KD_HM_VERSION; }

static size_t length_of(uint8_t version) { return version == KD_HM_VERSION_2 ? KD_HM_STATE_LEN_2 : KD_HM_STATE_LEN_1; }

/* `version`: written (writing), or read before the walk (reading). */
static void walk(cursor *c, kd_hm_state *s, uint8_t version)
{
    field(c, &version, 1);
    field(c, s->players, sizeof s->players);
    field(c, s->params.bindings, sizeof s->params.bindings);
    u32(c, &s->params.stack);
    u32(c, &s->params.small_blind);
    u32(c, &s->params.big_blind);
    u32(c, &s->params.hand_limit);
    u64(c, &s->params.timeout);
    field(c, &s->params.pot_only, 1);
    u64(c, &s->since);
    u32(c, &s->hand);
    u32(c, &s->move_count);
    for (int i = 0; i < 2; i++)
        u32(c, &s->stacks[i]);
    for (int i = 0; i < 2; i++)
        u32(c, &s->bets[i]);
    for (int i = 0; i < 2; i++)
        u32(c, &s->put[i]);
    u32(c, &s->min_raise);
    for (int i = 0; i < 2; i++)
        u32(c, (uint32_t *)&s->last_won[i]);
    uint8_t *bytes[] = {&s->phase,  &s->step,     &s->street, &s->button, &s->to_act, &s->acted[0], &s->acted[1],
                        &s->folded, &s->disputer, &s->winner, &s->end,    &s->result, &s->cheats,   &s->revealed};
    for (size_t i = 0; i < sizeof bytes / sizeof bytes[0]; i++)
        field(c, bytes[i], 1);
    for (int i = 0; i < 2; i++)
        u16(c, &s->opened[i]);
    field(c, s->board, sizeof s->board);
    field(c, s->shown, sizeof s->shown);
    for (int i = 0; i < 2; i++)
        u32(c, &s->values[i]);
    field(c, s->deck, sizeof s->deck);
    field(c, s->locked, sizeof s->locked);
    field(c, s->commits, sizeof s->commits);
    field(c, s->keys, sizeof s->keys);
    field(c, s->secrets, sizeof s->secrets);
    if (version != KD_HM_VERSION_2)
        return;
    u32(c, &s->episode);
    field(c, s->xkeys, sizeof s->xkeys);
    field(c, &s->aggressor, 1);
    field(c, &s->first_show, 1);
    field(c, s->last_board, sizeof s->last_board);
    field(c, s->last_shown, sizeof s->last_shown);
    for (int i = 0; i < 2; i++)
        u32(c, &s->last_values[i]);
}

/* Writes the state's bytes into b (KD_HM_STATE_LEN bytes of room);
 * returns their length. */
static size_t pack(const kd_hm_state *s, uint8_t b[KD_HM_STATE_LEN])
{
    cursor c = {b, 0, 0};
    walk(&c, (kd_hm_state *)s, version_of(s)); /* writing only reads the state */
    return c.n;
}

kd_err kd_hm_state_encode(const kd_hm_state *state, kd_buf *out)
{
    uint8_t b[KD_HM_STATE_LEN];
    return kd_buf_append(out, b, pack(state, b));
}

void kd_hm_state_hash(const kd_hm_state *state, uint8_t out[KD_HASH_LEN])
{
    uint8_t b[KD_HM_STATE_LEN];
    kd_sha256(b, pack(state, b), out);
}

/* Whether the fields hold together (the decoder's checks). */
static int consistent(const kd_hm_state *s)
{
    kd_reject rej;
    kd_hm_params p = s->params;
    if (kd_hm_params_resolve(&p, &rej) != KD_OK || p.stack != s->params.stack ||
        p.small_blind != s->params.small_blind || p.big_blind != s->params.big_blind ||
        p.timeout != s->params.timeout || p.pot_only > 1 || p.protocol != s->params.protocol)
        return 0; /* stored params are resolved ones */
    if (s->phase > KD_HM_OVER || s->step > 1 || s->street > KD_HM_SHOWDOWN || s->button > 1 ||
        (s->to_act > 1 && s->to_act != KD_HM_NO_SEAT) || s->acted[0] > 1 || s->acted[1] > 1 ||
        (s->folded > 1 && s->folded != KD_HM_NO_SEAT) || (s->disputer > 2 && s->disputer != KD_HM_NO_SEAT) ||
        (s->winner > 1 && s->winner != KD_HM_NO_SEAT) || s->end > KD_HM_END_CHEAT || s->result > KD_HM_RESULT_MUCK ||
        s->cheats > 3 || s->revealed > 3 || s->hand < 1 || s->opened[0] >= 1u << KD_HM_DEALT ||
        s->opened[1] >= 1u << KD_HM_DEALT)
        return 0;
    uint64_t chips = (uint64_t)s->stacks[0] + s->stacks[1] + s->put[0] + s->put[1];
    if (chips != 2ull * s->params.stack || s->bets[0] > s->put[0] || s->bets[1] > s->put[1])
        return 0;
    for (int i = 0; i < KD_HM_BOARD; i++)
        if (s->board[i] >= KD_HM_CARDS && s->board[i] != KD_HM_NO_CARD)
            return 0;
    for (int i = 0; i < 4; i++)
        if (s->shown[i / 2][i % 2] >= KD_HM_CARDS && s->shown[i / 2][i % 2] != KD_HM_NO_CARD)
            return 0;
    for (int i = 0; i < 2; i++)
        if (s->players[i].bytes[0] != 0x02 && s->players[i].bytes[0] != 0x03)
            return 0;
    if (s->params.protocol < 2)
        return 1;
    if ((s->aggressor > 1 && s->aggressor != KD_HM_NO_SEAT) || (s->first_show > 1 && s->first_show != KD_HM_NO_SEAT))
        return 0;
    for (int i = 0; i < KD_HM_BOARD; i++)
        if (s->last_board[i] >= KD_HM_CARDS && s->last_board[i] != KD_HM_NO_CARD)
            return 0;
    for (int i = 0; i < 4; i++)
        if (s->last_shown[i / 2][i % 2] >= KD_HM_CARDS && s->last_shown[i / 2][i % 2] != KD_HM_NO_CARD)
            return 0;
    return 1;
}

kd_err kd_hm_state_decode(const uint8_t *data, size_t len, kd_hm_state *state)
{
    memset(state, 0, sizeof *state);
    if (!data || !len || (data[0] != KD_HM_VERSION && data[0] != KD_HM_VERSION_2) || len != length_of(data[0]))
        return KD_ERR_DECODE;
    kd_hm_state s;
    memset(&s, 0, sizeof s);
    cursor c = {(uint8_t *)data, 0, 1}; /* reading only reads the bytes */
    walk(&c, &s, data[0]);
    s.params.protocol = data[0] == KD_HM_VERSION_2 ? 2 : 1;
    if (c.n != len || !consistent(&s))
        return KD_ERR_DECODE;
    *state = s;
    return KD_OK;
}

kd_err kd_hm_undo_encode(const kd_hm_undo *undo, kd_buf *out)
{
    uint8_t b[KD_HM_UNDO_LEN];
    b[0] = version_of(&undo->before);
    size_t n = pack(&undo->before, b + 1);
    memcpy(b + 1 + n, undo->after_hash, KD_HASH_LEN);
    return kd_buf_append(out, b, 1 + n + KD_HASH_LEN);
}

kd_err kd_hm_undo_decode(const uint8_t *data, size_t len, kd_hm_undo *undo)
{
    memset(undo, 0, sizeof *undo);
    if (!data || len < 2 || (data[0] != KD_HM_VERSION && data[0] != KD_HM_VERSION_2) ||
        len != 1 + length_of(data[0]) + KD_HASH_LEN || data[1] != data[0])
        return KD_ERR_DECODE;
    kd_hm_undo u;
    memset(&u, 0, sizeof u);
    size_t n = length_of(data[0]);
    if (kd_hm_state_decode(data + 1, n, &u.before) != KD_OK)
        return KD_ERR_DECODE;
    memcpy(u.after_hash, data + 1 + n, KD_HASH_LEN);
    *undo = u;
    return KD_OK;
}
