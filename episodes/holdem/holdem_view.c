/*
 * holdem_view.c — hold'em's public view (HmView) and every rendering made
 * from its bytes: view JSON, strategy context, text and the prompt. The
 * view carries the table and what each seat owes; hole cards only once
 * shown at the showdown, and in protocol 2 what the last settled hand
 * showed (a seat sees its own through secret_view).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "episodes/holdem/holdem.h"
#include "episodes/holdem/holdem_int.h"
#include "episodes/wire_alloc.h"
#include "holdem.pb-c.h"

kd_err kd_hm_view_encode(const void *state_ptr, int seat, kd_buf *out)
{
    (void)seat; /* the state is public: a seat's own cards come from its seed (secret_view) */
    const kd_hm_state *s = state_ptr;
    uint32_t stacks[2] = {s->stacks[0], s->stacks[1]}, bets[2] = {s->bets[0], s->bets[1]},
             put[2] = {s->put[0], s->put[1]}, values[2] = {s->values[0], s->values[1]},
             owes[2] = {kd_hm_owes(s, 0), kd_hm_owes(s, 1)};
    int32_t won[2] = {s->last_won[0], s->last_won[1]};
    uint8_t board[KD_HM_BOARD], shown[4], last_board[KD_HM_BOARD], last_shown[4];
    uint32_t last_values[2] = {s->last_values[0], s->last_values[1]};
    size_t nb = 0, nlb = 0;
    for (int i = 0; i < KD_HM_BOARD; i++) {
        if (s->board[i] != KD_HM_NO_CARD)
            board[nb++] = s->board[i];
        if (s->params.protocol >= 2 && s->last_board[i] != KD_HM_NO_CARD)
            last_board[nlb++] = s->last_board[i];
    }
    memcpy(shown, s->shown, sizeof shown);
    memcpy(last_shown, s->last_shown, sizeof last_shown);
    Kdapp__HmView v = KDAPP__HM_VIEW__INIT;
    v.hand = s->hand;
    v.button = s->button;
    v.phase = s->phase;
    v.street = s->street;
    v.to_act = s->to_act == KD_HM_NO_SEAT ? 0 : (uint32_t)s->to_act + 1;
    v.n_stacks = v.n_bets = v.n_put = v.n_values = v.n_owes = v.n_last_won = 2;
    v.stacks = stacks;
    v.bets = bets;
    v.put = put;
    v.values = values;
    v.owes = owes;
    v.last_won = won;
    v.board = (ProtobufCBinaryData){nb, board};
    v.shown = (ProtobufCBinaryData){4, shown};
    v.min_raise = s->min_raise;
    v.small_blind = s->params.small_blind;
    v.big_blind = s->params.big_blind;
    v.hand_limit = s->params.hand_limit;
    v.timeout = s->params.timeout;
    v.since = s->since;
    v.winner = s->phase == KD_HM_OVER && s->winner != KD_HM_NO_SEAT ? (uint32_t)s->winner + 1 : 0;
    v.result = s->result;
    v.move_count = s->move_count;
    v.folded = s->folded == KD_HM_NO_SEAT ? 0 : (uint32_t)s->folded + 1;
    v.cheats = s->cheats;
    v.pot_only = s->params.pot_only != 0;
    v.protocol = s->params.protocol;
    if (s->params.protocol >= 2) {
        v.last_board = (ProtobufCBinaryData){nlb, last_board};
        v.last_shown = (ProtobufCBinaryData){4, last_shown};
        v.n_last_values = 2;
        v.last_values = last_values;
    }
    return kd_pb_append(&v.base, out);
}

/* The owes a state decoded from a view must show: kept beside it. */
typedef struct {
    kd_hm_state s;
    uint32_t owes[2];
} view;

