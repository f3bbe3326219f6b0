/*
 * gateway_tables_test.c — open tables through the gateway (issue 39,
 * mcp/gateway/gateway_tables.c) on a real engine (gw_env.h): a session
 * granted agent1 alone opens a table leaving a seat open; every session
 * lists it (kdapp_list_tables, kdapp://tables); a session granted agent2
 * alone joins it with its own commitment, made by its gateway, and the
 * game starts. Hold'em then plays on by the duties thread answering each
 * joined seat's steps. A join needs a key of the session's grant; only the
 * creator cancels, before anyone joined.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "engine/netutil.h"
#include "gw_env.h"

static const char *const GRANTS[] = {"agent1", "agent2", "agent1,agent2"};
enum { A = 0, B = 1, PUBLIC = 3 };

static void setup(void) { gw_env_open(NULL, GRANTS, 3, NULL); }

TestSuite(gateway_tables, .init = setup, .fini = gw_env_close, .timeout = 240);

static void as(int session) { E.s = E.sessions[session]; }

/* Opens a table of `type` with agent1 in seat 0 and seat 1 open; its id. */
static uint32_t open_table(const char *type)
{
    as(A);
    char args[160];
    snprintf(args, sizeof args, "{\"type\": \"%s\", \"participants\": [\"agent1\", \"open\"]}", type);
    json_t *r = gw_tool("kdapp_start_episode", args, 0);
    json_t *sc = gw_sc(r), *table = json_object_get(sc, "table");
    cr_assert(json_is_object(table), "a table, not an episode: %s", gw_text_of(r));
    uint32_t id = (uint32_t)json_integer_value(json_object_get(sc, "episode_id"));
    json_t *seats = json_object_get(table, "seats");
    cr_expect(json_is_false(json_object_get(json_array_get(seats, 0), "open")));
    cr_expect(json_is_true(json_object_get(json_array_get(seats, 1), "open")));
    json_decref(r);
    return id;
}

/* How many tables `session` sees waiting, and whether `id` is one. */
static size_t listed(int session, uint32_t id, int *has)
{
    as(session);
    json_t *r = gw_tool("kdapp_list_tables", "{}", 0);
    json_t *arr = json_object_get(gw_sc(r), "tables");
    *has = 0;
    for (size_t i = 0; i < json_array_size(arr); i++)
        *has |= json_integer_value(json_object_get(json_array_get(arr, i), "episode_id")) == id;
    size_t n = json_array_size(arr);
    json_decref(r);
    /* the resource says the same */
    json_t *p = json_pack("{s:s}", "uri", "kdapp://tables");
    json_t *rr = gw_request("resources/read", p, 0);
    const char *text = json_string_value(json_object_get(json_array_get(json_object_get(rr, "contents"), 0), "text"));
    cr_assert(text, "kdapp://tables reads");
    json_t *doc = json_loads(text, 0, NULL);
    cr_expect_eq(json_array_size(json_object_get(doc, "tables")), n, "kdapp://tables lists what the tool does");
    json_decref(doc);
    json_decref(rr);
    return n;
}

static json_t *join(int session, uint32_t id, int want_error)
{
    as(session);
    char args[64];
    snprintf(args, sizeof args, "{\"episode_id\": %u}", id);
    return gw_tool("kdapp_join_episode", args, want_error);
}

/* The public view's `key` (new reference), or NULL when not an episode. */
static json_t *member(uint32_t id, const char *key)
{
    as(PUBLIC);
    char args[64];
    snprintf(args, sizeof args, "{\"episode_id\": %u}", id);
    json_t *r = gw_request(
        "tools/call",
        json_pack("{s:s, s:o}", "name", "kdapp_get_episode_state", "arguments", json_loads(args, 0, NULL)), 0);
    json_t *v = json_incref(json_object_get(gw_sc(r), key));
    json_decref(r);
    return v;
}

