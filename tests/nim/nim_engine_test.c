/*
 * nim_engine_test.c — Nim in a real engine (LMDB in a temporary directory),
 * registered by this test alone: created with given and default heaps,
 * played with signed commands, a move rejected by a rule of the game (its
 * code stored in the log), blocks reverted with the episode's bytes back
 * exactly as before, the store reopened, and the whole log replayed into
 * a fresh engine with the same episodes and digest.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "engine/support.h"
#include "engine/wire.h"
#include "nim/nim.h"

/* An engine with Nim registered (default heaps 1, 15), nothing else. */
typedef struct {
    kd_nim_config cfg;
    kd_registry reg;
    kd_engine *engine;
    char dir[512];
} nim_env;

static nim_env env, copy;

static void open_in(nim_env *e, const char *dir)
{
    char why[256] = "";
    memset(e, 0, sizeof *e);
    snprintf(e->dir, sizeof e->dir, "%s", dir);
    e->cfg.heaps.count = 2;
    e->cfg.heaps.sizes[0] = 1;
    e->cfg.heaps.sizes[1] = 15;
    kd_registry_init(&e->reg);
    ET_ASSERT_OK(kd_registry_add(&e->reg, &kd_nim_ops, &e->cfg));
    kd_engine_options opts = {
        .data_dir = e->dir,
        .registry = &e->reg,
        .durability = KD_DURABILITY_RELAXED,
        .map_size = (size_t)16 << 20,
        .chain = ET_CHAIN,
    };
    kd_err err = kd_engine_open(&opts, &e->engine, why, sizeof why);
    cr_assert_eq(err, KD_OK, "open %s: %s (%s)", dir, kd_err_code(err), why);
}

static void open_fresh(nim_env *e)
{
    char dir[512];
    et_tmpdir(dir, sizeof dir);
    open_in(e, dir);
}

static void close_env(nim_env *e)
{
    kd_engine_close(e->engine);
    e->engine = NULL;
    if (e->dir[0])
        et_rmtree(e->dir);
    e->dir[0] = '\0';
}

static void teardown(void)
{
    close_env(&env);
    close_env(&copy);
}

TestSuite(nim_engine, .fini = teardown, .timeout = 60);

/* NewEpisode{nim, alice, bob, params} (params NULL: none, the default). */
static void add_create(et_txs *txs, uint32_t id, const kd_nim_heaps *heaps)
{
    kd_key keys[2] = {et_key("alice"), et_key("bob")};
    kd_buf params;
    kd_buf_init(&params);
    if (heaps)
        ET_ASSERT_OK(kd_nim_params_encode(heaps, &params));
    et_add_create_signed(txs, id, KD_NIM_TYPE_NAME, keys, 2, params.data, params.len);
    kd_buf_fini(&params);
}

/* {heap, take} signed by test key `who` for move counter `counter`. */
static void add_move(et_txs *txs, uint32_t id, uint8_t heap, uint8_t take, const char *who, uint64_t counter)
{
    kd_buf cmd, payload;
    kd_buf_init(&cmd);
    kd_buf_init(&payload);
    ET_ASSERT_OK(kd_nim_command_encode(heap, take, &cmd));
    kd_key key = et_key(who);
    ET_ASSERT_OK(kd_wire_signed_command(id, cmd.data, cmd.len, &key, counter, &payload));
    et_add_raw(txs, payload.data, payload.len);
    kd_buf_fini(&cmd);
    kd_buf_fini(&payload);
}

static void read_state(kd_engine *engine, uint32_t id, kd_nim_state *state, uint64_t *counter)
{
    kd_episode_snapshot snap;
    kd_err err = kd_engine_episode_read(engine, id, &snap);
    cr_assert_eq(err, KD_OK, "episode %u: %s", id, kd_err_code(err));
    cr_assert_eq(snap.ops, &kd_nim_ops);
    memcpy(state, snap.state, sizeof *state);
    if (counter)
        *counter = snap.undo_depth;
    kd_episode_snapshot_fini(&snap);
}

