/*
 * fixture_wrpc.c — a fixture kaspad for the listener's tests: a WebSocket
 * server (libwebsockets) speaking wRPC with JSON encoding, its frames and
 * payloads shaped as rusty-kaspa serialises them (workflow-rs rpc/src/
 * messages.rs for the frames; rusty-kaspa rpc/core/src/model/message.rs,
 * block.rs, header.rs, tx.rs for the payloads), over the chain of
 * fixture_chain.h.
 *
 * Methods: getServerInfo, getBlockDagInfo, getSink, getBlock, getBlocks,
 * getVirtualChainFromBlock (at most VC_BATCH added blocks per answer, as a
 * node bounds its batches), subscribe (VirtualChainChanged), ping, and the
 * wallet's: getUtxosByAddresses, submitTransaction, getMempoolEntry,
 * getFeeEstimate, getCurrentNetwork (fixture_ledger.h).
 *
 * Control, one command a line on stdin, each answered "ok CMD" on stdout
 * once done (the tests wait on that line, never on time):
 *   grow N            N blocks on the sink (then a notification)
 *   reorg D N         the newest D chain blocks replaced by N (then a notification)
 *   dup               the last notification sent twice more
 *   drop              every connection closed
 *   drop-mid-reorg    the next answer with removed blocks is sent, then that
 *                     connection is closed at its next getBlock
 *   bad-reply         the next getBlock answer has a malformed daaScore
 *   garbage           frames that are not wRPC messages, to every client
 *   script FILE       the chain written as a block script
 *   record FILE       every block and tx served, u64s as decimal strings
 *                     (fx_chain_write_record)
 *   stats             "requests N, ids >= 2^63 M": the requests answered
 *   drop-on-submit    the next submitTransaction is taken, then that
 *                     connection is closed before the answer
 *   mempool           "mempool N": the txs waiting for a block
 *   quiet             "quiet yes" when no tx waits and --block-ms mines no
 *                     more blocks by itself (until the next tx), else "quiet no"
 *   subs FILE         every accepted submission with the entries it spends,
 *                     one JSON a line (fx_ledger_write_subs)
 *   min-relay-fee N   the mempool's minimum relay fee rate, sompi/kg (kaspad's
 *                     --minrelaytxfee); getFeeEstimate follows it
 *   nest-reply        the next request is answered by a 200,000-deep nested
 *                     JSON array (a hostile node), not by its reply
 *   close-mid-frame   the next request is answered by the first fragment of
 *                     a frame, then the connection is closed
 *   note-unknown      a virtualChainChanged notification naming blocks the
 *                     node does not have (added and removed)
 *   quit
 * Besides, "client subscribed VirtualChainChanged[ with accepted ids]"
 * once a subscription is in place, "client closed STATUS" when a client closes with a close frame
 * and "client gone without a close frame (1006)" when one just vanishes.
 * Usage: fixture_wrpc [--seed N] [--network NAME] [--no-utxoindex] [--no-game]
 * [--block-ms N] [--kaspad 2.0.1|1.1.0|0.14.1]; prints "port P" first.
 * --kaspad picks the node it plays (fixture_ledger.h fx_kaspad), 2.0.1 by
 * default:
 *   2.0.1   serverVersion "2.0.1", rpcApiVersion 1 and rpcApiRevision 0;
 *           headers of version 2, coinbase transactions of version 1 (their
 *           ids made with the v0 scheme: the fixture has no BLAKE3; the
 *           listener reads ids from verboseData), every transaction with
 *           storageMass and the deprecated mass, inputs with computeBudget,
 *           outputs with covenant null; getFeeEstimate 100 sompi/gram; the
 *           mempool of v2.0.1 (fee of max(compute, transient / 2) at
 *           100,000 sompi/kg, no dust rule)
 *   1.1.0   serverVersion "1.1.0", the same API numbers; headers and
 *           coinbases of version 1 and 0, transactions with mass only;
 *           getFeeEstimate 1 sompi/gram; v1.1's mempool (compute mass at
 *           1,000 sompi/kg, dust)
 *   0.14.1  as 1.1.0, with v0.14's getServerInfo (rpcApiVersion [0,1,0,0])
 *           and verboseData.mass: what the pinned WASM SDK reads. --no-game leaves out the scripted
 * game; --block-ms mines a block every N ms while transactions wait (and
 * three more after, so the last one is accepted). FX_TRACE=1 in
 * the environment logs every request and every frame sent on stderr.
 */
#include <jansson.h>
#include <libwebsockets.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/bytes.h"
#include "fixture_chain.h"
#include "fixture_ledger.h"
#include "tools/listen/kaspa_rpc.h"

#define VC_BATCH 8u
#define ZERO_HASH "0000000000000000000000000000000000000000000000000000000000000000"

