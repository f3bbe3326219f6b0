/*
 * checkers_test.c — checkers (episodes/checkers/checkers*.c): the rules (the start,
 * men forward, mandatory capture, a multi-jump to its end, any capturing
 * sequence, crowning ends the move, kings backward, the side without a
 * move loses, the 80-ply draw and its undo, every refusal code, a refused
 * command leaves the state untouched), rollback byte-identical over random
 * playouts (every legal move from random positions), the encodings
 * round-trip and refuse malformed input, params with a start position, and
 * perft against the published counts.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "episodes/checkers/checkers.h"
#include "episodes/ck_support.h"
#include "episodes/episode_type.h"

static const kd_episode_type *const T = &kd_checkers_type;

/* Positions (games-mcp state text). */
/* b6 must jump c5 and e3 (b6d4f2); g7 could step, but a capture is due. */
#define POS_MULTI "......../......w./.w....../..b...../......../....b.../......../b....... w"
/* b6d4f2 (two pieces) or h4f2 (one): either capture may be chosen. */
#define POS_CHOICE "......../......../.w....../..b...../.......w/....b.b./......../b....... w"
/* c3 jumps d2 and is crowned on e1; as a king it could jump f2, but its move ends. */
#define POS_CROWN ".......w/......../......../......../......../..w...../...b.b../b....... w"
/* a white king on d4, a white man on b6, a black man on h2. */
#define POS_KING "......../......../.w....../......../...W..../......../.......b/........ w"
/* after h8g7 black's only man (a1) is blocked by b2 and c3. */
#define POS_BLOCKED ".......w/......../......../......../......../..w...../.w....../b....... w"
/* two kings in opposite corners. */
#define POS_KINGS ".......B/......../......../......../......../......../......../W....... w"
/* the kings and a white man on e7. */
#define POS_KINGS_MAN ".......B/....w.../......../......../......../......../......../W....... w"
/* c3 takes black's last piece. */
#define POS_LAST "......../......../......../......../......../..w...../...b..../........ w"

/* Expects `notation` signed by `signer` refused with rule `code`, the
 * state's bytes unchanged. */
static void expect_rule(kd_ck_state *s, const char *notation, const kd_pubkey *signer, const char *code)
{
    kd_buf before, after;
    kd_buf_init(&before);
    kd_buf_init(&after);
    ck_encode(s, &before);
    kd_ck_undo undo;
    kd_reject rej = {{0}, {0}};
    cr_assert_eq(ck_exec(s, notation, signer, &undo, &rej), KD_ERR_RULE, "%s: want %s", notation, code);
    cr_expect_str_eq(rej.code, code, "%s: %s", notation, rej.detail);
    cr_expect(rej.detail[0], "a sentence says why");
    ck_encode(s, &after);
    cr_expect(before.len == after.len && memcmp(before.data, after.data, before.len) == 0, "state untouched");
    kd_buf_fini(&before);
    kd_buf_fini(&after);
}

/* The same with raw squares. */
static void expect_rule_squares(kd_ck_state *s, const uint32_t *sq, size_t n, const char *code, const char *words)
{
    kd_ck_state before = *s;
    kd_ck_undo undo;
    kd_reject rej = {{0}, {0}};
    cr_assert_eq(ck_exec_squares(s, sq, n, &s->players[s->turn], &undo, &rej), KD_ERR_RULE, "want %s", code);
    cr_expect_str_eq(rej.code, code, "%s", rej.detail);
    cr_expect(strstr(rej.detail, words), "the sentence names it: %s", rej.detail);
    cr_expect_eq(memcmp(&before, s, sizeof *s), 0);
}

/* The notations of the legal moves of `s`, space-separated, into `out`. */
static void moves_text(const kd_ck_state *s, char *out, size_t len)
{
    kd_legal_moves moves;
    kd_legal_moves_init(&moves);
    cr_assert_eq(T->legal_moves(s, s->turn, &moves), KD_OK);
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < moves.count && used < len; i++)
        used += (size_t)snprintf(out + used, len - used, "%s%s", i ? " " : "", moves.moves[i].notation);
    kd_legal_moves_fini(&moves);
}

/* ------------------------------------------------------------- rules */

