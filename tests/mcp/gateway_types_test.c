/*
 * gateway_types_test.c — the gateway serves every type of the table it is
 * given: tic-tac-toe (built in, the default type) and "pile", a type that
 * exists only in this test (pile_type.h), with its own seats (A, B, C: two
 * or three), params, command JSON, rule codes and renderings. One MCP
 * session talks to an in-process gateway on a real engine; the chain is this
 * file's submit, which applies each payload in a block of its own at once
 * (the gateway finds the outcome in the engine's log: nothing publishes).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/crypto.h"
#include "engine/wire.h"
#include "episodes/episode_type.h"
#include "mcp/gateway/gateway.h"
#include "episodes/seabattle/seabattle.h"
#include "episodes/secrets.h"
#include "gw_env.h"
#include "pile_type.h"

/* One session granted every agent key, as the gateway used to act for
 * every key it held; the grants themselves are gateway_grants_test's. */
static void setup(void)
{
    static const char *const grants[] = {"agent1,agent2,agent3"};
    gw_env_open(&pile_type, grants, 1, NULL);
}

TestSuite(gateway_types, .init = setup, .fini = gw_env_close, .timeout = 60);

#define request gw_request
#define tool gw_tool
#define text_of gw_text_of
#define sc gw_sc
#define REFUSED GW_REFUSED
#define int_at gw_int_at
#define start gw_start
#define execute gw_execute
#define legal_moves gw_legal_moves

/* ------------------------------------------------------------- tests */

Test(gateway_types, kdapp_types_describes_every_type)
{
    json_t *r = request("resources/read", json_pack("{s:s}", "uri", "kdapp://types"), 0);
    json_t *doc = json_loads(
        json_string_value(json_object_get(json_array_get(json_object_get(r, "contents"), 0), "text")), 0, NULL);
    cr_assert(doc);
    json_t *types = json_object_get(doc, "types");
    /* the built-in types, then the test's own */
    cr_assert_eq(json_array_size(types), kd_builtin_type_count + 1);
    cr_expect_str_eq(json_string_value(json_object_get(doc, "default")),
                     json_string_value(json_object_get(json_array_get(types, 0), "name")), "the first is the default");
    json_t *pile = json_array_get(types, kd_builtin_type_count);
    cr_expect_str_eq(json_string_value(json_object_get(pile, "name")), "pile");
    cr_expect_str_eq(json_string_value(json_object_get(pile, "title")), "Pile");
    json_t *seats = json_object_get(pile, "seats");
    cr_expect_eq(int_at(seats, "min"), 2);
    cr_expect_eq(int_at(seats, "max"), 3);
    cr_expect_str_eq(json_string_value(json_array_get(json_object_get(seats, "names"), 2)), "C");
    json_t *ps = json_object_get(pile, "params_schema"), *cs = json_object_get(pile, "command_schema");
    cr_expect(json_is_object(ps) && json_object_get(json_object_get(ps, "properties"), "max_take"),
              "params_schema is parsed JSON");
    cr_expect(json_is_object(cs) && json_object_get(json_object_get(cs, "properties"), "take"),
              "command_schema is parsed JSON");
    json_t *codes = json_object_get(pile, "rule_codes");
    cr_expect_eq(json_array_size(codes), 3);
    cr_expect_str_eq(json_string_value(json_object_get(json_array_get(codes, 2), "code")), "too_many");
    cr_expect(strlen(json_string_value(json_object_get(json_array_get(codes, 2), "meaning"))) > 0);
    json_decref(doc);
    json_decref(r);

    /* the resource is listed, and the start tool's schema names the types */
    r = request("resources/list", json_object(), 0);
    int listed = 0;
    size_t i;
    json_t *res;
    json_array_foreach(json_object_get(r, "resources"), i, res) listed +=
        strcmp(json_string_value(json_object_get(res, "uri")), "kdapp://types") == 0;
    cr_expect_eq(listed, 1, "kdapp://types is listed once");
    json_decref(r);
    r = request("tools/list", json_object(), 0);
    json_t *t;
    json_array_foreach(json_object_get(r, "tools"), i, t)
    {
        if (strcmp(json_string_value(json_object_get(t, "name")), "kdapp_start_episode") != 0)
            continue;
        json_t *type = json_object_get(json_object_get(json_object_get(t, "inputSchema"), "properties"), "type");
        json_t *names = json_object_get(type, "enum");
        cr_expect_eq(json_array_size(names), kd_builtin_type_count + 1);
        cr_expect_str_eq(json_string_value(json_array_get(names, kd_builtin_type_count)), "pile");
        cr_expect(
            strstr(json_string_value(json_object_get(type, "description")), "pile: Pile, 2 to 3 seats (A, B, C)."),
            "%s", json_string_value(json_object_get(type, "description")));
        cr_expect(strstr(json_string_value(json_object_get(t, "description")), "Pile"));
        listed++;
    }
    cr_expect_eq(listed, 2, "kdapp_start_episode is listed");
    json_decref(r);
}

