/*
 * consent_test.c — creation consent (the consent check of engine/rules.c:
 * every named seat signs the creation). Tic-tac-toe, and a copy of it
 * under another name, between alice (seat 0, who consents in every case
 * below unless it says otherwise) and the "house" (seat 1). A creation
 * without the house's consent, with a consent by another key, over other params, another
 * episode id or another chain, of version 1 (no chain), with a seat named
 * twice or out of range, or with an extra consent that does not verify,
 * is refused `no_consent` and changes nothing; a good one applies and
 * plays. The dry run predicts each verdict; replaying the log, trusted
 * (`kdapp replay`) and not (`kdapp verify`), into a store of the same
 * chain reproduces the store, and a log written before v2 (a v1 consent
 * recorded applied) replays too. The creation digest is checked against
 * its layout written out by hand. The chain a store follows (engine/
 * chain.h): made at creation, kept, checked at open, adopted once by a
 * store made before chains were named, and named by ingest requests.
 * Issue 39's attack on a board game: a creator names a stranger's key in
 * tic-tac-toe without its consent, and is refused no_consent; a log that
 * recorded such a creation applied (before every named seat had to
 * consent) still replays.
 */
#include <criterion/criterion.h>
#include <secp256k1.h>
#include <string.h>

#include "engine/ingest.h"
#include "engine/support.h"
#include "store.pb-c.h"
#include "tools/script/blockscript.h"
#include "tools/script/feeder.h"
#include "tools/sim/replay.h"

#define HOUSE_TYPE "house_ttt"

/* Tic-tac-toe under another name (a consent for one type is not one for
 * another). */
static kd_episode_ops house_ops;

typedef struct {
    kd_ttt_config cfg;
    kd_registry reg;
    kd_engine *engine;
    char dir[512];
} cs_env;

static cs_env env;

/* Opens a new store in e (following `chain`: NULL for its own local one). */
static void cs_open_chain(cs_env *e, const char *chain)
{
    char why[256] = "";
    memset(e, 0, sizeof *e);
    et_tmpdir(e->dir, sizeof e->dir);
    house_ops = kd_tictactoe_ops;
    house_ops.type_name = HOUSE_TYPE;
    kd_registry_init(&e->reg);
    ET_ASSERT_OK(kd_registry_add(&e->reg, &kd_tictactoe_ops, &e->cfg));
    ET_ASSERT_OK(kd_registry_add(&e->reg, &house_ops, &e->cfg));
    kd_engine_options opts = {
        .data_dir = e->dir, .registry = &e->reg, .durability = KD_DURABILITY_RELAXED, .chain = chain};
    kd_err err = kd_engine_open(&opts, &e->engine, why, sizeof why);
    cr_assert_eq(err, KD_OK, "open %s: %s (%s)", e->dir, kd_err_code(err), why);
}

static void cs_open(cs_env *e) { cs_open_chain(e, NULL); }

static void cs_close(cs_env *e)
{
    kd_engine_close(e->engine);
    e->engine = NULL;
    if (e->dir[0])
        et_rmtree(e->dir);
    e->dir[0] = '\0';
}

static void setup(void) { cs_open(&env); }
static void teardown(void) { cs_close(&env); }

TestSuite(consent, .init = setup, .fini = teardown, .timeout = 60);

/* alice (seat 0, X) against the house (seat 1, O). */
static kd_participants players(void)
{
    kd_participants p = {.count = 2};
    p.keys[0] = et_key("alice").pub;
    p.keys[1] = et_key("house").pub;
    return p;
}

/* The consent of `signer` for `seat`, signed over (id, type, parts,
 * params) on env's chain whatever the creation that carries it says. */
static kd_consent forged(const char *signer, uint32_t seat, uint32_t id, const char *type, const kd_participants *parts,
                         const uint8_t *params, size_t len)
{
    kd_key k = et_key(signer);
    uint8_t digest[KD_HASH_LEN];
    kd_consent c = {.seat = seat, .sig_len = KD_SIG_COMPACT_LEN};
    kd_creation_digest(kd_engine_chain(env.engine), id, type, parts, params, len, 0, digest);
    ET_ASSERT_OK(kd_key_sign(&k, digest, c.sig));
    return c;
}

/* The house's own consent to (id, type, players, params) on `chain`. */
static kd_consent house_consent_on(const char *chain, uint32_t id, const char *type, const uint8_t *params, size_t len)
{
    kd_participants p = players();
    kd_key house = et_key("house");
    kd_consent c;
    ET_ASSERT_OK(kd_consent_sign(&house, 1, chain, id, type, &p, params, len, &c));
    return c;
}

/* ... on env's chain. */
static kd_consent house_consent(uint32_t id, const char *type, const uint8_t *params, size_t len)
{
    return house_consent_on(kd_engine_chain(env.engine), id, type, params, len);
}

/* The house's consent of version 1 (no chain), as a log written before v2 holds it. */
static kd_consent house_consent_v1(uint32_t id, const char *type, const uint8_t *params, size_t len)
{
    kd_participants p = players();
    kd_key house = et_key("house");
    uint8_t digest[KD_HASH_LEN];
    kd_consent c = {.seat = 1, .sig_len = KD_SIG_COMPACT_LEN};
    kd_creation_digest_v1(id, type, &p, params, len, digest);
    ET_ASSERT_OK(kd_key_sign(&house, digest, c.sig));
    return c;
}

/* The creation payload of `type` for players() with `params` and the
 * consents cs, exactly as given. */
