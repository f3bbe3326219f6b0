/*
 * dice_type.c — "dice" in the type table (episode_type.h): schemas, JSON of
 * params and commands ({"roll": "NdM+K", "entropy": hex}, {"reveal": hex},
 * {"claim": true}), the view (DiceView) and its renderings, legal moves, the
 * simulator's random commands, and the house's secret hooks (commit, reveal).
 *
 * Legal moves of the player are a few usual rolls (1d4 ... 1d100, 2d6,
 * 3d6, 1d20+5); their entropy is the SHA-256 of the house's key and the
 * roll number, known to all: a player who wants its own gives any 32 bytes
 * (the gateway fills fresh ones when "entropy" is left out). The house has
 * no legal move: it owes its reveal (secret_duty). A claim is never listed
 * (whether the deadline passed depends on the block); the view shows the
 * deadline.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chance.pb-c.h"
#include "episodes/dice/dice.h"
#include "episodes/wire_alloc.h"

static const char *const seat_names[2] = {"player", "house"};

#define RULES_TEXT                                                                                              \
    "Dice: the player rolls NdM+K (N dice of M sides, M one of 4, 6, 8, 10, 12, 20, 100, N from 1 to 100, "     \
    "plus K from -1000 to 1000) giving 32 bytes of entropy; the house reveals its VRF proof for the draw (the " \
    "episode, the draw number and the entropy) under the key it committed to at creation, and the dice come "   \
    "from the VRF output. A house that does not reveal within the reveal timeout (DAA score) forfeits: the "    \
    "player's claim ends the episode, won by the player. The episode ends after max_rolls rolls."

/* ------------------------------------------------------------- view bytes */

static void roll_view(const kd_dice_roll *r, uint32_t *dice, Kdapp__DiceRollView *v)
{
    v->count = r->count;
    v->sides = r->sides;
    v->modifier = r->modifier;
    v->total = r->total;
    v->claimed = r->claimed != 0;
    v->index = r->index;
    for (unsigned i = 0; dice && !r->claimed && i < r->count; i++)
        dice[i] = r->dice[i];
}

static kd_err view_encode(const void *state_ptr, int seat, kd_buf *out)
{
    (void)seat; /* nothing secret in the state */
    const kd_dice_state *s = state_ptr;
    uint32_t dice[KD_DICE_RECENT][KD_DICE_MAX_COUNT];
    Kdapp__DiceRollView rv[KD_DICE_RECENT], pend = KDAPP__DICE_ROLL_VIEW__INIT;
    Kdapp__DiceRollView *rp[KD_DICE_RECENT];
    Kdapp__HouseView hv = KDAPP__HOUSE_VIEW__INIT;
    Kdapp__DiceView v = KDAPP__DICE_VIEW__INIT;
    kd_house_view_fill(&s->house, &hv);
    v.house = &hv;
    v.status = (Kdapp__DiceStatus)s->status;
    v.rolls = s->rolls;
    v.max_rolls = s->max_rolls;
    if (s->house.pending) {
        roll_view(&s->pending, NULL, &pend);
        v.pending = &pend;
    }
    for (unsigned i = 0; i < s->n_recent; i++) {
        Kdapp__DiceRollView init = KDAPP__DICE_ROLL_VIEW__INIT;
        rv[i] = init;
        roll_view(&s->recent[i], dice[i], &rv[i]);
        if (!s->recent[i].claimed) {
            rv[i].n_dice = s->recent[i].count;
            rv[i].dice = dice[i];
        }
        rp[i] = &rv[i];
    }
    v.n_recent = s->n_recent;
    v.recent = rp;
    return kd_pb_append(&v.base, out);
}

static Kdapp__DiceView *view_decode(const uint8_t *data, size_t len)
{
    if (!data || !len)
        return NULL;
    Kdapp__DiceView *v = kdapp__dice_view__unpack(NULL, len, data);
    if (v && (!v->house || v->status > 2)) {
        kdapp__dice_view__free_unpacked(v, NULL);
        return NULL;
    }
    return v;
}

static const char *status_name(unsigned status)
{
    return status == KD_DICE_FINISHED ? "finished" : status == KD_DICE_HOUSE_FORFEIT ? "house_forfeit" : "in_progress";
}

