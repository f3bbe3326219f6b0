/* kaspa_mass.c — mass and fee (kaspa_mass.h). */
#include "tools/kaspa/kaspa_mass.h"

#define MASS_PER_TX_BYTE 1
#define MASS_PER_SPK_BYTE 10
#define MASS_PER_SIG_OP 1000
#define TRANSIENT_BYTE_TO_MASS 4

uint64_t kd_ktx_compute_mass(const kd_ktx *tx, size_t unsigned_sig_len, uint64_t *size_out)
{
    uint64_t size = 2 + 8 + 8 + 8 + KD_KASPA_SUBNET_LEN + 8 + KD_KASPA_HASH_LEN + 8 + tx->payload_len;
    uint64_t spk_bytes = 0, sig_ops = 0;
    for (size_t i = 0; i < tx->n_inputs; i++) {
        size_t script = tx->inputs[i].sig_script_len ? tx->inputs[i].sig_script_len : unsigned_sig_len;
        size += KD_KASPA_HASH_LEN + 4 + 8 + script + 8;
        sig_ops += tx->inputs[i].sig_op_count;
    }
    for (size_t i = 0; i < tx->n_outputs; i++) {
        size += 8 + 2 + 8 + tx->outputs[i].spk.script_len;
        spk_bytes += 2 + tx->outputs[i].spk.script_len;
    }
    if (size_out)
        *size_out = size;
    if (kd_ktx_is_coinbase(tx))
        return 0;
    return size * MASS_PER_TX_BYTE + spk_bytes * MASS_PER_SPK_BYTE + sig_ops * MASS_PER_SIG_OP;
}

static uint64_t plurality(size_t script_len) { return (63 + (uint64_t)script_len + 99) / 100; }

static uint64_t sat_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

static uint64_t sat_mul(uint64_t a, uint64_t b) { return b && a > UINT64_MAX / b ? UINT64_MAX : a * b; }

uint64_t kd_ktx_storage_mass(const kd_ktx *tx, const kd_kutxo *entries, kd_kaspa_rules rules)
{
    const uint64_t c = KD_KASPA_STORAGE_MASS_PARAMETER;
    if (kd_ktx_is_coinbase(tx))
        return 0;
    if (!tx->n_inputs)
        return UINT64_MAX;
    int crescendo = rules == KD_KASPA_RULES_CRESCENDO;
    uint64_t harmonic_outs = 0, outs_plurality = 0;
    for (size_t i = 0; i < tx->n_outputs; i++) {
        const kd_ktx_output *o = &tx->outputs[i];
        uint64_t p = crescendo ? plurality(o->spk.script_len) : 1;
        if (!o->value)
            return UINT64_MAX;
        uint64_t cp2 = c * p * p; /* p <= 656 for any script a node keeps: no overflow */
        uint64_t term = cp2 / o->value;
        if (term > UINT64_MAX - harmonic_outs)
            return UINT64_MAX; /* checked_add: incomputable */
        harmonic_outs += term;
        outs_plurality += p;
    }
    uint64_t ins_plurality = 0, sum_ins = 0;
    for (size_t i = 0; i < tx->n_inputs; i++) {
        ins_plurality += crescendo ? plurality(entries[i].spk.script_len) : 1;
        sum_ins += entries[i].amount;
    }
    int relaxed;
    if (crescendo)
        relaxed = outs_plurality == 1 ||
                  (tx->n_inputs <= 2 && (ins_plurality == 1 || (outs_plurality == 2 && ins_plurality == 2)));
    else
        relaxed = 0; /* Kip9Version::Alpha, what v0.14.1's mempool applies */
    if (relaxed) {
        uint64_t harmonic_ins = 0;
        for (size_t i = 0; i < tx->n_inputs; i++) {
            uint64_t p = plurality(entries[i].spk.script_len);
            if (!entries[i].amount)
                return UINT64_MAX;
            harmonic_ins = sat_add(harmonic_ins, c * p * p / entries[i].amount);
        }
        return harmonic_outs > harmonic_ins ? harmonic_outs - harmonic_ins : 0;
    }
    uint64_t mean_ins = sum_ins / ins_plurality;
    if (!mean_ins)
        return UINT64_MAX;
    uint64_t arithmetic_ins = sat_mul(ins_plurality, c / mean_ins);
    return harmonic_outs > arithmetic_ins ? harmonic_outs - arithmetic_ins : 0;
}

void kd_ktx_mass(const kd_ktx *tx, const kd_kutxo *entries, kd_kaspa_rules rules, kd_kmass *out)
{
    out->compute = kd_ktx_compute_mass(tx, KD_KASPA_SCHNORR_SIG_SCRIPT_LEN, &out->size);
    out->storage = kd_ktx_storage_mass(tx, entries, rules);
    if (rules == KD_KASPA_RULES_CRESCENDO) {
        out->transient = kd_ktx_is_coinbase(tx) ? 0 : out->size * TRANSIENT_BYTE_TO_MASS;
        out->total = out->compute > out->transient ? out->compute : out->transient;
        if (out->storage > out->total)
            out->total = out->storage;
        uint64_t half = out->transient / 2 + out->transient % 2; /* ⌈transient × 0.5⌉ */
        out->fee_mass = out->compute > half ? out->compute : half;
        out->order = out->fee_mass > out->storage ? out->fee_mass : out->storage;
    } else {
        out->transient = 0;
        out->total = sat_add(out->compute, out->storage);
        out->fee_mass = out->order = out->total;
    }
}

uint64_t kd_kaspa_fee_floor(kd_kaspa_rules rules)
{
    return rules == KD_KASPA_RULES_CRESCENDO ? KD_KASPA_MIN_RELAY_FEE_RATE : KD_KASPA_LEGACY_RELAY_FEE_RATE;
}

uint64_t kd_kaspa_min_fee(const kd_kmass *m, kd_kaspa_rules rules)
{
    return kd_kaspa_fee(m->fee_mass, kd_kaspa_fee_floor(rules));
}

uint64_t kd_kaspa_tx_fee(const kd_kmass *m, kd_kaspa_rules rules, uint64_t rate)
{
    uint64_t floor = kd_kaspa_fee_floor(rules);
    if (rules != KD_KASPA_RULES_CRESCENDO)
        return kd_kaspa_fee(m->total, rate);
    if (rate <= floor)
        return kd_kaspa_min_fee(m, rules);
    unsigned __int128 fee =
        (unsigned __int128)kd_kaspa_min_fee(m, rules) + (unsigned __int128)m->order * (rate - floor) / 1000;
    return fee > KD_KASPA_MAX_SOMPI ? KD_KASPA_MAX_SOMPI : (uint64_t)fee;
}

uint64_t kd_kaspa_fee(uint64_t mass, uint64_t rate)
{
    unsigned __int128 fee = (unsigned __int128)mass * rate / 1000;
    if (fee == 0)
        fee = rate;
    return fee > KD_KASPA_MAX_SOMPI ? KD_KASPA_MAX_SOMPI : (uint64_t)fee;
}

int kd_kaspa_output_is_dust(uint64_t value, size_t script_len)
{
    if (script_len < 33)
        return 1;
    unsigned __int128 total = 8 + 2 + 8 + (unsigned __int128)script_len + 148;
    return (unsigned __int128)value * 1000 / (3 * total) < KD_KASPA_LEGACY_RELAY_FEE_RATE;
}
