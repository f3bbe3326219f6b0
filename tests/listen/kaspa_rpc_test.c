/*
 * kaspa_rpc_test.c — the wRPC message model (tools/listen/kaspa_rpc.h) and
 * the kdapp tx filter (tools/listen/txfilter.h): frames and payloads as
 * rusty-kaspa serialises them parse into the right fields, and every
 * malformed shape is refused with a sentence naming the field.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/listen/kaspa_rpc.h"
#include "tools/listen/txfilter.h"

#define H1 "1111111111111111111111111111111111111111111111111111111111111111"
#define H2 "2222222222222222222222222222222222222222222222222222222222222222"
#define H3 "3333333333333333333333333333333333333333333333333333333333333333"
#define HA "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

static json_t *load(const char *text)
{
    json_error_t e;
    json_t *j = json_loads(text, 0, &e);
    cr_assert(j, "bad test JSON: %s", e.text);
    return j;
}

/* ------------------------------------------------------------- frames */

Test(wrpc_frame, response_error_and_notification)
{
    char why[256];
    kd_wrpc_frame f;
    const char *resp = "{\"id\":7,\"method\":\"getSink\",\"params\":{\"sink\":\"" H1 "\"}}";
    cr_assert_eq(kd_wrpc_frame_parse(resp, strlen(resp), &f, why, sizeof why), KD_OK, "%s", why);
    cr_expect_eq(f.kind, KD_WRPC_RESPONSE);
    cr_expect_eq(f.id, 7u);
    cr_expect_str_eq(f.method, "getSink");
    cr_expect_str_eq(json_string_value(json_object_get(f.params, "sink")), H1);
    kd_wrpc_frame_fini(&f);

    const char *err = "{\"id\":8,\"method\":\"getBlock\",\"error\":{\"code\":0,\"message\":\"cannot find header " H2
                      "\",\"data\":null}}";
    cr_assert_eq(kd_wrpc_frame_parse(err, strlen(err), &f, why, sizeof why), KD_OK, "%s", why);
    cr_expect_eq(f.kind, KD_WRPC_ERROR);
    cr_expect_eq(f.id, 8u);
    cr_expect_str_eq(f.error, "cannot find header " H2);
    kd_wrpc_frame_fini(&f);

    /* a node's refusal is kept whole, however long (kaspad's name two tx ids and the amounts) */
    char long_msg[1200], long_err[1400];
    for (size_t i = 0; i < sizeof long_msg - 2; i++)
        long_msg[i] = (char)('a' + i % 26);
    long_msg[sizeof long_msg - 2] = '.';
    long_msg[sizeof long_msg - 1] = 0;
    snprintf(long_err, sizeof long_err, "{\"id\":9,\"error\":{\"message\":\"%s\"}}", long_msg);
    cr_assert_eq(kd_wrpc_frame_parse(long_err, strlen(long_err), &f, why, sizeof why), KD_OK, "%s", why);
    cr_expect_eq(f.kind, KD_WRPC_ERROR);
    cr_expect_str_eq(f.error, long_msg);
    kd_wrpc_frame_fini(&f);

    const char *note =
        "{\"method\":\"virtualChainChangedNotification\",\"params\":{\"VirtualChainChanged\":{"
        "\"removedChainBlockHashes\":[],\"addedChainBlockHashes\":[\"" H1 "\"],\"acceptedTransactionIds\":[]}}}";
    cr_assert_eq(kd_wrpc_frame_parse(note, strlen(note), &f, why, sizeof why), KD_OK, "%s", why);
    cr_expect_eq(f.kind, KD_WRPC_NOTIFICATION);
    kd_kaspa_chain ch;
    cr_assert_eq(kd_kaspa_chain_notification_parse(f.params, &ch, why, sizeof why), KD_OK, "%s", why);
    cr_expect_eq(ch.n_added, 1u);
    cr_expect_eq(ch.n_removed, 0u);
    kd_kaspa_chain_fini(&ch);
    kd_wrpc_frame_fini(&f);
}

typedef struct {
    const char *text;
    const char *why; /* a part of the sentence */
} bad_case;

