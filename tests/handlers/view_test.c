/*
 * view_test.c — the generic enriched view (handlers/view.h), with
 * tic-tac-toe as the type at hand: the EpisodeView protobuf round-trips
 * every field (view and state bytes, phase, winner, seat to move), unpack
 * refuses what does not validate and keeps the raw bytes of a type the
 * table does not know, the strategy context has exactly the DESIGN.md keys
 * with the right JSON types, and golden JSON and text for a known
 * stress-mode state (after an eviction) and a classic state.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/crypto.h"
#include "episodes/tictactoe/tictactoe.h"
#include "handlers/view.h"

/* Two keys for X and O. */
static void players(kd_key *x, kd_key *o, kd_participants *parts)
{
    cr_assert_eq(kd_key_test("x", x), KD_OK);
    cr_assert_eq(kd_key_test("o", o), KD_OK);
    parts->count = 2;
    parts->keys[0] = x->pub;
    parts->keys[1] = o->pub;
}

/* Plays "rc rc ..." for the side to move with its own key. */
static void play(kd_ttt_state *s, const kd_key *x, const kd_key *o, const char *moves)
{
    for (const char *p = moves; *p; p++) {
        if (*p == ' ')
            continue;
        kd_ttt_move mv = {(uint32_t)(p[0] - '0'), (uint32_t)(p[1] - '0'), s->turn == KD_TTT_X ? 0 : 1};
        kd_ttt_undo undo;
        kd_reject rej = {{0}, {0}};
        kd_err err = kd_ttt_play(s, &mv, mv.player ? &o->pub : &x->pub, &undo, &rej);
        cr_assert_eq(err, KD_OK, "move %c%c: %s (%s)", p[0], p[1], kd_err_code(err), rej.detail);
        p++;
    }
}

/* Cap 3, X(0,0) O(1,1) X(0,2) O(2,0): the fourth move evicted X(0,0);
 * O(1,1) goes next. */
static void stress_state(kd_ttt_state *s)
{
    kd_key x, o;
    kd_participants parts;
    players(&x, &o, &parts);
    cr_assert_eq(kd_ttt_state_init(s, &parts, 3, NULL), KD_OK);
    play(s, &x, &o, "00 11 02 20");
}

static void expect_json(json_t *got, const char *want_text)
{
    json_error_t jerr;
    json_t *want = json_loads(want_text, 0, &jerr);
    cr_assert_not_null(want, "golden JSON does not parse: %s", jerr.text);
    cr_assert_not_null(got);
    char *g = json_dumps(got, JSON_SORT_KEYS | JSON_COMPACT);
    char *w = json_dumps(want, JSON_SORT_KEYS | JSON_COMPACT);
    cr_expect(json_equal(got, want), "JSON differs:\n got  %s\n want %s", g, w);
    free(g);
    free(w);
    json_decref(want);
}

/* A view of `s` as read from the store: episode 4242 (or `id`), last event
 * a command, block 0x11.., digest 0x22.., log position 77. */
static void view_of(const kd_type_table *types, const kd_ttt_state *s, uint32_t id, kd_episode_view *v)
{
    kd_episode_snapshot snap;
    memset(&snap, 0, sizeof snap);
    snap.id = id;
    snap.ops = &kd_tictactoe_ops;
    snap.participants.count = 2;
    snap.participants.keys[0] = s->players[0];
    snap.participants.keys[1] = s->players[1];
    snap.last_event = KD_EVENT_COMMAND;
    memset(snap.updated_block, 0x11, KD_HASH_LEN);
    snap.updated_seq = 77;
    snap.undo_depth = s->move_count; /* every command a move */
    snap.state = (void *)s;
    uint8_t digest[KD_HASH_LEN];
    memset(digest, 0x22, sizeof digest);
    cr_assert_eq(kd_episode_view_from_snapshot(types, &snap, digest, v), KD_OK);
}

