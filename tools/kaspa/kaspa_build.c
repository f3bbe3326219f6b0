/* kaspa_build.c — a kdapp command as a signed Kaspa transaction (kaspa_build.h). */
#include "tools/kaspa/kaspa_build.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/bytes.h"

/* The fixed point of fee and change converges in two or three rounds (the
 * storage mass of a change grows as the change shrinks); this bounds it. */
#define FEE_ROUNDS 32

/* 1 when UTXO `u` may be spent at virtual DAA score `daa` (a coinbase
 * output only once mature). */
static int spendable(const kd_kutxo *u, uint64_t daa)
{
    return !u->is_coinbase || (u->block_daa_score <= UINT64_MAX - KD_KASPA_COINBASE_MATURITY &&
                               u->block_daa_score + KD_KASPA_COINBASE_MATURITY <= daa);
}

/* Indexes of the spendable UTXOs (*n of them), largest amount first
 * (ties: the given order). */
static size_t *order_utxos(const kd_kbuild_req *req, size_t *n)
{
    const kd_kutxo *u = req->utxos;
    size_t *idx = malloc((req->n_utxos ? req->n_utxos : 1) * sizeof *idx), m = 0;
    if (!idx)
        return NULL;
    for (size_t i = 0; i < req->n_utxos; i++) {
        if (!spendable(&u[i], req->daa_score))
            continue;
        size_t j = m++;
        while (j > 0 && u[idx[j - 1]].amount < u[i].amount) {
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = i;
    }
    *n = m;
    return idx;
}

/* Refuses coinbase entries the build cannot judge (no DAA score given);
 * otherwise sums the immature ones into *immature (sompi, n_immature of
 * them) and *mature_at (the DAA score the first of them matures at). */
static kd_err check_coinbase(const kd_kbuild_req *req, uint64_t *immature, size_t *n_immature, uint64_t *mature_at,
                             char *why, size_t why_len)
{
    *immature = 0;
    *n_immature = 0;
    *mature_at = UINT64_MAX;
    for (size_t i = 0; i < req->n_utxos; i++) {
        const kd_kutxo *u = &req->utxos[i];
        if (!u->is_coinbase)
            continue;
        if (!req->has_daa_score) {
            char txid[2 * KD_KASPA_HASH_LEN + 1];
            kd_hex_encode(u->outpoint.txid, KD_KASPA_HASH_LEN, txid);
            return kd_kaspa_why(KD_ERR_INVALID_ARG, why, why_len,
                                "UTXO %zu (%s:%" PRIu32 ", %" PRIu64
                                " sompi) is a coinbase output of DAA score %" PRIu64
                                ": whether it is mature (%llu DAA scores) depends on the node's virtual DAA score, "
                                "which was not given (kdapp wallet build --daa-score N, N the virtualDaaScore of "
                                "getBlockDagInfo)",
                                i, txid, u->outpoint.index, u->amount, u->block_daa_score,
                                (unsigned long long)KD_KASPA_COINBASE_MATURITY);
        }
        if (spendable(u, req->daa_score))
            continue;
        *immature += u->amount;
        (*n_immature)++;
        uint64_t at = u->block_daa_score > UINT64_MAX - KD_KASPA_COINBASE_MATURITY
                          ? UINT64_MAX
                          : u->block_daa_score + KD_KASPA_COINBASE_MATURITY;
        if (at < *mature_at)
            *mature_at = at;
    }
    return KD_OK;
}

/* The transaction of the first k UTXOs (in `order`), with the payload and
 * no outputs; entries[] gets their entries in input order. */
static kd_err skeleton(const kd_kbuild_req *req, const size_t *order, size_t k, const uint8_t *payload,
                       size_t payload_len, kd_kutxo *entries, kd_ktx **out)
{
    kd_ktx *tx;
    kd_err err = kd_ktx_alloc(&tx);
    for (size_t i = 0; i < k && !err; i++) {
        entries[i] = req->utxos[order[i]];
        err = kd_ktx_add_input(tx, &entries[i].outpoint, 0, 1);
    }
    if (!err)
        err = kd_ktx_set_payload(tx, payload, payload_len);
    if (err) {
        kd_ktx_free(tx);
        return err;
    }
    *out = tx;
    return KD_OK;
}

/* Settles the change output of `tx` (which has none yet): 1 with the change
 * in place and its fee, 0 when no change fits (*no_change says why: dust,
 * a non-standard mass, or the fee eats it all); -1 when out of memory. */
static int settle_change(kd_ktx *tx, const kd_kutxo *entries, const kd_kbuild_req *req, const uint8_t *script,
                         size_t script_len, uint64_t total_in, uint64_t rate, uint64_t *fee_out, kd_kmass *mass,
                         kd_kleftover *no_change)
{
    uint64_t fee = 0;
    *no_change = KD_KLEFTOVER_COST;
    if (kd_ktx_add_output(tx, total_in, 0, script, script_len))
        return -1;
    for (int round = 0; round < FEE_ROUNDS; round++) {
        tx->outputs[0].value = total_in - fee;
        kd_ktx_mass(tx, entries, req->rules, mass);
        uint64_t need = kd_kaspa_tx_fee(mass, req->rules, rate);
        if (need <= fee) {
            if (kd_kaspa_output_is_dust(total_in - fee, script_len)) {
                *no_change = KD_KLEFTOVER_DUST;
                break;
            }
            if (mass->total > KD_KASPA_MAX_STANDARD_MASS) {
                *no_change = KD_KLEFTOVER_MASS;
                break;
            }
            *fee_out = fee;
            return 1;
        }
        if (need >= total_in)
            break;
        fee = need;
    }
    kd_ktx_pop_output(tx);
    return 0;
}

static kd_err grind(kd_ktx *tx, const kd_kbuild_req *req, uint32_t *nonce_out, uint8_t id[KD_KASPA_HASH_LEN])
{
    if (!req->filter) {
        *nonce_out = 0;
        return kd_ktx_id(tx, id);
    }
    uint32_t nonce = req->nonce_start;
    for (uint64_t tries = 0; tries <= UINT32_MAX; tries++, nonce++) {
        kd_tx_header_write(req->filter, nonce, tx->payload);
        kd_err err = kd_ktx_id(tx, id);
        if (err)
            return err;
        if (kd_tx_filter_id(req->filter, id)) {
            *nonce_out = nonce;
            return KD_OK;
        }
    }
    return KD_ERR_INTERNAL; /* no nonce of 2^32 fits: a pattern nothing matches */
}

/* The largest payload a one-input, one-output transaction keeps standard. */
static size_t payload_room(const kd_kbuild_req *req, const uint8_t *script, size_t script_len)
{
    size_t lo = 0, hi = KD_KASPA_MAX_STANDARD_MASS;
    kd_ktx *tx;
    if (kd_ktx_alloc(&tx))
        return 0;
    kd_kutxo e = req->utxos[0];
    e.amount = KD_KASPA_MAX_SOMPI;
    if (kd_ktx_add_input(tx, &e.outpoint, 0, 1) || kd_ktx_add_output(tx, KD_KASPA_MAX_SOMPI, 0, script, script_len)) {
        kd_ktx_free(tx);
        return 0;
    }
    while (lo < hi) {
        size_t mid = lo + (hi - lo + 1) / 2;
        tx->payload_len = mid; /* only the length is read */
        kd_kmass m;
        kd_ktx_mass(tx, &e, req->rules, &m);
        if (m.total <= KD_KASPA_MAX_STANDARD_MASS)
            lo = mid;
        else
            hi = mid - 1;
    }
    tx->payload_len = 0;
    kd_ktx_free(tx);
    return lo;
}

kd_err kd_kaspa_build(const kd_kbuild_req *req, kd_kbuild_result *out, char *why, size_t why_len)
{
    memset(out, 0, sizeof *out);
    if (why && why_len)
        why[0] = 0;
    if (!req->n_utxos)
        return kd_kaspa_why(KD_ERR_NOT_FOUND, why, why_len, "the wallet has no UTXOs: fund its address first");
    uint8_t script[KD_KSPK_SCRIPT_MAX];
    size_t script_len;
    if (kd_kaddr_to_script(req->change, script, &script_len))
        return kd_kaspa_why(KD_ERR_INVALID_ARG, why, why_len, "the change address is not valid");
    uint64_t floor = kd_kaspa_fee_floor(req->rules), rate = req->fee_rate ? req->fee_rate : floor;
    if (rate < floor)
        return kd_kaspa_why(KD_ERR_INVALID_ARG, why, why_len,
                            "the fee rate of %" PRIu64 " sompi/kg is below the minimum relay fee rate of %" PRIu64
                            " sompi/kg (kaspad v2's; v1.x asked %llu): a node would refuse the transaction as "
                            "paying too little; give %" PRIu64 " or more",
                            rate, floor, (unsigned long long)KD_KASPA_LEGACY_RELAY_FEE_RATE, floor);
    uint64_t immature, mature_at;
    size_t n_immature, n_ok = 0;
    kd_err cerr = check_coinbase(req, &immature, &n_immature, &mature_at, why, why_len);
    if (cerr)
        return cerr;
    if (n_immature == req->n_utxos)
        return kd_kaspa_why(KD_ERR_NOT_FOUND, why, why_len,
                            "the wallet has no spendable UTXOs: its %zu UTXO%s (%" PRIu64
                            " sompi) %s coinbase output%s not mature until DAA score %" PRIu64
                            " (the node is at %" PRIu64 ", maturity %llu DAA scores)",
                            n_immature, n_immature == 1 ? "" : "s", immature, n_immature == 1 ? "is a" : "are",
                            n_immature == 1 ? "" : "s", mature_at, req->daa_score,
                            (unsigned long long)KD_KASPA_COINBASE_MATURITY);
    size_t header = req->filter ? KD_TX_HEADER_LEN : 0;
    size_t payload_len = header + req->message_len;
    size_t room = payload_room(req, script, script_len);
    if (payload_len > room)
        return kd_kaspa_why(
            KD_ERR_TOO_LARGE, why, why_len,
            "the payload of %zu bytes (%zu of message) makes a non-standard transaction: a standard one "
            "(mass at most %llu) carries at most %zu bytes of payload",
            payload_len, req->message_len, (unsigned long long)KD_KASPA_MAX_STANDARD_MASS, room);
    uint8_t *payload = calloc(1, payload_len ? payload_len : 1);
    size_t *order = order_utxos(req, &n_ok);
    kd_kutxo *entries = calloc(req->n_utxos, sizeof *entries);
    kd_ktx *tx = NULL;
    kd_err err = payload && order && entries ? KD_OK : KD_ERR_NOMEM;
    if (err)
        goto done;
    if (req->filter)
        kd_tx_header_write(req->filter, req->nonce_start, payload);
    if (req->message_len)
        memcpy(payload + header, req->message, req->message_len);

    uint64_t total_in = 0, fee = 0, last_need = 0, last_mass = 0;
    int found = 0;
    /* The fewest inputs whose leftover no change output can hold (see
     * below): paid as fee only when no number of inputs makes room. */
    size_t stranded_k = 0;
    uint64_t stranded_left = 0;
    kd_kleftover stranded_why = KD_KLEFTOVER_NONE, no_change;
    for (size_t k = 1; k <= n_ok && !found; k++) {
        total_in += req->utxos[order[k - 1]].amount;
        kd_ktx_free(tx);
        tx = NULL;
        err = skeleton(req, order, k, payload, payload_len, entries, &tx);
        if (err)
            goto done;
        int got = settle_change(tx, entries, req, script, script_len, total_in, rate, &fee, &out->mass, &no_change);
        if (got < 0) {
            err = KD_ERR_NOMEM;
            goto done;
        }
        if (got) {
            found = 1;
            out->change = tx->outputs[0].value;
            break;
        }
        /* No change fits: the whole of the inputs pays the fee, if they cover
         * it and what is left would be dust anyway (never burn a real change). */
        kd_ktx_mass(tx, entries, req->rules, &out->mass);
        if (out->mass.total > KD_KASPA_MAX_STANDARD_MASS) {
            err = kd_kaspa_why(
                KD_ERR_TOO_LARGE, why, why_len,
                "paying takes more than %zu inputs, over a standard transaction's mass (%llu): consolidate "
                "the wallet's UTXOs first",
                k - 1, (unsigned long long)KD_KASPA_MAX_STANDARD_MASS);
            goto done;
        }
        last_need = kd_kaspa_tx_fee(&out->mass, req->rules, rate);
        last_mass = out->mass.fee_mass;
        if (total_in >= last_need && kd_kaspa_output_is_dust(total_in - last_need, script_len)) {
            found = 1;
            fee = total_in;
            out->change = 0;
            out->leftover = total_in - last_need;
            out->leftover_why = out->leftover ? KD_KLEFTOVER_DUST : KD_KLEFTOVER_NONE;
        } else if (total_in >= last_need && (!stranded_k || total_in - last_need < stranded_left)) {
            /* covered, but what is left can be no change: a change this
             * small weighs a storage mass over the standard limit (KIP-9:
             * 10^12 / value grams, less what the inputs bring) or costs
             * more fee than it holds; another input may make room */
            stranded_k = k;
            stranded_left = total_in - last_need;
            stranded_why = no_change == KD_KLEFTOVER_DUST ? KD_KLEFTOVER_COST : no_change;
        }
    }
    if (!found && stranded_k) {
        /* no number of inputs makes room for a change: the leftover goes to
         * the fee, reported as such (kd_kbuild_note), rather than refusing
         * a payment the wallet covers */
        total_in = 0;
        for (size_t i = 0; i < stranded_k; i++)
            total_in += req->utxos[order[i]].amount;
        kd_ktx_free(tx);
        tx = NULL;
        err = skeleton(req, order, stranded_k, payload, payload_len, entries, &tx);
        if (err)
            goto done;
        found = 1;
        fee = total_in;
        out->change = 0;
        out->leftover = stranded_left;
        out->leftover_why = stranded_why;
    }
    if (!found) {
        char also[200] = "";
        if (n_immature)
            snprintf(also, sizeof also,
                     " (besides %" PRIu64 " sompi in %zu coinbase UTXO%s not mature until DAA score %" PRIu64
                     "; the node is at %" PRIu64 ")",
                     immature, n_immature, n_immature == 1 ? "" : "s", mature_at, req->daa_score);
        err = kd_kaspa_why(KD_ERR_INSUFFICIENT_FUNDS, why, why_len,
                           "insufficient funds: the transaction needs at least %" PRIu64
                           " sompi (its fee at mass %" PRIu64 " and %" PRIu64
                           " sompi/kg, with no change output), the wallet has %" PRIu64 " sompi in %zu UTXO%s%s",
                           last_need, last_mass, rate, total_in, n_ok, n_ok == 1 ? "" : "s", also);
        goto done;
    }
    err = grind(tx, req, &out->nonce, out->id);
    if (!err)
        err = kd_ktx_sign(tx, entries, req->key, req->rules, why, why_len);
    if (err)
        goto done;
    out->used = malloc(tx->n_inputs * sizeof *out->used);
    if (!out->used) {
        err = KD_ERR_NOMEM;
        goto done;
    }
    for (size_t i = 0; i < tx->n_inputs; i++)
        out->used[i] = order[i];
    kd_ktx_mass(tx, entries, req->rules, &out->mass);
    out->fee = fee;
    out->total_in = total_in;
    out->tx = tx;
    tx = NULL;
done:
    kd_ktx_free(tx);
    free(entries);
    free(order);
    free(payload);
    if (err && err != KD_ERR_NOMEM && err != KD_ERR_INSUFFICIENT_FUNDS && err != KD_ERR_TOO_LARGE && why && !why[0])
        kd_kaspa_why(err, why, why_len, "building the transaction failed: %s", kd_err_str(err));
    if (err) {
        free(out->used);
        memset(out, 0, sizeof *out);
    }
    return err;
}

size_t kd_kbuild_note(const kd_kbuild_result *res, char *buf, size_t len)
{
    static const char *const why[] = {
        [KD_KLEFTOVER_DUST] = "it would be dust (worth less than a third of the fee of spending it)",
        [KD_KLEFTOVER_MASS] = "a change that small weighs a storage mass over the standard transaction's "
                              "(KIP-9: about 10^12 / its value, in grams)",
        [KD_KLEFTOVER_COST] = "after paying for its own output it would be dust or nothing",
    };
    if (!res->leftover || res->leftover_why <= KD_KLEFTOVER_NONE || res->leftover_why > KD_KLEFTOVER_COST) {
        if (buf && len)
            buf[0] = 0;
        return 0;
    }
    int n = snprintf(buf, len,
                     "the fee of %" PRIu64 " sompi includes a leftover of %" PRIu64
                     " sompi above the minimum: no change output could hold it (%s), and no other UTXO of the "
                     "wallet made room for one; send the wallet a larger UTXO to avoid this",
                     res->fee, res->leftover, why[res->leftover_why]);
    return n < 0 ? 0 : (size_t)n;
}

void kd_kbuild_result_fini(kd_kbuild_result *res)
{
    kd_ktx_free(res->tx);
    free(res->used);
    memset(res, 0, sizeof *res);
}
