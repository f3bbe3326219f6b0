/*
 * pile_type.c — the test-only "pile" type (pile_type.h): the engine's ops
 * and the type table's entry. States and undo records are byte structs (no
 * padding), encoded as their bytes.
 */
#include "pile_type.h"

#include <stdio.h>
#include <string.h>

#define MAX_SEATS 3
#define NO_WINNER 0xff
#define DEFAULT_PILE 10
#define DEFAULT_TAKE 3

typedef struct {
    uint8_t pile, max_take, seats, to_move, winner;
    kd_pubkey keys[MAX_SEATS];
} pile_state;

typedef struct {
    uint8_t take, to_move, winner;
} pile_undo;

/* The view message: pile, max_take, seats, to_move, winner. */
#define VIEW_LEN 5

static const char *const seat_names[] = {"A", "B", "C"};
static const kd_rule_code rule_codes[] = {
    {"game_over", "the last stone was taken"},
    {"not_your_turn", "the signer is not the seat to move"},
    {"too_many", "take is 0, more than max_take, or more than the pile"},
    {NULL, NULL},
};

/* ------------------------------------------------------------ engine ops */

static kd_err resolve_params(const void *config, const uint8_t *params, size_t len, kd_buf *effective, kd_reject *rej)
{
    (void)config;
    uint8_t p[2] = {DEFAULT_PILE, DEFAULT_TAKE};
    if (len == 2)
        memcpy(p, params, 2);
    else if (len != 0)
        return kd_reject_say(rej, KD_ERR_BAD_PARAMS, "pile params are two bytes, got %zu", len);
    if (p[0] < 1 || p[0] > 200 || p[1] < 1 || p[1] > 9)
        return kd_reject_say(rej, KD_ERR_BAD_PARAMS, "pile %u / max_take %u out of range", p[0], p[1]);
    return kd_buf_append(effective, p, 2);
}

static kd_err init(void *state, const kd_participants *parts, const uint8_t *params, size_t len,
                   const kd_block_meta *meta, kd_reject *rej)
{
    (void)meta;
    pile_state *s = state;
    if (parts->count < 2 || parts->count > MAX_SEATS)
        return kd_reject_say(rej, KD_ERR_BAD_PARTICIPANTS, "pile takes 2 or 3 participants, got %zu", parts->count);
    if (len != 2)
        return kd_reject_say(rej, KD_ERR_BAD_PARAMS, "pile params are two bytes");
    memset(s, 0, sizeof *s);
    s->pile = params[0];
    s->max_take = params[1];
    s->seats = (uint8_t)parts->count;
    s->winner = NO_WINNER;
    memcpy(s->keys, parts->keys, parts->count * sizeof parts->keys[0]);
    return KD_OK;
}

static kd_err execute(void *state, const uint8_t *command, size_t len, const kd_pubkey *signer,
                      const kd_block_meta *meta, void *undo, kd_reject *rej)
{
    (void)meta;
    pile_state *s = state;
    if (len != 1)
        return kd_reject_say(rej, KD_ERR_BAD_COMMAND, "a pile command is one byte");
    if (s->winner != NO_WINNER)
        return kd_reject_rule(rej, "game_over", "seat %s took the last stone", seat_names[s->winner]);
    if (!signer || memcmp(signer->bytes, s->keys[s->to_move].bytes, KD_PUBKEY_LEN) != 0)
        return kd_reject_rule(rej, "not_your_turn", "it is seat %s's turn", seat_names[s->to_move]);
    if (command[0] < 1 || command[0] > s->max_take || command[0] > s->pile)
        return kd_reject_rule(rej, "too_many", "take %u: 1 to %u may be taken", command[0],
                              s->max_take < s->pile ? s->max_take : s->pile);
    *(pile_undo *)undo = (pile_undo){.take = command[0], .to_move = s->to_move, .winner = s->winner};
    s->pile = (uint8_t)(s->pile - command[0]);
    if (s->pile == 0)
        s->winner = s->to_move;
    s->to_move = (uint8_t)((s->to_move + 1) % s->seats);
    return KD_OK;
}

