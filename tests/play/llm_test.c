/*
 * llm_test.c — the llm:URL player against a mock OpenAI-compatible
 * endpoint (mock_llm.c) started by the test:
 *
 *   - strict parsing of replies (a table of accepted and refused texts);
 *   - the request: model, bearer key, system + turn prompt, and the
 *     follow-up conversation after a refused reply;
 *   - the prompt contents in both modes, from the tic-tac-toe type's
 *     prompt (kd_tictactoe_type, the text the gateway serves) and, in whole games, from the real gateway's
 *     kdapp_turn prompt: rule text, recent moves oldest to newest, the mark
 *     removed next;
 *   - retries with the reason and the legal moves, then the random
 *     fallback, counted (whole games through `kdapp mcp`, $KDAPP);
 *   - KDAPP_SHOW_PROMPTS output, and an HTTP error ending the game;
 *   - a chess game: the gateway's chess prompt (FEN, legal moves in UCI,
 *     the answer format), a refused prose reply and an illegal move sent
 *     back with the gateway's reason.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/crypto.h"
#include "episodes/episode_type.h"
#include "episodes/tictactoe/tictactoe.h"
#include "play/mock_llm.h"
#include "tools/play/play.h"
#include "tools/play/players.h"

/* ------------------------------------------------------------- helpers */

static void play_moves(kd_ttt_state *s, const char *moves)
{
    for (const char *p = moves; p[0] && p[1]; p += (p[2] == ' ') ? 3 : 2) {
        kd_ttt_move mv = {
            .row = (uint32_t)(p[0] - '0'), .col = (uint32_t)(p[1] - '0'), .player = s->turn == KD_TTT_X ? 0 : 1};
        kd_ttt_undo undo;
        cr_assert_eq(kd_ttt_play(s, &mv, &s->players[mv.player], &undo, NULL), KD_OK, "move %.2s", p);
        if (p[2] != ' ')
            break;
    }
}

/* A turn whose prompt is the type's prompt of the state after `moves`. */
typedef struct {
    kd_ttt_view view;
    kd_ttt_state state;
    kd_legal_moves legal;
} prompt_src;

static kd_err local_prompt(void *ctx, char **text, char *why, size_t why_len)
{
    (void)why, (void)why_len;
    prompt_src *p = ctx;
    kd_buf view, b;
    kd_buf_init(&view);
    kd_buf_init(&b);
    kd_err err = kd_ttt_view_encode(&p->view, &view);
    if (!err)
        err = kd_tictactoe_type.prompt(view.data, view.len, 7, p->view.current == KD_TTT_X ? 0 : 1, &b);
    if (!err)
        err = kd_buf_append(&b, "", 1);
    kd_buf_fini(&view);
    *text = err ? NULL : (char *)b.data;
    if (err)
        kd_buf_fini(&b);
    return err;
}

static void make_turn(uint8_t cap, const char *moves, prompt_src *src, kd_play_turn *turn)
{
    kd_key k;
    cr_assert_eq(kd_key_test("llm", &k), KD_OK);
    kd_participants parts = {.count = 2};
    parts.keys[0] = parts.keys[1] = k.pub;
    memset(src, 0, sizeof *src);
    cr_assert_eq(kd_ttt_state_init(&src->state, &parts, cap, NULL), KD_OK);
    play_moves(&src->state, moves);
    kd_ttt_view_of(&src->state, &src->view);
    int seat = src->state.turn == KD_TTT_X ? 0 : 1;
    kd_legal_moves_init(&src->legal);
    cr_assert_eq(kd_tictactoe_type.legal_moves(&src->state, seat, &src->legal), KD_OK);
    memset(turn, 0, sizeof *turn);
    turn->episode_id = 7;
    turn->type = &kd_tictactoe_type;
    turn->seat = seat;
    turn->seat_name = kd_episode_type_seat_name(&kd_tictactoe_type, seat);
    turn->state = &src->state;
    turn->legal = &src->legal;
    turn->get_prompt = local_prompt;
    turn->prompt_ctx = src;
}

