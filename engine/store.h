/*
 * store.h — the LMDB environment behind an engine (internal to engine/).
 *
 * One environment, named databases:
 *
 *   log       u64 BE seq            -> LogEntry (store.proto): each message as received + outcome
 *   blocks    block hash (32)       -> BlockRecord: log seq, height, parent, digest, effects
 *                                      with the undo records of its commands (until final)
 *   heights   u64 BE height         -> block hash of the applied block at that height (unpruned window)
 *   ids       u32 BE episode id     -> u64 BE slot of the episode in `states`
 *   states    u64 BE slot           -> EpisodeRecord: type, participants, state, undo depth
 *   reverted  block hash (32)       -> u64 BE log seq of the revert (until re-applied),
 *                                      so a revert re-sent after a crash is a duplicate
 *   history   u64 BE slot ‖ u64 BE seq -> 1 byte, KD_HISTORY_ACCEPT or _REVERT: the log
 *                                      entries that changed the episode in that slot
 *   meta      name                  -> schema, store_id, finality, tip, height, digest, next_seq
 *
 * Why a slot (schema 3): episode ids are chosen by whoever creates the
 * episode (the gateway draws them at random), so records keyed by id put
 * the games being played all over the tree, and a block of moves dirtied
 * a leaf page per game, pages that lie far apart in a large file (each
 * written on its own by a synced commit). A slot follows creation order
 * (the last slot + 1), so the newest episodes, the live ones, share leaf
 * pages at the end of `states` however their ids fall; `ids` is written
 * only when an episode is created or deleted, and only read by moves.
 *
 * Why `history` (schema 4): an episode's own log entries, found without
 * reading the rest of the log. An audit used to walk the whole canonical
 * chain and decode every block on it, so each one cost the whole log
 * (issue 37, R6: 16 audits at once took a granted agent's call from 2 ms
 * to 3.9 s); through the index it reads the episode's entries only. The
 * index is written in the write transaction of the log entry it names:
 * an accept that applied at least one transaction of the episode (its
 * creation included), and a revert of a block that changed it. Keyed by
 * slot, not by id, for the reason above: the live games' newest entries
 * share leaf pages. A slot freed by a reverted creation (only the last
 * one is ever taken again) goes on with the next episode's entries after
 * the old one's, which are all accepts of blocks no longer applied by
 * them: a reader that wants the canonical chain checks that an accept's
 * block is still applied at that log position (kd_read_block_seq).
 *
 * A writable store holds an exclusive lock file (DIR/lock) naming the owner
 * process, so one daemon serves one data directory; read-only stores (the
 * gateway attached to a running daemon) hold DIR/readers.lock shared, which
 * only kd_store_compact takes exclusively, and keep read transactions short.
 */
#ifndef KD_ENGINE_STORE_H
#define KD_ENGINE_STORE_H

#include <lmdb.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/err.h"

/* 4: the index `history` (kd_store_migrate_3_to_4 builds it from the log);
 * 3: episodes in `states` by slot with the index `ids`, undo records in
 * the block records (2 had `episodes` by id and `undo`; kd_store_migrate
 * upgrades it); 2: meta holds the store id (store_id); 1 had none. */
#define KD_SCHEMA_VERSION 4u

/* The values of `history`: what the log entry did to the episode. */
#define KD_HISTORY_ACCEPT 1u /* applied a transaction of it (created it, or a command) */
#define KD_HISTORY_REVERT 2u /* reverted a block that changed it */

typedef enum {
    KD_DURABILITY_SYNC = 0,    /* every commit synced before it returns (default) */
    KD_DURABILITY_RELAXED = 1, /* MDB_NOMETASYNC: the last commit may be lost, never corrupted */
} kd_durability;

typedef struct {
    MDB_env *env;
    MDB_dbi log, blocks, heights, ids, states, reverted, meta, history, tables;
    int lock_fd;    /* DIR/lock, held exclusively by a writable store; -1 for read-only stores */
    int readers_fd; /* DIR/readers.lock, held shared by a read-only store; -1 for writable stores */
    int read_only;
    size_t map_size;
    size_t max_map_size;
    char dir[4096];
} kd_store;

typedef struct {
    const char *dir;
    int read_only;
    kd_durability durability;
    size_t map_size;     /* initial map; 0 = default (256 MiB) */
    size_t max_map_size; /* growth stops here; 0 = default (1 TiB) */
} kd_store_options;

/* Opens (creating when writable) the store in opts->dir. Errors:
 * KD_ERR_LOCKED (another process holds it; `why` names its pid),
 * KD_ERR_NOT_FOUND (read-only and nothing there), KD_ERR_IO, KD_ERR_STORE. */
kd_err kd_store_open(kd_store *store, const kd_store_options *opts, char *why, size_t why_len) KD_WARN_UNUSED;
/* Closes the environment and releases the lock. Accepts a zeroed store. */
void kd_store_close(kd_store *store);

