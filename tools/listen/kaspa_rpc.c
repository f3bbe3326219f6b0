/*
 * kaspa_rpc.c — parsing of kaspad's wRPC JSON messages (kaspa_rpc.h). Each
 * parser walks the shapes rusty-kaspa's serde derives write (the files of
 * rpc/core/src/model/) and names the first field that does not fit.
 */
#include "tools/listen/kaspa_rpc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/bytes.h"

static kd_err bad(char *why, size_t why_len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static kd_err bad(char *why, size_t why_len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, why_len, fmt, ap);
    va_end(ap);
    return KD_ERR_PARSE;
}

int kd_kaspa_hash_parse(const char *text, kd_khash out)
{
    return text && strlen(text) == 2 * KD_HASH_LEN ? kd_hex_decode(text, out, KD_HASH_LEN) : -1;
}

/* ---------------------------------------------------------- exact u64s */

/* 1 when the integer literal of `n` digits at `d` (negative with `neg`)
 * does not fit json_int_t. */
static int too_big(const char *d, size_t n, int neg)
{
    if (n != 19)
        return n > 19;
    return memcmp(d, neg ? "9223372036854775808" : "9223372036854775807", 19) > 0;
}

static int is_digit(char ch) { return ch >= '0' && ch <= '9'; }

/* The pass of kaspa_rpc.h: copies `text` into `out` with every integer
 * literal too big for jansson tagged, and says whether a string holds
 * \u0000. Tokens it does not understand are copied for jansson to refuse;
 * a literal with a leading zero is left alone for the same reason. Sets
 * *tagged to the number of tags. */
static kd_err tag_big_integers(const char *text, size_t len, kd_buf *out, size_t *tagged, int *has_nul)
{
    size_t from = 0;
    int in_str = 0;
    *tagged = 0;
    *has_nul = 0;
    for (size_t i = 0; i < len; i++) {
        char ch = text[i];
        if (in_str) {
            if (ch == '\\' && i + 1 < len) {
                if (i + 5 < len && !memcmp(text + i + 1, "u0000", 5))
                    *has_nul = 1;
                i++; /* the escaped character, a quote maybe */
            } else if (ch == '"') {
                in_str = 0;
            }
            continue;
        }
        if (ch == '"') {
            in_str = 1;
            continue;
        }
        if (ch != '-' && !is_digit(ch))
            continue;
        size_t start = i, d = i + (ch == '-');
        size_t end = d;
        while (end < len && is_digit(text[end]))
            end++;
        int real = end < len && (text[end] == '.' || text[end] == 'e' || text[end] == 'E');
        size_t n = end - d;
        if (!real && n && !(n > 1 && text[d] == '0') && too_big(text + d, n, ch == '-')) {
            kd_err err;
            if ((err = kd_buf_append(out, text + from, start - from)) || (err = kd_buf_append(out, "\"\\u0000", 7)) ||
                (err = kd_buf_append(out, text + start, end - start)) || (err = kd_buf_append(out, "\"", 1)))
                return err;
            from = end;
            ++*tagged;
        }
        i = end - 1; /* end > start: the loop goes on after the token */
    }
    return kd_buf_append(out, text + from, len - from);
}

kd_err kd_kaspa_json_load(const char *text, size_t len, json_t **out, char *why, size_t why_len)
{
    *out = NULL;
    kd_buf b;
    kd_buf_init(&b);
    size_t tagged;
    int has_nul;
    kd_err err = tag_big_integers(text, len, &b, &tagged, &has_nul);
    if (err)
        goto done;
    if (has_nul) {
        err = bad(why, why_len, "the JSON has a string holding \\u0000 (a NUL character)");
        goto done;
    }
    json_error_t je;
    *out = tagged ? json_loadb((const char *)b.data, b.len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &je)
                  : json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!*out)
        err = bad(why, why_len, "%s at byte %d", je.text, je.position);
done:
    kd_buf_fini(&b);
    return err;
}

