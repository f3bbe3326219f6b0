/*
 * chess.c — chess positions: attack tests, legal move generation, making
 * and unmaking a move on a kd_chess_state (board, rights, clocks, the
 * position-hash ring, the last move), and the status a position carries
 * (computed on demand: make does not ask it).
 * The hot path of the type (execute, perft, the bot): no allocation, no
 * formatting. Pure functions; rules and refusals are chess_state.c's.
 *
 * Legality: moves are generated pseudo-legally per piece and filtered by
 * whether the mover's king is attacked afterwards. The test is skipped
 * when it cannot fail: the side is not in check, the move is not en
 * passant, the piece is not the king and does not stand on a line with
 * its king (only a piece on such a line can uncover an attack).
 */
#include "episodes/chess/chess.h"

#include <string.h>

_Static_assert(sizeof(kd_chess_state) == offsetof(kd_chess_state, spare) + 2, "kd_chess_state has hidden padding");
_Static_assert(sizeof(kd_chess_undo) == offsetof(kd_chess_undo, spare) + 6, "kd_chess_undo has hidden padding");

static const int8_t knight_df[8] = {1, 2, 2, 1, -1, -2, -2, -1};
static const int8_t knight_dr[8] = {2, 1, -1, -2, -2, -1, 1, 2};
/* Directions 0..3 along files and ranks (rook), 4..7 diagonal (bishop). */
static const int8_t dir_df[8] = {0, 0, 1, -1, 1, 1, -1, -1};
static const int8_t dir_dr[8] = {1, -1, 0, 0, 1, -1, 1, -1};

#define ON_BOARD(f, r) ((unsigned)(f) < 8u && (unsigned)(r) < 8u)

/* ------------------------------------------------------------ hashing */

/* Zobrist keys (chess_zobrist.c): piece code p (1..14) on sq is p * 64 +
 * sq; then the side, the 16 castling-right sets and the 8 en-passant
 * files. */
#define zkey(index) kd_chess_zobrist[index]
#define Z_PIECE(p, sq) zkey((unsigned)(p)*64u + (unsigned)(sq))
#define Z_SIDE zkey(15u * 64u)
#define Z_CASTLE(c) zkey(15u * 64u + 1u + (unsigned)(c))
#define Z_EP(sq) zkey(15u * 64u + 17u + ((unsigned)(sq)&7u))

uint64_t kd_chess_hash(const kd_chess_state *s)
{
    uint64_t h = Z_CASTLE(s->castling);
    for (int sq = 0; sq < 64; sq++)
        if (s->board[sq])
            h ^= Z_PIECE(s->board[sq], sq);
    if (s->side == KD_CHESS_BLACK)
        h ^= Z_SIDE;
    if (s->ep != KD_CHESS_NO_SQUARE)
        h ^= Z_EP(s->ep);
    return h;
}

/* ------------------------------------------------------------ attacks */

int kd_chess_attacked(const uint8_t b[64], int sq, int by)
{
    int f = sq & 7, r = sq >> 3;
    uint8_t c = (uint8_t)(by ? KD_CHESS_BLACK_BIT : 0);
    uint8_t pawn = c | KD_CHESS_PAWN, knight = c | KD_CHESS_KNIGHT, queen = c | KD_CHESS_QUEEN;
    uint8_t king = c | KD_CHESS_KING;
    int pr = by == KD_CHESS_WHITE ? r - 1 : r + 1;
    if ((unsigned)pr < 8u) {
        if (f > 0 && b[pr * 8 + f - 1] == pawn)
            return 1;
        if (f < 7 && b[pr * 8 + f + 1] == pawn)
            return 1;
    }
    for (int i = 0; i < 8; i++) {
        int nf = f + knight_df[i], nr = r + knight_dr[i];
        if (ON_BOARD(nf, nr) && b[nr * 8 + nf] == knight)
            return 1;
    }
    for (int d = 0; d < 8; d++) {
        int df = dir_df[d], dr = dir_dr[d], nf = f + df, nr = r + dr;
        if (!ON_BOARD(nf, nr))
            continue;
        uint8_t p = b[nr * 8 + nf];
        if (p == king)
            return 1;
        while (!p) {
            nf += df;
            nr += dr;
            if (!ON_BOARD(nf, nr))
                break;
            p = b[nr * 8 + nf];
        }
        if (p == queen || p == (c | (d < 4 ? KD_CHESS_ROOK : KD_CHESS_BISHOP)))
            return 1;
    }
    return 0;
}

int kd_chess_in_check(const kd_chess_state *s) { return s->check; }

/* Whether the side to move is in check, from the board. */
static int attacked_king(const kd_chess_state *s) { return kd_chess_attacked(s->board, s->king[s->side], s->side ^ 1); }

/* ------------------------------------------------------------ moves */

