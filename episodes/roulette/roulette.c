/*
 * roulette.c — the rules of "roulette" (roulette.h): the bets, their
 * coverage and payouts, a spin answered by the house, the state and undo
 * encodings and the kd_episode_ops. Pure functions.
 *
 * Table bytes: chips, start_chips, rounds, max_rounds, last_win,
 * last_stake (u32 BE), status, last_pocket, n_bets, n_recent, 16 bets
 * (kind, number, number2, amount u32 BE; zero beyond n_bets), 10 recent
 * pockets (zero beyond n_recent). State: the house's head
 * (kd_house_head_encode: version 2, or 3 with the reveal depth), table.
 * Undo: version, house undo, kind, the table before the command.
 */
#include "episodes/roulette/roulette.h"
#include "episodes/ops_adapter.h"

#include <string.h>

const kd_rule_code kd_roulette_rule_codes[] = {
    {"game_over", "the episode has ended: the rounds are played, the chips are gone, or the house forfeited"},
    {"unauthorised", "the command is unsigned, or signed by a key that is not a participant"},
    {"not_the_player", "only the player bets and claims"},
    {"no_bets", "a spin needs at least one bet"},
    {"too_many_bets", "more than 16 bets in one spin"},
    {"unknown_bet", "the bet kind is not one of straight, split, street, corner, six_line, top_line, red, black, "
                    "odd, even, low, high, dozen, column"},
    {"bad_bet_number", "the bet's number(s) do not name a bet of its kind on the American layout"},
    {"bad_amount", "a bet's amount is 0"},
    {"insufficient_chips", "the stakes add up to more than the player's chips"},
    KD_HOUSE_RULE_CODES,
    {NULL, NULL},
};

static const char *const bet_names[KD_RBET_KINDS + 1] = {NULL,       "straight", "split", "street", "corner",
                                                         "six_line", "top_line", "red",   "black",  "odd",
                                                         "even",     "low",      "high",  "dozen",  "column"};
static const unsigned payouts[KD_RBET_KINDS + 1] = {0, 35, 17, 11, 8, 5, 6, 1, 1, 1, 1, 1, 1, 2, 2};

const char *kd_roulette_bet_name(unsigned kind) { return kind >= 1 && kind <= KD_RBET_KINDS ? bet_names[kind] : "?"; }

unsigned kd_roulette_bet_kind_of(const char *name)
{
    for (unsigned k = 1; name && k <= KD_RBET_KINDS; k++)
        if (strcmp(bet_names[k], name) == 0)
            return k;
    return 0;
}

unsigned kd_roulette_payout(unsigned kind) { return kind >= 1 && kind <= KD_RBET_KINDS ? payouts[kind] : 0; }

int kd_roulette_red(unsigned p)
{
    static const uint8_t red[] = {1, 3, 5, 7, 9, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30, 32, 34, 36};
    for (size_t i = 0; i < sizeof red; i++)
        if (red[i] == p)
            return 1;
    return 0;
}

int kd_roulette_bet_valid(unsigned kind, unsigned n, unsigned n2)
{
    switch (kind) {
    case KD_RBET_STRAIGHT:
        return n <= KD_ROULETTE_DOUBLE_ZERO && n2 == 0;
    case KD_RBET_SPLIT:
        if (n == 0 && n2 == KD_ROULETTE_DOUBLE_ZERO)
            return 1;
        return n >= 1 && n <= 36 && ((n2 == n + 1 && n % 3 != 0) || (n2 == n + 3 && n2 <= 36));
    case KD_RBET_STREET:
    case KD_RBET_SIX_LINE:
        return n2 == 0 && n >= 1 && n % 3 == 1 && n <= (kind == KD_RBET_STREET ? 34u : 31u);
    case KD_RBET_CORNER:
        return n2 == 0 && n >= 1 && n <= 32 && n % 3 != 0;
    case KD_RBET_DOZEN:
    case KD_RBET_COLUMN:
        return n2 == 0 && n >= 1 && n <= 3;
    case KD_RBET_TOP_LINE:
    case KD_RBET_RED:
    case KD_RBET_BLACK:
    case KD_RBET_ODD:
    case KD_RBET_EVEN:
    case KD_RBET_LOW:
    case KD_RBET_HIGH:
        return n == 0 && n2 == 0;
    default:
        return 0;
    }
}

