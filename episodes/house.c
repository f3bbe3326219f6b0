/*
 * house.c — the pending draw of a chance game's house (house.h): ask,
 * reveal, claim, their undo, their encodings, the commitment and the params.
 */
#include "episodes/house.h"

#include <string.h>

#include "chance.pb-c.h"

void kd_house_init(kd_house *house, const kd_house_params *params, uint32_t episode_id)
{
    memset(house, 0, sizeof *house);
    house->episode_id = episode_id;
    house->timeout = params->timeout;
    house->depth = params->depth;
    house->draw_input = (uint8_t)params->draw_input;
    house->key = params->key;
    memcpy(house->binding, params->binding, KD_SECRET_BINDING_LEN);
}

kd_err kd_house_ask(kd_house *house, int seat, const uint8_t entropy[KD_FAIR_ENTROPY_LEN],
                    const uint8_t digest[KD_FAIR_ASK_LEN], uint64_t daa, kd_house_undo *undo, kd_reject *rej)
{
    if (house->pending)
        return kd_reject_rule(rej, "draw_pending",
                              "a draw is waiting for the house's reveal (or a claim after DAA %llu)",
                              (unsigned long long)kd_house_deadline(house));
    memset(undo, 0, sizeof *undo);
    undo->kind = KD_HOUSE_OP_ASK;
    house->pending = 1;
    house->asker = (uint8_t)seat;
    memcpy(house->ask, house->draw_input == KD_FAIR_DRAW_V2 ? entropy : digest, KD_FAIR_ASK_LEN);
    house->asked_daa = daa;
    return KD_OK;
}

/* Keeps the pending draw's fields in `undo` and clears them. */
static void settle(kd_house *house, kd_house_op kind, kd_house_undo *undo)
{
    memset(undo, 0, sizeof *undo);
    undo->kind = (uint8_t)kind;
    undo->asker = house->asker;
    memcpy(undo->ask, house->ask, KD_FAIR_ASK_LEN);
    undo->asked_daa = house->asked_daa;
    house->pending = 0;
    house->asker = 0;
    memset(house->ask, 0, sizeof house->ask);
    house->asked_daa = 0;
}

kd_err kd_house_reveal(kd_house *house, const uint8_t proof[KD_VRF_PROOF_LEN], uint8_t draw[KD_HASH_LEN],
                       kd_house_undo *undo, kd_reject *rej)
{
    if (!house->pending)
        return kd_reject_rule(rej, "no_draw_pending", "no draw is waiting for a reveal");
    kd_err err =
        kd_fair_verify(&house->key, house->draw_input, house->episode_id, house->draws + 1, house->ask, proof, draw);
    if (err == KD_ERR_BAD_SIGNATURE || err == KD_ERR_BAD_PUBKEY)
        return kd_reject_rule(rej, "bad_proof",
                              "the proof does not verify for draw %u (this episode, the ask's %s) against the "
                              "house's key",
                              (unsigned)house->draws + 1, house->draw_input == KD_FAIR_DRAW_V2 ? "entropy" : "bytes");
    if (err)
        return kd_reject_say(rej, err, "the house's proof could not be checked: %s", kd_err_str(err));
    settle(house, KD_HOUSE_OP_REVEAL, undo);
    house->draws++;
    return KD_OK;
}

int kd_house_draw_of(const kd_house *house, const uint8_t proof[KD_VRF_PROOF_LEN], kd_fair_draw *out)
{
    if (!house->pending)
        return 0;
    out->key = house->key;
    out->episode_id = house->episode_id;
    out->index = house->draws + 1;
    out->version = house->draw_input;
    memcpy(out->ask, house->ask, KD_FAIR_ASK_LEN);
    memcpy(out->proof, proof, KD_VRF_PROOF_LEN);
    return 1;
}

uint64_t kd_house_due(const kd_house *house) { return house->asked_daa + house->depth; }

uint64_t kd_house_deadline(const kd_house *house) { return kd_house_due(house) + house->timeout; }

