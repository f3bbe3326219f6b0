/*
 * cmd_mcp.c — `kdapp mcp`: the MCP gateway for agents, over stdio (the
 * default) or Streamable HTTP.
 *
 * Where the data comes from:
 *
 *   embedded (default)  this process runs the engine and a devnet as
 *                       threads, like `kdapp up`, and serves the data
 *                       directory's default sockets for other tools;
 *   attached            when another process already holds the data
 *                       directory (`kdapp up`, `kdapp engine`, another
 *                       `kdapp mcp`), the gateway attaches to it: LMDB
 *                       read-only for queries, its views for notifications,
 *                       its devnet socket for moves; so two agents that each
 *                       launch a stdio gateway play the same episodes;
 *   named daemons       --views URL (the engine's publish socket) and
 *                       --devnet URL attach to daemons elsewhere.
 *
 * stdout carries only protocol messages; logs go to stderr.
 */
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/logger.h"
#include "engine/netutil.h"
#include "episodes/house.h"
#include "mcp/gateway/gateway.h"
#include "mcp/server/http.h"
#include "mcp/server/stdio.h"
#include "tools/cli/commands.h"
#include "tools/common/options.h"
#include "tools/chain/devnet.h"
#include "tools/chain/devnet_client.h"
#include "tools/common/endpoints.h"
#include "tools/chain/node.h"
#include "tools/kaspa/kaspa_ledger.h"

#define INSTRUCTIONS                                                                                    \
    "kdapp gateway: game episodes on a chain that can reorganise. Start a game with "                   \
    "kdapp_start_episode (the episode type and its params). Each turn call kdapp_get_strategy_context " \
    "(or the kdapp_turn prompt) and kdapp_legal_moves, then kdapp_execute_command with the type's "     \
    "command; it answers after the block carrying the move is applied. Subscribe to "                   \
    "kdapp://episodes/{id} to hear of every change, rollbacks included."

/* ------------------------------------------------------------- chains */

static kd_err devnet_submit(void *ctx, const uint8_t *payload, size_t len, const kd_gateway_spend *spend,
                            uint8_t tx_id[KD_HASH_LEN], char *why, size_t why_len)
{
    (void)spend; /* the devnet costs nothing */
    kd_err err = kd_devnet_submit(ctx, payload, len, tx_id);
    if (err)
        snprintf(why, why_len, "the devnet refused the transaction: %s", kd_err_str(err));
    return err;
}

static json_t *reorg_report(uint32_t reverted, uint32_t reincluded, uint32_t dropped, uint64_t height)
{
    return json_pack("{s:i, s:i, s:i, s:I}", "reverted", (json_int_t)reverted, "reincluded", (json_int_t)reincluded,
                     "dropped", (json_int_t)dropped, "height", (json_int_t)height);
}

static kd_err devnet_reorg(void *ctx, uint32_t depth, json_t **report, char *why, size_t why_len)
{
    kd_devnet_reorg_result r;
    kd_err err = kd_devnet_reorg(ctx, depth, 0.0, 0, &r);
    *report = reorg_report(r.reverted, r.reincluded, r.dropped, r.height);
    if (err)
        snprintf(why, why_len, "%s", r.detail[0] ? r.detail : kd_err_str(err));
    return err;
}

/* The gateway's who-asked as the chain's (the same members: gateway.h,
 * tools/chain/spend.h). */
static void chain_spend_of(const kd_gateway_spend *g, kd_chain_spend *c)
{
    memset(c, 0, sizeof *c);
    c->kind = g->kind == KD_GATEWAY_SPEND_DUTY ? KD_SPEND_DUTY : KD_SPEND_SESSION;
    snprintf(c->grant, sizeof c->grant, "%s", g->grant);
    c->n_keys = g->n_keys < KD_SPEND_KEYS_MAX ? g->n_keys : KD_SPEND_KEYS_MAX;
    memcpy(c->keys, g->keys, c->n_keys * sizeof c->keys[0]);
}