typedef struct out_msg {
    struct out_msg *next;
    int binary;
    size_t len;
    unsigned char data[]; /* LWS_PRE, then the frame */
} out_msg;

typedef struct pss {
    struct lws *wsi;
    struct pss *next;
    out_msg *head, *tail;
    int close_now, drop_on_get_block, subscribed, peer_closed;
    int close_after_fragment; /* the frame queued last is a first fragment: close after it */
    int with_ids;             /* subscribed with include_accepted_transaction_ids */
    kd_buf rx;
} pss;

typedef struct {
    fx_chain chain;
    fx_ledger ledger;
    char network[32];
    int no_utxoindex, arm_drop_submit;
    unsigned block_ms, idle;
    pss *clients;
    pthread_mutex_t mu;
    char **cmds; /* from the control thread */
    size_t n_cmds;
    int quit, arm_drop_mid_reorg, arm_bad_reply, arm_nest, arm_mid_frame;
    fx_kaspad kaspad;
    uint64_t n_requests, n_big_ids; /* answered; of them with an id >= 2^63 */
    char *last_note[2];             /* without, with accepted ids */
    struct lws_context *ctx;
} server;

static void hexs(const uint8_t *h, char out[2 * KD_HASH_LEN + 1]) { kd_hex_encode(h, KD_HASH_LEN, out); }

static json_t *jhash(const uint8_t *h)
{
    char s[2 * KD_HASH_LEN + 1];
    hexs(h, s);
    return json_string(s);
}

static void enqueue(pss *p, const char *text, size_t len, int binary)
{
    if (getenv("FX_TRACE"))
        fprintf(stderr, "fixture: sends %.*s\n", (int)(len > 300 ? 300 : len), text);
    out_msg *m = malloc(sizeof *m + LWS_PRE + len);
    if (!m)
        return;
    m->next = NULL;
    m->binary = binary;
    m->len = len;
    memcpy(m->data + LWS_PRE, text, len);
    if (p->tail)
        p->tail->next = m;
    else
        p->head = m;
    p->tail = m;
    lws_callback_on_writable(p->wsi);
}

static void send_json(pss *p, json_t *msg)
{
    char *text = kd_kaspa_json_dump(msg);
    if (text)
        enqueue(p, text, strlen(text), 0);
    free(text);
    json_decref(msg);
}

static void reply(pss *p, uint64_t id, const char *method, json_t *params)
{
    send_json(p, json_pack("{s:o, s:s, s:o}", "id", kd_kaspa_u64_new(id), "method", method, "params", params));
}

static void reply_error(pss *p, uint64_t id, const char *method, const char *message)
{
    send_json(p, json_pack("{s:o, s:s, s:{s:i, s:s, s:n}}", "id", kd_kaspa_u64_new(id), "method", method, "error",
                           "code", 0, "message", message, "data"));
}

/* ------------------------------------------------------- payloads */

/* An RpcTransaction: the transaction as kaspa_tx renders it, with the
 * verbose data a node adds (compute mass left 0: the fixture does not
 * weigh its txs), in the shape of the kaspad played: v2.0.1 adds
 * computeBudget to inputs and covenant to outputs and sends storageMass
 * with mass; v1.1 sends mass only; v0.14's verboseData also has "mass"
 * (the pinned SDK reads it). */
static json_t *tx_json(const server *s, const fx_block *b, const fx_tx *tx)
{
    char *text = NULL, why[160];
    json_t *j = NULL;
    uint8_t hash[KD_HASH_LEN];
    if (kd_ktx_json_render(tx->tx, &text) || kd_ktx_hash(tx->tx, 0, hash) ||
        kd_kaspa_json_load(text, strlen(text), &j, why, sizeof why)) {
        free(text);
        return NULL;
    }
    free(text);
    json_t *verbose = json_pack("{s:o, s:o, s:i, s:o, s:I}", "transactionId", jhash(tx->id), "hash", jhash(hash),
                                "computeMass", 0, "blockHash", jhash(b->hash), "blockTime", (json_int_t)b->time_ms);
    if (s->kaspad == FX_KASPAD_V014)
        json_object_set_new(verbose, "mass", json_integer(0));
    json_object_set_new(j, "verboseData", verbose);
    if (s->kaspad == FX_KASPAD_V2) {
        size_t i;
        json_t *v;
        json_array_foreach(json_object_get(j, "inputs"), i, v) json_object_set_new(v, "computeBudget", json_integer(0));
        json_array_foreach(json_object_get(j, "outputs"), i, v) json_object_set_new(v, "covenant", json_null());
    } else {
        json_object_del(j, "storageMass");
    }
    return j;
}

