/*
 * proto_json.h — any protobuf-c message as JSON, from its descriptor alone:
 * what lets a tool print a type's parameters (kdapp log --json) without
 * knowing the game. Field names are the .proto names; integers are JSON
 * numbers (a u64 above 2^63 - 1 a decimal string), enums their value names,
 * bytes lowercase hex, nested messages objects, repeated fields arrays. A
 * proto3 scalar at its default is printed too (the params in effect are
 * every field's value); a oneof member only when it is the one set.
 */
#ifndef KD_HANDLERS_PROTO_JSON_H
#define KD_HANDLERS_PROTO_JSON_H

#include <jansson.h>
#include <protobuf-c/protobuf-c.h>
#include <stddef.h>
#include <stdint.h>

/* The message `data` encodes as a JSON object (new reference), or NULL when
 * it does not decode as `desc` or on allocation failure. */
json_t *kd_proto_json(const ProtobufCMessageDescriptor *desc, const uint8_t *data, size_t len);

#endif
