/*
 * chess_fen.c — chess notation: FEN in and out (with a sentence naming the
 * field that is wrong), UCI moves and squares, SAN. Pure functions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "episodes/chess/chess.h"

static const char piece_letters[] = " PNBRQK";

int kd_chess_square_parse(const char *text)
{
    if (!text || text[0] < 'a' || text[0] > 'h' || text[1] < '1' || text[1] > '8')
        return -1;
    return (text[0] - 'a') + 8 * (text[1] - '1');
}

static int piece_of_letter(char c)
{
    const char *at = strchr("PNBRQKpnbrqk", c);
    if (!c || !at)
        return 0;
    int i = (int)(at - "PNBRQKpnbrqk");
    return (i % 6 + 1) | (i >= 6 ? KD_CHESS_BLACK_BIT : 0);
}

static char letter_of_piece(uint8_t p) { return "?PNBRQK?"[KD_CHESS_TYPE(p)] + (KD_CHESS_COLOUR(p) ? 'a' - 'A' : 0); }

/* ------------------------------------------------------------ FEN in */

#define FEN_FAIL(...)                                      \
    do {                                                   \
        kd_reject_write(why, why_len, "FEN " __VA_ARGS__); \
        return KD_ERR_BAD_PARAMS;                          \
    } while (0)

static kd_err parse_placement(const char *field, kd_chess_state *s, char *why, size_t why_len)
{
    int rank = 7, file = 0, kings[2] = {0, 0};
    for (const char *c = field; *c; c++) {
        if (*c == '/') {
            if (file != 8)
                FEN_FAIL("piece placement: rank %d has %d squares, not 8", rank + 1, file);
            if (--rank < 0)
                FEN_FAIL("piece placement: more than 8 ranks");
            file = 0;
        } else if (*c >= '1' && *c <= '8') {
            file += *c - '0';
            if (file > 8)
                FEN_FAIL("piece placement: rank %d has more than 8 squares", rank + 1);
        } else {
            int p = piece_of_letter(*c);
            if (!p)
                FEN_FAIL("piece placement: '%c' is not a piece (PNBRQK, pnbrqk) or a count of empty squares", *c);
            if (file >= 8)
                FEN_FAIL("piece placement: rank %d has more than 8 squares", rank + 1);
            if (KD_CHESS_TYPE(p) == KD_CHESS_PAWN && (rank == 0 || rank == 7))
                FEN_FAIL("piece placement: a pawn on rank %d", rank + 1);
            if (KD_CHESS_TYPE(p) == KD_CHESS_KING) {
                kings[KD_CHESS_COLOUR(p)]++;
                s->king[KD_CHESS_COLOUR(p)] = (uint8_t)(rank * 8 + file);
            }
            s->board[rank * 8 + file++] = (uint8_t)p;
        }
    }
    if (rank != 0 || file != 8)
        FEN_FAIL("piece placement: it must give 8 ranks of 8 squares");
    if (kings[0] != 1 || kings[1] != 1)
        FEN_FAIL("piece placement: each side needs exactly one king (white has %d, black %d)", kings[0], kings[1]);
    return KD_OK;
}

static kd_err parse_castling(const char *field, kd_chess_state *s, char *why, size_t why_len)
{
    static const struct {
        char letter;
        uint8_t bit, king, rook, piece;
    } rights[4] = {{'K', KD_CHESS_WK, 4, 7, 0},
                   {'Q', KD_CHESS_WQ, 4, 0, 0},
                   {'k', KD_CHESS_BK, 60, 63, 8},
                   {'q', KD_CHESS_BQ, 60, 56, 8}};
    if (strcmp(field, "-") == 0)
        return KD_OK;
    for (const char *c = field; *c; c++) {
        int i = 0;
        while (i < 4 && rights[i].letter != *c)
            i++;
        if (i == 4)
            FEN_FAIL("castling field '%s': '%c' is none of K, Q, k, q (or '-' for none)", field, *c);
        if (s->castling & rights[i].bit)
            FEN_FAIL("castling field '%s': '%c' twice", field, *c);
        if (s->board[rights[i].king] != (rights[i].piece | KD_CHESS_KING) ||
            s->board[rights[i].rook] != (rights[i].piece | KD_CHESS_ROOK))
            FEN_FAIL("castling field '%s': right '%c' needs the %s king on %c%c and a rook on %c%c", field, *c,
                     rights[i].piece ? "black" : "white", 'a' + (rights[i].king & 7), '1' + (rights[i].king >> 3),
                     'a' + (rights[i].rook & 7), '1' + (rights[i].rook >> 3));
        s->castling |= rights[i].bit;
    }
    return KD_OK;
}

