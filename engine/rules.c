/* rules.c — the verdict on one transaction, for the writer and the dry run (see rules.h). */
#include "engine/rules.h"

#include <stdio.h>
#include <string.h>

#include "engine/crypto.h"
#include "engine/txn.h"

Kdapp__EpisodeMessage *kd_rules_decode_tx(const Kdapp__Tx *tx, size_t index, kd_tx_result *r)
{
    char detail[KD_DETAIL_MAX];
    r->applied = 0;
    if (tx->tx_id.len != KD_HASH_LEN) {
        snprintf(detail, sizeof detail, "tx %zu: tx_id is %zu bytes, not 32", index, tx->tx_id.len);
        kd_txn_reject(r, KD_ERR_DECODE, NULL, detail);
        return NULL;
    }
    memcpy(r->tx_id, tx->tx_id.data, KD_HASH_LEN);
    Kdapp__EpisodeMessage *em = kdapp__episode_message__unpack(NULL, tx->payload.len, tx->payload.data);
    if (!em) {
        snprintf(detail, sizeof detail, "payload (%zu bytes) is not a kdapp.EpisodeMessage", tx->payload.len);
        kd_txn_reject(r, KD_ERR_DECODE, NULL, detail);
        return NULL;
    }
    r->episode_id = em->episode_id;
    return em;
}

void kd_rules_meta(const Kdapp__BlockAccepted *ba, const Kdapp__Tx *tx, uint32_t episode_id, kd_block_meta *out)
{
    memset(out, 0, sizeof *out);
    out->block_hash = ba->accepting_hash.data;
    out->daa = ba->accepting_daa;
    out->time_ms = ba->accepting_time;
    out->tx_id = tx->tx_id.data;
    out->episode_id = episode_id;
}

kd_err kd_rules_run_tx(const Kdapp__BlockAccepted *ba, size_t index, const kd_rules_handlers *h, void *ctx,
                       kd_tx_result *r)
{
    memset(r, 0, sizeof *r);
    const Kdapp__Tx *tx = ba->txs[index];
    Kdapp__EpisodeMessage *em = kd_rules_decode_tx(tx, index, r);
    if (!em)
        return KD_OK;
    kd_block_meta meta;
    kd_rules_meta(ba, tx, em->episode_id, &meta);
    kd_err err = KD_OK;
    switch (em->body_case) {
    case KDAPP__EPISODE_MESSAGE__BODY_NEW_EPISODE:
        err = h->create(ctx, em, &meta, r);
        break;
    case KDAPP__EPISODE_MESSAGE__BODY_SIGNED_COMMAND:
    case KDAPP__EPISODE_MESSAGE__BODY_UNSIGNED_COMMAND:
        err = h->command(ctx, em, &meta, r);
        break;
    case KDAPP__EPISODE_MESSAGE__BODY_JOIN:
    case KDAPP__EPISODE_MESSAGE__BODY_CANCEL:
        err = h->table(ctx, em, &meta, r);
        break;
    default:
        kd_txn_reject(r, KD_ERR_DECODE, NULL,
                      "episode message has no body (new_episode, signed_command, unsigned_command, join or cancel)");
        break;
    }
    kdapp__episode_message__free_unpacked(em, NULL);
    return err;
}

void kd_rules_reject_missing(uint32_t id, kd_tx_result *r)
{
    char detail[KD_DETAIL_MAX];
    snprintf(detail, sizeof detail, "episode %u does not exist", id);
    kd_txn_reject(r, KD_ERR_UNKNOWN_EPISODE, NULL, detail);
}

/*
 * The consents of a creation (crypto.h; engine/README.md, "Creation
 * consent and chains"). Every named seat (a participant that is not open)
 * must consent, whatever the type: no key is seated without its own
 * signature. The one exception is KD_RULES_LEGACY, a replayed creation
 * its log recorded as applied: it was decided under the rules of its
 * time, when only the seats a type required (a house, a seat with a
 * secret) consented, so a missing consent is not held against it; every
 * consent it does carry must still verify. The cheap checks come first
 * and bound the cost: after them every consent names a distinct seat
 * below the count, so a creation costs at most KD_MAX_PARTICIPANTS
 * verifications (twice that when one fails: the second tells a v1 consent
 * or another chain's from a forgery in the sentence), and the first one
 * that fails ends the check.
 */
