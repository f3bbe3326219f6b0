/*
 * holdem_type_test.c — hold'em's entry in the type table: identity,
 * params JSON and the seats' bindings, command JSON round trips, views
 * that never carry a hole card before the showdown, a seat's own cards in
 * its secret view only, legal and random commands, renderings, the bot's
 * equity, and a whole match played by duties and random legal bets.
 */
#define _GNU_SOURCE /* memmem */
#include <criterion/criterion.h>
#include <string.h>

#include "episodes/holdem/holdem.h"
#include "episodes/holdem/holdem_int.h"
#include "episodes/secrets.h"
#include "hm_support.h"
#include "type_support.h"

static const kd_episode_type *const T = &kd_holdem_type;

Test(hm_type, identity_and_registration)
{
    cr_expect_str_eq(T->ops->type_name, "holdem");
    cr_expect_eq(kd_episode_type_seat(T, "seat0"), 0);
    cr_expect_eq(kd_episode_type_seat(T, "seat1"), 1);
    cr_expect(T->secret_commit && T->secret_duty && T->secret_binding && T->secret_view && T->bot_command);
    cr_expect_eq(T->house_seats, 0u);
    kd_type_table table;
    kd_type_table_init(&table);
    cr_expect_eq(kd_type_table_find(&table, "holdem"), T);
    json_t *ps = type_test_parse(T->params_schema), *cs = type_test_parse(T->command_schema);
    cr_expect(json_object_get(json_object_get(cs, "properties"), "raise"));
    cr_expect(json_object_get(json_object_get(ps, "properties"), "binding_0"));
    json_decref(ps);
    json_decref(cs);
}

