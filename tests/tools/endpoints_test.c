/*
 * endpoints_test.c — the default URLs of a data directory
 * (tools/common/endpoints.c): one directory always gets the same URLs, two
 * directories different ones, and kd_endpoints_resolve fills only the URLs
 * no flag gave; and the private runtime directory they live in: made 0700
 * when missing, refused when it is open to others, a symbolic link, not a
 * directory or another user's (the attack: another local user made
 * /tmp/kdapp-<uid> first, mode 0777, and swapped the sockets).
 *
 * Each test runs in a process of its own with XDG_RUNTIME_DIR set to a
 * fresh private directory (under $KD_TEST_TMP, else /tmp), so nothing here
 * touches the real runtime directory. Where a test needs another owner it
 * needs root, and says so when it skips.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/common/endpoints.h"

#define NOBODY 65534

static char xdg[256], run[300];

/* XDG_RUNTIME_DIR: a fresh private directory; run: its kdapp. */
static void private_xdg(void)
{
    const char *base = getenv("KD_TEST_TMP"); /* short enough for socket paths (tests/CMakeLists.txt) */
    snprintf(xdg, sizeof xdg, "%s/endpoints-XXXXXX", base ? base : "/tmp");
    cr_assert_not_null(mkdtemp(xdg), "mkdtemp %s: %s", xdg, strerror(errno));
    cr_assert_eq(setenv("XDG_RUNTIME_DIR", xdg, 1), 0);
    snprintf(run, sizeof run, "%s/kdapp", xdg);
}

static void remove_xdg(void)
{
    char cmd[600];

    snprintf(cmd, sizeof cmd, "rm -rf '%s'", xdg);
    cr_expect_eq(system(cmd), 0);
}

TestSuite(endpoints, .init = private_xdg, .fini = remove_xdg);

/* kd_endpoints_runtime_dir's answer; the sentence in why. */
static kd_err runtime_dir(char *why, size_t why_len)
{
    char got[300];
    kd_err err;

    why[0] = '\0';
    err = kd_endpoints_runtime_dir(got, sizeof got, why, why_len);
    cr_expect_str_eq(got, run);
    return err;
}

/* Expects the refusal of `path` with a sentence naming it, `problem`, its
 * mode and what to do. */
static void expect_refused(const char *path, const char *problem, const char *mode)
{
    char why[512];

    cr_expect_eq(runtime_dir(why, sizeof why), KD_ERR_INVALID_ARG, "refused");
    cr_expect(strstr(why, path) != NULL, "names the path: %s", why);
    cr_expect(strstr(why, problem) != NULL, "says \"%s\": %s", problem, why);
    cr_expect(strstr(why, mode) != NULL, "names the mode %s: %s", mode, why);
    cr_expect(strstr(why, "XDG_RUNTIME_DIR") != NULL, "says what to do: %s", why);
}

Test(endpoints, one_directory_one_set_of_urls)
{
    kd_endpoints a, b, c;
    char why[512];
    cr_assert_eq(kd_endpoints_default("/tmp/kd-endpoints-test/data", &a, why, sizeof why), KD_OK, "%s", why);
    cr_assert_eq(kd_endpoints_default("/tmp/kd-endpoints-test/data", &b, why, sizeof why), KD_OK);
    cr_assert_eq(kd_endpoints_default("/tmp/kd-endpoints-test/other", &c, why, sizeof why), KD_OK);
    cr_expect_str_eq(a.ingest, b.ingest);
    cr_expect_str_eq(a.publish, b.publish);
    cr_expect_str_eq(a.devnet, b.devnet);
    cr_expect_str_neq(a.ingest, c.ingest, "another directory, other sockets");
    cr_expect(strstr(a.ingest, "-ingest.ipc") && strstr(a.publish, "-views.ipc") && strstr(a.devnet, "-devnet.ipc"));
    cr_expect(strncmp(a.ingest + 6, run, strlen(run)) == 0, "in the runtime directory: %s", a.ingest);
}

