/*
 * kaspa_addr.h — Kaspa addresses and the script public keys they stand
 * for, as rusty-kaspa crypto/addresses (bech32.rs, lib.rs) and
 * crypto/txscript/src/standard.rs write them.
 *
 *   kaspa:qr0lr4ml9fn3chekrqmjdkergxl93l4wrk3dankcgvjq776s9wn9jkdskewva
 *   \___/ \___________________________________________________/\______/
 *   prefix   version byte + payload, 8 bits regrouped into 5      checksum
 *
 * The prefix names the network (kaspa, kaspatest, kaspadev, kaspasim); the
 * characters are bech32's (qpzry9x8gf2tvdw0s3jn54khce6mua7l), lowercase
 * only; the checksum is CashAddr's 40-bit BCH code over the prefix's low
 * five bits of each character, a zero, the 5-bit payload and eight zeroes
 * (not BIP-173's 30-bit one). Versions and their payloads:
 *
 *   PubKey       0  32-byte x-only Schnorr key  OP_DATA_32 <key> OP_CHECKSIG
 *   PubKeyECDSA  1  33-byte compressed key      OP_DATA_33 <key> OP_CHECKSIGECDSA
 *   ScriptHash   8  32-byte BLAKE2b-256         OP_BLAKE2B OP_DATA_32 <hash> OP_EQUAL
 *
 * each script with script public key version 0. Our keys (engine/crypto.h,
 * the key directory) are secp256k1 keys: a key's Kaspa address is the
 * PubKey address of its x-only public key, as rusty-kaspa's wallet makes
 * them. Reentrant; no I/O.
 */
#ifndef KD_TOOLS_KASPA_ADDR_H
#define KD_TOOLS_KASPA_ADDR_H

#include <stddef.h>
#include <stdint.h>

#include "engine/crypto.h"
#include "engine/err.h"

/* The longest address (kaspasim: + 35 payload bytes) and its NUL. */
#define KD_KADDR_TEXT_MAX 96
/* The longest standard script public key script (P2PK ECDSA: 35 bytes). */
#define KD_KSPK_SCRIPT_MAX 35

typedef enum {
    KD_KNET_MAINNET,
    KD_KNET_TESTNET, /* testnet-10, testnet-11 */
    KD_KNET_DEVNET,
    KD_KNET_SIMNET,
} kd_kaspa_net;

typedef enum {
    KD_KADDR_PUBKEY = 0,
    KD_KADDR_PUBKEY_ECDSA = 1,
    KD_KADDR_SCRIPT_HASH = 8,
} kd_kaddr_version;

typedef struct {
    kd_kaspa_net net;
    kd_kaddr_version version;
    uint8_t payload[33];
    size_t payload_len; /* 32, 33 (ECDSA) or 32 */
} kd_kaddr;

/* The address prefix of a network ("kaspa", "kaspatest", ...). */
const char *kd_kaspa_net_prefix(kd_kaspa_net net);
/* Reads a network name as kaspad's --network and rusty-kaspa's NetworkId
 * spell it: "mainnet", "testnet-10", "testnet-11" (or "testnet"),
 * "devnet", "simnet". Errors: KD_ERR_INVALID_ARG. */
kd_err kd_kaspa_net_parse(const char *name, kd_kaspa_net *out) KD_WARN_UNUSED;

/* Writes the address text into out (KD_KADDR_TEXT_MAX bytes). Errors:
 * KD_ERR_INVALID_ARG (a payload length that does not fit the version). */
kd_err kd_kaddr_encode(const kd_kaddr *addr, char out[KD_KADDR_TEXT_MAX]) KD_WARN_UNUSED;
/* Parses an address. Errors: KD_ERR_PARSE with a sentence in `why` (no
 * prefix, an unknown prefix, a character outside the alphabet, a wrong
 * checksum, an unknown version, a payload of the wrong length). */
kd_err kd_kaddr_decode(const char *text, kd_kaddr *out, char *why, size_t why_len) KD_WARN_UNUSED;

/* The PubKey address of a key (its x-only public key) on `net`. */
void kd_kaddr_of_key(const kd_key *key, kd_kaspa_net net, kd_kaddr *out);

/* The script public key an address pays to (standard.rs
 * pay_to_address_script): script into `script` (KD_KSPK_SCRIPT_MAX
 * bytes), its length into *len; the version is 0. Errors:
 * KD_ERR_INVALID_ARG (a payload length that does not fit the version). */
kd_err kd_kaddr_to_script(const kd_kaddr *addr, uint8_t script[KD_KSPK_SCRIPT_MAX], size_t *len) KD_WARN_UNUSED;
/* The address of a standard script public key (the three forms above, spk
 * version 0) on `net`. Errors: KD_ERR_UNSUPPORTED (any other script). */
kd_err kd_kaddr_from_script(kd_kaspa_net net, uint16_t spk_version, const uint8_t *script, size_t len,
                            kd_kaddr *out) KD_WARN_UNUSED;

#endif