static void creation_as_given(kd_buf *out, uint32_t id, const char *type, const uint8_t *params, size_t len,
                              const kd_consent *cs, size_t n)
{
    kd_participants p = players();
    out->len = 0;
    ET_ASSERT_OK(kd_wire_new_episode_consented(id, type, &p, params, len, cs, n, out));
}

/* ... with alice's own good consent (seat 0) first, unless cs has one
 * for seat 0: the cases below are about the house's. */
static void creation(kd_buf *out, uint32_t id, const char *type, const uint8_t *params, size_t len,
                     const kd_consent *cs, size_t n)
{
    kd_consent all[KD_MAX_PARTICIPANTS + 1];
    size_t k = 0;
    int has_alice = 0;
    for (size_t i = 0; i < n; i++)
        has_alice |= cs[i].seat == 0;
    kd_participants p = players();
    kd_key alice = et_key("alice");
    if (!has_alice)
        ET_ASSERT_OK(kd_consent_sign(&alice, 0, kd_engine_chain(env.engine), id, type, &p, params, len, &all[k++]));
    cr_assert(n + k <= KD_MAX_PARTICIPANTS + 1);
    for (size_t i = 0; i < n; i++)
        all[k++] = cs[i];
    creation_as_given(out, id, type, params, len, all, k);
}

/* Predicts `payload` with a dry run, then applies it alone in block
 * `name`; expects both verdicts to be `want` ("" = applied) and returns
 * the detail. A rejection must change no episode. */
static void expect_verdict(const char *name, const kd_buf *payload, uint32_t id, const char *want, char *detail,
                           size_t detail_len)
{
    kd_tx_result predicted;
    et_dry_run_one(env.engine, name, payload, &predicted);

    size_t before = et_episode_count(env.engine);
    et_txs t;
    et_txs_init(&t);
    et_add_raw(&t, payload->data, payload->len);
    kd_msg_result res;
    et_accept(env.engine, name, &t, &res);
    cr_assert_eq(res.status, KD_MSG_APPLIED);
    cr_assert_eq(res.tx_count, 1);
    const kd_tx_result *r = &res.txs[0];
    if (want[0]) {
        ET_EXPECT_REJECTED(*r, want);
        cr_expect_eq(et_episode_count(env.engine), before, "%s: a refused creation changes nothing", name);
        kd_episode_snapshot snap;
        ET_EXPECT_ERR(kd_engine_episode_read(env.engine, id, &snap), KD_ERR_NOT_FOUND);
    } else {
        cr_expect(r->applied, "%s: want applied, got %s (%s)", name, r->code, r->detail);
        cr_expect_eq(et_episode_count(env.engine), before + 1);
    }
    cr_expect_eq(predicted.applied, r->applied, "%s: the dry run predicted %s", name,
                 predicted.applied ? "applied" : predicted.code);
    cr_expect_str_eq(predicted.code, r->code, "%s: the dry run's code", name);
    cr_expect_str_eq(predicted.detail, r->detail, "%s: the dry run's sentence", name);
    if (detail)
        snprintf(detail, detail_len, "%s", r->detail);
    kd_msg_result_fini(&res);
    et_txs_fini(&t);
}

static void expect_detail(const char *detail, const char *part)
{
    cr_expect(strstr(detail, part) != NULL, "\"%s\" should say \"%s\"", detail, part);
}

/* The head of a creation digest written out by hand: the domain, in v2
 * the chain (its length, its bytes), the id, the type and its 0x00. */
static size_t head(uint8_t *buf, const char *domain, const char *chain, uint32_t id, const char *type)
{
    size_t n = strlen(domain);
    memcpy(buf, domain, n);
    if (chain) {
        buf[n++] = (uint8_t)strlen(chain);
        memcpy(buf + n, chain, strlen(chain));
        n += strlen(chain);
    }
    kd_put_u32be(buf + n, id);
    n += 4;
    memcpy(buf + n, type, strlen(type) + 1); /* the name and its 0x00 */
    return n + strlen(type) + 1;
}

/* The rest: participant count, keys, params length, params. */
static size_t tail(uint8_t *buf, size_t n, const kd_participants *p, const uint8_t *params, size_t len)
{
    buf[n++] = (uint8_t)p->count;
    for (size_t i = 0; i < p->count; i++, n += KD_PUBKEY_LEN)
        memcpy(buf + n, p->keys[i].bytes, KD_PUBKEY_LEN);
    kd_put_u32be(buf + n, (uint32_t)len);
    memcpy(buf + n + 4, params, len);
    return n + 4 + len;
}

