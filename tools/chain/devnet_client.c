/* devnet_client.c — REQ socket to a devnet's control socket (see devnet_client.h). */
#include "tools/chain/devnet_client.h"

#include <nng/nng.h>
#include <nng/protocol/reqrep0/req.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/netutil.h"
#include "kdapp.pb-c.h"

#define DEFAULT_TIMEOUT_MS 10000u

struct kd_devnet_client {
    nng_socket sock;
    kd_nng_redialer *dialer; /* re-dials when NNG's dialer gives up (netutil.h) */
    char url[512];
    uint32_t timeout_ms;
};

kd_err kd_devnet_client_open(const char *url, uint32_t timeout_ms, kd_devnet_client **out, char *why, size_t why_len)
{
    kd_devnet_client *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(why, why_len, "out of memory");
        return KD_ERR_NOMEM;
    }
    snprintf(c->url, sizeof c->url, "%s", url);
    c->timeout_ms = timeout_ms ? timeout_ms : DEFAULT_TIMEOUT_MS;
    int rv = nng_req0_open(&c->sock);
    if (rv) {
        snprintf(why, why_len, "cannot open a request socket: %s", nng_strerror(rv));
        free(c);
        return kd_nng_err(rv, "req0_open");
    }
    /* Timeouts and "never re-send" are set per request (roundtrip). */
    if ((rv = nng_socket_set_ms(c->sock, NNG_OPT_RECONNMINT, 20)) ||
        (rv = nng_socket_set_ms(c->sock, NNG_OPT_RECONNMAXT, 500)) ||
        (rv = nng_socket_set_size(c->sock, NNG_OPT_RECVMAXSZ, 0))) {
        snprintf(why, why_len, "cannot set up the request socket: %s", nng_strerror(rv));
        goto fail;
    }
    /* The devnet may start later, and may restart. */
    kd_err err = kd_nng_redialer_start(c->sock, url, &c->dialer, why, why_len);
    if (err) {
        kd_nng_close(c->sock);
        free(c);
        return err;
    }
    *out = c;
    return KD_OK;
fail:
    kd_nng_close(c->sock);
    free(c);
    return kd_nng_err(rv, "devnet client");
}

void kd_devnet_client_close(kd_devnet_client *c)
{
    if (!c)
        return;
    kd_nng_redialer_stop(c->dialer);
    kd_nng_close(c->sock);
    free(c);
}

/*
 * Sends one request and decodes the reply. On success *reply is owned by
 * the caller (free with kdapp__devnet_reply__free_unpacked). A refusal is
 * returned as its error with the devnet's sentence; *reply is still set.
 */