Test(hm_type, params_json_and_bindings)
{
    hm_game g;
    hm_new(&g, NULL);
    json_t *params = json_object();
    char why[300] = "";
    kd_buf out;
    kd_buf_init(&out);
    cr_expect_eq(T->params_from_json(params, &out, why, sizeof why), KD_ERR_BAD_PARAMS);
    cr_expect(strstr(why, "binding_0"), "%s", why);
    /* each seat sets its binding, and finds its seed again from the state */
    for (int s = 0; s < 2; s++)
        cr_assert_eq(kd_seat_commit(T, &g.key[s], HM_STORE_ID, HM_EPISODE, s, params, why, sizeof why), KD_OK);
    cr_expect_eq(kd_seat_commit(T, &g.key[0], HM_STORE_ID, HM_EPISODE, 2, params, why, sizeof why), KD_ERR_UNSUPPORTED);
    cr_assert_eq(T->params_from_json(params, &out, why, sizeof why), KD_OK, "%s", why);
    uint8_t seed[KD_SECRET_SEED_LEN];
    cr_assert_eq(kd_seat_seed(T, &g.key[0], HM_STORE_ID, HM_EPISODE, 0, &g.state, seed), KD_OK);
    cr_expect_arr_eq(seed, g.seed[0], KD_SECRET_SEED_LEN);
    cr_expect_eq(kd_seat_seed(T, &g.key[1], HM_STORE_ID, HM_EPISODE, 0, &g.state, seed), KD_ERR_NOT_FOUND);
    static const struct {
        const char *json;
        const char *word;
    } bad[] = {
        {"{\"stack\": -1}", "stack"},        {"{\"small_blind\": 20, \"big_blind\": 10}", "blinds"},
        {"{\"timeout\": 99}", "timeout"},    {"{\"pot_only\": 1}", "pot_only"},
        {"{\"ante\": 1}", "ante"},           {"{\"hand_limit\": 2000000}", "hand_limit"},
        {"{\"big_blind\": 5000}", "blinds"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *p = json_deep_copy(params), *extra = type_test_parse(bad[i].json);
        json_object_update(p, extra);
        out.len = 0;
        cr_expect_eq(T->params_from_json(p, &out, why, sizeof why), KD_ERR_BAD_PARAMS, "%s", bad[i].json);
        cr_expect(strstr(why, bad[i].word), "%s: %s", bad[i].json, why);
        json_decref(p);
        json_decref(extra);
    }
    json_decref(params);
    kd_buf_fini(&out);
}

static void round_trip(const kd_buf *bytes)
{
    json_t *j = T->command_to_json(bytes->data, bytes->len);
    cr_assert(j);
    kd_buf again;
    kd_buf_init(&again);
    char why[600];
    cr_assert_eq(T->command_from_json(j, KD_SEAT_NONE, &again, why, sizeof why), KD_OK, "%s", why);
    cr_expect(again.len == bytes->len && memcmp(again.data, bytes->data, again.len) == 0);
    json_decref(j);
    kd_buf_fini(&again);
}

Test(hm_type, command_json)
{
    hm_game g;
    hm_new(&g, NULL);
    kd_buf b;
    kd_buf_init(&b);
    /* every duty on the way to the betting, and every bet */
    for (int guard = 0; guard < 12 && g.state.phase != KD_HM_PLAY; guard++) {
        int s = kd_hm_to_move(&g.state);
        b.len = 0;
        cr_assert_eq(kd_hm_duty(&g.state, s, g.seed[s], &b), KD_OK);
        round_trip(&b);
        kd_reject rej;
        cr_assert_eq(hm_exec(&g, &b, &g.key[s].pub, &rej), KD_OK);
    }
    b.len = 0;
    cr_assert_eq(kd_hm_duty(&g.state, 0, g.seed[0], &b), KD_OK);
    round_trip(&b);
    static const char *const texts[] = {"{\"fold\": true}",
                                        "{\"check\": true}",
                                        "{\"call\": true}",
                                        "{\"raise\": 120}",
                                        "{\"claim\": true}",
                                        "{\"dispute\": true}",
                                        "{\"reveal\": \""
                                        "0000000000000000000000000000000000000000000000000000000000000001\"}"};
    char why[600];
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        json_t *j = type_test_parse(texts[i]);
        b.len = 0;
        cr_assert_eq(T->command_from_json(j, 0, &b, why, sizeof why), KD_OK, "%s: %s", texts[i], why);
        round_trip(&b);
        json_decref(j);
    }
    json_t *bet = type_test_parse("{\"bet\": 40}");
    b.len = 0;
    cr_expect_eq(T->command_from_json(bet, 0, &b, why, sizeof why), KD_OK, "bet is raise's other name");
    json_decref(bet);
    static const char *const bad[] = {"{\"fold\": false}",     "{\"raise\": \"x\"}",
                                      "{\"shuffle\": \"00\"}", "{\"keys\": {\"positions\": [0], \"keys\": []}}",
                                      "{\"go\": 1}",           "[]"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *j = type_test_parse(bad[i]);
        b.len = 0;
        cr_expect_eq(T->command_from_json(j, 0, &b, why, sizeof why), KD_ERR_BAD_COMMAND, "%s", bad[i]);
        cr_expect(strstr(why, "hold'em command"), "%s", why);
        json_decref(j);
    }
    kd_buf_fini(&b);
}