static json_t *block_json(server *s, const fx_block *b, int with_txs, int bad)
{
    const fx_chain *c = &s->chain;
    json_t *parents = json_array(), *ids = json_array(), *blues = json_array(), *reds = json_array(),
           *txs = json_array();
    if (b->parent >= 0) {
        json_t *level0 = json_pack("[o]", jhash(c->blocks[b->parent].hash));
        json_array_append_new(blues, jhash(c->blocks[b->parent].hash));
        if (b->red >= 0) {
            json_array_append_new(level0, jhash(c->blocks[b->red].hash));
            json_array_append_new(reds, jhash(c->blocks[b->red].hash));
        }
        json_array_append_new(parents, level0);
    }
    for (size_t t = 0; t < b->n; t++) {
        json_array_append_new(ids, jhash(b->txs[t].id));
        if (with_txs)
            json_array_append_new(txs, tx_json(s, b, &b->txs[t]));
    }
    json_t *daa = bad ? json_string("not-a-number") : json_integer((json_int_t)b->daa);
    json_t *header =
        json_pack("{s:o, s:i, s:o, s:s, s:s, s:s, s:I, s:i, s:o, s:o, s:s, s:I, s:o}", "hash", jhash(b->hash),
                  "version", s->kaspad == FX_KASPAD_V2 ? 2 : 1, "parentsByLevel", parents, "hashMerkleRoot", ZERO_HASH,
                  "acceptedIdMerkleRoot", ZERO_HASH, "utxoCommitment", ZERO_HASH, "timestamp", (json_int_t)b->time_ms,
                  "bits", 486722099, "nonce", kd_kaspa_u64_new(b->nonce), "daaScore", daa, "blueWork",
                  "000000000000000000000000000000000000000000000001", "blueScore", (json_int_t)b->daa, "pruningPoint",
                  jhash(c->blocks[c->chain[0]].hash));
    json_t *verbose =
        json_pack("{s:o, s:f, s:o, s:o, s:b, s:I, s:[], s:o, s:o, s:b}", "hash", jhash(b->hash), "difficulty", 1.0,
                  "selectedParentHash", b->parent >= 0 ? jhash(c->blocks[b->parent].hash) : json_string(ZERO_HASH),
                  "transactionIds", ids, "isHeaderOnly", 0, "blueScore", (json_int_t)b->daa, "childrenHashes",
                  "mergeSetBluesHashes", blues, "mergeSetRedsHashes", reds, "isChainBlock", b->on_chain);
    return json_pack("{s:{s:o, s:o, s:o}}", "block", "header", header, "transactions", txs, "verboseData", verbose);
}

/* removed (newest first) and added (oldest first, at most `limit`) from
 * block `from` to the sink; accepted ids when `with_ids`. */
static json_t *chain_json(server *s, int from, size_t limit, int with_ids, size_t *n_removed)
{
    const fx_chain *c = &s->chain;
    json_t *removed = json_array(), *added = json_array(), *acc = json_array();
    int i = from;
    *n_removed = 0;
    while (!c->blocks[i].on_chain) {
        json_array_append_new(removed, jhash(c->blocks[i].hash));
        (*n_removed)++;
        i = c->blocks[i].parent;
    }
    size_t pos = 0;
    while (c->chain[pos] != i)
        pos++;
    for (size_t k = pos + 1; k < c->chain_len && k <= pos + limit; k++) {
        const fx_block *b = &c->blocks[c->chain[k]];
        json_array_append_new(added, jhash(b->hash));
        if (with_ids) {
            json_t *ids = json_array();
            const fx_block *body = &c->blocks[b->parent];
            for (size_t t = 0; t < body->n; t++)
                json_array_append_new(ids, jhash(body->txs[t].id));
            if (b->red >= 0) /* the red's txs after the blue's, its coinbase not accepted */
                for (size_t t = 1; t < c->blocks[b->red].n; t++)
                    json_array_append_new(ids, jhash(c->blocks[b->red].txs[t].id));
            json_array_append_new(
                acc, json_pack("{s:o, s:o}", "acceptingBlockHash", jhash(b->hash), "acceptedTransactionIds", ids));
        }
    }
    return json_pack("{s:o, s:o, s:o}", "removedChainBlockHashes", removed, "addedChainBlockHashes", added,
                     "acceptedTransactionIds", acc);
}

/* ------------------------------------------------------- requests */

static int lookup(server *s, const json_t *params, const char *key, pss *p, uint64_t id, const char *method);

/* getBlocks: from lowHash (the genesis when null) up the selected chain
 * to the sink, each chain block after the side block it merges, as
 * GetBlocksResponse {blockHashes, blocks} (blocks only with includeBlocks). */
