/*
 * vrf.c — ECVRF on secp256k1 with SHA-256 (vrf.h): RFC 9381's prove,
 * verify and proof_to_hash over libsecp256k1's public API.
 *
 * The scalar and point operations map onto the API so:
 *
 *   x B            secp256k1_ec_pubkey_create
 *   x P            secp256k1_ec_pubkey_tweak_mul   (x in [1, q - 1])
 *   -P             secp256k1_ec_pubkey_negate
 *   P + Q          secp256k1_ec_pubkey_combine     (fails on infinity)
 *   x y mod q      secp256k1_ec_seckey_tweak_mul
 *   x + y mod q    secp256k1_ec_seckey_tweak_add   (fails on zero)
 *   x in [1, q-1]  secp256k1_ec_seckey_verify
 *   string->point  secp256k1_ec_pubkey_parse       (try-and-increment)
 */
#include "engine/vrf.h"

#include <secp256k1.h>
#include <string.h>

#include "engine/crypto.h"

#define SUITE_LEN (sizeof KD_VRF_SUITE - 1)
#define PT_LEN 33
#define C_LEN 16
#define Q_LEN 32

enum { DS_ENCODE = 0x01, DS_CHALLENGE = 0x02, DS_HASH = 0x03, DS_NONCE = 0x04 };

static const char KEY_TAG[] = "kdapp-vrf-key-v1";

/* B, secp256k1's generator, compressed (SEC 2, 2.4.1) */
static const uint8_t GENERATOR[PT_LEN] = {0x02, 0x79, 0xbe, 0x66, 0x7e, 0xf9, 0xdc, 0xbb, 0xac, 0x55, 0xa0,
                                          0x62, 0x95, 0xce, 0x87, 0x0b, 0x07, 0x02, 0x9b, 0xfc, 0xdb, 0x2d,
                                          0xce, 0x28, 0xd9, 0x59, 0xf2, 0x81, 0x5b, 0x16, 0xf8, 0x17, 0x98};

/* SHA-256 of up to six parts; KD_ERR_NOMEM / KD_ERR_INTERNAL when the
 * digest cannot be made. */
typedef struct {
    const void *p;
    size_t n;
} part;

static kd_err hash_parts(const part *parts, size_t count, uint8_t out[KD_HASH_LEN])
{
    kd_sha256_ctx ctx;
    kd_err err = kd_sha256_init(&ctx);
    for (size_t i = 0; !err && i < count; i++)
        if (parts[i].n)
            kd_sha256_update(&ctx, parts[i].p, parts[i].n);
    if (!err)
        kd_sha256_final(&ctx, out);
    kd_sha256_fini(&ctx);
    return err;
}

static int serialize(const secp256k1_pubkey *pk, uint8_t out[PT_LEN])
{
    size_t len = PT_LEN;
    return secp256k1_ec_pubkey_serialize(secp256k1_context_static, out, &len, pk, SECP256K1_EC_COMPRESSED) &&
           len == PT_LEN;
}

/* ECVRF_encode_to_curve_try_and_increment: H and its string from Y's
 * string and alpha. KD_ERR_INTERNAL when no ctr gives a point. */
static kd_err encode_to_curve(const uint8_t y[PT_LEN], const uint8_t *alpha, size_t len, secp256k1_pubkey *h,
                              uint8_t h_str[PT_LEN])
{
    static const uint8_t front = DS_ENCODE, back = 0;
    for (unsigned ctr = 0; ctr < 256; ctr++) {
        uint8_t c = (uint8_t)ctr;
        part parts[] = {{KD_VRF_SUITE, SUITE_LEN}, {&front, 1}, {y, PT_LEN}, {alpha, len}, {&c, 1}, {&back, 1}};
        h_str[0] = 0x02;
        kd_err err = hash_parts(parts, sizeof parts / sizeof parts[0], h_str + 1);
        if (err)
            return err;
        if (secp256k1_ec_pubkey_parse(secp256k1_context_static, h, h_str, PT_LEN))
            return KD_OK;
    }
    return KD_ERR_INTERNAL;
}