Test(gateway_types, a_three_seat_game_of_a_test_type)
{
    uint32_t id = start("{\"type\": \"pile\", \"params\": {\"pile\": 5, \"max_take\": 2}, "
                        "\"participants\": [\"agent1\", \"agent2\", \"test:carol\"]}");
    cr_assert(id);
    json_t *lm = legal_moves(id);
    cr_expect_str_eq(json_string_value(json_object_get(lm, "type")), "pile");
    cr_expect_str_eq(json_string_value(json_object_get(lm, "phase")), "in_progress");
    cr_expect_str_eq(json_string_value(json_object_get(json_object_get(lm, "to_move"), "name")), "A");
    cr_expect(json_is_null(json_object_get(lm, "winner")));
    cr_expect(!json_object_get(lm, "current"), "no member the type's view does not have");
    json_t *moves = json_object_get(lm, "moves");
    cr_assert_eq(json_array_size(moves), 2);
    json_t *m1 = json_array_get(moves, 1);
    cr_expect_eq(int_at(json_object_get(m1, "command"), "take"), 2);
    cr_expect_eq(int_at(m1, "take"), 2, "the command's members beside it");
    cr_expect_str_eq(json_string_value(json_object_get(m1, "notation")), "take 2");
    json_decref(lm);

    /* A (agent1, the seat to move) takes 2 */
    json_t *r = execute(id, "\"command\": {\"take\": 2}", 0);
    json_t *view = json_object_get(sc(r), "view");
    cr_expect(json_is_true(json_object_get(sc(r), "legal")));
    cr_expect_eq(int_at(view, "pile"), 3);
    cr_expect_eq(int_at(view, "to_move"), 1);
    json_t *before = json_deep_copy(view);
    json_object_del(before, "digest"); /* the digest after its log entry (the same after a refusal) */
    json_decref(r);

    /* B takes 3: refused by the type's rule, view unchanged, B's legal moves */
    r = execute(id, "\"command\": {\"take\": 3}", 1);
    json_t *out = sc(r);
    cr_expect(json_is_false(json_object_get(out, "legal")));
    /* the type's code; "rule" while the engine stores only its generic code */
    const char *code = json_string_value(json_object_get(out, "error_code"));
    cr_expect(code && (strcmp(code, "too_many") == 0 || strcmp(code, "rule") == 0), "error_code %s", code);
    cr_expect(strstr(json_string_value(json_object_get(out, "error")), "take 3: 1 to 2 may be taken"), "%s",
              json_string_value(json_object_get(out, "error")));
    cr_expect_eq(json_array_size(json_object_get(out, "legal_moves")), 2);
    json_t *after = json_deep_copy(json_object_get(out, "view"));
    json_object_del(after, "digest");
    cr_expect(json_equal(after, before), "the view is unchanged");
    json_decref(after);
    cr_expect(strstr(text_of(r), "legal moves for B: take 1 take 2"), "%s", text_of(r));
    json_decref(before);
    json_decref(r);

    /* B takes 1 (agent2); C's key is not in the key directory: name it */
    json_decref(execute(id, "\"command\": {\"take\": 1}", 0));
    REFUSED("kdapp_execute_command", "{\"episode_id\": 0, \"command\": {}}", "episode_id");
    char args[128];
    snprintf(args, sizeof args, "{\"episode_id\": %u, \"command\": {\"take\": 1}}", id);
    REFUSED("kdapp_execute_command", args, "no key", "seat C");
    json_decref(execute(id, "\"command\": {\"take\": 1}, \"signer\": \"test:carol\"", 0));
    /* A takes the last stone and wins */
    r = execute(id, "\"command\": {\"take\": 1}", 0);
    view = json_object_get(sc(r), "view");
    cr_expect_str_eq(json_string_value(json_object_get(view, "phase")), "won");
    cr_expect_eq(int_at(view, "winner"), 0);
    json_decref(r);
    lm = legal_moves(id);
    cr_expect_str_eq(json_string_value(json_object_get(json_object_get(lm, "winner"), "name")), "A");
    cr_expect(json_is_null(json_object_get(lm, "to_move")));
    cr_expect_eq(json_array_size(json_object_get(lm, "moves")), 0);
    json_decref(lm);
    /* no seat is to move: the first seat the gateway holds a key of signs, and the rules answer */
    r = execute(id, "\"command\": {\"take\": 1}", 1);
    cr_expect(strstr(json_string_value(json_object_get(sc(r), "error")), "took the last stone"));
    json_decref(r);

    /* the strategy context, the prompt by seat name and index, the listing */
    snprintf(args, sizeof args, "{\"episode_id\": %u}", id);
    r = tool("kdapp_get_strategy_context", args, 0);
    cr_expect_eq(int_at(sc(r), "pile"), 0);
    json_decref(r);
    char idtext[16];
    snprintf(idtext, sizeof idtext, "%u", id);
    json_t *p1 = request(
        "prompts/get",
        json_pack("{s:s, s:{s:s, s:s}}", "name", "kdapp_turn", "arguments", "episode_id", idtext, "player", "C"), 0);
    json_t *p2 = request(
        "prompts/get",
        json_pack("{s:s, s:{s:s, s:s}}", "name", "kdapp_turn", "arguments", "episode_id", idtext, "player", "2"), 0);
    cr_expect(json_equal(json_object_get(p1, "messages"), json_object_get(p2, "messages")));
    const char *ptext = json_string_value(
        json_object_get(json_object_get(json_array_get(json_object_get(p1, "messages"), 0), "content"), "text"));
    cr_expect(strstr(ptext, "you are seat C"), "%s", ptext);
    cr_expect(strstr(json_string_value(json_object_get(p1, "description")), "(Pile)"));
    json_decref(p1);
    json_decref(p2);
    json_t *e = request(
        "prompts/get",
        json_pack("{s:s, s:{s:s, s:s}}", "name", "kdapp_turn", "arguments", "episode_id", idtext, "player", "D"), 1);
    cr_expect(strstr(json_string_value(json_object_get(e, "message")), "A, B, C"), "%s",
              json_string_value(json_object_get(e, "message")));
    json_decref(e);
    r = tool("kdapp_list_episodes", "{}", 0);
    json_t *ep = json_array_get(json_object_get(sc(r), "episodes"), 0);
    cr_expect_str_eq(json_string_value(json_object_get(ep, "type")), "pile");
    cr_expect_str_eq(json_string_value(json_object_get(ep, "phase")), "won");
    cr_expect(json_is_integer(json_object_get(ep, "move_count")), "the move counter, for every type");
    cr_expect(!json_object_get(ep, "cap"), "no member the type's view does not have");
    json_decref(r);
}

