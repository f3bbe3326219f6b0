/* cmd_keygen.c — `kdapp keygen NAME`: a key pair in a file only its owner reads. */
#include <stdio.h>
#include <string.h>

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
    char hex[2 * KD_PUBKEY_LEN + 1];
    if (err == KD_ERR_EXISTS) { /* never replaced: say whose it is */
        kd_key old;
        char lwhy[512];
        if (kd_key_load(cli->keys_dir, name, &old, lwhy, sizeof lwhy) == KD_OK) {
            kd_hex_encode(old.pub.bytes, KD_PUBKEY_LEN, hex);
            fprintf(stderr,
                    "kdapp keygen: the key %s exists already in %s (public key %s) and is kept: use it as it is, "
                    "or give another NAME for a new key\n",
                    name, cli->keys_dir, hex);
        } else {
            fprintf(stderr, "kdapp keygen: %s exists already in %s and is kept, but it cannot be read: %s\n", name,
                    cli->keys_dir, lwhy);
        }
        memset(&old, 0, sizeof old);
        memset(&key, 0, sizeof key);
        return KD_EXIT_USAGE;
    }
    if (err) {
        fprintf(stderr, "kdapp keygen: %s\n", why);
        memset(&key, 0, sizeof key);
        return err == KD_ERR_INVALID_ARG ? KD_EXIT_USAGE : KD_EXIT_FAIL;
    }
    kd_hex_encode(key.pub.bytes, KD_PUBKEY_LEN, hex);
    printf("%s %s\n", name, hex);
    return KD_EXIT_OK;
}
