/*
 * tictactoe_wire.c — the one boundary between tic-tac-toe and protobuf-c:
 * decodes TttCommand and TttParams bytes into domain values and encodes them
 * for tools and tests. protobuf-c's unpack returns NULL without a reason, so
 * every unpack goes through an allocator that records allocation failures:
 * a NULL result is then either KD_ERR_NOMEM or malformed bytes, and the
 * reject detail says which input was refused and why.
 */
#include "episodes/tictactoe/tictactoe.h"

#include <stdio.h>
#include <string.h>

#include "episodes/wire_alloc.h"
#include "tictactoe.pb-c.h"

kd_err kd_ttt_command_decode(const uint8_t *data, size_t len, kd_ttt_move *move, kd_reject *rej)
{
    kd_pb_alloc track;
    kd_pb_alloc_init(&track);
    Kdapp__TttCommand *cmd = NULL;
    kd_err err = KD_OK;

    memset(move, 0, sizeof *move);
    if (len == 0) {
        err = kd_reject_say(rej, KD_ERR_BAD_COMMAND, "the command is empty: expected a TttCommand with a move");
        goto done;
    }
    cmd = kdapp__ttt_command__unpack(&track.base, len, data);
    if (!cmd) {
        if (track.failed) {
            err = kd_reject_say(rej, KD_ERR_NOMEM, "out of memory while decoding the command");
        } else {
            err = kd_reject_say(rej, KD_ERR_BAD_COMMAND, "the command (%zu bytes) is not a valid TttCommand message",
                                len);
        }
        goto done;
    }
    if (cmd->cmd_case != KDAPP__TTT_COMMAND__CMD_MOVE || !cmd->move) {
        err = kd_reject_say(rej, KD_ERR_BAD_COMMAND, "the command carries no move: TttCommand.move is not set");
        goto done;
    }
    if (cmd->move->player > 1) {
        err = kd_reject_say(rej, KD_ERR_BAD_COMMAND, "player must be 0 (X) or 1 (O), got %u",
                            (unsigned)cmd->move->player);
        goto done;
    }
    move->row = cmd->move->row;
    move->col = cmd->move->col;
    move->player = (uint8_t)cmd->move->player;
done:
    kdapp__ttt_command__free_unpacked(cmd, &track.base);
    return err;
}

kd_err kd_ttt_params_decode(const uint8_t *data, size_t len, uint32_t *cap, kd_reject *rej)
{
    kd_pb_alloc track;
    kd_pb_alloc_init(&track);
    Kdapp__TttParams *params = NULL;
    kd_err err = KD_OK;

    *cap = 0;
    if (len == 0)
        goto done; /* empty params: every field at its default */
    params = kdapp__ttt_params__unpack(&track.base, len, data);
    if (!params) {
        if (track.failed) {
            err = kd_reject_say(rej, KD_ERR_NOMEM, "out of memory while decoding the tic-tac-toe params");
        } else {
            err =
                kd_reject_say(rej, KD_ERR_BAD_PARAMS, "the params (%zu bytes) are not a valid TttParams message", len);
        }
        goto done;
    }
    *cap = params->cap;
done:
    kdapp__ttt_params__free_unpacked(params, &track.base);
    return err;
}

kd_err kd_ttt_move_encode(uint8_t row, uint8_t col, uint8_t player, kd_buf *out)
{
    Kdapp__TttMove move = KDAPP__TTT_MOVE__INIT;
    Kdapp__TttCommand cmd = KDAPP__TTT_COMMAND__INIT;
    move.row = row;
    move.col = col;
    move.player = player;
    cmd.cmd_case = KDAPP__TTT_COMMAND__CMD_MOVE;
    cmd.move = &move;

    return kd_pb_append(&cmd.base, out);
}

kd_err kd_ttt_params_encode(uint32_t cap, kd_buf *out)
{
    Kdapp__TttParams params = KDAPP__TTT_PARAMS__INIT;
    params.cap = cap;

    return kd_pb_append(&params.base, out);
}