Test(hm_type, views_never_carry_a_hole_card_before_the_showdown)
{
    hm_game g;
    hm_new(&g, NULL);
    hm_duties(&g);
    kd_buf view;
    kd_buf_init(&view);
    type_test_view(T, &g.state, KD_SEAT_PUBLIC, &view);
    json_t *j = T->view_json(view.data, view.len);
    cr_assert(j);
    cr_expect(json_is_null(json_object_get(j, "shown")), "no hand is shown before the showdown");
    cr_expect_eq(json_array_size(json_object_get(j, "board")), 0);
    cr_expect_eq(json_integer_value(json_object_get(j, "pot")), 15);
    cr_expect_str_eq(json_string_value(json_object_get(j, "to_act")), "seat0");
    json_t *rules = json_object_get(j, "move_rules");
    cr_expect_eq(json_integer_value(json_object_get(rules, "min_raise_to")), 20);
    cr_expect_eq(json_integer_value(json_object_get(rules, "call")), 5);
    /* a seat's view is the public one: its cards come from its seed only */
    kd_buf seat_view;
    kd_buf_init(&seat_view);
    type_test_view(T, &g.state, 0, &seat_view);
    cr_expect(seat_view.len == view.len && memcmp(seat_view.data, view.data, view.len) == 0);
    uint8_t own[2];
    cr_assert_eq(kd_hm_own_cards(&g.state, 0, g.seed[0], own), 0);
    char a[3], b[3];
    kd_hm_card_name(own[0], a);
    kd_hm_card_name(own[1], b);
    json_t *mine = T->secret_view(&g.state, 0, g.seed[0]);
    cr_assert(mine);
    cr_expect_str_eq(json_string_value(json_array_get(json_object_get(mine, "hole"), 0)), a);
    cr_expect_str_eq(json_string_value(json_array_get(json_object_get(mine, "hole"), 1)), b);
    json_t *theirs = T->secret_view(&g.state, 0, g.seed[1]);
    cr_expect(json_is_null(json_object_get(theirs, "hole")), "another seat's seed opens nothing");
    char *text = json_dumps(j, 0);
    char quoted[8];
    snprintf(quoted, sizeof quoted, "\"%s\"", a);
    cr_expect(!strstr(text, quoted), "the public view names no hole card: %s", text);
    free(text);
    kd_buf txt;
    kd_buf_init(&txt);
    cr_assert_eq(T->render_text(view.data, view.len, 0, &txt), KD_OK);
    cr_expect(txt.len > 0 && memmem(txt.data, txt.len, "pot 15", 6), "%.*s", (int)txt.len, (const char *)txt.data);
    txt.len = 0;
    cr_assert_eq(T->prompt(view.data, view.len, HM_EPISODE, 0, &txt), KD_OK);
    cr_expect(memmem(txt.data, txt.len, "{\"raise\": N}", 12), "%.*s", (int)txt.len, (const char *)txt.data);
    json_t *sc = T->strategy_context(view.data, view.len);
    cr_expect(json_is_string(json_object_get(sc, "rule_text")));
    json_decref(sc);
    kd_buf_fini(&txt);
    json_decref(mine);
    json_decref(theirs);
    json_decref(j);
    kd_buf_fini(&seat_view);
    kd_buf_fini(&view);
}

Test(hm_type, a_match_by_duties_and_random_bets)
{
    kd_hm_params p = {.timeout = 100, .hand_limit = 6, .stack = 200};
    hm_game g;
    hm_new(&g, &p);
    uint64_t rng = 26;
    kd_legal_moves moves;
    kd_legal_moves_init(&moves);
    kd_buf cmd;
    kd_buf_init(&cmd);
    unsigned bets = 0, refused = 0;
    for (int step = 0; step < 2000 && g.state.phase != KD_HM_OVER; step++) {
        if (hm_duties(&g))
            continue;
        int seat = kd_hm_to_move(&g.state);
        cr_assert(seat == 0 || seat == 1);
        kd_legal_moves_clear(&moves);
        cr_assert_eq(T->legal_moves(&g.state, 1 - seat, &moves), KD_OK);
        cr_expect_eq(moves.count, 0, "the seat not to act has no move");
        kd_reject rej;
        for (int s = 0; s < 2; s++) {
            cmd.len = 0;
            cr_assert_eq(T->random_command(&g.state, s, 0, &rng, &cmd), KD_OK);
            cr_expect_eq(hm_exec(&g, &cmd, &g.key[s].pub, &rej), KD_ERR_RULE);
            cr_expect(type_test_is_rule_code(T, rej.code), "%s", rej.code);
            refused++;
        }
        cmd.len = 0;
        cr_assert_eq(T->random_command(&g.state, seat, 1, &rng, &cmd), KD_OK);
        cr_assert_eq(hm_exec(&g, &cmd, &g.key[seat].pub, &rej), KD_OK, "%s: %s", rej.code, rej.detail);
        bets++;
    }
    cr_expect_eq(g.state.phase, KD_HM_OVER, "six hands end the match");
    cr_expect_eq(g.state.stacks[0] + g.state.stacks[1], 400u, "no chip made or lost");
    cr_expect_gt(bets, 6u);
    cr_expect_gt(refused, 6u);
    cmd.len = 0;
    cr_expect_eq(T->random_command(&g.state, 0, 1, &rng, &cmd), KD_ERR_NO_MOVE);
    cr_expect_eq(T->secret_duty(&g.state, 0, g.seed[0], &cmd), KD_ERR_NO_MOVE);
    kd_legal_moves_fini(&moves);
    kd_buf_fini(&cmd);
}