static kd_err client_submit(void *ctx, const uint8_t *payload, size_t len, const kd_gateway_spend *spend,
                            uint8_t tx_id[KD_HASH_LEN], char *why, size_t why_len)
{
    kd_buf p = {.data = (uint8_t *)payload, .len = len, .cap = len};
    uint8_t ids[1][KD_HASH_LEN];
    kd_chain_spend cs;
    chain_spend_of(spend, &cs);
    kd_err err = kd_devnet_client_submit_as(ctx, &p, 1, &cs, ids, NULL, NULL, why, why_len);
    if (!err)
        memcpy(tx_id, ids[0], KD_HASH_LEN);
    return err;
}

static kd_err devnet_advance(void *ctx, uint64_t daa, char *why, size_t why_len)
{
    kd_err err = kd_devnet_advance(ctx, daa);
    if (err)
        snprintf(why, why_len, "the devnet mines no more: %s", kd_err_str(err));
    return err;
}

static kd_err client_advance(void *ctx, uint64_t daa, char *why, size_t why_len)
{
    return kd_devnet_client_advance(ctx, daa, NULL, why, why_len);
}

static kd_err client_submit_tx(void *ctx, const char *json, uint8_t tx_id[KD_HASH_LEN], char *why, size_t why_len)
{
    return kd_devnet_client_submit_tx(ctx, json, tx_id, NULL, why, why_len);
}

static kd_err client_reorg(void *ctx, uint32_t depth, json_t **report, char *why, size_t why_len)
{
    kd_devnet_answer ans = {0};
    kd_err err = kd_devnet_client_reorg(ctx, depth, 0.0, 0, &ans, why, why_len);
    *report = reorg_report(ans.reverted, ans.reincluded, ans.dropped, ans.height);
    return err;
}

/* What the chain at `url` says of itself (its status: whether it takes
 * transactions clients pay for themselves, `kdapp up --rpc`, a Kaspa
 * node; whether it mines on demand, the devnet), asked once at start with
 * a short timeout; 0 with `why` when it does not answer, and at once when
 * its ipc:// socket is not there (a data directory held by `kdapp engine`
 * alone has none). */
static int chain_status(const char *url, kd_devnet_answer *ans, char *why, size_t why_len)
{
    if (!strncmp(url, "ipc://", 6) && access(url + 6, F_OK) != 0) {
        snprintf(why, why_len, "no chain listens at %.200s", url);
        return 0;
    }
    kd_devnet_client *probe = NULL;
    int known = kd_devnet_client_open(url, 2000, &probe, why, why_len) == KD_OK &&
                kd_devnet_client_status(probe, ans, why, why_len) == KD_OK;
    kd_devnet_client_close(probe);
    return known;
}

/* ------------------------------------------------------------ options */

#define MAX_GRANTS 32

/* The --grant options, in order. */
typedef struct {
    const char *specs[MAX_GRANTS];
    size_t n;
} grant_list;

typedef struct {
    const char *http;    /* ADDR:PORT, or NULL for stdio */
    char http_addr[128]; /* the address and port of `http` */
    uint16_t http_port;
    const char *token; /* KDAPP_MCP_TOKEN, or NULL */
    /* Settings from the environment (ENV_SETTINGS), 0 = the default. */
    unsigned calls_per_s;                                                     /* KDAPP_MCP_CALLS_PER_S */
    unsigned timeout_s, connections, per_address, threads, workers, sessions; /* the HTTP transport's capacity */
    unsigned request_s, waiting, tokenless, public_conns;                     /* its shares without a token */
    unsigned sessions_per_client, streams_per_client;                         /* its shares per client */
    unsigned drop_summaries; /* KDAPP_TEST_DROP_SUMMARIES: a test seam (README) */
    const char *views_url;   /* --views: attach to named daemons */
    const char *devnet_url;  /* --devnet */
    int read_only;
    uint32_t block_ms, wait_ms;
    grant_list grants;     /* --grant NAMES: the seats sessions may act for */
    const char *house;     /* --house NAME: the key it plays the house with */
    grant_list limits;     /* --house-limit [TYPE.]NAME=MAX|MIN..MAX: what the house consents to */
    int reveal_depth_set;  /* --reveal-depth given */
    uint32_t reveal_depth; /* the house's term: DAA score an ask is deep before the house reveals it */
    int quiet;             /* --quiet: no notice on stderr, the log at error level (unless KDAPP_LOG says) */
} mcp_options;

/* Settings read from the environment: the call rate and the HTTP
 * transport's capacity (README "MCP gateway" lists them; the options of
 * kd_mcp_server and kd_mcp_http give the meaning of each). */
