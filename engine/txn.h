/*
 * txn.h — one write transaction of the writer (internal to engine/): the
 * working set of episodes it touches, the undo arena, the events for the
 * listener, and the writes every commit makes (log entry, block record,
 * meta, metrics). apply.c (accepting) and revert.c (reverting) build on it.
 *
 * Why a working set: a block may touch an episode many times (100 moves
 * across a handful of games). Each touched episode is decoded once,
 * mutated in memory move by move, and written back once before the
 * commit; only the undo records are written per move. The same working set
 * feeds the commit listener, so views are built from the state that was
 * committed, without a second read.
 *
 * Writer thread only. Every function returning kd_err leaves the
 * transaction to be aborted by kd_txn_fini on error.
 *
 * Ownership of the working set and the buffers (the rules every step in
 * apply.c and revert.c keeps):
 *
 *   entries   c->eps holds one kd_txn_episode per episode touched, added
 *             by kd_txn_add (a creation) or kd_txn_get (loaded from the
 *             store). Only the step that has just added an entry may drop
 *             it, and only while it is still the last one and nothing
 *             refers to it (no event, no effect, not dirty): kd_txn_get
 *             when the stored state does not decode, apply_create when
 *             the type refuses the creation (free(ep->state); n_eps--).
 *             Nothing else drops an entry: a deleted episode stays, with
 *             `deleted` set, so the flush deletes it and the listener
 *             hears of it.
 *   pointers  a kd_txn_episode * is valid until the next kd_txn_add or
 *             kd_txn_get (the array grows by realloc) or kd_txn_flush
 *             (it sorts the array by id): hold one within a step, find
 *             it again by id (kd_txn_find) after. That is why events and
 *             effects name episodes by id. ep->state is a separate
 *             allocation owned by its entry: it stays put until
 *             kd_txn_fini (or the drop above) frees it.
 *   arena     undo records and command copies live in c->arena at
 *             offsets (kd_txn_arena_reserve), which stay valid across
 *             growth; c->arena.data + off is valid only until the next
 *             reserve. Only the newest reservation may be given back
 *             (apply_command, on a rejected command: arena.len = off).
 *   events    kd_txn_add_event's pointer is valid until the next
 *             kd_txn_add_event; events and effects are only appended.
 *   scratch   c->scratch is shared by the steps (encodings, the state
 *             copy of kd_rules_execute, metrics): its contents are the
 *             last user's and valid until the next use.
 *   reads     an MDB_val from mdb_get points into the map: valid until
 *             the next put or delete of this transaction, so decode what
 *             is read before writing (revert_effect decodes the undo
 *             record before deleting it).
 *
 * Across commit and abort: kd_txn_commit ends the LMDB transaction and
 * releases the map lock but keeps the working set, events and arena, so
 * the listener (kd_txn_dispatch) sees the states that were committed;
 * kd_txn_fini frees them. On any error the transaction is aborted by
 * kd_txn_fini and everything in the kd_txn is thrown away with it: a
 * retry (a grown map) begins a new kd_txn and decides everything again.
 * The engine's cached tip and metrics change only in kd_txn_commit, after
 * a successful commit, so an abort leaves the engine as it was (except
 * the duplicate counter, which is carried to the next commit).
 */
#ifndef KD_ENGINE_TXN_H
#define KD_ENGINE_TXN_H

#include "engine/crypto.h"
#include "engine/engine_internal.h"
#include "kdapp.pb-c.h"
#include "store.pb-c.h"

typedef struct {
    uint32_t id;
    const kd_registry_entry *type;
    kd_participants participants;
    uint64_t creation_daa;
    uint8_t created_in[KD_HASH_LEN];
    uint64_t undo_depth;
    uint64_t slot; /* its key in `states` (store.h); 0 for an episode created in this transaction */
    void *state;
    int dirty, deleted;
    kd_event_kind last_event;
} kd_txn_episode;

typedef struct {
    kd_event_kind kind;
    uint32_t episode_id;
    size_t command_off; /* into kd_txn.arena (the message is freed per tx) */
    size_t command_len;
    int has_signer;
    kd_pubkey signer;
    int has_undo;
    size_t undo_off; /* into kd_txn.arena */
} kd_txn_event;

