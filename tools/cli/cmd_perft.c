/*
 * cmd_perft.c — `kdapp perft TYPE [--params JSON] [--state HEX] --depth N
 * [--divide] [--seats N]`: counts the legal move sequences of an episode
 * type by execute and rollback through its own functions (tools/perft.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tools/cli/commands.h"
#include "tools/common/options.h"
#include "tools/sim/perft.h"

static const char usage[] = "usage: kdapp perft TYPE --depth N [--params JSON | --state HEX] [--seats N] [--divide]\n"
                            "  counts the move sequences of exactly N plies from the start position (made with\n"
                            "  freshly generated participant keys and the type's params JSON) or from an encoded\n"
                            "  state (the \"state\" member of a view), checking that every rollback restores the\n"
                            "  state's bytes\n";

static void print_divide(void *ctx, const kd_legal_move *move, uint64_t count)
{
    (void)ctx;
    printf("%s: %llu\n", move->notation, (unsigned long long)count);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The start position from the state's hex encoding. */
static int load_state(const kd_episode_type *type, const char *hex, void *state, kd_perft_signers *signers)
{
    size_t digits = strlen(hex), len = digits / 2;
    uint8_t *bytes = malloc(len ? len : 1);
    int rc = KD_EXIT_USAGE;
    if (!bytes) {
        fprintf(stderr, "kdapp perft: out of memory\n");
        return KD_EXIT_FAIL;
    }
    if (digits % 2 || kd_hex_decode(hex, bytes, len) != 0) {
        fprintf(stderr, "kdapp perft: --state is not valid: use the hex digits of the type's encoded state\n");
        goto done;
    }
    memset(state, 0, type->ops->state_size);
    if (type->ops->decode_state(bytes, len, state) != KD_OK) {
        fprintf(stderr, "kdapp perft: --state does not decode as a %s state\n", type->ops->type_name);
        goto done;
    }
    if (kd_perft_signers_from_state(signers, bytes, len) != KD_OK) {
        fprintf(stderr, "kdapp perft: --state holds no participant key to sign moves with\n");
        goto done;
    }
    rc = KD_EXIT_OK;
done:
    free(bytes);
    return rc;
}

int kd_cmd_perft(kd_cli *cli, int argc, char **argv)
{
    uint64_t depth = 0, seats = 0;
    const char *params_text = NULL, *state_hex = NULL;
    int divide = 0, have_depth = 0;
    const kd_option opts[] = {
        {.name = "depth", .kind = KD_OPT_UINT, .value = &depth, .max = KD_PERFT_MAX_DEPTH, .seen = &have_depth},
        {.name = "params", .kind = KD_OPT_STRING, .value = &params_text},
        {.name = "state", .kind = KD_OPT_STRING, .value = &state_hex},
        {.name = "seats", .kind = KD_OPT_UINT, .value = &seats, .min = 1, .max = KD_MAX_PARTICIPANTS},
        {.name = "divide", .kind = KD_OPT_FLAG, .value = &divide},
        {0},
    };
    const kd_usage u = {.prog = "kdapp perft", .print = kd_usage_print_text, .ctx = usage, .operands = 1};
    int first, stop, rc = kd_options_parse_usage(&u, opts, argc, argv, &first, &stop);
    if (rc || stop)
        return rc;
    if (!have_depth) /* --depth is required */
        return kd_usage_fail(&u);
    if (params_text && state_hex) {
        fprintf(stderr, "kdapp perft: --params and --state exclude each other (a state carries its params)\n");
        return KD_EXIT_USAGE;
    }
    const char *name = argv[first];
    const kd_episode_type *type = kd_cli_find_type(cli, name);
    if (!type)
        return kd_cli_unknown_type(cli, "kdapp perft", "TYPE", name);
    if (!seats)
        seats = type->min_seats >= 2 || type->max_seats < 2 ? type->min_seats : 2;

    rc = KD_EXIT_FAIL;
    json_t *params = NULL;
    kd_perft_signers signers;
    char why[512] = "";
    void *state = calloc(1, type->ops->state_size);
    if (!state) {
        fprintf(stderr, "kdapp perft: out of memory\n");
        return KD_EXIT_FAIL;
    }
    if (state_hex) {
        rc = load_state(type, state_hex, state, &signers);
        if (rc)
            goto done;
    } else {
        if (params_text) {
            json_error_t jerr;
            params = json_loads(params_text, JSON_REJECT_DUPLICATES, &jerr);
            if (!params) {
                fprintf(stderr, "kdapp perft: --params is not JSON: %s\n", jerr.text);
                rc = KD_EXIT_USAGE;
                goto done;
            }
        }
        kd_err err = kd_perft_start(type, kd_type_table_config(&cli->types, type->ops->type_name), params,
                                    (size_t)seats, state, &signers, why, sizeof why);
        if (err) {
            fprintf(stderr, "kdapp perft: %s\n", why);
            rc = err == KD_ERR_IO || err == KD_ERR_NOMEM ? KD_EXIT_FAIL : KD_EXIT_USAGE;
            goto done;
        }
    }
    uint64_t nodes = 0;
    double start = now_s();
    kd_err err = kd_perft_count(type, &signers, state, (unsigned)depth, divide ? print_divide : NULL, NULL, &nodes, why,
                                sizeof why);
    double took = now_s() - start;
    if (err) {
        fprintf(stderr, "kdapp perft: %s\n", why[0] ? why : kd_err_str(err));
        rc = KD_EXIT_FAIL;
        goto done;
    }
    printf("perft %s depth %llu: %llu nodes in %.3f s (%.0f nodes/s)\n", type->ops->type_name,
           (unsigned long long)depth, (unsigned long long)nodes, took, took > 0 ? (double)nodes / took : 0.0);
    rc = KD_EXIT_OK;
done:
    json_decref(params);
    free(state);
    return rc;
}