Test(ck_rules, the_start_position_and_the_first_moves)
{
    kd_ck_state s;
    ck_new_game(&s);
    char text[KD_CK_TEXT_LEN], moves[512];
    ck_text(&s, text);
    cr_expect_str_eq(text, CK_START_TEXT);
    cr_expect_eq(s.turn, KD_CK_WHITE);
    cr_expect_eq(s.last.count, 0);
    moves_text(&s, moves, sizeof moves);
    cr_expect_str_eq(moves, "b6a5 b6c5 d6c5 d6e5 f6e5 f6g5 h6g5");
    CK_PLAY(&s, "b6a5", "c3b4");
    ck_text(&s, text);
    cr_expect_str_eq(text, ".w.w.w.w/w.w.w.w./...w.w.w/w......./.b....../b...b.b./.b.b.b.b/b.b.b.b. w");
    cr_expect_eq(s.move_count, 2);
    cr_expect_eq(s.quiet, 0, "men moved");
    cr_expect_eq(s.status, KD_CK_IN_PROGRESS);
    char last[KD_NOTATION_MAX];
    kd_ck_path_format(&s.last, last);
    cr_expect_str_eq(last, "c3b4");
    /* white must now take b4 from a5 */
    moves_text(&s, moves, sizeof moves);
    cr_expect_str_eq(moves, "a5c3");
}

Test(ck_rules, a_capture_is_mandatory_and_a_jump_goes_to_its_end)
{
    kd_ck_state s;
    ck_new_game_from(&s, POS_MULTI);
    char moves[256];
    moves_text(&s, moves, sizeof moves);
    cr_expect_str_eq(moves, "b6d4f2", "the one legal move takes both");
    expect_rule(&s, "g7f6", &s.players[0], "capture_required");
    expect_rule(&s, "b6a5", &s.players[0], "capture_required");
    expect_rule(&s, "b6d4", &s.players[0], "jump_incomplete");
    ck_move(&s, "b6d4f2");
    char text[KD_CK_TEXT_LEN];
    ck_text(&s, text);
    cr_expect_str_eq(text, "......../......w./......../......../......../......../.....w../b....... b");
    cr_expect_eq(s.quiet, 0);
}

Test(ck_rules, any_capturing_sequence_may_be_chosen)
{
    kd_ck_state s, t;
    ck_new_game_from(&s, POS_CHOICE);
    char moves[256];
    moves_text(&s, moves, sizeof moves);
    cr_expect_str_eq(moves, "h4f2 b6d4f2");
    t = s;
    ck_move(&t, "h4f2"); /* the shorter one */
    cr_expect_eq(t.board[2 * 8 + 6], KD_CK_EMPTY, "g3 taken");
    cr_expect_eq(t.board[4 * 8 + 2], KD_CK_BLACK_MAN, "c5 stays");
    ck_move(&s, "b6d4f2");
}

Test(ck_rules, crowning_ends_the_move)
{
    kd_ck_state s;
    ck_new_game_from(&s, POS_CROWN);
    char moves[256];
    moves_text(&s, moves, sizeof moves);
    cr_expect_str_eq(moves, "c3e1", "no jump on after the crowning");
    expect_rule(&s, "c3e1g3", &s.players[0], "move_ends_on_crowning");
    ck_move(&s, "c3e1");
    cr_expect_eq(s.board[4], KD_CK_WHITE_KING, "crowned on e1");
    cr_expect_eq(s.turn, KD_CK_BLACK);
    /* the next time, the new king jumps (backward, toward rank 8) */
    ck_move(&s, "a1b2");
    moves_text(&s, moves, sizeof moves);
    cr_expect_str_eq(moves, "e1g3");
}

Test(ck_rules, kings_move_backward_and_men_do_not)
{
    kd_ck_state s, t;
    ck_new_game_from(&s, POS_KING);
    char moves[256];
    moves_text(&s, moves, sizeof moves);
    cr_expect_str_eq(moves, "d4c5 d4e5 d4c3 d4e3 b6a5 b6c5");
    expect_rule(&s, "b6c7", &s.players[0], "wrong_direction");
    expect_rule(&s, "b6a7", &s.players[0], "wrong_direction");
    t = s;
    ck_move(&t, "d4e5");
    cr_expect_eq(t.board[4 * 8 + 4], KD_CK_WHITE_KING);
    cr_expect_eq(t.quiet, 1, "a king's step is a quiet ply");
    ck_move(&s, "b6a5");
    cr_expect_eq(s.quiet, 0, "a man's is not");
}