typedef struct {
    kd_engine *engine;
    MDB_txn *txn;
    int map_held; /* the engine's map lock, shared, from begin to commit or abort */
    kd_txn_episode *eps;
    size_t n_eps, cap_eps;
    kd_txn_event *events;
    size_t n_events, cap_events;
    kd_buf arena;
    Kdapp__Store__Effect *effects;
    size_t n_effects, cap_effects;
    size_t *undo_offs; /* [n_effects]: where each effect's undo record starts in undo_enc */
    size_t cap_undo_offs;
    kd_buf undo_enc; /* the encoded undo records of the effects, back to back */
    kd_buf scratch;
    uint64_t next_slot; /* the slot of the next creation; 0 until the first is written */
    kd_buf table_marks; /* per open table written: id (u32 BE) || SHA-256(record), for the digest (table.c) */
    /* Part of a batch (revert.c, kd_engine_ingest_reverts): `txn` is the
     * batch's, which kd_txn_commit leaves open and kd_txn_fini never
     * aborts; kd_txn_dispatch is kept for kd_txn_dispatch_due, after the
     * batch's commit. */
    int batched;
    struct {
        int due, reverted;
        uint8_t block[KD_HASH_LEN];
        uint64_t daa, time_ms, seq;
        const kd_msg_result *res;
        kd_tip tip; /* the engine's tip after this transaction's writes */
    } deferred;
} kd_txn;

typedef struct {
    int has_tip;
    uint8_t tip[KD_HASH_LEN];
    uint64_t height;
    uint8_t digest[KD_HASH_LEN];
} kd_chain_pos;

/* Fills a rejected tx result: `code` is the short code it is stored and
 * sent under (kd_reject_code: a type's rule code for KD_ERR_RULE; NULL:
 * kd_err_code(err)), `detail` the sentence (NULL or "": the error's
 * message). */
void kd_txn_reject(kd_tx_result *r, kd_err err, const char *code, const char *detail);
/* Grows *arr (elements of `elem` bytes) to hold `need`. */
kd_err kd_grow_array(void **arr, size_t *cap, size_t need, size_t elem) KD_WARN_UNUSED;

void kd_txn_init(kd_txn *c, kd_engine *engine);
/* Begins the write transaction, holding the engine's map lock shared
 * until it commits or aborts (engine_internal.h). */
kd_err kd_txn_begin(kd_txn *c) KD_WARN_UNUSED;
/* Frees everything; aborts the transaction unless it was committed. */
void kd_txn_fini(kd_txn *c);
/* mdb_put / mdb_del (a missing key is fine) with the error translated. */
kd_err kd_txn_put(kd_txn *c, MDB_dbi dbi, const void *k, size_t klen, const void *v, size_t vlen,
                  const char *what) KD_WARN_UNUSED;
kd_err kd_txn_del(kd_txn *c, MDB_dbi dbi, const void *k, size_t klen, const char *what) KD_WARN_UNUSED;
/* kd_txn_put with mdb_put's flags (MDB_APPEND: the key is past the last). */
kd_err kd_txn_put_flags(kd_txn *c, MDB_dbi dbi, const void *k, size_t klen, const void *v, size_t vlen, unsigned flags,
                        const char *what) KD_WARN_UNUSED;
/* Records an event for the listener / an effect for the block record. */
kd_err kd_txn_add_event(kd_txn *c, kd_event_kind kind, uint32_t id, kd_txn_event **out) KD_WARN_UNUSED;
/* A command's effect carries its encoded undo record (`undo`, `undo_len`
 * bytes, copied); a creation's none (NULL, 0). The effects' undo.data
 * point into c->undo_enc only after kd_txn_effects_fix. */
kd_err kd_txn_add_effect(kd_txn *c, uint32_t id, Kdapp__Store__EffectKind kind, uint64_t depth, const uint8_t *undo,
                         size_t undo_len) KD_WARN_UNUSED;
/* Points each effect's undo at its bytes (valid until the next
 * kd_txn_add_effect or kd_txn_fini). */
void kd_txn_effects_fix(kd_txn *c);
/* Reserves `size` zeroed bytes in the arena at an offset aligned to
 * KD_RECORD_ALIGN (an undo record may be any struct); the offset stays valid. */
kd_err kd_txn_arena_reserve(kd_txn *c, size_t size, size_t *off) KD_WARN_UNUSED;

/* The working set: find (NULL when absent), add a new episode, or get one
 * (loading it; KD_ERR_NOT_FOUND when it does not exist or was deleted). */
