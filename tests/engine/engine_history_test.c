/*
 * engine_history_test.c — the index from an episode to its log entries
 * (schema 4, engine/store.h "history"): written in the transaction of the
 * log entry it names, for accepts that applied one of the episode's
 * transactions and for reverts of blocks that changed it, never for a
 * rejected transaction or a refused event; read per episode
 * (kd_read_episode_history) with kd_read_block_seq telling which accepts
 * are still on the chain; the same when a reorg's reverts share one
 * transaction; and built from the log when a schema-3 store is upgraded in
 * place, equal to the index written live.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/bytes.h"
#include "engine/store.h"
#include "engine/support.h"
#include "kdapp.pb-c.h"

static et_env env, other;

static void teardown(void)
{
    et_env_fini(&other);
    et_env_fini(&env);
}

TestSuite(engine_history, .fini = teardown, .timeout = 60);

/* The history of `id` as "seq:a seq:r ..." (a accept, r revert). */
static void history_text(kd_engine *e, uint32_t id, char *out, size_t len, kd_err *err)
{
    kd_read *rd;
    kd_history_entry *h = NULL;
    size_t n = 0;
    ET_ASSERT_OK(kd_engine_read_begin(e, &rd));
    *err = kd_read_episode_history(rd, id, &h, &n);
    kd_engine_read_end(rd);
    out[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        size_t used = strlen(out);
        snprintf(out + used, len - used, "%s%llu:%c", i ? " " : "", (unsigned long long)h[i].seq,
                 h[i].reverted ? 'r' : 'a');
    }
    free(h);
}

static void expect_history(kd_engine *e, uint32_t id, const char *want)
{
    char got[512];
    kd_err err;
    history_text(e, id, got, sizeof got, &err);
    ET_EXPECT_ERR(err, KD_OK);
    cr_expect_str_eq(got, want, "history of episode %u", id);
}

/* The log position that applies block `name` now, or 0 when none does. */
static uint64_t applied_at(kd_engine *e, const char *name)
{
    uint8_t hash[KD_HASH_LEN];
    et_hash(name, hash);
    kd_read *rd;
    uint64_t seq = 0;
    ET_ASSERT_OK(kd_engine_read_begin(e, &rd));
    kd_err err = kd_read_block_seq(rd, hash, &seq);
    kd_engine_read_end(rd);
    cr_assert(err == KD_OK || err == KD_ERR_NOT_FOUND, "kd_read_block_seq: %s", kd_err_str(err));
    return err ? 0 : seq;
}

/*
 * log  1 b1  creates 10 and 20
 *      2 b2  X in 10
 *      3 b3  X in 20, and a move of 10 out of turn (rejected)
 *      4 b4  O in 10
 *      5     revert b4
 *      6     revert of an unknown block (refused)
 *      7 b5  O in 10 again, another cell
 */
static void build(kd_engine *e)
{
    et_txs t;
    et_txs_init(&t);
    et_add_create(&t, 10, "alice", "bob", -1);
    et_add_create(&t, 20, "carol", "dave", -1);
    et_accept_ok(e, "b1", &t);
    et_txs_clear(&t);
    et_add_move(&t, 10, 0, 0, 0, "alice", 0);
    et_accept_ok(e, "b2", &t);
    et_txs_clear(&t);
    et_add_move(&t, 20, 1, 1, 0, "carol", 0);
    et_add_move(&t, 10, 2, 2, 0, "alice", 1); /* X again: wrong turn */
    et_accept_ok(e, "b3", &t);
    et_txs_clear(&t);
    et_add_move(&t, 10, 1, 1, 1, "bob", 1);
    et_accept_ok(e, "b4", &t);
    et_revert_ok(e, "b4");
    kd_msg_result r;
    et_revert(e, "nowhere", &r);
    cr_assert_eq(r.status, KD_MSG_REFUSED);
    kd_msg_result_fini(&r);
    et_txs_clear(&t);
    et_add_move(&t, 10, 2, 0, 1, "bob", 1);
    et_accept_ok(e, "b5", &t);
    et_txs_fini(&t);
}

Test(engine_history, each_episode_lists_the_entries_that_changed_it)
{
    et_env_open(&env, 0, 0);
    build(env.engine);
    expect_history(env.engine, 10, "1:a 2:a 4:a 5:r 7:a");
    expect_history(env.engine, 20, "1:a 3:a");
    char got[64];
    kd_err err;
    history_text(env.engine, 99, got, sizeof got, &err);
    ET_EXPECT_ERR(err, KD_ERR_NOT_FOUND);
    cr_expect_eq(applied_at(env.engine, "b1"), 1);
    cr_expect_eq(applied_at(env.engine, "b4"), 0, "reverted: its entry 4 is off the chain");
    cr_expect_eq(applied_at(env.engine, "b5"), 7);
}

/* A block reverted and applied again has a new entry; the first one is
 * no longer the one that applies it. */
