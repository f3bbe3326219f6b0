/*
 * engine.h — the episode engine: one writer applying chain events to
 * episodes in an LMDB store, with exact rollback.
 *
 * Every chain event (an accepted block or a reverted block, encoded as a
 * kdapp.EngineMsg) is applied in ONE write transaction, synced before
 * kd_engine_ingest returns: a block is applied wholly or not at all.
 *
 *   accept(B)  B already applied          -> DUPLICATE, nothing written
 *              otherwise                  -> each tx applied or rejected
 *                                            (logged with its reason),
 *                                            B becomes the tip
 *   revert(B)  B reverted earlier         -> DUPLICATE (re-delivery), nothing written
 *              B unknown / not the tip    -> REFUSED (logged), nothing changed
 *              B beyond the finality depth-> REFUSED: a re-sync is needed
 *              B is the tip               -> effects undone newest first,
 *                                            the parent becomes the tip
 *
 * Reverting a creation deletes the episode. The reverts of a reorg may
 * share one transaction instead (kd_engine_ingest_reverts), each still
 * with its own verdict and log entry. After each commit the commit
 * listener (handlers/) is told which episodes changed and how.
 *
 * Threading: one thread at a time may call kd_engine_ingest / replay (the
 * single writer). Reads go through read handles (kd_engine_read_begin,
 * below), from any thread at any time.
 */
#ifndef KD_ENGINE_ENGINE_H
#define KD_ENGINE_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "engine/crypto.h"
#include "engine/episode.h"
#include "engine/metrics.h"
#include "engine/store.h"

#define KD_DEFAULT_FINALITY 1000u
#define KD_DETAIL_MAX 200

typedef struct kd_engine kd_engine;

typedef struct {
    const char *data_dir;
    const kd_registry *registry; /* must outlive the engine */
    uint64_t finality_depth;     /* 0: the stored value, or KD_DEFAULT_FINALITY for a new store */
    int read_only;               /* read API only; takes no lock */
    kd_durability durability;
    size_t map_size;     /* initial map; 0: default (256 MiB) */
    size_t max_map_size; /* the map grows up to this; 0: default (1 TiB) */
    /* The chain the store follows (engine/chain.h): a chain name (a new
     * store follows it; an existing one must, or the open is refused
     * with KD_ERR_SETTINGS), "local" (any local chain; a new store: its
     * own), or NULL (whatever the store follows; a new store: its own
     * local chain). */
    const char *chain;
} kd_engine_options;

/* Opens the engine on a data directory (creating it unless read-only).
 * Errors: KD_ERR_LOCKED, KD_ERR_SCHEMA, KD_ERR_SETTINGS (another finality
 * depth or chain), KD_ERR_NOT_FOUND, KD_ERR_INVALID_ARG (opts->chain is
 * not a chain name), KD_ERR_IO, KD_ERR_STORE, KD_ERR_NOMEM; `why` gets a
 * sentence. */
kd_err kd_engine_open(const kd_engine_options *opts, kd_engine **out, char *why, size_t why_len) KD_WARN_UNUSED;
/* Closes; accepts NULL. */
void kd_engine_close(kd_engine *engine);

/* ------------------------------------------------------------------ ingest */

typedef enum {
    KD_MSG_APPLIED = 1,
    KD_MSG_DUPLICATE = 2,
    KD_MSG_REFUSED = 3,
} kd_msg_status;

/* One transaction's outcome. A rejection has two names: `err`, this
 * build's enum (KD_ERR_RULE for any rule of the episode type), and
 * `code`, the stable short code it is stored and sent under (TxOutcome,
 * TxResult, IngestReply, MCP results): the type's rule code
 * ("cell_occupied") for KD_ERR_RULE, else kd_err_code(err). Compare
 * outcomes by `code`. */
typedef struct {
    uint8_t tx_id[KD_HASH_LEN]; /* zero when the tx carried no valid id */
    uint32_t episode_id;
    int applied;
    kd_err err;                  /* why it was rejected (KD_OK when applied) */
    char code[KD_RULE_CODE_MAX]; /* its short code ("" when applied) */
    char detail[KD_DETAIL_MAX];  /* sentence naming what was wrong ("" when applied) */
} kd_tx_result;

