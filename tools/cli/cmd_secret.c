/*
 * cmd_secret.c — a seat's secret side from the command line, for any type
 * with secrets (kd_episode_type.secret_commit / secret_duty), as the
 * gateway does for the seats whose keys it holds:
 *
 *   kdapp commit [--data DIR] --type T --episode ID --seat SEAT --signer REF [--params JSON]
 *       prints the creation params JSON with what SEAT commits to from
 *       REF's secret for episode ID set (kd_seat_commit: a fresh binding
 *       for the store of --data, which is created when it does not exist)
 *   kdapp duty [--data DIR] --signer REF ID
 *       prints the command JSON REF's seat owes now in episode ID (the
 *       answer to a shot, a reveal), made from its secret; exit 1 with a
 *       sentence when it owes nothing, or when the seat's commitment is not
 *       REF's for that store (kd_seat_seed): a commitment REF did not make
 *       is never acted on
 *
 * So a block script, a shell or another client can act for a seat with
 * nothing secret stored beyond the key file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/crypto.h"
#include "episodes/secrets.h"
#include "handlers/view.h"
#include "tools/cli/commands.h"
#include "tools/common/options.h"

static int print_compact(json_t *j)
{
    char *text = j ? json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(j);
    if (!text)
        return KD_EXIT_FAIL;
    puts(text);
    free(text);
    return KD_EXIT_OK;
}

/* The id of --data's store, which is created when it does not exist yet
 * (a commitment is bound to the store it is made for). Prints why not. */
static int store_id_of(kd_cli *cli, uint8_t out[KD_STORE_ID_LEN])
{
    char why[512] = "";
    kd_engine_options opts = {.data_dir = cli->data_dir, .registry = &cli->registry, .read_only = 1};
    kd_engine *engine = NULL;
    kd_err err = kd_engine_open(&opts, &engine, why, sizeof why);
    int rc = KD_EXIT_OK;
    if (err == KD_ERR_NOT_FOUND)
        rc = kd_cli_open_engine(cli, NULL, 0, 0, &engine);
    else if (err) {
        fprintf(stderr, "kdapp commit: %s\n", why);
        rc = KD_EXIT_FAIL;
    }
    if (!rc && (err = kd_engine_store_id(engine, out)) != KD_OK) {
        fprintf(stderr, "kdapp commit: cannot read the store's id in %s: %s\n", cli->data_dir, kd_err_str(err));
        rc = KD_EXIT_FAIL;
    }
    kd_engine_close(engine);
    return rc;
}

int kd_cmd_commit(kd_cli *cli, int argc, char **argv)
{
    static const char usage[] =
        "usage: kdapp commit [--data DIR] [--keys DIR] [--chain CHAIN] --type TYPE --episode ID --seat SEAT "
        "--signer REF [--params JSON]\n"
        "  --chain  the chain a store created here follows (kaspa:NETWORK; default: its own local chain)\n";
    const char *type_name = NULL, *seat_text = NULL, *signer = NULL, *params_text = "{}";
    uint64_t episode = 0;
    const kd_option opts[] = {KD_CLI_OPTIONS(cli),
                              KD_CHAIN_OPTION(cli),
                              {.name = "type", .kind = KD_OPT_STRING, .value = &type_name},
                              {.name = "episode", .kind = KD_OPT_UINT, .value = &episode, .min = 1, .max = UINT32_MAX},
                              {.name = "seat", .kind = KD_OPT_STRING, .value = &seat_text},
                              {.name = "signer", .kind = KD_OPT_STRING, .value = &signer},
                              {.name = "params", .kind = KD_OPT_STRING, .value = &params_text},
                              {0}};
    const kd_usage u = {.prog = "kdapp commit", .print = kd_usage_print_text, .ctx = usage};
    int first, stop, rc = kd_options_parse_usage(&u, opts, argc, argv, &first, &stop);
    if (rc || stop)
        return rc;
    const kd_episode_type *t = type_name ? kd_cli_find_type(cli, type_name) : NULL;
    int seat = t && seat_text ? kd_episode_type_seat(t, seat_text) : KD_SEAT_NONE;
    if (t && seat_text && seat == KD_SEAT_NONE && seat_text[0] >= '0' && seat_text[0] <= '9')
        seat = atoi(seat_text);
    if (type_name && !t)
        return kd_cli_unknown_type(cli, "kdapp commit", "--type", type_name);
    if (!t || !t->secret_commit || !episode || !signer || seat < 0 || (size_t)seat >= t->max_seats) {
        fprintf(stderr, "kdapp commit: %s\n%s",
                !t                    ? "--type must name a registered type"
                : !t->secret_commit   ? "the type keeps no secret: nothing to commit"
                : !episode || !signer ? "--episode and --signer are required"
                                      : "--seat must name a seat of the type (its name or number)",
                usage);
        return KD_EXIT_USAGE;
    }
    json_error_t jerr;
    json_t *params = json_loads(params_text, 0, &jerr);
    kd_key key;
    char why[512] = "";
    if (!json_is_object(params)) {
        fprintf(stderr, "kdapp commit: --params is not a JSON object: %s\n", jerr.text);
        json_decref(params);
        return KD_EXIT_USAGE;
    }
    if (kd_key_resolve(cli->keys_dir, signer, &key, why, sizeof why) != KD_OK) {
        fprintf(stderr, "kdapp commit: %s\n", why);
        json_decref(params);
        return KD_EXIT_USAGE;
    }
    uint8_t store[KD_STORE_ID_LEN];
    if ((rc = store_id_of(cli, store))) {
        memset(&key, 0, sizeof key);
        json_decref(params);
        return rc;
    }
    kd_err err = kd_seat_commit(t, &key, store, (uint32_t)episode, seat, params, why, sizeof why);
    memset(&key, 0, sizeof key);
    if (err && err != KD_ERR_UNSUPPORTED) {
        fprintf(stderr, "kdapp commit: %s\n", why[0] ? why : kd_err_str(err));
        json_decref(params);
        return KD_EXIT_USAGE;
    }
    return print_compact(params);
}