Test(engine_history, an_accept_applied_again_is_on_the_chain_only_at_its_new_entry)
{
    et_env_open(&env, 0, 0);
    build(env.engine);
    et_revert_ok(env.engine, "b5"); /* 8 */
    et_txs t;
    et_txs_init(&t);
    et_add_move(&t, 10, 2, 0, 1, "bob", 1);
    et_accept_ok(env.engine, "b5", &t); /* 9: the same block again */
    et_txs_fini(&t);
    expect_history(env.engine, 10, "1:a 2:a 4:a 5:r 7:a 8:r 9:a");
    cr_expect_eq(applied_at(env.engine, "b5"), 9);
}

/* Reverting a creation leaves its entries under its slot; when the slot
 * is taken again (it was the last), the next episode's entries follow
 * them, and none of the old ones is an accept still on the chain. */
Test(engine_history, a_slot_taken_again_keeps_the_old_entries_off_the_chain)
{
    et_env_open(&env, 0, 0);
    et_txs t;
    et_txs_init(&t);
    et_add_create(&t, 30, "alice", "bob", -1);
    et_accept_ok(env.engine, "c1", &t); /* 1 */
    et_revert_ok(env.engine, "c1");     /* 2 */
    char got[64];
    kd_err err;
    history_text(env.engine, 30, got, sizeof got, &err);
    ET_EXPECT_ERR(err, KD_ERR_NOT_FOUND);
    et_txs_clear(&t);
    et_add_create(&t, 40, "carol", "dave", -1);
    et_accept_ok(env.engine, "c2", &t); /* 3, in the same slot */
    et_txs_fini(&t);
    expect_history(env.engine, 40, "1:a 2:r 3:a");
    cr_expect_eq(applied_at(env.engine, "c1"), 0);
    cr_expect_eq(applied_at(env.engine, "c2"), 3);
}

/* A reorg's reverts in one transaction index exactly as one by one. */
Test(engine_history, reverts_sharing_a_transaction_index_as_one_by_one)
{
    et_env_open(&env, 0, 0);
    et_env_open(&other, 0, 0);
    build(env.engine);
    build(other.engine);
    static const char *const names[] = {"b5", "b3", "b2"};
    Kdapp__EngineMsg *m[3];
    kd_msg_result res[3];
    for (int i = 0; i < 3; i++) {
        et_revert_ok(other.engine, names[i]);
        m[i] = et_revert_decoded(names[i]);
    }
    size_t done = 0;
    ET_ASSERT_OK(kd_engine_ingest_reverts(env.engine, m, 3, res, &done));
    cr_assert_eq(done, 3);
    for (int i = 0; i < 3; i++) {
        cr_expect_eq(res[i].status, KD_MSG_APPLIED, "revert %s", names[i]);
        kd_msg_result_fini(&res[i]);
        kdapp__engine_msg__free_unpacked(m[i], NULL);
    }
    expect_history(env.engine, 10, "1:a 2:a 4:a 5:r 7:a 8:r 10:r");
    expect_history(env.engine, 20, "1:a 3:a 9:r");
    et_env_close(&env);
    et_env_close(&other);
    kd_buf a, b;
    kd_buf_init(&a);
    kd_buf_init(&b);
    et_raw_history(env.dir, &a);
    et_raw_history(other.dir, &b);
    cr_expect(a.len == b.len && memcmp(a.data, b.data, a.len) == 0, "the same index");
    kd_buf_fini(&a);
    kd_buf_fini(&b);
}

Test(engine_history, a_schema_3_store_is_upgraded_with_the_index_it_would_have_written)
{
    et_env_open(&env, 0, 0);
    build(env.engine);
    et_txs t;
    et_txs_init(&t);
    et_add_create(&t, 50, "erin", "frank", -1);
    et_add_move(&t, 50, 0, 1, 0, "erin", 0);
    et_accept_ok(env.engine, "b6", &t); /* 8 */
    et_txs_fini(&t);
    et_revert_ok(env.engine, "b6"); /* 9: 50 is gone */
    uint8_t fp[KD_HASH_LEN];
    kd_tip before;
    et_fingerprint(env.engine, fp);
    et_tip(env.engine, &before);
    et_env_close(&env);
    kd_buf live, upgraded;
    kd_buf_init(&live);
    kd_buf_init(&upgraded);
    et_raw_history(env.dir, &live);
    et_raw_downgrade_to_schema_3(env.dir);
    cr_assert_not(et_raw_has_db(env.dir, "history"), "forged as schema 3");

    /* A reader is told what to do, and changes nothing. */
    char why[512] = "";
    ET_EXPECT_ERR(et_env_attach(&other, env.dir, 0, 0, 1, why, sizeof why), KD_ERR_SCHEMA);
    cr_expect_not_null(strstr(why, "schema version 3; this kdapp reads version 4"), "%s", why);
    cr_expect_not_null(strstr(why, "kdapp engine --data"), "the refusal says how to upgrade: %s", why);
    et_env_close(&other);
    cr_expect_not(et_raw_has_db(env.dir, "history"), "a reader does not upgrade");

    /* A writer upgrades it: the index of the episodes that exist, as the
     * live store wrote it (episode 50's entries stay in the live one, in
     * the slot its reverted creation freed). */
    et_env_reopen(&env);
    uint8_t now[KD_HASH_LEN];
    kd_tip tip;
    et_fingerprint(env.engine, now);
    et_tip(env.engine, &tip);
    et_expect_hash_eq(now, fp, "the episodes are the same after the upgrade");
    et_expect_hash_eq(tip.digest, before.digest, "the digest is the same after the upgrade");
    expect_history(env.engine, 10, "1:a 2:a 4:a 5:r 7:a");
    expect_history(env.engine, 20, "1:a 3:a");
    et_env_close(&env);
    et_raw_history(env.dir, &upgraded);
    cr_assert_eq(live.len, upgraded.len + 2 * 17, "the live index has episode 50's two entries more");
    cr_expect(memcmp(live.data, upgraded.data, upgraded.len) == 0, "the rest is the same, byte for byte");
    kd_buf_fini(&live);
    kd_buf_fini(&upgraded);

    /* It goes on as schema 4: new entries are indexed. */
    et_env_reopen(&env);
    et_txs_init(&t);
    et_add_move(&t, 20, 0, 0, 1, "dave", 1);
    et_accept_ok(env.engine, "b7", &t); /* 10 */
    et_txs_fini(&t);
    expect_history(env.engine, 20, "1:a 3:a 10:a");
}

