/*
 * tictactoe_type_test.c — tic-tac-toe's entry in the type table
 * (kd_tictactoe_type, episodes/tictactoe/tictactoe_type.c): every function of the
 * table. JSON round trips for params and commands and their refusals with a
 * sentence; the engine defaults from a fake environment; status and the
 * seat to move; every legal move executes and nothing else does; a random
 * illegal command is refused by one of the type's rules; the bot plays the
 * search player's move; the view bytes render today's JSON, strategy
 * context, text board and prompt.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "episodes/episode_type.h"
#include "type_support.h"
#include "episodes/ttt_support.h"

static const kd_episode_type *const T = &kd_tictactoe_type;

/* ------------------------------------------------------------ identity */

Test(ttt_type, identity_seats_and_rule_codes)
{
    cr_expect_str_eq(T->ops->type_name, KD_TTT_TYPE_NAME);
    cr_expect_eq(T->ops, &kd_tictactoe_ops);
    cr_expect_eq(T->min_seats, 2);
    cr_expect_eq(T->max_seats, 2);
    cr_expect_eq(kd_episode_type_seat(T, "X"), 0);
    cr_expect_eq(kd_episode_type_seat(T, "O"), 1);
    cr_expect_eq(kd_episode_type_seat(T, "Z"), KD_SEAT_NONE);
    cr_expect_str_eq(kd_episode_type_seat_name(T, 1), "O");
    cr_expect_str_eq(kd_episode_type_seat_name(T, 2), "?");
    static const char *const codes[] = {"game_over", "out_of_bounds", "wrong_turn", "unauthorised", "cell_occupied"};
    size_t n = 0;
    for (; T->rule_codes[n].code; n++) {
        cr_assert_lt(n, 5);
        cr_expect_str_eq(T->rule_codes[n].code, codes[n]);
        cr_expect(T->rule_codes[n].meaning && *T->rule_codes[n].meaning);
    }
    cr_expect_eq(n, 5);
    /* The schemas are JSON objects. */
    json_t *p = type_test_parse(T->params_schema), *c = type_test_parse(T->command_schema);
    cr_expect(json_is_object(json_object_get(json_object_get(p, "properties"), "cap")));
    cr_expect(json_is_object(json_object_get(json_object_get(c, "properties"), "row")));
    json_decref(p);
    json_decref(c);
    cr_expect_not_null(T->bot_command);
}

/* -------------------------------------------------------------- config */

typedef struct {
    const char *stress, *max_symbols;
} fake_env;

static const char *fake_get(void *ctx, const char *name)
{
    const fake_env *e = ctx;
    if (strcmp(name, "KDAPP_TTT_STRESS") == 0)
        return e->stress;
    if (strcmp(name, "KDAPP_TTT_MAX_SYMBOLS") == 0)
        return e->max_symbols;
    return NULL;
}

Test(ttt_type, config_from_env_reads_both_variables)
{
    cr_expect_str_eq(T->env_names[0], "KDAPP_TTT_STRESS");
    cr_expect_str_eq(T->env_names[1], "KDAPP_TTT_MAX_SYMBOLS");
    cr_expect_null(T->env_names[2]);
    cr_assert_eq(T->config_size, sizeof(kd_ttt_config));
    kd_ttt_config cfg;
    char why[200] = "";
    fake_env none = {NULL, NULL}, stress = {"yes", NULL}, max = {"1", "4"}, bad = {NULL, "zero"};
    cr_expect_eq(T->config_from_env(fake_get, &none, &cfg, why, sizeof why), KD_OK);
    cr_expect_eq(cfg.default_cap, 0);
    cr_expect_eq(T->config_from_env(fake_get, &stress, &cfg, why, sizeof why), KD_OK);
    cr_expect_eq(cfg.default_cap, KD_TTT_DEFAULT_STRESS_CAP);
    cr_expect_eq(T->config_from_env(fake_get, &max, &cfg, why, sizeof why), KD_OK);
    cr_expect_eq(cfg.default_cap, 4, "MAX_SYMBOLS wins");
    cr_expect_eq(T->config_from_env(fake_get, &bad, &cfg, why, sizeof why), KD_ERR_INVALID_ARG);
    cr_expect(strstr(why, "KDAPP_TTT_MAX_SYMBOLS") != NULL, "the sentence names the variable: %s", why);
}

