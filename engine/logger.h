/*
 * logger.h — the one log sink of the library.
 *
 * Library code never prints: it calls KD_LOG, which checks the level before
 * formatting and hands the line to the sink the program installed (stderr by
 * default). The sink and level are process-wide by nature (one stderr per
 * process); they are set once at start-up, before threads exist, and read
 * afterwards (the level is an atomic, so changing it later is safe too).
 * The sink itself may be called from any thread and must be thread-safe.
 */
#ifndef KD_ENGINE_LOGGER_H
#define KD_ENGINE_LOGGER_H

#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>

typedef enum {
    KD_LOG_ERROR = 0,
    KD_LOG_WARN = 1,
    KD_LOG_INFO = 2,
    KD_LOG_DEBUG = 3,
} kd_log_level;

typedef void (*kd_log_sink)(void *ctx, kd_log_level level, const char *subsystem, const char *line);

/* Installs a sink (NULL restores the default stderr sink). Not thread-safe:
 * call before starting threads. */
void kd_log_set_sink(kd_log_sink sink, void *ctx);
void kd_log_set_level(kd_log_level level);
kd_log_level kd_log_get_level(void);
/* Parses "error|warn|info|debug"; returns 0 and sets *out, or -1. */
int kd_log_parse_level(const char *text, kd_log_level *out);
const char *kd_log_level_name(kd_log_level level);

void kd_log_write(kd_log_level level, const char *subsystem, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#define KD_LOG(level, subsystem, ...)                        \
    do {                                                     \
        if ((level) <= kd_log_get_level())                   \
            kd_log_write((level), (subsystem), __VA_ARGS__); \
    } while (0)

/*
 * A rate limit for one kind of repeated line (a refused connection, a
 * dropped message): a flood of them must not drown the log, nor cost a
 * write per event. At most `burst` lines pass per window of `interval_ms`;
 * the first line that passes after some were held back says how many:
 *
 *   ... refused a connection from 10.0.0.7 (412 similar messages suppressed)
 *
 * A count held back when the flood stops is reported with the next line of
 * that kind, as the kernel's printk_ratelimit does. The limiter lives in
 * its user's handle (init/fini); it keeps its own lock, a leaf (nothing is
 * called under it), so threads may share one.
 */
typedef struct {
    pthread_mutex_t lock;
    uint64_t interval_ms, window_start_ms;
    unsigned burst, in_window, suppressed;
} kd_log_limit;

void kd_log_limit_init(kd_log_limit *l, unsigned interval_ms, unsigned burst);
void kd_log_limit_fini(kd_log_limit *l);

/* Decides for one line at `now_ms` (any monotonic scale that does not go
 * back): 1 when it may be written, with *suppressed set to the lines held
 * back since the last one written (then reset); 0 when it is held back. */
int kd_log_limit_take(kd_log_limit *l, uint64_t now_ms, unsigned *suppressed);

/* kd_log_write through `l`, on CLOCK_MONOTONIC; a line that passes after
 * some were held back ends with " (N similar messages suppressed)". */
void kd_log_write_limited(kd_log_limit *l, kd_log_level level, const char *subsystem, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#define KD_LOG_LIMITED(limit, level, subsystem, ...)                          \
    do {                                                                      \
        if ((level) <= kd_log_get_level())                                    \
            kd_log_write_limited((limit), (level), (subsystem), __VA_ARGS__); \
    } while (0)

#define KD_LOG_E(sub, ...) KD_LOG(KD_LOG_ERROR, sub, __VA_ARGS__)
#define KD_LOG_W(sub, ...) KD_LOG(KD_LOG_WARN, sub, __VA_ARGS__)
#define KD_LOG_I(sub, ...) KD_LOG(KD_LOG_INFO, sub, __VA_ARGS__)
#define KD_LOG_D(sub, ...) KD_LOG(KD_LOG_DEBUG, sub, __VA_ARGS__)

#endif
