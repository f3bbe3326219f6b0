/*
 * kaspa_tx_json.c — the node's JSON of a transaction (RpcTransaction),
 * both ways (kaspa_tx.h). The renderer writes text itself rather than
 * through jansson, whose integers are signed: a sequence of 2^64 - 1 must
 * come out as written.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/bytes.h"
#include "tools/kaspa/kaspa_tx.h"
#include "tools/listen/kaspa_rpc.h"

/* Appends `len` bytes as a quoted hex string. */
static kd_err put_hex(kd_buf *b, const uint8_t *data, size_t len)
{
    kd_err err = kd_buf_reserve(b, 2 * len + 3);
    if (err)
        return err;
    b->data[b->len++] = '"';
    kd_hex_encode(data, len, (char *)b->data + b->len);
    b->len += 2 * len;
    b->data[b->len++] = '"';
    b->data[b->len] = 0;
    return KD_OK;
}

static kd_err put_spk(kd_buf *b, const kd_kspk *spk)
{
    uint8_t *all = malloc(spk->script_len + 2);
    if (!all)
        return KD_ERR_NOMEM;
    all[0] = (uint8_t)(spk->version >> 8);
    all[1] = (uint8_t)spk->version;
    if (spk->script_len)
        memcpy(all + 2, spk->script, spk->script_len);
    kd_err err = put_hex(b, all, spk->script_len + 2);
    free(all);
    return err;
}

kd_err kd_ktx_json_render(const kd_ktx *tx, char **out)
{
    kd_buf b;
    kd_buf_init(&b);
    kd_err err = kd_buf_appendf(&b, "{\"version\":%u,\"inputs\":[", (unsigned)tx->version);
    for (size_t i = 0; i < tx->n_inputs && !err; i++) {
        const kd_ktx_input *in = &tx->inputs[i];
        err = kd_buf_appendf(&b, "%s{\"previousOutpoint\":{\"transactionId\":", i ? "," : "");
        if (!err)
            err = put_hex(&b, in->prev.txid, KD_KASPA_HASH_LEN);
        if (!err)
            err = kd_buf_appendf(&b, ",\"index\":%" PRIu32 "},\"signatureScript\":", in->prev.index);
        if (!err)
            err = put_hex(&b, in->sig_script, in->sig_script_len);
        if (!err)
            err = kd_buf_appendf(&b, ",\"sequence\":%" PRIu64 ",\"sigOpCount\":%u,\"verboseData\":null}", in->sequence,
                                 (unsigned)in->sig_op_count);
    }
    if (!err)
        err = kd_buf_appendf(&b, "],\"outputs\":[");
    for (size_t i = 0; i < tx->n_outputs && !err; i++) {
        const kd_ktx_output *o = &tx->outputs[i];
        err = kd_buf_appendf(&b, "%s{\"value\":%" PRIu64 ",\"scriptPublicKey\":", i ? "," : "", o->value);
        if (!err)
            err = put_spk(&b, &o->spk);
        if (!err)
            err = kd_buf_appendf(&b, ",\"verboseData\":null}");
    }
    if (!err)
        err = kd_buf_appendf(&b, "],\"lockTime\":%" PRIu64 ",\"subnetworkId\":", tx->lock_time);
    if (!err)
        err = put_hex(&b, tx->subnetwork_id, KD_KASPA_SUBNET_LEN);
    if (!err)
        err = kd_buf_appendf(&b, ",\"gas\":%" PRIu64 ",\"payload\":", tx->gas);
    if (!err)
        err = put_hex(&b, tx->payload, tx->payload_len);
    if (!err)
        err = kd_buf_appendf(&b, ",\"storageMass\":%" PRIu64 ",\"mass\":%" PRIu64 ",\"verboseData\":null}", tx->mass,
                             tx->mass);
    if (err) {
        kd_buf_fini(&b);
        return err;
    }
    *out = (char *)b.data;
    return KD_OK;
}

/* ---- parsing ---- */

typedef struct {
    char *why;
    size_t why_len;
} perr;

/* A u64 through the one reader of tools/listen/kaspa_rpc.h (a JSON
 * integer or the tag kd_kaspa_json_load makes for one >= 2^63); a string
 * of decimal digits (what a reader limited to signed integers, or the
 * WASM SDK's bigints, hand over) is read as the tag it would have been.
 * NULL, or the reader's phrase saying why not. */
