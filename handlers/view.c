/*
 * view.c — building kd_episode_view and converting it to and from the
 * EpisodeView protobuf (the one wire boundary for views).
 */
#include "handlers/view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kdapp.pb-c.h"

static const kd_game_status no_status = {KD_PHASE_IN_PROGRESS, KD_SEAT_NONE, KD_SEAT_NONE};

void kd_episode_view_init(kd_episode_view *v)
{
    memset(v, 0, sizeof *v);
    v->status = no_status;
    kd_buf_init(&v->view);
    kd_buf_init(&v->state);
}

void kd_episode_view_fini(kd_episode_view *v)
{
    kd_buf_fini(&v->view);
    kd_buf_fini(&v->state);
    kd_episode_view_init(v);
}

/* Empties `v` for a builder, keeping its buffers' storage. */
static void reset(kd_episode_view *v)
{
    kd_buf view = v->view, state = v->state;
    memset(v, 0, sizeof *v);
    v->status = no_status;
    v->view = view;
    v->state = state;
    v->view.len = 0;
    v->state.len = 0;
}

/* The type's part: encoded state, status, public view (none when deleted). */
static kd_err fill_state(kd_episode_view *v, const kd_type_table *types, const kd_episode_ops *ops, const void *state)
{
    snprintf(v->type_name, sizeof v->type_name, "%s", ops->type_name);
    v->type = kd_type_table_find(types, ops->type_name);
    if (!state)
        return KD_OK;
    kd_err err = ops->encode_state(state, &v->state);
    if (err || !v->type)
        return err;
    v->status = v->type->status(state);
    return v->type->view_encode(state, KD_SEAT_PUBLIC, &v->view);
}

kd_err kd_episode_view_from_event(const kd_type_table *types, const kd_episode_event *event, const kd_commit *commit,
                                  kd_episode_view *out)
{
    reset(out);
    out->episode_id = event->episode_id;
    out->participants = *event->participants;
    out->last_event = event->kind;
    memcpy(out->block_hash, commit->block_hash, KD_HASH_LEN);
    out->log_seq = commit->log_seq;
    memcpy(out->digest, commit->digest, KD_HASH_LEN);
    out->height = commit->tip_height; /* at the tip: never final yet */
    out->moves = event->moves;
    out->deleted = event->state == NULL;
    return fill_state(out, types, event->ops, event->state);
}

kd_err kd_episode_view_from_snapshot(const kd_type_table *types, const kd_episode_snapshot *snap, const uint8_t *digest,
                                     kd_episode_view *out)
{
    reset(out);
    out->episode_id = snap->id;
    out->participants = snap->participants;
    out->last_event = snap->last_event;
    memcpy(out->block_hash, snap->updated_block, KD_HASH_LEN);
    out->log_seq = snap->updated_seq;
    out->moves = snap->undo_depth;
    if (digest)
        memcpy(out->digest, digest, KD_HASH_LEN);
    return fill_state(out, types, snap->ops, snap->state);
}

kd_err kd_episode_view_read(const kd_type_table *types, kd_read *rd, uint32_t id, kd_episode_view *out)
{
    kd_tip tip;
    kd_episode_snapshot snap;
    uint8_t digest[KD_HASH_LEN];
    uint64_t height;
    kd_err err = kd_read_tip(rd, &tip);
    if (err || (err = kd_read_episode(rd, id, &snap)))
        return err;
    err = kd_read_log_position(rd, snap.updated_seq, digest, &height);
    if (!err)
        err = kd_episode_view_from_snapshot(types, &snap, digest, out);
    if (!err) {
        out->height = height;
        out->final = tip.has_tip && height + tip.finality_depth <= tip.height;
    }
    kd_episode_snapshot_fini(&snap);
    return err;
}

/* A seat on the wire: seat + 1, 0 for none. */
static uint32_t seat_out(int seat) { return seat >= 0 ? (uint32_t)seat + 1 : 0; }