Test(consent, the_digest_is_the_documented_layout)
{
    kd_participants p = players();
    const uint8_t params[] = {0x08, 0x03};
    const char *chain = "kaspa:testnet-10";
    uint8_t want[KD_HASH_LEN], got[KD_HASH_LEN], buf[256];
    size_t n = tail(buf, head(buf, "kdapp/new-episode/v2", chain, 0x01020304, HOUSE_TYPE), &p, params, sizeof params);
    kd_sha256(buf, n, want);
    kd_creation_digest(chain, 0x01020304, HOUSE_TYPE, &p, params, sizeof params, 0, got);
    et_expect_hash_eq(got, want, "creation digest v2");
    uint8_t v1[KD_HASH_LEN];
    n = tail(buf, head(buf, "kdapp/new-episode/v1", NULL, 0x01020304, HOUSE_TYPE), &p, params, sizeof params);
    kd_sha256(buf, n, want);
    kd_creation_digest_v1(0x01020304, HOUSE_TYPE, &p, params, sizeof params, v1);
    et_expect_hash_eq(v1, want, "creation digest v1");
    et_expect_hash_ne(got, v1, "v2 differs from v1");

    /* Every part is bound: chain, id, type, participants (and their order), params. */
    uint8_t other[KD_HASH_LEN];
    kd_creation_digest("kaspa:mainnet", 0x01020304, HOUSE_TYPE, &p, params, sizeof params, 0, other);
    et_expect_hash_ne(got, other, "another chain");
    kd_creation_digest("local:00112233445566778899aabbccddeeff", 0x01020304, HOUSE_TYPE, &p, params, sizeof params, 0,
                       other);
    et_expect_hash_ne(got, other, "a local chain");
    kd_creation_digest(chain, 0x01020305, HOUSE_TYPE, &p, params, sizeof params, 0, other);
    et_expect_hash_ne(got, other, "another id");
    kd_creation_digest(chain, 0x01020304, "tictactoe", &p, params, sizeof params, 0, other);
    et_expect_hash_ne(got, other, "another type");
    kd_creation_digest(chain, 0x01020304, HOUSE_TYPE, &p, params, 1, 0, other);
    et_expect_hash_ne(got, other, "other params");
    kd_pubkey k0 = p.keys[0];
    p.keys[0] = p.keys[1];
    p.keys[1] = k0;
    kd_creation_digest(chain, 0x01020304, HOUSE_TYPE, &p, params, sizeof params, 0, other);
    et_expect_hash_ne(got, other, "the seats swapped");
    p.keys[1] = p.keys[0];
    p.keys[0] = k0;

    /* A table's join_timeout, when not 0, follows the params (u32 BE). */
    n = tail(buf, head(buf, "kdapp/new-episode/v2", chain, 0x01020304, HOUSE_TYPE), &p, params, sizeof params);
    kd_put_u32be(buf + n, 40);
    kd_sha256(buf, n + 4, want);
    kd_creation_digest(chain, 0x01020304, HOUSE_TYPE, &p, params, sizeof params, 40, other);
    et_expect_hash_eq(other, want, "creation digest v2 of a table waiting 40");
    et_expect_hash_ne(got, other, "another join_timeout");
}

Test(consent, sign_refuses_a_seat_that_is_not_the_key)
{
    kd_participants p = players();
    kd_key house = et_key("house"), alice = et_key("alice");
    kd_consent c;
    const char *chain = kd_engine_chain(env.engine);
    ET_EXPECT_ERR(kd_consent_sign(&house, 0, chain, 1, HOUSE_TYPE, &p, NULL, 0, &c), KD_ERR_INVALID_ARG);
    ET_EXPECT_ERR(kd_consent_sign(&alice, 2, chain, 1, HOUSE_TYPE, &p, NULL, 0, &c), KD_ERR_INVALID_ARG);
    /* a consent names a chain: not none, not a class of them, not a typo */
    ET_EXPECT_ERR(kd_consent_sign(&alice, 0, NULL, 1, HOUSE_TYPE, &p, NULL, 0, &c), KD_ERR_INVALID_ARG);
    ET_EXPECT_ERR(kd_consent_sign(&alice, 0, "local", 1, HOUSE_TYPE, &p, NULL, 0, &c), KD_ERR_INVALID_ARG);
    ET_EXPECT_ERR(kd_consent_sign(&alice, 0, "kaspa:Mainnet", 1, HOUSE_TYPE, &p, NULL, 0, &c), KD_ERR_INVALID_ARG);
    ET_ASSERT_OK(kd_consent_sign(&alice, 0, chain, 1, HOUSE_TYPE, &p, NULL, 0, &c));
    cr_expect_eq(c.seat, 0);
    cr_expect_eq(c.sig_len, KD_SIG_COMPACT_LEN);
}

