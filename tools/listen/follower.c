/*
 * follower.c — the virtual chain follower (follower.h).
 *
 * Protocol sources followed (read, not copied):
 *   kaspanet/rusty-kaspa rpc/core/src/model/message.rs (GetVirtualChainFromBlock
 *     request/response, VirtualChainChangedNotification, GetBlock, GetSink,
 *     GetBlockDagInfo, GetServerInfo), rpc/core/src/model/{block,header,tx}.rs
 *     (RpcBlock, RpcHeader, RpcTransaction serde names), rpc/core/src/api/ops.rs
 *     (method names), notify/src/scope.rs (the subscribe scope),
 *     rpc/wrpc/server/src/{router,connection}.rs (subscribe, notifications),
 *     rpc/service/src/service.rs (get_virtual_chain_from_block_call: batches
 *     bounded by mergeset_size_limit * 10 added blocks),
 *     consensus/src/consensus/mod.rs (get_virtual_chain_from_block: the
 *     errors for an unknown or pruned start hash), consensus/core/src/
 *     errors/consensus.rs (their texts), consensus/core/src/network.rs
 *     (default wRPC JSON ports);
 *   workflow-rs/workflow-rs rpc/src/messages.rs and rpc/src/server/protocol/
 *     serde_json.rs (the JSON frames of requests, replies, errors and
 *     notifications);
 *   kasperience/kdapp kdapp/src/proxy.rs (run_listener: the poll loop from
 *     the last accepting block, reverts first, coinbase skipped, the
 *     mergeset walk for payloads) and kdapp/src/generator.rs (the id
 *     pattern and payload header).
 *
 * The loop, per round:
 *
 *   engine tip ──getVirtualChainFromBlock(tip)──► removed[] added[] accepted[]
 *        ▲                                               │ getBlock(added) → daa, time, mergeset
 *        │                                               │ getBlock(merged, txs) → payloads (only
 *        └──── IngestReply.tip ◄── reverts, accepts ◄────┘   when an accepted id fits the pattern)
 */
#include "tools/listen/follower.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/bytes.h"
#include "engine/logger.h"
#include "engine/netutil.h"
#include "engine/wire.h"
#include "tools/listen/kaspa_rpc.h"
#include "tools/listen/wrpc_client.h"

/* Most chain events in one IngestRequest (below KD_INGEST_MAX_MSGS). */
#define SEND_CHUNK 256u
#define INGEST_TIMEOUT_MS 1000u
#define BACKOFF_MIN_MS 100u

struct kd_listener {
    kd_listen_options o;
    char *rpc_url, *network;
    uint8_t from[KD_HASH_LEN];
    int has_from;

    pthread_mutex_t mu;
    pthread_cond_t cv;
    atomic_int stop;
    kd_wrpc *rpc; /* under mu for kd_listener_stop */

    int has_start;
    uint8_t start[KD_HASH_LEN]; /* the engine's tip: where the next round starts */
    int gone;                   /* the node does not know the start: stop */
    uint64_t sink_time_ms;      /* the node's sink's header time at this round's start (0: unknown) */
};

static void emit(kd_listener *l, const kd_listen_event *ev)
{
    if (l->o.on_event)
        l->o.on_event(l->o.event_ctx, ev);
}

/* Sleeps up to ms, waking early on stop. */
static void nap(kd_listener *l, uint32_t ms)
{
    struct timespec ts;
    kd_deadline_after(&ts, ms);
    pthread_mutex_lock(&l->mu);
    if (!atomic_load(&l->stop))
        pthread_cond_timedwait(&l->cv, &l->mu, &ts);
    pthread_mutex_unlock(&l->mu);
}

static void hex_of(const uint8_t h[KD_HASH_LEN], char out[2 * KD_HASH_LEN + 1]) { kd_hex_encode(h, KD_HASH_LEN, out); }

/* ------------------------------------------------------ engine side */

static int permanent(kd_err err)
{
    return err == KD_ERR_DECODE || err == KD_ERR_TOO_LARGE || err == KD_ERR_INVALID_ARG || err == KD_ERR_UNSUPPORTED ||
           err == KD_ERR_WRONG_CHAIN;
}

