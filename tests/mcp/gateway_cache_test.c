/*
 * gateway_cache_test.c — the read tools' answers kept by log position
 * (mcp/gateway/gateway_cache.c), on a real engine with the gateway in
 * process (gw_env.h): a second reader of one position gets the very bytes
 * the first one got, built once; a new block is never answered from an
 * older position; and an answer that shows a seat's secret is never given
 * to a session of another grant, nor one without "player" made from a
 * secret. The same answers under many threads while blocks land are
 * tests/threads' (th_gateway_views, in the ThreadSanitizer pass too).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_env.h"

/* Grants: 0 blue's key alone, 1 red's alone, 2 both; session 3 is public. */
static const char *const GRANTS[] = {"agent1", "agent2", "agent1,agent2"};
enum { BLUE = 0, RED = 1, BOTH = 2, PUBLIC = 3 };

static void setup(void) { gw_env_open(NULL, GRANTS, 3, NULL); }

TestSuite(gateway_cache, .init = setup, .fini = gw_env_close, .timeout = 120);

static void as(int session) { E.s = E.sessions[session]; }

static kd_gateway_cache_stats stats(void)
{
    kd_gateway_cache_stats s;
    kd_gateway_cache_stats_get(E.gw, &s);
    return s;
}

/* The reply's text of tools/call `name` with `args` on E.s (malloc'ed). */
static char *reply_of(const char *name, const char *args)
{
    char req[512], *reply = NULL;
    snprintf(req, sizeof req,
             "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"%s\",\"arguments\":%s}}",
             name, args);
    cr_assert_eq(kd_mcp_session_handle(E.s, req, strlen(req), &reply), KD_OK);
    cr_assert(reply);
    return reply;
}

Test(gateway_cache, a_position_is_answered_once_and_a_new_block_anew)
{
    as(BOTH);
    uint32_t id = gw_start("{\"type\": \"tictactoe\", \"participants\": [\"agent1\", \"agent2\"]}");
    cr_assert(id);
    char args[64];
    snprintf(args, sizeof args, "{\"episode_id\": %u}", id);
    kd_gateway_cache_stats s0 = stats();
    char *first = reply_of("kdapp_get_strategy_context", args);
    kd_gateway_cache_stats s1 = stats();
    cr_expect_eq(s1.misses, s0.misses + 1, "the first reader builds the answer");
    as(PUBLIC); /* another session, another grant: no "player", the same answer */
    char *second = reply_of("kdapp_get_strategy_context", args);
    kd_gateway_cache_stats s2 = stats();
    cr_expect_eq(s2.hits, s1.hits + 1, "the second reader of the position gets it as it is");
    cr_expect_str_eq(second, first);
    cr_expect_gt(s2.answers, 0);
    cr_expect_gt(s2.bytes, strlen(first) / 2);
    json_t *before = json_loads(first, 0, NULL);
    json_t *board0 = json_object_get(json_object_get(json_object_get(before, "result"), "structuredContent"), "board");
    cr_assert(board0, "%s", first);
    cr_expect_eq(json_integer_value(json_array_get(json_array_get(board0, 0), 0)), 0);

    /* a move lands: the next reader gets the new position, never the kept one */
    as(BOTH);
    json_decref(gw_execute(id, "\"command\": {\"row\": 0, \"col\": 0}", 0));
    as(PUBLIC);
    char *third = reply_of("kdapp_get_strategy_context", args);
    kd_gateway_cache_stats s3 = stats();
    cr_expect_gt(s3.misses, s2.misses, "a new position is built anew");
    json_t *after = json_loads(third, 0, NULL);
    json_t *board1 = json_object_get(json_object_get(json_object_get(after, "result"), "structuredContent"), "board");
    cr_expect_eq(json_integer_value(json_array_get(json_array_get(board1, 0), 0)), 1, "X is on the board: %s", third);

    /* the state tool names its position: the new one */
    json_t *v0 = gw_tool("kdapp_get_episode_state", args, 0);
    json_t *v1 = gw_tool("kdapp_get_episode_state", args, 0);
    cr_expect(json_equal(v0, v1));
    cr_expect_eq(gw_int_at(gw_sc(v1), "move_count"), 1);
    json_decref(v0);
    json_decref(v1);
    json_decref(before);
    json_decref(after);
    free(first);
    free(second);
    free(third);
}

Test(gateway_cache, a_seat_secret_is_never_answered_to_another_grant)
{
    as(BOTH);
    uint32_t id = gw_start("{\"type\": \"seabattle\", \"participants\": [\"agent1\", \"agent2\"]}");
    cr_assert(id);
    char args[128], plain[64];
    snprintf(args, sizeof args, "{\"episode_id\": %u, \"player\": \"blue\"}", id);
    snprintf(plain, sizeof plain, "{\"episode_id\": %u}", id);

    /* blue asks first, with its secret, then without */
    as(BLUE);
    json_t *mine = gw_tool("kdapp_get_episode_state", args, 0);
    json_t *fleet = json_object_get(gw_sc(mine), "own_secret");
    cr_assert(fleet, "blue sees its own fleet");
    json_t *pub = gw_tool("kdapp_get_episode_state", plain, 0);
    cr_expect_null(json_object_get(gw_sc(pub), "own_secret"), "without \"player\" no secret");
    json_decref(pub);

    /* the same question from the others, at the same position */
    for (int who = RED; who <= PUBLIC; who++) {
        if (who == BOTH)
            continue;
        as(who);
        GW_REFUSED("kdapp_get_episode_state", args, "not granted the key of blue");
        GW_REFUSED("kdapp_get_strategy_context", args, "not granted the key of blue");
        json_t *p = gw_tool("kdapp_get_episode_state", plain, 0);
        cr_expect_null(json_object_get(gw_sc(p), "own_secret"));
        json_decref(p);
    }
    /* a grant that holds blue's key sees blue's fleet, built for it */
    as(BOTH);
    kd_gateway_cache_stats s0 = stats();
    json_t *both = gw_tool("kdapp_get_episode_state", args, 0);
    cr_expect_eq(stats().misses, s0.misses + 1, "another grant's answer is its own");
    cr_expect(json_equal(json_object_get(gw_sc(both), "own_secret"), fleet));
    json_decref(both);
    /* and blue again: its own answer, kept */
    as(BLUE);
    s0 = stats();
    json_t *again = gw_tool("kdapp_get_episode_state", args, 0);
    cr_expect_eq(stats().hits, s0.hits + 1);
    cr_expect(json_equal(again, mine));
    json_decref(again);
    json_decref(mine);
}

Test(gateway_cache, an_unknown_episode_is_answered_as_before)
{
    as(PUBLIC);
    GW_REFUSED("kdapp_get_strategy_context", "{\"episode_id\": 4000000000}", "does not exist");
    GW_REFUSED("kdapp_get_strategy_context", "{\"episode_id\": 4000000000}", "does not exist");
    GW_REFUSED("kdapp_legal_moves", "{\"episode_id\": 4000000000}", "does not exist");
    GW_REFUSED("kdapp_get_episode_state", "{\"episode_id\": 4000000000, \"player\": 0}", "does not exist");
}