Test(view, episode_view_round_trips_through_protobuf)
{
    kd_type_table types;
    kd_type_table_init(&types);
    kd_ttt_state s;
    stress_state(&s);
    kd_episode_view v, back;
    kd_episode_view_init(&v);
    kd_episode_view_init(&back);
    view_of(&types, &s, 4242, &v);
    cr_assert_eq(v.type, &kd_tictactoe_type);
    cr_expect_eq(v.status.phase, KD_PHASE_IN_PROGRESS);
    cr_expect_eq(v.status.to_move, 0, "X to move");
    cr_expect_eq(v.status.winner, KD_SEAT_NONE);
    cr_expect_gt(v.view.len, 0);
    cr_expect_gt(v.state.len, 0);

    kd_buf b;
    kd_buf_init(&b);
    cr_assert_eq(kd_episode_view_pack(&v, &b), KD_OK);
    cr_assert_eq(kd_episode_view_unpack(&types, b.data, b.len, &back), KD_OK);
    cr_expect_eq(back.episode_id, 4242);
    cr_expect_str_eq(back.type_name, KD_TTT_TYPE_NAME);
    cr_expect_eq(back.type, &kd_tictactoe_type);
    cr_expect_eq(back.participants.count, 2);
    cr_expect_eq(memcmp(back.participants.keys, v.participants.keys, 2 * sizeof(kd_pubkey)), 0);
    cr_expect_eq(back.last_event, KD_EVENT_COMMAND);
    cr_expect_eq(memcmp(back.block_hash, v.block_hash, KD_HASH_LEN), 0);
    cr_expect_eq(memcmp(back.digest, v.digest, KD_HASH_LEN), 0);
    cr_expect_eq(back.log_seq, 77);
    cr_expect_eq(back.deleted, 0);
    cr_expect_eq(memcmp(&back.status, &v.status, sizeof v.status), 0, "phase, winner, seat to move");
    cr_assert_eq(back.view.len, v.view.len);
    cr_expect_eq(memcmp(back.view.data, v.view.data, v.view.len), 0, "view bytes");
    cr_assert_eq(back.state.len, v.state.len);
    cr_expect_eq(memcmp(back.state.data, v.state.data, v.state.len), 0, "state bytes");

    /* A won game: the winner travels as seat + 1. */
    kd_key x, o;
    kd_participants parts;
    players(&x, &o, &parts);
    cr_assert_eq(kd_ttt_state_init(&s, &parts, 0, NULL), KD_OK);
    play(&s, &x, &o, "00 10 01 11 02");
    view_of(&types, &s, 5, &v);
    cr_expect_eq(v.status.phase, KD_PHASE_WON);
    cr_expect_eq(v.status.winner, 0);
    cr_expect_eq(v.status.to_move, KD_SEAT_NONE);
    b.len = 0;
    cr_assert_eq(kd_episode_view_pack(&v, &b), KD_OK);
    cr_assert_eq(kd_episode_view_unpack(&types, b.data, b.len, &back), KD_OK);
    cr_expect_eq(back.status.phase, KD_PHASE_WON);
    cr_expect_eq(back.status.winner, 0);
    cr_expect_eq(back.status.to_move, KD_SEAT_NONE);

    /* A deleted episode (rolled-back creation) has no state and no view. */
    kd_episode_view del = v;
    del.deleted = 1;
    del.view.len = 0;
    del.state.len = 0;
    del.status = (kd_game_status){KD_PHASE_IN_PROGRESS, KD_SEAT_NONE, KD_SEAT_NONE};
    del.last_event = KD_EVENT_ROLLBACK;
    b.len = 0;
    cr_assert_eq(kd_episode_view_pack(&del, &b), KD_OK);
    cr_assert_eq(kd_episode_view_unpack(&types, b.data, b.len, &back), KD_OK);
    cr_expect_eq(back.deleted, 1);
    cr_expect_eq(back.view.len, 0);
    cr_expect_eq(back.state.len, 0);
    cr_expect_eq(back.last_event, KD_EVENT_ROLLBACK);
    kd_buf render;
    kd_buf_init(&render);
    cr_expect_eq(kd_episode_view_render(&back, 0, &render), KD_ERR_NOT_FOUND);
    cr_expect_null(kd_episode_view_strategy_json(&back));
    kd_buf_fini(&render);

    static const uint8_t junk[] = {0xff, 0xff, 0xff};
    cr_expect_eq(kd_episode_view_unpack(&types, junk, sizeof junk, &back), KD_ERR_DECODE);
    kd_buf_fini(&b);
    kd_episode_view_fini(&v);
    kd_episode_view_fini(&back);
}

/* Packs `v` after `spoil` changed it and expects unpack to refuse it. */
static void expect_refused(const kd_type_table *types, kd_episode_view *v, const char *what)
{
    kd_buf b;
    kd_buf_init(&b);
    kd_episode_view back;
    kd_episode_view_init(&back);
    cr_assert_eq(kd_episode_view_pack(v, &b), KD_OK);
    cr_expect_eq(kd_episode_view_unpack(types, b.data, b.len, &back), KD_ERR_DECODE, "%s", what);
    cr_expect_eq(back.view.len + back.state.len, 0, "%s: nothing kept", what);
    kd_episode_view_fini(&back);
    kd_buf_fini(&b);
}