/* Sends until the engine answers (re-sends are idempotent: accepts by
 * hash, a revert of a block already reverted is refused only when it is
 * not the tip, and the tip reply tells the next start). Returns KD_OK with
 * a reply, or KD_ERR_CLOSED on stop. */
static kd_err exchange(kd_listener *l, const kd_buf *msgs, size_t n, kd_ingest_reply *reply)
{
    for (unsigned attempt = 0;; attempt++) {
        if (atomic_load(&l->stop))
            return KD_ERR_CLOSED;
        memset(reply, 0, sizeof *reply);
        kd_err err = kd_ingest_client_send_source(l->o.ingest, msgs, n, l->sink_time_ms, reply);
        if (err == KD_ERR_TIMEOUT) {
            if (attempt % 10 == 9)
                KD_LOG_W("listen", "no answer from the engine yet; still re-sending");
            continue;
        }
        if (err) {
            KD_LOG_W("listen", "ingest exchange failed: %s; re-trying", kd_err_str(err));
            nap(l, 300);
            continue;
        }
        if (reply->err && !permanent(reply->err)) {
            KD_LOG_W("listen", "the engine failed (%s: %s); re-trying", kd_err_code(reply->err), reply->detail);
            kd_ingest_reply_fini(reply);
            nap(l, 300);
            continue;
        }
        return KD_OK;
    }
}

/* Asks the engine for its tip with a dry run of an empty block. */
static kd_err engine_tip(kd_listener *l, kd_tip *tip, char *why, size_t why_len)
{
    static const char tag[] = "kdapp-listen-tip-probe";
    uint8_t probe[KD_HASH_LEN];
    kd_sha256(tag, sizeof tag - 1, probe);
    kd_buf blk;
    kd_buf_init(&blk);
    kd_err err = kd_wire_accept(probe, 0, 0, NULL, 0, &blk);
    for (unsigned attempt = 0; !err; attempt++) {
        if (atomic_load(&l->stop)) {
            err = KD_ERR_CLOSED;
            break;
        }
        kd_ingest_reply reply;
        memset(&reply, 0, sizeof reply);
        err = kd_ingest_client_dry_run(l->o.ingest, &blk, NULL, 0, &reply);
        if (err == KD_ERR_TIMEOUT) {
            if (attempt % 10 == 9)
                KD_LOG_W("listen", "no answer from the engine yet; still asking for its tip");
            err = KD_OK;
            continue;
        }
        if (!err && reply.err) {
            err = reply.err;
            snprintf(why, why_len, "the engine refused the tip query: %s", reply.detail);
        } else if (!err) {
            *tip = reply.tip;
        } else {
            snprintf(why, why_len, "the tip query failed: %s", kd_err_str(err));
        }
        kd_ingest_reply_fini(&reply);
        break;
    }
    kd_buf_fini(&blk);
    return err;
}

/* Sends `n` messages in chunks; stops at the first refusal. On return
 * l->start is the engine's tip. `quiet`: no event per message. */
