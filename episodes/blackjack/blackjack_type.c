/*
 * blackjack_type.c — blackjack's entry in the type table (episode_type.h):
 * schemas and JSON for params and commands, status, legal moves, random
 * commands, and the house's secret (its VRF key's commitment and its
 * reveals).
 * The view and its renderings are blackjack_view.c's; the bot is
 * blackjack_bot.c's.
 *
 * Command JSON: {"action": "bet", "amount": N, "entropy": HEX64},
 * {"action": "hit"|"stand"|"double"|"split", "entropy": HEX64},
 * {"action": "reveal", "proof": HEX162}, {"action": "claim"}.
 */
#include <stdio.h>
#include <string.h>

#include "blackjack.pb-c.h"
#include "engine/crypto.h"
#include "episodes/blackjack/blackjack.h"
#include "episodes/house.h"

static const char *const seat_names[KD_MAX_PARTICIPANTS] = {"house",   "player1", "player2", "player3",
                                                            "player4", "player5", "player6", "player7"};

const char *const kd_bj_action_names[] = {"", "bet", "hit", "stand", "double", "split", "reveal", "claim"};

#define RULES_TEXT                                                                                                  \
    "Blackjack against the house (seat 0, the dealer), each player (seats 1..7) with its own chips and its own "    \
    "round. Bet to be dealt two cards and the dealer one; then hit, stand, double (two cards) or split (two cards " \
    "of one value, up to four hands; split aces take one card each). No hole card: the dealer's second card comes " \
    "after your hands; the dealer draws to 17 and stands on every 17. Blackjack pays 3:2, a win 1:1; a dealer "     \
    "blackjack beats every other hand. Every card is a draw of the house's VRF (its committed key) on your "        \
    "entropy, answered in the order the asks came; a house that misses its deadline loses the round to your "       \
    "claim."

const char kd_bj_rules_text[] = RULES_TEXT;

/* ------------------------------------------------------------- status */

static kd_game_status status(const void *state_ptr)
{
    const kd_bj_state *s = state_ptr;
    kd_game_status st = {KD_PHASE_IN_PROGRESS, KD_SEAT_NONE, KD_SEAT_NONE};
    if (!kd_bj_over(s)) {
        if (kd_bj_owed(s) >= 0) {
            st.to_move = KD_BJ_HOUSE;
            return st;
        }
        for (size_t i = 0; i < s->n_players; i++)
            if (s->players[i].round.await == KD_BJ_PLAYER || kd_bj_can_bet(s, i)) {
                st.to_move = (int)i + 1;
                break;
            }
        return st;
    }
    /* Over: the house wins when it is ahead, else the richest player. */
    if (s->house_net == 0) {
        st.phase = KD_PHASE_DRAW;
        return st;
    }
    st.phase = KD_PHASE_WON;
    st.winner = KD_BJ_HOUSE;
    if (s->house_net < 0) {
        uint32_t best = 0;
        for (size_t i = 0; i < s->n_players; i++)
            if (st.winner == KD_BJ_HOUSE || s->players[i].chips > best) {
                best = s->players[i].chips;
                st.winner = (int)i + 1;
            }
    }
    return st;
}

/* ----------------------------------------------------------- JSON ⇄ bytes */

static const char params_schema[] =
    "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{"
    "\"decks\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":8,\"description\":\"decks in the shoe, default 6\"},"
    "\"timeout\":{\"type\":\"integer\",\"minimum\":100,\"maximum\":86400000,\"description\":\"DAA score the house "
    "has for each card before the player may claim the round, default 600, at least 100\"},"
    "\"stack\":{\"type\":\"integer\",\"minimum\":10,\"maximum\":15625000,\"description\":\"each player's chips at the "
    "start, default 1000\"},"
    "\"min_bet\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":15625000,\"description\":\"default 10\"},"
    "\"max_bet\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":15625000,\"description\":\"default 100\"},"
    "\"rounds\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":100000,\"description\":\"rounds each player may play, "
    "default 10\"},"
    "\"reveal_depth\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":864000,\"description\":\"the house's "
    "term: DAA score an ask's block must be deep before the house deals its cards (set by a gateway playing the "
    "house: 2 on the devnet, 100 on a Kaspa node; the claim deadline counts from there)\"},"
    "\"house_key\":{\"type\":\"string\",\"pattern\":\"^0[23][0-9a-fA-F]{64}$\",\"description\":\"the house's VRF "
    "key for the episode; set by whoever holds the house's key (the first participant): a gateway, kdapp commit\"},"
    "\"house_binding\":{\"type\":\"string\",\"pattern\":\"^[0-9a-fA-F]{64}$\",\"description\":\"what the house's "
    "key is bound to (set with house_key)\"}}}";

