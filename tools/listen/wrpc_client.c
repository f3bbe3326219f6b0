/*
 * wrpc_client.c — the wRPC JSON client (wrpc_client.h) on libwebsockets.
 *
 * One lws context per connection: connecting creates it, dropping the
 * connection destroys it, so a reconnect starts from nothing and no state
 * of the old socket leaks into the new one. The calling thread runs the
 * event loop (lws_service) until its condition holds; a timer (lws_sul)
 * bounds each wait and lws_cancel_service wakes it for an interrupt.
 *
 * Frames are reassembled from fragments (up to KD_WRPC_MAX_FRAME), then
 * parsed by kaspa_rpc.c: a reply goes to the waiting call when its id
 * matches, a virtual chain notification is counted. A frame that does not
 * parse (not JSON, nested past the parser's depth, of no wRPC shape, or
 * binary) is logged; while a call waits it may have been that call's
 * reply, so the call fails at once and the connection is dropped (a reply
 * to another id is only logged: a late answer to a call that timed out).
 */
#include "tools/listen/wrpc_client.h"

#include <libwebsockets.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/bytes.h"
#include "engine/logger.h"
#include "engine/netutil.h"
#include "tools/listen/kaspa_rpc.h"

enum { ST_CLOSED = 0, ST_CONNECTING, ST_OPEN };

struct kd_wrpc {
    lws_sorted_usec_list_t sul; /* the wait timer */
    char host[256], path[512];
    int port, tls;

    pthread_mutex_t mu; /* guards ctx against kd_wrpc_interrupt */
    struct lws_context *ctx;
    struct lws *wsi;
    int state;
    char conn_why[160];
    atomic_int interrupted;
    int timer_fired;

    uint64_t next_id, waiting_id;
    int waiting, have_reply;
    int bad_reply;     /* a malformed frame came while the call waited */
    char bad_why[256]; /* what was wrong with it */
    kd_wrpc_frame reply;

    kd_buf out; /* LWS_PRE bytes, then the frame */
    int out_pending;
    int closing; /* kd_wrpc_close: the next writable sends a close frame */
    kd_buf rx;
    int rx_binary, rx_overflow;
    unsigned notes;
    uint64_t bad_frames;
};

/* ------------------------------------------------------------ frames */

static void handle_frame(kd_wrpc *c, const char *text, size_t len)
{
    char why[256];
    kd_wrpc_frame f;
    if (kd_wrpc_frame_parse(text, len, &f, why, sizeof why)) {
        c->bad_frames++;
        KD_LOG_W("listen", "dropped a frame from the node: %s", why);
        if (c->waiting && !c->have_reply && !c->bad_reply) {
            c->bad_reply = 1;
            snprintf(c->bad_why, sizeof c->bad_why, "%s", why);
        }
        return;
    }
    if (f.kind == KD_WRPC_NOTIFICATION) {
        if (!strcmp(f.method, "virtualChainChangedNotification")) {
            kd_kaspa_chain ch;
            if (kd_kaspa_chain_notification_parse(f.params, &ch, why, sizeof why)) {
                c->bad_frames++;
                KD_LOG_W("listen", "dropped a notification: %s", why);
            } else {
                c->notes++;
                kd_kaspa_chain_fini(&ch);
            }
        } else {
            KD_LOG_D("listen", "ignored a %s notification", f.method);
        }
        kd_wrpc_frame_fini(&f);
        return;
    }
    if (c->waiting && !c->have_reply && f.id == c->waiting_id) {
        c->reply = f;
        c->have_reply = 1;
        return;
    }
    c->bad_frames++;
    KD_LOG_W("listen", "dropped a reply to no pending request (id %llu, method %s)", (unsigned long long)f.id,
             f.method[0] ? f.method : "none");
    kd_wrpc_frame_fini(&f);
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len)
{
    (void)user;
    struct lws_context *ctx = lws_get_context(wsi);
    kd_wrpc *c = ctx ? lws_context_user(ctx) : NULL;
    if (!c)
        return 0;
    switch (reason) {
    case LWS_CALLBACK_CLIENT_ESTABLISHED:
        c->state = ST_OPEN;
        break;
    case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
        snprintf(c->conn_why, sizeof c->conn_why, "%s", in && len ? (const char *)in : "connection failed");
        c->state = ST_CLOSED;
        c->wsi = NULL;
        break;
    case LWS_CALLBACK_CLIENT_CLOSED:
        if (wsi == c->wsi) {
            snprintf(c->conn_why, sizeof c->conn_why, "the node closed the connection");
            c->state = ST_CLOSED;
            c->wsi = NULL;
        }
        break;
    case LWS_CALLBACK_WSI_DESTROY:
        if (wsi == c->wsi) {
            c->state = ST_CLOSED;
            c->wsi = NULL;
        }
        break;
    case LWS_CALLBACK_CLIENT_RECEIVE:
        if (lws_is_first_fragment(wsi)) {
            c->rx.len = 0;
            c->rx_binary = lws_frame_is_binary(wsi);
            c->rx_overflow = 0;
        }
        if (!c->rx_overflow && c->rx.len + len > KD_WRPC_MAX_FRAME) {
            c->rx_overflow = 1;
            KD_LOG_W("listen", "a frame from the node is larger than %zu bytes; dropping the connection",
                     KD_WRPC_MAX_FRAME);
            snprintf(c->conn_why, sizeof c->conn_why, "a frame over the size limit");
            return -1;
        }
        if (kd_buf_append(&c->rx, in, len))
            return -1;
        if (lws_is_final_fragment(wsi) && !lws_remaining_packet_payload(wsi)) {
            if (c->rx_binary) {
                c->bad_frames++;
                KD_LOG_W("listen", "dropped a binary frame of %zu bytes (this client speaks JSON)", c->rx.len);
                if (c->waiting && !c->have_reply && !c->bad_reply) {
                    c->bad_reply = 1;
                    snprintf(c->bad_why, sizeof c->bad_why, "a binary frame of %zu bytes", c->rx.len);
                }
            } else {
                handle_frame(c, (const char *)c->rx.data, c->rx.len);
            }
            c->rx.len = 0;
        }
        break;
    case LWS_CALLBACK_CLIENT_WRITEABLE:
        if (c->closing) { /* lws sends the close frame, then waits for the node's */
            lws_close_reason(wsi, LWS_CLOSE_STATUS_NORMAL, NULL, 0);
            return -1;
        }
        if (c->out_pending) {
            size_t n = c->out.len - LWS_PRE;
            c->out_pending = 0;
            if (lws_write(wsi, c->out.data + LWS_PRE, n, LWS_WRITE_TEXT) < (int)n) {
                snprintf(c->conn_why, sizeof c->conn_why, "writing to the node failed");
                return -1;
            }
        }
        break;
    default:
        break;
    }
    return 0;
}

