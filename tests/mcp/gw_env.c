/* gw_env.c — the kdapp gateway in process, for tests (gw_env.h). */
#define _XOPEN_SOURCE 700 /* nftw */
#include "gw_env.h"

#include <criterion/criterion.h>
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/netutil.h"
#include "engine/wire.h"
#include "episodes/secrets.h"
#include "kdapp.pb-c.h"

gw_env E;

/* ------------------------------------------------------------- the chain */

/* The engine has one writer: the test's thread and the gateway's (its
 * tools, its duties thread) take turns. */
static pthread_mutex_t chain_lock = PTHREAD_MUTEX_INITIALIZER;

/* Block number `n`'s one tx id and its hash. */
static void block_ids(uint64_t n, uint8_t tx_id[KD_HASH_LEN], uint8_t hash[KD_HASH_LEN])
{
    uint8_t be[8];
    kd_put_u64be(be, n);
    kd_sha256(be, sizeof be, tx_id);
    kd_sha256(tx_id, KD_HASH_LEN, hash);
}

static kd_err apply_block(const uint8_t *payload, size_t len, uint64_t daa, uint8_t tx_id[KD_HASH_LEN], char *why,
                          size_t why_len)
{
    pthread_mutex_lock(&chain_lock);
    kd_err err = KD_OK;
    uint8_t hash[KD_HASH_LEN];
    E.blocks++;
    if (!daa)
        daa = E.clock_daa ? 1 + (kd_now_ms() - E.t0_ms) / 100 : E.blocks;
    block_ids(E.blocks, tx_id, hash);
    kd_wire_tx tx = {.payload = payload, .payload_len = len};
    memcpy(tx.tx_id, tx_id, KD_HASH_LEN);
    kd_buf msg;
    kd_buf_init(&msg);
    kd_msg_result res;
    kd_msg_result_init(&res);
    err = kd_wire_accept(hash, daa, E.blocks * 1000, &tx, 1, &msg);
    if (!err)
        err = kd_engine_ingest(E.engine, msg.data, msg.len, &res);
    if (!err && res.status != KD_MSG_APPLIED) {
        snprintf(why, why_len, "block %llu was not applied: %s", (unsigned long long)E.blocks, res.detail);
        err = KD_ERR_INTERNAL;
    }
    kd_msg_result_fini(&res);
    kd_buf_fini(&msg);
    pthread_mutex_unlock(&chain_lock);
    return err;
}

void gw_revert_last(void)
{
    pthread_mutex_lock(&chain_lock);
    uint8_t tx_id[KD_HASH_LEN], hash[KD_HASH_LEN];
    block_ids(E.blocks, tx_id, hash);
    kd_buf msg;
    kd_buf_init(&msg);
    kd_msg_result res;
    kd_msg_result_init(&res);
    cr_assert_eq(kd_wire_revert(hash, &msg), KD_OK);
    cr_assert_eq(kd_engine_ingest(E.engine, msg.data, msg.len, &res), KD_OK);
    cr_assert_eq(res.status, KD_MSG_APPLIED, "the revert of block %llu: %s", (unsigned long long)E.blocks, res.detail);
    kd_msg_result_fini(&res);
    kd_buf_fini(&msg);
    pthread_mutex_unlock(&chain_lock);
}

