/*
 * gateway_holdem_test.c — hold'em through the gateway on a real engine
 * (gw_env.h): two sessions, each granted one seat, play a hand while the
 * duties thread shuffles, locks and opens cards for both seats, each
 * step with its proof. Each session sees its own hole cards (own_secret) and is
 * refused the other seat's; the public session sees neither; a session
 * signs only its own seat's bets.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "engine/netutil.h"
#include "gw_env.h"

/* Grants: 0 seat 0's key alone, 1 seat 1's alone, 2 both (the creation:
 * each seat's binding is set by its key's holder); session 3 is public. */
static const char *const GRANTS[] = {"agent1", "agent2", "agent1,agent2"};
enum { SEAT0 = 0, SEAT1 = 1, BOTH = 2, PUBLIC = 3 };

static void setup(void) { gw_env_open(NULL, GRANTS, 3, NULL); }

TestSuite(gateway_holdem, .init = setup, .fini = gw_env_close, .timeout = 240);

static void as(int session) { E.s = E.sessions[session]; }

/* The view (new reference) as `session` sees it, for `player` (NULL: none). */
static json_t *view_as(int session, uint32_t id, const char *player)
{
    kd_mcp_session *was = E.s;
    as(session);
    char args[96];
    if (player)
        snprintf(args, sizeof args, "{\"episode_id\": %u, \"player\": \"%s\"}", id, player);
    else
        snprintf(args, sizeof args, "{\"episode_id\": %u}", id);
    json_t *r = gw_tool("kdapp_get_episode_state", args, 0);
    json_t *v = json_incref(gw_sc(r));
    json_decref(r);
    E.s = was;
    return v;
}

/* Waits (up to 20 s) until the public view's `key` is the string `want`
 * (`want` NULL: until it is an integer equal to `n`); 1 when it did. */
static int wait_for(uint32_t id, const char *key, const char *want, json_int_t n)
{
    uint64_t until = kd_now_ms() + 20000;
    for (;;) {
        json_t *v = view_as(PUBLIC, id, NULL), *m = json_object_get(v, key);
        int ok = want ? json_is_string(m) && strcmp(json_string_value(m), want) == 0 : json_integer_value(m) == n;
        json_decref(v);
        if (ok)
            return 1;
        if (kd_now_ms() > until)
            return 0;
        usleep(20000);
    }
}

static void bet(int session, uint32_t id, const char *command)
{
    as(session);
    char rest[96];
    snprintf(rest, sizeof rest, "\"command\": %s", command);
    json_t *r = gw_execute(id, rest, 0);
    cr_expect(json_is_true(json_object_get(gw_sc(r), "legal")), "%s: %s", command, gw_text_of(r));
    json_decref(r);
}

Test(gateway_holdem, two_sessions_play_a_hand_each_seeing_only_its_own_cards)
{
    as(BOTH);
    uint32_t id = gw_start("{\"type\": \"holdem\", \"participants\": [\"agent1\", \"agent2\"], \"params\": "
                           "{\"timeout\": 600}}");
    cr_assert(id);
    cr_assert(wait_for(id, "to_act", "seat0", 0), "the duties thread shuffles, locks and deals both hole cards");
    json_t *mine = view_as(SEAT0, id, "seat0"), *theirs = view_as(SEAT1, id, "seat1"), *pub = view_as(PUBLIC, id, 0);
    json_t *h0 = json_object_get(json_object_get(mine, "own_secret"), "hole"),
           *h1 = json_object_get(json_object_get(theirs, "own_secret"), "hole");
    cr_assert_eq(json_array_size(h0), 2, "seat 0 sees two hole cards");
    cr_assert_eq(json_array_size(h1), 2, "seat 1 sees two hole cards");
    for (size_t i = 0; i < 2; i++)
        for (size_t j = 0; j < 2; j++)
            cr_expect_str_neq(json_string_value(json_array_get(h0, i)), json_string_value(json_array_get(h1, j)));
    cr_expect(!json_object_get(pub, "own_secret"), "the public sees no hole card");
    cr_expect(json_is_null(json_object_get(pub, "shown")));
    char *text = json_dumps(pub, 0);
    char quoted[8];
    snprintf(quoted, sizeof quoted, "\"%s\"", json_string_value(json_array_get(h0, 0)));
    cr_expect(!strstr(text, quoted), "the public view names no hole card");
    free(text);
    json_decref(mine);
    json_decref(theirs);
    json_decref(pub);
    /* one seat's session is refused the other's cards, and its bets */
    char args[128];
    as(SEAT0);
    snprintf(args, sizeof args, "{\"episode_id\": %u, \"player\": \"seat1\"}", id);
    GW_REFUSED("kdapp_get_episode_state", args, "not granted the key of seat1");
    GW_REFUSED("kdapp_get_strategy_context", args, "not granted the key of seat1");
    as(PUBLIC);
    snprintf(args, sizeof args, "{\"episode_id\": %u, \"player\": \"seat0\"}", id);
    GW_REFUSED("kdapp_get_episode_state", args, "not granted the key of seat0");
    as(SEAT1);
    snprintf(args, sizeof args, "{\"episode_id\": %u, \"signer\": \"agent1\", \"command\": {\"fold\": true}}", id);
    GW_REFUSED("kdapp_execute_command", args, "may not sign with that key");
    /* the hand: seat 0 calls, seat 1 checks; the flop comes by both seats' keys */
    bet(SEAT0, id, "{\"call\": true}");
    bet(SEAT1, id, "{\"check\": true}");
    cr_assert(wait_for(id, "to_act", "seat1", 0), "the flop is dealt; the big blind acts first");
    json_t *v = view_as(PUBLIC, id, NULL);
    cr_expect_eq(json_array_size(json_object_get(v, "board")), 3);
    json_decref(v);
    json_t *best = view_as(SEAT1, id, "seat1");
    cr_expect(json_is_string(json_object_get(json_object_get(best, "own_secret"), "best")),
              "seat 1's best hand with the flop");
    json_decref(best);
    bet(SEAT1, id, "{\"raise\": 20}");
    bet(SEAT0, id, "{\"fold\": true}");
    /* the fold settles the hand at once, publishing nothing; hand 2 */
    cr_assert(wait_for(id, "hand", NULL, 2), "the hand is settled");
    v = view_as(PUBLIC, id, NULL);
    cr_expect_str_eq(json_string_value(json_object_get(v, "last_result")), "fold");
    cr_expect_eq(json_integer_value(json_array_get(json_object_get(v, "last_won"), 1)), 10);
    cr_expect(!json_object_get(v, "cheaters"));
    cr_expect(json_is_null(json_object_get(json_object_get(v, "last_hand"), "shown")), "a fold shows no hand");
    json_decref(v);
}
