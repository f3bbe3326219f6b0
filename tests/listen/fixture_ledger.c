/* fixture_ledger.c — the fixture kaspad's coins and mempool (fixture_ledger.h). */
#include "fixture_ledger.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/bytes.h"
#include "tools/kaspa/kaspa_mass.h"
#include "tools/listen/kaspa_rpc.h"
#include "tools/listen/txfilter.h"

static const char *const funded[] = {"alice", "bob", "carol", "dave", "erin", "frank", "house", "wallet", "funder"};
#define FUNDING_PER_KEY 3
#define FUNDING_AMOUNT (1000ull * KD_KASPA_SOMPI_PER_KAS)
#define MAX_STANDARD_MASS 100000ull

/* The coinbase holders, and scrap (one coin of 0.01 KAS: what is left after
 * a move's fee is too small for a change output, KIP-9): key, amount
 * (sompi), DAA score, coinbase or not. */
#define KAS KD_KASPA_SOMPI_PER_KAS
static const struct {
    const char *key;
    uint64_t sompi, daa;
    int coinbase;
} minted[] = {{"miner", 500 * KAS, 1000, 1},
              {"miner", 2 * KAS, 1000, 0},
              {"minter", 700 * KAS, 0, 1},
              {"minter", 1 * KAS, 1000, 0},
              {"scrap", KAS / 100, 1000, 0}};

static kd_err add_funding(fx_ledger *l, const char *name, int i, uint64_t amount, uint64_t daa, int coinbase)
{
    kd_key key;
    kd_kaddr addr;
    uint8_t script[KD_KSPK_SCRIPT_MAX];
    size_t len;
    kd_err err = kd_key_test(name, &key);
    if (err)
        return err;
    kd_kaddr_of_key(&key, l->net, &addr);
    if ((err = kd_kaddr_to_script(&addr, script, &len)))
        return err;
    kd_kutxo *u = &l->funding[l->n_funding];
    char seed[64];
    int sn = snprintf(seed, sizeof seed, "fixture funding %s %d", name, i);
    kd_sha256((const uint8_t *)seed, (size_t)sn, u->outpoint.txid);
    u->outpoint.index = (uint32_t)i;
    u->amount = amount;
    u->block_daa_score = daa;
    u->is_coinbase = coinbase;
    u->spk.script = malloc(len);
    if (!u->spk.script)
        return KD_ERR_NOMEM;
    memcpy(u->spk.script, script, len);
    u->spk.script_len = len;
    l->n_funding++;
    return KD_OK;
}

kd_err fx_ledger_init(fx_ledger *l, kd_kaspa_net net, fx_kaspad kaspad)
{
    memset(l, 0, sizeof *l);
    l->net = net;
    l->kaspad = kaspad;
    l->min_rate = kaspad == FX_KASPAD_V2 ? 100000 : 1000; /* DEFAULT_MINIMUM_RELAY_TRANSACTION_FEE */
    size_t n = sizeof funded / sizeof *funded * FUNDING_PER_KEY + sizeof minted / sizeof *minted;
    l->funding = calloc(n, sizeof *l->funding);
    if (!l->funding)
        return KD_ERR_NOMEM;
    kd_err err = KD_OK;
    for (size_t k = 0; k < sizeof funded / sizeof *funded && !err; k++)
        for (int i = 0; i < FUNDING_PER_KEY && !err; i++)
            err = add_funding(l, funded[k], i, FUNDING_AMOUNT, 1000, 0);
    for (size_t k = 0; k < sizeof minted / sizeof *minted && !err; k++)
        err = add_funding(l, minted[k].key, (int)k, minted[k].sompi, minted[k].daa, minted[k].coinbase);
    return err;
}

void fx_ledger_fini(fx_ledger *l)
{
    for (size_t i = 0; i < l->n_funding; i++)
        free(l->funding[i].spk.script);
    for (size_t i = 0; i < l->n_subs; i++) {
        kd_ktx_free(l->subs[i]);
        free(l->sub_lines ? l->sub_lines[i] : NULL);
    }
    free(l->sub_lines);
    free(l->funding);
    free(l->subs);
    free(l->sub_ids);
    memset(l, 0, sizeof *l);
}

static int has_tx(const fx_block *b, const uint8_t id[KD_HASH_LEN])
{
    for (size_t t = 0; t < b->n; t++)
        if (!memcmp(b->txs[t].id, id, KD_HASH_LEN))
            return 1;
    return 0;
}