static const struct lws_protocols protocols[] = {
    {.name = "kdapp-wrpc-json", .callback = callback, .rx_buffer_size = 65536},
    {0},
};

/* ------------------------------------------------------------- loop */

static void on_timer(lws_sorted_usec_list_t *sul)
{
    kd_wrpc *c = (kd_wrpc *)((char *)sul - offsetof(kd_wrpc, sul));
    c->timer_fired = 1;
}

typedef int (*cond_fn)(const kd_wrpc *c);

/* Runs the loop until cond holds (1), the deadline passes (0) or an
 * interrupt (-1). */
static int service_until(kd_wrpc *c, uint64_t deadline, cond_fn cond)
{
    for (;;) {
        if (cond(c))
            return 1;
        if (atomic_load(&c->interrupted))
            return -1;
        uint64_t now = kd_now_ms();
        if (now >= deadline || !c->ctx)
            return 0;
        c->timer_fired = 0;
        lws_sul_schedule(c->ctx, 0, &c->sul, on_timer, (lws_usec_t)(deadline - now) * 1000);
        lws_service(c->ctx, 0);
        lws_sul_schedule(c->ctx, 0, &c->sul, on_timer, LWS_SET_TIMER_USEC_CANCEL);
    }
}

static int not_connecting(const kd_wrpc *c) { return c->state != ST_CONNECTING; }
static int reply_or_closed(const kd_wrpc *c) { return c->have_reply || c->bad_reply || c->state != ST_OPEN; }
static int note_or_closed(const kd_wrpc *c) { return c->notes > 0 || c->state != ST_OPEN; }

static void drop_connection(kd_wrpc *c)
{
    pthread_mutex_lock(&c->mu);
    struct lws_context *ctx = c->ctx;
    c->ctx = NULL;
    pthread_mutex_unlock(&c->mu);
    if (ctx)
        lws_context_destroy(ctx);
    c->wsi = NULL;
    c->state = ST_CLOSED;
    c->out_pending = 0;
    c->rx.len = 0;
}

/* ------------------------------------------------------------ public */

/* libwebsockets' own log lines, through ours (errors and warnings only). */
static void lws_log_line(int level, const char *line)
{
    size_t n = strlen(line);
    while (n && line[n - 1] == '\n')
        n--;
    if (level & LLL_ERR)
        KD_LOG_E("listen", "libwebsockets: %.*s", (int)n, line);
    else
        KD_LOG_W("listen", "libwebsockets: %.*s", (int)n, line);
}

