/*
 * nim.c — the rules of Nim, its byte encodings and the kd_episode_ops table
 * that plugs them into the engine. Pure functions of their inputs: no
 * environment, no clock, no I/O. Formats and rules are described in nim.h.
 */
#include "nim/nim.h"

#include <string.h>

#include "engine/crypto.h"

const kd_rule_code kd_nim_rule_codes[] = {
    {"game_over", "every heap is empty: the game has ended"},
    {"unauthorised", "the command is unsigned, or signed by a key that is not a participant"},
    {"not_your_turn", "the signer is the participant of the seat that is not to move"},
    {"no_such_heap", "the heap number is beyond the heaps of the game"},
    {"take_too_many", "the move takes more counters than the heap holds"},
    {NULL, NULL},
};

static const char *const seat_words[2] = {"first", "second"};

kd_nim_heaps kd_nim_default_heaps(void)
{
    kd_nim_heaps h = {.count = 3, .sizes = {3, 4, 5}};
    return h;
}

/* 1 when `heaps` is a valid game: 1..6 heaps of 1..15, unused entries zero. */
static int heaps_valid(const kd_nim_heaps *heaps)
{
    if (heaps->count < 1 || heaps->count > KD_NIM_MAX_HEAPS)
        return 0;
    for (size_t i = 0; i < KD_NIM_MAX_HEAPS; i++) {
        if (i < heaps->count && (heaps->sizes[i] < 1 || heaps->sizes[i] > KD_NIM_MAX_COUNTERS))
            return 0;
        if (i >= heaps->count && heaps->sizes[i] != 0)
            return 0;
    }
    return 1;
}

static unsigned sum_of(const uint8_t *v, size_t n)
{
    unsigned s = 0;
    for (size_t i = 0; i < n; i++)
        s += v[i];
    return s;
}

unsigned kd_nim_sum(const kd_nim_state *state)
{
    unsigned x = 0;
    for (size_t i = 0; i < state->heap_count; i++)
        x ^= state->left[i];
    return x;
}

/* ------------------------------------------------------------ rules */

kd_err kd_nim_state_init(kd_nim_state *state, const kd_participants *participants, const kd_nim_heaps *heaps,
                         kd_reject *rej)
{
    memset(state, 0, sizeof *state);
    if (!participants || participants->count != 2)
        return kd_reject_say(rej, KD_ERR_BAD_PARTICIPANTS, "nim needs exactly 2 participants (first, second), got %zu",
                             participants ? participants->count : (size_t)0);
    for (size_t i = 0; i < 2; i++)
        if (kd_pubkey_check(&participants->keys[i]) != KD_OK)
            return kd_reject_say(rej, KD_ERR_BAD_PARTICIPANTS,
                                 "participant %zu (%s) is not a valid compressed secp256k1 public key", i + 1,
                                 seat_words[i]);
    if (!heaps || !heaps_valid(heaps))
        return kd_reject_say(rej, KD_ERR_BAD_PARAMS, "nim needs 1 to %d heaps of 1 to %d counters", KD_NIM_MAX_HEAPS,
                             KD_NIM_MAX_COUNTERS);
    state->heap_count = heaps->count;
    memcpy(state->start, heaps->sizes, sizeof state->start);
    memcpy(state->left, heaps->sizes, sizeof state->left);
    state->turn = KD_NIM_FIRST;
    state->status = KD_NIM_IN_PROGRESS;
    memcpy(state->players, participants->keys, sizeof state->players);
    return KD_OK;
}

