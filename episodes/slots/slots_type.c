/*
 * slots_type.c — "slots" in the type table: schemas, JSON ({"spin": bet,
 * "entropy": hex}, {"reveal": proof hex}, {"claim": true}), the view (SlotsView)
 * and its renderings (the text shows the strip, the paytable and the exact
 * return to player), legal moves (spins of 1, 5, 10, 50, 100 credits with
 * the public entropy SHA-256(house key || round)), random commands, the
 * house's secret hooks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chance.pb-c.h"
#include "episodes/slots/slots.h"
#include "episodes/wire_alloc.h"

static const char *const seat_names[2] = {"player", "house"};

#define RULES_TEXT                                                                                             \
    "Slot machine: three reels, each the published strip of 20 stops; the player spins with a bet (1 to 1000 " \
    "credits) and 32 bytes of entropy, the house reveals its VRF proof for the draw (the episode, the draw "   \
    "number, the entropy) under the key it committed to, the three stops come from the VRF output, and the "   \
    "payline pays bet x the paytable's multiplier (the first line that matches). A house that does not "       \
    "reveal within the reveal timeout (DAA score) forfeits: the claim pays the bet x 300 and ends the "        \
    "episode. The episode ends when the credits are gone or after max_rounds spins."

static const char *status_name(unsigned s)
{
    static const char *const n[4] = {"in_progress", "finished", "broke", "house_forfeit"};
    return s < 4 ? n[s] : "?";
}

static kd_err view_encode(const void *state_ptr, int seat, kd_buf *out)
{
    (void)seat;
    const kd_slots_state *s = state_ptr;
    const kd_slots_table *t = &s->table;
    Kdapp__HouseView hv = KDAPP__HOUSE_VIEW__INIT;
    Kdapp__SlotsView v = KDAPP__SLOTS_VIEW__INIT;
    uint32_t stops[KD_SLOTS_REELS];
    kd_house_view_fill(&s->house, &hv);
    v.house = &hv;
    v.status = t->status;
    v.credits = t->credits;
    v.start_credits = t->start_credits;
    v.rounds = t->rounds;
    v.max_rounds = t->max_rounds;
    v.pending_bet = t->bet;
    v.last_bet = t->last_bet;
    v.last_win = t->last_win;
    if (t->stops[0]) {
        for (int r = 0; r < KD_SLOTS_REELS; r++)
            stops[r] = t->stops[r] - 1u;
        v.n_last_stops = KD_SLOTS_REELS;
        v.last_stops = stops;
    }
    return kd_pb_append(&v.base, out);
}

static Kdapp__SlotsView *view_decode(const uint8_t *data, size_t len)
{
    Kdapp__SlotsView *v = data && len ? kdapp__slots_view__unpack(NULL, len, data) : NULL;
    int bad = v && (!v->house || v->status > 3 || (v->n_last_stops != 0 && v->n_last_stops != KD_SLOTS_REELS));
    for (size_t r = 0; v && !bad && r < v->n_last_stops; r++)
        bad = v->last_stops[r] >= KD_SLOTS_STOPS;
    if (bad) {
        kdapp__slots_view__free_unpacked(v, NULL);
        return NULL;
    }
    return v;
}

static kd_game_status status(const void *state_ptr)
{
    const kd_slots_state *s = state_ptr;
    const kd_slots_table *t = &s->table;
    kd_game_status st = {KD_PHASE_IN_PROGRESS, KD_SEAT_NONE, s->house.pending ? KD_SLOTS_HOUSE : KD_SLOTS_PLAYER};
    if (t->status == KD_SLOTS_IN_PROGRESS)
        return st;
    st.to_move = KD_SEAT_NONE;
    if (t->status == KD_SLOTS_HOUSE_FORFEIT || (t->status == KD_SLOTS_FINISHED && t->credits > t->start_credits))
        st = (kd_game_status){KD_PHASE_WON, KD_SLOTS_PLAYER, KD_SEAT_NONE};
    else if (t->status == KD_SLOTS_BROKE || t->credits < t->start_credits)
        st = (kd_game_status){KD_PHASE_WON, KD_SLOTS_HOUSE, KD_SEAT_NONE};
    else
        st.phase = KD_PHASE_DRAW;
    return st;
}

static json_t *rtp_json(void)
{
    uint64_t num, den;
    kd_slots_rtp(&num, &den);
    return json_pack("{s:I, s:I, s:f}", "numerator", (json_int_t)num, "denominator", (json_int_t)den, "percent",
                     100.0 * (double)num / (double)den);
}

static json_t *view_json(const uint8_t *view, size_t len)
{
    Kdapp__SlotsView *v = view_decode(view, len);
    if (!v)
        return NULL;
    json_t *stops = json_null(), *symbols = json_null();
    if (v->n_last_stops) {
        stops = json_array();
        symbols = json_array();
        for (size_t r = 0; r < v->n_last_stops; r++) {
            json_array_append_new(stops, json_integer(v->last_stops[r]));
            json_array_append_new(symbols, json_string(kd_slots_symbol_names[kd_slots_strip[v->last_stops[r]]]));
        }
    }
    json_t *j =
        json_pack("{s:s, s:I, s:I, s:I, s:I, s:o, s:o, s:o, s:I, s:I, s:o, s:o}", "status", status_name(v->status),
                  "credits", (json_int_t)v->credits, "start_credits", (json_int_t)v->start_credits, "rounds",
                  (json_int_t)v->rounds, "max_rounds", (json_int_t)v->max_rounds, "pending_bet",
                  v->pending_bet ? json_integer(v->pending_bet) : json_null(), "last_stops", stops, "last_symbols",
                  symbols, "last_bet", (json_int_t)v->last_bet, "last_win", (json_int_t)v->last_win, "return_to_player",
                  rtp_json(), "house", kd_house_view_json(v->house, seat_names, 2));
    kdapp__slots_view__free_unpacked(v, NULL);
    return j;
}

static kd_err put_machine(const Kdapp__SlotsView *v, int with_tables, kd_buf *out)
{
    kd_err err = kd_buf_appendf(out, "slots: %u credits (started with %u), spin %u of %u, %s\n", (unsigned)v->credits,
                                (unsigned)v->start_credits, (unsigned)v->rounds, (unsigned)v->max_rounds,
                                status_name(v->status));
    if (!err && v->n_last_stops)
        err = kd_buf_appendf(out, "last spin: [%s | %s | %s] (stops %u %u %u): bet %u, paid %u\n",
                             kd_slots_symbol_names[kd_slots_strip[v->last_stops[0]]],
                             kd_slots_symbol_names[kd_slots_strip[v->last_stops[1]]],
                             kd_slots_symbol_names[kd_slots_strip[v->last_stops[2]]], (unsigned)v->last_stops[0],
                             (unsigned)v->last_stops[1], (unsigned)v->last_stops[2], (unsigned)v->last_bet,
                             (unsigned)v->last_win);
    if (!err && v->pending_bet)
        err = kd_buf_appendf(out, "the reels spin (bet %u): waiting for the house's reveal (claimable from DAA %llu)\n",
                             (unsigned)v->pending_bet,
                             (unsigned long long)(v->house->asked_daa + v->house->reveal_timeout));
    if (!err && with_tables) {
        err = kd_buf_appendf(out, "reel strip (each reel, stops 0-19):");
        for (int i = 0; !err && i < KD_SLOTS_STOPS; i++)
            err = kd_buf_appendf(out, " %s", kd_slots_symbol_names[kd_slots_strip[i]]);
        if (!err)
            err = kd_buf_appendf(out, "\npaytable (bet x, the first line that matches):\n");
        for (int i = 0; !err && i < KD_SLOTS_PAYS; i++)
            err = kd_buf_appendf(out, "  %-22s %3u\n", kd_slots_paytable[i].text,
                                 (unsigned)kd_slots_paytable[i].multiplier);
        uint64_t num, den;
        kd_slots_rtp(&num, &den);
        if (!err)
            err = kd_buf_appendf(out, "return to player: %llu/%llu = %.4f%% (exact, over all %d stop combinations)\n",
                                 (unsigned long long)num, (unsigned long long)den, 100.0 * (double)num / (double)den,
                                 KD_SLOTS_STOPS * KD_SLOTS_STOPS * KD_SLOTS_STOPS);
    }
    return err;
}

static kd_err render_text(const uint8_t *view, size_t len, unsigned flags, kd_buf *out)
{
    (void)flags;
    Kdapp__SlotsView *v = view_decode(view, len);
    if (!v)
        return KD_ERR_DECODE;
    kd_err err = put_machine(v, 1, out);
    kdapp__slots_view__free_unpacked(v, NULL);
    return err;
}

static json_t *strategy_context(const uint8_t *view, size_t len)
{
    json_t *j = view_json(view, len);
    if (j)
        json_object_set_new(j, "rules", json_string(RULES_TEXT));
    return j;
}

static kd_err prompt(const uint8_t *view, size_t len, uint32_t episode_id, int seat, kd_buf *out)
{
    if (seat != KD_SLOTS_PLAYER && seat != KD_SLOTS_HOUSE)
        return KD_ERR_INVALID_ARG;
    Kdapp__SlotsView *v = view_decode(view, len);
    if (!v)
        return KD_ERR_DECODE;
    kd_err err = kd_buf_appendf(out, "You are the %s in slots episode %u. %s\n\n", seat_names[seat],
                                (unsigned)episode_id, RULES_TEXT);
    if (!err)
        err = put_machine(v, 1, out);
    if (!err && seat == KD_SLOTS_PLAYER && v->status == 0 && !v->pending_bet)
        err = kd_buf_appendf(out,
                             "\nYour spin (a bet of 1 to %u credits, at most your %u). Answer with the command JSON "
                             "only, for example {\"spin\": 10, \"entropy\": \"<64 hex digits of your own "
                             "randomness>\"}\n",
                             KD_SLOTS_BET_MAX, (unsigned)v->credits);
    else if (!err)
        err = kd_buf_appendf(out, "\nIt is not your move.\n");
    kdapp__slots_view__free_unpacked(v, NULL);
    return err;
}

/* ----------------------------------------------------------- JSON ⇄ bytes */