static int check_consent(const char *chain, const Kdapp__EpisodeMessage *em, const kd_participants *parts,
                         uint32_t open, unsigned trust, kd_tx_result *r)
{
    const Kdapp__NewEpisode *ne = em->new_episode;
    char detail[KD_DETAIL_MAX];
    uint32_t given = 0;
    for (size_t i = 0; i < ne->n_consents; i++) {
        uint32_t seat = ne->consents[i]->seat;
        if (seat >= parts->count) {
            snprintf(detail, sizeof detail, "consent %zu names seat %u, but the episode has %zu participants", i, seat,
                     parts->count);
            kd_txn_reject(r, KD_ERR_NO_CONSENT, NULL, detail);
            return 0;
        }
        if (given & (UINT32_C(1) << seat)) {
            snprintf(detail, sizeof detail, "seat %u consents twice to this creation (consent %zu); give it once", seat,
                     i);
            kd_txn_reject(r, KD_ERR_NO_CONSENT, NULL, detail);
            return 0;
        }
        if (open & (UINT32_C(1) << seat)) {
            snprintf(detail, sizeof detail, "consent %zu names seat %u, which is open: a stranger consents by joining",
                     i, seat);
            kd_txn_reject(r, KD_ERR_NO_CONSENT, NULL, detail);
            return 0;
        }
        given |= UINT32_C(1) << seat;
    }
    for (uint32_t seat = 0; seat < parts->count && !(trust & KD_RULES_LEGACY); seat++)
        if (!(open & (UINT32_C(1) << seat)) && !(given & (UINT32_C(1) << seat))) {
            snprintf(detail, sizeof detail,
                     "seat %u must consent to this creation (its signature over the creation is missing): every "
                     "named seat signs the creation; leave the seat open for a stranger to join instead",
                     seat);
            kd_txn_reject(r, KD_ERR_NO_CONSENT, NULL, detail);
            return 0;
        }
    if (ne->n_consents == 0)
        return 1;
    uint8_t digest[KD_HASH_LEN], v1[KD_HASH_LEN];
    kd_creation_digest(chain, em->episode_id, ne->episode_type, parts, ne->params.data, ne->params.len,
                       ne->join_timeout, digest);
    kd_creation_digest_v1(em->episode_id, ne->episode_type, parts, ne->params.data, ne->params.len, v1);
    for (size_t i = 0; i < ne->n_consents; i++) {
        const Kdapp__SeatConsent *c = ne->consents[i];
        const kd_pubkey *key = &parts->keys[c->seat];
        if (kd_sig_verify(key, digest, c->signature.data, c->signature.len) == KD_OK)
            continue;
        int old = kd_sig_verify(key, v1, c->signature.data, c->signature.len) == KD_OK;
        if (old && (trust & KD_RULES_LEGACY))
            continue; /* a log written before v2 recorded it applied */
        if (old)
            snprintf(detail, sizeof detail,
                     "the consent of seat %u is of version 1, which names no chain: a new creation needs the "
                     "seat's consent for chain %s (kdapp/new-episode/v2)",
                     c->seat, chain);
        else
            snprintf(detail, sizeof detail,
                     "the consent of seat %u does not verify over this creation on chain %s (episode id, type, "
                     "participants, params): made for another chain, store or creation",
                     c->seat, chain);
        kd_txn_reject(r, KD_ERR_NO_CONSENT, NULL, detail);
        return 0;
    }
    return 1;
}

