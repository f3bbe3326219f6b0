/*
 * tictactoe_property_test.c — properties over thousands of seeded random
 * games, for every cap (0 classic and 1..8): the invariants hold after every
 * move; execute then rollback gives back the byte-identical state encoding;
 * random (often illegal) commands get the error a small reference model
 * predicts and change nothing; unwinding a whole game returns to the start;
 * and the state and undo decoders refuse truncated or corrupted bytes
 * without crashing. Seeds are printed; KD_TEST_SEED overrides them.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <string.h>

#include "episodes/ttt_support.h"

#define GAMES_PER_CAP 400
#define MAX_MOVES 60

/* The short code (kd_reject_code) the documented check order predicts
 * for a command: an engine code's name or a rule code; "" when legal. */
static const char *predict(const kd_ttt_state *s, uint8_t row, uint8_t col, uint8_t player, const kd_pubkey *signer)
{
    if (player > 1)
        return kd_err_code(KD_ERR_BAD_COMMAND);
    if (s->status != KD_TTT_IN_PROGRESS)
        return "game_over";
    if (row > 2 || col > 2)
        return "out_of_bounds";
    if (player + 1 != s->turn)
        return "wrong_turn";
    if (!signer || memcmp(signer, &s->players[player], sizeof *signer) != 0)
        return "unauthorised";
    if (s->board[row][col] != KD_TTT_EMPTY)
        return "cell_occupied";
    return "";
}

static int same(const kd_buf *a, const kd_buf *b) { return a->len == b->len && memcmp(a->data, b->data, a->len) == 0; }

/* One step: execute, check, round-trip the undo, roll back, compare bytes,
 * then execute again so the game goes on. Returns the error. */
static kd_err step(kd_ttt_state *s, uint8_t row, uint8_t col, uint8_t player, const kd_pubkey *signer,
                   kd_ttt_undo *undo)
{
    kd_buf before, after, undo_bytes;
    kd_reject rej = {{0}, {0}};
    kd_ttt_state copy = *s;
    kd_buf_init(&before);
    kd_buf_init(&after);
    kd_buf_init(&undo_bytes);
    ttt_encode(s, &before);

    const char *want = predict(s, row, col, player, signer);
    kd_err err = ttt_exec(s, row, col, player, signer, undo, &rej);
    const char *got = err ? kd_reject_code(err, &rej) : "";
    cr_assert_str_eq(got, want, "(%u,%u) player %u: got %s, want %s (%s)", row, col, player, got, want, rej.detail);
    if (err) {
        cr_assert_eq(memcmp(s, &copy, sizeof copy), 0, "a rejected command changed the state");
        cr_assert(rej.detail[0] != '\0', "every reject has a detail");
        goto done;
    }
    ttt_check_invariants(s);

    kd_ttt_undo back;
    cr_assert_eq(kd_tictactoe_ops.encode_undo(undo, &undo_bytes), KD_OK);
    cr_assert_eq(kd_tictactoe_ops.decode_undo(undo_bytes.data, undo_bytes.len, &back), KD_OK);
    cr_assert_eq(memcmp(&back, undo, sizeof back), 0, "undo round-trip");
    cr_assert_eq(kd_ttt_undo_check(s, &back), KD_OK);

    kd_ttt_state after_move = *s;
    cr_assert_eq(kd_tictactoe_ops.rollback(s, &back), KD_OK);
    ttt_encode(s, &after);
    cr_assert(same(&before, &after), "execute + rollback must restore the exact encoding");
    cr_assert_eq(memcmp(s, &copy, sizeof copy), 0);
    *s = after_move;
done:
    kd_buf_fini(&before);
    kd_buf_fini(&after);
    kd_buf_fini(&undo_bytes);
    return err;
}

ParameterizedTestParameters(ttt_property, random_games)
{
    static uint8_t caps[] = {0, 1, 2, 3, 4, 5, 6, 7, 8};
    return cr_make_param_array(uint8_t, caps, sizeof caps);
}

