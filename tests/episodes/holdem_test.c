/*
 * holdem_test.c — hold'em's rules through the ops table (every command
 * checked for a byte-exact rollback by hm_support.c), protocol 2: the deck
 * dealt by the players with a proof at each step, heads-up order and
 * blinds, each TDA betting rule (minimum raise, a short all-in that does
 * not reopen, the uncalled bet returned), the showdown's order (the
 * river's last aggressor shows first; the second may muck a loser; all in,
 * both show), a fold that shows nothing, each kind of forgery refused
 * with its code when it arrives, deadlines and claims, the match's end.
 * Protocol 1 is in holdem_v1_test.c.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

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

/* Checks the hand down to the river's betting, both seats checking. */
static void check_to_river(hm_game *g)
{
    kd_reject rej = {0};
    int button = g->state.button;
    ok(hm_bet(g, button, CALL, 0, &rej), &rej);
    ok(hm_bet(g, 1 - button, CHECK, 0, &rej), &rej);
    for (int street = 1; street <= 2; street++) {
        hm_duties(g);
        ok(hm_bet(g, 1 - button, CHECK, 0, &rej), &rej);
        ok(hm_bet(g, button, CHECK, 0, &rej), &rej);
    }
    hm_duties(g);
    cr_assert_eq(g->state.street, KD_HM_RIVER);
}

/* The value of `seat`'s hand with the board, from its seed. */
static uint32_t value_of(const hm_game *g, int seat)
{
    uint8_t seven[7];
    cr_assert_eq(kd_hm_own_cards(&g->state, seat, g->seed[seat], seven), 0);
    memcpy(seven + 2, g->state.board, KD_HM_BOARD);
    return kd_hm_eval(seven, 7);
}

Test(holdem, deal_without_a_dealer)
{
    hm_game g;
    hm_new(&g, NULL);
    cr_expect_eq(g.state.params.protocol, 2u, "a new match plays protocol 2");
    cr_expect_eq(g.state.episode, HM_EPISODE, "proofs are bound to the episode");
    cr_expect_eq(kd_hm_to_move(&g.state), 0, "seat 0 shuffles first");
    cr_expect_eq(kd_hm_owes(&g.state, 0), KD_HM_OWE_SHUFFLE);
    kd_reject rej = {0};
    hm_expect_rule(hm_bet(&g, 0, CALL, 0, &rej), &rej, "wrong_phase");
    kd_hm_command c;
    hm_duty_command(&g, 0, &c);
    cr_expect(c.proved, "a shuffle carries its key and proof");
    hm_expect_rule(hm_cmd(&g, 1, &c, &rej), &rej, "not_your_turn");
    cr_expect_gt(hm_duties(&g), 4u);
    /* each seat sees its own hole cards, and they differ */
    uint8_t a[2], b[2];
    cr_assert_eq(kd_hm_own_cards(&g.state, 0, g.seed[0], a), 0);
    cr_assert_eq(kd_hm_own_cards(&g.state, 1, g.seed[1], b), 0);
    cr_expect(a[0] != a[1] && a[0] != b[0] && a[0] != b[1] && a[1] != b[0] && a[1] != b[1] && b[0] != b[1]);
    uint8_t x[2];
    cr_expect_eq(kd_hm_own_cards(&g.state, 0, g.seed[1], x), -1, "the wrong seat's seed opens nothing");
    /* check down to the showdown: the board comes by both seats' keys */
    check_to_river(&g);
    ok(hm_bet(&g, 1, CHECK, 0, &rej), &rej); /* the big blind acts first after the flop */
    ok(hm_bet(&g, 0, CHECK, 0, &rej), &rej);
    cr_expect_eq(g.state.first_show, 1, "nobody bet the river: the first to act on it shows first");
    cr_expect_eq(kd_hm_owes(&g.state, 1), KD_HM_OWE_SHOW);
    cr_expect_eq(kd_hm_owes(&g.state, 0), 0u, "the second waits for the first");
    uint32_t v0 = value_of(&g, 0), v1 = value_of(&g, 1);
    hm_duties(&g); /* seat 1 shows; seat 0 shows, or mucks a loser: settled, no secret published */
    cr_expect_eq(g.state.hand, 2u);
    cr_expect_eq(g.state.cheats, 0);
    cr_expect_eq(g.state.last_won[0] + g.state.last_won[1], 0);
    cr_expect_eq(g.state.last_shown[1][0], b[0]);
    cr_expect_eq(g.state.last_shown[1][1], b[1]);
    cr_expect_eq(g.state.last_values[1], v1);
    if (v0 < v1) {
        cr_expect_eq(g.state.result, KD_HM_RESULT_MUCK, "seat 0's loser is mucked");
        cr_expect_eq(g.state.last_shown[0][0], KD_HM_NO_CARD, "and stays unseen");
        cr_expect_eq(g.state.last_won[1], 10);
    } else {
        cr_expect_eq(g.state.result, v0 > v1 ? KD_HM_RESULT_SHOWDOWN : KD_HM_RESULT_SPLIT);
        cr_expect_eq(g.state.last_shown[0][0], a[0]);
        cr_expect_eq(g.state.last_won[0], v0 > v1 ? 10 : 0);
    }
    uint8_t none[2][KD_HASH_LEN] = {{0}};
    cr_expect_eq(memcmp(g.state.secrets, none, sizeof none), 0, "no hand secret");
}

