/*
 * stdio.h — the MCP stdio transport: newline-delimited JSON-RPC.
 *
 * The client starts the server as a child process and writes one JSON-RPC
 * message per line to its stdin; the server writes one message per line to
 * stdout and nothing else (logs go to stderr through the logger). One
 * session lives as long as the input stream. Server-initiated messages
 * (resource updates, log messages) may come from any thread; they are
 * written whole, under the same lock as replies, so lines never interleave.
 */
#ifndef KD_MCP_STDIO_H
#define KD_MCP_STDIO_H

#include <stddef.h>

#include "engine/err.h"
#include "mcp/server/server.h"

typedef struct {
    int in_fd;             /* usually 0 */
    int out_fd;            /* usually 1 */
    int stop_fd;           /* the loop returns when this becomes readable
                              (e.g. the read end of a self-pipe); -1 for none */
    size_t max_line;       /* longest accepted line in bytes; 0: the server's
                              max_message_bytes. A longer line is discarded and
                              answered with -32600 naming the limit. */
    const void *principal; /* the one session's principal (the seats the
                              process was started for), NULL for the public;
                              see kd_mcp_session_principal. Not freed. */
} kd_mcp_stdio_options;

/*
 * Serves one session on the given descriptors until end of input or until
 * stop_fd is readable. Requests are handled one at a time, in order.
 * Returns KD_OK at end of input or on stop; KD_ERR_IO when reading or
 * writing fails (the client went away); KD_ERR_NOMEM. The descriptors stay
 * open. Writing to a closed pipe raises SIGPIPE: the program should ignore
 * that signal (tools/ does) so that the error is returned instead.
 */
kd_err kd_mcp_stdio_run(kd_mcp_server *srv, const kd_mcp_stdio_options *opts) KD_WARN_UNUSED;

#endif
