/* store.c — opening, locking and growing the LMDB environment. */
#include "engine/store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/bytes.h"
#include "engine/logger.h"
#include "store.pb-c.h"

#define DEFAULT_MAP_SIZE ((size_t)256 << 20)
#define MAX_MAP_SIZE ((size_t)1 << 40)

kd_err kd_store_err(int rc, const char *what)
{
    if (rc == MDB_SUCCESS)
        return KD_OK;
    if (rc == MDB_MAP_FULL) /* the map grows and the event is retried; kd_store_grow says when it may not */
        KD_LOG_D("store", "%s: %s (lmdb %d)", what, mdb_strerror(rc), rc);
    else
        KD_LOG_E("store", "%s: %s (lmdb %d)", what, mdb_strerror(rc), rc);
    switch (rc) {
    case MDB_NOTFOUND:
        return KD_ERR_NOT_FOUND;
    case MDB_MAP_FULL:
        return KD_ERR_MAP_FULL;
    case ENOMEM:
        return KD_ERR_NOMEM;
    case ENOSPC:
        return KD_ERR_NO_SPACE;
    case EIO:
        return KD_ERR_IO;
    default:
        return KD_ERR_STORE;
    }
}

kd_err kd_store_slot_of(MDB_txn *txn, const kd_store *store, uint32_t id, uint64_t *slot)
{
    uint8_t key[4];
    kd_put_u32be(key, id);
    MDB_val k = kd_val(key, 4), v;
    int rc = mdb_get(txn, store->ids, &k, &v);
    if (rc == MDB_NOTFOUND)
        return KD_ERR_NOT_FOUND;
    if (rc)
        return kd_store_err(rc, "read episode id");
    if (v.mv_size != 8) {
        KD_LOG_E("store", "episode %u: its slot is %zu bytes, not 8", id, v.mv_size);
        return KD_ERR_STORE;
    }
    *slot = kd_get_u64be(v.mv_data);
    return KD_OK;
}

kd_err kd_store_next_slot(MDB_txn *txn, const kd_store *store, uint64_t *slot)
{
    MDB_cursor *cur;
    MDB_val k, v;
    int rc = mdb_cursor_open(txn, store->states, &cur);
    if (rc)
        return kd_store_err(rc, "open states");
    rc = mdb_cursor_get(cur, &k, &v, MDB_LAST);
    mdb_cursor_close(cur);
    if (rc == MDB_NOTFOUND) {
        *slot = 1;
        return KD_OK;
    }
    if (rc)
        return kd_store_err(rc, "read the last slot");
    if (k.mv_size != 8) {
        KD_LOG_E("store", "a key of states is %zu bytes, not 8", k.mv_size);
        return KD_ERR_STORE;
    }
    *slot = kd_get_u64be(k.mv_data) + 1;
    return KD_OK;
}

void kd_store_history_key(uint64_t slot, uint64_t seq, uint8_t key[KD_HISTORY_KEY_LEN])
{
    kd_put_u64be(key, slot);
    kd_put_u64be(key + 8, seq);
}

kd_err kd_store_read_block(MDB_txn *txn, const kd_store *store, const uint8_t *hash, Kdapp__Store__BlockRecord **out)
{
    MDB_val k = kd_val(hash, 32), v;
    int rc = mdb_get(txn, store->blocks, &k, &v);
    *out = NULL;
    if (rc == MDB_NOTFOUND)
        return KD_ERR_NOT_FOUND;
    kd_err err = kd_store_err(rc, "read block");
    if (err)
        return err;
    if (!(*out = kdapp__store__block_record__unpack(NULL, v.mv_size, v.mv_data))) {
        KD_LOG_E("store", "a block record of %s does not decode", store->dir);
        return KD_ERR_STORE;
    }
    return KD_OK;
}

kd_err kd_store_get_episode(MDB_txn *txn, const kd_store *store, uint32_t id, MDB_val *v)
{
    uint64_t slot;
    kd_err err = kd_store_slot_of(txn, store, id, &slot);
    if (err)
        return err;
    uint8_t key[8];
    kd_put_u64be(key, slot);
    MDB_val k = kd_val(key, 8);
    int rc = mdb_get(txn, store->states, &k, v);
    if (rc == MDB_NOTFOUND) {
        KD_LOG_E("store", "episode %u: slot %llu is empty", id, (unsigned long long)slot);
        return KD_ERR_STORE;
    }
    return kd_store_err(rc, "read episode");
}

