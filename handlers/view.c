/*
 * view.c — building kd_episode_view and converting it to and from the
 * EpisodeView protobuf (the one wire boundary for views).
 */
#include "handlers/view.h"

#include <stdlib.h>
#include <string.h>

#include "kdapp.pb-c.h"

static void fill_ttt(kd_episode_view *out, const kd_episode_ops *ops, const void *state)
{
    if (state && strcmp(ops->type_name, KD_TTT_TYPE_NAME) == 0) {
        out->has_ttt = 1;
        kd_ttt_view_of(state, &out->ttt);
    }
}

void kd_episode_view_from_event(const kd_episode_event *event, const kd_commit *commit, kd_episode_view *out)
{
    memset(out, 0, sizeof *out);
    out->episode_id = event->episode_id;
    snprintf(out->type, sizeof out->type, "%s", event->ops->type_name);
    out->participants = *event->participants;
    out->last_event = event->kind;
    memcpy(out->block_hash, commit->block_hash, KD_HASH_LEN);
    out->log_seq = commit->log_seq;
    memcpy(out->digest, commit->digest, KD_HASH_LEN);
    out->deleted = event->state == NULL;
    fill_ttt(out, event->ops, event->state);
}

void kd_episode_view_from_snapshot(const kd_episode_snapshot *snap, const uint8_t *digest, kd_episode_view *out)
{
    memset(out, 0, sizeof *out);
    out->episode_id = snap->id;
    snprintf(out->type, sizeof out->type, "%s", snap->ops->type_name);
    out->participants = snap->participants;
    out->last_event = snap->last_event;
    memcpy(out->block_hash, snap->updated_block, KD_HASH_LEN);
    out->log_seq = snap->updated_seq;
    if (digest)
        memcpy(out->digest, digest, KD_HASH_LEN);
    fill_ttt(out, snap->ops, snap->state);
}

kd_err kd_episode_view_read(kd_read *rd, uint32_t id, kd_episode_view *out)
{
    kd_tip tip;
    kd_episode_snapshot snap;
    kd_err err = kd_read_tip(rd, &tip);
    if (err || (err = kd_read_episode(rd, id, &snap)))
        return err;
    kd_episode_view_from_snapshot(&snap, tip.digest, out);
    kd_episode_snapshot_fini(&snap);
    return KD_OK;
}

static Kdapp__TttCell *cell_of(Kdapp__TttCell *storage, const kd_ttt_cell *c)
{
    Kdapp__TttCell init = KDAPP__TTT_CELL__INIT;
    *storage = init;
    storage->row = c->row;
    storage->col = c->col;
    storage->player = c->symbol;
    return storage;
}

kd_err kd_episode_view_pack(const kd_episode_view *view, kd_buf *out)
{
    Kdapp__EpisodeView ev = KDAPP__EPISODE_VIEW__INIT;
    Kdapp__TttView tv = KDAPP__TTT_VIEW__INIT;
    ProtobufCBinaryData parts[KD_MAX_PARTICIPANTS];
    uint32_t board[9];
    Kdapp__TttCell cells[10], *recent[9];
    ev.episode_id = view->episode_id;
    ev.episode_type = (char *)view->type;
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
    ev.deleted = view->deleted;
    if (view->has_ttt) {
        const kd_ttt_view *t = &view->ttt;
        for (int i = 0; i < 9; i++)
            board[i] = t->board[i / 3][i % 3];
        tv.n_board = 9;
        tv.board = board;
        tv.current = t->current;
        tv.status = (Kdapp__TttStatus)t->status;
        tv.cap = t->cap;
        for (size_t i = 0; i < t->recent_len && i < 9; i++)
            recent[i] = cell_of(&cells[i], &t->recent[i]);
        tv.n_recent_moves = t->recent_len;
        tv.recent_moves = recent;
        if (t->has_next_to_remove)
            tv.next_to_remove = cell_of(&cells[9], &t->next_to_remove);
        tv.move_count = t->move_count;
        ev.detail_case = KDAPP__EPISODE_VIEW__DETAIL_TICTACTOE;
        ev.tictactoe = &tv;
    }
    size_t n = kdapp__episode_view__get_packed_size(&ev);
    kd_err err = kd_buf_reserve(out, n);
    if (err)
        return err;
    kdapp__episode_view__pack(&ev, out->data + out->len);
    out->len += n;
    return KD_OK;
}

static int cell_in(const Kdapp__TttCell *c, kd_ttt_cell *out)
{
    if (!c || c->row > 2 || c->col > 2 || (c->player != KD_TTT_X && c->player != KD_TTT_O))
        return 0;
    out->row = (uint8_t)c->row;
    out->col = (uint8_t)c->col;
    out->symbol = (uint8_t)c->player;
    return 1;
}

kd_err kd_episode_view_unpack(const uint8_t *data, size_t len, kd_episode_view *out)
{
    memset(out, 0, sizeof *out);
    Kdapp__EpisodeView *ev = kdapp__episode_view__unpack(NULL, len, data);
    if (!ev)
        return KD_ERR_DECODE;
    kd_err err = KD_ERR_DECODE;
    if (ev->block_hash.len != KD_HASH_LEN || ev->digest.len != KD_HASH_LEN ||
        ev->n_participants > KD_MAX_PARTICIPANTS || !ev->episode_type || strlen(ev->episode_type) >= sizeof out->type)
        goto done;
    out->episode_id = ev->episode_id;
    strcpy(out->type, ev->episode_type);
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
    out->deleted = ev->deleted;
    if (ev->detail_case == KDAPP__EPISODE_VIEW__DETAIL_TICTACTOE) {
        const Kdapp__TttView *tv = ev->tictactoe;
        kd_ttt_view *t = &out->ttt;
        if (tv->n_board != 9 || tv->n_recent_moves > 9 || tv->cap > KD_TTT_MAX_CAP || tv->status > 3)
            goto done;
        for (int i = 0; i < 9; i++) {
            if (tv->board[i] > KD_TTT_O)
                goto done;
            t->board[i / 3][i % 3] = (uint8_t)tv->board[i];
        }
        t->current = (uint8_t)tv->current;
        t->status = (uint8_t)tv->status;
        t->cap = (uint8_t)tv->cap;
        for (size_t i = 0; i < tv->n_recent_moves; i++)
            if (!cell_in(tv->recent_moves[i], &t->recent[i]))
                goto done;
        t->recent_len = (uint8_t)tv->n_recent_moves;
        t->has_next_to_remove = (uint8_t)cell_in(tv->next_to_remove, &t->next_to_remove);
        t->move_count = tv->move_count;
        out->has_ttt = 1;
    }
    err = KD_OK;
done:
    kdapp__episode_view__free_unpacked(ev, NULL);
    return err;
}
