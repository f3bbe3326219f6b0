/*
 * kaspa_wallet_test.c — addresses (the vectors of rusty-kaspa v0.14.1
 * crypto/addresses/src/lib.rs), the sighash (consensus/core/src/hashing/
 * sighash.rs test_signature_hash), mass, fee, dust, and the builder's
 * refusals (tools/kaspa).
 */
#include <criterion/criterion.h>
#include <string.h>

#include "engine/bytes.h"
#include "tools/kaspa/kaspa_addr.h"
#include "tools/kaspa/kaspa_build.h"
#include "tools/kaspa/kaspa_mass.h"
#include "tools/kaspa/kaspa_sighash.h"
#include "tools/kaspa/kaspa_utxo.h"

Test(kaspa_addr, rusty_kaspa_vectors_round_trip)
{
    static const struct {
        kd_kaspa_net net;
        kd_kaddr_version version;
        const char *payload_hex;
        const char *text;
    } v[] = {
        {KD_KNET_TESTNET, KD_KADDR_PUBKEY, "0000000000000000000000000000000000000000000000000000000000000000",
         "kaspatest:qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqhqrxplya"},
        {KD_KNET_TESTNET, KD_KADDR_PUBKEY_ECDSA, "000000000000000000000000000000000000000000000000000000000000000000",
         "kaspatest:qyqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqhe837j2d"},
        {KD_KNET_TESTNET, KD_KADDR_PUBKEY_ECDSA, "ba01fc5f4e9d9879599c69a3dafdb835a7255e5f2e934e9322ecd3af190ab0f60e",
         "kaspatest:qxaqrlzlf6wes72en3568khahq66wf27tuhfxn5nytkd8tcep2c0vrse6gdmpks"},
        {KD_KNET_MAINNET, KD_KADDR_PUBKEY, "0000000000000000000000000000000000000000000000000000000000000000",
         "kaspa:qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqkx9awp4e"},
        {KD_KNET_MAINNET, KD_KADDR_PUBKEY, "5fff3c4da18f45adcdd499e44611e9fff148ba69db3c4ea2ddd955fc46a59522",
         "kaspa:qp0l70zd5x85ttwd6jv7g3s3a8llzj96d8dncn4zmhv4tlzx5k2jyqh70xmfj"},
    };
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
        kd_kaddr a = {.net = v[i].net, .version = v[i].version, .payload_len = strlen(v[i].payload_hex) / 2};
        cr_assert_eq(kd_hex_decode(v[i].payload_hex, a.payload, a.payload_len), 0);
        char text[KD_KADDR_TEXT_MAX];
        cr_assert_eq(kd_kaddr_encode(&a, text), KD_OK);
        cr_expect_str_eq(text, v[i].text);
        kd_kaddr back;
        char why[160];
        cr_assert_eq(kd_kaddr_decode(v[i].text, &back, why, sizeof why), KD_OK, "%s", why);
        cr_expect_eq(back.net, a.net);
        cr_expect_eq(back.version, a.version);
        cr_expect_arr_eq(back.payload, a.payload, a.payload_len);
        uint8_t script[KD_KSPK_SCRIPT_MAX];
        size_t len;
        cr_assert_eq(kd_kaddr_to_script(&a, script, &len), KD_OK);
        cr_assert_eq(kd_kaddr_from_script(a.net, 0, script, len, &back), KD_OK);
        cr_expect_arr_eq(back.payload, a.payload, a.payload_len);
    }
}

static void expect_bad(const char *text, const char *needle)
{
    kd_kaddr a;
    char why[200] = "";
    cr_expect_eq(kd_kaddr_decode(text, &a, why, sizeof why), KD_ERR_PARSE, "%s", text);
    cr_expect(strstr(why, needle), "'%s' does not say '%s'", why, needle);
}

