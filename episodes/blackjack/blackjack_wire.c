/*
 * blackjack_wire.c — the one boundary between blackjack and protobuf-c:
 * BjCommand and BjParams bytes to domain values and back (formats in
 * proto/blackjack.proto). Unpacks go through the tracking allocator
 * (wire_alloc.h) so a NULL result tells no memory from malformed bytes.
 */
#include <string.h>

#include "blackjack.pb-c.h"
#include "episodes/blackjack/blackjack.h"
#include "episodes/house.h"
#include "episodes/wire_alloc.h"

/* The 32 bytes of `b` into `out`, or -1 when it is not 32 bytes long. */
static int take32(ProtobufCBinaryData b, uint8_t out[32])
{
    if (b.len != 32)
        return -1;
    memcpy(out, b.data, 32);
    return 0;
}

/* Fills `cmd` from the unpacked message: 0, or -1 with a sentence. */
static int from_message(const Kdapp__BjCommand *m, kd_bj_command *cmd, kd_reject *rej)
{
    const Kdapp__BjAction *a = NULL;
    switch (m->cmd_case) {
    case KDAPP__BJ_COMMAND__CMD_BET:
        cmd->action = KD_BJ_CMD_BET;
        cmd->amount = m->bet->amount;
        if (take32(m->bet->entropy, cmd->entropy) != 0)
            return kd_reject_say(rej, KD_ERR_BAD_COMMAND, "a bet carries 32 bytes of entropy"), -1;
        return 0;
    case KDAPP__BJ_COMMAND__CMD_HIT:
        cmd->action = KD_BJ_CMD_HIT;
        a = m->hit;
        break;
    case KDAPP__BJ_COMMAND__CMD_STAND:
        cmd->action = KD_BJ_CMD_STAND;
        a = m->stand;
        break;
    case KDAPP__BJ_COMMAND__CMD_DOUBLE:
        cmd->action = KD_BJ_CMD_DOUBLE;
        a = m->double_;
        break;
    case KDAPP__BJ_COMMAND__CMD_SPLIT:
        cmd->action = KD_BJ_CMD_SPLIT;
        a = m->split;
        break;
    case KDAPP__BJ_COMMAND__CMD_REVEAL:
        cmd->action = KD_BJ_CMD_REVEAL;
        if (m->reveal->proof.len != KD_VRF_PROOF_LEN)
            return kd_reject_say(rej, KD_ERR_BAD_COMMAND, "a reveal carries the house's proof of %d bytes, not %zu",
                                 KD_VRF_PROOF_LEN, m->reveal->proof.len),
                   -1;
        memcpy(cmd->proof, m->reveal->proof.data, KD_VRF_PROOF_LEN);
        return 0;
    case KDAPP__BJ_COMMAND__CMD_CLAIM:
        cmd->action = KD_BJ_CMD_CLAIM;
        return 0;
    default:
        return kd_reject_say(rej, KD_ERR_BAD_COMMAND, "the command carries no action: BjCommand.cmd is not set"), -1;
    }
    if (take32(a->entropy, cmd->entropy) != 0)
        return kd_reject_say(rej, KD_ERR_BAD_COMMAND, "hit, stand, double and split carry 32 bytes of entropy"), -1;
    return 0;
}

kd_err kd_bj_command_decode(const uint8_t *data, size_t len, kd_bj_command *cmd, kd_reject *rej)
{
    memset(cmd, 0, sizeof *cmd);
    if (!data || len == 0)
        return kd_reject_say(rej, KD_ERR_BAD_COMMAND, "the command is empty: expected a BjCommand");
    _Alignas(max_align_t) unsigned char storage[512];
    kd_pb_arena arena;
    kd_pb_arena_init(&arena, storage, sizeof storage);
    Kdapp__BjCommand *m = kdapp__bj_command__unpack(&arena.base, len, data);
    if (!m)
        return arena.failed ? kd_reject_say(rej, KD_ERR_BAD_COMMAND, "the command (%zu bytes) is too large", len)
                            : kd_reject_say(rej, KD_ERR_BAD_COMMAND,
                                            "the command (%zu bytes) is not a valid BjCommand message", len);
    if (from_message(m, cmd, rej) != 0) {
        memset(cmd, 0, sizeof *cmd);
        return KD_ERR_BAD_COMMAND;
    }
    if (cmd->action <= KD_BJ_CMD_SPLIT) /* an ask: the draws' input is its bytes' */
        kd_fair_ask_digest(data, len, cmd->digest);
    return KD_OK;
}

