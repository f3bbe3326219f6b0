/*
 * holdem_deck.c — card points, a seat's keys for a hand, and the shuffle,
 * lock and unlock steps (holdem_deck.h), on libsecp256k1 (point
 * multiplication) and OpenSSL's BIGNUM (inverses mod the group order).
 */
#include "episodes/holdem/holdem_deck.h"

#include <string.h>

#include <openssl/bn.h>
#include <secp256k1.h>

#include "episodes/fair.h"

/* The generator, compressed. */
static const kd_hm_point generator = {0x02, 0x79, 0xbe, 0x66, 0x7e, 0xf9, 0xdc, 0xbb, 0xac, 0x55, 0xa0,
                                      0x62, 0x95, 0xce, 0x87, 0x0b, 0x07, 0x02, 0x9b, 0xfc, 0xdb, 0x2d,
                                      0xce, 0x28, 0xd9, 0x59, 0xf2, 0x81, 0x5b, 0x16, 0xf8, 0x17, 0x98};
/* The group order n. */
static const kd_hm_scalar order = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                   0xff, 0xff, 0xff, 0xff, 0xfe, 0xba, 0xae, 0xdc, 0xe6, 0xaf, 0x48,
                                   0xa0, 0x3b, 0xbf, 0xd2, 0x5e, 0x8c, 0xd0, 0x36, 0x41, 0x41};

static int parse(const kd_hm_point p, secp256k1_pubkey *pk)
{
    return secp256k1_ec_pubkey_parse(secp256k1_context_static, pk, p, KD_HM_POINT_LEN);
}

static void serialize(const secp256k1_pubkey *pk, kd_hm_point out)
{
    size_t len = KD_HM_POINT_LEN;
    (void)secp256k1_ec_pubkey_serialize(secp256k1_context_static, out, &len, pk, SECP256K1_EC_COMPRESSED);
}

int kd_hm_point_valid(const kd_hm_point p)
{
    secp256k1_pubkey pk;
    return parse(p, &pk);
}

kd_err kd_hm_card_points(kd_hm_point out[KD_HM_CARDS])
{
    static const char domain[] = "kdapp/holdem/card/v1";
    for (unsigned c = 0; c < KD_HM_CARDS; c++) {
        unsigned ctr = 0;
        for (; ctr < 256; ctr++) {
            uint8_t msg[sizeof domain - 1 + 2];
            memcpy(msg, domain, sizeof domain - 1);
            msg[sizeof domain - 1] = (uint8_t)c;
            msg[sizeof domain] = (uint8_t)ctr;
            out[c][0] = 0x02;
            kd_sha256(msg, sizeof msg, out[c] + 1);
            if (kd_hm_point_valid(out[c]))
                break;
        }
        if (ctr == 256)
            return KD_ERR_INTERNAL;
    }
    return KD_OK;
}

int kd_hm_card_find(const kd_hm_point cards[KD_HM_CARDS], const kd_hm_point p)
{
    for (int c = 0; c < KD_HM_CARDS; c++)
        if (memcmp(cards[c], p, KD_HM_POINT_LEN) == 0)
            return c;
    return -1;
}

void kd_hm_hand_secret(const uint8_t seed[KD_SECRET_SEED_LEN], uint32_t hand, uint8_t out[KD_HASH_LEN])
{
    static const char domain[] = "kdapp/holdem/hand/v1";
    uint8_t msg[sizeof domain - 1 + KD_SECRET_SEED_LEN + 4];
    memcpy(msg, domain, sizeof domain - 1);
    memcpy(msg + sizeof domain - 1, seed, KD_SECRET_SEED_LEN);
    kd_put_u32be(msg + sizeof domain - 1 + KD_SECRET_SEED_LEN, hand);
    kd_sha256(msg, sizeof msg, out);
    memset(msg, 0, sizeof msg);
}

/* A valid scalar from SHA-256(domain || hs || extra || ctr). */
static void scalar_from(const char *domain, const uint8_t hs[KD_HASH_LEN], const uint8_t *extra, size_t extra_len,
                        kd_hm_scalar out)
{
    uint8_t msg[64 + KD_HASH_LEN + 4 + 1];
    size_t d = strlen(domain);
    memcpy(msg, domain, d);
    memcpy(msg + d, hs, KD_HASH_LEN);
    if (extra_len)
        memcpy(msg + d + KD_HASH_LEN, extra, extra_len);
    size_t n = d + KD_HASH_LEN + extra_len;
    for (unsigned ctr = 0; ctr < 256; ctr++) {
        msg[n] = (uint8_t)ctr;
        kd_sha256(msg, n + 1, out);
        if (secp256k1_ec_seckey_verify(secp256k1_context_static, out))
            break; /* fails with probability 2^-128 a try */
    }
    memset(msg, 0, sizeof msg);
}

