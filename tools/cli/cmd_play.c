/*
 * cmd_play.c — `kdapp play`: a game of any registered type through the MCP
 * gateway (see play.h for the coordinator, players.h for the players).
 *
 * Environment: KDAPP_LLM_API_KEY (bearer token for llm:URL players),
 * KDAPP_SHOW_PROMPTS=1 (print every prompt sent to an llm player, and its
 * reply, on stderr), KDAPP_MCP_TOKEN (bearer token for --mcp-url), and the
 * types' engine defaults, which the embedded gateway inherits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tools/cli/commands.h"
#include "tools/common/options.h"
#include "tools/play/play.h"

static int usage(FILE *out)
{
    fprintf(out,
            "usage: kdapp play [--data DIR] [--keys DIR] [--type T] [--params JSON | --cap N]\n"
            "                  [--players P,P,... | --x PLAYER --o PLAYER] [--seed S] [--max-moves N] [--depth D]\n"
            "                  [--reorg-every K [--reorg-depth D]] [--mcp-url URL | --mcp-cmd CMD] [--model M] [--quiet]\n"
            "\n"
            "players: random | search (the type's bot) | llm:URL (OpenAI-compatible, e.g.\n"
            "         llm:http://127.0.0.1:1234/v1) | human\n"
            "  --type T        the episode type [the first registered]\n"
            "  --params JSON   its creation params (an object) [the engine defaults]\n"
            "  --cap N         shorthand for --params '{\"cap\": N}'\n"
            "  --players LIST  one player per seat, in seat order [search for every seat]\n"
            "  --x, --o        the players of the first and the second seat\n"
            "  --seed S        drives every random choice, so a game replays exactly [random, printed]\n"
            "  --max-moves N   stop after N moves [%u]\n"
            "  --depth D       search lookahead in plies, 1-64 [%u]\n"
            "  --reorg-every K make the devnet reorganise after every K moves, reverting\n"
            "  --reorg-depth D its last D blocks [1]; the rollback is shown, then play goes on\n"
            "  --mcp-url URL   a Streamable HTTP gateway (`kdapp mcp --http ...`) [embedded]\n"
            "  --mcp-cmd CMD   a stdio MCP gateway started with /bin/sh -c CMD [embedded]\n"
            "  --model M       the model llm players ask for\n"
            "  --quiet         print only the result\n"
            "environment: KDAPP_LLM_API_KEY, KDAPP_SHOW_PROMPTS=1, KDAPP_MCP_TOKEN\n",
            KD_PLAY_DEFAULT_MAX_MOVES, KD_SEARCH_DEFAULT_DEPTH);
    return out == stdout ? KD_EXIT_OK : KD_EXIT_USAGE;
}

int kd_cmd_play(kd_cli *cli, int argc, char **argv)
{
    kd_play_options o = {.types = &cli->types, .out = stdout, .in = stdin, .log = stderr};
    const char *x = NULL, *second = NULL, *list = NULL;
    uint64_t cap = 0;
    int have_seed = 0, have_cap = 0;
    const kd_option opts[] = {
        {.name = "data", .kind = KD_OPT_STRING, .value = &cli->data_dir},
        {.name = "keys", .kind = KD_OPT_STRING, .value = &cli->keys_dir},
        {.name = "type", .kind = KD_OPT_STRING, .value = &o.type},
        {.name = "params", .kind = KD_OPT_STRING, .value = &o.params},
        {.name = "cap", .kind = KD_OPT_UINT, .value = &cap, .min = 0, .max = 255,
         .use = "a whole number from 0 to 255", .seen = &have_cap},
        {.name = "players", .kind = KD_OPT_STRING, .value = &list},
        {.name = "x", .kind = KD_OPT_STRING, .value = &x},
        {.name = "o", .kind = KD_OPT_STRING, .value = &second},
        {.name = "seed", .kind = KD_OPT_UINT, .value = &o.seed, .use = "a whole number from 0 to 18446744073709551615",
         .seen = &have_seed},
        {.name = "max-moves", .kind = KD_OPT_UINT, .value = &o.max_moves, .size = sizeof o.max_moves, .min = 1,
         .max = 1000000, .use = "a whole number from 1 to 1000000"},
        {.name = "depth", .kind = KD_OPT_UINT, .value = &o.depth, .size = sizeof o.depth, .min = 1, .max = 64,
         .use = "a whole number from 1 to 64"},
        {.name = "reorg-every", .kind = KD_OPT_UINT, .value = &o.reorg_every, .size = sizeof o.reorg_every, .min = 1,
         .max = 1000, .use = "a whole number from 1 to 1000"},
        {.name = "reorg-depth", .kind = KD_OPT_UINT, .value = &o.reorg_depth, .size = sizeof o.reorg_depth, .min = 1,
         .max = 1000, .use = "a whole number from 1 to 1000"},
        {.name = "mcp-url", .kind = KD_OPT_STRING, .value = &o.mcp_url},
        {.name = "mcp-cmd", .kind = KD_OPT_STRING, .value = &o.mcp_cmd},
        {.name = "model", .kind = KD_OPT_STRING, .value = &o.model},
        {.name = "quiet", .short_name = 'q', .kind = KD_OPT_FLAG, .value = &o.quiet},
        {0},
    };
    int first;
    switch (kd_options_parse("kdapp play", opts, argc, argv, &first)) {
    case KD_OPTIONS_OK:
        break;
    case KD_OPTIONS_HELP:
        return usage(stdout);
    case KD_OPTIONS_BAD:
        return KD_EXIT_USAGE;
    default:
        return usage(stderr);
    }
    if (first != argc)
        return usage(stderr);
    if (o.mcp_url && o.mcp_cmd) {
        fprintf(stderr, "kdapp play: --mcp-url and --mcp-cmd name two gateways; give one (or neither: embedded)\n");
        return KD_EXIT_USAGE;
    }
    if (o.reorg_depth && !o.reorg_every) {
        fprintf(stderr, "kdapp play: --reorg-depth needs --reorg-every K (how often to reorganise)\n");
        return KD_EXIT_USAGE;
    }
    if (o.reorg_every && !o.reorg_depth)
        o.reorg_depth = 1;
    if (have_cap && o.params) {
        fprintf(stderr, "kdapp play: give --params or the shorthand --cap, not both\n");
        return KD_EXIT_USAGE;
    }
    char cap_params[32];
    if (have_cap && cap) {
        snprintf(cap_params, sizeof cap_params, "{\"cap\": %llu}", (unsigned long long)cap);
        o.params = cap_params;
    }
    char *players = list ? strdup(list) : NULL, *save = NULL;
    size_t n = 0;
    for (char *t = players ? strtok_r(players, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save)) {
        if (n == KD_PLAY_MAX_SEATS) {
            fprintf(stderr, "kdapp play: --players names more than %d players\n", KD_PLAY_MAX_SEATS);
            free(players);
            return KD_EXIT_USAGE;
        }
        o.players[n++] = t;
    }
    if (x)
        o.players[0] = x;
    if (second)
        o.players[1] = second;
    if (second && !o.players[0])
        o.players[0] = "search";
    if (!have_seed)
        o.seed = (uint64_t)time(NULL) * 1000003u ^ (uint64_t)getpid();
    o.data_dir = cli->data_dir;
    o.keys_dir = cli->keys_dir;
    o.llm_api_key = getenv("KDAPP_LLM_API_KEY");
    o.mcp_token = getenv("KDAPP_MCP_TOKEN");
    const char *show = getenv("KDAPP_SHOW_PROMPTS");
    o.show_prompts = show && *show && strcmp(show, "0") != 0;

    kd_play_result res;
    char why[1024] = "";
    kd_err err = kd_play_run(&o, &res, why, sizeof why);
    free(players);
    if (err) {
        fprintf(stderr, "kdapp play: %s\n", why[0] ? why : kd_err_str(err));
        return err == KD_ERR_INVALID_ARG ? KD_EXIT_USAGE : KD_EXIT_FAIL;
    }
    return KD_EXIT_OK;
}
