/*
 * checkers_type.c — checkers' entry in the type table
 * (episodes/episode_type.h): schemas and JSON for params and commands,
 * legal moves, random commands for the simulator, and the entry itself
 * with the view (checkers_view.c) and the bot (checkers_bot.c). Pure
 * functions.
 *
 * Command JSON: {"move": "b6d4f2"}, the squares visited (games-mcp's
 * notation, also each legal move's notation). Params JSON: {} for the
 * standard start, or {"start": "<state text>"}.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkers.pb-c.h"
#include "episodes/checkers/checkers.h"

static const char *const seat_names[2] = {"white", "black"};

/* ----------------------------------------------------------- JSON ⇄ bytes */

static const char params_schema[] =
    "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{\"start\":{\"type\":\"string\","
    "\"description\":\"a starting position in the games-mcp state text, \\\"<rank8>/.../<rank1> <turn>\\\": rows "
    "of 8 of w W b B . (white man, white king, black man, black king, empty), turn w or b; the standard start "
    "when left out\"}}}";

static const char command_schema[] =
    "{\"type\":\"object\",\"required\":[\"move\"],\"properties\":{\"move\":{\"type\":\"string\","
    "\"minLength\":4,\"maxLength\":38,\"pattern\":\"^[a-hA-H][1-8]([-xX]?[a-hA-H][1-8]){1,12}$\",\"description\":\"the "
    "squares the piece visits, its own "
    "first: b6a5 (a step), b6d4f2 (two jumps)\"}}}";

static kd_err params_from_json(const json_t *params, kd_buf *out, char *why, size_t why_len)
{
    if (!params || (json_is_object(params) && json_object_size(params) == 0))
        return KD_OK; /* zero bytes: the standard start */
    const json_t *start = json_is_object(params) ? json_object_get(params, "start") : NULL;
    if (!json_is_string(start) || json_object_size(params) != 1) {
        kd_reject_write(why, why_len, "checkers params are {} or {\"start\": \"<rank8>/.../<rank1> <turn>\"}");
        return KD_ERR_BAD_PARAMS;
    }
    kd_ck_position pos;
    kd_err err = kd_ck_text_parse(json_string_value(start), &pos, why, why_len);
    if (!err)
        err = kd_ck_position_check(&pos, why, why_len);
    return err ? err : kd_ck_params_encode(&pos, out);
}

/* Reads `move`; other members are left to whoever wraps the command (a
 * block script's episode and signer). */
static kd_err command_from_json(const json_t *command, int seat, kd_buf *out, char *why, size_t why_len)
{
    (void)seat; /* the signer says who moves */
    const json_t *m = json_is_object(command) ? json_object_get(command, "move") : NULL;
    if (!json_is_string(m)) {
        kd_reject_write(why, why_len, "a checkers command is {\"move\": \"b6a5\"}: the squares the piece visits");
        return KD_ERR_BAD_COMMAND;
    }
    kd_ck_path path;
    kd_err err = kd_ck_path_parse(json_string_value(m), &path, why, why_len);
    return err ? err : kd_ck_command_encode(&path, out);
}

static json_t *command_to_json(const uint8_t *command, size_t len)
{
    kd_ck_command cmd;
    if (kd_ck_command_decode(command, len, &cmd, NULL) != KD_OK || cmd.count < 2 || cmd.count > KD_CK_PATH_MAX)
        return NULL;
    kd_ck_path path;
    memset(&path, 0, sizeof path);
    for (uint32_t i = 0; i < cmd.count; i++) {
        if (!kd_ck_is_playing(cmd.squares[i]))
            return NULL; /* no notation names it */
        path.squares[i] = (uint8_t)cmd.squares[i];
    }
    path.count = (uint8_t)cmd.count;
    char n[KD_NOTATION_MAX];
    kd_ck_path_format(&path, n);
    return json_pack("{s:s}", "move", n);
}

/* ------------------------------------------------------------------ moves */

static void position_of(const kd_ck_state *s, kd_ck_position *pos)
{
    memcpy(pos->board, s->board, sizeof pos->board);
    pos->turn = s->turn;
}

