/*
 * kaspa_ledger_test.c — the writer's ledger of payments and the funding
 * wallet's budgets (tools/kaspa/kaspa_ledger.h): --funding-budget's text,
 * each budget (per grant, in any 60 minutes, in total) stopping the
 * payment that would pass it with a sentence naming it, the hour sliding,
 * the file kept across restarts and a bad one named, and the lines of
 * `kdapp stats` and /metrics.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/kaspa/kaspa_ledger.h"

#define MIN 60000ull /* ms */
#define T0 (1700000000000ull)

Test(kaspa_ledger, the_budget_text)
{
    kd_kbudget b;
    kd_kbudget_default(&b);
    cr_expect_eq(b.per_grant, 100000000ull);
    cr_expect_eq(b.per_hour, 200000000ull);
    cr_expect_eq(b.total, 1000000000ull);
    cr_assert_eq(kd_kbudget_parse("5000,none,90000", &b), 0);
    cr_expect_eq(b.per_grant, 5000);
    cr_expect_eq(b.per_hour, KD_KBUDGET_NONE);
    cr_expect_eq(b.total, 90000);
    cr_assert_eq(kd_kbudget_parse("7", &b), 0, "a part left out keeps its value");
    cr_expect_eq(b.per_grant, 7);
    cr_expect_eq(b.per_hour, KD_KBUDGET_NONE);
    static const char *const bad[] = {"", ",", "1,,2", "x", "1,2,3,4", "-1", "1.5", "none,", "99999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        kd_kbudget was = b;
        cr_expect_eq(kd_kbudget_parse(bad[i], &b), -1, "'%s' refused", bad[i]);
        cr_expect_eq(memcmp(&was, &b, sizeof b), 0, "'%s' changed nothing", bad[i]);
    }
}

/* Charges until `grant` is refused; returns how many were paid. */
static int pay_until_refused(kd_kledger *l, const kd_kbudget *b, const char *grant, uint64_t fee, uint64_t now,
                             kd_krefuse *reason, char *why, size_t len)
{
    int paid = 0;
    while (kd_kledger_check(l, b, grant, fee, now, reason, why, len) == KD_OK) {
        kd_kledger_charge(l, "test:funder", "kaspatest:funder", 1, grant, fee, now);
        cr_assert_lt(++paid, 1000);
    }
    return paid;
}

Test(kaspa_ledger, each_budget_stops_the_payment_that_would_pass_it)
{
    kd_kledger *l = calloc(1, sizeof *l);
    kd_kbudget b = {.per_grant = 5000, .per_hour = 12000, .total = 15000};
    kd_krefuse reason;
    char why[400];
    cr_expect_eq(pay_until_refused(l, &b, "agent2", 1700, T0, &reason, why, sizeof why), 2);
    cr_expect_eq(reason, KD_KREFUSE_BUDGET_GRANT);
    cr_expect(strstr(why, "its budget of 5000 sompi for one grant (--funding-budget) does not cover this "
                          "transaction's fee of 1700 sompi (grant agent2 has had it pay 3400)"),
              "%s", why);
    /* another grant has its own: until the hour's */
    cr_expect_eq(pay_until_refused(l, &b, "agent1", 1700, T0, &reason, why, sizeof why), 2);
    cr_expect_eq(pay_until_refused(l, &b, "house:house", 1700, T0, &reason, why, sizeof why), 2);
    cr_expect_eq(pay_until_refused(l, &b, "(owner)", 1700, T0, &reason, why, sizeof why), 1);
    cr_expect_eq(reason, KD_KREFUSE_BUDGET_HOUR, "%s", why);
    cr_expect(strstr(why, "12000 sompi in any hour"), "%s", why);
    cr_expect_eq(kd_kledger_hour(l, T0), 11900);
    /* the hour slides: 60 minutes later it is free again, the total is not */
    cr_expect_eq(kd_kledger_hour(l, T0 + 59 * MIN), 11900);
    cr_expect_eq(kd_kledger_hour(l, T0 + 60 * MIN), 0);
    cr_expect_eq(pay_until_refused(l, &b, "agent3", 1700, T0 + 60 * MIN, &reason, why, sizeof why), 1);
    cr_expect_eq(reason, KD_KREFUSE_BUDGET_TOTAL, "%s", why);
    cr_expect(strstr(why, "15000 sompi in total"), "%s", why);
    cr_expect_eq(l->funding_sompi, 13600);
    cr_expect_eq(kd_kledger_grant_spent(l, "agent2"), 3400);
    /* a key's own coins are counted, never budgeted */
    kd_kledger_charge(l, "agent1", "kaspatest:agent1", 0, "agent1", 2000, T0);
    cr_expect_eq(l->funding_sompi, 13600);
    cr_expect_eq(kd_kledger_grant_spent(l, "agent1"), 3400);
    /* no limit */
    kd_kbudget none = {KD_KBUDGET_NONE, KD_KBUDGET_NONE, KD_KBUDGET_NONE};
    cr_expect_eq(kd_kledger_check(l, &none, "agent2", UINT64_MAX, T0, &reason, why, sizeof why), KD_OK);
    free(l);
}