static kd_chess_move mv(int from, int to, int promo, int flags)
{
    kd_chess_move m = {(uint8_t)from, (uint8_t)to, (uint8_t)promo, (uint8_t)flags};
    return m;
}

/* Appends a pawn's move to `to`, as four promotions on the last rank. */
static int pawn_to(kd_chess_move *out, int n, int from, int to, int flags)
{
    if ((to >> 3) == 0 || (to >> 3) == 7) {
        for (int p = KD_CHESS_QUEEN; p >= KD_CHESS_KNIGHT; p--)
            out[n++] = mv(from, to, p, flags);
        return n;
    }
    out[n++] = mv(from, to, 0, flags);
    return n;
}

static int gen_pawn(const kd_chess_state *s, const uint8_t *b, int from, int us, kd_chess_move *out)
{
    int n = 0, f = from & 7, r = from >> 3, step = us == KD_CHESS_WHITE ? 8 : -8;
    int to = from + step;
    if (!b[to]) {
        n = pawn_to(out, n, from, to, 0);
        if (r == (us == KD_CHESS_WHITE ? 1 : 6) && !b[to + step])
            out[n++] = mv(from, to + step, 0, KD_CHESS_DOUBLE);
    }
    for (int side = -1; side <= 1; side += 2) {
        if ((unsigned)(f + side) >= 8u)
            continue;
        int t = to + side;
        if (b[t] && KD_CHESS_COLOUR(b[t]) != us)
            n = pawn_to(out, n, from, t, KD_CHESS_CAPTURE);
        else if (t == s->ep)
            out[n++] = mv(from, t, 0, KD_CHESS_CAPTURE | KD_CHESS_EN_PASSANT);
    }
    return n;
}

/* Castling moves whose rights stand and whose squares between are empty;
 * whether the king passes through check is the legality test's. */
static int gen_castles(const kd_chess_state *s, const uint8_t *b, int from, int us, kd_chess_move *out)
{
    int n = 0, home = us == KD_CHESS_WHITE ? 4 : 60;
    uint8_t k = us == KD_CHESS_WHITE ? KD_CHESS_WK : KD_CHESS_BK, q = us == KD_CHESS_WHITE ? KD_CHESS_WQ : KD_CHESS_BQ;
    if (from != home)
        return 0;
    if ((s->castling & k) && !b[home + 1] && !b[home + 2])
        out[n++] = mv(home, home + 2, 0, KD_CHESS_CASTLE);
    if ((s->castling & q) && !b[home - 1] && !b[home - 2] && !b[home - 3])
        out[n++] = mv(home, home - 2, 0, KD_CHESS_CASTLE);
    return n;
}

/* The pseudo-legal moves of the piece on `from` (the side to move's). */
static int gen_piece(const kd_chess_state *s, const uint8_t *b, int from, kd_chess_move *out)
{
    uint8_t p = b[from];
    int us = KD_CHESS_COLOUR(p), type = KD_CHESS_TYPE(p), f = from & 7, r = from >> 3, n = 0;
    switch (type) {
    case KD_CHESS_PAWN:
        return gen_pawn(s, b, from, us, out);
    case KD_CHESS_KNIGHT:
    case KD_CHESS_KING:
        for (int i = 0; i < 8; i++) {
            int nf = f + (type == KD_CHESS_KNIGHT ? knight_df[i] : dir_df[i]);
            int nr = r + (type == KD_CHESS_KNIGHT ? knight_dr[i] : dir_dr[i]);
            if (!ON_BOARD(nf, nr))
                continue;
            uint8_t t = b[nr * 8 + nf];
            if (!t)
                out[n++] = mv(from, nr * 8 + nf, 0, 0);
            else if (KD_CHESS_COLOUR(t) != us)
                out[n++] = mv(from, nr * 8 + nf, 0, KD_CHESS_CAPTURE);
        }
        if (type == KD_CHESS_KING && s->castling)
            n += gen_castles(s, b, from, us, out + n);
        return n;
    default: {
        int first = type == KD_CHESS_BISHOP ? 4 : 0, last = type == KD_CHESS_ROOK ? 4 : 8;
        for (int d = first; d < last; d++) {
            int nf = f + dir_df[d], nr = r + dir_dr[d];
            while (ON_BOARD(nf, nr)) {
                uint8_t t = b[nr * 8 + nf];
                if (t) {
                    if (KD_CHESS_COLOUR(t) != us)
                        out[n++] = mv(from, nr * 8 + nf, 0, KD_CHESS_CAPTURE);
                    break;
                }
                out[n++] = mv(from, nr * 8 + nf, 0, 0);
                nf += dir_df[d];
                nr += dir_dr[d];
            }
        }
        return n;
    }
    }
}

/* Whether squares a and b share a file, rank or diagonal. */
static int aligned(int a, int b)
{
    int fa = a & 7, ra = a >> 3, fb = b & 7, rb = b >> 3;
    return fa == fb || ra == rb || fa - ra == fb - rb || fa + ra == fb + rb;
}