static int push_move(void *ctx, const kd_ck_path *path)
{
    uint32_t squares[KD_CK_PATH_MAX];
    for (size_t i = 0; i < path->count; i++)
        squares[i] = path->squares[i];
    uint8_t cmd[KD_CK_COMMAND_MAX];
    size_t len = kd_ck_command_pack(squares, path->count, cmd);
    char n[KD_NOTATION_MAX];
    kd_ck_path_format(path, n);
    return kd_legal_moves_push(ctx, cmd, len, n) != KD_OK;
}

static kd_err legal_moves(const void *state_ptr, int seat, kd_legal_moves *out)
{
    const kd_ck_state *s = state_ptr;
    if (s->status != KD_CK_IN_PROGRESS || seat != s->turn)
        return KD_OK;
    kd_ck_position pos;
    position_of(s, &pos);
    return kd_ck_each_move(&pos, push_move, out) ? KD_ERR_NOMEM : KD_OK;
}

static kd_err put_path(const kd_ck_path *path, kd_buf *out) { return kd_ck_command_encode(path, out); }

static kd_err put_squares(int from, int to, kd_buf *out)
{
    kd_ck_path p;
    memset(&p, 0, sizeof p);
    p.count = 2;
    p.squares[0] = (uint8_t)from;
    p.squares[1] = (uint8_t)to;
    return put_path(&p, out);
}

/* The diagonal neighbour of `sq` toward (dr, df), or -1 off the board. */
static int neighbour(int sq, int dr, int df)
{
    int rank = sq / 8 + dr, file = sq % 8 + df;
    return rank < 0 || rank > 7 || file < 0 || file > 7 ? -1 : rank * 8 + file;
}

/* Illegal moves of the side to move, by the rule that refuses them. */
enum { ILL_CAPTURE_REQUIRED, ILL_OCCUPIED, ILL_INCOMPLETE, ILL_BACKWARD, ILL_NO_PIECE, ILL_KINDS };
#define ILL_MAX 64

typedef struct {
    kd_ck_path paths[ILL_KINDS][ILL_MAX];
    unsigned count[ILL_KINDS];
} illegal_set;

static void add_illegal(illegal_set *set, int kind, int from, int to)
{
    if (set->count[kind] == ILL_MAX)
        return;
    kd_ck_path *p = &set->paths[kind][set->count[kind]++];
    memset(p, 0, sizeof *p);
    p->count = 2;
    p->squares[0] = (uint8_t)from;
    p->squares[1] = (uint8_t)to;
}

/* Fills `set` with one-step refusals from the position of `s`: a step when
 * a capture is required, onto an occupied square, a man's step backward,
 * from a square without the mover's piece; and a jump sequence cut short. */
static void illegal_moves(const kd_ck_state *s, illegal_set *set)
{
    memset(set, 0, sizeof *set);
    int side = s->turn, must = kd_ck_can_capture(s->board, side), forward = side == KD_CK_WHITE ? -1 : 1;
    for (int sq = 0; sq < KD_CK_SQUARES; sq++) {
        if (!kd_ck_is_playing((uint32_t)sq))
            continue;
        uint8_t p = s->board[sq];
        for (int d = 0; d < 4; d++) {
            int dr = d < 2 ? forward : -forward, to = neighbour(sq, dr, d % 2 ? 1 : -1);
            if (to < 0)
                continue;
            int is_man = p == KD_CK_WHITE_MAN || p == KD_CK_BLACK_MAN;
            if (kd_ck_owner(p) != side)
                add_illegal(set, ILL_NO_PIECE, sq, to);
            else if (s->board[to] != KD_CK_EMPTY && (d < 2 || !is_man))
                add_illegal(set, ILL_OCCUPIED, sq, to);
            else if (d >= 2 && is_man && s->board[to] == KD_CK_EMPTY)
                add_illegal(set, ILL_BACKWARD, sq, to);
            else if (must && s->board[to] == KD_CK_EMPTY)
                add_illegal(set, ILL_CAPTURE_REQUIRED, sq, to);
        }
    }
    kd_ck_moves moves;
    kd_ck_position pos;
    position_of(s, &pos);
    kd_ck_moves_list(&pos, &moves);
    for (size_t i = 0; i < moves.count; i++)
        if (moves.moves[i].count > 2 && set->count[ILL_INCOMPLETE] < ILL_MAX) {
            kd_ck_path *p = &set->paths[ILL_INCOMPLETE][set->count[ILL_INCOMPLETE]++];
            *p = moves.moves[i];
            for (size_t k = 2; k < KD_CK_PATH_MAX; k++)
                p->squares[k] = 0;
            p->count = 2;
        }
}