Test(hm_type, the_bot_weighs_equity_against_pot_odds)
{
    uint64_t rng = 5;
    uint8_t board[KD_HM_BOARD] = {KD_HM_NO_CARD, KD_HM_NO_CARD, KD_HM_NO_CARD, KD_HM_NO_CARD, KD_HM_NO_CARD};
    uint8_t aces[2] = {(uint8_t)kd_hm_card_parse("As"), (uint8_t)kd_hm_card_parse("Ah")};
    uint8_t trash[2] = {(uint8_t)kd_hm_card_parse("7c"), (uint8_t)kd_hm_card_parse("2d")};
    double ea = kd_hm_equity(board, aces, 4000, &rng), et = kd_hm_equity(board, trash, 4000, &rng);
    cr_expect(ea > 0.80 && ea < 0.89, "aces against a random hand: about 0.85, got %.3f", ea);
    cr_expect(et > 0.28 && et < 0.40, "seven-deuce: about 0.35, got %.3f", et);
    hm_game g;
    hm_new(&g, NULL);
    hm_duties(&g);
    kd_buf cmd;
    kd_buf_init(&cmd);
    /* facing an all-in of 1000 for 5 more in a pot of 15... aces call, seven-deuce folds */
    kd_reject rej;
    cr_assert_eq(hm_bet(&g, 0, KD_HM_CMD_RAISE, 1000, &rej), KD_OK);
    cr_assert_eq(kd_hm_bot_decide(&g.state, 1, aces, 1, &cmd), KD_OK);
    kd_hm_command c;
    cr_assert_eq(kd_hm_command_decode(cmd.data, cmd.len, &c, &rej), KD_OK);
    cr_expect_eq(c.kind, KD_HM_CMD_CALL);
    cmd.len = 0;
    cr_assert_eq(kd_hm_bot_decide(&g.state, 1, trash, 1, &cmd), KD_OK);
    cr_assert_eq(kd_hm_command_decode(cmd.data, cmd.len, &c, &rej), KD_OK);
    cr_expect_eq(c.kind, KD_HM_CMD_FOLD);
    cmd.len = 0;
    json_t *own = json_pack("{s:[s,s]}", "hole", "7c", "2d");
    cr_assert_eq(T->bot_secret_command(&g.state, 1, own, 1, 7, &cmd), KD_OK);
    cr_assert_eq(kd_hm_command_decode(cmd.data, cmd.len, &c, &rej), KD_OK);
    cr_expect_eq(c.kind, KD_HM_CMD_FOLD, "the bot reads its cards from own_secret");
    json_decref(own);
    cmd.len = 0;
    cr_expect_eq(T->bot_secret_command(&g.state, 0, NULL, 1, 7, &cmd), KD_ERR_NO_MOVE, "seat 0 does not bet now");
    cr_expect_eq(T->bot_command(&g.state, 1, 7, &cmd), KD_OK, "the table's bot plays a legal bet");
    cr_expect_eq(hm_exec(&g, &cmd, &g.key[1].pub, &rej), KD_OK);
    kd_buf_fini(&cmd);
}
