/* crypto.c — SHA-256 (OpenSSL EVP), secp256k1 signatures, key files. */
#include "engine/crypto.h"
#include "engine/bytes.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <pthread.h>
#include <secp256k1.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/episode.h"

/* OpenSSL 3 looks EVP_sha256()'s implementation up in its provider
 * tables at every digest (a lock and a hash lookup, a tenth of a move's
 * own work in the writer); fetched once, it is used directly. */
static EVP_MD *sha256_fetched;
static pthread_once_t sha256_once = PTHREAD_ONCE_INIT;

static void sha256_fetch(void) { sha256_fetched = EVP_MD_fetch(NULL, "SHA256", NULL); }

static const EVP_MD *sha256_md(void)
{
    pthread_once(&sha256_once, sha256_fetch);
    return sha256_fetched ? sha256_fetched : EVP_sha256();
}

void kd_sha256(const void *data, size_t len, uint8_t out[KD_HASH_LEN])
{
    unsigned int n = 0;
    EVP_Digest(data, len, out, &n, sha256_md(), NULL);
}

kd_err kd_sha256_init(kd_sha256_ctx *ctx)
{
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    ctx->md = md;
    if (!md)
        return KD_ERR_NOMEM;
    if (EVP_DigestInit_ex(md, sha256_md(), NULL) != 1)
        return KD_ERR_INTERNAL;
    return KD_OK;
}

void kd_sha256_update(kd_sha256_ctx *ctx, const void *data, size_t len) { EVP_DigestUpdate(ctx->md, data, len); }

void kd_sha256_final(kd_sha256_ctx *ctx, uint8_t out[KD_HASH_LEN])
{
    unsigned int n = 0;
    EVP_DigestFinal_ex(ctx->md, out, &n);
}

void kd_sha256_fini(kd_sha256_ctx *ctx)
{
    EVP_MD_CTX_free(ctx->md);
    ctx->md = NULL;
}

void kd_command_digest(uint32_t episode_id, uint64_t counter, const uint8_t *command, size_t len,
                       uint8_t out[KD_HASH_LEN])
{
    /* Small commands (most moves) hash from one stack buffer. */
    uint8_t head[sizeof KD_COMMAND_DOMAIN - 1 + 12 + 64];
    size_t tag = sizeof KD_COMMAND_DOMAIN - 1;
    memcpy(head, KD_COMMAND_DOMAIN, tag);
    kd_put_u32be(head + tag, episode_id);
    kd_put_u64be(head + tag + 4, counter);
    if (len <= 64) {
        if (len)
            memcpy(head + tag + 12, command, len);
        kd_sha256(head, tag + 12 + len, out);
        return;
    }
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    unsigned int n = 0;
    if (!md || EVP_DigestInit_ex(md, sha256_md(), NULL) != 1) {
        memset(out, 0, KD_HASH_LEN); /* cannot match any real signature */
        EVP_MD_CTX_free(md);
        return;
    }
    EVP_DigestUpdate(md, head, tag + 12);
    EVP_DigestUpdate(md, command, len);
    EVP_DigestFinal_ex(md, out, &n);
    EVP_MD_CTX_free(md);
}

void kd_bound_digest_begin(kd_sha256_ctx *sha, const char *domain, const char *chain, uint32_t episode_id,
                           const char *type_name)
{
    const char *type = type_name ? type_name : "";
    size_t clen = chain ? strlen(chain) : 0;
    uint8_t id[4], n = (uint8_t)(clen > 255 ? 255 : clen), zero = 0;
    kd_put_u32be(id, episode_id);
    kd_sha256_update(sha, domain, strlen(domain));
    kd_sha256_update(sha, &n, 1);
    if (n)
        kd_sha256_update(sha, chain, n);
    kd_sha256_update(sha, id, sizeof id);
    kd_sha256_update(sha, type, strlen(type));
    kd_sha256_update(sha, &zero, 1);
}

/* The creation digest after its head (the domain, and in v2 the chain):
 * id, type, participants, params, and a table's join_timeout when not 0. */
