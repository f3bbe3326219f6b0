/*
 * engine_property_test.c — a seeded random walk over the engine: blocks of
 * creations (every cap, including the engine default) and moves (legal and
 * illegal: stale counters, wrong signers, unsigned, wrong player, random
 * cells, replayed payloads) across several episodes, mixed with reverts of
 * the tip, re-deliveries and refused reverts.
 *
 * Two oracles check every step:
 *  - an oracle engine fed only the canonical chain (accepts, never a
 *    revert; rebuilt from the chain after a reorg) must have the same
 *    fingerprint as the engine under test, and a revert must return the
 *    fingerprint recorded when the chain was that long;
 *  - a model of the block being built (the tic-tac-toe rules applied to
 *    states read at the start of the block, plus the signature rule) must
 *    predict each transaction's verdict and the resulting episode bytes.
 * At the end the whole log replays into an empty store with the same
 * fingerprint. The seed is printed; KD_TEST_SEED reproduces a run.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/support.h"
#include "kdapp.pb-c.h"

#define STEPS 2000
#define N_EPISODES 5 /* ids 1..5; id 6 never exists */
#define N_KEYS 3
#define MAX_CHAIN 4096
#define MAX_REPLAYS 16

static et_env live, oracle, replica;

static void teardown(void)
{
    et_env_fini(&live);
    et_env_fini(&oracle);
    et_env_fini(&replica);
}

TestSuite(engine_property, .fini = teardown, .timeout = 120);

typedef struct {
    int exists;
    kd_ttt_state st;
    uint64_t counter;
    int keys[2]; /* indices into the key pool */
} model_ep;

/* A signed payload seen earlier, kept to be replayed. */
typedef struct {
    kd_buf payload;
    uint32_t id;
    uint64_t counter;
    int key;
    kd_ttt_move move;
} old_payload;

typedef struct {
    uint64_t rng;
    kd_key keys[N_KEYS];
    kd_ttt_config cfg;
    model_ep model[N_EPISODES + 2];
    /* The canonical chain: accept messages and the oracle's fingerprint
     * after each prefix (fp[0]: empty store). */
    kd_buf *chain;
    uint8_t (*fp)[KD_HASH_LEN];
    size_t n;
    size_t oracle_len; /* blocks the oracle has applied; > n after a reorg */
    old_payload old[MAX_REPLAYS];
    size_t n_old;
    unsigned step;
    /* What happened, for the summary. */
    unsigned accepts, reverts, applied_txs, rejected_txs, evictions;
} walk;

static int key_index(const walk *w, const kd_pubkey *pub)
{
    for (int i = 0; i < N_KEYS; i++)
        if (memcmp(&w->keys[i].pub, pub, sizeof *pub) == 0)
            return i;
    cr_assert_fail("participant is not a test key");
    return -1;
}

/* Loads the model of every episode from the engine under test. */
static void model_load(walk *w)
{
    for (uint32_t id = 1; id <= N_EPISODES + 1; id++) {
        model_ep *m = &w->model[id];
        memset(m, 0, sizeof *m);
        kd_episode_snapshot snap;
        kd_err err = kd_engine_episode_read(live.engine, id, &snap);
        if (err == KD_ERR_NOT_FOUND)
            continue;
        cr_assert_eq(err, KD_OK, "step %u: read %u: %s", w->step, id, kd_err_code(err));
        m->exists = 1;
        memcpy(&m->st, snap.state, sizeof m->st);
        m->counter = snap.undo_depth;
        m->keys[0] = key_index(w, &snap.participants.keys[0]);
        m->keys[1] = key_index(w, &snap.participants.keys[1]);
        kd_episode_snapshot_fini(&snap);
    }
}

