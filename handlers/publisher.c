/* publisher.c — publishing views and block summaries on NNG PUB. */
#include "handlers/publisher.h"

#include <nng/nng.h>
#include <nng/protocol/pubsub0/pub.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/logger.h"
#include "engine/netutil.h"
#include "handlers/view.h"
#include "kdapp.pb-c.h"

struct kd_publisher {
    nng_socket sock;
    const kd_type_table *types;
    kd_type_table builtin; /* when the caller gave no table */
    kd_episode_view view;  /* reused for every view (writer thread only) */
    nng_aio *send_aio;     /* reused for every send (writer thread only): nng_send allocates one a call */
    atomic_uint_fast64_t sent;
    atomic_int subscribers;
    kd_buf frame;
};

/* NNG attaches a subscriber's pipe on this side asynchronously: a view
 * published before that is not delivered to it. Counting attached pipes
 * (and logging each change) lets an operator, or a test, know that a
 * subscriber is really there. */
static void pipe_event(nng_pipe pipe, nng_pipe_ev ev, void *arg)
{
    (void)pipe;
    kd_publisher *p = arg;
    int n = ev == NNG_PIPE_EV_ADD_POST ? atomic_fetch_add(&p->subscribers, 1) + 1
                                       : atomic_fetch_sub(&p->subscribers, 1) - 1;
    KD_LOG_I("publish", "subscriber %s: subscribers: %d", ev == NNG_PIPE_EV_ADD_POST ? "attached" : "left", n);
}

kd_err kd_publisher_open(const char *urls, const kd_type_table *types, kd_publisher **out, char *why, size_t why_len)
{
    kd_publisher *p = calloc(1, sizeof *p);
    if (!p)
        return KD_ERR_NOMEM;
    kd_buf_init(&p->frame);
    kd_episode_view_init(&p->view);
    kd_type_table_init(&p->builtin);
    p->types = types ? types : &p->builtin;
    int rv = nng_aio_alloc(&p->send_aio, NULL, NULL);
    if (rv) {
        free(p);
        return KD_ERR_NOMEM;
    }
    nng_aio_set_timeout(p->send_aio, NNG_DURATION_ZERO); /* as NNG_FLAG_NONBLOCK */
    if ((rv = nng_pub0_open(&p->sock))) {
        snprintf(why, why_len, "cannot open the publish socket: %s", nng_strerror(rv));
        nng_aio_free(p->send_aio);
        free(p);
        return kd_nng_err(rv, "pub0_open");
    }
    kd_err err;
    if ((rv = nng_pipe_notify(p->sock, NNG_PIPE_EV_ADD_POST, pipe_event, p)) ||
        (rv = nng_pipe_notify(p->sock, NNG_PIPE_EV_REM_POST, pipe_event, p))) {
        snprintf(why, why_len, "cannot watch the publish socket's subscribers: %s", nng_strerror(rv));
        err = kd_nng_err(rv, "pipe_notify");
    } else {
        err = kd_nng_listen_all(p->sock, urls, why, why_len);
    }
    if (err) {
        kd_nng_close(p->sock);
        nng_aio_free(p->send_aio);
        free(p);
        return err;
    }
    *out = p;
    return KD_OK;
}

void kd_publisher_close(kd_publisher *p)
{
    if (!p)
        return;
    kd_nng_close(p->sock);
    nng_aio_free(p->send_aio);
    kd_buf_fini(&p->frame);
    kd_episode_view_fini(&p->view);
    free(p);
}

uint64_t kd_publisher_count(const kd_publisher *p) { return atomic_load(&p->sent); }

int kd_publisher_subscribers(const kd_publisher *p) { return atomic_load(&p->subscribers); }

static void send_frame(kd_publisher *p)
{
    /* PUB never blocks: with no room the message is dropped for that
     * subscriber, so the wait returns at once. */
    nng_msg *msg;
    int rv = nng_msg_alloc(&msg, p->frame.len);
    if (rv == 0) {
        memcpy(nng_msg_body(msg), p->frame.data, p->frame.len);
        nng_aio_set_msg(p->send_aio, msg);
        nng_send_aio(p->sock, p->send_aio);
        nng_aio_wait(p->send_aio);
        if ((rv = nng_aio_result(p->send_aio)))
            nng_msg_free(msg); /* a failed send leaves the message with us */
    }
    if (rv == 0)
        atomic_fetch_add(&p->sent, 1);
    else
        KD_LOG_W("publish", "send failed: %s", nng_strerror(rv));
}

