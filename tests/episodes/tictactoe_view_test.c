/*
 * tictactoe_view_test.c — what tic-tac-toe shows the outside: the enriched
 * view (recent moves oldest to newest, the mark removed next), legal moves,
 * the rule text, the wire helpers for commands and params, and the parsing
 * of the engine default from KDAPP_TTT_STRESS / KDAPP_TTT_MAX_SYMBOLS.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <string.h>

#include "episodes/ttt_support.h"

/* -------------------------------------------------------------------- view */

Test(ttt_view, stress_recent_moves_and_next_to_remove)
{
    kd_ttt_state s;
    kd_ttt_view v;
    ttt_new(&s, 3);
    ttt_play(&s, "00 11");
    kd_ttt_view_of(&s, &v);
    cr_expect_eq(v.cap, 3);
    cr_expect_eq(v.recent_len, 2);
    cr_expect_eq(v.has_next_to_remove, 0, "the window is not full yet");
    cr_expect_eq(v.current, KD_TTT_X);
    cr_expect_eq(v.move_count, 2);

    ttt_play(&s, "22 02");
    kd_ttt_view_of(&s, &v);
    static const kd_ttt_cell recent[3] = {{1, 1, KD_TTT_O}, {2, 2, KD_TTT_X}, {0, 2, KD_TTT_O}};
    cr_expect_eq(v.recent_len, 3);
    cr_expect_eq(memcmp(v.recent, recent, sizeof recent), 0, "oldest -> newest");
    cr_expect_eq(v.has_next_to_remove, 1);
    cr_expect_eq(v.next_to_remove.row, 1);
    cr_expect_eq(v.next_to_remove.col, 1);
    cr_expect_eq(v.next_to_remove.symbol, KD_TTT_O);
    cr_expect_eq(v.board[0][0], KD_TTT_EMPTY);
    cr_expect_eq(v.board[0][2], KD_TTT_O);
    cr_expect_eq(v.status, KD_TTT_IN_PROGRESS);
    cr_expect_eq(v.move_count, 4);
}

Test(ttt_view, classic_has_no_recent_moves)
{
    kd_ttt_state s;
    kd_ttt_view v;
    ttt_new(&s, 0);
    ttt_play(&s, "00 11 22 02 20 10");
    kd_ttt_view_of(&s, &v);
    cr_expect_eq(v.cap, 0);
    cr_expect_eq(v.recent_len, 0);
    cr_expect_eq(v.has_next_to_remove, 0);
    kd_ttt_cell zero = {0, 0, 0};
    cr_expect_eq(memcmp(&v.next_to_remove, &zero, sizeof zero), 0);
    cr_expect_eq(memcmp(v.board, s.board, sizeof v.board), 0);
    cr_expect_eq(v.move_count, 6);
}

Test(ttt_view, legal_moves)
{
    kd_ttt_state s;
    kd_ttt_cell moves[9];
    ttt_new(&s, 0);
    cr_expect_eq(kd_ttt_legal_moves(&s, moves), 9);
    cr_expect_eq(moves[0].symbol, KD_TTT_X);

    ttt_play(&s, "11");
    size_t n = kd_ttt_legal_moves(&s, moves);
    cr_expect_eq(n, 8);
    for (size_t i = 0; i < n; i++) {
        cr_expect(!(moves[i].row == 1 && moves[i].col == 1));
        cr_expect_eq(moves[i].symbol, KD_TTT_O);
    }

    ttt_play(&s, "00 01 22 21"); /* X wins down column 1 */
    cr_assert_eq(s.status, KD_TTT_X_WON);
    cr_expect_eq(kd_ttt_legal_moves(&s, moves), 0, "no moves once the game is over");

    /* Stress: the oldest mark's cell is not playable. */
    ttt_new(&s, 2);
    ttt_play(&s, "00 11");
    n = kd_ttt_legal_moves(&s, moves);
    cr_expect_eq(n, 7);
    for (size_t i = 0; i < n; i++)
        cr_expect(!(moves[i].row == 0 && moves[i].col == 0));
}

