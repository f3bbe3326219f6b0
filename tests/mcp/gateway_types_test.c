/*
 * gateway_types_test.c — the gateway serves every type of the table it is
 * given: tic-tac-toe (built in, the default type) and "pile", a type that
 * exists only in this test (pile_type.h), with its own seats (A, B, C: two
 * or three), params, command JSON, rule codes and renderings. One MCP
 * session talks to an in-process gateway on a real engine; the chain is this
 * file's submit, which applies each payload in a block of its own at once
 * (the gateway finds the outcome in the engine's log: nothing publishes).
 */
#define _XOPEN_SOURCE 700 /* nftw */
#include <criterion/criterion.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/crypto.h"
#include "engine/wire.h"
#include "episodes/episode_type.h"
#include "mcp/gateway/gateway.h"
#include "episodes/dice.h"
#include "episodes/seabattle.h"
#include "episodes/secrets.h"
#include "handlers/handler.h"
#include "handlers/publisher.h"
#include "pile_type.h"

typedef struct {
    kd_type_table types;
    kd_registry reg;
    kd_engine *engine;
    kd_mcp_server *srv;
    kd_gateway *gw;
    kd_mcp_session *s;
    char dir[512], keys[512];
    int next_id;
    uint64_t blocks;
} env;

static env E;

/* ------------------------------------------------------------- the chain */

/* Applies `payload` in a block of its own; the tx id is SHA-256 of the block
 * number. */
static kd_err apply_now(void *ctx, const uint8_t *payload, size_t len, uint8_t tx_id[KD_HASH_LEN], char *why,
                        size_t why_len)
{
    env *e = ctx;
    uint8_t n[8], hash[KD_HASH_LEN];
    e->blocks++;
    kd_put_u64be(n, e->blocks);
    kd_sha256(n, sizeof n, tx_id);
    kd_sha256(tx_id, KD_HASH_LEN, hash);
    kd_wire_tx tx = {.payload = payload, .payload_len = len};
    memcpy(tx.tx_id, tx_id, KD_HASH_LEN);
    kd_buf msg;
    kd_buf_init(&msg);
    kd_msg_result res;
    kd_msg_result_init(&res);
    kd_err err = kd_wire_accept(hash, e->blocks, e->blocks * 1000, &tx, 1, &msg);
    if (!err)
        err = kd_engine_ingest(e->engine, msg.data, msg.len, &res);
    if (!err && res.status != KD_MSG_APPLIED) {
        snprintf(why, why_len, "block %llu was not applied: %s", (unsigned long long)e->blocks, res.detail);
        err = KD_ERR_INTERNAL;
    }
    kd_msg_result_fini(&res);
    kd_buf_fini(&msg);
    return err;
}

/* ------------------------------------------------------------- set-up */

