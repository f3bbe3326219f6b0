/*
 * devnet_test.c — the devnet (tools/devnet.c) against a real engine behind
 * a real ingest server: blocks from submitted payloads, reorgs that revert
 * and re-include (with drop and reorder), a revert the engine refuses
 * (beyond its finality depth), argument errors, empty blocks mined on
 * request up to a DAA score (advance: a house waiting for its reveal
 * depth), and the control socket through the client
 * (tools/devnet_client.c), bad frames included.
 *
 * The engine listens on inproc:// (the embedded mode's transport) and, for
 * the control socket tests, the devnet on ipc:// in the test directory.
 */
#include <criterion/criterion.h>
#include <nng/nng.h>
#include <nng/protocol/reqrep0/req.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "engine/netutil.h"
#include "engine/ingest_server.h"
#include "engine/support.h"
#include "tools/chain/devnet.h"
#include "tools/chain/devnet_client.h"

#define FINALITY 4

static et_env env;
static kd_ingest_server *server;
static kd_devnet *dev;
static char control_url[700];

static void start(int with_control)
{
    et_env_open(&env, 0, FINALITY);
    char ingest[64], why[256] = "";
    snprintf(ingest, sizeof ingest, "inproc://devnet-test-%p", (void *)&env);
    kd_err err = kd_ingest_server_start(env.engine, ingest, &server, why, sizeof why);
    cr_assert_eq(err, KD_OK, "ingest server: %s", why);
    snprintf(control_url, sizeof control_url, "ipc://%s/devnet.ipc", env.dir);
    kd_devnet_options o = {
        .listen_urls = with_control ? control_url : NULL,
        .engine_url = ingest,
        .block_ms = 10,
        .seed = et_seed("devnet", 42),
    };
    err = kd_devnet_open(&o, &dev, why, sizeof why);
    cr_assert_eq(err, KD_OK, "devnet: %s", why);
}

static void setup(void) { start(0); }
static void setup_control(void) { start(1); }

static void teardown(void)
{
    kd_devnet_close(dev);
    dev = NULL;
    kd_ingest_server_stop(server);
    server = NULL;
    et_env_fini(&env);
}

/* Submits one payload; returns nothing, asserts it was queued. */
static void submit(const kd_buf *payload)
{
    uint8_t id[KD_HASH_LEN];
    ET_ASSERT_OK(kd_devnet_submit(dev, payload->data, payload->len, id));
}

static void submit_create(uint32_t id, int cap)
{
    et_txs txs;
    et_txs_init(&txs);
    et_add_create(&txs, id, "alice", "bob", cap);
    submit(&txs.p[0]);
    et_txs_fini(&txs);
}

static void submit_move(uint32_t id, uint8_t row, uint8_t col, uint8_t player, uint64_t counter)
{
    kd_buf p;
    kd_buf_init(&p);
    et_move_payload(&p, id, row, col, player, player ? "bob" : "alice", counter);
    submit(&p);
    kd_buf_fini(&p);
}

static void idle(void) { ET_ASSERT_OK(kd_devnet_wait_idle(dev, 20000)); }

static uint64_t moves_of(uint32_t id)
{
    kd_ttt_state st;
    uint64_t counter = 0;
    ET_ASSERT_OK(et_ttt_read(env.engine, id, &st, &counter));
    return counter;
}

/* One block per move: create, then X(0,0) O(1,1) X(0,1) O(2,2) in cap 3. */
static void play_four_blocks(uint32_t id)
{
    static const uint8_t cells[4][2] = {{0, 0}, {1, 1}, {0, 1}, {2, 2}};
    submit_create(id, 3);
    idle();
    for (uint8_t i = 0; i < 4; i++) {
        submit_move(id, cells[i][0], cells[i][1], i % 2, i);
        idle();
    }
}

TestSuite(devnet, .init = setup, .fini = teardown, .timeout = 60);

