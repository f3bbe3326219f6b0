/*
 * gateway_types.c — what the gateway knows of episode types, all of it
 * from the kd_type_table it was given: the types' parsed JSON Schemas, the
 * kdapp://types document, the sentences and input schemas of the tools
 * (built at registration, so no game is named in the gateway's code), the
 * params of a start call, the seat checks and legal moves as JSON.
 *
 *   kd_type_table ──► kd_gw_types_open: parse each params/command schema
 *        │                 │
 *        │                 ├─► kdapp://types          (kd_gw_types_json)
 *        │                 ├─► tool inputSchemas      (kd_gw_start_schema, kd_gw_execute_schema)
 *        │                 └─► argument checks        (kd_gw_check_json)
 *        └──► legal_moves + command_to_json ──► kd_gw_moves_json
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/gateway/gateway_int.h"
#include "mcp/server/schema.h"

/* The start tool's own arguments; any other top-level argument is a member
 * of params (kd_gw_start_params). */
static const char *const start_args[] = {"type", "participants", "params", "episode_id", "join_timeout", NULL};

/* ------------------------------------------------------------- lifecycle */

static kd_err parse_schema(const kd_episode_type *t, const char *what, const char *text, json_t **out, char *why,
                           size_t why_len)
{
    json_error_t jerr;
    *out = json_loads(text, 0, &jerr);
    if (*out && json_is_object(*out))
        return KD_OK;
    kd_reject_write(why, why_len, "type %s: its %s is not a JSON object (%s)", t->ops->type_name, what,
                    *out ? "another JSON value" : jerr.text);
    json_decref(*out);
    *out = NULL;
    return KD_ERR_PARSE;
}

kd_err kd_gw_types_open(kd_gateway *gw, const kd_type_table *types, char *why, size_t why_len)
{
    if (types) {
        gw->types = types;
    } else {
        kd_type_table_init(&gw->own_types);
        gw->types = &gw->own_types;
    }
    if (gw->types->count == 0) {
        kd_reject_write(why, why_len, "the gateway was given no episode type");
        return KD_ERR_INVALID_ARG;
    }
    for (size_t i = 0; i < gw->types->count; i++) {
        const kd_episode_type *t = gw->types->entries[i].type;
        kd_err err = parse_schema(t, "params_schema", t->params_schema, &gw->params_schema[i], why, why_len);
        if (!err)
            err = parse_schema(t, "command_schema", t->command_schema, &gw->command_schema[i], why, why_len);
        if (err) {
            kd_gw_types_close(gw);
            return err;
        }
    }
    return KD_OK;
}

void kd_gw_types_close(kd_gateway *gw)
{
    for (size_t i = 0; i < KD_TYPES_MAX; i++) {
        json_decref(gw->params_schema[i]);
        json_decref(gw->command_schema[i]);
        gw->params_schema[i] = gw->command_schema[i] = NULL;
    }
}

/* ------------------------------------------------------------- lookups */

const kd_episode_type *kd_gw_type(const kd_gateway *gw, const char *name)
{
    if (!name)
        return gw->types->entries[0].type;
    return kd_type_table_find(gw->types, name);
}

/* The index of `t` in the table, or -1. */
static int type_index(const kd_gateway *gw, const kd_episode_type *t)
{
    for (size_t i = 0; i < gw->types->count; i++)
        if (gw->types->entries[i].type == t)
            return (int)i;
    return -1;
}

const json_t *kd_gw_type_schema(const kd_gateway *gw, const kd_episode_type *t, int command)
{
    int i = type_index(gw, t);
    if (i < 0)
        return NULL;
    return command ? gw->command_schema[i] : gw->params_schema[i];
}

size_t kd_gw_max_min_seats(const kd_gateway *gw)
{
    size_t n = 0;
    for (size_t i = 0; i < gw->types->count; i++)
        if (gw->types->entries[i].type->min_seats > n)
            n = gw->types->entries[i].type->min_seats;
    return n;
}

