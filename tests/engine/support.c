/*
 * support.c — the shared helpers of the engine tests (see support.h):
 * temporary directories, test engines, payload and block builders, reads,
 * raw LMDB access and seeds. Compiled into each engine test executable; it
 * uses only the public API of kdapp_core plus LMDB for the raw checks.
 */
#define _XOPEN_SOURCE 700
#include "engine/support.h"
#include "store.pb-c.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <lmdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ------------------------------------------------------------ assertions */

void et_expect_hash_eq(const uint8_t *a, const uint8_t *b, const char *what)
{
    char ha[2 * KD_HASH_LEN + 1], hb[2 * KD_HASH_LEN + 1];
    kd_hex_encode(a, KD_HASH_LEN, ha);
    kd_hex_encode(b, KD_HASH_LEN, hb);
    cr_expect(memcmp(a, b, KD_HASH_LEN) == 0, "%s: %s != %s", what, ha, hb);
}

void et_expect_hash_ne(const uint8_t *a, const uint8_t *b, const char *what)
{
    char ha[2 * KD_HASH_LEN + 1];
    kd_hex_encode(a, KD_HASH_LEN, ha);
    cr_expect(memcmp(a, b, KD_HASH_LEN) != 0, "%s: both are %s", what, ha);
}

/* ------------------------------------------------------ data directories */