static kd_err send_msgs(kd_listener *l, const kd_buf *msgs, size_t n, int quiet, char *why, size_t why_len)
{
    for (size_t at = 0; at < n;) {
        size_t k = n - at < SEND_CHUNK ? n - at : SEND_CHUNK;
        kd_ingest_reply reply;
        kd_err err = exchange(l, msgs + at, k, &reply);
        if (err)
            return err;
        if (reply.tip.has_tip) {
            memcpy(l->start, reply.tip.hash, KD_HASH_LEN);
            l->has_start = 1;
        } else {
            l->has_start = 0;
        }
        if (reply.err) {
            snprintf(why, why_len, "the engine refused a request (%s: %s)", kd_err_code(reply.err), reply.detail);
            err = reply.err;
        }
        for (size_t i = 0; i < reply.count && !err; i++) {
            const kd_msg_result *r = &reply.results[i];
            char h[2 * KD_HASH_LEN + 1];
            hex_of(r->block_hash, h);
            if (r->status == KD_MSG_REFUSED) {
                err = r->err;
                snprintf(why, why_len, "the engine refused the %s of %s (%s: %s)%s", r->reverted ? "revert" : "accept",
                         h, kd_err_code(r->err), r->detail,
                         r->err == KD_ERR_BEYOND_FINALITY
                             ? "; a re-sync is needed: follow the node again into a new data directory"
                             : "");
                break;
            }
            kd_listen_event ev = {.kind = r->reverted ? KD_LISTEN_EVENT_REVERT : KD_LISTEN_EVENT_ACCEPT,
                                  .hash = r->block_hash};
            for (size_t t = 0; t < r->tx_count; t++)
                ev.txs_applied += r->txs[t].applied ? 1u : 0u;
            ev.txs_matched = (uint32_t)r->tx_count;
            if (!quiet)
                emit(l, &ev);
        }
        if (!err && reply.count != k) {
            snprintf(why, why_len, "the engine answered %zu results for %zu messages", reply.count, k);
            err = KD_ERR_DECODE;
        }
        kd_ingest_reply_fini(&reply);
        if (err)
            return err;
        at += k;
    }
    return KD_OK;
}

/* --------------------------------------------------------- node side */

static kd_err call(kd_listener *l, const char *method, json_t *params, json_t **result, char *why, size_t why_len)
{
    kd_err err =
        params ? kd_wrpc_call(l->rpc, method, params, l->o.rpc_timeout_ms, result, why, why_len) : KD_ERR_NOMEM;
    json_decref(params);
    return err;
}

static kd_err get_block(kd_listener *l, const uint8_t hash[KD_HASH_LEN], int txs, kd_kaspa_block *out, char *why,
                        size_t why_len)
{
    char h[2 * KD_HASH_LEN + 1];
    hex_of(hash, h);
    json_t *res;
    kd_err err =
        call(l, "getBlock", json_pack("{s:s, s:b}", "hash", h, "includeTransactions", txs), &res, why, why_len);
    if (err)
        return err;
    err = kd_kaspa_block_parse(res, txs, out, why, why_len);
    json_decref(res);
    if (!err && memcmp(out->hash, hash, KD_HASH_LEN)) {
        snprintf(why, why_len, "getBlock %.16s…: the node answered with another block", h);
        kd_kaspa_block_fini(out);
        err = KD_ERR_PARSE;
    }
    return err;
}

/* Connects (or reconnects), checks the network and subscribes. */
static kd_err handshake(kd_listener *l, char *why, size_t why_len)
{
    kd_err err;
    if (!l->rpc) {
        kd_wrpc *c = NULL;
        err = kd_wrpc_open(l->rpc_url, l->o.rpc_timeout_ms, &c, why, why_len);
        if (c) {
            pthread_mutex_lock(&l->mu);
            l->rpc = c;
            if (atomic_load(&l->stop))
                kd_wrpc_interrupt(c);
            pthread_mutex_unlock(&l->mu);
        }
    } else {
        err = kd_wrpc_reconnect(l->rpc, l->o.rpc_timeout_ms, why, why_len);
    }
    if (err)
        return err;
    json_t *res;
    if ((err = call(l, "getServerInfo", json_object(), &res, why, why_len)))
        return err;
    kd_kaspa_server_info si;
    err = kd_kaspa_server_info_parse(res, &si, why, why_len);
    json_decref(res);
    if (err)
        return err;
    if (l->network && strcmp(l->network, si.network_id)) {
        snprintf(why, why_len, "the node at %s is on %s, not %s", l->rpc_url, si.network_id, l->network);
        return KD_ERR_INVALID_ARG;
    }
    if (!si.is_synced) {
        snprintf(why, why_len, "the node (%s) is not synced yet", si.server_version);
        return KD_ERR_BUSY;
    }
    /* The subscription only wakes the loop early: without it, polling. */
    char sub_why[256];
    if (call(l, "subscribe", json_pack("{s:{s:b}}", "VirtualChainChanged", "include_accepted_transaction_ids", 0), &res,
             sub_why, sizeof sub_why) == KD_OK)
        json_decref(res);
    else
        KD_LOG_W("listen", "no virtual chain notifications (%s); polling only", sub_why);
    char text[160];
    snprintf(text, sizeof text, "kaspad %s on %s", si.server_version, si.network_id);
    kd_listen_event ev = {.kind = KD_LISTEN_EVENT_CONNECTED, .text = text};
    emit(l, &ev);
    return KD_OK;
}

