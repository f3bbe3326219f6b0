/*
 * blockscript_write.c — writing block-script ops back as canonical JSON
 * lines (kd_script_op_write, blockscript.h): what the simulator's minimal
 * reproductions are made of. Generic forms are written from the JSON they
 * were parsed from, with the command's "episode_type", so every line parses
 * on its own.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "tools/script/blockscript.h"

#define JSON_INT_MAX ((uint64_t)INT64_MAX)

/* Sets obj[key] = v, taking v even on failure; -1 when v is NULL or the set
 * fails. Lets a chain of puts share one cleanup path. */
static int put(json_t *obj, const char *key, json_t *v) { return json_object_set_new(obj, key, v); }

/* Sets obj[key] to the JSON text `text` parsed. Errors: KD_ERR_INVALID_ARG
 * (not JSON), KD_ERR_NOMEM. */
static kd_err put_json(json_t *obj, const char *key, const char *text)
{
    json_error_t jerr;
    json_t *v = json_loads(text, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &jerr);
    if (!v)
        return json_error_code(&jerr) == json_error_out_of_memory ? KD_ERR_NOMEM : KD_ERR_INVALID_ARG;
    return put(obj, key, v) ? KD_ERR_NOMEM : KD_OK;
}

/* Sets body["signer"] to the signer's reference when the tx is signed. */
static kd_err put_signer(const kd_script_tx *tx, json_t *body)
{
    if (!tx->has_signer)
        return KD_OK;
    json_t *ref = json_string(tx->signer_ref);
    if (!ref)
        return KD_ERR_INVALID_ARG; /* not UTF-8 */
    return put(body, "signer", ref) ? KD_ERR_NOMEM : KD_OK;
}

/* Sets body["consent"] to the consents' key references, when the script
 * wrote them (none written: every participant given by key consents). */
static kd_err put_consents(const kd_script_tx *tx, json_t *body)
{
    if (tx->consent_implicit)
        return KD_OK;
    json_t *refs = json_array();
    if (put(body, "consent", refs))
        return KD_ERR_NOMEM;
    for (size_t i = 0; i < tx->consent_count; i++) {
        if (!tx->consents[i].ref[0] || !memchr(tx->consents[i].ref, '\0', sizeof tx->consents[i].ref))
            return KD_ERR_INVALID_ARG;
        json_t *ref = json_string(tx->consents[i].ref);
        if (!ref)
            return KD_ERR_INVALID_ARG; /* not UTF-8 */
        if (json_array_append_new(refs, ref))
            return KD_ERR_NOMEM;
    }
    return KD_OK;
}

/* Rejects what no script line could express, before building anything. */
static kd_err tx_writable(const kd_script_tx *tx)
{
    switch (tx->kind) {
    case KD_SCRIPT_TX_NEW_EPISODE:
        return tx->participants.count <= KD_MAX_PARTICIPANTS && memchr(tx->type, '\0', sizeof tx->type) &&
                       tx->consent_count <= KD_MAX_PARTICIPANTS && (!tx->consent_count || tx->consents) &&
                       (!tx->has_cap || tx->cap <= 255) && !(tx->has_cap && tx->json)
                   ? KD_OK
                   : KD_ERR_INVALID_ARG;
    case KD_SCRIPT_TX_COMMAND:
        return tx->json && tx->type[0] && memchr(tx->type, '\0', sizeof tx->type) &&
                       (!tx->has_signer || tx->signer_ref[0]) &&
                       (!tx->has_signer || memchr(tx->signer_ref, '\0', sizeof tx->signer_ref)) &&
                       (!tx->has_counter || tx->counter <= JSON_INT_MAX)
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
            if (json_array_append_new(parts, kd_json_hex(tx->participants.keys[i].bytes, KD_PUBKEY_LEN)))
                goto fail;
        if (tx->has_cap && put(body, "cap", json_integer(tx->cap)))
            goto fail;
        if ((tx->json && (err = put_json(body, "params", tx->json))) || (err = put_consents(tx, body)))
            goto fail;
        err = KD_ERR_NOMEM;
    } else if (tx->kind == KD_SCRIPT_TX_COMMAND) {
        body = json_object();
        json_t *type = json_string(tx->type);
        if (!type) {
            err = KD_ERR_INVALID_ARG; /* not UTF-8 */
            goto fail;
        }
        if (put(t, "command", body) || put(body, "episode", json_integer(tx->episode_id)) ||
            put(body, "episode_type", type))
            goto fail;
        if ((err = put_json(body, "command", tx->json)) || (err = put_signer(tx, body)))
            goto fail;
        err = KD_ERR_NOMEM;
        if (tx->has_counter && put(body, "counter", json_integer((json_int_t)tx->counter)))
            goto fail;
    } else if (tx->kind == KD_SCRIPT_TX_MOVE) {
        body = json_object();
        if (put(t, "move", body) || put(body, "episode", json_integer(tx->episode_id)) ||
            put(body, "row", json_integer(tx->row)) || put(body, "col", json_integer(tx->col)) ||
            put(body, "player", json_string(tx->player ? "O" : "X")))
            goto fail;
        if ((err = put_signer(tx, body)))
            goto fail;
        err = KD_ERR_NOMEM;
        if (tx->has_counter && put(body, "counter", json_integer((json_int_t)tx->counter)))
            goto fail;
    } else {
        if (put(t, "payload_hex", kd_json_hex(tx->raw, tx->raw_len)))
            goto fail;
    }
    if (put(t, "tx_id", kd_json_hex(tx->tx_id, KD_HASH_LEN)))
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
        if (put(root, "revert", kd_json_hex(op->hash, KD_HASH_LEN)))
            goto fail;
    } else {
        /* each put takes its value even when it fails, so the borrowed
         * body and txs need no cleanup of their own */
        json_t *body = json_object();
        if (put(root, "accept", body) || put(body, "hash", kd_json_hex(op->hash, KD_HASH_LEN)) ||
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
