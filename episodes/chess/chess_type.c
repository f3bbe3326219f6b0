/*
 * chess_type.c — chess's entry in the type table (episodes/episode_type.h):
 * schemas and JSON for params and commands, the view (ChessView: the FEN,
 * status, check, the last move in UCI and SAN) and its renderings, legal
 * moves, random commands for the simulator, and the bot (chess_bot.c).
 * Pure functions. Renderings rebuild the position from the view's FEN, so
 * a subscriber with only the published view renders what a reader of the
 * store does.
 *
 * Command JSON: {"uci": "e2e4"} ({"move": "e2e4"} too); bytes whose squares
 * are off the board (a simulator's refused command) read back as
 * {"from": 64, "to": 12, "promotion": 0}. Notation of a move: UCI.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chess.pb-c.h"
#include "episodes/chess/chess.h"
#include "episodes/wire_alloc.h"

static const char *const seat_names[2] = {"white", "black"};

#define RULES_TEXT                                                                                              \
    "Chess (FIDE rules): white moves first; castling (not out of, through or into check), en passant and "      \
    "promotion to queen, rook, bishop or knight; a move may not leave the own king in check. Checkmate wins; "  \
    "stalemate, insufficient material, threefold repetition and the fifty-move rule draw automatically. Moves " \
    "are given in UCI: the from and to squares (e2e4), and the promotion piece (e7e8q)."

/* ------------------------------------------------------------- view bytes */

/* The decoded view: the position rebuilt from its FEN. */
typedef struct {
    kd_chess_state pos; /* board, side, rights, clocks; ring and players empty */
    uint8_t status;     /* kd_chess_status */
    int check;
    uint32_t ply;
    char fen[KD_CHESS_FEN_MAX];
    char last_uci[KD_CHESS_UCI_MAX], last_san[KD_CHESS_SAN_MAX];
} chess_view;

static kd_err view_encode(const void *state_ptr, int seat, kd_buf *out)
{
    (void)seat; /* no secret: every seat sees the public view */
    const kd_chess_state *s = state_ptr;
    char fen[KD_CHESS_FEN_MAX], uci[KD_CHESS_UCI_MAX] = "", san[KD_CHESS_SAN_MAX];
    kd_chess_to_fen(s, fen);
    kd_chess_last_san(s, san);
    if (s->last_from < 64) {
        kd_chess_move last = {s->last_from, s->last_to, s->last_promo, 0};
        kd_chess_uci(last, uci);
    }
    Kdapp__ChessView v = KDAPP__CHESS_VIEW__INIT;
    v.fen = fen;
    v.status = (Kdapp__ChessStatus)kd_chess_status_of(s);
    v.check = kd_chess_in_check(s);
    v.last_uci = uci;
    v.last_san = san;
    v.ply = s->ply;
    return kd_pb_append(&v.base, out);
}

/* Decodes and checks view bytes: 0, or -1 when malformed (or no memory). */
static int view_decode(const uint8_t *data, size_t len, chess_view *out)
{
    char why[KD_REJECT_DETAIL_MAX];
    memset(out, 0, sizeof *out);
    if (!data || len == 0)
        return -1;
    Kdapp__ChessView *v = kdapp__chess_view__unpack(NULL, len, data);
    int rc = -1;
    if (!v || (unsigned)v->status > (unsigned)KD_CHESS_DRAW_FIFTY || strlen(v->fen) >= KD_CHESS_FEN_MAX ||
        strlen(v->last_uci) >= KD_CHESS_UCI_MAX || strlen(v->last_san) >= KD_CHESS_SAN_MAX ||
        kd_chess_from_fen(v->fen, &out->pos, why, sizeof why) != KD_OK)
        goto done;
    out->status = (uint8_t)v->status;
    out->check = v->check;
    out->ply = v->ply;
    memcpy(out->fen, v->fen, strlen(v->fen) + 1);
    memcpy(out->last_uci, v->last_uci, strlen(v->last_uci) + 1);
    memcpy(out->last_san, v->last_san, strlen(v->last_san) + 1);
    rc = 0;
done:
    kdapp__chess_view__free_unpacked(v, NULL);
    return rc;
}

