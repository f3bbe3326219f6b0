/*
 * cmd_ratings.c — `kdapp ratings [--type T] [--json] [--games]`: the Elo
 * rating of every key per episode type, computed from the canonical chain
 * of a data directory (handlers/ratings.h), read-only beside a daemon.
 */
#include <stdio.h>
#include <stdlib.h>

#include "handlers/ratings.h"
#include "tools/cli/commands.h"
#include "tools/common/options.h"

static const char usage_text[] = "usage: kdapp ratings [--data DIR] [--type T] [--json] [--games]\n"
                                 "  --type T  only games of episode type T\n"
                                 "  --json    the ratings as JSON (rating_x100: exact hundredths)\n"
                                 "  --games   with --json: every finished game, rated or not, and its changes\n";

int kd_cmd_ratings(kd_cli *cli, int argc, char **argv)
{
    int json = 0, games = 0;
    const char *type_arg = NULL;
    const kd_option opts[] = {KD_CLI_OPTIONS(cli),
                              {.name = "type", .short_name = 't', .kind = KD_OPT_STRING, .value = &type_arg},
                              {.name = "json", .short_name = 'j', .kind = KD_OPT_FLAG, .value = &json},
                              {.name = "games", .kind = KD_OPT_FLAG, .value = &games},
                              {0}};
    const kd_usage u = {.prog = "kdapp ratings", .print = kd_usage_print_text, .ctx = usage_text};
    int first, stop, rc = kd_options_parse_usage(&u, opts, argc, argv, &first, &stop);
    if (rc || stop)
        return rc;
    const char *type = NULL;
    if (type_arg) {
        const kd_episode_type *t = kd_cli_find_type(cli, type_arg);
        if (!t) {
            fprintf(stderr, "kdapp ratings: unknown episode type '%s'; known types:", type_arg);
            for (size_t i = 0; i < cli->types.count; i++)
                fprintf(stderr, " %s", cli->types.entries[i].type->ops->type_name);
            fprintf(stderr, "\n");
            return KD_EXIT_USAGE;
        }
        type = t->ops->type_name;
    }
    kd_engine *engine;
    if ((rc = kd_cli_open_engine(cli, NULL, 1, 0, &engine)))
        return rc;
    kd_ratings r = {0};
    kd_read *rd = NULL;
    kd_err err = kd_engine_read_begin(engine, &rd);
    if (!err)
        err = kd_ratings_compute(rd, &cli->types, type, &r);
    kd_engine_read_end(rd);
    if (err) {
        fprintf(stderr, "kdapp ratings: cannot compute the ratings of %s: %s\n", kd_engine_dir(engine),
                kd_err_str(err));
        rc = KD_EXIT_FAIL;
        goto done;
    }
    if (json) {
        json_t *j = kd_ratings_json(&r);
        if (j && games) {
            json_t *list = json_array();
            for (size_t i = 0; list && i < r.n_games; i++)
                json_array_append_new(list, kd_rated_game_json(&r.games[i]));
            json_object_set_new(j, "games", list ? list : json_null());
        }
        char *text = j ? json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
        json_decref(j);
        if (!text) {
            rc = KD_EXIT_FAIL;
            goto done;
        }
        puts(text);
        free(text);
    } else {
        kd_buf text;
        kd_buf_init(&text);
        if (kd_ratings_text(&r, &text) == KD_OK)
            fwrite(text.data, 1, text.len, stdout);
        else
            rc = KD_EXIT_FAIL;
        kd_buf_fini(&text);
    }
done:
    kd_ratings_fini(&r);
    kd_engine_close(engine);
    return rc;
}
