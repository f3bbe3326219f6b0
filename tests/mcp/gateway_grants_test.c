/*
 * gateway_grants_test.c — the attacks of issue 24 on the gateway, each as
 * it was done, on a real engine with the gateway in process (gw_env.h):
 *
 *   B1  a session acts and sees only as the seats granted it: one with no
 *       grant reads public state only; one granted blue neither signs as
 *       red nor sees red's fleet;
 *   B2  the house's commitment is its own and its deadline has a floor: a
 *       caller's house_key is replaced, reveal_timeout 1 refused, and a raw
 *       creation naming the house without its consent refused by the rules;
 *   B3  the duties thread never reveals for a commitment it did not make
 *       (a bogus one, or one made for another store);
 *   B7  a flood of 1,100 episodes owing a reveal at once: every deadline
 *       met, found from the store alone (nothing publishes views here);
 *   5f  a command signed before the house's reveal landed is refused
 *       under the rule that refuses it now, not as a bad signature;
 *   41.10 a house game started with no participants seats the gateway's
 *       house; with no --house, a session granted one key is refused
 *       rather than seated as both the player and the house.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/netutil.h"
#include "engine/wire.h"
#include "episodes/secrets.h"
#include "gw_env.h"

/* Grants: 0 blue's key alone, 1 red's alone, 2 both; session 3 is public. */
static const char *const GRANTS[] = {"agent1", "agent2", "agent1,agent2"};
enum { BLUE = 0, RED = 1, BOTH = 2, PUBLIC = 3 };

static void setup(void) { gw_env_open(NULL, GRANTS, 3, "house"); }

TestSuite(gateway_grants, .init = setup, .fini = gw_env_close, .timeout = 240);

static void as(int session) { E.s = E.sessions[session]; }

/* The episode's view (new reference), read by the public session. */
static json_t *view_of(uint32_t id)
{
    kd_mcp_session *was = E.s;
    as(PUBLIC);
    char args[64];
    snprintf(args, sizeof args, "{\"episode_id\": %u}", id);
    json_t *r = gw_tool("kdapp_get_episode_state", args, 0);
    json_t *v = json_incref(gw_sc(r));
    json_decref(r);
    E.s = was;
    return v;
}

/* Waits (up to `ms`) until the episode's view has member `key` equal to the
 * integer `want` (or, with want < 0, until `key` is null); 1 when it did. */
static int wait_member(uint32_t id, const char *path1, const char *path2, json_int_t want, unsigned ms)
{
    uint64_t until = kd_now_ms() + ms;
    for (;;) {
        json_t *v = view_of(id);
        json_t *m = json_object_get(v, path1);
        if (path2)
            m = json_object_get(m, path2);
        int ok = want < 0 ? json_is_null(m) || !m : json_integer_value(m) == want;
        json_decref(v);
        if (ok)
            return 1;
        if (kd_now_ms() > until)
            return 0;
        usleep(20000);
    }
}

/* ------------------------------------------------------------------ B1 */

