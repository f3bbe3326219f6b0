/*
 * http_session.c — sessions of the Streamable HTTP transport: the table
 * keyed by Mcp-Session-Id, reference counting, idle expiry, the queue of
 * server-initiated messages and the SSE streams that drain it.
 *
 * A server message (the core session's send callback, hs_send) is appended
 * to the session's queue and the streams are woken; whichever stream of that
 * session takes it first writes it, so each message goes to exactly one
 * stream, as the specification requires. While no stream is open, up to
 * max_queued messages wait (the oldest are dropped beyond that), so a client
 * that opens its GET stream just after subscribing still sees the first
 * update.
 *
 * The stream callbacks run on libmicrohttpd's polling threads, which serve
 * every other connection too, so they never wait: with nothing to send, a
 * stream suspends its connection (a parked connection costs no thread and
 * is not subject to the idle timeout) and returns no bytes. Whatever gives
 * it something to send resumes it: hs_send, the end of its session, the
 * transport stopping, or the timer below when its keepalive is due (an SSE
 * comment, so that a vanished client is noticed and proxies keep the
 * stream open).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "engine/logger.h"
#include "mcp/server/http_int.h"

struct kd_http_stream {
    kd_http_stream_base base; /* first: conn, suspended, evicted, its client */
    kd_http_stream *next;     /* the session's streams (h->lock) */
    kd_http_session *hs;
    char *out; /* bytes being written */
    size_t out_len, out_off;
    int opened;
    struct timespec last_write;
};

static void now_mono(struct timespec *t) { clock_gettime(CLOCK_MONOTONIC, t); }

static double seconds_since(const struct timespec *t)
{
    struct timespec n;

    now_mono(&n);
    return (double)(n.tv_sec - t->tv_sec) + (n.tv_nsec - t->tv_nsec) / 1e9;
}

/* Resumes a stream that waits for something to send (under h->lock). */
static void wake_locked(kd_http_stream *st) { kd_http_stream_wake_locked(&st->base); }

static void wake_session_locked(kd_http_session *hs)
{
    kd_http_stream *st;

    for (st = hs->stream_list; st != NULL; st = st->next)
        wake_locked(st);
}

/* Called by the core session, under its lock, from any thread. */
static void hs_send(void *ctx, const char *text)
{
    kd_http_session *hs = ctx;
    kd_mcp_http *h = hs->http;
    kd_http_msg *m = malloc(sizeof *m), *old = NULL;
    char *copy = strdup(text);

    if (m == NULL || copy == NULL) {
        KD_LOG_W("mcp", "http: out of memory; a server message was dropped");
        free(m);
        free(copy);
        return;
    }
    m->next = NULL;
    m->text = copy;
    pthread_mutex_lock(&h->lock);
    if (hs->ended) {
        pthread_mutex_unlock(&h->lock);
        free(copy);
        free(m);
        return;
    }
    if (hs->queued >= h->max_queued) {
        old = hs->head;
        hs->head = old->next;
        if (hs->head == NULL)
            hs->tail = NULL;
        hs->queued--;
    }
    if (hs->tail != NULL)
        hs->tail->next = m;
    else
        hs->head = m;
    hs->tail = m;
    hs->queued++;
    wake_session_locked(hs);
    pthread_mutex_unlock(&h->lock);
    if (old != NULL) {
        KD_LOG_LIMITED(&h->log_dropped, KD_LOG_WARN, "mcp",
                       "http: session %.8s… has %u undelivered messages and no open stream; "
                       "the oldest was dropped",
                       hs->id, h->max_queued);
        free(old->text);
        free(old);
    }
}

/* Gives back the slot of a session that leaves the table, or of a
 * pending one that never entered it (under h->lock). */
static void leave_locked(kd_mcp_http *h, kd_http_session *hs)
{
    h->n_sessions--;
    if (hs->client != NULL) {
        hs->client->sessions--;
        kd_http_client_put_locked(h, hs->client);
        hs->client = NULL;
    }
}

