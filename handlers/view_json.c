/*
 * view_json.c — the renderings of a kd_episode_view: the enriched view as
 * JSON (the generic fields, then the type's own members), and the type's
 * strategy context, text board and prompt. These shapes are a public
 * contract (DESIGN.md, MCP tools); tests/handlers and tests/golden hold
 * golden copies.
 */
#include <stdlib.h>
#include <string.h>

#include "handlers/view.h"

const char *kd_event_kind_name(kd_event_kind kind)
{
    switch (kind) {
    case KD_EVENT_INITIALIZE:
        return "initialize";
    case KD_EVENT_COMMAND:
        return "command";
    case KD_EVENT_ROLLBACK:
        return "rollback";
    }
    return "unknown";
}

static json_t *seat_json(int seat) { return seat >= 0 ? json_integer(seat) : json_null(); }

static json_t *seats_json(const kd_episode_view *v)
{
    json_t *seats = json_array();
    for (size_t i = 0; seats && v->type && i < v->participants.count; i++)
        json_array_append_new(seats, json_string(kd_episode_type_seat_name(v->type, (int)i)));
    return seats;
}

json_t *kd_episode_view_json(const kd_episode_view *v)
{
    json_t *parts = json_array();
    for (size_t i = 0; parts && i < v->participants.count; i++)
        json_array_append_new(parts, kd_json_hex(v->participants.keys[i].bytes, KD_PUBKEY_LEN));
    json_t *j = json_pack(
        "{s:I, s:s, s:o, s:s, s:o, s:I, s:o, s:I, s:b, s:b, s:I, s:s, s:o, s:o, s:o, s:o}", "episode_id",
        (json_int_t)v->episode_id, "type", v->type_name, "participants", parts, "last_event",
        kd_event_kind_name(v->last_event), "block_hash", kd_json_hex(v->block_hash, KD_HASH_LEN), "log_seq",
        (json_int_t)v->log_seq, "digest", kd_json_hex(v->digest, KD_HASH_LEN), "height", (json_int_t)v->height, "final",
        v->final, "deleted", v->deleted, "move_count", (json_int_t)v->moves, "phase",
        kd_game_phase_name(v->status.phase), "winner", seat_json(v->status.winner), "to_move",
        seat_json(v->status.to_move), "seats", seats_json(v), "state", kd_json_hex(v->state.data, v->state.len));
    if (!j || !v->type || !v->view.len)
        return j;
    json_t *own = v->type->view_json(v->view.data, v->view.len);
    if (!own) {
        json_decref(j);
        return NULL;
    }
    /* The type's members follow the generic ones, in the type's order; a
     * generic member is never replaced by one of the same name. */
    const char *key;
    json_t *value;
    json_object_foreach(own, key, value)
    {
        if (!json_object_get(j, key) && json_object_set(j, key, value) != 0) {
            json_decref(own);
            json_decref(j);
            return NULL;
        }
    }
    json_decref(own);
    return j;
}

json_t *kd_episode_view_strategy_json(const kd_episode_view *v)
{
    if (!v->type || !v->view.len)
        return NULL;
    return v->type->strategy_context(v->view.data, v->view.len);
}

kd_err kd_episode_view_render(const kd_episode_view *v, unsigned flags, kd_buf *out)
{
    if (!v->type)
        return KD_ERR_UNKNOWN_TYPE;
    if (!v->view.len)
        return KD_ERR_NOT_FOUND;
    return v->type->render_text(v->view.data, v->view.len, flags, out);
}

kd_err kd_episode_view_legal_moves(const kd_episode_view *v, int seat, kd_legal_moves *out)
{
    if (!v->type)
        return KD_ERR_UNKNOWN_TYPE;
    if (!v->state.len)
        return KD_ERR_NOT_FOUND;
    const kd_episode_ops *ops = v->type->ops;
    void *state = calloc(1, ops->state_size ? ops->state_size : 1);
    if (!state)
        return KD_ERR_NOMEM;
    kd_err err = ops->decode_state(v->state.data, v->state.len, state);
    if (!err)
        err = v->type->legal_moves(state, seat, out);
    free(state);
    return err;
}

kd_err kd_episode_view_prompt(const kd_episode_view *v, int seat, kd_buf *out)
{
    if (!v->type)
        return KD_ERR_UNKNOWN_TYPE;
    if (!v->view.len)
        return KD_ERR_NOT_FOUND;
    return v->type->prompt(v->view.data, v->view.len, v->episode_id, seat, out);
}