/* The unit steps (-1, 0, 1) from aligned `from` toward `to`. */
static void line_dir(int from, int to, int *df, int *dr)
{
    int f = (to & 7) - (from & 7), r = (to >> 3) - (from >> 3);
    *df = (f > 0) - (f < 0);
    *dr = (r > 0) - (r < 0);
}

/* The first occupied square after `sq` stepping (df, dr), -1 off the board. */
static int ray_first(const uint8_t *b, int sq, int df, int dr)
{
    int f = (sq & 7) + df, r = (sq >> 3) + dr;
    for (; ON_BOARD(f, r); f += df, r += dr)
        if (b[r * 8 + f])
            return r * 8 + f;
    return -1;
}

/* Whether `p` is a slider of `by` that moves along a line of that kind. */
static int slides_along(uint8_t p, int by, int diagonal)
{
    int type = KD_CHESS_TYPE(p);
    return p && KD_CHESS_COLOUR(p) == by &&
           (type == KD_CHESS_QUEEN || type == (diagonal ? KD_CHESS_BISHOP : KD_CHESS_ROOK));
}

/* Whether the piece on `from`, aligned with its king on `king_sq`, stands
 * alone between the king and a slider of `them` on that line (moving it
 * off the line would uncover the king). */
static int maybe_pinned(const uint8_t *b, int king_sq, int from, int them)
{
    int df, dr;
    line_dir(king_sq, from, &df, &dr);
    if (ray_first(b, king_sq, df, dr) != from)
        return 0;
    int beyond = ray_first(b, from, df, dr);
    return beyond >= 0 && slides_along(b[beyond], them, df && dr);
}

/* The pieces of the side whose king is on `king_sq` that stand alone
 * between it and a slider of `them` on a line (maybe_pinned for every
 * piece at once: one scan along the king's eight lines), as a bit mask. */
static uint64_t pinned_mask(const uint8_t *b, int king_sq, int them)
{
    uint64_t mask = 0;
    for (int d = 0; d < 8; d++) {
        int first = ray_first(b, king_sq, dir_df[d], dir_dr[d]);
        if (first < 0 || KD_CHESS_COLOUR(b[first]) == them)
            continue;
        int beyond = ray_first(b, first, dir_df[d], dir_dr[d]);
        if (beyond >= 0 && slides_along(b[beyond], them, d >= 4))
            mask |= 1ull << first;
    }
    return mask;
}

/* Whether pseudo-legal `m` of side `us` leaves its king safe. `b` is a
 * scratch copy of the board, restored before return; `checked`: the king
 * is attacked now. */
/* Whether pseudo-legal `m` is safe without trying it: not in check, not
 * castling or en passant, not the king, and its piece cannot be pinned. */
static int surely_safe(const uint8_t *b, int us, int king_sq, kd_chess_move m, int checked)
{
    return !checked && !(m.flags & (KD_CHESS_EN_PASSANT | KD_CHESS_CASTLE)) && m.from != king_sq &&
           (!aligned(m.from, king_sq) || !maybe_pinned(b, king_sq, m.from, us ^ 1));
}

static int king_safe_after(uint8_t *b, int us, int king_sq, kd_chess_move m, int checked)
{
    int them = us ^ 1;
    if (m.flags & KD_CHESS_CASTLE)
        return !checked && !kd_chess_attacked(b, (m.from + m.to) / 2, them) && !kd_chess_attacked(b, m.to, them);
    uint8_t moved = b[m.from];
    if (m.from == king_sq) {
        b[m.from] = 0;
        int ok = !kd_chess_attacked(b, m.to, them);
        b[m.from] = moved;
        return ok;
    }
    if (surely_safe(b, us, king_sq, m, checked))
        return 1;
    int cap_sq = m.flags & KD_CHESS_EN_PASSANT ? (m.from & ~7) | (m.to & 7) : m.to;
    uint8_t captured = b[cap_sq];
    b[cap_sq] = 0;
    b[m.from] = 0;
    b[m.to] = moved;
    int ok = !kd_chess_attacked(b, king_sq, them);
    b[m.to] = 0;
    b[cap_sq] = captured;
    b[m.from] = moved;
    return ok;
}

/* Appends the legal moves of the piece on `from` to out[n..]; returns the
 * new count, stopping at `limit`. `pinned`: pinned_mask's answer (when not
 * in check). */
