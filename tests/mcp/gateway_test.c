/*
 * gateway_test.c — the kdapp gateway's answers while the engine commits:
 * every view it gives (kdapp_get_episode_state, the episode resource) pairs
 * the digest and the state of one commit, and every page of
 * kdapp_list_episodes shows one commit. Three MCP sessions ask on three
 * threads while this thread applies blocks to a real store.
 *
 * The workload is tests/engine's ticker: every block moves episodes 1 and
 * 2, so a true view of either at log position s has the digest that the
 * log entry s recorded and as many moves as that entry's height minus
 * one, and a true page lists both with the same number of moves.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "engine/support.h"
#include "mcp/gateway.h"
#include "mcp/server.h"

#define BLOCKS 400
#define SESSIONS 3

static et_env env;
static kd_mcp_server *srv;
static kd_gateway *gw;
static char keys[512];

static kd_err refuse_submit(void *ctx, const uint8_t *payload, size_t len, uint8_t tx_id[KD_HASH_LEN], char *why,
                            size_t why_len)
{
    (void)ctx, (void)payload, (void)len;
    memset(tx_id, 0, KD_HASH_LEN);
    snprintf(why, why_len, "this test submits nothing");
    return KD_ERR_UNSUPPORTED;
}

static void setup(void)
{
    et_env_open_relaxed(&env, 0, 0);
    et_tmpdir(keys, sizeof keys);
    kd_mcp_server_options so = {
        .name = "kdapp-test",
        .version = "0",
        .calls_per_second = 1000000,
        .call_burst = 1000000,
    };
    cr_assert_eq(kd_mcp_server_alloc(&so, &srv), KD_OK);
    char url[128], why[256] = "";
    snprintf(url, sizeof url, "inproc://kd-gateway-test-%d", (int)getpid());
    kd_gateway_options go = {
        .engine = env.engine,
        .views_url = url,
        .keys_dir = keys,
        .chain = {.submit = refuse_submit},
    };
    kd_err err = kd_gateway_open(&go, srv, &gw, why, sizeof why);
    cr_assert_eq(err, KD_OK, "gateway: %s (%s)", kd_err_code(err), why);
}

static void teardown(void)
{
    kd_gateway_close(gw);
    kd_mcp_server_free(srv);
    et_rmtree(keys);
    et_env_fini(&env);
}

TestSuite(gateway, .init = setup, .fini = teardown, .timeout = 240);

/* ------------------------------------------------------------- sessions */

typedef struct {
    kd_mcp_session *s;
    int next_id;
    atomic_int *stop;
    atomic_int *started;
    pthread_t thread;
    uint64_t answers;
    char failure[400];
} asker;

/* Sends one request; returns its "result" (new reference) or NULL. */
static json_t *call(asker *a, const char *method, json_t *params)
{
    json_t *req =
        json_pack("{s:s, s:i, s:s, s:o}", "jsonrpc", "2.0", "id", a->next_id++, "method", method, "params", params);
    char *text = json_dumps(req, JSON_COMPACT);
    json_decref(req);
    char *reply = NULL;
    json_t *result = NULL;
    if (text && kd_mcp_session_handle(a->s, text, strlen(text), &reply) == KD_OK && reply) {
        json_t *r = json_loads(reply, 0, NULL);
        result = json_incref(json_object_get(r, "result"));
        if (!result)
            snprintf(a->failure, sizeof a->failure, "%s: %s", method, reply);
        json_decref(r);
    }
    free(text);
    free(reply);
    return result;
}

/* Checks one view (JSON) against the log: the digest is the one entry
 * log_seq recorded, and the moves are that entry's height minus one. */
static int view_true(asker *a, json_t *view, const char *what)
{
    const char *digest = json_string_value(json_object_get(view, "digest"));
    json_int_t seq = json_integer_value(json_object_get(view, "log_seq"));
    json_int_t moves = json_integer_value(json_object_get(view, "move_count"));
    kd_read *rd;
    const uint8_t *data;
    size_t len;
    Kdapp__Store__LogEntry *le = NULL;
    char want[2 * KD_HASH_LEN + 1] = "";
    uint64_t height = 0;
    if (kd_engine_read_begin(env.engine, &rd) == KD_OK) {
        if (kd_read_log_entry(rd, (uint64_t)seq, &data, &len) == KD_OK &&
            (le = kdapp__store__log_entry__unpack(NULL, len, data)) && le->digest.len == KD_HASH_LEN) {
            kd_hex_encode(le->digest.data, KD_HASH_LEN, want);
            height = le->tip_height;
        }
        if (le)
            kdapp__store__log_entry__free_unpacked(le, NULL);
        kd_engine_read_end(rd);
    }
    if (!digest || strcmp(digest, want) != 0 || (uint64_t)moves + 1 != height) {
        snprintf(a->failure, sizeof a->failure,
                 "%s, answer %" PRIu64 ": log seq %lld, %lld moves, digest %.16s; the log says height %" PRIu64
                 ", digest %.16s",
                 what, a->answers, (long long)seq, (long long)moves, digest ? digest : "(none)", height, want);
        return 0;
    }
    return 1;
}