/* Marks `r` rejected under the short code `code` read from a log entry or
 * a reply (NULL or "": "rule"): r->code gets it, and r->err the engine
 * error of that name, or KD_ERR_RULE for a name the engine's table does
 * not hold (a type's rule code). `detail` (may be NULL) is copied. */
void kd_tx_result_set_rejected(kd_tx_result *r, const char *code, const char *detail);

typedef struct {
    kd_msg_status status;
    int reverted; /* the message was a BlockReverted */
    uint8_t block_hash[KD_HASH_LEN];
    kd_err err; /* for REFUSED */
    char detail[KD_DETAIL_MAX];
    uint64_t log_seq;  /* the entry recording it; 0 for duplicates */
    kd_tx_result *txs; /* owned; one per tx of an applied accept, or of a
                          duplicate accept (the outcomes recorded when it
                          was first applied) */
    size_t tx_count;
} kd_msg_result;

void kd_msg_result_init(kd_msg_result *res);
void kd_msg_result_fini(kd_msg_result *res);

/* Applies one encoded kdapp.EngineMsg. Returns KD_OK when a verdict was
 * reached (see res->status). Errors (nothing applied, nothing logged):
 * KD_ERR_DECODE (not an EngineMsg; res->detail says why), KD_ERR_MAP_FULL,
 * KD_ERR_IO, KD_ERR_STORE, KD_ERR_NOMEM, KD_ERR_UNSUPPORTED (read-only). */
kd_err kd_engine_ingest(kd_engine *engine, const uint8_t *msg, size_t len, kd_msg_result *res) KD_WARN_UNUSED;

/* The same for a message the caller has decoded already (the daemon's
 * requests carry them decoded): `msg` must be `m` encoded, the bytes the
 * log keeps. Errors as kd_engine_ingest. */
struct Kdapp__EngineMsg;
kd_err kd_engine_ingest_decoded(kd_engine *engine, const struct Kdapp__EngineMsg *m, const uint8_t *msg, size_t len,
                                kd_msg_result *res) KD_WARN_UNUSED;

/* Applies `n` decoded kdapp.EngineMsg{BlockReverted} in order, as a reorg
 * sends them (newest block first): each is applied, refused or a
 * duplicate exactly as by kd_engine_ingest_decoded, with its own log entry
 * and res[i], but up to 1,024 of them share one write transaction, synced
 * once, and readers see the chain before them or after them, never
 * half-way; the listener hears each after that commit. A shared
 * transaction that fails keeps nothing: after a full map it grows the map
 * and starts over, after any other error its reverts are applied one by
 * one. *done gets the number of
 * verdicts (res[0 .. *done)). Errors as kd_engine_ingest, for the event
 * res[*done] (its detail says why), the earlier ones kept;
 * KD_ERR_INVALID_ARG (nothing done) when an event is not a revert. */
kd_err kd_engine_ingest_reverts(kd_engine *engine, struct Kdapp__EngineMsg *const *m, size_t n, kd_msg_result *res,
                                size_t *done) KD_WARN_UNUSED;

/* Lets the writer use signature verdicts computed ahead (engine/sigcheck.h)
 * for the following ingests, until called again (NULL: none). */
struct kd_sig_batch;
void kd_engine_use_sig_batch(kd_engine *engine, struct kd_sig_batch *batch);

/* Notes the time (ms) of the feeder's chain source's tip (IngestRequest.
 * source_tip_time_ms), kept in the metrics and stored with the next
 * commit. Writer thread only. */
void kd_engine_note_source_tip(kd_engine *engine, uint64_t time_ms);

/* How long the last commit (LMDB's synced mdb_txn_commit) took, in
 * microseconds. Writer thread only; for benchmarks. */
uint64_t kd_engine_last_commit_us(const kd_engine *engine);

