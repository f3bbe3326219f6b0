/*
 * engine_store_test.c — what the data directory guarantees: undo records
 * are pruned beyond the finality depth and a revert past it is refused
 * without changing anything; a store written by another schema version or
 * with another finality depth is refused at open with a sentence naming
 * the difference; every store has its own random id, kept for good and
 * read by read-only engines too; one writer per directory (the lock),
 * readers beside it; compaction only with the store to itself, keeping
 * every record.
 * Raw LMDB is used to look at what the API does not show (undo entries)
 * and to forge a foreign schema version.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/support.h"
#include "tools/sim/replay.h"

static et_env env, other;

static void teardown(void)
{
    et_env_fini(&other);
    et_env_fini(&env);
}

TestSuite(engine_store, .fini = teardown, .timeout = 30);

static void block_name(char *out, size_t len, const char *prefix, int i) { snprintf(out, len, "%s%d", prefix, i); }

Test(engine_store, revert_beyond_finality_is_refused_and_undo_is_pruned)
{
    et_env_open(&env, 0, 3);
    et_txs t;
    et_txs_init(&t);
    /* Block i creates episode i and plays one move in it: one undo record
     * per block. */
    for (int i = 1; i <= 10; i++) {
        char name[16];
        block_name(name, sizeof name, "f", i);
        et_txs_clear(&t);
        et_add_create(&t, (uint32_t)i, "alice", "bob", -1);
        et_add_move(&t, (uint32_t)i, 1, 1, 0, "alice", 0);
        et_accept_ok(env.engine, name, &t);
    }
    kd_tip tip;
    et_tip(env.engine, &tip);
    cr_assert_eq(tip.height, 10);
    cr_expect_eq(tip.finality_depth, 3);

    et_env_close(&env);
    cr_expect_eq(et_raw_undo_count(env.dir), 3, "only the last 3 blocks keep undo records");
    et_env_reopen(&env);

    et_revert_ok(env.engine, "f10");
    et_revert_ok(env.engine, "f9");
    et_revert_ok(env.engine, "f8");
    kd_tip before;
    uint8_t fp_before[KD_HASH_LEN];
    et_tip(env.engine, &before);
    et_fingerprint(env.engine, fp_before);
    cr_expect_eq(before.height, 7);
    cr_expect_eq(et_episode_count(env.engine), 7);

    kd_msg_result res;
    et_revert(env.engine, "f7", &res);
    cr_expect_eq(res.status, KD_MSG_REFUSED);
    ET_EXPECT_ERR(res.err, KD_ERR_BEYOND_FINALITY);
    cr_expect_not_null(strstr(res.detail, "re-sync"), "the refusal says a re-sync is needed: %s", res.detail);
    kd_msg_result_fini(&res);
    kd_tip after;
    uint8_t fp_after[KD_HASH_LEN];
    et_tip(env.engine, &after);
    et_fingerprint(env.engine, fp_after);
    cr_expect_eq(after.height, 7);
    et_expect_hash_eq(after.hash, before.hash, "tip unchanged");
    et_expect_hash_eq(after.digest, before.digest, "digest unchanged");
    et_expect_hash_eq(fp_after, fp_before, "episodes unchanged");
    kd_ttt_state s;
    uint64_t counter;
    ET_ASSERT_OK(et_ttt_read(env.engine, 7, &s, &counter));
    cr_expect_eq(counter, 1);

    /* A final block is still recognised as applied. */
    et_txs_clear(&t);
    et_add_create(&t, 1, "alice", "bob", -1);
    et_add_move(&t, 1, 1, 1, 0, "alice", 0);
    et_accept(env.engine, "f1", &t, &res);
    cr_expect_eq(res.status, KD_MSG_DUPLICATE);
    kd_msg_result_fini(&res);

    /* The chain goes on from the final tip, and pruning follows it. */
    for (int i = 8; i <= 12; i++) {
        char name[16];
        block_name(name, sizeof name, "g", i);
        et_txs_clear(&t);
        et_add_create(&t, (uint32_t)(100 + i), "alice", "bob", -1);
        et_add_move(&t, (uint32_t)(100 + i), 0, 0, 0, "alice", 0);
        et_accept_ok(env.engine, name, &t);
    }
    et_env_close(&env);
    cr_expect_eq(et_raw_undo_count(env.dir), 3);
    et_env_reopen(&env);
    et_revert_ok(env.engine, "g12");
    et_revert_ok(env.engine, "g11");
    et_revert_ok(env.engine, "g10");
    et_revert(env.engine, "g9", &res);
    ET_EXPECT_ERR(res.err, KD_ERR_BEYOND_FINALITY);
    kd_msg_result_fini(&res);
    et_txs_fini(&t);
}