static kd_err rollback(void *state, const void *undo)
{
    pile_state *s = state;
    const pile_undo *u = undo;
    if (u->take == 0 || u->to_move >= s->seats || (unsigned)s->pile + u->take > 200)
        return KD_ERR_DECODE;
    s->pile = (uint8_t)(s->pile + u->take);
    s->to_move = u->to_move;
    s->winner = u->winner;
    return KD_OK;
}

static kd_err encode_state(const void *state, kd_buf *out) { return kd_buf_append(out, state, sizeof(pile_state)); }

static kd_err decode_state(const uint8_t *data, size_t len, void *state)
{
    pile_state s;
    if (len != sizeof s)
        return KD_ERR_DECODE;
    memcpy(&s, data, sizeof s);
    if (s.seats < 2 || s.seats > MAX_SEATS || s.to_move >= s.seats || (s.winner != NO_WINNER && s.winner >= s.seats))
        return KD_ERR_DECODE;
    memcpy(state, &s, sizeof s);
    return KD_OK;
}

static kd_err encode_undo(const void *undo, kd_buf *out) { return kd_buf_append(out, undo, sizeof(pile_undo)); }

static kd_err decode_undo(const uint8_t *data, size_t len, void *undo)
{
    if (len != sizeof(pile_undo))
        return KD_ERR_DECODE;
    memcpy(undo, data, len);
    return KD_OK;
}

static const kd_episode_ops pile_ops = {
    .type_name = PILE_TYPE_NAME,
    .state_size = sizeof(pile_state),
    .undo_size = sizeof(pile_undo),
    .resolve_params = resolve_params,
    .init = init,
    .execute = execute,
    .rollback = rollback,
    .encode_state = encode_state,
    .decode_state = decode_state,
    .encode_undo = encode_undo,
    .decode_undo = decode_undo,
};

/* ------------------------------------------------------------ JSON <-> bytes */

static kd_err params_from_json(const json_t *params, kd_buf *out, char *why, size_t why_len)
{
    if (!params || json_object_size(params) == 0)
        return KD_OK;
    json_t *pile = json_object_get(params, "pile"), *take = json_object_get(params, "max_take");
    json_int_t p = pile ? json_integer_value(pile) : DEFAULT_PILE, t = take ? json_integer_value(take) : DEFAULT_TAKE;
    if ((pile && !json_is_integer(pile)) || (take && !json_is_integer(take)) || p < 1 || p > 200 || t < 1 || t > 9) {
        kd_reject_write(why, why_len, "pile must be 1 to 200 and max_take 1 to 9");
        return KD_ERR_BAD_PARAMS;
    }
    uint8_t b[2] = {(uint8_t)p, (uint8_t)t};
    return kd_buf_append(out, b, 2);
}

static kd_err command_from_json(const json_t *command, int seat, kd_buf *out, char *why, size_t why_len)
{
    (void)seat;
    json_t *take = json_object_get(command, "take");
    if (!json_is_integer(take) || json_integer_value(take) < 0 || json_integer_value(take) > 255) {
        kd_reject_write(why, why_len, "a pile command is {\"take\": k}, k a number of stones");
        return KD_ERR_BAD_COMMAND;
    }
    uint8_t k = (uint8_t)json_integer_value(take);
    return kd_buf_append(out, &k, 1);
}

static json_t *command_to_json(const uint8_t *command, size_t len)
{
    return len == 1 ? json_pack("{s:i}", "take", command[0]) : NULL;
}

/* ------------------------------------------------------------ views */

static kd_game_status status(const void *state)
{
    const pile_state *s = state;
    if (s->winner != NO_WINNER)
        return (kd_game_status){KD_PHASE_WON, s->winner, KD_SEAT_NONE};
    return (kd_game_status){KD_PHASE_IN_PROGRESS, KD_SEAT_NONE, s->to_move};
}

