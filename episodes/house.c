/*
 * house.c — the pending draw of a chance game's house (house.h): ask,
 * reveal, claim, their undo, their encodings, the commit and the params.
 */
#include "episodes/house.h"

#include <string.h>

#include "chance.pb-c.h"

void kd_house_init(kd_house *house, const uint8_t commit[KD_FAIR_LINK_LEN], uint32_t length, uint32_t timeout)
{
    memset(house, 0, sizeof *house);
    kd_fair_chain_init(&house->chain, commit, length);
    house->timeout = timeout;
}

kd_err kd_house_ask(kd_house *house, int seat, const uint8_t entropy[KD_FAIR_ENTROPY_LEN], uint64_t daa,
                    kd_house_undo *undo, kd_reject *rej)
{
    if (house->pending)
        return kd_reject_rule(rej, "draw_pending",
                              "a draw is waiting for the house's reveal (or a claim after DAA %llu)",
                              (unsigned long long)kd_house_deadline(house));
    if (house->chain.revealed >= house->chain.length)
        return kd_reject_rule(rej, "chain_exhausted", "the house's chain of %u links is spent: no draw is left",
                              (unsigned)house->chain.length);
    memset(undo, 0, sizeof *undo);
    undo->kind = KD_HOUSE_OP_ASK;
    house->pending = 1;
    house->asker = (uint8_t)seat;
    memcpy(house->entropy, entropy, KD_FAIR_ENTROPY_LEN);
    house->asked_daa = daa;
    return KD_OK;
}

/* Keeps the pending draw's fields in `undo` and clears them. */
static void settle(kd_house *house, kd_house_op kind, kd_house_undo *undo)
{
    memset(undo, 0, sizeof *undo);
    undo->kind = (uint8_t)kind;
    memcpy(undo->prev_head, house->chain.head, KD_FAIR_LINK_LEN);
    undo->asker = house->asker;
    memcpy(undo->entropy, house->entropy, KD_FAIR_ENTROPY_LEN);
    undo->asked_daa = house->asked_daa;
    house->pending = 0;
    house->asker = 0;
    memset(house->entropy, 0, sizeof house->entropy);
    house->asked_daa = 0;
}

kd_err kd_house_reveal(kd_house *house, const uint8_t link[KD_FAIR_LINK_LEN], uint32_t episode_id,
                       uint8_t draw[KD_HASH_LEN], kd_house_undo *undo, kd_reject *rej)
{
    if (!house->pending)
        return kd_reject_rule(rej, "no_draw_pending", "no draw is waiting for a reveal");
    if (!kd_fair_chain_next_ok(&house->chain, link))
        return kd_reject_rule(rej, "wrong_link", "SHA-256 of the revealed link is not the chain's head (link %u)",
                              (unsigned)house->chain.revealed + 1);
    kd_fair_draw(link, house->entropy, episode_id, house->chain.revealed + 1, draw);
    settle(house, KD_HOUSE_OP_REVEAL, undo);
    kd_fair_chain_advance(&house->chain, link);
    return KD_OK;
}

uint64_t kd_house_deadline(const kd_house *house) { return house->asked_daa + house->timeout; }

kd_err kd_house_claim(kd_house *house, int seat, uint64_t daa, kd_house_undo *undo, kd_reject *rej)
{
    if (!house->pending)
        return kd_reject_rule(rej, "no_draw_pending", "no draw is waiting: there is nothing to claim");
    if (seat != house->asker)
        return kd_reject_rule(rej, "not_the_asker", "only the seat that asked for the draw may claim it");
    if (daa < kd_house_deadline(house))
        return kd_reject_rule(rej, "deadline_not_passed",
                              "the house may reveal until DAA score %llu; this block is at %llu",
                              (unsigned long long)kd_house_deadline(house), (unsigned long long)daa);
    settle(house, KD_HOUSE_OP_CLAIM, undo);
    return KD_OK;
}

kd_err kd_house_rollback(kd_house *house, const kd_house_undo *undo)
{
    switch (undo->kind) {
    case KD_HOUSE_OP_ASK:
        if (!house->pending)
            return KD_ERR_DECODE;
        house->pending = 0;
        house->asker = 0;
        memset(house->entropy, 0, sizeof house->entropy);
        house->asked_daa = 0;
        return KD_OK;
    case KD_HOUSE_OP_REVEAL: {
        uint8_t h[KD_HASH_LEN];
        kd_sha256(house->chain.head, KD_FAIR_LINK_LEN, h);
        if (house->pending || house->chain.revealed == 0 || memcmp(h, undo->prev_head, KD_HASH_LEN) != 0)
            return KD_ERR_DECODE;
        memcpy(house->chain.head, undo->prev_head, KD_FAIR_LINK_LEN);
        house->chain.revealed--;
        break;
    }
    case KD_HOUSE_OP_CLAIM:
        if (house->pending || memcmp(house->chain.head, undo->prev_head, KD_FAIR_LINK_LEN) != 0)
            return KD_ERR_DECODE;
        break;
    default:
        return KD_ERR_DECODE;
    }
    house->pending = 1;
    house->asker = undo->asker;
    memcpy(house->entropy, undo->entropy, KD_FAIR_ENTROPY_LEN);
    house->asked_daa = undo->asked_daa;
    return KD_OK;
}