static void expect_bytes(kd_engine *engine, uint32_t id, const kd_buf *want, const char *when)
{
    kd_buf got;
    kd_buf_init(&got);
    et_episode_bytes(engine, id, &got);
    cr_expect_eq(got.len, want->len, "%s: length", when);
    cr_expect(got.len == want->len && memcmp(got.data, want->data, got.len) == 0, "%s: episode %u bytes", when, id);
    kd_buf_fini(&got);
}

/* Accepts a block, asserting it applied, and returns its result. */
static void accept_block(kd_engine *engine, const char *name, const et_txs *txs, kd_msg_result *res)
{
    et_accept(engine, name, txs, res);
    cr_assert_eq(res->status, KD_MSG_APPLIED, "block %s: %s", name, res->detail);
}

/* b1: two creations; b2: a move, a rejected move, a move. */
static void play_opening(void)
{
    et_txs txs;
    kd_msg_result res;
    et_txs_init(&txs);
    kd_nim_heaps classic = kd_nim_default_heaps();
    add_create(&txs, 1, &classic);
    add_create(&txs, 2, NULL);
    accept_block(env.engine, "b1", &txs, &res);
    cr_expect_eq(res.tx_count, 2);
    cr_expect(res.txs[0].applied && res.txs[1].applied, "creations: %s / %s", res.txs[0].detail, res.txs[1].detail);
    kd_msg_result_fini(&res);

    et_txs_clear(&txs);
    add_move(&txs, 1, 1, 3, "alice", 0);
    add_move(&txs, 1, 3, 9, "bob", 1); /* heap 3 holds 5 */
    add_move(&txs, 1, 2, 1, "bob", 1);
    accept_block(env.engine, "b2", &txs, &res);
    cr_assert_eq(res.tx_count, 3);
    cr_expect(res.txs[0].applied, "h1-3: %s", res.txs[0].detail);
    cr_expect(!res.txs[1].applied);
    ET_EXPECT_ERR(res.txs[1].err, KD_ERR_RULE);
    cr_expect_str_eq(res.txs[1].detail, "heap 3 holds 5 counters; cannot take 9");
    cr_expect(res.txs[2].applied, "h2-1: %s", res.txs[2].detail);
    kd_msg_result_fini(&res);
    et_txs_fini(&txs);
}

Test(nim_engine, create_play_reject)
{
    open_fresh(&env);
    play_opening();
    kd_nim_state s;
    uint64_t counter;
    read_state(env.engine, 1, &s, &counter);
    cr_expect_eq(counter, 2, "two moves applied, the rejected one does not count");
    cr_expect_eq(s.left[0], 0);
    cr_expect_eq(s.left[1], 3);
    cr_expect_eq(s.left[2], 5);
    cr_expect_eq(s.turn, KD_NIM_FIRST);
    read_state(env.engine, 2, &s, &counter);
    cr_expect_eq(s.heap_count, 2, "no params: the registered default");
    cr_expect_eq(s.start[0], 1);
    cr_expect_eq(s.start[1], 15);
}

/* The outcome of the refused move, as the log stores it, carries Nim's own
 * rule code (engine: kd_reject_code), not the engine's generic "rule". */
Test(nim_engine, stored_outcome_carries_the_rule_code)
{
    open_fresh(&env);
    play_opening();
    kd_tip tip;
    et_tip(env.engine, &tip);
    Kdapp__Store__LogEntry *entry = et_log_entry(env.engine, tip.last_seq);
    cr_assert_eq(entry->n_txs, 3);
    cr_expect(!entry->txs[1]->applied);
    cr_expect_str_eq(entry->txs[1]->error_code, "take_too_many");
    cr_expect_str_eq(entry->txs[1]->error, "heap 3 holds 5 counters; cannot take 9");
    kdapp__store__log_entry__free_unpacked(entry, NULL);
}