static const bad_case bad_frames[] = {
    {"not json", "not JSON"},
    {"", "not JSON"},
    {"[1,2]", "not a JSON object"},
    {"{\"id\":1,\"id\":2,\"params\":{}}", "not JSON"}, /* duplicate key */
    {"{\"id\":\"one\",\"params\":{}}", "id is not a non-negative integer"},
    {"{\"id\":-1,\"params\":{}}", "id is not a non-negative integer"},
    {"{\"id\":1}", "neither an object params nor an error"},
    {"{\"id\":1,\"params\":[]}", "neither an object params nor an error"},
    {"{\"id\":1,\"error\":{\"code\":0}}", "no message string"},
    {"{\"id\":1,\"error\":\"boom\"}", "no message string"},
    {"{\"method\":\"x\"}", "neither a reply (id) nor a notification"},
    {"{\"method\":5,\"params\":{}}", "method is not a short string"},
    {"{\"params\":{}}", "neither a reply (id) nor a notification"},
};

Test(wrpc_frame, malformed)
{
    for (size_t i = 0; i < sizeof bad_frames / sizeof bad_frames[0]; i++) {
        const bad_case *c = &bad_frames[i];
        char why[256] = "";
        kd_wrpc_frame f;
        cr_expect_eq(kd_wrpc_frame_parse(c->text, strlen(c->text), &f, why, sizeof why), KD_ERR_PARSE, "%s", c->text);
        cr_expect(strstr(why, c->why), "'%s': got '%s', expected it to name '%s'", c->text, why, c->why);
        cr_expect_null(f.root);
    }
}

Test(wrpc_frame, request_text)
{
    json_t *p = load("{\"startHash\":\"" H1 "\",\"includeAcceptedTransactionIds\":true}");
    char *text = kd_wrpc_request_text(3, "getVirtualChainFromBlock", p);
    cr_assert(text);
    json_t *j = load(text);
    cr_expect_eq(json_integer_value(json_object_get(j, "id")), 3);
    cr_expect_str_eq(json_string_value(json_object_get(j, "method")), "getVirtualChainFromBlock");
    cr_expect(json_equal(json_object_get(j, "params"), p));
    json_decref(j);
    json_decref(p);
    free(text);
}

/* --------------------------------------------------------- the chain */

Test(kaspa_chain, virtual_chain_response)
{
    char why[256];
    json_t *p = load("{\"removedChainBlockHashes\":[\"" H3 "\"],\"addedChainBlockHashes\":[\"" H1 "\",\"" H2 "\"],"
                     "\"acceptedTransactionIds\":[{\"acceptingBlockHash\":\"" H1 "\",\"acceptedTransactionIds\":[\"" HA
                     "\"]},{\"acceptingBlockHash\":\"" H2 "\",\"acceptedTransactionIds\":[]}]}");
    kd_kaspa_chain ch;
    cr_assert_eq(kd_kaspa_chain_parse(p, "getVirtualChainFromBlock", 1, &ch, why, sizeof why), KD_OK, "%s", why);
    cr_expect_eq(ch.n_removed, 1u);
    cr_expect_eq(ch.removed[0][0], 0x33);
    cr_expect_eq(ch.n_added, 2u);
    cr_expect_eq(ch.n_accepted, 2u);
    cr_expect_eq(ch.accepted[0].n_ids, 1u);
    cr_expect_eq(ch.accepted[0].ids[0][31], 0xaa);
    cr_expect_eq(ch.accepted[1].n_ids, 0u);
    kd_kaspa_chain_fini(&ch);
    json_decref(p);
}