typedef struct {
    const char *name, *what, *dflt;
    uint64_t min, max;
    size_t offset; /* of the unsigned in mcp_options */
} env_setting;

static const env_setting ENV_SETTINGS[] = {
    {"KDAPP_MCP_CALLS_PER_S", "tool calls per second per session", "50", 1, UINT32_MAX,
     offsetof(mcp_options, calls_per_s)},
    {"KDAPP_MCP_TIMEOUT_S", "seconds without traffic before a connection is closed", "30", 1, 86400,
     offsetof(mcp_options, timeout_s)},
    {"KDAPP_MCP_REQUEST_S", "seconds a connection has to send a whole request", "10", 1, 86400,
     offsetof(mcp_options, request_s)},
    {"KDAPP_MCP_CONNECTIONS", "open connections in all", "1000", 1, 1000000, offsetof(mcp_options, connections)},
    {"KDAPP_MCP_CONNECTIONS_WAITING",
     "connections waiting for a request without a token: fresh ones, and as many kept alive after one",
     "a sixteenth of KDAPP_MCP_CONNECTIONS", 1, 1000000, offsetof(mcp_options, waiting)},
    {"KDAPP_MCP_CONNECTIONS_TOKENLESS", "connections serving /mcp without a token",
     "an eighth of KDAPP_MCP_CONNECTIONS", 1, 1000000, offsetof(mcp_options, tokenless)},
    {"KDAPP_MCP_CONNECTIONS_PUBLIC", "connections serving the board page and /metrics without a token",
     "an eighth of KDAPP_MCP_CONNECTIONS, at least 80", 1, 1000000, offsetof(mcp_options, public_conns)},
    {"KDAPP_MCP_CONNECTIONS_PER_ADDRESS", "open connections per client address beyond loopback", "64", 1, 1000000,
     offsetof(mcp_options, per_address)},
    {"KDAPP_MCP_THREADS", "threads serving the sockets", "2", 1, 64, offsetof(mcp_options, threads)},
    {"KDAPP_MCP_WORKERS", "tool calls that may wait, handled at once", "64", 1, 4096, offsetof(mcp_options, workers)},
    {"KDAPP_MCP_SESSIONS", "live MCP sessions over HTTP", "64", 1, 1000000, offsetof(mcp_options, sessions)},
    {"KDAPP_MCP_SESSIONS_PER_CLIENT", "MCP sessions one client (a token, or an address without one) holds",
     "a quarter of KDAPP_MCP_SESSIONS", 1, 1000000, offsetof(mcp_options, sessions_per_client)},
    {"KDAPP_MCP_STREAMS_PER_CLIENT", "event streams one client (a token, or an address without one) holds",
     "the sessions per client + 8", 1, 1000000, offsetof(mcp_options, streams_per_client)},
};

/* Reads an optional unsigned setting; 0, or -1 after saying what is wrong.
 * Unset or empty leaves *out 0 (the default). */
static int env_unsigned(const char *name, uint64_t min, uint64_t max, const char *what, const char *dflt, unsigned *out)
{
    const char *text = getenv(name);
    uint64_t v;
    *out = 0;
    if (!text || !*text)
        return 0;
    if (kd_cli_parse_u64(text, min, max, &v) != 0) {
        fprintf(stderr, "kdapp mcp: %s='%s' is not valid: use %s, %llu to %llu (default %s)\n", name, text, what,
                (unsigned long long)min, (unsigned long long)max, dflt);
        return -1;
    }
    *out = (unsigned)v;
    return 0;
}

/* The usage goes to stderr even for --help: on the stdio transport stdout
 * carries the protocol. */
static void usage(FILE *out, const void *ctx)
{
    (void)out;
    (void)ctx;
    fputs("usage: kdapp mcp [--stdio | --http ADDR:PORT] [--data DIR] [--keys DIR] [--read-only]\n"
          "                 [--grant NAME[,NAME...]]... [--house NAME [--house-limit [TYPE.]TERM=MAX|MIN..MAX]...]\n"
          "                 [--reveal-depth N]\n"
          "                 [--views URL --devnet URL] [--block-ms N] [--wait-ms N] [--quiet]\n"
          "  --grant   the keys a session may act for: on stdio, this process's session; over HTTP,\n"
          "            each --grant gets a bearer token, printed once on stdout (\"grant NAMES token T\")\n"
          "  --house   the key this gateway plays the house with, for all comers\n"
          "  --house-limit  a limit on a term the house consents to, over the type's default\n"
          "            ([TYPE.]TERM=MAX or =MIN..MAX; kdapp://types lists each type's house_terms)\n"
          "  --reveal-depth  the house's term: the DAA score an ask's block must be deep before the\n"
          "            house reveals it (default 2 on the devnet, 100 on a Kaspa node; 0 to 864000)\n"

          "  --quiet   no notices on stderr, and the log at error level unless KDAPP_LOG sets it\n",
          stderr);
}