static void reply_blocks(server *s, pss *p, uint64_t id, const json_t *params)
{
    const fx_chain *c = &s->chain;
    int low = c->chain[0];
    if (!json_is_null(json_object_get(params, "lowHash")) &&
        (low = lookup(s, params, "lowHash", p, id, "getBlocks")) < 0)
        return;
    if (!c->blocks[low].on_chain) {
        reply_error(p, id, "getBlocks", "the fixture answers getBlocks from a block of its selected chain only");
        return;
    }
    int with_blocks = json_is_true(json_object_get(params, "includeBlocks"));
    int with_txs = json_is_true(json_object_get(params, "includeTransactions"));
    json_t *hashes = json_array(), *blocks = json_array();
    size_t pos = 0;
    while (c->chain[pos] != low)
        pos++;
    for (size_t k = pos; k < c->chain_len; k++) {
        const fx_block *b = &c->blocks[c->chain[k]];
        const fx_block *two[2] = {k > pos && b->red >= 0 ? &c->blocks[b->red] : NULL, b};
        for (int i = 0; i < 2; i++) {
            if (!two[i])
                continue;
            json_array_append_new(hashes, jhash(two[i]->hash));
            if (with_blocks) {
                json_t *w = block_json(s, two[i], with_txs, 0);
                json_array_append(blocks, json_object_get(w, "block"));
                json_decref(w);
            }
        }
    }
    reply(p, id, "getBlocks", json_pack("{s:o, s:o}", "blockHashes", hashes, "blocks", blocks));
}

static int lookup(server *s, const json_t *params, const char *key, pss *p, uint64_t id, const char *method)
{
    uint8_t h[KD_HASH_LEN];
    const char *text = json_string_value(json_object_get(params, key));
    int i = text && strlen(text) == 64 && !kd_hex_decode(text, h, KD_HASH_LEN) ? fx_chain_find(&s->chain, h) : -1;
    if (i < 0) {
        char msg[160];
        snprintf(msg, sizeof msg, "cannot find header %s", text ? text : "(none)");
        reply_error(p, id, method, msg);
    }
    return i;
}

/* The wallet's methods (fixture_ledger.h); 0 when `method` is none of them. */
static int wallet_request(server *s, pss *p, uint64_t id, const char *method, const json_t *params)
{
    char msg[600] = "";
    if (!strcmp(method, "getCurrentNetwork")) {
        reply(p, id, method, json_pack("{s:s}", "network", s->network));
    } else if (!strcmp(method, "getFeeEstimate")) {
        /* the lowest bucket is the relay floor, in sompi per gram */
        json_t *b = json_pack("{s:f, s:f}", "feerate", (double)s->ledger.min_rate / 1000.0, "estimatedSeconds", 1.0);
        reply(
            p, id, method,
            json_pack("{s:{s:O, s:[O], s:[O]}}", "estimate", "priorityBucket", b, "normalBuckets", b, "lowBuckets", b));
        json_decref(b);
    } else if (!strcmp(method, "getUtxosByAddresses")) {
        json_t *r = s->no_utxoindex ? NULL : fx_ledger_utxos(&s->ledger, &s->chain, params, msg, sizeof msg);
        if (r)
            reply(p, id, method, r);
        else
            reply_error(p, id, method,
                        s->no_utxoindex ? "Method unavailable. Run the node with the --utxoindex argument." : msg);
    } else if (!strcmp(method, "getMempoolEntry")) {
        uint8_t h[KD_HASH_LEN];
        const char *t = json_string_value(json_object_get(params, "transactionId"));
        if (t && !kd_kaspa_hash_parse(t, h) && fx_ledger_in_mempool(&s->chain, h)) {
            reply(
                p, id, method,
                json_pack("{s:{s:i, s:{s:s}, s:b}}", "mempoolEntry", "fee", 0, "transaction", "id", t, "isOrphan", 0));
        } else {
            snprintf(msg, sizeof msg, "Transaction %s not found", t ? t : "(none)");
            reply_error(p, id, method, msg);
        }
    } else if (!strcmp(method, "submitTransaction")) {
        char hex[2 * KD_HASH_LEN + 1];
        if (fx_ledger_submit(&s->ledger, &s->chain, params, hex, msg, sizeof msg)) {
            reply_error(p, id, method, msg);
        } else if (s->arm_drop_submit) {
            s->arm_drop_submit = 0; /* taken, but the answer is lost with the connection */
            p->close_now = 1;
            lws_callback_on_writable(p->wsi);
        } else {
            reply(p, id, method, json_pack("{s:s}", "transactionId", hex));
        }
        if (getenv("FX_TRACE"))
            fprintf(stderr, "fixture: submit %s: %s\n", hex, msg[0] ? msg : "taken");
    } else {
        return 0;
    }
    return 1;
}