/* The start of the next round: the engine's tip, or an anchor. */
static kd_err find_start(kd_listener *l, char *why, size_t why_len)
{
    kd_tip tip;
    kd_err err = engine_tip(l, &tip, why, why_len);
    if (err)
        return err;
    if (tip.has_tip) {
        if (l->has_from && memcmp(l->from, tip.hash, KD_HASH_LEN)) {
            char h[2 * KD_HASH_LEN + 1];
            hex_of(tip.hash, h);
            KD_LOG_W("listen", "--from is ignored: the engine already holds blocks and resumes from its tip %s", h);
            l->has_from = 0;
        }
        memcpy(l->start, tip.hash, KD_HASH_LEN);
        l->has_start = 1;
        return KD_OK;
    }
    uint8_t anchor[KD_HASH_LEN];
    if (l->has_from) {
        memcpy(anchor, l->from, KD_HASH_LEN);
    } else {
        json_t *res;
        if ((err = call(l, "getSink", json_object(), &res, why, why_len)))
            return err;
        const char *s = json_string_value(json_object_get(res, "sink"));
        int bad = kd_kaspa_hash_parse(s, anchor);
        json_decref(res);
        if (bad) {
            snprintf(why, why_len, "getSink: sink is not a 64-digit hex hash");
            return KD_ERR_PARSE;
        }
    }
    kd_kaspa_block b;
    if ((err = get_block(l, anchor, 0, &b, why, why_len))) {
        if (err == KD_ERR_NOT_FOUND) {
            char h[2 * KD_HASH_LEN + 1], node_msg[256];
            hex_of(anchor, h);
            snprintf(node_msg, sizeof node_msg, "%s", why);
            snprintf(why, why_len, "the node does not know the start block %s (it answered: %.200s)%s", h, node_msg,
                     l->has_from ? "; give a --from hash of this node's chain, or none to start at its sink" : "");
            l->gone = 1;
        }
        return err;
    }
    kd_buf msg;
    kd_buf_init(&msg);
    err = kd_wire_accept(b.hash, b.daa_score, b.timestamp_ms, NULL, 0, &msg);
    if (!err)
        err = send_msgs(l, &msg, 1, 1, why, why_len);
    if (!err) {
        kd_listen_event ev = {.kind = KD_LISTEN_EVENT_ANCHOR, .hash = b.hash, .daa = b.daa_score};
        emit(l, &ev);
    }
    kd_buf_fini(&msg);
    kd_kaspa_block_fini(&b);
    return err;
}

/* The payloads of `want` (ids, in acceptance order) from the mergeset of
 * `blk`, header stripped; txs[i].payload NULL for a tx whose payload lacks
 * our prefix (an id that fits the pattern by chance). */
