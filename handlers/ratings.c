/*
 * ratings.c — Elo per key and type from the canonical chain (ratings.h has
 * the whole computation and the formula).
 */
#include "handlers/ratings.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.pb-c.h"

/* ----------------------------------------------------------- the formula */

/* FIDE Handbook B.02 table 8.1(b): the rating difference up to which the
 * higher rated player's expected score is 0.50, 0.51, ... 0.92 (0-3:
 * 0.50, 4-10: 0.51, ..., 392-411: 0.92). Beyond 411 the table goes on to
 * 1.00, but the 400-point rule (8.54) never reads it. */
static const uint16_t fide_upper[] = {3,   10,  17,  25,  32,  39,  46,  53,  61,  68,  76,  83,  91,  98,  106,
                                      113, 121, 129, 137, 145, 153, 162, 170, 179, 188, 197, 206, 215, 225, 235,
                                      245, 256, 267, 278, 290, 302, 315, 328, 344, 357, 374, 391, 411};

int kd_elo_expected(int64_t diff)
{
    int64_t d = diff < 0 ? -diff : diff;
    if (d > KD_ELO_DIFF_CAP)
        d = KD_ELO_DIFF_CAP;
    int p = 50;
    for (size_t i = 0; i < sizeof fide_upper / sizeof fide_upper[0] && d > fide_upper[i]; i++)
        p++;
    return diff < 0 ? 100 - p : p;
}

int64_t kd_elo_change(int64_t own, int64_t other, int score)
{
    /* whole points, truncated toward zero, as the table is read */
    int64_t diff = (own - other) / 100;
    return (int64_t)KD_ELO_K * (score - kd_elo_expected(diff));
}

int kd_elo_score(kd_seat_result result)
{
    switch (result) {
    case KD_RESULT_WIN:
        return 100;
    case KD_RESULT_DRAW:
        return 50;
    case KD_RESULT_LOSS:
    case KD_RESULT_CHEAT:
    case KD_RESULT_FORFEIT:
        return 0;
    case KD_RESULT_NONE:
        break;
    }
    return -1;
}

const char *kd_unrated_name(kd_unrated why)
{
    static const char *const names[] = {"rated", "house", "seats", "self_play", "filtered"};
    return (unsigned)why < sizeof names / sizeof names[0] ? names[why] : "unknown";
}

/* ------------------------------------------------- the games, in order */

/* The last applied transaction of an episode seen so far. */
typedef struct {
    uint32_t episode;
    uint64_t seq;
    uint32_t tx;
} last_tx;

static int by_episode_then_position(const void *a, const void *b)
{
    const last_tx *x = a, *y = b;
    if (x->episode != y->episode)
        return x->episode < y->episode ? -1 : 1;
    if (x->seq != y->seq)
        return x->seq < y->seq ? -1 : 1;
    return x->tx < y->tx ? -1 : x->tx > y->tx;
}

static int by_position(const void *a, const void *b)
{
    const last_tx *x = a, *y = b;
    if (x->seq != y->seq)
        return x->seq < y->seq ? -1 : 1;
    return x->tx < y->tx ? -1 : x->tx > y->tx;
}

/* Every applied transaction of the canonical chain, then the last of each
 * episode, in log order, into *out (malloc'ed). */
