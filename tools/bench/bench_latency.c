/*
 * bench_latency.c — end-to-end latency scenarios of `kdapp bench`
 * (bench.h): how long after a block's commit each kind of client learns of
 * it, against a floor of one NNG hop plus one write; then many HTTP
 * sessions (bench_latency_sessions.c) and a whole move as an agent sees it
 * (bench_latency_move.c).
 *
 * The bench hosts the chain (bench_latency_chain.c) so it knows when each
 * block's commit returned, and attaches the clients to it:
 *
 *                      ┌─▶ SUB socket in the bench ................... (a) PUB
 *   node: commit ─ PUB ┼─▶ kdapp mcp --stdio ── stdout pipe ─▶ bench ... (b) stdio
 *   (this process)     └─▶ kdapp mcp --http ─┬─ GET /mcp (session) ─▶ ... (c) HTTP SSE
 *                                            └─ GET /api/events ────▶ ... (d) page
 *
 * Every client is connected for every block: one block, then the bench
 * polls all four until each has it (a notification's arrival is the time
 * poll returned with it readable), then a pause of GAP_S before the next
 * block, so blocks never queue behind each other. The four comparisons
 * each report one client over their own runs.
 *
 * The floor: a PUB socket of the bench, a forwarder thread with a SUB
 * socket (ipc, like the node's) that writes one notification-sized line
 * to a pipe per message, and the bench reading that pipe; a message as
 * large as the episode's view, timed from before nng_send to the line.
 * That is the least any subscriber in another process must do: one NNG
 * hop and one write to its client.
 */
#define _GNU_SOURCE /* pipe2, memmem, memrchr */

#include <errno.h>
#include <fcntl.h>
#include <nng/nng.h>
#include <nng/protocol/pubsub0/pub.h>
#include <nng/protocol/pubsub0/sub.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/bench/bench_latency_int.h"

#define GAP_S 0.003               /* between one block reaching every client and the next block */
#define MIN_SAMPLES 500           /* blocks in a run, at least: a p99 resting on its 5 largest */
#define MIN_SAMPLES_QUICK 10      /* with --quick */
#define EVENTS_PATH "/api/events" /* the gateway's page events (KD_GATEWAY_EVENTS_PATH) */
#define MARK_MCP "notifications/resources/updated"
#define MARK_PAGE "event: view"
/* The line the floor's forwarder writes: a notification as the stdio gateway sends it. */
#define FLOOR_LINE                                                                                       \
    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/resources/updated\",\"params\":{\"uri\":\"kdapp://" \
    "episodes/1\"}}\n"

enum { EP_PUB, EP_STDIO, EP_HTTP, EP_PAGE, N_EP };

static const char *const EP_NAME[N_EP] = {"the PUB socket", "the stdio gateway", "the HTTP session stream",
                                          "the page's event stream"};

typedef struct {
    const kd_bench_ctx *b;
    kd_lat_chain *chain;
    nng_socket sub;
    int sub_open, sub_fd;
    uint64_t sub_count;
    double sub_last;
    kd_bench_proc stdio, http;
    kd_bench_marks stdio_s; /* counted on the stdio gateway's stdout */
    kd_bench_http *web;     /* stream 0: the MCP session's, 1: the page's events */
    /* the floor */
    nng_socket fpub, fsub;
    int floor_open, fwd_up, fwd_pipe[2];
    pthread_t fwd;
    kd_bench_marks floor_s; /* counted on fwd_pipe[0] */
    uint8_t *floor_msg;
    size_t floor_len;
    kd_buf lat; /* the current run's latencies (doubles) at its one client */
} e2e;

typedef struct {
    e2e *e;
    int client;
} e2e_side;

/* ------------------------------------------------------------- clients */

/* Receives what the SUB socket holds without waiting. 0, or -1 on error. */
static int sub_drain(e2e *e, double now)
{
    for (;;) {
        nng_msg *m;
        int rv = nng_recvmsg(e->sub, &m, NNG_FLAG_NONBLOCK);
        if (rv == NNG_EAGAIN)
            return 0;
        if (rv != 0)
            return -1;
        if (!e->chain->view_bytes)
            e->chain->view_bytes = nng_msg_len(m);
        nng_msg_free(m);
        e->sub_count++;
        e->sub_last = now;
    }
}

