/*
 * gateway_terms.c — the terms the house consents to.
 *
 * A gateway started with a house (`kdapp mcp --house NAME`) plays it for
 * all comers: any session, a tokenless one included, may start a chance
 * game against it, and the house signs its consent to the creation
 * (gateway_secrets.c). What it consents to is bounded here. Each type
 * declares the terms its house consents to and their default limits
 * (kd_episode_type.house_terms: start chips, the largest bet, rounds, the
 * time to reveal); the operator may set others:
 *
 *   --house-limit TERM=MAX             every type with that term: at most MAX
 *   --house-limit TYPE.TERM=MIN..MAX   that type only: MIN to MAX (a least
 *                                      time to reveal, for one)
 *
 * Before the house signs, the creation's effective params (what the type's
 * resolve_params makes of them: the episode as the engine will create it,
 * every default named) are read through the type's params message
 * (params_message, handlers/proto_json.h: no game known here), and every
 * term, at its field, is held to its limits; a creation outside them is
 * refused with a sentence naming the term, the value and the limit. Only
 * the house's consent is bounded: a session granted a key consents for it
 * to whatever it asks.
 *
 * The limits are fixed at open and only read afterwards (any thread).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handlers/proto_json.h"
#include "mcp/gateway/gateway_int.h"

/* The index of `name` among t's house terms, or -1. */
static int term_index(const kd_episode_type *t, const char *name, size_t len)
{
    for (int i = 0; t->house_terms && t->house_terms[i].name; i++)
        if (strlen(t->house_terms[i].name) == len && memcmp(t->house_terms[i].name, name, len) == 0)
            return i;
    return -1;
}

/* Every type's terms, "TYPE: TERM, TERM; TYPE: ...", into `out`. */
static void terms_list(const kd_type_table *types, char *out, size_t len)
{
    size_t at = 0;
    out[0] = '\0';
    for (size_t i = 0; i < types->count && at < len; i++) {
        const kd_episode_type *t = types->entries[i].type;
        if (!t->house_terms || !t->house_terms[0].name)
            continue;
        at += (size_t)snprintf(out + at, len - at, "%s%s:", at ? "; " : "", t->ops->type_name);
        for (int k = 0; t->house_terms[k].name && at < len; k++)
            at += (size_t)snprintf(out + at, len - at, "%s %s", k ? "," : "", t->house_terms[k].name);
    }
}

/* A whole number 0..UINT32_MAX of exactly `len` digits. */
static int parse_u32(const char *text, size_t len, uint32_t *out)
{
    char buf[16];
    if (len == 0 || len >= sizeof buf)
        return -1;
    memcpy(buf, text, len);
    buf[len] = '\0';
    for (size_t i = 0; i < len; i++)
        if (buf[i] < '0' || buf[i] > '9')
            return -1;
    errno = 0;
    unsigned long long v = strtoull(buf, NULL, 10);
    if (errno || v > UINT32_MAX)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

/* Applies one --house-limit spec: [TYPE.]NAME=MAX or [TYPE.]NAME=MIN..MAX. */
static kd_err apply_limit(const kd_type_table *types, kd_gw_limits *out, const char *spec, char *why, size_t why_len)
{
    const char *eq = strchr(spec, '=');
    const char *dot = eq ? memchr(spec, '.', (size_t)(eq - spec)) : NULL;
    const char *name = dot ? dot + 1 : spec;
    const char *range = eq ? strstr(eq + 1, "..") : NULL;
    uint32_t lo = 0, hi = 0;
    int has_lo = range != NULL;
    if (!eq || eq == name ||
        (range ? parse_u32(eq + 1, (size_t)(range - eq - 1), &lo) || parse_u32(range + 2, strlen(range + 2), &hi)
               : parse_u32(eq + 1, strlen(eq + 1), &hi))) {
        snprintf(why, why_len,
                 "house limit '%.80s' is not NAME=MAX or NAME=MIN..MAX: [TYPE.]TERM and whole numbers (kdapp://types "
                 "lists each type's house_terms)",
                 spec);
        return KD_ERR_INVALID_ARG;
    }
    if (has_lo && lo > hi) {
        snprintf(why, why_len, "house limit '%.80s': the least value %u is above the largest %u", spec, lo, hi);
        return KD_ERR_INVALID_ARG;
    }
    size_t matched = 0;
    for (size_t i = 0; i < types->count; i++) {
        const kd_episode_type *t = types->entries[i].type;
        if (dot && (strlen(t->ops->type_name) != (size_t)(dot - spec) ||
                    memcmp(t->ops->type_name, spec, (size_t)(dot - spec)) != 0))
            continue;
        int k = term_index(t, name, (size_t)(eq - name));
        if (k < 0)
            continue;
        if (has_lo)
            out->min[i][k] = lo;
        out->max[i][k] = hi;
        matched++;
    }
    if (!matched) {
        char list[600];
        terms_list(types, list, sizeof list);
        snprintf(why, why_len, "house limit '%.80s': %s (the house's terms: %s)", spec,
                 dot ? "that type's house has no such term" : "no type's house has a term of that name",
                 list[0] ? list : "none: no type has a house");
        return KD_ERR_INVALID_ARG;
    }
    return KD_OK;
}

kd_err kd_gw_limits_make(const kd_type_table *types, const char *house, const char *const *limits, size_t n,
                         kd_gw_limits *out, char *why, size_t why_len)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < types->count && i < KD_TYPES_MAX; i++) {
        const kd_episode_type *t = types->entries[i].type;
        for (int k = 0; t->house_terms && t->house_terms[k].name && k < KD_HOUSE_TERMS_MAX; k++) {
            out->min[i][k] = t->house_terms[k].min;
            out->max[i][k] = t->house_terms[k].max;
        }
    }
    if (n && !house) {
        snprintf(why, why_len, "a house limit (--house-limit) bounds the house's consent: it needs a house (--house)");
        return KD_ERR_INVALID_ARG;
    }
    for (size_t j = 0; j < n; j++) {
        kd_err err = apply_limit(types, out, limits[j], why, why_len);
        if (err)
            return err;
    }
    return KD_OK;
}