static kd_game_status status_of(unsigned status, int pending)
{
    kd_game_status st = {KD_PHASE_IN_PROGRESS, KD_SEAT_NONE, pending ? KD_DICE_HOUSE : KD_DICE_PLAYER};
    if (status == KD_DICE_FINISHED)
        st = (kd_game_status){KD_PHASE_DRAW, KD_SEAT_NONE, KD_SEAT_NONE};
    else if (status == KD_DICE_HOUSE_FORFEIT)
        st = (kd_game_status){KD_PHASE_WON, KD_DICE_PLAYER, KD_SEAT_NONE};
    return st;
}

static kd_game_status status(const void *state_ptr)
{
    const kd_dice_state *s = state_ptr;
    return status_of(s->status, s->house.pending);
}

/* "2d6+3" of a roll's spec into `out`. */
static void spec_text(uint32_t count, uint32_t sides, int32_t modifier, char *out, size_t len)
{
    if (modifier)
        snprintf(out, len, "%ud%u%+d", (unsigned)count, (unsigned)sides, (int)modifier);
    else
        snprintf(out, len, "%ud%u", (unsigned)count, (unsigned)sides);
}

static json_t *roll_json(const Kdapp__DiceRollView *r)
{
    char spec[48];
    spec_text(r->count, r->sides, r->modifier, spec, sizeof spec);
    json_t *dice = json_array();
    for (size_t i = 0; dice && i < r->n_dice; i++)
        json_array_append_new(dice, json_integer(r->dice[i]));
    return json_pack("{s:I, s:s, s:o, s:o, s:b}", "index", (json_int_t)r->index, "roll", spec, "dice",
                     dice ? dice : json_null(), "total", r->claimed ? json_null() : json_integer(r->total), "claimed",
                     r->claimed);
}

static json_t *view_json(const uint8_t *view, size_t len)
{
    Kdapp__DiceView *v = view_decode(view, len);
    if (!v)
        return NULL;
    json_t *recent = json_array();
    for (size_t i = 0; recent && i < v->n_recent; i++)
        json_array_append_new(recent, roll_json(v->recent[i]));
    json_t *j = json_pack("{s:s, s:I, s:I, s:o, s:o, s:o, s:o}", "status", status_name(v->status), "rolls",
                          (json_int_t)v->rolls, "max_rolls", (json_int_t)v->max_rolls, "pending_roll",
                          v->pending ? roll_json(v->pending) : json_null(), "last_roll",
                          v->n_recent ? roll_json(v->recent[v->n_recent - 1]) : json_null(), "recent_rolls",
                          recent ? recent : json_null(), "house", kd_house_view_json(v->house, seat_names, 2));
    kdapp__dice_view__free_unpacked(v, NULL);
    return j;
}

static json_t *strategy_context(const uint8_t *view, size_t len)
{
    json_t *j = view_json(view, len);
    if (j)
        json_object_set_new(j, "rules", json_string(RULES_TEXT));
    return j;
}

static kd_err put_roll(const Kdapp__DiceRollView *r, kd_buf *out)
{
    char spec[48];
    spec_text(r->count, r->sides, r->modifier, spec, sizeof spec);
    if (r->claimed)
        return kd_buf_appendf(out, "  #%u %s: not revealed, claimed by the player\n", (unsigned)r->index, spec);
    kd_err err = kd_buf_appendf(out, "  #%u %s: [", (unsigned)r->index, spec);
    for (size_t i = 0; !err && i < r->n_dice; i++)
        err = kd_buf_appendf(out, i ? " %u" : "%u", (unsigned)r->dice[i]);
    return err ? err : kd_buf_appendf(out, "] = %d\n", (int)r->total);
}

static kd_err put_table(const Kdapp__DiceView *v, kd_buf *out)
{
    kd_err err = kd_buf_appendf(out, "dice: %u of %u rolls, %s\n", (unsigned)v->rolls, (unsigned)v->max_rolls,
                                status_name(v->status));
    for (size_t i = 0; !err && i < v->n_recent; i++)
        err = put_roll(v->recent[i], out);
    if (!err && v->pending) {
        char spec[48];
        spec_text(v->pending->count, v->pending->sides, v->pending->modifier, spec, sizeof spec);
        err = kd_buf_appendf(out, "  #%u %s: waiting for the house's reveal (claimable from DAA %llu)\n",
                             (unsigned)v->pending->index, spec,
                             (unsigned long long)(v->house->asked_daa + v->house->reveal_timeout));
    }
    if (!err)
        err = kd_buf_appendf(out, "house: %u draws revealed\n", (unsigned)v->house->draws);
    return err;
}

