/*
 * metrics_test.c — the stored form of the metrics (engine/metrics.c):
 * counts per error code are stored under the code's name, engine codes
 * and the types' rule codes alike, so a record written by another build
 * keeps every count with its code, and counts stored when tic-tac-toe's
 * codes were engine codes load into the rule-code table; the rule-code
 * table is bounded (a name past it counts under "rule"); the positional
 * layout of earlier versions is still read; and a store written in that
 * layout keeps its counts across an upgrade.
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
    kd_code_counts_add(&m->rejections, KD_ERR_RULE, "cell_occupied", 5);
    kd_code_counts_add(&m->rejections, KD_ERR_RULE, "wrong_turn", 3);
    kd_code_counts_add(&m->rejections, KD_ERR_BAD_SIGNATURE, kd_err_code(KD_ERR_BAD_SIGNATURE), 1);
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

static uint64_t total_refused(const uint64_t *counts)
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
    cr_expect_eq(rec->n_rejections, 3, "only the non-zero counts");
    cr_expect_eq(count_of((const Kdapp__Store__CodeCount *const *)rec->rejections, rec->n_rejections, "cell_occupied"),
                 5);
    cr_expect_eq(count_of((const Kdapp__Store__CodeCount *const *)rec->rejections, rec->n_rejections, "wrong_turn"), 3);
    cr_expect_eq(count_of((const Kdapp__Store__CodeCount *const *)rec->rejections, rec->n_rejections, "bad_signature"),
                 1);
    cr_expect_eq(count_of((const Kdapp__Store__CodeCount *const *)rec->refused, rec->n_refused, "not_tip"), 2);
    cr_expect_eq(rec->n_histograms, KD_HIST_COUNT_);
    cr_expect_str_eq(rec->histograms[KD_HIST_APPLY_US]->name, "kdapp_apply_latency_seconds");
    kdapp__store__metrics__free_unpacked(rec, NULL);
    ET_ASSERT_OK(kd_metrics_decode(b.data, b.len, &back));
    cr_expect(memcmp(&m, &back, sizeof m) == 0, "encode then decode gives the same metrics");
    kd_buf_fini(&b);
}

/* A record as another build would store it: besides tic-tac-toe's codes
 * (stored by the build whose error table held them, or by this one as
 * rule codes: the same names) a rule code of a type this build does not
 * know, "illegal_move", and a refusal code it does not know. Every count
 * stays with its name: a rejection under a name that is no engine code is
 * a type's rule code; a refusal is always the engine's, so an unknown one
 * is left out. */
Test(metrics, every_count_stays_with_its_code)
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
    Kdapp__Store__CodeCount later = KDAPP__STORE__CODE_COUNT__INIT;
    later.code = "a_refusal_from_later";
    later.count = 9;
    Kdapp__Store__CodeCount *rejections[] = {&turn, &added, &occupied}, *refused[] = {&tip, &later};
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
    rec.n_refused = 2;
    rec.refused = refused;
    rec.n_histograms = 3;
    rec.histograms = hists;
    uint8_t buf[1024];
    size_t len = kdapp__store__metrics__pack(&rec, buf);

    kd_metrics m;
    ET_ASSERT_OK(kd_metrics_decode(buf, len, &m));
    cr_expect_eq(m.txs_rejected, 15);
    cr_expect_eq(kd_code_counts_get(&m.rejections, "wrong_turn"), 3);
    cr_expect_eq(kd_code_counts_get(&m.rejections, "cell_occupied"), 5, "cell_occupied keeps its count");
    cr_expect_eq(kd_code_counts_get(&m.rejections, "illegal_move"), 7, "another type's rule code keeps its count");
    cr_expect_eq(m.rejections.n_rules, 3, "all three are rule codes");
    cr_expect_eq(kd_code_counts_get(&m.rejections, "rule"), 0, "none is lumped under rule");
    cr_expect_eq(kd_code_counts_total(&m.rejections), 15);
    cr_expect_eq(m.refused[KD_ERR_NOT_TIP], 2);
    cr_expect_eq(total_refused(m.refused), 2, "the unknown refusal's count lands on no other code");
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
    cr_expect_eq(kd_code_counts_get(&m.rejections, "wrong_turn"), 3);
    cr_expect_eq(kd_code_counts_get(&m.rejections, "cell_occupied"), 5);
    cr_expect_eq(m.rejections.n_rules, 2, "tic-tac-toe's positions load as rule codes");
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
    cr_expect_eq(kd_code_counts_get(&m.rejections, "cell_occupied"), 5, "the stored counts are read");
    cr_expect_eq(m.refused[KD_ERR_NOT_TIP], 2);

    et_txs_clear(&t);
    et_add_move(&t, 1, 0, 0, 1, "bob", 1); /* O on X's cell */
    et_accept_ok(env.engine, "m2", &t);
    metrics_of(env.engine, &m);
    cr_expect_eq(kd_code_counts_get(&m.rejections, "cell_occupied"), 6, "new rejections add to them");
    cr_expect_eq(kd_code_counts_get(&m.rejections, "wrong_turn"), 3);
    cr_expect_eq(m.rejections.n_rules, 2, "under the same entry");
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