static int gen_legal_from(const kd_chess_state *s, uint8_t *b, int from, int checked, uint64_t pinned,
                          kd_chess_move *out, int n, int limit)
{
    int us = s->side, king_sq = s->king[us], base = n;
    int pseudo = gen_piece(s, b, from, out + base);
    /* Not in check, a piece other than the king that cannot be pinned
     * makes every move but en passant safely: decided once per piece. */
    int free_piece = !checked && from != king_sq && !((pinned >> from) & 1);
    if (free_piece && (s->ep == KD_CHESS_NO_SQUARE || KD_CHESS_TYPE(b[from]) != KD_CHESS_PAWN))
        return base + pseudo < limit ? base + pseudo : limit; /* all safe: no filtering pass at all */
    for (int j = 0; j < pseudo && n < limit; j++) {
        kd_chess_move m = out[base + j];
        if ((free_piece && !(m.flags & KD_CHESS_EN_PASSANT)) || king_safe_after(b, us, king_sq, m, checked))
            out[n++] = m;
    }
    return n;
}

/* The legal moves of the side to move, up to `limit` (the generation
 * stops there). `out` holds KD_CHESS_MOVES_MAX. In check the king's moves
 * come first, else last: a search for any legal move (the status of a
 * position) then mostly ends at the first piece, with no attack test. */
static int gen_legal(const kd_chess_state *s, kd_chess_move *out, int limit)
{
    uint8_t b[64];
    memcpy(b, s->board, sizeof b);
    int us = s->side, king_sq = s->king[us], checked = s->check, n = 0;
    uint64_t pinned = checked ? 0 : pinned_mask(b, king_sq, us ^ 1);
    if (checked)
        n = gen_legal_from(s, b, king_sq, checked, pinned, out, n, limit);
    for (int i = 0; i < 64 && n < limit; i++) {
        int sq = us == KD_CHESS_WHITE ? i : 63 - i; /* from the mover's side: its pieces come soon */
        if (b[sq] && KD_CHESS_COLOUR(b[sq]) == us && sq != king_sq)
            n = gen_legal_from(s, b, sq, checked, pinned, out, n, limit);
    }
    if (!checked && n < limit)
        n = gen_legal_from(s, b, king_sq, checked, pinned, out, n, limit);
    return n;
}

int kd_chess_legal_moves(const kd_chess_state *s, kd_chess_move out[KD_CHESS_MOVES_MAX])
{
    return gen_legal(s, out, KD_CHESS_MOVES_MAX);
}

/* Whether the piece on `from` (not a king) has a pseudo-legal move
 * (castling and en passant aside): one step of it is free or an enemy's. */
static int can_step(const uint8_t *b, int from)
{
    uint8_t p = b[from];
    int us = KD_CHESS_COLOUR(p), type = KD_CHESS_TYPE(p), f = from & 7, r = from >> 3;
    if (type == KD_CHESS_PAWN) {
        int step = us == KD_CHESS_WHITE ? 8 : -8;
        uint8_t left = f > 0 ? b[from + step - 1] : 0, right = f < 7 ? b[from + step + 1] : 0;
        return !b[from + step] || (left && KD_CHESS_COLOUR(left) != us) || (right && KD_CHESS_COLOUR(right) != us);
    }
    int knight = type == KD_CHESS_KNIGHT;
    int first = type == KD_CHESS_BISHOP ? 4 : 0, last = type == KD_CHESS_ROOK ? 4 : 8;
    for (int i = knight ? 0 : first; i < (knight ? 8 : last); i++) {
        int nf = f + (knight ? knight_df[i] : dir_df[i]), nr = r + (knight ? knight_dr[i] : dir_dr[i]);
        if (ON_BOARD(nf, nr) && (!b[nr * 8 + nf] || KD_CHESS_COLOUR(b[nr * 8 + nf]) != us))
            return 1;
    }
    return 0;
}

/* Whether the side to move has a legal move. The quick answer (after
 * almost every move): not in check, a piece that is not the king and
 * cannot be pinned has a step; else the generator decides. */
int kd_chess_has_legal_move(const kd_chess_state *s)
{
    int us = s->side, king_sq = s->king[us];
    for (int i = 0; !s->check && i < 64; i++) {
        int sq = us == KD_CHESS_WHITE ? i : 63 - i;
        uint8_t p = s->board[sq];
        if (p && KD_CHESS_COLOUR(p) == us && sq != king_sq && can_step(s->board, sq) &&
            (!aligned(sq, king_sq) || !maybe_pinned(s->board, king_sq, sq, us ^ 1)))
            return 1;
    }
    kd_chess_move moves[KD_CHESS_MOVES_MAX];
    return gen_legal(s, moves, 1) > 0;
}

/* Whether the squares strictly between aligned `a` and `z` are empty. */
static int path_clear(const uint8_t *b, int a, int z)
{
    int df, dr;
    line_dir(a, z, &df, &dr);
    for (int sq = a + 8 * dr + df; sq != z; sq += 8 * dr + df)
        if (b[sq])
            return 0;
    return 1;
}

