/*
 * ingest_server_test.c — bad input over the ingest socket. A real
 * kd_ingest_server listens on an ipc:// URL in a temporary directory and a
 * raw NNG REQ socket sends it garbage, a truncated IngestRequest, an
 * oversized frame, an empty request and an EngineMsg of no known kind. Each
 * gets an IngestReply naming the problem, nothing is applied, and a good
 * request afterwards still works: the server keeps serving.
 */
#include <criterion/criterion.h>
#include <nng/nng.h>
#include <nng/protocol/reqrep0/req.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/netutil.h"
#include "engine/ingest.h"
#include "engine/ingest_server.h"
#include "engine/support.h"
#include "kdapp.pb-c.h"

static et_env env;
static kd_ingest_server *server;
static nng_socket req;
static char url[700];

static void setup(void)
{
    et_env_open(&env, 0, 0);
    snprintf(url, sizeof url, "ipc://%s/ingest.ipc", env.dir);
    char why[256] = "";
    kd_err err = kd_ingest_server_start(env.engine, url, &server, why, sizeof why);
    cr_assert_eq(err, KD_OK, "server start: %s (%s)", kd_err_code(err), why);
    cr_assert_eq(nng_req0_open(&req), 0);
    cr_assert_eq(nng_socket_set_ms(req, NNG_OPT_RECVTIMEO, 20000), 0);
    cr_assert_eq(nng_socket_set_ms(req, NNG_OPT_SENDTIMEO, 20000), 0);
    cr_assert_eq(nng_socket_set_size(req, NNG_OPT_RECVMAXSZ, 0), 0);
    cr_assert_eq(nng_dial(req, url, NULL, 0), 0, "dial %s", url);
}

static void teardown(void)
{
    kd_nng_close(req);
    kd_ingest_server_stop(server);
    server = NULL;
    et_env_fini(&env);
}

/* Sends a raw frame, asserts a reply arrives and decodes it. */
static void roundtrip(const void *frame, size_t len, kd_ingest_reply *out)
{
    int rv = nng_send(req, (void *)frame, len, 0);
    cr_assert_eq(rv, 0, "send: %s", nng_strerror(rv));
    void *buf = NULL;
    size_t n = 0;
    rv = nng_recv(req, &buf, &n, NNG_FLAG_ALLOC);
    cr_assert_eq(rv, 0, "no reply: %s", nng_strerror(rv));
    ET_ASSERT_OK(kd_ingest_reply_unpack(buf, n, out));
    nng_free(buf, n);
}

/* A request-level error: nothing applied, the tip unchanged. */
static void expect_refused(const void *frame, size_t len, kd_err want, const char *what)
{
    kd_ingest_reply r;
    roundtrip(frame, len, &r);
    cr_expect_eq(r.err, want, "%s: got %s, want %s (%s)", what, kd_err_code(r.err), kd_err_code(want), r.detail);
    cr_expect_eq(r.count, 0, "%s: no results expected", what);
    cr_expect_neq(r.detail[0], '\0', "%s: the reply should say what was wrong", what);
    cr_expect_eq(r.tip.has_tip, 0, "%s: nothing may be applied", what);
    kd_ingest_reply_fini(&r);
}

/* A good one-block request for block `name` creating episode `id`. */
static void good_request(const char *name, uint32_t id, kd_buf *frame)
{
    et_txs txs;
    et_txs_init(&txs);
    et_add_create(&txs, id, "alice", "bob", 6);
    kd_buf msg;
    kd_buf_init(&msg);
    et_accept_msg(name, &txs, &msg);
    kd_buf_init(frame);
    ET_ASSERT_OK(kd_ingest_request_pack(&msg, 1, frame));
    kd_buf_fini(&msg);
    et_txs_fini(&txs);
}