Test(view, unpack_validates_a_known_type_and_keeps_an_unknown_one_raw)
{
    kd_type_table types;
    kd_type_table_init(&types);
    kd_ttt_state s;
    stress_state(&s);
    kd_episode_view v;
    kd_episode_view_init(&v);
    view_of(&types, &s, 1, &v);

    kd_game_status good = v.status;
    v.status.to_move = 1; /* the state says X */
    expect_refused(&types, &v, "a seat to move the state disagrees with");
    v.status = good;
    v.status.phase = KD_PHASE_WON;
    v.status.winner = 5; /* two seats only */
    v.status.to_move = KD_SEAT_NONE;
    expect_refused(&types, &v, "a winner beyond the seats");
    v.status = good;
    uint8_t saved = v.view.data[0];
    v.view.data[0] = 0xff;
    expect_refused(&types, &v, "view bytes that do not decode");
    v.view.data[0] = saved;
    v.state.data[0] = 0x7f; /* state version */
    expect_refused(&types, &v, "state bytes that do not decode");

    /* A type this table does not know: its bytes pass through untouched,
     * and only the generic fields render. */
    kd_episode_view nim, back;
    kd_episode_view_init(&nim);
    kd_episode_view_init(&back);
    nim.episode_id = 3;
    snprintf(nim.type_name, sizeof nim.type_name, "nim");
    nim.participants = v.participants;
    nim.status = (kd_game_status){KD_PHASE_IN_PROGRESS, KD_SEAT_NONE, 1};
    static const uint8_t nim_view[] = {1, 2, 3}, nim_state[] = {4, 5};
    cr_assert_eq(kd_buf_append(&nim.view, nim_view, sizeof nim_view), KD_OK);
    cr_assert_eq(kd_buf_append(&nim.state, nim_state, sizeof nim_state), KD_OK);
    kd_buf b;
    kd_buf_init(&b);
    cr_assert_eq(kd_episode_view_pack(&nim, &b), KD_OK);
    cr_assert_eq(kd_episode_view_unpack(&types, b.data, b.len, &back), KD_OK);
    cr_expect_null(back.type);
    cr_expect_str_eq(back.type_name, "nim");
    cr_expect_eq(back.status.to_move, 1);
    cr_assert_eq(back.view.len, sizeof nim_view);
    cr_expect_eq(memcmp(back.view.data, nim_view, sizeof nim_view), 0);
    cr_assert_eq(back.state.len, sizeof nim_state);
    cr_expect_eq(memcmp(back.state.data, nim_state, sizeof nim_state), 0);
    kd_buf text;
    kd_buf_init(&text);
    cr_expect_eq(kd_episode_view_render(&back, 0, &text), KD_ERR_UNKNOWN_TYPE);
    cr_expect_eq(kd_episode_view_prompt(&back, 0, &text), KD_ERR_UNKNOWN_TYPE);
    cr_expect_null(kd_episode_view_strategy_json(&back));
    json_t *j = kd_episode_view_json(&back);
    cr_assert_not_null(j);
    cr_expect_str_eq(json_string_value(json_object_get(j, "state")), "0405");
    cr_expect_eq(json_integer_value(json_object_get(j, "to_move")), 1);
    cr_expect_eq(json_array_size(json_object_get(j, "seats")), 0, "no seat names for an unknown type");
    cr_expect_null(json_object_get(j, "board"));
    json_decref(j);
    kd_buf_fini(&text);
    kd_buf_fini(&b);
    kd_episode_view_fini(&nim);
    kd_episode_view_fini(&back);
    kd_episode_view_fini(&v);
}

/* The strategy context of `s` through the generic view. */
static json_t *strategy_of(const kd_ttt_state *s)
{
    kd_type_table types;
    kd_type_table_init(&types);
    kd_episode_view v;
    kd_episode_view_init(&v);
    view_of(&types, s, 1, &v);
    json_t *j = kd_episode_view_strategy_json(&v);
    kd_episode_view_fini(&v);
    return j;
}

