/*
 * players.c — the seeded generator, moves as command bytes with a
 * notation, the random and search players, and the player objects that
 * wrap every kind behind one ops table (see players.h).
 */
#include "tools/play/players.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
    kd_search_budget budget; /* search: depth (>= 1) and think_ms (0: a fixed depth) */
    kd_play_rng *rng;        /* the player's */
    kd_player_stats *stats;  /* the player's */
} builtin;

/* A uniformly random legal move. Errors: KD_ERR_NO_MOVE (none). */
static kd_err random_move(const kd_play_turn *turn, kd_play_rng *rng, kd_legal_move *move)
{
    if (!turn->legal || !turn->legal->count)
        return KD_ERR_NO_MOVE;
    *move = turn->legal->moves[kd_play_rng_below(rng, (uint32_t)turn->legal->count)];
    return KD_OK;
}

static uint64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* The bot's answer within b->budget (players.h), in `cmd`; *reached is the
 * depth of that answer. Every iteration breaks ties with one value. */
static kd_err search_move(const builtin *b, const kd_play_turn *turn, kd_buf *cmd, unsigned *reached)
{
    uint64_t tiebreak = kd_play_rng_next(b->rng), start = now_us(), budget = (uint64_t)b->budget.think_ms * 1000u;
    uint64_t last = 0, prev = 0;
    unsigned cap = b->budget.depth;
    if (turn->type->bot_max_depth && cap > turn->type->bot_max_depth)
        cap = turn->type->bot_max_depth; /* deeper asks search no deeper */
    unsigned first = b->budget.think_ms ? 1 : cap;
    kd_err err = KD_OK;
    /* a seat that sees its own secret (hole cards) plays with it */
    json_t *own = NULL;
    char why[200];
    if (turn->type->bot_secret_command && turn->get_own_secret &&
        turn->get_own_secret(turn->prompt_ctx, &own, why, sizeof why) != KD_OK)
        own = NULL;
    for (unsigned d = first; d <= cap; d++) {
        if (d > first && !kd_search_next_fits(budget, now_us() - start, last, prev))
            break;
        uint64_t t0 = now_us();
        cmd->len = 0;
        err = own ? turn->type->bot_secret_command(turn->state, turn->seat, own, d, tiebreak, cmd)
                  : turn->type->bot_command(turn->state, d, tiebreak, cmd);
        if (err)
            break;
        prev = last;
        last = now_us() - t0;
        *reached = d;
    }
    json_decref(own);
    return err;
}

/* Counts a search's depth and time in the player's stats. */
static void note_search(kd_player_stats *s, unsigned depth, uint64_t took_us)
{
    if (!s->depth_min || depth < s->depth_min)
        s->depth_min = depth;
    if (depth > s->depth_max)
        s->depth_max = depth;
    uint64_t ms = took_us / 1000u;
    if (ms > s->think_ms_max)
        s->think_ms_max = ms > UINT32_MAX ? UINT32_MAX : (uint32_t)ms;
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
        unsigned reached = 0;
        uint64_t start = now_us();
        err = search_move(b, turn, &cmd, &reached);
        if (!err) {
            note_search(b->stats, reached, now_us() - start);
            err = kd_play_move_of(turn, cmd.data, cmd.len, move);
        }
        kd_buf_fini(&cmd);
    }
    if (err)
        kd_reject_write(why, why_len, "no legal move for %s", turn->seat_name);
    return err;
}

/* ----------------------------------------------------------- search spec */

int kd_search_next_fits(uint64_t budget_us, uint64_t spent_us, uint64_t last_us, uint64_t prev_us)
{
    uint64_t growth = prev_us ? last_us / prev_us : 4;
    if (growth < 2)
        growth = 2;
    if (spent_us >= budget_us)
        return 0;
    return last_us <= (budget_us - spent_us) / growth;
}

