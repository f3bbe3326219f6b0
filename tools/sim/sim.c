/* sim.c — the chain simulator (see sim.h). */
#include "tools/sim/sim.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "engine/crypto.h"
#include "engine/netutil.h"
#include "engine/wire.h"
#include "tools/chain/ingest_client.h"
#include "tools/sim/replay.h"
#include "tools/sim/sim_gen.h"
#include "tools/sim/sim_model.h"
#include "tools/sim/sim_report.h"

#define MAX_BLOCK_TXS 6
#define REVERTED_POOL 64

typedef struct {
    uint8_t tx_id[KD_HASH_LEN];
    kd_buf payload;
} sim_tx;

typedef struct {
    uint8_t hash[KD_HASH_LEN];
    uint64_t daa, time_ms;
    sim_tx *txs;
    size_t n_txs;
    kd_buf msg; /* the encoded accept, for duplicate delivery */
} sim_block;

typedef struct {
    const kd_sim_options *o;
    kd_sim_summary *sum;
    FILE *out;
    uint64_t rng;
    kd_registry registry;
    kd_sim_gen gen; /* the transactions, for every type of o->types */
    /* session */
    kd_engine *engine;        /* local mode */
    kd_ingest_client *client; /* remote mode */
    kd_model *model;
    char session_dir[4096];
    sim_block *chain; /* mirrors the model's chain */
    size_t n_chain, cap_chain;
    uint8_t reverted[REVERTED_POOL][KD_HASH_LEN];
    size_t n_reverted;
    uint64_t nonce, daa;
    json_t *repro; /* this session's events, as block-script lines */
    int failed;
} sim;

/* ------------------------------------------------------------------ rng */

static uint64_t rnd(sim *s)
{
    /* xorshift64* */
    s->rng ^= s->rng >> 12;
    s->rng ^= s->rng << 25;
    s->rng ^= s->rng >> 27;
    return s->rng * 0x2545F4914F6CDD1DULL;
}

static uint32_t rnd_below(sim *s, uint32_t n) { return n ? (uint32_t)(rnd(s) % n) : 0; }

static double rnd_unit(sim *s) { return (double)(rnd(s) >> 11) / (double)(1ULL << 53); }

static void fresh_hash(sim *s, const char *tag, uint8_t out[KD_HASH_LEN])
{
    char text[96];
    int n = snprintf(text, sizeof text, "kdapp-sim/%s/%llu/%llu", tag, (unsigned long long)s->o->seed,
                     (unsigned long long)++s->nonce);
    kd_sha256(text, (size_t)n, out);
}

/* ------------------------------------------------------------- blocks */

static void block_fini(sim_block *b)
{
    for (size_t i = 0; i < b->n_txs; i++)
        kd_buf_fini(&b->txs[i].payload);
    free(b->txs);
    kd_buf_fini(&b->msg);
    memset(b, 0, sizeof *b);
}

static void chain_clear(sim *s)
{
    for (size_t i = 0; i < s->n_chain; i++)
        block_fini(&s->chain[i]);
    s->n_chain = 0;
}

static kd_err add_tx(sim_block *b, const uint8_t tx_id[KD_HASH_LEN], const kd_buf *payload)
{
    sim_tx *p = realloc(b->txs, (b->n_txs + 1) * sizeof *p);
    if (!p)
        return KD_ERR_NOMEM;
    b->txs = p;
    sim_tx *t = &b->txs[b->n_txs];
    memcpy(t->tx_id, tx_id, KD_HASH_LEN);
    kd_buf_init(&t->payload);
    kd_err err = kd_buf_append(&t->payload, payload->data, payload->len);
    if (!err)
        b->n_txs++;
    return err;
}

/* ------------------------------------------------------- reproduction */

/* The block's txs as kd_wire_tx (pointing into `b`); free the array. */
static kd_err block_wire_txs(const sim_block *b, kd_wire_tx **out)
{
    kd_wire_tx *txs = calloc(b->n_txs ? b->n_txs : 1, sizeof *txs);
    if (!txs)
        return KD_ERR_NOMEM;
    for (size_t i = 0; i < b->n_txs; i++) {
        memcpy(txs[i].tx_id, b->txs[i].tx_id, KD_HASH_LEN);
        txs[i].payload = b->txs[i].payload.data;
        txs[i].payload_len = b->txs[i].payload.len;
    }
    *out = txs;
    return KD_OK;
}

