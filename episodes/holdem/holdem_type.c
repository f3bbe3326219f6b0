/*
 * holdem_type.c — hold'em's entry in the type table: schemas, JSON for
 * params and commands, status, legal bets, random commands, and the secret
 * hooks (a seat's binding at creation; its shuffles and locks with their
 * proofs, its keys and shows or mucks as duties, protocol 1's hand secrets;
 * its own hole cards as its secret view). Views are in
 * holdem_view.c, the bot in holdem_bot.c. Pure functions.
 *
 * Command JSON:
 *   {"fold": true} {"check": true} {"call": true} {"raise": 120} ("bet" too:
 *   the seat's total for the round after it)
 *   {"shuffle": {"deck": "<3432 hex>", "key": "<66 hex>", "proof": "<13840 hex>"}}
 *   {"lock": {"cards": "<594 hex>", "commits": "<594 hex>", "proofs": "<1152 hex>"}}
 *   {"keys": {"positions": [0, 1], "keys": ["<64 hex>", ...]}} {"muck": true}
 *   {"claim": true}; protocol 1's: {"shuffle": "<3432 hex>"} (the deck
 *   alone), a lock without proofs, {"reveal": "<64 hex>"}, {"dispute": true}
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "holdem.pb-c.h"
#include "episodes/fair.h"
#include "episodes/holdem/holdem.h"
#include "episodes/holdem/holdem_int.h"

static const char *const binding_names[2] = {"binding_0", "binding_1"};

static kd_game_status status(const void *state_ptr)
{
    const kd_hm_state *s = state_ptr;
    kd_game_status st = {KD_PHASE_IN_PROGRESS, KD_SEAT_NONE, kd_hm_to_move(s)};
    if (s->phase == KD_HM_OVER) {
        st.phase = s->winner <= 1 ? KD_PHASE_WON : KD_PHASE_DRAW;
        st.winner = s->winner <= 1 ? s->winner : KD_SEAT_NONE;
        st.to_move = KD_SEAT_NONE;
    }
    return st;
}

/* A match lost to a cheat (data that fails its check, a step withheld
 * past its deadline) is the cheater's; a draw is equal stacks. */
static kd_seat_result seat_result(const void *state_ptr, int seat)
{
    const kd_hm_state *s = state_ptr;
    if (s->phase != KD_HM_OVER || seat < 0 || seat > 1)
        return KD_RESULT_NONE;
    if (s->winner > 1)
        return KD_RESULT_DRAW;
    if (s->winner == seat)
        return KD_RESULT_WIN;
    return s->end == KD_HM_END_CHEAT ? KD_RESULT_CHEAT : KD_RESULT_LOSS;
}

/* ------------------------------------------------------- JSON ⇄ bytes */

static const char params_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"binding_0\":{\"type\":\"string\",\"minLength\":64,\"maxLength\":64,\"description\":\"what seat 0's keys "
    "derive under, hex (added by whoever holds seat 0's key)\"},"
    "\"binding_1\":{\"type\":\"string\",\"minLength\":64,\"maxLength\":64,\"description\":\"seat 1's, hex\"},"
    "\"stack\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":1000000000,\"description\":\"starting chips of each "
    "seat (default 1000)\"},"
    "\"small_blind\":{\"type\":\"integer\",\"minimum\":1,\"description\":\"default 5\"},"
    "\"big_blind\":{\"type\":\"integer\",\"minimum\":1,\"description\":\"default 10\"},"
    "\"hand_limit\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":1000000,\"description\":\"hands in the match "
    "(0, the default: until a seat has no chips)\"},"
    "\"timeout\":{\"type\":\"integer\",\"minimum\":100,\"maximum\":100000000,\"description\":\"DAA score each step "
    "may wait (default 600; at least 100)\"},"
    "\"pot_only\":{\"type\":\"boolean\",\"description\":\"a cheater loses the pot only (default false: the "
    "match)\"},"
    "\"protocol\":{\"const\":2,\"description\":\"the deck protocol: 2, each step proved and no hand secret "
    "published (1 is kept for matches created before it)\"}}}";

