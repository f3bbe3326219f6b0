/*
 * checkers_text.c — checkers' texts (see checkers.h): square names, the
 * notation of a move ("b6d4f2") and the games-mcp state text
 * ("<rank8>/.../<rank1> <turn>"), both ways.
 */
#include <stdio.h>
#include <string.h>

#include "episodes/checkers/checkers.h"

static const char piece_chars[5] = {'.', 'w', 'W', 'b', 'B'};

void kd_ck_square_name(uint32_t sq, char out[3])
{
    if (sq >= KD_CK_SQUARES) {
        memcpy(out, "??", 3);
        return;
    }
    out[0] = (char)('a' + sq % 8);
    out[1] = (char)('1' + sq / 8);
    out[2] = '\0';
}

void kd_ck_path_format(const kd_ck_path *path, char out[KD_NOTATION_MAX])
{
    size_t n = 0;
    for (size_t i = 0; i < path->count && i < KD_CK_PATH_MAX; i++) {
        kd_ck_square_name(path->squares[i], &out[n]);
        n += 2;
    }
    out[n] = '\0';
}

kd_err kd_ck_path_parse(const char *text, kd_ck_path *path, char *why, size_t why_len)
{
    memset(path, 0, sizeof *path);
    if (!text) {
        kd_reject_write(why, why_len, "a checkers move is the squares visited, as \"b6a5\" or \"b6d4f2\"");
        return KD_ERR_BAD_COMMAND;
    }
    for (size_t i = 0; text[i];) {
        if (path->count > 0 && (text[i] == '-' || text[i] == 'x' || text[i] == 'X'))
            i++;
        char f = text[i] >= 'A' && text[i] <= 'H' ? (char)(text[i] - 'A' + 'a') : text[i];
        if (f < 'a' || f > 'h' || text[i + 1] < '1' || text[i + 1] > '8') {
            kd_reject_write(why, why_len,
                            "\"%.40s\" is not a checkers move: give the squares visited, each a file a-h and a rank "
                            "1-8, as \"b6a5\" or \"b6d4f2\"",
                            text);
            memset(path, 0, sizeof *path);
            return KD_ERR_BAD_COMMAND;
        }
        if (path->count == KD_CK_PATH_MAX) {
            kd_reject_write(why, why_len, "a checkers move visits at most %d squares", KD_CK_PATH_MAX);
            memset(path, 0, sizeof *path);
            return KD_ERR_BAD_COMMAND;
        }
        uint32_t sq = (uint32_t)(text[i + 1] - '1') * 8 + (uint32_t)(f - 'a');
        if (!kd_ck_is_playing(sq)) {
            kd_reject_write(why, why_len, "%c%c is a light square: pieces stand only where file + rank is even", f,
                            text[i + 1]);
            memset(path, 0, sizeof *path);
            return KD_ERR_BAD_COMMAND;
        }
        path->squares[path->count++] = (uint8_t)sq;
        i += 2;
    }
    if (path->count < 2) {
        kd_reject_write(why, why_len,
                        "a checkers move names at least two squares: where the piece stands and "
                        "where it goes (\"b6a5\")");
        memset(path, 0, sizeof *path);
        return KD_ERR_BAD_COMMAND;
    }
    return KD_OK;
}

void kd_ck_text_format(const kd_ck_position *pos, char out[KD_CK_TEXT_LEN])
{
    size_t n = 0;
    for (int rank = 7; rank >= 0; rank--) {
        for (int file = 0; file < 8; file++) {
            uint8_t p = pos->board[rank * 8 + file];
            out[n++] = p <= KD_CK_BLACK_KING ? piece_chars[p] : '?';
        }
        out[n++] = rank ? '/' : ' ';
    }
    out[n++] = pos->turn == KD_CK_WHITE ? 'w' : 'b';
    out[n] = '\0';
}

kd_err kd_ck_text_parse(const char *text, kd_ck_position *pos, char *why, size_t why_len)
{
    memset(pos, 0, sizeof *pos);
    if (!text || strlen(text) != KD_CK_TEXT_LEN - 1) {
        kd_reject_write(why, why_len,
                        "a checkers state is \"<rank8>/.../<rank1> <turn>\": 8 rows of 8 of w W b B . and w or b");
        return KD_ERR_BAD_PARAMS;
    }
    for (int row = 0; row < 8; row++) {
        int rank = 7 - row;
        for (int file = 0; file < 8; file++) {
            const char *c = memchr(piece_chars, text[row * 9 + file], sizeof piece_chars);
            if (!c || !text[row * 9 + file]) {
                kd_reject_write(why, why_len, "rank %d of the state has '%c' at file %c: rows use w W b B .", rank + 1,
                                text[row * 9 + file], 'a' + file);
                memset(pos, 0, sizeof *pos);
                return KD_ERR_BAD_PARAMS;
            }
            pos->board[rank * 8 + file] = (uint8_t)(c - piece_chars);
        }
        char sep = text[row * 9 + 8];
        if (sep != (row < 7 ? '/' : ' ')) {
            kd_reject_write(why, why_len, "the state's rows are separated by '/' and followed by a space and the turn");
            memset(pos, 0, sizeof *pos);
            return KD_ERR_BAD_PARAMS;
        }
    }
    char turn = text[KD_CK_TEXT_LEN - 2];
    if (turn != 'w' && turn != 'b') {
        kd_reject_write(why, why_len, "the state's turn is w or b, not '%c'", turn);
        memset(pos, 0, sizeof *pos);
        return KD_ERR_BAD_PARAMS;
    }
    pos->turn = turn == 'w' ? KD_CK_WHITE : KD_CK_BLACK;
    return KD_OK;
}
