/*
 * holdem_wire.c — the one boundary between hold'em and protobuf-c:
 * HmCommand and HmParams bytes to domain values and back, and the params'
 * defaults and ranges.
 */
#include <stdlib.h>
#include <string.h>

#include "episodes/fair.h"
#include "episodes/holdem/holdem.h"
#include "episodes/wire_alloc.h"
#include "holdem.pb-c.h"

static kd_err bad(kd_reject *rej, const char *what) { return kd_reject_say(rej, KD_ERR_BAD_COMMAND, "%s", what); }

static int points_from(const ProtobufCBinaryData *b, kd_hm_point *out, size_t n)
{
    if (b->len != n * KD_HM_POINT_LEN)
        return -1;
    memcpy(out, b->data, b->len);
    return 0;
}

static kd_err from_message(const Kdapp__HmCommand *m, kd_hm_command *c, kd_reject *rej)
{
    switch (m->cmd_case) {
    case KDAPP__HM_COMMAND__CMD_SHUFFLE:
        c->kind = KD_HM_CMD_SHUFFLE;
        if (points_from(&m->shuffle->deck, c->deck, KD_HM_CARDS))
            return bad(rej, "a shuffle carries the deck: 52 points of 33 bytes (1716 bytes)");
        if (!m->shuffle->key.len && !m->shuffle->proof.len)
            return KD_OK; /* protocol 1's */
        if (points_from(&m->shuffle->key, &c->key, 1) || m->shuffle->proof.len != KD_HM_SHUFFLE_PROOF_LEN)
            return bad(rej, "a shuffle's key is 33 bytes and its proof 6920 bytes, both or neither");
        memcpy(c->proof, m->shuffle->proof.data, KD_HM_SHUFFLE_PROOF_LEN);
        c->proved = 1;
        return KD_OK;
    case KDAPP__HM_COMMAND__CMD_LOCK:
        c->kind = KD_HM_CMD_LOCK;
        if (points_from(&m->lock->cards, c->cards, KD_HM_DEALT) ||
            points_from(&m->lock->commits, c->commits, KD_HM_DEALT))
            return bad(rej, "a lock carries 9 cards and 9 commitments, 33-byte points (297 bytes each)");
        if (!m->lock->proofs.len)
            return KD_OK; /* protocol 1's */
        if (m->lock->proofs.len != KD_HM_LOCK_PROOF_LEN)
            return bad(rej, "a lock's proofs are 9 of 64 bytes (576 bytes)");
        memcpy(c->proofs, m->lock->proofs.data, KD_HM_LOCK_PROOF_LEN);
        c->proved = 1;
        return KD_OK;
    case KDAPP__HM_COMMAND__CMD_KEYS:
        c->kind = KD_HM_CMD_KEYS;
        if (m->keys->positions.len == 0 || m->keys->positions.len > KD_HM_DEALT ||
            m->keys->keys.len != m->keys->positions.len * KD_HM_SCALAR_LEN)
            return bad(rej, "keys carry 1 to 9 positions (one byte each) and a 32-byte key for each");
        c->n_keys = (uint32_t)m->keys->positions.len;
        memcpy(c->positions, m->keys->positions.data, c->n_keys);
        memcpy(c->keys, m->keys->keys.data, m->keys->keys.len);
        return KD_OK;
    case KDAPP__HM_COMMAND__CMD_FOLD:
        c->kind = KD_HM_CMD_FOLD;
        return KD_OK;
    case KDAPP__HM_COMMAND__CMD_CHECK:
        c->kind = KD_HM_CMD_CHECK;
        return KD_OK;
    case KDAPP__HM_COMMAND__CMD_CALL:
        c->kind = KD_HM_CMD_CALL;
        return KD_OK;
    case KDAPP__HM_COMMAND__CMD_RAISE:
        c->kind = KD_HM_CMD_RAISE;
        c->to = m->raise->to;
        return KD_OK;
    case KDAPP__HM_COMMAND__CMD_REVEAL:
        c->kind = KD_HM_CMD_REVEAL;
        if (m->reveal->secret.len != KD_HASH_LEN)
            return bad(rej, "a reveal carries the hand secret: 32 bytes");
        memcpy(c->secret, m->reveal->secret.data, KD_HASH_LEN);
        return KD_OK;
    case KDAPP__HM_COMMAND__CMD_DISPUTE:
        c->kind = KD_HM_CMD_DISPUTE;
        return KD_OK;
    case KDAPP__HM_COMMAND__CMD_CLAIM:
        c->kind = KD_HM_CMD_CLAIM;
        return KD_OK;
    case KDAPP__HM_COMMAND__CMD_MUCK:
        c->kind = KD_HM_CMD_MUCK;
        return KD_OK;
    default:
        return bad(rej, "the command carries none of shuffle, lock, keys, fold, check, call, raise, reveal, dispute, "
                        "claim, muck");
    }
}

