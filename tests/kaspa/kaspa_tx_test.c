/*
 * kaspa_tx_test.c — the Kaspa transaction (tools/kaspa/kaspa_tx.h): ids and
 * hashes against the vectors of rusty-kaspa v0.14.1 consensus/core/src/
 * hashing/tx.rs (test_transaction_hashing), and its JSON both ways.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "engine/bytes.h"
#include "tools/kaspa/kaspa_tx.h"
#include "tools/listen/kaspa_rpc.h"

static void hex32(const char *hex, uint8_t out[32]) { cr_assert_eq(kd_hex_decode(hex, out, 32), 0); }

static void expect_digests(const kd_ktx *tx, const char *id_hex, const char *hash_hex, int n)
{
    uint8_t id[32], hash[32], want_id[32], want_hash[32];
    hex32(id_hex, want_id);
    hex32(hash_hex, want_hash);
    cr_assert_eq(kd_ktx_id(tx, id), KD_OK);
    cr_assert_eq(kd_ktx_hash(tx, 0, hash), KD_OK);
    cr_expect_arr_eq(id, want_id, 32, "id of test %d", n);
    cr_expect_arr_eq(hash, want_hash, 32, "hash of test %d", n);
}

/* Hash::from_u64_word(0): all zeroes. */
static void add_input(kd_ktx *tx, const char *txid_hex)
{
    kd_ktx_outpoint prev = {.index = 2};
    if (txid_hex)
        hex32(txid_hex, prev.txid);
    else
        memset(prev.txid, 0, 32);
    cr_assert_eq(kd_ktx_add_input(tx, &prev, 7, 5), KD_OK);
    static const uint8_t script[] = {1, 2};
    cr_assert_eq(kd_ktx_set_sig_script(tx, tx->n_inputs - 1, script, 2), KD_OK);
}

static void add_output(kd_ktx *tx)
{
    static const uint8_t script[] = {1, 2, 3, 4, 5};
    cr_assert_eq(kd_ktx_add_output(tx, 1564, 7, script, 5), KD_OK);
}

Test(kaspa_tx, rusty_kaspa_vectors)
{
    kd_ktx *tx;
    cr_assert_eq(kd_ktx_alloc(&tx), KD_OK);
    expect_digests(tx, "2c18d5e59ca8fc4c23d9560da3bf738a8f40935c11c162017fbf2c907b7e665c",
                   "c9e29784564c269ce2faaffd3487cb4684383018ace11133de082dce4bb88b0b", 1);
    tx->version = 1;
    add_input(tx, NULL);
    expect_digests(tx, "dafa415216d26130a899422203559c809d3efe72e20d48505fb2f08787bc4f49",
                   "e4045023768d98839c976918f80c9419c6a93003724eda97f7c61a5b68de851b", 2);
    add_output(tx);
    expect_digests(tx, "d1cd9dc1f26955832ccd12c27afaef4b71443aa7e7487804baf340952ca927e5",
                   "e5523c70f6b986cad9f6959e63f080e6ac5f93bc2a9e0e01a89ca9bf6908f51c", 3);
    tx->version = 2;
    tx->lock_time = 54;
    tx->gas = 3;
    expect_digests(tx, "59b3d6dc6cdc660c389c3fdb5704c48c598d279cdf1bab54182db586a4c95dd5",
                   "b70f2f14c2f161a29b77b9a78997887a8e727bb57effca38cd246cb270b19cd5", 4);
    kd_ktx_free(tx);

    cr_assert_eq(kd_ktx_alloc(&tx), KD_OK);
    tx->version = 2;
    tx->lock_time = 54;
    tx->gas = 3;
    add_input(tx, "59b3d6dc6cdc660c389c3fdb5704c48c598d279cdf1bab54182db586a4c95dd5");
    add_output(tx);
    expect_digests(tx, "9d106623860567915b19cea33af486286a31b4bfc68627c6d4d377287afb40ad",
                   "cd575e69fbf5f97fbfd4afb414feb56f8463b3948d6ac30f0ecdd9622672fab9", 5);
    tx->subnetwork_id[0] = 1; /* coinbase: the id keeps the signature scripts */
    cr_expect(kd_ktx_is_coinbase(tx));
    expect_digests(tx, "3fad809b11bd5a4af027aa4ac3fbde97e40624fd40965ba3ee1ee1b57521ad10",
                   "b4eb5f0cab5060bf336af5dcfdeb2198cc088b693b35c87309bd3dda04f1cfb9", 6);
    tx->subnetwork_id[0] = 2; /* registry */
    cr_expect(!kd_ktx_is_coinbase(tx));
    expect_digests(tx, "c542a204ab9416df910b01540b0c51b85e6d4e1724e081e224ea199a9e54e1b3",
                   "31da267d5c34f0740c77b8c9ebde0845a01179ec68074578227b804bac306361", 7);
    kd_ktx_free(tx);
}