/* 1 when a chain block accepts `id` (in its selected parent's body or its red's). */
static int accepted(const fx_chain *c, const uint8_t id[KD_HASH_LEN])
{
    for (size_t k = 1; k < c->chain_len; k++) {
        const fx_block *b = &c->blocks[c->chain[k]];
        if (has_tx(&c->blocks[c->chain[k - 1]], id) || (b->red >= 0 && has_tx(&c->blocks[b->red], id)))
            return 1;
    }
    return 0;
}

/* Mined into a block of the selected chain, the sink's included: out of the
 * mempool, though no chain block may have accepted it yet. */
static int mined(const fx_chain *c, const uint8_t id[KD_HASH_LEN])
{
    for (size_t k = 0; k < c->chain_len; k++) {
        const fx_block *b = &c->blocks[c->chain[k]];
        if (has_tx(b, id) || (b->red >= 0 && has_tx(&c->blocks[b->red], id)))
            return 1;
    }
    return 0;
}

int fx_ledger_in_mempool(const fx_chain *c, const uint8_t id[KD_HASH_LEN])
{
    for (size_t i = 0; i < c->n_pending; i++)
        if (!memcmp(c->pending[i].id, id, KD_HASH_LEN))
            return 1;
    return 0;
}

/* The UTXOs as of the virtual chain (confirmed), plus the mempool's
 * outputs with `with_mempool`; each entry's spk borrowed. */
typedef struct {
    kd_kutxo *u;
    size_t n;
} coins;

static int same_op(const kd_ktx_outpoint *a, const kd_ktx_outpoint *b)
{
    return a->index == b->index && !memcmp(a->txid, b->txid, KD_HASH_LEN);
}

static void remove_op(coins *s, const kd_ktx_outpoint *op)
{
    for (size_t i = 0; i < s->n; i++)
        if (same_op(&s->u[i].outpoint, op)) {
            s->u[i] = s->u[--s->n];
            return;
        }
}

static kd_err coins_of(const fx_ledger *l, const fx_chain *c, int with_mempool, coins *out)
{
    size_t cap = l->n_funding;
    for (size_t i = 0; i < l->n_subs; i++)
        cap += l->subs[i]->n_outputs;
    out->u = calloc(cap + 1, sizeof *out->u);
    if (!out->u)
        return KD_ERR_NOMEM;
    memcpy(out->u, l->funding, l->n_funding * sizeof *out->u);
    out->n = l->n_funding;
    for (size_t i = 0; i < l->n_subs; i++) { /* in submission order: parents before children */
        int in = accepted(c, l->sub_ids[i]) ||
                 (with_mempool && (fx_ledger_in_mempool(c, l->sub_ids[i]) || mined(c, l->sub_ids[i])));
        if (!in)
            continue;
        const kd_ktx *tx = l->subs[i];
        for (size_t k = 0; k < tx->n_inputs; k++)
            remove_op(out, &tx->inputs[k].prev);
        for (size_t o = 0; o < tx->n_outputs; o++) {
            kd_kutxo *u = &out->u[out->n++];
            memcpy(u->outpoint.txid, l->sub_ids[i], KD_HASH_LEN);
            u->outpoint.index = (uint32_t)o;
            u->amount = tx->outputs[o].value;
            u->spk = tx->outputs[o].spk;
            u->block_daa_score = c->blocks[fx_chain_sink(c)].daa;
        }
    }
    return KD_OK;
}