/* All in: the board runs out by keys alone, and both hands are shown. */
Test(holdem, all_in_shows_both_hands)
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
    unsigned n = 0;
    for (int guard = 0; guard < 20 && g.state.hand == 1; guard++)
        for (int s = 0; s < 2 && g.state.hand == 1; s++) {
            kd_hm_command c;
            if (kd_hm_owes(&g.state, s) & (KD_HM_OWE_KEYS | KD_HM_OWE_SHOW)) {
                if (kd_hm_owes(&g.state, s) & KD_HM_OWE_SHOW) {
                    cr_expect_eq(g.state.first_show, KD_HM_NO_SEAT, "all in: both show at once");
                    if (s == 0)
                        cr_expect_eq(kd_hm_owes(&g.state, 1) & KD_HM_OWE_SHOW, KD_HM_OWE_SHOW);
                    kd_hm_command m = {.kind = KD_HM_CMD_MUCK};
                    hm_expect_rule(hm_cmd(&g, s, &m, &rej), &rej, "must_show");
                }
                hm_duty_command(&g, s, &c);
                cr_expect_eq(c.kind, KD_HM_CMD_KEYS);
                ok(hm_cmd(&g, s, &c, &rej), &rej);
                n++;
            }
        }
    cr_expect_eq(n, 2u * 4u, "flop, turn, river and the showdown: a key command each");
    for (int s = 0; s < 2; s++) {
        cr_expect_eq(g.state.last_shown[s][0], own[s][0]);
        cr_expect_eq(g.state.last_shown[s][1], own[s][1]);
        uint8_t seven[7] = {own[s][0], own[s][1]};
        memcpy(seven + 2, g.state.last_board, KD_HM_BOARD);
        cr_expect_eq(g.state.last_values[s], kd_hm_eval(seven, 7));
    }
    uint32_t v0 = g.state.last_values[0], v1 = g.state.last_values[1];
    if (v0 == v1)
        cr_expect_eq(g.state.result, KD_HM_RESULT_SPLIT);
    else {
        cr_expect_eq(g.state.phase, KD_HM_OVER, "all in and lost: the match is over");
        cr_expect_eq(g.state.winner, v0 > v1 ? 0 : 1);
        cr_expect_eq(g.state.end, KD_HM_END_BUST);
        cr_expect_eq(g.state.stacks[v0 > v1 ? 0 : 1], 2000u);
    }
}

/* The river's last aggressor shows first; the other may muck, and a
 * muck before its turn, or by the first once it showed, is refused. */
