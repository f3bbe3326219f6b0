/*
 * seabattle_type_test.c — sea battle's entry in the type table
 * (kd_seabattle_type): identity and registration, params and command JSON
 * (round trips and refusals), status, the view bytes and every rendering
 * made from them (never a fleet), legal moves, random commands (legal ones
 * execute, illegal ones are refused by a rule of the type, none for a seat
 * that owes a duty), the secret hooks (the root committed from the seed,
 * the duties an opponent's engine accepts, the seat's own binding found
 * again and nobody else's acted on) and the hunt-and-target bot.
 */
#define _GNU_SOURCE /* memmem */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "episodes/episode_type.h"
#include "episodes/seabattle/seabattle.h"
#include "episodes/secrets.h"
#include "sb_support.h"
#include "type_support.h"

static const kd_episode_type *const T = &kd_seabattle_type;

Test(sb_type, identity_and_registration)
{
    cr_expect_str_eq(T->ops->type_name, "seabattle");
    cr_expect_str_eq(T->title, "Sea battle");
    cr_expect_eq(kd_episode_type_seat(T, "blue"), KD_SB_BLUE);
    cr_expect_eq(kd_episode_type_seat(T, "red"), KD_SB_RED);
    cr_expect(T->secret_commit && T->secret_duty && T->secret_binding);
    cr_expect_eq(T->house_seats, 0u, "no seat of sea battle serves all comers");
    kd_type_table table;
    kd_type_table_init(&table);
    cr_expect_eq(kd_type_table_find(&table, "seabattle"), T);
    json_t *ps = type_test_parse(T->params_schema), *cs = type_test_parse(T->command_schema);
    cr_expect(json_object_get(json_object_get(cs, "properties"), "shot"));
    cr_expect(json_object_get(json_object_get(ps, "properties"), "blue_root"));
    json_decref(ps);
    json_decref(cs);
}