static int sub_open(e2e *e, char *why, size_t why_len)
{
    char topic[32];
    int n = snprintf(topic, sizeof topic, "ep/%u", e->chain->episode) + 1; /* with its NUL */
    int rv = nng_sub0_open(&e->sub);
    if (rv == 0)
        e->sub_open = 1;
    if (rv == 0)
        rv = nng_socket_set(e->sub, NNG_OPT_SUB_SUBSCRIBE, topic, (size_t)n);
    if (rv == 0)
        rv = nng_dial(e->sub, e->chain->views_url, NULL, NNG_FLAG_NONBLOCK);
    if (rv == 0)
        rv = nng_socket_get_int(e->sub, NNG_OPT_RECVFD, &e->sub_fd);
    if (rv != 0)
        snprintf(why, why_len, "the bench's SUB socket: %s", nng_strerror(rv));
    return rv ? -1 : 0;
}

static int stdio_open(e2e *e, char *why, size_t why_len)
{
    kd_bench_proc *p = &e->stdio;
    char line[256];
    if (kd_lat_gateway(e->b, e->chain, NULL, e->chain->log, p, NULL, why, why_len) != 0)
        return -1;
    int n = snprintf(line, sizeof line,
                     "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/subscribe\",\"params\":{\"uri\":"
                     "\"kdapp://episodes/%u\"}}\n",
                     e->chain->episode);
    if (kd_bench_handshake(p) != 0 || kd_bench_rpc(p, line, (size_t)n, 2, KD_LAT_START_S, NULL, NULL) != 0) {
        snprintf(why, why_len, "the attached stdio gateway did not answer initialize or resources/subscribe");
        return -1;
    }
    kd_bench_marks_init(&e->stdio_s, MARK_MCP);
    kd_bench_marks_feed(&e->stdio_s, p->buf + p->off, p->len - p->off, kd_bench_now());
    kd_bench_reader_consume(&p->out, p->len - p->off);
    fcntl(p->from, F_SETFL, fcntl(p->from, F_GETFL) | O_NONBLOCK);
    return 0;
}

static int http_open(e2e *e, char *why, size_t why_len)
{
    char uri[64];
    uint16_t port;
    if (kd_lat_gateway(e->b, e->chain, NULL, e->chain->log, &e->http, &port, why, why_len) != 0)
        return -1;
    snprintf(uri, sizeof uri, "kdapp://episodes/%u", e->chain->episode);
    double deadline = kd_bench_now() + KD_LAT_START_S;
    if (!(e->web = kd_bench_http_alloc())) {
        snprintf(why, why_len, "libcurl did not initialise");
        return -1;
    }
    if (kd_bench_http_sessions(e->web, port, 1, uri, deadline, why, why_len) != 0)
        return -1;
    return kd_bench_http_events(e->web, port, EVENTS_PATH, MARK_PAGE, deadline, why, why_len);
}

/* ---------------------------------------------------------- measuring */

static const kd_bench_marks *ep_marks(const e2e *e, int i)
{
    return i == EP_STDIO ? &e->stdio_s : kd_bench_http_stream(e->web, i == EP_HTTP ? 0 : 1);
}

static uint64_t ep_count(const e2e *e, int i) { return i == EP_PUB ? e->sub_count : ep_marks(e, i)->count; }

static double ep_last(const e2e *e, int i) { return i == EP_PUB ? e->sub_last : ep_marks(e, i)->last; }

/* Polls every client until each has counted `want[i]` or the deadline.
 * 0; 1 at the deadline; -1 with `why` when a client closed. */
static int poll_clients(e2e *e, const uint64_t want[N_EP], double deadline, char *why, size_t why_len)
{
    for (;;) {
        int missing = 0;
        for (int i = 0; i < N_EP; i++)
            missing += ep_count(e, i) < want[i];
        if (!missing)
            return 0;
        double left = deadline - kd_bench_now();
        if (left <= 0)
            return 1;
        /* the PUB socket, the stdio pipe, and the HTTP streams' epoll set (whose timers want a look now and then) */
        struct pollfd pf[3] = {{.fd = e->sub_fd, .events = POLLIN},
                               {.fd = e->stdio.from, .events = POLLIN},
                               {.fd = kd_bench_http_fd(e->web), .events = POLLIN}};
        int n = poll(pf, 3, left < 0.05 ? (int)(left * 1000) + 1 : 50);
        double now = kd_bench_now();
        if (n < 0 && errno != EINTR) {
            snprintf(why, why_len, "poll: %s", strerror(errno));
            return -1;
        }
        if ((pf[0].revents & (POLLIN | POLLHUP | POLLERR)) && sub_drain(e, now) != 0) {
            snprintf(why, why_len, "%s closed", EP_NAME[EP_PUB]);
            return -1;
        }
        if ((pf[1].revents & (POLLIN | POLLHUP | POLLERR)) && kd_bench_marks_drain(&e->stdio_s, e->stdio.from, now)) {
            snprintf(why, why_len, "%s closed", EP_NAME[EP_STDIO]);
            return -1;
        }
        if (kd_bench_http_run(e->web, 0, why, why_len) != 0)
            return -1;
    }
}

