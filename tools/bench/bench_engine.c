/*
 * bench_engine.c — the engine scenarios of `kdapp bench`:
 *
 *   ingest   signed moves through a real `kdapp engine` daemon (blocks of
 *            100 moves over many episodes, each block synced), against
 *            libsecp256k1's full check from bytes on every core;
 *   replay   `kdapp replay` of that store (pre-verified), against raw
 *            LMDB transactions of the same shape, synced per block;
 *   revert   reverting the tip block (100 moves), against applying the
 *            same block;
 *   latency  block commit p50/p99, against a raw synced LMDB put;
 *   sim      `kdapp sim` steps, reorgs and rollbacks per second;
 *   soak     (--soak) memory and file size over time with pruning on.
 */
#include <errno.h>
#include <fcntl.h>
#include <lmdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/crypto.h"
#include "engine/netutil.h"
#include "engine/wire.h"
#include "episodes/episode_type.h"
#include "handlers/ratings.h"
#include "kdapp.pb-c.h"
#include "tools/bench/bench.h"
#include "tools/bench/bench_episode.h"
#include "tools/bench/bench_proc.h"
#include "tools/chain/ingest_client.h"
#include "tools/sim/replay.h"
#include "tools/sim/sim.h"

#define MOVES_PER_BLOCK 100
#define EPISODES 64
#define N_KEYS 8
#define BLOCKS_PER_REQUEST 10

/* ------------------------------------------------------------ workload */

typedef struct {
    kd_buf *blocks; /* encoded EngineMsg accepts; blocks[0] creates the episodes */
    size_t n_blocks;
    size_t moves;      /* signed moves in blocks[1..] */
    kd_buf *moves_raw; /* every signed move payload, for the verify baseline */
    uint32_t *move_ep;
    uint64_t *move_counter;
    size_t n_raw;
} workload;

static void workload_fini(workload *w)
{
    for (size_t i = 0; i < w->n_blocks; i++)
        kd_buf_fini(&w->blocks[i]);
    for (size_t i = 0; i < w->n_raw; i++)
        kd_buf_fini(&w->moves_raw[i]);
    free(w->blocks);
    free(w->moves_raw);
    free(w->move_ep);
    free(w->move_counter);
    memset(w, 0, sizeof *w);
}

