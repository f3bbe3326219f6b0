/*
 * search_budget_test.c — the search player's depth and time budgets
 * (players.h): the spec forms and their errors, the stopping rule of
 * iterative deepening, and timed searches against a bot whose cost per
 * depth is known (it waits 2^(d-1) ms at depth d and answers "depth d"),
 * then against the real four-in-a-row and tic-tac-toe bots through the
 * type table.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "engine/crypto.h"
#include "episodes/fourinarow/fourinarow.h"
#include "episodes/tictactoe/tictactoe.h"
#include "tools/play/players.h"

/* ------------------------------------------------------------- parsing */

static kd_search_budget parse_ok(const char *spec)
{
    kd_search_budget b;
    char why[200] = "";
    cr_assert_eq(kd_search_spec_parse(spec, &b, why, sizeof why), KD_OK, "%s: %s", spec, why);
    return b;
}

static void parse_bad(const char *spec, const char *want)
{
    kd_search_budget b;
    char why[200] = "";
    cr_expect_eq(kd_search_spec_parse(spec, &b, why, sizeof why), KD_ERR_INVALID_ARG, "'%s' was accepted", spec);
    cr_expect(strstr(why, want), "'%s': '%s' lacks '%s'", spec, why, want);
}

Test(search_spec, forms)
{
    kd_search_budget b = parse_ok("search");
    cr_expect(b.depth == 0 && b.think_ms == 0);
    b = parse_ok("search:depth=6");
    cr_expect(b.depth == 6 && b.think_ms == 0);
    b = parse_ok("search:ms=500");
    cr_expect(b.depth == 0 && b.think_ms == 500);
    b = parse_ok("search:ms=500:depth=12");
    cr_expect(b.depth == 12 && b.think_ms == 500);
    b = parse_ok("search:depth=64:ms=600000");
    cr_expect(b.depth == 64 && b.think_ms == 600000);
}

Test(search_spec, errors)
{
    parse_bad("searcher", "is not a search player");
    parse_bad("random", "is not a search player");
    parse_bad("search:", "search option '': use depth=N or ms=T");
    parse_bad("search:speed=3", "search option 'speed=3'");
    parse_bad("search:depth", "depth (plies) must be a whole number from 1 to 64");
    parse_bad("search:depth=", "from 1 to 64");
    parse_bad("search:depth=0", "from 1 to 64");
    parse_bad("search:depth=65", "from 1 to 64");
    parse_bad("search:depth=-1", "from 1 to 64");
    parse_bad("search:depth=4x", "from 1 to 64");
    parse_bad("search:ms=0", "ms (milliseconds a move) must be a whole number from 1 to 600000");
    parse_bad("search:ms=600001", "from 1 to 600000");
    parse_bad("search:ms=99999999999999999999", "from 1 to 600000");
    parse_bad("search:depth=2:depth=3", "depth given twice");
    parse_bad("search:ms=2:depth=3:ms=4", "ms given twice");
    parse_bad("search:depth=2:", "search option ''");
}

Test(search_spec, player_alloc_refuses_bad_options)
{
    kd_player_options po = {.seed = 1};
    kd_player *p = NULL;
    char why[200] = "";
    cr_expect_eq(kd_player_alloc("search:depth=99", &po, &p, why, sizeof why), KD_ERR_INVALID_ARG);
    cr_expect_null(p);
    cr_expect(strstr(why, "from 1 to 64"), "%s", why);
    cr_expect_eq(kd_player_alloc("searchlight", &po, &p, why, sizeof why), KD_ERR_INVALID_ARG);
    cr_expect(strstr(why, "search[:depth=N][:ms=T]"), "%s", why);
}

/* ------------------------------------------------------- stopping rule */

Test(search_rule, predicts_with_the_last_growth)
{
    /* no time left, or exactly none */
    cr_expect(!kd_search_next_fits(1000, 1000, 1, 1));
    cr_expect(!kd_search_next_fits(1000, 2000, 0, 0));
    /* after one iteration the growth is taken as 4 */
    cr_expect(kd_search_next_fits(1000, 100, 100, 0));  /* 100 + 400 <= 1000 */
    cr_expect(!kd_search_next_fits(1000, 300, 200, 0)); /* 300 + 800 > 1000 */
    /* the last step's growth: 10 -> 100 predicts 1000 next */
    cr_expect(kd_search_next_fits(2000, 1000, 100, 10));
    cr_expect(!kd_search_next_fits(1999, 1000, 100, 10));
    /* growth below 2 (a cheap step) counts as 2 */
    cr_expect(kd_search_next_fits(1000, 600, 200, 190));  /* 600 + 400 */
    cr_expect(!kd_search_next_fits(1000, 601, 200, 190)); /* 601 + 400 */
    /* iterations too quick to measure cost nothing */
    cr_expect(kd_search_next_fits(1000, 999, 0, 0));
}

/* ---------------------------------------------- a bot of known cost */

static uint64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* The depths the costly bot was asked, in order (the turn's "state": the
 * bot writes to it through the const pointer; the object is not const). */