kd_err kd_bj_command_encode(const kd_bj_command *cmd, kd_buf *out)
{
    Kdapp__BjCommand m = KDAPP__BJ_COMMAND__INIT;
    Kdapp__BjBet bet = KDAPP__BJ_BET__INIT;
    Kdapp__BjAction act = KDAPP__BJ_ACTION__INIT;
    Kdapp__BjReveal rev = KDAPP__BJ_REVEAL__INIT;
    Kdapp__BjClaim claim = KDAPP__BJ_CLAIM__INIT;
    ProtobufCBinaryData entropy = {KD_FAIR_ENTROPY_LEN, (uint8_t *)cmd->entropy};
    act.entropy = entropy;
    switch (cmd->action) {
    case KD_BJ_CMD_BET:
        bet.amount = cmd->amount;
        bet.entropy = entropy;
        m.cmd_case = KDAPP__BJ_COMMAND__CMD_BET;
        m.bet = &bet;
        break;
    case KD_BJ_CMD_HIT:
        m.cmd_case = KDAPP__BJ_COMMAND__CMD_HIT;
        m.hit = &act;
        break;
    case KD_BJ_CMD_STAND:
        m.cmd_case = KDAPP__BJ_COMMAND__CMD_STAND;
        m.stand = &act;
        break;
    case KD_BJ_CMD_DOUBLE:
        m.cmd_case = KDAPP__BJ_COMMAND__CMD_DOUBLE;
        m.double_ = &act;
        break;
    case KD_BJ_CMD_SPLIT:
        m.cmd_case = KDAPP__BJ_COMMAND__CMD_SPLIT;
        m.split = &act;
        break;
    case KD_BJ_CMD_REVEAL:
        rev.proof.len = KD_VRF_PROOF_LEN;
        rev.proof.data = (uint8_t *)cmd->proof;
        m.cmd_case = KDAPP__BJ_COMMAND__CMD_REVEAL;
        m.reveal = &rev;
        break;
    default:
        m.cmd_case = KDAPP__BJ_COMMAND__CMD_CLAIM;
        m.claim = &claim;
        break;
    }
    return kd_pb_append(&m.base, out);
}

/* A value, or its default when 0; -1 when outside lo..hi. */
static int field(uint32_t v, uint32_t def, uint32_t lo, uint32_t hi, uint32_t *out)
{
    *out = v ? v : def;
    return *out < lo || *out > hi ? -1 : 0;
}

/* 100, or the stack when smaller, and at least the minimum bet. */
static uint32_t max_bet_default(const kd_bj_params *p)
{
    uint32_t v = KD_BJ_MAX_BET_DEFAULT < p->stack ? KD_BJ_MAX_BET_DEFAULT : p->stack;
    return v < p->min_bet ? p->min_bet : v;
}

