/*
 * players.c — the seeded generator, moves as command bytes with a
 * notation, the random and search players, and the player objects that
 * wrap every kind behind one ops table (see players.h).
 */
#include "tools/play/players.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- rng */

void kd_play_rng_seed(kd_play_rng *rng, uint64_t seed) { rng->s = seed; }

uint64_t kd_play_rng_next(kd_play_rng *rng) /* splitmix64 */
{
    uint64_t z = (rng->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint32_t kd_play_rng_below(kd_play_rng *rng, uint32_t n)
{
    uint64_t limit = UINT64_MAX - UINT64_MAX % n; /* rejection: no modulo bias */
    uint64_t v;
    do
        v = kd_play_rng_next(rng);
    while (v >= limit);
    return (uint32_t)(v % n);
}

/* ---------------------------------------------------------------- moves */

kd_err kd_play_move_of(const kd_play_turn *turn, const uint8_t *command, size_t len, kd_legal_move *move)
{
    if (len > KD_COMMAND_MAX)
        return KD_ERR_TOO_LARGE;
    memset(move, 0, sizeof *move);
    memcpy(move->command, command, len);
    move->command_len = len;
    for (size_t i = 0; turn->legal && i < turn->legal->count; i++) {
        const kd_legal_move *m = &turn->legal->moves[i];
        if (m->command_len == len && memcmp(m->command, command, len) == 0) {
            memcpy(move->notation, m->notation, sizeof move->notation);
            return KD_OK;
        }
    }
    json_t *j = turn->type->command_to_json(command, len);
    char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
    snprintf(move->notation, sizeof move->notation, "%s", text ? text : "?");
    free(text);
    json_decref(j);
    return KD_OK;
}

/* -------------------------------------------------------------- players */

struct kd_player {
    const kd_player_ops *ops;
    void *impl;
    char *name;
    kd_play_rng rng;
    kd_player_stats stats;
};

/* random and search share one implementation. */
typedef struct {
    int search;
    unsigned depth;
    kd_play_rng *rng; /* the player's */
} builtin;

/* A uniformly random legal move. Errors: KD_ERR_NO_MOVE (none). */
static kd_err random_move(const kd_play_turn *turn, kd_play_rng *rng, kd_legal_move *move)
{
    if (!turn->legal || !turn->legal->count)
        return KD_ERR_NO_MOVE;
    *move = turn->legal->moves[kd_play_rng_below(rng, (uint32_t)turn->legal->count)];
    return KD_OK;
}

static kd_err builtin_choose(void *impl, const kd_play_turn *turn, const char *feedback, kd_legal_move *move, char *why,
                             size_t why_len)
{
    (void)feedback;
    builtin *b = impl;
    kd_err err;
    if (!b->search) {
        err = random_move(turn, b->rng, move);
    } else if (!turn->type->bot_command) {
        kd_reject_write(why, why_len, "%s has no bot, so the search player cannot play it", turn->type->ops->type_name);
        return KD_ERR_UNSUPPORTED;
    } else {
        kd_buf cmd;
        kd_buf_init(&cmd);
        err = turn->type->bot_command(turn->state, b->depth, kd_play_rng_next(b->rng), &cmd);
        if (!err)
            err = kd_play_move_of(turn, cmd.data, cmd.len, move);
        kd_buf_fini(&cmd);
    }
    if (err)
        kd_reject_write(why, why_len, "no legal move for %s", turn->seat_name);
    return err;
}

static void builtin_free(void *impl) { free(impl); }

static const kd_player_ops random_ops = {
    .kind = "random", .choose = builtin_choose, .free = builtin_free, .retry_limit = KD_PLAYER_RETRY_LIMIT};
static const kd_player_ops search_ops = {
    .kind = "search", .choose = builtin_choose, .free = builtin_free, .retry_limit = KD_PLAYER_RETRY_LIMIT};

kd_err kd_player_alloc(const char *spec, const kd_player_options *o, kd_player **out, char *why, size_t why_len)
{
    *out = NULL;
    kd_player *p = calloc(1, sizeof *p);
    if (!p || !(p->name = strdup(spec))) {
        free(p);
        return KD_ERR_NOMEM;
    }
    kd_play_rng_seed(&p->rng, o->seed);
    kd_err err = KD_OK;
    if (strcmp(spec, "random") == 0 || strcmp(spec, "search") == 0) {
        builtin *b = calloc(1, sizeof *b);
        if (!b) {
            err = KD_ERR_NOMEM;
            goto fail;
        }
        b->search = spec[0] == 's';
        b->depth = o->depth ? o->depth : KD_SEARCH_DEFAULT_DEPTH;
        b->rng = &p->rng;
        p->ops = b->search ? &search_ops : &random_ops;
        p->impl = b;
    } else if (strncmp(spec, "llm:", 4) == 0) {
        p->ops = &kd_player_llm_ops;
        err = kd_player_llm_open(spec + 4, o, &p->impl, why, why_len);
    } else if (strcmp(spec, "human") == 0) {
        p->ops = &kd_player_human_ops;
        err = kd_player_human_open(o, &p->impl);
    } else {
        kd_reject_write(why, why_len, "unknown player '%s': use random, search, llm:URL or human", spec);
        err = KD_ERR_INVALID_ARG;
    }
    if (err)
        goto fail;
    *out = p;
    return KD_OK;
fail:
    p->ops = NULL;
    kd_player_free(p);
    return err;
}

void kd_player_free(kd_player *p)
{
    if (!p)
        return;
    if (p->ops && p->impl)
        p->ops->free(p->impl);
    free(p->name);
    free(p);
}

const char *kd_player_name(const kd_player *p) { return p->name; }

unsigned kd_player_retry_limit(const kd_player *p) { return p->ops->retry_limit; }

int kd_player_interactive(const kd_player *p) { return p->ops->interactive; }

int kd_player_needs_bot(const kd_player *p) { return p->ops == &search_ops; }

kd_err kd_player_choose(kd_player *p, const kd_play_turn *turn, const char *feedback, kd_legal_move *move, char *why,
                        size_t why_len)
{
    kd_err err = p->ops->choose(p->impl, turn, feedback, move, why, why_len);
    if (err == KD_ERR_PARSE)
        p->stats.refused++;
    return err;
}

kd_err kd_player_fallback(kd_player *p, const kd_play_turn *turn, kd_legal_move *move)
{
    kd_err err = random_move(turn, &p->rng, move);
    if (!err)
        p->stats.fallbacks++;
    return err;
}

void kd_player_note_move(kd_player *p) { p->stats.moves++; }
void kd_player_note_refused(kd_player *p) { p->stats.refused++; }
kd_player_stats kd_player_get_stats(const kd_player *p) { return p->stats; }
