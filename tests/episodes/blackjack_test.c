/*
 * blackjack_test.c — the rules of blackjack (episodes/blackjack/blackjack.c) through
 * the engine's ops: naturals, pushes, busts, soft and hard totals, the
 * dealer drawing to 17 and standing on soft 17, splits (aces too),
 * doubles, the no-hole-card dealer blackjack; every refusal with its code;
 * the house's proofs that do not verify; a missed deadline claimed; the
 * cards going by the order of the asks with several players waiting, the
 * house unable to change who gets which (issue 24, B6); draws checked from
 * the log by an independent computation; a hand rolled back and
 * re-applied.
 * Every command goes through bj_exec: rollback byte-exact, encodings.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "bj_support.h"
#include "engine/crypto.h"
#include "engine/vrf.h"

#define C(r) bj_card(r)

static void expect_ok(kd_err err, const kd_reject *rej) { cr_assert_eq(err, KD_OK, "%s: %s", rej->code, rej->detail); }

static void expect_rule(kd_err err, const kd_reject *rej, const char *code)
{
    cr_expect_eq(err, KD_ERR_RULE, "want %s, got %s", code, kd_err_str(err));
    cr_expect_str_eq(rej->code, code, "%s", rej->detail);
    cr_expect(type_rule_known(code), "%s is a rule code of the type", code);
}

/* bet 10 and the opening cards p1, p2 and the dealer's up card */
static void open_round(bj_fix *f, size_t seat, uint32_t bet, char p1, char p2, char up)
{
    kd_reject rej = {0};
    expect_ok(bj_player(f, seat, KD_BJ_CMD_BET, bet, &rej), &rej);
    bj_deal(f, seat, C(p1));
    bj_deal(f, seat, C(p2));
    bj_deal(f, seat, C(up));
}

static const kd_bj_player *P(const bj_fix *f, size_t seat) { return &f->state.players[seat - 1]; }

Test(blackjack, totals_soft_and_hard)
{
    uint8_t a6[] = {C('A'), C('6')}, a6t[] = {C('A'), C('6'), C('T')}, aa[] = {C('A'), C('A')},
            aa9[] = {C('A'), C('A'), C('9')}, kq[] = {C('K'), C('Q')}, ak[] = {C('A'), C('K')};
    int soft = 0;
    cr_expect_eq(kd_bj_total(a6, 2, &soft), 17);
    cr_expect(soft, "A-6 is soft 17");
    cr_expect_eq(kd_bj_total(a6t, 3, &soft), 17);
    cr_expect(!soft, "A-6-10 is hard 17");
    cr_expect_eq(kd_bj_total(aa, 2, &soft), 12);
    cr_expect(soft);
    cr_expect_eq(kd_bj_total(aa9, 3, &soft), 21);
    cr_expect_eq(kd_bj_total(kq, 2, &soft), 20);
    cr_expect_eq(kd_bj_total(ak, 2, NULL), 21);
    cr_expect_eq(kd_bj_card_value(C('J')), 10);
    cr_expect_eq(kd_bj_card_value(C('A')), 1);
}

Test(blackjack, natural_pays_three_to_two)
{
    bj_fix f;
    bj_setup(&f, 1, NULL);
    open_round(&f, 1, 10, 'A', 'K', '5');
    cr_expect_eq(P(&f, 1)->round.await, KD_BJ_IDLE, "a natural against a 5 settles at once");
    cr_expect_eq(P(&f, 1)->round.hands[0].outcome, KD_BJ_BLACKJACK);
    cr_expect_eq(P(&f, 1)->chips, 1015);
    cr_expect_eq(f.state.house_net, -15);
    bj_teardown(&f);
}

Test(blackjack, natural_against_dealer_natural_pushes)
{
    bj_fix f;
    bj_setup(&f, 1, NULL);
    open_round(&f, 1, 10, 'A', 'K', 'K');
    cr_expect_eq(P(&f, 1)->round.await, KD_BJ_DEALER, "a ten up: the dealer's second card decides");
    bj_deal(&f, 1, C('A'));
    cr_expect_eq(P(&f, 1)->round.hands[0].outcome, KD_BJ_PUSH);
    cr_expect_eq(P(&f, 1)->chips, 1000);
    bj_teardown(&f);
}

Test(blackjack, natural_against_ten_without_dealer_natural)
{
    bj_fix f;
    bj_setup(&f, 1, NULL);
    open_round(&f, 1, 20, 'Q', 'A', 'T');
    bj_deal(&f, 1, C('6'));
    cr_expect_eq(P(&f, 1)->round.hands[0].outcome, KD_BJ_BLACKJACK);
    cr_expect_eq(P(&f, 1)->round.dealer.n, 2, "the dealer stops after the card that decides");
    cr_expect_eq(P(&f, 1)->chips, 1030);
    bj_teardown(&f);
}

