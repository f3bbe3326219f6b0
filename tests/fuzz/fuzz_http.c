/*
 * fuzz_http.c — raw bytes at the Streamable HTTP transport (mcp/http.c on
 * libmicrohttpd): request line, headers, the Host/Origin/bearer checks,
 * the session header, body limits and the POST/GET/DELETE handlers, with
 * the kdapp gateway behind them.
 *
 * The transport is started once per process on a loopback port the system
 * picks. Each input is written as-is to a new TCP connection, the write
 * side is shut down, and the answer is read until the server closes or
 * READ_MS pass (an event stream stays open; that is fine). libFuzzer's
 * coverage counters are process-wide, so code run on the daemon's
 * connection threads guides the search too. The only check is the
 * sanitizers': nothing the client sends may crash, leak or race.
 *
 * The client closes with SO_LINGER 0 (a reset): hundreds of connections a
 * second would otherwise leave enough sockets in TIME_WAIT to exhaust the
 * loopback's ephemeral ports within minutes (connect then fails with
 * EADDRNOTAVAIL, which a first version of this target reported as a crash).
 *
 * File-scope state: the transport of this process (see fuzz_support.h on
 * why a fuzz target keeps its fixture there).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "fuzz/fuzz_support.h"
#include "mcp/server/http.h"

#define READ_MS 200

static kd_mcp_http *http; /* started on the first input, stopped at exit */

static void stop_http(void)
{
    kd_mcp_http_stop(http);
    http = NULL;
}

static uint16_t port(void)
{
    if (!http) {
        kd_mcp_server *srv = fz_mcp_server();
        kd_mcp_http_options o = {
            .max_sessions = 100000,
            .session_idle_timeout_s = 5,
            .keepalive_ms = 50,
            .max_connections = 64,
        };
        if (kd_mcp_http_start(srv, &o, &http) != KD_OK)
            fz_fail("cannot start the HTTP transport");
        atexit(stop_http);
    }
    return kd_mcp_http_port(http);
}

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port())};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int fd = -1;
    for (int tries = 0;; tries++) {
        if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
            fz_fail("socket failed: errno %d", errno);
        struct linger lg = {.l_onoff = 1, .l_linger = 0};
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
        if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0)
            break;
        int e = errno;
        close(fd);
        if (tries == 100) /* 1 s of refusals: the listener is gone */
            fz_fail("cannot connect to the HTTP transport: errno %d", e);
        poll(NULL, 0, 10);
    }
    for (size_t off = 0; off < size;) {
        ssize_t n = send(fd, data + off, size - off, MSG_NOSIGNAL);
        if (n <= 0)
            break; /* the server may refuse early and close: fine */
        off += (size_t)n;
    }
    shutdown(fd, SHUT_WR);
    char buf[4096];
    long deadline = now_ms() + READ_MS;
    for (long left = READ_MS; left > 0; left = deadline - now_ms()) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, (int)left) <= 0)
            break;
        if (recv(fd, buf, sizeof buf, 0) <= 0)
            break;
    }
    close(fd);
    return 0;
}
