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
 * applied: it waits for the engine's block summary that names the
 * transaction (a short cache of recent outcomes closes the race between
 * submitting and waiting). PUB drops summaries for a slow subscriber, so
 * the answer never depends on one: whenever the engine's log has entries
 * that no received summary covered, the waiting write looks its
 * transaction up in the log itself (kd_engine_find_tx), from the log
 * position it noted before submitting.
 *
 * The gateway knows no game: every type-specific answer (the type argument's
 * names, params and command JSON and their schemas, seats, the seat to move,
 * legal moves, views, strategy context, prompts, kdapp://types) comes from
 * the kd_type_table in its options (episodes/episode_type.h).
 */
#ifndef KD_MCP_GATEWAY_H
#define KD_MCP_GATEWAY_H

#include "engine/crypto.h"
#include "engine/engine.h"
#include "episodes/episode_type.h"
#include "mcp/server/http.h"
#include "mcp/server/server.h"

/* Who asked for a write, said with every payload the gateway submits, so
 * that a chain whose transactions cost coins (`kdapp up --rpc`) pays only
 * as it allows (tools/chain/spend.h is the chain's side; the devnet costs
 * nothing and ignores it):
 *
 *   SESSION  a tool call: the keys of the session's grant, and the grant's
 *            name, under which a funding wallet keeps its budget; a session
 *            without a grant names neither, so no one's coins pay for it
 *   DUTY     what the duties thread owes with one of its keys (a reveal, an
 *            opening): that key, and the grant holding it, or "house:NAME"
 *            for the house's own duties (in episodes it consented to: the
 *            duties thread answers only commitments its key made)
 */
typedef enum {
    KD_GATEWAY_SPEND_SESSION = 1,
    KD_GATEWAY_SPEND_DUTY = 2,
} kd_gateway_spend_kind;

#define KD_GATEWAY_SPEND_KEYS 64
#define KD_GATEWAY_GRANT_NAME_MAX 256

typedef struct {
    kd_gateway_spend_kind kind;
    char grant[KD_GATEWAY_GRANT_NAME_MAX]; /* "" for none */
    size_t n_keys;
    kd_pubkey keys[KD_GATEWAY_SPEND_KEYS];
} kd_gateway_spend;

/* How the gateway reaches the chain (filled by the program: an in-process
 * devnet, or a client of a devnet daemon). Its functions are called from
 * the transports' threads, any number at once. */
typedef struct {
    /* Queues one payload asked for by `spend` (never NULL); writes its tx
     * id. Errors name themselves in why. KD_ERR_DENIED: no wallet may pay
     * for it (the sentence names the wallet and why). KD_ERR_TIMEOUT,
     * KD_ERR_NET and KD_ERR_CLOSED leave it unknown whether the chain
     * queued the payload; any other error means it did not. */
    kd_err (*submit)(void *ctx, const uint8_t *payload, size_t len, const kd_gateway_spend *spend,
                     uint8_t tx_id[KD_HASH_LEN], char *why, size_t why_len);
    /* Sends a transaction the client built, signed and pays for itself (the
     * node's JSON, NUL-terminated); writes its id. NULL when the chain takes
     * none (then kdapp_submit_transaction is not offered). Errors as
     * submit: KD_ERR_INVALID_ARG (not a transaction the chain can carry),
     * KD_ERR_REJECTED (the node's words). */
    kd_err (*submit_tx)(void *ctx, const char *json, uint8_t tx_id[KD_HASH_LEN], char *why, size_t why_len);
    /* Reverts the last `depth` blocks and re-includes their txs; NULL when
     * the chain cannot (then kdapp_simulate_reorg is not offered). Errors
     * as submit: KD_ERR_TIMEOUT, KD_ERR_NET and KD_ERR_CLOSED leave it
     * unknown whether the reorg happened. */
    kd_err (*reorg)(void *ctx, uint32_t depth, json_t **report, char *why, size_t why_len);
    /* Optional: a chain that mines on demand (the devnet) mines empty blocks
     * until its DAA score reaches `daa`; the duties thread asks it while a
     * house waits for an ask to be its reveal depth deep. NULL: the
     * chain's blocks come by themselves (a Kaspa node). Errors name
     * themselves in why (logged, never fatal). */
    kd_err (*advance)(void *ctx, uint64_t daa, char *why, size_t why_len);
    void *ctx;
} kd_gateway_chain;

typedef struct {
    kd_engine *engine; /* read API; must outlive the gateway */
    /* The episode types it serves: the type argument's names, kdapp://types,
     * every schema, command and rendering. The first is the default type.
     * Must outlive the gateway; NULL: the built-in types (kd_type_table_init). */
    const kd_type_table *types;
    const char *views_url; /* the engine's publish URL */
    const char *keys_dir;  /* server-side signing keys */
    /* Seat grants (README "Seats and grants"): each a comma-separated list
     * of key names of keys_dir ("agent1,agent2"). A session acts for a key
     * (signs with it, sees its seats' secrets) only when its principal is
     * a grant holding it: kd_gateway_grant(gw, i) for grants[i], given to
     * the transport (the stdio session, or an HTTP bearer token). The
     * duties thread pays what the granted keys' seats owe. */
    const char *const *grants;
    size_t n_grants;
    /* The key (a name of keys_dir) this gateway plays the house with for
     * all comers, in the seats a type marks as the house's: it commits and
     * consents to the house's terms at kdapp_start_episode and pays the
     * house's duties. No session signs with it unless a grant holds it.
     * NULL: no house. */
    const char *house;
    /* The limits its operator sets on the house's terms (gateway_terms.c),
     * each "[TYPE.]NAME=MAX" or "[TYPE.]NAME=MIN..MAX" over a type's
     * declared defaults (kd_episode_type.house_terms): the house consents
     * only to creations within them. Needs `house`. */
    const char *const *house_limits;
    size_t n_house_limits;
    /* The house's reveal depth (episodes/house.h), a term it sets in every
     * creation it consents to: the DAA score an ask's block must be deep
     * before the duties thread reveals it. The program picks it per chain
     * (KD_HOUSE_DEPTH_DEVNET, KD_HOUSE_DEPTH_KASPA; kdapp mcp
     * --reveal-depth); at most KD_HOUSE_DEPTH_MAX. */
    uint32_t reveal_depth;
    kd_gateway_chain chain;
    uint32_t wait_ms; /* how long a write waits for its block [30000] */
    /* Test seam (KDAPP_TEST_DROP_SUMMARIES): drop every Nth block summary
     * received, as a slow subscriber loses them (1: all of them); 0: off. */
    uint32_t drop_summaries;
} kd_gateway_options;

typedef struct kd_gateway kd_gateway;

/* Registers every kdapp tool, resource and prompt on `srv` and starts
 * following the views, and the duties thread when a grant or the house
 * names a key. Creates the agent keys agent1, agent2, ... (two, or the
 * largest min_seats of the types) when the key directory has no keys.
 * Errors: KD_ERR_NET (views URL), KD_ERR_IO (keys), KD_ERR_NOT_FOUND (a
 * grant or the house names a key that is not there), KD_ERR_INVALID_ARG
 * (no type, a bad grant, a bad house limit), KD_ERR_PARSE (a type's schema
 * is not JSON), with `why`. */
kd_err kd_gateway_open(const kd_gateway_options *opts, kd_mcp_server *srv, kd_gateway **out, char *why,
                       size_t why_len) KD_WARN_UNUSED;
/* Checks the house limits kd_gateway_open would take (`limits`, n of them,
 * kd_gateway_options.house_limits, with `house`) against `types` (NULL:
 * the built-in types) without opening anything, so a program refuses them
 * before it starts. Errors: KD_ERR_INVALID_ARG with a sentence in `why`
 * naming the limit and what is wrong with it. Thread-safe. */
kd_err kd_gateway_house_limits_check(const kd_type_table *types, const char *house, const char *const *limits, size_t n,
                                     char *why, size_t why_len) KD_WARN_UNUSED;

/* The principal of grant `i` (opts->grants[i]), for a transport
 * (kd_mcp_stdio_options.principal, kd_mcp_http_token.principal); NULL when
 * there is no such grant. Valid while the gateway lives. */
const void *kd_gateway_grant(const kd_gateway *gw, size_t i);

/*
 * The board page (mcp/web/, README "Board page"): kd_mcp_http_options.page
 * with the gateway as ctx. Serves the built-in files (/ lists the
 * episodes, /episodes/{id} shows one, /app.js, /types/<type>.js, ...) to
 * anyone who passed the transport's Host and Origin checks, and the data
 * only when `authorized`: /api/episodes (every episode's summary) and
 * /api/episodes/{id} ({"view": the enriched view, "text": the type's text
 * board, "renderer": "/types/<type>.js" or null}), /api/ratings and
 * /api/tables (the lobby; "your_keys" the keys of `principal`, the grant
 * of the seat token the request carried, NULL for none). Unknown paths: 404.
 * Errors: KD_ERR_NOMEM. Thread-safe (each call reads on its own).
 */
kd_err kd_gateway_page(void *gw, const char *path, int authorized, const void *principal,
                       kd_mcp_http_page *out) KD_WARN_UNUSED;
/* kd_mcp_http_options.page_costly: 1 for /api/episodes/{id}/audit (it
 * replays the episode's log), so that the transport runs it on a worker
 * and limits each client's rate of them. Thread-safe. */
int kd_gateway_page_costly(void *gw, const char *path);

/* The protocol extensions the gateway's content needs the server to offer
 * (kd_mcp_server_options.extensions_json): MCP Apps, for the board widget
 * (ui://kdapp/board.html) that the tools returning a board name. */
#define KD_GATEWAY_EXTENSIONS_JSON "{\"io.modelcontextprotocol/ui\":{}}"

/* The path of the page's event stream (kd_mcp_http_options.events_path). */
#define KD_GATEWAY_EVENTS_PATH "/api/events"

/*
 * From now on, each episode view the engine publishes is passed to
 * `fn(ctx, "view", json)`: the episode's summary as compact JSON
 * (episode_id, type, phase, seats, log_seq, last_event, and the type's
 * status and move_count when it has them) and what the page draws of it
 * ("view", "text", "renderer": see kd_gateway_page), on the views thread
 * (kd_mcp_http_publish fits); and each change of the lobby of open tables
 * to `fn(ctx, "tables", json)` (gateway_lobby.c). NULL stops; when this returns, `fn` is no
 * longer running for the old listener. Thread-safe.
 */
void kd_gateway_set_view_listener(kd_gateway *gw, void (*fn)(void *ctx, const char *event, const char *data),
                                  void *ctx);

/* Stops following the views and frees. Call after the transports stopped. */
/* What the cache of answers holds and did (gateway_cache.c): answers
 * served from it and built, answers kept and their bytes. Thread-safe. */
typedef struct {
    uint64_t hits, misses;
    size_t answers, bytes;
} kd_gateway_cache_stats;
void kd_gateway_cache_stats_get(kd_gateway *gw, kd_gateway_cache_stats *out);

/* The agent keys the gateway made at open because the key directory held
 * no key ("agent1, agent2"), or "" when it made none: a program says so, as
 * a directory named wrongly would otherwise give fresh identities without
 * a word. Valid while the gateway lives. */
const char *kd_gateway_made_keys(const kd_gateway *gw);

void kd_gateway_close(kd_gateway *gw);

#endif
