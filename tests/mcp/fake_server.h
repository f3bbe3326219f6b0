/*
 * fake_server.h — a small MCP server for the mcp/ tests: tools that
 * succeed (quick: "echo"), fail as a tool, fail as a protocol error, write,
 * and answer after a delay ("sleep"); a resource provider with two resources and a template;
 * one prompt with a required argument. Nothing of kdapp, only the generic
 * layer.
 */
#ifndef KD_TESTS_MCP_FAKE_SERVER_H
#define KD_TESTS_MCP_FAKE_SERVER_H

#include <stdatomic.h>
#include <stdint.h>

#include <jansson.h>

#include "mcp/server/server.h"

/* Builds the fake server with `opts` overrides (NULL for defaults; name and
 * version are filled in when missing). Aborts the test on failure. */
kd_mcp_server *fake_server_new(const kd_mcp_server_options *opts);

/* Registers the quick tool "whoami", which answers {"principal": the
 * session's principal read as a C string, or null} (the tests give
 * strings as principals). Aborts the test on failure. */
void fake_add_whoami(kd_mcp_server *srv);

/* Parses a reply text; aborts the test when it is not a JSON object. */
json_t *fake_parse(const char *text);

/* Sends one message through kd_mcp_session_handle; returns the parsed reply
 * (NULL when there is none). */
json_t *fake_call(kd_mcp_session *s, const char *msg);

/* Runs initialize (+ notifications/initialized) on a session. */
void fake_initialize(kd_mcp_session *s);

/* The error code of a reply, 0 when it is a result. */
int fake_error_code(const json_t *reply);

/* A clock the test moves by hand, for kd_mcp_server_options.clock_ns
 * (ctx: the fake_clock). Atomic: server threads read it. */
typedef struct {
    _Atomic uint64_t ns;
} fake_clock;

uint64_t fake_clock_ns(void *ctx);
void fake_clock_advance(fake_clock *c, uint64_t ns);

#endif
