/*
 * revert.c — reverting the tip block: its effects are undone newest first
 * (a command pops its undo record and rolls the state back; a creation
 * deletes the episode), the parent becomes the tip and its digest comes
 * back. A revert that does not name the tip, names an unknown block, or
 * reaches a block beyond the finality depth is refused and changes
 * nothing; a revert re-delivered after it was applied is a duplicate.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/crashpoint.h"
#include "engine/logger.h"
#include "engine/netutil.h"
#include "engine/txn.h"

/* ------------------------------------------------------------- reverting */

static kd_err revert_effect(kd_txn *c, const Kdapp__Store__Effect *fx)
{
    kd_txn_episode *ep;
    kd_err err = kd_txn_get(c, fx->episode_id, &ep);
    if (err) {
        KD_LOG_E("engine", "revert: episode %u of an applied block is missing", fx->episode_id);
        return err == KD_ERR_NOT_FOUND ? KD_ERR_STORE : err;
    }
    kd_txn_event *ev;
    if (fx->kind == KDAPP__STORE__EFFECT_KIND__EFFECT_CREATE) {
        if (ep->undo_depth != 0) {
            KD_LOG_E("engine", "revert: episode %u still has %llu commands at its creation", ep->id,
                     (unsigned long long)ep->undo_depth);
            return KD_ERR_STORE;
        }
        ep->deleted = 1;
        ep->dirty = 1;
        return kd_txn_add_event(c, KD_EVENT_ROLLBACK, ep->id, &ev);
    }
    if (fx->undo_depth != ep->undo_depth) {
        KD_LOG_E("engine", "revert: episode %u is at depth %llu, block expects %llu", ep->id,
                 (unsigned long long)ep->undo_depth, (unsigned long long)fx->undo_depth);
        return KD_ERR_STORE;
    }
    const kd_episode_ops *ops = ep->type->ops;
    uint8_t key[KD_UNDO_KEY_LEN];
    kd_undo_key(key, ep->id, ep->undo_depth);
    MDB_val k = kd_val(key, sizeof key), v;
    if ((err = kd_store_err(mdb_get(c->txn, c->engine->store.undo, &k, &v), "read undo")))
        return err == KD_ERR_NOT_FOUND ? KD_ERR_STORE : err;
    size_t off;
    if ((err = kd_txn_arena_reserve(c, ops->undo_size, &off)))
        return err;
    if (ops->decode_undo(v.mv_data, v.mv_size, c->arena.data + off) != KD_OK) {
        KD_LOG_E("engine", "revert: undo record (%u, %llu) does not decode", ep->id,
                 (unsigned long long)ep->undo_depth);
        return KD_ERR_STORE;
    }
    if (ops->rollback(ep->state, c->arena.data + off) != KD_OK) {
        KD_LOG_E("engine", "revert: undo record (%u, %llu) does not fit the episode's state", ep->id,
                 (unsigned long long)ep->undo_depth);
        return KD_ERR_STORE;
    }
    if ((err = kd_txn_del(c, c->engine->store.undo, key, sizeof key, "delete undo")))
        return err;
    ep->undo_depth--;
    ep->dirty = 1;
    ep->last_event = KD_EVENT_ROLLBACK;
    if ((err = kd_txn_add_event(c, KD_EVENT_ROLLBACK, ep->id, &ev)))
        return err;
    ev->has_undo = 1;
    ev->undo_off = off;
    return KD_OK;
}

