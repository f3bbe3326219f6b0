/*
 * blackjack_order_test.c — who gets which card is the rules' choice, never
 * the house's (issue 24, B6: with two players waiting for cards the
 * house's reveal named the seat, and 20 reveal orders gave 10 distinct
 * hands per player). The reveal names no seat; it answers the round whose
 * ask came first, across all players, and keeps answering it until it
 * waits for no more cards. With 1 to 7 players betting in a scrambled
 * order, every reveal goes to the expected seat, and every proof the house
 * could send instead (another waiting round's entropy, a later draw's
 * index, another key) is refused, leaving the state as it was. An honest
 * house answering in order is never late; a stalling one loses the rounds
 * behind the one it stalls on too.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "bj_support.h"

static void expect_ok(kd_err err, const kd_reject *rej) { cr_assert_eq(err, KD_OK, "%s: %s", rej->code, rej->detail); }

/* Every proof but the owed draw's is refused and changes nothing. */
static void others_refused(bj_fix *f)
{
    const kd_bj_state *s = &f->state;
    int owed = kd_bj_owed(s);
    cr_assert_geq(owed, 0);
    kd_bj_state before = *s;
    kd_reject rej = {0};
    for (size_t i = 0; i < s->n_players; i++) {
        uint8_t a = s->players[i].round.await;
        if ((int)i == owed || (a != KD_BJ_DEAL && a != KD_BJ_CARD && a != KD_BJ_DEALER))
            continue;
        kd_bj_command c = bj_reveal_of(f, s->draws + 1, s->players[i].round.pending.ask);
        cr_expect_eq(bj_exec(f, &f->house, &c, &rej), KD_ERR_RULE, "player%zu's draw out of turn", i + 1);
        cr_expect_str_eq(rej.code, "bad_proof");
    }
    kd_bj_command later = bj_reveal_of(f, s->draws + 2, s->players[owed].round.pending.ask);
    cr_expect_eq(bj_exec(f, &f->house, &later, &rej), KD_ERR_RULE, "a later draw's proof");
    cr_expect(memcmp(&before, &f->state, sizeof before) == 0, "refused proofs leave the state");
}

Test(blackjack_order, cards_go_by_the_order_of_the_asks_for_any_number_of_players)
{
    /* the seats bet in this order (1-based), the first n of them */
    static const size_t order[KD_BJ_MAX_PLAYERS] = {5, 2, 7, 1, 4, 3, 6};
    for (size_t n = 1; n <= KD_BJ_MAX_PLAYERS; n++) {
        bj_fix f;
        bj_setup(&f, n, "{\"decks\": 8}");
        kd_reject rej = {0};
        size_t bettors[KD_BJ_MAX_PLAYERS], k = 0;
        for (size_t i = 0; i < KD_BJ_MAX_PLAYERS; i++)
            if (order[i] <= n)
                bettors[k++] = order[i];
        for (size_t i = 0; i < n; i++)
            expect_ok(bj_player(&f, bettors[i], KD_BJ_CMD_BET, 10, &rej), &rej);
        /* the deals in the order of the bets: three cards each (and the
         * dealer's second behind a natural), every reveal checked */
        for (size_t i = 0; i < n; i++) {
            const kd_bj_round *r = &f.state.players[bettors[i] - 1].round;
            while (r->await == KD_BJ_DEAL || r->await == KD_BJ_DEALER) {
                cr_assert_eq(kd_bj_owed(&f.state), (int)bettors[i] - 1, "%zu players: player%zu's deal is next", n,
                             bettors[i]);
                others_refused(&f);
                expect_ok(bj_reveal(&f, bettors[i], &rej), &rej);
            }
        }
        cr_expect_geq(f.state.draws, 3 * n, "%zu players: three cards each", n);
        /* the players stand in the reverse order: the dealer's cards go by those asks */
        for (size_t i = n; i-- > 0;)
            if (f.state.players[bettors[i] - 1].round.await == KD_BJ_PLAYER)
                expect_ok(bj_player(&f, bettors[i], KD_BJ_CMD_STAND, 0, &rej), &rej);
        for (size_t i = n; i-- > 0;) {
            const kd_bj_round *r = &f.state.players[bettors[i] - 1].round;
            while (r->await == KD_BJ_DEALER) {
                cr_assert_eq(kd_bj_owed(&f.state), (int)bettors[i] - 1, "player%zu's dealer is next", bettors[i]);
                others_refused(&f);
                expect_ok(bj_reveal(&f, bettors[i], &rej), &rej);
            }
        }
        cr_expect_eq(kd_bj_owed(&f.state), -1, "%zu players: every round settled", n);
        bj_teardown(&f);
    }
}