/* Removes from the table sessions unused for idle_s (under h->lock). */
static void sweep_locked(kd_mcp_http *h, kd_http_session **dropped)
{
    kd_http_session **pp = &h->sessions, *hs;

    while ((hs = *pp) != NULL) {
        if (hs->busy == 0 && hs->streams == 0 && seconds_since(&hs->last_used) > h->idle_s) {
            *pp = hs->next;
            hs->next = *dropped;
            *dropped = hs;
            hs->in_table = 0;
            hs->ended = 1;
            leave_locked(h, hs);
            KD_LOG_I("mcp", "http: session %.8s… expired after %u s idle", hs->id, h->idle_s);
        } else {
            pp = &hs->next;
        }
    }
}

static void session_destroy(kd_http_session *hs)
{
    kd_http_msg *m, *next;

    kd_mcp_session_free(hs->core); /* no hs_send after this returns */
    for (m = hs->head; m != NULL; m = next) {
        next = m->next;
        free(m->text);
        free(m);
    }
    free(hs);
}

/* Drops the table's reference of sessions removed by a sweep. */
static void release_dropped(kd_http_session *list)
{
    kd_http_session *next;

    for (; list != NULL; list = next) {
        next = list->next;
        kd_http_session_release(list, 0);
    }
}

/* Unlinks `hs` from the table and marks it ended (under h->lock). */
static void end_locked(kd_mcp_http *h, kd_http_session *hs)
{
    kd_http_session **pp;

    for (pp = &h->sessions; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == hs) {
            *pp = hs->next;
            break;
        }
    }
    hs->next = NULL;
    hs->in_table = 0;
    hs->ended = 1;
    leave_locked(h, hs);
    wake_session_locked(hs);
}

/*
 * The idle session to shed for a new one (under h->lock), or NULL when none
 * is idle. Idle: no request in flight and no open stream. With `only`, the
 * least recently used of that client's; else the least recently used of
 * the client holding the most sessions (among clients with an idle one),
 * so the heaviest user makes room, never a client with one session while
 * another holds many.
 */
static kd_http_session *shed_candidate_locked(kd_mcp_http *h, const kd_http_client *only)
{
    kd_http_session *hs, *best = NULL;

    for (hs = h->sessions; hs != NULL; hs = hs->next) {
        if (hs->busy > 0 || hs->streams > 0 || hs->client == NULL || (only != NULL && hs->client != only))
            continue;
        if (best == NULL || hs->client->sessions > best->client->sessions ||
            (hs->client->sessions == best->client->sessions &&
             (hs->last_used.tv_sec < best->last_used.tv_sec ||
              (hs->last_used.tv_sec == best->last_used.tv_sec && hs->last_used.tv_nsec < best->last_used.tv_nsec))))
            best = hs;
    }
    return best;
}

/*
 * Makes room for a session of client `key`, under h->lock: sweeps expired
 * sessions when a limit is reached, then sheds an idle session — the
 * client's own when it holds its share, else, when the table is full,
 * one of the client holding the most. The shed session leaves the table
 * (its id answers 404 from now on) and goes to *dropped. Returns the
 * client's entry with the slot reserved; NULL with *per_client set when
 * nothing could be shed, or with *per_client -1 when out of memory.
 */
static kd_http_client *reserve_locked(kd_mcp_http *h, const kd_http_client_key *key, kd_http_session **dropped,
                                      kd_http_session **shed, kd_http_client_key *shed_from, int *per_client)
{
    kd_http_client *cl = kd_http_client_find_locked(h, key);
    kd_http_session *victim = NULL;
    int mine;

    *shed = NULL;
    if (h->n_sessions >= h->max_sessions || (cl != NULL && cl->sessions >= h->max_sessions_per_client)) {
        sweep_locked(h, dropped);
        cl = kd_http_client_find_locked(h, key); /* the sweep may have freed it */
    }
    mine = cl != NULL && cl->sessions >= h->max_sessions_per_client;
    if (mine || h->n_sessions >= h->max_sessions) {
        if ((victim = shed_candidate_locked(h, mine ? cl : NULL)) == NULL) {
            *per_client = mine;
            return NULL;
        }
        *shed_from = victim->client->key;
        unsigned slot = h->shed_next++ % KD_HTTP_SHED_KEPT;
        memcpy(h->shed_ids[slot], victim->id, sizeof h->shed_ids[slot]);
        h->shed_own[slot] = (unsigned char)(mine != 0);
        end_locked(h, victim);
        victim->next = *dropped;
        *dropped = victim;
        *shed = victim;
    }
    if ((cl = kd_http_client_get_locked(h, key)) == NULL) {
        *per_client = -1;
        return NULL;
    }
    h->n_sessions++;
    cl->sessions++;
    return cl;
}