/* -------------------------------------------------------------- params */

/* params_from_json of `text`, decoded back to the wire cap. */
static kd_err params_cap(const char *text, uint32_t *cap, size_t *len, char *why, size_t why_len)
{
    json_t *j = text ? type_test_parse(text) : NULL;
    kd_buf b;
    kd_buf_init(&b);
    kd_err err = T->params_from_json(j, &b, why, why_len);
    *len = b.len;
    if (!err)
        cr_assert_eq(kd_ttt_params_decode(b.data, b.len, cap, NULL), KD_OK);
    kd_buf_fini(&b);
    json_decref(j);
    return err;
}

Test(ttt_type, params_json)
{
    uint32_t cap = 99;
    size_t len;
    char why[200] = "";
    cr_expect_eq(params_cap(NULL, &cap, &len, why, sizeof why), KD_OK);
    cr_expect_eq(len, 0, "no params: the engine default, zero bytes");
    cr_expect_eq(params_cap("{}", &cap, &len, why, sizeof why), KD_OK);
    cr_expect_eq(cap, 0);
    cr_expect_eq(params_cap("{\"cap\": null}", &cap, &len, why, sizeof why), KD_OK);
    cr_expect_eq(cap, 0);
    cr_expect_eq(params_cap("{\"cap\": 3}", &cap, &len, why, sizeof why), KD_OK);
    cr_expect_eq(cap, 3);
    cr_expect_eq(params_cap("{\"cap\": 9}", &cap, &len, why, sizeof why), KD_OK);
    cr_expect_eq(cap, KD_TTT_WIRE_CLASSIC);
    cr_expect_eq(params_cap("{\"cap\": 255}", &cap, &len, why, sizeof why), KD_OK);
    cr_expect_eq(cap, 255);

    static const char *const bad[] = {
        "{\"cap\": 0}", "{\"cap\": 256}", "{\"cap\": \"3\"}", "{\"cap\": 2.5}", "{\"cpa\": 3}", "[3]", "3"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        why[0] = '\0';
        cr_expect_eq(params_cap(bad[i], &cap, &len, why, sizeof why), KD_ERR_BAD_PARAMS, "%s", bad[i]);
        cr_expect(strlen(why) > 10, "%s is refused with a sentence, got '%s'", bad[i], why);
    }
}

/* ------------------------------------------------------------ commands */

static kd_err command_of(const char *text, int seat, kd_buf *out, char *why, size_t why_len)
{
    json_t *j = type_test_parse(text);
    kd_err err = T->command_from_json(j, seat, out, why, why_len);
    json_decref(j);
    return err;
}

