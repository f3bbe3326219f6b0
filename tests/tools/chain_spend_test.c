/*
 * chain_spend_test.c — who asked, across the control socket
 * (tools/chain/spend.h, DevnetSubmit.spend, DevnetSubmitTransaction): the
 * spend a client sends is the one the chain gets, a request without one is
 * the owner's, a malformed spend is refused naming what is wrong (and pays
 * nothing), a transaction is refused by a chain that takes none and passed
 * on by one that does, and the status says which.
 */
#include <criterion/criterion.h>
#include <nng/nng.h>
#include <nng/protocol/reqrep0/req.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/netutil.h"
#include "kdapp.pb-c.h"
#include "tools/chain/devnet_client.h"
#include "tools/chain/devnet_control.h"

/* The chain: records who asked, takes transactions when `takes`. */
typedef struct {
    int calls, had_spend;
    kd_chain_spend last;
    char tx[256];
} fake;

static kd_err fake_submit(void *ctx, const uint8_t *payload, size_t len, const kd_chain_spend *spend,
                          uint8_t tx_id[KD_HASH_LEN], char *why, size_t why_len)
{
    (void)payload, (void)len, (void)why, (void)why_len;
    fake *f = ctx;
    f->calls++;
    f->had_spend = spend != NULL;
    if (spend)
        f->last = *spend;
    memset(tx_id, 7, KD_HASH_LEN);
    return KD_OK;
}

static kd_err fake_submit_tx(void *ctx, const char *json, size_t len, uint8_t tx_id[KD_HASH_LEN], char *why,
                             size_t why_len)
{
    (void)why, (void)why_len;
    fake *f = ctx;
    snprintf(f->tx, sizeof f->tx, "%.*s", (int)len, json);
    memset(tx_id, 9, KD_HASH_LEN);
    return KD_OK;
}

static void fake_status(void *ctx, kd_devnet_info *info)
{
    (void)ctx;
    memset(info, 0, sizeof *info);
}

static char dir[300], url[400];
static fake F;
static kd_devnet_control *ctl;
static kd_devnet_client *client;

static void open_chain(int takes)
{
    const char *parent = getenv("KD_TEST_TMP");
    if (!parent || !parent[0]) /* set, it is short enough for a socket's path (tests/CMakeLists.txt) */
        parent = "/tmp";
    snprintf(dir, sizeof dir, "%s/chainspend-XXXXXX", parent);
    cr_assert(mkdtemp(dir));
    snprintf(url, sizeof url, "ipc://%s/c.ipc", dir);
    memset(&F, 0, sizeof F);
    const kd_chain_ops ops = {
        .submit = fake_submit, .submit_tx = takes ? fake_submit_tx : NULL, .status = fake_status, .ctx = &F};
    char why[512];
    cr_assert_eq(kd_chain_control_open(&ops, url, &ctl, why, sizeof why), KD_OK, "%s", why);
    cr_assert_eq(kd_devnet_client_open(url, 10000, &client, why, sizeof why), KD_OK, "%s", why);
}

static void close_chain(void)
{
    kd_devnet_client_close(client);
    kd_devnet_control_close(ctl);
    char sock[420];
    snprintf(sock, sizeof sock, "%s/c.ipc", dir);
    unlink(sock);
    rmdir(dir);
}

static void open_devnet_like(void) { open_chain(0); }
static void open_node_like(void) { open_chain(1); }

TestSuite(chain_spend, .init = open_devnet_like, .fini = close_chain, .timeout = 60);

Test(chain_spend, the_spend_sent_is_the_spend_the_chain_gets)
{
    kd_chain_spend s = {.kind = KD_SPEND_SESSION, .n_keys = 2};
    snprintf(s.grant, sizeof s.grant, "agent1,agent2");
    memset(s.keys[0].bytes, 2, KD_PUBKEY_LEN);
    memset(s.keys[1].bytes, 3, KD_PUBKEY_LEN);
    kd_buf p = {.data = (uint8_t *)"x", .len = 1, .cap = 1};
    uint8_t ids[1][KD_HASH_LEN];
    char why[512];
    cr_assert_eq(kd_devnet_client_submit_as(client, &p, 1, &s, ids, NULL, NULL, why, sizeof why), KD_OK, "%s", why);
    cr_expect(F.had_spend);
    cr_expect_eq(memcmp(&F.last, &s, sizeof s), 0, "kind, grant and keys as sent");
    /* a tokenless session: a spend with no key and no grant, not the owner's */
    kd_chain_spend none = {.kind = KD_SPEND_SESSION};
    cr_assert_eq(kd_devnet_client_submit_as(client, &p, 1, &none, ids, NULL, NULL, why, sizeof why), KD_OK);
    cr_expect(F.had_spend);
    cr_expect_eq(F.last.kind, KD_SPEND_SESSION);
    cr_expect_eq(F.last.n_keys, 0);
    cr_expect_str_eq(F.last.grant, "");
    /* kdapp submit: no spend, the owner */
    cr_assert_eq(kd_devnet_client_submit(client, &p, 1, ids, NULL, NULL, why, sizeof why), KD_OK);
    cr_expect_not(F.had_spend);
    cr_expect_eq(F.calls, 3);
}

