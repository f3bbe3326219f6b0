/*
 * slots.c — the rules of "slots" (slots.h): the published reel strip and
 * paytable, the exact return to player, a spin answered by the house, the
 * state and undo encodings and the kd_episode_ops. Pure functions.
 *
 * Table bytes: credits, start_credits, rounds, max_rounds, last_win,
 * last_bet, bet (u32 BE), status, three stops (+1, 0 before any). State:
 * the house's head (kd_house_head_encode: version 2, or 3 with the reveal
 * depth), table. Undo: version, house undo, kind, the table before the
 * command.
 */
#include "episodes/slots/slots.h"
#include "episodes/ops_adapter.h"

#include <string.h>

const kd_rule_code kd_slots_rule_codes[] = {
    {"game_over", "the episode has ended: the rounds are played, the credits are gone, or the house forfeited"},
    {"unauthorised", "the command is unsigned, or signed by a key that is not a participant"},
    {"not_the_player", "only the player spins and claims"},
    {"bad_bet", "the bet is not from 1 to 1000 credits"},
    {"insufficient_credits", "the bet is more than the player's credits"},
    KD_HOUSE_RULE_CODES,
    {NULL, NULL},
};

#define C KD_SYM_CHERRY
#define L KD_SYM_LEMON
#define O KD_SYM_ORANGE
#define P KD_SYM_PLUM
#define B KD_SYM_BELL
#define R KD_SYM_BAR
#define S KD_SYM_SEVEN
#define ANY KD_SYM_COUNT

/* 20 stops: 3 cherries, 4 lemons, 4 oranges, 3 plums, 3 bells, 2 bars, 1 seven. */
const uint8_t kd_slots_strip[KD_SLOTS_STOPS] = {C, L, O, P, B, L, R, O, C, L, P, B, O, S, L, C, O, P, R, B};
const char *const kd_slots_symbol_names[KD_SYM_COUNT] = {"cherry", "lemon", "orange", "plum", "bell", "bar", "seven"};

const kd_slots_pay kd_slots_paytable[KD_SLOTS_PAYS] = {
    {{S, S, S}, 300, "seven seven seven"},   {{R, R, R}, 100, "bar bar bar"},
    {{B, B, B}, 40, "bell bell bell"},       {{P, P, P}, 20, "plum plum plum"},
    {{O, O, O}, 15, "orange orange orange"}, {{L, L, L}, 15, "lemon lemon lemon"},
    {{C, C, C}, 10, "cherry cherry cherry"}, {{C, C, ANY}, 5, "cherry cherry any"},
    {{C, ANY, ANY}, 2, "cherry any any"},
};

int kd_slots_line(const uint8_t stops[KD_SLOTS_REELS])
{
    for (int i = 0; i < KD_SLOTS_PAYS; i++) {
        int match = 1;
        for (int r = 0; r < KD_SLOTS_REELS && match; r++)
            match = kd_slots_paytable[i].sym[r] == ANY || kd_slots_paytable[i].sym[r] == kd_slots_strip[stops[r]];
        if (match)
            return i;
    }
    return -1;
}