int kd_http_session_shed_why(kd_mcp_http *h, const char *id)
{
    int why = -1;

    if (id == NULL || strlen(id) != KD_HTTP_SESSION_ID_HEX)
        return -1;
    pthread_mutex_lock(&h->lock);
    for (unsigned i = 0; i < KD_HTTP_SHED_KEPT && why < 0; i++)
        if (h->shed_ids[i][0] != '\0' && strcmp(h->shed_ids[i], id) == 0)
            why = h->shed_own[i];
    pthread_mutex_unlock(&h->lock);
    return why;
}

kd_err kd_http_session_create(kd_mcp_http *h, const kd_http_client_key *who, kd_http_session **out, int *per_client)
{
    kd_http_session *hs = NULL, *dropped = NULL, *shed = NULL;
    unsigned char rnd[KD_HTTP_SESSION_ID_HEX / 2];
    kd_http_client_key shed_from;
    kd_http_client *cl = NULL;
    char shed_id[9] = "", victim[64], name[64];
    kd_err err;
    size_t i;

    *out = NULL;
    *per_client = 0;
    pthread_mutex_lock(&h->lock);
    if (!h->stopping)
        cl = reserve_locked(h, who, &dropped, &shed, &shed_from, per_client);
    if (shed != NULL)
        snprintf(shed_id, sizeof shed_id, "%.8s", shed->id);
    pthread_mutex_unlock(&h->lock);
    release_dropped(dropped);
    if (shed_id[0] != '\0') {
        kd_http_client_name(&shed_from, victim, sizeof victim);
        kd_http_client_name(who, name, sizeof name);
        KD_LOG_LIMITED(&h->log_shed, KD_LOG_INFO, "mcp",
                       "http: shed the idle session %s… of %s to make room for a new session of %s; it now answers "
                       "404",
                       shed_id, victim, name);
    }
    if (cl == NULL) {
        if (*per_client < 0) {
            *per_client = 0;
            return KD_ERR_NOMEM;
        }
        return KD_ERR_BUSY;
    }

    err = KD_ERR_NOMEM;
    if ((hs = calloc(1, sizeof *hs)) == NULL)
        goto fail;
    hs->client = cl; /* the reservation, given back by leave_locked */
    if (RAND_bytes(rnd, sizeof rnd) != 1) {
        KD_LOG_E("mcp", "http: the CSPRNG failed; no session id can be issued");
        err = KD_ERR_INTERNAL;
        goto fail;
    }
    for (i = 0; i < sizeof rnd; i++)
        snprintf(hs->id + 2 * i, 3, "%02x", rnd[i]);
    hs->http = h;
    hs->owner = who->token;
    hs->refs = 1;
    hs->busy = 1;
    now_mono(&hs->last_used);
    if ((err = kd_mcp_session_alloc(h->srv, hs_send, hs, &hs->core)) != KD_OK)
        goto fail;
    /* before its first message (the initialize the caller handles next) */
    kd_mcp_session_set_principal(hs->core, who->token >= 0 ? h->tokens[who->token].principal : NULL);
    *out = hs;
    return KD_OK;
fail:
    pthread_mutex_lock(&h->lock);
    if (hs != NULL) {
        leave_locked(h, hs);
    } else {
        h->n_sessions--;
        cl->sessions--;
        kd_http_client_put_locked(h, cl);
    }
    pthread_mutex_unlock(&h->lock);
    free(hs);
    return err;
}

void kd_http_session_publish(kd_http_session *hs)
{
    kd_mcp_http *h = hs->http;

    pthread_mutex_lock(&h->lock);
    hs->refs++;
    hs->in_table = 1;
    hs->next = h->sessions;
    h->sessions = hs;
    pthread_mutex_unlock(&h->lock);
}

