/* devnet_control.c — the devnet's REP control socket (see devnet_control.h). */
#include "tools/chain/devnet_control.h"

#include <nng/nng.h>
#include <nng/protocol/reqrep0/rep.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/ingest.h"
#include "engine/logger.h"
#include "engine/netutil.h"
#include "kdapp.pb-c.h"

struct kd_devnet_control {
    kd_chain_ops ops;
    nng_socket rep;
    nng_aio *recv_aio; /* stopped by kd_devnet_control_close to end the loop */
    pthread_t thread;
};

/* `detail` may be `buf` itself (a sentence already there): never copied
 * onto itself (snprintf with overlapping buffers lost it). */
static void reply_error(Kdapp__DevnetReply *r, kd_err err, const char *detail, char *buf, size_t len)
{
    if (detail != buf || !*buf) /* the sentence may already be in buf: never copy it onto itself */
        snprintf(buf, len, "%s", detail && *detail ? detail : kd_err_str(err));
    r->error_code = (char *)kd_err_code(err);
    r->error = buf;
}

/* The domain form of DevnetSpend, or KD_ERR_DECODE with `detail` naming
 * what is wrong. */
static kd_err spend_from_wire(const Kdapp__DevnetSpend *w, kd_chain_spend *out, char *detail, size_t len)
{
    memset(out, 0, sizeof *out);
    switch (w->kind) {
    case KDAPP__DEVNET_SPEND__KIND__OWNER:
        out->kind = KD_SPEND_OWNER;
        break;
    case KDAPP__DEVNET_SPEND__KIND__SESSION:
        out->kind = KD_SPEND_SESSION;
        break;
    case KDAPP__DEVNET_SPEND__KIND__DUTY:
        out->kind = KD_SPEND_DUTY;
        break;
    default:
        snprintf(detail, len, "DevnetSpend.kind %d is not OWNER, SESSION or DUTY", (int)w->kind);
        return KD_ERR_DECODE;
    }
    if (w->grant && strlen(w->grant) >= sizeof out->grant) {
        snprintf(detail, len, "DevnetSpend.grant has %zu bytes; the limit is %zu", strlen(w->grant),
                 sizeof out->grant - 1);
        return KD_ERR_DECODE;
    }
    if (w->n_keys > KD_SPEND_KEYS_MAX) {
        snprintf(detail, len, "DevnetSpend names %zu keys; the limit is %d", w->n_keys, KD_SPEND_KEYS_MAX);
        return KD_ERR_DECODE;
    }
    snprintf(out->grant, sizeof out->grant, "%s", w->grant ? w->grant : "");
    for (size_t i = 0; i < w->n_keys; i++) {
        if (w->keys[i].len != KD_PUBKEY_LEN) {
            snprintf(detail, len, "DevnetSpend.keys[%zu] has %zu bytes, not %d", i, w->keys[i].len, KD_PUBKEY_LEN);
            return KD_ERR_DECODE;
        }
        memcpy(out->keys[i].bytes, w->keys[i].data, KD_PUBKEY_LEN);
    }
    out->n_keys = w->n_keys;
    return KD_OK;
}

