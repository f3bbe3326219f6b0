/*
 * house.h — the house seat of a chance game: one pending draw answered by
 * the house's verifiable random function (episodes/fair.h), its deadline
 * and the claim of a house that does not answer, with their undo. Every
 * chance type (dice, roulette, slots) keeps one kd_house in its state and
 * drives it the same way:
 *
 *   creation params ── kd_house_params ──► the house's VRF key for this
 *        episode, its binding (engine/crypto.h), reveal_timeout >=
 *        KD_DEADLINE_MIN, its reveal_depth and the draw input's version
 *        (fair.h: 3 for every new creation, 2 for those made before
 *        issue 37); the episode id is kept for the draws' input
 *   player's command (a roll, bets, a spin) ── kd_house_ask ──► pending
 *        asking seat, the 32 bytes its draw's input ends with (SHA-256 of
 *        the command's bytes; version 2: its entropy), its DAA score
 *   house's HouseReveal{proof} ── kd_house_reveal ──► draw seed = the VRF
 *        output of alpha(episode id, draw index, ask); refused
 *        (bad_proof) unless the proof verifies against the house's key
 *   player's HouseClaim{} ── kd_house_claim ──► the round is the house's
 *        loss; refused (too_early) before
 *        asked_daa + reveal_depth + timeout
 *
 * The house's reveal depth is its own term: it reveals an ask only once
 * the ask's block is reveal_depth DAA score deep (kd_house_due; the
 * gateway's duties thread waits for it), so a reorg that could drop an
 * answered ask must be deeper than that; the claim deadline counts from
 * there. The rules do not refuse an earlier reveal (nobody but the house
 * is hurt by it).
 *
 * Deadlines are in DAA score (kd_block_meta.daa), never a clock, so a
 * replay agrees. A revert undoes an ask, a reveal or a claim exactly
 * (kd_house_rollback); a reveal included again gives the same draw, and an
 * ask made again with any byte changed (bets, amounts, entropy) gets an
 * unrelated one: nothing published can be replayed (fair.h). Plain data: a
 * zeroed kd_house compares with memcmp. Pure functions; a kd_house is used
 * by one thread at a time.
 *
 * Rule codes retired with the hash chain (issue 24), never to be reused
 * for anything else (engine/err.h): wrong_link, chain_exhausted. Retired
 * for one word per rule (issue 41): deadline_not_passed, now too_early,
 * the code every type's claim before its deadline answers.
 */
#ifndef KD_EPISODES_HOUSE_H
#define KD_EPISODES_HOUSE_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "engine/bytes.h"
#include "engine/episode.h"
#include "episodes/fair.h"

#define KD_HOUSE_TIMEOUT_DEFAULT 600u /* DAA score: a minute at 10 blocks a second */
#define KD_HOUSE_TIMEOUT_MAX 864000u  /* a day */
/* The house's reveal depth (DAA score an ask's block must be deep before
 * the house reveals it): at most a day; 0 unless the creation names one
 * (the rules' default; a gateway's house always names its own). The
 * gateway's defaults per chain (its --reveal-depth; README "Fair chance"
 * justifies them): the devnet, which mines on demand and reorganises only
 * when told, 2 blocks; a Kaspa node, 100 DAA score (10 s at 10 blocks a
 * second: against a miner with 45% of the hashrate a reorg that deep
 * succeeds with probability about (0.45/0.55)^100, 2e-9, and the chain's
 * own reorgs are a few blocks deep). */
#define KD_HOUSE_DEPTH_MAX 864000u
#define KD_HOUSE_DEPTH_DEVNET 2u
#define KD_HOUSE_DEPTH_KASPA 100u
/* kd_house_encode's bytes: episode id, timeout, draws, key, binding, pending, asker, ask, asked_daa */
#define KD_HOUSE_ENCODED_LEN (4 + 4 + 4 + KD_PUBKEY_LEN + KD_SECRET_BINDING_LEN + 1 + 1 + KD_FAIR_ASK_LEN + 8)
#define KD_HOUSE_UNDO_LEN (1 + 1 + KD_FAIR_ASK_LEN + 8) /* kd_house_undo_encode's bytes */