static kd_err parse_url(kd_wrpc *c, const char *url, char *why, size_t why_len)
{
    const char *p;
    if (!strncmp(url, "ws://", 5)) {
        p = url + 5;
    } else if (!strncmp(url, "wss://", 6)) {
        p = url + 6;
        c->tls = 1;
    } else {
        snprintf(why, why_len, "'%s' is not a ws:// or wss:// URL", url);
        return KD_ERR_INVALID_ARG;
    }
    size_t hl = strcspn(p, ":/");
    if (hl == 0 || hl >= sizeof c->host) {
        snprintf(why, why_len, "'%s' has no host", url);
        return KD_ERR_INVALID_ARG;
    }
    memcpy(c->host, p, hl);
    c->host[hl] = 0;
    p += hl;
    c->port = c->tls ? 443 : 80;
    if (*p == ':') {
        char *end;
        long port = strtol(p + 1, &end, 10);
        if (end == p + 1 || port < 1 || port > 65535 || (*end && *end != '/')) {
            snprintf(why, why_len, "'%s' has no valid port (1 to 65535)", url);
            return KD_ERR_INVALID_ARG;
        }
        c->port = (int)port;
        p = end;
    }
    if (strlen(p) >= sizeof c->path) {
        snprintf(why, why_len, "the path of '%s' is too long", url);
        return KD_ERR_INVALID_ARG;
    }
    snprintf(c->path, sizeof c->path, "%s", *p ? p : "/");
    return KD_OK;
}

kd_err kd_wrpc_reconnect(kd_wrpc *c, uint32_t timeout_ms, char *why, size_t why_len)
{
    drop_connection(c);
    if (atomic_load(&c->interrupted)) {
        snprintf(why, why_len, "interrupted");
        return KD_ERR_CLOSED;
    }
    lws_set_log_level(LLL_ERR | LLL_WARN, lws_log_line);
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.port = CONTEXT_PORT_NO_LISTEN;
    info.protocols = protocols;
    info.user = c;
    info.gid = -1;
    info.uid = -1;
    if (c->tls)
        info.options |= LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
    struct lws_context *ctx = lws_create_context(&info);
    if (!ctx) {
        snprintf(why, why_len, "libwebsockets could not create a context");
        return KD_ERR_NOMEM;
    }
    pthread_mutex_lock(&c->mu);
    c->ctx = ctx;
    pthread_mutex_unlock(&c->mu);
    struct lws_client_connect_info ci;
    memset(&ci, 0, sizeof ci);
    ci.context = ctx;
    ci.address = c->host;
    ci.port = c->port;
    ci.path = c->path;
    ci.host = c->host;
    ci.origin = c->host;
    ci.ssl_connection = c->tls ? LCCSCF_USE_SSL : 0;
    ci.ietf_version_or_minus_one = -1;
    ci.pwsi = &c->wsi;
    c->state = ST_CONNECTING;
    snprintf(c->conn_why, sizeof c->conn_why, "connection failed");
    if (!lws_client_connect_via_info(&ci))
        c->state = ST_CLOSED;
    int r = service_until(c, kd_now_ms() + timeout_ms, not_connecting);
    if (c->state == ST_OPEN)
        return KD_OK;
    kd_err err = r < 0 ? KD_ERR_CLOSED : r == 0 ? KD_ERR_TIMEOUT : KD_ERR_NET;
    snprintf(why, why_len, "%s:%d: %s", c->host, c->port,
             r < 0    ? "interrupted"
             : r == 0 ? "no answer in time"
                      : c->conn_why);
    drop_connection(c);
    return err;
}

kd_err kd_wrpc_open(const char *url, uint32_t timeout_ms, kd_wrpc **out, char *why, size_t why_len)
{
    *out = NULL;
    kd_wrpc *c = calloc(1, sizeof *c);
    if (!c)
        return KD_ERR_NOMEM;
    kd_err err = parse_url(c, url, why, why_len);
    if (err) {
        free(c);
        return err;
    }
    pthread_mutex_init(&c->mu, NULL);
    kd_buf_init(&c->out);
    kd_buf_init(&c->rx);
    atomic_init(&c->interrupted, 0);
    *out = c;
    return kd_wrpc_reconnect(c, timeout_ms, why, why_len);
}

/* Closes an open connection the WebSocket way (RFC 6455 5.5.1): a close
 * frame with status 1000, then the node's close frame, or
 * CLOSE_WAIT_MS. An interrupt does not cut this short: it is how a stop
 * ends. */
