/*
 * bench_scale_grow.c — growing a store for `kdapp bench --scale`
 * (bench_scale_int.h), and the probe blocks measured on it.
 *
 * The store grows the way a busy chain fills it, only faster: blocks of
 * one transaction per lane (1,000 lanes: blocks of about 1,000 txs, one
 * synced commit each). A lane plays one episode: its creation, then one
 * signed random legal move per block (the type's random_command, with the
 * seat's test key) until it has made KD_SCALE_MOVES_PER_EP moves or its game
 * ended; then the lane creates the next episode. The kinds of episode
 * rotate over the types of the table the bench plays alone
 * (kd_bench_type_playable), so the store holds every kind mixed.
 *
 * Per block, on the two cores:
 *
 *   this thread    moves chosen (random_command, execute on a copy)
 *   both threads   digests signed (libsecp256k1), payloads encoded
 *   engine writer  kd_engine_ingest of the block, its signatures verified
 *   + sig pool     by the engine's verifier pool (engine/sigcheck.h) as the
 *                  daemon does, the writer helping
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/netutil.h"
#include "engine/wire.h"
#include "tools/bench/bench_episode.h"
#include "tools/bench/bench_scale_int.h"

struct kd_scale_lane {
    uint32_t id; /* 0: no episode yet */
    const kd_episode_type *type;
    uint8_t *state;
    uint64_t counter;
    int key[2];
    size_t seats;
    unsigned moves;
    int done; /* its quota played or its game over: the next block replaces it */
};

/* Every type of the table the bench plays alone (kd_bench_type_playable),
 * with its engine defaults. */
static kd_err add_variants(kd_scale_store *s, size_t *max_state, char *why, size_t why_len)
{
    for (size_t i = 0; i < s->b->types->count && s->n_var < KD_SCALE_VARIANTS_MAX; i++) {
        const kd_episode_type *t = s->b->types->entries[i].type;
        if (!kd_bench_type_playable(t) || kd_bench_seats(t) > 2)
            continue;
        kd_scale_variant *v = &s->var[s->n_var];
        kd_buf_init(&v->params);
        kd_err err = t->params_from_json(NULL, &v->params, why, why_len);
        if (err)
            return err;
        v->type = t;
        s->n_var++;
        if (t->ops->state_size > *max_state)
            *max_state = t->ops->state_size;
    }
    if (!s->n_var) {
        snprintf(why, why_len, "no type the bench can play alone is in the type table");
        return KD_ERR_NOT_FOUND;
    }
    return KD_OK;
}

kd_err kd_scale_engine_open(kd_scale_store *s, const char *dir, int read_only, kd_engine **out, char *why,
                            size_t why_len)
{
    kd_engine_options o = {.data_dir = dir,
                           .registry = &s->reg,
                           .finality_depth = s->finality,
                           .read_only = read_only,
                           .chain = KD_BENCH_CHAIN};
    return kd_engine_open(&o, out, why, why_len);
}

kd_err kd_scale_store_open(const kd_bench_ctx *b, kd_scale_store *s, const char *dir, const char *tag, size_t lanes,
                           uint64_t finality, char *why, size_t why_len)
{
    memset(s, 0, sizeof *s);
    s->b = b;
    s->finality = finality;
    s->n_lanes = lanes;
    s->rng = 0x5CA1AB1E0DDBA11ULL;
    snprintf(s->dir, sizeof s->dir, "%s", dir);
    snprintf(s->tag, sizeof s->tag, "%s", tag);
    size_t max_state = 0, max_undo = 1;
    kd_err err = KD_OK;
    for (int i = 0; i < KD_SCALE_KEYS && !err; i++) {
        char name[16];
        snprintf(name, sizeof name, "scale%d", i);
        err = kd_key_test(name, &s->keys[i]);
    }
    kd_registry_init(&s->reg);
    if (err || (err = kd_type_table_registry(b->types, &s->reg)) || (err = add_variants(s, &max_state, why, why_len)))
        goto fail;
    for (size_t i = 0; i < s->n_var; i++)
        if (s->var[i].type->ops->undo_size > max_undo)
            max_undo = s->var[i].type->ops->undo_size;
    s->stride = kd_record_stride(max_state);
    s->lanes = calloc(lanes, sizeof *s->lanes);
    s->states = calloc(lanes, s->stride);
    s->undo = calloc(1, max_undo);
    if (!s->lanes || !s->states || !s->undo) {
        err = KD_ERR_NOMEM;
        goto fail;
    }
    for (size_t i = 0; i < lanes; i++) {
        s->lanes[i].state = s->states + i * s->stride;
        s->lanes[i].done = 1;
    }
    if ((err = kd_sig_pool_alloc(0, &s->pool)) || (err = kd_scale_store_attach(s, why, why_len)))
        goto fail;
    return KD_OK;
fail:
    kd_scale_store_close(s);
    return err;
}

