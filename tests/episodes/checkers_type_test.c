/*
 * checkers_type_test.c — checkers' entry in the type table
 * (kd_checkers_type, episodes/checkers/checkers_type.c and checkers_view.c):
 * identity and registration, JSON round trips for params and commands and
 * their refusals, status, the view bytes and every rendering made from
 * them (the state text, the move rules, the strategy context, the text
 * board in ASCII and Unicode, the prompt), legal moves (each executes,
 * nothing else does), random commands (legal ones execute, illegal ones
 * are refused by a rule of the type, every kind offered), and the bot
 * (captures when it must, takes a winning capture, answers within budget).
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "episodes/checkers/checkers.h"
#include "episodes/ck_support.h"
#include "episodes/episode_type.h"
#include "type_support.h"

static const kd_episode_type *const T = &kd_checkers_type;

/* ------------------------------------------------------------ identity */

Test(ck_type, identity_seats_and_registration)
{
    cr_expect_str_eq(T->ops->type_name, "checkers");
    cr_expect_eq(T->ops, &kd_ck_ops);
    cr_expect_str_eq(T->title, "Checkers");
    cr_expect(T->summary && strstr(T->summary, "white"));
    cr_expect_eq(T->min_seats, 2);
    cr_expect_eq(T->max_seats, 2);
    cr_expect_eq(kd_episode_type_seat(T, "white"), KD_CK_WHITE);
    cr_expect_eq(kd_episode_type_seat(T, "black"), KD_CK_BLACK);
    cr_expect_eq(kd_episode_type_seat(T, "red"), KD_SEAT_NONE);
    cr_expect_eq(T->config_from_env, NULL, "nothing to configure");
    kd_type_table table;
    kd_type_table_init(&table);
    cr_expect_eq(kd_type_table_find(&table, "checkers"), T);
    cr_expect_str_eq(kd_builtin_types[0]->ops->type_name, "tictactoe");
    json_t *ps = type_test_parse(T->params_schema), *cs = type_test_parse(T->command_schema);
    cr_expect(json_object_get(json_object_get(cs, "properties"), "move"));
    cr_expect(json_object_get(json_object_get(ps, "properties"), "start"));
    json_decref(ps);
    json_decref(cs);
}

/* ---------------------------------------------------------- JSON ⇄ bytes */

Test(ck_type, params_json)
{
    kd_buf out, eff;
    kd_buf_init(&out);
    kd_buf_init(&eff);
    char why[200] = "";
    cr_expect_eq(T->params_from_json(NULL, &out, why, sizeof why), KD_OK);
    json_t *empty = json_object();
    cr_expect_eq(T->params_from_json(empty, &out, why, sizeof why), KD_OK);
    cr_expect_eq(out.len, 0, "the standard start: zero bytes");
    json_t *start =
        json_pack("{s:s}", "start", "......../......../.w....../......../...W..../......../.......b/........ b");
    cr_assert_eq(T->params_from_json(start, &out, why, sizeof why), KD_OK, "%s", why);
    cr_expect_gt(out.len, 0);
    kd_reject rej = {{0}, {0}};
    cr_assert_eq(kd_ck_ops.resolve_params(NULL, out.data, out.len, &eff, &rej), KD_OK, "%s", rej.detail);
    ck_keys k;
    ck_keys_make(&k);
    kd_ck_state s;
    cr_assert_eq(kd_ck_ops.init(&s, &k.parts, eff.data, eff.len, NULL, &rej), KD_OK);
    cr_expect_eq(s.turn, KD_CK_BLACK, "the start's turn");
    cr_expect_eq(s.board[3 * 8 + 3], KD_CK_WHITE_KING);
    static const char *const bad[] = {"{\"cap\": 3}", "{\"start\": 3}", "{\"start\": \"w\"}", "[]",
                                      "{\"start\": \"......../......../......../......../......../......../"
                                      "......../........ w\"}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *j = type_test_parse(bad[i]);
        why[0] = '\0';
        cr_expect_eq(T->params_from_json(j, &out, why, sizeof why), KD_ERR_BAD_PARAMS, "%s", bad[i]);
        cr_expect(why[0], "a sentence for %s", bad[i]);
        json_decref(j);
    }
    json_decref(empty);
    json_decref(start);
    kd_buf_fini(&out);
    kd_buf_fini(&eff);
}

