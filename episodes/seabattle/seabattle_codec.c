/*
 * seabattle_codec.c — sea battle's state and undo encodings.
 *
 * State (KD_SB_STATE_LEN = 422 bytes): version (2), phase, turn, pending
 * (255: none), winner (255: none), reason, revealed[0], revealed[1],
 * move_count u32 BE, timeout u64 BE, since u64 BE, players (2 x 33),
 * roots (2 x 32), bindings (2 x 32), marks (2 x 100). Undo: version, the state before, the
 * SHA-256 of the state after.
 */
#include <string.h>

#include "episodes/seabattle/seabattle.h"

static void pack(const kd_sb_state *s, uint8_t b[KD_SB_STATE_LEN])
{
    size_t n = 0;
    b[n++] = KD_SB_VERSION;
    b[n++] = s->phase;
    b[n++] = s->turn;
    b[n++] = s->pending;
    b[n++] = s->winner;
    b[n++] = s->reason;
    b[n++] = s->revealed[0];
    b[n++] = s->revealed[1];
    kd_put_u32be(b + n, s->move_count);
    n += 4;
    kd_put_u64be(b + n, s->timeout);
    n += 8;
    kd_put_u64be(b + n, s->since);
    n += 8;
    memcpy(b + n, s->players, 2 * KD_PUBKEY_LEN);
    n += 2 * KD_PUBKEY_LEN;
    memcpy(b + n, s->roots, 2 * KD_HASH_LEN);
    n += 2 * KD_HASH_LEN;
    memcpy(b + n, s->bindings, 2 * KD_SECRET_BINDING_LEN);
    n += 2 * KD_SECRET_BINDING_LEN;
    memcpy(b + n, s->marks, 2 * KD_SB_CELLS);
}

kd_err kd_sb_state_encode(const kd_sb_state *state, kd_buf *out)
{
    uint8_t b[KD_SB_STATE_LEN];
    pack(state, b);
    return kd_buf_append(out, b, sizeof b);
}

void kd_sb_state_hash(const kd_sb_state *state, uint8_t out[KD_HASH_LEN])
{
    uint8_t b[KD_SB_STATE_LEN];
    pack(state, b);
    kd_sha256(b, sizeof b, out);
}

/* Whether the fields of `s` hold together (the decoder's checks). */
static int consistent(const kd_sb_state *s)
{
    if (s->phase > KD_SB_OVER || s->turn > 1 || s->reason > KD_SB_REASON_NO_REVEAL || s->timeout < KD_DEADLINE_MIN ||
        s->timeout > KD_SB_TIMEOUT_MAX)
        return 0;
    for (int i = 0; i < 2; i++)
        if ((s->players[i].bytes[0] != 0x02 && s->players[i].bytes[0] != 0x03) || s->revealed[i] > KD_SB_ILLEGAL)
            return 0;
    for (int i = 0; i < 2 * KD_SB_CELLS; i++)
        if (s->marks[i / KD_SB_CELLS][i % KD_SB_CELLS] > KD_SB_SHIPS + 1)
            return 0;
    if (s->phase == KD_SB_PLAY)
        return s->winner == KD_SB_NO_SEAT && s->reason == KD_SB_REASON_NONE && !s->revealed[0] && !s->revealed[1] &&
               (s->pending == KD_SB_NO_CELL || (s->pending < KD_SB_CELLS && !s->marks[1 - s->turn][s->pending]));
    return s->winner <= 1 && s->reason != KD_SB_REASON_NONE && s->pending == KD_SB_NO_CELL &&
           (s->phase == KD_SB_OVER || !s->revealed[0] || !s->revealed[1]);
}

kd_err kd_sb_state_decode(const uint8_t *data, size_t len, kd_sb_state *state)
{
    kd_sb_state s;
    memset(&s, 0, sizeof s);
    memset(state, 0, sizeof *state);
    if (!data || len != KD_SB_STATE_LEN || data[0] != KD_SB_VERSION)
        return KD_ERR_DECODE;
    size_t n = 1;
    s.phase = data[n++];
    s.turn = data[n++];
    s.pending = data[n++];
    s.winner = data[n++];
    s.reason = data[n++];
    s.revealed[0] = data[n++];
    s.revealed[1] = data[n++];
    s.move_count = kd_get_u32be(data + n);
    n += 4;
    s.timeout = kd_get_u64be(data + n);
    n += 8;
    s.since = kd_get_u64be(data + n);
    n += 8;
    memcpy(s.players, data + n, 2 * KD_PUBKEY_LEN);
    n += 2 * KD_PUBKEY_LEN;
    memcpy(s.roots, data + n, 2 * KD_HASH_LEN);
    n += 2 * KD_HASH_LEN;
    memcpy(s.bindings, data + n, 2 * KD_SECRET_BINDING_LEN);
    n += 2 * KD_SECRET_BINDING_LEN;
    memcpy(s.marks, data + n, 2 * KD_SB_CELLS);
    if (!consistent(&s))
        return KD_ERR_DECODE;
    *state = s;
    return KD_OK;
}

kd_err kd_sb_undo_encode(const kd_sb_undo *undo, kd_buf *out)
{
    uint8_t b[KD_SB_UNDO_LEN];
    b[0] = KD_SB_VERSION;
    pack(&undo->before, b + 1);
    memcpy(b + 1 + KD_SB_STATE_LEN, undo->after_hash, KD_HASH_LEN);
    return kd_buf_append(out, b, sizeof b);
}

kd_err kd_sb_undo_decode(const uint8_t *data, size_t len, kd_sb_undo *undo)
{
    memset(undo, 0, sizeof *undo);
    if (!data || len != KD_SB_UNDO_LEN || data[0] != KD_SB_VERSION)
        return KD_ERR_DECODE;
    kd_sb_undo u;
    memset(&u, 0, sizeof u);
    if (kd_sb_state_decode(data + 1, KD_SB_STATE_LEN, &u.before) != KD_OK)
        return KD_ERR_DECODE;
    memcpy(u.after_hash, data + 1 + KD_SB_STATE_LEN, KD_HASH_LEN);
    *undo = u;
    return KD_OK;
}
