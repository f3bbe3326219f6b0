/* kaspa_rpc_test.c — the wRPC message model (tools/listen/kaspa_rpc.h). */
#include <criterion/criterion.h>
#include <string.h>

#include "tools/listen/kaspa_rpc.h"

Test(kaspa_rpc, placeholder) { cr_expect_eq(kd_kaspa_json_port("mainnet"), 18110u); }