static const char command_schema[] =
    "{\"type\":\"object\",\"required\":[\"action\"],\"properties\":{"
    "\"action\":{\"type\":\"string\",\"enum\":[\"bet\",\"hit\",\"stand\",\"double\",\"split\",\"reveal\",\"claim\"]},"
    "\"amount\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":4294967295,\"description\":\"bet: the chips\"},"
    "\"entropy\":{\"type\":\"string\",\"pattern\":\"^[0-9a-fA-F]{64}$\",\"description\":\"bet, hit, stand, double, "
    "split: 32 bytes of your own randomness mixed into the cards the command asks for (required; a gateway may "
    "fill it when it is left out)\"},"
    "\"proof\":{\"type\":\"string\",\"pattern\":\"^[0-9a-fA-F]{162}$\",\"description\":\"reveal: the house's VRF "
    "proof for the next draw (made from its key; it answers the oldest ask waiting for a card)\"}}}";

/* 32 bytes from the hex member `name` of `obj`: 0, or -1 (missing or bad). */
static int hex32(const json_t *obj, const char *name, uint8_t out[32])
{
    const char *hex = json_string_value(json_object_get(obj, name));
    return hex && kd_hex_decode(hex, out, 32) == 0 ? 0 : -1;
}

/* A non-negative integer member below 2^32: 0, or -1. */
static int u32_member(const json_t *obj, const char *name, uint32_t *out)
{
    const json_t *v = json_object_get(obj, name);
    if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > (json_int_t)UINT32_MAX)
        return -1;
    *out = (uint32_t)json_integer_value(v);
    return 0;
}

static kd_err params_from_json(const json_t *params, kd_buf *out, char *why, size_t why_len)
{
    static const char *const names[] = {"decks", "timeout", "stack", "min_bet", "max_bet", "rounds", "reveal_depth"};
    kd_bj_params p;
    memset(&p, 0, sizeof p);
    p.draw_input = KD_FAIR_DRAW_V3; /* every creation made from JSON */
    uint32_t *fields[] = {&p.decks, &p.timeout, &p.stack, &p.min_bet, &p.max_bet, &p.rounds, &p.reveal_depth};
    if (params && !json_is_object(params)) {
        kd_reject_write(why, why_len, "blackjack params are a JSON object");
        return KD_ERR_BAD_PARAMS;
    }
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)params, key, v)
    {
        size_t i = 0;
        while (i < 7 && strcmp(key, names[i]) != 0)
            i++;
        if (i < 7 && u32_member(params, key, fields[i]) != 0) {
            kd_reject_write(why, why_len, "params.%s must be a non-negative integer", key);
            return KD_ERR_BAD_PARAMS;
        }
        if (i == 7 && strcmp(key, "house_key") != 0 && strcmp(key, "house_binding") != 0) {
            kd_reject_write(why, why_len,
                            "params.%.40s is not a blackjack param (decks, timeout, stack, min_bet, max_bet, rounds, "
                            "reveal_depth, house_key, house_binding)",
                            key);
            return KD_ERR_BAD_PARAMS;
        }
    }
    const char *key_hex = params ? json_string_value(json_object_get(params, "house_key")) : NULL;
    if (!key_hex || strlen(key_hex) != 2 * KD_PUBKEY_LEN ||
        kd_hex_decode(key_hex, p.house_key.bytes, KD_PUBKEY_LEN) != 0 ||
        hex32(params, "house_binding", p.house_binding) != 0) {
        kd_reject_write(why, why_len,
                        "params.house_key (66 hex digits, the house's VRF key) and params.house_binding (64 hex) are "
                        "required: whoever holds the house's key (the first participant) sets them");
        return KD_ERR_BAD_PARAMS;
    }
    return kd_bj_params_encode(&p, out);
}

