/*
 * migrate.c — upgrading an older store in place, each step in the one
 * write transaction that opens it (all of it or nothing: a crash leaves
 * the old schema).
 *
 * Schema 2 to 3:
 *
 *   schema 2                               schema 3
 *   episodes  u32 BE id -> EpisodeRecord   states  u64 BE slot -> EpisodeRecord
 *                                          ids     u32 BE id -> u64 BE slot
 *   undo      id + depth -> undo record    blocks  each unpruned record's command effects
 *                                                  carry their undo record
 *
 * Slot numbers are given in id order (schema 2 kept no creation order); episodes
 * created after the upgrade follow the last one. What the rules see (the
 * states, undo depths, digests, the log) is unchanged, so the store's
 * fingerprint and digest are the same before and after.
 *
 * Schema 3 to 4: `history` (store.h) is built from the log. One pass over
 * it pairs each revert with the accept it undid (a revert undoes the
 * newest block still applied, so the applied accepts form a stack) and
 * notes, for each episode that exists, every accept that applied one of
 * its transactions and every revert of such an accept, from the entry
 * that created it on (earlier entries naming its id belong to an episode
 * a reorg took away). The notes are sorted and appended in key order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/bytes.h"
#include "engine/logger.h"
#include "engine/store.h"
#include "engine/txn.h"
#include "store.pb-c.h"

/* Puts the packed `rec` under `key` of `dbi`. */
static kd_err put_packed(MDB_txn *txn, MDB_dbi dbi, const void *key, size_t klen, const ProtobufCMessage *rec,
                         const char *what)
{
    size_t n = protobuf_c_message_get_packed_size(rec);
    uint8_t *buf = malloc(n ? n : 1);
    if (!buf)
        return KD_ERR_NOMEM;
    protobuf_c_message_pack(rec, buf);
    MDB_val k = kd_val(key, klen), v = kd_val(buf, n);
    kd_err err = kd_store_err(mdb_put(txn, dbi, &k, &v, 0), what);
    free(buf);
    return err;
}

/* Each unpruned block (the ones `heights` still lists) gets the undo
 * records of its commands. */
static kd_err move_undo(MDB_txn *txn, kd_store *s, MDB_dbi undo, char *why, size_t why_len)
{
    MDB_cursor *cur = NULL;
    MDB_val hk, hv;
    kd_err err = kd_store_err(mdb_cursor_open(txn, s->heights, &cur), "open heights");
    int rc = err ? MDB_NOTFOUND : mdb_cursor_get(cur, &hk, &hv, MDB_FIRST);
    for (; !err && rc == 0; rc = mdb_cursor_get(cur, &hk, &hv, MDB_NEXT)) {
        uint8_t hash[32];
        if (hv.mv_size != sizeof hash) {
            snprintf(why, why_len, "a height of %s names no 32-byte block hash: the store is damaged", s->dir);
            err = KD_ERR_STORE;
            break;
        }
        memcpy(hash, hv.mv_data, sizeof hash);
        MDB_val bk = kd_val(hash, sizeof hash), bv;
        if ((err = kd_store_err(mdb_get(txn, s->blocks, &bk, &bv), "read block")))
            break;
        Kdapp__Store__BlockRecord *rec = kdapp__store__block_record__unpack(NULL, bv.mv_size, bv.mv_data);
        if (!rec) {
            snprintf(why, why_len, "a block record of %s does not decode: the store is damaged", s->dir);
            err = KD_ERR_STORE;
            break;
        }
        /* The values read point into the map until the put below; the
         * record is rewritten once, after its effects all point at them. */
        for (size_t i = 0; i < rec->n_effects && !err; i++) {
            Kdapp__Store__Effect *fx = rec->effects[i];
            if (fx->kind != KDAPP__STORE__EFFECT_KIND__EFFECT_COMMAND || rec->final)
                continue;
            uint8_t key[12];
            kd_put_u32be(key, fx->episode_id);
            kd_put_u64be(key + 4, fx->undo_depth);
            MDB_val uk = kd_val(key, sizeof key), uv;
            int urc = mdb_get(txn, undo, &uk, &uv);
            if (urc == MDB_NOTFOUND) {
                snprintf(why, why_len,
                         "the undo record of episode %u's command %llu is missing from %s: the store "
                         "is damaged",
                         fx->episode_id, (unsigned long long)fx->undo_depth, s->dir);
                err = KD_ERR_STORE;
            } else if (!(err = kd_store_err(urc, "read undo"))) {
                fx->undo.data = uv.mv_data;
                fx->undo.len = uv.mv_size;
            }
        }
        if (!err)
            err = put_packed(txn, s->blocks, hash, sizeof hash, &rec->base, "write block");
        for (size_t i = 0; i < rec->n_effects; i++) /* not ours to free */
            rec->effects[i]->undo = (ProtobufCBinaryData){0, NULL};
        kdapp__store__block_record__free_unpacked(rec, NULL);
    }
    if (!err && rc != MDB_NOTFOUND && rc != 0)
        err = kd_store_err(rc, "walk heights");
    if (cur)
        mdb_cursor_close(cur);
    return err;
}

