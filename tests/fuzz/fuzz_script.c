/*
 * fuzz_script.c — the block script parser (tools/blockscript.h) on any
 * bytes: kd_script_parse_line on the input as one line, kd_script_parse on
 * it as a whole script.
 *
 * Beyond "no crash, no leak", a line that parses must survive the
 * documented round trip: kd_script_op_write gives a canonical line (or
 * refuses an op no script could express), and parsing that line gives
 * back an equal op. Only "test:" keys resolve (no key directory), so
 * inputs cannot reach the file system.
 */
#include <string.h>

#include "fuzz/fuzz_support.h"
#include "tools/script/blockscript.h"

static int same_text(const char *a, const char *b) { return (!a && !b) || (a && b && strcmp(a, b) == 0); }

static int same_body(const kd_script_tx *a, const kd_script_tx *b)
{
    return a->body_len == b->body_len && (a->body_len == 0 || memcmp(a->body, b->body, a->body_len) == 0);
}

static int tx_equal(const kd_script_tx *a, const kd_script_tx *b)
{
    if (a->kind != b->kind || memcmp(a->tx_id, b->tx_id, KD_HASH_LEN) != 0 || a->episode_id != b->episode_id ||
        !same_text(a->json, b->json) || !same_body(a, b))
        return 0;
    switch (a->kind) {
    case KD_SCRIPT_TX_NEW_EPISODE:
        return strcmp(a->type, b->type) == 0 && a->participants.count == b->participants.count &&
               memcmp(a->participants.keys, b->participants.keys,
                      a->participants.count * sizeof a->participants.keys[0]) == 0 &&
               a->has_cap == b->has_cap && (!a->has_cap || a->cap == b->cap);
    case KD_SCRIPT_TX_COMMAND:
        return strcmp(a->type, b->type) == 0 && a->has_signer == b->has_signer &&
               (!a->has_signer || (memcmp(&a->signer.pub, &b->signer.pub, sizeof a->signer.pub) == 0 &&
                                   strcmp(a->signer_ref, b->signer_ref) == 0)) &&
               a->has_counter == b->has_counter && (!a->has_counter || a->counter == b->counter);
    case KD_SCRIPT_TX_MOVE:
        return a->row == b->row && a->col == b->col && a->player == b->player && a->has_signer == b->has_signer &&
               (!a->has_signer || (memcmp(&a->signer.pub, &b->signer.pub, sizeof a->signer.pub) == 0 &&
                                   strcmp(a->signer_ref, b->signer_ref) == 0)) &&
               a->has_counter == b->has_counter && (!a->has_counter || a->counter == b->counter);
    case KD_SCRIPT_TX_RAW:
        return a->raw_len == b->raw_len && (a->raw_len == 0 || memcmp(a->raw, b->raw, a->raw_len) == 0);
    }
    return 0;
}

static void check_round_trip(const kd_script_op *op)
{
    kd_buf line;
    kd_script_op again;
    int blank = 0;
    char why[256] = "";
    kd_buf_init(&line);
    kd_err err = kd_script_op_write(op, &line);
    if (err == KD_ERR_INVALID_ARG) { /* documented: some ops cannot be written */
        kd_buf_fini(&line);
        return;
    }
    if (err)
        fz_fail("kd_script_op_write: %s", kd_err_code(err));
    if (line.len == 0 || line.data[line.len - 1] != '\n')
        fz_fail("kd_script_op_write wrote no line");
    err =
        kd_script_parse_line((const char *)line.data, line.len - 1, op->line, 0, NULL, &again, &blank, why, sizeof why);
    if (err || blank)
        fz_fail("the canonical line does not parse (%s: %s): %.*s", kd_err_code(err), why, (int)line.len,
                (const char *)line.data);
    int same =
        again.kind == op->kind && memcmp(again.hash, op->hash, KD_HASH_LEN) == 0 && again.tx_count == op->tx_count;
    if (same && op->kind == KD_SCRIPT_ACCEPT)
        same = again.daa == op->daa && again.time_ms == op->time_ms;
    for (size_t i = 0; same && i < op->tx_count; i++)
        same = tx_equal(&op->txs[i], &again.txs[i]);
    if (!same)
        fz_fail("the canonical line parses to a different op: %.*s", (int)line.len, (const char *)line.data);
    kd_script_op_fini(&again);
    kd_buf_fini(&line);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kd_script_op op;
    kd_script script;
    int blank = 0;
    char why[256];

    fz_quiet();
    /* prev_daa from the input's length: both the default and overflow near
     * the top of the range get exercised. */
    uint64_t prev_daa = size % 3 == 0 ? UINT64_MAX - (size % 5) : size;
    if (kd_script_parse_line((const char *)data, size, 1, prev_daa, NULL, &op, &blank, why, sizeof why) == KD_OK) {
        if (!blank)
            check_round_trip(&op);
        kd_script_op_fini(&op);
    }
    kd_script_init(&script);
    (void)!kd_script_parse((const char *)data, size, NULL, &script, why, sizeof why);
    kd_script_fini(&script);
    return 0;
}