kd_err kd_nim_play(kd_nim_state *state, const kd_nim_move *move, const kd_pubkey *signer, kd_nim_undo *undo,
                   kd_reject *rej)
{
    if (state->status != KD_NIM_IN_PROGRESS)
        return kd_reject_rule(rej, "game_over", "the game is over: %s took the last counter",
                              seat_words[state->status == KD_NIM_FIRST_WON ? 0 : 1]);
    const kd_pubkey *mover = &state->players[state->turn];
    const kd_pubkey *waiter = &state->players[1 - state->turn];
    if (!signer)
        return kd_reject_rule(rej, "unauthorised", "the move is unsigned; %s's moves must be signed by participant %d",
                              seat_words[state->turn], state->turn + 1);
    int is_mover = memcmp(signer->bytes, mover->bytes, KD_PUBKEY_LEN) == 0;
    if (!is_mover && memcmp(signer->bytes, waiter->bytes, KD_PUBKEY_LEN) != 0)
        return kd_reject_rule(rej, "unauthorised", "the signer is not a participant of this game");
    if (!is_mover)
        return kd_reject_rule(rej, "not_your_turn", "it is %s's turn, not %s's", seat_words[state->turn],
                              seat_words[1 - state->turn]);
    if (move->heap < 1 || move->heap > state->heap_count)
        return kd_reject_rule(rej, "no_such_heap", "there is no heap %u: the heaps are 1 to %u", (unsigned)move->heap,
                              (unsigned)state->heap_count);
    uint8_t left = state->left[move->heap - 1];
    if (move->take < 1 || move->take > left)
        return kd_reject_rule(rej, "take_too_many", "heap %u holds %u counter%s; cannot take %u", (unsigned)move->heap,
                              (unsigned)left, left == 1 ? "" : "s", (unsigned)move->take);

    memset(undo, 0, sizeof(kd_nim_undo));
    undo->heap = move->heap;
    undo->take = move->take;
    state->left[move->heap - 1] = (uint8_t)(left - move->take);
    state->move_count++;
    if (sum_of(state->left, state->heap_count) == 0)
        state->status = state->turn == KD_NIM_FIRST ? KD_NIM_FIRST_WON : KD_NIM_SECOND_WON;
    state->turn = (uint8_t)(1 - state->turn);
    return KD_OK;
}

kd_err kd_nim_undo_check(const kd_nim_state *state, const kd_nim_undo *undo)
{
    if (state->move_count == 0 || undo->heap < 1 || undo->heap > state->heap_count || undo->take < 1)
        return KD_ERR_DECODE;
    if ((unsigned)state->left[undo->heap - 1] + undo->take > state->start[undo->heap - 1])
        return KD_ERR_DECODE;
    /* After the rollback, the move_count - 1 earlier moves each took one
     * counter at least. */
    unsigned taken = sum_of(state->start, state->heap_count) - sum_of(state->left, state->heap_count);
    if (taken - undo->take < state->move_count - 1)
        return KD_ERR_DECODE;
    return KD_OK;
}

kd_err kd_nim_rollback(kd_nim_state *state, const kd_nim_undo *undo)
{
    if (kd_nim_undo_check(state, undo) != KD_OK)
        return KD_ERR_DECODE;
    state->left[undo->heap - 1] = (uint8_t)(state->left[undo->heap - 1] + undo->take);
    state->move_count--;
    state->turn = (uint8_t)(1 - state->turn);
    state->status = KD_NIM_IN_PROGRESS;
    return KD_OK;
}

/* -------------------------------------------------------- encodings */

kd_err kd_nim_params_encode(const kd_nim_heaps *heaps, kd_buf *out)
{
    uint8_t bytes[2 + KD_NIM_MAX_HEAPS];
    size_t n = heaps->count <= KD_NIM_MAX_HEAPS ? heaps->count : KD_NIM_MAX_HEAPS;
    bytes[0] = KD_NIM_VERSION;
    bytes[1] = heaps->count;
    memcpy(&bytes[2], heaps->sizes, n);
    return kd_buf_append(out, bytes, 2 + n);
}

kd_err kd_nim_params_decode(const uint8_t *data, size_t len, kd_nim_heaps *heaps, kd_reject *rej)
{
    memset(heaps, 0, sizeof *heaps);
    if (!data || len < 2 || data[0] != KD_NIM_VERSION)
        return kd_reject_say(rej, KD_ERR_BAD_PARAMS, "the params (%zu bytes) are not nim params version %d", len,
                             KD_NIM_VERSION);
    if (data[1] < 1 || data[1] > KD_NIM_MAX_HEAPS || len != 2 + (size_t)data[1])
        return kd_reject_say(rej, KD_ERR_BAD_PARAMS, "nim params name 1 to %d heaps, each one byte", KD_NIM_MAX_HEAPS);
    kd_nim_heaps h = {.count = data[1]};
    memcpy(h.sizes, &data[2], h.count);
    if (!heaps_valid(&h))
        return kd_reject_say(rej, KD_ERR_BAD_PARAMS, "every nim heap holds 1 to %d counters", KD_NIM_MAX_COUNTERS);
    *heaps = h;
    return KD_OK;
}

