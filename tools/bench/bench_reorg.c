/*
 * bench_reorg.c — the two costs of issue 37 that grew with the store, each
 * against what it cost before, in the same run:
 *
 *   audit   one chance-game episode's audit (kdapp audit) while the log
 *           around it grows by blocks of 1,000 creations: through the index
 *           of its own log entries (schema 4), against reading and
 *           decoding every block of the canonical chain, which is what the
 *           audit did before the index (R6)
 *   reorg   a reorg of 1,000 blocks (--quick: 50) of 10 creations each: its
 *           reverts in one synced transaction (kd_engine_ingest_reverts),
 *           against each revert in its own, which is what every reorg did
 *           before (R7)
 *   roll    a reorg at the finality depth (1,000; --quick: 64) of the
 *           devnet's own blocks on top of a store of 10,000 blocks
 *           (--quick: 1,000), served as `kdapp up` serves it (the node's
 *           ingest socket, its devnet in this process), while another
 *           player's transaction is sent to the devnet: the time from its
 *           submission until a reader sees it applied, during the reorg,
 *           against the same with no reorg (median of 5) in the same run.
 *           On 826780f such a roll waited 27-30 s (R7); it now waits for
 *           the reorg's one commit and the block of the transactions the
 *           reorg put back, which go first (4 ms without a reorg, 167 ms
 *           during one that took 129 ms, on a virtual disk)
 *
 * These are single figures (median of a few runs), not paired comparisons:
 * one side's setup (a grown log, a thousand applied blocks) is the point.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sched.h>
#include <string.h>
#include <time.h>

#include "engine/crypto.h"
#include "engine/netutil.h"
#include "engine/wire.h"
#include "handlers/audit.h"
#include "kdapp.pb-c.h"
#include "store.pb-c.h"
#include "tools/bench/bench.h"
#include "tools/bench/bench_episode.h"
#include "tools/chain/devnet.h"
#include "tools/chain/node.h"
#include "tools/sim/replay.h"
#include "tools/sim/sim.h"

/* Creations of the bench's playable type among two test keys. */
typedef struct {
    const kd_bench_ctx *b;
    const kd_episode_type *type;
    kd_buf params;
    kd_key seats[KD_MAX_PARTICIPANTS]; /* public test keys */
    size_t n_seats;
    void *state;
    uint64_t daa;
} maker;

static kd_err maker_init(maker *mk, const kd_bench_ctx *b)
{
    memset(mk, 0, sizeof *mk);
    mk->b = b;
    kd_buf_init(&mk->params);
    mk->type = kd_bench_play_type(b);
    if (!mk->type)
        return KD_ERR_UNSUPPORTED;
    char why[KD_REJECT_DETAIL_MAX];
    kd_err err = mk->type->params_from_json(mk->type == b->type ? b->params : NULL, &mk->params, why, sizeof why);
    mk->n_seats = kd_bench_seats(mk->type);
    for (size_t i = 0; i < mk->n_seats && !err; i++) {
        char name[32];
        snprintf(name, sizeof name, "reorg%zu", i);
        err = kd_key_test(name, &mk->seats[i]);
    }
    if (!err && !(mk->state = calloc(1, mk->type->ops->state_size)))
        err = KD_ERR_NOMEM;
    mk->daa = 1u << 30; /* above any DAA of a store it joins */
    return err;
}

static void maker_fini(maker *mk)
{
    kd_buf_fini(&mk->params);
    free(mk->state);
}

/* EngineMsg{BlockAccepted} `tag`-`n` with `k` creations from id `first`. */
static kd_err creations_block(maker *mk, const char *tag, size_t n, uint32_t first, size_t k, kd_buf *out)
{
    char name[64];
    snprintf(name, sizeof name, "%s-%zu", tag, n);
    uint8_t hash[KD_HASH_LEN];
    kd_sha256(name, strlen(name), hash);
    kd_wire_tx *txs = calloc(k, sizeof *txs);
    kd_buf *payloads = calloc(k, sizeof *payloads);
    kd_err err = txs && payloads ? KD_OK : KD_ERR_NOMEM;
    for (size_t i = 0; i < k && !err; i++) {
        kd_buf_init(&payloads[i]);
        err = kd_bench_episode_create(mk->b->types, mk->type, &mk->params, first + (uint32_t)i, mk->seats, mk->n_seats,
                                      KD_BENCH_CHAIN, mk->state, &payloads[i]);
        uint8_t idx[40];
        memcpy(idx, hash, KD_HASH_LEN);
        kd_put_u64be(idx + KD_HASH_LEN, i);
        kd_sha256(idx, sizeof idx, txs[i].tx_id);
        txs[i].payload = payloads[i].data;
        txs[i].payload_len = payloads[i].len;
    }
    if (!err)
        err = kd_wire_accept(hash, mk->daa++, kd_wall_ms(), txs, k, out);
    for (size_t i = 0; payloads && i < k; i++)
        kd_buf_fini(&payloads[i]);
    free(payloads);
    free(txs);
    return err;
}