Test(ttt_type, command_json_round_trips)
{
    char why[200] = "";
    kd_buf b, want;
    kd_buf_init(&b);
    kd_buf_init(&want);
    for (uint8_t player = 0; player < 2; player++)
        for (uint8_t r = 0; r < 3; r++)
            for (uint8_t c = 0; c < 3; c++) {
                want.len = b.len = 0;
                cr_assert_eq(kd_ttt_move_encode(r, c, player, &want), KD_OK);
                json_t *j = T->command_to_json(want.data, want.len);
                cr_assert_not_null(j);
                cr_expect_str_eq(json_string_value(json_object_get(j, "type")), "move");
                cr_expect_eq(json_integer_value(json_object_get(j, "row")), r);
                cr_expect_eq(json_integer_value(json_object_get(j, "col")), c);
                cr_expect_str_eq(json_string_value(json_object_get(j, "player")), player ? "O" : "X");
                cr_assert_eq(T->command_from_json(j, KD_SEAT_NONE, &b, why, sizeof why), KD_OK, "%s", why);
                cr_expect(b.len == want.len && memcmp(b.data, want.data, b.len) == 0, "from_json(to_json(b)) == b");
                json_decref(j);
            }

    /* The gateway's form, and without "type", and without "player" when
     * the seat is known. */
    want.len = 0;
    cr_assert_eq(kd_ttt_move_encode(1, 2, 1, &want), KD_OK);
    static const char *const forms[] = {"{\"type\":\"move\",\"row\":1,\"col\":2,\"player\":\"O\"}",
                                        "{\"row\":1,\"col\":2,\"player\":\"O\"}", "{\"row\":1,\"col\":2}"};
    for (size_t i = 0; i < 3; i++) {
        b.len = 0;
        cr_assert_eq(command_of(forms[i], 1, &b, why, sizeof why), KD_OK, "%s: %s", forms[i], why);
        cr_expect(b.len == want.len && memcmp(b.data, want.data, b.len) == 0, "%s", forms[i]);
    }
    /* Out of the board but on the wire: the engine's out_of_bounds, not a form error. */
    b.len = 0;
    cr_expect_eq(command_of("{\"row\":7,\"col\":0,\"player\":\"X\"}", KD_SEAT_NONE, &b, why, sizeof why), KD_OK);
    cr_expect_null(T->command_to_json((const uint8_t *)"\xff\xff", 2), "bytes that do not decode");
    kd_buf_fini(&b);
    kd_buf_fini(&want);
}

Test(ttt_type, bad_command_json_is_refused_with_a_sentence)
{
    static const struct {
        const char *json;
        int seat;
    } bad[] = {
        {"{\"row\":1,\"col\":2}", KD_SEAT_NONE}, /* no player, no seat */
        {"{\"type\":\"drop\",\"row\":1,\"col\":2,\"player\":\"X\"}", 0},
        {"{\"type\":3,\"row\":1,\"col\":2,\"player\":\"X\"}", 0},
        {"{\"row\":\"1\",\"col\":2,\"player\":\"X\"}", 0},
        {"{\"row\":1,\"player\":\"X\"}", 0},
        {"{\"row\":-1,\"col\":2,\"player\":\"X\"}", 0},
        {"{\"row\":1,\"col\":256,\"player\":\"X\"}", 0},
        {"{\"row\":1,\"col\":2,\"player\":\"x\"}", 0},
        {"{\"row\":1,\"col\":2,\"player\":1}", 0},
        {"[1,2]", 0},
    };
    kd_buf b;
    kd_buf_init(&b);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char why[200] = "";
        b.len = 0;
        cr_expect_eq(command_of(bad[i].json, bad[i].seat, &b, why, sizeof why), KD_ERR_BAD_COMMAND, "%s", bad[i].json);
        cr_expect(strlen(why) > 10, "%s is refused with a sentence, got '%s'", bad[i].json, why);
    }
    kd_buf_fini(&b);
}

/* -------------------------------------------------------------- status */

Test(ttt_type, status_and_seat_to_move)
{
    kd_ttt_state s;
    ttt_new(&s, 0);
    kd_game_status st = T->status(&s);
    cr_expect_eq(st.phase, KD_PHASE_IN_PROGRESS);
    cr_expect_eq(st.to_move, 0);
    cr_expect_eq(st.winner, KD_SEAT_NONE);
    ttt_play(&s, "00");
    cr_expect_eq(T->status(&s).to_move, 1);
    ttt_play(&s, "10 01 11 02");
    st = T->status(&s);
    cr_expect_eq(st.phase, KD_PHASE_WON);
    cr_expect_eq(st.winner, 0);
    cr_expect_eq(st.to_move, KD_SEAT_NONE);

    ttt_new(&s, 0);
    ttt_play(&s, "00 01 02 11 10 12 21 20");
    ttt_play(&s, "22");
    cr_assert_eq(s.status, KD_TTT_DRAW, "X O X / X O O / O X X");
    st = T->status(&s);
    cr_expect_eq(st.phase, KD_PHASE_DRAW);
    cr_expect_eq(st.winner, KD_SEAT_NONE);
    cr_expect_eq(st.to_move, KD_SEAT_NONE);

    ttt_new(&s, 0);
    ttt_play(&s, "00 10 01 11 22 12");
    st = T->status(&s);
    cr_expect_eq(st.phase, KD_PHASE_WON);
    cr_expect_eq(st.winner, 1, "O won");
}

