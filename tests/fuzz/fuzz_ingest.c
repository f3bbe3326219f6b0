/*
 * fuzz_ingest.c — any bytes as an IngestRequest frame through
 * kd_ingest_handle, the function the engine daemon runs on every frame it
 * receives.
 *
 * Whatever the frame, the engine must answer with a reply that decodes as
 * an IngestReply (a usable request gets its results, anything else an
 * error_code), and it may return an error only for storage failures,
 * which a fuzzer cannot cause: any error is a finding.
 */
#include <stdlib.h>

#include "engine/ingest.h"
#include "fuzz/fuzz_support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kd_engine *e = fz_engine();
    kd_buf reply;
    kd_ingest_reply r = {0};

    kd_buf_init(&reply);
    kd_err err = kd_ingest_handle(e, data, size, &reply);
    if (err)
        fz_fail("kd_ingest_handle failed: %s", kd_err_code(err));
    if (reply.len == 0)
        fz_fail("no reply for a %zu-byte frame", size);
    if (kd_ingest_reply_unpack(reply.data, reply.len, &r) != KD_OK)
        fz_fail("the reply does not decode");
    kd_ingest_reply_fini(&r);
    kd_buf_fini(&reply);
    return 0;
}
