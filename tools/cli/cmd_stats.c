/* cmd_stats.c — `kdapp stats`: the engine's metrics from a data directory
 * (read-only, so it works beside a running daemon). */
#include <stdio.h>

#include <stdlib.h>

#include "engine/netutil.h"
#include "tools/cli/commands.h"
#include "tools/common/options.h"
#include "tools/kaspa/kaspa_ledger.h"

static void print_hist(const kd_metrics *m, kd_hist_id id, const char *label, const char *unit)
{
    const kd_histogram *h = &m->hist[id];
    printf("  %-22s n=%llu", label, (unsigned long long)h->count);
    if (h->count)
        printf(" mean=%.1f%s", (double)h->sum / (double)h->count, unit);
    const uint64_t *b = kd_metrics_bounds(id);
    for (int i = 0; i < KD_HIST_BUCKETS; i++)
        if (h->buckets[i]) {
            if (b[i] == UINT64_MAX)
                printf(" [>%llu]:%llu", (unsigned long long)b[i - 1], (unsigned long long)h->buckets[i]);
            else
                printf(" [<=%llu]:%llu", (unsigned long long)b[i], (unsigned long long)h->buckets[i]);
        }
    putchar('\n');
}

int kd_cmd_stats(kd_cli *cli, int argc, char **argv)
{
    static const char usage[] = "usage: kdapp stats [--data DIR] [--prometheus]\n";
    int prom = 0;
    const kd_option opts[] = {KD_CLI_OPTIONS(cli), {.name = "prometheus", .kind = KD_OPT_FLAG, .value = &prom}, {0}};
    const kd_usage u = {.prog = "kdapp stats", .print = kd_usage_print_text, .ctx = usage};
    int first, stop, rc = kd_options_parse_usage(&u, opts, argc, argv, &first, &stop);
    if (rc || stop)
        return rc;
    kd_engine *engine;
    rc = kd_cli_open_engine(cli, NULL, 1, 0, &engine);
    if (rc)
        return rc;
    kd_metrics m;
    kd_tip tip;
    kd_read *rd;
    kd_err err = kd_engine_read_begin(engine, &rd);
    if (!err && !(err = kd_read_metrics(rd, &m)))
        err = kd_read_tip(rd, &tip);
    kd_engine_read_end(rd);
    char chain[KD_CHAIN_MAX];
    snprintf(chain, sizeof chain, "%s", kd_engine_chain(engine));
    kd_engine_close(engine);
    if (err) {
        fprintf(stderr, "kdapp stats: cannot read the metrics: %s\n", kd_err_str(err));
        return KD_EXIT_FAIL;
    }
    /* what the Kaspa writer's wallets paid (kdapp up --rpc keeps it beside the store) */
    kd_kledger *ledger = malloc(sizeof *ledger);
    char lwhy[600];
    kd_err lerr = ledger ? kd_kledger_load_dir(cli->data_dir, ledger, lwhy, sizeof lwhy) : KD_ERR_NOMEM;
    if (lerr && lerr != KD_ERR_NOT_FOUND)
        fprintf(stderr, "kdapp stats: %s\n", ledger ? lwhy : kd_err_str(lerr));
    kd_buf out;
    kd_buf_init(&out);
    if (prom) {
        if (kd_metrics_prometheus(&m, kd_wall_ms(), &out) == KD_OK &&
            (lerr || !kd_kledger_prometheus(ledger, kd_wall_ms(), &out)))
            fputs((const char *)out.data, stdout);
        kd_buf_fini(&out);
        free(ledger);
        return KD_EXIT_OK;
    }
    char d[17];
    kd_hex_encode(tip.digest, 8, d);
    printf("%s: height %llu, %llu log entries, digest %s…, finality %llu\n", cli->data_dir,
           (unsigned long long)tip.height, (unsigned long long)tip.last_seq, d, (unsigned long long)tip.finality_depth);
    printf("  chain %s\n", chain); /* what consents to its creations sign (engine/chain.h) */
    printf("  blocks applied %llu, reverted %llu, duplicates %llu, refused %llu\n",
           (unsigned long long)m.blocks_applied, (unsigned long long)m.blocks_reverted,
           (unsigned long long)m.duplicates, (unsigned long long)m.refusals);
    printf("  txs applied %llu, rejected %llu:", (unsigned long long)m.txs_applied, (unsigned long long)m.txs_rejected);
    size_t pos = 0;
    const char *code;
    uint64_t count;
    while (kd_code_counts_next(&m.rejections, &pos, &code, &count))
        printf(" %s=%llu", code, (unsigned long long)count);
    printf("\n  refused by reason:");
    for (int e = 0; e < KD_ERR_COUNT_; e++)
        if (m.refused[e])
            printf(" %s=%llu", kd_err_code((kd_err)e), (unsigned long long)m.refused[e]);
    putchar('\n');
    print_hist(&m, KD_HIST_REORG_DEPTH, "reorg depth", " blocks");
    print_hist(&m, KD_HIST_UNDO_PER_REVERT, "undo records/revert", "");
    print_hist(&m, KD_HIST_APPLY_US, "apply latency", " us");
    print_hist(&m, KD_HIST_REVERT_US, "revert latency", " us");
    uint64_t now = kd_wall_ms();
    printf("  lag behind tip        %.1f s\n",
           m.tip_time_ms && now > m.tip_time_ms ? (double)(now - m.tip_time_ms) / 1000.0 : 0.0);
    if (m.source_tip_time_ms) /* a feeder with a chain source (kdapp listen: the node's sink) told it */
        printf("  lag behind source     %.1f s\n", (double)kd_metrics_source_lag_ms(&m) / 1000.0);
    if (!lerr && kd_kledger_text(ledger, kd_wall_ms(), &out) == KD_OK && out.len)
        fputs((const char *)out.data, stdout);
    kd_buf_fini(&out);
    free(ledger);
    return KD_EXIT_OK;
}