static kd_err last_positions(kd_read *rd, last_tx **out, size_t *n_out, uint64_t *height)
{
    *out = NULL;
    *n_out = 0;
    uint64_t *seqs = NULL;
    size_t n_seqs = 0;
    kd_buf all;
    kd_buf_init(&all);
    kd_err err = kd_read_canonical_seqs(rd, &seqs, &n_seqs);
    for (size_t b = 0; !err && b < n_seqs; b++) {
        const uint8_t *data;
        size_t len;
        if ((err = kd_read_log_entry(rd, seqs[b], &data, &len)))
            break;
        Kdapp__Store__LogEntry *le = kdapp__store__log_entry__unpack(NULL, len, data);
        if (!le) {
            err = KD_ERR_STORE; /* the log entry of a canonical block does not decode */
            break;
        }
        for (size_t i = 0; !err && i < le->n_txs; i++)
            if (le->txs[i]->applied) {
                last_tx t = {.episode = le->txs[i]->episode_id, .seq = seqs[b], .tx = (uint32_t)i};
                err = kd_buf_append(&all, &t, sizeof t);
            }
        kdapp__store__log_entry__free_unpacked(le, NULL);
    }
    free(seqs);
    if (err) {
        kd_buf_fini(&all);
        return err;
    }
    last_tx *t = (last_tx *)all.data;
    size_t n = all.len / sizeof *t, kept = 0;
    if (n)
        qsort(t, n, sizeof *t, by_episode_then_position);
    for (size_t i = 0; i < n; i++)
        if (i + 1 == n || t[i + 1].episode != t[i].episode)
            t[kept++] = t[i];
    if (kept)
        qsort(t, kept, sizeof *t, by_position);
    *out = t; /* kd_buf's storage, now the caller's */
    *n_out = kept;
    *height = n_seqs;
    return KD_OK;
}

/* ------------------------------------------------------- the ratings */

/* An open-addressing index of (type, key) → ratings[i]. */
typedef struct {
    size_t *slots; /* index + 1, 0 empty */
    size_t cap;
} rating_index;

static uint64_t slot_hash(const kd_episode_type *type, const kd_pubkey *key)
{
    uint64_t h = 1469598103934665603ull ^ (uint64_t)(uintptr_t)type;
    for (size_t i = 0; i < KD_PUBKEY_LEN; i++)
        h = (h ^ key->bytes[i]) * 1099511628211ull;
    return h;
}

static kd_err index_grow(rating_index *ix, const kd_ratings *r)
{
    size_t cap = ix->cap ? 2 * ix->cap : 64;
    size_t *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return KD_ERR_NOMEM;
    for (size_t i = 0; i < r->n_ratings; i++) {
        size_t s = slot_hash(r->ratings[i].type, &r->ratings[i].key) & (cap - 1);
        while (slots[s])
            s = (s + 1) & (cap - 1);
        slots[s] = i + 1;
    }
    free(ix->slots);
    ix->slots = slots;
    ix->cap = cap;
    return KD_OK;
}

/* The rating of `key` in `type`, added at KD_ELO_START when new. */
static kd_err rating_of(rating_index *ix, kd_ratings *r, size_t *cap, const kd_episode_type *type, const kd_pubkey *key,
                        size_t *at)
{
    if (2 * (r->n_ratings + 1) > ix->cap) {
        kd_err err = index_grow(ix, r);
        if (err)
            return err;
    }
    size_t s = slot_hash(type, key) & (ix->cap - 1);
    for (; ix->slots[s]; s = (s + 1) & (ix->cap - 1)) {
        const kd_rating *e = &r->ratings[ix->slots[s] - 1];
        if (e->type == type && memcmp(e->key.bytes, key->bytes, KD_PUBKEY_LEN) == 0) {
            *at = ix->slots[s] - 1;
            return KD_OK;
        }
    }
    if (r->n_ratings == *cap) {
        size_t grown = *cap ? 2 * *cap : 32;
        kd_rating *more = realloc(r->ratings, grown * sizeof *more);
        if (!more)
            return KD_ERR_NOMEM;
        r->ratings = more;
        *cap = grown;
    }
    kd_rating *e = &r->ratings[r->n_ratings];
    memset(e, 0, sizeof *e);
    e->type = type;
    e->key = *key;
    e->rating = KD_ELO_START;
    ix->slots[s] = ++r->n_ratings;
    *at = r->n_ratings - 1;
    return KD_OK;
}

static void count(kd_rating *e, kd_seat_result result)
{
    e->games++;
    int score = kd_elo_score(result);
    if (score == 100)
        e->wins++;
    else if (score == 50)
        e->draws++;
    else
        e->losses++;
}