/* Each episode gets the next slot, in id order. */
static kd_err move_episodes(MDB_txn *txn, kd_store *s, MDB_dbi episodes, char *why, size_t why_len)
{
    MDB_cursor *cur = NULL;
    MDB_val k, v;
    uint64_t slot = 1;
    kd_err err = kd_store_err(mdb_cursor_open(txn, episodes, &cur), "open episodes");
    int rc = err ? MDB_NOTFOUND : mdb_cursor_get(cur, &k, &v, MDB_FIRST);
    for (; !err && rc == 0; rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT), slot++) {
        Kdapp__Store__EpisodeRecord *rec =
            k.mv_size == 4 ? kdapp__store__episode_record__unpack(NULL, v.mv_size, v.mv_data) : NULL;
        if (!rec) {
            snprintf(why, why_len, "an episode record of %s does not decode: the store is damaged", s->dir);
            err = KD_ERR_STORE;
            break;
        }
        uint8_t id[4], slot_be[8];
        memcpy(id, k.mv_data, 4);
        kd_put_u64be(slot_be, slot);
        MDB_val ik = kd_val(id, 4), iv = kd_val(slot_be, 8);
        if (!(err = put_packed(txn, s->states, slot_be, 8, &rec->base, "write episode")))
            err = kd_store_err(mdb_put(txn, s->ids, &ik, &iv, 0), "write episode id");
        kdapp__store__episode_record__free_unpacked(rec, NULL);
    }
    if (!err && rc != MDB_NOTFOUND && rc != 0)
        err = kd_store_err(rc, "walk episodes");
    if (cur)
        mdb_cursor_close(cur);
    return err;
}

kd_err kd_store_migrate_2_to_3(MDB_txn *txn, kd_store *s, char *why, size_t why_len)
{
    MDB_dbi undo = 0, episodes = 0;
    int has_undo = mdb_dbi_open(txn, "undo", 0, &undo) == 0;
    int has_episodes = mdb_dbi_open(txn, "episodes", 0, &episodes) == 0;
    kd_err err = KD_OK;
    if (has_undo && (err = move_undo(txn, s, undo, why, why_len)))
        return err;
    if (has_episodes && (err = move_episodes(txn, s, episodes, why, why_len)))
        return err;
    if (has_undo && (err = kd_store_err(mdb_drop(txn, undo, 1), "drop undo")))
        return err;
    if (has_episodes && (err = kd_store_err(mdb_drop(txn, episodes, 1), "drop episodes")))
        return err;
    KD_LOG_I("store", "%s upgraded from schema 2 to 3 (episodes by slot, undo records in their blocks)", s->dir);
    return KD_OK;
}

/* ------------------------------------------------------------ 3 to 4 */

/* An episode that exists, and the log entry that created it. */
typedef struct {
    uint32_t id;
    uint64_t slot, created;
} live_episode;

/* One key of `history` to write. */
typedef struct {
    uint64_t slot, seq;
    uint8_t kind;
} history_note;

typedef struct {
    live_episode *eps; /* by id */
    size_t n_eps;
    history_note *notes;
    size_t n_notes, cap_notes;
} history_build;

/* The existing episodes in id order, each with its creation's log entry
 * (the entry that applied the block its record names). */