static int decode(const uint8_t *data, size_t len, view *out)
{
    memset(out, 0, sizeof *out);
    if (!data || !len)
        return -1;
    Kdapp__HmView *v = kdapp__hm_view__unpack(NULL, len, data);
    int rc = -1;
    if (!v || v->n_stacks != 2 || v->n_bets != 2 || v->n_put != 2 || v->n_values != 2 || v->n_owes != 2 ||
        v->n_last_won != 2 || v->board.len > KD_HM_BOARD || v->shown.len != 4 || v->phase > KD_HM_OVER ||
        v->street > KD_HM_SHOWDOWN || v->button > 1 || v->to_act > 2 || v->winner > 2 || v->folded > 2 ||
        v->result > KD_HM_RESULT_MUCK || v->cheats > 3 || v->protocol > KD_HM_PROTOCOL ||
        v->last_board.len > KD_HM_BOARD || (v->last_shown.len != 0 && v->last_shown.len != 4) ||
        (v->n_last_values != 0 && v->n_last_values != 2))
        goto done;
    kd_hm_state *s = &out->s;
    s->hand = v->hand;
    s->button = (uint8_t)v->button;
    s->phase = (uint8_t)v->phase;
    s->street = (uint8_t)v->street;
    s->to_act = v->to_act ? (uint8_t)(v->to_act - 1) : KD_HM_NO_SEAT;
    for (int i = 0; i < 2; i++) {
        s->stacks[i] = v->stacks[i];
        s->bets[i] = v->bets[i];
        s->put[i] = v->put[i];
        s->values[i] = v->values[i];
        s->last_won[i] = v->last_won[i];
        out->owes[i] = v->owes[i];
    }
    memset(s->board, KD_HM_NO_CARD, sizeof s->board);
    for (size_t i = 0; i < v->board.len; i++)
        s->board[i] = v->board.data[i] < KD_HM_CARDS ? v->board.data[i] : KD_HM_NO_CARD;
    for (int i = 0; i < 4; i++)
        s->shown[i / 2][i % 2] = v->shown.data[i] < KD_HM_CARDS ? v->shown.data[i] : KD_HM_NO_CARD;
    s->min_raise = v->min_raise;
    s->params.small_blind = v->small_blind;
    s->params.big_blind = v->big_blind;
    s->params.hand_limit = v->hand_limit;
    s->params.timeout = v->timeout;
    s->params.pot_only = v->pot_only;
    s->since = v->since;
    s->winner = v->winner ? (uint8_t)(v->winner - 1) : KD_HM_NO_SEAT;
    s->result = (uint8_t)v->result;
    s->move_count = v->move_count;
    s->folded = v->folded ? (uint8_t)(v->folded - 1) : KD_HM_NO_SEAT;
    s->cheats = (uint8_t)v->cheats;
    s->params.protocol = v->protocol ? v->protocol : 1;
    memset(s->last_board, KD_HM_NO_CARD, sizeof s->last_board);
    memset(s->last_shown, KD_HM_NO_CARD, sizeof s->last_shown);
    for (size_t i = 0; i < v->last_board.len; i++)
        s->last_board[i] = v->last_board.data[i] < KD_HM_CARDS ? v->last_board.data[i] : KD_HM_NO_CARD;
    for (size_t i = 0; i < v->last_shown.len; i++)
        s->last_shown[i / 2][i % 2] = v->last_shown.data[i] < KD_HM_CARDS ? v->last_shown.data[i] : KD_HM_NO_CARD;
    for (size_t i = 0; i < v->n_last_values; i++)
        s->last_values[i] = v->last_values[i];
    rc = 0;
done:
    kdapp__hm_view__free_unpacked(v, NULL);
    return rc;
}

int kd_hm_view_decode(const uint8_t *data, size_t len, kd_hm_state *out)
{
    view *v = malloc(sizeof *v);
    int rc = v ? decode(data, len, v) : -1;
    if (!rc)
        *out = v->s;
    free(v);
    return rc;
}

static const char *phase_name(unsigned p)
{
    static const char *const n[] = {"shuffle", "lock", "play", "check", "over"};
    return p <= KD_HM_OVER ? n[p] : "?";
}

static const char *street_name(unsigned s)
{
    static const char *const n[] = {"preflop", "flop", "turn", "river", "showdown"};
    return s <= KD_HM_SHOWDOWN ? n[s] : "?";
}

static const char *result_name(unsigned r)
{
    static const char *const n[] = {"none", "fold", "showdown", "split", "cheat", "void", "muck"};
    return r <= KD_HM_RESULT_MUCK ? n[r] : "?";
}

static json_t *owes_json(uint32_t owes)
{
    static const char *const n[] = {"shuffle", "lock", "keys", "bet", "secret", "show"};
    json_t *a = json_array();
    for (int i = 0; a && i < 6; i++)
        if (owes & (1u << i))
            json_array_append_new(a, json_string(n[i]));
    return a;
}

static json_t *cards_json(const uint8_t *cards, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++) {
        if (cards[i] == KD_HM_NO_CARD)
            continue;
        char name[3];
        kd_hm_card_name(cards[i], name);
        json_array_append_new(a, json_string(name));
    }
    return a;
}

static json_t *seat_name_json(uint8_t seat) { return seat <= 1 ? json_string(kd_hm_seat_names[seat]) : json_null(); }

