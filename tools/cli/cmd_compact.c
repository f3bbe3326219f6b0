/* cmd_compact.c — `kdapp compact`: rewrites a data directory's LMDB file
 * as LMDB's compacted copy (kd_store_compact), while nothing else has it
 * open, so the commits of a long-grown store write near each other
 * again. */
#include <stdio.h>

#include "tools/cli/commands.h"
#include "tools/common/options.h"

int kd_cmd_compact(kd_cli *cli, int argc, char **argv)
{
    static const char usage[] = "usage: kdapp compact [--data DIR]\n"
                                "Stop the engine daemon and every gateway attached to DIR first: compacting\n"
                                "needs the store to itself, and free disk space for the live pages.\n";
    const kd_option opts[] = {KD_CLI_OPTIONS(cli), {0}};
    const kd_usage u = {.prog = "kdapp compact", .print = kd_usage_print_text, .ctx = usage};
    int first, stop, rc = kd_options_parse_usage(&u, opts, argc, argv, &first, &stop);
    if (rc || stop)
        return rc;
    kd_store_compaction done;
    char why[512];
    kd_err err = kd_store_compact(cli->data_dir, &done, why, sizeof why);
    if (err) {
        fprintf(stderr, "kdapp compact: %s\n", why);
        return err == KD_ERR_LOCKED || err == KD_ERR_NOT_FOUND ? KD_EXIT_USAGE : KD_EXIT_FAIL;
    }
    printf("%s: compacted, %.1f MiB -> %.1f MiB\n", cli->data_dir, (double)done.bytes_before / (1 << 20),
           (double)done.bytes_after / (1 << 20));
    return KD_EXIT_OK;
}