/* Opens DIR/`name` (creating it) and flocks it with `how` (LOCK_EX or
 * LOCK_SH, never waiting). *fd is -1 when the lock is held elsewhere
 * (KD_ERR_LOCKED, with the descriptor closed), or on KD_ERR_IO. */
static kd_err flock_file(const char *dir, const char *name, int how, int *fd, char *why, size_t why_len)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    *fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (*fd < 0) {
        snprintf(why, why_len, "cannot open lock file %s: %s", path, strerror(errno));
        return KD_ERR_IO;
    }
    if (flock(*fd, how | LOCK_NB) == 0)
        return KD_OK;
    int e = errno;
    close(*fd);
    *fd = -1;
    if (e == EWOULDBLOCK)
        return KD_ERR_LOCKED;
    snprintf(why, why_len, "cannot lock %s: %s", path, strerror(e));
    return KD_ERR_IO;
}

/* Takes DIR/lock exclusively and writes our pid into it. */
static kd_err take_lock(kd_store *store, char *why, size_t why_len)
{
    int fd;
    kd_err err = flock_file(store->dir, "lock", LOCK_EX, &fd, why, why_len);
    if (err == KD_ERR_LOCKED) {
        char path[4200], pid[32] = {0};
        snprintf(path, sizeof path, "%s/lock", store->dir);
        int rd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t n = rd >= 0 ? pread(rd, pid, sizeof pid - 1, 0) : -1;
        if (rd >= 0)
            close(rd);
        if (n > 0 && pid[n - 1] == '\n')
            pid[n - 1] = '\0';
        snprintf(why, why_len,
                 "data directory %s is in use by process %s: stop that process first (kill %s), or use another "
                 "data directory (--data DIR)",
                 store->dir, n > 0 ? pid : "(unknown)", n > 0 ? pid : "it");
    }
    if (err)
        return err;
    char pid[32];
    int len = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)len, 0) != len)
        KD_LOG_W("store", "cannot write pid into %s/lock: %s", store->dir, strerror(errno));
    store->lock_fd = fd;
    return KD_OK;
}

/* Takes DIR/readers.lock shared (a read-only store) or exclusively
 * (kd_store_compact, which must have no reader). */
static kd_err take_readers_lock(kd_store *store, int how, char *why, size_t why_len)
{
    kd_err err = flock_file(store->dir, "readers.lock", how, &store->readers_fd, why, why_len);
    if (err == KD_ERR_LOCKED && how == LOCK_SH)
        snprintf(why, why_len, "data directory %s is being compacted (kdapp compact): open it when that ends",
                 store->dir);
    else if (err == KD_ERR_LOCKED)
        snprintf(why, why_len,
                 "data directory %s is open for reading (a gateway attached with kdapp mcp, or another kdapp "
                 "command): stop it first",
                 store->dir);
    return err;
}

static kd_err open_dbs(kd_store *store, char *why, size_t why_len)
{
    static const char *const names[] = {"log",      "blocks", "heights", "ids",   "states",
                                        "reverted", "meta",   "history", "tables"};
    MDB_dbi *dbis[] = {&store->log,      &store->blocks, &store->heights, &store->ids,   &store->states,
                       &store->reverted, &store->meta,   &store->history, &store->tables};
    MDB_txn *txn = NULL;
    unsigned flags = store->read_only ? 0 : MDB_CREATE;
    int rc = mdb_txn_begin(store->env, NULL, store->read_only ? MDB_RDONLY : 0, &txn);
    if (rc)
        goto fail;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        rc = mdb_dbi_open(txn, names[i], flags, dbis[i]);
        /* A schema-2 store has none of the three, a schema-3 store no
         * history: a reader leaves them closed and the schema check
         * refuses the store (engine.c), a writer creates them and
         * upgrades it. A store that never had an open table has no
         * "tables": a reader leaves it closed (0), a writer creates it. */
        if (rc == MDB_NOTFOUND && store->read_only &&
            (dbis[i] == &store->ids || dbis[i] == &store->states || dbis[i] == &store->history ||
             dbis[i] == &store->tables)) {
            *dbis[i] = 0;
            rc = 0;
        }
        if (rc)
            goto fail;
    }
    rc = mdb_txn_commit(txn);
    txn = NULL;
    if (rc)
        goto fail;
    return KD_OK;
fail:
    if (txn)
        mdb_txn_abort(txn);
    snprintf(why, why_len, "cannot open the databases in %s: %s", store->dir, mdb_strerror(rc));
    return rc == MDB_NOTFOUND ? KD_ERR_NOT_FOUND : kd_store_err(rc, "open databases");
}