Test(kaspa_addr, bad_addresses_are_refused_with_a_reason)
{
    /* rusty-kaspa's own bad cases, and ours. */
    expect_bad("kaspa:qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqkx9awp4l", "checksum");
    expect_bad("kaspa:qqqqqqqqqqqqq1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqkx9awp4e", "character '1'");
    expect_bad("kaspa:qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqkx9awp4e", "checksum");
    expect_bad("kaspa:qqqqqqkx9awp4e", "60 to 63");
    expect_bad("kaspatest:qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqkx9awp4e", "checksum");
    expect_bad("bitcoin:qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqkx9awp4e", "prefix 'bitcoin'");
    expect_bad("qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqkx9awp4e", "no network prefix");
    expect_bad("kaspa:QQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQKX9AWP4E", "lowercase");
    /* A 33-byte payload under the PubKey version: the right checksum, the wrong length. */
    kd_kaddr a = {.net = KD_KNET_MAINNET, .version = KD_KADDR_PUBKEY_ECDSA, .payload_len = 33};
    char text[KD_KADDR_TEXT_MAX];
    cr_assert_eq(kd_kaddr_encode(&a, text), KD_OK);
    a.version = KD_KADDR_PUBKEY;
    cr_expect_eq(kd_kaddr_encode(&a, text), KD_ERR_INVALID_ARG);
    kd_kaspa_net net;
    cr_expect_eq(kd_kaspa_net_parse("testnet-10", &net), KD_OK);
    cr_expect_eq(net, KD_KNET_TESTNET);
    cr_expect_eq(kd_kaspa_net_parse("testnet-12x", &net), KD_ERR_INVALID_ARG);
}

/* The transaction of rusty-kaspa's test_signature_hash. */
static kd_ktx *sighash_tx(kd_kutxo entries[3], uint8_t spk1[34], uint8_t spk2[34])
{
    cr_assert_eq(kd_hex_decode("208325613d2eeaf7176ac6c670b13c0043156c427438ed72d74b7800862ad884e8ac", spk1, 34), 0);
    cr_assert_eq(kd_hex_decode("20fcef4c106cf11135bbd70f02a726a92162d2fb8b22f0469126f800862ad884e8ac", spk2, 34), 0);
    kd_ktx *tx;
    cr_assert_eq(kd_ktx_alloc(&tx), KD_OK);
    for (uint32_t i = 0; i < 3; i++) {
        kd_ktx_outpoint prev = {.index = i};
        cr_assert_eq(kd_hex_decode("880eb9819a31821d9d2399e2f35e2433b72637e393d71ecc9b8d0250f49153c3", prev.txid, 32),
                     0);
        cr_assert_eq(kd_ktx_add_input(tx, &prev, i, 0), KD_OK);
        entries[i] = (kd_kutxo){.outpoint = prev, .amount = 100 * (i + 1), .spk = {0, i ? spk2 : spk1, 34}};
    }
    cr_assert_eq(kd_ktx_add_output(tx, 300, 0, spk2, 34), KD_OK);
    cr_assert_eq(kd_ktx_add_output(tx, 300, 0, spk1, 34), KD_OK);
    tx->lock_time = 1615462089000ull;
    return tx;
}

static void expect_sighash(const kd_ktx *tx, const kd_kutxo *e, size_t input, uint8_t type, kd_kaspa_rules rules,
                           const char *want_hex)
{
    uint8_t got[32], want[32];
    cr_assert_eq(kd_hex_decode(want_hex, want, 32), 0);
    cr_assert_eq(kd_ktx_sighash(tx, e, input, type, rules, got), KD_OK);
    cr_expect_arr_eq(got, want, 32, "type %#x input %zu", type, input);
}