Test(gateway_tables, a_stranger_lists_and_joins_and_the_game_starts)
{
    uint32_t id = open_table("tictactoe");
    int has;
    cr_expect_eq(listed(PUBLIC, id, &has), 1);
    cr_expect(has, "the public sees the table");
    GW_REFUSED("kdapp_join_episode", "{\"episode_id\": 1}", "no table");
    char args[96];
    snprintf(args, sizeof args, "{\"episode_id\": %u}", id);
    as(PUBLIC);
    GW_REFUSED("kdapp_join_episode", args, "holds no key");
    as(B);
    GW_REFUSED("kdapp_cancel_table", args, "only its creator");
    snprintf(args, sizeof args, "{\"episode_id\": %u, \"signer\": \"agent1\"}", id);
    GW_REFUSED("kdapp_join_episode", args, "may not sign with that key");
    json_t *r = join(B, id, 0);
    cr_expect(json_is_true(json_object_get(gw_sc(r), "started")), "%s", gw_text_of(r));
    json_decref(r);
    cr_expect_eq(listed(PUBLIC, id, &has), 0, "a started table is no longer waiting");
    json_t *parts = member(id, "participants");
    cr_assert_eq(json_array_size(parts), 2, "the episode exists with two seats");
    json_decref(parts);
    as(B);
    r = gw_execute(id, "\"command\": {\"row\": 0, \"col\": 0}", 1);
    cr_expect(!json_is_true(json_object_get(gw_sc(r), "legal")), "agent2 is O, X moves first");
    json_decref(r);
    as(A);
    r = gw_execute(id, "\"command\": {\"row\": 0, \"col\": 0}", 0);
    cr_expect(json_is_true(json_object_get(gw_sc(r), "legal")), "%s", gw_text_of(r));
    json_decref(r);
    r = join(B, id, 1);
    json_decref(r);
}

Test(gateway_tables, the_creator_cancels_before_anyone_joins)
{
    uint32_t id = open_table("tictactoe");
    char args[64];
    snprintf(args, sizeof args, "{\"episode_id\": %u}", id);
    as(A);
    json_t *r = gw_tool("kdapp_cancel_table", args, 0);
    cr_expect(json_is_true(json_object_get(gw_sc(r), "applied")), "%s", gw_text_of(r));
    json_decref(r);
    int has;
    cr_expect_eq(listed(PUBLIC, id, &has), 0, "a cancelled table is not listed");
    as(B);
    GW_REFUSED("kdapp_join_episode", args, "cancelled");
}

/* Waits (up to 60 s) until the public view's `key` is the string `want`. */
static int wait_for(uint32_t id, const char *key, const char *want)
{
    uint64_t until = kd_now_ms() + 60000;
    for (;;) {
        json_t *v = member(id, key);
        int ok = json_is_string(v) && strcmp(json_string_value(v), want) == 0;
        json_decref(v);
        if (ok)
            return 1;
        if (kd_now_ms() > until)
            return 0;
        usleep(20000);
    }
}

Test(gateway_tables, holdem_between_two_sessions_each_answering_its_own_seat)
{
    uint32_t id = open_table("holdem");
    json_t *r = join(B, id, 0);
    cr_assert(json_is_true(json_object_get(gw_sc(r), "started")), "%s", gw_text_of(r));
    json_decref(r);
    cr_assert(wait_for(id, "to_act", "seat0"),
              "the duties thread shuffles, locks and deals for both seats: the joined one with its own binding");
    as(B);
    char args[80];
    snprintf(args, sizeof args, "{\"episode_id\": %u, \"player\": \"seat1\"}", id);
    r = gw_tool("kdapp_get_episode_state", args, 0);
    cr_expect_eq(json_array_size(json_object_get(json_object_get(gw_sc(r), "own_secret"), "hole")), 2,
                 "the joiner sees its two hole cards");
    json_decref(r);
    as(A);
    r = gw_execute(id, "\"command\": {\"fold\": true}", 0);
    cr_expect(json_is_true(json_object_get(gw_sc(r), "legal")), "%s", gw_text_of(r));
    json_decref(r);
}

Test(gateway_tables, sea_battle_with_a_joined_seat_starts)
{
    uint32_t id = open_table("seabattle");
    json_t *r = join(B, id, 0);
    cr_expect(json_is_true(json_object_get(gw_sc(r), "started")), "%s", gw_text_of(r));
    json_decref(r);
    json_t *parts = member(id, "participants");
    cr_expect_eq(json_array_size(parts), 2, "the game exists with both seats");
    json_decref(parts);
}

/* kdapp_list_tables {episode_id}: the table's status and deadline. */
static json_t *one_listed(uint32_t id)
{
    as(PUBLIC);
    char args[64];
    snprintf(args, sizeof args, "{\"episode_id\": %u}", id);
    json_t *r = gw_tool("kdapp_list_tables", args, 0);
    json_t *t = json_incref(json_array_get(json_object_get(gw_sc(r), "tables"), 0));
    cr_assert(json_is_object(t), "table %u is listed by its id: %s", id, gw_text_of(r));
    json_decref(r);
    return t;
}

static const char *status_of(json_t *t) { return json_string_value(json_object_get(t, "status")); }