/* Replay only: skip verifying signatures that the replayed log entry
 * recorded as good (a rebuild of a trusted log, `kdapp replay`). Off by
 * default; `kdapp verify` keeps it off and checks every signature again. */
void kd_engine_trust_replayed_signatures(kd_engine *engine, int trust);

/* Re-applies one encoded LogEntry from another store's log (replay): like
 * ingest, but creations use the effective parameters the entry recorded.
 * Errors as kd_engine_ingest. */
kd_err kd_engine_replay_entry(kd_engine *engine, const uint8_t *entry, size_t len, kd_msg_result *res) KD_WARN_UNUSED;

/* ----------------------------------------------------------- commit events */

typedef enum {
    KD_EVENT_INITIALIZE = 1,
    KD_EVENT_COMMAND = 2,
    KD_EVENT_ROLLBACK = 3,
} kd_event_kind;

/* What one commit did to one episode. Pointers are valid during the
 * listener call only. */
typedef struct {
    kd_event_kind kind;
    uint32_t episode_id;
    const kd_episode_ops *ops;
    const kd_participants *participants;
    const void *state;      /* the state after the whole commit; NULL when deleted */
    const uint8_t *command; /* KD_EVENT_COMMAND: the command bytes */
    size_t command_len;
    const kd_pubkey *signer; /* KD_EVENT_COMMAND: the verified signer, or NULL */
    const void *undo;        /* COMMAND and ROLLBACK of a command: the undo record; NULL for creations */
    uint64_t moves;          /* the move counter after the whole commit: commands applied (undo depth) */
} kd_episode_event;

typedef struct {
    int reverted; /* 0: an accept, 1: a revert */
    const uint8_t *block_hash;
    uint64_t daa, time_ms; /* of the block (accepts) */
    uint64_t log_seq;
    const uint8_t *tip_hash; /* NULL at genesis */
    uint64_t tip_height;
    const uint8_t *digest;
    uint32_t txs_applied, txs_rejected;
    const kd_episode_event *events; /* in application (or rollback) order */
    size_t event_count;
    const kd_tx_result *txs; /* accepts: every tx's outcome, in block order */
    size_t tx_count;
} kd_commit;

/* Called on the writer thread after each durable commit (not for
 * duplicates or refusals). It must not call kd_engine_ingest. */
typedef void (*kd_commit_fn)(void *ctx, const kd_commit *commit);
void kd_engine_set_listener(kd_engine *engine, kd_commit_fn fn, void *ctx);

/* -------------------------------------------------------------------- read
 *
 * Reads the LMDB way: begin a read handle, make every read of one answer
 * through it, end it. Everything read through one handle comes from the
 * same commit (one LMDB read transaction), so an answer can never pair
 * the digest of one commit with the state of another:
 *
 *   kd_read *rd;
 *   kd_err err = kd_engine_read_begin(engine, &rd);
 *   if (err)
 *       return err;
 *   if (!(err = kd_read_tip(rd, &tip)))
 *       err = kd_read_episode(rd, id, &snap);
 *   kd_engine_read_end(rd);
 *
 * Lifetimes: what a read copies out (kd_tip, kd_episode_snapshot, id
 * lists, metrics) outlives the handle; what points into the store
 * (kd_read_log_entry) is valid until kd_engine_read_end only.
 *
 * Threading: any number of threads may read at once, each through its
 * own handle; the writer's commits never wait for readers. A handle
 * belongs to the thread that began it: that thread uses it, ends it, and
 * holds no second handle on the same engine meanwhile (the map lock below
 * is not recursive once the writer waits for it).
 *
 * Keep handles short (one answer, no waiting on a client or the network
 * inside): a handle pins the commit it reads, so the file cannot reuse the
 * pages later commits freed, and the map cannot grow, until it ends.
 *
 * The map lock: LMDB forbids changing the map size while any transaction
 * of the process is open. Every transaction (each handle, and each of the
 * writer's write transactions) holds engine's map lock shared; the map
 * changes only under it exclusively: when the writer grows a full map,
 * and when a reader adopts a map that another process grew (LMDB's
 * MDB_MAP_RESIZED), which kd_engine_read_begin does by itself.
 */