Test(kaspa_sighash, rusty_kaspa_vectors)
{
    kd_kutxo e[3];
    uint8_t spk1[34], spk2[34];
    kd_ktx *tx = sighash_tx(e, spk1, spk2);
    for (int r = 0; r < 2; r++) { /* no payload: both rule sets agree */
        expect_sighash(tx, e, 0, 0x01, r, "03b7ac6927b2b67100734c3cc313ff8c2e8b3ce3e746d46dd660b706a916b1f5");
        expect_sighash(tx, e, 0, 0x81, r, "24821e466e53ff8e5fa93257cb17bb06131a48be4ef282e87f59d2bdc9afebc2");
        expect_sighash(tx, e, 0, 0x02, r, "38ce4bc93cf9116d2e377b33ff8449c665b7b5e2f2e65303c543b9afdaa4bbba");
        expect_sighash(tx, e, 0, 0x82, r, "06aa9f4239491e07bb2b6bda6b0657b921aeae51e193d2c5bf9e81439cfeafa0");
        expect_sighash(tx, e, 0, 0x04, r, "44a0b407ff7b239d447743dd503f7ad23db5b2ee4d25279bd3dffaf6b474e005");
        expect_sighash(tx, e, 2, 0x04, r, "022ad967192f39d8d5895d243e025ec14cc7a79708c5e364894d4eff3cecb1b0");
        expect_sighash(tx, e, 0, 0x84, r, "43b20aba775050cf9ba8d5e48fc7ed2dc6c071d23f30382aea58b7c59cfb8ed7");
        expect_sighash(tx, e, 2, 0x84, r, "846689131fb08b77f83af1d3901076732ef09d3f8fdff945be89aa4300562e5f");
    }
    /* A payload in a native transaction: only Crescendo hashes it. */
    uint8_t v014[32], cres[32], before[32];
    cr_assert_eq(kd_ktx_sighash(tx, e, 0, 0x01, KD_KASPA_RULES_CRESCENDO, before), KD_OK);
    static const uint8_t payload[] = {10, 11, 12};
    cr_assert_eq(kd_ktx_set_payload(tx, payload, 3), KD_OK);
    cr_assert_eq(kd_ktx_sighash(tx, e, 0, 0x01, KD_KASPA_RULES_V014, v014), KD_OK);
    cr_assert_eq(kd_ktx_sighash(tx, e, 0, 0x01, KD_KASPA_RULES_CRESCENDO, cres), KD_OK);
    cr_expect_arr_eq(v014, before, 32);
    cr_expect_arr_neq(cres, before, 32);
    uint8_t out[32];
    cr_expect_eq(kd_ktx_sighash(tx, e, 3, 0x01, KD_KASPA_RULES_CRESCENDO, out), KD_ERR_INVALID_ARG);
    cr_expect_eq(kd_ktx_sighash(tx, e, 0, 0x03, KD_KASPA_RULES_CRESCENDO, out), KD_ERR_INVALID_ARG);
    kd_ktx_free(tx);
}