static kd_err open_store(const kd_bench_ctx *b, const char *dir, uint64_t finality, kd_durability durability,
                         kd_registry *reg, kd_engine **out)
{
    kd_registry_init(reg);
    kd_err err = kd_type_table_registry(b->types, reg);
    kd_engine_options o = {.data_dir = dir,
                           .registry = reg,
                           .finality_depth = finality,
                           .durability = durability,
                           .chain = KD_BENCH_CHAIN};
    char why[256];
    return err ? err : kd_engine_open(&o, out, why, sizeof why);
}

static kd_err ingest_applied(kd_engine *e, const kd_buf *msg)
{
    kd_msg_result r;
    kd_err err = kd_engine_ingest(e, msg->data, msg->len, &r);
    if (!err && r.status != KD_MSG_APPLIED)
        err = KD_ERR_INTERNAL;
    kd_msg_result_fini(&r);
    return err;
}

/* ----------------------------------------------------------------- audit */

/* A store with the chance games of the first type that has draws, made by
 * `kdapp sim` (reorgs included) in `work`; its path into `store`. */
static kd_err chance_store(const kd_bench_ctx *b, const char *work, char *store, size_t len)
{
    const char *type = NULL;
    for (size_t i = 0; i < b->types->count && !type; i++)
        if (b->types->entries[i].type->draw_of)
            type = b->types->entries[i].type->ops->type_name;
    if (!type)
        return KD_ERR_UNSUPPORTED;
    kd_sim_options o;
    kd_sim_options_default(&o);
    o.seed = 37;
    o.steps = o.session_steps = b->quick ? 80 : 300;
    o.work_dir = work;
    o.keep = 1;
    o.types = b->types;
    o.type = type;
    kd_sim_summary sum;
    char *text = NULL;
    size_t size = 0;
    FILE *mem = open_memstream(&text, &size);
    if (!mem)
        return KD_ERR_NOMEM;
    kd_err err = kd_sim_run(&o, &sum, mem);
    fclose(mem);
    const char *kept = text ? strstr(text, "sim: session kept: ") : NULL;
    if (!err && (!kept || sum.mismatches))
        err = KD_ERR_INTERNAL;
    if (!err) {
        kept += strlen("sim: session kept: ");
        size_t n = strcspn(kept, "\n");
        snprintf(store, len, "%.*s", (int)n, kept);
    }
    free(text);
    return err;
}

/* The episode of the store whose audit replays the most draws. */
static kd_err audited_episode(kd_engine *e, const kd_type_table *types, uint32_t *id)
{
    uint32_t ids[256];
    size_t n = 0, best = 0;
    kd_read *rd;
    kd_err err = kd_engine_read_begin(e, &rd);
    if (!err) {
        err = kd_read_episode_ids(rd, 0, ids, sizeof ids / sizeof *ids, &n);
        kd_engine_read_end(rd);
    }
    *id = 0;
    for (size_t i = 0; i < n && !err; i++) {
        json_t *audit = NULL;
        char why[256];
        if (kd_audit_episode(e, types, ids[i], &audit, why, sizeof why) != KD_OK)
            continue; /* a type without draws */
        size_t draws = json_array_size(json_object_get(audit, "draws"));
        if (draws > best || !*id) {
            best = draws;
            *id = ids[i];
        }
        json_decref(audit);
    }
    return !err && !*id ? KD_ERR_NOT_FOUND : err;
}

/* What the audit read before the index: every block of the canonical
 * chain, each log entry and its message decoded. *txs gets their count. */