static kd_err list_episodes(MDB_txn *txn, kd_store *s, history_build *b, char *why, size_t why_len)
{
    MDB_stat st;
    kd_err err = kd_store_err(mdb_stat(txn, s->ids, &st), "count episodes");
    if (err)
        return err;
    b->eps = calloc(st.ms_entries ? st.ms_entries : 1, sizeof *b->eps);
    if (!b->eps)
        return KD_ERR_NOMEM;
    MDB_cursor *cur = NULL;
    MDB_val k, v;
    err = kd_store_err(mdb_cursor_open(txn, s->ids, &cur), "open ids");
    int rc = err ? MDB_NOTFOUND : mdb_cursor_get(cur, &k, &v, MDB_FIRST);
    for (; !err && rc == 0 && b->n_eps < st.ms_entries; rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
        live_episode *e = &b->eps[b->n_eps];
        MDB_val sv;
        Kdapp__Store__EpisodeRecord *rec = NULL;
        Kdapp__Store__BlockRecord *blk = NULL;
        if (k.mv_size == 4 && v.mv_size == 8) {
            e->id = kd_get_u32be(k.mv_data);
            e->slot = kd_get_u64be(v.mv_data);
            MDB_val sk = kd_val(v.mv_data, 8);
            if (mdb_get(txn, s->states, &sk, &sv) == 0)
                rec = kdapp__store__episode_record__unpack(NULL, sv.mv_size, sv.mv_data);
        }
        if (rec && rec->created_in.len == 32 && kd_store_read_block(txn, s, rec->created_in.data, &blk) != KD_OK)
            blk = NULL;
        if (blk) {
            e->created = blk->log_seq;
            b->n_eps++;
        } else {
            snprintf(why, why_len,
                     "episode %u of %s has no record, or no applied block that created it: the store is damaged", e->id,
                     s->dir);
            err = KD_ERR_STORE;
        }
        if (blk)
            kdapp__store__block_record__free_unpacked(blk, NULL);
        if (rec)
            kdapp__store__episode_record__free_unpacked(rec, NULL);
    }
    if (!err && rc != MDB_NOTFOUND && rc != 0)
        err = kd_store_err(rc, "walk ids");
    if (cur)
        mdb_cursor_close(cur);
    return err;
}