Test(devnet, packs_submitted_payloads_into_acknowledged_blocks)
{
    submit_create(1, 6);
    submit_move(1, 0, 0, 0, 0);
    submit_move(1, 1, 1, 1, 1);
    idle();
    cr_expect_eq(moves_of(1), 2);
    kd_devnet_info info;
    kd_devnet_status(dev, &info);
    cr_expect_eq(info.pending, 0);
    cr_expect_eq(info.busy, 0);
    cr_expect_geq(info.height, 1);
    cr_expect_eq(info.has_tip, 1);
    kd_tip tip;
    et_tip(env.engine, &tip);
    cr_expect_eq(tip.height, info.height, "engine and devnet agree on the height");
    et_expect_hash_eq(tip.hash, info.tip, "tip");
    et_expect_hash_eq(info.engine_tip.digest, tip.digest, "digest of the last reply");
}

Test(devnet, reorg_reverts_and_reincludes)
{
    play_four_blocks(2);
    kd_buf before;
    kd_buf_init(&before);
    et_episode_bytes(env.engine, 2, &before);
    kd_devnet_info s0;
    kd_devnet_status(dev, &s0);

    kd_devnet_reorg_result r;
    ET_ASSERT_OK(kd_devnet_reorg(dev, 2, 0.0, 0, &r));
    cr_expect_eq(r.reverted, 2);
    cr_expect_eq(r.reincluded, 2);
    cr_expect_eq(r.dropped, 0);
    cr_expect_eq(r.height, s0.height - 2);
    idle();
    /* Both moves re-applied in a new block, in order: the same state. */
    kd_buf after;
    kd_buf_init(&after);
    et_episode_bytes(env.engine, 2, &after);
    cr_expect_eq(after.len, before.len);
    cr_expect(after.len == before.len && memcmp(after.data, before.data, after.len) == 0,
              "re-inclusion should reproduce the state");
    kd_devnet_info s1;
    kd_devnet_status(dev, &s1);
    cr_expect_eq(s1.height, s0.height - 1, "two blocks out, one block in");
    kd_buf_fini(&before);
    kd_buf_fini(&after);
}

Test(devnet, reorg_can_drop_every_tx)
{
    play_four_blocks(3);
    kd_devnet_reorg_result r;
    ET_ASSERT_OK(kd_devnet_reorg(dev, 2, 1.0, 0, &r));
    cr_expect_eq(r.reverted, 2);
    cr_expect_eq(r.dropped, 2);
    cr_expect_eq(r.reincluded, 0);
    idle();
    cr_expect_eq(moves_of(3), 2, "the two dropped moves stay out");
}

Test(devnet, reorg_with_reorder_keeps_every_tx)
{
    play_four_blocks(4);
    kd_devnet_reorg_result r;
    ET_ASSERT_OK(kd_devnet_reorg(dev, 3, 0.0, 1, &r));
    cr_expect_eq(r.reverted, 3);
    cr_expect_eq(r.reincluded + r.dropped, 3);
    cr_expect_eq(r.dropped, 0);
    idle();
    /* Reordered signed moves may be rejected (wrong turn, counter); the
     * engine judged them and the devnet is idle and consistent. */
    kd_devnet_info info;
    kd_devnet_status(dev, &info);
    kd_tip tip;
    et_tip(env.engine, &tip);
    cr_expect_eq(tip.height, info.height);
    cr_expect_leq(moves_of(4), 4);
}

/* A reorg deeper than the blocks the engine can still revert is refused by
 * the devnet before anything is sent (the engine would refuse the first
 * final block and every revert after it); at that depth it happens. Right
 * after it, the new tip is itself final: any reorg reaching below the
 * blocks made since is refused the same way (issue 37, R7). */