static kd_err read_chain(kd_engine *e, uint64_t *txs)
{
    kd_read *rd;
    uint64_t *seqs = NULL;
    size_t n = 0;
    *txs = 0;
    kd_err err = kd_engine_read_begin(e, &rd);
    if (err)
        return err;
    err = kd_read_canonical_seqs(rd, &seqs, &n);
    for (size_t i = 0; i < n && !err; i++) {
        const uint8_t *data;
        size_t len;
        if ((err = kd_read_log_entry(rd, seqs[i], &data, &len)))
            break;
        Kdapp__Store__LogEntry *le = kdapp__store__log_entry__unpack(NULL, len, data);
        Kdapp__EngineMsg *m = le ? kdapp__engine_msg__unpack(NULL, le->message.len, le->message.data) : NULL;
        if (!m)
            err = KD_ERR_STORE;
        else if (m->kind_case == KDAPP__ENGINE_MSG__KIND_ACCEPTED)
            *txs += m->accepted->n_txs;
        if (m)
            kdapp__engine_msg__free_unpacked(m, NULL);
        if (le)
            kdapp__store__log_entry__free_unpacked(le, NULL);
    }
    free(seqs);
    kd_engine_read_end(rd);
    return err;
}

#define AUDIT_RUNS 5
#define AUDIT_LEVELS 3

/* Median ms of AUDIT_RUNS audits of `id`, and of as many chain reads. */
static kd_err time_audit(const kd_bench_ctx *b, kd_engine *e, uint32_t id, double *audit_ms, double *chain_ms,
                         uint64_t *txs)
{
    double a[AUDIT_RUNS], c[AUDIT_RUNS];
    kd_err err = KD_OK;
    for (int i = 0; i < AUDIT_RUNS && !err; i++) {
        json_t *audit = NULL;
        char why[256];
        double t0 = kd_bench_now();
        err = kd_audit_episode(e, b->types, id, &audit, why, sizeof why);
        a[i] = (kd_bench_now() - t0) * 1e3;
        if (!err && strcmp(json_string_value(json_object_get(audit, "verdict")), "ok") != 0)
            err = KD_ERR_INTERNAL;
        json_decref(audit);
        t0 = kd_bench_now();
        if (!err)
            err = read_chain(e, txs);
        c[i] = (kd_bench_now() - t0) * 1e3;
    }
    *audit_ms = kd_bench_stat_of(a, AUDIT_RUNS).median;
    *chain_ms = kd_bench_stat_of(c, AUDIT_RUNS).median;
    return err;
}

static int run_audit(const kd_bench_ctx *b, maker *mk)
{
    char work[4200], store[4400];
    kd_registry reg;
    kd_engine *e = NULL;
    uint32_t id = 0;
    if (kd_bench_mkdtemp(b, "audit", work, sizeof work)) {
        kd_bench_note(b, "audit: cannot make a directory in %s", b->work_dir);
        return 1;
    }
    kd_err err = chance_store(b, work, store, sizeof store);
    if (!err)
        err = open_store(b, store, 0, KD_DURABILITY_SYNC, &reg, &e);
    if (!err)
        err = audited_episode(e, b->types, &id);
    kd_bench_heading(b, "audit: one chance game's audit as the log around it grows (issue 37, R6)");
    static const size_t added[AUDIT_LEVELS] = {0, 10, 100}, added_quick[AUDIT_LEVELS] = {0, 1, 10};
    char cells[AUDIT_LEVELS][3][32];
    const char *rows[AUDIT_LEVELS * 3];
    double audit_ms = 0, chain_ms = 0;
    size_t blocks = 0;
    kd_buf block;
    kd_buf_init(&block);
    for (size_t level = 0; level < AUDIT_LEVELS && !err; level++) {
        size_t want = b->quick ? added_quick[level] : added[level];
        for (; blocks < want && !err; blocks++) {
            block.len = 0;
            if (!(err = creations_block(mk, "audit-pad", blocks, 1000000u + (uint32_t)blocks * 1000u, 1000, &block)))
                err = ingest_applied(e, &block);
        }
        uint64_t txs = 0;
        if (!err)
            err = time_audit(b, e, id, &audit_ms, &chain_ms, &txs);
        snprintf(cells[level][0], sizeof cells[level][0], "%llu", (unsigned long long)txs);
        snprintf(cells[level][1], sizeof cells[level][1], "%.2f", audit_ms);
        snprintf(cells[level][2], sizeof cells[level][2], "%.1f", chain_ms);
        for (int c = 0; c < 3; c++)
            rows[level * 3 + c] = cells[level][c];
    }
    kd_buf_fini(&block);
    if (err) {
        kd_bench_note(b, "audit: failed (%s)", kd_err_str(err));
    } else {
        static const char *const columns[] = {"txs on the chain", "audit through the index, ms",
                                              "reading the chain as before, ms"};
        kd_bench_table(b, "audit", "An audit's cost as the log grows (one chance game, median of 5)", columns, 3, rows,
                       AUDIT_LEVELS, NULL);
        kd_bench_figure(b, "audit.index_ms", "audit of one chance game, the grown log, through the index", audit_ms,
                        "ms", NULL);
        kd_bench_figure(b, "audit.chain_ms", "the same log read as the audit read it before (every block)", chain_ms,
                        "ms", NULL);
    }
    kd_engine_close(e);
    kd_remove_tree(work);
    return err ? 1 : 0;
}