void kd_scale_store_detach(kd_scale_store *s)
{
    kd_engine_close(s->engine);
    s->engine = NULL;
}

kd_err kd_scale_store_attach(kd_scale_store *s, char *why, size_t why_len)
{
    return s->engine ? KD_OK : kd_scale_engine_open(s, s->dir, 0, &s->engine, why, why_len);
}

void kd_scale_store_close(kd_scale_store *s)
{
    kd_scale_store_detach(s);
    kd_sig_pool_free(s->pool);
    for (size_t i = 0; i < s->n_var; i++)
        kd_buf_fini(&s->var[i].params);
    free(s->lanes);
    free(s->states);
    free(s->undo);
    memset(s, 0, sizeof *s);
}

/* ------------------------------------------------------------- the growth */

/* A move chosen for a block, signed later on either thread. */
typedef struct {
    uint32_t id;
    uint64_t counter;
    const kd_key *key;
    kd_buf cmd;
    kd_buf *payload;
    kd_sig_job *job;
} pending_move;

typedef struct {
    pending_move *moves;
    size_t from, to;
    kd_err err;
} sign_slice;

static kd_err sign_move(pending_move *m)
{
    kd_sig_job *j = m->job;
    uint8_t sig[KD_SIG_COMPACT_LEN];
    kd_command_digest(m->id, m->counter, m->cmd.data, m->cmd.len, j->digest);
    kd_err err = kd_key_sign(m->key, j->digest, sig);
    if (!err)
        err = kd_wire_presigned_command(m->id, m->cmd.data, m->cmd.len, &m->key->pub, sig, sizeof sig, m->payload);
    j->pubkey = m->key->pub;
    memcpy(j->sig, sig, sizeof sig);
    j->sig_len = sizeof sig;
    atomic_store(&j->state, 0);
    return err;
}

static void *sign_run(void *arg)
{
    sign_slice *sl = arg;
    for (size_t i = sl->from; i < sl->to && !sl->err; i++)
        sl->err = sign_move(&sl->moves[i]);
    return NULL;
}

/* Signs moves[0..n) on this thread and one more. */
static kd_err sign_all(pending_move *moves, size_t n)
{
    sign_slice a = {moves, 0, n / 2, KD_OK}, c = {moves, n / 2, n, KD_OK};
    pthread_t th;
    int started = pthread_create(&th, NULL, sign_run, &c) == 0;
    sign_run(&a);
    if (started)
        pthread_join(th, NULL);
    else
        sign_run(&c);
    return a.err ? a.err : c.err;
}

