/*
 * threads.c — the threaded scenarios of threads.h: the ticker workload,
 * readers racing a writer that grows the map (in this process or another),
 * and MCP sessions racing a writer through the gateway. Each scenario
 * owns a temporary directory under $KD_TEST_TMP and removes it.
 */
#define _XOPEN_SOURCE 700 /* nftw */
#include "threads/threads.h"

#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <jansson.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/crypto.h"
#include "engine/ingest.h"
#include "engine/logger.h"
#include "engine/sigcheck.h"
#include "engine/wire.h"
#include "episodes/tictactoe/tictactoe.h"
#include "mcp/gateway/gateway.h"
#include "mcp/server/server.h"
#include "store.pb-c.h"

#define SMALL_MAP ((size_t)64 << 10)
#define READERS 3
#define GROWTH_BLOCKS 300 /* about six doublings of SMALL_MAP with GROWTH_BULK */
#define GROWTH_BULK 48
#define GATEWAY_BLOCKS 400

__attribute__((format(printf, 2, 3))) static int fail(th_report *rep, const char *fmt, ...)
{
    if (!rep->failure[0]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(rep->failure, sizeof rep->failure, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* ---------------------------------------------------------------- files */

static int tmpdir(char *out, size_t len)
{
    const char *parent = getenv("KD_TEST_TMP");
    snprintf(out, len, "%s/threads-XXXXXX", parent && *parent ? parent : "/tmp");
    return mkdtemp(out) ? 0 : -1;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static void rmtree(const char *dir)
{
    if (dir[0])
        nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* The chain every engine here follows, which the creations' consents sign. */
#define TH_CHAIN "local:74680000000000000000000000000000"

/* An engine with tic-tac-toe registered (the registry lives beside it). */
typedef struct {
    kd_ttt_config cfg;
    kd_registry reg;
    kd_engine *engine;
} engine_env;

static int env_open(engine_env *env, const char *dir, const kd_engine_options *base, char *why, size_t why_len)
{
    memset(env, 0, sizeof *env);
    kd_registry_init(&env->reg);
    kd_err err = kd_registry_add(&env->reg, &kd_tictactoe_ops, &env->cfg);
    kd_engine_options o = *base;
    o.data_dir = dir;
    o.registry = &env->reg;
    if (!o.chain)
        o.chain = TH_CHAIN;
    if (!err)
        err = kd_engine_open(&o, &env->engine, why, why_len);
    return err ? -1 : 0;
}

/* ------------------------------------------------------------- the ticker */

static kd_err add_create(kd_buf *out, uint32_t id, int cap)
{
    kd_participants parts = {.count = 2};
    kd_key x, o;
    kd_buf params;
    kd_buf_init(&params);
    kd_err err = kd_key_test("alice", &x);
    if (!err)
        err = kd_key_test("bob", &o);
    parts.keys[0] = x.pub;
    parts.keys[1] = o.pub;
    if (!err && cap >= 0)
        err = kd_ttt_params_encode((uint32_t)cap, &params);
    kd_consent c[2]; /* both seats consent (engine/rules.c) */
    for (uint32_t i = 0; !err && i < 2; i++)
        err = kd_consent_sign(i ? &o : &x, i, TH_CHAIN, id, KD_TTT_TYPE_NAME, &parts, params.data, params.len, &c[i]);
    if (!err)
        err = kd_wire_new_episode_consented(id, KD_TTT_TYPE_NAME, &parts, params.data, params.len, c, 2, out);
    kd_buf_fini(&params);
    return err;
}

static kd_err add_move(kd_buf *out, uint32_t id, uint64_t move)
{
    uint8_t cell = (uint8_t)(move % 9), player = (uint8_t)(move % 2);
    kd_key key;
    kd_buf cmd;
    kd_buf_init(&cmd);
    kd_err err = kd_key_test(player ? "bob" : "alice", &key);
    if (!err)
        err = kd_ttt_move_encode(cell / 3, cell % 3, player, &cmd);
    if (!err)
        err = kd_wire_signed_command(id, cmd.data, cmd.len, &key, move, out);
    kd_buf_fini(&cmd);
    return err;
}

/* Block b (1-based) of the ticker into `out`. */
static kd_err ticker_block(size_t b, size_t bulk, kd_buf *out)
{
    size_t n = b == 1 ? 2 : 2 + bulk;
    kd_buf *txs = calloc(n, sizeof *txs);
    kd_wire_tx *wtx = calloc(n, sizeof *wtx);
    kd_err err = txs && wtx ? KD_OK : KD_ERR_NOMEM;
    for (size_t i = 0; !err && i < n; i++) {
        if (b == 1)
            err = add_create(&txs[i], TH_TICKER_A + (uint32_t)i, 1);
        else if (i < 2)
            err = add_move(&txs[i], TH_TICKER_A + (uint32_t)i, b - 2);
        else
            err = add_create(&txs[i], (uint32_t)(1000 + (b - 2) * bulk + (i - 2)), -1);
    }
    char name[32];
    uint8_t hash[KD_HASH_LEN];
    snprintf(name, sizeof name, "ticker-%zu", b);
    kd_sha256(name, strlen(name), hash);
    for (size_t i = 0; !err && i < n; i++) {
        uint8_t seed[KD_HASH_LEN + 4];
        memcpy(seed, hash, KD_HASH_LEN);
        kd_put_u32be(seed + KD_HASH_LEN, (uint32_t)i);
        kd_sha256(seed, sizeof seed, wtx[i].tx_id);
        wtx[i].payload = txs[i].data;
        wtx[i].payload_len = txs[i].len;
    }
    if (!err)
        err = kd_wire_accept(hash, b, 1700000000000ull + b, wtx, n, out);
    for (size_t i = 0; txs && i < n; i++)
        kd_buf_fini(&txs[i]);
    free(txs);
    free(wtx);
    return err;
}

int th_ticker_msgs(size_t n, size_t bulk, kd_buf **out, char *why, size_t why_len)
{
    kd_buf *msgs = calloc(n, sizeof *msgs);
    *out = NULL;
    if (!msgs) {
        snprintf(why, why_len, "out of memory");
        return -1;
    }
    for (size_t b = 1; b <= n; b++) {
        kd_buf_init(&msgs[b - 1]);
        kd_err err = ticker_block(b, bulk, &msgs[b - 1]);
        if (err) {
            snprintf(why, why_len, "cannot build ticker block %zu: %s", b, kd_err_code(err));
            th_msgs_free(msgs, n);
            return -1;
        }
    }
    *out = msgs;
    return 0;
}

void th_msgs_free(kd_buf *msgs, size_t n)
{
    for (size_t i = 0; msgs && i < n; i++)
        kd_buf_fini(&msgs[i]);
    free(msgs);
}

int th_ticker_check(kd_read *rd, char *why, size_t why_len)
{
    kd_tip tip;
    kd_episode_snapshot a = {0}, b = {0};
    const uint8_t *data;
    size_t len;
    Kdapp__Store__LogEntry *le = NULL;
    int ok = -1;
    kd_err err = kd_read_tip(rd, &tip);
    if (err) {
        snprintf(why, why_len, "tip: %s", kd_err_code(err));
        return -1;
    }
    if (tip.height < 1)
        return 0;
    if ((err = kd_read_episode(rd, TH_TICKER_A, &a)) || (err = kd_read_episode(rd, TH_TICKER_B, &b))) {
        snprintf(why, why_len, "height %" PRIu64 ": episode: %s", tip.height, kd_err_code(err));
        goto done;
    }
    if ((err = kd_read_log_entry(rd, a.updated_seq, &data, &len)) ||
        !(le = kdapp__store__log_entry__unpack(NULL, len, data))) {
        snprintf(why, why_len, "log entry %" PRIu64 ": %s", a.updated_seq, kd_err_code(err));
        goto done;
    }
    if (a.undo_depth != tip.height - 1 || b.undo_depth != tip.height - 1)
        snprintf(why, why_len, "height %" PRIu64 " but the episodes have %" PRIu64 " and %" PRIu64 " moves", tip.height,
                 a.undo_depth, b.undo_depth);
    else if (a.updated_seq != tip.last_seq || b.updated_seq != tip.last_seq)
        snprintf(why, why_len, "tip entry %" PRIu64 " but the episodes changed at %" PRIu64 " and %" PRIu64,
                 tip.last_seq, a.updated_seq, b.updated_seq);
    else if (le->digest.len != KD_HASH_LEN || memcmp(le->digest.data, tip.digest, KD_HASH_LEN) != 0)
        snprintf(why, why_len, "the tip digest is not the digest of entry %" PRIu64, a.updated_seq);
    else
        ok = 0;
done:
    if (le)
        kdapp__store__log_entry__free_unpacked(le, NULL);
    kd_episode_snapshot_fini(&a);
    kd_episode_snapshot_fini(&b);
    return ok;
}

/* ------------------------------------------------------------- the log */

/* Counts the store's lines about the map (growth here, adoption of
 * another process's growth); passes other warnings on to stderr (a full
 * map, which makes the writer grow it, is expected). */
static atomic_int map_lines;

static void count_sink(void *ctx, kd_log_level level, const char *subsystem, const char *line)
{
    (void)ctx;
    if (strcmp(subsystem, "store") == 0 && strstr(line, "grown"))
        atomic_fetch_add(&map_lines, 1);
    if (level <= KD_LOG_WARN && !strstr(line, "MDB_MAP_FULL"))
        fprintf(stderr, "[%s] %s\n", subsystem, line);
}

/* -------------------------------------------------------- starting gate */

/* Threads that have answered once; the writer starts when all have, so
 * that every commit races them (a wait on a condition, not on time). */
typedef struct {
    atomic_int stop;
    atomic_int started;
} gate;

static void gate_wait(gate *g, int n)
{
    while (atomic_load(&g->started) < n)
        sched_yield();
}

/* ------------------------------------------------------------ map growth */

typedef struct {
    kd_engine *engine;
    gate *gate;
    pthread_t thread;
    uint64_t reads, last_height;
    char failure[300];
} reader;

static void *read_loop(void *arg)
{
    reader *r = arg;
    int first = 1;
    while (!r->failure[0]) {
        int last = atomic_load(&r->gate->stop); /* one more read after the writer is done */
        kd_read *rd;
        kd_tip tip;
        char why[256];
        kd_err err = kd_engine_read_begin(r->engine, &rd);
        if (err) {
            snprintf(r->failure, sizeof r->failure, "read %" PRIu64 ": begin: %s", r->reads, kd_err_code(err));
            break;
        }
        if (th_ticker_check(rd, why, sizeof why) != 0)
            snprintf(r->failure, sizeof r->failure, "read %" PRIu64 ": %s", r->reads, why);
        else if (kd_read_tip(rd, &tip) == KD_OK)
            r->last_height = tip.height;
        kd_engine_read_end(rd);
        r->reads++;
        if (first)
            atomic_fetch_add(&r->gate->started, 1);
        first = 0;
        if (last)
            break;
    }
    if (first)
        atomic_fetch_add(&r->gate->started, 1); /* failed at once: do not hold the writer */
    return NULL;
}

/* Applies every block on this thread; 0, or -1 with the reason. */
static int apply_all(kd_engine *engine, const kd_buf *msgs, size_t n, size_t from, th_report *rep)
{
    for (size_t b = from; b < n; b++) {
        kd_msg_result res;
        kd_err err = kd_engine_ingest(engine, msgs[b].data, msgs[b].len, &res);
        int ok = !err && res.status == KD_MSG_APPLIED;
        if (!ok)
            fail(rep, "block %zu: %s (%s)", b + 1, kd_err_code(err), res.detail);
        kd_msg_result_fini(&res);
        if (!ok)
            return -1;
    }
    return 0;
}

/* The writer process: opens the store with a small map, applies block 1,
 * says so on `ready`, waits for `go`, applies the rest. Never returns. */
static void writer_process(const char *dir, const kd_buf *msgs, int ready, int go)
{
    engine_env env;
    th_report rep = {0};
    char why[256] = "", byte = 0;
    kd_engine_options o = {.map_size = SMALL_MAP, .durability = KD_DURABILITY_RELAXED};
    if (env_open(&env, dir, &o, why, sizeof why) != 0) {
        fprintf(stderr, "writer: open: %s\n", why);
        _exit(2);
    }
    int code = 0;
    if (apply_all(env.engine, msgs, 1, 0, &rep) != 0)
        code = 3;
    else if (write(ready, "r", 1) != 1 || read(go, &byte, 1) != 1)
        code = 4;
    else if (apply_all(env.engine, msgs, GROWTH_BLOCKS, 1, &rep) != 0)
        code = 3;
    if (rep.failure[0])
        fprintf(stderr, "writer: %s\n", rep.failure);
    kd_engine_close(env.engine);
    _exit(code);
}

/* Starts the readers, waits until each has read once, runs `write`,
 * stops and joins them, and reports. */
static int race_readers(kd_engine *engine, th_report *rep, int (*write)(void *ctx, th_report *rep), void *ctx)
{
    gate g = {0};
    reader rs[READERS];
    int started = 0;
    for (; started < READERS; started++) {
        rs[started] = (reader){.engine = engine, .gate = &g};
        if (pthread_create(&rs[started].thread, NULL, read_loop, &rs[started]) != 0)
            break;
    }
    int rc = started == READERS ? 0 : fail(rep, "cannot start reader %d", started);
    if (!rc) {
        gate_wait(&g, READERS);
        rc = write(ctx, rep);
    }
    atomic_store(&g.stop, 1);
    for (int i = 0; i < started; i++) {
        pthread_join(rs[i].thread, NULL);
        rep->answers += rs[i].reads;
        rep->last_height = rs[i].last_height;
        if (rs[i].failure[0])
            rc = fail(rep, "reader %d: %s", i, rs[i].failure);
    }
    return rc;
}

typedef struct {
    kd_engine *engine; /* this process writes */
    const kd_buf *msgs;
    pid_t pid; /* another process writes */
    int go;
} writer;

/* Applies every block as the ingest server does: requests of a few
 * blocks each, their signatures verified ahead of the writer by a pool of
 * verifier threads (engine/sigcheck.h), so those race too. */
static int write_here(void *ctx, th_report *rep)
{
    enum { PER_REQUEST = 4 };
    writer *w = ctx;
    kd_sig_pool *pool = NULL;
    kd_buf frame, reply;
    kd_buf_init(&frame);
    kd_buf_init(&reply);
    int rc = kd_sig_pool_alloc(0, &pool) == KD_OK ? 0 : fail(rep, "cannot start the signature pool");
    for (size_t b = 0; !rc && b < GROWTH_BLOCKS; b += PER_REQUEST) {
        size_t n = GROWTH_BLOCKS - b < PER_REQUEST ? GROWTH_BLOCKS - b : PER_REQUEST;
        kd_ingest_reply r = {0};
        frame.len = reply.len = 0;
        kd_err err = kd_ingest_request_pack(&w->msgs[b], n, &frame);
        if (!err)
            err = kd_ingest_handle_pooled(w->engine, pool, frame.data, frame.len, &reply, NULL);
        if (!err)
            err = kd_ingest_reply_unpack(reply.data, reply.len, &r);
        if (err || r.err || r.count != n)
            rc = fail(rep, "blocks %zu..%zu: %s %s (%s)", b + 1, b + n, kd_err_code(err), kd_err_code(r.err), r.detail);
        for (size_t i = 0; !rc && i < r.count; i++)
            if (r.results[i].status != KD_MSG_APPLIED)
                rc = fail(rep, "block %zu: %s", b + i + 1, r.results[i].detail);
        kd_ingest_reply_fini(&r);
    }
    kd_sig_pool_free(pool);
    kd_buf_fini(&frame);
    kd_buf_fini(&reply);
    return rc;
}

static int write_there(void *ctx, th_report *rep)
{
    writer *w = ctx;
    int status = 0;
    if (write(w->go, "g", 1) != 1 || waitpid(w->pid, &status, 0) != w->pid)
        return fail(rep, "lost the writer process: %s", strerror(errno));
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return fail(rep, "the writer process failed (status %d)", status);
    return 0;
}

int th_map_growth(int other_process, th_report *rep)
{
    memset(rep, 0, sizeof *rep);
    char dir[512] = "", why[256] = "", byte = 0;
    kd_buf *msgs = NULL;
    engine_env env = {0};
    writer w = {.pid = -1};
    int ready[2] = {-1, -1}, go[2] = {-1, -1};
    kd_log_level level = kd_log_get_level();
    atomic_store(&map_lines, 0);
    kd_log_set_sink(count_sink, NULL); /* before any thread */
    kd_log_set_level(KD_LOG_INFO);
    int rc = tmpdir(dir, sizeof dir) == 0 ? 0 : fail(rep, "cannot make a directory: %s", strerror(errno));
    if (!rc && th_ticker_msgs(GROWTH_BLOCKS, GROWTH_BULK, &msgs, why, sizeof why) != 0)
        rc = fail(rep, "%s", why);
    if (!rc && other_process) {
        if (pipe(ready) != 0 || pipe(go) != 0 || (w.pid = fork()) < 0)
            rc = fail(rep, "cannot start the writer process: %s", strerror(errno));
        else if (w.pid == 0)
            writer_process(dir, msgs, ready[1], go[0]);
        else if (read(ready[0], &byte, 1) != 1)
            rc = fail(rep, "the writer process did not open the store");
        w.go = go[1];
    }
    /* Readers of another process's store open it read-only with a map as
     * small as the writer's first: each time the writer's data outgrows
     * it, LMDB answers MDB_MAP_RESIZED and a reader adopts the new size. */
    kd_engine_options o = {.map_size = SMALL_MAP, .durability = KD_DURABILITY_RELAXED, .read_only = other_process};
    if (!rc && env_open(&env, dir, &o, why, sizeof why) != 0)
        rc = fail(rep, "open: %s", why);
    w.engine = env.engine;
    w.msgs = msgs;
    if (!rc)
        rc = race_readers(env.engine, rep, other_process ? write_there : write_here, &w);
    if (!rc && rep->last_height != GROWTH_BLOCKS)
        rc = fail(rep, "the last read saw height %" PRIu64 ", not %d", rep->last_height, GROWTH_BLOCKS);
    rep->map_changes = atomic_load(&map_lines);
    if (!rc && rep->map_changes < 3)
        rc = fail(rep, "the map changed %d times; the scenario wants at least 3", rep->map_changes);
    if (w.pid > 0 && rc) {
        kill(w.pid, SIGKILL);
        waitpid(w.pid, NULL, 0);
    }
    for (int i = 0; i < 2; i++) {
        if (ready[i] >= 0)
            close(ready[i]);
        if (go[i] >= 0)
            close(go[i]);
    }
    kd_engine_close(env.engine);
    th_msgs_free(msgs, GROWTH_BLOCKS);
    kd_log_set_sink(NULL, NULL);
    kd_log_set_level(level);
    rmtree(dir);
    return rc;
}

/* -------------------------------------------------------- gateway views */

typedef struct {
    kd_engine *engine;
    kd_mcp_session *s;
    gate *gate;
    int next_id;
    pthread_t thread;
    uint64_t rounds;
    json_int_t last_seq; /* the newest log position this session was answered at */
    char failure[400];
} asker;

/* Sends one request; returns its "result" (new reference) or NULL. */
static json_t *call(asker *a, const char *method, json_t *params)
{
    json_t *req =
        json_pack("{s:s, s:i, s:s, s:o}", "jsonrpc", "2.0", "id", a->next_id++, "method", method, "params", params);
    char *text = req ? json_dumps(req, JSON_COMPACT) : NULL;
    json_decref(req);
    char *reply = NULL;
    json_t *result = NULL;
    if (text && kd_mcp_session_handle(a->s, text, strlen(text), &reply) == KD_OK && reply) {
        json_t *r = json_loads(reply, 0, NULL);
        result = json_incref(json_object_get(r, "result"));
        if (!result)
            snprintf(a->failure, sizeof a->failure, "%s: %.300s", method, reply);
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
    char want[2 * KD_HASH_LEN + 1] = "";
    uint64_t height = 0;
    if (kd_engine_read_begin(a->engine, &rd) == KD_OK) {
        Kdapp__Store__LogEntry *le = NULL;
        if (kd_read_log_entry(rd, (uint64_t)seq, &data, &len) == KD_OK &&
            (le = kdapp__store__log_entry__unpack(NULL, len, data)) && le->digest.len == KD_HASH_LEN) {
            kd_hex_encode(le->digest.data, KD_HASH_LEN, want);
            height = le->tip_height;
        }
        if (le)
            kdapp__store__log_entry__free_unpacked(le, NULL);
        kd_engine_read_end(rd);
    }
    if (digest && strcmp(digest, want) == 0 && (uint64_t)moves + 1 == height)
        return 1;
    snprintf(a->failure, sizeof a->failure,
             "%s, round %" PRIu64 ": log seq %lld, %lld moves, digest %.16s; the log says height %" PRIu64
             ", digest %.16s",
             what, a->rounds, (long long)seq, (long long)moves, digest ? digest : "(none)", height, want);
    return 0;
}

/* The state tool on episode 1, whose answers the gateway keeps by log
 * position and shares between the sessions: true for its position, and
 * never older than one this session was given before (an answer kept for
 * an older position, served after a newer one was read, would be). */
static int ask_state(asker *a)
{
    json_t *r = call(a, "tools/call",
                     json_pack("{s:s, s:{s:i}}", "name", "kdapp_get_episode_state", "arguments", "episode_id", 1));
    json_t *sc = json_object_get(r, "structuredContent");
    json_int_t seq = json_integer_value(json_object_get(sc, "log_seq"));
    int ok = r && view_true(a, sc, "kdapp_get_episode_state");
    if (ok && seq < a->last_seq) {
        snprintf(a->failure, sizeof a->failure,
                 "kdapp_get_episode_state, round %" PRIu64 ": log seq %lld after %lld: an older position", a->rounds,
                 (long long)seq, (long long)a->last_seq);
        ok = 0;
    }
    if (ok)
        a->last_seq = seq;
    json_decref(r);
    return ok;
}

/* One round: the state tool twice and the strategy context (kept answers),
 * the resource, the list. */
static void ask_round(asker *a)
{
    int ok = ask_state(a) && ask_state(a);
    json_t *r =
        ok ? call(a, "tools/call",
                  json_pack("{s:s, s:{s:i}}", "name", "kdapp_get_strategy_context", "arguments", "episode_id", 1))
           : NULL;
    if (ok && (!r || json_is_true(json_object_get(r, "isError")))) {
        if (r)
            snprintf(a->failure, sizeof a->failure, "kdapp_get_strategy_context, round %" PRIu64 ": an error",
                     a->rounds);
        ok = 0;
    }
    json_decref(r);
    r = ok ? call(a, "resources/read", json_pack("{s:s}", "uri", "kdapp://episodes/2")) : NULL;
    const char *text = json_string_value(json_object_get(json_array_get(json_object_get(r, "contents"), 0), "text"));
    json_t *view = text ? json_loads(text, 0, NULL) : NULL;
    ok = r && view_true(a, view, "resource kdapp://episodes/2");
    json_decref(view);
    json_decref(r);
    r = ok ? call(a, "tools/call", json_pack("{s:s, s:{}}", "name", "kdapp_list_episodes", "arguments")) : NULL;
    json_t *eps = json_object_get(json_object_get(r, "structuredContent"), "episodes");
    json_int_t m1 = json_integer_value(json_object_get(json_array_get(eps, 0), "move_count"));
    json_int_t m2 = json_integer_value(json_object_get(json_array_get(eps, 1), "move_count"));
    if (r && (json_array_size(eps) != 2 || m1 != m2))
        snprintf(a->failure, sizeof a->failure,
                 "kdapp_list_episodes, round %" PRIu64 ": one page lists %zu episodes with %lld and %lld moves",
                 a->rounds, json_array_size(eps), (long long)m1, (long long)m2);
    json_decref(r);
    a->rounds++;
}

static void *ask_loop(void *arg)
{
    static const char initialized[] = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";
    asker *a = arg;
    char *reply = NULL;
    json_decref(call(a, "initialize",
                     json_pack("{s:s, s:{}, s:{s:s, s:s}}", "protocolVersion", KD_MCP_PROTOCOL_LATEST, "capabilities",
                               "clientInfo", "name", "threads", "version", "1")));
    if (kd_mcp_session_handle(a->s, initialized, strlen(initialized), &reply) != KD_OK)
        snprintf(a->failure, sizeof a->failure, "notifications/initialized failed");
    free(reply);
    atomic_fetch_add(&a->gate->started, 1);
    while (!a->failure[0]) {
        int last = atomic_load(&a->gate->stop); /* one more round after the last block */
        ask_round(a);
        if (last)
            break;
    }
    return NULL;
}

static kd_err refuse_submit(void *ctx, const uint8_t *payload, size_t len, const kd_gateway_spend *spend,
                            uint8_t tx_id[KD_HASH_LEN], char *why, size_t why_len)
{
    (void)spend;
    (void)ctx, (void)payload, (void)len;
    memset(tx_id, 0, KD_HASH_LEN);
    snprintf(why, why_len, "this scenario submits nothing");
    return KD_ERR_UNSUPPORTED;
}

/* Runs the sessions against `gw` while this thread applies the blocks. */
static int race_sessions(engine_env *env, kd_mcp_server *srv, const kd_buf *msgs, th_report *rep)
{
    gate g = {0};
    asker as[READERS];
    int started = 0;
    int rc = apply_all(env->engine, msgs, 1, 0, rep); /* the episodes exist before anyone asks */
    for (; !rc && started < READERS; started++) {
        as[started] = (asker){.engine = env->engine, .gate = &g, .next_id = 1};
        if (kd_mcp_session_alloc(srv, NULL, NULL, &as[started].s) != KD_OK ||
            pthread_create(&as[started].thread, NULL, ask_loop, &as[started]) != 0) {
            kd_mcp_session_free(as[started].s);
            rc = fail(rep, "cannot start MCP session %d", started);
            break;
        }
    }
    if (!rc) {
        gate_wait(&g, READERS);
        rc = apply_all(env->engine, msgs, GATEWAY_BLOCKS, 1, rep);
    }
    atomic_store(&g.stop, 1);
    for (int i = 0; i < started; i++) {
        pthread_join(as[i].thread, NULL);
        kd_mcp_session_free(as[i].s);
        rep->answers += as[i].rounds;
        if (as[i].failure[0])
            rc = fail(rep, "session %d: %s", i, as[i].failure);
    }
    return rc;
}

int th_gateway_views(th_report *rep)
{
    memset(rep, 0, sizeof *rep);
    char dir[512] = "", keys[512] = "", url[128], why[256] = "";
    kd_buf *msgs = NULL;
    engine_env env = {0};
    kd_mcp_server *srv = NULL;
    kd_gateway *gw = NULL;
    kd_mcp_server_options so = {
        .name = "kdapp-threads",
        .version = "0",
        .calls_per_second = 1000000,
        .call_burst = 1000000,
    };
    kd_engine_options o = {.durability = KD_DURABILITY_RELAXED};
    int rc = tmpdir(dir, sizeof dir) == 0 && tmpdir(keys, sizeof keys) == 0
                 ? 0
                 : fail(rep, "cannot make a directory: %s", strerror(errno));
    if (!rc && th_ticker_msgs(GATEWAY_BLOCKS, 0, &msgs, why, sizeof why) != 0)
        rc = fail(rep, "%s", why);
    if (!rc && env_open(&env, dir, &o, why, sizeof why) != 0)
        rc = fail(rep, "open: %s", why);
    if (!rc && kd_mcp_server_alloc(&so, &srv) != KD_OK)
        rc = fail(rep, "cannot create the MCP server");
    snprintf(url, sizeof url, "inproc://kd-threads-%d", (int)getpid());
    kd_gateway_options go = {
        .engine = env.engine,
        .views_url = url,
        .keys_dir = keys,
        .chain = {.submit = refuse_submit},
    };
    if (!rc && kd_gateway_open(&go, srv, &gw, why, sizeof why) != KD_OK)
        rc = fail(rep, "gateway: %s", why);
    if (!rc)
        rc = race_sessions(&env, srv, msgs, rep);
    kd_gateway_close(gw);
    kd_mcp_server_free(srv);
    kd_engine_close(env.engine);
    th_msgs_free(msgs, GATEWAY_BLOCKS);
    rmtree(keys);
    rmtree(dir);
    return rc;
}
