/*
 * chess_state.c — the rules of a chess episode (creation from a FEN, a
 * move with each refusal named by its rule code), the state and undo
 * encodings, and the kd_episode_ops table that plugs them into the engine.
 *
 * State bytes, version 2 (integers big-endian):
 *   version, board[64] (piece codes, a1 first), fullmove u32, ply u32,
 *   halfmove u16, side, castling, ep, last_from, last_to, last_promo,
 *   last_san, check, players[0], players[1] (33 bytes each)
 *   (KD_CHESS_STATE_FIXED_LEN), then the ring's written entries: the
 *   hashes (u64) of the plies ply - w + 1 .. ply, oldest first,
 *   w = min(ply + 1, KD_CHESS_RING). The slots after ply (w < RING) were
 *   never written, or written and rolled back to zero: they decode as
 *   zero, so decode(encode(s)) == s byte for byte. (Only the entries back
 *   to the last irreversible move matter to the rules, but encoding just
 *   those is not enough: rolling back that move from a decoded state must
 *   bring the earlier positions back, and the undo record does not carry
 *   them.)
 * Undo bytes, version 2 (KD_CHESS_UNDO_LEN):
 *   version, ring_old u64, fullmove u32, halfmove u16, from, to, promo,
 *   flags, captured, castling, ep, last_from, last_to, last_promo,
 *   last_san, check
 */
#include <string.h>

#include "engine/crypto.h"
#include "episodes/chess/chess.h"
#include "episodes/ops_adapter.h"

const kd_rule_code kd_chess_rule_codes[] = {
    {"game_over", "the game has ended: checkmate, stalemate or a draw"},
    {"unauthorised", "the command is unsigned, or signed by a key that is not a participant"},
    {"not_your_turn", "the signer is the participant of the side that is not to move"},
    {"bad_square", "a square beyond the board (squares are 0 to 63, a1 = 0)"},
    {"no_piece", "there is no piece on the from square"},
    {"not_your_piece", "the piece on the from square belongs to the side not to move"},
    {"illegal_move", "the piece cannot move so (its moves, castling rights, blocked squares)"},
    {"bad_promotion", "a pawn reaching the last rank without a valid promotion piece (q, r, b, n), or a promotion "
                      "piece on a move that does not promote"},
    {"in_check", "the move leaves or puts the mover's king in check (or castles out of, through or into check)"},
    {NULL, NULL},
};

static const char *const side_words[2] = {"white", "black"};

static const char *status_sentence(uint8_t status)
{
    switch (status) {
    case KD_CHESS_WHITE_WON:
        return "white has checkmated black";
    case KD_CHESS_BLACK_WON:
        return "black has checkmated white";
    case KD_CHESS_STALEMATE:
        return "stalemate, a draw";
    case KD_CHESS_DRAW_MATERIAL:
        return "a draw by insufficient material";
    case KD_CHESS_DRAW_REPETITION:
        return "a draw by threefold repetition";
    case KD_CHESS_DRAW_FIFTY:
        return "a draw by the fifty-move rule";
    default:
        return "in progress";
    }
}

/* ------------------------------------------------------------ rules */

kd_err kd_chess_state_init(kd_chess_state *state, const kd_participants *participants, const char *fen, kd_reject *rej)
{
    char why[KD_REJECT_DETAIL_MAX];
    memset(state, 0, sizeof *state);
    if (kd_two_seats_check(participants, "chess", side_words, rej) != KD_OK)
        return KD_ERR_BAD_PARTICIPANTS;
    kd_err err = kd_chess_start_from_fen(fen && *fen ? fen : KD_CHESS_START_FEN, state, why, sizeof why);
    if (err) {
        memset(state, 0, sizeof *state);
        return kd_reject_say(rej, err, "%s", why);
    }
    memcpy(state->players, participants->keys, sizeof state->players);
    return KD_OK;
}

