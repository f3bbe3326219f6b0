/* ingest_client.c — REQ socket to the engine's ingest (see ingest_client.h). */
#include "tools/chain/ingest_client.h"

#include <nng/nng.h>
#include <nng/protocol/reqrep0/req.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/bytes.h"
#include "engine/crypto.h"
#include "engine/netutil.h"

/*
 * One request in flight, and why a timed-out one is kept ("parked").
 *
 * A feeder waits for each acknowledgement in slices (the devnet and the
 * listener use 1 s, so that closing them is obeyed) and sends the same
 * events again when a slice ends. Each send used to be a new request: the
 * engine applies every copy it receives, one after the other, so a
 * request that takes longer than the slice (a reorg of 1,000 blocks takes
 * seconds) was followed by a copy per second, each answered only after
 * every copy before it. When the copies are cheap (duplicates) the feeder
 * catches up; when they are not (1,000 refused reverts, each a synced
 * commit) no answer ever comes back within a slice, and feeder and engine
 * livelock, writing gigabytes of refusals (issue 37, R7).
 *
 * So a request whose wait times out is parked with its key (a hash of the
 * events it carries), and sending the same events again waits for the
 * parked request instead of sending a copy:
 *
 *   send(E) ── request r1 ── wait 1 s ── timeout: park r1, return TIMEOUT
 *   send(E) ── same key: take r1 back ── wait 1 s ── reply of r1
 *   send(F) ── another key: a new request (r1 stays parked until replaced)
 *
 * NNG sends a request again at once when the connection that carried it
 * closes (the engine restarted), and otherwise only after RESEND_MS
 * without an answer, far longer than any request takes, so a slow engine
 * gets each request once. (NNG must have a resend time: without one, a
 * closed connection fails the request with NNG_ECONNRESET instead of
 * sending it again.) An engine that cannot even build an error reply
 * closes the connection (engine/ingest_server.c), which makes NNG send it
 * again.
 */
#define RESEND_MS (10 * 60 * 1000)
typedef struct flight {
    struct kd_ingest_client *client;
    nng_ctx ctx;
    nng_aio *aio;
    uint8_t key[KD_HASH_LEN];
    int receiving; /* the request went out; the aio now waits for the reply */
    int done;      /* under client->mu: rv and reply are final */
    int rv;
    nng_msg *reply;
} flight;

struct kd_ingest_client {
    nng_socket sock;
    kd_nng_redialer *dialer; /* re-dials when NNG's dialer gives up (netutil.h) */
    nng_duration timeout_ms; /* per wait; NNG_DURATION_INFINITE: none */
    pthread_mutex_t mu;
    pthread_cond_t cv;        /* a flight finished */
    flight *parked;           /* a request whose wait timed out, kept for a re-send of the same events */
    char chain[KD_CHAIN_MAX]; /* what every request names ("": none) */
};

kd_err kd_ingest_client_open(const char *url, uint32_t timeout_ms, kd_ingest_client **out, char *why, size_t why_len)
{
    kd_ingest_client *c = calloc(1, sizeof *c);
    if (!c)
        return KD_ERR_NOMEM;
    /* REQ's send waits for a connected engine: the timeout bounds it too, or
     * a client with a timeout blocks forever while the engine is down. */
    c->timeout_ms = timeout_ms ? (nng_duration)timeout_ms : NNG_DURATION_INFINITE;
    kd_err err;
    if (pthread_mutex_init(&c->mu, NULL) != 0) {
        free(c);
        return KD_ERR_NOMEM;
    }
    if ((err = kd_cond_init_monotonic(&c->cv))) {
        pthread_mutex_destroy(&c->mu);
        free(c);
        return err;
    }
    int rv = nng_req0_open(&c->sock);
    if (rv) {
        snprintf(why, why_len, "cannot open a request socket: %s", nng_strerror(rv));
        err = kd_nng_err(rv, "req0_open");
        goto fail_sync;
    }
    if ((rv = nng_socket_set_ms(c->sock, NNG_OPT_RECONNMINT, 20)) ||
        (rv = nng_socket_set_ms(c->sock, NNG_OPT_RECONNMAXT, 500)) ||
        (rv = nng_socket_set_size(c->sock, NNG_OPT_RECVMAXSZ, 0))) {
        snprintf(why, why_len, "cannot set up the request socket: %s", nng_strerror(rv));
        err = kd_nng_err(rv, "ingest client");
        goto fail;
    }
    /* Non-blocking dial: the engine may start later, and may restart. */
    if ((err = kd_nng_redialer_start(c->sock, url, &c->dialer, why, why_len)))
        goto fail;
    *out = c;
    return KD_OK;
fail:
    kd_nng_close(c->sock);
fail_sync:
    pthread_cond_destroy(&c->cv);
    pthread_mutex_destroy(&c->mu);
    free(c);
    return err;
}

