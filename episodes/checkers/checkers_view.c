/*
 * checkers_view.c — checkers' public view (CheckersView) and everything
 * made from its bytes: the view JSON with the state text and the move
 * rules (must a capture be made, which), the strategy context, the text
 * board and the prompt. Pure functions.
 *
 * Boards are drawn rank 8 first, as the state text lists them; view_json's
 * "board" is the eight rows of the state text.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkers.pb-c.h"
#include "episodes/checkers/checkers.h"
#include "episodes/wire_alloc.h"

static const char *const seat_names[2] = {"white", "black"};

#define RULES_TEXT                                                                                               \
    "Checkers (English draughts): an 8x8 board, pieces on the squares where file + rank is even (a1 is one). "   \
    "White starts on ranks 6-8 and moves first, toward rank 1; black starts on ranks 1-3 and moves toward rank " \
    "8. A man moves one square diagonally forward, a king one square diagonally either way. A capture jumps an " \
    "adjacent enemy piece to the empty square beyond and removes it; captures are mandatory, and a jump "        \
    "sequence must go on while the piece can jump again (any capturing sequence may be chosen). A man reaching " \
    "the far rank is crowned king and its move ends there. A side with no legal move loses; 80 plies without "   \
    "a capture or a man moved draw. A move is written as the squares visited: b6a5, b6d4f2."

/* ------------------------------------------------------------ view bytes */

kd_game_status kd_ck_status_of(const void *state)
{
    const kd_ck_state *s = state;
    kd_game_status st = {KD_PHASE_IN_PROGRESS, KD_SEAT_NONE, s->turn};
    if (s->status == KD_CK_DRAW) {
        st.phase = KD_PHASE_DRAW;
        st.to_move = KD_SEAT_NONE;
    } else if (s->status != KD_CK_IN_PROGRESS) {
        st.phase = KD_PHASE_WON;
        st.winner = s->status == KD_CK_WHITE_WON ? KD_CK_WHITE : KD_CK_BLACK;
        st.to_move = KD_SEAT_NONE;
    }
    return st;
}

kd_err kd_ck_view_encode(const void *state, int seat, kd_buf *out)
{
    (void)seat; /* no secret: every seat sees the public view */
    const kd_ck_state *s = state;
    uint32_t board[KD_CK_SQUARES], last[KD_CK_PATH_MAX];
    for (int sq = 0; sq < KD_CK_SQUARES; sq++)
        board[sq] = s->board[sq];
    for (int i = 0; i < s->last.count && i < KD_CK_PATH_MAX; i++)
        last[i] = s->last.squares[i];
    Kdapp__CheckersView v = KDAPP__CHECKERS_VIEW__INIT;
    v.n_board = KD_CK_SQUARES;
    v.board = board;
    v.current = (uint32_t)s->turn + 1;
    v.status = (Kdapp__CheckersStatus)s->status;
    v.move_count = s->move_count;
    v.quiet_plies = s->quiet;
    v.n_last_move = s->last.count;
    v.last_move = last;
    return kd_pb_append(&v.base, out);
}

kd_err kd_ck_view_decode(const uint8_t *data, size_t len, kd_ck_view *out)
{
    memset(out, 0, sizeof *out);
    if (!data || len == 0)
        return KD_ERR_DECODE;
    Kdapp__CheckersView *v = kdapp__checkers_view__unpack(NULL, len, data);
    kd_err err = KD_ERR_DECODE;
    if (!v || v->n_board != KD_CK_SQUARES || v->current < 1 || v->current > 2 || (unsigned)v->status > KD_CK_DRAW ||
        v->quiet_plies > KD_CK_DRAW_PLIES || v->n_last_move == 1 || v->n_last_move > KD_CK_PATH_MAX)
        goto done;
    for (int sq = 0; sq < KD_CK_SQUARES; sq++) {
        if (v->board[sq] > KD_CK_BLACK_KING || (v->board[sq] && !kd_ck_is_playing((uint32_t)sq)))
            goto done;
        out->pos.board[sq] = (uint8_t)v->board[sq];
    }
    for (size_t i = 0; i < v->n_last_move; i++) {
        if (!kd_ck_is_playing(v->last_move[i]))
            goto done;
        out->last.squares[i] = (uint8_t)v->last_move[i];
    }
    out->last.count = (uint8_t)v->n_last_move;
    out->pos.turn = (uint8_t)(v->current - 1);
    out->status = (uint8_t)v->status;
    out->move_count = v->move_count;
    out->quiet = v->quiet_plies;
    err = KD_OK;
done:
    kdapp__checkers_view__free_unpacked(v, NULL);
    if (err)
        memset(out, 0, sizeof *out);
    return err;
}

static const char *status_name(uint8_t status)
{
    switch (status) {
    case KD_CK_WHITE_WON:
        return "white_won";
    case KD_CK_BLACK_WON:
        return "black_won";
    case KD_CK_DRAW:
        return "draw";
    default:
        return "in_progress";
    }
}