kd_err kd_house_claim(kd_house *house, int seat, uint64_t daa, kd_house_undo *undo, kd_reject *rej)
{
    if (!house->pending)
        return kd_reject_rule(rej, "no_draw_pending", "no draw is waiting: there is nothing to claim");
    if (seat != house->asker)
        return kd_reject_rule(rej, "not_the_asker", "only the seat that asked for the draw may claim it");
    if (daa < kd_house_deadline(house))
        return kd_reject_rule(rej, "too_early", "the house may reveal until DAA score %llu; this block is at %llu",
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
        memset(house->ask, 0, sizeof house->ask);
        house->asked_daa = 0;
        return KD_OK;
    case KD_HOUSE_OP_REVEAL:
        if (house->pending || house->draws == 0)
            return KD_ERR_DECODE;
        house->draws--;
        break;
    case KD_HOUSE_OP_CLAIM:
        if (house->pending)
            return KD_ERR_DECODE;
        break;
    default:
        return KD_ERR_DECODE;
    }
    house->pending = 1;
    house->asker = undo->asker;
    memcpy(house->ask, undo->ask, KD_FAIR_ASK_LEN);
    house->asked_daa = undo->asked_daa;
    return KD_OK;
}

kd_err kd_house_rollback_command(kd_house *house, unsigned kind, const kd_house_undo *undo)
{
    static const uint8_t op[4] = {KD_HOUSE_OP_NONE, KD_HOUSE_OP_ASK, KD_HOUSE_OP_REVEAL, KD_HOUSE_OP_CLAIM};
    if (kind < KD_HOUSE_CMD_ASK || kind > KD_HOUSE_CMD_CLAIM || undo->kind != op[kind])
        return KD_ERR_DECODE;
    return kd_house_rollback(house, undo);
}

kd_err kd_house_owed_proof(const kd_house *house, const uint8_t seed[KD_SECRET_SEED_LEN],
                           uint8_t proof[KD_VRF_PROOF_LEN])
{
    if (!house->pending)
        return KD_ERR_NO_MOVE;
    return kd_fair_prove(seed, house->draw_input, house->episode_id, house->draws + 1, house->ask, proof);
}

/* ------------------------------------------------------------- params */

static kd_err timeout_ok(uint32_t timeout, char *why, size_t why_len)
{
    if (timeout >= KD_DEADLINE_MIN && timeout <= KD_HOUSE_TIMEOUT_MAX)
        return KD_OK;
    kd_reject_write(why, why_len,
                    "params: reveal_timeout %u is outside %u..%u DAA score (the rules' floor under every deadline is "
                    "%u: 10 s at 10 blocks a second)",
                    (unsigned)timeout, KD_DEADLINE_MIN, KD_HOUSE_TIMEOUT_MAX, KD_DEADLINE_MIN);
    return KD_ERR_BAD_PARAMS;
}

static kd_err depth_ok(uint32_t depth, char *why, size_t why_len)
{
    if (depth <= KD_HOUSE_DEPTH_MAX)
        return KD_OK;
    kd_reject_write(why, why_len, "params: reveal_depth %u is over %u DAA score (a day)", (unsigned)depth,
                    KD_HOUSE_DEPTH_MAX);
    return KD_ERR_BAD_PARAMS;
}

kd_err kd_house_terms_from_pb(uint32_t draw_input, uint32_t depth, uint32_t *version, kd_reject *rej)
{
    *version = draw_input ? draw_input : KD_FAIR_DRAW_V2;
    if (*version != KD_FAIR_DRAW_V2 && *version != KD_FAIR_DRAW_V3)
        return kd_reject_say(rej, KD_ERR_BAD_PARAMS,
                             "params: draw_input %u is not a version of the draws' input (3; 0 or 2 for the input of "
                             "creations made before issue 37)",
                             (unsigned)draw_input);
    if (*version == KD_FAIR_DRAW_V2 && depth)
        return kd_reject_say(rej, KD_ERR_BAD_PARAMS, "params: a reveal_depth needs draw_input 3");
    char why[KD_REJECT_DETAIL_MAX];
    if (depth_ok(depth, why, sizeof why) != KD_OK)
        return kd_reject_say(rej, KD_ERR_BAD_PARAMS, "%s", why);
    return KD_OK;
}

uint32_t kd_house_draw_input_pb(uint32_t version) { return version == KD_FAIR_DRAW_V2 ? 0 : version; }

