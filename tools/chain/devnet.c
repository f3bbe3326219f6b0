/*
 * devnet.c — the local chain: a pending queue, a producer thread that turns
 * it into blocks for the engine, reorgs that revert blocks and re-queue
 * their txs (see devnet.h); its REP control socket is devnet_control.c.
 *
 * All state sits under one mutex. The exchange with the engine (which may
 * wait indefinitely for an engine that is down) runs with the mutex
 * released but holding the "busy" sequence flag, so a block and a reorg
 * never interleave while submit and status still answer at once.
 */
#include "tools/chain/devnet.h"

#include <nng/nng.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engine/crypto.h"
#include "engine/logger.h"
#include "engine/netutil.h"
#include "engine/wire.h"
#include "kdapp.pb-c.h"
#include "tools/chain/devnet_control.h"
#include "tools/chain/ingest_client.h"

/* How long one wait for the engine's answer lasts before close() is
 * checked; the request stays in flight and the next wait takes it up
 * again (tools/chain/ingest_client.c), so a slow engine gets it once. */
#define EXCHANGE_TIMEOUT_MS 1000u
/* Pause before re-trying after an engine-side storage error. */
#define RETRY_PAUSE_MS 300u
/* How long a reorg waits for a block in flight before answering busy. */
#define REORG_WAIT_MS 2000u
#define REORG_WAIT_TEXT "2 s"
/* A block stops growing past this many payload bytes (below the engine's
 * KD_INGEST_MAX_BYTES frame limit). */
#define BLOCK_MAX_BYTES ((size_t)8 << 20)

typedef struct {
    uint8_t id[KD_HASH_LEN];
    uint8_t *payload; /* owned */
    size_t len;
} dtx;

typedef struct {
    uint8_t hash[KD_HASH_LEN];
    uint8_t parent[KD_HASH_LEN]; /* the tip it was built on (the run salt at genesis) */
    uint64_t daa;
    dtx *txs; /* owned */
    size_t n;
} dblock;

struct kd_devnet {
    kd_devnet_options opts; /* strings point at the copies below */
    char *listen_urls, *engine_url;
    kd_ingest_client *client;

    pthread_mutex_t mu;
    pthread_cond_t cv;
    atomic_int stop;
    int busy;

    /* pending: items[head .. head+count) */
    dtx *items;
    size_t head, count, cap;
    size_t catchup; /* of them, the txs a reorg put back at the front, not yet in a block again */

    /* applied chain, a ring of at most KD_DEVNET_CHAIN_MAX, oldest at ring_head */
    dblock *ring;
    size_t ring_head, ring_len;
    uint64_t height, daa, nonce, tx_counter, blocks_sent;
    uint64_t mine_until; /* kd_devnet_advance: empty blocks are mined until daa reaches it */
    int has_tip;
    uint8_t tip[KD_HASH_LEN];
    uint8_t salt[KD_HASH_LEN]; /* per-run: genesis parent and tx id salt */
    uint64_t rng;
    kd_tip engine_tip;

    pthread_t producer;
    int producer_started;
    kd_devnet_control *control; /* NULL without listen URLs */
};

/* ------------------------------------------------------------ helpers */

static uint64_t rng_next(uint64_t *s) /* splitmix64 */
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double rng_unit(uint64_t *s) { return (double)(rng_next(s) >> 11) * 0x1.0p-53; }

/* Sleeps up to `ms`, waking early on close. Call without the mutex. */
static void nap(kd_devnet *d, uint64_t ms)
{
    struct timespec ts;
    kd_deadline_after(&ts, ms);
    pthread_mutex_lock(&d->mu);
    if (!atomic_load(&d->stop))
        pthread_cond_timedwait(&d->cv, &d->mu, &ts);
    pthread_mutex_unlock(&d->mu);
}

static void txs_free(dtx *txs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(txs[i].payload);
    free(txs);
}

static dblock *ring_at(kd_devnet *d, size_t i) /* 0 = oldest */
{
    return &d->ring[(d->ring_head + i) % KD_DEVNET_CHAIN_MAX];
}

static void emit(kd_devnet *d, const kd_devnet_event *ev)
{
    if (d->opts.on_event)
        d->opts.on_event(d->opts.event_ctx, ev);
}