static void temp_path(char *out, size_t len)
{
    const char *parent = getenv("KD_TEST_TMP");
    snprintf(out, len, "%s/ledger-XXXXXX", parent ? parent : "/tmp");
    cr_assert(mkdtemp(out));
    strncat(out, "/" KD_KLEDGER_FILE, len - strlen(out) - 1);
}

Test(kaspa_ledger, the_file_keeps_every_count_and_a_bad_one_is_named)
{
    char path[600], why[600];
    temp_path(path, sizeof path);
    kd_kledger *l = calloc(1, sizeof *l), *back = calloc(1, sizeof *back);
    cr_expect_eq(kd_kledger_load(path, back, why, sizeof why), KD_ERR_NOT_FOUND);
    kd_kledger_charge(l, "test:funder", "kaspatest:f", 1, "agent1,agent2", 1800, T0);
    kd_kledger_charge(l, "test:funder", "kaspatest:f", 1, "house:house", 1700, T0 + 5 * MIN);
    kd_kledger_charge(l, "agent1", "kaspatest:a", 0, "agent1", 2000, T0);
    l->client_txs = 3;
    l->refused[KD_KREFUSE_NO_GRANT] = 40;
    cr_assert_eq(kd_kledger_save(path, l, why, sizeof why), KD_OK, "%s", why);
    struct stat st;
    cr_assert_eq(stat(path, &st), 0);
    cr_expect_eq(st.st_mode & 0077, 0, "owner-only");
    cr_assert_eq(kd_kledger_load(path, back, why, sizeof why), KD_OK, "%s", why);
    cr_expect_eq(memcmp(l, back, sizeof *l), 0, "the same ledger back");
    cr_expect_eq(kd_kledger_hour(back, T0 + 6 * MIN), 3500);
    /* bad files: named, with what is wrong */
    static const char *const bad[][2] = {
        {"not json", "is not the writer's ledger"},
        {"[1]", "the top level"},
        {"{\"version\": 2}", "version"},
        {"{\"version\": 1, \"funding_sompi\": -1, \"client_txs\": 0}", "funding_sompi"},
        {"{\"version\": 1, \"funding_sompi\": 1, \"client_txs\": 0, \"wallets\": [{\"name\": 5}]}", "wallets"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        FILE *f = fopen(path, "w");
        cr_assert(f);
        fputs(bad[i][0], f);
        fclose(f);
        cr_expect_eq(kd_kledger_load(path, back, why, sizeof why), KD_ERR_PARSE, "%s", bad[i][0]);
        cr_expect(strstr(why, path) && strstr(why, bad[i][1]), "%s: %s", bad[i][0], why);
    }
    unlink(path);
    *strrchr(path, '/') = 0;
    rmdir(path);
    free(l);
    free(back);
}

Test(kaspa_ledger, the_lines_of_stats_and_metrics)
{
    kd_kledger *l = calloc(1, sizeof *l);
    kd_kledger_charge(l, "test:funder", "kaspatest:f", 1, "agent2", 1800, T0);
    kd_kledger_charge(l, "agent1", "kaspatest:a", 0, "agent1", 2000, T0);
    kd_kledger_charge(l, "test:funder", "kaspatest:f", 1, "a\"b\\c", 100, T0);
    l->refused[KD_KREFUSE_NO_GRANT] = 5;
    l->refused[KD_KREFUSE_BUDGET_GRANT] = 1;
    kd_buf out;
    kd_buf_init(&out);
    cr_assert_eq(kd_buf_append(&out, "engine\n", 8), KD_OK); /* a NUL-terminated text before it, the NUL counted */
    cr_assert_eq(kd_kledger_text(l, T0, &out), KD_OK);
    cr_expect_eq(out.data[out.len - 1], 0);
    const char *t = (const char *)out.data;
    cr_expect(!strncmp(t, "engine\n  wallet", 15), "appended to the text before: %s", t);
    cr_expect(strstr(t, "wallet test:funder  1900 sompi in 2 txs, the funding wallet (kaspatest:f)"), "%s", t);
    cr_expect(strstr(t, "wallet agent1       2000 sompi in 1 txs (kaspatest:a)"), "%s", t);
    cr_expect(strstr(t, "funding for agent2     1800 sompi in 1 txs"), "%s", t);
    cr_expect(strstr(t, "payments refused      no_grant=5 budget_grant=1\n"), "%s", t);
    out.len = 0;
    cr_assert_eq(kd_kledger_prometheus(l, T0, &out), KD_OK);
    t = (const char *)out.data;
    cr_expect(strstr(t, "kdapp_wallet_spent_sompi_total{wallet=\"test:funder\",address=\"kaspatest:f\","
                        "funding=\"true\"} 1900\n"),
              "%s", t);
    cr_expect(strstr(t, "kdapp_wallet_transactions_total{wallet=\"agent1\",address=\"kaspatest:a\","
                        "funding=\"false\"} 1\n"),
              "%s", t);
    cr_expect(strstr(t, "kdapp_funding_grant_spent_sompi_total{grant=\"a\\\"b\\\\c\"} 100\n"), "escaped: %s", t);
    cr_expect(strstr(t, "kdapp_funding_hour_spent_sompi 1900\n"), "%s", t);
    cr_expect(strstr(t, "kdapp_wallet_refusals_total{reason=\"budget_hour\"} 0\n"), "%s", t);
    kd_buf_fini(&out);
    free(l);
}