Test(sb_type, params_json_and_secret_commit)
{
    sb_game g;
    sb_new_game(&g, NULL);
    json_t *params = json_object();
    char why[200] = "";
    kd_buf out;
    kd_buf_init(&out);
    cr_expect_eq(T->params_from_json(params, &out, why, sizeof why), KD_ERR_BAD_PARAMS);
    cr_expect(strstr(why, "blue_root"), "%s", why);
    /* a caller's root is replaced: the seat commits itself */
    json_object_set_new(params, "blue_root", json_string("00"));
    cr_assert_eq(T->secret_commit(KD_SB_BLUE, g.seed[1], g.binding[0], params, why, sizeof why), KD_OK);
    cr_assert_eq(T->secret_commit(KD_SB_BLUE, g.seed[0], g.binding[0], params, why, sizeof why), KD_OK);
    cr_assert_eq(T->secret_commit(KD_SB_RED, g.seed[1], g.binding[1], params, why, sizeof why), KD_OK);
    cr_expect_eq(T->secret_commit(2, g.seed[1], g.binding[1], params, why, sizeof why), KD_ERR_UNSUPPORTED);
    uint8_t root[KD_HASH_LEN];
    char hex[65];
    kd_sb_root(&g.board[0], root);
    kd_hex_encode(root, KD_HASH_LEN, hex);
    cr_expect_str_eq(json_string_value(json_object_get(params, "blue_root")), hex, "the root of the seed's board");
    kd_hex_encode(g.binding[1], KD_SECRET_BINDING_LEN, hex);
    cr_expect_str_eq(json_string_value(json_object_get(params, "red_binding")), hex, "the binding beside the root");
    cr_assert_eq(T->params_from_json(params, &out, why, sizeof why), KD_OK, "%s", why);
    kd_sb_params p;
    cr_assert_eq(kd_sb_params_decode(out.data, out.len, &p, NULL), KD_OK);
    cr_expect_eq(memcmp(p.roots, g.state.roots, sizeof p.roots), 0);
    cr_expect_eq(memcmp(p.bindings, g.state.bindings, sizeof p.bindings), 0);
    cr_expect_eq(p.timeout, KD_SB_DEFAULT_TIMEOUT);
    /* each seat finds its seed again from the state's binding; another key, store or episode does not */
    uint8_t seed[KD_SECRET_SEED_LEN];
    cr_assert_eq(kd_seat_seed(T, &g.key[0], SB_STORE_ID, SB_EPISODE, KD_SB_BLUE, &g.state, seed), KD_OK);
    cr_expect_arr_eq(seed, g.seed[0], KD_SECRET_SEED_LEN);
    cr_expect_eq(kd_seat_seed(T, &g.key[1], SB_STORE_ID, SB_EPISODE, KD_SB_BLUE, &g.state, seed), KD_ERR_NOT_FOUND);
    static const uint8_t elsewhere[KD_STORE_ID_LEN] = {1};
    cr_expect_eq(kd_seat_seed(T, &g.key[0], elsewhere, SB_EPISODE, KD_SB_BLUE, &g.state, seed), KD_ERR_NOT_FOUND);
    cr_expect_eq(kd_seat_seed(T, &g.key[0], SB_STORE_ID, SB_EPISODE + 1, KD_SB_BLUE, &g.state, seed), KD_ERR_NOT_FOUND);
    cr_expect_eq(kd_seat_seed(T, &g.key[0], SB_STORE_ID, SB_EPISODE, 2, &g.state, seed), KD_ERR_UNSUPPORTED);
    /* the deadline floor (KD_DEADLINE_MIN) in the JSON and in the rules */
    json_object_set_new(params, "timeout", json_integer(0));
    cr_expect_eq(T->params_from_json(params, &out, why, sizeof why), KD_ERR_BAD_PARAMS);
    json_object_set_new(params, "timeout", json_integer(KD_DEADLINE_MIN - 1));
    cr_expect_eq(T->params_from_json(params, &out, why, sizeof why), KD_ERR_BAD_PARAMS);
    cr_expect(strstr(why, "100"), "%s", why);
    p.timeout = KD_DEADLINE_MIN - 1;
    kd_buf raw, eff;
    kd_buf_init(&raw);
    kd_buf_init(&eff);
    cr_assert_eq(kd_sb_params_encode(&p, &raw), KD_OK);
    kd_reject rej;
    cr_expect_eq(kd_sb_ops.resolve_params(NULL, raw.data, raw.len, &eff, &rej), KD_ERR_BAD_PARAMS,
                 "the rules refuse raw params under the floor");
    kd_participants parts = {.count = 2};
    parts.keys[0] = g.key[0].pub;
    parts.keys[1] = g.key[1].pub;
    kd_sb_state st;
    kd_block_meta meta = {.daa = 1, .episode_id = SB_EPISODE};
    cr_expect_eq(kd_sb_ops.init(&st, &parts, raw.data, raw.len, &meta, &rej), KD_ERR_BAD_PARAMS, "init too");
    kd_buf_fini(&raw);
    kd_buf_fini(&eff);
    json_object_set_new(params, "timeout", json_integer(KD_DEADLINE_MIN));
    cr_expect_eq(T->params_from_json(params, &out, why, sizeof why), KD_OK, "%s", why);
    json_object_del(params, "red_binding");
    cr_expect_eq(T->params_from_json(params, &out, why, sizeof why), KD_ERR_BAD_PARAMS);
    cr_expect(strstr(why, "red_binding"), "%s", why);
    cr_assert_eq(T->secret_commit(KD_SB_RED, g.seed[1], g.binding[1], params, why, sizeof why), KD_OK);
    json_object_set_new(params, "size", json_integer(8));
    cr_expect_eq(T->params_from_json(params, &out, why, sizeof why), KD_ERR_BAD_PARAMS);
    cr_expect(strstr(why, "size"), "%s", why);
    json_object_del(params, "size");
    json_object_set_new(params, "red_root", json_string("zz"));
    cr_expect_eq(T->params_from_json(params, &out, why, sizeof why), KD_ERR_BAD_PARAMS);
    cr_expect(strstr(why, "red_root"), "%s", why);
    json_decref(params);
    kd_buf_fini(&out);
}

/* Round trip: bytes -> JSON -> bytes. */
static void round_trip(const kd_buf *bytes)
{
    json_t *j = T->command_to_json(bytes->data, bytes->len);
    cr_assert(j);
    kd_buf again;
    kd_buf_init(&again);
    char why[300];
    cr_assert_eq(T->command_from_json(j, KD_SEAT_NONE, &again, why, sizeof why), KD_OK, "%s", why);
    cr_expect(again.len == bytes->len && memcmp(again.data, bytes->data, again.len) == 0);
    json_decref(j);
    kd_buf_fini(&again);
}