/* "e2e4", or the numbers when a square is off the board. */
static void move_name(uint32_t from, uint32_t to, uint32_t promo, char out[24])
{
    if (from < 64 && to < 64) {
        kd_chess_move m = {(uint8_t)from, (uint8_t)to, (uint8_t)(promo >= 2 && promo <= 5 ? promo : 0), 0};
        size_t n = kd_chess_uci(m, out);
        if (promo && !m.promo)
            memcpy(out + n, "?", 2);
        return;
    }
    kd_reject_write(out, 24, "%u->%u", (unsigned)from, (unsigned)to);
}

enum { NO_PIECE = 4, NOT_YOURS = 5 }; /* beside kd_chess_find_move's answers 1 to 3 */

/* The refusal of a move on the board: `verdict` is kd_chess_find_move's
 * answer (1 cannot move so, 2 in check, 3 promotion) or NO_PIECE /
 * NOT_YOURS. The sentence names the move; it is written only here, so an
 * accepted move formats nothing. */
static kd_err refuse(const kd_chess_state *s, uint32_t from, uint32_t to, uint32_t promo, int verdict, kd_reject *rej)
{
    static const char *const names[7] = {"", "pawn", "knight", "bishop", "rook", "queen", "king"};
    char name[24];
    uint8_t p = s->board[from];
    int side = s->side;
    move_name(from, to, promo, name);
    switch (verdict) {
    case NO_PIECE:
        return kd_reject_rule(rej, "no_piece", "Illegal move %s: there is no piece on %.2s", name, name);
    case NOT_YOURS:
        return kd_reject_rule(rej, "not_your_piece", "Illegal move %s: the piece on %.2s is %s's, and %s is to move",
                              name, name, side_words[side ^ 1], side_words[side]);
    case 1:
        return kd_reject_rule(rej, "illegal_move", "Illegal move %s: the %s on %.2s cannot move so", name,
                              names[KD_CHESS_TYPE(p)], name);
    case 3:
        return kd_reject_rule(rej, "bad_promotion",
                              "Illegal move %s: a pawn reaching the last rank promotes to q, r, b or n, and no other "
                              "move promotes",
                              name);
    default:
        if (KD_CHESS_TYPE(p) == KD_CHESS_KING && (to == from + 2 || to + 2 == from))
            return kd_reject_rule(rej, "in_check",
                                  "Illegal move %s: the king may not castle out of, through or into check", name);
        return kd_reject_rule(rej, "in_check", "Illegal move %s: king would be in check", name);
    }
}

/* kd_chess_play's checks after game_over, and the move. */
static kd_err play_move(kd_chess_state *state, uint32_t from, uint32_t to, uint32_t promo, const kd_pubkey *signer,
                        kd_chess_undo *undo, kd_reject *rej)
{
    int side = state->side;
    if (!signer)
        return kd_reject_rule(rej, "unauthorised", "the move is unsigned; %s's moves must be signed by participant %d",
                              side_words[side], side + 1);
    int is_mover = memcmp(signer->bytes, state->players[side].bytes, KD_PUBKEY_LEN) == 0;
    if (!is_mover && memcmp(signer->bytes, state->players[side ^ 1].bytes, KD_PUBKEY_LEN) != 0)
        return kd_reject_rule(rej, "unauthorised", "the signer is not a participant of this game");
    if (!is_mover)
        return kd_reject_rule(rej, "not_your_turn", "it is %s's turn, not %s's", side_words[side],
                              side_words[side ^ 1]);
    if (from >= 64 || to >= 64)
        return kd_reject_rule(rej, "bad_square", "Illegal move: there is no square %u (squares are 0 to 63, a1 = 0)",
                              (unsigned)(from >= 64 ? from : to));
    uint8_t p = state->board[from];
    kd_chess_move move;
    int verdict = !p ? NO_PIECE
                  : KD_CHESS_COLOUR(p) != side
                      ? NOT_YOURS
                      : kd_chess_find_move(state, (int)from, (int)to, promo <= KD_CHESS_QUEEN ? (int)promo : -1, &move);
    if (verdict != 0)
        return refuse(state, from, to, promo, verdict, rej);
    kd_chess_make(state, move, undo);
    return KD_OK;
}

