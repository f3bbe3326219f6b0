/* ingest_client.c — REQ socket to the engine's ingest. */
#include "tools/ingest_client.h"

#include <nng/nng.h>
#include <nng/protocol/reqrep0/req.h>
#include <stdio.h>
#include <stdlib.h>

#include "engine/netutil.h"

#define RESEND_MS 2000

struct kd_ingest_client {
    nng_socket sock;
    kd_nng_redialer *dialer; /* re-dials when NNG's dialer gives up (netutil.h) */
    kd_buf frame;
};

kd_err kd_ingest_client_open(const char *url, uint32_t timeout_ms, kd_ingest_client **out, char *why, size_t why_len)
{
    kd_ingest_client *c = calloc(1, sizeof *c);
    if (!c)
        return KD_ERR_NOMEM;
    kd_buf_init(&c->frame);
    int rv = nng_req0_open(&c->sock);
    if (rv) {
        free(c);
        snprintf(why, why_len, "cannot open a request socket: %s", nng_strerror(rv));
        return kd_nng_err(rv, "req0_open");
    }
    nng_socket_set_ms(c->sock, NNG_OPT_REQ_RESENDTIME, RESEND_MS);
    nng_socket_set_ms(c->sock, NNG_OPT_RECVTIMEO, timeout_ms ? (nng_duration)timeout_ms : NNG_DURATION_INFINITE);
    /* REQ's send waits for a connected engine: bound it too, or a client
     * with a timeout blocks forever while the engine is down. */
    nng_socket_set_ms(c->sock, NNG_OPT_SENDTIMEO, timeout_ms ? (nng_duration)timeout_ms : NNG_DURATION_INFINITE);
    nng_socket_set_ms(c->sock, NNG_OPT_RECONNMINT, 20);
    nng_socket_set_ms(c->sock, NNG_OPT_RECONNMAXT, 500);
    nng_socket_set_size(c->sock, NNG_OPT_RECVMAXSZ, 0);
    /* Non-blocking dial: the engine may start later, and may restart. */
    kd_err err = kd_nng_redialer_start(c->sock, url, &c->dialer, why, why_len);
    if (err) {
        kd_nng_close(c->sock);
        free(c);
        return err;
    }
    *out = c;
    return KD_OK;
}

void kd_ingest_client_close(kd_ingest_client *c)
{
    if (!c)
        return;
    kd_nng_redialer_stop(c->dialer);
    kd_nng_close(c->sock);
    kd_buf_fini(&c->frame);
    free(c);
}

/* Sends c->frame as one request and waits for the reply. */
static kd_err exchange(kd_ingest_client *c, kd_ingest_reply *reply)
{
    int rv = nng_send(c->sock, c->frame.data, c->frame.len, 0);
    if (rv)
        return kd_nng_err(rv, "send ingest request");
    void *buf = NULL;
    size_t len = 0;
    if ((rv = nng_recv(c->sock, &buf, &len, NNG_FLAG_ALLOC)))
        return kd_nng_err(rv, "receive ingest reply");
    kd_err err = kd_ingest_reply_unpack(buf, len, reply);
    nng_free(buf, len);
    return err;
}

kd_err kd_ingest_client_send(kd_ingest_client *c, const kd_buf *msgs, size_t count, kd_ingest_reply *reply)
{
    c->frame.len = 0;
    kd_err err = kd_ingest_request_pack(msgs, count, &c->frame);
    return err ? err : exchange(c, reply);
}

kd_err kd_ingest_client_dry_run(kd_ingest_client *c, const kd_buf *block, const uint32_t *episodes, size_t n,
                                kd_ingest_reply *reply)
{
    c->frame.len = 0;
    kd_err err = kd_ingest_dry_run_pack(block, episodes, n, &c->frame);
    return err ? err : exchange(c, reply);
}
