/*
 * support.h — helpers shared by the engine tests: temporary data
 * directories under $KD_TEST_TMP, an engine opened with the tic-tac-toe type
 * registered, payload and block builders (creations, signed and unsigned
 * moves by test key name, raw bytes), ingest wrappers that assert the call
 * itself succeeded, raw LMDB access for checks the API does not expose, a
 * seeded generator (seed printed, KD_TEST_SEED overrides it) and assertion
 * macros that print kd_err names instead of numbers.
 *
 * Everything here runs inside a Criterion test and reports failures with
 * cr_assert; none of it is library code.
 */
#ifndef KD_TESTS_ENGINE_SUPPORT_H
#define KD_TESTS_ENGINE_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

#include "engine/crypto.h"
#include "engine/engine.h"
#include "engine/wire.h"
#include "episodes/tictactoe/tictactoe.h"
#include "store.pb-c.h"

/* ------------------------------------------------------------ assertions */

/* Expects/asserts a kd_err, printing both names ("cell_occupied"). */
#define ET_EXPECT_ERR(got, want)                                                                         \
    do {                                                                                                 \
        kd_err et_g_ = (got), et_w_ = (want);                                                            \
        cr_expect_eq(et_g_, et_w_, "%s: got %s, want %s", #got, kd_err_code(et_g_), kd_err_code(et_w_)); \
    } while (0)
#define ET_ASSERT_ERR(got, want)                                                                         \
    do {                                                                                                 \
        kd_err et_g_ = (got), et_w_ = (want);                                                            \
        cr_assert_eq(et_g_, et_w_, "%s: got %s, want %s", #got, kd_err_code(et_g_), kd_err_code(et_w_)); \
    } while (0)
#define ET_ASSERT_OK(expr) ET_ASSERT_ERR((expr), KD_OK)
/* Expects a kd_tx_result rejected under the short code `want` (an engine
 * code's name or a type's rule code: "cell_occupied"). */
#define ET_EXPECT_REJECTED(res, want)                                                                \
    cr_expect(!(res).applied && strcmp((res).code, (want)) == 0, "%s: got %s%s (%s), want %s", #res, \
              (res).applied ? "applied" : "", (res).code, (res).detail, (want))

/* Expects two 32-byte hashes to be equal (or different), printing both. */
void et_expect_hash_eq(const uint8_t *a, const uint8_t *b, const char *what);
void et_expect_hash_ne(const uint8_t *a, const uint8_t *b, const char *what);

/* ------------------------------------------------------ data directories */

/* Creates a fresh directory under $KD_TEST_TMP (else /tmp) with mkdtemp;
 * tests/CMakeLists.txt keeps KD_TEST_TMP short enough for socket paths. */
void et_tmpdir(char *out, size_t len);
/* Removes a directory and everything in it (best effort). */
void et_rmtree(const char *dir);

/* ---------------------------------------------------------------- engines */

/* The chain every test engine follows (et_env_open, et_env_attach: when
 * the options name none), so the consents et_add_create signs verify in
 * every store a test opens, copies and replays included. */
#define ET_CHAIN "local:65740000000000000000000000000000"

/*
 * A test engine: its registry (which the engine points into, so an et_env
 * must not move while open), the tic-tac-toe default, the directory.
 */
typedef struct {
    kd_ttt_config cfg;
    kd_registry reg;
    kd_engine *engine;
    char dir[512];
    int own_dir; /* et_env_fini removes it */
} et_env;

/* Makes a new temporary directory and opens a writable engine in it, with
 * tic-tac-toe registered with `default_cap` and the given finality depth
 * (0: the default). Relaxed durability when `relaxed` (bulk tests). */
void et_env_open(et_env *env, uint8_t default_cap, uint64_t finality);
void et_env_open_relaxed(et_env *env, uint8_t default_cap, uint64_t finality);
/* Opens an engine on an existing directory; returns the open error (the
 * engine stays NULL on error), `why` gets the sentence. */
kd_err et_env_attach(et_env *env, const char *dir, uint8_t default_cap, uint64_t finality, int read_only, char *why,
                     size_t why_len);
/* The same with any options (their data_dir and registry are filled in). */
kd_err et_env_attach_with(et_env *env, const char *dir, uint8_t default_cap, const kd_engine_options *opts, char *why,
                          size_t why_len);
/* Closes the engine (keeps the directory). */
void et_env_close(et_env *env);
/* Closes and reopens the engine on its directory, asserting success. */
void et_env_reopen(et_env *env);
/* Closes the engine and removes the directory when it owns it. */
void et_env_fini(et_env *env);

/* Runs fn(ctx) in a child process with KDAPP_CRASH_AT=`at` (a build with
 * KD_CRASHPOINTS=ON, engine/crashpoint.h) and asserts that it aborted. The
 * points are read at the first one a process reaches, so call it before
 * this process has used an engine; the child builds its store itself. */
void et_crash_child(const char *at, void (*fn)(void *ctx), void *ctx);

/* ------------------------------------------------------------ test keys */

/* The deterministic test key "test:NAME" (asserting success). */
kd_key et_key(const char *name);

/* --------------------------------------------------------------- payloads */

/* The payloads of one block, in order. */
typedef struct {
    kd_buf *p;
    size_t n, cap;
} et_txs;

void et_txs_init(et_txs *txs);
void et_txs_fini(et_txs *txs);
/* Drops every payload (keeps the storage). */
void et_txs_clear(et_txs *txs);
/* Appends a payload copy of `data`. */
void et_add_raw(et_txs *txs, const void *data, size_t len);
/* NewEpisode for tic-tac-toe with participants x and o (test key names),
 * both consenting on ET_CHAIN; cap < 0: no params (the engine default);
 * 0..255: TttParams{cap}. */
void et_add_create(et_txs *txs, uint32_t id, const char *x, const char *o, int cap);
/* NewEpisode with any type and participants, carrying no consent (a
 * creation the engine refuses: no_consent, or an earlier rule). */
void et_add_create_any(et_txs *txs, uint32_t id, const char *type, const kd_participants *parts, const uint8_t *params,
                       size_t params_len);
/* NewEpisode of `type` seating keys[0..n-1], every seat consenting on
 * ET_CHAIN (engine/rules.c: every named seat signs the creation). */
void et_add_create_signed(et_txs *txs, uint32_t id, const char *type, const kd_key *keys, size_t n,
                          const uint8_t *params, size_t params_len);
/* The same payload, appended to `out`, consenting on `chain`. */
void et_create_payload(kd_buf *out, const char *chain, uint32_t id, const char *type, const kd_key *keys, size_t n,
                       const uint8_t *params, size_t params_len);
/* Move{row, col, player} signed by test key `signer` for `counter`, or
 * unsigned when signer is NULL. */
void et_add_move(et_txs *txs, uint32_t id, uint8_t row, uint8_t col, uint8_t player, const char *signer,
                 uint64_t counter);
/* The bytes of that move payload, appended to `out`. */
void et_move_payload(kd_buf *out, uint32_t id, uint8_t row, uint8_t col, uint8_t player, const char *signer,
                     uint64_t counter);

/* ----------------------------------------------------------------- blocks */

/* The block hash for a name: SHA-256(name). */
void et_hash(const char *name, uint8_t out[KD_HASH_LEN]);

/* EngineMsg{BlockAccepted} for block `name` with `txs` (tx ids
 * SHA-256(hash || index), daa derived from the name), appended to `out`. */
void et_accept_msg(const char *name, const et_txs *txs, kd_buf *out);
/* EngineMsg{BlockReverted} for block `name`. */
void et_revert_msg(const char *name, kd_buf *out);

/* EngineMsg{BlockReverted} for block `name`, decoded as a request carries
 * it (free with kdapp__engine_msg__free_unpacked). */
struct Kdapp__EngineMsg *et_revert_decoded(const char *name);

/* Block `i` of a workload that grows the store: 8 creations of stress
 * games when i % 4 == 0, else X and O moves in each of them. */
void et_fill_block(int i, et_txs *t);

/* Expects two engines to hold the same episodes, digest and log length. */
void et_expect_same_store(kd_engine *a, kd_engine *b);

/* Ingests `msg`, asserting that the engine reached a verdict (KD_OK);
 * `res` is initialised here and released by the caller. */
void et_ingest(kd_engine *engine, const kd_buf *msg, kd_msg_result *res);
/* Accept / revert block `name` through et_ingest. */
void et_accept(kd_engine *engine, const char *name, const et_txs *txs, kd_msg_result *res);
void et_revert(kd_engine *engine, const char *name, kd_msg_result *res);
/* The same, asserting the status is KD_MSG_APPLIED, releasing the result. */
void et_accept_ok(kd_engine *engine, const char *name, const et_txs *txs);
void et_revert_ok(kd_engine *engine, const char *name);

/* What a dry run on `engine` predicts for `payload` alone in block `name`
 * (daa 1), asserting the dry run itself succeeded. */
void et_dry_run_one(kd_engine *engine, const char *name, const kd_buf *payload, kd_tx_result *out);

/* ------------------------------------------------------------------ reads */

void et_tip(kd_engine *engine, kd_tip *out);
void et_fingerprint(kd_engine *engine, uint8_t out[KD_HASH_LEN]);
/* Reads a tic-tac-toe episode into `state`, returning the read error;
 * `counter` (may be NULL) gets its undo depth. */
kd_err et_ttt_read(kd_engine *engine, uint32_t id, kd_ttt_state *state, uint64_t *counter);
/* The encoded state of an episode plus its undo depth (8 bytes BE),
 * appended to `out`, asserting it exists. */
void et_episode_bytes(kd_engine *engine, uint32_t id, kd_buf *out);
/* The unpacked log entry at `seq` (asserting it exists); free with
 * kdapp__store__log_entry__free_unpacked(entry, NULL). */
Kdapp__Store__LogEntry *et_log_entry(kd_engine *engine, uint64_t seq);
/* The encoded log entry at `seq`, appended to `out` (asserting it exists). */
void et_log_raw(kd_engine *engine, uint64_t seq, kd_buf *out);
/* Up to `max` episode ids in ascending order; returns how many. */
size_t et_episode_ids(kd_engine *engine, uint32_t *ids, size_t max);
/* Number of episodes (up to 4096). */
size_t et_episode_count(kd_engine *engine);

/* ------------------------------------------------------------- raw LMDB */

/* Entries in the named database of the (closed) store in `dir`. */
size_t et_raw_count(const char *dir, const char *db);
/* Undo records kept in the block records of the (closed) store in `dir`. */
size_t et_raw_undo_count(const char *dir);
/* Sets *slot to episode `id`'s slot in `states` and returns 1; 0 when
 * `ids` does not have it. */
int et_raw_slot(const char *dir, uint32_t id, uint64_t *slot);
/* Rewrites the (closed) store in `dir` as schema 2 stored it: episodes by
 * id in "episodes", undo records in "undo" keyed by id and depth, no
 * "states" nor "ids", meta schema 2. */
void et_raw_downgrade_to_schema_2(const char *dir);
/* Rewrites the (closed) store in `dir` as schema 3 stored it: no
 * "history", meta schema 3. */
void et_raw_downgrade_to_schema_3(const char *dir);
/* Appends every entry of "history" of the (closed) store in `dir` to
 * `out`, in key order: its 16-byte key (slot, seq) and 1-byte value. */
void et_raw_history(const char *dir, kd_buf *out);
/* 1 when the (closed) store in `dir` has the named database. */
int et_raw_has_db(const char *dir, const char *db);
/* Writes meta[name] = value (u64 BE, or any bytes) into the (closed)
 * store in `dir`. */
void et_raw_put_meta_u64(const char *dir, const char *name, uint64_t value);
void et_raw_put_meta(const char *dir, const char *name, const void *value, size_t len);
/* Deletes meta[name] (it must be there) from the (closed) store in `dir`. */
void et_raw_del_meta(const char *dir, const char *name);
/* Appends meta[name] of the (closed) store in `dir` to `out`. */
void et_raw_get_meta(const char *dir, const char *name, kd_buf *out);

/* ------------------------------------------------------------------ seeds */

/* KD_TEST_SEED if set, else `fallback`; printed with the test's name. */
uint64_t et_seed(const char *test, uint64_t fallback);
uint64_t et_rand(uint64_t *rng);
/* Uniform in 0..n-1 (n > 0). */
uint32_t et_below(uint64_t *rng, uint32_t n);

#endif
