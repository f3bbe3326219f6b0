/*
 * engine_replay_test.c — the log is the source of truth: replaying every
 * entry of one store (reverts and refusals included) into an empty store
 * reproduces its episodes, tip and digest exactly, and so does re-ingesting
 * only the accepts of the blocks still applied. Creations replay with the
 * parameters recorded in the log, not the replaying engine's defaults.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "engine/support.h"

static et_env a, b, c;

static void teardown(void)
{
    et_env_fini(&a);
    et_env_fini(&b);
    et_env_fini(&c);
}

TestSuite(engine_replay, .fini = teardown, .timeout = 30);

/* The accepts of the canonical chain, oldest first. */
typedef struct {
    kd_buf msgs[32];
    size_t n;
} chain;

static void chain_fini(chain *ch)
{
    for (size_t i = 0; i < ch->n; i++)
        kd_buf_fini(&ch->msgs[i]);
    ch->n = 0;
}

/* Accepts block `name` in `e` and remembers it as canonical. */
static void accept(kd_engine *e, chain *ch, const char *name, const et_txs *txs)
{
    cr_assert_lt(ch->n, 32);
    kd_buf *m = &ch->msgs[ch->n];
    kd_buf_init(m);
    et_accept_msg(name, txs, m);
    kd_msg_result res;
    et_ingest(e, m, &res);
    cr_assert_eq(res.status, KD_MSG_APPLIED, "accept %s: %s", name, res.detail);
    kd_msg_result_fini(&res);
    ch->n++;
}

static void revert(kd_engine *e, chain *ch, const char *name)
{
    et_revert_ok(e, name);
    cr_assert_gt(ch->n, 0);
    kd_buf_fini(&ch->msgs[--ch->n]);
}

/* Replays every log entry of `from` into `to`, checking each verdict and
 * the digest it records against the original. */
static void replay_log(kd_engine *from, kd_engine *to)
{
    kd_tip tip;
    et_tip(from, &tip);
    cr_assert_gt(tip.last_seq, 0);
    for (uint64_t seq = 1; seq <= tip.last_seq; seq++) {
        kd_buf raw;
        kd_buf_init(&raw);
        et_log_raw(from, seq, &raw);
        kd_msg_result res;
        kd_err err = kd_engine_replay_entry(to, raw.data, raw.len, &res);
        cr_assert_eq(err, KD_OK, "replay of entry %llu: %s (%s)", (unsigned long long)seq, kd_err_code(err),
                     res.detail);
        Kdapp__Store__LogEntry *orig = et_log_entry(from, seq);
        cr_expect_eq((int)res.status, (int)orig->status, "entry %llu: verdict", (unsigned long long)seq);
        cr_expect_eq(res.log_seq, seq, "entry %llu lands at the same position", (unsigned long long)seq);
        Kdapp__Store__LogEntry *copy = et_log_entry(to, res.log_seq);
        cr_assert_eq(copy->digest.len, KD_HASH_LEN);
        cr_assert_eq(orig->digest.len, KD_HASH_LEN);
        et_expect_hash_eq(copy->digest.data, orig->digest.data, "digest recorded by the replayed entry");
        cr_expect_eq(copy->n_txs, orig->n_txs);
        for (size_t i = 0; i < copy->n_txs && i < orig->n_txs; i++) {
            cr_expect_eq(copy->txs[i]->applied, orig->txs[i]->applied, "entry %llu tx %zu", (unsigned long long)seq, i);
            cr_expect_str_eq(copy->txs[i]->error_code, orig->txs[i]->error_code);
        }
        kdapp__store__log_entry__free_unpacked(orig, NULL);
        kdapp__store__log_entry__free_unpacked(copy, NULL);
        kd_msg_result_fini(&res);
        kd_buf_fini(&raw);
    }
}

