/*
 * dice.c — the rules of "dice" (dice.h), its state and undo encodings and
 * its kd_episode_ops. Pure functions.
 *
 * State bytes: the house's head (kd_house_head_encode: version 2, or 3
 * with the reveal depth), max_rolls u32, rolls u32, status, n_recent, pending roll,
 * KD_DICE_RECENT rolls (unused ones zero). A roll: count, sides, claimed,
 * modifier i16, total i32, index u32, 100 dice (zero beyond count).
 */
#include "episodes/dice/dice.h"
#include "episodes/ops_adapter.h"

#include <string.h>

const kd_rule_code kd_dice_rule_codes[] = {
    {"game_over", "the episode has ended: max_rolls rolls made, or the house forfeited"},
    {"unauthorised", "the command is unsigned, or signed by a key that is not a participant"},
    {"not_the_player", "only the player rolls and claims"},
    {"bad_die", "the die is not one of d4, d6, d8, d10, d12, d20, d100"},
    {"dice_count", "the number of dice is not from 1 to 100"},
    {"modifier_out_of_range", "the modifier is not from -1000 to +1000"},
    KD_HOUSE_RULE_CODES,
    {NULL, NULL},
};

int kd_dice_die_ok(uint32_t sides)
{
    return sides == 4 || sides == 6 || sides == 8 || sides == 10 || sides == 12 || sides == 20 || sides == 100;
}

void kd_dice_outcome(kd_fair_stream *stream, uint32_t count, uint32_t sides, uint8_t *dice)
{
    for (uint32_t i = 0; i < count; i++)
        dice[i] = (uint8_t)(kd_fair_below(stream, sides) + 1);
}

kd_err kd_dice_state_init(kd_dice_state *state, const kd_participants *parts, const kd_dice_params *params,
                          uint32_t episode_id, kd_reject *rej)
{
    memset(state, 0, sizeof *state);
    if (kd_two_seats_check(parts, "dice", (const char *const[2]){"player", "house"}, rej) != KD_OK)
        return KD_ERR_BAD_PARTICIPANTS;
    kd_house_init(&state->house, &params->house, episode_id);
    memcpy(state->players, parts->keys, sizeof state->players);
    state->max_rolls = params->max_rolls;
    return KD_OK;
}

static int signed_by(const kd_dice_state *s, const kd_pubkey *signer, int seat)
{
    return signer && memcmp(signer->bytes, s->players[seat].bytes, KD_PUBKEY_LEN) == 0;
}

/* Appends `roll` to recent (evicting the oldest into the undo when full). */
static void push_recent(kd_dice_state *s, const kd_dice_roll *roll, kd_dice_undo *undo)
{
    if (s->n_recent == KD_DICE_RECENT) {
        undo->evicted = s->recent[0];
        undo->evicted_valid = 1;
        memmove(&s->recent[0], &s->recent[1], (KD_DICE_RECENT - 1) * sizeof s->recent[0]);
        s->n_recent--;
    }
    s->recent[s->n_recent++] = *roll;
}

static kd_err roll(kd_dice_state *s, const kd_dice_command *cmd, const kd_pubkey *signer, uint64_t daa,
                   kd_dice_undo *undo, kd_reject *rej)
{
    if (!signed_by(s, signer, KD_DICE_PLAYER))
        return kd_reject_rule(rej, "not_the_player", "only the player rolls");
    if (s->house.pending)
        return kd_reject_rule(rej, "draw_pending", "roll %u waits for the house's reveal (claimable from DAA %llu)",
                              (unsigned)s->pending.index, (unsigned long long)kd_house_deadline(&s->house));
    if (!kd_dice_die_ok(cmd->sides))
        return kd_reject_rule(rej, "bad_die",
                              "the die d%u is not one of d4, d6, d8, d10, d12, d20, d100 (the M of NdM+K)",
                              (unsigned)cmd->sides);
    if (cmd->count < 1 || cmd->count > KD_DICE_MAX_COUNT)
        return kd_reject_rule(rej, "dice_count", "%u dice: the N of NdM+K is from 1 to %d", (unsigned)cmd->count,
                              KD_DICE_MAX_COUNT);
    if (cmd->modifier < -KD_DICE_MAX_MODIFIER || cmd->modifier > KD_DICE_MAX_MODIFIER)
        return kd_reject_rule(rej, "modifier_out_of_range", "the modifier %d (the K of NdM+K) is not from -%d to +%d",
                              (int)cmd->modifier, KD_DICE_MAX_MODIFIER, KD_DICE_MAX_MODIFIER);
    kd_dice_undo u;
    memset(&u, 0, sizeof u);
    kd_err err = kd_house_ask(&s->house, KD_DICE_PLAYER, cmd->entropy, cmd->digest, daa, &u.house, rej);
    if (err)
        return err;
    u.kind = KD_DICE_CMD_ROLL;
    u.prev_status = s->status;
    s->pending.count = (uint8_t)cmd->count;
    s->pending.sides = (uint8_t)cmd->sides;
    s->pending.modifier = (int16_t)cmd->modifier;
    s->pending.index = s->rolls + 1;
    *undo = u;
    return KD_OK;
}