kd_err kd_hm_command_decode(const uint8_t *data, size_t len, kd_hm_command *cmd, kd_reject *rej)
{
    kd_pb_alloc track;
    kd_pb_alloc_init(&track);
    memset(cmd, 0, sizeof *cmd);
    if (!data || len == 0)
        return bad(rej, "the command is empty: expected an HmCommand");
    Kdapp__HmCommand *m = kdapp__hm_command__unpack(&track.base, len, data);
    kd_err err;
    if (!m)
        err = kd_pb_unpack_refused(&track, rej, "command", KD_ERR_BAD_COMMAND,
                                   "the command (%zu bytes) is not a valid HmCommand message", len);
    else
        err = from_message(m, cmd, rej);
    kdapp__hm_command__free_unpacked(m, &track.base);
    return err;
}

kd_err kd_hm_command_encode(const kd_hm_command *c, kd_buf *out)
{
    Kdapp__HmCommand m = KDAPP__HM_COMMAND__INIT;
    Kdapp__HmShuffle shuffle = KDAPP__HM_SHUFFLE__INIT;
    Kdapp__HmLock lock = KDAPP__HM_LOCK__INIT;
    Kdapp__HmKeys keys = KDAPP__HM_KEYS__INIT;
    Kdapp__HmFold fold = KDAPP__HM_FOLD__INIT;
    Kdapp__HmCheck check = KDAPP__HM_CHECK__INIT;
    Kdapp__HmCall call = KDAPP__HM_CALL__INIT;
    Kdapp__HmRaise raise = KDAPP__HM_RAISE__INIT;
    Kdapp__HmReveal reveal = KDAPP__HM_REVEAL__INIT;
    Kdapp__HmDispute dispute = KDAPP__HM_DISPUTE__INIT;
    Kdapp__HmClaim claim = KDAPP__HM_CLAIM__INIT;
    Kdapp__HmMuck muck = KDAPP__HM_MUCK__INIT;
    switch (c->kind) {
    case KD_HM_CMD_SHUFFLE:
        shuffle.deck = (ProtobufCBinaryData){sizeof c->deck, (uint8_t *)c->deck};
        if (c->proved) {
            shuffle.key = (ProtobufCBinaryData){sizeof c->key, (uint8_t *)c->key};
            shuffle.proof = (ProtobufCBinaryData){sizeof c->proof, (uint8_t *)c->proof};
        }
        m.cmd_case = KDAPP__HM_COMMAND__CMD_SHUFFLE;
        m.shuffle = &shuffle;
        break;
    case KD_HM_CMD_LOCK:
        lock.cards = (ProtobufCBinaryData){sizeof c->cards, (uint8_t *)c->cards};
        lock.commits = (ProtobufCBinaryData){sizeof c->commits, (uint8_t *)c->commits};
        if (c->proved)
            lock.proofs = (ProtobufCBinaryData){sizeof c->proofs, (uint8_t *)c->proofs};
        m.cmd_case = KDAPP__HM_COMMAND__CMD_LOCK;
        m.lock = &lock;
        break;
    case KD_HM_CMD_KEYS:
        if (c->n_keys > KD_HM_DEALT)
            return KD_ERR_INVALID_ARG;
        keys.positions = (ProtobufCBinaryData){c->n_keys, (uint8_t *)c->positions};
        keys.keys = (ProtobufCBinaryData){c->n_keys * KD_HM_SCALAR_LEN, (uint8_t *)c->keys};
        m.cmd_case = KDAPP__HM_COMMAND__CMD_KEYS;
        m.keys = &keys;
        break;
    case KD_HM_CMD_FOLD:
        m.cmd_case = KDAPP__HM_COMMAND__CMD_FOLD;
        m.fold = &fold;
        break;
    case KD_HM_CMD_CHECK:
        m.cmd_case = KDAPP__HM_COMMAND__CMD_CHECK;
        m.check = &check;
        break;
    case KD_HM_CMD_CALL:
        m.cmd_case = KDAPP__HM_COMMAND__CMD_CALL;
        m.call = &call;
        break;
    case KD_HM_CMD_RAISE:
        raise.to = c->to;
        m.cmd_case = KDAPP__HM_COMMAND__CMD_RAISE;
        m.raise = &raise;
        break;
    case KD_HM_CMD_REVEAL:
        reveal.secret = (ProtobufCBinaryData){KD_HASH_LEN, (uint8_t *)c->secret};
        m.cmd_case = KDAPP__HM_COMMAND__CMD_REVEAL;
        m.reveal = &reveal;
        break;
    case KD_HM_CMD_DISPUTE:
        m.cmd_case = KDAPP__HM_COMMAND__CMD_DISPUTE;
        m.dispute = &dispute;
        break;
    case KD_HM_CMD_CLAIM:
        m.cmd_case = KDAPP__HM_COMMAND__CMD_CLAIM;
        m.claim = &claim;
        break;
    case KD_HM_CMD_MUCK:
        m.cmd_case = KDAPP__HM_COMMAND__CMD_MUCK;
        m.muck = &muck;
        break;
    default:
        return KD_ERR_INVALID_ARG;
    }
    return kd_pb_append(&m.base, out);
}