Test(consent, a_creation_the_house_did_not_sign_is_refused)
{
    kd_participants p = players();
    kd_buf pay, params, other;
    kd_buf_init(&pay);
    kd_buf_init(&params);
    kd_buf_init(&other);
    ET_ASSERT_OK(kd_ttt_params_encode(3, &params));
    ET_ASSERT_OK(kd_ttt_params_encode(4, &other));
    char why[KD_DETAIL_MAX];

    creation(&pay, 1, HOUSE_TYPE, params.data, params.len, NULL, 0);
    expect_verdict("missing", &pay, 1, "no_consent", why, sizeof why);
    expect_detail(why, "seat 1 must consent to this creation (its signature over the creation is missing)");

    kd_consent c = forged("mallory", 1, 1, HOUSE_TYPE, &p, params.data, params.len);
    creation(&pay, 1, HOUSE_TYPE, params.data, params.len, &c, 1);
    expect_verdict("wrong-key", &pay, 1, "no_consent", why, sizeof why);
    expect_detail(why, "the consent of seat 1 does not verify over this creation on chain local:");

    c = forged("alice", 1, 1, HOUSE_TYPE, &p, params.data, params.len); /* the player signs for the house */
    creation(&pay, 1, HOUSE_TYPE, params.data, params.len, &c, 1);
    expect_verdict("player-signs", &pay, 1, "no_consent", NULL, 0);

    c = house_consent(1, HOUSE_TYPE, other.data, other.len); /* the house agreed to other terms */
    creation(&pay, 1, HOUSE_TYPE, params.data, params.len, &c, 1);
    expect_verdict("other-params", &pay, 1, "no_consent", why, sizeof why);
    expect_detail(why, "(episode id, type, participants, params)");

    /* R5: the house's consent for another chain (a copy of a creation
     * made for another store's chain, or for a Kaspa network) */
    c = house_consent_on("local:00112233445566778899aabbccddeeff", 1, HOUSE_TYPE, params.data, params.len);
    creation(&pay, 1, HOUSE_TYPE, params.data, params.len, &c, 1);
    expect_verdict("other-local-chain", &pay, 1, "no_consent", why, sizeof why);
    expect_detail(why, "made for another chain, store or creation");
    c = house_consent_on("kaspa:testnet-10", 1, HOUSE_TYPE, params.data, params.len);
    creation(&pay, 1, HOUSE_TYPE, params.data, params.len, &c, 1);
    expect_verdict("kaspa-chain", &pay, 1, "no_consent", NULL, 0);

    /* a consent of version 1 names no chain: refused for a new creation */
    c = house_consent_v1(1, HOUSE_TYPE, params.data, params.len);
    creation(&pay, 1, HOUSE_TYPE, params.data, params.len, &c, 1);
    expect_verdict("v1", &pay, 1, "no_consent", why, sizeof why);
    expect_detail(why, "the consent of seat 1 is of version 1, which names no chain");
    expect_detail(why, kd_engine_chain(env.engine));

    c = house_consent(2, HOUSE_TYPE, params.data, params.len); /* for another episode */
    creation(&pay, 1, HOUSE_TYPE, params.data, params.len, &c, 1);
    expect_verdict("other-id", &pay, 1, "no_consent", NULL, 0);

    c = house_consent(1, "tictactoe", params.data, params.len); /* for another type */
    creation(&pay, 1, HOUSE_TYPE, params.data, params.len, &c, 1);
    expect_verdict("other-type", &pay, 1, "no_consent", NULL, 0);

    kd_consent two[2] = {house_consent(1, HOUSE_TYPE, params.data, params.len),
                         house_consent(1, HOUSE_TYPE, params.data, params.len)};
    creation(&pay, 1, HOUSE_TYPE, params.data, params.len, two, 2);
    expect_verdict("twice", &pay, 1, "no_consent", why, sizeof why);
    expect_detail(why, "seat 1 consents twice");

    two[1] = two[0];
    two[1].seat = 2;
    creation(&pay, 1, HOUSE_TYPE, params.data, params.len, two, 2);
    expect_verdict("out-of-range", &pay, 1, "no_consent", why, sizeof why);
    expect_detail(why, "names seat 2, but the episode has 2 participants");

    /* A consent nobody asked for must still verify. */
    two[1] = forged("mallory", 0, 1, HOUSE_TYPE, &p, params.data, params.len);
    creation(&pay, 1, HOUSE_TYPE, params.data, params.len, two, 2);
    expect_verdict("extra-invalid", &pay, 1, "no_consent", why, sizeof why);
    expect_detail(why, "the consent of seat 0 does not verify");
    two[1].sig_len = 0; /* an empty signature */
    creation(&pay, 1, HOUSE_TYPE, params.data, params.len, two, 2);
    expect_verdict("extra-empty", &pay, 1, "no_consent", NULL, 0);

    c = house_consent(1, HOUSE_TYPE, params.data, params.len);
    creation(&pay, 1, HOUSE_TYPE, params.data, params.len, &c, 1);
    expect_verdict("good", &pay, 1, "", NULL, 0);

    kd_buf_fini(&pay);
    kd_buf_fini(&params);
    kd_buf_fini(&other);
}

Test(consent, good_consents_apply_and_the_game_plays)
{
    kd_participants p = players();
    kd_buf pay;
    kd_buf_init(&pay);
    /* Both seats consent. */
    kd_consent cs[2] = {house_consent(5, HOUSE_TYPE, NULL, 0), forged("alice", 0, 5, HOUSE_TYPE, &p, NULL, 0)};
    creation(&pay, 5, HOUSE_TYPE, NULL, 0, cs, 2);
    expect_verdict("both", &pay, 5, "", NULL, 0);
    /* A DER signature is as good as a compact one. */
    kd_consent der = house_consent(8, HOUSE_TYPE, NULL, 0);
    secp256k1_ecdsa_signature sig;
    size_t der_len = KD_SIG_MAX_LEN;
    cr_assert(secp256k1_ecdsa_signature_parse_compact(secp256k1_context_static, &sig, der.sig));
    cr_assert(secp256k1_ecdsa_signature_serialize_der(secp256k1_context_static, der.sig, &der_len, &sig));
    cr_assert_neq(der_len, KD_SIG_COMPACT_LEN);
    der.sig_len = der_len;
    creation(&pay, 8, HOUSE_TYPE, NULL, 0, &der, 1);
    expect_verdict("der", &pay, 8, "", NULL, 0);
    /* Tic-tac-toe with both seats consenting. */
    kd_consent ttt[2] = {forged("alice", 0, 6, "tictactoe", &p, NULL, 0),
                         forged("house", 1, 6, "tictactoe", &p, NULL, 0)};
    creation_as_given(&pay, 6, "tictactoe", NULL, 0, ttt, 2);
    expect_verdict("plain", &pay, 6, "", NULL, 0);

    et_txs t;
    et_txs_init(&t);
    et_add_move(&t, 5, 1, 1, 0, "alice", 0);
    et_add_move(&t, 5, 0, 0, 1, "house", 1);
    et_accept_ok(env.engine, "moves", &t);
    kd_episode_snapshot snap;
    ET_ASSERT_OK(kd_engine_episode_read(env.engine, 5, &snap));
    cr_expect_eq(snap.undo_depth, 2, "both moves of the consented episode apply");
    kd_episode_snapshot_fini(&snap);
    et_txs_fini(&t);
    kd_buf_fini(&pay);
}

