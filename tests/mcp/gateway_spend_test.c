/*
 * gateway_spend_test.c — who asks, said with every payload the gateway
 * submits (gateway.h kd_gateway_spend; issue 37 "Who pays"), on a real
 * engine with the gateway in process (gw_env.h):
 *
 *   - a session without a grant names no key and no grant, so a chain that
 *     costs coins pays nothing for it; a granted session names its grant
 *     and exactly its keys; a duty names its own key and the house (or the
 *     grant holding the key);
 *   - a duty is paid once while its first copy may still be carried: on a
 *     chain that holds it (a Kaspa node's mempool before a block takes
 *     it), a block that names its episode again (here a command the rules
 *     refuse) does not make the duties thread send it again;
 *   - a chain's refusal to pay (KD_ERR_DENIED) is an error result with the
 *     chain's sentence and the payload, never a silent payment; without a
 *     chain that takes client-paid transactions, kdapp_submit_transaction
 *     is not offered.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "engine/netutil.h"
#include "engine/wire.h"
#include "gw_env.h"
#include "kdapp.pb-c.h"

static const char *const GRANTS[] = {"agent1", "agent1,agent2"};
enum { ONE = 0, BOTH = 1, PUBLIC = 2 };

static void setup(void) { gw_env_open(NULL, GRANTS, 2, "house"); }

TestSuite(gateway_spend, .init = setup, .fini = gw_env_close, .timeout = 120);

static void as(int session) { E.s = E.sessions[session]; }

static void expect_key(const kd_gateway_spend *s, size_t i, const char *name)
{
    kd_key k;
    gw_key(name, &k);
    cr_assert_lt(i, s->n_keys);
    cr_expect_eq(memcmp(s->keys[i].bytes, k.pub.bytes, KD_PUBKEY_LEN), 0, "key %zu is %s's", i, name);
}

Test(gateway_spend, a_session_without_a_grant_names_no_key_and_no_grant)
{
    as(PUBLIC); /* it consents for no key, so it opens a table of open seats */
    gw_start("{\"type\": \"tictactoe\", \"participants\": [\"open\", \"open\"]}");
    kd_gateway_spend s;
    cr_assert_eq(gw_last_spend(0, &s), 1);
    cr_expect_eq(s.kind, KD_GATEWAY_SPEND_SESSION);
    cr_expect_str_eq(s.grant, "");
    cr_expect_eq(s.n_keys, 0, "the session has no key");
}

Test(gateway_spend, a_granted_session_names_its_grant_and_exactly_its_keys)
{
    as(ONE);
    gw_start("{\"type\": \"tictactoe\", \"participants\": [\"agent1\", \"open\"]}");
    kd_gateway_spend s;
    gw_last_spend(0, &s);
    cr_expect_eq(s.kind, KD_GATEWAY_SPEND_SESSION);
    cr_expect_str_eq(s.grant, "agent1");
    cr_expect_eq(s.n_keys, 1, "the grant's one key");
    expect_key(&s, 0, "agent1");
    as(BOTH);
    uint32_t id = gw_start("{\"type\": \"tictactoe\", \"participants\": [\"agent1\", \"agent2\"]}");
    json_decref(gw_execute(id, "\"command\": {\"row\": 0, \"col\": 0}", 0));
    cr_assert_eq(gw_last_spend(0, &s), 3);
    cr_expect_str_eq(s.grant, "agent1,agent2");
    cr_expect_eq(s.n_keys, 2);
    expect_key(&s, 0, "agent1");
    expect_key(&s, 1, "agent2");
}

Test(gateway_spend, the_house_pays_its_own_duty_under_its_own_name)
{
    as(ONE);
    uint32_t id = gw_start("{\"type\": \"dice\", \"participants\": [\"agent1\", \"house\"]}");
    json_decref(gw_execute(id, "\"command\": {\"roll\": \"2d6\"}", 0));
    kd_gateway_spend s;
    uint64_t until = kd_now_ms() + 20000;
    while (gw_last_spend(1, &s) == 0 && kd_now_ms() < until)
        usleep(10000);
    cr_assert_eq(s.kind, KD_GATEWAY_SPEND_DUTY, "the duties thread revealed");
    cr_expect_str_eq(s.grant, "house:house");
    cr_expect_eq(s.n_keys, 1);
    expect_key(&s, 0, "house");
}

/* Waits until the chain holds `n` duties of episode `id`. */
static void wait_held(uint32_t id, size_t n)
{
    uint64_t until = kd_now_ms() + 20000;
    while (gw_held(id) < n && kd_now_ms() < until)
        usleep(5000);
    cr_assert_geq(gw_held(id), n, "the duty of episode %u was sent", id);
}