static void creation_digest(int v1, const char *chain, uint32_t episode_id, const char *type_name,
                            const kd_participants *parts, const uint8_t *params, size_t params_len,
                            uint32_t join_timeout, uint8_t out[KD_HASH_LEN])
{
    const char *type = type_name ? type_name : "";
    size_t count = parts->count < KD_MAX_PARTICIPANTS ? parts->count : KD_MAX_PARTICIPANTS;
    uint8_t id[4], n = (uint8_t)count, zero = 0, plen[4];
    kd_put_u32be(id, episode_id);
    kd_put_u32be(plen, (uint32_t)params_len);
    kd_sha256_ctx sha;
    if (kd_sha256_init(&sha) != KD_OK) {
        memset(out, 0, KD_HASH_LEN); /* cannot match any real signature */
        kd_sha256_fini(&sha);
        return;
    }
    if (v1) {
        kd_sha256_update(&sha, KD_CREATION_DOMAIN_V1, sizeof KD_CREATION_DOMAIN_V1 - 1);
        kd_sha256_update(&sha, id, sizeof id);
        kd_sha256_update(&sha, type, strlen(type));
        kd_sha256_update(&sha, &zero, 1);
    } else {
        kd_bound_digest_begin(&sha, KD_CREATION_DOMAIN, chain, episode_id, type);
    }
    kd_sha256_update(&sha, &n, 1);
    for (size_t i = 0; i < count; i++)
        kd_sha256_update(&sha, parts->keys[i].bytes, KD_PUBKEY_LEN);
    kd_sha256_update(&sha, plen, sizeof plen);
    if (params_len)
        kd_sha256_update(&sha, params, params_len);
    if (join_timeout) {
        uint8_t t[4];
        kd_put_u32be(t, join_timeout);
        kd_sha256_update(&sha, t, sizeof t);
    }
    kd_sha256_final(&sha, out);
    kd_sha256_fini(&sha);
}

void kd_creation_digest(const char *chain, uint32_t episode_id, const char *type_name, const kd_participants *parts,
                        const uint8_t *params, size_t params_len, uint32_t join_timeout, uint8_t out[KD_HASH_LEN])
{
    creation_digest(0, chain, episode_id, type_name, parts, params, params_len, join_timeout, out);
}

void kd_creation_digest_v1(uint32_t episode_id, const char *type_name, const kd_participants *parts,
                           const uint8_t *params, size_t params_len, uint8_t out[KD_HASH_LEN])
{
    creation_digest(1, NULL, episode_id, type_name, parts, params, params_len, 0, out);
}

#define KD_JOIN_DOMAIN "kdapp/join/v1"
#define KD_CANCEL_DOMAIN "kdapp/cancel/v1"

void kd_join_digest(const char *chain, uint32_t episode_id, const char *type_name, uint32_t seat, const kd_pubkey *key,
                    const uint8_t *params, size_t params_len, const uint8_t *seat_params, size_t seat_len,
                    uint8_t out[KD_HASH_LEN])
{
    uint8_t s = (uint8_t)seat, plen[4], slen[4];
    kd_put_u32be(plen, (uint32_t)params_len);
    kd_put_u32be(slen, (uint32_t)seat_len);
    kd_sha256_ctx sha;
    if (kd_sha256_init(&sha) != KD_OK) {
        memset(out, 0, KD_HASH_LEN); /* cannot match any real signature */
        kd_sha256_fini(&sha);
        return;
    }
    kd_bound_digest_begin(&sha, KD_JOIN_DOMAIN, chain, episode_id, type_name);
    kd_sha256_update(&sha, &s, 1);
    kd_sha256_update(&sha, key->bytes, KD_PUBKEY_LEN);
    kd_sha256_update(&sha, plen, sizeof plen);
    if (params_len)
        kd_sha256_update(&sha, params, params_len);
    kd_sha256_update(&sha, slen, sizeof slen);
    if (seat_len)
        kd_sha256_update(&sha, seat_params, seat_len);
    kd_sha256_final(&sha, out);
    kd_sha256_fini(&sha);
}