/* ----------------------------------------------------------------- reorg */

/* Applies `depth` blocks of 10 creations, then reverts them newest first,
 * in one transaction (batched) or each in its own; *ms the reverts' time. */
static kd_err time_reorg(maker *mk, kd_engine *e, const char *tag, uint32_t first_id, size_t depth, int batched,
                         double *ms)
{
    Kdapp__EngineMsg **m = calloc(depth, sizeof *m);
    kd_msg_result *res = calloc(depth, sizeof *res);
    kd_buf block, rev;
    kd_buf_init(&block);
    kd_buf_init(&rev);
    kd_err err = m && res ? KD_OK : KD_ERR_NOMEM;
    for (size_t i = 0; i < depth && !err; i++) {
        block.len = rev.len = 0;
        if ((err = creations_block(mk, tag, i, first_id + (uint32_t)i * 10u, 10, &block)) ||
            (err = ingest_applied(e, &block)))
            break;
        Kdapp__EngineMsg *a = kdapp__engine_msg__unpack(NULL, block.len, block.data);
        if (!a || (err = kd_wire_revert(a->accepted->accepting_hash.data, &rev)))
            err = err ? err : KD_ERR_DECODE;
        if (a)
            kdapp__engine_msg__free_unpacked(a, NULL);
        if (!err && !(m[depth - 1 - i] = kdapp__engine_msg__unpack(NULL, rev.len, rev.data)))
            err = KD_ERR_DECODE;
    }
    double t0 = kd_bench_now();
    size_t done = 0;
    if (!err && batched)
        err = kd_engine_ingest_reverts(e, m, depth, res, &done);
    for (size_t i = 0; !err && !batched && i < depth; i++, done++) {
        size_t len = kdapp__engine_msg__get_packed_size(m[i]);
        rev.len = 0;
        if (!(err = kd_buf_reserve(&rev, len))) {
            rev.len = kdapp__engine_msg__pack(m[i], rev.data);
            err = kd_engine_ingest_decoded(e, m[i], rev.data, rev.len, &res[i]);
        }
    }
    *ms = (kd_bench_now() - t0) * 1e3;
    for (size_t i = 0; i < done && !err; i++)
        if (res[i].status != KD_MSG_APPLIED)
            err = KD_ERR_INTERNAL;
    for (size_t i = 0; res && i < depth; i++)
        kd_msg_result_fini(&res[i]);
    for (size_t i = 0; m && i < depth; i++)
        if (m[i])
            kdapp__engine_msg__free_unpacked(m[i], NULL);
    free(m);
    free(res);
    kd_buf_fini(&block);
    kd_buf_fini(&rev);
    return err;
}

static int run_reorg(const kd_bench_ctx *b, maker *mk)
{
    size_t depth = b->quick ? 50 : 1000;
    char dir[4200];
    kd_registry reg;
    kd_engine *e = NULL;
    double one_ms = 0, each_ms = 0;
    kd_err err = kd_bench_mkdtemp(b, "reorg", dir, sizeof dir)
                     ? KD_ERR_IO
                     : open_store(b, dir, depth, KD_DURABILITY_SYNC, &reg, &e);
    if (!err)
        err = time_reorg(mk, e, "reorg-each", 1u << 30, depth, 0, &each_ms);
    if (!err)
        err = time_reorg(mk, e, "reorg-one", 1u << 31, depth, 1, &one_ms);
    kd_bench_heading(b, "reorg: %zu blocks of 10 creations reverted, each commit synced (issue 37, R7)", depth);
    if (err) {
        kd_bench_note(b, "reorg: failed (%s)", kd_err_str(err));
    } else {
        kd_bench_figure(b, "reorg.one_txn_ms", "a reorg's reverts in one transaction, one sync", one_ms, "ms", NULL);
        kd_bench_figure(b, "reorg.each_ms", "the same reorg, each revert synced on its own (before)", each_ms, "ms",
                        NULL);
    }
    kd_engine_close(e);
    kd_remove_tree(dir);
    return err ? 1 : 0;
}