Test(nim_engine, revert_restores_exact_bytes)
{
    open_fresh(&env);
    kd_buf after_b1, after_b2;
    kd_buf_init(&after_b1);
    kd_buf_init(&after_b2);
    et_txs txs;
    kd_msg_result res;
    et_txs_init(&txs);
    kd_nim_heaps classic = kd_nim_default_heaps();
    add_create(&txs, 1, &classic);
    accept_block(env.engine, "b1", &txs, &res);
    kd_msg_result_fini(&res);
    et_episode_bytes(env.engine, 1, &after_b1);

    et_txs_clear(&txs);
    add_move(&txs, 1, 3, 2, "alice", 0);
    add_move(&txs, 1, 1, 1, "bob", 1);
    accept_block(env.engine, "b2", &txs, &res);
    kd_msg_result_fini(&res);
    et_episode_bytes(env.engine, 1, &after_b2);

    /* b3 ends the game: 2 4 3 -> h1-2 (0 4 3), h2-4 (0 0 3), h3-3 (alice, last counter) */
    et_txs_clear(&txs);
    add_move(&txs, 1, 1, 2, "alice", 2);
    add_move(&txs, 1, 2, 4, "bob", 3);
    add_move(&txs, 1, 3, 3, "alice", 4);
    add_move(&txs, 1, 1, 1, "bob", 5); /* game_over */
    accept_block(env.engine, "b3", &txs, &res);
    cr_assert_eq(res.tx_count, 4);
    for (size_t i = 0; i < 3; i++)
        cr_expect(res.txs[i].applied, "move %zu: %s", i, res.txs[i].detail);
    ET_EXPECT_ERR(res.txs[3].err, KD_ERR_RULE);
    cr_expect_str_eq(res.txs[3].detail, "the game is over: first took the last counter");
    kd_msg_result_fini(&res);
    kd_nim_state s;
    read_state(env.engine, 1, &s, NULL);
    cr_expect_eq(s.status, KD_NIM_FIRST_WON);

    et_revert_ok(env.engine, "b3");
    expect_bytes(env.engine, 1, &after_b2, "after reverting b3");
    et_revert_ok(env.engine, "b2");
    expect_bytes(env.engine, 1, &after_b1, "after reverting b2");

    /* another b2 on the same parent, and the store survives a reopen */
    et_txs_clear(&txs);
    add_move(&txs, 1, 2, 4, "alice", 0);
    accept_block(env.engine, "b2'", &txs, &res);
    cr_expect(res.txs[0].applied, "%s", res.txs[0].detail);
    kd_msg_result_fini(&res);
    uint8_t before[KD_HASH_LEN], after[KD_HASH_LEN];
    et_fingerprint(env.engine, before);
    char dir[512];
    snprintf(dir, sizeof dir, "%s", env.dir);
    kd_engine_close(env.engine);
    env.engine = NULL;
    open_in(&env, dir);
    et_fingerprint(env.engine, after);
    et_expect_hash_eq(before, after, "fingerprint across a reopen");

    et_revert_ok(env.engine, "b2'");
    et_revert_ok(env.engine, "b1");
    cr_expect_eq(et_episode_count(env.engine), 0, "reverting the creation deletes the episode");
    kd_buf_fini(&after_b1);
    kd_buf_fini(&after_b2);
    et_txs_fini(&txs);
}

/* Random games over several blocks with reverts — legal moves, moves
 * refused by each rule the position allows (take_too_many, unauthorised,
 * game_over once a game has ended) — replayed entry by entry into a fresh
 * engine: the same verdicts and stored codes, episodes and digest. */