static const live_episode *find_episode(const history_build *b, uint32_t id)
{
    size_t lo = 0, hi = b->n_eps;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (b->eps[mid].id == id)
            return &b->eps[mid];
        if (b->eps[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* Notes (slot, seq, kind) for each existing episode that the applied
 * accept `accept_seq` (decoded `le`) changed, from its creation on. */
static kd_err note_accept(history_build *b, const Kdapp__Store__LogEntry *le, uint64_t accept_seq, uint64_t seq,
                          uint8_t kind)
{
    for (size_t i = 0; i < le->n_txs; i++) {
        const Kdapp__Store__TxOutcome *o = le->txs[i];
        const live_episode *e = o->applied ? find_episode(b, o->episode_id) : NULL;
        if (!e || accept_seq < e->created)
            continue;
        int seen = 0; /* one note per episode and entry */
        for (size_t j = 0; j < i && !seen; j++)
            seen = le->txs[j]->applied && le->txs[j]->episode_id == o->episode_id;
        if (seen)
            continue;
        kd_err err = kd_grow_array((void **)&b->notes, &b->cap_notes, b->n_notes + 1, sizeof *b->notes);
        if (err)
            return err;
        b->notes[b->n_notes++] = (history_note){.slot = e->slot, .seq = seq, .kind = kind};
    }
    return KD_OK;
}

/* The log entry at `seq`, decoded with its message (both freed by the
 * caller); a message that does not decode leaves *m NULL. */
static kd_err read_entry(MDB_txn *txn, kd_store *s, uint64_t seq, Kdapp__Store__LogEntry **le, Kdapp__EngineMsg **m,
                         char *why, size_t why_len)
{
    uint8_t key[8];
    kd_put_u64be(key, seq);
    MDB_val k = kd_val(key, 8), v;
    *le = NULL;
    *m = NULL;
    kd_err err = kd_store_err(mdb_get(txn, s->log, &k, &v), "read log");
    if (!err && !(*le = kdapp__store__log_entry__unpack(NULL, v.mv_size, v.mv_data))) {
        snprintf(why, why_len, "log entry %llu of %s does not decode: the store is damaged", (unsigned long long)seq,
                 s->dir);
        err = KD_ERR_STORE;
    }
    if (!err)
        *m = kdapp__engine_msg__unpack(NULL, (*le)->message.len, (*le)->message.data);
    return err;
}

static void free_entry(Kdapp__Store__LogEntry *le, Kdapp__EngineMsg *m)
{
    if (m)
        kdapp__engine_msg__free_unpacked(m, NULL);
    if (le)
        kdapp__store__log_entry__free_unpacked(le, NULL);
}

/* One pass over the log: every applied accept noted and stacked, every
 * applied revert paired with the newest stacked accept. */
static kd_err walk_log(MDB_txn *txn, kd_store *s, history_build *b, char *why, size_t why_len)
{
    uint64_t *stack = NULL;
    size_t depth = 0, cap = 0;
    MDB_cursor *cur = NULL;
    MDB_val k, v;
    kd_err err = kd_store_err(mdb_cursor_open(txn, s->log, &cur), "open log");
    int rc = err ? MDB_NOTFOUND : mdb_cursor_get(cur, &k, &v, MDB_FIRST);
    for (; !err && rc == 0; rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
        uint64_t seq = k.mv_size == 8 ? kd_get_u64be(k.mv_data) : 0;
        Kdapp__Store__LogEntry *le = kdapp__store__log_entry__unpack(NULL, v.mv_size, v.mv_data);
        Kdapp__EngineMsg *m = le ? kdapp__engine_msg__unpack(NULL, le->message.len, le->message.data) : NULL;
        if (!le || !seq) {
            snprintf(why, why_len, "a log entry of %s does not decode: the store is damaged", s->dir);
            err = KD_ERR_STORE;
        } else if (le->status != KDAPP__MSG_STATUS__MSG_APPLIED || !m) {
            /* refused: it changed nothing */
        } else if (m->kind_case == KDAPP__ENGINE_MSG__KIND_ACCEPTED) {
            if (!(err = kd_grow_array((void **)&stack, &cap, depth + 1, sizeof *stack))) {
                stack[depth++] = seq;
                err = note_accept(b, le, seq, seq, KD_HISTORY_ACCEPT);
            }
        } else if (m->kind_case == KDAPP__ENGINE_MSG__KIND_REVERTED) {
            Kdapp__Store__LogEntry *ale = NULL;
            Kdapp__EngineMsg *am = NULL;
            if (depth == 0) {
                snprintf(why, why_len,
                         "log entry %llu of %s reverts a block when none is applied: the store is damaged",
                         (unsigned long long)seq, s->dir);
                err = KD_ERR_STORE;
            } else if (!(err = read_entry(txn, s, stack[--depth], &ale, &am, why, why_len))) {
                err = note_accept(b, ale, stack[depth], seq, KD_HISTORY_REVERT);
            }
            free_entry(ale, am);
        }
        free_entry(le, m);
    }
    if (!err && rc != MDB_NOTFOUND && rc != 0)
        err = kd_store_err(rc, "walk log");
    if (cur)
        mdb_cursor_close(cur);
    free(stack);
    return err;
}

static int note_cmp(const void *a, const void *b)
{
    const history_note *x = a, *y = b;
    if (x->slot != y->slot)
        return x->slot < y->slot ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

kd_err kd_store_migrate_3_to_4(MDB_txn *txn, kd_store *s, char *why, size_t why_len)
{
    history_build b = {0};
    kd_err err = kd_store_err(mdb_drop(txn, s->history, 0), "empty history");
    if (!err)
        err = list_episodes(txn, s, &b, why, why_len);
    if (!err)
        err = walk_log(txn, s, &b, why, why_len);
    if (!err && b.n_notes > 1)
        qsort(b.notes, b.n_notes, sizeof *b.notes, note_cmp);
    for (size_t i = 0; !err && i < b.n_notes; i++) {
        uint8_t key[KD_HISTORY_KEY_LEN];
        kd_store_history_key(b.notes[i].slot, b.notes[i].seq, key);
        MDB_val k = kd_val(key, sizeof key), v = kd_val(&b.notes[i].kind, 1);
        err = kd_store_err(mdb_put(txn, s->history, &k, &v, MDB_APPEND), "write history");
    }
    if (!err)
        KD_LOG_I("store", "%s upgraded to schema 4: %zu log entries of %zu episodes indexed", s->dir, b.n_notes,
                 b.n_eps);
    free(b.eps);
    free(b.notes);
    return err;
}