Test(blackjack, bust_loses_without_the_dealer_playing)
{
    bj_fix f;
    bj_setup(&f, 1, NULL);
    kd_reject rej = {0};
    open_round(&f, 1, 10, 'T', '6', '9');
    cr_expect_eq(P(&f, 1)->round.await, KD_BJ_PLAYER);
    expect_ok(bj_player(&f, 1, KD_BJ_CMD_HIT, 0, &rej), &rej);
    cr_expect_eq(P(&f, 1)->round.await, KD_BJ_CARD);
    bj_deal(&f, 1, C('K'));
    cr_expect_eq(P(&f, 1)->round.hands[0].outcome, KD_BJ_BUST);
    cr_expect_eq(P(&f, 1)->round.dealer.n, 1);
    cr_expect_eq(P(&f, 1)->chips, 990);
    cr_expect_eq(P(&f, 1)->round.net, -10);
    bj_teardown(&f);
}

Test(blackjack, dealer_stands_on_soft_17)
{
    bj_fix f;
    bj_setup(&f, 1, NULL);
    kd_reject rej = {0};
    open_round(&f, 1, 10, 'T', '8', 'A');
    expect_ok(bj_player(&f, 1, KD_BJ_CMD_STAND, 0, &rej), &rej);
    cr_expect_eq(P(&f, 1)->round.await, KD_BJ_DEALER);
    bj_deal(&f, 1, C('6'));
    cr_expect_eq(P(&f, 1)->round.await, KD_BJ_IDLE, "soft 17: the dealer stands");
    cr_expect_eq(P(&f, 1)->round.hands[0].outcome, KD_BJ_WIN, "18 beats 17");
    cr_expect_eq(P(&f, 1)->chips, 1010);
    bj_teardown(&f);
}

Test(blackjack, dealer_draws_below_17_and_pushes)
{
    bj_fix f;
    bj_setup(&f, 1, NULL);
    kd_reject rej = {0};
    open_round(&f, 1, 10, 'T', '9', 'T');
    expect_ok(bj_player(&f, 1, KD_BJ_CMD_STAND, 0, &rej), &rej);
    bj_deal(&f, 1, C('2'));
    cr_expect_eq(P(&f, 1)->round.await, KD_BJ_DEALER, "12: draws");
    bj_deal(&f, 1, C('4'));
    cr_expect_eq(P(&f, 1)->round.await, KD_BJ_DEALER, "16: draws");
    bj_deal(&f, 1, C('3'));
    cr_expect_eq(P(&f, 1)->round.await, KD_BJ_IDLE, "19: stands");
    cr_expect_eq(P(&f, 1)->round.hands[0].outcome, KD_BJ_PUSH);
    cr_expect_eq(P(&f, 1)->chips, 1000);
    bj_teardown(&f);
}

Test(blackjack, split_then_double_after_split)
{
    bj_fix f;
    bj_setup(&f, 1, NULL);
    kd_reject rej = {0};
    open_round(&f, 1, 10, '8', '8', '6');
    expect_ok(bj_player(&f, 1, KD_BJ_CMD_SPLIT, 0, &rej), &rej);
    cr_expect_eq(P(&f, 1)->round.n_hands, 2);
    cr_expect_eq(P(&f, 1)->chips, 980);
    bj_deal(&f, 1, C('3'));
    cr_expect_eq(P(&f, 1)->round.await, KD_BJ_PLAYER, "8-3: the player acts on hand 1");
    expect_ok(bj_player(&f, 1, KD_BJ_CMD_DOUBLE, 0, &rej), &rej);
    cr_expect_eq(P(&f, 1)->chips, 970);
    bj_deal(&f, 1, C('T'));
    cr_expect_eq(P(&f, 1)->round.active, 1, "hand 1 is done after its double card");
    cr_expect_eq(P(&f, 1)->round.await, KD_BJ_CARD, "hand 2 takes its second card");
    bj_deal(&f, 1, C('2'));
    expect_ok(bj_player(&f, 1, KD_BJ_CMD_STAND, 0, &rej), &rej);
    bj_deal(&f, 1, C('T'));
    bj_deal(&f, 1, C('K'));
    const kd_bj_round *r = &P(&f, 1)->round;
    cr_expect_eq(r->await, KD_BJ_IDLE);
    cr_expect_eq(r->hands[0].outcome, KD_BJ_WIN);
    cr_expect_eq(r->hands[0].bet, 20);
    cr_expect_eq(r->hands[1].outcome, KD_BJ_WIN, "the dealer busted with 26");
    cr_expect_eq(P(&f, 1)->chips, 1030);
    cr_expect_eq(r->net, 30);
    bj_teardown(&f);
}