Test(view, strategy_context_has_exactly_the_contract_keys_and_types)
{
    static const char *const keys[] = {"board", "current", "cap", "next_to_remove", "recent_moves", "rule_text"};
    kd_ttt_state s;
    stress_state(&s);
    json_t *j = strategy_of(&s);
    cr_assert(json_is_object(j));
    cr_expect_eq(json_object_size(j), 6, "exactly six keys");
    for (size_t i = 0; i < 6; i++)
        cr_expect_not_null(json_object_get(j, keys[i]), "key %s", keys[i]);
    json_t *board = json_object_get(j, "board");
    cr_assert(json_is_array(board) && json_array_size(board) == 3);
    for (size_t r = 0; r < 3; r++) {
        json_t *row = json_array_get(board, r);
        cr_assert(json_is_array(row) && json_array_size(row) == 3);
        for (size_t c = 0; c < 3; c++)
            cr_expect(json_is_integer(json_array_get(row, c)), "board[%zu][%zu] is a number", r, c);
    }
    cr_expect(json_is_string(json_object_get(j, "current")));
    cr_expect(json_is_integer(json_object_get(j, "cap")));
    cr_expect(json_is_object(json_object_get(j, "next_to_remove")));
    cr_expect(json_is_array(json_object_get(j, "recent_moves")));
    cr_expect(json_is_string(json_object_get(j, "rule_text")));
    json_decref(j);

    /* Classic: cap and next_to_remove are null, recent_moves empty. */
    kd_key x, o;
    kd_participants parts;
    players(&x, &o, &parts);
    cr_assert_eq(kd_ttt_state_init(&s, &parts, 0, NULL), KD_OK);
    play(&s, &x, &o, "11");
    j = strategy_of(&s);
    cr_expect_eq(json_object_size(j), 6);
    cr_expect(json_is_null(json_object_get(j, "cap")));
    cr_expect(json_is_null(json_object_get(j, "next_to_remove")));
    cr_expect(json_is_array(json_object_get(j, "recent_moves")) &&
              json_array_size(json_object_get(j, "recent_moves")) == 0);
    json_decref(j);
}

Test(view, strategy_context_golden_after_an_eviction)
{
    kd_ttt_state s;
    stress_state(&s);
    json_t *j = strategy_of(&s);
    expect_json(j, "{\"board\": [[0, 0, 1], [0, 2, 0], [2, 0, 0]],"
                   " \"current\": \"X\", \"cap\": 3,"
                   " \"next_to_remove\": {\"row\": 1, \"col\": 1, \"player\": \"O\"},"
                   " \"recent_moves\": [{\"row\": 1, \"col\": 1, \"player\": \"O\"},"
                   "                    {\"row\": 0, \"col\": 2, \"player\": \"X\"},"
                   "                    {\"row\": 2, \"col\": 0, \"player\": \"O\"}],"
                   " \"rule_text\": \"The board shows at most 3 symbols; before your move, the oldest"
                   " symbol is removed.\"}");
    json_decref(j);
}

Test(view, strategy_context_golden_classic)
{
    kd_key x, o;
    kd_participants parts;
    kd_ttt_state s;
    players(&x, &o, &parts);
    cr_assert_eq(kd_ttt_state_init(&s, &parts, 0, NULL), KD_OK);
    play(&s, &x, &o, "11 00");
    json_t *j = strategy_of(&s);
    expect_json(j, "{\"board\": [[2, 0, 0], [0, 1, 0], [0, 0, 0]], \"current\": \"X\", \"cap\": null,"
                   " \"next_to_remove\": null, \"recent_moves\": [],"
                   " \"rule_text\": \"Classic tic-tac-toe: nine cells, no removals; a full board without a"
                   " line of three is a draw.\"}");
    json_decref(j);
}