static uint64_t next_rand(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

/* One game of the workload: its state (ops->state_size bytes, owned). */
typedef struct {
    uint32_t id;
    uint8_t *state;
    uint64_t counter;
    int key[KD_MAX_PARTICIPANTS]; /* index into keys per seat */
    size_t seats;
} bench_ep;

/* (Re)creates game `ep` from `params` (the NewEpisode bytes) and
 * appends its creation payload. */
static kd_err bench_create(const kd_bench_ctx *b, bench_ep *ep, uint32_t id, uint64_t *rng, const kd_key *keys,
                           const kd_buf *params, kd_buf *payload)
{
    ep->id = id;
    ep->counter = 0;
    ep->seats = kd_bench_seats(b->type);
    kd_key seats[KD_MAX_PARTICIPANTS];
    int first = (int)(next_rand(rng) % N_KEYS);
    for (size_t i = 0; i < ep->seats; i++) {
        ep->key[i] = (first + (int)i) % N_KEYS;
        seats[i] = keys[ep->key[i]];
    }
    return kd_bench_episode_create(b->types, b->type, params, id, seats, ep->seats, KD_BENCH_CHAIN, ep->state, payload);
}

/* Legal random moves (the type's random_command) over EPISODES games of
 * b->type created with b->params (NULL: the engine defaults from the
 * environment); a game that ends is replaced by a new episode in the next
 * block. */
static kd_err make_workload(const kd_bench_ctx *b_ctx, size_t n_blocks, uint32_t id_base, const char *tag, workload *w)
{
    memset(w, 0, sizeof *w);
    const kd_episode_type *type = b_ctx->type;
    const kd_episode_ops *ops = type->ops;
    kd_key keys[N_KEYS];
    kd_err err = KD_OK;
    for (int i = 0; i < N_KEYS && !err; i++) {
        char name[16];
        snprintf(name, sizeof name, "bench%d", i);
        err = kd_key_test(name, &keys[i]);
    }
    size_t max_raw = n_blocks * MOVES_PER_BLOCK;
    w->blocks = calloc(n_blocks, sizeof *w->blocks);
    w->moves_raw = calloc(max_raw, sizeof *w->moves_raw);
    w->move_ep = calloc(max_raw, sizeof *w->move_ep);
    w->move_counter = calloc(max_raw, sizeof *w->move_counter);
    kd_wire_tx *txs = calloc(MOVES_PER_BLOCK + EPISODES, sizeof *txs);
    kd_buf *payloads = calloc(MOVES_PER_BLOCK + EPISODES, sizeof *payloads);
    bench_ep eps[EPISODES] = {{0}};
    uint8_t *states = calloc(EPISODES, kd_record_stride(ops->state_size));
    void *undo = calloc(1, ops->undo_size ? ops->undo_size : 1);
    kd_buf params, cmd;
    kd_buf_init(&params);
    kd_buf_init(&cmd);
    if (err || !w->blocks || !w->moves_raw || !w->move_ep || !w->move_counter || !txs || !payloads || !states ||
        !undo) {
        err = err ? err : KD_ERR_NOMEM;
        goto done;
    }
    for (size_t e = 0; e < EPISODES; e++)
        eps[e].state = states + e * kd_record_stride(ops->state_size);
    uint64_t rng = 0x9E3779B97F4A7C15ULL ^ id_base;
    uint32_t next_id = id_base;
    char why[KD_REJECT_DETAIL_MAX];
    if ((err = type->params_from_json(b_ctx->params, &params, why, sizeof why)))
        goto done;
    uint8_t zero[KD_HASH_LEN] = {0};
    for (size_t b = 0; b < n_blocks && !err; b++) {
        size_t n_tx = 0;
        for (size_t i = 0; i < MOVES_PER_BLOCK + EPISODES; i++)
            kd_buf_init(&payloads[i]), payloads[i].len = 0;
        for (size_t e = 0; e < EPISODES && !err; e++) {
            if (b != 0 && type->status(eps[e].state).phase == KD_PHASE_IN_PROGRESS)
                continue;
            err = bench_create(b_ctx, &eps[e], next_id++, &rng, keys, &params, &payloads[n_tx]);
            n_tx++;
        }
        for (size_t k = 0; b > 0 && k < MOVES_PER_BLOCK && !err; k++) {
            size_t e = (b * MOVES_PER_BLOCK + k) % EPISODES;
            kd_game_status st = type->status(eps[e].state);
            if (st.phase != KD_PHASE_IN_PROGRESS)
                continue;
            int seat = st.to_move != KD_SEAT_NONE ? st.to_move : (int)(next_rand(&rng) % eps[e].seats);
            const kd_key *key = &keys[eps[e].key[seat]];
            kd_block_meta meta = {.block_hash = zero, .tx_id = zero, .episode_id = eps[e].id};
            kd_reject rej;
            cmd.len = 0;
            err = type->random_command(eps[e].state, seat, 1, &rng, &cmd);
            if (err == KD_ERR_NO_MOVE) { /* this seat has no move: another turn */
                err = KD_OK;
                continue;
            }
            if (err ||
                (err = kd_wire_signed_command(eps[e].id, cmd.data, cmd.len, key, eps[e].counter, &payloads[n_tx])) ||
                (err = ops->execute(eps[e].state, cmd.data, cmd.len, &key->pub, &meta, undo, &rej)))
                break;
            kd_buf_init(&w->moves_raw[w->n_raw]);
            err = kd_buf_append(&w->moves_raw[w->n_raw], payloads[n_tx].data, payloads[n_tx].len);
            w->move_ep[w->n_raw] = eps[e].id;
            w->move_counter[w->n_raw] = eps[e].counter++;
            w->n_raw++;
            n_tx++;
            w->moves++;
        }
        for (size_t i = 0; i < n_tx; i++) {
            char text[96];
            int n = snprintf(text, sizeof text, "bench/%s/tx/%zu/%zu", tag, b, i);
            kd_sha256(text, (size_t)n, txs[i].tx_id);
            txs[i].payload = payloads[i].data;
            txs[i].payload_len = payloads[i].len;
        }
        uint8_t hash[KD_HASH_LEN];
        char text[64];
        int n = snprintf(text, sizeof text, "bench/%s/block/%zu", tag, b);
        kd_sha256(text, (size_t)n, hash);
        kd_buf_init(&w->blocks[b]);
        if (!err)
            err = kd_wire_accept(hash, b + 1, kd_wall_ms(), txs, n_tx, &w->blocks[b]);
        w->n_blocks = b + 1;
        for (size_t i = 0; i < MOVES_PER_BLOCK + EPISODES; i++)
            kd_buf_fini(&payloads[i]);
    }
done:
    kd_buf_fini(&params);
    kd_buf_fini(&cmd);
    free(undo);
    free(states);
    free(txs);
    free(payloads);
    if (err)
        workload_fini(w);
    return err;
}

/* ---------------------------------------------------------- scenario 1 */

typedef struct {
    const workload *w;
    size_t from, to;
} verify_slice;

static void *verify_slice_run(void *arg)
{
    verify_slice *s = arg;
    for (size_t i = s->from; i < s->to; i++) {
        const kd_buf *p = &s->w->moves_raw[i];
        Kdapp__EpisodeMessage *em = kdapp__episode_message__unpack(NULL, p->len, p->data);
        if (!em)
            continue;
        const Kdapp__SignedCommand *sc = em->signed_command;
        uint8_t digest[KD_HASH_LEN];
        kd_pubkey pk;
        kd_command_digest(em->episode_id, s->w->move_counter[i], sc->command.data, sc->command.len, digest);
        memcpy(pk.bytes, sc->pubkey.data, KD_PUBKEY_LEN);
        if (kd_sig_verify(&pk, digest, sc->signature.data, sc->signature.len) != KD_OK)
            abort(); /* the workload is broken: never measure a lie */
        kdapp__episode_message__free_unpacked(em, NULL);
    }
    return NULL;
}

/* libsecp256k1's full check from bytes, on every core: moves/s. */
static double verify_baseline(const workload *w)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (cores < 1 || cores > 64)
        cores = 1;
    pthread_t th[64];
    verify_slice sl[64];
    int started[64];
    uint64_t t0 = kd_now_us();
    for (long i = 0; i < cores; i++) {
        sl[i] = (verify_slice){w, w->n_raw * (size_t)i / (size_t)cores, w->n_raw * (size_t)(i + 1) / (size_t)cores};
        started[i] = pthread_create(&th[i], NULL, verify_slice_run, &sl[i]) == 0;
        if (!started[i]) /* no thread to spare: verify this slice here, still counted */
            verify_slice_run(&sl[i]);
    }
    for (long i = 0; i < cores; i++)
        if (started[i])
            pthread_join(th[i], NULL);
    return (double)w->n_raw / ((double)(kd_now_us() - t0) / 1e6);
}

