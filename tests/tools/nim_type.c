/* nim_type.c — Nim with one heap, a type for the tests (see nim_type.h). */
#include "nim_type.h"

#include <stdio.h>
#include <string.h>

#include "engine/crypto.h"

#define NIM_STATE_LEN (6 + 4 + 2 * KD_PUBKEY_LEN)

typedef struct {
    uint8_t take, prev_phase, prev_winner;
} nim_undo;

static const char *const seat_names[] = {"first", "second"};
static const kd_rule_code rule_codes[] = {
    {"game_over", "the heap is empty"},
    {"illegal_move", "the take is outside 1..max_take or more than the heap holds"},
    {"not_your_turn", "the signer is not the participant of the seat to move"},
    {NULL, NULL},
};

/* ----------------------------------------------------------- engine ops */

static kd_err resolve_params(const void *config, const uint8_t *params, size_t len, kd_buf *effective, kd_reject *rej)
{
    (void)config;
    uint8_t p[2] = {10, 3};
    if (len != 0 && len != 2)
        return kd_reject_say(rej, KD_ERR_BAD_PARAMS, "nim params are two bytes (heap, max_take)");
    if (len == 2)
        memcpy(p, params, 2);
    if (p[0] < 1 || p[0] > 40 || p[1] < 1 || p[1] > 5)
        return kd_reject_say(rej, KD_ERR_BAD_PARAMS, "heap must be 1..40 and max_take 1..5");
    return kd_buf_append(effective, p, 2);
}

static kd_err init(void *state, const kd_participants *parts, const uint8_t *params, size_t len,
                   const kd_block_meta *meta, kd_reject *rej)
{
    (void)meta;
    nim_state *s = state;
    memset(s, 0, sizeof *s);
    if (parts->count != 2)
        return kd_reject_say(rej, KD_ERR_BAD_PARTICIPANTS, "nim needs two participants, got %zu", parts->count);
    for (size_t i = 0; i < 2; i++)
        if (kd_pubkey_check(&parts->keys[i]) != KD_OK)
            return kd_reject_say(rej, KD_ERR_BAD_PARTICIPANTS, "participant %zu is not a valid key", i + 1);
    if (len != 2)
        return kd_reject_say(rej, KD_ERR_BAD_PARAMS, "effective nim params are two bytes");
    s->heap = params[0];
    s->max_take = params[1];
    s->winner = 0xff;
    memcpy(s->players, parts->keys, sizeof s->players);
    return KD_OK;
}

static kd_err execute(void *state, const uint8_t *command, size_t len, const kd_pubkey *signer,
                      const kd_block_meta *meta, void *undo, kd_reject *rej)
{
    (void)meta;
    nim_state *s = state;
    if (len != 1)
        return kd_reject_say(rej, KD_ERR_BAD_COMMAND, "a nim command is one byte");
    if (s->phase != KD_PHASE_IN_PROGRESS)
        return kd_reject_rule(rej, "game_over", "the heap is empty: the game is over");
    if (!signer || memcmp(signer->bytes, s->players[s->turn].bytes, KD_PUBKEY_LEN) != 0)
        return kd_reject_rule(rej, "not_your_turn", "it is the %s player's turn", seat_names[s->turn]);
    if (command[0] < 1 || command[0] > s->max_take || command[0] > s->heap)
        return kd_reject_rule(rej, "illegal_move", "take %u: the heap holds %u, at most %u a turn", command[0], s->heap,
                              s->max_take);
    nim_undo *u = undo;
    memset(u, 0, sizeof *u);
    u->take = command[0];
    u->prev_phase = s->phase;
    u->prev_winner = s->winner;
    s->heap = (uint8_t)(s->heap - command[0]);
    if (s->heap == 0) {
        s->phase = KD_PHASE_WON;
        s->winner = s->turn;
    }
    s->turn ^= 1;
    s->moves++;
    return KD_OK;
}