/* A closed store on `dir`: no environment, no lock held. */
static kd_err store_init(kd_store *store, const char *dir, char *why, size_t why_len)
{
    memset(store, 0, sizeof *store);
    store->lock_fd = -1;
    store->readers_fd = -1;
    if (strlen(dir) >= sizeof store->dir) {
        snprintf(why, why_len, "data directory path is too long");
        return KD_ERR_INVALID_ARG;
    }
    strcpy(store->dir, dir);
    return KD_OK;
}

/* DIR/data.mdb's size; KD_ERR_NOT_FOUND when there is none. */
static kd_err data_size(const kd_store *store, uint64_t *bytes, char *why, size_t why_len)
{
    char path[4200];
    struct stat st;
    snprintf(path, sizeof path, "%s/data.mdb", store->dir);
    if (stat(path, &st) != 0) {
        /* the directory twice, no more: a deep path still fits the sentence */
        snprintf(why, why_len,
                 "no kdapp data in %s (data.mdb: %s): give the data directory that holds it (--data DIR, or "
                 "KDAPP_DATA), or make one: `kdapp up --data %s` (or `kdapp feed` a script into it)",
                 store->dir, strerror(errno), store->dir);
        return KD_ERR_NOT_FOUND;
    }
    *bytes = (uint64_t)st.st_size;
    return KD_OK;
}

kd_err kd_store_open(kd_store *store, const kd_store_options *opts, char *why, size_t why_len)
{
    kd_err err = store_init(store, opts->dir, why, why_len);
    if (err)
        return err;
    store->read_only = opts->read_only;
    uint64_t bytes;
    if (opts->read_only) {
        if ((err = data_size(store, &bytes, why, why_len)) != KD_OK)
            return err;
    } else if (mkdir(store->dir, 0700) != 0 && errno != EEXIST) {
        snprintf(why, why_len, "cannot create data directory %s: %s", store->dir, strerror(errno));
        return KD_ERR_IO;
    }
    err = opts->read_only ? take_readers_lock(store, LOCK_SH, why, why_len) : take_lock(store, why, why_len);
    if (err)
        goto fail;

    int rc = mdb_env_create(&store->env);
    if (rc) {
        snprintf(why, why_len, "cannot create LMDB environment: %s", mdb_strerror(rc));
        err = kd_store_err(rc, "mdb_env_create");
        goto fail;
    }
    store->map_size = opts->map_size ? opts->map_size : DEFAULT_MAP_SIZE;
    store->max_map_size = opts->max_map_size ? opts->max_map_size : MAX_MAP_SIZE;
    unsigned flags = MDB_NOTLS;
    if (opts->read_only)
        flags |= MDB_RDONLY;
    if (opts->durability == KD_DURABILITY_RELAXED)
        flags |= MDB_NOMETASYNC;
    if ((rc = mdb_env_set_mapsize(store->env, store->map_size)) || (rc = mdb_env_set_maxdbs(store->env, 16)) ||
        (rc = mdb_env_set_maxreaders(store->env, 256)) || (rc = mdb_env_open(store->env, store->dir, flags, 0600))) {
        snprintf(why, why_len, "cannot open LMDB environment in %s: %s", store->dir, mdb_strerror(rc));
        err = kd_store_err(rc, "mdb_env_open");
        goto fail;
    }
    /* A file grown by an earlier run (or another process) may exceed our
     * default: adopt its size. */
    MDB_envinfo info;
    if (mdb_env_info(store->env, &info) == 0 && info.me_mapsize > store->map_size)
        store->map_size = info.me_mapsize;
    if ((err = open_dbs(store, why, why_len)) != KD_OK)
        goto fail;
    return KD_OK;
fail:
    kd_store_close(store);
    return err;
}

void kd_store_close(kd_store *store)
{
    if (!store)
        return;
    if (store->env)
        mdb_env_close(store->env);
    store->env = NULL;
    if (store->lock_fd >= 0)
        close(store->lock_fd); /* releases the flock */
    if (store->readers_fd >= 0)
        close(store->readers_fd);
    store->lock_fd = -1;
    store->readers_fd = -1;
}

kd_err kd_store_grow(kd_store *store)
{
    if (store->map_size >= store->max_map_size) {
        KD_LOG_E("store", "the map of %s is full at %zu KiB and may not grow further", store->dir,
                 store->map_size >> 10);
        return KD_ERR_MAP_FULL;
    }
    size_t next = store->map_size * 2 < store->max_map_size ? store->map_size * 2 : store->max_map_size;
    int rc = mdb_env_set_mapsize(store->env, next);
    if (rc)
        return kd_store_err(rc, "mdb_env_set_mapsize");
    KD_LOG_I("store", "map grown from %zu to %zu KiB", store->map_size >> 10, next >> 10);
    store->map_size = next;
    return KD_OK;
}