Test(gateway_grants, a_session_without_a_grant_reads_public_state_only)
{
    as(PUBLIC);
    json_t *r = gw_tool("kdapp_get_agent_pubkeys", "{}", 0);
    cr_expect_eq(json_array_size(json_object_get(gw_sc(r), "agents")), 0, "no key to sign with");
    cr_expect_str_eq(json_string_value(json_object_get(json_object_get(gw_sc(r), "house"), "name")), "house");
    cr_expect(strstr(gw_text_of(r), "granted no key"));
    json_decref(r);
    /* it consents for no key, so it names none (issue 39): a session granted
     * both creates the game, which the public session reads */
    GW_REFUSED("kdapp_start_episode", "{\"type\": \"tictactoe\", \"participants\": [\"agent1\", \"agent2\"]}",
               "this session does not act for its key");
    as(BOTH);
    uint32_t id = gw_start("{\"type\": \"tictactoe\", \"participants\": [\"agent1\", \"agent2\"]}");
    cr_assert(id);
    as(PUBLIC);
    char args[64];
    snprintf(args, sizeof args, "{\"episode_id\": %u}", id);
    json_decref(gw_tool("kdapp_get_strategy_context", args, 0));
    /* but it signs nothing: not as the seat to move, not as a named key */
    json_decref(gw_execute(id, "\"command\": {\"row\": 0, \"col\": 0}", 1));
    GW_REFUSED("kdapp_execute_command",
               (snprintf(args, sizeof args, "{\"episode_id\": %u, \"command\": {\"row\": 0, \"col\": 0}}", id), args),
               "holds no key of the seat to move", "granted no key");
    char with_signer[160];
    snprintf(with_signer, sizeof with_signer,
             "{\"episode_id\": %u, \"signer\": \"agent1\", \"command\": {\"row\": 0, \"col\": 0}}", id);
    GW_REFUSED("kdapp_execute_command", with_signer, "may not sign with that key");

    /* blue's session moves for X, and only for X */
    as(BLUE);
    r = gw_execute(id, "\"command\": {\"row\": 0, \"col\": 0}", 0);
    cr_expect(json_is_true(json_object_get(gw_sc(r), "legal")), "%s", gw_text_of(r));
    json_decref(r);
    snprintf(args, sizeof args, "{\"episode_id\": %u, \"command\": {\"row\": 1, \"col\": 1}}", id);
    GW_REFUSED("kdapp_execute_command", args, "holds no key of the seat to move, seat O", "agent1");
    snprintf(with_signer, sizeof with_signer,
             "{\"episode_id\": %u, \"signer\": \"agent2\", \"command\": {\"row\": 1, \"col\": 1}}", id);
    GW_REFUSED("kdapp_execute_command", with_signer, "may not sign with that key");
    r = gw_tool("kdapp_get_agent_pubkeys", "{}", 0);
    json_t *agents = json_object_get(gw_sc(r), "agents");
    cr_expect_eq(json_array_size(agents), 1);
    cr_expect_str_eq(json_string_value(json_object_get(json_array_get(agents, 0), "name")), "agent1");
    json_decref(r);
    /* red's session plays O */
    as(RED);
    r = gw_execute(id, "\"command\": {\"row\": 1, \"col\": 1}", 0);
    cr_expect(json_is_true(json_object_get(gw_sc(r), "legal")), "%s", gw_text_of(r));
    json_decref(r);
}

/* B1 as it was done: while blue is to move, a session asks for red's
 * fleet, then resigns as red (signer agent2). */
Test(gateway_grants, a_seat_is_seen_and_played_only_by_its_grant)
{
    as(BOTH);
    uint32_t id = gw_start("{\"type\": \"seabattle\", \"participants\": [\"agent1\", \"agent2\"]}");
    cr_assert(id);
    char args[160];
    as(BLUE);
    snprintf(args, sizeof args, "{\"episode_id\": %u, \"player\": \"red\"}", id);
    GW_REFUSED("kdapp_get_episode_state", args, "not granted the key of red");
    GW_REFUSED("kdapp_get_strategy_context", args, "not granted the key of red");
    snprintf(args, sizeof args, "{\"episode_id\": %u, \"signer\": \"agent2\", \"command\": {\"resign\": true}}", id);
    GW_REFUSED("kdapp_execute_command", args, "may not sign with that key");
    snprintf(args, sizeof args, "{\"episode_id\": %u, \"player\": \"blue\"}", id);
    json_t *r = gw_tool("kdapp_get_episode_state", args, 0);
    cr_expect(json_object_get(gw_sc(r), "own_secret"), "blue sees its own fleet");
    json_decref(r);
    as(PUBLIC);
    GW_REFUSED("kdapp_get_episode_state", args, "not granted the key of blue");
    /* blue shoots; red's answer comes from the duties thread (red's key is
     * granted to a session here), found in the store: nothing publishes */
    as(BLUE);
    r = gw_execute(id, "\"command\": {\"shot\": \"c5\"}", 0);
    cr_expect(json_is_true(json_object_get(gw_sc(r), "legal")), "%s", gw_text_of(r));
    json_decref(r);
    cr_expect(wait_member(id, "pending_shot", NULL, -1, 10000), "red's answer arrives by itself");
    json_t *v = view_of(id);
    cr_expect_str_eq(json_string_value(json_object_get(v, "shooter")), "red");
    json_decref(v);
    /* the stale view of red is still not blue's to see */
    snprintf(args, sizeof args, "{\"episode_id\": %u, \"player\": 1}", id);
    GW_REFUSED("kdapp_get_episode_state", args, "not granted the key of red");
}