/* What the creation params say of the house. */
typedef struct {
    kd_pubkey key;                          /* the house's VRF public key for this episode */
    uint8_t binding[KD_SECRET_BINDING_LEN]; /* what the key's seed is bound to (crypto.h) */
    uint32_t timeout;                       /* reveal_timeout, DAA score */
    uint32_t depth;                         /* reveal_depth, DAA score (0 for draw input 2) */
    uint32_t draw_input;                    /* KD_FAIR_DRAW_V3, or V2 for creations before issue 37 */
} kd_house_params;

typedef struct {
    uint64_t asked_daa; /* the DAA score of the block that carried the ask (when pending) */
    uint32_t episode_id;
    uint32_t timeout; /* DAA score a reveal may take once due */
    uint32_t draws;   /* draws revealed so far; the pending one is draws + 1 */
    uint32_t depth;   /* DAA score the ask's block must be deep before the house reveals */
    kd_pubkey key;
    uint8_t binding[KD_SECRET_BINDING_LEN];
    uint8_t ask[KD_FAIR_ASK_LEN]; /* when pending: the 32 bytes its draw's input ends with (fair.h) */
    uint8_t pending;              /* 1: a draw was asked and neither revealed nor claimed */
    uint8_t asker;                /* the seat that asked (when pending) */
    uint8_t draw_input;           /* KD_FAIR_DRAW_V2 or V3 */
    uint8_t spare[5];             /* zero: no padding inside the struct */
} kd_house;

/* What one ask, reveal or claim changed: enough to give it back. */
typedef struct {
    uint64_t asked_daa;
    uint8_t kind; /* kd_house_op */
    uint8_t asker;
    uint8_t ask[KD_FAIR_ASK_LEN];
    uint8_t spare[6];
} kd_house_undo;

typedef enum { KD_HOUSE_OP_NONE = 0, KD_HOUSE_OP_ASK = 1, KD_HOUSE_OP_REVEAL = 2, KD_HOUSE_OP_CLAIM = 3 } kd_house_op;

/* The rule codes of the house, to be listed in each chance type's table:
 * draw_pending, no_draw_pending, bad_proof, too_early,
 * not_the_house, not_the_asker. */
#define KD_HOUSE_RULE_CODES                                                                                    \
    {"draw_pending", "a draw is waiting for the house's reveal: nothing else until it comes (or is claimed)"}, \
        {"no_draw_pending", "no draw is waiting: there is nothing to reveal or claim"},                        \
        {"bad_proof", "the house's proof does not verify for the pending draw against its key in the params"}, \
        {"too_early", "the house may still reveal: a claim is allowed only after the reveal deadline"},        \
        {"not_the_house", "only the house seat reveals"},                                                      \
    {                                                                                                          \
        "not_the_asker", "only the seat that asked for the draw claims it"                                     \
    }

/* A house as the params say, for episode `episode_id`. */
void kd_house_init(kd_house *house, const kd_house_params *params, uint32_t episode_id);

/* Asks a draw for `seat` at DAA `daa` with the asking command's `entropy`
 * and `digest` (kd_fair_ask_digest of its bytes): the draw's input ends
 * with the digest (draw input 3) or the entropy (2). Refusal (KD_ERR_RULE,
 * code in `rej`): draw_pending. On success fills `undo`; on error nothing
 * is touched. */
kd_err kd_house_ask(kd_house *house, int seat, const uint8_t entropy[KD_FAIR_ENTROPY_LEN],
                    const uint8_t digest[KD_FAIR_ASK_LEN], uint64_t daa, kd_house_undo *undo,
                    kd_reject *rej) KD_WARN_UNUSED;

