/*
 * holdem_proof.c — the proof of shuffle and the lock's DLEQ proofs
 * (holdem_proof.h), over libsecp256k1's public API:
 *
 *   k·P            secp256k1_ec_pubkey_tweak_mul   (k in [1, n - 1])
 *   -P             secp256k1_ec_pubkey_negate
 *   P + Q + ...    secp256k1_ec_pubkey_combine     (fails on infinity)
 *   a·b mod n      secp256k1_ec_seckey_tweak_mul
 *   a + b mod n    secp256k1_ec_seckey_tweak_add   (fails on zero)
 *   k in [1, n-1]  secp256k1_ec_seckey_verify
 *
 * The proof of shuffle, with e'_j = e_π(j) and B_0 = F (README.md, "The
 * proofs", gives every byte):
 *
 *   prover                                   verifier recomputes
 *   U_i = r_i·Q + P_ι(i)     (ι = π^-1)      rho, e_i = H(rho, 'e', i)
 *   B_j = b_j·G + e'_j·B_j-1                 A = sum e_i·U_i, Z = sum e_i·X_i
 *   T1 = w̄·Q + sum w'_j·P_j                  T1 = k̄·Q + sum k'_j·P_j - c·A
 *   T2 = w_r·Q                               T2 = k_r·Q - c·(sum U_i - sum P_j)
 *   T̂_j = ŵ_j·G + w'_j·B_j-1                 T̂_j = k̂_j·G + k'_j·B_j-1 - c·B_j
 *   T3 = w_β·G                               T3 = k_β·G - c·(B_52 - (prod e_i)·F)
 *   T4 = sum w'_j·Y_j - w_x·Z                T4 = sum k'_j·Y_j - k_x·Z
 *   T5 = w_x·G                               T5 = k_x·G - c·H
 *   c = H(sigma, 'c', 0); k = w + c·(its witness)     and checks c again
 *
 * The witnesses: r̄ = sum e_i·r_i, r_sum = sum r_i, e'_j, b_j, β (B_52 =
 * β·G + (prod e'_j)·F) and x.
 */
#include "episodes/holdem/holdem_proof.h"

#include <secp256k1.h>
#include <stdlib.h>
#include <string.h>

#include "engine/bytes.h"

#define N KD_HM_CARDS
#define PT KD_HM_POINT_LEN
#define SC KD_HM_SCALAR_LEN
#define CTX secp256k1_context_static
#define MAX_TERMS (2 * N + 2)

typedef uint8_t scalar[SC];

static const kd_hm_point generator_g = {0x02, 0x79, 0xbe, 0x66, 0x7e, 0xf9, 0xdc, 0xbb, 0xac, 0x55, 0xa0,
                                        0x62, 0x95, 0xce, 0x87, 0x0b, 0x07, 0x02, 0x9b, 0xfc, 0xdb, 0x2d,
                                        0xce, 0x28, 0xd9, 0x59, 0xf2, 0x81, 0x5b, 0x16, 0xf8, 0x17, 0x98};

/* ------------------------------------------------------------ hashing */

typedef struct {
    kd_sha256_ctx sha;
} hasher;

static kd_err h_begin(hasher *h, const char *tag) /* tag: NUL-terminated, hashed without the NUL */
{
    kd_err err = kd_sha256_init(&h->sha);
    if (!err && tag)
        kd_sha256_update(&h->sha, tag, strlen(tag));
    return err;
}

static void h_add(hasher *h, const void *p, size_t n) { kd_sha256_update(&h->sha, p, n); }

static void h_end(hasher *h, uint8_t out[KD_HASH_LEN])
{
    kd_sha256_final(&h->sha, out);
    kd_sha256_fini(&h->sha);
}

/* episode (u32 BE) || hand (u32 BE) || seat (1 byte) || the seat's key (33) */
static void h_bind(hasher *h, const kd_hm_bind *b)
{
    uint8_t buf[9];
    kd_put_u32be(buf, b->episode);
    kd_put_u32be(buf + 4, b->hand);
    buf[8] = b->seat;
    h_add(h, buf, sizeof buf);
    h_add(h, b->signer.bytes, KD_PUBKEY_LEN);
}