/*
 * Legal: uniform over the legal moves. Illegal, refused by a rule: a seat
 * not to move sends one of the mover's legal moves (not_your_turn); a
 * finished game refuses anything (game_over); the seat to move sends, by a
 * kind drawn among those the position offers, a simple move while a
 * capture is required, a step onto an occupied square, a jump sequence cut
 * short, a man's step backward, or a step from a square without its piece.
 */
static kd_err random_command(const void *state_ptr, int seat, int legal, uint64_t *rng, kd_buf *out)
{
    const kd_ck_state *s = state_ptr;
    kd_ck_position pos;
    position_of(s, &pos);
    if (s->status != KD_CK_IN_PROGRESS) {
        if (legal)
            return KD_ERR_NO_MOVE;
        int from = (int)kd_type_rng_below(rng, 4) * 2 + 9; /* b2, d2, f2, h2 */
        return put_squares(from, from + 7, out);
    }
    if (legal && seat != s->turn)
        return KD_ERR_NO_MOVE;
    if (legal || seat != s->turn) {
        kd_ck_moves *moves = malloc(sizeof *moves);
        if (!moves)
            return KD_ERR_NOMEM;
        kd_err err = kd_ck_moves_list(&pos, moves) == 0
                         ? KD_ERR_NO_MOVE
                         : put_path(&moves->moves[kd_type_rng_below(rng, (uint32_t)moves->count)], out);
        free(moves);
        return err;
    }
    illegal_set *set = malloc(sizeof *set);
    if (!set)
        return KD_ERR_NOMEM;
    illegal_moves(s, set);
    int kinds[ILL_KINDS], n = 0;
    for (int k = 0; k < ILL_KINDS; k++)
        if (set->count[k])
            kinds[n++] = k;
    kd_err err = KD_ERR_UNSUPPORTED; /* unreachable: a board has an empty playing square */
    if (n > 0) {
        int k = kinds[kd_type_rng_below(rng, (uint32_t)n)];
        err = put_path(&set->paths[k][kd_type_rng_below(rng, set->count[k])], out);
    }
    free(set);
    return err;
}

const kd_episode_type kd_checkers_type = {
    .ops = &kd_ck_ops,
    .title = "Checkers",
    .summary = "English draughts on 8x8: white (first participant) starts on ranks 6-8 and moves first toward rank "
               "1, black on ranks 1-3; men step diagonally forward, kings either way; captures are mandatory and a "
               "jump sequence goes to its end; a man crowned on the far rank ends its move; no legal move loses; 80 "
               "quiet plies draw. Command {\"move\": \"b6d4f2\"}: the squares visited.",
    .min_seats = 2,
    .max_seats = 2,
    .seat_names = seat_names,
    .rule_codes = kd_ck_rule_codes,
    .params_schema = params_schema,
    .command_schema = command_schema,
    .params_from_json = params_from_json,
    .params_message = &kdapp__checkers_params__descriptor,
    .command_from_json = command_from_json,
    .command_to_json = command_to_json,
    .status = kd_ck_status_of,
    .view_encode = kd_ck_view_encode,
    .view_json = kd_ck_view_json,
    .strategy_context = kd_ck_strategy_json,
    .render_text = kd_ck_render_text,
    .prompt = kd_ck_prompt,
    .legal_moves = legal_moves,
    .random_command = random_command,
    .bot_command = kd_ck_bot_command,
    .bot_max_depth = KD_CK_BOT_MAX_DEPTH,
};