const kd_registry_entry *kd_rules_check_create(const kd_registry *registry, const char *chain,
                                               const Kdapp__EpisodeMessage *em, int exists, unsigned trust,
                                               kd_participants *parts, uint32_t *open, kd_tx_result *r)
{
    *open = 0;
    const Kdapp__NewEpisode *ne = em->new_episode;
    char detail[KD_DETAIL_MAX];
    if (em->episode_id == 0) {
        kd_txn_reject(r, KD_ERR_BAD_EPISODE_ID, NULL, "episode id 0 is not valid");
        return NULL;
    }
    if (exists) {
        snprintf(detail, sizeof detail, "episode %u already exists", em->episode_id);
        kd_txn_reject(r, KD_ERR_EPISODE_EXISTS, NULL, detail);
        return NULL;
    }
    const char *type_name = ne->episode_type ? ne->episode_type : "";
    const kd_registry_entry *type = kd_registry_find(registry, type_name);
    if (!type) {
        snprintf(detail, sizeof detail, "episode type '%.64s' is not registered", type_name);
        kd_txn_reject(r, KD_ERR_UNKNOWN_TYPE, NULL, detail);
        return NULL;
    }
    parts->count = 0;
    if (ne->n_participants == 0 || ne->n_participants > KD_MAX_PARTICIPANTS) {
        snprintf(detail, sizeof detail, "an episode needs 1 to %d participants, got %zu", KD_MAX_PARTICIPANTS,
                 ne->n_participants);
        kd_txn_reject(r, KD_ERR_BAD_PARTICIPANTS, NULL, detail);
        return NULL;
    }
    for (size_t i = 0; i < ne->n_participants; i++) {
        if (ne->participants[i].len == 0) { /* an open seat: a stranger's JoinEpisode takes it */
            memset(parts->keys[i].bytes, 0, KD_PUBKEY_LEN);
            *open |= UINT32_C(1) << i;
            continue;
        }
        if (ne->participants[i].len != KD_PUBKEY_LEN) {
            snprintf(detail, sizeof detail, "participant %zu is %zu bytes, not a 33-byte compressed key", i,
                     ne->participants[i].len);
            kd_txn_reject(r, KD_ERR_BAD_PARTICIPANTS, NULL, detail);
            return NULL;
        }
        memcpy(parts->keys[i].bytes, ne->participants[i].data, KD_PUBKEY_LEN);
        if (kd_pubkey_check(&parts->keys[i]) != KD_OK) {
            snprintf(detail, sizeof detail, "participant %zu is not a valid secp256k1 key", i);
            kd_txn_reject(r, KD_ERR_BAD_PARTICIPANTS, NULL, detail);
            return NULL;
        }
    }
    parts->count = ne->n_participants;
    if (!*open && ne->join_timeout) {
        kd_txn_reject(r, KD_ERR_BAD_PARTICIPANTS, NULL,
                      "join_timeout is for a table with open seats (a participant of 0 bytes); this creation has none");
        return NULL;
    }
    if (ne->join_timeout > KD_TABLE_TIMEOUT_MAX) {
        snprintf(detail, sizeof detail, "join_timeout %u is over the most a table may wait, %u", ne->join_timeout,
                 KD_TABLE_TIMEOUT_MAX);
        kd_txn_reject(r, KD_ERR_BAD_PARTICIPANTS, NULL, detail);
        return NULL;
    }
    if (!(trust & KD_RULES_TRUSTED) && !check_consent(chain, em, parts, *open, trust, r))
        return NULL; /* trusted: a replay of our own log whose verdict came after the consents */
    return type;
}

kd_err kd_rules_init(const kd_registry_entry *type, const uint8_t *params, size_t len,
                     const ProtobufCBinaryData *override, const kd_participants *parts, const kd_block_meta *meta,
                     void *state, kd_buf *effective, kd_tx_result *r, int *ok)
{
    kd_reject rej = {{0}, {0}};
    kd_err err;
    *ok = 0;
    if (override) {
        if ((err = kd_buf_append(effective, override->data, override->len)))
            return err;
    } else if ((err = type->ops->resolve_params(type->config, params, len, effective, &rej))) {
        kd_txn_reject(r, err, kd_reject_code(err, &rej), rej.detail);
        return KD_OK;
    }
    kd_err rule = type->ops->init(state, parts, effective->data, effective->len, meta, &rej);
    if (rule) {
        kd_txn_reject(r, rule, kd_reject_code(rule, &rej), rej.detail);
        return KD_OK;
    }
    *ok = 1;
    return KD_OK;
}

/* The verdict on `sig` over command `cmd` of episode `id` at `counter`:
 * from the batch when it holds it, else verified here. */
static kd_err verify_at(kd_sig_batch *batch, const kd_pubkey *pk, uint32_t id, uint64_t counter,
                        const Kdapp__SignedCommand *sc)
{
    uint8_t digest[KD_HASH_LEN];
    kd_err sig = KD_OK;
    kd_command_digest(id, counter, sc->command.data, sc->command.len, digest);
    if (!kd_sig_batch_lookup(batch, pk, digest, sc->signature.data, sc->signature.len, &sig))
        sig = kd_sig_verify(pk, digest, sc->signature.data, sc->signature.len);
    return sig;
}