Test(gateway_types, start_arguments_are_checked_against_the_type)
{
    /* the shorthand: a top-level argument is a member of params */
    uint32_t id = start("{\"type\": \"pile\", \"pile\": 7}");
    char args[64];
    snprintf(args, sizeof args, "{\"episode_id\": %u}", id);
    json_t *r = tool("kdapp_get_episode_state", args, 0);
    cr_expect_eq(int_at(sc(r), "pile"), 7);
    cr_expect_eq(int_at(sc(r), "max_take"), 3);
    cr_expect_eq(json_array_size(json_object_get(sc(r), "participants")), 2, "agent1 and agent2 by default");
    json_decref(r);

    REFUSED("kdapp_start_episode", "{\"type\": \"pile\", \"participants\": [\"agent1\"]}", "pile (Pile) takes",
            "2 to 3 seats (A, B, C)", "got 1 participant");
    REFUSED("kdapp_start_episode",
            "{\"type\": \"pile\", \"participants\": [\"agent1\", \"agent2\", \"test:c\", \"test:d\"]}",
            "got 4 participants");
    REFUSED("kdapp_start_episode", "{\"participants\": [\"agent1\", \"agent2\", \"test:c\"]}", "2 seats", "got 3");
    REFUSED("kdapp_start_episode", "{\"type\": \"pile\", \"params\": {\"pile\": 0}}", "params of pile/pile", "minimum");
    REFUSED("kdapp_start_episode", "{\"type\": \"pile\", \"heap\": 3}", "params of pile", "heap");
    REFUSED("kdapp_start_episode", "{\"type\": \"pile\", \"params\": {\"pile\": 3}, \"pile\": 4}", "given twice");
    REFUSED("kdapp_start_episode", "{\"type\": \"go\"}", "type");
    REFUSED("kdapp_start_episode", "{\"params\": [1]}", "params");
}