static const char command_schema[] =
    "{\"type\":\"object\",\"description\":\"a bet (fold, check, call, raise) or a deck step (shuffle, lock, keys, "
    "reveal, dispute: made for you from your key), or a claim\",\"properties\":{"
    "\"fold\":{\"const\":true},\"check\":{\"const\":true},\"call\":{\"const\":true},"
    "\"raise\":{\"type\":\"integer\",\"minimum\":1,\"description\":\"raise (or bet) to this total for the "
    "round\"},\"bet\":{\"type\":\"integer\",\"minimum\":1,\"description\":\"the same as raise\"},"
    "\"shuffle\":{\"description\":\"the deck (52 points), the seat's key for the hand and the proof of shuffle, "
    "hex (protocol 1: the deck alone)\",\"anyOf\":[{\"type\":\"object\",\"properties\":{\"deck\":{\"type\":"
    "\"string\"},\"key\":{\"type\":\"string\"},\"proof\":{\"type\":\"string\"}},\"required\":[\"deck\","
    "\"key\",\"proof\"]},{\"type\":\"string\"}]},"
    "\"lock\":{\"type\":\"object\",\"properties\":{\"cards\":{\"type\":\"string\"},\"commits\":{\"type\":"
    "\"string\"},\"proofs\":{\"type\":\"string\",\"description\":\"9 proofs of 64 bytes, hex (protocol "
    "2)\"}},\"required\":[\"cards\",\"commits\"]},"
    "\"muck\":{\"const\":true,\"description\":\"at the showdown: give up the pot without showing\"},"
    "\"keys\":{\"type\":\"object\",\"properties\":{\"positions\":{\"type\":\"array\",\"items\":{\"type\":"
    "\"integer\",\"minimum\":0,\"maximum\":8}},\"keys\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}},"
    "\"required\":[\"positions\",\"keys\"]},"
    "\"reveal\":{\"type\":\"string\",\"description\":\"the hand secret, 64 hex\"},"
    "\"dispute\":{\"const\":true},\"claim\":{\"const\":true,\"description\":\"when the other seat missed its "
    "deadline\"}}}";

static kd_err bad_params(char *why, size_t why_len, const char *what)
{
    kd_reject_write(why, why_len, "%s", what);
    return KD_ERR_BAD_PARAMS;
}

static int uint_member(const json_t *params, const char *name, uint32_t max, uint32_t *out)
{
    const json_t *v = json_object_get(params, name);
    if (!v)
        return 0;
    if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > (json_int_t)max)
        return -1;
    *out = (uint32_t)json_integer_value(v);
    return 0;
}

static kd_err params_from_json(const json_t *params, kd_buf *out, char *why, size_t why_len)
{
    kd_hm_params p;
    memset(&p, 0, sizeof p);
    if (!json_is_object(params))
        return bad_params(why, why_len,
                          "hold'em needs params {\"binding_0\": hex, \"binding_1\": hex, ...}: each seat's binding "
                          "(a gateway holding a seat's key adds it)");
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)params, key, v)
    {
        static const char *const known[] = {"binding_0",  "binding_1", "stack",    "small_blind", "big_blind",
                                            "hand_limit", "timeout",   "pot_only", "protocol"};
        int ok = 0;
        for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
            ok |= strcmp(key, known[i]) == 0;
        if (!ok) {
            kd_reject_write(why, why_len,
                            "unknown hold'em param \"%s\": the params are binding_0, binding_1, stack, small_blind, "
                            "big_blind, hand_limit, timeout, pot_only, protocol",
                            key);
            return KD_ERR_BAD_PARAMS;
        }
    }
    for (int s = 0; s < 2; s++) {
        const json_t *b = json_object_get(params, binding_names[s]);
        if (!json_is_string(b) || kd_hex_decode(json_string_value(b), p.bindings[s], KD_SECRET_BINDING_LEN) != 0) {
            kd_reject_write(why, why_len, "%s must be 64 hex digits (the seat's binding); it is %s", binding_names[s],
                            b ? "malformed" : "missing");
            return KD_ERR_BAD_PARAMS;
        }
    }
    uint32_t timeout = 0;
    if (uint_member(params, "stack", KD_HM_STACK_MAX, &p.stack) ||
        uint_member(params, "small_blind", KD_HM_STACK_MAX, &p.small_blind) ||
        uint_member(params, "big_blind", KD_HM_STACK_MAX, &p.big_blind) ||
        uint_member(params, "hand_limit", KD_HM_HAND_LIMIT_MAX, &p.hand_limit) ||
        uint_member(params, "timeout", KD_HM_TIMEOUT_MAX, &timeout) ||
        uint_member(params, "protocol", KD_HM_PROTOCOL, &p.protocol))
        return bad_params(why, why_len,
                          "stack (1..1000000000), small_blind, big_blind, hand_limit (0..1000000), timeout "
                          "(100..100000000) and protocol (2) are non-negative integers");
    if (p.protocol && p.protocol != KD_HM_PROTOCOL)
        return bad_params(why, why_len, "protocol: a new match plays protocol 2 (1 is kept for older matches)");
    const json_t *po = json_object_get(params, "pot_only");
    if (po && !json_is_boolean(po))
        return bad_params(why, why_len, "pot_only is true or false");
    p.pot_only = json_is_true(po);
    p.timeout = timeout;
    kd_reject rej = {0};
    kd_hm_params resolved = p;
    if (kd_hm_params_resolve(&resolved, &rej) != KD_OK)
        return bad_params(why, why_len, rej.detail);
    return kd_hm_params_encode(&p, out);
}

