/*
 * holdem_test.c — hold'em's rules through the ops table (every command
 * checked for a byte-exact rollback by hm_support.c): the deck dealt by the
 * players, heads-up order and blinds, each TDA betting rule (minimum raise,
 * a short all-in that does not reopen, the uncalled bet returned, the odd
 * chip), each kind of cheating caught, deadlines and claims, the match's
 * end.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "episodes/holdem/holdem.h"
#include "episodes/holdem/holdem_int.h"
#include "hm_support.h"

#define FOLD KD_HM_CMD_FOLD
#define CHECK KD_HM_CMD_CHECK
#define CALL KD_HM_CMD_CALL
#define RAISE KD_HM_CMD_RAISE

static void ok(kd_err err, const kd_reject *rej) { cr_assert_eq(err, KD_OK, "%s: %s", rej->code, rej->detail); }

/* Deals hand `g` up to the preflop betting. */
static void to_preflop(hm_game *g)
{
    hm_duties(g);
    cr_assert_eq(g->state.phase, KD_HM_PLAY);
    cr_assert_eq(g->state.street, KD_HM_PREFLOP);
}

/* Pays the shuffles and locks of the hand, no key yet. */
static void to_locked(hm_game *g)
{
    while (g->state.phase != KD_HM_PLAY) {
        kd_hm_command c;
        kd_reject rej = {0};
        int s = kd_hm_to_move(&g->state);
        hm_duty_command(g, s, &c);
        ok(hm_cmd(g, s, &c, &rej), &rej);
    }
}

Test(holdem, deal_without_a_dealer)
{
    hm_game g;
    hm_new(&g, NULL);
    cr_expect_eq(kd_hm_to_move(&g.state), 0, "seat 0 shuffles first");
    cr_expect_eq(kd_hm_owes(&g.state, 0), KD_HM_OWE_SHUFFLE);
    kd_reject rej = {0};
    hm_expect_rule(hm_bet(&g, 0, CALL, 0, &rej), &rej, "wrong_phase");
    kd_hm_command c;
    hm_duty_command(&g, 0, &c);
    hm_expect_rule(hm_cmd(&g, 1, &c, &rej), &rej, "not_your_turn");
    cr_expect_gt(hm_duties(&g), 4u);
    /* each seat sees its own hole cards, and they differ */
    uint8_t a[2], b[2];
    cr_assert_eq(kd_hm_own_cards(&g.state, 0, g.seed[0], a), 0);
    cr_assert_eq(kd_hm_own_cards(&g.state, 1, g.seed[1], b), 0);
    cr_expect(a[0] != a[1] && a[0] != b[0] && a[0] != b[1] && a[1] != b[0] && a[1] != b[1] && b[0] != b[1]);
    /* the wrong seat's seed opens nothing */
    uint8_t x[2];
    cr_expect_eq(kd_hm_own_cards(&g.state, 0, g.seed[1], x), -1);
    /* check down to the showdown: the board comes by both seats' keys */
    ok(hm_bet(&g, 0, CALL, 0, &rej), &rej);
    ok(hm_bet(&g, 1, CHECK, 0, &rej), &rej);
    for (int street = 1; street <= 3; street++) {
        hm_duties(&g);
        cr_assert_eq(g.state.street, street);
        ok(hm_bet(&g, 1, CHECK, 0, &rej), &rej); /* the big blind acts first after the flop */
        ok(hm_bet(&g, 0, CHECK, 0, &rej), &rej);
    }
    uint8_t board[KD_HM_BOARD];
    hm_duties(&g); /* showdown keys, then both hand secrets: settled */
    cr_expect_eq(g.state.hand, 2u);
    cr_expect(g.state.result == KD_HM_RESULT_SHOWDOWN || g.state.result == KD_HM_RESULT_SPLIT);
    cr_expect_eq(g.state.cheats, 0);
    cr_expect_eq(g.state.last_won[0] + g.state.last_won[1], 0);
    cr_expect_eq(g.state.last_won[0] == 10 || g.state.last_won[0] == -10 || g.state.last_won[0] == 0, 1);
    (void)board;
}