Test(kaspa_mass, compute_storage_fee_and_dust)
{
    kd_key key;
    cr_assert_eq(kd_key_test("mass", &key), KD_OK);
    kd_kaddr a;
    kd_kaddr_of_key(&key, KD_KNET_TESTNET, &a);
    uint8_t script[KD_KSPK_SCRIPT_MAX];
    size_t len;
    cr_assert_eq(kd_kaddr_to_script(&a, script, &len), KD_OK);
    kd_ktx *tx;
    cr_assert_eq(kd_ktx_alloc(&tx), KD_OK);
    kd_ktx_outpoint prev = {.index = 0};
    cr_assert_eq(kd_ktx_add_input(tx, &prev, 0, 1), KD_OK);
    cr_assert_eq(kd_ktx_add_output(tx, 100000000, 0, script, len), KD_OK);
    kd_kutxo e = {.outpoint = prev, .amount = 200000000, .spk = {0, script, len}};
    /* size: 2+8 + (36+8+66+8) + 8 + (8+2+8+34) + 8+20+8+32+8 = 264; spk 36*10; one sig op. */
    kd_kmass m;
    kd_ktx_mass(tx, &e, KD_KASPA_RULES_V014, &m);
    cr_expect_eq(m.size, 264);
    cr_expect_eq(m.compute, 264 + 360 + 1000);
    cr_expect_eq(m.storage, 10000 - 5000); /* C/10^8 − C/(2·10^8) */
    cr_expect_eq(m.total, 1624 + 5000);
    kd_ktx_mass(tx, &e, KD_KASPA_RULES_CRESCENDO, &m);
    cr_expect_eq(m.transient, 4 * 264);
    cr_expect_eq(m.total, 5000); /* max(compute, transient, storage) */
    /* kaspad v2: the fee is of max(compute, transient / 2) at 100,000 sompi/kg */
    cr_expect_eq(m.fee_mass, 1624); /* compute 1624 > 2 × 264 */
    cr_expect_eq(m.order, 5000);    /* the mempool's rate is of max(fee mass, storage) */
    cr_expect_eq(kd_kaspa_min_fee(&m, KD_KASPA_RULES_CRESCENDO), 162400);
    cr_expect_eq(kd_kaspa_tx_fee(&m, KD_KASPA_RULES_CRESCENDO, 0), 162400);      /* the floor */
    cr_expect_eq(kd_kaspa_tx_fee(&m, KD_KASPA_RULES_CRESCENDO, 100000), 162400); /* exactly the minimum */
    /* a priority of 50 sompi/kg above the floor on the mempool's mass */
    cr_expect_eq(kd_kaspa_tx_fee(&m, KD_KASPA_RULES_CRESCENDO, 100050), 162400 + 250);
    kd_kmass m14;
    kd_ktx_mass(tx, &e, KD_KASPA_RULES_V014, &m14);
    cr_expect_eq(kd_kaspa_tx_fee(&m14, KD_KASPA_RULES_V014, 1000), 6624); /* v0.14: compute + storage at the rate */
    /* A payload makes the transient mass count: 2 × size over compute. */
    static uint8_t payload[2000];
    cr_assert_eq(kd_ktx_set_payload(tx, payload, sizeof payload), KD_OK);
    kd_ktx_mass(tx, &e, KD_KASPA_RULES_CRESCENDO, &m);
    cr_expect_eq(m.size, 2264);
    cr_expect_eq(m.compute, 2264 + 360 + 1000);
    cr_expect_eq(m.fee_mass, 2 * 2264); /* ⌈4 × 2264 / 2⌉ */
    cr_expect_eq(kd_kaspa_min_fee(&m, KD_KASPA_RULES_CRESCENDO), 452800);
    cr_assert_eq(kd_ktx_set_payload(tx, NULL, 0), KD_OK);
    cr_expect_eq(kd_kaspa_fee_floor(KD_KASPA_RULES_CRESCENDO), 100000);
    cr_expect_eq(kd_kaspa_fee_floor(KD_KASPA_RULES_V014), 1000);
    cr_expect_eq(kd_kaspa_fee(1624, KD_KASPA_LEGACY_RELAY_FEE_RATE), 1624);
    cr_expect_eq(kd_kaspa_fee(1624, 2500), 4060);
    cr_expect_eq(kd_kaspa_fee(0, 1000), 1000);
    cr_expect(kd_kaspa_output_is_dust(599, 34));
    cr_expect(!kd_kaspa_output_is_dust(600, 34));
    cr_expect(kd_kaspa_output_is_dust(1000000, 32));
    tx->outputs[0].value = 0;
    cr_expect_eq(kd_ktx_storage_mass(tx, &e, KD_KASPA_RULES_CRESCENDO), UINT64_MAX);
    kd_ktx_free(tx);
}

/* The builder tests' wallet: a test key, its testnet address (the change)
 * and its P2PK script (what its UTXOs pay). */
typedef struct {
    kd_key key;
    kd_kaddr change;
    uint8_t script[KD_KSPK_SCRIPT_MAX];
    size_t len;
} builder;

static void builder_init(builder *b)
{
    cr_assert_eq(kd_key_test("builder", &b->key), KD_OK);
    kd_kaddr_of_key(&b->key, KD_KNET_TESTNET, &b->change);
    cr_assert_eq(kd_kaddr_to_script(&b->change, b->script, &b->len), KD_OK);
}