kd_err kd_store_adopt_map(kd_store *store)
{
    int rc = mdb_env_set_mapsize(store->env, 0);
    if (rc)
        return kd_store_err(rc, "adopt the grown map");
    MDB_envinfo info;
    if (mdb_env_info(store->env, &info) == 0) {
        KD_LOG_I("store", "map of %s grown by another process: now %zu KiB", store->dir, info.me_mapsize >> 10);
        store->map_size = info.me_mapsize;
    }
    return KD_OK;
}

/* The file is written beside data.mdb, synced, and renamed over it: a
 * crash leaves either the old file or the new one, each whole, and at
 * most a stale DIR/data.mdb.compacting that the next run overwrites. */
static kd_err copy_compacted(kd_store *store, const char *tmp, uint64_t *bytes, char *why, size_t why_len)
{
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        int e = errno;
        snprintf(why, why_len, "cannot create %s: %s", tmp, strerror(e));
        return e == ENOSPC ? KD_ERR_NO_SPACE : KD_ERR_IO;
    }
    kd_err err = KD_OK;
    struct stat st;
    int rc = mdb_env_copyfd2(store->env, fd, MDB_CP_COMPACT);
    if (rc) {
        snprintf(why, why_len, "cannot write the compacted copy %s: %s", tmp, mdb_strerror(rc));
        err = kd_store_err(rc, "mdb_env_copyfd2");
    } else if (fsync(fd) != 0 || fstat(fd, &st) != 0) {
        int e = errno;
        snprintf(why, why_len, "cannot sync the compacted copy %s: %s", tmp, strerror(e));
        err = e == ENOSPC ? KD_ERR_NO_SPACE : KD_ERR_IO;
    } else
        *bytes = (uint64_t)st.st_size;
    if (close(fd) != 0 && !err) {
        snprintf(why, why_len, "cannot close the compacted copy %s: %s", tmp, strerror(errno));
        err = KD_ERR_IO;
    }
    return err;
}

kd_err kd_store_compact(const char *dir, kd_store_compaction *out, char *why, size_t why_len)
{
    kd_store store;
    memset(out, 0, sizeof *out);
    kd_err err = store_init(&store, dir, why, why_len);
    if (!err)
        err = data_size(&store, &out->bytes_before, why, why_len);
    if (err)
        return err;
    char data[4200], tmp[4200];
    snprintf(data, sizeof data, "%s/data.mdb", dir);
    snprintf(tmp, sizeof tmp, "%s/data.mdb.compacting", dir);
    /* The writer and every reader are shut out: a process with the old
     * file mapped would go on reading it after the rename. */
    err = take_lock(&store, why, why_len);
    if (!err)
        err = take_readers_lock(&store, LOCK_EX, why, why_len);
    int rc = err ? 0 : mdb_env_create(&store.env);
    if (!err && !rc && !(rc = mdb_env_set_maxdbs(store.env, 11)))
        rc = mdb_env_open(store.env, dir, MDB_NOTLS | MDB_RDONLY, 0600);
    if (rc) {
        snprintf(why, why_len, "cannot open LMDB environment in %s: %s", dir, mdb_strerror(rc));
        err = kd_store_err(rc, "mdb_env_open");
    }
    if (!err && (err = copy_compacted(&store, tmp, &out->bytes_after, why, why_len)) != KD_OK)
        unlink(tmp);
    if (store.env)
        mdb_env_close(store.env); /* the old file unmapped before it is replaced */
    store.env = NULL;
    if (!err && rename(tmp, data) != 0) {
        snprintf(why, why_len, "cannot replace %s with %s: %s", data, tmp, strerror(errno));
        unlink(tmp);
        err = KD_ERR_IO;
    }
    if (!err) {
        /* Either file is a whole store: a lost rename only loses the gain. */
        int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0 || fsync(dfd) != 0)
            KD_LOG_W("store", "cannot sync directory %s after compacting: %s", dir, strerror(errno));
        if (dfd >= 0)
            close(dfd);
        KD_LOG_I("store", "compacted %s: %llu KiB -> %llu KiB", dir, (unsigned long long)(out->bytes_before >> 10),
                 (unsigned long long)(out->bytes_after >> 10));
    }
    kd_store_close(&store);
    return err;
}
