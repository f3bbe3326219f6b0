/*
 * fourinarow_test.c — four-in-a-row (episodes/fourinarow/fourinarow*.c): the rules
 * (drops, every win direction, a draw on a full board, every refusal code,
 * a refused command leaves the state untouched), rollback byte-identical
 * over random playouts (every legal move from random positions), the
 * encodings round-trip and refuse malformed input, every function of the
 * type table, the bot, and perft against the published counts.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/crypto.h"
#include "episodes/episode_type.h"
#include "episodes/fiar_support.h"
#include "episodes/fourinarow/fourinarow.h"

static const kd_episode_type *const T = &kd_fourinarow_type;

/* Expects `column` signed by `signer` refused with rule `code`, the state's
 * bytes unchanged. */
static void expect_rule(kd_fiar_state *s, uint32_t column, const kd_pubkey *signer, const char *code)
{
    kd_buf before, after;
    kd_buf_init(&before);
    kd_buf_init(&after);
    fiar_encode(s, &before);
    kd_fiar_undo undo;
    kd_reject rej = {{0}, {0}};
    cr_assert_eq(fiar_exec(s, column, signer, &undo, &rej), KD_ERR_RULE, "column %u: want %s", (unsigned)column, code);
    cr_expect_str_eq(rej.code, code);
    cr_expect(rej.detail[0], "a sentence says why");
    fiar_encode(s, &after);
    cr_expect(before.len == after.len && memcmp(before.data, after.data, before.len) == 0, "state untouched");
    kd_buf_fini(&before);
    kd_buf_fini(&after);
}

/* ------------------------------------------------------------- rules */

Test(fiar_rules, discs_drop_to_the_lowest_free_cell_and_turns_alternate)
{
    kd_fiar_state s;
    fiar_new_game(&s);
    cr_expect_eq(s.turn, KD_FIAR_RED);
    cr_expect_eq(s.last_column, KD_FIAR_NO_COLUMN);
    FIAR_PLAY(&s, 3, 3, 4);
    cr_expect_eq(s.cells[3 * KD_FIAR_ROWS + 0], 1, "red at the bottom of column 3");
    cr_expect_eq(s.cells[3 * KD_FIAR_ROWS + 1], 2, "yellow on top of it");
    cr_expect_eq(s.cells[4 * KD_FIAR_ROWS + 0], 1);
    cr_expect_eq(s.heights[3], 2);
    cr_expect_eq(s.heights[4], 1);
    cr_expect_eq(s.move_count, 3);
    cr_expect_eq(s.turn, KD_FIAR_YELLOW);
    cr_expect_eq(s.last_column, 4);
    cr_expect_eq(s.status, KD_FIAR_IN_PROGRESS);
}

Test(fiar_rules, every_direction_wins)
{
    kd_fiar_state s;
    fiar_new_game(&s);
    FIAR_PLAY(&s, 0, 1, 0, 1, 0, 1, 0); /* vertical */
    cr_expect_eq(s.status, KD_FIAR_RED_WON);
    fiar_new_game(&s);
    FIAR_PLAY(&s, 0, 0, 1, 1, 2, 2, 3); /* horizontal */
    cr_expect_eq(s.status, KD_FIAR_RED_WON);
    fiar_new_game(&s);
    FIAR_PLAY(&s, 0, 1, 1, 2, 2, 3, 2, 3, 3, 6, 3); /* rising diagonal */
    cr_expect_eq(s.status, KD_FIAR_RED_WON);
    fiar_new_game(&s);
    FIAR_PLAY(&s, 6, 5, 5, 4, 4, 3, 4, 3, 3, 0, 3); /* falling diagonal */
    cr_expect_eq(s.status, KD_FIAR_RED_WON);
    fiar_new_game(&s);
    FIAR_PLAY(&s, 6, 0, 1, 0, 1, 0, 1, 0); /* yellow, vertical */
    cr_expect_eq(s.status, KD_FIAR_YELLOW_WON);
    kd_game_status st = T->status(&s);
    cr_expect_eq(st.phase, KD_PHASE_WON);
    cr_expect_eq(st.winner, KD_FIAR_YELLOW);
    cr_expect_eq(st.to_move, KD_SEAT_NONE);
}

static const int draw_game[42] = {4, 3, 6, 0, 1, 4, 5, 5, 1, 1, 5, 0, 1, 6, 0, 1, 5, 5, 1, 0, 4,
                                  6, 3, 2, 6, 6, 0, 4, 6, 5, 2, 0, 4, 2, 4, 2, 2, 2, 3, 3, 3, 3};

