/*
 * schema.c — the JSON Schema subset behind tools/call argument checks.
 *
 * Recursive over properties and items with an explicit depth bound, so a
 * hostile schema or value cannot exhaust the stack. The JSON pointer of the
 * current value is built in a fixed buffer as the walk descends.
 */
#include "mcp/server/schema.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define MAX_DEPTH 16

typedef struct {
    char path[256];
    char *why;
    size_t why_len;
} walk;

static const char *type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return "object";
    case JSON_ARRAY:
        return "array";
    case JSON_STRING:
        return "string";
    case JSON_INTEGER:
        return "integer";
    case JSON_REAL:
        return "number";
    case JSON_TRUE:
    case JSON_FALSE:
        return "boolean";
    case JSON_NULL:
        return "null";
    }
    return "unknown";
}

/* A number as its JSON text: an integer whole (8640000, not %g's
 * 8.64e+06, which hides the limit a message names). */
static void number_text(const json_t *v, char *out, size_t len)
{
    if (json_is_integer(v))
        snprintf(out, len, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    else
        snprintf(out, len, "%g", json_real_value(v));
}

static int is_type(const json_t *v, const char *t)
{
    if (strcmp(t, "object") == 0)
        return json_is_object(v);
    if (strcmp(t, "array") == 0)
        return json_is_array(v);
    if (strcmp(t, "string") == 0)
        return json_is_string(v);
    if (strcmp(t, "boolean") == 0)
        return json_is_boolean(v);
    if (strcmp(t, "null") == 0)
        return json_is_null(v);
    if (strcmp(t, "number") == 0)
        return json_is_number(v);
    if (strcmp(t, "integer") == 0) {
        double d;

        if (json_is_integer(v))
            return 1;
        if (!json_is_real(v))
            return 0;
        d = json_real_value(v);
        return isfinite(d) && floor(d) == d; /* 2020-12: 1.0 is an integer */
    }
    return 1; /* unknown type names constrain nothing */
}

static int fail(walk *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(walk *w, const char *fmt, ...)
{
    char msg[160];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(w->why, w->why_len, "argument %s: %s", w->path[0] ? w->path : "(root)", msg);
    return 0;
}

static int check_type(walk *w, const json_t *schema, const json_t *v)
{
    const json_t *t = json_object_get(schema, "type");
    size_t i;
    const json_t *e;

    if (json_is_string(t)) {
        if (!is_type(v, json_string_value(t)))
            return fail(w, "expected %s, got %s", json_string_value(t), type_name(v));
        return 1;
    }
    if (json_is_array(t) && json_array_size(t) > 0) {
        json_array_foreach(t, i, e)
        {
            if (json_is_string(e) && is_type(v, json_string_value(e)))
                return 1;
        }
        return fail(w, "has type %s, which the schema does not allow", type_name(v));
    }
    return 1;
}

static double num(const json_t *v) { return json_is_integer(v) ? (double)json_integer_value(v) : json_real_value(v); }

static int check(walk *w, const json_t *schema, const json_t *v, int depth);

static int check_object(walk *w, const json_t *schema, const json_t *v, int depth)
{
    const json_t *req = json_object_get(schema, "required");
    const json_t *props = json_object_get(schema, "properties");
    const json_t *addl = json_object_get(schema, "additionalProperties");
    size_t i, base = strlen(w->path);
    const char *key;
    const json_t *e, *sub;
    int ok = 1;

    json_array_foreach(req, i, e)
    {
        if (json_is_string(e) && json_object_get(v, json_string_value(e)) == NULL)
            return fail(w, "missing required property \"%s\"", json_string_value(e));
    }
    json_object_foreach((json_t *)v, key, e)
    {
        sub = json_is_object(props) ? json_object_get(props, key) : NULL;
        snprintf(w->path + base, sizeof w->path - base, "/%s", key);
        if (sub != NULL)
            ok = check(w, sub, e, depth + 1);
        else if (json_is_false(addl)) {
            w->path[base] = '\0';
            ok = fail(w, "unknown property \"%s\"", key);
        } else if (json_is_object(addl))
            ok = check(w, addl, e, depth + 1);
        if (!ok)
            return 0;
        w->path[base] = '\0';
    }
    return 1;
}

static int check_array(walk *w, const json_t *schema, const json_t *v, int depth)
{
    const json_t *items = json_object_get(schema, "items");
    const json_t *mn = json_object_get(schema, "minItems"), *mx = json_object_get(schema, "maxItems");
    size_t i, base = strlen(w->path);
    const json_t *e;
    char n[32];

    snprintf(n, sizeof n, "%zu", json_array_size(v));
    if (json_is_integer(mn) && (json_int_t)json_array_size(v) < json_integer_value(mn))
        return fail(w, "has %s items, fewer than the minimum", n);
    if (json_is_integer(mx) && (json_int_t)json_array_size(v) > json_integer_value(mx))
        return fail(w, "has %s items, more than the maximum", n);
    if (!json_is_object(items))
        return 1;
    json_array_foreach(v, i, e)
    {
        snprintf(w->path + base, sizeof w->path - base, "/%zu", i);
        if (!check(w, items, e, depth + 1))
            return 0;
        w->path[base] = '\0';
    }
    return 1;
}

static int check(walk *w, const json_t *schema, const json_t *v, int depth)
{
    const json_t *en, *c, *mn, *mx, *e;
    size_t i;
    char a[48], b[48];

    if (!json_is_object(schema) || depth > MAX_DEPTH)
        return 1;
    if (!check_type(w, schema, v))
        return 0;
    c = json_object_get(schema, "const");
    if (c != NULL && !json_equal((json_t *)c, (json_t *)v))
        return fail(w, "does not have the required constant value");
    en = json_object_get(schema, "enum");
    if (json_is_array(en)) {
        int found = 0;

        json_array_foreach(en, i, e)
        {
            if (json_equal((json_t *)e, (json_t *)v)) {
                found = 1;
                break;
            }
        }
        if (!found)
            return fail(w, "is not one of the allowed values");
    }
    if (json_is_number(v)) {
        mn = json_object_get(schema, "minimum");
        mx = json_object_get(schema, "maximum");
        number_text(v, a, sizeof a);
        if (json_is_number(mn) && num(v) < num(mn)) {
            number_text(mn, b, sizeof b);
            return fail(w, "%s is below the minimum %s", a, b);
        }
        if (json_is_number(mx) && num(v) > num(mx)) {
            number_text(mx, b, sizeof b);
            return fail(w, "%s is above the maximum %s", a, b);
        }
    }
    if (json_is_string(v)) {
        mn = json_object_get(schema, "minLength");
        mx = json_object_get(schema, "maxLength");
        /* Lengths in bytes: a conservative stand-in for code points. */
        if (json_is_integer(mn) && (json_int_t)json_string_length(v) < json_integer_value(mn))
            return fail(w, "is shorter than the minimum length");
        if (json_is_integer(mx) && (json_int_t)json_string_length(v) > json_integer_value(mx))
            return fail(w, "is longer than the maximum length");
    }
    if (json_is_object(v))
        return check_object(w, schema, v, depth);
    if (json_is_array(v))
        return check_array(w, schema, v, depth);
    return 1;
}

int kd_mcp_schema_check(const json_t *schema, const json_t *value, char *why, size_t why_len)
{
    walk w;
    char dummy[1];

    memset(&w, 0, sizeof w);
    w.why = why != NULL && why_len > 0 ? why : dummy;
    w.why_len = why != NULL && why_len > 0 ? why_len : sizeof dummy;
    w.why[0] = '\0';
    return check(&w, schema, value, 0);
}