kd_err kd_house_terms_json(json_t *params, uint32_t depth, char *why, size_t why_len)
{
    if (!json_is_object(params)) {
        kd_reject_write(why, why_len, "params must be a JSON object");
        return KD_ERR_BAD_PARAMS;
    }
    kd_err err = depth_ok(depth, why, why_len);
    if (!err && json_object_set_new(params, "reveal_depth", json_integer(depth)) != 0)
        err = KD_ERR_NOMEM;
    return err;
}

kd_err kd_house_commit_json(const uint8_t seed[KD_SECRET_SEED_LEN], const uint8_t binding[KD_SECRET_BINDING_LEN],
                            json_t *params, char *why, size_t why_len)
{
    if (!json_is_object(params)) {
        kd_reject_write(why, why_len, "params must be a JSON object");
        return KD_ERR_BAD_PARAMS;
    }
    kd_pubkey key;
    kd_err err = kd_fair_house_key(seed, &key);
    if (err)
        return err;
    char key_hex[2 * KD_PUBKEY_LEN + 1], binding_hex[2 * KD_SECRET_BINDING_LEN + 1];
    kd_hex_encode(key.bytes, KD_PUBKEY_LEN, key_hex);
    kd_hex_encode(binding, KD_SECRET_BINDING_LEN, binding_hex);
    if (json_object_set_new(params, "house_key", json_string(key_hex)) != 0 ||
        json_object_set_new(params, "house_binding", json_string(binding_hex)) != 0)
        return KD_ERR_NOMEM;
    return KD_OK;
}

kd_err kd_house_params_from_json(const json_t *params, kd_house_params *out, char *why, size_t why_len)
{
    memset(out, 0, sizeof *out);
    const json_t *k = json_is_object(params) ? json_object_get(params, "house_key") : NULL;
    const json_t *b = json_is_object(params) ? json_object_get(params, "house_binding") : NULL;
    const json_t *t = json_is_object(params) ? json_object_get(params, "reveal_timeout") : NULL;
    const json_t *d = json_is_object(params) ? json_object_get(params, "reveal_depth") : NULL;
    const char *hex = json_string_value(k);
    if (!hex || strlen(hex) != 2 * KD_PUBKEY_LEN || kd_hex_decode(hex, out->key.bytes, KD_PUBKEY_LEN) != 0 ||
        kd_pubkey_check(&out->key) != KD_OK) {
        kd_reject_write(why, why_len,
                        "params: house_key must be the house's VRF public key, 66 hex digits (set by whoever holds "
                        "the house's key: a gateway, kdapp commit)%s",
                        hex ? "; this one is not a valid compressed point" : "");
        return KD_ERR_BAD_PARAMS;
    }
    hex = json_string_value(b);
    if (!hex || strlen(hex) != 2 * KD_SECRET_BINDING_LEN ||
        kd_hex_decode(hex, out->binding, KD_SECRET_BINDING_LEN) != 0) {
        kd_reject_write(why, why_len, "params: house_binding must be 64 hex digits (set with house_key)");
        return KD_ERR_BAD_PARAMS;
    }
    out->timeout = KD_HOUSE_TIMEOUT_DEFAULT;
    if (t) {
        if (!json_is_integer(t) || json_integer_value(t) < 0 || json_integer_value(t) > KD_HOUSE_TIMEOUT_MAX) {
            kd_reject_write(why, why_len, "params: reveal_timeout must be an integer from %u to %u (DAA score)",
                            KD_DEADLINE_MIN, KD_HOUSE_TIMEOUT_MAX);
            return KD_ERR_BAD_PARAMS;
        }
        out->timeout = (uint32_t)json_integer_value(t);
    }
    out->draw_input = KD_FAIR_DRAW_V3;
    if (d) {
        if (!json_is_integer(d) || json_integer_value(d) < 0 || json_integer_value(d) > KD_HOUSE_DEPTH_MAX) {
            kd_reject_write(why, why_len, "params: reveal_depth must be an integer from 0 to %u (DAA score)",
                            KD_HOUSE_DEPTH_MAX);
            return KD_ERR_BAD_PARAMS;
        }
        out->depth = (uint32_t)json_integer_value(d);
    }
    return timeout_ok(out->timeout, why, why_len);
}

