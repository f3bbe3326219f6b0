/*
 * blockscript.c — parsing and writing block scripts (JSON Lines of chain
 * events; the grammar is in blockscript.h).
 *
 * Each line is decoded with jansson (duplicate keys rejected) and then walked
 * by small validators, one per object kind, that check every field's presence,
 * type and range and refuse fields they do not know. Error messages carry a
 * location: "line 3: txs[1]: unknown field \"rw\" in move". The parser keeps
 * the failing line out of its output (an op is filled in place and freed on
 * error), so a caller sees either the whole op or nothing of it.
 */
#include "tools/script/blockscript.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* All-hex strings at least this long are taken for raw hashes / pubkeys. */
#define HEXLIKE_MIN 32
#define JSON_INT_MAX ((uint64_t)INT64_MAX)

/* Where the parser is: for messages and key lookups. */
typedef struct {
    unsigned line;
    const char *keys_dir;
    char *why;
    size_t why_len;
    char where[48]; /* "txs[3]: " or "" */
} pctx;

static kd_err fail(pctx *c, kd_err err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static kd_err fail(pctx *c, kd_err err, const char *fmt, ...)
{
    if (!c->why || c->why_len == 0)
        return err;
    int n = snprintf(c->why, c->why_len, "line %u: %s", c->line, c->where);
    if (n >= 0 && (size_t)n < c->why_len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->why + n, c->why_len - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return err;
}

static void wipe(void *p, size_t n) { explicit_bzero(p, n); }

static int all_hex(const char *s)
{
    for (; *s; s++) {
        char ch = *s;
        if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F')))
            return 0;
    }
    return 1;
}

/* Refuses any key of `obj` not in the NULL-terminated `allowed`. */
static kd_err check_fields(pctx *c, json_t *obj, const char *what, const char *const *allowed)
{
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v)
    {
        const char *const *a = allowed;
        while (*a && strcmp(*a, key) != 0)
            a++;
        if (!*a)
            return fail(c, KD_ERR_PARSE, "unknown field \"%s\" in %s", key, what);
    }
    return KD_OK;
}

/* A JSON string without embedded NULs. */
static kd_err get_string(pctx *c, json_t *v, const char *name, const char **out)
{
    if (!json_is_string(v))
        return fail(c, KD_ERR_PARSE, "%s must be a string", name);
    if (strlen(json_string_value(v)) != json_string_length(v))
        return fail(c, KD_ERR_PARSE, "%s must not contain NUL characters", name);
    *out = json_string_value(v);
    return KD_OK;
}

/* Field `key` of `obj` as an integer in [min, max]. `has` NULL = required. */
static kd_err get_uint(pctx *c, json_t *obj, const char *key, const char *what, uint64_t min, uint64_t max, int *has,
                       uint64_t *val)
{
    json_t *v = json_object_get(obj, key);
    if (!v) {
        if (!has)
            return fail(c, KD_ERR_PARSE, "missing field \"%s\" in %s", key, what);
        *has = 0;
        return KD_OK;
    }
    json_int_t i = json_is_integer(v) ? json_integer_value(v) : -1;
    if (i < 0 || (uint64_t)i < min || (uint64_t)i > max) {
        if (max == JSON_INT_MAX)
            return fail(c, KD_ERR_PARSE, "\"%s\" in %s must be a non-negative integer", key, what);
        return fail(c, KD_ERR_PARSE, "\"%s\" in %s must be an integer %llu..%llu", key, what, (unsigned long long)min,
                    (unsigned long long)max);
    }
    if (has)
        *has = 1;
    *val = (uint64_t)i;
    return KD_OK;
}

/* H: 64 hex digits, or a name standing for its SHA-256. */
static kd_err parse_hash(pctx *c, json_t *v, const char *name, uint8_t out[KD_HASH_LEN])
{
    if (!json_is_string(v))
        return fail(c, KD_ERR_PARSE, "%s must be a string (64 hex digits or a name)", name);
    const char *s;
    kd_err err = get_string(c, v, name, &s);
    if (err)
        return err;
    size_t n = strlen(s);
    if (n == 0)
        return fail(c, KD_ERR_PARSE, "%s must not be empty", name);
    if (all_hex(s) && n >= HEXLIKE_MIN) {
        if (n != 2 * KD_HASH_LEN)
            return fail(c, KD_ERR_PARSE, "%s has %zu hex digits; a raw hash has 64", name, n);
        if (kd_hex_decode(s, out, KD_HASH_LEN) != 0)
            return fail(c, KD_ERR_INTERNAL, "%s: hex decoding failed", name);
        return KD_OK;
    }
    kd_sha256(s, n, out);
    return KD_OK;
}

/* Resolves a key reference; the key error passes through with its reason. */
static kd_err resolve_key(pctx *c, const char *ref, const char *name, kd_key *key)
{
    if (strncmp(ref, "test:", 5) != 0 && !c->keys_dir)
        return fail(c, KD_ERR_NOT_FOUND, "%s: key \"%s\" needs a key directory, and none was given", name, ref);
    char kwhy[320] = "";
    kd_err err = kd_key_resolve(c->keys_dir, ref, key, kwhy, sizeof kwhy);
    if (err)
        return fail(c, err, "%s: %s", name, kwhy[0] ? kwhy : kd_err_str(err));
    return KD_OK;
}

/* P: 66 hex digits or a key reference, to a public key. */
static kd_err parse_participant(pctx *c, json_t *v, size_t idx, kd_pubkey *out)
{
    char name[48];
    snprintf(name, sizeof name, "participants[%zu]", idx);
    const char *s;
    kd_err err = get_string(c, v, name, &s);
    if (err)
        return err;
    size_t n = strlen(s);
    if (n == 0)
        return fail(c, KD_ERR_PARSE, "%s must not be empty", name);
    if (all_hex(s) && n >= HEXLIKE_MIN) {
        if (n != 2 * KD_PUBKEY_LEN)
            return fail(c, KD_ERR_PARSE, "%s has %zu hex digits; a compressed pubkey has 66", name, n);
        if (kd_hex_decode(s, out->bytes, KD_PUBKEY_LEN) != 0)
            return fail(c, KD_ERR_INTERNAL, "%s: hex decoding failed", name);
        return KD_OK;
    }
    kd_key key;
    err = resolve_key(c, s, name, &key);
    if (!err)
        *out = key.pub;
    wipe(&key, sizeof key);
    return err;
}

static kd_err parse_new_episode(pctx *c, json_t *o, kd_script_tx *tx)
{
    static const char *const fields[] = {"id", "type", "participants", "cap", NULL};
    if (!json_is_object(o))
        return fail(c, KD_ERR_PARSE, "new_episode must be an object");
    kd_err err = check_fields(c, o, "new_episode", fields);
    if (err)
        return err;
    uint64_t u;
    if ((err = get_uint(c, o, "id", "new_episode", 1, UINT32_MAX, NULL, &u)))
        return err;
    tx->episode_id = (uint32_t)u;

    json_t *v = json_object_get(o, "type");
    const char *type;
    if (!v)
        return fail(c, KD_ERR_PARSE, "missing field \"type\" in new_episode");
    if ((err = get_string(c, v, "type", &type)))
        return err;
    if (strlen(type) >= KD_TYPE_NAME_MAX)
        return fail(c, KD_ERR_PARSE, "type is longer than %d bytes", KD_TYPE_NAME_MAX - 1);
    memcpy(tx->type, type, strlen(type) + 1);

    json_t *parts = json_object_get(o, "participants");
    if (!parts)
        return fail(c, KD_ERR_PARSE, "missing field \"participants\" in new_episode");
    if (!json_is_array(parts))
        return fail(c, KD_ERR_PARSE, "participants must be an array");
    if (json_array_size(parts) > KD_MAX_PARTICIPANTS)
        return fail(c, KD_ERR_PARSE, "participants has %zu entries; at most %d", json_array_size(parts),
                    KD_MAX_PARTICIPANTS);
    for (size_t i = 0; i < json_array_size(parts); i++) {
        if ((err = parse_participant(c, json_array_get(parts, i), i, &tx->participants.keys[i])))
            return err;
        tx->participants.count = i + 1;
    }

    v = json_object_get(o, "cap");
    if (v && !json_is_null(v)) {
        if ((err = get_uint(c, o, "cap", "new_episode", 0, 255, &tx->has_cap, &u)))
            return err;
        tx->cap = (uint32_t)u;
    }
    return KD_OK;
}

static kd_err parse_player(pctx *c, json_t *v, uint8_t *out)
{
    if (!v)
        return fail(c, KD_ERR_PARSE, "missing field \"player\" in move");
    const char *s = json_is_string(v) ? json_string_value(v) : NULL;
    json_int_t i = json_is_integer(v) ? json_integer_value(v) : -1;
    if ((s && strcmp(s, "X") == 0) || i == 0)
        *out = 0;
    else if ((s && strcmp(s, "O") == 0) || i == 1)
        *out = 1;
    else if (s)
        return fail(c, KD_ERR_PARSE, "player must be \"X\" or \"O\" (or 0/1), got \"%s\"", s);
    else
        return fail(c, KD_ERR_PARSE, "player must be \"X\" or \"O\" (or 0/1)");
    return KD_OK;
}

static kd_err parse_signer(pctx *c, json_t *v, kd_script_tx *tx)
{
    const char *s;
    kd_err err = get_string(c, v, "signer", &s);
    if (err)
        return err;
    size_t n = strlen(s);
    if (n == 0)
        return fail(c, KD_ERR_PARSE, "signer must not be empty");
    if (all_hex(s) && n >= HEXLIKE_MIN)
        return fail(c, KD_ERR_PARSE, "signer: a raw pubkey cannot sign; use a key name or \"test:NAME\"");
    if (n >= sizeof tx->signer_ref)
        return fail(c, KD_ERR_PARSE, "signer is longer than %zu bytes", sizeof tx->signer_ref - 1);
    if ((err = resolve_key(c, s, "signer", &tx->signer)))
        return err;
    memcpy(tx->signer_ref, s, n + 1);
    tx->has_signer = 1;
    return KD_OK;
}

static kd_err parse_move(pctx *c, json_t *o, kd_script_tx *tx)
{
    static const char *const fields[] = {"episode", "row", "col", "player", "signer", "counter", NULL};
    if (!json_is_object(o))
        return fail(c, KD_ERR_PARSE, "move must be an object");
    kd_err err = check_fields(c, o, "move", fields);
    if (err)
        return err;
    uint64_t u;
    if ((err = get_uint(c, o, "episode", "move", 1, UINT32_MAX, NULL, &u)))
        return err;
    tx->episode_id = (uint32_t)u;
    if ((err = get_uint(c, o, "row", "move", 0, 255, NULL, &u)))
        return err;
    tx->row = (uint8_t)u;
    if ((err = get_uint(c, o, "col", "move", 0, 255, NULL, &u)))
        return err;
    tx->col = (uint8_t)u;
    if ((err = parse_player(c, json_object_get(o, "player"), &tx->player)))
        return err;
    json_t *v = json_object_get(o, "signer");
    if (v && (err = parse_signer(c, v, tx)))
        return err;
    return get_uint(c, o, "counter", "move", 0, JSON_INT_MAX, &tx->has_counter, &tx->counter);
}

static kd_err parse_raw(pctx *c, json_t *v, kd_script_tx *tx)
{
    const char *s;
    kd_err err = get_string(c, v, "payload_hex", &s);
    if (err)
        return err;
    size_t n = strlen(s);
    if (n % 2 != 0 || !all_hex(s))
        return fail(c, KD_ERR_PARSE, "payload_hex must be an even number of hex digits");
    if (n == 0)
        return KD_OK;
    tx->raw = malloc(n / 2);
    if (!tx->raw)
        return fail(c, KD_ERR_NOMEM, "out of memory");
    tx->raw_len = n / 2;
    if (kd_hex_decode(s, tx->raw, n / 2) != 0)
        return fail(c, KD_ERR_INTERNAL, "payload_hex: hex decoding failed");
    return KD_OK;
}

static kd_err parse_tx(pctx *c, json_t *t, size_t idx, const uint8_t block_hash[KD_HASH_LEN], kd_script_tx *tx)
{
    static const char *const fields[] = {"new_episode", "move", "payload_hex", "tx_id", NULL};
    snprintf(c->where, sizeof c->where, "txs[%zu]: ", idx);
    if (!json_is_object(t))
        return fail(c, KD_ERR_PARSE, "a tx must be an object");
    kd_err err = check_fields(c, t, "tx", fields);
    if (err)
        return err;
    json_t *ne = json_object_get(t, "new_episode"), *mv = json_object_get(t, "move"),
           *raw = json_object_get(t, "payload_hex");
    int kinds = !!ne + !!mv + !!raw;
    if (kinds != 1)
        return fail(c, KD_ERR_PARSE, "a tx has exactly one of new_episode, move, payload_hex (got %d)", kinds);
    if (ne) {
        tx->kind = KD_SCRIPT_TX_NEW_EPISODE;
        err = parse_new_episode(c, ne, tx);
    } else if (mv) {
        tx->kind = KD_SCRIPT_TX_MOVE;
        err = parse_move(c, mv, tx);
    } else {
        tx->kind = KD_SCRIPT_TX_RAW;
        err = parse_raw(c, raw, tx);
    }
    if (err)
        return err;
    json_t *id = json_object_get(t, "tx_id");
    if (id)
        return parse_hash(c, id, "tx_id", tx->tx_id);
    uint8_t seed[KD_HASH_LEN + 4];
    memcpy(seed, block_hash, KD_HASH_LEN);
    kd_put_u32be(seed + KD_HASH_LEN, (uint32_t)idx);
    kd_sha256(seed, sizeof seed, tx->tx_id);
    return KD_OK;
}

static kd_err parse_accept(pctx *c, json_t *a, uint64_t prev_daa, kd_script_op *op)
{
    static const char *const fields[] = {"hash", "daa", "time", "txs", NULL};
    if (!json_is_object(a))
        return fail(c, KD_ERR_PARSE, "accept must be an object");
    kd_err err = check_fields(c, a, "accept", fields);
    if (err)
        return err;
    json_t *h = json_object_get(a, "hash");
    if (!h)
        return fail(c, KD_ERR_PARSE, "missing field \"hash\" in accept");
    if ((err = parse_hash(c, h, "hash", op->hash)))
        return err;
    int has = 0;
    if ((err = get_uint(c, a, "daa", "accept", 0, JSON_INT_MAX, &has, &op->daa)))
        return err;
    if (!has) {
        if (prev_daa >= JSON_INT_MAX)
            return fail(c, KD_ERR_PARSE, "the default daa (previous + 1) is too large; give \"daa\"");
        op->daa = prev_daa + 1;
    }
    if ((err = get_uint(c, a, "time", "accept", 0, JSON_INT_MAX, &has, &op->time_ms)))
        return err;
    if (!has) {
        if (op->daa > JSON_INT_MAX / 100)
            return fail(c, KD_ERR_PARSE, "the default time (daa * 100) is too large; give \"time\"");
        op->time_ms = op->daa * 100;
    }

    json_t *txs = json_object_get(a, "txs");
    if (!txs)
        return KD_OK;
    if (!json_is_array(txs))
        return fail(c, KD_ERR_PARSE, "txs must be an array");
    size_t n = json_array_size(txs);
    if (n > KD_SCRIPT_MAX_TXS)
        return fail(c, KD_ERR_PARSE, "accept has %zu txs; at most %d", n, KD_SCRIPT_MAX_TXS);
    if (n == 0)
        return KD_OK;
    op->txs = calloc(n, sizeof *op->txs);
    if (!op->txs)
        return fail(c, KD_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        op->tx_count = i + 1; /* counted before filling, so fini frees a partial tx */
        if ((err = parse_tx(c, json_array_get(txs, i), i, op->hash, &op->txs[i])))
            return err;
    }
    c->where[0] = '\0';
    return KD_OK;
}

static int is_blank_line(const char *line, size_t len)
{
    size_t i = 0;
    while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r' || line[i] == '\n' || line[i] == '\v' ||
                       line[i] == '\f'))
        i++;
    return i == len || line[i] == '#';
}

