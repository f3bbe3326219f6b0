/*
 * chess_type_test.c — chess's entry in the type table (kd_chess_type,
 * episodes/chess/chess_type.c): identity and registration, JSON for params and
 * commands and their refusals, status, the view bytes and every rendering
 * made from them (FEN, check, last move in UCI and SAN, result, ASCII and
 * Unicode boards, prompt), legal moves (each executes, with UCI notation),
 * random commands (legal ones execute, illegal ones are refused by a rule
 * of the type), the bot (mates in one, takes a free queen) and the change
 * sentences.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "episodes/chess/chess.h"
#include "episodes/chess_support.h"
#include "episodes/episode_type.h"
#include "type_support.h"

static const kd_episode_type *const T = &kd_chess_type;

/* The command bytes of JSON `text`, executed for the side to move. */
static kd_err exec_json(kd_chess_state *s, const char *text, kd_reject *rej)
{
    json_t *j = type_test_parse(text);
    kd_buf cmd;
    kd_buf_init(&cmd);
    char why[160] = "";
    cr_assert_eq(T->command_from_json(j, s->side, &cmd, why, sizeof why), KD_OK, "%s: %s", text, why);
    kd_chess_undo undo;
    kd_err err = kd_chess_ops.execute(s, cmd.data, cmd.len, &s->players[s->side], NULL, &undo, rej);
    kd_buf_fini(&cmd);
    json_decref(j);
    return err;
}

Test(chess_type, identity_seats_and_registration)
{
    cr_expect_str_eq(T->ops->type_name, "chess");
    cr_expect_eq(T->ops, &kd_chess_ops);
    cr_expect_str_eq(T->title, "Chess");
    cr_expect(T->summary && strstr(T->summary, "white") && strstr(T->summary, "UCI"));
    cr_expect_eq(T->min_seats, 2);
    cr_expect_eq(T->max_seats, 2);
    cr_expect_eq(kd_episode_type_seat(T, "white"), KD_CHESS_WHITE);
    cr_expect_eq(kd_episode_type_seat(T, "black"), KD_CHESS_BLACK);
    kd_type_table table;
    kd_type_table_init(&table);
    cr_expect_eq(kd_type_table_find(&table, "chess"), T);
    json_t *ps = type_test_parse(T->params_schema), *cs = type_test_parse(T->command_schema);
    cr_expect(json_object_get(json_object_get(ps, "properties"), "fen"));
    cr_expect(json_object_get(json_object_get(cs, "properties"), "uci"));
    json_decref(ps);
    json_decref(cs);
    static const char *const codes[] = {"game_over",      "unauthorised", "not_your_turn", "bad_square", "no_piece",
                                        "not_your_piece", "illegal_move", "bad_promotion", "in_check"};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
        cr_expect(type_test_is_rule_code(T, codes[i]), "%s", codes[i]);
}

Test(chess_type, params_json)
{
    kd_buf out;
    kd_buf_init(&out);
    char why[160] = "";
    cr_expect_eq(T->params_from_json(NULL, &out, why, sizeof why), KD_OK);
    json_t *empty = type_test_parse("{}"), *good = type_test_parse("{\"fen\": \"8/8/8/8/8/8/8/K6k w - - 0 1\"}"),
           *bad = type_test_parse("{\"fen\": \"8/8/8/8/8/8/8/K6K w - - 0 1\"}"),
           *extra = type_test_parse("{\"fen\": \"x\", \"side\": 1}");
    cr_expect_eq(T->params_from_json(empty, &out, why, sizeof why), KD_OK);
    cr_expect_eq(out.len, 0, "the standard position: no bytes");
    cr_expect_eq(T->params_from_json(good, &out, why, sizeof why), KD_OK, "%s", why);
    char fen[KD_CHESS_FEN_MAX];
    cr_assert_eq(kd_chess_params_decode(out.data, out.len, fen, NULL), KD_OK);
    cr_expect_str_eq(fen, "8/8/8/8/8/8/8/K6k w - - 0 1");
    cr_expect_eq(T->params_from_json(bad, &out, why, sizeof why), KD_ERR_BAD_PARAMS);
    cr_expect(strstr(why, "king"), "%s", why);
    cr_expect_eq(T->params_from_json(extra, &out, why, sizeof why), KD_ERR_BAD_PARAMS);
    json_decref(empty);
    json_decref(good);
    json_decref(bad);
    json_decref(extra);
    kd_buf_fini(&out);
}

