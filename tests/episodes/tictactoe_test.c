/*
 * tictactoe_test.c — the rules of tic-tac-toe: the stress-mode plan
 * (eviction and its rollback), classic mode, every rejection in its
 * documented order with the state untouched, occupancy before eviction,
 * wins and draws, participants and params.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <string.h>

#include "episodes/ttt_support.h"

/* Encodes `s` and compares with `before`. */
static void expect_encoding(const kd_ttt_state *s, const kd_buf *before)
{
    kd_buf now;
    kd_buf_init(&now);
    ttt_encode(s, &now);
    cr_expect(now.len == before->len && memcmp(now.data, before->data, now.len) == 0, "state encoding changed");
    kd_buf_fini(&now);
}

/* ------------------------------------------------------- stress-mode plan */

/* Six moves without a line: X 00 02 10, O 01 11 20. */
#define SIX "00 01 02 11 10 20"

Test(ttt_stress, seventh_move_clears_oldest_and_rollback_restores_it)
{
    kd_ttt_state s, before;
    kd_ttt_undo undo;
    kd_reject rej = {{0}, {0}};
    ttt_new(&s, 6);
    ttt_play(&s, SIX);
    cr_assert_eq(s.history_len, 6);
    before = s;

    cr_assert_eq(ttt_move(&s, 2, 2, &undo, &rej), KD_OK, "%s", rej.detail);
    cr_expect_eq(s.board[0][0], KD_TTT_EMPTY, "the oldest mark (0,0) is cleared");
    cr_expect_eq(s.board[2][2], KD_TTT_X);
    cr_expect_eq(s.history_len, 6);
    static const kd_ttt_cell after[6] = {{0, 1, KD_TTT_O}, {0, 2, KD_TTT_X}, {1, 1, KD_TTT_O},
                                         {1, 0, KD_TTT_X}, {2, 0, KD_TTT_O}, {2, 2, KD_TTT_X}};
    cr_expect_eq(memcmp(s.history, after, sizeof after), 0, "history slides by one");
    cr_expect_eq(undo.has_removed, 1);
    cr_expect_eq(undo.removed.row, 0);
    cr_expect_eq(undo.removed.col, 0);
    cr_expect_eq(undo.removed.symbol, KD_TTT_X);
    cr_expect_eq(s.move_count, 7);
    cr_expect_eq(s.turn, KD_TTT_O);
    ttt_check_invariants(&s);

    cr_assert_eq(kd_tictactoe_ops.rollback(&s, &undo), KD_OK);
    cr_expect_eq(s.board[0][0], KD_TTT_X, "the evicted mark is back with its symbol");
    cr_expect_eq(s.board[2][2], KD_TTT_EMPTY);
    cr_expect_eq(s.history[0].row, 0);
    cr_expect_eq(s.history[0].col, 0);
    cr_expect_eq(memcmp(&s, &before, sizeof s), 0, "rollback restores history order and all fields");
    ttt_check_invariants(&s);
}

Test(ttt_classic, no_eviction_and_rollback_clears_only_last_move)
{
    kd_ttt_state s, before;
    kd_ttt_undo undo;
    kd_reject rej = {{0}, {0}};
    ttt_new(&s, 0);
    ttt_play(&s, SIX);
    before = s;

    cr_assert_eq(ttt_move(&s, 2, 2, &undo, &rej), KD_OK, "%s", rej.detail);
    cr_expect_eq(s.board[0][0], KD_TTT_X, "classic mode never evicts");
    cr_expect_eq(s.history_len, 7);
    cr_expect_eq(undo.has_removed, 0);
    ttt_check_invariants(&s);

    cr_assert_eq(kd_tictactoe_ops.rollback(&s, &undo), KD_OK);
    cr_expect_eq(s.board[2][2], KD_TTT_EMPTY);
    cr_expect_eq(memcmp(&s, &before, sizeof s), 0);
}

Test(ttt_stress, occupancy_is_checked_before_eviction)
{
    kd_ttt_state s;
    kd_ttt_undo undo;
    kd_reject rej = {{0}, {0}};
    ttt_new(&s, 6);
    ttt_play(&s, SIX);
    kd_buf before;
    kd_buf_init(&before);
    ttt_encode(&s, &before);

    /* (0,0) holds the oldest mark, which this very move would evict. */
    cr_expect_eq(ttt_move(&s, 0, 0, &undo, &rej), KD_ERR_RULE);
    cr_expect_str_eq(rej.code, "cell_occupied");
    cr_expect(strstr(rej.detail, "cell (0,0) is occupied by X") != NULL, "%s", rej.detail);
    cr_expect(strstr(rej.detail, "oldest") != NULL, "%s", rej.detail);
    expect_encoding(&s, &before);
    kd_buf_fini(&before);
}

