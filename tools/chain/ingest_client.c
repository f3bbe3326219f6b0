/* ingest_client.c — REQ socket to the engine's ingest (see ingest_client.h). */
#include "tools/chain/ingest_client.h"

#include <nng/nng.h>
#include <nng/protocol/reqrep0/req.h>
#include <stdio.h>
#include <stdlib.h>

#include "engine/netutil.h"

#define RESEND_MS 2000

struct kd_ingest_client {
    nng_socket sock;
    kd_nng_redialer *dialer;  /* re-dials when NNG's dialer gives up (netutil.h) */
    nng_duration timeout_ms;  /* per request; NNG_DURATION_INFINITE: none */
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
    int rv = nng_req0_open(&c->sock);
    if (rv) {
        free(c);
        snprintf(why, why_len, "cannot open a request socket: %s", nng_strerror(rv));
        return kd_nng_err(rv, "req0_open");
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
    free(c);
    return err;
}

void kd_ingest_client_close(kd_ingest_client *c)
{
    if (!c)
        return;
    kd_nng_redialer_stop(c->dialer);
    kd_nng_close(c->sock);
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

/* Sends `frame` as one request, in a context of its own, and waits for
 * the reply. Re-sent by NNG until answered: accepts, reverts and dry runs
 * are idempotent. */
static kd_err exchange(kd_ingest_client *c, const kd_buf *frame, kd_ingest_reply *reply)
{
    nng_msg *msg = NULL;
    kd_err err = kd_nng_request(c->sock, frame->data, frame->len, RESEND_MS, c->timeout_ms, &msg, NULL);
    if (err)
        return err;
    err = kd_ingest_reply_unpack(nng_msg_body(msg), nng_msg_len(msg), reply);
    nng_msg_free(msg);
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
    kd_err err = kd_ingest_request_pack_source(msgs, count, source_tip_time_ms, c->chain, &frame);
    if (!err)
        err = exchange(c, &frame, reply);
    kd_buf_fini(&frame);
    return err;
}

kd_err kd_ingest_client_dry_run(kd_ingest_client *c, const kd_buf *block, const uint32_t *episodes, size_t n,
                                kd_ingest_reply *reply)
{
    kd_buf frame;
    kd_buf_init(&frame);
    kd_err err = kd_ingest_dry_run_pack(block, episodes, n, c->chain, &frame);
    if (!err)
        err = exchange(c, &frame, reply);
    kd_buf_fini(&frame);
    return err;
}
