/*
 * wire.h — building the wire messages of proto/kdapp.proto from domain
 * values: episode payloads (with signing) and chain events. The engine
 * decodes them itself (apply.c); producers (feed, devnet, sim, the MCP
 * gateway, tests) build them here, so there is one encoder per message.
 */
#ifndef KD_ENGINE_WIRE_H
#define KD_ENGINE_WIRE_H

#include "engine/crypto.h"
#include "engine/episode.h"

/* EpisodeMessage{episode_id, NewEpisode{type, participants, params}}, no
 * consents. */
kd_err kd_wire_new_episode(uint32_t episode_id, const char *type, const kd_participants *participants,
                           const uint8_t *params, size_t params_len, kd_buf *out) KD_WARN_UNUSED;
/* A participant's consent to a creation (NewEpisode.consents): its seat
 * and its signature over kd_creation_digest (engine/crypto.h). */
typedef struct {
    uint32_t seat;
    uint8_t sig[KD_SIG_MAX_LEN];
    size_t sig_len;
} kd_consent;

/* Signs the creation (episode_id, type, participants, params as they will
 * be sent) on `chain` (engine/chain.h: the chain of the store it is for,
 * kd_engine_chain) as participant `seat` with `key` into *out (a 64-byte
 * compact signature over kd_creation_digest, v2). Errors:
 * KD_ERR_INVALID_ARG (seat not below parts->count, `key` is not that
 * participant's key, or `chain` is not a chain name), KD_ERR_NOMEM,
 * KD_ERR_BAD_KEY. Thread-safe. */
kd_err kd_consent_sign(const kd_key *key, uint32_t seat, const char *chain, uint32_t episode_id, const char *type,
                       const kd_participants *parts, const uint8_t *params, size_t len, kd_consent *out) KD_WARN_UNUSED;
/* The same for a table that waits `join_timeout` for its strangers
 * (NewEpisode.join_timeout; 0: the engine's default, the consent above):
 * the consent covers it. */
kd_err kd_consent_sign_table(const kd_key *key, uint32_t seat, const char *chain, uint32_t episode_id, const char *type,
                             const kd_participants *parts, const uint8_t *params, size_t len, uint32_t join_timeout,
                             kd_consent *out) KD_WARN_UNUSED;
/* EpisodeMessage{episode_id, NewEpisode{type, participants, params,
 * consents}} with the `n` consents in the order given (n may be 0; the
 * engine judges them, so a test may send bad ones). Errors:
 * KD_ERR_INVALID_ARG (more than KD_MAX_PARTICIPANTS participants, or a
 * signature longer than KD_SIG_MAX_LEN), KD_ERR_NOMEM. */
/* A participant of 33 zero bytes (never a valid key) is an open seat, sent as 0 bytes (a table: kd_wire_join). */
kd_err kd_wire_new_episode_consented(uint32_t episode_id, const char *type, const kd_participants *p,
                                     const uint8_t *params, size_t len, const kd_consent *consents, size_t n,
                                     kd_buf *out) KD_WARN_UNUSED;
/* kd_wire_new_episode_consented with NewEpisode.join_timeout: how long
 * (DAA score) a creation with open seats waits for its joiners (0: the
 * engine's default; the engine refuses it on a creation without open
 * seats, and above KD_TABLE_TIMEOUT_MAX, engine/engine.h). Errors: as
 * kd_wire_new_episode_consented. */
kd_err kd_wire_new_table(uint32_t episode_id, const char *type, const kd_participants *p, const uint8_t *params,
                         size_t len, const kd_consent *consents, size_t n, uint32_t join_timeout,
                         kd_buf *out) KD_WARN_UNUSED;
/* EpisodeMessage{episode_id, JoinEpisode}: `key` sits down at open seat
 * `seat` of table `episode_id` of `type` on `chain`, consenting to its
 * creation `params`, with its own part `seat_params` (kd_join_digest).
 * Errors: KD_ERR_NOMEM, the signer's. */
kd_err kd_wire_join(const char *chain, uint32_t episode_id, const char *type, const uint8_t *params, size_t len,
                    uint32_t seat, const kd_key *key, const uint8_t *seat_params, size_t seat_len,
                    kd_buf *out) KD_WARN_UNUSED;
/* EpisodeMessage{episode_id, CancelTable} signed by `key` (kd_cancel_digest). */
kd_err kd_wire_cancel(const char *chain, uint32_t episode_id, const char *type, const kd_key *key,
                      kd_buf *out) KD_WARN_UNUSED;
/* EpisodeMessage{episode_id, SignedCommand} signed by `key` for `counter`
 * (the episode's number of applied commands when it will be applied). */
kd_err kd_wire_signed_command(uint32_t episode_id, const uint8_t *command, size_t len, const kd_key *key,
                              uint64_t counter, kd_buf *out) KD_WARN_UNUSED;
/* EpisodeMessage{episode_id, SignedCommand} with a signature made elsewhere. */
kd_err kd_wire_presigned_command(uint32_t episode_id, const uint8_t *command, size_t len, const kd_pubkey *pubkey,
                                 const uint8_t *sig, size_t sig_len, kd_buf *out) KD_WARN_UNUSED;
/* EpisodeMessage{episode_id, UnsignedCommand}. */
kd_err kd_wire_unsigned_command(uint32_t episode_id, const uint8_t *command, size_t len, kd_buf *out) KD_WARN_UNUSED;

typedef struct {
    uint8_t tx_id[KD_HASH_LEN];
    const uint8_t *payload;
    size_t payload_len;
} kd_wire_tx;

/* EngineMsg{BlockAccepted}. */
kd_err kd_wire_accept(const uint8_t hash[KD_HASH_LEN], uint64_t daa, uint64_t time_ms, const kd_wire_tx *txs,
                      size_t tx_count, kd_buf *out) KD_WARN_UNUSED;
/* EngineMsg{BlockReverted}. */
kd_err kd_wire_revert(const uint8_t hash[KD_HASH_LEN], kd_buf *out) KD_WARN_UNUSED;

#endif