const char *kd_kaspa_u64_of(const json_t *v, uint64_t *out)
{
    if (!v)
        return "it is missing";
    if (json_is_integer(v)) {
        if (json_integer_value(v) < 0)
            return "it is negative";
        *out = (uint64_t)json_integer_value(v);
        return NULL;
    }
    if (json_is_real(v))
        return json_real_value(v) < 0 ? "it is negative" : "it is not an integer (a fraction or an exponent)";
    const char *s = json_string_value(v);
    size_t n = json_string_length(v);
    if (!s || n < 2 || s[0] != 0)
        return "it is not a number";
    if (s[1] == '-')
        return "it is negative";
    uint64_t x = 0;
    for (size_t i = 1; i < n; i++) {
        if (!is_digit(s[i]))
            return "it is not a number";
        unsigned digit = (unsigned)(s[i] - '0');
        if (x > (UINT64_MAX - digit) / 10)
            return "it is over 2^64-1";
        x = x * 10 + digit;
    }
    *out = x;
    return NULL;
}

kd_err kd_kaspa_u64_get(const json_t *obj, const char *key, const char *what, uint64_t *out, char *why, size_t why_len)
{
    const char *problem = kd_kaspa_u64_of(json_object_get(obj, key), out);
    if (!problem)
        return KD_OK;
    size_t n = strlen(what);
    const char *sep = n == 0 || what[n - 1] == '.' || what[n - 1] == ' ' ? "" : " ";
    return bad(why, why_len, "%s%s%s is not a non-negative integer (%s)", what, sep, key, problem);
}

json_t *kd_kaspa_u64_new(uint64_t v)
{
    if (v <= (uint64_t)INT64_MAX)
        return json_integer((json_int_t)v);
    char s[24];
    int n = snprintf(s, sizeof s, "%c%llu", 0, (unsigned long long)v);
    return json_stringn(s, (size_t)n);
}

char *kd_kaspa_json_dump(const json_t *j)
{
    char *text = json_dumps(j, JSON_COMPACT);
    if (!text || !strstr(text, "\"\\u0000"))
        return text;
    /* a tag is a whole string: a quote that opens one, \u0000, digits, a quote */
    size_t len = strlen(text), w = 0;
    int in_str = 0;
    for (size_t i = 0; i < len; i++) {
        char ch = text[i];
        if (!in_str && ch == '"' && !strncmp(text + i + 1, "\\u0000", 6)) {
            size_t e = i + 7;
            while (is_digit(text[e]) || text[e] == '-')
                e++;
            if (text[e] == '"' && e > i + 7) {
                memmove(text + w, text + i + 7, e - (i + 7));
                w += e - (i + 7);
                i = e;
                continue;
            }
        }
        if (in_str && ch == '\\') {
            text[w++] = ch;
            text[w++] = text[++i];
            continue;
        }
        if (ch == '"')
            in_str = !in_str;
        text[w++] = ch;
    }
    text[w] = 0;
    return text;
}

static int get_hash(const json_t *obj, const char *key, kd_khash out)
{
    return kd_kaspa_hash_parse(json_string_value(json_object_get(obj, key)), out);
}

/* An array of hashes at obj[key] into a new array. */
static kd_err get_hashes(const json_t *obj, const char *key, const char *what, kd_khash **out, size_t *n, char *why,
                         size_t why_len)
{
    const json_t *arr = json_object_get(obj, key);
    *out = NULL;
    *n = 0;
    if (!json_is_array(arr))
        return bad(why, why_len, "%s: %s is missing or not an array", what, key);
    size_t len = json_array_size(arr);
    kd_khash *h = calloc(len ? len : 1, sizeof *h);
    if (!h)
        return KD_ERR_NOMEM;
    for (size_t i = 0; i < len; i++)
        if (kd_kaspa_hash_parse(json_string_value(json_array_get(arr, i)), h[i])) {
            free(h);
            return bad(why, why_len, "%s: %s[%zu] is not a 64-digit hex hash", what, key, i);
        }
    *out = h;
    *n = len;
    return KD_OK;
}

/* ------------------------------------------------------------- frames */

