/*
 * bench_mcp_int.h — what the gateway scenarios of `kdapp bench` share:
 * bench_mcp.c (the fixture, the stdio and TypeScript scenarios) and
 * bench_mcp_http.c (the HTTP scenario); child processes and the stdio
 * client are bench_proc.h's.
 * Internal to the bench; single-threaded except where noted.
 */
#ifndef KD_TOOLS_BENCH_MCP_INT_H
#define KD_TOOLS_BENCH_MCP_INT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "tools/bench/bench.h"
#include "tools/bench/bench_proc.h" /* kd_bench_proc, kd_bench_proc_init/_stop, kd_bench_show_log */

#define KD_BENCH_CALL_S 10.0        /* one call, a move included (it waits for its block) */
#define KD_BENCH_ID_BASE 100000000L /* nine-digit ids: every request has the same size */
#define KD_BENCH_TOOL "kdapp_get_strategy_context"

/* The scratch data directory, keys and episode every scenario uses. */
typedef struct {
    char dir[512], data[600], keys[600], log[600]; /* log: the gateways' stderr */
    uint32_t episode;
    char *reply; /* a strategy-context answer line, newline included */
    size_t reply_len;
    char *result; /* its "result" member (the TypeScript server's fixed reply) */
    long next_id; /* the next request id on stdio gateways */
} kd_bench_fixture;

/* Starts `kdapp mcp` with the calls-per-second limit lifted on the
 * fixture: `http` is "ADDR:PORT" for Streamable HTTP (the caller reads the
 * port from f->log), NULL for stdio (then initialized here). 0 or -1. */
int kd_bench_gateway_spawn(const kd_bench_ctx *b, const kd_bench_fixture *f, const char *http, kd_bench_proc *p);

/* One tools/call request line (newline included) for `id`; its length, 0 when `cap` is too small. */
size_t kd_bench_call_line(char *buf, size_t cap, long id, const char *tool, const char *args);

/* The HTTP scenario (bench_mcp_http.c); the number of targets missed. */
int kd_bench_mcp_http(const kd_bench_ctx *b, kd_bench_fixture *f);
/* The slowloris scenario (bench_mcp_flood.c): a granted call's time beside
 * 1,010 trickling sockets; 1 when it failed, else 0 (figures, no target). */
int kd_bench_mcp_flood(const kd_bench_ctx *b, kd_bench_fixture *f);

#endif
