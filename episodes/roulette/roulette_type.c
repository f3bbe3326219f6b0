/*
 * roulette_type.c — "roulette" in the type table: schemas, JSON of params
 * and commands ({"bets": [{"kind", "number" | "numbers", "amount"}],
 * "entropy": hex}, {"reveal": proof hex}, {"claim": true}), the view
 * (RouletteView) and its renderings, legal moves (one-chip bets, with the
 * public entropy SHA-256(house key || round): leave "entropy" out at the
 * gateway for fresh bytes), random commands, the house's secret hooks.
 * Pocket 00 is 37 on the wire and "00" in JSON.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chance.pb-c.h"
#include "episodes/roulette/roulette.h"
#include "episodes/wire_alloc.h"

static const char *const seat_names[2] = {"player", "house"};

#define RULES_TEXT                                                                                                     \
    "American roulette: 38 pockets, 0, 00 and 1 to 36. The player puts up to 16 bets on the table with 32 bytes "      \
    "of entropy; the stakes leave the chips, the house reveals its VRF proof for the draw (the episode, the draw "     \
    "number, the entropy) under the key it committed to, and the pocket comes from the VRF output. Winning bets "      \
    "pay stake x (payout + 1): straight 35:1 (one pocket), split 17:1 (two adjacent, or 0-00), street 11:1 (a row of " \
    "three, "                                                                                                          \
    "by its first number), corner 8:1 (four, by the lowest), six_line 5:1 (two rows, by the first number), "           \
    "top_line 6:1 (0, 00, 1, 2, 3), red, black, odd, even, low (1-18), high (19-36) 1:1, dozen and column 2:1 "        \
    "(number 1 to 3). 0 and 00 lose the outside bets. A house that does not reveal within the reveal timeout "         \
    "(DAA score) forfeits: the claim pays every bet as if it won and ends the episode. The episode ends when the "     \
    "chips are gone or after max_rounds spins."

static const char *status_name(unsigned s)
{
    static const char *const n[4] = {"in_progress", "finished", "broke", "house_forfeit"};
    return s < 4 ? n[s] : "?";
}

static json_t *pocket_json(unsigned p) { return p == KD_ROULETTE_DOUBLE_ZERO ? json_string("00") : json_integer(p); }

static void pocket_text(unsigned p, char *out, size_t len)
{
    if (p == KD_ROULETTE_DOUBLE_ZERO)
        snprintf(out, len, "00");
    else
        snprintf(out, len, "%u %s", p, p == 0 ? "green" : kd_roulette_red(p) ? "red" : "black");
}

/* ------------------------------------------------------------- view bytes */

static kd_err view_encode(const void *state_ptr, int seat, kd_buf *out)
{
    (void)seat;
    const kd_roulette_state *s = state_ptr;
    const kd_roulette_table *t = &s->table;
    Kdapp__HouseView hv = KDAPP__HOUSE_VIEW__INIT;
    Kdapp__RouletteView v = KDAPP__ROULETTE_VIEW__INIT;
    Kdapp__RouletteBet b[KD_ROULETTE_MAX_BETS], *bp[KD_ROULETTE_MAX_BETS];
    uint32_t recent[KD_ROULETTE_RECENT];
    kd_house_view_fill(&s->house, &hv);
    v.house = &hv;
    v.status = t->status;
    v.chips = t->chips;
    v.start_chips = t->start_chips;
    v.rounds = t->rounds;
    v.max_rounds = t->max_rounds;
    v.last_pocket = t->last_pocket;
    v.last_win = t->last_win;
    v.last_stake = t->last_stake;
    for (unsigned i = 0; i < t->n_bets; i++) {
        Kdapp__RouletteBet init = KDAPP__ROULETTE_BET__INIT;
        b[i] = init;
        b[i].kind = t->bets[i].kind;
        b[i].number = t->bets[i].number;
        b[i].number2 = t->bets[i].number2;
        b[i].amount = t->bets[i].amount;
        bp[i] = &b[i];
    }
    v.n_pending = t->n_bets;
    v.pending = bp;
    for (unsigned i = 0; i < t->n_recent; i++)
        recent[i] = t->recent[i];
    v.n_recent = t->n_recent;
    v.recent = recent;
    return kd_pb_append(&v.base, out);
}