int kd_roulette_bet_covers(unsigned kind, unsigned n, unsigned n2, unsigned p)
{
    int number = p >= 1 && p <= 36;
    switch (kind) {
    case KD_RBET_STRAIGHT:
        return p == n;
    case KD_RBET_SPLIT:
        return p == n || p == n2;
    case KD_RBET_STREET:
        return number && p >= n && p <= n + 2;
    case KD_RBET_SIX_LINE:
        return number && p >= n && p <= n + 5;
    case KD_RBET_CORNER:
        return number && (p == n || p == n + 1 || p == n + 3 || p == n + 4);
    case KD_RBET_TOP_LINE:
        return p <= 3 || p == KD_ROULETTE_DOUBLE_ZERO;
    case KD_RBET_RED:
        return number && kd_roulette_red(p);
    case KD_RBET_BLACK:
        return number && !kd_roulette_red(p);
    case KD_RBET_ODD:
        return number && p % 2 == 1;
    case KD_RBET_EVEN:
        return number && p % 2 == 0;
    case KD_RBET_LOW:
        return number && p <= 18;
    case KD_RBET_HIGH:
        return number && p >= 19;
    case KD_RBET_DOZEN:
        return number && (p - 1) / 12 + 1 == n;
    case KD_RBET_COLUMN:
        return number && (p - 1) % 3 + 1 == n;
    default:
        return 0;
    }
}

unsigned kd_roulette_outcome(kd_fair_stream *stream) { return kd_fair_below(stream, KD_ROULETTE_POCKETS); }

kd_err kd_roulette_state_init(kd_roulette_state *state, const kd_participants *parts, const kd_roulette_params *p,
                              uint32_t episode_id, kd_reject *rej)
{
    memset(state, 0, sizeof *state);
    if (kd_two_seats_check(parts, "roulette", (const char *const[2]){"player", "house"}, rej) != KD_OK)
        return KD_ERR_BAD_PARTICIPANTS;
    kd_house_init(&state->house, &p->house, episode_id);
    memcpy(state->players, parts->keys, sizeof state->players);
    state->table.chips = state->table.start_chips = p->start_chips;
    state->table.max_rounds = p->max_rounds;
    return KD_OK;
}

static int signed_by(const kd_roulette_state *s, const kd_pubkey *signer, int seat)
{
    return signer && memcmp(signer->bytes, s->players[seat].bytes, KD_PUBKEY_LEN) == 0;
}

static kd_err place(kd_roulette_state *s, const kd_roulette_command *c, uint64_t daa, kd_roulette_undo *u,
                    kd_reject *rej)
{
    if (s->house.pending)
        return kd_reject_rule(rej, "draw_pending",
                              "the wheel is spinning: the house's reveal (or a claim from DAA "
                              "%llu) comes first",
                              (unsigned long long)kd_house_deadline(&s->house));
    if (c->n_bets == 0)
        return kd_reject_rule(rej, "no_bets", "a spin needs at least one bet");
    if (c->n_bets > KD_ROULETTE_MAX_BETS)
        return kd_reject_rule(rej, "too_many_bets", "%u bets: at most %d a spin", (unsigned)c->n_bets,
                              KD_ROULETTE_MAX_BETS);
    uint64_t stake = 0;
    for (uint32_t i = 0; i < c->n_bets; i++) {
        const unsigned k = c->bets[i].kind, n = c->bets[i].number, n2 = c->bets[i].number2;
        if (k < 1 || k > KD_RBET_KINDS)
            return kd_reject_rule(rej, "unknown_bet", "bet %u: kind %u is not a roulette bet", i + 1, k);
        if (!kd_roulette_bet_valid(k, n, n2))
            return kd_reject_rule(rej, "bad_bet_number", "bet %u: %s with number %u%s is not on the layout", i + 1,
                                  bet_names[k], n, n2 ? " and a second number" : "");
        if (c->bets[i].amount == 0)
            return kd_reject_rule(rej, "bad_amount", "bet %u: the amount is 0", i + 1);
        stake += c->bets[i].amount;
    }
    if (stake > s->table.chips)
        return kd_reject_rule(rej, "insufficient_chips", "the stakes are %llu chips; the player has %u",
                              (unsigned long long)stake, (unsigned)s->table.chips);
    kd_err err = kd_house_ask(&s->house, KD_ROULETTE_PLAYER, c->entropy, c->digest, daa, &u->house, rej);
    if (err)
        return err;
    kd_roulette_table *t = &s->table;
    t->chips -= (uint32_t)stake;
    t->last_stake = (uint32_t)stake;
    t->n_bets = (uint8_t)c->n_bets;
    for (uint32_t i = 0; i < c->n_bets; i++) {
        t->bets[i].kind = (uint8_t)c->bets[i].kind;
        t->bets[i].number = (uint8_t)c->bets[i].number;
        t->bets[i].number2 = (uint8_t)c->bets[i].number2;
        t->bets[i].amount = c->bets[i].amount;
    }
    return KD_OK;
}

