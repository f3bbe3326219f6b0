/*
 * bench_scale.c — `kdapp bench --scale`: cost as the work grows.
 *
 * A store is grown (bench_scale_grow.c) to 10^3, 10^4, … 10^scale_max_exp
 * episodes of mixed board games, about 10 transactions each, with a
 * finality depth so undo records behind it are pruned. At each checkpoint
 * the growth stops and the store is measured:
 *
 *   size     the LMDB file, and per database what a transaction, an undo
 *            record and an episode take (read with LMDB's own statistics);
 *   replay   the whole log replayed into an empty store, as `kdapp replay`
 *            does (kd_replay_log, signatures recorded good trusted);
 *   apply    a block of signed moves on live episodes drawn from the whole
 *   revert   store applied then reverted, again and again (on a copy, so
 *            the grown store keeps only the growth in its log); then the
 *            same after that copy and the reference's are compacted
 *            (`kdapp compact`, kd_store_compact);
 *   queries  kdapp_get_strategy_context and a kdapp_list_episodes page in
 *            the middle of the list, through a stdio gateway attached to an
 *            engine daemon on the copy;
 *   memory   that daemon's and that gateway's, from /proc.
 *
 * Per-move and per-query figures are paired (kd_bench_paired) against the
 * same work on a reference store grown the same way to 10^3 episodes (10^2
 * in --quick), so the ratio says how much the cost grew with the store.
 * The rows go to a table and to CHART_DIR/scale.tsv, scale.gp, scale.svg.
 */
#include <fcntl.h>
#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools/bench/bench_scale_int.h"
#include "tools/bench/bench_scale_proc.h"
#include "store.pb-c.h"
#include "tools/sim/replay.h"

#define MAX_ROWS 6
#define MAX_RUNS 64
#define LIST_TOOL "kdapp_list_episodes"
#define RECENT 1000 /* the newest episodes: the games of the day */

/* Apply and revert per move (us) and their ratios to the reference. */
typedef struct {
    double apply_us, apply_x, revert_us, revert_x;     /* on the newest episodes (the games being played) */
    double wapply_us, wapply_x, wrevert_us, wrevert_x; /* on episodes drawn from the whole store */
} apply_figures;

typedef struct {
    double episodes, txs, entries, grow_s;
    apply_figures grown;     /* the store as it grew */
    apply_figures compacted; /* the same after kd_store_compact (the reference's copy too) */
    double query_us, query_x, list_us, list_x;
    double replay_s, replay_tps;
    double file_mib, bytes_per_tx, log_per_tx, undo_mib, undo_records, undo_per_record, state_per_ep;
    double free_mib; /* pages of the file on LMDB's free list, to be reused */
    kd_scale_mem daemon, gateway;
} scale_row;

/* Every run's figures of both sides of one paired comparison, for the table. */
typedef struct {
    double v[2][KD_BENCH_METRICS_MAX][MAX_RUNS]; /* [side][metric][run] */
    size_t n[2];
} run_log;

static void log_run(run_log *l, int side, const double *out, size_t n_metrics)
{
    if (l->n[side] < MAX_RUNS) {
        for (size_t k = 0; k < n_metrics; k++)
            l->v[side][k][l->n[side]] = out[k];
        l->n[side]++;
    }
}

/* The subject's median and the median subject/baseline ratio of metric k
 * over the pairs (the warm-up run of each side left out). */
static void log_summary(const run_log *l, int k, double *subject, double *ratio)
{
    size_t n = (l->n[0] < l->n[1] ? l->n[0] : l->n[1]);
    double s[MAX_RUNS], r[MAX_RUNS];
    size_t m = 0;
    for (size_t i = 1; i < n; i++, m++) {
        s[m] = l->v[0][k][i];
        r[m] = l->v[1][k][i] > 0 ? l->v[0][k][i] / l->v[1][k][i] : 0;
    }
    *subject = m ? kd_bench_stat_of(s, m).median : 0;
    *ratio = m ? kd_bench_stat_of(r, m).median : 0;
}

/* ------------------------------------------------------------ file copies */

static int copy_file(const char *from, const char *to)
{
    int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0600),
        rc = in >= 0 && out >= 0 ? 0 : -1;
    static char buf[1 << 20];
    ssize_t n;
    while (!rc && (n = read(in, buf, sizeof buf)) > 0)
        rc = write(out, buf, (size_t)n) == n ? 0 : -1;
    if (!rc) /* on disk before it is measured: its writeback would fall on the first commits' syncs */
        rc = fsync(out);
    if (in >= 0)
        close(in);
    if (out >= 0 && close(out) != 0)
        rc = -1;
    return rc;
}

/* A fresh copy of the store in `dir`'s data.mdb under a new scratch directory `out`. */
static int copy_store(const kd_bench_ctx *b, const char *dir, const char *tag, char *out, size_t len)
{
    char from[700], to[700];
    if (kd_bench_mkdtemp(b, tag, out, len) != 0)
        return -1;
    snprintf(from, sizeof from, "%s/data.mdb", dir);
    snprintf(to, sizeof to, "%s/data.mdb", out);
    return copy_file(from, to);
}

/* --------------------------------------------------------- size and replay */

/* The pages on LMDB's free list: its records (database 0) are page-number
 * lists, each led by its length. */