/* Issue 39, on a board game: alice creates tic-tac-toe naming mallory, a
 * stranger, who never signed. Refused no_consent with the seat named, and
 * nothing changes; with mallory's own consent, or with the seat left open
 * for mallory to join, it goes ahead. */
Test(consent, a_board_game_naming_a_stranger_without_its_consent_is_refused)
{
    kd_participants p = {.count = 2};
    p.keys[0] = et_key("alice").pub;
    p.keys[1] = et_key("mallory").pub;
    kd_buf pay;
    kd_buf_init(&pay);
    char why[KD_DETAIL_MAX];
    kd_consent cs[2] = {forged("alice", 0, 40, "tictactoe", &p, NULL, 0),
                        forged("mallory", 1, 40, "tictactoe", &p, NULL, 0)};
    ET_ASSERT_OK(kd_wire_new_episode_consented(40, "tictactoe", &p, NULL, 0, cs, 1, &pay));
    expect_verdict("stranger", &pay, 40, "no_consent", why, sizeof why);
    expect_detail(why, "seat 1 must consent to this creation");
    expect_detail(why, "leave the seat open");
    pay.len = 0;
    ET_ASSERT_OK(kd_wire_new_episode(40, "tictactoe", &p, NULL, 0, &pay)); /* nobody signed */
    expect_verdict("none", &pay, 40, "no_consent", why, sizeof why);
    expect_detail(why, "seat 0 must consent to this creation");
    pay.len = 0;
    cs[1].seat = 0; /* mallory's signature in alice's place */
    cs[0].seat = 1;
    ET_ASSERT_OK(kd_wire_new_episode_consented(40, "tictactoe", &p, NULL, 0, cs, 2, &pay));
    expect_verdict("swapped", &pay, 40, "no_consent", NULL, 0);
    cs[0].seat = 0;
    cs[1].seat = 1;
    pay.len = 0;
    ET_ASSERT_OK(kd_wire_new_episode_consented(40, "tictactoe", &p, NULL, 0, cs, 2, &pay));
    expect_verdict("both", &pay, 40, "", NULL, 0);
    /* the seat left open: alice alone consents, the table waits for a join */
    kd_participants open = p;
    memset(open.keys[1].bytes, 0, KD_PUBKEY_LEN);
    kd_consent mine;
    kd_key alice = et_key("alice");
    ET_ASSERT_OK(kd_consent_sign(&alice, 0, kd_engine_chain(env.engine), 41, "tictactoe", &open, NULL, 0, &mine));
    pay.len = 0;
    ET_ASSERT_OK(kd_wire_new_episode_consented(41, "tictactoe", &open, NULL, 0, &mine, 1, &pay));
    et_txs t;
    et_txs_init(&t);
    et_add_raw(&t, pay.data, pay.len);
    kd_msg_result res;
    et_accept(env.engine, "open", &t, &res);
    cr_assert_eq(res.tx_count, 1);
    cr_expect(res.txs[0].applied, "an open seat needs no consent at creation: %s", res.txs[0].detail);
    kd_msg_result_fini(&res);
    et_txs_fini(&t);
    kd_buf_fini(&pay);
}

/* Replays env's log into a fresh engine following env's chain, trusting
 * the log's signature verdicts (`kdapp replay`) or not (`kdapp verify`),
 * canonical or full. */
static void expect_replay(int trust, int canonical)
{
    cs_env copy;
    cs_open_chain(&copy, kd_engine_chain(env.engine));
    cr_expect_str_eq(kd_engine_chain(copy.engine), kd_engine_chain(env.engine));
    kd_engine_trust_replayed_signatures(copy.engine, trust);
    kd_replay_report rep;
    ET_ASSERT_OK(kd_replay_log(env.engine, copy.engine, canonical, &rep));
    cr_expect(kd_replay_ok(&rep), "replay (trust %d, canonical %d): %s %s", trust, canonical, rep.first_bad_what,
              rep.episode_what);
    cr_expect_eq(et_episode_count(copy.engine), et_episode_count(env.engine));
    cs_close(&copy);
}

