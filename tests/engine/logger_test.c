/*
 * logger_test.c — the rate limit for repeated log lines: the burst per
 * window, the count of lines held back and its report on the next line
 * that passes, on a clock the test sets (kd_log_limit_take) and through
 * the sink (kd_log_write_limited).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "engine/logger.h"

TestSuite(logger, .timeout = 30);

Test(logger, limit_burst_window_and_count)
{
    kd_log_limit l;
    unsigned held = 99;
    int i, passed = 0;

    kd_log_limit_init(&l, 1000, 3);
    for (i = 0; i < 3; i++) {
        cr_expect_eq(kd_log_limit_take(&l, 5000 + (uint64_t)i, &held), 1, "line %d of the burst passes", i);
        cr_expect_eq(held, 0);
    }
    for (i = 0; i < 100; i++)
        passed += kd_log_limit_take(&l, 5003 + (uint64_t)i * 8, &held);
    cr_expect_eq(passed, 0, "beyond the burst, the rest of the window is held back");
    cr_expect_eq(kd_log_limit_take(&l, 6000, &held), 1, "a new window lets a line through");
    cr_expect_eq(held, 100, "and it reports the lines held back");
    cr_expect_eq(kd_log_limit_take(&l, 6001, &held), 1);
    cr_expect_eq(held, 0, "the count is reported once");
    kd_log_limit_fini(&l);
}

typedef struct {
    int n;
    char last[1100];
} capture;

static void capture_sink(void *ctx, kd_log_level level, const char *subsystem, const char *line)
{
    capture *c = ctx;

    (void)level;
    (void)subsystem;
    c->n++;
    snprintf(c->last, sizeof c->last, "%s", line);
}

Test(logger, write_limited_reports_suppressed)
{
    static capture cap;
    kd_log_limit l;
    int i;

    kd_log_set_sink(capture_sink, &cap);
    kd_log_limit_init(&l, 3600u * 1000u, 1); /* a window longer than the test */
    for (i = 0; i < 50; i++)
        KD_LOG_LIMITED(&l, KD_LOG_WARN, "test", "refused connection %d", i);
    cr_expect_eq(cap.n, 1, "one line of fifty within the window");
    cr_expect_str_eq(cap.last, "refused connection 0");
    l.window_start_ms -= l.interval_ms; /* the window is over */
    KD_LOG_LIMITED(&l, KD_LOG_WARN, "test", "refused connection %d", 50);
    cr_expect_eq(cap.n, 2);
    cr_expect_str_eq(cap.last, "refused connection 50 (49 similar messages suppressed)");
    KD_LOG_LIMITED(&l, KD_LOG_DEBUG, "test", "below the level: %s", "not counted");
    cr_expect_eq(l.suppressed, 0, "a line below the level is neither written nor counted");
    kd_log_limit_fini(&l);
    kd_log_set_sink(NULL, NULL);
}