Test(sb_type, command_json)
{
    sb_game g;
    sb_new_game(&g, NULL);
    kd_buf b;
    kd_buf_init(&b);
    char why[300];
    json_t *shot = type_test_parse("{\"shot\": \"c5\"}");
    cr_assert_eq(T->command_from_json(shot, KD_SEAT_NONE, &b, why, sizeof why), KD_OK);
    json_t *back = T->command_to_json(b.data, b.len);
    type_test_expect_json(back, "{\"shot\": \"c5\"}");
    json_decref(back);
    round_trip(&b);
    /* an answer and a reveal from the duties, a resign, a claim, a shot off the board */
    sb_game reveal = g;
    reveal.state.phase = KD_SB_REVEAL;
    sb_duty_bytes(&reveal, KD_SB_BLUE, &b);
    round_trip(&b);
    sb_duty_bytes(&g, KD_SB_BLUE, &b);
    round_trip(&b);
    back = T->command_to_json(b.data, b.len);
    cr_expect(json_object_get(json_object_get(back, "answer"), "path"));
    json_decref(back);
    static const char *const ok[] = {"{\"resign\": true}", "{\"claim\": true}", "{\"shot\": 120}", "{\"shot\": 0}"};
    for (size_t i = 0; i < 4; i++) {
        json_t *j = type_test_parse(ok[i]);
        b.len = 0;
        cr_assert_eq(T->command_from_json(j, KD_SEAT_NONE, &b, why, sizeof why), KD_OK, "%s", ok[i]);
        round_trip(&b);
        json_decref(j);
    }
    static const char *const bad[] = {"{\"shot\": \"k1\"}",
                                      "{\"shot\": \"a11\"}",
                                      "{\"shot\": -1}",
                                      "{\"resign\": false}",
                                      "{}",
                                      "[1]",
                                      "{\"answer\": {\"cell\": \"a1\"}}",
                                      "{\"reveal\": {\"contents\": \"00\", \"salts\": \"\"}}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *j = type_test_parse(bad[i]);
        why[0] = '\0';
        cr_expect_eq(T->command_from_json(j, KD_SEAT_NONE, &b, why, sizeof why), KD_ERR_BAD_COMMAND, "%s", bad[i]);
        cr_expect(why[0], "%s: a reason", bad[i]);
        json_decref(j);
    }
    cr_expect_null(T->command_to_json((const uint8_t *)"\xff", 1));
    json_decref(shot);
    kd_buf_fini(&b);
}

