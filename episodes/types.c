/*
 * types.c — the list of registered episode types, and the kd_type_table
 * that carries them (with their engine defaults) through a program.
 *
 * Adding a game: its own files in episodes/, and one line in
 * kd_builtin_types below. Nothing else in the tree names a game.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "episodes/blackjack/blackjack.h"
#include "episodes/checkers/checkers.h"
#include "episodes/chess/chess.h"
#include "episodes/dice/dice.h"
#include "episodes/episode_type.h"
#include "episodes/fourinarow/fourinarow.h"
#include "episodes/holdem/holdem.h"
#include "episodes/roulette/roulette.h"
#include "episodes/seabattle/seabattle.h"
#include "episodes/slots/slots.h"
#include "episodes/tictactoe/tictactoe.h"

/* ---------------------------------------------- the registered types */

/* one type a line */
/* clang-format off */
const kd_episode_type *const kd_builtin_types[] = {
    &kd_tictactoe_type,
    &kd_fourinarow_type,
    &kd_checkers_type,
    &kd_chess_type,
    &kd_dice_type,
    &kd_roulette_type,
    &kd_slots_type,
    &kd_blackjack_type,
    &kd_seabattle_type,
    &kd_holdem_type,
};
/* clang-format on */
const size_t kd_builtin_type_count = sizeof kd_builtin_types / sizeof kd_builtin_types[0];

/* ------------------------------------------------------------ the table */

void kd_type_table_init_empty(kd_type_table *table) { memset(table, 0, sizeof *table); }

void kd_type_table_init(kd_type_table *table)
{
    kd_type_table_init_empty(table);
    for (size_t i = 0; i < kd_builtin_type_count; i++) {
        kd_err err = kd_type_table_add(table, kd_builtin_types[i]);
        (void)err; /* the built-in list is complete and fits: checked by tests/episodes/types_test.c */
    }
}

static int complete(const kd_episode_type *t)
{
    return t->ops && t->ops->type_name && t->title && t->seat_names && t->min_seats >= 1 &&
           t->min_seats <= t->max_seats && t->max_seats <= KD_MAX_PARTICIPANTS && t->rule_codes && t->params_schema &&
           t->command_schema && t->params_from_json && t->command_from_json && t->command_to_json && t->status &&
           t->view_encode && t->view_json && t->strategy_context && t->render_text && t->prompt && t->legal_moves &&
           t->random_command && t->config_size <= KD_TYPE_CONFIG_MAX && (t->config_size == 0 || t->config_from_env) &&
           !t->secret_commit == !t->secret_duty && !t->secret_commit == !t->secret_binding &&
           (!t->secret_view || t->secret_duty);
}

kd_err kd_type_table_add(kd_type_table *table, const kd_episode_type *type)
{
    if (!type || !complete(type) || kd_type_table_find(table, type->ops->type_name))
        return KD_ERR_INVALID_ARG;
    if (table->count == KD_TYPES_MAX)
        return KD_ERR_TOO_LARGE;
    kd_type_entry *e = &table->entries[table->count++];
    memset(e, 0, sizeof *e);
    e->type = type;
    return KD_OK;
}

kd_err kd_type_table_configure(kd_type_table *table, kd_getenv_fn get, void *get_ctx, char *why, size_t why_len)
{
    for (size_t i = 0; i < table->count; i++) {
        kd_type_entry *e = &table->entries[i];
        if (!e->type->config_from_env)
            continue;
        unsigned char config[KD_TYPE_CONFIG_MAX] = {0};
        kd_err err = e->type->config_from_env(get, get_ctx, config, why, why_len);
        if (err)
            return err;
        memcpy(e->config, config, sizeof config);
        e->configured = 1;
    }
    return KD_OK;
}

const char *kd_getenv_process(void *ctx, const char *name)
{
    (void)ctx;
    return getenv(name);
}

kd_err kd_type_table_registry(const kd_type_table *table, kd_registry *registry)
{
    for (size_t i = 0; i < table->count; i++) {
        const kd_type_entry *e = &table->entries[i];
        kd_err err = kd_registry_add(registry, e->type->ops, e->configured ? e->config : NULL);
        if (err)
            return err;
    }
    return KD_OK;
}

const kd_episode_type *kd_type_table_find(const kd_type_table *table, const char *name)
{
    for (size_t i = 0; name && i < table->count; i++)
        if (strcmp(table->entries[i].type->ops->type_name, name) == 0)
            return table->entries[i].type;
    return NULL;
}

const void *kd_type_table_config(const kd_type_table *table, const char *name)
{
    for (size_t i = 0; name && i < table->count; i++)
        if (strcmp(table->entries[i].type->ops->type_name, name) == 0)
            return table->entries[i].configured ? table->entries[i].config : NULL;
    return NULL;
}