/* Stops and frees a flight (its callback has run for the last time when
 * nng_aio_free returns). Call without client->mu. */
static void flight_free(flight *f)
{
    if (!f)
        return;
    nng_aio_free(f->aio); /* stops it first */
    nng_ctx_close(f->ctx);
    nng_msg_free(f->reply);
    free(f);
}

void kd_ingest_client_close(kd_ingest_client *c)
{
    if (!c)
        return;
    flight_free(c->parked);
    kd_nng_redialer_stop(c->dialer);
    kd_nng_close(c->sock);
    pthread_cond_destroy(&c->cv);
    pthread_mutex_destroy(&c->mu);
    free(c);
}

kd_err kd_ingest_client_name_chain(kd_ingest_client *c, const char *chain)
{
    char why[8];
    if (kd_chain_check(chain, why, sizeof why))
        return KD_ERR_INVALID_ARG;
    snprintf(c->chain, sizeof c->chain, "%s", chain ? chain : "");
    return KD_OK;
}

/* The flight's aio callback: the request went out (then wait for the
 * reply in the same context), or the reply came, or it failed. */
static void flight_cb(void *arg)
{
    flight *f = arg;
    int rv = nng_aio_result(f->aio);
    if (rv == 0 && !f->receiving) {
        f->receiving = 1;
        nng_ctx_recv(f->ctx, f->aio);
        return;
    }
    kd_ingest_client *c = f->client;
    pthread_mutex_lock(&c->mu);
    f->rv = rv;
    if (rv == 0)
        f->reply = nng_aio_get_msg(f->aio);
    else if (!f->receiving)
        nng_msg_free(nng_aio_get_msg(f->aio)); /* not sent: the message is still ours */
    f->done = 1;
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
}

/* Sends `frame` as a new request in a context of its own. */
static kd_err flight_start(kd_ingest_client *c, const kd_buf *frame, const uint8_t key[KD_HASH_LEN], flight **out)
{
    flight *f = calloc(1, sizeof *f);
    nng_msg *msg = NULL;
    if (!f)
        return KD_ERR_NOMEM;
    f->client = c;
    memcpy(f->key, key, KD_HASH_LEN);
    int rv = nng_ctx_open(&f->ctx, c->sock);
    if (rv) {
        free(f);
        return kd_nng_err(rv, "request context");
    }
    if ((rv = nng_ctx_set_ms(f->ctx, NNG_OPT_REQ_RESENDTIME, RESEND_MS)) ||
        (rv = nng_aio_alloc(&f->aio, flight_cb, f)) || (rv = nng_msg_alloc(&msg, frame->len))) {
        flight_free(f);
        return kd_nng_err(rv, "request");
    }
    if (frame->len)
        memcpy(nng_msg_body(msg), frame->data, frame->len);
    nng_aio_set_msg(f->aio, msg);
    nng_ctx_send(f->ctx, f->aio);
    *out = f;
    return KD_OK;
}

/* Waits up to the client's timeout for `f` to finish. On a timeout the
 * flight is parked (replacing an older parked one, returned in *evicted
 * to be freed by the caller) and KD_ERR_TIMEOUT returned. */