Test(fiar_rules, a_full_board_without_a_line_is_a_draw)
{
    kd_fiar_state s;
    fiar_new_game(&s);
    fiar_play(&s, draw_game, 41);
    cr_expect_eq(s.status, KD_FIAR_IN_PROGRESS);
    fiar_drop(&s, 3);
    cr_expect_eq(s.status, KD_FIAR_DRAW);
    cr_expect_eq(s.move_count, 42);
    kd_game_status st = T->status(&s);
    cr_expect_eq(st.phase, KD_PHASE_DRAW);
    cr_expect_eq(st.winner, KD_SEAT_NONE);
    expect_rule(&s, 0, &s.players[s.turn], "game_over");
}

Test(fiar_rules, every_refusal_code)
{
    fiar_keys k;
    fiar_keys_make(&k);
    kd_fiar_state s;
    fiar_new_game(&s);
    expect_rule(&s, 3, NULL, "unauthorised");
    expect_rule(&s, 3, &k.stranger.pub, "unauthorised");
    expect_rule(&s, 3, &k.yellow.pub, "not_your_turn");
    expect_rule(&s, 7, &k.red.pub, "out_of_bounds");
    expect_rule(&s, 4000000000u, &k.red.pub, "out_of_bounds");
    FIAR_PLAY(&s, 2, 2, 2, 2, 2, 2);
    expect_rule(&s, 2, &k.red.pub, "column_full");
    FIAR_PLAY(&s, 0, 1, 0, 1, 0, 1, 0);
    cr_assert_eq(s.status, KD_FIAR_RED_WON);
    expect_rule(&s, 3, &k.yellow.pub, "game_over");
    expect_rule(&s, 3, &k.red.pub, "game_over");
    /* every code refused is one the table lists */
    static const char *const codes[] = {"game_over", "unauthorised", "not_your_turn", "out_of_bounds", "column_full"};
    size_t n = 0;
    for (; T->rule_codes[n].code; n++) {
        cr_assert_lt(n, 5);
        cr_expect_str_eq(T->rule_codes[n].code, codes[n]);
        cr_expect(T->rule_codes[n].meaning && *T->rule_codes[n].meaning);
    }
    cr_expect_eq(n, 5);
}

Test(fiar_rules, the_same_key_may_hold_both_seats_and_bad_participants_are_refused)
{
    fiar_keys k;
    fiar_keys_make(&k);
    kd_participants one = {.count = 2};
    one.keys[0] = one.keys[1] = k.red.pub;
    kd_fiar_state s;
    kd_reject rej = {{0}, {0}};
    cr_assert_eq(kd_fiar_ops.init(&s, &one, NULL, 0, NULL, &rej), KD_OK);
    fiar_drop(&s, 0);
    fiar_drop(&s, 0);
    kd_participants three = k.parts;
    three.count = 3;
    three.keys[2] = k.stranger.pub;
    cr_expect_eq(kd_fiar_ops.init(&s, &three, NULL, 0, NULL, &rej), KD_ERR_BAD_PARTICIPANTS);
    kd_participants bad = k.parts;
    bad.keys[1].bytes[0] = 0x05;
    cr_expect_eq(kd_fiar_ops.init(&s, &bad, NULL, 0, NULL, &rej), KD_ERR_BAD_PARTICIPANTS);
}

/* ------------------------------------------------------------ rollback */

/* A random open column of `s` (in progress). */
static uint32_t random_open(const kd_fiar_state *s, uint64_t *rng)
{
    uint32_t open[KD_FIAR_COLS], n = 0;
    for (uint32_t col = 0; col < KD_FIAR_COLS; col++)
        if (s->heights[col] < KD_FIAR_ROWS)
            open[n++] = col;
    cr_assert_gt(n, 0);
    return open[kd_type_rng_below(rng, n)];
}

/* That every legal move rolls back byte for byte, and the encodings
 * round-trip, is type_laws_test's, for every type; here: a record of
 * another column is refused, the state untouched. */
Test(fiar_rollback, a_record_of_another_column_is_refused)
{
    uint64_t rng = 0x4f4952u;
    size_t checked = 0;
    for (int game = 0; game < 50; game++) {
        kd_fiar_state s;
        fiar_new_game(&s);
        while (s.status == KD_FIAR_IN_PROGRESS) {
            for (uint32_t col = 0; col < KD_FIAR_COLS; col++) {
                if (s.heights[col] == KD_FIAR_ROWS)
                    continue;
                kd_fiar_state u = s;
                kd_fiar_undo undo;
                kd_reject rej = {{0}, {0}};
                cr_assert_eq(fiar_exec(&u, col, &u.players[u.turn], &undo, &rej), KD_OK);
                kd_fiar_undo wrong = undo;
                wrong.column = (uint8_t)((undo.column + 1) % KD_FIAR_COLS);
                kd_fiar_state w = u;
                cr_assert_eq(kd_fiar_ops.rollback(&w, &wrong), KD_ERR_DECODE, "column %u", (unsigned)col);
                cr_assert_eq(memcmp(&w, &u, sizeof u), 0);
                checked++;
            }
            fiar_drop(&s, random_open(&s, &rng));
        }
    }
    cr_expect_gt(checked, 1000);
}