/* Accepts `proof` as the answer to the pending draw and writes the draw's
 * seed (the VRF output) to `draw`. Refusals: no_draw_pending, bad_proof.
 * Other errors (KD_ERR_NOMEM) leave the house untouched too. */
kd_err kd_house_reveal(kd_house *house, const uint8_t proof[KD_VRF_PROOF_LEN], uint8_t draw[KD_HASH_LEN],
                       kd_house_undo *undo, kd_reject *rej) KD_WARN_UNUSED;

/* The asker claims the pending draw at DAA `daa`: the house forfeits the
 * round. Refusals: no_draw_pending, not_the_asker (seat is not the asker),
 * too_early (daa < asked_daa + depth + timeout). */
kd_err kd_house_claim(kd_house *house, int seat, uint64_t daa, kd_house_undo *undo, kd_reject *rej) KD_WARN_UNUSED;

/* Gives back the ask, reveal or claim of `undo`. Errors: KD_ERR_DECODE (a
 * record that cannot be the house's last change; nothing touched). */
kd_err kd_house_rollback(kd_house *house, const kd_house_undo *undo) KD_WARN_UNUSED;

/* The kinds of a chance game's commands, in every chance type's numbering
 * (kd_dice_cmd_kind, kd_roulette_cmd_kind, kd_slots_cmd_kind): the
 * player's ask (a roll, bets, a spin), the house's reveal, the player's
 * claim. */
enum { KD_HOUSE_CMD_ASK = 1, KD_HOUSE_CMD_REVEAL = 2, KD_HOUSE_CMD_CLAIM = 3 };

/* Gives back the house's part of a chance command of `kind` (above):
 * KD_ERR_DECODE unless `undo` is the record that kind makes (an ask's, a
 * reveal's, a claim's), else kd_house_rollback's. The one mapping of a
 * command to the house's step, for every chance type's rollback. */
kd_err kd_house_rollback_command(kd_house *house, unsigned kind, const kd_house_undo *undo) KD_WARN_UNUSED;

/* The draw a reveal with `proof` answers: 1 and `out` filled when a draw
 * is pending, else 0 (for kdapp audit: kd_episode_type.draw_of). */
int kd_house_draw_of(const kd_house *house, const uint8_t proof[KD_VRF_PROOF_LEN], kd_fair_draw *out);

/* The DAA score from which the pending draw may be claimed: the ask's +
 * reveal depth + timeout. */
uint64_t kd_house_deadline(const kd_house *house);
/* The DAA score from which the house reveals the pending draw by its own
 * term: the ask's + reveal depth (the gateway's duties thread waits until
 * the chain's tip reaches it). */
uint64_t kd_house_due(const kd_house *house);

/* The proof the house owes now (for the pending draw) from its `seed`.
 * Errors: KD_ERR_NO_MOVE (no draw pending), kd_fair_prove's. */
kd_err kd_house_owed_proof(const kd_house *house, const uint8_t seed[KD_SECRET_SEED_LEN],
                           uint8_t proof[KD_VRF_PROOF_LEN]) KD_WARN_UNUSED;

/* secret_commit for the house: SETS "house_key" (the VRF key of `seed`, 66
 * hex digits) and "house_binding" (64 hex) in `params`, replacing whatever
 * a caller put there. Errors: KD_ERR_BAD_PARAMS (not an object, with
 * `why`), KD_ERR_NOMEM, kd_fair_house_key's. */
kd_err kd_house_commit_json(const uint8_t seed[KD_SECRET_SEED_LEN], const uint8_t binding[KD_SECRET_BINDING_LEN],
                            json_t *params, char *why, size_t why_len) KD_WARN_UNUSED;

/* Sets the house's own terms in creation params JSON `params` (an
 * object): "reveal_depth" = `depth`, replacing whatever a caller wrote
 * there (a gateway playing the house calls it with its kd_seat_commit).
 * Errors: KD_ERR_BAD_PARAMS (not an object, or depth over
 * KD_HOUSE_DEPTH_MAX, with `why`), KD_ERR_NOMEM. */
