/*
 * cmd_watch.c — `kdapp watch`: subscribes to an engine's views (NNG SUB)
 * and draws each episode's board as blocks are accepted and reverted.
 *
 * Topics: "ep/<id>" NUL for one episode, "ep/" for all of them, and "blk"
 * NUL for block summaries with --blocks (handlers/publisher.h). A view is
 * the episode's state after a whole commit, so a revert shows the board as
 * it was before the reverted block, headed "rolled back".
 */
#include <nng/nng.h>
#include <nng/protocol/pubsub0/sub.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "engine/netutil.h"
#include "handlers/publisher.h"
#include "handlers/view.h"
#include "kdapp.pb-c.h"
#include "tools/chain/node.h"
#include "tools/cli/commands.h"
#include "tools/common/endpoints.h"
#include "tools/common/options.h"

static void print_view(const kd_episode_view *v, unsigned render_flags)
{
    char h[17];
    kd_hex_encode(v->block_hash, 8, h);
    if (v->last_event == KD_EVENT_ROLLBACK && v->deleted) {
        printf("episode %u rolled back: its creation was reverted (block %s, log seq %llu); it no longer exists\n",
               v->episode_id, h, (unsigned long long)v->log_seq);
        return;
    }
    if (v->last_event == KD_EVENT_ROLLBACK)
        printf("episode %u (%s) rolled back: block %s was reverted, log seq %llu\n", v->episode_id, v->type_name, h,
               (unsigned long long)v->log_seq);
    else
        printf("episode %u (%s) %s in block %s, log seq %llu\n", v->episode_id, v->type_name,
               kd_event_kind_name(v->last_event), h, (unsigned long long)v->log_seq);
    kd_buf board;
    kd_buf_init(&board);
    if (kd_episode_view_render(v, render_flags, &board) == KD_OK)
        fwrite(board.data, 1, board.len, stdout);
    kd_buf_fini(&board);
}

static void print_block(const Kdapp__BlockSummary *s)
{
    char h[17] = "", t[17] = "genesis";
    if (s->block_hash.len == KD_HASH_LEN)
        kd_hex_encode(s->block_hash.data, 8, h);
    if (s->tip_hash.len == KD_HASH_LEN)
        kd_hex_encode(s->tip_hash.data, 8, t);
    if (s->reverted)
        printf("block %s reverted: tip %s height %llu, log seq %llu\n", h, t, (unsigned long long)s->tip_height,
               (unsigned long long)s->log_seq);
    else
        printf("block %s accepted: %u applied, %u rejected; height %llu, log seq %llu\n", h, s->txs_applied,
               s->txs_rejected, (unsigned long long)s->tip_height, (unsigned long long)s->log_seq);
    for (size_t i = 0; i < s->n_txs; i++)
        if (!s->txs[i]->applied)
            printf("  tx %zu (episode %u) rejected: %s: %s\n", i, s->txs[i]->episode_id, s->txs[i]->error_code,
                   s->txs[i]->error);
}

/* Handles one frame; returns 1 when it counted as a view or summary shown. */
static int show_frame(const kd_type_table *types, unsigned render_flags, const uint8_t *frame, size_t len)
{
    const char *topic;
    const uint8_t *payload;
    size_t plen;
    if (kd_pub_split(frame, len, &topic, &payload, &plen) != 0) {
        fprintf(stderr, "kdapp watch: a frame without a topic (%zu bytes) was ignored\n", len);
        return 0;
    }
    if (strcmp(topic, KD_TOPIC_BLOCK) == 0) {
        Kdapp__BlockSummary *s = kdapp__block_summary__unpack(NULL, plen, payload);
        if (!s) {
            fprintf(stderr, "kdapp watch: a block summary that does not decode was ignored\n");
            return 0;
        }
        print_block(s);
        kdapp__block_summary__free_unpacked(s, NULL);
        return 1;
    }
    kd_episode_view v;
    kd_episode_view_init(&v);
    if (kd_episode_view_unpack(types, payload, plen, &v) != KD_OK) {
        fprintf(stderr, "kdapp watch: a view on topic '%s' that does not decode was ignored\n", topic);
        return 0;
    }
    print_view(&v, render_flags);
    kd_episode_view_fini(&v);
    return 1;
}

/* Ends the receive loop on SIGINT/SIGTERM (blocked in every thread, see
 * kd_signals_block) by stopping its aio: the loop waits in the receive,
 * with no timeout to poll a flag on. kd_cmd_watch cancels this thread when
 * the loop ends by itself; never while inside NNG. */
/* Waits for SIGINT or SIGTERM (blocked in every thread), then ends the
 * receive. kd_cmd_watch ends it the same way when it is done on its own:
 * by sending it SIGTERM (pthread_kill), not by cancelling it in sigwait. */
static void *stop_on_signal(void *arg)
{
    kd_signals_wait();
    nng_aio_stop(arg);
    return NULL;
}

