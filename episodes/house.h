/*
 * house.h — the house seat of a chance game: one pending draw on the
 * house's committed hash chain (episodes/fair.h), its reveal, its deadline
 * and the claim of a house that does not reveal, with their undo. Every
 * chance type keeps one kd_house in its state and drives it the same way:
 *
 *   player's command (a roll, bets, a spin) ── kd_house_ask ──► pending
 *        asking seat, its 32 bytes of entropy, the DAA score it came at
 *   house's Reveal{link} ── kd_house_reveal ──► draw seed (kd_fair_draw of
 *        the link, the entropy, the episode id and the link's index);
 *        refused (wrong_link) unless SHA-256(link) is the chain's head
 *   player's Claim{} ── kd_house_claim ──► the round is the house's loss;
 *        refused (deadline_not_passed) before asked_daa + timeout
 *
 * The deadline is in DAA score (kd_block_meta.daa), never a clock, so a
 * replay agrees. A revert undoes an ask, a reveal or a claim exactly
 * (kd_house_undo); the re-included reveal gives the same draw, because the
 * chain and the entropy fix it. Plain data: a zeroed kd_house compares
 * with memcmp. Pure functions; a kd_house is used by one thread at a time.
 */
#ifndef KD_EPISODES_HOUSE_H
#define KD_EPISODES_HOUSE_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "engine/bytes.h"
#include "engine/episode.h"
#include "episodes/fair.h"

#define KD_HOUSE_TIMEOUT_DEFAULT 600u                          /* DAA score: a minute at 10 blocks a second */
#define KD_HOUSE_TIMEOUT_MAX 864000u                           /* a day */
#define KD_HOUSE_ENCODED_LEN (32 + 4 + 4 + 4 + 1 + 1 + 32 + 8) /* kd_house_encode's bytes */
#define KD_HOUSE_UNDO_LEN (1 + 32 + 1 + 32 + 8)                /* kd_house_undo_encode's bytes */

typedef struct {
    kd_fair_chain chain;
    uint32_t timeout; /* DAA score a reveal may take */
    uint8_t pending;  /* 1: a draw was asked and neither revealed nor claimed */
    uint8_t asker;    /* the seat that asked (when pending) */
    uint8_t spare[2]; /* zero: no padding inside the struct */
    uint8_t entropy[KD_FAIR_ENTROPY_LEN];
    uint64_t asked_daa; /* the DAA score of the block that carried the ask */
} kd_house;

/* What one ask, reveal or claim changed: enough to give it back. */
typedef struct {
    uint8_t kind; /* kd_house_op */
    uint8_t prev_head[KD_FAIR_LINK_LEN];
    uint8_t asker;
    uint8_t entropy[KD_FAIR_ENTROPY_LEN];
    uint64_t asked_daa;
} kd_house_undo;

typedef enum { KD_HOUSE_OP_NONE = 0, KD_HOUSE_OP_ASK = 1, KD_HOUSE_OP_REVEAL = 2, KD_HOUSE_OP_CLAIM = 3 } kd_house_op;

/* The rule codes of the house, to be listed in each chance type's table:
 * draw_pending, no_draw_pending, wrong_link, chain_exhausted,
 * deadline_not_passed, not_the_house, not_the_asker. */
#define KD_HOUSE_RULE_CODES                                                                                       \
    {"draw_pending", "a draw is waiting for the house's reveal: nothing else until it comes (or is claimed)"},    \
        {"no_draw_pending", "no draw is waiting: there is nothing to reveal or claim"},                           \
        {"wrong_link", "the revealed link is not the next link of the house's committed chain"},                  \
        {"chain_exhausted", "the house's committed chain has no link left: no more draws in this episode"},       \
        {"deadline_not_passed", "the house may still reveal: a claim is allowed only after the reveal deadline"}, \
        {"not_the_house", "only the house seat reveals"},                                                         \
    {                                                                                                             \
        "not_the_asker", "only the seat that asked for the draw claims it"                                        \
    }

/* A house as committed: chain head `commit` of `length` links, reveals
 * allowed `timeout` DAA score. */
void kd_house_init(kd_house *house, const uint8_t commit[KD_FAIR_LINK_LEN], uint32_t length, uint32_t timeout);

/* Asks a draw for `seat` with its `entropy` at DAA `daa`. Refusals
 * (KD_ERR_RULE, code in `rej`): draw_pending, chain_exhausted. On success
 * fills `undo`; on error nothing is touched. */
kd_err kd_house_ask(kd_house *house, int seat, const uint8_t entropy[KD_FAIR_ENTROPY_LEN], uint64_t daa,
                    kd_house_undo *undo, kd_reject *rej) KD_WARN_UNUSED;

/* Accepts `link` as the reveal of the pending draw and writes the draw's
 * seed (kd_fair_draw with the link's index) to `draw`. Refusals:
 * no_draw_pending, wrong_link. */
kd_err kd_house_reveal(kd_house *house, const uint8_t link[KD_FAIR_LINK_LEN], uint32_t episode_id,
                       uint8_t draw[KD_HASH_LEN], kd_house_undo *undo, kd_reject *rej) KD_WARN_UNUSED;

