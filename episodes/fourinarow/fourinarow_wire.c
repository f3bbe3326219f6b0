/*
 * fourinarow_wire.c — the one boundary between four-in-a-row and
 * protobuf-c: FiarCommand and FiarParams bytes to domain values and back.
 * protobuf-c's unpack returns NULL without a reason, so every unpack goes
 * through an allocator that records allocation failures: a NULL result is
 * then either KD_ERR_NOMEM or malformed bytes.
 */
#include <string.h>

#include "episodes/fourinarow/fourinarow.h"
#include "episodes/wire_alloc.h"
#include "fourinarow.pb-c.h"

kd_err kd_fiar_command_decode(const uint8_t *data, size_t len, uint32_t *column, kd_reject *rej)
{
    kd_pb_alloc track;
    kd_pb_alloc_init(&track);
    Kdapp__FiarCommand *cmd = NULL;
    kd_err err = KD_OK;

    *column = 0;
    if (!data || len == 0) {
        err = kd_reject_say(rej, KD_ERR_BAD_COMMAND, "the command is empty: expected a FiarCommand with a drop");
        goto done;
    }
    cmd = kdapp__fiar_command__unpack(&track.base, len, data);
    if (!cmd) {
        err = kd_pb_unpack_refused(&track, rej, "command", KD_ERR_BAD_COMMAND,
                                   "the command (%zu bytes) is not a valid FiarCommand message", len);
        goto done;
    }
    if (cmd->cmd_case != KDAPP__FIAR_COMMAND__CMD_DROP || !cmd->drop) {
        err = kd_reject_say(rej, KD_ERR_BAD_COMMAND, "the command carries no drop: FiarCommand.drop is not set");
        goto done;
    }
    *column = cmd->drop->column;
done:
    kdapp__fiar_command__free_unpacked(cmd, &track.base);
    return err;
}

kd_err kd_fiar_command_encode(uint32_t column, kd_buf *out)
{
    Kdapp__FiarDrop drop = KDAPP__FIAR_DROP__INIT;
    Kdapp__FiarCommand cmd = KDAPP__FIAR_COMMAND__INIT;
    drop.column = column;
    cmd.cmd_case = KDAPP__FIAR_COMMAND__CMD_DROP;
    cmd.drop = &drop;
    return kd_pb_append(&cmd.base, out);
}

kd_err kd_fiar_params_decode(const uint8_t *data, size_t len, kd_reject *rej)
{
    kd_pb_alloc track;
    kd_pb_alloc_init(&track);
    Kdapp__FiarParams *params = NULL;
    kd_err err = KD_OK;

    if (len == 0)
        goto done; /* nothing to set */
    params = kdapp__fiar_params__unpack(&track.base, len, data);
    if (!params) {
        err = kd_pb_unpack_refused(&track, rej, "params", KD_ERR_BAD_PARAMS,
                                   "the params (%zu bytes) are not a valid FiarParams message", len);
        goto done;
    }
    if (params->base.n_unknown_fields > 0)
        err = kd_reject_say(rej, KD_ERR_BAD_PARAMS, "four-in-a-row has no params: the board is always 7 x 6");
done:
    kdapp__fiar_params__free_unpacked(params, &track.base);
    return err;
}

size_t kd_fiar_command_pack(uint32_t column, uint8_t out[KD_FIAR_COMMAND_MAX])
{
    Kdapp__FiarDrop drop = KDAPP__FIAR_DROP__INIT;
    Kdapp__FiarCommand cmd = KDAPP__FIAR_COMMAND__INIT;
    drop.column = column;
    cmd.cmd_case = KDAPP__FIAR_COMMAND__CMD_DROP;
    cmd.drop = &drop;
    return kdapp__fiar_command__pack(&cmd, out); /* at most 2 + 1 + 5 bytes */
}
