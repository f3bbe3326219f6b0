/*
 * bench_latency_move.c — a whole move as an agent sees it
 * (bench_latency_int.h): `kdapp_execute_command` on the embedded default,
 * `kdapp mcp --stdio` with its own engine and devnet, from the request
 * line written to the answer read, at the default block interval
 * (KD_DEVNET_DEFAULT_BLOCK_MS, Kaspa's 100 ms) and at 20 ms (a fast local
 * devnet, --block-ms 20): the block wait follows the interval, the rest
 * does not.
 *
 * The split. The embedded gateway publishes its engine's views on the
 * data directory's default socket (tools/common/endpoints.h); the bench
 * subscribes there to the block summaries ("blk"). The first summary with
 * a transaction after a call was sent is the block carrying the move (one
 * move is in flight at a time), and its arrival — the block's commit plus
 * one NNG hop, about 0.1 ms — splits the call:
 *
 *   request ──────── block wait ────────▶ block committed ── rest ──▶ answer
 *           (parse, sign, submit, wait for   (summary seen)  (the gateway learns
 *            the devnet's next tick, apply)                   the outcome, answers)
 *
 * An agent that answered each reply at once would always send just after
 * a tick and wait almost a whole interval; a real agent thinks first. So
 * each call is sent after a pause drawn uniformly from one block interval
 * (fixed seed), which makes the phase against the devnet's clock uniform:
 * the block wait then averages half an interval plus the block's commit.
 */
#include <errno.h>
#include <nng/nng.h>
#include <nng/protocol/pubsub0/sub.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kdapp.pb-c.h"
#include "tools/bench/bench_episode.h"
#include "tools/bench/bench_latency_int.h"
#include "tools/sim/replay.h"
#include "tools/chain/devnet.h"
#include "tools/common/endpoints.h"

#define MOVES_FULL 100
#define MOVES_QUICK 4
#define WARM_MOVES 2 /* also prove the summaries' socket is connected */

typedef struct {
    const kd_bench_ctx *b;
    char dir[512], data[600], keys[600], log[600];
    kd_bench_proc gw; /* its stdout read by lines */
    nng_socket sub;
    int sub_open, sub_fd;
    const kd_episode_type *type; /* kd_bench_play_type: a game the agents play alone */
    uint32_t episode;
    long next_id;
    uint64_t rng;
} agent;

/* One move's three durations, in seconds. */
typedef struct {
    double total, wait, rest;
} move_times;

static double next_uniform(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return (double)((*s * 0x2545F4914F6CDD1DULL) >> 11) / 9007199254740992.0;
}

/* Whether a "blk" frame is the summary of a block with transactions. */
static int block_with_txs(nng_msg *m)
{
    const char *topic;
    const uint8_t *payload;
    size_t len;
    if (kd_pub_split(nng_msg_body(m), nng_msg_len(m), &topic, &payload, &len) != 0 ||
        strcmp(topic, KD_TOPIC_BLOCK) != 0)
        return 0;
    Kdapp__BlockSummary *s = kdapp__block_summary__unpack(NULL, len, payload);
    int has = s && !s->reverted && s->n_txs > 0;
    if (s)
        kdapp__block_summary__free_unpacked(s, NULL);
    return has;
}

/*
 * Sends `line` (request `id`) and waits for its answer and for the first
 * summary of a block with transactions. The gateway hears of the block
 * over inproc and the bench over ipc, so on a slow machine (a sanitizer
 * build) the answer may come first: the summary is then awaited a little
 * longer and the split put at the answer (rest 0; counted in *late).
 * 0, or -1 with why.
 */
static int timed_call(agent *a, const char *line, long id, move_times *t, unsigned *late, char *why, size_t why_len)
{
    char needle[32], *ans;
    int nl = snprintf(needle, sizeof needle, "\"id\":%ld", id);
    double t_blk = 0, t_ans = 0, t_send = kd_bench_now(), deadline = t_send + KD_LAT_START_S;
    if (kd_bench_write_all(a->gw.to, line, strlen(line)) != 0) {
        snprintf(why, why_len, "the gateway closed its stdin");
        return -1;
    }
    while (!t_ans || !t_blk) {
        struct pollfd pf[2] = {{.fd = a->sub_fd, .events = POLLIN}, {.fd = a->gw.from, .events = POLLIN}};
        double left = (t_ans ? t_ans + 2.0 : deadline) - kd_bench_now();
        int n = left > 0 ? poll(pf, t_ans ? 1 : 2, (int)(left * 1000) + 1) : 0;
        double now = kd_bench_now();
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            snprintf(why, why_len, t_ans ? "no block summary for a move" : "no answer to a move in %.0f s",
                     KD_LAT_START_S);
            return -1;
        }
        nng_msg *m;
        while ((pf[0].revents & POLLIN) && nng_recvmsg(a->sub, &m, NNG_FLAG_NONBLOCK) == 0) {
            if (!t_blk && block_with_txs(m))
                t_blk = now;
            nng_msg_free(m);
        }
        while (!t_ans && (pf[1].revents & (POLLIN | POLLHUP)) &&
               kd_bench_read_line(&a->gw.out, kd_bench_now() + 0.0005, &ans, NULL) == 0) {
            const char *h = strstr(ans, needle);
            if (!h || (h[nl] != ',' && h[nl] != '}'))
                continue;
            if (!strstr(ans, "\"result\":") || strstr(ans, "\"isError\":true")) {
                snprintf(why, why_len, "the move was refused: %.200s", ans);
                return -1;
            }
            t_ans = now;
        }
    }
    if (t_blk > t_ans) {
        t_blk = t_ans;
        ++*late;
    }
    t->total = t_ans - t_send;
    t->wait = t_blk - t_send;
    t->rest = t_ans - t_blk;
    return 0;
}