/* Whether piece `p` on `sq` attacks `target` on board `b`. */
static int piece_attacks(const uint8_t *b, uint8_t p, int sq, int target)
{
    int df = (target & 7) - (sq & 7), dr = (target >> 3) - (sq >> 3);
    int adf = df < 0 ? -df : df, adr = dr < 0 ? -dr : dr;
    switch (KD_CHESS_TYPE(p)) {
    case KD_CHESS_PAWN:
        return adf == 1 && dr == (KD_CHESS_COLOUR(p) == KD_CHESS_WHITE ? 1 : -1);
    case KD_CHESS_KNIGHT:
        return adf * adr == 2;
    case KD_CHESS_BISHOP:
        return adf == adr && adf && path_clear(b, sq, target);
    case KD_CHESS_ROOK:
        return (!adf || !adr) && (adf || adr) && path_clear(b, sq, target);
    case KD_CHESS_QUEEN:
        return (adf == adr || !adf || !adr) && (adf || adr) && path_clear(b, sq, target);
    default:
        return 0;
    }
}

/* The pseudo-legal move from -> to of the piece on `from` (promotion
 * aside): 1 with *m filled, or 0 when the piece cannot move so. Checked
 * directly from the geometry, not by generating the piece's moves: it is
 * what every execute asks. */
static int pseudo_move(const kd_chess_state *s, int from, int to, kd_chess_move *m)
{
    const uint8_t *b = s->board;
    uint8_t p = b[from], t = b[to];
    int us = KD_CHESS_COLOUR(p), type = KD_CHESS_TYPE(p), flags = t ? KD_CHESS_CAPTURE : 0;
    int df = (to & 7) - (from & 7), dr = (to >> 3) - (from >> 3);
    if (t && KD_CHESS_COLOUR(t) == us)
        return 0;
    if (type == KD_CHESS_PAWN) {
        int step = us == KD_CHESS_WHITE ? 8 : -8;
        if (df == 0 && !t && to == from + step)
            flags = 0;
        else if (df == 0 && !t && to == from + 2 * step && (from >> 3) == (us == KD_CHESS_WHITE ? 1 : 6) &&
                 !b[from + step])
            flags = KD_CHESS_DOUBLE;
        else if ((df == 1 || df == -1) && to == from + step + df && (t || to == s->ep))
            flags = t ? KD_CHESS_CAPTURE : KD_CHESS_CAPTURE | KD_CHESS_EN_PASSANT;
        else
            return 0;
    } else if (type == KD_CHESS_KING && (df > 1 || df < -1 || dr > 1 || dr < -1)) {
        kd_chess_move castles[2];
        int n = s->castling ? gen_castles(s, b, from, us, castles) : 0;
        if (!(n > 0 && castles[0].to == to) && !(n > 1 && castles[1].to == to))
            return 0;
        flags = KD_CHESS_CASTLE;
    } else if (type != KD_CHESS_KING && !piece_attacks(b, p, from, to)) {
        return 0;
    }
    *m = mv(from, to, 0, flags);
    return 1;
}

int kd_chess_find_move(const kd_chess_state *s, int from, int to, int promo, kd_chess_move *move)
{
    kd_chess_move m;
    if (from == to || !pseudo_move(s, from, to, &m))
        return 1;
    int promotes = KD_CHESS_TYPE(s->board[from]) == KD_CHESS_PAWN && (to < 8 || to >= 56);
    if (promotes ? promo < KD_CHESS_KNIGHT || promo > KD_CHESS_QUEEN : promo != 0)
        return 3; /* a promotion without a valid piece, or a piece on a move that does not promote */
    m.promo = (uint8_t)promo;
    int us = s->side;
    if (!surely_safe(s->board, us, s->king[us], m, s->check)) { /* the usual answer: no scratch board */
        uint8_t b[64];
        memcpy(b, s->board, sizeof b);
        if (!king_safe_after(b, us, s->king[us], m, s->check))
            return 2;
    }
    *move = m;
    return 0;
}

/* ------------------------------------------------------------ status */

int kd_chess_insufficient(const uint8_t b[64])
{
    int knights = 0, bishops = 0, colours = 0;
    for (int sq = 0; sq < 64; sq++) {
        int t = KD_CHESS_TYPE(b[sq]);
        if (!b[sq] || t == KD_CHESS_KING)
            continue;
        if (t == KD_CHESS_KNIGHT)
            knights++;
        else if (t == KD_CHESS_BISHOP) {
            bishops++;
            colours |= 1 << (((sq & 7) + (sq >> 3)) & 1);
        } else
            return 0;
    }
    if (knights + bishops <= 1)
        return 1;
    return knights == 0 && colours != 3;
}

/* Whether the current position occurred twice before, since the last
 * irreversible move (and since the start): the window's entries with the
 * same side to move. */