/* Inserts `n` txs (moved in, not copied) at the front of the queue. */
static kd_err queue_push_front(kd_devnet *d, dtx *txs, size_t n)
{
    if (n == 0)
        return KD_OK;
    if (d->head >= n) {
        d->head -= n;
    } else {
        if (d->count + n > d->cap) {
            size_t cap = d->cap ? d->cap : 64;
            while (cap < d->count + n)
                cap *= 2;
            dtx *p = malloc(cap * sizeof *p);
            if (!p)
                return KD_ERR_NOMEM;
            memcpy(p + n, d->items + d->head, d->count * sizeof *p);
            free(d->items);
            d->items = p;
            d->cap = cap;
        } else {
            memmove(d->items + n, d->items + d->head, d->count * sizeof *d->items);
        }
        d->head = 0;
    }
    memcpy(d->items + d->head, txs, n * sizeof *txs);
    d->count += n;
    return KD_OK;
}

static kd_err queue_push_back(kd_devnet *d, const dtx *tx)
{
    if (d->head + d->count == d->cap) {
        if (d->head > 0) { /* compact first */
            memmove(d->items, d->items + d->head, d->count * sizeof *d->items);
            d->head = 0;
        } else {
            size_t cap = d->cap ? d->cap * 2 : 64;
            dtx *p = realloc(d->items, cap * sizeof *p);
            if (!p)
                return KD_ERR_NOMEM;
            d->items = p;
            d->cap = cap;
        }
    }
    d->items[d->head + d->count++] = *tx;
    return KD_OK;
}

/* ----------------------------------------------------- engine exchange */

/* A request-level error that re-sending cannot fix. */
static int permanent(kd_err err)
{
    return err == KD_ERR_DECODE || err == KD_ERR_TOO_LARGE || err == KD_ERR_INVALID_ARG || err == KD_ERR_UNSUPPORTED;
}

/*
 * Sends `msgs` until the engine answers. A timeout waits again for the
 * same request, still in flight (no copy is sent: the engine would apply
 * each copy in turn, see ingest_client.c); NNG sends it again when the
 * engine restarts, and accepts and reverts are idempotent by hash, so an
 * engine that applied it before acknowledges it again. Storage errors on
 * the engine's side are re-tried after a pause. Returns KD_OK with a reply
 * (possibly carrying a permanent request-level error), or KD_ERR_CLOSED.
 */
static kd_err exchange(kd_devnet *d, const kd_buf *msgs, size_t n, kd_ingest_reply *reply)
{
    for (unsigned attempt = 0;; attempt++) {
        if (atomic_load(&d->stop))
            return KD_ERR_CLOSED;
        memset(reply, 0, sizeof *reply);
        kd_err err = kd_ingest_client_send(d->client, msgs, n, reply);
        if (err == KD_ERR_TIMEOUT) {
            if (attempt % 10 == 9)
                KD_LOG_W("devnet", "no answer from the engine at %s yet; still waiting", d->engine_url);
            continue;
        }
        if (err) {
            KD_LOG_W("devnet", "ingest exchange failed: %s; re-trying", kd_err_str(err));
            nap(d, RETRY_PAUSE_MS);
            continue;
        }
        if (reply->err && !permanent(reply->err)) {
            KD_LOG_W("devnet", "the engine failed (%s: %s); re-trying", kd_err_code(reply->err), reply->detail);
            kd_ingest_reply_fini(reply);
            nap(d, RETRY_PAUSE_MS);
            continue;
        }
        return KD_OK;
    }
}

/* ------------------------------------------------------------ producer */

static void block_hash(const uint8_t parent[KD_HASH_LEN], uint64_t height, uint64_t nonce, uint8_t out[KD_HASH_LEN])
{
    static const char tag[] = "kdapp-devnet-block";
    uint8_t buf[sizeof tag - 1 + KD_HASH_LEN + 16];
    memcpy(buf, tag, sizeof tag - 1);
    memcpy(buf + sizeof tag - 1, parent, KD_HASH_LEN);
    kd_put_u64be(buf + sizeof tag - 1 + KD_HASH_LEN, height);
    kd_put_u64be(buf + sizeof tag - 1 + KD_HASH_LEN + 8, nonce);
    kd_sha256(buf, sizeof buf, out);
}