kd_err kd_house_terms_json(json_t *params, uint32_t depth, char *why, size_t why_len) KD_WARN_UNUSED;

/* Reads the house members of creation params JSON: house_key (66 hex, a
 * valid key, required), house_binding (64 hex, required), reveal_timeout
 * (KD_DEADLINE_MIN..KD_HOUSE_TIMEOUT_MAX DAA score, default 600),
 * reveal_depth (0..KD_HOUSE_DEPTH_MAX, default 0). Every creation made
 * from JSON draws with input version 3. Errors: KD_ERR_BAD_PARAMS naming
 * the member. */
kd_err kd_house_params_from_json(const json_t *params, kd_house_params *out, char *why, size_t why_len) KD_WARN_UNUSED;

/* The HouseParams message of `p` (HouseParams-initialised by the caller),
 * pointing into `p`, which must outlive the packing. */
struct Kdapp__HouseParams;
void kd_house_params_to_pb(const kd_house_params *p, struct Kdapp__HouseParams *m);
/* The house's params from a decoded HouseParams (NULL: missing), defaults
 * filled (reveal_timeout 0: 600; draw_input 0: 2, the input of creations
 * made before issue 37, which replay as they were) and checked: the key a
 * valid point, the binding 32 bytes, the timeout from KD_DEADLINE_MIN to
 * KD_HOUSE_TIMEOUT_MAX, draw_input 0, 2 or 3, reveal_depth at most
 * KD_HOUSE_DEPTH_MAX and 0 with draw input 2. Errors: KD_ERR_BAD_PARAMS
 * with a sentence in `rej`. */
kd_err kd_house_params_from_pb(const struct Kdapp__HouseParams *m, kd_house_params *p, kd_reject *rej) KD_WARN_UNUSED;

/* The draw input's version of params whose wire field draw_input is
 * `draw_input` (0 or 2: version 2, the input of creations made before
 * issue 37; 3), checked with the reveal `depth` (at most
 * KD_HOUSE_DEPTH_MAX; 0 with version 2). Shared by every type whose params
 * carry the house's terms. Errors: KD_ERR_BAD_PARAMS with a sentence in
 * `rej`. */
kd_err kd_house_terms_from_pb(uint32_t draw_input, uint32_t depth, uint32_t *version, kd_reject *rej) KD_WARN_UNUSED;
/* The wire's draw_input of `version`: 0 for version 2, so the params of an
 * episode created before issue 37 encode byte for byte as they did. */
uint32_t kd_house_draw_input_pb(uint32_t version);

/* The JSON Schema members of the house's params, for a chance type's
 * params_schema: "house_key", "house_binding", "reveal_timeout",
 * "reveal_depth". */
#define KD_HOUSE_PARAMS_SCHEMA                                                                                     \
    "\"house_key\":{\"type\":\"string\",\"pattern\":\"^0[23][0-9a-fA-F]{64}$\",\"description\":\"the house's VRF " \
    "public key for this episode (set by whoever holds the house's key: a gateway, kdapp commit)\"},"              \
    "\"house_binding\":{\"type\":\"string\",\"pattern\":\"^[0-9a-fA-F]{64}$\",\"description\":\"what the house's " \
    "key is bound to (set with house_key)\"},"                                                                     \
    "\"reveal_timeout\":{\"type\":\"integer\",\"minimum\":100,\"maximum\":864000,\"description\":\"DAA score the " \
    "house has to reveal, once the ask is reveal_depth deep, before the player may claim (default 600, a minute "  \
    "at 10 blocks/s; at least 100)\"},"                                                                            \
    "\"reveal_depth\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":864000,\"description\":\"the house's "       \
    "term: DAA score an ask's block must be deep before the house reveals it (set by a gateway playing the "       \
    "house: 2 on the devnet, 100 on a Kaspa node; the claim deadline counts from there)\"}"