/* ------------------------------------------------------------------ B2 */

Test(gateway_grants, the_house_makes_its_own_commitment_and_no_deadline_goes_under_the_floor)
{
    as(BLUE); /* agent1's grant consents as the player, the house as itself */
    static const char bogus_key[] = "02abababababababababababababababababababababababababababababababab";
    char args[512];
    snprintf(args, sizeof args,
             "{\"type\": \"roulette\", \"participants\": [\"agent1\", \"house\"], \"params\": {\"house_key\": "
             "\"%s\", \"reveal_timeout\": 1}}",
             bogus_key);
    GW_REFUSED("kdapp_start_episode", args, "reveal_timeout");
    snprintf(args, sizeof args,
             "{\"type\": \"roulette\", \"participants\": [\"agent1\", \"house\"], \"params\": {\"house_key\": "
             "\"%s\"}}",
             bogus_key);
    uint32_t id = gw_start(args);
    cr_assert(id, "the house takes the game on its own terms");
    json_t *v = view_of(id);
    const char *key = json_string_value(json_object_get(json_object_get(v, "house"), "key"));
    cr_assert(key, "the view shows the house's key");
    cr_expect_str_neq(key, bogus_key, "the caller's commitment was replaced by the house's own");
    json_decref(v);

    /* a raw creation naming the house, with a commitment the house never
     * made and no consent: the rules refuse it (no MCP needed to try) */
    kd_key house, player;
    gw_key("house", &house);
    gw_key("agent1", &player);
    kd_participants parts = {.count = 2};
    parts.keys[0] = player.pub;
    parts.keys[1] = house.pub;
    const kd_episode_type *t = kd_type_table_find(&E.types, "roulette");
    json_t *params =
        json_pack("{s:s, s:s, s:i}", "house_key", bogus_key, "house_binding",
                  "0000000000000000000000000000000000000000000000000000000000000000", "reveal_timeout", 600);
    kd_buf pbytes, payload;
    kd_buf_init(&pbytes);
    kd_buf_init(&payload);
    char why[256];
    cr_assert_eq(t->params_from_json(params, &pbytes, why, sizeof why), KD_OK, "%s", why);
    cr_assert_eq(kd_wire_new_episode(4242, "roulette", &parts, pbytes.data, pbytes.len, &payload), KD_OK);
    gw_apply(payload.data, payload.len, 0);
    kd_episode_snapshot snap;
    cr_expect_eq(kd_engine_episode_read(E.engine, 4242, &snap), KD_ERR_NOT_FOUND, "refused: no_consent");
    kd_buf_fini(&pbytes);
    kd_buf_fini(&payload);
    json_decref(params);
}

/* ------------------------------------------------------------------ B3 */

/* A dice episode with the house's consent (an insider signs it with the
 * house's key file) whose commitment the house's gateway did not make for
 * this store: it owes a reveal the gateway never pays. */