/* Feeds the workload to a fresh `kdapp engine`: moves/s. Leaves the data
 * directory in `dir` (for the replay scenario). */
static kd_err ingest_run(const kd_bench_ctx *b, const workload *w, char *dir, size_t dir_len, double *rate,
                         unsigned long *rss_kb)
{
    if (kd_bench_mkdtemp(b, "ingest", dir, dir_len))
        return KD_ERR_IO;
    char data[4400], url_in[4400], url_pub[4400];
    snprintf(data, sizeof data, "%s/data", dir);
    snprintf(url_in, sizeof url_in, "ipc://%s/in.ipc", dir);
    snprintf(url_pub, sizeof url_pub, "ipc://%s/pub.ipc", dir);
    char *args[] = {(char *)b->kdapp_path, "engine", "--data",  data,           "--ingest", url_in,
                    "--publish",           url_pub,  "--chain", KD_BENCH_CHAIN, NULL};
    kd_bench_proc daemon;
    if (kd_bench_proc_spawn(&daemon, args, NULL, NULL, 0) != 0)
        return KD_ERR_IO;
    kd_ingest_client *c = NULL;
    char why[256];
    kd_err err = kd_ingest_client_open(url_in, 60000, &c, why, sizeof why);
    kd_ingest_reply rep;
    if (!err && !(err = kd_ingest_client_send(c, &w->blocks[0], 1, &rep)))
        kd_ingest_reply_fini(&rep);
    uint64_t t0 = kd_now_us();
    for (size_t i = 1; !err && i < w->n_blocks; i += BLOCKS_PER_REQUEST) {
        size_t n = w->n_blocks - i < BLOCKS_PER_REQUEST ? w->n_blocks - i : BLOCKS_PER_REQUEST;
        if (!(err = kd_ingest_client_send(c, &w->blocks[i], n, &rep))) {
            for (size_t k = 0; k < rep.count; k++)
                for (size_t t = 0; t < rep.results[k].tx_count; t++)
                    if (!rep.results[k].txs[t].applied)
                        err = KD_ERR_INTERNAL; /* every move of the workload is legal */
            kd_ingest_reply_fini(&rep);
        }
    }
    *rate = (double)w->moves / ((double)(kd_now_us() - t0) / 1e6);
    *rss_kb = kd_bench_peak_rss_kb(daemon.pid);
    kd_ingest_client_close(c);
    kd_bench_proc_stop(&daemon, 1);
    return err;
}

/* ---------------------------------------------------------- scenario 2 */

/* Raw LMDB, the same shape per move: state rewrite, log append, undo
 * append; one synced transaction per block, for at least `min_s` seconds.
 * moves/s, or 0 when LMDB failed. */