/* The gateway's chain: each payload in a block of its own, at once. */
static kd_err apply_now(void *ctx, const uint8_t *payload, size_t len, const kd_gateway_spend *spend,
                        uint8_t tx_id[KD_HASH_LEN], char *why, size_t why_len)
{
    (void)ctx;
    pthread_mutex_lock(&chain_lock);
    E.spend[spend->kind == KD_GATEWAY_SPEND_DUTY] = *spend;
    E.spends[spend->kind == KD_GATEWAY_SPEND_DUTY]++;
    pthread_mutex_unlock(&chain_lock);
    if (E.hold_duties && spend->kind == KD_GATEWAY_SPEND_DUTY) { /* in the mempool: no block carries it yet */
        Kdapp__EpisodeMessage *m = kdapp__episode_message__unpack(NULL, len, payload);
        uint32_t id = m ? m->episode_id : 0;
        if (m)
            kdapp__episode_message__free_unpacked(m, NULL);
        pthread_mutex_lock(&chain_lock);
        kd_err err = kd_buf_append(&E.held, &id, sizeof id);
        uint8_t hash[KD_HASH_LEN];
        block_ids(UINT64_MAX - E.held.len, tx_id, hash); /* an id no block's tx has */
        pthread_mutex_unlock(&chain_lock);
        return err;
    }
    if (E.refuse_unpaid && spend->kind == KD_GATEWAY_SPEND_SESSION && !spend->grant[0]) {
        snprintf(why, why_len, "no wallet pays for a session without a grant (gw_env)");
        return KD_ERR_DENIED;
    }
    if (E.inject.len) { /* another client's transaction lands first */
        uint8_t other[KD_HASH_LEN];
        kd_err err = apply_block(E.inject.data, E.inject.len, 0, other, why, why_len);
        E.inject.len = 0;
        if (err)
            return err;
    }
    return apply_block(payload, len, 0, tx_id, why, why_len);
}

size_t gw_held(uint32_t id)
{
    pthread_mutex_lock(&chain_lock);
    size_t n = 0;
    for (size_t i = 0; i + sizeof id <= E.held.len; i += sizeof id) {
        uint32_t h;
        memcpy(&h, E.held.data + i, sizeof h);
        n += h == id;
    }
    pthread_mutex_unlock(&chain_lock);
    return n;
}

uint64_t gw_last_spend(int duty, kd_gateway_spend *out)
{
    pthread_mutex_lock(&chain_lock);
    *out = E.spend[duty != 0];
    uint64_t n = E.spends[duty != 0];
    pthread_mutex_unlock(&chain_lock);
    return n;
}

void gw_apply(const uint8_t *payload, size_t len, uint64_t daa)
{
    uint8_t tx_id[KD_HASH_LEN];
    char why[256] = "";
    cr_assert_eq(apply_block(payload, len, daa, tx_id, why, sizeof why), KD_OK, "%s", why);
}

/* ------------------------------------------------------------- set-up */