Test(gateway_grants, the_duties_thread_acts_only_on_its_own_commitments)
{
    static const char *const seats[] = {"agent1", "house"};
    uint8_t other_store[KD_STORE_ID_LEN];
    memset(other_store, 0x5a, sizeof other_store);
    /* 7001: made with the house's key for another store (copied here);
     * 7002: a commitment the house never made (another key's, the player's) */
    gw_create_raw(7001, "dice", seats, 2, 2, other_store, NULL, 1);
    json_t *params = json_object();
    kd_key player;
    char why[256] = "";
    gw_key("agent1", &player);
    uint8_t own[KD_STORE_ID_LEN];
    cr_assert_eq(kd_engine_store_id(E.engine, own), KD_OK);
    cr_assert_eq(kd_seat_commit(kd_type_table_find(&E.types, "dice"), &player, own, 7002, 1, params, why, sizeof why),
                 KD_OK, "%s", why);
    gw_create_raw(7002, "dice", seats, 2, 0, NULL, params, 1);
    for (uint32_t id = 7001; id <= 7002; id++)
        gw_command_raw(id, "dice", "agent1", 0,
                       json_pack("{s:s, s:s}", "roll", "1d6", "entropy",
                                 "1111111111111111111111111111111111111111111111111111111111111111"),
                       0);
    /* an honest episode beside them is paid at once: the thread is alive */
    as(BLUE);
    uint32_t honest = gw_start("{\"type\": \"dice\", \"participants\": [\"agent1\", \"house\"]}");
    json_decref(gw_execute(honest, "\"command\": {\"roll\": \"1d6\"}", 0));
    cr_expect(wait_member(honest, "rolls", NULL, 1, 10000), "the house reveals its own");
    usleep(600000); /* well past a look of the duties thread at every episode */
    for (uint32_t id = 7001; id <= 7002; id++) {
        json_t *v = view_of(id);
        cr_expect(json_object_get(json_object_get(v, "house"), "pending") &&
                      !json_is_null(json_object_get(json_object_get(v, "house"), "pending")),
                  "episode %u: the copied commitment is never revealed", id);
        cr_expect_eq(gw_int_at(v, "rolls"), 0);
        json_decref(v);
    }
}

/* ------------------------------------------------------------------ B7 */

#define FLOOD 1100

/* 1,100 dice episodes, each with a roll waiting for the house, then an
 * honest roll: the duties thread pays them all before any deadline (600
 * DAA score, a minute at 10 a second: the blocks here take their DAA score
 * from the clock). It never hears a view: it finds them in the store. */
Test(gateway_grants, a_flood_of_owed_reveals_meets_every_deadline, .timeout = 280)
{
    E.clock_daa = 1;
    static const char *const seats[] = {"agent3", "house"};
    uint64_t t0 = kd_now_ms();
    for (uint32_t id = 10000; id < 10000 + FLOOD; id++) {
        gw_create_raw(id, "dice", seats, 2, 2, NULL, NULL, 1);
        gw_command_raw(id, "dice", "agent3", 0,
                       json_pack("{s:s, s:s}", "roll", "2d6", "entropy",
                                 "2222222222222222222222222222222222222222222222222222222222222222"),
                       0);
    }
    cr_log_info("flood: %d episodes created and rolled in %llu ms", FLOOD, (unsigned long long)(kd_now_ms() - t0));
    as(BLUE);
    uint32_t honest = gw_start("{\"type\": \"dice\", \"participants\": [\"agent1\", \"house\"]}");
    json_decref(gw_execute(honest, "\"command\": {\"roll\": \"1d6\"}", 0));
    cr_expect(wait_member(honest, "rolls", NULL, 1, 60000), "the honest roll is revealed");
    /* every flooded roll was revealed, none past its deadline: each is
     * revealed (rolls 1) and none is claimable */
    size_t revealed = 0, late = 0;
    for (uint32_t id = 10000; id < 10000 + FLOOD; id++) {
        uint64_t until = kd_now_ms() + 60000;
        for (;;) {
            json_t *v = view_of(id);
            int rolls = (int)gw_int_at(v, "rolls");
            int claimed = json_is_true(json_object_get(json_object_get(v, "last_roll"), "claimed"));
            json_decref(v);
            if (rolls == 1) {
                revealed += !claimed;
                late += claimed;
                break;
            }
            cr_assert(kd_now_ms() < until, "episode %u: the house's reveal never came", id);
            usleep(20000);
        }
    }
    cr_expect_eq(revealed, FLOOD, "every owed reveal was paid");
    cr_expect_eq(late, 0);
    uint64_t daa_now = 1 + (kd_now_ms() - E.t0_ms) / 100;
    cr_log_info("flood: all %d reveals paid; %llu DAA score since the first roll (the deadline is 600)", FLOOD,
                (unsigned long long)(daa_now - (t0 - E.t0_ms) / 100));
    cr_expect(daa_now - (t0 - E.t0_ms) / 100 < 600, "paid before the first roll's deadline");
}

