/*
 * gateway_lobby.c — the board page's lobby (mcp/web/lobby.js, README
 * "Lobby"): the open tables as /api/tables answers them, and the page's
 * event "tables" (kd_gateway_set_view_listener) whenever the lobby
 * changed: a table opened, was joined, started, was cancelled, closed at
 * its deadline, or a reorg undid one of these.
 *
 *   {"tables": [{episode_id, type, seats: [{seat, name, key, open}],
 *                creation_daa, deadline_daa (as kdapp_list_tables),
 *                params: the creation params as JSON (the type's params
 *                message; a hex string for a type without one)}],
 *    "daa_score": the tip block's DAA score (null before any block),
 *    "your_keys": [hex keys of the page's token's grant]}   (/api/tables only)
 *
 * A table is in the lobby while it takes joins: not started, not
 * cancelled, and its deadline not reached (a join in a block past
 * deadline_daa is refused, and the next block's DAA score is above the
 * tip's). Everything in it came from the chain (the type, the params a
 * creator chose, the keys): the page shows it as text only.
 *
 * The event is computed on the views thread at a block summary that may
 * have changed the lobby (one that applied a transaction or was reverted,
 * or a tip past the nearest deadline shown) and sent only when the list
 * differs from the one sent before; so a chain of empty blocks costs a
 * tip read each, and the page is never told the same lobby twice.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/logger.h"
#include "handlers/proto_json.h"
#include "mcp/gateway/gateway_int.h"

#define LOBBY_MAX 200 /* tables shown; the oldest first */

typedef struct {
    kd_gateway *gw;
    json_t *arr;
    uint64_t daa;  /* the tip's DAA score; 0 before any block */
    uint64_t next; /* the nearest deadline of a table listed (UINT64_MAX: none) */
} lobby_walk;

static kd_err on_table(void *ctx, const kd_table_info *t)
{
    lobby_walk *w = ctx;
    if (t->started || t->cancelled || (w->daa && w->daa >= t->deadline_daa) || json_array_size(w->arr) >= LOBBY_MAX)
        return KD_OK;
    const kd_episode_type *type = kd_gw_type(w->gw, t->type_name);
    json_t *params =
        type && type->params_message ? kd_proto_json(type->params_message, t->params, t->params_len) : NULL;
    if (!params) { /* no message to read it with, or bytes that do not decode: shown as they are */
        char *hex = malloc(2 * t->params_len + 1);
        if (hex)
            kd_hex_encode(t->params, t->params_len, hex);
        params = hex ? json_string(hex) : NULL;
        free(hex);
    }
    json_t *j = kd_gw_table_json(w->gw, t, w->daa, NULL);
    if (!j || !params) {
        json_decref(j);
        json_decref(params);
        return KD_ERR_NOMEM;
    }
    if (json_object_set_new(j, "params", params)) { /* takes params, also when it fails */
        json_decref(j);
        return KD_ERR_NOMEM;
    }
    if (json_array_append_new(w->arr, j)) /* takes j */
        return KD_ERR_NOMEM;
    if (t->deadline_daa < w->next)
        w->next = t->deadline_daa;
    return KD_OK;
}

/* The tip block's DAA score (0 before any block) under `rd`. */
static kd_err tip_daa(kd_read *rd, uint64_t *daa)
{
    kd_tip tip;
    uint64_t seq;
    *daa = 0;
    kd_err err = kd_read_tip(rd, &tip);
    if (err || !tip.has_tip)
        return err;
    if ((err = kd_read_block_seq(rd, tip.hash, &seq)))
        return err;
    kd_log_change c;
    err = kd_read_log_change(rd, seq, &c);
    if (!err)
        *daa = c.daa;
    kd_log_change_fini(&c);
    return err;
}

/* The lobby ({"tables", "daa_score"}); `*next` the nearest deadline of a
 * table in it (UINT64_MAX: none), `*daa` the tip's score. */
static kd_err lobby_json(kd_gateway *gw, json_t **out, uint64_t *next, uint64_t *daa)
{
    lobby_walk w = {.gw = gw, .arr = json_array(), .next = UINT64_MAX};
    kd_read *rd = NULL;
    kd_err err = w.arr ? kd_engine_read_begin(gw->o.engine, &rd) : KD_ERR_NOMEM;
    if (!err)
        err = tip_daa(rd, &w.daa);
    if (!err)
        err = kd_read_tables(rd, on_table, &w);
    if (rd)
        kd_engine_read_end(rd);
    *out = err ? NULL
               : json_pack("{s:o, s:o}", "tables", w.arr, "daa_score",
                           w.daa ? json_integer((json_int_t)w.daa) : json_null());
    if (err)
        json_decref(w.arr);
    else if (!*out)
        err = KD_ERR_NOMEM;
    *next = w.next;
    *daa = w.daa;
    return err;
}

kd_err kd_gw_lobby_json(kd_gateway *gw, const kd_gw_grant *g, json_t **out)
{
    uint64_t next, daa;
    kd_err err = lobby_json(gw, out, &next, &daa);
    json_t *mine = err ? NULL : json_array();
    for (size_t i = 0; mine && g && i < g->n; i++) {
        char hex[2 * KD_PUBKEY_LEN + 1];
        kd_hex_encode(g->keys[i]->key.pub.bytes, KD_PUBKEY_LEN, hex);
        if (json_array_append_new(mine, json_string(hex)))
            json_decref(mine), mine = NULL;
    }
    if (!err && (!mine || json_object_set_new(*out, "your_keys", mine))) {
        json_decref(*out);
        *out = NULL;
        err = KD_ERR_NOMEM;
    }
    return err;
}

void kd_gw_lobby_block(kd_gateway *gw, int may_change)
{
    pthread_mutex_lock(&gw->lock);
    int listening = gw->listener != NULL;
    pthread_mutex_unlock(&gw->lock);
    if (!listening)
        return;
    if (!may_change && gw->lobby_next != UINT64_MAX) { /* has the tip passed the nearest deadline? */
        kd_read *rd;
        uint64_t daa = 0;
        if (kd_engine_read_begin(gw->o.engine, &rd) == KD_OK) {
            if (tip_daa(rd, &daa) != KD_OK)
                daa = UINT64_MAX; /* look again */
            kd_engine_read_end(rd);
        }
        may_change = daa >= gw->lobby_next;
    }
    if (!may_change)
        return;
    json_t *j;
    uint64_t next, daa;
    if (lobby_json(gw, &j, &next, &daa) != KD_OK) {
        KD_LOG_W("gateway", "the lobby could not be read: the page shows it as it was");
        return;
    }
    char *list = json_dumps(json_object_get(j, "tables"), JSON_COMPACT | JSON_PRESERVE_ORDER);
    char *text = list && (!gw->lobby_sent || strcmp(list, gw->lobby_sent) != 0)
                     ? json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER)
                     : NULL;
    json_decref(j);
    if (text) {
        pthread_mutex_lock(&gw->lock);
        if (gw->listener)
            gw->listener(gw->listener_ctx, "tables", text);
        pthread_mutex_unlock(&gw->lock);
        free(gw->lobby_sent);
        gw->lobby_sent = list;
        gw->lobby_next = next;
        list = NULL;
    } else if (list) {
        gw->lobby_next = next;
    }
    free(text);
    free(list);
}
