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
 * has at most one duty in flight, keyed by the state it was made from
 * (the move counter and the log entry of the episode's last change). A
 * duty is paid once while it may still be carried: looking at its episode
 * again before its block (a block summary, a reorg elsewhere, the safety
 * net) finds it in flight and sends nothing; only a change of the episode
 * (another command, or a revert of the state it was made from) makes a new
 * one. A duty still owed RETRY_MS after it was submitted is looked up in
 * the log: refused by the rules (logged once; not again for that state),
 * or never carried (submitted again: a reorg may have dropped it; on a
 * chain whose transactions take longer than RETRY_MS to reach the log,
 * this copy is paid twice). Two gateways whose seats owe a duty at the
 * same move (hold'em's keys, sea battle's reveals) race: the copy carried
 * second is refused stale_command, and its seat's next duty is signed
 * anew. The sets grow as needed: no duty is ever dropped for want of
 * room.
 *
 * The house's terms (issue 37):
 *
 *   reveal depth  a duty whose type says when it is due (duty_due: a
 *                 house reveals an ask only once the ask's block is its
 *                 reveal depth deep) waits until the tip's DAA score
 *                 reaches it; the tip's score is the newest applied
 *                 accept's, unknown after a revert until the next accept.
 *                 A chain that mines on demand (the devnet) is asked for
 *                 the blocks (chain.advance). Waiting episodes are looked
 *                 at again whenever the tip moves.
 *   no free withdrawal
 *                 every command of another seat in an episode where the
 *                 gateway acts in a house seat (its house key, or a
 *                 granted key there) whose commitment it made for this
 *                 store (an episode it consented to) is kept (its payload,
 *                 from the log) until its block is final; once the house
 *                 answers after it (a duty applied or sent in that
 *                 episode) it is "answered". When a reorg reverts an
 *                 answered command's block, the player's own signed
 *                 payload is submitted again, as that seat's own duty (its
 *                 key pays on a chain of fees), before any duty
 *                 of that loop, the oldest of its episode first and again
 *                 whenever the episode's move counter moves, until the log
 *                 applies it again (or another command of its signer in
 *                 that episode took its place): a player cannot take back
 *                 a losing ask by leaving it out of the new chain. It wins
 *                 the race only with a command the chain orders first,
 *                 which draws anew (the residual risk: mcp/security.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/logger.h"
#include "engine/wire.h"
#include "episodes/secrets.h"
#include "mcp/gateway/gateway_int.h"

#define LOG_LOOK_MS 250  /* the longest the log goes unread */
#define RECHECK_MS 5000  /* every watched episode is checked again */
#define RETRY_MS 2000    /* a duty not carried by then is looked up */
#define SCAN_PAGE 1024   /* episode ids read at once at start */
#define TIP_LOOK_BACK 64 /* log entries read back at start for the tip's DAA score */

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

/* An episode where the gateway acts in a house seat, and that seat's key. */
typedef struct {
    uint32_t id;
    kd_pubkey house;
    const kd_gw_key *key; /* the gateway's key for it (pays for sending a dropped ask again) */
} house_ep;

/* A command of another seat in an episode where the house sits (above). */
typedef struct {
    uint32_t episode_id;
    kd_pubkey signer; /* its signer (zero: unsigned) */
    int answered;     /* the house answered after it */
    int dropped;      /* a reorg reverted its block; not applied again since */
    uint64_t height;  /* the chain height of the block that applied it */
    uint64_t sent_at; /* dropped: the episode's move counter when last sent again (UINT64_MAX: never) */
    uint8_t block[KD_HASH_LEN];
    uint8_t *payload; /* malloc'd: the EpisodeMessage as the log carried it */
    size_t len;
} ask_rec;

struct kd_gw_duties {
    kd_gateway *gw;
    pthread_t thread;
    pthread_cond_t wake; /* gw->lock */
    int kicked;          /* gw->lock */
    uint64_t cursor;     /* the newest log entry followed */
    idset watched, todo;
    kd_buf flying; /* in_flight records */
    /* the house's terms */
    uint64_t tip_daa, tip_height, finality;
    int tip_known;     /* the newest applied entry is an accept: tip_daa is the tip's */
    idset waiting;     /* episodes whose duty waits for the tip's DAA score */
    uint64_t advanced; /* the DAA score the chain was last asked to mine to */
    kd_buf house_eps;  /* house_ep records, by id: episodes where the gateway acts in a house seat */
    idset other_eps;   /* episodes looked at where it does not */
    kd_buf asks;       /* ask_rec records, in log order */
    size_t n_dropped;  /* of them, dropped */
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

static int idset_has(const idset *s, uint32_t id)
{
    int found;
    (void)idset_find(s, id, &found);
    return found;
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

/* --------------------------------------------------------- answered asks */

static ask_rec *ask_at(kd_gw_duties *d, size_t i) { return (ask_rec *)d->asks.data + i; }
static size_t ask_count(const kd_gw_duties *d) { return d->asks.len / sizeof(ask_rec); }

static void asks_remove(kd_gw_duties *d, size_t i)
{
    d->n_dropped -= ask_at(d, i)->dropped;
    free(ask_at(d, i)->payload);
    memmove(ask_at(d, i), ask_at(d, i + 1), (ask_count(d) - i - 1) * sizeof(ask_rec));
    d->asks.len -= sizeof(ask_rec);
}

/* The house answered in episode `id`: every command kept before is answered. */
static void asks_answered(kd_gw_duties *d, uint32_t id)
{
    for (size_t i = 0; i < ask_count(d); i++)
        if (ask_at(d, i)->episode_id == id)
            ask_at(d, i)->answered = 1;
}

/* The house_ep of episode `id`, or where it would go (*found 0). */
static size_t house_ep_find(const kd_gw_duties *d, uint32_t id, int *found)
{
    const house_ep *e = (const house_ep *)d->house_eps.data;
    size_t lo = 0, hi = d->house_eps.len / sizeof *e;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (e[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = lo < d->house_eps.len / sizeof *e && e[lo].id == id;
    return lo;
}

/* The key of the house seat the gateway acts for in episode `id` (read
 * once, then remembered), or NULL where it acts in none, where the seat's
 * commitment is not one its key made for this store (an episode it did
 * not consent to: it pays nothing there), or where it cannot read. */
static const kd_pubkey *house_of(kd_gw_duties *d, kd_read *rd, uint32_t id)
{
    int found;
    size_t at = house_ep_find(d, id, &found);
    if (found)
        return &((const house_ep *)d->house_eps.data)[at].house;
    if (idset_has(&d->other_eps, id))
        return NULL;
    kd_episode_snapshot snap;
    if (kd_read_episode(rd, id, &snap) != KD_OK)
        return NULL;
    const kd_episode_type *t = kd_gw_type(d->gw, snap.ops->type_name);
    house_ep e = {.id = id};
    int sits = 0;
    uint8_t seed[KD_SECRET_SEED_LEN];
    for (size_t seat = 0; t && !sits && seat < snap.participants.count && seat < 32; seat++)
        if ((t->house_seats & (1u << seat)) &&
            (e.key = kd_gw_acting_key(d->gw, t, (int)seat, &snap.participants.keys[seat])) &&
            kd_seat_seed(t, &e.key->key, d->gw->store_id, id, (int)seat, snap.state, seed) == KD_OK) {
            e.house = snap.participants.keys[seat]; /* its own commitment: an episode it consented to */
            sits = 1;
        }
    memset(seed, 0, sizeof seed);
    kd_episode_snapshot_fini(&snap);
    if (!sits) {
        (void)idset_add(&d->other_eps, id);
        return NULL;
    }
    if (kd_buf_reserve(&d->house_eps, sizeof e) != KD_OK)
        return NULL; /* out of memory: looked at again next time */
    house_ep *list = (house_ep *)d->house_eps.data;
    size_t n = d->house_eps.len / sizeof e;
    memmove(&list[at + 1], &list[at], (n - at) * sizeof e);
    list[at] = e;
    d->house_eps.len += sizeof e;
    return &list[at].house;
}

/* Keeps the commands an applied accept applied in the house's episodes
 * (a dropped one seen again is no longer dropped) and marks the answered. */
static kd_err asks_accept(kd_gw_duties *d, kd_read *rd, const kd_log_change *c)
{
    const kd_log_command *cmds = (const kd_log_command *)c->commands.data;
    for (size_t i = 0; i < c->commands.len / sizeof *cmds; i++) {
        const kd_log_command *cmd = &cmds[i];
        const kd_pubkey *house = house_of(d, rd, cmd->episode_id);
        if (!house)
            continue;
        if (cmd->has_signer && memcmp(cmd->signer.bytes, house->bytes, KD_PUBKEY_LEN) == 0) {
            asks_answered(d, cmd->episode_id);
            continue;
        }
        const uint8_t *payload = c->payloads.data + cmd->at;
        kd_pubkey signer;
        memset(&signer, 0, sizeof signer);
        if (cmd->has_signer)
            signer = cmd->signer;
        ask_rec *again = NULL;
        for (size_t k = 0; d->n_dropped && !again && k < ask_count(d); k++) {
            ask_rec *r = ask_at(d, k);
            if (r->dropped && r->episode_id == cmd->episode_id && r->len == cmd->len &&
                memcmp(r->payload, payload, cmd->len) == 0)
                again = r;
        }
        if (again) { /* applied again: re-included, or sent again by the house */
            again->dropped = 0;
            d->n_dropped--;
            again->height = c->height;
            memcpy(again->block, c->block, KD_HASH_LEN);
            continue;
        }
        for (size_t k = d->n_dropped ? ask_count(d) : 0; k-- > 0;) { /* its signer moved on: what it dropped is gone */
            ask_rec *r = ask_at(d, k);
            if (r->dropped && r->episode_id == cmd->episode_id && memcmp(&r->signer, &signer, sizeof signer) == 0)
                asks_remove(d, k);
        }
        ask_rec r = {.episode_id = cmd->episode_id,
                     .signer = signer,
                     .height = c->height,
                     .payload = malloc(cmd->len ? cmd->len : 1),
                     .len = cmd->len};
        if (!r.payload)
            return KD_ERR_NOMEM;
        memcpy(r.payload, payload, cmd->len);
        memcpy(r.block, c->block, KD_HASH_LEN);
        kd_err err = kd_buf_append(&d->asks, &r, sizeof r);
        if (err) {
            free(r.payload);
            return err;
        }
    }
    return KD_OK;
}

/* A revert of block `block`: its answered commands are dropped (to be
 * sent again), the others forgotten (the house revealed nothing of them). */
static void asks_revert(kd_gw_duties *d, const uint8_t block[KD_HASH_LEN])
{
    for (size_t i = ask_count(d); i-- > 0;) {
        ask_rec *r = ask_at(d, i);
        if (r->dropped || memcmp(r->block, block, KD_HASH_LEN) != 0)
            continue;
        if (!r->answered) {
            asks_remove(d, i);
            continue;
        }
        r->dropped = 1;
        r->sent_at = UINT64_MAX;
        d->n_dropped++;
    }
}

/* Forgets the commands whose block is final (no reorg reaches it). */
static void asks_prune(kd_gw_duties *d)
{
    size_t kept = 0, n = ask_count(d);
    for (size_t i = 0; i < n; i++) {
        ask_rec *r = ask_at(d, i);
        if (d->finality && r->height + d->finality <= d->tip_height) {
            d->n_dropped -= r->dropped;
            free(r->payload);
        } else {
            *ask_at(d, kept++) = *r;
        }
    }
    d->asks.len = kept * sizeof(ask_rec);
}

/* Sends again, before any duty, the oldest dropped answered command of
 * each episode, whenever the episode's move counter differs from the one
 * it was last sent at (until the log applies it again). */
static void asks_resubmit(kd_gw_duties *d)
{
    kd_gateway *gw = d->gw;
    for (size_t i = 0; d->n_dropped && i < ask_count(d); i++) {
        ask_rec *r = ask_at(d, i);
        if (!r->dropped)
            continue;
        int older = 0;
        for (size_t k = 0; k < i && !older; k++)
            older = ask_at(d, k)->dropped && ask_at(d, k)->episode_id == r->episode_id;
        if (older)
            continue;
        kd_episode_snapshot snap;
        if (kd_engine_episode_read(gw->o.engine, r->episode_id, &snap) != KD_OK)
            continue; /* its creation was reverted too: it may come back */
        uint64_t counter = snap.undo_depth;
        kd_episode_snapshot_fini(&snap);
        if (counter == r->sent_at)
            continue;
        int found;
        size_t at = house_ep_find(d, r->episode_id, &found);
        if (!found)
            continue; /* kept only for the house's episodes: not reached */
        /* the house's own duty, in an episode it consented to: its seat's key pays */
        char why[512] = "";
        uint8_t tx_id[KD_HASH_LEN];
        kd_gateway_spend spend; /* that key, under its grant's or the house's budget */
        kd_gw_spend_of_duty(gw, ((const house_ep *)d->house_eps.data)[at].key, &spend);
        kd_err err = gw->o.chain.submit(gw->o.chain.ctx, r->payload, r->len, &spend, tx_id, why, sizeof why);
        if (err) {
            KD_LOG_W("gateway", "duties: episode %u: the player's dropped ask could not be sent again: %s",
                     r->episode_id, why[0] ? why : kd_err_str(err));
            continue;
        }
        r->sent_at = counter;
        KD_LOG_I("gateway",
                 "duties: episode %u: a reorg dropped an ask the house had answered; its signed payload (%zu bytes) "
                 "sent again at move %llu",
                 r->episode_id, r->len, (unsigned long long)counter);
    }
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
            *f = (in_flight){.episode_id = snap->id,
                             .counter = snap->undo_depth,
                             .state_seq = snap->updated_seq,
                             .after = after,
                             .sent_ms = kd_now_ms()};
            memcpy(f->tx_id, tx_id, KD_HASH_LEN);
        }
        KD_LOG_D("gateway", "duties: episode %u: seat %d's duty at move %llu sent (tx %02x%02x%02x%02x)", snap->id,
                 seat, (unsigned long long)snap->undo_depth, tx_id[0], tx_id[1], tx_id[2], tx_id[3]);
        asks_answered(d, snap->id); /* the answer is public from now on */
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
    KD_LOG_I("gateway", "duties: episode %u: the duty at move %llu is not in the log %llu ms after it was sent: again",
             snap->id, (unsigned long long)f->counter, (unsigned long long)(now - f->sent_ms));
    flying_drop(d, f); /* never carried (a reorg may have dropped it): again */
    return 0;
}

/* Whether the duty `seat` owes in `snap` is due by its own terms
 * (duty_due); when not, the episode waits for the tip and a chain that
 * mines on demand is asked for the blocks. */
static int due_now(kd_gw_duties *d, const kd_episode_type *t, const kd_episode_snapshot *snap, int seat)
{
    uint64_t due = t->duty_due ? t->duty_due(snap->state, seat) : 0;
    if (!due || (d->tip_known && d->tip_daa >= due))
        return 1;
    (void)idset_add(&d->waiting, snap->id);
    kd_gateway *gw = d->gw;
    if (gw->o.chain.advance && due > d->advanced) {
        char why[512] = "";
        kd_err err = gw->o.chain.advance(gw->o.chain.ctx, due, why, sizeof why);
        if (err)
            KD_LOG_D("gateway", "duties: the chain mines no blocks on demand (%s)", why[0] ? why : kd_err_str(err));
        d->advanced = due;
    }
    return 0;
}

/* Checks episode `id`: whether it is watched, and pays what its acting
 * seats owe once due. */
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
            if (keys[seat] && (!due_now(d, t, &snap, (int)seat) ||
                               submit_duty(d, t, &snap, (int)seat, keys[seat], after) != KD_ERR_NO_MOVE))
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

/* The tip as an applied log entry `c` leaves it. */
static void note_tip(kd_gw_duties *d, const kd_log_change *c)
{
    d->tip_height = c->height;
    d->tip_known = !c->reverted;
    if (!c->reverted && c->daa != d->tip_daa) {
        d->tip_daa = c->daa;
        (void)idset_add_all(&d->todo, &d->waiting); /* the waiting look again */
        kd_buf_fini(&d->waiting.b);
    }
}

/* Reads the log entries after the cursor into `todo` (and the house's
 * kept asks); returns the tip's newest entry. */
static uint64_t follow_log(kd_gw_duties *d)
{
    kd_read *rd;
    kd_tip tip;
    if (kd_engine_read_begin(d->gw->o.engine, &rd) != KD_OK)
        return d->cursor;
    kd_err err = kd_read_tip(rd, &tip);
    d->finality = tip.finality_depth;
    while (!err && d->cursor < tip.last_seq) {
        kd_log_change c;
        err = kd_read_log_commands(rd, d->cursor + 1, &c);
        if (!err && c.applied)
            note_tip(d, &c);
        if (!err && c.reverted) {
            asks_revert(d, c.block);
            err = idset_add_all(&d->todo, &d->watched);
        } else if (!err && c.applied) {
            err = asks_accept(d, rd, &c);
        }
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

/* The tip's DAA score at start: the newest applied log entry's, when it
 * is an accept (after a revert it is known from the next accept). */
static void read_tip(kd_gw_duties *d)
{
    kd_read *rd;
    kd_tip tip;
    if (kd_engine_read_begin(d->gw->o.engine, &rd) != KD_OK)
        return;
    if (kd_read_tip(rd, &tip) == KD_OK) {
        d->cursor = tip.last_seq;
        d->tip_height = tip.height;
        d->finality = tip.finality_depth;
        for (uint64_t seq = tip.last_seq; seq > 0 && seq + TIP_LOOK_BACK > tip.last_seq; seq--) {
            kd_log_change c;
            kd_err err = kd_read_log_change(rd, seq, &c);
            int found = !err && c.applied;
            if (found)
                note_tip(d, &c);
            kd_log_change_fini(&c);
            if (found || (err && err != KD_ERR_NOT_FOUND))
                break;
        }
    }
    kd_engine_read_end(rd);
}

static void *serve_duties(void *arg)
{
    kd_gw_duties *d = arg;
    kd_gateway *gw = d->gw;
    read_tip(d);
    scan_store(d);
    uint64_t last_recheck = kd_now_ms();
    for (;;) {
        uint64_t after = follow_log(d), now = kd_now_ms();
        asks_prune(d);
        asks_resubmit(d); /* before anything else: a dropped answered ask goes out first */
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
    kd_buf_init(&d->waiting.b);
    kd_buf_init(&d->house_eps);
    kd_buf_init(&d->other_eps.b);
    kd_buf_init(&d->asks);
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
    kd_buf_fini(&d->waiting.b);
    kd_buf_fini(&d->house_eps);
    kd_buf_fini(&d->other_eps.b);
    while (ask_count(d))
        asks_remove(d, ask_count(d) - 1);
    kd_buf_fini(&d->asks);
    free(d);
    gw->duties = NULL;
}
