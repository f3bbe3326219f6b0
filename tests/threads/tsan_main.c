/*
 * tsan_main.c — runs the threaded scenarios of threads.h outside
 * Criterion, which cannot run under ThreadSanitizer (threads.h). The
 * ThreadSanitizer pass of tools/check.sh runs it as the ctest
 * `threads_scenarios`; the plain builds run the same scenarios as
 * Criterion tests. Exits 0 when every scenario held; ThreadSanitizer
 * itself makes the exit status non-zero when it reported a race.
 */
#include <stdio.h>

#include "threads/threads.h"

typedef struct {
    const char *name;
    int (*run)(th_report *rep);
} scenario;

static int growth_here(th_report *rep) { return th_map_growth(0, rep); }
static int growth_there(th_report *rep) { return th_map_growth(1, rep); }

int main(void)
{
    static const scenario scenarios[] = {
        {"the map grows in this process while threads read", growth_here},
        {"the map grows in another process while threads read", growth_there},
        {"gateway views are one commit while blocks land", th_gateway_views},
    };
    int failed = 0;
    for (size_t i = 0; i < sizeof scenarios / sizeof scenarios[0]; i++) {
        th_report rep;
        int rc = scenarios[i].run(&rep);
        printf("%s: %s (%llu consistent answers, %d map changes)%s%s\n", scenarios[i].name, rc ? "FAILED" : "ok",
               (unsigned long long)rep.answers, rep.map_changes, rc ? ": " : "", rc ? rep.failure : "");
        failed |= rc != 0;
    }
    return failed;
}