static double free_pages(MDB_txn *txn)
{
    MDB_cursor *cur;
    MDB_val k, v;
    double pages = 0;
    if (mdb_cursor_open(txn, 0, &cur) != 0)
        return 0;
    for (int rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0; rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT))
        if (v.mv_size >= sizeof(size_t)) {
            size_t n; /* a node's data need not be aligned */
            memcpy(&n, v.mv_data, sizeof n);
            pages += (double)n;
        }
    mdb_cursor_close(cur);
    return pages;
}

static unsigned page_size(MDB_env *env)
{
    MDB_stat st;
    return mdb_env_stat(env, &st) == 0 ? st.ms_psize : 0;
}

/* The undo records a store keeps (in the records of its unpruned blocks,
 * the ones `heights` lists): their bytes and their number. */
static void undo_size(MDB_txn *txn, double *bytes, double *records)
{
    MDB_dbi heights, blocks;
    MDB_cursor *cur = NULL;
    MDB_val k, v;
    *bytes = *records = 0;
    if (mdb_dbi_open(txn, "heights", 0, &heights) || mdb_dbi_open(txn, "blocks", 0, &blocks) ||
        mdb_cursor_open(txn, heights, &cur))
        return;
    for (int rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0; rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
        MDB_val bv;
        Kdapp__Store__BlockRecord *rec = mdb_get(txn, blocks, &v, &bv) == 0
                                             ? kdapp__store__block_record__unpack(NULL, bv.mv_size, bv.mv_data)
                                             : NULL;
        for (size_t i = 0; rec && i < rec->n_effects; i++)
            if (rec->effects[i]->undo.len) {
                *bytes += (double)rec->effects[i]->undo.len;
                *records += 1;
            }
        if (rec)
            kdapp__store__block_record__free_unpacked(rec, NULL);
    }
    mdb_cursor_close(cur);
}

/* What each database of the store takes, read with LMDB's statistics
 * (the engine closed). */
static void measure_size(const char *dir, uint64_t txs, uint32_t episodes, scale_row *r)
{
    MDB_env *env = NULL;
    MDB_txn *txn = NULL;
    r->file_mib = (double)kd_bench_file_size(dir) / 1048576.0;
    r->bytes_per_tx = txs ? (double)kd_bench_file_size(dir) / (double)txs : 0;
    if (mdb_env_create(&env) || mdb_env_set_maxdbs(env, 8) || mdb_env_open(env, dir, MDB_RDONLY, 0600) ||
        mdb_txn_begin(env, NULL, MDB_RDONLY, &txn))
        goto done;
    static const char *const names[] = {"log", "blocks", "states"};
    double bytes[3] = {0}, entries[3] = {0};
    for (int i = 0; i < 3; i++) {
        MDB_dbi dbi;
        MDB_stat st;
        if (mdb_dbi_open(txn, names[i], 0, &dbi) == 0 && mdb_stat(txn, dbi, &st) == 0) {
            bytes[i] = (double)(st.ms_branch_pages + st.ms_leaf_pages + st.ms_overflow_pages) * st.ms_psize;
            entries[i] = (double)st.ms_entries;
        }
    }
    r->log_per_tx = txs ? bytes[0] / (double)txs : 0;
    undo_size(txn, &r->undo_mib, &r->undo_records);
    r->undo_per_record = r->undo_records ? r->undo_mib / r->undo_records : 0;
    r->undo_mib /= 1048576.0;
    (void)entries;
    r->state_per_ep = episodes ? bytes[2] / episodes : 0;
    r->free_mib = free_pages(txn) * (double)page_size(env) / 1048576.0;
done:
    mdb_txn_abort(txn);
    if (env)
        mdb_env_close(env);
}

/* The whole log replayed into an empty store, as `kdapp replay` does. */
static kd_err measure_replay(kd_scale_store *s, scale_row *r, char *why, size_t why_len)
{
    char into[400] = "";
    kd_engine *src = NULL, *dst = NULL;
    kd_replay_report rep;
    kd_tip tip = {0};
    kd_err err = kd_bench_mkdtemp(s->b, "replay", into, sizeof into) ? KD_ERR_IO : KD_OK;
    if (!err && !(err = kd_scale_engine_open(s, s->dir, 1, &src, why, why_len)) &&
        !(err = kd_scale_engine_open(s, into, 0, &dst, why, why_len)) && !(err = kd_engine_tip(src, &tip))) {
        kd_engine_trust_replayed_signatures(dst, 1);
        double t0 = kd_bench_now();
        err = kd_replay_log(src, dst, 0, &rep);
        r->replay_s = kd_bench_now() - t0;
        if (!err && !kd_replay_ok(&rep))
            err = KD_ERR_INTERNAL, snprintf(why, why_len, "the replay diverged from the store");
    }
    r->entries = (double)tip.last_seq;
    r->replay_tps = r->replay_s > 0 ? (double)s->txs / r->replay_s : 0;
    kd_engine_close(dst);
    kd_engine_close(src);
    kd_remove_tree(into);
    return err;
}

/* ------------------------------------------------------- apply and revert */

typedef struct {
    kd_engine *engine[2];
    kd_scale_probe *probe[2][2]; /* [side]: the newest episodes, the whole store */
    kd_sig_pool *pool;
    const kd_bench_ctx *b;
    run_log log;
    double commit_s[2], apply_s[2]; /* [side]: the synced commits of the applies, and the applies, in all */
    /* [side][probe][apply, revert]: what the commits wrote, from /proc/self/io */
    double wrote_pages[2][2][2], wrote_runs[2][2][2], commits[2][2];
} apply_ctx;