Test(ck_type, command_json_round_trips_and_refusals)
{
    kd_buf bytes, again;
    kd_buf_init(&bytes);
    kd_buf_init(&again);
    char why[200];
    static const char *const moves[] = {"b6a5", "b6d4f2", "a1h8", "c3e5g3e1c3", "h8g7"};
    for (size_t i = 0; i < sizeof moves / sizeof moves[0]; i++) {
        json_t *j = json_pack("{s:s}", "move", moves[i]);
        bytes.len = 0;
        cr_assert_eq(T->command_from_json(j, KD_SEAT_NONE, &bytes, why, sizeof why), KD_OK, "%s", moves[i]);
        json_t *back = T->command_to_json(bytes.data, bytes.len);
        cr_assert_not_null(back);
        cr_expect_str_eq(json_string_value(json_object_get(back, "move")), moves[i]);
        again.len = 0;
        cr_assert_eq(T->command_from_json(back, 0, &again, why, sizeof why), KD_OK);
        cr_expect(again.len == bytes.len && memcmp(again.data, bytes.data, bytes.len) == 0, "bytes round trip");
        json_decref(j);
        json_decref(back);
    }
    /* the squares a1 = 0 .. h8 = 63 */
    json_t *j = type_test_parse("{\"move\": \"B6-a5\", \"episode\": 3}");
    bytes.len = 0;
    cr_assert_eq(T->command_from_json(j, 0, &bytes, why, sizeof why), KD_OK);
    kd_ck_command cmd;
    cr_assert_eq(kd_ck_command_decode(bytes.data, bytes.len, &cmd, NULL), KD_OK);
    cr_expect_eq(cmd.count, 2);
    cr_expect_eq(cmd.squares[0], 41);
    cr_expect_eq(cmd.squares[1], 32);
    json_decref(j);
    static const char *const bad[] = {"{}",
                                      "[]",
                                      "\"b6a5\"",
                                      "{\"move\": 41}",
                                      "{\"move\": \"b6\"}",
                                      "{\"move\": \"b6a6\"}",
                                      "{\"move\": \"z6a5\"}",
                                      "{\"column\": 3}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *b = type_test_parse(bad[i]);
        why[0] = '\0';
        cr_expect_eq(T->command_from_json(b, 0, &bytes, why, sizeof why), KD_ERR_BAD_COMMAND, "%s", bad[i]);
        cr_expect(why[0], "a sentence: %s", bad[i]);
        json_decref(b);
    }
    static const uint8_t garbage[] = {0xff, 0x01};
    cr_expect_null(T->command_to_json(garbage, sizeof garbage));
    cr_expect_null(T->command_to_json(NULL, 0));
    static const uint32_t off[] = {41, 64};
    uint8_t packed[KD_CK_COMMAND_MAX];
    size_t len = kd_ck_command_pack(off, 2, packed);
    cr_expect_null(T->command_to_json(packed, len), "no notation names square 64");
    kd_buf_fini(&bytes);
    kd_buf_fini(&again);
}

/* ----------------------------------------------------- status and views */

