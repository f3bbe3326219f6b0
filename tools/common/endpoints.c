/* endpoints.c — default socket URLs per user and data directory, in a
 * private runtime directory (endpoints.h says why it must be private). */
#include "tools/common/endpoints.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/bytes.h"
#include "engine/crypto.h"
#include "engine/netutil.h"

#define XDG_MAX 128 /* a longer XDG_RUNTIME_DIR leaves no room in an ipc path (108 bytes) */

/* Says why `path` (described by `st`) is refused, and returns
 * KD_ERR_INVALID_ARG. */
static kd_err refuse(char *why, size_t why_len, const char *what, const char *path, const struct stat *st,
                     const char *problem, const char *fix)
{
    snprintf(why, why_len, "%s %s is not private: %s (owner uid %ld, mode %04o); %s", what, path, problem,
             (long)st->st_uid, (unsigned)(st->st_mode & 07777), fix);
    return KD_ERR_INVALID_ARG;
}

/*
 * Opens the directory the runtime directory is made in, and checks that
 * no one else can rename the runtime directory out of it and put another
 * in its place: XDG_RUNTIME_DIR must be this user's and writable by no one
 * else; /tmp (the fallback) must be sticky when others may write to it.
 * Returns the descriptor, or -1 with `why` and *err set.
 */
static int open_parent(const char *parent, int xdg, char *why, size_t why_len, kd_err *err)
{
    int fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    struct stat st;

    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(why, why_len, "%s%s cannot be opened as a directory: %s; %s", xdg ? "XDG_RUNTIME_DIR=" : "", parent,
                 strerror(errno),
                 xdg ? "set it to a private directory of yours, or unset it"
                     : "set XDG_RUNTIME_DIR to a private directory of yours");
        if (fd >= 0)
            close(fd);
        *err = KD_ERR_IO;
        return -1;
    }
    if (xdg && (st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)) != 0)) {
        *err = refuse(why, why_len, "XDG_RUNTIME_DIR", parent, &st,
                      st.st_uid != geteuid() ? "it belongs to another user" : "others may write to it",
                      "set XDG_RUNTIME_DIR to a directory of yours that only you can write to (mode 0700), or unset "
                      "it");
        close(fd);
        return -1;
    }
    if (!xdg && (st.st_mode & (S_IWGRP | S_IWOTH)) != 0 && (st.st_mode & S_ISVTX) == 0 && st.st_uid != geteuid()) {
        *err = refuse(why, why_len, "the directory", parent, &st,
                      "others may write to it and it is not sticky, so they could replace what is made in it",
                      "set XDG_RUNTIME_DIR to a private directory of yours");
        close(fd);
        return -1;
    }
    return fd;
}

/*
 * The check. The directory is made with mkdirat (0700) when missing; made
 * or found, lstat tells a symbolic link or a non-directory, then it is
 * opened with O_NOFOLLOW and its fstat checked (owner, mode), after making
 * sure the object opened is the one lstat saw. What remains between this
 * check and NNG's use of the path (NNG takes a path, not a descriptor): the
 * directory could be swapped only by someone who may rename entries of its
 * parent, which open_parent limited to this user and root; and root is
 * trusted anyway.
 */
