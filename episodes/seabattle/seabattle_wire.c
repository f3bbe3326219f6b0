/*
 * seabattle_wire.c — the one boundary between sea battle and protobuf-c:
 * SbCommand and SbParams bytes to domain values and back. Unpacking goes
 * through a tracking allocator, so a NULL result is either KD_ERR_NOMEM or
 * malformed bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "episodes/seabattle/seabattle.h"
#include "episodes/wire_alloc.h"
#include "seabattle.pb-c.h"

static kd_err bad(kd_reject *rej, const char *what) { return kd_reject_say(rej, KD_ERR_BAD_COMMAND, "%s", what); }

/* Copies the members of `m` of its kind into `cmd`. */
static kd_err from_message(const Kdapp__SbCommand *m, kd_sb_command *cmd, kd_reject *rej)
{
    switch (m->cmd_case) {
    case KDAPP__SB_COMMAND__CMD_SHOT:
        cmd->kind = KD_SB_SHOT;
        cmd->cell = m->shot->cell;
        return KD_OK;
    case KDAPP__SB_COMMAND__CMD_ANSWER:
        cmd->kind = KD_SB_ANSWER;
        cmd->cell = m->answer->cell;
        cmd->content = m->answer->content;
        if (m->answer->salt.len != KD_SB_SALT_LEN)
            return bad(rej, "an answer's salt is 32 bytes");
        if (m->answer->n_path != KD_SB_DEPTH)
            return bad(rej, "an answer's path is 7 hashes of 32 bytes, bottom-up");
        memcpy(cmd->salt, m->answer->salt.data, KD_SB_SALT_LEN);
        for (int i = 0; i < KD_SB_DEPTH; i++) {
            if (m->answer->path[i].len != KD_HASH_LEN)
                return bad(rej, "an answer's path is 7 hashes of 32 bytes, bottom-up");
            memcpy(cmd->path[i], m->answer->path[i].data, KD_HASH_LEN);
        }
        return KD_OK;
    case KDAPP__SB_COMMAND__CMD_REVEAL:
        cmd->kind = KD_SB_REVEAL_BOARD;
        if (m->reveal->contents.len != KD_SB_CELLS || m->reveal->salts.len != KD_SB_CELLS * KD_SB_SALT_LEN)
            return bad(rej, "a reveal carries 100 contents (one byte each) and 100 salts of 32 bytes");
        memcpy(cmd->contents, m->reveal->contents.data, KD_SB_CELLS);
        memcpy(cmd->salts, m->reveal->salts.data, sizeof cmd->salts);
        return KD_OK;
    case KDAPP__SB_COMMAND__CMD_RESIGN:
        cmd->kind = KD_SB_RESIGN;
        return KD_OK;
    case KDAPP__SB_COMMAND__CMD_CLAIM:
        cmd->kind = KD_SB_CLAIM;
        return KD_OK;
    default:
        return bad(rej, "the command carries none of shot, answer, reveal, resign, claim");
    }
}

kd_err kd_sb_command_decode(const uint8_t *data, size_t len, kd_sb_command *cmd, kd_reject *rej)
{
    kd_pb_alloc track;
    kd_pb_alloc_init(&track);
    memset(cmd, 0, sizeof *cmd);
    if (!data || len == 0)
        return bad(rej, "the command is empty: expected an SbCommand");
    Kdapp__SbCommand *m = kdapp__sb_command__unpack(&track.base, len, data);
    kd_err err;
    if (!m)
        err = kd_pb_unpack_refused(&track, rej, "command", KD_ERR_BAD_COMMAND,
                                   "the command (%zu bytes) is not a valid SbCommand message", len);
    else
        err = from_message(m, cmd, rej);
    kdapp__sb_command__free_unpacked(m, &track.base);
    return err;
}

