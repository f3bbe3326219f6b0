/* feeder.c — script ops to EngineMsg bytes, moves signed for the counters a dry run predicts (see feeder.h). */
#include "tools/script/feeder.h"

#include <stdlib.h>
#include <string.h>

#include <stdio.h>

#include "engine/chain.h"
#include "engine/wire.h"

struct kd_feeder {
    kd_engine *engine;            /* local: dry runs on it */
    kd_feeder_predict_fn predict; /* remote */
    void *ctx;
    kd_buf earlier;           /* remote: the block cut before the move */
    char chain[KD_CHAIN_MAX]; /* what consents are signed for */
};

static kd_err feeder_alloc(kd_engine *engine, kd_feeder_predict_fn predict, void *ctx, const char *chain,
                           kd_feeder **out)
{
    if (!kd_chain_valid(chain))
        return KD_ERR_INVALID_ARG;
    kd_feeder *f = calloc(1, sizeof *f);
    if (!f)
        return KD_ERR_NOMEM;
    f->engine = engine;
    f->predict = predict;
    f->ctx = ctx;
    snprintf(f->chain, sizeof f->chain, "%s", chain);
    kd_buf_init(&f->earlier);
    *out = f;
    return KD_OK;
}

kd_err kd_feeder_alloc_local(kd_engine *engine, kd_feeder **out)
{
    return feeder_alloc(engine, NULL, NULL, kd_engine_chain(engine), out);
}

kd_err kd_feeder_alloc_remote(kd_feeder_predict_fn predict, void *ctx, const char *chain, kd_feeder **out)
{
    return feeder_alloc(NULL, predict, ctx, chain, out);
}

void kd_feeder_free(kd_feeder *f)
{
    if (!f)
        return;
    kd_buf_fini(&f->earlier);
    free(f);
}

kd_err kd_feeder_new_episode(const kd_script_tx *tx, const char *chain, kd_buf *out)
{
    kd_consent consents[KD_MAX_PARTICIPANTS];
    if (tx->consent_count > KD_MAX_PARTICIPANTS)
        return KD_ERR_INVALID_ARG;
    for (size_t i = 0; i < tx->consent_count; i++) {
        kd_err err = kd_consent_sign(&tx->consents[i].key, tx->consents[i].seat, chain, tx->episode_id, tx->type,
                                     &tx->participants, tx->body, tx->body_len, &consents[i]);
        if (err)
            return err;
    }
    return kd_wire_new_episode_consented(tx->episode_id, tx->type, &tx->participants, tx->body, tx->body_len, consents,
                                         tx->consent_count, out);
}

/* The counter move `i` of `op` is signed for: the script's, or the
 * engine's prediction after txs[0..i) (`run` for a local engine). */
static kd_err move_counter(kd_feeder *f, kd_dryrun *run, const kd_script_op *op, const kd_wire_tx *txs, size_t i,
                           uint64_t *counter)
{
    const kd_script_tx *tx = &op->txs[i];
    if (tx->has_counter) {
        *counter = tx->counter;
        return KD_OK;
    }
    if (run) {
        int exists;
        return kd_dryrun_episode(run, tx->episode_id, &exists, counter);
    }
    f->earlier.len = 0;
    kd_err err = kd_wire_accept(op->hash, op->daa, op->time_ms, txs, i, &f->earlier);
    return err ? err : f->predict(f->ctx, &f->earlier, tx->episode_id, counter);
}

/* The payload of tx `i` (appended to `p`). */
static kd_err encode_tx(kd_feeder *f, kd_dryrun *run, const kd_script_op *op, const kd_wire_tx *txs, size_t i,
                        kd_buf *p)
{
    const kd_script_tx *tx = &op->txs[i];
    kd_err err = KD_OK;
    uint64_t counter = 0;
    switch (tx->kind) {
    case KD_SCRIPT_TX_NEW_EPISODE:
        err = kd_feeder_new_episode(tx, f->chain, p);
        break;
    case KD_SCRIPT_TX_MOVE:
    case KD_SCRIPT_TX_COMMAND: /* the command bytes were converted at parse time */
        if (!tx->has_signer)
            err = kd_wire_unsigned_command(tx->episode_id, tx->body, tx->body_len, p);
        else if (!(err = move_counter(f, run, op, txs, i, &counter)))
            err = kd_wire_signed_command(tx->episode_id, tx->body, tx->body_len, &tx->signer, counter, p);
        break;
    default:
        err = kd_buf_append(p, tx->raw, tx->raw_len);
        break;
    }
    return err;
}

kd_err kd_feeder_encode(kd_feeder *f, const kd_script_op *op, kd_buf *out)
{
    if (op->kind == KD_SCRIPT_REVERT)
        return kd_wire_revert(op->hash, out);
    size_t n = op->tx_count ? op->tx_count : 1;
    kd_buf *payloads = calloc(n, sizeof *payloads);
    kd_wire_tx *txs = calloc(n, sizeof *txs);
    kd_dryrun *run = NULL;
    kd_err err = payloads && txs ? KD_OK : KD_ERR_NOMEM;
    if (!err && f->engine)
        err = kd_dryrun_alloc(f->engine, &run);
    for (size_t i = 0; i < op->tx_count && !err; i++) {
        kd_buf_init(&payloads[i]);
        if ((err = encode_tx(f, run, op, txs, i, &payloads[i])))
            break;
        memcpy(txs[i].tx_id, op->txs[i].tx_id, KD_HASH_LEN);
        txs[i].payload = payloads[i].data;
        txs[i].payload_len = payloads[i].len;
        if (run) { /* the engine's verdict on this tx, for the counters of the next ones */
            kd_block_meta where = {
                .block_hash = op->hash, .daa = op->daa, .time_ms = op->time_ms, .tx_id = op->txs[i].tx_id};
            kd_tx_result r;
            err = kd_dryrun_tx(run, &where, txs[i].payload, txs[i].payload_len, &r);
        }
    }
    if (!err)
        err = kd_wire_accept(op->hash, op->daa, op->time_ms, txs, op->tx_count, out);
    kd_dryrun_free(run);
    if (payloads)
        for (size_t i = 0; i < op->tx_count; i++)
            kd_buf_fini(&payloads[i]);
    free(payloads);
    free(txs);
    return err;
}