static void expect_same_store(kd_engine *x, kd_engine *y, const char *what)
{
    uint8_t fx[KD_HASH_LEN], fy[KD_HASH_LEN];
    et_fingerprint(x, fx);
    et_fingerprint(y, fy);
    et_expect_hash_eq(fx, fy, what);
    kd_tip tx, ty;
    et_tip(x, &tx);
    et_tip(y, &ty);
    et_expect_hash_eq(tx.digest, ty.digest, what);
    et_expect_hash_eq(tx.hash, ty.hash, what);
    cr_expect_eq(tx.height, ty.height, "%s: height", what);
    uint32_t ids[64];
    size_t n = et_episode_ids(x, ids, 64);
    cr_expect_eq(et_episode_count(y), n, "%s: episode count", what);
    for (size_t i = 0; i < n; i++) {
        kd_buf bx, by;
        kd_buf_init(&bx);
        kd_buf_init(&by);
        et_episode_bytes(x, ids[i], &bx);
        et_episode_bytes(y, ids[i], &by);
        cr_expect(bx.len == by.len && memcmp(bx.data, by.data, bx.len) == 0, "%s: episode %u differs", what, ids[i]);
        kd_buf_fini(&bx);
        kd_buf_fini(&by);
    }
}

/* A history with reorgs, refusals, rejections and duplicates. */
static void eventful_history(kd_engine *e, chain *ch)
{
    et_txs t;
    et_txs_init(&t);
    et_add_create(&t, 1, "alice", "bob", -1);
    et_add_create(&t, 2, "carol", "dave", 3);
    et_add_create(&t, 3, "alice", "carol", 5);
    accept(e, ch, "h1", &t);

    et_txs_clear(&t);
    et_add_move(&t, 1, 1, 1, 0, "alice", 0);
    et_add_move(&t, 2, 0, 0, 0, "carol", 0);
    et_add_move(&t, 2, 0, 1, 1, "dave", 1);
    et_add_move(&t, 2, 0, 0, 1, "dave", 2); /* wrong turn: rejected */
    et_add_raw(&t, "junk", 4);              /* does not decode */
    accept(e, ch, "h2", &t);

    et_txs_clear(&t);
    et_add_move(&t, 2, 1, 1, 0, "carol", 2);
    et_add_move(&t, 2, 2, 2, 1, "dave", 3); /* evicts X(0,0) */
    et_add_create(&t, 4, "bob", "alice", -1);
    accept(e, ch, "h3", &t);

    kd_msg_result res;
    et_revert(e, "h1", &res); /* not the tip: refused, logged */
    cr_assert_eq(res.status, KD_MSG_REFUSED);
    kd_msg_result_fini(&res);
    revert(e, ch, "h3");
    revert(e, ch, "h2");
    et_revert(e, "h2", &res); /* re-delivered revert */
    kd_msg_result_fini(&res);

    et_txs_clear(&t);
    et_add_move(&t, 2, 2, 2, 0, "carol", 0);
    et_add_move(&t, 1, 0, 0, 0, "alice", 0);
    et_add_move(&t, 3, 1, 2, 0, "alice", 0);
    accept(e, ch, "h2b", &t);
    /* A re-delivered accept: not logged. */
    et_accept(e, "h2b", &t, &res);
    cr_assert_eq(res.status, KD_MSG_DUPLICATE);
    kd_msg_result_fini(&res);

    et_txs_clear(&t);
    et_add_move(&t, 1, 1, 1, 1, "bob", 1);
    et_add_move(&t, 3, 0, 0, 1, "carol", 1);
    et_add_create(&t, 5, "dave", "carol", 2);
    et_add_move(&t, 5, 2, 1, 0, "dave", 0);
    accept(e, ch, "h3b", &t);
    et_txs_fini(&t);
}

Test(engine_replay, replaying_the_log_into_an_empty_store_reproduces_it)
{
    chain ch = {.n = 0};
    et_env_open(&a, 0, 0);
    et_env_open(&b, 0, 0);
    eventful_history(a.engine, &ch);
    replay_log(a.engine, b.engine);
    expect_same_store(a.engine, b.engine, "full log replay");
    kd_tip ta, tb;
    et_tip(a.engine, &ta);
    et_tip(b.engine, &tb);
    cr_expect_eq(ta.last_seq, tb.last_seq, "one entry per replayed entry");
    chain_fini(&ch);
}