Test(holdem, showdown_shows_the_cards_the_seats_saw)
{
    hm_game g;
    hm_new(&g, NULL);
    to_preflop(&g);
    uint8_t own[2][2];
    for (int s = 0; s < 2; s++)
        cr_assert_eq(kd_hm_own_cards(&g.state, s, g.seed[s], own[s]), 0);
    kd_reject rej = {0};
    ok(hm_bet(&g, 0, RAISE, 1000, &rej), &rej); /* all in */
    ok(hm_bet(&g, 1, CALL, 0, &rej), &rej);
    /* nobody can bet: the board runs out by keys alone, then the showdown */
    unsigned n = 0;
    for (int guard = 0; guard < 20 && g.state.phase == KD_HM_PLAY; guard++)
        for (int s = 0; s < 2; s++) {
            kd_hm_command c;
            if (kd_hm_owes(&g.state, s) & KD_HM_OWE_KEYS) {
                hm_duty_command(&g, s, &c);
                ok(hm_cmd(&g, s, &c, &rej), &rej);
                n++;
            }
        }
    cr_assert_eq(g.state.phase, KD_HM_CHECK);
    cr_expect_eq(n, 2u * 4u, "flop, turn, river and the showdown: a key command each");
    for (int s = 0; s < 2; s++) {
        cr_expect_eq(g.state.shown[s][0], own[s][0]);
        cr_expect_eq(g.state.shown[s][1], own[s][1]);
        uint8_t seven[7] = {own[s][0], own[s][1]};
        memcpy(seven + 2, g.state.board, KD_HM_BOARD);
        cr_expect_eq(g.state.values[s], kd_hm_eval(seven, 7));
    }
    uint32_t v0 = g.state.values[0], v1 = g.state.values[1];
    /* the check of a hand: both seats' steps recomputed (timed for the README) */
    uint8_t hs[2][KD_HASH_LEN];
    for (int s = 0; s < 2; s++)
        kd_hm_hand_secret(g.seed[s], g.state.hand, hs[s]);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    cr_expect(kd_hm_check_seat(&g.state, 0, hs[0]) && kd_hm_check_seat(&g.state, 1, hs[1]));
    clock_gettime(CLOCK_MONOTONIC, &t1);
    cr_expect(!kd_hm_check_seat(&g.state, 0, hs[1]), "another secret does not reproduce seat 0's steps");
    fprintf(stderr, "holdem: the check of a hand (both seats' steps recomputed) took %.2f ms\n",
            (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
    hm_duties(&g);
    if (v0 == v1)
        cr_expect_eq(g.state.result, KD_HM_RESULT_SPLIT);
    else {
        cr_expect_eq(g.state.phase, KD_HM_OVER, "all in and lost: the match is over");
        cr_expect_eq(g.state.winner, v0 > v1 ? 0 : 1);
        cr_expect_eq(g.state.end, KD_HM_END_BUST);
        cr_expect_eq(g.state.stacks[v0 > v1 ? 0 : 1], 2000u);
    }
}

Test(holdem, blinds_and_heads_up_order)
{
    hm_game g;
    hm_new(&g, NULL);
    cr_expect_eq(g.state.button, 0);
    cr_expect_eq(g.state.bets[0], 5u, "the button posts the small blind");
    cr_expect_eq(g.state.bets[1], 10u);
    to_preflop(&g);
    cr_expect_eq(g.state.to_act, 0, "the button acts first before the flop");
    kd_reject rej = {0};
    hm_expect_rule(hm_bet(&g, 1, CHECK, 0, &rej), &rej, "not_your_turn");
    ok(hm_bet(&g, 0, CALL, 0, &rej), &rej);
    cr_expect_eq(g.state.to_act, 1, "the big blind's option");
    ok(hm_bet(&g, 1, CHECK, 0, &rej), &rej);
    hm_expect_rule(hm_bet(&g, 1, CHECK, 0, &rej), &rej, "keys_owed");
    hm_duties(&g);
    cr_expect_eq(g.state.to_act, 1, "the big blind acts first after the flop");
    ok(hm_bet(&g, 1, CHECK, 0, &rej), &rej);
    ok(hm_bet(&g, 0, FOLD, 0, &rej), &rej);
    hm_duties(&g);
    cr_expect_eq(g.state.result, KD_HM_RESULT_FOLD);
    cr_expect_eq(g.state.last_won[1], 10);
    cr_expect_eq(g.state.hand, 2u);
    cr_expect_eq(g.state.button, 1, "the button alternates");
    cr_expect_eq(g.state.bets[1], 5u);
    cr_expect_eq(g.state.bets[0], 10u);
    cr_expect_eq(g.state.stacks[0], 1000u - 10u - 10u);
}

Test(holdem, minimum_raise_is_the_previous_bet_or_raise)
{
    hm_game g;
    hm_new(&g, NULL);
    to_preflop(&g);
    kd_reject rej = {0};
    kd_hm_limits lim;
    kd_hm_limits_of(&g.state, 0, &lim);
    cr_expect_eq(lim.call, 5u);
    cr_expect_eq(lim.min_to, 20u);
    cr_expect_eq(lim.max_to, 1000u);
    hm_expect_rule(hm_bet(&g, 0, RAISE, 19, &rej), &rej, "raise_too_small");
    hm_expect_rule(hm_bet(&g, 0, RAISE, 1001, &rej), &rej, "raise_too_large");
    hm_expect_rule(hm_bet(&g, 0, CHECK, 0, &rej), &rej, "cannot_check");
    ok(hm_bet(&g, 0, RAISE, 35, &rej), &rej); /* a raise of 25 */
    hm_expect_rule(hm_bet(&g, 1, RAISE, 59, &rej), &rej, "raise_too_small");
    ok(hm_bet(&g, 1, RAISE, 60, &rej), &rej);
    ok(hm_bet(&g, 0, CALL, 0, &rej), &rej);
    hm_duties(&g);
    /* after the flop the least bet is the big blind */
    hm_expect_rule(hm_bet(&g, 1, RAISE, 9, &rej), &rej, "raise_too_small");
    hm_expect_rule(hm_bet(&g, 1, CALL, 0, &rej), &rej, "nothing_to_call");
    ok(hm_bet(&g, 1, RAISE, 10, &rej), &rej);
    ok(hm_bet(&g, 0, RAISE, 20, &rej), &rej);
    cr_expect_eq(g.state.min_raise, 10u);
}

/* A short all-in does not reopen the betting; the uncalled part of a bet
 * goes back. Seat 1 is made short by a first hand it loses. */
Test(holdem, short_all_in_does_not_reopen_and_uncalled_bet_returns)
{
    kd_hm_params p = {.stack = 100, .small_blind = 5, .big_blind = 10, .timeout = 100, .pot_only = 1};
    hm_game g;
    hm_new(&g, &p);
    to_preflop(&g);
    kd_reject rej = {0};
    ok(hm_bet(&g, 0, RAISE, 70, &rej), &rej);
    ok(hm_bet(&g, 1, FOLD, 0, &rej), &rej); /* seat 1 lost its 10: 90 left */
    hm_duties(&g);
    cr_assert_eq(g.state.stacks[1], 90u - 5u, "seat 1 has the button now");
    to_preflop(&g);
    /* seat 1 (button) calls; seat 0 (big blind) raises to 60, a raise of 50 */
    ok(hm_bet(&g, 1, CALL, 0, &rej), &rej);
    ok(hm_bet(&g, 0, RAISE, 60, &rej), &rej);
    /* seat 1 has 90 in all: all in to 90 is a raise of 30, short of 50 */
    ok(hm_bet(&g, 1, RAISE, 90, &rej), &rej);
    cr_expect_eq(g.state.min_raise, 50u, "a short all-in leaves the minimum raise");
    kd_hm_limits lim;
    kd_hm_limits_of(&g.state, 0, &lim);
    cr_expect_gt(lim.min_to, lim.max_to, "no raise open to seat 0");
    hm_expect_rule(hm_bet(&g, 0, RAISE, 200, &rej), &rej, "raise_closed");
    ok(hm_bet(&g, 0, CALL, 0, &rej), &rej);
    cr_expect_eq(g.state.put[0], 90u);
    cr_expect_eq(g.state.put[1], 90u);
}

Test(holdem, uncalled_bet_goes_back)
{
    kd_hm_params p = {.stack = 100, .small_blind = 5, .big_blind = 10, .timeout = 100, .pot_only = 1};
    hm_game g;
    hm_new(&g, &p);
    to_preflop(&g);
    kd_reject rej = {0};
    ok(hm_bet(&g, 0, RAISE, 70, &rej), &rej);
    ok(hm_bet(&g, 1, FOLD, 0, &rej), &rej);
    hm_duties(&g);
    to_preflop(&g); /* seat 0: 110 - 10 (big blind) behind; seat 1: 90 - 5 */
    ok(hm_bet(&g, 1, CALL, 0, &rej), &rej);
    ok(hm_bet(&g, 0, CHECK, 0, &rej), &rej);
    hm_duties(&g);
    ok(hm_bet(&g, 0, RAISE, 100, &rej), &rej); /* seat 0 all in for 100: seat 1 has 80 behind */
    ok(hm_bet(&g, 1, CALL, 0, &rej), &rej);    /* all in for 80 */
    cr_expect_eq(g.state.put[0], 90u, "20 of seat 0's bet was not called: it went back");
    cr_expect_eq(g.state.put[1], 90u);
    cr_expect_eq(g.state.stacks[0], 20u);
    cr_expect_eq(g.state.stacks[1], 0u);
}

Test(holdem, split_pot_odd_chip_goes_left_of_the_button)
{
    hm_game g;
    hm_new(&g, NULL);
    to_preflop(&g);
    kd_reject rej = {0};
    ok(hm_bet(&g, 0, CALL, 0, &rej), &rej);
    ok(hm_bet(&g, 1, CHECK, 0, &rej), &rej);
    for (int street = 1; street <= 3; street++) {
        hm_duties(&g);
        ok(hm_bet(&g, 1, CHECK, 0, &rej), &rej);
        ok(hm_bet(&g, 0, CHECK, 0, &rej), &rej);
    }
    while (g.state.phase == KD_HM_PLAY)
        for (int s = 0; s < 2; s++)
            if (kd_hm_owes(&g.state, s) & KD_HM_OWE_KEYS) {
                kd_hm_command c;
                hm_duty_command(&g, s, &c);
                ok(hm_cmd(&g, s, &c, &rej), &rej);
            }
    cr_assert_eq(g.state.phase, KD_HM_CHECK);
    /* an odd pot that ties: heads-up pots are even, so the test makes one */
    g.state.values[1] = g.state.values[0];
    g.state.put[0] += 1;
    g.state.stacks[0] -= 1;
    hm_duties(&g);
    cr_expect_eq(g.state.result, KD_HM_RESULT_SPLIT);
    cr_expect_eq(g.state.last_won[1], 1, "the big blind (left of the button) takes the odd chip");
    cr_expect_eq(g.state.last_won[0], -1);
}

Test(holdem, duplicate_or_bad_points_are_refused)
{
    hm_game g;
    hm_new(&g, NULL);
    kd_hm_command c;
    kd_reject rej = {0};
    hm_duty_command(&g, 0, &c);
    memcpy(c.deck[5], c.deck[9], KD_HM_POINT_LEN);
    hm_expect_rule(hm_cmd(&g, 0, &c, &rej), &rej, "duplicate_point");
    hm_duty_command(&g, 0, &c);
    c.deck[3][0] = 0x07;
    hm_expect_rule(hm_cmd(&g, 0, &c, &rej), &rej, "bad_deck");
    hm_duty_command(&g, 0, &c);
    ok(hm_cmd(&g, 0, &c, &rej), &rej);
    hm_duties(&g);
    cr_assert_eq(g.state.phase, KD_HM_PLAY);
}

/* A seat replaces a card by a point that is no card (a missing card):
 * nothing shows until the check, which finds it; the cheater loses the
 * pot and the match. */
Test(holdem, missing_card_is_caught_at_the_check)
{
    hm_game g;
    hm_new(&g, NULL);
    kd_hm_command c;
    kd_reject rej = {0};
    hm_duty_command(&g, 0, &c);
    kd_hm_point other;
    cr_assert_eq(kd_hm_point_mul(c.deck[51], c.deck[50] + 1, other), KD_OK); /* some other point */
    memcpy(c.deck[51], other, KD_HM_POINT_LEN);
    ok(hm_cmd(&g, 0, &c, &rej), &rej);
    hm_duties(&g);
    /* The forged point is no card: when the deal makes it a seat's hole
     * card (4 places in 52), its owner cannot read it and the hand goes to
     * the check before any bet; otherwise it is caught at the check after
     * the play. Either way the cheater loses the pot. */
    uint32_t pot = 0;
    if (g.state.phase == KD_HM_PLAY) {
        cr_assert_eq(g.state.street, KD_HM_PREFLOP);
        ok(hm_bet(&g, 0, RAISE, 100, &rej), &rej);
        ok(hm_bet(&g, 1, FOLD, 0, &rej), &rej); /* seat 0 would win the pot */
        hm_duties(&g);
        pot = 100;
    }
    cr_expect_eq(g.state.phase, KD_HM_OVER);
    cr_expect_eq(g.state.result, KD_HM_RESULT_CHEAT);
    cr_expect_eq(g.state.cheats, 1u);
    cr_expect_eq(g.state.winner, 1);
    cr_expect_eq(g.state.end, KD_HM_END_CHEAT);
    cr_expect_eq(kd_holdem_type.seat_result(&g.state, 0), KD_RESULT_CHEAT, "ratings count the cheat as a loss");
    cr_expect_eq(kd_holdem_type.seat_result(&g.state, 1), KD_RESULT_WIN);
    if (pot)
        cr_expect_eq(g.state.last_won[1], pot, "the honest seat takes the whole pot");
    else
        cr_expect_gt(g.state.last_won[1], 0, "the honest seat takes the blinds' pot");
}

/* The same with pot_only: the cheater loses the pot and the match goes on. */
Test(holdem, pot_only_keeps_the_match)
{
    kd_hm_params p = {.timeout = 100, .pot_only = 1};
    hm_game g;
    hm_new(&g, &p);
    hm_duties(&g); /* honest shuffles */
    cr_assert_eq(g.state.phase, KD_HM_PLAY);
    /* seat 1 locked with a wrong card key: redo its lock from a tampered state */
    g.state.phase = KD_HM_LOCK;
    g.state.step = 1;
    kd_hm_command c;
    kd_reject rej = {0};
    hm_duty_command(&g, 1, &c);
    cr_assert_eq(kd_hm_point_mul(c.cards[0], c.cards[1] + 1, c.cards[0]), KD_OK);
    ok(hm_cmd(&g, 1, &c, &rej), &rej);
    /* seat 0's hole card 0 no longer decrypts: its duty is a dispute */
    hm_duties(&g);
    cr_expect_eq(g.state.phase, KD_HM_SHUFFLE, "the check settled the hand");
    cr_expect_eq(g.state.hand, 2u);
    cr_expect_eq(g.state.result, KD_HM_RESULT_CHEAT);
    cr_expect_eq(g.state.cheats, 2u, "seat 1's lock fails the check");
    cr_expect_eq(g.state.last_won[0], 10);
}

Test(holdem, wrong_key_is_refused)
{
    hm_game g;
    hm_new(&g, NULL);
    to_locked(&g);
    kd_hm_command c;
    kd_reject rej = {0};
    hm_duty_command(&g, 1, &c);
    cr_assert_eq(c.kind, KD_HM_CMD_KEYS);
    c.keys[0][31] ^= 1;
    hm_expect_rule(hm_cmd(&g, 1, &c, &rej), &rej, "wrong_key");
    hm_duty_command(&g, 1, &c);
    c.positions[0] = 2; /* seat 1's own hole card: not owed now */
    hm_expect_rule(hm_cmd(&g, 1, &c, &rej), &rej, "wrong_positions");
    hm_duty_command(&g, 1, &c);
    ok(hm_cmd(&g, 1, &c, &rej), &rej);
}

Test(holdem, key_withheld_past_its_deadline_loses)
{
    hm_game g;
    hm_new(&g, NULL);
    to_locked(&g);
    kd_hm_command c;
    kd_reject rej = {0};
    hm_duty_command(&g, 0, &c);
    ok(hm_cmd(&g, 0, &c, &rej), &rej); /* seat 0 paid; seat 1 withholds */
    hm_expect_rule(hm_bet(&g, 1, KD_HM_CMD_CLAIM, 0, &rej), &rej, "nothing_to_claim");
    hm_expect_rule(hm_bet(&g, 0, KD_HM_CMD_CLAIM, 0, &rej), &rej, "too_early");
    g.daa += 100;
    ok(hm_bet(&g, 0, KD_HM_CMD_CLAIM, 0, &rej), &rej);
    cr_expect_eq(g.state.phase, KD_HM_OVER);
    cr_expect_eq(g.state.winner, 0);
    cr_expect_eq(g.state.cheats, 2u);
    hm_expect_rule(hm_bet(&g, 0, CALL, 0, &rej), &rej, "game_over");
}

Test(holdem, late_bettor_is_folded)
{
    hm_game g;
    hm_new(&g, NULL);
    to_preflop(&g);
    kd_reject rej = {0};
    g.daa += 100;
    ok(hm_bet(&g, 1, KD_HM_CMD_CLAIM, 0, &rej), &rej);
    cr_expect_eq(g.state.folded, 0);
    cr_expect_eq(g.state.phase, KD_HM_CHECK);
    hm_duties(&g);
    cr_expect_eq(g.state.result, KD_HM_RESULT_FOLD);
    cr_expect_eq(g.state.last_won[1], 5);
}

Test(holdem, false_dispute_loses)
{
    hm_game g;
    hm_new(&g, NULL);
    to_preflop(&g);
    kd_reject rej = {0};
    ok(hm_bet(&g, 1, KD_HM_CMD_DISPUTE, 0, &rej), &rej);
    hm_expect_rule(hm_bet(&g, 0, KD_HM_CMD_DISPUTE, 0, &rej), &rej, "nothing_to_dispute");
    hm_duties(&g);
    cr_expect_eq(g.state.phase, KD_HM_OVER);
    cr_expect_eq(g.state.cheats, 2u, "nothing was wrong: the disputer loses");
    cr_expect_eq(g.state.winner, 0);
}

Test(holdem, wrong_hand_secret_loses)
{
    hm_game g;
    hm_new(&g, NULL);
    to_preflop(&g);
    kd_reject rej = {0};
    ok(hm_bet(&g, 0, FOLD, 0, &rej), &rej);
    kd_hm_command c;
    hm_duty_command(&g, 0, &c);
    cr_assert_eq(c.kind, KD_HM_CMD_REVEAL);
    c.secret[0] ^= 1;
    ok(hm_cmd(&g, 0, &c, &rej), &rej);
    hm_expect_rule(hm_cmd(&g, 0, &c, &rej), &rej, "already_revealed");
    hm_duties(&g);
    cr_expect_eq(g.state.phase, KD_HM_OVER);
    cr_expect_eq(g.state.cheats, 1u);
    cr_expect_eq(g.state.winner, 1);
}

Test(holdem, strangers_and_unsigned_commands_are_refused)
{
    hm_game g;
    hm_new(&g, NULL);
    kd_hm_command c;
    hm_duty_command(&g, 0, &c);
    kd_buf b;
    kd_buf_init(&b);
    cr_assert_eq(kd_hm_command_encode(&c, &b), KD_OK);
    kd_reject rej = {0};
    hm_expect_rule(hm_exec(&g, &b, &g.stranger.pub, &rej), &rej, "unauthorised");
    hm_expect_rule(hm_exec(&g, &b, NULL, &rej), &rej, "unauthorised");
    kd_buf_fini(&b);
    uint8_t junk[3] = {1, 2, 3};
    kd_buf j = {.data = junk, .len = sizeof junk};
    cr_expect_eq(hm_exec(&g, &j, &g.key[0].pub, &rej), KD_ERR_BAD_COMMAND);
}

Test(holdem, hand_limit_ends_the_match)
{
    kd_hm_params p = {.timeout = 100, .hand_limit = 2};
    hm_game g;
    hm_new(&g, &p);
    kd_reject rej = {0};
    for (int h = 0; h < 2; h++) {
        to_preflop(&g);
        ok(hm_bet(&g, g.state.button, FOLD, 0, &rej), &rej);
        hm_duties(&g);
    }
    cr_expect_eq(g.state.phase, KD_HM_OVER);
    cr_expect_eq(g.state.end, KD_HM_END_LIMIT);
    cr_expect_eq(g.state.winner, KD_HM_NO_SEAT, "each folded a small blind: a draw");
    cr_expect_eq(kd_holdem_type.status(&g.state).phase, KD_PHASE_DRAW);
}

Test(holdem, params_are_checked)
{
    kd_hm_params p;
    kd_reject rej = {0};
    memset(&p, 0, sizeof p);
    cr_expect_eq(kd_hm_params_resolve(&p, &rej), KD_OK);
    cr_expect_eq(p.stack, 1000u);
    cr_expect_eq(p.big_blind, 10u);
    cr_expect_eq(p.timeout, 600u);
    p.timeout = 99;
    cr_expect_eq(kd_hm_params_resolve(&p, &rej), KD_ERR_BAD_PARAMS);
    memset(&p, 0, sizeof p);
    p.small_blind = 20;
    p.big_blind = 10;
    cr_expect_eq(kd_hm_params_resolve(&p, &rej), KD_ERR_BAD_PARAMS);
    cr_expect(strstr(rej.detail, "blinds") != NULL, "%s", rej.detail);
    kd_buf b;
    kd_buf_init(&b);
    cr_expect_eq(kd_hm_ops.resolve_params(NULL, NULL, 0, &b, &rej), KD_ERR_BAD_PARAMS, "bindings are required");
    kd_buf_fini(&b);
}
