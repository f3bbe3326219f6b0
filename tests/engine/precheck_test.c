/*
 * precheck_test.c — a type's costly check made ahead of the writer
 * (kd_episode_ops.precheck, engine/sigcheck.h): a test type that is
 * tic-tac-toe whose moves carry a "proof" (a move to the centre is one
 * that does not verify, refused `bad_proof_test`). Through the ingest
 * server's path (kd_ingest_handle_pooled with a verifier pool) the
 * writer's execute is handed each verdict the pool found (no check of its
 * own), a failing one refuses with the type's code and changes nothing; a
 * second command of the same episode in one request meets a state the
 * store did not hold, so it is not planned and execute checks it itself;
 * without a pool execute always checks itself; a trusted replay of the
 * log hands execute the verdict of every command the log applied; and
 * every way reaches the same store.
 */
#include <criterion/criterion.h>
#include <stdatomic.h>
#include <string.h>

#include "engine/ingest.h"
#include "engine/sigcheck.h"
#include "engine/support.h"
#include "tools/sim/replay.h"
#include "tictactoe.pb-c.h"

#define PROOF_TYPE "proof_ttt"

static kd_episode_ops proof_ops;
static atomic_int prechecks, given, inline_checks;

/* The "proof": a move to the centre does not verify. */
static kd_err check_move(const uint8_t *command, size_t len, kd_reject *rej)
{
    Kdapp__TttCommand *m = kdapp__ttt_command__unpack(NULL, len, command);
    int centre = m && m->move && m->move->row == 1 && m->move->col == 1;
    kdapp__ttt_command__free_unpacked(m, NULL);
    return centre ? kd_reject_rule(rej, "bad_proof_test", "the move's proof does not verify") : KD_OK;
}

static int key_of(const void *state, const uint8_t *command, size_t len, const kd_pubkey *signer, uint32_t id,
                  uint8_t key[KD_HASH_LEN])
{
    (void)signer;
    kd_sha256_ctx h;
    cr_assert_eq(kd_sha256_init(&h), KD_OK);
    kd_sha256_update(&h, &id, sizeof id);
    kd_sha256_update(&h, state, kd_tictactoe_ops.state_size);
    kd_sha256_update(&h, command, len);
    kd_sha256_final(&h, key);
    kd_sha256_fini(&h);
    return 1;
}

static kd_err precheck(const void *state, const uint8_t *command, size_t len, const kd_pubkey *signer, uint32_t id,
                       kd_reject *rej)
{
    (void)state, (void)signer, (void)id;
    atomic_fetch_add(&prechecks, 1);
    return check_move(command, len, rej);
}

static kd_err execute(void *state, const uint8_t *command, size_t len, const kd_pubkey *signer,
                      const kd_block_meta *meta, void *undo, kd_reject *rej)
{
    kd_err verdict;
    if (meta->precheck) {
        atomic_fetch_add(&given, 1);
        verdict = meta->precheck->verdict;
        if (verdict)
            *rej = meta->precheck->rej;
    } else {
        atomic_fetch_add(&inline_checks, 1);
        verdict = check_move(command, len, rej);
    }
    return verdict ? verdict : kd_tictactoe_ops.execute(state, command, len, signer, meta, undo, rej);
}

typedef struct {
    kd_ttt_config cfg;
    kd_registry reg;
    kd_engine *engine;
    char dir[512];
} pc_env;

static void pc_open(pc_env *e)
{
    char why[256] = "";
    memset(e, 0, sizeof *e);
    et_tmpdir(e->dir, sizeof e->dir);
    proof_ops = kd_tictactoe_ops;
    proof_ops.type_name = PROOF_TYPE;
    proof_ops.execute = execute;
    proof_ops.precheck_key = key_of;
    proof_ops.precheck = precheck;
    kd_registry_init(&e->reg);
    ET_ASSERT_OK(kd_registry_add(&e->reg, &proof_ops, &e->cfg));
    kd_engine_options opts = {
        .data_dir = e->dir, .registry = &e->reg, .durability = KD_DURABILITY_RELAXED, .chain = ET_CHAIN};
    kd_err err = kd_engine_open(&opts, &e->engine, why, sizeof why);
    cr_assert_eq(err, KD_OK, "open %s: %s (%s)", e->dir, kd_err_code(err), why);
}

static void pc_close(pc_env *e)
{
    kd_engine_close(e->engine);
    et_rmtree(e->dir);
}

static pc_env env;
static kd_sig_pool *pool;

static void setup(void)
{
    pc_open(&env);
    ET_ASSERT_OK(kd_sig_pool_alloc(2, &pool));
    atomic_store(&prechecks, 0);
    atomic_store(&given, 0);
    atomic_store(&inline_checks, 0);
}

static void teardown(void)
{
    kd_sig_pool_free(pool);
    pc_close(&env);
}

TestSuite(precheck, .init = setup, .fini = teardown, .timeout = 60);

static void add_create(et_txs *txs, uint32_t id)
{
    kd_key keys[2] = {et_key("x"), et_key("o")};
    et_add_create_signed(txs, id, PROOF_TYPE, keys, 2, NULL, 0);
}

/* Ingests the blocks (name, txs) as one request through the pool; each
 * block's tx results into `res` (count of them). */