kd_err kd_chess_play(kd_chess_state *state, uint32_t from, uint32_t to, uint32_t promo, const kd_pubkey *signer,
                     kd_chess_undo *undo, kd_reject *rej)
{
    /* A game drawn by rule is over whatever the move; otherwise a move
     * found legal proves there is no mate or stalemate, and only a refused
     * one needs the whole status (game_over comes before its own code). */
    kd_chess_status draw = kd_chess_rule_draw(state);
    kd_err err = draw ? KD_ERR_RULE : play_move(state, from, to, promo, signer, undo, rej);
    if (err == KD_ERR_RULE) {
        kd_chess_status st = kd_chess_status_of(state);
        if (st != KD_CHESS_IN_PROGRESS)
            return kd_reject_rule(rej, "game_over", "the game is over: %s", status_sentence((uint8_t)st));
    }
    return err;
}

/* -------------------------------------------------------- encodings */

/* The ring entries written since the start: the current position's and
 * those before it, as many as the ring holds. */
static unsigned written(const kd_chess_state *s) { return s->ply < KD_CHESS_RING ? s->ply + 1u : KD_CHESS_RING; }

kd_err kd_chess_state_encode(const kd_chess_state *s, kd_buf *out)
{
    uint8_t bytes[KD_CHESS_STATE_MAX_LEN];
    size_t n = 0;
    bytes[n++] = KD_CHESS_VERSION;
    memcpy(bytes + n, s->board, 64);
    n += 64;
    kd_put_u32be(bytes + n, s->fullmove);
    kd_put_u32be(bytes + n + 4, s->ply);
    bytes[n + 8] = (uint8_t)(s->halfmove >> 8);
    bytes[n + 9] = (uint8_t)s->halfmove;
    n += 10;
    const uint8_t small[8] = {s->side,    s->castling,   s->ep,       s->last_from,
                              s->last_to, s->last_promo, s->last_san, s->check};
    memcpy(bytes + n, small, sizeof small);
    n += sizeof small;
    memcpy(bytes + n, s->players, 2 * KD_PUBKEY_LEN);
    n += 2 * KD_PUBKEY_LEN;
    for (unsigned k = written(s); k-- > 0; n += 8) {
        uint64_t h = s->ring[(s->ply - k) % KD_CHESS_RING];
        kd_put_u32be(bytes + n, (uint32_t)(h >> 32));
        kd_put_u32be(bytes + n + 4, (uint32_t)h);
    }
    return kd_buf_append(out, bytes, n);
}

static int piece_ok(uint8_t p) { return p == 0 || (KD_CHESS_TYPE(p) >= 1 && KD_CHESS_TYPE(p) <= 6 && p < 16); }

/* Whether the board, rights and en-passant square of `s` make a position
 * (one king each, no pawn on the first or last rank, rights backed by
 * their king and rook, the side not to move not in check); fills kings. */
static int position_ok(kd_chess_state *s)
{
    static const uint8_t homes[4][3] = {
        {KD_CHESS_WK, 4, 7}, {KD_CHESS_WQ, 4, 0}, {KD_CHESS_BK, 60, 63}, {KD_CHESS_BQ, 60, 56}};
    int kings[2] = {0, 0};
    for (int sq = 0; sq < 64; sq++) {
        uint8_t p = s->board[sq];
        if (!piece_ok(p) || (KD_CHESS_TYPE(p) == KD_CHESS_PAWN && (sq < 8 || sq >= 56)))
            return 0;
        if (KD_CHESS_TYPE(p) == KD_CHESS_KING) {
            kings[KD_CHESS_COLOUR(p)]++;
            s->king[KD_CHESS_COLOUR(p)] = (uint8_t)sq;
        }
    }
    if (kings[0] != 1 || kings[1] != 1 || s->side > 1 || s->castling > 15)
        return 0;
    for (int i = 0; i < 4; i++) {
        uint8_t colour = i < 2 ? 0 : KD_CHESS_BLACK_BIT;
        if ((s->castling & homes[i][0]) &&
            (s->board[homes[i][1]] != (colour | KD_CHESS_KING) || s->board[homes[i][2]] != (colour | KD_CHESS_ROOK)))
            return 0;
    }
    return !kd_chess_attacked(s->board, s->king[s->side ^ 1], s->side);
}

