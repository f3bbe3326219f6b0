/*
 * checkers_wire.c — the one boundary between checkers and protobuf-c:
 * CheckersCommand and CheckersParams bytes to domain values and back.
 * protobuf-c's unpack returns NULL without a reason, so every unpack goes
 * through an allocator that records allocation failures (wire_alloc.h): a
 * NULL result is then either KD_ERR_NOMEM or malformed bytes.
 */
#include <string.h>

#include "checkers.pb-c.h"
#include "episodes/checkers/checkers.h"
#include "episodes/wire_alloc.h"

kd_err kd_ck_command_decode(const uint8_t *data, size_t len, kd_ck_command *out, kd_reject *rej)
{
    kd_pb_alloc track;
    kd_pb_alloc_init(&track);
    Kdapp__CheckersCommand *cmd = NULL;
    kd_err err = KD_OK;

    memset(out, 0, sizeof *out);
    if (!data || len == 0) {
        err = kd_reject_say(rej, KD_ERR_BAD_COMMAND, "the command is empty: expected a CheckersCommand with squares");
        goto done;
    }
    cmd = kdapp__checkers_command__unpack(&track.base, len, data);
    if (!cmd) {
        err = kd_pb_unpack_refused(&track, rej, "command", KD_ERR_BAD_COMMAND,
                                   "the command (%zu bytes) is not a valid CheckersCommand message", len);
        goto done;
    }
    out->count = cmd->n_squares > UINT32_MAX ? UINT32_MAX : (uint32_t)cmd->n_squares;
    for (size_t i = 0; i < cmd->n_squares && i < KD_CK_PATH_MAX; i++)
        out->squares[i] = cmd->squares[i];
done:
    kdapp__checkers_command__free_unpacked(cmd, &track.base);
    return err;
}

size_t kd_ck_command_pack(const uint32_t *squares, size_t count, uint8_t out[KD_CK_COMMAND_MAX])
{
    uint32_t copy[KD_CK_PATH_MAX];
    size_t n = count < KD_CK_PATH_MAX ? count : KD_CK_PATH_MAX;
    memcpy(copy, squares, n * sizeof *copy);
    Kdapp__CheckersCommand cmd = KDAPP__CHECKERS_COMMAND__INIT;
    cmd.n_squares = n;
    cmd.squares = copy;
    return kdapp__checkers_command__pack(&cmd, out); /* at most 1 + 1 + 13 * 5 bytes */
}

kd_err kd_ck_command_encode(const kd_ck_path *path, kd_buf *out)
{
    uint32_t squares[KD_CK_PATH_MAX];
    for (size_t i = 0; i < path->count && i < KD_CK_PATH_MAX; i++)
        squares[i] = path->squares[i];
    uint8_t bytes[KD_CK_COMMAND_MAX];
    size_t len = kd_ck_command_pack(squares, path->count, bytes);
    return kd_buf_append(out, bytes, len);
}

kd_err kd_ck_params_decode(const uint8_t *data, size_t len, kd_ck_position *start, int *has_start, kd_reject *rej)
{
    kd_pb_alloc track;
    kd_pb_alloc_init(&track);
    Kdapp__CheckersParams *params = NULL;
    kd_err err = KD_OK;

    memset(start, 0, sizeof *start);
    *has_start = 0;
    if (len == 0)
        goto done; /* the standard start */
    params = kdapp__checkers_params__unpack(&track.base, len, data);
    if (!params) {
        err = kd_pb_unpack_refused(&track, rej, "params", KD_ERR_BAD_PARAMS,
                                   "the params (%zu bytes) are not a valid CheckersParams message", len);
        goto done;
    }
    if (params->base.n_unknown_fields > 0) {
        err = kd_reject_say(rej, KD_ERR_BAD_PARAMS, "checkers params have one field: start, a state text");
        goto done;
    }
    if (!params->start || !params->start[0])
        goto done;
    char why[KD_REJECT_DETAIL_MAX] = "";
    err = kd_ck_text_parse(params->start, start, why, sizeof why);
    if (!err)
        err = kd_ck_position_check(start, why, sizeof why);
    if (err) {
        memset(start, 0, sizeof *start);
        err = kd_reject_say(rej, KD_ERR_BAD_PARAMS, "start: %s", why);
        goto done;
    }
    *has_start = 1;
done:
    kdapp__checkers_params__free_unpacked(params, &track.base);
    return err;
}

kd_err kd_ck_params_encode(const kd_ck_position *start, kd_buf *out)
{
    char text[KD_CK_TEXT_LEN];
    kd_ck_text_format(start, text);
    Kdapp__CheckersParams params = KDAPP__CHECKERS_PARAMS__INIT;
    params.start = text;
    return kd_pb_append(&params.base, out);
}