kd_txn_episode *kd_txn_find(kd_txn *c, uint32_t id);
kd_err kd_txn_add(kd_txn *c, uint32_t id, const kd_registry_entry *type, kd_txn_episode **out) KD_WARN_UNUSED;
kd_err kd_txn_get(kd_txn *c, uint32_t id, kd_txn_episode **out) KD_WARN_UNUSED;
/* Writes every dirty episode back (or deletes it) in id order, extending
 * `digest` with each one's id and state hash. */
kd_err kd_txn_flush(kd_txn *c, kd_sha256_ctx *digest, const uint8_t *block, uint64_t seq) KD_WARN_UNUSED;

/* Notes log entry `seq` in `history` (store.h) under every episode the
 * transaction changed (dirty in the working set: created, moved, rolled
 * back or deleted), as `kind` (KD_HISTORY_ACCEPT or _REVERT). After
 * kd_txn_flush, which gives new episodes their slots. */
kd_err kd_txn_write_history(kd_txn *c, uint64_t seq, uint8_t kind) KD_WARN_UNUSED;

/* The writes of every commit. */
kd_err kd_txn_write_meta(kd_txn *c, const kd_chain_pos *pos, uint64_t next_seq, kd_metrics *m) KD_WARN_UNUSED;
kd_err kd_txn_write_log(kd_txn *c, uint64_t seq, Kdapp__Store__LogEntry *entry) KD_WARN_UNUSED;
/* Block records; read_block: KD_ERR_NOT_FOUND when absent, *out freed by
 * the caller with kdapp__store__block_record__free_unpacked. */
kd_err kd_txn_read_block(kd_txn *c, const uint8_t *hash, Kdapp__Store__BlockRecord **out) KD_WARN_UNUSED;
kd_err kd_txn_write_block(kd_txn *c, const uint8_t *hash, const Kdapp__Store__BlockRecord *rec) KD_WARN_UNUSED;
void kd_chain_pos_of(const kd_tip *tip, kd_chain_pos *pos);
/* Commits (synced), then adopts the new tip and metrics in the engine; a
 * batched transaction only adopts them (the batch commits). */
kd_err kd_txn_commit(kd_txn *c, const kd_chain_pos *pos, uint64_t seq, const kd_metrics *m) KD_WARN_UNUSED;
/* The last writes of every event, then the commit: the log entry at
 * `seq`, the meta (tip `pos`, next seq, metrics `m`, whose commit time is
 * set here), kd_txn_commit. */
kd_err kd_txn_log_and_commit(kd_txn *c, uint64_t seq, Kdapp__Store__LogEntry *entry, const kd_chain_pos *pos,
                             kd_metrics *m) KD_WARN_UNUSED;
/* Tells the commit listener what the committed transaction did (a
 * batched one: after the batch's commit, kd_txn_dispatch_due; `res` must
 * live until then). */
void kd_txn_dispatch(kd_txn *c, int reverted, const uint8_t *block, uint64_t daa, uint64_t time_ms, uint64_t seq,
                     const kd_msg_result *res);
/* The dispatch a batched transaction kept, if any. */
void kd_txn_dispatch_due(kd_txn *c);
/* Logs a refused chain event (nothing else changes) and commits. */
kd_err kd_txn_refuse(kd_txn *c, const uint8_t *msg, size_t len, kd_err why, const char *detail,
                     kd_msg_result *res) KD_WARN_UNUSED;

/* Creates episode `id` of `type` with `parts` from `params` (or the
 * replayed `override`) in the working set, with its CREATE effect and
 * INITIALIZE event (apply.c): a creation, or an open table's last join.
 * *ok = 0 with r rejected when the type refuses (nothing changed).
 * Errors: storage, KD_ERR_NOMEM. */
kd_err kd_apply_start(kd_txn *c, uint32_t id, const kd_registry_entry *type, const kd_participants *parts,
                      const uint8_t *params, size_t len, const ProtobufCBinaryData *override, const kd_block_meta *meta,
                      kd_tx_result *r, kd_buf *effective, int *ok) KD_WARN_UNUSED;

/* Reverts the tip block `br` names (revert.c). */
kd_err kd_txn_revert_block(kd_txn *c, const Kdapp__BlockReverted *br, const uint8_t *msg, size_t len,
                           kd_msg_result *res) KD_WARN_UNUSED;

#endif