/* Settles the pending roll (revealed with `draw`, or claimed when NULL). */
static void settle(kd_dice_state *s, const uint8_t *draw, kd_dice_undo *u)
{
    kd_dice_roll r = s->pending;
    u->pending = s->pending;
    u->prev_status = s->status;
    if (draw) {
        kd_fair_stream stream;
        kd_dice_outcome(kd_fair_stream_init(&stream, draw), r.count, r.sides, r.dice);
        int32_t total = r.modifier;
        for (unsigned i = 0; i < r.count; i++)
            total += r.dice[i];
        r.total = total;
    } else {
        r.claimed = 1;
    }
    push_recent(s, &r, u);
    memset(&s->pending, 0, sizeof s->pending);
    s->rolls++;
    if (!draw)
        s->status = KD_DICE_HOUSE_FORFEIT;
    else if (s->rolls >= s->max_rolls)
        s->status = KD_DICE_FINISHED;
}

kd_err kd_dice_execute(kd_dice_state *state, const kd_dice_command *cmd, const kd_pubkey *signer, uint64_t daa,
                       kd_dice_undo *undo, kd_reject *rej)
{
    if (state->status != KD_DICE_IN_PROGRESS)
        return kd_reject_rule(rej, "game_over", "the episode is over: %s",
                              state->status == KD_DICE_FINISHED ? "all rolls are made" : "the house forfeited");
    if (!signed_by(state, signer, KD_DICE_PLAYER) && !signed_by(state, signer, KD_DICE_HOUSE))
        return kd_reject_rule(rej, "unauthorised", "the command must be signed by the player or the house");
    if (cmd->kind == KD_DICE_CMD_ROLL)
        return roll(state, cmd, signer, daa, undo, rej);
    kd_dice_undo u;
    memset(&u, 0, sizeof u);
    u.kind = cmd->kind;
    kd_err err;
    if (cmd->kind == KD_DICE_CMD_REVEAL) {
        if (!signed_by(state, signer, KD_DICE_HOUSE))
            return kd_reject_rule(rej, "not_the_house", "only the house reveals");
        uint8_t draw[KD_HASH_LEN];
        if ((err = kd_house_reveal(&state->house, cmd->proof, draw, &u.house, rej)))
            return err;
        settle(state, draw, &u);
    } else {
        if (!signed_by(state, signer, KD_DICE_PLAYER))
            return kd_reject_rule(rej, "not_the_player", "only the player claims");
        if ((err = kd_house_claim(&state->house, KD_DICE_PLAYER, daa, &u.house, rej)))
            return err;
        settle(state, NULL, &u);
    }
    *undo = u;
    return KD_OK;
}

kd_err kd_dice_rollback(kd_dice_state *state, const kd_dice_undo *undo)
{
    kd_dice_state s = *state;
    if (kd_house_rollback_command(&s.house, undo->kind, &undo->house) != KD_OK)
        return KD_ERR_DECODE;
    if (undo->kind == KD_DICE_CMD_ROLL) {
        if (s.pending.count == 0)
            return KD_ERR_DECODE;
        memset(&s.pending, 0, sizeof s.pending);
    } else {
        if (s.n_recent == 0 || s.rolls == 0 || s.recent[s.n_recent - 1].index != s.rolls)
            return KD_ERR_DECODE;
        memset(&s.recent[--s.n_recent], 0, sizeof s.recent[0]);
        if (undo->evicted_valid) {
            memmove(&s.recent[1], &s.recent[0], (size_t)s.n_recent * sizeof s.recent[0]);
            s.recent[0] = undo->evicted;
            s.n_recent++;
        }
        s.pending = undo->pending;
        s.rolls--;
    }
    s.status = undo->prev_status;
    *state = s;
    return KD_OK;
}