static kd_err render_text(const uint8_t *view, size_t len, unsigned flags, kd_buf *out)
{
    (void)flags;
    Kdapp__DiceView *v = view_decode(view, len);
    if (!v)
        return KD_ERR_DECODE;
    kd_err err = put_table(v, out);
    kdapp__dice_view__free_unpacked(v, NULL);
    return err;
}

static kd_err prompt(const uint8_t *view, size_t len, uint32_t episode_id, int seat, kd_buf *out)
{
    if (seat != KD_DICE_PLAYER && seat != KD_DICE_HOUSE)
        return KD_ERR_INVALID_ARG;
    Kdapp__DiceView *v = view_decode(view, len);
    if (!v)
        return KD_ERR_DECODE;
    kd_err err = kd_buf_appendf(out, "You are the %s in dice episode %u. %s\n\n", seat_names[seat],
                                (unsigned)episode_id, RULES_TEXT);
    if (!err)
        err = put_table(v, out);
    if (!err && seat == KD_DICE_PLAYER && v->status == KDAPP__DICE_STATUS__DICE_IN_PROGRESS && !v->pending)
        err = kd_buf_appendf(out, "\nYour roll. Answer with the command JSON only, for example "
                                  "{\"roll\": \"2d6+1\", \"entropy\": \"<64 hex digits of your own randomness>\"} "
                                  "(the roll is NdM+K as above; K may be left out).\n");
    else if (!err)
        err = kd_buf_appendf(out, "\nIt is not your move.\n");
    kdapp__dice_view__free_unpacked(v, NULL);
    return err;
}

/* ----------------------------------------------------------- JSON ⇄ bytes */

static const char params_schema[] =
    "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{" KD_HOUSE_PARAMS_SCHEMA
    ",\"max_rolls\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":10000,\"description\":\"rolls before the "
    "episode ends (default 100)\"}}}";

static const char command_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"roll\":{\"type\":\"string\",\"description\":\"NdM+K: N dice (1-100) of M sides (4, 6, 8, 10, 12, 20, 100) "
    "plus K (-1000..1000), e.g. 2d6+3, 1d20, d100\"}," KD_HOUSE_COMMAND_SCHEMA "}}";

static kd_err params_from_json(const json_t *params, kd_buf *out, char *why, size_t why_len)
{
    kd_dice_params p;
    memset(&p, 0, sizeof p);
    p.max_rolls = KD_DICE_MAX_ROLLS_DEFAULT;
    kd_err err = kd_house_params_from_json(params, &p.house, why, why_len);
    if (!err)
        err = kd_params_uint(params, "max_rolls", 1, KD_DICE_MAX_ROLLS_MAX, &p.max_rolls, why, why_len);
    return err ? err : kd_dice_params_encode(&p, out);
}

/* Reads a decimal number of at most 6 digits at *s: 0, or -1 (none, or too long). */
static int read_num(const char **s, uint32_t *out)
{
    unsigned n = 0;
    uint32_t v = 0;
    while (isdigit((unsigned char)**s) && n < 7) {
        v = v * 10 + (uint32_t)(**s - '0');
        (*s)++;
        n++;
    }
    *out = v;
    return n == 0 || n > 6 ? -1 : 0;
}

/* Parses "NdM+K" (N optional: 1; "+K"/"-K" optional). Only the form: the
 * rules judge the numbers (bad_die, dice_count, modifier_out_of_range). */
