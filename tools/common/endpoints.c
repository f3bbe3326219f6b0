/* endpoints.c — default socket URLs per user and data directory. */
#include "tools/common/endpoints.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/bytes.h"
#include "engine/crypto.h"

kd_err kd_endpoints_default(const char *data_dir, kd_endpoints *out)
{
    char run[256];
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    if (xdg && *xdg && strlen(xdg) < 128)
        snprintf(run, sizeof run, "%s/kdapp", xdg);
    else
        snprintf(run, sizeof run, "/tmp/kdapp-%ld", (long)getuid());
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
    snprintf(out->ingest, sizeof out->ingest, "ipc://%s/%s-ingest.ipc", run, tag);
    snprintf(out->publish, sizeof out->publish, "ipc://%s/%s-views.ipc", run, tag);
    snprintf(out->devnet, sizeof out->devnet, "ipc://%s/%s-devnet.ipc", run, tag);
    return KD_OK;
}

kd_err kd_endpoints_resolve(const char *data_dir, kd_endpoint_urls *urls, kd_endpoints *defaults)
{
    kd_err err = kd_endpoints_default(data_dir, defaults);
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
