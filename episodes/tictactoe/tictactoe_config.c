/*
 * tictactoe_config.c — the engine default for the stress-mode cap, parsed
 * from the values of KDAPP_TTT_STRESS and KDAPP_TTT_MAX_SYMBOLS. The caller
 * reads the environment once at start-up and passes the strings in, so this
 * file (like the rules) never touches the environment itself; a malformed
 * value is an error whose sentence names the variable, the value and the
 * valid range, and the program stops with it.
 */
#include "episodes/tictactoe/tictactoe.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define STRESS_VAR "KDAPP_TTT_STRESS"
#define MAX_SYMBOLS_VAR "KDAPP_TTT_MAX_SYMBOLS"

/* Longest value quoted in a message; longer ones are cut with "...". */
#define QUOTE_MAX 32

__attribute__((format(printf, 3, 4))) static void explain(char *why, size_t why_len, const char *fmt, ...)
{
    if (!why || why_len == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, why_len, fmt, ap);
    va_end(ap);
}

/* Copies `value` for quoting: printable ASCII only, cut at QUOTE_MAX. */
static void quote(const char *value, char out[QUOTE_MAX + 4])
{
    size_t n = 0;
    for (; value[n] && n < QUOTE_MAX; n++)
        out[n] = isprint((unsigned char)value[n]) ? value[n] : '?';
    if (value[n]) {
        memcpy(&out[n], "...", 3);
        n += 3;
    }
    out[n] = '\0';
}

/* 1 on, 0 off, -1 malformed. */
static int parse_switch(const char *value)
{
    static const char *const on[] = {"1", "true", "yes"};
    static const char *const off[] = {"0", "false", "no", ""};
    for (size_t i = 0; i < sizeof on / sizeof on[0]; i++)
        if (strcasecmp(value, on[i]) == 0)
            return 1;
    for (size_t i = 0; i < sizeof off / sizeof off[0]; i++)
        if (strcasecmp(value, off[i]) == 0)
            return 0;
    return -1;
}

/* Parses a decimal n >= 1; values of 9 or more saturate to 9 (classic), so
 * no value overflows. Returns 0 and sets *cap (0 classic, 1..8), or -1. */
static int parse_max_symbols(const char *value, uint8_t *cap)
{
    unsigned n = 0;
    if (!*value)
        return -1;
    for (const char *p = value; *p; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        n = n * 10 + (unsigned)(*p - '0');
        if (n > KD_TTT_MAX_CAP)
            n = KD_TTT_MAX_CAP + 1;
    }
    if (n == 0)
        return -1;
    *cap = n <= KD_TTT_MAX_CAP ? (uint8_t)n : 0;
    return 0;
}

kd_err kd_ttt_config_parse(const char *stress, const char *max_symbols, kd_ttt_config *out, char *why, size_t why_len)
{
    char shown[QUOTE_MAX + 4];
    uint8_t cap = 0;
    kd_err err = KD_OK;

    if (stress) {
        int on = parse_switch(stress);
        if (on < 0) {
            quote(stress, shown);
            explain(why, why_len,
                    "%s=\"%s\" is not valid: use 1, true or yes for stress mode (cap %d), or 0, "
                    "false, no or empty for classic",
                    STRESS_VAR, shown, KD_TTT_DEFAULT_STRESS_CAP);
            err = KD_ERR_INVALID_ARG;
            goto done;
        }
        cap = on ? KD_TTT_DEFAULT_STRESS_CAP : 0;
    }
    if (max_symbols && *max_symbols) {
        if (parse_max_symbols(max_symbols, &cap) != 0) {
            quote(max_symbols, shown);
            explain(why, why_len,
                    "%s=\"%s\" is not valid: use an integer from 1 to %d for stress mode (at most "
                    "that many symbols), or %d or more for classic",
                    MAX_SYMBOLS_VAR, shown, KD_TTT_MAX_CAP, KD_TTT_MAX_CAP + 1);
            err = KD_ERR_INVALID_ARG;
            goto done;
        }
    }
    out->default_cap = cap;
done:
    return err;
}
