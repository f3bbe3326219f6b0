/*
 * fourinarow_type_test.c — four-in-a-row's entry in the type table
 * (kd_fourinarow_type, episodes/fourinarow/fourinarow_type.c): identity and
 * registration, JSON round trips for params and commands and their
 * refusals, status, the view bytes and every rendering made from them,
 * legal moves (each executes, nothing else does), random commands (legal
 * ones execute, illegal ones are refused by a rule of the type), and the
 * bot (takes an immediate win, blocks an immediate loss).
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "episodes/episode_type.h"
#include "type_support.h"
#include "episodes/fiar_support.h"
#include "episodes/fourinarow/fourinarow.h"

static const kd_episode_type *const T = &kd_fourinarow_type;

/* ------------------------------------------------------------ identity */

Test(fiar_type, identity_seats_and_registration)
{
    cr_expect_str_eq(T->ops->type_name, "fourinarow");
    cr_expect_eq(T->ops, &kd_fiar_ops);
    cr_expect_str_eq(T->title, "Four-in-a-row");
    cr_expect(T->summary && strstr(T->summary, "red"));
    cr_expect_eq(T->min_seats, 2);
    cr_expect_eq(T->max_seats, 2);
    cr_expect_eq(kd_episode_type_seat(T, "red"), KD_FIAR_RED);
    cr_expect_eq(kd_episode_type_seat(T, "yellow"), KD_FIAR_YELLOW);
    cr_expect_eq(kd_episode_type_seat(T, "X"), KD_SEAT_NONE);
    cr_expect_eq(T->config_from_env, NULL, "nothing to configure");
    /* built in, after tic-tac-toe (which stays the default) */
    kd_type_table table;
    kd_type_table_init(&table);
    cr_expect_eq(kd_type_table_find(&table, "fourinarow"), T);
    cr_expect_str_eq(kd_builtin_types[0]->ops->type_name, "tictactoe");
    json_t *ps = type_test_parse(T->params_schema), *cs = type_test_parse(T->command_schema);
    cr_expect(json_object_get(json_object_get(cs, "properties"), "column"));
    json_decref(ps);
    json_decref(cs);
}

/* ---------------------------------------------------------- JSON ⇄ bytes */

Test(fiar_type, params_json)
{
    kd_buf out;
    kd_buf_init(&out);
    char why[160] = "";
    cr_expect_eq(T->params_from_json(NULL, &out, why, sizeof why), KD_OK);
    json_t *empty = json_object();
    cr_expect_eq(T->params_from_json(empty, &out, why, sizeof why), KD_OK);
    cr_expect_eq(out.len, 0, "no params: zero bytes");
    json_t *bad = type_test_parse("{\"rows\": 7}");
    cr_expect_eq(T->params_from_json(bad, &out, why, sizeof why), KD_ERR_BAD_PARAMS);
    cr_expect(strstr(why, "no params"), "%s", why);
    json_decref(empty);
    json_decref(bad);
    kd_buf_fini(&out);
}

Test(fiar_type, command_json_round_trips_and_refusals)
{
    kd_buf bytes, again;
    kd_buf_init(&bytes);
    kd_buf_init(&again);
    char why[160];
    static const unsigned cols[] = {0, 1, 2, 3, 4, 5, 6, 7, 300, 4294967295u};
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++) {
        char text[64];
        snprintf(text, sizeof text, "{\"column\": %u}", cols[i]);
        json_t *j = type_test_parse(text);
        bytes.len = 0;
        cr_assert_eq(T->command_from_json(j, KD_SEAT_NONE, &bytes, why, sizeof why), KD_OK, "%s", text);
        uint32_t col = 99;
        cr_assert_eq(kd_fiar_command_decode(bytes.data, bytes.len, &col, NULL), KD_OK);
        cr_expect_eq(col, cols[i]);
        json_t *back = T->command_to_json(bytes.data, bytes.len);
        type_test_expect_json(back, text);
        again.len = 0;
        cr_assert_eq(T->command_from_json(back, 0, &again, why, sizeof why), KD_OK);
        cr_expect(again.len == bytes.len && memcmp(again.data, bytes.data, bytes.len) == 0, "bytes round trip");
        json_decref(j);
        json_decref(back);
    }
    static const char *const bad[] = {
        "{}", "[]", "3", "{\"column\": -1}", "{\"column\": \"3\"}", "{\"column\": 1.5}", "{\"column\": 4294967296}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *j = type_test_parse(bad[i]);
        why[0] = '\0';
        cr_expect_eq(T->command_from_json(j, 0, &bytes, why, sizeof why), KD_ERR_BAD_COMMAND, "%s", bad[i]);
        cr_expect(strstr(why, "column"), "a sentence: %s", why);
        json_decref(j);
    }
    static const uint8_t garbage[] = {0xff, 0x01};
    cr_expect_null(T->command_to_json(garbage, sizeof garbage));
    cr_expect_null(T->command_to_json(NULL, 0));
    kd_buf_fini(&bytes);
    kd_buf_fini(&again);
}