/* The first SHA-256(d || label || index || ctr), ctr = 0, 1, ..., that is
 * a scalar in [1, n - 1]. */
static int scalar_of(const uint8_t d[KD_HASH_LEN], char label, uint8_t index, scalar out)
{
    uint8_t msg[KD_HASH_LEN + 3];
    memcpy(msg, d, KD_HASH_LEN);
    msg[KD_HASH_LEN] = (uint8_t)label;
    msg[KD_HASH_LEN + 1] = index;
    for (unsigned ctr = 0; ctr < 256; ctr++) {
        msg[KD_HASH_LEN + 2] = (uint8_t)ctr;
        kd_sha256(msg, sizeof msg, out);
        if (secp256k1_ec_seckey_verify(CTX, out))
            return 1;
    }
    return 0; /* probability 2^-32768 */
}

/* ------------------------------------------------------------ scalars */

/* out = a·b mod n (valid scalars: never zero) */
static int sc_mul(scalar out, const scalar a, const scalar b)
{
    scalar t;
    memcpy(t, a, SC);
    int ok = secp256k1_ec_seckey_tweak_mul(CTX, t, b);
    memcpy(out, t, SC);
    return ok;
}

/* out = a + b mod n; 0 when it is zero */
static int sc_add(scalar out, const scalar a, const scalar b)
{
    scalar t;
    memcpy(t, a, SC);
    int ok = secp256k1_ec_seckey_tweak_add(CTX, t, b);
    memcpy(out, t, SC);
    return ok;
}

/* out = w + c·v mod n: a response */
static int sc_respond(scalar out, const scalar w, const scalar c, const scalar v)
{
    scalar t;
    return sc_mul(t, c, v) && sc_add(out, t, w);
}

static int sc_valid(const uint8_t *k) { return secp256k1_ec_seckey_verify(CTX, k); }

/* ------------------------------------------------------------- points */

static int parse(const uint8_t *p, secp256k1_pubkey *out) { return secp256k1_ec_pubkey_parse(CTX, out, p, PT); }

static int serialize(const secp256k1_pubkey *pk, kd_hm_point out)
{
    size_t len = PT;
    return secp256k1_ec_pubkey_serialize(CTX, out, &len, pk, SECP256K1_EC_COMPRESSED) && len == PT;
}

/* A sum of terms k·P (or -k·P), made by tweak_mul on copies and one
 * combine. */
typedef struct {
    secp256k1_pubkey terms[MAX_TERMS];
    const secp256k1_pubkey *ptrs[MAX_TERMS];
    size_t n;
    int ok;
    secp256k1_context *gen; /* for k·G (its precomputed table: faster than tweak_mul) */
} sum;

static void sum_begin(sum *s)
{
    s->n = 0;
    s->ok = 1;
}

/* adds k·p (k NULL: p itself), negated when `neg` */
static void sum_add(sum *s, const secp256k1_pubkey *p, const uint8_t *k, int neg)
{
    if (!s->ok || s->n == MAX_TERMS) {
        s->ok = 0;
        return;
    }
    secp256k1_pubkey *t = &s->terms[s->n];
    *t = *p;
    if ((k && !secp256k1_ec_pubkey_tweak_mul(CTX, t, k)) || (neg && !secp256k1_ec_pubkey_negate(CTX, t))) {
        s->ok = 0;
        return;
    }
    s->ptrs[s->n] = t;
    s->n++;
}

/* adds k·G, negated when `neg` */
static void sum_add_g(sum *s, const uint8_t *k, int neg)
{
    if (!s->ok || s->n == MAX_TERMS) {
        s->ok = 0;
        return;
    }
    secp256k1_pubkey *t = &s->terms[s->n];
    if (!secp256k1_ec_pubkey_create(s->gen, t, k) || (neg && !secp256k1_ec_pubkey_negate(CTX, t))) {
        s->ok = 0;
        return;
    }
    s->ptrs[s->n] = t;
    s->n++;
}

/* the sum; 0 when it is the point at infinity (or a term failed) */
static int sum_end(sum *s, secp256k1_pubkey *out)
{
    return s->ok && s->n && secp256k1_ec_pubkey_combine(CTX, out, s->ptrs, s->n);
}