/* The challenge c (16 bytes) of the five points' strings. */
static kd_err challenge(const uint8_t y[PT_LEN], const uint8_t h[PT_LEN], const uint8_t gamma[PT_LEN],
                        const uint8_t u[PT_LEN], const uint8_t v[PT_LEN], uint8_t c[C_LEN])
{
    static const uint8_t front = DS_CHALLENGE, back = 0;
    part parts[] = {{KD_VRF_SUITE, SUITE_LEN}, {&front, 1}, {y, PT_LEN}, {h, PT_LEN},
                    {gamma, PT_LEN},           {u, PT_LEN}, {v, PT_LEN}, {&back, 1}};
    uint8_t full[KD_HASH_LEN];
    kd_err err = hash_parts(parts, sizeof parts / sizeof parts[0], full);
    memcpy(c, full, C_LEN);
    return err;
}

/* a P - b Q (a, b valid scalars) into `out`. 0 when the result is the
 * point at infinity (or an argument is refused). */
static int mul_sub(const secp256k1_pubkey *p, const uint8_t a[Q_LEN], const secp256k1_pubkey *q, const uint8_t b[Q_LEN],
                   secp256k1_pubkey *out)
{
    const secp256k1_context *ctx = secp256k1_context_static;
    secp256k1_pubkey ap = *p, bq = *q;
    if (!secp256k1_ec_pubkey_tweak_mul(ctx, &ap, a) || !secp256k1_ec_pubkey_tweak_mul(ctx, &bq, b) ||
        !secp256k1_ec_pubkey_negate(ctx, &bq))
        return 0;
    const secp256k1_pubkey *both[2] = {&ap, &bq};
    return secp256k1_ec_pubkey_combine(ctx, out, both, 2);
}

kd_err kd_vrf_key_from_seed(const uint8_t seed[KD_VRF_SEED_LEN], uint8_t secret[KD_VRF_SECRET_LEN], kd_pubkey *pub)
{
    for (unsigned ctr = 0; ctr < 256; ctr++) {
        uint8_t c = (uint8_t)ctr;
        part parts[] = {{KEY_TAG, sizeof KEY_TAG - 1}, {seed, KD_VRF_SEED_LEN}, {&c, 1}};
        kd_err err = hash_parts(parts, 3, secret);
        if (err)
            return err;
        if (!secp256k1_ec_seckey_verify(secp256k1_context_static, secret))
            continue;
        kd_key key;
        err = kd_key_from_secret(secret, &key);
        if (!err)
            *pub = key.pub;
        memset(&key, 0, sizeof key);
        return err == KD_ERR_BAD_KEY ? KD_ERR_INTERNAL : err;
    }
    memset(secret, 0, KD_VRF_SECRET_LEN);
    return KD_ERR_INTERNAL;
}

/* The nonce k for secret `x` and H's string (vrf.h). */
static kd_err nonce(const uint8_t x[Q_LEN], const uint8_t h[PT_LEN], uint8_t k[Q_LEN])
{
    static const uint8_t front = DS_NONCE, back = 0;
    for (unsigned ctr = 0; ctr < 256; ctr++) {
        uint8_t c = (uint8_t)ctr;
        part parts[] = {{KD_VRF_SUITE, SUITE_LEN}, {&front, 1}, {x, Q_LEN}, {h, PT_LEN}, {&c, 1}, {&back, 1}};
        kd_err err = hash_parts(parts, sizeof parts / sizeof parts[0], k);
        if (err)
            return err;
        if (secp256k1_ec_seckey_verify(secp256k1_context_static, k))
            return KD_OK;
    }
    return KD_ERR_INTERNAL;
}