Test(ttt_view, rule_text)
{
    char text[200];
    kd_ttt_rule_text(6, text, sizeof text);
    cr_expect_str_eq(text, "The board shows at most 6 symbols; before your move, the oldest "
                           "symbol is removed.");
    kd_ttt_rule_text(1, text, sizeof text);
    cr_expect(strstr(text, "at most 1 symbol;") != NULL, "%s", text);
    for (uint8_t cap = 1; cap <= KD_TTT_MAX_CAP; cap++) {
        char want[8];
        kd_ttt_rule_text(cap, text, sizeof text);
        snprintf(want, sizeof want, "%u", cap);
        cr_expect(strstr(text, want) != NULL, "cap %u: %s", cap, text);
    }
    kd_ttt_rule_text(0, text, sizeof text);
    cr_expect_str_eq(text, "Classic tic-tac-toe: nine cells, no removals; a full board without a "
                           "line of three is a draw.");
    kd_ttt_rule_text(6, text, 10);
    cr_expect_eq(strlen(text), 9, "truncated, NUL-terminated");
    cr_expect_eq(kd_ttt_symbol_char(KD_TTT_X), 'X');
    cr_expect_eq(kd_ttt_symbol_char(KD_TTT_O), 'O');
    cr_expect_eq(kd_ttt_symbol_char(KD_TTT_EMPTY), '.');
    cr_expect_eq(kd_ttt_symbol_char(7), '.');
}

/* -------------------------------------------------------------------- wire */

Test(ttt_wire, move_round_trip)
{
    for (uint8_t player = 0; player < 2; player++)
        for (uint8_t row = 0; row < 4; row++)
            for (uint8_t col = 0; col < 4; col++) {
                kd_buf b;
                kd_ttt_move m;
                kd_reject rej = {{0}, {0}};
                kd_buf_init(&b);
                cr_assert_eq(kd_ttt_move_encode(row, col, player, &b), KD_OK);
                cr_assert_eq(kd_ttt_command_decode(b.data, b.len, &m, &rej), KD_OK, "%s", rej.detail);
                cr_expect_eq(m.row, row);
                cr_expect_eq(m.col, col);
                cr_expect_eq(m.player, player);
                kd_buf_fini(&b);
            }
    kd_buf b;
    kd_ttt_move m;
    kd_reject rej = {{0}, {0}};
    kd_buf_init(&b);
    cr_assert_eq(kd_ttt_move_encode(0, 0, 2, &b), KD_OK);
    cr_expect_eq(kd_ttt_command_decode(b.data, b.len, &m, &rej), KD_ERR_BAD_COMMAND);
    cr_expect(strstr(rej.detail, "got 2") != NULL, "%s", rej.detail);
    kd_buf_fini(&b);
}

Test(ttt_wire, params_round_trip)
{
    static const uint32_t caps[] = {0, 1, 6, 8, 9, 1000, UINT32_MAX};
    for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
        kd_buf b;
        uint32_t cap = 12345;
        kd_reject rej = {{0}, {0}};
        kd_buf_init(&b);
        cr_assert_eq(kd_ttt_params_encode(caps[i], &b), KD_OK);
        if (caps[i] == 0)
            cr_expect_eq(b.len, 0, "cap 0 is the empty message");
        cr_assert_eq(kd_ttt_params_decode(b.data, b.len, &cap, &rej), KD_OK);
        cr_expect_eq(cap, caps[i]);
        kd_buf_fini(&b);
    }
    cr_expect_eq(kd_ttt_cap_resolve(0, NULL), 0);
    kd_ttt_config config = {.default_cap = 6};
    cr_expect_eq(kd_ttt_cap_resolve(0, &config), 6);
    cr_expect_eq(kd_ttt_cap_resolve(2, &config), 2);
    cr_expect_eq(kd_ttt_cap_resolve(9, &config), 0);
}

/* ------------------------------------------------------------------ config */

/* Parameters are copied into each test process (which may be a fresh exec
 * of the binary), so they hold arrays, never pointers; UNSET stands for NULL. */
#define UNSET "<unset>"
typedef struct {
    char stress[32];
    char max_symbols[32];
    kd_err expect;
    uint8_t cap;
    char variable[32]; /* named in the message on error */
} config_case;

static const char *value_of(const char *v) { return strcmp(v, UNSET) == 0 ? NULL : v; }