/* ------------------------------------------------------------------ 5f */

/* The player signs a claim while its roll waits; the house's reveal lands
 * first: the claim is refused as the rules refuse it now
 * (no_draw_pending), not as a single-use signature. */
Test(gateway_grants, a_command_overtaken_by_the_house_names_its_rule)
{
    as(BLUE);
    uint32_t id = gw_start("{\"type\": \"dice\", \"participants\": [\"agent1\", \"house\"]}");
    json_decref(gw_execute(id, "\"command\": {\"roll\": \"1d6\"}", 0));
    /* signed now, at move 1, while the roll waits */
    kd_key player;
    gw_key("agent1", &player);
    kd_buf cmd;
    kd_buf_init(&cmd);
    char why[256];
    json_t *claim = json_pack("{s:b}", "claim", 1);
    cr_assert_eq(kd_type_table_find(&E.types, "dice")->command_from_json(claim, 0, &cmd, why, sizeof why), KD_OK, "%s",
                 why);
    json_decref(claim);
    uint8_t digest[KD_HASH_LEN], sig[KD_SIG_COMPACT_LEN];
    kd_command_digest(id, 1, cmd.data, cmd.len, digest);
    cr_assert_eq(kd_key_sign(&player, digest, sig), KD_OK);
    kd_buf_fini(&cmd);
    cr_assert(wait_member(id, "rolls", NULL, 1, 10000), "the house reveals (move 2)");
    char pub[2 * KD_PUBKEY_LEN + 1], sighex[2 * KD_SIG_COMPACT_LEN + 1], args[512];
    kd_hex_encode(player.pub.bytes, KD_PUBKEY_LEN, pub);
    kd_hex_encode(sig, sizeof sig, sighex);
    snprintf(args, sizeof args,
             "{\"episode_id\": %u, \"command\": {\"claim\": true}, \"pubkey\": \"%s\", \"signature\": \"%s\"}", id, pub,
             sighex);
    json_t *r = gw_tool("kdapp_execute_command", args, 1);
    cr_expect_str_eq(json_string_value(json_object_get(gw_sc(r), "error_code")), "no_draw_pending", "%s",
                     gw_text_of(r));
    json_decref(r);
}

/* The gateway signs a roll while the house's reveal is on its way; the
 * reveal lands first, so the roll's signature is stale while the rules
 * would take it now: the gateway signs it again and the agent gets the
 * roll, not a refusal it did not cause. */