Test(ck_rules, a_side_without_a_legal_move_loses)
{
    kd_ck_state s;
    ck_new_game_from(&s, POS_BLOCKED);
    ck_move(&s, "h8g7");
    cr_expect_eq(s.status, KD_CK_WHITE_WON, "black's a1 is blocked");
    kd_game_status st = T->status(&s);
    cr_expect_eq(st.phase, KD_PHASE_WON);
    cr_expect_eq(st.winner, KD_CK_WHITE);
    cr_expect_eq(st.to_move, KD_SEAT_NONE);
    expect_rule(&s, "a1b2", &s.players[1], "game_over");
    ck_new_game_from(&s, POS_LAST);
    ck_move(&s, "c3e1");
    cr_expect_eq(s.status, KD_CK_WHITE_WON, "black has no piece left");
    expect_rule(&s, "e1f2", &s.players[0], "game_over");
    kd_legal_moves moves;
    kd_legal_moves_init(&moves);
    cr_expect_eq(T->legal_moves(&s, 0, &moves), KD_OK);
    cr_expect_eq(T->legal_moves(&s, 1, &moves), KD_OK);
    cr_expect_eq(moves.count, 0, "a finished game has none");
    kd_legal_moves_fini(&moves);
}

Test(ck_rules, eighty_quiet_plies_draw_and_the_undo_reopens_the_game)
{
    static const char *const cycle[4] = {"a1b2", "h8g7", "b2a1", "g7h8"};
    kd_ck_state s, before_last;
    ck_new_game_from(&s, POS_KINGS);
    kd_ck_undo undo;
    for (int ply = 0; ply < KD_CK_DRAW_PLIES; ply++) {
        cr_assert_eq(s.status, KD_CK_IN_PROGRESS, "ply %d", ply);
        cr_assert_eq(s.quiet, ply);
        before_last = s;
        kd_reject rej = {{0}, {0}};
        cr_assert_eq(ck_exec(&s, cycle[ply % 4], &s.players[s.turn], &undo, &rej), KD_OK, "%s", rej.detail);
    }
    cr_expect_eq(s.status, KD_CK_DRAW);
    cr_expect_eq(s.quiet, 80);
    kd_game_status st = T->status(&s);
    cr_expect_eq(st.phase, KD_PHASE_DRAW);
    cr_expect_eq(st.winner, KD_SEAT_NONE);
    expect_rule(&s, "a1b2", &s.players[0], "game_over");
    /* the last ply's undo gives back the open game, byte for byte */
    cr_assert_eq(kd_ck_ops.rollback(&s, &undo), KD_OK);
    cr_expect_eq(memcmp(&s, &before_last, sizeof s), 0);
    cr_expect_eq(s.status, KD_CK_IN_PROGRESS);
    cr_expect_eq(s.quiet, 79);
    /* a man's move resets the count */
    ck_new_game_from(&s, POS_KINGS_MAN);
    CK_PLAY(&s, "a1b2", "h8g7", "b2a1");
    cr_expect_eq(s.quiet, 3);
    ck_move(&s, "g7h8");
    ck_move(&s, "e7d6");
    cr_expect_eq(s.quiet, 0);
    /* the 80th quiet ply that leaves the other side without a move wins */
    ck_new_game_from(&s, "......../......../......../......../......../W.w...../......../b....... w");
    s.quiet = 79;
    s.move_count = 79;
    ck_move(&s, "a3b2");
    cr_expect_eq(s.quiet, 80);
    cr_expect_eq(s.status, KD_CK_WHITE_WON, "a1 is blocked: a win, not a draw");
}