static void ingest_pooled(kd_engine *engine, kd_sig_pool *p, const char *const *names, et_txs *const *blocks, size_t n,
                          kd_ingest_reply *reply)
{
    kd_buf msgs[4], frame, out;
    cr_assert(n <= 4);
    kd_buf_init(&frame);
    kd_buf_init(&out);
    for (size_t i = 0; i < n; i++) {
        kd_buf_init(&msgs[i]);
        et_accept_msg(names[i], blocks[i], &msgs[i]);
    }
    ET_ASSERT_OK(kd_ingest_request_pack(msgs, n, &frame));
    ET_ASSERT_OK(kd_ingest_handle_pooled(engine, p, frame.data, frame.len, &out, NULL));
    ET_ASSERT_OK(kd_ingest_reply_unpack(out.data, out.len, reply));
    cr_assert_eq(reply->count, n, "%s", reply->detail);
    for (size_t i = 0; i < n; i++)
        kd_buf_fini(&msgs[i]);
    kd_buf_fini(&frame);
    kd_buf_fini(&out);
}

Test(precheck, the_writer_takes_the_pools_verdicts)
{
    et_txs b1, b2, b3;
    et_txs_init(&b1);
    et_txs_init(&b2);
    et_txs_init(&b3);
    add_create(&b1, 5);
    add_create(&b1, 6);
    et_accept_ok(env.engine, "b1", &b1);
    cr_expect_eq(atomic_load(&prechecks), 0, "a creation has no precheck");
    /* one request: a good move in episode 5, a bad one in episode 6 */
    et_add_move(&b2, 5, 0, 0, 0, "x", 0);
    et_add_move(&b2, 6, 1, 1, 0, "x", 0);
    const char *names[] = {"b2"};
    et_txs *blocks[] = {&b2};
    kd_ingest_reply r = {0};
    ingest_pooled(env.engine, pool, names, blocks, 1, &r);
    cr_assert_eq(r.results[0].tx_count, 2u);
    cr_expect(r.results[0].txs[0].applied);
    ET_EXPECT_REJECTED(r.results[0].txs[1], "bad_proof_test");
    kd_ingest_reply_fini(&r);
    cr_expect_eq(atomic_load(&prechecks), 2, "both checked ahead, once each");
    cr_expect_eq(atomic_load(&given), 2, "the writer was handed both verdicts");
    cr_expect_eq(atomic_load(&inline_checks), 0, "and checked nothing itself");
    kd_read *rd;
    kd_episode_snapshot snap;
    ET_ASSERT_OK(kd_engine_read_begin(env.engine, &rd));
    ET_ASSERT_OK(kd_read_episode(rd, 6, &snap));
    cr_expect_eq(snap.undo_depth, 0u, "the refused move changed nothing");
    kd_episode_snapshot_fini(&snap);
    kd_engine_read_end(rd);
    /* two moves of episode 5 in one request: the second meets a state the
     * store does not hold yet, so only the first is planned */
    et_add_move(&b3, 5, 0, 1, 1, "o", 1);
    et_add_move(&b3, 5, 2, 2, 0, "x", 2);
    const char *names3[] = {"b3"};
    et_txs *blocks3[] = {&b3};
    ingest_pooled(env.engine, pool, names3, blocks3, 1, &r);
    cr_expect(r.results[0].txs[0].applied && r.results[0].txs[1].applied);
    kd_ingest_reply_fini(&r);
    cr_expect_eq(atomic_load(&prechecks), 3);
    cr_expect_eq(atomic_load(&given), 3);
    cr_expect_eq(atomic_load(&inline_checks), 1, "the second checked by execute itself");
    et_txs_fini(&b1);
    et_txs_fini(&b2);
    et_txs_fini(&b3);
}

/* Without a pool (kdapp feed, a dry run) execute checks everything; a
 * replay that trusts its log is handed the verdict of what the log
 * applied, and checks again what it refused; all reach the same store. */
Test(precheck, without_a_pool_and_in_a_trusted_replay)
{
    et_txs b1, b2;
    et_txs_init(&b1);
    et_txs_init(&b2);
    add_create(&b1, 5);
    et_accept_ok(env.engine, "b1", &b1);
    et_add_move(&b2, 5, 1, 1, 0, "x", 0);
    et_add_move(&b2, 5, 0, 0, 0, "x", 0);
    kd_msg_result res;
    et_accept(env.engine, "b2", &b2, &res);
    ET_EXPECT_REJECTED(res.txs[0], "bad_proof_test");
    cr_expect(res.txs[1].applied);
    kd_msg_result_fini(&res);
    cr_expect_eq(atomic_load(&prechecks), 0);
    cr_expect_eq(atomic_load(&inline_checks), 2);
    for (int trust = 0; trust < 2; trust++) {
        pc_env copy;
        pc_open(&copy);
        atomic_store(&given, 0);
        atomic_store(&inline_checks, 0);
        kd_engine_trust_replayed_signatures(copy.engine, trust);
        kd_replay_report rep;
        ET_ASSERT_OK(kd_replay_log(env.engine, copy.engine, 0, &rep));
        cr_expect(kd_replay_ok(&rep), "%s %s", rep.first_bad_what, rep.episode_what);
        cr_expect_eq(atomic_load(&given), trust ? 1 : 0, "trusted: the applied move's verdict is the log's");
        cr_expect_eq(atomic_load(&inline_checks), trust ? 1 : 2, "the refused one is checked again");
        pc_close(&copy);
    }
    et_txs_fini(&b1);
    et_txs_fini(&b2);
}