void et_tmpdir(char *out, size_t len)
{
    const char *parent = getenv("KD_TEST_TMP");
    if (!parent || !parent[0]) /* set, it is short enough for a socket's path (tests/CMakeLists.txt) */
        parent = "/tmp";
    int n = snprintf(out, len, "%s/engine-XXXXXX", parent);
    cr_assert(n > 0 && (size_t)n < len, "temporary path too long");
    cr_assert_not_null(mkdtemp(out), "mkdtemp %s failed", out);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

void et_rmtree(const char *dir)
{
    if (dir && dir[0])
        nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---------------------------------------------------------------- engines */

kd_err et_env_attach_with(et_env *env, const char *dir, uint8_t default_cap, const kd_engine_options *opts, char *why,
                          size_t why_len)
{
    memset(env, 0, sizeof *env);
    snprintf(env->dir, sizeof env->dir, "%s", dir);
    env->cfg.default_cap = default_cap;
    kd_registry_init(&env->reg);
    ET_ASSERT_OK(kd_registry_add(&env->reg, &kd_tictactoe_ops, &env->cfg));
    kd_engine_options o = *opts;
    o.data_dir = env->dir;
    o.registry = &env->reg;
    if (!o.chain)
        o.chain = ET_CHAIN;
    return kd_engine_open(&o, &env->engine, why, why_len);
}

kd_err et_env_attach(et_env *env, const char *dir, uint8_t default_cap, uint64_t finality, int read_only, char *why,
                     size_t why_len)
{
    kd_engine_options opts = {
        .finality_depth = finality,
        .read_only = read_only,
        .durability = KD_DURABILITY_SYNC,
    };
    return et_env_attach_with(env, dir, default_cap, &opts, why, why_len);
}

static void env_open(et_env *env, uint8_t default_cap, uint64_t finality, kd_durability durability)
{
    char dir[512], why[256] = "";
    et_tmpdir(dir, sizeof dir);
    memset(env, 0, sizeof *env);
    snprintf(env->dir, sizeof env->dir, "%s", dir);
    env->own_dir = 1;
    env->cfg.default_cap = default_cap;
    kd_registry_init(&env->reg);
    ET_ASSERT_OK(kd_registry_add(&env->reg, &kd_tictactoe_ops, &env->cfg));
    kd_engine_options opts = {
        .data_dir = env->dir,
        .registry = &env->reg,
        .finality_depth = finality,
        .durability = durability,
        .map_size = (size_t)32 << 20,
        .chain = ET_CHAIN,
    };
    kd_err err = kd_engine_open(&opts, &env->engine, why, sizeof why);
    cr_assert_eq(err, KD_OK, "open %s: %s (%s)", env->dir, kd_err_code(err), why);
}

void et_env_open(et_env *env, uint8_t default_cap, uint64_t finality)
{
    env_open(env, default_cap, finality, KD_DURABILITY_SYNC);
}

void et_env_open_relaxed(et_env *env, uint8_t default_cap, uint64_t finality)
{
    env_open(env, default_cap, finality, KD_DURABILITY_RELAXED);
}

void et_env_close(et_env *env)
{
    kd_engine_close(env->engine);
    env->engine = NULL;
}

void et_env_reopen(et_env *env)
{
    char why[256] = "";
    et_env_close(env);
    kd_engine_options opts = {.data_dir = env->dir, .registry = &env->reg, .chain = ET_CHAIN};
    kd_err err = kd_engine_open(&opts, &env->engine, why, sizeof why);
    cr_assert_eq(err, KD_OK, "reopen %s: %s (%s)", env->dir, kd_err_code(err), why);
}

void et_crash_child(const char *at, void (*fn)(void *ctx), void *ctx)
{
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_neq(pid, -1, "fork: %s", strerror(errno));
    if (pid == 0) {
        setenv("KDAPP_CRASH_AT", at, 1);
        fn(ctx);
        _exit(3); /* the point was not reached */
    }
    int status = 0;
    cr_assert_eq(waitpid(pid, &status, 0), pid, "waitpid: %s", strerror(errno));
    cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT, "the child did not abort at %s (status 0x%x)", at,
              status);
}

void et_env_fini(et_env *env)
{
    if (!env)
        return;
    et_env_close(env);
    if (env->own_dir)
        et_rmtree(env->dir);
    env->own_dir = 0;
}

/* ------------------------------------------------------------ test keys */

kd_key et_key(const char *name)
{
    kd_key key;
    ET_ASSERT_OK(kd_key_test(name, &key));
    return key;
}

/* --------------------------------------------------------------- payloads */

struct Kdapp__EngineMsg *et_revert_decoded(const char *name)
{
    kd_buf buf;
    kd_buf_init(&buf);
    et_revert_msg(name, &buf);
    Kdapp__EngineMsg *m = kdapp__engine_msg__unpack(NULL, buf.len, buf.data);
    cr_assert_not_null(m, "the revert of %s decodes", name);
    kd_buf_fini(&buf);
    return m;
}

void et_fill_block(int i, et_txs *t)
{
    et_txs_clear(t);
    uint32_t base = 1 + (uint32_t)(i / 4) * 8;
    if (i % 4 == 0) {
        for (uint32_t e = 0; e < 8; e++)
            et_add_create(t, base + e, "alice", "bob", 6);
        return;
    }
    /* three stress moves per episode: X, O, X on rows i%4-1 */
    int r = i % 4 - 1;
    for (uint32_t e = 0; e < 8; e++) {
        uint64_t counter = (uint64_t)(2 * r);
        et_add_move(t, base + e, (uint8_t)r, 0, 0, "alice", counter);
        et_add_move(t, base + e, (uint8_t)r, 1, 1, "bob", counter + 1);
    }
}

void et_expect_same_store(kd_engine *a, kd_engine *b)
{
    uint8_t fa[KD_HASH_LEN], fb[KD_HASH_LEN];
    kd_tip ta, tb;
    et_fingerprint(a, fa);
    et_fingerprint(b, fb);
    et_tip(a, &ta);
    et_tip(b, &tb);
    et_expect_hash_eq(fa, fb, "the same episodes");
    et_expect_hash_eq(ta.digest, tb.digest, "the same digest");
    cr_expect_eq(ta.height, tb.height, "the same height");
    cr_expect_eq(ta.last_seq, tb.last_seq, "the same log length");
}

void et_txs_init(et_txs *txs) { memset(txs, 0, sizeof *txs); }

void et_txs_clear(et_txs *txs)
{
    for (size_t i = 0; i < txs->n; i++)
        kd_buf_fini(&txs->p[i]);
    txs->n = 0;
}

void et_txs_fini(et_txs *txs)
{
    et_txs_clear(txs);
    free(txs->p);
    memset(txs, 0, sizeof *txs);
}

static kd_buf *txs_next(et_txs *txs)
{
    if (txs->n == txs->cap) {
        size_t ncap = txs->cap ? txs->cap * 2 : 8;
        kd_buf *p = realloc(txs->p, ncap * sizeof *p);
        cr_assert_not_null(p);
        txs->p = p;
        txs->cap = ncap;
    }
    kd_buf *b = &txs->p[txs->n++];
    kd_buf_init(b);
    return b;
}

void et_add_raw(et_txs *txs, const void *data, size_t len) { ET_ASSERT_OK(kd_buf_append(txs_next(txs), data, len)); }

void et_add_create_any(et_txs *txs, uint32_t id, const char *type, const kd_participants *parts, const uint8_t *params,
                       size_t params_len)
{
    ET_ASSERT_OK(kd_wire_new_episode(id, type, parts, params, params_len, txs_next(txs)));
}

void et_create_payload(kd_buf *out, const char *chain, uint32_t id, const char *type, const kd_key *keys, size_t n,
                       const uint8_t *params, size_t params_len)
{
    cr_assert(n >= 1 && n <= KD_MAX_PARTICIPANTS);
    kd_participants parts = {.count = n};
    kd_consent consents[KD_MAX_PARTICIPANTS];
    for (size_t i = 0; i < n; i++)
        parts.keys[i] = keys[i].pub;
    for (size_t i = 0; i < n; i++)
        ET_ASSERT_OK(kd_consent_sign(&keys[i], (uint32_t)i, chain, id, type, &parts, params, params_len, &consents[i]));
    ET_ASSERT_OK(kd_wire_new_episode_consented(id, type, &parts, params, params_len, consents, n, out));
}

void et_add_create_signed(et_txs *txs, uint32_t id, const char *type, const kd_key *keys, size_t n,
                          const uint8_t *params, size_t params_len)
{
    et_create_payload(txs_next(txs), ET_CHAIN, id, type, keys, n, params, params_len);
}

void et_add_create(et_txs *txs, uint32_t id, const char *x, const char *o, int cap)
{
    kd_key keys[2] = {et_key(x), et_key(o)};
    kd_buf params;
    kd_buf_init(&params);
    if (cap >= 0)
        ET_ASSERT_OK(kd_ttt_params_encode((uint32_t)cap, &params));
    et_add_create_signed(txs, id, KD_TTT_TYPE_NAME, keys, 2, params.data, params.len);
    kd_buf_fini(&params);
}

void et_move_payload(kd_buf *out, uint32_t id, uint8_t row, uint8_t col, uint8_t player, const char *signer,
                     uint64_t counter)
{
    kd_buf cmd;
    kd_buf_init(&cmd);
    ET_ASSERT_OK(kd_ttt_move_encode(row, col, player, &cmd));
    if (signer) {
        kd_key key = et_key(signer);
        ET_ASSERT_OK(kd_wire_signed_command(id, cmd.data, cmd.len, &key, counter, out));
    } else {
        ET_ASSERT_OK(kd_wire_unsigned_command(id, cmd.data, cmd.len, out));
    }
    kd_buf_fini(&cmd);
}

void et_add_move(et_txs *txs, uint32_t id, uint8_t row, uint8_t col, uint8_t player, const char *signer,
                 uint64_t counter)
{
    et_move_payload(txs_next(txs), id, row, col, player, signer, counter);
}

/* ----------------------------------------------------------------- blocks */

void et_hash(const char *name, uint8_t out[KD_HASH_LEN]) { kd_sha256(name, strlen(name), out); }

void et_accept_msg(const char *name, const et_txs *txs, kd_buf *out)
{
    uint8_t hash[KD_HASH_LEN];
    et_hash(name, hash);
    size_t n = txs ? txs->n : 0;
    kd_wire_tx *wtx = calloc(n ? n : 1, sizeof *wtx);
    cr_assert_not_null(wtx);
    for (size_t i = 0; i < n; i++) {
        uint8_t seed[KD_HASH_LEN + 4];
        memcpy(seed, hash, KD_HASH_LEN);
        kd_put_u32be(seed + KD_HASH_LEN, (uint32_t)i);
        kd_sha256(seed, sizeof seed, wtx[i].tx_id);
        wtx[i].payload = txs->p[i].data;
        wtx[i].payload_len = txs->p[i].len;
    }
    uint64_t daa = 1 + kd_get_u32be(hash) % 1000000u;
    ET_ASSERT_OK(kd_wire_accept(hash, daa, daa * 100, wtx, n, out));
    free(wtx);
}

void et_revert_msg(const char *name, kd_buf *out)
{
    uint8_t hash[KD_HASH_LEN];
    et_hash(name, hash);
    ET_ASSERT_OK(kd_wire_revert(hash, out));
}

void et_ingest(kd_engine *engine, const kd_buf *msg, kd_msg_result *res)
{
    kd_err err = kd_engine_ingest(engine, msg->data, msg->len, res);
    cr_assert_eq(err, KD_OK, "ingest: %s (%s)", kd_err_code(err), res->detail);
}

void et_accept(kd_engine *engine, const char *name, const et_txs *txs, kd_msg_result *res)
{
    kd_buf msg;
    kd_buf_init(&msg);
    et_accept_msg(name, txs, &msg);
    et_ingest(engine, &msg, res);
    kd_buf_fini(&msg);
}

void et_revert(kd_engine *engine, const char *name, kd_msg_result *res)
{
    kd_buf msg;
    kd_buf_init(&msg);
    et_revert_msg(name, &msg);
    et_ingest(engine, &msg, res);
    kd_buf_fini(&msg);
}

void et_accept_ok(kd_engine *engine, const char *name, const et_txs *txs)
{
    kd_msg_result res;
    et_accept(engine, name, txs, &res);
    cr_assert_eq(res.status, KD_MSG_APPLIED, "accept %s: status %d, %s (%s)", name, (int)res.status,
                 kd_err_code(res.err), res.detail);
    kd_msg_result_fini(&res);
}

void et_revert_ok(kd_engine *engine, const char *name)
{
    kd_msg_result res;
    et_revert(engine, name, &res);
    cr_assert_eq(res.status, KD_MSG_APPLIED, "revert %s: status %d, %s (%s)", name, (int)res.status,
                 kd_err_code(res.err), res.detail);
    kd_msg_result_fini(&res);
}

void et_dry_run_one(kd_engine *engine, const char *name, const kd_buf *payload, kd_tx_result *out)
{
    kd_dryrun *run;
    uint8_t block[KD_HASH_LEN], tx_id[KD_HASH_LEN] = {7};
    et_hash(name, block);
    kd_block_meta where = {.block_hash = block, .daa = 1, .time_ms = 100, .tx_id = tx_id};
    ET_ASSERT_OK(kd_dryrun_alloc(engine, &run));
    kd_err err = kd_dryrun_tx(run, &where, payload->data, payload->len, out);
    kd_dryrun_free(run);
    ET_ASSERT_OK(err);
}

/* ------------------------------------------------------------------ reads */

void et_tip(kd_engine *engine, kd_tip *out) { ET_ASSERT_OK(kd_engine_tip(engine, out)); }

void et_fingerprint(kd_engine *engine, uint8_t out[KD_HASH_LEN])
{
    kd_read *rd;
    ET_ASSERT_OK(kd_engine_read_begin(engine, &rd));
    kd_err err = kd_read_fingerprint(rd, out);
    kd_engine_read_end(rd);
    ET_ASSERT_OK(err);
}

kd_err et_ttt_read(kd_engine *engine, uint32_t id, kd_ttt_state *state, uint64_t *counter)
{
    kd_episode_snapshot snap;
    kd_err err = kd_engine_episode_read(engine, id, &snap);
    if (err)
        return err;
    cr_assert_eq(snap.ops, &kd_tictactoe_ops);
    memcpy(state, snap.state, sizeof *state);
    if (counter)
        *counter = snap.undo_depth;
    kd_episode_snapshot_fini(&snap);
    return KD_OK;
}

void et_episode_bytes(kd_engine *engine, uint32_t id, kd_buf *out)
{
    kd_episode_snapshot snap;
    kd_err err = kd_engine_episode_read(engine, id, &snap);
    cr_assert_eq(err, KD_OK, "episode %u: %s", id, kd_err_code(err));
    ET_ASSERT_OK(snap.ops->encode_state(snap.state, out));
    uint8_t depth[8];
    kd_put_u64be(depth, snap.undo_depth);
    ET_ASSERT_OK(kd_buf_append(out, depth, sizeof depth));
    kd_episode_snapshot_fini(&snap);
}

Kdapp__Store__LogEntry *et_log_entry(kd_engine *engine, uint64_t seq)
{
    kd_buf raw;
    kd_buf_init(&raw);
    et_log_raw(engine, seq, &raw);
    Kdapp__Store__LogEntry *entry = kdapp__store__log_entry__unpack(NULL, raw.len, raw.data);
    kd_buf_fini(&raw);
    cr_assert_not_null(entry, "log entry %" PRIu64 " does not decode", seq);
    return entry;
}

void et_log_raw(kd_engine *engine, uint64_t seq, kd_buf *out)
{
    kd_read *rd;
    const uint8_t *data;
    size_t len;
    ET_ASSERT_OK(kd_engine_read_begin(engine, &rd));
    kd_err err = kd_read_log_entry(rd, seq, &data, &len);
    if (!err)
        err = kd_buf_append(out, data, len);
    kd_engine_read_end(rd);
    cr_assert_eq(err, KD_OK, "log entry %" PRIu64 ": %s", seq, kd_err_code(err));
}

size_t et_episode_ids(kd_engine *engine, uint32_t *ids, size_t max)
{
    size_t n = 0;
    kd_read *rd;
    ET_ASSERT_OK(kd_engine_read_begin(engine, &rd));
    kd_err err = kd_read_episode_ids(rd, 0, ids, max, &n);
    kd_engine_read_end(rd);
    ET_ASSERT_OK(err);
    return n;
}

size_t et_episode_count(kd_engine *engine)
{
    uint32_t ids[4096];
    return et_episode_ids(engine, ids, 4096);
}

/* ------------------------------------------------------------- raw LMDB */

/* Opens the environment in `dir` (read-only or not) and the named db. */
static void raw_open(const char *dir, const char *db, int read_only, MDB_env **env, MDB_txn **txn, MDB_dbi *dbi)
{
    int rc = mdb_env_create(env);
    cr_assert_eq(rc, 0, "mdb_env_create: %s", mdb_strerror(rc));
    mdb_env_set_maxdbs(*env, 16);
    rc = mdb_env_open(*env, dir, read_only ? MDB_RDONLY : 0, 0600);
    cr_assert_eq(rc, 0, "mdb_env_open %s: %s", dir, mdb_strerror(rc));
    rc = mdb_txn_begin(*env, NULL, read_only ? MDB_RDONLY : 0, txn);
    cr_assert_eq(rc, 0, "mdb_txn_begin: %s", mdb_strerror(rc));
    rc = mdb_dbi_open(*txn, db, 0, dbi);
    cr_assert_eq(rc, 0, "mdb_dbi_open %s: %s", db, mdb_strerror(rc));
}

size_t et_raw_count(const char *dir, const char *db)
{
    MDB_env *env;
    MDB_txn *txn;
    MDB_dbi dbi;
    MDB_stat st;
    raw_open(dir, db, 1, &env, &txn, &dbi);
    int rc = mdb_stat(txn, dbi, &st);
    cr_assert_eq(rc, 0, "mdb_stat %s: %s", db, mdb_strerror(rc));
    mdb_txn_abort(txn);
    mdb_env_close(env);
    return st.ms_entries;
}

size_t et_raw_undo_count(const char *dir)
{
    MDB_env *env;
    MDB_txn *txn;
    MDB_dbi dbi;
    MDB_cursor *cur;
    MDB_val k, v;
    size_t n = 0;
    raw_open(dir, "blocks", 1, &env, &txn, &dbi);
    int rc = mdb_cursor_open(txn, dbi, &cur);
    cr_assert_eq(rc, 0, "mdb_cursor_open: %s", mdb_strerror(rc));
    for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0; rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
        Kdapp__Store__BlockRecord *rec = kdapp__store__block_record__unpack(NULL, v.mv_size, v.mv_data);
        cr_assert_not_null(rec, "a block record does not decode");
        for (size_t i = 0; i < rec->n_effects; i++)
            n += rec->effects[i]->undo.len > 0;
        kdapp__store__block_record__free_unpacked(rec, NULL);
    }
    mdb_cursor_close(cur);
    mdb_txn_abort(txn);
    mdb_env_close(env);
    return n;
}