Test(gateway_grants, a_command_the_gateway_signed_is_signed_again_when_overtaken)
{
    static const char *const seats[] = {"agent1", "house"};
    uint8_t other_store[KD_STORE_ID_LEN];
    memset(other_store, 0x33, sizeof other_store); /* so the duties thread stays out of it */
    gw_create_raw(7100, "dice", seats, 2, 2, other_store, NULL, 1);
    as(BLUE);
    json_decref(gw_execute(7100, "\"command\": {\"roll\": \"1d6\"}", 0));
    /* the house's reveal, made from its secret, signed for move 1 */
    const kd_episode_type *t = kd_type_table_find(&E.types, "dice");
    kd_key house;
    gw_key("house", &house);
    kd_episode_snapshot snap;
    cr_assert_eq(kd_engine_episode_read(E.engine, 7100, &snap), KD_OK);
    uint8_t seed[KD_SECRET_SEED_LEN];
    cr_assert_eq(kd_seat_seed(t, &house, other_store, 7100, 1, snap.state, seed), KD_OK);
    kd_buf reveal;
    kd_buf_init(&reveal);
    cr_assert_eq(t->secret_duty(snap.state, 1, seed, &reveal), KD_OK);
    cr_assert_eq(kd_wire_signed_command(7100, reveal.data, reveal.len, &house, snap.undo_depth, &E.inject), KD_OK);
    kd_buf_fini(&reveal);
    kd_episode_snapshot_fini(&snap);
    json_t *r = gw_execute(7100, "\"signer\": \"agent1\", \"command\": {\"roll\": \"1d8\"}", 0);
    json_t *v = json_object_get(gw_sc(r), "view");
    cr_expect(json_is_true(json_object_get(gw_sc(r), "legal")), "%s", gw_text_of(r));
    cr_expect_eq(gw_int_at(v, "rolls"), 1, "the first roll was revealed first");
    cr_expect_str_eq(json_string_value(json_object_get(json_object_get(v, "pending_roll"), "roll")), "1d8");
    json_decref(r);
}

/* ------------------------------------------------------------------ 41.10 */

Test(gateway_grants, a_house_game_by_default_seats_the_gateways_house)
{
    as(BLUE);
    uint32_t id = gw_start("{\"type\": \"dice\"}");
    cr_assert(id);
    json_t *v = view_of(id);
    kd_key house, blue;
    gw_key("house", &house);
    gw_key("agent1", &blue);
    char hex[2 * KD_PUBKEY_LEN + 1];
    kd_hex_encode(house.pub.bytes, KD_PUBKEY_LEN, hex);
    json_t *parts = json_object_get(v, "participants");
    cr_assert(json_is_array(parts), "the view lists its participants");
    cr_expect_str_eq(json_string_value(json_array_get(parts, 1)), hex, "the house seat is the gateway's house");
    kd_hex_encode(blue.pub.bytes, KD_PUBKEY_LEN, hex);
    cr_expect_str_eq(json_string_value(json_array_get(parts, 0)), hex, "the player is the session's key");
    json_decref(v);
}

/* A gateway with no --house: one grant, then the public session. */
static const char *const ONE_GRANT[] = {"agent1"};
static void setup_no_house(void) { gw_env_open(NULL, ONE_GRANT, 1, NULL); }
TestSuite(gateway_no_house, .init = setup_no_house, .fini = gw_env_close, .timeout = 60);

Test(gateway_no_house, one_key_is_never_both_the_player_and_the_house)
{
    E.s = E.sessions[0];
    GW_REFUSED("kdapp_start_episode", "{\"type\": \"dice\"}", "both the player and the house", "--house NAME",
               "kdapp keygen NAME");
    GW_REFUSED("kdapp_start_episode", "{\"type\": \"roulette\"}", "both the player and the house");
}

/* Issue 39 on a board game: a session granted blue alone names red's key
 * (agent2, outside its grant) in tic-tac-toe. The gateway cannot sign red's
 * consent, so it refuses, naming the seat and the two ways on: leave the
 * seat open, or have that key consent (a session granted both starts it).
 * A session with no grant names no key at all. */
Test(gateway_grants, a_board_game_naming_a_key_outside_the_grant_is_refused)
{
    static const char start[] = "{\"type\": \"tictactoe\", \"participants\": [\"agent1\", \"agent2\"]}";
    as(BLUE);
    GW_REFUSED("kdapp_start_episode", start, "seat O must consent", "(participant 1: no key is seated",
               "no key is seated without its own", "leave the seat open", "\"open\" in participants",
               "obtain that key's consent");
    as(PUBLIC);
    GW_REFUSED("kdapp_start_episode", start, "seat X must consent");
    as(BOTH);
    cr_expect_neq(gw_start(start), 0u, "both keys granted: both consent");
}