typedef struct kd_read kd_read;

/* Begins a read handle on the latest commit. Errors: KD_ERR_NOMEM,
 * KD_ERR_STORE (LMDB's reader table is full, or the map keeps being
 * resized by another process). */
kd_err kd_engine_read_begin(kd_engine *engine, kd_read **out) KD_WARN_UNUSED;
/* Ends a read handle (on the thread that began it); accepts NULL. */
void kd_engine_read_end(kd_read *rd);

typedef struct {
    int has_tip;
    uint8_t hash[KD_HASH_LEN];
    uint64_t height;
    uint8_t digest[KD_HASH_LEN];
    uint64_t last_seq; /* newest log entry, 0 when empty */
    uint64_t finality_depth;
    /* How many blocks, counted from the tip, a revert can still undo: the
     * applied blocks above the finality horizon (at most finality_depth,
     * and fewer after a reorg: the block a reorg returns to was made final
     * when the chain was higher, and stays final). A reorg deeper than
     * this is refused (beyond_finality). */
    uint64_t revertible;
} kd_tip;

/* The tip: applied block, height, digest, newest log entry, finality
 * depth and revertible depth. */
kd_err kd_read_tip(kd_read *rd, kd_tip *out) KD_WARN_UNUSED;

/* A copy of one episode, independent of any transaction. */
typedef struct {
    uint32_t id;
    const kd_episode_ops *ops;
    kd_participants participants;
    uint64_t creation_daa;
    uint64_t undo_depth; /* commands applied = the next signing counter */
    uint64_t updated_seq;
    uint8_t updated_block[KD_HASH_LEN];
    kd_event_kind last_event;
    void *state; /* owned, ops->state_size bytes */
} kd_episode_snapshot;

/* Copies episode `id` into `out` (release it with kd_episode_snapshot_fini).
 * Errors: KD_ERR_NOT_FOUND, KD_ERR_UNKNOWN_TYPE (stored type not
 * registered), KD_ERR_STORE, KD_ERR_NOMEM. */
kd_err kd_read_episode(kd_read *rd, uint32_t id, kd_episode_snapshot *out) KD_WARN_UNUSED;
void kd_episode_snapshot_fini(kd_episode_snapshot *snap);

/* Lists up to `max` episode ids greater than `after`, ascending. */
kd_err kd_read_episode_ids(kd_read *rd, uint32_t after, uint32_t *ids, size_t max, size_t *count) KD_WARN_UNUSED;

/* The encoded LogEntry (store.proto) at `seq`: *data points into the map,
 * read-only, valid until kd_engine_read_end. Errors: KD_ERR_NOT_FOUND. */
kd_err kd_read_log_entry(kd_read *rd, uint64_t seq, const uint8_t **data, size_t *len) KD_WARN_UNUSED;

/* Where the store stood after log entry `seq`: the chained digest then
 * and the chain height (the tip's; 0 before any block), read from the
 * entry without decoding what else it holds. Errors: KD_ERR_NOT_FOUND,
 * KD_ERR_STORE (an entry without a digest). */
kd_err kd_read_log_position(kd_read *rd, uint64_t seq, uint8_t digest[KD_HASH_LEN], uint64_t *height) KD_WARN_UNUSED;

/* Finds the first accepted block logged after `after_seq` that carried
 * transaction `tx_id`, and its outcome there: out->applied, err, code
 * (the type's rule code for KD_ERR_RULE), detail, episode_id; *block (may be NULL) gets its hash and *seq (may be NULL)
 * its log position. Errors: KD_ERR_NOT_FOUND, storage errors. Reads the
 * log: for callers that missed a block summary, not for hot paths. */
kd_err kd_read_find_tx(kd_read *rd, uint64_t after_seq, const uint8_t tx_id[KD_HASH_LEN], kd_tx_result *out,
                       uint8_t block[KD_HASH_LEN], uint64_t *seq) KD_WARN_UNUSED;