static kd_game_status status_of(uint8_t status, int to_move)
{
    kd_game_status st = {KD_PHASE_IN_PROGRESS, KD_SEAT_NONE, to_move};
    if (status == KD_CHESS_IN_PROGRESS)
        return st;
    st.to_move = KD_SEAT_NONE;
    if (status == KD_CHESS_WHITE_WON || status == KD_CHESS_BLACK_WON) {
        st.phase = KD_PHASE_WON;
        st.winner = status == KD_CHESS_WHITE_WON ? KD_CHESS_WHITE : KD_CHESS_BLACK;
    } else {
        st.phase = KD_PHASE_DRAW;
    }
    return st;
}

static kd_game_status status(const void *state_ptr)
{
    const kd_chess_state *s = state_ptr;
    return status_of((uint8_t)kd_chess_status_of(s), s->side);
}

/* "in_progress", "checkmate", "stalemate", "draw". */
static const char *status_word(uint8_t status)
{
    static const char *const words[] = {"in_progress", "checkmate", "checkmate", "stalemate", "draw", "draw", "draw"};
    return words[status];
}

/* The draw's reason, NULL when not drawn. */
static const char *draw_reason(uint8_t status)
{
    switch (status) {
    case KD_CHESS_STALEMATE:
        return "stalemate";
    case KD_CHESS_DRAW_MATERIAL:
        return "insufficient_material";
    case KD_CHESS_DRAW_REPETITION:
        return "threefold_repetition";
    case KD_CHESS_DRAW_FIFTY:
        return "fifty_move_rule";
    default:
        return NULL;
    }
}

static const char *result_text(uint8_t status)
{
    return status == KD_CHESS_IN_PROGRESS ? "*"
           : status == KD_CHESS_WHITE_WON ? "1-0"
           : status == KD_CHESS_BLACK_WON ? "0-1"
                                          : "1/2-1/2";
}

/* ------------------------------------------------------------ JSON helpers */

static json_t *last_move_json(const chess_view *v)
{
    if (!v->last_uci[0])
        return json_null();
    return json_pack("{s:s, s:s}", "uci", v->last_uci, "san", v->last_san);
}

static json_t *view_json(const uint8_t *view, size_t len)
{
    chess_view v;
    if (view_decode(view, len, &v) != 0)
        return NULL;
    kd_game_status st = status_of(v.status, v.pos.side);
    return json_pack("{s:s, s:s, s:s, s:b, s:o, s:s, s:s, s:s?, s:s?, s:I, s:I, s:I, s:{s:b}}", "fen", v.fen, "turn",
                     v.pos.side ? "b" : "w", "current", seat_names[v.pos.side], "check", v.check, "last_move",
                     last_move_json(&v), "status", status_word(v.status), "result", result_text(v.status),
                     "draw_reason", draw_reason(v.status), "winner", st.winner >= 0 ? seat_names[st.winner] : NULL,
                     "move_number", (json_int_t)v.pos.fullmove, "halfmove_clock", (json_int_t)v.pos.halfmove,
                     "move_count", (json_int_t)v.ply, "move_rules", "check", v.check);
}

/* The legal moves of the view's position as UCI and SAN arrays. */
static int legal_json(const chess_view *v, json_t **uci_out, json_t **san_out)
{
    kd_chess_move moves[KD_CHESS_MOVES_MAX];
    int n = v->status == KD_CHESS_IN_PROGRESS ? kd_chess_legal_moves(&v->pos, moves) : 0;
    json_t *uci = json_array(), *san = json_array();
    for (int i = 0; uci && san && i < n; i++) {
        char u[KD_CHESS_UCI_MAX], s[KD_CHESS_SAN_MAX];
        kd_chess_uci(moves[i], u);
        kd_chess_san(&v->pos, moves[i], s);
        if (json_array_append_new(uci, json_string(u)) != 0 || json_array_append_new(san, json_string(s)) != 0)
            break;
    }
    *uci_out = uci;
    *san_out = san;
    return uci && san ? 0 : -1;
}

