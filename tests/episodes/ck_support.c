/*
 * ck_support.c — see ck_support.h.
 */
#include "episodes/ck_support.h"

#include <criterion/criterion.h>
#include <string.h>

void ck_keys_make(ck_keys *k)
{
    memset(k, 0, sizeof *k);
    cr_assert_eq(kd_key_test("white", &k->white), KD_OK);
    cr_assert_eq(kd_key_test("black", &k->black), KD_OK);
    cr_assert_eq(kd_key_test("stranger", &k->stranger), KD_OK);
    k->parts.keys[0] = k->white.pub;
    k->parts.keys[1] = k->black.pub;
    k->parts.count = 2;
}

/* Creates a game from NewEpisode params bytes, as the engine does. */
static void new_game_params(kd_ck_state *s, const uint8_t *params, size_t len)
{
    ck_keys k;
    ck_keys_make(&k);
    kd_buf eff;
    kd_buf_init(&eff);
    kd_reject rej = {{0}, {0}};
    cr_assert_eq(kd_ck_ops.resolve_params(NULL, params, len, &eff, &rej), KD_OK, "%s", rej.detail);
    cr_assert_eq(kd_ck_ops.init(s, &k.parts, eff.data, eff.len, NULL, &rej), KD_OK, "%s", rej.detail);
    kd_buf_fini(&eff);
}

void ck_new_game(kd_ck_state *s) { new_game_params(s, NULL, 0); }

void ck_new_game_from(kd_ck_state *s, const char *start)
{
    kd_ck_position pos;
    char why[200] = "";
    cr_assert_eq(kd_ck_text_parse(start, &pos, why, sizeof why), KD_OK, "%s: %s", start, why);
    kd_buf params;
    kd_buf_init(&params);
    cr_assert_eq(kd_ck_params_encode(&pos, &params), KD_OK);
    new_game_params(s, params.data, params.len);
    kd_buf_fini(&params);
}

kd_err ck_exec_squares(kd_ck_state *s, const uint32_t *squares, size_t count, const kd_pubkey *signer, kd_ck_undo *undo,
                       kd_reject *rej)
{
    uint8_t cmd[KD_CK_COMMAND_MAX];
    size_t len = kd_ck_command_pack(squares, count, cmd);
    return kd_ck_ops.execute(s, cmd, len, signer, NULL, undo, rej);
}

kd_err ck_exec(kd_ck_state *s, const char *notation, const kd_pubkey *signer, kd_ck_undo *undo, kd_reject *rej)
{
    kd_ck_path path;
    char why[200] = "";
    cr_assert_eq(kd_ck_path_parse(notation, &path, why, sizeof why), KD_OK, "%s: %s", notation, why);
    uint32_t squares[KD_CK_PATH_MAX];
    for (size_t i = 0; i < path.count; i++)
        squares[i] = path.squares[i];
    return ck_exec_squares(s, squares, path.count, signer, undo, rej);
}

void ck_move(kd_ck_state *s, const char *notation)
{
    kd_ck_undo undo;
    kd_reject rej = {{0}, {0}};
    kd_err err = ck_exec(s, notation, &s->players[s->turn], &undo, &rej);
    cr_assert_eq(err, KD_OK, "move %s: %s %s (%s)", notation, kd_err_code(err), rej.code, rej.detail);
}

void ck_play(kd_ck_state *s, const char *const *notations, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        cr_assert_eq(s->status, KD_CK_IN_PROGRESS, "the game ended before move %zu", i + 1);
        ck_move(s, notations[i]);
    }
}

void ck_encode(const kd_ck_state *s, kd_buf *out)
{
    out->len = 0;
    cr_assert_eq(kd_ck_state_encode(s, out), KD_OK);
}

void ck_text(const kd_ck_state *s, char out[KD_CK_TEXT_LEN])
{
    kd_ck_position pos;
    memcpy(pos.board, s->board, sizeof pos.board);
    pos.turn = s->turn;
    kd_ck_text_format(&pos, out);
}