typedef struct {
    unsigned calls;
    unsigned asked[64];
} bot_log;

/* Waits 2^(depth-1) ms (depth <= 12), notes the call and answers the
 * one-byte command `depth`. */
static kd_err costly_bot(const void *state, unsigned depth, uint64_t tiebreak, kd_buf *out)
{
    (void)tiebreak;
    bot_log *log = (bot_log *)(uintptr_t)state;
    cr_assert(depth >= 1 && depth <= 12, "depth %u asked", depth);
    cr_assert_lt(log->calls, 64u);
    log->asked[log->calls++] = depth;
    uint64_t until = now_us() + (1000u << (depth - 1));
    while (now_us() < until)
        ;
    uint8_t d = (uint8_t)depth;
    return kd_buf_append(out, &d, 1);
}

typedef struct {
    kd_episode_type type;
    kd_legal_moves legal; /* commands 1..12, notations "depth N" */
    bot_log log;
    kd_play_turn turn;
} costly;

static void costly_init(costly *c, unsigned bot_max_depth)
{
    c->type = kd_fourinarow_type; /* its names; the bot replaced */
    c->type.bot_command = costly_bot;
    c->type.bot_max_depth = bot_max_depth;
    kd_legal_moves_init(&c->legal);
    for (uint8_t d = 1; d <= 12; d++) {
        char notation[16];
        snprintf(notation, sizeof notation, "depth %u", d);
        cr_assert_eq(kd_legal_moves_push(&c->legal, &d, 1, notation), KD_OK);
    }
    memset(&c->log, 0, sizeof c->log);
    c->turn = (kd_play_turn){.type = &c->type, .seat = 0, .seat_name = "red", .state = &c->log, .legal = &c->legal};
}

/* One move of `spec` (opts' depth and think_ms for plain "search"): the depth
 * it played, which must be the last depth asked; c->log holds the calls,
 * *ms the time it took, *stats the player's stats. */
static unsigned costly_move(costly *c, const char *spec, unsigned depth, uint32_t think_ms, double *ms,
                            kd_player_stats *stats)
{
    kd_player_options po = {.seed = 5, .depth = depth, .think_ms = think_ms};
    kd_player *p;
    char why[200] = "";
    cr_assert_eq(kd_player_alloc(spec, &po, &p, why, sizeof why), KD_OK, "%s", why);
    memset(&c->log, 0, sizeof c->log);
    kd_legal_move m;
    uint64_t t0 = now_us();
    cr_assert_eq(kd_player_choose(p, &c->turn, NULL, &m, why, sizeof why), KD_OK, "%s", why);
    *ms = (double)(now_us() - t0) / 1000.0;
    *stats = kd_player_get_stats(p);
    kd_player_free(p);
    unsigned played = 0;
    cr_assert_eq(sscanf(m.notation, "depth %u", &played), 1, "notation '%s'", m.notation);
    cr_expect_eq(m.command_len, 1);
    cr_expect_eq(m.command[0], played);
    cr_assert_gt(c->log.calls, 0u);
    cr_expect_eq(played, c->log.asked[c->log.calls - 1], "%s: played depth %u, the last asked was %u", spec, played,
                 c->log.asked[c->log.calls - 1]);
    cr_expect(stats->depth_min == played && stats->depth_max == played, "stats %u..%u", stats->depth_min,
              stats->depth_max);
    return played;
}

/* A timed search asked depths 1, 2, ..., d in order, once each. */
static void expect_deepening(const costly *c, unsigned d)
{
    cr_expect_eq(c->log.calls, d, "%u calls for depth %u", c->log.calls, d);
    for (unsigned i = 0; i < c->log.calls; i++)
        cr_expect_eq(c->log.asked[i], i + 1, "call %u asked depth %u", i, c->log.asked[i]);
}

/* A 50 ms budget against costs 1, 2, 4, 8, 16, 32 ms: 1+2+4+8 = 15 ms spent
 * and 16 more predicted fit, then 31 spent and 32 predicted do not: depth 5.
 * Depth 6 can never start (31 ms spent at least, 32 predicted at least).
 * Stopping sooner is right only when the iterations ran slower than their
 * cost (a loaded machine): the time taken says so. */
static void expect_50ms_search(const costly *c, unsigned d, double ms)
{
    expect_deepening(c, d);
    double nominal = (double)((1u << d) - 1); /* ms of depths 1..d */
    cr_expect(d >= 1 && d <= 5, "depth %u in %.1f ms", d, ms);
    cr_expect(ms >= nominal, "%.1f ms for depths 1..%u", ms, d);
    cr_expect(d >= 4 || ms > nominal * 1.5 + 2.0, "stopped at depth %u after only %.1f ms", d, ms);
}