Test(ck_rules, every_refusal_code)
{
    ck_keys k;
    ck_keys_make(&k);
    kd_ck_state s;
    ck_new_game(&s);
    expect_rule(&s, "b6a5", NULL, "unauthorised");
    expect_rule(&s, "b6a5", &k.stranger.pub, "unauthorised");
    expect_rule(&s, "b6a5", &k.black.pub, "not_your_turn");
    static const uint32_t one[] = {41};
    expect_rule_squares(&s, one, 1, "not_a_move", "not 1");
    /* fourteen squares: CheckersCommand bytes by hand (field 1, packed) */
    static const uint8_t fourteen[] = {0x0a, 14, 41, 32, 41, 32, 41, 32, 41, 32, 41, 32, 41, 32, 41, 32};
    kd_ck_undo undo;
    kd_reject rej = {{0}, {0}};
    kd_ck_state before = s;
    cr_expect_eq(kd_ck_ops.execute(&s, fourteen, sizeof fourteen, &k.white.pub, NULL, &undo, &rej), KD_ERR_RULE);
    cr_expect_str_eq(rej.code, "not_a_move");
    cr_expect(strstr(rej.detail, "not 14"), "%s", rej.detail);
    cr_expect_eq(memcmp(&before, &s, sizeof s), 0);
    static const uint32_t off[] = {41, 64};
    expect_rule_squares(&s, off, 2, "bad_square", "64");
    static const uint32_t light[] = {41, 40};
    expect_rule_squares(&s, light, 2, "bad_square", "a6");
    expect_rule(&s, "d4c3", &k.white.pub, "no_piece");
    expect_rule(&s, "a3b4", &k.white.pub, "no_piece");
    expect_rule(&s, "b6b4", &k.white.pub, "not_a_legal_move");   /* not diagonal */
    expect_rule(&s, "b6e3", &k.white.pub, "not_a_legal_move");   /* three squares */
    expect_rule(&s, "b6a5b4", &k.white.pub, "not_a_legal_move"); /* a simple move goes on */
    expect_rule(&s, "b6d4", &k.white.pub, "not_a_legal_move");   /* over an empty square */
    expect_rule(&s, "a7c5", &k.white.pub, "not_a_legal_move");   /* over its own man */
    expect_rule(&s, "b6c7", &k.white.pub, "wrong_direction");
    expect_rule(&s, "a7b6", &k.white.pub, "square_occupied");
    ck_new_game_from(&s, POS_MULTI);
    expect_rule(&s, "g7f6", &s.players[0], "capture_required");
    expect_rule(&s, "b6d4", &s.players[0], "jump_incomplete");
    expect_rule(&s, "b6d4c3", &s.players[0], "not_a_legal_move"); /* a step after a jump */
    ck_new_game_from(&s, POS_CROWN);
    expect_rule(&s, "c3e1g3", &s.players[0], "move_ends_on_crowning");
    ck_new_game_from(&s, POS_LAST);
    ck_move(&s, "c3e1");
    expect_rule(&s, "e1f2", &s.players[0], "game_over");
    /* every code is in the table, in this order */
    static const char *const codes[] = {
        "game_over",       "unauthorised",    "not_your_turn",         "not_a_move",
        "bad_square",      "no_piece",        "move_ends_on_crowning", "not_a_legal_move",
        "wrong_direction", "square_occupied", "capture_required",      "jump_incomplete"};
    size_t n = 0;
    for (; T->rule_codes[n].code; n++) {
        cr_assert_lt(n, 12);
        cr_expect_str_eq(T->rule_codes[n].code, codes[n]);
        cr_expect(T->rule_codes[n].meaning && *T->rule_codes[n].meaning);
    }
    cr_expect_eq(n, 12);
}

Test(ck_rules, the_sentences_name_the_squares)
{
    kd_ck_state s;
    ck_new_game_from(&s, POS_MULTI);
    kd_ck_undo undo;
    kd_reject rej = {{0}, {0}};
    cr_assert_eq(ck_exec(&s, "g7f6", &s.players[0], &undo, &rej), KD_ERR_RULE);
    cr_expect(strstr(rej.detail, "b6d4f2") && strstr(rej.detail, "g7f6"), "%s", rej.detail);
    cr_assert_eq(ck_exec(&s, "b6d4", &s.players[0], &undo, &rej), KD_ERR_RULE);
    cr_expect(strstr(rej.detail, "d4"), "%s", rej.detail);
    ck_new_game(&s);
    cr_assert_eq(ck_exec(&s, "a7b6", &s.players[0], &undo, &rej), KD_ERR_RULE);
    cr_expect(strstr(rej.detail, "b6 is occupied by a white man"), "%s", rej.detail);
    cr_assert_eq(ck_exec(&s, "a3b4", &s.players[0], &undo, &rej), KD_ERR_RULE);
    cr_expect(strstr(rej.detail, "a3 holds a black man"), "%s", rej.detail);
}