kd_err kd_house_owed_link(const kd_house *house, const uint8_t seed[KD_SECRET_SEED_LEN], uint8_t link[KD_FAIR_LINK_LEN])
{
    if (!house->pending || house->chain.revealed >= house->chain.length)
        return KD_ERR_NO_MOVE;
    return kd_fair_link(seed, house->chain.length, house->chain.revealed + 1, link);
}

/* ------------------------------------------------------------- params */

/* An integer member `name` of `params` in [lo, hi], or `dflt` when absent. */
static kd_err read_u32(const json_t *params, const char *name, uint32_t lo, uint32_t hi, uint32_t dflt, uint32_t *out,
                       char *why, size_t why_len)
{
    const json_t *v = json_object_get(params, name);
    *out = dflt;
    if (!v)
        return KD_OK;
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi) {
        kd_reject_write(why, why_len, "params: %s must be an integer from %u to %u", name, (unsigned)lo, (unsigned)hi);
        return KD_ERR_BAD_PARAMS;
    }
    *out = (uint32_t)json_integer_value(v);
    return KD_OK;
}

kd_err kd_house_commit_json(const uint8_t seed[KD_SECRET_SEED_LEN], json_t *params, char *why, size_t why_len)
{
    if (!json_is_object(params)) {
        kd_reject_write(why, why_len, "params must be a JSON object");
        return KD_ERR_BAD_PARAMS;
    }
    if (json_object_get(params, "house_commit"))
        return KD_OK; /* the caller committed itself */
    uint32_t length = 0;
    kd_err err = read_u32(params, "chain_length", 1, KD_FAIR_LENGTH_MAX, KD_FAIR_LENGTH_DEFAULT, &length, why, why_len);
    if (err)
        return err;
    uint8_t commit[KD_FAIR_LINK_LEN];
    char hex[2 * KD_FAIR_LINK_LEN + 1];
    if ((err = kd_fair_link(seed, length, 0, commit)))
        return err;
    kd_hex_encode(commit, sizeof commit, hex);
    if (json_object_set_new(params, "house_commit", json_string(hex)) != 0 ||
        json_object_set_new(params, "chain_length", json_integer(length)) != 0)
        return KD_ERR_NOMEM;
    return KD_OK;
}

kd_err kd_house_params_from_json(const json_t *params, uint8_t commit[KD_FAIR_LINK_LEN], uint32_t *length,
                                 uint32_t *timeout, char *why, size_t why_len)
{
    const json_t *c = json_is_object(params) ? json_object_get(params, "house_commit") : NULL;
    const char *hex = json_string_value(c);
    if (!hex || strlen(hex) != 2 * KD_FAIR_LINK_LEN || kd_hex_decode(hex, commit, KD_FAIR_LINK_LEN) != 0) {
        kd_reject_write(why, why_len,
                        "params: house_commit must be the house's chain head, 64 hex digits (the gateway adds it "
                        "when it holds the house's key)");
        return KD_ERR_BAD_PARAMS;
    }
    kd_err err = read_u32(params, "chain_length", 1, KD_FAIR_LENGTH_MAX, KD_FAIR_LENGTH_DEFAULT, length, why, why_len);
    if (!err)
        err = read_u32(params, "reveal_timeout", 1, KD_HOUSE_TIMEOUT_MAX, KD_HOUSE_TIMEOUT_DEFAULT, timeout, why,
                       why_len);
    return err;
}

kd_err kd_house_hex32_from_json(const json_t *j, const char *name, uint8_t out[32], char *why, size_t why_len)
{
    const char *hex = json_string_value(j);
    if (!hex || strlen(hex) != 64 || kd_hex_decode(hex, out, 32) != 0) {
        kd_reject_write(why, why_len, "%s must be 64 hex digits (32 bytes)", name);
        return KD_ERR_BAD_COMMAND;
    }
    return KD_OK;
}

void kd_house_public_entropy(const kd_house *house, uint32_t round, uint8_t out[KD_FAIR_ENTROPY_LEN])
{
    uint8_t b[KD_FAIR_LINK_LEN + 4];
    memcpy(b, house->chain.head, KD_FAIR_LINK_LEN);
    kd_put_u32be(b + KD_FAIR_LINK_LEN, round);
    kd_sha256(b, sizeof b, out);
}

/* ---------------------------------------------------------- encodings */

void kd_house_encode(const kd_house *house, uint8_t out[KD_HOUSE_ENCODED_LEN])
{
    size_t n = 0;
    memcpy(out + n, house->chain.head, KD_FAIR_LINK_LEN);
    n += KD_FAIR_LINK_LEN;
    kd_put_u32be(out + n, house->chain.revealed);
    kd_put_u32be(out + n + 4, house->chain.length);
    kd_put_u32be(out + n + 8, house->timeout);
    n += 12;
    out[n++] = house->pending;
    out[n++] = house->asker;
    memcpy(out + n, house->entropy, KD_FAIR_ENTROPY_LEN);
    n += KD_FAIR_ENTROPY_LEN;
    kd_put_u64be(out + n, house->asked_daa);
}

