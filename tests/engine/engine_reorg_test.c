/*
 * engine_reorg_test.c — a reorg's reverts in one write transaction
 * (kd_engine_ingest_reverts, engine/revert.c): each revert gets the
 * verdict, log entry and listener event it gets alone (applied, refused
 * not_tip or unknown_block, duplicate), the store ends byte for byte where
 * the one-by-one path ends, the listener hears each revert only once the
 * whole run is durable, with that revert's own tip and digest; a run whose
 * transaction fills the map is applied again one by one, growing it; the
 * revertible depth (kd_tip.revertible) counts the blocks above the
 * finality horizon, which a reorg does not lower; a crash before the
 * run's commit leaves none of it, one after leaves all of it, and the
 * reorg sent again ends where an uncrashed store ends (KD_CRASHPOINTS
 * builds).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "engine/logger.h"
#include "engine/support.h"
#include "kdapp.pb-c.h"

static et_env a, b;

static void teardown(void)
{
    et_env_fini(&a);
    et_env_fini(&b);
}

TestSuite(engine_reorg, .fini = teardown, .timeout = 120);

#define MAX_COMMITS 100

/* What the listener heard, and the store's tip when it heard it. */
typedef struct {
    kd_engine *engine;
    size_t n;
    uint64_t seq[MAX_COMMITS], height[MAX_COMMITS], stored_height[MAX_COMMITS];
    uint8_t digest[MAX_COMMITS][KD_HASH_LEN];
} heard;

static void listen(void *ctx, const kd_commit *c)
{
    heard *h = ctx;
    cr_assert_lt(h->n, MAX_COMMITS);
    kd_tip stored;
    et_tip(h->engine, &stored);
    h->seq[h->n] = c->log_seq;
    h->height[h->n] = c->tip_height;
    h->stored_height[h->n] = stored.height;
    memcpy(h->digest[h->n], c->digest, KD_HASH_LEN);
    h->n++;
}

/* b1 creates episodes 1 and 2, b2 .. b6 each a move in one of them. */
static void build(kd_engine *e)
{
    static const uint8_t moves[5][4] = {{1, 0, 0, 0}, {2, 1, 1, 0}, {1, 1, 1, 1}, {2, 2, 2, 1}, {1, 2, 2, 0}};
    et_txs t;
    et_txs_init(&t);
    et_add_create(&t, 1, "alice", "bob", -1);
    et_add_create(&t, 2, "carol", "dave", -1);
    et_accept_ok(e, "b1", &t);
    uint64_t counter[3] = {0, 0, 0};
    for (int i = 0; i < 5; i++) {
        et_txs_clear(&t);
        uint32_t id = moves[i][0];
        uint8_t player = moves[i][3];
        const char *signer = id == 1 ? (player ? "bob" : "alice") : (player ? "dave" : "carol");
        et_add_move(&t, id, moves[i][1], moves[i][2], player, signer, counter[id]++);
        char name[8];
        snprintf(name, sizeof name, "b%d", i + 2);
        et_accept_ok(e, name, &t);
    }
    et_txs_fini(&t);
}

/* The reverts of `names` decoded, as a request carries them. */
static void decode_reverts(const char *const *names, size_t n, Kdapp__EngineMsg **m)
{
    for (size_t i = 0; i < n; i++)
        m[i] = et_revert_decoded(names[i]);
}

