/*
 * fuzz_mcp.c — JSON-RPC/MCP messages through kd_mcp_session_handle on a
 * server carrying the real kdapp gateway (tools, episode resources, the
 * turn prompt) over a seeded engine.
 *
 * Each input is split at newlines into messages, as the stdio transport
 * splits its stream; they go, in order, to one fresh session that has
 * already been initialised (so the fuzzer spends its time past the
 * lifecycle gate; initialize itself stays reachable as a message). Every
 * reply must be one line of JSON; a message that gets no reply is fine
 * (notifications and responses). The chain refuses every submission, so
 * the writing tools fail fast with a tool error.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz_support.h"

static void check_reply(const char *reply)
{
    json_error_t e;
    if (strchr(reply, '\n'))
        fz_fail("a reply spans lines: %s", reply);
    json_t *v = json_loads(reply, JSON_DECODE_ANY, &e);
    if (!json_is_object(v))
        fz_fail("a reply is not a JSON object (%s): %s", e.text, reply);
    json_decref(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kd_mcp_server *srv = fz_mcp_server();
    kd_mcp_session *s = NULL;
    if (kd_mcp_session_alloc(srv, NULL, NULL, &s) != KD_OK)
        fz_fail("cannot allocate a session");
    fz_mcp_initialize(s);
    size_t start = 0;
    while (start <= size) {
        const uint8_t *nl = start < size ? memchr(data + start, '\n', size - start) : NULL;
        size_t end = nl ? (size_t)(nl - data) : size;
        char *reply = NULL;
        if (end > start || size == 0) {
            if (kd_mcp_session_handle(s, (const char *)data + start, end - start, &reply) != KD_OK)
                fz_fail("kd_mcp_session_handle failed");
            if (reply)
                check_reply(reply);
            free(reply);
        }
        start = end + 1;
    }
    kd_mcp_session_free(s);
    return 0;
}