kd_auth kd_rules_authorise(const Kdapp__EpisodeMessage *em, uint32_t id, uint64_t counter, kd_sig_batch *batch,
                           int trusted, kd_pubkey *pk, const kd_pubkey **signer, const ProtobufCBinaryData **cmd,
                           uint64_t *signed_at, kd_tx_result *r)
{
    char detail[KD_DETAIL_MAX];
    *signer = NULL;
    *signed_at = counter;
    if (em->body_case != KDAPP__EPISODE_MESSAGE__BODY_SIGNED_COMMAND) {
        *cmd = &em->unsigned_command->command;
        return KD_AUTH_OK;
    }
    const Kdapp__SignedCommand *sc = em->signed_command;
    *cmd = &sc->command;
    if (sc->pubkey.len != KD_PUBKEY_LEN) {
        snprintf(detail, sizeof detail, "signer key is %zu bytes, not a 33-byte compressed key", sc->pubkey.len);
        kd_txn_reject(r, KD_ERR_BAD_PUBKEY, NULL, detail);
        return KD_AUTH_REFUSED;
    }
    memcpy(pk->bytes, sc->pubkey.data, KD_PUBKEY_LEN);
    *signer = pk;
    if (trusted) /* replaying our own log, which recorded this signature as good */
        return KD_AUTH_OK;
    kd_err sig = verify_at(batch, pk, id, counter, sc);
    if (sig == KD_OK)
        return KD_AUTH_OK;
    /* Signed for an earlier move? At most KD_STALE_WINDOW more checks, so
     * a forged signature costs a bounded amount; none for a bad key. */
    for (uint64_t back = 1; sig == KD_ERR_BAD_SIGNATURE && back <= KD_STALE_WINDOW && back <= counter; back++)
        if (verify_at(NULL, pk, id, counter - back, sc) == KD_OK) {
            *signed_at = counter - back;
            return KD_AUTH_STALE;
        }
    *signer = NULL;
    snprintf(detail, sizeof detail,
             sig == KD_ERR_BAD_PUBKEY ? "signer key is not a valid secp256k1 key"
                                      : "signature does not verify for episode %u at move counter %llu "
                                        "(signatures are single-use)",
             id, (unsigned long long)counter);
    kd_txn_reject(r, sig, NULL, detail);
    return KD_AUTH_REFUSED;
}

kd_err kd_rules_refuse_stale(const kd_episode_ops *ops, const void *state, kd_buf *scratch,
                             const ProtobufCBinaryData *cmd, const kd_pubkey *signer, const kd_block_meta *meta,
                             void *undo, uint32_t id, uint64_t signed_at, uint64_t counter, kd_tx_result *r)
{
    /* The rules run on a copy: whether they refuse or accept, the state
     * stays as it is. */
    scratch->len = 0;
    kd_err err = kd_buf_append(scratch, state, ops->state_size);
    if (err)
        return err;
    kd_reject rej = {{0}, {0}};
    kd_err rule = ops->execute(scratch->data, cmd->data, cmd->len, signer, meta, undo, &rej);
    scratch->len = 0;
    char detail[KD_DETAIL_MAX];
    if (rule) {
        /* The rule's sentence, cut if it must be so the note always fits. */
        char note[96]; /* fits two 20-digit counters */
        int n = snprintf(note, sizeof note, " (signed for move %llu, the episode is at move %llu)",
                         (unsigned long long)signed_at, (unsigned long long)counter);
        const char *why = rej.detail[0] ? rej.detail : kd_err_str(rule);
        size_t room = sizeof detail - 1 - (size_t)n, len = strnlen(why, room);
        memcpy(detail, why, len);
        memcpy(detail + len, note, (size_t)n + 1);
        kd_txn_reject(r, rule, kd_reject_code(rule, &rej), detail);
        return KD_OK;
    }
    snprintf(detail, sizeof detail,
             "the command was signed for move %llu of episode %u, now at move %llu (another command came first): "
             "sign it again for move %llu",
             (unsigned long long)signed_at, id, (unsigned long long)counter, (unsigned long long)counter);
    kd_txn_reject(r, KD_ERR_STALE_COMMAND, NULL, detail);
    return KD_OK;
}

kd_err kd_rules_execute(const kd_episode_ops *ops, void *state, kd_buf *scratch, const ProtobufCBinaryData *cmd,
                        const kd_pubkey *signer, const kd_block_meta *meta, kd_sig_batch *batch, int trusted,
                        void *undo, kd_tx_result *r, int *ok)
{
    *ok = 0;
    /* the type's precheck verdict, when the pool found it ahead or our own
     * log applied this command */
    kd_block_meta m = *meta;
    kd_precheck pc;
    uint8_t key[KD_HASH_LEN];
    memset(&pc, 0, sizeof pc);
    if (ops->precheck && trusted)
        m.precheck = &pc; /* KD_OK */
    else if (ops->precheck_key && batch &&
             ops->precheck_key(state, cmd->data, cmd->len, signer, meta->episode_id, key) &&
             kd_sig_batch_precheck(batch, key, &pc))
        m.precheck = &pc;
    meta = &m;
    /* Keep a copy so a misbehaving type cannot leave a rejected command's
     * half-applied state behind. */
    scratch->len = 0;
    kd_err err = kd_buf_append(scratch, state, ops->state_size);
    if (err)
        return err;
    kd_reject rej = {{0}, {0}};
    kd_err rule = ops->execute(state, cmd->data, cmd->len, signer, meta, undo, &rej);
    if (rule) {
        memcpy(state, scratch->data, ops->state_size);
        kd_txn_reject(r, rule, kd_reject_code(rule, &rej), rej.detail);
        return KD_OK;
    }
    *ok = 1;
    return KD_OK;
}