static kd_err view_encode(const void *state, int seat, kd_buf *out)
{
    (void)seat;
    const pile_state *s = state;
    uint8_t v[VIEW_LEN] = {s->pile, s->max_take, s->seats, s->to_move, s->winner};
    return kd_buf_append(out, v, sizeof v);
}

static json_t *view_json(const uint8_t *view, size_t len)
{
    return len == VIEW_LEN ? json_pack("{s:i, s:i}", "pile", view[0], "max_take", view[1]) : NULL;
}

static json_t *strategy_context(const uint8_t *view, size_t len)
{
    return len == VIEW_LEN ? json_pack("{s:i, s:i, s:s}", "pile", view[0], "max_take", view[1], "to_move",
                                       view[3] < MAX_SEATS ? seat_names[view[3]] : "?")
                           : NULL;
}

static kd_err render_text(const uint8_t *view, size_t len, unsigned flags, kd_buf *out)
{
    (void)flags;
    char text[96];
    if (len != VIEW_LEN)
        return KD_ERR_DECODE;
    int n = snprintf(text, sizeof text, "pile %u, take 1 to %u\n", view[0], view[1]);
    return kd_buf_append(out, text, (size_t)n);
}

static kd_err prompt(const uint8_t *view, size_t len, uint32_t episode_id, int seat, kd_buf *out)
{
    char text[200];
    if (len != VIEW_LEN)
        return KD_ERR_DECODE;
    if (seat < 0 || seat >= view[2])
        return KD_ERR_INVALID_ARG;
    int n = snprintf(text, sizeof text,
                     "Episode %u: you are seat %s. The pile has %u stones; take 1 to %u. Answer "
                     "{\"take\": k}.",
                     episode_id, seat_names[seat], view[0], view[1]);
    return kd_buf_append(out, text, (size_t)n);
}

/* ------------------------------------------------------------ moves */

static kd_err legal_moves(const void *state, int seat, kd_legal_moves *out)
{
    const pile_state *s = state;
    if (s->winner != NO_WINNER || seat != s->to_move)
        return KD_OK;
    for (uint8_t k = 1; k <= s->max_take && k <= s->pile; k++) {
        char notation[16];
        snprintf(notation, sizeof notation, "take %u", k);
        kd_err err = kd_legal_moves_push(out, &k, 1, notation);
        if (err)
            return err;
    }
    return KD_OK;
}

static kd_err random_command(const void *state, int seat, int legal, uint64_t *rng, kd_buf *out)
{
    (void)seat;
    const pile_state *s = state;
    if (s->winner != NO_WINNER)
        return KD_ERR_NO_MOVE;
    uint8_t most = s->max_take < s->pile ? s->max_take : s->pile;
    uint8_t k = legal ? (uint8_t)(1 + kd_type_rng_below(rng, most)) : (uint8_t)(most + 1);
    return kd_buf_append(out, &k, 1);
}

const kd_episode_type pile_type = {
    .ops = &pile_ops,
    .title = "Pile",
    .summary = "Two or three seats take turns taking 1 to max_take stones; whoever takes the last stone wins.",
    .min_seats = 2,
    .max_seats = MAX_SEATS,
    .seat_names = seat_names,
    .rule_codes = rule_codes,
    .params_schema = "{\"type\":\"object\",\"properties\":{\"pile\":{\"type\":\"integer\",\"minimum\":1,"
                     "\"maximum\":200},\"max_take\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":9}},"
                     "\"additionalProperties\":false}",
    .command_schema = "{\"type\":\"object\",\"properties\":{\"take\":{\"type\":\"integer\",\"minimum\":0,"
                      "\"maximum\":255}},\"required\":[\"take\"],\"additionalProperties\":false}",
    .params_from_json = params_from_json,
    .command_from_json = command_from_json,
    .command_to_json = command_to_json,
    .status = status,
    .view_encode = view_encode,
    .view_json = view_json,
    .strategy_context = strategy_context,
    .render_text = render_text,
    .prompt = prompt,
    .legal_moves = legal_moves,
    .random_command = random_command,
};
