/*
 * gateway.c — the gateway's lifecycle: following the engine's views (block
 * summaries resolve waiting writes; episode views become resource
 * notifications), waiting for a write's outcome (from a summary, or from
 * the engine's log when the summary was missed), reading views, and the
 * key directory.
 *
 * A waiting write knows the log position it started from. Each time it
 * wakes (a summary arrived, or LOG_CHECK_MS passed) it reads the tip: log
 * entries past what it has searched whose summaries all arrived are
 * covered (their outcomes are in `recent`); any other entry, a dropped
 * summary's or one still on its way, is searched in the log itself:
 *
 *   log entry:  42    43    44     (tip 44; the write noted 41)
 *   summary:    got   lost  got    43 is not covered, so
 *   kd_engine_find_tx(after 41) reads 42..44: found, or searched = 44
 */
#include "mcp/gateway/gateway_int.h"

#include <errno.h>
#include <nng/protocol/pubsub0/sub.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/logger.h"
#include "engine/netutil.h"
#include "handlers/publisher.h"
#include "kdapp.pb-c.h"

/* How often a waiting write looks at the engine's log when no summary
 * wakes it: the summary of its block may have been dropped, and nothing
 * else announces a commit. One LMDB read (the tip) per look. */
#define LOG_CHECK_MS 250

/* ------------------------------------------------------------- outcomes */

/* Remembers one outcome (lock held); notes the log position of the
 * outcome it overwrites, past which the ring no longer covers the log. */
static void remember(kd_gateway *gw, const Kdapp__TxResult *t, uint64_t log_seq)
{
    if (t->tx_id.len != KD_HASH_LEN)
        return;
    kd_gw_outcome *o = &gw->recent[gw->next_recent];
    if (gw->n_recent == KD_GW_RECENT && o->log_seq > gw->evicted_seq)
        gw->evicted_seq = o->log_seq;
    memset(o, 0, sizeof *o);
    memcpy(o->tx_id, t->tx_id.data, KD_HASH_LEN);
    o->log_seq = log_seq;
    o->applied = t->applied;
    o->episode_id = t->episode_id;
    snprintf(o->error_code, sizeof o->error_code, "%s", t->error_code ? t->error_code : "");
    snprintf(o->error, sizeof o->error, "%s", t->error ? t->error : "");
    gw->next_recent = (gw->next_recent + 1) % KD_GW_RECENT;
    if (gw->n_recent < KD_GW_RECENT)
        gw->n_recent++;
}

static void on_summary(kd_gateway *gw, const uint8_t *data, size_t len)
{
    Kdapp__BlockSummary *s = kdapp__block_summary__unpack(NULL, len, data);
    if (!s) {
        KD_LOG_W("gateway", "a block summary (%zu bytes) does not decode", len);
        return;
    }
    pthread_mutex_lock(&gw->lock);
    gw->summaries_received++;
    if (gw->o.drop_summaries && gw->summaries_received % gw->o.drop_summaries == 0) {
        KD_LOG_D("gateway", "test seam: dropped the summary of log entry %llu", (unsigned long long)s->log_seq);
    } else {
        if (s->log_seq)
            gw->seen[s->log_seq % KD_GW_SEEN] = s->log_seq;
        for (size_t i = 0; !s->reverted && i < s->n_txs; i++)
            remember(gw, s->txs[i], s->log_seq);
        pthread_cond_broadcast(&gw->changed);
    }
    pthread_mutex_unlock(&gw->lock);
    int may_change = s->reverted || s->txs_applied > 0;
    kdapp__block_summary__free_unpacked(s, NULL);
    /* a block may open, join, start or cancel a table: the lobby's list */
    kd_mcp_server_notify_resource_updated(gw->srv, "kdapp://tables");
    kd_gw_lobby_block(gw, may_change); /* and the page's lobby */
    kd_gw_ratings_changed(gw);         /* a block may finish or undo a game */
    kd_gw_duties_kick(gw);             /* a commit: something may be owed */
}

/* The page's event for a view: its listing and its page JSON, as one
 * compact JSON text (malloc'd), or NULL when out of memory. */
