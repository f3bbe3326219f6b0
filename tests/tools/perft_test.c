/*
 * perft_test.c — tools/perft.c against counts made independently here: a
 * brute force over a plain 3x3 board that shares no code with the
 * tic-tac-toe type (classic and stress mode), the published classic counts,
 * a type whose rollback is broken on purpose, and positions given as an
 * encoded state.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "episodes/episode_type.h"
#include "episodes/tictactoe/tictactoe.h"
#include "tools/sim/perft.h"

/* ------------------------------------------- the independent brute force */

typedef struct {
    int board[9];  /* 0 empty, 1 X, 2 O */
    int window[9]; /* cells with marks, oldest first */
    int marks;
    int mover;
    int cap; /* 0 classic */
} bf_pos;

static int bf_line(const int *b, int who)
{
    static const int lines[8][3] = {{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {0, 3, 6},
                                    {1, 4, 7}, {2, 5, 8}, {0, 4, 8}, {2, 4, 6}};
    for (int i = 0; i < 8; i++)
        if (b[lines[i][0]] == who && b[lines[i][1]] == who && b[lines[i][2]] == who)
            return 1;
    return 0;
}

/* Sequences of `depth` moves; a won game (or a full classic board) ends. */
static uint64_t bf_count(bf_pos p, int depth)
{
    if (depth == 0)
        return 1;
    uint64_t n = 0;
    for (int cell = 0; cell < 9; cell++) {
        if (p.board[cell])
            continue; /* also the oldest mark's cell in stress mode */
        bf_pos q = p;
        if (q.cap && q.marks == q.cap) {
            q.board[q.window[0]] = 0;
            memmove(q.window, q.window + 1, (size_t)(q.marks - 1) * sizeof q.window[0]);
            q.marks--;
        }
        q.board[cell] = q.mover;
        q.window[q.marks++] = cell;
        int over = bf_line(q.board, q.mover) || (!q.cap && q.marks == 9);
        q.mover = 3 - q.mover;
        n += over ? (depth == 1) : bf_count(q, depth - 1);
    }
    return n;
}

/* ------------------------------------------------------------- helpers */

static uint64_t perft_of(const kd_episode_type *type, const char *params_json, unsigned depth)
{
    json_t *params = params_json ? json_loads(params_json, 0, NULL) : NULL;
    cr_assert(!params_json || params, "params JSON %s", params_json);
    void *state = calloc(1, type->ops->state_size);
    unsigned char *before = calloc(1, type->ops->state_size);
    cr_assert(state && before);
    kd_perft_signers signers;
    char why[256] = "";
    cr_assert_eq(kd_perft_start(type, NULL, params, 2, state, &signers, why, sizeof why), KD_OK, "start: %s", why);
    memcpy(before, state, type->ops->state_size);
    uint64_t nodes = 0;
    cr_assert_eq(kd_perft_count(type, &signers, state, depth, NULL, NULL, &nodes, why, sizeof why), KD_OK, "%s", why);
    cr_expect_eq(memcmp(before, state, type->ops->state_size), 0, "the state is back as it was");
    json_decref(params);
    free(before);
    free(state);
    return nodes;
}

/* --------------------------------------------------------------- tests */

Test(perft, classic_counts_match_the_brute_force_and_the_published_ones)
{
    static const uint64_t published[10] = {1, 9, 72, 504, 3024, 15120, 54720, 148176, 200448, 127872};
    bf_pos empty = {.mover = 1};
    for (unsigned depth = 0; depth <= 9; depth++) {
        uint64_t independent = bf_count(empty, (int)depth);
        cr_expect_eq(independent, published[depth], "brute force, depth %u: %llu", depth,
                     (unsigned long long)independent);
        uint64_t nodes = perft_of(&kd_tictactoe_type, NULL, depth);
        cr_expect_eq(nodes, published[depth], "perft depth %u: %llu", depth, (unsigned long long)nodes);
    }
    cr_expect_eq(perft_of(&kd_tictactoe_type, NULL, 10), 0, "no game lasts ten moves");
}

Test(perft, stress_mode_counts_match_the_brute_force)
{
    static const struct {
        int cap;
        unsigned depth;
    } cases[] = {{3, 6}, {4, 7}, {6, 9}, {1, 6}, {2, 8}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char params[64];
        snprintf(params, sizeof params, "{\"cap\": %d}", cases[i].cap);
        bf_pos empty = {.mover = 1, .cap = cases[i].cap};
        uint64_t independent = bf_count(empty, (int)cases[i].depth);
        uint64_t nodes = perft_of(&kd_tictactoe_type, params, cases[i].depth);
        cr_expect_eq(nodes, independent, "cap %d depth %u: perft %llu, brute force %llu", cases[i].cap, cases[i].depth,
                     (unsigned long long)nodes, (unsigned long long)independent);
        cr_expect_gt(nodes, 0);
    }
}

static void sum_divide(void *ctx, const kd_legal_move *move, uint64_t count)
{
    (void)move;
    uint64_t *acc = ctx;
    acc[0] += count;
    acc[1]++;
}

Test(perft, divide_sums_to_the_count_and_an_encoded_state_finds_its_signers)
{
    const kd_episode_type *type = &kd_tictactoe_type;
    const kd_episode_ops *ops = type->ops;
    void *state = calloc(1, ops->state_size), *again = calloc(1, ops->state_size);
    cr_assert(state && again);
    kd_perft_signers signers;
    char why[256] = "";
    cr_assert_eq(kd_perft_start(type, NULL, NULL, 2, state, &signers, why, sizeof why), KD_OK, "%s", why);
    uint64_t acc[2] = {0}, nodes = 0;
    cr_assert_eq(kd_perft_count(type, &signers, state, 3, sum_divide, acc, &nodes, why, sizeof why), KD_OK, "%s", why);
    cr_expect_eq(nodes, 504);
    cr_expect_eq(acc[0], 504);
    cr_expect_eq(acc[1], 9, "one line per first move");

    /* The same position as encoded bytes, its participants unknown. */
    kd_buf enc;
    kd_buf_init(&enc);
    cr_assert_eq(ops->encode_state(state, &enc), KD_OK);
    cr_assert_eq(ops->decode_state(enc.data, enc.len, again), KD_OK);
    kd_perft_signers found;
    cr_assert_eq(kd_perft_signers_from_state(&found, enc.data, enc.len), KD_OK);
    cr_expect_geq(found.candidate_count, 2);
    nodes = 0;
    cr_assert_eq(kd_perft_count(type, &found, again, 4, NULL, NULL, &nodes, why, sizeof why), KD_OK, "%s", why);
    cr_expect_eq(nodes, 3024);

    uint8_t nothing[40] = {0};
    cr_expect_eq(kd_perft_signers_from_state(&found, nothing, sizeof nothing), KD_ERR_NOT_FOUND);
    kd_buf_fini(&enc);
    free(again);
    free(state);
}

/* A rollback that leaves one byte of the state changed after a few moves. */
static kd_err broken_rollback(void *state, const void *undo)
{
    kd_err err = kd_tictactoe_type.ops->rollback(state, undo);
    kd_ttt_state *s = state;
    if (!err && s->move_count == 2 && s->board[1][1] == KD_TTT_O)
        s->board[2][2] = KD_TTT_X; /* a stray mark the undo forgot */
    return err;
}

Test(perft, a_rollback_that_changes_the_state_stops_the_count_naming_the_moves)
{
    kd_episode_ops ops = *kd_tictactoe_type.ops;
    ops.rollback = broken_rollback;
    kd_episode_type type = kd_tictactoe_type;
    type.ops = &ops;
    void *state = calloc(1, ops.state_size);
    cr_assert(state);
    kd_perft_signers signers;
    char why[256] = "";
    cr_assert_eq(kd_perft_start(&type, NULL, NULL, 2, state, &signers, why, sizeof why), KD_OK, "%s", why);
    uint64_t nodes = 0;
    why[0] = '\0';
    cr_expect_eq(kd_perft_count(&type, &signers, state, 4, NULL, NULL, &nodes, why, sizeof why), KD_ERR_INTERNAL);
    cr_expect(strstr(why, "changed") != NULL, "why: %s", why);
    cr_expect(strstr(why, "after ") == why, "the sentence names the moves before: %s", why);
    cr_expect_eq(kd_perft_count(&type, &signers, state, KD_PERFT_MAX_DEPTH + 1, NULL, NULL, &nodes, why, sizeof why),
                 KD_ERR_INVALID_ARG);
    free(state);
}

Test(perft, the_seat_count_must_fit_the_type)
{
    void *state = calloc(1, kd_tictactoe_type.ops->state_size);
    kd_perft_signers signers;
    char why[256] = "";
    cr_expect_eq(kd_perft_start(&kd_tictactoe_type, NULL, NULL, 3, state, &signers, why, sizeof why),
                 KD_ERR_INVALID_ARG);
    cr_expect(strstr(why, "not 3") != NULL, "why: %s", why);
    free(state);
}