Test(chess_type, command_json_round_trips_and_refusals)
{
    kd_chess_state s;
    chess_new_game(&s, "8/P7/8/8/8/8/8/k6K w - - 0 1");
    kd_legal_moves list;
    kd_legal_moves_init(&list);
    cr_assert_eq(T->legal_moves(&s, KD_CHESS_WHITE, &list), KD_OK);
    cr_assert_gt(list.count, 4);
    for (size_t i = 0; i < list.count; i++) {
        json_t *j = T->command_to_json(list.moves[i].command, list.moves[i].command_len);
        cr_assert_not_null(j);
        cr_expect_str_eq(json_string_value(json_object_get(j, "uci")), list.moves[i].notation);
        kd_buf back;
        kd_buf_init(&back);
        char why[160] = "";
        cr_assert_eq(T->command_from_json(j, 0, &back, why, sizeof why), KD_OK, "%s", why);
        cr_expect(back.len == list.moves[i].command_len && memcmp(back.data, list.moves[i].command, back.len) == 0);
        json_decref(j);
        kd_buf_fini(&back);
    }
    kd_legal_moves_fini(&list);
    /* {"move": ...}, an upper-case promotion letter */
    kd_reject rej = {{0}, {0}};
    kd_chess_state t;
    memcpy(&t, &s, sizeof t);
    cr_expect_eq(exec_json(&t, "{\"move\": \"a7a8Q\"}", &rej), KD_OK, "%s", rej.detail);
    cr_expect_eq(t.board[56], KD_CHESS_QUEEN);
    /* bytes off the board read back as numbers, and round-trip */
    uint8_t cmd[KD_CHESS_COMMAND_MAX];
    size_t len = kd_chess_command_pack(64, 3, 0, cmd);
    json_t *j = T->command_to_json(cmd, len);
    cr_assert_not_null(j);
    cr_expect_eq(json_integer_value(json_object_get(j, "from")), 64);
    kd_buf back;
    kd_buf_init(&back);
    char why[160] = "";
    cr_assert_eq(T->command_from_json(j, 0, &back, why, sizeof why), KD_OK, "%s", why);
    cr_expect(back.len == len && memcmp(back.data, cmd, len) == 0);
    json_decref(j);
    /* refusals name the form */
    static const char *const bad[] = {
        "{}",         "{\"uci\": \"e2\"}",    "{\"uci\": \"e2e9\"}", "{\"uci\": \"e7e8k\"}", "{\"uci\": 12}",
        "[\"e2e4\"]", "{\"uci\": \"e2e4qq\"}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *b = type_test_parse(bad[i]);
        cr_expect_eq(T->command_from_json(b, 0, &back, why, sizeof why), KD_ERR_BAD_COMMAND, "%s", bad[i]);
        cr_expect(strstr(why, "{\"uci\": \"e2e4\"}"), "%s", why);
        json_decref(b);
    }
    const uint8_t junk[] = {0x0a, 0x05};
    cr_expect_null(T->command_to_json(junk, sizeof junk));
    kd_buf_fini(&back);
}