Test(kaspa_tx, id_ignores_signature_scripts_hash_does_not)
{
    kd_ktx *tx;
    cr_assert_eq(kd_ktx_alloc(&tx), KD_OK);
    add_input(tx, NULL);
    add_output(tx);
    uint8_t id1[32], id2[32], h1[32], h2[32];
    cr_assert_eq(kd_ktx_id(tx, id1), KD_OK);
    cr_assert_eq(kd_ktx_hash(tx, 1, h1), KD_OK);
    static const uint8_t other[] = {9, 9, 9};
    cr_assert_eq(kd_ktx_set_sig_script(tx, 0, other, 3), KD_OK);
    cr_assert_eq(kd_ktx_id(tx, id2), KD_OK);
    cr_assert_eq(kd_ktx_hash(tx, 1, h2), KD_OK);
    cr_expect_arr_eq(id1, id2, 32);
    cr_expect_arr_neq(h1, h2, 32);
    /* The mass is committed to in the hash only when asked and non-zero. */
    cr_assert_eq(kd_ktx_hash(tx, 1, h1), KD_OK);
    tx->mass = 1234;
    cr_assert_eq(kd_ktx_hash(tx, 0, h2), KD_OK);
    cr_expect_arr_eq(h1, h2, 32);
    cr_assert_eq(kd_ktx_hash(tx, 1, h2), KD_OK);
    cr_expect_arr_neq(h1, h2, 32);
    cr_expect_eq(kd_ktx_set_sig_script(tx, 5, other, 3), KD_ERR_INVALID_ARG);
    kd_ktx_free(tx);
}

static const char sample_json[] =
    "{\"version\":0,\"inputs\":[{\"previousOutpoint\":{\"transactionId\":"
    "\"59b3d6dc6cdc660c389c3fdb5704c48c598d279cdf1bab54182db586a4c95dd5\",\"index\":3},"
    "\"signatureScript\":\"0102\",\"sequence\":18446744073709551615,\"sigOpCount\":1,\"verboseData\":null}],"
    "\"outputs\":[{\"value\":1564,\"scriptPublicKey\":\"00070102030405\",\"verboseData\":null}],"
    "\"lockTime\":0,\"subnetworkId\":\"0000000000000000000000000000000000000000\",\"gas\":0,"
    "\"payload\":\"4b444331\",\"storageMass\":17,\"mass\":17,\"verboseData\":null}";

Test(kaspa_tx, json_round_trip)
{
    /* jansson refuses integers above 2^63 - 1: hand the sequence over as a
     * string of digits, as a reader limited to signed integers would. */
    char *text = strdup(sample_json);
    char *seq = strstr(text, "18446744073709551615");
    cr_assert(seq);
    json_error_t jerr;
    size_t qlen = strlen(text) + 3;
    char *quoted = malloc(qlen);
    cr_assert(quoted);
    snprintf(quoted, qlen, "%.*s\"18446744073709551615\"%s", (int)(seq - text), text, seq + 20);
    json_t *j = json_loads(quoted, 0, &jerr);
    cr_assert(j, "%s", jerr.text);
    kd_ktx *tx;
    char why[160] = "";
    cr_assert_eq(kd_ktx_json_parse(j, &tx, why, sizeof why), KD_OK, "%s", why);
    cr_expect_eq(tx->inputs[0].sequence, UINT64_MAX);
    cr_expect_eq(tx->inputs[0].prev.index, 3);
    cr_expect_eq(tx->outputs[0].spk.version, 7);
    cr_expect_eq(tx->outputs[0].spk.script_len, 5);
    cr_expect_eq(tx->payload_len, 4);
    cr_expect_eq(tx->mass, 17);
    char *back;
    cr_assert_eq(kd_ktx_json_render(tx, &back), KD_OK);
    cr_expect_str_eq(back, sample_json);
    free(back);
    kd_ktx_free(tx);
    json_decref(j);
    free(quoted);
    free(text);
}

/* kaspad v2 names the storage mass storageMass and still sends mass; a
 * JSON with only one of them, or both agreeing, reads; two that differ is
 * refused as v2 refuses it. */
