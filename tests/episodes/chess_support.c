/*
 * chess_support.c — see chess_support.h.
 */
#include "episodes/chess_support.h"

#include <criterion/criterion.h>
#include <string.h>

void chess_keys_make(chess_keys *k)
{
    memset(k, 0, sizeof *k);
    cr_assert_eq(kd_key_test("white", &k->white), KD_OK);
    cr_assert_eq(kd_key_test("black", &k->black), KD_OK);
    cr_assert_eq(kd_key_test("stranger", &k->stranger), KD_OK);
    k->parts.keys[0] = k->white.pub;
    k->parts.keys[1] = k->black.pub;
    k->parts.count = 2;
}

void chess_new_game(kd_chess_state *s, const char *fen)
{
    chess_keys k;
    chess_keys_make(&k);
    kd_buf params, eff;
    kd_buf_init(&params);
    kd_buf_init(&eff);
    kd_reject rej = {{0}, {0}};
    if (fen)
        cr_assert_eq(kd_chess_params_encode(fen, &params), KD_OK);
    cr_assert_eq(kd_chess_ops.resolve_params(NULL, params.data, params.len, &eff, &rej), KD_OK, "%s: %s", fen,
                 rej.detail);
    cr_assert_eq(kd_chess_ops.init(s, &k.parts, eff.data, eff.len, NULL, &rej), KD_OK, "%s", rej.detail);
    kd_buf_fini(&params);
    kd_buf_fini(&eff);
}

kd_err chess_exec(kd_chess_state *s, const char *uci, const kd_pubkey *signer, kd_chess_undo *undo, kd_reject *rej)
{
    int from = 0, to = 0, promo = 0;
    cr_assert_eq(kd_chess_uci_parse(uci, &from, &to, &promo), 0, "test move %s is UCI", uci);
    uint8_t cmd[KD_CHESS_COMMAND_MAX];
    size_t len = kd_chess_command_pack((uint32_t)from, (uint32_t)to, (uint32_t)promo, cmd);
    return kd_chess_ops.execute(s, cmd, len, signer, NULL, undo, rej);
}

void chess_play(kd_chess_state *s, const char *moves)
{
    char copy[1024], *save = NULL;
    cr_assert_lt(strlen(moves), sizeof copy);
    memcpy(copy, moves, strlen(moves) + 1);
    for (char *m = strtok_r(copy, " ", &save); m; m = strtok_r(NULL, " ", &save)) {
        kd_chess_undo undo;
        kd_reject rej = {{0}, {0}};
        kd_err err = chess_exec(s, m, &s->players[s->side], &undo, &rej);
        cr_assert_eq(err, KD_OK, "move %s: %s (%s)", m, kd_err_code(err), rej.detail);
    }
}

const char *chess_fen(const kd_chess_state *s, char out[KD_CHESS_FEN_MAX])
{
    kd_chess_to_fen(s, out);
    return out;
}

void chess_encode(const kd_chess_state *s, kd_buf *out)
{
    out->len = 0;
    cr_assert_eq(kd_chess_state_encode(s, out), KD_OK);
}

uint64_t chess_perft(kd_chess_state *s, unsigned depth)
{
    if (depth == 0)
        return 1;
    kd_chess_move moves[KD_CHESS_MOVES_MAX];
    int n = kd_chess_status_of(s) == KD_CHESS_IN_PROGRESS ? kd_chess_legal_moves(s, moves) : 0;
    if (depth == 1)
        return (uint64_t)n;
    uint64_t total = 0;
    kd_chess_state before;
    memcpy(&before, s, sizeof before);
    for (int i = 0; i < n; i++) {
        kd_chess_undo undo;
        kd_chess_make(s, moves[i], &undo);
        total += chess_perft(s, depth - 1);
        cr_assert_eq(kd_chess_unmake(s, &undo), KD_OK);
        cr_assert_eq(memcmp(s, &before, sizeof before), 0, "unmake restores the bytes");
    }
    return total;
}