static void temp_dir(const char *name, char *out, size_t len)
{
    const char *parent = getenv("KD_TEST_TMP");
    snprintf(out, len, "%s/gwtypes-%s-XXXXXX", parent ? parent : "/tmp", name);
    cr_assert(mkdtemp(out), "mkdtemp %s", out);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static void setup(void)
{
    memset(&E, 0, sizeof E);
    char why[256] = "";
    temp_dir("data", E.dir, sizeof E.dir);
    temp_dir("keys", E.keys, sizeof E.keys);
    kd_type_table_init(&E.types);
    cr_assert_eq(kd_type_table_add(&E.types, &pile_type), KD_OK);
    kd_registry_init(&E.reg);
    cr_assert_eq(kd_type_table_registry(&E.types, &E.reg), KD_OK);
    kd_engine_options eo = {.data_dir = E.dir, .registry = &E.reg, .durability = KD_DURABILITY_RELAXED};
    cr_assert_eq(kd_engine_open(&eo, &E.engine, why, sizeof why), KD_OK, "%s", why);
    kd_mcp_server_options so = {.name = "kdapp-test", .version = "0", .calls_per_second = 100000, .call_burst = 100000};
    cr_assert_eq(kd_mcp_server_alloc(&so, &E.srv), KD_OK);
    char url[128];
    snprintf(url, sizeof url, "inproc://kd-gwtypes-%d", (int)getpid());
    kd_gateway_options go = {
        .engine = E.engine,
        .types = &E.types,
        .views_url = url,
        .keys_dir = E.keys,
        .chain = {.submit = apply_now, .ctx = &E},
        .wait_ms = 5000,
    };
    cr_assert_eq(kd_gateway_open(&go, E.srv, &E.gw, why, sizeof why), KD_OK, "%s", why);
    cr_assert_eq(kd_mcp_session_alloc(E.srv, NULL, NULL, &E.s), KD_OK);
    static const char init[] = "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":"
                               "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                               "\"clientInfo\":{\"name\":\"test\",\"version\":\"1\"}}}";
    static const char done[] = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";
    char *reply = NULL;
    cr_assert_eq(kd_mcp_session_handle(E.s, init, strlen(init), &reply), KD_OK);
    free(reply);
    reply = NULL;
    cr_assert_eq(kd_mcp_session_handle(E.s, done, strlen(done), &reply), KD_OK);
    free(reply);
    E.next_id = 1;
}

static void teardown(void)
{
    kd_mcp_session_free(E.s);
    kd_gateway_close(E.gw);
    kd_mcp_server_free(E.srv);
    kd_engine_close(E.engine);
    nftw(E.dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    nftw(E.keys, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

TestSuite(gateway_types, .init = setup, .fini = teardown, .timeout = 60);

/* ------------------------------------------------------------- requests */

/* The result of a request (new reference), or the error object when
 * `want_error`; asserts which one came. */
static json_t *request(const char *method, json_t *params, int want_error)
{
    json_t *req =
        json_pack("{s:s, s:i, s:s, s:o}", "jsonrpc", "2.0", "id", E.next_id++, "method", method, "params", params);
    char *text = json_dumps(req, JSON_COMPACT);
    json_decref(req);
    char *reply = NULL;
    cr_assert_eq(kd_mcp_session_handle(E.s, text, strlen(text), &reply), KD_OK);
    json_t *r = json_loads(reply, 0, NULL);
    cr_assert(r, "%s: a JSON reply", method);
    json_t *out = json_incref(json_object_get(r, want_error ? "error" : "result"));
    cr_assert(out, "%s %s: %s", method, text, reply);
    json_decref(r);
    free(text);
    free(reply);
    return out;
}

/* tools/call; the whole CallToolResult. Asserts isError is as wanted. */
static json_t *tool(const char *name, const char *args_json, int want_error)
{
    json_t *args = json_loads(args_json, 0, NULL);
    cr_assert(args, "test arguments parse: %s", args_json);
    json_t *r = request("tools/call", json_pack("{s:s, s:o}", "name", name, "arguments", args), 0);
    int is_error = json_is_true(json_object_get(r, "isError"));
    cr_assert_eq(is_error, want_error, "%s %s: %s", name, args_json,
                 json_string_value(json_object_get(json_array_get(json_object_get(r, "content"), 0), "text")));
    return r;
}

static const char *text_of(json_t *r)
{
    return json_string_value(json_object_get(json_array_get(json_object_get(r, "content"), 0), "text"));
}

static json_t *sc(json_t *r) { return json_object_get(r, "structuredContent"); }

/* The error result's text, which must contain every one of `parts`. */
static void refused(const char *name, const char *args_json, const char *const *parts)
{
    json_t *r = tool(name, args_json, 1);
    for (; *parts; parts++)
        cr_expect(strstr(text_of(r), *parts), "%s %s: '%s' names '%s'", name, args_json, text_of(r), *parts);
    json_decref(r);
}

#define REFUSED(name, args, ...) refused(name, args, (const char *const[]){__VA_ARGS__, NULL})

static json_int_t int_at(json_t *obj, const char *key) { return json_integer_value(json_object_get(obj, key)); }

static uint32_t start(const char *args_json)
{
    json_t *r = tool("kdapp_start_episode", args_json, 0);
    uint32_t id = (uint32_t)int_at(sc(r), "episode_id");
    json_decref(r);
    return id;
}

static json_t *execute(uint32_t id, const char *rest_json, int want_error)
{
    char args[512];
    snprintf(args, sizeof args, "{\"episode_id\": %u, %s}", id, rest_json);
    return tool("kdapp_execute_command", args, want_error);
}

static json_t *legal_moves(uint32_t id)
{
    char args[64];
    snprintf(args, sizeof args, "{\"episode_id\": %u}", id);
    json_t *r = tool("kdapp_legal_moves", args, 0);
    json_t *out = json_incref(sc(r));
    json_decref(r);
    return out;
}

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
    json_object_del(before, "digest"); /* the tip's: every block moves it */
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
    cr_expect(!json_object_get(ep, "move_count"), "no member the type's view does not have");
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
    /* a seat whose key is elsewhere: it committed itself; its secret is not here */
    kd_key other;
    cr_assert_eq(kd_key_test("elsewhere", &other), KD_OK);
    char pub[2 * KD_PUBKEY_LEN + 1], start_args[512];
    kd_hex_encode(other.pub.bytes, KD_PUBKEY_LEN, pub);
    snprintf(start_args, sizeof start_args,
             "{\"type\": \"seabattle\", \"participants\": [\"agent1\", \"%s\"], \"params\": {\"red_root\": "
             "\"%064d\", \"red_binding\": \"%064d\"}}",
             pub, 0, 0);
    uint32_t id2 = start(start_args);
    snprintf(args, sizeof args, "{\"episode_id\": %u, \"player\": \"red\"}", id2);
    REFUSED("kdapp_get_episode_state", args, "does not hold the key of red");
    snprintf(args, sizeof args, "{\"episode_id\": %u, \"player\": \"blue\"}", id2);
    json_decref(tool("kdapp_get_episode_state", args, 0));
    /* a type without secrets says so */
    uint32_t id3 = start("{\"type\": \"tictactoe\", \"participants\": [\"agent1\", \"agent2\"]}");
    snprintf(args, sizeof args, "{\"episode_id\": %u, \"player\": 0}", id3);
    REFUSED("kdapp_get_episode_state", args, "no secret a seat could see");
}

/* Entropy for agents: the dice command schema has "entropy"; a roll that
 * leaves it out gets 32 fresh CSPRNG bytes from the gateway (shown in the
 * pending draw), different each time; one that gives it keeps it. The
 * gateway holds the house's key (agent2), so it committed at the start. */
Test(gateway_types, the_gateway_fills_a_missing_entropy)
{
    char seen[2][65] = {"", ""};
    for (int i = 0; i < 2; i++) {
        uint32_t id = start("{\"type\": \"dice\", \"participants\": [\"agent1\", \"agent2\"]}");
        cr_assert(id);
        json_t *r = execute(id, "\"command\": {\"roll\": \"2d6+1\"}", 0);
        cr_assert(json_is_true(json_object_get(sc(r), "legal")), "%s", text_of(r));
        json_t *view = json_object_get(sc(r), "view");
        cr_expect_str_eq(json_string_value(json_object_get(json_object_get(view, "pending_roll"), "roll")), "2d6+1");
        json_t *pending = json_object_get(json_object_get(view, "house"), "pending");
        const char *ent = json_string_value(json_object_get(pending, "entropy"));
        cr_assert(ent && strlen(ent) == 64, "the pending draw shows 32 bytes of entropy");
        cr_expect(strspn(ent, "0") < 64, "not zeros");
        snprintf(seen[i], sizeof seen[i], "%s", ent);
        json_decref(r);
    }
    cr_expect_str_neq(seen[0], seen[1], "fresh bytes for each command");

    uint32_t id = start("{\"type\": \"dice\", \"participants\": [\"agent1\", \"agent2\"]}");
    json_t *r = execute(id,
                        "\"command\": {\"roll\": \"d20\", \"entropy\": "
                        "\"abababababababababababababababababababababababababababababababab\"}",
                        0);
    json_t *pending = json_object_get(json_object_get(json_object_get(sc(r), "view"), "house"), "pending");
    cr_expect_str_eq(json_string_value(json_object_get(pending, "entropy")),
                     "abababababababababababababababababababababababababababababababab", "a given entropy is kept");
    json_decref(r);
    /* the rule codes of the house reach the agent: the player's second roll
     * while one waits (the seat to move is now the house: name the signer) */
    r = execute(id, "\"signer\": \"agent1\", \"command\": {\"roll\": \"d20\"}", 1);
    cr_expect_str_eq(json_string_value(json_object_get(sc(r), "error_code")), "draw_pending", "%s", text_of(r));
    json_decref(r);
}

/* The dice state of episode `id` as the store has it (zeroed when absent). */
static void dice_state(uint32_t id, kd_dice_state *out)
{
    memset(out, 0, sizeof *out);
    kd_episode_snapshot snap;
    if (kd_engine_episode_read(E.engine, id, &snap) != KD_OK)
        return;
    memcpy(out, snap.state, sizeof *out);
    kd_episode_snapshot_fini(&snap);
}

/*
 * Issue 24, B3/B4: the gateway acts only on the commitments it made for its
 * own store. A creation copied from another store (the same house key, its
 * consent and its binding, made for that store) is valid on this chain, but
 * its binding is not this store's: the duties thread must never reveal for
 * it (a proof here would be the other store's draw, computable before the
 * player asks it there). The gateway's own episode, asked after it, is
 * revealed: the duties ran past the copied one and left it alone.
 */
Test(gateway_types, the_duties_never_act_on_a_commitment_made_for_another_store)
{
    /* views published to the gateway, as a node does: its duties follow them */
    char why[256] = "", url[128];
    snprintf(url, sizeof url, "inproc://kd-gwtypes-%d", (int)getpid());
    kd_publisher *pub = NULL;
    cr_assert_eq(kd_publisher_open(url, &E.types, &pub, why, sizeof why), KD_OK, "%s", why);
    kd_handler_set handlers;
    kd_handler_set_init(&handlers);
    kd_handler h = kd_publisher_handler(pub);
    cr_assert_eq(kd_handler_set_add(&handlers, &h), KD_OK);
    kd_handler_set_attach(&handlers, E.engine);
    for (int i = 0; i < 500 && kd_publisher_subscribers(pub) < 1; i++)
        usleep(10000); /* the gateway's subscriber connects: up to 5 s */
    cr_assert_geq(kd_publisher_subscribers(pub), 1, "the gateway subscribes to the views");

    kd_key player, house;
    cr_assert_eq(kd_key_load(E.keys, "agent1", &player, why, sizeof why), KD_OK, "%s", why);
    cr_assert_eq(kd_key_load(E.keys, "agent2", &house, why, sizeof why), KD_OK, "%s", why);
    static const uint8_t elsewhere[KD_STORE_ID_LEN] = {'a', 'n', 'o', 't', 'h', 'e', 'r'};
    const uint32_t copied = 777;
    kd_participants parts = {.count = 2};
    parts.keys[0] = player.pub;
    parts.keys[1] = house.pub;
    json_t *params = json_pack("{s:i}", "reveal_timeout", 100);
    cr_assert_eq(kd_seat_commit(&kd_dice_type, &house, elsewhere, copied, KD_DICE_HOUSE, params, why, sizeof why),
                 KD_OK, "%s", why);
    kd_buf raw, payload;
    kd_buf_init(&raw);
    kd_buf_init(&payload);
    cr_assert_eq(kd_dice_type.params_from_json(params, &raw, why, sizeof why), KD_OK, "%s", why);
    kd_consent consent;
    cr_assert_eq(kd_consent_sign(&house, KD_DICE_HOUSE, copied, "dice", &parts, raw.data, raw.len, &consent), KD_OK);
    cr_assert_eq(kd_wire_new_episode_consented(copied, "dice", &parts, raw.data, raw.len, &consent, 1, &payload),
                 KD_OK);
    uint8_t tx[KD_HASH_LEN];
    cr_assert_eq(apply_now(&E, payload.data, payload.len, tx, why, sizeof why), KD_OK, "%s", why);
    json_decref(execute(copied, "\"signer\": \"agent1\", \"command\": {\"roll\": \"1d6\"}", 0));
    uint32_t own = start("{\"type\": \"dice\", \"participants\": [\"agent1\", \"agent2\"]}");
    cr_assert(own);
    json_decref(execute(own, "\"signer\": \"agent1\", \"command\": {\"roll\": \"1d6\"}", 0));
    kd_dice_state s;
    for (int i = 0; i < 1000; i++) { /* the gateway's own roll is revealed by its duties: up to 10 s */
        dice_state(own, &s);
        if (s.rolls == 1)
            break;
        usleep(10000); /* a poll interval, bounded above */
    }
    cr_assert_eq(s.rolls, 1, "the gateway revealed its own commitment's draw");
    dice_state(copied, &s);
    cr_expect(s.house.pending && s.rolls == 0, "the copied commitment's draw is never revealed");
    uint8_t seed[KD_SECRET_SEED_LEN], store[KD_STORE_ID_LEN];
    cr_assert_eq(kd_engine_store_id(E.engine, store), KD_OK);
    cr_expect_eq(kd_seat_seed(&kd_dice_type, &house, store, copied, KD_DICE_HOUSE, &s, seed), KD_ERR_NOT_FOUND);
    memset(&house, 0, sizeof house);
    json_decref(params);
    kd_buf_fini(&raw);
    kd_buf_fini(&payload);
    kd_engine_set_listener(E.engine, NULL, NULL);
    kd_publisher_close(pub);
}