static kd_err roundtrip(kd_devnet_client *c, const Kdapp__DevnetRequest *req, Kdapp__DevnetReply **reply,
                        kd_devnet_answer *ans, char *why, size_t why_len)
{
    *reply = NULL;
    size_t n = kdapp__devnet_request__get_packed_size(req);
    uint8_t *frame = malloc(n ? n : 1);
    if (!frame) {
        snprintf(why, why_len, "out of memory");
        return KD_ERR_NOMEM;
    }
    kdapp__devnet_request__pack(req, frame);
    /* Its own context per request: the gateway's HTTP threads share this
     * client. Never re-sent: submit and reorg are not idempotent. */
    nng_msg *msg = NULL;
    kd_nng_req_fate fate;
    kd_err err = kd_nng_request(c->sock, frame, n, NNG_DURATION_INFINITE, (nng_duration)c->timeout_ms, &msg, &fate);
    free(frame);
    if (err == KD_ERR_TIMEOUT && !fate.sent) {
        snprintf(why, why_len,
                 "no answer from the devnet at %s within %u ms: the request could not be sent (is `kdapp devnet` "
                 "or `kdapp up` running there?)",
                 c->url, c->timeout_ms);
        return err;
    }
    if (err == KD_ERR_TIMEOUT) {
        snprintf(why, why_len,
                 "no answer from the devnet at %s within %u ms, after sending: it may have acted on the request "
                 "(is it overloaded, or is a reorg waiting for a stopped engine?)",
                 c->url, c->timeout_ms);
        return err;
    }
    if (err) {
        snprintf(why, why_len, "cannot talk to the devnet at %s: %s%s", c->url, nng_strerror(fate.rv),
                 fate.sent ? " (after sending: the devnet may have acted on the request)" : "");
        return err;
    }
    const void *buf = nng_msg_body(msg);
    size_t len = nng_msg_len(msg);
    Kdapp__DevnetReply *r = kdapp__devnet_reply__unpack(NULL, len, buf);
    nng_msg_free(msg);
    if (!r || (r->tip_hash.len != 0 && r->tip_hash.len != KD_HASH_LEN)) {
        snprintf(why, why_len, "the devnet at %s sent a reply that is not a DevnetReply", c->url);
        if (r)
            kdapp__devnet_reply__free_unpacked(r, NULL);
        return KD_ERR_DECODE;
    }
    if (ans) {
        memset(ans, 0, sizeof *ans);
        ans->height = r->height;
        ans->pending = r->pending;
        ans->on_demand = r->on_demand;
        ans->has_tip = r->tip_hash.len == KD_HASH_LEN;
        if (ans->has_tip)
            memcpy(ans->tip, r->tip_hash.data, KD_HASH_LEN);
        ans->reverted = r->reverted;
        ans->reincluded = r->reincluded;
        ans->dropped = r->dropped;
        ans->takes_transactions = r->takes_transactions;
    }
    *reply = r;
    if (r->error_code && *r->error_code) {
        kd_err refused = kd_err_from_code(r->error_code);
        snprintf(why, why_len, "%s", r->error && *r->error ? r->error : kd_err_str(refused));
        return refused == KD_OK ? KD_ERR_INTERNAL : refused;
    }
    return KD_OK;
}

kd_err kd_devnet_client_submit(kd_devnet_client *c, const kd_buf *payloads, size_t count,
                               uint8_t (*tx_ids)[KD_HASH_LEN], size_t *queued, kd_devnet_answer *ans, char *why,
                               size_t why_len)
{
    return kd_devnet_client_submit_as(c, payloads, count, NULL, tx_ids, queued, ans, why, why_len);
}

kd_err kd_devnet_client_submit_as(kd_devnet_client *c, const kd_buf *payloads, size_t count,
                                  const kd_chain_spend *spend, uint8_t (*tx_ids)[KD_HASH_LEN], size_t *queued,
                                  kd_devnet_answer *ans, char *why, size_t why_len)
{
    if (queued)
        *queued = 0;
    ProtobufCBinaryData *bins = calloc(count ? count : 1, sizeof *bins);
    ProtobufCBinaryData keys[KD_SPEND_KEYS_MAX];
    if (!bins) {
        snprintf(why, why_len, "out of memory");
        return KD_ERR_NOMEM;
    }
    for (size_t i = 0; i < count; i++) {
        bins[i].data = payloads[i].data;
        bins[i].len = payloads[i].len;
    }
    Kdapp__DevnetSubmit s = KDAPP__DEVNET_SUBMIT__INIT;
    s.n_payloads = count;
    s.payloads = bins;
    Kdapp__DevnetSpend sp = KDAPP__DEVNET_SPEND__INIT;
    if (spend) {
        sp.kind = spend->kind == KD_SPEND_SESSION ? KDAPP__DEVNET_SPEND__KIND__SESSION
                  : spend->kind == KD_SPEND_DUTY  ? KDAPP__DEVNET_SPEND__KIND__DUTY
                                                  : KDAPP__DEVNET_SPEND__KIND__OWNER;
        sp.grant = (char *)spend->grant;
        sp.n_keys = spend->n_keys < KD_SPEND_KEYS_MAX ? spend->n_keys : KD_SPEND_KEYS_MAX;
        for (size_t i = 0; i < sp.n_keys; i++)
            keys[i] = (ProtobufCBinaryData){.data = (uint8_t *)spend->keys[i].bytes, .len = KD_PUBKEY_LEN};
        sp.keys = keys;
        s.spend = &sp;
    }
    Kdapp__DevnetRequest req = KDAPP__DEVNET_REQUEST__INIT;
    req.kind_case = KDAPP__DEVNET_REQUEST__KIND_SUBMIT;
    req.submit = &s;
    Kdapp__DevnetReply *r = NULL;
    kd_err err = roundtrip(c, &req, &r, ans, why, why_len);
    if (r) {
        size_t n = 0;
        for (; n < r->n_tx_ids && n < count; n++) {
            if (r->tx_ids[n].len != KD_HASH_LEN)
                break;
            memcpy(tx_ids[n], r->tx_ids[n].data, KD_HASH_LEN);
        }
        if (queued)
            *queued = n;
        if (!err && n != count) {
            snprintf(why, why_len, "the devnet answered %zu tx ids for %zu payloads", r->n_tx_ids, count);
            err = KD_ERR_DECODE;
        }
        kdapp__devnet_reply__free_unpacked(r, NULL);
    }
    free(bins);
    return err;
}

