/* cmd_keygen.c — `kdapp keygen NAME`: a key pair in a file only its owner reads. */
#include <getopt.h>
#include <stdio.h>

#include "engine/crypto.h"
#include "tools/cli/commands.h"

int kd_cmd_keygen(kd_cli *cli, int argc, char **argv)
{
    static const struct option longopts[] = {KD_CLI_COMMON_LONGOPTS, {"help", no_argument, NULL, 'h'}, {0}};
    int opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        if (kd_cli_common_option(cli, opt, optarg))
            continue;
        fprintf(stderr, "usage: kdapp keygen [--keys DIR] NAME\n");
        return opt == 'h' ? KD_EXIT_OK : KD_EXIT_USAGE;
    }
    if (optind + 1 != argc) {
        fprintf(stderr, "usage: kdapp keygen [--keys DIR] NAME\n");
        return KD_EXIT_USAGE;
    }
    const char *name = argv[optind];
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
