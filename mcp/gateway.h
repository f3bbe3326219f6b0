/*
 * gateway.h — the kdapp MCP gateway: binds the engine's read API, the
 * engine's published views and a chain to submit to into an MCP server's
 * tools, resources and prompts.
 *
 *   agent --tools/call--> gateway --submit payload--> chain (devnet)
 *                            ^                          |
 *                            |   "blk" summary (NNG)    v
 *                            +------------------- engine applies block
 *                            |   "ep/<id>" views  -> notifications/resources/updated
 *                            +-- LMDB read-only   -> views, strategy context
 *
 * kdapp_execute_command answers only after the block carrying the move was
 * applied: it registers the transaction id and waits for the engine's block
 * summary that names it (a short cache of recent outcomes closes the race
 * between submitting and waiting).
 */
#ifndef KD_MCP_GATEWAY_H
#define KD_MCP_GATEWAY_H

#include "engine/crypto.h"
#include "engine/engine.h"
#include "mcp/server.h"

/* How the gateway reaches the chain (filled by the program: an in-process
 * devnet, or a client of a devnet daemon). */
typedef struct {
    /* Queues one payload; writes its tx id. Errors name themselves in why. */
    kd_err (*submit)(void *ctx, const uint8_t *payload, size_t len, uint8_t tx_id[KD_HASH_LEN], char *why,
                     size_t why_len);
    /* Reverts the last `depth` blocks and re-includes their txs; NULL when
     * the chain cannot (then kdapp_simulate_reorg is not offered). */
    kd_err (*reorg)(void *ctx, uint32_t depth, json_t **report, char *why, size_t why_len);
    void *ctx;
} kd_gateway_chain;

typedef struct {
    kd_engine *engine;     /* read API; must outlive the gateway */
    const char *views_url; /* the engine's publish URL */
    const char *keys_dir;  /* server-side signing keys */
    kd_gateway_chain chain;
    uint32_t wait_ms; /* how long a write waits for its block [30000] */
} kd_gateway_options;

typedef struct kd_gateway kd_gateway;

/* Registers every kdapp tool, resource and prompt on `srv` and starts
 * following the views. Creates the agent keys agent1/agent2 when the key
 * directory has no keys. Errors: KD_ERR_NET (views URL), KD_ERR_IO (keys),
 * with `why`. */
kd_err kd_gateway_open(const kd_gateway_options *opts, kd_mcp_server *srv, kd_gateway **out, char *why,
                       size_t why_len) KD_WARN_UNUSED;
/* Stops following the views and frees. Call after the transports stopped. */
void kd_gateway_close(kd_gateway *gw);

#endif