/* The term every chance game's house keeps (kd_house_term, episode_type.h):
 * its time to reveal. Unless its operator says otherwise, a house consents
 * only to a reveal_timeout of at least KD_HOUSE_TIMEOUT_TERM_MIN DAA score
 * (30 s at 10 blocks a second): room for its reveal to reach the chain. */
#define KD_HOUSE_TIMEOUT_TERM_MIN 300u
#define KD_HOUSE_TIMEOUT_TERM                                                                 \
    {                                                                                         \
        "reveal_timeout", "house.reveal_timeout", "DAA score the house has to reveal a draw", \
            KD_HOUSE_TIMEOUT_TERM_MIN, KD_HOUSE_TIMEOUT_MAX                                   \
    }
/*
 * The secret and audit hooks of a chance type's kd_episode_type
 * (episode_type.h), the same for every chance game whose state is a
 * kd_<p>_state with a kd_house `house` and whose commands are a
 * kd_<p>_command with `kind` (KD_HOUSE_CMD_*) and `proof`: defines static
 * secret_commit (the house seat's key and binding, kd_house_commit_json),
 * secret_binding (the house's, from the state), secret_duty (the proof the
 * house owes while `live`, an expression of `s`, the const kd_<p>_state *,
 * is true), duty_due (kd_house_due of the pending draw) and draw_of (a
 * reveal's draw). Used with a ';'; the type's table names them
 * (KD_HOUSE_TYPE_MEMBERS).
 */