static int hex_member(const json_t *v, uint8_t *out, size_t len)
{
    return json_is_string(v) ? kd_hex_decode(json_string_value(v), out, len) : -1;
}

static int keys_from_json(const json_t *k, kd_hm_command *c)
{
    const json_t *pos = json_object_get(k, "positions"), *keys = json_object_get(k, "keys");
    if (!json_is_array(pos) || !json_is_array(keys) || json_array_size(pos) != json_array_size(keys) ||
        json_array_size(pos) == 0 || json_array_size(pos) > KD_HM_DEALT)
        return -1;
    c->n_keys = (uint32_t)json_array_size(pos);
    for (size_t i = 0; i < c->n_keys; i++) {
        const json_t *p = json_array_get(pos, i);
        if (!json_is_integer(p) || json_integer_value(p) < 0 || json_integer_value(p) > 255 ||
            hex_member(json_array_get(keys, i), c->keys[i], KD_HM_SCALAR_LEN))
            return -1;
        c->positions[i] = (uint8_t)json_integer_value(p);
    }
    return 0;
}

static kd_err parse_command(const json_t *j, kd_hm_command *c, char *why, size_t why_len)
{
    const json_t *v;
    int bad = 0;
    if ((v = json_object_get(j, "fold")) || (v = json_object_get(j, "check")) || (v = json_object_get(j, "call")) ||
        (v = json_object_get(j, "dispute")) || (v = json_object_get(j, "claim"))) {
        c->kind = json_object_get(j, "fold")      ? KD_HM_CMD_FOLD
                  : json_object_get(j, "check")   ? KD_HM_CMD_CHECK
                  : json_object_get(j, "call")    ? KD_HM_CMD_CALL
                  : json_object_get(j, "dispute") ? KD_HM_CMD_DISPUTE
                                                  : KD_HM_CMD_CLAIM;
        bad = !json_is_true(v);
    } else if ((v = json_object_get(j, "raise")) || (v = json_object_get(j, "bet"))) {
        c->kind = KD_HM_CMD_RAISE;
        bad = !json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > (json_int_t)UINT32_MAX;
        if (!bad)
            c->to = (uint32_t)json_integer_value(v);
    } else if ((v = json_object_get(j, "shuffle"))) {
        c->kind = KD_HM_CMD_SHUFFLE;
        if (json_is_object(v)) { /* protocol 2: with its key and proof */
            c->proved = 1;
            bad = hex_member(json_object_get(v, "deck"), &c->deck[0][0], sizeof c->deck) ||
                  hex_member(json_object_get(v, "key"), c->key, sizeof c->key) ||
                  hex_member(json_object_get(v, "proof"), c->proof, sizeof c->proof);
        } else
            bad = hex_member(v, &c->deck[0][0], sizeof c->deck);
    } else if ((v = json_object_get(j, "lock"))) {
        c->kind = KD_HM_CMD_LOCK;
        const json_t *proofs = json_object_get(v, "proofs");
        c->proved = proofs != NULL;
        bad = !json_is_object(v) || hex_member(json_object_get(v, "cards"), &c->cards[0][0], sizeof c->cards) ||
              hex_member(json_object_get(v, "commits"), &c->commits[0][0], sizeof c->commits) ||
              (proofs && hex_member(proofs, c->proofs, sizeof c->proofs));
    } else if ((v = json_object_get(j, "muck"))) {
        c->kind = KD_HM_CMD_MUCK;
        bad = !json_is_true(v);
    } else if ((v = json_object_get(j, "keys"))) {
        c->kind = KD_HM_CMD_KEYS;
        bad = !json_is_object(v) || keys_from_json(v, c);
    } else if ((v = json_object_get(j, "reveal"))) {
        c->kind = KD_HM_CMD_REVEAL;
        bad = hex_member(v, c->secret, KD_HASH_LEN);
    } else
        bad = 1;
    if (!bad)
        return KD_OK;
    kd_reject_write(why, why_len,
                    "a hold'em command is {\"fold\": true}, {\"check\": true}, {\"call\": true}, {\"raise\": N} (the "
                    "total for the round), {\"muck\": true} (at the showdown), {\"claim\": true}, or a deck step made "
                    "from a seat's key: {\"shuffle\": {\"deck\": 3432 hex, \"key\": 66 hex, \"proof\": 13840 hex}}, "
                    "{\"lock\": {\"cards\", \"commits\": 594 hex, \"proofs\": 1152 hex}}, {\"keys\": "
                    "{\"positions\": [..], \"keys\": [64 hex, ..]}} (protocol 1: {\"shuffle\": 3432 hex}, a lock "
                    "without proofs, {\"reveal\": 64 hex}, {\"dispute\": true})");
    return KD_ERR_BAD_COMMAND;
}

