/* bytes.c — growable buffer and hex conversion. */
#include "engine/bytes.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kd_buf_init(kd_buf *buf) { memset(buf, 0, sizeof *buf); }

void kd_buf_fini(kd_buf *buf)
{
    if (!buf)
        return;
    free(buf->data);
    memset(buf, 0, sizeof *buf);
}

kd_err kd_buf_reserve(kd_buf *buf, size_t extra)
{
    if (buf->len + extra <= buf->cap)
        return KD_OK;
    size_t cap = buf->cap ? buf->cap : 64;
    while (cap < buf->len + extra)
        cap *= 2;
    uint8_t *p = realloc(buf->data, cap);
    if (!p)
        return KD_ERR_NOMEM;
    buf->data = p;
    buf->cap = cap;
    return KD_OK;
}

kd_err kd_buf_append(kd_buf *buf, const void *data, size_t len)
{
    kd_err err = kd_buf_reserve(buf, len);
    if (err)
        return err;
    if (len)
        memcpy(buf->data + buf->len, data, len);
    buf->len += len;
    return KD_OK;
}

kd_err kd_buf_appendf(kd_buf *buf, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return KD_ERR_INTERNAL;
    kd_err err = kd_buf_reserve(buf, (size_t)n + 1);
    if (err)
        return err;
    va_start(ap, fmt);
    vsnprintf((char *)buf->data + buf->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    buf->len += (size_t)n;
    return KD_OK;
}

void kd_hex_encode(const uint8_t *data, size_t len, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < len; i++) {
        out[2 * i] = digits[data[i] >> 4];
        out[2 * i + 1] = digits[data[i] & 15];
    }
    out[2 * len] = '\0';
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int kd_hex_decode(const char *hex, uint8_t *out, size_t len)
{
    if (strlen(hex) != 2 * len)
        return -1;
    for (size_t i = 0; i < len; i++) {
        int hi = hex_value(hex[2 * i]), lo = hex_value(hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return 0;
}