/*
 * Compaction: in a store grown for long, the pages a commit writes lie far
 * apart in the file (the free pages it reuses are wherever earlier commits
 * freed them, and the trees' pages are in no order), and its synced
 * commit waits longer on them. A compacted copy has each tree's live pages
 * in order and no free list, so the next commits write at the end of the
 * file (tools/bench/README.md measures a move before and after).
 *
 * kd_store_compact rewrites DIR/data.mdb as LMDB's compacted copy
 * (MDB_CP_COMPACT): written to DIR/data.mdb.compacting, synced, renamed
 * over data.mdb. It needs the store to itself: no writer (DIR/lock) and no
 * reader (DIR/readers.lock), else KD_ERR_LOCKED with `why` saying which;
 * readers that try to open meanwhile are refused the same way. The copy
 * needs free disk space for the live pages (KD_ERR_NO_SPACE, with the old
 * file untouched). Errors also: KD_ERR_NOT_FOUND (no data.mdb), KD_ERR_IO,
 * KD_ERR_STORE. Contents, log and digest are unchanged.
 */
typedef struct {
    uint64_t bytes_before, bytes_after; /* data.mdb's size */
} kd_store_compaction;
kd_err kd_store_compact(const char *dir, kd_store_compaction *out, char *why, size_t why_len) KD_WARN_UNUSED;

/* Changing the map size remaps the file under every transaction of the
 * process, so LMDB allows it only while none is open: the caller holds the
 * engine's map lock exclusively (engine/read.c). */

/* Doubles the map (up to max_map_size) after MDB_MAP_FULL. Errors:
 * KD_ERR_MAP_FULL when it cannot grow further. */
kd_err kd_store_grow(kd_store *store) KD_WARN_UNUSED;

/* Adopts the size another process grew the map to (after LMDB answered
 * MDB_MAP_RESIZED). */
kd_err kd_store_adopt_map(kd_store *store) KD_WARN_UNUSED;

/* Translates an LMDB return code (logging it with `what`). */
kd_err kd_store_err(int rc, const char *what);

static inline MDB_val kd_val(const void *data, size_t len)
{
    MDB_val v = {len, (void *)data};
    return v;
}

/* The slot of episode `id` (KD_ERR_NOT_FOUND when it does not exist), and
 * the slot after the last one (1 in an empty store). */
kd_err kd_store_slot_of(MDB_txn *txn, const kd_store *store, uint32_t id, uint64_t *slot) KD_WARN_UNUSED;
kd_err kd_store_next_slot(MDB_txn *txn, const kd_store *store, uint64_t *slot) KD_WARN_UNUSED;
/* Reads the record of block `hash` (32 bytes) into *out, which the caller
 * frees (kdapp__store__block_record__free_unpacked). Errors:
 * KD_ERR_NOT_FOUND (not applied), KD_ERR_STORE (it does not decode),
 * LMDB's translated. */
struct Kdapp__Store__BlockRecord;
kd_err kd_store_read_block(MDB_txn *txn, const kd_store *store, const uint8_t *hash,
                           struct Kdapp__Store__BlockRecord **out) KD_WARN_UNUSED;
/* Reads episode `id`'s record: *v points into the map (valid until the
 * next write of the transaction or its end). KD_ERR_NOT_FOUND when absent. */
kd_err kd_store_get_episode(MDB_txn *txn, const kd_store *store, uint32_t id, MDB_val *v) KD_WARN_UNUSED;

/* Upgrades a schema-2 store to schema 3 in the write transaction `txn`
 * (engine/migrate.c): each unpruned block record gets its undo records
 * from `undo`, each episode moves from `episodes` (by id) to `states` (a
 * slot in id order) and `ids`, and the two old databases are dropped.
 * Errors: KD_ERR_STORE (a record does not decode or an undo record is
 * missing: `why` says which), LMDB's translated. */
kd_err kd_store_migrate_2_to_3(MDB_txn *txn, kd_store *store, char *why, size_t why_len) KD_WARN_UNUSED;

/* Upgrades a schema-3 store to schema 4 in the write transaction `txn`
 * (engine/migrate.c): builds `history` from the log, for the episodes that
 * exist, from the entry that created each. Errors: KD_ERR_STORE (a record
 * or log entry does not decode, or the log pairs a revert with no block:
 * `why` says which), KD_ERR_NOMEM, LMDB's translated. */
kd_err kd_store_migrate_3_to_4(MDB_txn *txn, kd_store *store, char *why, size_t why_len) KD_WARN_UNUSED;

/* The key of `history` for (slot, seq). */
#define KD_HISTORY_KEY_LEN 16
void kd_store_history_key(uint64_t slot, uint64_t seq, uint8_t key[KD_HISTORY_KEY_LEN]);

#endif