/* The bytes this process passed to write calls and the number of those
 * calls (wchar, syscw of /proc/self/io): LMDB writes a commit's dirty
 * pages with one pwrite per run of consecutive page numbers, then its
 * meta page, so the deltas over a commit give the pages it wrote and how
 * scattered they lay in the file. 0 when /proc is not there. */
static void proc_io(double *wchar, double *syscw)
{
    *wchar = *syscw = 0;
    FILE *fp = fopen("/proc/self/io", "r");
    if (!fp)
        return;
    char line[128];
    unsigned long long v;
    while (fgets(line, sizeof line, fp)) {
        if (sscanf(line, "wchar: %llu", &v) == 1)
            *wchar = (double)v;
        else if (sscanf(line, "syscw: %llu", &v) == 1)
            *syscw = (double)v;
    }
    fclose(fp);
}

static kd_err ingest(kd_engine *e, const kd_buf *msg, size_t want_txs)
{
    kd_msg_result r;
    kd_msg_result_init(&r);
    kd_err err = kd_engine_ingest(e, msg->data, msg->len, &r);
    if (!err && r.status != KD_MSG_APPLIED)
        err = KD_ERR_INTERNAL;
    for (size_t i = 0; !err && want_txs && i < r.tx_count; i++)
        if (!r.txs[i].applied)
            err = KD_ERR_INTERNAL;
    kd_msg_result_fini(&r);
    return err;
}

/* Applies and reverts probe `p` once, adding the times (s) to t[0], t[1]. */
static kd_err apply_cycle(apply_ctx *c, int side, int k, kd_scale_probe *p, double *t)
{
    kd_engine *e = c->engine[side];
    kd_sig_batch *batch = kd_sig_pool_start(c->pool, p->jobs, p->moves);
    kd_engine_use_sig_batch(e, batch);
    double io[3][2];
    proc_io(&io[0][0], &io[0][1]);
    double t0 = kd_bench_now();
    kd_err err = ingest(e, &p->accept, p->moves);
    double t1 = kd_bench_now();
    c->commit_s[side] += (double)kd_engine_last_commit_us(e) / 1e6;
    c->apply_s[side] += t1 - t0;
    proc_io(&io[1][0], &io[1][1]);
    if (!err)
        err = ingest(e, &p->revert, 0);
    t[0] += t1 - t0;
    t[1] += kd_bench_now() - t1;
    proc_io(&io[2][0], &io[2][1]);
    double psize = (double)sysconf(_SC_PAGESIZE); /* LMDB's page is the OS page */
    for (int r = 0; r < 2 && psize > 0; r++) {
        c->wrote_pages[side][k][r] += (io[r + 1][0] - io[r][0]) / psize;
        c->wrote_runs[side][k][r] += io[r + 1][1] - io[r][1];
    }
    c->commits[side][k]++;
    kd_engine_use_sig_batch(e, NULL);
    kd_sig_pool_finish(c->pool, batch);
    return err;
}

/* Apply then revert of each probe (their signatures verified ahead, as
 * the daemon's verifier pool does), in cycles of its own for half the run:
 * us per move of each. Interleaved, each block on the newest episodes
 * reused the pages a whole-store block had just freed all over the file,
 * and measured that mix (twice the write calls at 10^5), not live games. */
static int apply_run(void *ctx, int side, double *out, char *why, size_t why_len)
{
    apply_ctx *c = ctx;
    double t[4] = {0};
    size_t cycles[2] = {0, 0};
    kd_err err = KD_OK;
    for (int k = 0; k < 2 && !err; k++) {
        double t_end = kd_bench_now() + c->b->run_s / 2;
        while (!err && (cycles[k] < 3 || kd_bench_now() < t_end)) {
            err = apply_cycle(c, side, k, c->probe[side][k], t + 2 * k);
            cycles[k]++;
        }
    }
    if (err) {
        snprintf(why, why_len, "a probe block was not applied and reverted: %s", kd_err_str(err));
        return -1;
    }
    for (int k = 0; k < 4; k++)
        out[k] = t[k] * 1e6 / (double)(cycles[k / 2] * c->probe[side][k / 2]->moves);
    log_run(&c->log, side, out, 4);
    return 0;
}

/* ------------------------------------------------------------- the queries */

typedef struct {
    kd_bench_proc gw[2];
    const uint32_t *ids[2];
    size_t n_ids[2];
    uint32_t episodes[2];
    long next_id;
    const kd_bench_ctx *b;
    run_log log;
} query_ctx;

