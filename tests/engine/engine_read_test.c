/*
 * engine_read_test.c — read handles (engine/read.c): one handle reads one
 * commit however many commits land meanwhile; what it points into stays
 * valid until it ends; and the map may grow, in this process or in
 * another one, while other threads read: no read fails, no read is torn,
 * and no thread reads a map that is being remapped (the map lock protocol
 * of engine/read.c). The growth scenarios live in tests/threads, which the
 * ThreadSanitizer pass of tools/check.sh runs as well.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <string.h>

#include "engine/support.h"
#include "threads/threads.h"

TestSuite(read, .timeout = 240);

Test(read, the_map_grows_in_this_process_while_threads_read)
{
    th_report rep;
    int rc = th_map_growth(0, &rep);
    cr_expect_eq(rc, 0, "%s", rep.failure);
    cr_log_info("%llu consistent reads, the map grew %d times", (unsigned long long)rep.answers, rep.map_changes);
}

Test(read, a_map_grown_by_another_process_is_adopted_while_threads_read)
{
    th_report rep;
    int rc = th_map_growth(1, &rep);
    cr_expect_eq(rc, 0, "%s", rep.failure);
    cr_log_info("%llu consistent reads, a grown map adopted %d times", (unsigned long long)rep.answers,
                rep.map_changes);
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
    kd_buf *msgs;
    char why[256];
    cr_assert_eq(th_ticker_msgs(3, 0, &msgs, why, sizeof why), 0, "%s", why);
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
    th_msgs_free(msgs, 3);
    et_env_fini(&env);
}
