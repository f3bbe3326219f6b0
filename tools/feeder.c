/* feeder.c — script ops to EngineMsg bytes with a shadow of move counters. */
#include "tools/feeder.h"

#include <stdlib.h>
#include <string.h>

#include "engine/wire.h"
#include "episodes/tictactoe.h"

#define MAX_TRACKED_BLOCKS 4096

typedef struct {
    uint32_t id;
    uint64_t counter;
} counter_entry;

typedef struct {
    uint8_t hash[KD_HASH_LEN];
    uint32_t *moved; /* episodes whose commands applied, in order */
    size_t n_moved;
    uint32_t *created; /* episodes created */
    size_t n_created;
} applied_block;

struct kd_feeder {
    kd_counter_seed_fn seed;
    void *seed_ctx;
    counter_entry *counters;
    size_t n_counters, cap_counters;
    applied_block *blocks; /* a stack, newest last */
    size_t n_blocks, cap_blocks;
};

kd_err kd_feeder_alloc(kd_counter_seed_fn seed, void *seed_ctx, kd_feeder **out)
{
    kd_feeder *f = calloc(1, sizeof *f);
    if (!f)
        return KD_ERR_NOMEM;
    f->seed = seed;
    f->seed_ctx = seed_ctx;
    *out = f;
    return KD_OK;
}

static void block_fini(applied_block *b)
{
    free(b->moved);
    free(b->created);
}

void kd_feeder_free(kd_feeder *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < f->n_blocks; i++)
        block_fini(&f->blocks[i]);
    free(f->blocks);
    free(f->counters);
    free(f);
}

static counter_entry *find_counter(kd_feeder *f, uint32_t id)
{
    for (size_t i = 0; i < f->n_counters; i++)
        if (f->counters[i].id == id)
            return &f->counters[i];
    return NULL;
}

static kd_err set_counter(kd_feeder *f, uint32_t id, uint64_t value)
{
    counter_entry *e = find_counter(f, id);
    if (!e) {
        if (f->n_counters == f->cap_counters) {
            size_t cap = f->cap_counters ? f->cap_counters * 2 : 32;
            counter_entry *p = realloc(f->counters, cap * sizeof *p);
            if (!p)
                return KD_ERR_NOMEM;
            f->counters = p;
            f->cap_counters = cap;
        }
        e = &f->counters[f->n_counters++];
        e->id = id;
    }
    e->counter = value;
    return KD_OK;
}

static void drop_counter(kd_feeder *f, uint32_t id)
{
    counter_entry *e = find_counter(f, id);
    if (e)
        *e = f->counters[--f->n_counters];
}

static kd_err current_counter(kd_feeder *f, uint32_t id, uint64_t *out)
{
    counter_entry *e = find_counter(f, id);
    if (e) {
        *out = e->counter;
        return KD_OK;
    }
    int found = 0;
    *out = 0;
    if (f->seed) {
        kd_err err = f->seed(f->seed_ctx, id, out, &found);
        if (err)
            return err;
    }
    return found ? set_counter(f, id, *out) : KD_OK;
}

kd_err kd_feeder_encode(kd_feeder *f, const kd_script_op *op, kd_buf *out)
{
    if (op->kind == KD_SCRIPT_REVERT)
        return kd_wire_revert(op->hash, out);
    kd_err err = KD_OK;
    kd_buf *payloads = calloc(op->tx_count ? op->tx_count : 1, sizeof *payloads);
    kd_wire_tx *txs = calloc(op->tx_count ? op->tx_count : 1, sizeof *txs);
    if (!payloads || !txs) {
        err = KD_ERR_NOMEM;
        goto done;
    }
    for (size_t i = 0; i < op->tx_count && !err; i++) {
        const kd_script_tx *tx = &op->txs[i];
        kd_buf *p = &payloads[i];
        kd_buf_init(p);
        if (tx->kind == KD_SCRIPT_TX_NEW_EPISODE) {
            kd_buf params;
            kd_buf_init(&params);
            if (!tx->has_cap || !(err = kd_ttt_params_encode(tx->cap, &params)))
                err = kd_wire_new_episode(tx->episode_id, tx->type, &tx->participants, params.data, params.len, p);
            kd_buf_fini(&params);
        } else if (tx->kind == KD_SCRIPT_TX_MOVE) {
            kd_buf cmd;
            kd_buf_init(&cmd);
            uint64_t counter = 0;
            if (!(err = kd_ttt_move_encode(tx->row, tx->col, tx->player, &cmd)) &&
                !(err = current_counter(f, tx->episode_id, &counter))) {
                /* Earlier moves of this block on the same episode. */
                for (size_t j = 0; j < i; j++)
                    if (op->txs[j].kind == KD_SCRIPT_TX_MOVE && op->txs[j].episode_id == tx->episode_id)
                        counter++;
                if (tx->has_counter)
                    counter = tx->counter;
                err = tx->has_signer
                          ? kd_wire_signed_command(tx->episode_id, cmd.data, cmd.len, &tx->signer, counter, p)
                          : kd_wire_unsigned_command(tx->episode_id, cmd.data, cmd.len, p);
            }
            kd_buf_fini(&cmd);
        } else {
            err = kd_buf_append(p, tx->raw, tx->raw_len);
        }
        memcpy(txs[i].tx_id, tx->tx_id, KD_HASH_LEN);
        txs[i].payload = p->data;
        txs[i].payload_len = p->len;
    }
    if (!err)
        err = kd_wire_accept(op->hash, op->daa, op->time_ms, txs, op->tx_count, out);
done:
    if (payloads)
        for (size_t i = 0; i < op->tx_count; i++)
            kd_buf_fini(&payloads[i]);
    free(payloads);
    free(txs);
    return err;
}