static kd_err command_from_json(const json_t *command, int seat, kd_buf *out, char *why, size_t why_len)
{
    (void)seat; /* the signer says who acts */
    kd_bj_command c;
    memset(&c, 0, sizeof c);
    const char *action = json_string_value(json_object_get(command, "action"));
    for (int i = KD_BJ_CMD_BET; action && i <= KD_BJ_CMD_CLAIM; i++)
        if (strcmp(action, kd_bj_action_names[i]) == 0)
            c.action = (kd_bj_action)i;
    if (!c.action) {
        kd_reject_write(why, why_len,
                        "a blackjack command is {\"action\": \"bet\"|\"hit\"|\"stand\"|\"double\"|\"split\"|"
                        "\"reveal\"|\"claim\", ...}");
        return KD_ERR_BAD_COMMAND;
    }
    if (c.action == KD_BJ_CMD_BET && u32_member(command, "amount", &c.amount) != 0) {
        kd_reject_write(why, why_len, "a bet needs \"amount\": the chips, a non-negative integer");
        return KD_ERR_BAD_COMMAND;
    }
    if (c.action <= KD_BJ_CMD_SPLIT && hex32(command, "entropy", c.entropy) != 0) {
        kd_reject_write(why, why_len,
                        "%s needs \"entropy\": 64 hex digits of your own randomness for the cards it asks for",
                        kd_bj_action_names[c.action]);
        return KD_ERR_BAD_COMMAND;
    }
    const char *proof = json_string_value(json_object_get(command, "proof"));
    if (c.action == KD_BJ_CMD_REVEAL &&
        (!proof || strlen(proof) != 2 * KD_VRF_PROOF_LEN || kd_hex_decode(proof, c.proof, KD_VRF_PROOF_LEN) != 0)) {
        kd_reject_write(why, why_len, "a reveal is {\"action\": \"reveal\", \"proof\": %d hex digits}",
                        2 * KD_VRF_PROOF_LEN);
        return KD_ERR_BAD_COMMAND;
    }
    return kd_bj_command_encode(&c, out);
}

static json_t *command_to_json(const uint8_t *command, size_t len)
{
    kd_bj_command c;
    if (kd_bj_command_decode(command, len, &c, NULL) != KD_OK)
        return NULL;
    json_t *j = json_pack("{s:s}", "action", kd_bj_action_names[c.action]);
    char hex[2 * KD_VRF_PROOF_LEN + 1];
    if (j && c.action == KD_BJ_CMD_BET)
        json_object_set_new(j, "amount", json_integer(c.amount));
    if (j && c.action <= KD_BJ_CMD_SPLIT) {
        kd_hex_encode(c.entropy, 32, hex);
        json_object_set_new(j, "entropy", json_string(hex));
    }
    if (j && c.action == KD_BJ_CMD_REVEAL) {
        kd_hex_encode(c.proof, KD_VRF_PROOF_LEN, hex);
        json_object_set_new(j, "proof", json_string(hex));
    }
    return j;
}

/* ------------------------------------------------------------------ moves */

void kd_bj_listed_entropy(const kd_bj_state *s, int seat, kd_bj_action action, uint8_t out[KD_FAIR_ENTROPY_LEN])
{
    uint8_t buf[32];
    memcpy(buf, "kdapp-blackjack-listed-v1", 25);
    buf[25] = (uint8_t)seat;
    buf[26] = (uint8_t)action;
    kd_put_u32be(&buf[27], (uint32_t)s->seq);
    buf[31] = (uint8_t)(s->seq >> 32);
    kd_sha256(buf, sizeof buf, out);
}