static Kdapp__RouletteView *view_decode(const uint8_t *data, size_t len)
{
    Kdapp__RouletteView *v = data && len ? kdapp__roulette_view__unpack(NULL, len, data) : NULL;
    if (v && (!v->house || v->status > 3 || v->last_pocket > KD_ROULETTE_POCKETS)) {
        kdapp__roulette_view__free_unpacked(v, NULL);
        return NULL;
    }
    return v;
}

static kd_game_status status_of(unsigned status, int pending, uint32_t chips, uint32_t start)
{
    kd_game_status st = {KD_PHASE_IN_PROGRESS, KD_SEAT_NONE, pending ? KD_ROULETTE_HOUSE : KD_ROULETTE_PLAYER};
    if (status == KD_ROULETTE_IN_PROGRESS)
        return st;
    st.to_move = KD_SEAT_NONE;
    if (status == KD_ROULETTE_HOUSE_FORFEIT || (status == KD_ROULETTE_FINISHED && chips > start)) {
        st.phase = KD_PHASE_WON;
        st.winner = KD_ROULETTE_PLAYER;
    } else if (status == KD_ROULETTE_BROKE || chips < start) {
        st.phase = KD_PHASE_WON;
        st.winner = KD_ROULETTE_HOUSE;
    } else {
        st.phase = KD_PHASE_DRAW;
    }
    return st;
}

static kd_game_status status(const void *state_ptr)
{
    const kd_roulette_state *s = state_ptr;
    return status_of(s->table.status, s->house.pending, s->table.chips, s->table.start_chips);
}

static json_t *bet_json(unsigned kind, unsigned n, unsigned n2, unsigned amount)
{
    json_t *b = json_pack("{s:s, s:I}", "kind", kd_roulette_bet_name(kind), "amount", (json_int_t)amount);
    if (!b)
        return NULL;
    if (kind == KD_RBET_SPLIT)
        json_object_set_new(b, "numbers", json_pack("[o, o]", pocket_json(n), pocket_json(n2)));
    else if (kd_roulette_bet_valid(kind, n, 0) && (n || kind == KD_RBET_STRAIGHT))
        json_object_set_new(b, "number", pocket_json(n));
    else if (n)
        json_object_set_new(b, "number", json_integer(n));
    return b;
}

static json_t *view_json(const uint8_t *view, size_t len)
{
    Kdapp__RouletteView *v = view_decode(view, len);
    if (!v)
        return NULL;
    json_t *bets = json_array(), *recent = json_array();
    for (size_t i = 0; bets && i < v->n_pending; i++)
        json_array_append_new(
            bets, bet_json(v->pending[i]->kind, v->pending[i]->number, v->pending[i]->number2, v->pending[i]->amount));
    for (size_t i = 0; recent && i < v->n_recent; i++)
        json_array_append_new(recent, pocket_json(v->recent[i]));
    json_t *j =
        json_pack("{s:s, s:I, s:I, s:I, s:I, s:o, s:o, s:I, s:I, s:o, s:o}", "status", status_name(v->status), "chips",
                  (json_int_t)v->chips, "start_chips", (json_int_t)v->start_chips, "rounds", (json_int_t)v->rounds,
                  "max_rounds", (json_int_t)v->max_rounds, "pending_bets", bets ? bets : json_null(), "last_pocket",
                  v->last_pocket ? pocket_json(v->last_pocket - 1) : json_null(), "last_stake",
                  (json_int_t)v->last_stake, "last_win", (json_int_t)v->last_win, "recent_pockets",
                  recent ? recent : json_null(), "house", kd_house_view_json(v->house, seat_names, 2));
    kdapp__roulette_view__free_unpacked(v, NULL);
    return j;
}