kd_err kd_bj_params_decode(const uint8_t *data, size_t len, kd_bj_params *p, kd_reject *rej)
{
    kd_pb_alloc track;
    kd_pb_alloc_init(&track);
    kd_err err = KD_OK;
    memset(p, 0, sizeof *p);
    Kdapp__BjParams *m = len ? kdapp__bj_params__unpack(&track.base, len, data) : NULL;
    if (len && !m) {
        err = kd_pb_unpack_refused(&track, rej, "params", KD_ERR_BAD_PARAMS,
                                   "the params (%zu bytes) are not a valid BjParams message", len);
        goto done;
    }
    if (!m || m->house_key.len != KD_PUBKEY_LEN || m->house_binding.len != KD_SECRET_BINDING_LEN) {
        err = kd_reject_say(rej, KD_ERR_BAD_PARAMS,
                            "blackjack needs house_key (33 bytes, the house's VRF key) and house_binding (32 bytes), "
                            "set by whoever holds the house's key (a gateway, kdapp commit)");
        goto done;
    }
    memcpy(p->house_key.bytes, m->house_key.data, KD_PUBKEY_LEN);
    memcpy(p->house_binding, m->house_binding.data, KD_SECRET_BINDING_LEN);
    if (kd_pubkey_check(&p->house_key) != KD_OK) {
        err = kd_reject_say(rej, KD_ERR_BAD_PARAMS, "house_key is not a valid compressed secp256k1 point");
        goto done;
    }
    if (field(m->decks, KD_BJ_DECKS_DEFAULT, 1, KD_BJ_DECKS_MAX, &p->decks))
        err = kd_reject_say(rej, KD_ERR_BAD_PARAMS, "decks %u: 1 to %u", (unsigned)m->decks, KD_BJ_DECKS_MAX);
    else if (field(m->timeout, KD_BJ_TIMEOUT_DEFAULT, KD_DEADLINE_MIN, KD_BJ_TIMEOUT_MAX, &p->timeout))
        err = kd_reject_say(rej, KD_ERR_BAD_PARAMS,
                            "timeout %u: %u to %u DAA score (the rules' floor under every deadline is %u)",
                            (unsigned)m->timeout, KD_DEADLINE_MIN, KD_BJ_TIMEOUT_MAX, KD_DEADLINE_MIN);
    else if (field(m->stack, KD_BJ_STACK_DEFAULT, 1, KD_BJ_CHIPS_MAX / 64, &p->stack))
        err = kd_reject_say(rej, KD_ERR_BAD_PARAMS, "stack %u: 1 to %u", (unsigned)m->stack, KD_BJ_CHIPS_MAX / 64);
    else if (field(m->min_bet, KD_BJ_MIN_BET_DEFAULT < p->stack ? KD_BJ_MIN_BET_DEFAULT : p->stack, 1, p->stack,
                   &p->min_bet))
        err = kd_reject_say(rej, KD_ERR_BAD_PARAMS, "min_bet %u: 1 to the stack (%u)", (unsigned)m->min_bet,
                            (unsigned)p->stack);
    else if (field(m->max_bet, max_bet_default(p), p->min_bet, p->stack, &p->max_bet))
        err = kd_reject_say(rej, KD_ERR_BAD_PARAMS, "max_bet %u: min_bet (%u) to the stack (%u)", (unsigned)m->max_bet,
                            (unsigned)p->min_bet, (unsigned)p->stack);
    else if (field(m->rounds, KD_BJ_ROUNDS_DEFAULT, 1, KD_BJ_ROUNDS_MAX, &p->rounds))
        err = kd_reject_say(rej, KD_ERR_BAD_PARAMS, "rounds %u: 1 to %u", (unsigned)m->rounds, KD_BJ_ROUNDS_MAX);
    else if ((uint64_t)p->stack + 8ull * p->rounds * p->max_bet > UINT32_MAX)
        err = kd_reject_say(rej, KD_ERR_BAD_PARAMS,
                            "stack %u + rounds %u x 8 x max_bet %u: a player could win more chips than 4294967295",
                            (unsigned)p->stack, (unsigned)p->rounds, (unsigned)p->max_bet);
    else if (m->base.n_unknown_fields)
        err = kd_reject_say(rej, KD_ERR_BAD_PARAMS, "the params carry fields BjParams does not have");
    else
        err = kd_house_terms_from_pb(m->draw_input, m->reveal_depth, &p->draw_input, rej);
    p->reveal_depth = m->reveal_depth;
done:
    if (err)
        memset(p, 0, sizeof *p);
    kdapp__bj_params__free_unpacked(m, &track.base);
    return err;
}

kd_err kd_bj_params_encode(const kd_bj_params *p, kd_buf *out)
{
    Kdapp__BjParams m = KDAPP__BJ_PARAMS__INIT;
    m.decks = p->decks;
    m.timeout = p->timeout;
    m.stack = p->stack;
    m.min_bet = p->min_bet;
    m.max_bet = p->max_bet;
    m.rounds = p->rounds;
    m.reveal_depth = p->reveal_depth;
    m.draw_input = kd_house_draw_input_pb(p->draw_input);
    m.house_key.len = KD_PUBKEY_LEN;
    m.house_key.data = (uint8_t *)p->house_key.bytes;
    m.house_binding.len = KD_SECRET_BINDING_LEN;
    m.house_binding.data = (uint8_t *)p->house_binding;
    return kd_pb_append(&m.base, out);
}
