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
#include "tools/script/blockscript_int.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* All-hex strings at least this long are taken for raw hashes / pubkeys. */
#define HEXLIKE_MIN 32
#define JSON_INT_MAX ((uint64_t)INT64_MAX)

/* Where the parser is: for messages, key lookups and type conversions. */
typedef struct {
    unsigned line;
    const char *keys_dir;
    char *why;
    size_t why_len;
    char where[48]; /* "txs[3]: " or "" */
    const kd_type_table *types;
    kd_script *known; /* the episodes created so far (appended to) */
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

/* `obj` must be an object (named `what`) with no key outside `allowed`. */
static kd_err check_object(pctx *c, json_t *obj, const char *what, const char *const *allowed)
{
    if (!json_is_object(obj))
        return fail(c, KD_ERR_PARSE, "%s must be an object", what);
    return check_fields(c, obj, what, allowed);
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

/* A value written either as raw hex or as a name (a hash H, a participant
 * P, a signer): the non-empty string of `v`, and whether it is taken for
 * raw hex (all hex digits, at least HEXLIKE_MIN of them). */
static kd_err get_hex_or_name(pctx *c, json_t *v, const char *name, const char **out, int *hex)
{
    kd_err err = get_string(c, v, name, out);
    if (err)
        return err;
    size_t n = strlen(*out);
    if (n == 0)
        return fail(c, KD_ERR_PARSE, "%s must not be empty", name);
    *hex = all_hex(*out) && n >= HEXLIKE_MIN;
    return KD_OK;
}

/* Decodes the raw hex `s` of exactly `len` bytes; `what` names such a
 * value in the error ("a raw hash"). */
static kd_err decode_raw(pctx *c, const char *s, const char *name, const char *what, uint8_t *out, size_t len)
{
    size_t n = strlen(s);
    if (n != 2 * len)
        return fail(c, KD_ERR_PARSE, "%s has %zu hex digits; %s has %zu", name, n, what, 2 * len);
    if (kd_hex_decode(s, out, len) != 0)
        return fail(c, KD_ERR_INTERNAL, "%s: hex decoding failed", name);
    return KD_OK;
}

/* H: 64 hex digits, or a name standing for its SHA-256. */
static kd_err parse_hash(pctx *c, json_t *v, const char *name, uint8_t out[KD_HASH_LEN])
{
    if (!json_is_string(v))
        return fail(c, KD_ERR_PARSE, "%s must be a string (64 hex digits or a name)", name);
    const char *s;
    int hex;
    kd_err err = get_hex_or_name(c, v, name, &s, &hex);
    if (err)
        return err;
    if (hex)
        return decode_raw(c, s, name, "a raw hash", out, KD_HASH_LEN);
    kd_sha256(s, strlen(s), out);
    return KD_OK;
}

/* Resolves a key reference; the key error passes through with its reason. */
static kd_err resolve_key(pctx *c, const char *ref, const char *name, kd_key *key)
{
    if (strncmp(ref, "test:", 5) != 0 && !c->keys_dir)
        return fail(c, KD_ERR_NOT_FOUND, "%s: key \"%s\" needs a key directory, and none was given", name, ref);
    char kwhy[1024] = "";
    kd_err err = kd_key_resolve(c->keys_dir, ref, key, kwhy, sizeof kwhy);
    if (err)
        return fail(c, err, "%s: %s", name, kwhy[0] ? kwhy : kd_err_str(err));
    return KD_OK;
}

/* P: 66 hex digits or a key reference, to a public key; a key reference
 * also fills *held (its ref in held->ref; seat idx) and sets *has. */
static kd_err parse_participant(pctx *c, json_t *v, size_t idx, kd_pubkey *out, kd_script_consent *held, int *has)
{
    char name[48];
    snprintf(name, sizeof name, "participants[%zu]", idx);
    const char *s;
    int hex;
    kd_err err = get_hex_or_name(c, v, name, &s, &hex);
    if (err)
        return err;
    if (hex)
        return decode_raw(c, s, name, "a compressed pubkey", out->bytes, KD_PUBKEY_LEN);
    if (strlen(s) >= sizeof held->ref)
        return fail(c, KD_ERR_PARSE, "%s is longer than %zu bytes", name, sizeof held->ref - 1);
    err = resolve_key(c, s, name, &held->key);
    if (!err) {
        *out = held->key.pub;
        held->seat = (uint32_t)idx;
        memcpy(held->ref, s, strlen(s) + 1);
        *has = 1;
    }
    return err;
}

/* ------------------------------------ conversions through the type table */

/* Keeps the JSON of a generic form as compact text, for the writer. */
static kd_err keep_json(pctx *c, kd_script_tx *tx, const json_t *j)
{
    tx->json = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
    return tx->json ? KD_OK : fail(c, KD_ERR_NOMEM, "out of memory");
}

static kd_err keep_body(pctx *c, kd_script_tx *tx, const kd_buf *b)
{
    if (b->len == 0)
        return KD_OK;
    tx->body = malloc(b->len);
    if (!tx->body)
        return fail(c, KD_ERR_NOMEM, "out of memory");
    memcpy(tx->body, b->data, b->len);
    tx->body_len = b->len;
    return KD_OK;
}

/* A type's refusal (its sentence in `why`) as a parse error about `what`. */
static kd_err refused(pctx *c, kd_err err, const char *what, const char *why)
{
    if (err == KD_ERR_NOMEM)
        return fail(c, KD_ERR_NOMEM, "out of memory");
    return fail(c, KD_ERR_PARSE, "%s: %s", what, why[0] ? why : kd_err_str(err));
}

/* The one type the shorthand ("cap", "move") is written for. */
static const char shorthand_type[] = "tictactoe";

/* NewEpisode params from "params" (generic, the named type's params JSON)
 * or "cap" (shorthand: tic-tac-toe's params {"cap": N}, whatever the named
 * type, as before the generic forms); neither (or cap 0) leaves the params
 * empty: the engine's defaults. */
static kd_err convert_params(pctx *c, kd_script_tx *tx, json_t *params)
{
    if (!params && !(tx->has_cap && tx->cap))
        return KD_OK;
    const char *name = params ? tx->type : shorthand_type;
    const kd_episode_type *type = kd_type_table_find(c->types, name);
    if (!type && params)
        return fail(c, KD_ERR_PARSE, "type \"%s\" is not registered, so its params cannot be converted", name);
    if (!type)
        return fail(c, KD_ERR_PARSE, "the \"cap\" shorthand is for %s episodes, and that type is not registered", name);
    json_t *shorthand = params ? NULL : json_pack("{s:I}", "cap", (json_int_t)tx->cap);
    if (!params && !shorthand)
        return fail(c, KD_ERR_NOMEM, "out of memory");
    kd_buf b;
    kd_buf_init(&b);
    char why[KD_REJECT_DETAIL_MAX] = "";
    kd_err err = type->params_from_json(params ? params : shorthand, &b, why, sizeof why);
    if (err)
        err = refused(c, err, params ? "params" : "cap", why);
    if (!err && params)
        err = keep_json(c, tx, params);
    if (!err)
        err = keep_body(c, tx, &b);
    kd_buf_fini(&b);
    json_decref(shorthand);
    return err;
}

/* Notes a new episode for the commands after it. */
static kd_err remember_episode(pctx *c, const kd_script_tx *tx)
{
    kd_script *k = c->known;
    if (!k)
        return KD_OK;
    if (k->episode_count == k->episode_cap) {
        size_t cap = k->episode_cap ? 2 * k->episode_cap : 16;
        kd_script_episode *grown = realloc(k->episodes, cap * sizeof *grown);
        if (!grown)
            return fail(c, KD_ERR_NOMEM, "out of memory");
        k->episodes = grown;
        k->episode_cap = cap;
    }
    kd_script_episode *e = &k->episodes[k->episode_count++];
    e->id = tx->episode_id;
    memcpy(e->type, tx->type, sizeof e->type);
    e->participants = tx->participants;
    return KD_OK;
}

/* The latest new_episode of `id` in the script, or NULL. */
static const kd_script_episode *known_episode(const pctx *c, uint32_t id)
{
    for (size_t i = c->known ? c->known->episode_count : 0; i > 0; i--)
        if (c->known->episodes[i - 1].id == id)
            return &c->known->episodes[i - 1];
    return NULL;
}

/* Command bytes from the type's command JSON, for `seat` (or KD_SEAT_NONE). */
static kd_err convert_command(pctx *c, kd_script_tx *tx, const kd_episode_type *type, const json_t *command, int seat,
                              int keep)
{
    kd_buf b;
    kd_buf_init(&b);
    char why[KD_REJECT_DETAIL_MAX] = "";
    kd_err err = type->command_from_json(command, seat, &b, why, sizeof why);
    if (err)
        err = refused(c, err, "command", why);
    if (!err && keep)
        err = keep_json(c, tx, command);
    if (!err)
        err = keep_body(c, tx, &b);
    kd_buf_fini(&b);
    return err;
}

/* The shorthand "move" is the command {"row", "col", "player"} of a
 * tic-tac-toe episode. */
static kd_err convert_move(pctx *c, kd_script_tx *tx)
{
    const kd_episode_type *type = kd_type_table_find(c->types, shorthand_type);
    if (!type)
        return fail(c, KD_ERR_PARSE, "the \"move\" shorthand is for %s episodes, and that type is not registered",
                    shorthand_type);
    json_t *command = json_pack("{s:i, s:i, s:s}", "row", (int)tx->row, "col", (int)tx->col, "player",
                                kd_episode_type_seat_name(type, tx->player));
    if (!command)
        return fail(c, KD_ERR_NOMEM, "out of memory");
    kd_err err = convert_command(c, tx, type, command, tx->player, 0);
    json_decref(command);
    return err;
}

/* "consent": [KEYREF...], each the seat of the first participant with
 * its pubkey; the feed signs the creation with it (kd_feeder_new_episode),
 * for the chain of the store it feeds. */
static kd_err parse_consent(pctx *c, json_t *v, kd_script_tx *tx)
{
    if (!json_is_array(v))
        return fail(c, KD_ERR_PARSE, "consent must be an array of key references");
    size_t n = json_array_size(v);
    if (n > KD_MAX_PARTICIPANTS)
        return fail(c, KD_ERR_PARSE, "consent has %zu entries; at most %d", n, KD_MAX_PARTICIPANTS);
    if (n && !(tx->consents = calloc(n, sizeof *tx->consents)))
        return fail(c, KD_ERR_NOMEM, "out of memory");
    kd_err err = KD_OK;
    for (size_t i = 0; i < n && !err; i++) {
        char name[32];
        snprintf(name, sizeof name, "consent[%zu]", i);
        kd_script_consent *sc = &tx->consents[i];
        const char *ref;
        int hex;
        if ((err = get_hex_or_name(c, json_array_get(v, i), name, &ref, &hex)))
            break;
        if (hex)
            return fail(c, KD_ERR_PARSE, "%s: a raw pubkey cannot sign; use a key name or \"test:NAME\"", name);
        if (strlen(ref) >= sizeof sc->ref)
            return fail(c, KD_ERR_PARSE, "%s is longer than %zu bytes", name, sizeof sc->ref - 1);
        tx->consent_count = i + 1; /* from here on kd_script_op_fini wipes its key */
        if ((err = resolve_key(c, ref, name, &sc->key)))
            break;
        uint32_t seat = 0;
        while (seat < tx->participants.count &&
               memcmp(tx->participants.keys[seat].bytes, sc->key.pub.bytes, KD_PUBKEY_LEN) != 0)
            seat++;
        if (seat == tx->participants.count)
            err = fail(c, KD_ERR_PARSE, "%s: key \"%s\" is not a participant of episode %u, so it cannot consent", name,
                       ref, tx->episode_id);
        sc->seat = seat;
        memcpy(sc->ref, ref, strlen(ref) + 1);
    }
    return err;
}

/* Without "consent", every participant given by key reference consents
 * (the keys the script holds: no key is seated without its signature). */
static kd_err consent_all(pctx *c, kd_script_tx *tx, const kd_script_consent *held, const int *has)
{
    size_t n = 0;
    for (size_t i = 0; i < tx->participants.count; i++)
        n += has[i] != 0;
    if (n && !(tx->consents = calloc(n, sizeof *tx->consents)))
        return fail(c, KD_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < tx->participants.count; i++)
        if (has[i])
            tx->consents[tx->consent_count++] = held[i];
    tx->consent_implicit = 1;
    return KD_OK;
}

static kd_err parse_new_episode(pctx *c, json_t *o, kd_script_tx *tx)
{
    static const char *const fields[] = {"id", "type", "participants", "cap", "params", "consent", NULL};
    kd_err err = check_object(c, o, "new_episode", fields);
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
    kd_script_consent held[KD_MAX_PARTICIPANTS];
    int has[KD_MAX_PARTICIPANTS] = {0};
    for (size_t i = 0; !err && i < json_array_size(parts); i++) {
        if ((err = parse_participant(c, json_array_get(parts, i), i, &tx->participants.keys[i], &held[i], &has[i])))
            break;
        tx->participants.count = i + 1;
    }
    json_t *consent = json_object_get(o, "consent");
    if (!err && !consent)
        err = consent_all(c, tx, held, has);
    wipe(held, sizeof held);
    if (err)
        return err;

    v = json_object_get(o, "cap");
    if (v && !json_is_null(v)) {
        if ((err = get_uint(c, o, "cap", "new_episode", 0, 255, &tx->has_cap, &u)))
            return err;
        tx->cap = (uint32_t)u;
    }
    json_t *params = json_object_get(o, "params");
    if (params && tx->has_cap)
        return fail(c, KD_ERR_PARSE, "new_episode has both \"params\" and the shorthand \"cap\"; give one");
    if ((err = convert_params(c, tx, params)))
        return err;
    if (consent && (err = parse_consent(c, consent, tx)))
        return err;
    return remember_episode(c, tx);
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
    int hex;
    kd_err err = get_hex_or_name(c, v, "signer", &s, &hex);
    if (err)
        return err;
    if (hex)
        return fail(c, KD_ERR_PARSE, "signer: a raw pubkey cannot sign; use a key name or \"test:NAME\"");
    size_t n = strlen(s);
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
    kd_err err = check_object(c, o, "move", fields);
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
    if ((err = get_uint(c, o, "counter", "move", 0, JSON_INT_MAX, &tx->has_counter, &tx->counter)))
        return err;
    return convert_move(c, tx);
}

/* The generic command: {"episode", "signer"?, "counter"?, "episode_type"?,
 * "command": {...}} or the command's members inline. */
static kd_err parse_command(pctx *c, json_t *o, kd_script_tx *tx)
{
    static const char *const fields[] = {"episode", "signer", "counter", "episode_type", "command", NULL};
    if (!json_is_object(o))
        return fail(c, KD_ERR_PARSE, "command must be an object");
    uint64_t u;
    kd_err err;
    if ((err = get_uint(c, o, "episode", "command", 1, UINT32_MAX, NULL, &u)))
        return err;
    tx->episode_id = (uint32_t)u;
    json_t *v = json_object_get(o, "signer");
    if (v && (err = parse_signer(c, v, tx)))
        return err;
    if ((err = get_uint(c, o, "counter", "command", 0, JSON_INT_MAX, &tx->has_counter, &tx->counter)))
        return err;
    const char *named = NULL;
    v = json_object_get(o, "episode_type");
    if (v && (err = get_string(c, v, "episode_type", &named)))
        return err;

    json_t *command = json_object_get(o, "command");
    if (command) {
        if ((err = check_fields(c, o, "command", fields)))
            return err;
        json_incref(command);
    } else {
        command = json_object();
        if (!command)
            return fail(c, KD_ERR_NOMEM, "out of memory");
        const char *key;
        json_t *member;
        json_object_foreach(o, key, member)
        {
            const char *const *f = fields;
            while (*f && strcmp(*f, key) != 0)
                f++;
            if (!*f && json_object_set(command, key, member)) {
                err = fail(c, KD_ERR_NOMEM, "out of memory");
                goto done;
            }
        }
        if (json_object_size(command) == 0) {
            err =
                fail(c, KD_ERR_PARSE, "command has no command: give the type's command JSON as \"command\" or inline");
            goto done;
        }
    }

    const kd_script_episode *ep = known_episode(c, tx->episode_id);
    if (named && ep && strcmp(named, ep->type) != 0) {
        err =
            fail(c, KD_ERR_PARSE, "episode %u is a %s episode in this script, not %s", tx->episode_id, ep->type, named);
        goto done;
    }
    const char *type_name = named ? named : ep ? ep->type : NULL;
    if (!type_name) {
        err = fail(c, KD_ERR_PARSE,
                   "the type of episode %u is not known (no new_episode of it earlier in the script): "
                   "add \"episode_type\"",
                   tx->episode_id);
        goto done;
    }
    const kd_episode_type *type = kd_type_table_find(c->types, type_name);
    if (!type || strlen(type_name) >= sizeof tx->type) {
        err = fail(c, KD_ERR_PARSE, "episode type \"%.40s\" is not registered, so the command cannot be converted",
                   type_name);
        goto done;
    }
    memcpy(tx->type, type_name, strlen(type_name) + 1);
    int seat = KD_SEAT_NONE;
    for (size_t i = 0; ep && tx->has_signer && i < ep->participants.count && seat == KD_SEAT_NONE; i++)
        if (memcmp(ep->participants.keys[i].bytes, tx->signer.pub.bytes, KD_PUBKEY_LEN) == 0)
            seat = (int)i;
    err = convert_command(c, tx, type, command, seat, 1);
done:
    json_decref(command);
    return err;
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
    static const char *const fields[] = {"new_episode", "command", "move", "payload_hex", "tx_id", NULL};
    snprintf(c->where, sizeof c->where, "txs[%zu]: ", idx);
    if (!json_is_object(t))
        return fail(c, KD_ERR_PARSE, "a tx must be an object");
    kd_err err = check_fields(c, t, "tx", fields);
    if (err)
        return err;
    json_t *ne = json_object_get(t, "new_episode"), *mv = json_object_get(t, "move"),
           *raw = json_object_get(t, "payload_hex"), *cmd = json_object_get(t, "command");
    int kinds = !!ne + !!mv + !!raw + !!cmd;
    if (kinds != 1)
        return fail(c, KD_ERR_PARSE, "a tx has exactly one of new_episode, command, move, payload_hex (got %d)", kinds);
    if (ne) {
        tx->kind = KD_SCRIPT_TX_NEW_EPISODE;
        err = parse_new_episode(c, ne, tx);
    } else if (cmd) {
        tx->kind = KD_SCRIPT_TX_COMMAND;
        err = parse_command(c, cmd, tx);
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
    kd_err err = check_object(c, a, "accept", fields);
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

kd_err kd_script_parse_line_in(const char *line, size_t len, unsigned line_no, uint64_t prev_daa, const char *keys_dir,
                               const kd_type_table *types, kd_script *known, kd_script_op *op, int *is_blank, char *why,
                               size_t why_len)
{
    pctx c = {.line = line_no, .keys_dir = keys_dir, .why = why, .why_len = why_len, .types = types, .known = known};
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

kd_err kd_script_parse_line(const char *line, size_t len, unsigned line_no, uint64_t prev_daa, const char *keys_dir,
                            kd_script_op *op, int *is_blank, char *why, size_t why_len)
{
    kd_type_table types;
    kd_type_table_init(&types);
    kd_script known;
    kd_script_init(&known);
    kd_err err =
        kd_script_parse_line_in(line, len, line_no, prev_daa, keys_dir, &types, &known, op, is_blank, why, why_len);
    kd_script_fini(&known);
    return err;
}

void kd_script_op_fini(kd_script_op *op)
{
    if (!op)
        return;
    for (size_t i = 0; i < op->tx_count; i++) {
        free(op->txs[i].raw);
        free(op->txs[i].json);
        free(op->txs[i].body);
        if (op->txs[i].consents)
            wipe(op->txs[i].consents, op->txs[i].consent_count * sizeof *op->txs[i].consents);
        free(op->txs[i].consents);
        wipe(&op->txs[i].signer, sizeof op->txs[i].signer);
    }
    free(op->txs);
    memset(op, 0, sizeof *op);
}