static char *page_event_text(const kd_episode_view *v)
{
    json_t *j = kd_gw_listing_json(v), *page = kd_gw_page_episode_json(v);
    char *text = j && page && !json_object_update(j, page) ? json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(page);
    json_decref(j);
    return text;
}

static void on_view(kd_gateway *gw, const uint8_t *data, size_t len)
{
    kd_episode_view v;
    kd_episode_view_init(&v);
    if (kd_episode_view_unpack(gw->types, data, len, &v) != KD_OK) {
        KD_LOG_W("gateway", "an episode view (%zu bytes) does not decode", len);
        return;
    }
    char uri[64];
    snprintf(uri, sizeof uri, "kdapp://episodes/%u", v.episode_id);
    kd_mcp_server_notify_resource_updated(gw->srv, uri);
    kd_mcp_server_notify_resource_updated(gw->srv, "kdapp://episodes");
    if (v.deleted || v.last_event == KD_EVENT_INITIALIZE)
        kd_mcp_server_notify_list_changed(gw->srv, KD_MCP_LIST_RESOURCES);
    pthread_mutex_lock(&gw->lock);
    int listening = gw->listener != NULL;
    pthread_mutex_unlock(&gw->lock);
    char *text = listening ? page_event_text(&v) : NULL; /* built without the lock */
    pthread_mutex_lock(&gw->lock);
    if (gw->listener && text)
        gw->listener(gw->listener_ctx, "view", text);
    else if (gw->listener)
        KD_LOG_W("gateway", "out of memory: the page missed the update of episode %u", v.episode_id);
    pthread_mutex_unlock(&gw->lock);
    free(text);
    kd_episode_view_fini(&v);
}

void kd_gateway_set_view_listener(kd_gateway *gw, void (*fn)(void *ctx, const char *event, const char *data), void *ctx)
{
    pthread_mutex_lock(&gw->lock);
    gw->listener = fn;
    gw->listener_ctx = ctx;
    pthread_mutex_unlock(&gw->lock);
}

/* Receives views and summaries until kd_gateway_close stops recv_aio. */
static void *follow_views(void *arg)
{
    kd_gateway *gw = arg;
    for (;;) {
        nng_msg *msg = NULL;
        kd_err err = kd_nng_recv_wait(gw->sub, gw->recv_aio, &msg);
        if (err) {
            if (err != KD_ERR_CLOSED)
                KD_LOG_E("gateway",
                         "no longer following the views (%s): no resource notifications; writes are "
                         "confirmed from the engine's log",
                         kd_err_str(err));
            break;
        }
        const char *topic;
        const uint8_t *payload;
        size_t plen;
        if (kd_pub_split(nng_msg_body(msg), nng_msg_len(msg), &topic, &payload, &plen) == 0) {
            if (strcmp(topic, KD_TOPIC_BLOCK) == 0)
                on_summary(gw, payload, plen);
            else if (strncmp(topic, KD_TOPIC_EPISODE, strlen(KD_TOPIC_EPISODE)) == 0)
                on_view(gw, payload, plen);
        }
        nng_msg_free(msg);
    }
    return NULL;
}

/* Finds `tx_id` among the outcomes of received summaries (lock held). */
static int recent_find(kd_gateway *gw, const uint8_t tx_id[KD_HASH_LEN], kd_gw_outcome *out)
{
    for (size_t i = 0; i < gw->n_recent; i++) {
        if (memcmp(gw->recent[i].tx_id, tx_id, KD_HASH_LEN) == 0) {
            *out = gw->recent[i];
            return 1;
        }
    }
    return 0;
}

/* Did received summaries cover every log entry in (from, to], their
 * outcomes all still in `recent` (lock held)? */
static int summaries_cover(const kd_gateway *gw, uint64_t from, uint64_t to)
{
    if (to - from > KD_GW_SEEN || gw->evicted_seq > from)
        return 0;
    for (uint64_t s = from + 1; s <= to; s++)
        if (gw->seen[s % KD_GW_SEEN] != s)
            return 0;
    return 1;
}

