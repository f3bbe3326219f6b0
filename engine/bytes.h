/*
 * bytes.h — small byte helpers: a growable buffer, hex, big-endian integers.
 */
#ifndef KD_ENGINE_BYTES_H
#define KD_ENGINE_BYTES_H

#include <stddef.h>
#include <stdint.h>

#include "engine/err.h"

/* A growable byte buffer in the caller's storage: kd_buf_init / kd_buf_fini. */
typedef struct {
    uint8_t *data;
    size_t len;
    size_t cap;
} kd_buf;

void kd_buf_init(kd_buf *buf);
void kd_buf_fini(kd_buf *buf);
/* Ensures room for `extra` more bytes. KD_ERR_NOMEM on failure. */
kd_err kd_buf_reserve(kd_buf *buf, size_t extra) KD_WARN_UNUSED;
kd_err kd_buf_append(kd_buf *buf, const void *data, size_t len) KD_WARN_UNUSED;
/* Appends printf-formatted text (no NUL is counted in len, though one is
 * written after it). Errors: KD_ERR_NOMEM, KD_ERR_INTERNAL (the format
 * could not be rendered). */
kd_err kd_buf_appendf(kd_buf *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3))) KD_WARN_UNUSED;

/* Writes 2*len lowercase hex digits and a NUL into out (2*len+1 bytes). */
void kd_hex_encode(const uint8_t *data, size_t len, char *out);
/* Decodes exactly `len` bytes from 2*len hex digits (any case). Returns 0, or
 * -1 when `hex` is not exactly 2*len hex digits. */
int kd_hex_decode(const char *hex, uint8_t *out, size_t len);

static inline void kd_put_u32be(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static inline void kd_put_u64be(uint8_t *p, uint64_t v)
{
    kd_put_u32be(p, (uint32_t)(v >> 32));
    kd_put_u32be(p + 4, (uint32_t)v);
}

static inline uint32_t kd_get_u32be(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static inline uint64_t kd_get_u64be(const uint8_t *p)
{
    return ((uint64_t)kd_get_u32be(p) << 32) | kd_get_u32be(p + 4);
}

#endif
