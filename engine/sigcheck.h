/*
 * sigcheck.h — signature checks ahead of the single writer.
 *
 * Verifying an ECDSA signature costs more than decoding and storing a
 * move, and the writer is one thread. So the ingest server predicts, for
 * every signed command of a request, the digest it will be checked against
 * (the episode's move counter now, plus the commands before it in the
 * request), and a pool of threads verifies them while the writer applies
 * and syncs the blocks before:
 *
 *   request: [block 1][block 2][block 3] ...
 *   writer:   plan 1  plan 2  plan 3 ...  apply 1 + fsync  apply 2 + fsync ...
 *   pool:             verify 1  verify 2  verify 3 ...    (all cores)
 *
 * The jobs of a block go to the pool as soon as the writer has planned
 * them. The pool has a verifier per core but the writer's, and one more
 * at the lowest priority that only takes the writer's core while the
 * writer waits for its sync.
 *
 * The writer looks a check up by (pubkey, digest, signature): a verdict is
 * a pure function of those bytes, so a hit is exactly as good as verifying
 * again; a miss (a mispredicted counter) is verified on the spot. A wrong
 * prediction can cost time, never correctness.
 *
 * The same pool runs the prechecks of episode types (kd_episode_ops's
 * precheck: a zero-knowledge proof a command carries) on the states the
 * store holds before the request, and the writer looks each up by the key
 * the type computes on the state it has: equal keys, the same verdict.
 */
#ifndef KD_ENGINE_SIGCHECK_H
#define KD_ENGINE_SIGCHECK_H

#include <stdatomic.h>

#include "engine/crypto.h"
#include "engine/episode.h"

/* A type's precheck to run (kd_sig_job.pre). Everything is owned by the
 * planner, alive until kd_sig_pool_finish. */
typedef struct {
    const kd_episode_ops *ops;
    void *state; /* the episode's state as stored, ops->state_size bytes */
    uint8_t *command;
    size_t command_len;
    uint32_t episode_id;
    int has_signer; /* the signer is the job's pubkey */
    kd_reject rej;  /* the verdict's refusal */
} kd_precheck_job;

typedef struct {
    uint8_t digest[KD_HASH_LEN]; /* the signed digest; a precheck's key */
    kd_pubkey pubkey;
    uint8_t sig[KD_SIG_MAX_LEN];
    uint8_t sig_len;
    kd_err verdict;       /* KD_OK, KD_ERR_BAD_SIGNATURE, KD_ERR_BAD_PUBKEY; a precheck's */
    atomic_int state;     /* 0 queued, 1 claimed, 2 done */
    kd_precheck_job *pre; /* NULL: a signature check */
} kd_sig_job;

/* The verdicts the writer may use for the next chain event: a window of
 * jobs (pointers stay valid while the batch lives). */
typedef struct kd_sig_batch kd_sig_batch;

/* Looks up a finished verdict; returns 1 and sets *verdict on a hit. Claims
 * and runs a matching job that is still queued (the writer helps). Waits
 * for a matching job another thread is running. Writer thread only. */
int kd_sig_batch_lookup(kd_sig_batch *batch, const kd_pubkey *pubkey, const uint8_t digest[KD_HASH_LEN],
                        const uint8_t *sig, size_t sig_len, kd_err *verdict);
/* The same for a precheck by its key: 1 and *out filled on a hit (a queued
 * job is run here; a running one is waited for). Writer thread only. */
int kd_sig_batch_precheck(kd_sig_batch *batch, const uint8_t key[KD_HASH_LEN], kd_precheck *out);

typedef struct kd_sig_pool kd_sig_pool;

/* A pool of `threads` verifier threads (0: one per core but the writer's,
 * at least one, plus the low-priority one for the writer's core). */
kd_err kd_sig_pool_alloc(unsigned threads, kd_sig_pool **out) KD_WARN_UNUSED;
void kd_sig_pool_free(kd_sig_pool *pool);

/* Hands `jobs` (owned by the caller, alive and in place until
 * kd_sig_pool_finish) to the pool and returns at once. One batch at a time
 * per pool. */
kd_sig_batch *kd_sig_pool_start(kd_sig_pool *pool, kd_sig_job *jobs, size_t count);
/* Hands over the batch's jobs up to `count` (more than before, in the same
 * array): the pool verifies the first blocks of a request while the writer
 * still plans the rest. */
void kd_sig_pool_extend(kd_sig_pool *pool, kd_sig_batch *batch, size_t count);
/* Waits for the pool to be done with the batch (claimed jobs finish;
 * queued ones are dropped) and releases it. */
void kd_sig_pool_finish(kd_sig_pool *pool, kd_sig_batch *batch);

#endif
