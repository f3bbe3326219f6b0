/* cli.c — shared setup of the `kdapp` subcommands. */
#include "tools/common/cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/logger.h"

int kd_cli_init(kd_cli *cli)
{
    kd_type_table builtin;
    kd_type_table_init(&builtin);
    return kd_cli_init_types(cli, &builtin);
}

unsigned kd_cli_render_flags(void)
{
    /* nl_langinfo needs setlocale, which would change how printf writes
     * numbers; reading the variables in POSIX's order of precedence does not. */
    const char *names[] = {"LC_ALL", "LC_CTYPE", "LANG"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *v = getenv(names[i]);
        if (v && *v)
            return strstr(v, "UTF-8") || strstr(v, "utf-8") || strstr(v, "UTF8") || strstr(v, "utf8")
                       ? KD_RENDER_UNICODE
                       : 0;
    }
    return 0;
}

/* Whether `a` and `b` are one name once '-' and '_' are dropped and case folded. */
static int same_loose_name(const char *a, const char *b)
{
    for (;;) {
        while (*a == '-' || *a == '_')
            a++;
        while (*b == '-' || *b == '_')
            b++;
        if (!*a || !*b)
            return !*a && !*b;
        char ca = *a >= 'A' && *a <= 'Z' ? (char)(*a - 'A' + 'a') : *a;
        char cb = *b >= 'A' && *b <= 'Z' ? (char)(*b - 'A' + 'a') : *b;
        if (ca != cb)
            return 0;
        a++;
        b++;
    }
}

const kd_episode_type *kd_cli_find_type(const kd_cli *cli, const char *name)
{
    const kd_episode_type *exact = kd_type_table_find(&cli->types, name);
    if (exact || !name)
        return exact;
    for (size_t i = 0; i < cli->types.count; i++)
        if (same_loose_name(cli->types.entries[i].type->ops->type_name, name))
            return cli->types.entries[i].type;
    return NULL;
}

int kd_cli_unknown_type(const kd_cli *cli, const char *prog, const char *what, const char *name)
{
    fprintf(stderr, "%s: %s '%s' is not a registered episode type: use one of", prog, what, name ? name : "");
    for (size_t i = 0; i < cli->types.count; i++)
        fprintf(stderr, "%s %s", i ? "," : "", cli->types.entries[i].type->ops->type_name);
    fprintf(stderr, " (`kdapp play --help` shows each one's seats)\n");
    return KD_EXIT_USAGE;
}

int kd_cli_init_types(kd_cli *cli, const kd_type_table *types)
{
    memset(cli, 0, sizeof *cli);
    const char *data = getenv("KDAPP_DATA"), *keys = getenv("KDAPP_KEYS");
    cli->data_dir = data && *data ? data : "./kdapp-data";
    cli->keys_dir = keys && *keys ? keys : "./kdapp-keys";
    const char *level = getenv("KDAPP_LOG");
    if (level && *level) {
        kd_log_level lv;
        if (kd_log_parse_level(level, &lv) != 0) {
            fprintf(stderr, "kdapp: KDAPP_LOG='%s' is not valid: use error, warn, info or debug\n", level);
            return KD_EXIT_USAGE;
        }
        kd_log_set_level(lv);
    }
    cli->render_flags = kd_cli_render_flags();
    char why[256] = "";
    cli->types = *types;
    if (kd_type_table_configure(&cli->types, kd_getenv_process, NULL, why, sizeof why) != KD_OK) {
        fprintf(stderr, "kdapp: %s\n", why);
        return KD_EXIT_USAGE;
    }
    kd_registry_init(&cli->registry);
    if (kd_type_table_registry(&cli->types, &cli->registry) != KD_OK) {
        fprintf(stderr, "kdapp: cannot register the episode types\n");
        return KD_EXIT_FAIL;
    }
    return KD_EXIT_OK;
}

int kd_cli_open_engine(kd_cli *cli, const char *dir, int read_only, uint64_t finality, kd_engine **out)
{
    return kd_cli_open_store(cli, dir, read_only, finality, read_only ? NULL : cli->chain, out);
}

int kd_cli_open_store(kd_cli *cli, const char *dir, int read_only, uint64_t finality, const char *chain,
                      kd_engine **out)
{
    char why[512];
    kd_engine_options opts = {
        .data_dir = dir ? dir : cli->data_dir,
        .registry = &cli->registry,
        .finality_depth = finality,
        .read_only = read_only,
        .chain = chain,
    };
    kd_err err = kd_engine_open(&opts, out, why, sizeof why);
    if (err) {
        fprintf(stderr, "kdapp: %s\n", why);
        return err == KD_ERR_LOCKED || err == KD_ERR_NOT_FOUND || err == KD_ERR_SCHEMA || err == KD_ERR_SETTINGS ||
                       err == KD_ERR_INVALID_ARG
                   ? KD_EXIT_USAGE
                   : KD_EXIT_FAIL;
    }
    return KD_EXIT_OK;
}

int kd_cli_store_chain(kd_cli *cli, const char *dir, char out[KD_CHAIN_MAX])
{
    char why[512];
    kd_engine_options opts = {.data_dir = dir ? dir : cli->data_dir, .registry = &cli->registry, .read_only = 1};
    kd_engine *engine = NULL;
    out[0] = '\0';
    if (kd_engine_open(&opts, &engine, why, sizeof why) != KD_OK)
        return 0;
    snprintf(out, KD_CHAIN_MAX, "%s", kd_engine_chain(engine));
    kd_engine_close(engine);
    return 1;
}

int kd_cli_parse_u64(const char *text, uint64_t min, uint64_t max, uint64_t *out)
{
    if (!text || !*text || *text == '-' || *text == '+')
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || *end || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

int kd_cli_parse_durability_opt(const char *text, void *value)
{
    kd_durability *out = value;
    if (strcmp(text, "sync") == 0)
        *out = KD_DURABILITY_SYNC;
    else if (strcmp(text, "relaxed") == 0)
        *out = KD_DURABILITY_RELAXED;
    else
        return -1;
    return 0;
}