static kd_err push(const kd_bj_state *s, int seat, kd_bj_action action, uint32_t amount, kd_legal_moves *out)
{
    kd_bj_command c;
    memset(&c, 0, sizeof c);
    c.action = action;
    c.amount = amount;
    kd_bj_listed_entropy(s, seat, action, c.entropy);
    kd_buf b;
    kd_buf_init(&b);
    kd_err err = kd_bj_command_encode(&c, &b);
    char notation[KD_NOTATION_MAX];
    if (action == KD_BJ_CMD_BET)
        snprintf(notation, sizeof notation, "bet %u", (unsigned)amount);
    else
        snprintf(notation, sizeof notation, "%s", kd_bj_action_names[action]);
    if (!err)
        err = kd_legal_moves_push(out, b.data, b.len, notation);
    kd_buf_fini(&b);
    return err;
}

/* The actions open to the active hand of a round awaiting the player. */
static void open_actions(const kd_bj_state *s, const kd_bj_player *p, int *can_double, int *can_split)
{
    const kd_bj_round *r = &p->round;
    const kd_bj_hand *h = &r->hands[r->active];
    (void)s;
    *can_double = h->n == 2 && p->chips >= h->bet;
    *can_split = h->n == 2 && kd_bj_card_value(h->cards[0]) == kd_bj_card_value(h->cards[1]) &&
                 r->n_hands < KD_BJ_HANDS_MAX && p->chips >= h->bet;
}

/* The bets listed: the minimum, doubles of it and the maximum the chips allow. */
static size_t listed_bets(const kd_bj_state *s, const kd_bj_player *p, uint32_t bets[8])
{
    uint32_t top = s->params.max_bet < p->chips ? s->params.max_bet : p->chips;
    size_t n = 0;
    for (uint64_t b = s->params.min_bet; b < top && n < 7; b *= 2)
        bets[n++] = (uint32_t)b;
    bets[n++] = top;
    return n;
}

kd_err kd_bj_legal_moves(const void *state_ptr, int seat, kd_legal_moves *out)
{
    const kd_bj_state *s = state_ptr;
    if (seat < 1 || seat > s->n_players || kd_bj_over(s))
        return KD_OK; /* the house owes reveals (secret_duty), never a choice */
    const kd_bj_player *p = &s->players[seat - 1];
    kd_err err = KD_OK;
    if (kd_bj_can_bet(s, (size_t)seat - 1)) {
        uint32_t bets[8];
        size_t n = listed_bets(s, p, bets);
        for (size_t i = 0; !err && i < n; i++)
            err = push(s, seat, KD_BJ_CMD_BET, bets[i], out);
    } else if (p->round.await == KD_BJ_PLAYER) {
        int dbl, spl;
        open_actions(s, p, &dbl, &spl);
        err = push(s, seat, KD_BJ_CMD_HIT, 0, out);
        if (!err)
            err = push(s, seat, KD_BJ_CMD_STAND, 0, out);
        if (!err && dbl)
            err = push(s, seat, KD_BJ_CMD_DOUBLE, 0, out);
        if (!err && spl)
            err = push(s, seat, KD_BJ_CMD_SPLIT, 0, out);
    }
    return err;
}

static void random_entropy(uint64_t *rng, uint8_t out[32])
{
    for (size_t i = 0; i < 32; i += 8) {
        uint64_t v = kd_type_rng_next(rng);
        memcpy(out + i, &v, 8);
    }
}

/*
 * Legal: one of the seat's actions, with fresh entropy (bets uniform in
 * range). Illegal: the house reveals a proof that does not verify
 * (bad_proof) or while nothing is owed (nothing_owed); a player bets during its round
 * (round_in_progress) or beyond the maximum (bet_out_of_range), or hits
 * while the house owes a card (awaiting_house) or with no round (no_round).
 */
