/*
 * crypto.h — hashing, command digests, signature checks and keys.
 *
 * The signed digest of a command is
 *
 *     SHA-256( "kdapp/command/v1" || episode_id (u32 BE) || counter (u64 BE) || command )
 *
 * where `counter` is the number of commands the episode has applied so far.
 * The id binds a signature to one episode and the counter to one position in
 * its history, so a signature is single-use: it cannot be replayed into
 * another episode, nor into the same episode later (stress mode frees cells,
 * which would otherwise let an old "X to (0,0)" be replayed).
 *
 * A signature that does not verify at the episode's counter c but does at
 * one of the KD_STALE_WINDOW counters before it is authentic but stale: the
 * signer saw the episode before another command moved it on (a player's
 * move while the house's reveal was in flight). Such a command is never
 * applied; it is refused under the rule that refuses it now, or
 * "stale_command" when the rules would take it (sign it again for c).
 * The window bounds what a bad signature costs: at most KD_STALE_WINDOW
 * extra verifications.
 *
 * A creation carries the signature of each seat it names (every
 * participant that is not an open seat: rules.c) over the creation digest
 *
 *     SHA-256( "kdapp/new-episode/v2" || chain length (u8) || chain ||
 *              episode_id (u32 BE) || type_name || 0x00 ||
 *              participant count (u8) || each 33-byte key ||
 *              params_len (u32 BE) || params [|| join_timeout (u32 BE)] )
 *
 * where join_timeout, how long a table with open seats waits for its
 * strangers (NewEpisode.join_timeout), is there only when it is not 0: so
 * nobody who sees a table's creation on its way can send a copy that
 * closes it sooner or later than its seats agreed to, and a creation
 * without one (every creation before tables had one) keeps its digest.
 *
 * with the params as sent in the NewEpisode (not the effective params the
 * type resolves them to), so a seat signs exactly the bytes it was shown,
 * and `chain` the name of the chain the creation is for (engine/chain.h:
 * "kaspa:testnet-10", "local:<store id>"), so a consent verifies on that
 * chain only: copied into a store of another chain, the creation is
 * refused. The episode id makes it good for one episode only. The
 * separate domain tag keeps a consent from ever being taken for a command
 * signature, and the reverse.
 *
 * Version 1 ("kdapp/new-episode/v1", the same without the chain) named no
 * chain. A new creation with a v1 consent is refused; a v1 consent is
 * still verified where a replayed log recorded its creation as applied
 * (rules.h), so logs written before v2 replay unchanged.
 *
 * Every digest that binds keys to an episode on a chain (a creation's
 * consent; a seat's join to come) starts the same way, through
 * kd_bound_digest_begin: its domain tag, then the chain, the episode id and
 * the type.
 *
 * Verification uses libsecp256k1's static context and is thread-safe.
 */
#ifndef KD_ENGINE_CRYPTO_H
#define KD_ENGINE_CRYPTO_H

#include <stddef.h>
#include <stdint.h>

#include "engine/episode.h"

#define KD_COMMAND_DOMAIN "kdapp/command/v1"
#define KD_CREATION_DOMAIN "kdapp/new-episode/v2"
#define KD_CREATION_DOMAIN_V1 "kdapp/new-episode/v1" /* replay of logs written before v2 only */
#define KD_STALE_WINDOW 4                            /* earlier counters a stale signature is recognised at */
#define KD_SIG_COMPACT_LEN 64
#define KD_SIG_MAX_LEN 72
#define KD_KEY_NAME_MAX 64

/* A store's identity: KD_STORE_ID_LEN random bytes (kd_engine_store_id,
 * engine/engine.h). */
#define KD_STORE_ID_LEN 16

/* Fills `out` with `len` bytes from the OS CSPRNG (OpenSSL RAND_bytes).
 * Errors: KD_ERR_IO. Thread-safe. */
kd_err kd_random_bytes(uint8_t *out, size_t len) KD_WARN_UNUSED;

/* One-shot SHA-256. */
void kd_sha256(const void *data, size_t len, uint8_t out[KD_HASH_LEN]);

/* Incremental SHA-256 in the caller's storage. init/fini pair; fini accepts
 * a context that failed to init. */