/* One block, timed at every client: latencies in seconds into lat[]. */
static int measure_block(e2e *e, double lat[N_EP], char *why, size_t why_len)
{
    uint64_t want[N_EP];
    double t0;
    for (int i = 0; i < N_EP; i++)
        want[i] = ep_count(e, i) + 1;
    kd_lat_chain_request(e->chain);
    double deadline = kd_bench_now() + KD_LAT_DELIVER_S;
    int rc = poll_clients(e, want, deadline, why, why_len);
    if (kd_lat_chain_wait(e->chain, deadline, &t0, why, why_len) != 0)
        return -1;
    for (int i = 0; rc == 1 && i < N_EP; i++)
        if (ep_count(e, i) < want[i])
            snprintf(why, why_len, "block %llu did not reach %s within %.0f s", (unsigned long long)e->chain->daa,
                     EP_NAME[i], KD_LAT_DELIVER_S);
    /* Seen once in many runs, with every other client on time: say
     * whether NNG held the view without making its descriptor readable. */
    int others_late = 0;
    for (int i = EP_PUB + 1; i < N_EP; i++)
        others_late |= ep_count(e, i) < want[i];
    if (rc == 1 && e->sub_count < want[EP_PUB] && !others_late) {
        int held = sub_drain(e, kd_bench_now()) == 0 && e->sub_count >= want[EP_PUB];
        size_t n = strlen(why);
        snprintf(why + n, why_len - n, "%s",
                 held ? " (the view was waiting in the SUB socket, whose receive descriptor never became readable)"
                      : " (nor was the view waiting in the SUB socket)");
    }
    if (rc)
        return -1;
    for (int i = 0; i < N_EP; i++) {
        if (ep_count(e, i) != want[i]) {
            snprintf(why, why_len, "%s got %llu messages for one block", EP_NAME[i],
                     (unsigned long long)(ep_count(e, i) - want[i] + 1));
            return -1;
        }
        lat[i] = ep_last(e, i) - t0;
    }
    return 0;
}

/* Blocks until every client has one (subscriptions are asynchronous),
 * then a quiet moment so nothing of the settling is left in flight. */
static int settle(e2e *e, char *why, size_t why_len)
{
    double deadline = kd_bench_now() + KD_LAT_START_S, t0;
    uint64_t want[N_EP] = {0};
    for (;;) {
        uint64_t before[N_EP];
        for (int i = 0; i < N_EP; i++)
            before[i] = ep_count(e, i), want[i] = ~0ull;
        kd_lat_chain_request(e->chain);
        if (kd_lat_chain_wait(e->chain, deadline, &t0, why, why_len) != 0)
            return -1;
        if (poll_clients(e, want, kd_bench_now() + 0.2, why, why_len) < 0)
            return -1;
        int all = 1;
        for (int i = 0; i < N_EP; i++)
            all &= ep_count(e, i) > before[i];
        if (all)
            return 0;
        if (kd_bench_now() > deadline) {
            for (int i = 0; i < N_EP; i++)
                if (ep_count(e, i) == before[i])
                    snprintf(why, why_len, "no block reached %s in %.0f s", EP_NAME[i], KD_LAT_START_S);
            return -1;
        }
    }
}

/* ---------------------------------------------------------- the floor */

static void *forward_main(void *arg)
{
    e2e *e = arg;
    for (;;) {
        nng_msg *m;
        if (nng_recvmsg(e->fsub, &m, 0) != 0)
            return NULL; /* closed */
        nng_msg_free(m);
        if (kd_bench_write_all(e->fwd_pipe[1], FLOOR_LINE, sizeof FLOOR_LINE - 1) != 0)
            return NULL;
    }
}

