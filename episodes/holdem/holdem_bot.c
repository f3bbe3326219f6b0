/*
 * holdem_bot.c — a hold'em bot by Monte Carlo equity against pot odds.
 *
 * Equity: the share of random deals of the unknown cards (the other seat's
 * two, the rest of the board, and the bot's own when it does not know
 * them) that the bot's seven cards win, ties counting half. Then:
 *   free to check   raise half the pot with equity above 0.65, else check
 *   facing a bet    fold below the pot odds (call / (pot + call)) plus a
 *                   margin of 0.05; raise the pot above 0.8; else call
 * Sizes come from the legal list (holdem_type.c). The type table's
 * bot_secret_command reads the seat's hole cards from its own_secret
 * (secret_view's {"hole": ["As", "Kd"]}: `kdapp play` fetches it for a
 * search seat from the gateway); bot_command sees the public state only,
 * so there its equity is that of a random hand on the board.
 */
#include <string.h>

#include "episodes/holdem/holdem.h"
#include "episodes/holdem/holdem_int.h"

#define SAMPLES 400u

static uint32_t rng_below(uint64_t *rng, uint32_t n) { return kd_type_rng_below(rng, n); }

/* Draws a card not in `used`, marking it. */
static uint8_t draw(uint64_t *rng, uint64_t *used)
{
    uint32_t c;
    do
        c = rng_below(rng, KD_HM_CARDS);
    while (*used & (1ull << c));
    *used |= 1ull << c;
    return (uint8_t)c;
}

double kd_hm_equity(const uint8_t board[KD_HM_BOARD], const uint8_t own[2], unsigned samples, uint64_t *rng)
{
    uint64_t known = 0;
    for (int i = 0; i < KD_HM_BOARD; i++)
        if (board[i] < KD_HM_CARDS)
            known |= 1ull << board[i];
    for (int i = 0; i < 2; i++)
        if (own[i] < KD_HM_CARDS)
            known |= 1ull << own[i];
    double score = 0;
    for (unsigned n = 0; n < samples; n++) {
        uint64_t used = known;
        uint8_t b[KD_HM_BOARD], me[7], them[7];
        for (int i = 0; i < KD_HM_BOARD; i++)
            b[i] = board[i] < KD_HM_CARDS ? board[i] : draw(rng, &used);
        for (int i = 0; i < 2; i++) {
            me[i] = own[i] < KD_HM_CARDS ? own[i] : draw(rng, &used);
            them[i] = draw(rng, &used);
        }
        memcpy(me + 2, b, KD_HM_BOARD);
        memcpy(them + 2, b, KD_HM_BOARD);
        uint32_t a = kd_hm_eval(me, 7), o = kd_hm_eval(them, 7);
        score += a > o ? 1.0 : a == o ? 0.5 : 0.0;
    }
    return samples ? score / samples : 0.5;
}

/* The legal move whose notation starts with `word`, the last such when
 * `last`; -1 when none. */
static int find(const kd_legal_moves *m, const char *word, int last)
{
    int at = -1;
    size_t n = strlen(word);
    for (size_t i = 0; i < m->count; i++)
        if (strncmp(m->moves[i].notation, word, n) == 0) {
            at = (int)i;
            if (!last)
                break;
        }
    return at;
}

kd_err kd_hm_bot_decide(const kd_hm_state *s, int seat, const uint8_t own[2], uint64_t seed, kd_buf *out)
{
    kd_legal_moves m;
    kd_legal_moves_init(&m);
    kd_err err = kd_hm_legal_moves(s, seat, &m);
    if (!err && !m.count)
        err = KD_ERR_NO_MOVE;
    if (err) {
        kd_legal_moves_fini(&m);
        return err;
    }
    uint64_t rng = seed;
    double eq = kd_hm_equity(s->board, own, SAMPLES, &rng);
    kd_hm_limits lim;
    kd_hm_limits_of(s, seat, &lim);
    int raise_small = find(&m, "bet", 0) >= 0 ? find(&m, "bet", 0) : find(&m, "raise", 0);
    int raise_big = find(&m, "raise", 1) >= 0 ? find(&m, "raise", 1) : find(&m, "bet", 1);
    int pick;
    if (lim.can_check)
        pick = eq > 0.65 && raise_small >= 0 ? raise_small : find(&m, "check", 0);
    else {
        double odds = (double)lim.call / (double)(kd_hm_pot(s) + lim.call);
        if (eq < odds + 0.05)
            pick = find(&m, "fold", 0);
        else if (eq > 0.8 && raise_big >= 0)
            pick = raise_big;
        else
            pick = find(&m, "call", 0);
    }
    if (pick < 0)
        pick = 0;
    err = kd_buf_append(out, m.moves[pick].command, m.moves[pick].command_len);
    kd_legal_moves_fini(&m);
    return err;
}

kd_err kd_hm_bot_secret_command(const void *state, int seat, const json_t *own_secret, unsigned depth,
                                uint64_t tiebreak, kd_buf *out)
{
    (void)depth;
    const kd_hm_state *s = state;
    if ((seat != 0 && seat != 1) || !(kd_hm_owes(s, seat) & KD_HM_OWE_BET))
        return KD_ERR_NO_MOVE;
    uint8_t own[2] = {KD_HM_NO_CARD, KD_HM_NO_CARD};
    const json_t *hole = json_object_get(own_secret, "hole");
    for (size_t i = 0; i < 2 && json_array_size(hole) == 2; i++) {
        int c = kd_hm_card_parse(json_string_value(json_array_get(hole, i)));
        own[i] = c < 0 ? KD_HM_NO_CARD : (uint8_t)c;
    }
    return kd_hm_bot_decide(s, seat, own, tiebreak ^ 0x9e3779b97f4a7c15ull ^ s->move_count, out);
}

kd_err kd_hm_bot_command(const void *state, unsigned depth, uint64_t tiebreak, kd_buf *out)
{
    (void)depth;
    const kd_hm_state *s = state;
    int seat = kd_hm_to_move(s);
    if (seat < 0 || !(kd_hm_owes(s, seat) & KD_HM_OWE_BET))
        return KD_ERR_NO_MOVE;
    const uint8_t unknown[2] = {KD_HM_NO_CARD, KD_HM_NO_CARD};
    return kd_hm_bot_decide(s, seat, unknown, tiebreak ^ 0x9e3779b97f4a7c15ull ^ s->move_count, out);
}
