/*
 * http_events.c — the broadcast event streams of the optional web app: a
 * GET on events_path gets every event kd_mcp_http_publish sends from then
 * on, as server-sent events. Unlike an MCP session's stream (each message
 * goes to one stream), every stream sees every event.
 *
 * The transport keeps the last KD_HTTP_EVENTS_KEPT events in a ring
 * numbered by a sequence; each stream holds the sequence of the next event
 * it will send. A publish appends to the ring and wakes the streams that
 * are suspended; a stream whose next event has left the ring sends
 * "event: resync" once and jumps to the newest, so a slow reader costs no
 * memory and learns it must reload. Everything here is under h->lock (see
 * http_int.h for the suspend/resume rule, which is the same as for the
 * MCP streams). A client's share of streams, and what is closed to make
 * room when the table is full, is http_clients.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/logger.h"
#include "mcp/server/http_int.h"

struct kd_http_events_stream {
    kd_http_stream_base base;    /* first: conn, suspended, evicted, its client */
    kd_http_events_stream *next; /* h->events_list */
    kd_mcp_http *h;
    uint64_t next_seq; /* the next event to send */
    char *out;         /* bytes being written */
    size_t out_len, out_off;
    int opened;
    struct timespec last_write; /* CLOCK_MONOTONIC */
};

static double ms_since(const struct timespec *t)
{
    struct timespec n;

    clock_gettime(CLOCK_MONOTONIC, &n);
    return (double)(n.tv_sec - t->tv_sec) * 1e3 + (n.tv_nsec - t->tv_nsec) / 1e6;
}

static void wake_locked(kd_http_events_stream *st) { kd_http_stream_wake_locked(&st->base); }

void kd_mcp_http_publish(kd_mcp_http *h, const char *event, const char *data)
{
    size_t n = strlen("event: \ndata: \n\n") + strlen(event) + strlen(data) + 1;
    char *text = malloc(n);
    kd_http_events_stream *st;

    if (h->events_path == NULL || text == NULL) {
        free(text);
        return;
    }
    snprintf(text, n, "event: %s\ndata: %s\n\n", event, data);
    pthread_mutex_lock(&h->lock);
    if (h->stopping) {
        pthread_mutex_unlock(&h->lock);
        free(text);
        return;
    }
    free(h->events[h->events_next % KD_HTTP_EVENTS_KEPT]);
    h->events[h->events_next % KD_HTTP_EVENTS_KEPT] = text;
    h->events_next++;
    for (st = h->events_list; st != NULL; st = st->next)
        wake_locked(st);
    pthread_mutex_unlock(&h->lock);
}

/* Points the stream's output at a copy of `text`; -1 when out of memory. */
static int set_out(kd_http_events_stream *st, const char *text)
{
    free(st->out);
    st->out_off = 0;
    st->out_len = strlen(text);
    if ((st->out = strdup(text)) == NULL)
        st->out_len = 0;
    return st->out == NULL ? -1 : 0;
}

/* The next text to send, or NULL when there is none yet (under h->lock). */
static const char *next_text_locked(kd_mcp_http *h, kd_http_events_stream *st)
{
    if (!st->opened) {
        st->opened = 1; /* something at once, so the client sees the headers */
        return ": stream open\n\n";
    }
    if (st->next_seq < h->events_next) {
        if (h->events_next - st->next_seq > KD_HTTP_EVENTS_KEPT) {
            st->next_seq = h->events_next;
            return "event: resync\ndata: {}\n\n";
        }
        return h->events[st->next_seq++ % KD_HTTP_EVENTS_KEPT];
    }
    if (ms_since(&st->last_write) >= h->keepalive_ms - KD_HTTP_KEEPALIVE_SLACK_MS(h))
        return ": keepalive\n\n";
    return NULL;
}

