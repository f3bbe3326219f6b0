/*
 * rules.h — the verdict on one transaction, shared by the writer (apply.c)
 * and the dry run (dryrun.c), so that a prediction and the real
 * application cannot disagree. Internal to engine/.
 *
 * Each step decides one part of the verdict in the order the engine checks
 * it, and either lets the transaction go on or fills the rejection into
 * the kd_tx_result (applied = 0, err, code, detail). None of them touches
 * storage: the caller owns the episode it passes in (the writer's working
 * set, or the dry run's copy) and does its own bookkeeping when a step
 * succeeds.
 *
 *   kd_rules_run_tx        decodes the tx and hands it to the caller's
 *                          creation or command handler, which use:
 *   kd_rules_decode_tx     tx id (32 bytes), payload is an EpisodeMessage
 *   NewEpisode:
 *     kd_rules_check_create  id != 0, not existing, type registered,
 *                            1..8 valid participant keys, the consents
 *                            (every named seat signed the creation;
 *                            every consent given verifies)
 *     kd_rules_init          the type's resolve_params (or the replayed
 *                            effective params) and init
 *   Command:
 *     kd_rules_authorise     signer key and signature over (id, counter,
 *                            command), or none for an unsigned command;
 *                            or authentic but stale (an earlier counter):
 *     kd_rules_refuse_stale  refused under the rule that refuses it now
 *                            (on a copy of the state), else stale_command
 *     kd_rules_execute       the type's execute (with its precheck's
 *                            verdict when found ahead); a rejection
 *                            leaves the state as it was
 */
#ifndef KD_ENGINE_RULES_H
#define KD_ENGINE_RULES_H

#include "engine/engine.h"
#include "engine/sigcheck.h"
#include "kdapp.pb-c.h"

/* The two kinds of transaction, decided by the caller on its own
 * episodes (ctx: the caller's state). Return only resource or storage
 * errors; rejections go into `r`. */
typedef struct {
    kd_err (*create)(void *ctx, const Kdapp__EpisodeMessage *em, const kd_block_meta *meta, kd_tx_result *r);
    kd_err (*command)(void *ctx, const Kdapp__EpisodeMessage *em, const kd_block_meta *meta, kd_tx_result *r);
    /* A JoinEpisode or CancelTable at an open table (table.c). */
    kd_err (*table)(void *ctx, const Kdapp__EpisodeMessage *em, const kd_block_meta *meta, kd_tx_result *r);
} kd_rules_handlers;

/* Decides tx `index` of block `ba`: decodes it (kd_rules_decode_tx), then
 * hands a NewEpisode to h->create and a command to h->command, or rejects
 * a message with no body. r is reset first. */
kd_err kd_rules_run_tx(const Kdapp__BlockAccepted *ba, size_t index, const kd_rules_handlers *h, void *ctx,
                       kd_tx_result *r) KD_WARN_UNUSED;

/* Unpacks tx `index` of a block. Returns NULL (r rejected with
 * KD_ERR_DECODE) when its id is not 32 bytes or its payload is not an
 * EpisodeMessage; otherwise r->tx_id and r->episode_id are set and the
 * caller frees the message with kdapp__episode_message__free_unpacked. */
Kdapp__EpisodeMessage *kd_rules_decode_tx(const Kdapp__Tx *tx, size_t index, kd_tx_result *r);

/* Where tx `tx` of block `ba` happens (pointers into both). */
void kd_rules_meta(const Kdapp__BlockAccepted *ba, const Kdapp__Tx *tx, uint32_t episode_id, kd_block_meta *out);

/* The rejection of a command for an episode that does not exist. */
void kd_rules_reject_missing(uint32_t id, kd_tx_result *r);

/* How far a replay trusts its log (kd_rules_check_create's `trust`). */
#define KD_RULES_TRUSTED 1u /* skip the signatures: the log's verdict came after them (replay.c) */
#define KD_RULES_LEGACY \
    2u /* the log recorded the creation as applied: a v1 consent verifies too, a missing one is excused */
#define KD_RULES_PRECHECKED 4u /* the log recorded the command as applied: its type's precheck held (episode.h) */