/* Slot `sl` starts episode s->episodes + 1 of the next kind; its creation payload goes to `payload`. */
static kd_err lane_create(kd_scale_store *s, kd_scale_lane *sl, kd_buf *payload)
{
    const kd_scale_variant *v = &s->var[s->episodes % s->n_var];
    uint32_t id = ++s->episodes;
    *sl = (kd_scale_lane){.id = id, .type = v->type, .state = sl->state};
    sl->seats = kd_bench_seats(v->type);
    kd_key seats[KD_MAX_PARTICIPANTS];
    memset(seats, 0, sizeof seats);
    int first = (int)(kd_type_rng_next(&s->rng) % KD_SCALE_KEYS);
    for (size_t i = 0; i < sl->seats && i < 2; i++) {
        sl->key[i] = (first + (int)i) % KD_SCALE_KEYS;
        seats[i] = s->keys[sl->key[i]];
    }
    memset(sl->state, 0, s->stride);
    kd_err err = kd_bench_episode_create(s->b->types, v->type, &v->params, id, seats, sl->seats, KD_BENCH_CHAIN,
                                         sl->state, payload);
    return err;
}

/* Chooses lane `sl`'s next move into `m` (applied to the lane's copy);
 * KD_ERR_NO_MOVE when its game is over. */
static kd_err lane_move(kd_scale_store *s, kd_scale_lane *sl, pending_move *m)
{
    const kd_episode_type *t = sl->type;
    kd_game_status st = t->status(sl->state);
    if (st.phase != KD_PHASE_IN_PROGRESS || sl->moves >= KD_SCALE_MOVES_PER_EP)
        return KD_ERR_NO_MOVE;
    int seat = st.to_move != KD_SEAT_NONE ? st.to_move : (int)(kd_type_rng_next(&s->rng) % sl->seats);
    m->cmd.len = 0;
    kd_err err = t->random_command(sl->state, seat, 1, &s->rng, &m->cmd);
    if (err)
        return err;
    uint8_t zero[KD_HASH_LEN] = {0};
    kd_block_meta meta = {.block_hash = zero, .tx_id = zero, .episode_id = sl->id};
    kd_reject rej;
    m->id = sl->id;
    m->counter = sl->counter;
    m->key = &s->keys[sl->key[seat < 2 ? seat : 0]];
    if ((err = t->ops->execute(sl->state, m->cmd.data, m->cmd.len, &m->key->pub, &meta, s->undo, &rej)))
        return err;
    sl->counter++;
    sl->moves++;
    return KD_OK;
}

/* Applies `accept`, with the jobs' signatures verified by the pool. */
static kd_err ingest_block(kd_scale_store *s, const kd_buf *accept, kd_sig_job *jobs, size_t n_jobs, char *why,
                           size_t why_len)
{
    kd_sig_batch *batch = kd_sig_pool_start(s->pool, jobs, n_jobs);
    kd_engine_use_sig_batch(s->engine, batch);
    kd_msg_result r;
    kd_msg_result_init(&r);
    kd_err err = kd_engine_ingest(s->engine, accept->data, accept->len, &r);
    kd_engine_use_sig_batch(s->engine, NULL);
    kd_sig_pool_finish(s->pool, batch);
    if (!err && r.status != KD_MSG_APPLIED)
        err = KD_ERR_INTERNAL, snprintf(why, why_len, "a growth block was not applied: %s", r.detail);
    for (size_t i = 0; !err && i < r.tx_count; i++)
        if (!r.txs[i].applied)
            err = KD_ERR_INTERNAL, snprintf(why, why_len, "a growth tx of episode %u was rejected: %s %s",
                                            r.txs[i].episode_id, r.txs[i].code, r.txs[i].detail);
    s->txs += err ? 0 : r.tx_count;
    kd_msg_result_fini(&r);
    return err;
}

