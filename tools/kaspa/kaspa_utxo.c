/* kaspa_utxo.c — a wallet's UTXOs from the node's JSON (kaspa_utxo.h). */
#include "tools/kaspa/kaspa_utxo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/listen/kaspa_rpc.h"

/* The entry's fields come through kd_ktx_json_parse's readers: an entry is
 * read as a one-input, one-output transaction would be, so both agree on
 * every spelling (integers or decimal strings, spk string or object). */
static kd_err parse_entry(const json_t *e, size_t i, kd_kutxo *u, char *why, size_t why_len)
{
    const json_t *op = json_object_get(e, "outpoint"), *entry = json_object_get(e, "utxoEntry");
    if (!json_is_object(op) || !json_is_object(entry)) {
        snprintf(why, why_len, "entries[%zu] needs the objects outpoint and utxoEntry", i);
        return KD_ERR_PARSE;
    }
    json_t *as_tx =
        json_pack("{s:i, s:[{s:O, s:s, s:i, s:i}], s:[{s:O?, s:O?}], s:i, s:s, s:i, s:s}", "version", 0, "inputs",
                  "previousOutpoint", op, "signatureScript", "", "sequence", 0, "sigOpCount", 0, "outputs", "value",
                  json_object_get(entry, "amount"), "scriptPublicKey", json_object_get(entry, "scriptPublicKey"),
                  "lockTime", 0, "subnetworkId", "0000000000000000000000000000000000000000", "gas", 0, "payload", "");
    if (!as_tx)
        return KD_ERR_NOMEM;
    kd_ktx *tx = NULL;
    char inner[200] = "";
    kd_err err = kd_ktx_json_parse(as_tx, &tx, inner, sizeof inner);
    json_decref(as_tx);
    if (err == KD_ERR_PARSE) {
        /* Name the fields as the entry spells them. */
        static const char *const names[][2] = {{"inputs[0].previousOutpoint.", "outpoint."},
                                               {"outputs[0].value", "utxoEntry.amount"},
                                               {"outputs[0].scriptPublicKey", "utxoEntry.scriptPublicKey"}};
        const char *rest = inner, *as = "";
        for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
            if (!strncmp(inner, names[k][0], strlen(names[k][0]))) {
                rest = inner + strlen(names[k][0]);
                as = names[k][1];
            }
        }
        snprintf(why, why_len, "entries[%zu].%s%s", i, as, rest);
        return err;
    }
    if (err)
        return err;
    const json_t *daa = json_object_get(entry, "blockDaaScore"), *cb = json_object_get(entry, "isCoinbase");
    u->outpoint = tx->inputs[0].prev;
    u->amount = tx->outputs[0].value;
    u->spk = tx->outputs[0].spk;
    tx->outputs[0].spk.script = NULL; /* the list owns it now */
    u->is_coinbase = json_is_true(cb);
    const char *bad_daa = daa ? kd_kaspa_u64_of(daa, &u->block_daa_score) : NULL;
    if (!daa)
        u->block_daa_score = 0;
    kd_ktx_free(tx);
    if (bad_daa || (u->is_coinbase && !daa)) {
        /* the builder reads it for a coinbase output: its maturity */
        snprintf(why, why_len, "entries[%zu].utxoEntry.blockDaaScore %s%s", i,
                 bad_daa ? "is not a non-negative integer: " : "is missing (a coinbase output needs it: its maturity)",
                 bad_daa ? bad_daa : "");
        free(u->spk.script);
        u->spk.script = NULL;
        return KD_ERR_PARSE;
    }
    if (!u->amount) {
        snprintf(why, why_len, "entries[%zu].utxoEntry.amount is 0", i);
        return KD_ERR_PARSE;
    }
    return KD_OK;
}

kd_err kd_kutxo_list_parse(const json_t *json, kd_kutxo_list *out, char *why, size_t why_len)
{
    memset(out, 0, sizeof *out);
    const json_t *arr = json_is_object(json) ? json_object_get(json, "entries") : json;
    if (!json_is_array(arr)) {
        snprintf(why, why_len, "the UTXOs are neither a JSON array nor an object with an array \"entries\"");
        return KD_ERR_PARSE;
    }
    size_t n = json_array_size(arr);
    out->utxos = calloc(n ? n : 1, sizeof *out->utxos);
    if (!out->utxos)
        return KD_ERR_NOMEM;
    for (size_t i = 0; i < n; i++) {
        kd_err err = parse_entry(json_array_get(arr, i), i, &out->utxos[i], why, why_len);
        if (err) {
            kd_kutxo_list_fini(out);
            return err;
        }
        out->n++;
    }
    return KD_OK;
}

void kd_kutxo_list_fini(kd_kutxo_list *list)
{
    for (size_t i = 0; i < list->n; i++)
        free(list->utxos[i].spk.script);
    free(list->utxos);
    memset(list, 0, sizeof *list);
}