static const bad_case bad_chains[] = {
    {"[]", "params are not an object"},
    {"{\"addedChainBlockHashes\":[],\"acceptedTransactionIds\":[]}", "removedChainBlockHashes is missing"},
    {"{\"removedChainBlockHashes\":[],\"acceptedTransactionIds\":[]}", "addedChainBlockHashes is missing"},
    {"{\"removedChainBlockHashes\":[\"xyz\"],\"addedChainBlockHashes\":[],\"acceptedTransactionIds\":[]}",
     "removedChainBlockHashes[0] is not a 64-digit hex hash"},
    {"{\"removedChainBlockHashes\":[],\"addedChainBlockHashes\":[\"" H1 "\",7],\"acceptedTransactionIds\":[]}",
     "addedChainBlockHashes[1] is not a 64-digit hex hash"},
    {"{\"removedChainBlockHashes\":[],\"addedChainBlockHashes\":[\"" H1 "\"]}", "acceptedTransactionIds is missing"},
    {"{\"removedChainBlockHashes\":[],\"addedChainBlockHashes\":[\"" H1 "\"],\"acceptedTransactionIds\":[]}",
     "acceptedTransactionIds has 0 entries for 1 added chain blocks"},
    {"{\"removedChainBlockHashes\":[],\"addedChainBlockHashes\":[\"" H1
     "\"],\"acceptedTransactionIds\":[{\"acceptedTransactionIds\":[]}]}",
     "acceptedTransactionIds[0].acceptingBlockHash is not a 64-digit hex hash"},
    {"{\"removedChainBlockHashes\":[],\"addedChainBlockHashes\":[\"" H1
     "\"],\"acceptedTransactionIds\":[{\"acceptingBlockHash\":\"" H2 "\",\"acceptedTransactionIds\":[]}]}",
     "acceptingBlockHash is not addedChainBlockHashes[0]"},
    {"{\"removedChainBlockHashes\":[],\"addedChainBlockHashes\":[\"" H1
     "\"],\"acceptedTransactionIds\":[{\"acceptingBlockHash\":\"" H1 "\"}]}",
     "acceptedTransactionIds[0]: acceptedTransactionIds is missing"},
    {"{\"removedChainBlockHashes\":[],\"addedChainBlockHashes\":[\"" H1
     "\"],\"acceptedTransactionIds\":[{\"acceptingBlockHash\":\"" H1 "\",\"acceptedTransactionIds\":[\"" H2 "0\"]}]}",
     "acceptedTransactionIds[0]: acceptedTransactionIds[0] is not a 64-digit hex hash"},
};

Test(kaspa_chain, malformed)
{
    for (size_t i = 0; i < sizeof bad_chains / sizeof bad_chains[0]; i++) {
        const bad_case *c = &bad_chains[i];
        char why[256] = "";
        json_t *p = load(c->text);
        kd_kaspa_chain ch;
        cr_expect_eq(kd_kaspa_chain_parse(p, "getVirtualChainFromBlock", 1, &ch, why, sizeof why), KD_ERR_PARSE);
        cr_expect(strstr(why, c->why), "'%s': got '%s', expected it to name '%s'", c->text, why, c->why);
        cr_expect(strncmp(why, "getVirtualChainFromBlock", 24) == 0, "the sentence should name the message: %s", why);
        cr_expect_null(ch.added);
        json_decref(p);
    }
}

Test(kaspa_chain, notification_needs_its_tag)
{
    char why[256];
    json_t *p = load("{\"removedChainBlockHashes\":[],\"addedChainBlockHashes\":[],\"acceptedTransactionIds\":[]}");
    kd_kaspa_chain ch;
    cr_expect_eq(kd_kaspa_chain_notification_parse(p, &ch, why, sizeof why), KD_ERR_PARSE);
    cr_expect(strstr(why, "params.VirtualChainChanged is missing"), "%s", why);
    json_decref(p);
}

/* --------------------------------------------------------------- block */

/* A getBlock answer as rusty-kaspa writes it (rpc/core/src/model/block.rs,
 * header.rs, tx.rs): verbose data always, transactions when asked for. */
#define HEADER                                                                                                       \
    "\"header\":{\"hash\":\"" H1 "\",\"version\":1,\"parentsByLevel\":[[\"" H2 "\"]],\"hashMerkleRoot\":\"" H3 "\"," \
    "\"acceptedIdMerkleRoot\":\"" H3 "\",\"utxoCommitment\":\"" H3                                                   \
    "\",\"timestamp\":1700000000123,\"bits\":486722099,"                                                             \
    "\"nonce\":5,\"daaScore\":4242,\"blueWork\":\"000000000000000000000000000000000000000000000001\",\"blueScore\":" \
    "4000,"                                                                                                          \
    "\"pruningPoint\":\"" H3 "\"}"
#define VERBOSE                                                                                                        \
    "\"verboseData\":{\"hash\":\"" H1 "\",\"difficulty\":1.5,\"selectedParentHash\":\"" H2 "\",\"transactionIds\":[]," \
    "\"isHeaderOnly\":false,\"blueScore\":4000,\"childrenHashes\":[],\"mergeSetBluesHashes\":[\"" H2 "\"],"            \
    "\"mergeSetRedsHashes\":[\"" H3 "\"],\"isChainBlock\":true}"