Test(ck_type, view_json_carries_the_state_text_and_the_move_rules)
{
    kd_ck_state s;
    ck_new_game(&s);
    kd_game_status st = T->status(&s);
    cr_expect_eq(st.phase, KD_PHASE_IN_PROGRESS);
    cr_expect_eq(st.to_move, KD_CK_WHITE);
    kd_buf v;
    kd_buf_init(&v);
    type_test_view(T, &s, KD_SEAT_PUBLIC, &v);
    json_t *start_view = T->view_json(v.data, v.len);
    type_test_expect_json(
        start_view, "{\"state_text\": \"" CK_START_TEXT "\", \"board\": [\".w.w.w.w\", \"w.w.w.w.\", \".w.w.w.w\", "
                    "\"........\", \"........\", \"b.b.b.b.\", \".b.b.b.b\", \"b.b.b.b.\"], \"board_rows\": "
                    "\"rank8_to_rank1\", \"turn\": \"w\", \"current\": \"white\", \"status\": \"in_progress\", "
                    "\"move_count\": 0, \"pieces\": {\"white_men\": 12, \"white_kings\": 0, \"black_men\": 12, "
                    "\"black_kings\": 0}, \"draw_counter\": 0, \"draw_at\": 80, \"last_move\": null, \"move_rules\": "
                    "{\"must_capture\": false, \"forced_captures\": []}}");
    json_decref(start_view);
    CK_PLAY(&s, "b6a5", "c3b4");
    type_test_view(T, &s, KD_SEAT_PUBLIC, &v);
    json_t *j = T->view_json(v.data, v.len);
    type_test_expect_json(json_object_get(j, "move_rules"),
                          "{\"must_capture\": true, \"forced_captures\": [\"a5c3\"]}");
    cr_expect_str_eq(json_string_value(json_object_get(j, "last_move")), "c3b4");
    cr_expect_eq(json_integer_value(json_object_get(j, "move_count")), 2);
    json_decref(j);

    json_t *ctx = T->strategy_context(v.data, v.len);
    cr_assert_not_null(ctx);
    cr_expect_str_eq(json_string_value(json_object_get(ctx, "game")), "checkers");
    cr_expect_str_eq(json_string_value(json_object_get(ctx, "to_move")), "white");
    cr_expect_str_eq(json_string_value(json_object_get(ctx, "state_text")),
                     ".w.w.w.w/w.w.w.w./...w.w.w/w......./.b....../b...b.b./.b.b.b.b/b.b.b.b. w");
    type_test_expect_json(json_object_get(ctx, "legal_moves"), "[\"a5c3\"]");
    type_test_expect_json(json_object_get(ctx, "forced_captures"), "[\"a5c3\"]");
    cr_expect(json_is_true(json_object_get(ctx, "must_capture")));
    cr_expect(strstr(json_string_value(json_object_get(ctx, "rules")), "mandatory"));
    json_decref(ctx);

    ck_new_game_from(&s, "......../......../......../......../......../..w...../...b..../........ w");
    ck_move(&s, "c3e1");
    type_test_view(T, &s, KD_SEAT_PUBLIC, &v);
    ctx = T->strategy_context(v.data, v.len);
    type_test_expect_json(json_object_get(ctx, "legal_moves"), "[]");
    cr_expect_str_eq(json_string_value(json_object_get(ctx, "winner")), "white");
    cr_expect_str_eq(json_string_value(json_object_get(ctx, "status")), "white_won");
    cr_expect(json_is_null(json_object_get(ctx, "to_move")), "no seat to move");
    json_decref(ctx);
    j = T->view_json(v.data, v.len);
    type_test_expect_json(json_object_get(j, "move_rules"), "{\"must_capture\": false, \"forced_captures\": []}");
    json_decref(j);

    static const uint8_t garbage[] = {0x0a, 0x02, 0x01};
    cr_expect_null(T->view_json(garbage, sizeof garbage));
    cr_expect_null(T->strategy_context(garbage, sizeof garbage));
    cr_expect_null(T->view_json(NULL, 0));
    kd_buf_fini(&v);
}

