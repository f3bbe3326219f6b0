/*
 * http_rate.c — the rate of costly requests per client (the web app's
 * paths that kd_mcp_http_options.page_costly names, such as an audit that
 * replays the log): each client, its token or without one its address,
 * has a token bucket of costly_burst requests refilled at costly_per_s;
 * and all the clients without a token together have one more, of
 * TOKENLESS_FACTOR times that, so that a program that speaks from many
 * loopback addresses (127.0.0.2, 127.0.0.3, ...) cannot multiply its
 * share. A request beyond either is answered 429 with the seconds until
 * one would pass (Retry-After).
 *
 * Why here and not in the program: the transport knows who a client is
 * (the token a request carried, checked here, else its peer address), and
 * sixteen threads asking for audits without a token made a granted
 * agent's calls take seconds (issue 37, R6).
 *
 * The buckets of the tokens are an array (the tokens are fixed at start);
 * those of addresses a small table: a full one reuses the entry of an
 * address whose bucket has refilled (it is as if new), else the least
 * recently used; the shared bucket bounds what forgetting one costs.
 * Everything is under rate_lock, a leaf.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mcp/server/http_int.h"

#define RATE_ADDRS 64 /* addresses remembered */
#define TOKENLESS_FACTOR KD_HTTP_COSTLY_TOKENLESS

struct kd_http_bucket {
    double tokens;
    double at; /* seconds on CLOCK_MONOTONIC of the last refill */
};

typedef struct {
    int family; /* 0: a free entry; -1: every address that is not an IP address */
    unsigned char addr[16];
    double used; /* when it was last asked for */
    kd_http_bucket b;
} rate_addr;

struct kd_http_rates {
    kd_http_bucket *tokens; /* one per configured token */
    rate_addr addrs[RATE_ADDRS];
    kd_http_bucket tokenless; /* every client without a token */
};

static double now_s(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void refill(kd_http_bucket *b, double now, double per_s, double burst)
{
    if (now > b->at) {
        b->tokens += (now - b->at) * per_s;
        if (b->tokens > burst)
            b->tokens = burst;
        b->at = now;
    }
}

/* The whole seconds until `b` holds a token, at least 1. */
static unsigned wait_s(const kd_http_bucket *b, double per_s)
{
    double s = (1.0 - b->tokens) / per_s;
    unsigned w = (unsigned)s;

    if ((double)w < s)
        w++;
    return w < 1 ? 1u : w;
}

static kd_http_bucket *addr_bucket_locked(kd_http_rates *r, const kd_http_client_key *who, double now, double per_s,
                                          double burst)
{
    rate_addr *e, *free_one = NULL, *full = NULL, *oldest = NULL;
    int family = who->family != 0 ? who->family : -1;
    size_t i;

    for (i = 0; i < RATE_ADDRS; i++) {
        e = &r->addrs[i];
        if (e->family == 0) {
            if (free_one == NULL)
                free_one = e;
            continue;
        }
        if (e->family == family && memcmp(e->addr, who->addr, sizeof e->addr) == 0) {
            e->used = now;
            return &e->b;
        }
        refill(&e->b, now, per_s, burst);
        if (full == NULL && e->b.tokens >= burst)
            full = e;
        if (oldest == NULL || e->used < oldest->used)
            oldest = e;
    }
    e = free_one != NULL ? free_one : full != NULL ? full : oldest;
    e->family = family;
    memcpy(e->addr, who->addr, sizeof e->addr);
    e->used = now;
    e->b = (kd_http_bucket){.tokens = burst, .at = now};
    return &e->b;
}

kd_err kd_http_rates_init(kd_mcp_http *h)
{
    size_t i;

    if ((h->rates = calloc(1, sizeof *h->rates)) == NULL)
        return KD_ERR_NOMEM;
    if (h->n_tokens > 0 && (h->rates->tokens = calloc(h->n_tokens, sizeof *h->rates->tokens)) == NULL) {
        free(h->rates);
        h->rates = NULL;
        return KD_ERR_NOMEM;
    }
    for (i = 0; i < h->n_tokens; i++)
        h->rates->tokens[i] = (kd_http_bucket){.tokens = h->costly_burst, .at = now_s()};
    h->rates->tokenless = (kd_http_bucket){.tokens = (double)h->costly_burst * TOKENLESS_FACTOR, .at = now_s()};
    return KD_OK;
}

void kd_http_rates_fini(kd_mcp_http *h)
{
    if (h->rates != NULL)
        free(h->rates->tokens);
    free(h->rates);
    h->rates = NULL;
}

unsigned kd_http_rate_take(kd_mcp_http *h, const kd_http_client_key *who)
{
    kd_http_rates *r = h->rates;
    double now = now_s(), per_s = h->costly_per_s, burst = h->costly_burst;
    kd_http_bucket *b, *all = NULL;
    unsigned wait = 0;

    pthread_mutex_lock(&h->rate_lock);
    if (who->token != KD_HTTP_NO_TOKEN) {
        b = &r->tokens[who->token];
    } else {
        b = addr_bucket_locked(r, who, now, per_s, burst);
        all = &r->tokenless;
        refill(all, now, per_s * TOKENLESS_FACTOR, burst * TOKENLESS_FACTOR);
    }
    refill(b, now, per_s, burst);
    if (b->tokens < 1.0)
        wait = wait_s(b, per_s);
    else if (all != NULL && all->tokens < 1.0)
        wait = wait_s(all, per_s * TOKENLESS_FACTOR);
    if (wait == 0) {
        b->tokens -= 1.0;
        if (all != NULL)
            all->tokens -= 1.0;
    }
    pthread_mutex_unlock(&h->rate_lock);
    return wait;
}
