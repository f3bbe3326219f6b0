/*
 * chain.h — the chain a store follows, by name.
 *
 * Every store follows one chain, fixed when the store is created and kept
 * in its meta ("chain"):
 *
 *   kaspa:<network id>   a store fed by a Kaspa node's listener
 *                        ("kaspa:mainnet", "kaspa:testnet-10"): every store
 *                        following that network follows the same chain
 *   local:<32 hex>       a store fed by the devnet, block scripts or feeds:
 *                        a chain of its own, named by the store id of the
 *                        store it began in (the devnet's genesis changes at
 *                        every restart; the store id does not), and carried
 *                        over by `kdapp replay` and `kdapp verify`
 *
 * The name is what a seat's consent to a creation signs (crypto.h,
 * kd_creation_digest): a consent made for one chain verifies on no other,
 * so a creation copied into a store of another chain is refused
 * no_consent. A store made before chains were named has no meta entry and
 * reads as the local chain of its own store id; a writable open that
 * names a chain adopts it once (its log has only consents of the first
 * version, which name no chain).
 *
 * Who names a chain, and what matches (kd_chain_matches):
 *
 *   wanted       (an engine open option, IngestRequest.chain)
 *   NULL or ""   any store: the open or the request names none
 *   "local"      any local chain: the devnet, `kdapp up`
 *   a chain name exactly that chain: a Kaspa listener names
 *                "kaspa:<its node's network id>", `kdapp replay` the source's
 *
 * Pure functions; thread-safe.
 */
#ifndef KD_ENGINE_CHAIN_H
#define KD_ENGINE_CHAIN_H

#include <stddef.h>
#include <stdint.h>

#include "engine/crypto.h"

#define KD_CHAIN_MAX 64 /* bytes of a chain name, NUL included */
#define KD_CHAIN_KASPA "kaspa:"
#define KD_CHAIN_LOCAL "local"  /* wanted: any local chain */
#define KD_CHAIN_NETWORK_MAX 32 /* bytes of a Kaspa network id, without the NUL */

/* 1 when `name` is a chain name: "kaspa:" and 1..KD_CHAIN_NETWORK_MAX of
 * [a-z0-9-], or "local:" and 2 * KD_STORE_ID_LEN lowercase hex digits;
 * else 0 (NULL included). */
int kd_chain_valid(const char *name);

/* The local chain of the store `store_id`: "local:<32 hex digits>". */
void kd_chain_local(const uint8_t store_id[KD_STORE_ID_LEN], char out[KD_CHAIN_MAX]);

/* The chain of a Kaspa network: "kaspa:<network>". Errors:
 * KD_ERR_INVALID_ARG (not a network id of 1..KD_CHAIN_NETWORK_MAX of
 * [a-z0-9-]), with a sentence in `why`. */
kd_err kd_chain_kaspa(const char *network, char out[KD_CHAIN_MAX], char *why, size_t why_len) KD_WARN_UNUSED;

/* 1 when a store following `chain` (a chain name) may serve an open or a
 * request that names `wanted` (see above), else 0. */
int kd_chain_matches(const char *chain, const char *wanted);

/* Checks what a user, an option or a request names: NULL, "", "local" or
 * a chain name. Errors: KD_ERR_INVALID_ARG with a sentence in `why`
 * naming the value and the forms. */
kd_err kd_chain_check(const char *wanted, char *why, size_t why_len) KD_WARN_UNUSED;

#endif