static const char *get_u64(const json_t *v, uint64_t *out)
{
    const char *s = json_string_value(v);
    size_t n = json_string_length(v);
    if (!s || !s[0] || n > 20 || strspn(s, "0123456789") != n)
        return kd_kaspa_u64_of(v, out); /* an integer, the tag, or what it says is wrong */
    char tag[22];
    tag[0] = 0;
    memcpy(tag + 1, s, n);
    json_t *t = json_stringn(tag, n + 1);
    if (!t)
        return "it could not be read (out of memory)";
    const char *problem = kd_kaspa_u64_of(t, out);
    json_decref(t);
    return problem;
}

static kd_err field_u64(perr *p, const json_t *obj, const char *where, const char *name, uint64_t max, uint64_t *out)
{
    const json_t *v = json_object_get(obj, name);
    if (!v)
        return kd_kaspa_why(KD_ERR_PARSE, p->why, p->why_len, "%s%s is missing", where, name);
    const char *problem = get_u64(v, out);
    if (problem || *out > max)
        return kd_kaspa_why(KD_ERR_PARSE, p->why, p->why_len, "%s%s is not an integer from 0 to %" PRIu64 " (%s)",
                            where, name, max, problem ? problem : "it is too large");
    return KD_OK;
}

/* Hex bytes of any even length into a new buffer (NULL for none). */
static kd_err field_hex(perr *p, const json_t *obj, const char *where, const char *name, uint8_t **out, size_t *len)
{
    const json_t *v = json_object_get(obj, name);
    *out = NULL;
    *len = 0;
    if (!json_is_string(v))
        return kd_kaspa_why(KD_ERR_PARSE, p->why, p->why_len, "%s%s is %s", where, name,
                            v ? "not a hex string" : "missing");
    const char *s = json_string_value(v);
    size_t n = strlen(s);
    if (n % 2)
        return kd_kaspa_why(KD_ERR_PARSE, p->why, p->why_len, "%s%s has an odd number of hex digits", where, name);
    if (!n)
        return KD_OK;
    *out = malloc(n / 2);
    if (!*out)
        return KD_ERR_NOMEM;
    if (kd_hex_decode(s, *out, n / 2)) {
        free(*out);
        *out = NULL;
        return kd_kaspa_why(KD_ERR_PARSE, p->why, p->why_len, "%s%s is not hex", where, name);
    }
    *len = n / 2;
    return KD_OK;
}

static kd_err field_fixed_hex(perr *p, const json_t *obj, const char *where, const char *name, uint8_t *out, size_t len)
{
    const json_t *v = json_object_get(obj, name);
    if (!json_is_string(v) || strlen(json_string_value(v)) != 2 * len || kd_hex_decode(json_string_value(v), out, len))
        return kd_kaspa_why(KD_ERR_PARSE, p->why, p->why_len, "%s%s is not %zu bytes of hex", where, name, len);
    return KD_OK;
}

static kd_err parse_input(perr *p, const json_t *in, size_t i, kd_ktx *tx)
{
    char where[48];
    snprintf(where, sizeof where, "inputs[%zu].", i);
    if (!json_is_object(in))
        return kd_kaspa_why(KD_ERR_PARSE, p->why, p->why_len, "inputs[%zu] is not an object", i);
    const json_t *op = json_object_get(in, "previousOutpoint");
    if (!json_is_object(op))
        return kd_kaspa_why(KD_ERR_PARSE, p->why, p->why_len, "%spreviousOutpoint is %s", where,
                            op ? "not an object" : "missing");
    char where_op[80];
    snprintf(where_op, sizeof where_op, "%spreviousOutpoint.", where);
    kd_ktx_outpoint prev;
    uint64_t index, sequence, sig_ops;
    kd_err err = field_fixed_hex(p, op, where_op, "transactionId", prev.txid, KD_KASPA_HASH_LEN);
    if (!err)
        err = field_u64(p, op, where_op, "index", UINT32_MAX, &index);
    if (!err)
        err = field_u64(p, in, where, "sequence", UINT64_MAX, &sequence);
    if (!err)
        err = field_u64(p, in, where, "sigOpCount", UINT8_MAX, &sig_ops);
    if (err)
        return err;
    prev.index = (uint32_t)index;
    uint8_t *script;
    size_t len;
    err = field_hex(p, in, where, "signatureScript", &script, &len);
    if (!err)
        err = kd_ktx_add_input(tx, &prev, sequence, (uint8_t)sig_ops);
    if (!err) {
        kd_ktx_input *last = &tx->inputs[tx->n_inputs - 1];
        last->sig_script = script;
        last->sig_script_len = len;
        script = NULL;
    }
    free(script);
    return err;
}