static kd_err random_command(const void *state_ptr, int seat, int legal, uint64_t *rng, kd_buf *out)
{
    const kd_bj_state *s = state_ptr;
    kd_bj_command c;
    memset(&c, 0, sizeof c);
    random_entropy(rng, c.entropy);
    if (seat < 0 || seat > s->n_players)
        return KD_ERR_NO_MOVE;
    if (legal) {
        if (seat == KD_BJ_HOUSE || kd_bj_over(s))
            return KD_ERR_NO_MOVE; /* the house's moves are its duties */
        const kd_bj_player *p = &s->players[seat - 1];
        if (kd_bj_can_bet(s, (size_t)seat - 1)) {
            uint32_t top = s->params.max_bet < p->chips ? s->params.max_bet : p->chips;
            c.action = KD_BJ_CMD_BET;
            c.amount = s->params.min_bet + kd_type_rng_below(rng, top - s->params.min_bet + 1);
        } else if (p->round.await == KD_BJ_PLAYER) {
            int dbl, spl;
            open_actions(s, p, &dbl, &spl);
            kd_bj_action pool[4] = {KD_BJ_CMD_HIT, KD_BJ_CMD_STAND};
            uint32_t n = 2;
            if (dbl)
                pool[n++] = KD_BJ_CMD_DOUBLE;
            if (spl)
                pool[n++] = KD_BJ_CMD_SPLIT;
            c.action = pool[kd_type_rng_below(rng, n)];
        } else {
            return KD_ERR_NO_MOVE;
        }
        return kd_bj_command_encode(&c, out);
    }
    if (seat == KD_BJ_HOUSE) {
        c.action = KD_BJ_CMD_REVEAL;
        for (size_t i = 0; i < KD_VRF_PROOF_LEN; i++)
            c.proof[i] = (uint8_t)kd_type_rng_next(rng); /* not a proof of anything */
        return kd_bj_command_encode(&c, out);
    }
    const kd_bj_round *r = &s->players[seat - 1].round;
    if (r->await == KD_BJ_IDLE && kd_type_rng_below(rng, 2)) {
        c.action = KD_BJ_CMD_BET;
        c.amount = s->params.max_bet + 1 + kd_type_rng_below(rng, 100);
    } else if (r->await == KD_BJ_PLAYER) {
        c.action = KD_BJ_CMD_BET;
        c.amount = s->params.min_bet;
    } else {
        c.action = KD_BJ_CMD_HIT;
    }
    return kd_bj_command_encode(&c, out);
}

/* ------------------------------------------------------------ secrets */

static kd_err secret_commit(int seat, const uint8_t seed[KD_SECRET_SEED_LEN],
                            const uint8_t binding[KD_SECRET_BINDING_LEN], json_t *params, char *why, size_t why_len)
{
    /* the same members as the chance games' house: house_key, house_binding */
    return seat == KD_BJ_HOUSE ? kd_house_commit_json(seed, binding, params, why, why_len) : KD_ERR_UNSUPPORTED;
}

static kd_err secret_binding(const void *state_ptr, int seat, uint8_t out[KD_SECRET_BINDING_LEN])
{
    const kd_bj_state *s = state_ptr;
    if (seat != KD_BJ_HOUSE)
        return KD_ERR_UNSUPPORTED;
    memcpy(out, s->params.house_binding, KD_SECRET_BINDING_LEN);
    return KD_OK;
}

/* The house's proof for the next draw, for the round whose ask came first;
 * KD_ERR_NO_MOVE when none waits. */
static kd_err secret_duty(const void *state_ptr, int seat, const uint8_t seed[KD_SECRET_SEED_LEN], kd_buf *command)
{
    const kd_bj_state *s = state_ptr;
    int owed = kd_bj_owed(s);
    if (seat != KD_BJ_HOUSE || owed < 0)
        return KD_ERR_NO_MOVE;
    kd_bj_command c;
    memset(&c, 0, sizeof c);
    c.action = KD_BJ_CMD_REVEAL;
    kd_err err = kd_fair_prove(seed, s->params.draw_input, s->episode_id, s->draws + 1,
                               s->players[owed].round.pending.ask, c.proof);
    return err ? err : kd_bj_command_encode(&c, command);
}

/* The DAA score from which the house reveals the next card: its ask's
 * block + reveal_depth (kd_bj_due); 0 when nothing is owed. */
