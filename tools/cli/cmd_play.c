/*
 * cmd_play.c — `kdapp play`: a game of any registered type through the MCP
 * gateway (see play.h for the coordinator, players.h for the players).
 *
 * Environment: KDAPP_LLM_API_KEY (bearer token for llm:URL players),
 * KDAPP_SHOW_PROMPTS=1 (print every prompt sent to an llm player, and its
 * reply, on stderr), KDAPP_MCP_TOKEN (bearer token for --mcp-url), and the
 * types' engine defaults, which the embedded gateway inherits.
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tools/chain/node.h"
#include "tools/cli/commands.h"
#include "tools/common/options.h"
#include "tools/play/play.h"

/* SIGINT/SIGTERM, blocked in every thread and waited for by one: the first
 * stops the game after its turn (the result lines and the resume command
 * follow); a second stops at once. */
typedef struct {
    atomic_int stop; /* the first signal came */
    atomic_int done; /* the game is over: the thread ends at its next wake-up */
} play_signals;

static void *stop_on_signal(void *arg)
{
    play_signals *ps = arg;
    for (int n = 0;; n++) {
        kd_signals_wait();
        if (atomic_load(&ps->done))
            return NULL;
        if (n == 0) {
            atomic_store(&ps->stop, 1);
            fprintf(stderr, "\nkdapp play: stopping after this turn (press Ctrl-C again to stop at once)\n");
            continue;
        }
        static const char msg[] = "\nkdapp play: stopped at once; `kdapp list` shows the episode (its id is on the "
                                  "first line) and `kdapp play --episode ID` resumes it\n";
        if (write(2, msg, sizeof msg - 1) < 0)
            _exit(130);
        _exit(130);
    }
}

/* The options a resume command needs beside --episode: where the store,
 * the keys or the gateway are when not the defaults. */
static void resume_args(const kd_cli *cli, const kd_play_options *o, char *out, size_t len)
{
    const char *data = getenv("KDAPP_DATA"), *keys = getenv("KDAPP_KEYS");
    size_t n = 0;
    out[0] = '\0';
    if (o->mcp_url)
        n += (size_t)snprintf(out + n, len - n, " --mcp-url %s", o->mcp_url);
    else if (o->mcp_cmd)
        n += (size_t)snprintf(out + n, len - n, " --mcp-cmd '%s'", o->mcp_cmd);
    if (n < len && strcmp(cli->data_dir, data && *data ? data : "./kdapp-data") != 0)
        n += (size_t)snprintf(out + n, len - n, " --data %s", cli->data_dir);
    if (n < len && strcmp(cli->keys_dir, keys && *keys ? keys : "./kdapp-keys") != 0)
        snprintf(out + n, len - n, " --keys %s", cli->keys_dir);
}

/* What another owner's join command needs beside --join: the same
 * gateway or data directory (its own key directory is its own). */
static void join_args(const kd_cli *cli, const kd_play_options *o, char *out, size_t len)
{
    const char *data = getenv("KDAPP_DATA");
    out[0] = '\0';
    if (o->mcp_url)
        snprintf(out, len, " --mcp-url %s", o->mcp_url);
    else if (strcmp(cli->data_dir, data && *data ? data : "./kdapp-data") != 0)
        snprintf(out, len, " --data %s", cli->data_dir);
}

/* The registered types, each with its seats and their default players
 * (from the type table: kd_play_default_player). */
static void usage_types(FILE *out, const kd_type_table *types)
{
    fprintf(out, "types, their seats and each seat's default player:\n");
    for (size_t i = 0; i < types->count; i++) {
        const kd_episode_type *t = types->entries[i].type;
        fprintf(out, "  %-11s", t->ops->type_name);
        for (size_t s = 0; s < t->min_seats && s < KD_PLAY_MAX_SEATS; s++)
            fprintf(out, "%s%s=%s", s ? ", " : " ", kd_episode_type_seat_name(t, (int)s),
                    kd_play_default_player(t, (int)s));
        if (t->max_seats > t->min_seats) /* a seat named beyond them is seated too */
            fprintf(out, "; up to %s=%s", kd_episode_type_seat_name(t, (int)t->max_seats - 1),
                    kd_play_default_player(t, (int)t->max_seats - 1));
        fputc('\n', out);
    }
    fprintf(out, "  (house: the gateway holds the seat's key and pays its duties, as the house)\n");
}