Test(sb_type, views_never_carry_a_fleet)
{
    sb_game g;
    sb_new_game(&g, NULL);
    kd_reject rej;
    cr_assert_eq(sb_simple(&g, KD_SB_BLUE, KD_SB_SHOT, 42, &rej), KD_OK);
    kd_buf v;
    kd_buf_init(&v);
    type_test_view(T, &g.state, KD_SEAT_PUBLIC, &v);
    kd_game_status st = T->status(&g.state);
    cr_expect_eq(st.to_move, KD_SB_RED, "red owes the answer");
    json_t *j = T->view_json(v.data, v.len);
    cr_assert(j);
    cr_expect_str_eq(json_string_value(json_object_get(j, "pending_shot")), "c5");
    cr_expect_str_eq(json_string_value(json_array_get(json_object_get(j, "board_red"), 4)), "..?.......");
    cr_expect_str_eq(json_string_value(json_object_get(j, "to_move")), "red");
    json_decref(j);
    cr_assert_eq(sb_pay(&g, KD_SB_RED, &rej), KD_OK);
    for (int seat = KD_SEAT_PUBLIC; seat < 2; seat++) {
        v.len = 0;
        type_test_view(T, &g.state, seat, &v);
        /* no salt of either board, nor a root-free content, in the bytes */
        for (int s = 0; s < 2; s++)
            for (int i = 0; i < KD_SB_CELLS; i++)
                cr_assert_null(memmem(v.data, v.len, g.board[s].salts[i], 8), "seat %d's view holds a salt", seat);
        json_t *ctx = T->strategy_context(v.data, v.len);
        cr_assert(ctx);
        char *text = json_dumps(ctx, 0);
        int ship_rows = 0;
        for (int r = 0; r < KD_SB_SIZE; r++) {
            const char *row = json_string_value(json_array_get(json_object_get(ctx, "board_red"), (size_t)r));
            ship_rows += row && strpbrk(row, "12345") != NULL;
        }
        cr_expect_eq(ship_rows, 0, "marks only: %s", text);
        cr_expect_eq(json_array_size(json_object_get(ctx, "legal_shots")), 100,
                     "red shoots at blue's 100 unshot cells");
        free(text);
        json_decref(ctx);
    }
    kd_buf text;
    kd_buf_init(&text);
    cr_assert_eq(T->render_text(v.data, v.len, 0, &text), KD_OK);
    cr_assert_eq(kd_buf_append(&text, "", 1), KD_OK);
    cr_expect(strstr((char *)text.data, "a b c d e f g h i j"), "%s", (char *)text.data);
    cr_expect(strstr((char *)text.data, "red to shoot"), "%s", (char *)text.data);
    text.len = 0;
    cr_assert_eq(T->prompt(v.data, v.len, SB_EPISODE, KD_SB_RED, &text), KD_OK);
    cr_assert_eq(kd_buf_append(&text, "", 1), KD_OK);
    cr_expect(strstr((char *)text.data, "{\"shot\": \"CELL\"}"), "%s", (char *)text.data);
    text.len = 0;
    cr_assert_eq(T->prompt(v.data, v.len, SB_EPISODE, KD_SB_BLUE, &text), KD_OK);
    cr_assert_eq(kd_buf_append(&text, "", 1), KD_OK);
    cr_expect(strstr((char *)text.data, "not your shot"), "%s", (char *)text.data);
    cr_expect_eq(T->prompt(v.data, v.len, 1, 2, &text), KD_ERR_INVALID_ARG);
    cr_expect_eq(T->render_text((const uint8_t *)"x", 1, 0, &text), KD_ERR_DECODE);
    kd_buf_fini(&text);
    kd_buf_fini(&v);
}

Test(sb_type, legal_and_random_commands_and_duties)
{
    sb_game g;
    sb_new_game(&g, NULL);
    kd_legal_moves moves;
    kd_legal_moves_init(&moves);
    kd_reject rej;
    uint64_t rng = 11;
    kd_buf cmd;
    kd_buf_init(&cmd);
    for (int step = 0; step < 400 && g.state.phase != KD_SB_OVER; step++) {
        int seat = kd_sb_to_move(&g.state);
        kd_legal_moves_clear(&moves);
        cr_assert_eq(T->legal_moves(&g.state, seat, &moves), KD_OK);
        kd_legal_moves_clear(&moves);
        cr_assert_eq(T->legal_moves(&g.state, 1 - seat, &moves), KD_OK);
        cr_expect_eq(moves.count, 0, "the seat not to act has no move");
        /* an illegal command is refused by one of the type's rules */
        cmd.len = 0;
        cr_assert_eq(T->random_command(&g.state, seat, 0, &rng, &cmd), KD_OK);
        if (g.state.phase == KD_SB_PLAY) {
            cr_expect_eq(sb_exec(&g, &cmd, &g.key[seat].pub, &rej), KD_ERR_RULE);
            cr_expect(type_test_is_rule_code(T, rej.code), "%s", rej.code);
        }
        cmd.len = 0;
        kd_err err = T->random_command(&g.state, seat, 1, &rng, &cmd);
        int owes = g.state.phase == KD_SB_REVEAL || g.state.pending != KD_SB_NO_CELL;
        kd_legal_moves_clear(&moves);
        cr_assert_eq(T->legal_moves(&g.state, seat, &moves), KD_OK);
        if (owes) {
            cr_expect_eq(err, KD_ERR_NO_MOVE, "a duty is no random move");
            cr_expect_eq(moves.count, 0, "a seat owing a duty lists no move");
            cmd.len = 0;
            cr_assert_eq(T->secret_duty(&g.state, seat, g.seed[seat], &cmd), KD_OK);
            kd_buf other;
            kd_buf_init(&other);
            kd_err want = g.state.phase == KD_SB_REVEAL && !g.state.revealed[1 - seat] ? KD_OK : KD_ERR_NO_MOVE;
            cr_expect_eq(T->secret_duty(&g.state, 1 - seat, g.seed[1 - seat], &other), want,
                         "in the reveal both seats owe their boards; in the play only the defender");
            kd_buf_fini(&other);
        } else {
            cr_assert_eq(err, KD_OK);
            cr_expect_gt(moves.count, 0);
            for (size_t i = 0; i < moves.count; i++)
                cr_expect_eq(g.state.marks[1 - seat][kd_sb_cell_parse(moves.moves[i].notation)], 0);
        }
        cr_assert_eq(sb_exec(&g, &cmd, &g.key[seat].pub, &rej), KD_OK, "%s: %s", rej.code, rej.detail);
        g.daa++;
    }
    cr_expect_eq(g.state.phase, KD_SB_OVER, "random shots and paid duties end a game");
    cmd.len = 0;
    cr_expect_eq(T->random_command(&g.state, 0, 1, &rng, &cmd), KD_ERR_NO_MOVE);
    cr_expect_eq(T->secret_duty(&g.state, 0, g.seed[0], &cmd), KD_ERR_NO_MOVE);
    kd_legal_moves_fini(&moves);
    kd_buf_fini(&cmd);
}