static kd_err rollback(void *state, const void *undo)
{
    nim_state *s = state;
    const nim_undo *u = undo;
    if (s->moves == 0 || u->take < 1 || u->take > s->max_take)
        return KD_ERR_DECODE;
    s->moves--;
    s->turn ^= 1;
    s->heap = (uint8_t)(s->heap + u->take);
    s->phase = u->prev_phase;
    s->winner = u->prev_winner;
    return KD_OK;
}

static kd_err encode_state(const void *state, kd_buf *out)
{
    const nim_state *s = state;
    uint8_t b[NIM_STATE_LEN] = {1, s->heap, s->max_take, s->turn, s->phase, s->winner};
    kd_put_u32be(b + 6, s->moves);
    memcpy(b + 10, s->players, 2 * KD_PUBKEY_LEN);
    return kd_buf_append(out, b, sizeof b);
}

static kd_err decode_state(const uint8_t *data, size_t len, void *state)
{
    nim_state *s = state;
    memset(s, 0, sizeof *s);
    if (len != NIM_STATE_LEN || data[0] != 1 || data[3] > 1 || data[4] > KD_PHASE_WON)
        return KD_ERR_DECODE;
    s->heap = data[1];
    s->max_take = data[2];
    s->turn = data[3];
    s->phase = data[4];
    s->winner = data[5];
    s->moves = kd_get_u32be(data + 6);
    memcpy(s->players, data + 10, 2 * KD_PUBKEY_LEN);
    return KD_OK;
}

static kd_err encode_undo(const void *undo, kd_buf *out)
{
    const nim_undo *u = undo;
    uint8_t b[3] = {u->take, u->prev_phase, u->prev_winner};
    return kd_buf_append(out, b, sizeof b);
}

static kd_err decode_undo(const uint8_t *data, size_t len, void *undo)
{
    nim_undo *u = undo;
    memset(u, 0, sizeof *u);
    if (len != 3)
        return KD_ERR_DECODE;
    u->take = data[0];
    u->prev_phase = data[1];
    u->prev_winner = data[2];
    return KD_OK;
}

static const kd_episode_ops nim_ops = {
    .type_name = "nim",
    .state_size = sizeof(nim_state),
    .undo_size = sizeof(nim_undo),
    .resolve_params = resolve_params,
    .init = init,
    .execute = execute,
    .rollback = rollback,
    .encode_state = encode_state,
    .decode_state = decode_state,
    .encode_undo = encode_undo,
    .decode_undo = decode_undo,
};

/* ------------------------------------------------------------ the table */

static int member(const json_t *obj, const char *name, int lo, int hi, int *out)
{
    json_t *v = json_object_get(obj, name);
    if (!v)
        return 0;
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
        return -1;
    *out = (int)json_integer_value(v);
    return 0;
}

static kd_err params_from_json(const json_t *params, kd_buf *out, char *why, size_t why_len)
{
    int heap = 10, take = 3;
    if (!params || (json_is_object(params) && json_object_size(params) == 0))
        return KD_OK;
    if (!json_is_object(params) || member(params, "heap", 1, 40, &heap) || member(params, "max_take", 1, 5, &take)) {
        kd_reject_write(why, why_len, "nim params are {\"heap\": 1..40, \"max_take\": 1..5}");
        return KD_ERR_BAD_PARAMS;
    }
    uint8_t b[2] = {(uint8_t)heap, (uint8_t)take};
    return kd_buf_append(out, b, 2);
}

static kd_err command_from_json(const json_t *command, int seat, kd_buf *out, char *why, size_t why_len)
{
    (void)seat;
    int take = -1;
    if (!json_is_object(command) || member(command, "take", 0, 255, &take) || take < 0) {
        kd_reject_write(why, why_len, "a nim command is {\"take\": n}");
        return KD_ERR_BAD_COMMAND;
    }
    uint8_t b = (uint8_t)take;
    return kd_buf_append(out, &b, 1);
}

static json_t *command_to_json(const uint8_t *command, size_t len)
{
    return len == 1 ? json_pack("{s:i}", "take", command[0]) : NULL;
}