static int query_run(void *ctx, int side, double *out, char *why, size_t why_len)
{
    query_ctx *c = ctx;
    double query = 0, list = 0, t_end = kd_bench_now() + c->b->run_s;
    size_t calls = 0;
    char args[96], list_args[96];
    char first[48];
    snprintf(list_args, sizeof list_args, "{\"cursor\":\"%u\"}", c->episodes[side] / 2);
    snprintf(first, sizeof first, "\"episode_id\":%u,", c->episodes[side] / 2 + 1);
    while (calls < 5 || kd_bench_now() < t_end) {
        snprintf(args, sizeof args, "{\"episode_id\":%u}", c->ids[side][calls % c->n_ids[side]]);
        double t0 = kd_bench_now();
        char *ans = NULL;
        int rc = kd_scale_call(&c->gw[side], c->next_id++, KD_BENCH_TOOL, args, &ans);
        double t1 = kd_bench_now();
        const char *tool = KD_BENCH_TOOL;
        if (!rc && (tool = LIST_TOOL) &&
            !(rc = kd_scale_call(&c->gw[side], c->next_id++, LIST_TOOL, list_args, &ans)) && !strstr(ans, first))
            rc = 1; /* the page starts after the cursor */
        if (rc) {
            snprintf(why, why_len, "the gateway's answer to %s was wrong or missing: %.200s", tool, ans ? ans : "");
            return -1;
        }
        query += t1 - t0;
        list += kd_bench_now() - t1;
        calls++;
    }
    out[0] = query * 1e6 / (double)calls;
    out[1] = list * 1e6 / (double)calls;
    log_run(&c->log, side, out, 2);
    return 0;
}

/* ------------------------------------------------------------ a checkpoint */

/* One store measured: a copy of it, an engine on the copy and a probe. */
typedef struct {
    char dir[400], log[512], keys[512];
    kd_engine *engine;
    kd_scale_probe probe, wide; /* moves on the newest episodes; on episodes from the whole store */
    uint32_t episodes;
    kd_bench_proc daemon;
    kd_bench_fixture fx;
} side_store;

static void side_fini(side_store *x)
{
    kd_scale_daemon_stop(&x->daemon);
    kd_engine_close(x->engine);
    kd_scale_probe_fini(&x->probe);
    kd_scale_probe_fini(&x->wide);
    if (x->dir[0])
        kd_remove_tree(x->dir);
    memset(x, 0, sizeof *x);
    kd_bench_proc_init(&x->daemon);
}

static kd_err side_open(kd_scale_store *s, const char *tag, size_t moves, uint64_t seed, side_store *x, char *why,
                        size_t why_len)
{
    memset(x, 0, sizeof *x);
    kd_bench_proc_init(&x->daemon);
    x->episodes = s->episodes;
    if (copy_store(s->b, s->dir, tag, x->dir, sizeof x->dir) != 0) {
        snprintf(why, why_len, "cannot copy the store %.200s into %.200s", s->dir, s->b->work_dir);
        return KD_ERR_IO;
    }
    snprintf(x->log, sizeof x->log, "%s/children.log", x->dir);
    snprintf(x->keys, sizeof x->keys, "%s/keys", x->dir);
    mkdir(x->keys, 0700);
    kd_err err = kd_scale_engine_open(s, x->dir, 0, &x->engine, why, why_len);
    uint32_t newest = s->episodes > RECENT ? s->episodes - RECENT + 1 : 1;
    if (!err && (err = kd_scale_probe_make(s, x->engine, newest, s->episodes, moves, seed, &x->probe)) == KD_OK)
        err = kd_scale_probe_make(s, x->engine, 1, s->episodes, moves, seed + 1, &x->wide);
    if (err)
        snprintf(why, why_len, "no live episode to move in %.200s: %s", x->dir, kd_err_str(err));
    return err;
}

/* The engine closed, a daemon on the copy fed the probe a few times, and a
 * stdio gateway attached to it. */
static kd_err side_serve(const kd_bench_ctx *b, kd_scale_store *s, side_store *x, kd_bench_proc *gw, char *why,
                         size_t why_len)
{
    kd_engine_close(x->engine);
    x->engine = NULL;
    int up = kd_scale_daemon_spawn(b, x->dir, s->finality, x->log, &x->daemon) == 0;
    kd_buf msgs[6];
    for (int i = 0; i < 6; i++)
        msgs[i] = i % 2 ? x->probe.revert : x->probe.accept;
    kd_err err = up ? kd_scale_daemon_feed(x->dir, msgs, 6, why, why_len) : KD_ERR_IO;
    if (err)
        return err;
    snprintf(x->fx.data, sizeof x->fx.data, "%.400s", x->dir);
    snprintf(x->fx.keys, sizeof x->fx.keys, "%.500s", x->keys);
    snprintf(x->fx.log, sizeof x->fx.log, "%.500s", x->log);
    if (kd_bench_gateway_spawn(b, &x->fx, NULL, gw) != 0) {
        kd_bench_show_log(x->log);
        snprintf(why, why_len, "kdapp mcp --stdio did not start on %.200s", x->dir);
        return KD_ERR_IO;
    }
    return KD_OK;
}

typedef struct {
    const kd_bench_ctx *b;
    kd_scale_store grown, ref;
    size_t probe_moves;
    int missed;
} scale_run;

/* Apply and revert per move, paired against the reference; `stage` names
 * the stores' state in the scenario ("as grown", "compacted"). */