/* ---------------------------------------------------------------- moves */

/* Executes command bytes signed by `seat`'s key on a copy of `s`. */
static kd_err exec_as(const kd_ttt_state *s, int seat, const uint8_t *cmd, size_t len, kd_ttt_state *after,
                      kd_reject *rej)
{
    *after = *s;
    kd_ttt_undo undo;
    memset(rej, 0, sizeof *rej);
    return kd_tictactoe_ops.execute(after, cmd, len, &s->players[seat], NULL, &undo, rej);
}

/* Every legal move of the seat to move executes; the other seat has none;
 * every empty cell is among them (and nothing else). Walks random games. */
Test(ttt_type, every_legal_move_executes)
{
    uint64_t rng = ttt_seed("every_legal_move_executes", 12);
    kd_legal_moves moves;
    kd_legal_moves_init(&moves);
    for (int game = 0; game < 60; game++) {
        kd_ttt_state s;
        ttt_new(&s, (uint8_t)(game % 9));
        for (int ply = 0; ply < 30; ply++) {
            kd_game_status st = T->status(&s);
            for (int seat = 0; seat < 2; seat++) {
                kd_legal_moves_clear(&moves);
                cr_assert_eq(T->legal_moves(&s, seat, &moves), KD_OK);
                if (seat != st.to_move) {
                    cr_expect_eq(moves.count, 0, "seat %d may not act", seat);
                    continue;
                }
                kd_ttt_cell cells[9];
                cr_expect_eq(moves.count, kd_ttt_legal_moves(&s, cells));
                for (size_t i = 0; i < moves.count; i++) {
                    kd_ttt_state after;
                    kd_reject rej;
                    const kd_legal_move *m = &moves.moves[i];
                    cr_expect_eq(exec_as(&s, seat, m->command, m->command_len, &after, &rej), KD_OK,
                                 "legal move %s refused: %s", m->notation, rej.detail);
                    char want[KD_NOTATION_MAX];
                    snprintf(want, sizeof want, "(%u, %u)", cells[i].row, cells[i].col);
                    cr_expect_str_eq(m->notation, want);
                    json_t *j = T->command_to_json(m->command, m->command_len);
                    cr_expect_not_null(j, "a legal move's command has a JSON form");
                    json_decref(j);
                }
            }
            kd_legal_moves_clear(&moves);
            cr_assert_eq(T->legal_moves(&s, KD_SEAT_PUBLIC, &moves), KD_OK);
            cr_expect_eq(moves.count, 0, "the public acts for no seat");
            if (st.phase != KD_PHASE_IN_PROGRESS)
                break;
            kd_buf cmd;
            kd_buf_init(&cmd);
            cr_assert_eq(T->random_command(&s, st.to_move, 1, &rng, &cmd), KD_OK);
            kd_ttt_state after;
            kd_reject rej;
            cr_assert_eq(exec_as(&s, st.to_move, cmd.data, cmd.len, &after, &rej), KD_OK,
                         "a random legal command executes: %s", rej.detail);
            kd_buf_fini(&cmd);
            s = after;
        }
        kd_game_status st = T->status(&s);
        if (st.phase != KD_PHASE_IN_PROGRESS) {
            kd_buf cmd;
            kd_buf_init(&cmd);
            cr_expect_eq(T->random_command(&s, 0, 1, &rng, &cmd), KD_ERR_NO_MOVE);
            kd_buf_fini(&cmd);
        }
    }
    kd_legal_moves_fini(&moves);
}