/* The limits of the seat to act, as move_rules. */
static json_t *move_rules(const kd_hm_state *s)
{
    if (s->phase != KD_HM_PLAY || s->to_act > 1)
        return json_null();
    kd_hm_limits lim;
    kd_hm_limits_of(s, s->to_act, &lim);
    json_t *r = json_pack("{s:s, s:b, s:I}", "seat", kd_hm_seat_names[s->to_act], "can_check", lim.can_check, "call",
                          (json_int_t)lim.call);
    if (r && lim.min_to <= lim.max_to) {
        json_object_set_new(r, "min_raise_to", json_integer(lim.min_to));
        json_object_set_new(r, "max_raise_to", json_integer(lim.max_to));
    }
    return r;
}

/* The hands shown ({"seat0": ["As", "Kd"], ...}) and their values, for
 * the seats that showed; both null when none did. */
static void shown_json(const uint8_t shown[2][2], const uint32_t values[2], json_t **cards, json_t **texts)
{
    *cards = json_null();
    *texts = json_null();
    for (int i = 0; i < 2; i++) {
        if (shown[i][0] == KD_HM_NO_CARD)
            continue;
        char text[48];
        kd_hm_value_text(values[i], text, sizeof text);
        if (json_is_null(*cards)) {
            *cards = json_object();
            *texts = json_object();
        }
        json_object_set_new(*cards, kd_hm_seat_names[i], cards_json(shown[i], 2));
        json_object_set_new(*texts, kd_hm_seat_names[i], json_string(text));
    }
}

static json_t *to_json(const view *v)
{
    const kd_hm_state *s = &v->s;
    json_t *shown, *values;
    shown_json(s->shown, s->values, &shown, &values);
    json_t *j = json_pack(
        "{s:I, s:s, s:s, s:s, s:o, s:[I,I], s:[I,I], s:[I,I], s:I, s:o, s:o, s:o, s:{s:o, s:o}, s:I, s:I, s:I, s:I, "
        "s:I, s:I, s:o, s:s, s:[I,I], s:I, s:b, s:o, s:o}",
        "hand", (json_int_t)s->hand, "button", kd_hm_seat_names[s->button & 1], "stage", phase_name(s->phase), "street",
        street_name(s->street), "to_act", seat_name_json(s->to_act), "stacks", (json_int_t)s->stacks[0],
        (json_int_t)s->stacks[1], "bets", (json_int_t)s->bets[0], (json_int_t)s->bets[1], "put", (json_int_t)s->put[0],
        (json_int_t)s->put[1], "pot", (json_int_t)kd_hm_pot(s), "board", cards_json(s->board, KD_HM_BOARD), "shown",
        shown, "hand_values", values, "owes", kd_hm_seat_names[0], owes_json(v->owes[0]), kd_hm_seat_names[1],
        owes_json(v->owes[1]), "min_raise", (json_int_t)s->min_raise, "small_blind", (json_int_t)s->params.small_blind,
        "big_blind", (json_int_t)s->params.big_blind, "hand_limit", (json_int_t)s->params.hand_limit, "timeout",
        (json_int_t)s->params.timeout, "since", (json_int_t)s->since, "match_winner",
        s->phase == KD_HM_OVER ? seat_name_json(s->winner) : json_null(), "last_result", result_name(s->result),
        "last_won", (json_int_t)s->last_won[0], (json_int_t)s->last_won[1], "move_count", (json_int_t)s->move_count,
        "pot_only", s->params.pot_only != 0, "folded", seat_name_json(s->folded), "move_rules", move_rules(s));
    if (j && s->cheats)
        json_object_set_new(j, "cheaters", json_pack("[b,b]", s->cheats & 1, (s->cheats >> 1) & 1));
    if (j)
        json_object_set_new(j, "protocol", json_integer(s->params.protocol));
    if (j && s->params.protocol >= 2 && s->result != KD_HM_RESULT_NONE) {
        json_t *last_shown, *last_values;
        shown_json(s->last_shown, s->last_values, &last_shown, &last_values);
        json_object_set_new(j, "last_hand",
                            json_pack("{s:o, s:o, s:o}", "board", cards_json(s->last_board, KD_HM_BOARD), "shown",
                                      last_shown, "hand_values", last_values));
    }
    return j;
}

json_t *kd_hm_view_json(const uint8_t *data, size_t len)
{
    view *v = malloc(sizeof *v);
    json_t *j = v && decode(data, len, v) == 0 ? to_json(v) : NULL;
    free(v);
    return j;
}

json_t *kd_hm_strategy_context(const uint8_t *data, size_t len)
{
    json_t *j = kd_hm_view_json(data, len);
    if (j)
        json_object_set_new(j, "rule_text", json_string(KD_HM_RULES_TEXT));
    return j;
}