static void usage(FILE *out, const void *ctx)
{
    fprintf(
        out,
        "usage: kdapp play [--data DIR] [--keys DIR] [--type T] [--params JSON | --cap N] [--episode ID]\n"
        "                  [--open [--join-timeout N] | --join ID]\n"
        "                  [--players P,P,... | --seat S=P ... | --x P --o P] [--seed S] [--max-moves N]\n"
        "                  [--depth D] [--think-ms T]\n"
        "                  [--reorg-every K [--reorg-depth D]] [--mcp-url URL | --mcp-cmd CMD] [--model M] [--quiet]\n"
        "\n"
        "Every type plays with `kdapp play --type T` alone: a seat no player is named for\n"
        "gets its default (below).\n"
        "\n"
        "players: random | search (the type's bot) | llm:URL (OpenAI-compatible, e.g.\n"
        "         llm:http://127.0.0.1:1234/v1) | human | house (the gateway acts for the seat)\n"
        "         search:depth=N (N plies) | search:ms=T (deepening within T ms a move)\n"
        "         | search:ms=T:depth=N (no deeper than N); plain search: --depth, --think-ms\n"
        "  --type T        the episode type [the first registered]\n"
        "  --params JSON   its creation params (an object) [the engine defaults]\n"
        "  --cap N         shorthand for --params '{\"cap\": N}'\n"
        "  --episode ID    resume episode ID from where it stands (its type and seats are its own;\n"
        "                  the embedded gateway is granted the keys of --keys that sit in its seats;\n"
        "                  a seat whose key is another owner's is waited for, not played)\n"
        "  --open          open a table for other owners: the seats given a player (--seat S or\n"
        "                  S=P, --players, --x/--o; none given: the first) are ours, the others\n"
        "                  open; prints the table's id and `kdapp play --join ID`, waits until\n"
        "                  every seat is taken, then plays our seats (theirs are waited for)\n"
        "  --join-timeout N with --open: the DAA score the table waits for players, 1-%u\n"
        "                  [%u]; then it closes unfilled\n"
        "  --join ID       take an open seat of table ID with this key directory's key (--seat S\n"
        "                  or S=P: which seat [the first open]; --players P: our player), then play it\n"
        "  --players LIST  one player per seat, in seat order [each seat's default]\n"
        "  --seat S=P      the player of seat S (its name, e.g. X, or its number from 0); repeatable\n"
        "  --x, --o        the players of the first and the second seat\n"
        "  --seed S        drives every random choice, so a game replays exactly [random, printed]\n"
        "  --max-moves N   stop after N moves [%u]\n"
        "  --depth D       search lookahead in plies, 1-64 [%u]; with --think-ms, the deepest\n"
        "  --think-ms T    search within T ms a move, 1-600000: depths 1, 2, ... while the next\n"
        "                  is predicted to fit (the deepest finished answer is played)\n"
        "  --reorg-every K make the devnet reorganise after every K moves, reverting\n"
        "  --reorg-depth D its last D blocks [1]; the rollback is shown, then play goes on\n"
        "  --mcp-url URL   a Streamable HTTP gateway (`kdapp mcp --http ...`) [embedded]\n"
        "  --mcp-cmd CMD   a stdio MCP gateway started with /bin/sh -c CMD [embedded]\n"
        "  --model M       the model llm players ask for\n"
        "  --quiet         print only the result (its gateway too: no notices, the log at error level)\n"
        "Ctrl-C stops after the turn in progress (a second one at once) and prints the command\n"
        "that resumes the game (exit 130); a game left at --max-moves prints it too.\n"
        "environment: KDAPP_LLM_API_KEY, KDAPP_SHOW_PROMPTS=1, KDAPP_MCP_TOKEN\n",
        KD_TABLE_TIMEOUT_MAX, KD_TABLE_TIMEOUT_DEFAULT, KD_PLAY_DEFAULT_MAX_MOVES, KD_SEARCH_DEFAULT_DEPTH);
    if (ctx)
        usage_types(out, ctx);
}

/* --seat NAME=PLAYER, repeatable: kept as written, resolved once the type
 * is known. */
typedef struct {
    const char *args[KD_PLAY_MAX_SEATS];
    size_t count;
} seat_args;