kd_err kd_endpoints_runtime_dir(char *run, size_t run_len, char *why, size_t why_len)
{
    static const char FIX[] = "remove it and run again, or set XDG_RUNTIME_DIR to a private directory of yours";
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    int use_xdg = xdg != NULL && *xdg != '\0' && strlen(xdg) < XDG_MAX;
    const char *parent = use_xdg ? xdg : "/tmp", *name;
    int pfd, fd = -1;
    struct stat lst, st;
    kd_err err = KD_ERR_IO;

    if (use_xdg)
        snprintf(run, run_len, "%s/kdapp", xdg);
    else
        snprintf(run, run_len, "/tmp/kdapp-%ld", (long)geteuid());
    name = strrchr(run, '/') + 1;
    if ((pfd = open_parent(parent, use_xdg, why, why_len, &err)) < 0)
        return err;
    if (mkdirat(pfd, name, 0700) != 0 && errno != EEXIST) {
        snprintf(why, why_len, "cannot make the runtime directory %s: %s", run, strerror(errno));
        goto done;
    }
    if (fstatat(pfd, name, &lst, AT_SYMLINK_NOFOLLOW) != 0) {
        snprintf(why, why_len, "cannot examine the runtime directory %s: %s", run, strerror(errno));
        goto done;
    }
    if (S_ISLNK(lst.st_mode)) {
        err = refuse(why, why_len, "the runtime directory", run, &lst, "it is a symbolic link", FIX);
        goto done;
    }
    if (!S_ISDIR(lst.st_mode)) {
        err = refuse(why, why_len, "the runtime directory", run, &lst, "it is not a directory", FIX);
        goto done;
    }
    if ((fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0 || fstat(fd, &st) != 0) {
        snprintf(why, why_len, "cannot open the runtime directory %s: %s", run, strerror(errno));
        goto done;
    }
    if (st.st_dev != lst.st_dev || st.st_ino != lst.st_ino)
        err = refuse(why, why_len, "the runtime directory", run, &st, "it was replaced while being checked", FIX);
    else if (st.st_uid != geteuid())
        err = refuse(why, why_len, "the runtime directory", run, &st, "it belongs to another user", FIX);
    else if ((st.st_mode & 077) != 0)
        err = refuse(why, why_len, "the runtime directory", run, &st, "group or others may use it", FIX);
    else
        err = KD_OK;
done:
    if (fd >= 0)
        close(fd);
    close(pfd);
    return err;
}

kd_err kd_endpoints_default(const char *data_dir, kd_endpoints *out, char *why, size_t why_len)
{
    char run[PATH_MAX];
    kd_err err = kd_endpoints_runtime_dir(run, sizeof run, why, why_len);
    if (err)
        return err;
    /* realpath of a directory that may not exist yet: resolve its parent. */
    char real[PATH_MAX];
    if (!realpath(data_dir, real)) {
        char parent[PATH_MAX];
        snprintf(parent, sizeof parent, "%s", data_dir);
        char *slash = strrchr(parent, '/');
        const char *base = data_dir;
        if (slash) {
            *slash = '\0';
            base = slash + 1;
        } else {
            snprintf(parent, sizeof parent, ".");
        }
        char rp[PATH_MAX];
        if (!realpath(parent[0] ? parent : "/", rp))
            snprintf(rp, sizeof rp, "%s", parent);
        snprintf(real, sizeof real, "%.2000s/%.2000s", rp, base);
    }
    uint8_t h[KD_HASH_LEN];
    kd_sha256(real, strlen(real), h);
    char tag[13];
    kd_hex_encode(h, 6, tag);
    /* the longest of the three (ingest, devnet) must fit a socket address */
    char probe[PATH_MAX + 64];
    snprintf(probe, sizeof probe, "ipc://%s/%s-ingest.ipc", run, tag);
    kd_err too_long = kd_ipc_url_check(probe, why, why_len);
    if (too_long)
        return too_long;
    snprintf(out->ingest, sizeof out->ingest, "ipc://%.128s/%s-ingest.ipc", run, tag);
    snprintf(out->publish, sizeof out->publish, "ipc://%.128s/%s-views.ipc", run, tag);
    snprintf(out->devnet, sizeof out->devnet, "ipc://%.128s/%s-devnet.ipc", run, tag);
    return KD_OK;
}

kd_err kd_endpoints_resolve(const char *data_dir, kd_endpoint_urls *urls, kd_endpoints *defaults, char *why,
                            size_t why_len)
{
    memset(defaults, 0, sizeof *defaults);
    if (urls->ingest && urls->publish && urls->devnet)
        return KD_OK; /* no default needed: the runtime directory is not looked at */
    kd_err err = kd_endpoints_default(data_dir, defaults, why, why_len);
    if (err)
        return err;
    if (!urls->ingest)
        urls->ingest = defaults->ingest;
    if (!urls->publish)
        urls->publish = defaults->publish;
    if (!urls->devnet)
        urls->devnet = defaults->devnet;
    return KD_OK;
}
