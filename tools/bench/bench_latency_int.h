/*
 * bench_latency_int.h — what the end-to-end latency scenarios of `kdapp
 * bench` share (bench_latency*.c): the chain the bench hosts itself (a node
 * in this process, fed one block per request, with the time each block's
 * commit returned); child processes and timing are bench_proc.h's, the
 * HTTP streams bench_http.h's. Internal to the bench; single-threaded
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
#include "tools/bench/bench_http.h"
#include "tools/bench/bench_proc.h"
#include "tools/chain/node.h"

#define KD_LAT_START_S KD_BENCH_START_S /* a child opening its store and answering */
#define KD_LAT_DELIVER_S 5.0            /* one block reaching every client, at most */

/* -------------------------------------------------------- hosted chain */

/*
 * The chain the bench hosts: a node (engine, view publisher, ingest
 * server) in this process on a scratch directory, one episode of a type the
 * bench plays alone (kd_bench_play_type) that never ends (a move that would
 * end it is replaced by the revert of the block before), and a feeder
 * thread that applies one block on request. The engine's commit listener
 * is wrapped so the bench reads the time the block's synced LMDB commit
 * returned (t_commit) before the publisher sends its view.
 */
typedef struct {
    char dir[512], data[600], keys[600], log[600];
    char ingest_url[700], views_url[700], devnet_url[700];
    kd_cli cli;
    kd_node node;
    int node_up;
    const kd_episode_type *type;
    uint32_t episode;
    kd_key keys_[KD_MAX_PARTICIPANTS];
    void *state, *scratch; /* the game as the feeder plays it; a copy a move is tried on */
    uint8_t *stack;        /* per applied move: its block hash, then its undo record */
    size_t depth, stack_cap, stack_stride;
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
 * (its first block) and the feeder. 0, or -1 with `why` and nothing
 * left to close. */
int kd_lat_chain_open(const kd_bench_ctx *b, kd_lat_chain *c, char *why, size_t why_len);
/* Stops the feeder and the node and removes the directory: once, after
 * an open that succeeded. */
void kd_lat_chain_close(kd_lat_chain *c);
/* Asks the feeder for one more block (returns at once). */
void kd_lat_chain_request(kd_lat_chain *c);
/* Waits until every requested block is committed; its commit time in
 * *t_commit. 0, or -1 with `why` (the block failed or was not applied). */
int kd_lat_chain_wait(kd_lat_chain *c, double deadline, double *t_commit, char *why, size_t why_len);

/* Starts `kdapp mcp` attached to the hosted chain, `env` added to its
 * environment and its stderr into `log`: with `port`, --http on a free
 * port (read into *port from the log); else --stdio on pipes (initialize
 * not sent). 0, or -1 with `why`. */
int kd_lat_gateway(const kd_bench_ctx *b, const kd_lat_chain *c, const char *const *env, const char *log,
                   kd_bench_proc *p, uint16_t *port, char *why, size_t why_len);

/* ------------------------------------------------------------ scenarios */

/* A whole move as an agent sees it (bench_latency_move.c); targets missed. */
int kd_lat_agent_move(const kd_bench_ctx *b);

#endif