/* Splits "ADDR:PORT" (ADDR may be [v6]). */
static int split_http(const char *spec, char *addr, size_t addr_len, uint16_t *port)
{
    const char *colon = strrchr(spec, ':');
    uint64_t p;
    if (!colon || colon == spec || kd_cli_parse_u64(colon + 1, 0, 65535, &p) != 0)
        return -1;
    size_t n = (size_t)(colon - spec);
    if (spec[0] == '[' && n >= 2 && spec[n - 1] == ']') {
        spec++;
        n -= 2;
    }
    if (n >= addr_len)
        return -1;
    memcpy(addr, spec, n);
    addr[n] = '\0';
    *port = (uint16_t)p;
    return 0;
}

/* Every --grant as one "a,b,c" (malloc'ed; NULL when out of memory): on
 * stdio the one session holds them all. */
static char *join_grants(const grant_list *g)
{
    size_t len = 1;
    for (size_t i = 0; i < g->n; i++)
        len += strlen(g->specs[i]) + 1;
    char *out = malloc(len);
    if (!out)
        return NULL;
    out[0] = '\0';
    for (size_t i = 0; i < g->n; i++) {
        if (i)
            strcat(out, ",");
        strcat(out, g->specs[i]);
    }
    return out;
}

/* A repeatable option into its list (KD_OPT_CUSTOM): --grant NAME[,NAME...],
 * --house-limit SPEC. */
static int add_spec(const char *text, void *value)
{
    grant_list *g = value;
    if (g->n == MAX_GRANTS || !*text)
        return -1;
    g->specs[g->n++] = text;
    return 0;
}

/* --reveal-depth N (KD_OPT_CUSTOM): 0 to KD_HOUSE_DEPTH_MAX. */
static int set_reveal_depth(const char *text, void *value)
{
    mcp_options *o = value;
    uint64_t v;
    if (kd_cli_parse_u64(text, 0, KD_HOUSE_DEPTH_MAX, &v) != 0)
        return -1;
    o->reveal_depth = (uint32_t)v;
    o->reveal_depth_set = 1;
    return 0;
}