static kd_err parse_ep(const char *field, kd_chess_state *s, char *why, size_t why_len)
{
    s->ep = KD_CHESS_NO_SQUARE;
    if (strcmp(field, "-") == 0)
        return KD_OK;
    int sq = strlen(field) == 2 ? kd_chess_square_parse(field) : -1;
    if (sq < 0)
        FEN_FAIL("en-passant field '%s': not a square (like e3) or '-'", field);
    int white = s->side == KD_CHESS_WHITE, pushed = sq + (white ? -8 : 8), start = sq + (white ? 8 : -8);
    uint8_t pawn = (uint8_t)((white ? KD_CHESS_BLACK_BIT : 0) | KD_CHESS_PAWN);
    if ((sq >> 3) != (white ? 5 : 2))
        FEN_FAIL("en-passant field '%s': with %s to move it must be on rank %d", field, white ? "white" : "black",
                 white ? 6 : 3);
    if (s->board[pushed] != pawn || s->board[sq] || s->board[start])
        FEN_FAIL("en-passant field '%s': no %s pawn has just moved two squares past it", field,
                 white ? "black" : "white");
    s->ep = (uint8_t)sq;
    return KD_OK;
}

static kd_err parse_clock(const char *field, const char *name, long lo, long hi, long *out, char *why, size_t why_len)
{
    char *end = NULL;
    long v = strtol(field, &end, 10);
    if (!*field || *end || field[0] == '-' || field[0] == '+' || v < lo || v > hi)
        FEN_FAIL("%s '%s': want a whole number from %ld to %ld", name, field, lo, hi);
    *out = v;
    return KD_OK;
}

/* Whether the en-passant capture onto s->ep is legal for the side to move
 * (the FEN may name a square no pawn can take on: then it is dropped). */
static int ep_legal(const kd_chess_state *s)
{
    kd_chess_move moves[KD_CHESS_MOVES_MAX];
    int n = kd_chess_legal_moves(s, moves);
    for (int i = 0; i < n; i++)
        if (moves[i].flags & KD_CHESS_EN_PASSANT)
            return 1;
    return 0;
}

kd_err kd_chess_from_fen(const char *fen, kd_chess_state *s, char *why, size_t why_len)
{
    memset(s, 0, sizeof *s);
    char copy[KD_CHESS_FEN_MAX + 32];
    char *fields[7];
    int n = 0;
    if (!fen || strlen(fen) >= sizeof copy)
        FEN_FAIL("missing or longer than %zu characters", sizeof copy - 1);
    memcpy(copy, fen, strlen(fen) + 1);
    char *save = NULL;
    for (char *tok = strtok_r(copy, " \t", &save); tok && n < 7; tok = strtok_r(NULL, " \t", &save))
        fields[n++] = tok;
    if (n != 6 && n != 4)
        FEN_FAIL("'%s': want 6 fields (placement, side, castling, en passant, half-move clock, full-move number)", fen);
    kd_err err = parse_placement(fields[0], s, why, why_len);
    if (err)
        return err;
    if (strcmp(fields[1], "w") != 0 && strcmp(fields[1], "b") != 0)
        FEN_FAIL("side to move '%s': want w or b", fields[1]);
    s->side = fields[1][0] == 'w' ? KD_CHESS_WHITE : KD_CHESS_BLACK;
    long half = 0, full = 1;
    if ((err = parse_castling(fields[2], s, why, why_len)) != KD_OK || (err = parse_ep(fields[3], s, why, why_len)) ||
        (n == 6 && (err = parse_clock(fields[4], "half-move clock", 0, 150, &half, why, why_len))) ||
        (n == 6 &&
         (err = parse_clock(fields[5], "full-move number", 1, (long)KD_CHESS_FULLMOVE_MAX, &full, why, why_len))))
        return err;
    s->halfmove = (uint16_t)half;
    s->fullmove = (uint32_t)full;
    if (kd_chess_attacked(s->board, s->king[s->side ^ 1], s->side))
        FEN_FAIL("'%s': the side not to move (%s) is in check", fen, s->side ? "white" : "black");
    s->last_from = s->last_to = KD_CHESS_NO_SQUARE;
    s->check = (uint8_t)kd_chess_attacked(s->board, s->king[s->side], s->side ^ 1);
    if (s->ep != KD_CHESS_NO_SQUARE && !ep_legal(s))
        s->ep = KD_CHESS_NO_SQUARE;
    kd_chess_settle(s);
    return KD_OK;
}

kd_err kd_chess_start_from_fen(const char *fen, kd_chess_state *s, char *why, size_t why_len)
{
    kd_err err = kd_chess_from_fen(fen, s, why, why_len);
    if (err == KD_OK && s->fullmove > KD_CHESS_START_FULLMOVE_MAX) {
        unsigned full = (unsigned)s->fullmove;
        memset(s, 0, sizeof *s);
        FEN_FAIL("full-move number %u: a game starts at move %d at the latest", full, KD_CHESS_START_FULLMOVE_MAX);
    }
    return err;
}

