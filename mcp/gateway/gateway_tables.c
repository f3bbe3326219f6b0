/*
 * gateway_tables.c — open tables through MCP (issue 39, engine/table.h):
 * kdapp_list_tables and the resource kdapp://tables (the tables still
 * waiting for strangers: who sits where, which seats are open, the
 * deadline), kdapp_join_episode (a key of the session's grant takes an
 * open seat with its own commitment, signed by that key) and
 * kdapp_cancel_table (the creator's, before anyone joined).
 *
 * A joiner's commitment is made here as at a creation (kd_seat_commit
 * from the key and this gateway's store, through the type table), and
 * encoded as the seat's part of the params: the fields the commitment set,
 * written through the type's params message (generic: bytes as hex, whole
 * numbers). The duties thread then answers the joined seat as any seat it
 * holds a grant for: its binding is this key's for this store.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/wire.h"
#include "episodes/secrets.h"
#include "mcp/gateway/gateway_int.h"

#define MAX_TABLES 200

typedef struct {
    kd_gateway *gw;
    json_t *arr;
    kd_buf *text;
    uint32_t only; /* one table (0: every waiting one) */
    kd_table_info found;
    kd_buf *params; /* with `only`: the table's creation params, copied */
    int has;
    uint64_t tip_daa; /* the DAA score of the store's tip block (0: none) */
} walk;

static int open_seat(const kd_table_info *t, size_t s) { return !(t->taken & (UINT32_C(1) << s)); }

/* The DAA score of the tip block in `rd` (0 when the store has none): the
 * score of the accept that applied it. */
static uint64_t tip_daa(kd_read *rd)
{
    kd_tip tip;
    uint64_t seq, daa = 0;
    kd_log_change c = {0};
    if (kd_read_tip(rd, &tip) == KD_OK && tip.has_tip && kd_read_block_seq(rd, tip.hash, &seq) == KD_OK &&
        kd_read_log_change(rd, seq, &c) == KD_OK)
        daa = c.daa;
    kd_log_change_fini(&c);
    return daa;
}

/* A table past its deadline takes no join: the next block's DAA score is
 * above the tip's, so above deadline_daa once the tip reached it (a reorg
 * to a shorter chain may open it again). */
static int closed(const kd_table_info *t, uint64_t tip)
{
    return !t->started && !t->cancelled && tip >= t->deadline_daa;
}

static const char *table_status(const kd_table_info *t, uint64_t tip)
{
    return t->started ? "started" : t->cancelled ? "cancelled" : closed(t, tip) ? "closed" : "open";
}

json_t *kd_gw_table_json(kd_gateway *gw, const kd_table_info *t, uint64_t tip, kd_buf *text)
{
    const kd_episode_type *type = kd_gw_type(gw, t->type_name);
    json_t *seats = json_array();
    char line[400];
    int n = snprintf(line, sizeof line, "table %u (%s), deadline DAA %llu:", t->episode_id, t->type_name,
                     (unsigned long long)t->deadline_daa);
    for (size_t s = 0; seats && s < t->participants.count; s++) {
        char hex[2 * KD_PUBKEY_LEN + 1];
        kd_hex_encode(t->participants.keys[s].bytes, KD_PUBKEY_LEN, hex);
        const char *name = type ? kd_episode_type_seat_name(type, (int)s) : "";
        int open = open_seat(t, s);
        json_array_append_new(seats, json_pack("{s:i, s:s, s:o, s:b}", "seat", (json_int_t)s, "name", name, "key",
                                               open ? json_null() : json_string(hex), "open", open));
        if (n > 0 && (size_t)n < sizeof line)
            n += snprintf(line + n, sizeof line - (size_t)n, " %s %s", name, open ? "open" : hex);
    }
    if (text && n > 0 && (size_t)n < sizeof line - 1) {
        line[n++] = '\n';
        if (kd_buf_append(text, line, (size_t)n) != KD_OK) {
            json_decref(seats);
            return NULL;
        }
    }
    return seats ? json_pack("{s:i, s:s, s:s, s:o, s:I, s:I}", "episode_id", (json_int_t)t->episode_id, "type",
                             t->type_name, "status", table_status(t, tip), "seats", seats, "creation_daa",
                             (json_int_t)t->creation_daa, "deadline_daa", (json_int_t)t->deadline_daa)
                 : NULL;
}