static int parse(kd_cli *cli, int argc, char **argv, mcp_options *o)
{
    memset(o, 0, sizeof *o);
    int stdio = 0;
    static const char ms[] = "milliseconds from 1 to 3600000";
    const kd_option opts[] = {
        KD_CLI_OPTIONS(cli),
        {.name = "stdio", .kind = KD_OPT_FLAG, .value = &stdio},
        {.name = "http", .kind = KD_OPT_STRING, .value = &o->http},
        {.name = "views", .kind = KD_OPT_STRING, .value = &o->views_url},
        {.name = "engine", .kind = KD_OPT_STRING, .value = &o->views_url},
        {.name = "devnet", .kind = KD_OPT_STRING, .value = &o->devnet_url},
        {.name = "read-only", .kind = KD_OPT_FLAG, .value = &o->read_only},
        {.name = "grant",
         .kind = KD_OPT_CUSTOM,
         .value = &o->grants,
         .parse = add_spec,
         .use = "key names of --keys, comma-separated (at most 32 --grant options)"},
        {.name = "house", .kind = KD_OPT_STRING, .value = &o->house},
        {.name = "house-limit",
         .kind = KD_OPT_CUSTOM,
         .value = &o->limits,
         .parse = add_spec,
         .use = "[TYPE.]TERM=MAX or [TYPE.]TERM=MIN..MAX (at most 32 --house-limit options)"},
        {.name = "reveal-depth",
         .kind = KD_OPT_CUSTOM,
         .value = o,
         .parse = set_reveal_depth,
         .use = "DAA score from 0 to 864000 (the house's reveal depth)"},
        {.name = "quiet", .short_name = 'q', .kind = KD_OPT_FLAG, .value = &o->quiet},
        {.name = "block-ms",
         .kind = KD_OPT_UINT,
         .value = &o->block_ms,
         .size = sizeof o->block_ms,
         .min = 1,
         .max = 3600000,
         .use = ms},
        {.name = "wait-ms",
         .kind = KD_OPT_UINT,
         .value = &o->wait_ms,
         .size = sizeof o->wait_ms,
         .min = 1,
         .max = 3600000,
         .use = ms},
        {0},
    };
    const kd_usage u = {.prog = "kdapp mcp", .print = usage};
    int first, stop, rc = kd_options_parse_usage(&u, opts, argc, argv, &first, &stop);
    if (rc || stop)
        return stop ? -1 : rc;
    if (stdio) /* --stdio is the default; it overrides --http */
        o->http = NULL;
    if (!o->views_url != !o->devnet_url) {
        fprintf(stderr, "kdapp mcp: --views and --devnet go together (attach to named daemons)\n");
        return KD_EXIT_USAGE;
    }
    /* Everything is checked before anything starts (no data directory is
     * created for a command line that cannot run). */
    for (size_t i = 0; i < sizeof ENV_SETTINGS / sizeof ENV_SETTINGS[0]; i++) {
        const env_setting *e = &ENV_SETTINGS[i];
        if (env_unsigned(e->name, e->min, e->max, e->what, e->dflt, (unsigned *)((char *)o + e->offset)) != 0)
            return KD_EXIT_USAGE;
    }
    char why[800];
    if (kd_gateway_house_limits_check(&cli->types, o->house, o->limits.specs, o->limits.n, why, sizeof why)) {
        fprintf(stderr, "kdapp mcp: %s\n", why);
        return KD_EXIT_USAGE;
    }
    if (!o->http)
        return KD_EXIT_OK;
    if (split_http(o->http, o->http_addr, sizeof o->http_addr, &o->http_port) != 0) {
        fprintf(stderr, "kdapp mcp: --http '%s' is not ADDR:PORT (e.g. 127.0.0.1:8787)\n", o->http);
        return KD_EXIT_USAGE;
    }
    o->token = getenv("KDAPP_MCP_TOKEN");
    if (o->token && !*o->token)
        o->token = NULL;
    const char *a = o->http_addr;
    int loopback = strncmp(a, "127.", 4) == 0 || strcmp(a, "::1") == 0 || strcmp(a, "localhost") == 0;
    if (!loopback && !o->token) {
        fprintf(stderr, "kdapp mcp: listening on %s (beyond loopback) needs a bearer token: set KDAPP_MCP_TOKEN\n", a);
        return KD_EXIT_USAGE;
    }
    return KD_EXIT_OK;
}

/* ------------------------------------------------------------- serving */

static int stop_pipe[2] = {-1, -1};

static void *wait_for_signal(void *arg)
{
    (void)arg;
    kd_signals_wait();
    if (write(stop_pipe[1], "x", 1) < 0)
        _exit(KD_EXIT_FAIL);
    return NULL;
}

/* What /metrics reads: the engine, and the data directory whose ledger of
 * payments (tools/kaspa/kaspa_ledger.h, kept by `kdapp up --rpc`) it
 * shows when there is one. */
typedef struct {
    kd_engine *engine;
    const char *data_dir;
} metrics_src;

/* GET /metrics: the engine's metrics as stored with its last commit, and
 * what the Kaspa writer's wallets paid. */
static kd_err engine_metrics_text(void *ctx, kd_buf *out)
{
    const metrics_src *src = ctx;
    kd_metrics m;
    kd_read *rd;
    kd_err err = kd_engine_read_begin(src->engine, &rd);
    if (!err)
        err = kd_read_metrics(rd, &m);
    kd_engine_read_end(rd);
    if (!err)
        err = kd_metrics_prometheus(&m, kd_wall_ms(), out);
    kd_kledger *l = err ? NULL : malloc(sizeof *l);
    char why[600];
    kd_err lerr = l ? kd_kledger_load_dir(src->data_dir, l, why, sizeof why) : KD_ERR_NOMEM;
    if (!lerr)
        err = kd_kledger_prometheus(l, kd_wall_ms(), out);
    else if (l && lerr != KD_ERR_NOT_FOUND)
        KD_LOG_W("mcp", "/metrics without the wallets' payments: %s", why);
    free(l);
    return err;
}