kd_err kd_chess_state_decode(const uint8_t *data, size_t len, kd_chess_state *state)
{
    kd_chess_state s;
    memset(&s, 0, sizeof s);
    memset(state, 0, sizeof *state);
    if (!data || len < KD_CHESS_STATE_FIXED_LEN || data[0] != KD_CHESS_VERSION)
        return KD_ERR_DECODE;
    size_t n = 1;
    memcpy(s.board, data + n, 64);
    n += 64;
    s.fullmove = kd_get_u32be(data + n);
    s.ply = kd_get_u32be(data + n + 4);
    s.halfmove = (uint16_t)(data[n + 8] << 8 | data[n + 9]);
    n += 10;
    s.side = data[n];
    s.castling = data[n + 1];
    s.ep = data[n + 2];
    s.last_from = data[n + 3];
    s.last_to = data[n + 4];
    s.last_promo = data[n + 5];
    s.last_san = data[n + 6];
    s.check = data[n + 7];
    n += 8;
    memcpy(s.players, data + n, 2 * KD_PUBKEY_LEN);
    n += 2 * KD_PUBKEY_LEN;
    unsigned w = written(&s);
    if (len != n + 8u * w)
        return KD_ERR_DECODE;
    for (unsigned k = w; k-- > 0; n += 8)
        s.ring[(s.ply - k) % KD_CHESS_RING] = (uint64_t)kd_get_u32be(data + n) << 32 | kd_get_u32be(data + n + 4);
    for (size_t i = 0; i < 2; i++)
        if (s.players[i].bytes[0] != 0x02 && s.players[i].bytes[0] != 0x03)
            return KD_ERR_DECODE;
    if (!position_ok(&s) || s.fullmove == 0 || s.halfmove > 150 || s.last_san > 1 ||
        (s.last_promo && (s.last_promo < KD_CHESS_KNIGHT || s.last_promo > KD_CHESS_QUEEN)) ||
        ((s.last_from == KD_CHESS_NO_SQUARE) != (s.last_to == KD_CHESS_NO_SQUARE)) || s.last_from > 64 ||
        s.last_to > 64 || (s.last_to < 64 && !s.board[s.last_to]))
        return KD_ERR_DECODE;
    if (s.ep != KD_CHESS_NO_SQUARE) {
        /* Only a square a legal en-passant capture can take on is kept. */
        kd_chess_move moves[KD_CHESS_MOVES_MAX];
        int found = 0, count = s.ep < 64 && (s.ep >> 3) == (s.side ? 2 : 5) ? kd_chess_legal_moves(&s, moves) : 0;
        for (int i = 0; i < count; i++)
            found |= (moves[i].flags & KD_CHESS_EN_PASSANT) != 0;
        if (!found)
            return KD_ERR_DECODE;
    }
    if (s.check != kd_chess_attacked(s.board, s.king[s.side], s.side ^ 1) ||
        s.ring[s.ply % KD_CHESS_RING] != kd_chess_hash(&s))
        return KD_ERR_DECODE;
    memcpy(state, &s, sizeof s);
    return KD_OK;
}

kd_err kd_chess_undo_encode(const kd_chess_undo *u, kd_buf *out)
{
    uint8_t b[KD_CHESS_UNDO_LEN];
    b[0] = KD_CHESS_VERSION;
    kd_put_u32be(b + 1, (uint32_t)(u->ring_old >> 32));
    kd_put_u32be(b + 5, (uint32_t)u->ring_old);
    kd_put_u32be(b + 9, u->fullmove);
    b[13] = (uint8_t)(u->halfmove >> 8);
    b[14] = (uint8_t)u->halfmove;
    const uint8_t rest[12] = {u->move.from, u->move.to,   u->move.promo, u->move.flags, u->captured, u->castling,
                              u->ep,        u->last_from, u->last_to,    u->last_promo, u->last_san, u->check};
    memcpy(b + 15, rest, sizeof rest);
    return kd_buf_append(out, b, sizeof b);
}