int et_raw_slot(const char *dir, uint32_t id, uint64_t *slot)
{
    MDB_env *env;
    MDB_txn *txn;
    MDB_dbi dbi;
    uint8_t key[4];
    kd_put_u32be(key, id);
    raw_open(dir, "ids", 1, &env, &txn, &dbi);
    MDB_val k = {4, key}, v;
    int rc = mdb_get(txn, dbi, &k, &v);
    cr_assert(rc == 0 || rc == MDB_NOTFOUND, "mdb_get ids: %s", mdb_strerror(rc));
    if (rc == 0) {
        cr_assert_eq(v.mv_size, 8, "a slot is 8 bytes");
        *slot = kd_get_u64be(v.mv_data);
    }
    mdb_txn_abort(txn);
    mdb_env_close(env);
    return rc == 0;
}

/* Packs `m` and puts it under `key` of `dbi`. */
static void raw_put_packed(MDB_txn *txn, MDB_dbi dbi, void *key, size_t klen, const ProtobufCMessage *m)
{
    size_t n = protobuf_c_message_get_packed_size(m);
    uint8_t *buf = malloc(n ? n : 1);
    cr_assert_not_null(buf);
    protobuf_c_message_pack(m, buf);
    MDB_val k = {klen, key}, v = {n, buf};
    int rc = mdb_put(txn, dbi, &k, &v, 0);
    cr_assert_eq(rc, 0, "mdb_put: %s", mdb_strerror(rc));
    free(buf);
}