kd_err kd_gateway_house_limits_check(const kd_type_table *types, const char *house, const char *const *limits, size_t n,
                                     char *why, size_t why_len)
{
    kd_type_table builtin;
    if (!types) {
        kd_type_table_init(&builtin);
        types = &builtin;
    }
    kd_gw_limits scratch;
    return kd_gw_limits_make(types, house, limits, n, &scratch, why, why_len);
}

/* The index of `t` in the gateway's table. */
static size_t type_index(const kd_gateway *gw, const kd_episode_type *t)
{
    size_t i = 0;
    while (i < gw->types->count && gw->types->entries[i].type != t)
        i++;
    return i;
}

/* The whole number at term `k`'s field of the params `j` (JSON of the
 * params message); 0 when it is not there. */
static int term_value(const kd_house_term *term, const json_t *j, uint32_t *out)
{
    const char *path = term->field ? term->field : term->name;
    while (j && *path) {
        const char *dot = strchr(path, '.');
        size_t n = dot ? (size_t)(dot - path) : strlen(path);
        char key[64];
        if (n >= sizeof key)
            return 0;
        memcpy(key, path, n);
        key[n] = '\0';
        j = json_object_get(j, key);
        path += dot ? n + 1 : n;
    }
    if (!json_is_integer(j) || json_integer_value(j) < 0 || json_integer_value(j) > UINT32_MAX)
        return 0;
    *out = (uint32_t)json_integer_value(j);
    return 1;
}

kd_err kd_gw_terms_check(const kd_gateway *gw, const kd_episode_type *t, const kd_buf *params, char *why,
                         size_t why_len)
{
    size_t i = type_index(gw, t);
    if (i == gw->types->count || !t->house_terms)
        return KD_OK; /* a type without terms: nothing the house stakes */
    kd_buf effective;
    kd_buf_init(&effective);
    kd_reject rej = {{0}, {0}};
    kd_err err = t->ops->resolve_params(kd_type_table_config(gw->types, t->ops->type_name), params->data, params->len,
                                        &effective, &rej);
    json_t *j = !err && t->params_message ? kd_proto_json(t->params_message, effective.data, effective.len) : NULL;
    kd_buf_fini(&effective);
    if (err) {
        snprintf(why, why_len, "params of %s: %s", t->ops->type_name, rej.detail[0] ? rej.detail : kd_err_str(err));
        return err;
    }
    for (int k = 0; t->house_terms[k].name && k < KD_HOUSE_TERMS_MAX && !err; k++) {
        const kd_house_term *term = &t->house_terms[k];
        uint32_t v = 0, lo = gw->limits.min[i][k], hi = gw->limits.max[i][k];
        if (!term_value(term, j, &v)) {
            snprintf(why, why_len, "the house cannot read the term %s of %s in its params: it consents to nothing",
                     term->name, t->ops->type_name);
            err = j ? KD_ERR_INTERNAL : KD_ERR_NOMEM;
        } else if (v < lo || v > hi) {
            snprintf(why, why_len,
                     "the house consents to %s only with %s from %u to %u (%s: its operator's limit), and this "
                     "creation asks for %s %u: ask within the limit (kdapp://types lists the house's terms)",
                     t->ops->type_name, term->name, lo, hi, term->meaning, term->name, v);
            err = KD_ERR_DENIED;
        }
    }
    json_decref(j);
    return err;
}

json_t *kd_gw_terms_json(const kd_gateway *gw, const kd_episode_type *t)
{
    size_t i = type_index(gw, t);
    json_t *a = json_array();
    for (int k = 0; a && i < gw->types->count && t->house_terms && t->house_terms[k].name && k < KD_HOUSE_TERMS_MAX;
         k++)
        if (json_array_append_new(a, json_pack("{s:s, s:s, s:I, s:I}", "name", t->house_terms[k].name, "meaning",
                                               t->house_terms[k].meaning, "min", (json_int_t)gw->limits.min[i][k],
                                               "max", (json_int_t)gw->limits.max[i][k])))
            a = (json_decref(a), NULL);
    return a;
}
