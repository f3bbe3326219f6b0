/* kaspa_sighash.c — Kaspa's Schnorr sighash and signing (kaspa_sighash.h). */
#include "tools/kaspa/kaspa_sighash.h"

#include <secp256k1.h>
#include <secp256k1_extrakeys.h>
#include <secp256k1_schnorrsig.h>
#include <stdio.h>
#include <string.h>

#include "tools/kaspa/kaspa_addr.h"

#define DOMAIN "TransactionSigningHash"

static int type_valid(uint8_t t)
{
    uint8_t base = t & (uint8_t)~KD_SIGHASH_ANYONECANPAY;
    return base == KD_SIGHASH_ALL || base == KD_SIGHASH_NONE || base == KD_SIGHASH_SINGLE;
}

/* One keyed hash over a part of the transaction; `which` picks the part. */
enum part { PREV_OUTPUTS, SEQUENCES, SIG_OP_COUNTS, OUTPUTS, ONE_OUTPUT, PAYLOAD };

static kd_err part_hash(const kd_ktx *tx, enum part which, size_t index, uint8_t out[KD_KASPA_HASH_LEN])
{
    kd_kaspa_hasher h;
    kd_err err = kd_kaspa_hasher_init(&h, DOMAIN);
    if (err)
        return err;
    size_t from = which == ONE_OUTPUT ? index : 0;
    size_t to = which == ONE_OUTPUT ? index + 1 : which == OUTPUTS ? tx->n_outputs : tx->n_inputs;
    if (which == PAYLOAD) {
        kd_kaspa_hasher_var_bytes(&h, tx->payload, tx->payload_len);
        to = 0;
    }
    for (size_t i = from; i < to; i++) {
        const kd_ktx_input *in = which < OUTPUTS ? &tx->inputs[i] : NULL;
        const kd_ktx_output *o = which >= OUTPUTS ? &tx->outputs[i] : NULL;
        switch (which) {
        case PREV_OUTPUTS:
            kd_kaspa_hasher_update(&h, in->prev.txid, KD_KASPA_HASH_LEN);
            kd_kaspa_hasher_u32(&h, in->prev.index);
            break;
        case SEQUENCES:
            kd_kaspa_hasher_u64(&h, in->sequence);
            break;
        case SIG_OP_COUNTS:
            kd_kaspa_hasher_update(&h, &in->sig_op_count, 1);
            break;
        case OUTPUTS:
        case ONE_OUTPUT:
            kd_kaspa_hasher_u64(&h, o->value);
            kd_kaspa_hasher_u16(&h, o->spk.version);
            kd_kaspa_hasher_var_bytes(&h, o->spk.script, o->spk.script_len);
            break;
        case PAYLOAD:
            break;
        }
    }
    err = kd_kaspa_hasher_final(&h, out);
    kd_kaspa_hasher_fini(&h);
    return err;
}

static int subnet_native(const kd_ktx *tx)
{
    for (size_t i = 0; i < KD_KASPA_SUBNET_LEN; i++)
        if (tx->subnetwork_id[i])
            return 0;
    return 1;
}

kd_err kd_ktx_sighash(const kd_ktx *tx, const kd_kutxo *entries, size_t input, uint8_t hash_type, kd_kaspa_rules rules,
                      uint8_t out[KD_KASPA_HASH_LEN])
{
    if (input >= tx->n_inputs || !type_valid(hash_type))
        return KD_ERR_INVALID_ARG;
    uint8_t base = hash_type & (uint8_t)~KD_SIGHASH_ANYONECANPAY;
    int acp = (hash_type & KD_SIGHASH_ANYONECANPAY) != 0;
    uint8_t prev[32] = {0}, seqs[32] = {0}, sigops[32] = {0}, outs[32] = {0}, payload[32] = {0};
    kd_err err = KD_OK;
    if (!acp)
        err = part_hash(tx, PREV_OUTPUTS, 0, prev);
    if (!err && !acp && base == KD_SIGHASH_ALL)
        err = part_hash(tx, SEQUENCES, 0, seqs);
    if (!err && !acp)
        err = part_hash(tx, SIG_OP_COUNTS, 0, sigops);
    if (!err && base == KD_SIGHASH_ALL)
        err = part_hash(tx, OUTPUTS, 0, outs);
    if (!err && base == KD_SIGHASH_SINGLE && input < tx->n_outputs)
        err = part_hash(tx, ONE_OUTPUT, input, outs);
    int payload_zero = rules == KD_KASPA_RULES_V014 ? subnet_native(tx) : subnet_native(tx) && !tx->payload_len;
    if (!err && !payload_zero)
        err = part_hash(tx, PAYLOAD, 0, payload);
    if (err)
        return err;

    const kd_ktx_input *in = &tx->inputs[input];
    const kd_kutxo *entry = &entries[input];
    kd_kaspa_hasher h;
    err = kd_kaspa_hasher_init(&h, DOMAIN);
    if (err)
        return err;
    kd_kaspa_hasher_u16(&h, tx->version);
    kd_kaspa_hasher_update(&h, prev, 32);
    kd_kaspa_hasher_update(&h, seqs, 32);
    kd_kaspa_hasher_update(&h, sigops, 32);
    kd_kaspa_hasher_update(&h, in->prev.txid, KD_KASPA_HASH_LEN);
    kd_kaspa_hasher_u32(&h, in->prev.index);
    kd_kaspa_hasher_u16(&h, entry->spk.version);
    kd_kaspa_hasher_var_bytes(&h, entry->spk.script, entry->spk.script_len);
    kd_kaspa_hasher_u64(&h, entry->amount);
    kd_kaspa_hasher_u64(&h, in->sequence);
    kd_kaspa_hasher_update(&h, &in->sig_op_count, 1);
    kd_kaspa_hasher_update(&h, outs, 32);
    kd_kaspa_hasher_u64(&h, tx->lock_time);
    kd_kaspa_hasher_update(&h, tx->subnetwork_id, KD_KASPA_SUBNET_LEN);
    kd_kaspa_hasher_u64(&h, tx->gas);
    kd_kaspa_hasher_update(&h, payload, 32);
    kd_kaspa_hasher_update(&h, &hash_type, 1);
    err = kd_kaspa_hasher_final(&h, out);
    kd_kaspa_hasher_fini(&h);
    return err;
}