/* ----------------------------------------------------- status and views */

Test(fiar_type, status_view_json_and_strategy_context)
{
    kd_fiar_state s;
    fiar_new_game(&s);
    kd_game_status st = T->status(&s);
    cr_expect_eq(st.phase, KD_PHASE_IN_PROGRESS);
    cr_expect_eq(st.to_move, KD_FIAR_RED);
    FIAR_PLAY(&s, 3, 3, 4, 2, 2, 2, 2, 2, 2);
    st = T->status(&s);
    cr_expect_eq(st.to_move, KD_FIAR_YELLOW);
    cr_expect_eq(st.winner, KD_SEAT_NONE);
    kd_buf v;
    kd_buf_init(&v);
    type_test_view(T, &s, KD_SEAT_PUBLIC, &v);
    json_t *view = T->view_json(v.data, v.len);
    type_test_expect_json(
        view, "{\"board\": [[0,0,1,0,0,0,0],[0,0,2,0,0,0,0],[0,0,1,0,0,0,0],[0,0,2,0,0,0,0],"
              "[0,0,1,2,0,0,0],[0,0,2,1,1,0,0]], \"board_rows\": \"top_to_bottom\", \"current\": \"yellow\","
              " \"status\": \"in_progress\", \"move_count\": 9, \"last_column\": 2}");
    json_decref(view);
    json_t *ctx = T->strategy_context(v.data, v.len);
    cr_assert_not_null(ctx);
    type_test_expect_json(json_object_get(ctx, "legal_columns"), "[0, 1, 3, 4, 5, 6]");
    cr_expect_str_eq(json_string_value(json_object_get(ctx, "to_move")), "yellow");
    cr_expect_str_eq(json_string_value(json_object_get(ctx, "game")), "fourinarow");
    cr_expect(json_is_null(json_object_get(ctx, "winner")) || !json_object_get(ctx, "winner"));
    json_decref(ctx);

    fiar_new_game(&s);
    type_test_view(T, &s, KD_SEAT_PUBLIC, &v);
    json_t *j = T->view_json(v.data, v.len);
    cr_expect(json_is_null(json_object_get(j, "last_column")));
    cr_expect_str_eq(json_string_value(json_object_get(j, "current")), "red");
    json_decref(j);
    FIAR_PLAY(&s, 6, 0, 1, 0, 1, 0, 1, 0);
    type_test_view(T, &s, KD_SEAT_PUBLIC, &v);
    ctx = T->strategy_context(v.data, v.len);
    type_test_expect_json(json_object_get(ctx, "legal_columns"), "[]");
    cr_expect_str_eq(json_string_value(json_object_get(ctx, "winner")), "yellow");
    cr_expect_str_eq(json_string_value(json_object_get(ctx, "status")), "yellow_won");
    json_decref(ctx);

    static const uint8_t garbage[] = {0x0a, 0x02, 0x01};
    cr_expect_null(T->view_json(garbage, sizeof garbage));
    cr_expect_null(T->strategy_context(garbage, sizeof garbage));
    cr_expect_null(T->view_json(NULL, 0));
    kd_buf_fini(&v);
}

