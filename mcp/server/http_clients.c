/*
 * http_clients.c — who a client of the HTTP transport is (the token its
 * requests carry, checked here, or its address), and the share of sessions
 * and event streams it may hold.
 *
 * A client is the token its requests carry, or, without one, its peer
 * address: loopback included, so every tokenless program on the machine is
 * one client (a token per program tells them apart). Each client may hold
 * max_sessions_per_client sessions (http_session.c sheds its idle ones)
 * and max_streams_per_client streams of both kinds: the web app's event
 * streams and the sessions' GET streams. Without these shares, one client
 * that opened 64 sessions and never ended them, or 64 event streams, left
 * every other client a 503 or a 429 for an hour.
 *
 * A stream is never refused for lack of room: a client at its share gets
 * its own oldest stream closed (a browser page reconnects by itself, an
 * MCP client opens another GET), and when the event streams fill the
 * table, the oldest one of the client holding the most is closed, so a
 * client that holds none always gets in. A closed ("evicted") stream
 * leaves the counts at once and ends at its next read, which the wake
 * below brings.
 *
 *   h->streams_head ─▶ oldest ⇄ … ⇄ newest ◀─ h->streams_tail
 *                      (both kinds; each counted to its client)
 *
 * Everything here runs under h->lock. The tables are lists: they hold at
 * most one entry per client holding something, and are walked only when a
 * session or a stream is made or a limit is hit.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "engine/logger.h"
#include "mcp/server/http_int.h"

/* ---- tokens ------------------------------------------------------------ */

/* Tokens are kept as digests only: a comparison then takes the same time
 * whatever the length of the token presented. */
kd_err kd_http_tokens_init(kd_mcp_http *h, const kd_mcp_http_options *o)
{
    size_t n = (o->bearer_token != NULL) + o->n_tokens, i, j;
    unsigned int dlen;
    const char *t;

    if (n == 0)
        return KD_OK;
    if (o->n_tokens > 0 && o->tokens == NULL) {
        KD_LOG_E("mcp", "http: n_tokens is %zu but the token list is missing", o->n_tokens);
        return KD_ERR_INVALID_ARG;
    }
    if ((h->tokens = calloc(n, sizeof *h->tokens)) == NULL)
        return KD_ERR_NOMEM;
    for (i = 0; i < n; i++) {
        int access = o->bearer_token != NULL && i == 0;

        t = access ? o->bearer_token : o->tokens[i - (o->bearer_token != NULL)].token;
        if (t == NULL || t[0] == '\0') {
            KD_LOG_E("mcp", "http: %s is empty; a token must have at least one character",
                     access ? "the access token" : "a seat token");
            return KD_ERR_INVALID_ARG;
        }
        h->tokens[i].principal = access ? NULL : o->tokens[i - (o->bearer_token != NULL)].principal;
        if (EVP_Digest(t, strlen(t), h->tokens[i].digest, &dlen, EVP_sha256(), NULL) != 1 ||
            dlen != sizeof h->tokens[i].digest) {
            KD_LOG_E("mcp", "http: SHA-256 is unavailable; no token can be checked");
            return KD_ERR_INTERNAL;
        }
        h->n_tokens = i + 1;
        for (j = 0; j < i; j++) {
            if (CRYPTO_memcmp(h->tokens[j].digest, h->tokens[i].digest, sizeof h->tokens[i].digest) == 0) {
                KD_LOG_E("mcp", "http: the same token is configured twice (%s); every token must be distinct",
                         o->bearer_token != NULL && j == 0 ? "as the access token and as a seat token"
                                                           : "as two seat tokens");
                return KD_ERR_INVALID_ARG;
            }
        }
    }
    return KD_OK;
}

void kd_http_tokens_fini(kd_mcp_http *h)
{
    if (h->tokens != NULL)
        OPENSSL_cleanse(h->tokens, h->n_tokens * sizeof *h->tokens);
    free(h->tokens);
    h->tokens = NULL;
    h->n_tokens = 0;
}

