/*
 * perft.h — counting the legal move sequences of an episode type
 * ("performance test", the standard correctness tool of game engines).
 *
 * perft(position, N) is the number of sequences of exactly N plies that the
 * type's own rules accept from `position`: 1 for N = 0, and otherwise the
 * sum over the legal moves m of perft(execute(position, m), N - 1). A
 * finished game has no legal moves, so its count beyond depth 0 is 0.
 *
 * Every move is applied with the type's execute (signed by the acting
 * seat's participant key) and taken back with its rollback, and after every
 * rollback the state must be byte-identical (memcmp of ops->state_size
 * bytes) to what it was before the execute: so a count is also an undo test
 * of every position it visits.
 *
 *   depth 2 from an empty 3x3 board where X and O take turns:
 *     for each of X's 9 moves: execute → for each of O's 8 moves:
 *       execute, count 1, rollback, memcmp; rollback, memcmp     → 72
 *
 * The seat to move comes from type->status (every seat's moves when no
 * single seat must act), the moves from type->legal_moves. Nothing here
 * names a type. Functions are reentrant; a state and a kd_perft_signers are
 * used by one thread at a time.
 */
#ifndef KD_TOOLS_PERFT_H
#define KD_TOOLS_PERFT_H

#include <stddef.h>
#include <stdint.h>

#include "engine/err.h"
#include "episodes/episode_type.h"

#define KD_PERFT_MAX_DEPTH 64
/* Candidate keys read from an encoded state (kd_perft_signers_from_state). */
#define KD_PERFT_MAX_CANDIDATES 32

/*
 * Who signs each seat's moves. Made either from the participants the
 * position was created with (seat i signs with key i), or from an encoded
 * state whose participants are not known: then every 33-byte window of the
 * encoding that is a valid compressed public key is a candidate, and a
 * seat's key is the first candidate that the type's execute accepts for
 * that seat's first move (a type's rules check the signer against keys kept
 * in its state, so its encoding carries them).
 */
typedef struct {
    kd_pubkey candidates[KD_PERFT_MAX_CANDIDATES];
    size_t candidate_count;
    int seat_key[KD_MAX_PARTICIPANTS]; /* index into candidates, -1 while unknown */
    /* A type with secrets: each seat's seed, when perft made the seat's
     * key (kd_perft_start), so the walk pays the seat's duties; wiped by
     * kd_perft_signers_wipe. */
    uint8_t seeds[KD_MAX_PARTICIPANTS][KD_SECRET_SEED_LEN];
    unsigned seeded; /* bit s: seeds[s] is seat s's */
} kd_perft_signers;

/* Wipes the seeds a kd_perft_signers holds. */
void kd_perft_signers_wipe(kd_perft_signers *signers);

/* Seat i signs with participants->keys[i]. */
void kd_perft_signers_from_participants(kd_perft_signers *signers, const kd_participants *participants);

/* Candidates from an encoded state (see above). Errors: KD_ERR_NOT_FOUND
 * (no valid public key in the bytes). */
kd_err kd_perft_signers_from_state(kd_perft_signers *signers, const uint8_t *encoded, size_t len) KD_WARN_UNUSED;

/*
 * The start position of `type`: `seats` freshly generated participant keys
 * (one per seat; `seats` within the type's min..max), params from the
 * type's params_from_json of `params` (NULL: the engine defaults), resolved
 * with ops->resolve_params(config) (`config`: kd_type_table_config's
 * pointer, may be NULL) and ops->init. In a type with secrets each seat's
 * commitment from its fresh key (kd_seat_commit, episode 1, perft's own
 * store id) is set in the params first, as the seat's holder would. `state` has ops->state_size bytes.
 * Fills `signers` for those keys. Errors: KD_ERR_INVALID_ARG (seat count),
 * the type's KD_ERR_BAD_PARAMS / KD_ERR_BAD_PARTICIPANTS, KD_ERR_IO (no
 * randomness), KD_ERR_NOMEM; `why` (may be NULL) says what was wrong.
 */
kd_err kd_perft_start(const kd_episode_type *type, const void *config, const json_t *params, size_t seats, void *state,
                      kd_perft_signers *signers, char *why, size_t why_len) KD_WARN_UNUSED;

/* Called once per legal move of the root with its notation and count
 * (--divide). */
typedef void (*kd_perft_divide_fn)(void *ctx, const kd_legal_move *move, uint64_t count);

/*
 * Counts the move sequences of exactly `depth` plies (at most
 * KD_PERFT_MAX_DEPTH) from `state` (ops->state_size bytes; left exactly as
 * it was on success). `divide` (may be NULL) hears each root move's count.
 * In a type with secrets, a position where the seats to move have no legal
 * move but owe a duty (a shuffle, a key, a reveal) has the duty paid from
 * the seeds in `signers` as a forced step that is not a ply (then rolled
 * back and checked like a move): so perft walks the choices only, through
 * the steps the secrets make.
 *
 * Errors: KD_ERR_INVALID_ARG (depth), KD_ERR_NOMEM; KD_ERR_INTERNAL (the
 * type broke its contract) when a rollback does not restore the state's
 * bytes or fails, or execute refuses a move legal_moves listed, or no key
 * signs a seat's move — `why` (may be NULL) then names the move sequence
 * from `state`
 * ("after (0, 0) (1, 1): rollback of (2, 2) changed the state"), and
 * `state` is left as it was at the failure.
 */
kd_err kd_perft_count(const kd_episode_type *type, kd_perft_signers *signers, void *state, unsigned depth,
                      kd_perft_divide_fn divide, void *divide_ctx, uint64_t *nodes, char *why,
                      size_t why_len) KD_WARN_UNUSED;

#endif
