/*
 * play_table.c — the open tables of `kdapp play --open` and `--join`
 * (see play_int.h): a table opened with our keys in our seats and the
 * others open, a join with a key of the session, the wait until every seat
 * is taken, and which seats of a game are ours (the session holds their
 * keys) and which another owner plays: the gateway's side, which
 * play_owners.c runs a game's table with.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "engine/bytes.h"
#include "engine/netutil.h"
#include "tools/play/play_int.h"

/* Between two looks at a table waiting for strangers: five a second, well
 * inside the gateway's per-session call rate. */
#define TABLE_POLL_MS 200L

kd_err kd_play_call(kd_mcp_client *mcp, const char *tool, json_t *args, json_t **sc, char *why, size_t why_len)
{
    int is_error = 0;
    kd_err err = kd_mcp_client_call_tool(mcp, tool, args, sc, &is_error, why, why_len);
    if (!err && (is_error || !*sc)) {
        char text[600];
        snprintf(text, sizeof text, "%s", why);
        kd_reject_write(why, why_len, "%s failed: %s", tool, text[0] ? text : "no structured result");
        json_decref(*sc);
        *sc = NULL;
        err = KD_ERR_UNSUPPORTED;
    }
    return err;
}

/* A tool that may refuse: its refusal's sentence in `why` as it is, as
 * KD_ERR_INVALID_ARG (bad input the user can correct). */
static kd_err call_or_refuse(kd_mcp_client *mcp, const char *tool, json_t *args, json_t **sc, char *why, size_t why_len)
{
    int is_error = 0;
    kd_err err = kd_mcp_client_call_tool(mcp, tool, args, sc, &is_error, why, why_len);
    if (!err && (is_error || !*sc)) {
        if (!why[0])
            kd_reject_write(why, why_len, "%s answered no structured result", tool);
        json_decref(*sc);
        *sc = NULL;
        err = KD_ERR_INVALID_ARG;
    }
    return err;
}

kd_err kd_play_table_read(kd_mcp_client *mcp, uint32_t id, kd_play_table *t, char *why, size_t why_len)
{
    json_t *sc = NULL;
    memset(t, 0, sizeof *t);
    kd_err err =
        call_or_refuse(mcp, "kdapp_list_tables", json_pack("{s:I}", "episode_id", (json_int_t)id), &sc, why, why_len);
    if (err == KD_ERR_INVALID_ARG)
        return KD_ERR_NOT_FOUND;
    if (err)
        return err;
    json_t *tj = json_array_get(json_object_get(sc, "tables"), 0);
    const char *type = json_string_value(json_object_get(tj, "type"));
    const char *status = json_string_value(json_object_get(tj, "status"));
    json_t *seats = json_object_get(tj, "seats");
    if (!type || !status || !json_array_size(seats) || json_array_size(seats) > KD_PLAY_MAX_SEATS) {
        kd_reject_write(why, why_len, "kdapp_list_tables answered no type, status or seats for table %u", id);
        json_decref(sc);
        return KD_ERR_DECODE;
    }
    snprintf(t->type, sizeof t->type, "%s", type);
    snprintf(t->status, sizeof t->status, "%s", status);
    t->seats = json_array_size(seats);
    for (size_t s = 0; s < t->seats; s++)
        if (!json_is_true(json_object_get(json_array_get(seats, s), "open")))
            t->taken |= UINT32_C(1) << s;
    t->deadline_daa = (uint64_t)json_integer_value(json_object_get(tj, "deadline_daa"));
    t->tip_daa = (uint64_t)json_integer_value(json_object_get(sc, "tip_daa"));
    json_decref(sc);
    return KD_OK;
}

/* 1 when the key object `k` ({name, pubkey}) is the hex key `hex`. */
static int key_is(const json_t *k, const char *hex)
{
    const char *pub = json_string_value(json_object_get(k, "pubkey"));
    return pub && strcmp(pub, hex) == 0;
}

kd_err kd_play_seats_held(kd_mcp_client *mcp, const json_t *participants, uint32_t *mine, char *why, size_t why_len)
{
    json_t *sc = NULL;
    *mine = 0;
    kd_err err = kd_play_call(mcp, "kdapp_get_agent_pubkeys", NULL, &sc, why, why_len);
    if (err)
        return err;
    json_t *agents = json_object_get(sc, "agents"), *house = json_object_get(sc, "house");
    for (size_t s = 0; s < json_array_size(participants) && s < KD_PLAY_MAX_SEATS; s++) {
        const char *key = json_string_value(json_array_get(participants, s));
        int held = key && json_is_object(house) && key_is(house, key);
        for (size_t a = 0; key && !held && a < json_array_size(agents); a++)
            held = key_is(json_array_get(agents, a), key);
        if (held)
            *mine |= UINT32_C(1) << s;
    }
    json_decref(sc);
    return KD_OK;
}