Test(blackjack, split_aces_take_one_card_and_21_is_not_a_natural)
{
    bj_fix f;
    bj_setup(&f, 1, NULL);
    kd_reject rej = {0};
    open_round(&f, 1, 10, 'A', 'A', '7');
    expect_ok(bj_player(&f, 1, KD_BJ_CMD_SPLIT, 0, &rej), &rej);
    bj_deal(&f, 1, C('K'));
    cr_expect_eq(P(&f, 1)->round.active, 1, "a split ace takes one card");
    bj_deal(&f, 1, C('9'));
    cr_expect_eq(P(&f, 1)->round.await, KD_BJ_DEALER);
    bj_deal(&f, 1, C('K'));
    const kd_bj_round *r = &P(&f, 1)->round;
    cr_expect_eq(r->hands[0].outcome, KD_BJ_WIN, "21 after a split pays 1:1");
    cr_expect_eq(r->hands[1].outcome, KD_BJ_WIN, "20 beats 17");
    cr_expect_eq(P(&f, 1)->chips, 1020);
    bj_teardown(&f);
}

Test(blackjack, dealer_natural_takes_the_double_without_a_hole_card)
{
    bj_fix f;
    bj_setup(&f, 1, NULL);
    kd_reject rej = {0};
    open_round(&f, 1, 10, '5', '6', 'A');
    expect_ok(bj_player(&f, 1, KD_BJ_CMD_DOUBLE, 0, &rej), &rej);
    bj_deal(&f, 1, C('T'));
    bj_deal(&f, 1, C('K'));
    cr_expect_eq(P(&f, 1)->round.hands[0].outcome, KD_BJ_LOSE, "21 of three cards loses to a blackjack");
    cr_expect_eq(P(&f, 1)->chips, 980);
    bj_teardown(&f);
}

Test(blackjack, twenty_one_stands_by_itself)
{
    bj_fix f;
    bj_setup(&f, 1, NULL);
    kd_reject rej = {0};
    open_round(&f, 1, 10, '5', '6', '9');
    expect_ok(bj_player(&f, 1, KD_BJ_CMD_HIT, 0, &rej), &rej);
    bj_deal(&f, 1, C('T'));
    cr_expect_eq(P(&f, 1)->round.await, KD_BJ_DEALER);
    bj_teardown(&f);
}

Test(blackjack, refusals_name_their_rule)
{
    bj_fix f;
    bj_setup(&f, 2, "{\"rounds\": 2, \"stack\": 100, \"min_bet\": 10, \"max_bet\": 60}");
    kd_reject rej = {0};
    kd_bj_command c = {.action = KD_BJ_CMD_BET, .amount = 10};
    expect_rule(bj_exec(&f, NULL, &c, &rej), &rej, "unauthorised");
    expect_rule(bj_exec(&f, &f.stranger, &c, &rej), &rej, "unauthorised");
    expect_rule(bj_exec(&f, &f.house, &c, &rej), &rej, "unauthorised");
    expect_rule(bj_player(&f, 1, KD_BJ_CMD_BET, 5, &rej), &rej, "bet_out_of_range");
    expect_rule(bj_player(&f, 1, KD_BJ_CMD_BET, 61, &rej), &rej, "bet_out_of_range");
    expect_rule(bj_player(&f, 1, KD_BJ_CMD_HIT, 0, &rej), &rej, "no_round");
    expect_rule(bj_player(&f, 1, KD_BJ_CMD_CLAIM, 0, &rej), &rej, "no_round");
    expect_rule(bj_reveal(&f, 1, &rej), &rej, "nothing_owed");
    kd_bj_command r = {.action = KD_BJ_CMD_REVEAL};
    expect_rule(bj_exec(&f, &f.players[0], &r, &rej), &rej, "unauthorised");
    expect_ok(bj_player(&f, 1, KD_BJ_CMD_BET, 60, &rej), &rej);
    expect_rule(bj_player(&f, 1, KD_BJ_CMD_BET, 10, &rej), &rej, "round_in_progress");
    expect_rule(bj_player(&f, 1, KD_BJ_CMD_HIT, 0, &rej), &rej, "awaiting_house");
    expect_rule(bj_player(&f, 1, KD_BJ_CMD_CLAIM, 0, &rej), &rej, "too_early");
    bj_deal(&f, 1, C('9'));
    bj_deal(&f, 1, C('9'));
    bj_deal(&f, 1, C('7'));
    expect_rule(bj_player(&f, 1, KD_BJ_CMD_DOUBLE, 0, &rej), &rej, "not_enough_chips");
    expect_rule(bj_player(&f, 1, KD_BJ_CMD_SPLIT, 0, &rej), &rej, "not_enough_chips");
    expect_rule(bj_player(&f, 1, KD_BJ_CMD_CLAIM, 0, &rej), &rej, "nothing_owed");
    expect_ok(bj_player(&f, 1, KD_BJ_CMD_HIT, 0, &rej), &rej);
    bj_deal(&f, 1, C('2'));
    expect_rule(bj_player(&f, 1, KD_BJ_CMD_DOUBLE, 0, &rej), &rej, "cannot_double");
    expect_rule(bj_player(&f, 1, KD_BJ_CMD_SPLIT, 0, &rej), &rej, "cannot_split");
    expect_ok(bj_player(&f, 1, KD_BJ_CMD_STAND, 0, &rej), &rej);
    bj_deal(&f, 1, C('T')); /* 17: stands, 20 wins */
    cr_expect_eq(P(&f, 1)->chips, 160);
    expect_rule(bj_player(&f, 2, KD_BJ_CMD_BET, 101, &rej), &rej, "bet_out_of_range");
    /* player 2 plays its two rounds, losing: then no_rounds_left */
    for (int round = 0; round < 2; round++) {
        open_round(&f, 2, 50, 'T', '6', 'T');
        expect_ok(bj_player(&f, 2, KD_BJ_CMD_STAND, 0, &rej), &rej);
        bj_deal(&f, 2, C('7'));
    }
    cr_expect_eq(P(&f, 2)->chips, 0);
    expect_rule(bj_player(&f, 2, KD_BJ_CMD_BET, 10, &rej), &rej, "no_rounds_left");
    /* player 1's second round, then the game is over */
    open_round(&f, 1, 10, 'T', '7', '5');
    expect_ok(bj_player(&f, 1, KD_BJ_CMD_STAND, 0, &rej), &rej);
    bj_deal(&f, 1, C('T'));
    bj_deal(&f, 1, C('5'));
    cr_expect(kd_bj_over(&f.state));
    expect_rule(bj_player(&f, 1, KD_BJ_CMD_BET, 10, &rej), &rej, "game_over");
    kd_game_status st = kd_blackjack_type.status(&f.state);
    cr_expect_eq(st.phase, KD_PHASE_WON);
    cr_expect_eq(f.state.house_net, 50, "+60 for player1, then -10; -100 for player2");
    cr_expect_eq(st.winner, KD_BJ_HOUSE, "the house is ahead");
    bj_teardown(&f);
}