static json_t *strategy_context(const uint8_t *view, size_t len)
{
    json_t *j = view_json(view, len);
    if (j)
        json_object_set_new(j, "rules", json_string(RULES_TEXT));
    return j;
}

static kd_err put_table(const Kdapp__RouletteView *v, kd_buf *out)
{
    char p[32];
    kd_err err =
        kd_buf_appendf(out, "roulette: %u chips (started with %u), spin %u of %u, %s\n", (unsigned)v->chips,
                       (unsigned)v->start_chips, (unsigned)v->rounds, (unsigned)v->max_rounds, status_name(v->status));
    if (!err && v->last_pocket) {
        pocket_text(v->last_pocket - 1, p, sizeof p);
        err = kd_buf_appendf(out, "last spin: %s; staked %u, paid back %u\n", p, (unsigned)v->last_stake,
                             (unsigned)v->last_win);
    }
    if (!err && v->n_recent) {
        err = kd_buf_appendf(out, "recent pockets:");
        for (size_t i = 0; !err && i < v->n_recent; i++)
            err = v->recent[i] == KD_ROULETTE_DOUBLE_ZERO ? kd_buf_appendf(out, " 00")
                                                          : kd_buf_appendf(out, " %u", (unsigned)v->recent[i]);
        if (!err)
            err = kd_buf_appendf(out, "\n");
    }
    for (size_t i = 0; !err && i < v->n_pending; i++) {
        const Kdapp__RouletteBet *b = v->pending[i];
        char where[32] = "";
        if (b->kind == KD_RBET_SPLIT)
            snprintf(where, sizeof where, " %u/%s", (unsigned)b->number,
                     b->number2 == KD_ROULETTE_DOUBLE_ZERO ? "00" : "");
        if (b->kind == KD_RBET_SPLIT && b->number2 != KD_ROULETTE_DOUBLE_ZERO)
            snprintf(where, sizeof where, " %u/%u", (unsigned)b->number, (unsigned)b->number2);
        else if (b->kind == KD_RBET_STRAIGHT && b->number == KD_ROULETTE_DOUBLE_ZERO)
            snprintf(where, sizeof where, " 00");
        else if (b->kind != KD_RBET_SPLIT && (b->number || b->kind == KD_RBET_STRAIGHT))
            snprintf(where, sizeof where, " %u", (unsigned)b->number);
        err = kd_buf_appendf(out, "  on the table: %s%s, %u chips\n", kd_roulette_bet_name(b->kind), where,
                             (unsigned)b->amount);
    }
    if (!err && v->house->pending)
        err = kd_buf_appendf(out, "the wheel spins: waiting for the house's reveal (claimable from DAA %llu)\n",
                             (unsigned long long)(v->house->asked_daa + v->house->reveal_timeout));
    return err;
}

static kd_err render_text(const uint8_t *view, size_t len, unsigned flags, kd_buf *out)
{
    (void)flags;
    Kdapp__RouletteView *v = view_decode(view, len);
    if (!v)
        return KD_ERR_DECODE;
    kd_err err = put_table(v, out);
    kdapp__roulette_view__free_unpacked(v, NULL);
    return err;
}

static kd_err prompt(const uint8_t *view, size_t len, uint32_t episode_id, int seat, kd_buf *out)
{
    if (seat != KD_ROULETTE_PLAYER && seat != KD_ROULETTE_HOUSE)
        return KD_ERR_INVALID_ARG;
    Kdapp__RouletteView *v = view_decode(view, len);
    if (!v)
        return KD_ERR_DECODE;
    kd_err err = kd_buf_appendf(out, "You are the %s in roulette episode %u. %s\n\n", seat_names[seat],
                                (unsigned)episode_id, RULES_TEXT);
    if (!err)
        err = put_table(v, out);
    if (!err && seat == KD_ROULETTE_PLAYER && v->status == 0 && !v->house->pending)
        err = kd_buf_appendf(out,
                             "\nPlace your bets (total at most your %u chips). Answer with the command JSON only, "
                             "for example {\"bets\": [{\"kind\": \"straight\", \"number\": 17, \"amount\": 10}, "
                             "{\"kind\": \"split\", \"numbers\": [17, 18], \"amount\": 5}, {\"kind\": \"red\", "
                             "\"amount\": 20}, {\"kind\": \"dozen\", \"number\": 2, \"amount\": 5}], \"entropy\": "
                             "\"<64 hex digits of your own randomness>\"} (0 and \"00\" are pockets too).\n",
                             (unsigned)v->chips);
    else if (!err)
        err = kd_buf_appendf(out, "\nIt is not your move.\n");
    kdapp__roulette_view__free_unpacked(v, NULL);
    return err;
}