/* Pays the table's bets for `pocket` (or, forfeit, as if each had won) and
 * ends the round. */
static void settle(kd_roulette_table *t, int pocket)
{
    uint64_t win = 0;
    for (unsigned i = 0; i < t->n_bets; i++) {
        const kd_roulette_bet *b = &t->bets[i];
        if (pocket < 0 || kd_roulette_bet_covers(b->kind, b->number, b->number2, (unsigned)pocket))
            win += (uint64_t)b->amount * (payouts[b->kind] + 1);
    }
    win = win > UINT32_MAX - t->chips ? UINT32_MAX - t->chips : win;
    t->chips += (uint32_t)win;
    t->last_win = (uint32_t)win;
    memset(t->bets, 0, sizeof t->bets);
    t->n_bets = 0;
    t->rounds++;
    if (pocket >= 0) {
        t->last_pocket = (uint8_t)(pocket + 1);
        if (t->n_recent == KD_ROULETTE_RECENT) {
            memmove(t->recent, t->recent + 1, KD_ROULETTE_RECENT - 1);
            t->n_recent--;
        }
        t->recent[t->n_recent++] = (uint8_t)pocket;
    }
    if (pocket < 0)
        t->status = KD_ROULETTE_HOUSE_FORFEIT;
    else if (t->chips == 0)
        t->status = KD_ROULETTE_BROKE;
    else if (t->rounds >= t->max_rounds)
        t->status = KD_ROULETTE_FINISHED;
}

kd_err kd_roulette_execute(kd_roulette_state *s, const kd_roulette_command *c, const kd_pubkey *signer, uint64_t daa,
                           kd_roulette_undo *undo, kd_reject *rej)
{
    if (s->table.status != KD_ROULETTE_IN_PROGRESS)
        return kd_reject_rule(rej, "game_over", "the episode is over");
    if (!signed_by(s, signer, KD_ROULETTE_PLAYER) && !signed_by(s, signer, KD_ROULETTE_HOUSE))
        return kd_reject_rule(rej, "unauthorised", "the command must be signed by the player or the house");
    kd_roulette_undo u;
    memset(&u, 0, sizeof u);
    u.kind = c->kind;
    u.prev = s->table;
    kd_err err;
    if (c->kind == KD_ROULETTE_CMD_REVEAL) {
        if (!signed_by(s, signer, KD_ROULETTE_HOUSE))
            return kd_reject_rule(rej, "not_the_house", "only the house reveals");
        uint8_t draw[KD_HASH_LEN];
        if ((err = kd_house_reveal(&s->house, c->proof, draw, &u.house, rej)))
            return err;
        kd_fair_stream stream;
        settle(&s->table, (int)kd_roulette_outcome(kd_fair_stream_init(&stream, draw)));
    } else {
        if (!signed_by(s, signer, KD_ROULETTE_PLAYER))
            return kd_reject_rule(rej, "not_the_player", "only the player bets and claims");
        if (c->kind == KD_ROULETTE_CMD_BETS)
            err = place(s, c, daa, &u, rej);
        else if (!(err = kd_house_claim(&s->house, KD_ROULETTE_PLAYER, daa, &u.house, rej)))
            settle(&s->table, -1);
        if (err)
            return err;
    }
    *undo = u;
    return KD_OK;
}

kd_err kd_roulette_rollback(kd_roulette_state *state, const kd_roulette_undo *undo)
{
    kd_roulette_state s = *state;
    if (kd_house_rollback_command(&s.house, undo->kind, &undo->house) != KD_OK)
        return KD_ERR_DECODE;
    s.table = undo->prev;
    *state = s;
    return KD_OK;
}

/* ---------------------------------------------------------- encodings */

static void table_encode(const kd_roulette_table *t, uint8_t *p)
{
    const uint32_t w[6] = {t->chips, t->start_chips, t->rounds, t->max_rounds, t->last_win, t->last_stake};
    for (int i = 0; i < 6; i++)
        kd_put_u32be(p + 4 * i, w[i]);
    p += 24;
    *p++ = t->status;
    *p++ = t->last_pocket;
    *p++ = t->n_bets;
    *p++ = t->n_recent;
    for (int i = 0; i < KD_ROULETTE_MAX_BETS; i++, p += KD_ROULETTE_BET_LEN) {
        p[0] = t->bets[i].kind;
        p[1] = t->bets[i].number;
        p[2] = t->bets[i].number2;
        kd_put_u32be(p + 3, t->bets[i].amount);
    }
    memcpy(p, t->recent, KD_ROULETTE_RECENT);
}

