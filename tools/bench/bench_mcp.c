/*
 * bench_mcp.c — the MCP gateway scenarios of `kdapp bench`: tool calls over
 * stdio against a bare pipe round trip, over Streamable HTTP (1 and 8
 * clients) against a minimal libmicrohttpd server, and the gateway against a
 * reference server written with the official TypeScript SDK. Every figure is
 * a ratio against a baseline measured in the same run, driven by the same
 * client code with the same number of calls of the same sizes.
 *
 * One fixture serves all three: a scratch directory with two keys and a
 * stress-mode episode (cap 6) played for six moves, so the strategy context
 * has a full window of recent moves and a next_to_remove. The gateway is a
 * child process (`kdapp mcp`, embedded engine and devnet); its answer to
 * kdapp_get_strategy_context is captured once and becomes the fixed reply of
 * every baseline, so payloads match byte for byte (ids have a fixed width).
 *
 *   bench ──pipe──▶ kdapp mcp --stdio       ◀──▶  bench ──pipe──▶ echo child
 *   bench ──curl──▶ kdapp mcp --http        ◀──▶  bench ──curl──▶ MHD (in process)
 *   bench ──pipe──▶ kdapp mcp --stdio       ◀──▶  bench ──pipe──▶ node + SDK
 *
 * The gateway limits each session to 50 calls per second by default; the
 * bench lifts that with KDAPP_MCP_CALLS_PER_S in the child's environment, so
 * it measures the gateway and not its limiter, and fails loudly (naming the
 * refusal) when a call is answered with an error.
 */

#include <curl/curl.h>
#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/crypto.h"
#include "tools/bench/bench_episode.h"
#include "tools/bench/bench_mcp_int.h"
#include "tools/sim/replay.h"

#define SDK_PIN "@modelcontextprotocol/sdk@1.32.2" /* as tests/client */
#define ZOD_PIN "zod@3.25.76"
#define NPM_S 300.0 /* npm install */
#define RATE_ENV "KDAPP_MCP_CALLS_PER_S=100000000"
#define FIXTURE_MOVES 6 /* moves played before the strategy context is captured */

/* The TypeScript reference: the same tool answering a fixed result (argv[2]). */
static const char TS_SERVER[] = "import { readFileSync } from 'node:fs';\n"
                                "import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';\n"
                                "import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';\n"
                                "import { z } from 'zod';\n"
                                "const reply = JSON.parse(readFileSync(process.argv[2], 'utf8'));\n"
                                "const server = new McpServer({ name: 'ts-reference', version: '1.0.0' });\n"
                                "server.registerTool('" KD_BENCH_TOOL "', { title: 'Strategy context',\n"
                                "  description: 'What a player needs before moving.',\n"
                                "  inputSchema: { episode_id: z.number().int().min(1).max(4294967295) } },\n"
                                "  async () => reply);\n"
                                "await server.connect(new StdioServerTransport());\n";

/* -------------------------------------------------------- stdio client */

/* One JSON-RPC request line of fixed size for `id`; returns its length. */
size_t kd_bench_call_line(char *buf, size_t cap, long id, const char *tool, const char *args)
{
    int n = snprintf(buf, cap,
                     "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"method\":\"tools/call\",\"params\":{\"name\":\"%s\","
                     "\"arguments\":%s}}\n",
                     id, tool, args);
    return n > 0 && (size_t)n < cap ? (size_t)n : 0;
}

/*
 * Calls the strategy context (or, with `raw`, sends `raw` to a baseline
 * child) for at least `min_s` seconds; each round trip's latency into `lat`
 * (emptied first). Returns the seconds it took, or -1 on the first failed
 * call (its answer in `why`).
 */
static double timed_calls(kd_bench_proc *p, uint32_t episode, const char *raw, long *next_id, double min_s, kd_buf *lat,
                          char *why, size_t why_len)
{
    char req[256], args[64], *ans = NULL;
    size_t ans_len = 0;
    snprintf(args, sizeof args, "{\"episode_id\":%u}", episode);
    lat->len = 0;
    double t0 = kd_bench_now(), t = t0;
    while (t - t0 < min_s) {
        long id = raw ? -1 : (*next_id)++;
        size_t len = raw ? strlen(raw) : kd_bench_call_line(req, sizeof req, id, KD_BENCH_TOOL, args);
        int rc = kd_bench_rpc(p, raw ? raw : req, len, id, KD_BENCH_CALL_S, &ans, &ans_len);
        if (rc != 0) {
            snprintf(why, why_len, "%.300s", rc < 0 ? "no answer (closed or timed out)" : ans);
            return -1;
        }
        double t1 = kd_bench_now(), one = t1 - t;
        if (kd_buf_append(lat, &one, sizeof one) != KD_OK) {
            snprintf(why, why_len, "out of memory");
            return -1;
        }
        t = t1;
    }
    return t - t0;
}