/* ----------------------------------------------------------- JSON ⇄ bytes */

static const char params_schema[] =
    "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{" KD_HOUSE_PARAMS_SCHEMA ","
    "\"start_chips\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":1000000,\"description\":\"default 1000\"},"
    "\"max_rounds\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":10000,\"description\":\"spins, default 100\"}}}";

static const char command_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"bets\":{\"type\":\"array\",\"maxItems\":17,\"items\":{\"type\":\"object\",\"required\":[\"kind\",\"amount\"],"
    "\"properties\":{\"kind\":{\"type\":\"string\",\"enum\":[\"straight\",\"split\",\"street\",\"corner\","
    "\"six_line\",\"top_line\",\"red\",\"black\",\"odd\",\"even\",\"low\",\"high\",\"dozen\",\"column\"]},"
    "\"number\":{\"anyOf\":[{\"type\":\"integer\"},{\"type\":\"string\"}],\"description\":\"the pocket (straight, "
    "0..36 or \\\"00\\\"), the "
    "first number (street, six_line), the lowest (corner), 1..3 (dozen, column)\"},"
    "\"numbers\":{\"type\":\"array\",\"items\":{\"anyOf\":[{\"type\":\"integer\"},{\"type\":\"string\"}]},"
    "\"description\":\"a split's two "
    "pockets\"},\"amount\":{\"type\":\"integer\",\"minimum\":0}}}}," KD_HOUSE_COMMAND_SCHEMA "}}";

static kd_err params_from_json(const json_t *params, kd_buf *out, char *why, size_t why_len)
{
    kd_roulette_params p;
    memset(&p, 0, sizeof p);
    p.start_chips = KD_ROULETTE_CHIPS_DEFAULT;
    p.max_rounds = KD_ROULETTE_ROUNDS_DEFAULT;
    kd_err err = kd_house_params_from_json(params, &p.house, why, why_len);
    if (!err)
        err = kd_params_uint(params, "start_chips", 1, KD_ROULETTE_CHIPS_MAX, &p.start_chips, why, why_len);
    if (!err)
        err = kd_params_uint(params, "max_rounds", 1, KD_ROULETTE_ROUNDS_MAX, &p.max_rounds, why, why_len);
    return err ? err : kd_roulette_params_encode(&p, out);
}

/* A pocket in JSON: 0..36, or "00" (37). Other integers pass to the rules. */
static int pocket_of(const json_t *j, uint32_t *out)
{
    if (json_is_string(j) && strcmp(json_string_value(j), "00") == 0) {
        *out = KD_ROULETTE_DOUBLE_ZERO;
        return 0;
    }
    if (!json_is_integer(j) || json_integer_value(j) < 0 || json_integer_value(j) > 255)
        return -1;
    *out = (uint32_t)json_integer_value(j);
    return 0;
}