static int third_repetition(const kd_chess_state *s)
{
    unsigned back = s->halfmove < s->ply ? s->halfmove : s->ply, seen = 1;
    if (back < 8)
        return 0; /* a third occurrence needs two round trips: eight plies at least */
    if (back > KD_CHESS_RING - 1)
        back = KD_CHESS_RING - 1; /* only at ply 0 of a game started past the fifty moves */
    unsigned now = s->ply % KD_CHESS_RING;
    uint64_t h = s->ring[now];
    for (unsigned k = 4; k <= back; k += 2) /* two plies back the other side has moved once: never the same */
        if (s->ring[now >= k ? now - k : now + KD_CHESS_RING - k] == h && ++seen >= 3)
            return 1;
    return 0;
}

kd_chess_status kd_chess_rule_draw(const kd_chess_state *s)
{
    if (kd_chess_insufficient(s->board))
        return KD_CHESS_DRAW_MATERIAL;
    if (third_repetition(s))
        return KD_CHESS_DRAW_REPETITION;
    return s->halfmove >= 100 ? KD_CHESS_DRAW_FIFTY : KD_CHESS_IN_PROGRESS;
}

kd_chess_status kd_chess_status_of(const kd_chess_state *s)
{
    if (!kd_chess_has_legal_move(s)) {
        if (!s->check)
            return KD_CHESS_STALEMATE;
        return s->side == KD_CHESS_WHITE ? KD_CHESS_BLACK_WON : KD_CHESS_WHITE_WON;
    }
    return kd_chess_rule_draw(s);
}

void kd_chess_settle(kd_chess_state *s)
{
    s->check = (uint8_t)attacked_king(s);
    s->ring[s->ply % KD_CHESS_RING] = kd_chess_hash(s);
}

/* ------------------------------------------------------------ make */

/* The castling rights that survive a move from or to `sq`. */
static uint8_t rights_kept(int sq)
{
    switch (sq) {
    case 0:
        return (uint8_t)~KD_CHESS_WQ & 15;
    case 4:
        return (uint8_t) ~(KD_CHESS_WK | KD_CHESS_WQ) & 15;
    case 7:
        return (uint8_t)~KD_CHESS_WK & 15;
    case 56:
        return (uint8_t)~KD_CHESS_BQ & 15;
    case 60:
        return (uint8_t) ~(KD_CHESS_BK | KD_CHESS_BQ) & 15;
    case 63:
        return (uint8_t)~KD_CHESS_BK & 15;
    default:
        return 15;
    }
}

/* Whether the side to move can take en passant on `target` legally. */
static int ep_capturable(const kd_chess_state *s, int target)
{
    int us = s->side, pushed = target + (us == KD_CHESS_WHITE ? -8 : 8);
    uint8_t pawn = (uint8_t)((us ? KD_CHESS_BLACK_BIT : 0) | KD_CHESS_PAWN);
    uint8_t b[64];
    int copied = 0;
    for (int side = -1; side <= 1; side += 2) {
        int from = pushed + side;
        if ((unsigned)((pushed & 7) + side) >= 8u || s->board[from] != pawn)
            continue;
        if (!copied) {
            memcpy(b, s->board, sizeof b);
            copied = 1;
        }
        kd_chess_move m = mv(from, target, 0, KD_CHESS_CAPTURE | KD_CHESS_EN_PASSANT);
        if (king_safe_after(b, us, s->king[us], m, s->check))
            return 1;
    }
    return 0;
}

/* SAN's facts of `m` in `s`, before it is made: a capture, and which of
 * the file and rank of `from` tell it from another piece of its kind that
 * could also go to `m.to` legally. */
static uint8_t san_facts(const kd_chess_state *s, kd_chess_move m)
{
    uint8_t facts = m.flags & KD_CHESS_CAPTURE ? KD_CHESS_SAN_CAPTURE : 0;
    uint8_t p = s->board[m.from];
    int type = KD_CHESS_TYPE(p), f = m.to & 7, r = m.to >> 3, us = s->side;
    if (type == KD_CHESS_PAWN || type == KD_CHESS_KING)
        return facts;
    int others[16], n = 0;
    if (type == KD_CHESS_KNIGHT) {
        for (int i = 0; i < 8; i++) {
            int nf = f + knight_df[i], nr = r + knight_dr[i];
            if (ON_BOARD(nf, nr) && s->board[nr * 8 + nf] == p && nr * 8 + nf != m.from)
                others[n++] = nr * 8 + nf;
        }
    } else {
        int first = type == KD_CHESS_BISHOP ? 4 : 0, last = type == KD_CHESS_ROOK ? 4 : 8;
        for (int d = first; d < last; d++) {
            int nf = f + dir_df[d], nr = r + dir_dr[d];
            while (ON_BOARD(nf, nr) && !s->board[nr * 8 + nf]) {
                nf += dir_df[d];
                nr += dir_dr[d];
            }
            if (ON_BOARD(nf, nr) && s->board[nr * 8 + nf] == p && nr * 8 + nf != m.from)
                others[n++] = nr * 8 + nf;
        }
    }
    if (n == 0)
        return facts;
    uint8_t b[64];
    memcpy(b, s->board, sizeof b);
    int same_file = 0, same_rank = 0, rivals = 0;
    for (int i = 0; i < n; i++) {
        if (!king_safe_after(b, us, s->king[us], mv(others[i], m.to, 0, m.flags), s->check))
            continue;
        rivals++;
        same_file |= (others[i] & 7) == (m.from & 7);
        same_rank |= (others[i] >> 3) == (m.from >> 3);
    }
    if (!rivals)
        return facts;
    if (!same_file)
        return facts | KD_CHESS_SAN_FILE;
    if (!same_rank)
        return facts | KD_CHESS_SAN_RANK;
    return facts | KD_CHESS_SAN_FILE | KD_CHESS_SAN_RANK;
}