static kd_err pair_apply(scale_run *sr, side_store x[2], const char *stage, apply_figures *f, char *why, size_t why_len)
{
    apply_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return KD_ERR_NOMEM;
    *c = (apply_ctx){.engine = {x[0].engine, x[1].engine},
                     .probe = {{&x[0].probe, &x[0].wide}, {&x[1].probe, &x[1].wide}},
                     .b = sr->b};
    kd_err err = kd_sig_pool_alloc(1, &c->pool);
    char scenario[200], subject[64], baseline[64];
    snprintf(scenario, sizeof scenario,
             "scale %u episodes, %s: apply and revert of blocks of %zu moves on live episodes, among the newest %d "
             "and (all) drawn from the whole store",
             x[0].episodes, stage, x[0].probe.moves, RECENT);
    snprintf(subject, sizeof subject, "store of %u episodes", x[0].episodes);
    snprintf(baseline, sizeof baseline, "store of %u episodes", x[1].episodes);
    char id[48];
    if (strcmp(stage, "as grown") == 0)
        snprintf(id, sizeof id, "scale_apply_%u", x[0].episodes);
    else
        snprintf(id, sizeof id, "scale_apply_%s_%u", stage, x[0].episodes);
    kd_bench_pair p = {.id = id,
                       .scenario = scenario,
                       .subject = subject,
                       .baseline = baseline,
                       .metrics = {{"apply", "us/move", 1.2, 0},
                                   {"revert", "us/move", 1.2, 0},
                                   /* drawn from the whole store: its pages are cold */
                                   {"apply all", "us/move", 2, 0},
                                   {"revert all", "us/move", 2, 0}},
                       .n_metrics = 4,
                       .run = apply_run,
                       .ctx = c};
    if (!err) {
        sr->missed += kd_bench_paired(sr->b, &p);
        log_summary(&c->log, 0, &f->apply_us, &f->apply_x);
        log_summary(&c->log, 1, &f->revert_us, &f->revert_x);
        log_summary(&c->log, 2, &f->wapply_us, &f->wapply_x);
        log_summary(&c->log, 3, &f->wrevert_us, &f->wrevert_x);
        kd_bench_note(sr->b,
                      "of the applies' time, the synced commit (LMDB's mdb_txn_commit) took %.0f %% (%u "
                      "episodes) and %.0f %% (%u episodes)",
                      100 * c->commit_s[0] / (c->apply_s[0] > 0 ? c->apply_s[0] : 1), x[0].episodes,
                      100 * c->commit_s[1] / (c->apply_s[1] > 0 ? c->apply_s[1] : 1), x[1].episodes);
        static const char *const probe_name[2] = {"newest", "whole store"};
        for (int k = 0; k < 2; k++)
            for (int side = 0; side < 2; side++) {
                double n = c->commits[side][k] > 0 ? c->commits[side][k] : 1;
                kd_bench_note(sr->b,
                              "pages written per commit (%s, %u episodes, %s): apply %.0f in %.0f runs, revert %.0f "
                              "in %.0f runs (a run: consecutive pages, one write call)",
                              probe_name[k], x[side].episodes, stage, c->wrote_pages[side][k][0] / n,
                              c->wrote_runs[side][k][0] / n, c->wrote_pages[side][k][1] / n,
                              c->wrote_runs[side][k][1] / n);
            }
    } else
        snprintf(why, why_len, "no verifier pool: %s", kd_err_str(err));
    kd_sig_pool_free(c->pool);
    free(c);
    return err;
}

/* The strategy context and a list page through gateways, paired; the
 * daemon's and the gateway's memory of the subject. */
static kd_err pair_queries(scale_run *sr, side_store x[2], scale_row *r, char *why, size_t why_len)
{
    query_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return KD_ERR_NOMEM;
    c->b = sr->b;
    c->next_id = KD_BENCH_ID_BASE;
    kd_bench_proc_init(&c->gw[0]);
    kd_bench_proc_init(&c->gw[1]);
    kd_err err = KD_OK;
    for (int i = 0; i < 2 && !err; i++) {
        kd_scale_store *s = i ? &sr->ref : &sr->grown;
        err = side_serve(sr->b, s, &x[i], &c->gw[i], why, why_len);
        c->ids[i] = x[i].probe.ids;
        c->n_ids[i] = x[i].probe.moves;
        c->episodes[i] = x[i].episodes;
    }
    char scenario[160], subject[64], baseline[64], id[32];
    snprintf(scenario, sizeof scenario, "scale %u episodes: %s and a %s page from the middle, stdio gateway",
             x[0].episodes, KD_BENCH_TOOL, LIST_TOOL);
    snprintf(subject, sizeof subject, "store of %u episodes", x[0].episodes);
    snprintf(baseline, sizeof baseline, "store of %u episodes", x[1].episodes);
    snprintf(id, sizeof id, "scale_query_%u", x[0].episodes);
    kd_bench_pair p = {.id = id,
                       .scenario = scenario,
                       .subject = subject,
                       .baseline = baseline,
                       .metrics = {{"strategy", "us/call", 1.2, 0}, {"list page", "us/call", 1.2, 0}},
                       .n_metrics = 2,
                       .run = query_run,
                       .ctx = c};
    if (!err) {
        sr->missed += kd_bench_paired(sr->b, &p);
        log_summary(&c->log, 0, &r->query_us, &r->query_x);
        log_summary(&c->log, 1, &r->list_us, &r->list_x);
        r->daemon = kd_scale_mem_of(x[0].daemon.pid);
        r->gateway = kd_scale_mem_of(c->gw[0].pid);
    }
    kd_bench_proc_stop(&c->gw[0], 0);
    kd_bench_proc_stop(&c->gw[1], 0);
    free(c->gw[0].buf);
    free(c->gw[1].buf);
    free(c);
    return err;
}

/* Both copies compacted as `kdapp compact` does (their daemons stopped:
 * it needs the store to itself), then apply and revert paired again. */