/* Records a (re-)delivery of block `b` in the reproduction script. */
static kd_err repro_accept(sim *s, const sim_block *b)
{
    kd_wire_tx *txs;
    kd_err err = block_wire_txs(b, &txs);
    if (err)
        return err;
    kd_sim_repro_accept(s->repro, b->hash, b->daa, b->time_ms, txs, b->n_txs);
    free(txs);
    return KD_OK;
}

static void repro_revert(sim *s, const uint8_t hash[KD_HASH_LEN]) { kd_sim_repro_revert(s->repro, hash); }

static void write_repro(sim *s, uint64_t step) { kd_sim_repro_write(s->repro, s->o, step, s->out); }

/* -------------------------------------------------------------- ingest */

static kd_err live_ingest(sim *s, const kd_buf *msg, kd_msg_result *res, kd_tip *tip)
{
    if (s->engine) {
        kd_err err = kd_engine_ingest(s->engine, msg->data, msg->len, res);
        return err ? err : kd_engine_tip(s->engine, tip);
    }
    kd_ingest_reply reply;
    kd_err err = kd_ingest_client_send(s->client, msg, 1, &reply);
    if (err)
        return err;
    if (reply.chain[0]) /* the daemon's store: what its creations' consents sign */
        snprintf(s->gen.chain, sizeof s->gen.chain, "%s", reply.chain);
    if (reply.err || reply.count != 1) {
        fprintf(s->out, "sim: the daemon answered %s: %s\n", kd_err_code(reply.err), reply.detail);
        kd_ingest_reply_fini(&reply);
        return KD_ERR_NET;
    }
    *res = reply.results[0];
    memset(&reply.results[0], 0, sizeof reply.results[0]);
    *tip = reply.tip;
    kd_ingest_reply_fini(&reply);
    return KD_OK;
}

static const char *status_name(kd_msg_status st)
{
    return st == KD_MSG_APPLIED ? "applied" : st == KD_MSG_DUPLICATE ? "duplicate" : "refused";
}

