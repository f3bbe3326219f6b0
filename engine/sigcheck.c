/* sigcheck.c — the verifier pool and verdict lookup (see sigcheck.h). */
#include "engine/sigcheck.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The niceness of the filler verifier: it runs only on a core nothing
 * else at normal priority wants (the writer's, while it syncs). */
#define FILLER_NICE 19

struct kd_sig_batch {
    kd_sig_job *jobs;
    atomic_size_t count; /* the jobs handed over so far (kd_sig_pool_extend adds) */
    atomic_size_t next;  /* the next job to claim */
    size_t hint;         /* where the writer's next lookup starts (writer only) */
};

/* No more claims: kd_sig_pool_finish closes the batch with this. */
#define CLOSED SIZE_MAX

typedef struct {
    struct kd_sig_pool *pool;
    pthread_t thread;
    int filler; /* runs at FILLER_NICE */
} verifier;

struct kd_sig_pool {
    verifier *threads;
    unsigned n_threads;
    pthread_mutex_t lock;
    pthread_cond_t work; /* a batch arrived, or stopping */
    pthread_cond_t idle; /* a worker left the batch */
    kd_sig_batch batch;
    int has_batch, stopping;
    unsigned active; /* workers inside the current batch */
};

static void run_job(kd_sig_job *j)
{
    kd_precheck_job *p = j->pre;
    if (p)
        j->verdict = p->ops->precheck(p->state, p->command, p->command_len, p->has_signer ? &j->pubkey : NULL,
                                      p->episode_id, &p->rej);
    else
        j->verdict = kd_sig_verify(&j->pubkey, j->digest, j->sig, j->sig_len);
    atomic_store(&j->state, 2);
}

/* Claims the next queued job of the batch, or returns NULL. */
static kd_sig_job *claim_next(kd_sig_batch *b)
{
    size_t i = atomic_load(&b->next);
    for (;;) {
        /* never past the jobs handed over: the batch may grow */
        if (i >= atomic_load(&b->count))
            return NULL;
        if (!atomic_compare_exchange_weak(&b->next, &i, i + 1))
            continue; /* i is the current value again */
        int queued = 0;
        if (atomic_compare_exchange_strong(&b->jobs[i].state, &queued, 1))
            return &b->jobs[i];
        i++;
    }
}

static void *worker(void *arg)
{
    verifier *self = arg;
    kd_sig_pool *p = self->pool;
    /* Linux keeps a niceness per thread; lowering one's own needs no
     * privilege, and a filler that stays at 0 is only a plain verifier. */
    if (self->filler)
        (void)!setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), FILLER_NICE);
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->stopping && !p->has_batch)
            pthread_cond_wait(&p->work, &p->lock);
        if (p->stopping)
            break;
        p->active++;
        kd_sig_batch *b = &p->batch;
        pthread_mutex_unlock(&p->lock);
        kd_sig_job *j;
        while ((j = claim_next(b)))
            run_job(j);
        pthread_mutex_lock(&p->lock);
        p->active--;
        pthread_cond_broadcast(&p->idle);
        /* Sleep until the batch grows, or is finished and another starts. */
        while (!p->stopping && p->has_batch && atomic_load(&b->next) >= atomic_load(&b->count))
            pthread_cond_wait(&p->work, &p->lock);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

kd_err kd_sig_pool_alloc(unsigned threads, kd_sig_pool **out)
{
    unsigned fillers = 0;
    if (!threads) { /* one core is the writer's, and the writer verifies too */
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        threads = n > 1 ? (unsigned)n - 1 : 1;
        fillers = n > 1; /* and its core is idle while it syncs a block */
        threads += fillers;
    }
    kd_sig_pool *p = calloc(1, sizeof *p);
    if (!p)
        return KD_ERR_NOMEM;
    p->threads = calloc(threads, sizeof *p->threads);
    if (!p->threads) {
        free(p);
        return KD_ERR_NOMEM;
    }
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->idle, NULL);
    for (unsigned i = 0; i < threads; i++) {
        p->threads[i].pool = p;
        p->threads[i].filler = i >= threads - fillers;
        if (pthread_create(&p->threads[i].thread, NULL, worker, &p->threads[i]) != 0)
            break;
        p->n_threads++;
    }
    if (!p->n_threads) {
        kd_sig_pool_free(p);
        return KD_ERR_NOMEM;
    }
    *out = p;
    return KD_OK;
}