json_t *fx_ledger_utxos(const fx_ledger *l, const fx_chain *c, const json_t *params, char *msg, size_t msg_len)
{
    const json_t *addrs = json_object_get(params, "addresses");
    coins s = {0};
    json_t *entries = json_array();
    if (!json_is_array(addrs) || !entries || coins_of(l, c, 0, &s)) {
        snprintf(msg, msg_len, "addresses is not an array");
        json_decref(entries);
        return NULL;
    }
    for (size_t a = 0; a < json_array_size(addrs); a++) {
        const char *text = json_string_value(json_array_get(addrs, a));
        kd_kaddr addr;
        uint8_t script[KD_KSPK_SCRIPT_MAX];
        size_t len;
        char why[160];
        if (!text || kd_kaddr_decode(text, &addr, why, sizeof why) || kd_kaddr_to_script(&addr, script, &len)) {
            snprintf(msg, msg_len, "invalid address %s", text ? text : "(not a string)");
            json_decref(entries);
            free(s.u);
            return NULL;
        }
        for (size_t i = 0; i < s.n; i++) {
            const kd_kutxo *u = &s.u[i];
            if (u->spk.script_len != len || memcmp(u->spk.script, script, len))
                continue;
            char txid[2 * KD_HASH_LEN + 1], spk[2 * KD_KSPK_SCRIPT_MAX + 5] = "0000";
            kd_hex_encode(u->outpoint.txid, KD_HASH_LEN, txid);
            kd_hex_encode(u->spk.script, len, spk + 4);
            json_array_append_new(
                entries, json_pack("{s:s, s:{s:s, s:I}, s:{s:o, s:s, s:o, s:b}}", "address", text, "outpoint",
                                   "transactionId", txid, "index", (json_int_t)u->outpoint.index, "utxoEntry", "amount",
                                   kd_kaspa_u64_new(u->amount), "scriptPublicKey", spk, "blockDaaScore",
                                   kd_kaspa_u64_new(u->block_daa_score), "isCoinbase", u->is_coinbase));
        }
    }
    free(s.u);
    return json_pack("{s:o}", "entries", entries);
}

