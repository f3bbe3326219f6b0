/*
 * endpoints_test.c — the default URLs of a data directory
 * (tools/common/endpoints.c): one directory always gets the same URLs, two
 * directories different ones, and kd_endpoints_resolve fills only the URLs
 * no flag gave.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "tools/common/endpoints.h"

Test(endpoints, one_directory_one_set_of_urls)
{
    kd_endpoints a, b, c;
    cr_assert_eq(kd_endpoints_default("/tmp/kd-endpoints-test/data", &a), KD_OK);
    cr_assert_eq(kd_endpoints_default("/tmp/kd-endpoints-test/data", &b), KD_OK);
    cr_assert_eq(kd_endpoints_default("/tmp/kd-endpoints-test/other", &c), KD_OK);
    cr_expect_str_eq(a.ingest, b.ingest);
    cr_expect_str_eq(a.publish, b.publish);
    cr_expect_str_eq(a.devnet, b.devnet);
    cr_expect_str_neq(a.ingest, c.ingest, "another directory, other sockets");
    cr_expect(strstr(a.ingest, "-ingest.ipc") && strstr(a.publish, "-views.ipc") && strstr(a.devnet, "-devnet.ipc"));
}

Test(endpoints, resolve_keeps_what_flags_gave_and_fills_the_rest)
{
    kd_endpoints dflt, ep;
    cr_assert_eq(kd_endpoints_default("/tmp/kd-endpoints-test/data", &dflt), KD_OK);
    kd_endpoint_urls urls = {.publish = "tcp://127.0.0.1:5555"};
    cr_assert_eq(kd_endpoints_resolve("/tmp/kd-endpoints-test/data", &urls, &ep), KD_OK);
    cr_expect_str_eq(urls.publish, "tcp://127.0.0.1:5555", "a flag wins");
    cr_expect_str_eq(urls.ingest, dflt.ingest);
    cr_expect_str_eq(urls.devnet, dflt.devnet);
    cr_expect_eq(urls.ingest, ep.ingest, "the defaults live in the caller's storage");

    kd_endpoint_urls given = {.ingest = "a", .publish = "b", .devnet = "c"};
    cr_assert_eq(kd_endpoints_resolve("/tmp/kd-endpoints-test/data", &given, &ep), KD_OK);
    cr_expect_str_eq(given.ingest, "a");
    cr_expect_str_eq(given.publish, "b");
    cr_expect_str_eq(given.devnet, "c");
}