Test(holdem, the_river_bettor_shows_first_and_the_other_may_muck)
{
    hm_game g;
    hm_new(&g, NULL);
    to_preflop(&g);
    check_to_river(&g);
    kd_reject rej = {0};
    kd_hm_command m = {.kind = KD_HM_CMD_MUCK};
    hm_expect_rule(hm_cmd(&g, 1, &m, &rej), &rej, "nothing_to_muck");
    ok(hm_bet(&g, 1, CHECK, 0, &rej), &rej);
    ok(hm_bet(&g, 0, RAISE, 20, &rej), &rej); /* the button bets the river */
    ok(hm_bet(&g, 1, CALL, 0, &rej), &rej);
    cr_expect_eq(g.state.first_show, 0, "the river's bettor shows first");
    cr_expect_eq(kd_hm_owes(&g.state, 0), KD_HM_OWE_SHOW);
    hm_expect_rule(hm_cmd(&g, 1, &m, &rej), &rej, "nothing_to_muck");
    kd_hm_command c;
    hm_duty_command(&g, 0, &c);
    cr_assert_eq(c.kind, KD_HM_CMD_KEYS);
    ok(hm_cmd(&g, 0, &c, &rej), &rej);
    cr_expect_neq(g.state.shown[0][0], KD_HM_NO_CARD, "seat 0's hand is shown");
    cr_expect_eq(g.state.shown[1][0], KD_HM_NO_CARD);
    hm_expect_rule(hm_cmd(&g, 0, &m, &rej), &rej, "nothing_to_muck");
    /* seat 1 mucks, whatever it holds: it gives up the pot unseen */
    ok(hm_cmd(&g, 1, &m, &rej), &rej);
    cr_expect_eq(g.state.hand, 2u);
    cr_expect_eq(g.state.result, KD_HM_RESULT_MUCK);
    cr_expect_eq(g.state.last_won[0], 30);
    cr_expect_eq(g.state.last_shown[1][0], KD_HM_NO_CARD);
    cr_expect_neq(g.state.last_shown[0][0], KD_HM_NO_CARD);
}

/* A folded hand shows nothing: the hand is settled at the fold, and no
 * command of the hand carries a secret. */
Test(holdem, a_fold_shows_nothing)
{
    hm_game g;
    hm_new(&g, NULL);
    to_preflop(&g);
    kd_reject rej = {0};
    ok(hm_bet(&g, 0, RAISE, 30, &rej), &rej);
    ok(hm_bet(&g, 1, CALL, 0, &rej), &rej);
    hm_duties(&g);
    ok(hm_bet(&g, 1, RAISE, 40, &rej), &rej);
    ok(hm_bet(&g, 0, FOLD, 0, &rej), &rej);
    cr_expect_eq(g.state.hand, 2u, "settled at the fold");
    cr_expect_eq(g.state.result, KD_HM_RESULT_FOLD);
    cr_expect_eq(g.state.last_won[1], 30);
    for (int i = 0; i < 4; i++)
        cr_expect_eq(g.state.last_shown[i / 2][i % 2], KD_HM_NO_CARD);
    cr_expect_neq(g.state.last_board[2], KD_HM_NO_CARD, "the flop was public");
    cr_expect_eq(g.state.last_board[3], KD_HM_NO_CARD);
    hm_expect_rule(hm_bet(&g, 0, KD_HM_CMD_REVEAL, 0, &rej), &rej, "not_in_protocol");
    hm_expect_rule(hm_bet(&g, 0, KD_HM_CMD_DISPUTE, 0, &rej), &rej, "not_in_protocol");
    kd_hm_command c;
    hm_duty_command(&g, 0, &c);
    cr_expect_eq(c.kind, KD_HM_CMD_SHUFFLE, "the next hand's shuffle is owed at once");
}

static void keys_of_seat(const hm_game *g, int seat, kd_hm_keys *keys);

/* Whether `needle` is somewhere in `hay`. */
static int holds(const kd_buf *hay, const uint8_t *needle, size_t len)
{
    for (size_t i = 0; i + len <= hay->len; i++)
        if (memcmp(hay->data + i, needle, len) == 0)
            return 1;
    return 0;
}

/* Appends the state's encoding (public: what every node computes). */
static void publish_state(const hm_game *g, kd_buf *pub) { cr_assert_eq(kd_hm_state_encode(&g->state, pub), KD_OK); }

