/*
 * blockscript_consent_test.c — a new_episode's "consent" in block scripts
 * (tools/script/blockscript.c): each key is the seat whose pubkey it is,
 * and the feed signs the creation with it over the converted params bytes
 * for the chain it is given (tools/script/feeder.c); the line written
 * back parses to the same consents; a key that is no participant, a raw
 * pubkey, a reference that does not resolve and a malformed list are
 * errors naming the line and the key.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "engine/crypto.h"
#include "engine/wire.h"
#include "tools/script/blockscript.h"
#include "tools/script/feeder.h"
#include "kdapp.pb-c.h"

#define CHAIN "local:0123456789abcdef0123456789abcdef"

#define LINE(consent)                                                                                   \
    "{\"accept\": {\"hash\": \"b1\", \"txs\": [{\"new_episode\": {\"id\": 9, \"type\": \"tictactoe\", " \
    "\"participants\": [\"test:alice\", \"test:house\"], \"cap\": 3" consent "}}]}}\n"

static kd_err parse(const char *text, kd_script *s, char *why, size_t why_len)
{
    kd_script_init(s);
    return kd_script_parse(text, strlen(text), NULL, s, why, why_len);
}

static kd_pubkey pub(const char *name)
{
    kd_key k;
    cr_assert_eq(kd_key_test(name, &k), KD_OK);
    return k.pub;
}

/* Consent i names its seat and key, and the feed's payload carries its
 * signature, which verifies for the seat's key over the tx's creation on
 * CHAIN (and on no other chain). */
static void expect_consent(const kd_script_tx *tx, size_t i, uint32_t seat, const char *ref)
{
    const kd_script_consent *c = &tx->consents[i];
    cr_expect_eq(c->seat, seat, "consent %zu: seat %u, want %u", i, c->seat, seat);
    cr_expect_str_eq(c->ref, ref);
    kd_buf p;
    kd_buf_init(&p);
    cr_assert_eq(kd_feeder_new_episode(tx, CHAIN, &p), KD_OK);
    Kdapp__EpisodeMessage *em = kdapp__episode_message__unpack(NULL, p.len, p.data);
    cr_assert(em && em->new_episode && em->new_episode->n_consents == tx->consent_count);
    const Kdapp__SeatConsent *sc = em->new_episode->consents[i];
    cr_expect_eq(sc->seat, seat);
    uint8_t digest[KD_HASH_LEN];
    kd_creation_digest(CHAIN, tx->episode_id, tx->type, &tx->participants, tx->body, tx->body_len, 0, digest);
    cr_expect_eq(kd_sig_verify(&tx->participants.keys[seat], digest, sc->signature.data, sc->signature.len), KD_OK,
                 "consent %zu signs the creation with its params bytes on the chain", i);
    kd_creation_digest("kaspa:mainnet", tx->episode_id, tx->type, &tx->participants, tx->body, tx->body_len, 0, digest);
    cr_expect_neq(kd_sig_verify(&tx->participants.keys[seat], digest, sc->signature.data, sc->signature.len), KD_OK,
                  "consent %zu is for its chain only", i);
    kdapp__episode_message__free_unpacked(em, NULL);
    kd_buf_fini(&p);
}

Test(blockscript_consent, each_key_signs_as_its_seat)
{
    kd_script s;
    char why[256] = "";
    cr_assert_eq(parse(LINE(", \"consent\": [\"test:house\", \"test:alice\"]"), &s, why, sizeof why), KD_OK, "%s", why);
    const kd_script_tx *tx = &s.ops[0].txs[0];
    cr_assert_eq(tx->consent_count, 2);
    cr_assert_gt(tx->body_len, 0, "the cap shorthand gives params bytes");
    expect_consent(tx, 0, 1, "test:house");
    expect_consent(tx, 1, 0, "test:alice");
    kd_pubkey house = pub("house");
    cr_expect_arr_eq(tx->participants.keys[1].bytes, house.bytes, KD_PUBKEY_LEN);

    /* A consent needs a chain name to sign for. */
    kd_buf p;
    kd_buf_init(&p);
    cr_expect_eq(kd_feeder_new_episode(tx, "local", &p), KD_ERR_INVALID_ARG);
    cr_expect_eq(kd_feeder_new_episode(tx, "", &p), KD_ERR_INVALID_ARG);
    kd_buf_fini(&p);

    /* Written back and parsed again: the same keys and seats. */
    kd_buf line;
    kd_buf_init(&line);
    cr_assert_eq(kd_script_op_write(&s.ops[0], &line), KD_OK);
    cr_assert_eq(kd_buf_append(&line, "", 1), KD_OK);
    cr_expect(strstr((const char *)line.data, "\"consent\":[\"test:house\",\"test:alice\"]") != NULL, "%s",
              (const char *)line.data);
    kd_script again;
    cr_assert_eq(parse((const char *)line.data, &again, why, sizeof why), KD_OK, "%s", why);
    const kd_script_tx *tx2 = &again.ops[0].txs[0];
    cr_assert_eq(tx2->consent_count, 2);
    for (size_t i = 0; i < 2; i++) {
        cr_expect_eq(tx2->consents[i].seat, tx->consents[i].seat);
        cr_expect_str_eq(tx2->consents[i].ref, tx->consents[i].ref);
        cr_expect_arr_eq(tx2->consents[i].key.pub.bytes, tx->consents[i].key.pub.bytes, KD_PUBKEY_LEN);
    }
    kd_script_fini(&again);
    kd_buf_fini(&line);
    kd_script_fini(&s);
}