static kd_err on_table(void *ctx, const kd_table_info *t)
{
    walk *w = ctx;
    if (w->only) {
        if (t->episode_id == w->only) {
            w->found = *t;
            w->found.params = NULL;
            w->has = 1;
            if (w->params && kd_buf_append(w->params, t->params, t->params_len) != KD_OK)
                return KD_ERR_NOMEM;
        }
        return KD_OK;
    }
    if (t->started || t->cancelled || closed(t, w->tip_daa) || json_array_size(w->arr) >= MAX_TABLES)
        return KD_OK;
    json_t *j = kd_gw_table_json(w->gw, t, w->tip_daa, w->text);
    return j && json_array_append_new(w->arr, j) == 0 ? KD_OK : KD_ERR_NOMEM;
}

/* The tables still waiting (not started, cancelled or past their
 * deadline), with `text` one line each when given, and the tip's DAA score
 * in *tip; NULL on an error. */
static json_t *waiting_tables(kd_gateway *gw, kd_buf *text, uint64_t *tip)
{
    walk w = {.gw = gw, .arr = json_array(), .text = text};
    kd_read *rd;
    if (!w.arr || kd_engine_read_begin(gw->o.engine, &rd) != KD_OK) {
        json_decref(w.arr);
        return NULL;
    }
    w.tip_daa = *tip = tip_daa(rd);
    kd_err err = kd_read_tables(rd, on_table, &w);
    kd_engine_read_end(rd);
    if (err) {
        json_decref(w.arr);
        return NULL;
    }
    return w.arr;
}

/* Table `id` as the store holds it (params not kept) and the tip's DAA
 * score in *tip (may be NULL); 0 when there is none. */
static int one_table(kd_gateway *gw, uint32_t id, kd_table_info *out, kd_buf *params, uint64_t *tip)
{
    walk w = {.gw = gw, .only = id, .params = params};
    kd_read *rd;
    if (kd_engine_read_begin(gw->o.engine, &rd) != KD_OK)
        return 0;
    if (tip)
        *tip = tip_daa(rd);
    kd_err err = kd_read_tables(rd, on_table, &w);
    kd_engine_read_end(rd);
    if (err || !w.has)
        return 0;
    *out = w.found;
    return 1;
}

json_t *kd_gw_tables_json(kd_gateway *gw)
{
    uint64_t tip;
    json_t *arr = waiting_tables(gw, NULL, &tip);
    return arr ? json_pack("{s:o, s:I}", "tables", arr, "tip_daa", (json_int_t)tip) : NULL;
}

json_t *kd_gw_table_result(kd_gateway *gw, uint32_t id)
{
    kd_table_info t;
    uint64_t tip;
    if (!one_table(gw, id, &t, NULL, &tip) || t.started || t.cancelled)
        return NULL;
    json_t *tj = kd_gw_table_json(gw, &t, tip, NULL);
    char text[200];
    snprintf(text, sizeof text,
             "table %u is open: it starts when every open seat is taken (kdapp_join_episode), and takes no join after "
             "DAA score %llu",
             id, (unsigned long long)t.deadline_daa);
    return tj ? kd_mcp_tool_result(json_pack("{s:i, s:o}", "episode_id", (json_int_t)id, "table", tj), text) : NULL;
}

/* kdapp_list_tables {episode_id}: that table whatever its status. */
static json_t *list_one_table(kd_gateway *gw, uint32_t id)
{
    kd_table_info t;
    uint64_t tip = 0;
    if (!one_table(gw, id, &t, NULL, &tip))
        return kd_gw_fail("there is no table %u (kdapp_list_tables lists the open ones)", id);
    kd_buf text;
    kd_buf_init(&text);
    json_t *tj = kd_gw_table_json(gw, &t, tip, &text);
    json_t *r =
        tj && kd_buf_append(&text, "", 1) == KD_OK
            ? kd_mcp_tool_result(json_pack("{s:[o], s:I}", "tables", tj, "tip_daa", (json_int_t)tip), (char *)text.data)
            : NULL;
    if (!r && tj)
        json_decref(tj);
    kd_buf_fini(&text);
    return r ? r : kd_gw_fail("cannot read table %u", id);
}