/* Sends one DevnetRequest as it is; the reply's error code and sentence. */
static void raw(const Kdapp__DevnetRequest *req, char *code, char *error, size_t len)
{
    nng_socket s;
    cr_assert_eq(nng_req0_open(&s), 0);
    cr_assert_eq(nng_socket_set_ms(s, NNG_OPT_RECVTIMEO, 10000), 0);
    cr_assert_eq(nng_dial(s, url, NULL, 0), 0);
    size_t n = kdapp__devnet_request__get_packed_size(req);
    uint8_t *frame = malloc(n + 1);
    kdapp__devnet_request__pack(req, frame);
    cr_assert_eq(nng_send(s, frame, n, 0), 0);
    free(frame);
    void *buf = NULL;
    size_t got = 0;
    cr_assert_eq(nng_recv(s, &buf, &got, NNG_FLAG_ALLOC), 0);
    Kdapp__DevnetReply *r = kdapp__devnet_reply__unpack(NULL, got, buf);
    cr_assert(r);
    snprintf(code, 32, "%s", r->error_code ? r->error_code : "");
    snprintf(error, len, "%s", r->error ? r->error : "");
    kdapp__devnet_reply__free_unpacked(r, NULL);
    nng_free(buf, got);
    kd_nng_close(s);
}

Test(chain_spend, a_malformed_spend_is_refused_naming_what_is_wrong)
{
    uint8_t key[KD_PUBKEY_LEN + 1] = {2};
    ProtobufCBinaryData keys[KD_SPEND_KEYS_MAX + 1];
    for (size_t i = 0; i <= KD_SPEND_KEYS_MAX; i++)
        keys[i] = (ProtobufCBinaryData){.data = key, .len = KD_PUBKEY_LEN};
    char grant[KD_SPEND_GRANT_MAX + 10];
    memset(grant, 'a', sizeof grant - 1);
    grant[sizeof grant - 1] = 0;
    struct {
        int kind;
        size_t n_keys, key_len;
        const char *grant, *says;
    } const cases[] = {
        {9, 0, KD_PUBKEY_LEN, "", "DevnetSpend.kind 9 is not OWNER, SESSION or DUTY"},
        {1, 1, 32, "", "DevnetSpend.keys[0] has 32 bytes, not 33"},
        {1, KD_SPEND_KEYS_MAX + 1, KD_PUBKEY_LEN, "", "DevnetSpend names 65 keys; the limit is 64"},
        {1, 0, KD_PUBKEY_LEN, grant, "DevnetSpend.grant has 265 bytes; the limit is 255"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        keys[0].len = cases[c].key_len;
        ProtobufCBinaryData payload = {.data = (uint8_t *)"x", .len = 1};
        Kdapp__DevnetSpend sp = KDAPP__DEVNET_SPEND__INIT;
        sp.kind = (Kdapp__DevnetSpend__Kind)cases[c].kind;
        sp.n_keys = cases[c].n_keys;
        sp.keys = keys;
        sp.grant = (char *)cases[c].grant;
        Kdapp__DevnetSubmit sub = KDAPP__DEVNET_SUBMIT__INIT;
        sub.n_payloads = 1;
        sub.payloads = &payload;
        sub.spend = &sp;
        Kdapp__DevnetRequest req = KDAPP__DEVNET_REQUEST__INIT;
        req.kind_case = KDAPP__DEVNET_REQUEST__KIND_SUBMIT;
        req.submit = &sub;
        char code[32], error[512];
        raw(&req, code, error, sizeof error);
        cr_expect_str_eq(code, "decode", "case %zu", c);
        cr_expect(strstr(error, cases[c].says), "case %zu: %s", c, error);
        keys[0].len = KD_PUBKEY_LEN;
    }
    cr_expect_eq(F.calls, 0, "nothing was submitted, so nothing paid");
}

Test(chain_spend, the_devnet_takes_no_transactions_and_says_so)
{
    uint8_t id[KD_HASH_LEN];
    char why[512];
    kd_devnet_answer ans;
    cr_expect_eq(kd_devnet_client_submit_tx(client, "{}", id, &ans, why, sizeof why), KD_ERR_UNSUPPORTED);
    cr_expect(strstr(why, "this chain takes payloads, not transactions"), "%s", why);
    cr_expect_not(ans.takes_transactions);
    cr_assert_eq(kd_devnet_client_status(client, &ans, why, sizeof why), KD_OK);
    cr_expect_not(ans.takes_transactions);
}

Test(chain_spend, a_node_passes_a_clients_transaction_on, .init = open_node_like)
{
    uint8_t id[KD_HASH_LEN], nines[KD_HASH_LEN];
    char why[512];
    kd_devnet_answer ans;
    cr_assert_eq(kd_devnet_client_status(client, &ans, why, sizeof why), KD_OK);
    cr_expect(ans.takes_transactions);
    cr_assert_eq(kd_devnet_client_submit_tx(client, "{\"transaction\":{}}", id, &ans, why, sizeof why), KD_OK, "%s",
                 why);
    memset(nines, 9, sizeof nines);
    cr_expect_eq(memcmp(id, nines, KD_HASH_LEN), 0);
    cr_expect_str_eq(F.tx, "{\"transaction\":{}}");
    cr_expect_eq(F.calls, 0, "no payload, nobody's coins");
}
