/*
 * blackjack_type_test.c — blackjack's entry in the type table
 * (kd_blackjack_type): identity and registration, params and command JSON
 * and their refusals, status and the seat to move, the view and its
 * renderings (the prompt gives the exact command JSON), legal moves (each
 * executes; the house has none), random commands (legal ones execute,
 * illegal ones are refused by a rule of the type), the house's secret
 * (commit and duties), and whole games played by the bot and by random
 * players with the house paying its duties.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "bj_support.h"
#include "type_support.h"

static const kd_episode_type *const T = &kd_blackjack_type;

Test(bj_type, identity_and_registration)
{
    cr_expect_str_eq(T->ops->type_name, "blackjack");
    cr_expect_eq(T->min_seats, 2);
    cr_expect_eq(T->max_seats, 8);
    cr_expect_eq(kd_episode_type_seat(T, "house"), 0);
    cr_expect_eq(kd_episode_type_seat(T, "player1"), 1);
    cr_expect_eq(kd_episode_type_seat(T, "player7"), 7);
    kd_type_table table;
    kd_type_table_init(&table);
    cr_expect_eq(kd_type_table_find(&table, "blackjack"), T);
    json_t *cs = type_test_parse(T->command_schema), *ps = type_test_parse(T->params_schema);
    cr_expect(json_object_get(json_object_get(cs, "properties"), "entropy"), "the gateway fills \"entropy\"");
    cr_expect(json_object_get(json_object_get(ps, "properties"), "house_key"));
    cr_expect(!json_object_get(json_object_get(ps, "properties"), "chain_length"), "no chain any more");
    json_decref(cs);
    json_decref(ps);
    for (const kd_rule_code *r = T->rule_codes; r->code; r++)
        cr_expect_lt(strlen(r->code), KD_RULE_CODE_MAX);
}

Test(bj_type, params_json)
{
    kd_buf out;
    kd_buf_init(&out);
    char why[300] = "";
    cr_expect_eq(T->params_from_json(NULL, &out, why, sizeof why), KD_ERR_BAD_PARAMS);
    cr_expect(strstr(why, "house_key"), "%s", why);
    json_t *bad = type_test_parse("{\"house_key\": \"00\", \"house_binding\": \"00\", \"decks\": 2}");
    cr_expect_eq(T->params_from_json(bad, &out, why, sizeof why), KD_ERR_BAD_PARAMS);
    json_decref(bad);
    bad = type_test_parse("{\"sides\": 2}");
    cr_expect_eq(T->params_from_json(bad, &out, why, sizeof why), KD_ERR_BAD_PARAMS);
    cr_expect(strstr(why, "sides"), "%s", why);
    json_decref(bad);
    json_t *good =
        type_test_parse("{\"decks\": 9, \"house_key\": "
                        "\"0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798\", \"house_binding\": "
                        "\"0101010101010101010101010101010101010101010101010101010101010101\"}");
    cr_expect_eq(T->params_from_json(good, &out, why, sizeof why), KD_OK);
    kd_buf eff;
    kd_buf_init(&eff);
    kd_reject rej = {0};
    cr_expect_eq(T->ops->resolve_params(NULL, out.data, out.len, &eff, &rej), KD_ERR_BAD_PARAMS, "9 decks");
    cr_expect(strstr(rej.detail, "decks"), "%s", rej.detail);
    json_decref(good);
    kd_buf_fini(&eff);
    kd_buf_fini(&out);
}

static void roundtrip(const char *text)
{
    json_t *j = type_test_parse(text);
    kd_buf b;
    kd_buf_init(&b);
    char why[200] = "";
    cr_assert_eq(T->command_from_json(j, 1, &b, why, sizeof why), KD_OK, "%s: %s", text, why);
    json_t *back = T->command_to_json(b.data, b.len);
    cr_assert(back);
    type_test_expect_json(back, text);
    json_decref(back);
    json_decref(j);
    kd_buf_fini(&b);
}

Test(bj_type, command_json)
{
    static const char e[] = "abababababababababababababababababababababababababababababababab";
    char text[300];
    snprintf(text, sizeof text, "{\"action\": \"bet\", \"amount\": 25, \"entropy\": \"%s\"}", e);
    roundtrip(text);
    const char *acts[] = {"hit", "stand", "double", "split"};
    for (int i = 0; i < 4; i++) {
        snprintf(text, sizeof text, "{\"action\": \"%s\", \"entropy\": \"%s\"}", acts[i], e);
        roundtrip(text);
    }
    snprintf(text, sizeof text, "{\"action\": \"reveal\", \"proof\": \"%s%s%.34s\"}", e, e, e);
    roundtrip(text);
    roundtrip("{\"action\": \"claim\"}");
    const char *bad[] = {"{\"action\": \"hit\"}",
                         "{\"action\": \"surrender\"}",
                         "{\"action\": \"bet\", \"entropy\": "
                         "\"00\", \"amount\": 1}",
                         "{\"action\": \"reveal\", \"seat\": 1}",
                         "{\"action\": \"reveal\", \"proof\": \"abab\"}",
                         "[]"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *j = type_test_parse(bad[i]);
        kd_buf b;
        kd_buf_init(&b);
        char why[200] = "";
        cr_expect_eq(T->command_from_json(j, 1, &b, why, sizeof why), KD_ERR_BAD_COMMAND, "%s", bad[i]);
        cr_expect(why[0]);
        json_decref(j);
        kd_buf_fini(&b);
    }
    json_t *j = type_test_parse("{\"action\": \"hit\"}");
    kd_buf b;
    kd_buf_init(&b);
    char why[200] = "";
    cr_expect_eq(T->command_from_json(j, 1, &b, why, sizeof why), KD_ERR_BAD_COMMAND);
    cr_expect(strstr(why, "entropy"), "the refusal names the missing entropy: %s", why);
    json_decref(j);
    kd_buf_fini(&b);
}

Test(bj_type, status_view_and_renderings)
{
    bj_fix f;
    bj_setup(&f, 2, "{\"decks\": 1, \"rounds\": 1}");
    kd_game_status st = T->status(&f.state);
    cr_expect_eq(st.phase, KD_PHASE_IN_PROGRESS);
    cr_expect_eq(st.to_move, 1, "player1 bets first");
    kd_reject rej = {0};
    cr_assert_eq(bj_player(&f, 1, KD_BJ_CMD_BET, 10, &rej), KD_OK);
    cr_expect_eq(T->status(&f.state).to_move, 0, "the house owes the cards");
    bj_deal(&f, 1, bj_card('T'));
    bj_deal(&f, 1, bj_card('6'));
    bj_deal(&f, 1, bj_card('9'));
    cr_expect_eq(T->status(&f.state).to_move, 1);
    kd_buf v;
    kd_buf_init(&v);
    type_test_view(T, &f.state, KD_SEAT_PUBLIC, &v);
    json_t *j = T->view_json(v.data, v.len);
    cr_assert(j);
    json_t *p1 = json_array_get(json_object_get(j, "players"), 0);
    cr_expect_str_eq(json_string_value(json_object_get(p1, "await")), "player");
    json_t *hand = json_array_get(json_object_get(p1, "hands"), 0);
    type_test_expect_json(json_object_get(hand, "cards"), "[\"10C\", \"6C\"]");
    cr_expect_eq(json_integer_value(json_object_get(hand, "total")), 16);
    type_test_expect_json(json_object_get(json_object_get(p1, "dealer"), "cards"), "[\"9C\"]");
    cr_expect_eq(json_integer_value(json_object_get(json_object_get(j, "house"), "draws")), 3);
    cr_expect(json_is_null(json_object_get(json_object_get(j, "house"), "owed")), "nothing owed now");
    cr_expect_eq(json_integer_value(json_object_get(p1, "chips")), 990);
    json_decref(j);
    json_t *ctx = T->strategy_context(v.data, v.len);
    cr_expect(ctx && json_object_get(ctx, "rules"));
    type_test_expect_json(json_object_get(ctx, "basic_strategy"), "{\"player1\": \"hit\"}");
    json_decref(ctx);
    kd_buf text;
    kd_buf_init(&text);
    cr_assert_eq(T->render_text(v.data, v.len, 0, &text), KD_OK);
    cr_assert_eq(kd_buf_append(&text, (const uint8_t *)"", 1), KD_OK);
    cr_expect(strstr((char *)text.data, "hand 1 [10C 6C] 16"), "%s", text.data);
    cr_expect(strstr((char *)text.data, "dealer [9C] 9"), "%s", text.data);
    text.len = 0;
    cr_assert_eq(T->prompt(v.data, v.len, 7, 1, &text), KD_OK);
    cr_assert_eq(kd_buf_append(&text, (const uint8_t *)"", 1), KD_OK);
    cr_expect(strstr((char *)text.data, "{\"action\":\"hit\",\"entropy\":\""), "%s", text.data);
    cr_expect(strstr((char *)text.data, "{\"action\":\"double\""), "%s", text.data);
    cr_expect(!strstr((char *)text.data, "\"split\""), "no pair: no split");
    text.len = 0;
    cr_assert_eq(T->prompt(v.data, v.len, 7, 2, &text), KD_OK);
    cr_assert_eq(kd_buf_append(&text, (const uint8_t *)"", 1), KD_OK);
    cr_expect(strstr((char *)text.data, "bet 10") || strstr((char *)text.data, "\"bet\""), "%s", text.data);
    cr_expect_eq(T->prompt(v.data, v.len, 7, 3, &text), KD_ERR_INVALID_ARG);
    cr_expect_eq(T->view_json((const uint8_t *)"\x01", 1), NULL);
    kd_buf_fini(&text);
    kd_buf_fini(&v);
    bj_teardown(&f);
}

/* Every listed move of every seat executes. */
static void legal_moves_execute(bj_fix *f)
{
    for (int seat = 0; seat <= f->state.n_players; seat++) {
        kd_legal_moves moves;
        kd_legal_moves_init(&moves);
        cr_assert_eq(T->legal_moves(&f->state, seat, &moves), KD_OK);
        if (seat == 0)
            cr_expect_eq(moves.count, 0, "the house chooses nothing");
        for (size_t i = 0; i < moves.count; i++) {
            kd_bj_state keep;
            memcpy(&keep, &f->state, sizeof keep);
            kd_bj_command c;
            cr_assert_eq(kd_bj_command_decode(moves.moves[i].command, moves.moves[i].command_len, &c, NULL), KD_OK);
            kd_reject rej = {0};
            cr_expect_eq(bj_exec(f, &f->players[seat - 1], &c, &rej), KD_OK, "%s: %s", moves.moves[i].notation,
                         rej.detail);
            memcpy(&f->state, &keep, sizeof keep);
        }
        kd_legal_moves_fini(&moves);
    }
}