Test(blackjack, not_enough_chips_for_a_bet)
{
    bj_fix f;
    bj_setup(&f, 1, "{\"stack\": 100, \"max_bet\": 100}");
    kd_reject rej = {0};
    open_round(&f, 1, 100, 'T', '6', 'T');
    expect_ok(bj_player(&f, 1, KD_BJ_CMD_STAND, 0, &rej), &rej);
    bj_deal(&f, 1, C('7'));
    cr_expect_eq(P(&f, 1)->chips, 0);
    cr_expect(kd_bj_over(&f.state), "no chips: over");
    bj_teardown(&f);
}

Test(blackjack, a_proof_of_anything_else_is_refused)
{
    bj_fix f;
    bj_setup(&f, 1, NULL);
    kd_reject rej = {0};
    expect_ok(bj_player(&f, 1, KD_BJ_CMD_BET, 10, &rej), &rej);
    const uint8_t *entropy = P(&f, 1)->round.pending.ask;
    kd_bj_command c = bj_reveal_of(&f, 2, entropy); /* skips draw 1 */
    expect_rule(bj_exec(&f, &f.house, &c, &rej), &rej, "bad_proof");
    uint8_t other[KD_FAIR_ENTROPY_LEN];
    memcpy(other, entropy, sizeof other);
    other[0] ^= 1;
    c = bj_reveal_of(&f, 1, other); /* another entropy */
    expect_rule(bj_exec(&f, &f.house, &c, &rej), &rej, "bad_proof");
    c = bj_reveal_of(&f, 1, entropy);
    c.proof[40] ^= 1;
    expect_rule(bj_exec(&f, &f.house, &c, &rej), &rej, "bad_proof");
    cr_expect_eq(f.state.draws, 0);
    expect_ok(bj_reveal(&f, 1, &rej), &rej);
    cr_expect_eq(f.state.draws, 1);
    bj_teardown(&f);
}