/* One round: the state tool, the resource, and the list. */
static void ask_round(asker *a)
{
    json_t *r = call(a, "tools/call",
                     json_pack("{s:s, s:{s:i}}", "name", "kdapp_get_episode_state", "arguments", "episode_id", 1));
    if (r && !view_true(a, json_object_get(r, "structuredContent"), "kdapp_get_episode_state"))
        goto done;
    json_decref(r);
    r = call(a, "resources/read", json_pack("{s:s}", "uri", "kdapp://episodes/2"));
    const char *text = json_string_value(json_object_get(json_array_get(json_object_get(r, "contents"), 0), "text"));
    json_t *view = text ? json_loads(text, 0, NULL) : NULL;
    int ok = r && view_true(a, view, "resource kdapp://episodes/2");
    json_decref(view);
    if (!ok)
        goto done;
    json_decref(r);
    r = call(a, "tools/call", json_pack("{s:s, s:{}}", "name", "kdapp_list_episodes", "arguments"));
    json_t *eps = json_object_get(json_object_get(r, "structuredContent"), "episodes");
    json_int_t m1 = json_integer_value(json_object_get(json_array_get(eps, 0), "move_count"));
    json_int_t m2 = json_integer_value(json_object_get(json_array_get(eps, 1), "move_count"));
    if (r && json_array_size(eps) == 2 && m1 != m2)
        snprintf(a->failure, sizeof a->failure,
                 "kdapp_list_episodes, answer %" PRIu64 ": one page lists %lld and %lld moves", a->answers,
                 (long long)m1, (long long)m2);
done:
    json_decref(r);
    a->answers++;
}

static void *ask_loop(void *arg)
{
    asker *a = arg;
    json_decref(call(a, "initialize",
                     json_pack("{s:s, s:{}, s:{s:s, s:s}}", "protocolVersion", KD_MCP_PROTOCOL_LATEST, "capabilities",
                               "clientInfo", "name", "gateway-test", "version", "1")));
    static const char initialized[] = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";
    char *reply = NULL;
    if (kd_mcp_session_handle(a->s, initialized, strlen(initialized), &reply) != KD_OK)
        snprintf(a->failure, sizeof a->failure, "notifications/initialized failed");
    free(reply);
    atomic_fetch_add(a->started, 1);
    while (!a->failure[0]) {
        int last = atomic_load(a->stop); /* one more round after the last block */
        ask_round(a);
        if (last)
            break;
    }
    return NULL;
}

Test(gateway, every_view_and_page_is_one_commit_while_blocks_land)
{
    kd_buf *msgs = et_ticker_msgs(BLOCKS, 0);
    kd_msg_result res;
    et_ingest(env.engine, &msgs[0], &res); /* the episodes exist before anyone asks */
    kd_msg_result_fini(&res);
    atomic_int stop = 0, started = 0;
    asker as[SESSIONS];
    for (int i = 0; i < SESSIONS; i++) {
        as[i] = (asker){.next_id = 1, .stop = &stop, .started = &started};
        cr_assert_eq(kd_mcp_session_alloc(srv, NULL, NULL, &as[i].s), KD_OK);
        cr_assert_eq(pthread_create(&as[i].thread, NULL, ask_loop, &as[i]), 0);
    }
    while (atomic_load(&started) < SESSIONS) /* every session asks while blocks land */
        sched_yield();
    for (size_t b = 1; b < BLOCKS; b++) {
        et_ingest(env.engine, &msgs[b], &res);
        cr_assert_eq(res.status, KD_MSG_APPLIED, "block %zu: %s", b + 1, res.detail);
        kd_msg_result_fini(&res);
    }
    atomic_store(&stop, 1);
    for (int i = 0; i < SESSIONS; i++) {
        pthread_join(as[i].thread, NULL);
        kd_mcp_session_free(as[i].s);
        cr_expect_str_empty(as[i].failure, "session %d: %s", i, as[i].failure);
        cr_expect_gt(as[i].answers, 1, "session %d asked", i);
        cr_log_info("session %d: %" PRIu64 " rounds", i, as[i].answers);
    }
    et_msgs_free(msgs, BLOCKS);
}