static double raw_lmdb_rate(const kd_bench_ctx *b, double min_s, size_t moves_per_block)
{
    char dir[4200];
    if (kd_bench_mkdtemp(b, "raw", dir, sizeof dir))
        return 0;
    MDB_env *env;
    MDB_dbi state, log, undo;
    MDB_txn *txn;
    double rate = 0;
    if (mdb_env_create(&env) != 0)
        goto done;
    mdb_env_set_maxdbs(env, 4);
    mdb_env_set_mapsize(env, (size_t)1 << 30);
    if (mdb_env_open(env, dir, 0, 0600) == 0 && mdb_txn_begin(env, NULL, 0, &txn) == 0) {
        mdb_dbi_open(txn, "state", MDB_CREATE, &state);
        mdb_dbi_open(txn, "log", MDB_CREATE, &log);
        mdb_dbi_open(txn, "undo", MDB_CREATE, &undo);
        mdb_txn_commit(txn);
        uint8_t st[110], entry[260], rec[10];
        memset(st, 7, sizeof st);
        memset(entry, 9, sizeof entry);
        memset(rec, 3, sizeof rec);
        uint64_t seq = 0;
        double t0 = kd_bench_now(), t = t0;
        size_t blocks = 0;
        for (; t - t0 < min_s; t = kd_bench_now(), blocks++) {
            if (mdb_txn_begin(env, NULL, 0, &txn))
                break;
            for (size_t m = 0; m < moves_per_block; m++) {
                uint8_t k4[4], k8[8], k12[12];
                kd_put_u32be(k4, (uint32_t)(m % EPISODES));
                kd_put_u64be(k8, ++seq);
                kd_put_u32be(k12, (uint32_t)(m % EPISODES));
                kd_put_u64be(k12 + 4, seq);
                MDB_val a = {4, k4}, av = {sizeof st, st}, l = {8, k8}, lv = {sizeof entry, entry}, u = {12, k12},
                        uv = {sizeof rec, rec};
                mdb_put(txn, state, &a, &av, 0);
                mdb_put(txn, log, &l, &lv, MDB_APPEND);
                mdb_put(txn, undo, &u, &uv, 0);
            }
            if (mdb_txn_commit(txn))
                break;
        }
        rate = t > t0 ? (double)(blocks * moves_per_block) / (t - t0) : 0;
    }
    mdb_env_close(env);
done:
    kd_remove_tree(dir);
    return rate;
}

static kd_err open_engine(const kd_bench_ctx *b, const char *dir, kd_registry *reg, kd_engine **out);

/* What `kdapp replay` does (kd_replay_log with the log's signature
 * verdicts trusted), timed in process: moves/s. */
static double replay_rate(const kd_bench_ctx *b, const char *ingest_dir, size_t moves)
{
    char data[4400], into[4400];
    snprintf(data, sizeof data, "%s/data", ingest_dir);
    snprintf(into, sizeof into, "%s/replayed", ingest_dir);
    kd_remove_tree(into);
    kd_registry rs, rd;
    kd_engine *src = NULL, *dst = NULL;
    double rate = 0;
    if (open_engine(b, data, &rs, &src) == KD_OK && open_engine(b, into, &rd, &dst) == KD_OK) {
        kd_engine_trust_replayed_signatures(dst, 1);
        kd_replay_report rep;
        uint64_t t0 = kd_now_us();
        if (kd_replay_log(src, dst, 0, &rep) == KD_OK && kd_replay_ok(&rep))
            rate = (double)moves / ((double)(kd_now_us() - t0) / 1e6);
    }
    kd_engine_close(dst);
    kd_engine_close(src);
    kd_remove_tree(into);
    return rate;
}

/* ------------------------------------------------------ scenarios 3 and 4 */

/* An engine with the table's types and their defaults from the environment. */
static kd_err open_engine(const kd_bench_ctx *b, const char *dir, kd_registry *reg, kd_engine **out)
{
    kd_registry_init(reg);
    kd_err err = kd_type_table_registry(b->types, reg);
    kd_engine_options o = {.data_dir = dir, .registry = reg, .chain = KD_BENCH_CHAIN};
    char why[256];
    return err ? err : kd_engine_open(&o, out, why, sizeof why);
}

static kd_err ingest_timed(kd_engine *e, const kd_buf *msg, double *us)
{
    kd_msg_result r;
    uint64_t t0 = kd_now_us();
    kd_err err = kd_engine_ingest(e, msg->data, msg->len, &r);
    *us = (double)(kd_now_us() - t0);
    if (!err && r.status != KD_MSG_APPLIED)
        err = KD_ERR_INTERNAL;
    kd_msg_result_fini(&r);
    return err;
}

/* The tip block applied and reverted on one engine, timing the apply
 * (side 1 of the revert comparison, side 0 of the commit comparison) or
 * the revert. */
