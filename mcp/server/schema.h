/*
 * schema.h — a small JSON Schema subset checker for tool arguments.
 *
 * Tools declare an inputSchema; the server checks the arguments of every
 * tools/call against it before the tool runs, so tool code can rely on the
 * shapes it declared and a client that sent a wrong type gets an actionable
 * message ("argument /row: expected integer, got string") instead of a
 * confused tool. Only the keywords that tool schemas here use are checked:
 * type (a name or a list of names), required, properties,
 * additionalProperties (false or a schema), items, enum, const, minimum,
 * maximum, minLength, maxLength, minItems, maxItems. Unknown keywords are
 * ignored, as JSON Schema requires. This is not a general validator.
 */
#ifndef KD_MCP_SCHEMA_H
#define KD_MCP_SCHEMA_H

#include <stddef.h>

#include <jansson.h>

/*
 * Checks `value` against `schema`. Returns 1 when it conforms; 0 when it does
 * not, with a one-line reason naming the JSON pointer of the offending value
 * written to why (always NUL-terminated, truncated to why_len). A NULL or
 * non-object schema accepts everything. Nesting is followed to a fixed depth;
 * deeper values are accepted unchecked. Thread-safe.
 */
int kd_mcp_schema_check(const json_t *schema, const json_t *value, char *why, size_t why_len);

#endif