void kd_cancel_digest(const char *chain, uint32_t episode_id, const char *type_name, uint8_t out[KD_HASH_LEN])
{
    kd_sha256_ctx sha;
    if (kd_sha256_init(&sha) != KD_OK) {
        memset(out, 0, KD_HASH_LEN);
        kd_sha256_fini(&sha);
        return;
    }
    kd_bound_digest_begin(&sha, KD_CANCEL_DOMAIN, chain, episode_id, type_name);
    kd_sha256_final(&sha, out);
    kd_sha256_fini(&sha);
}

/* Parsed public keys, per thread. Parsing a compressed key costs a square
 * root in the field, about an eighth of an ECDSA check, and a player signs
 * every move with the one key it sat down with. Direct-mapped; a slot
 * answers only for all 33 bytes equal, and only valid keys are kept, so a
 * hit is exactly what parsing again would give (keys that collide on a
 * slot only cost the parse). Allocated on a thread's first check and freed
 * when the thread ends: threads that never check a key pay nothing. */
#define PUBKEY_CACHE_SLOTS 256

typedef struct {
    uint8_t bytes[KD_PUBKEY_LEN];
    uint8_t used;
    secp256k1_pubkey parsed;
} pubkey_slot;

static _Thread_local pubkey_slot *pubkey_cache;
static pthread_key_t pubkey_cache_key;
static int pubkey_cache_keyed;
static pthread_once_t pubkey_cache_once = PTHREAD_ONCE_INIT;

/* At the thread's end; a check after it (from another key's destructor)
 * would allocate again rather than use freed slots. */
static void pubkey_cache_free(void *slots)
{
    free(slots);
    pubkey_cache = NULL;
}

static void pubkey_cache_key_make(void)
{
    pubkey_cache_keyed = pthread_key_create(&pubkey_cache_key, pubkey_cache_free) == 0;
}

static pubkey_slot *pubkey_cache_slot(const kd_pubkey *pubkey)
{
    if (!pubkey_cache) {
        pthread_once(&pubkey_cache_once, pubkey_cache_key_make);
        pubkey_slot *slots = pubkey_cache_keyed ? calloc(PUBKEY_CACHE_SLOTS, sizeof *slots) : NULL;
        if (!slots)
            return NULL; /* parse every time */
        if (pthread_setspecific(pubkey_cache_key, slots) != 0) {
            free(slots);
            return NULL;
        }
        pubkey_cache = slots;
    }
    /* bytes 1.. are the x coordinate: uniform for real keys */
    return &pubkey_cache[(pubkey->bytes[1] | (unsigned)pubkey->bytes[2] << 8) % PUBKEY_CACHE_SLOTS];
}

static int pubkey_parse(const kd_pubkey *pubkey, secp256k1_pubkey *out)
{
    pubkey_slot *slot = pubkey_cache_slot(pubkey);
    if (slot && slot->used && memcmp(slot->bytes, pubkey->bytes, KD_PUBKEY_LEN) == 0) {
        *out = slot->parsed;
        return 1;
    }
    if (!secp256k1_ec_pubkey_parse(secp256k1_context_static, out, pubkey->bytes, KD_PUBKEY_LEN))
        return 0;
    if (slot) {
        memcpy(slot->bytes, pubkey->bytes, KD_PUBKEY_LEN);
        slot->parsed = *out;
        slot->used = 1;
    }
    return 1;
}

kd_err kd_pubkey_check(const kd_pubkey *pubkey)
{
    secp256k1_pubkey pk;
    return pubkey_parse(pubkey, &pk) ? KD_OK : KD_ERR_BAD_PUBKEY;
}

kd_err kd_sig_verify(const kd_pubkey *pubkey, const uint8_t digest[KD_HASH_LEN], const uint8_t *sig, size_t sig_len)
{
    const secp256k1_context *ctx = secp256k1_context_static;
    secp256k1_pubkey pk;
    secp256k1_ecdsa_signature s;
    if (!pubkey_parse(pubkey, &pk))
        return KD_ERR_BAD_PUBKEY;
    /* An empty signature field decodes to (NULL, 0); libsecp256k1 declares
     * its input non-null, so refuse it here (found by fuzz_payload). */
    if (!sig || sig_len == 0)
        return KD_ERR_BAD_SIGNATURE;
    int parsed = sig_len == KD_SIG_COMPACT_LEN ? secp256k1_ecdsa_signature_parse_compact(ctx, &s, sig)
                                               : secp256k1_ecdsa_signature_parse_der(ctx, &s, sig, sig_len);
    if (!parsed || !secp256k1_ecdsa_verify(ctx, &s, digest, &pk))
        return KD_ERR_BAD_SIGNATURE;
    return KD_OK;
}