/* The gateway's view updates, broadcast on the page's event stream. */
static void publish_view(void *http, const char *event, const char *data) { kd_mcp_http_publish(http, event, data); }

/* One bearer token per --grant over HTTP: 32 bytes from the CSPRNG as 64
 * hex digits, printed once on stdout ("grant NAMES token TOKEN"), never
 * logged. */
typedef struct {
    char text[MAX_GRANTS][2 * 32 + 1];
    kd_mcp_http_token tokens[MAX_GRANTS];
} grant_tokens;

static int make_tokens(const mcp_options *o, kd_gateway *gw, grant_tokens *t)
{
    for (size_t i = 0; i < o->grants.n; i++) {
        uint8_t raw[32];
        if (kd_random_bytes(raw, sizeof raw) != KD_OK) {
            fprintf(stderr, "kdapp mcp: the CSPRNG failed: no token for --grant %s\n", o->grants.specs[i]);
            return -1;
        }
        kd_hex_encode(raw, sizeof raw, t->text[i]);
        memset(raw, 0, sizeof raw);
        t->tokens[i] = (kd_mcp_http_token){.token = t->text[i], .principal = kd_gateway_grant(gw, i)};
        printf("grant %s token %s\n", o->grants.specs[i], t->text[i]);
    }
    fflush(stdout);
    return 0;
}

static int serve(kd_mcp_server *srv, const mcp_options *o, metrics_src *msrc, kd_gateway *gw)
{
    if (!o->http) {
        kd_mcp_stdio_options so = {
            .in_fd = 0, .out_fd = 1, .stop_fd = stop_pipe[0], .principal = kd_gateway_grant(gw, 0)};
        kd_err err = kd_mcp_stdio_run(srv, &so);
        return err && err != KD_ERR_CLOSED ? KD_EXIT_FAIL : KD_EXIT_OK;
    }
    grant_tokens tokens;
    if (make_tokens(o, gw, &tokens) != 0)
        return KD_EXIT_FAIL;
    kd_mcp_http_options ho = {
        .bind_address = o->http_addr,
        .port = o->http_port,
        .bearer_token = o->token,
        .tokens = tokens.tokens,
        .n_tokens = o->grants.n,
        .connection_timeout_s = o->timeout_s,
        .request_timeout_s = o->request_s,
        .max_connections = o->connections,
        .max_waiting_connections = o->waiting,
        .max_tokenless_connections = o->tokenless,
        .max_public_connections = o->public_conns,
        .max_connections_per_address = o->per_address,
        .poll_threads = o->threads,
        .max_workers = o->workers,
        .max_sessions = o->sessions,
        .max_sessions_per_client = o->sessions_per_client,
        .max_event_streams_per_client = o->streams_per_client,
        .metrics = engine_metrics_text,
        .metrics_ctx = msrc,
        .page = kd_gateway_page,
        .page_ctx = gw,
        .page_costly = kd_gateway_page_costly,
        .events_path = KD_GATEWAY_EVENTS_PATH,
    };
    kd_mcp_http *h;
    kd_err err = kd_mcp_http_start(srv, &ho, &h);
    if (err == KD_ERR_EXISTS) {
        fprintf(stderr,
                "kdapp mcp: cannot serve HTTP on %s: the address is in use (another kdapp mcp, or another server): "
                "stop that one, or give another port (--http %s%s%s:0 takes a free one and prints it)\n",
                o->http, strchr(o->http_addr, ':') ? "[" : "", o->http_addr, strchr(o->http_addr, ':') ? "]" : "");
        return KD_EXIT_USAGE;
    }
    if (err) {
        fprintf(stderr,
                "kdapp mcp: cannot serve HTTP on %s: %s (the log line above says why): check that the address is "
                "one of this machine's and the port is 1 to 65535\n",
                o->http, kd_err_str(err));
        return err == KD_ERR_INVALID_ARG ? KD_EXIT_USAGE : KD_EXIT_FAIL;
    }
    kd_gateway_set_view_listener(gw, publish_view, h);
    fprintf(stderr, "kdapp mcp: serving MCP on http://%s:%u/mcp (metrics on /metrics, the board page on /)\n",
            o->http_addr, kd_mcp_http_port(h));
    char c;
    while (read(stop_pipe[0], &c, 1) < 0)
        ;
    kd_gateway_set_view_listener(gw, NULL, NULL);
    kd_mcp_http_stop(h);
    memset(&tokens, 0, sizeof tokens);
    return KD_EXIT_OK;
}