static kd_err parse_spec(const char *text, kd_dice_command *c, char *why, size_t why_len)
{
    const char *s = text;
    c->count = 1;
    if (isdigit((unsigned char)*s) && read_num(&s, &c->count) != 0) {
        kd_reject_write(why, why_len, "roll \"%.40s\": the number of dice (N of NdM+K) is not a number up to 6 digits",
                        text);
        return KD_ERR_BAD_COMMAND;
    }
    if (*s != 'd' && *s != 'D') {
        kd_reject_write(why, why_len, "roll \"%.40s\": expected NdM+K, the 'd' is missing (e.g. 2d6+3)", text);
        return KD_ERR_BAD_COMMAND;
    }
    s++;
    if (read_num(&s, &c->sides) != 0) {
        kd_reject_write(why, why_len, "roll \"%.40s\": the die (M of NdM+K) is not a number up to 6 digits", text);
        return KD_ERR_BAD_COMMAND;
    }
    c->modifier = 0;
    if (*s == '+' || *s == '-') {
        int neg = *s == '-';
        uint32_t k = 0;
        s++;
        if (read_num(&s, &k) != 0) {
            kd_reject_write(why, why_len, "roll \"%.40s\": the modifier (K of NdM+K) is not a number up to 6 digits",
                            text);
            return KD_ERR_BAD_COMMAND;
        }
        c->modifier = neg ? -(int32_t)k : (int32_t)k;
    }
    if (*s) {
        kd_reject_write(why, why_len, "roll \"%.40s\": unexpected \"%.10s\" after NdM+K", text, s);
        return KD_ERR_BAD_COMMAND;
    }
    return KD_OK;
}

static kd_err command_from_json(const json_t *command, int seat, kd_buf *out, char *why, size_t why_len)
{
    (void)seat;
    kd_dice_command c;
    memset(&c, 0, sizeof c);
    unsigned kind;
    kd_err err = kd_house_command_from_json(command, "roll",
                                            "a dice command is one of {\"roll\": \"NdM+K\", \"entropy\": hex64}, "
                                            "{\"reveal\": hex162}, {\"claim\": true}",
                                            &kind, c.proof, why, why_len);
    if (err)
        return err;
    c.kind = (uint8_t)kind;
    if (kind == KD_HOUSE_CMD_ASK) {
        const json_t *roll = json_object_get(command, "roll");
        if (!json_is_string(roll)) {
            kd_reject_write(why, why_len, "roll must be a string NdM+K, e.g. \"2d6+3\"");
            return KD_ERR_BAD_COMMAND;
        }
        if (!(err = parse_spec(json_string_value(roll), &c, why, why_len)))
            err = kd_house_hex32_from_json(json_object_get(command, "entropy"), "entropy", c.entropy, why, why_len);
    }
    return err ? err : kd_dice_command_encode(&c, out);
}

static json_t *command_to_json(const uint8_t *command, size_t len)
{
    kd_dice_command c;
    if (kd_dice_command_decode(command, len, &c, NULL) != KD_OK)
        return NULL;
    if (c.kind != KD_DICE_CMD_ROLL)
        return kd_house_answer_json(c.kind, c.proof);
    char spec[48];
    spec_text(c.count, c.sides, c.modifier, spec, sizeof spec);
    return kd_house_ask_json("roll", json_string(spec), c.entropy);
}

/* ------------------------------------------------------------------ moves */

static const struct {
    uint8_t count, sides;
    int8_t modifier;
} usual[] = {{1, 4, 0},  {1, 6, 0},  {2, 6, 0},  {3, 6, 0},  {1, 8, 0},
             {1, 10, 0}, {1, 12, 0}, {1, 20, 0}, {1, 20, 5}, {1, 100, 0}};

static kd_err push_roll(kd_legal_moves *list, kd_buf *out, uint32_t count, uint32_t sides, int32_t modifier,
                        const uint8_t entropy[32])
{
    kd_dice_command c;
    memset(&c, 0, sizeof c);
    c.kind = KD_DICE_CMD_ROLL;
    c.count = count;
    c.sides = sides;
    c.modifier = modifier;
    memcpy(c.entropy, entropy, 32);
    if (out)
        return kd_dice_command_encode(&c, out);
    kd_buf b;
    kd_buf_init(&b);
    char spec[48];
    spec_text(count, sides, modifier, spec, sizeof spec);
    kd_err err = kd_dice_command_encode(&c, &b);
    if (!err)
        err = kd_legal_moves_push(list, b.data, b.len, spec);
    kd_buf_fini(&b);
    return err;
}

static kd_err legal_moves(const void *state_ptr, int seat, kd_legal_moves *out)
{
    const kd_dice_state *s = state_ptr;
    if (s->status != KD_DICE_IN_PROGRESS || seat != KD_DICE_PLAYER || s->house.pending)
        return KD_OK; /* the house owes its reveal, made from its secret */
    uint8_t entropy[32];
    kd_house_public_entropy(&s->house, s->rolls, entropy);
    kd_err err = KD_OK;
    for (size_t i = 0; !err && i < sizeof usual / sizeof usual[0]; i++)
        err = push_roll(out, NULL, usual[i].count, usual[i].sides, usual[i].modifier, entropy);
    return err;
}

