/*
 * bench_latency_chain.c — the chain the latency scenarios host
 * (bench_latency_int.h): a node in this process on a scratch directory,
 * one episode of a type the bench plays alone (bench_episode.h), and a
 * feeder thread that applies one block each time it is asked: a signed
 * move that keeps the game going or, when every move would end it, the
 * revert of the block before (a reorg of depth one). So the game never
 * ends, whatever the type, and every block changes the episode and
 * notifies its subscribers.
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
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "engine/netutil.h"
#include "engine/wire.h"
#include "tools/bench/bench_episode.h"
#include "tools/bench/bench_latency_int.h"
#include "tools/sim/replay.h"

#define EPISODE_ID 1u

/* The engine's commit listener: the time first, then the handlers. */
static void on_commit(void *ctx, const kd_commit *commit)
{
    kd_lat_chain *c = ctx;
    double t = kd_bench_now();
    kd_handler_set_dispatch(&c->node.handlers, commit);
    c->t_listener = t;
    c->applied = (uint32_t)commit->event_count;
}

/* Applies one encoded EngineMsg on the calling thread; 0, or -1 with why. */
static int apply(kd_lat_chain *c, const kd_buf *msg, char *why, size_t why_len)
{
    kd_msg_result res;
    kd_msg_result_init(&res);
    c->applied = 0;
    kd_err err = kd_engine_ingest(c->node.engine, msg->data, msg->len, &res);
    int rc = !err && res.status == KD_MSG_APPLIED && c->applied == 1 ? 0 : -1; /* one move, or its rollback */
    if (rc)
        snprintf(why, why_len, "a block was not applied: %s %s%s", err ? kd_err_str(err) : "", res.detail,
                 res.tx_count && !res.txs[0].applied ? res.txs[0].detail : "");
    kd_msg_result_fini(&res);
    return rc;
}

/* An accepted block holding one payload, with a hash of its own (kept in
 * *hash_out when not NULL). */
static kd_err wrap_block(kd_lat_chain *c, const kd_buf *payload, kd_buf *out, uint8_t *hash_out)
{
    char text[64];
    kd_wire_tx tx = {.payload = payload->data, .payload_len = payload->len};
    uint8_t hash[KD_HASH_LEN];
    c->daa++;
    int n = snprintf(text, sizeof text, "bench/latency/tx/%llu", (unsigned long long)c->daa);
    kd_sha256(text, (size_t)n, tx.tx_id);
    n = snprintf(text, sizeof text, "bench/latency/block/%llu", (unsigned long long)c->daa);
    kd_sha256(text, (size_t)n, hash);
    if (hash_out)
        memcpy(hash_out, hash, KD_HASH_LEN);
    return kd_wire_accept(hash, c->daa, kd_wall_ms(), &tx, 1, out);
}

/* The top of the stack of applied moves: its block hash, then its undo record. */
static uint8_t *stack_at(kd_lat_chain *c, size_t i) { return c->stack + i * c->stack_stride; }

static int stack_push(kd_lat_chain *c)
{
    if (c->depth == c->stack_cap) {
        size_t cap = c->stack_cap ? 2 * c->stack_cap : 64;
        uint8_t *ns = realloc(c->stack, cap * c->stack_stride);
        if (!ns)
            return -1;
        c->stack = ns, c->stack_cap = cap;
    }
    c->depth++;
    return 0;
}

/*
 * A legal move of the seat to move that does not end the game, applied to
 * c->state with its undo record at the top of the stack; KD_ERR_NO_MOVE
 * when every legal move ends it (or there is none). Each candidate is
 * tried on a copy, in an order drawn from c->rng.
 */