Test(search_budget, deepens_while_the_next_iteration_fits)
{
    costly c;
    costly_init(&c, 0);
    double ms;
    kd_player_stats st;
    unsigned d = costly_move(&c, "search:ms=50", 0, 0, &ms, &st);
    expect_50ms_search(&c, d, ms);
    cr_expect(st.think_ms_max + 1 >= (1u << d) - 1 && st.think_ms_max <= (uint32_t)ms + 1, "stats %u ms",
              st.think_ms_max);

    /* depth 1 always completes, even over the budget */
    d = costly_move(&c, "search:ms=1", 0, 0, &ms, &st);
    cr_expect_eq(d, 1);
    expect_deepening(&c, 1);
    /* the spec's cap, and the type's (budgets far beyond what the depths cost) */
    d = costly_move(&c, "search:ms=20000:depth=3", 0, 0, &ms, &st);
    cr_expect_eq(d, 3);
    expect_deepening(&c, 3);
    costly capped;
    costly_init(&capped, 2);
    d = costly_move(&capped, "search:ms=20000", 0, 0, &ms, &st);
    cr_expect_eq(d, 2);
    expect_deepening(&capped, 2);
    d = costly_move(&capped, "search:depth=9", 0, 0, &ms, &st); /* a fixed depth past it: the bot's deepest, once */
    cr_expect(d == 2 && capped.log.calls == 1, "depth %u, %u calls", d, capped.log.calls);
    kd_legal_moves_fini(&capped.legal);
    /* plain "search" takes the command's budget; a spec's own options replace it */
    d = costly_move(&c, "search", 0, 50, &ms, &st);
    expect_50ms_search(&c, d, ms);
    d = costly_move(&c, "search", 3, 20000, &ms, &st);
    cr_expect_eq(d, 3, "--think-ms 20000 --depth 3: depth %u", d);
    expect_deepening(&c, 3);
    d = costly_move(&c, "search:depth=2", 9, 20000, &ms, &st);
    cr_expect(d == 2 && c.log.calls == 1, "depth %u, %u calls", d, c.log.calls);
    kd_legal_moves_fini(&c.legal);
}

Test(search_budget, fixed_depth_asks_once)
{
    costly c;
    costly_init(&c, 0);
    double ms;
    kd_player_stats st;
    unsigned d = costly_move(&c, "search:depth=6", 0, 0, &ms, &st);
    cr_expect(d == 6 && c.log.calls == 1, "depth %u, %u calls", d, c.log.calls);
    cr_expect(ms >= 32.0, "%.1f ms", ms);
    d = costly_move(&c, "search", 0, 0, &ms, &st);
    cr_expect(d == KD_SEARCH_DEFAULT_DEPTH && c.log.calls == 1, "depth %u, %u calls", d, c.log.calls);
    kd_legal_moves_fini(&c.legal);
}

/* ------------------------------------------------------ the real bots */

Test(search_budget, real_bots_within_a_budget)
{
    kd_key k;
    cr_assert_eq(kd_key_test("budget", &k), KD_OK);
    kd_participants parts = {.count = 2};
    parts.keys[0] = parts.keys[1] = k.pub;
    kd_fiar_state fs;
    memset(&fs, 0, sizeof fs);
    cr_assert_eq(kd_fiar_state_init(&fs, &parts, NULL), KD_OK);
    kd_ttt_state ts;
    cr_assert_eq(kd_ttt_state_init(&ts, &parts, 0, NULL), KD_OK);
    const kd_episode_type *types[] = {&kd_fourinarow_type, &kd_tictactoe_type};
    const void *states[] = {&fs, &ts};
    for (size_t i = 0; i < 2; i++) {
        kd_legal_moves legal;
        kd_legal_moves_init(&legal);
        cr_assert_eq(types[i]->legal_moves(states[i], 0, &legal), KD_OK);
        kd_play_turn turn = {.type = types[i], .seat = 0, .seat_name = "first", .state = states[i], .legal = &legal};
        kd_player_options po = {.seed = 3};
        kd_player *p;
        char why[200] = "";
        cr_assert_eq(kd_player_alloc("search:ms=300", &po, &p, why, sizeof why), KD_OK, "%s", why);
        kd_legal_move m;
        uint64_t t0 = now_us();
        cr_assert_eq(kd_player_choose(p, &turn, NULL, &m, why, sizeof why), KD_OK, "%s", why);
        double ms = (double)(now_us() - t0) / 1000.0;
        int listed = 0;
        for (size_t j = 0; j < legal.count; j++)
            listed |= legal.moves[j].command_len == m.command_len &&
                      memcmp(legal.moves[j].command, m.command, m.command_len) == 0;
        cr_expect(listed, "%s: '%s' is not a legal move", types[i]->ops->type_name, m.notation);
        kd_player_stats st = kd_player_get_stats(p);
        cr_expect(st.depth_max >= 1 && st.depth_max <= types[i]->bot_max_depth, "%s: depth %u",
                  types[i]->ops->type_name, st.depth_max);
        cr_expect(ms < 1500.0, "%s: %.1f ms for a 300 ms budget", types[i]->ops->type_name, ms);
        fprintf(stderr, "%s: depth %u in %.1f ms (%s)\n", types[i]->ops->type_name, st.depth_max, ms, m.notation);
        kd_player_free(p);
        kd_legal_moves_fini(&legal);
    }
}
