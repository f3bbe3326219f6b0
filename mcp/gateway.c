/*
 * gateway.c — the gateway's lifecycle: following the engine's views (block
 * summaries resolve waiting writes; episode views become resource
 * notifications), reading views, and the key directory.
 */
#include "mcp/gateway_int.h"

#include <dirent.h>
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

#define POLL_MS 200

/* ------------------------------------------------------------- outcomes */

static void remember(kd_gateway *gw, const Kdapp__TxResult *t)
{
    if (t->tx_id.len != KD_HASH_LEN)
        return;
    kd_gw_outcome *o = &gw->recent[gw->next_recent];
    memset(o, 0, sizeof *o);
    memcpy(o->tx_id, t->tx_id.data, KD_HASH_LEN);
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
    if (!s->reverted) {
        pthread_mutex_lock(&gw->lock);
        for (size_t i = 0; i < s->n_txs; i++)
            remember(gw, s->txs[i]);
        pthread_cond_broadcast(&gw->changed);
        pthread_mutex_unlock(&gw->lock);
    }
    kdapp__block_summary__free_unpacked(s, NULL);
}

static void on_view(kd_gateway *gw, const uint8_t *data, size_t len)
{
    kd_episode_view v;
    if (kd_episode_view_unpack(data, len, &v) != KD_OK) {
        KD_LOG_W("gateway", "an episode view (%zu bytes) does not decode", len);
        return;
    }
    char uri[64];
    snprintf(uri, sizeof uri, "kdapp://episodes/%u", v.episode_id);
    kd_mcp_server_notify_resource_updated(gw->srv, uri);
    kd_mcp_server_notify_resource_updated(gw->srv, "kdapp://episodes");
    if (v.deleted || v.last_event == KD_EVENT_INITIALIZE)
        kd_mcp_server_notify_list_changed(gw->srv, KD_MCP_LIST_RESOURCES);
}

static void *follow_views(void *arg)
{
    kd_gateway *gw = arg;
    for (;;) {
        pthread_mutex_lock(&gw->lock);
        int stop = gw->stopping;
        pthread_mutex_unlock(&gw->lock);
        if (stop)
            break;
        void *buf = NULL;
        size_t len = 0;
        int rv = nng_recv(gw->sub, &buf, &len, NNG_FLAG_ALLOC);
        if (rv == NNG_ETIMEDOUT)
            continue;
        if (rv) {
            if (rv != NNG_ECLOSED)
                KD_LOG_W("gateway", "views: %s", nng_strerror(rv));
            break;
        }
        const char *topic;
        const uint8_t *payload;
        size_t plen;
        if (kd_pub_split(buf, len, &topic, &payload, &plen) == 0) {
            if (strcmp(topic, KD_TOPIC_BLOCK) == 0)
                on_summary(gw, payload, plen);
            else if (strncmp(topic, KD_TOPIC_EPISODE, strlen(KD_TOPIC_EPISODE)) == 0)
                on_view(gw, payload, plen);
        }
        nng_free(buf, len);
    }
    return NULL;
}