#define TX(payload)                                                                                                    \
    "{\"version\":0,\"inputs\":[],\"outputs\":[],\"lockTime\":0,\"subnetworkId\":"                                     \
    "\"0000000000000000000000000000000000000000\",\"gas\":0,\"payload\":\"" payload "\",\"storageMass\":0,\"mass\":0," \
    "\"verboseData\":{\"transactionId\":\"" HA "\",\"hash\":\"" HA "\",\"computeMass\":0,\"blockHash\":\"" H1          \
    "\",\"blockTime\":1700000000123}}"

Test(kaspa_block, header_mergeset_and_transactions)
{
    char why[256];
    json_t *p =
        load("{\"block\":{" HEADER ",\"transactions\":[" TX("") "," TX("4b44433101000000cafe") "]," VERBOSE "}}");
    kd_kaspa_block b;
    cr_assert_eq(kd_kaspa_block_parse(p, 1, &b, why, sizeof why), KD_OK, "%s", why);
    cr_expect_eq(b.hash[0], 0x11);
    cr_expect_eq(b.daa_score, 4242u);
    cr_expect_eq(b.timestamp_ms, 1700000000123u);
    cr_expect_eq(b.blue_score, 4000u);
    cr_expect(b.has_verbose && b.is_chain_block);
    cr_expect_eq(b.n_blues, 1u);
    cr_expect_eq(b.n_reds, 1u);
    cr_expect_eq(b.mergeset[0][0], 0x22);
    cr_expect_eq(b.mergeset[1][0], 0x33);
    cr_assert_eq(b.n_txs, 2u);
    cr_expect_eq(b.txs[0].payload_len, 0u);
    cr_expect_eq(b.txs[1].payload_len, 10u);
    cr_expect_eq(b.txs[1].payload[9], 0xfe);
    kd_tx_filter f;
    kd_tx_filter_default(&f);
    cr_expect(kd_tx_filter_payload(&f, b.txs[1].payload, b.txs[1].payload_len));
    kd_kaspa_block_fini(&b);
    json_decref(p);
}

Test(kaspa_block, without_transactions_or_verbose)
{
    char why[256];
    json_t *p = load("{\"block\":{" HEADER ",\"transactions\":[],\"verboseData\":null}}");
    kd_kaspa_block b;
    cr_assert_eq(kd_kaspa_block_parse(p, 0, &b, why, sizeof why), KD_OK, "%s", why);
    cr_expect_eq(b.has_verbose, 0);
    cr_expect_eq(b.n_txs, 0u);
    kd_kaspa_block_fini(&b);
    json_decref(p);
}

static const bad_case bad_blocks[] = {
    {"{}", "block.header is missing"},
    {"{\"block\":{\"transactions\":[]}}", "block.header is missing"},
    {"{\"block\":{\"header\":{\"hash\":\"12\"},\"transactions\":[]}}", "block.header.hash is not a 64-digit hex hash"},
    {"{\"block\":{\"header\":{\"hash\":\"" H1 "\",\"daaScore\":\"x\"},\"transactions\":[]}}",
     "block.header.daaScore is not a non-negative integer"},
    {"{\"block\":{\"header\":{\"hash\":\"" H1 "\",\"daaScore\":-1},\"transactions\":[]}}",
     "block.header.daaScore is not a non-negative integer"},
    {"{\"block\":{\"header\":{\"hash\":\"" H1 "\",\"daaScore\":1,\"timestamp\":1.5},\"transactions\":[]}}",
     "block.header.timestamp is not a non-negative integer"},
    {"{\"block\":{\"header\":{\"hash\":\"" H1 "\",\"daaScore\":1,\"timestamp\":1},\"transactions\":[]}}",
     "block.header.blueScore is not a non-negative integer"},
    {"{\"block\":{" HEADER ",\"transactions\":[],\"verboseData\":7}}",
     "block.verboseData is neither an object nor null"},
    {"{\"block\":{" HEADER ",\"transactions\":[],\"verboseData\":{\"isChainBlock\":1}}}",
     "block.verboseData.isChainBlock is not a boolean"},
    {"{\"block\":{" HEADER ",\"transactions\":[],\"verboseData\":{\"isChainBlock\":true,\"mergeSetRedsHashes\":[]}}}",
     "mergeSetBluesHashes is missing or not an array"},
    {"{\"block\":{" HEADER
     ",\"transactions\":[],\"verboseData\":{\"isChainBlock\":true,\"mergeSetBluesHashes\":[],\"mergeSetRedsHashes\":["
     "\"zz\"]}}}",
     "mergeSetRedsHashes[0] is not a 64-digit hex hash"},
    {"{\"block\":{" HEADER "}}", "block.transactions is missing or not an array"},
    {"{\"block\":{" HEADER ",\"transactions\":[7]}}", "block.transactions[0] is not an object"},
    {"{\"block\":{" HEADER ",\"transactions\":[{\"payload\":\"\"}]}}",
     "block.transactions[0].verboseData.transactionId is missing"},
    {"{\"block\":{" HEADER ",\"transactions\":[" TX("abc") "]}}", "block.transactions[0].payload is not a hex string"},
    {"{\"block\":{" HEADER ",\"transactions\":[" TX("zz") "]}}", "block.transactions[0].payload is not a hex string"},
};