void kd_hm_keys_derive(const uint8_t hand_secret[KD_HASH_LEN], kd_hm_keys *keys)
{
    memset(keys, 0, sizeof *keys);
    memcpy(keys->hand_secret, hand_secret, KD_HASH_LEN);
    scalar_from("kdapp/holdem/deck-key/v1", hand_secret, NULL, 0, keys->deck_key);
    for (uint8_t i = 0; i < KD_HM_DEALT; i++)
        scalar_from("kdapp/holdem/card-key/v1", hand_secret, &i, 1, keys->card_keys[i]);
    static const char domain[] = "kdapp/holdem/perm/v1";
    uint8_t msg[sizeof domain - 1 + KD_HASH_LEN], seed[KD_HASH_LEN];
    memcpy(msg, domain, sizeof domain - 1);
    memcpy(msg + sizeof domain - 1, hand_secret, KD_HASH_LEN);
    kd_sha256(msg, sizeof msg, seed);
    kd_fair_stream st;
    kd_fair_stream_init(&st, seed);
    for (unsigned j = 0; j < KD_HM_CARDS; j++)
        keys->perm[j] = (uint8_t)j;
    for (unsigned j = KD_HM_CARDS - 1; j > 0; j--) {
        uint32_t r = kd_fair_below(&st, j + 1);
        uint8_t t = keys->perm[j];
        keys->perm[j] = keys->perm[r];
        keys->perm[r] = t;
    }
    memset(msg, 0, sizeof msg);
    memset(seed, 0, sizeof seed);
    memset(&st, 0, sizeof st);
}

static int scalar_ok(const kd_hm_scalar k) { return secp256k1_ec_seckey_verify(secp256k1_context_static, k); }

kd_err kd_hm_point_mul(const kd_hm_point p, const kd_hm_scalar k, kd_hm_point out)
{
    secp256k1_pubkey pk;
    if (!parse(p, &pk))
        return KD_ERR_DECODE;
    if (!scalar_ok(k) || !secp256k1_ec_pubkey_tweak_mul(secp256k1_context_static, &pk, k))
        return KD_ERR_BAD_KEY;
    serialize(&pk, out);
    return KD_OK;
}

kd_err kd_hm_commit(const kd_hm_scalar k, kd_hm_point out) { return kd_hm_point_mul(generator, k, out); }

int kd_hm_key_matches(const kd_hm_scalar k, const kd_hm_point commit)
{
    kd_hm_point p;
    return kd_hm_commit(k, p) == KD_OK && memcmp(p, commit, KD_HM_POINT_LEN) == 0;
}

kd_err kd_hm_scalar_inverse(const kd_hm_scalar k, kd_hm_scalar out)
{
    if (!scalar_ok(k))
        return KD_ERR_BAD_KEY;
    BN_CTX *ctx = BN_CTX_new();
    BIGNUM *a = BN_bin2bn(k, KD_HM_SCALAR_LEN, NULL), *n = BN_bin2bn(order, KD_HM_SCALAR_LEN, NULL);
    BIGNUM *inv = ctx && a && n ? BN_mod_inverse(NULL, a, n, ctx) : NULL;
    kd_err err = inv && BN_bn2binpad(inv, out, KD_HM_SCALAR_LEN) == KD_HM_SCALAR_LEN ? KD_OK : KD_ERR_NOMEM;
    BN_clear_free(inv);
    BN_clear_free(a);
    BN_free(n);
    BN_CTX_free(ctx);
    return err;
}

kd_err kd_hm_unlock(const kd_hm_point p, const kd_hm_scalar k, kd_hm_point out)
{
    kd_hm_scalar inv;
    kd_err err = kd_hm_scalar_inverse(k, inv);
    if (!err)
        err = kd_hm_point_mul(p, inv, out);
    memset(inv, 0, sizeof inv);
    return err;
}

kd_err kd_hm_shuffle(const kd_hm_keys *keys, const kd_hm_point in[KD_HM_CARDS], kd_hm_point out[KD_HM_CARDS])
{
    for (unsigned j = 0; j < KD_HM_CARDS; j++) {
        kd_err err = kd_hm_point_mul(in[keys->perm[j] % KD_HM_CARDS], keys->deck_key, out[j]);
        if (err)
            return err;
    }
    return KD_OK;
}

kd_err kd_hm_lock(const kd_hm_keys *keys, const kd_hm_point in[KD_HM_DEALT], kd_hm_point out[KD_HM_DEALT],
                  kd_hm_point commits[KD_HM_DEALT])
{
    kd_hm_scalar inv, k;
    kd_err err = kd_hm_scalar_inverse(keys->deck_key, inv);
    for (unsigned i = 0; !err && i < KD_HM_DEALT; i++) {
        memcpy(k, inv, sizeof k);
        if (!secp256k1_ec_seckey_tweak_mul(secp256k1_context_static, k, keys->card_keys[i]))
            err = KD_ERR_INTERNAL;
        if (!err)
            err = kd_hm_point_mul(in[i], k, out[i]);
        if (!err)
            err = kd_hm_commit(keys->card_keys[i], commits[i]);
    }
    memset(inv, 0, sizeof inv);
    memset(k, 0, sizeof k);
    return err;
}
