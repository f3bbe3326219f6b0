/*
 * fuzz_support.h — what the libFuzzer targets under tests/fuzz share: a
 * real engine in a temporary directory (tic-tac-toe registered, a few
 * episodes seeded so commands have something to hit), reset every
 * FZ_RESET_EVERY inputs after checking that replaying its log reproduces
 * it; an MCP server carrying the real kdapp gateway over such an engine;
 * and small helpers (silenced logging, fatal checks, block hashes).
 *
 * A libFuzzer target is one process calling LLVMFuzzerTestOneInput over and
 * over, so the engine, the server and their directories live in
 * file-scope state of fuzz_support.c, created on first use and removed at
 * exit. That state is the one exception to "no mutable globals" here: the
 * fuzzing entry point offers no handle to keep it in. Single-threaded use
 * only (libFuzzer calls the target from one thread).
 *
 * Temporary directories go under $KD_TEST_TMP (else /tmp); tools/scripts/fuzz.sh
 * points it at /dev/shm so that synced commits cost nothing.
 */
#ifndef KD_TESTS_FUZZ_SUPPORT_H
#define KD_TESTS_FUZZ_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"
#include "mcp/server/server.h"

/* Inputs between two engine resets (each reset verifies a full replay). */
#define FZ_RESET_EVERY 2000u
/* Finality depth of the fuzzed engine: small, so pruning and the
 * "beyond finality" refusal are reached. */
#define FZ_FINALITY 8u

/* The libFuzzer entry point each target defines. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Prints "fuzz: <what>" and aborts: an invariant of the code under test
 * was broken, which libFuzzer reports as a crash with the input. */
void fz_fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

/* Routes the library's log lines to nowhere (once; FZ_VERBOSE=1 keeps them). */
void fz_quiet(void);

/* The engine for this input: opened on first use; every FZ_RESET_EVERY
 * calls the current one is checked by replay, closed, removed, and a fresh
 * one is seeded. Valid until the next fz_engine call. */
kd_engine *fz_engine(void);

/* A fresh block hash: SHA-256(tag || a process-wide counter). */
void fz_next_hash(const char *tag, uint8_t out[KD_HASH_LEN]);

/* The MCP server with the kdapp gateway bound over its own seeded engine
 * (writes are refused by a chain that accepts nothing). Created once. */
kd_mcp_server *fz_mcp_server(void);

/* The reply every session sends first: initialize, then
 * notifications/initialized. Aborts when initialize fails. */
void fz_mcp_initialize(kd_mcp_session *s);

#endif
