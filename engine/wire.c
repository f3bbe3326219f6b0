/* wire.c — encoders for payloads and chain events (see wire.h). */
#include "engine/wire.h"

#include <stdlib.h>
#include <string.h>

#include "engine/chain.h"
#include "kdapp.pb-c.h"

static kd_err pack_episode_message(const Kdapp__EpisodeMessage *m, kd_buf *out)
{
    size_t n = kdapp__episode_message__get_packed_size(m);
    kd_err err = kd_buf_reserve(out, n);
    if (err)
        return err;
    kdapp__episode_message__pack(m, out->data + out->len);
    out->len += n;
    return KD_OK;
}

static kd_err pack_engine_msg(const Kdapp__EngineMsg *m, kd_buf *out)
{
    size_t n = kdapp__engine_msg__get_packed_size(m);
    kd_err err = kd_buf_reserve(out, n);
    if (err)
        return err;
    kdapp__engine_msg__pack(m, out->data + out->len);
    out->len += n;
    return KD_OK;
}

kd_err kd_wire_new_episode(uint32_t episode_id, const char *type, const kd_participants *participants,
                           const uint8_t *params, size_t params_len, kd_buf *out)
{
    return kd_wire_new_episode_consented(episode_id, type, participants, params, params_len, NULL, 0, out);
}

kd_err kd_wire_new_episode_consented(uint32_t episode_id, const char *type, const kd_participants *p,
                                     const uint8_t *params, size_t len, const kd_consent *consents, size_t n,
                                     kd_buf *out)
{
    return kd_wire_new_table(episode_id, type, p, params, len, consents, n, 0, out);
}

kd_err kd_wire_new_table(uint32_t episode_id, const char *type, const kd_participants *p, const uint8_t *params,
                         size_t len, const kd_consent *consents, size_t n, uint32_t join_timeout, kd_buf *out)
{
    ProtobufCBinaryData parts[KD_MAX_PARTICIPANTS];
    if (p->count > KD_MAX_PARTICIPANTS)
        return KD_ERR_INVALID_ARG;
    static const uint8_t open_seat[KD_PUBKEY_LEN];
    for (size_t i = 0; i < p->count; i++) { /* 33 zero bytes (never a key): an open seat, sent as 0 bytes */
        parts[i].data = (uint8_t *)p->keys[i].bytes;
        parts[i].len = memcmp(p->keys[i].bytes, open_seat, KD_PUBKEY_LEN) ? KD_PUBKEY_LEN : 0;
    }
    for (size_t i = 0; i < n; i++)
        if (consents[i].sig_len > KD_SIG_MAX_LEN)
            return KD_ERR_INVALID_ARG;
    Kdapp__SeatConsent *cs = n ? calloc(n, sizeof *cs) : NULL;
    Kdapp__SeatConsent **cp = n ? calloc(n, sizeof *cp) : NULL;
    kd_err err = KD_ERR_NOMEM;
    if (n && (!cs || !cp))
        goto done;
    for (size_t i = 0; i < n; i++) {
        Kdapp__SeatConsent init = KDAPP__SEAT_CONSENT__INIT;
        cs[i] = init;
        cs[i].seat = consents[i].seat;
        cs[i].signature.data = (uint8_t *)consents[i].sig;
        cs[i].signature.len = consents[i].sig_len;
        cp[i] = &cs[i];
    }
    Kdapp__NewEpisode ne = KDAPP__NEW_EPISODE__INIT;
    ne.episode_type = (char *)type;
    ne.n_participants = p->count;
    ne.participants = parts;
    ne.params.data = (uint8_t *)params;
    ne.params.len = len;
    ne.n_consents = n;
    ne.consents = cp;
    ne.join_timeout = join_timeout;
    Kdapp__EpisodeMessage m = KDAPP__EPISODE_MESSAGE__INIT;
    m.episode_id = episode_id;
    m.body_case = KDAPP__EPISODE_MESSAGE__BODY_NEW_EPISODE;
    m.new_episode = &ne;
    err = pack_episode_message(&m, out);
done:
    free(cs);
    free(cp);
    return err;
}

