/*
 * slots_wire.c — the one boundary between "slots" and protobuf-c:
 * SlotsCommand and SlotsParams bytes to domain values and back.
 */
#include <string.h>

#include "chance.pb-c.h"
#include "episodes/slots.h"
#include "episodes/wire_alloc.h"

kd_err kd_slots_command_encode(const kd_slots_command *c, kd_buf *out)
{
    Kdapp__SlotsCommand cmd = KDAPP__SLOTS_COMMAND__INIT;
    Kdapp__SlotsSpin spin = KDAPP__SLOTS_SPIN__INIT;
    Kdapp__HouseReveal reveal = KDAPP__HOUSE_REVEAL__INIT;
    Kdapp__HouseClaim claim = KDAPP__HOUSE_CLAIM__INIT;
    if (c->kind == KD_SLOTS_CMD_SPIN) {
        spin.bet = c->bet;
        spin.entropy.data = (uint8_t *)c->entropy;
        spin.entropy.len = KD_FAIR_ENTROPY_LEN;
        cmd.cmd_case = KDAPP__SLOTS_COMMAND__CMD_SPIN;
        cmd.spin = &spin;
    } else if (c->kind == KD_SLOTS_CMD_REVEAL) {
        reveal.link.data = (uint8_t *)c->link;
        reveal.link.len = KD_FAIR_LINK_LEN;
        cmd.cmd_case = KDAPP__SLOTS_COMMAND__CMD_REVEAL;
        cmd.reveal = &reveal;
    } else if (c->kind == KD_SLOTS_CMD_CLAIM) {
        cmd.cmd_case = KDAPP__SLOTS_COMMAND__CMD_CLAIM;
        cmd.claim = &claim;
    } else {
        return KD_ERR_INVALID_ARG;
    }
    size_t size = kdapp__slots_command__get_packed_size(&cmd);
    kd_err err = kd_buf_reserve(out, size);
    if (err)
        return err;
    out->len += kdapp__slots_command__pack(&cmd, out->data + out->len);
    return KD_OK;
}

kd_err kd_slots_command_decode(const uint8_t *data, size_t len, kd_slots_command *c, kd_reject *rej)
{
    kd_pb_alloc track;
    kd_pb_alloc_init(&track);
    kd_err err = KD_OK;
    memset(c, 0, sizeof *c);
    Kdapp__SlotsCommand *cmd = data && len ? kdapp__slots_command__unpack(&track.base, len, data) : NULL;
    if (!cmd) {
        err = track.failed ? kd_reject_say(rej, KD_ERR_NOMEM, "out of memory while decoding the command")
                           : kd_reject_say(rej, KD_ERR_BAD_COMMAND,
                                           "the command (%zu bytes) is not a valid SlotsCommand message", len);
    } else if (cmd->cmd_case == KDAPP__SLOTS_COMMAND__CMD_SPIN && cmd->spin &&
               cmd->spin->entropy.len == KD_FAIR_ENTROPY_LEN) {
        c->kind = KD_SLOTS_CMD_SPIN;
        c->bet = cmd->spin->bet;
        memcpy(c->entropy, cmd->spin->entropy.data, KD_FAIR_ENTROPY_LEN);
    } else if (cmd->cmd_case == KDAPP__SLOTS_COMMAND__CMD_REVEAL && cmd->reveal &&
               cmd->reveal->link.len == KD_FAIR_LINK_LEN) {
        c->kind = KD_SLOTS_CMD_REVEAL;
        memcpy(c->link, cmd->reveal->link.data, KD_FAIR_LINK_LEN);
    } else if (cmd->cmd_case == KDAPP__SLOTS_COMMAND__CMD_CLAIM && cmd->claim) {
        c->kind = KD_SLOTS_CMD_CLAIM;
    } else {
        err = kd_reject_say(rej, KD_ERR_BAD_COMMAND,
                            "the SlotsCommand carries no spin (with 32 bytes of entropy), reveal (32 bytes) or claim");
    }
    kdapp__slots_command__free_unpacked(cmd, &track.base);
    return err;
}

kd_err kd_slots_params_encode(const kd_slots_params *p, kd_buf *out)
{
    Kdapp__SlotsParams params = KDAPP__SLOTS_PARAMS__INIT;
    Kdapp__HouseParams house = KDAPP__HOUSE_PARAMS__INIT;
    house.commit.data = (uint8_t *)p->commit;
    house.commit.len = KD_FAIR_LINK_LEN;
    house.chain_length = p->chain_length;
    house.reveal_timeout = p->reveal_timeout;
    params.house = &house;
    params.start_credits = p->start_credits;
    params.max_rounds = p->max_rounds;
    size_t size = kdapp__slots_params__get_packed_size(&params);
    kd_err err = kd_buf_reserve(out, size);
    if (err)
        return err;
    out->len += kdapp__slots_params__pack(&params, out->data + out->len);
    return KD_OK;
}

kd_err kd_slots_params_decode(const uint8_t *data, size_t len, kd_slots_params *p, kd_reject *rej)
{
    kd_pb_alloc track;
    kd_pb_alloc_init(&track);
    kd_err err = KD_OK;
    memset(p, 0, sizeof *p);
    Kdapp__SlotsParams *params = len ? kdapp__slots_params__unpack(&track.base, len, data) : NULL;
    if (!params) {
        err = track.failed ? kd_reject_say(rej, KD_ERR_NOMEM, "out of memory while decoding the params")
                           : kd_reject_say(rej, KD_ERR_BAD_PARAMS,
                                           "the params (%zu bytes) are not a SlotsParams with the house's commit", len);
        goto done;
    }
    if (!params->house || params->house->commit.len != KD_FAIR_LINK_LEN) {
        err = kd_reject_say(rej, KD_ERR_BAD_PARAMS, "params: the house's commit (32 bytes) is missing");
        goto done;
    }
    memcpy(p->commit, params->house->commit.data, KD_FAIR_LINK_LEN);
    p->chain_length = params->house->chain_length ? params->house->chain_length : KD_FAIR_LENGTH_DEFAULT;
    p->reveal_timeout = params->house->reveal_timeout ? params->house->reveal_timeout : KD_HOUSE_TIMEOUT_DEFAULT;
    p->start_credits = params->start_credits ? params->start_credits : KD_SLOTS_CREDITS_DEFAULT;
    p->max_rounds = params->max_rounds ? params->max_rounds : KD_SLOTS_ROUNDS_DEFAULT;
    if (p->chain_length > KD_FAIR_LENGTH_MAX || p->reveal_timeout > KD_HOUSE_TIMEOUT_MAX ||
        p->start_credits > KD_SLOTS_CREDITS_MAX || p->max_rounds > KD_SLOTS_ROUNDS_MAX ||
        p->max_rounds > p->chain_length)
        err = kd_reject_say(rej, KD_ERR_BAD_PARAMS,
                            "params: chain_length (1..%u), reveal_timeout (1..%u), start_credits (1..%u) or max_rounds "
                            "(1..%u, at most chain_length) out of range",
                            KD_FAIR_LENGTH_MAX, KD_HOUSE_TIMEOUT_MAX, KD_SLOTS_CREDITS_MAX, KD_SLOTS_ROUNDS_MAX);
done:
    kdapp__slots_params__free_unpacked(params, &track.base);
    return err;
}