kd_err kd_wrpc_frame_parse(const char *text, size_t len, kd_wrpc_frame *out, char *why, size_t why_len)
{
    memset(out, 0, sizeof *out);
    json_t *root;
    char jwhy[200];
    kd_err err = kd_kaspa_json_load(text, len, &root, jwhy, sizeof jwhy);
    if (err == KD_ERR_PARSE)
        return bad(why, why_len, "the frame is not JSON (%s)", jwhy);
    if (err)
        return err;
    if (!json_is_object(root)) {
        json_decref(root);
        return bad(why, why_len, "the frame is not a JSON object");
    }
    const json_t *id = json_object_get(root, "id"), *method = json_object_get(root, "method");
    json_t *params = json_object_get(root, "params"), *error = json_object_get(root, "error");
    if (method && !json_is_null(method)) {
        if (!json_is_string(method) || json_string_length(method) >= sizeof out->method) {
            err = bad(why, why_len, "the frame's method is not a short string");
            goto fail;
        }
        snprintf(out->method, sizeof out->method, "%s", json_string_value(method));
    }
    if (id && !json_is_null(id)) {
        const char *problem = kd_kaspa_u64_of(id, &out->id);
        if (problem) {
            err = bad(why, why_len, "the frame's id is not a non-negative integer (%s)", problem);
            goto fail;
        }
        if (error && !json_is_null(error)) {
            const json_t *msg = json_object_get(error, "message");
            if (!json_is_object(error) || !json_is_string(msg)) {
                err = bad(why, why_len, "the error of reply %llu has no message string", (unsigned long long)out->id);
                goto fail;
            }
            out->kind = KD_WRPC_ERROR;
            out->error = json_string_value(msg);
        } else if (json_is_object(params)) {
            out->kind = KD_WRPC_RESPONSE;
            out->params = params;
        } else {
            err =
                bad(why, why_len, "reply %llu has neither an object params nor an error", (unsigned long long)out->id);
            goto fail;
        }
    } else if (out->method[0] && json_is_object(params)) {
        out->kind = KD_WRPC_NOTIFICATION;
        out->params = params;
    } else {
        err = bad(why, why_len, "the frame is neither a reply (id) nor a notification (method and params)");
        goto fail;
    }
    out->root = root;
    return KD_OK;
fail:
    json_decref(root);
    memset(out, 0, sizeof *out);
    return err;
}

void kd_wrpc_frame_fini(kd_wrpc_frame *frame)
{
    if (frame->root)
        json_decref(frame->root);
    memset(frame, 0, sizeof *frame);
}

char *kd_wrpc_request_text(uint64_t id, const char *method, const json_t *params)
{
    json_t *req = json_pack("{s:o, s:s, s:O}", "id", kd_kaspa_u64_new(id), "method", method, "params", params);
    if (!req)
        return NULL;
    char *text = kd_kaspa_json_dump(req);
    json_decref(req);
    return text;
}

/* --------------------------------------------------------- chain moves */

void kd_kaspa_chain_fini(kd_kaspa_chain *chain)
{
    for (size_t i = 0; i < chain->n_accepted; i++)
        free(chain->accepted[i].ids);
    free(chain->accepted);
    free(chain->removed);
    free(chain->added);
    memset(chain, 0, sizeof *chain);
}

kd_err kd_kaspa_chain_parse(const json_t *params, const char *what, int need_accepted, kd_kaspa_chain *out, char *why,
                            size_t why_len)
{
    memset(out, 0, sizeof *out);
    kd_err err;
    if (!json_is_object(params))
        return bad(why, why_len, "%s: the params are not an object", what);
    if ((err = get_hashes(params, "removedChainBlockHashes", what, &out->removed, &out->n_removed, why, why_len)) ||
        (err = get_hashes(params, "addedChainBlockHashes", what, &out->added, &out->n_added, why, why_len)))
        goto fail;
    const json_t *acc = json_object_get(params, "acceptedTransactionIds");
    if (!json_is_array(acc)) {
        err = bad(why, why_len, "%s: acceptedTransactionIds is missing or not an array", what);
        goto fail;
    }
    size_t n = json_array_size(acc);
    if (need_accepted && n != out->n_added) {
        err = bad(why, why_len, "%s: acceptedTransactionIds has %zu entries for %zu added chain blocks", what, n,
                  out->n_added);
        goto fail;
    }
    out->accepted = calloc(n ? n : 1, sizeof *out->accepted);
    if (!out->accepted) {
        err = KD_ERR_NOMEM;
        goto fail;
    }
    for (size_t i = 0; i < n; i++) {
        const json_t *e = json_array_get(acc, i);
        kd_kaspa_acceptance *a = &out->accepted[i];
        char place[64];
        snprintf(place, sizeof place, "%s: acceptedTransactionIds[%zu]", what, i);
        if (!json_is_object(e) || get_hash(e, "acceptingBlockHash", a->accepting)) {
            err = bad(why, why_len, "%s.acceptingBlockHash is not a 64-digit hex hash", place);
            goto fail;
        }
        out->n_accepted = i + 1;
        if ((err = get_hashes(e, "acceptedTransactionIds", place, &a->ids, &a->n_ids, why, why_len)))
            goto fail;
        if (need_accepted && memcmp(a->accepting, out->added[i], KD_HASH_LEN)) {
            err = bad(why, why_len, "%s.acceptingBlockHash is not addedChainBlockHashes[%zu]", place, i);
            goto fail;
        }
    }
    return KD_OK;
fail:
    kd_kaspa_chain_fini(out);
    return err;
}