static kd_err pick_move(kd_lat_chain *c, int *seat_out, kd_buf *cmd)
{
    const kd_episode_ops *ops = c->type->ops;
    kd_game_status st = c->type->status(c->state);
    uint8_t zero[KD_HASH_LEN] = {0};
    kd_block_meta meta = {.block_hash = zero, .tx_id = zero, .episode_id = c->episode};
    kd_legal_moves list;
    kd_reject rej;
    kd_legal_moves_init(&list);
    kd_err err = st.phase != KD_PHASE_IN_PROGRESS ? KD_ERR_NO_MOVE : KD_OK;
    int seat = st.to_move != KD_SEAT_NONE ? st.to_move : 0;
    if (!err)
        err = c->type->legal_moves(c->state, seat, &list);
    if (!err && stack_push(c) != 0)
        err = KD_ERR_NOMEM;
    uint8_t *undo = err ? NULL : stack_at(c, c->depth - 1) + KD_HASH_LEN;
    for (size_t left = list.count; !err && left > 0; left--) {
        size_t k = kd_type_rng_below(&c->rng, (uint32_t)left);
        kd_legal_move m = list.moves[k];
        list.moves[k] = list.moves[left - 1];
        memcpy(c->scratch, c->state, ops->state_size);
        if (ops->execute(c->scratch, m.command, m.command_len, &c->keys_[seat].pub, &meta, undo, &rej) != KD_OK ||
            c->type->status(c->scratch).phase != KD_PHASE_IN_PROGRESS)
            continue;
        memcpy(c->state, c->scratch, ops->state_size);
        *seat_out = seat;
        cmd->len = 0;
        err = kd_buf_append(cmd, m.command, m.command_len);
        kd_legal_moves_fini(&list);
        return err;
    }
    if (undo)
        c->depth--;
    kd_legal_moves_fini(&list);
    return err ? err : KD_ERR_NO_MOVE;
}

/* The next block: one signed move of the game that keeps it going or, when
 * every move would end it, the revert of the block with the last move (so
 * the game never ends, whatever the type). */