Test(kaspa_block, malformed)
{
    for (size_t i = 0; i < sizeof bad_blocks / sizeof bad_blocks[0]; i++) {
        const bad_case *c = &bad_blocks[i];
        char why[256] = "";
        json_t *p = load(c->text);
        kd_kaspa_block b;
        cr_expect_eq(kd_kaspa_block_parse(p, 1, &b, why, sizeof why), KD_ERR_PARSE);
        cr_expect(strstr(why, c->why), "got '%s', expected it to name '%s'", why, c->why);
        cr_expect(strncmp(why, "getBlock", 8) == 0, "the sentence should name the message: %s", why);
        cr_expect_null(b.txs);
        cr_expect_null(b.mergeset);
        json_decref(p);
    }
}

/* ------------------------------------------------------------ node info */

Test(kaspa_info, dag_info_and_server_info)
{
    char why[256];
    json_t *d = load("{\"network\":\"testnet-10\",\"blockCount\":5,\"headerCount\":5,\"tipHashes\":[\"" H1 "\"],"
                     "\"difficulty\":1.0,\"pastMedianTime\":1,\"virtualParentHashes\":[],\"pruningPointHash\":\"" H2
                     "\",\"virtualDaaScore\":99,\"sink\":\"" H1 "\"}");
    kd_kaspa_dag_info di;
    cr_assert_eq(kd_kaspa_dag_info_parse(d, &di, why, sizeof why), KD_OK, "%s", why);
    cr_expect_str_eq(di.network, "testnet-10");
    cr_expect_eq(di.virtual_daa_score, 99u);
    cr_expect_eq(di.sink[0], 0x11);
    json_decref(d);
    json_t *s = load("{\"rpcApiVersion\":1,\"rpcApiRevision\":0,\"serverVersion\":\"1.0.1\",\"networkId\":\"mainnet\","
                     "\"hasUtxoIndex\":false,\"isSynced\":true,\"virtualDaaScore\":7}");
    kd_kaspa_server_info si;
    cr_assert_eq(kd_kaspa_server_info_parse(s, &si, why, sizeof why), KD_OK, "%s", why);
    cr_expect_str_eq(si.network_id, "mainnet");
    cr_expect_str_eq(si.server_version, "1.0.1");
    cr_expect(si.is_synced);
    json_decref(s);
}

static const bad_case bad_infos[] = {
    {"{\"sink\":\"" H1 "\",\"virtualDaaScore\":1}", "getBlockDagInfo: network is missing"},
    {"{\"network\":\"mainnet\",\"sink\":\"x\",\"virtualDaaScore\":1}", "getBlockDagInfo: sink is not a 64-digit"},
    {"{\"network\":\"mainnet\",\"sink\":\"" H1 "\"}", "getBlockDagInfo: virtualDaaScore is not a non-negative"},
    {"{\"serverVersion\":\"1\",\"isSynced\":true,\"virtualDaaScore\":1}", "getServerInfo: networkId is missing"},
    {"{\"networkId\":\"mainnet\",\"isSynced\":true,\"virtualDaaScore\":1}", "getServerInfo: serverVersion is missing"},
    {"{\"networkId\":\"mainnet\",\"serverVersion\":\"1\",\"isSynced\":\"yes\",\"virtualDaaScore\":1}",
     "getServerInfo: isSynced is not a boolean"},
    {"{\"networkId\":\"mainnet\",\"serverVersion\":\"1\",\"isSynced\":true}",
     "getServerInfo: virtualDaaScore is not a non-negative"},
};