kd_err kd_nim_command_encode(uint8_t heap, uint8_t take, kd_buf *out)
{
    uint8_t bytes[KD_NIM_COMMAND_LEN] = {KD_NIM_VERSION, heap, take};
    return kd_buf_append(out, bytes, sizeof bytes);
}

kd_err kd_nim_command_decode(const uint8_t *data, size_t len, kd_nim_move *move, kd_reject *rej)
{
    memset(move, 0, sizeof *move);
    if (!data || len != KD_NIM_COMMAND_LEN || data[0] != KD_NIM_VERSION)
        return kd_reject_say(rej, KD_ERR_BAD_COMMAND, "the command (%zu bytes) is not a %d-byte nim command version %d",
                             len, KD_NIM_COMMAND_LEN, KD_NIM_VERSION);
    if (data[1] == 0 || data[2] == 0)
        return kd_reject_say(rej, KD_ERR_BAD_COMMAND, "heaps are numbered from 1 and a move takes 1 counter at least");
    move->heap = data[1];
    move->take = data[2];
    return KD_OK;
}

kd_err kd_nim_state_encode(const kd_nim_state *state, kd_buf *out)
{
    uint8_t bytes[KD_NIM_STATE_FIXED_LEN + 2 * KD_NIM_MAX_HEAPS];
    size_t n = 0, heaps = state->heap_count <= KD_NIM_MAX_HEAPS ? state->heap_count : KD_NIM_MAX_HEAPS;
    bytes[n++] = KD_NIM_VERSION;
    bytes[n++] = state->heap_count;
    bytes[n++] = state->status;
    bytes[n++] = state->turn;
    kd_put_u32be(&bytes[n], state->move_count);
    n += 4;
    memcpy(&bytes[n], state->players, 2 * KD_PUBKEY_LEN);
    n += 2 * KD_PUBKEY_LEN;
    for (size_t i = 0; i < heaps; i++) {
        bytes[n++] = state->start[i];
        bytes[n++] = state->left[i];
    }
    return kd_buf_append(out, bytes, n);
}

kd_err kd_nim_state_decode(const uint8_t *data, size_t len, kd_nim_state *state)
{
    kd_nim_state s;
    memset(&s, 0, sizeof s);
    memset(state, 0, sizeof *state);
    if (!data || len < KD_NIM_STATE_FIXED_LEN || data[0] != KD_NIM_VERSION)
        return KD_ERR_DECODE;
    s.heap_count = data[1];
    s.status = data[2];
    s.turn = data[3];
    s.move_count = kd_get_u32be(&data[4]);
    memcpy(s.players, &data[8], 2 * KD_PUBKEY_LEN);
    if (s.heap_count < 1 || s.heap_count > KD_NIM_MAX_HEAPS || len != KD_NIM_STATE_FIXED_LEN + 2 * (size_t)s.heap_count)
        return KD_ERR_DECODE;
    /* Keys were checked on the curve at creation; a stored state needs
     * only their form, which keeps reads free of elliptic-curve work. */
    for (size_t i = 0; i < 2; i++)
        if (s.players[i].bytes[0] != 0x02 && s.players[i].bytes[0] != 0x03)
            return KD_ERR_DECODE;
    for (size_t i = 0; i < s.heap_count; i++) {
        s.start[i] = data[KD_NIM_STATE_FIXED_LEN + 2 * i];
        s.left[i] = data[KD_NIM_STATE_FIXED_LEN + 2 * i + 1];
        if (s.start[i] < 1 || s.start[i] > KD_NIM_MAX_COUNTERS || s.left[i] > s.start[i])
            return KD_ERR_DECODE;
    }
    unsigned left = sum_of(s.left, s.heap_count);
    unsigned taken = sum_of(s.start, s.heap_count) - left;
    if (s.move_count > taken || s.turn != s.move_count % 2)
        return KD_ERR_DECODE;
    uint8_t want = KD_NIM_IN_PROGRESS;
    if (left == 0) /* the seat that moved last took the last counter */
        want = s.turn == KD_NIM_SECOND ? KD_NIM_FIRST_WON : KD_NIM_SECOND_WON;
    if (s.status != want)
        return KD_ERR_DECODE;
    *state = s;
    return KD_OK;
}