static int sum_end_point(sum *s, kd_hm_point out)
{
    secp256k1_pubkey pk;
    return sum_end(s, &pk) && serialize(&pk, out);
}

kd_err kd_hm_generator(unsigned g, kd_hm_point out)
{
    static const char tag[] = "kdapp/holdem/gen/v1";
    uint8_t msg[sizeof tag - 1 + 2];
    memcpy(msg, tag, sizeof tag - 1);
    msg[sizeof tag - 1] = (uint8_t)g;
    secp256k1_pubkey pk;
    for (unsigned ctr = 0; g < KD_HM_GENERATORS && ctr < 256; ctr++) {
        msg[sizeof tag] = (uint8_t)ctr;
        out[0] = 0x02;
        kd_sha256(msg, sizeof msg, out + 1);
        if (parse(out, &pk))
            return KD_OK;
    }
    return KD_ERR_INTERNAL;
}

/* ------------------------------------------------------- proof of shuffle */

/* Everything both sides of the proof of shuffle hold. */
typedef struct {
    secp256k1_pubkey q, f, p[N]; /* generators */
    secp256k1_pubkey x[N], y[N], u[N], b[N + 1], h;
    scalar e[N], kp[N], kh[N], c, kbar, kr, kbeta, kx;
    kd_hm_point t1, t2, t3, t4, t5, th[N];
    uint8_t rho[KD_HASH_LEN];
    sum s;
} shuffle_work;

static void work_free(shuffle_work *w)
{
    if (w && w->s.gen)
        secp256k1_context_destroy(w->s.gen);
    free(w);
}

/* A work area with the generators parsed. Errors: KD_ERR_NOMEM,
 * KD_ERR_INTERNAL. */
static kd_err work_alloc(shuffle_work **out)
{
    shuffle_work *w = calloc(1, sizeof *w);
    *out = NULL;
    if (!w || !(w->s.gen = secp256k1_context_create(SECP256K1_CONTEXT_NONE))) {
        work_free(w);
        return KD_ERR_NOMEM;
    }
    kd_hm_point p;
    for (unsigned g = 0; g < KD_HM_GENERATORS; g++) {
        kd_err err = kd_hm_generator(g, p);
        secp256k1_pubkey *into = g == 0 ? &w->q : g == KD_HM_GENERATORS - 1 ? &w->f : &w->p[g - 1];
        if (!err && !parse(p, into))
            err = KD_ERR_INTERNAL;
        if (err) {
            work_free(w);
            return err;
        }
    }
    *out = w;
    return KD_OK;
}

/* rho = SHA-256("kdapp/holdem/shuffle/v1" || bind || X || Y || H || U),
 * then e_i = scalar_of(rho, 'e', i). */
static kd_err challenges_e(shuffle_work *w, const kd_hm_bind *bind, const kd_hm_point in[N], const kd_hm_point out[N],
                           const kd_hm_point key, const uint8_t *u_bytes)
{
    hasher h;
    kd_err err = h_begin(&h, "kdapp/holdem/shuffle/v1");
    if (err)
        return err;
    h_bind(&h, bind);
    h_add(&h, in, N * PT);
    h_add(&h, out, N * PT);
    h_add(&h, key, PT);
    h_add(&h, u_bytes, N * PT);
    h_end(&h, w->rho);
    for (unsigned i = 0; i < N; i++)
        if (!scalar_of(w->rho, 'e', (uint8_t)i, w->e[i]))
            return KD_ERR_INTERNAL;
    return KD_OK;
}

/* sigma = SHA-256(rho || B_1..B_52 || T1 || T2 || T̂_1..T̂_52 || T3 || T4 ||
 * T5), then c = scalar_of(sigma, 'c', 0). */
static kd_err challenge_c(shuffle_work *w, const uint8_t *b_bytes, scalar c)
{
    hasher h;
    uint8_t sigma[KD_HASH_LEN];
    kd_err err = h_begin(&h, NULL);
    if (err)
        return err;
    h_add(&h, w->rho, KD_HASH_LEN);
    h_add(&h, b_bytes, N * PT);
    h_add(&h, w->t1, PT);
    h_add(&h, w->t2, PT);
    h_add(&h, w->th, N * PT);
    h_add(&h, w->t3, PT);
    h_add(&h, w->t4, PT);
    h_add(&h, w->t5, PT);
    h_end(&h, sigma);
    return scalar_of(sigma, 'c', 0, c) ? KD_OK : KD_ERR_INTERNAL;
}