kd_err kd_devnet_client_submit_tx(kd_devnet_client *c, const char *json, uint8_t tx_id[KD_HASH_LEN],
                                  kd_devnet_answer *ans, char *why, size_t why_len)
{
    Kdapp__DevnetSubmitTransaction t = KDAPP__DEVNET_SUBMIT_TRANSACTION__INIT;
    t.transaction = (char *)json;
    Kdapp__DevnetRequest req = KDAPP__DEVNET_REQUEST__INIT;
    req.kind_case = KDAPP__DEVNET_REQUEST__KIND_SUBMIT_TRANSACTION;
    req.submit_transaction = &t;
    Kdapp__DevnetReply *r = NULL;
    kd_err err = roundtrip(c, &req, &r, ans, why, why_len);
    if (r && !err) {
        if (r->n_tx_ids == 1 && r->tx_ids[0].len == KD_HASH_LEN) {
            memcpy(tx_id, r->tx_ids[0].data, KD_HASH_LEN);
        } else {
            snprintf(why, why_len, "the chain answered %zu tx ids for one transaction", r->n_tx_ids);
            err = KD_ERR_DECODE;
        }
    }
    if (r)
        kdapp__devnet_reply__free_unpacked(r, NULL);
    return err;
}

/* A request whose reply says nothing but the common answer (`ans`). */
static kd_err ask(kd_devnet_client *c, const Kdapp__DevnetRequest *req, kd_devnet_answer *ans, char *why,
                  size_t why_len)
{
    Kdapp__DevnetReply *r = NULL;
    kd_err err = roundtrip(c, req, &r, ans, why, why_len);
    if (r)
        kdapp__devnet_reply__free_unpacked(r, NULL);
    return err;
}

kd_err kd_devnet_client_reorg(kd_devnet_client *c, uint32_t depth, double drop, int reorder, kd_devnet_answer *ans,
                              char *why, size_t why_len)
{
    Kdapp__DevnetReorg g = KDAPP__DEVNET_REORG__INIT;
    g.depth = depth;
    g.drop_probability = drop;
    g.reorder = reorder ? 1 : 0;
    Kdapp__DevnetRequest req = KDAPP__DEVNET_REQUEST__INIT;
    req.kind_case = KDAPP__DEVNET_REQUEST__KIND_REORG;
    req.reorg = &g;
    return ask(c, &req, ans, why, why_len);
}

kd_err kd_devnet_client_advance(kd_devnet_client *c, uint64_t daa, kd_devnet_answer *ans, char *why, size_t why_len)
{
    Kdapp__DevnetAdvance a = KDAPP__DEVNET_ADVANCE__INIT;
    a.daa = daa;
    Kdapp__DevnetRequest req = KDAPP__DEVNET_REQUEST__INIT;
    req.kind_case = KDAPP__DEVNET_REQUEST__KIND_ADVANCE;
    req.advance = &a;
    return ask(c, &req, ans, why, why_len);
}

kd_err kd_devnet_client_status(kd_devnet_client *c, kd_devnet_answer *ans, char *why, size_t why_len)
{
    Kdapp__DevnetStatus st = KDAPP__DEVNET_STATUS__INIT;
    Kdapp__DevnetRequest req = KDAPP__DEVNET_REQUEST__INIT;
    req.kind_case = KDAPP__DEVNET_REQUEST__KIND_STATUS;
    req.status = &st;
    return ask(c, &req, ans, why, why_len);
}