static void temp_dir(const char *name, char *out, size_t len)
{
    const char *parent = getenv("KD_TEST_TMP");
    snprintf(out, len, "%s/gwenv-%s-XXXXXX", parent ? parent : "/tmp", name);
    cr_assert(mkdtemp(out), "mkdtemp %s", out);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static kd_mcp_session *new_session(const void *principal)
{
    kd_mcp_session *s;
    cr_assert_eq(kd_mcp_session_alloc(E.srv, NULL, NULL, &s), KD_OK);
    kd_mcp_session_set_principal(s, principal);
    static const char init[] = "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":"
                               "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                               "\"clientInfo\":{\"name\":\"test\",\"version\":\"1\"}}}";
    static const char done[] = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";
    char *reply = NULL;
    cr_assert_eq(kd_mcp_session_handle(s, init, strlen(init), &reply), KD_OK);
    free(reply);
    reply = NULL;
    cr_assert_eq(kd_mcp_session_handle(s, done, strlen(done), &reply), KD_OK);
    free(reply);
    return s;
}

void gw_env_open(const kd_episode_type *extra, const char *const *grants, size_t n, const char *house)
{
    gw_env_open_limits(extra, grants, n, house, NULL, 0);
}

void gw_env_open_limits(const kd_episode_type *extra, const char *const *grants, size_t n, const char *house,
                        const char *const *limits, size_t n_limits)
{
    cr_assert(n < GW_ENV_SESSIONS);
    memset(&E, 0, sizeof E);
    char why[512] = "";
    temp_dir("data", E.dir, sizeof E.dir);
    temp_dir("keys", E.keys, sizeof E.keys);
    static const char *const names[] = {"agent1", "agent2", "agent3", "house"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        kd_key key;
        cr_assert_eq(kd_key_generate(&key), KD_OK);
        cr_assert_eq(kd_key_save(E.keys, names[i], &key, why, sizeof why), KD_OK, "%s", why);
    }
    kd_type_table_init(&E.types);
    if (extra)
        cr_assert_eq(kd_type_table_add(&E.types, extra), KD_OK);
    kd_registry_init(&E.reg);
    cr_assert_eq(kd_type_table_registry(&E.types, &E.reg), KD_OK);
    kd_engine_options eo = {.data_dir = E.dir, .registry = &E.reg, .durability = KD_DURABILITY_RELAXED};
    cr_assert_eq(kd_engine_open(&eo, &E.engine, why, sizeof why), KD_OK, "%s", why);
    kd_mcp_server_options so = {.name = "kdapp-test", .version = "0", .calls_per_second = 100000, .call_burst = 100000};
    cr_assert_eq(kd_mcp_server_alloc(&so, &E.srv), KD_OK);
    char url[128];
    snprintf(url, sizeof url, "inproc://kd-gwenv-%d", (int)getpid());
    kd_gateway_options go = {
        .engine = E.engine,
        .types = &E.types,
        .views_url = url,
        .keys_dir = E.keys,
        .chain = {.submit = apply_now, .ctx = &E},
        .wait_ms = 5000,
        .grants = grants,
        .n_grants = n,
        .house = house,
        .house_limits = limits,
        .n_house_limits = n_limits,
    };
    cr_assert_eq(kd_gateway_open(&go, E.srv, &E.gw, why, sizeof why), KD_OK, "%s", why);
    for (size_t i = 0; i <= n; i++)
        E.sessions[i] = new_session(i < n ? kd_gateway_grant(E.gw, i) : NULL);
    E.s = E.sessions[0];
    E.next_id = 1;
    kd_buf_init(&E.inject);
    kd_buf_init(&E.held);
    E.t0_ms = kd_now_ms();
}

void gw_env_close(void)
{
    for (size_t i = 0; i < GW_ENV_SESSIONS; i++)
        kd_mcp_session_free(E.sessions[i]);
    kd_gateway_close(E.gw);
    kd_mcp_server_free(E.srv);
    kd_engine_close(E.engine);
    nftw(E.dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    nftw(E.keys, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    kd_buf_fini(&E.inject);
    kd_buf_fini(&E.held);
}

void gw_key(const char *name, kd_key *out)
{
    char why[256] = "";
    cr_assert_eq(kd_key_resolve(E.keys, name, out, why, sizeof why), KD_OK, "%s", why);
}

/* ------------------------------------------------------------- requests */

/* The result of a request (new reference), or the error object when
 * `want_error`; asserts which one came. */
json_t *gw_request(const char *method, json_t *params, int want_error)
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
json_t *gw_tool(const char *name, const char *args_json, int want_error)
{
    json_t *args = json_loads(args_json, 0, NULL);
    cr_assert(args, "test arguments parse: %s", args_json);
    json_t *r = gw_request("tools/call", json_pack("{s:s, s:o}", "name", name, "arguments", args), 0);
    int is_error = json_is_true(json_object_get(r, "isError"));
    cr_assert_eq(is_error, want_error, "%s %s: %s", name, args_json,
                 json_string_value(json_object_get(json_array_get(json_object_get(r, "content"), 0), "text")));
    return r;
}

const char *gw_text_of(json_t *r)
{
    return json_string_value(json_object_get(json_array_get(json_object_get(r, "content"), 0), "text"));
}

json_t *gw_sc(json_t *r) { return json_object_get(r, "structuredContent"); }

/* The error result's text, which must contain every one of `parts`. */
void gw_refused(const char *name, const char *args_json, const char *const *parts)
{
    json_t *r = gw_tool(name, args_json, 1);
    for (; *parts; parts++)
        cr_expect(strstr(gw_text_of(r), *parts), "%s %s: '%s' names '%s'", name, args_json, gw_text_of(r), *parts);
    json_decref(r);
}

json_int_t gw_int_at(json_t *obj, const char *key) { return json_integer_value(json_object_get(obj, key)); }

uint32_t gw_start(const char *args_json)
{
    json_t *r = gw_tool("kdapp_start_episode", args_json, 0);
    uint32_t id = (uint32_t)gw_int_at(gw_sc(r), "episode_id");
    json_decref(r);
    return id;
}

json_t *gw_execute(uint32_t id, const char *rest_json, int want_error)
{
    char args[512];
    snprintf(args, sizeof args, "{\"episode_id\": %u, %s}", id, rest_json);
    return gw_tool("kdapp_execute_command", args, want_error);
}

json_t *gw_legal_moves(uint32_t id)
{
    char args[64];
    snprintf(args, sizeof args, "{\"episode_id\": %u}", id);
    json_t *r = gw_tool("kdapp_legal_moves", args, 0);
    json_t *out = json_incref(gw_sc(r));
    json_decref(r);
    return out;
}

/* ------------------------------------------------------------ raw writes */

void gw_create_raw(uint32_t id, const char *type_name, const char *const *names, size_t n, unsigned commit_seats,
                   const uint8_t *store, json_t *params, int want)
{
    const kd_episode_type *t = kd_type_table_find(&E.types, type_name);
    cr_assert(t, "type %s", type_name);
    uint8_t own[KD_STORE_ID_LEN];
    cr_assert_eq(kd_engine_store_id(E.engine, own), KD_OK);
    if (!params)
        params = json_object();
    kd_key keys[KD_MAX_PARTICIPANTS];
    kd_participants parts = {.count = n};
    char why[256] = "";
    for (size_t i = 0; i < n; i++) {
        gw_key(names[i], &keys[i]);
        parts.keys[i] = keys[i].pub;
        if (commit_seats & (1u << i))
            cr_assert_eq(kd_seat_commit(t, &keys[i], store ? store : own, id, (int)i, params, why, sizeof why), KD_OK,
                         "%s", why);
    }
    kd_buf pbytes, payload;
    kd_buf_init(&pbytes);
    kd_buf_init(&payload);
    cr_assert_eq(t->params_from_json(params, &pbytes, why, sizeof why), KD_OK, "%s", why);
    kd_consent consents[KD_MAX_PARTICIPANTS];
    size_t n_consents = 0;
    for (size_t i = 0; i < n; i++) /* every named seat consents (engine/rules.c) */
        cr_assert_eq(kd_consent_sign(&keys[i], (uint32_t)i, kd_engine_chain(E.engine), id, type_name, &parts,
                                     pbytes.data, pbytes.len, &consents[n_consents++]),
                     KD_OK);
    cr_assert_eq(
        kd_wire_new_episode_consented(id, type_name, &parts, pbytes.data, pbytes.len, consents, n_consents, &payload),
        KD_OK);
    gw_apply(payload.data, payload.len, 0);
    kd_episode_snapshot snap;
    kd_err err = kd_engine_episode_read(E.engine, id, &snap);
    if (!err)
        kd_episode_snapshot_fini(&snap);
    cr_assert_eq(!err, !!want, "episode %u: created %d, wanted %d", id, !err, want);
    kd_buf_fini(&pbytes);
    kd_buf_fini(&payload);
    json_decref(params);
    memset(keys, 0, sizeof keys);
}

void gw_command_raw(uint32_t id, const char *type_name, const char *signer, int seat, json_t *command, uint64_t counter)
{
    const kd_episode_type *t = kd_type_table_find(&E.types, type_name);
    cr_assert(t, "type %s", type_name);
    kd_key key;
    gw_key(signer, &key);
    kd_buf cmd, payload;
    kd_buf_init(&cmd);
    kd_buf_init(&payload);
    char why[256] = "";
    cr_assert_eq(t->command_from_json(command, seat, &cmd, why, sizeof why), KD_OK, "%s", why);
    cr_assert_eq(kd_wire_signed_command(id, cmd.data, cmd.len, &key, counter, &payload), KD_OK);
    gw_apply(payload.data, payload.len, 0);
    kd_buf_fini(&cmd);
    kd_buf_fini(&payload);
    json_decref(command);
    memset(&key, 0, sizeof key);
}