Test(ck_rules, participants_and_start_positions)
{
    ck_keys k;
    ck_keys_make(&k);
    kd_participants one = {.count = 2};
    one.keys[0] = one.keys[1] = k.white.pub;
    kd_ck_state s;
    kd_reject rej = {{0}, {0}};
    cr_assert_eq(kd_ck_ops.init(&s, &one, NULL, 0, NULL, &rej), KD_OK, "the same key may hold both seats");
    ck_move(&s, "b6a5");
    ck_move(&s, "c3b4");
    kd_participants three = k.parts;
    three.count = 3;
    three.keys[2] = k.stranger.pub;
    cr_expect_eq(kd_ck_ops.init(&s, &three, NULL, 0, NULL, &rej), KD_ERR_BAD_PARTICIPANTS);
    kd_participants bad = k.parts;
    bad.keys[1].bytes[0] = 0x05;
    cr_expect_eq(kd_ck_ops.init(&s, &bad, NULL, 0, NULL, &rej), KD_ERR_BAD_PARTICIPANTS);

    /* params: a start text resolves to its canonical CheckersParams */
    kd_ck_position pos;
    char why[200] = "";
    cr_assert_eq(kd_ck_text_parse(POS_KING, &pos, why, sizeof why), KD_OK);
    kd_buf p, eff;
    kd_buf_init(&p);
    kd_buf_init(&eff);
    cr_assert_eq(kd_ck_params_encode(&pos, &p), KD_OK);
    cr_assert_eq(kd_ck_ops.resolve_params(NULL, p.data, p.len, &eff, &rej), KD_OK);
    cr_expect(eff.len == p.len && memcmp(eff.data, p.data, p.len) == 0);
    static const char *const bad_starts[] = {
        "......../......../......../......../......../......../......../.w...... w", /* a light square */
        ".w....../......../......../......../......../......../......../........ b", /* black, no move */
        "......../......../......../......../......../......../......../w....... w", /* a man on rank 1 */
        "......../......../......../......../......../......../......../b....... x", /* no such turn */
        "......../......../......../......../......../......../......../b.......",   /* no turn */
        "......../......../......../......../......../......../......../b...q... w", /* unknown piece */
        ".w.w.w.w/w.w.w.w./.w.w.w.w/w......./......../......../......../b....... w", /* 13 white */
    };
    for (size_t i = 0; i < sizeof bad_starts / sizeof bad_starts[0]; i++) {
        kd_ck_position bp;
        kd_err err = kd_ck_text_parse(bad_starts[i], &bp, why, sizeof why);
        if (!err)
            err = kd_ck_position_check(&bp, why, sizeof why);
        cr_expect_eq(err, KD_ERR_BAD_PARAMS, "%s", bad_starts[i]);
    }
    static const uint8_t garbage[] = {0xff, 0xff};
    cr_expect_eq(kd_ck_ops.resolve_params(NULL, garbage, sizeof garbage, &eff, &rej), KD_ERR_BAD_PARAMS);
    static const uint8_t unknown[] = {0x10, 0x01};
    cr_expect_eq(kd_ck_ops.resolve_params(NULL, unknown, sizeof unknown, &eff, &rej), KD_ERR_BAD_PARAMS);
    static const uint8_t empty_start[] = {0x0a, 0x00};
    eff.len = 0;
    cr_expect_eq(kd_ck_ops.resolve_params(NULL, empty_start, sizeof empty_start, &eff, &rej), KD_OK);
    cr_expect_eq(eff.len, 0, "an empty start is the standard one: zero bytes");
    kd_buf_fini(&p);
    kd_buf_fini(&eff);
}

/* ------------------------------------------------------------ rollback */

/* A random legal move of `s` (in progress), as a path. */
static kd_ck_path random_move(const kd_ck_state *s, uint64_t *rng)
{
    kd_ck_position pos;
    memcpy(pos.board, s->board, sizeof pos.board);
    pos.turn = s->turn;
    kd_ck_moves *moves = malloc(sizeof *moves);
    cr_assert_not_null(moves);
    cr_assert_gt(kd_ck_moves_list(&pos, moves), 0);
    kd_ck_path p = moves->moves[kd_type_rng_below(rng, (uint32_t)moves->count)];
    free(moves);
    return p;
}

static kd_err exec_path(kd_ck_state *s, const kd_ck_path *p, kd_ck_undo *undo, kd_reject *rej)
{
    uint32_t sq[KD_CK_PATH_MAX];
    for (size_t i = 0; i < p->count; i++)
        sq[i] = p->squares[i];
    return ck_exec_squares(s, sq, p->count, &s->players[s->turn], undo, rej);
}

/* That every legal move rolls back byte for byte, and the encodings
 * round-trip, is type_laws_test's, for every type; here: records of
 * another move are refused, the state untouched, over captures, crownings
 * and kings taken. */