kd_err kd_txn_revert_block(kd_txn *c, const Kdapp__BlockReverted *br, const uint8_t *msg, size_t len,
                           kd_msg_result *res)
{
    KD_CRASHPOINT("before_put"); /* crash test: transaction open, nothing written */
    kd_engine *e = c->engine;
    char detail[KD_DETAIL_MAX], h[2 * KD_HASH_LEN + 1], t[2 * KD_HASH_LEN + 1];
    res->reverted = 1;
    if (br->accepting_hash.len != KD_HASH_LEN) {
        snprintf(detail, sizeof detail, "accepting_hash is %zu bytes, not 32", br->accepting_hash.len);
        return kd_txn_refuse(c, msg, len, KD_ERR_BAD_HASH, detail, res);
    }
    const uint8_t *hash = br->accepting_hash.data;
    memcpy(res->block_hash, hash, KD_HASH_LEN);
    kd_hex_encode(hash, KD_HASH_LEN, h);
    Kdapp__Store__BlockRecord *rec = NULL, *parent = NULL;
    kd_err err = kd_txn_read_block(c, hash, &rec);
    if (err == KD_ERR_NOT_FOUND) {
        MDB_val k = kd_val(hash, KD_HASH_LEN), v;
        int rc = mdb_get(c->txn, e->store.reverted, &k, &v);
        if (rc == 0) { /* re-delivered after it was reverted: acknowledge again */
            res->status = KD_MSG_DUPLICATE;
            e->metrics.duplicates++;
            e->metrics_unsaved = 1;
            return KD_OK;
        }
        if (rc != MDB_NOTFOUND)
            return kd_store_err(rc, "read reverted");
        snprintf(detail, sizeof detail, "block %s is not applied; nothing to revert", h);
        return kd_txn_refuse(c, msg, len, KD_ERR_UNKNOWN_BLOCK, detail, res);
    }
    if (err)
        return err;
    if (!e->tip.has_tip || memcmp(e->tip.hash, hash, KD_HASH_LEN) != 0) {
        kd_hex_encode(e->tip.hash, KD_HASH_LEN, t);
        snprintf(detail, sizeof detail, "block %s is not the tip; revert the tip %s first", h, t);
        err = kd_txn_refuse(c, msg, len, KD_ERR_NOT_TIP, detail, res);
        goto done;
    }
    if (rec->final) {
        snprintf(detail, sizeof detail,
                 "block %s is beyond the finality depth (%llu blocks): its undo records were "
                 "pruned; a re-sync is needed",
                 h, (unsigned long long)e->finality);
        err = kd_txn_refuse(c, msg, len, KD_ERR_BEYOND_FINALITY, detail, res);
        goto done;
    }
    uint64_t seq = e->next_seq;
    for (size_t i = rec->n_effects; i-- > 0;)
        if ((err = revert_effect(c, rec->effects[i])))
            goto done;
    kd_chain_pos pos = {0};
    if (rec->parent.len == KD_HASH_LEN) {
        if ((err = kd_txn_read_block(c, rec->parent.data, &parent))) {
            err = err == KD_ERR_NOT_FOUND ? KD_ERR_STORE : err;
            goto done;
        }
        pos.has_tip = 1;
        memcpy(pos.tip, rec->parent.data, KD_HASH_LEN);
        if (parent->digest.len == KD_HASH_LEN)
            memcpy(pos.digest, parent->digest.data, KD_HASH_LEN);
    }
    pos.height = rec->height - 1;
    /* Touch the working set so deleted/rolled-back episodes are written. */
    kd_sha256_ctx unused;
    if ((err = kd_sha256_init(&unused))) {
        kd_sha256_fini(&unused);
        goto done;
    }
    err = kd_txn_flush(c, &unused, hash, seq);
    kd_sha256_fini(&unused);
    if (err)
        goto done;
    uint8_t hkey[8];
    kd_put_u64be(hkey, rec->height);
    uint8_t seq_be[8];
    kd_put_u64be(seq_be, seq);
    if ((err = kd_txn_del(c, e->store.blocks, hash, KD_HASH_LEN, "delete block")) ||
        (err = kd_txn_del(c, e->store.heights, hkey, 8, "delete height")) ||
        (err = kd_txn_put(c, e->store.reverted, hash, KD_HASH_LEN, seq_be, 8, "mark reverted")))
        goto done;
    Kdapp__Store__LogEntry entry = KDAPP__STORE__LOG_ENTRY__INIT;
    entry.message.data = (uint8_t *)msg;
    entry.message.len = len;
    entry.status = KDAPP__MSG_STATUS__MSG_APPLIED;
    entry.digest.data = pos.digest;
    entry.digest.len = KD_HASH_LEN;
    entry.tip_height = pos.height;
    kd_metrics m = e->metrics;
    size_t undone = 0;
    for (size_t i = 0; i < rec->n_effects; i++)
        undone += rec->effects[i]->kind == KDAPP__STORE__EFFECT_KIND__EFFECT_COMMAND;
    m.blocks_reverted++;
    m.revert_streak++;
    kd_histogram_observe(&m.hist[KD_HIST_UNDO_PER_REVERT], KD_HIST_UNDO_PER_REVERT, undone);
    m.tip_time_ms = parent ? parent->time : 0;
    if ((err = kd_txn_write_log(c, seq, &entry)) || (err = kd_txn_write_meta(c, &pos, seq + 1, &m)) ||
        (err = kd_txn_commit(c, &pos, seq, &m)))
        goto done;
    res->status = KD_MSG_APPLIED;
    res->log_seq = seq;
    KD_LOG_D("engine", "reverted block %.16s (%zu effects)", h, rec->n_effects);
    kd_txn_dispatch(c, 1, hash, rec->daa, rec->time, seq, res);
    KD_CRASHPOINT("after_apply"); /* crash test: committed and dispatched, no reply yet */
done:
    if (rec)
        kdapp__store__block_record__free_unpacked(rec, NULL);
    if (parent)
        kdapp__store__block_record__free_unpacked(parent, NULL);
    return err;
}