/* One block: a tx per lane (a creation or a move). */
static kd_err grow_block(kd_scale_store *s, uint32_t target, kd_buf *payloads, pending_move *moves, kd_sig_job *jobs,
                         kd_wire_tx *txs, char *why, size_t why_len)
{
    size_t n_tx = 0, n_moves = 0;
    kd_err err = KD_OK;
    for (size_t i = 0; i < s->n_lanes && !err; i++) {
        kd_scale_lane *sl = &s->lanes[i];
        payloads[n_tx].len = 0;
        if (!sl->done) {
            pending_move *m = &moves[n_moves];
            err = lane_move(s, sl, m);
            if (!err) {
                m->payload = &payloads[n_tx++];
                m->job = &jobs[n_moves++];
                continue;
            }
            if (err != KD_ERR_NO_MOVE)
                break;
            err = KD_OK;
            sl->done = 1;
        }
        if (s->episodes < target && !(err = lane_create(s, sl, &payloads[n_tx])))
            n_tx++;
    }
    if (!err && n_moves)
        err = sign_all(moves, n_moves);
    for (size_t i = 0; i < n_tx && !err; i++) {
        char text[96];
        int n = snprintf(text, sizeof text, "scale/%s/tx/%llu/%zu", s->tag, (unsigned long long)s->blocks, i);
        kd_sha256(text, (size_t)n, txs[i].tx_id);
        txs[i].payload = payloads[i].data;
        txs[i].payload_len = payloads[i].len;
    }
    if (err || !n_tx)
        return err;
    uint8_t hash[KD_HASH_LEN];
    char text[64];
    int n = snprintf(text, sizeof text, "scale/%s/block/%llu", s->tag, (unsigned long long)s->blocks);
    kd_sha256(text, (size_t)n, hash);
    kd_buf accept;
    kd_buf_init(&accept);
    if (!(err = kd_wire_accept(hash, s->blocks + 1, kd_wall_ms(), txs, n_tx, &accept)) &&
        !(err = ingest_block(s, &accept, jobs, n_moves, why, why_len)))
        s->blocks++;
    kd_buf_fini(&accept);
    return err;
}

/* 1 while a lane's episode has moves left to play. */
static int playing(const kd_scale_store *s)
{
    for (size_t i = 0; i < s->n_lanes; i++)
        if (!s->lanes[i].done)
            return 1;
    return 0;
}

kd_err kd_scale_store_grow(kd_scale_store *s, uint32_t episodes, char *why, size_t why_len)
{
    size_t n = s->n_lanes;
    kd_buf *payloads = calloc(n, sizeof *payloads);
    pending_move *moves = calloc(n, sizeof *moves);
    kd_sig_job *jobs = calloc(n, sizeof *jobs);
    kd_wire_tx *txs = calloc(n, sizeof *txs);
    kd_err err = payloads && moves && jobs && txs ? KD_OK : KD_ERR_NOMEM;
    for (size_t i = 0; i < n && payloads && moves; i++)
        kd_buf_init(&payloads[i]), kd_buf_init(&moves[i].cmd);
    if (!err)
        err = kd_scale_store_attach(s, why, why_len);
    while (!err && (s->episodes < episodes || playing(s)))
        err = grow_block(s, episodes, payloads, moves, jobs, txs, why, why_len);
    for (size_t i = 0; i < n && payloads && moves; i++)
        kd_buf_fini(&payloads[i]), kd_buf_fini(&moves[i].cmd);
    free(payloads);
    free(moves);
    free(jobs);
    free(txs);
    if (err && !*why)
        snprintf(why, why_len, "growing the store: %s", kd_err_str(err));
    return err;
}

/* ------------------------------------------------------------- the probes */

void kd_scale_probe_fini(kd_scale_probe *p)
{
    kd_buf_fini(&p->accept);
    kd_buf_fini(&p->revert);
    free(p->ids);
    free(p->jobs);
    memset(p, 0, sizeof *p);
}

static int key_of(const kd_scale_store *s, const kd_pubkey *pub)
{
    for (int i = 0; i < KD_SCALE_KEYS; i++)
        if (memcmp(s->keys[i].pub.bytes, pub->bytes, KD_PUBKEY_LEN) == 0)
            return i;
    return -1;
}

static int taken(const uint32_t *ids, size_t n, uint32_t id)
{
    for (size_t i = 0; i < n; i++)
        if (ids[i] == id)
            return 1;
    return 0;
}