/* hm_duties, appending each duty's bytes and the state after it to `pub`. */
static void public_duties(hm_game *g, kd_buf *pub)
{
    uint32_t hand = g->state.hand;
    for (int paid = 1; paid && g->state.hand == hand;) {
        paid = 0;
        for (int seat = 0; seat < 2 && g->state.hand == hand; seat++) {
            kd_buf b;
            kd_buf_init(&b);
            kd_err err = kd_hm_duty(&g->state, seat, g->seed[seat], &b);
            if (err == KD_OK) {
                kd_reject rej = {0};
                cr_assert_eq(kd_buf_append(pub, b.data, b.len), KD_OK);
                ok(hm_exec(g, &b, &g->key[seat].pub, &rej), &rej);
                publish_state(g, pub);
                paid = 1;
            } else
                cr_assert_eq(err, KD_ERR_NO_MOVE);
            kd_buf_fini(&b);
        }
    }
}

/* Everything public of a hand folded on the flop (every command's bytes
 * and the state after each) holds none of the seats' secrets of that
 * hand: no hand secret, deck key or permutation, and of each hole card
 * and unseen board card at most one of its two card keys (the other
 * seat's, published so that the card's owner sees it). The keys that
 * were published are found there: the search works. (The outsider in
 * holdem_kdapp_e2e, holdem_outsider.py, tries to open the cards from
 * such a log, as it opens those of a protocol 1 fold.) */
Test(holdem, a_folded_hand_publishes_no_secret)
{
    hm_game g;
    hm_new(&g, NULL);
    kd_hm_keys k[2];
    keys_of_seat(&g, 0, &k[0]);
    keys_of_seat(&g, 1, &k[1]);
    kd_buf pub;
    kd_buf_init(&pub);
    publish_state(&g, &pub);
    kd_reject rej = {0};
    public_duties(&g, &pub);
    ok(hm_bet(&g, 0, RAISE, 30, &rej), &rej);
    ok(hm_bet(&g, 1, CALL, 0, &rej), &rej);
    publish_state(&g, &pub);
    public_duties(&g, &pub);
    ok(hm_bet(&g, 1, RAISE, 40, &rej), &rej);
    ok(hm_bet(&g, 0, FOLD, 0, &rej), &rej);
    publish_state(&g, &pub);
    cr_assert_eq(g.state.result, KD_HM_RESULT_FOLD);
    for (int seat = 0; seat < 2; seat++) {
        cr_expect(!holds(&pub, k[seat].hand_secret, sizeof k[seat].hand_secret), "seat %d's hand secret", seat);
        cr_expect(!holds(&pub, k[seat].deck_key, sizeof k[seat].deck_key), "seat %d's deck key", seat);
        cr_expect(!holds(&pub, k[seat].perm, sizeof k[seat].perm), "seat %d's permutation", seat);
    }
    for (int pos = 0; pos < KD_HM_DEALT; pos++) {
        int seen[2];
        for (int seat = 0; seat < 2; seat++)
            seen[seat] = holds(&pub, k[seat].card_keys[pos], KD_HM_SCALAR_LEN);
        if (pos < 4) /* a hole card: the key of the seat that is not its owner only */
            cr_expect(seen[1 - pos / 2] && !seen[pos / 2], "position %d: keys published %d %d", pos, seen[0], seen[1]);
        else if (pos < 7) /* the flop: both */
            cr_expect(seen[0] && seen[1], "position %d", pos);
        else /* the turn and river, never dealt: neither */
            cr_expect(!seen[0] && !seen[1], "position %d", pos);
    }
    kd_buf_fini(&pub);
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
    cr_expect_eq(g.state.end, KD_HM_END_CHEAT);
    cr_expect_eq(kd_holdem_type.seat_result(&g.state, 1), KD_RESULT_CHEAT, "ratings count the withheld key as a loss");
    cr_expect_eq(kd_holdem_type.seat_result(&g.state, 0), KD_RESULT_WIN);
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
    cr_expect_eq(g.state.hand, 2u, "folded and settled at once");
    cr_expect_eq(g.state.result, KD_HM_RESULT_FOLD);
    cr_expect_eq(g.state.last_won[1], 5);
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
    /* a new match plays protocol 2: the effective params say so; protocol 1 is refused */
    memset(&p, 0, sizeof p);
    kd_buf wire;
    kd_buf_init(&wire);
    cr_assert_eq(kd_hm_params_encode(&p, &wire), KD_OK);
    kd_reject r2 = {0};
    b.len = 0;
    (void)kd_hm_ops.resolve_params(NULL, wire.data, wire.len, &b, &r2); /* no bindings: refused, but not for protocol */
    p.protocol = 1;
    memset(p.bindings, 7, sizeof p.bindings);
    wire.len = 0;
    cr_assert_eq(kd_hm_params_encode(&p, &wire), KD_OK);
    p.protocol = 0;
    kd_buf w2;
    kd_buf_init(&w2);
    cr_assert_eq(kd_hm_params_encode(&p, &w2), KD_OK);
    cr_expect_eq(wire.len, w2.len, "protocol 1 is encoded as its params always were: without it");
    kd_hm_params q;
    uint8_t one[] = {0x48, 0x01}; /* protocol (field 9) = 1 */
    kd_buf_fini(&w2);
    kd_buf_init(&w2);
    cr_assert_eq(kd_buf_append(&w2, wire.data, wire.len), KD_OK);
    cr_assert_eq(kd_buf_append(&w2, one, sizeof one), KD_OK);
    b.len = 0;
    cr_expect_eq(kd_hm_ops.resolve_params(NULL, w2.data, w2.len, &b, &rej), KD_ERR_BAD_PARAMS);
    cr_expect(strstr(rej.detail, "protocol") != NULL, "%s", rej.detail);
    b.len = 0;
    cr_assert_eq(kd_hm_ops.resolve_params(NULL, wire.data, wire.len, &b, &rej), KD_OK, "%s", rej.detail);
    cr_assert_eq(kd_hm_params_decode(b.data, b.len, &q, &rej), KD_OK);
    cr_expect_eq(q.protocol, 2u, "the effective params carry protocol 2");
    kd_buf_fini(&w2);
    kd_buf_fini(&wire);
    kd_buf_fini(&b);
}