static int all_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return 0;
    return 1;
}

kd_err kd_house_decode(const uint8_t in[KD_HOUSE_ENCODED_LEN], kd_house *house)
{
    kd_house h;
    memset(&h, 0, sizeof h);
    size_t n = 0;
    memcpy(h.chain.head, in, KD_FAIR_LINK_LEN);
    n += KD_FAIR_LINK_LEN;
    h.chain.revealed = kd_get_u32be(in + n);
    h.chain.length = kd_get_u32be(in + n + 4);
    h.timeout = kd_get_u32be(in + n + 8);
    n += 12;
    h.pending = in[n++];
    h.asker = in[n++];
    memcpy(h.entropy, in + n, KD_FAIR_ENTROPY_LEN);
    n += KD_FAIR_ENTROPY_LEN;
    h.asked_daa = kd_get_u64be(in + n);
    if (h.chain.length == 0 || h.chain.length > KD_FAIR_LENGTH_MAX || h.chain.revealed > h.chain.length ||
        h.timeout == 0 || h.timeout > KD_HOUSE_TIMEOUT_MAX || h.pending > 1 ||
        (!h.pending && (h.asker || h.asked_daa || !all_zero(h.entropy, sizeof h.entropy))))
        return KD_ERR_DECODE;
    *house = h;
    return KD_OK;
}

void kd_house_undo_encode(const kd_house_undo *undo, uint8_t out[KD_HOUSE_UNDO_LEN])
{
    out[0] = undo->kind;
    memcpy(out + 1, undo->prev_head, KD_FAIR_LINK_LEN);
    out[1 + KD_FAIR_LINK_LEN] = undo->asker;
    memcpy(out + 2 + KD_FAIR_LINK_LEN, undo->entropy, KD_FAIR_ENTROPY_LEN);
    kd_put_u64be(out + 2 + KD_FAIR_LINK_LEN + KD_FAIR_ENTROPY_LEN, undo->asked_daa);
}

kd_err kd_house_undo_decode(const uint8_t in[KD_HOUSE_UNDO_LEN], kd_house_undo *undo)
{
    kd_house_undo u;
    memset(&u, 0, sizeof u);
    u.kind = in[0];
    memcpy(u.prev_head, in + 1, KD_FAIR_LINK_LEN);
    u.asker = in[1 + KD_FAIR_LINK_LEN];
    memcpy(u.entropy, in + 2 + KD_FAIR_LINK_LEN, KD_FAIR_ENTROPY_LEN);
    u.asked_daa = kd_get_u64be(in + 2 + KD_FAIR_LINK_LEN + KD_FAIR_ENTROPY_LEN);
    if (u.kind < KD_HOUSE_OP_ASK || u.kind > KD_HOUSE_OP_CLAIM)
        return KD_ERR_DECODE;
    if (u.kind == KD_HOUSE_OP_ASK && (u.asker || u.asked_daa || !all_zero(u.prev_head, KD_FAIR_LINK_LEN) ||
                                      !all_zero(u.entropy, KD_FAIR_ENTROPY_LEN)))
        return KD_ERR_DECODE;
    *undo = u;
    return KD_OK;
}

/* --------------------------------------------------------------- views */

void kd_house_view_fill(const kd_house *house, Kdapp__HouseView *v)
{
    v->chain_head.data = (uint8_t *)house->chain.head;
    v->chain_head.len = KD_FAIR_LINK_LEN;
    v->revealed = house->chain.revealed;
    v->chain_length = house->chain.length;
    v->reveal_timeout = house->timeout;
    v->pending = house->pending != 0;
    if (house->pending) {
        v->asker = house->asker;
        v->entropy.data = (uint8_t *)house->entropy;
        v->entropy.len = KD_FAIR_ENTROPY_LEN;
        v->asked_daa = house->asked_daa;
    }
}

static json_t *hex_json(ProtobufCBinaryData b)
{
    char hex[2 * 64 + 1];
    if (b.len > 64)
        return json_null();
    kd_hex_encode(b.data, b.len, hex);
    return json_string(hex);
}

json_t *kd_house_view_json(const Kdapp__HouseView *v, const char *const *seat_names, size_t seats)
{
    if (!v)
        return NULL;
    json_t *pending = json_null();
    if (v->pending)
        pending = json_pack("{s:s, s:o, s:I, s:I}", "asker", v->asker < seats ? seat_names[v->asker] : "?", "entropy",
                            hex_json(v->entropy), "asked_daa", (json_int_t)v->asked_daa, "deadline_daa",
                            (json_int_t)(v->asked_daa + v->reveal_timeout));
    return json_pack("{s:o, s:I, s:I, s:I, s:o}", "chain_head", hex_json(v->chain_head), "revealed",
                     (json_int_t)v->revealed, "chain_length", (json_int_t)v->chain_length, "reveal_timeout",
                     (json_int_t)v->reveal_timeout, "pending", pending ? pending : json_null());
}