/* ------------------------------------------------------------- sentences */

/* "2 seats (X, O)" or "2 to 4 seats (A, B, C, D)". */
static kd_err seats_text(const kd_episode_type *t, kd_buf *b)
{
    kd_err err = t->min_seats == t->max_seats
                     ? kd_buf_appendf(b, "%zu seat%s (", t->min_seats, t->min_seats == 1 ? "" : "s")
                     : kd_buf_appendf(b, "%zu to %zu seats (", t->min_seats, t->max_seats);
    for (size_t i = 0; !err && i < t->max_seats; i++)
        err = kd_buf_appendf(b, "%s%s", i ? ", " : "", t->seat_names[i]);
    return err ? err : kd_buf_appendf(b, ")");
}

kd_err kd_gw_seats_sentence(const kd_episode_type *t, char *out, size_t len)
{
    kd_buf b;
    kd_buf_init(&b);
    kd_err err = seats_text(t, &b);
    if (!err)
        err = kd_buf_append(&b, "", 1);
    if (!err)
        snprintf(out, len, "%s", (const char *)b.data);
    kd_buf_fini(&b);
    return err;
}

/* "<name>: <title>, 2 seats (A, B)." for every type. */
static kd_err types_text(const kd_gateway *gw, kd_buf *b)
{
    kd_err err = KD_OK;
    for (size_t i = 0; !err && i < gw->types->count; i++) {
        const kd_episode_type *t = gw->types->entries[i].type;
        err = kd_buf_appendf(b, "%s%s: %s, ", i ? " " : "", t->ops->type_name, t->title);
        if (!err)
            err = seats_text(t, b);
        if (!err)
            err = kd_buf_appendf(b, ".");
    }
    return err;
}

/* The buffer's text, NUL-terminated, handed over (malloc'ed); NULL on error. */
static char *take_text(kd_buf *b, kd_err err)
{
    if (!err)
        err = kd_buf_append(b, "", 1);
    if (err) {
        kd_buf_fini(b);
        return NULL;
    }
    return (char *)b->data;
}

char *kd_gw_start_description(const kd_gateway *gw)
{
    kd_buf b;
    kd_buf_init(&b);
    kd_err err = kd_buf_appendf(
        &b,
        "Creates an episode on the chain and returns its id and view once the block carrying it is applied. "
        "`type` is one of the registered episode types (default %s): ",
        kd_gw_type(gw, NULL)->ops->type_name);
    if (!err)
        err = types_text(gw, &b);
    if (!err)
        err = kd_buf_appendf(
            &b, " `params` are the type's creation parameters (the resource kdapp://types has each "
                "type's params_schema, command_schema and rules); any other argument is taken as a member "
                "of params, so {\"a\": 1} means {\"params\": {\"a\": 1}}. `participants` fill the seats in "
                "order; without them the gateway's agent keys agent1, agent2, ... take the type's minimum "
                "number of seats. \"open\" in `participants` leaves that seat to a stranger: the answer is "
                "a table (kdapp_list_tables), not yet an episode, and `join_timeout` (DAA score) bounds its wait.");
    return take_text(&b, err);
}

kd_err kd_gw_fill_entropy(const kd_gateway *gw, const kd_episode_type *t, const json_t *command, json_t **filled)
{
    *filled = NULL;
    const json_t *schema = kd_gw_type_schema(gw, t, 1);
    if (!json_is_object(command) || !json_object_get(json_object_get(schema, "properties"), "entropy") ||
        json_object_get(command, "entropy"))
        return KD_OK;
    unsigned char rnd[32];
    char hex[2 * sizeof rnd + 1];
    if (kd_random_bytes(rnd, sizeof rnd) != KD_OK)
        return KD_ERR_IO;
    kd_hex_encode(rnd, sizeof rnd, hex);
    json_t *copy = json_copy((json_t *)command);
    if (!copy || json_object_set_new(copy, "entropy", json_string(hex)) != 0) {
        json_decref(copy);
        return KD_ERR_NOMEM;
    }
    *filled = copy;
    return KD_OK;
}