static kd_err flight_wait(kd_ingest_client *c, flight *f, flight **evicted)
{
    struct timespec until;
    if (c->timeout_ms != NNG_DURATION_INFINITE)
        kd_deadline_after(&until, (uint64_t)c->timeout_ms);
    pthread_mutex_lock(&c->mu);
    int timed_out = 0;
    while (!f->done && !timed_out) {
        if (c->timeout_ms == NNG_DURATION_INFINITE)
            pthread_cond_wait(&c->cv, &c->mu);
        else
            timed_out = pthread_cond_timedwait(&c->cv, &c->mu, &until) != 0 && !f->done;
    }
    if (timed_out) {
        *evicted = c->parked;
        c->parked = f;
    }
    pthread_mutex_unlock(&c->mu);
    return timed_out ? KD_ERR_TIMEOUT : KD_OK;
}

/* The key of a request: its events, whatever else the frame says (the
 * listener's source tip time may move between two sends of one block). */
static kd_err events_key(const kd_buf *msgs, size_t count, int dry_run, uint8_t key[KD_HASH_LEN])
{
    kd_sha256_ctx h;
    uint8_t tag = (uint8_t)dry_run, len[8];
    kd_err err = kd_sha256_init(&h);
    if (!err) {
        kd_sha256_update(&h, &tag, 1);
        for (size_t i = 0; i < count; i++) {
            kd_put_u64be(len, msgs[i].len);
            kd_sha256_update(&h, len, sizeof len);
            kd_sha256_update(&h, msgs[i].data, msgs[i].len);
        }
        kd_sha256_final(&h, key);
    }
    kd_sha256_fini(&h);
    return err;
}

/* Sends `frame` (or waits for the parked request with the same `key`) and
 * reads the reply. */
static kd_err exchange(kd_ingest_client *c, const kd_buf *frame, const uint8_t key[KD_HASH_LEN], kd_ingest_reply *reply)
{
    flight *f = NULL, *evicted = NULL;
    pthread_mutex_lock(&c->mu);
    if (c->parked && memcmp(c->parked->key, key, KD_HASH_LEN) == 0) {
        f = c->parked; /* the same events: wait for the request already sent */
        c->parked = NULL;
    }
    pthread_mutex_unlock(&c->mu);
    kd_err err = f ? KD_OK : flight_start(c, frame, key, &f);
    if (err)
        return err;
    err = flight_wait(c, f, &evicted);
    flight_free(evicted);
    if (err) /* parked */
        return err;
    if (f->rv)
        err = kd_nng_err(f->rv, "request");
    else
        err = kd_ingest_reply_unpack(nng_msg_body(f->reply), nng_msg_len(f->reply), reply);
    flight_free(f);
    return err;
}

kd_err kd_ingest_client_send(kd_ingest_client *c, const kd_buf *msgs, size_t count, kd_ingest_reply *reply)
{
    return kd_ingest_client_send_source(c, msgs, count, 0, reply);
}

kd_err kd_ingest_client_send_source(kd_ingest_client *c, const kd_buf *msgs, size_t count, uint64_t source_tip_time_ms,
                                    kd_ingest_reply *reply)
{
    kd_buf frame;
    kd_buf_init(&frame);
    uint8_t key[KD_HASH_LEN];
    kd_err err = events_key(msgs, count, 0, key);
    if (!err)
        err = kd_ingest_request_pack_source(msgs, count, source_tip_time_ms, c->chain, &frame);
    if (!err)
        err = exchange(c, &frame, key, reply);
    kd_buf_fini(&frame);
    return err;
}

kd_err kd_ingest_client_dry_run(kd_ingest_client *c, const kd_buf *block, const uint32_t *episodes, size_t n,
                                kd_ingest_reply *reply)
{
    kd_buf frame;
    kd_buf_init(&frame);
    uint8_t key[KD_HASH_LEN];
    kd_err err = kd_ingest_dry_run_pack(block, episodes, n, c->chain, &frame);
    if (!err)
        err = events_key(&frame, 1, 1, key); /* a dry run's key is its whole frame */
    if (!err)
        err = exchange(c, &frame, key, reply);
    kd_buf_fini(&frame);
    return err;
}
