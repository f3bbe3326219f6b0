/* report.c — human-readable ingest results. */
#include "tools/chain/report.h"

void kd_report_result(FILE *out, unsigned line, const kd_msg_result *res, const kd_tip *tip)
{
    char h[17], d[17];
    kd_hex_encode(res->block_hash, 8, h);
    kd_hex_encode(tip->digest, 8, d);
    if (line)
        fprintf(out, "line %u: ", line);
    const char *what = res->reverted ? "revert" : "accept";
    switch (res->status) {
    case KD_MSG_DUPLICATE:
        fprintf(out, "%s %s: duplicate, already applied\n", what, h);
        return;
    case KD_MSG_REFUSED:
        fprintf(out, "%s %s: refused (%s): %s\n", what, h, kd_err_code(res->err), res->detail);
        return;
    case KD_MSG_APPLIED:
        break;
    }
    if (res->reverted) {
        fprintf(out, "revert %s: rolled back, height %llu, digest %s\n", h, (unsigned long long)tip->height, d);
        return;
    }
    size_t applied = 0;
    for (size_t i = 0; i < res->tx_count; i++)
        applied += res->txs[i].applied != 0;
    fprintf(out, "accept %s: applied %zu/%zu txs, height %llu, digest %s\n", h, applied, res->tx_count,
            (unsigned long long)tip->height, d);
    for (size_t i = 0; i < res->tx_count; i++)
        if (!res->txs[i].applied)
            fprintf(out, "  tx %zu (episode %u) rejected: %s: %s\n", i, res->txs[i].episode_id, res->txs[i].code,
                    res->txs[i].detail);
}

void kd_report_devnet_event(void *ctx, const kd_devnet_event *ev)
{
    FILE *out = ctx ? ctx : stdout;
    char h[17] = "genesis";
    if (ev->hash)
        kd_hex_encode(ev->hash, 8, h);
    if (ev->kind == KD_DEVNET_EVENT_BLOCK) {
        fprintf(out, "block %s height %llu daa %llu: %u tx%s, %u applied, %u rejected%s\n", h,
                (unsigned long long)ev->height, (unsigned long long)ev->daa, ev->tx_count, ev->tx_count == 1 ? "" : "s",
                ev->txs_applied, ev->txs_rejected, ev->duplicate ? " (already applied: a re-send)" : "");
        if (ev->err)
            fprintf(out, "  the engine refused block %s (%s): %s; its txs were dropped\n", h, kd_err_code(ev->err),
                    ev->detail);
    } else {
        fprintf(out, "reorg: reverted %u block%s, %u tx%s re-queued, %u dropped; tip %s height %llu%s%s\n",
                ev->reverted, ev->reverted == 1 ? "" : "s", ev->reincluded, ev->reincluded == 1 ? "" : "s", ev->dropped,
                h, (unsigned long long)ev->height, ev->err ? "; refused: " : "", ev->err ? ev->detail : "");
    }
    fflush(out);
}