Test(consent, replay_and_verify_reproduce_refused_and_applied_creations)
{
    kd_participants p = players();
    kd_buf pay;
    kd_buf_init(&pay);
    et_txs t;
    et_txs_init(&t);
    /* One block: refused (missing, forged), applied, refused (twice). */
    creation(&pay, 1, HOUSE_TYPE, NULL, 0, NULL, 0);
    et_add_raw(&t, pay.data, pay.len);
    kd_consent c = forged("mallory", 1, 1, HOUSE_TYPE, &p, NULL, 0);
    creation(&pay, 1, HOUSE_TYPE, NULL, 0, &c, 1);
    et_add_raw(&t, pay.data, pay.len);
    c = house_consent(2, HOUSE_TYPE, NULL, 0);
    creation(&pay, 2, HOUSE_TYPE, NULL, 0, &c, 1);
    et_add_raw(&t, pay.data, pay.len);
    kd_consent two[2] = {house_consent(3, HOUSE_TYPE, NULL, 0), house_consent(3, HOUSE_TYPE, NULL, 0)};
    creation(&pay, 3, HOUSE_TYPE, NULL, 0, two, 2);
    et_add_raw(&t, pay.data, pay.len);
    kd_msg_result res;
    et_accept(env.engine, "b1", &t, &res);
    cr_assert_eq(res.tx_count, 4);
    ET_EXPECT_REJECTED(res.txs[0], "no_consent");
    ET_EXPECT_REJECTED(res.txs[1], "no_consent");
    cr_expect(res.txs[2].applied, "%s", res.txs[2].detail);
    ET_EXPECT_REJECTED(res.txs[3], "no_consent");
    kd_msg_result_fini(&res);
    /* A block that is reverted, and one that stays. */
    et_txs_clear(&t);
    c = house_consent(4, HOUSE_TYPE, NULL, 0);
    creation(&pay, 4, HOUSE_TYPE, NULL, 0, &c, 1);
    et_add_raw(&t, pay.data, pay.len);
    et_accept_ok(env.engine, "b2", &t);
    et_revert_ok(env.engine, "b2");
    et_txs_clear(&t);
    et_add_move(&t, 2, 1, 1, 0, "alice", 0);
    creation(&pay, 1, HOUSE_TYPE, NULL, 0, NULL, 0); /* still refused */
    et_add_raw(&t, pay.data, pay.len);
    et_accept_ok(env.engine, "b3", &t);
    cr_assert_eq(et_episode_count(env.engine), 1);

    for (int trust = 0; trust <= 1; trust++)
        for (int canonical = 0; canonical <= 1; canonical++)
            expect_replay(trust, canonical);
    /* verified into a store of its own chain: the consents are for
     * another chain there, so the consented creation diverges */
    cs_env other;
    cs_open(&other);
    kd_replay_report rep;
    ET_ASSERT_OK(kd_replay_log(env.engine, other.engine, 0, &rep));
    cr_expect(!kd_replay_ok(&rep), "a replay into another chain's store cannot reproduce the consented creation");
    cr_expect_eq(rep.first_bad_seq, 1, "the block of the consented creation: %s", rep.first_bad_what);
    cs_close(&other);
    et_txs_fini(&t);
    kd_buf_fini(&pay);
}

/* One log entry as a store written before v2 keeps it: the block `name`
 * carrying `payload`, its one tx recorded applied (or refused with
 * `code`). */
static void old_entry(const char *name, const kd_buf *payload, uint32_t id, const char *code, kd_buf *out)
{
    et_txs t;
    et_txs_init(&t);
    et_add_raw(&t, payload->data, payload->len);
    kd_buf msg;
    kd_buf_init(&msg);
    et_accept_msg(name, &t, &msg);
    Kdapp__Store__TxOutcome o = KDAPP__STORE__TX_OUTCOME__INIT, *op = &o;
    o.applied = code == NULL;
    o.episode_id = id;
    o.error_code = (char *)(code ? code : "");
    o.error = (char *)"";
    Kdapp__Store__LogEntry le = KDAPP__STORE__LOG_ENTRY__INIT;
    le.message.data = msg.data;
    le.message.len = msg.len;
    le.status = KDAPP__MSG_STATUS__MSG_APPLIED;
    le.n_txs = 1;
    le.txs = &op;
    out->len = 0;
    ET_ASSERT_OK(kd_buf_reserve(out, kdapp__store__log_entry__get_packed_size(&le)));
    out->len = kdapp__store__log_entry__pack(&le, out->data);
    kd_buf_fini(&msg);
    et_txs_fini(&t);
}

/* A log written before consents named their chain holds v1 consents: a
 * replay (`kdapp verify`: every signature checked; `kdapp replay`:
 * trusted) applies the creations it recorded applied, and still refuses
 * the ones it recorded refused. */
Test(consent, a_log_written_before_v2_replays)
{
    kd_buf pay, entry;
    kd_buf_init(&pay);
    kd_buf_init(&entry);
    for (int trust = 0; trust <= 1; trust++) {
        cs_env old;
        cs_open(&old);
        kd_engine_trust_replayed_signatures(old.engine, trust);
        kd_consent c = house_consent_v1(21, HOUSE_TYPE, NULL, 0);
        creation_as_given(&pay, 21, HOUSE_TYPE, NULL, 0, &c, 1);
        old_entry("old1", &pay, 21, NULL, &entry);
        kd_msg_result res;
        ET_ASSERT_OK(kd_engine_replay_entry(old.engine, entry.data, entry.len, &res));
        cr_assert_eq(res.tx_count, 1);
        cr_expect(res.txs[0].applied, "trust %d: the v1 consent recorded applied replays: %s", trust,
                  res.txs[0].detail);
        kd_msg_result_fini(&res);
        /* a forged log: a creation recorded applied whose v1 consent does
         * not verify (signed over other params): `kdapp verify` refuses
         * it, `kdapp replay` trusts its own log */
        c = house_consent_v1(22, HOUSE_TYPE, (const uint8_t *)"\x08\x03", 2);
        creation_as_given(&pay, 22, HOUSE_TYPE, NULL, 0, &c, 1);
        old_entry("old2", &pay, 22, NULL, &entry);
        ET_ASSERT_OK(kd_engine_replay_entry(old.engine, entry.data, entry.len, &res));
        cr_assert_eq(res.tx_count, 1);
        if (trust)
            cr_expect(res.txs[0].applied, "trusted: %s", res.txs[0].detail);
        else
            ET_EXPECT_REJECTED(res.txs[0], "no_consent");
        kd_msg_result_fini(&res);
        /* a v1 consent the old log recorded refused stays refused: the
         * log's no_consent is never trusted, and v1 counts only for what
         * it recorded applied */
        c = house_consent_v1(23, HOUSE_TYPE, NULL, 0);
        creation_as_given(&pay, 23, HOUSE_TYPE, NULL, 0, &c, 1);
        old_entry("old3", &pay, 23, "no_consent", &entry);
        ET_ASSERT_OK(kd_engine_replay_entry(old.engine, entry.data, entry.len, &res));
        cr_assert_eq(res.tx_count, 1);
        ET_EXPECT_REJECTED(res.txs[0], "no_consent");
        kd_msg_result_fini(&res);
        cr_expect_eq(et_episode_count(old.engine), trust ? 2u : 1u);
        cs_close(&old);
    }
    kd_buf_fini(&entry);
    kd_buf_fini(&pay);
}