/* Compares the model with the engine under test, episode by episode. */
static void model_check(walk *w)
{
    for (uint32_t id = 1; id <= N_EPISODES + 1; id++) {
        const model_ep *m = &w->model[id];
        kd_ttt_state st;
        uint64_t counter;
        kd_err err = et_ttt_read(live.engine, id, &st, &counter);
        cr_assert_eq(err == KD_OK, m->exists, "step %u: episode %u exists=%d, engine says %s", w->step, id, m->exists,
                     kd_err_code(err));
        if (!m->exists)
            continue;
        kd_buf a, b;
        kd_buf_init(&a);
        kd_buf_init(&b);
        ET_ASSERT_OK(kd_ttt_state_encode(&m->st, &a));
        ET_ASSERT_OK(kd_ttt_state_encode(&st, &b));
        cr_assert(a.len == b.len && memcmp(a.data, b.data, a.len) == 0, "step %u: episode %u state differs", w->step,
                  id);
        cr_assert_eq(counter, m->counter, "step %u: episode %u counter", w->step, id);
        kd_buf_fini(&a);
        kd_buf_fini(&b);
    }
}

static void remember(walk *w, const kd_buf *payload, uint32_t id, uint64_t counter, int key, const kd_ttt_move *mv)
{
    old_payload *o;
    if (w->n_old < MAX_REPLAYS) {
        o = &w->old[w->n_old++];
        kd_buf_init(&o->payload);
    } else {
        o = &w->old[et_below(&w->rng, MAX_REPLAYS)];
        o->payload.len = 0;
    }
    ET_ASSERT_OK(kd_buf_append(&o->payload, payload->data, payload->len));
    o->id = id;
    o->counter = counter;
    o->key = key;
    o->move = *mv;
}

/* The short code of a verdict ("" when applied), in static storage: an
 * engine code's name, or tic-tac-toe's rule code from its table. */
static const char *code_of(kd_err err, const kd_reject *rej)
{
    if (err == KD_OK)
        return "";
    if (err != KD_ERR_RULE)
        return kd_err_code(err);
    for (const kd_rule_code *c = kd_ttt_rule_codes; c->code; c++)
        if (strcmp(c->code, rej->code) == 0)
            return c->code;
    return kd_err_code(KD_ERR_RULE);
}

/* Predicts a signed (key >= 0) or unsigned (key < 0) move and updates the
 * model when it applies; returns the predicted short code. */
static const char *predict_move(walk *w, uint32_t id, uint64_t counter, int key, const kd_ttt_move *mv)
{
    model_ep *m = id <= N_EPISODES + 1 ? &w->model[id] : NULL;
    if (!m || !m->exists)
        return kd_err_code(KD_ERR_UNKNOWN_EPISODE);
    kd_ttt_undo undo;
    kd_reject rej = {{0}, {0}};
    if (key >= 0 && counter != m->counter) {
        if (counter > m->counter || m->counter - counter > KD_STALE_WINDOW)
            return kd_err_code(KD_ERR_BAD_SIGNATURE);
        /* Stale: the rule that refuses it now, on a copy, or stale_command. */
        kd_ttt_state copy = m->st;
        kd_err err = kd_ttt_play(&copy, mv, &w->keys[key].pub, &undo, &rej);
        return err ? code_of(err, &rej) : kd_err_code(KD_ERR_STALE_COMMAND);
    }
    kd_err err = kd_ttt_play(&m->st, mv, key >= 0 ? &w->keys[key].pub : NULL, &undo, &rej);
    if (err == KD_OK) {
        m->counter++;
        w->evictions += undo.has_removed;
    }
    return code_of(err, &rej);
}

/* Adds one move transaction (legal or not) to `t`; returns the predicted
 * verdict's short code. */
