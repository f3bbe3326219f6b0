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
 */
#ifndef KD_TOOLS_ENDPOINTS_H
#define KD_TOOLS_ENDPOINTS_H

#include "engine/err.h"

#define KD_URL_MAX 512

typedef struct {
    char ingest[KD_URL_MAX];
    char publish[KD_URL_MAX];
    char devnet[KD_URL_MAX];
} kd_endpoints;

/* Fills the defaults for `data_dir` (which need not exist yet). */
kd_err kd_endpoints_default(const char *data_dir, kd_endpoints *out) KD_WARN_UNUSED;

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
 * Errors: those of kd_endpoints_default. Reentrant.
 */
kd_err kd_endpoints_resolve(const char *data_dir, kd_endpoint_urls *urls, kd_endpoints *defaults) KD_WARN_UNUSED;

#endif