/* A log written before every named seat had to consent (issue 39) holds
 * board-game creations nobody signed: a replay, trusted or not, applies
 * the ones it recorded applied and refuses the ones it recorded refused;
 * a consent such a creation does carry must still verify. */
Test(consent, a_log_written_before_every_seat_consented_replays)
{
    kd_buf pay, entry;
    kd_buf_init(&pay);
    kd_buf_init(&entry);
    kd_participants p = players();
    for (int trust = 0; trust <= 1; trust++) {
        cs_env old;
        cs_open(&old);
        kd_engine_trust_replayed_signatures(old.engine, trust);
        creation_as_given(&pay, 24, "tictactoe", NULL, 0, NULL, 0);
        old_entry("old1", &pay, 24, NULL, &entry);
        kd_msg_result res;
        ET_ASSERT_OK(kd_engine_replay_entry(old.engine, entry.data, entry.len, &res));
        cr_assert_eq(res.tx_count, 1);
        cr_expect(res.txs[0].applied, "trust %d: recorded applied, no consent: %s", trust, res.txs[0].detail);
        kd_msg_result_fini(&res);
        creation_as_given(&pay, 25, "tictactoe", NULL, 0, NULL, 0);
        old_entry("old2", &pay, 25, "no_consent", &entry);
        ET_ASSERT_OK(kd_engine_replay_entry(old.engine, entry.data, entry.len, &res));
        cr_assert_eq(res.tx_count, 1);
        ET_EXPECT_REJECTED(res.txs[0], "no_consent");
        kd_msg_result_fini(&res);
        kd_consent c = forged("mallory", 1, 26, "tictactoe", &p, NULL, 0); /* recorded applied, forged */
        creation_as_given(&pay, 26, "tictactoe", NULL, 0, &c, 1);
        old_entry("old3", &pay, 26, NULL, &entry);
        ET_ASSERT_OK(kd_engine_replay_entry(old.engine, entry.data, entry.len, &res));
        cr_assert_eq(res.tx_count, 1);
        if (trust)
            cr_expect(res.txs[0].applied, "trusted: %s", res.txs[0].detail);
        else
            ET_EXPECT_REJECTED(res.txs[0], "no_consent");
        kd_msg_result_fini(&res);
        cr_expect_eq(et_episode_count(old.engine), trust ? 2u : 1u);
        cs_close(&old);
    }
    kd_buf_fini(&entry);
    kd_buf_fini(&pay);
}

/* The chain a store follows: made at creation (its own local chain, or
 * the one the open names), kept, and checked at every later open. */
Test(consent, a_store_follows_one_chain)
{
    uint8_t id[KD_STORE_ID_LEN];
    char local[KD_CHAIN_MAX];
    ET_ASSERT_OK(kd_engine_store_id(env.engine, id));
    kd_chain_local(id, local);
    cr_expect_str_eq(kd_engine_chain(env.engine), local, "a new store follows its own local chain");
    cr_expect(kd_chain_valid(local));

    cs_env k;
    cs_open_chain(&k, "kaspa:testnet-10");
    cr_expect_str_eq(kd_engine_chain(k.engine), "kaspa:testnet-10");
    kd_engine_close(k.engine);
    k.engine = NULL;
    char why[256] = "";
    kd_engine *e = NULL;
    kd_engine_options o = {.data_dir = k.dir, .registry = &k.reg, .chain = "kaspa:mainnet"};
    ET_EXPECT_ERR(kd_engine_open(&o, &e, why, sizeof why), KD_ERR_SETTINGS);
    expect_detail(why, "follows chain kaspa:testnet-10, not kaspa:mainnet");
    o.chain = KD_CHAIN_LOCAL;
    ET_EXPECT_ERR(kd_engine_open(&o, &e, why, sizeof why), KD_ERR_SETTINGS);
    o.chain = "kaspa:Main net";
    ET_EXPECT_ERR(kd_engine_open(&o, &e, why, sizeof why), KD_ERR_INVALID_ARG);
    expect_detail(why, "is not a chain name");
    o.chain = NULL; /* whatever it follows */
    ET_ASSERT_OK(kd_engine_open(&o, &e, why, sizeof why));
    cr_expect_str_eq(kd_engine_chain(e), "kaspa:testnet-10");
    kd_engine_close(e);
    o.read_only = 1;
    ET_ASSERT_OK(kd_engine_open(&o, &e, why, sizeof why));
    cr_expect_str_eq(kd_engine_chain(e), "kaspa:testnet-10", "read-only too");
    kd_engine_close(e);
    o.read_only = 0;

    /* A store made before chains were named reads as its own local
     * chain, and adopts the first chain a writable open names. */
    et_raw_del_meta(k.dir, "chain");
    ET_ASSERT_OK(kd_engine_open(&o, &e, why, sizeof why));
    ET_ASSERT_OK(kd_engine_store_id(e, id));
    kd_chain_local(id, local);
    cr_expect_str_eq(kd_engine_chain(e), local);
    kd_engine_close(e);
    o.chain = KD_CHAIN_LOCAL;
    ET_ASSERT_OK(kd_engine_open(&o, &e, why, sizeof why));
    kd_engine_close(e);
    o.chain = "kaspa:testnet-11";
    o.read_only = 1; /* read-only adopts nothing */
    ET_EXPECT_ERR(kd_engine_open(&o, &e, why, sizeof why), KD_ERR_SETTINGS);
    expect_detail(why, "made before chains were named");
    o.read_only = 0;
    ET_ASSERT_OK(kd_engine_open(&o, &e, why, sizeof why));
    cr_expect_str_eq(kd_engine_chain(e), "kaspa:testnet-11", "adopted");
    kd_engine_close(e);
    o.chain = NULL;
    ET_ASSERT_OK(kd_engine_open(&o, &e, why, sizeof why));
    cr_expect_str_eq(kd_engine_chain(e), "kaspa:testnet-11", "kept");
    kd_engine_close(e);
    cs_close(&k);
}