/* ------------------------------------------------- forgeries, refused */

/* A cheating prover (kd_hm_shuffle_prove_claim): c's deck and key as
 * they are, proved with `keys` as if the claim were true. */
static void claimed_shuffle(const hm_game *g, int seat, const kd_hm_keys *keys, kd_hm_command *c)
{
    kd_hm_point cards[KD_HM_CARDS];
    const kd_hm_point *in = g->state.deck[0];
    if (seat == 0) {
        cr_assert_eq(kd_hm_card_points(cards), KD_OK);
        in = (const kd_hm_point *)cards;
    }
    kd_hm_bind bind;
    kd_hm_bind_of(&g->state, seat, &bind);
    cr_assert_eq(kd_hm_shuffle_prove_claim(&bind, keys, in, (const kd_hm_point *)c->deck, c->key, c->proof), KD_OK);
}

static void keys_of_seat(const hm_game *g, int seat, kd_hm_keys *keys)
{
    uint8_t hs[KD_HASH_LEN];
    kd_hm_hand_secret(g->seed[seat], g->state.hand, hs);
    kd_hm_keys_derive(hs, keys);
}

/* A shuffle that repeats a card (and so drops another) is a point twice;
 * one that drops a card for a point that is no card fails its proof; so
 * does a deck raised by another key than the one it publishes, and a
 * shuffle without its proof. Each refused as it arrives, with its code. */