/*
 * The presented token is hashed and its digest compared with every token's
 * digest, without stopping at a match, so the time taken tells nothing
 * about the tokens but how many there are.
 */
kd_http_auth kd_http_authenticate(const kd_mcp_http *h, const char *auth, int *token)
{
    unsigned char digest[32];
    unsigned int dlen = 0;
    size_t i;

    *token = KD_HTTP_NO_TOKEN;
    if (auth == NULL)
        return h->token_required ? KD_HTTP_AUTH_MISSING : KD_HTTP_AUTH_OK;
    if (strncasecmp(auth, "Bearer ", 7) != 0)
        return KD_HTTP_AUTH_MALFORMED;
    auth += 7;
    while (*auth == ' ')
        auth++;
    if (*auth == '\0')
        return KD_HTTP_AUTH_MALFORMED;
    if (EVP_Digest(auth, strlen(auth), digest, &dlen, EVP_sha256(), NULL) != 1 || dlen != sizeof digest)
        return KD_HTTP_AUTH_UNKNOWN; /* cannot be checked: refused */
    for (i = 0; i < h->n_tokens; i++)
        if (CRYPTO_memcmp(digest, h->tokens[i].digest, sizeof digest) == 0)
            *token = (int)i;
    return *token == KD_HTTP_NO_TOKEN ? KD_HTTP_AUTH_UNKNOWN : KD_HTTP_AUTH_OK;
}

const char *kd_http_auth_problem(kd_http_auth a)
{
    switch (a) {
    case KD_HTTP_AUTH_OK:
        break;
    case KD_HTTP_AUTH_MISSING:
        return "a bearer token is required";
    case KD_HTTP_AUTH_MALFORMED:
        return "the Authorization header must be \"Bearer <token>\"";
    case KD_HTTP_AUTH_UNKNOWN:
        return "the bearer token is not valid";
    }
    return "the token is valid";
}

/* ---- clients ----------------------------------------------------------- */

void kd_http_client_key_of(struct MHD_Connection *c, int who, kd_http_client_key *out)
{
    const union MHD_ConnectionInfo *info;

    memset(out, 0, sizeof *out);
    out->token = who;
    if (who != KD_HTTP_NO_TOKEN)
        return; /* the token is the client, wherever it connects from */
    info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || kd_http_addr_key(info->client_addr, &out->family, out->addr) != 0) {
        out->family = 0; /* unknown: all such requests are one client */
        memset(out->addr, 0, sizeof out->addr);
    }
}

void kd_http_client_name(const kd_http_client_key *key, char *buf, size_t len)
{
    char text[INET6_ADDRSTRLEN];

    if (key->token != KD_HTTP_NO_TOKEN)
        snprintf(buf, len, "token #%d", key->token + 1);
    else if (key->family != 0 && inet_ntop(key->family, key->addr, text, sizeof text) != NULL)
        snprintf(buf, len, "%s", text);
    else
        snprintf(buf, len, "an unknown address");
}

static int same_key(const kd_http_client_key *a, const kd_http_client_key *b)
{
    return a->token == b->token && a->family == b->family && memcmp(a->addr, b->addr, sizeof a->addr) == 0;
}

kd_http_client *kd_http_client_find_locked(kd_mcp_http *h, const kd_http_client_key *key)
{
    kd_http_client *cl;

    for (cl = h->clients; cl != NULL; cl = cl->next)
        if (same_key(&cl->key, key))
            return cl;
    return NULL;
}

kd_http_client *kd_http_client_get_locked(kd_mcp_http *h, const kd_http_client_key *key)
{
    kd_http_client *cl = kd_http_client_find_locked(h, key);

    if (cl == NULL && (cl = calloc(1, sizeof *cl)) != NULL) {
        cl->key = *key;
        cl->next = h->clients;
        h->clients = cl;
    }
    return cl;
}

void kd_http_client_put_locked(kd_mcp_http *h, kd_http_client *cl)
{
    kd_http_client **pp;

    if (cl == NULL || cl->sessions > 0 || cl->streams > 0)
        return;
    for (pp = &h->clients; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == cl) {
            *pp = cl->next;
            free(cl);
            return;
        }
    }
}