/* Appends a block to the ring, forgetting the oldest when full. */
static void chain_push(kd_devnet *d, dblock *b)
{
    if (d->ring_len == KD_DEVNET_CHAIN_MAX) {
        dblock *old = ring_at(d, 0);
        txs_free(old->txs, old->n);
        d->ring_head = (d->ring_head + 1) % KD_DEVNET_CHAIN_MAX;
        d->ring_len--;
    }
    *ring_at(d, d->ring_len++) = *b;
    memcpy(d->tip, b->hash, KD_HASH_LEN);
    d->has_tip = 1;
    d->height++;
}

/* Takes up to max_txs pending txs into a new block (mutex held). */
static kd_err block_take(kd_devnet *d, dblock *b)
{
    size_t n = 0, bytes = 0;
    while (n < d->count && n < d->opts.max_txs_per_block &&
           (n == 0 || bytes + d->items[d->head + n].len <= BLOCK_MAX_BYTES))
        bytes += d->items[d->head + n++].len;
    memset(b, 0, sizeof *b);
    b->txs = malloc((n ? n : 1) * sizeof *b->txs); /* an empty block: kd_devnet_advance */
    if (!b->txs)
        return KD_ERR_NOMEM;
    if (n) /* an empty queue may have no items at all */
        memcpy(b->txs, d->items + d->head, n * sizeof *b->txs);
    b->n = n;
    d->head += n;
    d->count -= n;
    d->catchup -= n < d->catchup ? n : d->catchup;
    if (d->count == 0)
        d->head = 0;
    memcpy(b->parent, d->has_tip ? d->tip : d->salt, KD_HASH_LEN);
    b->daa = ++d->daa;
    block_hash(b->parent, d->height + 1, d->nonce++, b->hash);
    return KD_OK;
}

/* Sends one block (mutex released, busy held); returns 1 when acknowledged. */
static int block_send(kd_devnet *d, dblock *b, kd_devnet_event *ev, char *detail, size_t detail_len)
{
    kd_buf msg;
    kd_buf_init(&msg);
    kd_wire_tx *wt = calloc(b->n ? b->n : 1, sizeof *wt);
    int ok = 0;
    kd_err err = wt ? KD_OK : KD_ERR_NOMEM;
    for (size_t i = 0; i < b->n && wt; i++) {
        memcpy(wt[i].tx_id, b->txs[i].id, KD_HASH_LEN);
        wt[i].payload = b->txs[i].payload;
        wt[i].payload_len = b->txs[i].len;
    }
    if (!err)
        err = kd_wire_accept(b->hash, b->daa, kd_wall_ms(), wt, b->n, &msg);
    kd_ingest_reply reply;
    memset(&reply, 0, sizeof reply);
    if (!err)
        err = exchange(d, &msg, 1, &reply);
    ev->err = err;
    if (err) {
        snprintf(detail, detail_len, "%s", kd_err_str(err));
    } else if (reply.err || reply.count != 1 || reply.results[0].status == KD_MSG_REFUSED) {
        ev->err = reply.err ? reply.err : reply.count == 1 ? reply.results[0].err : KD_ERR_DECODE;
        snprintf(detail, detail_len, "%s",
                 reply.err          ? reply.detail
                 : reply.count == 1 ? reply.results[0].detail
                                    : "the reply has no result");
    } else {
        const kd_msg_result *r = &reply.results[0];
        ok = 1;
        ev->duplicate = r->status == KD_MSG_DUPLICATE;
        for (size_t i = 0; i < r->tx_count; i++) {
            ev->txs_applied += r->txs[i].applied ? 1u : 0u;
            ev->txs_rejected += r->txs[i].applied ? 0u : 1u;
        }
        pthread_mutex_lock(&d->mu);
        d->engine_tip = reply.tip;
        pthread_mutex_unlock(&d->mu);
    }
    kd_ingest_reply_fini(&reply);
    kd_buf_fini(&msg);
    free(wt);
    return ok;
}