static kd_err pair_compacted(scale_run *sr, side_store x[2], scale_row *r, char *why, size_t why_len)
{
    kd_err err = KD_OK;
    for (int i = 0; i < 2 && !err; i++) {
        kd_scale_store *s = i ? &sr->ref : &sr->grown;
        kd_store_compaction done;
        kd_scale_daemon_stop(&x[i].daemon);
        double t0 = kd_bench_now();
        if (!(err = kd_store_compact(x[i].dir, &done, why, why_len))) {
            kd_bench_note(sr->b, "compacted the copy of %u episodes in %.1f s: %.1f MiB -> %.1f MiB", x[i].episodes,
                          kd_bench_now() - t0, (double)done.bytes_before / 1048576.0,
                          (double)done.bytes_after / 1048576.0);
            err = kd_scale_engine_open(s, x[i].dir, 0, &x[i].engine, why, why_len);
        }
    }
    return err ? err : pair_apply(sr, x, "compacted", &r->compacted, why, why_len);
}

static void note_row(const kd_bench_ctx *b, const scale_row *r, uint64_t finality)
{
    kd_bench_note(b, "%.0f episodes, %.0f txs in %.0f log entries (blocks); grown in %.1f s", r->episodes, r->txs,
                  r->entries, r->grow_s);
    kd_bench_note(b,
                  "LMDB file %.1f MiB, %.0f B per tx; the log %.0f B per tx (kept for ever); undo %.2f MiB in %.0f "
                  "records of %.0f B (at most the last %llu blocks: pruned behind the finality depth); episodes "
                  "%.0f B each; %.1f MiB of the file free for reuse",
                  r->file_mib, r->bytes_per_tx, r->log_per_tx, r->undo_mib, r->undo_records, r->undo_per_record,
                  (unsigned long long)finality, r->state_per_ep, r->free_mib);
    kd_bench_note(b, "replay of the whole log: %.2f s, %.0f tx/s", r->replay_s, r->replay_tps);
    kd_bench_note(b,
                  "engine daemon: %.1f MiB anonymous, %.1f MiB resident with the mapped file (peak %.1f); gateway: "
                  "%.1f MiB anonymous, peak %.1f MiB resident",
                  r->daemon.anon_kb / 1024.0, r->daemon.rss_kb / 1024.0, r->daemon.hwm_kb / 1024.0,
                  r->gateway.anon_kb / 1024.0, r->gateway.hwm_kb / 1024.0);
}

/* Everything measured on the store grown to its current size. */
static kd_err checkpoint(scale_run *sr, scale_row *r, char *why, size_t why_len)
{
    const kd_bench_ctx *b = sr->b;
    kd_scale_store *s = &sr->grown;
    side_store x[2];
    memset(x, 0, sizeof x);
    kd_bench_proc_init(&x[0].daemon), kd_bench_proc_init(&x[1].daemon);
    r->episodes = s->episodes;
    r->txs = (double)s->txs;
    kd_scale_store_detach(s);
    kd_scale_store_detach(&sr->ref);
    measure_size(s->dir, s->txs, s->episodes, r);
    kd_err err = measure_replay(s, r, why, why_len);
    if (!err)
        err = side_open(s, "scale-subject", sr->probe_moves, 0xC0FFEEULL + s->episodes, &x[0], why, why_len);
    if (!err)
        err = side_open(&sr->ref, "scale-ref", sr->probe_moves, 0xBEEFULL, &x[1], why, why_len);
    if (!err)
        err = pair_apply(sr, x, "as grown", &r->grown, why, why_len);
    if (!err)
        err = pair_queries(sr, x, r, why, why_len);
    if (!err)
        err = pair_compacted(sr, x, r, why, why_len);
    side_fini(&x[0]);
    side_fini(&x[1]);
    if (!err)
        note_row(b, r, s->finality);
    return err;
}

/* -------------------------------------------------------------- the report */

static void write_data(FILE *fp, const scale_row *rows, size_t n)
{
    fprintf(fp, "# episodes\ttxs\tlog_entries\tapply_us\trevert_us\tquery_us\tlist_us\treplay_s\treplay_tx_s\t"
                "file_mib\tbytes_per_tx\tundo_mib\tdaemon_anon_mib\tdaemon_rss_mib\tgateway_anon_mib\t"
                "gateway_peak_mib\tapply_x\trevert_x\tquery_x\tlist_x\tapply_all_us\trevert_all_us\tapply_all_x\t"
                "revert_all_x\tfree_mib\tcompacted_apply_us\tcompacted_revert_us\tcompacted_apply_x\t"
                "compacted_revert_x\tcompacted_apply_all_us\tcompacted_revert_all_us\tcompacted_apply_all_x\t"
                "compacted_revert_all_x\n");
    for (size_t i = 0; i < n; i++) {
        const scale_row *r = &rows[i];
        const apply_figures *g = &r->grown, *c = &r->compacted;
        fprintf(fp,
                "%.0f\t%.0f\t%.0f\t%.3f\t%.3f\t%.1f\t%.1f\t%.3f\t%.0f\t%.2f\t%.1f\t%.3f\t%.1f\t%.1f\t%.1f\t%.1f\t%.3f\t"
                "%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.2f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\n",
                r->episodes, r->txs, r->entries, g->apply_us, g->revert_us, r->query_us, r->list_us, r->replay_s,
                r->replay_tps, r->file_mib, r->bytes_per_tx, r->undo_mib, r->daemon.anon_kb / 1024.0,
                r->daemon.rss_kb / 1024.0, r->gateway.anon_kb / 1024.0, r->gateway.hwm_kb / 1024.0, g->apply_x,
                g->revert_x, r->query_x, r->list_x, g->wapply_us, g->wrevert_us, g->wapply_x, g->wrevert_x, r->free_mib,
                c->apply_us, c->revert_us, c->apply_x, c->revert_x, c->wapply_us, c->wrevert_us, c->wapply_x,
                c->wrevert_x);
    }
}