Test(devnet, reorg_beyond_finality_is_refused_before_anything_is_reverted)
{
    play_four_blocks(5);
    for (uint8_t i = 0; i < 4; i++) { /* more blocks than the finality depth */
        submit_create(10 + i, -1);
        idle();
    }
    kd_devnet_info s0;
    kd_devnet_status(dev, &s0);
    cr_assert_eq(s0.engine_tip.revertible, FINALITY);
    kd_devnet_reorg_result r;
    kd_err err = kd_devnet_reorg(dev, FINALITY + 1, 0.0, 0, &r);
    ET_EXPECT_ERR(err, KD_ERR_BEYOND_FINALITY);
    ET_EXPECT_ERR(r.engine_err, KD_OK);
    cr_expect_eq(r.reverted, 0);
    cr_expect(strstr(r.detail, "beyond the store's finality: only the last 4 blocks can be reverted") != NULL, "%s",
              r.detail);
    cr_expect_eq(r.height, s0.height);
    kd_tip tip;
    et_tip(env.engine, &tip);
    cr_expect_eq(tip.height, s0.height, "nothing was reverted");

    ET_ASSERT_OK(kd_devnet_reorg(dev, FINALITY, 1.0, 0, &r)); /* its txs dropped: no new block */
    cr_expect_eq(r.reverted, FINALITY);
    kd_devnet_status(dev, &s0);
    cr_expect_eq(s0.engine_tip.revertible, 0, "the tip a reorg returns to is final");
    err = kd_devnet_reorg(dev, 1, 0.0, 0, &r);
    ET_EXPECT_ERR(err, KD_ERR_BEYOND_FINALITY);
    cr_expect_eq(r.reverted, 0);
    cr_expect(strstr(r.detail, "only the last 0 blocks can be reverted") != NULL, "%s", r.detail);
    et_tip(env.engine, &tip);
    kd_devnet_info s1;
    kd_devnet_status(dev, &s1);
    cr_expect_eq(tip.height, s1.height, "engine and devnet still agree");
}

Test(devnet, bad_reorg_arguments)
{
    kd_devnet_reorg_result r;
    ET_EXPECT_ERR(kd_devnet_reorg(dev, 0, 0.0, 0, &r), KD_ERR_INVALID_ARG);
    ET_EXPECT_ERR(kd_devnet_reorg(dev, 1, 1.5, 0, &r), KD_ERR_INVALID_ARG);
    ET_EXPECT_ERR(kd_devnet_reorg(dev, 1, -0.1, 0, &r), KD_ERR_INVALID_ARG);
    ET_EXPECT_ERR(kd_devnet_reorg(dev, 1, 0.0, 0, &r), KD_ERR_NOT_FOUND); /* no blocks yet */
    cr_expect(strstr(r.detail, "knows only") != NULL, "%s", r.detail);
    static uint8_t big[KD_DEVNET_MAX_PAYLOAD + 1];
    uint8_t id[KD_HASH_LEN];
    ET_EXPECT_ERR(kd_devnet_submit(dev, big, sizeof big, id), KD_ERR_TOO_LARGE);
}

Test(devnet, tx_ids_are_unique_for_equal_payloads)
{
    uint8_t a[KD_HASH_LEN], b[KD_HASH_LEN];
    static const uint8_t junk[] = {1, 2, 3};
    ET_ASSERT_OK(kd_devnet_submit(dev, junk, sizeof junk, a));
    ET_ASSERT_OK(kd_devnet_submit(dev, junk, sizeof junk, b));
    et_expect_hash_ne(a, b, "tx ids");
    idle(); /* junk payloads are rejected by the engine, the devnet goes on */
}

/* The devnet mines only when something waits: an advance asks for empty
 * blocks until the newest one's DAA score reaches it (a house waiting for
 * its reveal depth); a lower or equal one asks nothing more. */
