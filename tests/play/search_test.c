/*
 * search_test.c — the search player's guarantees, checked on the player
 * function itself (no gateway), with the real rules as the oracle:
 *
 *   - it never misses a win in one (every cap, every depth, thousands of
 *     seeded random positions);
 *   - it blocks an immediate loss whenever some move can;
 *   - as X it beats random in at least 95% of 200 seeded stress games
 *     (cap 6);
 *   - it never loses a classic game: against every possible sequence of
 *     opponent replies, as X and as O, and against random.
 *
 * Also: the search and random players through the type table (the bot's
 * move with its notation; a type without a bot refused) and the random
 * player's spread. Seeds are printed; KD_TEST_SEED overrides them.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/crypto.h"
#include "episodes/tictactoe/tictactoe.h"
#include "tools/play/players.h"

static uint64_t test_seed(uint64_t fallback)
{
    const char *s = getenv("KD_TEST_SEED");
    uint64_t seed = s && *s ? strtoull(s, NULL, 10) : fallback;
    fprintf(stderr, "seed %llu (KD_TEST_SEED overrides)\n", (unsigned long long)seed);
    return seed;
}

/* An empty board with `cap` (0 classic), X to move; one key plays both. */
static kd_ttt_state fresh(uint8_t cap)
{
    kd_key k;
    cr_assert_eq(kd_key_test("search", &k), KD_OK);
    kd_participants parts = {.count = 2};
    parts.keys[0] = parts.keys[1] = k.pub;
    kd_ttt_state s;
    cr_assert_eq(kd_ttt_state_init(&s, &parts, cap, NULL), KD_OK);
    return s;
}

/* A uniformly random legal move (the opponent of the search). */
static kd_err random_cell(const kd_ttt_state *s, kd_play_rng *rng, kd_ttt_cell *out)
{
    kd_ttt_cell moves[9];
    size_t n = kd_ttt_legal_moves(s, moves);
    if (!n)
        return KD_ERR_NO_MOVE;
    *out = moves[kd_play_rng_below(rng, (uint32_t)n)];
    return KD_OK;
}

static int won(const kd_ttt_state *s) { return s->status == KD_TTT_X_WON || s->status == KD_TTT_O_WON; }

static void play(kd_ttt_state *s, const kd_ttt_cell *m)
{
    kd_ttt_move mv = {.row = m->row, .col = m->col, .player = s->turn == KD_TTT_X ? 0 : 1};
    kd_ttt_undo undo;
    kd_reject rej = {{0}, {0}};
    cr_assert_eq(kd_ttt_play(s, &mv, &s->players[mv.player], &undo, &rej), KD_OK, "(%u,%u): %s", m->row, m->col,
                 rej.detail);
}

/* 1 when the side to move can win with one move. */
static int has_win_in_one(const kd_ttt_state *s)
{
    kd_ttt_cell moves[9];
    size_t n = kd_ttt_legal_moves(s, moves);
    for (size_t i = 0; i < n; i++) {
        kd_ttt_state c = *s;
        play(&c, &moves[i]);
        if (won(&c))
            return 1;
    }
    return 0;
}

/* 1 when some move leaves the opponent without a win in one. */
static int can_avoid_loss(const kd_ttt_state *s)
{
    kd_ttt_cell moves[9];
    size_t n = kd_ttt_legal_moves(s, moves);
    for (size_t i = 0; i < n; i++) {
        kd_ttt_state c = *s;
        play(&c, &moves[i]);
        if (won(&c) || !has_win_in_one(&c))
            return 1;
    }
    return 0;
}

/* Walks seeded random games for every cap and checks the search's answer
 * at each position for depths 1..4. */