kd_err kd_play_table_open(kd_mcp_client *mcp, const kd_play_options *o, const kd_episode_type *type, size_t seats,
                          uint32_t mine, uint32_t *id, char *why, size_t why_len)
{
    json_t *sc = NULL, *args = json_object(), *parts = json_array();
    kd_err err = args && parts ? kd_play_call(mcp, "kdapp_get_agent_pubkeys", NULL, &sc, why, why_len) : KD_ERR_NOMEM;
    json_t *agents = json_object_get(sc, "agents");
    size_t used = 0;
    for (size_t s = 0; !err && s < seats; s++) {
        if (!(mine & (UINT32_C(1) << s))) {
            json_array_append_new(parts, json_string("open"));
            continue;
        }
        const char *key = json_string_value(json_object_get(json_array_get(agents, used++), "pubkey"));
        if (!key) {
            kd_reject_write(why, why_len,
                            "the gateway grants this session %zu key%s, and --open plays %d seat%s: one key per seat",
                            json_array_size(agents), json_array_size(agents) == 1 ? "" : "s", __builtin_popcount(mine),
                            __builtin_popcount(mine) == 1 ? "" : "s");
            err = KD_ERR_INVALID_ARG;
        } else {
            json_array_append_new(parts, json_string(key));
        }
    }
    if (!err && o->params) {
        json_error_t jerr;
        json_t *params = json_loads(o->params, JSON_REJECT_DUPLICATES, &jerr);
        if (!json_is_object(params)) {
            kd_reject_write(why, why_len, "--params must be a JSON object: %s", params ? "it is not one" : jerr.text);
            err = KD_ERR_INVALID_ARG;
        } else {
            json_object_set(args, "params", params);
        }
        json_decref(params);
    }
    json_decref(sc);
    sc = NULL;
    if (err) {
        json_decref(args);
        json_decref(parts);
        return err;
    }
    json_object_set_new(args, "type", json_string(type->ops->type_name));
    json_object_set_new(args, "participants", parts);
    if (o->join_timeout)
        json_object_set_new(args, "join_timeout", json_integer(o->join_timeout));
    if ((err = call_or_refuse(mcp, "kdapp_start_episode", args, &sc, why, why_len)))
        return err;
    json_int_t got = json_integer_value(json_object_get(sc, "episode_id"));
    if (!json_is_object(json_object_get(sc, "table")) || got <= 0 || got > UINT32_MAX) {
        kd_reject_write(why, why_len, "kdapp_start_episode answered no table (a gateway without open seats?)");
        err = KD_ERR_DECODE;
    }
    *id = (uint32_t)got;
    json_decref(sc);
    return err;
}

kd_err kd_play_table_join(kd_mcp_client *mcp, uint32_t id, int seat, char *why, size_t why_len)
{
    json_t *args = json_pack("{s:I, s:i}", "episode_id", (json_int_t)id, "seat", seat), *sc = NULL;
    kd_err err = call_or_refuse(mcp, "kdapp_join_episode", args, &sc, why, why_len);
    if (!err && !json_is_true(json_object_get(sc, "applied"))) { /* the chain refused it: its code and sentence */
        const char *code = json_string_value(json_object_get(sc, "error_code"));
        const char *e = json_string_value(json_object_get(sc, "error"));
        kd_reject_write(why, why_len, "%s (%s)", e ? e : "the join was refused", code ? code : "refused");
        err = KD_ERR_INVALID_ARG;
    }
    json_decref(sc);
    return err;
}

kd_err kd_play_table_wait(kd_mcp_client *mcp, uint32_t id, const kd_episode_type *type, const atomic_int *stop,
                          int quiet, FILE *out, int *stopped, char *why, size_t why_len)
{
    uint32_t seen = UINT32_MAX; /* the seats taken at the last look */
    *stopped = 0;
    for (;;) {
        kd_play_table t;
        kd_err err = kd_play_table_read(mcp, id, &t, why, why_len);
        if (err)
            return err;
        if (strcmp(t.status, "started") == 0)
            return KD_OK;
        if (strcmp(t.status, "cancelled") == 0) {
            kd_reject_write(why, why_len, "table %u was cancelled by its creator before every seat was taken", id);
            return KD_ERR_CLOSED;
        }
        if (strcmp(t.status, "open") != 0) {
            kd_reject_write(why, why_len,
                            "table %u closed unfilled: its deadline, DAA score %llu, passed (the chain is at %llu) "
                            "before every seat was taken",
                            id, (unsigned long long)t.deadline_daa, (unsigned long long)t.tip_daa);
            return KD_ERR_CLOSED;
        }
        if (t.taken != seen && !quiet) {
            fprintf(out, "table %u:", id);
            for (size_t s = 0; s < t.seats; s++)
                fprintf(out, " %s %s", kd_episode_type_seat_name(type, (int)s),
                        t.taken & (UINT32_C(1) << s) ? "taken" : "open");
            fprintf(out, "; waiting for every seat until DAA score %llu (the chain is at %llu)\n",
                    (unsigned long long)t.deadline_daa, (unsigned long long)t.tip_daa);
            fflush(out);
        }
        seen = t.taken;
        if (stop && atomic_load(stop)) {
            *stopped = 1;
            return KD_OK;
        }
        struct timespec ts = {0, TABLE_POLL_MS * 1000000L};
        nanosleep(&ts, NULL);
    }
}
