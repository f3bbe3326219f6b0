/*
 * blackjack_odds_test.c — the draws against exact odds, by chi-square at
 * the 0.1% level, fixed seeds, through the type's own functions (the
 * engine's ops, the bot, the reveal's effect kd_bj_reveal_seed; the draw
 * seeds are SHA-256 of the draw's input, standing in for the VRF outputs,
 * which no test can tell from them: proving 5 x 10^5 draws would take
 * minutes):
 *   - 10^5 rounds of basic strategy: the rank of every card dealt against
 *     the shoe's composition at the moment it was drawn (12 degrees);
 *   - 10^5 dealer hands each behind an up card of 6 and of an ace (the
 *     player stands on 19): the dealer's final total (17..21, bust, and
 *     blackjack behind the ace) against the exact probabilities computed
 *     by recursion over the shoe without replacement.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bj_support.h"

#define ROUNDS 100000
#define HANDS 100000
#define ODDS_SEED 1000u /* the players' entropy; see the README for the statistic over other seeds */

static kd_block_meta meta_of(void)
{
    static const uint8_t zero[KD_HASH_LEN] = {0};
    kd_block_meta m = {.block_hash = zero, .tx_id = zero, .episode_id = BJ_TEST_ID};
    return m;
}

static void run(bj_fix *f, const kd_key *signer, const kd_buf *cmd, kd_bj_undo *undo)
{
    kd_block_meta meta = meta_of();
    kd_reject rej = {0};
    kd_err err = kd_bj_ops.execute(&f->state, cmd->data, cmd->len, &signer->pub, &meta, undo, &rej);
    cr_assert_eq(err, KD_OK, "%s: %s", rej.code, rej.detail);
}

/* The house's next reveal: the owed round takes the card of the seed
 * SHA-256(the draw's VRF input), a stand-in for the VRF output. */
static void reveal(bj_fix *f)
{
    int owed = kd_bj_owed(&f->state);
    cr_assert_geq(owed, 0);
    uint8_t alpha[KD_FAIR_ALPHA_LEN], seed[KD_HASH_LEN];
    kd_fair_alpha(KD_FAIR_DRAW_V3, f->state.episode_id, f->state.draws + 1, f->state.players[owed].round.pending.ask,
                  alpha);
    kd_sha256(alpha, sizeof alpha, seed);
    kd_reject rej = {0};
    cr_assert_eq(kd_bj_reveal_seed(&f->state, seed, 0, &rej), KD_OK, "%s", rej.detail);
}

static double chi2(const double *obs, const double *exp, size_t n)
{
    double x = 0;
    for (size_t i = 0; i < n; i++)
        if (exp[i] > 0)
            x += (obs[i] - exp[i]) * (obs[i] - exp[i]) / exp[i];
    return x;
}

Test(blackjack_odds, dealt_ranks_follow_the_shoe, .timeout = 120)
{
    static const char params[] = "{\"decks\": 6, \"rounds\": 100000, \"stack\": 15000000, \"min_bet\": 1, "
                                 "\"max_bet\": 1}";
    bj_fix *f = calloc(1, sizeof *f);
    kd_bj_undo *undo = calloc(1, sizeof *undo);
    double obs[13] = {0}, exp[13] = {0};
    long rounds = 0, cards = 0;
    uint32_t episode = 0;
    kd_buf cmd;
    kd_buf_init(&cmd);
    while (rounds < ROUNDS) {
        bj_setup(f, 1, params);
        episode++;
        f->rng = ODDS_SEED + episode;
        while (rounds < ROUNDS && kd_bj_can_bet(&f->state, 0)) {
            do {
                cmd.len = 0;
                if (kd_bj_owed(&f->state) == 0) {
                    const kd_bj_state *s = &f->state;
                    double left = s->shoe_left ? s->shoe_left : s->params.decks * 52.0;
                    for (int c = 0; c < 52; c++)
                        exp[c % 13] += (s->shoe_left ? s->shoe[c] : s->params.decks) / left;
                    uint8_t shoe[52]; /* what the draw takes from (a refill when empty) */
                    for (int c = 0; c < 52; c++)
                        shoe[c] = s->shoe_left ? s->shoe[c] : (uint8_t)s->params.decks;
                    reveal(f);
                    for (int c = 0; c < 52; c++)
                        if (f->state.shoe[c] + 1 == shoe[c])
                            obs[c % 13]++;
                    cards++;
                    continue;
                }
                /* the bot's move with entropy of this episode's own (the
                 * listed entropy repeats from one episode to the next) */
                cr_assert_eq(kd_bj_bot_command(&f->state, 1, 0, &cmd), KD_OK);
                kd_bj_command c;
                cr_assert_eq(kd_bj_command_decode(cmd.data, cmd.len, &c, NULL), KD_OK);
                for (int i = 0; i < KD_FAIR_ENTROPY_LEN; i++)
                    c.entropy[i] = (uint8_t)kd_type_rng_next(&f->rng);
                cmd.len = 0;
                cr_assert_eq(kd_bj_command_encode(&c, &cmd), KD_OK);
                run(f, &f->players[0], &cmd, undo);
            } while (f->state.players[0].round.await != KD_BJ_IDLE);
            rounds++;
        }
        bj_teardown(f);
    }
    double x = chi2(obs, exp, 13), sum = 0;
    for (int r = 0; r < 13; r++)
        sum += obs[r];
    cr_expect_eq((long)sum, cards, "one rank a card");
    cr_log_info("%ld rounds, %ld cards over %u episodes: chi-square %.2f (12 df)", rounds, cards, episode, x);
    cr_expect_lt(x, 32.909, "ranks against the shoe: chi-square %.2f, 12 df, 0.1%% level 32.909", x);
    cr_expect_gt(x, 0.0);
    kd_buf_fini(&cmd);
    free(undo);
    free(f);
}

