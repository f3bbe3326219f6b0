/*
 * bench_proc.h — the child processes and the line clients every scenario of
 * `kdapp bench` that drives `kdapp mcp` (or another server) shares: spawning
 * a child with pipes or a log, stopping and reaping it, a buffered line
 * reader with a deadline, the stdio JSON-RPC call by id and the MCP
 * handshake, the port an HTTP gateway announces in its log, a process's
 * resident memory, and the end of a log after a failure. Internal to the
 * bench; single-threaded (a process or reader belongs to one thread).
 */
#ifndef KD_TOOLS_BENCH_PROC_H
#define KD_TOOLS_BENCH_PROC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "tools/bench/bench.h"

#define KD_BENCH_START_S 30.0 /* a server opening its store and answering initialize */
#define KD_BENCH_PROTOCOL "2025-11-25"

/* ----------------------------------------------------------- line reader */

/* A buffered reader of one descriptor it does not own: buf[off..len) is
 * unread, and buf always has room for a NUL after it. */
typedef struct {
    int fd;
    char *buf;
    size_t len, cap, off;
} kd_bench_reader;

void kd_bench_reader_init(kd_bench_reader *r, int fd);
/* Frees the buffer (the descriptor stays open); the reader reads fd -1. */
void kd_bench_reader_fini(kd_bench_reader *r);
/* Reads what comes next into the buffer, waiting until `deadline`
 * (kd_bench_now). 0, or -1 at EOF, on error, at the deadline or past 64 MiB. */
int kd_bench_reader_fill(kd_bench_reader *r, double deadline);
/* Drops the first `n` unread bytes. */
void kd_bench_reader_consume(kd_bench_reader *r, size_t n);
/* The next line (newline stripped, NUL-terminated) into *line and its length
 * into *len (may be NULL), valid until the reader is used again. 0, or -1 as
 * kd_bench_reader_fill (a partial line stays buffered). */
int kd_bench_read_line(kd_bench_reader *r, double deadline, char **line, size_t *len);

/* Writes all of `n` bytes (EINTR resumed); 0 or -1. */
int kd_bench_write_all(int fd, const void *p, size_t n);

/* ------------------------------------------------------- child processes */

/* A child with a pipe to its stdin (`to`) and one from its stdout read by
 * lines (`out`; `from` and buf/len/cap/off name the same fields), each -1
 * when absent; a stopped process has pid -1. */
typedef struct {
    pid_t pid;
    int to;
    union {
        kd_bench_reader out;
        struct {
            int from;
            char *buf;
            size_t len, cap, off;
        };
    };
} kd_bench_proc;

/* A stopped process (pid -1, no descriptors, no buffer). */
void kd_bench_proc_init(kd_bench_proc *p);

/*
 * Starts argv (PATH searched) with the NULL-terminated `env` strings (may be
 * NULL) added to ours ("NAME" without '=' removes NAME), stderr appended to
 * `log` (NULL: /dev/null). With KD_BENCH_PIPES in `flags`, its stdin and
 * stdout are pipes to us; without, stdin is /dev/null and stdout goes to
 * the log too. KD_BENCH_GROUP: in a process group of its own (pid);
 * KD_BENCH_STDERR: stderr stays ours. 0, or -1 with errno (p stays stopped).
 */
#define KD_BENCH_PIPES 1
#define KD_BENCH_GROUP 2
#define KD_BENCH_STDERR 4
int kd_bench_proc_spawn(kd_bench_proc *p, char *const argv[], const char *const *env, const char *log, int flags);

/* Waits until `deadline` for the child to exit: its exit status (128 +
 * signal when killed), or -1 when it is still running (or already gone). */
int kd_bench_proc_reap(kd_bench_proc *p, double deadline);

/* Ends a child: closes its stdin (a stdio server exits on EOF) or, with
 * `term`, sends SIGTERM; waits a bounded time, then SIGTERM and SIGKILL.
 * Returns its exit status, or -1 when it had to be killed. Frees the
 * buffer; safe to repeat and on a process never started. */
int kd_bench_proc_stop(kd_bench_proc *p, int term);

/* ---------------------------------------------------------- stdio client */

/*
 * Sends one request line (newline included) to a stdio server and waits up
 * to `timeout_s` for the line holding "id":id, skipping notifications and
 * other answers; with id < 0 any line is the answer. 0: a result (not a
 * tool error); 1: an error answer or a tool error; -1: no answer (closed or
 * timed out). *ans and *ans_len (may be NULL) point into the child's buffer
 * until its next read.
 */
int kd_bench_rpc(kd_bench_proc *p, const char *req, size_t req_len, long id, double timeout_s, char **ans,
                 size_t *ans_len);

/* A tools/call of `tool` with `args` (a JSON object, stolen; NULL fails)
 * as request *next_id (then incremented), untimed (KD_BENCH_START_S at
 * most): its structuredContent (new reference), or NULL with why. */
json_t *kd_bench_call_json(kd_bench_proc *p, long *next_id, const char *tool, json_t *args, char *why, size_t why_len);

/* initialize (id 1), then notifications/initialized. 0, or -1. */
int kd_bench_handshake(kd_bench_proc *p);

/* ------------------------------------------------------------------ misc */

/* Waits until `log` has a line "… http://ADDR:PORT/mcp …" (the HTTP
 * gateway's start line) and returns PORT; 0 at the deadline or when the
 * child `p` (may be NULL) exited first. */
uint16_t kd_bench_http_port(kd_bench_proc *p, const char *log, double timeout_s);

/* Resident memory (VmRSS) of a process in KiB; 0 when unknown. */
unsigned long kd_bench_rss_kb(pid_t pid);

/*
 * A fresh scratch directory under b->work_dir named after `tag` (dir, 512
 * bytes) and the paths in it of a store (data), a key directory (keys) and
 * a log named `log_name` (600 bytes each). With `agents`, the key
 * directory is created holding two fresh keys, "agent1" and "agent2" (what
 * `kdapp mcp --grant agent1,agent2` plays with). 0, or -1 with `why`; the
 * caller removes the directory (kd_remove_tree).
 */
int kd_bench_scratch(const kd_bench_ctx *b, const char *tag, const char *log_name, int agents, char *dir, char *data,
                     char *keys, char *log, char *why, size_t why_len);

/* Sleeps `s` seconds (EINTR resumed). */
void kd_bench_sleep(double s);
/* Samples in seconds → p50, p99 and max in microseconds (sorts them). */
void kd_bench_quantiles_us(double *samples, size_t n, double out[3]);

/* Prints the last kilobyte of a log to stderr, after a failure. */
void kd_bench_show_log(const char *path);

/* Runs the calling thread and process `pid` on one CPU, the one the
 * caller is on: a request and its answer then pass by a context switch on
 * that core, never by a wake-up across cores, whose cost the machine picks
 * anew for each run (two modes a factor of two apart here). 0, or -1 when
 * the affinity cannot be set (nothing changed then). One pin at a time;
 * `pid` must have been started with the caller's CPUs. */
int kd_bench_pin_with(pid_t pid);
/* Gives the calling thread and `pid` the caller's CPUs from before the pin. */
void kd_bench_unpin_with(pid_t pid);

#endif