Test(chess_type, status_and_view_json)
{
    kd_chess_state s;
    kd_buf view;
    kd_buf_init(&view);
    chess_new_game(&s, NULL);
    kd_game_status st = T->status(&s);
    cr_expect(st.phase == KD_PHASE_IN_PROGRESS && st.to_move == KD_CHESS_WHITE && st.winner == KD_SEAT_NONE);
    type_test_view(T, &s, KD_SEAT_PUBLIC, &view);
    json_t *j = T->view_json(view.data, view.len);
    cr_assert_not_null(j);
    cr_expect_str_eq(json_string_value(json_object_get(j, "fen")), KD_CHESS_START_FEN);
    cr_expect_str_eq(json_string_value(json_object_get(j, "turn")), "w");
    cr_expect(json_is_null(json_object_get(j, "last_move")));
    cr_expect_str_eq(json_string_value(json_object_get(j, "status")), "in_progress");
    cr_expect(json_is_false(json_object_get(json_object_get(j, "move_rules"), "check")));
    json_decref(j);

    chess_play(&s, "e2e4 e7e5 d1h5 b8c6 f1c4 g8f6");
    chess_play(&s, "h5f7");
    st = T->status(&s);
    cr_expect(st.phase == KD_PHASE_WON && st.winner == KD_CHESS_WHITE && st.to_move == KD_SEAT_NONE);
    type_test_view(T, &s, KD_SEAT_PUBLIC, &view);
    j = T->view_json(view.data, view.len);
    cr_assert_not_null(j);
    cr_expect_str_eq(json_string_value(json_object_get(j, "fen")),
                     "r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 0 4");
    cr_expect_str_eq(json_string_value(json_object_get(j, "turn")), "b");
    cr_expect(json_is_true(json_object_get(j, "check")));
    cr_expect_str_eq(json_string_value(json_object_get(json_object_get(j, "last_move"), "uci")), "h5f7");
    cr_expect_str_eq(json_string_value(json_object_get(json_object_get(j, "last_move"), "san")), "Qxf7#");
    cr_expect_str_eq(json_string_value(json_object_get(j, "status")), "checkmate");
    cr_expect_str_eq(json_string_value(json_object_get(j, "result")), "1-0");
    cr_expect_str_eq(json_string_value(json_object_get(j, "winner")), "white");
    cr_expect_eq(json_integer_value(json_object_get(j, "move_count")), 7);
    cr_expect_eq(json_integer_value(json_object_get(j, "move_number")), 4);
    cr_expect(json_is_true(json_object_get(json_object_get(j, "move_rules"), "check")));
    json_decref(j);

    chess_new_game(&s, "k7/8/8/2Q5/8/8/8/7K w - - 0 1");
    chess_play(&s, "c5b6");
    st = T->status(&s);
    cr_expect(st.phase == KD_PHASE_DRAW && st.winner == KD_SEAT_NONE && st.to_move == KD_SEAT_NONE);
    type_test_view(T, &s, KD_SEAT_PUBLIC, &view);
    j = T->view_json(view.data, view.len);
    cr_expect_str_eq(json_string_value(json_object_get(j, "status")), "stalemate");
    cr_expect_str_eq(json_string_value(json_object_get(j, "draw_reason")), "stalemate");
    cr_expect_str_eq(json_string_value(json_object_get(j, "result")), "1/2-1/2");
    json_decref(j);
    kd_buf text;
    kd_buf_init(&text);
    cr_assert_eq(T->render_text(view.data, view.len, 0, &text), KD_OK);
    cr_assert_eq(kd_buf_append(&text, "", 1), KD_OK);
    cr_expect(strstr((const char *)text.data, "draw: stalemate (1/2-1/2)"), "%s", (const char *)text.data);
    chess_new_game(&s, NULL);
    chess_play(&s, "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8");
    type_test_view(T, &s, KD_SEAT_PUBLIC, &view);
    j = T->view_json(view.data, view.len);
    cr_expect_str_eq(json_string_value(json_object_get(j, "draw_reason")), "threefold_repetition");
    json_decref(j);
    text.len = 0;
    cr_assert_eq(T->render_text(view.data, view.len, 0, &text), KD_OK);
    cr_assert_eq(kd_buf_append(&text, "", 1), KD_OK);
    cr_expect(strstr((const char *)text.data, "draw: threefold repetition (1/2-1/2)"), "%s", (const char *)text.data);
    kd_buf_fini(&text);
    const uint8_t junk[] = {0x0a, 0x03, 'x', 'y', 'z'};
    cr_expect_null(T->view_json(junk, sizeof junk), "a FEN that is not one");
    kd_buf_fini(&view);
}

