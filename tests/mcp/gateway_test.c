/*
 * gateway_test.c — the kdapp gateway's answers while the engine commits:
 * every view it gives (kdapp_get_episode_state, the episode resource) pairs
 * the digest and the state of one commit, and every page of
 * kdapp_list_episodes shows one commit, while three MCP sessions ask on
 * three threads and this thread applies blocks to a real store. The
 * scenario lives in tests/threads, which the ThreadSanitizer pass of
 * tools/check.sh runs as well.
 */
#include <criterion/criterion.h>

#include "threads/threads.h"

Test(gateway, every_view_and_page_is_one_commit_while_blocks_land, .timeout = 240)
{
    th_report rep;
    int rc = th_gateway_views(&rep);
    cr_expect_eq(rc, 0, "%s", rep.failure);
    cr_log_info("%llu rounds of answers, all true", (unsigned long long)rep.answers);
}