ParameterizedTest(uint8_t *cap, ttt_property, random_games)
{
    char name[64];
    snprintf(name, sizeof name, "random_games cap %u", *cap);
    uint64_t rng = ttt_seed(name, 0x5eed0000u + *cap);
    size_t moves_total = 0, wins = 0, draws = 0, rejects = 0;

    for (int g = 0; g < GAMES_PER_CAP; g++) {
        kd_ttt_state start, s;
        kd_ttt_undo undos[MAX_MOVES];
        size_t depth = 0;
        ttt_new(&start, *cap);
        s = start;
        while (depth < MAX_MOVES && s.status == KD_TTT_IN_PROGRESS) {
            kd_ttt_undo undo;
            if (ttt_rand_below(&rng, 4) == 0) {
                /* A random, usually illegal, command. */
                uint8_t row = (uint8_t)ttt_rand_below(&rng, 4);
                uint8_t col = (uint8_t)ttt_rand_below(&rng, 4);
                uint8_t player = (uint8_t)ttt_rand_below(&rng, 3);
                uint32_t who = ttt_rand_below(&rng, 3);
                const kd_pubkey *signer = who == 2 ? NULL : &s.players[who];
                if (step(&s, row, col, player, signer, &undo) == KD_OK)
                    undos[depth++] = undo;
                else
                    rejects++;
                continue;
            }
            kd_ttt_cell legal[9];
            size_t n = kd_ttt_legal_moves(&s, legal);
            cr_assert_gt(n, 0, "an unfinished game has a legal move");
            const kd_ttt_cell *m = &legal[ttt_rand_below(&rng, (uint32_t)n)];
            int side = s.turn == KD_TTT_X ? 0 : 1;
            cr_assert_eq(step(&s, m->row, m->col, (uint8_t)side, &s.players[side], &undo), KD_OK);
            undos[depth++] = undo;
        }
        moves_total += depth;
        wins += s.status == KD_TTT_X_WON || s.status == KD_TTT_O_WON;
        draws += s.status == KD_TTT_DRAW;
        if (s.status != KD_TTT_IN_PROGRESS)
            cr_assert_eq(step(&s, 0, 0, 0, &s.players[0], &undos[0]), KD_ERR_RULE); /* game_over */

        /* Unwind the whole game. */
        while (depth > 0)
            cr_assert_eq(kd_tictactoe_ops.rollback(&s, &undos[--depth]), KD_OK);
        cr_assert_eq(memcmp(&s, &start, sizeof s), 0, "unwinding returns to the start");
    }
    if (*cap)
        cr_expect_eq(draws, 0, "stress mode never draws");
    if (*cap == 0 || *cap >= 5)
        cr_expect_gt(wins, 0, "some games are won");
    else
        cr_expect_eq(wins, 0, "with cap %u no side can hold three marks", *cap);
    cr_expect_gt(rejects, 0);
    fprintf(stderr, "cap %u: %zu games, %zu moves, %zu wins, %zu draws, %zu rejects\n", *cap, (size_t)GAMES_PER_CAP,
            moves_total, wins, draws, rejects);
}

/* ----------------------------------------------------------------- decoders */

/* A stress game with a full window (cap 4) and a won classic game. */
static void sample_states(kd_ttt_state out[3])
{
    ttt_new(&out[0], 4);
    ttt_play(&out[0], "00 11 22 02 20 10");
    ttt_new(&out[1], 0);
    ttt_play(&out[1], "00 10 01 11 02");
    ttt_new(&out[2], 0);
    ttt_play(&out[2], "00 01 02 11 10 12 21 20 22");
}

Test(ttt_decode, truncation_and_trailing_bytes)
{
    kd_ttt_state samples[3], back;
    sample_states(samples);
    for (size_t k = 0; k < 3; k++) {
        kd_buf b;
        kd_buf_init(&b);
        ttt_encode(&samples[k], &b);
        cr_assert_eq(b.data[0], KD_TTT_STATE_VERSION);
        for (size_t len = 0; len < b.len; len++)
            cr_expect_eq(kd_tictactoe_ops.decode_state(b.data, len, &back), KD_ERR_DECODE,
                         "sample %zu cut to %zu bytes", k, len);
        uint8_t zero = 0;
        cr_assert_eq(kd_buf_append(&b, &zero, 1), KD_OK);
        cr_expect_eq(kd_tictactoe_ops.decode_state(b.data, b.len, &back), KD_ERR_DECODE);
        kd_buf_fini(&b);
    }
    cr_expect_eq(kd_tictactoe_ops.decode_state(NULL, 0, &back), KD_ERR_DECODE);
}

/* Offsets in the version-1 state encoding (see tictactoe.h). */
enum {
    OFF_VERSION = 0,
    OFF_CAP = 1,
    OFF_TURN = 2,
    OFF_STATUS = 3,
    OFF_COUNT = 4,
    OFF_P0 = 8,
    OFF_P1 = 41,
    OFF_HLEN = 74,
    OFF_HIST = 75
};