kd_err kd_script_parse_line(const char *line, size_t len, unsigned line_no, uint64_t prev_daa, const char *keys_dir,
                            kd_script_op *op, int *is_blank, char *why, size_t why_len)
{
    pctx c = {.line = line_no, .keys_dir = keys_dir, .why = why, .why_len = why_len};
    json_t *root = NULL;
    kd_err err = KD_OK;
    memset(op, 0, sizeof *op);
    *is_blank = 0;
    if (is_blank_line(line, len)) {
        *is_blank = 1;
        return KD_OK;
    }
    op->line = line_no;
    if (len > KD_SCRIPT_MAX_LINE) {
        err = fail(&c, KD_ERR_PARSE, "the line is longer than %zu bytes", KD_SCRIPT_MAX_LINE);
        goto fail;
    }
    json_error_t jerr;
    root = json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root) {
        if (json_error_code(&jerr) == json_error_out_of_memory)
            err = fail(&c, KD_ERR_NOMEM, "out of memory");
        else
            err = fail(&c, KD_ERR_PARSE, "bad JSON at column %d: %s", jerr.column, jerr.text);
        goto fail;
    }
    if (!json_is_object(root)) {
        err = fail(&c, KD_ERR_PARSE, "an event must be a JSON object");
        goto fail;
    }
    if (json_object_size(root) != 1) {
        err = fail(&c, KD_ERR_PARSE, "an event has exactly one key, \"accept\" or \"revert\" (got %zu)",
                   json_object_size(root));
        goto fail;
    }
    const char *key = json_object_iter_key(json_object_iter(root));
    json_t *body = json_object_iter_value(json_object_iter(root));
    if (strcmp(key, "accept") == 0) {
        op->kind = KD_SCRIPT_ACCEPT;
        err = parse_accept(&c, body, prev_daa, op);
    } else if (strcmp(key, "revert") == 0) {
        op->kind = KD_SCRIPT_REVERT;
        err = parse_hash(&c, body, "revert", op->hash);
    } else {
        err = fail(&c, KD_ERR_PARSE, "unknown event \"%s\"; expected \"accept\" or \"revert\"", key);
    }
    if (err)
        goto fail;
    json_decref(root);
    return KD_OK;

