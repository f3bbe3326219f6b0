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

/*
 * Exact u64s. Kaspa's integers are u64 (a header's nonce, an input's
 * sequence, amounts, DAA and blue scores, request ids) and serde writes
 * them as plain JSON numbers up to 18446744073709551615, but jansson's
 * integers are signed 64-bit: json_loadb refuses a number >= 2^63 ("too
 * big integer") and a real would round it. So a frame is loaded in two
 * steps: a pass over the text (outside strings) turns each integer literal
 * jansson cannot hold into a tagged string, a NUL byte then its digits
 *
 *   {"nonce":18446744073709551615}  ->  {"nonce":"\u000018446744073709551615"}
 *
 * and jansson loads the result with JSON_ALLOW_NUL. A frame whose own
 * strings hold \u0000 is refused, as before, so only the pass makes such
 * strings. kd_kaspa_u64_of reads either form exactly; writing goes the
 * other way (kd_kaspa_u64_new makes the tag for a value >= 2^63 and
 * kd_kaspa_json_dump prints it as a bare number again).
 */

/* Loads JSON text with every integer exact (above). On KD_OK *out is a
 * new reference. Errors: KD_ERR_PARSE (not JSON, a duplicate key, or a
 * string holding \u0000) with `why` saying where; KD_ERR_NOMEM. */
kd_err kd_kaspa_json_load(const char *text, size_t len, json_t **out, char *why, size_t why_len) KD_WARN_UNUSED;

/* Reads a u64 from a value of a kd_kaspa_json_load document (a JSON
 * integer or the tag). Returns NULL and sets *out, or, leaving *out alone,
 * a constant phrase saying why it is not one: "it is missing", "it is not
 * a number", "it is negative", "it is not an integer (a fraction or an
 * exponent)", "it is over 2^64-1". */
const char *kd_kaspa_u64_of(const json_t *v, uint64_t *out);

/* Reads obj[key] as a u64, the one reader of every u64 field. Errors:
 * KD_ERR_PARSE, `why` = "<what>: <key> is not a non-negative integer (<the
 * phrase above>)" (`what` is the message and path, e.g. "getBlock:
 * block.header."; it may end in a dot or be a sentence start). */
kd_err kd_kaspa_u64_get(const json_t *obj, const char *key, const char *what, uint64_t *out, char *why,
                        size_t why_len) KD_WARN_UNUSED;

/* A JSON value holding `v` exactly: an integer below 2^63, the tag above.
 * New reference; NULL when out of memory. */
json_t *kd_kaspa_u64_new(uint64_t v);

/* json_dumps(j, JSON_COMPACT) with every tag printed as the bare number
 * it stands for. free() the result; NULL when out of memory. */
char *kd_kaspa_json_dump(const json_t *j);

/* The largest frame the client accepts (a getVirtualChainFromBlock answer
 * of a full batch with accepted ids is a few MiB). */
#define KD_WRPC_MAX_FRAME ((size_t)64 << 20)

typedef uint8_t kd_khash[KD_HASH_LEN];

typedef enum {
    KD_WRPC_RESPONSE = 1, /* id + params */
    KD_WRPC_ERROR,        /* id + error message */
    KD_WRPC_NOTIFICATION, /* method + params, no id */
} kd_wrpc_kind;

/* One server frame. `params` and `error` (the whole of the node's message,
 * however long) are borrowed from `root` (owned). */
typedef struct {
    kd_wrpc_kind kind;
    uint64_t id;
    char method[64];
    json_t *params;
    const char *error;
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
    uint64_t daa_score, timestamp_ms, blue_score, nonce;
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