/* What one log entry changed, for a follower of the log (the gateway's
 * duties thread): whether it applied anything (an applied accept or
 * revert; refusals and duplicates change nothing), whether it was a
 * revert, and, for an applied accept, the episodes its applied
 * transactions touched, each once, in block order (`episodes` is
 * malloc'ed: kd_log_change_fini frees it), and its block's DAA score (a
 * house that reveals an ask only once it is deep enough measures the tip
 * by it). A revert names its block only: a follower that needs its
 * episodes looks at what it watches again. */
/* A command an applied accept applied (kd_read_log_commands). */
typedef struct {
    uint32_t episode_id;
    int has_signer;
    kd_pubkey signer;
    size_t at, len; /* its payload (the EpisodeMessage as carried) in kd_log_change.payloads */
} kd_log_command;
typedef struct {
    int applied;
    int reverted;
    uint32_t *episodes;
    size_t n_episodes;
    uint64_t daa;               /* an applied accept: its block's DAA score; else 0 */
    uint64_t height;            /* an applied entry: the chain's height after it */
    uint8_t block[KD_HASH_LEN]; /* an applied entry: the block accepted or reverted */
    kd_buf commands;            /* kd_read_log_commands of an applied accept: kd_log_command records, in block order */
    kd_buf payloads;            /* their payloads */
} kd_log_change;
/* Reads log entry `seq` into `out` (kd_log_change_fini it, also after an
 * error). Errors: KD_ERR_NOT_FOUND, KD_ERR_STORE (it does not decode),
 * KD_ERR_NOMEM. */
kd_err kd_read_log_change(kd_read *rd, uint64_t seq, kd_log_change *out) KD_WARN_UNUSED;
/* kd_read_log_change, and for an applied accept the commands it applied
 * (signed or not; creations left out) with their payloads copied: for a
 * follower that must send again what a reorg dropped (the gateway's duties
 * thread re-submits a player's ask its house answered). Errors: as
 * kd_read_log_change. */
kd_err kd_read_log_commands(kd_read *rd, uint64_t seq, kd_log_change *out) KD_WARN_UNUSED;
void kd_log_change_fini(kd_log_change *c);

/* One log entry that changed an episode (kd_read_episode_history). */
typedef struct {
    uint64_t seq;
    int reverted; /* 0: an accept that applied a transaction of it (its creation included); 1: a revert of a
                     block that changed it */
} kd_history_entry;

/* The log entries that changed episode `id`, oldest first, read from the
 * store's index (engine/store.h, `history`) in time proportional to their
 * number, not to the log's: its creation and every accept that applied
 * one of its transactions, and every revert of a block that changed it.
 * Accepts whose blocks a reorg took away are listed too (with the revert
 * after them); kd_read_block_seq tells whether an accept's block is still
 * applied by that entry. An index that a reverted creation's slot left
 * behind may list older entries of that slot: never applied ones (their
 * blocks are not applied by them). `*out` is malloc'ed (free it); *count
 * may be 0 only for a damaged store. Errors: KD_ERR_NOT_FOUND (no episode
 * `id`), KD_ERR_NOMEM, storage errors. */
kd_err kd_read_episode_history(kd_read *rd, uint32_t id, kd_history_entry **out, size_t *count) KD_WARN_UNUSED;

/* The log position of the entry that applied block `hash`, while it is
 * applied. Errors: KD_ERR_NOT_FOUND (not applied: never, or reverted),
 * KD_ERR_STORE (its record does not decode). */
kd_err kd_read_block_seq(kd_read *rd, const uint8_t hash[KD_HASH_LEN], uint64_t *seq) KD_WARN_UNUSED;

/* The log positions of the blocks still applied, genesis first (the
 * canonical chain), following parent links from the tip. `*seqs` is
 * malloc'ed (free it); *count may be 0. */
kd_err kd_read_canonical_seqs(kd_read *rd, uint64_t **seqs, size_t *count) KD_WARN_UNUSED;

/* Encoded state of every episode hashed in id order plus the tip digest:
 * two stores agree exactly when their fingerprints agree. */
