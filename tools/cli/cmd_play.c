/*
 * cmd_play.c — `kdapp play`: a game between two players through the MCP
 * gateway (see play.h for the coordinator, players.h for the players).
 *
 * Environment: KDAPP_LLM_API_KEY (bearer token for llm:URL players),
 * KDAPP_SHOW_PROMPTS=1 (print every prompt sent to an llm player, and its
 * reply, on stderr), KDAPP_MCP_TOKEN (bearer token for --mcp-url), and the
 * engine default cap KDAPP_TTT_STRESS / KDAPP_TTT_MAX_SYMBOLS, which the
 * embedded gateway inherits.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tools/cli/commands.h"
#include "tools/play/play.h"

static int usage(FILE *out)
{
    fprintf(out,
            "usage: kdapp play [--data DIR] [--keys DIR] [--x PLAYER] [--o PLAYER] [--cap N] [--seed S]\n"
            "                  [--max-moves N] [--depth D] [--reorg-every K [--reorg-depth D]]\n"
            "                  [--mcp-url URL | --mcp-cmd CMD] [--model M] [--quiet]\n"
            "\n"
            "players: random | search | llm:URL (OpenAI-compatible, e.g. llm:http://127.0.0.1:1234/v1) | human\n"
            "  --x, --o        who plays X and O [search]\n"
            "  --cap N         1-8 stress mode (at most N marks), 9 classic [engine default]\n"
            "  --seed S        drives every random choice, so a game replays exactly [random, printed]\n"
            "  --max-moves N   stop after N moves (stress mode has no draw) [%u]\n"
            "  --depth D       search lookahead in plies, 1-%u [%u]\n"
            "  --reorg-every K make the devnet reorganise after every K moves, reverting\n"
            "  --reorg-depth D its last D blocks [1]; the rollback is shown, then play goes on\n"
            "  --mcp-url URL   a Streamable HTTP gateway (`kdapp mcp --http ...`) [embedded]\n"
            "  --mcp-cmd CMD   a stdio MCP gateway started with /bin/sh -c CMD [embedded]\n"
            "  --model M       the model llm players ask for\n"
            "  --quiet         print only the result\n"
            "environment: KDAPP_LLM_API_KEY, KDAPP_SHOW_PROMPTS=1, KDAPP_MCP_TOKEN\n",
            KD_PLAY_DEFAULT_MAX_MOVES, KD_SEARCH_MAX_DEPTH, KD_SEARCH_DEFAULT_DEPTH);
    return KD_EXIT_USAGE;
}

static int bad_number(const char *opt, const char *arg, unsigned long long min, unsigned long long max)
{
    fprintf(stderr, "kdapp play: --%s '%s' is not valid: use a whole number from %llu to %llu\n", opt, arg, min, max);
    return KD_EXIT_USAGE;
}

int kd_cmd_play(kd_cli *cli, int argc, char **argv)
{
    static const struct option longopts[] = {KD_CLI_COMMON_LONGOPTS,
                                             {"x", required_argument, NULL, 'x'},
                                             {"o", required_argument, NULL, 'o'},
                                             {"cap", required_argument, NULL, 'c'},
                                             {"seed", required_argument, NULL, 's'},
                                             {"max-moves", required_argument, NULL, 'm'},
                                             {"depth", required_argument, NULL, 'd'},
                                             {"reorg-every", required_argument, NULL, 'e'},
                                             {"reorg-depth", required_argument, NULL, 'r'},
                                             {"mcp-url", required_argument, NULL, 'u'},
                                             {"mcp-cmd", required_argument, NULL, 'C'},
                                             {"model", required_argument, NULL, 'M'},
                                             {"quiet", no_argument, NULL, 'q'},
                                             {"help", no_argument, NULL, 'h'},
                                             {0}};
    kd_play_options o = {.x = "search", .o = "search", .out = stdout, .in = stdin, .log = stderr};
    int have_seed = 0;
    uint64_t v;
    int opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "hq", longopts, NULL)) != -1) {
        if (kd_cli_common_option(cli, opt, optarg))
            continue;
        switch (opt) {
        case 'x':
            o.x = optarg;
            break;
        case 'o':
            o.o = optarg;
            break;
        case 'c':
            if (kd_cli_parse_u64(optarg, 1, KD_TTT_WIRE_CLASSIC, &v) != 0)
                return bad_number("cap", optarg, 1, KD_TTT_WIRE_CLASSIC);
            o.cap = (uint32_t)v;
            break;
        case 's':
            if (kd_cli_parse_u64(optarg, 0, UINT64_MAX, &v) != 0)
                return bad_number("seed", optarg, 0, UINT64_MAX);
            o.seed = v;
            have_seed = 1;
            break;
        case 'm':
            if (kd_cli_parse_u64(optarg, 1, 1000000, &v) != 0)
                return bad_number("max-moves", optarg, 1, 1000000);
            o.max_moves = (uint32_t)v;
            break;
        case 'd':
            if (kd_cli_parse_u64(optarg, 1, KD_SEARCH_MAX_DEPTH, &v) != 0)
                return bad_number("depth", optarg, 1, KD_SEARCH_MAX_DEPTH);
            o.depth = (unsigned)v;
            break;
        case 'e':
        case 'r':
            if (kd_cli_parse_u64(optarg, 1, 1000, &v) != 0)
                return bad_number(opt == 'e' ? "reorg-every" : "reorg-depth", optarg, 1, 1000);
            *(opt == 'e' ? &o.reorg_every : &o.reorg_depth) = (uint32_t)v;
            break;
        case 'u':
            o.mcp_url = optarg;
            break;
        case 'C':
            o.mcp_cmd = optarg;
            break;
        case 'M':
            o.model = optarg;
            break;
        case 'q':
            o.quiet = 1;
            break;
        case 'h':
            usage(stdout);
            return KD_EXIT_OK;
        default:
            return usage(stderr);
        }
    }
    if (optind != argc)
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
    if (err) {
        fprintf(stderr, "kdapp play: %s\n", why[0] ? why : kd_err_str(err));
        return err == KD_ERR_INVALID_ARG ? KD_EXIT_USAGE : KD_EXIT_FAIL;
    }
    return KD_EXIT_OK;
}
