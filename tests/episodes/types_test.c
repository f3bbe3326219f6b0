/*
 * types_test.c — the list of registered types and kd_type_table
 * (episodes/types.c): the built-in types are complete and registered once,
 * a duplicate or incomplete type is refused, a test's own type is added,
 * the engine defaults come from a fake environment (and a bad value stops
 * with a sentence naming the variable), the registry carries each type's
 * config, and the small helpers (phase names, legal-move lists, the
 * generator) behave.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "episodes/episode_type.h"
#include "episodes/tictactoe/tictactoe.h"

Test(types, builtins_are_complete_and_registered)
{
    cr_assert_geq(kd_builtin_type_count, 1);
    kd_type_table t;
    kd_type_table_init(&t);
    cr_expect_eq(t.count, kd_builtin_type_count, "every built-in type was accepted");
    for (size_t i = 0; i < kd_builtin_type_count; i++) {
        const kd_episode_type *b = kd_builtin_types[i];
        cr_expect_eq(t.entries[i].type, b);
        cr_expect_eq(t.entries[i].configured, 0);
        cr_expect_eq(kd_type_table_find(&t, b->ops->type_name), b);
        cr_expect_null(kd_type_table_config(&t, b->ops->type_name), "unconfigured");
        /* Each one alone is accepted by an empty table, so none relies on another. */
        kd_type_table one;
        kd_type_table_init_empty(&one);
        cr_expect_eq(kd_type_table_add(&one, b), KD_OK, "%s", b->ops->type_name);
        for (size_t k = 0; b->rule_codes[k].code; k++)
            cr_expect_lt(strlen(b->rule_codes[k].code), KD_RULE_CODE_MAX);
    }
    cr_expect_eq(kd_type_table_find(&t, KD_TTT_TYPE_NAME), &kd_tictactoe_type);
    cr_expect_null(kd_type_table_find(&t, "go"));
    cr_expect_null(kd_type_table_find(&t, NULL));
}

Test(types, duplicate_incomplete_and_full_are_refused)
{
    kd_type_table t;
    kd_type_table_init(&t);
    size_t n = t.count;
    cr_expect_eq(kd_type_table_add(&t, &kd_tictactoe_type), KD_ERR_INVALID_ARG, "a duplicate name");
    cr_expect_eq(t.count, n);
    cr_expect_eq(kd_type_table_add(&t, NULL), KD_ERR_INVALID_ARG);

    /* A copy under another name is a new type; without a function it is not. */
    kd_episode_ops ops = kd_tictactoe_ops;
    ops.type_name = "tictactoe2";
    kd_episode_type other = kd_tictactoe_type;
    other.ops = &ops;
    kd_episode_type incomplete = other;
    incomplete.prompt = NULL;
    cr_expect_eq(kd_type_table_add(&t, &incomplete), KD_ERR_INVALID_ARG, "no prompt");
    incomplete = other;
    incomplete.config_size = KD_TYPE_CONFIG_MAX + 1;
    cr_expect_eq(kd_type_table_add(&t, &incomplete), KD_ERR_INVALID_ARG, "config too large");
    incomplete = other;
    incomplete.min_seats = 3; /* more than max_seats */
    cr_expect_eq(kd_type_table_add(&t, &incomplete), KD_ERR_INVALID_ARG, "seat counts");
    incomplete = other;
    incomplete.bot_command = NULL; /* optional */
    cr_expect_eq(kd_type_table_add(&t, &incomplete), KD_OK);
    cr_expect_eq(kd_type_table_find(&t, "tictactoe2"), &incomplete);

    static kd_episode_ops many_ops[KD_TYPES_MAX];
    static kd_episode_type many[KD_TYPES_MAX];
    static char names[KD_TYPES_MAX][16];
    kd_type_table full;
    kd_type_table_init_empty(&full);
    for (size_t i = 0; i < KD_TYPES_MAX; i++) {
        snprintf(names[i], sizeof names[i], "t%zu", i);
        many_ops[i] = kd_tictactoe_ops;
        many_ops[i].type_name = names[i];
        many[i] = kd_tictactoe_type;
        many[i].ops = &many_ops[i];
        cr_assert_eq(kd_type_table_add(&full, &many[i]), KD_OK);
    }
    cr_expect_eq(kd_type_table_add(&full, &other), KD_ERR_TOO_LARGE);
}

typedef struct {
    const char *stress, *max_symbols;
    int asked_other; /* a variable the types do not declare was read */
} fake_env;

static const char *fake_get(void *ctx, const char *name)
{
    fake_env *e = ctx;
    if (strcmp(name, "KDAPP_TTT_STRESS") == 0)
        return e->stress;
    if (strcmp(name, "KDAPP_TTT_MAX_SYMBOLS") == 0)
        return e->max_symbols;
    e->asked_other = 1;
    return NULL;
}