/* Plays a whole game: the seat to move plays `bot` or random, the house
 * pays its duty from its seed; illegal random commands are refused by a
 * rule of the type. Returns the commands applied. */
static int play_game(bj_fix *f, int bot, uint64_t seed)
{
    uint64_t rng = seed;
    int applied = 0;
    kd_buf cmd;
    kd_buf_init(&cmd);
    for (int guard = 0; guard < 5000; guard++) {
        kd_game_status st = T->status(&f->state);
        if (st.phase != KD_PHASE_IN_PROGRESS)
            break;
        cr_assert_geq(st.to_move, 0);
        legal_moves_execute(f);
        const kd_key *signer = st.to_move ? &f->players[st.to_move - 1] : &f->house;
        cmd.len = 0;
        kd_err err = T->random_command(&f->state, st.to_move, 0, &rng, &cmd);
        if (err == KD_OK) {
            kd_bj_command c;
            kd_reject rej = {0};
            cr_assert_eq(kd_bj_command_decode(cmd.data, cmd.len, &c, NULL), KD_OK);
            cr_expect_eq(bj_exec(f, signer, &c, &rej), KD_ERR_RULE, "an illegal random command is refused");
            cr_expect(type_test_is_rule_code(T, rej.code), "%s", rej.code);
        }
        cmd.len = 0;
        if (st.to_move == 0) {
            cr_assert_eq(T->random_command(&f->state, 0, 1, &rng, &cmd), KD_ERR_NO_MOVE);
            cr_assert_eq(T->secret_duty(&f->state, 0, f->seed, &cmd), KD_OK);
        } else if (bot) {
            cr_assert_eq(T->bot_command(&f->state, 1, 0, &cmd), KD_OK);
        } else {
            cr_assert_eq(T->random_command(&f->state, st.to_move, 1, &rng, &cmd), KD_OK);
        }
        kd_bj_command c;
        kd_reject rej = {0};
        cr_assert_eq(kd_bj_command_decode(cmd.data, cmd.len, &c, NULL), KD_OK);
        cr_assert_eq(bj_exec(f, signer, &c, &rej), KD_OK, "%s: %s", rej.code, rej.detail);
        applied++;
    }
    cr_expect_neq(T->status(&f->state).phase, KD_PHASE_IN_PROGRESS, "the game ends");
    cr_expect_eq(T->secret_duty(&f->state, 0, f->seed, &cmd), KD_ERR_NO_MOVE);
    kd_buf_fini(&cmd);
    return applied;
}