static json_t *strategy_context(const uint8_t *view, size_t len)
{
    chess_view v;
    json_t *uci = NULL, *san = NULL;
    if (view_decode(view, len, &v) != 0)
        return NULL;
    legal_json(&v, &uci, &san);
    kd_game_status st = status_of(v.status, v.pos.side);
    return json_pack("{s:s, s:s, s:s, s:s, s:s?, s:b, s:s, s:s?, s:s?, s:o, s:o, s:o, s:s}", "game", KD_CHESS_TYPE_NAME,
                     "rules", RULES_TEXT, "fen", v.fen, "turn", v.pos.side ? "b" : "w", "to_move",
                     st.to_move >= 0 ? seat_names[st.to_move] : NULL, "check", v.check, "status", status_word(v.status),
                     "draw_reason", draw_reason(v.status), "winner", st.winner >= 0 ? seat_names[st.winner] : NULL,
                     "last_move", last_move_json(&v), "legal_moves", uci ? uci : json_null(), "legal_san",
                     san ? san : json_null(), "answer_format", "{\"uci\": \"e2e4\"}");
}

/* The board, rank 8 first, with file and rank labels, and status lines. */
static kd_err put_position(const chess_view *v, unsigned flags, kd_buf *out)
{
    static const char *const unicode[16] = {"", "♙", "♘", "♗", "♖", "♕", "♔", "", "", "♟", "♞", "♝", "♜", "♛", "♚", ""};
    static const char ascii[] = ".PNBRQK..pnbrqk.";
    kd_err err = kd_buf_appendf(out, "  a b c d e f g h\n");
    for (int rank = 7; !err && rank >= 0; rank--) {
        err = kd_buf_appendf(out, "%d", rank + 1);
        for (int file = 0; !err && file < 8; file++) {
            uint8_t p = v->pos.board[rank * 8 + file];
            if (p && (flags & KD_RENDER_UNICODE))
                err = kd_buf_appendf(out, " %s", unicode[p & 15]);
            else
                err = kd_buf_appendf(out, " %c", ascii[p & 15]);
        }
        if (!err)
            err = kd_buf_appendf(out, " %d\n", rank + 1);
    }
    if (!err)
        err = kd_buf_appendf(out, "  a b c d e f g h\n");
    if (!err && v->last_uci[0])
        err = kd_buf_appendf(out, "last move: %s (%s)\n", v->last_uci, v->last_san);
    if (err)
        return err;
    if (v->status == KD_CHESS_IN_PROGRESS)
        return kd_buf_appendf(out, "%s to move (move %u)%s\n", seat_names[v->pos.side], (unsigned)v->pos.fullmove,
                              v->check ? ", in check" : "");
    if (v->status == KD_CHESS_WHITE_WON || v->status == KD_CHESS_BLACK_WON)
        return kd_buf_appendf(out, "checkmate: %s wins (%s)\n", v->status == KD_CHESS_WHITE_WON ? "white" : "black",
                              result_text(v->status));
    static const char *const words[] = {
        "", "", "", "stalemate", "insufficient material", "threefold repetition", "the fifty-move rule"};
    return kd_buf_appendf(out, "draw: %s (1/2-1/2)\n", words[v->status]);
}

static kd_err render_text(const uint8_t *view, size_t len, unsigned flags, kd_buf *out)
{
    chess_view v;
    if (view_decode(view, len, &v) != 0)
        return KD_ERR_DECODE;
    return put_position(&v, flags, out);
}