Test(engine_store, a_foreign_schema_version_is_refused_at_open)
{
    et_env_open(&env, 0, 0);
    et_txs t;
    et_txs_init(&t);
    et_add_create(&t, 1, "alice", "bob", -1);
    et_accept_ok(env.engine, "s1", &t);
    et_txs_fini(&t);
    et_env_close(&env);
    et_raw_put_meta_u64(env.dir, "schema", 99);

    char why[512] = "";
    kd_err err = et_env_attach(&other, env.dir, 0, 0, 0, why, sizeof why);
    ET_EXPECT_ERR(err, KD_ERR_SCHEMA);
    cr_expect_null(other.engine);
    cr_expect_not_null(strstr(why, "99"), "the message names the stored version: %s", why);
    cr_expect_not_null(strstr(why, env.dir), "the message names the directory: %s", why);
    et_env_close(&other);
    /* Read-only opens are refused too. */
    why[0] = '\0';
    err = et_env_attach(&other, env.dir, 0, 0, 1, why, sizeof why);
    ET_EXPECT_ERR(err, KD_ERR_SCHEMA);
    et_env_close(&other);
}

/* A store of schema 1 (before store ids) is refused like any other. */
Test(engine_store, a_schema_1_store_is_refused_at_open)
{
    et_env_open(&env, 0, 0);
    et_env_close(&env);
    et_raw_put_meta_u64(env.dir, "schema", 1);
    char why[512] = "";
    ET_EXPECT_ERR(et_env_attach(&other, env.dir, 0, 0, 0, why, sizeof why), KD_ERR_SCHEMA);
    cr_expect_not_null(strstr(why, "schema version 1; this kdapp reads version 4"), "%s", why);
    et_env_close(&other);
}

Test(engine_store, every_store_has_its_own_id_kept_for_good)
{
    uint8_t id[KD_STORE_ID_LEN], again[KD_STORE_ID_LEN], zero[KD_STORE_ID_LEN] = {0};
    et_env_open(&env, 0, 0);
    ET_ASSERT_OK(kd_engine_store_id(env.engine, id));
    cr_expect(memcmp(id, zero, sizeof id) != 0, "a random id, not zeros");
    kd_buf raw;
    kd_buf_init(&raw);
    et_env_close(&env);
    et_raw_get_meta(env.dir, "store_id", &raw);
    cr_expect_eq(raw.len, KD_STORE_ID_LEN);
    cr_expect(raw.len == KD_STORE_ID_LEN && memcmp(raw.data, id, sizeof id) == 0, "meta holds the id");
    kd_buf_fini(&raw);

    /* Reopened, and attached read-only beside the writer: the same id. */
    et_env_reopen(&env);
    ET_ASSERT_OK(kd_engine_store_id(env.engine, again));
    cr_expect_arr_eq(again, id, sizeof id, "reopened");
    char why[256] = "";
    ET_ASSERT_OK(et_env_attach(&other, env.dir, 0, 0, 1, why, sizeof why));
    memset(again, 0, sizeof again);
    ET_ASSERT_OK(kd_engine_store_id(other.engine, again));
    cr_expect_arr_eq(again, id, sizeof id, "read-only");
    et_env_close(&other);
    ET_EXPECT_ERR(kd_engine_store_id(NULL, again), KD_ERR_INVALID_ARG);
    ET_EXPECT_ERR(kd_engine_store_id(env.engine, NULL), KD_ERR_INVALID_ARG);

    /* Another store, also one replaying this one's log, has another id. */
    et_txs t;
    et_txs_init(&t);
    et_add_create(&t, 1, "alice", "bob", -1);
    et_accept_ok(env.engine, "i1", &t);
    et_txs_fini(&t);
    et_env_open(&other, 0, 0);
    kd_replay_report rep;
    ET_ASSERT_OK(kd_replay_log(env.engine, other.engine, 0, &rep));
    cr_expect(kd_replay_ok(&rep), "%s", rep.first_bad_what);
    ET_ASSERT_OK(kd_engine_store_id(other.engine, again));
    cr_expect(memcmp(again, id, sizeof id) != 0, "a replay is a new store with a new id");
}

Test(engine_store, a_damaged_store_id_is_refused_at_open)
{
    et_env_open(&env, 0, 0);
    et_env_close(&env);
    et_raw_put_meta(env.dir, "store_id", "short", 5);
    char why[512] = "";
    ET_EXPECT_ERR(et_env_attach(&other, env.dir, 0, 0, 1, why, sizeof why), KD_ERR_STORE);
    cr_expect_not_null(strstr(why, "has no valid store id (not 16 bytes): it is damaged"), "%s", why);
    cr_expect_not_null(strstr(why, env.dir), "%s", why);
    et_env_close(&other);
}