kd_err kd_consent_sign(const kd_key *key, uint32_t seat, const char *chain, uint32_t episode_id, const char *type,
                       const kd_participants *parts, const uint8_t *params, size_t len, kd_consent *out)
{
    return kd_consent_sign_table(key, seat, chain, episode_id, type, parts, params, len, 0, out);
}

kd_err kd_consent_sign_table(const kd_key *key, uint32_t seat, const char *chain, uint32_t episode_id, const char *type,
                             const kd_participants *parts, const uint8_t *params, size_t len, uint32_t join_timeout,
                             kd_consent *out)
{
    if (seat >= parts->count || parts->count > KD_MAX_PARTICIPANTS || !kd_chain_valid(chain) ||
        memcmp(parts->keys[seat].bytes, key->pub.bytes, KD_PUBKEY_LEN) != 0)
        return KD_ERR_INVALID_ARG;
    uint8_t digest[KD_HASH_LEN];
    kd_creation_digest(chain, episode_id, type, parts, params, len, join_timeout, digest);
    memset(out, 0, sizeof *out);
    kd_err err = kd_key_sign(key, digest, out->sig);
    if (err)
        return err;
    out->seat = seat;
    out->sig_len = KD_SIG_COMPACT_LEN;
    return KD_OK;
}

kd_err kd_wire_presigned_command(uint32_t episode_id, const uint8_t *command, size_t len, const kd_pubkey *pubkey,
                                 const uint8_t *sig, size_t sig_len, kd_buf *out)
{
    Kdapp__SignedCommand sc = KDAPP__SIGNED_COMMAND__INIT;
    sc.command.data = (uint8_t *)command;
    sc.command.len = len;
    sc.pubkey.data = (uint8_t *)pubkey->bytes;
    sc.pubkey.len = KD_PUBKEY_LEN;
    sc.signature.data = (uint8_t *)sig;
    sc.signature.len = sig_len;
    Kdapp__EpisodeMessage m = KDAPP__EPISODE_MESSAGE__INIT;
    m.episode_id = episode_id;
    m.body_case = KDAPP__EPISODE_MESSAGE__BODY_SIGNED_COMMAND;
    m.signed_command = &sc;
    return pack_episode_message(&m, out);
}

kd_err kd_wire_signed_command(uint32_t episode_id, const uint8_t *command, size_t len, const kd_key *key,
                              uint64_t counter, kd_buf *out)
{
    uint8_t digest[KD_HASH_LEN], sig[KD_SIG_COMPACT_LEN];
    kd_command_digest(episode_id, counter, command, len, digest);
    kd_err err = kd_key_sign(key, digest, sig);
    if (err)
        return err;
    return kd_wire_presigned_command(episode_id, command, len, &key->pub, sig, sizeof sig, out);
}

kd_err kd_wire_unsigned_command(uint32_t episode_id, const uint8_t *command, size_t len, kd_buf *out)
{
    Kdapp__UnsignedCommand uc = KDAPP__UNSIGNED_COMMAND__INIT;
    uc.command.data = (uint8_t *)command;
    uc.command.len = len;
    Kdapp__EpisodeMessage m = KDAPP__EPISODE_MESSAGE__INIT;
    m.episode_id = episode_id;
    m.body_case = KDAPP__EPISODE_MESSAGE__BODY_UNSIGNED_COMMAND;
    m.unsigned_command = &uc;
    return pack_episode_message(&m, out);
}