/*
 * Legal: the player rolls a random NdM+K with random entropy. Illegal, each
 * refused by a rule: the player rolls a die the game has not (bad_die), too
 * many dice (dice_count) or claims before the deadline; the house reveals a
 * proof that does not verify (bad_proof, or no_draw_pending).
 */
static kd_err random_command(const void *state_ptr, int seat, int legal, uint64_t *rng, kd_buf *out)
{
    const kd_dice_state *s = state_ptr;
    static const uint8_t dies[] = {4, 6, 8, 10, 12, 20, 100};
    uint8_t entropy[32];
    for (int i = 0; i < 4; i++) {
        uint64_t r = kd_type_rng_next(rng);
        memcpy(entropy + 8 * i, &r, 8);
    }
    if (legal) {
        if (s->status != KD_DICE_IN_PROGRESS || seat != KD_DICE_PLAYER || s->house.pending)
            return KD_ERR_NO_MOVE;
        return push_roll(NULL, out, 1 + kd_type_rng_below(rng, 4), dies[kd_type_rng_below(rng, 7)],
                         (int32_t)kd_type_rng_below(rng, 11) - 5, entropy);
    }
    if (seat == KD_DICE_HOUSE) {
        kd_dice_command c;
        memset(&c, 0, sizeof c);
        c.kind = KD_DICE_CMD_REVEAL;
        for (size_t i = 0; i < sizeof c.proof; i++)
            c.proof[i] = entropy[i % sizeof entropy];
        return kd_dice_command_encode(&c, out);
    }
    switch (kd_type_rng_below(rng, 3)) {
    case 0:
        return push_roll(NULL, out, 1, 7 + kd_type_rng_below(rng, 3), 0, entropy);
    case 1:
        return push_roll(NULL, out, KD_DICE_MAX_COUNT + 1 + kd_type_rng_below(rng, 50), 6, 0, entropy);
    default: {
        kd_dice_command c;
        memset(&c, 0, sizeof c);
        c.kind = KD_DICE_CMD_CLAIM;
        return kd_dice_command_encode(&c, out);
    }
    }
}

/* ---------------------------------------------------- secrets and audit */

KD_HOUSE_TYPE_HOOKS(dice, KD_DICE_HOUSE, s->status == KD_DICE_IN_PROGRESS);

static json_t *draw_outcome(const void *state, kd_fair_stream *stream)
{
    const kd_dice_roll *r = &((const kd_dice_state *)state)->pending;
    uint8_t dice[KD_DICE_MAX_COUNT];
    kd_dice_outcome(stream, r->count, r->sides, dice);
    char spec[32];
    spec_text(r->count, r->sides, r->modifier, spec, sizeof spec);
    json_t *faces = json_array();
    int64_t total = r->modifier;
    for (uint32_t i = 0; faces && i < r->count; i++) {
        json_array_append_new(faces, json_integer(dice[i]));
        total += dice[i];
    }
    return json_pack("{s:s, s:o, s:I}", "roll", spec, "dice", faces, "total", (json_int_t)total);
}

/* The house's terms (episode_type.h): the rolls it answers, its time to reveal. */
static const kd_house_term house_terms[] = {
    {"max_rolls", NULL, "rolls before the episode ends", 1, 1000},
    KD_HOUSE_TIMEOUT_TERM,
    {NULL, NULL, NULL, 0, 0},
};

const kd_episode_type kd_dice_type = {
    .ops = &kd_dice_ops,
    .title = "Dice",
    .summary = RULES_TEXT " Seats: player (first participant), house. Command {\"roll\": \"2d6+3\", \"entropy\": "
                          "hex64}; the house's {\"reveal\": hex162}; {\"claim\": true} after the deadline.",
    .min_seats = 2,
    .max_seats = 2,
    .seat_names = seat_names,
    .rule_codes = kd_dice_rule_codes,
    .params_schema = params_schema,
    .command_schema = command_schema,
    .params_from_json = params_from_json,
    .params_message = &kdapp__dice_params__descriptor,
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
    .house_terms = house_terms,
    KD_HOUSE_TYPE_MEMBERS(KD_DICE_HOUSE),
};