/* After any bad frame the server still applies a good request. */
static void expect_still_serving(const char *name, uint32_t id)
{
    kd_buf frame;
    good_request(name, id, &frame);
    kd_ingest_reply r;
    roundtrip(frame.data, frame.len, &r);
    cr_expect_eq(r.err, KD_OK, "good request after bad input: %s (%s)", kd_err_code(r.err), r.detail);
    cr_assert_eq(r.count, 1);
    cr_expect_eq(r.results[0].status, KD_MSG_APPLIED);
    cr_expect_eq(r.tip.has_tip, 1);
    kd_ingest_reply_fini(&r);
    kd_buf_fini(&frame);
}

TestSuite(ingest_server, .init = setup, .fini = teardown, .timeout = 60);

Test(ingest_server, garbage_frame_is_a_decode_error)
{
    static const uint8_t garbage[] = {0xff, 0xff, 0xff, 0xff, 0x07, 0x00, 0x13};
    expect_refused(garbage, sizeof garbage, KD_ERR_DECODE, "garbage");
    static const char text[] = "GET / HTTP/1.1\r\n\r\n";
    expect_refused(text, sizeof text - 1, KD_ERR_DECODE, "text");
    expect_still_serving("after-garbage", 1);
}

Test(ingest_server, truncated_protobuf_is_a_decode_error)
{
    kd_buf frame;
    good_request("b1", 1, &frame);
    cr_assert_gt(frame.len, 10);
    for (size_t cut = 1; cut < 6; cut++)
        expect_refused(frame.data, frame.len - cut, KD_ERR_DECODE, "truncated");
    kd_buf_fini(&frame);
    expect_still_serving("b1", 1);
}

Test(ingest_server, oversized_frame_is_too_large)
{
    size_t len = KD_INGEST_MAX_BYTES + 1;
    uint8_t *big = calloc(1, len);
    cr_assert_not_null(big);
    expect_refused(big, len, KD_ERR_TOO_LARGE, "oversized");
    free(big);
    expect_still_serving("after-big", 2);
}

Test(ingest_server, empty_request_is_refused)
{
    /* An IngestRequest with no events encodes as zero bytes. */
    expect_refused("", 0, KD_ERR_INVALID_ARG, "empty request");
    expect_still_serving("after-empty", 3);
}

Test(ingest_server, engine_msg_of_no_kind_is_refused_on_its_own)
{
    /* EngineMsg{} (no kind set) next to a good accept: the good one is
     * applied, the unknown one refused with a decode error. */
    Kdapp__EngineMsg empty = KDAPP__ENGINE_MSG__INIT;
    kd_buf msgs[2];
    kd_buf_init(&msgs[0]);
    ET_ASSERT_OK(kd_buf_reserve(&msgs[0], kdapp__engine_msg__get_packed_size(&empty) + 1));
    msgs[0].len = kdapp__engine_msg__pack(&empty, msgs[0].data);
    et_txs txs;
    et_txs_init(&txs);
    et_add_create(&txs, 4, "alice", "bob", -1);
    kd_buf_init(&msgs[1]);
    et_accept_msg("kindless-neighbour", &txs, &msgs[1]);
    kd_buf frame;
    kd_buf_init(&frame);
    ET_ASSERT_OK(kd_ingest_request_pack(msgs, 2, &frame));
    kd_ingest_reply r;
    roundtrip(frame.data, frame.len, &r);
    cr_expect_eq(r.err, KD_OK, "%s", r.detail);
    cr_assert_eq(r.count, 2);
    cr_expect_eq(r.results[0].status, KD_MSG_REFUSED);
    cr_expect_eq(r.results[0].err, KD_ERR_DECODE, "got %s", kd_err_code(r.results[0].err));
    cr_expect_eq(r.results[1].status, KD_MSG_APPLIED);
    kd_ingest_reply_fini(&r);
    kd_buf_fini(&frame);
    kd_buf_fini(&msgs[0]);
    kd_buf_fini(&msgs[1]);
    et_txs_fini(&txs);
    expect_still_serving("after-kindless", 5);
    cr_expect_eq(kd_ingest_server_requests(server), 2);
}

