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

#include <stdarg.h>

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

#define KD_LOG_E(sub, ...) KD_LOG(KD_LOG_ERROR, sub, __VA_ARGS__)
#define KD_LOG_W(sub, ...) KD_LOG(KD_LOG_WARN, sub, __VA_ARGS__)
#define KD_LOG_I(sub, ...) KD_LOG(KD_LOG_INFO, sub, __VA_ARGS__)
#define KD_LOG_D(sub, ...) KD_LOG(KD_LOG_DEBUG, sub, __VA_ARGS__)

#endif
