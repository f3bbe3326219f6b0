/* chance_support.c — see chance_support.h. */
#include "chance_support.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "episodes/fair.h"
#include "episodes/secrets.h"
#include "type_support.h"

const uint8_t CHANCE_STORE_ID[KD_STORE_ID_LEN] = {'c', 'h', 'a', 'n', 'c', 'e', '-', 't', 'e', 's', 't', 's'};

void chance_new(chance_game *g, const kd_episode_type *type, const char *params_text)
{
    memset(g, 0, sizeof *g);
    g->type = type;
    cr_assert_eq(kd_key_test("player", &g->player), KD_OK);
    cr_assert_eq(kd_key_test("house", &g->house), KD_OK);
    cr_assert_eq(kd_key_test("stranger", &g->stranger), KD_OK);
    g->parts.keys[0] = g->player.pub;
    g->parts.keys[1] = g->house.pub;
    g->parts.count = 2;
    g->state = calloc(1, type->ops->state_size);
    cr_assert(g->state);
    json_t *params = type_test_parse(params_text);
    char why[256] = "";
    static const uint8_t nonce[KD_SECRET_NONCE_LEN] = {'c', 'h'}; /* fixed: the same draws each run */
    cr_assert_eq(
        kd_seat_commit_nonce(type, &g->house, CHANCE_STORE_ID, CHANCE_EPISODE, 1, nonce, params, why, sizeof why),
        KD_OK, "%s", why);
    cr_assert_eq(kd_seat_commit(type, &g->player, CHANCE_STORE_ID, CHANCE_EPISODE, 0, params, why, sizeof why),
                 KD_ERR_UNSUPPORTED);
    kd_buf raw, eff;
    kd_buf_init(&raw);
    kd_buf_init(&eff);
    cr_assert_eq(type->params_from_json(params, &raw, why, sizeof why), KD_OK, "%s", why);
    kd_reject rej = {{0}, {0}};
    cr_assert_eq(type->ops->resolve_params(NULL, raw.data, raw.len, &eff, &rej), KD_OK, "%s", rej.detail);
    kd_block_meta meta = {.daa = 1, .episode_id = CHANCE_EPISODE};
    cr_assert_eq(type->ops->init(g->state, &g->parts, eff.data, eff.len, &meta, &rej), KD_OK, "%s", rej.detail);
    cr_assert_eq(kd_seat_seed(type, &g->house, CHANCE_STORE_ID, CHANCE_EPISODE, 1, g->state, g->seed), KD_OK,
                 "the house finds its seed from the state's binding");
    kd_buf_fini(&raw);
    kd_buf_fini(&eff);
    json_decref(params);
}

void chance_free(chance_game *g) { free(g->state); }

