/*
 * gateway_cache.c — the read tools' answers, kept by what they are a
 * function of, so that every reader of one log position gets the one
 * answer built and encoded once.
 *
 * An answer of kdapp_get_episode_state, kdapp_get_strategy_context or
 * kdapp_legal_moves depends on nothing but the tool, its arguments (the
 * episode, and the "player" whose secret it may add), the session's view
 * class (what differs per session: with a "player", the grant whose keys
 * decide whether that seat's secret is shown; without one, nothing: every
 * session shares the public class) and the store's position (its newest log
 * entry and state digest: every commit, a revert included, appends to the
 * log). The key is all of these; the position is read in the same read
 * handle the answer is built from, so an answer is served only to a
 * reader whose own read of the store names the very same position — never
 * an older answer for a newer position, and never one session's secret to
 * a session of another grant.
 *
 *   slots (direct-mapped by tool, episode, class, player; not by position)
 *   ┌──────┬──────┬──────┬─── … ───┐     a newer position of the same
 *   │ key  │ key  │ —    │         │     question lands in the same slot
 *   │ text │ text │      │         │     and replaces the older answer
 *   └──────┴──────┴──────┴─── … ───┘
 *   lock i guards the slots s with s % KD_GW_CACHE_STRIPES == i
 *
 * Bounded: a fixed number of slots and of bytes, entries and text counted
 * (an answer too large for its share is served but not kept). Invalidated by position: once an
 * answer of a newer position is kept, every older one is dead — dropped at
 * once by a sweep, and never served. Answers are immutable and reference
 * counted (kd_mcp_encoded): a reader holds its own reference while its
 * reply is written, the slot another.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/gateway/gateway_int.h"

#define KD_GW_CACHE_SLOTS 512
#define KD_GW_CACHE_STRIPES 16
#define KD_GW_CACHE_BYTES (1u << 20) /* 1 MiB of answers at most */

/* A kept answer; slots hold pointers, so an idle cache costs 4 KiB. */
typedef struct {
    kd_gw_cache_key key;
    kd_mcp_encoded *answer;
    size_t size; /* counted in c->bytes: the entry and the answer's text */
} entry;

struct kd_gw_cache {
    pthread_mutex_t locks[KD_GW_CACHE_STRIPES];
    entry *slots[KD_GW_CACHE_SLOTS]; /* NULL: empty */
    _Atomic uint64_t newest;         /* the newest position kept: older answers are dead */
    _Atomic size_t bytes;            /* kept, under the stripes' locks */
    size_t max_bytes;
    _Atomic uint64_t hits, misses;
};

static int key_eq(const kd_gw_cache_key *a, const kd_gw_cache_key *b)
{
    return a->tool == b->tool && a->episode_id == b->episode_id && a->view_class == b->view_class && a->seq == b->seq &&
           memcmp(a->digest, b->digest, KD_HASH_LEN) == 0 && strcmp(a->player, b->player) == 0;
}

/* FNV-1a over the question, not the position. */
static size_t slot_of(const kd_gw_cache_key *k)
{
    uint64_t h = 14695981039346656037ull;
    uint64_t parts[3] = {(uint64_t)k->tool, k->episode_id, (uint64_t)(uintptr_t)k->view_class};
    const unsigned char *p = (const unsigned char *)parts;
    for (size_t i = 0; i < sizeof parts; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    for (p = (const unsigned char *)k->player; *p; p++)
        h = (h ^ *p) * 1099511628211ull;
    return (size_t)(h % KD_GW_CACHE_SLOTS);
}

static void entry_free(entry *e)
{
    if (e) {
        kd_mcp_encoded_free(e->answer);
        free(e);
    }
}

kd_err kd_gw_cache_alloc(kd_gw_cache **out)
{
    kd_gw_cache *c = calloc(1, sizeof *c);
    size_t i;
    *out = NULL;
    if (!c)
        return KD_ERR_NOMEM;
    for (i = 0; i < KD_GW_CACHE_STRIPES; i++) {
        if (pthread_mutex_init(&c->locks[i], NULL) != 0) {
            while (i-- > 0)
                pthread_mutex_destroy(&c->locks[i]);
            free(c);
            return KD_ERR_NOMEM;
        }
    }
    c->max_bytes = KD_GW_CACHE_BYTES;
    *out = c;
    return KD_OK;
}

void kd_gw_cache_free(kd_gw_cache *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < KD_GW_CACHE_SLOTS; i++)
        entry_free(c->slots[i]);
    for (size_t i = 0; i < KD_GW_CACHE_STRIPES; i++)
        pthread_mutex_destroy(&c->locks[i]);
    free(c);
}

