/*
 * table.c — open tables: opening, joining, cancelling, reverting, and
 * listing them for readers (see table.h for the protocol and its
 * refusals). A table's record is read and written in the write
 * transaction directly (tables are few and rarely touched twice in a
 * block; LMDB reads its own writes), each write with an EFFECT_TABLE
 * carrying the record before, and a mark for the block's digest.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/logger.h"
#include "engine/rules.h"
#include "engine/table.h"

static void id_key(uint32_t id, uint8_t key[4]) { kd_put_u32be(key, id); }

/* The record of table `id` (*out NULL when there is none), unpacked;
 * freed by the caller. `raw` (may be NULL) gets a copy of its bytes. */
static kd_err table_get(kd_txn *c, uint32_t id, Kdapp__Store__TableRecord **out, kd_buf *raw)
{
    *out = NULL;
    uint8_t key[4];
    id_key(id, key);
    MDB_val k = kd_val(key, 4), v;
    int rc = mdb_get(c->txn, c->engine->store.tables, &k, &v);
    if (rc == MDB_NOTFOUND)
        return KD_OK;
    kd_err err = kd_store_err(rc, "read table");
    if (err)
        return err;
    if (raw && (err = kd_buf_append(raw, v.mv_data, v.mv_size)))
        return err;
    if (!(*out = kdapp__store__table_record__unpack(NULL, v.mv_size, v.mv_data))) {
        KD_LOG_E("engine", "table %u: stored record does not decode", id);
        return KD_ERR_STORE;
    }
    return KD_OK;
}

kd_err kd_table_exists(kd_txn *c, uint32_t id, int *exists)
{
    uint8_t key[4];
    id_key(id, key);
    MDB_val k = kd_val(key, 4), v;
    int rc = mdb_get(c->txn, c->engine->store.tables, &k, &v);
    *exists = rc == 0;
    return rc == MDB_NOTFOUND ? KD_OK : kd_store_err(rc, "read table");
}

/* Writes `rec` as table `id` (NULL: deletes it) and marks it for the
 * digest; `before` (len 0: none) is the record it replaces, the effect's
 * undo. */
static kd_err table_put(kd_txn *c, uint32_t id, const Kdapp__Store__TableRecord *rec, const kd_buf *before,
                        int with_effect)
{
    uint8_t key[4], hash[KD_HASH_LEN];
    id_key(id, key);
    size_t n = rec ? kdapp__store__table_record__get_packed_size(rec) : 0;
    uint8_t *bytes = malloc(n ? n : 1);
    if (!bytes)
        return KD_ERR_NOMEM;
    if (rec)
        kdapp__store__table_record__pack(rec, bytes);
    kd_err err = rec ? kd_txn_put(c, c->engine->store.tables, key, 4, bytes, n, "write table")
                     : kd_txn_del(c, c->engine->store.tables, key, 4, "delete table");
    if (!err && with_effect)
        err = kd_txn_add_effect(c, id, KDAPP__STORE__EFFECT_KIND__EFFECT_TABLE, 0, before->data, before->len);
    if (!err) {
        memset(hash, 0, sizeof hash);
        if (rec)
            kd_sha256(bytes, n, hash);
        if (!(err = kd_buf_append(&c->table_marks, key, 4)))
            err = kd_buf_append(&c->table_marks, hash, sizeof hash);
    }
    free(bytes);
    return err;
}

kd_err kd_table_open(kd_txn *c, const Kdapp__EpisodeMessage *em, const kd_registry_entry *type,
                     const kd_participants *parts, uint32_t open, const kd_block_meta *meta, kd_tx_result *r)
{
    const Kdapp__NewEpisode *ne = em->new_episode;
    ProtobufCBinaryData keys[KD_MAX_PARTICIPANTS], none[KD_MAX_PARTICIPANTS];
    for (size_t i = 0; i < parts->count; i++) {
        keys[i].data = (uint8_t *)parts->keys[i].bytes;
        keys[i].len = open & (UINT32_C(1) << i) ? 0 : KD_PUBKEY_LEN;
        none[i].data = NULL;
        none[i].len = 0;
    }
    Kdapp__Store__TableRecord rec = KDAPP__STORE__TABLE_RECORD__INIT;
    rec.episode_type = (char *)type->ops->type_name;
    rec.n_participants = parts->count;
    rec.participants = keys;
    rec.params = ne->params;
    rec.n_seat_params = parts->count;
    rec.seat_params = none;
    rec.creation_daa = meta->daa;
    rec.deadline_daa = meta->daa + (ne->join_timeout ? ne->join_timeout : KD_TABLE_TIMEOUT_DEFAULT);
    rec.open_seats = open;
    kd_buf before;
    kd_buf_init(&before);
    kd_err err = table_put(c, em->episode_id, &rec, &before, 1);
    if (!err)
        r->applied = 1;
    return err;
}