static const char params_schema[] =
    "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{" KD_HOUSE_PARAMS_SCHEMA ","
    "\"start_credits\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":1000000,\"description\":\"default 1000\"},"
    "\"max_rounds\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":10000,\"description\":\"spins, default 100\"}}}";

static const char command_schema[] = "{\"type\":\"object\",\"properties\":{"
                                     "\"spin\":{\"type\":\"integer\",\"minimum\":0,\"description\":\"the bet, 1 to "
                                     "1000 credits\"}," KD_HOUSE_COMMAND_SCHEMA "}}";

static kd_err params_from_json(const json_t *params, kd_buf *out, char *why, size_t why_len)
{
    kd_slots_params p;
    memset(&p, 0, sizeof p);
    p.start_credits = KD_SLOTS_CREDITS_DEFAULT;
    p.max_rounds = KD_SLOTS_ROUNDS_DEFAULT;
    kd_err err = kd_house_params_from_json(params, &p.house, why, why_len);
    if (!err)
        err = kd_params_uint(params, "start_credits", 1, KD_SLOTS_CREDITS_MAX, &p.start_credits, why, why_len);
    if (!err)
        err = kd_params_uint(params, "max_rounds", 1, KD_SLOTS_ROUNDS_MAX, &p.max_rounds, why, why_len);
    return err ? err : kd_slots_params_encode(&p, out);
}

