/*
 * crypto_test.c — signature checks through the per-thread cache of parsed
 * keys (engine/crypto.c): a key that shares a cache slot with one checked
 * before, even the same point's negation (the same x, the other parity
 * byte), gets its own verdict; an invalid key is refused whatever the slot
 * holds; threads checking different keys at once each get theirs.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "engine/crypto.h"

static kd_key test_key(const char *name)
{
    kd_key k;
    cr_assert_eq(kd_key_test(name, &k), KD_OK);
    return k;
}

static void sign(const kd_key *k, const uint8_t digest[KD_HASH_LEN], uint8_t sig[KD_SIG_COMPACT_LEN])
{
    cr_assert_eq(kd_key_sign(k, digest, sig), KD_OK);
}

/* Key `name`'s signature of a move's digest, checked once: its key is in
 * this thread's cache. */
static kd_key signed_move(const char *name, uint8_t digest[KD_HASH_LEN], uint8_t sig[KD_SIG_COMPACT_LEN])
{
    kd_key k = test_key(name);
    kd_sha256("move", 4, digest);
    sign(&k, digest, sig);
    cr_assert_eq(kd_sig_verify(&k.pub, digest, sig, KD_SIG_COMPACT_LEN), KD_OK);
    return k;
}

Test(crypto, the_negated_key_in_the_same_slot_does_not_verify)
{
    uint8_t digest[KD_HASH_LEN], sig[KD_SIG_COMPACT_LEN];
    kd_key k = signed_move("crypto-a", digest, sig);
    kd_pubkey negated = k.pub; /* the same x coordinate: the same slot */
    negated.bytes[0] ^= 1;     /* 02 <-> 03: the point's negation, a valid key */
    cr_assert_eq(kd_pubkey_check(&negated), KD_OK);
    cr_assert_eq(kd_sig_verify(&negated, digest, sig, sizeof sig), KD_ERR_BAD_SIGNATURE);
    /* and the first key's slot, now holding the negation, answers for it again */
    cr_assert_eq(kd_sig_verify(&k.pub, digest, sig, sizeof sig), KD_OK);
    cr_assert_eq(kd_sig_verify(&negated, digest, sig, sizeof sig), KD_ERR_BAD_SIGNATURE);
}

Test(crypto, an_invalid_key_is_refused_after_a_valid_one_in_its_slot)
{
    uint8_t digest[KD_HASH_LEN], sig[KD_SIG_COMPACT_LEN];
    kd_key k = signed_move("crypto-b", digest, sig);
    /* same prefix and slot bytes, an x with no point on the curve: try the
     * last byte until the parse fails (about half of all x do) */
    kd_pubkey bad = k.pub;
    int found = 0;
    for (int v = 0; v < 256 && !found; v++) {
        bad.bytes[KD_PUBKEY_LEN - 1] = (uint8_t)v;
        found = kd_pubkey_check(&bad) == KD_ERR_BAD_PUBKEY;
    }
    cr_assert(found, "no invalid x found among 256 last bytes");
    cr_assert_eq(kd_sig_verify(&bad, digest, sig, sizeof sig), KD_ERR_BAD_PUBKEY);
    cr_assert_eq(kd_pubkey_check(&bad), KD_ERR_BAD_PUBKEY, "an invalid key is never cached");
    cr_assert_eq(kd_sig_verify(&k.pub, digest, sig, sizeof sig), KD_OK);
}

enum { CHECKERS = 4, KEYS = 6, ROUNDS = 50 };

typedef struct {
    kd_key keys[KEYS];
    uint8_t digest[KD_HASH_LEN];
    uint8_t sigs[KEYS][KD_SIG_COMPACT_LEN];
    int wrong; /* verdicts that were not the expected one */
    pthread_barrier_t *start;
} check_job;

/* Every key against every signature: only the matching pair verifies. */
static void *check_all(void *arg)
{
    check_job *j = arg;
    pthread_barrier_wait(j->start);
    for (int r = 0; r < ROUNDS; r++)
        for (int k = 0; k < KEYS; k++) {
            int s = (k + r) % KEYS;
            kd_err want = s == k ? KD_OK : KD_ERR_BAD_SIGNATURE;
            j->wrong += kd_sig_verify(&j->keys[k].pub, j->digest, j->sigs[s], KD_SIG_COMPACT_LEN) != want;
        }
    return NULL;
}

Test(crypto, threads_checking_at_once_each_get_their_own_verdicts)
{
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, CHECKERS);
    check_job jobs[CHECKERS];
    pthread_t th[CHECKERS];
    for (int t = 0; t < CHECKERS; t++) {
        memset(&jobs[t], 0, sizeof jobs[t]);
        jobs[t].start = &start;
        kd_sha256(&t, sizeof t, jobs[t].digest);
        for (int k = 0; k < KEYS; k++) {
            char name[32];
            snprintf(name, sizeof name, "crypto-t%d-k%d", t % 2, k); /* two threads share each key set */
            jobs[t].keys[k] = test_key(name);
            sign(&jobs[t].keys[k], jobs[t].digest, jobs[t].sigs[k]);
        }
    }
    for (int t = 0; t < CHECKERS; t++)
        cr_assert_eq(pthread_create(&th[t], NULL, check_all, &jobs[t]), 0);
    for (int t = 0; t < CHECKERS; t++) {
        pthread_join(th[t], NULL);
        cr_expect_eq(jobs[t].wrong, 0, "thread %d: %d wrong verdicts", t, jobs[t].wrong);
    }
    pthread_barrier_destroy(&start);
}
