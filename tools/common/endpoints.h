/*
 * endpoints.h — where the daemons of one data directory listen by default.
 *
 * Defaults live in a per-user runtime directory ($XDG_RUNTIME_DIR/kdapp, or
 * /tmp/kdapp-<uid>, mode 0700), named after the data directory's real path,
 * so two users, or two data directories, never collide, and every tool
 * pointed at the same --data finds the same sockets:
 *
 *   ipc://<run>/<tag>-ingest.ipc   engine ingest (REP)
 *   ipc://<run>/<tag>-views.ipc    engine views (PUB)
 *   ipc://<run>/<tag>-devnet.ipc   devnet submit/control (REP)
 *
 * where <tag> is 12 hex digits of SHA-256(realpath(data dir)).
 *
 * The runtime directory must be private: whoever can write in it can put
 * their own sockets where a tool looks for the engine's or the devnet's,
 * and receive its episodes. With XDG_RUNTIME_DIR unset, another local user
 * could create /tmp/kdapp-<uid> first, mode 0777. So the directory is made
 * 0700 when missing, and then, made or found, used only when it is a
 * directory (not a symbolic link) owned by this user with no access for
 * group or others, in a parent that no one else can rename it out of;
 * anything else is refused with a sentence that names the path, its owner
 * and mode, and what to do.
 */
#ifndef KD_TOOLS_ENDPOINTS_H
#define KD_TOOLS_ENDPOINTS_H

#include <stddef.h>

#include "engine/err.h"

#define KD_URL_MAX 512

typedef struct {
    char ingest[KD_URL_MAX];
    char publish[KD_URL_MAX];
    char devnet[KD_URL_MAX];
} kd_endpoints;

/*
 * The private runtime directory ($XDG_RUNTIME_DIR/kdapp, else
 * /tmp/kdapp-<euid>), made when missing and checked as above; its path goes
 * to `run`. Errors: KD_ERR_IO (it cannot be made or opened) and
 * KD_ERR_INVALID_ARG (it, or XDG_RUNTIME_DIR, is not private), each with a
 * sentence in `why` naming the path, its owner and mode and what to do.
 */
kd_err kd_endpoints_runtime_dir(char *run, size_t run_len, char *why, size_t why_len) KD_WARN_UNUSED;

/* Fills the defaults for `data_dir` (which need not exist yet), in the
 * private runtime directory. Errors: those of kd_endpoints_runtime_dir,
 * with `why`. */
kd_err kd_endpoints_default(const char *data_dir, kd_endpoints *out, char *why, size_t why_len) KD_WARN_UNUSED;

/* The URLs one command talks to, each NULL until a flag gives it (an option
 * table can store into these fields directly). */
typedef struct {
    const char *ingest;  /* engine ingest (REP) */
    const char *publish; /* engine views (PUB) */
    const char *devnet;  /* devnet submit/control (REP) */
} kd_endpoint_urls;

/*
 * Gives every URL of `urls` still NULL the default of `data_dir`: a flag
 * wins, else the data directory's endpoint. The defaults are written into
 * `defaults`, the caller's storage, which must outlive the use of `urls`.
 * When flags gave every URL, the runtime directory is not looked at.
 * Errors: those of kd_endpoints_default, with `why`. Reentrant.
 */
kd_err kd_endpoints_resolve(const char *data_dir, kd_endpoint_urls *urls, kd_endpoints *defaults, char *why,
                            size_t why_len) KD_WARN_UNUSED;

#endif