Test(engine_store, another_finality_depth_is_refused_at_open)
{
    et_env_open(&env, 0, 5);
    et_env_close(&env);
    char why[512] = "";
    kd_err err = et_env_attach(&other, env.dir, 0, 7, 0, why, sizeof why);
    ET_EXPECT_ERR(err, KD_ERR_SETTINGS);
    cr_expect_not_null(strstr(why, "5"), "the message names the stored depth: %s", why);
    cr_expect_not_null(strstr(why, "7"), "the message names the requested depth: %s", why);
    et_env_close(&other);

    /* 0 means "whatever is stored"; the same value is fine too. */
    err = et_env_attach(&other, env.dir, 0, 0, 0, why, sizeof why);
    ET_ASSERT_OK(err);
    kd_tip tip;
    et_tip(other.engine, &tip);
    cr_expect_eq(tip.finality_depth, 5);
    et_env_close(&other);
    ET_EXPECT_ERR(et_env_attach(&other, env.dir, 0, 5, 0, why, sizeof why), KD_OK);
    et_env_close(&other);
}

Test(engine_store, a_second_writer_is_locked_out_and_readers_are_not)
{
    et_env_open(&env, 0, 0);
    et_txs t;
    et_txs_init(&t);
    et_add_create(&t, 1, "alice", "bob", 6);
    et_accept_ok(env.engine, "l1", &t);

    char why[512] = "";
    kd_err err = et_env_attach(&other, env.dir, 0, 0, 0, why, sizeof why);
    ET_EXPECT_ERR(err, KD_ERR_LOCKED);
    cr_expect_null(other.engine);
    cr_expect(why[0] != '\0', "the refusal says who holds it");
    et_env_close(&other);

    /* A reader opens beside the writer and sees its commits. */
    err = et_env_attach(&other, env.dir, 0, 0, 1, why, sizeof why);
    cr_assert_eq(err, KD_OK, "read-only open: %s (%s)", kd_err_code(err), why);
    kd_ttt_state s;
    ET_ASSERT_OK(et_ttt_read(other.engine, 1, &s, NULL));
    cr_expect_eq(s.cap, 6);
    et_txs_clear(&t);
    et_add_move(&t, 1, 2, 2, 0, "alice", 0);
    et_accept_ok(env.engine, "l2", &t);
    ET_ASSERT_OK(et_ttt_read(other.engine, 1, &s, NULL));
    cr_expect_eq(s.board[2][2], KD_TTT_X, "the reader sees the new commit");
    uint8_t fw[KD_HASH_LEN], fr[KD_HASH_LEN];
    et_fingerprint(env.engine, fw);
    et_fingerprint(other.engine, fr);
    et_expect_hash_eq(fw, fr, "reader and writer agree");

    /* The reader cannot write. */
    kd_buf msg;
    kd_buf_init(&msg);
    et_accept_msg("l3", &t, &msg);
    kd_msg_result res;
    ET_EXPECT_ERR(kd_engine_ingest(other.engine, msg.data, msg.len, &res), KD_ERR_UNSUPPORTED);
    kd_msg_result_fini(&res);
    kd_buf_fini(&msg);
    et_env_close(&other);

    /* Once the writer closes, another writer may open. */
    et_env_close(&env);
    err = et_env_attach(&other, env.dir, 0, 0, 0, why, sizeof why);
    ET_EXPECT_ERR(err, KD_OK);
    et_env_close(&other);
    et_txs_fini(&t);
}

Test(engine_store, read_only_open_of_an_empty_directory_is_not_found)
{
    char dir[512], why[512] = "";
    et_tmpdir(dir, sizeof dir);
    kd_err err = et_env_attach(&other, dir, 0, 0, 1, why, sizeof why);
    ET_EXPECT_ERR(err, KD_ERR_NOT_FOUND);
    cr_expect(why[0] != '\0');
    et_env_close(&other);
    et_rmtree(dir);
}

/* A store with free pages: blocks of creations and moves, half of them
 * reverted, so the copies their commits replaced lie on the free list. */