Test(engine_reorg, reverts_in_one_transaction_end_where_one_by_one_ends)
{
    /* tip, tip, unknown, a re-sent revert, not the tip, tip */
    static const char *const names[] = {"b6", "b5", "zz", "b5", "b3", "b4"};
    enum { N = 6 };
    heard ha = {0}, hb = {0};
    et_env_open(&a, 0, 0);
    et_env_open(&b, 0, 0);
    build(a.engine);
    build(b.engine);
    ha.engine = a.engine;
    hb.engine = b.engine;
    kd_engine_set_listener(a.engine, listen, &ha);
    kd_engine_set_listener(b.engine, listen, &hb);

    Kdapp__EngineMsg *m[N];
    kd_msg_result ra[N], rb[N];
    decode_reverts(names, N, m);
    size_t done = 0;
    ET_ASSERT_OK(kd_engine_ingest_reverts(a.engine, m, N, ra, &done));
    cr_assert_eq(done, N);
    for (size_t i = 0; i < N; i++)
        et_revert(b.engine, names[i], &rb[i]);

    static const kd_msg_status want[N] = {KD_MSG_APPLIED,   KD_MSG_APPLIED, KD_MSG_REFUSED,
                                          KD_MSG_DUPLICATE, KD_MSG_REFUSED, KD_MSG_APPLIED};
    static const kd_err want_err[N] = {KD_OK, KD_OK, KD_ERR_UNKNOWN_BLOCK, KD_OK, KD_ERR_NOT_TIP, KD_OK};
    for (size_t i = 0; i < N; i++) {
        cr_expect_eq(ra[i].status, want[i], "revert %zu (%s): status %d", i, names[i], ra[i].status);
        cr_expect_eq(rb[i].status, ra[i].status, "revert %zu: the same verdict one by one", i);
        ET_EXPECT_ERR(ra[i].err, want_err[i]);
        cr_expect_eq(ra[i].log_seq, rb[i].log_seq, "revert %zu: the same log position", i);
        cr_expect_str_eq(ra[i].detail, rb[i].detail, "revert %zu: the same sentence", i);
        kd_msg_result_fini(&ra[i]);
        kd_msg_result_fini(&rb[i]);
        kdapp__engine_msg__free_unpacked(m[i], NULL);
    }

    et_expect_same_store(a.engine, b.engine);
    kd_tip ta;
    et_tip(a.engine, &ta);
    cr_expect_eq(ta.height, 3);
    for (uint64_t s = 1; s <= ta.last_seq; s++) {
        kd_buf la, lb;
        kd_buf_init(&la);
        kd_buf_init(&lb);
        et_log_raw(a.engine, s, &la);
        et_log_raw(b.engine, s, &lb);
        cr_expect(la.len == lb.len && memcmp(la.data, lb.data, la.len) == 0, "log entry %llu is the same",
                  (unsigned long long)s);
        kd_buf_fini(&la);
        kd_buf_fini(&lb);
    }

    /* Heard: the three applied reverts, in order, each with its own tip
     * and digest; the batch only once all three were durable. */
    cr_assert_eq(ha.n, 3);
    cr_assert_eq(hb.n, 3);
    for (size_t i = 0; i < 3; i++) {
        cr_expect_eq(ha.seq[i], hb.seq[i]);
        cr_expect_eq(ha.height[i], hb.height[i], "commit %zu: its own tip height", i);
        et_expect_hash_eq(ha.digest[i], hb.digest[i], "its own digest");
        cr_expect_eq(ha.stored_height[i], 3, "commit %zu heard after the whole run was committed", i);
        cr_expect_eq(hb.stored_height[i], hb.height[i], "one by one: heard after its own commit");
    }
}

Test(engine_reorg, reverts_only)
{
    et_env_open(&a, 0, 0);
    build(a.engine);
    kd_buf buf;
    kd_buf_init(&buf);
    et_accept_msg("b9", &(et_txs){0}, &buf);
    Kdapp__EngineMsg *m[2] = {kdapp__engine_msg__unpack(NULL, buf.len, buf.data), NULL};
    kd_buf_fini(&buf);
    m[1] = et_revert_decoded("b6");
    kd_msg_result r[2];
    size_t done = 7;
    ET_EXPECT_ERR(kd_engine_ingest_reverts(a.engine, m, 2, r, &done), KD_ERR_INVALID_ARG);
    cr_expect_eq(done, 0);
    kd_tip tip;
    et_tip(a.engine, &tip);
    cr_expect_eq(tip.height, 6, "nothing done");
    kdapp__engine_msg__free_unpacked(m[0], NULL);
    kdapp__engine_msg__free_unpacked(m[1], NULL);
}

/* Counts the "map grown" lines of the store's log. */
static void count_growth(void *ctx, kd_log_level level, const char *subsystem, const char *line)
{
    (void)level;
    if (strcmp(subsystem, "store") == 0 && strstr(line, "map grown"))
        ++*(int *)ctx;
}