Test(blackjack, a_missed_deadline_loses_the_hand_to_the_claim)
{
    bj_fix f;
    bj_setup(&f, 1, "{\"timeout\": 600}");
    kd_reject rej = {0};
    f.daa = 1000;
    open_round(&f, 1, 10, 'T', '8', '6');
    f.daa = 1100;
    expect_ok(bj_player(&f, 1, KD_BJ_CMD_DOUBLE, 0, &rej), &rej);
    f.daa = 1699;
    expect_rule(bj_player(&f, 1, KD_BJ_CMD_CLAIM, 0, &rej), &rej, "too_early");
    f.daa = 1700;
    expect_ok(bj_player(&f, 1, KD_BJ_CMD_CLAIM, 0, &rej), &rej);
    cr_expect_eq(P(&f, 1)->round.hands[0].outcome, KD_BJ_CLAIMED);
    cr_expect_eq(P(&f, 1)->chips, 1020, "the doubled bet is paid 1:1");
    cr_expect_eq(f.state.house_net, -20);
    expect_rule(bj_reveal(&f, 1, &rej), &rej, "nothing_owed");
    /* a reveal in time restarts the clock for the next card */
    f.daa = 2000;
    expect_ok(bj_player(&f, 1, KD_BJ_CMD_BET, 10, &rej), &rej);
    f.daa = 2500;
    bj_deal(&f, 1, C('5'));
    f.daa = 3000;
    expect_rule(bj_player(&f, 1, KD_BJ_CMD_CLAIM, 0, &rej), &rej, "too_early");
    f.daa = 3100;
    expect_ok(bj_player(&f, 1, KD_BJ_CMD_CLAIM, 0, &rej), &rej);
    bj_teardown(&f);
}

/* The card of draw `index` computed from the log alone, independently of
 * episodes/: the VRF output of the documented input ("kdapp-draw-v3" ||
 * id || index || SHA-256 of the ask's bytes) under the house's key in the params, 32-bit words
 * big-endian from SHA-256(seed || counter), rejection below the largest
 * multiple, then the k-th card left in card order. */
static uint8_t independent_card(const kd_pubkey *key, const uint8_t proof[KD_VRF_PROOF_LEN], const uint8_t ask[32],
                                uint32_t id, uint32_t index, const uint8_t shoe[52], uint32_t left)
{
    uint8_t alpha[13 + 8 + 32], seed[32], block[36], h[32];
    memcpy(alpha, "kdapp-draw-v3", 13);
    for (int i = 0; i < 4; i++) {
        alpha[13 + i] = (uint8_t)(id >> (24 - 8 * i));
        alpha[17 + i] = (uint8_t)(index >> (24 - 8 * i));
    }
    memcpy(alpha + 21, ask, 32);
    cr_assert_eq(kd_vrf_verify(key, alpha, sizeof alpha, proof, seed), KD_OK, "draw %u's proof", index);
    uint64_t limit = (1ull << 32) - (1ull << 32) % left;
    uint32_t k = 0;
    for (uint32_t counter = 0;; counter++) {
        memcpy(block, seed, 32);
        for (int i = 0; i < 4; i++)
            block[32 + i] = (uint8_t)(counter >> (24 - 8 * i));
        kd_sha256(block, sizeof block, h);
        int found = 0;
        for (int w = 0; w < 8 && !found; w++) {
            uint32_t v =
                (uint32_t)h[4 * w] << 24 | (uint32_t)h[4 * w + 1] << 16 | (uint32_t)h[4 * w + 2] << 8 | h[4 * w + 3];
            if (v < limit) {
                k = v % left;
                found = 1;
            }
        }
        if (found)
            break;
    }
    uint8_t card = 0;
    while (k >= shoe[card]) {
        k -= shoe[card];
        card++;
    }
    return card;
}

/* Issue 37, R1 at the blackjack table: a bet of 10 with entropy E, the
 * house's first card published, a reorg takes both back, a bet of 100
 * with the same E: its bytes differ, so does every card's input; the
 * published proof is refused, and the bet's first card comes from another
 * output. The draw's input ends with the SHA-256 of the bet's bytes. */
Test(blackjack, a_changed_bet_with_the_same_entropy_draws_anew)
{
    bj_fix f;
    bj_setup(&f, 1, "{\"stack\": 1000, \"max_bet\": 100}");
    kd_reject rej = {0};
    kd_bj_command small, big;
    memset(&small, 0, sizeof small);
    small.action = KD_BJ_CMD_BET;
    small.amount = 10;
    memset(small.entropy, 0xe1, sizeof small.entropy);
    big = small;
    big.amount = 100;
    const kd_bj_state before = f.state;
    expect_ok(bj_exec(&f, &f.players[0], &small, &rej), &rej);
    kd_buf bytes;
    kd_buf_init(&bytes);
    cr_assert_eq(kd_bj_command_encode(&small, &bytes), KD_OK);
    uint8_t want[KD_HASH_LEN];
    kd_sha256(bytes.data, bytes.len, want);
    cr_expect_arr_eq(P(&f, 1)->round.pending.ask, want, KD_HASH_LEN, "the input ends with SHA-256 of the bet's bytes");
    kd_bj_command published = bj_reveal_of(&f, 1, P(&f, 1)->round.pending.ask);
    expect_ok(bj_exec(&f, &f.house, &published, &rej), &rej);
    const uint8_t *seen = f.state.players[0].round.hands[0].cards;
    uint8_t first = seen[0];
    f.state = before; /* the reorg: the bet and the reveal are gone */
    expect_ok(bj_exec(&f, &f.players[0], &big, &rej), &rej);
    expect_rule(bj_exec(&f, &f.house, &published, &rej), &rej, "bad_proof");
    kd_bj_command fresh = bj_reveal_of(&f, 1, P(&f, 1)->round.pending.ask);
    cr_expect(memcmp(fresh.proof, published.proof, KD_VRF_PROOF_LEN) != 0, "another input, another proof");
    expect_ok(bj_exec(&f, &f.house, &fresh, &rej), &rej);
    cr_log_info("first card %u, then %u", first, f.state.players[0].round.hands[0].cards[0]);
    kd_buf_fini(&bytes);
    bj_teardown(&f);
}