static kd_err bets_from_json(const json_t *bets, kd_roulette_command *c, char *why, size_t why_len)
{
    if (!json_is_array(bets) || json_array_size(bets) > KD_ROULETTE_MAX_BETS + 1) {
        kd_reject_write(why, why_len, "bets must be an array of at most %d bets", KD_ROULETTE_MAX_BETS);
        return KD_ERR_BAD_COMMAND;
    }
    c->n_bets = (uint32_t)json_array_size(bets);
    for (size_t i = 0; i < json_array_size(bets); i++) {
        const json_t *b = json_array_get(bets, i), *num = json_object_get(b, "number"),
                     *nums = json_object_get(b, "numbers"), *amount = json_object_get(b, "amount");
        const char *kind = json_string_value(json_object_get(b, "kind"));
        c->bets[i].kind = kd_roulette_bet_kind_of(kind);
        if (!json_is_object(b) || !kind || !c->bets[i].kind) {
            kd_reject_write(why, why_len,
                            "bet %zu: kind must be one of straight, split, street, corner, six_line, "
                            "top_line, red, black, odd, even, low, high, dozen, column",
                            i + 1);
            return KD_ERR_BAD_COMMAND;
        }
        if (!json_is_integer(amount) || json_integer_value(amount) < 0 || json_integer_value(amount) > UINT32_MAX) {
            kd_reject_write(why, why_len, "bet %zu: amount must be a whole number of chips", i + 1);
            return KD_ERR_BAD_COMMAND;
        }
        c->bets[i].amount = (uint32_t)json_integer_value(amount);
        if (c->bets[i].kind == KD_RBET_SPLIT) {
            uint32_t a = 0, z = 0;
            if (json_array_size(nums) != 2 || pocket_of(json_array_get(nums, 0), &a) ||
                pocket_of(json_array_get(nums, 1), &z)) {
                kd_reject_write(why, why_len, "bet %zu: a split names its two pockets: \"numbers\": [17, 18]", i + 1);
                return KD_ERR_BAD_COMMAND;
            }
            c->bets[i].number = a < z ? a : z;
            c->bets[i].number2 = a < z ? z : a;
        } else if (num && pocket_of(num, &c->bets[i].number)) {
            kd_reject_write(why, why_len, "bet %zu: number must be 0..36 or \"00\"", i + 1);
            return KD_ERR_BAD_COMMAND;
        }
    }
    return KD_OK;
}

static kd_err command_from_json(const json_t *command, int seat, kd_buf *out, char *why, size_t why_len)
{
    (void)seat;
    kd_roulette_command c;
    memset(&c, 0, sizeof c);
    unsigned kind;
    kd_err err = kd_house_command_from_json(command, "bets",
                                            "a roulette command is one of {\"bets\": [...], \"entropy\": hex64}, "
                                            "{\"reveal\": hex162}, {\"claim\": true}",
                                            &kind, c.proof, why, why_len);
    if (err)
        return err;
    c.kind = (uint8_t)kind;
    if (kind == KD_HOUSE_CMD_ASK && !(err = bets_from_json(json_object_get(command, "bets"), &c, why, why_len)))
        err = kd_house_hex32_from_json(json_object_get(command, "entropy"), "entropy", c.entropy, why, why_len);
    return err ? err : kd_roulette_command_encode(&c, out);
}

static json_t *command_to_json(const uint8_t *command, size_t len)
{
    kd_roulette_command c;
    if (kd_roulette_command_decode(command, len, &c, NULL) != KD_OK)
        return NULL;
    if (c.kind != KD_ROULETTE_CMD_BETS)
        return kd_house_answer_json(c.kind, c.proof);
    json_t *bets = json_array();
    for (uint32_t i = 0; bets && i < c.n_bets; i++) {
        const unsigned k = c.bets[i].kind;
        json_t *b = json_pack("{s:s, s:I}", "kind", k >= 1 && k <= KD_RBET_KINDS ? kd_roulette_bet_name(k) : "?",
                              "amount", (json_int_t)c.bets[i].amount);
        if (b && k == KD_RBET_SPLIT)
            json_object_set_new(b, "numbers",
                                json_pack("[o, o]", pocket_json(c.bets[i].number), pocket_json(c.bets[i].number2)));
        else if (b && (c.bets[i].number || k == KD_RBET_STRAIGHT))
            json_object_set_new(b, "number",
                                c.bets[i].number <= KD_ROULETTE_DOUBLE_ZERO ? pocket_json(c.bets[i].number)
                                                                            : json_integer(c.bets[i].number));
        json_array_append_new(bets, b);
    }
    return kd_house_ask_json("bets", bets, c.entropy);
}