Test(ttt_type, random_illegal_commands_are_refused_by_a_rule)
{
    uint64_t rng = ttt_seed("random_illegal_commands_are_refused_by_a_rule", 34);
    int seen_occupied = 0, seen_wrong_turn = 0, seen_game_over = 0;
    for (int game = 0; game < 40; game++) {
        kd_ttt_state s;
        ttt_new(&s, (uint8_t)(game % 9));
        for (int ply = 0; ply < 12; ply++) {
            for (int seat = 0; seat < 2; seat++) {
                kd_buf cmd;
                kd_buf_init(&cmd);
                cr_assert_eq(T->random_command(&s, seat, 0, &rng, &cmd), KD_OK);
                kd_ttt_state after;
                kd_reject rej;
                kd_err err = exec_as(&s, seat, cmd.data, cmd.len, &after, &rej);
                cr_assert_neq(err, KD_OK, "an illegal command executed");
                const char *code = kd_reject_code(err, &rej);
                cr_expect(type_test_is_rule_code(T, code), "refused by %s, not by a rule of the type", code);
                cr_expect_eq(memcmp(&after, &s, sizeof s), 0, "a refused command changes nothing");
                seen_occupied |= strcmp(code, "cell_occupied") == 0;
                seen_wrong_turn |= strcmp(code, "wrong_turn") == 0;
                seen_game_over |= strcmp(code, "game_over") == 0;
                kd_buf_fini(&cmd);
            }
            kd_game_status st = T->status(&s);
            if (st.phase != KD_PHASE_IN_PROGRESS)
                break;
            kd_buf cmd;
            kd_buf_init(&cmd);
            cr_assert_eq(T->random_command(&s, st.to_move, 1, &rng, &cmd), KD_OK);
            kd_ttt_state after;
            kd_reject rej;
            cr_assert_eq(exec_as(&s, st.to_move, cmd.data, cmd.len, &after, &rej), KD_OK);
            s = after;
            kd_buf_fini(&cmd);
        }
    }
    cr_expect(seen_occupied && seen_wrong_turn && seen_game_over, "occupied %d, wrong turn %d, game over %d",
              seen_occupied, seen_wrong_turn, seen_game_over);
}

Test(ttt_type, bot_plays_the_search_move)
{
    kd_ttt_state s;
    ttt_new(&s, 0);
    ttt_play(&s, "00 10 01 11"); /* X wins at (0, 2) */
    kd_buf cmd, want;
    kd_buf_init(&cmd);
    kd_buf_init(&want);
    cr_assert_eq(T->bot_command(&s, 4, 0, &cmd), KD_OK);
    cr_assert_eq(kd_ttt_move_encode(0, 2, 0, &want), KD_OK);
    cr_expect(cmd.len == want.len && memcmp(cmd.data, want.data, cmd.len) == 0, "the bot takes the win");
    for (uint64_t tb = 0; tb < 8; tb++) {
        kd_ttt_state t;
        ttt_new(&t, 3);
        ttt_play(&t, "11 00");
        kd_ttt_cell c;
        cr_assert_eq(kd_search_move(&t, 4, tb, &c), KD_OK);
        cmd.len = want.len = 0;
        cr_assert_eq(T->bot_command(&t, 4, tb, &cmd), KD_OK);
        cr_assert_eq(kd_ttt_move_encode(c.row, c.col, 0, &want), KD_OK);
        cr_expect(cmd.len == want.len && memcmp(cmd.data, want.data, cmd.len) == 0, "tiebreak %llu",
                  (unsigned long long)tb);
    }
    ttt_play(&s, "02");
    cmd.len = 0;
    cr_expect_eq(T->bot_command(&s, 4, 0, &cmd), KD_ERR_NO_MOVE);
    kd_buf_fini(&cmd);
    kd_buf_fini(&want);
}

