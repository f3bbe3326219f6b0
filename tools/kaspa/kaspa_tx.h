/*
 * kaspa_tx.h — a Kaspa transaction, its id and hash, and the node's JSON
 * of it, byte for byte as rusty-kaspa computes them (consensus/core/src/
 * tx.rs, hashing/tx.rs, rpc/core/src/model/tx.rs; unchanged from v0.14.1,
 * the WASM SDK the tests compare with, to v1.x on the live networks).
 *
 * The id is BLAKE2b-256 keyed with "TransactionID" over the transaction
 * serialised with every signature script left empty (so signing does not
 * change it); the hash keys "TransactionHash" over the full serialisation:
 *
 *   version u16 | n_inputs u64 | inputs | n_outputs u64 | outputs |
 *   lock_time u64 | subnetwork_id [20] | gas u64 | payload_len u64 | payload
 *   [| mass u64, hash only, when asked for and the mass is not 0]
 *
 *   input  = txid [32] | index u32 | script_len u64 | script | sig_op_count u8
 *            | sequence u64        (id: script_len 0, no script, no sig_op_count)
 *   output = value u64 | spk version u16 | script_len u64 | script
 *
 * all integers little-endian. A coinbase (subnetwork id 01 00..) keeps its
 * signature scripts in its id, as rusty-kaspa does.
 *
 * The structure is public: fill it through the functions below, or read it
 * directly. Nothing here does I/O; everything is reentrant.
 */
#ifndef KD_TOOLS_KASPA_TX_H
#define KD_TOOLS_KASPA_TX_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/err.h"

#define KD_KASPA_HASH_LEN 32
#define KD_KASPA_SUBNET_LEN 20

/* A keyed BLAKE2b-256 (OpenSSL 3's EVP_MAC "BLAKE2BMAC", size 32) whose key
 * is a rusty-kaspa domain ("TransactionID", "TransactionSigningHash", ...:
 * crypto/hashes/src/hashers.rs). init/fini pair in the caller's storage;
 * update never fails (a failure inside OpenSSL is kept and returned by
 * final); fini accepts a context whose init failed. */
typedef struct {
    void *mac; /* EVP_MAC_CTX */
    int failed;
} kd_kaspa_hasher;

/* Errors: KD_ERR_INTERNAL (OpenSSL has no BLAKE2BMAC, or refused the key). */
kd_err kd_kaspa_hasher_init(kd_kaspa_hasher *h, const char *domain) KD_WARN_UNUSED;
void kd_kaspa_hasher_update(kd_kaspa_hasher *h, const void *data, size_t len);
void kd_kaspa_hasher_u16(kd_kaspa_hasher *h, uint16_t v); /* little-endian */
void kd_kaspa_hasher_u32(kd_kaspa_hasher *h, uint32_t v);
void kd_kaspa_hasher_u64(kd_kaspa_hasher *h, uint64_t v);
void kd_kaspa_hasher_var_bytes(kd_kaspa_hasher *h, const uint8_t *data, size_t len); /* u64 len | data */
/* Errors: KD_ERR_INTERNAL. The context may not be updated again. */
kd_err kd_kaspa_hasher_final(kd_kaspa_hasher *h, uint8_t out[KD_KASPA_HASH_LEN]) KD_WARN_UNUSED;
void kd_kaspa_hasher_fini(kd_kaspa_hasher *h);

typedef struct {
    uint8_t txid[KD_KASPA_HASH_LEN];
    uint32_t index;
} kd_ktx_outpoint;

/* A script public key: its version and script (owned by whatever holds it). */
typedef struct {
    uint16_t version;
    uint8_t *script;
    size_t script_len;
} kd_kspk;

typedef struct {
    kd_ktx_outpoint prev;
    uint8_t *sig_script; /* owned, sig_script_len bytes (NULL when 0) */
    size_t sig_script_len;
    uint64_t sequence;
    uint8_t sig_op_count;
} kd_ktx_input;

typedef struct {
    uint64_t value; /* sompi */
    kd_kspk spk;    /* owned */
} kd_ktx_output;

typedef struct {
    uint16_t version;
    kd_ktx_input *inputs; /* owned, n_inputs */
    size_t n_inputs;
    kd_ktx_output *outputs; /* owned, n_outputs */
    size_t n_outputs;
    uint64_t lock_time;
    uint8_t subnetwork_id[KD_KASPA_SUBNET_LEN];
    uint64_t gas;
    uint8_t *payload; /* owned, payload_len (NULL when 0) */
    size_t payload_len;
    uint64_t mass; /* RpcTransaction.mass (the storage mass commitment); 0 = unset */
} kd_ktx;