Test(search, never_misses_a_win_nor_an_avoidable_loss)
{
    kd_play_rng rng;
    kd_play_rng_seed(&rng, test_seed(42));
    unsigned wins = 0, blocks = 0;
    for (uint8_t cap = 0; cap <= KD_TTT_MAX_CAP; cap++) {
        for (int game = 0; game < 60; game++) {
            kd_ttt_state s = fresh(cap);
            for (int ply = 0; ply < 40 && s.status == KD_TTT_IN_PROGRESS; ply++) {
                int win = has_win_in_one(&s), avoid = can_avoid_loss(&s);
                for (unsigned depth = 1; depth <= 4; depth++) {
                    kd_ttt_cell m;
                    cr_assert_eq(kd_search_move(&s, depth, kd_play_rng_next(&rng), &m), KD_OK);
                    kd_ttt_state c = s;
                    play(&c, &m);
                    if (win) {
                        cr_expect(won(&c), "cap %u depth %u: missed a win in one, played (%u,%u)", cap, depth, m.row,
                                  m.col);
                        wins++;
                    } else if (avoid) {
                        cr_expect(!has_win_in_one(&c), "cap %u depth %u: (%u,%u) hands the opponent a win", cap, depth,
                                  m.row, m.col);
                        blocks++;
                    }
                }
                kd_ttt_cell r;
                cr_assert_eq(random_cell(&s, &rng, &r), KD_OK);
                play(&s, &r);
            }
        }
    }
    fprintf(stderr, "checked %u win-in-one and %u avoidable-loss positions\n", wins, blocks);
    cr_expect_gt(wins, 100);
    cr_expect_gt(blocks, 100);
}

/* The classic "fork" and "block" positions, spelled out. */
Test(search, takes_the_win_before_blocking)
{
    kd_ttt_state s = fresh(0);
    /* X X .     X to move: (0,2) wins; blocking O at (2,2) would not */
    /* O O .                                                          */
    /* . . .                                                          */
    kd_ttt_cell seq[] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}};
    for (size_t i = 0; i < 4; i++)
        play(&s, &seq[i]);
    kd_ttt_cell m;
    cr_assert_eq(kd_search_move(&s, 1, 7, &m), KD_OK);
    cr_expect(m.row == 0 && m.col == 2, "played (%u,%u), the win is (0,2)", m.row, m.col);
}

Test(search, sees_that_its_own_oldest_mark_goes_first)
{
    /* Stress cap 4: X(0,0) O(2,0) X(0,1) O(2,1), X to move.
     *
     *   X X .    (0,2) looks like a win for X, but X(0,0) is evicted before
     *   . . .    the placement; O's row 2 is just as illusory, because
     *   O O .    O(2,0) goes before O's next mark. The search must judge
     *            both through the rules, not by the picture. */
    kd_ttt_state s = fresh(4);
    kd_ttt_cell seq[] = {{0, 0, 0}, {2, 0, 0}, {0, 1, 0}, {2, 1, 0}};
    for (size_t i = 0; i < 4; i++)
        play(&s, &seq[i]);
    cr_assert(!has_win_in_one(&s), "the rules say (0,2) does not win here");
    kd_ttt_cell m;
    cr_assert_eq(kd_search_move(&s, 4, 1, &m), KD_OK);
    kd_ttt_state c = s;
    play(&c, &m);
    cr_expect(!won(&c));
}

/* Plays one game, search (X) against random (O); returns the status. */
static uint8_t search_vs_random(uint8_t cap, uint64_t seed, unsigned depth, int search_is_x, unsigned max_moves)
{
    kd_play_rng rng;
    kd_play_rng_seed(&rng, seed);
    kd_ttt_state s = fresh(cap);
    uint8_t search_side = search_is_x ? KD_TTT_X : KD_TTT_O;
    for (unsigned k = 0; k < max_moves && s.status == KD_TTT_IN_PROGRESS; k++) {
        kd_ttt_cell m;
        if (s.turn == search_side)
            cr_assert_eq(kd_search_move(&s, depth, kd_play_rng_next(&rng), &m), KD_OK);
        else
            cr_assert_eq(random_cell(&s, &rng, &m), KD_OK);
        play(&s, &m);
    }
    return s.status;
}

