/*
 * ratings.h — a rating per key and per episode type, as a pure function of
 * the canonical chain (`kdapp ratings`, kdapp_get_ratings, kdapp://ratings,
 * the page's table).
 *
 * Nothing is stored: the ratings are computed on demand from one read of
 * the store, so a replay of the log computes them again bit for bit and a
 * reorg that undoes a game undoes its rating change with it (a reverted
 * block is simply no longer on the chain read). The computation:
 *
 *   1. the blocks still applied, genesis first (kd_read_canonical_seqs);
 *   2. in them, every applied transaction in log order; an episode's
 *      position is that of the LAST one applied to it (log seq, then its
 *      index in the block): a finished game ends with the command that
 *      finished it;
 *   3. each episode in that order whose state (the store's, which is the
 *      log's) is finished gives a game: its type, its participants and each
 *      seat's result (kd_episode_seat_result: win, loss, draw, cheat,
 *      forfeit); an open table that never started (still open, cancelled,
 *      past its deadline) is no episode and no game;
 *   4. a game is rated when its type has no house seat (house_seats == 0),
 *      it has exactly two seats and two different keys; then Elo below,
 *      games applied one after another in that order.
 *
 * Elo, integer only, so an outsider recomputes it exactly (episodes/
 * README.md "Ratings" has the same in prose):
 *
 *   rating      kept in hundredths of a point; every key starts at
 *               KD_ELO_START (1500.00) in each type
 *   D           |R_a - R_b| in whole points (hundredths / 100, truncated),
 *               counted as KD_ELO_DIFF_CAP (400) when over it (FIDE 8.54)
 *   P           FIDE's table 8.1(b): the expected score of the higher
 *               rated, in hundredths (50..92); the lower's is 100 - P;
 *               equal ratings: 50 each
 *   S           the seat's score in hundredths: win 100, draw 50, loss,
 *               cheat and forfeit 0
 *   change      KD_ELO_K * (S - P) hundredths (K = 20: FIDE's K for
 *               players under 2400), exact, no rounding
 *
 * A game between a key and itself, a game with a house and a game of more
 * than two seats change nothing (the game is still listed, with why).
 *
 * Threading: the caller's read handle; nothing shared.
 */
#ifndef KD_HANDLERS_RATINGS_H
#define KD_HANDLERS_RATINGS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"
#include "episodes/episode_type.h"

#define KD_ELO_START 150000 /* hundredths: 1500.00 */
#define KD_ELO_K 20
#define KD_ELO_DIFF_CAP 400 /* points */

/* FIDE 8.1(b): the expected score, in hundredths, of a player rated
 * `diff` whole points above its opponent (negative: below); |diff| over
 * KD_ELO_DIFF_CAP counts as KD_ELO_DIFF_CAP. */
int kd_elo_expected(int64_t diff);
/* The rating change, in hundredths, of a player rated `own` hundredths
 * against one rated `other` hundredths, who scored `score` hundredths (0,
 * 50 or 100). */
int64_t kd_elo_change(int64_t own, int64_t other, int score);
/* The score, in hundredths, of a seat result: 100, 50 or 0 (-1: none). */
int kd_elo_score(kd_seat_result result);

/* Why a finished game changes no rating. */
typedef enum {
    KD_UNRATED_NO = 0,   /* rated */
    KD_UNRATED_HOUSE,    /* its type has a house seat */
    KD_UNRATED_SEATS,    /* not exactly two seats */
    KD_UNRATED_SELF,     /* the same key in both seats */
    KD_UNRATED_FILTERED, /* not of the type asked for */
} kd_unrated;

/* "rated", "house", "seats", "self_play", "filtered". */
const char *kd_unrated_name(kd_unrated why);

typedef struct {
    uint32_t episode;
    const kd_episode_type *type;
    uint64_t seq; /* the log entry of its last applied transaction */
    uint32_t tx;  /* that transaction's index in its block */
    kd_participants players;
    kd_seat_result results[KD_MAX_PARTICIPANTS];
    kd_unrated unrated;
    int64_t before[2], change[2]; /* rated games: hundredths */
} kd_rated_game;

typedef struct {
    const kd_episode_type *type;
    kd_pubkey key;
    int64_t rating; /* hundredths */
    uint32_t games, wins, draws, losses;
} kd_rating;

typedef struct {
    kd_rated_game *games; /* every finished game, in rating order */
    size_t n_games;
    kd_rating *ratings; /* by type (table order), rating high first, then key */
    size_t n_ratings;
    uint64_t last_seq; /* the newest log entry read */
    uint64_t height;   /* the canonical chain's length */
} kd_ratings;

/* Computes the ratings (above) through `rd`, one read of the store; `type`
 * NULL for every type, else only games of that type are rated (the others
 * are listed as filtered). Errors: KD_ERR_UNKNOWN_TYPE (`type` not in
 * `types`), storage errors, KD_ERR_NOMEM. Release *out with
 * kd_ratings_fini (also after an error). */
kd_err kd_ratings_compute(kd_read *rd, const kd_type_table *types, const char *type, kd_ratings *out) KD_WARN_UNUSED;
void kd_ratings_fini(kd_ratings *r);

/* The game rated at log entry `seq`, transaction `tx`, or NULL. */
const kd_rated_game *kd_ratings_game_at(const kd_ratings *r, uint64_t seq, uint32_t tx);

/* A game as JSON (new reference, NULL on allocation failure):
 * {"episode", "type", "seq", "tx", "players": [hex], "results": ["win",
 * ...], "rated": bool, "unrated": why or null, "changes": [hundredths] or
 * null}. */
json_t *kd_rated_game_json(const kd_rated_game *g);
/* What a game's end says, without conclusions (kdapp log --json puts it
 * on the game's last transaction as "result"): {"type", "players": [hex],
 * "results": ["win", ...], "house": [the type's house seats]} (new
 * reference, NULL on allocation failure). */
json_t *kd_game_result_json(const kd_rated_game *g);
/* The ratings as JSON (new reference, NULL on allocation failure):
 * {"formula": {...constants}, "height", "games_rated", "ratings": [{"type",
 * "key", "rating" (whole points, rounded half up), "rating_x100", "games",
 * "wins", "draws", "losses"}]}. */
json_t *kd_ratings_json(const kd_ratings *r);
/* The ratings as a text table for people, appended (no NUL). */
kd_err kd_ratings_text(const kd_ratings *r, kd_buf *out) KD_WARN_UNUSED;

#endif