void et_raw_downgrade_to_schema_2(const char *dir)
{
    MDB_env *env;
    MDB_txn *txn;
    MDB_dbi ids, states, blocks, episodes, undo, meta;
    MDB_cursor *cur;
    MDB_val k, v;
    raw_open(dir, "ids", 0, &env, &txn, &ids);
    int rc = mdb_dbi_open(txn, "states", 0, &states) || mdb_dbi_open(txn, "blocks", 0, &blocks) ||
             mdb_dbi_open(txn, "meta", 0, &meta) || mdb_dbi_open(txn, "episodes", MDB_CREATE, &episodes) ||
             mdb_dbi_open(txn, "undo", MDB_CREATE, &undo);
    cr_assert_eq(rc, 0, "open the databases of %s", dir);
    /* episodes[id] = the record of states[ids[id]] */
    cr_assert_eq(mdb_cursor_open(txn, ids, &cur), 0);
    for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0; rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
        uint8_t id[4];
        memcpy(id, k.mv_data, 4);
        MDB_val sv;
        cr_assert_eq(mdb_get(txn, states, &v, &sv), 0, "the slot of an id holds a record");
        Kdapp__Store__EpisodeRecord *rec = kdapp__store__episode_record__unpack(NULL, sv.mv_size, sv.mv_data);
        cr_assert_not_null(rec);
        raw_put_packed(txn, episodes, id, 4, &rec->base);
        kdapp__store__episode_record__free_unpacked(rec, NULL);
    }
    mdb_cursor_close(cur);
    /* undo[(id, depth)] = each effect's undo record, taken out of its block */
    cr_assert_eq(mdb_cursor_open(txn, blocks, &cur), 0);
    for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0; rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
        uint8_t hash[32];
        cr_assert_eq(k.mv_size, sizeof hash);
        memcpy(hash, k.mv_data, sizeof hash);
        Kdapp__Store__BlockRecord *rec = kdapp__store__block_record__unpack(NULL, v.mv_size, v.mv_data);
        cr_assert_not_null(rec);
        for (size_t i = 0; i < rec->n_effects; i++) {
            Kdapp__Store__Effect *fx = rec->effects[i];
            if (!fx->undo.len)
                continue;
            uint8_t key[12];
            kd_put_u32be(key, fx->episode_id);
            kd_put_u64be(key + 4, fx->undo_depth);
            MDB_val uk = {sizeof key, key}, uv = {fx->undo.len, fx->undo.data};
            cr_assert_eq(mdb_put(txn, undo, &uk, &uv, 0), 0);
            free(fx->undo.data);
            fx->undo = (ProtobufCBinaryData){0, NULL};
        }
        raw_put_packed(txn, blocks, hash, sizeof hash, &rec->base);
        kdapp__store__block_record__free_unpacked(rec, NULL);
    }
    mdb_cursor_close(cur);
    cr_assert_eq(mdb_drop(txn, states, 1), 0);
    cr_assert_eq(mdb_drop(txn, ids, 1), 0);
    MDB_dbi history;
    if (mdb_dbi_open(txn, "history", 0, &history) == 0) /* schema 4's */
        cr_assert_eq(mdb_drop(txn, history, 1), 0);
    uint8_t two[8];
    kd_put_u64be(two, 2);
    MDB_val sk = {6, "schema"}, sv = {8, two};
    cr_assert_eq(mdb_put(txn, meta, &sk, &sv, 0), 0);
    rc = mdb_txn_commit(txn);
    cr_assert_eq(rc, 0, "mdb_txn_commit: %s", mdb_strerror(rc));
    mdb_env_close(env);
}