static json_t *tool_list_tables(void *ctx, kd_mcp_session *s, json_t *args, int *code, char *msg, size_t len)
{
    (void)s, (void)code, (void)msg, (void)len;
    kd_gateway *gw = ctx;
    json_t *jid = json_object_get(args, "episode_id");
    if (jid)
        return list_one_table(gw, (uint32_t)json_integer_value(jid));
    kd_buf text;
    kd_buf_init(&text);
    uint64_t tip = 0;
    json_t *arr = waiting_tables(gw, &text, &tip);
    static const char none[] = "no table is waiting for players\n";
    if (arr && json_array_size(arr) == 0 && kd_buf_append(&text, none, sizeof none - 1) != KD_OK) {
        json_decref(arr);
        arr = NULL;
    }
    json_t *r =
        arr && kd_buf_append(&text, "", 1) == KD_OK
            ? kd_mcp_tool_result(json_pack("{s:o, s:I}", "tables", arr, "tip_daa", (json_int_t)tip), (char *)text.data)
            : NULL;
    if (!r && arr)
        json_decref(arr);
    kd_buf_fini(&text);
    return r ? r : kd_gw_fail("cannot read the tables");
}

/* The length of the protobuf field at `p` (up to `end`), tag included; 0
 * when it does not parse. */
static size_t field_len(const uint8_t *p, const uint8_t *end)
{
    const uint8_t *q = p;
    uint64_t tag = 0, v = 0;
    for (int sh = 0; q < end && sh < 64; sh += 7) {
        tag |= (uint64_t)(*q & 0x7f) << sh;
        if (!(*q++ & 0x80))
            break;
    }
    switch (tag & 7) {
    case 0:
        while (q < end && (*q & 0x80))
            q++;
        return q < end ? (size_t)(q + 1 - p) : 0;
    case 1:
        return end - q >= 8 ? (size_t)(q + 8 - p) : 0;
    case 5:
        return end - q >= 4 ? (size_t)(q + 4 - p) : 0;
    case 2:
        for (int sh = 0; q < end && sh < 64; sh += 7) {
            v |= (uint64_t)(*q & 0x7f) << sh;
            if (!(*q++ & 0x80))
                break;
        }
        return (uint64_t)(end - q) >= v ? (size_t)(q + v - p) : 0;
    default:
        return 0;
    }
}

/* 1 when the field `f` (n bytes) occurs as such in `b`. */
static int has_field(const kd_buf *b, const uint8_t *f, size_t n)
{
    for (const uint8_t *p = b->data, *end = b->data + b->len; p < end;) {
        size_t m = field_len(p, end);
        if (!m)
            return 0;
        if (m == n && memcmp(p, f, n) == 0)
            return 1;
        p += m;
    }
    return 0;
}

/* The seat's part of the params (generic, through the type table): the
 * params with every seat's commitment in zeros, and again with this seat's
 * own; the part is the fields of the second the first lacks, which are
 * this seat's commitment alone. */
static kd_err seat_part(const kd_episode_type *t, const kd_gw_key *k, const uint8_t store_id[KD_STORE_ID_LEN],
                        uint32_t id, int seat, size_t seats, kd_buf *out, char *why, size_t why_len)
{
    json_t *zeros = json_object(), *mine = NULL;
    kd_buf b0, b1;
    kd_buf_init(&b0);
    kd_buf_init(&b1);
    kd_err err = zeros ? KD_OK : KD_ERR_NOMEM;
    for (size_t s = 0; !err && s < seats; s++)
        err = kd_gw_open_seat_placeholder(t, store_id, id, (int)s, zeros, why, why_len);
    if (!err && !(mine = json_deep_copy(zeros)))
        err = KD_ERR_NOMEM;
    if (!err && (err = kd_seat_commit(t, &k->key, store_id, id, seat, mine, why, why_len)) == KD_ERR_UNSUPPORTED)
        err = KD_OK;
    if (!err)
        err = t->params_from_json(zeros, &b0, why, why_len);
    if (!err)
        err = t->params_from_json(mine, &b1, why, why_len);
    for (const uint8_t *p = b1.data, *end = b1.data + b1.len; !err && p < end;) {
        size_t n = field_len(p, end);
        if (!n) {
            snprintf(why, why_len, "the params of %s do not parse", t->ops->type_name);
            err = KD_ERR_BAD_PARAMS;
        } else if (!has_field(&b0, p, n))
            err = kd_buf_append(out, p, n);
        p += n;
    }
    json_decref(zeros);
    json_decref(mine);
    kd_buf_fini(&b0);
    kd_buf_fini(&b1);
    return err;
}

