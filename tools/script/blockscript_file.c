/*
 * blockscript_file.c — whole block scripts: the script in the caller's
 * storage, parsing a text or a file line by line (blockscript.c parses one
 * line), with the episodes created so far for the generic commands after
 * them (blockscript.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/script/blockscript.h"
#include "tools/script/blockscript_int.h"

void kd_script_init(kd_script *s) { memset(s, 0, sizeof *s); }

void kd_script_init_types(kd_script *s, const kd_type_table *types)
{
    kd_script_init(s);
    s->types = types;
}

void kd_script_fini(kd_script *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->count; i++)
        kd_script_op_fini(&s->ops[i]);
    free(s->ops);
    free(s->episodes);
    memset(s, 0, sizeof *s);
}

static kd_err script_push(kd_script *s, kd_script_op *op)
{
    if (s->count == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;
        kd_script_op *p = realloc(s->ops, cap * sizeof *p);
        if (!p)
            return KD_ERR_NOMEM;
        s->ops = p;
        s->cap = cap;
    }
    s->ops[s->count++] = *op; /* ownership moves into the script */
    memset(op, 0, sizeof *op);
    return KD_OK;
}

kd_err kd_script_parse(const char *text, size_t len, const char *keys_dir, kd_script *out, char *why, size_t why_len)
{
    uint64_t prev_daa = 0;
    for (size_t i = out->count; i > 0; i--) {
        if (out->ops[i - 1].kind == KD_SCRIPT_ACCEPT) {
            prev_daa = out->ops[i - 1].daa;
            break;
        }
    }
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) {
        text += 3;
        len -= 3;
    }
    kd_type_table builtin;
    const kd_type_table *types = out->types;
    if (!types) {
        kd_type_table_init(&builtin);
        types = &builtin;
    }
    unsigned line_no = 0;
    size_t pos = 0;
    while (pos < len) {
        const char *start = text + pos;
        const char *nl = memchr(start, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - start) : len - pos;
        pos += n + (nl ? 1 : 0);
        line_no++;
        kd_script_op op;
        int blank;
        kd_err err =
            kd_script_parse_line_in(start, n, line_no, prev_daa, keys_dir, types, out, &op, &blank, why, why_len);
        if (err)
            return err;
        if (blank)
            continue;
        if (op.kind == KD_SCRIPT_ACCEPT)
            prev_daa = op.daa;
        if ((err = script_push(out, &op)) != KD_OK) {
            kd_script_op_fini(&op);
            if (why && why_len)
                snprintf(why, why_len, "line %u: out of memory", line_no);
            return err;
        }
    }
    return KD_OK;
}

kd_err kd_script_load(const char *path, const char *keys_dir, kd_script *out, char *why, size_t why_len)
{
    int is_stdin = strcmp(path, "-") == 0;
    const char *name = is_stdin ? "standard input" : path;
    kd_buf buf;
    kd_buf_init(&buf);
    kd_err err = KD_OK;
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    if (!f) {
        err = errno == ENOENT ? KD_ERR_NOT_FOUND : KD_ERR_IO;
        if (why && why_len)
            snprintf(why, why_len, "cannot open %s: %s", name, strerror(errno));
        goto fail;
    }
    for (;;) {
        if ((err = kd_buf_reserve(&buf, 65536)) != KD_OK) {
            if (why && why_len)
                snprintf(why, why_len, "%s: out of memory", name);
            goto fail;
        }
        size_t n = fread(buf.data + buf.len, 1, buf.cap - buf.len, f);
        buf.len += n;
        if (n == 0)
            break;
    }
    if (ferror(f)) {
        err = KD_ERR_IO;
        if (why && why_len)
            snprintf(why, why_len, "cannot read %s: %s", name, strerror(errno));
        goto fail;
    }
    err = kd_script_parse((const char *)buf.data, buf.len, keys_dir, out, why, why_len);

fail:
    if (f && !is_stdin)
        fclose(f);
    kd_buf_fini(&buf);
    return err;
}