/*
 * The store's answer, for a write whose summary may have been dropped:
 * when the engine's log has entries after *searched, looks `tx_id` up in
 * them, unless received summaries covered them all (then the outcome
 * would be in `recent`). Advances *searched past the entries known not to
 * carry it. Returns 1 with *out when found. Called without the lock.
 */
static int log_find(kd_gateway *gw, const uint8_t tx_id[KD_HASH_LEN], uint64_t *searched, kd_gw_outcome *out)
{
    kd_tip tip;
    kd_err err = kd_engine_tip(gw->o.engine, &tip);
    if (err || tip.last_seq <= *searched)
        return 0;
    pthread_mutex_lock(&gw->lock);
    int found = recent_find(gw, tx_id, out);
    int covered = !found && summaries_cover(gw, *searched, tip.last_seq);
    pthread_mutex_unlock(&gw->lock);
    if (found)
        return 1;
    if (covered) {
        *searched = tip.last_seq;
        return 0;
    }
    kd_tx_result r;
    uint64_t seq = 0;
    err = kd_engine_find_tx(gw->o.engine, *searched, tx_id, &r, NULL, &seq);
    if (err == KD_ERR_NOT_FOUND) { /* not in any entry up to tip.last_seq (find_tx read a tip as new or newer) */
        *searched = tip.last_seq;
        return 0;
    }
    if (err) {
        KD_LOG_W("gateway", "cannot look a transaction up in the engine's log: %s; trying again", kd_err_str(err));
        return 0;
    }
    memset(out, 0, sizeof *out);
    memcpy(out->tx_id, tx_id, KD_HASH_LEN);
    out->log_seq = seq;
    out->applied = r.applied;
    out->episode_id = r.episode_id;
    snprintf(out->error_code, sizeof out->error_code, "%s", r.applied ? "" : r.code);
    snprintf(out->error, sizeof out->error, "%s", r.applied ? "" : r.detail);
    KD_LOG_D("gateway", "a write's outcome came from the log (entry %llu): its summary was not received",
             (unsigned long long)seq);
    return 1;
}

kd_err kd_gw_wait_outcome(kd_gateway *gw, const uint8_t tx_id[KD_HASH_LEN], uint64_t after_seq, kd_gw_outcome *out)
{
    uint32_t wait = gw->o.wait_ms ? gw->o.wait_ms : 30000;
    uint64_t deadline = kd_now_ms() + wait, searched = after_seq;
    for (;;) {
        pthread_mutex_lock(&gw->lock);
        int found = recent_find(gw, tx_id, out), stopping = gw->stopping;
        if (!found && !stopping) {
            uint64_t now = kd_now_ms(), left = now < deadline ? deadline - now : 0;
            struct timespec ts;
            kd_deadline_after(&ts, left < LOG_CHECK_MS ? left : LOG_CHECK_MS);
            pthread_cond_timedwait(&gw->changed, &gw->lock, &ts);
            found = recent_find(gw, tx_id, out);
            stopping = gw->stopping;
        }
        pthread_mutex_unlock(&gw->lock);
        if (found)
            return KD_OK;
        if (stopping)
            return KD_ERR_CLOSED;
        /* After every wake, the last one (deadline) included: an answer the
         * log has is never reported as a timeout. */
        if (log_find(gw, tx_id, &searched, out))
            return KD_OK;
        if (kd_now_ms() >= deadline)
            return KD_ERR_TIMEOUT;
    }
}

kd_err kd_gw_read_view(kd_gateway *gw, uint32_t id, kd_episode_view *out)
{
    kd_read *rd;
    kd_err err = kd_engine_read_begin(gw->o.engine, &rd);
    if (err)
        return err;
    err = kd_episode_view_read(gw->types, rd, id, out);
    kd_engine_read_end(rd);
    return err;
}