kd_err kd_nim_undo_encode(const kd_nim_undo *undo, kd_buf *out)
{
    uint8_t bytes[KD_NIM_UNDO_LEN] = {KD_NIM_VERSION, undo->heap, undo->take};
    return kd_buf_append(out, bytes, sizeof bytes);
}

kd_err kd_nim_undo_decode(const uint8_t *data, size_t len, kd_nim_undo *undo)
{
    memset(undo, 0, sizeof *undo);
    if (!data || len != KD_NIM_UNDO_LEN || data[0] != KD_NIM_VERSION || data[1] < 1 || data[1] > KD_NIM_MAX_HEAPS ||
        data[2] < 1 || data[2] > KD_NIM_MAX_COUNTERS)
        return KD_ERR_DECODE;
    undo->heap = data[1];
    undo->take = data[2];
    return KD_OK;
}

int kd_nim_heaps_parse(const char *text, kd_nim_heaps *heaps)
{
    kd_nim_heaps h;
    memset(&h, 0, sizeof h);
    const char *p = text;
    for (;;) {
        unsigned n = 0, digits = 0;
        while (*p == ' ')
            p++;
        for (; *p >= '0' && *p <= '9' && digits < 3; p++, digits++)
            n = n * 10 + (unsigned)(*p - '0');
        if (digits == 0 || n < 1 || n > KD_NIM_MAX_COUNTERS || h.count == KD_NIM_MAX_HEAPS)
            return -1;
        h.sizes[h.count++] = (uint8_t)n;
        if (*p == '\0')
            break;
        if (*p++ != ',')
            return -1;
    }
    *heaps = h;
    return 0;
}

/* -------------------------------------------------------- ops table */

static kd_err ops_resolve_params(const void *config, const uint8_t *params, size_t len, kd_buf *effective,
                                 kd_reject *rej)
{
    kd_nim_heaps heaps = kd_nim_default_heaps();
    const kd_nim_config *cfg = config;
    if (len > 0) {
        kd_err err = kd_nim_params_decode(params, len, &heaps, rej);
        if (err)
            return err;
    } else if (cfg && cfg->heaps.count) {
        heaps = cfg->heaps;
    }
    return kd_nim_params_encode(&heaps, effective);
}

static kd_err ops_init(void *state, const kd_participants *participants, const uint8_t *params, size_t len,
                       const kd_block_meta *meta, kd_reject *rej)
{
    (void)meta;
    kd_nim_heaps heaps;
    /* Effective params always name the heaps: an empty one would make the
     * game depend on whichever default is in force at replay. */
    kd_err err = kd_nim_params_decode(params, len, &heaps, rej);
    if (err) {
        memset(state, 0, sizeof(kd_nim_state));
        return err;
    }
    return kd_nim_state_init(state, participants, &heaps, rej);
}

static kd_err ops_execute(void *state, const uint8_t *command, size_t len, const kd_pubkey *signer,
                          const kd_block_meta *meta, void *undo, kd_reject *rej)
{
    (void)meta;
    kd_nim_move move;
    kd_err err = kd_nim_command_decode(command, len, &move, rej);
    if (err)
        return err;
    return kd_nim_play(state, &move, signer, undo, rej);
}

static kd_err ops_rollback(void *state, const void *undo) { return kd_nim_rollback(state, undo); }

static kd_err ops_encode_state(const void *state, kd_buf *out) { return kd_nim_state_encode(state, out); }

static kd_err ops_decode_state(const uint8_t *data, size_t len, void *state)
{
    return kd_nim_state_decode(data, len, state);
}

static kd_err ops_encode_undo(const void *undo, kd_buf *out) { return kd_nim_undo_encode(undo, out); }

static kd_err ops_decode_undo(const uint8_t *data, size_t len, void *undo)
{
    return kd_nim_undo_decode(data, len, undo);
}

const kd_episode_ops kd_nim_ops = {
    .type_name = KD_NIM_TYPE_NAME,
    .state_size = sizeof(kd_nim_state),
    .undo_size = sizeof(kd_nim_undo),
    .resolve_params = ops_resolve_params,
    .init = ops_init,
    .execute = ops_execute,
    .rollback = ops_rollback,
    .encode_state = ops_encode_state,
    .decode_state = ops_decode_state,
    .encode_undo = ops_encode_undo,
    .decode_undo = ops_decode_undo,
};
