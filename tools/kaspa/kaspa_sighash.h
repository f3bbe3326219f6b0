/*
 * kaspa_sighash.h — what a Kaspa input's signature signs, and signing it
 * (rusty-kaspa consensus/core/src/hashing/sighash.rs, wallet/core/src/tx/
 * sign): BLAKE2b-256 keyed "TransactionSigningHash" over
 *
 *   version u16 | previous outputs hash | sequences hash | sig op counts hash
 *   | this input's outpoint (txid, index u32) | the spent spk (version u16,
 *   var script) | the spent amount u64 | this input's sequence u64 |
 *   sig_op_count u8 | outputs hash | lock_time u64 | subnetwork id |
 *   gas u64 | payload hash | sighash type u8
 *
 * where the four "reused" hashes are each one keyed hash over every input
 * (outpoints; sequences; sig op counts) or every output (value, spk),
 * computed once per transaction, and zero where the sighash type leaves
 * them out (ANYONECANPAY: previous outputs, sequences, sig op counts;
 * SINGLE or NONE: sequences; NONE: outputs; SINGLE: only the output of the
 * input's index).
 *
 * Two rule sets differ in the payload hash, the only place they do here:
 *
 *   KD_KASPA_RULES_V014       rusty-kaspa v0.14 (the WASM SDK 0.14.1 the
 *                             tests compare with): zero for a native
 *                             transaction, whatever its payload (native
 *                             payloads were not allowed then).
 *   KD_KASPA_RULES_CRESCENDO  rusty-kaspa v1.0 on (the live networks since
 *                             the Crescendo hard fork, which allowed native
 *                             payloads): zero only for a native transaction
 *                             without payload, else the keyed hash of
 *                             (u64 len | payload).
 *
 * So a kdapp transaction (it has a payload) must be signed under
 * KD_KASPA_RULES_CRESCENDO for today's nodes; for a transaction without
 * payload both agree.
 *
 * A signature is BIP340 Schnorr (libsecp256k1 secp256k1_schnorrsig_sign32,
 * fresh auxiliary randomness from the OS), and the signature script is
 * OP_DATA_65 <64-byte signature> <sighash type>.
 */
#ifndef KD_TOOLS_KASPA_SIGHASH_H
#define KD_TOOLS_KASPA_SIGHASH_H

#include <stddef.h>
#include <stdint.h>

#include "engine/crypto.h"
#include "engine/err.h"
#include "tools/kaspa/kaspa_tx.h"

typedef enum {
    KD_KASPA_RULES_V014 = 0,
    KD_KASPA_RULES_CRESCENDO = 1,
} kd_kaspa_rules;

#define KD_SIGHASH_ALL 0x01
#define KD_SIGHASH_NONE 0x02
#define KD_SIGHASH_SINGLE 0x04
#define KD_SIGHASH_ANYONECANPAY 0x80
/* OP_DATA_65 <64-byte Schnorr signature> <sighash type> */
#define KD_KASPA_SCHNORR_SIG_SCRIPT_LEN 66

/* A UTXO: where it is, and the entry the node keeps for it (UtxoEntry). */
typedef struct {
    kd_ktx_outpoint outpoint;
    uint64_t amount; /* sompi */
    kd_kspk spk;     /* the caller's: borrowed by every function here */
    uint64_t block_daa_score;
    int is_coinbase;
} kd_kutxo;

/* The sighash of input `input` of `tx`, whose spent entry is `entries`
 * [input] (one entry per input, in input order). Errors:
 * KD_ERR_INVALID_ARG (no such input; a sighash type other than ALL, NONE,
 * SINGLE, each with or without ANYONECANPAY), KD_ERR_INTERNAL (OpenSSL). */
kd_err kd_ktx_sighash(const kd_ktx *tx, const kd_kutxo *entries, size_t input, uint8_t hash_type, kd_kaspa_rules rules,
                      uint8_t out[KD_KASPA_HASH_LEN]) KD_WARN_UNUSED;

/* Signs every input of `tx` with `key` under SIGHASH_ALL: each signature
 * script becomes OP_DATA_65 <sig> 01. Each entry's spk must be the key's
 * P2PK script (kaspa_addr.h). Errors: KD_ERR_INVALID_ARG (an entry paying
 * another script: "input 2 spends a script that is not this key's" in
 * `why`), KD_ERR_BAD_KEY, KD_ERR_IO (no random bytes), KD_ERR_NOMEM,
 * KD_ERR_INTERNAL. */
kd_err kd_ktx_sign(kd_ktx *tx, const kd_kutxo *entries, const kd_key *key, kd_kaspa_rules rules, char *why,
                   size_t why_len) KD_WARN_UNUSED;

/* Verifies input `input`'s Schnorr signature script (OP_DATA_65 <sig>
 * <type>) against the sighash and the x-only key of its entry's P2PK
 * script. Errors: KD_ERR_BAD_SIGNATURE (a malformed script or a signature
 * that does not verify), KD_ERR_BAD_PUBKEY (the entry is not P2PK),
 * KD_ERR_INVALID_ARG, KD_ERR_INTERNAL. */
kd_err kd_ktx_verify_input(const kd_ktx *tx, const kd_kutxo *entries, size_t input,
                           kd_kaspa_rules rules) KD_WARN_UNUSED;

#endif
