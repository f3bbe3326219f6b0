/*
 * proto_json.c — a protobuf-c message as JSON through its descriptor
 * (proto_json.h).
 */
#include "handlers/proto_json.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "episodes/episode_type.h"

static json_t *message_json(const ProtobufCMessage *msg);

static json_t *u64_json(uint64_t v)
{
    if (v <= (uint64_t)INT64_MAX)
        return json_integer((json_int_t)v);
    char text[24];
    snprintf(text, sizeof text, "%llu", (unsigned long long)v);
    return json_string(text);
}

static json_t *enum_json(const ProtobufCEnumDescriptor *desc, int value)
{
    const ProtobufCEnumValue *v = protobuf_c_enum_descriptor_get_value(desc, value);
    return v ? json_string(v->name) : json_integer(value);
}

/* One value of `field` stored at `p`. */
static json_t *value_json(const ProtobufCFieldDescriptor *field, const void *p)
{
    switch (field->type) {
    case PROTOBUF_C_TYPE_INT32:
    case PROTOBUF_C_TYPE_SINT32:
    case PROTOBUF_C_TYPE_SFIXED32:
        return json_integer(*(const int32_t *)p);
    case PROTOBUF_C_TYPE_UINT32:
    case PROTOBUF_C_TYPE_FIXED32:
        return json_integer(*(const uint32_t *)p);
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_SFIXED64:
        return json_integer((json_int_t) * (const int64_t *)p);
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_FIXED64:
        return u64_json(*(const uint64_t *)p);
    case PROTOBUF_C_TYPE_FLOAT:
        return json_real(*(const float *)p);
    case PROTOBUF_C_TYPE_DOUBLE:
        return json_real(*(const double *)p);
    case PROTOBUF_C_TYPE_BOOL:
        return json_boolean(*(const protobuf_c_boolean *)p);
    case PROTOBUF_C_TYPE_ENUM:
        return enum_json(field->descriptor, *(const int *)p);
    case PROTOBUF_C_TYPE_STRING: {
        const char *s = *(char *const *)p;
        return json_string(s ? s : "");
    }
    case PROTOBUF_C_TYPE_BYTES: {
        const ProtobufCBinaryData *b = p;
        return kd_json_hex(b->data, b->len);
    }
    case PROTOBUF_C_TYPE_MESSAGE: {
        const ProtobufCMessage *m = *(ProtobufCMessage *const *)p;
        return m ? message_json(m) : json_null();
    }
    }
    return json_null();
}

/* The size of one element of a repeated `field` in its array. */
static size_t element_size(const ProtobufCFieldDescriptor *field)
{
    switch (field->type) {
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_SFIXED64:
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_FIXED64:
        return sizeof(uint64_t);
    case PROTOBUF_C_TYPE_DOUBLE:
        return sizeof(double);
    case PROTOBUF_C_TYPE_BOOL:
        return sizeof(protobuf_c_boolean);
    case PROTOBUF_C_TYPE_ENUM:
        return sizeof(int);
    case PROTOBUF_C_TYPE_STRING:
    case PROTOBUF_C_TYPE_MESSAGE:
        return sizeof(void *);
    case PROTOBUF_C_TYPE_BYTES:
        return sizeof(ProtobufCBinaryData);
    default:
        return sizeof(uint32_t); /* the 32-bit integers and float */
    }
}

/* Whether a singular `field` of `msg` is present: a oneof member only when
 * it is the case set, a proto2/proto3-optional scalar only with its has_. */
static int present(const ProtobufCMessage *msg, const ProtobufCFieldDescriptor *field)
{
    const char *base = (const char *)msg;
    if (field->flags & PROTOBUF_C_FIELD_FLAG_ONEOF)
        return *(const uint32_t *)(base + field->quantifier_offset) == field->id;
    if (field->label == PROTOBUF_C_LABEL_OPTIONAL && field->type != PROTOBUF_C_TYPE_STRING &&
        field->type != PROTOBUF_C_TYPE_MESSAGE)
        return *(const protobuf_c_boolean *)(base + field->quantifier_offset);
    return 1;
}

static json_t *message_json(const ProtobufCMessage *msg)
{
    json_t *obj = json_object();
    const char *base = (const char *)msg;
    for (unsigned i = 0; obj && i < msg->descriptor->n_fields; i++) {
        const ProtobufCFieldDescriptor *field = &msg->descriptor->fields[i];
        json_t *v;
        if (field->label == PROTOBUF_C_LABEL_REPEATED) {
            size_t n = *(const size_t *)(base + field->quantifier_offset);
            const char *array = *(char *const *)(base + field->offset);
            v = json_array();
            for (size_t k = 0; v && k < n; k++)
                if (json_array_append_new(v, value_json(field, array + k * element_size(field))) != 0) {
                    json_decref(v);
                    v = NULL;
                }
        } else if (present(msg, field)) {
            v = value_json(field, base + field->offset);
        } else {
            continue;
        }
        if (!v || json_object_set_new(obj, field->name, v) != 0) {
            json_decref(obj);
            obj = NULL;
        }
    }
    return obj;
}

json_t *kd_proto_json(const ProtobufCMessageDescriptor *desc, const uint8_t *data, size_t len)
{
    ProtobufCMessage *msg = protobuf_c_message_unpack(desc, NULL, len, data);
    if (!msg)
        return NULL;
    json_t *j = message_json(msg);
    protobuf_c_message_free_unpacked(msg, NULL);
    return j;
}