/* The house's default reveal depth on a chain that said what it is
 * (`chain`, NULL when it did not, `why`): the devnet's when it mines on
 * demand, else a Kaspa node's, the safe one. */
static uint32_t chain_depth(const kd_devnet_answer *chain, const char *why, const char *house)
{
    if (chain)
        return chain->on_demand ? KD_HOUSE_DEPTH_DEVNET : KD_HOUSE_DEPTH_KASPA;
    if (house)
        fprintf(stderr,
                "kdapp mcp: the chain did not say what it is (%s): the house reveals at depth %u, a Kaspa "
                "node's (--reveal-depth sets it)\n",
                why, KD_HOUSE_DEPTH_KASPA);
    return KD_HOUSE_DEPTH_KASPA;
}

int kd_cmd_mcp(kd_cli *cli, int argc, char **argv)
{
    mcp_options o;
    int rc = parse(cli, argc, argv, &o);
    if (rc)
        return rc < 0 ? KD_EXIT_OK : rc;
    const char *level = getenv("KDAPP_LOG");
    if (o.quiet && !(level && *level))
        kd_log_set_level(KD_LOG_ERROR);
    kd_signals_block();
    if (pipe(stop_pipe) != 0) {
        perror("kdapp mcp: pipe");
        return KD_EXIT_FAIL;
    }
    pthread_t sig_thread;
    if (pthread_create(&sig_thread, NULL, wait_for_signal, NULL) != 0) {
        fprintf(stderr, "kdapp mcp: cannot start the signal thread\n");
        return KD_EXIT_FAIL;
    }
    pthread_detach(sig_thread);

    kd_endpoints ep;
    char why[512];
    if (kd_endpoints_default(cli->data_dir, &ep, why, sizeof why) != KD_OK) {
        fprintf(stderr, "kdapp mcp: %s\n", why);
        return KD_EXIT_FAIL;
    }
    char inproc_in[64], inproc_views[64], ingest[KD_URL_MAX + 80], publish[KD_URL_MAX + 80];
    snprintf(inproc_in, sizeof inproc_in, "inproc://kdapp-mcp-ingest-%ld", (long)getpid());
    snprintf(inproc_views, sizeof inproc_views, "inproc://kdapp-mcp-views-%ld", (long)getpid());
    snprintf(ingest, sizeof ingest, "%s,%s", inproc_in, ep.ingest);
    snprintf(publish, sizeof publish, "%s,%s", inproc_views, ep.publish);

    kd_node node = {0};
    int have_node = 0;
    kd_devnet *dev = NULL;
    kd_devnet_client *client = NULL;
    kd_engine *reader = NULL;
    /* On stdio the one session gets every --grant's keys; over HTTP each
     * --grant is a token of its own. */
    char *stdio_grant = o.http || !o.grants.n ? NULL : join_grants(&o.grants);
    if (!o.http && o.grants.n && !stdio_grant) {
        fprintf(stderr, "kdapp mcp: out of memory\n");
        return KD_EXIT_FAIL;
    }
    const char *stdio_grants[1] = {stdio_grant};
    kd_gateway_options go = {
        .types = &cli->types,
        .keys_dir = cli->keys_dir,
        .wait_ms = o.wait_ms,
        .drop_summaries = o.drop_summaries,
        .grants = o.http ? o.grants.specs : stdio_grants,
        .n_grants = o.http ? o.grants.n : o.grants.n > 0,
        .house = o.house,
        .house_limits = o.limits.specs,
        .n_house_limits = o.limits.n,
    };
    kd_err err = KD_ERR_LOCKED;
    if (!o.views_url) {
        kd_node_options no = {.ingest_urls = ingest, .publish_urls = publish, .chain = KD_CHAIN_LOCAL};
        err = kd_node_start(&node, cli, &no, why, sizeof why);
        if (err && err != KD_ERR_LOCKED) {
            fprintf(stderr, "kdapp mcp: %s\n", why);
            return err == KD_ERR_SETTINGS ? KD_EXIT_USAGE : KD_EXIT_FAIL;
        }
    }
    if (!err) { /* embedded */
        have_node = 1;
        kd_devnet_options dopts = {.listen_urls = ep.devnet, .engine_url = inproc_in, .block_ms = o.block_ms};
        if ((err = kd_devnet_open(&dopts, &dev, why, sizeof why))) {
            fprintf(stderr, "kdapp mcp: %s\n", why);
            rc = KD_EXIT_FAIL;
            goto done;
        }
        go.engine = node.engine;
        go.views_url = inproc_views;
        go.chain =
            (kd_gateway_chain){.submit = devnet_submit, .reorg = devnet_reorg, .advance = devnet_advance, .ctx = dev};
        go.reveal_depth = o.reveal_depth_set ? o.reveal_depth : KD_HOUSE_DEPTH_DEVNET;
        if (!o.quiet)
            fprintf(stderr, "kdapp mcp: embedded engine and devnet on %s\n", cli->data_dir);
    } else { /* attached */
        if ((rc = kd_cli_open_engine(cli, NULL, 1, 0, &reader)))
            goto done;
        const char *devnet = o.devnet_url ? o.devnet_url : ep.devnet;
        if ((err = kd_devnet_client_open(devnet, 0, &client, why, sizeof why))) {
            fprintf(stderr, "kdapp mcp: %s\n", why);
            rc = KD_EXIT_FAIL;
            goto done;
        }
        go.engine = reader;
        go.views_url = o.views_url ? o.views_url : ep.publish;
        kd_devnet_answer chain = {0};
        char chain_why[512] = "";
        int chain_known = chain_status(devnet, &chain, chain_why, sizeof chain_why);
        go.chain = (kd_gateway_chain){
            .submit = client_submit, .reorg = client_reorg, .advance = client_advance, .ctx = client};
        if (chain_known && chain.takes_transactions)
            go.chain.submit_tx = client_submit_tx;
        go.reveal_depth =
            o.reveal_depth_set ? o.reveal_depth : chain_depth(chain_known ? &chain : NULL, chain_why, o.house);
        fprintf(stderr, "kdapp mcp: attached to the engine of %s (views %s, devnet %s)\n", cli->data_dir, go.views_url,
                devnet);
    }
    kd_mcp_server *srv = NULL;
    kd_gateway *gw = NULL;
    kd_mcp_server_options so = {
        .name = "kdapp",
        .title = "kdapp episode engine",
        .version = "0.1.0",
        .instructions = INSTRUCTIONS,
        .extensions_json = KD_GATEWAY_EXTENSIONS_JSON,
        .read_only = o.read_only,
    };
    so.calls_per_second = o.calls_per_s;
    if ((err = kd_mcp_server_alloc(&so, &srv))) {
        fprintf(stderr, "kdapp mcp: cannot create the server: %s\n", kd_err_str(err));
        rc = KD_EXIT_FAIL;
        goto done;
    }
    if ((err = kd_gateway_open(&go, srv, &gw, why, sizeof why))) {
        fprintf(stderr, "kdapp mcp: %s\n", why);
        kd_mcp_server_free(srv);
        rc = err == KD_ERR_NOT_FOUND || err == KD_ERR_INVALID_ARG || err == KD_ERR_BAD_KEY ? KD_EXIT_USAGE
                                                                                           : KD_EXIT_FAIL;
        goto done;
    }
    if (kd_gateway_made_keys(gw)[0]) /* a new identity is never made without a word */
        fprintf(stderr,
                "kdapp mcp: made new keys %s in %s, which held no key (a directory named by mistake? "
                "--keys DIR or KDAPP_KEYS names yours)\n",
                kd_gateway_made_keys(gw), cli->keys_dir);
    metrics_src msrc = {.engine = go.engine, .data_dir = cli->data_dir};
    rc = serve(srv, &o, &msrc, gw);
    kd_gateway_close(gw);
    kd_mcp_server_free(srv);
done:
    free(stdio_grant);
    kd_devnet_close(dev);
    kd_devnet_client_close(client);
    kd_engine_close(reader);
    if (have_node)
        kd_node_stop(&node);
    return rc;
}