Test(bj_type, the_bot_plays_a_game_with_the_house_paying)
{
    bj_fix f;
    bj_setup(&f, 1, "{\"rounds\": 5}");
    cr_expect_gt(play_game(&f, 1, 1), 10);
    cr_expect_eq(f.state.players[0].rounds_played, 5);
    bj_teardown(&f);
}

Test(bj_type, random_players_at_a_table_of_three)
{
    bj_fix f;
    bj_setup(&f, 3, "{\"rounds\": 4, \"decks\": 1}");
    cr_expect_gt(play_game(&f, 0, 9), 30);
    for (int i = 0; i < 3; i++)
        cr_expect_eq(f.state.players[i].rounds_played, 4);
    bj_teardown(&f);
}

Test(bj_type, secrets)
{
    uint8_t seed[32], binding[KD_SECRET_BINDING_LEN];
    memset(seed, 5, sizeof seed);
    memset(binding, 6, sizeof binding);
    /* a caller's key and binding are replaced: the house commits itself */
    json_t *params = type_test_parse("{\"house_key\": \"02ab\", \"house_binding\": \"bogus\"}");
    char why[200] = "";
    cr_expect_eq(T->secret_commit(1, seed, binding, params, why, sizeof why), KD_ERR_UNSUPPORTED,
                 "a player keeps no secret");
    cr_assert_eq(T->secret_commit(0, seed, binding, params, why, sizeof why), KD_OK);
    kd_pubkey want;
    uint8_t got[KD_PUBKEY_LEN], got_binding[KD_SECRET_BINDING_LEN];
    cr_assert_eq(kd_fair_house_key(seed, &want), KD_OK);
    cr_assert_eq(kd_hex_decode(json_string_value(json_object_get(params, "house_key")), got, KD_PUBKEY_LEN), 0);
    cr_expect_arr_eq(got, want.bytes, KD_PUBKEY_LEN, "the key is the VRF key of the seed");
    cr_assert_eq(
        kd_hex_decode(json_string_value(json_object_get(params, "house_binding")), got_binding, KD_SECRET_BINDING_LEN),
        0);
    cr_expect_arr_eq(got_binding, binding, KD_SECRET_BINDING_LEN);
    kd_buf out;
    kd_buf_init(&out);
    json_object_set_new(params, "timeout", json_integer(KD_DEADLINE_MIN - 1));
    cr_expect_eq(T->params_from_json(params, &out, why, sizeof why), KD_OK, "the JSON passes the form...");
    kd_buf eff;
    kd_buf_init(&eff);
    kd_reject rej = {0};
    cr_expect_eq(kd_bj_ops.resolve_params(NULL, out.data, out.len, &eff, &rej), KD_ERR_BAD_PARAMS,
                 "...and the rules refuse a timeout under the floor");
    cr_expect(strstr(rej.detail, "100"), "%s", rej.detail);
    kd_buf_fini(&eff);
    kd_buf_fini(&out);
    json_t *schema = type_test_parse(T->params_schema);
    cr_expect_eq(json_integer_value(
                     json_object_get(json_object_get(json_object_get(schema, "properties"), "timeout"), "minimum")),
                 KD_DEADLINE_MIN);
    json_decref(schema);
    json_decref(params);
    cr_expect_eq(T->house_seats, 1u << KD_BJ_HOUSE, "the dealer serves all comers");
    /* a duty from another seed is a proof the rules refuse */
    bj_fix f;
    bj_setup(&f, 1, NULL);
    cr_assert_eq(bj_player(&f, 1, KD_BJ_CMD_BET, 10, &rej), KD_OK);
    kd_buf cmd;
    kd_buf_init(&cmd);
    cr_assert_eq(T->secret_duty(&f.state, 0, seed, &cmd), KD_OK);
    kd_bj_command c;
    cr_assert_eq(kd_bj_command_decode(cmd.data, cmd.len, &c, NULL), KD_OK);
    cr_expect_eq(bj_exec(&f, &f.house, &c, &rej), KD_ERR_RULE);
    cr_expect_str_eq(rej.code, "bad_proof");
    cmd.len = 0;
    cr_expect_eq(T->secret_duty(&f.state, 1, f.seed, &cmd), KD_ERR_NO_MOVE, "players owe nothing");
    cr_assert_eq(T->secret_duty(&f.state, 0, f.seed, &cmd), KD_OK);
    json_t *j = T->command_to_json(cmd.data, cmd.len);
    cr_expect_str_eq(json_string_value(json_object_get(j, "action")), "reveal");
    cr_expect(json_object_get(j, "proof") && !json_object_get(j, "seat"), "the reveal names no seat");
    json_decref(j);
    kd_legal_moves moves;
    kd_legal_moves_init(&moves);
    cr_assert_eq(T->legal_moves(&f.state, 1, &moves), KD_OK);
    cr_expect_eq(moves.count, 0, "waiting for the house: nothing to choose");
    kd_legal_moves_fini(&moves);
    kd_buf_fini(&cmd);
    bj_teardown(&f);
}