static const char *gen_move(walk *w, et_txs *t)
{
    uint32_t id = 1 + et_below(&w->rng, N_EPISODES + 1);
    for (int tries = 0; tries < 4 && !w->model[id].exists; tries++)
        id = 1 + et_below(&w->rng, N_EPISODES + 1); /* mostly episodes that exist */
    model_ep *m = &w->model[id];
    kd_ttt_move mv = {et_below(&w->rng, 4), et_below(&w->rng, 4), (uint8_t)et_below(&w->rng, 2)};
    uint64_t counter = m->counter;
    int key = (int)et_below(&w->rng, N_KEYS);

    if (w->n_old && et_below(&w->rng, 12) == 0) {
        /* Replay an old signed payload byte for byte. */
        const old_payload *o = &w->old[et_below(&w->rng, (uint32_t)w->n_old)];
        et_add_raw(t, o->payload.data, o->payload.len);
        return predict_move(w, o->id, o->counter, o->key, &o->move);
    }
    kd_ttt_cell legal[9];
    size_t n_legal = m->exists ? kd_ttt_legal_moves(&m->st, legal) : 0;
    uint32_t kind = et_below(&w->rng, 10);
    if (n_legal && kind < 7) {
        const kd_ttt_cell *c = &legal[et_below(&w->rng, (uint32_t)n_legal)];
        mv.row = c->row;
        mv.col = c->col;
        mv.player = m->st.turn == KD_TTT_X ? 0 : 1;
        key = m->keys[mv.player];
    } else if (m->exists) {
        mv.player = m->st.turn == KD_TTT_X ? 0 : 1;
        switch (kind % 5) {
        case 0: /* stale or future counter */
            counter = m->counter + 1 + et_below(&w->rng, 3);
            if (et_below(&w->rng, 2) && m->counter > 0)
                counter = m->counter - 1;
            key = m->keys[mv.player];
            break;
        case 1: /* unsigned */
            key = -1;
            break;
        case 2: /* another signer (may be the same key when one holder plays both) */
            key = m->keys[1 - mv.player];
            break;
        case 3: /* the other side's player with its own key */
            mv.player = (uint8_t)(1 - mv.player);
            key = m->keys[mv.player];
            break;
        default: /* any cell, maybe out of bounds or occupied */
            key = m->keys[mv.player];
            break;
        }
    }
    kd_buf cmd, payload;
    kd_buf_init(&cmd);
    kd_buf_init(&payload);
    ET_ASSERT_OK(kd_ttt_move_encode((uint8_t)mv.row, (uint8_t)mv.col, mv.player, &cmd));
    if (key >= 0)
        ET_ASSERT_OK(kd_wire_signed_command(id, cmd.data, cmd.len, &w->keys[key], counter, &payload));
    else
        ET_ASSERT_OK(kd_wire_unsigned_command(id, cmd.data, cmd.len, &payload));
    et_add_raw(t, payload.data, payload.len);
    const char *want = predict_move(w, id, counter, key, &mv);
    if (key >= 0)
        remember(w, &payload, id, counter, key, &mv);
    kd_buf_fini(&cmd);
    kd_buf_fini(&payload);
    return want;
}

/* Adds one creation to `t`; returns the predicted verdict's short code. */
static const char *gen_create(walk *w, et_txs *t)
{
    uint32_t id = 1 + et_below(&w->rng, N_EPISODES);
    int cap = (int)et_below(&w->rng, 11) - 1; /* -1: no params, 0: default, 1..8, 9: classic */
    int kx = (int)et_below(&w->rng, N_KEYS), ko = (int)et_below(&w->rng, N_KEYS);
    kd_key keys[2] = {w->keys[kx], w->keys[ko]};
    kd_participants parts = {.count = 2};
    parts.keys[0] = keys[0].pub;
    parts.keys[1] = keys[1].pub;
    kd_buf params;
    kd_buf_init(&params);
    if (cap >= 0)
        ET_ASSERT_OK(kd_ttt_params_encode((uint32_t)cap, &params));
    et_add_create_signed(t, id, KD_TTT_TYPE_NAME, keys, 2, params.data, params.len);
    kd_buf_fini(&params);
    model_ep *m = &w->model[id];
    if (m->exists)
        return kd_err_code(KD_ERR_EPISODE_EXISTS);
    memset(m, 0, sizeof *m);
    uint8_t state_cap = kd_ttt_cap_resolve(cap < 0 ? 0 : (uint32_t)cap, &w->cfg);
    ET_ASSERT_OK(kd_ttt_state_init(&m->st, &parts, state_cap, NULL));
    m->exists = 1;
    m->keys[0] = kx;
    m->keys[1] = ko;
    return "";
}

static void fingerprint_expect(walk *w, const uint8_t want[KD_HASH_LEN], const char *what)
{
    uint8_t got[KD_HASH_LEN];
    et_fingerprint(live.engine, got);
    cr_assert(memcmp(got, want, KD_HASH_LEN) == 0, "step %u (seed printed above): %s: fingerprint differs", w->step,
              what);
}

/* Brings the oracle to exactly the canonical chain: after a reorg it is
 * rebuilt from an empty store (it never sees a revert). */