/* A schema-2 store goes through both steps in one transaction. */
Test(engine_history, a_schema_2_store_is_upgraded_to_4)
{
    et_env_open(&env, 0, 0);
    build(env.engine);
    et_env_close(&env);
    kd_buf live, upgraded;
    kd_buf_init(&live);
    kd_buf_init(&upgraded);
    et_raw_history(env.dir, &live);
    et_raw_downgrade_to_schema_2(env.dir);
    cr_assert_not(et_raw_has_db(env.dir, "history"));
    et_env_reopen(&env);
    expect_history(env.engine, 10, "1:a 2:a 4:a 5:r 7:a");
    et_env_close(&env);
    et_raw_history(env.dir, &upgraded);
    cr_expect(live.len == upgraded.len && memcmp(live.data, upgraded.data, live.len) == 0, "the same index");
    kd_buf meta;
    kd_buf_init(&meta);
    et_raw_get_meta(env.dir, "schema", &meta);
    cr_expect(meta.len == 8 && kd_get_u64be(meta.data) == KD_SCHEMA_VERSION, "schema %u written", KD_SCHEMA_VERSION);
    kd_buf_fini(&meta);
    kd_buf_fini(&live);
    kd_buf_fini(&upgraded);
}

#ifdef KD_CRASHPOINTS
/* The child: the store of build() forged as schema 3, then opened by a
 * writer that aborts with the upgrade written and not committed. */
static void crash_in_upgrade(void *ctx)
{
    char why[256];
    if (et_env_attach(&env, ctx, 0, 0, 0, why, sizeof why) != KD_OK)
        _exit(4);
    build(env.engine);
    et_env_close(&env);
    et_raw_downgrade_to_schema_3(ctx);
    if (et_env_attach(&env, ctx, 0, 0, 0, why, sizeof why) == KD_OK) /* aborts first */
        _exit(5);
}

Test(engine_history, a_crash_in_the_upgrade_leaves_schema_3_and_the_next_open_upgrades_it)
{
    char dir[512];
    et_tmpdir(dir, sizeof dir);
    et_crash_child("upgraded", crash_in_upgrade, dir); /* before this process uses an engine */
    kd_buf meta, live, upgraded;
    kd_buf_init(&meta);
    kd_buf_init(&live);
    kd_buf_init(&upgraded);
    et_raw_get_meta(dir, "schema", &meta);
    cr_assert(meta.len == 8 && kd_get_u64be(meta.data) == 3, "the crashed upgrade left schema 3");
    /* What the live store writes. */
    et_env_open(&other, 0, 0);
    build(other.engine);
    et_env_close(&other);
    et_raw_history(other.dir, &live);
    /* The next writer upgrades it whole. */
    char why[256];
    cr_assert_eq(et_env_attach(&env, dir, 0, 0, 0, why, sizeof why), KD_OK, "%s", why);
    env.own_dir = 1;
    expect_history(env.engine, 10, "1:a 2:a 4:a 5:r 7:a");
    expect_history(env.engine, 20, "1:a 3:a");
    et_env_close(&env);
    et_raw_history(dir, &upgraded);
    cr_expect(live.len == upgraded.len && memcmp(live.data, upgraded.data, live.len) == 0,
              "the index is the one the live store wrote");
    meta.len = 0;
    et_raw_get_meta(dir, "schema", &meta);
    cr_expect(meta.len == 8 && kd_get_u64be(meta.data) == KD_SCHEMA_VERSION, "schema %u written", KD_SCHEMA_VERSION);
    kd_buf_fini(&meta);
    kd_buf_fini(&live);
    kd_buf_fini(&upgraded);
}
#endif
