/* cmd_keygen.c — `kdapp keygen NAME`: a key pair in a file only its owner reads. */
#include <stdio.h>

#include "engine/crypto.h"
#include "tools/cli/commands.h"
#include "tools/common/options.h"

int kd_cmd_keygen(kd_cli *cli, int argc, char **argv)
{
    static const char usage[] = "usage: kdapp keygen [--keys DIR] NAME\n";
    const kd_option opts[] = {KD_CLI_OPTIONS(cli), {0}};
    const kd_usage u = {.prog = "kdapp keygen", .print = kd_usage_print_text, .ctx = usage, .operands = 1};
    int first, stop, rc = kd_options_parse_usage(&u, opts, argc, argv, &first, &stop);
    if (rc || stop)
        return rc;
    const char *name = argv[first];
    kd_key key;
    char why[512];
    kd_err err = kd_key_generate(&key);
    if (err) {
        fprintf(stderr, "kdapp keygen: cannot generate a key: %s\n", kd_err_str(err));
        return KD_EXIT_FAIL;
    }
    err = kd_key_save(cli->keys_dir, name, &key, why, sizeof why);
    if (err) {
        fprintf(stderr, "kdapp keygen: %s\n", why);
        return err == KD_ERR_INVALID_ARG || err == KD_ERR_EXISTS ? KD_EXIT_USAGE : KD_EXIT_FAIL;
    }
    char hex[2 * KD_PUBKEY_LEN + 1];
    kd_hex_encode(key.pub.bytes, KD_PUBKEY_LEN, hex);
    printf("%s %s\n", name, hex);
    return KD_EXIT_OK;
}