static int floor_open(e2e *e, char *why, size_t why_len)
{
    char url[700];
    snprintf(url, sizeof url, "ipc://%s/floor.ipc", e->chain->dir);
    int rv = nng_pub0_open(&e->fpub);
    if (rv == 0 && (rv = nng_sub0_open(&e->fsub)) != 0)
        nng_close(e->fpub);
    if (rv != 0) {
        snprintf(why, why_len, "the floor's sockets: %s", nng_strerror(rv));
        return -1;
    }
    e->floor_open = 1;
    if ((rv = nng_listen(e->fpub, url, NULL, 0)) == 0 &&
        (rv = nng_socket_set(e->fsub, NNG_OPT_SUB_SUBSCRIBE, "", 0)) == 0)
        rv = nng_dial(e->fsub, url, NULL, 0);
    if (rv != 0) {
        snprintf(why, why_len, "the floor's sockets: %s", nng_strerror(rv));
        return -1;
    }
    if (pipe2(e->fwd_pipe, O_CLOEXEC) != 0 || pthread_create(&e->fwd, NULL, forward_main, e) != 0) {
        snprintf(why, why_len, "cannot start the floor's forwarder");
        return -1;
    }
    e->fwd_up = 1;
    kd_bench_marks_init(&e->floor_s, MARK_MCP);
    fcntl(e->fwd_pipe[0], F_SETFL, fcntl(e->fwd_pipe[0], F_GETFL) | O_NONBLOCK);
    /* the floor's message: as large as the view frame */
    e->floor_len = e->chain->view_bytes ? e->chain->view_bytes : 256;
    if ((e->floor_msg = calloc(1, e->floor_len)) == NULL) {
        snprintf(why, why_len, "out of memory");
        return -1;
    }
    memcpy(e->floor_msg, "ep/1", 4 < e->floor_len ? 4 : e->floor_len);
    return 0;
}

/* One floor message; its latency in *lat. 0; 1 when it did not arrive
 * within `wait_s`; -1 with `why`. */
static int floor_once(e2e *e, double wait_s, double *lat, char *why, size_t why_len)
{
    uint64_t want = e->floor_s.count + 1;
    double t0 = kd_bench_now();
    int rv = nng_send(e->fpub, e->floor_msg, e->floor_len, 0);
    if (rv != 0) {
        snprintf(why, why_len, "the floor's PUB socket: %s", nng_strerror(rv));
        return -1;
    }
    double deadline = t0 + wait_s;
    while (e->floor_s.count < want) {
        double left = deadline - kd_bench_now();
        struct pollfd pf = {.fd = e->fwd_pipe[0], .events = POLLIN};
        if (left <= 0)
            return 1;
        if (poll(&pf, 1, (int)(left * 1000) + 1) > 0 && kd_bench_marks_drain(&e->floor_s, pf.fd, kd_bench_now()) != 0) {
            snprintf(why, why_len, "the floor's forwarder stopped");
            return -1;
        }
    }
    *lat = e->floor_s.last - t0;
    return 0;
}

/* Sends until the SUB is connected (the first message through), then
 * drains what was still in flight. */
static int floor_settle(e2e *e, char *why, size_t why_len)
{
    double lat, deadline = kd_bench_now() + KD_LAT_START_S;
    int rc;
    while ((rc = floor_once(e, 0.05, &lat, why, why_len)) == 1)
        if (kd_bench_now() > deadline) {
            snprintf(why, why_len, "the floor's SUB socket never connected");
            return -1;
        }
    kd_bench_sleep(0.1);
    if (kd_bench_marks_drain(&e->floor_s, e->fwd_pipe[0], kd_bench_now()) != 0) {
        snprintf(why, why_len, "the floor's forwarder stopped");
        return -1;
    }
    return rc;
}

/* --------------------------------------------------------------- runs */