kd_err kd_kaspa_chain_notification_parse(const json_t *params, kd_kaspa_chain *out, char *why, size_t why_len)
{
    const json_t *inner = json_object_get(params, "VirtualChainChanged");
    if (!json_is_object(inner)) {
        memset(out, 0, sizeof *out);
        return bad(why, why_len, "virtualChainChangedNotification: params.VirtualChainChanged is missing");
    }
    return kd_kaspa_chain_parse(inner, "virtualChainChangedNotification", 0, out, why, why_len);
}

/* --------------------------------------------------------------- block */

void kd_kaspa_block_fini(kd_kaspa_block *block)
{
    for (size_t i = 0; i < block->n_txs; i++)
        free(block->txs[i].payload);
    free(block->txs);
    free(block->mergeset);
    memset(block, 0, sizeof *block);
}

static kd_err parse_tx(const json_t *tx, size_t i, kd_kaspa_tx *out, char *why, size_t why_len)
{
    const json_t *verbose = json_object_get(tx, "verboseData");
    const char *payload = json_string_value(json_object_get(tx, "payload"));
    if (!json_is_object(tx))
        return bad(why, why_len, "getBlock: block.transactions[%zu] is not an object", i);
    if (!json_is_object(verbose) || get_hash(verbose, "transactionId", out->id))
        return bad(why, why_len, "getBlock: block.transactions[%zu].verboseData.transactionId is missing or not a hash",
                   i);
    size_t len = payload ? strlen(payload) : 1;
    if (!payload || len % 2)
        return bad(why, why_len, "getBlock: block.transactions[%zu].payload is not a hex string", i);
    out->payload = malloc(len / 2 + 1);
    if (!out->payload)
        return KD_ERR_NOMEM;
    out->payload_len = len / 2;
    if (kd_hex_decode(payload, out->payload, len / 2))
        return bad(why, why_len, "getBlock: block.transactions[%zu].payload is not a hex string", i);
    return KD_OK;
}