Test(chess_type, strategy_context_lists_uci_and_san)
{
    kd_chess_state s;
    kd_buf view;
    kd_buf_init(&view);
    chess_new_game(&s, NULL);
    type_test_view(T, &s, KD_SEAT_PUBLIC, &view);
    json_t *c = T->strategy_context(view.data, view.len);
    cr_assert_not_null(c);
    cr_expect_str_eq(json_string_value(json_object_get(c, "fen")), KD_CHESS_START_FEN);
    cr_expect_str_eq(json_string_value(json_object_get(c, "to_move")), "white");
    json_t *uci = json_object_get(c, "legal_moves"), *san = json_object_get(c, "legal_san");
    cr_assert_eq(json_array_size(uci), 20);
    cr_assert_eq(json_array_size(san), 20);
    int e4 = 0, nf3 = 0;
    for (size_t i = 0; i < 20; i++) {
        e4 |= strcmp(json_string_value(json_array_get(uci, i)), "e2e4") == 0 &&
              strcmp(json_string_value(json_array_get(san, i)), "e4") == 0;
        nf3 |= strcmp(json_string_value(json_array_get(uci, i)), "g1f3") == 0 &&
               strcmp(json_string_value(json_array_get(san, i)), "Nf3") == 0;
    }
    cr_expect(e4 && nf3, "e2e4 is e4 and g1f3 is Nf3, side by side");
    cr_expect_str_eq(json_string_value(json_object_get(c, "answer_format")), "{\"uci\": \"e2e4\"}");
    json_decref(c);
    kd_buf_fini(&view);
}