/* The house's reveal depth at the table: it deals a bet's cards from its
 * block + reveal_depth (the type's duty_due), and the claim deadline
 * counts from there; the state's bytes carry the term (version 3). */
Test(blackjack, the_reveal_depth_moves_the_deadline)
{
    bj_fix f;
    bj_setup(&f, 1, "{\"timeout\": 100, \"reveal_depth\": 50}");
    kd_reject rej = {0};
    cr_expect_eq(f.state.params.reveal_depth, 50);
    cr_expect_eq(f.state.params.draw_input, KD_FAIR_DRAW_V3);
    f.daa = 1000;
    expect_ok(bj_player(&f, 1, KD_BJ_CMD_BET, 10, &rej), &rej);
    cr_expect_eq(kd_bj_due(&f.state, 0), 1050);
    cr_expect_eq(kd_blackjack_type.duty_due(&f.state, KD_BJ_HOUSE), 1050, "the house deals from there");
    cr_expect_eq(kd_blackjack_type.duty_due(&f.state, 1), 0, "a player owes nothing");
    cr_expect_eq(kd_bj_deadline(&f.state, 0), 1150);
    f.daa = 1149;
    expect_rule(bj_exec(&f, &f.players[0], &(kd_bj_command){.action = KD_BJ_CMD_CLAIM}, &rej), &rej, "too_early");
    f.daa = 1150;
    expect_ok(bj_exec(&f, &f.players[0], &(kd_bj_command){.action = KD_BJ_CMD_CLAIM}, &rej), &rej);
    kd_buf b;
    kd_buf_init(&b);
    cr_assert_eq(kd_bj_state_encode(&f.state, &b), KD_OK);
    cr_expect_eq(b.data[0], KD_BJ_VERSION + 1, "draw input 3: state version 3");
    kd_buf_fini(&b);
    bj_teardown(&f);
}

/* A table created before issue 37 (params without draw_input) keeps its
 * input (the ask's entropy) and its state's version-2 bytes. */
Test(blackjack, an_old_table_keeps_its_input_and_bytes)
{
    bj_fix f;
    bj_setup(&f, 1, NULL);
    kd_bj_params old = f.state.params;
    old.draw_input = KD_FAIR_DRAW_V2;
    kd_buf pb, b;
    kd_buf_init(&pb);
    kd_buf_init(&b);
    cr_assert_eq(kd_bj_params_encode(&old, &pb), KD_OK);
    kd_bj_params back;
    kd_reject rej = {0};
    cr_assert_eq(kd_bj_params_decode(pb.data, pb.len, &back, &rej), KD_OK, "%s", rej.detail);
    cr_expect_eq(back.draw_input, KD_FAIR_DRAW_V2, "no draw_input on the wire: version 2");
    f.state.params = back;
    expect_ok(bj_player(&f, 1, KD_BJ_CMD_BET, 10, &rej), &rej);
    cr_assert_eq(kd_bj_state_encode(&f.state, &b), KD_OK);
    cr_expect_eq(b.data[0], KD_BJ_VERSION, "the old state's version");
    kd_bj_state again;
    cr_assert_eq(kd_bj_state_decode(b.data, b.len, &again), KD_OK);
    cr_expect(memcmp(&again, &f.state, sizeof again) == 0, "and its bytes round-trip");
    expect_ok(bj_reveal(&f, 1, &rej), &rej); /* the proof of the old input: the ask's entropy */
    kd_buf_fini(&pb);
    kd_buf_fini(&b);
    bj_teardown(&f);
}