/* Sends one event to the engine and the model and compares them. */
static kd_err send_event(sim *s, const kd_buf *msg, kd_model_outcome *want)
{
    kd_msg_result got;
    kd_tip tip;
    kd_err err = kd_model_ingest(s->model, msg->data, msg->len, want);
    if (err)
        return err;
    kd_sim_summary *sum = s->sum;
    char why[400] = "";
    if ((err = live_ingest(s, msg, &got, &tip))) {
        if (err == KD_ERR_NET || err == KD_ERR_TIMEOUT || err == KD_ERR_CLOSED)
            return err; /* the daemon went away: environmental */
        /* The engine failed where the model reached a verdict. */
        uint64_t step = ++sum->steps;
        sum->mismatches++;
        s->failed = 1;
        fprintf(s->out, "sim: MISMATCH at step %llu (seed %llu): the engine failed: %s (%s)\n",
                (unsigned long long)step, (unsigned long long)s->o->seed, kd_err_str(err), got.detail);
        write_repro(s, step);
        kd_msg_result_fini(&got);
        return KD_OK;
    }
    uint64_t step = ++sum->steps;
    if (got.status != want->status) {
        snprintf(why, sizeof why, "engine %s (%s: %s), model %s (%s)", status_name(got.status), kd_err_code(got.err),
                 got.detail, status_name(want->status), kd_err_code(want->err));
    } else if (got.status == KD_MSG_REFUSED && got.err != want->err) {
        snprintf(why, sizeof why, "refused as %s by the engine, %s by the model", kd_err_code(got.err),
                 kd_err_code(want->err));
    } else if (got.status == KD_MSG_APPLIED && !got.reverted) {
        for (size_t i = 0; i < got.tx_count && !why[0]; i++) {
            const char *g = got.txs[i].applied ? "" : got.txs[i].code;
            if (i >= want->tx_count || strcmp(g, want->tx_code[i]) != 0)
                snprintf(why, sizeof why, "tx %zu: engine %s, model %s (%s)", i, g[0] ? g : "applied",
                         i >= want->tx_count   ? "-"
                         : want->tx_code[i][0] ? want->tx_code[i]
                                               : "applied",
                         got.txs[i].detail);
        }
    }
    uint8_t digest[KD_HASH_LEN];
    uint64_t height;
    kd_model_tip(s->model, digest, &height);
    if (!why[0] && memcmp(digest, tip.digest, KD_HASH_LEN) != 0) {
        char a[17], b[17];
        kd_hex_encode(tip.digest, 8, a);
        kd_hex_encode(digest, 8, b);
        snprintf(why, sizeof why, "digest: engine %s…, model %s…", a, b);
    }
    if (why[0]) {
        sum->mismatches++;
        s->failed = 1;
        fprintf(s->out, "sim: MISMATCH at step %llu (seed %llu): %s\n", (unsigned long long)step,
                (unsigned long long)s->o->seed, why);
        write_repro(s, step);
    }
    /* statistics */
    if (want->status == KD_MSG_DUPLICATE)
        sum->duplicates++;
    if (want->status == KD_MSG_REFUSED && (unsigned)want->err < 64) {
        sum->refusals++;
        sum->refused[want->err]++;
    }
    for (size_t i = 0; i < want->tx_count; i++)
        if (want->tx_err[i])
            kd_code_counts_add(&sum->rejections, want->tx_err[i], want->tx_code[i], 1);
    sum->moves_applied += want->moves_applied;
    sum->moves_rolled_back += want->moves_rolled_back;
    if (s->o->verbose)
        fprintf(s->out, "step %llu: %s%s height %llu\n", (unsigned long long)step, status_name(got.status),
                got.reverted ? " revert" : "", (unsigned long long)tip.height);
    kd_msg_result_fini(&got);
    return KD_OK;
}

/* ------------------------------------------------------------ generator */

static kd_err gen_tx(sim *s, kd_sim_scratch *sc, sim_block *b)
{
    kd_buf payload;
    kd_buf_init(&payload);
    kd_err err = kd_sim_gen_tx(&s->gen, sc, &payload);
    uint8_t tx_id[KD_HASH_LEN];
    fresh_hash(s, "tx", tx_id);
    if (!err)
        err = add_tx(b, tx_id, &payload);
    kd_buf_fini(&payload);
    return err;
}

/* ------------------------------------------------------------- events */

static kd_err push_chain(sim *s, sim_block *b)
{
    if (s->n_chain == s->cap_chain) {
        size_t cap = s->cap_chain ? 2 * s->cap_chain : 64;
        sim_block *p = realloc(s->chain, cap * sizeof *p);
        if (!p)
            return KD_ERR_NOMEM;
        s->chain = p;
        s->cap_chain = cap;
    }
    s->chain[s->n_chain++] = *b;
    memset(b, 0, sizeof *b);
    return KD_OK;
}

/* Sends block `b` (filled with txs); on success it joins the chain. */
static kd_err send_block(sim *s, sim_block *b)
{
    kd_wire_tx *txs;
    kd_err err = block_wire_txs(b, &txs);
    if (err)
        return err;
    fresh_hash(s, "block", b->hash);
    b->daa = ++s->daa;
    b->time_ms = b->daa * 100;
    kd_buf_init(&b->msg);
    err = kd_wire_accept(b->hash, b->daa, b->time_ms, txs, b->n_txs, &b->msg);
    if (!err)
        kd_sim_repro_accept(s->repro, b->hash, b->daa, b->time_ms, txs, b->n_txs);
    free(txs);
    if (err)
        return err;
    kd_model_outcome want;
    if ((err = send_event(s, &b->msg, &want)))
        return err;
    int applied = want.status == KD_MSG_APPLIED;
    kd_model_outcome_fini(&want);
    if (!applied)
        return KD_OK;
    s->sum->blocks++;
    return push_chain(s, b);
}