void et_raw_downgrade_to_schema_3(const char *dir)
{
    MDB_env *env;
    MDB_txn *txn;
    MDB_dbi history, meta;
    raw_open(dir, "history", 0, &env, &txn, &history);
    cr_assert_eq(mdb_drop(txn, history, 1), 0);
    cr_assert_eq(mdb_dbi_open(txn, "meta", 0, &meta), 0);
    uint8_t three[8];
    kd_put_u64be(three, 3);
    MDB_val sk = {6, "schema"}, sv = {8, three};
    cr_assert_eq(mdb_put(txn, meta, &sk, &sv, 0), 0);
    int rc = mdb_txn_commit(txn);
    cr_assert_eq(rc, 0, "mdb_txn_commit: %s", mdb_strerror(rc));
    mdb_env_close(env);
}

void et_raw_history(const char *dir, kd_buf *out)
{
    MDB_env *env;
    MDB_txn *txn;
    MDB_dbi dbi;
    MDB_cursor *cur;
    MDB_val k, v;
    raw_open(dir, "history", 1, &env, &txn, &dbi);
    cr_assert_eq(mdb_cursor_open(txn, dbi, &cur), 0);
    for (int rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0; rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
        cr_assert(k.mv_size == 16 && v.mv_size == 1, "a history entry is %zu + %zu bytes", k.mv_size, v.mv_size);
        cr_assert_eq(kd_buf_append(out, k.mv_data, 16), KD_OK);
        cr_assert_eq(kd_buf_append(out, v.mv_data, 1), KD_OK);
    }
    mdb_cursor_close(cur);
    mdb_txn_abort(txn);
    mdb_env_close(env);
}