/* Empties slot `i` (under its stripe's lock); the entry it held, for the
 * caller to free once the lock is released. */
static entry *take_locked(kd_gw_cache *c, size_t i)
{
    entry *old = c->slots[i];
    if (old)
        atomic_fetch_sub(&c->bytes, old->size);
    c->slots[i] = NULL;
    return old;
}

kd_mcp_encoded *kd_gw_cache_get(kd_gw_cache *c, const kd_gw_cache_key *k)
{
    size_t i = slot_of(k);
    kd_mcp_encoded *e = NULL;
    entry *s, *dead = NULL;
    pthread_mutex_lock(&c->locks[i % KD_GW_CACHE_STRIPES]);
    if ((s = c->slots[i]) != NULL && key_eq(&s->key, k))
        e = kd_mcp_encoded_ref(s->answer);
    else if (s && s->key.seq < atomic_load(&c->newest))
        dead = take_locked(c, i);
    pthread_mutex_unlock(&c->locks[i % KD_GW_CACHE_STRIPES]);
    entry_free(dead);
    atomic_fetch_add_explicit(e ? &c->hits : &c->misses, 1, memory_order_relaxed);
    return e;
}

/* Drops every answer older than `newest`, one stripe at a time. */
static void sweep(kd_gw_cache *c, uint64_t newest)
{
    for (size_t st = 0; st < KD_GW_CACHE_STRIPES; st++) {
        entry *dead[KD_GW_CACHE_SLOTS / KD_GW_CACHE_STRIPES];
        size_t n = 0;
        pthread_mutex_lock(&c->locks[st]);
        for (size_t i = st; i < KD_GW_CACHE_SLOTS; i += KD_GW_CACHE_STRIPES)
            if (c->slots[i] && c->slots[i]->key.seq < newest)
                dead[n++] = take_locked(c, i);
        pthread_mutex_unlock(&c->locks[st]);
        while (n > 0)
            entry_free(dead[--n]);
    }
}

void kd_gw_cache_put(kd_gw_cache *c, const kd_gw_cache_key *k, kd_mcp_encoded *e)
{
    uint64_t newest = atomic_load(&c->newest);
    size_t len, i = slot_of(k);
    entry *old = NULL, *fresh;
    /* a newer position makes every older answer dead */
    while (k->seq > newest && !atomic_compare_exchange_weak(&c->newest, &newest, k->seq))
        ;
    if (k->seq > newest)
        sweep(c, k->seq);
    else if (k->seq < newest)
        return; /* built from an older read: true for its reader, never kept */
    kd_mcp_encoded_text(e, &len);
    if (sizeof(entry) + len > c->max_bytes / 16 || (fresh = malloc(sizeof *fresh)) == NULL)
        return; /* too large for its share (or no memory): served once, not kept */
    fresh->key = *k;
    fresh->answer = kd_mcp_encoded_ref(e);
    fresh->size = sizeof(entry) + len;
    pthread_mutex_lock(&c->locks[i % KD_GW_CACHE_STRIPES]);
    old = take_locked(c, i);
    if (atomic_load(&c->bytes) + fresh->size <= c->max_bytes && k->seq >= atomic_load(&c->newest)) {
        c->slots[i] = fresh;
        atomic_fetch_add(&c->bytes, fresh->size);
        fresh = NULL;
    }
    pthread_mutex_unlock(&c->locks[i % KD_GW_CACHE_STRIPES]);
    entry_free(old);
    entry_free(fresh);
}

void kd_gw_cache_stats(kd_gw_cache *c, kd_gateway_cache_stats *out)
{
    memset(out, 0, sizeof *out);
    out->hits = atomic_load(&c->hits);
    out->misses = atomic_load(&c->misses);
    out->bytes = atomic_load(&c->bytes);
    for (size_t st = 0; st < KD_GW_CACHE_STRIPES; st++) {
        pthread_mutex_lock(&c->locks[st]);
        for (size_t i = st; i < KD_GW_CACHE_SLOTS; i += KD_GW_CACHE_STRIPES)
            out->answers += c->slots[i] != NULL;
        pthread_mutex_unlock(&c->locks[st]);
    }
}
