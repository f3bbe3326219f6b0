/*
 * nim_support.c — see nim_support.h.
 */
#include "nim/nim_support.h"

#include <criterion/criterion.h>

#include "engine/support.h"

void nt_new_game(kd_nim_state *state, const kd_nim_heaps *heaps)
{
    static const kd_block_meta no_meta = {0};
    kd_participants parts = {.count = 2};
    parts.keys[0] = et_key("alice").pub;
    parts.keys[1] = et_key("bob").pub;
    kd_buf raw, eff;
    kd_buf_init(&raw);
    kd_buf_init(&eff);
    if (heaps)
        ET_ASSERT_OK(kd_nim_params_encode(heaps, &raw));
    kd_reject rej = {{0}, {0}};
    ET_ASSERT_OK(kd_nim_ops.resolve_params(NULL, raw.data, raw.len, &eff, &rej));
    kd_err err = kd_nim_ops.init(state, &parts, eff.data, eff.len, &no_meta, &rej);
    cr_assert_eq(err, KD_OK, "init: %s (%s)", kd_err_code(err), rej.detail);
    kd_buf_fini(&raw);
    kd_buf_fini(&eff);
}

uint64_t nt_tuple_count(uint8_t h[KD_NIM_MAX_HEAPS], size_t n, unsigned depth)
{
    if (depth == 0)
        return 1;
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t keep = h[i];
        for (uint8_t t = 1; t <= keep; t++) {
            h[i] = (uint8_t)(keep - t);
            total += nt_tuple_count(h, n, depth - 1);
        }
        h[i] = keep;
    }
    return total;
}