static int table_decode(const uint8_t *p, kd_roulette_table *t)
{
    memset(t, 0, sizeof *t);
    uint32_t *w[6] = {&t->chips, &t->start_chips, &t->rounds, &t->max_rounds, &t->last_win, &t->last_stake};
    for (int i = 0; i < 6; i++)
        *w[i] = kd_get_u32be(p + 4 * i);
    p += 24;
    t->status = *p++;
    t->last_pocket = *p++;
    t->n_bets = *p++;
    t->n_recent = *p++;
    for (int i = 0; i < KD_ROULETTE_MAX_BETS; i++, p += KD_ROULETTE_BET_LEN) {
        kd_roulette_bet *b = &t->bets[i];
        b->kind = p[0];
        b->number = p[1];
        b->number2 = p[2];
        b->amount = kd_get_u32be(p + 3);
        if (i < t->n_bets ? !kd_roulette_bet_valid(b->kind, b->number, b->number2) || b->amount == 0
                          : b->kind || b->number || b->number2 || b->amount)
            return -1;
    }
    memcpy(t->recent, p, KD_ROULETTE_RECENT);
    if (t->start_chips < 1 || t->start_chips > KD_ROULETTE_CHIPS_MAX || t->max_rounds < 1 ||
        t->max_rounds > KD_ROULETTE_ROUNDS_MAX || t->rounds > t->max_rounds || t->status > 3 ||
        t->last_pocket > KD_ROULETTE_POCKETS || t->n_bets > KD_ROULETTE_MAX_BETS || t->n_recent > KD_ROULETTE_RECENT ||
        (t->status != KD_ROULETTE_IN_PROGRESS && t->n_bets))
        return -1;
    for (int i = 0; i < KD_ROULETTE_RECENT; i++)
        if (i < t->n_recent ? t->recent[i] >= KD_ROULETTE_POCKETS : t->recent[i] != 0)
            return -1;
    return 0;
}

kd_err kd_roulette_state_encode(const kd_roulette_state *state, kd_buf *out)
{
    uint8_t b[KD_ROULETTE_STATE_MAX];
    size_t n = kd_house_head_encode(KD_ROULETTE_VERSION, &state->house, state->players, b);
    table_encode(&state->table, b + n);
    return kd_buf_append(out, b, n + KD_ROULETTE_TABLE_LEN);
}

kd_err kd_roulette_state_decode(const uint8_t *data, size_t len, kd_roulette_state *state)
{
    kd_roulette_state s;
    memset(&s, 0, sizeof s);
    memset(state, 0, sizeof *state);
    size_t n;
    if (!data || kd_house_head_decode(data, len, KD_ROULETTE_VERSION, &s.house, s.players, &n) != KD_OK ||
        len != n + KD_ROULETTE_TABLE_LEN || table_decode(data + n, &s.table) != 0 ||
        (s.house.pending != 0) != (s.table.n_bets != 0) ||
        s.house.draws + (s.table.status == KD_ROULETTE_HOUSE_FORFEIT) != s.table.rounds)
        return KD_ERR_DECODE;
    *state = s;
    return KD_OK;
}

kd_err kd_roulette_undo_encode(const kd_roulette_undo *undo, kd_buf *out)
{
    uint8_t b[KD_ROULETTE_UNDO_LEN];
    table_encode(&undo->prev, b + kd_house_undo_head_encode(KD_ROULETTE_VERSION, &undo->house, undo->kind, b));
    return kd_buf_append(out, b, sizeof b);
}

kd_err kd_roulette_undo_decode(const uint8_t *data, size_t len, kd_roulette_undo *undo)
{
    kd_roulette_undo u;
    memset(&u, 0, sizeof u);
    memset(undo, 0, sizeof *undo);
    if (!data || len != KD_ROULETTE_UNDO_LEN ||
        kd_house_undo_head_decode(data, KD_ROULETTE_VERSION, &u.house, &u.kind) != KD_OK ||
        table_decode(data + KD_HOUSE_UNDO_HEAD_LEN, &u.prev) != 0 || u.prev.status != KD_ROULETTE_IN_PROGRESS)
        return KD_ERR_DECODE;
    *undo = u;
    return KD_OK;
}

/* ------------------------------------------------------------ ops */

KD_OPS_PARAMS_CODEC(roulette);
KD_OPS_INIT_EPISODE(roulette);
KD_OPS_EXECUTE_DAA(roulette, kd_roulette_execute);
KD_OPS_CODEC(roulette);

const kd_episode_ops kd_roulette_ops = {
    .type_name = KD_ROULETTE_TYPE_NAME,
    KD_OPS_MEMBERS(roulette),
};