/* ------------------------------------------------------------------ moves */

static const struct {
    uint8_t kind, number;
} listed[] = {{KD_RBET_RED, 0},      {KD_RBET_BLACK, 0},     {KD_RBET_ODD, 0},       {KD_RBET_EVEN, 0},
              {KD_RBET_LOW, 0},      {KD_RBET_HIGH, 0},      {KD_RBET_DOZEN, 1},     {KD_RBET_DOZEN, 2},
              {KD_RBET_DOZEN, 3},    {KD_RBET_COLUMN, 1},    {KD_RBET_COLUMN, 2},    {KD_RBET_COLUMN, 3},
              {KD_RBET_STRAIGHT, 0}, {KD_RBET_STRAIGHT, 17}, {KD_RBET_STRAIGHT, 37}, {KD_RBET_STREET, 1},
              {KD_RBET_CORNER, 1},   {KD_RBET_SIX_LINE, 31}, {KD_RBET_TOP_LINE, 0}};

static kd_err put_bets(kd_roulette_command *c, const uint8_t entropy[32], kd_buf *out)
{
    c->kind = KD_ROULETTE_CMD_BETS;
    memcpy(c->entropy, entropy, 32);
    return kd_roulette_command_encode(c, out);
}

static kd_err legal_moves(const void *state_ptr, int seat, kd_legal_moves *out)
{
    const kd_roulette_state *s = state_ptr;
    if (s->table.status || seat != KD_ROULETTE_PLAYER || s->house.pending || s->table.chips == 0)
        return KD_OK;
    uint8_t entropy[32];
    kd_house_public_entropy(&s->house, s->table.rounds, entropy);
    kd_err err = KD_OK;
    for (size_t i = 0; !err && i < sizeof listed / sizeof listed[0]; i++) {
        kd_roulette_command c;
        memset(&c, 0, sizeof c);
        c.n_bets = 1;
        c.bets[0].kind = listed[i].kind;
        c.bets[0].number = listed[i].number;
        c.bets[0].amount = 1;
        kd_buf b;
        kd_buf_init(&b);
        char notation[KD_NOTATION_MAX];
        if (listed[i].kind == KD_RBET_STRAIGHT && listed[i].number == KD_ROULETTE_DOUBLE_ZERO)
            snprintf(notation, sizeof notation, "1 on 00");
        else if (listed[i].number || listed[i].kind == KD_RBET_STRAIGHT)
            snprintf(notation, sizeof notation, "1 on %s %u", kd_roulette_bet_name(listed[i].kind), listed[i].number);
        else
            snprintf(notation, sizeof notation, "1 on %s", kd_roulette_bet_name(listed[i].kind));
        err = put_bets(&c, entropy, &b);
        if (!err)
            err = kd_legal_moves_push(out, b.data, b.len, notation);
        kd_buf_fini(&b);
    }
    return err;
}

/* A random bet that is valid on the layout. */
static void random_bet(uint64_t *rng, unsigned *kind, unsigned *n, unsigned *n2)
{
    *kind = 1 + kd_type_rng_below(rng, KD_RBET_KINDS);
    *n2 = 0;
    do {
        *n = kd_type_rng_below(rng, 38);
        if (*kind == KD_RBET_SPLIT)
            *n2 = *n == 0 ? KD_ROULETTE_DOUBLE_ZERO : *n + (kd_type_rng_below(rng, 2) ? 1 : 3);
    } while (!kd_roulette_bet_valid(*kind, *n, *n2) &&
             !(*kind >= KD_RBET_TOP_LINE && *kind <= KD_RBET_HIGH && (*n = 0, 1)));
}

/*
 * Legal: one to three random bets on the layout within the chips. Illegal,
 * each refused by a rule: a bet off the layout (bad_bet_number), more
 * stake than chips (insufficient_chips), an early claim; the house's proof
 * that does not verify (bad_proof).
 */