static void handle_request(server *s, pss *p, const char *text, size_t len)
{
    if (getenv("FX_TRACE"))
        fprintf(stderr, "fixture: request %.*s\n", (int)len, text);
    json_t *req;
    char why[200];
    uint64_t id;
    if (kd_kaspa_json_load(text, len, &req, why, sizeof why)) {
        fprintf(stderr, "fixture: a request that is not JSON: %s\n", why);
        return;
    }
    const char *method = json_string_value(json_object_get(req, "method"));
    const char *bad_id = kd_kaspa_u64_of(json_object_get(req, "id"), &id);
    json_t *params = json_object_get(req, "params");
    if (!method || bad_id) {
        fprintf(stderr, "fixture: a request without a method or a u64 id (%s)\n", bad_id ? bad_id : "no method");
        json_decref(req);
        return;
    }
    const fx_chain *c = &s->chain;
    const fx_block *sink = &c->blocks[fx_chain_sink(c)];
    s->n_requests++;
    s->n_big_ids += id >> 63;
    if (s->arm_nest) { /* a hostile node: a frame nested 200,000 deep instead of the reply */
        s->arm_nest = 0;
        enum { DEPTH = 200000 };
        char *deep = malloc(2 * DEPTH);
        if (deep) {
            memset(deep, '[', DEPTH);
            memset(deep + DEPTH, ']', DEPTH);
            enqueue(p, deep, 2 * DEPTH, 0);
            free(deep);
        }
    } else if (s->arm_mid_frame) { /* the first fragment of the reply, then the connection closes */
        s->arm_mid_frame = 0;
        static const char part[] = "{\"id\":";
        enqueue(p, part, sizeof part - 1, 0);
        p->close_after_fragment = 1;
    } else if (!strcmp(method, "getServerInfo")) {
        if (s->kaspad == FX_KASPAD_V014)
            /* v0.14's shape (RPC_API_VERSION [0, 1, 0, 0]), that of the pinned WASM SDK */
            reply(p, id, method,
                  json_pack("{s:[i,i,i,i], s:s, s:s, s:b, s:b, s:I}", "rpcApiVersion", 0, 1, 0, 0, "serverVersion",
                            "0.14.1-fixture", "networkId", s->network, "hasUtxoIndex", !s->no_utxoindex, "isSynced", 1,
                            "virtualDaaScore", (json_int_t)sink->daa));
        else /* v1.0 on: rpcApiVersion and rpcApiRevision (1, 0 in v1.1.0 and v2.0.1) */
            reply(p, id, method,
                  json_pack("{s:i, s:i, s:s, s:s, s:b, s:b, s:I}", "rpcApiVersion", 1, "rpcApiRevision", 0,
                            "serverVersion", s->kaspad == FX_KASPAD_V2 ? "2.0.1" : "1.1.0", "networkId", s->network,
                            "hasUtxoIndex", !s->no_utxoindex, "isSynced", 1, "virtualDaaScore", (json_int_t)sink->daa));
    } else if (!strcmp(method, "getBlockDagInfo")) {
        reply(p, id, method,
              json_pack("{s:s, s:I, s:I, s:[o], s:f, s:I, s:[o], s:o, s:I, s:o}", "network", s->network, "blockCount",
                        (json_int_t)c->n_blocks, "headerCount", (json_int_t)c->n_blocks, "tipHashes", jhash(sink->hash),
                        "difficulty", 1.0, "pastMedianTime", (json_int_t)sink->time_ms, "virtualParentHashes",
                        jhash(sink->hash), "pruningPointHash", jhash(c->blocks[c->chain[0]].hash), "virtualDaaScore",
                        (json_int_t)sink->daa, "sink", jhash(sink->hash)));
    } else if (!strcmp(method, "getSink")) {
        reply(p, id, method, json_pack("{s:o}", "sink", jhash(sink->hash)));
    } else if (!strcmp(method, "ping")) {
        reply(p, id, method, json_object());
    } else if (!strcmp(method, "subscribe")) {
        const json_t *scope = json_object_get(params, "VirtualChainChanged");
        if (json_is_object(scope)) {
            p->subscribed = 1;
            p->with_ids = json_is_true(json_object_get(scope, "include_accepted_transaction_ids"));
            reply(p, id, method, json_pack("{s:i}", "id", 1));
            printf("client subscribed VirtualChainChanged%s\n", p->with_ids ? " with accepted ids" : "");
            fflush(stdout);
        } else {
            reply_error(p, id, method, "unsupported scope");
        }
    } else if (!strcmp(method, "getBlock")) {
        if (p->drop_on_get_block) {
            p->close_now = 1;
            lws_callback_on_writable(p->wsi);
        } else {
            int i = lookup(s, params, "hash", p, id, method);
            if (i >= 0) {
                int bad = s->arm_bad_reply;
                s->arm_bad_reply = 0;
                reply(p, id, method,
                      block_json(s, &c->blocks[i], json_is_true(json_object_get(params, "includeTransactions")), bad));
            }
        }
    } else if (wallet_request(s, p, id, method, params)) {
        /* answered */
    } else if (!strcmp(method, "getBlocks")) {
        reply_blocks(s, p, id, params);
    } else if (!strcmp(method, "getVirtualChainFromBlock")) {
        int i = lookup(s, params, "startHash", p, id, method);
        if (i >= 0) {
            size_t n_removed;
            int with_ids = json_is_true(json_object_get(params, "includeAcceptedTransactionIds"));
            reply(p, id, method, chain_json(s, i, VC_BATCH, with_ids, &n_removed));
            if (n_removed && s->arm_drop_mid_reorg) {
                s->arm_drop_mid_reorg = 0;
                p->drop_on_get_block = 1;
            }
        }
    } else {
        char msg[96];
        snprintf(msg, sizeof msg, "the fixture does not serve %.40s", method);
        reply_error(p, id, method, msg);
    }
    json_decref(req);
}