/* Handles one DevnetRequest frame; `out` gets the encoded DevnetReply. */
static kd_err control_handle(const kd_chain_ops *ops, const uint8_t *frame, size_t len, kd_buf *out)
{
    Kdapp__DevnetReply r = KDAPP__DEVNET_REPLY__INIT;
    /* the chain's sentence: a node's refusal whole, a payer's naming wallets and budgets */
    char detail[KD_CHAIN_WHY_MAX];
    uint8_t(*ids)[KD_HASH_LEN] = NULL;
    ProtobufCBinaryData *bins = NULL;
    kd_devnet_reorg_result rr;
    memset(&rr, 0, sizeof rr);
    Kdapp__DevnetRequest *req = kdapp__devnet_request__unpack(NULL, len, frame);
    if (!req) {
        reply_error(&r, KD_ERR_DECODE, "the frame is not a DevnetRequest (protobuf decoding failed)", detail,
                    sizeof detail);
    } else if (req->kind_case == KDAPP__DEVNET_REQUEST__KIND_SUBMIT) {
        const Kdapp__DevnetSubmit *s = req->submit;
        size_t n = s->n_payloads;
        ids = calloc(n ? n : 1, sizeof *ids);
        bins = calloc(n ? n : 1, sizeof *bins);
        kd_chain_spend spend;
        kd_err err = ids && bins ? KD_OK : KD_ERR_NOMEM;
        if (!err && s->spend)
            err = spend_from_wire(s->spend, &spend, detail, sizeof detail);
        for (size_t i = 0; i < n && !err; i++)
            if (s->payloads[i].len > KD_DEVNET_MAX_PAYLOAD) {
                snprintf(detail, sizeof detail, "payload %zu has %zu bytes; the limit is %zu", i, s->payloads[i].len,
                         KD_DEVNET_MAX_PAYLOAD);
                err = KD_ERR_TOO_LARGE;
            }
        size_t queued = 0;
        if (!err)
            detail[0] = 0;
        while (!err && queued < n &&
               !(err = ops->submit(ops->ctx, s->payloads[queued].data, s->payloads[queued].len,
                                   s->spend ? &spend : NULL, ids[queued], detail, sizeof detail))) {
            bins[queued].data = ids[queued];
            bins[queued].len = KD_HASH_LEN;
            queued++;
        }
        r.n_tx_ids = queued; /* on a late failure: the ids of the payloads queued before it */
        r.tx_ids = bins;
        if (err)
            reply_error(&r, err, detail, detail, sizeof detail);
    } else if (req->kind_case == KDAPP__DEVNET_REQUEST__KIND_REORG) {
        const Kdapp__DevnetReorg *g = req->reorg;
        kd_err err = KD_ERR_UNSUPPORTED;
        if (ops->reorg)
            err = ops->reorg(ops->ctx, g->depth, g->drop_probability, g->reorder, &rr);
        else
            snprintf(rr.detail, sizeof rr.detail, "%s", ops->no_reorg ? ops->no_reorg : "this chain cannot reorganise");
        r.reverted = rr.reverted;
        r.reincluded = rr.reincluded;
        r.dropped = rr.dropped;
        if (err)
            reply_error(&r, err, rr.detail, detail, sizeof detail);
    } else if (req->kind_case == KDAPP__DEVNET_REQUEST__KIND_SUBMIT_TRANSACTION) {
        const char *json = req->submit_transaction->transaction ? req->submit_transaction->transaction : "";
        kd_err err = KD_ERR_UNSUPPORTED;
        ids = calloc(1, sizeof *ids);
        bins = calloc(1, sizeof *bins);
        detail[0] = 0;
        if (!ids || !bins)
            err = KD_ERR_NOMEM;
        else if (ops->submit_tx)
            err = ops->submit_tx(ops->ctx, json, strlen(json), ids[0], detail, sizeof detail);
        else
            snprintf(detail, sizeof detail,
                     "this chain takes payloads, not transactions: it is the devnet, where nothing costs coins "
                     "(submit the payload itself)");
        if (!err) {
            bins[0] = (ProtobufCBinaryData){.data = ids[0], .len = KD_HASH_LEN};
            r.n_tx_ids = 1;
            r.tx_ids = bins;
        } else {
            reply_error(&r, err, detail, detail, sizeof detail);
        }
    } else if (req->kind_case == KDAPP__DEVNET_REQUEST__KIND_ADVANCE) {
        kd_err err = ops->advance ? ops->advance(ops->ctx, req->advance->daa) : KD_ERR_UNSUPPORTED;
        if (err)
            reply_error(&r, err,
                        err == KD_ERR_UNSUPPORTED ? "this chain's blocks come by themselves: it mines nothing on demand"
                                                  : NULL,
                        detail, sizeof detail);
    } else if (req->kind_case != KDAPP__DEVNET_REQUEST__KIND_STATUS) {
        reply_error(&r, KD_ERR_DECODE,
                    "the DevnetRequest names no known kind (submit, reorg, status, submit_transaction or advance)",
                    detail, sizeof detail);
    }
    r.takes_transactions = ops->submit_tx != NULL;
    kd_devnet_info info;
    ops->status(ops->ctx, &info);
    r.height = info.height;
    r.pending = info.pending;
    r.on_demand = ops->advance != NULL;
    if (info.has_tip) {
        r.tip_hash.data = info.tip;
        r.tip_hash.len = KD_HASH_LEN;
    }
    size_t sz = kdapp__devnet_reply__get_packed_size(&r);
    kd_err err = kd_buf_reserve(out, sz);
    if (!err) {
        kdapp__devnet_reply__pack(&r, out->data + out->len);
        out->len += sz;
    }
    if (req)
        kdapp__devnet_request__free_unpacked(req, NULL);
    free(ids);
    free(bins);
    return err;
}

