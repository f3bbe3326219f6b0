/*
 * chess_test.c — chess (episodes/chess/chess*.c): FEN in and out (round trips,
 * every refused field, the en-passant square made canonical), the rules
 * (en passant, castling and its rights, promotions, checkmate, stalemate,
 * each automatic draw and its rollback), every refusal code with its
 * sentence and the state untouched, SAN (disambiguation, castling,
 * promotion, check and mate), rollback byte-identical over random games,
 * the encodings and the command wire, and perft on the chessprogramming
 * wiki's positions to cheap depths (the deep counts are
 * chess_kdapp.sh's, through `kdapp perft`).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chess.pb-c.h"
#include "engine/crypto.h"
#include "episodes/chess/chess.h"
#include "episodes/chess_support.h"
#include "episodes/wire_alloc.h"

#define KIWIPETE "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"

/* Expects `uci` signed by `signer` refused with rule `code` and a sentence
 * containing `words` (may be NULL), the state's bytes unchanged. */
static void expect_rule(kd_chess_state *s, const char *uci, const kd_pubkey *signer, const char *code,
                        const char *words)
{
    kd_chess_state before;
    memcpy(&before, s, sizeof before);
    kd_chess_undo undo;
    kd_reject rej = {{0}, {0}};
    cr_assert_eq(chess_exec(s, uci, signer, &undo, &rej), KD_ERR_RULE, "%s: want %s", uci, code);
    cr_expect_str_eq(rej.code, code, "%s", uci);
    cr_expect(rej.detail[0], "a sentence says why");
    if (words)
        cr_expect(strstr(rej.detail, words), "%s: '%s' lacks '%s'", uci, rej.detail, words);
    cr_expect_eq(memcmp(&before, s, sizeof before), 0, "state untouched");
}

/* The SAN of UCI `uci` in `s` (a legal move). */
static const char *san_of(const kd_chess_state *s, const char *uci, char out[KD_CHESS_SAN_MAX])
{
    int from, to, promo;
    kd_chess_move m;
    cr_assert_eq(kd_chess_uci_parse(uci, &from, &to, &promo), 0);
    cr_assert_eq(kd_chess_find_move(s, from, to, promo, &m), 0, "%s is legal", uci);
    kd_chess_san(s, m, out);
    return out;
}

#define ANY_STATUS 0xff

/* Plays one move and rolls it back through the ops, checking the bytes
 * and the status after the move (unless ANY_STATUS). */
static void play_and_back(kd_chess_state *s, const char *uci, uint8_t want_status)
{
    kd_chess_state before;
    memcpy(&before, s, sizeof before);
    kd_chess_undo undo;
    kd_reject rej = {{0}, {0}};
    cr_assert_eq(chess_exec(s, uci, &s->players[s->side], &undo, &rej), KD_OK, "%s: %s", uci, rej.detail);
    if (want_status != ANY_STATUS)
        cr_expect_eq(kd_chess_status_of(s), want_status, "%s: status %u", uci, kd_chess_status_of(s));
    cr_assert_eq(kd_chess_ops.rollback(s, &undo), KD_OK);
    cr_expect_eq(memcmp(&before, s, sizeof before), 0, "%s: rollback restores the bytes", uci);
}

/* ---------------------------------------------------------------- FEN */

Test(chess_fen, round_trips_of_the_standard_and_suite_positions)
{
    static const char *const fens[] = {
        KD_CHESS_START_FEN,
        KIWIPETE,
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    };
    for (size_t i = 0; i < sizeof fens / sizeof fens[0]; i++) {
        kd_chess_state s;
        char why[160] = "", out[KD_CHESS_FEN_MAX];
        cr_assert_eq(kd_chess_from_fen(fens[i], &s, why, sizeof why), KD_OK, "%s: %s", fens[i], why);
        cr_expect_str_eq(chess_fen(&s, out), fens[i]);
        cr_expect_eq(kd_chess_status_of(&s), KD_CHESS_IN_PROGRESS);
    }
}

