/*
 * main.c — the `kdapp` executable: one binary, many subcommands, with the
 * built-in episode types (episodes/types.c).
 */
#include "tools/cli/commands.h"

int main(int argc, char **argv)
{
    kd_type_table types;
    kd_type_table_init(&types);
    return kd_cli_main(&types, argc, argv);
}