static kd_err random_command(const void *state_ptr, int seat, int legal, uint64_t *rng, kd_buf *out)
{
    const kd_roulette_state *s = state_ptr;
    uint8_t entropy[32];
    for (int i = 0; i < 4; i++) {
        uint64_t r = kd_type_rng_next(rng);
        memcpy(entropy + 8 * i, &r, 8);
    }
    kd_roulette_command c;
    memset(&c, 0, sizeof c);
    if (legal) {
        if (s->table.status || seat != KD_ROULETTE_PLAYER || s->house.pending || s->table.chips == 0)
            return KD_ERR_NO_MOVE;
        uint32_t left = s->table.chips, n = 1 + kd_type_rng_below(rng, 3);
        for (uint32_t i = 0; i < n && left; i++) {
            unsigned kind, a, b;
            random_bet(rng, &kind, &a, &b);
            uint32_t amount = 1 + kd_type_rng_below(rng, left < 20 ? left : 20);
            c.bets[c.n_bets].kind = kind;
            c.bets[c.n_bets].number = a;
            c.bets[c.n_bets].number2 = b;
            c.bets[c.n_bets++].amount = amount;
            left -= amount;
        }
        return put_bets(&c, entropy, out);
    }
    if (seat == KD_ROULETTE_HOUSE) {
        c.kind = KD_ROULETTE_CMD_REVEAL;
        for (size_t i = 0; i < sizeof c.proof; i++)
            c.proof[i] = entropy[i % sizeof entropy];
        return kd_roulette_command_encode(&c, out);
    }
    c.n_bets = 1;
    switch (kd_type_rng_below(rng, 3)) {
    case 0:
        c.bets[0].kind = KD_RBET_STREET;
        c.bets[0].number = 2; /* streets start at 1, 4, ... */
        c.bets[0].amount = 1;
        return put_bets(&c, entropy, out);
    case 1:
        c.bets[0].kind = KD_RBET_RED;
        c.bets[0].amount = s->table.chips + 1 + kd_type_rng_below(rng, 100);
        return put_bets(&c, entropy, out);
    default:
        c.kind = KD_ROULETTE_CMD_CLAIM;
        return kd_roulette_command_encode(&c, out);
    }
}

/* ---------------------------------------------------- secrets and audit */

KD_HOUSE_TYPE_HOOKS(roulette, KD_ROULETTE_HOUSE, s->table.status == KD_ROULETTE_IN_PROGRESS);

static json_t *draw_outcome(const void *state, kd_fair_stream *stream)
{
    (void)state;
    unsigned p = kd_roulette_outcome(stream);
    char text[16];
    pocket_text(p, text, sizeof text);
    return json_pack("{s:o, s:s}", "pocket", pocket_json(p), "text", text);
}

/* The house's terms (episode_type.h): what the player starts with (a
 * straight bet pays 35 times its stake), the spins, its time to reveal. */
static const kd_house_term house_terms[] = {
    {"start_chips", NULL, "the player's chips at the start", 1, 10000},
    {"max_rounds", NULL, "spins before the episode ends", 1, 1000},
    KD_HOUSE_TIMEOUT_TERM,
    {NULL, NULL, NULL, 0, 0},
};

const kd_episode_type kd_roulette_type = {
    .ops = &kd_roulette_ops,
    .title = "Roulette",
    .summary = RULES_TEXT " Seats: player (first participant), house. Command {\"bets\": [{\"kind\": \"red\", "
                          "\"amount\": 10}], \"entropy\": hex64}; the house's {\"reveal\": hex162}; {\"claim\": true}.",
    .min_seats = 2,
    .max_seats = 2,
    .seat_names = seat_names,
    .rule_codes = kd_roulette_rule_codes,
    .params_schema = params_schema,
    .command_schema = command_schema,
    .params_from_json = params_from_json,
    .params_message = &kdapp__roulette_params__descriptor,
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
    KD_HOUSE_TYPE_MEMBERS(KD_ROULETTE_HOUSE),
    .house_terms = house_terms,
};
