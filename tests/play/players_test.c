/*
 * players_test.c — the default player of every seat of every registered
 * type (kd_play_default_player, players.h): `kdapp play --type T` with no
 * seat named must play every type, so each default is a player that can
 * play its seat — the house where the type marks a house seat, the bot
 * only where the type has one — and the house player chooses no move.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "tools/play/players.h"

Test(default_players, every_seat_of_every_type_gets_a_player_that_can_play_it)
{
    kd_type_table types;
    kd_type_table_init(&types);
    for (size_t i = 0; i < types.count; i++) {
        const kd_episode_type *t = types.entries[i].type;
        for (size_t s = 0; s < t->max_seats; s++) {
            const char *spec = kd_play_default_player(t, (int)s);
            int house = (t->house_seats >> s) & 1u;
            cr_expect_eq(strcmp(spec, "house") == 0, house, "%s seat %zu: %s", t->ops->type_name, s, spec);
            if (!house)
                cr_expect_str_eq(spec, t->bot_command ? "search" : "random", "%s seat %zu", t->ops->type_name, s);
            kd_player_options o = {.seed = 1};
            kd_player *p = NULL;
            char why[300] = "";
            cr_assert_eq(kd_player_alloc(spec, &o, &p, why, sizeof why), KD_OK, "%s: %s", spec, why);
            cr_expect_eq(kd_player_needs_bot(p) && !t->bot_command, 0, "%s seat %zu needs a bot it has not",
                         t->ops->type_name, s);
            cr_expect_eq(kd_player_is_house(p), house);
            kd_player_free(p);
        }
    }
}

Test(default_players, the_house_chooses_nothing_and_says_which_player_to_name)
{
    kd_player_options o = {.seed = 1};
    kd_player *p = NULL;
    char why[300] = "";
    cr_assert_eq(kd_player_alloc("house", &o, &p, why, sizeof why), KD_OK, "%s", why);
    kd_legal_moves legal;
    kd_legal_moves_init(&legal);
    uint8_t cmd[1] = {0};
    cr_assert_eq(kd_legal_moves_push(&legal, cmd, 1, "x"), KD_OK);
    kd_play_turn turn = {.seat = 1, .seat_name = "house", .legal = &legal};
    kd_legal_move m;
    cr_expect_eq(kd_player_choose(p, &turn, NULL, &m, why, sizeof why), KD_ERR_UNSUPPORTED);
    cr_expect(strstr(why, "--seat house=random"), "%s", why);
    kd_legal_moves_fini(&legal);
    kd_player_free(p);
}
