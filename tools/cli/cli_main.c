/*
 * cli_main.c — the `kdapp` subcommands dispatched by name (kd_cli_main):
 * what the `kdapp` executable runs with the built-in types, and what a
 * program that registers types of its own (tests/nim's nim_kdapp) runs
 * with its table.
 */
#include <stdio.h>
#include <string.h>

#include "tools/cli/commands.h"

typedef struct {
    const char *name;
    int (*run)(kd_cli *cli, int argc, char **argv);
    const char *summary;
} command;

static const command commands[] = {
    {"keygen", kd_cmd_keygen, "create a secp256k1 key pair in the key directory"},
    {"feed", kd_cmd_feed, "apply a block script (JSON Lines) through the engine"},
    {"show", kd_cmd_show, "draw an episode's board (--json: the enriched view)"},
    {"strategy", kd_cmd_strategy, "print an episode's strategy context JSON"},
    {"list", kd_cmd_list, "list episodes with type, status and move count"},
    {"log", kd_cmd_log, "print the append-only log, one entry a line"},
    {"ratings", kd_cmd_ratings, "Elo ratings per key and episode type from the canonical chain (--type T, --json)"},
    {"audit", kd_cmd_audit, "prove an episode's draws from the log, step by step (--json for machines)"},
    {"stats", kd_cmd_stats, "print the engine's metrics (--prometheus for the text format)"},
    {"replay", kd_cmd_replay, "rebuild a store from a data directory's log (--into NEWDIR)"},
    {"compact", kd_cmd_compact, "rewrite the data file compacted, so commits write near each other (daemon stopped)"},
    {"verify", kd_cmd_verify, "check that replaying the log reproduces the live store exactly"},
    {"mcp", kd_cmd_mcp, "MCP gateway for agents (stdio, or --http ADDR:PORT)"},
    {"commit", kd_cmd_commit, "print creation params with a seat's commitment from its key (types with secrets)"},
    {"duty", kd_cmd_duty, "print the command a seat owes now from its key (an answer, a reveal)"},
    {"play", kd_cmd_play, "a game of any type between players (random, search, llm:URL, human) through the gateway"},
    {"sim", kd_cmd_sim, "seeded reorg simulator checked against an oracle after every step"},
    {"perft", kd_cmd_perft, "count an episode type's legal move sequences N plies deep (an undo test)"},
    {"bench", kd_cmd_bench, "benchmarks against baselines measured in the same run (--quick)"},
    {"engine", kd_cmd_engine, "run the engine daemon (NNG ingest + view publishing)"},
    {"devnet", kd_cmd_devnet, "run a local chain that feeds an engine blocks"},
    {"devnet-reorg", kd_cmd_devnet_reorg, "make a running devnet revert its last N blocks"},
    {"devnet-status", kd_cmd_devnet_status, "print a running devnet's height, pending txs and tip"},
    {"submit", kd_cmd_submit, "submit a new episode or a signed move to a devnet"},
    {"watch", kd_cmd_watch, "draw boards live from an engine's published views"},
    {"up", kd_cmd_up, "engine + devnet in one process (embedded mode)"},
    {"listen", kd_cmd_listen, "follow a kaspad node's virtual chain over wRPC and feed the engine"},
    {"wallet", kd_cmd_wallet, "a key's Kaspa address; a command as a signed Kaspa transaction (build)"},
};

static void usage(FILE *out, const kd_type_table *types)
{
    fprintf(out, "usage: kdapp COMMAND [OPTIONS]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-13s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\ncommon options: --data DIR (default $KDAPP_DATA or ./kdapp-data),\n"
                 "                --keys DIR (default $KDAPP_KEYS or ./kdapp-keys)\n"
                 "environment:    KDAPP_LOG=level; the episode types' engine defaults:");
    for (size_t i = 0; i < types->count; i++)
        for (const char *const *n = types->entries[i].type->env_names; n && *n; n++)
            fprintf(out, " %s", *n);
    fprintf(out, "\n");
}

int kd_cli_main(const kd_type_table *types, int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        usage(argc < 2 ? stderr : stdout, types);
        return argc < 2 ? KD_EXIT_USAGE : KD_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (strcmp(argv[1], commands[i].name) != 0)
            continue;
        kd_cli cli;
        int rc = kd_cli_init_types(&cli, types);
        if (rc)
            return rc;
        return commands[i].run(&cli, argc - 1, argv + 1);
    }
    fprintf(stderr, "kdapp: unknown command '%s'\n\n", argv[1]);
    usage(stderr, types);
    return KD_EXIT_USAGE;
}