Test(ck_type, text_board_and_prompt)
{
    kd_ck_state s;
    ck_new_game(&s);
    CK_PLAY(&s, "b6a5", "c3b4");
    kd_buf v, out;
    kd_buf_init(&v);
    kd_buf_init(&out);
    type_test_view(T, &s, KD_SEAT_PUBLIC, &v);
    cr_assert_eq(T->render_text(v.data, v.len, 0, &out), KD_OK);
    cr_assert_eq(kd_buf_append(&out, "", 1), KD_OK);
    const char *text = (const char *)out.data;
    cr_expect(strstr(text, "   a b c d e f g h\n 8   w   w   w   w  8\n 7 w   w   w   w    7\n"), "%s", text);
    cr_expect(strstr(text, " 5 w   .   .   .    5\n 4   b   .   .   .  4\n"), "%s", text);
    cr_expect(strstr(text, "last move c3b4; white (w) to move (ply 3), a capture is mandatory"), "%s", text);
    for (const char *c = text; *c; c++)
        cr_assert(*c > 0, "ASCII only without the Unicode flag");

    out.len = 0;
    cr_assert_eq(T->render_text(v.data, v.len, KD_RENDER_UNICODE, &out), KD_OK);
    cr_assert_eq(kd_buf_append(&out, "", 1), KD_OK);
    cr_expect(strstr((const char *)out.data, "\xe2\x9b\x80"), "a white man: %s", (const char *)out.data);
    cr_expect(strstr((const char *)out.data, "\xe2\x9b\x82"), "a black man");

    out.len = 0;
    cr_assert_eq(T->prompt(v.data, v.len, 42, KD_CK_WHITE, &out), KD_OK);
    cr_assert_eq(kd_buf_append(&out, "", 1), KD_OK);
    text = (const char *)out.data;
    cr_expect(strstr(text, "episode 42 as white"), "%s", text);
    cr_expect(strstr(text, "Legal moves: a5c3\n"), "%s", text);
    cr_expect(strstr(text, "A capture is mandatory"), "%s", text);
    cr_expect(strstr(text, "State: .w.w.w.w/"), "%s", text);
    cr_expect(strstr(text, "{\"move\": \"M\"}"), "%s", text);
    out.len = 0;
    cr_assert_eq(T->prompt(v.data, v.len, 42, KD_CK_BLACK, &out), KD_OK);
    cr_assert_eq(kd_buf_append(&out, "", 1), KD_OK);
    cr_expect(strstr((const char *)out.data, "It is not your move."));
    cr_expect_eq(T->prompt(v.data, v.len, 42, 2, &out), KD_ERR_INVALID_ARG);
    static const uint8_t garbage[] = {0xff};
    cr_expect_eq(T->prompt(garbage, 1, 42, 0, &out), KD_ERR_DECODE);
    cr_expect_eq(T->render_text(garbage, 1, 0, &out), KD_ERR_DECODE);

    ck_new_game_from(&s, ".......B/......../......../......../......../......../......../W....... w");
    for (int ply = 0; ply < KD_CK_DRAW_PLIES; ply++)
        ck_move(&s, (const char *const[]){"a1b2", "h8g7", "b2a1", "g7h8"}[ply % 4]);
    type_test_view(T, &s, KD_SEAT_PUBLIC, &v);
    out.len = 0;
    cr_assert_eq(T->render_text(v.data, v.len, 0, &out), KD_OK);
    cr_assert_eq(kd_buf_append(&out, "", 1), KD_OK);
    cr_expect(strstr((const char *)out.data, "draw: 80 plies"), "%s", (const char *)out.data);
    kd_buf_fini(&v);
    kd_buf_fini(&out);
}

/* ---------------------------------------------------------------- moves */

/* A random position `plies` moves from the start (fewer when it ends). */
static void random_position(kd_ck_state *s, unsigned plies, uint64_t *rng)
{
    ck_new_game(s);
    kd_buf cmd;
    kd_buf_init(&cmd);
    for (unsigned i = 0; i < plies && s->status == KD_CK_IN_PROGRESS; i++) {
        cmd.len = 0;
        cr_assert_eq(T->random_command(s, s->turn, 1, rng, &cmd), KD_OK);
        kd_ck_undo undo;
        kd_reject rej = {{0}, {0}};
        cr_assert_eq(kd_ck_ops.execute(s, cmd.data, cmd.len, &s->players[s->turn], NULL, &undo, &rej), KD_OK,
                     "a random legal command: %s", rej.detail);
    }
    kd_buf_fini(&cmd);
}

/* Whether the two-square move from -> to executes. */
static int step_executes(const kd_ck_state *s, uint32_t from, uint32_t to)
{
    kd_ck_state t = *s;
    uint32_t sq[2] = {from, to};
    kd_ck_undo undo;
    return ck_exec_squares(&t, sq, 2, &t.players[t.turn], &undo, NULL) == KD_OK;
}