Test(endpoints, resolve_keeps_what_flags_gave_and_fills_the_rest)
{
    kd_endpoints dflt, ep;
    char why[512];
    cr_assert_eq(kd_endpoints_default("/tmp/kd-endpoints-test/data", &dflt, why, sizeof why), KD_OK);
    kd_endpoint_urls urls = {.publish = "tcp://127.0.0.1:5555"};
    cr_assert_eq(kd_endpoints_resolve("/tmp/kd-endpoints-test/data", &urls, &ep, why, sizeof why), KD_OK);
    cr_expect_str_eq(urls.publish, "tcp://127.0.0.1:5555", "a flag wins");
    cr_expect_str_eq(urls.ingest, dflt.ingest);
    cr_expect_str_eq(urls.devnet, dflt.devnet);
    cr_expect_eq(urls.ingest, ep.ingest, "the defaults live in the caller's storage");

    kd_endpoint_urls given = {.ingest = "a", .publish = "b", .devnet = "c"};
    cr_assert_eq(kd_endpoints_resolve("/tmp/kd-endpoints-test/data", &given, &ep, why, sizeof why), KD_OK);
    cr_expect_str_eq(given.ingest, "a");
    cr_expect_str_eq(given.publish, "b");
    cr_expect_str_eq(given.devnet, "c");
}

Test(endpoints, a_missing_directory_is_made_private)
{
    char why[512];
    struct stat st;

    umask(0); /* the mode must not depend on the caller's umask */
    cr_assert_eq(runtime_dir(why, sizeof why), KD_OK, "%s", why);
    cr_assert_eq(lstat(run, &st), 0);
    cr_expect(S_ISDIR(st.st_mode));
    cr_expect_eq(st.st_mode & 07777, 0700, "mode %04o", (unsigned)(st.st_mode & 07777));
    cr_expect_eq(st.st_uid, geteuid());
    cr_expect_eq(runtime_dir(why, sizeof why), KD_OK, "found again, and still good: %s", why);
}

Test(endpoints, a_private_directory_is_accepted)
{
    char why[512];

    cr_assert_eq(mkdir(run, 0700), 0);
    cr_expect_eq(runtime_dir(why, sizeof why), KD_OK, "%s", why);
}

/* The attack: the directory was made before us, open to everyone. */
Test(endpoints, a_directory_open_to_others_is_refused)
{
    kd_endpoints ep;
    char why[512];

    cr_assert_eq(mkdir(run, 0700), 0);
    cr_assert_eq(chmod(run, 0777), 0);
    expect_refused(run, "group or others may use it", "mode 0777");
    cr_expect_eq(kd_endpoints_default("/tmp/kd-endpoints-test/data", &ep, why, sizeof why), KD_ERR_INVALID_ARG);
    cr_expect(strstr(why, run) != NULL, "kd_endpoints_default says why: %s", why);
    cr_assert_eq(chmod(run, 0750), 0);
    expect_refused(run, "group or others may use it", "mode 0750");
}

Test(endpoints, a_symbolic_link_is_refused)
{
    char target[300];

    snprintf(target, sizeof target, "%s/elsewhere", xdg);
    cr_assert_eq(mkdir(target, 0700), 0);
    cr_assert_eq(symlink(target, run), 0);
    expect_refused(run, "symbolic link", "mode 0777");
}

Test(endpoints, a_file_is_refused)
{
    FILE *f = fopen(run, "w");

    cr_assert_not_null(f);
    fclose(f);
    cr_assert_eq(chmod(run, 0600), 0);
    expect_refused(run, "not a directory", "mode 0600");
}

Test(endpoints, an_xdg_runtime_dir_others_may_write_is_refused)
{
    char why[512];
    struct stat st;

    cr_assert_eq(chmod(xdg, 0777), 0);
    cr_expect_eq(runtime_dir(why, sizeof why), KD_ERR_INVALID_ARG);
    cr_expect(strstr(why, "XDG_RUNTIME_DIR") != NULL && strstr(why, xdg) != NULL && strstr(why, "mode 0777") != NULL,
              "%s", why);
    cr_expect_neq(lstat(run, &st), 0, "nothing was made in it");
}

