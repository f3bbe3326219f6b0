/*
 * ingest.h — the ingest protocol (IngestRequest -> IngestReply), apart from
 * any transport: the server half turns one request frame into one reply
 * frame through the engine; the client half builds requests and reads
 * replies. engine/ingest_server.c carries it over NNG. A request may
 * instead ask for a dry run (IngestRequest.dry_run): the server runs the
 * block through kd_dryrun on the writer thread and commits nothing.
 *
 * Limits (documented in the README): a request frame is at most
 * KD_INGEST_MAX_BYTES and carries at most KD_INGEST_MAX_MSGS chain events;
 * a larger one is answered with error_code "too_large" and nothing applied.
 *
 * Chains (engine/chain.h): a request may name the chain its blocks come
 * from (IngestRequest.chain); an engine whose store follows another one
 * answers error_code "wrong_chain" with a sentence naming both and applies
 * nothing. Every reply names the store's chain (IngestReply.chain), so a
 * feeder signs the consents of its creations for it.
 */
#ifndef KD_ENGINE_INGEST_H
#define KD_ENGINE_INGEST_H

#include "engine/chain.h"
#include "engine/engine.h"

#define KD_INGEST_MAX_BYTES ((size_t)16 << 20)
#define KD_INGEST_MAX_MSGS 4096

/* Server: applies every EngineMsg of the request `frame` in order and
 * writes the encoded IngestReply into `reply` (appended). A frame that is
 * not a usable request gets a reply with error_code/error and nothing is
 * applied. Returns an error only when the reply itself cannot be built or
 * storage failed (then the reply says so too and carries the results of
 * the messages applied before the failure). Writer thread only. */
kd_err kd_ingest_handle(kd_engine *engine, const uint8_t *frame, size_t len, kd_buf *reply) KD_WARN_UNUSED;

/* As kd_ingest_handle, with the request's signatures verified on `pool`
 * ahead of the writer (engine/sigcheck.h); `pool` may be NULL. *events
 * (may be NULL) gets the number of chain events the reply answers: 0 for
 * a dry run or a refused request. */
struct kd_sig_pool;
kd_err kd_ingest_handle_pooled(kd_engine *engine, struct kd_sig_pool *pool, const uint8_t *frame, size_t len,
                               kd_buf *reply, size_t *events) KD_WARN_UNUSED;

/* Client: an IngestRequest frame from encoded EngineMsgs. */
kd_err kd_ingest_request_pack(const kd_buf *msgs, size_t count, kd_buf *out) KD_WARN_UNUSED;
/* The same, telling the engine the time (ms) of the feeder's chain
 * source's tip (IngestRequest.source_tip_time_ms; 0: not told) and the
 * chain its blocks come from (IngestRequest.chain, engine/chain.h: a chain
 * name, "local", or NULL: none named). */
kd_err kd_ingest_request_pack_source(const kd_buf *msgs, size_t count, uint64_t source_tip_time_ms, const char *chain,
                                     kd_buf *out) KD_WARN_UNUSED;

/* Most episodes one dry run reports (those its txs name plus those asked for). */
#define KD_DRYRUN_MAX_EPISODES 4096

/* Client: an IngestRequest asking for a dry run (engine.h) of `block`, an
 * encoded EngineMsg{BlockAccepted}, reporting the move counters of the
 * episodes its txs name and of `episodes` (n of them) afterwards, naming
 * `chain` (NULL: none; see kd_ingest_request_pack_source). Nothing is
 * applied. Errors: KD_ERR_INVALID_ARG (not an accepted block, or more
 * than KD_DRYRUN_MAX_EPISODES), KD_ERR_NOMEM. */
kd_err kd_ingest_dry_run_pack(const kd_buf *block, const uint32_t *episodes, size_t n, const char *chain,
                              kd_buf *out) KD_WARN_UNUSED;

/* An episode's move counter as a dry run predicts it. */
typedef struct {
    uint32_t episode_id;
    int exists; /* 0: no such episode (counter 0) */
    uint64_t counter;
} kd_episode_counter;

/* A decoded IngestReply. */
typedef struct {
    kd_msg_result *results; /* owned, count entries */
    size_t count;
    kd_tip tip; /* has_tip, hash, height, digest */
    kd_err err; /* request-level error (KD_OK when none; KD_ERR_WRONG_CHAIN: the
                   store follows another chain than the request named) */
    char detail[KD_DETAIL_MAX];
    char chain[KD_CHAIN_MAX]; /* the chain the engine's store follows ("" from an engine that predates it) */
    /* The answer to a dry run (results is then empty): each tx's predicted
     * outcome in dry_run.txs, and the counters. */
    int has_dry_run;
    kd_msg_result dry_run;
    kd_episode_counter *counters; /* owned, counter_count entries */
    size_t counter_count;
} kd_ingest_reply;

void kd_ingest_reply_fini(kd_ingest_reply *reply);
/* Errors: KD_ERR_DECODE when `frame` is not an IngestReply. */
kd_err kd_ingest_reply_unpack(const uint8_t *frame, size_t len, kd_ingest_reply *out) KD_WARN_UNUSED;

#endif