/* ------------------------------------------------- the dealer, exactly */

enum { D17, D18, D19, D20, D21, BUST, NATURAL, OUTCOMES };

/* The dealer's final outcome probabilities from `total` (aces as 1),
 * `ace`, `n` cards, drawing from `counts` by value (1..10) without
 * replacement, added into `p` with weight `w`. */
static void dealer_exact(unsigned counts[11], unsigned left, unsigned total, int ace, unsigned n, double w, double *p)
{
    unsigned best = ace && total + 10 <= 21 ? total + 10 : total;
    if (n == 2 && best == 21) {
        p[NATURAL] += w;
        return;
    }
    if (best >= 17) {
        p[best > 21 ? BUST : D17 + (best - 17)] += w;
        return;
    }
    for (unsigned v = 1; v <= 10; v++) {
        if (!counts[v])
            continue;
        double q = (double)counts[v] / left;
        counts[v]--;
        dealer_exact(counts, left - 1, total + v, ace || v == 1, n + 1, w * q, p);
        counts[v]++;
    }
}

static void dealer_against(char up_rank, double *chi, long *natural)
{
    static const char params[] = "{\"decks\": 6, \"rounds\": 100000}";
    bj_fix *f = calloc(1, sizeof *f);
    bj_setup(f, 1, params);
    kd_reject rej = {0};
    cr_assert_eq(bj_player(f, 1, KD_BJ_CMD_BET, 10, &rej), KD_OK);
    uint8_t up = bj_card(up_rank);
    bj_deal(f, 1, bj_card('T'));
    bj_deal(f, 1, bj_card('9'));
    bj_deal(f, 1, up);
    cr_assert_eq(bj_player(f, 1, KD_BJ_CMD_STAND, 0, &rej), KD_OK);
    cr_assert_eq(f->state.players[0].round.await, KD_BJ_DEALER);
    /* the shoe: six decks less the three cards dealt */
    kd_bj_shoe_fill(&f->state);
    uint8_t gone[3] = {bj_card('T'), bj_card('9'), up};
    for (int i = 0; i < 3; i++) {
        f->state.shoe[gone[i]]--;
        f->state.shoe_left--;
    }
    kd_bj_state start;
    memcpy(&start, &f->state, sizeof start);
    unsigned counts[11] = {0};
    for (int c = 0; c < 52; c++)
        counts[kd_bj_card_value((uint8_t)c)] += start.shoe[c];
    double p[OUTCOMES] = {0}, obs[OUTCOMES] = {0}, exp[OUTCOMES];
    unsigned v = kd_bj_card_value(up);
    dealer_exact(counts, start.shoe_left, v, v == 1, 1, 1.0, p);
    uint64_t rng = 0x5eed0000u + (unsigned char)up_rank;
    for (long hand = 0; hand < HANDS; hand++) {
        /* every hand from the same start, each with its own entropy */
        memcpy(&f->state, &start, sizeof start);
        for (int i = 0; i < 32; i += 8) {
            uint64_t r = kd_type_rng_next(&rng);
            memcpy(f->state.players[0].round.pending.ask + i, &r, 8);
        }
        while (f->state.players[0].round.await == KD_BJ_DEALER)
            reveal(f);
        const kd_bj_hand *d = &f->state.players[0].round.dealer;
        unsigned t = kd_bj_total(d->cards, d->n, NULL);
        obs[d->n == 2 && t == 21 ? NATURAL : t > 21 ? BUST : D17 + (t - 17)]++;
    }
    for (int i = 0; i < OUTCOMES; i++)
        exp[i] = p[i] * HANDS;
    *chi = chi2(obs, exp, OUTCOMES);
    *natural = (long)obs[NATURAL];
    cr_log_info("dealer behind %c: bust %.4f (exact %.4f), 17 %.4f (%.4f), natural %.4f (%.4f): chi-square %.2f",
                up_rank, obs[BUST] / HANDS, p[BUST], obs[D17] / HANDS, p[D17], obs[NATURAL] / HANDS, p[NATURAL], *chi);
    bj_teardown(f);
    free(f);
}

Test(blackjack_odds, dealer_behind_a_six, .timeout = 120)
{
    double chi;
    long natural;
    dealer_against('6', &chi, &natural);
    cr_expect_eq(natural, 0);
    cr_expect_lt(chi, 20.515, "6 up: chi-square %.2f, 5 df, 0.1%% level 20.515", chi);
}

Test(blackjack_odds, dealer_behind_an_ace, .timeout = 120)
{
    double chi;
    long natural;
    dealer_against('A', &chi, &natural);
    cr_expect_gt(natural, 0);
    cr_expect_lt(chi, 22.458, "ace up: chi-square %.2f, 6 df, 0.1%% level 22.458", chi);
}