Test(gateway_tables, join_timeout_sets_the_deadline_and_bad_values_are_refused)
{
    as(A);
    char max[32];
    snprintf(max, sizeof max, "%u", KD_TABLE_TIMEOUT_MAX);
    GW_REFUSED("kdapp_start_episode",
               "{\"type\": \"tictactoe\", \"participants\": [\"agent1\", \"open\"], \"join_timeout\": 8640001}",
               "join_timeout", max);
    GW_REFUSED("kdapp_start_episode",
               "{\"type\": \"tictactoe\", \"participants\": [\"agent1\", \"open\"], \"join_timeout\": 0}",
               "join_timeout");
    GW_REFUSED("kdapp_start_episode",
               "{\"type\": \"tictactoe\", \"participants\": [\"agent1\", \"open\"], \"join_timeout\": \"9\"}",
               "join_timeout");
    GW_REFUSED("kdapp_start_episode",
               "{\"type\": \"tictactoe\", \"participants\": [\"agent1\", \"agent2\"], "
               "\"join_timeout\": 5}",
               "join_timeout is for a table", "open");
    json_t *r = gw_tool("kdapp_start_episode",
                        "{\"type\": \"tictactoe\", \"participants\": [\"agent1\", \"open\"], \"join_timeout\": 7}", 0);
    json_t *table = json_object_get(gw_sc(r), "table");
    uint32_t id = (uint32_t)json_integer_value(json_object_get(gw_sc(r), "episode_id"));
    cr_expect_eq(json_integer_value(json_object_get(table, "deadline_daa")) -
                     json_integer_value(json_object_get(table, "creation_daa")),
                 7, "the deadline is join_timeout after the creation: %s", gw_text_of(r));
    json_decref(r);
    json_t *t = one_listed(id);
    cr_expect_str_eq(status_of(t), "open");
    cr_expect_eq(json_integer_value(json_object_get(t, "deadline_daa")) -
                     json_integer_value(json_object_get(t, "creation_daa")),
                 7, "kdapp_list_tables says the same deadline");
    json_decref(t);
    /* the schema's limit is the engine's */
    r = gw_request("tools/list", json_object(), 0);
    json_int_t most = 0;
    for (size_t i = 0; i < json_array_size(json_object_get(r, "tools")); i++) {
        json_t *tool = json_array_get(json_object_get(r, "tools"), i);
        json_t *props = json_object_get(json_object_get(tool, "inputSchema"), "properties");
        if (strcmp(json_string_value(json_object_get(tool, "name")), "kdapp_start_episode") == 0)
            most = json_integer_value(json_object_get(json_object_get(props, "join_timeout"), "maximum"));
    }
    cr_expect_eq(most, KD_TABLE_TIMEOUT_MAX, "the input schema names the engine's limit");
    json_decref(r);
}

Test(gateway_tables, a_table_past_its_deadline_is_closed_and_takes_no_join)
{
    as(A);
    json_t *r = gw_tool("kdapp_start_episode",
                        "{\"type\": \"tictactoe\", \"participants\": [\"agent1\", \"open\"], \"join_timeout\": 1}", 0);
    uint32_t id = (uint32_t)json_integer_value(json_object_get(gw_sc(r), "episode_id"));
    json_decref(r);
    int has;
    listed(PUBLIC, id, &has);
    cr_expect(has, "waiting until the chain reaches its deadline");
    /* a block (another table of A's): the tip reaches the deadline */
    as(A);
    json_decref(
        gw_tool("kdapp_start_episode", "{\"type\": \"tictactoe\", \"participants\": [\"agent1\", \"open\"]}", 0));
    listed(PUBLIC, id, &has);
    cr_expect(!has, "a table past its deadline is not listed");
    json_t *t = one_listed(id);
    cr_expect_str_eq(status_of(t), "closed");
    json_decref(t);
    char args[64];
    snprintf(args, sizeof args, "{\"episode_id\": %u}", id);
    as(B);
    GW_REFUSED("kdapp_join_episode", args, "closed", "deadline passed");
}

Test(gateway_tables, one_table_by_id_says_its_status)
{
    uint32_t id = open_table("tictactoe");
    json_t *t = one_listed(id);
    cr_expect_str_eq(status_of(t), "open");
    json_decref(t);
    json_decref(join(B, id, 0));
    t = one_listed(id);
    cr_expect_str_eq(status_of(t), "started");
    json_decref(t);
    uint32_t other = open_table("tictactoe");
    char args[64];
    snprintf(args, sizeof args, "{\"episode_id\": %u}", other);
    as(A);
    json_decref(gw_tool("kdapp_cancel_table", args, 0));
    t = one_listed(other);
    cr_expect_str_eq(status_of(t), "cancelled");
    json_decref(t);
    as(PUBLIC);
    GW_REFUSED("kdapp_list_tables", "{\"episode_id\": 1}", "no table 1");
}