Test(ttt_stress, cap_one_keeps_a_single_mark)
{
    kd_ttt_state s;
    ttt_new(&s, 1);
    ttt_play(&s, "00 11 22 00");
    cr_expect_eq(s.history_len, 1);
    cr_expect_eq(s.board[0][0], KD_TTT_O);
    cr_expect_eq(s.move_count, 4);
    ttt_check_invariants(&s);
}

/* -------------------------------------------------------------- rejections */

/* Parameters are copied into each test process (which may be a fresh exec
 * of the binary), so they hold arrays, never pointers. */
typedef struct {
    char name[40];
    uint8_t cap;
    char setup[32]; /* moves played first */
    uint8_t row, col, player;
    int signer; /* 0 X's key, 1 O's key, -1 unsigned */
    kd_err expect;
    char code[16];   /* the rule code with KD_ERR_RULE, else "" */
    char detail[48]; /* substring of the reject detail */
} reject_case;

ParameterizedTestParameters(ttt_reject, in_order)
{
    static reject_case cases[] = {
        {"player out of range", 0, "", 0, 0, 2, 0, KD_ERR_BAD_COMMAND, "", "player must be 0 (X) or 1 (O)"},
        {"over and out of bounds", 0, "00 10 01 11 02", 3, 3, 1, -1, KD_ERR_RULE, "game_over", "X won"},
        {"over after O wins", 0, "00 10 01 11 22 12", 2, 1, 0, 0, KD_ERR_RULE, "game_over", "O won"},
        {"over after a draw", 0, "00 01 02 11 10 12 21 20 22", 0, 0, 1, 1, KD_ERR_RULE, "game_over", "draw"},
        {"over in stress mode", 6, "00 10 01 11 02", 1, 2, 1, 1, KD_ERR_RULE, "game_over", "X won"},
        {"row out of bounds and wrong turn", 0, "", 3, 0, 1, -1, KD_ERR_RULE, "out_of_bounds", "cell (3,0) is outside"},
        {"col out of bounds", 0, "11", 0, 3, 1, 1, KD_ERR_RULE, "out_of_bounds", "rows and columns are 0..2"},
        {"wrong turn and unsigned", 0, "", 0, 0, 1, -1, KD_ERR_RULE, "wrong_turn", "it is X's turn, not O's"},
        {"wrong turn, signed by the other", 0, "11", 0, 0, 0, 0, KD_ERR_RULE, "wrong_turn", "it is O's turn, not X's"},
        {"unsigned and occupied", 0, "11", 1, 1, 1, -1, KD_ERR_RULE, "unauthorised", "unsigned"},
        {"signed by X for O", 0, "11", 1, 1, 1, 0, KD_ERR_RULE, "unauthorised", "not O's participant"},
        {"signed by O for X", 0, "", 0, 0, 0, 1, KD_ERR_RULE, "unauthorised", "not X's participant"},
        {"occupied by X", 0, "11", 1, 1, 1, 1, KD_ERR_RULE, "cell_occupied", "cell (1,1) is occupied by X"},
        {"occupied by O", 0, "00 12", 1, 2, 0, 0, KD_ERR_RULE, "cell_occupied", "cell (1,2) is occupied by O"},
        {"occupied in stress mode", 3, "00 11 22 02", 1, 1, 0, 0, KD_ERR_RULE, "cell_occupied", "occupied by O"},
    };
    return cr_make_param_array(reject_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(reject_case *c, ttt_reject, in_order)
{
    kd_ttt_state s, copy;
    kd_ttt_undo undo, undo_copy;
    kd_reject rej = {{0}, {0}};
    kd_buf before;
    ttt_new(&s, c->cap);
    ttt_play(&s, c->setup);
    copy = s;
    memset(&undo, 0xa5, sizeof undo);
    undo_copy = undo;
    kd_buf_init(&before);
    ttt_encode(&s, &before);

    const kd_pubkey *signer = c->signer < 0 ? NULL : &s.players[c->signer];
    kd_err err = ttt_exec(&s, c->row, c->col, c->player, signer, &undo, &rej);
    cr_expect_eq(err, c->expect, "%s: got %s, want %s (%s)", c->name, kd_err_code(err), kd_err_code(c->expect),
                 rej.detail);
    cr_expect_str_eq(rej.code, c->code, "%s: code %s, want %s", c->name, rej.code, c->code);
    cr_expect_str_eq(kd_reject_code(err, &rej), c->code[0] ? c->code : kd_err_code(err), "%s: stored under", c->name);
    cr_expect(strstr(rej.detail, c->detail) != NULL, "%s: detail \"%s\" lacks \"%s\"", c->name, rej.detail, c->detail);
    cr_expect_eq(memcmp(&s, &copy, sizeof s), 0, "%s: state changed", c->name);
    cr_expect_eq(memcmp(&undo, &undo_copy, sizeof undo), 0, "%s: undo written", c->name);
    expect_encoding(&s, &before);
    kd_buf_fini(&before);
}

Test(ttt_reject, malformed_commands_are_bad_command)
{
    static const uint8_t garbage[] = {0xff, 0xff, 0xff};
    static const uint8_t no_move[] = {0x10, 0x01}; /* an unknown field only */
    static const uint8_t truncated[] = {0x0a, 0x05, 0x08};
    const struct {
        const uint8_t *data;
        size_t len;
        const char *detail;
    } cases[] = {
        {garbage, sizeof garbage, "not a valid TttCommand"},
        {truncated, sizeof truncated, "not a valid TttCommand"},
        {no_move, sizeof no_move, "carries no move"},
        {NULL, 0, "empty"},
    };
    kd_ttt_state s, copy;
    kd_ttt_undo undo;
    ttt_new(&s, 0);
    copy = s;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kd_reject rej = {{0}, {0}};
        kd_err err = kd_tictactoe_ops.execute(&s, cases[i].data, cases[i].len, &s.players[0], NULL, &undo, &rej);
        cr_expect_eq(err, KD_ERR_BAD_COMMAND, "case %zu: %s", i, kd_err_code(err));
        cr_expect(strstr(rej.detail, cases[i].detail) != NULL, "case %zu: %s", i, rej.detail);
        cr_expect_eq(memcmp(&s, &copy, sizeof s), 0);
    }
}

Test(ttt_reject, a_reject_without_detail_buffer_is_fine)
{
    kd_ttt_state s;
    kd_ttt_undo undo;
    ttt_new(&s, 0);
    cr_expect_eq(ttt_exec(&s, 5, 5, 0, &s.players[0], &undo, NULL), KD_ERR_RULE);
}

/* The rule codes are the names the engine's error table carried for
 * them, byte for byte: everything stored, sent and shown under them keeps
 * its meaning. None is an engine code's name. */
Test(ttt_reject, the_rule_codes_are_the_names_of_before)
{
    static const char *const want[] = {"game_over", "out_of_bounds", "wrong_turn", "unauthorised", "cell_occupied"};
    size_t n = 0;
    for (; kd_ttt_rule_codes[n].code; n++) {
        cr_assert_lt(n, sizeof want / sizeof want[0]);
        cr_expect_str_eq(kd_ttt_rule_codes[n].code, want[n]);
        cr_expect(kd_ttt_rule_codes[n].meaning && kd_ttt_rule_codes[n].meaning[0], "%s has a meaning", want[n]);
        cr_expect_lt(strlen(kd_ttt_rule_codes[n].code), KD_RULE_CODE_MAX);
        kd_err e;
        cr_expect_neq(kd_err_parse(kd_ttt_rule_codes[n].code, &e), KD_OK, "%s is no engine code",
                      kd_ttt_rule_codes[n].code);
    }
    cr_expect_eq(n, sizeof want / sizeof want[0]);
    cr_expect_null(kd_ttt_rule_codes[n].meaning, "the table ends with {NULL, NULL}");
}

/* --------------------------------------------------------- wins and draws */

typedef struct {
    uint8_t cap;
    char moves[32];
    kd_ttt_status expect;
} outcome_case;

ParameterizedTestParameters(ttt_outcome, detected)
{
    static outcome_case cases[] = {
        {0, "00 10 01 11 02", KD_TTT_X_WON},            /* row */
        {0, "00 01 10 11 20", KD_TTT_X_WON},            /* column */
        {0, "00 01 11 02 22", KD_TTT_X_WON},            /* diagonal */
        {0, "00 02 01 11 10 20", KD_TTT_O_WON},         /* anti-diagonal */
        {0, "00 10 01 11 22 12", KD_TTT_O_WON},         /* row */
        {0, "00 01 02 11 10 12 21 20 22", KD_TTT_DRAW}, /* full board */
        {0, "00 01 02 11 10 12 21 20", KD_TTT_IN_PROGRESS},
        {0, "00 01 02 12 10 22 20", KD_TTT_X_WON},             /* won on move 7 */
        {8, "00 01 02 11 10 12 21 20 22", KD_TTT_IN_PROGRESS}, /* stress: no draw */
        {5, "00 10 01 11 02", KD_TTT_X_WON},                   /* window not yet full */
        /* cap 5: X's (0,2) comes after (0,0) was evicted, so no line;
         * then X wins down column 2 with marks inside the window. */
        {5, "00 10 01 11 22 21 02", KD_TTT_IN_PROGRESS},
        {5, "00 10 01 11 22 21 02 20 12", KD_TTT_X_WON},
        {6, "00 01 02 11 10 20 22 21", KD_TTT_IN_PROGRESS}, /* O's (0,1) was evicted: no column */
    };
    return cr_make_param_array(outcome_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(outcome_case *c, ttt_outcome, detected)
{
    kd_ttt_state s;
    ttt_new(&s, c->cap);
    ttt_play(&s, c->moves);
    cr_expect_eq(s.status, c->expect, "cap %u, \"%s\": status %u, want %u", c->cap, c->moves, s.status, c->expect);
    ttt_check_invariants(&s);
}

Test(ttt_outcome, winning_move_is_rolled_back_to_in_progress)
{
    kd_ttt_state s, before;
    kd_ttt_undo undo;
    kd_reject rej = {{0}, {0}};
    ttt_new(&s, 0);
    ttt_play(&s, "00 10 01 11");
    before = s;
    cr_assert_eq(ttt_move(&s, 0, 2, &undo, &rej), KD_OK);
    cr_expect_eq(s.status, KD_TTT_X_WON);
    cr_expect_eq(undo.prev_status, KD_TTT_IN_PROGRESS);
    cr_assert_eq(kd_tictactoe_ops.rollback(&s, &undo), KD_OK);
    cr_expect_eq(memcmp(&s, &before, sizeof s), 0);
}

/* ------------------------------------------------- participants and params */

Test(ttt_init, participants_must_be_two_valid_keys)
{
    ttt_keys keys;
    kd_ttt_state s;
    kd_reject rej = {{0}, {0}};
    kd_buf params;
    ttt_keys_make(&keys);
    kd_buf_init(&params);
    cr_assert_eq(kd_ttt_params_encode(KD_TTT_WIRE_CLASSIC, &params), KD_OK);

    kd_participants p = keys.parts;
    p.count = 1;
    cr_expect_eq(kd_tictactoe_ops.init(&s, &p, params.data, params.len, NULL, &rej), KD_ERR_BAD_PARTICIPANTS);
    cr_expect(strstr(rej.detail, "exactly 2") != NULL, "%s", rej.detail);
    p.count = 3;
    p.keys[2] = keys.x.pub;
    cr_expect_eq(kd_tictactoe_ops.init(&s, &p, params.data, params.len, NULL, &rej), KD_ERR_BAD_PARTICIPANTS);

    p = keys.parts;
    p.keys[1].bytes[0] = 0x05; /* not a compressed-key prefix */
    cr_expect_eq(kd_tictactoe_ops.init(&s, &p, params.data, params.len, NULL, &rej), KD_ERR_BAD_PARTICIPANTS);
    cr_expect(strstr(rej.detail, "participant 2 (O)") != NULL, "%s", rej.detail);

    /* One key may play both sides; turn order still applies. */
    p = keys.parts;
    p.keys[1] = keys.x.pub;
    cr_expect_eq(kd_tictactoe_ops.init(&s, &p, params.data, params.len, NULL, &rej), KD_OK);
    kd_ttt_undo undo;
    cr_expect_eq(ttt_exec(&s, 0, 0, 0, &keys.x.pub, &undo, &rej), KD_OK);
    cr_expect_eq(ttt_exec(&s, 1, 1, 0, &keys.x.pub, &undo, &rej), KD_ERR_RULE);
    cr_expect_str_eq(rej.code, "wrong_turn");
    cr_expect_eq(ttt_exec(&s, 1, 1, 1, &keys.x.pub, &undo, &rej), KD_OK);
    kd_buf_fini(&params);
}

typedef struct {
    int has_params; /* 0: empty params */
    uint32_t wire_cap;
    int has_config;
    uint8_t default_cap;
    uint8_t expect_cap; /* state cap */
} resolve_case;

ParameterizedTestParameters(ttt_init, resolve_params)
{
    static resolve_case cases[] = {
        {0, 0, 0, 0, 0}, {0, 0, 1, 0, 0}, {0, 0, 1, 6, 6}, {1, 0, 1, 6, 6}, {1, 0, 0, 0, 0},
        {1, 3, 1, 6, 3}, {1, 8, 0, 0, 8}, {1, 9, 1, 6, 0}, {1, 1, 1, 0, 1}, {1, 4000000000u, 1, 6, 0},
    };
    return cr_make_param_array(resolve_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(resolve_case *c, ttt_init, resolve_params)
{
    ttt_keys keys;
    kd_ttt_config config = {.default_cap = c->default_cap};
    kd_buf params, effective;
    kd_reject rej = {{0}, {0}};
    kd_ttt_state s;
    ttt_keys_make(&keys);
    kd_buf_init(&params);
    kd_buf_init(&effective);
    if (c->has_params)
        cr_assert_eq(kd_ttt_params_encode(c->wire_cap, &params), KD_OK);

    cr_assert_eq(
        kd_tictactoe_ops.resolve_params(c->has_config ? &config : NULL, params.data, params.len, &effective, &rej),
        KD_OK, "%s", rej.detail);
    uint32_t eff = 0;
    cr_assert_eq(kd_ttt_params_decode(effective.data, effective.len, &eff, &rej), KD_OK);
    cr_expect_eq(eff, c->expect_cap ? c->expect_cap : KD_TTT_WIRE_CLASSIC,
                 "effective params always name the cap (9 for classic)");
    cr_assert_eq(kd_tictactoe_ops.init(&s, &keys.parts, effective.data, effective.len, NULL, &rej), KD_OK, "%s",
                 rej.detail);
    cr_expect_eq(s.cap, c->expect_cap);
    cr_expect_eq(s.turn, KD_TTT_X);
    cr_expect_eq(s.status, KD_TTT_IN_PROGRESS);
    cr_expect_eq(memcmp(&s.players[0], &keys.x.pub, sizeof s.players[0]), 0);
    cr_expect_eq(memcmp(&s.players[1], &keys.o.pub, sizeof s.players[1]), 0);
    kd_buf_fini(&params);
    kd_buf_fini(&effective);
}

Test(ttt_init, bad_params_are_rejected)
{
    static const uint8_t garbage[] = {0x08}; /* varint field without its value */
    ttt_keys keys;
    kd_buf effective;
    kd_reject rej = {{0}, {0}};
    kd_ttt_state s;
    ttt_keys_make(&keys);
    kd_buf_init(&effective);

    cr_expect_eq(kd_tictactoe_ops.resolve_params(NULL, garbage, sizeof garbage, &effective, &rej), KD_ERR_BAD_PARAMS);
    cr_expect(strstr(rej.detail, "not a valid TttParams") != NULL, "%s", rej.detail);
    cr_expect_eq(effective.len, 0);
    cr_expect_eq(kd_tictactoe_ops.init(&s, &keys.parts, garbage, sizeof garbage, NULL, &rej), KD_ERR_BAD_PARAMS);
    /* Unresolved params (cap 0 = "default") are refused by init. */
    cr_expect_eq(kd_tictactoe_ops.init(&s, &keys.parts, NULL, 0, NULL, &rej), KD_ERR_BAD_PARAMS);
    cr_expect(strstr(rej.detail, "not resolved") != NULL, "%s", rej.detail);
    kd_buf_fini(&effective);
}

Test(ttt_init, ops_table_is_complete)
{
    kd_registry reg;
    kd_ttt_config config = {.default_cap = 6};
    kd_registry_init(&reg);
    cr_expect_eq(kd_registry_add(&reg, &kd_tictactoe_ops, &config), KD_OK);
    cr_expect_str_eq(kd_tictactoe_ops.type_name, "tictactoe");
    cr_expect_eq(kd_tictactoe_ops.state_size, sizeof(kd_ttt_state));
    cr_expect_eq(kd_tictactoe_ops.undo_size, sizeof(kd_ttt_undo));
}