/* The order is the asks', not the seats': a hit asked later goes behind
 * the rounds that asked before it. */
Test(blackjack_order, a_later_ask_waits_behind_earlier_ones)
{
    bj_fix f;
    bj_setup(&f, 3, NULL);
    kd_reject rej = {0};
    expect_ok(bj_player(&f, 3, KD_BJ_CMD_BET, 10, &rej), &rej);
    bj_deal(&f, 3, bj_card('T'));
    bj_deal(&f, 3, bj_card('4'));
    bj_deal(&f, 3, bj_card('9'));
    expect_ok(bj_player(&f, 1, KD_BJ_CMD_BET, 10, &rej), &rej); /* asks before player3's hit */
    expect_ok(bj_player(&f, 3, KD_BJ_CMD_HIT, 0, &rej), &rej);
    expect_ok(bj_player(&f, 2, KD_BJ_CMD_BET, 10, &rej), &rej);
    cr_expect_eq(kd_bj_owed(&f.state), 0, "player1 bet first");
    for (int i = 0; i < 3; i++)
        bj_deal(&f, 1, bj_card('8'));
    cr_expect_eq(kd_bj_owed(&f.state), 2, "then player3's hit");
    bj_deal(&f, 3, bj_card('2'));
    cr_expect_eq(kd_bj_owed(&f.state), 1, "then player2's deal");
    others_refused(&f);
    bj_teardown(&f);
}

/* An honest house answering in order is never late for the rounds behind;
 * a house that stalls loses them to their claims. */
Test(blackjack_order, deadlines_count_from_the_house_s_last_reveal)
{
    bj_fix f;
    bj_setup(&f, 2, "{\"timeout\": 100}");
    kd_reject rej = {0};
    f.daa = 1000;
    expect_ok(bj_player(&f, 1, KD_BJ_CMD_BET, 10, &rej), &rej);
    f.daa = 1001;
    expect_ok(bj_player(&f, 2, KD_BJ_CMD_BET, 10, &rej), &rej);
    f.daa = 1090;
    bj_deal(&f, 1, bj_card('T'));
    f.daa = 1095;
    bj_deal(&f, 1, bj_card('7'));
    f.daa = 1099;
    bj_deal(&f, 1, bj_card('9'));
    cr_expect_eq(kd_bj_deadline(&f.state, 1), 1199, "player2's deadline moves with the house's reveals");
    f.daa = 1150;
    kd_err err = bj_player(&f, 2, KD_BJ_CMD_CLAIM, 0, &rej);
    cr_expect_eq(err, KD_ERR_RULE);
    cr_expect_str_eq(rej.code, "too_early", "the house answered player1 in order: it is not late for player2");
    f.daa = 1199;
    expect_ok(bj_player(&f, 2, KD_BJ_CMD_CLAIM, 0, &rej), &rej);
    cr_expect_eq(f.state.players[1].round.hands[0].outcome, KD_BJ_CLAIMED);
    bj_teardown(&f);
}

/* The reveal carries the proof and nothing else: no seat to choose. */
Test(blackjack_order, the_reveal_names_no_seat)
{
    bj_fix f;
    bj_setup(&f, 2, NULL);
    kd_reject rej = {0};
    expect_ok(bj_player(&f, 2, KD_BJ_CMD_BET, 10, &rej), &rej);
    kd_bj_command c = bj_reveal_of(&f, 1, f.state.players[1].round.pending.ask);
    kd_buf b;
    kd_buf_init(&b);
    cr_assert_eq(kd_bj_command_encode(&c, &b), KD_OK);
    json_t *j = kd_blackjack_type.command_to_json(b.data, b.len);
    cr_assert(j);
    cr_expect_eq(json_object_size(j), 2, "action and proof only");
    cr_expect(json_object_get(j, "proof") && !json_object_get(j, "seat"));
    json_t *schema = json_loads(kd_blackjack_type.command_schema, 0, NULL);
    cr_expect(!json_object_get(json_object_get(schema, "properties"), "seat"), "the command schema has no seat");
    json_decref(schema);
    json_decref(j);
    kd_buf_fini(&b);
    bj_teardown(&f);
}