Test(fiar_type, text_board_and_prompt)
{
    kd_fiar_state s;
    fiar_new_game(&s);
    FIAR_PLAY(&s, 3, 3, 4);
    kd_buf v, out;
    kd_buf_init(&v);
    kd_buf_init(&out);
    type_test_view(T, &s, KD_SEAT_PUBLIC, &v);
    cr_assert_eq(T->render_text(v.data, v.len, 0, &out), KD_OK);
    cr_assert_eq(kd_buf_append(&out, "", 1), KD_OK);
    const char *text = (const char *)out.data;
    cr_expect(strstr(text, " 0 1 2 3 4 5 6\n"), "%s", text);
    cr_expect(strstr(text, "|. . . Y . . .|\n|. . . R R . .|\n+-------------+\n"), "%s", text);
    cr_expect(strstr(text, "yellow (Y) to move (move 4)"), "%s", text);

    out.len = 0;
    cr_assert_eq(T->prompt(v.data, v.len, 42, KD_FIAR_YELLOW, &out), KD_OK);
    cr_assert_eq(kd_buf_append(&out, "", 1), KD_OK);
    text = (const char *)out.data;
    cr_expect(strstr(text, "episode 42 as yellow"), "%s", text);
    cr_expect(strstr(text, "Legal columns: 0 1 2 3 4 5 6\n"), "%s", text);
    cr_expect(strstr(text, "{\"column\": C}"), "%s", text);
    cr_expect(strstr(text, "four"), "the rules: %s", text);
    out.len = 0;
    cr_assert_eq(T->prompt(v.data, v.len, 42, KD_FIAR_RED, &out), KD_OK);
    cr_assert_eq(kd_buf_append(&out, "", 1), KD_OK);
    cr_expect(strstr((const char *)out.data, "It is not your move."));
    cr_expect_eq(T->prompt(v.data, v.len, 42, 2, &out), KD_ERR_INVALID_ARG);
    static const uint8_t garbage[] = {0xff};
    cr_expect_eq(T->prompt(garbage, 1, 42, 0, &out), KD_ERR_DECODE);
    cr_expect_eq(T->render_text(garbage, 1, 0, &out), KD_ERR_DECODE);

    FIAR_PLAY(&s, 3, 0, 3, 0, 3); /* yellow: four up column 3 */
    cr_assert_eq(s.status, KD_FIAR_YELLOW_WON);
    type_test_view(T, &s, KD_SEAT_PUBLIC, &v);
    out.len = 0;
    cr_assert_eq(T->render_text(v.data, v.len, 0, &out), KD_OK);
    cr_assert_eq(kd_buf_append(&out, "", 1), KD_OK);
    cr_expect(strstr((const char *)out.data, "yellow won"), "%s", (const char *)out.data);
    kd_buf_fini(&v);
    kd_buf_fini(&out);
}

/* ---------------------------------------------------------------- moves */

/* A random position `plies` moves from the start (fewer when it ends). */
static void random_position(kd_fiar_state *s, unsigned plies, uint64_t *rng)
{
    fiar_new_game(s);
    kd_buf cmd;
    kd_buf_init(&cmd);
    for (unsigned i = 0; i < plies && s->status == KD_FIAR_IN_PROGRESS; i++) {
        cmd.len = 0;
        cr_assert_eq(T->random_command(s, s->turn, 1, rng, &cmd), KD_OK);
        kd_fiar_undo undo;
        kd_reject rej = {{0}, {0}};
        cr_assert_eq(kd_fiar_ops.execute(s, cmd.data, cmd.len, &s->players[s->turn], NULL, &undo, &rej), KD_OK,
                     "a random legal command: %s", rej.detail);
    }
    kd_buf_fini(&cmd);
}

Test(fiar_type, legal_moves_execute_and_nothing_else_does)
{
    uint64_t rng = 11;
    for (int round = 0; round < 300; round++) {
        kd_fiar_state s;
        random_position(&s, kd_type_rng_below(&rng, 43), &rng);
        kd_legal_moves moves;
        kd_legal_moves_init(&moves);
        cr_assert_eq(T->legal_moves(&s, 1 - s.turn, &moves), KD_OK);
        cr_expect_eq(moves.count, 0, "the seat not to move has none");
        cr_assert_eq(T->legal_moves(&s, s.turn, &moves), KD_OK);
        int listed[KD_FIAR_COLS] = {0};
        for (size_t i = 0; i < moves.count; i++) {
            uint32_t col = 99;
            cr_assert_eq(kd_fiar_command_decode(moves.moves[i].command, moves.moves[i].command_len, &col, NULL), KD_OK);
            cr_assert_lt(col, KD_FIAR_COLS);
            char want[4];
            snprintf(want, sizeof want, "%u", (unsigned)col);
            cr_expect_str_eq(moves.moves[i].notation, want);
            listed[col] = 1;
        }
        for (uint32_t col = 0; col < KD_FIAR_COLS; col++) {
            kd_fiar_state t = s;
            kd_fiar_undo undo;
            kd_reject rej = {{0}, {0}};
            kd_err err = fiar_exec(&t, col, &t.players[t.turn], &undo, &rej);
            cr_expect_eq(err == KD_OK, listed[col], "column %u: listed %d, execute %s (%s)", (unsigned)col, listed[col],
                         kd_err_code(err), rej.code);
        }
        if (s.status != KD_FIAR_IN_PROGRESS)
            cr_expect_eq(moves.count, 0, "a finished game has none");
        kd_legal_moves_fini(&moves);
    }
}

