/*
 * node.h — an engine serving its sockets: the LMDB engine (holding the data
 * directory's lock), the handler set with the view publisher, and the
 * ingest server. `kdapp engine`, `kdapp up` and the embedded MCP gateway
 * all run one.
 */
#ifndef KD_TOOLS_NODE_H
#define KD_TOOLS_NODE_H

#include "engine/engine.h"
#include "engine/ingest_server.h"
#include "handlers/handler.h"
#include "handlers/publisher.h"
#include "tools/common/cli.h"

typedef struct {
    const char *ingest_urls;  /* comma-separated; required */
    const char *publish_urls; /* comma-separated; required */
    uint64_t finality;        /* 0: stored / default */
    kd_durability durability;
    const char *chain; /* the chain the store follows (engine/chain.h); NULL: cli->chain */
} kd_node_options;

typedef struct {
    kd_engine *engine;
    kd_publisher *publisher;
    kd_handler_set handlers;
    kd_ingest_server *server;
} kd_node;

/* Opens the engine on cli->data_dir and starts serving. On failure prints
 * nothing, fills `why` and returns the error (KD_ERR_LOCKED when another
 * process holds the data directory). `node` must stay at a fixed address
 * until kd_node_stop. */
kd_err kd_node_start(kd_node *node, kd_cli *cli, const kd_node_options *opts, char *why, size_t why_len) KD_WARN_UNUSED;
/* Finishes the request in progress, stops serving and closes. Idempotent. */
void kd_node_stop(kd_node *node);

/* Blocks SIGINT/SIGTERM (and ignores SIGPIPE) in the calling thread and in
 * threads it starts later; call first thing in main. */
void kd_signals_block(void);
/* Waits for SIGINT or SIGTERM; returns the signal number. */
int kd_signals_wait(void);

#endif