Test(devnet, advance_mines_empty_blocks_up_to_a_daa_score)
{
    submit_create(3, 6);
    idle();
    kd_devnet_info before, after;
    kd_devnet_status(dev, &before);
    cr_assert_geq(before.daa, 1);
    ET_ASSERT_OK(kd_devnet_advance(dev, before.daa + 3));
    idle();
    kd_devnet_status(dev, &after);
    cr_expect_eq(after.daa, before.daa + 3, "three empty blocks");
    cr_expect_eq(after.height, before.height + 3);
    kd_tip tip;
    et_tip(env.engine, &tip);
    cr_expect_eq(tip.height, after.height, "the engine applied them");
    ET_ASSERT_OK(kd_devnet_advance(dev, before.daa + 1));
    idle();
    kd_devnet_status(dev, &before);
    cr_expect_eq(before.daa, after.daa, "nothing more for a score already reached");
    cr_expect_eq(moves_of(3), 0);
}

TestSuite(devnet_control, .init = setup_control, .fini = teardown, .timeout = 60);

/* Through the control socket: the status says the devnet mines on demand,
 * and an advance mines up to the score asked. */
Test(devnet_control, client_advance_and_on_demand)
{
    kd_devnet_client *c = NULL;
    char why[512] = "";
    ET_ASSERT_OK(kd_devnet_client_open(control_url, 20000, &c, why, sizeof why));
    kd_devnet_answer ans;
    ET_ASSERT_OK(kd_devnet_client_status(c, &ans, why, sizeof why));
    cr_expect_eq(ans.on_demand, 1, "the devnet mines on demand");
    ET_ASSERT_OK(kd_devnet_client_advance(c, 2, &ans, why, sizeof why));
    idle();
    kd_devnet_info info;
    kd_devnet_status(dev, &info);
    cr_expect_eq(info.daa, 2);
    cr_expect_eq(info.height, 2, "two empty blocks");
    kd_devnet_client_close(c);
}

Test(devnet_control, client_submit_status_reorg)
{
    kd_devnet_client *c = NULL;
    char why[512] = "";
    ET_ASSERT_OK(kd_devnet_client_open(control_url, 20000, &c, why, sizeof why));
    et_txs txs;
    et_txs_init(&txs);
    et_add_create(&txs, 7, "alice", "bob", 6);
    et_add_move(&txs, 7, 0, 0, 0, "alice", 0);
    uint8_t ids[2][KD_HASH_LEN];
    size_t queued = 0;
    kd_devnet_answer ans;
    ET_ASSERT_OK(kd_devnet_client_submit(c, txs.p, 2, ids, &queued, &ans, why, sizeof why));
    cr_expect_eq(queued, 2);
    et_expect_hash_ne(ids[0], ids[1], "tx ids");
    idle();
    ET_ASSERT_OK(kd_devnet_client_status(c, &ans, why, sizeof why));
    cr_expect_eq(ans.pending, 0);
    cr_expect_geq(ans.height, 1);
    cr_expect_eq(ans.has_tip, 1);
    ET_ASSERT_OK(kd_devnet_client_reorg(c, 1, 0.0, 0, &ans, why, sizeof why));
    cr_expect_eq(ans.reverted, 1);
    cr_expect_eq(ans.reincluded, 2);
    /* Refusals carry the devnet's error and sentence. */
    ET_EXPECT_ERR(kd_devnet_client_reorg(c, 500, 0.0, 0, &ans, why, sizeof why), KD_ERR_NOT_FOUND);
    cr_expect(strstr(why, "knows only") != NULL, "%s", why);
    idle();
    cr_expect_eq(moves_of(7), 1);
    et_txs_fini(&txs);
    kd_devnet_client_close(c);
}

/* The gateway's HTTP threads share one client. Each request travels in its
 * own NNG context: before, a request sent on the shared socket cancelled
 * another thread's wait ("Operation canceled") although the devnet had
 * queued its payload. */
#define SHARERS 12
#define SUBMITS_EACH 8

typedef struct {
    kd_devnet_client *client;
    const kd_buf *payloads; /* SUBMITS_EACH */
    kd_err errs[SUBMITS_EACH];
    char why[SUBMITS_EACH][256];
} sharer;

