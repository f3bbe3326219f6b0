/*
 * bench_latency_chain.c — the chain the latency scenarios host
 * (bench_latency_int.h): a node in this process on a scratch directory,
 * one endless tic-tac-toe episode, and a feeder thread that applies one
 * block carrying one signed move each time it is asked.
 *
 * When does a block count as committed? The engine calls its commit
 * listener right after the synced LMDB commit returns and before anything
 * is published (engine.h); the bench puts its own listener in front of
 * the handler set, notes the time, and then dispatches to the handlers
 * (the view publisher among them). So t_commit is the first moment any
 * client could know of the block, and every latency is measured from it:
 *
 *   feeder: build + sign ─ kd_engine_ingest ─ LMDB commit ─┬─ listener: t_commit
 *                                                         └─ publisher: PUB send ─▶ clients
 */
#define _XOPEN_SOURCE 700 /* nftw */

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "engine/netutil.h"
#include "engine/wire.h"
#include "episodes/tictactoe/tictactoe.h"
#include "tools/bench/bench_latency_int.h"

#define EPISODE_ID 1u
#define PARAMS_JSON "{\"cap\":2}" /* two marks at most: no line of three, no end */

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    remove(path);
    return 0;
}

void kd_lat_rm_tree(const char *dir)
{
    if (dir && *dir)
        nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* The engine's commit listener: the time first, then the handlers. */
static void on_commit(void *ctx, const kd_commit *commit)
{
    kd_lat_chain *c = ctx;
    double t = kd_bench_now();
    kd_handler_set_dispatch(&c->node.handlers, commit);
    c->t_listener = t;
    c->applied = commit->txs_applied;
}

/* Applies one encoded EngineMsg on the calling thread; 0, or -1 with why. */
static int apply(kd_lat_chain *c, const kd_buf *msg, char *why, size_t why_len)
{
    kd_msg_result res;
    kd_msg_result_init(&res);
    c->applied = 0;
    kd_err err = kd_engine_ingest(c->node.engine, msg->data, msg->len, &res);
    int rc = !err && res.status == KD_MSG_APPLIED && c->applied == 1 ? 0 : -1;
    if (rc)
        snprintf(why, why_len, "a block was not applied: %s %s%s", err ? kd_err_str(err) : "", res.detail,
                 res.tx_count && !res.txs[0].applied ? res.txs[0].detail : "");
    kd_msg_result_fini(&res);
    return rc;
}

/* An accepted block holding one payload, with a hash of its own. */
static kd_err wrap_block(kd_lat_chain *c, const kd_buf *payload, kd_buf *out)
{
    char text[64];
    kd_wire_tx tx = {.payload = payload->data, .payload_len = payload->len};
    uint8_t hash[KD_HASH_LEN];
    c->daa++;
    int n = snprintf(text, sizeof text, "bench/latency/tx/%llu", (unsigned long long)c->daa);
    kd_sha256(text, (size_t)n, tx.tx_id);
    n = snprintf(text, sizeof text, "bench/latency/block/%llu", (unsigned long long)c->daa);
    kd_sha256(text, (size_t)n, hash);
    return kd_wire_accept(hash, c->daa, kd_wall_ms(), &tx, 1, out);
}

/* The next move of the game, signed by the seat to move, in a block. */
static kd_err next_block(kd_lat_chain *c, kd_buf *block)
{
    const kd_episode_ops *ops = c->type->ops;
    kd_game_status st = c->type->status(c->state);
    int seat = st.to_move != KD_SEAT_NONE ? st.to_move : 0;
    uint8_t zero[KD_HASH_LEN] = {0};
    kd_block_meta meta = {.block_hash = zero, .tx_id = zero, .episode_id = c->episode};
    kd_reject rej;
    kd_buf cmd, payload;
    kd_buf_init(&cmd);
    kd_buf_init(&payload);
    kd_err err = st.phase != KD_PHASE_IN_PROGRESS ? KD_ERR_INTERNAL : KD_OK;
    if (!err)
        err = c->type->random_command(c->state, seat, 1, &c->rng, &cmd);
    if (!err)
        err = kd_wire_signed_command(c->episode, cmd.data, cmd.len, &c->keys_[seat], c->counter, &payload);
    if (!err)
        err = ops->execute(c->state, cmd.data, cmd.len, &c->keys_[seat].pub, &meta, c->undo, &rej);
    if (!err) {
        c->counter++;
        err = wrap_block(c, &payload, block);
    }
    kd_buf_fini(&cmd);
    kd_buf_fini(&payload);
    return err;
}

static void *feeder_main(void *arg)
{
    kd_lat_chain *c = arg;
    char why[256];
    pthread_mutex_lock(&c->lock);
    for (;;) {
        while (!c->stop && c->requested == c->done)
            pthread_cond_wait(&c->cond, &c->lock);
        if (c->stop)
            break;
        pthread_mutex_unlock(&c->lock);
        kd_buf block;
        kd_buf_init(&block);
        kd_err err = next_block(c, &block);
        int rc = err ? -1 : apply(c, &block, why, sizeof why);
        if (err)
            snprintf(why, sizeof why, "cannot build the next block: %s", kd_err_str(err));
        kd_buf_fini(&block);
        pthread_mutex_lock(&c->lock);
        if (rc && !c->err) {
            c->err = err ? err : KD_ERR_INTERNAL;
            snprintf(c->why, sizeof c->why, "%s", why);
        }
        c->t_commit = c->t_listener;
        c->done++;
        pthread_cond_broadcast(&c->cond);
    }
    pthread_mutex_unlock(&c->lock);
    return NULL;
}

/* Creates the episode: its state here and its creation block in the store. */
static int create_episode(kd_lat_chain *c, char *why, size_t why_len)
{
    const kd_episode_ops *ops = c->type->ops;
    kd_participants parts = {.count = 2};
    kd_buf params, effective, payload, block;
    kd_reject rej;
    uint8_t zero[KD_HASH_LEN] = {0};
    kd_block_meta meta = {.block_hash = zero, .tx_id = zero, .episode_id = EPISODE_ID};
    json_t *pj = json_loads(PARAMS_JSON, 0, NULL);
    kd_buf_init(&params), kd_buf_init(&effective), kd_buf_init(&payload), kd_buf_init(&block);
    parts.keys[0] = c->keys_[0].pub;
    parts.keys[1] = c->keys_[1].pub;
    c->episode = EPISODE_ID;
    kd_err err = pj ? c->type->params_from_json(pj, &params, why, why_len) : KD_ERR_NOMEM;
    if (!err)
        err = ops->resolve_params(kd_type_table_config(&c->cli.types, ops->type_name), params.data, params.len,
                                  &effective, &rej);
    if (!err)
        err = ops->init(c->state, &parts, effective.data, effective.len, &meta, &rej);
    if (!err)
        err = kd_wire_new_episode(c->episode, ops->type_name, &parts, params.data, params.len, &payload);
    if (!err)
        err = wrap_block(c, &payload, &block);
    int rc = err ? -1 : apply(c, &block, why, why_len);
    if (err)
        snprintf(why, why_len, "cannot create the episode: %s", kd_err_str(err));
    json_decref(pj);
    kd_buf_fini(&params), kd_buf_fini(&effective), kd_buf_fini(&payload), kd_buf_fini(&block);
    return rc;
}

int kd_lat_chain_open(const kd_bench_ctx *b, kd_lat_chain *c, char *why, size_t why_len)
{
    memset(c, 0, sizeof *c);
    pthread_mutex_init(&c->lock, NULL);
    pthread_cond_init(&c->cond, NULL);
    c->rng = 0x6B64617070ULL;
    if (kd_bench_mkdtemp(b, "latency", c->dir, sizeof c->dir) != 0) {
        snprintf(why, why_len, "cannot create a scratch directory under %s", b->work_dir);
        return -1;
    }
    snprintf(c->data, sizeof c->data, "%s/data", c->dir);
    snprintf(c->keys, sizeof c->keys, "%s/keys", c->dir);
    snprintf(c->log, sizeof c->log, "%s/gateways.log", c->dir);
    snprintf(c->ingest_url, sizeof c->ingest_url, "ipc://%s/ingest.ipc", c->dir);
    snprintf(c->views_url, sizeof c->views_url, "ipc://%s/views.ipc", c->dir);
    snprintf(c->devnet_url, sizeof c->devnet_url, "ipc://%s/devnet.ipc", c->dir); /* nobody listens: no moves */
    if (mkdir(c->keys, 0700) != 0 || kd_cli_init_types(&c->cli, b->types) != KD_EXIT_OK) {
        snprintf(why, why_len, "cannot prepare %s", c->dir);
        return -1;
    }
    c->cli.data_dir = c->data;
    c->cli.keys_dir = c->keys;
    c->type = kd_type_table_find(&c->cli.types, KD_TTT_TYPE_NAME);
    if (!c->type || kd_key_test("latency-x", &c->keys_[0]) != KD_OK ||
        kd_key_test("latency-o", &c->keys_[1]) != KD_OK) {
        snprintf(why, why_len, "tic-tac-toe is not registered, or no test keys");
        return -1;
    }
    c->state = calloc(1, c->type->ops->state_size);
    c->undo = calloc(1, c->type->ops->undo_size ? c->type->ops->undo_size : 1);
    if (!c->state || !c->undo) {
        snprintf(why, why_len, "out of memory");
        return -1;
    }
    kd_node_options no = {.ingest_urls = c->ingest_url, .publish_urls = c->views_url};
    if (kd_node_start(&c->node, &c->cli, &no, why, why_len) != KD_OK)
        return -1;
    c->node_up = 1;
    kd_engine_set_listener(c->node.engine, on_commit, c);
    if (create_episode(c, why, why_len) != 0)
        return -1;
    if (pthread_create(&c->thread, NULL, feeder_main, c) != 0) {
        snprintf(why, why_len, "cannot start the feeder thread");
        return -1;
    }
    c->thread_up = 1;
    return 0;
}

void kd_lat_chain_close(kd_lat_chain *c)
{
    if (c->thread_up) {
        pthread_mutex_lock(&c->lock);
        c->stop = 1;
        pthread_cond_broadcast(&c->cond);
        pthread_mutex_unlock(&c->lock);
        pthread_join(c->thread, NULL);
        c->thread_up = 0;
    }
    if (c->node_up)
        kd_node_stop(&c->node);
    c->node_up = 0;
    kd_lat_rm_tree(c->dir);
    free(c->state);
    free(c->undo);
    memset(&c->keys_, 0, sizeof c->keys_);
    pthread_mutex_destroy(&c->lock);
    pthread_cond_destroy(&c->cond);
    c->state = c->undo = NULL;
    c->dir[0] = '\0';
}

void kd_lat_chain_request(kd_lat_chain *c)
{
    pthread_mutex_lock(&c->lock);
    c->requested++;
    pthread_cond_broadcast(&c->cond);
    pthread_mutex_unlock(&c->lock);
}

int kd_lat_chain_wait(kd_lat_chain *c, double deadline, double *t_commit, char *why, size_t why_len)
{
    int rc = 0;
    pthread_mutex_lock(&c->lock);
    while (c->done < c->requested && kd_bench_now() < deadline) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 10000000;
        if (ts.tv_nsec >= 1000000000)
            ts.tv_sec++, ts.tv_nsec -= 1000000000;
        pthread_cond_timedwait(&c->cond, &c->lock, &ts);
    }
    if (c->err || c->done < c->requested) {
        snprintf(why, why_len, "%s", c->err ? c->why : "a block was not committed in time");
        rc = -1;
    }
    *t_commit = c->t_commit;
    pthread_mutex_unlock(&c->lock);
    return rc;
}