/* An ingest request names its chain: a store of another chain refuses
 * it (wrong_chain) and applies nothing; every reply names the store's. */
Test(consent, a_request_for_another_chain_is_refused)
{
    et_txs t;
    et_txs_init(&t);
    kd_buf msg, frame, reply;
    kd_buf_init(&msg);
    kd_buf_init(&frame);
    kd_buf_init(&reply);
    kd_key keys[2] = {et_key("alice"), et_key("bob")};
    kd_buf pay;
    kd_buf_init(&pay);
    et_create_payload(&pay, kd_engine_chain(env.engine), 31, "tictactoe", keys, 2, NULL, 0);
    et_add_raw(&t, pay.data, pay.len);
    kd_buf_fini(&pay);
    et_accept_msg("c1", &t, &msg);
    static const char *const names[] = {"kaspa:testnet-10", "local:00112233445566778899aabbccddeeff", NULL,
                                        KD_CHAIN_LOCAL};
    for (size_t i = 0; i < 4; i++) {
        frame.len = reply.len = 0;
        ET_ASSERT_OK(kd_ingest_request_pack_source(&msg, 1, 0, names[i], &frame));
        ET_ASSERT_OK(kd_ingest_handle(env.engine, frame.data, frame.len, &reply));
        kd_ingest_reply r;
        ET_ASSERT_OK(kd_ingest_reply_unpack(reply.data, reply.len, &r));
        cr_expect_str_eq(r.chain, kd_engine_chain(env.engine), "every reply names the store's chain");
        if (i < 2) {
            cr_expect_eq(r.err, KD_ERR_WRONG_CHAIN, "%s: %s", names[i], kd_err_code(r.err));
            cr_expect_eq(r.count, 0);
            expect_detail(r.detail, kd_engine_chain(env.engine));
            expect_detail(r.detail, names[i]);
            cr_expect_eq(et_episode_count(env.engine), 0, "nothing applied");
        } else {
            cr_expect_eq(r.err, KD_OK, "%s: %s %s", names[i] ? names[i] : "none", kd_err_code(r.err), r.detail);
            cr_expect_eq(r.count, 1);
        }
        kd_ingest_reply_fini(&r);
    }
    cr_expect_eq(et_episode_count(env.engine), 1);
    kd_buf_fini(&reply);
    kd_buf_fini(&frame);
    kd_buf_fini(&msg);
    et_txs_fini(&t);
}

/* A block script's "consent" (tools/script): fed to the engine, both
 * seats' consents apply the creation; alice's alone is no_consent; with
 * no "consent" every participant the script holds the key of consents. */
Test(consent, a_block_script_carries_the_consents)
{
    static const char text[] =
        "{\"accept\": {\"hash\": \"s1\", \"txs\": ["
        "{\"new_episode\": {\"id\": 11, \"type\": \"" HOUSE_TYPE "\", \"participants\": [\"test:alice\", "
        "\"test:house\"], \"cap\": 4, \"consent\": [\"test:house\", \"test:alice\"]}},"
        "{\"new_episode\": {\"id\": 12, \"type\": \"" HOUSE_TYPE "\", \"participants\": [\"test:alice\", "
        "\"test:house\"], \"cap\": 4, \"consent\": [\"test:alice\"]}},"
        "{\"new_episode\": {\"id\": 13, \"type\": \"tictactoe\", \"participants\": [\"test:alice\", "
        "\"test:house\"]}}]}}\n";
    kd_script script;
    kd_script_init(&script);
    char why[256] = "";
    ET_ASSERT_OK(kd_script_parse(text, strlen(text), NULL, &script, why, sizeof why));
    kd_feeder *feeder;
    ET_ASSERT_OK(kd_feeder_alloc_local(env.engine, &feeder));
    kd_buf msg;
    kd_buf_init(&msg);
    ET_ASSERT_OK(kd_feeder_encode(feeder, &script.ops[0], &msg));
    kd_msg_result res;
    et_ingest(env.engine, &msg, &res);
    cr_assert_eq(res.tx_count, 3);
    cr_expect(res.txs[0].applied, "both consented: %s", res.txs[0].detail);
    ET_EXPECT_REJECTED(res.txs[1], "no_consent");
    cr_expect(res.txs[2].applied, "the script's keys consented: %s", res.txs[2].detail);
    kd_msg_result_fini(&res);
    kd_buf_fini(&msg);
    kd_feeder_free(feeder);
    kd_script_fini(&script);
}
