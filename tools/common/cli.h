/*
 * cli.h — what every `kdapp` subcommand shares: default paths from the
 * environment, the engine's configuration from the environment (checked
 * once, at start), opening an engine with the episode types registered,
 * and the argument parsing helpers. It sits below every tools/ subfolder
 * (the chain's node and the bench use it too); the subcommand entry points
 * are in tools/cli/commands.h.
 */
#ifndef KD_TOOLS_COMMON_CLI_H
#define KD_TOOLS_COMMON_CLI_H

#include <stdint.h>

#include "engine/engine.h"
#include "episodes/tictactoe.h"

#define KD_EXIT_OK 0
#define KD_EXIT_FAIL 1  /* the operation failed (storage, network, mismatch) */
#define KD_EXIT_USAGE 2 /* bad arguments, environment or input */

/* Process-wide settings resolved at start (main.c): environment and defaults. */
typedef struct {
    const char *data_dir; /* --data, else KDAPP_DATA, else ./kdapp-data */
    const char *keys_dir; /* --keys, else KDAPP_KEYS, else ./kdapp-keys */
    kd_ttt_config ttt;    /* from KDAPP_TTT_STRESS / KDAPP_TTT_MAX_SYMBOLS */
    kd_registry registry; /* every episode type, configured */
} kd_cli;

/* Reads the environment; prints a message naming the variable and returns
 * KD_EXIT_USAGE when a value is malformed. */
int kd_cli_init(kd_cli *cli);

/* Opens an engine on `dir` (NULL: cli->data_dir) with cli's registry, which
 * must outlive it; prints the reason and returns non-zero on failure. */
int kd_cli_open_engine(kd_cli *cli, const char *dir, int read_only, uint64_t finality, kd_engine **out);

/* Parses a probability, a decimal number in [0, 1]; returns 0 or -1. */
int kd_cli_parse_probability(const char *text, double *out);

/* Parses a decimal in [min, max]; returns 0 or -1. */
int kd_cli_parse_u64(const char *text, uint64_t min, uint64_t max, uint64_t *out);

/* Common long options: --data, --keys. Returns 1 when `opt` was one of them. */
int kd_cli_common_option(kd_cli *cli, int opt, const char *arg);
#define KD_CLI_OPT_DATA 1000
#define KD_CLI_OPT_KEYS 1001
#define KD_CLI_COMMON_LONGOPTS \
    {"data", required_argument, NULL, KD_CLI_OPT_DATA}, { "keys", required_argument, NULL, KD_CLI_OPT_KEYS }

/* Parses "sync" | "relaxed"; returns 0 or -1. */
int kd_cli_parse_durability(const char *text, kd_durability *out);

#endif