/* ------------------------------------------------------------ JSON helpers */

static int push_notation(void *ctx, const kd_ck_path *path)
{
    char n[KD_NOTATION_MAX];
    kd_ck_path_format(path, n);
    return json_array_append_new(ctx, json_string(n)) != 0;
}

/* The legal moves of the side to move as notations ([] once the game is
 * over); NULL when out of memory. */
static json_t *moves_json(const kd_ck_view *v)
{
    json_t *a = json_array();
    if (a && v->status == KD_CK_IN_PROGRESS && kd_ck_each_move(&v->pos, push_notation, a)) {
        json_decref(a);
        return NULL;
    }
    return a;
}

/* Whether the side to move must capture (never once the game is over). */
static int must_capture(const kd_ck_view *v)
{
    return v->status == KD_CK_IN_PROGRESS && kd_ck_can_capture(v->pos.board, v->pos.turn);
}

/* {"must_capture": bool, "forced_captures": [...]}: the captures are the
 * legal moves when one is mandatory, else none. */
static json_t *move_rules_json(const kd_ck_view *v)
{
    int must = must_capture(v);
    return json_pack("{s:b, s:o}", "must_capture", must, "forced_captures", must ? moves_json(v) : json_array());
}

/* The eight rows of the state text, rank 8 first. */
static json_t *rows_json(const char *text)
{
    json_t *rows = json_array();
    for (int r = 0; rows && r < 8; r++)
        if (json_array_append_new(rows, json_stringn(text + r * 9, 8)) != 0) {
            json_decref(rows);
            return NULL;
        }
    return rows;
}

static json_t *path_json(const kd_ck_path *p)
{
    char n[KD_NOTATION_MAX];
    kd_ck_path_format(p, n);
    return p->count ? json_string(n) : json_null();
}

static json_t *pieces_json(const kd_ck_view *v)
{
    json_int_t count[5] = {0};
    for (int sq = 0; sq < KD_CK_SQUARES; sq++)
        count[v->pos.board[sq]]++;
    return json_pack("{s:I, s:I, s:I, s:I}", "white_men", count[KD_CK_WHITE_MAN], "white_kings",
                     count[KD_CK_WHITE_KING], "black_men", count[KD_CK_BLACK_MAN], "black_kings",
                     count[KD_CK_BLACK_KING]);
}

json_t *kd_ck_view_json(const uint8_t *view, size_t len)
{
    kd_ck_view v;
    if (kd_ck_view_decode(view, len, &v) != KD_OK)
        return NULL;
    char text[KD_CK_TEXT_LEN];
    kd_ck_text_format(&v.pos, text);
    return json_pack("{s:s, s:o, s:s, s:s, s:s, s:s, s:I, s:o, s:I, s:i, s:o, s:o}", "state_text", text, "board",
                     rows_json(text), "board_rows", "rank8_to_rank1", "turn", v.pos.turn == KD_CK_WHITE ? "w" : "b",
                     "current", seat_names[v.pos.turn], "status", status_name(v.status), "move_count",
                     (json_int_t)v.move_count, "pieces", pieces_json(&v), "draw_counter", (json_int_t)v.quiet,
                     "draw_at", KD_CK_DRAW_PLIES, "last_move", path_json(&v.last), "move_rules", move_rules_json(&v));
}

json_t *kd_ck_strategy_json(const uint8_t *view, size_t len)
{
    kd_ck_view v;
    if (kd_ck_view_decode(view, len, &v) != KD_OK)
        return NULL;
    char text[KD_CK_TEXT_LEN];
    kd_ck_text_format(&v.pos, text);
    int over = v.status != KD_CK_IN_PROGRESS;
    const char *winner = v.status == KD_CK_WHITE_WON ? "white" : v.status == KD_CK_BLACK_WON ? "black" : NULL;
    int must = must_capture(&v);
    return json_pack("{s:s, s:s, s:s, s:o, s:s, s:s?, s:s, s:s?, s:I, s:I, s:o, s:o, s:b, s:o}", "game",
                     KD_CK_TYPE_NAME, "rules", RULES_TEXT, "state_text", text, "board", rows_json(text), "board_rows",
                     "rank8_to_rank1 (w white man, W white king, b black man, B black king, . empty)", "to_move",
                     over ? NULL : seat_names[v.pos.turn], "status", status_name(v.status), "winner", winner,
                     "move_count", (json_int_t)v.move_count, "draw_counter", (json_int_t)v.quiet, "last_move",
                     path_json(&v.last), "legal_moves", moves_json(&v), "must_capture", must, "forced_captures",
                     must ? moves_json(&v) : json_array());
}

/* ------------------------------------------------------------------ text */

/* One square's symbol: ASCII w W b B . (light squares blank), or with
 * Unicode the draughts pieces. */