typedef struct {
    const char *what;
    size_t sample;
    size_t offset;
    uint8_t value;
} corrupt_case;

Test(ttt_decode, targeted_corruptions)
{
    static const corrupt_case cases[] = {
        {"version 2", 0, OFF_VERSION, 2},
        {"cap 9", 0, OFF_CAP, 9},
        {"cap changed under a full window", 0, OFF_CAP, 3},
        {"turn 0", 0, OFF_TURN, 0},
        {"turn 3", 0, OFF_TURN, 3},
        {"turn not matching the move count", 0, OFF_TURN, KD_TTT_O},
        {"status 4", 0, OFF_STATUS, 4},
        {"draw in stress mode", 0, OFF_STATUS, KD_TTT_DRAW},
        {"won without a line", 0, OFF_STATUS, KD_TTT_X_WON},
        {"in progress with a line", 1, OFF_STATUS, KD_TTT_IN_PROGRESS},
        {"O won but X has the line", 1, OFF_STATUS, KD_TTT_O_WON},
        {"draw that is a win", 1, OFF_STATUS, KD_TTT_DRAW},
        {"in progress on a full board", 2, OFF_STATUS, KD_TTT_IN_PROGRESS},
        {"move count", 0, OFF_COUNT + 3, 7},
        {"huge move count in classic", 1, OFF_COUNT, 1},
        {"bad key prefix", 0, OFF_P0, 0x05},
        {"bad key prefix O", 0, OFF_P1, 0x00},
        {"history length", 0, OFF_HLEN, 3},
        {"history length 10", 2, OFF_HLEN, 10},
        {"row 3", 0, OFF_HIST, 3},
        {"col 200", 0, OFF_HIST + 1, 200},
        {"symbol 0", 0, OFF_HIST + 2, 0},
        {"marks not alternating", 0, OFF_HIST + 2, KD_TTT_O},
        {"duplicate cell", 0, OFF_HIST + 3, 2}, /* O(0,2) -> O(2,2), X's cell */
    };
    kd_ttt_state samples[3], back;
    sample_states(samples);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kd_buf b;
        kd_buf_init(&b);
        ttt_encode(&samples[cases[i].sample], &b);
        cr_assert_lt(cases[i].offset, b.len);
        b.data[cases[i].offset] = cases[i].value;
        cr_expect_eq(kd_tictactoe_ops.decode_state(b.data, b.len, &back), KD_ERR_DECODE, "%s", cases[i].what);
        kd_buf_fini(&b);
    }
}

/* Any single-byte change either fails to decode or decodes to a state that
 * encodes back to exactly the changed bytes; random bytes never crash. */
Test(ttt_decode, random_corruption)
{
    uint64_t rng = ttt_seed("random_corruption", 0xc0ffee);
    kd_ttt_state samples[3], back;
    sample_states(samples);
    size_t accepted = 0;
    for (size_t k = 0; k < 3; k++) {
        kd_buf b, re;
        kd_buf_init(&b);
        ttt_encode(&samples[k], &b);
        for (size_t off = 0; off < b.len; off++) {
            for (int t = 0; t < 16; t++) {
                uint8_t saved = b.data[off];
                b.data[off] = (uint8_t)ttt_rand(&rng);
                if (kd_tictactoe_ops.decode_state(b.data, b.len, &back) == KD_OK) {
                    kd_buf_init(&re);
                    ttt_encode(&back, &re);
                    cr_expect(same(&b, &re), "accepted bytes must re-encode identically");
                    ttt_check_invariants(&back);
                    kd_buf_fini(&re);
                    accepted++;
                }
                b.data[off] = saved;
            }
        }
        kd_buf_fini(&b);
    }
    for (int t = 0; t < 20000; t++) {
        uint8_t junk[120];
        size_t len = ttt_rand_below(&rng, sizeof junk + 1);
        for (size_t i = 0; i < len; i++)
            junk[i] = (uint8_t)ttt_rand(&rng);
        if (len > 0)
            junk[0] = KD_TTT_STATE_VERSION;
        (void)kd_tictactoe_ops.decode_state(junk, len, &back);
        kd_ttt_undo u;
        (void)kd_tictactoe_ops.decode_undo(junk, len < 12 ? len : 9, &u);
    }
    fprintf(stderr, "random_corruption: %zu corrupted states still valid\n", accepted);
}