Test(engine_reorg, a_run_that_fills_the_map_grows_it_and_starts_over)
{
    enum { BLOCKS = 120 };
    char dir[512];
    et_tmpdir(dir, sizeof dir);
    kd_engine_options o = {.map_size = 64 << 10};
    char why[256];
    cr_assert_eq(et_env_attach_with(&a, dir, 0, &o, why, sizeof why), KD_OK, "%s", why);
    a.own_dir = 1;
    et_env_open(&b, 0, 0);
    et_txs t;
    et_txs_init(&t);
    for (int i = 0; i < BLOCKS; i++) {
        char name[16];
        snprintf(name, sizeof name, "f%d", i);
        et_fill_block(i, &t);
        et_accept_ok(a.engine, name, &t);
        et_accept_ok(b.engine, name, &t);
    }
    et_txs_fini(&t);
    /* Reopened at its grown size: the pages of a revert run cannot reuse
     * what the run itself frees, so it needs more than the file has. */
    et_env_close(&a);
    cr_assert_eq(et_env_attach_with(&a, dir, 0, &o, why, sizeof why), KD_OK, "%s", why);
    a.own_dir = 1;

    enum { DEPTH = 100 };
    Kdapp__EngineMsg *m[DEPTH];
    kd_msg_result r[DEPTH];
    for (int i = 0; i < DEPTH; i++) {
        char name[16];
        snprintf(name, sizeof name, "f%d", BLOCKS - 1 - i);
        m[i] = et_revert_decoded(name);
        et_revert_ok(b.engine, name);
    }
    static heard h; /* too big for the stack of a test */
    memset(&h, 0, sizeof h);
    h.engine = a.engine;
    kd_engine_set_listener(a.engine, listen, &h);
    int grown = 0;
    kd_log_set_sink(count_growth, &grown);
    kd_log_set_level(KD_LOG_INFO);
    size_t done = 0;
    kd_err err = kd_engine_ingest_reverts(a.engine, m, DEPTH, r, &done);
    kd_log_set_sink(NULL, NULL);
    ET_ASSERT_OK(err);
    cr_assert_eq(done, DEPTH);
    cr_expect_gt(grown, 0, "the map grew: the shared transaction hit a full map");
    for (int i = 0; i < DEPTH; i++) {
        cr_expect_eq(r[i].status, KD_MSG_APPLIED, "revert %d", i);
        kd_msg_result_fini(&r[i]);
        kdapp__engine_msg__free_unpacked(m[i], NULL);
    }
    et_expect_same_store(a.engine, b.engine);
    kd_tip ta;
    et_tip(a.engine, &ta);
    /* Heard only after the whole run was durable: one transaction, after the growth. */
    cr_assert_eq(h.n, DEPTH);
    for (size_t i = 0; i < h.n; i++)
        cr_expect_eq(h.stored_height[i], ta.height, "commit %zu heard after the whole run", i);
}

Test(engine_reorg, the_revertible_depth_stops_at_the_finality_horizon)
{
    et_env_open(&a, 0, 4);
    kd_tip tip;
    et_tip(a.engine, &tip);
    cr_expect_eq(tip.revertible, 0, "an empty store");
    build(a.engine); /* 6 blocks, finality 4 */
    et_tip(a.engine, &tip);
    cr_expect_eq(tip.finality_depth, 4);
    cr_expect_eq(tip.revertible, 4, "the last 4 of 6");
    for (const char *const *n = (const char *const[]){"b6", "b5", "b4", "b3", NULL}; *n; n++)
        et_revert_ok(a.engine, *n);
    et_tip(a.engine, &tip);
    cr_expect_eq(tip.height, 2);
    cr_expect_eq(tip.revertible, 0, "the tip a reorg returns to was made final when the chain was higher");
    kd_msg_result r;
    et_revert(a.engine, "b2", &r);
    cr_expect_eq(r.status, KD_MSG_REFUSED);
    ET_EXPECT_ERR(r.err, KD_ERR_BEYOND_FINALITY);
    kd_msg_result_fini(&r);
    et_txs t;
    et_txs_init(&t);
    et_accept_ok(a.engine, "n1", &t);
    et_txs_fini(&t);
    et_tip(a.engine, &tip);
    cr_expect_eq(tip.revertible, 1, "only the block since");
}