Test(ck_type, legal_moves_execute_and_nothing_else_does)
{
    uint64_t rng = 11;
    for (int round = 0; round < 150; round++) {
        kd_ck_state s;
        random_position(&s, kd_type_rng_below(&rng, 120), &rng);
        kd_legal_moves moves;
        kd_legal_moves_init(&moves);
        cr_assert_eq(T->legal_moves(&s, 1 - s.turn, &moves), KD_OK);
        cr_expect_eq(moves.count, 0, "the seat not to move has none");
        cr_assert_eq(T->legal_moves(&s, s.turn, &moves), KD_OK);
        int single[KD_CK_SQUARES][KD_CK_SQUARES];
        memset(single, 0, sizeof single);
        for (size_t i = 0; i < moves.count; i++) {
            kd_ck_command cmd;
            cr_assert_eq(kd_ck_command_decode(moves.moves[i].command, moves.moves[i].command_len, &cmd, NULL), KD_OK);
            json_t *j = T->command_to_json(moves.moves[i].command, moves.moves[i].command_len);
            cr_expect_str_eq(json_string_value(json_object_get(j, "move")), moves.moves[i].notation);
            json_decref(j);
            kd_ck_state t = s;
            kd_ck_undo undo;
            kd_reject rej = {{0}, {0}};
            cr_expect_eq(kd_ck_ops.execute(&t, moves.moves[i].command, moves.moves[i].command_len, &t.players[t.turn],
                                           NULL, &undo, &rej),
                         KD_OK, "%s: %s", moves.moves[i].notation, rej.detail);
            if (cmd.count == 2)
                single[cmd.squares[0]][cmd.squares[1]] = 1;
        }
        /* every two-square move (a step or a single jump) executes exactly when listed */
        for (uint32_t from = 0; from < KD_CK_SQUARES; from++)
            for (uint32_t to = 0; to < KD_CK_SQUARES; to++) {
                int dr = (int)(to / 8) - (int)(from / 8), df = (int)(to % 8) - (int)(from % 8);
                if (!kd_ck_is_playing(from) || (dr != df && dr != -df) || dr == 0 || dr > 2 || dr < -2)
                    continue;
                cr_expect_eq(step_executes(&s, from, to), single[from][to], "%u -> %u", (unsigned)from, (unsigned)to);
            }
        if (s.status != KD_CK_IN_PROGRESS)
            cr_expect_eq(moves.count, 0, "a finished game has none");
        kd_legal_moves_fini(&moves);
    }
}

Test(ck_type, random_commands_legal_and_illegal)
{
    uint64_t rng = 5;
    size_t n_codes = 0;
    while (T->rule_codes[n_codes].code)
        n_codes++;
    int seen[16] = {0};
    kd_buf cmd;
    kd_buf_init(&cmd);
    for (int round = 0; round < 300; round++) {
        kd_ck_state s;
        random_position(&s, kd_type_rng_below(&rng, 150), &rng);
        for (int seat = 0; seat < 2; seat++) {
            cmd.len = 0;
            kd_err err = T->random_command(&s, seat, 1, &rng, &cmd);
            if (s.status != KD_CK_IN_PROGRESS || seat != s.turn) {
                cr_expect_eq(err, KD_ERR_NO_MOVE);
            } else {
                cr_assert_eq(err, KD_OK);
                kd_ck_state t = s;
                kd_ck_undo undo;
                kd_reject rej = {{0}, {0}};
                cr_expect_eq(kd_ck_ops.execute(&t, cmd.data, cmd.len, &t.players[seat], NULL, &undo, &rej), KD_OK);
            }
            for (int tries = 0; tries < 4; tries++) {
                cmd.len = 0;
                cr_assert_eq(T->random_command(&s, seat, 0, &rng, &cmd), KD_OK);
                kd_ck_state t = s;
                kd_ck_undo undo;
                kd_reject rej = {{0}, {0}};
                cr_assert_eq(kd_ck_ops.execute(&t, cmd.data, cmd.len, &t.players[seat], NULL, &undo, &rej), KD_ERR_RULE,
                             "an illegal command is refused by a rule");
                cr_expect(type_test_is_rule_code(T, rej.code), "%s", rej.code);
                cr_expect_eq(memcmp(&t, &s, sizeof s), 0);
                json_t *j = T->command_to_json(cmd.data, cmd.len);
                cr_assert_not_null(j, "it has a notation");
                json_decref(j);
                for (size_t i = 0; i < n_codes; i++)
                    seen[i] += strcmp(rej.code, T->rule_codes[i].code) == 0;
            }
        }
    }
    static const char *const want[] = {"game_over",       "not_your_turn",    "no_piece",       "wrong_direction",
                                       "square_occupied", "capture_required", "jump_incomplete"};
    for (size_t w = 0; w < sizeof want / sizeof want[0]; w++)
        for (size_t i = 0; i < n_codes; i++)
            if (strcmp(T->rule_codes[i].code, want[w]) == 0)
                cr_expect_gt(seen[i], 0, "%s is offered", want[w]);
    kd_buf_fini(&cmd);
}