Test(ingest_server, replies_only_after_commit_and_redelivery_is_a_duplicate)
{
    kd_buf frame;
    good_request("twice", 9, &frame);
    kd_ingest_reply a, b;
    roundtrip(frame.data, frame.len, &a);
    roundtrip(frame.data, frame.len, &b);
    cr_assert_eq(a.count, 1);
    cr_assert_eq(b.count, 1);
    cr_expect_eq(a.results[0].status, KD_MSG_APPLIED);
    cr_expect_eq(b.results[0].status, KD_MSG_DUPLICATE);
    et_expect_hash_eq(a.tip.digest, b.tip.digest, "digest after re-delivery");
    /* The reply's tip is what the store holds (the commit happened first). */
    kd_tip tip;
    et_tip(env.engine, &tip);
    et_expect_hash_eq(tip.digest, a.tip.digest, "stored digest");
    kd_ingest_reply_fini(&a);
    kd_ingest_reply_fini(&b);
    kd_buf_fini(&frame);
}

/* A dry run over the socket: outcomes and counters predicted, nothing
 * applied; a dry run that also carries chain events is refused. */
Test(ingest_server, dry_run_predicts_and_applies_nothing)
{
    et_txs txs;
    et_txs_init(&txs);
    et_add_create(&txs, 7, "alice", "bob", -1);
    et_add_move(&txs, 7, 0, 0, 1, "bob", 0);   /* O on X's turn: rejected */
    et_add_move(&txs, 7, 0, 0, 0, "alice", 0); /* X: applied, counter 0 */
    kd_buf block, frame;
    kd_buf_init(&block);
    kd_buf_init(&frame);
    et_accept_msg("dry", &txs, &block);
    uint32_t asked[] = {9};
    ET_ASSERT_OK(kd_ingest_dry_run_pack(&block, asked, 1, NULL, &frame));
    kd_ingest_reply r;
    roundtrip(frame.data, frame.len, &r);
    cr_expect_eq(r.err, KD_OK, "%s", r.detail);
    cr_assert(r.has_dry_run);
    cr_expect_eq(r.count, 0);
    cr_assert_eq(r.dry_run.tx_count, 3);
    cr_expect_eq(r.dry_run.txs[0].applied, 1);
    ET_EXPECT_REJECTED(r.dry_run.txs[1], "wrong_turn");
    ET_EXPECT_ERR(r.dry_run.txs[1].err, KD_ERR_RULE);
    cr_expect_eq(r.dry_run.txs[2].applied, 1, "%s", r.dry_run.txs[2].detail);
    cr_assert_eq(r.counter_count, 2);
    cr_expect_eq(r.counters[0].episode_id, 7);
    cr_expect_eq(r.counters[0].exists, 1);
    cr_expect_eq(r.counters[0].counter, 1);
    cr_expect_eq(r.counters[1].episode_id, 9);
    cr_expect_eq(r.counters[1].exists, 0);
    cr_expect_eq(r.tip.has_tip, 0, "a dry run applies nothing");
    kd_ingest_reply_fini(&r);

    /* dry_run and msgs together */
    Kdapp__EngineMsg *m = kdapp__engine_msg__unpack(NULL, block.len, block.data);
    cr_assert_not_null(m);
    Kdapp__DryRun dr = KDAPP__DRY_RUN__INIT;
    dr.block = m->accepted;
    Kdapp__IngestRequest both = KDAPP__INGEST_REQUEST__INIT;
    both.dry_run = &dr;
    both.n_msgs = 1;
    both.msgs = &m;
    frame.len = 0;
    ET_ASSERT_OK(kd_buf_reserve(&frame, kdapp__ingest_request__get_packed_size(&both)));
    frame.len = kdapp__ingest_request__pack(&both, frame.data);
    expect_refused(frame.data, frame.len, KD_ERR_INVALID_ARG, "dry run with chain events");
    kdapp__engine_msg__free_unpacked(m, NULL);
    kd_buf_fini(&block);
    kd_buf_fini(&frame);
    et_txs_fini(&txs);
    expect_still_serving("after-dry", 8);
}