kd_err chance_exec(chance_game *g, const char *text, const kd_key *signer, uint64_t daa, kd_reject *rej)
{
    const kd_episode_ops *ops = g->type->ops;
    json_t *j = type_test_parse(text);
    kd_buf cmd, again, st, ub, st2;
    kd_buf_init(&cmd);
    kd_buf_init(&again);
    kd_buf_init(&st);
    kd_buf_init(&ub);
    kd_buf_init(&st2);
    char why[256] = "";
    cr_assert_eq(g->type->command_from_json(j, KD_SEAT_NONE, &cmd, why, sizeof why), KD_OK, "%s: %s", text, why);
    json_t *back = g->type->command_to_json(cmd.data, cmd.len);
    cr_assert(back, "%s", text);
    cr_assert_eq(g->type->command_from_json(back, KD_SEAT_NONE, &again, why, sizeof why), KD_OK, "%s", why);
    cr_expect(again.len == cmd.len && memcmp(again.data, cmd.data, cmd.len) == 0, "command JSON round-trips: %s", text);
    void *before = malloc(ops->state_size), *dec = malloc(ops->state_size), *undo = malloc(ops->undo_size),
         *udec = malloc(ops->undo_size);
    cr_assert(before && dec && undo && udec);
    memcpy(before, g->state, ops->state_size);
    kd_block_meta meta = {.daa = daa, .episode_id = CHANCE_EPISODE};
    kd_err err = ops->execute(g->state, cmd.data, cmd.len, signer ? &signer->pub : NULL, &meta, undo, rej);
    if (err) {
        cr_expect(memcmp(before, g->state, ops->state_size) == 0, "a refused command changes nothing: %s", text);
    } else {
        cr_assert_eq(ops->encode_state(g->state, &st), KD_OK);
        cr_assert_eq(ops->encode_undo(undo, &ub), KD_OK);
        cr_assert_eq(ops->decode_state(st.data, st.len, dec), KD_OK, "the state decodes after %s", text);
        cr_expect(memcmp(dec, g->state, ops->state_size) == 0, "the state round-trips after %s", text);
        cr_assert_eq(ops->decode_undo(ub.data, ub.len, udec), KD_OK, "the undo decodes after %s", text);
        cr_assert_eq(ops->rollback(dec, udec), KD_OK);
        cr_expect(memcmp(dec, before, ops->state_size) == 0, "rollback is byte-exact: %s", text);
        kd_buf want;
        kd_buf_init(&want);
        cr_assert_eq(ops->encode_state(dec, &st2), KD_OK);
        cr_assert_eq(ops->encode_state(before, &want), KD_OK);
        cr_expect(st2.len == want.len && memcmp(st2.data, want.data, want.len) == 0,
                  "the rolled-back state encodes to the same bytes: %s", text);
        kd_buf_fini(&want);
    }
    free(before);
    free(dec);
    free(undo);
    free(udec);
    kd_buf_fini(&cmd);
    kd_buf_fini(&again);
    kd_buf_fini(&st);
    kd_buf_fini(&ub);
    kd_buf_fini(&st2);
    json_decref(back);
    json_decref(j);
    return err;
}

void chance_reveal_text(const uint8_t seed[KD_SECRET_SEED_LEN], uint32_t index, const char *ask, char *out, size_t len)
{
    uint8_t in[KD_FAIR_ASK_LEN], proof[KD_VRF_PROOF_LEN];
    char hex[2 * KD_VRF_PROOF_LEN + 1];
    cr_assert_eq(kd_hex_decode(ask, in, sizeof in), 0, "ask %s", ask);
    cr_assert_eq(kd_fair_prove(seed, KD_FAIR_DRAW_V3, CHANCE_EPISODE, index, in, proof), KD_OK);
    kd_hex_encode(proof, sizeof proof, hex);
    cr_assert_lt((size_t)snprintf(out, len, "{\"reveal\":\"%s\"}", hex), len);
}

void chance_ask_digest(const chance_game *g, const char *text, uint8_t out[32], char *hex)
{
    json_t *j = type_test_parse(text);
    kd_buf cmd;
    kd_buf_init(&cmd);
    char why[256] = "";
    cr_assert_eq(g->type->command_from_json(j, KD_SEAT_NONE, &cmd, why, sizeof why), KD_OK, "%s: %s", text, why);
    kd_fair_ask_digest(cmd.data, cmd.len, out);
    if (hex)
        kd_hex_encode(out, KD_FAIR_ASK_LEN, hex);
    kd_buf_fini(&cmd);
    json_decref(j);
}

kd_err chance_reveal(chance_game *g, uint64_t daa, kd_reject *rej)
{
    kd_buf cmd;
    kd_buf_init(&cmd);
    cr_assert_eq(g->type->secret_duty(g->state, 1, g->seed, &cmd), KD_OK, "the house owes a reveal");
    json_t *j = g->type->command_to_json(cmd.data, cmd.len);
    char *text = json_dumps(j, 0);
    kd_err err = chance_exec(g, text, &g->house, daa, rej);
    free(text);
    json_decref(j);
    kd_buf_fini(&cmd);
    return err;
}

void chance_expect_rule(chance_game *g, kd_err err, const kd_reject *rej, const char *code)
{
    cr_expect_eq(err, KD_ERR_RULE, "refused (%s): got %s", code, kd_err_str(err));
    cr_expect_str_eq(rej->code, code);
    cr_expect(type_test_is_rule_code(g->type, code), "%s is listed", code);
}

double chance_chi2_critical(unsigned df)
{
    const double z = 3.0902; /* the 0.999 quantile of the normal */
    double a = 2.0 / (9.0 * df);
    return df * pow(1 - a + z * sqrt(a), 3);
}