static kd_err prompt(const uint8_t *view, size_t len, uint32_t episode_id, int seat, kd_buf *out)
{
    chess_view v;
    if (view_decode(view, len, &v) != 0)
        return KD_ERR_DECODE;
    if (seat != KD_CHESS_WHITE && seat != KD_CHESS_BLACK)
        return KD_ERR_INVALID_ARG;
    kd_err err = kd_buf_appendf(out,
                                "You play chess episode %u as %s. %s\n\nPosition (FEN): %s\n"
                                "Board (uppercase white, lowercase black, . empty):\n",
                                (unsigned)episode_id, seat_names[seat], RULES_TEXT, v.fen);
    if (!err)
        err = put_position(&v, 0, out);
    if (!err && v.status == KD_CHESS_IN_PROGRESS && v.pos.side == seat) {
        kd_chess_move moves[KD_CHESS_MOVES_MAX];
        int n = kd_chess_legal_moves(&v.pos, moves);
        err = kd_buf_appendf(out, "\nLegal moves (UCI):");
        for (int i = 0; !err && i < n; i++) {
            char u[KD_CHESS_UCI_MAX];
            kd_chess_uci(moves[i], u);
            err = kd_buf_appendf(out, " %s", u);
        }
        if (!err)
            err = kd_buf_appendf(out, "\n\nAnswer with the command JSON only, M one of the legal moves in UCI: "
                                      "{\"uci\": \"M\"} (for example {\"uci\": \"e2e4\"})\n");
    } else if (!err) {
        err = kd_buf_appendf(out, "\nIt is not your move.\n");
    }
    return err;
}

/* ----------------------------------------------------------- JSON ⇄ bytes */

static const char params_schema[] =
    "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{\"fen\":{\"type\":\"string\","
    "\"description\":\"the start position as a FEN; the standard position when absent\"}}}";

static const char command_schema[] =
    "{\"type\":\"object\",\"properties\":{\"uci\":{\"type\":\"string\",\"pattern\":\"^[a-h][1-8][a-h][1-8][nbrqNBRQ]?$"
    "\","
    "\"description\":\"the move in UCI: from and to squares, and the promotion piece (e2e4, e7e8q)\"},"
    "\"move\":{\"type\":\"string\",\"description\":\"the same as uci\"}}}";

static kd_err params_from_json(const json_t *params, kd_buf *out, char *why, size_t why_len)
{
    if (!params || (json_is_object(params) && json_object_size(params) == 0))
        return KD_OK; /* zero bytes: the standard position */
    const json_t *fen = json_is_object(params) ? json_object_get(params, "fen") : NULL;
    if (!json_is_string(fen) || json_object_size(params) != 1) {
        kd_reject_write(why, why_len, "chess params are {\"fen\": \"<FEN>\"} or none (the standard position)");
        return KD_ERR_BAD_PARAMS;
    }
    kd_chess_state s;
    kd_err err = kd_chess_start_from_fen(json_string_value(fen), &s, why, why_len);
    if (err)
        return err;
    return kd_chess_params_encode(json_string_value(fen), out);
}