static const char *symbol(uint8_t piece, int playing, int unicode)
{
    static const char *const ascii[5] = {".", "w", "W", "b", "B"};
    static const char *const uni[5] = {"\xc2\xb7", "\xe2\x9b\x80", "\xe2\x9b\x81", "\xe2\x9b\x82", "\xe2\x9b\x83"};
    if (!playing)
        return " ";
    return unicode ? uni[piece] : ascii[piece];
}

/* The board with rank and file labels, and the status line. */
static kd_err put_position(const kd_ck_view *v, int unicode, kd_buf *out)
{
    kd_err err = kd_buf_appendf(out, "   a b c d e f g h\n");
    for (int rank = 7; !err && rank >= 0; rank--) {
        err = kd_buf_appendf(out, " %d", rank + 1);
        for (int file = 0; !err && file < 8; file++) {
            int sq = rank * 8 + file;
            err = kd_buf_appendf(out, " %s", symbol(v->pos.board[sq], kd_ck_is_playing((uint32_t)sq), unicode));
        }
        if (!err)
            err = kd_buf_appendf(out, "  %d\n", rank + 1);
    }
    if (!err)
        err = kd_buf_appendf(out, "   a b c d e f g h\n");
    char last[KD_NOTATION_MAX];
    kd_ck_path_format(&v->last, last);
    if (!err && v->last.count)
        err = kd_buf_appendf(out, "last move %s; ", last);
    if (err)
        return err;
    switch (v->status) {
    case KD_CK_IN_PROGRESS:
        return kd_buf_appendf(out, "%s (%c) to move (ply %u)%s; quiet plies %u of %d\n", seat_names[v->pos.turn],
                              v->pos.turn == KD_CK_WHITE ? 'w' : 'b', (unsigned)v->move_count + 1,
                              must_capture(v) ? ", a capture is mandatory" : "", (unsigned)v->quiet, KD_CK_DRAW_PLIES);
    case KD_CK_DRAW:
        return kd_buf_appendf(out, "draw: %d plies without a capture or a man moved\n", KD_CK_DRAW_PLIES);
    default:
        return kd_buf_appendf(out, "%s won: %s has no legal move\n", v->status == KD_CK_WHITE_WON ? "white" : "black",
                              v->status == KD_CK_WHITE_WON ? "black" : "white");
    }
}

kd_err kd_ck_render_text(const uint8_t *view, size_t len, unsigned flags, kd_buf *out)
{
    kd_ck_view v;
    if (kd_ck_view_decode(view, len, &v) != KD_OK)
        return KD_ERR_DECODE;
    return put_position(&v, (flags & KD_RENDER_UNICODE) != 0, out);
}

static int append_move(void *ctx, const kd_ck_path *path)
{
    char n[KD_NOTATION_MAX];
    kd_ck_path_format(path, n);
    return kd_buf_appendf(ctx, " %s", n) != KD_OK;
}

kd_err kd_ck_prompt(const uint8_t *view, size_t len, uint32_t episode_id, int seat, kd_buf *out)
{
    kd_ck_view v;
    if (kd_ck_view_decode(view, len, &v) != KD_OK)
        return KD_ERR_DECODE;
    if (seat != KD_CK_WHITE && seat != KD_CK_BLACK)
        return KD_ERR_INVALID_ARG;
    char text[KD_CK_TEXT_LEN];
    kd_ck_text_format(&v.pos, text);
    kd_err err = kd_buf_appendf(out,
                                "You play checkers episode %u as %s (%s men, %s kings; your men move toward rank %d). "
                                "%s\n\nBoard (rank 8 first; w W white, b B black, . empty):\n",
                                (unsigned)episode_id, seat_names[seat], seat == KD_CK_WHITE ? "w" : "b",
                                seat == KD_CK_WHITE ? "W" : "B", seat == KD_CK_WHITE ? 1 : 8, RULES_TEXT);
    if (!err)
        err = put_position(&v, 0, out);
    if (!err)
        err = kd_buf_appendf(out, "State: %s\n", text);
    if (!err && v.status == KD_CK_IN_PROGRESS && v.pos.turn == seat) {
        err = kd_buf_appendf(out, "\nLegal moves:");
        if (!err && kd_ck_each_move(&v.pos, append_move, out))
            err = KD_ERR_NOMEM;
        if (!err)
            err = kd_buf_appendf(out, "\n%s",
                                 must_capture(&v) ? "A capture is mandatory: every legal move above is a capture, "
                                                    "taken to the end of its sequence.\n"
                                                  : "No capture is possible.\n");
        if (!err)
            err = kd_buf_appendf(out,
                                 "\nAnswer with the command JSON only, M one of the legal moves: {\"move\": \"M\"}\n");
    } else if (!err) {
        err = kd_buf_appendf(out, "\nIt is not your move.\n");
    }
    return err;
}
