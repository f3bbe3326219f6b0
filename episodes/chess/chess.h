/*
 * chess.h — chess (FIDE rules), the "chess" episode type.
 *
 * Rules: two seats, "white" (seat 0) and "black" (seat 1), from the
 * standard position or from a FEN given at creation. Every FIDE move:
 * castling (not out of, through or into check; a right is lost for good
 * when its king or rook moves or the rook is captured on its square), en
 * passant, promotion to queen, rook, bishop or knight. A move may not leave
 * or put the mover's king in check. Checkmate wins; stalemate draws; draws
 * are applied automatically as chess.js judges them: insufficient material
 * (K v K, K+minor v K, kings and bishops all on one colour of square),
 * threefold repetition (same placement, side to move, castling rights and
 * en-passant possibility) and the fifty-move rule (the half-move clock
 * reaches 100; a checkmate on that move still wins).
 *
 * Squares: 0..63, a1 = 0, b1 = 1, ..., h8 = 63 (file + 8 * rank).
 * Piece codes: 0 empty; type 1 pawn .. 6 king, plus 8 for black.
 *
 * Wire formats:
 *   params   ChessParams { fen } (proto/chess.proto, chess_wire.c); the
 *            effective params always carry the canonical FEN
 *   command  ChessCommand { from, to, promotion } (chess_wire.c)
 *   state    this type's own bytes, version 2: a fixed part and the
 *            ring's written hashes (KD_CHESS_STATE_FIXED_LEN + 8 to
 *            KD_CHESS_STATE_MAX_LEN bytes; chess_state.c says the layout)
 *   undo     version 2, KD_CHESS_UNDO_LEN bytes (chess_state.c)
 *
 * The status is not part of the state: kd_chess_status_of computes it
 * from the position when asked (views, legal moves, the bot, execute's
 * game_over), so a move (kd_chess_make) never searches for a reply.
 *   view     ChessView (chess_type.c)
 *
 * Threading: every function is pure and reentrant; a kd_chess_state must
 * not be used from two threads at once.
 */
#ifndef KD_EPISODES_CHESS_H
#define KD_EPISODES_CHESS_H

#include <stddef.h>
#include <stdint.h>

#include "engine/bytes.h"
#include "engine/episode.h"
#include "engine/err.h"
#include "episodes/episode_type.h"

#define KD_CHESS_TYPE_NAME "chess"
#define KD_CHESS_VERSION 2
/* Position hashes kept: the current position and the 100 plies before it,
 * as far back as the repetition rule can look (the half-move clock stops
 * the game at 100). */
#define KD_CHESS_RING 101
#define KD_CHESS_NO_SQUARE 64  /* no en-passant square, no last move */
#define KD_CHESS_MOVES_MAX 256 /* legal moves of any position (218 at most) */
#define KD_CHESS_FEN_MAX 100   /* a FEN with its NUL (full-move numbers up to 10 digits) */
/* The largest full-move number a FEN may start a game at (resolve_params);
 * a FEN read back (a view) may carry up to KD_CHESS_FULLMOVE_MAX: a game
 * lasts a few thousand moves at most (the fifty-move rule). */
#define KD_CHESS_START_FULLMOVE_MAX 1000000
#define KD_CHESS_FULLMOVE_MAX 4000000000u
#define KD_CHESS_SAN_MAX 8      /* "exd8=Q#" with its NUL */
#define KD_CHESS_UCI_MAX 6      /* "e7e8q" with its NUL */
#define KD_CHESS_COMMAND_MAX 20 /* bytes of a packed ChessCommand: three tagged varints */
#define KD_CHESS_START_FEN "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

enum { KD_CHESS_WHITE = 0, KD_CHESS_BLACK = 1 };
enum { KD_CHESS_PAWN = 1, KD_CHESS_KNIGHT, KD_CHESS_BISHOP, KD_CHESS_ROOK, KD_CHESS_QUEEN, KD_CHESS_KING };
#define KD_CHESS_BLACK_BIT 8
#define KD_CHESS_TYPE(p) ((p)&7)
#define KD_CHESS_COLOUR(p) ((p) >> 3)

/* Castling rights bits. */
enum { KD_CHESS_WK = 1, KD_CHESS_WQ = 2, KD_CHESS_BK = 4, KD_CHESS_BQ = 8 };

typedef enum {
    KD_CHESS_IN_PROGRESS = 0,
    KD_CHESS_WHITE_WON = 1, /* black is checkmated */
    KD_CHESS_BLACK_WON = 2,
    KD_CHESS_STALEMATE = 3,
    KD_CHESS_DRAW_MATERIAL = 4, /* insufficient material */
    KD_CHESS_DRAW_REPETITION = 5,
    KD_CHESS_DRAW_FIFTY = 6,
} kd_chess_status;