int et_raw_has_db(const char *dir, const char *db)
{
    MDB_env *env;
    MDB_txn *txn;
    MDB_dbi dbi;
    raw_open(dir, "meta", 1, &env, &txn, &dbi);
    int rc = mdb_dbi_open(txn, db, 0, &dbi);
    mdb_txn_abort(txn);
    mdb_env_close(env);
    return rc == 0;
}

void et_raw_put_meta(const char *dir, const char *name, const void *value, size_t len)
{
    MDB_env *env;
    MDB_txn *txn;
    MDB_dbi dbi;
    raw_open(dir, "meta", 0, &env, &txn, &dbi);
    MDB_val k = {strlen(name), (void *)name}, v = {len, (void *)value};
    int rc = mdb_put(txn, dbi, &k, &v, 0);
    cr_assert_eq(rc, 0, "mdb_put %s: %s", name, mdb_strerror(rc));
    rc = mdb_txn_commit(txn);
    cr_assert_eq(rc, 0, "mdb_txn_commit: %s", mdb_strerror(rc));
    mdb_env_close(env);
}

void et_raw_del_meta(const char *dir, const char *name)
{
    MDB_env *env;
    MDB_txn *txn;
    MDB_dbi dbi;
    raw_open(dir, "meta", 0, &env, &txn, &dbi);
    MDB_val k = {strlen(name), (void *)name};
    int rc = mdb_del(txn, dbi, &k, NULL);
    cr_assert_eq(rc, 0, "mdb_del %s: %s", name, mdb_strerror(rc));
    rc = mdb_txn_commit(txn);
    cr_assert_eq(rc, 0, "mdb_txn_commit: %s", mdb_strerror(rc));
    mdb_env_close(env);
}