void kd_house_params_to_pb(const kd_house_params *p, Kdapp__HouseParams *m)
{
    m->key.data = (uint8_t *)p->key.bytes;
    m->key.len = KD_PUBKEY_LEN;
    m->binding.data = (uint8_t *)p->binding;
    m->binding.len = KD_SECRET_BINDING_LEN;
    m->reveal_timeout = p->timeout;
    m->draw_input = kd_house_draw_input_pb(p->draw_input);
    m->reveal_depth = p->depth;
}

kd_err kd_house_params_from_pb(const Kdapp__HouseParams *m, kd_house_params *p, kd_reject *rej)
{
    memset(p, 0, sizeof *p);
    if (!m || m->key.len != KD_PUBKEY_LEN || m->binding.len != KD_SECRET_BINDING_LEN)
        return kd_reject_say(rej, KD_ERR_BAD_PARAMS,
                             "params: the house's key (33 bytes) and binding (32 bytes) are required");
    memcpy(p->key.bytes, m->key.data, KD_PUBKEY_LEN);
    if (kd_pubkey_check(&p->key) != KD_OK)
        return kd_reject_say(rej, KD_ERR_BAD_PARAMS, "params: the house's key is not a valid compressed point");
    memcpy(p->binding, m->binding.data, KD_SECRET_BINDING_LEN);
    p->timeout = m->reveal_timeout ? m->reveal_timeout : KD_HOUSE_TIMEOUT_DEFAULT;
    p->depth = m->reveal_depth;
    kd_err err = kd_house_terms_from_pb(m->draw_input, m->reveal_depth, &p->draw_input, rej);
    if (err)
        return err;
    char why[KD_REJECT_DETAIL_MAX];
    if (timeout_ok(p->timeout, why, sizeof why) != KD_OK)
        return kd_reject_say(rej, KD_ERR_BAD_PARAMS, "%s", why);
    return KD_OK;
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

kd_err kd_house_proof_from_json(const json_t *j, uint8_t out[KD_VRF_PROOF_LEN], char *why, size_t why_len)
{
    const char *hex = json_string_value(j);
    if (!hex || strlen(hex) != 2 * KD_VRF_PROOF_LEN || kd_hex_decode(hex, out, KD_VRF_PROOF_LEN) != 0) {
        kd_reject_write(why, why_len, "reveal must be the house's VRF proof, %d hex digits (%d bytes)",
                        2 * KD_VRF_PROOF_LEN, KD_VRF_PROOF_LEN);
        return KD_ERR_BAD_COMMAND;
    }
    return KD_OK;
}

kd_err kd_house_command_from_json(const json_t *command, const char *ask, const char *usage, unsigned *kind,
                                  uint8_t proof[KD_VRF_PROOF_LEN], char *why, size_t why_len)
{
    const json_t *a = json_object_get(command, ask), *reveal = json_object_get(command, "reveal"),
                 *claim = json_object_get(command, "claim");
    *kind = 0;
    if (!json_is_object(command) || (!!a + !!reveal + !!claim) != 1) {
        kd_reject_write(why, why_len, "%s", usage);
        return KD_ERR_BAD_COMMAND;
    }
    if (a) {
        *kind = KD_HOUSE_CMD_ASK;
        return KD_OK;
    }
    if (reveal) {
        *kind = KD_HOUSE_CMD_REVEAL;
        return kd_house_proof_from_json(reveal, proof, why, why_len);
    }
    if (!json_is_true(claim)) {
        kd_reject_write(why, why_len, "claim must be true");
        return KD_ERR_BAD_COMMAND;
    }
    *kind = KD_HOUSE_CMD_CLAIM;
    return KD_OK;
}

json_t *kd_house_answer_json(unsigned kind, const uint8_t proof[KD_VRF_PROOF_LEN])
{
    if (kind == KD_HOUSE_CMD_CLAIM)
        return json_pack("{s:b}", "claim", 1);
    if (kind != KD_HOUSE_CMD_REVEAL)
        return NULL;
    char hex[2 * KD_VRF_PROOF_LEN + 1];
    kd_hex_encode(proof, KD_VRF_PROOF_LEN, hex);
    return json_pack("{s:s}", "reveal", hex);
}

json_t *kd_house_ask_json(const char *member, json_t *value, const uint8_t entropy[KD_FAIR_ENTROPY_LEN])
{
    char hex[2 * KD_FAIR_ENTROPY_LEN + 1];
    kd_hex_encode(entropy, KD_FAIR_ENTROPY_LEN, hex);
    return json_pack("{s:o, s:s}", member, value ? value : json_null(), "entropy", hex);
}

void kd_house_public_entropy(const kd_house *house, uint32_t round, uint8_t out[KD_FAIR_ENTROPY_LEN])
{
    uint8_t b[KD_PUBKEY_LEN + 4];
    memcpy(b, house->key.bytes, KD_PUBKEY_LEN);
    kd_put_u32be(b + KD_PUBKEY_LEN, round);
    kd_sha256(b, sizeof b, out);
}

/* ---------------------------------------------------------- encodings */

void kd_house_encode(const kd_house *house, uint8_t out[KD_HOUSE_ENCODED_LEN])
{
    size_t n = 0;
    kd_put_u32be(out, house->episode_id);
    kd_put_u32be(out + 4, house->timeout);
    kd_put_u32be(out + 8, house->draws);
    n += 12;
    memcpy(out + n, house->key.bytes, KD_PUBKEY_LEN);
    n += KD_PUBKEY_LEN;
    memcpy(out + n, house->binding, KD_SECRET_BINDING_LEN);
    n += KD_SECRET_BINDING_LEN;
    out[n++] = house->pending;
    out[n++] = house->asker;
    memcpy(out + n, house->ask, KD_FAIR_ASK_LEN);
    n += KD_FAIR_ASK_LEN;
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
    size_t n = 12;
    h.episode_id = kd_get_u32be(in);
    h.timeout = kd_get_u32be(in + 4);
    h.draws = kd_get_u32be(in + 8);
    memcpy(h.key.bytes, in + n, KD_PUBKEY_LEN);
    n += KD_PUBKEY_LEN;
    memcpy(h.binding, in + n, KD_SECRET_BINDING_LEN);
    n += KD_SECRET_BINDING_LEN;
    h.pending = in[n++];
    h.asker = in[n++];
    memcpy(h.ask, in + n, KD_FAIR_ASK_LEN);
    n += KD_FAIR_ASK_LEN;
    h.asked_daa = kd_get_u64be(in + n);
    h.draw_input = KD_FAIR_DRAW_V2; /* the head says otherwise (kd_house_head_decode) */
    if ((h.key.bytes[0] != 0x02 && h.key.bytes[0] != 0x03) || h.timeout < KD_DEADLINE_MIN ||
        h.timeout > KD_HOUSE_TIMEOUT_MAX || h.pending > 1 ||
        (!h.pending && (h.asker || h.asked_daa || !all_zero(h.ask, sizeof h.ask))))
        return KD_ERR_DECODE;
    *house = h;
    return KD_OK;
}

size_t kd_house_head_encode(uint8_t version, const kd_house *house, const kd_pubkey players[2],
                            uint8_t out[KD_HOUSE_HEAD_MAX])
{
    int v3 = house->draw_input != KD_FAIR_DRAW_V2;
    size_t n = 1 + KD_HOUSE_ENCODED_LEN;
    out[0] = (uint8_t)(version + v3);
    kd_house_encode(house, out + 1);
    if (v3) {
        kd_put_u32be(out + n, house->depth);
        n += 4;
    }
    memcpy(out + n, players, 2 * KD_PUBKEY_LEN);
    return n + 2 * KD_PUBKEY_LEN;
}

kd_err kd_house_head_decode(const uint8_t *in, size_t len, uint8_t version, kd_house *house, kd_pubkey players[2],
                            size_t *used)
{
    kd_house h;
    size_t n = 1 + KD_HOUSE_ENCODED_LEN;
    int v3 = len > 0 && in[0] == version + 1;
    *used = v3 ? KD_HOUSE_HEAD_MAX : KD_HOUSE_HEAD_LEN;
    if (len < *used || (in[0] != version && !v3) || kd_house_decode(in + 1, &h) != KD_OK)
        return KD_ERR_DECODE;
    if (v3) {
        h.draw_input = KD_FAIR_DRAW_V3;
        h.depth = kd_get_u32be(in + n);
        n += 4;
        if (h.depth > KD_HOUSE_DEPTH_MAX)
            return KD_ERR_DECODE;
    }
    memcpy(players, in + n, 2 * KD_PUBKEY_LEN);
    for (int i = 0; i < 2; i++)
        if (players[i].bytes[0] != 0x02 && players[i].bytes[0] != 0x03)
            return KD_ERR_DECODE;
    *house = h;
    return KD_OK;
}

size_t kd_house_undo_head_encode(uint8_t version, const kd_house_undo *undo, uint8_t kind,
                                 uint8_t out[KD_HOUSE_UNDO_HEAD_LEN])
{
    out[0] = version;
    kd_house_undo_encode(undo, out + 1);
    out[1 + KD_HOUSE_UNDO_LEN] = kind;
    return KD_HOUSE_UNDO_HEAD_LEN;
}

kd_err kd_house_undo_head_decode(const uint8_t in[KD_HOUSE_UNDO_HEAD_LEN], uint8_t version, kd_house_undo *undo,
                                 uint8_t *kind)
{
    if (in[0] != version || kd_house_undo_decode(in + 1, undo) != KD_OK)
        return KD_ERR_DECODE;
    *kind = in[1 + KD_HOUSE_UNDO_LEN];
    return *kind >= KD_HOUSE_CMD_ASK && *kind <= KD_HOUSE_CMD_CLAIM ? KD_OK : KD_ERR_DECODE;
}

void kd_house_undo_encode(const kd_house_undo *undo, uint8_t out[KD_HOUSE_UNDO_LEN])
{
    out[0] = undo->kind;
    out[1] = undo->asker;
    memcpy(out + 2, undo->ask, KD_FAIR_ASK_LEN);
    kd_put_u64be(out + 2 + KD_FAIR_ASK_LEN, undo->asked_daa);
}

kd_err kd_house_undo_decode(const uint8_t in[KD_HOUSE_UNDO_LEN], kd_house_undo *undo)
{
    kd_house_undo u;
    memset(&u, 0, sizeof u);
    u.kind = in[0];
    u.asker = in[1];
    memcpy(u.ask, in + 2, KD_FAIR_ASK_LEN);
    u.asked_daa = kd_get_u64be(in + 2 + KD_FAIR_ASK_LEN);
    if (u.kind < KD_HOUSE_OP_ASK || u.kind > KD_HOUSE_OP_CLAIM)
        return KD_ERR_DECODE;
    if (u.kind == KD_HOUSE_OP_ASK && (u.asker || u.asked_daa || !all_zero(u.ask, KD_FAIR_ASK_LEN)))
        return KD_ERR_DECODE;
    *undo = u;
    return KD_OK;
}

/* --------------------------------------------------------------- views */

void kd_house_view_fill(const kd_house *house, Kdapp__HouseView *v)
{
    v->key.data = (uint8_t *)house->key.bytes;
    v->key.len = KD_PUBKEY_LEN;
    v->binding.data = (uint8_t *)house->binding;
    v->binding.len = KD_SECRET_BINDING_LEN;
    v->draws = house->draws;
    v->reveal_timeout = house->timeout;
    v->draw_input = house->draw_input;
    v->reveal_depth = house->depth;
    v->pending = house->pending != 0;
    if (house->pending) {
        v->asker = house->asker;
        v->entropy.data = (uint8_t *)house->ask;
        v->entropy.len = KD_FAIR_ASK_LEN;
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
    uint32_t version = v->draw_input ? v->draw_input : KD_FAIR_DRAW_V2;
    uint64_t due = v->asked_daa + v->reveal_depth;
    if (v->pending)
        pending = json_pack("{s:s, s:I, s:o, s:I, s:I, s:I}", "asker", v->asker < seats ? seat_names[v->asker] : "?",
                            "draw", (json_int_t)v->draws + 1, version == KD_FAIR_DRAW_V2 ? "entropy" : "ask_sha256",
                            hex_json(v->entropy), "asked_daa", (json_int_t)v->asked_daa, "reveal_from_daa",
                            (json_int_t)due, "deadline_daa", (json_int_t)(due + v->reveal_timeout));
    return json_pack("{s:o, s:o, s:I, s:I, s:I, s:I, s:o}", "key", hex_json(v->key), "binding", hex_json(v->binding),
                     "draws", (json_int_t)v->draws, "draw_input", (json_int_t)version, "reveal_timeout",
                     (json_int_t)v->reveal_timeout, "reveal_depth", (json_int_t)v->reveal_depth, "pending",
                     pending ? pending : json_null());
}