Test(kaspa_info, malformed)
{
    for (size_t i = 0; i < sizeof bad_infos / sizeof bad_infos[0]; i++) {
        const bad_case *c = &bad_infos[i];
        char why[256] = "";
        json_t *p = load(c->text);
        kd_kaspa_dag_info di;
        kd_kaspa_server_info si;
        kd_err err = strncmp(c->why, "getBlockDagInfo", 15) == 0 ? kd_kaspa_dag_info_parse(p, &di, why, sizeof why)
                                                                 : kd_kaspa_server_info_parse(p, &si, why, sizeof why);
        cr_expect_eq(err, KD_ERR_PARSE);
        cr_expect(strstr(why, c->why), "got '%s', expected it to name '%s'", why, c->why);
        json_decref(p);
    }
}

/* ------------------------------------------------------ ports, filter */

Test(kaspa_info, default_json_ports)
{
    cr_expect_eq(kd_kaspa_json_port("mainnet"), 18110u);
    cr_expect_eq(kd_kaspa_json_port("testnet-10"), 18210u);
    cr_expect_eq(kd_kaspa_json_port("testnet-11"), 18210u);
    cr_expect_eq(kd_kaspa_json_port("simnet"), 18510u);
    cr_expect_eq(kd_kaspa_json_port("devnet"), 18610u);
    cr_expect_eq(kd_kaspa_json_port("testnetx"), 0u);
    cr_expect_eq(kd_kaspa_json_port("moon"), 0u);
}

Test(txfilter, pattern_prefix_and_grinding)
{
    kd_tx_filter f;
    kd_tx_filter_default(&f);
    uint8_t id[KD_HASH_LEN] = {0};
    for (int i = 0; i < KD_TX_PATTERN_BITS; i++) /* set exactly the pattern's bits */
        if (f.bits[i].val)
            id[f.bits[i].pos / 8] |= (uint8_t)(1u << (f.bits[i].pos % 8));
    cr_expect(kd_tx_filter_id(&f, id));
    id[f.bits[0].pos / 8] ^= (uint8_t)(1u << (f.bits[0].pos % 8));
    cr_expect_not(kd_tx_filter_id(&f, id));

    uint8_t payload[KD_TX_HEADER_LEN + 2] = {0};
    kd_tx_header_write(&f, 0x01020304u, payload);
    cr_expect_eq(memcmp(payload, "KDC1", 4), 0, "the prefix is the bytes KDC1");
    cr_expect_eq(payload[4], 0x04); /* the nonce, little-endian */
    cr_expect(kd_tx_filter_payload(&f, payload, sizeof payload));
    cr_expect_not(kd_tx_filter_payload(&f, payload, KD_TX_HEADER_LEN - 1), "shorter than the header");
    payload[0] ^= 1;
    cr_expect_not(kd_tx_filter_payload(&f, payload, sizeof payload));

    /* a nonce makes any payload fit: about 2^10 tries on average */
    unsigned tries = 0, fits = 0;
    for (uint32_t body = 0; body < 64; body++) {
        uint8_t p[KD_TX_HEADER_LEN + 4], h[KD_HASH_LEN];
        memcpy(p + KD_TX_HEADER_LEN, &body, 4);
        for (uint32_t nonce = 0;; nonce++, tries++) {
            kd_tx_header_write(&f, nonce, p);
            kd_sha256(p, sizeof p, h);
            if (kd_tx_filter_id(&f, h))
                break;
        }
        fits++;
    }
    cr_expect_eq(fits, 64u);
    cr_expect(tries / 64 > 256 && tries / 64 < 4096, "mean tries %u should be near 1024", tries / 64);

    uint32_t prefix;
    cr_expect_eq(kd_tx_filter_parse_prefix("4b444331", &prefix), 0);
    cr_expect_eq(prefix, KD_TX_DEFAULT_PREFIX);
    cr_expect_eq(kd_tx_filter_parse_prefix("4b4443", &prefix), -1);
    cr_expect_eq(kd_tx_filter_parse_prefix("zz444331", &prefix), -1);
}

