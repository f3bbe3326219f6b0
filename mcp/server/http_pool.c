/*
 * http_pool.c — the workers that handle the POSTs that may wait (tool
 * calls not marked quick) for the HTTP transport, so that libmicrohttpd's
 * polling threads never block.
 *
 * Why a pool that grows: a POST may be a tool call that waits up to its
 * deadline for the block carrying a move, so a worker can be held for
 * seconds. A fixed handful of workers would make agents queue behind each
 * other's blocks; a thread per connection is what let idle connections
 * exhaust the server. So threads start as jobs need them (a job is queued
 * while no thread is idle), up to a cap, and stay for the next jobs; beyond
 * the cap jobs wait their turn in arrival order. Requests in flight are
 * bounded anyway by sessions and their call rate.
 *
 * A quarter of the workers is kept for granted clients (a request that
 * carried a token): the jobs of the others ("strangers": tokenless calls,
 * the web app's costly pages) run on three quarters at most, and wait
 * beyond, so that no flood without a token keeps a granted agent's move
 * waiting for a worker (issue 37). A granted job runs first.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/logger.h"
#include "mcp/server/http_int.h"

struct kd_http_pool {
    pthread_mutex_t lock;
    pthread_cond_t cond;            /* a job may run, or the pool closes */
    kd_http_job *head[2], *tail[2]; /* queued jobs, oldest first: [0] granted, [1] strangers' */
    unsigned queued, idle;          /* jobs waiting; threads waiting for one */
    unsigned n_threads, max_threads;
    unsigned strangers, max_strangers; /* strangers' jobs running; at most */
    pthread_t *threads;                /* max_threads slots */
    int closing;
};

/* The next job that may run (a granted one first; a stranger's while
 * fewer than max_strangers run, or once closing), unlinked; or NULL. */
static kd_http_job *take_locked(kd_http_pool *p)
{
    kd_http_job *job;
    int q;

    if (p->head[0] != NULL)
        q = 0;
    else if (p->head[1] != NULL && (p->strangers < p->max_strangers || p->closing))
        q = 1;
    else
        return NULL;
    job = p->head[q];
    p->head[q] = job->next;
    if (p->head[q] == NULL)
        p->tail[q] = NULL;
    p->queued--;
    p->strangers += (unsigned)q;
    return job;
}

static void *worker_main(void *arg)
{
    kd_http_pool *p = arg;
    kd_http_job *job;
    int stranger;

    pthread_mutex_lock(&p->lock);
    for (;;) {
        while ((job = take_locked(p)) == NULL && !p->closing) {
            p->idle++;
            pthread_cond_wait(&p->cond, &p->lock);
            p->idle--;
        }
        if (job == NULL)
            break; /* closing, and every queued job has run */
        stranger = job->stranger;
        pthread_mutex_unlock(&p->lock);
        job->run(job); /* may free the job's owner */
        pthread_mutex_lock(&p->lock);
        if (stranger) /* a stranger's job that waited for room may run: this thread takes it next */
            p->strangers--;
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

kd_err kd_http_pool_start(unsigned max_threads, kd_http_pool **out)
{
    kd_http_pool *p;

    *out = NULL;
    if ((p = calloc(1, sizeof *p)) == NULL)
        return KD_ERR_NOMEM;
    p->max_threads = max_threads ? max_threads : 1;
    p->max_strangers = p->max_threads - p->max_threads / 4;
    if ((p->threads = calloc(p->max_threads, sizeof *p->threads)) == NULL)
        goto fail_threads;
    if (pthread_mutex_init(&p->lock, NULL) != 0)
        goto fail_lock;
    if (pthread_cond_init(&p->cond, NULL) != 0)
        goto fail_cond;
    *out = p;
    return KD_OK;
fail_cond:
    pthread_mutex_destroy(&p->lock);
fail_lock:
    free(p->threads);
fail_threads:
    free(p);
    return KD_ERR_NOMEM;
}

kd_err kd_http_pool_submit(kd_http_pool *p, kd_http_job *job)
{
    int rc, q;

    pthread_mutex_lock(&p->lock);
    if (p->closing) {
        pthread_mutex_unlock(&p->lock);
        return KD_ERR_CLOSED;
    }
    /* Start a thread when more jobs wait than threads do. */
    if (p->queued + 1 > p->idle && p->n_threads < p->max_threads) {
        rc = pthread_create(&p->threads[p->n_threads], NULL, worker_main, p);
        if (rc == 0) {
            p->n_threads++;
        } else if (p->n_threads == 0) {
            pthread_mutex_unlock(&p->lock);
            KD_LOG_E("mcp", "http: no worker thread could start (%s)", strerror(rc));
            return KD_ERR_NOMEM;
        } else {
            KD_LOG_W("mcp", "http: a worker thread could not start (%s); %u workers go on", strerror(rc), p->n_threads);
        }
    }
    job->next = NULL;
    q = job->stranger != 0;
    if (p->tail[q] != NULL)
        p->tail[q]->next = job;
    else
        p->head[q] = job;
    p->tail[q] = job;
    p->queued++;
    pthread_cond_signal(&p->cond);
    pthread_mutex_unlock(&p->lock);
    return KD_OK;
}

void kd_http_pool_stop(kd_http_pool *p)
{
    unsigned i;

    if (p == NULL)
        return;
    pthread_mutex_lock(&p->lock);
    p->closing = 1;
    pthread_cond_broadcast(&p->cond);
    pthread_mutex_unlock(&p->lock);
    for (i = 0; i < p->n_threads; i++) /* n_threads no longer changes */
        pthread_join(p->threads[i], NULL);
    pthread_cond_destroy(&p->cond);
    pthread_mutex_destroy(&p->lock);
    free(p->threads);
    free(p);
}