/* ---------------------------------------------------------- encodings */

static void roll_encode(const kd_dice_roll *r, uint8_t *p)
{
    p[0] = r->count;
    p[1] = r->sides;
    p[2] = r->claimed;
    p[3] = (uint8_t)((uint16_t)r->modifier >> 8);
    p[4] = (uint8_t)r->modifier;
    kd_put_u32be(p + 5, (uint32_t)r->total);
    kd_put_u32be(p + 9, r->index);
    memcpy(p + 13, r->dice, KD_DICE_MAX_COUNT);
}

/* Reads a roll; `asked`: only the ask (no dice, total or claim). 0 or -1. */
static int roll_decode(const uint8_t *p, kd_dice_roll *r, int asked)
{
    memset(r, 0, sizeof *r);
    r->count = p[0];
    r->sides = p[1];
    r->claimed = p[2];
    r->modifier = (int16_t)(uint16_t)((p[3] << 8) | p[4]);
    r->total = (int32_t)kd_get_u32be(p + 5);
    r->index = kd_get_u32be(p + 9);
    memcpy(r->dice, p + 13, KD_DICE_MAX_COUNT);
    if (r->count < 1 || r->count > KD_DICE_MAX_COUNT || !kd_dice_die_ok(r->sides) || r->claimed > 1 ||
        r->modifier < -KD_DICE_MAX_MODIFIER || r->modifier > KD_DICE_MAX_MODIFIER || r->index == 0)
        return -1;
    int32_t total = r->modifier;
    for (unsigned i = 0; i < KD_DICE_MAX_COUNT; i++) {
        int shown = i < r->count && !r->claimed && !asked;
        if (shown ? r->dice[i] < 1 || r->dice[i] > r->sides : r->dice[i] != 0)
            return -1;
        total += r->dice[i];
    }
    if ((asked || r->claimed) ? r->total != 0 || (asked && r->claimed) : r->total != total)
        return -1;
    return 0;
}

static int zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return 0;
    return 1;
}

kd_err kd_dice_state_encode(const kd_dice_state *state, kd_buf *out)
{
    uint8_t b[KD_DICE_STATE_MAX];
    size_t n = kd_house_head_encode(KD_DICE_VERSION, &state->house, state->players, b);
    kd_put_u32be(b + n, state->max_rolls);
    kd_put_u32be(b + n + 4, state->rolls);
    n += 8;
    b[n++] = state->status;
    b[n++] = state->n_recent;
    memset(b + n, 0, (1 + KD_DICE_RECENT) * KD_DICE_ROLL_LEN);
    if (state->house.pending)
        roll_encode(&state->pending, b + n);
    n += KD_DICE_ROLL_LEN;
    for (unsigned i = 0; i < state->n_recent; i++)
        roll_encode(&state->recent[i], b + n + i * KD_DICE_ROLL_LEN);
    n += KD_DICE_RECENT * KD_DICE_ROLL_LEN;
    return kd_buf_append(out, b, n);
}