int kd_cmd_watch(kd_cli *cli, int argc, char **argv)
{
    static const char usage[] =
        "usage: kdapp watch [--data DIR] [--connect URL] [--episode ID] [--blocks] [--count N]\n";
    kd_endpoint_urls urls = {0};
    uint64_t episode = 0, count = 0;
    int blocks = 0;
    const kd_option opts[] = {
        KD_CLI_OPTIONS(cli),
        {.name = "connect", .kind = KD_OPT_STRING, .value = &urls.publish},
        {.name = "episode",
         .kind = KD_OPT_UINT,
         .value = &episode,
         .min = 1,
         .max = UINT32_MAX,
         .use = "1 to 4294967295"},
        {.name = "count", .kind = KD_OPT_UINT, .value = &count, .min = 1, .max = UINT32_MAX, .use = "1 or more"},
        {.name = "blocks", .kind = KD_OPT_FLAG, .value = &blocks},
        {0},
    };
    const kd_usage u = {.prog = "kdapp watch", .print = kd_usage_print_text, .ctx = usage};
    int first, stop, rc = kd_options_parse_usage(&u, opts, argc, argv, &first, &stop);
    if (rc || stop)
        return rc;
    kd_endpoints ep;
    char ep_why[512];
    if (kd_endpoints_resolve(cli->data_dir, &urls, &ep, ep_why, sizeof ep_why) != KD_OK) {
        fprintf(stderr, "kdapp watch: %s\n", ep_why);
        return KD_EXIT_FAIL;
    }
    const char *url = urls.publish;
    kd_signals_block();

    char topic[32];
    size_t topic_len;
    if (episode)
        topic_len = (size_t)snprintf(topic, sizeof topic, KD_TOPIC_EPISODE "%u", (unsigned)episode) + 1;
    else
        topic_len = (size_t)snprintf(topic, sizeof topic, KD_TOPIC_EPISODE);
    nng_socket sock;
    nng_aio *aio = NULL;
    pthread_t stopper;
    int stopper_started = 0;
    int rv = nng_sub0_open(&sock);
    if (rv) {
        fprintf(stderr, "kdapp watch: cannot open a subscriber socket: %s\n", nng_strerror(rv));
        return KD_EXIT_FAIL;
    }
    rc = KD_EXIT_OK;
    if ((rv = nng_aio_alloc(&aio, NULL, NULL)) || (rv = nng_socket_set_size(sock, NNG_OPT_RECVMAXSZ, 0)) ||
        (rv = nng_socket_set_ms(sock, NNG_OPT_RECONNMINT, 50)) ||
        (rv = nng_socket_set_ms(sock, NNG_OPT_RECONNMAXT, 1000))) {
        fprintf(stderr, "kdapp watch: cannot set up the subscriber socket: %s\n", nng_strerror(rv));
        rc = KD_EXIT_FAIL;
        goto done;
    }
    if ((rv = nng_socket_set(sock, NNG_OPT_SUB_SUBSCRIBE, topic, topic_len)) ||
        (blocks && (rv = nng_socket_set(sock, NNG_OPT_SUB_SUBSCRIBE, KD_TOPIC_BLOCK, sizeof KD_TOPIC_BLOCK)))) {
        fprintf(stderr, "kdapp watch: cannot subscribe: %s\n", nng_strerror(rv));
        rc = KD_EXIT_FAIL;
        goto done;
    }
    if (pthread_create(&stopper, NULL, stop_on_signal, aio) != 0) {
        fprintf(stderr, "kdapp watch: cannot start the signal thread\n");
        rc = KD_EXIT_FAIL;
        goto done;
    }
    stopper_started = 1;
    /* A synchronous dial first, so "watching" means connected (tests wait
     * for it); if the engine is not up yet, keep dialing in the background. */
    if ((rv = nng_dial(sock, url, NULL, 0)) != 0) {
        fprintf(stderr, "kdapp watch: %s not reachable yet (%s); waiting for it\n", url, nng_strerror(rv));
        if ((rv = nng_dial(sock, url, NULL, NNG_FLAG_NONBLOCK))) {
            fprintf(stderr, "kdapp watch: cannot dial %s: %s\n", url, nng_strerror(rv));
            rc = rv == NNG_EADDRINVAL || rv == NNG_ENOTSUP ? KD_EXIT_USAGE : KD_EXIT_FAIL;
            goto done;
        }
    } else {
        fprintf(stderr, "kdapp watch: watching %s (%s)\n", url,
                episode  ? "one episode"
                : blocks ? "all episodes and blocks"
                         : "all episodes");
    }
    uint64_t shown = 0;
    while (!count || shown < count) {
        nng_msg *msg = NULL;
        kd_err err = kd_nng_recv_wait(sock, aio, &msg);
        if (err == KD_ERR_CLOSED) /* SIGINT/SIGTERM */
            break;
        if (err) {
            fprintf(stderr, "kdapp watch: receive failed: %s\n", kd_err_str(err));
            rc = KD_EXIT_FAIL;
            break;
        }
        shown += (uint64_t)show_frame(&cli->types, cli->render_flags, nng_msg_body(msg), nng_msg_len(msg));
        nng_msg_free(msg);
        fflush(stdout);
    }
done:
    if (stopper_started) {
        pthread_kill(stopper, SIGTERM);
        pthread_join(stopper, NULL);
    }
    kd_nng_close(sock);
    nng_aio_free(aio);
    return rc;
}