/* ------------------------------------------------------- control */

/* The last notification to every subscribed client, in the form it
 * subscribed to. */
static void broadcast_note(server *s)
{
    for (pss *p = s->clients; p; p = p->next) {
        const char *text = s->last_note[p->with_ids];
        if (p->subscribed && text)
            enqueue(p, text, strlen(text), 0);
    }
}

/* The notification of a chain change from `old_sink`, with and without
 * the accepted ids. */
static void note_change(server *s, int old_sink)
{
    for (int with_ids = 0; with_ids < 2; with_ids++) {
        size_t n_removed;
        json_t *ch = chain_json(s, old_sink, (size_t)-1 / 2, with_ids, &n_removed);
        json_t *msg = json_pack("{s:s, s:{s:o}}", "method", "virtualChainChangedNotification", "params",
                                "VirtualChainChanged", ch);
        free(s->last_note[with_ids]);
        s->last_note[with_ids] = msg ? kd_kaspa_json_dump(msg) : NULL;
        json_decref(msg);
    }
    broadcast_note(s);
}

static void run_command(server *s, char *cmd)
{
    unsigned a = 0, b = 0;
    char path[512];
    kd_err err = KD_OK;
    int old_sink = fx_chain_sink(&s->chain);
    if (sscanf(cmd, "grow %u", &a) == 1) {
        if (!(err = fx_chain_grow(&s->chain, a)))
            note_change(s, old_sink);
    } else if (sscanf(cmd, "reorg %u %u", &a, &b) == 2) {
        if (!(err = fx_chain_reorg(&s->chain, a, b)))
            note_change(s, old_sink);
    } else if (!strcmp(cmd, "dup")) {
        for (int i = 0; i < 2; i++)
            broadcast_note(s);
    } else if (!strcmp(cmd, "drop")) {
        for (pss *p = s->clients; p; p = p->next) {
            p->close_now = 1;
            lws_callback_on_writable(p->wsi);
        }
    } else if (!strcmp(cmd, "drop-mid-reorg")) {
        s->arm_drop_mid_reorg = 1;
    } else if (!strcmp(cmd, "bad-reply")) {
        s->arm_bad_reply = 1;
    } else if (!strcmp(cmd, "garbage")) {
        static const char *const frames[] = {
            "this is not json",
            "{\"id\":",
            "{\"jsonrpc\":\"2.0\"}",
            "{\"id\":999999,\"method\":\"getSink\",\"params\":{\"sink\":\"00\"}}",
            "{\"method\":\"virtualChainChangedNotification\",\"params\":{\"VirtualChainChanged\":"
            "{\"removedChainBlockHashes\":\"x\"}}}",
            "[1,2,3]",
        };
        for (pss *p = s->clients; p; p = p->next) {
            for (size_t i = 0; i < sizeof frames / sizeof frames[0]; i++)
                enqueue(p, frames[i], strlen(frames[i]), 0);
            enqueue(p, "\x01\x02\x03", 3, 1);
        }
    } else if (sscanf(cmd, "script %511s", path) == 1) {
        FILE *f = fopen(path, "w");
        if (f) {
            fx_chain_write_script(&s->chain, f);
            fclose(f);
        } else {
            err = KD_ERR_IO;
        }
    } else if (sscanf(cmd, "record %511s", path) == 1) {
        FILE *f = fopen(path, "w");
        err = f ? fx_chain_write_record(&s->chain, f) : KD_ERR_IO;
        if (f && fclose(f) && !err)
            err = KD_ERR_IO;
    } else if (!strcmp(cmd, "stats")) {
        printf("requests %llu, ids >= 2^63 %llu\n", (unsigned long long)s->n_requests,
               (unsigned long long)s->n_big_ids);
    } else if (!strcmp(cmd, "drop-on-submit")) {
        s->arm_drop_submit = 1;
    } else if (sscanf(cmd, "subs %511s", path) == 1) {
        FILE *f = fopen(path, "w");
        err = f ? fx_ledger_write_subs(&s->ledger, f) : KD_ERR_IO;
        if (f && fclose(f) && !err)
            err = KD_ERR_IO;
    } else if (sscanf(cmd, "min-relay-fee %u", &a) == 1) {
        s->ledger.min_rate = a;
    } else if (!strcmp(cmd, "nest-reply")) {
        s->arm_nest = 1;
    } else if (!strcmp(cmd, "close-mid-frame")) {
        s->arm_mid_frame = 1;
    } else if (!strcmp(cmd, "note-unknown")) {
        char text[400];
        snprintf(text, sizeof text,
                 "{\"method\":\"virtualChainChangedNotification\",\"params\":{\"VirtualChainChanged\":{"
                 "\"removedChainBlockHashes\":[\"%s\"],\"addedChainBlockHashes\":[\"%s\"],"
                 "\"acceptedTransactionIds\":[]}}}",
                 "ee00000000000000000000000000000000000000000000000000000000000000",
                 "dd00000000000000000000000000000000000000000000000000000000000000");
        for (pss *p = s->clients; p; p = p->next)
            if (p->subscribed)
                enqueue(p, text, strlen(text), 0);
    } else if (!strcmp(cmd, "mempool")) {
        printf("mempool %zu\n", s->chain.n_pending);
    } else if (!strcmp(cmd, "quiet")) {
        printf("quiet %s\n", !s->chain.n_pending && s->idle >= 4 ? "yes" : "no");
    } else if (!strcmp(cmd, "tick")) { /* --block-ms: silent */
        s->idle = s->chain.n_pending ? 0 : s->idle + 1;
        if (s->idle < 4 && !fx_chain_grow(&s->chain, 1))
            note_change(s, old_sink);
        return;
    } else if (!strcmp(cmd, "quit")) {
        pthread_mutex_lock(&s->mu); /* the ticker reads it under the lock */
        s->quit = 1;
        pthread_mutex_unlock(&s->mu);
    } else {
        err = KD_ERR_INVALID_ARG;
    }
    if (err)
        printf("error %s: %s\n", cmd, kd_err_str(err));
    else
        printf("ok %s\n", cmd);
    fflush(stdout);
}

