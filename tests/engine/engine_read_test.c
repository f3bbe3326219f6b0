/*
 * engine_read_test.c — read handles (engine/read.c): one handle reads one
 * commit however many commits land meanwhile; what it points into stays
 * valid until it ends; and the map may grow, in this process or in
 * another one, while other threads read: no read fails, no read is torn,
 * and no thread reads a map that is being remapped (the map lock protocol
 * of engine/read.c). tools/check.sh runs these under ThreadSanitizer too.
 *
 * The workload is the support's ticker: every block touches episodes 1
 * and 2, so a consistent read sees both with tip height - 1 moves, last
 * changed by the tip's log entry, whose digest is the tip's digest.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/logger.h"
#include "engine/support.h"

#define SMALL_MAP ((size_t)64 << 10)
#define READERS 3
/* Enough blocks for the map to double about six times from SMALL_MAP. */
#define BLOCKS 300
#define BULK 48

/* ------------------------------------------------------------- the log */

/* Counts the store's "map grown" lines (growth here, adoption of a growth
 * by another process) and passes other warnings and errors on to stderr
 * (a full map, which makes the writer grow it, is expected). */
static atomic_int grown, adopted;

static void count_sink(void *ctx, kd_log_level level, const char *subsystem, const char *line)
{
    (void)ctx;
    if (strcmp(subsystem, "store") == 0 && strstr(line, "grown by another process"))
        atomic_fetch_add(&adopted, 1);
    else if (strcmp(subsystem, "store") == 0 && strstr(line, "map grown"))
        atomic_fetch_add(&grown, 1);
    if (level <= KD_LOG_WARN && !strstr(line, "MDB_MAP_FULL"))
        fprintf(stderr, "[%s] %s\n", subsystem, line);
}

static void setup(void)
{
    atomic_store(&grown, 0);
    atomic_store(&adopted, 0);
    kd_log_set_sink(count_sink, NULL);
    kd_log_set_level(KD_LOG_INFO);
}

static void teardown(void)
{
    kd_log_set_sink(NULL, NULL);
    kd_log_set_level(KD_LOG_WARN);
}

TestSuite(read, .init = setup, .fini = teardown, .timeout = 240);

/* ------------------------------------------------------------ readers */

typedef struct {
    kd_engine *engine;
    atomic_int *stop;
    atomic_int *started; /* readers that made their first read */
    pthread_t thread;
    uint64_t reads;
    uint64_t last_height;
    char failure[300]; /* the first failure, "" when none */
} reader;

static void *read_loop(void *arg)
{
    reader *r = arg;
    int first = 1;
    while (!r->failure[0]) {
        int last = atomic_load(r->stop); /* one more read after the writer is done */
        kd_read *rd;
        char why[256];
        kd_err err = kd_engine_read_begin(r->engine, &rd);
        if (err) {
            snprintf(r->failure, sizeof r->failure, "read %llu: begin: %s", (unsigned long long)r->reads,
                     kd_err_code(err));
            break;
        }
        kd_tip tip;
        if (et_ticker_check(rd, why, sizeof why) != 0)
            snprintf(r->failure, sizeof r->failure, "read %llu: %s", (unsigned long long)r->reads, why);
        else if (kd_read_tip(rd, &tip) == KD_OK)
            r->last_height = tip.height;
        kd_engine_read_end(rd);
        r->reads++;
        if (first)
            atomic_fetch_add(r->started, 1);
        first = 0;
        if (last)
            break;
    }
    if (first)
        atomic_fetch_add(r->started, 1); /* failed before its first read: do not hold the writer */
    return NULL;
}

static void readers_start(reader *rs, kd_engine *engine, atomic_int *stop, atomic_int *started)
{
    for (int i = 0; i < READERS; i++) {
        rs[i] = (reader){.engine = engine, .stop = stop, .started = started};
        cr_assert_eq(pthread_create(&rs[i].thread, NULL, read_loop, &rs[i]), 0);
    }
}

/* Waits (on the condition, not on time) until every reader has read once,
 * so the growth happens while they read. */
static void readers_wait_started(atomic_int *started)
{
    while (atomic_load(started) < READERS)
        sched_yield();
}