Test(kaspa_tx, storage_mass_and_mass)
{
    static const char *const ok[] = {"\"storageMass\":9", "\"mass\":9", "\"storageMass\":9,\"mass\":9"};
    for (size_t i = 0; i < 4; i++) {
        char text[512];
        snprintf(text, sizeof text,
                 "{\"version\":0,\"inputs\":[],\"outputs\":[],\"lockTime\":0,\"subnetworkId\":"
                 "\"0000000000000000000000000000000000000000\",\"gas\":0,\"payload\":\"\",%s}",
                 i < 3 ? ok[i] : "\"storageMass\":9,\"mass\":8");
        json_error_t jerr;
        json_t *j = json_loads(text, 0, &jerr);
        cr_assert(j, "%s", jerr.text);
        kd_ktx *tx = NULL;
        char why[160] = "";
        kd_err err = kd_ktx_json_parse(j, &tx, why, sizeof why);
        if (i < 3) {
            cr_expect_eq(err, KD_OK, "%s: %s", text, why);
            cr_expect_eq(tx ? tx->mass : 0, 9);
        } else {
            cr_expect_eq(err, KD_ERR_PARSE);
            cr_expect(strstr(why, "storageMass (9) and mass (8) differ"), "%s", why);
        }
        kd_ktx_free(tx);
        json_decref(j);
    }
}

/* The node's JSON as kd_kaspa_json_load reads it: a sequence of 2^64 - 1
 * (and a value of 2^63) as bare numbers, through the listener's one u64
 * reader; a decimal string still reads, a negative or fractional one not. */
Test(kaspa_tx, json_bare_u64_above_2_63)
{
    json_t *j;
    char why[200] = "";
    cr_assert_eq(kd_kaspa_json_load(sample_json, strlen(sample_json), &j, why, sizeof why), KD_OK, "%s", why);
    json_object_set_new(json_array_get(json_object_get(j, "outputs"), 0), "value", kd_kaspa_u64_new(1ull << 63));
    kd_ktx *tx;
    cr_assert_eq(kd_ktx_json_parse(j, &tx, why, sizeof why), KD_OK, "%s", why);
    cr_expect_eq(tx->inputs[0].sequence, UINT64_MAX);
    cr_expect_eq(tx->outputs[0].value, 1ull << 63);
    kd_ktx_free(tx);
    json_object_set_new(j, "lockTime", json_string("18446744073709551616"));
    cr_expect_eq(kd_ktx_json_parse(j, &tx, why, sizeof why), KD_ERR_PARSE);
    cr_expect(strstr(why, "lockTime") && strstr(why, "over 2^64-1"), "%s", why);
    json_object_set_new(j, "lockTime", json_real(1.5));
    cr_expect_eq(kd_ktx_json_parse(j, &tx, why, sizeof why), KD_ERR_PARSE);
    cr_expect(strstr(why, "fraction"), "%s", why);
    json_decref(j);
}

static void expect_refused(const char *text, const char *needle)
{
    json_error_t jerr;
    json_t *j = json_loads(text, 0, &jerr);
    cr_assert(j, "%s: %s", text, jerr.text);
    kd_ktx *tx = NULL;
    char why[160] = "";
    cr_expect_eq(kd_ktx_json_parse(j, &tx, why, sizeof why), KD_ERR_PARSE, "%s", text);
    cr_expect(strstr(why, needle), "'%s' does not name '%s'", why, needle);
    cr_expect_null(tx);
    json_decref(j);
}

Test(kaspa_tx, json_refusals_name_the_field)
{
    expect_refused("[]", "not a JSON object");
    expect_refused("{\"inputs\":[],\"version\":0}", "outputs is missing");
    expect_refused("{\"inputs\":[{}],\"outputs\":[],\"version\":0}", "inputs[0].previousOutpoint is missing");
    expect_refused("{\"inputs\":[{\"previousOutpoint\":{\"transactionId\":\"00\",\"index\":0}}],\"outputs\":[],"
                   "\"version\":0}",
                   "inputs[0].previousOutpoint.transactionId is not 32 bytes");
    expect_refused("{\"inputs\":[],\"outputs\":[{\"value\":-1}],\"version\":0}", "outputs[0].value is not an integer");
    expect_refused("{\"inputs\":[],\"outputs\":[{\"value\":1,\"scriptPublicKey\":\"00\"}],\"version\":0}",
                   "outputs[0].scriptPublicKey is shorter");
    expect_refused("{\"inputs\":[],\"outputs\":[],\"version\":65536}", "version is not an integer from 0 to 65535");
    expect_refused("{\"inputs\":[],\"outputs\":[],\"version\":0,\"lockTime\":0,\"subnetworkId\":\"00\"}",
                   "subnetworkId is not 20 bytes");
    expect_refused("{\"inputs\":[],\"outputs\":[],\"version\":0,\"lockTime\":0,\"subnetworkId\":"
                   "\"0000000000000000000000000000000000000000\",\"gas\":0,\"payload\":\"zz\"}",
                   "payload is not hex");
}