Test(chess_type, text_boards_and_prompt)
{
    kd_chess_state s;
    kd_buf view, text;
    kd_buf_init(&view);
    kd_buf_init(&text);
    chess_new_game(&s, NULL);
    chess_play(&s, "e2e4 f7f6 d2d4 g7g5 d1h5");
    type_test_view(T, &s, KD_SEAT_PUBLIC, &view);
    cr_assert_eq(T->render_text(view.data, view.len, 0, &text), KD_OK);
    cr_assert_eq(kd_buf_append(&text, "", 1), KD_OK);
    const char *t = (const char *)text.data;
    cr_expect(strstr(t, "  a b c d e f g h\n8 r n b q k b n r 8\n"), "%s", t);
    cr_expect(strstr(t, "1 R N B . K B N R 1\n"), "%s", t);
    cr_expect(strstr(t, "last move: d1h5 (Qh5#)"), "%s", t);
    cr_expect(strstr(t, "checkmate: white wins (1-0)"), "%s", t);
    for (const char *c = t; *c; c++)
        cr_assert((unsigned char)*c < 0x80, "ASCII only without the flag");
    text.len = 0;
    cr_assert_eq(T->render_text(view.data, view.len, KD_RENDER_UNICODE, &text), KD_OK);
    cr_assert_eq(kd_buf_append(&text, "", 1), KD_OK);
    cr_expect(strstr((const char *)text.data, "♚") && strstr((const char *)text.data, "♕"));

    chess_new_game(&s, NULL);
    chess_play(&s, "e2e4");
    type_test_view(T, &s, KD_SEAT_PUBLIC, &view);
    text.len = 0;
    cr_assert_eq(T->prompt(view.data, view.len, 7, KD_CHESS_BLACK, &text), KD_OK);
    cr_assert_eq(kd_buf_append(&text, "", 1), KD_OK);
    t = (const char *)text.data;
    cr_expect(strstr(t, "chess episode 7 as black"), "%s", t);
    cr_expect(strstr(t, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"), "%s", t);
    cr_expect(strstr(t, "Legal moves (UCI): "), "%s", t);
    cr_expect(strstr(t, " e7e5"), "%s", t);
    cr_expect(strstr(t, "{\"uci\": \"M\"}"), "%s", t);
    cr_expect(strstr(t, "black to move (move 1)"), "%s", t);
    text.len = 0;
    cr_assert_eq(T->prompt(view.data, view.len, 7, KD_CHESS_WHITE, &text), KD_OK);
    cr_assert_eq(kd_buf_append(&text, "", 1), KD_OK);
    cr_expect(strstr((const char *)text.data, "It is not your move."));
    cr_expect_eq(T->prompt(view.data, view.len, 7, 2, &text), KD_ERR_INVALID_ARG);
    const uint8_t junk[] = {0x08, 0x01, 0x0a, 0x00};
    cr_expect_eq(T->render_text(junk, sizeof junk, 0, &text), KD_ERR_DECODE);
    kd_buf_fini(&view);
    kd_buf_fini(&text);
}

Test(chess_type, legal_moves_execute_with_uci_notation)
{
    kd_chess_state s;
    chess_new_game(&s, "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
    kd_legal_moves list;
    kd_legal_moves_init(&list);
    cr_assert_eq(T->legal_moves(&s, KD_CHESS_BLACK, &list), KD_OK);
    cr_expect_eq(list.count, 0, "black is not to move");
    cr_assert_eq(T->legal_moves(&s, KD_CHESS_WHITE, &list), KD_OK);
    cr_assert_eq(list.count, 48);
    int castles = 0;
    for (size_t i = 0; i < list.count; i++) {
        kd_chess_state t;
        memcpy(&t, &s, sizeof t);
        kd_chess_undo undo;
        kd_reject rej = {{0}, {0}};
        cr_expect_eq(kd_chess_ops.execute(&t, list.moves[i].command, list.moves[i].command_len, &t.players[0], NULL,
                                          &undo, &rej),
                     KD_OK, "%s: %s", list.moves[i].notation, rej.detail);
        int from, to, promo;
        cr_expect_eq(kd_chess_uci_parse(list.moves[i].notation, &from, &to, &promo), 0);
        castles += strcmp(list.moves[i].notation, "e1g1") == 0 || strcmp(list.moves[i].notation, "e1c1") == 0;
    }
    cr_expect_eq(castles, 2);
    kd_legal_moves_fini(&list);
}

/* A position after `plies` random legal moves from the start. */
static void random_position(kd_chess_state *s, unsigned plies, uint64_t *rng)
{
    chess_new_game(s, NULL);
    kd_buf cmd;
    kd_buf_init(&cmd);
    for (unsigned i = 0; i < plies && kd_chess_status_of(s) == KD_CHESS_IN_PROGRESS; i++) {
        cmd.len = 0;
        cr_assert_eq(T->random_command(s, s->side, 1, rng, &cmd), KD_OK);
        kd_chess_undo undo;
        kd_reject rej = {{0}, {0}};
        cr_assert_eq(kd_chess_ops.execute(s, cmd.data, cmd.len, &s->players[s->side], NULL, &undo, &rej), KD_OK);
    }
    kd_buf_fini(&cmd);
}

Test(chess_type, random_commands_legal_and_illegal, .timeout = 60)
{
    uint64_t rng = 11;
    int seen_check = 0, seen_cannot = 0, seen_turn = 0, seen_over = 0;
    kd_buf cmd;
    kd_buf_init(&cmd);
    for (int round = 0; round < 60; round++) {
        kd_chess_state s;
        random_position(&s, 5 + kd_type_rng_below(&rng, 120), &rng);
        for (int seat = 0; seat < 2; seat++) {
            cmd.len = 0;
            kd_err err = T->random_command(&s, seat, 1, &rng, &cmd);
            kd_chess_state t;
            kd_chess_undo undo;
            kd_reject rej = {{0}, {0}};
            if (kd_chess_status_of(&s) != KD_CHESS_IN_PROGRESS || seat != s.side) {
                cr_expect_eq(err, KD_ERR_NO_MOVE);
            } else {
                cr_assert_eq(err, KD_OK);
                memcpy(&t, &s, sizeof t);
                cr_expect_eq(kd_chess_ops.execute(&t, cmd.data, cmd.len, &t.players[seat], NULL, &undo, &rej), KD_OK);
            }
            cmd.len = 0;
            cr_assert_eq(T->random_command(&s, seat, 0, &rng, &cmd), KD_OK);
            memcpy(&t, &s, sizeof t);
            cr_assert_eq(kd_chess_ops.execute(&t, cmd.data, cmd.len, &t.players[seat], NULL, &undo, &rej), KD_ERR_RULE,
                         "an illegal command is refused by a rule");
            cr_expect(type_test_is_rule_code(T, rej.code), "%s", rej.code);
            cr_expect_eq(memcmp(&t, &s, sizeof s), 0);
            seen_check += strcmp(rej.code, "in_check") == 0;
            seen_cannot += strcmp(rej.code, "illegal_move") == 0;
            seen_turn += strcmp(rej.code, "not_your_turn") == 0;
            seen_over += strcmp(rej.code, "game_over") == 0;
        }
    }
    cr_expect_gt(seen_check, 0, "a move into check is offered");
    cr_expect_gt(seen_cannot, 0, "a piece moving as it cannot");
    cr_expect_gt(seen_turn, 0, "the other seat");
    (void)seen_over; /* random games rarely end within 125 plies */
    kd_buf_fini(&cmd);
}

/* The bot's move in `fen` at `depth`, as UCI. */
static void bot_move(const char *fen, unsigned depth, char out[KD_CHESS_UCI_MAX])
{
    kd_chess_state s;
    chess_new_game(&s, fen);
    kd_buf cmd;
    kd_buf_init(&cmd);
    cr_assert_eq(T->bot_command(&s, depth, 0, &cmd), KD_OK);
    uint32_t from, to, promo;
    cr_assert_eq(kd_chess_command_decode(cmd.data, cmd.len, &from, &to, &promo, NULL), KD_OK);
    kd_chess_move m = {(uint8_t)from, (uint8_t)to, (uint8_t)promo, 0};
    kd_chess_uci(m, out);
    kd_buf_fini(&cmd);
}

Test(chess_type, the_bot_mates_in_one_and_takes_a_free_queen)
{
    char uci[KD_CHESS_UCI_MAX];
    bot_move("k7/8/1K6/8/8/8/8/7R w - - 0 1", 2, uci);
    cr_expect_str_eq(uci, "h1h8");
    bot_move("rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2", 0, uci);
    cr_expect_str_eq(uci, "d8h4", "the default depth finds the fool's mate");
    bot_move("4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1", 1, uci);
    cr_expect_str_eq(uci, "d1d5");
    bot_move(NULL, 0, uci);
    cr_expect(strlen(uci) == 4);
    kd_chess_state s;
    chess_new_game(&s, "k7/8/1K6/8/8/8/8/7R w - - 0 1");
    chess_play(&s, "h1h8");
    kd_buf cmd;
    kd_buf_init(&cmd);
    cr_expect_eq(T->bot_command(&s, 2, 0, &cmd), KD_ERR_NO_MOVE, "the game is over");
    kd_buf_fini(&cmd);
}

Test(chess_type, describe_change_names_the_move_and_the_check)
{
    kd_chess_state a, b;
    chess_new_game(&a, NULL);
    chess_play(&a, "e2e4 f7f6");
    memcpy(&b, &a, sizeof b);
    chess_play(&b, "d1h5");
    kd_buf out;
    kd_buf_init(&out);
    cr_assert_eq(T->describe_change(&a, &b, &out), KD_OK);
    cr_assert_eq(kd_buf_append(&out, "", 1), KD_OK);
    cr_expect_str_eq((const char *)out.data, "white played d1h5 (Qh5+).\nblack is in check.\n");
    out.len = 0;
    cr_assert_eq(T->describe_change(&b, &a, &out), KD_OK);
    cr_expect_eq(out.len, 0, "a rollback adds nothing to the boards");
    kd_buf_fini(&out);
}