static void readers_join(reader *rs, uint64_t want_height)
{
    for (int i = 0; i < READERS; i++)
        pthread_join(rs[i].thread, NULL);
    for (int i = 0; i < READERS; i++) {
        cr_expect_str_empty(rs[i].failure, "reader %d: %s", i, rs[i].failure);
        cr_expect_gt(rs[i].reads, 1, "reader %d read", i);
        cr_expect_eq(rs[i].last_height, want_height, "reader %d's last read sees every block", i);
        cr_log_info("reader %d: %llu consistent reads", i, (unsigned long long)rs[i].reads);
    }
}

/* -------------------------------------------------------------- tests */

Test(read, the_map_grows_in_this_process_while_threads_read)
{
    char dir[512], why[256] = "";
    et_tmpdir(dir, sizeof dir);
    kd_buf *msgs = et_ticker_msgs(BLOCKS, BULK);
    et_env env;
    kd_engine_options o = {.map_size = SMALL_MAP, .durability = KD_DURABILITY_RELAXED};
    kd_err err = et_env_attach_with(&env, dir, 0, &o, why, sizeof why);
    cr_assert_eq(err, KD_OK, "open: %s (%s)", kd_err_code(err), why);
    atomic_int stop = 0, started = 0;
    reader rs[READERS];
    readers_start(rs, env.engine, &stop, &started);
    readers_wait_started(&started);
    for (size_t b = 0; b < BLOCKS; b++) {
        kd_msg_result res;
        et_ingest(env.engine, &msgs[b], &res);
        cr_assert_eq(res.status, KD_MSG_APPLIED, "block %zu: %s", b + 1, res.detail);
        kd_msg_result_fini(&res);
    }
    atomic_store(&stop, 1);
    readers_join(rs, BLOCKS);
    cr_expect_geq(atomic_load(&grown), 4, "the map grew (%d times) while the readers read", atomic_load(&grown));
    cr_log_info("the map grew %d times", atomic_load(&grown));
    et_msgs_free(msgs, BLOCKS);
    env.own_dir = 1;
    et_env_fini(&env);
}

/* The writer of the next test: a process of its own (forked before any
 * thread exists) that opens the store with a small map, says so on
 * `ready`, waits for `go`, then applies every block, growing its map. */
static void writer_process(const char *dir, kd_buf *msgs, int ready, int go)
{
    et_env env;
    char why[256] = "", byte = 0;
    kd_engine_options o = {.map_size = SMALL_MAP, .durability = KD_DURABILITY_RELAXED};
    int code = 0;
    if (et_env_attach_with(&env, dir, 0, &o, why, sizeof why) != KD_OK) {
        fprintf(stderr, "writer: open: %s\n", why);
        _exit(2);
    }
    for (size_t b = 0; b < BLOCKS && !code; b++) {
        kd_msg_result res;
        kd_err err = kd_engine_ingest(env.engine, msgs[b].data, msgs[b].len, &res);
        if (err || res.status != KD_MSG_APPLIED) {
            fprintf(stderr, "writer: block %zu: %s (%s)\n", b + 1, kd_err_code(err), res.detail);
            code = 3;
        }
        kd_msg_result_fini(&res);
        if (b == 0 && (write(ready, "r", 1) != 1 || read(go, &byte, 1) != 1))
            code = 4;
    }
    kd_engine_close(env.engine);
    _exit(code);
}

