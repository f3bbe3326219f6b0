/* wire_alloc.c — the tracking protobuf-c allocator, the arena and the
 * packing of a message into a kd_buf (see wire_alloc.h). */
#include "episodes/wire_alloc.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

static void *track_malloc(void *data, size_t size)
{
    void *p = malloc(size);
    if (!p)
        ((kd_pb_alloc *)data)->failed = 1;
    return p;
}

static void track_free(void *data, void *ptr)
{
    (void)data;
    free(ptr);
}

void kd_pb_alloc_init(kd_pb_alloc *alloc)
{
    alloc->base.alloc = track_malloc;
    alloc->base.free = track_free;
    alloc->base.allocator_data = alloc;
    alloc->failed = 0;
}

static void *arena_malloc(void *data, size_t size)
{
    kd_pb_arena *a = data;
    size_t align = _Alignof(max_align_t), at = (a->used + align - 1) / align * align;
    if (size > a->size || at > a->size - size) {
        a->failed = 1;
        return NULL;
    }
    a->used = at + size;
    return a->storage + at;
}

static void arena_free(void *data, void *ptr)
{
    (void)data;
    (void)ptr; /* the storage is the caller's */
}

void kd_pb_arena_init(kd_pb_arena *arena, void *storage, size_t size)
{
    arena->base.alloc = arena_malloc;
    arena->base.free = arena_free;
    arena->base.allocator_data = arena;
    arena->storage = storage;
    arena->size = size;
    arena->used = 0;
    arena->failed = 0;
}

kd_err kd_pb_append(const ProtobufCMessage *msg, kd_buf *out)
{
    size_t size = protobuf_c_message_get_packed_size(msg);
    kd_err err = kd_buf_reserve(out, size);
    if (!err && size) /* an empty message writes nothing (and data may still be NULL) */
        out->len += protobuf_c_message_pack(msg, out->data + out->len);
    return err;
}

kd_err kd_pb_unpack_refused(const kd_pb_alloc *track, kd_reject *rej, const char *part, kd_err bad, const char *fmt,
                            ...)
{
    if (track->failed)
        return kd_reject_say(rej, KD_ERR_NOMEM, "out of memory while decoding the %s", part);
    if (rej) {
        rej->code[0] = '\0';
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(rej->detail, sizeof rej->detail, fmt, ap);
        va_end(ap);
    }
    return bad;
}

kd_err kd_pb_seat_fields_only(const ProtobufCMessageDescriptor *desc, const char *const *names, const char *seat_name,
                              const uint8_t *data, size_t len, kd_reject *rej)
{
    ProtobufCMessage *m = protobuf_c_message_unpack(desc, NULL, len, data);
    if (!m)
        return kd_reject_say(rej, KD_ERR_BAD_PARAMS, "the join params of seat %s do not decode as %s", seat_name,
                             desc->short_name);
    ProtobufCBinaryData kept[8];
    size_t n = 0;
    kd_err err = KD_OK;
    for (; names[n] && n < 8; n++) {
        const ProtobufCFieldDescriptor *f = protobuf_c_message_descriptor_get_field_by_name(desc, names[n]);
        ProtobufCBinaryData *b =
            f && f->type == PROTOBUF_C_TYPE_BYTES ? (ProtobufCBinaryData *)((char *)m + f->offset) : NULL;
        if (!b) {
            err = kd_reject_say(rej, KD_ERR_BAD_PARAMS, "%s has no bytes field %s", desc->short_name, names[n]);
            break;
        }
        kept[n] = *b;
        if (b->len != 32 && !err)
            err = kd_reject_say(rej, KD_ERR_BAD_PARAMS,
                                "seat %s's %s must be 32 bytes (its own commitment), got %zu: a seat joins with it",
                                seat_name, names[n], b->len);
        b->len = 0; /* packed without it: what is left must be nothing */
    }
    if (!err && protobuf_c_message_get_packed_size(m) != 0)
        err = kd_reject_say(rej, KD_ERR_BAD_PARAMS,
                            "the join params of seat %s set more than its own commitment: the terms are the creation's",
                            seat_name);
    for (size_t i = 0; i < n; i++) {
        const ProtobufCFieldDescriptor *f = protobuf_c_message_descriptor_get_field_by_name(desc, names[i]);
        *(ProtobufCBinaryData *)((char *)m + f->offset) = kept[i];
    }
    protobuf_c_message_free_unpacked(m, NULL);
    return err;
}