/* The key of the session's grant a join or cancel uses: "signer" when
 * given (a name or hex key of the grant), else the grant's first key not
 * already at the table (a cancel: the creator's). */
static const kd_gw_key *acting_key(const kd_gw_grant *g, json_t *args, const kd_table_info *t, json_t **fail)
{
    const char *signer = json_string_value(json_object_get(args, "signer"));
    char held[400];
    kd_gw_grant_names(g, held, sizeof held);
    const kd_gw_key *k = NULL;
    if (signer) {
        k = kd_gw_grant_named(g, signer);
        kd_pubkey pub;
        if (!k && strlen(signer) == 2 * KD_PUBKEY_LEN && kd_hex_decode(signer, pub.bytes, KD_PUBKEY_LEN) == 0)
            k = kd_gw_grant_find(g, &pub);
        if (!k)
            *fail = kd_gw_fail("signer '%.100s': this session may not sign with that key (it is granted %.300s): a "
                               "session joins only with its own keys",
                               signer, held);
        return k;
    }
    for (size_t i = 0; g && i < g->n && !k; i++) {
        int seated = 0;
        for (size_t s = 0; s < t->participants.count; s++)
            seated |= memcmp(t->participants.keys[s].bytes, g->keys[i]->key.pub.bytes, KD_PUBKEY_LEN) == 0;
        k = seated ? NULL : g->keys[i];
    }
    if (!k)
        *fail = kd_gw_fail("this session holds no key that may sit at table %u (it is granted %s): a session joins "
                           "only with its own keys, one seat each",
                           t->episode_id, held);
    return k;
}

/* Submits `payload` for the session and answers with the table (and the
 * episode's view once it started). */
static json_t *send_table_payload(kd_gateway *gw, kd_mcp_session *s, const char *what, uint32_t id, kd_buf *payload)
{
    char why[1024] = "";
    kd_gw_outcome out;
    int maybe = 0;
    kd_gateway_spend spend;
    kd_gw_spend_of_session(kd_gw_session_grant(s), &spend);
    kd_err err = kd_gw_submit_and_wait(gw, payload, &spend, &out, &maybe, why, sizeof why);
    if (err)
        return kd_gw_fail("the %s of table %u %s: %s", what, id, maybe ? "is not confirmed" : "was not sent", why);
    if (!out.applied) {
        json_t *r = kd_mcp_tool_result(
            json_pack("{s:b, s:s, s:s}", "applied", 0, "error_code", out.error_code, "error", out.error), out.error);
        if (r)
            json_object_set_new(r, "isError", json_true());
        return r ? r : kd_gw_fail("%s: %s", out.error_code, out.error);
    }
    kd_table_info t;
    uint64_t tip;
    int found = one_table(gw, id, &t, NULL, &tip), started = found && t.started;
    json_t *tj = found ? kd_gw_table_json(gw, &t, tip, NULL) : json_null();
    char text[160];
    snprintf(text, sizeof text, "the %s of table %u is applied%s", what, id,
             started ? ": every seat is taken, the game has started" : "");
    return kd_mcp_tool_result(json_pack("{s:b, s:i, s:b, s:o}", "applied", 1, "episode_id", (json_int_t)id, "started",
                                        started, "table", tj ? tj : json_null()),
                              text);
}

/* The refusal of an action on table `id` before anything is built, or
 * NULL; a join (`joining`) also past the table's deadline, as the engine
 * would refuse it in the next block. */
static json_t *table_refusal(uint32_t id, int found, const kd_table_info *t, uint64_t tip, int joining)
{
    if (!found)
        return kd_gw_fail("there is no table %u (kdapp_list_tables lists the open ones)", id);
    if (t->started || t->cancelled)
        return kd_gw_fail("table %u is %s", id, t->started ? "full: its game has started" : "cancelled");
    if (joining && closed(t, tip))
        return kd_gw_fail("table %u closed at DAA score %llu, unfilled: its deadline passed (the chain is at %llu), "
                          "so it takes no join",
                          id, (unsigned long long)t->deadline_daa, (unsigned long long)tip);
    return NULL;
}