Test(ck_rollback, records_of_another_move_are_refused)
{
    uint64_t rng = 0x636b;
    kd_ck_moves *moves = malloc(sizeof *moves);
    size_t checked = 0, captures = 0, crowned = 0, kings_taken = 0;
    for (int game = 0; game < 60; game++) {
        kd_ck_state s;
        ck_new_game(&s);
        for (int ply = 0; ply < 300 && s.status == KD_CK_IN_PROGRESS; ply++) {
            kd_ck_position pos;
            memcpy(pos.board, s.board, sizeof pos.board);
            pos.turn = s.turn;
            kd_ck_moves_list(&pos, moves);
            for (size_t i = 0; i < moves->count; i++) {
                kd_ck_state u = s;
                kd_ck_undo undo;
                kd_reject rej = {{0}, {0}};
                cr_assert_eq(exec_path(&u, &moves->moves[i], &undo, &rej), KD_OK, "%s", rej.detail);
                captures += moves->moves[i].count > 2 ||
                            abs(moves->moves[i].squares[1] / 8 - moves->moves[i].squares[0] / 8) == 2;
                crowned += undo.crowned;
                kings_taken += (undo.king_captures[0] | undo.king_captures[1]) != 0;
                const kd_ck_undo back = undo;
                kd_ck_undo wrong = back;
                wrong.path.squares[0] = (uint8_t)(wrong.path.squares[0] ^ 2);
                kd_ck_state w = u;
                cr_assert_eq(kd_ck_ops.rollback(&w, &wrong), KD_ERR_DECODE);
                wrong = back;
                wrong.king_captures[0] |= 0x10; /* bit 12 */
                cr_assert_eq(kd_ck_ops.rollback(&w, &wrong), KD_ERR_DECODE, "a king taken by no jump");
                wrong = back;
                wrong.prev_status = KD_CK_DRAW;
                cr_assert_eq(kd_ck_ops.rollback(&w, &wrong), KD_ERR_DECODE, "a move after the end");
                wrong = back;
                wrong.prev_last.count = 1;
                cr_assert_eq(kd_ck_ops.rollback(&w, &wrong), KD_ERR_DECODE, "a last move of one square");
                if (undo.prev_quiet + 1 == u.quiet) { /* a king's step: the count must add up */
                    wrong = back;
                    wrong.prev_quiet = (uint8_t)(wrong.prev_quiet + 1);
                    cr_assert_eq(kd_ck_ops.rollback(&w, &wrong), KD_ERR_DECODE, "the quiet count");
                }
                cr_assert_eq(memcmp(&w, &u, sizeof u), 0);
                checked++;
            }
            kd_ck_path p = random_move(&s, &rng);
            kd_ck_undo undo;
            kd_reject rej = {{0}, {0}};
            cr_assert_eq(exec_path(&s, &p, &undo, &rej), KD_OK, "%s", rej.detail);
        }
    }
    free(moves);
    cr_expect_gt(checked, 5000);
    cr_expect_gt(captures, 100, "captures were met");
    cr_expect_gt(crowned, 10, "crownings were met");
    cr_expect_gt(kings_taken, 0, "captured kings were met");
}

Test(ck_rollback, a_whole_game_unwinds_to_the_start)
{
    uint64_t rng = 99;
    kd_ck_state s, start;
    ck_new_game(&s);
    start = s;
    enum { MAX = 400 };
    kd_ck_undo *undos = calloc(MAX, sizeof *undos);
    size_t n = 0;
    while (s.status == KD_CK_IN_PROGRESS && n < MAX) {
        kd_ck_path p = random_move(&s, &rng);
        kd_reject rej = {{0}, {0}};
        cr_assert_eq(exec_path(&s, &p, &undos[n++], &rej), KD_OK);
    }
    cr_expect_gt(n, 20);
    if (n > 1)
        cr_expect_eq(kd_ck_ops.rollback(&s, &undos[n - 2]), KD_ERR_DECODE, "not the last move's record");
    for (size_t i = n; i-- > 0;)
        cr_assert_eq(kd_ck_ops.rollback(&s, &undos[i]), KD_OK, "undo %zu", i);
    cr_expect_eq(memcmp(&s, &start, sizeof s), 0);
    cr_expect_eq(kd_ck_ops.rollback(&s, &undos[0]), KD_ERR_DECODE, "nothing left to undo");
    free(undos);
}

/* ------------------------------------------------------------ encodings */

static void expect_bad_state(const kd_buf *bytes, const char *what)
{
    kd_ck_state s;
    cr_expect_eq(kd_ck_ops.decode_state(bytes->data, bytes->len, &s), KD_ERR_DECODE, "%s", what);
}

static void patched(const kd_ck_state *s, size_t at, uint8_t value, kd_buf *out)
{
    ck_encode(s, out);
    cr_assert_lt(at, out->len);
    out->data[at] = value;
}

#define LAST_AT (8 + 2 * KD_PUBKEY_LEN)
#define BOARD_AT (LAST_AT + 1 + KD_CK_PATH_MAX)

