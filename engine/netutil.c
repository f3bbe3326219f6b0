/* netutil.c — NNG helpers and the monotonic clock (see netutil.h). */
#include "engine/netutil.h"

#include <errno.h>
#include <nng/protocol/reqrep0/req.h>
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

kd_err kd_ipc_url_check(const char *url, char *why, size_t why_len)
{
    size_t len = strncmp(url, "ipc://", 6) == 0 ? strlen(url + 6) : 0;
    if (len <= KD_IPC_PATH_MAX)
        return KD_OK;
    snprintf(why, why_len,
             "the socket path %.300s%s is %zu bytes, and a Unix socket's path holds at most %d: set XDG_RUNTIME_DIR "
             "to a shorter private directory (the default sockets live in it), or give tcp:// URLs",
             url + 6, len > 300 ? "…" : "", len, KD_IPC_PATH_MAX);
    return KD_ERR_INVALID_ARG;
}

kd_err kd_nng_listen_all(nng_socket sock, const char *urls, char *why, size_t why_len)
{
    char *copy = strdup(urls), *save = NULL;
    if (!copy)
        return KD_ERR_NOMEM;
    kd_err err = KD_OK;
    for (char *url = strtok_r(copy, ",", &save); url; url = strtok_r(NULL, ",", &save)) {
        if ((err = kd_ipc_url_check(url, why, why_len)))
            break;
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

kd_err kd_nng_request(nng_socket sock, const void *frame, size_t len, nng_duration resend_ms, nng_duration timeout_ms,
                      nng_msg **reply, kd_nng_req_fate *fate)
{
    kd_nng_req_fate f = {0};
    nng_ctx ctx;
    nng_aio *aio = NULL;
    nng_msg *msg = NULL;
    *reply = NULL;
    if ((f.rv = nng_ctx_open(&ctx, sock)))
        goto done;
    if ((f.rv = nng_ctx_set_ms(ctx, NNG_OPT_REQ_RESENDTIME, resend_ms)) || (f.rv = nng_aio_alloc(&aio, NULL, NULL)) ||
        (f.rv = nng_msg_alloc(&msg, len)))
        goto close;
    if (len)
        memcpy(nng_msg_body(msg), frame, len);
    nng_aio_set_timeout(aio, timeout_ms);
    nng_aio_set_msg(aio, msg);
    nng_ctx_send(ctx, aio);
    nng_aio_wait(aio);
    if ((f.rv = nng_aio_result(aio))) /* not sent: the message is still ours */
        goto close;
    msg = NULL;
    f.sent = 1;
    nng_ctx_recv(ctx, aio);
    nng_aio_wait(aio);
    if (!(f.rv = nng_aio_result(aio)))
        *reply = nng_aio_get_msg(aio);
close:
    nng_msg_free(msg);
    nng_aio_free(aio);
    nng_ctx_close(ctx);
done:
    if (fate)
        *fate = f;
    return kd_nng_err(f.rv, "request");
}

kd_err kd_nng_recv_wait(nng_socket sock, nng_aio *aio, nng_msg **msg)
{
    *msg = NULL;
    nng_aio_set_timeout(aio, NNG_DURATION_INFINITE);
    nng_recv_aio(sock, aio);
    nng_aio_wait(aio);
    int rv = nng_aio_result(aio);
    if (rv == NNG_ECANCELED || rv == NNG_ECLOSED)
        return KD_ERR_CLOSED;
    if (rv)
        return kd_nng_err(rv, "receive");
    *msg = nng_aio_get_msg(aio);
    return KD_OK;
}

kd_err kd_cond_init_monotonic(pthread_cond_t *cv)
{
    pthread_condattr_t ca;
    if (pthread_condattr_init(&ca) != 0)
        return KD_ERR_NOMEM;
    int rv = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    if (rv == 0)
        rv = pthread_cond_init(cv, &ca);
    pthread_condattr_destroy(&ca);
    return rv ? KD_ERR_NOMEM : KD_OK;
}

void kd_deadline_after(struct timespec *ts, uint64_t ms)
{
    clock_gettime(CLOCK_MONOTONIC, ts);
    ts->tv_sec += (time_t)(ms / 1000);
    ts->tv_nsec += (long)(ms % 1000) * 1000000L;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
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
    if (!j)
        goto direct;
    j->sock = sock;
    if (pthread_mutex_init(&j->lock, NULL) != 0)
        goto fail_alloc;
    if (kd_cond_init_monotonic(&j->done_cv) != KD_OK)
        goto fail_lock;
    if (pthread_create(&t, NULL, close_thread, j) != 0)
        goto fail_cv;
    pthread_detach(t);
    struct timespec deadline;
    kd_deadline_after(&deadline, KD_NNG_CLOSE_MS);
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
    return;
fail_cv:
    pthread_cond_destroy(&j->done_cv);
fail_lock:
    pthread_mutex_destroy(&j->lock);
fail_alloc:
    free(j);
direct: /* no helper thread: close here, unbounded */
    nng_close(sock);
}

/* ------------------------------------------------------------ redialer */

#define REDIAL_CHECK_MS 250

struct kd_nng_redialer {
    nng_socket sock;
    nng_dialer dialer;
    char *url;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake; /* signalled by stop */
    int stop;
};

/* What the dialer is doing: its open pipes and the sum of its event
 * counters (connections made, refused, failed...), which a dialer that is
 * still trying bumps at every attempt. Returns 0, or -1 when statistics
 * are unavailable. A dialer NNG no longer knows has 0 and 0. */
static int dialer_activity(nng_dialer d, uint64_t *pipes, uint64_t *events)
{
    nng_stat *all = NULL;
    if (nng_stats_get(&all) != 0)
        return -1;
    *pipes = *events = 0;
    nng_stat *ds = nng_stat_find_dialer(all, d);
    for (nng_stat *st = ds ? nng_stat_child(ds) : NULL; st; st = nng_stat_next(st)) {
        if (strcmp(nng_stat_name(st), "pipes") == 0)
            *pipes = nng_stat_value(st);
        else if (nng_stat_type(st) == NNG_STAT_COUNTER)
            *events += nng_stat_value(st);
    }
    nng_stats_free(all);
    return 0;
}

static void *redial_watch(void *arg)
{
    kd_nng_redialer *r = arg;
    uint64_t still_since = kd_now_ms(), last_events = 0;
    pthread_mutex_lock(&r->lock);
    while (!r->stop) {
        struct timespec until;
        kd_deadline_after(&until, REDIAL_CHECK_MS);
        pthread_cond_timedwait(&r->wake, &r->lock, &until);
        if (r->stop)
            break;
        uint64_t pipes, events, now = kd_now_ms();
        if (dialer_activity(r->dialer, &pipes, &events) != 0) {
            KD_LOG_W("net", "NNG statistics are unavailable: cannot watch the dialer of %s", r->url);
            break;
        }
        if (pipes || events != last_events) { /* connected, or still trying */
            last_events = events;
            still_since = now;
            continue;
        }
        if (now - still_since < KD_NNG_REDIAL_MS)
            continue;
        KD_LOG_D("net", "the dialer of %s stopped trying %llu ms ago: dialing again", r->url,
                 (unsigned long long)(now - still_since));
        nng_dialer_close(r->dialer);
        nng_dialer fresh;
        int rv = nng_dial(r->sock, r->url, &fresh, NNG_FLAG_NONBLOCK);
        if (rv == 0)
            r->dialer = fresh;
        else if (rv != NNG_ECLOSED) /* the socket is closing: nothing to dial for */
            KD_LOG_W("net", "cannot dial %s again: %s", r->url, nng_strerror(rv));
        last_events = 0;
        still_since = now;
    }
    pthread_mutex_unlock(&r->lock);
    return NULL;
}

kd_err kd_nng_redialer_start(nng_socket sock, const char *url, kd_nng_redialer **out, char *why, size_t why_len)
{
    kd_nng_redialer *r = calloc(1, sizeof *r);
    if (!r || !(r->url = strdup(url))) {
        free(r);
        snprintf(why, why_len, "out of memory");
        return KD_ERR_NOMEM;
    }
    r->sock = sock;
    kd_err err = KD_OK;
    if (pthread_mutex_init(&r->lock, NULL) != 0) {
        snprintf(why, why_len, "cannot create the lock of the dialer of %s", url);
        err = KD_ERR_NOMEM;
        goto fail;
    }
    if ((err = kd_cond_init_monotonic(&r->wake))) {
        snprintf(why, why_len, "cannot create the condition variable of the dialer of %s", url);
        goto fail_lock;
    }
    int rv = nng_dial(sock, url, &r->dialer, NNG_FLAG_NONBLOCK);
    if (rv) {
        snprintf(why, why_len, "cannot dial %s: %s", url, nng_strerror(rv));
        err = kd_nng_err(rv, "dial");
        goto fail_cond;
    }
    if (pthread_create(&r->thread, NULL, redial_watch, r) != 0) {
        snprintf(why, why_len, "cannot start the thread watching the dialer of %s", url);
        nng_dialer_close(r->dialer);
        err = KD_ERR_NOMEM;
        goto fail_cond;
    }
    *out = r;
    return KD_OK;
fail_cond:
    pthread_cond_destroy(&r->wake);
fail_lock:
    pthread_mutex_destroy(&r->lock);
fail:
    free(r->url);
    free(r);
    return err;
}

void kd_nng_redialer_stop(kd_nng_redialer *r)
{
    if (!r)
        return;
    pthread_mutex_lock(&r->lock);
    r->stop = 1;
    pthread_cond_signal(&r->wake);
    pthread_mutex_unlock(&r->lock);
    pthread_join(r->thread, NULL);
    pthread_cond_destroy(&r->wake);
    pthread_mutex_destroy(&r->lock);
    free(r->url);
    free(r);
}