/* ---------------------------------------------------------------- views */

Test(ttt_type, view_bytes_render_todays_json)
{
    kd_ttt_state s;
    ttt_new(&s, 3);
    ttt_play(&s, "00 11 02 20"); /* the fourth move evicted X(0,0) */
    kd_buf pub, seat0;
    kd_buf_init(&pub);
    kd_buf_init(&seat0);
    type_test_view(T, &s, KD_SEAT_PUBLIC, &pub);
    type_test_view(T, &s, 0, &seat0);
    cr_expect(pub.len == seat0.len && memcmp(pub.data, seat0.data, pub.len) == 0, "tic-tac-toe hides nothing");

    json_t *j = T->view_json(pub.data, pub.len);
    type_test_expect_json(
        j, "{\"board\": [[0, 0, 1], [0, 2, 0], [2, 0, 0]], \"current\": \"X\", \"status\": \"in_progress\","
           " \"cap\": 3, \"recent_moves\": [{\"row\": 1, \"col\": 1, \"player\": \"O\"},"
           " {\"row\": 0, \"col\": 2, \"player\": \"X\"}, {\"row\": 2, \"col\": 0, \"player\": \"O\"}],"
           " \"next_to_remove\": {\"row\": 1, \"col\": 1, \"player\": \"O\"}, \"move_count\": 4}");
    char *text = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
    cr_expect_str_eq(text,
                     "{\"board\":[[0,0,1],[0,2,0],[2,0,0]],\"current\":\"X\",\"status\":\"in_progress\","
                     "\"cap\":3,\"recent_moves\":[{\"row\":1,\"col\":1,\"player\":\"O\"},"
                     "{\"row\":0,\"col\":2,\"player\":\"X\"},{\"row\":2,\"col\":0,\"player\":\"O\"}],"
                     "\"next_to_remove\":{\"row\":1,\"col\":1,\"player\":\"O\"},\"move_count\":4}",
                     "today's member order");
    free(text);
    json_decref(j);

    j = T->strategy_context(pub.data, pub.len);
    type_test_expect_json(j,
                          "{\"board\": [[0, 0, 1], [0, 2, 0], [2, 0, 0]], \"current\": \"X\", \"cap\": 3,"
                          " \"next_to_remove\": {\"row\": 1, \"col\": 1, \"player\": \"O\"},"
                          " \"recent_moves\": [{\"row\": 1, \"col\": 1, \"player\": \"O\"},"
                          " {\"row\": 0, \"col\": 2, \"player\": \"X\"}, {\"row\": 2, \"col\": 0, \"player\": \"O\"}],"
                          " \"rule_text\": \"The board shows at most 3 symbols; before your move, the oldest symbol is"
                          " removed.\"}");
    json_decref(j);

    kd_buf out;
    kd_buf_init(&out);
    cr_assert_eq(T->render_text(pub.data, pub.len, 0, &out), KD_OK);
    cr_assert_eq(kd_buf_append(&out, "", 1), KD_OK);
    cr_expect_str_eq((const char *)out.data, "    0 1 2\n"
                                             "  0 . . X\n"
                                             "  1 . o .\n"
                                             "  2 O . .\n"
                                             "  X to move | stress cap 3 | removed next: O at (1,1) | moves 4\n");
    out.len = 0;
    cr_assert_eq(T->prompt(pub.data, pub.len, 7, 1, &out), KD_OK);
    cr_assert_eq(kd_buf_append(&out, "", 1), KD_OK);
    cr_expect_str_eq((const char *)out.data,
                     "You are playing tic-tac-toe as O in episode 7, in stress mode.\n"
                     "Rule: The board shows at most 3 symbols; before your move, the oldest symbol is removed.\n"
                     "Three of your marks in a row, column or diagonal win.\n\n"
                     "Board (row and column count from 0; X, O, . for empty):\n"
                     "    0 1 2\n"
                     "  0 . . X\n"
                     "  1 . o .\n"
                     "  2 O . .\n"
                     "  X to move | stress cap 3 | removed next: O at (1,1) | moves 4\n"
                     "\nRecent moves (oldest to newest): (1, 1, O), (0, 2, X), (2, 0, O)\n"
                     "Will be removed next: (1, 1, O) — it disappears before the next mark is placed, and its "
                     "cell stays occupied until then.\n"
                     "\nIt is X's turn, not yours; wait for their move.\n");
    out.len = 0;
    cr_expect_eq(T->prompt(pub.data, pub.len, 7, 2, &out), KD_ERR_INVALID_ARG);

    /* Bytes that are not a TttView render nothing. */
    static const uint8_t junk[] = {0x0a, 0x01, 0x07};
    cr_expect_null(T->view_json(junk, sizeof junk));
    cr_expect_null(T->strategy_context(junk, sizeof junk));
    cr_expect_eq(T->render_text(junk, sizeof junk, 0, &out), KD_ERR_DECODE);
    cr_expect_eq(T->prompt(junk, sizeof junk, 7, 0, &out), KD_ERR_DECODE);
    kd_buf_fini(&out);
    kd_buf_fini(&pub);
    kd_buf_fini(&seat0);
}