static const char gnuplot_script[] =
    "# scale.gp: the chart of kdapp bench --scale (scale.tsv); run: gnuplot scale.gp\n"
    "set terminal svg size 960,760 dynamic enhanced font 'sans,12' background rgb 'white'\n"
    "set output 'scale.svg'\n"
    "set datafile separator tab\n"
    "set multiplot layout 2,1 title 'kdapp bench --scale: cost as the store grows'\n"
    "set logscale xy\n"
    "set format x '10^{%L}'\n"
    "set offsets graph 0.05, graph 0.05, 0, 0\n"
    "set grid\n"
    "set key outside right\n"
    "set xlabel 'episodes in the store'\n"
    "set ylabel 'microseconds'\n"
    "plot 'scale.tsv' using 1:4 with linespoints title 'apply / move', \\\n"
    "     '' using 1:5 with linespoints title 'revert / move', \\\n"
    "     '' using 1:21 with linespoints title 'apply / move, whole store', \\\n"
    "     '' using 1:22 with linespoints title 'revert / move, whole store', \\\n"
    "     '' using 1:26 with linespoints title 'apply / move, compacted', \\\n"
    "     '' using 1:30 with linespoints title 'apply / move, whole store, compacted', \\\n"
    "     '' using 1:6 with linespoints title 'strategy context', \\\n"
    "     '' using 1:7 with linespoints title 'list page'\n"
    "set ylabel 'MiB, seconds'\n"
    "plot '' using 1:10 with linespoints title 'LMDB file (MiB)', \\\n"
    "     '' using 1:12 with linespoints title 'undo records (MiB)', \\\n"
    "     '' using 1:8 with linespoints title 'replay (s)', \\\n"
    "     '' using 1:13 with linespoints title 'daemon anon (MiB)', \\\n"
    "     '' using 1:15 with linespoints title 'gateway anon (MiB)'\n"
    "unset multiplot\n";

/* scale.tsv and scale.gp in the chart directory, then `gnuplot scale.gp` there. */
static void write_chart(const kd_bench_ctx *b, const char *dir, const scale_row *rows, size_t n)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/scale.tsv", dir);
    FILE *fp = fopen(path, "w");
    if (fp)
        write_data(fp, rows, n);
    if (!fp || fclose(fp) != 0) {
        kd_bench_note(b, "cannot write %s", path);
        return;
    }
    snprintf(path, sizeof path, "%s/scale.gp", dir);
    if (!(fp = fopen(path, "w")) || fputs(gnuplot_script, fp) < 0 || fclose(fp) != 0) {
        kd_bench_note(b, "cannot write %s", path);
        return;
    }
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) /* its warnings too: the exit status tells */
            dup2(null, 1), dup2(null, 2);
        if (chdir(dir) == 0)
            execlp("gnuplot", "gnuplot", "scale.gp", (char *)NULL);
        _exit(127);
    }
    int status = -1;
    if (pid > 0)
        waitpid(pid, &status, 0);
    if (pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0)
        kd_bench_note(b, "chart: %s/scale.svg (data scale.tsv, script scale.gp)", dir);
    else if (pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 127)
        kd_bench_note(b,
                      "no chart: gnuplot is not installed (Debian's package gnuplot-nox); %s/scale.tsv and "
                      "scale.gp are written: run `gnuplot scale.gp` there",
                      dir);
    else
        kd_bench_note(b, "gnuplot scale.gp failed in %s (exit status %d): run it there to see why", dir, status);
}