typedef struct {
    const kd_bench_ctx *b;
    kd_engine *e;
    const kd_buf *block, *revert;
    MDB_env *raw; /* the commit floor's LMDB */
    MDB_dbi raw_dbi;
    uint64_t raw_seq;
    double *lat;
    size_t cap;
} tip_ctx;

static int tip_grow(tip_ctx *t, size_t n)
{
    if (n < t->cap)
        return 0;
    size_t cap = t->cap ? 2 * t->cap : 1024;
    double *nl = realloc(t->lat, cap * sizeof *nl);
    if (!nl)
        return -1;
    t->lat = nl, t->cap = cap;
    return 0;
}

/* Apply then revert the tip block for b->run_s; into t->lat the revert's
 * (timed_revert) or the apply's time, or the apply's LMDB commit time
 * (commit). The count, or 0 with `why`. */
static size_t tip_cycles(tip_ctx *t, int timed_revert, int commit, char *why, size_t why_len)
{
    size_t n = 0;
    for (double t0 = kd_bench_now(); kd_bench_now() - t0 < t->b->run_s; n++) {
        double apply_us, revert_us;
        kd_err err = tip_grow(t, n) ? KD_ERR_NOMEM : ingest_timed(t->e, t->block, &apply_us);
        if (!err)
            err = ingest_timed(t->e, t->revert, &revert_us);
        if (err) {
            snprintf(why, why_len, "the tip block: %s", kd_err_str(err));
            return 0;
        }
        t->lat[n] = commit ? (double)kd_engine_last_commit_us(t->e) : timed_revert ? revert_us : apply_us;
    }
    return n;
}

static int revert_run(void *ctx, int side, double *out, char *why, size_t why_len)
{
    tip_ctx *t = ctx;
    size_t n = tip_cycles(t, side == 0, 0, why, why_len);
    out[0] = kd_bench_stat_of(t->lat, n).median;
    return n ? 0 : -1;
}

/* The commit floor: one raw LMDB put of 64 bytes, synced, for b->run_s. */
static size_t raw_puts(tip_ctx *t, char *why, size_t why_len)
{
    size_t n = 0;
    for (double t0 = kd_bench_now(); kd_bench_now() - t0 < t->b->run_s; n++) {
        uint8_t k[8], v8[64] = {0};
        kd_put_u64be(k, t->raw_seq++);
        MDB_val key = {8, k}, val = {sizeof v8, v8};
        MDB_txn *txn;
        int rc = tip_grow(t, n) ? ENOMEM : 0;
        uint64_t s0 = kd_now_us();
        if (!rc && !(rc = mdb_txn_begin(t->raw, NULL, 0, &txn)) && (rc = mdb_put(txn, t->raw_dbi, &key, &val, 0)))
            mdb_txn_abort(txn);
        if (!rc)
            rc = mdb_txn_commit(txn);
        if (rc) {
            snprintf(why, why_len, "the raw LMDB put failed: %s", mdb_strerror(rc));
            return 0;
        }
        t->lat[n] = (double)(kd_now_us() - s0);
    }
    return n;
}

static int commit_run(void *ctx, int side, double *out, char *why, size_t why_len)
{
    tip_ctx *t = ctx;
    size_t n = side == 0 ? tip_cycles(t, 0, 1, why, why_len) : raw_puts(t, why, why_len);
    out[0] = kd_bench_percentile(t->lat, n, 0.50);
    out[1] = kd_bench_percentile(t->lat, n, 0.99);
    return n ? 0 : -1;
}

static int open_raw(tip_ctx *t, const char *dir)
{
    MDB_txn *txn;
    if (mkdir(dir, 0700) != 0 || mdb_env_create(&t->raw) != 0)
        return -1;
    if (mdb_env_set_mapsize(t->raw, (size_t)1 << 30) != 0 || mdb_env_open(t->raw, dir, 0, 0600) != 0 ||
        mdb_txn_begin(t->raw, NULL, 0, &txn) != 0) {
        mdb_env_close(t->raw);
        t->raw = NULL;
        return -1;
    }
    mdb_dbi_open(txn, NULL, 0, &t->raw_dbi);
    return mdb_txn_commit(txn) == 0 ? 0 : -1;
}

/* Reverting the tip block against applying it; the block's commit against
 * a raw synced LMDB put. */
