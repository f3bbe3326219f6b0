/*
 * gateway_duties.c — the duties thread: it pays what the seats the gateway
 * acts for owe in games with secrets (a house's reveal, the answer to a
 * shot, a board's reveal at the end), signed with the seat's key.
 *
 * Which seats: those kd_gw_acting_key names (a key some grant holds, or the
 * house's key in a house seat), and only where the seat's commitment is
 * that key's own for this store (kd_seat_seed): a commitment someone else
 * made (a bogus one, or one copied from another store) is never answered,
 * so a secret is never revealed for a chain the gateway did not commit.
 *
 * What they owe is found from the store, never from views alone (a
 * subscriber may miss views):
 *
 *   start        every episode of the store is read once; those where an
 *                acting key is seated in a type with duties are watched
 *   log entries  the thread follows the engine's log from the tip it
 *                started at (kd_read_log_change): an accept's episodes are
 *                checked; a revert checks every watched episode again
 *   safety net   every RECHECK_MS every watched episode is checked again
 *
 * It wakes when a block summary arrives (kd_gw_duties_kick: one a commit) and
 * at least every LOG_LOOK_MS. Duties are submitted without waiting for
 * their blocks (thousands owed at once go out together, so a flood of
 * episodes cannot make one wait behind the others' blocks); each episode
 * has at most one duty in flight, keyed by its move counter. A duty still
 * owed RETRY_MS after it was submitted is looked up in the log: refused by
 * the rules (logged once; not again at that counter), or never carried
 * (submitted again: a reorg may have dropped it). The sets grow as needed:
 * no duty is ever dropped for want of room.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/logger.h"
#include "engine/wire.h"
#include "episodes/secrets.h"
#include "mcp/gateway/gateway_int.h"

#define LOG_LOOK_MS 250 /* the longest the log goes unread */
#define RECHECK_MS 5000 /* every watched episode is checked again */
#define RETRY_MS 2000   /* a duty not carried by then is looked up */
#define SCAN_PAGE 1024  /* episode ids read at once at start */

/* A sorted set of episode ids (uint32_t in a growable buffer). */
typedef struct {
    kd_buf b;
} idset;

/* A duty submitted and not yet seen applied. */
typedef struct {
    uint32_t episode_id;
    uint64_t counter;   /* the episode's move counter it was signed for */
    uint64_t state_seq; /* the log entry of the state it was made from (a reorg may bring the counter back) */
    uint64_t after;     /* the log's newest entry before it was submitted */
    uint64_t sent_ms;
    int refused; /* the rules refused it: not again for this state */
    uint8_t tx_id[KD_HASH_LEN];
} in_flight;

struct kd_gw_duties {
    kd_gateway *gw;
    pthread_t thread;
    pthread_cond_t wake; /* gw->lock */
    int kicked;          /* gw->lock */
    uint64_t cursor;     /* the newest log entry followed */
    idset watched, todo;
    kd_buf flying; /* in_flight records */
};

/* ------------------------------------------------------------- id sets */

static uint32_t *idset_ids(const idset *s) { return (uint32_t *)s->b.data; }
static size_t idset_count(const idset *s) { return s->b.len / sizeof(uint32_t); }