void kd_sig_pool_free(kd_sig_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->stopping = 1;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->lock);
    for (unsigned i = 0; i < p->n_threads; i++)
        pthread_join(p->threads[i].thread, NULL);
    pthread_cond_destroy(&p->idle);
    pthread_cond_destroy(&p->work);
    pthread_mutex_destroy(&p->lock);
    free(p->threads);
    free(p);
}

kd_sig_batch *kd_sig_pool_start(kd_sig_pool *p, kd_sig_job *jobs, size_t count)
{
    pthread_mutex_lock(&p->lock);
    p->batch.jobs = jobs;
    atomic_store(&p->batch.count, count);
    p->batch.hint = 0;
    atomic_store(&p->batch.next, 0);
    p->has_batch = 1;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->lock);
    return &p->batch;
}

void kd_sig_pool_extend(kd_sig_pool *p, kd_sig_batch *b, size_t count)
{
    pthread_mutex_lock(&p->lock);
    atomic_store(&b->count, count);
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->lock);
}

void kd_sig_pool_finish(kd_sig_pool *p, kd_sig_batch *b)
{
    atomic_store(&b->next, CLOSED); /* nothing more is claimed */
    pthread_mutex_lock(&p->lock);
    while (p->active)
        pthread_cond_wait(&p->idle, &p->lock);
    p->has_batch = 0;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->lock);
}

/* Waits for job i's verdict: runs it here when nobody took it yet, else
 * verifies a later one meanwhile (on two cores a spinning writer steals a
 * verifier's core) and yields only when nothing is left to take. */
static kd_sig_job *await_job(kd_sig_batch *b, size_t i)
{
    kd_sig_job *j = &b->jobs[i];
    int queued = 0;
    if (atomic_compare_exchange_strong(&j->state, &queued, 1))
        run_job(j);
    while (atomic_load(&j->state) != 2) {
        kd_sig_job *other = claim_next(b);
        if (other)
            run_job(other);
        else
            sched_yield();
    }
    b->hint = i + 1;
    return j;
}

int kd_sig_batch_lookup(kd_sig_batch *b, const kd_pubkey *pubkey, const uint8_t digest[KD_HASH_LEN], const uint8_t *sig,
                        size_t sig_len, kd_err *verdict)
{
    size_t count = b ? atomic_load(&b->count) : 0;
    /* The writer asks in request order: start where the last hit was. */
    for (size_t k = 0; k < count; k++) {
        size_t i = (b->hint + k) % count;
        kd_sig_job *j = &b->jobs[i];
        if (j->pre || memcmp(j->digest, digest, KD_HASH_LEN) != 0 || j->sig_len != sig_len ||
            memcmp(j->pubkey.bytes, pubkey->bytes, KD_PUBKEY_LEN) != 0 || memcmp(j->sig, sig, sig_len) != 0)
            continue;
        *verdict = await_job(b, i)->verdict;
        return 1;
    }
    return 0;
}

int kd_sig_batch_precheck(kd_sig_batch *b, const uint8_t key[KD_HASH_LEN], kd_precheck *out)
{
    size_t count = b ? atomic_load(&b->count) : 0;
    for (size_t k = 0; k < count; k++) {
        size_t i = (b->hint + k) % count;
        if (!b->jobs[i].pre || memcmp(b->jobs[i].digest, key, KD_HASH_LEN) != 0)
            continue;
        kd_sig_job *j = await_job(b, i);
        out->verdict = j->verdict;
        out->rej = j->pre->rej;
        return 1;
    }
    return 0;
}