static void *produce(void *arg)
{
    kd_devnet *d = arg;
    pthread_mutex_lock(&d->mu);
    uint64_t due = kd_now_ms() + d->opts.block_ms;
    while (!atomic_load(&d->stop)) {
        uint64_t now = kd_now_ms();
        if (now < due) {
            struct timespec ts;
            kd_deadline_after(&ts, due - now);
            pthread_cond_timedwait(&d->cv, &d->mu, &ts);
            continue;
        }
        due = now + d->opts.block_ms;                              /* the next tick, whatever this one does */
        if (d->busy || (d->count == 0 && d->daa >= d->mine_until)) /* a reorg holds the sequence, or nothing to mine */
            continue;
        /* Txs a reorg put back are mined again block after block, without
         * waiting for the ticks: a real chain's new branch carries them
         * already, and a move sent meanwhile queues behind them. */
        if (d->catchup)
            due = now;
        dblock b;
        if (block_take(d, &b) != KD_OK) {
            KD_LOG_E("devnet", "out of memory building a block");
            continue;
        }
        d->busy = 1;
        pthread_mutex_unlock(&d->mu);

        char detail[KD_DETAIL_MAX] = "";
        kd_devnet_event ev = {
            .kind = KD_DEVNET_EVENT_BLOCK, .hash = b.hash, .daa = b.daa, .tx_count = (uint32_t)b.n, .detail = detail};
        int ok = block_send(d, &b, &ev, detail, sizeof detail);

        pthread_mutex_lock(&d->mu);
        if (ok) {
            chain_push(d, &b);
            d->blocks_sent++;
        } else {
            if (ev.err != KD_ERR_CLOSED)
                KD_LOG_E("devnet", "the engine refused a block of %zu txs (%s: %s); its txs are dropped", b.n,
                         kd_err_code(ev.err), detail);
            txs_free(b.txs, b.n);
        }
        ev.height = d->height;
        d->busy = 0;
        pthread_cond_broadcast(&d->cv);
        pthread_mutex_unlock(&d->mu);
        if (ev.err != KD_ERR_CLOSED)
            emit(d, &ev);
        pthread_mutex_lock(&d->mu);
    }
    pthread_mutex_unlock(&d->mu);
    return NULL;
}

/* ------------------------------------------------------------- public */

kd_err kd_devnet_submit(kd_devnet *d, const uint8_t *payload, size_t len, uint8_t tx_id_out[KD_HASH_LEN])
{
    if (len > KD_DEVNET_MAX_PAYLOAD)
        return KD_ERR_TOO_LARGE;
    dtx tx = {.len = len, .payload = malloc(len ? len : 1)};
    if (!tx.payload)
        return KD_ERR_NOMEM;
    if (len)
        memcpy(tx.payload, payload, len);
    kd_err err = KD_OK;
    pthread_mutex_lock(&d->mu);
    if (atomic_load(&d->stop))
        err = KD_ERR_CLOSED;
    else if (d->count >= KD_DEVNET_MAX_PENDING)
        err = KD_ERR_BUSY;
    if (!err) {
        static const char tag[] = "kdapp-devnet-tx";
        uint8_t ctr[8];
        kd_put_u64be(ctr, d->tx_counter++);
        kd_sha256_ctx h;
        if (!(err = kd_sha256_init(&h))) {
            kd_sha256_update(&h, tag, sizeof tag - 1);
            kd_sha256_update(&h, d->salt, KD_HASH_LEN);
            kd_sha256_update(&h, payload, len);
            kd_sha256_update(&h, ctr, sizeof ctr);
            kd_sha256_final(&h, tx.id);
        }
        kd_sha256_fini(&h);
    }
    if (!err)
        err = queue_push_back(d, &tx);
    pthread_mutex_unlock(&d->mu);
    if (err) {
        free(tx.payload);
        return err;
    }
    memcpy(tx_id_out, tx.id, KD_HASH_LEN);
    return KD_OK;
}

/* Takes the sequence (mutex held): waits up to REORG_WAIT_MS for a block in
 * flight; an engine that does not answer by then is reported as busy
 * rather than leaving a reorg queued to happen at some surprising later
 * moment. */