static kd_err collect_payloads(kd_listener *l, const kd_kaspa_block *blk, const kd_khash *want, size_t n_want,
                               kd_wire_tx *txs, uint8_t **owned, char *why, size_t why_len)
{
    size_t found = 0;
    kd_err err = KD_OK;
    for (size_t m = 0; m < blk->n_blues + blk->n_reds && found < n_want && !err; m++) {
        kd_kaspa_block mb;
        if ((err = get_block(l, blk->mergeset[m], 1, &mb, why, why_len)))
            break;
        for (size_t t = 1; t < mb.n_txs && found < n_want; t++) /* [0] is the coinbase */
            for (size_t w = 0; w < n_want; w++) {
                if (owned[w] || memcmp(mb.txs[t].id, want[w], KD_HASH_LEN))
                    continue;
                memcpy(txs[w].tx_id, want[w], KD_HASH_LEN);
                owned[w] = mb.txs[t].payload; /* taken over */
                mb.txs[t].payload = NULL;
                if (!owned[w]) {
                    err = KD_ERR_NOMEM;
                } else if (kd_tx_filter_payload(&l->o.filter, owned[w], mb.txs[t].payload_len)) {
                    txs[w].payload = owned[w] + KD_TX_HEADER_LEN;
                    txs[w].payload_len = mb.txs[t].payload_len - KD_TX_HEADER_LEN;
                }
                found++;
                break;
            }
        kd_kaspa_block_fini(&mb);
    }
    if (!err && found < n_want) {
        char h[2 * KD_HASH_LEN + 1];
        hex_of(blk->hash, h);
        snprintf(why, why_len, "the mergeset of %s lacks %zu of its accepted transactions", h, n_want - found);
        err = KD_ERR_PARSE;
    }
    return err;
}

/* One added chain block as an encoded accept. */
static kd_err build_accept(kd_listener *l, const uint8_t hash[KD_HASH_LEN], const kd_kaspa_acceptance *acc, kd_buf *out,
                           char *why, size_t why_len)
{
    kd_kaspa_block blk;
    kd_err err = get_block(l, hash, 0, &blk, why, why_len);
    if (err)
        return err;
    size_t n_want = 0;
    kd_khash *want = calloc(acc->n_ids ? acc->n_ids : 1, sizeof *want);
    kd_wire_tx *txs = calloc(acc->n_ids ? acc->n_ids : 1, sizeof *txs);
    uint8_t **owned = calloc(acc->n_ids ? acc->n_ids : 1, sizeof *owned);
    if (!want || !txs || !owned) {
        err = KD_ERR_NOMEM;
        goto done;
    }
    for (size_t i = 1; i < acc->n_ids; i++) /* [0] is the coinbase, as in kdapp's proxy */
        if (kd_tx_filter_id(&l->o.filter, acc->ids[i]))
            memcpy(want[n_want++], acc->ids[i], KD_HASH_LEN);
    if (n_want && !blk.has_verbose) {
        snprintf(why, why_len, "getBlock: the accepting block has no verboseData (no mergeset)");
        err = KD_ERR_PARSE;
        goto done;
    }
    if (n_want && (err = collect_payloads(l, &blk, want, n_want, txs, owned, why, why_len)))
        goto done;
    size_t k = 0; /* keep the ones with our prefix, in order */
    for (size_t i = 0; i < n_want; i++)
        if (txs[i].payload)
            txs[k++] = txs[i];
    err = kd_wire_accept(blk.hash, blk.daa_score, blk.timestamp_ms, txs, k, out);
done:
    for (size_t i = 0; owned && i < n_want; i++)
        free(owned[i]);
    free(owned);
    free(txs);
    free(want);
    kd_kaspa_block_fini(&blk);
    return err;
}

/* The node's sink's time, for the engine's lag gauge: read before the
 * round's blocks, so it is never older than them. */
static kd_err sink_time(kd_listener *l, char *why, size_t why_len)
{
    json_t *res;
    kd_err err = call(l, "getBlockDagInfo", json_object(), &res, why, why_len);
    if (err)
        return err;
    kd_kaspa_dag_info di;
    err = kd_kaspa_dag_info_parse(res, &di, why, why_len);
    json_decref(res);
    kd_kaspa_block b;
    if (!err && !(err = get_block(l, di.sink, 0, &b, why, why_len))) {
        l->sink_time_ms = b.timestamp_ms;
        kd_kaspa_block_fini(&b);
    }
    return err;
}

/* The texts rusty-kaspa answers for a start hash it does not know or no
 * longer keeps (consensus/core/src/errors/consensus.rs and
 * consensus/src/consensus/mod.rs get_virtual_chain_from_block). */
static int unknown_start(const char *node_msg)
{
    return strstr(node_msg, "cannot find") || strstr(node_msg, "retention root") || strstr(node_msg, "not found");
}

