/*
 * roulette_wire.c — the one boundary between "roulette" and protobuf-c:
 * RouletteCommand and RouletteParams bytes to domain values and back.
 */
#include <string.h>

#include "chance.pb-c.h"
#include "episodes/roulette/roulette.h"
#include "episodes/wire_alloc.h"

kd_err kd_roulette_command_encode(const kd_roulette_command *c, kd_buf *out)
{
    Kdapp__RouletteCommand cmd = KDAPP__ROULETTE_COMMAND__INIT;
    Kdapp__RouletteBets bets = KDAPP__ROULETTE_BETS__INIT;
    Kdapp__RouletteBet b[KD_ROULETTE_MAX_BETS + 1];
    Kdapp__RouletteBet *bp[KD_ROULETTE_MAX_BETS + 1];
    Kdapp__HouseReveal reveal = KDAPP__HOUSE_REVEAL__INIT;
    Kdapp__HouseClaim claim = KDAPP__HOUSE_CLAIM__INIT;
    if (c->kind == KD_ROULETTE_CMD_BETS) {
        if (c->n_bets > KD_ROULETTE_MAX_BETS + 1)
            return KD_ERR_INVALID_ARG;
        for (uint32_t i = 0; i < c->n_bets; i++) {
            Kdapp__RouletteBet init = KDAPP__ROULETTE_BET__INIT;
            b[i] = init;
            b[i].kind = c->bets[i].kind;
            b[i].number = c->bets[i].number;
            b[i].number2 = c->bets[i].number2;
            b[i].amount = c->bets[i].amount;
            bp[i] = &b[i];
        }
        bets.n_bets = c->n_bets;
        bets.bets = bp;
        bets.entropy.data = (uint8_t *)c->entropy;
        bets.entropy.len = KD_FAIR_ENTROPY_LEN;
        cmd.cmd_case = KDAPP__ROULETTE_COMMAND__CMD_BETS;
        cmd.bets = &bets;
    } else if (c->kind == KD_ROULETTE_CMD_REVEAL) {
        reveal.proof.data = (uint8_t *)c->proof;
        reveal.proof.len = KD_VRF_PROOF_LEN;
        cmd.cmd_case = KDAPP__ROULETTE_COMMAND__CMD_REVEAL;
        cmd.reveal = &reveal;
    } else if (c->kind == KD_ROULETTE_CMD_CLAIM) {
        cmd.cmd_case = KDAPP__ROULETTE_COMMAND__CMD_CLAIM;
        cmd.claim = &claim;
    } else {
        return KD_ERR_INVALID_ARG;
    }
    return kd_pb_append(&cmd.base, out);
}

kd_err kd_roulette_command_decode(const uint8_t *data, size_t len, kd_roulette_command *c, kd_reject *rej)
{
    kd_pb_alloc track;
    kd_pb_alloc_init(&track);
    Kdapp__RouletteCommand *cmd = NULL;
    kd_err err = KD_OK;
    memset(c, 0, sizeof *c);
    cmd = data && len ? kdapp__roulette_command__unpack(&track.base, len, data) : NULL;
    if (!cmd) {
        err = kd_pb_unpack_refused(&track, rej, "command", KD_ERR_BAD_COMMAND,
                                   "the command (%zu bytes) is not a valid RouletteCommand message", len);
        goto done;
    }
    if (cmd->cmd_case == KDAPP__ROULETTE_COMMAND__CMD_BETS && cmd->bets) {
        if (cmd->bets->entropy.len != KD_FAIR_ENTROPY_LEN || cmd->bets->n_bets > KD_ROULETTE_MAX_BETS + 1) {
            err = kd_reject_say(rej, KD_ERR_BAD_COMMAND, "the bets need 32 bytes of entropy and at most %d bets",
                                KD_ROULETTE_MAX_BETS + 1);
            goto done;
        }
        c->kind = KD_ROULETTE_CMD_BETS;
        c->n_bets = (uint32_t)cmd->bets->n_bets;
        for (size_t i = 0; i < cmd->bets->n_bets; i++) {
            c->bets[i].kind = cmd->bets->bets[i]->kind;
            c->bets[i].number = cmd->bets->bets[i]->number;
            c->bets[i].number2 = cmd->bets->bets[i]->number2;
            c->bets[i].amount = cmd->bets->bets[i]->amount;
        }
        memcpy(c->entropy, cmd->bets->entropy.data, KD_FAIR_ENTROPY_LEN);
        kd_fair_ask_digest(data, len, c->digest);
    } else if (cmd->cmd_case == KDAPP__ROULETTE_COMMAND__CMD_REVEAL && cmd->reveal &&
               cmd->reveal->proof.len == KD_VRF_PROOF_LEN) {
        c->kind = KD_ROULETTE_CMD_REVEAL;
        memcpy(c->proof, cmd->reveal->proof.data, KD_VRF_PROOF_LEN);
    } else if (cmd->cmd_case == KDAPP__ROULETTE_COMMAND__CMD_CLAIM && cmd->claim) {
        c->kind = KD_ROULETTE_CMD_CLAIM;
    } else {
        err = kd_reject_say(rej, KD_ERR_BAD_COMMAND, "the RouletteCommand carries no bets, reveal (32 bytes) or claim");
    }
done:
    kdapp__roulette_command__free_unpacked(cmd, &track.base);
    return err;
}

kd_err kd_roulette_params_encode(const kd_roulette_params *p, kd_buf *out)
{
    Kdapp__RouletteParams params = KDAPP__ROULETTE_PARAMS__INIT;
    Kdapp__HouseParams house = KDAPP__HOUSE_PARAMS__INIT;
    kd_house_params_to_pb(&p->house, &house);
    params.house = &house;
    params.start_chips = p->start_chips;
    params.max_rounds = p->max_rounds;
    return kd_pb_append(&params.base, out);
}

kd_err kd_roulette_params_decode(const uint8_t *data, size_t len, kd_roulette_params *p, kd_reject *rej)
{
    kd_pb_alloc track;
    kd_pb_alloc_init(&track);
    Kdapp__RouletteParams *params = NULL;
    kd_err err = KD_OK;
    memset(p, 0, sizeof *p);
    params = len ? kdapp__roulette_params__unpack(&track.base, len, data) : NULL;
    if (!params) {
        err = kd_pb_unpack_refused(&track, rej, "params", KD_ERR_BAD_PARAMS,
                                   "the params (%zu bytes) are not a RouletteParams with the house's key", len);
        goto done;
    }
    if ((err = kd_house_params_from_pb(params->house, &p->house, rej)))
        goto done;
    p->start_chips = params->start_chips ? params->start_chips : KD_ROULETTE_CHIPS_DEFAULT;
    p->max_rounds = params->max_rounds ? params->max_rounds : KD_ROULETTE_ROUNDS_DEFAULT;
    if (p->start_chips > KD_ROULETTE_CHIPS_MAX || p->max_rounds > KD_ROULETTE_ROUNDS_MAX)
        err = kd_reject_say(rej, KD_ERR_BAD_PARAMS, "params: start_chips (1..%u) or max_rounds (1..%u) out of range",
                            KD_ROULETTE_CHIPS_MAX, KD_ROULETTE_ROUNDS_MAX);
done:
    kdapp__roulette_params__free_unpacked(params, &track.base);
    return err;
}