/* Move flags (kd_chess_move.flags). */
enum { KD_CHESS_CAPTURE = 1, KD_CHESS_EN_PASSANT = 2, KD_CHESS_CASTLE = 4, KD_CHESS_DOUBLE = 8 };
/* SAN facts of a move: kd_chess_state.last_san keeps only the capture;
 * the file and rank that tell it from a rival piece are worked out when
 * SAN is written (kd_chess_last_disambiguation). */
enum { KD_CHESS_SAN_CAPTURE = 1, KD_CHESS_SAN_FILE = 2, KD_CHESS_SAN_RANK = 4 };

typedef struct {
    uint8_t from, to;
    uint8_t promo; /* piece type promoted to (2..5), 0 none */
    uint8_t flags; /* KD_CHESS_CAPTURE | ... */
} kd_chess_move;

/*
 * The state of one game: plain data, zeroed before it is filled, no hidden
 * padding (sizes asserted), so states compare with memcmp.
 * ring[ply % KD_CHESS_RING] is the hash of the current position; the
 * entries before it, back to the last irreversible move (min(halfmove,
 * ply) of them), are the earlier positions (threefold repetition); slots
 * past ply were never written (zero) before the ring wraps. The status (mate,
 * stalemate, draws) is not stored: it is a function of the position,
 * computed on demand (kd_chess_status_of). ep is the en-passant target square
 * only when the side to move has a legal en-passant capture (so it is
 * part of the position exactly as the repetition rule and the FEN want).
 */
typedef struct {
    uint64_t ring[KD_CHESS_RING];
    uint32_t fullmove; /* FEN's full-move number */
    uint32_t ply;      /* plies played since the start position */
    uint16_t halfmove; /* plies since the last capture or pawn move */
    uint8_t board[64];
    uint8_t king[2];  /* the kings' squares */
    uint8_t side;     /* KD_CHESS_WHITE or KD_CHESS_BLACK: to move (also after the end) */
    uint8_t castling; /* KD_CHESS_WK | ... */
    uint8_t ep;       /* KD_CHESS_NO_SQUARE or the en-passant target */
    uint8_t last_from, last_to, last_promo, last_san; /* the last move; last_from 64 before any */
    kd_pubkey players[2];
    uint8_t check;    /* the side to move is in check (kept: every generation asks it) */
    uint8_t spare[2]; /* zero: makes the size a multiple of 8 without hidden padding */
} kd_chess_state;

/* What one move changed: all rollback needs. */
typedef struct {
    uint64_t ring_old; /* the ring slot the move overwrote */
    uint32_t fullmove;
    uint16_t halfmove;
    kd_chess_move move;
    uint8_t captured; /* piece code taken (0 none) */
    uint8_t castling, ep;
    uint8_t last_from, last_to, last_promo, last_san;
    uint8_t check;
    uint8_t spare[6]; /* zero */
} kd_chess_undo;

/* The engine's contract: type_name "chess", no configuration. */
extern const kd_episode_ops kd_chess_ops;
/* The type-table entry (chess_type.c). */
extern const kd_episode_type kd_chess_type;
/* The codes the rules refuse with, ending with {NULL, NULL}. */
extern const kd_rule_code kd_chess_rule_codes[];

/* ------------------------------------------------- positions (chess.c) */

/* Whether square `sq` is attacked by a piece of `by` on `board`. */
int kd_chess_attacked(const uint8_t board[64], int sq, int by);
/* Whether the side to move is in check. */
int kd_chess_in_check(const kd_chess_state *s);
/* Fills `out` with the legal moves of the side to move and returns their
 * count. The status is not consulted: a game drawn by a rule still lists
 * the moves its position has. */
int kd_chess_legal_moves(const kd_chess_state *s, kd_chess_move out[KD_CHESS_MOVES_MAX]);
/* Whether the side to move has a legal move. */
int kd_chess_has_legal_move(const kd_chess_state *s);
/* Checks the move from -> to (promo 0 or a piece type) of the piece on
 * `from`, which must be the side to move's: 0 legal (*move filled, flags
 * included), 1 the piece cannot move so (or from == to), 3 a pawn reaching
 * the last rank without a valid promotion piece, or a promotion piece on
 * another move, 2 a move that leaves or puts the own king in check. */
int kd_chess_find_move(const kd_chess_state *s, int from, int to, int promo, kd_chess_move *move);
/* Plays legal `move` (as kd_chess_find_move or kd_chess_legal_moves give
 * it): board, rights, clocks, hash ring, last move and check flag; fills
 * `undo`. No check of legality. */