/*
 * The stdio floor, forked: for each request line it does the work no MCP
 * server over stdio can skip — read the line from the pipe, parse it with
 * jansson, encode the reply (the gateway's own, parsed once) with jansson,
 * write it — and nothing else.
 */
static void floor_serve(int in, int out, const char *reply, size_t reply_len)
{
    json_t *answer = json_loadb(reply, reply_len, 0, NULL);
    size_t cap = 1 << 16, len = 0, out_cap = reply_len * 2 + 64;
    char *buf = malloc(cap), *enc = malloc(out_cap);
    if (!answer || !buf || !enc)
        _exit(1);
    for (;;) {
        ssize_t n = read(in, buf + len, cap - len);
        if (n <= 0)
            _exit(0);
        len += (size_t)n;
        char *nl;
        while ((nl = memchr(buf, '\n', len)) != NULL) {
            json_t *req = json_loadb(buf, (size_t)(nl - buf), 0, NULL);
            if (!req || !json_object_get(req, "method"))
                _exit(1);
            json_decref(req);
            size_t m = json_dumpb(answer, enc, out_cap - 1, JSON_COMPACT);
            if (m == 0 || m >= out_cap - 1)
                _exit(1);
            enc[m++] = '\n';
            if (kd_bench_write_all(out, enc, m) != 0)
                _exit(1);
            len -= (size_t)(nl + 1 - buf);
            memmove(buf, nl + 1, len);
        }
        if (len == cap)
            _exit(1); /* a request line longer than 64 KiB: not ours */
    }
}

/* Forks the stdio floor (floor_serve) answering with `reply`. */
static int floor_spawn(kd_bench_proc *p, const char *reply, size_t reply_len)
{
    int in[2], out[2];

    kd_bench_proc_init(p);
    if (pipe(in) != 0)
        return -1;
    if (pipe(out) != 0) {
        close(in[0]), close(in[1]);
        return -1;
    }
    if ((p->pid = fork()) < 0) {
        close(in[0]), close(in[1]), close(out[0]), close(out[1]);
        p->pid = -1;
        return -1;
    }
    if (p->pid == 0) {
        close(in[1]), close(out[0]);
        floor_serve(in[0], out[1], reply, reply_len);
    }
    close(in[0]), close(out[1]);
    p->to = in[1], p->from = out[0];
    return 0;
}

/* ------------------------------------------------------------- fixture */

/* Starts `kdapp mcp` on the fixture (http: "127.0.0.1:0", else stdio). */
int kd_bench_gateway_spawn(const kd_bench_ctx *b, const kd_bench_fixture *f, const char *http, kd_bench_proc *p)
{
    static const char *const rate_env[] = {RATE_ENV, NULL};
    char *argv[14];
    int k = 0;
    argv[k++] = (char *)b->kdapp_path;
    argv[k++] = "mcp";
    argv[k++] = http ? "--http" : "--stdio";
    if (http) {
        argv[k++] = (char *)http; /* reads only: the public needs no grant */
    } else {
        argv[k++] = "--grant"; /* it plays the fixture's moves */
        argv[k++] = "agent1,agent2";
    }
    argv[k++] = "--block-ms";
    argv[k++] = "20";
    argv[k++] = "--data";
    argv[k++] = (char *)f->data;
    argv[k++] = "--keys";
    argv[k++] = (char *)f->keys;
    argv[k] = NULL;
    if (kd_bench_proc_spawn(p, argv, rate_env, f->log, 1) != 0)
        return -1;
    return http ? 0 : kd_bench_handshake(p);
}

/* Plays up to `n` moves of f->episode on `gw` (each the first legal move
 * kdapp_legal_moves lists; fewer when the game ends). 0, or -1 with why. */