/* Flags that give every URL need no runtime directory, good or bad. */
Test(endpoints, resolve_with_every_url_given_looks_at_no_directory)
{
    kd_endpoint_urls given = {.ingest = "a", .publish = "b", .devnet = "c"};
    kd_endpoints ep;
    char why[512];

    cr_assert_eq(chmod(xdg, 0777), 0);
    cr_expect_eq(kd_endpoints_resolve("/tmp/kd-endpoints-test/data", &given, &ep, why, sizeof why), KD_OK);
    kd_endpoint_urls some = {.ingest = "a"};
    cr_expect_eq(kd_endpoints_resolve("/tmp/kd-endpoints-test/data", &some, &ep, why, sizeof why), KD_ERR_INVALID_ARG);
}

/* Another user's directory: only root can make one. */
Test(endpoints, another_users_directory_is_refused)
{
    char why[512], uid[32];

    if (geteuid() != 0)
        cr_skip_test("needs root to give a directory to another user (uid %d); run the tests as root to check it",
                     NOBODY);
    cr_assert_eq(mkdir(run, 0700), 0);
    cr_assert_eq(chown(run, NOBODY, NOBODY), 0, "chown: %s", strerror(errno));
    snprintf(uid, sizeof uid, "uid %d", NOBODY);
    expect_refused(run, "belongs to another user", uid);
    cr_assert_eq(chown(run, 0, 0), 0);
    cr_assert_eq(chown(xdg, NOBODY, NOBODY), 0);
    cr_expect_eq(runtime_dir(why, sizeof why), KD_ERR_INVALID_ARG);
    cr_expect(strstr(why, "XDG_RUNTIME_DIR") != NULL && strstr(why, "another user") != NULL, "%s", why);
}

/* Without XDG_RUNTIME_DIR: /tmp/kdapp-<euid>, checked the same way (this
 * one is shared with the rest of the suite, so it is only looked at). */
Test(endpoints, the_fallback_is_per_user_under_tmp)
{
    char got[300], want[64], why[512];
    struct stat st;

    cr_assert_eq(unsetenv("XDG_RUNTIME_DIR"), 0);
    snprintf(want, sizeof want, "/tmp/kdapp-%ld", (long)geteuid());
    cr_expect_eq(kd_endpoints_runtime_dir(got, sizeof got, why, sizeof why), KD_OK, "%s", why);
    cr_expect_str_eq(got, want);
    cr_assert_eq(lstat(want, &st), 0);
    cr_expect_eq(st.st_mode & 077, 0, "private: mode %04o", (unsigned)(st.st_mode & 07777));
}

/* A runtime directory so deep that a socket's path passes the 107 bytes a
 * socket address holds (a clone in a deeply nested directory): refused with
 * a sentence naming the limit and what to do, not NNG's "Address invalid". */
Test(endpoints, a_socket_path_over_the_limit_is_refused_naming_it)
{
    char deep[400];
    /* 100 bytes: under the 128 beyond which /tmp/kdapp-<uid> is used instead,
     * and with "/kdapp/<tag>-ingest.ipc" over 107 */
    snprintf(deep, sizeof deep, "%s/%0*d", xdg, (int)(100 - strlen(xdg) - 1), 0);
    cr_assert_eq(mkdir(deep, 0700), 0, "mkdir %s: %s", deep, strerror(errno));
    cr_assert_eq(setenv("XDG_RUNTIME_DIR", deep, 1), 0);
    kd_endpoints e;
    char why[600] = "";
    cr_expect_eq(kd_endpoints_default("/tmp/some-data", &e, why, sizeof why), KD_ERR_INVALID_ARG);
    cr_expect(strstr(why, "at most 107") != NULL, "names the limit: %s", why);
    cr_expect(strstr(why, deep) != NULL, "names the path: %s", why);
    cr_expect(strstr(why, "XDG_RUNTIME_DIR") != NULL, "says what to do: %s", why);
    cr_assert_eq(setenv("XDG_RUNTIME_DIR", xdg, 1), 0);
}