/* ------------------------------------------------------------------ roll */

#define ROLL_RUNS 5
#define ROLL_WAIT_S 300.0 /* a roll not applied by then fails the scenario */

typedef struct {
    kd_devnet *dev;
    uint32_t depth;
    kd_err err;
    kd_devnet_reorg_result res;
    double ms;
} reorg_job;

static void *reorg_main(void *arg)
{
    reorg_job *j = arg;
    double t0 = kd_bench_now();
    j->err = kd_devnet_reorg(j->dev, j->depth, 0, 0, &j->res);
    j->ms = (kd_bench_now() - t0) * 1e3;
    return NULL;
}

/* Another player's transaction: the creation of episode `id` submitted to
 * the devnet; *ms from the submission until the engine has applied it
 * (polled on a reader, as a client's read would see it). */
static kd_err roll(maker *mk, kd_engine *e, kd_devnet *dev, uint32_t id, double *ms)
{
    kd_buf payload;
    kd_buf_init(&payload);
    uint8_t tx[KD_HASH_LEN];
    kd_err err = kd_bench_episode_create(mk->b->types, mk->type, &mk->params, id, mk->seats, mk->n_seats,
                                         KD_BENCH_CHAIN, mk->state, &payload);
    double t0 = kd_bench_now();
    if (!err)
        err = kd_devnet_submit(dev, payload.data, payload.len, tx);
    for (int found = 0; !err && !found;) {
        kd_read *rd;
        kd_episode_snapshot snap;
        if ((err = kd_engine_read_begin(e, &rd)))
            break;
        kd_err got = kd_read_episode(rd, id, &snap);
        kd_engine_read_end(rd);
        if (!got) {
            kd_episode_snapshot_fini(&snap);
            found = 1;
        } else if (got != KD_ERR_NOT_FOUND) {
            err = got;
        } else if (kd_bench_now() - t0 > ROLL_WAIT_S) {
            err = KD_ERR_TIMEOUT;
        } else {
            struct timespec ts = {0, 200000}; /* 0.2 ms */
            nanosleep(&ts, NULL);
        }
    }
    *ms = (kd_bench_now() - t0) * 1e3;
    kd_buf_fini(&payload);
    return err;
}

/* The long-lived store: `blocks` blocks of one creation each, fed without
 * syncing the meta page (the figures are taken after, synced). */
static kd_err long_store(const kd_bench_ctx *b, maker *mk, const char *data, uint64_t finality, size_t blocks)
{
    kd_registry reg;
    kd_engine *e = NULL;
    kd_buf block;
    kd_buf_init(&block);
    kd_err err = open_store(b, data, finality, KD_DURABILITY_RELAXED, &reg, &e);
    for (size_t i = 0; i < blocks && !err; i++) {
        block.len = 0;
        if (!(err = creations_block(mk, "roll-pad", i, 100000000u + (uint32_t)i, 1, &block)))
            err = ingest_applied(e, &block);
    }
    kd_buf_fini(&block);
    kd_engine_close(e);
    return err;
}

/* The devnet's own `n` blocks, one creation each (the reorg reverts only
 * blocks the devnet made): each submitted once the last is applied. */
static kd_err devnet_blocks(maker *mk, kd_devnet *dev, uint32_t first, size_t n)
{
    kd_err err = KD_OK;
    kd_buf payload;
    kd_buf_init(&payload);
    for (size_t i = 0; i < n && !err; i++) {
        uint8_t tx[KD_HASH_LEN];
        payload.len = 0;
        if (!(err = kd_bench_episode_create(mk->b->types, mk->type, &mk->params, first + (uint32_t)i, mk->seats,
                                            mk->n_seats, KD_BENCH_CHAIN, mk->state, &payload)) &&
            !(err = kd_devnet_submit(dev, payload.data, payload.len, tx)))
            err = kd_devnet_wait_idle(dev, 60000);
    }
    kd_buf_fini(&payload);
    return err;
}

