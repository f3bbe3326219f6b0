/*
 * fuzz_payload.c — any bytes as a transaction payload: the EpisodeMessage
 * decoder, the registry lookup, the signature check and tic-tac-toe's
 * init/execute, inside a real accepted block on a real engine.
 *
 * Each input becomes the only transaction of a new block (a fresh hash, so
 * the block is always applied, with the payload applied or rejected). The
 * engine must reach a verdict on every block; a storage error, a refusal
 * of a fresh block or a verdict for the wrong number of transactions is a
 * finding. About one input in eight then reverts the tip (and one in
 * sixty-four a second block too), so the rollback of whatever the payload
 * did runs as well; a revert beyond the finality depth may be refused, a
 * revert of the tip must not be. fuzz_support checks by replay, every few
 * thousand inputs, that the store is still what its log says.
 */
#include <string.h>

#include "engine/wire.h"
#include "fuzz/fuzz_support.h"

static void revert_tip(kd_engine *e)
{
    kd_tip tip;
    kd_buf msg;
    kd_msg_result res;
    if (kd_engine_tip(e, &tip) != KD_OK)
        fz_fail("cannot read the tip");
    if (!tip.has_tip)
        return;
    kd_buf_init(&msg);
    if (kd_wire_revert(tip.hash, &msg) != KD_OK)
        fz_fail("cannot encode a revert");
    kd_err err = kd_engine_ingest(e, msg.data, msg.len, &res);
    if (err)
        fz_fail("reverting the tip failed: %s (%s)", kd_err_code(err), res.detail);
    if (res.status != KD_MSG_APPLIED && !(res.status == KD_MSG_REFUSED && res.err == KD_ERR_BEYOND_FINALITY))
        fz_fail("reverting the tip was answered %d (%s): %s", (int)res.status, kd_err_code(res.err), res.detail);
    kd_msg_result_fini(&res);
    kd_buf_fini(&msg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kd_engine *e = fz_engine();
    kd_wire_tx tx = {.payload = data, .payload_len = size};
    uint8_t hash[KD_HASH_LEN];
    kd_buf msg;
    kd_msg_result res;

    fz_next_hash("payload", hash);
    kd_sha256(data, size, tx.tx_id);
    kd_buf_init(&msg);
    if (kd_wire_accept(hash, 1000, 100000, &tx, 1, &msg) != KD_OK)
        fz_fail("cannot encode the block");
    kd_err err = kd_engine_ingest(e, msg.data, msg.len, &res);
    if (err)
        fz_fail("the engine gave no verdict: %s (%s)", kd_err_code(err), res.detail);
    if (res.status != KD_MSG_APPLIED || res.tx_count != 1)
        fz_fail("a fresh block was answered %d with %zu tx results: %s", (int)res.status, res.tx_count, res.detail);
    if (!res.txs[0].applied && (res.txs[0].err == KD_OK || !res.txs[0].code[0] || !res.txs[0].detail[0]))
        fz_fail("a rejected payload carries no reason");
    kd_msg_result_fini(&res);
    kd_buf_fini(&msg);

    /* The revert decision is a function of the input, for reproducibility. */
    if ((tx.tx_id[0] & 7) == 0) {
        revert_tip(e);
        if ((tx.tx_id[1] & 7) == 0)
            revert_tip(e);
    }
    return 0;
}