Test(fiar_type, random_commands_legal_and_illegal)
{
    uint64_t rng = 5;
    int full_seen = 0, codes_seen[5] = {0};
    kd_buf cmd;
    kd_buf_init(&cmd);
    for (int round = 0; round < 400; round++) {
        kd_fiar_state s;
        random_position(&s, 10 + kd_type_rng_below(&rng, 33), &rng);
        for (int seat = 0; seat < 2; seat++) {
            cmd.len = 0;
            kd_err err = T->random_command(&s, seat, 1, &rng, &cmd);
            if (s.status != KD_FIAR_IN_PROGRESS || seat != s.turn) {
                cr_expect_eq(err, KD_ERR_NO_MOVE);
            } else {
                cr_assert_eq(err, KD_OK);
                kd_fiar_state t = s;
                kd_fiar_undo undo;
                kd_reject rej = {{0}, {0}};
                cr_expect_eq(kd_fiar_ops.execute(&t, cmd.data, cmd.len, &t.players[seat], NULL, &undo, &rej), KD_OK);
            }
            cmd.len = 0;
            cr_assert_eq(T->random_command(&s, seat, 0, &rng, &cmd), KD_OK);
            kd_fiar_state t = s;
            kd_fiar_undo undo;
            kd_reject rej = {{0}, {0}};
            cr_assert_eq(kd_fiar_ops.execute(&t, cmd.data, cmd.len, &t.players[seat], NULL, &undo, &rej), KD_ERR_RULE,
                         "an illegal command is refused by a rule");
            cr_expect(type_test_is_rule_code(T, rej.code), "%s", rej.code);
            cr_expect_eq(memcmp(&t, &s, sizeof s), 0);
            full_seen += strcmp(rej.code, "column_full") == 0;
            for (size_t i = 0; i < 5; i++)
                codes_seen[i] += strcmp(rej.code, T->rule_codes[i].code) == 0;
        }
    }
    cr_expect_gt(full_seen, 0, "a full column is offered");
    cr_expect_gt(codes_seen[0], 0, "game_over");
    cr_expect_gt(codes_seen[2], 0, "not_your_turn");
    cr_expect_gt(codes_seen[3], 0, "out_of_bounds");
    kd_buf_fini(&cmd);
}

/* ------------------------------------------------------------------ bot */

static uint32_t bot_column(const kd_fiar_state *s, unsigned depth, uint64_t tiebreak)
{
    kd_buf cmd;
    kd_buf_init(&cmd);
    cr_assert_eq(T->bot_command(s, depth, tiebreak, &cmd), KD_OK);
    uint32_t col = 99;
    cr_assert_eq(kd_fiar_command_decode(cmd.data, cmd.len, &col, NULL), KD_OK);
    kd_buf_fini(&cmd);
    return col;
}

Test(fiar_type, the_bot_wins_at_once_and_blocks_a_loss)
{
    kd_fiar_state s;
    fiar_new_game(&s);
    FIAR_PLAY(&s, 0, 1, 0, 1, 0, 1); /* both have three up; red to move */
    for (unsigned d = 0; d <= 8; d++)
        for (uint64_t tb = 0; tb < 3; tb++)
            cr_expect_eq(bot_column(&s, d, tb), 0, "red wins in column 0 (depth %u)", d);
    fiar_new_game(&s);
    FIAR_PLAY(&s, 0, 1, 6, 1, 6, 1); /* yellow threatens column 1 */
    for (unsigned d = 2; d <= 7; d++)
        for (uint64_t tb = 0; tb < 3; tb++)
            cr_expect_eq(bot_column(&s, d, tb), 1, "red blocks column 1 (depth %u)", d);
    fiar_new_game(&s);
    FIAR_PLAY(&s, 0, 0, 1, 1, 2, 2); /* red takes 3 for the row, not a block */
    cr_expect_eq(bot_column(&s, 4, 0), 3);
    FIAR_PLAY(&s, 3);
    kd_buf cmd;
    kd_buf_init(&cmd);
    cr_expect_eq(T->bot_command(&s, 4, 0, &cmd), KD_ERR_NO_MOVE, "the game is over");
    kd_buf_fini(&cmd);
    /* from random positions its move is legal */
    uint64_t rng = 3;
    for (int round = 0; round < 40; round++) {
        random_position(&s, kd_type_rng_below(&rng, 30), &rng);
        if (s.status != KD_FIAR_IN_PROGRESS)
            continue;
        uint32_t col = bot_column(&s, 4, round);
        cr_assert_lt(col, KD_FIAR_COLS);
        cr_expect_lt(s.heights[col], KD_FIAR_ROWS);
    }
}
