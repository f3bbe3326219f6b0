/* node.c — start and stop an engine with its publisher and ingest server. */
#include "tools/chain/node.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

kd_err kd_node_start(kd_node *node, kd_cli *cli, const kd_node_options *opts, char *why, size_t why_len)
{
    memset(node, 0, sizeof *node);
    kd_engine_options eo = {
        .data_dir = cli->data_dir,
        .registry = &cli->registry,
        .finality_depth = opts->finality,
        .durability = opts->durability,
        .chain = opts->chain ? opts->chain : cli->chain,
    };
    kd_err err = kd_engine_open(&eo, &node->engine, why, why_len);
    if (err)
        return err;
    if ((err = kd_publisher_open(opts->publish_urls, &cli->types, &node->publisher, why, why_len)))
        goto fail;
    kd_handler_set_init(&node->handlers);
    kd_handler ph = kd_publisher_handler(node->publisher);
    if ((err = kd_handler_set_add(&node->handlers, &ph)))
        goto fail;
    kd_handler_set_attach(&node->handlers, node->engine);
    if ((err = kd_ingest_server_start(node->engine, opts->ingest_urls, &node->server, why, why_len)))
        goto fail;
    return KD_OK;
fail:
    kd_node_stop(node);
    return err;
}

void kd_node_stop(kd_node *node)
{
    kd_ingest_server_stop(node->server); /* first: no commit after this */
    node->server = NULL;
    if (node->engine)
        kd_engine_set_listener(node->engine, NULL, NULL);
    kd_publisher_close(node->publisher);
    node->publisher = NULL;
    kd_engine_close(node->engine);
    node->engine = NULL;
}

void kd_signals_block(void)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);
}

int kd_signals_wait(void)
{
    sigset_t set;
    int sig = 0;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    while (sigwait(&set, &sig) != 0)
        ;
    return sig;
}
