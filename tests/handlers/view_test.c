/*
 * view_test.c — the enriched view's renderings (handlers/view.h): the
 * EpisodeView protobuf round-trips every field, the strategy context has
 * exactly the DESIGN.md keys with the right JSON types, and golden JSON for
 * a known stress-mode state (after an eviction) and a classic state.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/crypto.h"
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

Test(view, episode_view_round_trips_through_protobuf)
{
    kd_ttt_state s;
    stress_state(&s);
    kd_key x, o;
    kd_episode_view v;
    memset(&v, 0, sizeof v);
    v.episode_id = 4242;
    snprintf(v.type, sizeof v.type, "%s", KD_TTT_TYPE_NAME);
    players(&x, &o, &v.participants);
    v.last_event = KD_EVENT_COMMAND;
    kd_sha256("block", 5, v.block_hash);
    kd_sha256("digest", 6, v.digest);
    v.log_seq = 77;
    v.has_ttt = 1;
    kd_ttt_view_of(&s, &v.ttt);
    cr_assert_eq(v.ttt.has_next_to_remove, 1);

    kd_buf b;
    kd_buf_init(&b);
    cr_assert_eq(kd_episode_view_pack(&v, &b), KD_OK);
    kd_episode_view back;
    cr_assert_eq(kd_episode_view_unpack(b.data, b.len, &back), KD_OK);
    cr_expect_eq(back.episode_id, 4242);
    cr_expect_str_eq(back.type, KD_TTT_TYPE_NAME);
    cr_expect_eq(back.participants.count, 2);
    cr_expect_eq(memcmp(back.participants.keys, v.participants.keys, 2 * sizeof(kd_pubkey)), 0);
    cr_expect_eq(back.last_event, KD_EVENT_COMMAND);
    cr_expect_eq(memcmp(back.block_hash, v.block_hash, KD_HASH_LEN), 0);
    cr_expect_eq(memcmp(back.digest, v.digest, KD_HASH_LEN), 0);
    cr_expect_eq(back.log_seq, 77);
    cr_expect_eq(back.deleted, 0);
    cr_expect_eq(back.has_ttt, 1);
    cr_expect_eq(memcmp(&back.ttt, &v.ttt, sizeof v.ttt), 0, "tic-tac-toe view fields");

    /* A deleted episode (rolled-back creation) has no board. */
    kd_episode_view del = v;
    del.deleted = 1;
    del.has_ttt = 0;
    memset(&del.ttt, 0, sizeof del.ttt);
    del.last_event = KD_EVENT_ROLLBACK;
    b.len = 0;
    cr_assert_eq(kd_episode_view_pack(&del, &b), KD_OK);
    cr_assert_eq(kd_episode_view_unpack(b.data, b.len, &back), KD_OK);
    cr_expect_eq(back.deleted, 1);
    cr_expect_eq(back.has_ttt, 0);
    cr_expect_eq(back.last_event, KD_EVENT_ROLLBACK);

    static const uint8_t junk[] = {0xff, 0xff, 0xff};
    cr_expect_eq(kd_episode_view_unpack(junk, sizeof junk, &back), KD_ERR_DECODE);
    kd_buf_fini(&b);
}

Test(view, strategy_context_has_exactly_the_contract_keys_and_types)
{
    static const char *const keys[] = {"board", "current", "cap", "next_to_remove", "recent_moves", "rule_text"};
    kd_ttt_state s;
    kd_ttt_view tv;
    stress_state(&s);
    kd_ttt_view_of(&s, &tv);
    json_t *j = kd_strategy_context_json(&tv);
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
    kd_ttt_view_of(&s, &tv);
    j = kd_strategy_context_json(&tv);
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
    kd_ttt_view tv;
    stress_state(&s);
    kd_ttt_view_of(&s, &tv);
    json_t *j = kd_strategy_context_json(&tv);
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
    kd_ttt_view tv;
    players(&x, &o, &parts);
    cr_assert_eq(kd_ttt_state_init(&s, &parts, 0, NULL), KD_OK);
    play(&s, &x, &o, "11 00");
    kd_ttt_view_of(&s, &tv);
    json_t *j = kd_strategy_context_json(&tv);
    expect_json(j, "{\"board\": [[2, 0, 0], [0, 1, 0], [0, 0, 0]], \"current\": \"X\", \"cap\": null,"
                   " \"next_to_remove\": null, \"recent_moves\": [],"
                   " \"rule_text\": \"Classic tic-tac-toe: nine cells, no removals; a full board without a"
                   " line of three is a draw.\"}");
    json_decref(j);
}

Test(view, episode_view_json_golden)
{
    kd_ttt_state s;
    stress_state(&s);
    kd_key x, o;
    kd_episode_view v;
    memset(&v, 0, sizeof v);
    v.episode_id = 9;
    snprintf(v.type, sizeof v.type, "%s", KD_TTT_TYPE_NAME);
    players(&x, &o, &v.participants);
    v.last_event = KD_EVENT_COMMAND;
    memset(v.block_hash, 0x11, KD_HASH_LEN);
    memset(v.digest, 0x22, KD_HASH_LEN);
    v.log_seq = 5;
    v.has_ttt = 1;
    kd_ttt_view_of(&s, &v.ttt);
    char px[2 * KD_PUBKEY_LEN + 1], po[2 * KD_PUBKEY_LEN + 1];
    kd_hex_encode(x.pub.bytes, KD_PUBKEY_LEN, px);
    kd_hex_encode(o.pub.bytes, KD_PUBKEY_LEN, po);
    char want[2048];
    snprintf(want, sizeof want,
             "{\"episode_id\": 9, \"type\": \"tictactoe\", \"participants\": [\"%s\", \"%s\"],"
             " \"last_event\": \"command\","
             " \"block_hash\": \"1111111111111111111111111111111111111111111111111111111111111111\","
             " \"log_seq\": 5,"
             " \"digest\": \"2222222222222222222222222222222222222222222222222222222222222222\","
             " \"deleted\": false,"
             " \"board\": [[0, 0, 1], [0, 2, 0], [2, 0, 0]], \"current\": \"X\", \"status\": \"in_progress\","
             " \"cap\": 3, \"recent_moves\": [{\"row\": 1, \"col\": 1, \"player\": \"O\"},"
             " {\"row\": 0, \"col\": 2, \"player\": \"X\"}, {\"row\": 2, \"col\": 0, \"player\": \"O\"}],"
             " \"next_to_remove\": {\"row\": 1, \"col\": 1, \"player\": \"O\"}, \"move_count\": 4}",
             px, po);
    json_t *j = kd_episode_view_json(&v);
    expect_json(j, want);
    json_decref(j);
}