kd_err kd_read_fingerprint(kd_read *rd, uint8_t out[KD_HASH_LEN]) KD_WARN_UNUSED;

/* The metrics as of the last commit (engine/metrics.h). Works read-only. */
kd_err kd_read_metrics(kd_read *rd, kd_metrics *out) KD_WARN_UNUSED;

/* The DAA score an open table waits for its seats when NewEpisode.
 * join_timeout is 0, and the most it may ask (a creation asking more is
 * refused, bad_participants). */
#define KD_TABLE_TIMEOUT_DEFAULT 36000u
#define KD_TABLE_TIMEOUT_MAX 8640000u

/* An open table (issue 39; kdapp.proto NewEpisode with open seats): a
 * creation waiting for strangers to join. Pointers are valid during the
 * callback only. */
typedef struct {
    uint32_t episode_id;
    char type_name[KD_TYPE_NAME_MAX];
    kd_participants participants;        /* in seat order; an open seat's key is 33 zero bytes */
    uint32_t open_seats;                 /* bit s: seat s was open at creation */
    uint32_t taken;                      /* bit s: seat s has a key (named or joined) */
    uint64_t creation_daa, deadline_daa; /* a join in a block past deadline_daa is refused */
    int cancelled, started;
    const uint8_t *params; /* NewEpisode.params as created: what a joiner consents to */
    size_t params_len;
} kd_table_info;

/* Called per table; a non-zero return stops the walk and is returned. */
typedef kd_err (*kd_table_fn)(void *ctx, const kd_table_info *table);
/* Every table of the store (open, started, cancelled or closed), in id
 * order. Works read-only. */
kd_err kd_read_tables(kd_read *rd, kd_table_fn fn, void *ctx) KD_WARN_UNUSED;

/* One-shot conveniences, each one handle around one read, for answers
 * that need that read and nothing else (a tip for a progress line, a move
 * counter to sign with, a tx outcome). An answer that combines reads (a
 * view: tip digest + episode state) must use one handle instead. */
kd_err kd_engine_tip(kd_engine *engine, kd_tip *out) KD_WARN_UNUSED;
kd_err kd_engine_episode_read(kd_engine *engine, uint32_t id, kd_episode_snapshot *out) KD_WARN_UNUSED;
kd_err kd_engine_find_tx(kd_engine *engine, uint64_t after_seq, const uint8_t tx_id[KD_HASH_LEN], kd_tx_result *out,
                         uint8_t block[KD_HASH_LEN], uint64_t *seq) KD_WARN_UNUSED;

const kd_registry *kd_engine_registry(const kd_engine *engine);
const char *kd_engine_dir(const kd_engine *engine);

/*
 * The store id: KD_STORE_ID_LEN random bytes (OpenSSL RAND_bytes) drawn
 * when the store is created and kept in meta ("store_id"); a store never
 * changes it, and no two stores share one, also not a replay of a store's
 * log (`kdapp replay --into NEWDIR` makes a new store, so a new id).
 *
 * What it is for: a seat's secret commitment (a house's hash chain) is
 * bound to the store it was made for, so that two stores holding the same
 * keys and episode ids get unrelated secrets, and a gateway acts only on
 * commitments made for its own store.
 *
 * Copies the id into `out`. Works on a writable engine and on a read-only
 * (attached) one alike: the id is read when the engine opens (a store
 * without one is refused then, as damaged). Errors: KD_ERR_INVALID_ARG
 * (`e` or `out` NULL). Threading: any thread, any time while the engine
 * is open; it takes no lock and no transaction.
 */
kd_err kd_engine_store_id(kd_engine *e, uint8_t out[KD_STORE_ID_LEN]) KD_WARN_UNUSED;

/*
 * The chain the store follows (engine/chain.h): "kaspa:<network id>" or
 * "local:<store id>", fixed when the store was created (kd_engine_options.
 * chain) and kept in meta ("chain"); a store made before chains were
 * named reads as the local chain of its own store id until an open names
 * one. What every consent to a creation in this store must sign
 * (kd_consent_sign): the gateway, block scripts and `kdapp submit` sign
 * for it. `kdapp replay` and `kdapp verify` carry it to the new store.
 *
 * The string lives as long as the engine. Any thread, any time while the
 * engine is open; no lock, no transaction.
 */