kd_err kd_gw_read_page(kd_gateway *gw, uint32_t after, size_t max, kd_episode_view **views, size_t *n, uint32_t *next)
{
    *views = NULL;
    *n = 0;
    *next = 0;
    uint32_t *ids = malloc((max + 1) * sizeof *ids);
    kd_episode_view *out = calloc(max ? max : 1, sizeof *out);
    kd_read *rd = NULL;
    size_t n_ids = 0;
    kd_err err = ids && out ? kd_engine_read_begin(gw->o.engine, &rd) : KD_ERR_NOMEM;
    if (!err)
        err = kd_read_episode_ids(rd, after, ids, max + 1, &n_ids);
    for (size_t i = 0; !err && i < n_ids && i < max; i++) {
        kd_episode_view_init(&out[*n]);
        if (kd_episode_view_read(gw->types, rd, ids[i], &out[*n]) == KD_OK && out[*n].type)
            (*n)++;
        else /* a failed read may have left storage behind; the slot is reused */
            kd_episode_view_fini(&out[*n]);
    }
    kd_engine_read_end(rd);
    if (!err && n_ids > max)
        *next = ids[max - 1];
    free(ids);
    if (err) {
        for (size_t i = 0; i < *n; i++)
            kd_episode_view_fini(&out[i]);
        free(out);
        *n = 0;
        return err;
    }
    *views = out;
    return KD_OK;
}

const char *kd_gateway_made_keys(const kd_gateway *gw) { return gw->made_keys; }

json_t *kd_gw_summary_json(const kd_episode_view *v)
{
    /* the members of the type's view a listing shows, when it has them */
    static const char *const listed[] = {"status", "move_count", "cap", NULL};
    json_t *e = json_pack("{s:i, s:s, s:s}", "episode_id", (json_int_t)v->episode_id, "type", v->type_name, "phase",
                          kd_game_phase_name(v->status.phase));
    json_t *view = e ? kd_episode_view_json(v) : NULL;
    for (const char *const *m = listed; view && *m; m++) {
        json_t *value = json_object_get(view, *m);
        if (value)
            json_object_set(e, *m, value);
    }
    json_decref(view);
    return e;
}

json_t *kd_gw_listing_json(const kd_episode_view *v)
{
    json_t *e = kd_gw_summary_json(v);
    if (e && (json_object_set_new(e, "seats", json_integer((json_int_t)v->participants.count)) ||
              json_object_set_new(e, "log_seq", json_integer((json_int_t)v->log_seq)) ||
              json_object_set_new(e, "last_event", json_string(kd_event_kind_name(v->last_event))) ||
              json_object_set_new(e, "deleted", json_boolean(v->deleted)))) {
        json_decref(e);
        return NULL;
    }
    return e;
}

/* ------------------------------------------------------------- lifecycle */