typedef struct {
    void *md; /* EVP_MD_CTX */
} kd_sha256_ctx;
kd_err kd_sha256_init(kd_sha256_ctx *ctx) KD_WARN_UNUSED;
void kd_sha256_update(kd_sha256_ctx *ctx, const void *data, size_t len);
void kd_sha256_final(kd_sha256_ctx *ctx, uint8_t out[KD_HASH_LEN]);
void kd_sha256_fini(kd_sha256_ctx *ctx);

/* The digest a participant signs for `command` at `counter` (see above). */
void kd_command_digest(uint32_t episode_id, uint64_t counter, const uint8_t *command, size_t len,
                       uint8_t out[KD_HASH_LEN]);

/* Starts `sha` (kd_sha256_init'ed by the caller) on a digest that binds
 * keys to episode `episode_id` of type `type_name` on chain `chain`:
 * domain || chain length (u8) || chain || episode_id (u32 BE) || type_name
 * || 0x00. NULL `chain` or `type_name` is taken as "". The caller adds
 * what it binds (a creation: the participants and the params) and ends
 * the digest. */
void kd_bound_digest_begin(kd_sha256_ctx *sha, const char *domain, const char *chain, uint32_t episode_id,
                           const char *type_name);
/* The digest a participant signs to consent to a creation on `chain` (see
 * above), with the table's `join_timeout` (0: none, the digest without it).
 * `type_name` NULL is taken as "". */
void kd_creation_digest(const char *chain, uint32_t episode_id, const char *type_name, const kd_participants *parts,
                        const uint8_t *params, size_t params_len, uint32_t join_timeout, uint8_t out[KD_HASH_LEN]);
/* The digest of version 1 (no chain): only to verify the consents of a
 * replayed log entry that recorded its creation as applied. */
void kd_creation_digest_v1(uint32_t episode_id, const char *type_name, const kd_participants *parts,
                           const uint8_t *params, size_t params_len, uint8_t out[KD_HASH_LEN]);

/* The digest a stranger signs to sit down at open seat `seat` of table
 * `episode_id` (kdapp.proto, JoinEpisode): its consent to the terms (the
 * creation's `params`) on `chain`, with its `key` and its own part of the
 * params (`seat_params`). */
void kd_join_digest(const char *chain, uint32_t episode_id, const char *type_name, uint32_t seat, const kd_pubkey *key,
                    const uint8_t *params, size_t params_len, const uint8_t *seat_params, size_t seat_len,
                    uint8_t out[KD_HASH_LEN]);
/* The digest a seat named at a table's creation signs to cancel it
 * (kdapp.proto, CancelTable). */
void kd_cancel_digest(const char *chain, uint32_t episode_id, const char *type_name, uint8_t out[KD_HASH_LEN]);

/* Checks that `pubkey` is a valid compressed secp256k1 key.
 * Errors: KD_ERR_BAD_PUBKEY. */
kd_err kd_pubkey_check(const kd_pubkey *pubkey) KD_WARN_UNUSED;

/* Verifies a DER or 64-byte compact ECDSA signature (lower-S) of `digest`.
 * Errors: KD_ERR_BAD_PUBKEY, KD_ERR_BAD_SIGNATURE. Thread-safe. */
kd_err kd_sig_verify(const kd_pubkey *pubkey, const uint8_t digest[KD_HASH_LEN], const uint8_t *sig,
                     size_t sig_len) KD_WARN_UNUSED;

/* A secp256k1 key pair. Keep secrets out of logs. */
typedef struct {
    uint8_t secret[32];
    kd_pubkey pub;
} kd_key;

/* Derives the key pair for a secret. Errors: KD_ERR_BAD_KEY. */
kd_err kd_key_from_secret(const uint8_t secret[32], kd_key *key) KD_WARN_UNUSED;
/* A fresh key from the OS CSPRNG. Errors: KD_ERR_IO. */
kd_err kd_key_generate(kd_key *key) KD_WARN_UNUSED;
/* The deterministic test key "test:NAME": secret = SHA-256("kdapp-test-key:" || name).
 * Unsafe for real use: anyone can derive it. */
kd_err kd_key_test(const char *name, kd_key *key) KD_WARN_UNUSED;
/* Signs `digest` into a 64-byte compact signature (lower-S). */
kd_err kd_key_sign(const kd_key *key, const uint8_t digest[KD_HASH_LEN],
                   uint8_t sig[KD_SIG_COMPACT_LEN]) KD_WARN_UNUSED;