static kd_err command_from_json(const json_t *command, int seat, kd_buf *out, char *why, size_t why_len)
{
    (void)seat; /* the signer says who acts */
    if (!json_is_object(command)) {
        kd_reject_write(why, why_len, "a hold'em command is a JSON object such as {\"call\": true}");
        return KD_ERR_BAD_COMMAND;
    }
    kd_hm_command *c = calloc(1, sizeof *c);
    if (!c)
        return KD_ERR_NOMEM;
    kd_err err = parse_command(command, c, why, why_len);
    if (!err)
        err = kd_hm_command_encode(c, out);
    free(c);
    return err;
}

static json_t *to_json(const kd_hm_command *c)
{
    json_t *pos, *keys;
    switch (c->kind) {
    case KD_HM_CMD_FOLD:
        return json_pack("{s:b}", "fold", 1);
    case KD_HM_CMD_CHECK:
        return json_pack("{s:b}", "check", 1);
    case KD_HM_CMD_CALL:
        return json_pack("{s:b}", "call", 1);
    case KD_HM_CMD_DISPUTE:
        return json_pack("{s:b}", "dispute", 1);
    case KD_HM_CMD_CLAIM:
        return json_pack("{s:b}", "claim", 1);
    case KD_HM_CMD_RAISE:
        return json_pack("{s:I}", "raise", (json_int_t)c->to);
    case KD_HM_CMD_MUCK:
        return json_pack("{s:b}", "muck", 1);
    case KD_HM_CMD_SHUFFLE:
        if (c->proved)
            return json_pack("{s:{s:o, s:o, s:o}}", "shuffle", "deck", kd_json_hex(&c->deck[0][0], sizeof c->deck),
                             "key", kd_json_hex(c->key, sizeof c->key), "proof",
                             kd_json_hex(c->proof, sizeof c->proof));
        return json_pack("{s:o}", "shuffle", kd_json_hex(&c->deck[0][0], sizeof c->deck));
    case KD_HM_CMD_LOCK:
        if (c->proved)
            return json_pack("{s:{s:o, s:o, s:o}}", "lock", "cards", kd_json_hex(&c->cards[0][0], sizeof c->cards),
                             "commits", kd_json_hex(&c->commits[0][0], sizeof c->commits), "proofs",
                             kd_json_hex(c->proofs, sizeof c->proofs));
        return json_pack("{s:{s:o, s:o}}", "lock", "cards", kd_json_hex(&c->cards[0][0], sizeof c->cards), "commits",
                         kd_json_hex(&c->commits[0][0], sizeof c->commits));
    case KD_HM_CMD_KEYS:
        pos = json_array();
        keys = json_array();
        for (uint32_t i = 0; pos && keys && i < c->n_keys; i++) {
            json_array_append_new(pos, json_integer(c->positions[i]));
            json_array_append_new(keys, kd_json_hex(c->keys[i], KD_HM_SCALAR_LEN));
        }
        return json_pack("{s:{s:o, s:o}}", "keys", "positions", pos, "keys", keys);
    case KD_HM_CMD_REVEAL:
        return json_pack("{s:o}", "reveal", kd_json_hex(c->secret, KD_HASH_LEN));
    }
    return NULL;
}

static json_t *command_to_json(const uint8_t *command, size_t len)
{
    kd_hm_command *c = calloc(1, sizeof *c);
    json_t *j = NULL;
    if (c && kd_hm_command_decode(command, len, c, NULL) == KD_OK)
        j = to_json(c);
    free(c);
    return j;
}