/* The live session with id `id` (under h->lock), or NULL. */
static kd_http_session *lookup_locked(kd_mcp_http *h, const char *id)
{
    kd_http_session *hs;

    if (strlen(id) != KD_HTTP_SESSION_ID_HEX)
        return NULL;
    for (hs = h->sessions; hs != NULL; hs = hs->next)
        if (!hs->ended && CRYPTO_memcmp(hs->id, id, KD_HTTP_SESSION_ID_HEX) == 0)
            return hs;
    return NULL;
}

kd_http_lookup kd_http_session_find(kd_mcp_http *h, const char *id, int owner, kd_http_session **out)
{
    kd_http_lookup found = KD_HTTP_UNKNOWN;
    kd_http_session *hs;

    *out = NULL;
    pthread_mutex_lock(&h->lock);
    if ((hs = lookup_locked(h, id)) != NULL && hs->owner != owner) {
        found = KD_HTTP_NOT_YOURS;
    } else if (hs != NULL) {
        hs->refs++;
        hs->busy++;
        now_mono(&hs->last_used);
        *out = hs;
        found = KD_HTTP_FOUND;
    }
    pthread_mutex_unlock(&h->lock);
    return found;
}

void kd_http_session_release(kd_http_session *hs, int was_busy)
{
    kd_mcp_http *h = hs->http;
    unsigned refs;
    int unreserve;

    pthread_mutex_lock(&h->lock);
    if (was_busy) {
        hs->busy--;
        now_mono(&hs->last_used);
    }
    refs = --hs->refs;
    /* A pending session that never made it into the table still holds
     * its reserved slot. */
    unreserve = refs == 0 && !hs->in_table && !hs->ended;
    if (unreserve)
        leave_locked(h, hs);
    pthread_mutex_unlock(&h->lock);
    if (refs == 0)
        session_destroy(hs);
}

kd_http_lookup kd_http_session_end(kd_mcp_http *h, const char *id, int owner)
{
    kd_http_session *hs;

    pthread_mutex_lock(&h->lock);
    if ((hs = lookup_locked(h, id)) != NULL && hs->owner != owner) {
        pthread_mutex_unlock(&h->lock);
        return KD_HTTP_NOT_YOURS;
    }
    if (hs != NULL)
        end_locked(h, hs);
    pthread_mutex_unlock(&h->lock);
    if (hs == NULL)
        return KD_HTTP_UNKNOWN;
    KD_LOG_I("mcp", "http: session %.8s… ended by the client", hs->id);
    kd_http_session_release(hs, 0); /* the table's reference */
    return KD_HTTP_FOUND;
}

void kd_http_session_end_all(kd_mcp_http *h)
{
    kd_http_session *list, *hs;

    pthread_mutex_lock(&h->lock);
    h->stopping = 1;
    kd_http_events_end_all_locked(h);
    list = h->sessions;
    h->sessions = NULL;
    for (hs = list; hs != NULL; hs = hs->next) {
        hs->in_table = 0;
        hs->ended = 1;
        leave_locked(h, hs);
        wake_session_locked(hs);
    }
    pthread_mutex_unlock(&h->lock);
    release_dropped(list);
}

/* ---- SSE streams ------------------------------------------------------- */

static int set_out(kd_http_stream *st, const char *prefix, const char *text, const char *suffix)
{
    size_t n = strlen(prefix) + strlen(text) + strlen(suffix);

    free(st->out);
    st->out_len = st->out_off = 0;
    if ((st->out = malloc(n + 1)) == NULL)
        return -1;
    snprintf(st->out, n + 1, "%s%s%s", prefix, text, suffix);
    st->out_len = n;
    return 0;
}

/* Milliseconds until the stream's keepalive is due at the latest; 0 when
 * it is due now or within the slack (KD_HTTP_KEEPALIVE_SLACK_MS), so that
 * one timer pass serves every stream due about then. */