static void *serve(void *arg)
{
    kd_devnet_control *ctl = arg;
    kd_buf reply;
    kd_buf_init(&reply);
    for (;;) {
        nng_msg *msg = NULL;
        kd_err err = kd_nng_recv_wait(ctl->rep, ctl->recv_aio, &msg);
        if (err) {
            if (err != KD_ERR_CLOSED)
                KD_LOG_E("devnet", "control socket receive failed: %s", kd_err_str(err));
            break;
        }
        reply.len = 0;
        if (control_handle(&ctl->ops, nng_msg_body(msg), nng_msg_len(msg), &reply) != KD_OK) {
            nng_msg_free(msg); /* out of memory: no reply, the client times out */
            continue;
        }
        nng_msg_clear(msg);
        int rv;
        if ((rv = nng_msg_append(msg, reply.data, reply.len)) || (rv = nng_sendmsg(ctl->rep, msg, 0))) {
            KD_LOG_W("devnet", "cannot send a control reply: %s", nng_strerror(rv));
            nng_msg_free(msg);
        }
    }
    kd_buf_fini(&reply);
    return NULL;
}

static kd_err devnet_submit(void *ctx, const uint8_t *payload, size_t len, const kd_chain_spend *spend,
                            uint8_t tx_id[KD_HASH_LEN], char *why, size_t why_len)
{
    (void)spend; /* the devnet costs nothing */
    (void)why;
    (void)why_len;
    return kd_devnet_submit(ctx, payload, len, tx_id);
}

static kd_err devnet_reorg(void *ctx, uint32_t depth, double drop, int reorder, kd_devnet_reorg_result *r)
{
    return kd_devnet_reorg(ctx, depth, drop, reorder, r);
}

static void devnet_status(void *ctx, kd_devnet_info *info) { kd_devnet_status(ctx, info); }

static kd_err devnet_advance(void *ctx, uint64_t daa) { return kd_devnet_advance(ctx, daa); }

kd_err kd_devnet_control_open(kd_devnet *dev, const char *urls, kd_devnet_control **out, char *why, size_t why_len)
{
    const kd_chain_ops ops = {
        .submit = devnet_submit, .reorg = devnet_reorg, .status = devnet_status, .advance = devnet_advance, .ctx = dev};
    return kd_chain_control_open(&ops, urls, out, why, why_len);
}

kd_err kd_chain_control_open(const kd_chain_ops *ops, const char *urls, kd_devnet_control **out, char *why,
                             size_t why_len)
{
    kd_devnet_control *ctl = calloc(1, sizeof *ctl);
    if (!ctl)
        return KD_ERR_NOMEM;
    ctl->ops = *ops;
    int rv = nng_rep0_open(&ctl->rep);
    if (rv) {
        snprintf(why, why_len, "cannot open the devnet control socket: %s", nng_strerror(rv));
        free(ctl);
        return kd_nng_err(rv, "rep0_open");
    }
    kd_err err;
    if ((rv = nng_socket_set_size(ctl->rep, NNG_OPT_RECVMAXSZ, KD_INGEST_MAX_BYTES)) ||
        (rv = nng_aio_alloc(&ctl->recv_aio, NULL, NULL))) {
        snprintf(why, why_len, "cannot set up the devnet control socket: %s", nng_strerror(rv));
        err = kd_nng_err(rv, "devnet control socket");
        goto fail;
    }
    if ((err = kd_nng_listen_all(ctl->rep, urls, why, why_len)))
        goto fail;
    if (pthread_create(&ctl->thread, NULL, serve, ctl) != 0) {
        snprintf(why, why_len, "cannot start the control thread");
        err = KD_ERR_NOMEM;
        goto fail;
    }
    *out = ctl;
    return KD_OK;
fail:
    kd_nng_close(ctl->rep);
    nng_aio_free(ctl->recv_aio);
    free(ctl);
    return err;
}

void kd_devnet_control_close(kd_devnet_control *ctl)
{
    if (!ctl)
        return;
    /* Wakes a waiting receive; a request being handled is answered first. */
    nng_aio_stop(ctl->recv_aio);
    pthread_join(ctl->thread, NULL);
    kd_nng_close(ctl->rep);
    nng_aio_free(ctl->recv_aio);
    free(ctl);
}