static int run_side(void *ctx, int side, double *out, char *why, size_t why_len)
{
    e2e_side *s = ctx;
    e2e *e = s->e;
    double start = kd_bench_now(), one[N_EP];
    int client = side == 0 ? s->client : 0;
    e->lat.len = 0;
    size_t min_samples = e->b->quick ? MIN_SAMPLES_QUICK : MIN_SAMPLES;
    while (e->lat.len < min_samples * sizeof(double) || kd_bench_now() - start < e->b->run_s) {
        int rc = side == 0 ? measure_block(e, one, why, why_len) : floor_once(e, KD_LAT_DELIVER_S, one, why, why_len);
        if (rc == 1)
            snprintf(why, why_len, "a floor message was lost");
        if (rc != 0)
            return -1;
        if (kd_buf_append(&e->lat, &one[client], sizeof one[client]) != KD_OK) {
            snprintf(why, why_len, "out of memory");
            return -1;
        }
        kd_bench_sleep(GAP_S);
    }
    kd_bench_quantiles_us((double *)(void *)e->lat.data, e->lat.len / sizeof(double), out);
    return 0;
}

static void e2e_close(e2e *e)
{
    kd_bench_http_free(e->web);
    kd_bench_proc_stop(&e->stdio, 1);
    kd_bench_proc_stop(&e->http, 1);
    if (e->sub_open)
        nng_close(e->sub);
    if (e->floor_open) {
        nng_close(e->fsub); /* ends the forwarder's receive */
        nng_close(e->fpub);
    }
    if (e->fwd_up)
        pthread_join(e->fwd, NULL);
    for (int i = 0; i < 2 && e->fwd_up; i++)
        close(e->fwd_pipe[i]);
    kd_buf_fini(&e->lat);
    free(e->floor_msg);
    memset(e, 0, sizeof *e);
}

static int e2e_open(const kd_bench_ctx *b, kd_lat_chain *c, e2e *e, char *why, size_t why_len)
{
    memset(e, 0, sizeof *e);
    e->b = b, e->chain = c;
    kd_bench_proc_init(&e->stdio);
    kd_bench_proc_init(&e->http);
    if (sub_open(e, why, why_len) != 0 || stdio_open(e, why, why_len) != 0 || http_open(e, why, why_len) != 0 ||
        settle(e, why, why_len) != 0)
        return -1;
    return floor_open(e, why, why_len) != 0 ? -1 : floor_settle(e, why, why_len);
}

/* The four comparisons; the number of targets missed. */
static int scenario_e2e(const kd_bench_ctx *b, kd_lat_chain *c)
{
    static const char *const ids[N_EP] = {"latency-pub", "latency-stdio", "latency-http", "latency-page"};
    static const char *const what[N_EP] = {
        "latency: block commit → its view at a SUB socket on the PUB socket",
        "latency: block commit → notifications/resources/updated at an MCP client over stdio",
        "latency: block commit → notifications/resources/updated on an MCP session's SSE stream (HTTP)",
        "latency: block commit → the view on the board page's event stream (GET /api/events)",
    };
    e2e e;
    char why[512] = "";
    int missed = 0;
    if (e2e_open(b, c, &e, why, sizeof why) != 0) {
        kd_bench_heading(b, "latency: block commit → clients");
        kd_bench_note(b, "FAILED: %s", why);
        kd_bench_show_log(c->log);
        e2e_close(&e);
        return N_EP;
    }
    kd_bench_note(b,
                  "latency: one %s move per block (or the revert of the last, where every move would end the game; "
                  "view frame %zu B), the next block %.0f ms after the last client got the previous one; every "
                  "client attached for every block",
                  c->type->title, c->view_bytes, GAP_S * 1e3);
    for (int i = 0; i < N_EP; i++) {
        e2e_side side = {.e = &e, .client = i};
        kd_bench_pair p = {
            .id = ids[i],
            .scenario = what[i],
            .subject = "kdapp-c",
            .baseline = "NNG PUB→SUB hop + one write",
            .metrics = {{"p50", "us", 0, 0}, {"p99", "us", 3, 0}, {"max", "us", 0, 0}},
            .n_metrics = 3,
            .run = run_side,
            .ctx = &side,
        };
        missed += kd_bench_paired(b, &p);
    }
    e2e_close(&e);
    return missed;
}

int kd_bench_latency(const kd_bench_ctx *b)
{
    kd_lat_chain c;
    char why[512] = "";
    int missed = 0;
    if (kd_lat_chain_open(b, &c, why, sizeof why) != 0) {
        kd_bench_heading(b, "latency: block commit → clients");
        kd_bench_note(b, "FAILED: cannot host the chain: %s", why);
        missed += N_EP;
    } else {
        missed += scenario_e2e(b, &c);
        kd_lat_chain_close(&c);
    }
    missed += kd_bench_fanout(b);
    missed += kd_lat_agent_move(b);
    return missed;
}