/* The checks of fx_ledger_submit on a parsed transaction; 0 or -1 with `msg`. */
static int check(const fx_ledger *l, const fx_chain *c, const kd_ktx *tx, const char *hex, kd_kutxo *entries, char *msg,
                 size_t msg_len)
{
    coins confirmed = {0}, all = {0};
    int rc = -1;
    if (coins_of(l, c, 0, &confirmed) || coins_of(l, c, 1, &all)) {
        snprintf(msg, msg_len, "Rejected transaction %s: out of memory", hex);
        goto done;
    }
    /* in isolation: the standard mass caps (v1.1; v2.0.1 until shortly before Toccata), v1.1's dust */
    uint64_t size, compute = kd_ktx_compute_mass(tx, 0, &size);
    if (compute > MAX_STANDARD_MASS || 4 * size > MAX_STANDARD_MASS) {
        snprintf(msg, msg_len,
                 "Rejected transaction %s: transaction %s is not standard: transaction %s mass of %" PRIu64
                 " is larger than max allowed size of %llu",
                 hex, hex, compute > MAX_STANDARD_MASS ? "compute" : "transient (storage)",
                 compute > MAX_STANDARD_MASS ? compute : 4 * size, MAX_STANDARD_MASS);
        goto done;
    }
    for (size_t o = 0; l->kaspad != FX_KASPAD_V2 && o < tx->n_outputs; o++)
        if (kd_kaspa_output_is_dust(tx->outputs[o].value, tx->outputs[o].spk.script_len)) {
            snprintf(msg, msg_len,
                     "Rejected transaction %s: transaction %s is not standard: transaction output #%zu: payment of "
                     "%" PRIu64 " is dust",
                     hex, hex, o, tx->outputs[o].value);
            goto done;
        }
    uint64_t total_in = 0, total_out = 0;
    for (size_t i = 0; i < tx->n_inputs; i++) {
        const kd_ktx_outpoint *op = &tx->inputs[i].prev;
        size_t k = 0;
        while (k < all.n && !same_op(&all.u[k].outpoint, op))
            k++;
        if (k == all.n) {
            /* spent by a mempool tx, or never there */
            for (size_t s = 0; s < l->n_subs; s++) {
                if (!fx_ledger_in_mempool(c, l->sub_ids[s]))
                    continue;
                for (size_t j = 0; j < l->subs[s]->n_inputs; j++)
                    if (same_op(&l->subs[s]->inputs[j].prev, op)) {
                        char other[2 * KD_HASH_LEN + 1], prev[2 * KD_HASH_LEN + 1];
                        kd_hex_encode(l->sub_ids[s], KD_HASH_LEN, other);
                        kd_hex_encode(op->txid, KD_HASH_LEN, prev);
                        snprintf(msg, msg_len,
                                 "Rejected transaction %s: output (%s, %" PRIu32
                                 ") already spent by transaction %s in the mempool",
                                 hex, prev, op->index, other);
                        goto done;
                    }
            }
            snprintf(msg, msg_len, "Rejected transaction %s: transaction %s is an orphan where orphan is disallowed",
                     hex, hex);
            goto done;
        }
        entries[i] = all.u[k];
        total_in += all.u[k].amount;
    }
    for (size_t o = 0; o < tx->n_outputs; o++)
        total_out += tx->outputs[o].value;
    /* consensus in context: coinbase maturity at the virtual DAA score, then the scripts */
    uint64_t virtual_daa = c->blocks[fx_chain_sink(c)].daa;
    for (size_t i = 0; i < tx->n_inputs; i++)
        if (entries[i].is_coinbase && entries[i].block_daa_score + KD_KASPA_COINBASE_MATURITY > virtual_daa) {
            char prev[2 * KD_HASH_LEN + 1];
            kd_hex_encode(entries[i].outpoint.txid, KD_HASH_LEN, prev);
            snprintf(msg, msg_len,
                     "Rejected transaction %s: one of the transaction inputs spends an immature UTXO: transaction "
                     "input #%zu tried to spend coinbase outpoint (%s, %" PRIu32 ") with daa score of %" PRIu64
                     "%s\n    while the merging block daa score is %" PRIu64
                     " and the coinbase maturity period of %llu hasn't passed yet",
                     hex, i, prev, entries[i].outpoint.index, entries[i].block_daa_score,
                     l->kaspad == FX_KASPAD_V2 ? "" : " ", virtual_daa, (unsigned long long)KD_KASPA_COINBASE_MATURITY);
            goto done;
        }
    for (size_t i = 0; i < tx->n_inputs; i++)
        if (kd_ktx_verify_input(tx, entries, i, KD_KASPA_RULES_CRESCENDO)) {
            snprintf(msg, msg_len,
                     "Rejected transaction %s: transaction %s is invalid: the signature of input %zu does not verify",
                     hex, hex, i);
            goto done;
        }
    kd_kmass m;
    kd_ktx_mass(tx, entries, KD_KASPA_RULES_CRESCENDO, &m);
    if (m.storage > MAX_STANDARD_MASS) {
        snprintf(msg, msg_len,
                 "Rejected transaction %s: transaction %s is not standard: transaction storage mass of %" PRIu64
                 " is larger than max allowed size of %llu",
                 hex, hex, m.storage, MAX_STANDARD_MASS);
        goto done;
    }
    uint64_t fee = total_in >= total_out ? total_in - total_out : 0;
    if (l->kaspad == FX_KASPAD_V2) { /* max(compute, transient normalised by 1/2) at the floor */
        uint64_t normalized = m.transient / 2 + m.transient % 2;
        uint64_t need = kd_kaspa_fee(m.compute > normalized ? m.compute : normalized, l->min_rate);
        if (total_in < total_out || fee < need) {
            if (m.compute >= normalized)
                snprintf(msg, msg_len,
                         "Rejected transaction %s: transaction %s is not standard: transaction has %" PRIu64
                         " fees which is under the required amount of %" PRIu64 " for compute mass %" PRIu64,
                         hex, hex, fee, need, m.compute);
            else
                snprintf(msg, msg_len,
                         "Rejected transaction %s: transaction %s is not standard: transaction has %" PRIu64
                         " fees which is under the required amount of %" PRIu64
                         " for normalized transient mass %" PRIu64 " (proportional to transaction byte size)",
                         hex, hex, fee, need, normalized);
            goto done;
        }
    } else { /* v1.1: compute mass only */
        uint64_t need = kd_kaspa_fee(m.compute, l->min_rate);
        if (total_in < total_out || fee < need) {
            snprintf(msg, msg_len,
                     "Rejected transaction %s: transaction %s is not standard: transaction has %" PRIu64
                     " fees which is under the required amount of %" PRIu64,
                     hex, hex, fee, need);
            goto done;
        }
    }
    rc = 0;
done:
    free(confirmed.u);
    free(all.u);
    return rc;
}