static void grow_with_free_pages(kd_engine *engine)
{
    et_txs t;
    et_txs_init(&t);
    char name[32];
    for (int b = 0; b < 40; b++) {
        et_txs_clear(&t);
        for (uint32_t i = 1; i <= 20; i++)
            et_add_create(&t, (uint32_t)b * 20 + i, "alice", "bob", 6);
        block_name(name, sizeof name, "grow", b);
        et_accept_ok(engine, name, &t);
        if (b % 2) {
            et_revert_ok(engine, name);
            block_name(name, sizeof name, "again", b);
            et_accept_ok(engine, name, &t);
        }
    }
    et_txs_fini(&t);
}

static kd_err hold_readers_lock(const char *dir, int how, int *fd)
{
    char path[600];
    snprintf(path, sizeof path, "%s/readers.lock", dir);
    *fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    cr_assert(*fd >= 0, "open %s", path);
    return flock(*fd, how | LOCK_NB) == 0 ? KD_OK : KD_ERR_LOCKED;
}

Test(engine_store, compacting_needs_the_store_to_itself_and_keeps_every_record)
{
    et_env_open(&env, 0, 0);
    grow_with_free_pages(env.engine);
    uint8_t before[KD_HASH_LEN], after[KD_HASH_LEN];
    kd_tip tip0, tip1;
    et_fingerprint(env.engine, before);
    et_tip(env.engine, &tip0);
    size_t episodes = et_episode_count(env.engine);

    kd_store_compaction done;
    char why[512] = "";
    ET_EXPECT_ERR(kd_store_compact(env.dir, &done, why, sizeof why), KD_ERR_LOCKED);
    cr_expect(strstr(why, "in use by process") != NULL, "the refusal names the writer: %s", why);
    et_env_close(&env);

    cr_assert_eq(et_env_attach(&other, env.dir, 0, 0, 1, why, sizeof why), KD_OK, "reader: %s", why);
    ET_EXPECT_ERR(kd_store_compact(env.dir, &done, why, sizeof why), KD_ERR_LOCKED);
    cr_expect(strstr(why, "open for reading") != NULL, "the refusal names the reader: %s", why);
    et_env_close(&other);

    /* What a crash mid-copy leaves is overwritten. */
    char stale[600];
    snprintf(stale, sizeof stale, "%s/data.mdb.compacting", env.dir);
    FILE *fp = fopen(stale, "w");
    cr_assert_not_null(fp);
    fputs("half a copy", fp);
    fclose(fp);

    ET_ASSERT_OK(kd_store_compact(env.dir, &done, why, sizeof why));
    cr_expect_lt(done.bytes_after, done.bytes_before, "the free pages are gone: %llu -> %llu bytes",
                 (unsigned long long)done.bytes_before, (unsigned long long)done.bytes_after);
    struct stat st;
    cr_expect_neq(stat(stale, &st), 0, "no copy is left beside data.mdb");

    /* The same store, and a writable one. */
    et_env_reopen(&env);
    et_fingerprint(env.engine, after);
    et_expect_hash_eq(before, after, "the episodes after compacting");
    et_tip(env.engine, &tip1);
    cr_expect_eq(tip1.height, tip0.height);
    cr_expect_eq(tip1.last_seq, tip0.last_seq);
    et_expect_hash_eq(tip0.digest, tip1.digest, "the digest after compacting");
    cr_expect_eq(et_episode_count(env.engine), episodes);
    /* New blocks commit and revert, and so does the newest block from
     * before: its undo records came through. */
    et_txs t;
    et_txs_init(&t);
    et_add_create(&t, 5000, "alice", "bob", 6);
    et_accept_ok(env.engine, "after", &t);
    et_revert_ok(env.engine, "after");
    et_revert_ok(env.engine, "again39");
    et_env_reopen(&env);
    cr_expect_eq(et_episode_count(env.engine), episodes - 20);
    et_txs_fini(&t);
}

Test(engine_store, a_reader_is_refused_while_the_store_is_compacted)
{
    et_env_open(&env, 0, 0);
    et_env_close(&env);
    int fd;
    ET_ASSERT_OK(hold_readers_lock(env.dir, LOCK_EX, &fd));
    char why[512] = "";
    ET_EXPECT_ERR(et_env_attach(&other, env.dir, 0, 0, 1, why, sizeof why), KD_ERR_LOCKED);
    cr_expect(strstr(why, "being compacted") != NULL, "the refusal says why: %s", why);
    et_env_close(&other);
    close(fd);
    cr_assert_eq(et_env_attach(&other, env.dir, 0, 0, 1, why, sizeof why), KD_OK, "after: %s", why);
    /* And a reader holds it shared: compaction would wait for it. */
    ET_EXPECT_ERR(hold_readers_lock(env.dir, LOCK_EX, &fd), KD_ERR_LOCKED);
    close(fd);
}