void kd_chess_make(kd_chess_state *s, kd_chess_move move, kd_chess_undo *undo);
/* Exactly inverts kd_chess_make. Errors: KD_ERR_DECODE (the record cannot
 * be the last move's; `s` untouched). */
kd_err kd_chess_unmake(kd_chess_state *s, const kd_chess_undo *undo) KD_WARN_UNUSED;
/* Sets the check flag and the current ring entry from the board, side,
 * rights and ep square (a position just read). */
void kd_chess_settle(kd_chess_state *s);
/* The status of the position (mate, stalemate, the draws by rule), the
 * one place it is computed: nothing stores it. Mate and stalemate come
 * first (a mate on the fiftieth move wins), then insufficient material,
 * threefold repetition, the fifty-move rule. Costs a search for a legal
 * move (usually the first piece answers) and the rule draws. */
kd_chess_status kd_chess_status_of(const kd_chess_state *s);
/* The draw by rule the position carries (insufficient material,
 * repetition, fifty moves), or KD_CHESS_IN_PROGRESS; no move search. A
 * position with a legal move has exactly this status. */
kd_chess_status kd_chess_rule_draw(const kd_chess_state *s);
/* The hash of the position (placement, side, castling, ep), from scratch. */
uint64_t kd_chess_hash(const kd_chess_state *s);
/* KD_CHESS_SAN_FILE / KD_CHESS_SAN_RANK: what SAN needs to tell the last
 * move from a rival piece's move to the same square (from the position
 * before it, rebuilt); 0 before any move. */
uint8_t kd_chess_last_disambiguation(const kd_chess_state *s);
/* Whether the material cannot mate (chess.js's rule). */
int kd_chess_insufficient(const uint8_t board[64]);

/* ------------------------------------------ Zobrist keys (chess_zobrist.c) */

#define KD_CHESS_ZOBRIST_LEN (15 * 64 + 1 + 16 + 8)
/* The keys of kd_chess_hash: index p * 64 + sq for piece code p on square
 * sq, 960 the side to move, 961 + rights the castling rights, 977 + file
 * the en-passant file. A constant table of kd_chess_zobrist_formula. */
extern const uint64_t kd_chess_zobrist[KD_CHESS_ZOBRIST_LEN];
/* The key of `index`: splitmix64 of a fixed seed (the table's source). */
uint64_t kd_chess_zobrist_formula(unsigned index);

/* --------------------------------------------- notation (chess_fen.c) */

/* Parses `fen` into a state (players zero, check flag set, ring holding
 * the one position). Errors: KD_ERR_BAD_PARAMS with a sentence in `why`
 * naming the field that is wrong. */
kd_err kd_chess_from_fen(const char *fen, kd_chess_state *s, char *why, size_t why_len) KD_WARN_UNUSED;
/* kd_chess_from_fen for a game's start: also refuses a full-move number
 * over KD_CHESS_START_FULLMOVE_MAX. */
kd_err kd_chess_start_from_fen(const char *fen, kd_chess_state *s, char *why, size_t why_len) KD_WARN_UNUSED;
/* Writes the FEN of `s` (NUL-terminated). */
void kd_chess_to_fen(const kd_chess_state *s, char out[KD_CHESS_FEN_MAX]);
/* Writes "e2e4" / "e7e8q" (NUL-terminated); returns the length. */
size_t kd_chess_uci(kd_chess_move move, char out[KD_CHESS_UCI_MAX]);
/* Parses UCI text into squares and a promotion type (0 none): 0, or -1
 * when it is not UCI. */
int kd_chess_uci_parse(const char *text, int *from, int *to, int *promo);
/* Writes the SAN of legal `move` in `s` ("Nbd7", "exd8=Q+", "O-O#"). */
void kd_chess_san(const kd_chess_state *s, kd_chess_move move, char out[KD_CHESS_SAN_MAX]);
/* Writes the SAN of the state's last move, "" before any. */
void kd_chess_last_san(const kd_chess_state *s, char out[KD_CHESS_SAN_MAX]);
/* The square named "e4", or -1. */
int kd_chess_square_parse(const char *text);

/* ----------------------------------------------- rules (chess_state.c) */

/* Starts a game from `fen` (NULL: the standard position) between two
 * valid compressed keys (white, black). Errors: KD_ERR_BAD_PARTICIPANTS,
 * KD_ERR_BAD_PARAMS, with a sentence in `rej`; `state` is then zeroed. */
kd_err kd_chess_state_init(kd_chess_state *state, const kd_participants *participants, const char *fen,
                           kd_reject *rej) KD_WARN_UNUSED;