Test(gateway_types, commands_are_checked_against_the_type)
{
    uint32_t id = start("{\"type\": \"pile\"}");
    char args[160];
    snprintf(args, sizeof args, "{\"episode_id\": %u, \"command\": {\"take\": \"two\"}}", id);
    REFUSED("kdapp_execute_command", args, "command/take: expected integer", "kdapp://types");
    snprintf(args, sizeof args, "{\"episode_id\": %u, \"command\": {\"takes\": 1}}", id);
    REFUSED("kdapp_execute_command", args, "command", "take");
    snprintf(args, sizeof args, "{\"episode_id\": %u, \"command\": {\"row\": 0, \"col\": 0}}", id);
    REFUSED("kdapp_execute_command", args, "command", "take");
    /* the default type's commands go to its own checks */
    uint32_t t = start("{\"cap\": 4}");
    snprintf(args, sizeof args, "{\"episode_id\": %u, \"command\": {\"take\": 1}}", t);
    REFUSED("kdapp_execute_command", args, "command", "row");
    json_t *lm = legal_moves(t);
    json_t *first = json_object_get(json_array_get(json_object_get(lm, "moves"), 0), "command");
    char *cmd = json_dumps(first, JSON_COMPACT);
    snprintf(args, sizeof args, "\"command\": %s", cmd);
    json_t *r = execute(t, args, 0);
    cr_expect(json_is_true(json_object_get(sc(r), "legal")), "a listed command is played as it is");
    json_decref(r);
    free(cmd);
    json_decref(lm);
}

/* The fleet rows of key file `name`'s seat `seat` in episode `id`, as the
 * seat's holder derives them (kd_seat_seed from the binding in the state,
 * for this store; sea battle's placement). */
static void fleet_rows(const char *name, uint32_t id, int seat, char rows[10][11])
{
    kd_key key;
    char why[256];
    cr_assert_eq(kd_key_load(E.keys, name, &key, why, sizeof why), KD_OK, "%s", why);
    uint8_t seed[KD_SECRET_SEED_LEN], fleet[100], store[KD_STORE_ID_LEN];
    kd_episode_snapshot snap;
    cr_assert_eq(kd_engine_episode_read(E.engine, id, &snap), KD_OK);
    cr_assert_eq(kd_engine_store_id(E.engine, store), KD_OK);
    cr_assert_eq(kd_seat_seed(&kd_seabattle_type, &key, store, id, seat, snap.state, seed), KD_OK,
                 "the gateway committed for this store with its key");
    kd_episode_snapshot_fini(&snap);
    kd_sb_fleet_from_seed(seed, fleet);
    for (int r = 0; r < 10; r++) {
        for (int c = 0; c < 10; c++)
            rows[r][c] = fleet[r * 10 + c] ? (char)('0' + fleet[r * 10 + c]) : '.';
        rows[r][10] = '\0';
    }
}