static kd_err push_block(kd_feeder *f, const kd_script_op *op, const kd_msg_result *res)
{
    if (f->n_blocks == MAX_TRACKED_BLOCKS) { /* forget the oldest: beyond any reorg we feed */
        block_fini(&f->blocks[0]);
        memmove(f->blocks, f->blocks + 1, (f->n_blocks - 1) * sizeof *f->blocks);
        f->n_blocks--;
    }
    if (f->n_blocks == f->cap_blocks) {
        size_t cap = f->cap_blocks ? f->cap_blocks * 2 : 16;
        applied_block *p = realloc(f->blocks, cap * sizeof *p);
        if (!p)
            return KD_ERR_NOMEM;
        f->blocks = p;
        f->cap_blocks = cap;
    }
    applied_block *b = &f->blocks[f->n_blocks];
    memset(b, 0, sizeof *b);
    memcpy(b->hash, op->hash, KD_HASH_LEN);
    size_t n = op->tx_count ? op->tx_count : 1;
    b->moved = calloc(n, sizeof *b->moved);
    b->created = calloc(n, sizeof *b->created);
    if (!b->moved || !b->created) {
        block_fini(b);
        return KD_ERR_NOMEM;
    }
    f->n_blocks++;
    kd_err err = KD_OK;
    for (size_t i = 0; i < op->tx_count && i < res->tx_count && !err; i++) {
        if (!res->txs[i].applied)
            continue;
        const kd_script_tx *tx = &op->txs[i];
        if (tx->kind == KD_SCRIPT_TX_NEW_EPISODE) {
            b->created[b->n_created++] = tx->episode_id;
            err = set_counter(f, tx->episode_id, 0);
        } else if (tx->kind == KD_SCRIPT_TX_MOVE) {
            uint64_t c = 0;
            if (!(err = current_counter(f, tx->episode_id, &c)) && !(err = set_counter(f, tx->episode_id, c + 1)))
                b->moved[b->n_moved++] = tx->episode_id;
        } else {
            /* A raw payload that applied: we cannot tell what it did, so
             * forget the episode's counter and seed it again when needed. */
            drop_counter(f, res->txs[i].episode_id);
        }
    }
    return err;
}

static void pop_block(kd_feeder *f, const uint8_t *hash)
{
    if (f->n_blocks == 0 || memcmp(f->blocks[f->n_blocks - 1].hash, hash, KD_HASH_LEN) != 0) {
        /* Not ours (fed by someone else): forget what we knew. */
        f->n_counters = 0;
        return;
    }
    applied_block *b = &f->blocks[--f->n_blocks];
    for (size_t i = b->n_moved; i-- > 0;) {
        counter_entry *e = find_counter(f, b->moved[i]);
        if (e && e->counter > 0)
            e->counter--;
    }
    for (size_t i = 0; i < b->n_created; i++)
        drop_counter(f, b->created[i]);
    block_fini(b);
}

static int tracked(const kd_feeder *f, const uint8_t *hash)
{
    for (size_t i = 0; i < f->n_blocks; i++)
        if (memcmp(f->blocks[i].hash, hash, KD_HASH_LEN) == 0)
            return 1;
    return 0;
}

/*
 * A duplicate answers a re-delivery whose first answer never arrived (the
 * engine crashed after its commit, found by tests/crash): the event took
 * effect then, so account for it now, once. With a seed the engine is the
 * authority: forget the touched counters and read them again when needed.
 * Without one, a duplicate accept carries the outcomes recorded the first
 * time, which update the counters as the first answer would have.
 */
static kd_err observe_duplicate(kd_feeder *f, const kd_script_op *op, const kd_msg_result *res)
{
    if (op->kind == KD_SCRIPT_REVERT) {
        if (f->n_blocks && memcmp(f->blocks[f->n_blocks - 1].hash, op->hash, KD_HASH_LEN) == 0)
            pop_block(f, op->hash);
        return KD_OK;
    }
    if (tracked(f, op->hash))
        return KD_OK; /* we saw it applied: nothing new */
    if (f->seed) {
        for (size_t i = 0; i < op->tx_count; i++)
            drop_counter(f, op->txs[i].episode_id);
        for (size_t i = 0; i < res->tx_count; i++)
            drop_counter(f, res->txs[i].episode_id);
        return KD_OK;
    }
    return push_block(f, op, res);
}

kd_err kd_feeder_observe(kd_feeder *f, const kd_script_op *op, const kd_msg_result *res)
{
    if (res->status == KD_MSG_DUPLICATE)
        return observe_duplicate(f, op, res);
    if (res->status != KD_MSG_APPLIED)
        return KD_OK;
    if (op->kind == KD_SCRIPT_REVERT) {
        pop_block(f, op->hash);
        return KD_OK;
    }
    return push_block(f, op, res);
}

kd_err kd_feeder_seed_from_engine(void *engine, uint32_t episode_id, uint64_t *counter, int *found)
{
    kd_episode_snapshot snap;
    kd_err err = kd_engine_episode_read(engine, episode_id, &snap);
    *found = 0;
    if (err == KD_ERR_NOT_FOUND)
        return KD_OK;
    if (err)
        return err;
    *counter = snap.undo_depth;
    *found = 1;
    kd_episode_snapshot_fini(&snap);
    return KD_OK;
}