/* The proof's bytes, in order. */
typedef struct {
    uint8_t *u, *b, *c, *kbar, *kr, *kbeta, *kx, *kp, *kh;
} proof_layout;

static proof_layout layout(uint8_t *proof)
{
    proof_layout l;
    l.u = proof;
    l.b = l.u + N * PT;
    l.c = l.b + N * PT;
    l.kbar = l.c + SC;
    l.kr = l.kbar + SC;
    l.kbeta = l.kr + SC;
    l.kx = l.kbeta + SC;
    l.kp = l.kx + SC;
    l.kh = l.kp + N * SC;
    return l;
}

/* sum e_i·P[i] (Z of the inputs, A of the commitments U) */
static int challenged_sum(shuffle_work *w, const secp256k1_pubkey *p, secp256k1_pubkey *out)
{
    sum_begin(&w->s);
    for (unsigned i = 0; i < N; i++)
        sum_add(&w->s, &p[i], w->e[i], 0);
    return sum_end(&w->s, out);
}

/* The prover's secrets. */
typedef struct {
    scalar r[N], b[N], ep[N], wp[N], wh[N], wbar, wr, wbeta, wx, rbar, rsum, beta;
} shuffle_secrets;

kd_err kd_hm_shuffle_prove(const kd_hm_bind *bind, const kd_hm_keys *keys, const kd_hm_point in[N], kd_hm_point out[N],
                           kd_hm_point key, uint8_t proof[KD_HM_SHUFFLE_PROOF_LEN])
{
    kd_err err = KD_OK;
    for (unsigned j = 0; !err && j < N; j++)
        err = kd_hm_point_mul(in[keys->perm[j] % N], keys->deck_key, out[j]);
    if (!err)
        err = kd_hm_commit(keys->deck_key, key);
    if (!err)
        err = kd_hm_shuffle_prove_claim(bind, keys, in, out, key, proof);
    return err == KD_ERR_BAD_KEY ? KD_ERR_INTERNAL : err;
}