static void oracle_sync(walk *w)
{
    if (w->oracle_len == w->n)
        return;
    et_env_fini(&oracle);
    et_env_open_relaxed(&oracle, w->cfg.default_cap, 0);
    for (size_t i = 0; i < w->n; i++) {
        kd_msg_result res;
        et_ingest(oracle.engine, &w->chain[i], &res);
        cr_assert_eq(res.status, KD_MSG_APPLIED);
        kd_msg_result_fini(&res);
    }
    w->oracle_len = w->n;
}

static void step_accept(walk *w)
{
    char name[32];
    snprintf(name, sizeof name, "blk-%u", w->step);
    model_load(w);
    et_txs t;
    et_txs_init(&t);
    const char *want[8];
    /* Empty blocks and blocks whose txs are all rejected are included on
     * purpose (a regression: see the empty-block note in engine_test.c). */
    size_t n_tx = et_below(&w->rng, 7);
    for (size_t i = 0; i < n_tx; i++) {
        uint32_t r = et_below(&w->rng, 20);
        if (r < 4) {
            want[i] = gen_create(w, &t);
        } else if (r == 4) {
            static const uint8_t junk[] = {0x08, 0x01, 0x12, 0x7f};
            et_add_raw(&t, junk, sizeof junk);
            want[i] = kd_err_code(KD_ERR_DECODE);
        } else {
            want[i] = gen_move(w, &t);
        }
    }
    cr_assert_lt(w->n, MAX_CHAIN);
    kd_buf *msg = &w->chain[w->n];
    kd_buf_init(msg);
    et_accept_msg(name, &t, msg);
    kd_msg_result res;
    et_ingest(live.engine, msg, &res);
    cr_assert_eq(res.status, KD_MSG_APPLIED, "step %u: accept: %s", w->step, res.detail);
    cr_assert_eq(res.tx_count, n_tx);
    for (size_t i = 0; i < n_tx; i++) {
        cr_assert_str_eq(res.txs[i].code, want[i], "step %u tx %zu: got %s, model says %s (%s)", w->step, i,
                         res.txs[i].code, want[i], res.txs[i].detail);
        cr_assert_eq(res.txs[i].applied, !want[i][0], "step %u tx %zu", w->step, i);
        if (res.txs[i].applied)
            w->applied_txs++;
        else
            w->rejected_txs++;
    }
    kd_msg_result_fini(&res);
    model_check(w);

    oracle_sync(w); /* to the chain before this block */
    et_ingest(oracle.engine, msg, &res);
    cr_assert_eq(res.status, KD_MSG_APPLIED);
    kd_msg_result_fini(&res);
    w->n++;
    w->oracle_len = w->n;
    w->accepts++;
    et_fingerprint(oracle.engine, w->fp[w->n]);
    fingerprint_expect(w, w->fp[w->n], "after accept");
    et_txs_fini(&t);
}

static void step_revert(walk *w)
{
    uint8_t hash[KD_HASH_LEN];
    kd_tip tip;
    et_tip(live.engine, &tip);
    cr_assert(tip.has_tip);
    kd_buf msg;
    kd_buf_init(&msg);
    memcpy(hash, tip.hash, KD_HASH_LEN);
    ET_ASSERT_OK(kd_wire_revert(hash, &msg));
    kd_msg_result res;
    et_ingest(live.engine, &msg, &res);
    cr_assert_eq(res.status, KD_MSG_APPLIED, "step %u: revert: %s", w->step, res.detail);
    kd_msg_result_fini(&res);
    kd_buf_fini(&msg);
    kd_buf_fini(&w->chain[--w->n]);
    w->reverts++;
    fingerprint_expect(w, w->fp[w->n], "after revert");
}

/* Re-delivers a canonical block, or asks to revert one below the tip:
 * both change nothing. */
