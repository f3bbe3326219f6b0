/*
 * seabattle_test.c — sea battle's rules (episodes/seabattle/seabattle*.c): the Merkle
 * commitment against an independent computation (Python's hashlib, values
 * below), fleets from seeds, fleet legality, every refusal with its rule
 * code, whole games with the duties paid from the seats' boards, the
 * cheaters (a false opening refused, an illegal fleet losing at the reveal,
 * a missed deadline losing to the claim), byte-exact rollback of every
 * command (sb_exec), encodings and the size of the largest command.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "episodes/seabattle/seabattle.h"
#include "sb_support.h"

/* ------------------------------------------------------------ commitment */

/* contents[i] = i % 6, salt[i][j] = (7i + j) & 0xff; root and path of cell
 * 42 (levels 0 and 6) computed by an independent script:
 *   H = sha256; leaves = [H(b"\0" + bytes([i, c[i]]) + salt[i])] + [b"\0" * 32] * 28
 *   each level: H(b"\1" + left + right) */
static void fixed_board(kd_sb_board *b)
{
    for (int i = 0; i < KD_SB_CELLS; i++) {
        b->contents[i] = (uint8_t)(i % 6);
        for (int j = 0; j < KD_SB_SALT_LEN; j++)
            b->salts[i][j] = (uint8_t)((i * 7 + j) & 0xff);
    }
}

static void expect_hex(const uint8_t *h, const char *want)
{
    char hex[2 * KD_HASH_LEN + 1];
    kd_hex_encode(h, KD_HASH_LEN, hex);
    cr_expect_str_eq(hex, want);
}

Test(seabattle, merkle_matches_an_independent_computation)
{
    kd_sb_board b;
    fixed_board(&b);
    uint8_t root[KD_HASH_LEN], path[KD_SB_DEPTH][KD_HASH_LEN];
    kd_sb_root(&b, root);
    expect_hex(root, "319b2b1fcbe678cadec5c75d3af7be5431968461baa088d4a86411d0118e0e3d");
    kd_sb_path(&b, 42, path);
    expect_hex(path[0], "ff2a61b77aca193d79835d867f9fb9050c6be868187409c31372f23177331832");
    expect_hex(path[6], "1d40c183cbf13f7188f3b239553edc3bf6de4f84575449a427ebd03f859c6b01");
    for (uint32_t cell = 0; cell < KD_SB_CELLS; cell++) {
        kd_sb_path(&b, cell, path);
        cr_assert(kd_sb_path_ok(root, cell, b.contents[cell], b.salts[cell], path), "cell %u opens", cell);
        cr_assert(!kd_sb_path_ok(root, cell, (uint8_t)((b.contents[cell] + 1) % 6), b.salts[cell], path),
                  "another content does not");
        cr_assert(!kd_sb_path_ok(root, (cell + 1) % KD_SB_CELLS, b.contents[cell], b.salts[cell], path));
        uint8_t salt[KD_SB_SALT_LEN];
        memcpy(salt, b.salts[cell], sizeof salt);
        salt[31] ^= 1;
        cr_assert(!kd_sb_path_ok(root, cell, b.contents[cell], salt, path), "another salt does not");
    }
    cr_expect(!kd_sb_path_ok(root, 100, 0, b.salts[0], path), "a padding leaf is no cell");
}