kd_err kd_gateway_open(const kd_gateway_options *opts, kd_mcp_server *srv, kd_gateway **out, char *why, size_t why_len)
{
    kd_gateway *gw = calloc(1, sizeof *gw);
    if (!gw)
        return KD_ERR_NOMEM;
    gw->o = *opts;
    gw->lobby_next = UINT64_MAX;
    gw->srv = srv;
    snprintf(gw->views_url, sizeof gw->views_url, "%s", opts->views_url);
    snprintf(gw->keys_dir, sizeof gw->keys_dir, "%s", opts->keys_dir);
    gw->o.views_url = gw->views_url;
    gw->o.keys_dir = gw->keys_dir;
    kd_err err = KD_ERR_NOMEM;
    int rv;
    if (pthread_mutex_init(&gw->lock, NULL) != 0) {
        snprintf(why, why_len, "cannot create the gateway's lock");
        goto fail_alloc;
    }
    if ((err = kd_cond_init_monotonic(&gw->changed))) {
        snprintf(why, why_len, "cannot create the gateway's condition variable");
        goto fail_lock;
    }
    if ((err = kd_gw_cache_alloc(&gw->cache))) {
        snprintf(why, why_len, "cannot create the gateway's cache of answers");
        goto fail_sync;
    }
    if ((err = kd_gw_types_open(gw, opts->types, why, why_len)))
        goto fail_sync;
    if ((err = kd_gw_ensure_agent_keys(gw, why, why_len)) || (err = kd_gw_grants_open(gw, why, why_len)))
        goto fail_sync;
    if ((err = kd_gw_limits_make(gw->types, opts->house, opts->house_limits, opts->n_house_limits, &gw->limits, why,
                                 why_len)))
        goto fail_sync;
    if ((err = kd_engine_store_id(opts->engine, gw->store_id))) {
        snprintf(why, why_len, "cannot read the store's id: %s", kd_err_str(err));
        goto fail_sync;
    }
    snprintf(gw->chain, sizeof gw->chain, "%s", kd_engine_chain(opts->engine));
    if ((rv = nng_sub0_open(&gw->sub))) {
        snprintf(why, why_len, "cannot open the views socket: %s", nng_strerror(rv));
        err = kd_nng_err(rv, "sub0_open");
        goto fail_sync;
    }
    if ((rv = nng_aio_alloc(&gw->recv_aio, NULL, NULL)) || (rv = nng_socket_set_ms(gw->sub, NNG_OPT_RECONNMINT, 20)) ||
        (rv = nng_socket_set_ms(gw->sub, NNG_OPT_RECONNMAXT, 500)) ||
        (rv = nng_socket_set(gw->sub, NNG_OPT_SUB_SUBSCRIBE, KD_TOPIC_BLOCK, sizeof KD_TOPIC_BLOCK)) ||
        (rv = nng_socket_set(gw->sub, NNG_OPT_SUB_SUBSCRIBE, KD_TOPIC_EPISODE, strlen(KD_TOPIC_EPISODE)))) {
        snprintf(why, why_len, "cannot set up the views socket: %s", nng_strerror(rv));
        err = kd_nng_err(rv, "views socket");
        goto fail;
    }
    /* The engine may start later, and may restart (netutil.h, kd_nng_redialer). */
    if ((err = kd_nng_redialer_start(gw->sub, gw->views_url, &gw->views_dialer, why, why_len)))
        goto fail;
    if ((err = kd_gw_add_tools(gw)) || (err = kd_gw_add_table_tools(gw)) || (err = kd_gw_add_content(gw)) ||
        (err = kd_gw_add_widget(gw)) || (err = kd_gw_add_ratings(gw))) {
        snprintf(why, why_len, "cannot register the kdapp tools: %s", kd_err_str(err));
        goto fail;
    }
    if ((err = kd_gw_duties_start(gw))) {
        snprintf(why, why_len, "cannot start the duties thread");
        goto fail;
    }
    if (pthread_create(&gw->thread, NULL, follow_views, gw) != 0) {
        snprintf(why, why_len, "cannot start the views thread");
        kd_gw_duties_stop(gw);
        err = KD_ERR_NOMEM;
        goto fail;
    }
    gw->thread_started = 1;
    *out = gw;
    return KD_OK;
fail:
    kd_nng_redialer_stop(gw->views_dialer);
    kd_nng_close(gw->sub);
    nng_aio_free(gw->recv_aio);
fail_sync:
    kd_gw_grants_close(gw);
    kd_gw_types_close(gw);
    kd_gw_cache_free(gw->cache);
    free(gw->lobby_sent);
    pthread_cond_destroy(&gw->changed);
fail_lock:
    pthread_mutex_destroy(&gw->lock);
fail_alloc:
    free(gw);
    return err;
}

void kd_gateway_close(kd_gateway *gw)
{
    if (!gw)
        return;
    pthread_mutex_lock(&gw->lock);
    gw->stopping = 1;
    pthread_cond_broadcast(&gw->changed);
    pthread_mutex_unlock(&gw->lock);
    nng_aio_stop(gw->recv_aio); /* wakes follow_views */
    if (gw->thread_started)
        pthread_join(gw->thread, NULL);
    kd_gw_duties_stop(gw); /* after the views thread: nothing queues duties any more */
    kd_nng_redialer_stop(gw->views_dialer);
    kd_nng_close(gw->sub);
    nng_aio_free(gw->recv_aio);
    kd_gw_grants_close(gw);
    kd_gw_types_close(gw);
    kd_gw_cache_free(gw->cache);
    pthread_cond_destroy(&gw->changed);
    pthread_mutex_destroy(&gw->lock);
    free(gw);
}

void kd_gateway_cache_stats_get(kd_gateway *gw, kd_gateway_cache_stats *out) { kd_gw_cache_stats(gw->cache, out); }