const char *kd_engine_chain(const kd_engine *e);

/* ----------------------------------------------------------------- dry run */

/*
 * A dry run predicts what transactions would do, changing nothing: it
 * reads the episodes they name from the store, keeps its own copies, and
 * runs the transactions one by one through the very checks the writer
 * makes (engine/rules.h) and each type's kd_episode_ops, in memory. After
 * any number of them it tells each episode's move counter (the counter a
 * signed command must commit to) as it would then be.
 *
 *     kd_dryrun *run;
 *     kd_dryrun_alloc(engine, &run);
 *     for each tx of the block, in order:
 *         kd_dryrun_episode(run, id, &exists, &counter)  -> sign for it
 *         kd_dryrun_tx(run, &where, payload, len, &result)
 *     kd_dryrun_free(run);
 *
 * Users: `kdapp feed` signs each move of a block for the counter its
 * episode will have after the block's earlier transactions (a rejected
 * move does not count); the ingest server answers dry-run requests with it
 * (IngestRequest.dry_run) for feeds of a remote daemon. A mempool or a
 * "would this be legal" check can use it the same way.
 *
 * What it predicts: the outcome of transactions applied, in this order, in
 * a new block on top of the tip it read (kd_dryrun_tip); a block that is
 * already applied would instead be acknowledged as a duplicate. Exact on
 * the writer's thread, or while no writer runs (`kdapp feed FILE`): the
 * same code decides. From another thread it is a consistent prediction
 * against one commit (it reads through one read handle, kd_engine_read_begin),
 * which the writer may have moved past by the time it is used.
 *
 * Threading: a dry run holds a read handle from alloc to free: keep it
 * short, free it on the thread that allocated it, and do not hold another
 * read handle of the same engine on that thread meanwhile.
 */
typedef struct kd_dryrun kd_dryrun;

/* Starts a dry run on the engine's current tip. Works on a read-only
 * engine. Errors: KD_ERR_STORE, KD_ERR_NOMEM. */
kd_err kd_dryrun_alloc(kd_engine *engine, kd_dryrun **out) KD_WARN_UNUSED;
/* Accepts NULL. */
void kd_dryrun_free(kd_dryrun *run);
/* The tip the prediction builds on (read when the dry run started). */
const kd_tip *kd_dryrun_tip(const kd_dryrun *run);

/* Runs one encoded EpisodeMessage as the next transaction of a block at
 * `where` (block_hash, daa, time_ms and tx_id are used; episode_id is
 * taken from the payload) and fills `out` as the writer would: applied, or
 * rejected with err, code and detail. Errors (nothing predicted): KD_ERR_STORE,
 * KD_ERR_UNKNOWN_TYPE (a stored episode of an unregistered type),
 * KD_ERR_NOMEM. */
kd_err kd_dryrun_tx(kd_dryrun *run, const kd_block_meta *where, const uint8_t *payload, size_t len,
                    kd_tx_result *out) KD_WARN_UNUSED;

/* Runs every transaction of one encoded EngineMsg{BlockAccepted}; res->txs
 * gets one outcome each (res->status is KD_MSG_APPLIED, res->block_hash
 * set). Errors: KD_ERR_DECODE (not an accepted block; res->detail says
 * why), and those of kd_dryrun_tx. */
kd_err kd_dryrun_block(kd_dryrun *run, const uint8_t *msg, size_t len, kd_msg_result *res) KD_WARN_UNUSED;

/* Episode `id` as it stands in the dry run: *exists, and its move counter
 * (commands applied; 0 when it does not exist). Errors as kd_dryrun_tx. */
kd_err kd_dryrun_episode(kd_dryrun *run, uint32_t id, int *exists, uint64_t *counter) KD_WARN_UNUSED;

#endif
