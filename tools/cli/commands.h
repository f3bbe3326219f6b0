/*
 * commands.h — the `kdapp` subcommands (tools/cli/cmd_*.c), dispatched by
 * main.c. `kdapp bench` is its own subfolder's (tools/bench/bench.h).
 */
#ifndef KD_TOOLS_CLI_COMMANDS_H
#define KD_TOOLS_CLI_COMMANDS_H

#include "tools/bench/bench.h"
#include "tools/common/cli.h"

/* Subcommands: each gets argv with argv[0] = the subcommand name. */
int kd_cmd_keygen(kd_cli *cli, int argc, char **argv);
int kd_cmd_feed(kd_cli *cli, int argc, char **argv);
int kd_cmd_show(kd_cli *cli, int argc, char **argv);
int kd_cmd_strategy(kd_cli *cli, int argc, char **argv);
int kd_cmd_log(kd_cli *cli, int argc, char **argv);
int kd_cmd_list(kd_cli *cli, int argc, char **argv);
int kd_cmd_engine(kd_cli *cli, int argc, char **argv);
int kd_cmd_devnet(kd_cli *cli, int argc, char **argv);
int kd_cmd_devnet_reorg(kd_cli *cli, int argc, char **argv);
int kd_cmd_devnet_status(kd_cli *cli, int argc, char **argv);
int kd_cmd_submit(kd_cli *cli, int argc, char **argv);
int kd_cmd_watch(kd_cli *cli, int argc, char **argv);
int kd_cmd_up(kd_cli *cli, int argc, char **argv);
int kd_cmd_replay(kd_cli *cli, int argc, char **argv);
int kd_cmd_verify(kd_cli *cli, int argc, char **argv);
int kd_cmd_sim(kd_cli *cli, int argc, char **argv);
int kd_cmd_perft(kd_cli *cli, int argc, char **argv);
int kd_cmd_mcp(kd_cli *cli, int argc, char **argv);
int kd_cmd_play(kd_cli *cli, int argc, char **argv);
int kd_cmd_stats(kd_cli *cli, int argc, char **argv);

#endif