Test(search, as_x_beats_random_in_stress_mode, .timeout = 600)
{
    uint64_t base = test_seed(1000);
    unsigned x_wins = 0, o_wins = 0;
    for (uint64_t g = 0; g < 200; g++) {
        uint8_t st = search_vs_random(6, base + g, KD_SEARCH_DEFAULT_DEPTH, 1, 200);
        x_wins += st == KD_TTT_X_WON;
        o_wins += st == KD_TTT_O_WON;
    }
    fprintf(stderr, "search (X) vs random, cap 6, 200 games: %u won, %u lost, %u unfinished\n", x_wins, o_wins,
            200 - x_wins - o_wins);
    cr_expect_geq(x_wins, 190, "search won only %u of 200", x_wins);
}

/* Every sequence of opponent moves against the search (exhaustive). */
static void all_replies(const kd_ttt_state *s, uint8_t search_side, uint64_t tiebreak, unsigned *games,
                        unsigned *losses)
{
    if (s->status != KD_TTT_IN_PROGRESS) {
        (*games)++;
        uint8_t lost = search_side == KD_TTT_X ? KD_TTT_O_WON : KD_TTT_X_WON;
        if (s->status == lost)
            (*losses)++;
        return;
    }
    if (s->turn == search_side) {
        kd_ttt_cell m;
        cr_assert_eq(kd_search_move(s, 1, tiebreak, &m), KD_OK);
        kd_ttt_state c = *s;
        play(&c, &m);
        all_replies(&c, search_side, tiebreak * 6364136223846793005ull + 1, games, losses);
        return;
    }
    kd_ttt_cell moves[9];
    size_t n = kd_ttt_legal_moves(s, moves);
    for (size_t i = 0; i < n; i++) {
        kd_ttt_state c = *s;
        play(&c, &moves[i]);
        all_replies(&c, search_side, tiebreak + i, games, losses);
    }
}

Test(search, never_loses_classic_against_any_replies, .timeout = 600)
{
    uint64_t seed = test_seed(5);
    for (int side = 0; side < 2; side++) {
        for (uint64_t t = 0; t < 3; t++) {
            unsigned games = 0, losses = 0;
            kd_ttt_state s = fresh(0);
            all_replies(&s, side ? KD_TTT_O : KD_TTT_X, seed + t, &games, &losses);
            fprintf(stderr, "classic, search as %c, tiebreak stream %llu: %u games, %u lost\n", side ? 'O' : 'X',
                    (unsigned long long)(seed + t), games, losses);
            cr_expect_eq(losses, 0);
            cr_expect_gt(games, 50);
        }
    }
}

Test(search, never_loses_classic_against_random)
{
    uint64_t base = test_seed(77);
    for (uint64_t g = 0; g < 200; g++) {
        cr_expect_neq(search_vs_random(0, base + g, KD_SEARCH_DEFAULT_DEPTH, 1, 9), KD_TTT_O_WON, "game %llu",
                      (unsigned long long)(base + g));
        cr_expect_neq(search_vs_random(0, base + g, KD_SEARCH_DEFAULT_DEPTH, 0, 9), KD_TTT_X_WON, "game %llu",
                      (unsigned long long)(base + g));
    }
}

Test(search, same_seed_same_game)
{
    for (uint64_t g = 0; g < 20; g++) {
        kd_play_rng a, b;
        kd_play_rng_seed(&a, g);
        kd_play_rng_seed(&b, g);
        kd_ttt_state sa = fresh(5), sb = fresh(5);
        for (int k = 0; k < 30 && sa.status == KD_TTT_IN_PROGRESS; k++) {
            kd_ttt_cell ma, mb;
            cr_assert_eq(kd_search_move(&sa, 3, kd_play_rng_next(&a), &ma), KD_OK);
            cr_assert_eq(kd_search_move(&sb, 3, kd_play_rng_next(&b), &mb), KD_OK);
            cr_assert(ma.row == mb.row && ma.col == mb.col);
            play(&sa, &ma);
            play(&sb, &mb);
        }
    }
}

/* --------------------------------------------- players via the type table */