/* Without "consent" every participant named by key consents as its seat
 * (a raw pubkey cannot); "consent": [] gives none. */
Test(blockscript_consent, none_means_every_key_and_empty_means_no_consent)
{
    kd_script s;
    char why[256] = "";
    cr_assert_eq(parse(LINE(""), &s, why, sizeof why), KD_OK, "%s", why);
    const kd_script_tx *tx = &s.ops[0].txs[0];
    cr_expect(tx->consent_implicit);
    cr_assert_eq(tx->consent_count, 2);
    cr_expect_eq(tx->consents[0].seat, 0);
    cr_expect_str_eq(tx->consents[0].ref, "test:alice");
    cr_expect_eq(tx->consents[1].seat, 1);
    cr_expect_str_eq(tx->consents[1].ref, "test:house");
    kd_buf line;
    kd_buf_init(&line);
    cr_assert_eq(kd_script_op_write(&s.ops[0], &line), KD_OK);
    cr_assert_eq(kd_buf_append(&line, "", 1), KD_OK);
    cr_expect_null(strstr((const char *)line.data, "consent"), "an implicit consent is not written back");
    kd_buf_fini(&line);
    kd_script_fini(&s);
    static const char raw[] = "{\"accept\": {\"hash\": \"b1\", \"txs\": [{\"new_episode\": {\"id\": 9, \"type\": "
                              "\"tictactoe\", \"participants\": [\"test:alice\", "
                              "\"0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798\"]}}]}}\n";
    cr_assert_eq(parse(raw, &s, why, sizeof why), KD_OK, "%s", why);
    cr_expect_eq(s.ops[0].txs[0].consent_count, 1, "the raw pubkey cannot sign");
    kd_script_fini(&s);
    cr_assert_eq(parse(LINE(", \"consent\": []"), &s, why, sizeof why), KD_OK, "%s", why);
    cr_expect_eq(s.ops[0].txs[0].consent_count, 0);
    cr_expect(!s.ops[0].txs[0].consent_implicit);
    kd_script_fini(&s);
    /* The same key twice reaches the engine, which refuses it. */
    cr_assert_eq(parse(LINE(", \"consent\": [\"test:house\", \"test:house\"]"), &s, why, sizeof why), KD_OK, "%s", why);
    cr_expect_eq(s.ops[0].txs[0].consent_count, 2);
    kd_script_fini(&s);
}

typedef struct {
    const char *line;
    kd_err err;
    const char *why;
} bad_case;

Test(blockscript_consent, bad_consents_name_the_line_and_the_key)
{
    static const bad_case cases[] = {
        {LINE(", \"consent\": [\"test:eve\"]"), KD_ERR_PARSE,
         "line 1: txs[0]: consent[0]: key \"test:eve\" is not a participant of episode 9, so it cannot consent"},
        {LINE(", \"consent\": [\"test:house\", \"nokey\"]"), KD_ERR_NOT_FOUND,
         "line 1: txs[0]: consent[1]: key \"nokey\" needs a key directory"},
        {LINE(", \"consent\": [\"test:\"]"), KD_ERR_INVALID_ARG, "consent[0]: test key 'test:' is not valid"},
        {LINE(", \"consent\": [\"02"
              "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\"]"),
         KD_ERR_PARSE, "consent[0]: a raw pubkey cannot sign"},
        {LINE(", \"consent\": [5]"), KD_ERR_PARSE, "consent[0] must be a string"},
        {LINE(", \"consent\": [\"\"]"), KD_ERR_PARSE, "consent[0] must not be empty"},
        {LINE(", \"consent\": \"test:house\""), KD_ERR_PARSE, "consent must be an array of key references"},
        {LINE(", \"consent\": [\"test:a\", \"test:a\", \"test:a\", \"test:a\", \"test:a\", \"test:a\", \"test:a\", "
              "\"test:a\", \"test:a\"]"),
         KD_ERR_PARSE, "consent has 9 entries; at most 8"},
        {LINE(", \"consnt\": []"), KD_ERR_PARSE, "unknown field \"consnt\" in new_episode"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kd_script s;
        char why[256] = "";
        kd_err err = parse(cases[i].line, &s, why, sizeof why);
        cr_expect_eq(err, cases[i].err, "case %zu: %s, want %s (%s)", i, kd_err_code(err), kd_err_code(cases[i].err),
                     why);
        cr_expect(strstr(why, cases[i].why) != NULL, "case %zu: \"%s\" should say \"%s\"", i, why, cases[i].why);
        cr_expect_eq(s.count, 0, "case %zu: nothing of the failing line is kept", i);
        kd_script_fini(&s);
    }
}
