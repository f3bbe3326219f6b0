/*
 * faults_test.c — the engine when the disk or its map runs out: a full map
 * grows and the engine goes on; a map that may not grow, or a full
 * filesystem (a small tmpfs, when this process may mount one), fails the
 * event with a clear error, applies nothing of it, keeps everything
 * acknowledged before, and takes the same event again once there is room.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "support.h"

/* Opens an engine on `dir` with the given map limits. */
static kd_err open_with_map(et_env *env, const char *dir, size_t map, size_t max_map)
{
    kd_engine_options o = {.map_size = map, .max_map_size = max_map};
    char why[256];
    return et_env_attach_with(env, dir, 0, &o, why, sizeof why);
}

static void name_of(int i, char *out, size_t len) { snprintf(out, len, "fault-%d", i); }

/* The reference: the same blocks on a default engine. */
static void reference(int blocks, uint8_t fp[KD_HASH_LEN])
{
    et_env env;
    et_env_open(&env, 0, 0);
    et_txs t;
    et_txs_init(&t);
    for (int i = 0; i < blocks; i++) {
        char name[32];
        name_of(i, name, sizeof name);
        et_fill_block(i, &t);
        et_accept_ok(env.engine, name, &t);
    }
    et_fingerprint(env.engine, fp);
    et_txs_fini(&t);
    et_env_fini(&env);
}

Test(faults, a_full_map_grows_and_the_engine_goes_on)
{
    char dir[512];
    et_tmpdir(dir, sizeof dir);
    et_env env;
    cr_assert_eq(open_with_map(&env, dir, 64 << 10, 0), KD_OK, "a 64 KiB map opens");
    et_txs t;
    et_txs_init(&t);
    enum { N = 160 };
    for (int i = 0; i < N; i++) {
        char name[32];
        name_of(i, name, sizeof name);
        et_fill_block(i, &t);
        et_accept_ok(env.engine, name, &t); /* each may hit MAP_FULL inside and grow */
    }
    uint8_t fp[KD_HASH_LEN], want[KD_HASH_LEN];
    et_fingerprint(env.engine, fp);
    et_txs_fini(&t);
    et_env_close(&env);
    et_rmtree(dir);
    reference(N, want);
    et_expect_hash_eq(fp, want, "the same state as on a big map");
}

/* Feeds blocks until the first failure; returns its index. */
static int feed_until_failure(et_env *env, et_txs *t, int max, kd_err *err_out, char *detail, size_t len)
{
    for (int i = 0; i < max; i++) {
        char name[32];
        kd_buf msg;
        kd_msg_result res;
        name_of(i, name, sizeof name);
        et_fill_block(i, t);
        kd_buf_init(&msg);
        et_accept_msg(name, t, &msg);
        kd_tip before, after;
        et_tip(env->engine, &before);
        kd_err err = kd_engine_ingest(env->engine, msg.data, msg.len, &res);
        kd_buf_fini(&msg);
        if (err) {
            *err_out = err;
            snprintf(detail, len, "%s", res.detail);
            kd_msg_result_fini(&res);
            et_tip(env->engine, &after);
            cr_expect_eq(after.height, before.height, "a failed event applies nothing");
            et_expect_hash_eq(after.digest, before.digest, "the digest is unchanged");
            return i;
        }
        cr_assert_eq(res.status, KD_MSG_APPLIED);
        kd_msg_result_fini(&res);
    }
    return -1;
}

static void finish_after_room(et_env *env, et_txs *t, int from, int total)
{
    for (int i = from; i < total; i++) {
        char name[32];
        name_of(i, name, sizeof name);
        et_fill_block(i, t);
        et_accept_ok(env->engine, name, t);
    }
}

Test(faults, a_map_that_may_not_grow_fails_cleanly_and_recovers)
{
    char dir[512];
    et_tmpdir(dir, sizeof dir);
    et_env env;
    cr_assert_eq(open_with_map(&env, dir, 64 << 10, 128 << 10), KD_OK);
    et_txs t;
    et_txs_init(&t);
    enum { N = 400 };
    kd_err err = KD_OK;
    char detail[KD_DETAIL_MAX] = "";
    int failed = feed_until_failure(&env, &t, N, &err, detail, sizeof detail);
    cr_assert_geq(failed, 1, "the 128 KiB ceiling is reached within %d blocks", N);
    cr_expect_eq(err, KD_ERR_MAP_FULL, "got %s", kd_err_code(err));
    cr_expect(strstr(detail, "full") && strstr(detail, "send it again"), "a clear error: %s", detail);
    /* Everything acknowledged survives a reopen with room to grow. */
    et_env_close(&env);
    cr_assert_eq(open_with_map(&env, dir, 0, 0), KD_OK);
    kd_tip tip;
    et_tip(env.engine, &tip);
    cr_expect_eq(tip.height, (uint64_t)failed, "every acknowledged block is there");
    finish_after_room(&env, &t, failed, N);
    uint8_t fp[KD_HASH_LEN], want[KD_HASH_LEN];
    et_fingerprint(env.engine, fp);
    et_txs_fini(&t);
    et_env_close(&env);
    et_rmtree(dir);
    reference(N, want);
    et_expect_hash_eq(fp, want, "re-sending the failed event completes the same run");
}

Test(faults, a_full_filesystem_fails_cleanly_and_recovers)
{
    char dir[512];
    et_tmpdir(dir, sizeof dir);
    if (geteuid() != 0 || mount("tmpfs", dir, "tmpfs", 0, "size=256k,mode=0700") != 0) {
        et_rmtree(dir);
        cr_skip_test("cannot mount a tmpfs here (%s): the injected-ceiling test covers the error path",
                     strerror(errno));
    }
    et_env env;
    cr_assert_eq(open_with_map(&env, dir, 8 << 20, 0), KD_OK);
    et_txs t;
    et_txs_init(&t);
    enum { N = 400 };
    kd_err err = KD_OK;
    char detail[KD_DETAIL_MAX] = "";
    int failed = feed_until_failure(&env, &t, N, &err, detail, sizeof detail);
    if (failed >= 1) {
        cr_expect(err == KD_ERR_NO_SPACE || err == KD_ERR_IO || err == KD_ERR_STORE, "got %s", kd_err_code(err));
        cr_expect(strlen(detail) > 0, "a clear error");
        /* Space returns: grow the filesystem and send the same event again. */
        cr_assert_eq(mount("tmpfs", dir, "tmpfs", MS_REMOUNT, "size=64m,mode=0700"), 0, "%s", strerror(errno));
        finish_after_room(&env, &t, failed, N);
    }
    uint8_t fp[KD_HASH_LEN], want[KD_HASH_LEN];
    et_fingerprint(env.engine, fp);
    et_txs_fini(&t);
    et_env_close(&env);
    umount(dir);
    et_rmtree(dir);
    cr_expect_geq(failed, 1, "256 KiB of tmpfs fill up within %d blocks", N);
    reference(N, want);
    et_expect_hash_eq(fp, want, "re-sending the failed event completes the same run");
}