int fx_ledger_submit(fx_ledger *l, fx_chain *c, const json_t *params, char id_hex[2 * KD_HASH_LEN + 1], char *msg,
                     size_t msg_len)
{
    kd_ktx *tx = NULL;
    char why[256];
    uint8_t id[KD_HASH_LEN];
    const json_t *tj = json_object_get(params, "transaction");
    if (l->kaspad == FX_KASPAD_V2 && json_is_object(tj) && !json_object_get(tj, "storageMass") &&
        !json_object_get(tj, "mass")) { /* RpcTransaction's deserializer in v2 */
        snprintf(msg, msg_len, "Either storageMass or mass must be provided");
        return -1;
    }
    if (kd_ktx_json_parse(tj, &tx, why, sizeof why)) {
        snprintf(msg, msg_len, "Rpc conversion error: %s", why);
        return -1;
    }
    if (kd_ktx_id(tx, id)) {
        kd_ktx_free(tx);
        snprintf(msg, msg_len, "internal error");
        return -1;
    }
    kd_hex_encode(id, KD_HASH_LEN, id_hex);
    kd_kutxo *entries = calloc(tx->n_inputs + 1, sizeof *entries);
    int rc = -1;
    if (fx_ledger_in_mempool(c, id))
        snprintf(msg, msg_len, "Rejected transaction %s: transaction %s is already in the mempool", id_hex, id_hex);
    else if (accepted(c, id) || mined(c, id)) /* a resend after its block: never a second copy */
        snprintf(msg, msg_len, "Rejected transaction %s: transaction %s was already accepted by the consensus", id_hex,
                 id_hex);
    else if (!entries)
        snprintf(msg, msg_len, "out of memory");
    else
        rc = check(l, c, tx, id_hex, entries, msg, msg_len);
    char *line = NULL; /* the record of an accepted one, for fx_ledger_write_subs */
    if (!rc) {
        json_t *ents = json_array(), *rec = NULL;
        for (size_t i = 0; ents && i < tx->n_inputs; i++) {
            char spk[2 * KD_KSPK_SCRIPT_MAX + 5] = "0000";
            if (entries[i].spk.script_len <= KD_KSPK_SCRIPT_MAX)
                kd_hex_encode(entries[i].spk.script, entries[i].spk.script_len, spk + 4);
            json_array_append_new(
                ents, json_pack("{s:o, s:s}", "amount", kd_kaspa_u64_new(entries[i].amount), "scriptPublicKey", spk));
        }
        rec = ents ? json_pack("{s:s, s:O, s:o}", "id", id_hex, "transaction", tj, "entries", ents) : NULL;
        line = rec ? kd_kaspa_json_dump(rec) : NULL;
        json_decref(rec);
        char **lines = line ? realloc(l->sub_lines, (l->n_subs + 1) * sizeof *lines) : NULL;
        if (lines) {
            l->sub_lines = lines;
        } else {
            rc = -1;
            snprintf(msg, msg_len, "out of memory");
        }
    }
    free(entries);
    kd_ktx *keep = NULL;
    kd_ktx **subs = rc ? NULL : realloc(l->subs, (l->n_subs + 1) * sizeof *subs);
    uint8_t(*ids)[KD_HASH_LEN] = subs ? realloc(l->sub_ids, (l->n_subs + 1) * sizeof *ids) : NULL;
    if (subs)
        l->subs = subs;
    if (ids)
        l->sub_ids = ids;
    if (!rc && (!subs || !ids || kd_ktx_clone(tx, &keep))) {
        snprintf(msg, msg_len, "out of memory");
        rc = -1;
    }
    if (!rc) {
        kd_tx_filter f;
        kd_tx_filter_default(&f);
        fx_tx pending = {.tx = tx,
                         .kdapp = kd_tx_filter_payload(&f, tx->payload, tx->payload_len) && kd_tx_filter_id(&f, id)};
        memcpy(pending.id, id, KD_HASH_LEN);
        if (fx_chain_push_pending(c, &pending)) {
            snprintf(msg, msg_len, "out of memory");
            kd_ktx_free(keep);
            rc = -1;
        } else {
            tx = NULL; /* the pool owns it */
            l->subs[l->n_subs] = keep;
            l->sub_lines[l->n_subs] = line;
            line = NULL;
            memcpy(l->sub_ids[l->n_subs], id, KD_HASH_LEN);
            l->n_subs++;
        }
    }
    free(line);
    kd_ktx_free(tx);
    return rc;
}

kd_err fx_ledger_write_subs(const fx_ledger *l, FILE *out)
{
    for (size_t i = 0; i < l->n_subs; i++)
        if (fprintf(out, "%s\n", l->sub_lines[i]) < 0)
            return KD_ERR_IO;
    return KD_OK;
}