/* The checks of a NewEpisode before its type runs, on a store following
 * `chain` (engine/chain.h). `exists`: whether the episode id is taken.
 * `trust`: KD_RULES_TRUSTED skips the consent signatures (a replay of our
 * own log whose verdict on this creation was reached after them: applied,
 * or refused by a later rule); KD_RULES_LEGACY takes a consent of version
 * 1 (crypto.h: no chain) as well, for a replayed creation its log
 * recorded as applied, made before consents named their chain, and
 * excuses a named seat's missing consent (made before every named seat
 * had to consent: until then only a house or a seat with a secret did);
 * without it a v1 consent is refused with a sentence saying so, and every
 * named seat must consent. Returns the type,
 * with *parts filled, or NULL with r rejected (a missing, extra-invalid,
 * duplicate, out-of-range or other chain's consent: KD_ERR_NO_CONSENT).
 * A participant of 0 bytes is an open seat: its bit is set in *open, its
 * key in *parts is 33 zero bytes, its consent is neither required nor
 * taken (the stranger who joins signs its own). */
const kd_registry_entry *kd_rules_check_create(const kd_registry *registry, const char *chain,
                                               const Kdapp__EpisodeMessage *em, int exists, unsigned trust,
                                               kd_participants *parts, uint32_t *open, kd_tx_result *r);

/* Resolves the parameters (`params`, `len`: NewEpisode.params, or a
 * table's merged with its joiners') into `effective` (appended; `override`, when
 * not NULL, is taken as they are: a replay of recorded parameters) and
 * initialises `state` (type->ops->state_size bytes). *ok = 0 with r
 * rejected when the type refuses. Errors: KD_ERR_NOMEM. */
kd_err kd_rules_init(const kd_registry_entry *type, const uint8_t *params, size_t len,
                     const ProtobufCBinaryData *override, const kd_participants *parts, const kd_block_meta *meta,
                     void *state, kd_buf *effective, kd_tx_result *r, int *ok) KD_WARN_UNUSED;

/* What kd_rules_authorise decided. */
typedef enum {
    KD_AUTH_REFUSED = 0, /* r rejected */
    KD_AUTH_OK = 1,      /* authorised: run the command */
    KD_AUTH_STALE = 2,   /* authentic, but signed for the earlier move *signed_at: never applied */
} kd_auth;

/* Authorises a command on episode `id` whose move counter is `counter`.
 * A signed command needs a 33-byte key and a signature over (id, counter,
 * command) that verifies (looked up in `batch` when not NULL; `trusted`
 * skips the check for a replay of our own log). A signature that verifies
 * only at one of the KD_STALE_WINDOW counters before (engine/crypto.h) is
 * KD_AUTH_STALE, with *signed_at that counter: the caller then hands the
 * command to kd_rules_refuse_stale. Sets *cmd, and *signer (pointing at
 * *pk) or NULL for an unsigned command. */
kd_auth kd_rules_authorise(const Kdapp__EpisodeMessage *em, uint32_t id, uint64_t counter, kd_sig_batch *batch,
                           int trusted, kd_pubkey *pk, const kd_pubkey **signer, const ProtobufCBinaryData **cmd,
                           uint64_t *signed_at, kd_tx_result *r);

/* Refuses a stale command (KD_AUTH_STALE) under the rule that refuses it
 * now: ops->execute runs with `signer` on a copy of `state` (kept in
 * `scratch`; `undo`, ops->undo_size bytes, is scribbled on), so `state` is
 * untouched whatever the rules say. A refusal keeps the rule's code and
 * sentence, with " (signed for move signed_at, the episode is at move
 * counter)"; a command the rules would take is KD_ERR_STALE_COMMAND. r is
 * always rejected. Errors: KD_ERR_NOMEM. */
kd_err kd_rules_refuse_stale(const kd_episode_ops *ops, const void *state, kd_buf *scratch,
                             const ProtobufCBinaryData *cmd, const kd_pubkey *signer, const kd_block_meta *meta,
                             void *undo, uint32_t id, uint64_t signed_at, uint64_t counter,
                             kd_tx_result *r) KD_WARN_UNUSED;

/* Runs ops->execute on `state`, filling `undo` (ops->undo_size bytes). A
 * rejected command leaves `state` as it was, even from a type that
 * changed it before refusing (restored from a copy kept in `scratch`).
 * For a type with a precheck, execute gets its verdict in meta->precheck
 * when `batch` (may be NULL) holds it for the key of this command and
 * state, or as KD_OK when `trusted` (a replay of our own log, which
 * applied this command). *ok = 0 with r rejected when the type refuses.
 * Errors: KD_ERR_NOMEM. */
kd_err kd_rules_execute(const kd_episode_ops *ops, void *state, kd_buf *scratch, const ProtobufCBinaryData *cmd,
                        const kd_pubkey *signer, const kd_block_meta *meta, kd_sig_batch *batch, int trusted,
                        void *undo, kd_tx_result *r, int *ok) KD_WARN_UNUSED;

#endif