kd_err kd_sb_command_encode(const kd_sb_command *cmd, kd_buf *out)
{
    Kdapp__SbCommand m = KDAPP__SB_COMMAND__INIT;
    Kdapp__SbShot shot = KDAPP__SB_SHOT__INIT;
    Kdapp__SbAnswer answer = KDAPP__SB_ANSWER__INIT;
    Kdapp__SbReveal reveal = KDAPP__SB_REVEAL__INIT;
    Kdapp__SbResign resign = KDAPP__SB_RESIGN__INIT;
    Kdapp__SbClaim claim = KDAPP__SB_CLAIM__INIT;
    ProtobufCBinaryData path[KD_SB_DEPTH];
    switch (cmd->kind) {
    case KD_SB_SHOT:
        shot.cell = cmd->cell;
        m.cmd_case = KDAPP__SB_COMMAND__CMD_SHOT;
        m.shot = &shot;
        break;
    case KD_SB_ANSWER:
        answer.cell = cmd->cell;
        answer.content = cmd->content;
        answer.salt = (ProtobufCBinaryData){KD_SB_SALT_LEN, (uint8_t *)cmd->salt};
        for (int i = 0; i < KD_SB_DEPTH; i++)
            path[i] = (ProtobufCBinaryData){KD_HASH_LEN, (uint8_t *)cmd->path[i]};
        answer.n_path = KD_SB_DEPTH;
        answer.path = path;
        m.cmd_case = KDAPP__SB_COMMAND__CMD_ANSWER;
        m.answer = &answer;
        break;
    case KD_SB_REVEAL_BOARD:
        reveal.contents = (ProtobufCBinaryData){KD_SB_CELLS, (uint8_t *)cmd->contents};
        reveal.salts = (ProtobufCBinaryData){sizeof cmd->salts, (uint8_t *)cmd->salts};
        m.cmd_case = KDAPP__SB_COMMAND__CMD_REVEAL;
        m.reveal = &reveal;
        break;
    case KD_SB_RESIGN:
        m.cmd_case = KDAPP__SB_COMMAND__CMD_RESIGN;
        m.resign = &resign;
        break;
    case KD_SB_CLAIM:
        m.cmd_case = KDAPP__SB_COMMAND__CMD_CLAIM;
        m.claim = &claim;
        break;
    default:
        return KD_ERR_INVALID_ARG;
    }
    return kd_pb_append(&m.base, out);
}

kd_err kd_sb_params_decode(const uint8_t *data, size_t len, kd_sb_params *params, kd_reject *rej)
{
    kd_pb_alloc track;
    kd_pb_alloc_init(&track);
    memset(params, 0, sizeof *params);
    Kdapp__SbParams *p = len ? kdapp__sb_params__unpack(&track.base, len, data) : NULL;
    kd_err err = KD_OK;
    if (!p && track.failed)
        err = kd_reject_say(rej, KD_ERR_NOMEM, "out of memory while decoding the params");
    else if (!p || p->root_blue.len != KD_HASH_LEN || p->root_red.len != KD_HASH_LEN)
        err = kd_reject_say(rej, KD_ERR_BAD_PARAMS,
                            "sea battle needs each seat's committed root: SbParams with root_blue and root_red of "
                            "32 bytes each");
    else if (p->binding_blue.len != KD_SECRET_BINDING_LEN || p->binding_red.len != KD_SECRET_BINDING_LEN)
        err = kd_reject_say(rej, KD_ERR_BAD_PARAMS,
                            "sea battle needs each seat's binding beside its root: SbParams with binding_blue and "
                            "binding_red of 32 bytes each");
    else {
        memcpy(params->roots[0], p->root_blue.data, KD_HASH_LEN);
        memcpy(params->roots[1], p->root_red.data, KD_HASH_LEN);
        memcpy(params->bindings[0], p->binding_blue.data, KD_SECRET_BINDING_LEN);
        memcpy(params->bindings[1], p->binding_red.data, KD_SECRET_BINDING_LEN);
        params->timeout = p->timeout;
    }
    kdapp__sb_params__free_unpacked(p, &track.base);
    return err;
}

kd_err kd_sb_params_encode(const kd_sb_params *params, kd_buf *out)
{
    Kdapp__SbParams p = KDAPP__SB_PARAMS__INIT;
    p.root_blue = (ProtobufCBinaryData){KD_HASH_LEN, (uint8_t *)params->roots[0]};
    p.root_red = (ProtobufCBinaryData){KD_HASH_LEN, (uint8_t *)params->roots[1]};
    p.binding_blue = (ProtobufCBinaryData){KD_SECRET_BINDING_LEN, (uint8_t *)params->bindings[0]};
    p.binding_red = (ProtobufCBinaryData){KD_SECRET_BINDING_LEN, (uint8_t *)params->bindings[1]};
    p.timeout = params->timeout;
    return kd_pb_append(&p.base, out);
}

kd_err kd_sb_join_params(int seat, const uint8_t *params, size_t len, kd_reject *rej)
{
    static const char *const fields[2][3] = {{"root_blue", "binding_blue", NULL}, {"root_red", "binding_red", NULL}};
    static const char *const names[2] = {"blue", "red"};
    if (seat < 0 || seat > 1)
        return kd_reject_say(rej, KD_ERR_BAD_PARAMS, "seat %d is not a seat of this game", seat);
    return kd_pb_seat_fields_only(&kdapp__sb_params__descriptor, fields[seat], names[seat], params, len, rej);
}