/* ------------------------------------------------------------- helpers */

const char *kd_game_phase_name(kd_game_phase phase)
{
    switch (phase) {
    case KD_PHASE_IN_PROGRESS:
        return "in_progress";
    case KD_PHASE_WON:
        return "won";
    case KD_PHASE_DRAW:
        return "draw";
    }
    return "unknown";
}

const char *kd_seat_result_name(kd_seat_result result)
{
    static const char *const names[] = {"none", "win", "loss", "draw", "cheat", "forfeit"};
    return (unsigned)result < sizeof names / sizeof names[0] ? names[result] : "unknown";
}

kd_seat_result kd_episode_seat_result(const kd_episode_type *type, const void *state, int seat)
{
    if (type->seat_result)
        return type->seat_result(state, seat);
    kd_game_status st = type->status(state);
    if (st.phase == KD_PHASE_DRAW)
        return KD_RESULT_DRAW;
    if (st.phase == KD_PHASE_WON)
        return st.winner == seat ? KD_RESULT_WIN : KD_RESULT_LOSS;
    return KD_RESULT_NONE;
}

int kd_episode_type_seat(const kd_episode_type *type, const char *name)
{
    for (size_t i = 0; name && i < type->max_seats; i++)
        if (strcmp(type->seat_names[i], name) == 0)
            return (int)i;
    return KD_SEAT_NONE;
}

const char *kd_episode_type_seat_name(const kd_episode_type *type, int seat)
{
    return seat >= 0 && (size_t)seat < type->max_seats ? type->seat_names[seat] : "?";
}

void kd_legal_moves_init(kd_legal_moves *list) { memset(list, 0, sizeof *list); }

void kd_legal_moves_clear(kd_legal_moves *list) { list->count = 0; }

void kd_legal_moves_fini(kd_legal_moves *list)
{
    free(list->moves);
    kd_legal_moves_init(list);
}

kd_err kd_legal_moves_push(kd_legal_moves *list, const uint8_t *command, size_t len, const char *notation)
{
    if (len > KD_COMMAND_MAX)
        return KD_ERR_TOO_LARGE;
    if (list->count == list->cap) {
        size_t cap = list->cap ? 2 * list->cap : 32;
        kd_legal_move *grown = realloc(list->moves, cap * sizeof *grown);
        if (!grown)
            return KD_ERR_NOMEM;
        list->moves = grown;
        list->cap = cap;
    }
    kd_legal_move *m = &list->moves[list->count++];
    memcpy(m->command, command, len);
    m->command_len = len;
    /* a bounded copy by hand, not snprintf nor a libc call: perft pushes a
     * move per node, and notations are a few characters */
    size_t n = 0;
    for (; notation && n + 1 < sizeof m->notation && notation[n]; n++)
        m->notation[n] = notation[n];
    m->notation[n] = '\0';
    return KD_OK;
}

uint64_t kd_type_rng_next(uint64_t *rng)
{
    uint64_t z = (*rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint32_t kd_type_rng_below(uint64_t *rng, uint32_t n) { return (uint32_t)(kd_type_rng_next(rng) % n); }

kd_err kd_params_uint(const json_t *params, const char *name, uint32_t lo, uint32_t hi, uint32_t *out, char *why,
                      size_t why_len)
{
    const json_t *j = json_object_get(params, name);
    if (!j)
        return KD_OK;
    if (!json_is_integer(j) || json_integer_value(j) < lo || json_integer_value(j) > hi) {
        kd_reject_write(why, why_len, "params: %s must be an integer from %u to %u", name, (unsigned)lo, (unsigned)hi);
        return KD_ERR_BAD_PARAMS;
    }
    *out = (uint32_t)json_integer_value(j);
    return KD_OK;
}

kd_err kd_two_seats_check(const kd_participants *participants, const char *game, const char *const seat_words[2],
                          kd_reject *rej)
{
    if (!participants || participants->count != 2)
        return kd_reject_say(rej, KD_ERR_BAD_PARTICIPANTS, "%s needs exactly 2 participants (%s, %s), got %zu", game,
                             seat_words[0], seat_words[1], participants ? participants->count : (size_t)0);
    for (size_t i = 0; i < 2; i++)
        if (kd_pubkey_check(&participants->keys[i]) != KD_OK)
            return kd_reject_say(rej, KD_ERR_BAD_PARTICIPANTS,
                                 "participant %zu (%s) is not a valid compressed secp256k1 public key", i + 1,
                                 seat_words[i]);
    return KD_OK;
}

json_t *kd_json_hex(const uint8_t *data, size_t len)
{
    char *hex = malloc(2 * len + 1);
    if (!hex)
        return NULL;
    kd_hex_encode(data, len, hex);
    json_t *j = json_string(hex);
    free(hex);
    return j;
}