/* That states round-trip is type_laws_test's, for every type. */
Test(ck_encodings, malformed_states_are_refused)
{
    kd_buf b;
    kd_buf_init(&b);
    kd_ck_state s;
    ck_new_game(&s);
    CK_PLAY(&s, "b6a5", "c3b4");
    ck_encode(&s, &b);
    expect_bad_state(&(kd_buf){.data = b.data, .len = b.len - 1}, "short");
    patched(&s, 0, 2, &b);
    expect_bad_state(&b, "version 2");
    patched(&s, 1, KD_CK_WHITE_WON, &b);
    expect_bad_state(&b, "a win that is not on the board");
    patched(&s, 1, 9, &b);
    expect_bad_state(&b, "unknown status");
    patched(&s, 2, 2, &b);
    expect_bad_state(&b, "turn 2");
    patched(&s, 2, 1, &b);
    expect_bad_state(&b, "the last move's piece is the side to move's");
    patched(&s, 3, 3, &b);
    expect_bad_state(&b, "more quiet plies than plies");
    patched(&s, 7, 0, &b);
    expect_bad_state(&b, "no plies but a last move");
    patched(&s, 8, 0x04, &b);
    expect_bad_state(&b, "a key not in compressed form");
    patched(&s, LAST_AT, 1, &b);
    expect_bad_state(&b, "a last move of one square");
    patched(&s, LAST_AT + 2, 34, &b);
    expect_bad_state(&b, "a last move that is no step");
    patched(&s, LAST_AT + 5, 9, &b);
    expect_bad_state(&b, "a square past the last move's count");
    patched(&s, BOARD_AT, 5, &b);
    expect_bad_state(&b, "board code 5");
    patched(&s, BOARD_AT, KD_CK_WHITE_MAN, &b);
    expect_bad_state(&b, "a white man on a1 would be a king");
    kd_buf_fini(&b);
}

