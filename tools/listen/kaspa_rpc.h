/*
 * kaspa_rpc.h — the kaspad wRPC messages the listener uses, in JSON as
 * rusty-kaspa writes them, parsed into C structures. Nothing here does I/O.
 *
 * The framing is workflow-rpc's JSON protocol (the "serde_json" messages of
 * workflow-rs rpc/src/messages.rs, used by rusty-kaspa rpc/wrpc/server):
 *
 *   request       {"id": 7, "method": "getSink", "params": {}}
 *   response      {"id": 7, "method": "getSink", "params": {"sink": "<hex>"}}
 *   error         {"id": 7, "method": "getSink", "error": {"code": 0, "message": "...", "data": null}}
 *   notification  {"method": "virtualChainChangedNotification",
 *                  "params": {"VirtualChainChanged": {...}}}
 *
 * Method names are rusty-kaspa's RpcApiOps in camelCase (rpc/core/src/api/
 * ops.rs); payload field names are the serde camelCase of rpc/core/src/
 * model/message.rs, block.rs, header.rs and tx.rs. Hashes and byte strings
 * are lowercase hex (kaspa_hashes and hex::serde); integers are JSON numbers.
 *
 * Every parser answers malformed input with KD_ERR_PARSE and a sentence in
 * `why` naming the message and the field ("getBlock: block.header.daaScore
 * is not a non-negative integer"). Unknown fields are ignored, as serde does.
 * Reentrant; no global state.
 */
#ifndef KD_TOOLS_KASPA_RPC_H
#define KD_TOOLS_KASPA_RPC_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/crypto.h"
#include "engine/err.h"

/* The largest frame the client accepts (a getVirtualChainFromBlock answer
 * of a full batch with accepted ids is a few MiB). */
#define KD_WRPC_MAX_FRAME ((size_t)64 << 20)

typedef uint8_t kd_khash[KD_HASH_LEN];

typedef enum {
    KD_WRPC_RESPONSE = 1, /* id + params */
    KD_WRPC_ERROR,        /* id + error message */
    KD_WRPC_NOTIFICATION, /* method + params, no id */
} kd_wrpc_kind;

/* One server frame. `params` is borrowed from `root` (owned). */
typedef struct {
    kd_wrpc_kind kind;
    uint64_t id;
    char method[64];
    json_t *params;
    char error[256];
    json_t *root;
} kd_wrpc_frame;

/* Parses a server text frame. Errors: KD_ERR_PARSE (not JSON, not an
 * object, or none of the three shapes), with `why` naming what is wrong. */
kd_err kd_wrpc_frame_parse(const char *text, size_t len, kd_wrpc_frame *out, char *why, size_t why_len) KD_WARN_UNUSED;
/* Releases the frame; accepts a zeroed one. */
void kd_wrpc_frame_fini(kd_wrpc_frame *frame);

/* Builds a request frame {"id", "method", "params"} into a new string
 * (free() it). `params` is borrowed. Returns NULL when out of memory. */
char *kd_wrpc_request_text(uint64_t id, const char *method, const json_t *params);

/* The accepted transaction ids of one added chain block. */
typedef struct {
    kd_khash accepting;
    kd_khash *ids; /* owned, n_ids, in the node's order (coinbase first) */
    size_t n_ids;
} kd_kaspa_acceptance;

/* GetVirtualChainFromBlockResponse and the VirtualChainChanged
 * notification: removed newest first, added oldest first, and (when
 * asked for) accepted[i] belongs to added[i]. */
typedef struct {
    kd_khash *removed;
    size_t n_removed;
    kd_khash *added;
    size_t n_added;
    kd_kaspa_acceptance *accepted;
    size_t n_accepted;
} kd_kaspa_chain;

/* Parses the params of a getVirtualChainFromBlock response (`what` =
 * "getVirtualChainFromBlock") or of a notification (its inner object).
 * With `need_accepted`, acceptedTransactionIds must pair with the added
 * blocks one to one, in order. Errors: KD_ERR_PARSE, KD_ERR_NOMEM. */
kd_err kd_kaspa_chain_parse(const json_t *params, const char *what, int need_accepted, kd_kaspa_chain *out, char *why,
                            size_t why_len) KD_WARN_UNUSED;
void kd_kaspa_chain_fini(kd_kaspa_chain *chain);

/* The params of a virtualChainChangedNotification: {"VirtualChainChanged":
 * {...}} (serde's external tag of rusty-kaspa's Notification enum). */
kd_err kd_kaspa_chain_notification_parse(const json_t *params, kd_kaspa_chain *out, char *why,
                                         size_t why_len) KD_WARN_UNUSED;

/* A transaction as the listener needs it: id (verboseData.transactionId)
 * and payload bytes. */
typedef struct {
    kd_khash id;
    uint8_t *payload; /* owned */
    size_t payload_len;
} kd_kaspa_tx;

/* A GetBlockResponse: header fields, the mergeset (blues then reds) from
 * verboseData, and the transactions when they were asked for. */
typedef struct {
    kd_khash hash;
    uint64_t daa_score, timestamp_ms, blue_score;
    int has_verbose, is_chain_block;
    kd_khash *mergeset; /* owned: n_blues blues, then n_reds reds */
    size_t n_blues, n_reds;
    kd_kaspa_tx *txs; /* owned */
    size_t n_txs;
} kd_kaspa_block;

/* Parses a getBlock response's params {"block": {...}}. With `need_txs`,
 * every transaction must carry verboseData.transactionId. Errors:
 * KD_ERR_PARSE, KD_ERR_NOMEM. */
kd_err kd_kaspa_block_parse(const json_t *params, int need_txs, kd_kaspa_block *out, char *why,
                            size_t why_len) KD_WARN_UNUSED;
void kd_kaspa_block_fini(kd_kaspa_block *block);

/* GetBlockDagInfoResponse: the fields the listener reads. */
typedef struct {
    char network[32];
    kd_khash sink;
    uint64_t virtual_daa_score;
} kd_kaspa_dag_info;

kd_err kd_kaspa_dag_info_parse(const json_t *params, kd_kaspa_dag_info *out, char *why, size_t why_len) KD_WARN_UNUSED;

/* GetServerInfoResponse: the fields the listener reads. */
typedef struct {
    char network_id[32];
    char server_version[64];
    int is_synced;
    uint64_t virtual_daa_score;
} kd_kaspa_server_info;

kd_err kd_kaspa_server_info_parse(const json_t *params, kd_kaspa_server_info *out, char *why,
                                  size_t why_len) KD_WARN_UNUSED;

/* Parses 64 hex digits into `out`; returns 0 or -1. */
int kd_kaspa_hash_parse(const char *text, kd_khash out);

/* The default wRPC JSON port of a network name ("mainnet", "testnet-10",
 * "testnet-11", "devnet", "simnet"), from rusty-kaspa consensus/core/src/
 * network.rs NetworkType::default_json_rpc_port; 0 for an unknown name. */
unsigned kd_kaspa_json_port(const char *network);

#endif