static kd_err parse_output(perr *p, const json_t *o, size_t i, kd_ktx *tx)
{
    char where[48];
    snprintf(where, sizeof where, "outputs[%zu].", i);
    if (!json_is_object(o))
        return kd_kaspa_why(KD_ERR_PARSE, p->why, p->why_len, "outputs[%zu] is not an object", i);
    uint64_t value, version = 0;
    kd_err err = field_u64(p, o, where, "value", UINT64_MAX, &value);
    if (err)
        return err;
    const json_t *spk = json_object_get(o, "scriptPublicKey");
    uint8_t *bytes = NULL, *script;
    size_t len = 0;
    if (json_is_string(spk)) {
        err = field_hex(p, o, where, "scriptPublicKey", &bytes, &len);
        if (!err && len < 2)
            err = kd_kaspa_why(KD_ERR_PARSE, p->why, p->why_len, "%sscriptPublicKey is shorter than its 2-byte version",
                               where);
        if (!err)
            version = (uint64_t)bytes[0] << 8 | bytes[1];
        script = bytes ? bytes + 2 : NULL;
        len = len >= 2 ? len - 2 : 0;
    } else if (json_is_object(spk)) {
        char where_spk[80];
        snprintf(where_spk, sizeof where_spk, "%sscriptPublicKey.", where);
        err = field_u64(p, spk, where_spk, "version", UINT16_MAX, &version);
        if (!err)
            err = field_hex(p, spk, where_spk, "script", &bytes, &len);
        script = bytes;
    } else {
        return kd_kaspa_why(KD_ERR_PARSE, p->why, p->why_len, "%sscriptPublicKey is %s", where,
                            spk ? "neither a hex string nor an object" : "missing");
    }
    if (!err)
        err = kd_ktx_add_output(tx, value, (uint16_t)version, script, len);
    free(bytes);
    return err;
}

kd_err kd_ktx_json_parse(const json_t *json, kd_ktx **out, char *why, size_t why_len)
{
    perr p = {why, why_len};
    if (!json_is_object(json))
        return kd_kaspa_why(KD_ERR_PARSE, p.why, p.why_len, "the transaction is not a JSON object");
    const json_t *inputs = json_object_get(json, "inputs"), *outputs = json_object_get(json, "outputs");
    if (!json_is_array(inputs))
        return kd_kaspa_why(KD_ERR_PARSE, p.why, p.why_len, "inputs is %s", inputs ? "not an array" : "missing");
    if (!json_is_array(outputs))
        return kd_kaspa_why(KD_ERR_PARSE, p.why, p.why_len, "outputs is %s", outputs ? "not an array" : "missing");
    kd_ktx *tx;
    kd_err err = kd_ktx_alloc(&tx);
    if (err)
        return err;
    uint64_t version;
    err = field_u64(&p, json, "", "version", UINT16_MAX, &version);
    tx->version = (uint16_t)version;
    for (size_t i = 0; !err && i < json_array_size(inputs); i++)
        err = parse_input(&p, json_array_get(inputs, i), i, tx);
    for (size_t i = 0; !err && i < json_array_size(outputs); i++)
        err = parse_output(&p, json_array_get(outputs, i), i, tx);
    if (!err)
        err = field_u64(&p, json, "", "lockTime", UINT64_MAX, &tx->lock_time);
    if (!err)
        err = field_fixed_hex(&p, json, "", "subnetworkId", tx->subnetwork_id, KD_KASPA_SUBNET_LEN);
    if (!err)
        err = field_u64(&p, json, "", "gas", UINT64_MAX, &tx->gas);
    if (!err)
        err = field_hex(&p, json, "", "payload", &tx->payload, &tx->payload_len);
    /* v2 names it storageMass and still sends the deprecated mass; they
     * must agree when both are there (RpcTransaction's deserializer). */
    uint64_t storage_mass = 0;
    if (!err && json_object_get(json, "mass"))
        err = field_u64(&p, json, "", "mass", UINT64_MAX, &tx->mass);
    if (!err && json_object_get(json, "storageMass"))
        err = field_u64(&p, json, "", "storageMass", UINT64_MAX, &storage_mass);
    if (!err && json_object_get(json, "storageMass") && json_object_get(json, "mass") && storage_mass != tx->mass)
        err = kd_kaspa_why(KD_ERR_PARSE, p.why, p.why_len,
                           "storageMass (%" PRIu64 ") and mass (%" PRIu64 ") differ; they must match", storage_mass,
                           tx->mass);
    else if (!err && json_object_get(json, "storageMass"))
        tx->mass = storage_mass;
    if (err) {
        kd_ktx_free(tx);
        return err;
    }
    *out = tx;
    return KD_OK;
}
