/* sb_support.c — see sb_support.h. */
#include "sb_support.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

const uint8_t SB_STORE_ID[KD_STORE_ID_LEN] = {'s', 'e', 'a', 'b', 'a', 't', 't', 'l', 'e', '-', 't', 'e', 's', 't'};

void sb_new_game(sb_game *g, const kd_sb_board *boards)
{
    memset(g, 0, sizeof *g);
    cr_assert_eq(kd_key_test("blue", &g->key[0]), KD_OK);
    cr_assert_eq(kd_key_test("red", &g->key[1]), KD_OK);
    cr_assert_eq(kd_key_test("stranger", &g->stranger), KD_OK);
    kd_sb_params p;
    memset(&p, 0, sizeof p);
    for (int s = 0; s < 2; s++) {
        cr_assert_eq(kd_secret_binding_fresh(&g->key[s], SB_STORE_ID, KD_SB_TYPE_NAME, SB_EPISODE, s, g->binding[s]),
                     KD_OK);
        kd_secret_seed(&g->key[s], KD_SB_TYPE_NAME, SB_EPISODE, s, g->binding[s], g->seed[s]);
        if (boards)
            g->board[s] = boards[s];
        else
            kd_sb_board_from_seed(g->seed[s], &g->board[s]);
        kd_sb_root(&g->board[s], p.roots[s]);
        memcpy(p.bindings[s], g->binding[s], KD_SECRET_BINDING_LEN);
    }
    p.timeout = SB_TIMEOUT;
    kd_buf params, eff;
    kd_buf_init(&params);
    kd_buf_init(&eff);
    kd_reject rej;
    cr_assert_eq(kd_sb_params_encode(&p, &params), KD_OK);
    cr_assert_eq(kd_sb_ops.resolve_params(NULL, params.data, params.len, &eff, &rej), KD_OK);
    kd_participants parts = {.count = 2};
    parts.keys[0] = g->key[0].pub;
    parts.keys[1] = g->key[1].pub;
    uint8_t zero[KD_HASH_LEN] = {0};
    kd_block_meta meta = {.block_hash = zero, .tx_id = zero, .episode_id = SB_EPISODE};
    cr_assert_eq(kd_sb_ops.init(&g->state, &parts, eff.data, eff.len, &meta, &rej), KD_OK, "%s", rej.detail);
    g->daa = 1000;
    kd_buf_fini(&params);
    kd_buf_fini(&eff);
}

static void encode(const kd_sb_state *s, kd_buf *out)
{
    out->len = 0;
    cr_assert_eq(kd_sb_state_encode(s, out), KD_OK);
}

kd_err sb_exec(sb_game *g, const kd_buf *cmd, const kd_pubkey *signer, kd_reject *rej)
{
    uint8_t zero[KD_HASH_LEN] = {0};
    kd_block_meta meta = {.block_hash = zero, .tx_id = zero, .daa = g->daa, .episode_id = SB_EPISODE};
    kd_sb_state before = g->state;
    kd_sb_undo undo;
    kd_err err = kd_sb_ops.execute(&g->state, cmd->data, cmd->len, signer, &meta, &undo, rej);
    if (err) {
        cr_assert_eq(memcmp(&before, &g->state, sizeof before), 0, "a refused command left the state untouched");
        return err;
    }
    kd_buf a, b;
    kd_buf_init(&a);
    kd_buf_init(&b);
    kd_sb_state after = g->state, s = g->state;
    /* the undo survives its encoding, the rollback is byte-exact */
    cr_assert_eq(kd_sb_undo_encode(&undo, &a), KD_OK);
    kd_sb_undo undo2;
    cr_assert_eq(kd_sb_undo_decode(a.data, a.len, &undo2), KD_OK);
    cr_assert_eq(kd_sb_ops.rollback(&s, &undo2), KD_OK);
    cr_assert_eq(memcmp(&s, &before, sizeof s), 0, "rollback restores the exact state");
    /* a rollback record of another command is refused */
    kd_sb_state again = after;
    cr_assert_eq(kd_sb_ops.rollback(&s, &undo2), KD_ERR_DECODE, "undo applied twice");
    kd_sb_undo redo;
    kd_reject r2;
    cr_assert_eq(kd_sb_ops.execute(&s, cmd->data, cmd->len, signer, &meta, &redo, &r2), KD_OK);
    cr_assert_eq(memcmp(&s, &again, sizeof s), 0, "re-applied, the same state");
    encode(&after, &a);
    cr_assert_eq(kd_sb_state_decode(a.data, a.len, &s), KD_OK);
    encode(&s, &b);
    cr_assert(a.len == b.len && memcmp(a.data, b.data, a.len) == 0, "state encoding round-trips");
    cr_assert_eq(memcmp(&s, &after, sizeof s), 0);
    kd_buf_fini(&a);
    kd_buf_fini(&b);
    return KD_OK;
}

kd_err sb_simple(sb_game *g, int seat, kd_sb_kind kind, uint32_t cell, kd_reject *rej)
{
    kd_sb_command c;
    memset(&c, 0, sizeof c);
    c.kind = kind;
    c.cell = cell;
    kd_buf b;
    kd_buf_init(&b);
    cr_assert_eq(kd_sb_command_encode(&c, &b), KD_OK);
    kd_err err = sb_exec(g, &b, &g->key[seat].pub, rej);
    kd_buf_fini(&b);
    return err;
}

void sb_duty_bytes(const sb_game *g, int seat, kd_buf *out)
{
    kd_sb_command *c = calloc(1, sizeof *c);
    cr_assert(c);
    const kd_sb_state *s = &g->state;
    if (s->phase == KD_SB_PLAY) {
        uint32_t cell = s->pending != KD_SB_NO_CELL ? s->pending : 0; /* cell 0 when none is owed */
        c->kind = KD_SB_ANSWER;
        c->cell = cell;
        c->content = g->board[seat].contents[cell];
        memcpy(c->salt, g->board[seat].salts[cell], KD_SB_SALT_LEN);
        kd_sb_path(&g->board[seat], cell, c->path);
    } else {
        c->kind = KD_SB_REVEAL_BOARD;
        memcpy(c->contents, g->board[seat].contents, KD_SB_CELLS);
        memcpy(c->salts, g->board[seat].salts, sizeof c->salts);
    }
    out->len = 0;
    cr_assert_eq(kd_sb_command_encode(c, out), KD_OK);
    free(c);
}

kd_err sb_pay(sb_game *g, int seat, kd_reject *rej)
{
    kd_buf b;
    kd_buf_init(&b);
    sb_duty_bytes(g, seat, &b);
    kd_err err = sb_exec(g, &b, &g->key[seat].pub, rej);
    kd_buf_fini(&b);
    return err;
}