Test(types, configure_from_a_fake_environment_and_registry)
{
    kd_type_table t;
    kd_type_table_init(&t);
    fake_env env = {"yes", NULL, 0};
    char why[200] = "";
    cr_assert_eq(kd_type_table_configure(&t, fake_get, &env, why, sizeof why), KD_OK, "%s", why);
    cr_expect_eq(env.asked_other, 0, "only the declared variables are read");
    const kd_ttt_config *cfg = kd_type_table_config(&t, KD_TTT_TYPE_NAME);
    cr_assert_not_null(cfg);
    cr_expect_eq(cfg->default_cap, KD_TTT_DEFAULT_STRESS_CAP);

    kd_registry reg;
    kd_registry_init(&reg);
    cr_assert_eq(kd_type_table_registry(&t, &reg), KD_OK);
    cr_expect_eq(reg.count, t.count);
    const kd_registry_entry *e = kd_registry_find(&reg, KD_TTT_TYPE_NAME);
    cr_assert_not_null(e);
    cr_expect_eq(e->ops, &kd_tictactoe_ops);
    cr_expect_eq(e->config, (const void *)cfg, "the registry hands the table's config to resolve_params");
    cr_expect_eq(kd_type_table_registry(&t, &reg), KD_ERR_INVALID_ARG, "registering twice is refused by the registry");

    /* Unconfigured: the registry gets no config (the type's built-in default). */
    kd_type_table plain;
    kd_type_table_init(&plain);
    kd_registry_init(&reg);
    cr_assert_eq(kd_type_table_registry(&plain, &reg), KD_OK);
    cr_expect_null(kd_registry_find(&reg, KD_TTT_TYPE_NAME)->config);

    /* A bad value stops configuration with a sentence naming the variable;
     * the earlier defaults stay. */
    fake_env bad = {NULL, "many", 0};
    why[0] = '\0';
    cr_expect_eq(kd_type_table_configure(&t, fake_get, &bad, why, sizeof why), KD_ERR_INVALID_ARG);
    cr_expect(strstr(why, "KDAPP_TTT_MAX_SYMBOLS") != NULL, "%s", why);
    cr_expect_eq(((const kd_ttt_config *)kd_type_table_config(&t, KD_TTT_TYPE_NAME))->default_cap,
                 KD_TTT_DEFAULT_STRESS_CAP);
}

Test(types, process_environment_getter)
{
    cr_assert_eq(setenv("KD_TYPES_TEST_VAR", "v1", 1), 0);
    cr_expect_str_eq(kd_getenv_process(NULL, "KD_TYPES_TEST_VAR"), "v1");
    cr_expect_null(kd_getenv_process(NULL, "KD_TYPES_TEST_UNSET_VAR"));
}

Test(types, helpers)
{
    cr_expect_str_eq(kd_game_phase_name(KD_PHASE_IN_PROGRESS), "in_progress");
    cr_expect_str_eq(kd_game_phase_name(KD_PHASE_WON), "won");
    cr_expect_str_eq(kd_game_phase_name(KD_PHASE_DRAW), "draw");
    cr_expect_str_eq(kd_game_phase_name((kd_game_phase)7), "unknown");

    kd_legal_moves list;
    kd_legal_moves_init(&list);
    uint8_t cmd[KD_COMMAND_MAX + 1] = {1, 2, 3};
    for (int i = 0; i < 100; i++)
        cr_assert_eq(kd_legal_moves_push(&list, cmd, 3, "a notation far longer than the limit allows"), KD_OK);
    cr_expect_eq(list.count, 100);
    cr_expect_eq(list.moves[99].command_len, 3);
    cr_expect_eq(strlen(list.moves[99].notation), KD_NOTATION_MAX - 1, "truncated");
    cr_expect_eq(kd_legal_moves_push(&list, cmd, KD_COMMAND_MAX + 1, ""), KD_ERR_TOO_LARGE);
    kd_legal_moves_clear(&list);
    cr_expect_eq(list.count, 0);
    kd_legal_moves_fini(&list);
    cr_expect_null(list.moves);

    uint64_t a = 5, b = 5;
    for (int i = 0; i < 10; i++)
        cr_expect_eq(kd_type_rng_next(&a), kd_type_rng_next(&b), "seeded: the same sequence");
    for (int i = 0; i < 1000; i++)
        cr_expect_lt(kd_type_rng_below(&a, 7), 7);
}

Test(types, two_seats_check_names_the_game_the_count_and_the_seat)
{
    static const char *const words[2] = {"white", "black"};
    kd_key a, b;
    cr_assert_eq(kd_key_test("two_seats_a", &a), KD_OK);
    cr_assert_eq(kd_key_test("two_seats_b", &b), KD_OK);
    kd_participants p = {.count = 2};
    p.keys[0] = a.pub;
    p.keys[1] = b.pub;
    kd_reject rej = {{0}, {0}};
    cr_expect_eq(kd_two_seats_check(&p, "a game", words, &rej), KD_OK);
    p.count = 3;
    cr_expect_eq(kd_two_seats_check(&p, "a game", words, &rej), KD_ERR_BAD_PARTICIPANTS);
    cr_expect_str_eq(rej.detail, "a game needs exactly 2 participants (white, black), got 3");
    cr_expect_eq(kd_two_seats_check(NULL, "a game", words, &rej), KD_ERR_BAD_PARTICIPANTS);
    cr_expect_str_eq(rej.detail, "a game needs exactly 2 participants (white, black), got 0");
    p.count = 2;
    p.keys[1].bytes[0] = 0x05;
    cr_expect_eq(kd_two_seats_check(&p, "a game", words, &rej), KD_ERR_BAD_PARTICIPANTS);
    cr_expect_str_eq(rej.detail, "participant 2 (black) is not a valid compressed secp256k1 public key");
}