static kd_game_status status(const void *state)
{
    const nim_state *s = state;
    kd_game_status st = {.phase = (kd_game_phase)s->phase, .winner = KD_SEAT_NONE, .to_move = KD_SEAT_NONE};
    if (s->phase == KD_PHASE_WON)
        st.winner = s->winner;
    else
        st.to_move = s->turn;
    return st;
}

static kd_err view_encode(const void *state, int seat, kd_buf *out)
{
    (void)seat;
    return encode_state(state, out);
}

static json_t *view_json(const uint8_t *view, size_t len)
{
    nim_state s;
    if (decode_state(view, len, &s) != KD_OK)
        return NULL;
    return json_pack("{s:i, s:i}", "heap", s.heap, "max_take", s.max_take);
}

static kd_err render_text(const uint8_t *view, size_t len, kd_buf *out)
{
    nim_state s;
    if (decode_state(view, len, &s) != KD_OK)
        return KD_ERR_DECODE;
    char text[64];
    int n = snprintf(text, sizeof text, "heap %u (take 1..%u)\n", s.heap, s.max_take);
    return kd_buf_append(out, text, (size_t)n);
}

static kd_err prompt(const uint8_t *view, size_t len, uint32_t episode_id, int seat, kd_buf *out)
{
    (void)episode_id;
    if (seat < 0 || seat > 1)
        return KD_ERR_INVALID_ARG;
    kd_err err = render_text(view, len, out);
    return err ? err : kd_buf_append(out, "Answer {\"take\": n}.", 19);
}

static kd_err legal_moves(const void *state, int seat, kd_legal_moves *out)
{
    const nim_state *s = state;
    if (s->phase != KD_PHASE_IN_PROGRESS || seat != s->turn)
        return KD_OK;
    for (uint8_t t = 1; t <= s->max_take && t <= s->heap; t++) {
        char notation[16];
        snprintf(notation, sizeof notation, "take %u", t);
        kd_err err = kd_legal_moves_push(out, &t, 1, notation);
        if (err)
            return err;
    }
    return KD_OK;
}

static kd_err random_command(const void *state, int seat, int legal, uint64_t *rng, kd_buf *out)
{
    const nim_state *s = state;
    if (s->phase != KD_PHASE_IN_PROGRESS && legal)
        return KD_ERR_NO_MOVE;
    if (legal) {
        if (seat != s->turn)
            return KD_ERR_NO_MOVE;
        uint32_t most = s->max_take < s->heap ? s->max_take : s->heap;
        uint8_t t = (uint8_t)(1 + kd_type_rng_below(rng, most));
        return kd_buf_append(out, &t, 1);
    }
    uint8_t t = kd_type_rng_below(rng, 2) ? 0 : (uint8_t)(s->max_take + 1 + kd_type_rng_below(rng, 3));
    return kd_buf_append(out, &t, 1);
}

const kd_episode_type nim_type = {
    .ops = &nim_ops,
    .title = "Nim",
    .summary = "One heap; two players take 1..max_take tokens in turn; taking the last one wins.",
    .min_seats = 2,
    .max_seats = 2,
    .seat_names = seat_names,
    .rule_codes = rule_codes,
    .params_schema = "{\"type\":\"object\",\"properties\":{\"heap\":{\"type\":\"integer\",\"minimum\":1,"
                     "\"maximum\":40},\"max_take\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":5}}}",
    .command_schema = "{\"type\":\"object\",\"properties\":{\"take\":{\"type\":\"integer\"}},\"required\":[\"take\"]}",
    .params_from_json = params_from_json,
    .command_from_json = command_from_json,
    .command_to_json = command_to_json,
    .status = status,
    .view_encode = view_encode,
    .view_json = view_json,
    .strategy_context = view_json,
    .render_text = render_text,
    .prompt = prompt,
    .legal_moves = legal_moves,
    .random_command = random_command,
};