/* The rule-code table holds KD_METRICS_RULE_CODES names; a new name past
 * it, and a name that is not a plain code, count under "rule", while the
 * names it holds keep counting. */
Test(metrics, the_rule_code_table_is_bounded)
{
    kd_code_counts c;
    memset(&c, 0, sizeof c);
    char name[KD_METRICS_CODE_MAX];
    for (int i = 0; i < KD_METRICS_RULE_CODES; i++) {
        snprintf(name, sizeof name, "code_%d", i);
        kd_code_counts_add(&c, KD_ERR_RULE, name, 1);
    }
    cr_expect_eq(c.n_rules, KD_METRICS_RULE_CODES);
    kd_code_counts_add(&c, KD_ERR_RULE, "one_too_many", 4);
    cr_expect_eq(kd_code_counts_get(&c, "one_too_many"), 0);
    cr_expect_eq(kd_code_counts_get(&c, "rule"), 4, "past the table: under rule");
    kd_code_counts_add(&c, KD_ERR_RULE, "code_7", 2);
    cr_expect_eq(kd_code_counts_get(&c, "code_7"), 3, "a name the table holds keeps counting");
    kd_code_counts_add(&c, KD_ERR_RULE, "", 1);
    kd_code_counts_add(&c, KD_ERR_RULE, NULL, 1);
    kd_code_counts_add(&c, KD_ERR_RULE, "not a \"code\"", 1);
    kd_code_counts_add(&c, KD_ERR_RULE, "a_name_of_thirty_two_bytes_long_", 1);
    cr_expect_eq(kd_code_counts_get(&c, "rule"), 8, "empty, missing, odd and overlong names: under rule");
    kd_code_counts_add(&c, KD_ERR_RULE, "bad_command", 1); /* a type that took an engine name */
    kd_code_counts_add(&c, KD_ERR_BAD_COMMAND, "ignored", 1);
    cr_expect_eq(c.engine[KD_ERR_BAD_COMMAND], 2, "engine names are counted as the engine's");
    cr_expect_eq(kd_code_counts_total(&c), KD_METRICS_RULE_CODES + 2 + 8 + 2);

    /* They are stored, read back and shown like any count. */
    kd_metrics m, back;
    memset(&m, 0, sizeof m);
    m.rejections = c;
    kd_buf b;
    kd_buf_init(&b);
    ET_ASSERT_OK(kd_metrics_encode(&m, &b));
    ET_ASSERT_OK(kd_metrics_decode(b.data, b.len, &back));
    cr_expect(memcmp(&m, &back, sizeof m) == 0, "encode then decode gives the same counts, in the same order");
    b.len = 0;
    ET_ASSERT_OK(kd_metrics_prometheus(&m, 0, &b));
    cr_expect_not_null(strstr((const char *)b.data, "kdapp_txs_rejected_total{reason=\"code_7\"} 3\n"));
    cr_expect_not_null(strstr((const char *)b.data, "kdapp_txs_rejected_total{reason=\"rule\"} 8\n"));
    cr_expect_not_null(strstr((const char *)b.data, "kdapp_txs_rejected_total{reason=\"bad_command\"} 2\n"));
    cr_expect_null(strstr((const char *)b.data, "one_too_many"));
    kd_buf_fini(&b);
}

/* The walk over non-zero counts: engine codes in table order, then rule
 * codes in the order first counted. */