/* A new empty transaction: version 0, native subnetwork (all zeroes), no
 * inputs, outputs or payload. Errors: KD_ERR_NOMEM. Free with kd_ktx_free. */
kd_err kd_ktx_alloc(kd_ktx **out) KD_WARN_UNUSED;
/* Frees the transaction and everything it owns; accepts NULL. */
void kd_ktx_free(kd_ktx *tx);
/* A deep copy. Errors: KD_ERR_NOMEM. */
kd_err kd_ktx_clone(const kd_ktx *tx, kd_ktx **out) KD_WARN_UNUSED;

/* Appends an input with an empty signature script. Errors: KD_ERR_NOMEM. */
kd_err kd_ktx_add_input(kd_ktx *tx, const kd_ktx_outpoint *prev, uint64_t sequence,
                        uint8_t sig_op_count) KD_WARN_UNUSED;
/* Appends an output; the script is copied. Errors: KD_ERR_NOMEM. */
kd_err kd_ktx_add_output(kd_ktx *tx, uint64_t value, uint16_t spk_version, const uint8_t *script,
                         size_t script_len) KD_WARN_UNUSED;
/* Removes the last output (a no-op without outputs). */
void kd_ktx_pop_output(kd_ktx *tx);
/* Replaces input i's signature script with a copy of `script`.
 * Errors: KD_ERR_INVALID_ARG (no such input), KD_ERR_NOMEM. */
kd_err kd_ktx_set_sig_script(kd_ktx *tx, size_t i, const uint8_t *script, size_t len) KD_WARN_UNUSED;
/* Replaces the payload with a copy. Errors: KD_ERR_NOMEM. */
kd_err kd_ktx_set_payload(kd_ktx *tx, const uint8_t *payload, size_t len) KD_WARN_UNUSED;

/* 1 for a coinbase (subnetwork id 01 followed by nineteen zeroes). */
int kd_ktx_is_coinbase(const kd_ktx *tx);

/* The transaction id (rusty-kaspa hashing::tx::id). Errors: KD_ERR_INTERNAL
 * (OpenSSL). */
kd_err kd_ktx_id(const kd_ktx *tx, uint8_t out[KD_KASPA_HASH_LEN]) KD_WARN_UNUSED;
/* The transaction hash (hashing::tx::hash); with `include_mass`, a non-zero
 * tx->mass is committed to as the block's merkle root does. Errors as
 * kd_ktx_id. */
kd_err kd_ktx_hash(const kd_ktx *tx, int include_mass, uint8_t out[KD_KASPA_HASH_LEN]) KD_WARN_UNUSED;

/*
 * The node's JSON (RpcTransaction, serde camelCase as rusty-kaspa writes
 * it):
 *
 *   {"version":0,
 *    "inputs":[{"previousOutpoint":{"transactionId":"<hex>","index":0},
 *               "signatureScript":"<hex>","sequence":0,"sigOpCount":1,
 *               "verboseData":null}],
 *    "outputs":[{"value":100,"scriptPublicKey":"0000<script hex>",
 *                "verboseData":null}],
 *    "lockTime":0,"subnetworkId":"<40 hex>","gas":0,"payload":"<hex>",
 *    "mass":0,"verboseData":null}
 *
 * The script public key is the version as 4 hex digits (big-endian)
 * followed by the script, as ScriptPublicKey's serde writes it for a
 * human-readable format.
 */

/* Renders the transaction into a new NUL-terminated string (free() it),
 * compact, fields in the order above. Every u64 is written exactly (also
 * above 2^63). Errors: KD_ERR_NOMEM. */
kd_err kd_ktx_json_render(const kd_ktx *tx, char **out) KD_WARN_UNUSED;

/* Parses an RpcTransaction. u64 fields are JSON integers, or strings of
 * decimal digits (the form a JSON reader limited to signed 64-bit integers
 * may hand over a value above 2^63 - 1); scriptPublicKey is the hex string
 * above or an object {"version", "script"}; verboseData and unknown fields
 * are ignored, as serde does. Errors: KD_ERR_PARSE with a sentence in
 * `why` naming the field ("inputs[1].sequence is not an unsigned 64-bit
 * integer"), KD_ERR_NOMEM. On success *out is a new transaction. */
kd_err kd_ktx_json_parse(const json_t *json, kd_ktx **out, char *why, size_t why_len) KD_WARN_UNUSED;

#endif
