/*
 * http_client.h — what the HTTP transport tests share (http_test.c, the
 * protocol; http_capacity_test.c, connections and timeouts): the fixture,
 * libcurl requests that record status, body and the headers the tests
 * read, SSE streams read on a thread, raw connections that send half a
 * request, and waits on conditions with deadlines. Test code: failures
 * are reported with cr_assert.
 */
#ifndef KD_TESTS_MCP_HTTP_CLIENT_H
#define KD_TESTS_MCP_HTTP_CLIENT_H

#include <pthread.h>
#include <stddef.h>

#include <curl/curl.h>

#include "mcp/server/http.h"
#include "mcp/server/server.h"

/* The fixture: the fake server, the transport, its URL and host:port. */
extern kd_mcp_server *srv;
extern kd_mcp_http *http;
extern char base[96];
extern char host_port[64];

/* The local address requests and streams come from ("" for any): a second
 * loopback address (127.0.0.2) is a second tokenless client. */
extern char source_ip[32];

/* Starts the default fixture (keepalive 200 ms), and stops it. */
void setup(void);
void teardown(void);
/* Restarts the transport with `ho`, and the server too when `so` is not
 * NULL. */
void restart(const kd_mcp_server_options *so, const kd_mcp_http_options *ho);

typedef struct {
    long status;
    char *body;
    size_t len;
    char sid[128], ctype[128], www_auth[256], csp[256], nosniff[32], retry_after[32], connection[32];
} resp;

/* One request; CURLE_OK when an answer came. `extra` (NULL-terminated,
 * may be NULL) comes first and replaces the JSON defaults of the same
 * name. */
CURLcode try_req(resp *out, const char *method, const char *path, const char *sid, const char *body,
                 const char *const *extra);
/* One request that must be answered. */
void req(resp *out, const char *method, const char *path, const char *sid, const char *body, const char *const *extra);
void resp_fini(resp *r);
/* The status of a GET of `path`, 0 when no answer came. */
long status_of(const char *path);
/* The JSON-RPC error code of an answer, 0 when none. */
int error_code(const resp *r);

/* An initialize request. */
extern const char *const INIT;
/* initialize + notifications/initialized; writes the session id. */
void open_session(char *sid, size_t cap);

double now_s(void);
void pause_ms(long ms);

/* Polls until `cond` holds or `seconds` pass. */
#define WAIT_FOR_S(cond, seconds)                        \
    do {                                                 \
        double deadline_ = now_s() + (seconds);          \
        while (!(cond) && now_s() < deadline_)           \
            pause_ms(20);                                \
        cr_assert(cond, "timed out waiting for " #cond); \
    } while (0)
#define WAIT_FOR(cond) WAIT_FOR_S(cond, 10.0)

/* A GET event stream read on its own thread into buf. */
typedef struct {
    pthread_t thread;
    char sid[128];    /* "" for none */
    char path[64];    /* "" for /mcp */
    char header[128]; /* one more request header, or "" */
    char source[32];  /* source_ip when it started */
    pthread_mutex_t lock;
    char buf[65536];
    size_t len;
    long status;
    CURLcode rc;
    int done; /* the request ended (lock) */
} stream;

void stream_start(stream *s, const char *sid);
/* A GET event stream of `path` with no session, one extra header (or NULL). */
void stream_start_get(stream *s, const char *path, const char *header);
/* A GET event stream of `path` ("" for /mcp) with session `sid` ("" for
 * none) and one extra header (or NULL), e.g. an Authorization. */
void stream_start_with(stream *s, const char *path, const char *sid, const char *header);
/* How many times `needle` occurs in what the stream read. */
size_t count(stream *s, const char *needle);
/* 1 once the stream's request ended. */
int stream_done(stream *s);

/* A connection that sends half the headers of a POST, then nothing. */
int half_open(void);
/* How many of `fds` the server has closed (end of file or reset); each
 * closed one is closed here too and set to -1. Never blocks. */
int closed_count(int *fds, int n);

#endif