static void report(const kd_bench_ctx *b, const scale_row *rows, size_t n)
{
    static const char *const columns[] = {"episodes",
                                          "txs (log entries)",
                                          "apply us/move (x ref)",
                                          "revert us/move (x ref)",
                                          "apply / revert us/move, whole store (x ref)",
                                          "compacted: apply / revert us/move (x ref)",
                                          "compacted, whole store: apply / revert us/move (x ref)",
                                          "strategy us (x ref)",
                                          "list page us (x ref)",
                                          "replay s (tx/s)",
                                          "file MiB (B/tx)",
                                          "undo MiB (records)",
                                          "daemon MiB anon / RSS",
                                          "gateway MiB anon / peak"};
    enum { NC = sizeof columns / sizeof *columns, W = 48 };
    static char cells[MAX_ROWS][NC][W];
    const char *rowp[MAX_ROWS * NC];
    for (size_t i = 0; i < n; i++) {
        const scale_row *r = &rows[i];
        char(*c)[W] = cells[i];
        snprintf(c[0], W, "%.0f", r->episodes);
        snprintf(c[1], W, "%.0f (%.0f)", r->txs, r->entries);
        const apply_figures *g = &r->grown, *z = &r->compacted;
        snprintf(c[2], W, "%.2f (%.2f)", g->apply_us, g->apply_x);
        snprintf(c[3], W, "%.2f (%.2f)", g->revert_us, g->revert_x);
        snprintf(c[4], W, "%.2f (%.2f) / %.2f (%.2f)", g->wapply_us, g->wapply_x, g->wrevert_us, g->wrevert_x);
        snprintf(c[5], W, "%.2f (%.2f) / %.2f (%.2f)", z->apply_us, z->apply_x, z->revert_us, z->revert_x);
        snprintf(c[6], W, "%.2f (%.2f) / %.2f (%.2f)", z->wapply_us, z->wapply_x, z->wrevert_us, z->wrevert_x);
        snprintf(c[7], W, "%.0f (%.2f)", r->query_us, r->query_x);
        snprintf(c[8], W, "%.0f (%.2f)", r->list_us, r->list_x);
        snprintf(c[9], W, "%.2f (%.0f)", r->replay_s, r->replay_tps);
        snprintf(c[10], W, "%.1f (%.0f)", r->file_mib, r->bytes_per_tx);
        snprintf(c[11], W, "%.2f (%.0f)", r->undo_mib, r->undo_records);
        snprintf(c[12], W, "%.1f / %.1f", r->daemon.anon_kb / 1024.0, r->daemon.rss_kb / 1024.0);
        snprintf(c[13], W, "%.1f / %.1f", r->gateway.anon_kb / 1024.0, r->gateway.hwm_kb / 1024.0);
        for (size_t k = 0; k < NC; k++)
            rowp[i * NC + k] = c[k];
    }
    const char *dir = b->chart_dir ? b->chart_dir : ".";
    mkdir(dir, 0755); /* the chart directory (its parent must exist) */
    char chart[4200];
    snprintf(chart, sizeof chart, "%s/scale.svg", dir);
    kd_bench_table(b, "scale", "Cost as the work grows", columns, NC, rowp, n, chart);
    write_chart(b, dir, rows, n);
}

/* ------------------------------------------------------------------ driver */

int kd_bench_scale(const kd_bench_ctx *b)
{
    scale_run *sr = calloc(1, sizeof *sr);
    scale_row rows[MAX_ROWS];
    memset(rows, 0, sizeof rows);
    char why[512] = "", gdir[400] = "", rdir[400] = "";
    size_t n_rows = 0;
    if (!sr)
        return 1;
    sr->b = b;
    size_t lanes = b->quick ? 100 : 1000;
    uint64_t finality = b->quick ? 5 : 100;
    uint32_t ref_n = b->quick ? 100 : 1000, first = 1000, last = 1;
    for (unsigned i = 0; i < b->scale_max_exp; i++)
        last *= 10;
    sr->probe_moves = b->quick ? 50 : 200;
    kd_bench_heading(b, "scale: a store grown to %u episodes of board games (blocks of %zu txs, finality %llu blocks)",
                     last, lanes, (unsigned long long)finality);
    kd_err err = kd_bench_mkdtemp(b, "scale", gdir, sizeof gdir) || kd_bench_mkdtemp(b, "scale-ref", rdir, sizeof rdir)
                     ? KD_ERR_IO
                     : KD_OK;
    if (!err)
        err = kd_scale_store_open(b, &sr->ref, rdir, "ref", lanes, finality, why, sizeof why);
    if (!err)
        err = kd_scale_store_open(b, &sr->grown, gdir, "grown", lanes, finality, why, sizeof why);
    double t0 = kd_bench_now();
    if (!err && !(err = kd_scale_store_grow(&sr->ref, ref_n, why, sizeof why))) {
        kd_bench_note(b, "reference store: %u episodes, %llu txs, grown in %.1f s", ref_n,
                      (unsigned long long)sr->ref.txs, kd_bench_now() - t0);
        kd_scale_store_detach(&sr->ref);
    }
    for (uint32_t n = first; !err && n <= last && n_rows < MAX_ROWS; n *= 10) {
        double g0 = kd_bench_now();
        uint64_t tx0 = sr->grown.txs;
        if ((err = kd_scale_store_grow(&sr->grown, n, why, sizeof why)))
            break;
        scale_row *r = &rows[n_rows];
        r->grow_s = kd_bench_now() - g0;
        kd_bench_heading(b, "scale: %u episodes: grown by %llu txs in %.1f s (%.0f tx/s); measuring", n,
                         (unsigned long long)(sr->grown.txs - tx0), r->grow_s,
                         (double)(sr->grown.txs - tx0) / (r->grow_s > 0 ? r->grow_s : 1));
        double c0 = kd_bench_now();
        if (!(err = checkpoint(sr, r, why, sizeof why))) {
            n_rows++;
            kd_bench_note(b, "checkpoint measured in %.1f s", kd_bench_now() - c0);
        }
    }
    if (err)
        kd_bench_note(b, "scale: FAILED: %s%s%s", kd_err_str(err), *why ? ": " : "", why);
    if (n_rows)
        report(b, rows, n_rows);
    int missed = sr->missed + (err ? 1 : 0);
    kd_scale_store_close(&sr->grown);
    kd_scale_store_close(&sr->ref);
    if (gdir[0])
        kd_remove_tree(gdir);
    if (rdir[0])
        kd_remove_tree(rdir);
    free(sr);
    return missed;
}