Test(metrics, counts_are_walked_engine_codes_first)
{
    kd_code_counts c;
    memset(&c, 0, sizeof c);
    kd_code_counts_add(&c, KD_ERR_RULE, "wrong_turn", 1);
    kd_code_counts_add(&c, KD_ERR_RULE, "cell_occupied", 2);
    kd_code_counts_add(&c, KD_ERR_BAD_SIGNATURE, NULL, 3);
    kd_code_counts_add_name(&c, "decode", 4);
    kd_code_counts_add_name(&c, "wrong_turn", 5);
    static const char *const want[] = {"decode", "bad_signature", "wrong_turn", "cell_occupied"};
    static const uint64_t want_n[] = {4, 3, 6, 2};
    size_t pos = 0, i = 0;
    const char *code;
    uint64_t count;
    while (kd_code_counts_next(&c, &pos, &code, &count)) {
        cr_assert_lt(i, 4);
        cr_expect_str_eq(code, want[i]);
        cr_expect_eq(count, want_n[i], "%s", code);
        i++;
    }
    cr_expect_eq(i, 4);
}

/* A store keeps counting a type's rule codes by name across a restart. */
Test(metrics, rule_rejections_are_counted_by_code_and_kept)
{
    et_env env;
    et_env_open(&env, 0, 0);
    et_txs t;
    et_txs_init(&t);
    et_add_create(&t, 1, "alice", "bob", -1);
    et_add_move(&t, 1, 0, 0, 1, "bob", 0);   /* O first: wrong_turn */
    et_add_move(&t, 1, 3, 0, 0, "alice", 0); /* out_of_bounds */
    et_add_move(&t, 1, 0, 0, 0, "alice", 0);
    et_add_move(&t, 1, 0, 0, 1, "bob", 1); /* cell_occupied */
    et_add_move(&t, 1, 1, 1, 1, "bob", 7); /* bad_signature */
    et_accept_ok(env.engine, "r1", &t);
    et_env_reopen(&env);
    kd_metrics m;
    metrics_of(env.engine, &m);
    cr_expect_eq(kd_code_counts_get(&m.rejections, "wrong_turn"), 1);
    cr_expect_eq(kd_code_counts_get(&m.rejections, "out_of_bounds"), 1);
    cr_expect_eq(kd_code_counts_get(&m.rejections, "cell_occupied"), 1);
    cr_expect_eq(kd_code_counts_get(&m.rejections, "bad_signature"), 1);
    cr_expect_eq(kd_code_counts_get(&m.rejections, "rule"), 0, "rule codes are counted under their own names");
    cr_expect_eq(m.rejections.n_rules, 3);
    cr_expect_eq(m.txs_rejected, kd_code_counts_total(&m.rejections));
    et_txs_fini(&t);
    et_env_close(&env);
    et_env_fini(&env);
}

/* The lag behind a feeder's chain source (IngestRequest.source_tip_time_ms,
 * told by `kdapp listen`): stored, computed as the source's tip time minus
 * the tip's, and exported only once a feeder told it. */
Test(metrics, the_source_lag_is_stored_and_exported_once_told)
{
    kd_metrics m, back;
    memset(&m, 0, sizeof m);
    m.tip_time_ms = 1700000001000;
    kd_buf b;
    kd_buf_init(&b);
    ET_ASSERT_OK(kd_metrics_prometheus(&m, 1700000002000, &b));
    cr_expect_null(strstr((const char *)b.data, "kdapp_source_lag_seconds"), "no gauge before a feeder told it");
    cr_expect_eq(kd_metrics_source_lag_ms(&m), 0u);
    m.source_tip_time_ms = 1700000003500;
    cr_expect_eq(kd_metrics_source_lag_ms(&m), 2500u);
    b.len = 0;
    ET_ASSERT_OK(kd_metrics_prometheus(&m, 1700000004000, &b));
    cr_expect_not_null(strstr((const char *)b.data, "\nkdapp_source_lag_seconds 2.500\n"), "%s", (const char *)b.data);
    b.len = 0;
    ET_ASSERT_OK(kd_metrics_encode(&m, &b));
    ET_ASSERT_OK(kd_metrics_decode(b.data, b.len, &back));
    cr_expect_eq(back.source_tip_time_ms, m.source_tip_time_ms);
    m.source_tip_time_ms = m.tip_time_ms - 10; /* behind the tip: no lag */
    cr_expect_eq(kd_metrics_source_lag_ms(&m), 0u);
    kd_buf_fini(&b);
}