static kd_err append(kd_buf *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static kd_err append(kd_buf *out, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0)
        return KD_ERR_INTERNAL;
    return kd_buf_append(out, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

static void cards_text(const uint8_t *cards, size_t n, char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n && used + 4 < len; i++) {
        char name[3];
        kd_hm_card_name(cards[i], name);
        used += (size_t)snprintf(out + used, len - used, "%s%s", i ? " " : "", cards[i] == KD_HM_NO_CARD ? "--" : name);
    }
}

static kd_err render(const view *v, kd_buf *out)
{
    const kd_hm_state *s = &v->s;
    char board[32];
    cards_text(s->board, KD_HM_BOARD, board, sizeof board);
    kd_err err =
        append(out, "hand %u, %s, %s; button %s; blinds %u/%u\n", s->hand, phase_name(s->phase), street_name(s->street),
               kd_hm_seat_names[s->button & 1], s->params.small_blind, s->params.big_blind);
    if (!err)
        err = append(out, "board  [%s]   pot %u\n", board, kd_hm_pot(s));
    for (int i = 0; !err && i < 2; i++) {
        char shown[16] = "";
        if (s->shown[i][0] != KD_HM_NO_CARD) {
            char value[48];
            cards_text(s->shown[i], 2, shown, sizeof shown);
            kd_hm_value_text(s->values[i], value, sizeof value);
            err = append(out, "%s%s stack %u, bet %u; shows %s: %s\n", kd_hm_seat_names[i],
                         s->button == i ? " (button)" : "", s->stacks[i], s->bets[i], shown, value);
        } else
            err =
                append(out, "%s%s stack %u, bet %u%s%s\n", kd_hm_seat_names[i], s->button == i ? " (button)" : "",
                       s->stacks[i], s->bets[i], s->folded == i ? ", folded" : "", s->to_act == i ? "  <- to act" : "");
    }
    if (!err && s->phase == KD_HM_OVER)
        err = append(out, "match over: %s\n", s->winner <= 1 ? kd_hm_seat_names[s->winner] : "a draw");
    else if (!err && s->result != KD_HM_RESULT_NONE)
        err = append(out, "last hand: %s (%+d / %+d)\n", result_name(s->result), s->last_won[0], s->last_won[1]);
    for (int i = 0; !err && s->params.protocol >= 2 && i < 2; i++) /* what the last hand showed */
        if (s->last_shown[i][0] != KD_HM_NO_CARD) {
            char shown[16], value[48];
            cards_text(s->last_shown[i], 2, shown, sizeof shown);
            kd_hm_value_text(s->last_values[i], value, sizeof value);
            err = append(out, "  %s showed %s: %s\n", kd_hm_seat_names[i], shown, value);
        }
    return err;
}

kd_err kd_hm_render_text(const uint8_t *data, size_t len, unsigned flags, kd_buf *out)
{
    (void)flags;
    view *v = malloc(sizeof *v);
    if (!v)
        return KD_ERR_NOMEM;
    kd_err err = decode(data, len, v) == 0 ? render(v, out) : KD_ERR_DECODE;
    free(v);
    return err;
}

kd_err kd_hm_prompt(const uint8_t *data, size_t len, uint32_t episode_id, int seat, kd_buf *out)
{
    if (seat != 0 && seat != 1)
        return KD_ERR_INVALID_ARG;
    view *v = malloc(sizeof *v);
    if (!v)
        return KD_ERR_NOMEM;
    kd_err err = decode(data, len, v) == 0 ? KD_OK : KD_ERR_DECODE;
    if (!err)
        err = append(out, "You play %s in hold'em episode %u.\n%s\n\nThe table:\n", kd_hm_seat_names[seat], episode_id,
                     KD_HM_RULES_TEXT);
    if (!err)
        err = render(v, out);
    if (!err && v->s.to_act == seat) {
        kd_hm_limits lim;
        kd_hm_limits_of(&v->s, seat, &lim);
        err = append(out,
                     "\nYour own hole cards are in own_secret (kdapp_get_episode_state with your player). To call "
                     "pays %u.%s Answer with exactly one JSON command: {\"fold\": true}, %s",
                     lim.call, lim.min_to <= lim.max_to ? "" : " You may not raise.",
                     lim.can_check ? "{\"check\": true}" : "{\"call\": true}");
        if (!err && lim.min_to <= lim.max_to)
            err = append(out, " or {\"raise\": N} with N the total of your bet this round, %u..%u.", lim.min_to,
                         lim.max_to);
        if (!err)
            err = append(out, "\n");
    }
    free(v);
    return err;
}