static kd_err command_from_json(const json_t *command, int seat, kd_buf *out, char *why, size_t why_len)
{
    (void)seat; /* the signer says who moves */
    const json_t *text = NULL, *from = NULL, *to = NULL;
    if (json_is_object(command)) {
        text = json_object_get(command, "uci");
        if (!text)
            text = json_object_get(command, "move");
        from = json_object_get(command, "from");
        to = json_object_get(command, "to");
    }
    if (json_is_integer(from) && json_is_integer(to) && !text) {
        const json_t *promo = json_object_get(command, "promotion");
        json_int_t f = json_integer_value(from), t = json_integer_value(to), p = json_integer_value(promo);
        if (f >= 0 && t >= 0 && p >= 0 && f <= UINT32_MAX && t <= UINT32_MAX && p <= UINT32_MAX)
            return kd_chess_command_encode((uint32_t)f, (uint32_t)t, (uint32_t)p, out);
    }
    char lower[8] = "";
    const char *s = json_string_value(text);
    for (size_t i = 0; s && s[i] && i < sizeof lower - 1; i++)
        lower[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' && i == 4 ? s[i] - 'A' + 'a' : s[i]);
    int f = 0, t = 0, p = 0;
    if (!s || strlen(s) >= sizeof lower || kd_chess_uci_parse(lower, &f, &t, &p) != 0) {
        kd_reject_write(why, why_len,
                        "a chess command is {\"uci\": \"e2e4\"} (from and to squares, and q, r, b or n "
                        "for a promotion: \"e7e8q\")");
        return KD_ERR_BAD_COMMAND;
    }
    return kd_chess_command_encode((uint32_t)f, (uint32_t)t, (uint32_t)p, out);
}

static json_t *command_to_json(const uint8_t *command, size_t len)
{
    uint32_t from = 0, to = 0, promo = 0;
    if (kd_chess_command_decode(command, len, &from, &to, &promo, NULL) != KD_OK)
        return NULL;
    int valid_promo = promo == 0 || (promo >= KD_CHESS_KNIGHT && promo <= KD_CHESS_QUEEN);
    if (from >= 64 || to >= 64 || !valid_promo)
        return json_pack("{s:I, s:I, s:I}", "from", (json_int_t)from, "to", (json_int_t)to, "promotion",
                         (json_int_t)promo);
    char uci[KD_CHESS_UCI_MAX];
    kd_chess_move m = {(uint8_t)from, (uint8_t)to, (uint8_t)promo, 0};
    kd_chess_uci(m, uci);
    return json_pack("{s:s}", "uci", uci);
}

/* ------------------------------------------------------------------ moves */

static kd_err legal_moves(const void *state_ptr, int seat, kd_legal_moves *out)
{
    const kd_chess_state *s = state_ptr;
    if (seat != s->side)
        return KD_OK;
    kd_chess_move moves[KD_CHESS_MOVES_MAX];
    int n = kd_chess_legal_moves(s, moves); /* none: mate or stalemate */
    if (n > 0 && kd_chess_rule_draw(s) != KD_CHESS_IN_PROGRESS)
        return KD_OK;
    kd_err err = KD_OK;
    for (int i = 0; !err && i < n; i++) {
        uint8_t cmd[KD_CHESS_COMMAND_MAX];
        char uci[KD_CHESS_UCI_MAX];
        size_t len = kd_chess_command_pack(moves[i].from, moves[i].to, moves[i].promo, cmd);
        kd_chess_uci(moves[i], uci);
        err = kd_legal_moves_push(out, cmd, len, uci);
    }
    return err;
}

static kd_err put_command(uint32_t from, uint32_t to, uint32_t promo, kd_buf *out)
{
    return kd_chess_command_encode(from, to, promo, out);
}

/* A move of the side to move that a rule refuses: into check when the
 * position offers one and a coin says so, else a piece moving in a way it
 * cannot (a bishop straight), else a square off the board. */
static kd_err illegal_for_mover(const kd_chess_state *s, uint64_t *rng, kd_buf *out)
{
    uint16_t into_check[512], cannot[512];
    unsigned n_check = 0, n_cannot = 0;
    for (int from = 0; from < 64; from++) {
        uint8_t p = s->board[from];
        if (!p || KD_CHESS_COLOUR(p) != s->side)
            continue;
        for (int to = 0; to < 64; to++) {
            int promo = KD_CHESS_TYPE(p) == KD_CHESS_PAWN && (to < 8 || to >= 56) ? KD_CHESS_QUEEN : 0;
            kd_chess_move m;
            int r = kd_chess_find_move(s, from, to, promo, &m);
            uint16_t code = (uint16_t)(from << 8 | to << 1 | (promo != 0));
            if (r == 2 && n_check < 512)
                into_check[n_check++] = code;
            else if (r == 1 && n_cannot < 512 && to != from)
                cannot[n_cannot++] = code;
        }
    }
    uint16_t code;
    if (n_check && kd_type_rng_below(rng, 2) == 0)
        code = into_check[kd_type_rng_below(rng, n_check)];
    else if (n_cannot)
        code = cannot[kd_type_rng_below(rng, n_cannot)];
    else
        return put_command(64 + kd_type_rng_below(rng, 64), kd_type_rng_below(rng, 64), 0, out);
    return put_command(code >> 8, (code >> 1) & 63, code & 1 ? KD_CHESS_QUEEN : 0, out);
}

/*
 * Legal: uniform over the legal moves. Illegal, refused by a rule: a seat
 * not to move (or a finished game) sends a move of the side to move
 * (not_your_turn, game_over); the seat to move sends a move into check,
 * a move its piece cannot make, or a square off the board.
 */
static kd_err random_command(const void *state_ptr, int seat, int legal, uint64_t *rng, kd_buf *out)
{
    const kd_chess_state *s = state_ptr;
    kd_chess_move moves[KD_CHESS_MOVES_MAX];
    int n = kd_chess_legal_moves(s, moves);
    int over = n == 0 || kd_chess_rule_draw(s) != KD_CHESS_IN_PROGRESS;
    if (legal) {
        if (over || seat != s->side)
            return KD_ERR_NO_MOVE;
        kd_chess_move m = moves[kd_type_rng_below(rng, (uint32_t)n)];
        return put_command(m.from, m.to, m.promo, out);
    }
    if (seat != s->side || over) {
        if (n == 0)
            return put_command(s->king[s->side], s->king[s->side], 0, out);
        kd_chess_move m = moves[kd_type_rng_below(rng, (uint32_t)n)];
        return put_command(m.from, m.to, m.promo, out);
    }
    return illegal_for_mover(s, rng, out);
}

static kd_err describe_change(const void *from_ptr, const void *to_ptr, kd_buf *out)
{
    const kd_chess_state *from = from_ptr, *to = to_ptr;
    if (to->ply != from->ply + 1 || to->last_from >= 64)
        return KD_OK;
    char uci[KD_CHESS_UCI_MAX], san[KD_CHESS_SAN_MAX];
    kd_chess_move last = {to->last_from, to->last_to, to->last_promo, 0};
    kd_chess_uci(last, uci);
    kd_chess_last_san(to, san);
    kd_err err = kd_buf_appendf(out, "%s played %s (%s).\n", seat_names[from->side], uci, san);
    if (!err && kd_chess_in_check(to) && kd_chess_status_of(to) == KD_CHESS_IN_PROGRESS)
        err = kd_buf_appendf(out, "%s is in check.\n", seat_names[to->side]);
    return err;
}

const kd_episode_type kd_chess_type = {
    .ops = &kd_chess_ops,
    .title = "Chess",
    .summary = RULES_TEXT " Seats: white (first participant), black. Command {\"uci\": \"e2e4\"}; params "
                          "{\"fen\": \"<FEN>\"} to start from a position.",
    .min_seats = 2,
    .max_seats = 2,
    .seat_names = seat_names,
    .rule_codes = kd_chess_rule_codes,
    .params_schema = params_schema,
    .command_schema = command_schema,
    .params_from_json = params_from_json,
    .params_message = &kdapp__chess_params__descriptor,
    .command_from_json = command_from_json,
    .command_to_json = command_to_json,
    .status = status,
    .view_encode = view_encode,
    .view_json = view_json,
    .strategy_context = strategy_context,
    .render_text = render_text,
    .prompt = prompt,
    .legal_moves = legal_moves,
    .random_command = random_command,
    .bot_command = kd_chess_bot_command,
    .bot_max_depth = KD_CHESS_BOT_MAX_DEPTH,
    .describe_change = describe_change,
};