/* Starts an episode of the agent's type (with the gateway's granted keys). 0, or -1 with why. */
static int start_episode(agent *a, char *why, size_t why_len)
{
    json_t *r = kd_bench_call_json(&a->gw, &a->next_id, "kdapp_start_episode",
                                   json_pack("{s:s}", "type", a->type->ops->type_name), why, why_len);
    a->episode = (uint32_t)json_integer_value(json_object_get(r, "episode_id"));
    json_decref(r);
    return a->episode ? 0 : -1;
}

/* The request line of the next move (a legal move drawn with the agent's
 * seed; a new episode when the game is over), for request `*id`. 0, or -1. */
static int next_move(agent *a, char *line, size_t cap, long *id, char *why, size_t why_len)
{
    for (int tries = 0; tries < 2; tries++) {
        json_t *r = kd_bench_call_json(&a->gw, &a->next_id, "kdapp_legal_moves",
                                       json_pack("{s:i}", "episode_id", (json_int_t)a->episode), why, why_len);
        json_t *moves = json_object_get(r, "moves");
        size_t n = json_array_size(moves);
        if (n) {
            json_t *cmd =
                json_object_get(json_array_get(moves, (size_t)(next_uniform(&a->rng) * (double)n) % n), "command");
            char *text = json_dumps(cmd, JSON_COMPACT);
            *id = a->next_id++;
            int k = text ? snprintf(line, cap,
                                    "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"method\":\"tools/call\",\"params\":{\"name\":"
                                    "\"kdapp_execute_command\",\"arguments\":{\"episode_id\":%u,\"command\":%s}}}\n",
                                    *id, a->episode, text)
                         : -1;
            free(text);
            json_decref(r);
            if (k < 0 || (size_t)k >= cap) {
                snprintf(why, why_len, "a move's request does not fit");
                return -1;
            }
            return 0;
        }
        json_decref(r);
        if (!moves || start_episode(a, why, why_len) != 0)
            return -1;
    }
    snprintf(why, why_len, "a new episode has no legal move");
    return -1;
}

/* The next move, its legal moves asked first (untimed), sent after `pause_s`. */
static int play(agent *a, double pause_s, move_times *t, unsigned *late, char *why, size_t why_len)
{
    char line[2048];
    long id;
    if (next_move(a, line, sizeof line, &id, why, why_len) != 0)
        return -1;
    kd_bench_sleep(pause_s);
    return timed_call(a, line, id, t, late, why, why_len);
}

static int agent_open(const kd_bench_ctx *b, agent *a, unsigned block_ms, char *why, size_t why_len)
{
    char ms[16];
    kd_endpoints ep;
    memset(a, 0, sizeof *a);
    a->b = b, a->next_id = 10, a->rng = 0x9E3779B97F4A7C15ULL;
    a->type = kd_bench_play_type(b);
    kd_bench_proc_init(&a->gw);
    if (!a->type) {
        snprintf(why, why_len, "no type the bench can play alone is registered");
        return -1;
    }
    if (kd_bench_scratch(b, "agent", "gateway.log", 1, a->dir, a->data, a->keys, a->log, why, why_len) != 0)
        return -1;
    snprintf(ms, sizeof ms, "%u", block_ms);
    char *argv[12] = {
        (char *)b->kdapp_path, "mcp", "--stdio", "--grant", "agent1,agent2", "--data", a->data, "--keys", a->keys};
    if (block_ms != KD_DEVNET_DEFAULT_BLOCK_MS) /* the default as a user gets it: no flag */
        argv[9] = "--block-ms", argv[10] = ms;
    /* Two calls a move (its legal moves, then the move) at a 20 ms block
     * interval are about 100 a second, above a session's default rate:
     * what is timed here is the move, not the rate limit. */
    const char *env[] = {"KDAPP_MCP_CALLS_PER_S=1000", NULL};
    if (kd_bench_proc_spawn(&a->gw, argv, env, a->log, 1) != 0) {
        snprintf(why, why_len, "cannot start kdapp mcp --stdio: %s", strerror(errno));
        return -1;
    }
    if (kd_bench_handshake(&a->gw) != 0) {
        snprintf(why, why_len, "kdapp mcp --stdio did not answer initialize");
        return -1;
    }
    if (start_episode(a, why, why_len) != 0)
        return -1;
    if (kd_endpoints_default(a->data, &ep, why, why_len) != KD_OK)
        return -1;
    int rv = nng_sub0_open(&a->sub);
    a->sub_open = rv == 0;
    if (rv == 0)
        rv = nng_socket_set(a->sub, NNG_OPT_SUB_SUBSCRIBE, KD_TOPIC_BLOCK, strlen(KD_TOPIC_BLOCK) + 1);
    if (rv == 0)
        rv = nng_dial(a->sub, ep.publish, NULL, 0);
    if (rv == 0)
        rv = nng_socket_get_int(a->sub, NNG_OPT_RECVFD, &a->sub_fd);
    if (rv != 0) {
        snprintf(why, why_len, "the gateway's views socket: %s", nng_strerror(rv));
        return -1;
    }
    kd_bench_sleep(0.1); /* the subscription reaches the PUB side */
    return 0;
}