void kd_http_clients_fini(kd_mcp_http *h)
{
    kd_http_client *cl, *next;

    for (cl = h->clients; cl != NULL; cl = next) {
        next = cl->next;
        free(cl);
    }
    h->clients = NULL;
}

/* ---- streams ----------------------------------------------------------- */

void kd_http_stream_wake_locked(kd_http_stream_base *st)
{
    if (st->suspended) {
        st->suspended = 0;
        MHD_resume_connection(st->conn);
    }
}

/* Unlinks `st` from the list of streams and from its client's counts. */
static void uncount_locked(kd_mcp_http *h, kd_http_stream_base *st)
{
    kd_http_client *cl = st->client;

    if (cl == NULL)
        return;
    *(st->prev != NULL ? &st->prev->next : &h->streams_head) = st->next;
    *(st->next != NULL ? &st->next->prev : &h->streams_tail) = st->prev;
    st->prev = st->next = NULL;
    st->client = NULL;
    cl->streams--;
    if (st->events) {
        cl->events--;
        h->n_events_streams--;
    }
    kd_http_client_put_locked(h, cl);
}

void kd_http_stream_leave_locked(kd_mcp_http *h, kd_http_stream_base *st) { uncount_locked(h, st); }

/* The oldest stream of `cl` (of events streams only when `events`). */
static kd_http_stream_base *oldest_locked(kd_mcp_http *h, const kd_http_client *cl, int events)
{
    kd_http_stream_base *st;

    for (st = h->streams_head; st != NULL; st = st->next)
        if (st->client == cl && (!events || st->events))
            return st;
    return NULL;
}

/* The client holding the most events streams, or NULL when none does. */
static kd_http_client *most_events_locked(kd_mcp_http *h)
{
    kd_http_client *cl, *most = NULL;

    for (cl = h->clients; cl != NULL; cl = cl->next)
        if (cl->events > 0 && (most == NULL || cl->events > most->events))
            most = cl;
    return most;
}

int kd_http_stream_admit_locked(kd_mcp_http *h, kd_http_stream_base *st, const kd_http_client_key *key, int events,
                                kd_http_client_key *evicted_from)
{
    kd_http_client *cl = kd_http_client_find_locked(h, key), *most;
    kd_http_stream_base *victim = NULL;

    if (cl != NULL && cl->streams >= h->max_streams_per_client)
        victim = oldest_locked(h, cl, 0);
    else if (events && h->n_events_streams >= KD_HTTP_EVENTS_STREAMS && (most = most_events_locked(h)) != NULL)
        victim = oldest_locked(h, most, 1);
    if (victim != NULL) {
        if (evicted_from != NULL)
            *evicted_from = victim->client->key;
        uncount_locked(h, victim); /* may free its client: cl is looked up again */
        victim->evicted = 1;
        kd_http_stream_wake_locked(victim);
    }
    if ((cl = kd_http_client_get_locked(h, key)) == NULL)
        return -1; /* the victim, if any, is closed all the same */
    st->client = cl;
    st->events = events;
    st->evicted = 0;
    st->next = NULL;
    st->prev = h->streams_tail;
    *(h->streams_tail != NULL ? &h->streams_tail->next : &h->streams_head) = st;
    h->streams_tail = st;
    cl->streams++;
    if (events) {
        cl->events++;
        h->n_events_streams++;
    }
    return victim != NULL;
}

void kd_http_stream_log_evicted(kd_mcp_http *h, const kd_http_client_key *whose)
{
    char name[64];

    kd_http_client_name(whose, name, sizeof name);
    KD_LOG_LIMITED(&h->log_shed, KD_LOG_INFO, "mcp",
                   "http: closed the oldest event stream of %s to make room (streams per client: %u, event "
                   "streams in all: %u)",
                   name, h->max_streams_per_client, KD_HTTP_EVENTS_STREAMS);
}