fail:
    json_decref(root);
    kd_script_op_fini(op);
    return err;
}

void kd_script_op_fini(kd_script_op *op)
{
    if (!op)
        return;
    for (size_t i = 0; i < op->tx_count; i++) {
        free(op->txs[i].raw);
        wipe(&op->txs[i].signer, sizeof op->txs[i].signer);
    }
    free(op->txs);
    memset(op, 0, sizeof *op);
}

void kd_script_init(kd_script *s) { memset(s, 0, sizeof *s); }

void kd_script_fini(kd_script *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->count; i++)
        kd_script_op_fini(&s->ops[i]);
    free(s->ops);
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
        kd_err err = kd_script_parse_line(start, n, line_no, prev_daa, keys_dir, &op, &blank, why, why_len);
        if (err)
            return err;
        if (blank)
            continue;
        if (op.kind == KD_SCRIPT_ACCEPT)
            prev_daa = op.daa;
        if ((err = script_push(out, &op)) != KD_OK) {
            kd_script_op_fini(&op);
            pctx c = {.line = line_no, .why = why, .why_len = why_len};
            return fail(&c, err, "out of memory");
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

/* ------------------------------------------------------------------ writing */

static json_t *hex_string(const uint8_t *data, size_t len)
{
    char hex[2 * KD_PUBKEY_LEN + 1];
    if (2 * len + 1 > sizeof hex)
        return NULL;
    kd_hex_encode(data, len, hex);
    return json_string(hex);
}

static json_t *raw_hex_string(const uint8_t *data, size_t len)
{
    char *hex = malloc(2 * len + 1);
    if (!hex)
        return NULL;
    kd_hex_encode(data, len, hex);
    json_t *s = json_string(hex);
    free(hex);
    return s;
}

/* Sets obj[key] = v, taking v even on failure; -1 when v is NULL or the set
 * fails. Lets a chain of puts share one cleanup path. */
static int put(json_t *obj, const char *key, json_t *v) { return json_object_set_new(obj, key, v); }

/* Rejects what no script line could express, before building anything. */
static kd_err tx_writable(const kd_script_tx *tx)
{
    switch (tx->kind) {
    case KD_SCRIPT_TX_NEW_EPISODE:
        return tx->participants.count <= KD_MAX_PARTICIPANTS && memchr(tx->type, '\0', sizeof tx->type) &&
                       (!tx->has_cap || tx->cap <= 255)
                   ? KD_OK
                   : KD_ERR_INVALID_ARG;
    case KD_SCRIPT_TX_MOVE:
        return tx->player <= 1 && (!tx->has_signer || tx->signer_ref[0]) &&
                       (!tx->has_signer || memchr(tx->signer_ref, '\0', sizeof tx->signer_ref)) &&
                       (!tx->has_counter || tx->counter <= JSON_INT_MAX)
                   ? KD_OK
                   : KD_ERR_INVALID_ARG;
    case KD_SCRIPT_TX_RAW:
        return tx->raw_len == 0 || tx->raw ? KD_OK : KD_ERR_INVALID_ARG;
    }
    return KD_ERR_INVALID_ARG;
}

/* Appends one tx object to the `txs` array. */
static kd_err write_tx(const kd_script_tx *tx, json_t *txs)
{
    kd_err err = tx_writable(tx);
    if (err)
        return err;
    err = KD_ERR_NOMEM;
    json_t *t = json_object(), *body = NULL;
    if (!t || json_array_append(txs, t)) /* txs takes its own reference */
        goto fail;
    if (tx->kind == KD_SCRIPT_TX_NEW_EPISODE) {
        body = json_object();
        if (put(t, "new_episode", body) || put(body, "id", json_integer(tx->episode_id)))
            goto fail;
        json_t *type = json_string(tx->type);
        if (!type) {
            err = KD_ERR_INVALID_ARG; /* not UTF-8 */
            goto fail;
        }
        json_t *parts = json_array();
        if (put(body, "type", type) || put(body, "participants", parts))
            goto fail; /* a failed put already released parts */
        for (size_t i = 0; i < tx->participants.count; i++)
            if (json_array_append_new(parts, hex_string(tx->participants.keys[i].bytes, KD_PUBKEY_LEN)))
                goto fail;
        if (tx->has_cap && put(body, "cap", json_integer(tx->cap)))
            goto fail;
    } else if (tx->kind == KD_SCRIPT_TX_MOVE) {
        body = json_object();
        if (put(t, "move", body) || put(body, "episode", json_integer(tx->episode_id)) ||
            put(body, "row", json_integer(tx->row)) || put(body, "col", json_integer(tx->col)) ||
            put(body, "player", json_string(tx->player ? "O" : "X")))
            goto fail;
        if (tx->has_signer) {
            json_t *ref = json_string(tx->signer_ref);
            if (!ref) {
                err = KD_ERR_INVALID_ARG; /* not UTF-8 */
                goto fail;
            }
            if (put(body, "signer", ref))
                goto fail;
        }
        if (tx->has_counter && put(body, "counter", json_integer((json_int_t)tx->counter)))
            goto fail;
    } else {
        if (put(t, "payload_hex", raw_hex_string(tx->raw, tx->raw_len)))
            goto fail;
    }
    if (put(t, "tx_id", hex_string(tx->tx_id, KD_HASH_LEN)))
        goto fail;
    err = KD_OK;

fail:
    json_decref(t);
    return err;
}

kd_err kd_script_op_write(const kd_script_op *op, kd_buf *out)
{
    json_t *root = NULL;
    char *text = NULL;
    kd_err err = KD_ERR_INVALID_ARG;
    if (op->kind == KD_SCRIPT_ACCEPT && (op->daa > JSON_INT_MAX || op->time_ms > JSON_INT_MAX ||
                                         op->tx_count > KD_SCRIPT_MAX_TXS || (op->tx_count && !op->txs)))
        goto fail;
    if (op->kind != KD_SCRIPT_ACCEPT && op->kind != KD_SCRIPT_REVERT)
        goto fail;
    err = KD_ERR_NOMEM;
    root = json_object();
    if (!root)
        goto fail;
    if (op->kind == KD_SCRIPT_REVERT) {
        if (put(root, "revert", hex_string(op->hash, KD_HASH_LEN)))
            goto fail;
    } else {
        /* each put takes its value even when it fails, so the borrowed
         * body and txs need no cleanup of their own */
        json_t *body = json_object();
        if (put(root, "accept", body) || put(body, "hash", hex_string(op->hash, KD_HASH_LEN)) ||
            put(body, "daa", json_integer((json_int_t)op->daa)) ||
            put(body, "time", json_integer((json_int_t)op->time_ms)))
            goto fail;
        json_t *txs = json_array();
        if (put(body, "txs", txs))
            goto fail;
        for (size_t i = 0; i < op->tx_count; i++)
            if ((err = write_tx(&op->txs[i], txs)) != KD_OK)
                goto fail;
        err = KD_ERR_NOMEM;
    }
    text = json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER);
    if (!text)
        goto fail;
    size_t n = strlen(text);
    if ((err = kd_buf_reserve(out, n + 1)) != KD_OK)
        goto fail;
    /* both appends fit in the reserved room: `out` is untouched on every error */
    if ((err = kd_buf_append(out, text, n)) != KD_OK || (err = kd_buf_append(out, "\n", 1)) != KD_OK)
        goto fail;

fail:
    free(text);
    json_decref(root);
    return err;
}