/* Rounds until the node has nothing new. */
static kd_err catch_up(kd_listener *l, char *why, size_t why_len)
{
    for (;;) {
        if (atomic_load(&l->stop))
            return KD_ERR_CLOSED;
        if (!l->has_start) {
            kd_err err = find_start(l, why, why_len);
            if (err)
                return err;
            continue;
        }
        char h[2 * KD_HASH_LEN + 1];
        hex_of(l->start, h);
        json_t *res;
        kd_err err =
            call(l, "getVirtualChainFromBlock",
                 json_pack("{s:s, s:b}", "startHash", h, "includeAcceptedTransactionIds", 1), &res, why, why_len);
        if (err == KD_ERR_NOT_FOUND && unknown_start(why)) {
            char node_msg[256];
            snprintf(node_msg, sizeof node_msg, "%s", why);
            snprintf(why, why_len,
                     "the node no longer knows block %s, the engine's tip (it answered: %.200s). The engine cannot "
                     "follow this node from there: a re-sync is needed. Follow the node into a new data directory "
                     "(kdapp listen --data NEW_DIR, which starts at the node's sink), or point --rpc at a node "
                     "that still has the block (an archival node)",
                     h, node_msg);
            l->gone = 1;
            return KD_ERR_NOT_FOUND;
        }
        if (err)
            return err;
        kd_kaspa_chain ch;
        err = kd_kaspa_chain_parse(res, "getVirtualChainFromBlock", 1, &ch, why, why_len);
        json_decref(res);
        if (err)
            return err;
        uint64_t finality = l->o.finality_depth ? l->o.finality_depth : KD_KASPA_FINALITY_DEPTH;
        if (ch.n_removed > finality) {
            char first[2 * KD_HASH_LEN + 1];
            hex_of(ch.removed[ch.n_removed - 1], first);
            snprintf(why, why_len,
                     "the node reports a reorg of %zu chain blocks (back to %s), deeper than the finality depth of "
                     "%llu blocks: the engine cannot revert past finality, so nothing of it was applied. A node "
                     "never reorganises past Kaspa's finality (%u chain blocks); check the node, or follow it into a "
                     "new data directory (a re-sync)",
                     ch.n_removed, first, (unsigned long long)finality, KD_KASPA_FINALITY_DEPTH);
            kd_kaspa_chain_fini(&ch);
            return KD_ERR_BEYOND_FINALITY;
        }
        size_t n = ch.n_removed + ch.n_added;
        if (n == 0) {
            kd_kaspa_chain_fini(&ch);
            return KD_OK;
        }
        if ((err = sink_time(l, why, why_len))) {
            kd_kaspa_chain_fini(&ch);
            return err;
        }
        kd_buf *msgs = calloc(n, sizeof *msgs);
        if (!msgs)
            err = KD_ERR_NOMEM;
        for (size_t i = 0; msgs && i < n; i++)
            kd_buf_init(&msgs[i]);
        for (size_t i = 0; !err && i < ch.n_removed; i++)
            err = kd_wire_revert(ch.removed[i], &msgs[i]);
        for (size_t i = 0; !err && i < ch.n_added; i++)
            err = build_accept(l, ch.added[i], &ch.accepted[i], &msgs[ch.n_removed + i], why, why_len);
        if (!err)
            err = send_msgs(l, msgs, n, 0, why, why_len);
        for (size_t i = 0; msgs && i < n; i++)
            kd_buf_fini(&msgs[i]);
        free(msgs);
        kd_kaspa_chain_fini(&ch);
        if (err)
            return err;
    }
}

/* ------------------------------------------------------------ public */