static int run_revert_and_latency(const kd_bench_ctx *b, const workload *w)
{
    char dir[4200], raw[4400];
    kd_registry reg;
    tip_ctx t = {.b = b, .block = &w->blocks[w->n_blocks - 1]};
    kd_buf rev;
    int missed = 0;
    kd_buf_init(&rev);
    if (kd_bench_mkdtemp(b, "revert", dir, sizeof dir) || open_engine(b, dir, &reg, &t.e) != KD_OK) {
        kd_bench_note(b, "revert: cannot open an engine in %s", b->work_dir);
        return 3;
    }
    kd_err err = KD_OK;
    for (size_t i = 0; i + 1 < w->n_blocks && !err; i++) {
        double us;
        err = ingest_timed(t.e, &w->blocks[i], &us);
    }
    /* The last block, applied and reverted again and again (its windows are
     * full, so its moves evict and the reverts restore). */
    Kdapp__EngineMsg *m = err ? NULL : kdapp__engine_msg__unpack(NULL, t.block->len, t.block->data);
    if (!m || kd_wire_revert(m->accepted->accepting_hash.data, &rev) != KD_OK) {
        kd_bench_note(b, "revert: the workload did not apply (%s)", kd_err_str(err ? err : KD_ERR_INTERNAL));
        missed = 3;
        goto done;
    }
    t.revert = &rev;
    snprintf(raw, sizeof raw, "%s/raw", dir);
    kd_bench_pair revert = {
        .id = "revert",
        .scenario = "revert of the tip block (100 moves, evictions restored)",
        .subject = "revert",
        .baseline = "apply of the same block",
        .metrics = {{"per block", "us", 1.5, 0}},
        .n_metrics = 1,
        .run = revert_run,
        .ctx = &t,
    };
    missed += kd_bench_paired(b, &revert);
    if (open_raw(&t, raw) != 0) {
        kd_bench_note(b, "commit latency: cannot open a raw LMDB in %s", raw);
        missed += 1;
        goto done;
    }
    kd_bench_pair commit = {
        .id = "commit",
        .scenario = "block commit latency (the synced LMDB commit of a 100-move block)",
        .subject = "engine block commit",
        .baseline = "raw LMDB put, synced",
        .metrics = {{"p50", "us", 0, 0}, {"p99", "us", 3.0, 0}},
        .n_metrics = 2,
        .run = commit_run,
        .ctx = &t,
    };
    missed += kd_bench_paired(b, &commit);
    kd_bench_figure(b, "revert.file_mib", "LMDB file after the revert and commit runs",
                    (double)kd_bench_file_size(dir) / 1048576.0, "MiB", NULL);
done:
    if (m)
        kdapp__engine_msg__free_unpacked(m, NULL);
    if (t.raw)
        mdb_env_close(t.raw);
    kd_buf_fini(&rev);
    kd_engine_close(t.e);
    kd_remove_tree(dir);
    free(t.lat);
    return missed;
}

/* ------------------------------------------------------------ scenario 5 */

static void run_sim(const kd_bench_ctx *b)
{
    kd_sim_options o;
    kd_sim_options_default(&o);
    o.types = b->types;
    o.type = b->type->ops->type_name;
    o.steps = b->quick ? 5000 : 40000;
    o.work_dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : b->work_dir;
    FILE *devnull = fopen("/dev/null", "w");
    kd_sim_summary s;
    kd_err err = kd_sim_run(&o, &s, devnull ? devnull : stderr);
    if (devnull)
        fclose(devnull);
    kd_bench_heading(b, "kdapp sim (seed 1, %llu steps)", (unsigned long long)o.steps);
    if (err || s.mismatches) {
        kd_bench_note(b, "sim failed: %s, %llu mismatches", kd_err_str(err), (unsigned long long)s.mismatches);
        return;
    }
    double secs = s.seconds > 0 ? s.seconds : 1e-9;
    kd_bench_figure(b, "sim.steps", "kdapp sim: steps", (double)s.steps / secs, "steps/s", NULL);
    kd_bench_figure(b, "sim.reorgs", "kdapp sim: reorgs", (double)s.reorgs / secs, "reorgs/s", NULL);
    kd_bench_figure(b, "sim.rollbacks", "kdapp sim: moves rolled back", (double)s.moves_rolled_back / secs, "moves/s",
                    NULL);
}

/* ------------------------------------------------------------------ soak */