static kd_err command_from_json(const json_t *command, int seat, kd_buf *out, char *why, size_t why_len)
{
    (void)seat;
    kd_slots_command c;
    memset(&c, 0, sizeof c);
    unsigned kind;
    kd_err err = kd_house_command_from_json(command, "spin",
                                            "a slots command is one of {\"spin\": bet, \"entropy\": hex64}, "
                                            "{\"reveal\": hex162}, {\"claim\": true}",
                                            &kind, c.proof, why, why_len);
    if (err)
        return err;
    c.kind = (uint8_t)kind;
    if (kind == KD_HOUSE_CMD_ASK) {
        const json_t *spin = json_object_get(command, "spin");
        if (!json_is_integer(spin) || json_integer_value(spin) < 0 || json_integer_value(spin) > UINT32_MAX) {
            kd_reject_write(why, why_len, "spin is the bet, a whole number of credits");
            return KD_ERR_BAD_COMMAND;
        }
        c.bet = (uint32_t)json_integer_value(spin);
        err = kd_house_hex32_from_json(json_object_get(command, "entropy"), "entropy", c.entropy, why, why_len);
    }
    return err ? err : kd_slots_command_encode(&c, out);
}

static json_t *command_to_json(const uint8_t *command, size_t len)
{
    kd_slots_command c;
    if (kd_slots_command_decode(command, len, &c, NULL) != KD_OK)
        return NULL;
    if (c.kind != KD_SLOTS_CMD_SPIN)
        return kd_house_answer_json(c.kind, c.proof);
    return kd_house_ask_json("spin", json_integer(c.bet), c.entropy);
}

/* ------------------------------------------------------------------ moves */

static kd_err put_spin(uint32_t bet, const uint8_t entropy[32], kd_buf *out)
{
    kd_slots_command c;
    memset(&c, 0, sizeof c);
    c.kind = KD_SLOTS_CMD_SPIN;
    c.bet = bet;
    memcpy(c.entropy, entropy, 32);
    return kd_slots_command_encode(&c, out);
}