static kd_err sequence_take(kd_devnet *d)
{
    struct timespec ts;
    kd_deadline_after(&ts, REORG_WAIT_MS);
    while (d->busy && !atomic_load(&d->stop))
        if (pthread_cond_timedwait(&d->cv, &d->mu, &ts) != 0 && d->busy)
            return KD_ERR_BUSY;
    if (atomic_load(&d->stop))
        return KD_ERR_CLOSED;
    d->busy = 1;
    return KD_OK;
}

/* Re-queues the txs of the newest `k` blocks (mutex held, blocks removed). */
static kd_err requeue(kd_devnet *d, size_t k, double drop, int reorder, kd_devnet_reorg_result *res)
{
    size_t total = 0;
    for (size_t i = 0; i < k; i++)
        total += ring_at(d, d->ring_len - 1 - i)->n;
    dtx *txs = malloc((total ? total : 1) * sizeof *txs);
    if (!txs)
        return KD_ERR_NOMEM;
    size_t n = 0;
    /* oldest reverted block first, each in block order */
    for (size_t i = k; i-- > 0;) {
        dblock *b = ring_at(d, d->ring_len - 1 - i);
        for (size_t j = 0; j < b->n; j++) {
            if (drop > 0 && rng_unit(&d->rng) < drop) {
                free(b->txs[j].payload);
                res->dropped++;
            } else {
                txs[n++] = b->txs[j];
            }
        }
        free(b->txs);
        b->txs = NULL;
        b->n = 0;
    }
    if (reorder)
        for (size_t i = n; i > 1; i--) {
            size_t j = (size_t)(rng_next(&d->rng) % i);
            dtx t = txs[i - 1];
            txs[i - 1] = txs[j];
            txs[j] = t;
        }
    /* the blocks leave the chain; the tip goes back to the oldest one's parent */
    dblock *oldest = ring_at(d, d->ring_len - k);
    d->has_tip = d->height > k; /* reverting to genesis leaves no tip */
    memcpy(d->tip, oldest->parent, KD_HASH_LEN);
    d->ring_len -= k;
    d->height -= k;
    res->reincluded = (uint32_t)n;
    kd_err err = queue_push_front(d, txs, n);
    if (!err)
        d->catchup += n;
    if (err)
        txs_free(txs, n);
    else
        free(txs);
    return err;
}

