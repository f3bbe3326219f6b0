/*
 * threads.h — scenarios that race threads against the engine's writer,
 * shared by the Criterion tests (tests/engine/engine_read_test.c,
 * tests/mcp/gateway_test.c) and the ThreadSanitizer driver
 * (tests/threads/tsan_main.c). Criterion itself cannot run under
 * ThreadSanitizer (its sandbox maps memory where TSan keeps its shadow:
 * Criterion issue #274), so nothing here asserts: a scenario returns 0, or
 * -1 with a sentence in its report, and counts what it did.
 *
 * The workload is a ticker: every block touches episodes 1 and 2 (stress
 * cap 1: one mark on the board, so the games never end), so a consistent
 * read sees both with tip height - 1 moves, last changed by the tip's log
 * entry, whose digest is the tip's digest; and `bulk` creations per block
 * make the store grow.
 */
#ifndef KD_TESTS_THREADS_H
#define KD_TESTS_THREADS_H

#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"

#define TH_TICKER_A 1u
#define TH_TICKER_B 2u

typedef struct {
    uint64_t answers;     /* consistent answers over every reading thread */
    int map_changes;      /* map growths by this process, or adoptions of another's */
    uint64_t last_height; /* the tip the final read saw */
    char failure[512];    /* the first failure, "" when none */
} th_report;

/* The ticker's `n` blocks as encoded EngineMsgs (*out: free with
 * th_msgs_free). Returns 0, or -1 with a sentence in `why`. */
int th_ticker_msgs(size_t n, size_t bulk, kd_buf **out, char *why, size_t why_len);
void th_msgs_free(kd_buf *msgs, size_t n);
/* Checks through `rd` that a ticker store reads as one commit (above).
 * Returns 0, or -1 with a sentence in `why`. */
int th_ticker_check(kd_read *rd, char *why, size_t why_len);

/* The map grows from 64 KiB, about six times, while three threads read
 * through read handles: grown by this process's writer (other_process 0;
 * it ingests as the ingest server does, with a signature pool verifying
 * ahead of it), or by a writer process of its own (1, forked before any
 * thread starts) whose growth this process's readers must adopt. */
int th_map_growth(int other_process, th_report *rep);

/* Three MCP sessions of an in-process gateway ask, on three threads, for
 * kdapp_get_episode_state, the resource kdapp://episodes/2 and
 * kdapp_list_episodes while this thread applies blocks: every view must
 * pair the digest and the state of one commit, every page one commit. */
int th_gateway_views(th_report *rep);

#endif
