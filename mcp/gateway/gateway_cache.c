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
 * Bounded: a fixed number of slots and of bytes (an answer too large for
 * its share is served but not kept). Invalidated by position: once an
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

typedef struct {
    kd_gw_cache_key key;
    kd_mcp_encoded *answer; /* NULL: empty */
    size_t size;
} slot;

struct kd_gw_cache {
    pthread_mutex_t locks[KD_GW_CACHE_STRIPES];
    slot slots[KD_GW_CACHE_SLOTS];
    _Atomic uint64_t newest; /* the newest position kept: older answers are dead */
    _Atomic size_t bytes;    /* kept, under the stripes' locks */
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
        kd_mcp_encoded_free(c->slots[i].answer);
    for (size_t i = 0; i < KD_GW_CACHE_STRIPES; i++)
        pthread_mutex_destroy(&c->locks[i]);
    free(c);
}

/* Empties slot `s` (under its stripe's lock); the answer it held, for the
 * caller to drop once the lock is released. */
static kd_mcp_encoded *take_locked(kd_gw_cache *c, slot *s)
{
    kd_mcp_encoded *old = s->answer;
    if (old)
        atomic_fetch_sub(&c->bytes, s->size);
    s->answer = NULL;
    s->size = 0;
    return old;
}

kd_mcp_encoded *kd_gw_cache_get(kd_gw_cache *c, const kd_gw_cache_key *k)
{
    size_t i = slot_of(k);
    slot *s = &c->slots[i];
    kd_mcp_encoded *e = NULL, *dead = NULL;
    pthread_mutex_lock(&c->locks[i % KD_GW_CACHE_STRIPES]);
    if (s->answer && key_eq(&s->key, k))
        e = kd_mcp_encoded_ref(s->answer);
    else if (s->answer && s->key.seq < atomic_load(&c->newest))
        dead = take_locked(c, s);
    pthread_mutex_unlock(&c->locks[i % KD_GW_CACHE_STRIPES]);
    kd_mcp_encoded_free(dead);
    atomic_fetch_add_explicit(e ? &c->hits : &c->misses, 1, memory_order_relaxed);
    return e;
}

/* Drops every answer older than `newest`, one stripe at a time. */
static void sweep(kd_gw_cache *c, uint64_t newest)
{
    for (size_t st = 0; st < KD_GW_CACHE_STRIPES; st++) {
        kd_mcp_encoded *dead[KD_GW_CACHE_SLOTS / KD_GW_CACHE_STRIPES];
        size_t n = 0;
        pthread_mutex_lock(&c->locks[st]);
        for (size_t i = st; i < KD_GW_CACHE_SLOTS; i += KD_GW_CACHE_STRIPES)
            if (c->slots[i].answer && c->slots[i].key.seq < newest)
                dead[n++] = take_locked(c, &c->slots[i]);
        pthread_mutex_unlock(&c->locks[st]);
        while (n > 0)
            kd_mcp_encoded_free(dead[--n]);
    }
}

void kd_gw_cache_put(kd_gw_cache *c, const kd_gw_cache_key *k, kd_mcp_encoded *e)
{
    uint64_t newest = atomic_load(&c->newest);
    size_t len, size, i = slot_of(k);
    kd_mcp_encoded *old = NULL;
    /* a newer position makes every older answer dead */
    while (k->seq > newest && !atomic_compare_exchange_weak(&c->newest, &newest, k->seq))
        ;
    if (k->seq > newest)
        sweep(c, k->seq);
    else if (k->seq < newest)
        return; /* built from an older read: true for its reader, never kept */
    kd_mcp_encoded_text(e, &len);
    size = sizeof(slot) + len;
    if (size > c->max_bytes / 16)
        return; /* too large for its share: served once, not kept */
    pthread_mutex_lock(&c->locks[i % KD_GW_CACHE_STRIPES]);
    old = take_locked(c, &c->slots[i]);
    if (atomic_load(&c->bytes) + size <= c->max_bytes && k->seq >= atomic_load(&c->newest)) {
        c->slots[i].key = *k;
        c->slots[i].answer = kd_mcp_encoded_ref(e);
        c->slots[i].size = size;
        atomic_fetch_add(&c->bytes, size);
    }
    pthread_mutex_unlock(&c->locks[i % KD_GW_CACHE_STRIPES]);
    kd_mcp_encoded_free(old);
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
            out->answers += c->slots[i].answer != NULL;
        pthread_mutex_unlock(&c->locks[st]);
    }
}