kd_err kd_hm_shuffle_prove_claim(const kd_hm_bind *bind, const kd_hm_keys *keys, const kd_hm_point in[N],
                                 const kd_hm_point out[N], const kd_hm_point key,
                                 uint8_t proof[KD_HM_SHUFFLE_PROOF_LEN])
{
    shuffle_work *w = NULL;
    shuffle_secrets *z = malloc(sizeof *z);
    kd_err err = z ? work_alloc(&w) : KD_ERR_NOMEM;
    proof_layout l = layout(proof);
    uint8_t nu[KD_HASH_LEN];
    hasher h;
    for (unsigned j = 0; !err && j < N; j++)
        if (!parse(in[j], &w->x[j]) || !parse(out[j], &w->y[j]))
            err = KD_ERR_DECODE;
    /* nu: the nonces' seed, from the hand secret and the statement */
    if (!err && !(err = h_begin(&h, "kdapp/holdem/shuffle-nonce/v1"))) {
        h_add(&h, keys->hand_secret, KD_HASH_LEN);
        h_bind(&h, bind);
        h_add(&h, in, N * PT);
        h_add(&h, out, N * PT);
        h_add(&h, key, PT);
        h_end(&h, nu);
    }
    int ok = !err;
    for (unsigned i = 0; ok && i < N; i++)
        ok = scalar_of(nu, 'r', (uint8_t)i, z->r[i]) && scalar_of(nu, 'b', (uint8_t)i, z->b[i]) &&
             scalar_of(nu, 'w', (uint8_t)i, z->wp[i]) && scalar_of(nu, 'v', (uint8_t)i, z->wh[i]);
    ok = ok && scalar_of(nu, 'a', 0, z->wbar) && scalar_of(nu, 's', 0, z->wr) && scalar_of(nu, 't', 0, z->wbeta) &&
         scalar_of(nu, 'x', 0, z->wx);
    /* U_i = r_i·Q + P_ι(i): input i went to output ι(i) (for a claimed
     * perm that is no permutation, the sum of the P_j of every output that
     * took input i: the commitment to that matrix) */
    for (unsigned i = 0; ok && i < N; i++) {
        sum_begin(&w->s);
        sum_add(&w->s, &w->q, z->r[i], 0);
        for (unsigned j = 0; j < N; j++)
            if (keys->perm[j] % N == i)
                sum_add(&w->s, &w->p[j], NULL, 0);
        ok = sum_end(&w->s, &w->u[i]);
    }
    for (unsigned i = 0; ok && i < N; i++)
        ok = serialize(&w->u[i], l.u + i * PT);
    if (ok && (err = challenges_e(w, bind, in, out, key, l.u)))
        ok = 0;
    /* e'_j = e_π(j); the chain B_j = b_j·G + e'_j·B_j-1 and its β */
    if (ok)
        w->b[0] = w->f;
    for (unsigned j = 0; ok && j < N; j++) {
        memcpy(z->ep[j], w->e[keys->perm[j] % N], SC);
        sum_begin(&w->s);
        sum_add_g(&w->s, z->b[j], 0);
        sum_add(&w->s, &w->b[j], z->ep[j], 0);
        ok = sum_end(&w->s, &w->b[j + 1]) && serialize(&w->b[j + 1], l.b + j * PT);
        if (ok && j == 0)
            memcpy(z->beta, z->b[0], SC);
        else if (ok) {
            scalar t;
            ok = sc_mul(t, z->ep[j], z->beta) && sc_add(z->beta, t, z->b[j]);
        }
    }
    /* r_sum, r̄ */
    if (ok)
        memcpy(z->rsum, z->r[0], SC);
    ok = ok && sc_mul(z->rbar, w->e[0], z->r[0]);
    for (unsigned i = 1; ok && i < N; i++) {
        scalar t;
        ok = sc_add(z->rsum, z->rsum, z->r[i]) && sc_mul(t, w->e[i], z->r[i]) && sc_add(z->rbar, z->rbar, t);
    }
    secp256k1_pubkey zz;
    ok = ok && challenged_sum(w, w->x, &zz);
    /* the T's */
    if (ok) {
        sum_begin(&w->s);
        sum_add(&w->s, &w->q, z->wbar, 0);
        for (unsigned j = 0; j < N; j++)
            sum_add(&w->s, &w->p[j], z->wp[j], 0);
        ok = sum_end_point(&w->s, w->t1);
    }
    if (ok) {
        sum_begin(&w->s);
        sum_add(&w->s, &w->q, z->wr, 0);
        ok = sum_end_point(&w->s, w->t2);
    }
    for (unsigned j = 0; ok && j < N; j++) {
        sum_begin(&w->s);
        sum_add_g(&w->s, z->wh[j], 0);
        sum_add(&w->s, &w->b[j], z->wp[j], 0);
        ok = sum_end_point(&w->s, w->th[j]);
    }
    if (ok) {
        sum_begin(&w->s);
        sum_add_g(&w->s, z->wbeta, 0);
        ok = sum_end_point(&w->s, w->t3);
    }
    if (ok) {
        sum_begin(&w->s);
        for (unsigned j = 0; j < N; j++)
            sum_add(&w->s, &w->y[j], z->wp[j], 0);
        sum_add(&w->s, &zz, z->wx, 1);
        ok = sum_end_point(&w->s, w->t4);
    }
    if (ok) {
        sum_begin(&w->s);
        sum_add_g(&w->s, z->wx, 0);
        ok = sum_end_point(&w->s, w->t5);
    }
    if (ok && (err = challenge_c(w, l.b, l.c)))
        ok = 0;
    /* the responses */
    ok = ok && sc_respond(l.kbar, z->wbar, l.c, z->rbar) && sc_respond(l.kr, z->wr, l.c, z->rsum) &&
         sc_respond(l.kbeta, z->wbeta, l.c, z->beta) && sc_respond(l.kx, z->wx, l.c, keys->deck_key);
    for (unsigned j = 0; ok && j < N; j++)
        ok = sc_respond(l.kp + j * SC, z->wp[j], l.c, z->ep[j]) && sc_respond(l.kh + j * SC, z->wh[j], l.c, z->b[j]);
    if (!err && !ok)
        err = KD_ERR_INTERNAL;
    if (z)
        memset(z, 0, sizeof *z);
    memset(nu, 0, sizeof nu);
    free(z);
    work_free(w);
    return err;
}

