/*
 * players.c — the seeded generator, the strategy context as a view and as
 * a state for lookahead, the random and search players, and the player
 * objects that wrap every kind behind one ops table (see players.h).
 */
#include "tools/play/players.h"

#include <stdlib.h>
#include <string.h>

#include "engine/episode.h"

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

/* ---------------------------------------------------- context and state */

static int symbol_of(const json_t *j, uint8_t *out)
{
    const char *s = json_string_value(j);
    if (!s || (strcmp(s, "X") != 0 && strcmp(s, "O") != 0))
        return -1;
    *out = s[0] == 'X' ? KD_TTT_X : KD_TTT_O;
    return 0;
}

static int small_int(const json_t *j, json_int_t max, uint8_t *out)
{
    if (!json_is_integer(j) || json_integer_value(j) < 0 || json_integer_value(j) > max)
        return -1;
    *out = (uint8_t)json_integer_value(j);
    return 0;
}

static int cell_of(const json_t *j, kd_ttt_cell *out)
{
    return json_is_object(j) && small_int(json_object_get(j, "row"), 2, &out->row) == 0 &&
                   small_int(json_object_get(j, "col"), 2, &out->col) == 0 &&
                   symbol_of(json_object_get(j, "player"), &out->symbol) == 0
               ? 0
               : -1;
}

kd_err kd_play_view_from_json(const json_t *j, kd_ttt_view *v, char *why, size_t why_len)
{
    memset(v, 0, sizeof *v);
    const json_t *board = json_object_get(j, "board");
    if (json_array_size(board) != 3) {
        kd_reject_write(why, why_len, "board is not a 3x3 array");
        return KD_ERR_DECODE;
    }
    for (size_t r = 0; r < 3; r++) {
        const json_t *row = json_array_get(board, r);
        for (size_t c = 0; c < 3; c++)
            if (json_array_size(row) != 3 || small_int(json_array_get(row, c), 2, &v->board[r][c]) != 0) {
                kd_reject_write(why, why_len, "board[%zu] is not three cells 0 (empty), 1 (X) or 2 (O)", r);
                return KD_ERR_DECODE;
            }
    }
    if (symbol_of(json_object_get(j, "current"), &v->current) != 0) {
        kd_reject_write(why, why_len, "current is not \"X\" or \"O\"");
        return KD_ERR_DECODE;
    }
    const json_t *cap = json_object_get(j, "cap");
    if (cap && !json_is_null(cap) && small_int(cap, 255, &v->cap) != 0) {
        kd_reject_write(why, why_len, "cap is not null or a small integer");
        return KD_ERR_DECODE;
    }
    if (v->cap > KD_TTT_MAX_CAP)
        v->cap = 0;
    const json_t *recent = json_object_get(j, "recent_moves");
    if (recent && (!json_is_array(recent) || json_array_size(recent) > 9)) {
        kd_reject_write(why, why_len, "recent_moves is not an array of at most 9 moves");
        return KD_ERR_DECODE;
    }
    for (size_t i = 0; i < json_array_size(recent); i++)
        if (cell_of(json_array_get(recent, i), &v->recent[i]) != 0) {
            kd_reject_write(why, why_len, "recent_moves[%zu] is not {row, col, player}", i);
            return KD_ERR_DECODE;
        }
    v->recent_len = (uint8_t)json_array_size(recent);
    const json_t *next = json_object_get(j, "next_to_remove");
    if (next && !json_is_null(next)) {
        if (cell_of(next, &v->next_to_remove) != 0) {
            kd_reject_write(why, why_len, "next_to_remove is not null or {row, col, player}");
            return KD_ERR_DECODE;
        }
        v->has_next_to_remove = 1;
    }
    static const char *const names[] = {"in_progress", "x_won", "o_won", "draw"};
    const char *status = json_string_value(json_object_get(j, "status"));
    v->status = KD_TTT_IN_PROGRESS;
    if (status) {
        size_t k = 0;
        while (k < 4 && strcmp(status, names[k]) != 0)
            k++;
        if (k == 4) {
            kd_reject_write(why, why_len, "status '%s' is not in_progress, x_won, o_won or draw", status);
            return KD_ERR_DECODE;
        }
        v->status = (uint8_t)k;
    }
    const json_t *count = json_object_get(j, "move_count");
    if (json_is_integer(count) && json_integer_value(count) >= 0 && json_integer_value(count) <= UINT32_MAX)
        v->move_count = (uint32_t)json_integer_value(count);
    return KD_OK;
}

