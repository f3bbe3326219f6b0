/* netutil.c — NNG helpers. */
#include "engine/netutil.h"

#include <errno.h>
#include <pthread.h>
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

typedef struct {
    nng_socket sock;
    pthread_mutex_t lock;
    pthread_cond_t done_cv;
    int done, abandoned;
} close_job;

static void close_job_free(close_job *j)
{
    pthread_cond_destroy(&j->done_cv);
    pthread_mutex_destroy(&j->lock);
    free(j);
}

static void *close_thread(void *arg)
{
    close_job *j = arg;
    nng_close(j->sock);
    pthread_mutex_lock(&j->lock);
    j->done = 1;
    int abandoned = j->abandoned;
    pthread_cond_signal(&j->done_cv);
    pthread_mutex_unlock(&j->lock);
    if (abandoned) /* the caller gave up waiting: the job is ours to free */
        close_job_free(j);
    return NULL;
}

void kd_nng_close(nng_socket sock)
{
    close_job *j = calloc(1, sizeof *j);
    pthread_t t;
    if (!j) {
        nng_close(sock);
        return;
    }
    j->sock = sock;
    pthread_mutex_init(&j->lock, NULL);
    pthread_cond_init(&j->done_cv, NULL);
    if (pthread_create(&t, NULL, close_thread, j) != 0) {
        close_job_free(j);
        nng_close(sock);
        return;
    }
    pthread_detach(t);
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += KD_NNG_CLOSE_MS / 1000;
    deadline.tv_nsec += (long)(KD_NNG_CLOSE_MS % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&j->lock);
    while (!j->done)
        if (pthread_cond_timedwait(&j->done_cv, &j->lock, &deadline) == ETIMEDOUT)
            break;
    int done = j->done;
    if (!done) {
        j->abandoned = 1;
        KD_LOG_W("net", "nng_close did not return within %d ms (a known NNG 1.5 deadlock); going on without it",
                 KD_NNG_CLOSE_MS);
    }
    pthread_mutex_unlock(&j->lock);
    if (done)
        close_job_free(j);
}