Test(fiar_rollback, a_whole_game_unwinds_to_the_start)
{
    kd_fiar_state s, start;
    fiar_new_game(&s);
    start = s;
    kd_fiar_undo undos[KD_FIAR_CELLS];
    for (size_t i = 0; i < KD_FIAR_CELLS; i++) {
        kd_reject rej = {{0}, {0}};
        cr_assert_eq(fiar_exec(&s, (uint32_t)draw_game[i], &s.players[s.turn], &undos[i], &rej), KD_OK);
    }
    cr_assert_eq(s.status, KD_FIAR_DRAW);
    kd_fiar_undo bogus = {.column = 3, .prev_last_column = KD_FIAR_NO_COLUMN};
    cr_expect_eq(kd_fiar_ops.rollback(&s, &bogus), KD_ERR_DECODE, "the previous drop was in a column");
    for (size_t i = KD_FIAR_CELLS; i-- > 0;)
        cr_assert_eq(kd_fiar_ops.rollback(&s, &undos[i]), KD_OK, "undo %zu", i);
    cr_expect_eq(memcmp(&s, &start, sizeof s), 0);
    cr_expect_eq(kd_fiar_ops.rollback(&s, &undos[0]), KD_ERR_DECODE, "nothing left to undo");
}

/* ------------------------------------------------------------ encodings */

/* Expects `bytes` refused by decode_state. */
static void expect_bad_state(const kd_buf *bytes, const char *what)
{
    kd_fiar_state s;
    cr_expect_eq(kd_fiar_ops.decode_state(bytes->data, bytes->len, &s), KD_ERR_DECODE, "%s", what);
}

/* The encoding of `s` with byte `at` set to `value`. */
static void patched(const kd_fiar_state *s, size_t at, uint8_t value, kd_buf *out)
{
    fiar_encode(s, out);
    cr_assert_lt(at, out->len);
    out->data[at] = value;
}

#define CELL_AT(col, row) (8 + 2 * KD_PUBKEY_LEN + (col)*KD_FIAR_ROWS + (row))

/* That states round-trip is type_laws_test's, for every type. */
Test(fiar_encodings, malformed_states_are_refused)
{
    kd_buf b;
    kd_buf_init(&b);
    kd_fiar_state s;
    fiar_new_game(&s);
    FIAR_PLAY(&s, 3, 3, 4);
    fiar_encode(&s, &b);
    expect_bad_state(&(kd_buf){.data = b.data, .len = b.len - 1}, "short");
    patched(&s, 0, 2, &b);
    expect_bad_state(&b, "version 2");
    patched(&s, 1, KD_FIAR_RED_WON, &b);
    expect_bad_state(&b, "a win that is not on the board");
    patched(&s, 1, 9, &b);
    expect_bad_state(&b, "unknown status");
    patched(&s, 2, 0, &b);
    expect_bad_state(&b, "turn not move_count % 2");
    patched(&s, 3, 3, &b);
    expect_bad_state(&b, "last column not the last mover's");
    patched(&s, 3, KD_FIAR_NO_COLUMN, &b);
    expect_bad_state(&b, "no last column after moves");
    patched(&s, 7, 4, &b);
    expect_bad_state(&b, "move_count not the discs");
    patched(&s, 8, 0x04, &b);
    expect_bad_state(&b, "a key not in compressed form");
    patched(&s, CELL_AT(0, 0), 3, &b);
    expect_bad_state(&b, "cell code 3");
    patched(&s, CELL_AT(3, 3), 1, &b);
    expect_bad_state(&b, "a disc above a hole");
    patched(&s, CELL_AT(5, 0), 1, &b);
    expect_bad_state(&b, "red two discs ahead");
    /* a win with a line already there before the last drop */
    fiar_new_game(&s);
    FIAR_PLAY(&s, 0, 1, 0, 1, 0, 1, 0);
    fiar_encode(&s, &b);
    cr_assert_eq(kd_fiar_ops.decode_state(b.data, b.len, &(kd_fiar_state){0}), KD_OK);
    patched(&s, 3, 1, &b); /* last drop claimed in yellow's column */
    expect_bad_state(&b, "the win's last disc must be the last mover's");
    kd_buf_fini(&b);
}