static int fixture_moves(kd_bench_fixture *f, kd_bench_proc *gw, int n, char *why, size_t why_len)
{
    for (int i = 0; i < n; i++) {
        json_t *r = kd_bench_call_json(gw, &f->next_id, "kdapp_legal_moves",
                                       json_pack("{s:i}", "episode_id", (json_int_t)f->episode), why, why_len);
        json_t *moves = json_object_get(r, "moves"), *done = NULL;
        if (moves && !json_array_size(moves)) { /* the game is over */
            json_decref(r);
            return 0;
        }
        if (json_array_size(moves))
            done = kd_bench_call_json(gw, &f->next_id, "kdapp_execute_command",
                                      json_pack("{s:i, s:O}", "episode_id", (json_int_t)f->episode, "command",
                                                json_object_get(json_array_get(moves, 0), "command")),
                                      why, why_len);
        json_decref(r);
        if (!done) {
            snprintf(why, why_len, "move %d was not listed or not applied", i + 1);
            return -1;
        }
        json_decref(done);
    }
    return 0;
}

/*
 * Creates the scratch directory, two keys, and an episode of the type the
 * bench plays (kd_bench_play_type; with --params when that is --type's)
 * with FIXTURE_MOVES moves on a stdio gateway left running in `gw`;
 * captures the strategy context answer. 0, or -1 with the reason in `why`.
 */
static int fixture_open(const kd_bench_ctx *b, kd_bench_fixture *f, kd_bench_proc *gw, char *why, size_t why_len)
{
    char req[512], args[256], *ans;
    size_t len;
    json_t *j = NULL;

    memset(f, 0, sizeof *f);
    kd_bench_proc_init(gw);
    f->next_id = KD_BENCH_ID_BASE;
    if (kd_bench_scratch(b, "mcp", "gateway.log", 1, f->dir, f->data, f->keys, f->log, why, why_len) != 0)
        goto fail;
    if (kd_bench_gateway_spawn(b, f, NULL, gw) != 0) {
        snprintf(why, why_len, "kdapp mcp --stdio did not start or answer initialize");
        goto fail;
    }
    const kd_episode_type *t = kd_bench_play_type(b);
    json_t *start = t ? json_pack("{s:s}", "type", t->ops->type_name) : NULL;
    if (start && b->params && t == b->type)
        json_object_set(start, "params", (json_t *)b->params);
    j = kd_bench_call_json(gw, &f->next_id, "kdapp_start_episode", start, why, why_len);
    f->episode = (uint32_t)json_integer_value(json_object_get(j, "episode_id"));
    json_decref(j), j = NULL;
    if (!f->episode) {
        snprintf(why, why_len, "kdapp_start_episode failed%s", t ? "" : ": no type the bench can play alone");
        goto fail;
    }
    if (fixture_moves(f, gw, FIXTURE_MOVES, why, why_len) != 0)
        goto fail;
    snprintf(args, sizeof args, "{\"episode_id\":%u}", f->episode);
    len = kd_bench_call_line(req, sizeof req, f->next_id++, KD_BENCH_TOOL, args);
    if (kd_bench_rpc(gw, req, len, f->next_id - 1, KD_BENCH_CALL_S, &ans, &len) != 0 ||
        !(j = json_loads(ans, 0, NULL)) || !json_object_get(json_object_get(j, "result"), "structuredContent") ||
        !(f->reply = malloc(len + 2)) || !(f->result = json_dumps(json_object_get(j, "result"), JSON_COMPACT))) {
        snprintf(why, why_len, "the strategy context is missing");
        goto fail;
    }
    memcpy(f->reply, ans, len);
    memcpy(f->reply + len, "\n", 2);
    f->reply_len = len + 1;
    json_decref(j);
    return 0;
fail:
    json_decref(j);
    kd_bench_show_log(f->log);
    return -1;
}

static void fixture_close(kd_bench_fixture *f)
{
    kd_remove_tree(f->dir);
    free(f->reply);
    free(f->result);
    memset(f, 0, sizeof *f);
}

/* Reports a ratio (medians) and returns 1 when it misses its target. */
/* ---------------------------------------------------- scenario 1: stdio */

/* Either side of a stdio comparison: the gateway (side 0) or its baseline
 * (side 1: the floor, with `raw` its request line, or the TypeScript
 * server). */
typedef struct {
    const kd_bench_ctx *b;
    kd_bench_fixture *f;
    kd_bench_proc *side[2];
    long *next_id[2];
    const char *raw; /* the floor's request line, or NULL: both sides take calls */
    int memory;      /* report each side's peak memory as a fourth metric */
    int pin;         /* client and server on one CPU during each run (kd_bench_pin_with) */
    kd_buf lat;      /* the run's latencies, doubles */
} stdio_pair;