/* Applies one rated game: both changes from the ratings before it. */
static kd_err rate(rating_index *ix, kd_ratings *r, size_t *cap, kd_rated_game *g)
{
    size_t a, b;
    kd_err err = rating_of(ix, r, cap, g->type, &g->players.keys[0], &a);
    if (!err)
        err = rating_of(ix, r, cap, g->type, &g->players.keys[1], &b);
    if (err)
        return err;
    kd_rating *ea = &r->ratings[a], *eb = &r->ratings[b];
    g->before[0] = ea->rating;
    g->before[1] = eb->rating;
    g->change[0] = kd_elo_change(ea->rating, eb->rating, kd_elo_score(g->results[0]));
    g->change[1] = kd_elo_change(eb->rating, ea->rating, kd_elo_score(g->results[1]));
    ea->rating += g->change[0];
    eb->rating += g->change[1];
    count(ea, g->results[0]);
    count(eb, g->results[1]);
    return KD_OK;
}

static size_t type_rank(const kd_type_table *types, const kd_episode_type *type)
{
    for (size_t i = 0; i < types->count; i++)
        if (types->entries[i].type == type)
            return i;
    return types->count;
}

/* qsort has no context: the table order travels in a copy per entry. */
typedef struct {
    size_t rank;
    kd_rating rating;
} ranked;

static int by_table_rating_key(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    if (x->rating.rating != y->rating.rating)
        return x->rating.rating > y->rating.rating ? -1 : 1;
    return memcmp(x->rating.key.bytes, y->rating.key.bytes, KD_PUBKEY_LEN);
}

static kd_err sort_ratings(const kd_type_table *types, kd_ratings *r)
{
    if (r->n_ratings < 2)
        return KD_OK;
    ranked *tmp = malloc(r->n_ratings * sizeof *tmp);
    if (!tmp)
        return KD_ERR_NOMEM;
    for (size_t i = 0; i < r->n_ratings; i++)
        tmp[i] = (ranked){type_rank(types, r->ratings[i].type), r->ratings[i]};
    qsort(tmp, r->n_ratings, sizeof *tmp, by_table_rating_key);
    for (size_t i = 0; i < r->n_ratings; i++)
        r->ratings[i] = tmp[i].rating;
    free(tmp);
    return KD_OK;
}

static kd_unrated unrated_why(const kd_episode_type *type, const kd_participants *p, const kd_episode_type *only)
{
    if (only && type != only)
        return KD_UNRATED_FILTERED;
    if (type->house_seats)
        return KD_UNRATED_HOUSE;
    if (p->count != 2)
        return KD_UNRATED_SEATS;
    if (memcmp(p->keys[0].bytes, p->keys[1].bytes, KD_PUBKEY_LEN) == 0)
        return KD_UNRATED_SELF;
    return KD_UNRATED_NO;
}

/* The tables that never started (open, cancelled, closed at their
 * deadline), by id: their transactions (a creation, joins, a cancel) are
 * applied to an id that holds no episode. */
typedef struct {
    uint32_t *ids;
    size_t n, cap;
    int read;
} unstarted;

static kd_err add_unstarted(void *ctx, const kd_table_info *t)
{
    unstarted *u = ctx;
    if (t->started)
        return KD_OK;
    if (u->n == u->cap) {
        size_t grown = u->cap ? 2 * u->cap : 16;
        uint32_t *more = realloc(u->ids, grown * sizeof *more);
        if (!more)
            return KD_ERR_NOMEM;
        u->ids = more;
        u->cap = grown;
    }
    u->ids[u->n++] = t->episode_id;
    return KD_OK;
}