kd_err kd_devnet_reorg(kd_devnet *d, uint32_t depth, double drop, int reorder, kd_devnet_reorg_result *res)
{
    memset(res, 0, sizeof *res);
    if (depth == 0 || !(drop >= 0.0 && drop <= 1.0)) {
        snprintf(res->detail, sizeof res->detail, "%s",
                 depth == 0 ? "the reorg depth must be at least 1" : "the drop probability must be in [0, 1]");
        return KD_ERR_INVALID_ARG;
    }
    kd_buf *msgs = calloc(depth, sizeof *msgs);
    if (!msgs)
        return KD_ERR_NOMEM;
    kd_ingest_reply reply;
    memset(&reply, 0, sizeof reply);
    pthread_mutex_lock(&d->mu);
    kd_err err = sequence_take(d);
    if (err) {
        snprintf(res->detail, sizeof res->detail, "%s",
                 err == KD_ERR_BUSY
                     ? "a block has been waiting for the engine's acknowledgement for over " REORG_WAIT_TEXT
                       "; is the engine running? nothing was reverted"
                     : "the devnet is closing");
        goto unlock;
    }
    if (depth > d->ring_len) {
        snprintf(res->detail, sizeof res->detail, "the devnet knows only %zu applied block%s; cannot revert %u",
                 d->ring_len, d->ring_len == 1 ? "" : "s", depth);
        err = KD_ERR_NOT_FOUND;
        goto release;
    }
    if (d->engine_tip.finality_depth && depth > d->engine_tip.revertible) {
        /* The engine would refuse the first revert below its finality
         * horizon and every one after it (not the tip): say so now. */
        snprintf(res->detail, sizeof res->detail,
                 "a reorg of %u blocks reaches beyond the store's finality: only the last %llu block%s can be "
                 "reverted (finality depth %llu); nothing was reverted",
                 depth, (unsigned long long)d->engine_tip.revertible, d->engine_tip.revertible == 1 ? "" : "s",
                 (unsigned long long)d->engine_tip.finality_depth);
        err = KD_ERR_BEYOND_FINALITY;
        goto release;
    }
    for (uint32_t i = 0; i < depth && !err; i++) { /* newest first */
        kd_buf_init(&msgs[i]);
        err = kd_wire_revert(ring_at(d, d->ring_len - 1 - i)->hash, &msgs[i]);
    }
    if (err)
        goto release;
    pthread_mutex_unlock(&d->mu);
    err = exchange(d, msgs, depth, &reply);
    pthread_mutex_lock(&d->mu);
    if (err) {
        snprintf(res->detail, sizeof res->detail, "the devnet is closing");
        goto release;
    }
    size_t k = 0;
    while (k < depth && k < reply.count && reply.results[k].status != KD_MSG_REFUSED)
        k++;
    if (k < depth) {
        res->engine_err = reply.err ? reply.err : k < reply.count ? reply.results[k].err : KD_ERR_INTERNAL;
        snprintf(res->detail, sizeof res->detail, "the engine refused revert %zu of %u: %.140s", k + 1, depth,
                 reply.err         ? reply.detail
                 : k < reply.count ? reply.results[k].detail
                                   : "no result");
        err = res->engine_err;
    }
    d->engine_tip = reply.tip;
    res->reverted = (uint32_t)k;
    kd_err qerr = k ? requeue(d, k, drop, reorder, res) : KD_OK;
    if (qerr && !err)
        err = qerr;
release:
    res->height = d->height;
    res->has_tip = d->has_tip;
    memcpy(res->tip, d->tip, KD_HASH_LEN);
    d->busy = 0;
    pthread_cond_broadcast(&d->cv);
unlock:
    pthread_mutex_unlock(&d->mu);
    if (res->reverted || res->engine_err) {
        kd_devnet_event ev = {.kind = KD_DEVNET_EVENT_REORG,
                              .hash = res->has_tip ? res->tip : NULL,
                              .height = res->height,
                              .reverted = res->reverted,
                              .reincluded = res->reincluded,
                              .dropped = res->dropped,
                              .err = res->engine_err,
                              .detail = res->detail};
        emit(d, &ev);
    }
    for (uint32_t i = 0; i < depth; i++)
        kd_buf_fini(&msgs[i]);
    free(msgs);
    kd_ingest_reply_fini(&reply);
    return err;
}

kd_err kd_devnet_advance(kd_devnet *d, uint64_t daa)
{
    pthread_mutex_lock(&d->mu);
    kd_err err = atomic_load(&d->stop) ? KD_ERR_CLOSED : KD_OK;
    if (!err && daa > d->mine_until) {
        d->mine_until = daa;
        pthread_cond_broadcast(&d->cv);
    }
    pthread_mutex_unlock(&d->mu);
    return err;
}

void kd_devnet_status(kd_devnet *d, kd_devnet_info *out)
{
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&d->mu);
    out->height = d->height;
    out->blocks_sent = d->blocks_sent;
    out->pending = (uint32_t)d->count;
    out->busy = d->busy;
    out->daa = d->daa;
    out->has_tip = d->has_tip;
    memcpy(out->tip, d->tip, KD_HASH_LEN);
    out->engine_tip = d->engine_tip;
    pthread_mutex_unlock(&d->mu);
}

kd_err kd_devnet_wait_idle(kd_devnet *d, uint32_t timeout_ms)
{
    struct timespec ts;
    kd_deadline_after(&ts, timeout_ms);
    kd_err err = KD_OK;
    pthread_mutex_lock(&d->mu);
    while ((d->count > 0 || d->busy || d->daa < d->mine_until) && !atomic_load(&d->stop) && !err) {
        if (timeout_ms == 0)
            pthread_cond_wait(&d->cv, &d->mu);
        else if (pthread_cond_timedwait(&d->cv, &d->mu, &ts) != 0)
            err = (d->count > 0 || d->busy) ? KD_ERR_TIMEOUT : KD_OK;
    }
    if (!err && atomic_load(&d->stop) && (d->count > 0 || d->busy))
        err = KD_ERR_CLOSED;
    pthread_mutex_unlock(&d->mu);
    return err;
}