static void publish_view(kd_publisher *p, const kd_episode_event *ev, const kd_commit *commit)
{
    char topic[32];
    int n = snprintf(topic, sizeof topic, KD_TOPIC_EPISODE "%u", ev->episode_id);
    p->frame.len = 0;
    if (kd_episode_view_from_event(p->types, ev, commit, &p->view) || kd_buf_append(&p->frame, topic, (size_t)n + 1) ||
        kd_episode_view_pack(&p->view, &p->frame)) {
        KD_LOG_E("publish", "out of memory building the view of episode %u", ev->episode_id);
        return;
    }
    send_frame(p);
}

static void publish_summary(kd_publisher *p, const kd_commit *c)
{
    Kdapp__BlockSummary s = KDAPP__BLOCK_SUMMARY__INIT;
    s.block_hash.data = (uint8_t *)c->block_hash;
    s.block_hash.len = KD_HASH_LEN;
    s.reverted = c->reverted;
    s.log_seq = c->log_seq;
    s.tip_height = c->tip_height;
    if (c->tip_hash) {
        s.tip_hash.data = (uint8_t *)c->tip_hash;
        s.tip_hash.len = KD_HASH_LEN;
    }
    s.digest.data = (uint8_t *)c->digest;
    s.digest.len = KD_HASH_LEN;
    s.txs_applied = c->txs_applied;
    s.txs_rejected = c->txs_rejected;
    Kdapp__TxResult *txs = calloc(c->tx_count ? c->tx_count : 1, sizeof *txs);
    Kdapp__TxResult **ptrs = calloc(c->tx_count ? c->tx_count : 1, sizeof *ptrs);
    if (!txs || !ptrs)
        goto done;
    for (size_t i = 0; i < c->tx_count; i++) {
        Kdapp__TxResult init = KDAPP__TX_RESULT__INIT;
        const kd_tx_result *r = &c->txs[i];
        txs[i] = init;
        txs[i].tx_id.data = (uint8_t *)r->tx_id;
        txs[i].tx_id.len = KD_HASH_LEN;
        txs[i].episode_id = r->episode_id;
        txs[i].applied = r->applied;
        txs[i].error_code = (char *)(r->applied ? "" : r->code);
        txs[i].error = (char *)(r->applied ? "" : r->detail);
        ptrs[i] = &txs[i];
    }
    s.n_txs = c->tx_count;
    s.txs = ptrs;
    p->frame.len = 0;
    size_t n = kdapp__block_summary__get_packed_size(&s);
    if (kd_buf_append(&p->frame, KD_TOPIC_BLOCK, sizeof KD_TOPIC_BLOCK) || kd_buf_reserve(&p->frame, n))
        goto done;
    kdapp__block_summary__pack(&s, p->frame.data + p->frame.len);
    p->frame.len += n;
    send_frame(p);
done:
    free(txs);
    free(ptrs);
}

/* Views are published per commit, once per episode (its state after the
 * whole commit), so a block of 100 moves over 5 games sends 5 views. */
static void on_commit_end(void *ctx, const kd_commit *commit)
{
    kd_publisher *p = ctx;
    for (size_t i = 0; i < commit->event_count; i++) {
        const kd_episode_event *ev = &commit->events[i];
        int later = 0;
        for (size_t j = i + 1; j < commit->event_count && !later; j++)
            later = commit->events[j].episode_id == ev->episode_id;
        if (!later) /* the last event of this episode in the commit */
            publish_view(p, ev, commit);
    }
    publish_summary(p, commit);
}

kd_handler kd_publisher_handler(kd_publisher *pub)
{
    kd_handler h = {.name = "publisher", .on_commit_end = on_commit_end, .ctx = pub};
    return h;
}

int kd_pub_split(const uint8_t *frame, size_t len, const char **topic, const uint8_t **payload, size_t *payload_len)
{
    const uint8_t *nul = memchr(frame, '\0', len);
    if (!nul)
        return -1;
    *topic = (const char *)frame;
    *payload = nul + 1;
    *payload_len = len - (size_t)(nul + 1 - frame);
    return 0;
}