static void drain_commands(server *s)
{
    pthread_mutex_lock(&s->mu);
    char **cmds = s->cmds;
    size_t n = s->n_cmds;
    s->cmds = NULL;
    s->n_cmds = 0;
    pthread_mutex_unlock(&s->mu);
    for (size_t i = 0; i < n; i++) {
        run_command(s, cmds[i]);
        free(cmds[i]);
    }
    free(cmds);
}

static void *read_stdin(void *arg)
{
    server *s = arg;
    char line[1024];
    for (;;) {
        char *cmd = fgets(line, sizeof line, stdin) ? strdup(line) : strdup("quit");
        if (!cmd)
            break;
        cmd[strcspn(cmd, "\r\n")] = 0;
        int last = !strcmp(cmd, "quit");
        pthread_mutex_lock(&s->mu);
        char **p = realloc(s->cmds, (s->n_cmds + 1) * sizeof *p);
        if (p) {
            s->cmds = p;
            s->cmds[s->n_cmds++] = cmd;
        } else {
            free(cmd);
        }
        lws_cancel_service(s->ctx);
        pthread_mutex_unlock(&s->mu);
        if (last)
            break;
    }
    return NULL;
}

/* --block-ms: a "tick" command every block_ms. */
static void *ticker(void *arg)
{
    server *s = arg;
    for (;;) {
        struct timespec ts = {.tv_sec = s->block_ms / 1000, .tv_nsec = (long)(s->block_ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
        char *cmd = strdup("tick");
        pthread_mutex_lock(&s->mu);
        int quit = s->quit;
        char **q = cmd && !quit ? realloc(s->cmds, (s->n_cmds + 1) * sizeof *q) : NULL;
        if (q) {
            s->cmds = q;
            s->cmds[s->n_cmds++] = cmd;
            cmd = NULL;
            lws_cancel_service(s->ctx);
        }
        pthread_mutex_unlock(&s->mu);
        free(cmd);
        if (quit)
            return NULL;
    }
}

/* ------------------------------------------------------- lws */

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len)
{
    server *s = lws_context_user(lws_get_context(wsi));
    pss *p = user;
    switch (reason) {
    case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
        drain_commands(s);
        break;
    case LWS_CALLBACK_ESTABLISHED:
        memset(p, 0, sizeof *p);
        p->wsi = wsi;
        kd_buf_init(&p->rx);
        p->next = s->clients;
        s->clients = p;
        break;
    case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
        p->peer_closed = 1;
        printf("client closed %u\n",
               len >= 2 ? (unsigned)((const uint8_t *)in)[0] << 8 | ((const uint8_t *)in)[1] : 1005u);
        fflush(stdout);
        break;
    case LWS_CALLBACK_CLOSED:
        if (!p->peer_closed && !p->close_now) {
            printf("client gone without a close frame (1006)\n");
            fflush(stdout);
        }
        for (pss **q = &s->clients; *q; q = &(*q)->next)
            if (*q == p) {
                *q = p->next;
                break;
            }
        while (p->head) {
            out_msg *m = p->head;
            p->head = m->next;
            free(m);
        }
        kd_buf_fini(&p->rx);
        break;
    case LWS_CALLBACK_RECEIVE:
        if (lws_is_first_fragment(wsi))
            p->rx.len = 0;
        if (kd_buf_append(&p->rx, in, len))
            return -1;
        if (lws_is_final_fragment(wsi) && !lws_remaining_packet_payload(wsi))
            handle_request(s, p, (const char *)p->rx.data, p->rx.len);
        break;
    case LWS_CALLBACK_SERVER_WRITEABLE:
        if (p->close_now)
            return -1;
        if (p->head) {
            out_msg *m = p->head;
            p->head = m->next;
            if (!p->head)
                p->tail = NULL;
            int last_fragment = p->close_after_fragment && !p->head;
            int n = lws_write(wsi, m->data + LWS_PRE, m->len,
                              (m->binary ? LWS_WRITE_BINARY : LWS_WRITE_TEXT) | (last_fragment ? LWS_WRITE_NO_FIN : 0));
            int short_write = n < (int)m->len;
            free(m);
            if (short_write || last_fragment)
                return -1; /* closed mid-frame: no close frame, the frame never finished */
            if (p->head)
                lws_callback_on_writable(wsi);
        }
        break;
    default:
        break;
    }
    return 0;
}

static const struct lws_protocols protocols[] = {
    {.name = "wrpc", .callback = callback, .per_session_data_size = sizeof(pss), .rx_buffer_size = 65536},
    {0},
};

int main(int argc, char **argv)
{
    server s;
    memset(&s, 0, sizeof s);
    uint64_t seed = 1;
    int no_game = 0;
    s.idle = 4; /* --block-ms: no block before a transaction comes */
    snprintf(s.network, sizeof s.network, "testnet-10");
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--network") && i + 1 < argc)
            snprintf(s.network, sizeof s.network, "%s", argv[++i]);
        else if (!strcmp(argv[i], "--block-ms") && i + 1 < argc)
            s.block_ms = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--no-utxoindex"))
            s.no_utxoindex = 1;
        else if (!strcmp(argv[i], "--no-game"))
            no_game = 1;
        else if (!strcmp(argv[i], "--kaspad") && i + 1 < argc && !strcmp(argv[i + 1], "2.0.1") && ++i)
            s.kaspad = FX_KASPAD_V2;
        else if (!strcmp(argv[i], "--kaspad") && i + 1 < argc && !strcmp(argv[i + 1], "1.1.0") && ++i)
            s.kaspad = FX_KASPAD_V11;
        else if (!strcmp(argv[i], "--kaspad") && i + 1 < argc && !strcmp(argv[i + 1], "0.14.1") && ++i)
            s.kaspad = FX_KASPAD_V014;
        else {
            fprintf(stderr, "fixture: unknown argument %s\n", argv[i]);
            return 2;
        }
    }
    kd_kaspa_net net;
    lws_set_log_level(LLL_ERR, NULL);
    if (kd_kaspa_net_parse(s.network, &net) || fx_chain_init(&s.chain, seed, s.kaspad == FX_KASPAD_V2 ? 1 : 0) ||
        fx_ledger_init(&s.ledger, net, s.kaspad)) {
        fprintf(stderr, "fixture: cannot build the chain\n");
        return 1;
    }
    if (no_game)
        fx_chain_clear_pending(&s.chain);
    pthread_mutex_init(&s.mu, NULL);
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.port = 0;
    info.iface = "127.0.0.1";
    info.protocols = protocols;
    info.user = &s;
    info.gid = -1;
    info.uid = -1;
    s.ctx = lws_create_context(&info);
    if (!s.ctx) {
        fprintf(stderr, "fixture: cannot listen\n");
        return 1;
    }
    int port = lws_get_vhost_listen_port(lws_get_vhost_by_name(s.ctx, "default"));
    printf("port %d\n", port);
    fflush(stdout);
    pthread_t reader;
    pthread_t tick;
    if (pthread_create(&reader, NULL, read_stdin, &s) || (s.block_ms && pthread_create(&tick, NULL, ticker, &s)))
        return 1;
    while (!s.quit)
        lws_service(s.ctx, 0);
    if (s.block_ms)
        pthread_join(tick, NULL);
    lws_context_destroy(s.ctx);
    pthread_join(reader, NULL);
    for (size_t i = 0; i < s.n_cmds; i++)
        free(s.cmds[i]);
    free(s.cmds);
    free(s.last_note[0]);
    free(s.last_note[1]);
    fx_chain_fini(&s.chain);
    fx_ledger_fini(&s.ledger);
    pthread_mutex_destroy(&s.mu);
    return 0;
}