Test(view, episode_view_json_golden)
{
    kd_type_table types;
    kd_type_table_init(&types);
    kd_ttt_state s;
    stress_state(&s);
    kd_episode_view v;
    kd_episode_view_init(&v);
    view_of(&types, &s, 9, &v);
    char px[2 * KD_PUBKEY_LEN + 1], po[2 * KD_PUBKEY_LEN + 1];
    kd_hex_encode(s.players[0].bytes, KD_PUBKEY_LEN, px);
    kd_hex_encode(s.players[1].bytes, KD_PUBKEY_LEN, po);
    kd_buf state;
    kd_buf_init(&state);
    cr_assert_eq(kd_ttt_state_encode(&s, &state), KD_OK);
    char *state_hex = malloc(2 * state.len + 1);
    cr_assert_not_null(state_hex);
    kd_hex_encode(state.data, state.len, state_hex);
    char want[4096];
    snprintf(want, sizeof want,
             "{\"episode_id\": 9, \"type\": \"tictactoe\", \"participants\": [\"%s\", \"%s\"],"
             " \"last_event\": \"command\","
             " \"block_hash\": \"1111111111111111111111111111111111111111111111111111111111111111\","
             " \"log_seq\": 77,"
             " \"digest\": \"2222222222222222222222222222222222222222222222222222222222222222\","
             " \"height\": 0, \"final\": false,"
             " \"deleted\": false, \"phase\": \"in_progress\", \"winner\": null, \"to_move\": 0,"
             " \"seats\": [\"X\", \"O\"], \"state\": \"%s\","
             " \"board\": [[0, 0, 1], [0, 2, 0], [2, 0, 0]], \"current\": \"X\", \"status\": \"in_progress\","
             " \"cap\": 3, \"recent_moves\": [{\"row\": 1, \"col\": 1, \"player\": \"O\"},"
             " {\"row\": 0, \"col\": 2, \"player\": \"X\"}, {\"row\": 2, \"col\": 0, \"player\": \"O\"}],"
             " \"next_to_remove\": {\"row\": 1, \"col\": 1, \"player\": \"O\"}, \"move_count\": 4}",
             px, po, state_hex);
    json_t *j = kd_episode_view_json(&v);
    expect_json(j, want);
    /* The generic members come first, then the type's, in their order. */
    static const char *const order[] = {
        "episode_id", "type",    "participants", "last_event", "block_hash",   "log_seq",       "digest", "height",
        "final",      "deleted", "move_count",   "phase",      "winner",       "to_move",       "seats",  "state",
        "board",      "current", "status",       "cap",        "recent_moves", "next_to_remove"};
    size_t i = 0;
    const char *key;
    json_t *value;
    json_object_foreach(j, key, value)
    {
        cr_assert_lt(i, sizeof order / sizeof order[0]);
        cr_expect_str_eq(key, order[i], "member %zu", i);
        i++;
    }
    cr_expect_eq(i, sizeof order / sizeof order[0]);
    json_decref(j);
    free(state_hex);
    kd_buf_fini(&state);
    kd_episode_view_fini(&v);
}

Test(view, text_board_and_prompt_through_the_view)
{
    kd_type_table types;
    kd_type_table_init(&types);
    kd_ttt_state s;
    stress_state(&s);
    kd_episode_view v;
    kd_episode_view_init(&v);
    view_of(&types, &s, 9, &v);
    kd_buf b;
    kd_buf_init(&b);
    cr_assert_eq(kd_episode_view_render(&v, 0, &b), KD_OK);
    cr_assert_eq(kd_buf_append(&b, "", 1), KD_OK);
    cr_expect_str_eq((const char *)b.data, "    0 1 2\n"
                                           "  0 . . X\n"
                                           "  1 . o .\n"
                                           "  2 O . .\n"
                                           "  X to move | stress cap 3 | removed next: O at (1,1) | moves 4\n");
    b.len = 0;
    cr_assert_eq(kd_episode_view_prompt(&v, 0, &b), KD_OK);
    cr_assert_eq(kd_buf_append(&b, "", 1), KD_OK);
    cr_expect(strstr((const char *)b.data, "as X in episode 9, in stress mode") != NULL, "%s", (const char *)b.data);
    cr_expect(strstr((const char *)b.data, "It is your turn. Legal moves (row, col): (0, 0) (0, 1)") != NULL);
    b.len = 0;
    cr_expect_eq(kd_episode_view_prompt(&v, 2, &b), KD_ERR_INVALID_ARG, "no third seat");
    kd_buf_fini(&b);

    /* Legal moves from the view's state bytes: X's are the empty cells
     * (the oldest mark's cell stays occupied); O has none. */
    kd_legal_moves moves;
    kd_legal_moves_init(&moves);
    cr_assert_eq(kd_episode_view_legal_moves(&v, 0, &moves), KD_OK);
    static const char *const want[] = {"(0, 0)", "(0, 1)", "(1, 0)", "(1, 2)", "(2, 1)", "(2, 2)"};
    cr_assert_eq(moves.count, 6);
    for (size_t i = 0; i < 6; i++)
        cr_expect_str_eq(moves.moves[i].notation, want[i]);
    kd_legal_moves_clear(&moves);
    cr_assert_eq(kd_episode_view_legal_moves(&v, 1, &moves), KD_OK);
    cr_expect_eq(moves.count, 0);
    kd_episode_view del;
    kd_episode_view_init(&del);
    del.type = v.type;
    del.deleted = 1;
    cr_expect_eq(kd_episode_view_legal_moves(&del, 0, &moves), KD_ERR_NOT_FOUND);
    del.type = NULL;
    cr_expect_eq(kd_episode_view_legal_moves(&del, 0, &moves), KD_ERR_UNKNOWN_TYPE);
    kd_legal_moves_fini(&moves);
    kd_episode_view_fini(&v);
}