static uint64_t duty_due(const void *state_ptr, int seat)
{
    const kd_bj_state *s = state_ptr;
    int owed = kd_bj_owed(s);
    return seat == KD_BJ_HOUSE && owed >= 0 ? kd_bj_due(s, (size_t)owed) : 0;
}

/* ------------------------------------------------------------- audit */

static int draw_of(const void *state, const uint8_t *command, size_t len, kd_fair_draw *draw)
{
    const kd_bj_state *s = state;
    kd_bj_command c;
    kd_reject rej;
    int owed = kd_bj_owed(s);
    if (owed < 0 || kd_bj_command_decode(command, len, &c, &rej) != KD_OK || c.action != KD_BJ_CMD_REVEAL)
        return 0;
    draw->key = s->params.house_key;
    draw->episode_id = s->episode_id;
    draw->index = s->draws + 1;
    draw->version = s->params.draw_input;
    memcpy(draw->ask, s->players[owed].round.pending.ask, KD_FAIR_ASK_LEN);
    memcpy(draw->proof, c.proof, KD_VRF_PROOF_LEN);
    return 1;
}

static json_t *draw_outcome(const void *state, kd_fair_stream *stream)
{
    kd_bj_state s;
    memcpy(&s, state, sizeof s);
    int owed = kd_bj_owed(&s);
    unsigned left = s.shoe_left;
    uint8_t card = kd_bj_draw_card(&s, stream);
    char text[4], seat[24];
    kd_bj_card_text(card, text);
    snprintf(seat, sizeof seat, "player%d", owed + 1);
    unsigned from = left ? left : s.shoe_left + 1u; /* the cards it was drawn from */
    return json_pack("{s:s, s:s, s:i, s:b}", "to", seat, "card", text, "cards_left", (int)from, "shoe_refilled",
                     left == 0);
}

/* The house's terms (episode_type.h): each player's stack, the bets, the
 * rounds, the dealer's time for each card. */
static const kd_house_term house_terms[] = {
    {"stack", NULL, "each player's chips at the start", 1, 10000},
    {"min_bet", NULL, "the smallest bet", 1, 1000},
    {"max_bet", NULL, "the largest bet", 1, 1000},
    {"rounds", NULL, "rounds each player may play", 1, 100},
    {"timeout", NULL, "DAA score the house has for each card", KD_HOUSE_TIMEOUT_TERM_MIN, KD_BJ_TIMEOUT_MAX},
    {NULL, NULL, NULL, 0, 0},
};

const kd_episode_type kd_blackjack_type = {
    .ops = &kd_bj_ops,
    .title = "Blackjack",
    .summary = RULES_TEXT " Seats: house (first participant), then player1..player7. Commands: {\"action\": "
                          "\"bet\", \"amount\": N, \"entropy\": HEX64}, {\"action\": \"hit\"|\"stand\"|\"double\"|"
                          "\"split\", \"entropy\": HEX64}, {\"action\": \"claim\"}; the house: {\"action\": "
                          "\"reveal\", \"proof\": HEX162}.",
    .min_seats = 2,
    .max_seats = KD_MAX_PARTICIPANTS,
    .seat_names = seat_names,
    .rule_codes = kd_bj_rule_codes,
    .params_schema = params_schema,
    .command_schema = command_schema,
    .params_from_json = params_from_json,
    .params_message = &kdapp__bj_params__descriptor,
    .command_from_json = command_from_json,
    .command_to_json = command_to_json,
    .status = status,
    .view_encode = kd_bj_view_encode,
    .view_json = kd_bj_view_json,
    .strategy_context = kd_bj_strategy_context,
    .render_text = kd_bj_render_text,
    .prompt = kd_bj_prompt,
    .legal_moves = kd_bj_legal_moves,
    .random_command = random_command,
    .bot_command = kd_bj_bot_command,
    .bot_max_depth = 1,
    .secret_commit = secret_commit,
    .secret_binding = secret_binding,
    .secret_duty = secret_duty,
    .duty_due = duty_due,
    .draw_of = draw_of,
    .draw_outcome = draw_outcome,
    .house_seats = 1u << KD_BJ_HOUSE,
    .house_terms = house_terms,
};