/* Metrics: calls/s, p50 and p99 in microseconds, peak memory in KiB. */
static int stdio_run(void *ctx, int side, double *out, char *why, size_t why_len)
{
    stdio_pair *sp = ctx;
    const char *raw = side ? sp->raw : NULL;
    pid_t pid = sp->side[side]->pid;
    int pinned = sp->pin && kd_bench_pin_with(pid) == 0;
    double secs =
        timed_calls(sp->side[side], sp->f->episode, raw, sp->next_id[side], sp->b->run_s, &sp->lat, why, why_len);
    if (pinned)
        kd_bench_unpin_with(pid);
    if (secs <= 0)
        return -1;
    size_t n = sp->lat.len / sizeof(double);
    double *lat = (double *)(void *)sp->lat.data;
    out[0] = (double)n / secs;
    out[1] = kd_bench_percentile(lat, n, 0.50) * 1e6;
    out[2] = kd_bench_percentile(lat, n, 0.99) * 1e6;
    if (sp->memory)
        out[3] = (double)kd_bench_peak_rss_kb(sp->side[side]->pid);
    return 0;
}

static int scenario_stdio(const kd_bench_ctx *b, kd_bench_fixture *f, kd_bench_proc *gw)
{
    char req[256], args[64];
    long unused = 0;
    kd_bench_proc floor;
    stdio_pair sp = {.b = b, .f = f, .side = {gw, &floor}, .next_id = {&f->next_id, &unused}, .raw = req, .pin = 1};
    kd_bench_pair pair = {
        .id = "stdio",
        .scenario = "MCP over stdio, 1 client, " KD_BENCH_TOOL,
        .subject = "kdapp mcp --stdio",
        .baseline = "pipe + jansson parse and encode",
        .metrics = {{"throughput", "calls/s", 0, 1}, {"p50", "us", 2.0, 0}, {"p99", "us", 2.0, 0}},
        .n_metrics = 3,
        .run = stdio_run,
        .ctx = &sp,
    };

    snprintf(args, sizeof args, "{\"episode_id\":%u}", f->episode);
    size_t req_len = kd_bench_call_line(req, sizeof req, KD_BENCH_ID_BASE, KD_BENCH_TOOL, args);
    if (floor_spawn(&floor, f->reply, f->reply_len - 1) != 0) {
        kd_bench_note(b, "mcp stdio: cannot start the floor");
        return 2;
    }
    int missed = kd_bench_paired(b, &pair);
    kd_bench_note(b,
                  "request %zu B, reply %zu B; the floor reads, parses, encodes and writes the same bytes; during each "
                  "run the client and the server (the gateway's serving thread, or the floor) share one CPU",
                  req_len, f->reply_len);
    kd_bench_figure(b, "stdio.gateway_peak_kib", "MCP over stdio: gateway peak memory",
                    (double)kd_bench_peak_rss_kb(gw->pid), "KiB", NULL);
    kd_bench_proc_stop(&floor, 0);
    kd_buf_fini(&sp.lat);
    return missed;
}

/* ------------------------------------ scenario 3: TypeScript SDK server */

/* Runs argv to completion within `timeout_s` (output to `log`); its exit status or -1. */
static int run_tool(char *const argv[], const char *log, double timeout_s)
{
    kd_bench_proc p;
    if (kd_bench_proc_spawn(&p, argv, NULL, log, 0) != 0)
        return -1;
    int st = kd_bench_proc_reap(&p, kd_bench_now() + timeout_s);
    if (st < 0)
        kd_bench_proc_stop(&p, 1);
    return st;
}

static int write_file(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    int rc = fp && fputs(text, fp) >= 0 ? 0 : -1;
    if (fp && fclose(fp) != 0)
        rc = -1;
    return rc;
}