Test(engine_replay, reingesting_only_the_canonical_chain_reproduces_it)
{
    chain ch = {.n = 0};
    et_env_open(&a, 0, 0);
    et_env_open(&c, 0, 0);
    eventful_history(a.engine, &ch);
    cr_assert_eq(ch.n, 3, "h1, h2b, h3b remain");
    for (size_t i = 0; i < ch.n; i++) {
        kd_msg_result res;
        et_ingest(c.engine, &ch.msgs[i], &res);
        cr_expect_eq(res.status, KD_MSG_APPLIED);
        kd_msg_result_fini(&res);
    }
    expect_same_store(a.engine, c.engine, "canonical chain only");
    kd_tip tc;
    et_tip(c.engine, &tc);
    cr_expect_eq(tc.last_seq, 3, "only three entries in the replica's log");
    chain_fini(&ch);
}

/* The cap an episode was created with, read back from `e`. */
static uint8_t cap_of(kd_engine *e, uint32_t id)
{
    kd_ttt_state s;
    ET_ASSERT_OK(et_ttt_read(e, id, &s, NULL));
    return s.cap;
}

static void default_cap_survives_replay(uint8_t cap_a, uint8_t cap_b)
{
    et_env_open(&a, cap_a, 0);
    et_env_open(&b, cap_b, 0);
    et_env_open(&c, cap_b, 0);
    et_txs t;
    et_txs_init(&t);
    et_add_create(&t, 1, "alice", "bob", -1); /* no params: the engine default */
    et_add_create(&t, 2, "alice", "bob", 4);  /* explicit cap */
    kd_buf msg;
    kd_buf_init(&msg);
    et_accept_msg("p1", &t, &msg);
    kd_msg_result res;
    et_ingest(a.engine, &msg, &res);
    cr_assert_eq(res.status, KD_MSG_APPLIED);
    kd_msg_result_fini(&res);
    cr_assert_eq(cap_of(a.engine, 1), cap_a);
    cr_assert_eq(cap_of(a.engine, 2), 4);

    /* The log records the effective params. */
    Kdapp__Store__LogEntry *entry = et_log_entry(a.engine, 1);
    cr_assert_eq(entry->n_txs, 2);
    uint32_t wire_cap = 0;
    ET_ASSERT_OK(kd_ttt_params_decode(entry->txs[0]->effective_params.data, entry->txs[0]->effective_params.len,
                                      &wire_cap, NULL));
    cr_expect_eq(wire_cap, cap_a ? cap_a : KD_TTT_WIRE_CLASSIC, "effective params name the cap");
    kdapp__store__log_entry__free_unpacked(entry, NULL);

    replay_log(a.engine, b.engine);
    cr_expect_eq(cap_of(b.engine, 1), cap_a, "replay keeps the recorded cap, not the default %u", cap_b);
    cr_expect_eq(cap_of(b.engine, 2), 4);
    expect_same_store(a.engine, b.engine, "replay under another default");

    /* Control: the raw message under the other default gives the other cap. */
    et_ingest(c.engine, &msg, &res);
    cr_assert_eq(res.status, KD_MSG_APPLIED);
    kd_msg_result_fini(&res);
    cr_expect_eq(cap_of(c.engine, 1), cap_b);
    kd_buf_fini(&msg);
    et_txs_fini(&t);
}

Test(engine_replay, stress_default_is_recorded_and_survives_replay_under_classic) { default_cap_survives_replay(6, 0); }

Test(engine_replay, classic_default_is_recorded_and_survives_replay_under_stress) { default_cap_survives_replay(0, 6); }

Test(engine_replay, replay_entry_rejects_bytes_that_are_not_a_log_entry)
{
    et_env_open(&b, 0, 0);
    static const uint8_t junk[] = {0xff, 0xff, 0xff};
    kd_msg_result res;
    ET_EXPECT_ERR(kd_engine_replay_entry(b.engine, junk, sizeof junk, &res), KD_ERR_DECODE);
    cr_expect(res.detail[0] != '\0');
    kd_msg_result_fini(&res);
    kd_tip tip;
    et_tip(b.engine, &tip);
    cr_expect_eq(tip.last_seq, 0);
}