static int by_id(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Sets *is when `id` is a table that never started; the tables are read
 * once, at the first id that holds no episode (kd_read_tables walks them in
 * id order). */
static kd_err never_started(kd_read *rd, unstarted *u, uint32_t id, int *is)
{
    *is = 0;
    if (!u->read) {
        kd_err err = kd_read_tables(rd, add_unstarted, u);
        if (err)
            return err;
        u->read = 1;
    }
    *is = u->n && bsearch(&id, u->ids, u->n, sizeof *u->ids, by_id);
    return KD_OK;
}

kd_err kd_ratings_compute(kd_read *rd, const kd_type_table *types, const char *type, kd_ratings *out)
{
    memset(out, 0, sizeof *out);
    const kd_episode_type *only = NULL;
    if (type && !(only = kd_type_table_find(types, type)))
        return KD_ERR_UNKNOWN_TYPE;
    kd_tip tip;
    kd_err err = kd_read_tip(rd, &tip);
    if (err)
        return err;
    out->last_seq = tip.last_seq;
    last_tx *order = NULL;
    size_t n = 0, games_cap = 0, ratings_cap = 0;
    rating_index ix = {0};
    unstarted tables = {0};
    if ((err = last_positions(rd, &order, &n, &out->height)))
        goto done;
    for (size_t i = 0; !err && i < n; i++) {
        kd_episode_snapshot snap;
        err = kd_read_episode(rd, order[i].episode, &snap);
        if (err == KD_ERR_UNKNOWN_TYPE) { /* a type this build does not know: not rated here */
            err = KD_OK;
            continue;
        }
        int table = 0; /* no episode: a table that never started (else the store is damaged) */
        if (err == KD_ERR_NOT_FOUND) {
            kd_err terr = never_started(rd, &tables, order[i].episode, &table);
            if (terr || table)
                err = terr;
        }
        if (err)
            break;
        if (table)
            continue;
        const kd_episode_type *t = kd_type_table_find(types, snap.ops->type_name);
        if (t && t->status(snap.state).phase != KD_PHASE_IN_PROGRESS) {
            if (out->n_games == games_cap) {
                size_t grown = games_cap ? 2 * games_cap : 32;
                kd_rated_game *more = realloc(out->games, grown * sizeof *more);
                if (!more) {
                    err = KD_ERR_NOMEM;
                    kd_episode_snapshot_fini(&snap);
                    break;
                }
                out->games = more;
                games_cap = grown;
            }
            kd_rated_game *g = &out->games[out->n_games++];
            memset(g, 0, sizeof *g);
            g->episode = order[i].episode;
            g->type = t;
            g->seq = order[i].seq;
            g->tx = order[i].tx;
            g->players = snap.participants;
            for (size_t s = 0; s < snap.participants.count; s++)
                g->results[s] = kd_episode_seat_result(t, snap.state, (int)s);
            g->unrated = unrated_why(t, &snap.participants, only);
            if (g->unrated == KD_UNRATED_NO)
                err = rate(&ix, out, &ratings_cap, g);
        }
        kd_episode_snapshot_fini(&snap);
    }
    if (!err)
        err = sort_ratings(types, out);
done:
    free(tables.ids);
    free(ix.slots);
    free(order);
    return err;
}

void kd_ratings_fini(kd_ratings *r)
{
    if (!r)
        return;
    free(r->games);
    free(r->ratings);
    memset(r, 0, sizeof *r);
}

const kd_rated_game *kd_ratings_game_at(const kd_ratings *r, uint64_t seq, uint32_t tx)
{
    size_t lo = 0, hi = r->n_games; /* games are in (seq, tx) order */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const kd_rated_game *g = &r->games[mid];
        if (g->seq == seq && g->tx == tx)
            return g;
        if (g->seq < seq || (g->seq == seq && g->tx < tx))
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* ------------------------------------------------------------ renderings */

/* Whole points, rounded half up (hundredths may be negative). */
static int64_t whole_points(int64_t x100) { return x100 >= 0 ? (x100 + 50) / 100 : -((-x100 + 49) / 100); }

/* The players (hex) and their results (names), as two arrays. */
static void seats_json(const kd_rated_game *g, json_t **players_out, json_t **results_out)
{
    json_t *players = json_array(), *results = json_array();
    for (size_t s = 0; players && results && s < g->players.count; s++) {
        json_array_append_new(players, kd_json_hex(g->players.keys[s].bytes, KD_PUBKEY_LEN));
        json_array_append_new(results, json_string(kd_seat_result_name(g->results[s])));
    }
    *players_out = players;
    *results_out = results;
}

json_t *kd_game_result_json(const kd_rated_game *g)
{
    json_t *players, *results, *house = json_array();
    seats_json(g, &players, &results);
    for (unsigned s = 0; house && s < KD_MAX_PARTICIPANTS; s++)
        if (g->type->house_seats & (1u << s))
            json_array_append_new(house, json_integer(s));
    return json_pack("{s:s, s:o, s:o, s:o}", "type", g->type->ops->type_name, "players",
                     players ? players : json_null(), "results", results ? results : json_null(), "house",
                     house ? house : json_null());
}

json_t *kd_rated_game_json(const kd_rated_game *g)
{
    json_t *players, *results;
    seats_json(g, &players, &results);
    json_t *changes = g->unrated == KD_UNRATED_NO
                          ? json_pack("[I, I]", (json_int_t)g->change[0], (json_int_t)g->change[1])
                          : json_null();
    return json_pack("{s:I, s:s, s:I, s:I, s:o, s:o, s:b, s:o, s:o}", "episode", (json_int_t)g->episode, "type",
                     g->type->ops->type_name, "seq", (json_int_t)g->seq, "tx", (json_int_t)g->tx, "players",
                     players ? players : json_null(), "results", results ? results : json_null(), "rated",
                     g->unrated == KD_UNRATED_NO, "unrated",
                     g->unrated == KD_UNRATED_NO ? json_null() : json_string(kd_unrated_name(g->unrated)), "changes",
                     changes ? changes : json_null());
}

json_t *kd_ratings_json(const kd_ratings *r)
{
    size_t rated = 0;
    for (size_t i = 0; i < r->n_games; i++)
        rated += r->games[i].unrated == KD_UNRATED_NO;
    json_t *list = json_array();
    for (size_t i = 0; list && i < r->n_ratings; i++) {
        const kd_rating *e = &r->ratings[i];
        json_array_append_new(
            list, json_pack("{s:s, s:o, s:I, s:I, s:I, s:I, s:I, s:I}", "type", e->type->ops->type_name, "key",
                            kd_json_hex(e->key.bytes, KD_PUBKEY_LEN), "rating", (json_int_t)whole_points(e->rating),
                            "rating_x100", (json_int_t)e->rating, "games", (json_int_t)e->games, "wins",
                            (json_int_t)e->wins, "draws", (json_int_t)e->draws, "losses", (json_int_t)e->losses));
    }
    return json_pack("{s:{s:s, s:i, s:i, s:i, s:s}, s:I, s:I, s:I, s:I, s:o}", "formula", "system",
                     "elo (FIDE table 8.1(b), integer hundredths)", "start", KD_ELO_START / 100, "k", KD_ELO_K,
                     "difference_cap", KD_ELO_DIFF_CAP, "order", "log order of each game's last applied transaction",
                     "height", (json_int_t)r->height, "log_seq", (json_int_t)r->last_seq, "games_finished",
                     (json_int_t)r->n_games, "games_rated", (json_int_t)rated, "ratings", list ? list : json_null());
}

kd_err kd_ratings_text(const kd_ratings *r, kd_buf *out)
{
    kd_err err = KD_OK;
    const kd_episode_type *type = NULL;
    if (!r->n_ratings)
        return kd_buf_appendf(out, "no rated games yet (%zu finished on a chain of %llu blocks)\n", r->n_games,
                              (unsigned long long)r->height);
    for (size_t i = 0; !err && i < r->n_ratings; i++) {
        const kd_rating *e = &r->ratings[i];
        if (e->type != type) {
            type = e->type;
            err = kd_buf_appendf(out, "%s%s (%s)\n  %-8s %-10s %5s %4s %4s %4s\n", i ? "\n" : "", type->title,
                                 type->ops->type_name, "rating", "key", "games", "won", "drew", "lost");
        }
        char hex[2 * KD_PUBKEY_LEN + 1];
        kd_hex_encode(e->key.bytes, KD_PUBKEY_LEN, hex);
        if (!err)
            err = kd_buf_appendf(out, "  %-8lld %.10s %5u %4u %4u %4u\n", (long long)whole_points(e->rating), hex,
                                 e->games, e->wins, e->draws, e->losses);
    }
    return err;
}