/* ------------------------------------------------------------- moves */

static kd_err push(kd_legal_moves *out, kd_hm_kind kind, uint32_t to, const char *notation)
{
    kd_hm_command c;
    memset(&c, 0, sizeof c);
    c.kind = kind;
    c.to = to;
    kd_buf b;
    kd_buf_init(&b);
    kd_err err = kd_hm_command_encode(&c, &b);
    if (!err)
        err = kd_legal_moves_push(out, b.data, b.len, notation);
    kd_buf_fini(&b);
    return err;
}

/* Raise sizes offered: the least, half the pot and the pot (after a call),
 * and all in; the rules take any total between the least and all in. */
kd_err kd_hm_legal_moves(const void *state_ptr, int seat, kd_legal_moves *out)
{
    const kd_hm_state *s = state_ptr;
    if (!(kd_hm_owes(s, seat) & KD_HM_OWE_BET))
        return KD_OK; /* deck steps are duties, made from the seat's secret */
    kd_hm_limits lim;
    kd_hm_limits_of(s, seat, &lim);
    char note[KD_NOTATION_MAX];
    kd_err err = push(out, KD_HM_CMD_FOLD, 0, "fold");
    if (!err && lim.can_check)
        err = push(out, KD_HM_CMD_CHECK, 0, "check");
    else if (!err) {
        snprintf(note, sizeof note, "call %u", lim.call);
        err = push(out, KD_HM_CMD_CALL, 0, note);
    }
    if (err || lim.min_to > lim.max_to)
        return err;
    uint32_t cur = s->bets[0] > s->bets[1] ? s->bets[0] : s->bets[1];
    uint64_t after_call = (uint64_t)kd_hm_pot(s) + lim.call;
    uint32_t sizes[4] = {lim.min_to, 0, 0, lim.max_to};
    sizes[1] = (uint32_t)(cur + after_call / 2 < lim.max_to ? cur + after_call / 2 : lim.max_to);
    sizes[2] = (uint32_t)(cur + after_call < lim.max_to ? cur + after_call : lim.max_to);
    uint32_t last = 0;
    for (int i = 0; !err && i < 4; i++) {
        uint32_t to = sizes[i];
        if (to < lim.min_to || to <= last)
            continue;
        snprintf(note, sizeof note, "%s %u", to == lim.max_to ? "allin" : cur ? "raise" : "bet", to);
        err = push(out, KD_HM_CMD_RAISE, to, note);
        last = to;
    }
    return err;
}

/*
 * Legal: a uniform legal bet for the seat to bet; KD_ERR_NO_MOVE for a
 * seat that owes a deck step (its duty) or may not act. Illegal: a raise
 * of one chip too few or one beyond the stack, a check facing a bet, a
 * call with nothing to call, a bet out of turn or while keys are owed, a
 * hand secret before the check, a bet at the check.
 */
static kd_err random_command(const void *state_ptr, int seat, int legal, uint64_t *rng, kd_buf *out)
{
    const kd_hm_state *s = state_ptr;
    if (legal) {
        kd_legal_moves moves;
        kd_legal_moves_init(&moves);
        kd_err err = kd_hm_legal_moves(s, seat, &moves);
        if (!err && !moves.count)
            err = KD_ERR_NO_MOVE;
        if (!err) {
            const kd_legal_move *m = &moves.moves[kd_type_rng_below(rng, (uint32_t)moves.count)];
            err = kd_buf_append(out, m->command, m->command_len);
        }
        kd_legal_moves_fini(&moves);
        return err;
    }
    if (s->phase == KD_HM_OVER)
        return KD_ERR_UNSUPPORTED;
    kd_hm_command c;
    memset(&c, 0, sizeof c);
    kd_hm_limits lim;
    kd_hm_limits_of(s, seat, &lim);
    switch (kd_type_rng_below(rng, 4)) {
    case 0:
        c.kind = KD_HM_CMD_RAISE;
        c.to = lim.min_to <= lim.max_to && lim.min_to > 1 && lim.min_to < lim.max_to
                   ? lim.min_to - 1
                   : s->bets[seat] + s->stacks[seat] + 1;
        break;
    case 1:
        c.kind = lim.can_check ? KD_HM_CMD_CALL : KD_HM_CMD_CHECK;
        break;
    case 2:
        c.kind = KD_HM_CMD_RAISE;
        c.to = s->bets[seat] + s->stacks[seat] + 1 + kd_type_rng_below(rng, 100);
        break;
    default:
        if (s->phase == KD_HM_CHECK)
            c.kind = KD_HM_CMD_RAISE; /* no bets at the check */
        else {
            c.kind = KD_HM_CMD_REVEAL; /* no hand secret before the check */
            for (size_t i = 0; i < sizeof c.secret; i++)
                c.secret[i] = (uint8_t)kd_type_rng_next(rng);
        }
        break;
    }
    return kd_hm_command_encode(&c, out);
}