/* Whether the text of `r` holds a row of `rows` that shows a ship, other
 * than a row `own` (may be NULL) shows the same. */
static int shows_fleet(json_t *r, char rows[10][11], char own[10][11])
{
    char *text = json_dumps(r, JSON_COMPACT);
    int found = 0;
    for (int i = 0; i < 10 && text; i++) {
        int mine = 0;
        for (int j = 0; own && j < 10; j++)
            mine |= strcmp(rows[i], own[j]) == 0;
        found |= strpbrk(rows[i], "12345") && !mine && strstr(text, rows[i]);
    }
    free(text);
    return found;
}

Test(gateway_types, a_seat_sees_its_own_secret_and_never_the_others)
{
    /* the gateway holds both keys: it commits both roots at the start */
    uint32_t id = start("{\"type\": \"seabattle\", \"participants\": [\"agent1\", \"agent2\"]}");
    cr_assert(id);
    char blue[10][11], red[10][11];
    fleet_rows("agent1", id, 0, blue);
    fleet_rows("agent2", id, 1, red);
    json_decref(execute(id, "\"command\": {\"shot\": \"c5\"}", 0));
    char args[128];
    static const char *const tools[] = {"kdapp_get_episode_state", "kdapp_get_strategy_context"};
    for (int t = 0; t < 2; t++) {
        /* no player: nothing secret at all */
        snprintf(args, sizeof args, "{\"episode_id\": %u}", id);
        json_t *r = tool(tools[t], args, 0);
        cr_expect(!json_object_get(sc(r), "own_secret"), "%s", tools[t]);
        cr_expect(!shows_fleet(r, blue, NULL) && !shows_fleet(r, red, NULL), "%s shows no fleet", tools[t]);
        json_decref(r);
        /* each seat sees its own fleet, never the other's */
        for (int seat = 0; seat < 2; seat++) {
            snprintf(args, sizeof args, "{\"episode_id\": %u, \"player\": \"%s\"}", id, seat ? "red" : "blue");
            r = tool(tools[t], args, 0);
            json_t *own = json_object_get(sc(r), "own_secret");
            cr_assert(own, "%s: own_secret for %s", tools[t], args);
            cr_expect_str_eq(json_string_value(json_object_get(own, "seat")), seat ? "red" : "blue");
            json_t *fleet = json_object_get(own, "fleet");
            for (int row = 0; row < 10; row++)
                cr_expect_str_eq(json_string_value(json_array_get(fleet, (size_t)row)), (seat ? red : blue)[row]);
            cr_expect(!shows_fleet(r, seat ? blue : red, seat ? red : blue), "%s for %s shows no other fleet", tools[t],
                      args);
            json_decref(r);
        }
        snprintf(args, sizeof args, "{\"episode_id\": %u, \"player\": 1}", id);
        json_decref(tool(tools[t], args, 0));
        snprintf(args, sizeof args, "{\"episode_id\": %u, \"player\": \"green\"}", id);
        REFUSED(tools[t], args, "\"player\" must name a seat", "blue", "red");
    }
    /* a seat whose key is elsewhere is never named without its own consent (issue 39: its commitment would be
     * one it never made); it sits down at an open seat instead */
    kd_key other;
    cr_assert_eq(kd_key_test("elsewhere", &other), KD_OK);
    char pub[2 * KD_PUBKEY_LEN + 1], start_args[512];
    kd_hex_encode(other.pub.bytes, KD_PUBKEY_LEN, pub);
    snprintf(start_args, sizeof start_args,
             "{\"type\": \"seabattle\", \"participants\": [\"agent1\", \"%s\"], \"params\": {\"red_root\": "
             "\"%064d\", \"red_binding\": \"%064d\"}}",
             pub, 0, 0);
    REFUSED("kdapp_start_episode", start_args, "seat red must consent", "does not act for its key");
    /* a type without secrets says so */
    uint32_t id3 = start("{\"type\": \"tictactoe\", \"participants\": [\"agent1\", \"agent2\"]}");
    snprintf(args, sizeof args, "{\"episode_id\": %u, \"player\": 0}", id3);
    REFUSED("kdapp_get_episode_state", args, "no secret a seat could see");
}