Test(nim_engine, replay_reproduces_the_store)
{
    uint64_t rng = et_seed("nim_engine.replay_reproduces_the_store", 5);
    open_fresh(&env);
    et_txs txs;
    kd_msg_result res;
    et_txs_init(&txs);
    add_create(&txs, 1, NULL); /* the registered default, 1 and 15 */
    kd_nim_heaps small = {.count = 2, .sizes = {2, 1}}, big = {.count = 4, .sizes = {7, 5, 3, 1}};
    add_create(&txs, 2, &small);
    add_create(&txs, 3, &big);
    accept_block(env.engine, "g", &txs, &res);
    kd_msg_result_fini(&res);
    const char *who[2] = {"alice", "bob"};
    int over_refused = 0;
    for (int b = 0; b < 16; b++) {
        char name[32];
        int want[9];
        size_t n = 0;
        snprintf(name, sizeof name, "r%d", b);
        et_txs_clear(&txs);
        for (uint32_t id = 1; id <= 3; id++) {
            kd_nim_state s;
            uint64_t counter;
            read_state(env.engine, id, &s, &counter);
            if (s.status != KD_NIM_IN_PROGRESS) {
                add_move(&txs, id, 1, 1, who[s.turn], counter); /* game_over */
                want[n++] = 0;
                over_refused++;
                continue;
            }
            unsigned heap;
            do
                heap = 1 + et_below(&rng, s.heap_count);
            while (s.left[heap - 1] == 0);
            /* too many, unsigned, then a legal move: the refused ones do
             * not move the counter */
            add_move(&txs, id, (uint8_t)heap, (uint8_t)(s.left[heap - 1] + 1), who[s.turn], counter);
            kd_buf cmd, payload;
            kd_buf_init(&cmd);
            kd_buf_init(&payload);
            ET_ASSERT_OK(kd_nim_command_encode((uint8_t)heap, 1, &cmd));
            ET_ASSERT_OK(kd_wire_unsigned_command(id, cmd.data, cmd.len, &payload));
            et_add_raw(&txs, payload.data, payload.len);
            kd_buf_fini(&cmd);
            kd_buf_fini(&payload);
            add_move(&txs, id, (uint8_t)heap, (uint8_t)(1 + et_below(&rng, s.left[heap - 1])), who[s.turn], counter);
            want[n++] = 0;
            want[n++] = 0;
            want[n++] = 1;
        }
        accept_block(env.engine, name, &txs, &res);
        cr_assert_eq(res.tx_count, n);
        for (size_t i = 0; i < n; i++)
            cr_expect_eq(res.txs[i].applied, want[i], "tx %zu of %s: %s", i, name, res.txs[i].detail);
        kd_msg_result_fini(&res);
        if (b % 4 == 3)
            et_revert_ok(env.engine, name);
    }
    cr_expect_gt(over_refused, 0, "a game ended and was played on");

    open_fresh(&copy);
    kd_tip tip;
    et_tip(env.engine, &tip);
    for (uint64_t seq = 1; seq <= tip.last_seq; seq++) {
        kd_buf raw;
        kd_buf_init(&raw);
        et_log_raw(env.engine, seq, &raw);
        kd_err err = kd_engine_replay_entry(copy.engine, raw.data, raw.len, &res);
        cr_assert_eq(err, KD_OK, "replay of %llu: %s (%s)", (unsigned long long)seq, kd_err_code(err), res.detail);
        Kdapp__Store__LogEntry *orig = et_log_entry(env.engine, seq);
        Kdapp__Store__LogEntry *again = et_log_entry(copy.engine, res.log_seq);
        cr_expect_eq((int)res.status, (int)orig->status, "entry %llu: verdict", (unsigned long long)seq);
        cr_assert_eq(again->n_txs, orig->n_txs);
        for (size_t i = 0; i < orig->n_txs; i++) {
            cr_expect_eq(again->txs[i]->applied, orig->txs[i]->applied);
            cr_expect_str_eq(again->txs[i]->error_code, orig->txs[i]->error_code, "entry %llu tx %zu",
                             (unsigned long long)seq, i);
            cr_expect_str_eq(again->txs[i]->error, orig->txs[i]->error);
        }
        kdapp__store__log_entry__free_unpacked(orig, NULL);
        kdapp__store__log_entry__free_unpacked(again, NULL);
        kd_msg_result_fini(&res);
        kd_buf_fini(&raw);
    }
    for (uint32_t id = 1; id <= 3; id++) {
        kd_buf want;
        kd_buf_init(&want);
        et_episode_bytes(env.engine, id, &want);
        expect_bytes(copy.engine, id, &want, "replayed");
        kd_buf_fini(&want);
    }
    uint8_t a[KD_HASH_LEN], b[KD_HASH_LEN];
    et_fingerprint(env.engine, a);
    et_fingerprint(copy.engine, b);
    et_expect_hash_eq(a, b, "fingerprint of the replayed store");
    et_txs_fini(&txs);
}