kd_err kd_play_state_from_view(const kd_ttt_view *v, kd_ttt_state *s, char *why, size_t why_len)
{
    memset(s, 0, sizeof *s);
    memcpy(s->board, v->board, sizeof s->board);
    s->turn = v->current == KD_TTT_O ? KD_TTT_O : KD_TTT_X;
    s->status = v->status;
    s->cap = v->cap;
    size_t marks = 0;
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            marks += v->board[r][c] != KD_TTT_EMPTY;
    if (s->cap) {
        if (v->recent_len != marks || v->recent_len > s->cap) {
            kd_reject_write(why, why_len, "recent_moves lists %u marks but the board holds %zu (cap %u)", v->recent_len,
                            marks, s->cap);
            return KD_ERR_DECODE;
        }
        for (size_t i = 0; i < v->recent_len; i++) {
            const kd_ttt_cell *m = &v->recent[i];
            if (v->board[m->row][m->col] != m->symbol) {
                kd_reject_write(why, why_len, "recent move %zu (%u,%u,%c) is not on the board", i, m->row, m->col,
                                kd_ttt_symbol_char(m->symbol));
                return KD_ERR_DECODE;
            }
            s->history[i] = *m;
        }
        s->history_len = v->recent_len;
    } else {
        for (uint8_t r = 0; r < 3; r++)
            for (uint8_t c = 0; c < 3; c++)
                if (v->board[r][c] != KD_TTT_EMPTY)
                    s->history[s->history_len++] = (kd_ttt_cell){r, c, v->board[r][c]};
    }
    s->move_count = s->history_len;
    if ((s->move_count % 2 == 0) != (s->turn == KD_TTT_X)) /* a full window: any count of the right parity */
        s->move_count++;
    return KD_OK;
}

/* ---------------------------------------------------------- pure moves */

kd_err kd_random_move(const kd_ttt_state *s, kd_play_rng *rng, kd_ttt_cell *out)
{
    kd_ttt_cell moves[9];
    size_t n = kd_ttt_legal_moves(s, moves);
    if (!n)
        return KD_ERR_NO_MOVE;
    *out = moves[kd_play_rng_below(rng, (uint32_t)n)];
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

static kd_err builtin_choose(void *impl, const kd_play_turn *turn, const char *feedback, kd_ttt_cell *move, char *why,
                             size_t why_len)
{
    (void)feedback;
    builtin *b = impl;
    kd_err err = b->search ? kd_search_move(&turn->state, b->depth, kd_play_rng_next(b->rng), move)
                           : kd_random_move(&turn->state, b->rng, move);
    if (err)
        kd_reject_write(why, why_len, "no legal move for %c", turn->me);
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

kd_err kd_player_choose(kd_player *p, const kd_play_turn *turn, const char *feedback, kd_ttt_cell *move, char *why,
                        size_t why_len)
{
    kd_err err = p->ops->choose(p->impl, turn, feedback, move, why, why_len);
    if (err == KD_ERR_PARSE)
        p->stats.refused++;
    return err;
}

kd_err kd_player_fallback(kd_player *p, const kd_play_turn *turn, kd_ttt_cell *move)
{
    kd_err err = kd_random_move(&turn->state, &p->rng, move);
    if (!err)
        p->stats.fallbacks++;
    return err;
}

void kd_player_note_move(kd_player *p) { p->stats.moves++; }
void kd_player_note_refused(kd_player *p) { p->stats.refused++; }
kd_player_stats kd_player_get_stats(const kd_player *p) { return p->stats; }