static void run_soak(const kd_bench_ctx *b)
{
    char dir[4200];
    kd_registry reg;
    kd_engine *e = NULL;
    if (kd_bench_mkdtemp(b, "soak", dir, sizeof dir))
        return;
    kd_engine_options o = {.data_dir = dir, .registry = &reg, .finality_depth = 100, .chain = KD_BENCH_CHAIN};
    char why[256];
    kd_registry_init(&reg);
    if (kd_type_table_registry(b->types, &reg) || kd_engine_open(&o, &e, why, sizeof why)) {
        kd_bench_note(b, "soak: cannot open an engine");
        return;
    }
    kd_bench_heading(b, "soak: %u minutes, finality depth 100 (undo pruned behind it)", b->soak_minutes);
    uint64_t end = kd_now_ms() + (uint64_t)b->soak_minutes * 60000u, next_print = 0;
    uint64_t blocks = 0;
    for (uint32_t round = 0; kd_now_ms() < end; round++) {
        workload w;
        char tag[32];
        snprintf(tag, sizeof tag, "soak%u", round);
        if (make_workload(b, 50, 1 + round * 100000u, tag, &w) != KD_OK)
            break;
        for (size_t i = 0; i < w.n_blocks; i++) {
            double us;
            if (ingest_timed(e, &w.blocks[i], &us) == KD_OK)
                blocks++;
        }
        workload_fini(&w);
        if (kd_now_ms() >= next_print) {
            next_print = kd_now_ms() + 30000;
            kd_bench_note(b, "%llu blocks: peak memory %lu KiB, LMDB file %.1f MiB", (unsigned long long)blocks,
                          kd_bench_peak_rss_kb(0), (double)kd_bench_file_size(dir) / 1048576.0);
        }
    }
    kd_bench_note(b,
                  "end: %llu blocks: peak memory %lu KiB, LMDB file %.1f MiB (the log is append-only; "
                  "undo records and heights stay bounded)",
                  (unsigned long long)blocks, kd_bench_peak_rss_kb(0), (double)kd_bench_file_size(dir) / 1048576.0);
    kd_engine_close(e);
    kd_remove_tree(dir);
}

/* ----------------------------------------------------------------- driver */

/* The ingest and replay comparisons: the workload, the last ingested
 * store (replay's source) and the peak memory of the last daemon. */
typedef struct {
    const kd_bench_ctx *b;
    const workload *w;
    char store[4200]; /* the last ingest run's directory ("" before) */
    unsigned long daemon_kb;
} ingest_ctx;

/* Side 0: the workload through a fresh daemon. Side 1: every move's
 * signature checked on all cores, over and over for b->run_s. moves/s. */
static int ingest_side(void *ctx, int side, double *out, char *why, size_t why_len)
{
    ingest_ctx *ic = ctx;
    if (side == 1) {
        double t0 = kd_bench_now(), moves = 0;
        do {
            verify_baseline(ic->w);
            moves += (double)ic->w->n_raw;
        } while (kd_bench_now() - t0 < ic->b->run_s);
        out[0] = moves / (kd_bench_now() - t0);
        return 0;
    }
    char dir[4200];
    kd_err err = ingest_run(ic->b, ic->w, dir, sizeof dir, &out[0], &ic->daemon_kb);
    if (ic->store[0])
        kd_remove_tree(ic->store);
    snprintf(ic->store, sizeof ic->store, "%s", dir);
    if (err)
        snprintf(why, why_len, "the daemon's ingest failed: %s", kd_err_str(err));
    return err ? -1 : 0;
}

/* Side 0: `kdapp replay` of the last ingested store, into fresh stores for
 * b->run_s. Side 1: raw LMDB transactions of the same shape. moves/s. */
static int replay_side(void *ctx, int side, double *out, char *why, size_t why_len)
{
    ingest_ctx *ic = ctx;
    if (side == 1) {
        out[0] = raw_lmdb_rate(ic->b, ic->b->run_s, MOVES_PER_BLOCK);
    } else {
        double t0 = kd_bench_now(), moves = 0, secs = 0;
        do {
            double rate = replay_rate(ic->b, ic->store, ic->w->moves);
            if (rate <= 0)
                break;
            moves += (double)ic->w->moves;
            secs += (double)ic->w->moves / rate;
        } while (kd_bench_now() - t0 < ic->b->run_s);
        out[0] = secs > 0 ? moves / secs : 0;
    }
    if (out[0] <= 0)
        snprintf(why, why_len, side ? "raw LMDB failed" : "kdapp replay of %s failed", ic->store);
    return out[0] > 0 ? 0 : -1;
}

/* The cost of the ratings (handlers/ratings.h), computed on demand from
 * the whole canonical chain: recomputed on the ingested store, at least 5
 * times and for about b->run_s, and reported per recompute and per block,
 * with the games and keys it rated. */