static kd_err step_new_block(sim *s)
{
    kd_sim_scratch sc;
    kd_err err = kd_sim_scratch_load(&s->gen, s->model, &sc);
    if (err)
        return err;
    sim_block b = {0};
    size_t n = 1 + rnd_below(s, MAX_BLOCK_TXS);
    for (size_t i = 0; i < n && !err; i++)
        err = gen_tx(s, &sc, &b);
    kd_sim_scratch_fini(&sc);
    if (!err)
        err = send_block(s, &b);
    block_fini(&b);
    return err;
}

static kd_err send_revert(sim *s, const uint8_t hash[KD_HASH_LEN], kd_model_outcome *want)
{
    kd_buf msg;
    kd_buf_init(&msg);
    kd_err err = kd_wire_revert(hash, &msg);
    if (!err) {
        repro_revert(s, hash);
        err = send_event(s, &msg, want);
    }
    kd_buf_fini(&msg);
    return err;
}

static uint32_t reorg_depth(sim *s)
{
    if (rnd_below(s, 100) < 8) /* deep: past the stress window, some past finality */
        return 7 + rnd_below(s, (uint32_t)s->o->finality);
    uint32_t d = 1;
    while (d < s->o->max_reorg && rnd_unit(s) < 0.45)
        d++;
    return d;
}

static kd_err step_reorg(sim *s)
{
    uint32_t depth = reorg_depth(s);
    if (depth > s->n_chain)
        depth = (uint32_t)s->n_chain;
    sim_block gone = {0}; /* the reverted txs, in chain order */
    size_t reverted = 0;
    kd_err err = KD_OK;
    for (; reverted < depth && !err; reverted++) {
        sim_block *tip = &s->chain[s->n_chain - 1];
        kd_model_outcome want;
        if ((err = send_revert(s, tip->hash, &want)))
            break;
        int ok = want.status == KD_MSG_APPLIED;
        kd_model_outcome_fini(&want);
        if (!ok) /* the finality horizon: refused, nothing changed */
            break;
        s->sum->reverts++;
        memcpy(s->reverted[s->n_reverted < REVERTED_POOL ? s->n_reverted++ : rnd_below(s, REVERTED_POOL)], tip->hash,
               KD_HASH_LEN);
        /* prepend this block's txs to `gone` (older blocks come first) */
        sim_block merged = {0};
        for (size_t i = 0; i < tip->n_txs && !err; i++)
            err = add_tx(&merged, tip->txs[i].tx_id, &tip->txs[i].payload);
        for (size_t i = 0; i < gone.n_txs && !err; i++)
            err = add_tx(&merged, gone.txs[i].tx_id, &gone.txs[i].payload);
        block_fini(&gone);
        gone = merged;
        block_fini(tip);
        s->n_chain--;
    }
    if (reverted) {
        s->sum->reorgs++;
        s->sum->reorgs_by_depth[reverted < KD_SIM_MAX_DEPTH ? reverted : KD_SIM_MAX_DEPTH]++;
    }
    /* The new branch: re-include (some dropped, maybe reordered) over 1..reverted+1 blocks. */
    if (!err && gone.n_txs > 1 && rnd_below(s, 100) < 30)
        for (size_t i = gone.n_txs - 1; i > 0; i--) {
            size_t j = rnd_below(s, (uint32_t)(i + 1));
            sim_tx t = gone.txs[i];
            gone.txs[i] = gone.txs[j];
            gone.txs[j] = t;
        }
    size_t n_blocks = 1 + rnd_below(s, (uint32_t)reverted + 1), at = 0;
    for (size_t k = 0; k < n_blocks && !err; k++) {
        sim_block b = {0};
        size_t take = k + 1 == n_blocks ? gone.n_txs - at : rnd_below(s, (uint32_t)(gone.n_txs - at + 1));
        for (size_t i = 0; i < take && !err; i++, at++)
            if (rnd_unit(s) >= s->o->p_drop)
                err = add_tx(&b, gone.txs[at].tx_id, &gone.txs[at].payload);
        if (!err && k + 1 == n_blocks && rnd_below(s, 2)) {
            kd_sim_scratch sc;
            if (!(err = kd_sim_scratch_load(&s->gen, s->model, &sc))) {
                err = gen_tx(s, &sc, &b);
                kd_sim_scratch_fini(&sc);
            }
        }
        if (!err)
            err = send_block(s, &b);
        block_fini(&b);
    }
    block_fini(&gone);
    return err;
}