/* The asker claims the pending draw at DAA `daa`: the house forfeits the
 * round. Refusals: no_draw_pending, not_the_asker (seat is not the asker),
 * deadline_not_passed (daa < asked_daa + timeout). */
kd_err kd_house_claim(kd_house *house, int seat, uint64_t daa, kd_house_undo *undo, kd_reject *rej) KD_WARN_UNUSED;

/* Gives back the ask, reveal or claim of `undo`. Errors: KD_ERR_DECODE (a
 * record that cannot be the house's last change; nothing touched). */
kd_err kd_house_rollback(kd_house *house, const kd_house_undo *undo) KD_WARN_UNUSED;

/* The DAA score from which the pending draw may be claimed. */
uint64_t kd_house_deadline(const kd_house *house);

/* The link the house owes now (the chain's next) from its `seed`.
 * Errors: KD_ERR_NO_MOVE (no draw pending), KD_ERR_INVALID_ARG. */
kd_err kd_house_owed_link(const kd_house *house, const uint8_t seed[KD_SECRET_SEED_LEN],
                          uint8_t link[KD_FAIR_LINK_LEN]) KD_WARN_UNUSED;

/* secret_commit for the house: adds "house_commit" (h[0] of `seed`'s chain
 * as 64 hex digits) to `params` unless present, with the chain length of
 * params' "chain_length" (default KD_FAIR_LENGTH_DEFAULT). Errors:
 * KD_ERR_BAD_PARAMS (a chain_length out of range, with `why`), KD_ERR_NOMEM. */
kd_err kd_house_commit_json(const uint8_t seed[KD_SECRET_SEED_LEN], json_t *params, char *why,
                            size_t why_len) KD_WARN_UNUSED;

/* Reads the house members of creation params JSON: house_commit (64 hex,
 * required), chain_length (1..KD_FAIR_LENGTH_MAX), reveal_timeout
 * (1..KD_HOUSE_TIMEOUT_MAX DAA score). Errors: KD_ERR_BAD_PARAMS naming the
 * member. */
kd_err kd_house_params_from_json(const json_t *params, uint8_t commit[KD_FAIR_LINK_LEN], uint32_t *length,
                                 uint32_t *timeout, char *why, size_t why_len) KD_WARN_UNUSED;

/* The JSON Schema members of the house's params, for a chance type's
 * params_schema: "house_commit", "chain_length", "reveal_timeout". */
#define KD_HOUSE_PARAMS_SCHEMA                                                                                     \
    "\"house_commit\":{\"type\":\"string\",\"pattern\":\"^[0-9a-fA-F]{64}$\",\"description\":\"h0 of the house's " \
    "hash chain (added by the gateway when it holds the house's key)\"},"                                          \
    "\"chain_length\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":65536,\"description\":\"draws the chain "    \
    "allows (default 1024)\"},"                                                                                    \
    "\"reveal_timeout\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":864000,\"description\":\"DAA score the "   \
    "house has to reveal before the player may claim (default 600, a minute at 10 blocks/s)\"}"

/* 32 bytes from a JSON string of 64 hex digits (a command's "entropy" or
 * "reveal"). Errors: KD_ERR_BAD_COMMAND with `why` naming `name`. */
kd_err kd_house_hex32_from_json(const json_t *j, const char *name, uint8_t out[32], char *why,
                                size_t why_len) KD_WARN_UNUSED;

/* The public entropy a chance type's listed legal moves carry:
 * SHA-256(chain head || round as u32 BE). Anyone can compute it, so a
 * player who wants its own randomness gives its own (or leaves "entropy"
 * out at the gateway, which fills fresh bytes). */
void kd_house_public_entropy(const kd_house *house, uint32_t round, uint8_t out[KD_FAIR_ENTROPY_LEN]);

/* Fixed-size encodings (KD_HOUSE_ENCODED_LEN, KD_HOUSE_UNDO_LEN bytes),
 * appended / read in place. Decoders check every field: KD_ERR_DECODE. */
void kd_house_encode(const kd_house *house, uint8_t out[KD_HOUSE_ENCODED_LEN]);
kd_err kd_house_decode(const uint8_t in[KD_HOUSE_ENCODED_LEN], kd_house *house) KD_WARN_UNUSED;
void kd_house_undo_encode(const kd_house_undo *undo, uint8_t out[KD_HOUSE_UNDO_LEN]);
kd_err kd_house_undo_decode(const uint8_t in[KD_HOUSE_UNDO_LEN], kd_house_undo *undo) KD_WARN_UNUSED;

/* The house's part of a view (HouseView in proto/chance.proto): fills
 * `v` (HouseView-initialised by the caller) pointing into `house`, which
 * must outlive the packing. */
struct Kdapp__HouseView;
void kd_house_view_fill(const kd_house *house, struct Kdapp__HouseView *v);
/* The HouseView as JSON (new reference, NULL on no memory): "chain_head"
 * (hex), "revealed", "chain_length", "reveal_timeout", "pending" ({"asker",
 * "entropy", "asked_daa", "deadline_daa"} or null). NULL too when `v` is
 * NULL. */
json_t *kd_house_view_json(const struct Kdapp__HouseView *v, const char *const *seat_names, size_t seats);

#endif
