/* bench_scale.c — `kdapp bench --scale` (bench.h). Being written. */
#include "tools/bench/bench.h"

int kd_bench_scale(const kd_bench_ctx *b)
{
    kd_bench_heading(b, "scale: not measured yet");
    return 0;
}