#define KD_HOUSE_TYPE_HOOKS(p, house_seat, live)                                                                      \
    static kd_err secret_commit(int seat, const uint8_t seed[KD_SECRET_SEED_LEN],                                     \
                                const uint8_t binding[KD_SECRET_BINDING_LEN], json_t *params, char *why,              \
                                size_t why_len)                                                                       \
    {                                                                                                                 \
        return seat == (house_seat) ? kd_house_commit_json(seed, binding, params, why, why_len) : KD_ERR_UNSUPPORTED; \
    }                                                                                                                 \
    static kd_err secret_binding(const void *state, int seat, uint8_t out[KD_SECRET_BINDING_LEN])                     \
    {                                                                                                                 \
        if (seat != (house_seat))                                                                                     \
            return KD_ERR_UNSUPPORTED;                                                                                \
        memcpy(out, ((const kd_##p##_state *)state)->house.binding, KD_SECRET_BINDING_LEN);                           \
        return KD_OK;                                                                                                 \
    }                                                                                                                 \
    static kd_err secret_duty(const void *state, int seat, const uint8_t seed[KD_SECRET_SEED_LEN], kd_buf *command)   \
    {                                                                                                                 \
        const kd_##p##_state *s = state;                                                                              \
        if (seat != (house_seat) || !(live))                                                                          \
            return KD_ERR_NO_MOVE;                                                                                    \
        kd_##p##_command c;                                                                                           \
        memset(&c, 0, sizeof c);                                                                                      \
        c.kind = KD_HOUSE_CMD_REVEAL;                                                                                 \
        kd_err err = kd_house_owed_proof(&s->house, seed, c.proof);                                                   \
        return err ? err : kd_##p##_command_encode(&c, command);                                                      \
    }                                                                                                                 \
    static uint64_t duty_due(const void *state, int seat)                                                             \
    {                                                                                                                 \
        const kd_house *h = &((const kd_##p##_state *)state)->house;                                                  \
        return seat == (house_seat) && h->pending ? kd_house_due(h) : 0;                                              \
    }                                                                                                                 \
    static int draw_of(const void *state, const uint8_t *command, size_t len, kd_fair_draw *draw)                     \
    {                                                                                                                 \
        kd_##p##_command c;                                                                                           \
        kd_reject rej;                                                                                                \
        return kd_##p##_command_decode(command, len, &c, &rej) == KD_OK && c.kind == KD_HOUSE_CMD_REVEAL &&           \
               kd_house_draw_of(&((const kd_##p##_state *)state)->house, c.proof, draw);                              \
    }                                                                                                                 \
    _Static_assert(sizeof(kd_##p##_command) > 0, "kd_" #p "_command")

/* The kd_episode_type members of KD_HOUSE_TYPE_HOOKS and the house seat. */
#define KD_HOUSE_TYPE_MEMBERS(house_seat)                                                                             \
    .secret_commit = secret_commit, .secret_binding = secret_binding, .secret_duty = secret_duty, .draw_of = draw_of, \
    .duty_due = duty_due, .house_seats = 1u << (house_seat)

/* The JSON Schema members of a chance command beside the player's ask,
 * for a chance type's command_schema: "entropy", "reveal", "claim". */
#define KD_HOUSE_COMMAND_SCHEMA                                                                                    \
    "\"entropy\":{\"type\":\"string\",\"pattern\":\"^[0-9a-fA-F]{64}$\",\"description\":\"the player's 32 random " \
    "bytes for the draw; the gateway fills it from a CSPRNG when left out\"},"                                     \
    "\"reveal\":{\"type\":\"string\",\"pattern\":\"^[0-9a-fA-F]{162}$\",\"description\":\"the house's VRF proof "  \
    "for the pending draw (made from its key)\"},"                                                                 \
    "\"claim\":{\"type\":\"boolean\",\"description\":\"true: claim a draw the house did not reveal in time\"}"

/* 32 bytes from a JSON string of 64 hex digits (a command's "entropy").
 * Errors: KD_ERR_BAD_COMMAND with `why` naming `name`. */
kd_err kd_house_hex32_from_json(const json_t *j, const char *name, uint8_t out[32], char *why,
                                size_t why_len) KD_WARN_UNUSED;
/* A proof from a JSON string of 162 hex digits (a command's "reveal").
 * Errors: KD_ERR_BAD_COMMAND with `why`. */
kd_err kd_house_proof_from_json(const json_t *j, uint8_t out[KD_VRF_PROOF_LEN], char *why,
                                size_t why_len) KD_WARN_UNUSED;

/* Which of a chance command's JSON forms `command` is: the player's ask
 * (its member `ask`: "roll", "bets", "spin"; the caller reads it and its
 * "entropy"), the house's {"reveal": hex162} (`proof` filled) or the
 * player's {"claim": true}; `kind` says which (KD_HOUSE_CMD_*). Errors:
 * KD_ERR_BAD_COMMAND with `why`: `usage` when `command` is not an object
 * with exactly one of the three, kd_house_proof_from_json's, "claim must
 * be true". */
kd_err kd_house_command_from_json(const json_t *command, const char *ask, const char *usage, unsigned *kind,
                                  uint8_t proof[KD_VRF_PROOF_LEN], char *why, size_t why_len) KD_WARN_UNUSED;
/* The JSON of a chance command of `kind` that is the house's reveal
 * ({"reveal": hex}) or the player's claim ({"claim": true}); NULL for an
 * ask (the caller writes it: kd_house_ask_json) or on no memory. */
json_t *kd_house_answer_json(unsigned kind, const uint8_t proof[KD_VRF_PROOF_LEN]);
/* The JSON of a player's ask: {member: value, "entropy": hex64}; `value`
 * is stolen (NULL: null). NULL on no memory. */
json_t *kd_house_ask_json(const char *member, json_t *value, const uint8_t entropy[KD_FAIR_ENTROPY_LEN]);

/* The public entropy a chance type's listed legal moves carry:
 * SHA-256(house key || round as u32 BE). Anyone can compute it (the house
 * too, before it commits), so a player who wants its own randomness gives
 * its own (or leaves "entropy" out at the gateway, which fills fresh
 * bytes). */
void kd_house_public_entropy(const kd_house *house, uint32_t round, uint8_t out[KD_FAIR_ENTROPY_LEN]);

/* Fixed-size encodings (KD_HOUSE_ENCODED_LEN, KD_HOUSE_UNDO_LEN bytes),
 * appended / read in place. Decoders check every field: KD_ERR_DECODE. */
void kd_house_encode(const kd_house *house, uint8_t out[KD_HOUSE_ENCODED_LEN]);
kd_err kd_house_decode(const uint8_t in[KD_HOUSE_ENCODED_LEN], kd_house *house) KD_WARN_UNUSED;
void kd_house_undo_encode(const kd_house_undo *undo, uint8_t out[KD_HOUSE_UNDO_LEN]);
kd_err kd_house_undo_decode(const uint8_t in[KD_HOUSE_UNDO_LEN], kd_house_undo *undo) KD_WARN_UNUSED;

/* The head of every chance state's bytes, in one of two forms that the
 * first byte tells apart:
 *
 *   draw input 2  `version`, the house (kd_house_encode), the two
 *                 players' keys: KD_HOUSE_HEAD_LEN bytes (episodes created
 *                 before issue 37 keep these bytes exactly)
 *   draw input 3  `version` + 1, the house, its reveal depth (u32 BE), the
 *                 two players' keys: KD_HOUSE_HEAD_MAX bytes
 *
 * The encoder returns the length it wrote. The decoder reads `len` bytes
 * at most, checks the version, the house and that each key is a
 * compressed point's encoding (KD_ERR_DECODE), and writes the head's
 * length to *used. */
#define KD_HOUSE_HEAD_LEN (1 + KD_HOUSE_ENCODED_LEN + 2 * KD_PUBKEY_LEN)
#define KD_HOUSE_HEAD_MAX (KD_HOUSE_HEAD_LEN + 4)
size_t kd_house_head_encode(uint8_t version, const kd_house *house, const kd_pubkey players[2],
                            uint8_t out[KD_HOUSE_HEAD_MAX]);
kd_err kd_house_head_decode(const uint8_t *in, size_t len, uint8_t version, kd_house *house, kd_pubkey players[2],
                            size_t *used) KD_WARN_UNUSED;
/* The head of every chance undo's bytes (KD_HOUSE_UNDO_HEAD_LEN): the
 * `version` byte, the house's undo (kd_house_undo_encode) and the
 * command's kind (KD_HOUSE_CMD_*). The decoder checks all three:
 * KD_ERR_DECODE. */
#define KD_HOUSE_UNDO_HEAD_LEN (2 + KD_HOUSE_UNDO_LEN)
size_t kd_house_undo_head_encode(uint8_t version, const kd_house_undo *undo, uint8_t kind,
                                 uint8_t out[KD_HOUSE_UNDO_HEAD_LEN]);
kd_err kd_house_undo_head_decode(const uint8_t in[KD_HOUSE_UNDO_HEAD_LEN], uint8_t version, kd_house_undo *undo,
                                 uint8_t *kind) KD_WARN_UNUSED;

/* The house's part of a view (HouseView in proto/chance.proto): fills
 * `v` (HouseView-initialised by the caller) pointing into `house`, which
 * must outlive the packing. */
struct Kdapp__HouseView;
void kd_house_view_fill(const kd_house *house, struct Kdapp__HouseView *v);
/* The HouseView as JSON (new reference, NULL on no memory): "key",
 * "binding" (hex), "draws", "draw_input" (2 or 3), "reveal_timeout",
 * "reveal_depth", "pending" ({"asker", "draw", "ask_sha256" (the SHA-256
 * of the ask's bytes; "entropy" for draw input 2), "asked_daa",
 * "reveal_from_daa", "deadline_daa"} or null). NULL too when `v` is NULL. */
json_t *kd_house_view_json(const struct Kdapp__HouseView *v, const char *const *seat_names, size_t seats);

#endif