char *kd_gw_execute_description(const kd_gateway *gw)
{
    (void)gw;
    kd_buf b;
    kd_buf_init(&b);
    kd_err err = kd_buf_appendf(
        &b, "Submits a command in the episode type's command JSON (kdapp://types: command_schema; kdapp_legal_moves "
            "lists the legal ones) and answers after the block carrying it is applied: {legal: true, view} or, for "
            "a command the rules refuse, an error result {legal: false, error, error_code (the type's rule code), "
            "legal_moves, view} with the unchanged view. The command is signed server-side by `signer` (a key "
            "name), by the gateway's key of the seat to move when no signer is given, or carries the client's "
            "pubkey and signature (hex) over the digest documented in the README. Entropy: when the type's "
            "command schema has an \"entropy\" member (a game of chance) and the command leaves it out, the "
            "gateway fills it with 32 fresh bytes from a CSPRNG before signing server-side (a presigned command "
            "carries its own).");
    return take_text(&b, err);
}

/* ------------------------------------------------------------- schemas */

static json_t *names_json(const kd_gateway *gw)
{
    json_t *names = json_array();
    for (size_t i = 0; names && i < gw->types->count; i++)
        json_array_append_new(names, json_string(gw->types->entries[i].type->ops->type_name));
    return names;
}

/* {"anyOf": [every type's schema]} members added to `prop`. */
static void add_any_of(const kd_gateway *gw, json_t *prop, int command)
{
    json_t *any = json_array();
    for (size_t i = 0; any && i < gw->types->count; i++)
        json_array_append(any, command ? gw->command_schema[i] : gw->params_schema[i]);
    json_object_set_new(prop, "anyOf", any);
}

static char *dump(json_t *j)
{
    char *text = j ? json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(j);
    return text;
}

static json_t *episode_id_schema(const char *description)
{
    return json_pack("{s:s, s:i, s:I, s:s}", "type", "integer", "minimum", 1, "maximum", (json_int_t)UINT32_MAX,
                     "description", description);
}

char *kd_gw_start_schema(const kd_gateway *gw)
{
    kd_buf types;
    kd_buf_init(&types);
    char *types_desc = take_text(&types, types_text(gw, &types));
    char type_desc[256];
    snprintf(type_desc, sizeof type_desc, "The episode type (default %s). ", kd_gw_type(gw, NULL)->ops->type_name);
    json_t *params = json_pack("{s:s, s:s}", "type", "object", "description",
                               "The type's creation parameters (kdapp://types: params_schema); {} or absent: the "
                               "engine's defaults. Any other top-level argument is taken as a member of params.");
    if (params)
        add_any_of(gw, params, 0);
    json_t *j = json_pack(
        "{s:s, s:{s:{s:s, s:o, s:s+}, s:{s:s, s:{s:s}, s:i, s:s}, s:o, s:o}}", "type", "object", "properties", "type",
        "type", "string", "enum", names_json(gw), "description", type_desc, types_desc ? types_desc : "",
        "participants", "type", "array", "items", "type", "string", "maxItems", KD_MAX_PARTICIPANTS, "description",
        "One per seat, in seat order: key names, test:NAME, or 66-hex public keys, or \"open\" for a seat a "
        "stranger takes with kdapp_join_episode (a table, kdapp_list_tables). Absent: the gateway's agent keys "
        "agent1, agent2, ... for the type's minimum number of seats.",
        "params", params, "episode_id", episode_id_schema("The new episode's id (default: a free random one)."));
    char timeout_desc[300];
    snprintf(timeout_desc, sizeof timeout_desc,
             "With \"open\" seats only: the DAA score the table waits for its joiners after its creation's block, "
             "1 to %u (default %u); then it closes, unfilled.",
             KD_TABLE_TIMEOUT_MAX, KD_TABLE_TIMEOUT_DEFAULT);
    if (j && json_object_set_new(json_object_get(j, "properties"), "join_timeout",
                                 json_pack("{s:s, s:i, s:I, s:s}", "type", "integer", "minimum", 1, "maximum",
                                           (json_int_t)KD_TABLE_TIMEOUT_MAX, "description", timeout_desc)) != 0)
        j = (json_decref(j), NULL);
    free(types_desc);
    return dump(j);
}

