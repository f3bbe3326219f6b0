/*
 * store.h — the LMDB environment behind an engine (internal to engine/).
 *
 * One environment, named databases:
 *
 *   log       u64 BE seq            -> LogEntry (store.proto): each message as received + outcome
 *   blocks    block hash (32)       -> BlockRecord: log seq, height, parent, digest, effects
 *   heights   u64 BE height         -> block hash of the applied block at that height (unpruned window)
 *   episodes  u32 BE id             -> EpisodeRecord: type, participants, state, undo depth
 *   undo      u32 BE id + u64 BE d  -> the type's encoded undo record of the d-th command
 *   reverted  block hash (32)       -> u64 BE log seq of the revert (until re-applied),
 *                                      so a revert re-sent after a crash is a duplicate
 *   meta      name                  -> schema, store_id, finality, tip, height, digest, next_seq
 *
 * A writable store holds an exclusive lock file (DIR/lock) naming the owner
 * process, so one daemon serves one data directory; read-only stores (the
 * gateway attached to a running daemon) take no lock and keep read
 * transactions short.
 */
#ifndef KD_ENGINE_STORE_H
#define KD_ENGINE_STORE_H

#include <lmdb.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/err.h"

/* 2: meta holds the store id (store_id); 1 had none. */
#define KD_SCHEMA_VERSION 2u
#define KD_UNDO_KEY_LEN 12

typedef enum {
    KD_DURABILITY_SYNC = 0,    /* every commit synced before it returns (default) */
    KD_DURABILITY_RELAXED = 1, /* MDB_NOMETASYNC: the last commit may be lost, never corrupted */
} kd_durability;

typedef struct {
    MDB_env *env;
    MDB_dbi log, blocks, heights, episodes, undo, reverted, meta;
    int lock_fd; /* -1 for read-only stores */
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

void kd_undo_key(uint8_t key[KD_UNDO_KEY_LEN], uint32_t episode_id, uint64_t depth);

#endif