static size_t idset_find(const idset *s, uint32_t id, int *found)
{
    const uint32_t *ids = idset_ids(s);
    size_t lo = 0, hi = idset_count(s);
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ids[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = lo < idset_count(s) && ids[lo] == id;
    return lo;
}

static kd_err idset_add(idset *s, uint32_t id)
{
    int found;
    size_t at = idset_find(s, id, &found), n = idset_count(s);
    if (found)
        return KD_OK;
    kd_err err = kd_buf_reserve(&s->b, sizeof id);
    if (err)
        return err;
    memmove(idset_ids(s) + at + 1, idset_ids(s) + at, (n - at) * sizeof id);
    idset_ids(s)[at] = id;
    s->b.len += sizeof id;
    return KD_OK;
}

static void idset_remove(idset *s, uint32_t id)
{
    int found;
    size_t at = idset_find(s, id, &found), n = idset_count(s);
    if (!found)
        return;
    memmove(idset_ids(s) + at, idset_ids(s) + at + 1, (n - at - 1) * sizeof id);
    s->b.len -= sizeof id;
}

static kd_err idset_add_all(idset *to, const idset *from)
{
    kd_err err = KD_OK;
    for (size_t i = 0; !err && i < idset_count(from); i++)
        err = idset_add(to, idset_ids(from)[i]);
    return err;
}

/* -------------------------------------------------------------- in flight */

static in_flight *flying_at(kd_gw_duties *d, size_t i) { return (in_flight *)d->flying.data + i; }
static size_t flying_count(const kd_gw_duties *d) { return d->flying.len / sizeof(in_flight); }

static in_flight *flying_find(kd_gw_duties *d, uint32_t id)
{
    for (size_t i = 0; i < flying_count(d); i++)
        if (flying_at(d, i)->episode_id == id)
            return flying_at(d, i);
    return NULL;
}

static void flying_drop(kd_gw_duties *d, in_flight *f)
{
    *f = *flying_at(d, flying_count(d) - 1);
    d->flying.len -= sizeof *f;
}

static in_flight *flying_new(kd_gw_duties *d)
{
    if (kd_buf_reserve(&d->flying, sizeof(in_flight)) != KD_OK)
        return NULL;
    d->flying.len += sizeof(in_flight);
    return flying_at(d, flying_count(d) - 1);
}

/* ------------------------------------------------------------ one episode */

/* Submits the duty of `seat` (its key `k`) in `snap` when it owes one,
 * noting it in flight: KD_OK when submitted, KD_ERR_NO_MOVE when it owes
 * nothing (or the commitment is not its own), another error when it could
 * not be made or sent (logged). */
static kd_err submit_duty(kd_gw_duties *d, const kd_episode_type *t, const kd_episode_snapshot *snap, int seat,
                          const kd_gw_key *k, uint64_t after)
{
    kd_gateway *gw = d->gw;
    uint8_t seed[KD_SECRET_SEED_LEN];
    kd_err err = kd_seat_seed(t, &k->key, gw->store_id, snap->id, seat, snap->state, seed);
    if (err == KD_ERR_NOT_FOUND || err == KD_ERR_UNSUPPORTED)
        return KD_ERR_NO_MOVE; /* not its commitment: never act on it */
    kd_buf cmd, payload;
    kd_buf_init(&cmd);
    kd_buf_init(&payload);
    if (!err)
        err = t->secret_duty(snap->state, seat, seed, &cmd);
    memset(seed, 0, sizeof seed);
    if (!err)
        err = kd_wire_signed_command(snap->id, cmd.data, cmd.len, &k->key, snap->undo_depth, &payload);
    in_flight *f = NULL;
    char why[512] = "";
    uint8_t tx_id[KD_HASH_LEN];
    kd_gateway_spend spend; /* the duty's own key pays (its grant's or the house's budget) */
    kd_gw_spend_of_duty(gw, k, &spend);
    if (!err &&
        !(err = gw->o.chain.submit(gw->o.chain.ctx, payload.data, payload.len, &spend, tx_id, why, sizeof why))) {
        if (!(f = flying_new(d))) {
            err = KD_ERR_NOMEM; /* submitted; the next look finds it owed and looks it up */
        } else {
            *f = (in_flight){
                .episode_id = snap->id, .counter = snap->undo_depth, .after = after, .sent_ms = kd_now_ms()};
            memcpy(f->tx_id, tx_id, KD_HASH_LEN);
        }
    } else if (err && err != KD_ERR_NO_MOVE) {
        KD_LOG_W("gateway", "duties: episode %u: the duty of %s (seat %d) was not submitted: %s", snap->id, k->name,
                 seat, why[0] ? why : kd_err_str(err));
    }
    kd_buf_fini(&cmd);
    kd_buf_fini(&payload);
    return err;
}

/* Whether a duty is in flight for `snap` as it stands: 1 while it waits
 * for its block (or was refused by the rules: not sent again for this
 * state); 0 when there is none, the episode moved on, or it was never
 * carried and is to be sent again. */
static int still_flying(kd_gw_duties *d, const kd_episode_snapshot *snap, uint64_t now)
{
    in_flight *f = flying_find(d, snap->id);
    if (!f)
        return 0;
    if (f->counter != snap->undo_depth || f->state_seq != snap->updated_seq) { /* the episode moved on */
        flying_drop(d, f);
        return 0;
    }
    if (f->refused)
        return 1;
    if (now - f->sent_ms < RETRY_MS)
        return 1;
    kd_tx_result r;
    kd_err err = kd_engine_find_tx(d->gw->o.engine, f->after, f->tx_id, &r, NULL, NULL);
    if (!err && !r.applied) {
        KD_LOG_I("gateway", "duties: episode %u: the rules refused the duty at move %llu: %s: %s", snap->id,
                 (unsigned long long)f->counter, r.code, r.detail);
        f->refused = 1;
        return 1;
    }
    if (!err) /* applied: the counter will move once this read catches up */
        return 1;
    flying_drop(d, f); /* never carried (a reorg may have dropped it): again */
    return 0;
}

/* Checks episode `id`: whether it is watched, and pays what its acting
 * seats owe. */
static void check(kd_gw_duties *d, uint32_t id, uint64_t after, uint64_t now)
{
    kd_gateway *gw = d->gw;
    kd_episode_snapshot snap;
    kd_err err = kd_engine_episode_read(gw->o.engine, id, &snap);
    if (err) {
        if (err == KD_ERR_NOT_FOUND) /* gone (a reverted creation); a re-creation is a new entry */
            idset_remove(&d->watched, id);
        return;
    }
    const kd_episode_type *t = kd_gw_type(gw, snap.ops->type_name);
    const kd_gw_key *keys[KD_MAX_PARTICIPANTS] = {0};
    int acting = 0;
    for (size_t seat = 0; t && t->secret_duty && seat < snap.participants.count; seat++)
        acting |= (keys[seat] = kd_gw_acting_key(gw, t, (int)seat, &snap.participants.keys[seat])) != NULL;
    if (!acting) {
        idset_remove(&d->watched, id);
        kd_episode_snapshot_fini(&snap);
        return;
    }
    if (idset_add(&d->watched, id) != KD_OK)
        KD_LOG_W("gateway", "duties: out of memory: episode %u is looked at again in %d ms", id, RECHECK_MS);
    if (!still_flying(d, &snap, now))
        for (size_t seat = 0; seat < snap.participants.count; seat++)
            if (keys[seat] && submit_duty(d, t, &snap, (int)seat, keys[seat], after) != KD_ERR_NO_MOVE)
                break; /* one duty at a time: the next one follows the move */
    kd_episode_snapshot_fini(&snap);
}

/* ------------------------------------------------------------ the thread */

/* Watches every episode of the store where an acting key is seated. */
static void scan_store(kd_gw_duties *d)
{
    uint32_t ids[SCAN_PAGE], after = 0;
    for (;;) {
        kd_read *rd;
        size_t n = 0;
        kd_err err = kd_engine_read_begin(d->gw->o.engine, &rd);
        if (!err)
            err = kd_read_episode_ids(rd, after, ids, SCAN_PAGE, &n);
        kd_engine_read_end(rd);
        if (err) {
            KD_LOG_W("gateway", "duties: cannot list the episodes (%s): the log and the views still find them",
                     kd_err_str(err));
            return;
        }
        for (size_t i = 0; i < n; i++)
            if (idset_add(&d->todo, ids[i]) != KD_OK)
                return;
        if (n < SCAN_PAGE)
            return;
        after = ids[n - 1];
    }
}

/* Reads the log entries after the cursor into `todo`; returns the tip's
 * newest entry. */
static uint64_t follow_log(kd_gw_duties *d)
{
    kd_read *rd;
    kd_tip tip;
    if (kd_engine_read_begin(d->gw->o.engine, &rd) != KD_OK)
        return d->cursor;
    kd_err err = kd_read_tip(rd, &tip);
    while (!err && d->cursor < tip.last_seq) {
        kd_log_change c;
        err = kd_read_log_change(rd, d->cursor + 1, &c);
        if (!err && c.reverted)
            err = idset_add_all(&d->todo, &d->watched);
        for (size_t i = 0; !err && i < c.n_episodes; i++)
            err = idset_add(&d->todo, c.episodes[i]);
        kd_log_change_fini(&c);
        if (err == KD_ERR_NOT_FOUND) /* pruned or not there: nothing to follow */
            err = KD_OK;
        if (!err)
            d->cursor++;
    }
    kd_engine_read_end(rd);
    if (err)
        KD_LOG_W("gateway", "duties: cannot read log entry %llu (%s): every watched episode is checked again",
                 (unsigned long long)d->cursor + 1, kd_err_str(err));
    return d->cursor;
}

static void *serve_duties(void *arg)
{
    kd_gw_duties *d = arg;
    kd_gateway *gw = d->gw;
    kd_tip tip;
    d->cursor = kd_engine_tip(gw->o.engine, &tip) == KD_OK ? tip.last_seq : 0;
    scan_store(d);
    uint64_t last_recheck = kd_now_ms();
    for (;;) {
        uint64_t after = follow_log(d), now = kd_now_ms();
        if (now - last_recheck >= RECHECK_MS) {
            (void)idset_add_all(&d->todo, &d->watched);
            last_recheck = now;
        }
        for (size_t i = 0; i < flying_count(d); i++) { /* due to be looked up in the log */
            const in_flight *f = flying_at(d, i);
            if (!f->refused && now - f->sent_ms >= RETRY_MS)
                (void)idset_add(&d->todo, f->episode_id);
        }
        idset batch = d->todo;
        kd_buf_init(&d->todo.b);
        for (size_t i = 0; i < idset_count(&batch); i++)
            check(d, idset_ids(&batch)[i], after, now);
        kd_buf_fini(&batch.b);
        pthread_mutex_lock(&gw->lock);
        if (!d->kicked && !gw->stopping) {
            struct timespec until;
            kd_deadline_after(&until, LOG_LOOK_MS);
            pthread_cond_timedwait(&d->wake, &gw->lock, &until);
        }
        d->kicked = 0;
        int stop = gw->stopping;
        pthread_mutex_unlock(&gw->lock);
        if (stop)
            return NULL;
    }
}

void kd_gw_duties_kick(kd_gateway *gw)
{
    kd_gw_duties *d = gw->duties;
    if (!d)
        return;
    pthread_mutex_lock(&gw->lock);
    d->kicked = 1;
    pthread_cond_signal(&d->wake);
    pthread_mutex_unlock(&gw->lock);
}

kd_err kd_gw_duties_start(kd_gateway *gw)
{
    if (gw->n_keys == 0)
        return KD_OK; /* it acts for nobody */
    kd_gw_duties *d = calloc(1, sizeof *d);
    if (!d)
        return KD_ERR_NOMEM;
    d->gw = gw;
    kd_buf_init(&d->watched.b);
    kd_buf_init(&d->todo.b);
    kd_buf_init(&d->flying);
    if (kd_cond_init_monotonic(&d->wake) != KD_OK) {
        free(d);
        return KD_ERR_NOMEM;
    }
    if (pthread_create(&d->thread, NULL, serve_duties, d) != 0) {
        pthread_cond_destroy(&d->wake);
        free(d);
        return KD_ERR_NOMEM;
    }
    gw->duties = d;
    return KD_OK;
}

void kd_gw_duties_stop(kd_gateway *gw)
{
    kd_gw_duties *d = gw->duties;
    if (!d)
        return;
    pthread_mutex_lock(&gw->lock);
    gw->stopping = 1;
    pthread_cond_broadcast(&d->wake);
    pthread_mutex_unlock(&gw->lock);
    pthread_join(d->thread, NULL);
    pthread_cond_destroy(&d->wake);
    kd_buf_fini(&d->watched.b);
    kd_buf_fini(&d->todo.b);
    kd_buf_fini(&d->flying);
    free(d);
    gw->duties = NULL;
}