/* The attack: a house's reveal submitted and not yet in a block (a Kaspa
 * node holds it in its mempool); meanwhile a reorg elsewhere makes the
 * duties thread look at every watched episode again. Before the fix it
 * took the reveal's episode for one that moved on (the state a duty was
 * made from was never noted) and paid the same reveal again: a second
 * transaction the rules refuse once the first applies. */
Test(gateway_spend, a_duty_waiting_for_its_block_is_not_paid_again)
{
    static const char *const seats[] = {"agent1", "house"};
    const char *entropy = "3333333333333333333333333333333333333333333333333333333333333333";
    E.hold_duties = 1;
    gw_create_raw(100, "dice", seats, 2, 2, NULL, NULL, 1);
    gw_command_raw(100, "dice", "agent1", 0, json_pack("{s:s, s:s}", "roll", "2d6", "entropy", entropy), 0);
    wait_held(100, 1);
    gw_create_raw(300, "dice", seats, 2, 2, NULL, NULL, 1); /* a block that does not touch episode 100, */
    gw_revert_last();                                       /* reverted */
    /* a later episode's reveal: once it is sent, the duties thread has
     * looked at episode 100 again (the log in order, episodes by id) */
    gw_create_raw(200, "dice", seats, 2, 2, NULL, NULL, 1);
    gw_command_raw(200, "dice", "agent1", 0, json_pack("{s:s, s:s}", "roll", "2d6", "entropy", entropy), 0);
    wait_held(200, 1);
    cr_expect_eq(gw_held(100), 1, "the reveal of episode 100 was paid %zu times", gw_held(100));
}

/* The refusal of a chain that costs coins: an error result with the
 * chain's words and the payload, never an episode. */
Test(gateway_spend, a_refused_payment_is_an_error_with_the_reason_and_the_payload)
{
    E.refuse_unpaid = 1;
    as(PUBLIC);
    json_t *r = gw_tool("kdapp_start_episode", "{\"type\": \"tictactoe\", \"participants\": [\"open\", \"open\"]}", 1);
    cr_expect(strstr(gw_text_of(r), "the episode was not created: no wallet pays for a session without a grant"), "%s",
              gw_text_of(r));
    cr_expect_null(strstr(gw_text_of(r), "kdapp_submit_transaction"), "this chain takes no client transactions");
    json_t *sc = gw_sc(r);
    cr_expect_str_eq(json_string_value(json_object_get(sc, "error_code")), "denied");
    const char *hex = json_string_value(json_object_get(sc, "payload_hex"));
    cr_assert(hex && strlen(hex) % 2 == 0);
    uint8_t bytes[1024];
    size_t n = strlen(hex) / 2;
    cr_assert(n <= sizeof bytes && kd_hex_decode(hex, bytes, n) == 0);
    Kdapp__EpisodeMessage *em = kdapp__episode_message__unpack(NULL, n, bytes);
    cr_assert(em, "payload_hex is an EpisodeMessage");
    cr_expect_eq(em->body_case, KDAPP__EPISODE_MESSAGE__BODY_NEW_EPISODE);
    kdapp__episode_message__free_unpacked(em, NULL);
    json_decref(r);
    /* a command: the same */
    as(ONE);
    uint32_t id = gw_start("{\"type\": \"tictactoe\", \"participants\": [\"test:a\", \"test:b\"]}");
    as(PUBLIC);
    char args[160];
    snprintf(args, sizeof args, "{\"episode_id\": %u, \"signer\": \"test:a\", \"command\": {\"row\": 1, \"col\": 1}}",
             id);
    r = gw_tool("kdapp_execute_command", args, 1);
    cr_expect(strstr(gw_text_of(r), "the command was not submitted: no wallet pays"), "%s", gw_text_of(r));
    cr_expect(json_string_value(json_object_get(gw_sc(r), "payload_hex")));
    json_decref(r);
    /* the episode is unchanged: nothing was paid, nothing applied */
    snprintf(args, sizeof args, "{\"episode_id\": %u}", id);
    r = gw_tool("kdapp_get_episode_state", args, 0);
    cr_expect_eq(json_integer_value(json_object_get(gw_sc(r), "move_count")), 0);
    json_decref(r);
}

Test(gateway_spend, no_client_transactions_without_a_chain_that_takes_them)
{
    json_t *r = gw_request("tools/list", json_object(), 0), *tools = json_object_get(r, "tools"), *t;
    size_t i;
    cr_assert_gt(json_array_size(tools), 0);
    json_array_foreach(tools, i, t)
    {
        cr_expect_str_neq(json_string_value(json_object_get(t, "name")), "kdapp_submit_transaction");
    }
    json_decref(r);
}