static kd_err step_oddity(sim *s)
{
    kd_model_outcome want;
    kd_err err;
    uint32_t r = rnd_below(s, 4);
    if (r == 0 && s->n_chain) { /* an applied block delivered again */
        const sim_block *b = &s->chain[rnd_below(s, (uint32_t)s->n_chain)];
        err = repro_accept(s, b);
        if (err)
            return err;
        err = send_event(s, &b->msg, &want);
    } else if (r == 1 && s->n_reverted) { /* a revert delivered again */
        err = send_revert(s, s->reverted[rnd_below(s, (uint32_t)s->n_reverted)], &want);
    } else if (r == 2 && s->n_chain >= 2) { /* not the tip */
        err = send_revert(s, s->chain[rnd_below(s, (uint32_t)s->n_chain - 1)].hash, &want);
    } else { /* unknown */
        uint8_t h[KD_HASH_LEN];
        fresh_hash(s, "unknown", h);
        err = send_revert(s, h, &want);
    }
    if (!err)
        kd_model_outcome_fini(&want);
    return err;
}

/* ------------------------------------------------------------ sessions */

static void session_close(sim *s)
{
    kd_engine_close(s->engine);
    s->engine = NULL;
    kd_model_free(s->model);
    s->model = NULL;
    chain_clear(s);
    s->n_reverted = 0;
    json_decref(s->repro);
    s->repro = NULL;
    if (s->session_dir[0]) {
        if (s->o->keep)
            fprintf(s->out, "sim: session kept: %s/live\n", s->session_dir);
        else
            kd_remove_tree(s->session_dir);
        s->session_dir[0] = '\0';
    }
}

static kd_err open_engine(sim *s, const char *dir, kd_engine **out)
{
    char why[512];
    kd_engine_options eo = {
        .data_dir = dir, .registry = &s->registry, .finality_depth = s->o->finality, .chain = s->gen.chain};
    kd_err err = kd_engine_open(&eo, out, why, sizeof why);
    if (err)
        fprintf(s->out, "sim: %s\n", why);
    return err;
}

static kd_err session_open(sim *s)
{
    uint8_t genesis[KD_HASH_LEN] = {0};
    s->repro = json_array();
    if (!s->repro)
        return KD_ERR_NOMEM;
    s->sum->sessions++;
    if (s->o->connect) {
        /* A daemon has history of its own: probe its digest with a revert of
         * an unknown block (refused, changes nothing) and start there. */
        kd_buf msg;
        kd_buf_init(&msg);
        uint8_t h[KD_HASH_LEN];
        fresh_hash(s, "probe", h);
        kd_msg_result res;
        kd_tip tip;
        kd_err err = kd_wire_revert(h, &msg);
        if (!err)
            err = live_ingest(s, &msg, &res, &tip);
        kd_buf_fini(&msg);
        if (err)
            return err;
        kd_msg_result_fini(&res);
        memcpy(genesis, tip.digest, KD_HASH_LEN);
        s->gen.next_id = 0x40000000u + (uint32_t)(rnd(s) % 0x3fffffffu);
        return kd_model_alloc(&s->registry, s->o->finality, genesis, s->gen.chain, s->gen.verdicts, &s->model);
    }
    snprintf(s->session_dir, sizeof s->session_dir, "%s/kdapp-sim.XXXXXX", s->o->work_dir);
    if (!mkdtemp(s->session_dir)) {
        fprintf(s->out, "sim: cannot create a session directory under %s: %s\n", s->o->work_dir, strerror(errno));
        s->session_dir[0] = '\0';
        return KD_ERR_IO;
    }
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/live", s->session_dir);
    s->gen.next_id = 1;
    kd_err err = open_engine(s, dir, &s->engine);
    if (!err)
        err = kd_model_alloc(&s->registry, s->o->finality, genesis, s->gen.chain, s->gen.verdicts, &s->model);
    return err;
}

