/*
 * holdem_v1_test.c — protocol 1, kept for the matches created before
 * protocol 2 (holdem.h): a hand dealt and checked at its end from both
 * hand secrets, each kind of cheating caught there (a missing card, a
 * wrong lock, a false dispute, a wrong hand secret), the odd chip of a
 * split pot, and its state bytes exactly as they always were (a store's
 * log replays to the same digests). Every command is checked for a
 * byte-exact rollback by hm_support.c.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "episodes/holdem/holdem.h"
#include "episodes/holdem/holdem_int.h"
#include "hm_support.h"

#define FOLD KD_HM_CMD_FOLD
#define CHECK KD_HM_CMD_CHECK
#define CALL KD_HM_CMD_CALL
#define RAISE KD_HM_CMD_RAISE

static const kd_hm_params V1 = {.timeout = 100, .protocol = 1};

/* The chained digest of holdem_v1/state_bytes_are_those_protocol_1_always_had
 * as the kdapp before protocol 2 (commit 826780f) computes it. */
#define GOLDEN_V1 "5dd431fe67c9b8db386ab78b91e4b4be4b09195b72b0a7cb20e7e409176cd17f"

static void ok(kd_err err, const kd_reject *rej) { cr_assert_eq(err, KD_OK, "%s: %s", rej->code, rej->detail); }

/* Deals hand `g` up to the preflop betting. */
static void to_preflop(hm_game *g)
{
    hm_duties(g);
    cr_assert_eq(g->state.phase, KD_HM_PLAY);
    cr_assert_eq(g->state.street, KD_HM_PREFLOP);
}