static kd_err next_block(kd_lat_chain *c, kd_buf *block)
{
    kd_buf cmd, payload;
    int seat = 0;
    kd_buf_init(&cmd);
    kd_buf_init(&payload);
    kd_err err = pick_move(c, &seat, &cmd);
    if (!err) {
        err = kd_wire_signed_command(c->episode, cmd.data, cmd.len, &c->keys_[seat], c->counter, &payload);
        if (!err)
            err = wrap_block(c, &payload, block, stack_at(c, c->depth - 1));
        if (!err)
            c->counter++;
    } else if (err == KD_ERR_NO_MOVE && c->depth > 0) {
        uint8_t *top = stack_at(c, --c->depth);
        err = c->type->ops->rollback(c->state, top + KD_HASH_LEN);
        if (!err)
            err = kd_wire_revert(top, block);
        c->counter--;
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
static int create_episode(const kd_bench_ctx *b, kd_lat_chain *c, char *why, size_t why_len)
{
    kd_buf params, payload, block;
    kd_buf_init(&params), kd_buf_init(&payload), kd_buf_init(&block);
    c->episode = EPISODE_ID;
    kd_err err = c->type->params_from_json(c->type == b->type ? b->params : NULL, &params, why, why_len);
    if (!err)
        err = kd_bench_episode_create(&c->cli.types, c->type, &params, c->episode, c->keys_, kd_bench_seats(c->type),
                                      kd_engine_chain(c->node.engine), c->state, &payload);
    if (!err)
        err = wrap_block(c, &payload, &block, NULL);
    int rc = err ? -1 : apply(c, &block, why, why_len);
    if (err)
        snprintf(why, why_len, "cannot create the episode: %s", kd_err_str(err));
    kd_buf_fini(&params), kd_buf_fini(&payload), kd_buf_fini(&block);
    return rc;
}

/* kd_lat_chain_open's steps, on `c` initialised: -1 leaves what it took
 * for kd_lat_chain_close. */
static int chain_start(const kd_bench_ctx *b, kd_lat_chain *c, char *why, size_t why_len)
{
    if (kd_bench_scratch(b, "latency", "gateways.log", 0, c->dir, c->data, c->keys, c->log, why, why_len) != 0)
        return -1;
    snprintf(c->ingest_url, sizeof c->ingest_url, "ipc://%s/ingest.ipc", c->dir);
    snprintf(c->views_url, sizeof c->views_url, "ipc://%s/views.ipc", c->dir);
    snprintf(c->devnet_url, sizeof c->devnet_url, "ipc://%s/devnet.ipc", c->dir); /* nobody listens: no moves */
    if (mkdir(c->keys, 0700) != 0 || kd_cli_init_types(&c->cli, b->types) != KD_EXIT_OK) {
        snprintf(why, why_len, "cannot prepare %s", c->dir);
        return -1;
    }
    c->cli.data_dir = c->data;
    c->cli.keys_dir = c->keys;
    const kd_episode_type *t = kd_bench_play_type(b);
    c->type = t ? kd_type_table_find(&c->cli.types, t->ops->type_name) : NULL;
    for (size_t i = 0; c->type && i < kd_bench_seats(c->type); i++) {
        char name[32];
        snprintf(name, sizeof name, "latency-%zu", i);
        if (kd_key_test(name, &c->keys_[i]) != KD_OK)
            c->type = NULL;
    }
    if (!c->type) {
        snprintf(why, why_len, "no type the bench can play alone is registered, or no test keys");
        return -1;
    }
    c->stack_stride = kd_record_stride(KD_HASH_LEN + c->type->ops->undo_size);
    c->state = calloc(1, c->type->ops->state_size);
    c->scratch = calloc(1, c->type->ops->state_size);
    if (!c->state || !c->scratch) {
        snprintf(why, why_len, "out of memory");
        return -1;
    }
    kd_node_options no = {.ingest_urls = c->ingest_url, .publish_urls = c->views_url};
    if (kd_node_start(&c->node, &c->cli, &no, why, why_len) != KD_OK)
        return -1;
    c->node_up = 1;
    kd_engine_set_listener(c->node.engine, on_commit, c);
    if (create_episode(b, c, why, why_len) != 0)
        return -1;
    if (pthread_create(&c->thread, NULL, feeder_main, c) != 0) {
        snprintf(why, why_len, "cannot start the feeder thread");
        return -1;
    }
    c->thread_up = 1;
    return 0;
}

int kd_lat_chain_open(const kd_bench_ctx *b, kd_lat_chain *c, char *why, size_t why_len)
{
    memset(c, 0, sizeof *c);
    pthread_mutex_init(&c->lock, NULL);
    pthread_cond_init(&c->cond, NULL);
    c->rng = 0x6B64617070ULL;
    if (chain_start(b, c, why, why_len) == 0)
        return 0;
    kd_lat_chain_close(c); /* what it took, however far it got */
    return -1;
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
    if (c->dir[0])
        kd_remove_tree(c->dir);
    free(c->state);
    free(c->scratch);
    free(c->stack);
    memset(&c->keys_, 0, sizeof c->keys_);
    pthread_mutex_destroy(&c->lock);
    pthread_cond_destroy(&c->cond);
    c->state = c->scratch = NULL;
    c->stack = NULL;
    c->depth = c->stack_cap = 0;
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

int kd_lat_gateway(const kd_bench_ctx *b, const kd_lat_chain *c, const char *const *env, const char *log,
                   kd_bench_proc *p, uint16_t *port, char *why, size_t why_len)
{
    char *argv[] = {(char *)b->kdapp_path,
                    "mcp",
                    "--data",
                    (char *)c->data,
                    "--keys",
                    (char *)c->keys,
                    "--views",
                    (char *)c->views_url,
                    "--devnet",
                    (char *)c->devnet_url,
                    port ? "--http" : "--stdio",
                    port ? "127.0.0.1:0" : NULL,
                    NULL};
    if (kd_bench_proc_spawn(p, argv, env, log, port ? 0 : KD_BENCH_PIPES) != 0) {
        snprintf(why, why_len, "cannot start kdapp mcp %s: %s", argv[10], strerror(errno));
        return -1;
    }
    if (port && (*port = kd_bench_http_port(p, log, KD_LAT_START_S)) == 0) {
        snprintf(why, why_len, "kdapp mcp --http did not say its port");
        return -1;
    }
    return 0;
}