Test(holdem, forged_shuffles_are_refused)
{
    hm_game g;
    hm_new(&g, NULL);
    kd_hm_keys k;
    keys_of_seat(&g, 0, &k);
    kd_hm_command c;
    kd_reject rej = {0};
    /* a card repeated: the same point twice */
    hm_duty_command(&g, 0, &c);
    memcpy(c.deck[5], c.deck[9], KD_HM_POINT_LEN);
    hm_expect_rule(hm_cmd(&g, 0, &c, &rej), &rej, "duplicate_point");
    /* a card dropped for a point that is no card, proved as if honest */
    hm_duty_command(&g, 0, &c);
    cr_assert_eq(kd_hm_point_mul(c.deck[0], k.card_keys[0], c.deck[17]), KD_OK);
    claimed_shuffle(&g, 0, &k, &c);
    hm_expect_rule(hm_cmd(&g, 0, &c, &rej), &rej, "bad_shuffle_proof");
    /* the deck raised by another key than the key published */
    kd_hm_keys other = k;
    other.deck_key[31] ^= 1;
    hm_duty_command(&g, 0, &c);
    kd_hm_point cards[KD_HM_CARDS];
    cr_assert_eq(kd_hm_card_points(cards), KD_OK);
    cr_assert_eq(kd_hm_shuffle(&other, (const kd_hm_point *)cards, c.deck), KD_OK);
    claimed_shuffle(&g, 0, &k, &c);
    hm_expect_rule(hm_cmd(&g, 0, &c, &rej), &rej, "bad_shuffle_proof");
    /* no proof at all (a protocol 1 shuffle) */
    hm_duty_command(&g, 0, &c);
    c.proved = 0;
    hm_expect_rule(hm_cmd(&g, 0, &c, &rej), &rej, "bad_shuffle_proof");
    /* seat 1: a card dropped */
    hm_duty_command(&g, 0, &c);
    ok(hm_cmd(&g, 0, &c, &rej), &rej);
    keys_of_seat(&g, 1, &k);
    hm_duty_command(&g, 1, &c);
    memcpy(c.deck[3], g.state.deck[0][3], KD_HM_POINT_LEN); /* seat 0's point passed on unshuffled */
    claimed_shuffle(&g, 1, &k, &c);
    hm_expect_rule(hm_cmd(&g, 1, &c, &rej), &rej, "bad_shuffle_proof");
    hm_duty_command(&g, 1, &c);
    ok(hm_cmd(&g, 1, &c, &rej), &rej);
    cr_expect_eq(g.state.phase, KD_HM_LOCK);
}

/* A lock under another key than the one committed, a lock made with
 * another deck key, a lock without proofs, and a key that is not the
 * committed one. */
Test(holdem, forged_locks_and_keys_are_refused)
{
    hm_game h;
    hm_new(&h, NULL);
    for (int i = 0; i < 3; i++) { /* both shuffles and seat 0's lock */
        kd_hm_command c;
        kd_reject rej = {0};
        int s = kd_hm_to_move(&h.state);
        hm_duty_command(&h, s, &c);
        ok(hm_cmd(&h, s, &c, &rej), &rej);
    }
    cr_assert_eq(h.state.phase, KD_HM_LOCK);
    cr_assert_eq(h.state.step, 1);
    kd_hm_keys k, other;
    keys_of_seat(&h, 1, &k);
    keys_of_seat(&h, 0, &other);
    kd_hm_command c;
    kd_reject rej = {0};
    kd_hm_bind bind;
    kd_hm_bind_of(&h.state, 1, &bind);
    /* position 6 locked under another key, its commitment unchanged */
    hm_duty_command(&h, 1, &c);
    cr_assert_eq(kd_hm_point_mul(h.state.locked[0][6], other.card_keys[6], c.cards[6]), KD_OK);
    cr_assert_eq(kd_hm_lock_prove_claim(&bind, &k, (const kd_hm_point *)h.state.locked[0], (const kd_hm_point *)c.cards,
                                        (const kd_hm_point *)c.commits, c.proofs),
                 KD_OK);
    hm_expect_rule(hm_cmd(&h, 1, &c, &rej), &rej, "bad_lock_proof");
    cr_expect(strstr(rej.detail, "position 6") != NULL, "%s", rej.detail);
    /* the whole lock under another deck key than the seat's shuffle published */
    kd_hm_keys swapped = k;
    memcpy(swapped.deck_key, other.deck_key, sizeof swapped.deck_key);
    cr_assert_eq(
        kd_hm_lock_prove(&bind, &swapped, (const kd_hm_point *)h.state.locked[0], c.cards, c.commits, c.proofs), KD_OK);
    hm_expect_rule(hm_cmd(&h, 1, &c, &rej), &rej, "bad_lock_proof");
    /* no proofs */
    hm_duty_command(&h, 1, &c);
    c.proved = 0;
    hm_expect_rule(hm_cmd(&h, 1, &c, &rej), &rej, "bad_lock_proof");
    hm_duty_command(&h, 1, &c);
    ok(hm_cmd(&h, 1, &c, &rej), &rej);
    /* a key that is not the committed one */
    hm_duty_command(&h, 1, &c);
    cr_assert_eq(c.kind, KD_HM_CMD_KEYS);
    memcpy(c.keys[0], other.card_keys[c.positions[0]], KD_HM_SCALAR_LEN);
    hm_expect_rule(hm_cmd(&h, 1, &c, &rej), &rej, "wrong_key");
    hm_duties(&h);
    cr_expect_eq(h.state.phase, KD_HM_PLAY);
    cr_expect_eq(h.state.to_act, 0);
}

