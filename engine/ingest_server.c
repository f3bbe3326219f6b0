/* ingest_server.c — the REP socket loop in front of kd_ingest_handle. */
#include "engine/ingest_server.h"

#include <nng/nng.h>
#include <nng/protocol/reqrep0/rep.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "engine/crashpoint.h"
#include "engine/ingest.h"
#include "engine/logger.h"
#include "engine/netutil.h"
#include "engine/sigcheck.h"

struct kd_ingest_server {
    kd_engine *engine;
    kd_sig_pool *pool; /* verifies signatures ahead of the writer */
    nng_socket sock;
    nng_aio *recv_aio; /* stopped by kd_ingest_server_stop to end the loop */
    pthread_t thread;
    atomic_uint_fast64_t requests;
};

static void *serve(void *arg)
{
    kd_ingest_server *s = arg;
    kd_buf reply;
    kd_buf_init(&reply);
    for (;;) {
        nng_msg *msg = NULL;
        kd_err err = kd_nng_recv_wait(s->sock, s->recv_aio, &msg);
        if (err) {
            if (err != KD_ERR_CLOSED)
                KD_LOG_E("ingest", "receive failed: %s", kd_err_str(err));
            break;
        }
        reply.len = 0;
        size_t events = 0;
        err = kd_ingest_handle_pooled(s->engine, s->pool, nng_msg_body(msg), nng_msg_len(msg), &reply, &events);
        if (err)
            KD_LOG_E("ingest", "request failed: %s", kd_err_str(err));
        atomic_fetch_add(&s->requests, 1);
        if (reply.len == 0) {
            /* Not even an error reply could be built: closing the
             * connection makes the client's NNG send the request again
             * (clients send each request once, tools/chain/ingest_client.c). */
            nng_pipe_close(nng_msg_get_pipe(msg));
            nng_msg_free(msg);
            continue;
        }
        nng_msg_clear(msg);
        if (events) /* crash test: an acknowledgement built, not sent (dry runs acknowledge nothing) */
            KD_CRASHPOINT("before_ack");
        int rv;
        if ((rv = nng_msg_append(msg, reply.data, reply.len)) || (rv = nng_sendmsg(s->sock, msg, 0))) {
            KD_LOG_W("ingest", "cannot send reply: %s", nng_strerror(rv));
            nng_msg_free(msg);
        }
    }
    kd_buf_fini(&reply);
    return NULL;
}

kd_err kd_ingest_server_start(kd_engine *engine, const char *urls, kd_ingest_server **out, char *why, size_t why_len)
{
    kd_ingest_server *s = calloc(1, sizeof *s);
    if (!s)
        return KD_ERR_NOMEM;
    s->engine = engine;
    kd_err err = kd_sig_pool_alloc(0, &s->pool);
    if (err) {
        snprintf(why, why_len, "cannot start the signature verifiers");
        free(s);
        return err;
    }
    int rv = nng_rep0_open(&s->sock);
    if (rv) {
        snprintf(why, why_len, "cannot open the ingest socket: %s", nng_strerror(rv));
        kd_sig_pool_free(s->pool);
        free(s);
        return kd_nng_err(rv, "rep0_open");
    }
    /* Frames over our documented limit get an error reply; NNG drops only
     * what is far beyond it (the connection is then closed). */
    if ((rv = nng_socket_set_size(s->sock, NNG_OPT_RECVMAXSZ, KD_INGEST_MAX_BYTES + ((size_t)1 << 20))) ||
        (rv = nng_aio_alloc(&s->recv_aio, NULL, NULL))) {
        snprintf(why, why_len, "cannot set up the ingest socket: %s", nng_strerror(rv));
        err = kd_nng_err(rv, "ingest socket");
        goto fail;
    }
    if ((err = kd_nng_listen_all(s->sock, urls, why, why_len)))
        goto fail;
    if (pthread_create(&s->thread, NULL, serve, s) != 0) {
        snprintf(why, why_len, "cannot start the ingest thread");
        err = KD_ERR_NOMEM;
        goto fail;
    }
    *out = s;
    return KD_OK;
fail:
    kd_nng_close(s->sock);
    nng_aio_free(s->recv_aio);
    kd_sig_pool_free(s->pool);
    free(s);
    return err;
}

void kd_ingest_server_stop(kd_ingest_server *s)
{
    if (!s)
        return;
    /* Wakes a waiting receive; a request being handled is answered first. */
    nng_aio_stop(s->recv_aio);
    pthread_join(s->thread, NULL);
    kd_nng_close(s->sock);
    nng_aio_free(s->recv_aio);
    kd_sig_pool_free(s->pool);
    free(s);
}

uint64_t kd_ingest_server_requests(const kd_ingest_server *s) { return atomic_load(&s->requests); }