kd_err kd_key_from_secret(const uint8_t secret[32], kd_key *key)
{
    secp256k1_pubkey pk;
    size_t len = KD_PUBKEY_LEN;
    if (!secp256k1_ec_seckey_verify(secp256k1_context_static, secret))
        return KD_ERR_BAD_KEY;
    secp256k1_context *ctx = secp256k1_context_create(SECP256K1_CONTEXT_NONE);
    if (!ctx)
        return KD_ERR_NOMEM;
    int ok = secp256k1_ec_pubkey_create(ctx, &pk, secret) &&
             secp256k1_ec_pubkey_serialize(ctx, key->pub.bytes, &len, &pk, SECP256K1_EC_COMPRESSED);
    secp256k1_context_destroy(ctx);
    if (!ok)
        return KD_ERR_BAD_KEY;
    memcpy(key->secret, secret, 32);
    return KD_OK;
}

kd_err kd_random_bytes(uint8_t *out, size_t len)
{
    if (len > INT_MAX || RAND_bytes(out, (int)len) != 1)
        return KD_ERR_IO;
    return KD_OK;
}

kd_err kd_key_generate(kd_key *key)
{
    uint8_t secret[32];
    for (int tries = 0; tries < 16; tries++) {
        if (kd_random_bytes(secret, sizeof secret))
            return KD_ERR_IO;
        if (kd_key_from_secret(secret, key) == KD_OK)
            return KD_OK;
    }
    return KD_ERR_INTERNAL;
}

kd_err kd_key_test(const char *name, kd_key *key)
{
    static const char prefix[] = "kdapp-test-key:";
    size_t n = strlen(name);
    if (n == 0 || n > KD_KEY_NAME_MAX)
        return KD_ERR_INVALID_ARG;
    char text[sizeof prefix + KD_KEY_NAME_MAX];
    memcpy(text, prefix, sizeof prefix - 1);
    memcpy(text + sizeof prefix - 1, name, n);
    uint8_t secret[32];
    kd_sha256(text, sizeof prefix - 1 + n, secret);
    return kd_key_from_secret(secret, key);
}

/* Appends type_name, 0x00, episode_id (u32 BE) and seat to `buf` at `at`:
 * the fields the binding's tag and the seed share. Returns the new end. */
static size_t put_seat(uint8_t *buf, size_t at, const char *type_name, uint32_t episode_id, int seat)
{
    size_t n = strnlen(type_name, KD_TYPE_NAME_MAX - 1);
    memcpy(buf + at, type_name, n);
    at += n;
    buf[at++] = 0;
    kd_put_u32be(buf + at, episode_id);
    at += 4;
    buf[at++] = (uint8_t)seat;
    return at;
}

/* The binding's tag of `nonce` (crypto.h). */
static void binding_tag(const kd_key *key, const uint8_t store_id[KD_STORE_ID_LEN], const char *type_name,
                        uint32_t episode_id, int seat, const uint8_t nonce[KD_SECRET_NONCE_LEN],
                        uint8_t tag[KD_SECRET_BINDING_LEN - KD_SECRET_NONCE_LEN])
{
    static const char domain[] = "kdapp/secret-binding/v1";
    uint8_t buf[sizeof domain - 1 + 32 + KD_STORE_ID_LEN + KD_TYPE_NAME_MAX + 1 + 4 + 1 + KD_SECRET_NONCE_LEN];
    uint8_t h[KD_HASH_LEN];
    size_t at = sizeof domain - 1;
    memcpy(buf, domain, at);
    memcpy(buf + at, key->secret, 32);
    at += 32;
    memcpy(buf + at, store_id, KD_STORE_ID_LEN);
    at += KD_STORE_ID_LEN;
    at = put_seat(buf, at, type_name, episode_id, seat);
    memcpy(buf + at, nonce, KD_SECRET_NONCE_LEN);
    at += KD_SECRET_NONCE_LEN;
    kd_sha256(buf, at, h);
    memcpy(tag, h, KD_SECRET_BINDING_LEN - KD_SECRET_NONCE_LEN);
    memset(buf, 0, sizeof buf);
}