kd_err kd_episode_view_pack(const kd_episode_view *view, kd_buf *out)
{
    Kdapp__EpisodeView ev = KDAPP__EPISODE_VIEW__INIT;
    ProtobufCBinaryData parts[KD_MAX_PARTICIPANTS];
    ev.episode_id = view->episode_id;
    ev.episode_type = (char *)view->type_name;
    for (size_t i = 0; i < view->participants.count; i++) {
        parts[i].data = (uint8_t *)view->participants.keys[i].bytes;
        parts[i].len = KD_PUBKEY_LEN;
    }
    ev.n_participants = view->participants.count;
    ev.participants = parts;
    ev.last_event = (Kdapp__ViewEvent)view->last_event;
    ev.block_hash.data = (uint8_t *)view->block_hash;
    ev.block_hash.len = KD_HASH_LEN;
    ev.log_seq = view->log_seq;
    ev.digest.data = (uint8_t *)view->digest;
    ev.digest.len = KD_HASH_LEN;
    ev.height = view->height;
    ev.moves = view->moves;
    ev.deleted = view->deleted;
    ev.view.data = view->view.data;
    ev.view.len = view->view.len;
    ev.state.data = view->state.data;
    ev.state.len = view->state.len;
    ev.phase = (Kdapp__GamePhase)view->status.phase;
    ev.winner = seat_out(view->status.winner);
    ev.to_move = seat_out(view->status.to_move);
    size_t n = kdapp__episode_view__get_packed_size(&ev);
    kd_err err = kd_buf_reserve(out, n);
    if (err)
        return err;
    kdapp__episode_view__pack(&ev, out->data + out->len);
    out->len += n;
    return KD_OK;
}

/* A seat from the wire (seat + 1, 0 none); -2 when out of range. */
static int seat_in(uint32_t wire, size_t seats)
{
    if (wire == 0)
        return KD_SEAT_NONE;
    return wire <= seats ? (int)wire - 1 : -2;
}

/* For a known type: the state decodes, the view renders, the status fits
 * the seats and agrees with the state. */
static int type_part_valid(const kd_episode_view *v)
{
    const kd_episode_type *t = v->type;
    if (!v->state.len && !v->view.len)
        return v->deleted || (v->status.phase == KD_PHASE_IN_PROGRESS && v->status.to_move == KD_SEAT_NONE);
    void *state = calloc(1, t->ops->state_size ? t->ops->state_size : 1);
    int ok = state && t->ops->decode_state(v->state.data, v->state.len, state) == KD_OK;
    if (ok) {
        kd_game_status s = t->status(state);
        ok = s.phase == v->status.phase && s.winner == v->status.winner && s.to_move == v->status.to_move;
    }
    free(state);
    json_t *j = ok ? t->view_json(v->view.data, v->view.len) : NULL;
    ok = j != NULL;
    json_decref(j);
    return ok;
}

kd_err kd_episode_view_unpack(const kd_type_table *types, const uint8_t *data, size_t len, kd_episode_view *out)
{
    reset(out);
    Kdapp__EpisodeView *ev = kdapp__episode_view__unpack(NULL, len, data);
    if (!ev)
        return KD_ERR_DECODE;
    kd_err err = KD_ERR_DECODE;
    if (ev->block_hash.len != KD_HASH_LEN || ev->digest.len != KD_HASH_LEN ||
        ev->n_participants > KD_MAX_PARTICIPANTS || !ev->episode_type ||
        strlen(ev->episode_type) >= sizeof out->type_name || ev->phase > KDAPP__GAME_PHASE__GAME_PHASE_DRAW ||
        ev->last_event > KDAPP__VIEW_EVENT__VIEW_ROLLBACK)
        goto done;
    out->episode_id = ev->episode_id;
    strcpy(out->type_name, ev->episode_type);
    out->type = kd_type_table_find(types, out->type_name);
    for (size_t i = 0; i < ev->n_participants; i++) {
        if (ev->participants[i].len != KD_PUBKEY_LEN)
            goto done;
        memcpy(out->participants.keys[i].bytes, ev->participants[i].data, KD_PUBKEY_LEN);
    }
    out->participants.count = ev->n_participants;
    out->last_event = (kd_event_kind)ev->last_event;
    memcpy(out->block_hash, ev->block_hash.data, KD_HASH_LEN);
    out->log_seq = ev->log_seq;
    memcpy(out->digest, ev->digest.data, KD_HASH_LEN);
    out->height = ev->height;
    out->moves = ev->moves;
    out->deleted = ev->deleted;
    out->status.phase = (kd_game_phase)ev->phase;
    out->status.winner = seat_in(ev->winner, ev->n_participants);
    out->status.to_move = seat_in(ev->to_move, ev->n_participants);
    if (out->status.winner < KD_SEAT_NONE || out->status.to_move < KD_SEAT_NONE)
        goto done;
    if ((err = kd_buf_append(&out->view, ev->view.data, ev->view.len)) ||
        (err = kd_buf_append(&out->state, ev->state.data, ev->state.len)))
        goto done;
    err = KD_ERR_DECODE;
    if (out->type && !type_part_valid(out))
        goto done;
    err = KD_OK;
done:
    kdapp__episode_view__free_unpacked(ev, NULL);
    if (err)
        kd_episode_view_fini(out); /* empty, and nothing for the caller to release */
    return err;
}
