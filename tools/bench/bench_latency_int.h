/*
 * bench_latency_int.h — what the end-to-end latency scenarios of `kdapp
 * bench` share (bench_latency*.c): child processes (`kdapp mcp`), a
 * hand-written HTTP/1.1 client for MCP sessions and event streams, the
 * counting of events on a byte stream, and the chain the bench hosts
 * itself (a node in this process, fed one block per move, with the time
 * each block's commit returned). Internal to the bench; single-threaded
 * except where noted.
 */
#ifndef KD_TOOLS_BENCH_LATENCY_INT_H
#define KD_TOOLS_BENCH_LATENCY_INT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "engine/crypto.h"
#include "tools/bench/bench.h"
#include "tools/bench/bench_proc.h"
#include "tools/chain/node.h"

#define KD_LAT_START_S KD_BENCH_START_S /* a child opening its store and answering */
#define KD_LAT_DELIVER_S 5.0            /* one block reaching every client, at most */

/* ----------------------------------------------------------- HTTP client */

/*
 * One MCP session over Streamable HTTP on a connection of its own: the
 * session is created (initialize, notifications/initialized), subscribed
 * to `uri`, and the same connection then carries the session's GET event
 * stream. Blocking sockets during setup; afterwards the caller polls fd
 * and hands what it reads to kd_lat_count.
 */
typedef struct {
    int fd;
    char sid[96];
    char tail[64]; /* the last bytes seen: a marker split across reads */
    size_t tail_len;
    uint64_t count; /* markers seen */
    double last;    /* kd_bench_now() at the read that saw the last one */
} kd_lat_stream;

void kd_lat_stream_init(kd_lat_stream *s);
void kd_lat_stream_close(kd_lat_stream *s);
/* A session subscribed to `uri` with its GET stream open on port. 0, or -1
 * with a sentence in `why`. */
int kd_lat_session_open(kd_lat_stream *s, uint16_t port, const char *uri, char *why, size_t why_len);
/* A GET on `path` answered 200 with an event stream (the page's events). */
int kd_lat_events_open(kd_lat_stream *s, uint16_t port, const char *path, char *why, size_t why_len);
/* Counts `marker` in the next `n` bytes of the stream (a marker split
 * between two calls counts once); returns the number found in these. */
size_t kd_lat_count(kd_lat_stream *s, const char *marker, const char *data, size_t n);
/* Reads what is there (non-blocking fd) and counts `marker`, stamping
 * s->last when one was found. 0, or -1 when closed or on error. */
int kd_lat_drain(kd_lat_stream *s, const char *marker, double now);

/* -------------------------------------------------------- hosted chain */

/*
 * The chain the bench hosts: a node (engine, view publisher, ingest
 * server) in this process on a scratch directory, one tic-tac-toe episode
 * in stress mode with cap 2 (at most two marks on the board, so no line
 * and no end: the game goes on for as many blocks as a run needs), and a
 * feeder thread that applies one block with one signed move on request.
 * The engine's commit listener is wrapped so the bench reads the time the
 * block's synced LMDB commit returned (t_commit) before the publisher
 * sends its view.
 */
typedef struct {
    char dir[512], data[600], keys[600], log[600];
    char ingest_url[700], views_url[700], devnet_url[700];
    kd_cli cli;
    kd_node node;
    int node_up;
    const kd_episode_type *type;
    uint32_t episode;
    kd_key keys_[2];
    void *state, *undo;
    uint64_t counter, rng, daa;
    /* the feeder thread */
    pthread_t thread;
    int thread_up;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    uint64_t requested, done; /* blocks asked for, blocks committed */
    int stop;
    kd_err err;
    char why[256];
    double t_commit;   /* lock: kd_bench_now() when the last block's commit returned */
    double t_listener; /* writer thread only */
    uint32_t applied;  /* writer thread only: txs applied by the last commit */
    size_t view_bytes; /* the size of the view frame on the PUB socket (set by the caller) */
} kd_lat_chain;

/* Creates the scratch directory, starts the node, creates the episode
 * (its first block) and the feeder. 0, or -1 with `why`. */
int kd_lat_chain_open(const kd_bench_ctx *b, kd_lat_chain *c, char *why, size_t why_len);
/* Stops the feeder and the node and removes the directory. */
void kd_lat_chain_close(kd_lat_chain *c);
/* Asks the feeder for one more block (returns at once). */
void kd_lat_chain_request(kd_lat_chain *c);
/* Waits until every requested block is committed; its commit time in
 * *t_commit. 0, or -1 with `why` (the block failed or was not applied). */
int kd_lat_chain_wait(kd_lat_chain *c, double deadline, double *t_commit, char *why, size_t why_len);

/* ------------------------------------------------------------ scenarios */

/* A whole move as an agent sees it (bench_latency_move.c); targets missed. */
int kd_lat_agent_move(const kd_bench_ctx *b);
/* Many HTTP sessions on one gateway attached to `c` (bench_latency_sessions.c). */
int kd_lat_sessions(const kd_bench_ctx *b, kd_lat_chain *c);

/* Removes a scratch directory and everything under it ("" is a no-op). */
void kd_lat_rm_tree(const char *dir);
/* Samples in seconds → p50, p99 and max in microseconds (sorts them). */
void kd_lat_quantiles_us(double *samples, size_t n, double out[3]);
/* Sleeps `s` seconds (EINTR resumed). */
void kd_lat_sleep(double s);

#endif