void kd_secret_binding_make(const kd_key *key, const uint8_t store_id[KD_STORE_ID_LEN], const char *type_name,
                            uint32_t episode_id, int seat, const uint8_t nonce[KD_SECRET_NONCE_LEN],
                            uint8_t out[KD_SECRET_BINDING_LEN])
{
    memmove(out, nonce, KD_SECRET_NONCE_LEN);
    binding_tag(key, store_id, type_name, episode_id, seat, out, out + KD_SECRET_NONCE_LEN);
}

kd_err kd_secret_binding_fresh(const kd_key *key, const uint8_t store_id[KD_STORE_ID_LEN], const char *type_name,
                               uint32_t episode_id, int seat, uint8_t out[KD_SECRET_BINDING_LEN])
{
    uint8_t nonce[KD_SECRET_NONCE_LEN];
    if (RAND_bytes(nonce, sizeof nonce) != 1)
        return KD_ERR_IO;
    kd_secret_binding_make(key, store_id, type_name, episode_id, seat, nonce, out);
    return KD_OK;
}

int kd_secret_binding_ours(const kd_key *key, const uint8_t store_id[KD_STORE_ID_LEN], const char *type_name,
                           uint32_t episode_id, int seat, const uint8_t binding[KD_SECRET_BINDING_LEN])
{
    uint8_t tag[KD_SECRET_BINDING_LEN - KD_SECRET_NONCE_LEN];
    binding_tag(key, store_id, type_name, episode_id, seat, binding, tag);
    return CRYPTO_memcmp(tag, binding + KD_SECRET_NONCE_LEN, sizeof tag) == 0;
}

void kd_secret_seed(const kd_key *key, const char *type_name, uint32_t episode_id, int seat,
                    const uint8_t binding[KD_SECRET_BINDING_LEN], uint8_t out[KD_SECRET_SEED_LEN])
{
    static const char tag[] = "kdapp-secret-v2";
    uint8_t buf[sizeof tag - 1 + 32 + KD_TYPE_NAME_MAX + 1 + 4 + 1 + KD_SECRET_BINDING_LEN];
    size_t at = sizeof tag - 1;
    memcpy(buf, tag, at);
    memcpy(buf + at, key->secret, 32);
    at += 32;
    at = put_seat(buf, at, type_name, episode_id, seat);
    memcpy(buf + at, binding, KD_SECRET_BINDING_LEN);
    at += KD_SECRET_BINDING_LEN;
    kd_sha256(buf, at, out);
    memset(buf, 0, sizeof buf);
}

kd_err kd_key_sign(const kd_key *key, const uint8_t digest[KD_HASH_LEN], uint8_t sig[KD_SIG_COMPACT_LEN])
{
    secp256k1_context *ctx = secp256k1_context_create(SECP256K1_CONTEXT_NONE);
    if (!ctx)
        return KD_ERR_NOMEM;
    secp256k1_ecdsa_signature s;
    int ok = secp256k1_ecdsa_sign(ctx, &s, digest, key->secret, NULL, NULL) &&
             secp256k1_ecdsa_signature_serialize_compact(ctx, sig, &s);
    secp256k1_context_destroy(ctx);
    return ok ? KD_OK : KD_ERR_BAD_KEY;
}

int kd_key_name_valid(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n > KD_KEY_NAME_MAX || name[0] == '.')
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
              c == '.'))
            return 0;
    }
    return 1;
}