kd_err kd_hm_params_decode(const uint8_t *data, size_t len, kd_hm_params *params, kd_reject *rej)
{
    kd_pb_alloc track;
    kd_pb_alloc_init(&track);
    memset(params, 0, sizeof *params);
    Kdapp__HmParams *p = len ? kdapp__hm_params__unpack(&track.base, len, data) : NULL;
    kd_err err = KD_OK;
    if (!p && track.failed)
        err = kd_reject_say(rej, KD_ERR_NOMEM, "out of memory while decoding the params");
    else if (!p || p->binding_0.len != KD_SECRET_BINDING_LEN || p->binding_1.len != KD_SECRET_BINDING_LEN)
        err = kd_reject_say(rej, KD_ERR_BAD_PARAMS,
                            "hold'em needs each seat's binding: HmParams with binding_0 and binding_1 of 32 bytes "
                            "each (a gateway holding a seat's key adds it)");
    else {
        memcpy(params->bindings[0], p->binding_0.data, KD_SECRET_BINDING_LEN);
        memcpy(params->bindings[1], p->binding_1.data, KD_SECRET_BINDING_LEN);
        params->stack = p->stack;
        params->small_blind = p->small_blind;
        params->big_blind = p->big_blind;
        params->hand_limit = p->hand_limit;
        params->timeout = p->timeout;
        params->pot_only = p->pot_only ? 1 : 0;
        params->protocol = p->protocol;
    }
    kdapp__hm_params__free_unpacked(p, &track.base);
    return err;
}

kd_err kd_hm_params_encode(const kd_hm_params *params, kd_buf *out)
{
    Kdapp__HmParams p = KDAPP__HM_PARAMS__INIT;
    p.binding_0 = (ProtobufCBinaryData){KD_SECRET_BINDING_LEN, (uint8_t *)params->bindings[0]};
    p.binding_1 = (ProtobufCBinaryData){KD_SECRET_BINDING_LEN, (uint8_t *)params->bindings[1]};
    p.stack = params->stack;
    p.small_blind = params->small_blind;
    p.big_blind = params->big_blind;
    p.hand_limit = params->hand_limit;
    p.timeout = params->timeout;
    p.pot_only = params->pot_only != 0;
    p.protocol = params->protocol == 1 ? 0 : params->protocol; /* protocol 1's params never carried it */
    return kd_pb_append(&p.base, out);
}

kd_err kd_hm_params_resolve(kd_hm_params *p, kd_reject *rej)
{
    if (!p->stack)
        p->stack = KD_HM_DEFAULT_STACK;
    if (!p->small_blind && !p->big_blind) {
        p->small_blind = KD_HM_DEFAULT_SB;
        p->big_blind = KD_HM_DEFAULT_BB;
    } else if (!p->big_blind)
        p->big_blind = 2 * p->small_blind;
    else if (!p->small_blind)
        p->small_blind = p->big_blind / 2 ? p->big_blind / 2 : 1;
    if (!p->timeout)
        p->timeout = KD_HM_DEFAULT_TIMEOUT;
    if (!p->protocol)
        p->protocol = KD_HM_PROTOCOL;
    if (p->protocol > KD_HM_PROTOCOL)
        return kd_reject_say(rej, KD_ERR_BAD_PARAMS, "protocol %u: hold'em's deck protocols are 1 and 2", p->protocol);
    if (p->stack > KD_HM_STACK_MAX)
        return kd_reject_say(rej, KD_ERR_BAD_PARAMS, "stack %u: at most %u chips", p->stack, KD_HM_STACK_MAX);
    if (p->small_blind > p->big_blind || p->big_blind > p->stack)
        return kd_reject_say(rej, KD_ERR_BAD_PARAMS,
                             "blinds %u/%u: the small blind is at most the big blind, the big blind at most the "
                             "stack (%u)",
                             p->small_blind, p->big_blind, p->stack);
    if (p->hand_limit > KD_HM_HAND_LIMIT_MAX)
        return kd_reject_say(rej, KD_ERR_BAD_PARAMS, "hand_limit %u: at most %u (0: no limit)", p->hand_limit,
                             KD_HM_HAND_LIMIT_MAX);
    if (p->timeout < KD_DEADLINE_MIN || p->timeout > KD_HM_TIMEOUT_MAX)
        return kd_reject_say(rej, KD_ERR_BAD_PARAMS,
                             "timeout %llu: it must be %u..%u DAA score (the rules' floor under every deadline is %u)",
                             (unsigned long long)p->timeout, KD_DEADLINE_MIN, KD_HM_TIMEOUT_MAX, KD_DEADLINE_MIN);
    return KD_OK;
}

kd_err kd_hm_join_params(int seat, const uint8_t *params, size_t len, kd_reject *rej)
{
    static const char *const fields[2][3] = {{"binding_0", NULL}, {"binding_1", NULL}};
    static const char *const names[2] = {"seat0", "seat1"};
    if (seat < 0 || seat > 1)
        return kd_reject_say(rej, KD_ERR_BAD_PARAMS, "seat %d is not a seat of this game", seat);
    return kd_pb_seat_fields_only(&kdapp__hm_params__descriptor, fields[seat], names[seat], params, len, rej);
}