char *kd_gw_execute_schema(const kd_gateway *gw)
{
    json_t *command = json_pack("{s:s, s:s}", "type", "object", "description",
                                "The command in the episode type's JSON (kdapp://types: command_schema); "
                                "kdapp_legal_moves lists the legal ones with their command JSON.");
    if (command)
        add_any_of(gw, command, 1);
    json_t *j = json_pack(
        "{s:s, s:{s:o, s:o, s:{s:s, s:s}, s:{s:s, s:s}, s:{s:s, s:s}}, s:[s, s]}", "type", "object", "properties",
        "episode_id", episode_id_schema("The episode's id (kdapp_list_episodes lists them)."), "command", command,
        "signer", "type", "string", "description",
        "A key name or test:NAME to sign with (default: the seat to move's key)", "pubkey", "type", "string",
        "description", "A client-signed command: the signer's 66-hex compressed public key", "signature", "type",
        "string", "description", "A client-signed command: the hex signature (64 bytes compact or DER)", "required",
        "episode_id", "command");
    return dump(j);
}

/* ------------------------------------------------------------- kdapp://types */

static json_t *type_json(const kd_gateway *gw, size_t i)
{
    const kd_episode_type *t = gw->types->entries[i].type;
    json_t *seats = json_array(), *codes = json_array(), *env = json_array();
    for (size_t s = 0; seats && s < t->max_seats; s++)
        json_array_append_new(seats, json_string(t->seat_names[s]));
    for (const kd_rule_code *c = t->rule_codes; codes && c->code; c++)
        json_array_append_new(codes, json_pack("{s:s, s:s}", "code", c->code, "meaning", c->meaning ? c->meaning : ""));
    for (const char *const *e = t->env_names; env && e && *e; e++)
        json_array_append_new(env, json_string(*e));
    /* copies: the parsed schemas are shared by every session's thread, and
     * taking a reference would write their reference count */
    json_t *j = json_pack("{s:s, s:s, s:s, s:{s:o, s:I, s:I}, s:o, s:o, s:o, s:o}", "name", t->ops->type_name, "title",
                          t->title, "summary", t->summary ? t->summary : "", "seats", "names", seats, "min",
                          (json_int_t)t->min_seats, "max", (json_int_t)t->max_seats, "params_schema",
                          json_deep_copy(gw->params_schema[i]), "command_schema", json_deep_copy(gw->command_schema[i]),
                          "rule_codes", codes, "env", env);
    /* what the house this gateway plays consents to (gateway_terms.c) */
    if (j && gw->house && t->house_terms && json_object_set_new(j, "house_terms", kd_gw_terms_json(gw, t)))
        j = (json_decref(j), NULL);
    return j;
}

json_t *kd_gw_types_json(const kd_gateway *gw)
{
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < gw->types->count; i++) {
        json_t *t = type_json(gw, i);
        if (!t || json_array_append_new(arr, t) != 0) {
            json_decref(arr);
            return NULL;
        }
    }
    return json_pack("{s:s, s:o}", "default", kd_gw_type(gw, NULL)->ops->type_name, "types", arr);
}

/* ------------------------------------------------------------- arguments */