static void close_cleanly(kd_wrpc *c)
{
    enum { CLOSE_WAIT_MS = 1000 };
    if (c->state != ST_OPEN || !c->ctx || !c->wsi)
        return;
    c->closing = 1;
    lws_callback_on_writable(c->wsi);
    uint64_t deadline = kd_now_ms() + CLOSE_WAIT_MS;
    for (uint64_t now = kd_now_ms(); c->state == ST_OPEN && now < deadline; now = kd_now_ms()) {
        c->timer_fired = 0;
        lws_sul_schedule(c->ctx, 0, &c->sul, on_timer, (lws_usec_t)(deadline - now) * 1000);
        lws_service(c->ctx, 0);
        lws_sul_schedule(c->ctx, 0, &c->sul, on_timer, LWS_SET_TIMER_USEC_CANCEL);
    }
    c->closing = 0;
}

void kd_wrpc_close(kd_wrpc *c)
{
    if (!c)
        return;
    close_cleanly(c);
    drop_connection(c);
    kd_wrpc_frame_fini(&c->reply);
    kd_buf_fini(&c->out);
    kd_buf_fini(&c->rx);
    pthread_mutex_destroy(&c->mu);
    free(c);
}

kd_err kd_wrpc_call(kd_wrpc *c, const char *method, const json_t *params, uint32_t timeout_ms, json_t **result,
                    char *why, size_t why_len)
{
    *result = NULL;
    if (c->state != ST_OPEN) {
        snprintf(why, why_len, "not connected to the node");
        return KD_ERR_NET;
    }
    uint64_t id = ++c->next_id;
    char *text = kd_wrpc_request_text(id, method, params);
    if (!text)
        return KD_ERR_NOMEM;
    size_t n = strlen(text);
    c->out.len = 0;
    kd_err err = kd_buf_reserve(&c->out, LWS_PRE + n);
    if (!err) {
        memset(c->out.data, 0, LWS_PRE);
        memcpy(c->out.data + LWS_PRE, text, n);
        c->out.len = LWS_PRE + n;
    }
    free(text);
    if (err)
        return err;
    c->out_pending = 1;
    c->waiting = 1;
    c->waiting_id = id;
    c->have_reply = 0;
    c->bad_reply = 0;
    lws_callback_on_writable(c->wsi);
    int r = service_until(c, kd_now_ms() + timeout_ms, reply_or_closed);
    c->waiting = 0;
    if (c->have_reply) {
        c->have_reply = 0;
        if (c->reply.kind == KD_WRPC_ERROR) {
            snprintf(why, why_len, "%s", c->reply.error);
            err = KD_ERR_NOT_FOUND;
        } else {
            *result = json_incref(c->reply.params);
        }
        kd_wrpc_frame_fini(&c->reply);
        return err;
    }
    if (c->bad_reply) {
        /* its reply may have been that frame: this call fails now, and the
         * connection, whose next frames cannot be trusted, is dropped */
        c->bad_reply = 0;
        snprintf(why, why_len,
                 "%s: the node sent a malformed frame while the request waited (%s); the request failed and the "
                 "connection was dropped",
                 method, c->bad_why);
        drop_connection(c);
        return KD_ERR_NET;
    }
    if (r < 0) {
        snprintf(why, why_len, "interrupted");
        return KD_ERR_CLOSED;
    }
    if (c->state != ST_OPEN) {
        snprintf(why, why_len, "%s: the connection dropped (%s)", method, c->conn_why);
        drop_connection(c);
        return KD_ERR_NET;
    }
    snprintf(why, why_len, "%s: no reply within %u ms", method, timeout_ms);
    return KD_ERR_TIMEOUT;
}

unsigned kd_wrpc_wait(kd_wrpc *c, uint32_t ms)
{
    if (c->state == ST_OPEN)
        (void)service_until(c, kd_now_ms() + ms, note_or_closed);
    if (c->state != ST_OPEN && c->ctx)
        drop_connection(c);
    unsigned n = c->notes;
    c->notes = 0;
    return n;
}

int kd_wrpc_connected(const kd_wrpc *c) { return c->state == ST_OPEN; }

uint64_t kd_wrpc_bad_frames(const kd_wrpc *c) { return c->bad_frames; }

void kd_wrpc_interrupt(kd_wrpc *c)
{
    atomic_store(&c->interrupted, 1);
    pthread_mutex_lock(&c->mu);
    if (c->ctx)
        lws_cancel_service(c->ctx);
    pthread_mutex_unlock(&c->mu);
}
