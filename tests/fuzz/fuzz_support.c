/*
 * fuzz_support.c — the engine and MCP fixtures of the fuzz targets.
 *
 * The engine fixture keeps one engine per process and recycles it every
 * FZ_RESET_EVERY inputs, so a long run neither fills the disk nor slows
 * down as the log grows. Before a recycled engine is thrown away, its log
 * is replayed into a fresh store and compared (kd_replay_log): whatever the
 * fuzzer fed it, the replay must reproduce it byte for byte, which turns
 * "the engine accepted garbage" into "the engine stayed deterministic".
 *
 * File-scope state (documented in fuzz_support.h): the registry, the
 * engine, its directory, the input counter and the MCP fixture.
 */
#include "fuzz/fuzz_support.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/logger.h"
#include "engine/wire.h"
#include "episodes/tictactoe/tictactoe.h"
#include "mcp/gateway/gateway.h"
#include "tools/sim/replay.h"

typedef struct {
    kd_ttt_config cfg;
    kd_registry reg;
    kd_engine *engine;
    char dir[512];
} fz_env;

static fz_env engine_env;     /* the engine fixture of fz_engine */
static unsigned engine_uses;  /* inputs since engine_env was opened */
static uint64_t hash_counter; /* fz_next_hash */
static int registered_cleanup;

static struct {
    fz_env env;
    kd_mcp_server *srv;
    kd_gateway *gw;
    char keys[512];
} mcp;