/* Steps copied from another hand are refused: the proofs are bound to the
 * hand, the episode, the seat and the statement. */
Test(holdem, proofs_copied_from_another_hand_are_refused)
{
    hm_game g;
    hm_new(&g, NULL);
    kd_hm_command shuffle0, lock0, c;
    kd_reject rej = {0};
    hm_duty_command(&g, 0, &shuffle0);
    ok(hm_cmd(&g, 0, &shuffle0, &rej), &rej);
    hm_duty_command(&g, 1, &c);
    ok(hm_cmd(&g, 1, &c, &rej), &rej);
    hm_duty_command(&g, 0, &lock0);
    /* the same lock under another hand number or episode: the same decks,
     * the statement bound to another hand */
    static hm_game other;
    other = g;
    other.state.hand = 2;
    hm_expect_rule(hm_cmd(&other, 0, &lock0, &rej), &rej, "bad_lock_proof");
    other = g;
    other.state.episode++;
    hm_expect_rule(hm_cmd(&other, 0, &lock0, &rej), &rej, "bad_lock_proof");
    ok(hm_cmd(&g, 0, &lock0, &rej), &rej);
    /* seat 1 copies seat 0's lock as its own */
    hm_expect_rule(hm_cmd(&g, 1, &lock0, &rej), &rej, "bad_lock_proof");
    hm_duties(&g);
    ok(hm_bet(&g, 0, FOLD, 0, &rej), &rej);
    cr_assert_eq(g.state.hand, 2u);
    /* hand 2: seat 0's shuffle of hand 1, byte for byte */
    hm_expect_rule(hm_cmd(&g, 0, &shuffle0, &rej), &rej, "bad_shuffle_proof");
    cr_expect(strstr(rej.detail, "hand 2") != NULL, "%s", rej.detail);
    hm_duties(&g);
    cr_expect_eq(g.state.phase, KD_HM_PLAY);
}

/* A show withheld past its deadline loses to the other's claim. */
Test(holdem, a_show_withheld_loses)
{
    kd_hm_params p = {.timeout = 100, .pot_only = 1};
    hm_game g;
    hm_new(&g, &p);
    to_preflop(&g);
    check_to_river(&g);
    kd_reject rej = {0};
    ok(hm_bet(&g, 1, CHECK, 0, &rej), &rej);
    ok(hm_bet(&g, 0, CHECK, 0, &rej), &rej);
    cr_assert_eq(kd_hm_owes(&g.state, 1), KD_HM_OWE_SHOW);
    hm_expect_rule(hm_bet(&g, 0, KD_HM_CMD_CLAIM, 0, &rej), &rej, "too_early");
    g.daa += 100;
    ok(hm_bet(&g, 0, KD_HM_CMD_CLAIM, 0, &rej), &rej);
    cr_expect_eq(g.state.result, KD_HM_RESULT_CHEAT);
    cr_expect_eq(g.state.cheats, 2u);
    cr_expect_eq(g.state.last_won[0], 10);
    cr_expect_eq(g.state.hand, 2u, "pot_only: the match goes on");
}