Test(blackjack, every_draw_verifies_from_the_log)
{
    bj_fix f;
    bj_setup(&f, 1, NULL);
    kd_reject rej = {0};
    int cards = 0;
    for (int round = 0; round < 10; round++) {
        expect_ok(bj_player(&f, 1, KD_BJ_CMD_BET, 10, &rej), &rej);
        while (P(&f, 1)->round.await != KD_BJ_IDLE) {
            if (P(&f, 1)->round.await == KD_BJ_PLAYER) {
                const kd_bj_hand *h = &P(&f, 1)->round.hands[P(&f, 1)->round.active];
                kd_bj_action a = kd_bj_total(h->cards, h->n, NULL) < 15 ? KD_BJ_CMD_HIT : KD_BJ_CMD_STAND;
                expect_ok(bj_player(&f, 1, a, 0, &rej), &rej);
                continue;
            }
            kd_bj_state before = f.state;
            expect_ok(bj_reveal(&f, 1, &rej), &rej);
            uint32_t i = f.state.draws;
            uint8_t want =
                independent_card(&f.state.params.house_key, f.last_proof, before.players[0].round.pending.ask,
                                 BJ_TEST_ID, i, before.shoe, before.shoe_left);
            cr_expect_eq(before.shoe[want] - 1, f.state.shoe[want], "draw %u took card %u", i, want);
            cards++;
        }
    }
    cr_expect_geq(cards, 30);
    bj_teardown(&f);
}

Test(blackjack, a_hand_rolled_back_and_re_applied_gives_the_same_cards)
{
    bj_fix f;
    bj_setup(&f, 1, NULL);
    kd_reject rej = {0};
    /* the log of one hand: bet, reveals, hit, reveal, stand, dealer reveals */
    kd_bj_state states[40];
    kd_bj_undo undos[40];
    kd_buf cmds[40];
    const kd_key *signers[40];
    size_t n = 0;
    uint8_t zero[32] = {0};
    kd_block_meta meta = {.block_hash = zero, .tx_id = zero, .episode_id = BJ_TEST_ID, .daa = 5};
    memcpy(&states[0], &f.state, sizeof f.state);
    kd_bj_action plan[] = {KD_BJ_CMD_BET, KD_BJ_CMD_HIT, KD_BJ_CMD_STAND};
    size_t step = 0;
    while (n < 39 && (step < 3 || P(&f, 1)->round.await != KD_BJ_IDLE)) {
        kd_bj_command c;
        memset(&c, 0, sizeof c);
        int owed = kd_bj_owed(&f.state) == 0;
        if (owed) {
            c = bj_reveal_of(&f, f.state.draws + 1, P(&f, 1)->round.pending.ask);
            signers[n] = &f.house;
        } else {
            if (step == 3 || (plan[step] != KD_BJ_CMD_BET && P(&f, 1)->round.await != KD_BJ_PLAYER))
                break;
            c.action = plan[step++];
            c.amount = 10;
            memset(c.entropy, (int)(step * 17), 32);
            signers[n] = &f.players[0];
        }
        kd_buf_init(&cmds[n]);
        cr_assert_eq(kd_bj_command_encode(&c, &cmds[n]), KD_OK);
        cr_assert_eq(kd_bj_ops.execute(&f.state, cmds[n].data, cmds[n].len, &signers[n]->pub, &meta, &undos[n], &rej),
                     KD_OK, "%s", rej.detail);
        n++;
        memcpy(&states[n], &f.state, sizeof f.state);
    }
    cr_assert_geq(n, 5);
    /* a reorg after each point of the hand: roll back to it, re-apply */
    for (size_t cut = 0; cut < n; cut++) {
        for (size_t k = n; k > cut; k--)
            cr_assert_eq(kd_bj_ops.rollback(&f.state, &undos[k - 1]), KD_OK);
        cr_assert_eq(memcmp(&f.state, &states[cut], sizeof f.state), 0, "rolled back to command %zu", cut);
        for (size_t k = cut; k < n; k++) {
            cr_assert_eq(
                kd_bj_ops.execute(&f.state, cmds[k].data, cmds[k].len, &signers[k]->pub, &meta, &undos[k], &rej),
                KD_OK);
            cr_assert_eq(memcmp(&f.state, &states[k + 1], sizeof f.state), 0, "re-applied %zu", k);
        }
    }
    for (size_t k = 0; k < n; k++)
        kd_buf_fini(&cmds[k]);
    bj_teardown(&f);
}