/* The verifier's recomputation; 0 when the proof is malformed or a step
 * meets the point at infinity (a refusal). */
static int shuffle_check(shuffle_work *w, const kd_hm_bind *bind, const kd_hm_point in[N], const kd_hm_point out[N],
                         const kd_hm_point key, const uint8_t *proof, kd_err *err)
{
    proof_layout l = layout((uint8_t *)proof); /* read only */
    for (unsigned j = 0; j < N; j++)
        if (!parse(in[j], &w->x[j]) || !parse(out[j], &w->y[j]) || !parse(l.u + j * PT, &w->u[j]) ||
            !parse(l.b + j * PT, &w->b[j + 1]) || !sc_valid(l.kp + j * SC) || !sc_valid(l.kh + j * SC))
            return 0;
    if (!parse(key, &w->h) || !sc_valid(l.c) || !sc_valid(l.kbar) || !sc_valid(l.kr) || !sc_valid(l.kbeta) ||
        !sc_valid(l.kx))
        return 0;
    w->b[0] = w->f;
    if ((*err = challenges_e(w, bind, in, out, key, l.u)))
        return 0;
    secp256k1_pubkey a, z;
    if (!challenged_sum(w, w->u, &a) || !challenged_sum(w, w->x, &z))
        return 0;
    /* prod e_i, and c·prod e_i for the F term of T3 */
    scalar prod, cprod;
    memcpy(prod, w->e[0], SC);
    for (unsigned i = 1; i < N; i++)
        if (!sc_mul(prod, prod, w->e[i]))
            return 0;
    if (!sc_mul(cprod, l.c, prod))
        return 0;
    /* T1 = k̄·Q + sum k'_j·P_j - c·A */
    sum_begin(&w->s);
    sum_add(&w->s, &w->q, l.kbar, 0);
    for (unsigned j = 0; j < N; j++)
        sum_add(&w->s, &w->p[j], l.kp + j * SC, 0);
    sum_add(&w->s, &a, l.c, 1);
    if (!sum_end_point(&w->s, w->t1))
        return 0;
    /* T2 = k_r·Q - c·(sum U_i - sum P_j) */
    secp256k1_pubkey cc;
    sum_begin(&w->s);
    for (unsigned j = 0; j < N; j++) {
        sum_add(&w->s, &w->u[j], NULL, 0);
        sum_add(&w->s, &w->p[j], NULL, 1);
    }
    if (!sum_end(&w->s, &cc))
        return 0;
    sum_begin(&w->s);
    sum_add(&w->s, &w->q, l.kr, 0);
    sum_add(&w->s, &cc, l.c, 1);
    if (!sum_end_point(&w->s, w->t2))
        return 0;
    /* T̂_j = k̂_j·G + k'_j·B_j-1 - c·B_j */
    for (unsigned j = 0; j < N; j++) {
        sum_begin(&w->s);
        sum_add_g(&w->s, l.kh + j * SC, 0);
        sum_add(&w->s, &w->b[j], l.kp + j * SC, 0);
        sum_add(&w->s, &w->b[j + 1], l.c, 1);
        if (!sum_end_point(&w->s, w->th[j]))
            return 0;
    }
    /* T3 = k_β·G - c·B_52 + c·prod·F */
    sum_begin(&w->s);
    sum_add_g(&w->s, l.kbeta, 0);
    sum_add(&w->s, &w->b[N], l.c, 1);
    sum_add(&w->s, &w->f, cprod, 0);
    if (!sum_end_point(&w->s, w->t3))
        return 0;
    /* T4 = sum k'_j·Y_j - k_x·Z */
    sum_begin(&w->s);
    for (unsigned j = 0; j < N; j++)
        sum_add(&w->s, &w->y[j], l.kp + j * SC, 0);
    sum_add(&w->s, &z, l.kx, 1);
    if (!sum_end_point(&w->s, w->t4))
        return 0;
    /* T5 = k_x·G - c·H */
    sum_begin(&w->s);
    sum_add_g(&w->s, l.kx, 0);
    sum_add(&w->s, &w->h, l.c, 1);
    if (!sum_end_point(&w->s, w->t5))
        return 0;
    scalar c;
    if ((*err = challenge_c(w, l.b, c)))
        return 0;
    return memcmp(c, l.c, SC) == 0;
}