kd_err kd_ktx_sign(kd_ktx *tx, const kd_kutxo *entries, const kd_key *key, kd_kaspa_rules rules, char *why,
                   size_t why_len)
{
    kd_kaddr addr;
    uint8_t mine[KD_KSPK_SCRIPT_MAX];
    size_t mine_len;
    kd_kaddr_of_key(key, KD_KNET_MAINNET, &addr);
    if (kd_kaddr_to_script(&addr, mine, &mine_len))
        return KD_ERR_INTERNAL;
    for (size_t i = 0; i < tx->n_inputs; i++) {
        const kd_kspk *spk = &entries[i].spk;
        if (spk->version != 0 || spk->script_len != mine_len || memcmp(spk->script, mine, mine_len)) {
            if (why && why_len)
                snprintf(why, why_len, "input %zu spends a script that is not this key's P2PK script", i);
            return KD_ERR_INVALID_ARG;
        }
    }
    secp256k1_context *ctx = secp256k1_context_create(SECP256K1_CONTEXT_NONE);
    if (!ctx)
        return KD_ERR_NOMEM;
    secp256k1_keypair pair;
    uint8_t seed[32];
    kd_err err = kd_random_bytes(seed, sizeof seed);
    if (!err && !secp256k1_context_randomize(ctx, seed))
        err = KD_ERR_INTERNAL;
    if (!err && !secp256k1_keypair_create(ctx, &pair, key->secret))
        err = KD_ERR_BAD_KEY;
    for (size_t i = 0; i < tx->n_inputs && !err; i++) {
        uint8_t digest[32], aux[32], script[KD_KASPA_SCHNORR_SIG_SCRIPT_LEN];
        err = kd_ktx_sighash(tx, entries, i, KD_SIGHASH_ALL, rules, digest);
        if (!err)
            err = kd_random_bytes(aux, sizeof aux);
        if (err)
            break;
        script[0] = 0x41; /* OP_DATA_65 */
        if (!secp256k1_schnorrsig_sign32(ctx, script + 1, digest, &pair, aux)) {
            err = KD_ERR_BAD_KEY;
            break;
        }
        script[65] = KD_SIGHASH_ALL;
        err = kd_ktx_set_sig_script(tx, i, script, sizeof script);
    }
    memset(&pair, 0, sizeof pair);
    secp256k1_context_destroy(ctx);
    return err;
}

kd_err kd_ktx_verify_input(const kd_ktx *tx, const kd_kutxo *entries, size_t input, kd_kaspa_rules rules)
{
    if (input >= tx->n_inputs)
        return KD_ERR_INVALID_ARG;
    const kd_ktx_input *in = &tx->inputs[input];
    kd_kaddr addr;
    const kd_kspk *spk = &entries[input].spk;
    if (kd_kaddr_from_script(KD_KNET_MAINNET, spk->version, spk->script, spk->script_len, &addr) ||
        addr.version != KD_KADDR_PUBKEY)
        return KD_ERR_BAD_PUBKEY;
    if (in->sig_script_len != KD_KASPA_SCHNORR_SIG_SCRIPT_LEN || in->sig_script[0] != 0x41)
        return KD_ERR_BAD_SIGNATURE;
    uint8_t digest[32];
    kd_err err = kd_ktx_sighash(tx, entries, input, in->sig_script[65], rules, digest);
    if (err)
        return err == KD_ERR_INVALID_ARG ? KD_ERR_BAD_SIGNATURE : err;
    secp256k1_xonly_pubkey pk;
    if (!secp256k1_xonly_pubkey_parse(secp256k1_context_static, &pk, addr.payload))
        return KD_ERR_BAD_PUBKEY;
    if (!secp256k1_schnorrsig_verify(secp256k1_context_static, in->sig_script + 1, digest, 32, &pk))
        return KD_ERR_BAD_SIGNATURE;
    return KD_OK;
}