static int parse_seat(const char *text, void *value)
{
    seat_args *s = value;
    const char *eq = strchr(text, '=');
    if (!*text || eq == text || (eq && !eq[1]) || s->count == KD_PLAY_MAX_SEATS)
        return -1; /* a bare seat (no "=P") is for --open and --join, checked once they are known */
    s->args[s->count++] = text;
    return 0;
}

/* Puts each --seat's player in its seat of `type` (a bare seat, with
 * --open: its default player); 0, or an exit code. */
static int assign_seats(const seat_args *seats, const kd_episode_type *type, kd_play_options *o)
{
    for (size_t i = 0; i < seats->count; i++) {
        const char *arg = seats->args[i], *eq = strchr(arg, '=');
        char name[64];
        snprintf(name, sizeof name, "%.*s", eq ? (int)(eq - arg) : (int)strlen(arg), arg);
        int seat = kd_episode_type_seat(type, name);
        char *end;
        unsigned long k = strtoul(name, &end, 10);
        if (seat == KD_SEAT_NONE && !*end && end != name && k < type->max_seats)
            seat = (int)k;
        if (seat == KD_SEAT_NONE || seat >= KD_PLAY_MAX_SEATS) {
            fprintf(stderr, "kdapp play: --seat '%s': %s has no seat %s (its seats:", arg, type->ops->type_name, name);
            for (size_t s = 0; s < type->max_seats; s++)
                fprintf(stderr, " %s", kd_episode_type_seat_name(type, (int)s));
            fprintf(stderr, ")\n");
            return KD_EXIT_USAGE;
        }
        o->players[seat] = eq ? eq + 1 : kd_play_default_player(type, seat);
    }
    return KD_EXIT_OK; /* the seats left get their type's default player (play.c) */
}

/* The options of --open and --join checked together: what each excludes,
 * and --join's one seat (--seat S[=P], --x or --o) and player (that
 * --seat's, or --players P). 0, or an exit code. */
static int table_options(kd_play_options *o, const seat_args *seats, int have_join_timeout, int have_cap, const char *x,
                         const char *second)
{
    static char join_seat[64];
    const char *why = NULL;
    for (size_t i = 0; !o->open && !o->join && i < seats->count; i++)
        if (!strchr(seats->args[i], '=')) {
            fprintf(stderr, "kdapp play: --seat '%s': give SEAT=PLAYER (a bare seat is for --open and --join)\n",
                    seats->args[i]);
            return KD_EXIT_USAGE;
        }
    if (o->open && o->join)
        why = "--open makes a table and --join ID takes a seat at one: give one of them";
    else if (have_join_timeout && !o->open)
        why = "--join-timeout is how long a table --open makes waits for players: give it with --open";
    else if ((o->open || o->join) && o->episode)
        why = "--episode resumes a game (a table waiting for players too): leave out --open and --join";
    else if ((o->open || o->join) && o->reorg_every)
        why = "--reorg-every is for a game one kdapp play plays alone, not a table shared with another owner";
    else if (o->join && (o->type || o->params || have_cap))
        why = "--join takes the table's type and params: leave out --type, --params and --cap";
    else if (o->join && seats->count > 1)
        why = "--join takes one seat: give --seat once";
    if (why) {
        fprintf(stderr, "kdapp play: %s\n", why);
        return KD_EXIT_USAGE;
    }
    if (!o->join)
        return KD_EXIT_OK;
    size_t given = 0;
    for (size_t i = 0; i < KD_PLAY_MAX_SEATS; i++)
        given += o->players[i] != NULL;
    if (seats->count) {
        const char *arg = seats->args[0], *eq = strchr(arg, '=');
        snprintf(join_seat, sizeof join_seat, "%.*s", eq ? (int)(eq - arg) : (int)strlen(arg), arg);
        o->join_seat = join_seat;
        o->join_player = eq ? eq + 1 : NULL;
    } else if (x || second) { /* the first or the second seat */
        o->join_seat = x ? "0" : "1";
    }
    if (given > 1 || (given && o->join_player) || (seats->count && (x || second))) {
        fprintf(stderr, "kdapp play: --join plays one seat: name its player once (--seat S=P, or --players P)\n");
        return KD_EXIT_USAGE;
    }
    if (given && !o->join_player) /* --players P, or --x/--o's */
        for (size_t i = 0; i < KD_PLAY_MAX_SEATS; i++)
            if (o->players[i])
                o->join_player = o->players[i];
    memset(o->players, 0, sizeof o->players);
    return KD_EXIT_OK;
}