Test(blackjack, encodings_refuse_malformed_bytes)
{
    bj_fix f;
    bj_setup(&f, 2, NULL);
    kd_buf b;
    kd_buf_init(&b);
    cr_assert_eq(kd_bj_ops.encode_state(&f.state, &b), KD_OK);
    kd_bj_state s;
    cr_expect_eq(kd_bj_ops.decode_state(b.data, b.len - 1, &s), KD_ERR_DECODE, "truncated");
    b.data[0] = 9;
    cr_expect_eq(kd_bj_ops.decode_state(b.data, b.len, &s), KD_ERR_DECODE, "another version");
    b.data[0] = KD_BJ_VERSION;
    uint8_t *extra = b.data;
    (void)extra;
    cr_assert_eq(kd_buf_append(&b, (const uint8_t *)"x", 1), KD_OK);
    cr_expect_eq(kd_bj_ops.decode_state(b.data, b.len, &s), KD_ERR_DECODE, "trailing bytes");
    kd_bj_command c;
    kd_reject rej = {0};
    cr_expect_eq(kd_bj_command_decode((const uint8_t *)"\x0a\x02\x08", 3, &c, &rej), KD_ERR_BAD_COMMAND);
    cr_expect_eq(kd_bj_command_decode(NULL, 0, &c, &rej), KD_ERR_BAD_COMMAND);
    kd_bj_command bad = {.action = KD_BJ_CMD_HIT};
    kd_buf cb;
    kd_buf_init(&cb);
    cr_assert_eq(kd_bj_command_encode(&bad, &cb), KD_OK);
    cr_expect_eq(kd_bj_command_decode(cb.data, cb.len - 1, &c, &rej), KD_ERR_BAD_COMMAND, "short entropy");
    kd_bj_params p;
    cr_expect_eq(kd_bj_params_decode(NULL, 0, &p, &rej), KD_ERR_BAD_PARAMS, "no commitment");
    cr_expect(strstr(rej.detail, "house_key"));
    kd_buf_fini(&cb);
    kd_buf_fini(&b);
    bj_teardown(&f);
}

Test(blackjack, participants_must_be_distinct)
{
    kd_participants parts = {.count = 2};
    kd_key k;
    cr_assert_eq(kd_key_test("bj-house", &k), KD_OK);
    parts.keys[0] = parts.keys[1] = k.pub;
    kd_bj_params p = {.decks = 6, .timeout = 600, .stack = 1000, .min_bet = 10, .max_bet = 100, .rounds = 10};
    p.house_key = k.pub;
    kd_bj_state s;
    kd_reject rej = {0};
    cr_expect_eq(kd_bj_state_init(&s, &parts, &p, BJ_TEST_ID, &rej), KD_ERR_BAD_PARTICIPANTS);
    parts.count = 1;
    cr_expect_eq(kd_bj_state_init(&s, &parts, &p, BJ_TEST_ID, &rej), KD_ERR_BAD_PARTICIPANTS);
}

Test(blackjack, basic_strategy_table)
{
    uint8_t h16[] = {C('T'), C('6')}, h12[] = {C('T'), C('2')}, h11[] = {C('6'), C('5')}, a7[] = {C('A'), C('7')},
            p8[] = {C('8'), C('8')}, pa[] = {C('A'), C('A')}, p9[] = {C('9'), C('9')}, h3[] = {C('5'), C('4'), C('2')};
    cr_expect_eq(kd_bj_basic_strategy(h16, 2, C('T'), 1, 1), KD_BJ_CMD_HIT);
    cr_expect_eq(kd_bj_basic_strategy(h16, 2, C('6'), 1, 1), KD_BJ_CMD_STAND);
    cr_expect_eq(kd_bj_basic_strategy(h12, 2, C('4'), 1, 1), KD_BJ_CMD_STAND);
    cr_expect_eq(kd_bj_basic_strategy(h12, 2, C('3'), 1, 1), KD_BJ_CMD_HIT);
    cr_expect_eq(kd_bj_basic_strategy(h11, 2, C('9'), 1, 1), KD_BJ_CMD_DOUBLE);
    cr_expect_eq(kd_bj_basic_strategy(h11, 2, C('T'), 1, 1), KD_BJ_CMD_HIT, "no hole card: 11 v 10 hits");
    cr_expect_eq(kd_bj_basic_strategy(h3, 3, C('6'), 0, 0), KD_BJ_CMD_HIT, "11 of three cards: hit");
    cr_expect_eq(kd_bj_basic_strategy(a7, 2, C('3'), 1, 1), KD_BJ_CMD_DOUBLE);
    cr_expect_eq(kd_bj_basic_strategy(a7, 2, C('3'), 0, 1), KD_BJ_CMD_STAND);
    cr_expect_eq(kd_bj_basic_strategy(a7, 2, C('9'), 1, 1), KD_BJ_CMD_HIT);
    cr_expect_eq(kd_bj_basic_strategy(p8, 2, C('6'), 1, 1), KD_BJ_CMD_SPLIT);
    cr_expect_eq(kd_bj_basic_strategy(p8, 2, C('T'), 1, 1), KD_BJ_CMD_HIT, "no hole card: 8-8 v 10 hits");
    cr_expect_eq(kd_bj_basic_strategy(pa, 2, C('6'), 1, 1), KD_BJ_CMD_SPLIT);
    cr_expect_eq(kd_bj_basic_strategy(p9, 2, C('7'), 1, 1), KD_BJ_CMD_STAND);
    cr_expect_eq(kd_bj_basic_strategy(p8, 2, C('6'), 1, 0), KD_BJ_CMD_STAND, "16 v 6 when it cannot split");
}