kd_err kd_chess_undo_decode(const uint8_t *data, size_t len, kd_chess_undo *u)
{
    memset(u, 0, sizeof *u);
    if (!data || len != KD_CHESS_UNDO_LEN || data[0] != KD_CHESS_VERSION)
        return KD_ERR_DECODE;
    const uint8_t *r = data + 15;
    if (r[0] >= 64 || r[1] >= 64 || (r[2] && (r[2] < KD_CHESS_KNIGHT || r[2] > KD_CHESS_QUEEN)) || r[3] > 15 ||
        !piece_ok(r[4]) || KD_CHESS_TYPE(r[4]) == KD_CHESS_KING || r[5] > 15 || r[6] > 64 || r[7] > 64 || r[8] > 64 ||
        (r[9] && (r[9] < KD_CHESS_KNIGHT || r[9] > KD_CHESS_QUEEN)) || r[10] > 1 || r[11] > 1)
        return KD_ERR_DECODE;
    kd_chess_undo v;
    memset(&v, 0, sizeof v);
    v.ring_old = (uint64_t)kd_get_u32be(data + 1) << 32 | kd_get_u32be(data + 5);
    v.fullmove = kd_get_u32be(data + 9);
    v.halfmove = (uint16_t)(data[13] << 8 | data[14]);
    v.move.from = r[0];
    v.move.to = r[1];
    v.move.promo = r[2];
    v.move.flags = r[3];
    v.captured = r[4];
    v.castling = r[5];
    v.ep = r[6];
    v.last_from = r[7];
    v.last_to = r[8];
    v.last_promo = r[9];
    v.last_san = r[10];
    v.check = r[11];
    memcpy(u, &v, sizeof v);
    return KD_OK;
}

/* -------------------------------------------------------- ops table */

static kd_err ops_resolve_params(const void *config, const uint8_t *params, size_t len, kd_buf *effective,
                                 kd_reject *rej)
{
    (void)config;
    char fen[KD_CHESS_FEN_MAX], why[KD_REJECT_DETAIL_MAX];
    kd_chess_state s;
    kd_err err = kd_chess_params_decode(params, len, fen, rej);
    if (err)
        return err;
    err = kd_chess_start_from_fen(fen[0] ? fen : KD_CHESS_START_FEN, &s, why, sizeof why);
    if (err)
        return kd_reject_say(rej, err, "%s", why);
    kd_chess_to_fen(&s, fen);
    return kd_chess_params_encode(fen, effective);
}

static kd_err ops_init(void *state, const kd_participants *participants, const uint8_t *params, size_t len,
                       const kd_block_meta *meta, kd_reject *rej)
{
    (void)meta;
    char fen[KD_CHESS_FEN_MAX];
    kd_err err = kd_chess_params_decode(params, len, fen, rej);
    if (err) {
        memset(state, 0, sizeof(kd_chess_state));
        return err;
    }
    return kd_chess_state_init(state, participants, fen, rej);
}

static kd_err ops_execute(void *state, const uint8_t *command, size_t len, const kd_pubkey *signer,
                          const kd_block_meta *meta, void *undo, kd_reject *rej)
{
    (void)meta;
    uint32_t from = 0, to = 0, promo = 0;
    kd_err err = kd_chess_command_decode(command, len, &from, &to, &promo, rej);
    if (err)
        return err;
    return kd_chess_play(state, from, to, promo, signer, undo, rej);
}

static kd_err ops_rollback(void *state, const void *undo) { return kd_chess_unmake(state, undo); }
KD_OPS_STATE_CODEC(chess);
KD_OPS_UNDO_CODEC(chess);

const kd_episode_ops kd_chess_ops = {
    .type_name = KD_CHESS_TYPE_NAME,
    KD_OPS_MEMBERS(chess),
};