Test(ck_encodings, undo_command_and_texts_refuse_malformed_input)
{
    kd_ck_state s;
    ck_new_game(&s);
    kd_ck_undo u;
    kd_reject rej = {{0}, {0}};
    cr_assert_eq(ck_exec(&s, "b6a5", &s.players[0], &u, &rej), KD_OK);
    kd_buf b;
    kd_buf_init(&b);
    cr_assert_eq(kd_ck_undo_encode(&u, &b), KD_OK);
    kd_ck_undo d;
    cr_expect_eq(kd_ck_ops.decode_undo(b.data, b.len, &d), KD_OK);
    cr_expect_eq(kd_ck_ops.decode_undo(b.data, b.len - 1, &d), KD_ERR_DECODE);
    size_t flips[] = {0, 1, 2, 15, 29, 31, 32, 33};
    uint8_t values[] = {2, 1, 40, 3, 0x10, 2, 80, 1};
    for (size_t i = 0; i < sizeof flips / sizeof flips[0]; i++) {
        uint8_t copy[KD_CK_UNDO_LEN];
        memcpy(copy, b.data, sizeof copy);
        copy[flips[i]] = values[i];
        cr_expect_eq(kd_ck_ops.decode_undo(copy, sizeof copy, &d), KD_ERR_DECODE, "byte %zu", flips[i]);
    }

    kd_ck_command cmd;
    cr_expect_eq(kd_ck_command_decode(NULL, 0, &cmd, &rej), KD_ERR_BAD_COMMAND);
    static const uint8_t garbage[] = {0xff, 0xff, 0xff};
    cr_expect_eq(kd_ck_command_decode(garbage, sizeof garbage, &cmd, &rej), KD_ERR_BAD_COMMAND);
    static const uint32_t many[20] = {0};
    uint8_t packed[KD_CK_COMMAND_MAX];
    size_t len = kd_ck_command_pack(many, 13, packed);
    cr_expect_eq(kd_ck_command_decode(packed, len, &cmd, &rej), KD_OK);
    cr_expect_eq(cmd.count, 13);

    kd_ck_path p;
    char why[200];
    cr_expect_eq(kd_ck_path_parse("b6d4f2", &p, why, sizeof why), KD_OK);
    cr_expect_eq(p.count, 3);
    cr_expect_eq(kd_ck_path_parse("B6-a5", &p, why, sizeof why), KD_OK);
    cr_expect_eq(kd_ck_path_parse("b6xd4xf2", &p, why, sizeof why), KD_OK);
    static const char *const bad[] = {
        "", "b6", "b6a", "b6a9", "i6a5", "b6 a5", "a6b5", "-b6a5", "b6a5b4a3b2a1b2a3b4a5b6a7b8a7"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_expect_eq(kd_ck_path_parse(bad[i], &p, why, sizeof why), KD_ERR_BAD_COMMAND, "%s", bad[i]);
    kd_ck_position pos;
    cr_expect_eq(kd_ck_text_parse(CK_START_TEXT, &pos, why, sizeof why), KD_OK);
    char text[KD_CK_TEXT_LEN];
    kd_ck_text_format(&pos, text);
    cr_expect_str_eq(text, CK_START_TEXT);
    cr_expect_eq(kd_ck_text_parse(".w.w.w.w/w.w.w.w./.w.w.w.w/......../......../b.b.b.b./.b.b.b.b/b.b.b.b.  w", &pos,
                                  why, sizeof why),
                 KD_ERR_BAD_PARAMS);
    cr_expect_eq(kd_ck_text_parse(".w.w.w.w/w.w.w.w./.w.w.w.w/......../........|b.b.b.b./.b.b.b.b/b.b.b.b. w", &pos,
                                  why, sizeof why),
                 KD_ERR_BAD_PARAMS);
    cr_expect_eq(kd_ck_text_parse(NULL, &pos, why, sizeof why), KD_ERR_BAD_PARAMS);
    kd_buf_fini(&b);
}

/* ---------------------------------------------------------------- perft */

/* Move sequences of exactly `depth` plies, by the rules' own generator,
 * play and rollback (no signatures). */
static uint64_t perft_rules(kd_ck_state *s, unsigned depth)
{
    if (depth == 0)
        return 1;
    if (s->status != KD_CK_IN_PROGRESS)
        return 0;
    kd_ck_position pos;
    memcpy(pos.board, s->board, sizeof pos.board);
    pos.turn = s->turn;
    kd_ck_moves moves;
    kd_ck_moves_list(&pos, &moves);
    uint64_t n = 0;
    for (size_t i = 0; i < moves.count; i++) {
        kd_ck_command cmd;
        memset(&cmd, 0, sizeof cmd);
        cmd.count = moves.moves[i].count;
        for (size_t k = 0; k < cmd.count; k++)
            cmd.squares[k] = moves.moves[i].squares[k];
        kd_ck_undo undo;
        kd_reject rej = {{0}, {0}};
        cr_assert_eq(kd_ck_play_unchecked(s, &cmd, &undo, &rej), KD_OK, "%s", rej.detail);
        n += perft_rules(s, depth - 1);
        cr_assert_eq(kd_ck_rollback(s, &undo), KD_OK);
    }
    return n;
}

/* The same through the type table: legal_moves, the engine's execute
 * signed by the seat to move, rollback. */
static uint64_t perft_table(kd_ck_state *s, unsigned depth)
{
    if (depth == 0)
        return 1;
    kd_legal_moves moves;
    kd_legal_moves_init(&moves);
    cr_assert_eq(T->legal_moves(s, s->turn, &moves), KD_OK);
    uint64_t n = 0;
    for (size_t i = 0; i < moves.count; i++) {
        kd_ck_undo undo;
        kd_reject rej = {{0}, {0}};
        cr_assert_eq(kd_ck_ops.execute(s, moves.moves[i].command, moves.moves[i].command_len, &s->players[s->turn],
                                       NULL, &undo, &rej),
                     KD_OK, "%s", rej.detail);
        n += perft_table(s, depth - 1);
        cr_assert_eq(kd_ck_ops.rollback(s, &undo), KD_OK);
    }
    kd_legal_moves_fini(&moves);
    return n;
}

/* English draughts' published perft counts from the start (the e2e
 * script checks depth 8, 845931, through `kdapp perft`). */
static const uint64_t published[] = {1, 7, 49, 302, 1469, 7361, 36768, 179740};

Test(ck_perft, the_published_counts_to_depth_7, .timeout = 60)
{
    kd_ck_state s, start;
    ck_new_game(&s);
    start = s;
    for (unsigned d = 0; d <= 7; d++) {
        cr_expect_eq(perft_rules(&s, d), published[d], "depth %u", d);
        cr_assert_eq(memcmp(&s, &start, sizeof s), 0, "perft restores the start");
    }
    for (unsigned d = 0; d <= 5; d++)
        cr_expect_eq(perft_table(&s, d), published[d], "depth %u through the table", d);
    cr_assert_eq(memcmp(&s, &start, sizeof s), 0);
}