Test(kaspa_build, refusals_name_the_problem)
{
    builder b;
    builder_init(&b);
    kd_kutxo u[2] = {{.outpoint = {.index = 0}, .amount = 1200, .spk = {0, b.script, b.len}},
                     {.outpoint = {.index = 1}, .amount = 300, .spk = {0, b.script, b.len}}};
    kd_tx_filter filter;
    kd_tx_filter_default(&filter);
    static const uint8_t msg[] = {1, 2, 3};
    kd_kbuild_req req = {.utxos = u,
                         .n_utxos = 0,
                         .key = &b.key,
                         .change = &b.change,
                         .message = msg,
                         .message_len = 3,
                         .filter = &filter,
                         .rules = KD_KASPA_RULES_CRESCENDO};
    kd_kbuild_result res;
    char why[300];
    cr_expect_eq(kd_kaspa_build(&req, &res, why, sizeof why), KD_ERR_NOT_FOUND);
    cr_expect(strstr(why, "no UTXOs"), "%s", why);
    req.n_utxos = 2;
    cr_expect_eq(kd_kaspa_build(&req, &res, why, sizeof why), KD_ERR_INSUFFICIENT_FUNDS);
    cr_expect(strstr(why, "the wallet has 1500 sompi in 2 UTXOs"), "%s", why);
    cr_expect_null(res.tx);
    /* Enough: one input, a change, the id fits the pattern, signatures verify. */
    u[0].amount = 100000000;
    cr_assert_eq(kd_kaspa_build(&req, &res, why, sizeof why), KD_OK, "%s", why);
    cr_expect_eq(res.tx->n_inputs, 1);
    cr_expect_eq(res.tx->n_outputs, 1);
    cr_expect(kd_tx_filter_id(&filter, res.id));
    cr_expect(kd_tx_filter_payload(&filter, res.tx->payload, res.tx->payload_len));
    cr_expect_eq(res.fee + res.change, 100000000);
    /* exactly v2's minimum: max(compute, transient / 2) × 100,000 sompi/kg */
    cr_expect_eq(res.fee, kd_kaspa_fee(res.mass.fee_mass, KD_KASPA_MIN_RELAY_FEE_RATE));
    cr_expect_eq(res.fee, kd_kaspa_min_fee(&res.mass, KD_KASPA_RULES_CRESCENDO));
    uint8_t id[32];
    cr_assert_eq(kd_ktx_id(res.tx, id), KD_OK);
    cr_expect_arr_eq(id, res.id, 32);
    cr_expect_eq(kd_ktx_verify_input(res.tx, &u[0], 0, KD_KASPA_RULES_CRESCENDO), KD_OK);
    cr_expect_eq(kd_ktx_verify_input(res.tx, &u[0], 0, KD_KASPA_RULES_V014), KD_ERR_BAD_SIGNATURE);
    kd_kbuild_result_fini(&res);
    /* A payload over the standard mass. */
    static uint8_t big[30000];
    req.message = big;
    req.message_len = sizeof big;
    cr_expect_eq(kd_kaspa_build(&req, &res, why, sizeof why), KD_ERR_TOO_LARGE);
    cr_expect(strstr(why, "non-standard"), "%s", why);
    /* A rate below v2's floor is refused, naming both. */
    req.message = msg;
    req.message_len = 3;
    req.fee_rate = 1000;
    cr_expect_eq(kd_kaspa_build(&req, &res, why, sizeof why), KD_ERR_INVALID_ARG);
    cr_expect(strstr(why, "fee rate of 1000 sompi/kg is below the minimum relay fee rate of 100000 sompi/kg"), "%s",
              why);
}

/* Coinbase maturity (TxRuleError::ImmatureCoinbaseSpend): a coinbase UTXO
 * is spent only 1000 DAA scores after its block, judged at the DAA score
 * given; without one, a coinbase UTXO is refused. */
Test(kaspa_build, coinbase_maturity)
{
    builder b;
    builder_init(&b);
    /* A 500 KAS coinbase at the tip's DAA score, and a mature 2 KAS UTXO. */
    kd_kutxo u[2] = {
        {.outpoint = {.index = 0},
         .amount = 50000000000ull,
         .spk = {0, b.script, b.len},
         .block_daa_score = 5000,
         .is_coinbase = 1},
        {.outpoint = {.index = 1}, .amount = 200000000, .spk = {0, b.script, b.len}, .block_daa_score = 10}};
    static const uint8_t msg[] = {1, 2, 3};
    kd_kbuild_req req = {.utxos = u,
                         .n_utxos = 2,
                         .key = &b.key,
                         .change = &b.change,
                         .message = msg,
                         .message_len = 3,
                         .rules = KD_KASPA_RULES_CRESCENDO};
    kd_kbuild_result res;
    char why[400];
    cr_expect_eq(kd_kaspa_build(&req, &res, why, sizeof why), KD_ERR_INVALID_ARG);
    cr_expect(strstr(why, "UTXO 0") && strstr(why, "50000000000 sompi) is a coinbase output of DAA score 5000"), "%s",
              why);
    req.has_daa_score = 1;
    req.daa_score = 5000;
    cr_assert_eq(kd_kaspa_build(&req, &res, why, sizeof why), KD_OK, "%s", why);
    cr_expect_eq(res.tx->n_inputs, 1);
    cr_expect_eq(res.used[0], 1, "the immature coinbase was chosen over the mature UTXO");
    kd_kbuild_result_fini(&res);
    /* One DAA score short of maturity, then mature: the larger one first. */
    req.daa_score = 5999;
    cr_assert_eq(kd_kaspa_build(&req, &res, why, sizeof why), KD_OK, "%s", why);
    cr_expect_eq(res.used[0], 1);
    kd_kbuild_result_fini(&res);
    req.daa_score = 6000;
    cr_assert_eq(kd_kaspa_build(&req, &res, why, sizeof why), KD_OK, "%s", why);
    cr_expect_eq(res.used[0], 0);
    kd_kbuild_result_fini(&res);
    /* Only the immature one: refused, naming the amount and the DAA scores. */
    req.n_utxos = 1;
    req.daa_score = 5500;
    cr_expect_eq(kd_kaspa_build(&req, &res, why, sizeof why), KD_ERR_NOT_FOUND);
    cr_expect(
        strstr(why, "50000000000 sompi) is a coinbase output not mature until DAA score 6000 (the node is at 5500"),
        "%s", why);
    /* Not enough besides it: the message says what is immature. */
    u[1].amount = 1000;
    req.n_utxos = 2;
    cr_expect_eq(kd_kaspa_build(&req, &res, why, sizeof why), KD_ERR_INSUFFICIENT_FUNDS);
    cr_expect(strstr(why,
                     "the wallet has 1000 sompi in 1 UTXO (besides 50000000000 sompi in 1 coinbase UTXO not mature "
                     "until DAA score 6000; the node is at 5500)"),
              "%s", why);
}

