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

#include "engine/chain.h"
#include "engine/engine.h"
#include "episodes/episode_type.h"

#define KD_EXIT_OK 0
#define KD_EXIT_FAIL 1  /* the operation failed (storage, network, mismatch) */
#define KD_EXIT_USAGE 2 /* bad arguments, environment or input */

/* Process-wide settings resolved at start (main.c): environment and defaults. */
typedef struct {
    const char *data_dir;  /* --data, else KDAPP_DATA, else ./kdapp-data */
    const char *keys_dir;  /* --keys, else KDAPP_KEYS, else ./kdapp-keys */
    kd_type_table types;   /* every episode type, configured from the environment */
    kd_registry registry;  /* the engine's view of `types` (kd_type_table_registry) */
    unsigned render_flags; /* boards for this terminal: KD_RENDER_UNICODE under a UTF-8 locale */
    const char *chain;     /* --chain: the chain a store follows (engine/chain.h), or NULL */
} kd_cli;

/* Reads the environment (the types' engine defaults through
 * kd_type_table_configure); prints a message naming the variable and
 * returns KD_EXIT_USAGE when a value is malformed. `cli` must not move
 * afterwards (its registry points into its type table). */
int kd_cli_init(kd_cli *cli);
/* kd_cli_init with the types of `types` (copied, then configured from the
 * environment) instead of the built-in ones. */
int kd_cli_init_types(kd_cli *cli, const kd_type_table *types);

/* KD_RENDER_UNICODE when the locale's character set (LC_ALL, LC_CTYPE,
 * LANG) is UTF-8, else 0: boards use ASCII unless the terminal shows UTF-8. */
unsigned kd_cli_render_flags(void);

/* The registered type named `name`, also when written with hyphens,
 * underscores or capitals ("four-in-a-row" for "fourinarow"), or NULL. */
const kd_episode_type *kd_cli_find_type(const kd_cli *cli, const char *name);

/* Says on stderr that `name` (given as `what`: "--type", "TYPE") names no
 * registered type, and lists the types: "PROG: --type 'chesss' is not a
 * registered episode type: use one of tictactoe, fourinarow, ...".
 * Returns KD_EXIT_USAGE. */
int kd_cli_unknown_type(const kd_cli *cli, const char *prog, const char *what, const char *name);

/* Opens an engine on `dir` (NULL: cli->data_dir) with cli's registry, which
 * must outlive it; a writable open names cli->chain (--chain: what a new
 * store follows, and an existing one must). Prints the reason and returns
 * non-zero on failure. */
int kd_cli_open_engine(kd_cli *cli, const char *dir, int read_only, uint64_t finality, kd_engine **out);
/* The same, naming `chain` (engine/chain.h; NULL: none) instead. */
int kd_cli_open_store(kd_cli *cli, const char *dir, int read_only, uint64_t finality, const char *chain,
                      kd_engine **out);
/* The chain the store of `dir` (NULL: cli->data_dir) follows, read-only,
 * into `out`: 1 when read, 0 when there is no store there yet (or it
 * cannot be read; nothing printed). */
int kd_cli_store_chain(kd_cli *cli, const char *dir, char out[KD_CHAIN_MAX]);

/* Parses a decimal in [min, max]; returns 0 or -1. */
int kd_cli_parse_u64(const char *text, uint64_t min, uint64_t max, uint64_t *out);

/* The common options --data and --keys as kd_option entries
 * (tools/common/options.h): every subcommand parses its options with
 * kd_options_parse_usage. */
#define KD_CLI_OPTIONS(cli)                                              \
    {.name = "data", .kind = KD_OPT_STRING, .value = &(cli)->data_dir},  \
    {                                                                    \
        .name = "keys", .kind = KD_OPT_STRING, .value = &(cli)->keys_dir \
    }

/* --chain NAME (engine/chain.h): the chain the store follows, for the
 * subcommands that may create one or sign for one. */
#define KD_CHAIN_OPTION(cli)                                                                           \
    {                                                                                                  \
        .name = "chain", .kind = KD_OPT_STRING, .value = &(cli)->chain,                                \
        .use = "a chain name: kaspa:NETWORK (kaspa:testnet-10) or local:<32 hex digits of a store id>" \
    }

/* Parses "sync" | "relaxed" into the kd_durability `value` points to (a
 * KD_OPT_CUSTOM parser); returns 0 or -1. */
int kd_cli_parse_durability_opt(const char *text, void *value);

#endif