/* Whether move `m`, just made by `us` on `b`, checks the king on
 * `king_sq`: the moved piece attacks it, or the move uncovered a slider
 * of `us` behind its from square. Castling and en passant (two pieces
 * move or vanish) ask the full attack test. */
static int gives_check(const uint8_t *b, kd_chess_move m, int us, int king_sq)
{
    if (m.flags & (KD_CHESS_CASTLE | KD_CHESS_EN_PASSANT))
        return kd_chess_attacked(b, king_sq, us);
    if (piece_attacks(b, b[m.to], m.to, king_sq))
        return 1;
    if (!aligned(m.from, king_sq))
        return 0;
    int df, dr;
    line_dir(king_sq, m.from, &df, &dr);
    int hit = ray_first(b, king_sq, df, dr);
    return hit >= 0 && slides_along(b[hit], us, df && dr);
}

uint8_t kd_chess_last_disambiguation(const kd_chess_state *s)
{
    int from = s->last_from, to = s->last_to;
    if (from >= 64 || to >= 64 || s->last_promo)
        return 0;
    /* The position before the move, as far as SAN needs it: the piece back
     * on its square, the one it took (any enemy piece will do: a rival
     * taking on `to` removes it just the same) on `to`; "in check" makes
     * every rival's legality a full test. */
    kd_chess_state before;
    memcpy(&before, s, sizeof before);
    uint8_t p = s->board[to];
    before.board[from] = p;
    before.board[to] =
        s->last_san & KD_CHESS_SAN_CAPTURE ? (uint8_t)((p ^ KD_CHESS_BLACK_BIT) & ~7) | KD_CHESS_PAWN : 0;
    before.side = (uint8_t)KD_CHESS_COLOUR(p);
    before.check = 1;
    kd_chess_move m = mv(from, to, 0, s->last_san & KD_CHESS_SAN_CAPTURE ? KD_CHESS_CAPTURE : 0);
    return san_facts(&before, m) & (KD_CHESS_SAN_FILE | KD_CHESS_SAN_RANK);
}

/* The rook's squares of a castling king move. */
static void castle_rook(kd_chess_move m, int *rook_from, int *rook_to)
{
    *rook_from = m.to > m.from ? m.from + 3 : m.from - 4;
    *rook_to = m.to > m.from ? m.from + 1 : m.from - 1;
}

void kd_chess_make(kd_chess_state *s, kd_chess_move m, kd_chess_undo *u)
{
    int us = s->side;
    uint8_t moved = s->board[m.from];
    int cap_sq = m.flags & KD_CHESS_EN_PASSANT ? (m.from & ~7) | (m.to & 7) : m.to;
    uint8_t captured = s->board[cap_sq];
    memset(u, 0, sizeof *u);
    u->move = m;
    u->captured = captured;
    u->castling = s->castling;
    u->ep = s->ep;
    u->halfmove = s->halfmove;
    u->fullmove = s->fullmove;
    u->last_from = s->last_from;
    u->last_to = s->last_to;
    u->last_promo = s->last_promo;
    u->last_san = s->last_san;
    u->check = s->check;
    s->last_san = m.flags & KD_CHESS_CAPTURE ? KD_CHESS_SAN_CAPTURE : 0;

    unsigned now = s->ply % KD_CHESS_RING, next = now + 1 == KD_CHESS_RING ? 0 : now + 1;
    uint64_t h = s->ring[now] ^ Z_SIDE;
    if (s->ep != KD_CHESS_NO_SQUARE)
        h ^= Z_EP(s->ep);
    uint8_t placed = m.promo ? (uint8_t)((moved & KD_CHESS_BLACK_BIT) | m.promo) : moved;
    if (captured) {
        s->board[cap_sq] = 0;
        h ^= Z_PIECE(captured, cap_sq);
    }
    s->board[m.from] = 0;
    s->board[m.to] = placed;
    h ^= Z_PIECE(moved, m.from) ^ Z_PIECE(placed, m.to);
    if (KD_CHESS_TYPE(moved) == KD_CHESS_KING) {
        s->king[us] = m.to;
        if (m.flags & KD_CHESS_CASTLE) {
            int rf, rt;
            castle_rook(m, &rf, &rt);
            uint8_t rook = s->board[rf];
            s->board[rf] = 0;
            s->board[rt] = rook;
            h ^= Z_PIECE(rook, rf) ^ Z_PIECE(rook, rt);
        }
    }
    s->castling &= rights_kept(m.from) & rights_kept(m.to);
    s->halfmove = KD_CHESS_TYPE(moved) == KD_CHESS_PAWN || captured ? 0 : (uint16_t)(s->halfmove + 1);
    if (us == KD_CHESS_BLACK)
        s->fullmove++;
    s->side = (uint8_t)(us ^ 1);
    s->check = (uint8_t)gives_check(s->board, m, us, s->king[us ^ 1]);
    s->ep = KD_CHESS_NO_SQUARE;
    if ((m.flags & KD_CHESS_DOUBLE) && ep_capturable(s, (m.from + m.to) / 2)) {
        s->ep = (uint8_t)((m.from + m.to) / 2);
        h ^= Z_EP(s->ep);
    }
    if (s->castling != u->castling)
        h ^= Z_CASTLE(u->castling) ^ Z_CASTLE(s->castling);
    s->ply++;
    u->ring_old = s->ring[next];
    s->ring[next] = h;
    s->last_from = m.from;
    s->last_to = m.to;
    s->last_promo = m.promo;
}