static long keepalive_in_ms(const kd_mcp_http *h, const kd_http_stream *st)
{
    double elapsed = seconds_since(&st->last_write) * 1000.0;

    if (elapsed >= h->keepalive_ms - KD_HTTP_KEEPALIVE_SLACK_MS(h))
        return 0;
    return (long)(h->keepalive_ms - elapsed) + 1;
}

/* libmicrohttpd's content reader, on a polling thread: the next bytes of
 * the stream, or 0 with the connection suspended until a wake. */
static ssize_t sse_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    kd_http_stream *st = cls;
    kd_http_session *hs = st->hs;
    kd_mcp_http *h = hs->http;
    kd_http_msg *m;
    size_t n;
    int rc;

    (void)pos;
    pthread_mutex_lock(&h->lock);
    for (;;) {
        if (st->out_off < st->out_len) {
            n = st->out_len - st->out_off;
            if (n > max)
                n = max;
            memcpy(buf, st->out + st->out_off, n);
            st->out_off += n;
            now_mono(&st->last_write);
            pthread_mutex_unlock(&h->lock);
            return (ssize_t)n;
        }
        if (h->stopping || hs->ended || (st->base.evicted && st->opened)) { /* as http_events.c */
            pthread_mutex_unlock(&h->lock);
            return MHD_CONTENT_READER_END_OF_STREAM;
        }
        if (!st->opened) {
            /* Something at once, so the client sees the headers now. */
            st->opened = 1;
            rc = set_out(st, ": stream open", "", "\n\n");
        } else if ((m = hs->head) != NULL) {
            hs->head = m->next;
            if (hs->head == NULL)
                hs->tail = NULL;
            hs->queued--;
            rc = set_out(st, "event: message\ndata: ", m->text, "\n\n");
            free(m->text);
            free(m);
        } else if (keepalive_in_ms(h, st) == 0) {
            rc = set_out(st, ": keepalive", "", "\n\n");
        } else {
            /* Nothing to say. Suspending under h->lock orders it before
             * any wake, which also takes h->lock; the timer learns of a
             * deadline sooner than its next look. */
            st->base.suspended = 1;
            MHD_suspend_connection(st->base.conn);
            kd_http_timer_note_locked(h, &st->last_write);
            pthread_mutex_unlock(&h->lock);
            return 0;
        }
        if (rc != 0) {
            pthread_mutex_unlock(&h->lock);
            KD_LOG_W("mcp", "http: out of memory; an event stream was closed");
            return MHD_CONTENT_READER_END_WITH_ERROR;
        }
    }
}

static void sse_free(void *cls)
{
    kd_http_stream *st = cls, **pp;
    kd_http_session *hs = st->hs;

    pthread_mutex_lock(&hs->http->lock);
    for (pp = &hs->stream_list; *pp != st; pp = &(*pp)->next)
        ;
    *pp = st->next;
    hs->streams--;
    kd_http_stream_leave_locked(hs->http, &st->base);
    now_mono(&hs->last_used);
    pthread_mutex_unlock(&hs->http->lock);
    free(st->out);
    free(st);
    kd_http_session_release(hs, 0);
}

struct MHD_Response *kd_http_sse_open(kd_http_session *hs, struct MHD_Connection *c, const kd_http_client_key *who,
                                      unsigned *status)
{
    kd_mcp_http *h = hs->http;
    kd_http_client_key whose;
    struct MHD_Response *r;
    kd_http_stream *st;
    int evicted;

    *status = MHD_HTTP_INTERNAL_SERVER_ERROR;
    if ((st = calloc(1, sizeof *st)) == NULL)
        return NULL;
    st->hs = hs;
    st->base.conn = c;
    now_mono(&st->last_write);
    pthread_mutex_lock(&h->lock);
    if (hs->streams >= h->max_streams) {
        pthread_mutex_unlock(&h->lock);
        free(st);
        *status = MHD_HTTP_TOO_MANY_REQUESTS;
        return NULL;
    }
    if ((evicted = kd_http_stream_admit_locked(h, &st->base, who, 0, &whose)) < 0) {
        pthread_mutex_unlock(&h->lock);
        free(st);
        return NULL;
    }
    hs->streams++;
    hs->refs++;
    st->next = hs->stream_list;
    hs->stream_list = st;
    pthread_mutex_unlock(&h->lock);
    if (evicted > 0)
        kd_http_stream_log_evicted(h, &whose);
    r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, sse_read, st, sse_free);
    if (r == NULL) {
        sse_free(st);
        return NULL;
    }
    return r;
}