/*
 * Plays from -> to (promo 0 or a piece type) for the mover, signed by
 * `signer` (NULL: unsigned). Checks, in order, each a KD_ERR_RULE with its
 * code in `rej` and a sentence naming the move: game_over, unauthorised,
 * not_your_turn, bad_square, no_piece, not_your_piece, illegal_move,
 * bad_promotion, in_check. (A legal move proves the game is not mate or
 * stalemate, so an accepted move checks only the draws by rule; a refused
 * one computes the whole status to answer game_over first.) On success
 * fills `undo`; on error neither `state` nor `undo` is touched.
 */
kd_err kd_chess_play(kd_chess_state *state, uint32_t from, uint32_t to, uint32_t promo, const kd_pubkey *signer,
                     kd_chess_undo *undo, kd_reject *rej) KD_WARN_UNUSED;

/* State bytes: a fixed part, then the ring's written hashes (min(ply + 1,
 * KD_CHESS_RING) of them, 8 bytes each): KD_CHESS_STATE_FIXED_LEN + 8 to
 * KD_CHESS_STATE_MAX_LEN bytes. */
#define KD_CHESS_STATE_FIXED_LEN (1 + 64 + 4 + 4 + 2 + 8 + 2 * KD_PUBKEY_LEN)
#define KD_CHESS_STATE_MAX_LEN (KD_CHESS_STATE_FIXED_LEN + 8 * KD_CHESS_RING)
#define KD_CHESS_UNDO_LEN (1 + 8 + 4 + 2 + 4 + 1 + 2 + 4 + 1)
kd_err kd_chess_state_encode(const kd_chess_state *state, kd_buf *out) KD_WARN_UNUSED;
kd_err kd_chess_undo_encode(const kd_chess_undo *undo, kd_buf *out) KD_WARN_UNUSED;
/* Decode and validate (a legal position, check flag and current hash as
 * computed, the length the ply says; the slots not carried decode as
 * zero, so decode(encode(s)) == s byte for byte); the output is zeroed first
 * and stays zeroed on error. Errors:
 * KD_ERR_DECODE. */
kd_err kd_chess_state_decode(const uint8_t *data, size_t len, kd_chess_state *state) KD_WARN_UNUSED;
kd_err kd_chess_undo_decode(const uint8_t *data, size_t len, kd_chess_undo *undo) KD_WARN_UNUSED;

/* --------------------------------------------------- wire (chess_wire.c) */

/* Command bytes of a move, written to `out` without allocation (the
 * canonical ChessCommand encoding); returns their length. */
size_t kd_chess_command_pack(uint32_t from, uint32_t to, uint32_t promo, uint8_t out[KD_CHESS_COMMAND_MAX]);
kd_err kd_chess_command_encode(uint32_t from, uint32_t to, uint32_t promo, kd_buf *out) KD_WARN_UNUSED;
/* Decodes a ChessCommand without allocation (an arena on the stack).
 * Squares and promotion are not range-checked (rules refuse them). Errors:
 * KD_ERR_BAD_COMMAND with a sentence in `rej` (may be NULL). */
kd_err kd_chess_command_decode(const uint8_t *data, size_t len, uint32_t *from, uint32_t *to, uint32_t *promo,
                               kd_reject *rej) KD_WARN_UNUSED;
/* ChessParams bytes of `fen` (NULL or "": empty params). */
kd_err kd_chess_params_encode(const char *fen, kd_buf *out) KD_WARN_UNUSED;
/* The FEN the params carry, into `fen` ("" when none: the standard
 * position). Errors: KD_ERR_BAD_PARAMS (not a ChessParams, a FEN too long)
 * with a sentence in `rej`, KD_ERR_NOMEM. */
kd_err kd_chess_params_decode(const uint8_t *data, size_t len, char fen[KD_CHESS_FEN_MAX],
                              kd_reject *rej) KD_WARN_UNUSED;

/* ----------------------------------------------------- bot (chess_bot.c) */

/* The bot_command of the type table: negamax with alpha-beta, material
 * and piece-square evaluation, captures first (MVV-LVA), `depth` plies (0:
 * 3; more than KD_CHESS_BOT_MAX_DEPTH: that many); among equally good
 * moves the `tiebreak`-th. Errors:
 * KD_ERR_NO_MOVE (the game is over), KD_ERR_NOMEM. */
kd_err kd_chess_bot_command(const void *state, unsigned depth, uint64_t tiebreak, kd_buf *out) KD_WARN_UNUSED;
#define KD_CHESS_BOT_MAX_DEPTH 5u

#endif