/* libmicrohttpd's content reader, on a polling thread. */
static ssize_t events_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    kd_http_events_stream *st = cls;
    kd_mcp_http *h = st->h;
    const char *text;
    size_t n;

    (void)pos;
    pthread_mutex_lock(&h->lock);
    if (st->out_off == st->out_len) {
        /* a stream closed for a newer one still says it was open first,
         * however soon after it came (the client sees the stream, then
         * its end, never an empty answer) */
        if (h->stopping || (st->base.evicted && st->opened)) {
            pthread_mutex_unlock(&h->lock);
            return MHD_CONTENT_READER_END_OF_STREAM;
        }
        if ((text = next_text_locked(h, st)) == NULL) {
            st->base.suspended = 1;
            MHD_suspend_connection(st->base.conn);
            kd_http_timer_note_locked(h, &st->last_write); /* a deadline before the timer's next look */
            pthread_mutex_unlock(&h->lock);
            return 0;
        }
        if (set_out(st, text) != 0) {
            pthread_mutex_unlock(&h->lock);
            KD_LOG_W("mcp", "http: out of memory; an event stream was closed");
            return MHD_CONTENT_READER_END_WITH_ERROR;
        }
    }
    n = st->out_len - st->out_off;
    if (n > max)
        n = max;
    memcpy(buf, st->out + st->out_off, n);
    st->out_off += n;
    clock_gettime(CLOCK_MONOTONIC, &st->last_write);
    pthread_mutex_unlock(&h->lock);
    return (ssize_t)n;
}

static void events_free(void *cls)
{
    kd_http_events_stream *st = cls, **pp;
    kd_mcp_http *h = st->h;

    pthread_mutex_lock(&h->lock);
    for (pp = &h->events_list; *pp != st; pp = &(*pp)->next)
        ;
    *pp = st->next;
    kd_http_stream_leave_locked(h, &st->base);
    pthread_mutex_unlock(&h->lock);
    free(st->out);
    free(st);
}

struct MHD_Response *kd_http_events_open(kd_mcp_http *h, struct MHD_Connection *c, const kd_http_client_key *who,
                                         unsigned *status)
{
    kd_http_client_key whose;
    kd_http_events_stream *st;
    struct MHD_Response *r;
    int evicted;

    *status = MHD_HTTP_INTERNAL_SERVER_ERROR;
    if ((st = calloc(1, sizeof *st)) == NULL)
        return NULL;
    st->h = h;
    st->base.conn = c;
    clock_gettime(CLOCK_MONOTONIC, &st->last_write);
    pthread_mutex_lock(&h->lock);
    if ((evicted = kd_http_stream_admit_locked(h, &st->base, who, 1, &whose)) < 0) {
        pthread_mutex_unlock(&h->lock);
        free(st);
        return NULL;
    }
    st->next_seq = h->events_next;
    st->next = h->events_list;
    h->events_list = st;
    pthread_mutex_unlock(&h->lock);
    if (evicted > 0)
        kd_http_stream_log_evicted(h, &whose);
    if ((r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, events_read, st, events_free)) == NULL)
        events_free(st);
    return r;
}

long kd_http_events_keepalive_locked(kd_mcp_http *h, long cap_ms)
{
    kd_http_events_stream *st;
    long next = cap_ms, left;
    double elapsed;

    for (st = h->events_list; st != NULL; st = st->next) {
        if (!st->base.suspended)
            continue;
        elapsed = ms_since(&st->last_write);
        left = (long)(h->keepalive_ms - elapsed) + 1;
        if (elapsed >= h->keepalive_ms - KD_HTTP_KEEPALIVE_SLACK_MS(h))
            wake_locked(st); /* due, or soon: one pass serves them all */
        else if (left < next)
            next = left;
    }
    return next;
}

void kd_http_events_end_all_locked(kd_mcp_http *h)
{
    kd_http_events_stream *st;

    for (st = h->events_list; st != NULL; st = st->next)
        wake_locked(st);
}

void kd_http_events_fini(kd_mcp_http *h)
{
    size_t i;

    for (i = 0; i < KD_HTTP_EVENTS_KEPT; i++) {
        free(h->events[i]);
        h->events[i] = NULL;
    }
    free(h->events_path);
    h->events_path = NULL;
}