/* Rejects `r` with `err` and the sentence (printf format); returns KD_OK. */
static kd_err refuse(kd_tx_result *r, kd_err err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static kd_err refuse(kd_tx_result *r, kd_err err, const char *fmt, ...)
{
    char detail[KD_DETAIL_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    kd_txn_reject(r, err, NULL, detail);
    return KD_OK;
}

/* Refuses a join or cancel at a table that takes none: absent, cancelled,
 * started or past its deadline. 1 when it may go on. */
static int table_usable(const Kdapp__Store__TableRecord *rec, uint32_t id, const kd_block_meta *meta, int joining,
                        kd_tx_result *r)
{
    if (!rec)
        refuse(r, KD_ERR_NOT_A_TABLE, "episode %u is not an open table (a creation with open seats makes one)", id);
    else if (rec->cancelled)
        refuse(r, KD_ERR_TABLE_CLOSED, "table %u was cancelled", id);
    else if (rec->started)
        refuse(r, KD_ERR_TABLE_CLOSED, "table %u is full: its game has started", id);
    else if (joining && meta->daa > rec->deadline_daa)
        refuse(r, KD_ERR_TABLE_CLOSED, "table %u closed at DAA score %llu, unfilled (this block is at %llu)", id,
               (unsigned long long)rec->deadline_daa, (unsigned long long)meta->daa);
    else
        return 1;
    return 0;
}

/* Whether `key` sits at the table (named at creation or joined). */
static int seated(const Kdapp__Store__TableRecord *rec, const uint8_t *key)
{
    for (size_t i = 0; i < rec->n_participants; i++)
        if (rec->participants[i].len == KD_PUBKEY_LEN && memcmp(rec->participants[i].data, key, KD_PUBKEY_LEN) == 0)
            return 1;
    return 0;
}

/* The game the last join starts: the participants and the creation's
 * params followed by each seat's part, through the type's init. */
static kd_err table_start(kd_txn *c, uint32_t id, const kd_registry_entry *type, const Kdapp__Store__TableRecord *rec,
                          const kd_block_meta *meta, const ProtobufCBinaryData *override, kd_tx_result *r,
                          kd_buf *effective, int *ok)
{
    kd_participants parts = {.count = rec->n_participants};
    for (size_t i = 0; i < rec->n_participants; i++)
        memcpy(parts.keys[i].bytes, rec->participants[i].data, KD_PUBKEY_LEN);
    kd_buf params;
    kd_buf_init(&params);
    kd_err err = kd_buf_append(&params, rec->params.data, rec->params.len);
    for (size_t i = 0; !err && i < rec->n_seat_params; i++)
        err = kd_buf_append(&params, rec->seat_params[i].data, rec->seat_params[i].len);
    if (!err)
        err = kd_apply_start(c, id, type, &parts, params.data, params.len, override, meta, r, effective, ok);
    kd_buf_fini(&params);
    return err;
}

kd_err kd_table_join(kd_txn *c, const Kdapp__EpisodeMessage *em, const kd_block_meta *meta,
                     const ProtobufCBinaryData *override, int trusted, kd_tx_result *r, kd_buf *effective)
{
    const Kdapp__JoinEpisode *j = em->join;
    uint32_t id = em->episode_id;
    Kdapp__Store__TableRecord *rec = NULL;
    kd_buf before;
    kd_buf_init(&before);
    kd_err err = table_get(c, id, &rec, &before);
    if (err || !table_usable(rec, id, meta, 1, r))
        goto done;
    const kd_registry_entry *type = kd_registry_find(c->engine->registry, rec->episode_type);
    if (!type) {
        err = refuse(r, KD_ERR_UNKNOWN_TYPE, "table %u is of type '%.64s', which this engine does not know", id,
                     rec->episode_type);
        goto done;
    }
    if (j->seat >= rec->n_participants || j->seat >= rec->n_seat_params ||
        !(rec->open_seats & (UINT32_C(1) << j->seat)) || rec->participants[j->seat].len) {
        err = refuse(r, KD_ERR_SEAT_TAKEN, "seat %u of table %u is not open (%zu seats; open and free: mask 0x%x)",
                     j->seat, id, rec->n_participants, rec->open_seats);
        goto done;
    }
    kd_pubkey pk;
    if (j->pubkey.len != KD_PUBKEY_LEN ||
        (memcpy(pk.bytes, j->pubkey.data, KD_PUBKEY_LEN), kd_pubkey_check(&pk) != KD_OK)) {
        err = refuse(r, KD_ERR_BAD_PUBKEY, "the joiner's key (%zu bytes) is not a valid compressed secp256k1 key",
                     j->pubkey.len);
        goto done;
    }
    if (seated(rec, pk.bytes)) {
        err = refuse(r, KD_ERR_ALREADY_SEATED, "that key already sits at table %u: a key takes one seat", id);
        goto done;
    }
    if (!trusted) {
        uint8_t digest[KD_HASH_LEN];
        kd_join_digest(c->engine->chain, id, rec->episode_type, j->seat, &pk, rec->params.data, rec->params.len,
                       j->params.data, j->params.len, digest);
        if (kd_sig_verify(&pk, digest, j->signature.data, j->signature.len) != KD_OK) {
            err = refuse(r, KD_ERR_BAD_SIGNATURE,
                         "the join of seat %u does not verify with the joiner's key over table %u on chain %s "
                         "(type, params, seat, its own part): made for another key, table or chain",
                         j->seat, id, c->engine->chain);
            goto done;
        }
    }
    kd_reject rej = {{0}, {0}};
    kd_err bad = type->ops->join_params ? type->ops->join_params((int)j->seat, j->params.data, j->params.len, &rej)
                 : j->params.len
                     ? kd_reject_say(&rej, KD_ERR_BAD_PARAMS, "a %s seat brings no params of its own, got %zu bytes",
                                     rec->episode_type, j->params.len)
                     : KD_OK;
    if (bad) {
        kd_txn_reject(r, bad, kd_reject_code(bad, &rej), rej.detail);
        goto done;
    }
    /* the record after: the seat taken (its own empty bytes kept for free_unpacked) */
    ProtobufCBinaryData was_key = rec->participants[j->seat], was_params = rec->seat_params[j->seat];
    rec->participants[j->seat] = j->pubkey;
    rec->seat_params[j->seat] = j->params;
    rec->joined++;
    int full = 1;
    for (size_t i = 0; i < rec->n_participants; i++)
        full &= rec->participants[i].len == KD_PUBKEY_LEN;
    if (full) {
        int ok;
        if ((err = table_start(c, id, type, rec, meta, override, r, effective, &ok)) || !ok)
            goto restore; /* the type refused the game: the join changes nothing */
        rec->started = 1;
    }
    if (!(err = table_put(c, id, rec, &before, 1)))
        r->applied = 1;
restore:
    rec->participants[j->seat] = was_key;
    rec->seat_params[j->seat] = was_params;
done:
    if (rec)
        kdapp__store__table_record__free_unpacked(rec, NULL);
    kd_buf_fini(&before);
    return err;
}

kd_err kd_table_cancel(kd_txn *c, const Kdapp__EpisodeMessage *em, const kd_block_meta *meta, int trusted,
                       kd_tx_result *r)
{
    const Kdapp__CancelTable *x = em->cancel;
    uint32_t id = em->episode_id;
    Kdapp__Store__TableRecord *rec = NULL;
    kd_buf before;
    kd_buf_init(&before);
    kd_err err = table_get(c, id, &rec, &before);
    if (err || !table_usable(rec, id, meta, 0, r))
        goto done;
    if (rec->joined) {
        err = refuse(r, KD_ERR_TABLE_JOINED, "%u of table %u's seats have been taken: it can no longer be cancelled",
                     rec->joined, id);
        goto done;
    }
    if (x->pubkey.len != KD_PUBKEY_LEN || !seated(rec, x->pubkey.data)) {
        err = refuse(r, KD_ERR_DENIED, "only a seat named at table %u's creation may cancel it", id);
        goto done;
    }
    kd_pubkey pk;
    memcpy(pk.bytes, x->pubkey.data, KD_PUBKEY_LEN);
    uint8_t digest[KD_HASH_LEN];
    kd_cancel_digest(c->engine->chain, id, rec->episode_type, digest);
    if (!trusted && kd_sig_verify(&pk, digest, x->signature.data, x->signature.len) != KD_OK) {
        err = refuse(r, KD_ERR_BAD_SIGNATURE, "the cancel of table %u does not verify with its key on chain %s", id,
                     c->engine->chain);
        goto done;
    }
    rec->cancelled = 1;
    if (!(err = table_put(c, id, rec, &before, 1)))
        r->applied = 1;
done:
    if (rec)
        kdapp__store__table_record__free_unpacked(rec, NULL);
    kd_buf_fini(&before);
    return err;
}

kd_err kd_table_revert(kd_txn *c, const Kdapp__Store__Effect *fx)
{
    if (!fx->undo.len)
        return table_put(c, fx->episode_id, NULL, NULL, 0);
    Kdapp__Store__TableRecord *rec = kdapp__store__table_record__unpack(NULL, fx->undo.len, fx->undo.data);
    if (!rec) {
        KD_LOG_E("engine", "revert: table %u's record before does not decode", fx->episode_id);
        return KD_ERR_STORE;
    }
    kd_err err = table_put(c, fx->episode_id, rec, NULL, 0);
    kdapp__store__table_record__free_unpacked(rec, NULL);
    return err;
}