/*
 * A seat's secrets for one episode (the house's VRF key, a sea-battle fleet
 * and its salts) come from a 32-byte seed that only the seat's key holder
 * can derive, bound to a public 32-byte *binding* that the holder makes
 * fresh for each commitment and publishes beside it (in the creation
 * params):
 *
 *   binding = nonce (16 random bytes) || tag (16 bytes)
 *   tag     = SHA-256("kdapp/secret-binding/v1" || key->secret ||
 *                     store_id (16 bytes) || type_name || 0x00 ||
 *                     episode_id (u32 BE) || seat (1 byte) || nonce)[0..16]
 *   seed    = SHA-256("kdapp-secret-v2" || key->secret || type_name ||
 *                     0x00 || episode_id (u32 BE) || seat (1 byte) ||
 *                     binding)
 *
 * The nonce makes every commitment's secret new: two stores with the same
 * key directory and the same episode id, two episodes, or a creation made
 * again after a reorg never share a secret, so a link or an opening
 * published in one says nothing of another. The tag lets the key holder,
 * and only it, recognise the commitments it made for its own store: a
 * gateway (or `kdapp duty`) acts only on a binding that is its own for its
 * store, never on one a caller wrote (a bogus commitment) or copied from
 * another store. The store id is the engine's (kd_engine_store_id).
 */
#define KD_SECRET_SEED_LEN 32
#define KD_SECRET_BINDING_LEN 32
#define KD_SECRET_NONCE_LEN 16

/* A fresh binding for `key`'s commitment as `seat` of episode `episode_id`
 * of type `type_name` in the store `store_id` (the nonce from the OS CSPRNG,
 * OpenSSL RAND_bytes). Errors: KD_ERR_IO (no random bytes). Thread-safe. */
kd_err kd_secret_binding_fresh(const kd_key *key, const uint8_t store_id[KD_STORE_ID_LEN], const char *type_name,
                               uint32_t episode_id, int seat, uint8_t out[KD_SECRET_BINDING_LEN]) KD_WARN_UNUSED;
/* The binding of a given `nonce`: what kd_secret_binding_fresh makes after
 * drawing the nonce. For a deterministic simulator only: a nonce used
 * twice for the same (key, type, episode, seat) gives the same secret. */
void kd_secret_binding_make(const kd_key *key, const uint8_t store_id[KD_STORE_ID_LEN], const char *type_name,
                            uint32_t episode_id, int seat, const uint8_t nonce[KD_SECRET_NONCE_LEN],
                            uint8_t out[KD_SECRET_BINDING_LEN]);
/* 1 when `binding` is one kd_secret_binding_fresh made for exactly these
 * (key, store, type, episode, seat), else 0. Compares in constant time. */
int kd_secret_binding_ours(const kd_key *key, const uint8_t store_id[KD_STORE_ID_LEN], const char *type_name,
                           uint32_t episode_id, int seat, const uint8_t binding[KD_SECRET_BINDING_LEN]);
/* The seat's secret seed (above). Keep it out of logs and wipe it after use. */
void kd_secret_seed(const kd_key *key, const char *type_name, uint32_t episode_id, int seat,
                    const uint8_t binding[KD_SECRET_BINDING_LEN], uint8_t out[KD_SECRET_SEED_LEN]);

/* Key names are 1..64 of [A-Za-z0-9_.-], not starting with '.'. */
int kd_key_name_valid(const char *name);
/* Writes DIR/NAME.key (mode 0600; DIR created 0700 if missing). Errors:
 * KD_ERR_INVALID_ARG (bad name), KD_ERR_EXISTS, KD_ERR_IO. `why` (may be
 * NULL) receives a sentence naming the file and the OS error. */
kd_err kd_key_save(const char *dir, const char *name, const kd_key *key, char *why, size_t why_len) KD_WARN_UNUSED;
/* Reads DIR/NAME.key. Refuses a file readable by group or others. Errors:
 * KD_ERR_INVALID_ARG, KD_ERR_NOT_FOUND, KD_ERR_BAD_KEY, KD_ERR_IO, with a
 * sentence in `why`. */
kd_err kd_key_load(const char *dir, const char *name, kd_key *key, char *why, size_t why_len) KD_WARN_UNUSED;
/* Resolves a signer reference: "test:NAME" (test key), a key name in `dir`.
 * Errors as kd_key_load. */
kd_err kd_key_resolve(const char *dir, const char *ref, kd_key *key, char *why, size_t why_len) KD_WARN_UNUSED;

#endif
