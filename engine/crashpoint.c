/*
 * crashpoint.c — the KDAPP_CRASH_AT trigger behind KD_CRASHPOINT (compiled
 * only with KD_CRASHPOINTS=ON; see crashpoint.h).
 *
 * Mutable globals, by necessity and only here: the parsed variable (set
 * once, under pthread_once) and the number of times the named point has
 * been reached (atomic). A crash point is a process-wide event — "the 3rd
 * commit of this process" — so there is no handle to keep them in.
 */
#include "engine/crashpoint.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NAME_MAX_LEN 64

static pthread_once_t parsed = PTHREAD_ONCE_INIT;
static char armed[NAME_MAX_LEN]; /* "" when no point is armed */
static unsigned long armed_nth;  /* abort at this hit (>= 1) */
static atomic_ulong hits;        /* hits of the armed point so far */

/* Writes straight to stderr: the process is about to die, and these lines
 * are what the crash test and a person reading its log look for. */
static void say(const char *a, const char *b, const char *c)
{
    char line[256];
    int n = snprintf(line, sizeof line, "kdapp: crash point: %s%s%s\n", a, b, c);
    if (n > 0)
        (void)!write(2, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

static void parse(void)
{
    const char *v = getenv("KDAPP_CRASH_AT");
    if (!v || !*v)
        return;
    const char *colon = strchr(v, ':');
    size_t len = colon ? (size_t)(colon - v) : strlen(v);
    unsigned long nth = 1;
    if (colon) {
        char *end = NULL;
        nth = strtoul(colon + 1, &end, 10);
        if (!colon[1] || *end || nth == 0) {
            say("KDAPP_CRASH_AT='", v, "' is not valid: use NAME or NAME:N with N >= 1");
            abort();
        }
    }
    if (len == 0 || len >= sizeof armed) {
        say("KDAPP_CRASH_AT='", v, "' is not valid: the point name is empty or too long");
        abort();
    }
    memcpy(armed, v, len);
    armed[len] = 0;
    armed_nth = nth;
}

void kd_crashpoint(const char *name)
{
    pthread_once(&parsed, parse);
    if (!armed[0] || strcmp(name, armed) != 0)
        return;
    if (atomic_fetch_add(&hits, 1) + 1 == armed_nth) {
        char nth[32];
        snprintf(nth, sizeof nth, " (hit %lu)", armed_nth);
        say("aborting at ", name, nth);
        abort();
    }
}