static kd_err time_rolls(const kd_bench_ctx *b, maker *mk, const char *dir, uint64_t finality, size_t blocks,
                         double *base_ms, double *during_ms, double *reorg_ms)
{
    char data[4400], ingest[4500], views[4500];
    snprintf(data, sizeof data, "%s/data", dir);
    snprintf(ingest, sizeof ingest, "ipc://%s/ingest.ipc", dir);
    snprintf(views, sizeof views, "ipc://%s/views.ipc", dir);
    kd_err err = long_store(b, mk, data, finality, blocks);
    if (err)
        return err;
    kd_cli *cli = calloc(1, sizeof *cli);
    kd_node node;
    kd_devnet *dev = NULL;
    int node_up = 0;
    char why[256];
    if (!cli || kd_cli_init_types(cli, b->types) != KD_EXIT_OK)
        err = cli ? KD_ERR_INVALID_ARG : KD_ERR_NOMEM;
    if (!err) {
        cli->data_dir = data;
        kd_node_options no = {.ingest_urls = ingest, .publish_urls = views};
        node_up = !(err = kd_node_start(&node, cli, &no, why, sizeof why));
    }
    /* the devnet of `kdapp up` (up to 1,000 txs a block), ticking every ms */
    kd_devnet_options dopt = {.engine_url = ingest, .block_ms = 1, .seed = 37};
    if (!err)
        err = kd_devnet_open(&dopt, &dev, why, sizeof why);
    uint32_t id = 200000000u;
    if (!err)
        err = devnet_blocks(mk, dev, id, (size_t)finality + 8);
    id += (uint32_t)finality + 8;
    double ms[ROLL_RUNS];
    for (int i = 0; i < ROLL_RUNS && !err; i++)
        err = roll(mk, node.engine, dev, id++, &ms[i]);
    if (!err)
        *base_ms = kd_bench_stat_of(ms, ROLL_RUNS).median;
    if (!err) /* then the devnet is busy only with the reorg */
        err = kd_devnet_wait_idle(dev, 600000);
    /* The reorg at the finality depth, and a roll sent once it holds the
     * devnet's sequence (the reverts are on their way to the engine). */
    reorg_job job = {.dev = dev, .depth = (uint32_t)finality};
    pthread_t th;
    int th_up = !err && pthread_create(&th, NULL, reorg_main, &job) == 0;
    if (!err && !th_up)
        err = KD_ERR_INTERNAL;
    for (kd_devnet_info info = {0}; th_up && !err && !info.busy;) {
        kd_devnet_status(dev, &info);
        if (!info.busy)
            sched_yield();
    }
    if (!err)
        err = roll(mk, node.engine, dev, id++, during_ms);
    if (th_up) {
        pthread_join(th, NULL);
        if (!err && (job.err || job.res.reverted != finality))
            err = job.err ? job.err : KD_ERR_INTERNAL;
        *reorg_ms = job.ms;
    }
    kd_devnet_close(dev);
    if (node_up)
        kd_node_stop(&node);
    free(cli);
    return err;
}

static int run_roll(const kd_bench_ctx *b, maker *mk)
{
    uint64_t finality = b->quick ? 64 : 1000;
    size_t blocks = b->quick ? 1000 : 10000;
    char dir[4200];
    double base_ms = 0, during_ms = 0, reorg_ms = 0;
    kd_err err = kd_bench_mkdtemp(b, "roll", dir, sizeof dir)
                     ? KD_ERR_IO
                     : time_rolls(b, mk, dir, finality, blocks, &base_ms, &during_ms, &reorg_ms);
    kd_bench_heading(
        b, "roll: another player's transaction during a reorg of %llu blocks on a store of %zu (issue 37, R7)",
        (unsigned long long)finality, blocks);
    if (err) {
        kd_bench_note(b, "roll: failed (%s)", kd_err_str(err));
    } else {
        kd_bench_figure(b, "reorg.roll_base_ms", "another player's transaction, submitted to applied, no reorg",
                        base_ms, "ms", NULL);
        kd_bench_figure(b, "reorg.roll_during_ms", "the same, submitted while a reorg at the finality depth runs",
                        during_ms, "ms", NULL);
        kd_bench_figure(b, "reorg.deep_ms", "that reorg through the devnet and the node's ingest socket", reorg_ms,
                        "ms", NULL);
    }
    kd_remove_tree(dir);
    return err ? 1 : 0;
}

int kd_bench_reorg(const kd_bench_ctx *b)
{
    maker mk;
    int failed = 0;
    if (maker_init(&mk, b) != KD_OK) {
        kd_bench_note(b, "audit and reorg: no type the bench can create episodes of");
        maker_fini(&mk);
        return 2;
    }
    failed += run_audit(b, &mk);
    failed += run_reorg(b, &mk);
    failed += run_roll(b, &mk);
    maker_fini(&mk);
    return failed;
}