static void agent_close(agent *a)
{
    if (a->sub_open)
        nng_close(a->sub);
    kd_bench_proc_stop(&a->gw, 1);
    kd_remove_tree(a->dir);
    memset(a, 0, sizeof *a);
}

/* `n` moves at `block_ms`: their durations into t[0..n). 0, or -1 with why. */
static int measure(const kd_bench_ctx *b, unsigned block_ms, move_times *t, size_t n, unsigned *late, char *why,
                   size_t why_len)
{
    agent a;
    move_times warm;
    unsigned warm_late = 0;
    int rc = agent_open(b, &a, block_ms, why, why_len);
    for (int i = 0; i < WARM_MOVES && rc == 0; i++)
        rc = play(&a, 0, &warm, &warm_late, why, why_len);
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = play(&a, next_uniform(&a.rng) * block_ms / 1e3, &t[i], late, why, why_len);
    if (rc != 0)
        kd_bench_show_log(a.log);
    agent_close(&a);
    return rc;
}

/* "p50 / p99" of one column of the moves, in ms. */
static void cell(const move_times *t, size_t n, size_t field, double *tmp, char *out, size_t len)
{
    for (size_t i = 0; i < n; i++)
        tmp[i] = field == 0 ? t[i].total : field == 1 ? t[i].wait : t[i].rest;
    double p50 = kd_bench_percentile(tmp, n, 0.5), p99 = kd_bench_percentile(tmp, n, 0.99);
    snprintf(out, len, "%.2f / %.2f ms", p50 * 1e3, p99 * 1e3);
}

int kd_lat_agent_move(const kd_bench_ctx *b)
{
    static const unsigned intervals[] = {KD_DEVNET_DEFAULT_BLOCK_MS, 20};
    static const char *const columns[] = {"block interval", "moves", "total p50 / p99", "block wait p50 / p99",
                                          "rest p50 / p99"};
    enum { N_INT = sizeof intervals / sizeof intervals[0], N_COL = sizeof columns / sizeof columns[0] };
    size_t n = b->quick ? MOVES_QUICK : MOVES_FULL;
    move_times *t = calloc(n, sizeof *t);
    double *tmp = calloc(n, sizeof *tmp);
    char text[N_INT][N_COL][64], why[512] = "";
    const char *rows[N_INT * N_COL];
    unsigned late = 0;
    int failed = !t || !tmp;
    for (size_t k = 0; k < N_INT && !failed; k++) {
        if (measure(b, intervals[k], t, n, &late, why, sizeof why) != 0) {
            failed = 1;
            break;
        }
        snprintf(text[k][0], sizeof text[k][0], "%u ms%s", intervals[k],
                 intervals[k] == KD_DEVNET_DEFAULT_BLOCK_MS ? " (default)" : "");
        snprintf(text[k][1], sizeof text[k][1], "%zu", n);
        for (size_t f = 0; f < 3; f++)
            cell(t, n, f, tmp, text[k][2 + f], sizeof text[k][2 + f]);
        for (size_t c = 0; c < N_COL; c++)
            rows[k * N_COL + c] = text[k][c];
    }
    if (failed) {
        kd_bench_heading(b,
                         "latency: a whole move as an agent sees it (kdapp_execute_command on the embedded default)");
        kd_bench_note(b, "FAILED: %s", why[0] ? why : "out of memory");
    } else {
        kd_bench_table(b, "agent-move",
                       "latency: a whole move as an agent sees it (kdapp_execute_command on the embedded default, "
                       "kdapp mcp --stdio), split at the commit of the block carrying it",
                       columns, N_COL, rows, N_INT, NULL);
        kd_bench_note(b,
                      "agent move: each call after a pause drawn uniformly from one block interval (an agent "
                      "thinking), so the wait for the next block is uniform over the interval; %u of %zu answers "
                      "came before the bench saw their block (split put at the answer)",
                      late, n * N_INT);
    }
    free(t);
    free(tmp);
    return failed;
}