/* ------------------------------------------------------------ secrets */

static kd_err secret_commit(int seat, const uint8_t seed[KD_SECRET_SEED_LEN],
                            const uint8_t binding[KD_SECRET_BINDING_LEN], json_t *params, char *why, size_t why_len)
{
    (void)seed; /* a seat commits to nothing but its binding: each hand's deck key comes with its proved shuffle */
    if (seat != 0 && seat != 1)
        return KD_ERR_UNSUPPORTED;
    if (!json_is_object(params))
        return bad_params(why, why_len, "hold'em params are a JSON object");
    char hex[2 * KD_SECRET_BINDING_LEN + 1];
    kd_hex_encode(binding, KD_SECRET_BINDING_LEN, hex);
    return json_object_set_new(params, binding_names[seat], json_string(hex)) ? KD_ERR_NOMEM : KD_OK;
}

static kd_err secret_binding(const void *state_ptr, int seat, uint8_t out[KD_SECRET_BINDING_LEN])
{
    const kd_hm_state *s = state_ptr;
    if (seat != 0 && seat != 1)
        return KD_ERR_UNSUPPORTED;
    memcpy(out, s->params.bindings[seat], KD_SECRET_BINDING_LEN);
    return KD_OK;
}

static kd_err secret_duty(const void *state, int seat, const uint8_t seed[KD_SECRET_SEED_LEN], kd_buf *command)
{
    return kd_hm_duty(state, seat, seed, command);
}

/* The seat's own hole cards (once dealt) and its best hand with the board. */
static json_t *secret_view(const void *state_ptr, int seat, const uint8_t seed[KD_SECRET_SEED_LEN])
{
    const kd_hm_state *s = state_ptr;
    uint8_t own[2];
    if ((seat != 0 && seat != 1) || kd_hm_own_cards(s, seat, seed, own) != 0)
        return json_pack("{s:n, s:s}", "hole", "note", "no hole cards dealt to this seat now");
    char a[3], b[3], value[48] = "";
    kd_hm_card_name(own[0], a);
    kd_hm_card_name(own[1], b);
    uint8_t cards[7] = {own[0], own[1]};
    size_t n = 2;
    for (int i = 0; i < KD_HM_BOARD; i++)
        if (s->board[i] != KD_HM_NO_CARD)
            cards[n++] = s->board[i];
    if (n >= 5)
        kd_hm_value_text(kd_hm_eval(cards, n), value, sizeof value);
    json_t *j = json_pack("{s:[s,s], s:I}", "hole", a, b, "hand", (json_int_t)s->hand);
    if (j && n >= 5)
        json_object_set_new(j, "best", json_string(value));
    return j;
}

const kd_episode_type kd_holdem_type = {
    .ops = &kd_hm_ops,
    .title = "Heads-up no-limit hold'em (no dealer)",
    .summary = KD_HM_RULES_TEXT " Seats: seat0 (first participant), seat1. Commands {\"call\": true}, "
                                "{\"raise\": 60}; the deck steps are made from each seat's key.",
    .min_seats = 2,
    .max_seats = 2,
    .seat_names = kd_hm_seat_names,
    .rule_codes = kd_hm_rule_codes,
    .params_schema = params_schema,
    .command_schema = command_schema,
    .params_from_json = params_from_json,
    .params_message = &kdapp__hm_params__descriptor,
    .command_from_json = command_from_json,
    .command_to_json = command_to_json,
    .status = status,
    .view_encode = kd_hm_view_encode,
    .view_json = kd_hm_view_json,
    .strategy_context = kd_hm_strategy_context,
    .render_text = kd_hm_render_text,
    .prompt = kd_hm_prompt,
    .legal_moves = kd_hm_legal_moves,
    .random_command = random_command,
    .bot_command = kd_hm_bot_command,
    .bot_max_depth = 1,
    .bot_secret_command = kd_hm_bot_secret_command,
    .secret_commit = secret_commit,
    .secret_binding = secret_binding,
    .secret_duty = secret_duty,
    .secret_view = secret_view,
    .seat_result = seat_result,
};
