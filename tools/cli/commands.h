/*
 * commands.h — the `kdapp` subcommands (tools/cli/cmd_*.c), dispatched by
 * main.c. `kdapp bench` is its own subfolder's (tools/bench/bench.h).
 */
#ifndef KD_TOOLS_CLI_COMMANDS_H
#define KD_TOOLS_CLI_COMMANDS_H

#include "tools/bench/bench.h"
#include "tools/common/cli.h"

/*
 * Runs the subcommand argv[1] with the types of `types` (copied into the
 * subcommand's kd_cli and configured from the environment); returns the
 * process exit code (KD_EXIT_*). What `kdapp`'s main does with the
 * built-in types; a program may add types of its own to the table first.
 */
int kd_cli_main(const kd_type_table *types, int argc, char **argv);

/*
 * Option-table entries (tools/common/options.h) that several subcommands
 * share, so that one setting reads and is refused the same everywhere:
 *
 *   KD_FINALITY_OPTION(v)        --finality, the engine's finality depth, 1 to
 *                                1000000000, into the uint64_t `v` (engine,
 *                                up, feed)
 *   KD_DEVNET_CHAIN_OPTIONS(o)   --block-ms and --seed of the chain the
 *                                kd_devnet_options `o` makes (devnet, up)
 */
#define KD_FINALITY_OPTION(v)                                                                                         \
    {                                                                                                                 \
        .name = "finality", .kind = KD_OPT_UINT, .value = &(v), .min = 1, .max = 1000000000, .use = "1 to 1000000000" \
    }
#define KD_DEVNET_CHAIN_OPTIONS(o)                                                               \
    {.name = "block-ms",                                                                         \
     .kind = KD_OPT_UINT,                                                                        \
     .value = &(o).block_ms,                                                                     \
     .size = sizeof(o).block_ms,                                                                 \
     .min = 1,                                                                                   \
     .max = 3600000,                                                                             \
     .use = "1 to 3600000"},                                                                     \
    {                                                                                            \
        .name = "seed", .kind = KD_OPT_UINT, .value = &(o).seed, .use = "a non-negative integer" \
    }

/* Subcommands: each gets argv with argv[0] = the subcommand name. */
int kd_cmd_keygen(kd_cli *cli, int argc, char **argv);
int kd_cmd_feed(kd_cli *cli, int argc, char **argv);
int kd_cmd_show(kd_cli *cli, int argc, char **argv);
int kd_cmd_strategy(kd_cli *cli, int argc, char **argv);
int kd_cmd_log(kd_cli *cli, int argc, char **argv);
int kd_cmd_ratings(kd_cli *cli, int argc, char **argv);
int kd_cmd_audit(kd_cli *cli, int argc, char **argv);
int kd_cmd_list(kd_cli *cli, int argc, char **argv);
int kd_cmd_engine(kd_cli *cli, int argc, char **argv);
int kd_cmd_devnet(kd_cli *cli, int argc, char **argv);
int kd_cmd_devnet_reorg(kd_cli *cli, int argc, char **argv);
int kd_cmd_devnet_status(kd_cli *cli, int argc, char **argv);
int kd_cmd_submit(kd_cli *cli, int argc, char **argv);
int kd_cmd_watch(kd_cli *cli, int argc, char **argv);
int kd_cmd_up(kd_cli *cli, int argc, char **argv);
int kd_cmd_listen(kd_cli *cli, int argc, char **argv);
int kd_cmd_replay(kd_cli *cli, int argc, char **argv);
int kd_cmd_verify(kd_cli *cli, int argc, char **argv);
int kd_cmd_sim(kd_cli *cli, int argc, char **argv);
int kd_cmd_perft(kd_cli *cli, int argc, char **argv);
int kd_cmd_mcp(kd_cli *cli, int argc, char **argv);
int kd_cmd_play(kd_cli *cli, int argc, char **argv);
int kd_cmd_stats(kd_cli *cli, int argc, char **argv);
int kd_cmd_compact(kd_cli *cli, int argc, char **argv);
/* cmd_secret.c: a seat's commitment and duties from its key. */
int kd_cmd_commit(kd_cli *cli, int argc, char **argv);
int kd_cmd_duty(kd_cli *cli, int argc, char **argv);
/* cmd_wallet.c: a key's Kaspa address; a command as a signed Kaspa transaction. */
int kd_cmd_wallet(kd_cli *cli, int argc, char **argv);

#endif