/* A turn of tic-tac-toe for the seat to move in `s` (legal: filled here). */
static kd_play_turn turn_of(const kd_episode_type *type, const kd_ttt_state *s, kd_legal_moves *legal)
{
    int seat = s->turn == KD_TTT_X ? 0 : 1;
    kd_legal_moves_clear(legal);
    cr_assert_eq(type->legal_moves(s, seat, legal), KD_OK);
    return (kd_play_turn){.episode_id = 1,
                          .type = type,
                          .seat = seat,
                          .seat_name = kd_episode_type_seat_name(type, seat),
                          .state = s,
                          .legal = legal};
}

static kd_player *player(const char *spec, uint64_t seed)
{
    kd_player_options po = {.seed = seed, .depth = 4};
    kd_player *p;
    char why[200];
    cr_assert_eq(kd_player_alloc(spec, &po, &p, why, sizeof why), KD_OK, "%s", why);
    return p;
}

Test(players, search_plays_the_bots_move_with_its_notation)
{
    kd_ttt_state s = fresh(5);
    static const kd_ttt_cell opening[] = {{0, 0, 0}, {1, 1, 0}, {2, 0, 0}, {2, 1, 0}};
    for (size_t i = 0; i < 4; i++)
        play(&s, &opening[i]);
    kd_legal_moves legal;
    kd_legal_moves_init(&legal);
    kd_play_turn turn = turn_of(&kd_tictactoe_type, &s, &legal);
    kd_player *p = player("search", 77);
    kd_legal_move m;
    char why[200] = "";
    cr_assert_eq(kd_player_choose(p, &turn, NULL, &m, why, sizeof why), KD_OK, "%s", why);
    /* the same tiebreak the player draws first from its generator */
    kd_play_rng rng;
    kd_play_rng_seed(&rng, 77);
    kd_ttt_cell want;
    cr_assert_eq(kd_search_move(&s, 4, kd_play_rng_next(&rng), &want), KD_OK);
    kd_ttt_move got;
    cr_assert_eq(kd_ttt_command_decode(m.command, m.command_len, &got, NULL), KD_OK);
    cr_expect(got.row == want.row && got.col == want.col && got.player == 0, "played (%u,%u)", got.row, got.col);
    char notation[KD_NOTATION_MAX];
    snprintf(notation, sizeof notation, "(%u, %u)", want.row, want.col);
    cr_expect_str_eq(m.notation, notation);
    kd_player_free(p);

    /* a type without a bot: the search player says so */
    kd_episode_type botless = kd_tictactoe_type;
    botless.bot_command = NULL;
    turn.type = &botless;
    p = player("search", 1);
    cr_expect_eq(kd_player_choose(p, &turn, NULL, &m, why, sizeof why), KD_ERR_UNSUPPORTED);
    cr_expect(strstr(why, "has no bot"), "%s", why);
    cr_expect(kd_player_needs_bot(p));
    kd_player_free(p);
    kd_legal_moves_fini(&legal);
}

Test(random, plays_every_legal_move)
{
    kd_ttt_state s = fresh(0);
    kd_legal_moves legal;
    kd_legal_moves_init(&legal);
    kd_play_turn turn = turn_of(&kd_tictactoe_type, &s, &legal);
    kd_player *p = player("random", test_seed(9));
    cr_expect(!kd_player_needs_bot(p));
    unsigned seen[3][3] = {{0}};
    for (int i = 0; i < 900; i++) {
        kd_legal_move m;
        char why[200];
        cr_assert_eq(kd_player_choose(p, &turn, NULL, &m, why, sizeof why), KD_OK, "%s", why);
        kd_ttt_move mv;
        cr_assert_eq(kd_ttt_command_decode(m.command, m.command_len, &mv, NULL), KD_OK);
        seen[mv.row][mv.col]++;
    }
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            cr_expect(seen[r][c] > 50 && seen[r][c] < 150, "(%d,%d) %u times of 900", r, c, seen[r][c]);
    kd_player_free(p);
    kd_legal_moves_fini(&legal);
}
