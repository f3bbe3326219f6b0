/*
 * gateway_int.h — the gateway's shared state (gateway.c: lifecycle, views,
 * waiting for outcomes, keys; gateway_tools.c: the tools; gateway_content.c:
 * resources and prompts). Not for use outside mcp/.
 */
#ifndef KD_MCP_GATEWAY_INT_H
#define KD_MCP_GATEWAY_INT_H

#include <nng/nng.h>
#include <pthread.h>

#include "engine/netutil.h"
#include "handlers/view.h"
#include "mcp/gateway/gateway.h"

#define KD_GW_RECENT 4096   /* tx outcomes remembered for late waiters */
#define KD_GW_SEEN 4096     /* block summaries remembered by log position */
#define KD_GW_MAX_AGENTS 64 /* keys listed by kdapp_get_agent_pubkeys */

typedef struct {
    uint8_t tx_id[KD_HASH_LEN];
    uint64_t log_seq; /* the log entry of the block that carried it */
    int applied;
    uint32_t episode_id;
    char error_code[32];
    char error[KD_DETAIL_MAX];
} kd_gw_outcome;

struct kd_gateway {
    kd_gateway_options o;
    char views_url[512];
    char keys_dir[4096];
    kd_mcp_server *srv;
    nng_socket sub;
    kd_nng_redialer *views_dialer; /* keeps dialing the views when NNG 1.5.2 gives up */
    nng_aio *recv_aio;             /* stopped by kd_gateway_close to end follow_views */
    pthread_t thread;
    int thread_started;
    pthread_mutex_t lock;
    pthread_cond_t changed;             /* a summary arrived (CLOCK_MONOTONIC) */
    kd_gw_outcome recent[KD_GW_RECENT]; /* ring buffer */
    size_t n_recent, next_recent;
    uint64_t evicted_seq;        /* newest log position whose outcomes left `recent` */
    uint64_t seen[KD_GW_SEEN];   /* seen[s % KD_GW_SEEN] == s: the summary of log entry s arrived */
    uint64_t summaries_received; /* for the drop_summaries test seam */
    int stopping;
};

/* Waits until the outcome of `tx_id` is known, from a block summary or
 * from the engine's log after position `after_seq` (the tip's last_seq
 * noted before submitting), at most the gateway's wait_ms. Errors:
 * KD_ERR_TIMEOUT (no applied block carried it in time), KD_ERR_CLOSED (the
 * gateway is closing). */
kd_err kd_gw_wait_outcome(kd_gateway *gw, const uint8_t tx_id[KD_HASH_LEN], uint64_t after_seq,
                          kd_gw_outcome *out) KD_WARN_UNUSED;

/* Reads episode `id` as a view in a read handle of its own: for answers
 * made of this one view (several reads of one answer share one handle and
 * call kd_episode_view_read). Errors: KD_ERR_NOT_FOUND, storage errors. */
kd_err kd_gw_read_view(kd_gateway *gw, uint32_t id, kd_episode_view *out) KD_WARN_UNUSED;

/* A page of views in id order, all read through one handle (one commit):
 * the episodes after `after`, up to `max`, leaving out any this gateway
 * cannot read (a type it does not know). *views is malloc'ed (free it);
 * *next is the cursor of the next page, 0 when this page is the last. */
kd_err kd_gw_read_page(kd_gateway *gw, uint32_t after, size_t max, kd_episode_view **views, size_t *n,
                       uint32_t *next) KD_WARN_UNUSED;
/* A listed episode: {episode_id, type[, status, move_count, cap]}. */
json_t *kd_gw_summary_json(const kd_episode_view *v);

/* Resolves a participant or signer reference (key name, "test:NAME"), or a
 * 66-hex pubkey when `allow_pubkey`. `why` names what was wrong. */
kd_err kd_gw_resolve_key(kd_gateway *gw, const char *ref, int allow_pubkey, kd_key *key, kd_pubkey *pub,
                         int *has_secret, char *why, size_t why_len) KD_WARN_UNUSED;
/* Finds a key in the key directory whose public key is `pub`. */
kd_err kd_gw_find_key(kd_gateway *gw, const kd_pubkey *pub, kd_key *key, char *name, size_t name_len) KD_WARN_UNUSED;
/* Lists key names in the key directory (sorted); returns the count. */
size_t kd_gw_list_keys(kd_gateway *gw, char names[][KD_KEY_NAME_MAX + 1], size_t max);

/* Registration of the three kinds of content. */
kd_err kd_gw_add_tools(kd_gateway *gw) KD_WARN_UNUSED;
kd_err kd_gw_add_content(kd_gateway *gw) KD_WARN_UNUSED;

#endif
