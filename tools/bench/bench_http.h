/*
 * bench_http.h — many MCP sessions and event streams over HTTP from one
 * thread, for `kdapp bench`: libcurl's multi interface driven by socket
 * events (curl_multi_socket_action on an epoll set), so that ten thousand
 * open streams cost a socket each and a notification on one of them costs
 * the work of that socket only.
 *
 * A stream is not parsed: the client counts a marker (the notification's
 * method name, "event: view") in the bytes as they come, chunked framing
 * included; a marker split across two reads is found through the tail
 * kept from the previous one. Each stream records when the client began
 * reading the socket that brought its latest marker (stamped per socket
 * as epoll hands the ready ones over, so a block that reaches 10,000
 * streams is timed at each of them, never once per batch), which is what
 * the latency scenarios time: an upper bound on the arrival, the client's
 * own reading of the streams before it included.
 *
 * Internal to the bench; single-threaded (a client belongs to one thread).
 */
#ifndef KD_TOOLS_BENCH_HTTP_H
#define KD_TOOLS_BENCH_HTTP_H

#include <stddef.h>
#include <stdint.h>

typedef struct kd_bench_http kd_bench_http;

/* A marker counted on a byte stream (an HTTP event stream, a pipe). */
typedef struct {
    const char *marker; /* static, at most 64 bytes */
    char tail[64];      /* the last bytes seen: a marker split across reads */
    size_t tail_len;
    uint64_t count; /* markers seen */
    double last;    /* kd_bench_now() when the read that saw the latest one began */
} kd_bench_marks;

void kd_bench_marks_init(kd_bench_marks *m, const char *marker);
/* Counts the marker in the next `n` bytes (one split between two calls
 * counts once), stamping m->last with `now` when one was found; returns the
 * number found in these bytes. */
size_t kd_bench_marks_feed(kd_bench_marks *m, const char *data, size_t n, double now);
/* Reads a non-blocking descriptor until it would block, counting. 0, or -1
 * when it closed or failed. */
int kd_bench_marks_drain(kd_bench_marks *m, int fd, double now);

/* A client with no streams; NULL when libcurl or memory fails. */
kd_bench_http *kd_bench_http_alloc(void);
/* Closes every stream and frees the client; accepts NULL. */
void kd_bench_http_free(kd_bench_http *h);

/*
 * Opens `n` more MCP sessions on the gateway at 127.0.0.1:`port`, each on a
 * connection of its own: initialize, notifications/initialized,
 * resources/subscribe to `uri`, then its GET event stream, counting
 * notifications/resources/updated. Up to 64 sessions are set up at once.
 * Returns when every one has its stream open (answered 200), or at
 * `deadline` (kd_bench_now). 0, or -1 with a sentence in `why` naming the
 * session and what failed (the sessions opened so far stay open).
 */
int kd_bench_http_sessions(kd_bench_http *h, uint16_t port, size_t n, const char *uri, double deadline, char *why,
                           size_t why_len);
/* Sessions calling one tool over and over (kd_bench_http_calls). */
typedef struct {
    uint16_t port;              /* the gateway at 127.0.0.1:port */
    unsigned sessions;          /* 1 to 64, each on a keep-alive connection of its own */
    size_t warm, calls;         /* warm-up calls, then timed ones, per session (both at least 1) */
    const char *args;           /* KD_BENCH_TOOL's arguments, JSON */
    void (*on_warm)(void *ctx); /* called once every session is warm (may be NULL) */
    void *ctx;
    double start, end; /* out: when on_warm returned, when the last call was answered */
} kd_bench_calls;

/* Runs `k` on a client of its own (initialize, the calls, DELETE) and
 * frees it. 0, or -1 with `why` (an answer not 200 with a result, or one
 * with isError). on_warm is called even after a failure. */
int kd_bench_http_calls(kd_bench_calls *k, char *why, size_t why_len);
/* Opens one GET `path` event stream (the page's events) counting `marker`
 * (a static string). 0, or -1 with `why`. */
int kd_bench_http_events(kd_bench_http *h, uint16_t port, const char *path, const char *marker, double deadline,
                         char *why, size_t why_len);

/* The number of open streams, and stream `i` (in the order they were
 * opened; valid until the client is freed). */
size_t kd_bench_http_count(const kd_bench_http *h);
const kd_bench_marks *kd_bench_http_stream(const kd_bench_http *h, size_t i);

/* Sets every stream's count to `count` (the bytes before counted for
 * nothing). */
void kd_bench_http_recount(kd_bench_http *h, uint64_t count);
/* Sets the count every stream must reach and returns how many have not. */
size_t kd_bench_http_expect(kd_bench_http *h, uint64_t want);
/* How many streams are below the count kd_bench_http_expect set (kept as
 * the streams read, in constant time). */
size_t kd_bench_http_missing(const kd_bench_http *h);

/* A descriptor that polls readable when a stream has something to read
 * (the epoll set); for callers that wait on other descriptors too. */
int kd_bench_http_fd(const kd_bench_http *h);
/*
 * Reads what the streams have, waiting up to `wait_s` seconds for the first
 * bytes (0: only what is there), and runs libcurl's timers. 0, or -1 with
 * `why` when a stream ended or failed.
 */
int kd_bench_http_run(kd_bench_http *h, double wait_s, char *why, size_t why_len);

#endif
