/*
 * wire_alloc.h — the protobuf-c helpers every type's wire file uses: the
 * packing of a message into a kd_buf (kd_pb_append), and the allocator it
 * unpacks with: plain malloc/free that remembers whether an allocation failed, so
 * a decoder can tell "out of memory" (KD_ERR_NOMEM) from "these bytes are
 * not the message" (protobuf-c returns NULL for both).
 *
 *   kd_pb_alloc track;
 *   kd_pb_alloc_init(&track);
 *   msg = kdapp__x__unpack(&track.base, len, data);
 *   if (!msg)
 *       return kd_pb_unpack_refused(&track, rej, "command", KD_ERR_BAD_COMMAND,
 *                                   "the command (%zu bytes) is not a valid X message", len);
 *   ...
 *   kdapp__x__free_unpacked(msg, &track.base);
 *
 * Caller's storage, one per unpack; reentrant.
 */
#ifndef KD_EPISODES_WIRE_ALLOC_H
#define KD_EPISODES_WIRE_ALLOC_H

#include <protobuf-c/protobuf-c.h>

#include "engine/bytes.h"
#include "engine/episode.h"
#include "engine/err.h"

/* Appends the packed bytes of `msg` (any message: &m.base) to `out`: how
 * every type's wire and view files write a message. Errors: KD_ERR_NOMEM
 * (nothing appended). */
kd_err kd_pb_append(const ProtobufCMessage *msg, kd_buf *out) KD_WARN_UNUSED;

typedef struct {
    ProtobufCAllocator base; /* hand &base to protobuf-c */
    int failed;              /* an allocation failed since init */
} kd_pb_alloc;

void kd_pb_alloc_init(kd_pb_alloc *alloc);

/* Says in `rej` (may be NULL) why an unpack with `track` returned NULL, and
 * returns the error: KD_ERR_NOMEM ("out of memory while decoding the
 * PART") when an allocation failed, else `bad` with the sentence `fmt`
 * (the bytes are not the message). */
kd_err kd_pb_unpack_refused(const kd_pb_alloc *track, kd_reject *rej, const char *part, kd_err bad, const char *fmt,
                            ...) __attribute__((format(printf, 5, 6)));

/*
 * An arena on the caller's storage for unpacking a small message without
 * malloc (a hot path: a command decoded at every execute). Allocations
 * are carved from `storage` (aligned for any type); free does nothing, so
 * free_unpacked need not be called: the message dies with the storage.
 * When the storage is too small, `failed` is set and protobuf-c's unpack
 * returns NULL (tell it from malformed bytes by `failed`).
 *
 *   _Alignas(max_align_t) unsigned char storage[256];
 *   kd_pb_arena arena;
 *   kd_pb_arena_init(&arena, storage, sizeof storage);
 *   msg = kdapp__x__unpack(&arena.base, len, data);
 */
typedef struct {
    ProtobufCAllocator base; /* hand &base to protobuf-c */
    unsigned char *storage;
    size_t size, used;
    int failed; /* an allocation did not fit since init */
} kd_pb_arena;

void kd_pb_arena_init(kd_pb_arena *arena, void *storage, size_t size);

/* A stranger's part of the params at an open seat (kd_episode_ops.
 * join_params): `data` must be a message of `desc` whose bytes fields
 * `names` (NULL-ended: the seat's commitment) are each 32 bytes and which
 * sets nothing else. Errors: KD_ERR_BAD_PARAMS (a sentence in `rej`
 * naming `seat_name`), KD_ERR_NOMEM. */
kd_err kd_pb_seat_fields_only(const ProtobufCMessageDescriptor *desc, const char *const *names, const char *seat_name,
                              const uint8_t *data, size_t len, kd_reject *rej) KD_WARN_UNUSED;

#endif