int kd_cmd_play(kd_cli *cli, int argc, char **argv)
{
    kd_play_options o = {
        .types = &cli->types, .render_flags = cli->render_flags, .out = stdout, .in = stdin, .log = stderr};
    const char *x = NULL, *second = NULL, *list = NULL;
    uint64_t cap = 0;
    int have_seed = 0, have_cap = 0, have_join_timeout = 0;
    seat_args seats = {0};
    const kd_option opts[] = {
        KD_CLI_OPTIONS(cli),
        {.name = "type", .kind = KD_OPT_STRING, .value = &o.type},
        {.name = "episode",
         .kind = KD_OPT_UINT,
         .value = &o.episode,
         .size = sizeof o.episode,
         .min = 1,
         .max = UINT32_MAX,
         .use = "an episode id, 1 to 4294967295"},
        {.name = "params", .kind = KD_OPT_STRING, .value = &o.params},
        {.name = "open", .kind = KD_OPT_FLAG, .value = &o.open},
        {.name = "join",
         .kind = KD_OPT_UINT,
         .value = &o.join,
         .size = sizeof o.join,
         .min = 1,
         .max = UINT32_MAX,
         .use = "a table id, 1 to 4294967295 (kdapp_list_tables lists them)"},
        {.name = "join-timeout",
         .kind = KD_OPT_UINT,
         .value = &o.join_timeout,
         .size = sizeof o.join_timeout,
         .min = 1,
         .max = KD_TABLE_TIMEOUT_MAX,
         .use = "a DAA score from 1 to 8640000, the most a table may wait",
         .seen = &have_join_timeout},
        {.name = "cap",
         .kind = KD_OPT_UINT,
         .value = &cap,
         .min = 0,
         .max = 255,
         .use = "a whole number from 0 to 255",
         .seen = &have_cap},
        {.name = "players", .kind = KD_OPT_STRING, .value = &list},
        {.name = "seat",
         .kind = KD_OPT_CUSTOM,
         .value = &seats,
         .parse = parse_seat,
         .use = "SEAT=PLAYER, a seat of the type (its name or number) and its player"},
        {.name = "x", .kind = KD_OPT_STRING, .value = &x},
        {.name = "o", .kind = KD_OPT_STRING, .value = &second},
        {.name = "seed",
         .kind = KD_OPT_UINT,
         .value = &o.seed,
         .use = "a whole number from 0 to 18446744073709551615",
         .seen = &have_seed},
        {.name = "max-moves",
         .kind = KD_OPT_UINT,
         .value = &o.max_moves,
         .size = sizeof o.max_moves,
         .min = 1,
         .max = 1000000,
         .use = "a whole number from 1 to 1000000"},
        {.name = "depth",
         .kind = KD_OPT_UINT,
         .value = &o.depth,
         .size = sizeof o.depth,
         .min = 1,
         .max = 64,
         .use = "a whole number from 1 to 64"},
        {.name = "think-ms",
         .kind = KD_OPT_UINT,
         .value = &o.think_ms,
         .size = sizeof o.think_ms,
         .min = 1,
         .max = KD_PLAYER_MAX_THINK_MS,
         .use = "milliseconds a move, 1 to 600000"},
        {.name = "reorg-every",
         .kind = KD_OPT_UINT,
         .value = &o.reorg_every,
         .size = sizeof o.reorg_every,
         .min = 1,
         .max = 1000,
         .use = "a whole number from 1 to 1000"},
        {.name = "reorg-depth",
         .kind = KD_OPT_UINT,
         .value = &o.reorg_depth,
         .size = sizeof o.reorg_depth,
         .min = 1,
         .max = 1000,
         .use = "a whole number from 1 to 1000"},
        {.name = "mcp-url", .kind = KD_OPT_STRING, .value = &o.mcp_url},
        {.name = "mcp-cmd", .kind = KD_OPT_STRING, .value = &o.mcp_cmd},
        {.name = "model", .kind = KD_OPT_STRING, .value = &o.model},
        {.name = "quiet", .short_name = 'q', .kind = KD_OPT_FLAG, .value = &o.quiet},
        {0},
    };
    const kd_usage u = {.prog = "kdapp play", .print = usage, .ctx = &cli->types};
    int first, stop, rc = kd_options_parse_usage(&u, opts, argc, argv, &first, &stop);
    if (rc || stop)
        return rc;
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
    if ((rc = table_options(&o, &seats, have_join_timeout, have_cap, x, second))) {
        free(players);
        return rc;
    }
    if (o.episode && (o.params || have_cap)) {
        fprintf(stderr, "kdapp play: --episode resumes a game, whose params are set: leave out --params and --cap\n");
        free(players);
        return KD_EXIT_USAGE;
    }
    char grant[KD_MAX_PARTICIPANTS * (KD_KEY_NAME_MAX + 1) + 1];
    if (o.episode && !o.mcp_url && !o.mcp_cmd) {
        char why[1024] = "";
        const char *episode_type = NULL;
        kd_err err = kd_play_resume_find(&cli->registry, cli->data_dir, cli->keys_dir, o.episode, &episode_type, grant,
                                         sizeof grant, why, sizeof why);
        if (err) {
            fprintf(stderr, "kdapp play: %s\n", why);
            free(players);
            return err == KD_ERR_NOT_FOUND || err == KD_ERR_LOCKED ? KD_EXIT_USAGE : KD_EXIT_FAIL;
        }
        if (o.type && kd_cli_find_type(cli, o.type) != kd_cli_find_type(cli, episode_type)) {
            fprintf(stderr, "kdapp play: episode %u is %s, not %s (leave out --type when resuming)\n", o.episode,
                    episode_type, o.type);
            free(players);
            return KD_EXIT_USAGE;
        }
        o.type = episode_type;
        o.grant = grant;
    }
    const kd_episode_type *type = o.type                ? kd_cli_find_type(cli, o.type)
                                  : o.episode || o.join ? NULL /* the gateway's view (or table) says it */
                                  : cli->types.count    ? cli->types.entries[0].type
                                                        : NULL;
    if (!type && !((o.episode || o.join) && !o.type)) {
        free(players);
        return kd_cli_unknown_type(cli, "kdapp play", "--type", o.type);
    }
    if (!type && seats.count && !o.join) {
        fprintf(stderr, "kdapp play: --seat needs the type's seats: give --type with --episode and --mcp-url\n");
        free(players);
        return KD_EXIT_USAGE;
    }
    if (type)
        o.type = type->ops->type_name;
    rc = type && !o.join ? assign_seats(&seats, type, &o) : KD_EXIT_OK;
    if (rc) {
        free(players);
        return rc;
    }
    if (!have_seed)
        o.seed = (uint64_t)time(NULL) * 1000003u ^ (uint64_t)getpid();
    o.data_dir = cli->data_dir;
    o.keys_dir = cli->keys_dir;
    o.llm_api_key = getenv("KDAPP_LLM_API_KEY");
    o.mcp_token = getenv("KDAPP_MCP_TOKEN");
    const char *show = getenv("KDAPP_SHOW_PROMPTS");
    o.show_prompts = show && *show && strcmp(show, "0") != 0;

    char resume[1024], join[1024];
    resume_args(cli, &o, resume, sizeof resume);
    o.resume_args = resume;
    join_args(cli, &o, join, sizeof join);
    o.join_args = join;
    play_signals ps = {0};
    pthread_t stopper;
    kd_signals_block();
    int stopper_started = pthread_create(&stopper, NULL, stop_on_signal, &ps) == 0;
    o.stop = &ps.stop;

    kd_play_result res;
    char why[1024] = "";
    kd_err err = kd_play_run(&o, &res, why, sizeof why);
    free(players);
    if (stopper_started) {
        atomic_store(&ps.done, 1);
        pthread_kill(stopper, SIGTERM);
        pthread_join(stopper, NULL);
    }
    if (err) {
        fprintf(stderr, "kdapp play: %s\n", why[0] ? why : kd_err_str(err));
        if (res.episode_id && err != KD_ERR_CLOSED) /* a table closed unfilled has nothing to resume */
            fprintf(stderr, "kdapp play: resume: kdapp play --episode %u%s\n", res.episode_id, resume);
        return err == KD_ERR_INVALID_ARG ? KD_EXIT_USAGE : KD_EXIT_FAIL;
    }
    return res.stopped ? 128 + SIGINT : KD_EXIT_OK;
}