/* A signed move on episode `id` if it is in progress (1), 0 if not. */
static int probe_move(kd_scale_store *s, kd_engine *engine, uint32_t id, uint64_t *rng, pending_move *m, kd_err *err)
{
    kd_episode_snapshot snap;
    if (kd_engine_episode_read(engine, id, &snap) != KD_OK)
        return 0;
    const kd_episode_type *t = kd_type_table_find(s->b->types, snap.ops->type_name);
    kd_game_status st = t ? t->status(snap.state) : (kd_game_status){.phase = KD_PHASE_DRAW};
    int seat = st.to_move != KD_SEAT_NONE ? st.to_move : 0, k = -1, ok = 0;
    if (st.phase == KD_PHASE_IN_PROGRESS && (size_t)seat < snap.participants.count)
        k = key_of(s, &snap.participants.keys[seat]);
    m->cmd.len = 0;
    if (k >= 0 && t->random_command(snap.state, seat, 1, rng, &m->cmd) == KD_OK) {
        m->id = id;
        m->counter = snap.undo_depth;
        m->key = &s->keys[k];
        *err = sign_move(m);
        ok = !*err;
    }
    kd_episode_snapshot_fini(&snap);
    return ok;
}

kd_err kd_scale_probe_make(kd_scale_store *s, kd_engine *engine, uint32_t first, uint32_t last, size_t moves,
                           uint64_t seed, kd_scale_probe *p)
{
    memset(p, 0, sizeof *p);
    kd_buf_init(&p->accept);
    kd_buf_init(&p->revert);
    p->ids = calloc(moves, sizeof *p->ids);
    p->jobs = calloc(moves, sizeof *p->jobs);
    kd_buf *payloads = calloc(moves, sizeof *payloads);
    kd_wire_tx *txs = calloc(moves, sizeof *txs);
    pending_move m = {0};
    kd_buf_init(&m.cmd);
    kd_err err = p->ids && p->jobs && payloads && txs ? KD_OK : KD_ERR_NOMEM;
    for (size_t i = 0; payloads && i < moves; i++)
        kd_buf_init(&payloads[i]);
    uint64_t rng = seed;
    for (size_t tries = 0; !err && p->moves < moves && tries < moves * 50; tries++) {
        uint32_t id = first + (uint32_t)(kd_type_rng_next(&rng) % (last - first + 1));
        if (taken(p->ids, p->moves, id))
            continue;
        payloads[p->moves].len = 0;
        m.payload = &payloads[p->moves];
        m.job = &p->jobs[p->moves];
        if (!probe_move(s, engine, id, &rng, &m, &err))
            continue;
        m.job->verdict = kd_sig_verify(&m.job->pubkey, m.job->digest, m.job->sig, m.job->sig_len);
        atomic_store(&m.job->state, 2); /* verified ahead, as the daemon's pool does */
        char text[64];
        int n = snprintf(text, sizeof text, "scale/%s/probe/%llx/%zu", s->tag, (unsigned long long)seed, p->moves);
        kd_sha256(text, (size_t)n, txs[p->moves].tx_id);
        txs[p->moves].payload = payloads[p->moves].data;
        txs[p->moves].payload_len = payloads[p->moves].len;
        p->ids[p->moves++] = id;
    }
    if (!err && !p->moves)
        err = KD_ERR_NOT_FOUND;
    uint8_t hash[KD_HASH_LEN];
    char text[64];
    int n = snprintf(text, sizeof text, "scale/%s/probe-block/%llx", s->tag, (unsigned long long)seed);
    kd_sha256(text, (size_t)n, hash);
    kd_tip tip;
    if (!err && !(err = kd_engine_tip(engine, &tip)))
        err = kd_wire_accept(hash, tip.height + 1, kd_wall_ms(), txs, p->moves, &p->accept);
    if (!err)
        err = kd_wire_revert(hash, &p->revert);
    for (size_t i = 0; payloads && i < moves; i++)
        kd_buf_fini(&payloads[i]);
    kd_buf_fini(&m.cmd);
    free(payloads);
    free(txs);
    if (err)
        kd_scale_probe_fini(p);
    return err;
}