/* What is left after the fee, when no change output can hold it: a dust
 * one goes to the fee; a larger one that a change cannot hold (a change
 * under about 0.012 KAS after a move's fee weighs a storage mass over the
 * standard 100,000 grams: KIP-9) makes the builder take another input, and
 * only when none makes room goes to the fee, reported (leftover,
 * kd_kbuild_note). Before: "insufficient funds" for a wallet holding eight
 * times the fee. */
Test(kaspa_build, leftover_goes_to_the_fee_only_when_nothing_else_fits)
{
    builder b;
    builder_init(&b);
    kd_kutxo u[2] = {{.outpoint = {.index = 0}, .amount = 1000000, .spk = {0, b.script, b.len}},
                     {.outpoint = {.index = 1}, .amount = 1000000, .spk = {0, b.script, b.len}}};
    kd_tx_filter filter;
    kd_tx_filter_default(&filter);
    static const uint8_t msg[] = {10, 11, 12, 13};
    kd_kbuild_req req = {.utxos = u,
                         .n_utxos = 1,
                         .key = &b.key,
                         .change = &b.change,
                         .message = msg,
                         .message_len = sizeof msg,
                         .filter = &filter,
                         .rules = KD_KASPA_RULES_CRESCENDO};
    kd_kbuild_result res;
    char why[400], note[512];
    /* 0.01 KAS alone: covered (the minimum without change is 122,400 sompi), but a change of
     * 836,400 would weigh about 10^12 / 836,400 − 10^12 / 10^6 = 195,600 grams: paid as fee, said so */
    cr_assert_eq(kd_kaspa_build(&req, &res, why, sizeof why), KD_OK, "%s", why);
    cr_expect_eq(res.tx->n_inputs, 1);
    cr_expect_eq(res.tx->n_outputs, 0);
    cr_expect_eq(res.fee, 1000000);
    uint64_t min = kd_kaspa_min_fee(&res.mass, KD_KASPA_RULES_CRESCENDO);
    cr_expect_eq(min, 122400);
    cr_expect_eq(res.leftover, 1000000 - min);
    cr_expect_eq(res.leftover_why, KD_KLEFTOVER_MASS);
    cr_expect_gt(kd_kbuild_note(&res, note, sizeof note), 0);
    cr_expect(strstr(note, "the fee of 1000000 sompi includes a leftover of 877600 sompi above the minimum") &&
                  strstr(note, "storage mass"),
              "%s", note);
    cr_expect_eq(kd_ktx_verify_input(res.tx, &u[0], 0, KD_KASPA_RULES_CRESCENDO), KD_OK);
    kd_kbuild_result_fini(&res);
    /* A second UTXO makes room for a change: taken, nothing left over, exactly the minimum */
    req.n_utxos = 2;
    cr_assert_eq(kd_kaspa_build(&req, &res, why, sizeof why), KD_OK, "%s", why);
    cr_expect_eq(res.tx->n_inputs, 2);
    cr_expect_eq(res.tx->n_outputs, 1);
    cr_expect_eq(res.leftover, 0);
    cr_expect_eq(res.leftover_why, KD_KLEFTOVER_NONE);
    cr_expect_eq(res.fee, kd_kaspa_min_fee(&res.mass, KD_KASPA_RULES_CRESCENDO));
    cr_expect_eq(kd_kbuild_note(&res, note, sizeof note), 0);
    cr_expect_str_eq(note, "");
    kd_kbuild_result_fini(&res);
    /* Too little for a change to pay its own output (600 sompi over the minimum): to the fee, said so */
    req.n_utxos = 1;
    u[0].amount = 122400 + 600;
    cr_assert_eq(kd_kaspa_build(&req, &res, why, sizeof why), KD_OK, "%s", why);
    cr_expect_eq(res.leftover, 600);
    cr_expect_eq(res.leftover_why, KD_KLEFTOVER_COST);
    cr_expect_gt(kd_kbuild_note(&res, note, sizeof note), 0);
    kd_kbuild_result_fini(&res);
    /* Dust (under 600 sompi): to the fee, as rusty-kaspa's wallet does; still said */
    u[0].amount = 122400 + 599;
    cr_assert_eq(kd_kaspa_build(&req, &res, why, sizeof why), KD_OK, "%s", why);
    cr_expect_eq(res.leftover, 599);
    cr_expect_eq(res.leftover_why, KD_KLEFTOVER_DUST);
    cr_expect(kd_kbuild_note(&res, note, sizeof note) && strstr(note, "dust"), "%s", note);
    kd_kbuild_result_fini(&res);
    /* Exactly the minimum: nothing left over, no note */
    u[0].amount = 122400;
    cr_assert_eq(kd_kaspa_build(&req, &res, why, sizeof why), KD_OK, "%s", why);
    cr_expect_eq(res.fee, 122400);
    cr_expect_eq(res.leftover, 0);
    cr_expect_eq(kd_kbuild_note(&res, note, sizeof note), 0);
    kd_kbuild_result_fini(&res);
    /* One sompi short: refused, naming what it needs and what there is */
    u[0].amount = 122399;
    cr_expect_eq(kd_kaspa_build(&req, &res, why, sizeof why), KD_ERR_INSUFFICIENT_FUNDS);
    cr_expect(strstr(why, "needs at least 122400 sompi") && strstr(why, "the wallet has 122399 sompi in 1 UTXO"), "%s",
              why);
}