kd_err kd_dice_state_decode(const uint8_t *data, size_t len, kd_dice_state *state)
{
    kd_dice_state s;
    memset(&s, 0, sizeof s);
    memset(state, 0, sizeof *state);
    size_t n;
    if (!data || kd_house_head_decode(data, len, KD_DICE_VERSION, &s.house, s.players, &n) != KD_OK ||
        len != n + KD_DICE_TABLE_LEN)
        return KD_ERR_DECODE;
    s.max_rolls = kd_get_u32be(data + n);
    s.rolls = kd_get_u32be(data + n + 4);
    n += 8;
    s.status = data[n++];
    s.n_recent = data[n++];
    if (s.max_rolls < 1 || s.max_rolls > KD_DICE_MAX_ROLLS_MAX || s.rolls > s.max_rolls || s.status > 2 ||
        s.n_recent > KD_DICE_RECENT || s.n_recent != (s.rolls < KD_DICE_RECENT ? s.rolls : KD_DICE_RECENT) ||
        (s.status == KD_DICE_FINISHED) != (s.rolls == s.max_rolls && s.status != KD_DICE_HOUSE_FORFEIT) ||
        (s.status != KD_DICE_IN_PROGRESS && s.house.pending) ||
        s.house.draws + (s.status == KD_DICE_HOUSE_FORFEIT) != s.rolls)
        return KD_ERR_DECODE;
    if (s.house.pending ? roll_decode(data + n, &s.pending, 1) != 0 || s.pending.index != s.rolls + 1
                        : !zero(data + n, KD_DICE_ROLL_LEN))
        return KD_ERR_DECODE;
    n += KD_DICE_ROLL_LEN;
    for (unsigned i = 0; i < KD_DICE_RECENT; i++, n += KD_DICE_ROLL_LEN) {
        if (i >= s.n_recent) {
            if (!zero(data + n, KD_DICE_ROLL_LEN))
                return KD_ERR_DECODE;
            continue;
        }
        if (roll_decode(data + n, &s.recent[i], 0) != 0 || s.recent[i].index != s.rolls - s.n_recent + 1 + i ||
            (s.recent[i].claimed && (i + 1u != s.n_recent || s.status != KD_DICE_HOUSE_FORFEIT)))
            return KD_ERR_DECODE;
    }
    if (s.status == KD_DICE_HOUSE_FORFEIT && (s.n_recent == 0 || !s.recent[s.n_recent - 1].claimed))
        return KD_ERR_DECODE;
    *state = s;
    return KD_OK;
}

kd_err kd_dice_undo_encode(const kd_dice_undo *undo, kd_buf *out)
{
    uint8_t b[KD_DICE_UNDO_LEN];
    memset(b, 0, sizeof b);
    size_t n = kd_house_undo_head_encode(KD_DICE_VERSION, &undo->house, undo->kind, b);
    b[n++] = undo->prev_status;
    b[n++] = undo->evicted_valid;
    if (undo->kind != KD_DICE_CMD_ROLL)
        roll_encode(&undo->pending, b + n);
    n += KD_DICE_ROLL_LEN;
    if (undo->evicted_valid)
        roll_encode(&undo->evicted, b + n);
    n += KD_DICE_ROLL_LEN;
    return kd_buf_append(out, b, n);
}

kd_err kd_dice_undo_decode(const uint8_t *data, size_t len, kd_dice_undo *undo)
{
    kd_dice_undo u;
    memset(&u, 0, sizeof u);
    memset(undo, 0, sizeof *undo);
    if (!data || len != KD_DICE_UNDO_LEN ||
        kd_house_undo_head_decode(data, KD_DICE_VERSION, &u.house, &u.kind) != KD_OK)
        return KD_ERR_DECODE;
    size_t n = KD_HOUSE_UNDO_HEAD_LEN;
    u.prev_status = data[n++];
    u.evicted_valid = data[n++];
    if (u.prev_status != KD_DICE_IN_PROGRESS || u.evicted_valid > 1 || (u.kind == KD_DICE_CMD_ROLL && u.evicted_valid))
        return KD_ERR_DECODE;
    if (u.kind == KD_DICE_CMD_ROLL ? !zero(data + n, KD_DICE_ROLL_LEN) : roll_decode(data + n, &u.pending, 1) != 0)
        return KD_ERR_DECODE;
    n += KD_DICE_ROLL_LEN;
    if (u.evicted_valid ? roll_decode(data + n, &u.evicted, 0) != 0 : !zero(data + n, KD_DICE_ROLL_LEN))
        return KD_ERR_DECODE;
    *undo = u;
    return KD_OK;
}

/* ------------------------------------------------------------ ops */

KD_OPS_PARAMS_CODEC(dice);
KD_OPS_INIT_EPISODE(dice);
KD_OPS_EXECUTE_DAA(dice, kd_dice_execute);
KD_OPS_CODEC(dice);

const kd_episode_ops kd_dice_ops = {
    .type_name = KD_DICE_TYPE_NAME,
    KD_OPS_MEMBERS(dice),
};