static void *share_client(void *arg)
{
    sharer *s = arg;
    for (int i = 0; i < SUBMITS_EACH; i++) {
        uint8_t ids[1][KD_HASH_LEN];
        s->errs[i] =
            kd_devnet_client_submit(s->client, &s->payloads[i], 1, ids, NULL, NULL, s->why[i], sizeof s->why[i]);
    }
    return NULL;
}

Test(devnet_control, one_client_shared_by_many_threads)
{
    kd_devnet_client *c = NULL;
    char why[512] = "";
    ET_ASSERT_OK(kd_devnet_client_open(control_url, 20000, &c, why, sizeof why));
    et_txs txs;
    et_txs_init(&txs);
    for (uint32_t id = 1; id <= SHARERS * SUBMITS_EACH; id++)
        et_add_create(&txs, id, "alice", "bob", 6);
    sharer sh[SHARERS];
    pthread_t th[SHARERS];
    for (int t = 0; t < SHARERS; t++) {
        memset(&sh[t], 0, sizeof sh[t]);
        sh[t].client = c;
        sh[t].payloads = &txs.p[t * SUBMITS_EACH];
        cr_assert_eq(pthread_create(&th[t], NULL, share_client, &sh[t]), 0);
    }
    for (int t = 0; t < SHARERS; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < SHARERS; t++)
        for (int i = 0; i < SUBMITS_EACH; i++)
            cr_expect_eq(sh[t].errs[i], KD_OK, "thread %d, submit %d: %s: %s", t, i, kd_err_code(sh[t].errs[i]),
                         sh[t].why[i]);
    idle();
    for (uint32_t id = 1; id <= SHARERS * SUBMITS_EACH; id++)
        cr_expect_eq(moves_of(id), 0, "episode %u exists", id);
    et_txs_fini(&txs);
    kd_devnet_client_close(c);
}

Test(devnet_control, garbage_frames_get_a_decode_error)
{
    nng_socket s;
    cr_assert_eq(nng_req0_open(&s), 0);
    cr_assert_eq(nng_socket_set_ms(s, NNG_OPT_RECVTIMEO, 20000), 0);
    cr_assert_eq(nng_dial(s, control_url, NULL, 0), 0);
    static const uint8_t garbage[] = {0xff, 0xff, 0xff, 0x01};
    cr_assert_eq(nng_send(s, (void *)garbage, sizeof garbage, 0), 0);
    void *buf = NULL;
    size_t n = 0;
    cr_assert_eq(nng_recv(s, &buf, &n, NNG_FLAG_ALLOC), 0);
    int named = 0;
    for (size_t i = 0; i + 6 <= n && !named; i++)
        named = memcmp((const char *)buf + i, "decode", 6) == 0;
    cr_expect(named, "the reply should name the decode error");
    nng_free(buf, n);
    kd_nng_close(s);
    /* ...and the devnet still answers. */
    kd_devnet_client *c = NULL;
    char why[512] = "";
    kd_devnet_answer ans;
    ET_ASSERT_OK(kd_devnet_client_open(control_url, 20000, &c, why, sizeof why));
    ET_ASSERT_OK(kd_devnet_client_status(c, &ans, why, sizeof why));
    kd_devnet_client_close(c);
}

Test(devnet_control, a_devnet_that_is_not_there_times_out_clearly)
{
    char url[800], why[512] = "";
    snprintf(url, sizeof url, "ipc://%s/nobody.ipc", env.dir);
    kd_devnet_client *c = NULL;
    ET_ASSERT_OK(kd_devnet_client_open(url, 200, &c, why, sizeof why));
    kd_devnet_answer ans;
    ET_EXPECT_ERR(kd_devnet_client_status(c, &ans, why, sizeof why), KD_ERR_TIMEOUT);
    cr_expect(strstr(why, "no answer from the devnet") != NULL, "%s", why);
    cr_expect(strstr(why, "could not be sent") != NULL, "nothing was sent, so nothing was queued: %s", why);
    kd_devnet_client_close(c);
}