void et_raw_put_meta_u64(const char *dir, const char *name, uint64_t value)
{
    uint8_t b[8];
    kd_put_u64be(b, value);
    et_raw_put_meta(dir, name, b, sizeof b);
}

void et_raw_get_meta(const char *dir, const char *name, kd_buf *out)
{
    MDB_env *env;
    MDB_txn *txn;
    MDB_dbi dbi;
    raw_open(dir, "meta", 1, &env, &txn, &dbi);
    MDB_val k = {strlen(name), (void *)name}, v;
    int rc = mdb_get(txn, dbi, &k, &v);
    cr_assert_eq(rc, 0, "mdb_get %s: %s", name, mdb_strerror(rc));
    ET_ASSERT_OK(kd_buf_append(out, v.mv_data, v.mv_size));
    mdb_txn_abort(txn);
    mdb_env_close(env);
}

/* ------------------------------------------------------------------ seeds */

uint64_t et_seed(const char *test, uint64_t fallback)
{
    uint64_t seed = fallback;
    const char *env = getenv("KD_TEST_SEED");
    if (env && env[0])
        seed = strtoull(env, NULL, 0);
    cr_log_info("%s: seed %" PRIu64 " (set KD_TEST_SEED to override)", test, seed);
    fprintf(stderr, "%s: seed %" PRIu64 " (set KD_TEST_SEED to override)\n", test, seed);
    return seed;
}

/* splitmix64 */
uint64_t et_rand(uint64_t *rng)
{
    uint64_t z = (*rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

uint32_t et_below(uint64_t *rng, uint32_t n) { return (uint32_t)(et_rand(rng) % n); }
