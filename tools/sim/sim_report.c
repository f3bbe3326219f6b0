/* sim_report.c — the simulator's summary and reproduction scripts (see sim_report.h). */
#include "tools/sim/sim_report.h"

#include <stdlib.h>

void kd_sim_repro_accept(json_t *lines, const uint8_t hash[KD_HASH_LEN], uint64_t daa, uint64_t time_ms,
                         const kd_wire_tx *txs, size_t n)
{
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < n; i++) {
        char id[2 * KD_HASH_LEN + 1];
        char *hex = malloc(2 * txs[i].payload_len + 1);
        if (!hex)
            continue;
        kd_hex_encode(txs[i].tx_id, KD_HASH_LEN, id);
        kd_hex_encode(txs[i].payload, txs[i].payload_len, hex);
        json_array_append_new(arr, json_pack("{s:s, s:s}", "payload_hex", hex, "tx_id", id));
        free(hex);
    }
    char h[2 * KD_HASH_LEN + 1];
    kd_hex_encode(hash, KD_HASH_LEN, h);
    json_array_append_new(lines, json_pack("{s:{s:s, s:I, s:I, s:o}}", "accept", "hash", h, "daa", (json_int_t)daa,
                                           "time", (json_int_t)time_ms, "txs", arr));
}

void kd_sim_repro_revert(json_t *lines, const uint8_t hash[KD_HASH_LEN])
{
    char h[2 * KD_HASH_LEN + 1];
    kd_hex_encode(hash, KD_HASH_LEN, h);
    json_array_append_new(lines, json_pack("{s:s}", "revert", h));
}

void kd_sim_repro_write(const json_t *lines, const kd_sim_options *o, uint64_t step, FILE *out)
{
    const char *path = o->repro_path;
    char def[256];
    if (!path) {
        snprintf(def, sizeof def, "kdapp-sim-seed%llu-step%llu.jsonl", (unsigned long long)o->seed,
                 (unsigned long long)step);
        path = def;
    }
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(out, "sim: cannot write the reproduction script %s\n", path);
        return;
    }
    fprintf(f, "# kdapp sim --seed %llu: mismatch at step %llu; feed this to a fresh data directory\n",
            (unsigned long long)o->seed, (unsigned long long)step);
    /* Episodes created without params take the engine defaults, which the
     * feed takes from the environment: name the settings the sim ran with. */
    fprintf(f, "# %s%skdapp feed --data NEWDIR --finality %llu %s\n", o->env_note ? o->env_note : "",
            o->env_note && *o->env_note ? " " : "", (unsigned long long)o->finality, path);
    size_t i;
    const json_t *line;
    json_array_foreach(lines, i, line)
    {
        char *text = json_dumps(line, JSON_COMPACT | JSON_PRESERVE_ORDER);
        if (text)
            fprintf(f, "%s\n", text);
        free(text);
    }
    fclose(f);
    fprintf(out, "sim: reproduction script (this session's %zu events) written to %s\n", json_array_size(lines), path);
}

void kd_sim_print_summary(const kd_sim_summary *sum, const kd_sim_options *o, FILE *out)
{
    double secs = sum->seconds > 0 ? sum->seconds : 1e-9;
    fprintf(out, "sim summary (seed %llu, finality %llu, types %s%s%s)\n", (unsigned long long)o->seed,
            (unsigned long long)o->finality, o->type ? o->type : "all", o->env_note && *o->env_note ? ", " : "",
            o->env_note ? o->env_note : "");
    fprintf(out, "  steps            %llu in %.1f s (%.0f steps/s)\n", (unsigned long long)sum->steps, sum->seconds,
            (double)sum->steps / secs);
    fprintf(out, "  blocks applied   %llu  (sessions %llu, fresh-engine checks %llu)\n",
            (unsigned long long)sum->blocks, (unsigned long long)sum->sessions, (unsigned long long)sum->oracle_checks);
    fprintf(out, "  reorgs           %llu (%.1f/s), blocks reverted %llu; by depth:", (unsigned long long)sum->reorgs,
            (double)sum->reorgs / secs, (unsigned long long)sum->reverts);
    for (int d = 1; d <= KD_SIM_MAX_DEPTH; d++)
        if (sum->reorgs_by_depth[d])
            fprintf(out, " %s%d:%llu", d == KD_SIM_MAX_DEPTH ? ">=" : "", d,
                    (unsigned long long)sum->reorgs_by_depth[d]);
    fprintf(out, "\n  moves            applied %llu, rolled back %llu (%.1f/s)\n",
            (unsigned long long)sum->moves_applied, (unsigned long long)sum->moves_rolled_back,
            (double)sum->moves_rolled_back / secs);
    fprintf(out, "  duplicates       %llu acknowledged again\n", (unsigned long long)sum->duplicates);
    fprintf(out, "  rejected txs    ");
    size_t pos = 0;
    const char *code;
    uint64_t count;
    while (kd_code_counts_next(&sum->rejections, &pos, &code, &count))
        fprintf(out, " %s:%llu", code, (unsigned long long)count);
    fprintf(out, "\n  refused events  ");
    for (int e = 0; e < 64; e++)
        if (sum->refused[e])
            fprintf(out, " %s:%llu", kd_err_code((kd_err)e), (unsigned long long)sum->refused[e]);
    fprintf(out, "\n  mismatches       %llu\n", (unsigned long long)sum->mismatches);
}