Test(seabattle, fleets_from_seeds_are_legal_and_differ)
{
    uint8_t seed[KD_SECRET_SEED_LEN] = {0}, first[KD_SB_CELLS], again[KD_SB_CELLS], fleet[KD_SB_CELLS];
    kd_sb_fleet_from_seed(seed, first);
    kd_sb_fleet_from_seed(seed, again);
    cr_expect_eq(memcmp(first, again, KD_SB_CELLS), 0, "deterministic");
    int differ = 0;
    for (uint32_t n = 1; n < 2000; n++) {
        kd_put_u32be(seed, n);
        kd_sb_fleet_from_seed(seed, fleet);
        char why[160] = "";
        cr_assert(kd_sb_fleet_legal(fleet, why, sizeof why), "seed %u: %s", n, why);
        differ += memcmp(fleet, first, KD_SB_CELLS) != 0;
    }
    cr_expect_eq(differ, 1999);
    kd_sb_board a, b;
    kd_sb_board_from_seed(seed, &a);
    kd_sb_board_from_seed(seed, &b);
    cr_expect_eq(memcmp(&a, &b, sizeof a), 0);
    cr_expect_neq(memcmp(a.salts[0], a.salts[1], KD_SB_SALT_LEN), 0, "a salt per cell");
}

/* A legal fleet: rows 1, 3, 5, 7, 9 from column a. */
static void rows_fleet(uint8_t c[KD_SB_CELLS])
{
    memset(c, 0, KD_SB_CELLS);
    for (unsigned id = 1; id <= KD_SB_SHIPS; id++)
        for (unsigned k = 0; k < kd_sb_ship_len[id]; k++)
            c[(2 * (id - 1)) * KD_SB_SIZE + k] = (uint8_t)id;
}

Test(seabattle, fleet_legality)
{
    uint8_t c[KD_SB_CELLS];
    char why[160];
    rows_fleet(c);
    cr_expect(kd_sb_fleet_legal(c, why, sizeof why), "%s", why);
    rows_fleet(c);
    c[1 * KD_SB_SIZE + 5] = 1; /* ship 2 moved up a row beside ship 1: here one cell of 1 below */
    cr_expect(!kd_sb_fleet_legal(c, why, sizeof why));
    rows_fleet(c);
    c[4] = 0, c[1 * KD_SB_SIZE + 5] = 1; /* ship 1 bent */
    cr_expect(!kd_sb_fleet_legal(c, why, sizeof why));
    cr_expect(strstr(why, "ship 1"), "%s", why);
    rows_fleet(c);
    c[2 * KD_SB_SIZE + 0] = 0, c[2 * KD_SB_SIZE + 1] = 0, c[2 * KD_SB_SIZE + 2] = 0, c[2 * KD_SB_SIZE + 3] = 0;
    for (int k = 0; k < 4; k++)
        c[(2 + k) * KD_SB_SIZE + 3] = 2; /* ship 2 down column d from row 3: beside ship 3 (a5..c5) */
    cr_expect(!kd_sb_fleet_legal(c, why, sizeof why), "ship 2 meets ship 3's row");
    rows_fleet(c);
    c[8 * KD_SB_SIZE + 1] = 0, c[8 * KD_SB_SIZE + 0] = 0;
    c[9 * KD_SB_SIZE + 3] = 5, c[9 * KD_SB_SIZE + 4] = 5; /* ship 5 on row 10 from d: diagonal to ship 4 (c7)? */
    cr_expect(kd_sb_fleet_legal(c, why, sizeof why), "row 10 d,e is two rows from row 7: %s", why);
    c[9 * KD_SB_SIZE + 3] = 0, c[9 * KD_SB_SIZE + 4] = 0;
    c[7 * KD_SB_SIZE + 3] = 5, c[7 * KD_SB_SIZE + 4] = 5; /* row 8 d,e: diagonal to ship 4's c7 */
    cr_expect(!kd_sb_fleet_legal(c, why, sizeof why));
    cr_expect(strstr(why, "touch"), "diagonal contact is touching: %s", why);
    rows_fleet(c);
    c[99] = 6;
    cr_expect(!kd_sb_fleet_legal(c, why, sizeof why));
    rows_fleet(c);
    c[8 * KD_SB_SIZE + 1] = 0;
    cr_expect(!kd_sb_fleet_legal(c, why, sizeof why), "ship 5 one cell short");
}