Test(ttt_type, view_bytes_round_trip_the_view)
{
    uint64_t rng = ttt_seed("view_bytes_round_trip_the_view", 56);
    for (int game = 0; game < 30; game++) {
        kd_ttt_state s;
        ttt_new(&s, (uint8_t)(game % 9));
        for (int ply = 0; ply < 14; ply++) {
            kd_ttt_view want, got;
            kd_ttt_view_of(&s, &want);
            kd_buf b;
            kd_buf_init(&b);
            type_test_view(T, &s, KD_SEAT_PUBLIC, &b);
            cr_assert_eq(kd_ttt_view_decode(b.data, b.len, &got), KD_OK);
            cr_expect_eq(memcmp(&got, &want, sizeof want), 0, "game %d ply %d", game, ply);
            kd_buf_fini(&b);
            kd_game_status st = T->status(&s);
            if (st.phase != KD_PHASE_IN_PROGRESS)
                break;
            kd_buf cmd;
            kd_buf_init(&cmd);
            cr_assert_eq(T->random_command(&s, st.to_move, 1, &rng, &cmd), KD_OK);
            kd_ttt_undo undo;
            cr_assert_eq(kd_tictactoe_ops.execute(&s, cmd.data, cmd.len, &s.players[st.to_move], NULL, &undo, NULL),
                         KD_OK);
            kd_buf_fini(&cmd);
        }
    }
}

Test(tictactoe_type, describe_change_names_evictions_and_what_a_rollback_brings_back)
{
    kd_ttt_state before, after;
    ttt_new(&before, 2);
    ttt_play(&before, "00 11");
    after = before;
    kd_ttt_undo undo;
    cr_assert_eq(ttt_move(&after, 2, 2, &undo, NULL), KD_OK);
    kd_buf text;
    kd_buf_init(&text);
    cr_assert_eq(T->describe_change(&before, &after, &text), KD_OK);
    cr_assert_eq(kd_buf_append(&text, "", 1), KD_OK);
    cr_expect_str_eq((const char *)text.data, "first the oldest mark, X at (0,0), is removed\n");
    text.len = 0;
    cr_assert_eq(T->describe_change(&after, &before, &text), KD_OK);
    cr_assert_eq(kd_buf_append(&text, "", 1), KD_OK);
    cr_expect_str_eq((const char *)text.data, "restored: X at (0,0) came back: the undone move had evicted it\n"
                                              "undone:   X at (2,2) was placed in a reverted block\n");
    text.len = 0;
    cr_assert_eq(T->describe_change(&before, &before, &text), KD_OK);
    cr_expect_eq(text.len, 0, "nothing changed, nothing said");
    kd_buf_fini(&text);
}
