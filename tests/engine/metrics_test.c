/*
 * metrics_test.c — the stored form of the metrics (engine/metrics.c):
 * counts per error code are stored under the code's name, so a record
 * written by a build whose error table has a code more (in the middle of
 * the table, as a new game's codes would be) keeps every count with its
 * code; the positional layout of earlier versions is still read; and a
 * store written in that layout keeps its counts across an upgrade.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "engine/metrics.h"
#include "engine/support.h"

/* Words of the positional layout: 6 counters, 40 rejections, 40 refusals,
 * 3 more counters, 4 histograms of count, sum and 12 buckets. */
#define OLD_CODES 40
#define OLD_WORDS (6 + 2 * OLD_CODES + 3 + 4 * 14)
/* Positions of codes in the error table of that layout. */
#define OLD_WRONG_TURN 25
#define OLD_CELL_OCCUPIED 27
#define OLD_NOT_TIP 30

static void sample(kd_metrics *m)
{
    memset(m, 0, sizeof *m);
    m->blocks_applied = 12;
    m->blocks_reverted = 2;
    m->txs_applied = 30;
    m->txs_rejected = 8;
    m->refusals = 2;
    m->rejections[KD_ERR_CELL_OCCUPIED] = 5;
    m->rejections[KD_ERR_WRONG_TURN] = 3;
    m->refused[KD_ERR_NOT_TIP] = 2;
    m->tip_time_ms = 1700000000000ull;
    kd_histogram_observe(&m->hist[KD_HIST_APPLY_US], KD_HIST_APPLY_US, 300);
    kd_histogram_observe(&m->hist[KD_HIST_REORG_DEPTH], KD_HIST_REORG_DEPTH, 2);
}

static uint64_t count_of(const Kdapp__Store__CodeCount *const *cc, size_t n, const char *code)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(cc[i]->code, code) == 0)
            return cc[i]->count;
    return 0;
}

static uint64_t total(const uint64_t *counts)
{
    uint64_t sum = 0;
    for (int e = 0; e < KD_ERR_COUNT_; e++)
        sum += counts[e];
    return sum;
}

Test(metrics, codes_are_stored_under_their_names)
{
    kd_metrics m, back;
    sample(&m);
    kd_buf b;
    kd_buf_init(&b);
    ET_ASSERT_OK(kd_metrics_encode(&m, &b));
    Kdapp__Store__Metrics *rec = kdapp__store__metrics__unpack(NULL, b.len, b.data);
    cr_assert_not_null(rec, "the stored form is a store.proto Metrics");
    cr_expect_eq(rec->n_rejections, 2, "only the non-zero counts");
    cr_expect_eq(count_of((const Kdapp__Store__CodeCount *const *)rec->rejections, rec->n_rejections, "cell_occupied"),
                 5);
    cr_expect_eq(count_of((const Kdapp__Store__CodeCount *const *)rec->rejections, rec->n_rejections, "wrong_turn"), 3);
    cr_expect_eq(count_of((const Kdapp__Store__CodeCount *const *)rec->refused, rec->n_refused, "not_tip"), 2);
    cr_expect_eq(rec->n_histograms, KD_HIST_COUNT_);
    cr_expect_str_eq(rec->histograms[KD_HIST_APPLY_US]->name, "kdapp_apply_latency_seconds");
    kdapp__store__metrics__free_unpacked(rec, NULL);
    ET_ASSERT_OK(kd_metrics_decode(b.data, b.len, &back));
    cr_expect(memcmp(&m, &back, sizeof m) == 0, "encode then decode gives the same metrics");
    kd_buf_fini(&b);
}

/* A record as a build would store it whose error table has one code more,
 * "illegal_move", added between wrong_turn and cell_occupied: by position,
 * every count after it would land on the code before it. */
Test(metrics, a_table_with_a_code_added_keeps_every_count_with_its_code)
{
    Kdapp__Store__CodeCount occupied = KDAPP__STORE__CODE_COUNT__INIT, added = KDAPP__STORE__CODE_COUNT__INIT,
                            turn = KDAPP__STORE__CODE_COUNT__INIT, tip = KDAPP__STORE__CODE_COUNT__INIT;
    turn.code = "wrong_turn";
    turn.count = 3;
    added.code = "illegal_move";
    added.count = 7;
    occupied.code = "cell_occupied";
    occupied.count = 5;
    tip.code = "not_tip";
    tip.count = 2;
    Kdapp__Store__CodeCount *rejections[] = {&turn, &added, &occupied}, *refused[] = {&tip};
    uint64_t bounds[KD_HIST_BUCKETS], buckets[KD_HIST_BUCKETS] = {0, 4};
    memcpy(bounds, kd_metrics_bounds(KD_HIST_APPLY_US), sizeof bounds);
    Kdapp__Store__Histogram apply = KDAPP__STORE__HISTOGRAM__INIT, unknown = KDAPP__STORE__HISTOGRAM__INIT,
                            rebucketed = KDAPP__STORE__HISTOGRAM__INIT;
    apply.name = "kdapp_apply_latency_seconds";
    apply.count = 4;
    apply.sum = 1000;
    apply.n_bounds = apply.n_buckets = KD_HIST_BUCKETS;
    apply.bounds = bounds;
    apply.buckets = buckets;
    unknown = apply;
    unknown.name = "kdapp_a_histogram_from_later";
    rebucketed = apply; /* the same name with other bounds: other meanings */
    rebucketed.name = "kdapp_revert_latency_seconds";
    rebucketed.n_bounds = rebucketed.n_buckets = 2;
    Kdapp__Store__Histogram *hists[] = {&unknown, &apply, &rebucketed};
    Kdapp__Store__Metrics rec = KDAPP__STORE__METRICS__INIT;
    rec.txs_rejected = 15;
    rec.n_rejections = 3;
    rec.rejections = rejections;
    rec.n_refused = 1;
    rec.refused = refused;
    rec.n_histograms = 3;
    rec.histograms = hists;
    uint8_t buf[1024];
    size_t len = kdapp__store__metrics__pack(&rec, buf);

    kd_metrics m;
    ET_ASSERT_OK(kd_metrics_decode(buf, len, &m));
    cr_expect_eq(m.txs_rejected, 15);
    cr_expect_eq(m.rejections[KD_ERR_WRONG_TURN], 3);
    cr_expect_eq(m.rejections[KD_ERR_CELL_OCCUPIED], 5, "cell_occupied keeps its count");
    cr_expect_eq(total(m.rejections), 8, "the unknown code's count lands on no other code");
    cr_expect_eq(m.refused[KD_ERR_NOT_TIP], 2);
    cr_expect_eq(total(m.refused), 2);
    cr_expect_eq(m.hist[KD_HIST_APPLY_US].count, 4);
    cr_expect_eq(m.hist[KD_HIST_APPLY_US].buckets[1], 4);
    cr_expect_eq(m.hist[KD_HIST_REVERT_US].count, 0, "buckets with other bounds are left out");
}