Test(read, a_map_grown_by_another_process_is_adopted_while_threads_read)
{
    char dir[512], why[256] = "", byte = 0;
    et_tmpdir(dir, sizeof dir);
    kd_buf *msgs = et_ticker_msgs(BLOCKS, BULK);
    int ready[2], go[2];
    cr_assert(pipe(ready) == 0 && pipe(go) == 0);
    pid_t pid = fork();
    cr_assert_geq(pid, 0, "fork");
    if (pid == 0) {
        close(ready[0]);
        close(go[1]);
        writer_process(dir, msgs, ready[1], go[0]);
    }
    close(ready[1]);
    close(go[0]);
    cr_assert_eq(read(ready[0], &byte, 1), 1, "the writer process opened the store and applied block 1");

    /* This process reads the store read-only with a map as small as the
     * writer's first one: each time the writer's data outgrows it, LMDB
     * answers MDB_MAP_RESIZED and a reader must adopt the new size. */
    et_env env;
    kd_engine_options o = {.map_size = SMALL_MAP, .read_only = 1};
    kd_err err = et_env_attach_with(&env, dir, 0, &o, why, sizeof why);
    cr_assert_eq(err, KD_OK, "read-only open: %s (%s)", kd_err_code(err), why);
    atomic_int stop = 0, started = 0;
    reader rs[READERS];
    readers_start(rs, env.engine, &stop, &started);
    readers_wait_started(&started);
    cr_assert_eq(write(go[1], "g", 1), 1);
    int status = 0;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    atomic_store(&stop, 1);
    readers_join(rs, BLOCKS);
    cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the writer process succeeded (status %d)", status);
    cr_expect_geq(atomic_load(&adopted), 2, "the readers adopted the grown map (%d times)", atomic_load(&adopted));
    cr_log_info("the readers adopted a grown map %d times", atomic_load(&adopted));
    close(ready[0]);
    close(go[1]);
    et_msgs_free(msgs, BLOCKS);
    env.own_dir = 1;
    et_env_fini(&env);
}

/* A handle on another thread keeps reading the commit it began on while
 * this thread commits; a new handle reads the new tip. */
typedef struct {
    kd_engine *engine;
    pthread_barrier_t *barrier;
    uint64_t before, during, after;
    size_t entry_len;
    int entry_same;
} pinned;

static void *pin_loop(void *arg)
{
    pinned *p = arg;
    kd_read *rd;
    kd_tip tip;
    const uint8_t *data = NULL;
    size_t len = 0;
    if (kd_engine_read_begin(p->engine, &rd) == KD_OK) {
        if (kd_read_tip(rd, &tip) == KD_OK)
            p->before = tip.height;
        if (kd_read_log_entry(rd, 1, &data, &len) != KD_OK)
            data = NULL;
        uint8_t copy[2048];
        size_t n = data && len < sizeof copy ? len : 0;
        if (n)
            memcpy(copy, data, n);
        pthread_barrier_wait(p->barrier); /* the main thread commits */
        pthread_barrier_wait(p->barrier);
        if (kd_read_tip(rd, &tip) == KD_OK)
            p->during = tip.height;
        p->entry_len = len;
        p->entry_same = n && memcmp(copy, data, n) == 0; /* still valid, unchanged */
        kd_engine_read_end(rd);
    } else {
        pthread_barrier_wait(p->barrier);
        pthread_barrier_wait(p->barrier);
    }
    if (kd_engine_tip(p->engine, &tip) == KD_OK)
        p->after = tip.height;
    return NULL;
}

Test(read, a_handle_reads_the_commit_it_began_on)
{
    et_env env;
    et_env_open(&env, 0, 0);
    kd_buf *msgs = et_ticker_msgs(3, 0);
    for (size_t b = 0; b < 2; b++) {
        kd_msg_result res;
        et_ingest(env.engine, &msgs[b], &res);
        kd_msg_result_fini(&res);
    }
    pthread_barrier_t barrier;
    pthread_barrier_init(&barrier, NULL, 2);
    pinned p = {.engine = env.engine, .barrier = &barrier};
    pthread_t t;
    cr_assert_eq(pthread_create(&t, NULL, pin_loop, &p), 0);
    pthread_barrier_wait(&barrier);
    kd_msg_result res;
    et_ingest(env.engine, &msgs[2], &res); /* commits while the handle lives */
    kd_msg_result_fini(&res);
    pthread_barrier_wait(&barrier);
    pthread_join(t, NULL);
    pthread_barrier_destroy(&barrier);
    cr_expect_eq(p.before, 2);
    cr_expect_eq(p.during, 2, "the handle still reads the commit it began on");
    cr_expect(p.entry_len > 0 && p.entry_len < 2048 && p.entry_same,
              "a log entry stays readable until the handle ends");
    cr_expect_eq(p.after, 3, "a new handle reads the new tip");
    et_msgs_free(msgs, 3);
    et_env_fini(&env);
}