/* Entropy for agents: the dice command schema has "entropy"; a roll that
 * leaves it out gets 32 fresh CSPRNG bytes from the gateway (the pending
 * draw shows the SHA-256 of the roll's bytes, its draw's input: the same
 * roll differs by its entropy alone), different each time; one that gives
 * it keeps it (the digest of the roll with that entropy). The
 * house's commitment is one made for another store, so this gateway never
 * reveals it and the pending draw stays to be looked at. */
static uint32_t unrevealed_dice(uint32_t id)
{
    static const char *const seats[] = {"agent1", "agent2"};
    uint8_t other_store[KD_STORE_ID_LEN];
    memset(other_store, 0x77, sizeof other_store);
    gw_create_raw(id, "dice", seats, 2, 2, other_store, NULL, 1);
    return id;
}

Test(gateway_types, the_gateway_fills_a_missing_entropy)
{
    char seen[2][65] = {"", ""};
    for (int i = 0; i < 2; i++) {
        uint32_t id = unrevealed_dice(900 + (uint32_t)i);
        json_t *r = execute(id, "\"command\": {\"roll\": \"2d6+1\"}", 0);
        cr_assert(json_is_true(json_object_get(sc(r), "legal")), "%s", text_of(r));
        json_t *view = json_object_get(sc(r), "view");
        cr_expect_str_eq(json_string_value(json_object_get(json_object_get(view, "pending_roll"), "roll")), "2d6+1");
        json_t *pending = json_object_get(json_object_get(view, "house"), "pending");
        const char *ent = json_string_value(json_object_get(pending, "ask_sha256"));
        cr_assert(ent && strlen(ent) == 64, "the pending draw shows the SHA-256 of the roll's bytes");
        cr_expect(strspn(ent, "0") < 64, "not zeros");
        snprintf(seen[i], sizeof seen[i], "%s", ent);
        json_decref(r);
    }
    cr_expect_str_neq(seen[0], seen[1], "fresh bytes for each command");

    uint32_t id = unrevealed_dice(902);
    json_t *r = execute(id,
                        "\"command\": {\"roll\": \"d20\", \"entropy\": "
                        "\"abababababababababababababababababababababababababababababababab\"}",
                        0);
    json_t *pending = json_object_get(json_object_get(json_object_get(sc(r), "view"), "house"), "pending");
    json_t *given = json_pack("{s:s, s:s}", "roll", "d20", "entropy",
                              "abababababababababababababababababababababababababababababababab");
    const kd_episode_type *dice = kd_type_table_find(&E.types, "dice");
    kd_buf bytes;
    kd_buf_init(&bytes);
    char why[256], want[65];
    uint8_t digest[32];
    cr_assert_eq(dice->command_from_json(given, KD_SEAT_NONE, &bytes, why, sizeof why), KD_OK, "%s", why);
    kd_sha256(bytes.data, bytes.len, digest);
    kd_hex_encode(digest, sizeof digest, want);
    cr_expect_str_eq(json_string_value(json_object_get(pending, "ask_sha256")), want, "a given entropy is kept");
    kd_buf_fini(&bytes);
    json_decref(given);
    json_decref(r);
    /* the rule codes of the house reach the agent: the player's second roll
     * while one waits (the seat to move is now the house: name the signer) */
    r = execute(id, "\"signer\": \"agent1\", \"command\": {\"roll\": \"d20\"}", 1);
    cr_expect_str_eq(json_string_value(json_object_get(sc(r), "error_code")), "draw_pending", "%s", text_of(r));
    json_decref(r);
}