Test(seabattle, cell_names)
{
    cr_expect_eq(kd_sb_cell_parse("a1"), 0);
    cr_expect_eq(kd_sb_cell_parse("j1"), 9);
    cr_expect_eq(kd_sb_cell_parse("a2"), 10);
    cr_expect_eq(kd_sb_cell_parse("c5"), 42);
    cr_expect_eq(kd_sb_cell_parse("j10"), 99);
    const char *bad[] = {"k1", "a0", "a11", "A1", "a", "", "a10x", "b01"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_expect_eq(kd_sb_cell_parse(bad[i]), -1, "%s", bad[i]);
    char name[4];
    kd_sb_cell_name(99, name);
    cr_expect_str_eq(name, "j10");
    kd_sb_cell_name(42, name);
    cr_expect_str_eq(name, "c5");
}

/* ---------------------------------------------------------------- games */

/* The first unshot cell of `seat`'s target holding (want_ship) or not
 * holding a ship of the other board. */
static uint32_t pick(const sb_game *g, int seat, int want_ship)
{
    for (uint32_t i = 0; i < KD_SB_CELLS; i++)
        if (!g->state.marks[1 - seat][i] && (g->board[1 - seat].contents[i] != 0) == want_ship)
            return i;
    cr_assert_fail("no cell left");
    return 0;
}

/* One round: `seat` shoots `cell`, the other answers. */
static void round_at(sb_game *g, int seat, uint32_t cell)
{
    kd_reject rej;
    cr_assert_eq(sb_simple(g, seat, KD_SB_SHOT, cell, &rej), KD_OK, "%s: %s", rej.code, rej.detail);
    g->daa++;
    cr_assert_eq(sb_pay(g, 1 - seat, &rej), KD_OK, "%s: %s", rej.code, rej.detail);
    g->daa++;
}

Test(seabattle, a_whole_game_sunk_then_revealed)
{
    sb_game g;
    sb_new_game(&g, NULL);
    kd_reject rej;
    cr_expect_eq(kd_sb_to_move(&g.state), KD_SB_BLUE);
    /* blue hits every ship cell; red always misses */
    while (g.state.phase == KD_SB_PLAY) {
        round_at(&g, KD_SB_BLUE, pick(&g, KD_SB_BLUE, 1));
        if (g.state.phase == KD_SB_PLAY)
            round_at(&g, KD_SB_RED, pick(&g, KD_SB_RED, 0));
    }
    cr_expect(kd_sb_fleet_sunk(&g.state, KD_SB_RED));
    cr_expect_eq(g.state.phase, KD_SB_REVEAL);
    cr_expect_eq(g.state.winner, KD_SB_BLUE);
    cr_expect_eq(g.state.reason, KD_SB_REASON_SUNK);
    cr_expect_eq(g.state.move_count, 17 * 2 + 16 * 2);
    for (unsigned id = 1; id <= KD_SB_SHIPS; id++)
        cr_expect_eq(kd_sb_hits(&g.state, KD_SB_RED, id), kd_sb_ship_len[id]);
    cr_expect_eq(sb_simple(&g, KD_SB_RED, KD_SB_SHOT, 0, &rej), KD_ERR_RULE);
    cr_expect_str_eq(rej.code, "game_over");
    cr_expect_eq(kd_sb_to_move(&g.state), KD_SB_BLUE, "blue reveals first");
    cr_expect_eq(sb_pay(&g, KD_SB_RED, &rej), KD_OK, "either seat may reveal first");
    cr_expect_eq(g.state.revealed[KD_SB_RED], KD_SB_LEGAL);
    cr_expect_eq(kd_sb_to_move(&g.state), KD_SB_BLUE);
    cr_expect_eq(sb_pay(&g, KD_SB_RED, &rej), KD_ERR_RULE);
    cr_expect_str_eq(rej.code, "already_revealed");
    cr_expect_eq(sb_pay(&g, KD_SB_BLUE, &rej), KD_OK);
    cr_expect_eq(g.state.phase, KD_SB_OVER);
    cr_expect_eq(g.state.winner, KD_SB_BLUE);
    cr_expect_eq(kd_sb_to_move(&g.state), KD_SEAT_NONE);
    cr_expect_eq(sb_simple(&g, KD_SB_RED, KD_SB_CLAIM, 0, &rej), KD_ERR_RULE);
    cr_expect_str_eq(rej.code, "game_over");
}

Test(seabattle, every_refusal_has_its_rule_code)
{
    sb_game g;
    sb_new_game(&g, NULL);
    kd_reject rej;
    kd_buf b;
    kd_buf_init(&b);
#define REFUSED(call, want)                                            \
    do {                                                               \
        memset(&rej, 0, sizeof rej);                                   \
        cr_expect_eq((call), KD_ERR_RULE, "%s", #call);                \
        cr_expect_str_eq(rej.code, want, "%s: %s", #call, rej.detail); \
    } while (0)
    /* unauthorised: unsigned, a stranger */
    kd_sb_command c;
    memset(&c, 0, sizeof c);
    c.kind = KD_SB_SHOT;
    cr_assert_eq(kd_sb_command_encode(&c, &b), KD_OK);
    REFUSED(sb_exec(&g, &b, NULL, &rej), "unauthorised");
    REFUSED(sb_exec(&g, &b, &g.stranger.pub, &rej), "unauthorised");
    REFUSED(sb_simple(&g, KD_SB_RED, KD_SB_SHOT, 0, &rej), "not_your_turn");
    REFUSED(sb_simple(&g, KD_SB_BLUE, KD_SB_SHOT, 100, &rej), "out_of_bounds");
    REFUSED(sb_pay(&g, KD_SB_RED, &rej), "no_shot_pending");
    REFUSED(sb_simple(&g, KD_SB_BLUE, KD_SB_CLAIM, 0, &rej), "nothing_to_claim");
    sb_game reveal_early = g;
    reveal_early.state.phase = KD_SB_REVEAL; /* only to make the bytes */
    kd_buf rv;
    kd_buf_init(&rv);
    sb_duty_bytes(&reveal_early, KD_SB_BLUE, &rv);
    REFUSED(sb_exec(&g, &rv, &g.key[0].pub, &rej), "not_reveal_phase");
    cr_assert_eq(sb_simple(&g, KD_SB_BLUE, KD_SB_SHOT, 42, &rej), KD_OK);
    REFUSED(sb_simple(&g, KD_SB_BLUE, KD_SB_SHOT, 43, &rej), "answer_owed");
    REFUSED(sb_pay(&g, KD_SB_BLUE, &rej), "not_your_turn");
    REFUSED(sb_simple(&g, KD_SB_BLUE, KD_SB_CLAIM, 0, &rej), "too_early");
    REFUSED(sb_simple(&g, KD_SB_RED, KD_SB_CLAIM, 0, &rej), "nothing_to_claim");
    /* answers: the wrong cell, a content beyond the ids, a false opening */
    kd_sb_command *a = calloc(1, sizeof *a);
    cr_assert(a);
    a->kind = KD_SB_ANSWER;
    a->cell = 42;
    a->content = g.board[1].contents[42];
    memcpy(a->salt, g.board[1].salts[42], KD_SB_SALT_LEN);
    kd_sb_path(&g.board[1], 42, a->path);
    kd_sb_command wrong = *a;
    wrong.cell = 43;
    b.len = 0;
    cr_assert_eq(kd_sb_command_encode(&wrong, &b), KD_OK);
    REFUSED(sb_exec(&g, &b, &g.key[1].pub, &rej), "wrong_cell");
    wrong = *a;
    wrong.content = 9;
    b.len = 0;
    cr_assert_eq(kd_sb_command_encode(&wrong, &b), KD_OK);
    REFUSED(sb_exec(&g, &b, &g.key[1].pub, &rej), "bad_content");
    /* the cheat: the other content (a ship where there is water, or water
     * where there is a ship) */
    wrong = *a;
    wrong.content = a->content ? 0 : 1;
    b.len = 0;
    cr_assert_eq(kd_sb_command_encode(&wrong, &b), KD_OK);
    REFUSED(sb_exec(&g, &b, &g.key[1].pub, &rej), "false_opening");
    wrong = *a;
    wrong.path[3][0] ^= 1;
    b.len = 0;
    cr_assert_eq(kd_sb_command_encode(&wrong, &b), KD_OK);
    REFUSED(sb_exec(&g, &b, &g.key[1].pub, &rej), "false_opening");
    /* the truth is still taken before the deadline */
    cr_expect_eq(sb_pay(&g, KD_SB_RED, &rej), KD_OK, "%s", rej.detail);
    cr_expect_eq(g.state.marks[1][42], g.board[1].contents[42] + 1);
    cr_assert_eq(sb_simple(&g, KD_SB_RED, KD_SB_SHOT, 5, &rej), KD_OK);
    cr_assert_eq(sb_pay(&g, KD_SB_BLUE, &rej), KD_OK);
    REFUSED(sb_simple(&g, KD_SB_BLUE, KD_SB_SHOT, 42, &rej), "already_shot");
    /* red resigns (on blue's turn: a resignation needs no turn) */
    cr_assert_eq(sb_simple(&g, KD_SB_RED, KD_SB_RESIGN, 0, &rej), KD_OK);
    cr_expect_eq(g.state.phase, KD_SB_REVEAL);
    cr_expect_eq(g.state.winner, KD_SB_BLUE);
    cr_expect_eq(g.state.reason, KD_SB_REASON_RESIGNED);
    REFUSED(sb_simple(&g, KD_SB_RED, KD_SB_RESIGN, 0, &rej), "game_over");
    REFUSED(sb_simple(&g, KD_SB_BLUE, KD_SB_SHOT, 44, &rej), "game_over");
    REFUSED(sb_simple(&g, KD_SB_BLUE, KD_SB_CLAIM, 0, &rej), "nothing_to_claim");
    /* a reveal that is not the committed board, one with a content beyond the ids */
    kd_sb_board real = g.board[0];
    g.board[0].salts[17][0] ^= 1;
    REFUSED(sb_pay(&g, KD_SB_BLUE, &rej), "false_board");
    g.board[0] = real;
    g.board[0].contents[3] = 7;
    REFUSED(sb_pay(&g, KD_SB_BLUE, &rej), "bad_content");
    g.board[0] = real;
    cr_assert_eq(sb_pay(&g, KD_SB_BLUE, &rej), KD_OK);
    REFUSED(sb_pay(&g, KD_SB_BLUE, &rej), "already_revealed");
    REFUSED(sb_simple(&g, KD_SB_RED, KD_SB_CLAIM, 0, &rej), "nothing_to_claim");
    g.daa = g.state.since + SB_TIMEOUT - 1;
    REFUSED(sb_simple(&g, KD_SB_BLUE, KD_SB_CLAIM, 0, &rej), "too_early");
    /* every code the rules refused with is one of the type's */
    free(a);
    kd_buf_fini(&b);
    kd_buf_fini(&rv);
}

Test(seabattle, a_missed_answer_loses_to_the_claim)
{
    sb_game g;
    sb_new_game(&g, NULL);
    kd_reject rej;
    round_at(&g, KD_SB_BLUE, 0);
    uint64_t shot_at = g.daa;
    cr_assert_eq(sb_simple(&g, KD_SB_RED, KD_SB_SHOT, 11, &rej), KD_OK);
    cr_expect_eq(g.state.since, shot_at);
    g.daa = shot_at + SB_TIMEOUT - 1;
    cr_expect_eq(sb_simple(&g, KD_SB_RED, KD_SB_CLAIM, 0, &rej), KD_ERR_RULE);
    cr_expect_str_eq(rej.code, "too_early");
    g.daa = shot_at + SB_TIMEOUT;
    cr_expect_eq(sb_simple(&g, KD_SB_RED, KD_SB_CLAIM, 0, &rej), KD_OK);
    cr_expect_eq(g.state.phase, KD_SB_OVER);
    cr_expect_eq(g.state.winner, KD_SB_RED);
    cr_expect_eq(g.state.reason, KD_SB_REASON_NO_ANSWER);
    cr_expect_eq(kd_seabattle_type.seat_result(&g.state, KD_SB_BLUE), KD_RESULT_FORFEIT);
    cr_expect_eq(kd_seabattle_type.seat_result(&g.state, KD_SB_RED), KD_RESULT_WIN);
    cr_expect_eq(sb_pay(&g, KD_SB_BLUE, &rej), KD_ERR_RULE, "too late to answer");
    cr_expect_str_eq(rej.code, "game_over");
}

Test(seabattle, a_missed_reveal_loses_to_the_claim)
{
    sb_game g;
    sb_new_game(&g, NULL);
    kd_reject rej;
    cr_assert_eq(sb_simple(&g, KD_SB_RED, KD_SB_RESIGN, 0, &rej), KD_OK); /* blue leads */
    cr_assert_eq(sb_pay(&g, KD_SB_RED, &rej), KD_OK);
    g.daa = g.state.since + SB_TIMEOUT;
    cr_assert_eq(sb_simple(&g, KD_SB_RED, KD_SB_CLAIM, 0, &rej), KD_OK, "%s", rej.detail);
    cr_expect_eq(g.state.phase, KD_SB_OVER);
    cr_expect_eq(g.state.winner, KD_SB_RED, "blue never showed a legal fleet");
    cr_expect_eq(g.state.reason, KD_SB_REASON_NO_REVEAL);
    cr_expect_eq(kd_seabattle_type.seat_result(&g.state, KD_SB_BLUE), KD_RESULT_FORFEIT);
}

/* A board with an illegal fleet: only ship 5, two cells at a1, b1. */
static void tiny_board(const uint8_t seed[KD_SECRET_SEED_LEN], kd_sb_board *b)
{
    kd_sb_board_from_seed(seed, b);
    memset(b->contents, 0, KD_SB_CELLS);
    b->contents[0] = b->contents[1] = 5;
}

Test(seabattle, an_illegal_fleet_loses_at_the_reveal)
{
    sb_game probe;
    sb_new_game(&probe, NULL);
    kd_sb_board boards[2] = {probe.board[0]};
    tiny_board(probe.seed[1], &boards[1]);
    sb_game g;
    sb_new_game(&g, boards);
    kd_reject rej;
    /* red sinks blue's true fleet while blue shoots red's water */
    while (g.state.phase == KD_SB_PLAY) {
        round_at(&g, KD_SB_BLUE, pick(&g, KD_SB_BLUE, 0));
        if (g.state.phase == KD_SB_PLAY)
            round_at(&g, KD_SB_RED, pick(&g, KD_SB_RED, 1));
    }
    cr_expect_eq(g.state.winner, KD_SB_RED, "red sank blue first");
    cr_expect_eq(g.state.reason, KD_SB_REASON_SUNK);
    cr_assert_eq(sb_pay(&g, KD_SB_RED, &rej), KD_OK, "the board matches the root: taken, and judged");
    cr_expect_eq(g.state.revealed[KD_SB_RED], KD_SB_ILLEGAL);
    cr_assert_eq(sb_pay(&g, KD_SB_BLUE, &rej), KD_OK);
    cr_expect_eq(g.state.revealed[KD_SB_BLUE], KD_SB_LEGAL);
    cr_expect_eq(g.state.phase, KD_SB_OVER);
    cr_expect_eq(g.state.winner, KD_SB_BLUE, "the illegal fleet loses");
    cr_expect_eq(kd_seabattle_type.seat_result(&g.state, KD_SB_RED), KD_RESULT_CHEAT);
    cr_expect_eq(kd_seabattle_type.seat_result(&g.state, KD_SB_BLUE), KD_RESULT_WIN);
}

Test(seabattle, a_board_shot_through_without_sinking_ends_the_play)
{
    sb_game probe;
    sb_new_game(&probe, NULL);
    kd_sb_board boards[2] = {probe.board[0]};
    tiny_board(probe.seed[1], &boards[1]);
    boards[1].contents[0] = boards[1].contents[1] = 0; /* no ship at all, on both boards */
    memset(boards[0].contents, 0, KD_SB_CELLS);
    sb_game g;
    sb_new_game(&g, boards);
    for (int n = 0; g.state.phase == KD_SB_PLAY; n++) {
        round_at(&g, KD_SB_BLUE, pick(&g, KD_SB_BLUE, 0));
        if (g.state.phase == KD_SB_PLAY)
            round_at(&g, KD_SB_RED, pick(&g, KD_SB_RED, 0));
    }
    cr_expect_eq(g.state.reason, KD_SB_REASON_EXHAUSTED);
    cr_expect_eq(g.state.winner, KD_SB_BLUE);
    cr_expect_eq(kd_seabattle_type.seat_result(&g.state, KD_SB_RED), KD_RESULT_NONE, "provisional until the reveal");
}

Test(seabattle, encodings_refuse_what_cannot_be)
{
    sb_game g;
    sb_new_game(&g, NULL);
    kd_buf b;
    kd_buf_init(&b);
    cr_assert_eq(kd_sb_state_encode(&g.state, &b), KD_OK);
    cr_expect_eq(b.len, KD_SB_STATE_LEN);
    kd_sb_state s;
    cr_expect_eq(kd_sb_state_decode(b.data, b.len - 1, &s), KD_ERR_DECODE);
    b.data[0] = KD_SB_VERSION + 1;
    cr_expect_eq(kd_sb_state_decode(b.data, b.len, &s), KD_ERR_DECODE, "another version");
    b.data[0] = KD_SB_VERSION;
    b.data[1] = 3;
    cr_expect_eq(kd_sb_state_decode(b.data, b.len, &s), KD_ERR_DECODE, "no phase 3");
    b.data[1] = KD_SB_PLAY;
    b.data[4] = 0;
    cr_expect_eq(kd_sb_state_decode(b.data, b.len, &s), KD_ERR_DECODE, "a winner during the play");
    b.data[4] = KD_SB_NO_SEAT;
    b.data[b.len - 1] = 7;
    cr_expect_eq(kd_sb_state_decode(b.data, b.len, &s), KD_ERR_DECODE, "mark 7");
    b.data[b.len - 1] = 0;
    cr_expect_eq(kd_sb_state_decode(b.data, b.len, &s), KD_OK);
    kd_sb_undo u;
    cr_expect_eq(kd_sb_undo_decode(b.data, b.len, &u), KD_ERR_DECODE);
    kd_reject rej;
    cr_expect_eq(kd_sb_ops.decode_undo(NULL, 0, &u), KD_ERR_DECODE);
    cr_expect_eq(kd_sb_command_decode((const uint8_t *)"\x0a\x01", 2, &(kd_sb_command){0}, &rej), KD_ERR_BAD_COMMAND);
    kd_buf_fini(&b);
}

Test(seabattle, the_largest_command_fits_one_transaction)
{
    sb_game g;
    sb_new_game(&g, NULL);
    g.state.phase = KD_SB_REVEAL; /* only to make the bytes */
    kd_buf b;
    kd_buf_init(&b);
    sb_duty_bytes(&g, KD_SB_BLUE, &b);
    /* 100 contents + 3200 bytes of salts and a few bytes of framing; a
     * signed payload adds about 120 bytes: far below the devnet's 1 MiB,
     * the ingest's 16 MiB and a Kaspa transaction's ~100 kB of mass */
    cr_expect_eq(b.len, 3308);
    kd_buf_fini(&b);
}
