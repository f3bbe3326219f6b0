/*
 * fiar_support.c — see fiar_support.h.
 */
#include "episodes/fiar_support.h"

#include <criterion/criterion.h>
#include <string.h>

void fiar_keys_make(fiar_keys *k)
{
    memset(k, 0, sizeof *k);
    cr_assert_eq(kd_key_test("red", &k->red), KD_OK);
    cr_assert_eq(kd_key_test("yellow", &k->yellow), KD_OK);
    cr_assert_eq(kd_key_test("stranger", &k->stranger), KD_OK);
    k->parts.keys[0] = k->red.pub;
    k->parts.keys[1] = k->yellow.pub;
    k->parts.count = 2;
}

void fiar_new_game(kd_fiar_state *s)
{
    fiar_keys k;
    fiar_keys_make(&k);
    kd_buf eff;
    kd_buf_init(&eff);
    kd_reject rej = {{0}, {0}};
    cr_assert_eq(kd_fiar_ops.resolve_params(NULL, NULL, 0, &eff, &rej), KD_OK, "%s", rej.detail);
    cr_assert_eq(eff.len, 0);
    cr_assert_eq(kd_fiar_ops.init(s, &k.parts, eff.data, eff.len, NULL, &rej), KD_OK, "%s", rej.detail);
    kd_buf_fini(&eff);
}

kd_err fiar_exec(kd_fiar_state *s, uint32_t column, const kd_pubkey *signer, kd_fiar_undo *undo, kd_reject *rej)
{
    kd_buf cmd;
    kd_buf_init(&cmd);
    cr_assert_eq(kd_fiar_command_encode(column, &cmd), KD_OK);
    kd_err err = kd_fiar_ops.execute(s, cmd.data, cmd.len, signer, NULL, undo, rej);
    kd_buf_fini(&cmd);
    return err;
}

void fiar_drop(kd_fiar_state *s, uint32_t column)
{
    kd_fiar_undo undo;
    kd_reject rej = {{0}, {0}};
    kd_err err = fiar_exec(s, column, &s->players[s->turn], &undo, &rej);
    cr_assert_eq(err, KD_OK, "drop %u: %s (%s)", (unsigned)column, kd_err_code(err), rej.detail);
}

void fiar_play(kd_fiar_state *s, const int *cols, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        cr_assert_eq(s->status, KD_FIAR_IN_PROGRESS, "the game ended before move %zu", i + 1);
        fiar_drop(s, (uint32_t)cols[i]);
    }
}

void fiar_encode(const kd_fiar_state *s, kd_buf *out)
{
    out->len = 0;
    cr_assert_eq(kd_fiar_state_encode(s, out), KD_OK);
}