/* ------------------------------------------------------------------ bot */

static void bot_move(const kd_ck_state *s, unsigned depth, uint64_t tiebreak, char out[KD_NOTATION_MAX])
{
    kd_buf cmd;
    kd_buf_init(&cmd);
    cr_assert_eq(T->bot_command(s, depth, tiebreak, &cmd), KD_OK);
    json_t *j = T->command_to_json(cmd.data, cmd.len);
    cr_assert_not_null(j);
    snprintf(out, KD_NOTATION_MAX, "%s", json_string_value(json_object_get(j, "move")));
    json_decref(j);
    kd_buf_fini(&cmd);
}

Test(ck_type, the_bot_captures_wins_and_answers_quickly)
{
    kd_ck_state s;
    char m[KD_NOTATION_MAX];
    /* the only legal move is the double jump */
    ck_new_game_from(&s, "......../......w./.w....../..b...../......../....b.../......../b....... w");
    for (unsigned d = 0; d <= 10; d++) {
        bot_move(&s, d, d, m);
        cr_expect_str_eq(m, "b6d4f2", "depth %u", d);
    }
    /* two captures: h4f2 leaves black a move, b6d4f2 takes two and black
     * then has none... only with a1 blocked; here the bot takes the one
     * that wins material */
    ck_new_game_from(&s, "......../......../.w....../..b...../.......w/....b.b./......../........ w");
    bot_move(&s, 4, 0, m);
    cr_expect_str_eq(m, "b6d4f2", "two pieces rather than one");
    /* white wins at once by taking black's last piece */
    ck_new_game_from(&s, "......../......../......../......../......../..w...../...b..../........ w");
    bot_move(&s, 3, 0, m);
    cr_expect_str_eq(m, "c3e1");
    ck_move(&s, "c3e1");
    kd_buf cmd;
    kd_buf_init(&cmd);
    cr_expect_eq(T->bot_command(&s, 4, 0, &cmd), KD_ERR_NO_MOVE, "the game is over");
    kd_buf_fini(&cmd);
    /* from random positions its move is legal (its speed is the bench's: kdapp bench prints it) */
    uint64_t rng = 3;
    for (int round = 0; round < 20; round++) {
        random_position(&s, kd_type_rng_below(&rng, 80), &rng);
        if (s.status != KD_CK_IN_PROGRESS)
            continue;
        kd_buf_init(&cmd);
        cr_assert_eq(T->bot_command(&s, 0, (uint64_t)round, &cmd), KD_OK);
        kd_ck_state t = s;
        kd_ck_undo undo;
        kd_reject rej = {{0}, {0}};
        cr_expect_eq(kd_ck_ops.execute(&t, cmd.data, cmd.len, &t.players[t.turn], NULL, &undo, &rej), KD_OK, "%s",
                     rej.detail);
        kd_buf_fini(&cmd);
    }
}
