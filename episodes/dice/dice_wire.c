/*
 * dice_wire.c — the one boundary between "dice" and protobuf-c: DiceCommand
 * and DiceParams bytes to domain values and back (proto/chance.proto).
 */
#include <string.h>

#include "chance.pb-c.h"
#include "episodes/dice/dice.h"
#include "episodes/wire_alloc.h"

static kd_err pack_command(const Kdapp__DiceCommand *cmd, kd_buf *out) { return kd_pb_append(&cmd->base, out); }

kd_err kd_dice_command_encode(const kd_dice_command *c, kd_buf *out)
{
    Kdapp__DiceCommand cmd = KDAPP__DICE_COMMAND__INIT;
    Kdapp__DiceRoll roll = KDAPP__DICE_ROLL__INIT;
    Kdapp__HouseReveal reveal = KDAPP__HOUSE_REVEAL__INIT;
    Kdapp__HouseClaim claim = KDAPP__HOUSE_CLAIM__INIT;
    switch (c->kind) {
    case KD_DICE_CMD_ROLL:
        roll.count = c->count;
        roll.sides = c->sides;
        roll.modifier = c->modifier;
        roll.entropy.data = (uint8_t *)c->entropy;
        roll.entropy.len = KD_FAIR_ENTROPY_LEN;
        cmd.cmd_case = KDAPP__DICE_COMMAND__CMD_ROLL;
        cmd.roll = &roll;
        break;
    case KD_DICE_CMD_REVEAL:
        reveal.proof.data = (uint8_t *)c->proof;
        reveal.proof.len = KD_VRF_PROOF_LEN;
        cmd.cmd_case = KDAPP__DICE_COMMAND__CMD_REVEAL;
        cmd.reveal = &reveal;
        break;
    case KD_DICE_CMD_CLAIM:
        cmd.cmd_case = KDAPP__DICE_COMMAND__CMD_CLAIM;
        cmd.claim = &claim;
        break;
    default:
        return KD_ERR_INVALID_ARG;
    }
    return pack_command(&cmd, out);
}

kd_err kd_dice_command_decode(const uint8_t *data, size_t len, kd_dice_command *c, kd_reject *rej)
{
    kd_pb_alloc track;
    kd_pb_alloc_init(&track);
    Kdapp__DiceCommand *cmd = NULL;
    kd_err err = KD_OK;
    memset(c, 0, sizeof *c);
    if (!data || len == 0) {
        err = kd_reject_say(rej, KD_ERR_BAD_COMMAND, "the command is empty: expected a DiceCommand");
        goto done;
    }
    cmd = kdapp__dice_command__unpack(&track.base, len, data);
    if (!cmd) {
        err = kd_pb_unpack_refused(&track, rej, "command", KD_ERR_BAD_COMMAND,
                                   "the command (%zu bytes) is not a valid DiceCommand message", len);
        goto done;
    }
    if (cmd->cmd_case == KDAPP__DICE_COMMAND__CMD_ROLL && cmd->roll) {
        if (cmd->roll->entropy.len != KD_FAIR_ENTROPY_LEN) {
            err = kd_reject_say(rej, KD_ERR_BAD_COMMAND, "the roll's entropy is %zu bytes, not %d",
                                cmd->roll->entropy.len, KD_FAIR_ENTROPY_LEN);
            goto done;
        }
        c->kind = KD_DICE_CMD_ROLL;
        c->count = cmd->roll->count;
        c->sides = cmd->roll->sides;
        c->modifier = cmd->roll->modifier;
        memcpy(c->entropy, cmd->roll->entropy.data, KD_FAIR_ENTROPY_LEN);
        kd_fair_ask_digest(data, len, c->digest);
    } else if (cmd->cmd_case == KDAPP__DICE_COMMAND__CMD_REVEAL && cmd->reveal) {
        if (cmd->reveal->proof.len != KD_VRF_PROOF_LEN) {
            err = kd_reject_say(rej, KD_ERR_BAD_COMMAND, "the house's proof is %zu bytes, not %d",
                                cmd->reveal->proof.len, KD_VRF_PROOF_LEN);
            goto done;
        }
        c->kind = KD_DICE_CMD_REVEAL;
        memcpy(c->proof, cmd->reveal->proof.data, KD_VRF_PROOF_LEN);
    } else if (cmd->cmd_case == KDAPP__DICE_COMMAND__CMD_CLAIM && cmd->claim) {
        c->kind = KD_DICE_CMD_CLAIM;
    } else {
        err = kd_reject_say(rej, KD_ERR_BAD_COMMAND, "the DiceCommand carries no roll, reveal or claim");
    }
done:
    kdapp__dice_command__free_unpacked(cmd, &track.base);
    return err;
}

kd_err kd_dice_params_encode(const kd_dice_params *p, kd_buf *out)
{
    Kdapp__DiceParams params = KDAPP__DICE_PARAMS__INIT;
    Kdapp__HouseParams house = KDAPP__HOUSE_PARAMS__INIT;
    kd_house_params_to_pb(&p->house, &house);
    params.house = &house;
    params.max_rolls = p->max_rolls;
    return kd_pb_append(&params.base, out);
}

kd_err kd_dice_params_decode(const uint8_t *data, size_t len, kd_dice_params *p, kd_reject *rej)
{
    kd_pb_alloc track;
    kd_pb_alloc_init(&track);
    Kdapp__DiceParams *params = NULL;
    kd_err err = KD_OK;
    memset(p, 0, sizeof *p);
    params = len ? kdapp__dice_params__unpack(&track.base, len, data) : NULL;
    if (!params) {
        err = kd_pb_unpack_refused(&track, rej, "params", KD_ERR_BAD_PARAMS,
                                   "the params (%zu bytes) are not a DiceParams with the house's key", len);
        goto done;
    }
    if ((err = kd_house_params_from_pb(params->house, &p->house, rej)))
        goto done;
    p->max_rolls = params->max_rolls ? params->max_rolls : KD_DICE_MAX_ROLLS_DEFAULT;
    if (p->max_rolls > KD_DICE_MAX_ROLLS_MAX)
        err = kd_reject_say(rej, KD_ERR_BAD_PARAMS, "params: max_rolls %u is not from 1 to %u", (unsigned)p->max_rolls,
                            KD_DICE_MAX_ROLLS_MAX);
done:
    kdapp__dice_params__free_unpacked(params, &track.base);
    return err;
}