/* ---------------------------------------------------------- exact u64s */

#define U64_MAX_TEXT "18446744073709551615"

/* A getBlock frame whose header holds `nonce` (text) and whose one input
 * has `seq`, as the node writes any u64. */
static kd_err load_header(const char *nonce, const char *seq, uint64_t *got_nonce, uint64_t *got_seq, char *why,
                          size_t why_len)
{
    char text[2048];
    snprintf(text, sizeof text,
             "{\"id\":" U64_MAX_TEXT ",\"method\":\"getBlock\",\"params\":{\"block\":{"
             "\"header\":{\"hash\":\"" H1
             "\",\"timestamp\":1700000000123,\"nonce\":%s,\"daaScore\":9223372036854775808,"
             "\"blueScore\":9223372036854775807},\"transactions\":[{\"inputs\":[{\"sequence\":%s}],\"payload\":\"\","
             "\"verboseData\":{\"transactionId\":\"" HA "\"}}]}}}",
             nonce, seq);
    kd_wrpc_frame f;
    kd_err err = kd_wrpc_frame_parse(text, strlen(text), &f, why, why_len);
    if (err)
        return err;
    cr_expect_eq(f.id, UINT64_MAX, "the id 2^64-1 is read exactly");
    const json_t *tx = json_array_get(json_object_get(json_object_get(f.params, "block"), "transactions"), 0);
    const char *problem =
        kd_kaspa_u64_of(json_object_get(json_array_get(json_object_get(tx, "inputs"), 0), "sequence"), got_seq);
    kd_kaspa_block b;
    err = problem ? KD_ERR_PARSE : kd_kaspa_block_parse(f.params, 1, &b, why, why_len);
    if (problem)
        snprintf(why, why_len, "sequence: %s", problem);
    if (!err) {
        cr_expect_eq(b.daa_score, (uint64_t)1 << 63);
        cr_expect_eq(b.blue_score, ((uint64_t)1 << 63) - 1);
        *got_nonce = b.nonce;
        kd_kaspa_block_fini(&b);
    }
    kd_wrpc_frame_fini(&f);
    return err;
}

Test(kaspa_u64, every_u64_parses_exactly)
{
    static const struct {
        const char *text;
        uint64_t value;
    } cases[] = {
        {"0", 0},
        {"9223372036854775807", ((uint64_t)1 << 63) - 1},
        {"9223372036854775808", (uint64_t)1 << 63},
        {"12345678901234567890", 12345678901234567890u},
        {"18446744073709551614", UINT64_MAX - 1},
        {U64_MAX_TEXT, UINT64_MAX},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char why[256] = "";
        uint64_t nonce = 1, seq = 1;
        cr_expect_eq(load_header(cases[i].text, cases[i].text, &nonce, &seq, why, sizeof why), KD_OK, "%s: %s",
                     cases[i].text, why);
        cr_expect_eq(nonce, cases[i].value, "nonce %s", cases[i].text);
        cr_expect_eq(seq, cases[i].value, "sequence %s", cases[i].text);
    }
}

