/*
 * secret_tool.c — a test helper that acts for a seat of a type with
 * secrets, from outside the engine, as a gateway holding the seat's key
 * would (kd_secret_seed, then the type's secret_commit / secret_duty), so
 * end-to-end block scripts can carry a house's commit and reveals:
 *
 *   secret_tool commit TYPE EPISODE SEAT KEY PARAMS_JSON
 *       prints PARAMS_JSON with what the seat commits to added
 *   secret_tool duty TYPE EPISODE SEAT KEY STATE_HEX
 *       prints the command JSON the seat owes in that state (exit 3: none)
 *
 * KEY is "test:NAME" (kd_key_test). Generic: it names no game.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/bytes.h"
#include "engine/crypto.h"
#include "episodes/episode_type.h"

static int usage(void)
{
    fprintf(stderr, "usage: secret_tool commit|duty TYPE EPISODE SEAT test:NAME PARAMS_JSON|STATE_HEX\n");
    return 2;
}

static int commit(const kd_episode_type *t, const uint8_t seed[KD_SECRET_SEED_LEN], int seat, const char *text)
{
    json_error_t jerr;
    json_t *params = json_loads(text, 0, &jerr);
    char why[256] = "";
    if (!json_is_object(params)) {
        fprintf(stderr, "secret_tool: PARAMS_JSON is not a JSON object: %s\n", jerr.text);
        json_decref(params);
        return 2;
    }
    kd_err err = t->secret_commit(seat, seed, params, why, sizeof why);
    char *out = err && err != KD_ERR_UNSUPPORTED ? NULL : json_dumps(params, JSON_COMPACT | JSON_SORT_KEYS);
    if (out)
        printf("%s\n", out);
    else
        fprintf(stderr, "secret_tool: %s: %s\n", kd_err_str(err), why);
    free(out);
    json_decref(params);
    return out ? 0 : 1;
}

static int duty(const kd_episode_type *t, const uint8_t seed[KD_SECRET_SEED_LEN], int seat, const char *hex)
{
    size_t n = strlen(hex) / 2;
    uint8_t *bytes = malloc(n ? n : 1);
    void *state = calloc(1, t->ops->state_size);
    kd_buf cmd;
    kd_buf_init(&cmd);
    int rc = 1;
    if (!bytes || !state || kd_hex_decode(hex, bytes, n) != 0 || t->ops->decode_state(bytes, n, state) != KD_OK) {
        fprintf(stderr, "secret_tool: STATE_HEX is not a %s state\n", t->ops->type_name);
        goto done;
    }
    kd_err err = t->secret_duty(state, seat, seed, &cmd);
    if (err == KD_ERR_NO_MOVE) {
        rc = 3;
        goto done;
    }
    json_t *j = err ? NULL : t->command_to_json(cmd.data, cmd.len);
    char *out = j ? json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    if (out) {
        printf("%s\n", out);
        rc = 0;
    }
    free(out);
    json_decref(j);
done:
    kd_buf_fini(&cmd);
    free(state);
    free(bytes);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 7 || strncmp(argv[5], "test:", 5) != 0)
        return usage();
    kd_type_table types;
    kd_type_table_init(&types);
    const kd_episode_type *t = kd_type_table_find(&types, argv[2]);
    if (!t || !t->secret_commit) {
        fprintf(stderr, "secret_tool: %s is no registered type with secrets\n", argv[2]);
        return 2;
    }
    kd_key key;
    if (kd_key_test(argv[5] + 5, &key) != KD_OK)
        return usage();
    int seat = atoi(argv[4]);
    uint8_t seed[KD_SECRET_SEED_LEN];
    kd_secret_seed(&key, t->ops->type_name, (uint32_t)strtoul(argv[3], NULL, 10), seat, seed);
    if (strcmp(argv[1], "commit") == 0)
        return commit(t, seed, seat, argv[6]);
    if (strcmp(argv[1], "duty") == 0)
        return duty(t, seed, seat, argv[6]);
    return usage();
}