/* One "NAME=VALUE" option of a search spec into `budget`. */
static kd_err search_option(const char *opt, size_t len, kd_search_budget *budget, char *why, size_t why_len)
{
    const char *eq = memchr(opt, '=', len);
    size_t name_len = eq ? (size_t)(eq - opt) : len;
    int is_depth = name_len == 5 && memcmp(opt, "depth", 5) == 0, is_ms = name_len == 2 && memcmp(opt, "ms", 2) == 0;
    unsigned long long max = is_depth ? KD_PLAYER_MAX_DEPTH : KD_PLAYER_MAX_THINK_MS, v = 0;
    size_t digits = eq ? len - name_len - 1 : 0;
    if (!is_depth && !is_ms) {
        kd_reject_write(why, why_len, "search option '%.*s': use depth=N or ms=T", (int)len, opt);
        return KD_ERR_INVALID_ARG;
    }
    if ((is_depth && budget->depth) || (is_ms && budget->think_ms)) {
        kd_reject_write(why, why_len, "search option %s given twice", is_depth ? "depth" : "ms");
        return KD_ERR_INVALID_ARG;
    }
    for (size_t i = 0; i < digits && v <= max; i++)
        v = eq[1 + i] >= '0' && eq[1 + i] <= '9' ? v * 10 + (unsigned)(eq[1 + i] - '0') : max + 1;
    if (!digits || digits > 9 || v < 1 || v > max) {
        kd_reject_write(why, why_len, "search option '%.*s': %s must be a whole number from 1 to %llu", (int)len, opt,
                        is_depth ? "depth (plies)" : "ms (milliseconds a move)", max);
        return KD_ERR_INVALID_ARG;
    }
    if (is_depth)
        budget->depth = (unsigned)v;
    else
        budget->think_ms = (uint32_t)v;
    return KD_OK;
}

kd_err kd_search_spec_parse(const char *spec, kd_search_budget *budget, char *why, size_t why_len)
{
    memset(budget, 0, sizeof *budget);
    if (strncmp(spec, "search", 6) != 0 || (spec[6] && spec[6] != ':')) {
        kd_reject_write(why, why_len, "'%s' is not a search player", spec);
        return KD_ERR_INVALID_ARG;
    }
    for (const char *at = spec + 6; *at;) {
        const char *opt = at + 1, *end = strchr(opt, ':');
        size_t len = end ? (size_t)(end - opt) : strlen(opt);
        kd_err err = search_option(opt, len, budget, why, why_len);
        if (err)
            return err;
        at = opt + len;
    }
    return KD_OK;
}

static void builtin_free(void *impl) { free(impl); }

/* The house seat has no choice in a registered type (its legal moves are
 * none: its duties are paid by the gateway holding its key); a type that
 * gives it one needs a player named for it. */
static kd_err house_choose(void *impl, const kd_play_turn *turn, const char *feedback, kd_legal_move *move, char *why,
                           size_t why_len)
{
    (void)impl, (void)feedback, (void)move;
    kd_reject_write(why, why_len,
                    "the house seat %s has a move to choose, and the house player only waits for the gateway: "
                    "name a player for it (--seat %s=random)",
                    turn->seat_name, turn->seat_name);
    return KD_ERR_UNSUPPORTED;
}

static void house_free(void *impl) { (void)impl; }

static const kd_player_ops house_ops = {.kind = "house", .choose = house_choose, .free = house_free};

const char *kd_play_default_player(const kd_episode_type *type, int seat)
{
    if (seat >= 0 && seat < 32 && (type->house_seats & (1u << seat)))
        return "house";
    return type->bot_command ? "search" : "random";
}

int kd_player_is_house(const kd_player *p) { return p->ops == &house_ops; }

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
    kd_search_budget budget = {0};
    int search = strncmp(spec, "search", 6) == 0 && (!spec[6] || spec[6] == ':');
    if (search && (err = kd_search_spec_parse(spec, &budget, why, why_len)))
        goto fail;
    if (search && !budget.depth && !budget.think_ms) /* plain "search": the command's options */
        budget = (kd_search_budget){.depth = o->depth, .think_ms = o->think_ms};
    if (!budget.depth)
        budget.depth = budget.think_ms ? KD_PLAYER_MAX_DEPTH : KD_SEARCH_DEFAULT_DEPTH;
    if (search || strcmp(spec, "random") == 0) {
        builtin *b = calloc(1, sizeof *b);
        if (!b) {
            err = KD_ERR_NOMEM;
            goto fail;
        }
        b->search = search;
        b->budget = budget;
        b->rng = &p->rng;
        b->stats = &p->stats;
        p->ops = b->search ? &search_ops : &random_ops;
        p->impl = b;
    } else if (strncmp(spec, "llm:", 4) == 0) {
        p->ops = &kd_player_llm_ops;
        err = kd_player_llm_open(spec + 4, o, &p->impl, why, why_len);
    } else if (strcmp(spec, "human") == 0) {
        p->ops = &kd_player_human_ops;
        err = kd_player_human_open(o, &p->impl);
    } else if (strcmp(spec, "house") == 0) {
        p->ops = &house_ops;
    } else {
        kd_reject_write(why, why_len,
                        "unknown player '%s': use random, search[:depth=N][:ms=T], llm:URL, human or house", spec);
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