ParameterizedTestParameters(ttt_config, parse)
{
    static config_case cases[] = {
        {UNSET, UNSET, KD_OK, 0, ""},
        {"1", UNSET, KD_OK, 6, ""},
        {"true", UNSET, KD_OK, 6, ""},
        {"YES", UNSET, KD_OK, 6, ""},
        {"True", UNSET, KD_OK, 6, ""},
        {"0", UNSET, KD_OK, 0, ""},
        {"false", UNSET, KD_OK, 0, ""},
        {"No", UNSET, KD_OK, 0, ""},
        {"", UNSET, KD_OK, 0, ""},
        {UNSET, "1", KD_OK, 1, ""},
        {UNSET, "4", KD_OK, 4, ""},
        {UNSET, "8", KD_OK, 8, ""},
        {UNSET, "9", KD_OK, 0, ""},
        {UNSET, "007", KD_OK, 7, ""},
        {UNSET, "99999999999999999999999", KD_OK, 0, ""},
        {UNSET, "", KD_OK, 0, ""},
        {"1", "3", KD_OK, 3, ""},
        {"0", "5", KD_OK, 5, ""},
        {"yes", "12", KD_OK, 0, ""},
        {"1", "", KD_OK, 6, ""},
        {"2", UNSET, KD_ERR_INVALID_ARG, 0, "KDAPP_TTT_STRESS"},
        {"on", UNSET, KD_ERR_INVALID_ARG, 0, "KDAPP_TTT_STRESS"},
        {" 1", UNSET, KD_ERR_INVALID_ARG, 0, "KDAPP_TTT_STRESS"},
        {"maybe", "4", KD_ERR_INVALID_ARG, 0, "KDAPP_TTT_STRESS"},
        {UNSET, "0", KD_ERR_INVALID_ARG, 0, "KDAPP_TTT_MAX_SYMBOLS"},
        {UNSET, "-3", KD_ERR_INVALID_ARG, 0, "KDAPP_TTT_MAX_SYMBOLS"},
        {UNSET, "six", KD_ERR_INVALID_ARG, 0, "KDAPP_TTT_MAX_SYMBOLS"},
        {UNSET, "6 ", KD_ERR_INVALID_ARG, 0, "KDAPP_TTT_MAX_SYMBOLS"},
        {UNSET, "4x", KD_ERR_INVALID_ARG, 0, "KDAPP_TTT_MAX_SYMBOLS"},
        {"1", "2.5", KD_ERR_INVALID_ARG, 0, "KDAPP_TTT_MAX_SYMBOLS"},
    };
    return cr_make_param_array(config_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(config_case *c, ttt_config, parse)
{
    kd_ttt_config config = {.default_cap = 77};
    char why[256] = "";
    kd_err err = kd_ttt_config_parse(value_of(c->stress), value_of(c->max_symbols), &config, why, sizeof why);
    cr_expect_eq(err, c->expect, "STRESS=%s MAX_SYMBOLS=%s: %s (%s)", c->stress, c->max_symbols, kd_err_code(err), why);
    if (c->expect == KD_OK) {
        cr_expect_eq(config.default_cap, c->cap);
        return;
    }
    cr_expect_eq(config.default_cap, 77, "out is untouched on error");
    cr_expect(strstr(why, c->variable) != NULL, "message names the variable: %s", why);
    const char *bad = strcmp(c->variable, "KDAPP_TTT_STRESS") == 0 ? c->stress : c->max_symbols;
    cr_expect(strstr(why, bad) != NULL, "message quotes the value: %s", why);
    if (strcmp(c->variable, "KDAPP_TTT_STRESS") == 0)
        cr_expect(strstr(why, "1, true or yes") != NULL && strstr(why, "0, false, no") != NULL,
                  "message gives the valid values: %s", why);
    else
        cr_expect(strstr(why, "1 to 8") != NULL && strstr(why, "9 or more") != NULL,
                  "message gives the valid range: %s", why);
}

Test(ttt_config, long_values_are_cut_and_why_may_be_null)
{
    kd_ttt_config config;
    char why[256];
    char big[200];
    memset(big, 'z', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    cr_expect_eq(kd_ttt_config_parse(big, NULL, &config, why, sizeof why), KD_ERR_INVALID_ARG);
    cr_expect(strstr(why, "...") != NULL, "%s", why);
    cr_expect_eq(kd_ttt_config_parse(NULL, "x", &config, NULL, 0), KD_ERR_INVALID_ARG);
}