kd_err kd_key_save(const char *dir, const char *name, const kd_key *key, char *why, size_t why_len)
{
    if (!kd_key_name_valid(name)) {
        kd_reject_write(why, why_len, "key name '%s' is not valid: use 1-64 of A-Z a-z 0-9 _ . -", name);
        return KD_ERR_INVALID_ARG;
    }
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        kd_reject_write(why, why_len, "cannot create key directory %s: %s", dir, strerror(errno));
        return KD_ERR_IO;
    }
    /* Written whole under a temporary name, then linked to its own: a key
     * file is seen complete or not at all, by a reader or by a second
     * process creating the same name at the same moment (link never
     * replaces). */
    char path[4096], tmp[4200];
    snprintf(path, sizeof path, "%s/%s.key", dir, name);
    snprintf(tmp, sizeof tmp, "%s/.%s.key.XXXXXX", dir, name);
    int fd = mkstemp(tmp); /* mode 0600 */
    if (fd < 0) {
        kd_reject_write(why, why_len, "cannot create key file %s: %s", path, strerror(errno));
        return KD_ERR_IO;
    }
    char line[2 * 32 + 2];
    kd_hex_encode(key->secret, 32, line);
    line[64] = '\n';
    ssize_t w = write(fd, line, 65);
    int synced = fsync(fd);
    int saved = errno;
    close(fd);
    memset(line, 0, sizeof line);
    if (w != 65 || synced != 0) {
        kd_reject_write(why, why_len, "cannot write key file %s: %s", path, strerror(w < 0 || synced ? saved : EIO));
        unlink(tmp);
        return KD_ERR_IO;
    }
    int linked = link(tmp, path);
    saved = errno;
    unlink(tmp);
    if (linked != 0) {
        kd_reject_write(why, why_len, "cannot create key file %s: %s", path, strerror(saved));
        return saved == EEXIST ? KD_ERR_EXISTS : KD_ERR_IO;
    }
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    if (dfd >= 0) { /* the name survives a crash too */
        fsync(dfd);
        close(dfd);
    }
    return KD_OK;
}

kd_err kd_key_load(const char *dir, const char *name, kd_key *key, char *why, size_t why_len)
{
    if (!kd_key_name_valid(name)) {
        kd_reject_write(why, why_len, "key name '%s' is not valid: use 1-64 of A-Z a-z 0-9 _ . -", name);
        return KD_ERR_INVALID_ARG;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.key", dir, name);
    int fd = open(path, O_RDONLY);
    if (fd < 0 && errno == ENOENT) {
        /* the directory twice, no more: a deep path still fits the sentence */
        kd_reject_write(why, why_len,
                        "there is no key %s in %s (no file %s.key): run `kdapp keygen %s --keys %s` first", name, dir,
                        name, name, dir);
        return KD_ERR_NOT_FOUND;
    }
    if (fd < 0) {
        kd_reject_write(why, why_len, "cannot open key file %s: %s", path, strerror(errno));
        return KD_ERR_IO;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        kd_reject_write(why, why_len, "key file %s is not a regular file", path);
        return KD_ERR_BAD_KEY;
    }
    if (st.st_mode & 077) {
        close(fd);
        kd_reject_write(why, why_len, "key file %s is readable by others; run: chmod 600 %s", path, path);
        return KD_ERR_BAD_KEY;
    }
    char text[80] = {0};
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n < 0) {
        kd_reject_write(why, why_len, "cannot read key file %s: %s", path, strerror(errno));
        return KD_ERR_IO;
    }
    while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r' || text[n - 1] == ' '))
        text[--n] = '\0';
    uint8_t secret[32];
    kd_err err = KD_OK;
    if (kd_hex_decode(text, secret, 32) != 0 || (err = kd_key_from_secret(secret, key)) != KD_OK) {
        kd_reject_write(why, why_len, "key file %s does not hold a valid secp256k1 secret (64 hex digits)", path);
        err = KD_ERR_BAD_KEY;
    }
    memset(secret, 0, sizeof secret);
    memset(text, 0, sizeof text);
    return err;
}

kd_err kd_key_resolve(const char *dir, const char *ref, kd_key *key, char *why, size_t why_len)
{
    if (strncmp(ref, "test:", 5) == 0) {
        kd_err err = kd_key_test(ref + 5, key);
        if (err)
            kd_reject_write(why, why_len, "test key '%s' is not valid: the name must be 1-64 characters", ref);
        return err;
    }
    return kd_key_load(dir, ref, key, why, why_len);
}
