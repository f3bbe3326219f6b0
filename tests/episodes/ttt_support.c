/*
 * ttt_support.c — shared helpers of the tic-tac-toe tests (see
 * ttt_support.h). Compiled into each test executable; not library code.
 */
#include "episodes/ttt_support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ttt_keys_make(ttt_keys *keys)
{
    memset(keys, 0, sizeof *keys);
    cr_assert_eq(kd_key_test("x", &keys->x), KD_OK);
    cr_assert_eq(kd_key_test("o", &keys->o), KD_OK);
    keys->parts.keys[0] = keys->x.pub;
    keys->parts.keys[1] = keys->o.pub;
    keys->parts.count = 2;
}

void ttt_new(kd_ttt_state *state, uint8_t cap)
{
    ttt_keys keys;
    kd_buf params, effective;
    kd_reject rej = {{0}, {0}};
    kd_ttt_config config = {.default_cap = 0};

    ttt_keys_make(&keys);
    kd_buf_init(&params);
    kd_buf_init(&effective);
    cr_assert_eq(kd_ttt_params_encode(cap ? cap : KD_TTT_WIRE_CLASSIC, &params), KD_OK);
    cr_assert_eq(kd_tictactoe_ops.resolve_params(&config, params.data, params.len, &effective, &rej), KD_OK,
                 "resolve_params: %s", rej.detail);
    cr_assert_eq(kd_tictactoe_ops.init(state, &keys.parts, effective.data, effective.len, NULL, &rej), KD_OK,
                 "init: %s", rej.detail);
    cr_assert_eq(state->cap, cap);
    kd_buf_fini(&params);
    kd_buf_fini(&effective);
}

kd_err ttt_exec(kd_ttt_state *state, uint8_t row, uint8_t col, uint8_t player, const kd_pubkey *signer,
                kd_ttt_undo *undo, kd_reject *rej)
{
    kd_buf cmd;
    kd_buf_init(&cmd);
    cr_assert_eq(kd_ttt_move_encode(row, col, player, &cmd), KD_OK);
    kd_err err = kd_tictactoe_ops.execute(state, cmd.data, cmd.len, signer, NULL, undo, rej);
    kd_buf_fini(&cmd);
    return err;
}

kd_err ttt_move(kd_ttt_state *state, uint8_t row, uint8_t col, kd_ttt_undo *undo, kd_reject *rej)
{
    int side = state->turn == KD_TTT_X ? 0 : 1;
    return ttt_exec(state, row, col, (uint8_t)side, &state->players[side], undo, rej);
}

void ttt_play(kd_ttt_state *state, const char *moves)
{
    for (const char *p = moves; *p;) {
        if (*p == ' ') {
            p++;
            continue;
        }
        cr_assert(p[0] >= '0' && p[0] <= '9' && p[1] >= '0' && p[1] <= '9', "bad move string %s", moves);
        kd_ttt_undo undo;
        kd_reject rej = {{0}, {0}};
        kd_err err = ttt_move(state, (uint8_t)(p[0] - '0'), (uint8_t)(p[1] - '0'), &undo, &rej);
        cr_assert_eq(err, KD_OK, "move %c%c of \"%s\": %s (%s)", p[0], p[1], moves, kd_err_code(err), rej.detail);
        p += 2;
    }
}

void ttt_encode(const kd_ttt_state *state, kd_buf *out)
{
    cr_assert_eq(kd_tictactoe_ops.encode_state(state, out), KD_OK);
}

void ttt_check_invariants(const kd_ttt_state *state)
{
    if (state->cap)
        cr_assert_leq(state->history_len, state->cap);
    else
        cr_assert_eq(state->history_len, state->move_count);
    cr_assert_eq(state->turn, state->move_count % 2 == 0 ? KD_TTT_X : KD_TTT_O);
    uint8_t expect[3][3] = {{0}};
    for (size_t i = 0; i < state->history_len; i++) {
        const kd_ttt_cell *c = &state->history[i];
        cr_assert_eq(expect[c->row][c->col], KD_TTT_EMPTY, "cell (%u,%u) twice in history", c->row, c->col);
        expect[c->row][c->col] = c->symbol;
        if (i > 0)
            cr_assert_neq(c->symbol, state->history[i - 1].symbol, "marks must alternate");
    }
    cr_assert_eq(memcmp(expect, state->board, sizeof expect), 0,
                 "the non-empty cells must be exactly the history's cells");
    if (state->cap)
        cr_assert_neq(state->status, KD_TTT_DRAW, "stress mode has no draw");

    kd_buf a, b;
    kd_ttt_state back;
    kd_buf_init(&a);
    kd_buf_init(&b);
    ttt_encode(state, &a);
    cr_assert_eq(kd_tictactoe_ops.decode_state(a.data, a.len, &back), KD_OK, "a reachable state must decode");
    cr_assert_eq(memcmp(&back, state, sizeof back), 0);
    ttt_encode(&back, &b);
    cr_assert(a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
    kd_buf_fini(&a);
    kd_buf_fini(&b);
}

uint64_t ttt_seed(const char *test, uint64_t fallback)
{
    uint64_t seed = fallback;
    const char *env = getenv("KD_TEST_SEED");
    if (env && *env)
        seed = strtoull(env, NULL, 0);
    fprintf(stderr, "%s: seed %llu (set KD_TEST_SEED to override)\n", test, (unsigned long long)seed);
    return seed;
}

uint64_t ttt_rand(uint64_t *rng)
{
    uint64_t z = (*rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint32_t ttt_rand_below(uint64_t *rng, uint32_t n) { return (uint32_t)(ttt_rand(rng) % n); }