/* The seat a join takes: "seat" (a name or index) when it is open, else
 * the first open one; -1 with *fail set. */
static int join_seat(const kd_episode_type *type, const kd_table_info *t, json_t *jseat, json_t **fail)
{
    int seat = -1;
    if (jseat) {
        seat = json_is_string(jseat)    ? kd_episode_type_seat(type, json_string_value(jseat))
               : json_is_integer(jseat) ? (int)json_integer_value(jseat)
                                        : -1;
        if (seat < 0 || (size_t)seat >= t->participants.count || !open_seat(t, (size_t)seat)) {
            *fail =
                kd_gw_fail("that seat of table %u is not open (kdapp_list_tables shows its open seats)", t->episode_id);
            return -1;
        }
        return seat;
    }
    for (size_t i = 0; i < t->participants.count; i++)
        if (open_seat(t, i))
            return (int)i;
    *fail = kd_gw_fail("table %u has no open seat", t->episode_id);
    return -1;
}

static json_t *tool_join(void *ctx, kd_mcp_session *s, json_t *args, int *code, char *msg, size_t len)
{
    (void)code, (void)msg, (void)len;
    kd_gateway *gw = ctx;
    uint32_t id = (uint32_t)json_integer_value(json_object_get(args, "episode_id"));
    kd_table_info t;
    kd_buf created, part, payload;
    kd_buf_init(&created);
    kd_buf_init(&part);
    kd_buf_init(&payload);
    const kd_episode_type *type = NULL;
    const kd_gw_key *k = NULL;
    int seat = -1;
    uint64_t tip = 0;
    int found = one_table(gw, id, &t, &created, &tip);
    json_t *r = table_refusal(id, found, &t, tip, 1);
    if (!r && !(type = kd_gw_type(gw, t.type_name)))
        r = kd_gw_fail("table %u is of type %s, which this gateway does not serve", id, t.type_name);
    if (!r)
        seat = join_seat(type, &t, json_object_get(args, "seat"), &r);
    if (!r)
        k = acting_key(kd_gw_session_grant(s), args, &t, &r);
    if (r)
        goto done;
    char why[512] = "";
    kd_err err = type->secret_commit
                     ? seat_part(type, k, gw->store_id, id, seat, t.participants.count, &part, why, sizeof why)
                     : KD_OK;
    if (!err)
        err = kd_wire_join(gw->chain, id, t.type_name, created.data, created.len, (uint32_t)seat, &k->key, part.data,
                           part.len, &payload);
    r = err ? kd_gw_fail("cannot join table %u: %s", id, why[0] ? why : kd_err_str(err))
            : send_table_payload(gw, s, "join", id, &payload);
done:
    kd_buf_fini(&created);
    kd_buf_fini(&part);
    kd_buf_fini(&payload);
    return r;
}

static json_t *tool_cancel(void *ctx, kd_mcp_session *s, json_t *args, int *code, char *msg, size_t len)
{
    (void)code, (void)msg, (void)len;
    kd_gateway *gw = ctx;
    uint32_t id = (uint32_t)json_integer_value(json_object_get(args, "episode_id"));
    kd_table_info t;
    json_t *r = table_refusal(id, one_table(gw, id, &t, NULL, NULL), &t, 0, 0);
    if (r)
        return r;
    /* the creator: a granted key seated at creation (a join's key cannot cancel) */
    const kd_gw_grant *g = kd_gw_session_grant(s);
    const kd_gw_key *k = NULL;
    for (size_t i = 0; g && i < g->n && !k; i++)
        for (size_t seat = 0; seat < t.participants.count && !k; seat++)
            if (!open_seat(&t, seat) &&
                memcmp(t.participants.keys[seat].bytes, g->keys[i]->key.pub.bytes, KD_PUBKEY_LEN) == 0)
                k = g->keys[i];
    if (!k)
        return kd_gw_fail("this session holds no key seated at table %u: only its creator cancels it", id);
    kd_buf payload;
    kd_buf_init(&payload);
    kd_err err = kd_wire_cancel(gw->chain, id, t.type_name, &k->key, &payload);
    r = err ? kd_gw_fail("cannot build the cancel: %s", kd_err_str(err))
            : send_table_payload(gw, s, "cancel", id, &payload);
    kd_buf_fini(&payload);
    return r;
}

