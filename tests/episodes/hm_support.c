/* hm_support.c — see hm_support.h. */
#include "hm_support.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

const uint8_t HM_STORE_ID[KD_STORE_ID_LEN] = {'h', 'o', 'l', 'd', 'e', 'm', '-', 't', 'e', 's', 't'};

void hm_new(hm_game *g, const kd_hm_params *params)
{
    memset(g, 0, sizeof *g);
    cr_assert_eq(kd_key_test("hm0", &g->key[0]), KD_OK);
    cr_assert_eq(kd_key_test("hm1", &g->key[1]), KD_OK);
    cr_assert_eq(kd_key_test("stranger", &g->stranger), KD_OK);
    kd_hm_params p;
    memset(&p, 0, sizeof p);
    if (params)
        p = *params;
    else
        p.timeout = 100;
    for (int s = 0; s < 2; s++) {
        cr_assert_eq(kd_secret_binding_fresh(&g->key[s], HM_STORE_ID, KD_HM_TYPE_NAME, HM_EPISODE, s, p.bindings[s]),
                     KD_OK);
        kd_secret_seed(&g->key[s], KD_HM_TYPE_NAME, HM_EPISODE, s, p.bindings[s], g->seed[s]);
    }
    kd_buf wire, eff;
    kd_buf_init(&wire);
    kd_buf_init(&eff);
    kd_reject rej = {0};
    if (p.protocol == 1) { /* a match from before protocol 2: its effective params, as its log recorded them */
        cr_assert_eq(kd_hm_params_resolve(&p, &rej), KD_OK, "%s", rej.detail);
        cr_assert_eq(kd_hm_params_encode(&p, &eff), KD_OK);
    } else {
        cr_assert_eq(kd_hm_params_encode(&p, &wire), KD_OK);
        cr_assert_eq(kd_hm_ops.resolve_params(NULL, wire.data, wire.len, &eff, &rej), KD_OK, "%s", rej.detail);
    }
    kd_participants parts = {.count = 2};
    parts.keys[0] = g->key[0].pub;
    parts.keys[1] = g->key[1].pub;
    uint8_t zero[KD_HASH_LEN] = {0};
    kd_block_meta meta = {.block_hash = zero, .tx_id = zero, .daa = 1000, .episode_id = HM_EPISODE};
    cr_assert_eq(kd_hm_ops.init(&g->state, &parts, eff.data, eff.len, &meta, &rej), KD_OK, "%s", rej.detail);
    g->daa = 1001;
    kd_buf_fini(&wire);
    kd_buf_fini(&eff);
}

static void encode(const kd_hm_state *s, kd_buf *out)
{
    out->len = 0;
    cr_assert_eq(kd_hm_state_encode(s, out), KD_OK);
}

kd_err hm_exec(hm_game *g, const kd_buf *cmd, const kd_pubkey *signer, kd_reject *rej)
{
    uint8_t zero[KD_HASH_LEN] = {0};
    kd_block_meta meta = {.block_hash = zero, .tx_id = zero, .daa = g->daa++, .episode_id = HM_EPISODE};
    kd_hm_state *before = malloc(sizeof *before), *s = malloc(sizeof *s), *after = malloc(sizeof *after);
    kd_hm_undo *undo = malloc(sizeof *undo), *undo2 = malloc(sizeof *undo2);
    cr_assert(before && s && after && undo && undo2);
    kd_buf a, b;
    kd_buf_init(&a);
    kd_buf_init(&b);
    *before = g->state;
    encode(before, &b);
    kd_err err = kd_hm_ops.execute(&g->state, cmd->data, cmd->len, signer, &meta, undo, rej);
    if (err) {
        encode(&g->state, &a);
        cr_assert(a.len == b.len && memcmp(a.data, b.data, a.len) == 0, "a refused command left the state untouched");
        goto done;
    }
    *after = g->state;
    *s = g->state;
    a.len = 0;
    cr_assert_eq(kd_hm_undo_encode(undo, &a), KD_OK);
    cr_assert_eq(kd_hm_undo_decode(a.data, a.len, undo2), KD_OK);
    cr_assert_eq(kd_hm_ops.rollback(s, undo2), KD_OK);
    encode(s, &a);
    cr_assert(a.len == b.len && memcmp(a.data, b.data, a.len) == 0, "rollback restores the exact bytes");
    cr_assert_eq(kd_hm_ops.rollback(s, undo2), KD_ERR_DECODE, "an undo applied twice is refused");
    kd_reject r2;
    cr_assert_eq(kd_hm_ops.execute(s, cmd->data, cmd->len, signer, &meta, undo, &r2), KD_OK);
    encode(s, &a);
    encode(after, &b);
    cr_assert(a.len == b.len && memcmp(a.data, b.data, a.len) == 0, "re-applied, the same state");
    cr_assert_eq(kd_hm_state_decode(a.data, a.len, s), KD_OK, "the state decodes");
    encode(s, &b);
    cr_assert(a.len == b.len && memcmp(a.data, b.data, a.len) == 0, "the state encoding round-trips");
done:
    kd_buf_fini(&a);
    kd_buf_fini(&b);
    free(before);
    free(s);
    free(after);
    free(undo);
    free(undo2);
    return err;
}

kd_err hm_cmd(hm_game *g, int seat, const kd_hm_command *c, kd_reject *rej)
{
    kd_buf b;
    kd_buf_init(&b);
    cr_assert_eq(kd_hm_command_encode(c, &b), KD_OK);
    kd_err err = hm_exec(g, &b, &g->key[seat].pub, rej);
    kd_buf_fini(&b);
    return err;
}

kd_err hm_bet(hm_game *g, int seat, kd_hm_kind kind, uint32_t to, kd_reject *rej)
{
    kd_hm_command c;
    memset(&c, 0, sizeof c);
    c.kind = kind;
    c.to = to;
    return hm_cmd(g, seat, &c, rej);
}

void hm_duty_command(const hm_game *g, int seat, kd_hm_command *c)
{
    kd_buf b;
    kd_buf_init(&b);
    cr_assert_eq(kd_hm_duty(&g->state, seat, g->seed[seat], &b), KD_OK, "seat %d owes a duty", seat);
    kd_reject rej;
    cr_assert_eq(kd_hm_command_decode(b.data, b.len, c, &rej), KD_OK);
    kd_buf_fini(&b);
}

unsigned hm_duties(hm_game *g)
{
    unsigned n = 0;
    uint32_t hand = g->state.hand;
    for (int guard = 0; guard < 64; guard++) {
        int paid = 0;
        if (g->state.hand != hand)
            return n; /* the hand was settled: the next one waits */
        for (int seat = 0; seat < 2; seat++) {
            kd_buf b;
            kd_buf_init(&b);
            kd_err err = kd_hm_duty(&g->state, seat, g->seed[seat], &b);
            if (err == KD_OK) {
                kd_reject rej = {0};
                cr_assert_eq(hm_exec(g, &b, &g->key[seat].pub, &rej), KD_OK, "seat %d's duty: %s %s", seat, rej.code,
                             rej.detail);
                paid = 1;
                n++;
            } else
                cr_assert_eq(err, KD_ERR_NO_MOVE);
            kd_buf_fini(&b);
        }
        if (!paid)
            return n;
    }
    cr_assert_fail("duties did not settle");
    return n;
}

void hm_expect_rule(kd_err err, const kd_reject *rej, const char *code)
{
    cr_expect_eq(err, KD_ERR_RULE, "want %s, got %s", code, kd_err_str(err));
    cr_expect_str_eq(rej->code, code, "%s", rej->detail);
}