kd_err kd_hm_shuffle_verify(const kd_hm_bind *bind, const kd_hm_point in[N], const kd_hm_point out[N],
                            const kd_hm_point key, const uint8_t proof[KD_HM_SHUFFLE_PROOF_LEN], int *valid)
{
    *valid = 0;
    shuffle_work *w;
    kd_err err = work_alloc(&w);
    if (!err)
        *valid = shuffle_check(w, bind, in, out, key, proof, &err);
    if (err)
        *valid = 0;
    work_free(w);
    return err == KD_ERR_INTERNAL ? KD_OK : err; /* a hash that gave no scalar: refused */
}

/* ------------------------------------------------------------ the lock */

/* lambda = SHA-256("kdapp/holdem/lock/v1" || bind || H || In || L || K) */
static kd_err lock_digest(const kd_hm_bind *bind, const kd_hm_point key, const kd_hm_point in[KD_HM_DEALT],
                          const kd_hm_point out[KD_HM_DEALT], const kd_hm_point commits[KD_HM_DEALT],
                          uint8_t lambda[KD_HASH_LEN])
{
    hasher h;
    kd_err err = h_begin(&h, "kdapp/holdem/lock/v1");
    if (err)
        return err;
    h_bind(&h, bind);
    h_add(&h, key, PT);
    h_add(&h, in, KD_HM_DEALT * PT);
    h_add(&h, out, KD_HM_DEALT * PT);
    h_add(&h, commits, KD_HM_DEALT * PT);
    h_end(&h, lambda);
    return KD_OK;
}

/* e = scalar_of(SHA-256(lambda || i || R1 || R2), 'c', 0) */
static int dleq_challenge(const uint8_t lambda[KD_HASH_LEN], unsigned i, const kd_hm_point r1, const kd_hm_point r2,
                          scalar e)
{
    uint8_t msg[KD_HASH_LEN + 1 + 2 * PT], d[KD_HASH_LEN];
    memcpy(msg, lambda, KD_HASH_LEN);
    msg[KD_HASH_LEN] = (uint8_t)i;
    memcpy(msg + KD_HASH_LEN + 1, r1, PT);
    memcpy(msg + KD_HASH_LEN + 1 + PT, r2, PT);
    kd_sha256(msg, sizeof msg, d);
    return scalar_of(d, 'c', 0, e);
}

/* k·p, serialized */
static int mul_point(const secp256k1_pubkey *p, const scalar k, kd_hm_point out)
{
    secp256k1_pubkey t = *p;
    return secp256k1_ec_pubkey_tweak_mul(CTX, &t, k) && serialize(&t, out);
}

kd_err kd_hm_lock_prove(const kd_hm_bind *bind, const kd_hm_keys *keys, const kd_hm_point in[KD_HM_DEALT],
                        kd_hm_point out[KD_HM_DEALT], kd_hm_point commits[KD_HM_DEALT],
                        uint8_t proofs[KD_HM_LOCK_PROOF_LEN])
{
    kd_err err = kd_hm_lock(keys, in, out, commits);
    if (!err)
        err = kd_hm_lock_prove_claim(bind, keys, in, out, commits, proofs);
    return err;
}