/* ------------------------------------------------------------ FEN out */

void kd_chess_to_fen(const kd_chess_state *s, char out[KD_CHESS_FEN_MAX])
{
    size_t n = 0;
    for (int rank = 7; rank >= 0; rank--) {
        int empty = 0;
        for (int file = 0; file < 8; file++) {
            uint8_t p = s->board[rank * 8 + file];
            if (!p) {
                empty++;
                continue;
            }
            if (empty)
                out[n++] = (char)('0' + empty);
            empty = 0;
            out[n++] = letter_of_piece(p);
        }
        if (empty)
            out[n++] = (char)('0' + empty);
        if (rank)
            out[n++] = '/';
    }
    out[n++] = ' ';
    out[n++] = s->side == KD_CHESS_WHITE ? 'w' : 'b';
    out[n++] = ' ';
    if (!s->castling)
        out[n++] = '-';
    for (int i = 0; i < 4; i++)
        if (s->castling & (1 << i))
            out[n++] = "KQkq"[i];
    out[n++] = ' ';
    if (s->ep == KD_CHESS_NO_SQUARE)
        out[n++] = '-';
    else {
        out[n++] = (char)('a' + (s->ep & 7));
        out[n++] = (char)('1' + (s->ep >> 3));
    }
    snprintf(out + n, KD_CHESS_FEN_MAX - n, " %u %u", (unsigned)s->halfmove, (unsigned)s->fullmove);
}

/* ------------------------------------------------------------ UCI */

size_t kd_chess_uci(kd_chess_move m, char out[KD_CHESS_UCI_MAX])
{
    size_t n = 0;
    out[n++] = (char)('a' + (m.from & 7));
    out[n++] = (char)('1' + (m.from >> 3));
    out[n++] = (char)('a' + (m.to & 7));
    out[n++] = (char)('1' + (m.to >> 3));
    if (m.promo)
        out[n++] = "  nbrq"[m.promo];
    out[n] = '\0';
    return n;
}

int kd_chess_uci_parse(const char *text, int *from, int *to, int *promo)
{
    size_t len = text ? strlen(text) : 0;
    if (len != 4 && len != 5)
        return -1;
    *from = kd_chess_square_parse(text);
    *to = kd_chess_square_parse(text + 2);
    *promo = 0;
    if (len == 5) {
        const char *at = strchr("nbrq", text[4]);
        if (!text[4] || !at)
            return -1;
        *promo = KD_CHESS_KNIGHT + (int)(at - "nbrq");
    }
    return *from < 0 || *to < 0 ? -1 : 0;
}

/* ------------------------------------------------------------ SAN */

void kd_chess_last_san(const kd_chess_state *s, char out[KD_CHESS_SAN_MAX])
{
    size_t n = 0;
    int from = s->last_from, to = s->last_to;
    if (from >= 64 || to >= 64) {
        out[0] = '\0';
        return;
    }
    int type = s->last_promo ? KD_CHESS_PAWN : KD_CHESS_TYPE(s->board[to]);
    uint8_t facts = (uint8_t)(s->last_san | kd_chess_last_disambiguation(s));
    int df = (to & 7) - (from & 7);
    if (type == KD_CHESS_KING && (df == 2 || df == -2)) {
        memcpy(out, df > 0 ? "O-O" : "O-O-O", df > 0 ? 3 : 5);
        n = df > 0 ? 3 : 5;
    } else {
        if (type != KD_CHESS_PAWN)
            out[n++] = piece_letters[type];
        if ((type == KD_CHESS_PAWN && (facts & KD_CHESS_SAN_CAPTURE)) || (facts & KD_CHESS_SAN_FILE))
            out[n++] = (char)('a' + (from & 7));
        if (facts & KD_CHESS_SAN_RANK)
            out[n++] = (char)('1' + (from >> 3));
        if (facts & KD_CHESS_SAN_CAPTURE)
            out[n++] = 'x';
        out[n++] = (char)('a' + (to & 7));
        out[n++] = (char)('1' + (to >> 3));
        if (s->last_promo) {
            out[n++] = '=';
            out[n++] = piece_letters[s->last_promo];
        }
    }
    if (kd_chess_in_check(s) && !kd_chess_has_legal_move(s))
        out[n++] = '#';
    else if (kd_chess_in_check(s))
        out[n++] = '+';
    out[n] = '\0';
}

void kd_chess_san(const kd_chess_state *s, kd_chess_move move, char out[KD_CHESS_SAN_MAX])
{
    kd_chess_state after;
    kd_chess_undo undo;
    memcpy(&after, s, sizeof after);
    kd_chess_make(&after, move, &undo);
    kd_chess_last_san(&after, out);
}