Test(chess_fen, each_wrong_field_is_named)
{
    static const struct {
        const char *fen, *words;
    } bad[] = {
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1", "placement"},
        {"rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "placement"},
        {"rnbqkbnr/ppppxppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "'x' is not a piece"},
        {"rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "more than 8 squares"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQQBNR w KQkq - 0 1", "exactly one king"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNP w KQkq - 0 1", "a pawn on rank 1"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", "side to move"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkz - 0 1", "castling field"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KKkq - 0 1", "'K' twice"},
        {"rnbqkbn1/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "right 'k' needs the black king on e8"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e9 0 1", "en-passant field"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e3 0 1", "rank 6"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 1", "no black pawn"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1", "half-move clock"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 0", "full-move number"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 4000000001", "full-move number"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0", "6 fields"},
        {"4k3/8/8/8/8/8/8/4KR2 w - - 0 1", "4k3"}, /* legal: no error expected (see below) */
        {"4k3/4R3/8/8/8/8/8/4K3 w - - 0 1", "side not to move (black) is in check"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        kd_chess_state s;
        char why[160] = "";
        kd_err err = kd_chess_from_fen(bad[i].fen, &s, why, sizeof why);
        if (strcmp(bad[i].words, "4k3") == 0) {
            cr_expect_eq(err, KD_OK, "%s: %s", bad[i].fen, why);
            continue;
        }
        cr_expect_eq(err, KD_ERR_BAD_PARAMS, "%s", bad[i].fen);
        cr_expect(strstr(why, bad[i].words), "%s:\n  got  %s\n  want %s", bad[i].fen, why, bad[i].words);
        cr_expect(strncmp(why, "FEN ", 4) == 0, "%s", why);
    }
}

Test(chess_fen, a_game_starts_by_move_a_million_and_its_fen_reads_back_beyond)
{
    kd_chess_state s;
    char why[160] = "", fen[KD_CHESS_FEN_MAX];
    cr_expect_eq(kd_chess_start_from_fen("k7/8/8/8/8/8/8/K6R b - - 0 1000001", &s, why, sizeof why), KD_ERR_BAD_PARAMS);
    cr_expect(strstr(why, "full-move number 1000001"), "%s", why);
    chess_new_game(&s, "k7/8/8/8/8/8/8/K6R b - - 0 1000000");
    chess_play(&s, "a8b8");
    cr_expect_str_eq(chess_fen(&s, fen), "1k6/8/8/8/8/8/8/K6R w - - 1 1000001");
    kd_chess_state back;
    cr_expect_eq(kd_chess_from_fen(fen, &back, why, sizeof why), KD_OK, "a view's FEN reads back: %s", why);
    cr_expect_eq(
        kd_chess_from_fen("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 150 4000000000", &back, why, sizeof why),
        KD_OK, "the longest FEN fits: %s", why);
}

Test(chess_fen, resolve_params_stores_the_canonical_fen)
{
    /* an en-passant square no pawn can take on is dropped; extra spaces go */
    kd_buf params, eff;
    kd_buf_init(&params);
    kd_buf_init(&eff);
    kd_reject rej = {{0}, {0}};
    cr_assert_eq(kd_chess_params_encode("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR  b KQkq e3 0 1", &params),
                 KD_OK);
    cr_assert_eq(kd_chess_ops.resolve_params(NULL, params.data, params.len, &eff, &rej), KD_OK, "%s", rej.detail);
    char fen[KD_CHESS_FEN_MAX];
    cr_assert_eq(kd_chess_params_decode(eff.data, eff.len, fen, &rej), KD_OK);
    cr_expect_str_eq(fen, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
    /* no params: the standard position, explicitly */
    eff.len = 0;
    cr_assert_eq(kd_chess_ops.resolve_params(NULL, NULL, 0, &eff, &rej), KD_OK);
    cr_assert_eq(kd_chess_params_decode(eff.data, eff.len, fen, &rej), KD_OK);
    cr_expect_str_eq(fen, KD_CHESS_START_FEN);
    /* a bad FEN is refused with the sentence */
    params.len = eff.len = 0;
    cr_assert_eq(kd_chess_params_encode("8/8/8/8/8/8/8/8 w - - 0 1", &params), KD_OK);
    cr_expect_eq(kd_chess_ops.resolve_params(NULL, params.data, params.len, &eff, &rej), KD_ERR_BAD_PARAMS);
    cr_expect(strstr(rej.detail, "king"), "%s", rej.detail);
    /* bytes that are not ChessParams */
    const uint8_t junk[] = {0xff, 0xff, 0xff};
    cr_expect_eq(kd_chess_ops.resolve_params(NULL, junk, sizeof junk, &eff, &rej), KD_ERR_BAD_PARAMS);
    kd_buf_fini(&params);
    kd_buf_fini(&eff);
}

/* ---------------------------------------------------------------- rules */

Test(chess_rules, en_passant_is_offered_taken_and_rolled_back)
{
    kd_chess_state s;
    char fen[KD_CHESS_FEN_MAX], san[KD_CHESS_SAN_MAX];
    chess_new_game(&s, NULL);
    chess_play(&s, "e2e4 a7a6 e4e5 d7d5");
    cr_expect_str_eq(chess_fen(&s, fen), "rnbqkbnr/1pp1pppp/p7/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3");
    cr_expect_str_eq(san_of(&s, "e5d6", san), "exd6");
    play_and_back(&s, "e5d6", KD_CHESS_IN_PROGRESS);
    chess_play(&s, "e5d6");
    cr_expect_eq(s.board[35], 0, "the pawn taken en passant is gone from d5");
    chess_new_game(&s, NULL);
    chess_play(&s, "e2e4 a7a6 e4e5 d7d5 a2a3 a6a5");
    cr_expect_eq(s.ep, KD_CHESS_NO_SQUARE, "the right lapses after one move");
    expect_rule(&s, "e5d6", &s.players[0], "illegal_move", "pawn on e5 cannot move so");
}

Test(chess_rules, an_en_passant_capture_that_uncovers_the_king_is_refused)
{
    kd_chess_state s;
    char fen[KD_CHESS_FEN_MAX];
    chess_new_game(&s, "8/8/8/8/k4p1R/8/4P3/4K3 w - - 0 1");
    chess_play(&s, "e2e4");
    /* f4xe3 would leave the rank a4-h4 open: no ep square in the FEN */
    cr_expect_str_eq(chess_fen(&s, fen), "8/8/8/8/k3Pp1R/8/8/4K3 b - - 0 1");
    expect_rule(&s, "f4e3", &s.players[1], "illegal_move", NULL);
}

Test(chess_rules, castling_both_ways_and_never_through_check)
{
    kd_chess_state s;
    char san[KD_CHESS_SAN_MAX], fen[KD_CHESS_FEN_MAX];
    chess_new_game(&s, "r3k2r/8/8/8/8/8/5r2/R3K2R w KQkq - 0 1");
    expect_rule(&s, "e1g1", &s.players[0], "in_check", "castle out of, through or into check");
    cr_expect_str_eq(san_of(&s, "e1c1", san), "O-O-O");
    chess_play(&s, "e1c1");
    cr_expect_eq(s.board[3], KD_CHESS_ROOK, "the rook on d1");
    cr_expect_eq(s.board[2], KD_CHESS_KING, "the king on c1");
    cr_expect_str_eq(san_of(&s, "e8g8", san), "O-O");
    chess_play(&s, "e8g8");
    cr_expect_str_eq(chess_fen(&s, fen), "r4rk1/8/8/8/8/8/5r2/2KR3R w - - 2 2");
    /* out of check */
    chess_new_game(&s, "r3k2r/8/8/8/8/8/4r3/R3K2R w KQkq - 0 1");
    cr_expect(kd_chess_in_check(&s));
    expect_rule(&s, "e1c1", &s.players[0], "in_check", "castle");
    /* into check, and blocked */
    chess_new_game(&s, "r3k2r/8/8/8/8/8/6r1/R3K1NR w KQkq - 0 1");
    expect_rule(&s, "e1g1", &s.players[0], "illegal_move", NULL);
    chess_new_game(&s, "r3k2r/8/8/8/8/8/2r5/R3K2R w KQkq - 0 1");
    expect_rule(&s, "e1c1", &s.players[0], "in_check", NULL);
    chess_play(&s, "e1g1");
}

Test(chess_rules, castling_rights_are_lost_for_good)
{
    kd_chess_state s;
    char fen[KD_CHESS_FEN_MAX];
    chess_new_game(&s, "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    chess_play(&s, "h1h2 a8a7 h2h1 a7a8");
    cr_expect_str_eq(chess_fen(&s, fen), "r3k2r/8/8/8/8/8/8/R3K2R w Qk - 4 3");
    chess_play(&s, "e1d1 e8d8 d1e1 d8e8");
    cr_expect_eq(s.castling, 0);
    expect_rule(&s, "e1c1", &s.players[0], "illegal_move", NULL);
    /* a rook captured on its square takes the right with it */
    chess_new_game(&s, "r3k2r/8/8/8/8/8/6b1/R3K2R b KQkq - 0 1");
    chess_play(&s, "g2h1");
    cr_expect_str_eq(chess_fen(&s, fen), "r3k2r/8/8/8/8/8/8/R3K2b w Qkq - 0 2");
}

Test(chess_rules, promotions_to_each_piece)
{
    kd_chess_state s;
    char san[KD_CHESS_SAN_MAX];
    chess_new_game(&s, "8/P7/8/8/8/8/8/k6K w - - 0 1");
    cr_expect_str_eq(san_of(&s, "a7a8q", san), "a8=Q+");
    cr_expect_str_eq(san_of(&s, "a7a8r", san), "a8=R+");
    cr_expect_str_eq(san_of(&s, "a7a8b", san), "a8=B");
    cr_expect_str_eq(san_of(&s, "a7a8n", san), "a8=N");
    expect_rule(&s, "a7a8", &s.players[0], "bad_promotion", "a7a8");
    const uint8_t pieces[4] = {KD_CHESS_QUEEN, KD_CHESS_ROOK, KD_CHESS_BISHOP, KD_CHESS_KNIGHT};
    const char *const moves[4] = {"a7a8q", "a7a8r", "a7a8b", "a7a8n"};
    for (int i = 0; i < 4; i++) {
        kd_chess_state t;
        memcpy(&t, &s, sizeof t);
        /* a lone bishop or knight cannot mate: drawn at once (chess.js) */
        play_and_back(&t, moves[i], i < 2 ? KD_CHESS_IN_PROGRESS : KD_CHESS_DRAW_MATERIAL);
        chess_play(&t, moves[i]);
        cr_expect_eq(t.board[56], pieces[i], "%s", moves[i]);
        cr_expect_eq(t.halfmove, 0);
    }
    /* a promotion piece on a move that does not promote, and a king */
    chess_new_game(&s, NULL);
    expect_rule(&s, "e2e4q", &s.players[0], "bad_promotion", NULL);
    /* capturing promotion, with SAN */
    chess_new_game(&s, "1r6/P7/8/8/8/8/8/k6K w - - 0 1");
    cr_expect_str_eq(san_of(&s, "a7b8n", san), "axb8=N");
}

Test(chess_rules, checkmate_ends_the_game)
{
    kd_chess_state s;
    char san[KD_CHESS_SAN_MAX];
    chess_new_game(&s, NULL);
    chess_play(&s, "f2f3 e7e5 g2g4");
    cr_expect_str_eq(san_of(&s, "d8h4", san), "Qh4#");
    play_and_back(&s, "d8h4", KD_CHESS_BLACK_WON);
    chess_play(&s, "d8h4");
    cr_expect_eq(kd_chess_status_of(&s), KD_CHESS_BLACK_WON);
    cr_expect(kd_chess_in_check(&s));
    kd_chess_last_san(&s, san);
    cr_expect_str_eq(san, "Qh4#");
    expect_rule(&s, "a2a3", &s.players[0], "game_over", "checkmated");
}

Test(chess_rules, stalemate_draws)
{
    kd_chess_state s;
    chess_new_game(&s, "k7/8/8/2Q5/8/8/8/7K w - - 0 1");
    play_and_back(&s, "c5b6", KD_CHESS_STALEMATE);
    chess_play(&s, "c5b6");
    cr_expect(!kd_chess_in_check(&s));
    expect_rule(&s, "a8a7", &s.players[1], "game_over", "stalemate");
}

Test(chess_rules, insufficient_material_draws_as_chess_js_judges)
{
    kd_chess_state s;
    chess_new_game(&s, "k7/8/8/8/8/8/1r6/K1N5 w - - 0 1");
    play_and_back(&s, "a1b2", KD_CHESS_DRAW_MATERIAL);
    static const struct {
        const char *fen;
        int draw;
    } cases[] = {
        {"k7/8/8/8/8/8/8/K7 w - - 0 1", 1},    {"k7/8/8/8/8/8/8/KB6 w - - 0 1", 1},
        {"k7/8/8/8/8/8/8/KN6 w - - 0 1", 1},   {"k6b/8/8/8/8/8/8/KB6 w - - 0 1", 0},
        {"k5b1/8/8/8/8/8/8/KB6 w - - 0 1", 1}, {"k7/8/8/8/8/8/8/KNN5 w - - 0 1", 0},
        {"k6n/8/8/8/8/8/8/KN6 w - - 0 1", 0},  {"k7/8/8/8/8/8/1P6/K7 w - - 0 1", 0},
        {"k7/8/8/8/8/8/8/KR6 w - - 0 1", 0},   {"k7/8/8/8/8/8/3B4/KB6 w - - 0 1", 0},
        {"k7/8/8/8/8/8/8/KB1B4 w - - 0 1", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kd_chess_state t;
        char why[160];
        cr_assert_eq(kd_chess_from_fen(cases[i].fen, &t, why, sizeof why), KD_OK, "%s", why);
        cr_expect_eq(kd_chess_status_of(&t) == KD_CHESS_DRAW_MATERIAL, cases[i].draw, "%s", cases[i].fen);
    }
}

Test(chess_rules, threefold_repetition_draws_and_rolls_back)
{
    kd_chess_state s;
    chess_new_game(&s, NULL);
    chess_play(&s, "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1");
    cr_expect_eq(kd_chess_status_of(&s), KD_CHESS_IN_PROGRESS, "the start position twice, not three times yet");
    play_and_back(&s, "f6g8", KD_CHESS_DRAW_REPETITION);
    chess_play(&s, "f6g8");
    expect_rule(&s, "e2e4", &s.players[0], "game_over", "threefold");
    /* the same placement with other castling rights is another position */
    chess_new_game(&s, NULL);
    chess_play(&s, "e2e4 e7e5 e1e2 e8e7 e2e1 e7e8 e1e2 e8e7 e2e1 e7e8 e1e2");
    cr_expect_eq(kd_chess_status_of(&s), KD_CHESS_IN_PROGRESS,
                 "Ke2 with black to move: twice without black's rights, once with");
    play_and_back(&s, "e8e7", KD_CHESS_DRAW_REPETITION);
}

Test(chess_rules, fifty_moves_draw_but_a_mate_on_the_hundredth_ply_wins)
{
    kd_chess_state s;
    chess_new_game(&s, "k7/8/8/8/8/8/8/K6R w - - 99 80");
    play_and_back(&s, "h1h2", KD_CHESS_DRAW_FIFTY);
    play_and_back(&s, "h1h8", KD_CHESS_DRAW_FIFTY); /* check, not mate: the king steps to b7 */
    chess_new_game(&s, "k7/8/1K6/8/8/8/8/7R w - - 99 80");
    play_and_back(&s, "h1h8", KD_CHESS_WHITE_WON);
    /* game_over before anything else, named by the whole status: the
     * mate, though the clock has reached 100 too */
    chess_play(&s, "h1h8");
    expect_rule(&s, "a8a7", &s.players[1], "game_over", "white has checkmated black");
    expect_rule(&s, "a8a7", NULL, "game_over", "checkmated");
    chess_new_game(&s, "k7/8/8/8/8/8/8/K6R w - - 99 80");
    chess_play(&s, "h1h2");
    expect_rule(&s, "a8b8", &s.players[1], "game_over", "fifty-move rule");
    expect_rule(&s, "a8a1", &s.players[1], "game_over", "fifty-move rule");
    /* a capture or a pawn move resets the clock */
    chess_new_game(&s, "k7/8/8/8/8/8/P7/K6R w - - 99 80");
    play_and_back(&s, "a2a3", KD_CHESS_IN_PROGRESS);
}

Test(chess_rules, every_refusal_code_with_its_sentence)
{
    kd_chess_state s;
    chess_keys k;
    chess_keys_make(&k);
    chess_new_game(&s, NULL);
    expect_rule(&s, "e2e4", NULL, "unauthorised", "unsigned");
    expect_rule(&s, "e2e4", &k.stranger.pub, "unauthorised", "not a participant");
    expect_rule(&s, "e7e5", &k.black.pub, "not_your_turn", "white's turn");
    expect_rule(&s, "e3e4", &k.white.pub, "no_piece", "Illegal move e3e4: there is no piece on e3");
    expect_rule(&s, "e7e5", &k.white.pub, "not_your_piece", "black's");
    expect_rule(&s, "c1c3", &k.white.pub, "illegal_move", "the bishop on c1 cannot move so");
    expect_rule(&s, "g1g3", &k.white.pub, "illegal_move", "knight");
    expect_rule(&s, "e2e5", &k.white.pub, "illegal_move", "pawn");
    expect_rule(&s, "a1a3", &k.white.pub, "illegal_move", "rook");
    /* off the board: only the wire can say it */
    uint8_t cmd[KD_CHESS_COMMAND_MAX];
    size_t len = kd_chess_command_pack(64, 12, 0, cmd);
    kd_chess_undo undo;
    kd_reject rej = {{0}, {0}};
    cr_expect_eq(kd_chess_ops.execute(&s, cmd, len, &k.white.pub, NULL, &undo, &rej), KD_ERR_RULE);
    cr_expect_str_eq(rej.code, "bad_square");
    len = kd_chess_command_pack(12, 28, 9, cmd);
    cr_expect_eq(kd_chess_ops.execute(&s, cmd, len, &k.white.pub, NULL, &undo, &rej), KD_ERR_RULE);
    cr_expect_str_eq(rej.code, "bad_promotion");
    /* a pinned piece, and a king stepping into check */
    chess_new_game(&s, "4k3/4r3/8/8/8/8/4B3/4K3 w - - 0 1");
    expect_rule(&s, "e2d3", &k.white.pub, "in_check", "Illegal move e2d3: king would be in check");
    chess_new_game(&s, "4k3/3r4/8/8/8/8/8/4K3 w - - 0 1");
    expect_rule(&s, "e1d2", &k.white.pub, "in_check", "king would be in check");
    /* malformed bytes are not a rule's */
    const uint8_t junk[] = {0x0a, 0x05};
    cr_expect_eq(kd_chess_ops.execute(&s, junk, sizeof junk, &k.white.pub, NULL, &undo, &rej), KD_ERR_BAD_COMMAND);
    cr_expect_eq(kd_chess_ops.execute(&s, NULL, 0, &k.white.pub, NULL, &undo, &rej), KD_ERR_BAD_COMMAND);
}

/* ---------------------------------------------------------------- SAN */

Test(chess_san, disambiguation_by_file_rank_or_both_and_only_among_legal_moves)
{
    kd_chess_state s;
    char san[KD_CHESS_SAN_MAX];
    chess_new_game(&s, "k7/8/8/8/8/8/8/KN3N2 w - - 0 1");
    cr_expect_str_eq(san_of(&s, "b1d2", san), "Nbd2");
    cr_expect_str_eq(san_of(&s, "f1d2", san), "Nfd2");
    cr_expect_str_eq(san_of(&s, "b1c3", san), "Nc3");
    chess_new_game(&s, "7k/8/8/R7/8/8/8/R5K1 w - - 0 1");
    cr_expect_str_eq(san_of(&s, "a1a3", san), "R1a3");
    cr_expect_str_eq(san_of(&s, "a5a3", san), "R5a3");
    chess_new_game(&s, "8/8/6k1/8/8/Q7/8/Q1Q4K w - - 0 1");
    cr_expect_str_eq(san_of(&s, "a1b2", san), "Qa1b2");
    /* the knight on e2 is pinned: Nc3 needs no file */
    chess_new_game(&s, "k3r3/8/8/8/8/8/4N3/1N2K3 w - - 0 1");
    cr_expect_str_eq(san_of(&s, "b1c3", san), "Nc3");
    /* captures, check and a pawn capture */
    chess_new_game(&s, "k7/8/8/3p4/4P3/8/8/K7 w - - 0 1");
    cr_expect_str_eq(san_of(&s, "e4d5", san), "exd5");
    chess_new_game(&s, "k7/8/8/3p4/8/8/8/K2R4 w - - 0 1");
    cr_expect_str_eq(san_of(&s, "d1d5", san), "Rxd5");
    chess_new_game(&s, "k7/8/8/8/8/8/8/K2R4 w - - 0 1");
    cr_expect_str_eq(san_of(&s, "d1d8", san), "Rd8+");
}

/* ------------------------------------------------------ random games */

/* From the standard start, every legal move rolling back byte for byte and
 * the encodings round-tripping are type_laws_test's, for every type; here
 * from Kiwipete (castling both ways, en passant, promotions near), and a
 * whole game unwound where each record, once undone, is refused. */
Test(chess_rollback, kiwipete_games_roll_back_and_an_undone_record_is_refused, .timeout = 60)
{
    uint64_t rng = 7;
    for (int game = 0; game < 6; game++) {
        kd_chess_state s, start;
        chess_new_game(&s, KIWIPETE);
        memcpy(&start, &s, sizeof s);
        kd_chess_undo *stack = calloc(400, sizeof *stack);
        cr_assert_not_null(stack);
        int plies = 0;
        while (kd_chess_status_of(&s) == KD_CHESS_IN_PROGRESS && plies < 300) {
            kd_chess_move moves[KD_CHESS_MOVES_MAX];
            int n = kd_chess_legal_moves(&s, moves);
            cr_assert_gt(n, 0, "a game in progress has a move");
            for (int i = 0; i < n; i++) {
                char uci[KD_CHESS_UCI_MAX];
                kd_chess_uci(moves[i], uci);
                play_and_back(&s, uci, ANY_STATUS);
            }
            char uci[KD_CHESS_UCI_MAX];
            kd_chess_uci(moves[kd_type_rng_below(&rng, (uint32_t)n)], uci);
            kd_reject rej = {{0}, {0}};
            cr_assert_eq(chess_exec(&s, uci, &s.players[s.side], &stack[plies], &rej), KD_OK, "%s", rej.detail);
            plies++;
        }
        while (plies > 0) {
            cr_assert_eq(kd_chess_ops.rollback(&s, &stack[--plies]), KD_OK);
            /* the record just undone is not the last move's any more */
            kd_chess_state before;
            memcpy(&before, &s, sizeof s);
            cr_expect_eq(kd_chess_ops.rollback(&s, &stack[plies]), KD_ERR_DECODE, "ply %d", plies);
            cr_expect_eq(memcmp(&before, &s, sizeof s), 0, "a refused rollback leaves the state");
        }
        cr_expect_eq(memcmp(&s, &start, sizeof s), 0, "the whole game unwound");
        free(stack);
    }
}

/* The engine keeps states and undo records as bytes: a revert decodes the
 * state, decodes the last move's record and rolls back. Over long random
 * games (captures, the ring wrapping past KD_CHESS_RING plies) every such
 * rollback from decoded bytes gives exactly the previous state's bytes. */
Test(chess_encoding, rollback_from_decoded_states_is_exact, .timeout = 60)
{
    uint64_t rng = 11;
    int captures = 0, longest = 0;
    for (int game = 0; game < 6; game++) {
        kd_chess_state s;
        chess_new_game(&s, game % 2 ? KIWIPETE : NULL);
        kd_buf *states = calloc(301, sizeof *states), *undos = calloc(301, sizeof *undos);
        cr_assert(states && undos);
        int plies = 0;
        kd_buf_init(&states[0]);
        cr_assert_eq(kd_chess_ops.encode_state(&s, &states[0]), KD_OK);
        cr_expect_eq(states[0].len, KD_CHESS_STATE_FIXED_LEN + 8, "a new game carries one hash");
        while (kd_chess_status_of(&s) == KD_CHESS_IN_PROGRESS && plies < 300) {
            kd_chess_move moves[KD_CHESS_MOVES_MAX];
            int n = kd_chess_legal_moves(&s, moves);
            /* quiet moves mostly, so games last past the ring's length */
            kd_chess_move m = moves[kd_type_rng_below(&rng, (uint32_t)n)];
            for (int tries = 0; tries < 3 && (m.flags & KD_CHESS_CAPTURE); tries++)
                m = moves[kd_type_rng_below(&rng, (uint32_t)n)];
            captures += (m.flags & KD_CHESS_CAPTURE) != 0;
            char uci[KD_CHESS_UCI_MAX];
            kd_chess_uci(m, uci);
            kd_chess_undo u;
            kd_reject rej = {{0}, {0}};
            cr_assert_eq(chess_exec(&s, uci, &s.players[s.side], &u, &rej), KD_OK, "%s", rej.detail);
            plies++;
            kd_buf_init(&states[plies]);
            kd_buf_init(&undos[plies]);
            cr_assert_eq(kd_chess_ops.encode_state(&s, &states[plies]), KD_OK);
            cr_assert_eq(kd_chess_ops.encode_undo(&u, &undos[plies]), KD_OK);
            size_t hashes = plies < KD_CHESS_RING ? (size_t)plies + 1 : KD_CHESS_RING;
            cr_assert_eq(states[plies].len, KD_CHESS_STATE_FIXED_LEN + 8 * hashes, "ply %d", plies);
        }
        longest = plies > longest ? plies : longest;
        for (int k = plies; k > 0; k--) {
            kd_chess_state t, prev;
            kd_chess_undo u;
            kd_buf enc;
            kd_buf_init(&enc);
            cr_assert_eq(kd_chess_ops.decode_state(states[k].data, states[k].len, &t), KD_OK, "ply %d", k);
            cr_assert_eq(kd_chess_ops.encode_state(&t, &enc), KD_OK);
            cr_assert(enc.len == states[k].len && memcmp(enc.data, states[k].data, enc.len) == 0,
                      "encode(decode(b)) == b at ply %d", k);
            cr_assert_eq(kd_chess_ops.decode_undo(undos[k].data, undos[k].len, &u), KD_OK);
            cr_assert_eq(kd_chess_ops.rollback(&t, &u), KD_OK, "ply %d", k);
            cr_assert_eq(kd_chess_ops.decode_state(states[k - 1].data, states[k - 1].len, &prev), KD_OK);
            cr_assert_eq(memcmp(&t, &prev, sizeof t), 0, "rollback from decoded ply %d gives ply %d's state", k, k - 1);
            kd_buf_fini(&enc);
            kd_buf_fini(&undos[k]);
        }
        for (int k = 0; k <= plies; k++)
            kd_buf_fini(&states[k]);
        free(states);
        free(undos);
    }
    cr_expect_gt(captures, 10);
    cr_expect_gt(longest, KD_CHESS_RING + 10, "a game wraps the ring");
}

/* kd_chess_find_move checks one move from its geometry; the generator
 * lists them all: they must agree on every from, to and promotion. */
Test(chess_rules, find_move_agrees_with_the_generator_everywhere, .timeout = 60)
{
    uint64_t rng = 3;
    static const char *const starts[] = {NULL, KIWIPETE,
                                         "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
                                         "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"};
    for (int game = 0; game < 8; game++) {
        kd_chess_state s;
        chess_new_game(&s, starts[game % 4]);
        for (int ply = 0; ply < 40 && kd_chess_status_of(&s) == KD_CHESS_IN_PROGRESS; ply++) {
            kd_chess_move moves[KD_CHESS_MOVES_MAX];
            int n = kd_chess_legal_moves(&s, moves), found = 0;
            for (int from = 0; from < 64; from++) {
                if (!s.board[from] || KD_CHESS_COLOUR(s.board[from]) != s.side)
                    continue;
                for (int to = 0; to < 64; to++)
                    for (int promo = 0; promo <= 6; promo++) {
                        kd_chess_move m;
                        int listed = 0;
                        for (int i = 0; i < n; i++)
                            listed |= moves[i].from == from && moves[i].to == to && moves[i].promo == promo;
                        int r = kd_chess_find_move(&s, from, to, promo, &m);
                        cr_assert_eq(r == 0, listed, "%d -> %d promo %d: find %d, listed %d", from, to, promo, r,
                                     listed);
                        if (r == 0) {
                            found++;
                            for (int i = 0; i < n; i++)
                                if (moves[i].from == from && moves[i].to == to && moves[i].promo == promo)
                                    cr_assert_eq(memcmp(&moves[i], &m, sizeof m), 0, "the same flags");
                        }
                    }
            }
            cr_assert_eq(found, n);
            char uci[KD_CHESS_UCI_MAX];
            kd_chess_uci(moves[kd_type_rng_below(&rng, (uint32_t)n)], uci);
            chess_play(&s, uci);
        }
    }
}

Test(chess_encoding, malformed_states_and_undos_are_refused)
{
    kd_chess_state s, out;
    chess_new_game(&s, NULL);
    chess_play(&s, "e2e4 e7e5");
    kd_buf enc;
    kd_buf_init(&enc);
    chess_encode(&s, &enc);
    /* ply 2: three positions */
    cr_assert_eq(enc.len, KD_CHESS_STATE_FIXED_LEN + 3 * 8);
    cr_expect_eq(kd_chess_state_decode(enc.data, enc.len - 1, &out), KD_ERR_DECODE);
    uint8_t bad[KD_CHESS_STATE_FIXED_LEN + 4 * 8];
    memcpy(bad, enc.data, enc.len);
    memcpy(bad + enc.len, enc.data + enc.len - 8, 8);
    cr_expect_eq(kd_chess_state_decode(bad, enc.len + 8, &out), KD_ERR_DECODE, "one hash more than the plies");
    /* the version, a pawn back on e2, the white king's code, the side to
     * move, the check flag */
    static const size_t offsets[] = {0, 1 + 12, 1 + 4, 75, 82};
    for (size_t i = 0; i < sizeof offsets / sizeof offsets[0]; i++) {
        memcpy(bad, enc.data, enc.len);
        bad[offsets[i]] ^= 0x01;
        cr_expect_eq(kd_chess_state_decode(bad, enc.len, &out), KD_ERR_DECODE, "byte %zu", offsets[i]);
    }
    /* the current ring entry (ply 2) changed */
    memcpy(bad, enc.data, enc.len);
    bad[enc.len - 1] ^= 0x01;
    cr_expect_eq(kd_chess_state_decode(bad, enc.len, &out), KD_ERR_DECODE, "the current hash is checked");
    /* a ply count whose hashes the encoding does not carry */
    memcpy(bad, enc.data, enc.len);
    bad[1 + 64 + 7] = 3;
    cr_expect_eq(kd_chess_state_decode(bad, enc.len, &out), KD_ERR_DECODE, "the hashes follow the ply");
    enc.len = 0;
    kd_chess_undo u;
    memset(&u, 0, sizeof u);
    u.move.from = 70;
    cr_assert_eq(kd_chess_undo_encode(&u, &enc), KD_OK);
    cr_expect_eq(kd_chess_undo_decode(enc.data, enc.len, &u), KD_ERR_DECODE);
    kd_buf_fini(&enc);
}

Test(chess_encoding, random_undo_records_are_refused_or_exact)
{
    /* records from disk may be anything that decodes: a rollback either
     * refuses it (state untouched) or is the true inverse of the last move */
    kd_chess_state s, before;
    chess_new_game(&s, "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    chess_play(&s, "e1g1");
    memcpy(&before, &s, sizeof s);
    uint64_t rng = 9;
    int accepted = 0;
    for (int i = 0; i < 20000; i++) {
        uint8_t bytes[KD_CHESS_UNDO_LEN];
        for (size_t k = 0; k < sizeof bytes; k++)
            bytes[k] = (uint8_t)kd_type_rng_next(&rng);
        bytes[0] = KD_CHESS_VERSION;
        bytes[15] = 4;   /* from e1 */
        bytes[16] = 6;   /* to g1 */
        bytes[17] = 0;   /* no promotion */
        bytes[18] &= 15; /* flags */
        static const uint8_t captured[] = {0, 1, 2, 3, 4, 5, 9, 10, 11, 12, 13};
        bytes[19] = captured[kd_type_rng_below(&rng, sizeof captured)];
        bytes[20] &= 15;
        bytes[21] = (uint8_t)kd_type_rng_below(&rng, 65);
        bytes[22] = (uint8_t)kd_type_rng_below(&rng, 65);
        bytes[23] = (uint8_t)kd_type_rng_below(&rng, 65);
        bytes[24] = 0;
        bytes[25] &= 1;
        bytes[26] &= 1;
        kd_chess_undo u;
        if (kd_chess_undo_decode(bytes, sizeof bytes, &u) != KD_OK)
            continue;
        kd_err err = kd_chess_unmake(&s, &u);
        if (err == KD_OK) {
            accepted++;
            cr_assert_eq(s.board[4], KD_CHESS_KING, "the king is back on e1");
            cr_assert_eq(s.board[7], KD_CHESS_ROOK, "the rook on h1");
            cr_assert_eq(s.board[5] | s.board[6], 0, "nothing left between");
            memcpy(&s, &before, sizeof s);
        } else {
            cr_assert_eq(memcmp(&s, &before, sizeof s), 0, "a refused record leaves the state");
        }
    }
    cr_expect_gt(accepted, 0, "some records fit the last move's squares");
}

/* ---------------------------------------------------------------- wire */

Test(chess_wire, the_hand_packed_command_is_protobuf_c_s_and_both_decoders_agree)
{
    for (uint32_t from = 0; from < 70; from += 3)
        for (uint32_t to = 0; to < 200; to += 7)
            for (uint32_t promo = 0; promo < 7; promo++) {
                Kdapp__ChessCommand c = KDAPP__CHESS_COMMAND__INIT;
                c.from = from;
                c.to = to;
                c.promotion = promo;
                uint8_t want[64], got[KD_CHESS_COMMAND_MAX];
                size_t wn = kdapp__chess_command__pack(&c, want);
                size_t gn = kd_chess_command_pack(from, to, promo, got);
                cr_assert(wn == gn && memcmp(want, got, wn) == 0, "%u %u %u", from, to, promo);
                uint32_t f, t, p;
                if (gn == 0) { /* a1a1: no bytes at all, refused as empty */
                    cr_assert_eq(kd_chess_command_decode(got, gn, &f, &t, &p, NULL), KD_ERR_BAD_COMMAND);
                    continue;
                }
                cr_assert_eq(kd_chess_command_decode(got, gn, &f, &t, &p, NULL), KD_OK);
                cr_assert(f == from && t == to && p == promo);
            }
    /* other encodings of the same message go through protobuf-c */
    const uint8_t reordered[] = {0x10, 28, 0x08, 12}, explicit_zero[] = {0x08, 0x00, 0x10, 8},
                  repeated[] = {0x08, 1, 0x10, 2, 0x08, 12};
    uint32_t f, t, p;
    cr_expect_eq(kd_chess_command_decode(reordered, sizeof reordered, &f, &t, &p, NULL), KD_OK);
    cr_expect(f == 12 && t == 28 && p == 0);
    cr_expect_eq(kd_chess_command_decode(explicit_zero, sizeof explicit_zero, &f, &t, &p, NULL), KD_OK);
    cr_expect(f == 0 && t == 8);
    cr_expect_eq(kd_chess_command_decode(repeated, sizeof repeated, &f, &t, &p, NULL), KD_OK);
    cr_expect(f == 12 && t == 2, "the last value wins, as protobuf says");
    const uint8_t truncated[] = {0x08}, wrong_type[] = {0x0a, 0x01, 0x00};
    kd_reject rej = {{0}, {0}};
    cr_expect_eq(kd_chess_command_decode(truncated, sizeof truncated, &f, &t, &p, &rej), KD_ERR_BAD_COMMAND);
    cr_expect(strstr(rej.detail, "ChessCommand"));
    cr_expect_eq(kd_chess_command_decode(wrong_type, sizeof wrong_type, &f, &t, &p, NULL), KD_ERR_BAD_COMMAND);
}

Test(chess_wire, the_arena_unpacks_without_malloc_and_says_when_it_is_too_small)
{
    const uint8_t bytes[] = {0x10, 28, 0x08, 12}; /* not the canonical order: protobuf-c unpacks it */
    _Alignas(max_align_t) unsigned char small[8], big[256];
    kd_pb_arena arena;
    kd_pb_arena_init(&arena, small, sizeof small);
    cr_expect_null(kdapp__chess_command__unpack(&arena.base, sizeof bytes, bytes));
    cr_expect(arena.failed, "too small: failed, not malformed");
    kd_pb_arena_init(&arena, big, sizeof big);
    Kdapp__ChessCommand *c = kdapp__chess_command__unpack(&arena.base, sizeof bytes, bytes);
    cr_assert_not_null(c);
    cr_expect(!arena.failed);
    cr_expect(c->from == 12 && c->to == 28);
    cr_expect((unsigned char *)c >= big && (unsigned char *)c < big + sizeof big, "carved from the storage");
    cr_expect_eq((uintptr_t)c % _Alignof(max_align_t), 0);
}

/* ---------------------------------------------------------------- perft */

/* The chessprogramming wiki's perft positions, to depths that take well
 * under a second here (chess_kdapp.sh goes deep through `kdapp perft`). */
Test(chess_perft, the_wiki_positions_at_cheap_depths, .timeout = 60)
{
    static const struct {
        const char *fen;
        uint64_t counts[4];
    } suite[] = {
        {KD_CHESS_START_FEN, {20, 400, 8902, 197281}},
        {KIWIPETE, {48, 2039, 97862, 0}},
        {"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", {14, 191, 2812, 43238}},
        {"r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", {6, 264, 9467, 0}},
        {"rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", {44, 1486, 62379, 0}},
        {"r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", {46, 2079, 89890, 0}},
    };
    for (size_t i = 0; i < sizeof suite / sizeof suite[0]; i++) {
        kd_chess_state s;
        chess_new_game(&s, suite[i].fen);
        for (unsigned d = 1; d <= 4 && suite[i].counts[d - 1]; d++)
            cr_expect_eq(chess_perft(&s, d), suite[i].counts[d - 1], "position %zu depth %u", i + 1, d);
    }
}

Test(chess_rules, zobrist_table_is_the_formula)
{
    for (unsigned i = 0; i < KD_CHESS_ZOBRIST_LEN; i++)
        cr_assert_eq(kd_chess_zobrist[i], kd_chess_zobrist_formula(i), "key %u", i);
}
