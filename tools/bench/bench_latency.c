/* bench_latency.c — end-to-end latency scenarios of `kdapp bench` (bench.h). Being written. */
#include "tools/bench/bench.h"

int kd_bench_latency(const kd_bench_ctx *b)
{
    kd_bench_heading(b, "latency: not measured yet");
    return 0;
}