/* The oracle, literally: a fresh engine fed only the canonical
 * chain, and another fed the whole log, must both equal the live store. */
static kd_err session_check(sim *s)
{
    if (!s->engine)
        return KD_OK;
    const char *kinds[2] = {"canonical", "full"};
    for (int canonical = 1; canonical >= 0; canonical--) {
        char dir[4200];
        snprintf(dir, sizeof dir, "%s/oracle-%s", s->session_dir, kinds[1 - canonical]);
        kd_engine *fresh;
        kd_err err = open_engine(s, dir, &fresh);
        if (err)
            return err;
        kd_replay_report rep;
        err = kd_replay_log(s->engine, fresh, canonical, &rep);
        kd_engine_close(fresh);
        if (err)
            return err;
        s->sum->oracle_checks++;
        if (!kd_replay_ok(&rep)) {
            s->sum->mismatches++;
            s->failed = 1;
            fprintf(s->out, "sim: MISMATCH against a fresh engine fed the %s log at step %llu (seed %llu): %s%s%s\n",
                    kinds[1 - canonical], (unsigned long long)s->sum->steps, (unsigned long long)s->o->seed,
                    rep.first_bad_seq ? rep.first_bad_what : "", rep.first_bad_seq ? "; " : "",
                    rep.episodes_match ? "digest differs" : rep.episode_what);
            write_repro(s, s->sum->steps);
        }
    }
    return KD_OK;
}

/* ------------------------------------------------------------------ run */

void kd_sim_options_default(kd_sim_options *o)
{
    memset(o, 0, sizeof *o);
    o->seed = 1;
    o->steps = 10000;
    o->session_steps = 2000;
    o->finality = 24;
    o->max_reorg = 12;
    o->p_reorg = 0.10;
    o->p_drop = 0.15;
}

kd_err kd_sim_run(const kd_sim_options *o, kd_sim_summary *sum, FILE *out)
{
    sim *s = calloc(1, sizeof *s);
    if (!s)
        return KD_ERR_NOMEM;
    memset(sum, 0, sizeof *sum);
    s->o = o;
    s->sum = sum;
    s->out = out;
    s->rng = o->seed * 0x9E3779B97F4A7C15ULL + 0x632BE59BD9B4E019ULL;
    if (!s->rng)
        s->rng = 1;
    kd_registry_init(&s->registry);
    kd_err err = kd_type_table_registry(o->types, &s->registry);
    kd_err gerr = kd_sim_gen_init(&s->gen, o->types, o->type, o->seed);
    if (!err)
        err = gerr;
    if (!err)
        err = kd_sim_verdicts_alloc(&s->gen.verdicts);
    char why[256];
    if (!err && o->connect && (err = kd_ingest_client_open(o->connect, 60000, &s->client, why, sizeof why)))
        fprintf(out, "sim: %s\n", why);
    uint64_t t0 = kd_now_ms(), session_start = 0, last_report = t0;
    if (!err)
        err = session_open(s);
    while (!err && sum->steps < o->steps && !s->failed) {
        double r = rnd_unit(s);
        if (s->n_chain && r < o->p_reorg)
            err = step_reorg(s);
        else if (r < o->p_reorg + 0.08)
            err = step_oddity(s);
        else
            err = step_new_block(s);
        if (!err && !o->connect && sum->steps - session_start >= o->session_steps && sum->steps < o->steps) {
            if (!(err = session_check(s)) && !s->failed) {
                session_close(s);
                session_start = sum->steps;
                err = session_open(s);
            }
        }
        if (o->verbose && kd_now_ms() - last_report > 5000) {
            last_report = kd_now_ms();
            fprintf(out, "sim: %llu steps\n", (unsigned long long)sum->steps);
        }
    }
    if (!err && !s->failed)
        err = session_check(s);
    sum->seconds = (double)(kd_now_ms() - t0) / 1000.0;
    session_close(s);
    kd_ingest_client_close(s->client);
    kd_sim_verdicts_free(s->gen.verdicts);
    kd_sim_gen_fini(&s->gen);
    free(s->chain);
    free(s);
    return err;
}