static kd_err legal_moves(const void *state_ptr, int seat, kd_legal_moves *out)
{
    const kd_slots_state *s = state_ptr;
    static const uint32_t bets[] = {1, 5, 10, 50, 100};
    if (s->table.status || seat != KD_SLOTS_PLAYER || s->house.pending)
        return KD_OK;
    uint8_t entropy[32];
    kd_house_public_entropy(&s->house, s->table.rounds, entropy);
    kd_err err = KD_OK;
    for (size_t i = 0; !err && i < sizeof bets / sizeof bets[0] && bets[i] <= s->table.credits; i++) {
        kd_buf cmd;
        kd_buf_init(&cmd);
        char notation[KD_NOTATION_MAX];
        snprintf(notation, sizeof notation, "spin %u", (unsigned)bets[i]);
        err = put_spin(bets[i], entropy, &cmd);
        if (!err)
            err = kd_legal_moves_push(out, cmd.data, cmd.len, notation);
        kd_buf_fini(&cmd);
    }
    return err;
}

/* Legal: a bet of 1..min(credits, 20). Illegal: a bet of 0 or over 1000
 * (bad_bet), more than the credits (insufficient_credits), an early claim;
 * the house's proof that does not verify (bad_proof). */
static kd_err random_command(const void *state_ptr, int seat, int legal, uint64_t *rng, kd_buf *out)
{
    const kd_slots_state *s = state_ptr;
    uint8_t entropy[32];
    for (int i = 0; i < 4; i++) {
        uint64_t r = kd_type_rng_next(rng);
        memcpy(entropy + 8 * i, &r, 8);
    }
    if (legal) {
        if (s->table.status || seat != KD_SLOTS_PLAYER || s->house.pending || s->table.credits == 0)
            return KD_ERR_NO_MOVE;
        uint32_t cap = s->table.credits < 20 ? s->table.credits : 20;
        return put_spin(1 + kd_type_rng_below(rng, cap), entropy, out);
    }
    kd_slots_command c;
    memset(&c, 0, sizeof c);
    if (seat == KD_SLOTS_HOUSE) {
        c.kind = KD_SLOTS_CMD_REVEAL;
        for (size_t i = 0; i < sizeof c.proof; i++)
            c.proof[i] = entropy[i % sizeof entropy];
        return kd_slots_command_encode(&c, out);
    }
    switch (kd_type_rng_below(rng, 3)) {
    case 0:
        return put_spin(kd_type_rng_below(rng, 2) ? 0 : KD_SLOTS_BET_MAX + 1, entropy, out);
    case 1:
        return put_spin(s->table.credits < KD_SLOTS_BET_MAX ? s->table.credits + 1 : 0, entropy, out);
    default:
        c.kind = KD_SLOTS_CMD_CLAIM;
        return kd_slots_command_encode(&c, out);
    }
}

/* ---------------------------------------------------- secrets and audit */

KD_HOUSE_TYPE_HOOKS(slots, KD_SLOTS_HOUSE, s->table.status == KD_SLOTS_IN_PROGRESS);

static json_t *draw_outcome(const void *state, kd_fair_stream *stream)
{
    const kd_slots_state *s = state;
    uint8_t stops[KD_SLOTS_REELS];
    kd_slots_outcome(stream, stops);
    json_t *stops_json = json_array(), *symbols = json_array();
    for (int r = 0; stops_json && symbols && r < KD_SLOTS_REELS; r++) {
        json_array_append_new(stops_json, json_integer(stops[r]));
        json_array_append_new(symbols, json_string(kd_slots_symbol_names[kd_slots_strip[stops[r]]]));
    }
    uint32_t multiplier = kd_slots_multiplier(stops);
    return json_pack("{s:o, s:o, s:I, s:I}", "stops", stops_json, "symbols", symbols, "multiplier",
                     (json_int_t)multiplier, "bet", (json_int_t)s->table.bet);
}

/* The house's terms (episode_type.h): the player's credits, the spins,
 * its time to reveal. */
static const kd_house_term house_terms[] = {
    {"start_credits", NULL, "the player's credits at the start", 1, 10000},
    {"max_rounds", NULL, "spins before the episode ends", 1, 1000},
    KD_HOUSE_TIMEOUT_TERM,
    {NULL, NULL, NULL, 0, 0},
};

const kd_episode_type kd_slots_type = {
    .ops = &kd_slots_ops,
    .title = "Slot machine",
    .summary = RULES_TEXT " Seats: player (first participant), house. Command {\"spin\": 10, \"entropy\": hex64}; "
                          "the house's {\"reveal\": hex162}; {\"claim\": true}.",
    .min_seats = 2,
    .max_seats = 2,
    .seat_names = seat_names,
    .rule_codes = kd_slots_rule_codes,
    .params_schema = params_schema,
    .command_schema = command_schema,
    .params_from_json = params_from_json,
    .params_message = &kdapp__slots_params__descriptor,
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
    .draw_outcome = draw_outcome,
    KD_HOUSE_TYPE_MEMBERS(KD_SLOTS_HOUSE),
    .house_terms = house_terms,
};