kd_err kd_gw_wait_outcome(kd_gateway *gw, const uint8_t tx_id[KD_HASH_LEN], kd_gw_outcome *out)
{
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    uint32_t wait = gw->o.wait_ms ? gw->o.wait_ms : 30000;
    deadline.tv_sec += wait / 1000;
    deadline.tv_nsec += (long)(wait % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    kd_err err = KD_ERR_TIMEOUT;
    pthread_mutex_lock(&gw->lock);
    for (;;) {
        for (size_t i = 0; i < gw->n_recent; i++) {
            if (memcmp(gw->recent[i].tx_id, tx_id, KD_HASH_LEN) == 0) {
                *out = gw->recent[i];
                err = KD_OK;
                goto done;
            }
        }
        if (gw->stopping) {
            err = KD_ERR_CLOSED;
            break;
        }
        if (pthread_cond_timedwait(&gw->changed, &gw->lock, &deadline) == ETIMEDOUT)
            break;
    }
done:
    pthread_mutex_unlock(&gw->lock);
    return err;
}

kd_err kd_gw_read_view(kd_gateway *gw, uint32_t id, kd_episode_view *out)
{
    kd_read *rd;
    kd_err err = kd_engine_read_begin(gw->o.engine, &rd);
    if (err)
        return err;
    err = kd_episode_view_read(rd, id, out);
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
    for (size_t i = 0; !err && i < n_ids && i < max; i++)
        if (kd_episode_view_read(rd, ids[i], &out[*n]) == KD_OK)
            (*n)++;
    kd_engine_read_end(rd);
    if (!err && n_ids > max)
        *next = ids[max - 1];
    free(ids);
    if (err) {
        free(out);
        *n = 0;
        return err;
    }
    *views = out;
    return KD_OK;
}

json_t *kd_gw_summary_json(const kd_episode_view *v)
{
    json_t *e = json_pack("{s:i, s:s}", "episode_id", (json_int_t)v->episode_id, "type", v->type);
    if (e && v->has_ttt) {
        json_object_set_new(e, "status", json_string(kd_ttt_status_name(v->ttt.status)));
        json_object_set_new(e, "move_count", json_integer(v->ttt.move_count));
        json_object_set_new(e, "cap", v->ttt.cap ? json_integer(v->ttt.cap) : json_null());
    }
    return e;
}

/* ------------------------------------------------------------------ keys */

kd_err kd_gw_resolve_key(kd_gateway *gw, const char *ref, int allow_pubkey, kd_key *key, kd_pubkey *pub,
                         int *has_secret, char *why, size_t why_len)
{
    *has_secret = 0;
    if (allow_pubkey && strlen(ref) == 2 * KD_PUBKEY_LEN && kd_hex_decode(ref, pub->bytes, KD_PUBKEY_LEN) == 0) {
        if (kd_pubkey_check(pub) != KD_OK) {
            snprintf(why, why_len, "'%s' is not a valid compressed secp256k1 public key", ref);
            return KD_ERR_BAD_PUBKEY;
        }
        return KD_OK;
    }
    kd_err err = kd_key_resolve(gw->keys_dir, ref, key, why, why_len);
    if (err)
        return err;
    *pub = key->pub;
    *has_secret = 1;
    return KD_OK;
}

static int cmp_names(const void *a, const void *b) { return strcmp(a, b); }

size_t kd_gw_list_keys(kd_gateway *gw, char names[][KD_KEY_NAME_MAX + 1], size_t max)
{
    DIR *d = opendir(gw->keys_dir);
    size_t n = 0;
    if (!d)
        return 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < max) {
        size_t len = strlen(e->d_name);
        if (len <= 4 || strcmp(e->d_name + len - 4, ".key") != 0 || len - 4 > KD_KEY_NAME_MAX)
            continue;
        memcpy(names[n], e->d_name, len - 4);
        names[n][len - 4] = '\0';
        if (kd_key_name_valid(names[n]))
            n++;
    }
    closedir(d);
    qsort(names, n, sizeof names[0], cmp_names);
    return n;
}

kd_err kd_gw_find_key(kd_gateway *gw, const kd_pubkey *pub, kd_key *key, char *name, size_t name_len)
{
    char names[KD_GW_MAX_AGENTS][KD_KEY_NAME_MAX + 1];
    size_t n = kd_gw_list_keys(gw, names, KD_GW_MAX_AGENTS);
    for (size_t i = 0; i < n; i++) {
        char why[256];
        if (kd_key_load(gw->keys_dir, names[i], key, why, sizeof why) != KD_OK)
            continue;
        if (memcmp(key->pub.bytes, pub->bytes, KD_PUBKEY_LEN) == 0) {
            snprintf(name, name_len, "%s", names[i]);
            return KD_OK;
        }
    }
    return KD_ERR_NOT_FOUND;
}