Test(ttt_decode, undo_records)
{
    static const struct {
        const char *what;
        uint8_t bytes[9];
        size_t len;
        kd_err expect;
    } cases[] = {
        {"plain move", {1, 1, 2, KD_TTT_X, 0, 0, 0, 0, 0}, 9, KD_OK},
        {"move with removal", {1, 0, 0, KD_TTT_O, 0, 1, 2, 2, KD_TTT_X}, 9, KD_OK},
        {"version 0", {0, 1, 2, KD_TTT_X, 0, 0, 0, 0, 0}, 9, KD_ERR_DECODE},
        {"short", {1, 1, 2, KD_TTT_X, 0, 0, 0, 0, 0}, 8, KD_ERR_DECODE},
        {"empty", {0}, 0, KD_ERR_DECODE},
        {"row 3", {1, 3, 2, KD_TTT_X, 0, 0, 0, 0, 0}, 9, KD_ERR_DECODE},
        {"col 3", {1, 0, 3, KD_TTT_X, 0, 0, 0, 0, 0}, 9, KD_ERR_DECODE},
        {"turn 0", {1, 1, 2, 0, 0, 0, 0, 0, 0}, 9, KD_ERR_DECODE},
        {"previous status won", {1, 1, 2, KD_TTT_X, 1, 0, 0, 0, 0}, 9, KD_ERR_DECODE},
        {"has_removed 2", {1, 1, 2, KD_TTT_X, 0, 2, 0, 0, KD_TTT_X}, 9, KD_ERR_DECODE},
        {"junk after no removal", {1, 1, 2, KD_TTT_X, 0, 0, 0, 1, 0}, 9, KD_ERR_DECODE},
        {"removed row 3", {1, 1, 2, KD_TTT_X, 0, 1, 3, 0, KD_TTT_O}, 9, KD_ERR_DECODE},
        {"removed symbol 0", {1, 1, 2, KD_TTT_X, 0, 1, 0, 0, 0}, 9, KD_ERR_DECODE},
        {"removed the placed cell", {1, 1, 2, KD_TTT_X, 0, 1, 1, 2, KD_TTT_O}, 9, KD_ERR_DECODE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kd_ttt_undo u;
        kd_err err = kd_tictactoe_ops.decode_undo(cases[i].bytes, cases[i].len, &u);
        cr_expect_eq(err, cases[i].expect, "%s: %s", cases[i].what, kd_err_code(err));
        if (err == KD_OK) {
            kd_buf b;
            kd_buf_init(&b);
            cr_assert_eq(kd_tictactoe_ops.encode_undo(&u, &b), KD_OK);
            cr_expect(b.len == 9 && memcmp(b.data, cases[i].bytes, 9) == 0, "%s re-encodes", cases[i].what);
            kd_buf_fini(&b);
        }
    }
}

Test(ttt_decode, undo_check_refuses_a_record_of_another_move)
{
    kd_ttt_state s;
    kd_ttt_undo undo;
    kd_reject rej = {{0}, {0}};
    ttt_new(&s, 3);
    ttt_play(&s, "00 11 22");
    cr_assert_eq(ttt_move(&s, 0, 2, &undo, &rej), KD_OK);
    cr_expect_eq(kd_ttt_undo_check(&s, &undo), KD_OK);

    kd_ttt_undo bad = undo;
    bad.col = 1; /* not the newest mark */
    cr_expect_eq(kd_ttt_undo_check(&s, &bad), KD_ERR_INVALID_ARG);
    bad = undo;
    bad.has_removed = 0; /* the window was full: something was removed */
    memset(&bad.removed, 0, sizeof bad.removed);
    cr_expect_eq(kd_ttt_undo_check(&s, &bad), KD_ERR_INVALID_ARG);
    bad = undo;
    bad.removed.row = 1; /* (1,1) is occupied */
    bad.removed.col = 1;
    cr_expect_eq(kd_ttt_undo_check(&s, &bad), KD_ERR_INVALID_ARG);
    bad = undo;
    bad.removed.symbol = KD_TTT_O; /* the oldest mark was X's */
    cr_expect_eq(kd_ttt_undo_check(&s, &bad), KD_ERR_INVALID_ARG);
    bad = undo;
    bad.prev_turn = KD_TTT_X;
    cr_expect_eq(kd_ttt_undo_check(&s, &bad), KD_ERR_INVALID_ARG);

    kd_ttt_state fresh;
    ttt_new(&fresh, 0);
    cr_expect_eq(kd_ttt_undo_check(&fresh, &undo), KD_ERR_INVALID_ARG, "nothing to undo");
}