#define TABLE_SCHEMA                                                                                             \
    "{\"type\":\"object\",\"properties\":{\"episode_id\":{\"type\":\"integer\"},\"type\":{\"type\":\"string\"}," \
    "\"status\":{\"type\":\"string\",\"enum\":[\"open\",\"started\",\"cancelled\",\"closed\"]},"                 \
    "\"seats\":{\"type\":\"array\"},\"creation_daa\":{\"type\":\"integer\"},\"deadline_daa\":{\"type\":\"integer\"}}}"
#define ACT_OUTPUT                                                                                                   \
    "{\"type\":\"object\",\"properties\":{\"applied\":{\"type\":\"boolean\"},\"episode_id\":{\"type\":\"integer\"}," \
    "\"started\":{\"type\":\"boolean\"},\"table\":{},\"error_code\":{\"type\":\"string\"},"                          \
    "\"error\":{\"type\":\"string\"}},\"required\":[\"applied\"]}"

kd_err kd_gw_add_table_tools(kd_gateway *gw)
{
    const kd_mcp_tool tools[] = {
        {.name = "kdapp_list_tables",
         .title = "Open tables",
         .description = "The tables waiting for players (a creation that left seats open: kdapp_start_episode with "
                        "\"open\" participants): each with its type, who sits where, its open seats and the DAA "
                        "score after which it takes no join (a table whose deadline the chain's tip, tip_daa, "
                        "reached is closed and no longer listed). Join one with kdapp_join_episode. The resource "
                        "kdapp://tables is the same list, notified as blocks change it. With episode_id: that table "
                        "alone, whatever its status (open, started, cancelled or closed).",
         .input_schema_json = "{\"type\":\"object\",\"properties\":{\"episode_id\":{\"type\":\"integer\","
                              "\"minimum\":1,\"maximum\":4294967295,\"description\":\"one table, whatever its "
                              "status\"}}}",
         .output_schema_json = "{\"type\":\"object\",\"properties\":{\"tables\":{\"type\":\"array\",\"items\":"
                               "" TABLE_SCHEMA "},\"tip_daa\":{\"type\":\"integer\"}},\"required\":[\"tables\"]}",
         .read_only_hint = 1,
         .idempotent_hint = 1,
         .quick = 1,
         .call = tool_list_tables},
        {.name = "kdapp_join_episode",
         .title = "Join an open table",
         .description = "Takes an open seat of a table (kdapp_list_tables) with a key of this session's grant: the "
                        "join carries that key's own commitment for the seat, made here, and its signature over the "
                        "table's terms and chain. The game starts when the last seat is taken; this gateway then "
                        "answers the seat's duties as for any seat it holds. \"seat\": a seat name or index (default: "
                        "the first open one); \"signer\": a granted key (default: the first not at the table).",
         .input_schema_json =
             "{\"type\":\"object\",\"properties\":{\"episode_id\":{\"type\":\"integer\"},"
             "\"seat\":{\"oneOf\":[{\"type\":\"string\"},{\"type\":\"integer\"}]},\"signer\":{\"type\":\"string\"}},"
             "\"required\":[\"episode_id\"]}",
         .output_schema_json = ACT_OUTPUT,
         .open_world_hint = 1,
         .writes = 1,
         .call = tool_join},
        {.name = "kdapp_cancel_table",
         .title = "Cancel an open table",
         .description = "Cancels a table this session's key created, before anyone joined it (a joined table "
                        "waits for its deadline).",
         .input_schema_json = "{\"type\":\"object\",\"properties\":{\"episode_id\":{\"type\":\"integer\"}},"
                              "\"required\":[\"episode_id\"]}",
         .output_schema_json = ACT_OUTPUT,
         .destructive_hint = 1,
         .open_world_hint = 1,
         .writes = 1,
         .call = tool_cancel},
    };
    kd_err err = KD_OK;
    for (size_t i = 0; !err && i < sizeof tools / sizeof tools[0]; i++) {
        kd_mcp_tool t = tools[i];
        t.ctx = gw;
        err = kd_mcp_server_add_tool(gw->srv, &t);
    }
    return err;
}
