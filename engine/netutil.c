/* netutil.c — NNG helpers. */
#include "engine/netutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "engine/logger.h"

kd_err kd_nng_err(int rv, const char *what)
{
    if (rv == 0)
        return KD_OK;
    KD_LOG_D("net", "%s: %s (nng %d)", what, nng_strerror(rv), rv);
    switch (rv) {
    case NNG_ETIMEDOUT:
        return KD_ERR_TIMEOUT;
    case NNG_ECLOSED:
        return KD_ERR_CLOSED;
    case NNG_ENOMEM:
        return KD_ERR_NOMEM;
    case NNG_EINVAL:
    case NNG_EADDRINVAL:
        return KD_ERR_INVALID_ARG;
    case NNG_EADDRINUSE:
        return KD_ERR_LOCKED;
    case NNG_EMSGSIZE:
        return KD_ERR_TOO_LARGE;
    default:
        return KD_ERR_NET;
    }
}

/* mkdir -p for the directory part of an ipc:// path. */
static void make_ipc_dir(const char *url)
{
    if (strncmp(url, "ipc://", 6) != 0)
        return;
    char path[1024];
    snprintf(path, sizeof path, "%s", url + 6);
    char *slash = strrchr(path, '/');
    if (!slash || slash == path)
        return;
    *slash = '\0';
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        mkdir(path, 0700);
        *p = '/';
    }
    mkdir(path, 0700);
}

kd_err kd_nng_listen_all(nng_socket sock, const char *urls, char *why, size_t why_len)
{
    char *copy = strdup(urls), *save = NULL;
    if (!copy)
        return KD_ERR_NOMEM;
    kd_err err = KD_OK;
    for (char *url = strtok_r(copy, ",", &save); url; url = strtok_r(NULL, ",", &save)) {
        make_ipc_dir(url);
        int rv = nng_listen(sock, url, NULL, 0);
        if (rv) {
            snprintf(why, why_len, "cannot listen on %s: %s", url, nng_strerror(rv));
            err = kd_nng_err(rv, "listen");
            break;
        }
    }
    free(copy);
    return err;
}

uint64_t kd_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

uint64_t kd_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

uint64_t kd_wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}
