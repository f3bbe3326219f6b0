/*
 * bench_scale_proc.h — the child processes `kdapp bench --scale` measures:
 * an engine daemon on a store and a stdio gateway attached to it
 * (bench_scale_proc.c). Internal to the bench; single-threaded.
 */
#ifndef KD_TOOLS_BENCH_SCALE_PROC_H
#define KD_TOOLS_BENCH_SCALE_PROC_H

#include <sys/types.h>

#include "tools/bench/bench.h"
#include "tools/bench/bench_mcp_int.h"

/* A process's memory in KiB from /proc/PID/status: anonymous resident
 * (RssAnon: heap and stacks, not LMDB's mapped file), all resident (VmRSS,
 * the file's pages included) and the peak of the latter (VmHWM). Zeros
 * when unknown. */
typedef struct {
    unsigned long anon_kb, rss_kb, hwm_kb;
} kd_scale_mem;

kd_scale_mem kd_scale_mem_of(pid_t pid);

/* Starts `kdapp engine --data DATA --finality F` (its default sockets,
 * stderr to `log`) as `p`. 0, or -1 with errno. */
int kd_scale_daemon_spawn(const kd_bench_ctx *b, const char *data, uint64_t finality, const char *log,
                          kd_bench_proc *p);
/* SIGTERM and up to 30 s for it to exit, then kd_bench_proc_stop. Accepts
 * a stopped process. */
void kd_scale_daemon_stop(kd_bench_proc *p);
/* Sends n encoded EngineMsgs one by one to the daemon on DATA's default
 * ingest socket (waiting up to a minute for it to listen). Errors: those
 * of the ingest client, with `why`. */
kd_err kd_scale_daemon_feed(const char *data, const kd_buf *msgs, size_t n, char *why, size_t why_len) KD_WARN_UNUSED;

/* One tools/call on a stdio gateway: 0 a result, 1 an error answer, -1 no
 * answer in KD_BENCH_CALL_S. *ans (may be NULL) points into p's buffer
 * until the next read. */
int kd_scale_call(kd_bench_proc *p, long id, const char *tool, const char *args, char **ans);

#endif
