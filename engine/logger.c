/* logger.c — level filter, the default stderr sink and the rate limit for
 * repeated lines. */
#include "engine/logger.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

static const char *const level_names[] = {"error", "warn", "info", "debug"};

/* Process-wide by design (see logger.h): set at start-up, then read-only. */
static kd_log_sink current_sink;
static void *current_ctx;
static atomic_int current_level = KD_LOG_WARN;

static void stderr_sink(void *ctx, kd_log_level level, const char *subsystem, const char *line)
{
    (void)ctx;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    fprintf(stderr, "%02d:%02d:%02d.%03ld %-5s [%s] %s\n", tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000L,
            level_names[level], subsystem, line);
}

void kd_log_set_sink(kd_log_sink sink, void *ctx)
{
    current_sink = sink;
    current_ctx = ctx;
}

void kd_log_set_level(kd_log_level level) { atomic_store(&current_level, (int)level); }

kd_log_level kd_log_get_level(void) { return (kd_log_level)atomic_load(&current_level); }

const char *kd_log_level_name(kd_log_level level) { return (unsigned)level < 4 ? level_names[level] : "?"; }

int kd_log_parse_level(const char *text, kd_log_level *out)
{
    for (int i = 0; i < 4; i++) {
        if (strcasecmp(text, level_names[i]) == 0) {
            *out = (kd_log_level)i;
            return 0;
        }
    }
    return -1;
}

void kd_log_write(kd_log_level level, const char *subsystem, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (current_sink)
        current_sink(current_ctx, level, subsystem, line);
    else
        stderr_sink(NULL, level, subsystem, line);
}

void kd_log_limit_init(kd_log_limit *l, unsigned interval_ms, unsigned burst)
{
    memset(l, 0, sizeof *l);
    /* A default mutex: its init cannot fail on the platforms we build for
     * (glibc and musl allocate nothing). */
    pthread_mutex_init(&l->lock, NULL);
    l->interval_ms = interval_ms ? interval_ms : 1;
    l->burst = burst ? burst : 1;
    l->window_start_ms = UINT64_MAX; /* no window yet */
}

void kd_log_limit_fini(kd_log_limit *l) { pthread_mutex_destroy(&l->lock); }

int kd_log_limit_take(kd_log_limit *l, uint64_t now_ms, unsigned *suppressed)
{
    int pass;

    pthread_mutex_lock(&l->lock);
    if (l->window_start_ms == UINT64_MAX || now_ms - l->window_start_ms >= l->interval_ms) {
        l->window_start_ms = now_ms;
        l->in_window = 0;
    }
    pass = l->in_window < l->burst;
    if (pass) {
        l->in_window++;
        *suppressed = l->suppressed;
        l->suppressed = 0;
    } else {
        l->suppressed++;
    }
    pthread_mutex_unlock(&l->lock);
    return pass;
}

void kd_log_write_limited(kd_log_limit *l, kd_log_level level, const char *subsystem, const char *fmt, ...)
{
    char line[1024];
    struct timespec ts;
    unsigned held;
    va_list ap;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    if (!kd_log_limit_take(l, (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u, &held))
        return;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (held > 0)
        kd_log_write(level, subsystem, "%s (%u similar messages suppressed)", line, held);
    else
        kd_log_write(level, subsystem, "%s", line);
}
