/*
 * migrate.c — upgrading a schema-2 store to schema 3 in place, in one
 * write transaction (all of it or nothing: a crash leaves schema 2).
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
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/bytes.h"
#include "engine/logger.h"
#include "engine/store.h"
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
