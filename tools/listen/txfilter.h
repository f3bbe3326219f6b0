/*
 * txfilter.h — which Kaspa transactions are kdapp's, as kdapp decides it
 * (kasperience/kdapp kdapp/src/generator.rs: check_pattern, Payload):
 *
 *  1. the transaction id matches a pattern of KD_TX_PATTERN_BITS (bit
 *     position, value) pairs: bit `pos % 8` of id byte `pos / 8`;
 *  2. the payload starts with a 4-byte prefix (a u32, little-endian) and a
 *     4-byte nonce, and what follows is the app's message (ours: a
 *     protobuf EpisodeMessage).
 *
 * A client makes its transaction match by grinding the nonce until the id
 * fits the pattern (1 in 2^10 ids do: about a thousand hashes). The
 * listener checks the pattern first, on ids alone (no block fetched), so
 * only ~1/1024 of foreign transactions cost it a block fetch; the prefix
 * then drops foreign payloads that happen to match.
 */
#ifndef KD_TOOLS_TXFILTER_H
#define KD_TOOLS_TXFILTER_H

#include <stddef.h>
#include <stdint.h>

#include "engine/crypto.h"
#include "engine/err.h"

#define KD_TX_PATTERN_BITS 10
#define KD_TX_HEADER_LEN 8 /* prefix + nonce */
/* Our prefix: the bytes "KDC1" (kdapp-c, payload version 1). */
#define KD_TX_DEFAULT_PREFIX 0x3143444bu

typedef struct {
    uint8_t pos, val;
} kd_tx_pattern_bit;

typedef struct {
    kd_tx_pattern_bit bits[KD_TX_PATTERN_BITS];
    uint32_t prefix;
} kd_tx_filter;

/* The default filter: KD_TX_DEFAULT_PREFIX and a fixed pattern. */
void kd_tx_filter_default(kd_tx_filter *f);
/* 1 when `id` matches the pattern. */
int kd_tx_filter_id(const kd_tx_filter *f, const uint8_t id[KD_HASH_LEN]);
/* 1 when the payload carries the header with our prefix. */
int kd_tx_filter_payload(const kd_tx_filter *f, const uint8_t *payload, size_t len);
/* Writes the header (prefix, nonce; both little-endian) into out[0..8). */
void kd_tx_header_write(const kd_tx_filter *f, uint32_t nonce, uint8_t out[KD_TX_HEADER_LEN]);
/* Parses a prefix written as 8 hex digits of its little-endian bytes
 * ("4b444331" for "KDC1"); returns 0 or -1. */
int kd_tx_filter_parse_prefix(const char *text, uint32_t *out);

#endif