kd_err kd_wire_accept(const uint8_t hash[KD_HASH_LEN], uint64_t daa, uint64_t time_ms, const kd_wire_tx *txs,
                      size_t tx_count, kd_buf *out)
{
    Kdapp__Tx *tx_structs = calloc(tx_count ? tx_count : 1, sizeof *tx_structs);
    Kdapp__Tx **tx_ptrs = calloc(tx_count ? tx_count : 1, sizeof *tx_ptrs);
    kd_err err = KD_ERR_NOMEM;
    if (!tx_structs || !tx_ptrs)
        goto done;
    for (size_t i = 0; i < tx_count; i++) {
        Kdapp__Tx init = KDAPP__TX__INIT;
        tx_structs[i] = init;
        tx_structs[i].tx_id.data = (uint8_t *)txs[i].tx_id;
        tx_structs[i].tx_id.len = KD_HASH_LEN;
        tx_structs[i].payload.data = (uint8_t *)txs[i].payload;
        tx_structs[i].payload.len = txs[i].payload_len;
        tx_ptrs[i] = &tx_structs[i];
    }
    Kdapp__BlockAccepted ba = KDAPP__BLOCK_ACCEPTED__INIT;
    ba.accepting_hash.data = (uint8_t *)hash;
    ba.accepting_hash.len = KD_HASH_LEN;
    ba.accepting_daa = daa;
    ba.accepting_time = time_ms;
    ba.n_txs = tx_count;
    ba.txs = tx_ptrs;
    Kdapp__EngineMsg m = KDAPP__ENGINE_MSG__INIT;
    m.kind_case = KDAPP__ENGINE_MSG__KIND_ACCEPTED;
    m.accepted = &ba;
    err = pack_engine_msg(&m, out);
done:
    free(tx_structs);
    free(tx_ptrs);
    return err;
}

kd_err kd_wire_revert(const uint8_t hash[KD_HASH_LEN], kd_buf *out)
{
    Kdapp__BlockReverted br = KDAPP__BLOCK_REVERTED__INIT;
    br.accepting_hash.data = (uint8_t *)hash;
    br.accepting_hash.len = KD_HASH_LEN;
    Kdapp__EngineMsg m = KDAPP__ENGINE_MSG__INIT;
    m.kind_case = KDAPP__ENGINE_MSG__KIND_REVERTED;
    m.reverted = &br;
    return pack_engine_msg(&m, out);
}

kd_err kd_wire_join(const char *chain, uint32_t episode_id, const char *type, const uint8_t *params, size_t len,
                    uint32_t seat, const kd_key *key, const uint8_t *seat_params, size_t seat_len, kd_buf *out)
{
    uint8_t digest[KD_HASH_LEN], sig[KD_SIG_COMPACT_LEN];
    kd_join_digest(chain, episode_id, type, seat, &key->pub, params, len, seat_params, seat_len, digest);
    kd_err err = kd_key_sign(key, digest, sig);
    if (err)
        return err;
    Kdapp__JoinEpisode j = KDAPP__JOIN_EPISODE__INIT;
    j.seat = seat;
    j.pubkey.data = (uint8_t *)key->pub.bytes;
    j.pubkey.len = KD_PUBKEY_LEN;
    j.params.data = (uint8_t *)seat_params;
    j.params.len = seat_len;
    j.signature.data = sig;
    j.signature.len = sizeof sig;
    Kdapp__EpisodeMessage m = KDAPP__EPISODE_MESSAGE__INIT;
    m.episode_id = episode_id;
    m.body_case = KDAPP__EPISODE_MESSAGE__BODY_JOIN;
    m.join = &j;
    return pack_episode_message(&m, out);
}

kd_err kd_wire_cancel(const char *chain, uint32_t episode_id, const char *type, const kd_key *key, kd_buf *out)
{
    uint8_t digest[KD_HASH_LEN], sig[KD_SIG_COMPACT_LEN];
    kd_cancel_digest(chain, episode_id, type, digest);
    kd_err err = kd_key_sign(key, digest, sig);
    if (err)
        return err;
    Kdapp__CancelTable x = KDAPP__CANCEL_TABLE__INIT;
    x.pubkey.data = (uint8_t *)key->pub.bytes;
    x.pubkey.len = KD_PUBKEY_LEN;
    x.signature.data = sig;
    x.signature.len = sizeof sig;
    Kdapp__EpisodeMessage m = KDAPP__EPISODE_MESSAGE__INIT;
    m.episode_id = episode_id;
    m.body_case = KDAPP__EPISODE_MESSAGE__BODY_CANCEL;
    m.cancel = &x;
    return pack_episode_message(&m, out);
}
