/*
 * chess_wire.c — the one boundary between chess and protobuf-c:
 * ChessCommand and ChessParams bytes to domain values and back. A command
 * is decoded at every execute (perft, replay): it is packed by hand in
 * the canonical encoding protobuf-c writes, read directly when it is in
 * exactly that form, and otherwise unpacked by protobuf-c into an arena on
 * the stack (kd_pb_arena); tests/episodes/chess_test.c checks both ways
 * agree.
 */
#include <string.h>

#include "chess.pb-c.h"
#include "episodes/chess/chess.h"
#include "episodes/wire_alloc.h"

/* Appends field `tag` as a varint when `value` is not zero (proto3). */
static size_t put_varint_field(uint8_t *out, size_t n, uint8_t tag, uint32_t value)
{
    if (!value)
        return n;
    out[n++] = tag;
    while (value >= 0x80) {
        out[n++] = (uint8_t)(value | 0x80);
        value >>= 7;
    }
    out[n++] = (uint8_t)value;
    return n;
}

size_t kd_chess_command_pack(uint32_t from, uint32_t to, uint32_t promo, uint8_t out[KD_CHESS_COMMAND_MAX])
{
    size_t n = put_varint_field(out, 0, 0x08, from);
    n = put_varint_field(out, n, 0x10, to);
    return put_varint_field(out, n, 0x18, promo);
}

kd_err kd_chess_command_encode(uint32_t from, uint32_t to, uint32_t promo, kd_buf *out)
{
    uint8_t bytes[KD_CHESS_COMMAND_MAX];
    size_t n = kd_chess_command_pack(from, to, promo, bytes);
    return kd_buf_append(out, bytes, n);
}

/* Reads the canonical encoding kd_chess_command_pack writes for values
 * under 128 (each field once, in order, one-byte varints, none zero):
 * 1 when `data` is exactly that, else 0 (protobuf-c decides). */
static int read_canonical(const uint8_t *data, size_t len, uint32_t v[3])
{
    size_t at = 0;
    for (uint8_t field = 1; field <= 3 && at < len; field++) {
        if (data[at] != (uint8_t)(field << 3))
            continue;
        if (at + 1 >= len || data[at + 1] == 0 || data[at + 1] >= 0x80)
            return 0;
        v[field - 1] = data[at + 1];
        at += 2;
    }
    return at == len;
}

kd_err kd_chess_command_decode(const uint8_t *data, size_t len, uint32_t *from, uint32_t *to, uint32_t *promo,
                               kd_reject *rej)
{
    uint32_t v[3] = {0, 0, 0};
    if (data && len > 0 && read_canonical(data, len, v)) { /* the hot path: no unpack at all */
        *from = v[0];
        *to = v[1];
        *promo = v[2];
        return KD_OK;
    }
    _Alignas(max_align_t) unsigned char storage[256];
    kd_pb_arena arena;
    kd_pb_arena_init(&arena, storage, sizeof storage);
    *from = *to = *promo = 0;
    if (!data || len == 0)
        return kd_reject_say(rej, KD_ERR_BAD_COMMAND, "the command is empty: expected a ChessCommand (from, to)");
    Kdapp__ChessCommand *cmd = kdapp__chess_command__unpack(&arena.base, len, data);
    if (!cmd)
        return kd_reject_say(rej, KD_ERR_BAD_COMMAND, "the command (%zu bytes) is not a valid ChessCommand message%s",
                             len, arena.failed ? " (or too large)" : "");
    *from = cmd->from;
    *to = cmd->to;
    *promo = cmd->promotion;
    return KD_OK; /* the arena's storage needs no free */
}

kd_err kd_chess_params_encode(const char *fen, kd_buf *out)
{
    Kdapp__ChessParams params = KDAPP__CHESS_PARAMS__INIT;
    params.fen = (char *)(fen ? fen : "");
    return kd_pb_append(&params.base, out);
}

kd_err kd_chess_params_decode(const uint8_t *data, size_t len, char fen[KD_CHESS_FEN_MAX], kd_reject *rej)
{
    kd_pb_alloc track;
    kd_pb_alloc_init(&track);
    kd_err err = KD_OK;
    fen[0] = '\0';
    if (len == 0)
        return KD_OK; /* the standard position */
    Kdapp__ChessParams *params = kdapp__chess_params__unpack(&track.base, len, data);
    if (!params)
        return kd_pb_unpack_refused(&track, rej, "params", KD_ERR_BAD_PARAMS,
                                    "the params (%zu bytes) are not a valid ChessParams message", len);
    if (params->base.n_unknown_fields > 0)
        err = kd_reject_say(rej, KD_ERR_BAD_PARAMS, "chess params have one field, fen");
    else if (strlen(params->fen) >= KD_CHESS_FEN_MAX)
        err = kd_reject_say(rej, KD_ERR_BAD_PARAMS, "the FEN is longer than %d characters", KD_CHESS_FEN_MAX - 1);
    else
        memcpy(fen, params->fen, strlen(params->fen) + 1);
    kdapp__chess_params__free_unpacked(params, &track.base);
    return err;
}