#ifdef KD_CRASHPOINTS
enum { CRASH_BLOCKS = 8, CRASH_DEPTH = 5 };

static void crash_build(kd_engine *e)
{
    et_txs t;
    et_txs_init(&t);
    for (int i = 0; i < CRASH_BLOCKS; i++) {
        char name[16];
        snprintf(name, sizeof name, "c%d", i);
        et_fill_block(i, &t);
        et_accept_ok(e, name, &t);
    }
    et_txs_fini(&t);
}

/* The reorg of the last CRASH_DEPTH blocks, in one call; the verdicts in res. */
static void crash_reorg(kd_engine *e, kd_msg_result *res)
{
    struct Kdapp__EngineMsg *m[CRASH_DEPTH];
    for (int i = 0; i < CRASH_DEPTH; i++) {
        char name[16];
        snprintf(name, sizeof name, "c%d", CRASH_BLOCKS - 1 - i);
        m[i] = et_revert_decoded(name);
    }
    size_t done = 0;
    ET_ASSERT_OK(kd_engine_ingest_reverts(e, m, CRASH_DEPTH, res, &done));
    cr_expect_eq(done, CRASH_DEPTH);
    for (int i = 0; i < CRASH_DEPTH; i++)
        kdapp__engine_msg__free_unpacked(m[i], NULL);
}

static void crash_in_reorg(void *ctx)
{
    char why[256];
    if (et_env_attach(&a, ctx, 0, 0, 0, why, sizeof why) != KD_OK)
        _exit(4);
    crash_build(a.engine);
    kd_msg_result res[CRASH_DEPTH];
    crash_reorg(a.engine, res); /* aborts in the run's commit */
}

Test(engine_reorg, a_crash_in_a_reorg_leaves_all_of_it_or_none_and_the_reorg_sent_again_ends_the_same)
{
    /* each block's commit is one hit; the run's, the ninth */
    static const struct {
        const char *at;
        int committed;
    } cases[] = {{"before_commit:9", 0}, {"after_commit:9", 1}};
    char dirs[2][512];
    for (size_t c = 0; c < 2; c++) { /* every child first: this process then uses engines */
        et_tmpdir(dirs[c], sizeof dirs[c]);
        et_crash_child(cases[c].at, crash_in_reorg, dirs[c]);
    }
    for (size_t c = 0; c < 2; c++) {
        kd_msg_result res[CRASH_DEPTH];
        et_env_open(&b, 0, 0);
        crash_build(b.engine);
        char why[256];
        cr_assert_eq(et_env_attach(&a, dirs[c], 0, 0, 0, why, sizeof why), KD_OK, "%s: %s", cases[c].at, why);
        a.own_dir = 1;
        kd_tip tip;
        et_tip(a.engine, &tip);
        cr_expect_eq(tip.height, cases[c].committed ? CRASH_BLOCKS - CRASH_DEPTH : CRASH_BLOCKS, "%s: height %llu",
                     cases[c].at, (unsigned long long)tip.height);
        if (cases[c].committed) {
            crash_reorg(b.engine, res);
            for (int i = 0; i < CRASH_DEPTH; i++)
                kd_msg_result_fini(&res[i]);
        }
        et_expect_same_store(a.engine, b.engine);
        /* The reorg was not acknowledged: its sender sends it again. */
        crash_reorg(a.engine, res);
        for (int i = 0; i < CRASH_DEPTH; i++) {
            cr_expect_eq(res[i].status, cases[c].committed ? KD_MSG_DUPLICATE : KD_MSG_APPLIED, "%s: revert %d: %s",
                         cases[c].at, i, res[i].detail);
            kd_msg_result_fini(&res[i]);
        }
        if (!cases[c].committed) {
            crash_reorg(b.engine, res);
            for (int i = 0; i < CRASH_DEPTH; i++)
                kd_msg_result_fini(&res[i]);
        }
        et_expect_same_store(a.engine, b.engine);
        et_env_fini(&a);
        et_env_fini(&b);
    }
}
#endif