/* A coinbase entry without its block's DAA score cannot be judged mature:
 * the list refuses it, naming the entry. */
Test(kaspa_utxo, coinbase_needs_its_daa_score)
{
    static const char entry[] =
        "[{\"outpoint\":{\"transactionId\":\"%s\",\"index\":0},\"utxoEntry\":{\"amount\":5,\"scriptPublicKey\":"
        "\"000020aa%sac\",\"isCoinbase\":true%s}}]";
    char text[600], zeros[65], spk[63];
    memset(zeros, '0', 64);
    zeros[64] = 0;
    memset(spk, 'b', 62);
    spk[62] = 0;
    for (int with = 0; with < 2; with++) {
        snprintf(text, sizeof text, entry, zeros, spk, with ? ",\"blockDaaScore\":77" : "");
        json_error_t jerr;
        json_t *j = json_loads(text, 0, &jerr);
        cr_assert(j, "%s", jerr.text);
        kd_kutxo_list l;
        char why[200] = "";
        kd_err err = kd_kutxo_list_parse(j, &l, why, sizeof why);
        if (with) {
            cr_expect_eq(err, KD_OK, "%s", why);
            cr_expect(l.n == 1 && l.utxos[0].is_coinbase && l.utxos[0].block_daa_score == 77);
            kd_kutxo_list_fini(&l);
        } else {
            cr_expect_eq(err, KD_ERR_PARSE);
            cr_expect(strstr(why, "entries[0].utxoEntry.blockDaaScore is missing"), "%s", why);
        }
        json_decref(j);
    }
}