uint32_t kd_slots_multiplier(const uint8_t stops[KD_SLOTS_REELS])
{
    int line = kd_slots_line(stops);
    return line < 0 ? 0 : kd_slots_paytable[line].multiplier;
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

void kd_slots_rtp(uint64_t *numerator, uint64_t *denominator)
{
    uint64_t sum = 0;
    uint8_t s[KD_SLOTS_REELS];
    for (s[0] = 0; s[0] < KD_SLOTS_STOPS; s[0]++)
        for (s[1] = 0; s[1] < KD_SLOTS_STOPS; s[1]++)
            for (s[2] = 0; s[2] < KD_SLOTS_STOPS; s[2]++)
                sum += kd_slots_multiplier(s);
    uint64_t den = (uint64_t)KD_SLOTS_STOPS * KD_SLOTS_STOPS * KD_SLOTS_STOPS, g = gcd(sum, den);
    *numerator = sum / g;
    *denominator = den / g;
}

void kd_slots_outcome(kd_fair_stream *stream, uint8_t stops[KD_SLOTS_REELS])
{
    for (int r = 0; r < KD_SLOTS_REELS; r++)
        stops[r] = (uint8_t)kd_fair_below(stream, KD_SLOTS_STOPS);
}

/* ------------------------------------------------------------ rules */

static int signed_by(const kd_slots_state *s, const kd_pubkey *signer, int seat)
{
    return signer && memcmp(signer->bytes, s->players[seat].bytes, KD_PUBKEY_LEN) == 0;
}

/* Ends the round: pays `multiplier` x the bet, shows the stops (NULL: claimed). */
static void settle(kd_slots_table *t, const uint8_t *stops, uint32_t multiplier)
{
    uint64_t win = (uint64_t)t->bet * multiplier;
    win = win > UINT32_MAX - t->credits ? UINT32_MAX - t->credits : win;
    t->credits += (uint32_t)win;
    t->last_win = (uint32_t)win;
    t->last_bet = t->bet;
    t->bet = 0;
    t->rounds++;
    for (int r = 0; r < KD_SLOTS_REELS; r++)
        t->stops[r] = stops ? (uint8_t)(stops[r] + 1) : 0;
    if (!stops)
        t->status = KD_SLOTS_HOUSE_FORFEIT;
    else if (t->credits == 0)
        t->status = KD_SLOTS_BROKE;
    else if (t->rounds >= t->max_rounds)
        t->status = KD_SLOTS_FINISHED;
}

kd_err kd_slots_execute(kd_slots_state *s, const kd_slots_command *c, const kd_pubkey *signer, uint64_t daa,
                        kd_slots_undo *undo, kd_reject *rej)
{
    kd_slots_table *t = &s->table;
    if (t->status != KD_SLOTS_IN_PROGRESS)
        return kd_reject_rule(rej, "game_over", "the episode is over");
    if (!signed_by(s, signer, KD_SLOTS_PLAYER) && !signed_by(s, signer, KD_SLOTS_HOUSE))
        return kd_reject_rule(rej, "unauthorised", "the command must be signed by the player or the house");
    kd_slots_undo u;
    memset(&u, 0, sizeof u);
    u.kind = c->kind;
    u.prev = *t;
    kd_err err;
    if (c->kind == KD_SLOTS_CMD_REVEAL) {
        if (!signed_by(s, signer, KD_SLOTS_HOUSE))
            return kd_reject_rule(rej, "not_the_house", "only the house reveals");
        uint8_t draw[KD_HASH_LEN], stops[KD_SLOTS_REELS];
        if ((err = kd_house_reveal(&s->house, c->proof, draw, &u.house, rej)))
            return err;
        kd_fair_stream stream;
        kd_slots_outcome(kd_fair_stream_init(&stream, draw), stops);
        settle(t, stops, kd_slots_multiplier(stops));
    } else if (!signed_by(s, signer, KD_SLOTS_PLAYER)) {
        return kd_reject_rule(rej, "not_the_player", "only the player spins and claims");
    } else if (c->kind == KD_SLOTS_CMD_CLAIM) {
        if ((err = kd_house_claim(&s->house, KD_SLOTS_PLAYER, daa, &u.house, rej)))
            return err;
        settle(t, NULL, kd_slots_paytable[0].multiplier);
    } else {
        if (s->house.pending)
            return kd_reject_rule(rej, "draw_pending",
                                  "the reels spin: the house's reveal (or a claim from DAA %llu) "
                                  "comes first",
                                  (unsigned long long)kd_house_deadline(&s->house));
        if (c->bet < 1 || c->bet > KD_SLOTS_BET_MAX)
            return kd_reject_rule(rej, "bad_bet", "a bet of %u: bets are 1 to %u credits", (unsigned)c->bet,
                                  KD_SLOTS_BET_MAX);
        if (c->bet > t->credits)
            return kd_reject_rule(rej, "insufficient_credits", "a bet of %u with %u credits", (unsigned)c->bet,
                                  (unsigned)t->credits);
        if ((err = kd_house_ask(&s->house, KD_SLOTS_PLAYER, c->entropy, c->digest, daa, &u.house, rej)))
            return err;
        t->credits -= c->bet;
        t->bet = c->bet;
    }
    *undo = u;
    return KD_OK;
}

kd_err kd_slots_rollback(kd_slots_state *state, const kd_slots_undo *undo)
{
    kd_slots_state s = *state;
    if (kd_house_rollback_command(&s.house, undo->kind, &undo->house) != KD_OK)
        return KD_ERR_DECODE;
    s.table = undo->prev;
    *state = s;
    return KD_OK;
}

/* ---------------------------------------------------------- encodings */

static void table_encode(const kd_slots_table *t, uint8_t *p)
{
    const uint32_t w[7] = {t->credits, t->start_credits, t->rounds, t->max_rounds, t->last_win, t->last_bet, t->bet};
    for (int i = 0; i < 7; i++)
        kd_put_u32be(p + 4 * i, w[i]);
    p[28] = t->status;
    memcpy(p + 29, t->stops, KD_SLOTS_REELS);
}

static int table_decode(const uint8_t *p, kd_slots_table *t)
{
    memset(t, 0, sizeof *t);
    uint32_t *w[7] = {&t->credits, &t->start_credits, &t->rounds, &t->max_rounds, &t->last_win, &t->last_bet, &t->bet};
    for (int i = 0; i < 7; i++)
        *w[i] = kd_get_u32be(p + 4 * i);
    t->status = p[28];
    memcpy(t->stops, p + 29, KD_SLOTS_REELS);
    int shown = t->stops[0] != 0;
    for (int r = 0; r < KD_SLOTS_REELS; r++)
        if (t->stops[r] > KD_SLOTS_STOPS || (t->stops[r] != 0) != shown)
            return -1;
    if (t->start_credits < 1 || t->start_credits > KD_SLOTS_CREDITS_MAX || t->max_rounds < 1 ||
        t->max_rounds > KD_SLOTS_ROUNDS_MAX || t->rounds > t->max_rounds || t->status > 3 ||
        t->bet > KD_SLOTS_BET_MAX || t->last_bet > KD_SLOTS_BET_MAX || (t->status != KD_SLOTS_IN_PROGRESS && t->bet))
        return -1;
    return 0;
}

kd_err kd_slots_state_encode(const kd_slots_state *state, kd_buf *out)
{
    uint8_t b[KD_SLOTS_STATE_MAX];
    size_t n = kd_house_head_encode(KD_SLOTS_VERSION, &state->house, state->players, b);
    table_encode(&state->table, b + n);
    return kd_buf_append(out, b, n + KD_SLOTS_TABLE_LEN);
}

kd_err kd_slots_state_decode(const uint8_t *data, size_t len, kd_slots_state *state_ptr)
{
    kd_slots_state s;
    memset(&s, 0, sizeof s);
    memset(state_ptr, 0, sizeof s);
    size_t n;
    if (!data || kd_house_head_decode(data, len, KD_SLOTS_VERSION, &s.house, s.players, &n) != KD_OK ||
        len != n + KD_SLOTS_TABLE_LEN || table_decode(data + n, &s.table) != 0 ||
        (s.house.pending != 0) != (s.table.bet != 0) ||
        s.house.draws + (s.table.status == KD_SLOTS_HOUSE_FORFEIT) != s.table.rounds)
        return KD_ERR_DECODE;
    memcpy(state_ptr, &s, sizeof s);
    return KD_OK;
}

kd_err kd_slots_undo_encode(const kd_slots_undo *undo, kd_buf *out)
{
    uint8_t b[KD_SLOTS_UNDO_LEN];
    table_encode(&undo->prev, b + kd_house_undo_head_encode(KD_SLOTS_VERSION, &undo->house, undo->kind, b));
    return kd_buf_append(out, b, sizeof b);
}

kd_err kd_slots_undo_decode(const uint8_t *data, size_t len, kd_slots_undo *undo)
{
    kd_slots_undo u;
    memset(&u, 0, sizeof u);
    memset(undo, 0, sizeof *undo);
    if (!data || len != KD_SLOTS_UNDO_LEN ||
        kd_house_undo_head_decode(data, KD_SLOTS_VERSION, &u.house, &u.kind) != KD_OK ||
        table_decode(data + KD_HOUSE_UNDO_HEAD_LEN, &u.prev) != 0 || u.prev.status != KD_SLOTS_IN_PROGRESS)
        return KD_ERR_DECODE;
    *undo = u;
    return KD_OK;
}

/* ------------------------------------------------------------ ops */

KD_OPS_PARAMS_CODEC(slots);

static kd_err ops_init(void *state_ptr, const kd_participants *parts, const uint8_t *params, size_t len,
                       const kd_block_meta *meta, kd_reject *rej)
{
    kd_slots_state *state = state_ptr;
    memset(state, 0, sizeof *state);
    kd_slots_params p;
    kd_err err = kd_slots_params_decode(params, len, &p, rej);
    if (err)
        return err;
    if (kd_two_seats_check(parts, "slots", (const char *const[2]){"player", "house"}, rej) != KD_OK)
        return KD_ERR_BAD_PARTICIPANTS;
    kd_house_init(&state->house, &p.house, meta ? meta->episode_id : 0);
    memcpy(state->players, parts->keys, sizeof state->players);
    state->table.credits = state->table.start_credits = p.start_credits;
    state->table.max_rounds = p.max_rounds;
    return KD_OK;
}

KD_OPS_EXECUTE_DAA(slots, kd_slots_execute);
KD_OPS_CODEC(slots);

const kd_episode_ops kd_slots_ops = {
    .type_name = KD_SLOTS_TYPE_NAME,
    KD_OPS_MEMBERS(slots),
};
