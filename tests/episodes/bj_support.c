/* bj_support.c — see bj_support.h. */
#include "bj_support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "episodes/secrets.h"

const uint8_t BJ_STORE_ID[KD_STORE_ID_LEN] = {'b', 'l', 'a', 'c', 'k', 'j', 'a', 'c', 'k', '-', 't', 'e', 's', 't'};

void bj_setup(bj_fix *f, size_t players, const char *params_json)
{
    memset(f, 0, sizeof *f);
    f->check_undo = 1;
    f->rng = 42;
    cr_assert_eq(kd_key_test("bj-house", &f->house), KD_OK);
    cr_assert_eq(kd_key_test("bj-stranger", &f->stranger), KD_OK);
    kd_participants parts = {.count = players + 1};
    parts.keys[0] = f->house.pub;
    for (size_t i = 0; i < KD_BJ_MAX_PLAYERS; i++) {
        char name[32];
        snprintf(name, sizeof name, "bj-p%zu", i + 1);
        cr_assert_eq(kd_key_test(name, &f->players[i]), KD_OK);
        if (i < players)
            parts.keys[i + 1] = f->players[i].pub;
    }
    json_t *params = json_loads(params_json ? params_json : "{}", 0, NULL);
    cr_assert(params);
    char why[200] = "";
    static const uint8_t nonce[KD_SECRET_NONCE_LEN] = {'b', 'j'}; /* fixed: the same cards each run */
    cr_assert_eq(kd_seat_commit_nonce(&kd_blackjack_type, &f->house, BJ_STORE_ID, BJ_TEST_ID, KD_BJ_HOUSE, nonce,
                                      params, why, sizeof why),
                 KD_OK, "%s", why);
    kd_buf raw, eff;
    kd_buf_init(&raw);
    kd_buf_init(&eff);
    cr_assert_eq(kd_blackjack_type.params_from_json(params, &raw, why, sizeof why), KD_OK, "%s", why);
    json_decref(params);
    kd_reject rej = {0};
    cr_assert_eq(kd_bj_ops.resolve_params(NULL, raw.data, raw.len, &eff, &rej), KD_OK, "%s", rej.detail);
    uint8_t zero[KD_HASH_LEN] = {0};
    kd_block_meta meta = {.block_hash = zero, .tx_id = zero, .episode_id = BJ_TEST_ID};
    cr_assert_eq(kd_bj_ops.init(&f->state, &parts, eff.data, eff.len, &meta, &rej), KD_OK, "%s", rej.detail);
    cr_assert_eq(kd_seat_seed(&kd_blackjack_type, &f->house, BJ_STORE_ID, BJ_TEST_ID, KD_BJ_HOUSE, &f->state, f->seed),
                 KD_OK, "the house finds its seed from the state's binding");
    kd_buf_fini(&raw);
    kd_buf_fini(&eff);
}

void bj_teardown(bj_fix *f) { memset(f->seed, 0, sizeof f->seed); }