/* ---- keepalive timer --------------------------------------------------- */

/*
 * Resumes every suspended stream whose keepalive is due (or falls due
 * within the slack), and sleeps until the next one is due, or until a
 * stream that suspends is due sooner than that (kd_http_timer_note_locked
 * signals h->cond).
 *
 * Why the timer is not told of every suspend: a pass walks every stream,
 * and a notification to N sessions suspends N streams again, so a pass per
 * suspend made a broadcast cost O(N²). A stream that suspends after
 * writing is due a whole interval later, after the timer's next look, so a
 * broadcast costs no pass at all. And why the slack: streams due a few
 * milliseconds apart (a broadcast wrote them all at about the same time)
 * are served by one pass, so keepalives cost at most eight passes per
 * interval, O(N) each, however the deadlines are spread.
 *
 * The same pass closes the connections whose request has not come in
 * whole within its deadline (kd_http_conns_sweep).
 *
 * A stream is woken for its keepalive only here, and only while it is
 * suspended; a stream resumed for a message and not yet run is not, and
 * notes its deadline when it suspends again. A wake is never lost to this
 * timer: the events test that once timed out with it
 * (events_broadcast_to_every_stream) had a stream told to resync a second
 * time, after the event it waited for: a resync skips to the newest event,
 * and the client reloads (http_events.c).
 */
static void *timer_main(void *arg)
{
    kd_mcp_http *h = arg;
    kd_http_session *hs;
    kd_http_stream *st;
    struct timespec until;
    long next_ms, ms;

    pthread_mutex_lock(&h->lock);
    while (!h->timer_stop) {
        next_ms = h->keepalive_ms;
        for (hs = h->sessions; hs != NULL; hs = hs->next) {
            for (st = hs->stream_list; st != NULL; st = st->next) {
                if (!st->base.suspended)
                    continue;
                if ((ms = keepalive_in_ms(h, st)) == 0)
                    wake_locked(st);
                else if (ms < next_ms)
                    next_ms = ms;
            }
        }
        next_ms = kd_http_events_keepalive_locked(h, next_ms);
        next_ms = kd_http_conns_sweep(h, next_ms);
        now_mono(&until);
        until.tv_sec += next_ms / 1000;
        until.tv_nsec += (next_ms % 1000) * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        h->timer_due = until;
        pthread_cond_timedwait(&h->cond, &h->lock, &until);
    }
    pthread_mutex_unlock(&h->lock);
    return NULL;
}

void kd_http_timer_note_locked(kd_mcp_http *h, const struct timespec *last_write)
{
    struct timespec due = *last_write;

    due.tv_sec += h->keepalive_ms / 1000;
    due.tv_nsec += (long)(h->keepalive_ms % 1000) * 1000000L;
    if (due.tv_nsec >= 1000000000L) {
        due.tv_sec++;
        due.tv_nsec -= 1000000000L;
    }
    if (due.tv_sec < h->timer_due.tv_sec || (due.tv_sec == h->timer_due.tv_sec && due.tv_nsec < h->timer_due.tv_nsec))
        pthread_cond_signal(&h->cond);
}

kd_err kd_http_timer_start(kd_mcp_http *h)
{
    int rc = pthread_create(&h->timer, NULL, timer_main, h);

    if (rc != 0) {
        KD_LOG_E("mcp", "http: the keepalive timer could not start (%s)", strerror(rc));
        return KD_ERR_NOMEM;
    }
    h->timer_running = 1;
    return KD_OK;
}

void kd_http_timer_stop(kd_mcp_http *h)
{
    if (!h->timer_running)
        return;
    pthread_mutex_lock(&h->lock);
    h->timer_stop = 1;
    pthread_cond_signal(&h->cond);
    pthread_mutex_unlock(&h->lock);
    pthread_join(h->timer, NULL);
    h->timer_running = 0;
}