kd_err kd_kaspa_block_parse(const json_t *params, int need_txs, kd_kaspa_block *out, char *why, size_t why_len)
{
    memset(out, 0, sizeof *out);
    kd_err err = KD_OK;
    const json_t *block = json_object_get(params, "block");
    const json_t *header = json_object_get(block, "header");
    if (!json_is_object(block) || !json_is_object(header))
        return bad(why, why_len, "getBlock: block.header is missing");
    if (get_hash(header, "hash", out->hash))
        return bad(why, why_len, "getBlock: block.header.hash is not a 64-digit hex hash");
    static const char *const where = "getBlock: block.header.";
    if ((err = kd_kaspa_u64_get(header, "daaScore", where, &out->daa_score, why, why_len)) ||
        (err = kd_kaspa_u64_get(header, "timestamp", where, &out->timestamp_ms, why, why_len)) ||
        (err = kd_kaspa_u64_get(header, "blueScore", where, &out->blue_score, why, why_len)) ||
        (err = kd_kaspa_u64_get(header, "nonce", where, &out->nonce, why, why_len)))
        return err;
    const json_t *verbose = json_object_get(block, "verboseData");
    if (json_is_object(verbose)) {
        kd_khash *blues = NULL, *reds = NULL;
        const json_t *chain = json_object_get(verbose, "isChainBlock");
        if (!json_is_boolean(chain))
            return bad(why, why_len, "getBlock: block.verboseData.isChainBlock is not a boolean");
        if ((err = get_hashes(verbose, "mergeSetBluesHashes", "getBlock: block.verboseData", &blues, &out->n_blues, why,
                              why_len)))
            goto fail;
        if ((err = get_hashes(verbose, "mergeSetRedsHashes", "getBlock: block.verboseData", &reds, &out->n_reds, why,
                              why_len))) {
            free(blues);
            goto fail;
        }
        out->mergeset = calloc(out->n_blues + out->n_reds + 1, sizeof *out->mergeset);
        if (out->mergeset) {
            memcpy(out->mergeset, blues, out->n_blues * sizeof *blues);
            memcpy(out->mergeset + out->n_blues, reds, out->n_reds * sizeof *reds);
        }
        free(blues);
        free(reds);
        if (!out->mergeset) {
            err = KD_ERR_NOMEM;
            goto fail;
        }
        out->has_verbose = 1;
        out->is_chain_block = json_is_true(chain);
    } else if (verbose && !json_is_null(verbose)) {
        return bad(why, why_len, "getBlock: block.verboseData is neither an object nor null");
    }
    const json_t *txs = json_object_get(block, "transactions");
    if (!json_is_array(txs)) {
        err = bad(why, why_len, "getBlock: block.transactions is missing or not an array");
        goto fail;
    }
    if (need_txs) {
        size_t n = json_array_size(txs);
        out->txs = calloc(n ? n : 1, sizeof *out->txs);
        if (!out->txs) {
            err = KD_ERR_NOMEM;
            goto fail;
        }
        for (size_t i = 0; i < n; i++) {
            out->n_txs = i + 1;
            if ((err = parse_tx(json_array_get(txs, i), i, &out->txs[i], why, why_len)))
                goto fail;
        }
    }
    return KD_OK;
fail:
    kd_kaspa_block_fini(out);
    return err;
}

/* ----------------------------------------------------------- node info */

kd_err kd_kaspa_dag_info_parse(const json_t *params, kd_kaspa_dag_info *out, char *why, size_t why_len)
{
    memset(out, 0, sizeof *out);
    const char *net = json_string_value(json_object_get(params, "network"));
    if (!net || strlen(net) >= sizeof out->network)
        return bad(why, why_len, "getBlockDagInfo: network is missing or not a short string");
    snprintf(out->network, sizeof out->network, "%s", net);
    if (get_hash(params, "sink", out->sink))
        return bad(why, why_len, "getBlockDagInfo: sink is not a 64-digit hex hash");
    return kd_kaspa_u64_get(params, "virtualDaaScore", "getBlockDagInfo:", &out->virtual_daa_score, why, why_len);
}

kd_err kd_kaspa_server_info_parse(const json_t *params, kd_kaspa_server_info *out, char *why, size_t why_len)
{
    memset(out, 0, sizeof *out);
    const char *net = json_string_value(json_object_get(params, "networkId"));
    const char *ver = json_string_value(json_object_get(params, "serverVersion"));
    const json_t *synced = json_object_get(params, "isSynced");
    if (!net || strlen(net) >= sizeof out->network_id)
        return bad(why, why_len, "getServerInfo: networkId is missing or not a short string");
    if (!ver || strlen(ver) >= sizeof out->server_version)
        return bad(why, why_len, "getServerInfo: serverVersion is missing or not a short string");
    if (!json_is_boolean(synced))
        return bad(why, why_len, "getServerInfo: isSynced is not a boolean");
    kd_err err = kd_kaspa_u64_get(params, "virtualDaaScore", "getServerInfo:", &out->virtual_daa_score, why, why_len);
    if (err)
        return err;
    snprintf(out->network_id, sizeof out->network_id, "%s", net);
    snprintf(out->server_version, sizeof out->server_version, "%s", ver);
    out->is_synced = json_is_true(synced);
    return KD_OK;
}

unsigned kd_kaspa_json_port(const char *network)
{
    /* NetworkType::default_json_rpc_port: one port per network type; every
     * testnet suffix shares the testnet port. */
    if (!strcmp(network, "mainnet"))
        return 18110;
    if (!strncmp(network, "testnet", 7) && (network[7] == 0 || network[7] == '-'))
        return 18210;
    if (!strcmp(network, "simnet"))
        return 18510;
    if (!strcmp(network, "devnet"))
        return 18610;
    return 0;
}