kd_err kd_vrf_prove(const uint8_t secret[KD_VRF_SECRET_LEN], const uint8_t *alpha, size_t len,
                    uint8_t proof[KD_VRF_PROOF_LEN])
{
    if (!secp256k1_ec_seckey_verify(secp256k1_context_static, secret))
        return KD_ERR_BAD_KEY;
    secp256k1_context *ctx = secp256k1_context_create(SECP256K1_CONTEXT_NONE);
    if (!ctx)
        return KD_ERR_NOMEM;
    secp256k1_pubkey y, h, gamma, u, v;
    uint8_t y_str[PT_LEN], h_str[PT_LEN], u_str[PT_LEN], v_str[PT_LEN], k[Q_LEN], c32[Q_LEN] = {0}, s[Q_LEN];
    kd_err err = KD_ERR_INTERNAL;
    if (!secp256k1_ec_pubkey_create(ctx, &y, secret) || !serialize(&y, y_str))
        goto done;
    if ((err = encode_to_curve(y_str, alpha, len, &h, h_str)) || (err = nonce(secret, h_str, k)))
        goto done;
    err = KD_ERR_INTERNAL;
    gamma = h;
    v = h;
    if (!secp256k1_ec_pubkey_tweak_mul(ctx, &gamma, secret) || !serialize(&gamma, proof) ||
        !secp256k1_ec_pubkey_create(ctx, &u, k) || !serialize(&u, u_str) ||
        !secp256k1_ec_pubkey_tweak_mul(ctx, &v, k) || !serialize(&v, v_str))
        goto done;
    if ((err = challenge(y_str, h_str, proof, u_str, v_str, c32 + Q_LEN - C_LEN)))
        goto done;
    err = KD_ERR_INTERNAL;
    memcpy(s, secret, Q_LEN);
    /* s = c x + k; c = 0 or s = 0 (probability < 2^-127) cannot be made */
    if (!secp256k1_ec_seckey_tweak_mul(ctx, s, c32) || !secp256k1_ec_seckey_tweak_add(ctx, s, k))
        goto done;
    memcpy(proof + PT_LEN, c32 + Q_LEN - C_LEN, C_LEN);
    memcpy(proof + PT_LEN + C_LEN, s, Q_LEN);
    err = KD_OK;
done:
    memset(k, 0, sizeof k);
    memset(s, 0, sizeof s);
    secp256k1_context_destroy(ctx);
    return err;
}

kd_err kd_vrf_proof_to_hash(const uint8_t proof[KD_VRF_PROOF_LEN], uint8_t beta[KD_HASH_LEN])
{
    static const uint8_t front = DS_HASH, back = 0;
    secp256k1_pubkey gamma;
    uint8_t g[PT_LEN];
    /* parse and serialize again: Gamma's canonical string (cofactor 1: Gamma itself) */
    if (!secp256k1_ec_pubkey_parse(secp256k1_context_static, &gamma, proof, PT_LEN) || !serialize(&gamma, g))
        return KD_ERR_BAD_SIGNATURE;
    part parts[] = {{KD_VRF_SUITE, SUITE_LEN}, {&front, 1}, {g, PT_LEN}, {&back, 1}};
    return hash_parts(parts, sizeof parts / sizeof parts[0], beta);
}

kd_err kd_vrf_verify(const kd_pubkey *pub, const uint8_t *alpha, size_t len, const uint8_t proof[KD_VRF_PROOF_LEN],
                     uint8_t beta[KD_HASH_LEN])
{
    const secp256k1_context *st = secp256k1_context_static;
    secp256k1_pubkey y, h, gamma, u, v, base;
    uint8_t h_str[PT_LEN], u_str[PT_LEN], v_str[PT_LEN], c32[Q_LEN] = {0}, c2[C_LEN];
    const uint8_t *s = proof + PT_LEN + C_LEN;
    if (!secp256k1_ec_pubkey_parse(st, &y, pub->bytes, KD_PUBKEY_LEN))
        return KD_ERR_BAD_PUBKEY;
    memcpy(c32 + Q_LEN - C_LEN, proof + PT_LEN, C_LEN);
    if (!secp256k1_ec_pubkey_parse(st, &gamma, proof, PT_LEN) || !secp256k1_ec_seckey_verify(st, c32) ||
        !secp256k1_ec_seckey_verify(st, s))
        return KD_ERR_BAD_SIGNATURE;
    kd_err err = encode_to_curve(pub->bytes, alpha, len, &h, h_str);
    if (err)
        return err;
    if (!secp256k1_ec_pubkey_parse(st, &base, GENERATOR, PT_LEN))
        return KD_ERR_INTERNAL;
    /* U = s B - c Y, V = s H - c Gamma */
    if (!mul_sub(&base, s, &y, c32, &u) || !mul_sub(&h, s, &gamma, c32, &v) || !serialize(&u, u_str) ||
        !serialize(&v, v_str))
        return KD_ERR_BAD_SIGNATURE;
    if ((err = challenge(pub->bytes, h_str, proof, u_str, v_str, c2)))
        return err;
    if (memcmp(c2, proof + PT_LEN, C_LEN) != 0)
        return KD_ERR_BAD_SIGNATURE;
    return kd_vrf_proof_to_hash(proof, beta);
}