Test(fiar_encodings, undo_command_and_params_refuse_malformed_bytes)
{
    kd_fiar_undo u;
    static const uint8_t good[3] = {KD_FIAR_VERSION, 6, KD_FIAR_NO_COLUMN};
    cr_expect_eq(kd_fiar_ops.decode_undo(good, 3, &u), KD_OK);
    cr_expect_eq(u.column, 6);
    static const uint8_t bad[][3] = {{2, 0, 0}, {1, 7, 0}, {1, 0, 7}, {1, 0, 200}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_expect_eq(kd_fiar_ops.decode_undo(bad[i], 3, &u), KD_ERR_DECODE, "undo %zu", i);
    cr_expect_eq(kd_fiar_ops.decode_undo(good, 2, &u), KD_ERR_DECODE);

    uint32_t col = 9;
    kd_reject rej = {{0}, {0}};
    cr_expect_eq(kd_fiar_command_decode(NULL, 0, &col, &rej), KD_ERR_BAD_COMMAND);
    static const uint8_t garbage[] = {0xff, 0xff, 0xff};
    cr_expect_eq(kd_fiar_command_decode(garbage, sizeof garbage, &col, &rej), KD_ERR_BAD_COMMAND);
    static const uint8_t no_drop[] = {0x10, 0x01}; /* field 2, unknown */
    cr_expect_eq(kd_fiar_command_decode(no_drop, sizeof no_drop, &col, &rej), KD_ERR_BAD_COMMAND);
    kd_buf b;
    kd_buf_init(&b);
    cr_assert_eq(kd_fiar_command_encode(0, &b), KD_OK);
    cr_expect_eq(kd_fiar_command_decode(b.data, b.len, &col, &rej), KD_OK);
    cr_expect_eq(col, 0, "column 0 is a drop too");

    cr_expect_eq(kd_fiar_params_decode(NULL, 0, &rej), KD_OK);
    static const uint8_t field[] = {0x08, 0x07};
    cr_expect_eq(kd_fiar_params_decode(field, sizeof field, &rej), KD_ERR_BAD_PARAMS);
    b.len = 0;
    cr_expect_eq(kd_fiar_ops.resolve_params(NULL, field, sizeof field, &b, &rej), KD_ERR_BAD_PARAMS);
    cr_expect_eq(kd_fiar_params_decode(garbage, sizeof garbage, &rej), KD_ERR_BAD_PARAMS);
    kd_buf_fini(&b);
}

/* ---------------------------------------------------------------- perft */

/* Move sequences of exactly `depth` plies, by the rules' own drop and
 * rollback (no signatures). */
static uint64_t perft_rules(kd_fiar_state *s, unsigned depth)
{
    if (depth == 0)
        return 1;
    uint64_t n = 0;
    for (uint32_t col = 0; col < KD_FIAR_COLS; col++) {
        kd_fiar_undo undo;
        if (kd_fiar_drop_unchecked(s, col, &undo, NULL) != KD_OK)
            continue;
        n += perft_rules(s, depth - 1);
        cr_assert_eq(kd_fiar_rollback(s, &undo), KD_OK);
    }
    return n;
}

/* The same through the type table: legal_moves, the engine's execute
 * signed by the seat to move, rollback. */
static uint64_t perft_table(kd_fiar_state *s, unsigned depth)
{
    if (depth == 0)
        return 1;
    kd_legal_moves moves;
    kd_legal_moves_init(&moves);
    cr_assert_eq(T->legal_moves(s, s->turn, &moves), KD_OK);
    uint64_t n = 0;
    for (size_t i = 0; i < moves.count; i++) {
        kd_fiar_undo undo;
        kd_reject rej = {{0}, {0}};
        cr_assert_eq(kd_fiar_ops.execute(s, moves.moves[i].command, moves.moves[i].command_len, &s->players[s->turn],
                                         NULL, &undo, &rej),
                     KD_OK, "%s", rej.detail);
        n += perft_table(s, depth - 1);
        cr_assert_eq(kd_fiar_ops.rollback(s, &undo), KD_OK);
    }
    kd_legal_moves_fini(&moves);
    return n;
}

/* Connect Four's published perft counts from the empty board. */
static const uint64_t published[] = {1, 7, 49, 343, 2401, 16807, 117649, 823536, 5673234};

Test(fiar_perft, the_published_counts_to_depth_8, .timeout = 240)
{
    kd_fiar_state s, start;
    fiar_new_game(&s);
    start = s;
    for (unsigned d = 0; d <= 8; d++) {
        cr_expect_eq(perft_rules(&s, d), published[d], "depth %u", d);
        cr_assert_eq(memcmp(&s, &start, sizeof s), 0, "perft restores the start");
    }
    for (unsigned d = 0; d <= 5; d++)
        cr_expect_eq(perft_table(&s, d), published[d], "depth %u through the table", d);
    cr_assert_eq(memcmp(&s, &start, sizeof s), 0);
}