void fz_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("fuzz: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}

static void null_sink(void *ctx, kd_log_level level, const char *subsystem, const char *line)
{
    (void)ctx;
    (void)level;
    (void)subsystem;
    (void)line;
}

void fz_quiet(void)
{
    const char *v = getenv("FZ_VERBOSE");
    if (!v || strcmp(v, "1") != 0)
        kd_log_set_sink(null_sink, NULL);
}

static void make_tmpdir(const char *tag, char *out, size_t len)
{
    const char *parent = getenv("KD_TEST_TMP");
    if (!parent || !*parent)
        parent = "/tmp";
    snprintf(out, len, "%s/kd-fuzz-%s-XXXXXX", parent, tag);
    if (!mkdtemp(out))
        fz_fail("cannot create a temporary directory under %s", parent);
}

void fz_next_hash(const char *tag, uint8_t out[KD_HASH_LEN])
{
    uint8_t buf[64];
    size_t n = strlen(tag);
    if (n > sizeof buf - 8)
        n = sizeof buf - 8;
    memcpy(buf, tag, n);
    kd_put_u64be(buf + n, ++hash_counter);
    kd_sha256(buf, n + 8, out);
}

/* Applies one block of `txs` payloads, insisting it is applied. */
static void seed_block(kd_engine *e, const kd_buf *payloads, size_t n)
{
    kd_wire_tx txs[8];
    uint8_t hash[KD_HASH_LEN];
    kd_buf msg;
    kd_msg_result res;
    fz_next_hash("seed", hash);
    for (size_t i = 0; i < n; i++) {
        kd_sha256(payloads[i].data, payloads[i].len, txs[i].tx_id);
        txs[i].payload = payloads[i].data;
        txs[i].payload_len = payloads[i].len;
    }
    kd_buf_init(&msg);
    if (kd_wire_accept(hash, 1, 100, txs, n, &msg) != KD_OK)
        fz_fail("cannot encode the seed block");
    if (kd_engine_ingest(e, msg.data, msg.len, &res) != KD_OK || res.status != KD_MSG_APPLIED)
        fz_fail("the seed block was not applied: %s", res.detail);
    kd_msg_result_fini(&res);
    kd_buf_fini(&msg);
}

/*
 * Seeds episodes 1 (classic, X has played), 2 (stress cap 3, three marks
 * placed, so the next move evicts) and 3 (the engine default), all between
 * test:alice (X) and test:bob (O), so fuzzed commands reach every check.
 */
static void seed(kd_engine *e)
{
    kd_key alice, bob;
    kd_participants p = {.count = 2};
    kd_buf pl[8], params, cmd;
    if (kd_key_test("alice", &alice) || kd_key_test("bob", &bob))
        fz_fail("cannot derive the test keys");
    p.keys[0] = alice.pub;
    p.keys[1] = bob.pub;
    for (size_t i = 0; i < 8; i++)
        kd_buf_init(&pl[i]);
    kd_buf_init(&params);
    kd_buf_init(&cmd);
    if (kd_ttt_params_encode(3, &params) || kd_wire_new_episode(1, KD_TTT_TYPE_NAME, &p, NULL, 0, &pl[0]) ||
        kd_wire_new_episode(2, KD_TTT_TYPE_NAME, &p, params.data, params.len, &pl[1]) ||
        kd_wire_new_episode(3, KD_TTT_TYPE_NAME, &p, NULL, 0, &pl[2]))
        fz_fail("cannot encode the seed creations");
    seed_block(e, pl, 3);
    static const uint8_t moves[][4] = {/* episode, row, col, player */
                                       {1, 1, 1, 0},
                                       {2, 0, 0, 0},
                                       {2, 2, 2, 1},
                                       {2, 0, 1, 0}};
    uint64_t counter[4] = {0};
    for (size_t i = 0; i < sizeof moves / sizeof moves[0]; i++) {
        const uint8_t *m = moves[i];
        cmd.len = 0;
        pl[i].len = 0;
        if (kd_ttt_move_encode(m[1], m[2], m[3], &cmd) ||
            kd_wire_signed_command(m[0], cmd.data, cmd.len, m[3] ? &bob : &alice, counter[m[0]]++, &pl[i]))
            fz_fail("cannot encode a seed move");
    }
    seed_block(e, pl, 4);
    for (size_t i = 0; i < 8; i++)
        kd_buf_fini(&pl[i]);
    kd_buf_fini(&params);
    kd_buf_fini(&cmd);
    memset(&alice, 0, sizeof alice);
    memset(&bob, 0, sizeof bob);
}

static void env_open(fz_env *env, const char *tag, uint64_t finality)
{
    char why[256] = "";
    make_tmpdir(tag, env->dir, sizeof env->dir);
    memset(&env->cfg, 0, sizeof env->cfg);
    kd_registry_init(&env->reg);
    if (kd_registry_add(&env->reg, &kd_tictactoe_ops, &env->cfg) != KD_OK)
        fz_fail("cannot register tic-tac-toe");
    kd_engine_options o = {
        .data_dir = env->dir,
        .registry = &env->reg,
        .finality_depth = finality,
        .durability = KD_DURABILITY_SYNC,
        .map_size = (size_t)8 << 20, /* small: the growth path is fuzzed too */
    };
    kd_err err = kd_engine_open(&o, &env->engine, why, sizeof why);
    if (err)
        fz_fail("cannot open an engine in %s: %s (%s)", env->dir, kd_err_code(err), why);
    seed(env->engine);
}

static void env_close(fz_env *env)
{
    kd_engine_close(env->engine);
    env->engine = NULL;
    if (env->dir[0])
        kd_remove_tree(env->dir);
    env->dir[0] = 0;
}

/* Replays the engine's whole log into a fresh store: it must agree. */
static void check_replay(fz_env *env)
{
    fz_env copy;
    kd_replay_report rep;
    memset(&copy, 0, sizeof copy);
    make_tmpdir("replay", copy.dir, sizeof copy.dir);
    kd_registry_init(&copy.reg);
    if (kd_registry_add(&copy.reg, &kd_tictactoe_ops, &copy.cfg) != KD_OK)
        fz_fail("cannot register tic-tac-toe");
    char why[256] = "";
    kd_engine_options o = {.data_dir = copy.dir,
                           .registry = &copy.reg,
                           .finality_depth = FZ_FINALITY,
                           .durability = KD_DURABILITY_RELAXED};
    if (kd_engine_open(&o, &copy.engine, why, sizeof why) != KD_OK)
        fz_fail("cannot open the replay engine: %s", why);
    memset(&rep, 0, sizeof rep);
    kd_err err = kd_replay_log(env->engine, copy.engine, 0, &rep);
    if (err || !kd_replay_ok(&rep))
        fz_fail("replaying the fuzzed log diverged (%s): entry %llu: %s; episode %u: %s", kd_err_code(err),
                (unsigned long long)rep.first_bad_seq, rep.first_bad_what, rep.first_bad_episode, rep.episode_what);
    env_close(&copy);
}

static void cleanup(void)
{
    env_close(&engine_env);
    if (mcp.srv) {
        kd_gateway_close(mcp.gw);
        kd_mcp_server_free(mcp.srv);
        env_close(&mcp.env);
        kd_remove_tree(mcp.keys);
        mcp.srv = NULL;
    }
}

static void register_cleanup(void)
{
    if (!registered_cleanup) {
        registered_cleanup = 1;
        atexit(cleanup);
    }
}

kd_engine *fz_engine(void)
{
    register_cleanup();
    if (engine_env.engine && ++engine_uses >= FZ_RESET_EVERY) {
        check_replay(&engine_env);
        env_close(&engine_env);
    }
    if (!engine_env.engine) {
        fz_quiet();
        env_open(&engine_env, "engine", FZ_FINALITY);
        engine_uses = 0;
    }
    return engine_env.engine;
}

/* ------------------------------------------------------------------ MCP */

static kd_err refuse_submit(void *ctx, const uint8_t *payload, size_t len, const kd_gateway_spend *spend,
                            uint8_t tx_id[KD_HASH_LEN], char *why, size_t why_len)
{
    (void)spend;
    (void)ctx;
    (void)payload;
    (void)len;
    memset(tx_id, 0, KD_HASH_LEN);
    snprintf(why, why_len, "the fuzzing chain accepts no transactions");
    return KD_ERR_UNSUPPORTED;
}

kd_mcp_server *fz_mcp_server(void)
{
    if (mcp.srv)
        return mcp.srv;
    register_cleanup();
    fz_quiet();
    env_open(&mcp.env, "mcp", FZ_FINALITY);
    make_tmpdir("keys", mcp.keys, sizeof mcp.keys);
    kd_mcp_server_options so = {
        .name = "kdapp-fuzz",
        .version = "0",
        .calls_per_second = 1000000,
        .call_burst = 1000000,
        .max_message_bytes = (size_t)1 << 20,
    };
    if (kd_mcp_server_alloc(&so, &mcp.srv) != KD_OK)
        fz_fail("cannot create the MCP server");
    char url[128], why[256] = "";
    snprintf(url, sizeof url, "inproc://kd-fuzz-views-%p", (void *)&mcp);
    kd_gateway_options go = {
        .engine = mcp.env.engine,
        .views_url = url,
        .keys_dir = mcp.keys,
        .chain = {.submit = refuse_submit},
        .wait_ms = 10,
    };
    if (kd_gateway_open(&go, mcp.srv, &mcp.gw, why, sizeof why) != KD_OK)
        fz_fail("cannot open the gateway: %s", why);
    return mcp.srv;
}

void fz_mcp_initialize(kd_mcp_session *s)
{
    static const char init[] = "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":"
                               "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                               "\"clientInfo\":{\"name\":\"fuzz\",\"version\":\"1\"}}}";
    static const char done[] = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";
    char *reply = NULL;
    if (kd_mcp_session_handle(s, init, strlen(init), &reply) != KD_OK || !reply || strstr(reply, "\"error\""))
        fz_fail("initialize failed: %s", reply ? reply : "(no reply)");
    free(reply);
    reply = NULL;
    if (kd_mcp_session_handle(s, done, strlen(done), &reply) != KD_OK)
        fz_fail("notifications/initialized failed");
    free(reply);
}