static int scenario_ts(const kd_bench_ctx *b, kd_bench_fixture *f)
{
    char dir[512] = "", script[600], reply[600], log[600];
    char *node_v[] = {"node", "--version", NULL}, *npm_v[] = {"npm", "--version", NULL};
    char *npm[] = {"npm",       "install",          "--prefix", dir,     "--no-audit",
                   "--no-fund", "--loglevel=error", SDK_PIN,    ZOD_PIN, NULL};
    char *node[] = {"node", script, reply, NULL};
    long ts_id = KD_BENCH_ID_BASE;
    kd_bench_proc gw, ts;
    int missed = 0;
    stdio_pair sp = {.b = b, .f = f, .side = {&gw, &ts}, .next_id = {&f->next_id, &ts_id}, .memory = 1, .pin = 1};
    kd_bench_pair pair = {
        .id = "sdk",
        .scenario = "MCP over stdio against the TypeScript SDK, " KD_BENCH_TOOL,
        .subject = "kdapp mcp --stdio",
        .baseline = "TypeScript SDK " SDK_PIN,
        .metrics = {{"throughput", "calls/s", 5.0, 1},
                    {"p50", "us", 0, 0},
                    {"p99", "us", 0, 0},
                    {"peak memory", "KiB", 0.2, 0}},
        .n_metrics = 4,
        .run = stdio_run,
        .ctx = &sp,
    };

    kd_bench_proc_init(&gw), kd_bench_proc_init(&ts);
    if (kd_bench_mkdtemp(b, "mcp-ts", dir, sizeof dir) != 0) {
        kd_bench_note(b, "mcp vs TypeScript SDK: skipped: no scratch directory");
        goto done;
    }
    snprintf(script, sizeof script, "%s/server.mjs", dir);
    snprintf(reply, sizeof reply, "%s/reply.json", dir);
    snprintf(log, sizeof log, "%s/npm.log", dir);
    if (run_tool(node_v, NULL, 20) != 0 || run_tool(npm_v, NULL, 20) != 0) {
        kd_bench_note(b, "mcp vs TypeScript SDK: skipped: node and npm are needed (not found or not working)");
        goto done;
    }
    double t = kd_bench_now();
    if (write_file(script, TS_SERVER) != 0 || write_file(reply, f->result) != 0 || run_tool(npm, log, NPM_S) != 0) {
        kd_bench_note(b, "mcp vs TypeScript SDK: skipped: npm install " SDK_PIN " " ZOD_PIN " failed");
        kd_bench_show_log(log);
        goto done;
    }
    kd_bench_note(b, "mcp vs TypeScript SDK: installed " SDK_PIN " " ZOD_PIN " in %.1f s", kd_bench_now() - t);
    snprintf(log, sizeof log, "%s/node.log", dir);
    if (kd_bench_proc_spawn(&ts, node, NULL, log, 1) != 0 || kd_bench_handshake(&ts) != 0) {
        kd_bench_note(b, "mcp vs TypeScript SDK: failed: the TypeScript server did not answer initialize");
        kd_bench_show_log(log);
        missed = 2;
        goto done;
    }
    if (kd_bench_gateway_spawn(b, f, NULL, &gw) != 0) {
        kd_bench_note(b, "mcp vs TypeScript SDK: failed: kdapp mcp --stdio did not answer initialize");
        kd_bench_show_log(f->log);
        missed = 2;
        goto done;
    }
    /* node's JIT warms up in the warm-up run, as the gateway's caches do */
    missed = kd_bench_paired(b, &pair);
    kd_bench_note(b,
                  "the same client and fixed reply on both sides (the SDK server answers the gateway's result); during "
                  "each run the client and the server's main thread share one CPU");
done:
    kd_bench_proc_stop(&gw, 0);
    kd_bench_proc_stop(&ts, 0);
    if (dir[0])
        kd_remove_tree(dir);
    kd_buf_fini(&sp.lat);
    return missed;
}

/* ---------------------------------------------------------------- entry */

int kd_bench_mcp(const kd_bench_ctx *b)
{
    kd_bench_fixture f;
    kd_bench_proc gw;
    char why[320];
    int missed = 0;

    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        kd_bench_note(b, "mcp: libcurl did not initialise");
        return 4;
    }
    if (fixture_open(b, &f, &gw, why, sizeof why) != 0) {
        kd_bench_note(b, "mcp: no fixture: %s", why);
        missed = 5;
        goto done;
    }
    missed += scenario_stdio(b, &f, &gw);
    kd_bench_proc_stop(&gw, 0); /* the data directory's lock is free again */
    missed += kd_bench_mcp_http(b, &f);
    missed += kd_bench_mcp_flood(b, &f);
    missed += scenario_ts(b, &f);
done:
    kd_bench_proc_stop(&gw, 0);
    fixture_close(&f);
    curl_global_cleanup();
    return missed;
}