/* The seat of `pub` in `view`, or KD_SEAT_NONE. */
static int seat_of(const kd_episode_view *view, const kd_pubkey *pub)
{
    for (size_t i = 0; i < view->participants.count; i++)
        if (memcmp(view->participants.keys[i].bytes, pub->bytes, KD_PUBKEY_LEN) == 0)
            return (int)i;
    return KD_SEAT_NONE;
}

/* The duty of `key`'s seat in `view` as command JSON on stdout. */
static int print_duty(const kd_episode_view *view, const kd_key *key, const uint8_t store[KD_STORE_ID_LEN])
{
    const kd_episode_type *t = view->type;
    int seat = seat_of(view, &key->pub);
    if (seat == KD_SEAT_NONE) {
        fprintf(stderr, "kdapp duty: the signer is no participant of episode %u\n", view->episode_id);
        return KD_EXIT_USAGE;
    }
    void *state = calloc(1, t->ops->state_size);
    if (!state || t->ops->decode_state(view->state.data, view->state.len, state) != KD_OK) {
        free(state);
        fprintf(stderr, "kdapp duty: cannot decode the state of episode %u\n", view->episode_id);
        return KD_EXIT_FAIL;
    }
    uint8_t seed[KD_SECRET_SEED_LEN];
    kd_buf cmd;
    kd_buf_init(&cmd);
    kd_err err = kd_seat_seed(t, key, store, view->episode_id, seat, state, seed);
    if (!err)
        err = t->secret_duty(state, seat, seed, &cmd);
    memset(seed, 0, sizeof seed);
    free(state);
    int rc = KD_EXIT_FAIL;
    if (err == KD_ERR_NOT_FOUND || err == KD_ERR_UNSUPPORTED)
        fprintf(stderr,
                "kdapp duty: %s's commitment in episode %u was not made by this key for this store: nothing to "
                "act on\n",
                kd_episode_type_seat_name(t, seat), view->episode_id);
    else if (err == KD_ERR_NO_MOVE)
        fprintf(stderr, "kdapp duty: %s owes nothing now in episode %u\n", kd_episode_type_seat_name(t, seat),
                view->episode_id);
    else if (err)
        fprintf(stderr, "kdapp duty: %s\n", kd_err_str(err));
    else
        rc = print_compact(t->command_to_json(cmd.data, cmd.len));
    kd_buf_fini(&cmd);
    return rc;
}

int kd_cmd_duty(kd_cli *cli, int argc, char **argv)
{
    static const char usage[] = "usage: kdapp duty [--data DIR] [--keys DIR] --signer REF ID\n";
    const char *signer = NULL;
    const kd_option opts[] = {KD_CLI_OPTIONS(cli), {.name = "signer", .kind = KD_OPT_STRING, .value = &signer}, {0}};
    const kd_usage u = {.prog = "kdapp duty", .print = kd_usage_print_text, .ctx = usage, .operands = 1};
    int first, stop, rc = kd_options_parse_usage(&u, opts, argc, argv, &first, &stop);
    if (rc || stop)
        return rc;
    uint64_t id;
    kd_key key;
    char why[512] = "";
    if (!signer || kd_cli_parse_u64(argv[first], 1, UINT32_MAX, &id) != 0) {
        fprintf(stderr, "kdapp duty: --signer and an episode id 1 to %u are required\n%s", UINT32_MAX, usage);
        return KD_EXIT_USAGE;
    }
    if (kd_key_resolve(cli->keys_dir, signer, &key, why, sizeof why) != KD_OK) {
        fprintf(stderr, "kdapp duty: %s\n", why);
        return KD_EXIT_USAGE;
    }
    kd_engine *engine = NULL;
    if ((rc = kd_cli_open_engine(cli, NULL, 1, 0, &engine)))
        return rc;
    kd_episode_view view;
    kd_episode_view_init(&view);
    kd_read *rd;
    uint8_t store[KD_STORE_ID_LEN];
    kd_err err = kd_engine_store_id(engine, store);
    if (err) {
        fprintf(stderr, "kdapp duty: cannot read the store's id: %s\n", kd_err_str(err));
        memset(&key, 0, sizeof key);
        kd_engine_close(engine);
        return KD_EXIT_FAIL;
    }
    err = kd_engine_read_begin(engine, &rd);
    if (!err)
        err = kd_episode_view_read(&cli->types, rd, (uint32_t)id, &view);
    kd_engine_read_end(rd);
    if (err)
        fprintf(stderr, "kdapp duty: cannot read episode %llu: %s\n", (unsigned long long)id, kd_err_str(err));
    else if (view.deleted || !view.type || !view.type->secret_duty)
        fprintf(stderr, "kdapp duty: episode %llu has no secrets to act on\n", (unsigned long long)id);
    rc = err || view.deleted || !view.type || !view.type->secret_duty ? KD_EXIT_FAIL : print_duty(&view, &key, store);
    memset(&key, 0, sizeof key);
    kd_episode_view_fini(&view);
    kd_engine_close(engine);
    return rc;
}