/* As upstream kdapp: two agent keys on first start, so an agent can play
 * with zero setup. */
static kd_err ensure_agent_keys(kd_gateway *gw, char *why, size_t why_len)
{
    char names[1][KD_KEY_NAME_MAX + 1];
    if (kd_gw_list_keys(gw, names, 1) > 0)
        return KD_OK;
    static const char *const agents[] = {"agent1", "agent2"};
    for (size_t i = 0; i < 2; i++) {
        kd_key key;
        kd_err err = kd_key_generate(&key);
        if (!err)
            err = kd_key_save(gw->keys_dir, agents[i], &key, why, why_len);
        memset(&key, 0, sizeof key);
        if (err && err != KD_ERR_EXISTS)
            return err;
    }
    KD_LOG_I("gateway", "created agent keys agent1 and agent2 in %s", gw->keys_dir);
    return KD_OK;
}

/* ------------------------------------------------------------- lifecycle */

kd_err kd_gateway_open(const kd_gateway_options *opts, kd_mcp_server *srv, kd_gateway **out, char *why, size_t why_len)
{
    kd_gateway *gw = calloc(1, sizeof *gw);
    if (!gw)
        return KD_ERR_NOMEM;
    gw->o = *opts;
    gw->srv = srv;
    snprintf(gw->views_url, sizeof gw->views_url, "%s", opts->views_url);
    snprintf(gw->keys_dir, sizeof gw->keys_dir, "%s", opts->keys_dir);
    gw->o.views_url = gw->views_url;
    gw->o.keys_dir = gw->keys_dir;
    pthread_mutex_init(&gw->lock, NULL);
    pthread_cond_init(&gw->changed, NULL);
    kd_err err;
    int rv;
    if ((err = ensure_agent_keys(gw, why, why_len)))
        goto fail_sync;
    if ((rv = nng_sub0_open(&gw->sub))) {
        snprintf(why, why_len, "cannot open the views socket: %s", nng_strerror(rv));
        err = kd_nng_err(rv, "sub0_open");
        goto fail_sync;
    }
    nng_socket_set_ms(gw->sub, NNG_OPT_RECVTIMEO, POLL_MS);
    nng_socket_set_ms(gw->sub, NNG_OPT_RECONNMINT, 20);
    nng_socket_set_ms(gw->sub, NNG_OPT_RECONNMAXT, 500);
    nng_socket_set(gw->sub, NNG_OPT_SUB_SUBSCRIBE, KD_TOPIC_BLOCK, sizeof KD_TOPIC_BLOCK);
    nng_socket_set(gw->sub, NNG_OPT_SUB_SUBSCRIBE, KD_TOPIC_EPISODE, strlen(KD_TOPIC_EPISODE));
    if ((rv = nng_dial(gw->sub, gw->views_url, NULL, NNG_FLAG_NONBLOCK))) {
        snprintf(why, why_len, "cannot follow the engine's views at %s: %s", gw->views_url, nng_strerror(rv));
        err = kd_nng_err(rv, "dial views");
        goto fail;
    }
    if ((err = kd_gw_add_tools(gw)) || (err = kd_gw_add_content(gw))) {
        snprintf(why, why_len, "cannot register the kdapp tools: %s", kd_err_str(err));
        goto fail;
    }
    if (pthread_create(&gw->thread, NULL, follow_views, gw) != 0) {
        snprintf(why, why_len, "cannot start the views thread");
        err = KD_ERR_NOMEM;
        goto fail;
    }
    gw->thread_started = 1;
    *out = gw;
    return KD_OK;
fail:
    kd_nng_close(gw->sub);
fail_sync:
    pthread_cond_destroy(&gw->changed);
    pthread_mutex_destroy(&gw->lock);
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
    if (gw->thread_started)
        pthread_join(gw->thread, NULL);
    kd_nng_close(gw->sub);
    pthread_cond_destroy(&gw->changed);
    pthread_mutex_destroy(&gw->lock);
    free(gw);
}