/* Encodes `s`, decodes it and expects the same bytes and struct. */
static void roundtrip(const kd_bj_state *s)
{
    kd_buf a, b;
    kd_buf_init(&a);
    kd_buf_init(&b);
    cr_assert_eq(kd_bj_ops.encode_state(s, &a), KD_OK);
    kd_bj_state d;
    cr_assert_eq(kd_bj_ops.decode_state(a.data, a.len, &d), KD_OK);
    cr_assert_eq(memcmp(&d, s, sizeof d), 0, "decode(encode(state)) == state");
    cr_assert_eq(kd_bj_ops.encode_state(&d, &b), KD_OK);
    cr_assert(a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
    kd_buf_fini(&a);
    kd_buf_fini(&b);
}

kd_err bj_exec(bj_fix *f, const kd_key *signer, const kd_bj_command *cmd, kd_reject *rej)
{
    kd_buf bytes;
    kd_buf_init(&bytes);
    cr_assert_eq(kd_bj_command_encode(cmd, &bytes), KD_OK);
    uint8_t zero[KD_HASH_LEN] = {0};
    kd_block_meta meta = {.block_hash = zero, .tx_id = zero, .episode_id = BJ_TEST_ID, .daa = f->daa};
    kd_bj_state before;
    memcpy(&before, &f->state, sizeof before);
    kd_bj_undo *undo = calloc(1, sizeof *undo);
    kd_reject local;
    if (!rej)
        rej = &local;
    memset(rej, 0, sizeof *rej);
    kd_err err = kd_bj_ops.execute(&f->state, bytes.data, bytes.len, signer ? &signer->pub : NULL, &meta, undo, rej);
    if (err) {
        cr_assert_eq(memcmp(&before, &f->state, sizeof before), 0, "a refusal leaves the state");
    } else if (f->check_undo) {
        kd_bj_state after;
        memcpy(&after, &f->state, sizeof after);
        roundtrip(&after);
        kd_buf ub;
        kd_buf_init(&ub);
        cr_assert_eq(kd_bj_ops.encode_undo(undo, &ub), KD_OK);
        kd_bj_undo *u2 = calloc(1, sizeof *u2);
        cr_assert_eq(kd_bj_ops.decode_undo(ub.data, ub.len, u2), KD_OK);
        cr_assert_eq(kd_bj_ops.rollback(&f->state, u2), KD_OK);
        cr_assert_eq(memcmp(&before, &f->state, sizeof before), 0, "rollback is byte-exact");
        cr_assert_eq(kd_bj_ops.rollback(&f->state, u2), KD_ERR_DECODE, "an undo of another command is refused");
        kd_bj_undo *u3 = calloc(1, sizeof *u3);
        cr_assert_eq(kd_bj_ops.execute(&f->state, bytes.data, bytes.len, signer ? &signer->pub : NULL, &meta, u3, rej),
                     KD_OK);
        cr_assert_eq(memcmp(&after, &f->state, sizeof after), 0, "re-applied, the same state");
        free(u2);
        free(u3);
        kd_buf_fini(&ub);
    }
    free(undo);
    kd_buf_fini(&bytes);
    return err;
}

kd_err bj_player(bj_fix *f, size_t seat, kd_bj_action action, uint32_t amount, kd_reject *rej)
{
    kd_bj_command c;
    memset(&c, 0, sizeof c);
    c.action = action;
    c.amount = amount;
    for (size_t i = 0; i < KD_FAIR_ENTROPY_LEN; i++)
        c.entropy[i] = (uint8_t)kd_type_rng_next(&f->rng);
    return bj_exec(f, &f->players[seat - 1], &c, rej);
}

kd_bj_command bj_reveal_of(const bj_fix *f, uint32_t index, const uint8_t entropy[KD_FAIR_ENTROPY_LEN])
{
    kd_bj_command c;
    memset(&c, 0, sizeof c);
    c.action = KD_BJ_CMD_REVEAL;
    cr_assert_eq(kd_fair_prove(f->seed, f->state.params.draw_input, BJ_TEST_ID, index, entropy, c.proof), KD_OK);
    return c;
}

kd_err bj_reveal(bj_fix *f, size_t seat, kd_reject *rej)
{
    int owed = kd_bj_owed(&f->state);
    static const uint8_t none[KD_FAIR_ENTROPY_LEN] = {0};
    if (seat && owed >= 0)
        cr_assert_eq(owed + 1, (int)seat, "the house owes player%d, not player%zu", owed + 1, seat);
    kd_bj_command c = bj_reveal_of(f, f->state.draws + 1, owed >= 0 ? f->state.players[owed].round.pending.ask : none);
    memcpy(f->last_proof, c.proof, KD_VRF_PROOF_LEN);
    return bj_exec(f, &f->house, &c, rej);
}

void bj_deal(bj_fix *f, size_t seat, uint8_t card)
{
    memset(f->state.shoe, 0, sizeof f->state.shoe);
    f->state.shoe[card] = 1;
    f->state.shoe_left = 1;
    kd_reject rej = {0};
    cr_assert_eq(bj_reveal(f, seat, &rej), KD_OK, "%s: %s", rej.code, rej.detail);
}

uint8_t bj_card(char rank)
{
    const char *ranks = "A23456789TJQK";
    const char *p = strchr(ranks, rank);
    cr_assert(p && rank);
    return (uint8_t)(p - ranks);
}

int type_rule_known(const char *code)
{
    for (const kd_rule_code *r = kd_bj_rule_codes; r->code; r++)
        if (strcmp(r->code, code) == 0)
            return 1;
    return 0;
}