kd_err kd_chess_unmake(kd_chess_state *s, const kd_chess_undo *u)
{
    kd_chess_move m = u->move;
    int mover = s->side ^ 1;
    if (s->ply == 0 || m.from >= 64 || m.to >= 64 || s->last_from != m.from || s->last_to != m.to ||
        s->last_promo != m.promo || s->board[m.from] || !s->board[m.to] || KD_CHESS_COLOUR(s->board[m.to]) != mover ||
        (m.promo && KD_CHESS_TYPE(s->board[m.to]) != m.promo))
        return KD_ERR_DECODE;
    int cap_sq = m.flags & KD_CHESS_EN_PASSANT ? (m.from & ~7) | (m.to & 7) : m.to;
    int rf = 0, rt = 0;
    int king_two = KD_CHESS_TYPE(s->board[m.to]) == KD_CHESS_KING && (m.to == m.from + 2 || m.to + 2 == m.from);
    if (king_two != !!(m.flags & KD_CHESS_CASTLE))
        return KD_ERR_DECODE; /* a king moves two squares exactly when it castles */
    if (m.flags & KD_CHESS_CASTLE) {
        if ((m.from != 4 && m.from != 60) || (m.to != m.from + 2 && m.to + 2 != m.from) || u->captured)
            return KD_ERR_DECODE; /* a record from disk naming no castling */
        castle_rook(m, &rf, &rt);
        if (s->king[mover] != m.to || s->board[rf] || KD_CHESS_TYPE(s->board[rt]) != KD_CHESS_ROOK)
            return KD_ERR_DECODE;
    }
    if ((m.flags & KD_CHESS_EN_PASSANT) &&
        (s->board[cap_sq] || cap_sq == m.to || u->captured != ((mover ^ 1) << 3 | KD_CHESS_PAWN) ||
         KD_CHESS_TYPE(s->board[m.to]) != KD_CHESS_PAWN))
        return KD_ERR_DECODE;
    if (u->captured && (KD_CHESS_COLOUR(u->captured) == mover || KD_CHESS_TYPE(u->captured) == KD_CHESS_KING ||
                        KD_CHESS_TYPE(u->captured) > KD_CHESS_KING || !KD_CHESS_TYPE(u->captured)))
        return KD_ERR_DECODE;
    uint8_t placed = s->board[m.to];
    s->board[m.to] = 0;
    s->board[m.from] = m.promo ? (uint8_t)((placed & KD_CHESS_BLACK_BIT) | KD_CHESS_PAWN) : placed;
    s->board[cap_sq] = u->captured;
    if (KD_CHESS_TYPE(placed) == KD_CHESS_KING && !m.promo)
        s->king[mover] = m.from;
    if (m.flags & KD_CHESS_CASTLE) {
        s->board[rf] = s->board[rt];
        s->board[rt] = 0;
    }
    s->ring[s->ply % KD_CHESS_RING] = u->ring_old;
    s->ply--;
    s->side = (uint8_t)mover;
    s->castling = u->castling;
    s->ep = u->ep;
    s->halfmove = u->halfmove;
    s->fullmove = u->fullmove;
    s->last_from = u->last_from;
    s->last_to = u->last_to;
    s->last_promo = u->last_promo;
    s->last_san = u->last_san;
    s->check = u->check;
    return KD_OK;
}