/* The positional layout, as the version before wrote it. */
static void old_layout(uint8_t out[8 * OLD_WORDS])
{
    uint64_t w[OLD_WORDS] = {0};
    w[0] = 12; /* blocks_applied */
    w[4] = 8;  /* txs_rejected */
    w[6 + OLD_WRONG_TURN] = 3;
    w[6 + OLD_CELL_OCCUPIED] = 5;
    w[6 + OLD_CODES + OLD_NOT_TIP] = 2;
    w[6 + 2 * OLD_CODES + 1] = 1700000000000ull;          /* tip_time_ms */
    uint64_t *apply = &w[6 + 2 * OLD_CODES + 3 + 2 * 14]; /* the third histogram */
    apply[0] = 1;                                         /* count */
    apply[1] = 300;                                       /* sum */
    apply[2 + 1] = 1;                                     /* the <= 250 us bucket */
    for (size_t i = 0; i < OLD_WORDS; i++)
        kd_put_u64be(out + 8 * i, w[i]);
}

Test(metrics, the_positional_layout_of_earlier_versions_is_read)
{
    uint8_t old[8 * OLD_WORDS];
    old_layout(old);
    kd_metrics m;
    ET_ASSERT_OK(kd_metrics_decode(old, sizeof old, &m));
    cr_expect_eq(m.blocks_applied, 12);
    cr_expect_eq(m.txs_rejected, 8);
    cr_expect_eq(m.rejections[KD_ERR_WRONG_TURN], 3);
    cr_expect_eq(m.rejections[KD_ERR_CELL_OCCUPIED], 5);
    cr_expect_eq(m.refused[KD_ERR_NOT_TIP], 2);
    cr_expect_eq(m.tip_time_ms, 1700000000000ull);
    cr_expect_eq(m.hist[KD_HIST_APPLY_US].count, 1);
    cr_expect_eq(m.hist[KD_HIST_APPLY_US].buckets[1], 1);
    ET_EXPECT_ERR(kd_metrics_decode(old, sizeof old - 8, &m), KD_ERR_DECODE);
}

static void metrics_of(kd_engine *engine, kd_metrics *m)
{
    kd_read *rd;
    ET_ASSERT_OK(kd_engine_read_begin(engine, &rd));
    kd_err err = kd_read_metrics(rd, m);
    kd_engine_read_end(rd);
    ET_ASSERT_OK(err);
}

Test(metrics, a_store_in_the_positional_layout_keeps_its_counts)
{
    et_env env;
    et_env_open(&env, 0, 0);
    et_txs t;
    et_txs_init(&t);
    et_add_create(&t, 1, "alice", "bob", -1);
    et_add_move(&t, 1, 0, 0, 0, "alice", 0);
    et_accept_ok(env.engine, "m1", &t);
    et_env_close(&env);

    uint8_t old[8 * OLD_WORDS];
    old_layout(old);
    et_raw_put_meta(env.dir, "metrics", old, sizeof old); /* as the version before left it */
    et_env_reopen(&env);
    kd_metrics m;
    metrics_of(env.engine, &m);
    cr_expect_eq(m.rejections[KD_ERR_CELL_OCCUPIED], 5, "the stored counts are read");
    cr_expect_eq(m.refused[KD_ERR_NOT_TIP], 2);

    et_txs_clear(&t);
    et_add_move(&t, 1, 0, 0, 1, "bob", 1); /* O on X's cell */
    et_accept_ok(env.engine, "m2", &t);
    metrics_of(env.engine, &m);
    cr_expect_eq(m.rejections[KD_ERR_CELL_OCCUPIED], 6, "new rejections add to them");
    cr_expect_eq(m.rejections[KD_ERR_WRONG_TURN], 3);
    et_env_close(&env);

    kd_buf raw;
    kd_buf_init(&raw);
    et_raw_get_meta(env.dir, "metrics", &raw);
    Kdapp__Store__Metrics *rec = kdapp__store__metrics__unpack(NULL, raw.len, raw.data);
    cr_assert_not_null(rec, "the next commit stored them by name");
    cr_expect_eq(count_of((const Kdapp__Store__CodeCount *const *)rec->rejections, rec->n_rejections, "cell_occupied"),
                 6);
    cr_expect_eq(count_of((const Kdapp__Store__CodeCount *const *)rec->refused, rec->n_refused, "not_tip"), 2);
    kdapp__store__metrics__free_unpacked(rec, NULL);
    kd_buf_fini(&raw);
    et_txs_fini(&t);
    et_env_fini(&env);
}