/* Plays a game: `bot_seat` uses the bot, the other random shots; the number
 * of shots the bot needed to sink the fleet, or 0 when it lost. */
static unsigned bot_game(uint64_t seed, int bot_seat)
{
    sb_game g;
    sb_new_game(&g, NULL);
    kd_reject rej;
    uint64_t rng = seed;
    kd_buf cmd;
    kd_buf_init(&cmd);
    unsigned shots = 0;
    while (g.state.phase == KD_SB_PLAY) {
        int seat = kd_sb_to_move(&g.state);
        cmd.len = 0;
        if (g.state.pending != KD_SB_NO_CELL)
            cr_assert_eq(T->secret_duty(&g.state, seat, g.seed[seat], &cmd), KD_OK);
        else if (seat == bot_seat) {
            cr_assert_eq(T->bot_command(&g.state, 1, rng++, &cmd), KD_OK);
            shots++;
        } else
            cr_assert_eq(T->random_command(&g.state, seat, 1, &rng, &cmd), KD_OK);
        cr_assert_eq(sb_exec(&g, &cmd, &g.key[seat].pub, &rej), KD_OK, "%s", rej.detail);
    }
    kd_buf_fini(&cmd);
    return g.state.winner == bot_seat ? shots : 0;
}

Test(sb_type, the_bot_hunts_and_targets)
{
    /* after a hit on the ship of length 2, afloat, the bot shoots next to it
     * (for a longer ship near an edge the cell most placements cover may be
     * two away) */
    sb_game g;
    sb_new_game(&g, NULL);
    kd_reject rej;
    uint32_t ship = 0;
    while (g.board[1].contents[ship] != 5)
        ship++;
    cr_assert_eq(sb_simple(&g, KD_SB_BLUE, KD_SB_SHOT, ship, &rej), KD_OK);
    cr_assert_eq(sb_pay(&g, KD_SB_RED, &rej), KD_OK);
    cr_assert_eq(sb_simple(&g, KD_SB_RED, KD_SB_SHOT, 0, &rej), KD_OK);
    cr_assert_eq(sb_pay(&g, KD_SB_BLUE, &rej), KD_OK);
    kd_buf cmd;
    kd_buf_init(&cmd);
    for (uint64_t t = 0; t < 4; t++) {
        cmd.len = 0;
        cr_assert_eq(T->bot_command(&g.state, 1, t, &cmd), KD_OK);
        kd_sb_command c;
        cr_assert_eq(kd_sb_command_decode(cmd.data, cmd.len, &c, NULL), KD_OK);
        int dr = (int)(c.cell / 10) - (int)(ship / 10), dc = (int)(c.cell % 10) - (int)(ship % 10);
        cr_expect_eq(abs(dr) + abs(dc), 1, "next to the hit at %u: %u", ship, c.cell);
    }
    kd_buf_fini(&cmd);
    /* and beats random shooting: it sinks a fleet in far fewer shots */
    unsigned total = 0, won = 0;
    for (uint64_t s = 1; s <= 6; s++) {
        unsigned n = bot_game(s, (int)(s % 2));
        won += n > 0;
        total += n;
    }
    cr_expect_eq(won, 6, "the bot wins every game against random shots");
    cr_expect_lt(total / 6, 70, "mean shots to sink: %u", total / 6);
    cr_log_info("the bot sank the fleet in %u shots on average", total / 6);
}
