/*
 * slots_wire.c — the one boundary between "slots" and protobuf-c:
 * SlotsCommand and SlotsParams bytes to domain values and back.
 */
#include <string.h>

#include "chance.pb-c.h"
#include "episodes/slots/slots.h"
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
        reveal.proof.data = (uint8_t *)c->proof;
        reveal.proof.len = KD_VRF_PROOF_LEN;
        cmd.cmd_case = KDAPP__SLOTS_COMMAND__CMD_REVEAL;
        cmd.reveal = &reveal;
    } else if (c->kind == KD_SLOTS_CMD_CLAIM) {
        cmd.cmd_case = KDAPP__SLOTS_COMMAND__CMD_CLAIM;
        cmd.claim = &claim;
    } else {
        return KD_ERR_INVALID_ARG;
    }
    return kd_pb_append(&cmd.base, out);
}

kd_err kd_slots_command_decode(const uint8_t *data, size_t len, kd_slots_command *c, kd_reject *rej)
{
    kd_pb_alloc track;
    kd_pb_alloc_init(&track);
    kd_err err = KD_OK;
    memset(c, 0, sizeof *c);
    Kdapp__SlotsCommand *cmd = data && len ? kdapp__slots_command__unpack(&track.base, len, data) : NULL;
    if (!cmd) {
        err = kd_pb_unpack_refused(&track, rej, "command", KD_ERR_BAD_COMMAND,
                                   "the command (%zu bytes) is not a valid SlotsCommand message", len);
    } else if (cmd->cmd_case == KDAPP__SLOTS_COMMAND__CMD_SPIN && cmd->spin &&
               cmd->spin->entropy.len == KD_FAIR_ENTROPY_LEN) {
        c->kind = KD_SLOTS_CMD_SPIN;
        c->bet = cmd->spin->bet;
        memcpy(c->entropy, cmd->spin->entropy.data, KD_FAIR_ENTROPY_LEN);
        kd_fair_ask_digest(data, len, c->digest);
    } else if (cmd->cmd_case == KDAPP__SLOTS_COMMAND__CMD_REVEAL && cmd->reveal &&
               cmd->reveal->proof.len == KD_VRF_PROOF_LEN) {
        c->kind = KD_SLOTS_CMD_REVEAL;
        memcpy(c->proof, cmd->reveal->proof.data, KD_VRF_PROOF_LEN);
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
    kd_house_params_to_pb(&p->house, &house);
    params.house = &house;
    params.start_credits = p->start_credits;
    params.max_rounds = p->max_rounds;
    return kd_pb_append(&params.base, out);
}

kd_err kd_slots_params_decode(const uint8_t *data, size_t len, kd_slots_params *p, kd_reject *rej)
{
    kd_pb_alloc track;
    kd_pb_alloc_init(&track);
    kd_err err = KD_OK;
    memset(p, 0, sizeof *p);
    Kdapp__SlotsParams *params = len ? kdapp__slots_params__unpack(&track.base, len, data) : NULL;
    if (!params) {
        err = kd_pb_unpack_refused(&track, rej, "params", KD_ERR_BAD_PARAMS,
                                   "the params (%zu bytes) are not a SlotsParams with the house's key", len);
        goto done;
    }
    if ((err = kd_house_params_from_pb(params->house, &p->house, rej)))
        goto done;
    p->start_credits = params->start_credits ? params->start_credits : KD_SLOTS_CREDITS_DEFAULT;
    p->max_rounds = params->max_rounds ? params->max_rounds : KD_SLOTS_ROUNDS_DEFAULT;
    if (p->start_credits > KD_SLOTS_CREDITS_MAX || p->max_rounds > KD_SLOTS_ROUNDS_MAX)
        err = kd_reject_say(rej, KD_ERR_BAD_PARAMS, "params: start_credits (1..%u) or max_rounds (1..%u) out of range",
                            KD_SLOTS_CREDITS_MAX, KD_SLOTS_ROUNDS_MAX);
done:
    kdapp__slots_params__free_unpacked(params, &track.base);
    return err;
}