static void src_fini(prompt_src *src) { kd_legal_moves_fini(&src->legal); }

/* The cell a move's command places. */
static kd_ttt_move cell_of(const kd_legal_move *m)
{
    kd_ttt_move mv = {0};
    cr_assert_eq(kd_ttt_command_decode(m->command, m->command_len, &mv, NULL), KD_OK);
    return mv;
}

static const char *message(const json_t *requests, size_t req, size_t msg, const char *field)
{
    return json_string_value(
        json_object_get(json_array_get(json_object_get(json_array_get(requests, req), "messages"), msg), field));
}

static kd_player *llm_player(mock_llm *m, FILE *log, int show)
{
    char spec[128], why[300];
    snprintf(spec, sizeof spec, "llm:%s", mock_llm_url(m));
    kd_player_options po = {.seed = 1, .model = "test-model", .api_key = "sekret", .show_prompts = show, .log = log};
    kd_player *p;
    cr_assert_eq(kd_player_alloc(spec, &po, &p, why, sizeof why), KD_OK, "%s", why);
    return p;
}

/* ------------------------------------------------------------- parsing */

Test(llm_parse, accepts_one_object_and_refuses_the_rest)
{
    static const struct {
        const char *text;
        int ok, row, col;
    } cases[] = {
        {"{\"row\": 1, \"col\": 2}", 1, 1, 2},
        {"  \n{\"col\":0,\"row\":2}\n\n", 1, 2, 0},
        {"```json\n{\"row\": 1, \"col\": 1}\n```", 1, 1, 1},
        {"```\n{\"row\":0,\"col\":0}\n```\n", 1, 0, 0},
        {"<think>the centre is taken; (2,0) blocks</think>\n{\"row\":2,\"col\":0}", 1, 2, 0},
        {"", 0, 0, 0},
        {"I play 1 1", 0, 0, 0},
        {"Move: {\"row\":1,\"col\":1}", 0, 0, 0},
        {"{\"row\":1,\"col\":1} because it is the centre", 0, 0, 0},
        {"{\"row\":1,\"col\":1} {\"row\":0,\"col\":0}", 0, 0, 0},
        {"{\"row\":\"1\",\"col\":1}", 0, 0, 0},
        {"{\"row\":1.0,\"col\":1}", 0, 0, 0},
        {"{\"row\":1,\"col\":1,\"why\":\"centre\"}", 0, 0, 0},
        {"{\"row\":3,\"col\":0}", 1, 3, 0}, /* a command; the engine refuses it as out of bounds */
        {"{\"row\":-1,\"col\":0}", 0, 0, 0},
        {"{\"row\":1}", 0, 0, 0},
        {"{\"row\":1,\"row\":1}", 0, 0, 0},
        {"[1,1]", 0, 0, 0},
        {"```json\n{\"row\":1,\"col\":1}", 0, 0, 0},
        {"```json please\n{\"row\":1,\"col\":1}\n```", 0, 0, 0},
        {"<think>no end {\"row\":1,\"col\":1}", 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kd_buf cmd;
        kd_buf_init(&cmd);
        char why[300] = "";
        kd_err err = kd_llm_parse_command(cases[i].text, &kd_tictactoe_type, 1, &cmd, why, sizeof why);
        if (cases[i].ok) {
            cr_expect_eq(err, KD_OK, "case %zu '%s': %s", i, cases[i].text, why);
            kd_ttt_move m = {9, 9, 9};
            cr_expect_eq(kd_ttt_command_decode(cmd.data, cmd.len, &m, NULL), KD_OK, "case %zu", i);
            cr_expect(m.row == (uint32_t)cases[i].row && m.col == (uint32_t)cases[i].col && m.player == 1,
                      "case %zu: the acting seat's move", i);
        } else {
            cr_expect_eq(err, KD_ERR_PARSE, "case %zu '%s' was accepted", i, cases[i].text);
            cr_expect(strstr(why, "row") != NULL, "case %zu: the reason should say what to send: %s", i, why);
            cr_expect_eq(cmd.len, 0, "case %zu: nothing appended", i);
        }
        kd_buf_fini(&cmd);
    }
    kd_buf cmd;
    kd_buf_init(&cmd);
    char why[300];
    cr_expect_eq(kd_llm_parse_command(NULL, &kd_tictactoe_type, 0, &cmd, why, sizeof why), KD_ERR_PARSE);
    kd_buf_fini(&cmd);
}

/* ------------------------------------------------------ player requests */

Test(llm_player, stress_prompt_states_rule_window_and_next_removal)
{
    static const char *const script[] = {"legal"};
    mock_llm *m = mock_llm_start(script, 1);
    char *logtext = NULL;
    size_t loglen = 0;
    FILE *log = open_memstream(&logtext, &loglen);
    kd_player *p = llm_player(m, log, 1);
    prompt_src src;
    kd_play_turn turn;
    make_turn(6, "00 11 01 22 20 02", &src, &turn);
    kd_legal_move mv;
    char why[300];
    cr_assert_eq(kd_player_choose(p, &turn, NULL, &mv, why, sizeof why), KD_OK, "%s", why);
    kd_ttt_move c = cell_of(&mv);
    cr_expect(c.row == 1 && c.col == 0, "the first legal move is (1,0), got (%u,%u)", c.row, c.col);
    cr_expect_str_eq(mv.notation, "(1, 0)");

    json_t *reqs = mock_llm_requests(m);
    cr_assert_eq(json_array_size(reqs), 1);
    const json_t *body = json_array_get(reqs, 0);
    cr_expect_str_eq(json_string_value(json_object_get(body, "model")), "test-model");
    cr_expect_str_eq(message(reqs, 0, 0, "role"), "system");
    cr_expect_str_eq(message(reqs, 0, 1, "role"), "user");
    const char *prompt = message(reqs, 0, 1, "content");
    cr_assert(prompt);
    cr_expect(strstr(prompt, "in stress mode"), "%s", prompt);
    cr_expect(strstr(prompt, "The board shows at most 6 symbols; before your move, the oldest symbol is removed."),
              "%s", prompt);
    cr_expect(strstr(prompt, "Recent moves (oldest to newest): (0, 0, X), (1, 1, O), (0, 1, X), (2, 2, O), "
                             "(2, 0, X), (0, 2, O)"),
              "%s", prompt);
    cr_expect(strstr(prompt, "Will be removed next: (0, 0, X)"), "%s", prompt);
    char auth[256];
    mock_llm_last_auth(m, auth, sizeof auth);
    cr_expect_str_eq(auth, "Bearer sekret");
    fflush(log);
    cr_expect(strstr(logtext, "--- prompt to") && strstr(logtext, "Will be removed next: (0, 0, X)"), "%s", logtext);
    cr_expect(strstr(logtext, "--- reply ---\n{\"row\": 1, \"col\": 0}"), "%s", logtext);
    json_decref(reqs);
    kd_player_free(p);
    src_fini(&src);
    fclose(log);
    free(logtext);
    mock_llm_stop(m);
}

Test(llm_player, classic_prompt_has_no_window)
{
    static const char *const script[] = {"fence"};
    mock_llm *m = mock_llm_start(script, 1);
    kd_player *p = llm_player(m, stderr, 0);
    prompt_src src;
    kd_play_turn turn;
    make_turn(0, "00 11 01 22", &src, &turn);
    kd_legal_move mv;
    char why[300];
    cr_assert_eq(kd_player_choose(p, &turn, NULL, &mv, why, sizeof why), KD_OK, "%s", why);
    kd_ttt_move c = cell_of(&mv);
    cr_expect(c.row == 0 && c.col == 2);
    json_t *reqs = mock_llm_requests(m);
    const char *prompt = message(reqs, 0, 1, "content");
    cr_assert(prompt);
    cr_expect(strstr(prompt, "classic tic-tac-toe"), "%s", prompt);
    cr_expect(strstr(prompt, "Classic tic-tac-toe: nine cells, no removals"), "%s", prompt);
    cr_expect(!strstr(prompt, "Recent moves"), "%s", prompt);
    cr_expect(!strstr(prompt, "removed next"), "%s", prompt);
    json_decref(reqs);
    kd_player_free(p);
    src_fini(&src);
    mock_llm_stop(m);
}

Test(llm_player, a_refused_reply_continues_the_conversation)
{
    static const char *const script[] = {"prose", "legal"};
    mock_llm *m = mock_llm_start(script, 2);
    kd_player *p = llm_player(m, stderr, 0);
    prompt_src src;
    kd_play_turn turn;
    make_turn(6, "11", &src, &turn);
    kd_legal_move mv;
    char why[300] = "";
    cr_assert_eq(kd_player_choose(p, &turn, NULL, &mv, why, sizeof why), KD_ERR_PARSE);
    cr_expect(strstr(why, "JSON"), "%s", why);
    cr_assert_eq(kd_player_choose(p, &turn, "Your answer could not be used. Legal moves: (0, 0)", &mv, why, sizeof why),
                 KD_OK, "%s", why);
    json_t *reqs = mock_llm_requests(m);
    cr_assert_eq(json_array_size(reqs), 2);
    cr_expect_str_eq(message(reqs, 1, 2, "role"), "assistant");
    cr_expect(strstr(message(reqs, 1, 2, "content"), "centre"));
    cr_expect_str_eq(message(reqs, 1, 3, "role"), "user");
    cr_expect(strstr(message(reqs, 1, 3, "content"), "could not be used"));
    cr_expect_eq(kd_player_get_stats(p).refused, 1);
    json_decref(reqs);
    kd_player_free(p);
    src_fini(&src);
    mock_llm_stop(m);
}

Test(llm_player, an_http_error_is_reported_not_retried)
{
    static const char *const script[] = {"!404"};
    mock_llm *m = mock_llm_start(script, 1);
    kd_player *p = llm_player(m, stderr, 0);
    prompt_src src;
    kd_play_turn turn;
    make_turn(0, "", &src, &turn);
    kd_legal_move mv;
    char why[400] = "";
    cr_expect_eq(kd_player_choose(p, &turn, NULL, &mv, why, sizeof why), KD_ERR_NET);
    cr_expect(strstr(why, "HTTP 404") && strstr(why, "model not loaded"), "%s", why);
    kd_player_free(p);
    src_fini(&src);
    mock_llm_stop(m);
}

/* ------------------------------------------- whole games via the gateway */

typedef struct {
    char dir[512], data[600], keys[600];
    char *out;
    size_t out_len;
    FILE *outf;
} game_dirs;

static void dirs_make(game_dirs *d)
{
    const char *tmp = getenv("KD_TEST_TMP");
    snprintf(d->dir, sizeof d->dir, "%s/play-llm-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    cr_assert(mkdtemp(d->dir));
    snprintf(d->data, sizeof d->data, "%s/data", d->dir);
    snprintf(d->keys, sizeof d->keys, "%s/keys", d->dir);
    d->out = NULL;
    d->outf = open_memstream(&d->out, &d->out_len);
}

static void dirs_done(game_dirs *d)
{
    fclose(d->outf);
    free(d->out);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", d->dir);
    cr_expect_eq(system(cmd), 0);
}

static const char *kdapp_binary(void)
{
    const char *k = getenv("KDAPP");
    cr_assert(k && *k, "KDAPP must name the kdapp binary (CMake sets it)");
    return k;
}

Test(llm_game, stress_retries_then_falls_back, .timeout = 120)
{
    /* Cap 3: nobody can ever hold three marks, so the game runs to
     * --max-moves. O's turns: (2) prose, illegal, legal; (4) prose,
     * illegal, a string row, illegal: four refused, then the fallback;
     * (6) a fenced legal move. */
    static const char *const script[] = {
        "prose", "illegal", "legal", "prose", "illegal", "={\"row\": \"1\", \"col\": 1}", "illegal", "fence"};
    mock_llm *m = mock_llm_start(script, sizeof script / sizeof script[0]);
    game_dirs d;
    dirs_make(&d);
    char spec[128], why[600] = "";
    snprintf(spec, sizeof spec, "llm:%s", mock_llm_url(m));
    kd_type_table types;
    kd_type_table_init(&types);
    kd_play_options o = {.types = &types,
                         .players = {"search", spec},
                         .self_exe = kdapp_binary(),
                         .data_dir = d.data,
                         .keys_dir = d.keys,
                         .params = "{\"cap\": 3}",
                         .seed = 11,
                         .max_moves = 6,
                         .model = "m",
                         .out = d.outf,
                         .log = stderr};
    kd_play_result res;
    kd_err err = kd_play_run(&o, &res, why, sizeof why);
    fflush(d.outf);
    cr_assert_eq(err, KD_OK, "%s\n%s", why, d.out);
    cr_expect_eq(res.move_count, 6);
    cr_expect_eq(res.phase, KD_PHASE_IN_PROGRESS);
    cr_expect_eq(res.stats[1].moves, 3);
    cr_expect_eq(res.stats[1].refused, 6, "refused %u", res.stats[1].refused);
    cr_expect_eq(res.stats[1].fallbacks, 1);
    cr_expect_eq(res.stats[0].refused, 0);
    cr_expect(strlen(res.digest) == 64);
    cr_expect(strstr(d.out, "[random fallback]"), "%s", d.out);
    cr_expect(strstr(d.out, "1 random fallbacks"), "%s", d.out);

    json_t *reqs = mock_llm_requests(m);
    cr_assert_eq(json_array_size(reqs), 8, "%zu requests", json_array_size(reqs));
    /* Turn 1 (move 2): the gateway's stress prompt with X's one move. */
    const char *p0 = message(reqs, 0, 1, "content");
    cr_assert(p0);
    cr_expect(strstr(p0, "in stress mode") && strstr(p0, "The board shows at most 3 symbols"), "%s", p0);
    cr_expect(strstr(p0, "Recent moves (oldest to newest): ("), "%s", p0);
    cr_expect(!strstr(p0, "Will be removed next"), "%s", p0);
    /* The follow-ups carry the reason and the legal moves. */
    const char *f1 = message(reqs, 1, 3, "content"), *f2 = message(reqs, 2, 5, "content");
    cr_assert(f1 && f2);
    cr_expect(strstr(f1, "could not be used") && strstr(f1, "Legal moves: (") &&
                  strstr(f1, "Answer with exactly one JSON object"),
              "%s", f1);
    cr_expect(strstr(f2, "was refused by the gateway") && strstr(f2, "occupied") && strstr(f2, "Legal moves: ("), "%s",
              f2);
    /* Turn 2 (move 4): the window is full; the oldest (X's first) goes next. */
    const char *p3 = message(reqs, 3, 1, "content");
    cr_assert(p3);
    const char *recent = strstr(p3, "Recent moves (oldest to newest): ");
    const char *next = strstr(p3, "Will be removed next: ");
    cr_assert(recent && next, "%s", p3);
    unsigned r[3], c[3], nr, nc;
    char s[3], ns;
    cr_assert_eq(sscanf(recent, "Recent moves (oldest to newest): (%u, %u, %c), (%u, %u, %c), (%u, %u, %c)", &r[0],
                        &c[0], &s[0], &r[1], &c[1], &s[1], &r[2], &c[2], &s[2]),
                 9, "%s", recent);
    cr_expect(s[0] == 'X' && s[1] == 'O' && s[2] == 'X', "oldest to newest alternates from X: %s", recent);
    cr_assert_eq(sscanf(next, "Will be removed next: (%u, %u, %c)", &nr, &nc, &ns), 3);
    cr_expect(nr == r[0] && nc == c[0] && ns == 'X', "the oldest of the window goes next: %s", p3);
    json_decref(reqs);
    dirs_done(&d);
    mock_llm_stop(m);
}

Test(llm_game, classic_prompts_through_the_gateway, .timeout = 120)
{
    static const char *const script[] = {"legal"};
    mock_llm *m = mock_llm_start(script, 1);
    game_dirs d;
    dirs_make(&d);
    char spec[128], why[600] = "";
    snprintf(spec, sizeof spec, "llm:%s", mock_llm_url(m));
    kd_type_table types;
    kd_type_table_init(&types);
    kd_play_options o = {.types = &types,
                         .players = {spec, "search"},
                         .self_exe = kdapp_binary(),
                         .data_dir = d.data,
                         .keys_dir = d.keys,
                         .params = "{\"cap\": 9}",
                         .seed = 4,
                         .max_moves = 9,
                         .quiet = 1,
                         .out = d.outf,
                         .log = stderr};
    kd_play_result res;
    kd_err err = kd_play_run(&o, &res, why, sizeof why);
    fflush(d.outf);
    cr_assert_eq(err, KD_OK, "%s\n%s", why, d.out);
    cr_expect_neq(res.phase, KD_PHASE_IN_PROGRESS);
    cr_expect(!(res.phase == KD_PHASE_WON && res.winner == 0), "search (O) lost a classic game");
    json_t *reqs = mock_llm_requests(m);
    cr_assert_geq(json_array_size(reqs), 3);
    for (size_t i = 0; i < json_array_size(reqs); i++) {
        const char *p = message(reqs, i, 1, "content");
        cr_assert(p);
        cr_expect(strstr(p, "classic tic-tac-toe") && strstr(p, "Classic tic-tac-toe: nine cells"), "%s", p);
        cr_expect(!strstr(p, "Recent moves") && !strstr(p, "removed next"), "%s", p);
    }
    cr_expect(strstr(d.out, "digest: "), "%s", d.out);
    json_decref(reqs);
    dirs_done(&d);
    mock_llm_stop(m);
}

Test(llm_game, chess_prompts_and_answers_through_the_gateway, .timeout = 120)
{
    /* White is the language model: 1. e4 as clean JSON; then prose (refused,
     * the conversation goes on with the reason and the legal moves), an
     * illegal move the gateway refuses with its code, and 2. d4. */
    static const char *const script[] = {"={\"uci\": \"e2e4\"}", "prose", "={\"uci\": \"e1e3\"}",
                                         "={\"uci\": \"d2d4\"}"};
    mock_llm *m = mock_llm_start(script, sizeof script / sizeof script[0]);
    game_dirs d;
    dirs_make(&d);
    char spec[128], why[600] = "";
    snprintf(spec, sizeof spec, "llm:%s", mock_llm_url(m));
    kd_type_table types;
    kd_type_table_init(&types);
    kd_play_options o = {.types = &types,
                         .type = "chess",
                         .players = {spec, "search:depth=2"},
                         .self_exe = kdapp_binary(),
                         .data_dir = d.data,
                         .keys_dir = d.keys,
                         .seed = 5,
                         .max_moves = 4,
                         .quiet = 1,
                         .out = d.outf,
                         .log = stderr};
    kd_play_result res;
    kd_err err = kd_play_run(&o, &res, why, sizeof why);
    fflush(d.outf);
    cr_assert_eq(err, KD_OK, "%s\n%s", why, d.out);
    cr_expect_eq(res.move_count, 4);
    cr_expect_eq(res.stats[0].moves, 2);
    cr_expect_eq(res.stats[0].refused, 2, "refused %u", res.stats[0].refused);
    cr_expect_eq(res.stats[0].fallbacks, 0);
    json_t *reqs = mock_llm_requests(m);
    cr_assert_eq(json_array_size(reqs), 4, "%zu requests", json_array_size(reqs));
    const char *p0 = message(reqs, 0, 1, "content");
    cr_assert(p0);
    cr_expect(strstr(p0, "You play chess episode") && strstr(p0, "as white") &&
                  strstr(p0, "Position (FEN): rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1") &&
                  strstr(p0, "Legal moves (UCI): ") && strstr(p0, "{\"uci\": "),
              "%s", p0);
    /* The second turn's prompt has the position after 1. e4 and black's reply. */
    const char *p1 = message(reqs, 1, 1, "content");
    cr_assert(p1);
    cr_expect(strstr(p1, "last move: ") && strstr(p1, "white to move (move 2)"), "%s", p1);
    /* The gateway's refusal of e1e3 is sent back with its reason. */
    const char *f2 = message(reqs, 3, 5, "content");
    cr_assert(f2);
    cr_expect(strstr(f2, "was refused by the gateway") && strstr(f2, "e1e3"), "%s", f2);
    json_decref(reqs);
    dirs_done(&d);
    mock_llm_stop(m);
}

Test(llm_game, seabattle_shots_from_the_prompt_answers_from_the_duties, .timeout = 120)
{
    /* Blue is the language model: a1 as clean JSON; then prose (refused),
     * a1 again (refused by the rules: already_shot) and b2. Red is the bot.
     * No player ever answers a shot: the gateway's duties thread does, for
     * the seats whose keys it holds, so play goes on by itself. */
    static const char *const script[] = {"={\"shot\": \"a1\"}", "prose", "={\"shot\": \"a1\"}", "={\"shot\": \"b2\"}"};
    mock_llm *m = mock_llm_start(script, sizeof script / sizeof script[0]);
    game_dirs d;
    dirs_make(&d);
    char spec[128], why[600] = "";
    snprintf(spec, sizeof spec, "llm:%s", mock_llm_url(m));
    kd_type_table types;
    kd_type_table_init(&types);
    kd_play_options o = {.types = &types,
                         .type = "seabattle",
                         .players = {spec, "search"},
                         .self_exe = kdapp_binary(),
                         .data_dir = d.data,
                         .keys_dir = d.keys,
                         .seed = 3,
                         .max_moves = 4,
                         .quiet = 1,
                         .out = d.outf,
                         .log = stderr};
    kd_play_result res;
    kd_err err = kd_play_run(&o, &res, why, sizeof why);
    fflush(d.outf);
    cr_assert_eq(err, KD_OK, "%s\n%s", why, d.out);
    cr_expect_eq(res.stats[0].moves, 2);
    cr_expect_eq(res.stats[0].refused, 2, "refused %u", res.stats[0].refused);
    json_t *reqs = mock_llm_requests(m);
    cr_assert_eq(json_array_size(reqs), 4, "%zu requests", json_array_size(reqs));
    const char *p0 = message(reqs, 0, 1, "content");
    cr_assert(p0);
    cr_expect(strstr(p0, "You play sea battle episode") && strstr(p0, "as blue") &&
                  strstr(p0, "{\"shot\": \"CELL\"}") && strstr(p0, "Unshot cells of red's board: a1 b1"),
              "%s", p0);
    /* the second shot's prompt shows the first answered (a miss or a hit at a1) */
    const char *p1 = message(reqs, 1, 1, "content");
    cr_assert(p1);
    cr_expect(!strstr(p1, " a1 b1"), "a1 is no longer unshot: %s", p1);
    const char *f = message(reqs, 3, 5, "content");
    cr_assert(f);
    cr_expect(strstr(f, "was refused by the gateway") && strstr(f, "was shot before"), "%s", f);
    json_decref(reqs);
    dirs_done(&d);
    mock_llm_stop(m);
}

Test(llm_game, blackjack_prompts_and_answers_through_the_gateway, .timeout = 120)
{
    /* player1 is the language model: a bet as clean JSON (the house's
     * reveals come from the gateway holding its key), prose (refused, the
     * conversation goes on), then a stand or, when the deal settled the
     * round, whatever the prompt lists next. */
    static const char *const script[] = {"={\"action\": \"bet\", \"amount\": 10, \"entropy\": "
                                         "\"5555555555555555555555555555555555555555555555555555555555555555\"}",
                                         "prose",
                                         "={\"action\": \"stand\", \"entropy\": "
                                         "\"6666666666666666666666666666666666666666666666666666666666666666\"}"};
    mock_llm *m = mock_llm_start(script, sizeof script / sizeof script[0]);
    game_dirs d;
    dirs_make(&d);
    char spec[128], why[600] = "";
    snprintf(spec, sizeof spec, "llm:%s", mock_llm_url(m));
    kd_type_table types;
    kd_type_table_init(&types);
    kd_play_options o = {.types = &types,
                         .type = "blackjack",
                         .players = {"random", spec},
                         .self_exe = kdapp_binary(),
                         .data_dir = d.data,
                         .keys_dir = d.keys,
                         .seed = 5,
                         .max_moves = 2,
                         .quiet = 1,
                         .out = d.outf,
                         .log = stderr};
    kd_play_result res;
    kd_err err = kd_play_run(&o, &res, why, sizeof why);
    fflush(d.outf);
    cr_assert_eq(err, KD_OK, "%s\n%s", why, d.out);
    cr_expect_eq(res.chosen, 2);
    cr_expect_gt(res.move_count, 2, "the house's reveals are moves too: commands applied");
    cr_expect_eq(res.stats[0].moves, 0, "the house only reveals, through the gateway");
    cr_expect_eq(res.stats[1].moves, 2);
    cr_expect_geq(res.stats[1].refused, 1, "the prose is refused");
    json_t *reqs = mock_llm_requests(m);
    cr_assert_geq(json_array_size(reqs), 3, "%zu requests", json_array_size(reqs));
    const char *p0 = message(reqs, 0, 1, "content");
    cr_assert(p0);
    cr_expect(strstr(p0, "You play blackjack episode") && strstr(p0, "You are player1") &&
                  strstr(p0, "{\"action\":\"bet\",\"amount\":10,\"entropy\":\""),
              "%s", p0);
    const char *p1 = message(reqs, 1, 1, "content");
    cr_assert(p1);
    cr_expect(strstr(p1, "hand 1 [") && strstr(p1, "dealer ["), "the second prompt shows the dealt cards: %s", p1);
    json_decref(reqs);
    dirs_done(&d);
    mock_llm_stop(m);
}

Test(llm_game, dice_rolls_from_the_prompt_the_house_revealing_through_the_gateway, .timeout = 120)
{
    /* The player is the language model: a roll as clean JSON, prose
     * (refused, the conversation goes on), then a second roll; the house's
     * reveals come from the gateway holding its key. */
    static const char *const script[] = {
        "={\"roll\": \"2d6+1\", \"entropy\": \"7777777777777777777777777777777777777777777777777777777777777777\"}",
        "prose",
        "={\"roll\": \"1d20\", \"entropy\": \"8888888888888888888888888888888888888888888888888888888888888888\"}"};
    mock_llm *m = mock_llm_start(script, sizeof script / sizeof script[0]);
    game_dirs d;
    dirs_make(&d);
    char spec[128], why[600] = "";
    snprintf(spec, sizeof spec, "llm:%s", mock_llm_url(m));
    kd_type_table types;
    kd_type_table_init(&types);
    kd_play_options o = {.types = &types,
                         .type = "dice",
                         .players = {spec, "random"},
                         .self_exe = kdapp_binary(),
                         .data_dir = d.data,
                         .keys_dir = d.keys,
                         .seed = 7,
                         .max_moves = 2,
                         .quiet = 1,
                         .out = d.outf,
                         .log = stderr};
    kd_play_result res;
    kd_err err = kd_play_run(&o, &res, why, sizeof why);
    fflush(d.outf);
    cr_assert_eq(err, KD_OK, "%s\n%s", why, d.out);
    cr_expect_eq(res.stats[0].moves, 2);
    cr_expect_eq(res.stats[0].refused, 1, "the prose is refused");
    cr_expect_eq(res.stats[1].moves, 0, "the house only reveals, through the gateway");
    json_t *reqs = mock_llm_requests(m);
    cr_assert_eq(json_array_size(reqs), 3, "%zu requests", json_array_size(reqs));
    const char *p0 = message(reqs, 0, 1, "content");
    cr_assert(p0);
    cr_expect(strstr(p0, "You are the player in dice episode") && strstr(p0, "{\"roll\": \"2d6+1\""), "%s", p0);
    json_decref(reqs);
    dirs_done(&d);
    mock_llm_stop(m);
}
