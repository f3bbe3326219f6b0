/*
 * nim_kdapp.c — the `kdapp` program with Nim registered beside the built-in
 * types, for the end-to-end test (run_nim_kdapp.sh): the real CLI, block
 * scripts, simulator and oracle, MCP gateway, players and perft, on a game
 * that no generic file names. It is what tools/main.c is, plus one line.
 *
 * It needs the CLI's entry point to take the type table:
 *
 *   int kd_cli_main(kd_type_table *types, int argc, char **argv);
 *
 * declared in tools/cli/commands.h and defined in tools/cli/ (what
 * tools/cli/main.c's main does today, with the table), which
 * tests/nim/CMakeLists.txt looks for before building this program.
 */
#include <stdio.h>

#include "episodes/episode_type.h"
#include "nim/nim.h"
#include "tools/cli/commands.h"

int main(int argc, char **argv)
{
    kd_type_table types;
    kd_type_table_init(&types);
    if (kd_type_table_add(&types, &kd_nim_type) != KD_OK) {
        fprintf(stderr, "nim_kdapp: cannot register nim beside the built-in types\n");
        return KD_EXIT_FAIL;
    }
    return kd_cli_main(&types, argc, argv);
}