kd_err kd_hm_lock_prove_claim(const kd_hm_bind *bind, const kd_hm_keys *keys, const kd_hm_point in[KD_HM_DEALT],
                              const kd_hm_point out[KD_HM_DEALT], const kd_hm_point commits[KD_HM_DEALT],
                              uint8_t proofs[KD_HM_LOCK_PROOF_LEN])
{
    secp256k1_pubkey g, h, pin[KD_HM_DEALT];
    kd_hm_point key;
    scalar inv, m[KD_HM_DEALT], w;
    uint8_t lambda[KD_HASH_LEN], nu[KD_HASH_LEN];
    kd_err err = kd_hm_scalar_inverse(keys->deck_key, inv);
    int ok = !err && parse(generator_g, &g);
    if (ok) {
        h = g;
        ok = secp256k1_ec_pubkey_tweak_mul(CTX, &h, keys->deck_key) && serialize(&h, key);
    }
    for (unsigned i = 0; ok && i < KD_HM_DEALT; i++) {
        if (!parse(in[i], &pin[i])) {
            err = KD_ERR_DECODE;
            ok = 0;
            break;
        }
        ok = sc_mul(m[i], keys->card_keys[i], inv);
    }
    if (ok && (err = lock_digest(bind, key, in, out, commits, lambda)))
        ok = 0;
    hasher hs;
    if (ok && (err = h_begin(&hs, "kdapp/holdem/lock-nonce/v1")))
        ok = 0;
    if (ok) {
        h_add(&hs, keys->hand_secret, KD_HASH_LEN);
        h_add(&hs, lambda, KD_HASH_LEN);
        h_end(&hs, nu);
    }
    for (unsigned i = 0; ok && i < KD_HM_DEALT; i++) {
        kd_hm_point r1, r2;
        uint8_t *e = proofs + i * KD_HM_DLEQ_LEN, *s = e + SC;
        ok = scalar_of(nu, 'w', (uint8_t)i, w) && mul_point(&h, w, r1) && mul_point(&pin[i], w, r2) &&
             dleq_challenge(lambda, i, r1, r2, e) && sc_respond(s, w, e, m[i]);
    }
    if (!err && !ok)
        err = KD_ERR_INTERNAL;
    memset(inv, 0, sizeof inv);
    memset(m, 0, sizeof m);
    memset(w, 0, sizeof w);
    memset(nu, 0, sizeof nu);
    return err == KD_ERR_BAD_KEY ? KD_ERR_INTERNAL : err;
}

/* R = s·base - e·pub, serialized; 0 at infinity */
static int dleq_point(const secp256k1_pubkey *base, const secp256k1_pubkey *pub, const uint8_t *s, const uint8_t *e,
                      kd_hm_point out)
{
    secp256k1_pubkey sb = *base, ep = *pub, r;
    if (!secp256k1_ec_pubkey_tweak_mul(CTX, &sb, s) || !secp256k1_ec_pubkey_tweak_mul(CTX, &ep, e) ||
        !secp256k1_ec_pubkey_negate(CTX, &ep))
        return 0;
    const secp256k1_pubkey *both[2] = {&sb, &ep};
    return secp256k1_ec_pubkey_combine(CTX, &r, both, 2) && serialize(&r, out);
}

kd_err kd_hm_lock_verify(const kd_hm_bind *bind, const kd_hm_point key, const kd_hm_point in[KD_HM_DEALT],
                         const kd_hm_point out[KD_HM_DEALT], const kd_hm_point commits[KD_HM_DEALT],
                         const uint8_t proofs[KD_HM_LOCK_PROOF_LEN], int *bad)
{
    uint8_t lambda[KD_HASH_LEN];
    *bad = 0;
    kd_err err = lock_digest(bind, key, in, out, commits, lambda);
    if (err)
        return err;
    secp256k1_pubkey h;
    if (!parse(key, &h))
        return KD_OK; /* position 0 fails: no key to check against */
    for (unsigned i = 0; i < KD_HM_DEALT; i++) {
        const uint8_t *e = proofs + i * KD_HM_DLEQ_LEN, *s = e + SC;
        secp256k1_pubkey pin, pout, pk;
        kd_hm_point r1, r2;
        scalar check;
        *bad = (int)i;
        if (!sc_valid(e) || !sc_valid(s) || !parse(in[i], &pin) || !parse(out[i], &pout) || !parse(commits[i], &pk) ||
            !dleq_point(&h, &pk, s, e, r1) || !dleq_point(&pin, &pout, s, e, r2) ||
            !dleq_challenge(lambda, i, r1, r2, check) || memcmp(check, e, SC) != 0)
            return KD_OK;
    }
    *bad = -1;
    return KD_OK;
}