json_t *kd_gw_start_params(json_t *args, char *why, size_t why_len)
{
    json_t *given = json_object_get(args, "params");
    if (given && !json_is_object(given) && !json_is_null(given)) {
        kd_reject_write(why, why_len, "params must be an object (kdapp://types: params_schema)");
        return NULL;
    }
    json_t *params = given && json_is_object(given) ? json_deep_copy(given) : json_object();
    const char *key;
    json_t *value;
    json_object_foreach(args, key, value)
    {
        int own = 0;
        for (const char *const *a = start_args; *a && !own; a++)
            own = strcmp(*a, key) == 0;
        if (own || !params)
            continue;
        if (json_object_get(params, key)) {
            kd_reject_write(why, why_len, "%s is given twice: as an argument and in params", key);
            json_decref(params);
            return NULL;
        }
        json_object_set(params, key, value);
    }
    if (!params)
        kd_reject_write(why, why_len, "out of memory");
    return params;
}

int kd_gw_check_json(const json_t *schema, const json_t *value, const char *what, char *why, size_t why_len)
{
    char reason[300];
    if (kd_mcp_schema_check(schema, value, reason, sizeof reason))
        return 1;
    /* "argument /row: expected ..." or "argument (root): ..." (schema.h) */
    const char *rest = reason;
    if (strncmp(rest, "argument ", 9) == 0)
        rest += 9;
    if (strncmp(rest, "(root)", 6) == 0)
        rest += 6;
    kd_reject_write(why, why_len, "%s%s", what, rest);
    return 0;
}

kd_err kd_gw_check_seats(const kd_episode_type *t, size_t n, char *why, size_t why_len)
{
    if (n >= t->min_seats && n <= t->max_seats)
        return KD_OK;
    char seats[256];
    if (kd_gw_seats_sentence(t, seats, sizeof seats) != KD_OK)
        seats[0] = '\0';
    kd_reject_write(why, why_len, "%s (%s) takes %s, one participant per seat in order, got %zu participant%s",
                    t->ops->type_name, t->title, seats, n, n == 1 ? "" : "s");
    return KD_ERR_BAD_PARTICIPANTS;
}

/* ------------------------------------------------------------- moves */

json_t *kd_gw_seat_json(const kd_episode_type *t, int seat)
{
    if (seat < 0 || (size_t)seat >= t->max_seats)
        return json_null();
    return json_pack("{s:i, s:s}", "seat", seat, "name", t->seat_names[seat]);
}

/* Copies the members of `from` that `into` lacks. */
static void merge_missing(json_t *into, json_t *from)
{
    const char *key;
    json_t *value;
    json_object_foreach(from, key, value)
    {
        if (!json_object_get(into, key))
            json_object_set(into, key, value);
    }
}

json_t *kd_gw_moves_json(const kd_episode_type *t, const kd_legal_moves *list, int seat, int over, kd_buf *text)
{
    json_t *moves = json_array();
    kd_err err = moves ? KD_OK : KD_ERR_NOMEM;
    if (!err && text)
        err = kd_buf_appendf(text, "legal moves for %s:", kd_episode_type_seat_name(t, seat));
    for (size_t i = 0; !err && i < list->count; i++) {
        const kd_legal_move *m = &list->moves[i];
        json_t *cmd = t->command_to_json(m->command, m->command_len);
        json_t *item = cmd ? json_pack("{s:O, s:s}", "command", cmd, "notation", m->notation) : NULL;
        /* today's clients read the command's members (row, col) from the move itself */
        if (item)
            merge_missing(item, cmd);
        json_decref(cmd);
        if (!item || json_array_append_new(moves, item) != 0)
            err = KD_ERR_NOMEM;
        if (!err && text)
            err = kd_buf_appendf(text, " %s", m->notation);
    }
    if (!err && text && list->count == 0)
        err = kd_buf_appendf(text, over ? " none (the game is over)" : " none");
    if (err) {
        json_decref(moves);
        return NULL;
    }
    return moves;
}