static void ratings_cost(const kd_bench_ctx *b, const char *store)
{
    char data[4400];
    snprintf(data, sizeof data, "%s/data", store);
    kd_registry reg;
    kd_engine *e = NULL;
    if (open_engine(b, data, &reg, &e) != KD_OK) {
        kd_bench_note(b, "ratings: the ingested store does not open");
        return;
    }
    double samples[64];
    size_t n = 0;
    kd_ratings r = {0};
    kd_err err = KD_OK;
    double t_end = kd_bench_now() + b->run_s;
    while (!err && n < 64 && (n < 5 || kd_bench_now() < t_end)) {
        kd_ratings_fini(&r);
        kd_read *rd = NULL;
        double t0 = kd_bench_now();
        if (!(err = kd_engine_read_begin(e, &rd)))
            err = kd_ratings_compute(rd, b->types, NULL, &r);
        kd_engine_read_end(rd);
        samples[n++] = (kd_bench_now() - t0) * 1e3;
    }
    if (err) {
        kd_bench_note(b, "ratings: cannot compute them: %s", kd_err_str(err));
    } else {
        size_t rated = 0;
        for (size_t i = 0; i < r.n_games; i++)
            rated += r.games[i].unrated == KD_UNRATED_NO;
        kd_bench_heading(b,
                         "ratings: recomputed from the whole chain (%llu blocks, %zu finished games, %zu rated, "
                         "%zu keys and types)",
                         (unsigned long long)r.height, r.n_games, rated, r.n_ratings);
        kd_bench_stat st = kd_bench_stat_of(samples, n);
        kd_bench_figure(b, "ratings.recompute_ms", "one full recompute", st.median, "ms", &st);
        double per_block[64];
        for (size_t i = 0; i < n; i++)
            per_block[i] = r.height ? samples[i] * 1e3 / (double)r.height : 0;
        kd_bench_stat pb = kd_bench_stat_of(per_block, n);
        kd_bench_figure(b, "ratings.per_block_us", "per canonical block", pb.median, "us", &pb);
    }
    kd_ratings_fini(&r);
    kd_engine_close(e);
}

/* Blocks for a workload whose ingest lasts about b->run_s (from a probe
 * through a daemon), never fewer than 20. */
static size_t workload_blocks(const kd_bench_ctx *b)
{
    workload probe;
    size_t blocks = 21;
    if (make_workload(b, blocks, 1, "probe", &probe) != KD_OK)
        return blocks;
    char dir[4200];
    double rate = 0;
    unsigned long kb;
    if (ingest_run(b, &probe, dir, sizeof dir, &rate, &kb) == KD_OK && rate > 0)
        blocks = 1 + (size_t)(rate * b->run_s * 1.3 / MOVES_PER_BLOCK);
    kd_remove_tree(dir);
    workload_fini(&probe);
    return blocks < 21 ? 21 : blocks;
}

int kd_bench_engine(const kd_bench_ctx *b)
{
    int missed = 0;
    workload w;
    if (make_workload(b, workload_blocks(b), 1, "ingest", &w) != KD_OK) {
        kd_bench_note(b, "cannot build the workload");
        return 5;
    }
    char *params = b->params ? json_dumps(b->params, JSON_COMPACT) : NULL;
    kd_bench_heading(b, "workload: %zu blocks of %d signed moves over %d %s episodes, params %s (%zu moves)",
                     w.n_blocks - 1, MOVES_PER_BLOCK, EPISODES, b->type->ops->type_name,
                     params ? params : "the engine defaults", w.moves);
    free(params);
    ingest_ctx ic = {.b = b, .w = &w};
    kd_bench_pair ingest = {
        .id = "ingest",
        .scenario = "signed moves through the daemon's ingest (100 moves a block, each block synced)",
        .subject = "kdapp engine",
        .baseline = "secp256k1 check, all cores",
        .metrics = {{"throughput", "moves/s", 0.8, 1}},
        .n_metrics = 1,
        .run = ingest_side,
        .ctx = &ic,
    };
    missed += kd_bench_paired(b, &ingest);
    kd_bench_figure(b, "ingest.daemon_peak_kib", "engine daemon peak memory", (double)ic.daemon_kb, "KiB", NULL);
    if (ic.store[0]) {
        char data[4400];
        snprintf(data, sizeof data, "%s/data", ic.store);
        kd_bench_figure(b, "ingest.file_mib", "LMDB file after the workload",
                        (double)kd_bench_file_size(data) / 1048576.0, "MiB", NULL);
        kd_bench_pair replay = {
            .id = "replay",
            .scenario = "pre-verified replay of that store (kdapp replay)",
            .subject = "kdapp replay",
            .baseline = "raw LMDB txns, same shape",
            .metrics = {{"throughput", "moves/s", 0.7, 1}},
            .n_metrics = 1,
            .run = replay_side,
            .ctx = &ic,
        };
        missed += kd_bench_paired(b, &replay);
        ratings_cost(b, ic.store);
        kd_remove_tree(ic.store);
    }
    missed += run_revert_and_latency(b, &w);
    workload_fini(&w);
    run_sim(b);
    missed += kd_bench_reorg(b);
    if (b->soak_minutes)
        run_soak(b);
    return missed;
}