Test(kaspa_u64, what_is_not_a_u64_is_named)
{
    static const bad_case cases[] = {
        {"-1", "block.header.nonce is not a non-negative integer (it is negative)"},
        {"-9223372036854775809", "block.header.nonce is not a non-negative integer (it is negative)"},
        {"-18446744073709551616", "block.header.nonce is not a non-negative integer (it is negative)"},
        {"1.5", "block.header.nonce is not a non-negative integer (it is not an integer (a fraction or an exponent))"},
        {"1e3", "block.header.nonce is not a non-negative integer (it is not an integer (a fraction or an exponent))"},
        {"-0.5", "block.header.nonce is not a non-negative integer (it is negative)"},
        {"18446744073709551616", "block.header.nonce is not a non-negative integer (it is over 2^64-1)"},
        {"99999999999999999999999999", "block.header.nonce is not a non-negative integer (it is over 2^64-1)"},
        {"\"5\"", "block.header.nonce is not a non-negative integer (it is not a number)"},
        {"\"18446744073709551615\"", "block.header.nonce is not a non-negative integer (it is not a number)"},
        {"null", "block.header.nonce is not a non-negative integer (it is not a number)"},
        {"018446744073709551615", "the frame is not JSON"}, /* a leading zero: jansson's own refusal */
        {"\"\\u000018446744073709551615\"", "a string holding \\u0000"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char why[256] = "";
        uint64_t nonce = 7, seq;
        cr_expect_eq(load_header(cases[i].text, "0", &nonce, &seq, why, sizeof why), KD_ERR_PARSE, "%s", cases[i].text);
        cr_expect(strstr(why, cases[i].why), "'%s': got '%s', expected '%s'", cases[i].text, why, cases[i].why);
        cr_expect_eq(nonce, 7u, "nothing is written on an error");
    }
    char why[256] = "";
    uint64_t nonce, seq;
    cr_expect_eq(load_header("1", "18446744073709551616", &nonce, &seq, why, sizeof why), KD_ERR_PARSE);
    cr_expect_str_eq(why, "sequence: it is over 2^64-1");
    json_t *o = json_pack("{s:i}", "n", 1);
    cr_expect_eq(kd_kaspa_u64_get(o, "missing", "getX:", &nonce, why, sizeof why), KD_ERR_PARSE);
    cr_expect_str_eq(why, "getX: missing is not a non-negative integer (it is missing)");
    json_decref(o);
}

Test(kaspa_u64, strings_and_reals_are_left_alone)
{
    /* digits inside strings (after an escaped quote too) and reals are not integers to tag */
    const char *text =
        "{\"a\":\"18446744073709551616\",\"b\":\"x\\\"18446744073709551616\",\"c\":1.8446744073709552e19,"
        "\"d\":[-9223372036854775808,9223372036854775807]}";
    char why[256];
    json_t *j;
    cr_assert_eq(kd_kaspa_json_load(text, strlen(text), &j, why, sizeof why), KD_OK, "%s", why);
    cr_expect_str_eq(json_string_value(json_object_get(j, "a")), "18446744073709551616");
    cr_expect_str_eq(json_string_value(json_object_get(j, "b")), "x\"18446744073709551616");
    cr_expect(json_is_real(json_object_get(j, "c")));
    cr_expect_eq(json_integer_value(json_array_get(json_object_get(j, "d"), 0)), INT64_MIN);
    json_decref(j);
    cr_expect_eq(kd_kaspa_json_load("{\"a\":1,\"a\":2}", 13, &j, why, sizeof why), KD_ERR_PARSE);
    cr_expect(strstr(why, "duplicate"), "%s", why);
}

Test(kaspa_u64, written_as_bare_numbers)
{
    static const uint64_t values[] = {0, 1, ((uint64_t)1 << 63) - 1, (uint64_t)1 << 63, UINT64_MAX};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        json_t *j = json_pack("{s:o, s:s, s:[o]}", "v", kd_kaspa_u64_new(values[i]), "s", "\"quoted\\", "a",
                              kd_kaspa_u64_new(values[i]));
        char *text = kd_kaspa_json_dump(j);
        char want[160];
        snprintf(want, sizeof want, "{\"v\":%llu,\"s\":\"\\\"quoted\\\\\",\"a\":[%llu]}", (unsigned long long)values[i],
                 (unsigned long long)values[i]);
        cr_expect_str_eq(text, want);
        char why[256];
        json_t *back;
        uint64_t v = 0, w = 0;
        cr_assert_eq(kd_kaspa_json_load(text, strlen(text), &back, why, sizeof why), KD_OK, "%s", why);
        cr_expect_null(kd_kaspa_u64_of(json_object_get(back, "v"), &v));
        cr_expect_null(kd_kaspa_u64_of(json_array_get(json_object_get(back, "a"), 0), &w));
        cr_expect_eq(v, values[i]);
        cr_expect_eq(w, values[i]);
        json_decref(back);
        free(text);
        json_decref(j);
    }
    json_t *p = json_object();
    char *req = kd_wrpc_request_text(UINT64_MAX, "getSink", p);
    cr_expect_str_eq(req, "{\"id\":" U64_MAX_TEXT ",\"method\":\"getSink\",\"params\":{}}");
    free(req);
    json_decref(p);
}