Test(holdem_v1, deal_then_check_from_the_hand_secrets)
{
    hm_game g;
    hm_new(&g, &V1);
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

Test(holdem_v1, showdown_then_check)
{
    hm_game g;
    hm_new(&g, &V1);
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

Test(holdem_v1, split_pot_odd_chip_goes_left_of_the_button)
{
    hm_game g;
    hm_new(&g, &V1);
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

/* A seat replaces a card by a point that is no card (a missing card):
 * nothing shows until the check, which finds it; the cheater loses the
 * pot and the match. */
Test(holdem_v1, missing_card_is_caught_at_the_check)
{
    hm_game g;
    hm_new(&g, &V1);
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
    if (pot)
        cr_expect_eq(g.state.last_won[1], pot, "the honest seat takes the whole pot");
    else
        cr_expect_gt(g.state.last_won[1], 0, "the honest seat takes the blinds' pot");
}

/* The same with pot_only: the cheater loses the pot and the match goes on. */
Test(holdem_v1, pot_only_keeps_the_match)
{
    kd_hm_params p = {.timeout = 100, .pot_only = 1, .protocol = 1};
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

Test(holdem_v1, false_dispute_loses)
{
    hm_game g;
    hm_new(&g, &V1);
    to_preflop(&g);
    kd_reject rej = {0};
    ok(hm_bet(&g, 1, KD_HM_CMD_DISPUTE, 0, &rej), &rej);
    hm_expect_rule(hm_bet(&g, 0, KD_HM_CMD_DISPUTE, 0, &rej), &rej, "nothing_to_dispute");
    hm_duties(&g);
    cr_expect_eq(g.state.phase, KD_HM_OVER);
    cr_expect_eq(g.state.cheats, 2u, "nothing was wrong: the disputer loses");
    cr_expect_eq(g.state.winner, 0);
}

Test(holdem_v1, wrong_hand_secret_loses)
{
    hm_game g;
    hm_new(&g, &V1);
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

/* ------------------------------------------------ protocol 1's bytes kept */

/* Executes command bytes through the ops table and folds the state's and
 * the undo record's encodings into `chain`. */
static void golden_exec(kd_hm_state *s, const kd_buf *cmd, const kd_key *signer, uint64_t *daa, kd_sha256_ctx *chain)
{
    uint8_t zero[KD_HASH_LEN] = {0};
    kd_block_meta meta = {.block_hash = zero, .tx_id = zero, .daa = (*daa)++, .episode_id = HM_EPISODE};
    kd_hm_undo undo;
    kd_reject rej = {0};
    cr_assert_eq(kd_hm_ops.execute(s, cmd->data, cmd->len, &signer->pub, &meta, &undo, &rej), KD_OK, "%s: %s", rej.code,
                 rej.detail);
    kd_buf b;
    kd_buf_init(&b);
    cr_assert_eq(kd_hm_state_encode(s, &b), KD_OK);
    cr_assert_eq(kd_hm_undo_encode(&undo, &b), KD_OK);
    kd_sha256_update(chain, b.data, b.len);
    kd_buf_fini(&b);
}

static void golden_duties(kd_hm_state *s, const kd_key key[2], uint8_t seed[2][KD_SECRET_SEED_LEN], uint64_t *daa,
                          kd_sha256_ctx *chain)
{
    uint32_t hand = s->hand;
    for (int paid = 1; paid && s->hand == hand;) {
        paid = 0;
        for (int seat = 0; seat < 2 && s->hand == hand; seat++) {
            kd_buf b;
            kd_buf_init(&b);
            if (kd_hm_duty(s, seat, seed[seat], &b) == KD_OK) {
                golden_exec(s, &b, &key[seat], daa, chain);
                paid = 1;
            }
            kd_buf_fini(&b);
        }
    }
}

static void golden_bet(kd_hm_state *s, const kd_key *key, kd_hm_kind kind, uint32_t to, uint64_t *daa,
                       kd_sha256_ctx *chain)
{
    kd_hm_command c;
    memset(&c, 0, sizeof c);
    c.kind = kind;
    c.to = to;
    kd_buf b;
    kd_buf_init(&b);
    cr_assert_eq(kd_hm_command_encode(&c, &b), KD_OK);
    golden_exec(s, &b, key, daa, chain);
    kd_buf_fini(&b);
}

/* Two hands of a match whose effective params carry no protocol (a log
 * from before protocol 2), with fixed keys and bindings: every state and
 * undo record encoded after every command, chained into one SHA-256,
 * equals what the kdapp before protocol 2 wrote (the constant was printed
 * by this same code built at commit 826780f). */
Test(holdem_v1, state_bytes_are_those_protocol_1_always_had)
{
    kd_key key[2];
    cr_assert_eq(kd_key_test("hm0", &key[0]), KD_OK);
    cr_assert_eq(kd_key_test("hm1", &key[1]), KD_OK);
    kd_hm_params p;
    memset(&p, 0, sizeof p);
    p.stack = 1000;
    p.small_blind = 5;
    p.big_blind = 10;
    p.timeout = 100;
    uint8_t seed[2][KD_SECRET_SEED_LEN];
    for (int s = 0; s < 2; s++) {
        memset(p.bindings[s], 0x10 + s, KD_SECRET_BINDING_LEN);
        kd_secret_seed(&key[s], KD_HM_TYPE_NAME, HM_EPISODE, s, p.bindings[s], seed[s]);
    }
    kd_buf params;
    kd_buf_init(&params);
    cr_assert_eq(kd_hm_params_encode(&p, &params), KD_OK);
    kd_participants parts = {.count = 2};
    parts.keys[0] = key[0].pub;
    parts.keys[1] = key[1].pub;
    uint8_t zero[KD_HASH_LEN] = {0};
    kd_block_meta meta = {.block_hash = zero, .tx_id = zero, .daa = 1000, .episode_id = HM_EPISODE};
    kd_hm_state *s = calloc(1, sizeof *s);
    kd_reject rej = {0};
    cr_assert_eq(kd_hm_ops.init(s, &parts, params.data, params.len, &meta, &rej), KD_OK, "%s", rej.detail);
    kd_buf_fini(&params);
    kd_sha256_ctx chain;
    cr_assert_eq(kd_sha256_init(&chain), KD_OK);
    uint64_t daa = 1001;
    golden_duties(s, key, seed, &daa, &chain); /* hand 1: seat 0 raises, seat 1 folds on the flop */
    golden_bet(s, &key[0], RAISE, 30, &daa, &chain);
    golden_bet(s, &key[1], CALL, 0, &daa, &chain);
    golden_duties(s, key, seed, &daa, &chain);
    golden_bet(s, &key[1], CHECK, 0, &daa, &chain);
    golden_bet(s, &key[0], RAISE, 20, &daa, &chain);
    golden_bet(s, &key[1], FOLD, 0, &daa, &chain);
    golden_duties(s, key, seed, &daa, &chain);
    cr_assert_eq(s->hand, 2u);
    golden_duties(s, key, seed, &daa, &chain); /* hand 2: checked down to the showdown */
    golden_bet(s, &key[1], CALL, 0, &daa, &chain);
    golden_bet(s, &key[0], CHECK, 0, &daa, &chain);
    for (int street = 1; street <= 3; street++) {
        golden_duties(s, key, seed, &daa, &chain);
        golden_bet(s, &key[0], CHECK, 0, &daa, &chain);
        golden_bet(s, &key[1], CHECK, 0, &daa, &chain);
    }
    golden_duties(s, key, seed, &daa, &chain);
    cr_assert_eq(s->hand, 3u);
    uint8_t digest[KD_HASH_LEN];
    char hex[2 * KD_HASH_LEN + 1];
    kd_sha256_final(&chain, digest);
    kd_sha256_fini(&chain);
    kd_hex_encode(digest, KD_HASH_LEN, hex);
    fprintf(stderr, "holdem_v1: %u commands, state and undo bytes chained: %s\n", s->move_count, hex);
    cr_expect_str_eq(hex, GOLDEN_V1);
    free(s);
}