static void step_noise(walk *w)
{
    size_t i = et_below(&w->rng, (uint32_t)w->n);
    kd_msg_result res;
    if (et_below(&w->rng, 2) || i + 1 == w->n) {
        et_ingest(live.engine, &w->chain[i], &res);
        cr_assert_eq(res.status, KD_MSG_DUPLICATE, "step %u: re-delivery", w->step);
    } else {
        uint8_t hash[KD_HASH_LEN];
        Kdapp__EngineMsg *m = kdapp__engine_msg__unpack(NULL, w->chain[i].len, w->chain[i].data);
        cr_assert_not_null(m);
        memcpy(hash, m->accepted->accepting_hash.data, KD_HASH_LEN);
        kdapp__engine_msg__free_unpacked(m, NULL);
        kd_buf msg;
        kd_buf_init(&msg);
        ET_ASSERT_OK(kd_wire_revert(hash, &msg));
        et_ingest(live.engine, &msg, &res);
        cr_assert_eq(res.status, KD_MSG_REFUSED, "step %u: revert below the tip", w->step);
        cr_assert_eq(res.err, KD_ERR_NOT_TIP, "step %u: %s", w->step, kd_err_code(res.err));
        kd_buf_fini(&msg);
    }
    kd_msg_result_fini(&res);
    fingerprint_expect(w, w->fp[w->n], "after a no-op message");
}

Test(engine_property, random_blocks_and_reorgs_match_the_canonical_chain_oracle)
{
    static walk w;
    memset(&w, 0, sizeof w);
    w.rng = et_seed("engine_property", 20240611);
    w.cfg.default_cap = (uint8_t)(w.rng % 2 ? 0 : 6); /* either default, from the seed */
    static const char *const names[N_KEYS] = {"k0", "k1", "k2"};
    for (int i = 0; i < N_KEYS; i++)
        w.keys[i] = et_key(names[i]);
    w.chain = calloc(MAX_CHAIN, sizeof *w.chain);
    w.fp = calloc(MAX_CHAIN + 1, sizeof *w.fp);
    cr_assert(w.chain && w.fp);
    et_env_open_relaxed(&live, w.cfg.default_cap, 0);
    et_env_open_relaxed(&oracle, w.cfg.default_cap, 0);
    et_fingerprint(oracle.engine, w.fp[0]);
    fingerprint_expect(&w, w.fp[0], "empty stores");

    for (w.step = 1; w.step <= STEPS; w.step++) {
        /* Reorgs of depth 1..4 become likelier as the chain grows, which
         * keeps it near a dozen blocks and the oracle's rebuilds short. */
        if (w.n && et_below(&w.rng, 100) < 8) {
            step_noise(&w);
        } else if (w.n && et_below(&w.rng, (uint32_t)(2 * (w.n + 12))) < w.n) {
            for (uint32_t d = 1 + et_below(&w.rng, 4); d > 0 && w.n > 0 && w.step <= STEPS; d--, w.step++)
                step_revert(&w);
            w.step--;
        } else
            step_accept(&w);
    }
    cr_log_info("engine_property: %u accepts, %u reverts, %u txs applied, %u rejected, %u evictions predicted",
                w.accepts, w.reverts, w.applied_txs, w.rejected_txs, w.evictions);
    cr_expect_gt(w.reverts, STEPS / 10, "the walk exercised reorgs");
    cr_expect_gt(w.applied_txs, STEPS / 2, "the walk applied transactions");
    cr_expect_gt(w.rejected_txs, STEPS / 4, "the walk exercised rejections");
    cr_expect_gt(w.evictions, 10, "the walk exercised stress-mode evictions");

    /* The whole log, reverts included, replays to the same store. */
    et_env_open_relaxed(&replica, (uint8_t)(6 - w.cfg.default_cap), 0);
    kd_tip tip;
    et_tip(live.engine, &tip);
    for (uint64_t seq = 1; seq <= tip.last_seq; seq++) {
        kd_buf raw;
        kd_buf_init(&raw);
        et_log_raw(live.engine, seq, &raw);
        kd_msg_result res;
        ET_ASSERT_OK(kd_engine_replay_entry(replica.engine, raw.data, raw.len, &res));
        kd_msg_result_fini(&res);
        kd_buf_fini(&raw);
    }
    uint8_t a[KD_HASH_LEN], b[KD_HASH_LEN];
    et_fingerprint(live.engine, a);
    et_fingerprint(replica.engine, b);
    et_expect_hash_eq(a, b, "log replay under the other default");

    for (size_t i = 0; i < w.n; i++)
        kd_buf_fini(&w.chain[i]);
    for (size_t i = 0; i < w.n_old; i++)
        kd_buf_fini(&w.old[i].payload);
    free(w.chain);
    free(w.fp);
}