/* ------------------------------------------------------- open / close */

/* A per-run salt: the clocks, the pid and the handle's address make it
 * unique to this run, which is all it is for (not a secret). */
static void make_salt(kd_devnet *d)
{
    uint8_t buf[40];
    kd_put_u64be(buf, kd_wall_ms());
    kd_put_u64be(buf + 8, kd_now_ms());
    kd_put_u64be(buf + 16, (uint64_t)getpid());
    kd_put_u64be(buf + 24, d->opts.seed);
    kd_put_u64be(buf + 32, (uint64_t)(uintptr_t)d);
    kd_sha256(buf, sizeof buf, d->salt);
}

kd_err kd_devnet_open(const kd_devnet_options *opts, kd_devnet **out, char *why, size_t why_len)
{
    if (!opts->engine_url || !*opts->engine_url) {
        snprintf(why, why_len, "the devnet needs the engine's ingest URL");
        return KD_ERR_INVALID_ARG;
    }
    kd_devnet *d = calloc(1, sizeof *d);
    if (!d)
        return KD_ERR_NOMEM;
    kd_err err = KD_ERR_NOMEM;
    d->opts = *opts;
    if (!d->opts.block_ms)
        d->opts.block_ms = KD_DEVNET_DEFAULT_BLOCK_MS;
    if (!d->opts.max_txs_per_block)
        d->opts.max_txs_per_block = KD_DEVNET_DEFAULT_MAX_TXS;
    d->rng = opts->seed;
    make_salt(d);
    d->engine_url = strdup(opts->engine_url);
    d->listen_urls = strdup(opts->listen_urls ? opts->listen_urls : "");
    d->ring = calloc(KD_DEVNET_CHAIN_MAX, sizeof *d->ring);
    if (!d->engine_url || !d->listen_urls || !d->ring) {
        snprintf(why, why_len, "out of memory");
        goto fail_alloc;
    }
    d->opts.engine_url = d->engine_url;
    d->opts.listen_urls = d->listen_urls;
    if (kd_cond_init_monotonic(&d->cv) != KD_OK) {
        snprintf(why, why_len, "cannot create a condition variable");
        goto fail_alloc;
    }
    pthread_mutex_init(&d->mu, NULL);
    /* A devnet is a local chain: a store that follows a Kaspa network
     * refuses its blocks (wrong_chain) instead of mixing two chains. */
    if ((err = kd_ingest_client_open(d->engine_url, EXCHANGE_TIMEOUT_MS, &d->client, why, why_len)) ||
        (err = kd_ingest_client_name_chain(d->client, KD_CHAIN_LOCAL)))
        goto fail;
    err = KD_ERR_NOMEM;
    if (pthread_create(&d->producer, NULL, produce, d) != 0) {
        snprintf(why, why_len, "cannot start the block producer thread");
        goto fail;
    }
    d->producer_started = 1;
    if (*d->listen_urls && (err = kd_devnet_control_open(d, d->listen_urls, &d->control, why, why_len)))
        goto fail;
    *out = d;
    return KD_OK;
fail:
    kd_devnet_close(d);
    return err;
fail_alloc:
    free(d->engine_url);
    free(d->listen_urls);
    free(d->ring);
    free(d);
    return err;
}

void kd_devnet_close(kd_devnet *d)
{
    if (!d)
        return;
    pthread_mutex_lock(&d->mu);
    atomic_store(&d->stop, 1);
    pthread_cond_broadcast(&d->cv);
    pthread_mutex_unlock(&d->mu);
    kd_devnet_control_close(d->control); /* reorgs already answer "closed" */
    if (d->producer_started)
        pthread_join(d->producer, NULL);
    kd_ingest_client_close(d->client);
    for (size_t i = 0; i < d->ring_len; i++) {
        dblock *b = ring_at(d, i);
        txs_free(b->txs, b->n);
    }
    for (size_t i = 0; i < d->count; i++)
        free(d->items[d->head + i].payload);
    free(d->items);
    free(d->ring);
    pthread_cond_destroy(&d->cv);
    pthread_mutex_destroy(&d->mu);
    free(d->engine_url);
    free(d->listen_urls);
    free(d);
}