kd_err kd_listener_alloc(const kd_listen_options *opts, kd_listener **out)
{
    *out = NULL;
    if (!opts->rpc_url || !opts->ingest)
        return KD_ERR_INVALID_ARG;
    kd_listener *l = calloc(1, sizeof *l);
    if (!l)
        return KD_ERR_NOMEM;
    l->o = *opts;
    l->rpc_url = strdup(opts->rpc_url);
    l->network = opts->network ? strdup(opts->network) : NULL;
    if (!l->rpc_url || (opts->network && !l->network)) {
        free(l->rpc_url);
        free(l->network);
        free(l);
        return KD_ERR_NOMEM;
    }
    if (opts->from) {
        memcpy(l->from, opts->from, KD_HASH_LEN);
        l->has_from = 1;
    }
    if (!l->o.rpc_timeout_ms)
        l->o.rpc_timeout_ms = 10000;
    if (!l->o.poll_ms)
        l->o.poll_ms = 1000;
    if (!l->o.backoff_max_ms)
        l->o.backoff_max_ms = 30000;
    pthread_mutex_init(&l->mu, NULL);
    if (kd_cond_init_monotonic(&l->cv) != KD_OK) { /* nap's deadlines are monotonic */
        pthread_mutex_destroy(&l->mu);
        free(l->rpc_url);
        free(l->network);
        free(l);
        return KD_ERR_NOMEM;
    }
    atomic_init(&l->stop, 0);
    *out = l;
    return KD_OK;
}

void kd_listener_free(kd_listener *l)
{
    if (!l)
        return;
    kd_wrpc_close(l->rpc);
    pthread_cond_destroy(&l->cv);
    pthread_mutex_destroy(&l->mu);
    free(l->rpc_url);
    free(l->network);
    free(l);
}

void kd_listener_stop(kd_listener *l)
{
    pthread_mutex_lock(&l->mu);
    atomic_store(&l->stop, 1);
    if (l->rpc)
        kd_wrpc_interrupt(l->rpc);
    pthread_cond_broadcast(&l->cv);
    pthread_mutex_unlock(&l->mu);
}

/* Whether an error ends the run (else: reconnect with backoff). */
static int fatal(kd_err err)
{
    return err == KD_ERR_INVALID_ARG || err == KD_ERR_NOMEM || err == KD_ERR_BEYOND_FINALITY || err == KD_ERR_NOT_TIP ||
           err == KD_ERR_UNKNOWN_BLOCK || err == KD_ERR_DECODE || err == KD_ERR_TOO_LARGE ||
           err == KD_ERR_UNSUPPORTED || err == KD_ERR_BAD_HASH || err == KD_ERR_WRONG_CHAIN;
}

kd_err kd_listener_run(kd_listener *l, char *why, size_t why_len)
{
    uint32_t backoff = BACKOFF_MIN_MS;
    int connected = 0;
    why[0] = 0;
    while (!atomic_load(&l->stop)) {
        kd_err err = KD_OK;
        if (!connected) {
            err = handshake(l, why, why_len);
            if (!err) {
                connected = 1;
                l->has_start = 0; /* resume from what the engine holds */
            }
        }
        if (!err)
            err = catch_up(l, why, why_len);
        if (err == KD_ERR_CLOSED || atomic_load(&l->stop))
            break;
        if (l->gone)
            return KD_ERR_NOT_FOUND;
        if (err && err != KD_ERR_NOT_FOUND && fatal(err)) /* NOT_FOUND: the node refused some call; retry */
            return err;
        if (err) {
            kd_listen_event ev = {.kind = KD_LISTEN_EVENT_RETRY, .text = why, .delay_ms = backoff};
            emit(l, &ev);
            connected = 0;
            nap(l, backoff);
            backoff = backoff * 2 > l->o.backoff_max_ms ? l->o.backoff_max_ms : backoff * 2;
            continue;
        }
        backoff = BACKOFF_MIN_MS;
        (void)kd_wrpc_wait(l->rpc, l->o.poll_ms);
        if (!kd_wrpc_connected(l->rpc)) {
            snprintf(why, why_len, "the node closed the connection");
            kd_listen_event ev = {.kind = KD_LISTEN_EVENT_RETRY, .text = why, .delay_ms = 0};
            emit(l, &ev);
            connected = 0;
        }
    }
    why[0] = 0;
    return KD_OK;
}
