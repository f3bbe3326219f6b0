/* kaspa_tx.c — a Kaspa transaction, its id and hash (kaspa_tx.h). */
#include "tools/kaspa/kaspa_tx.h"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <stdlib.h>
#include <string.h>

/* ---- keyed BLAKE2b-256 ---- */

kd_err kd_kaspa_hasher_init(kd_kaspa_hasher *h, const char *domain)
{
    h->mac = NULL;
    h->failed = 0;
    EVP_MAC *mac = EVP_MAC_fetch(NULL, "BLAKE2BMAC", NULL);
    if (!mac)
        return KD_ERR_INTERNAL;
    EVP_MAC_CTX *ctx = EVP_MAC_CTX_new(mac);
    EVP_MAC_free(mac);
    if (!ctx)
        return KD_ERR_NOMEM;
    size_t size = KD_KASPA_HASH_LEN;
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_size_t(OSSL_MAC_PARAM_SIZE, &size),
        OSSL_PARAM_construct_end(),
    };
    if (!EVP_MAC_init(ctx, (const unsigned char *)domain, strlen(domain), params)) {
        EVP_MAC_CTX_free(ctx);
        return KD_ERR_INTERNAL;
    }
    h->mac = ctx;
    return KD_OK;
}

void kd_kaspa_hasher_update(kd_kaspa_hasher *h, const void *data, size_t len)
{
    if (len && !h->failed && !EVP_MAC_update(h->mac, data, len))
        h->failed = 1;
}

void kd_kaspa_hasher_u16(kd_kaspa_hasher *h, uint16_t v)
{
    uint8_t b[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    kd_kaspa_hasher_update(h, b, 2);
}

void kd_kaspa_hasher_u32(kd_kaspa_hasher *h, uint32_t v)
{
    uint8_t b[4];
    for (int i = 0; i < 4; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    kd_kaspa_hasher_update(h, b, 4);
}

void kd_kaspa_hasher_u64(kd_kaspa_hasher *h, uint64_t v)
{
    uint8_t b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    kd_kaspa_hasher_update(h, b, 8);
}

void kd_kaspa_hasher_var_bytes(kd_kaspa_hasher *h, const uint8_t *data, size_t len)
{
    kd_kaspa_hasher_u64(h, (uint64_t)len);
    kd_kaspa_hasher_update(h, data, len);
}

kd_err kd_kaspa_hasher_final(kd_kaspa_hasher *h, uint8_t out[KD_KASPA_HASH_LEN])
{
    size_t n = 0;
    if (h->failed || !EVP_MAC_final(h->mac, out, &n, KD_KASPA_HASH_LEN) || n != KD_KASPA_HASH_LEN) {
        h->failed = 1;
        return KD_ERR_INTERNAL;
    }
    h->failed = 1; /* finalised: no more updates */
    return KD_OK;
}

void kd_kaspa_hasher_fini(kd_kaspa_hasher *h)
{
    EVP_MAC_CTX_free(h->mac);
    h->mac = NULL;
}

/* ---- the structure ---- */

kd_err kd_ktx_alloc(kd_ktx **out)
{
    *out = calloc(1, sizeof **out);
    return *out ? KD_OK : KD_ERR_NOMEM;
}

void kd_ktx_free(kd_ktx *tx)
{
    if (!tx)
        return;
    for (size_t i = 0; i < tx->n_inputs; i++)
        free(tx->inputs[i].sig_script);
    for (size_t i = 0; i < tx->n_outputs; i++)
        free(tx->outputs[i].spk.script);
    free(tx->inputs);
    free(tx->outputs);
    free(tx->payload);
    free(tx);
}

/* A copy of `len` bytes into *out (NULL for 0). */
static kd_err dup_bytes(const uint8_t *src, size_t len, uint8_t **out)
{
    *out = NULL;
    if (!len)
        return KD_OK;
    *out = malloc(len);
    if (!*out)
        return KD_ERR_NOMEM;
    memcpy(*out, src, len);
    return KD_OK;
}

kd_err kd_ktx_add_input(kd_ktx *tx, const kd_ktx_outpoint *prev, uint64_t sequence, uint8_t sig_op_count)
{
    kd_ktx_input *grown = realloc(tx->inputs, (tx->n_inputs + 1) * sizeof *grown);
    if (!grown)
        return KD_ERR_NOMEM;
    tx->inputs = grown;
    grown[tx->n_inputs++] = (kd_ktx_input){.prev = *prev, .sequence = sequence, .sig_op_count = sig_op_count};
    return KD_OK;
}

kd_err kd_ktx_add_output(kd_ktx *tx, uint64_t value, uint16_t spk_version, const uint8_t *script, size_t script_len)
{
    uint8_t *copy;
    kd_err err = dup_bytes(script, script_len, &copy);
    if (err)
        return err;
    kd_ktx_output *grown = realloc(tx->outputs, (tx->n_outputs + 1) * sizeof *grown);
    if (!grown) {
        free(copy);
        return KD_ERR_NOMEM;
    }
    tx->outputs = grown;
    grown[tx->n_outputs++] =
        (kd_ktx_output){.value = value, .spk = {.version = spk_version, .script = copy, .script_len = script_len}};
    return KD_OK;
}

void kd_ktx_pop_output(kd_ktx *tx)
{
    if (!tx->n_outputs)
        return;
    free(tx->outputs[--tx->n_outputs].spk.script);
}

kd_err kd_ktx_set_sig_script(kd_ktx *tx, size_t i, const uint8_t *script, size_t len)
{
    if (i >= tx->n_inputs)
        return KD_ERR_INVALID_ARG;
    uint8_t *copy;
    kd_err err = dup_bytes(script, len, &copy);
    if (err)
        return err;
    free(tx->inputs[i].sig_script);
    tx->inputs[i].sig_script = copy;
    tx->inputs[i].sig_script_len = len;
    return KD_OK;
}

kd_err kd_ktx_set_payload(kd_ktx *tx, const uint8_t *payload, size_t len)
{
    uint8_t *copy;
    kd_err err = dup_bytes(payload, len, &copy);
    if (err)
        return err;
    free(tx->payload);
    tx->payload = copy;
    tx->payload_len = len;
    return KD_OK;
}

kd_err kd_ktx_clone(const kd_ktx *tx, kd_ktx **out)
{
    kd_ktx *c;
    kd_err err = kd_ktx_alloc(&c);
    if (err)
        return err;
    c->version = tx->version;
    c->lock_time = tx->lock_time;
    memcpy(c->subnetwork_id, tx->subnetwork_id, sizeof c->subnetwork_id);
    c->gas = tx->gas;
    c->mass = tx->mass;
    for (size_t i = 0; i < tx->n_inputs && !err; i++) {
        const kd_ktx_input *in = &tx->inputs[i];
        err = kd_ktx_add_input(c, &in->prev, in->sequence, in->sig_op_count);
        if (!err)
            err = kd_ktx_set_sig_script(c, i, in->sig_script, in->sig_script_len);
    }
    for (size_t i = 0; i < tx->n_outputs && !err; i++) {
        const kd_ktx_output *o = &tx->outputs[i];
        err = kd_ktx_add_output(c, o->value, o->spk.version, o->spk.script, o->spk.script_len);
    }
    if (!err)
        err = kd_ktx_set_payload(c, tx->payload, tx->payload_len);
    if (err) {
        kd_ktx_free(c);
        return err;
    }
    *out = c;
    return KD_OK;
}

int kd_ktx_is_coinbase(const kd_ktx *tx)
{
    if (tx->subnetwork_id[0] != 1)
        return 0;
    for (size_t i = 1; i < KD_KASPA_SUBNET_LEN; i++)
        if (tx->subnetwork_id[i])
            return 0;
    return 1;
}

/* ---- id and hash (hashing/tx.rs write_transaction) ---- */

static void write_tx(kd_kaspa_hasher *h, const kd_ktx *tx, int without_sig_scripts, int include_mass)
{
    kd_kaspa_hasher_u16(h, tx->version);
    kd_kaspa_hasher_u64(h, tx->n_inputs);
    for (size_t i = 0; i < tx->n_inputs; i++) {
        const kd_ktx_input *in = &tx->inputs[i];
        kd_kaspa_hasher_update(h, in->prev.txid, KD_KASPA_HASH_LEN);
        kd_kaspa_hasher_u32(h, in->prev.index);
        if (without_sig_scripts) {
            kd_kaspa_hasher_var_bytes(h, NULL, 0);
        } else {
            kd_kaspa_hasher_var_bytes(h, in->sig_script, in->sig_script_len);
            kd_kaspa_hasher_update(h, &in->sig_op_count, 1);
        }
        kd_kaspa_hasher_u64(h, in->sequence);
    }
    kd_kaspa_hasher_u64(h, tx->n_outputs);
    for (size_t i = 0; i < tx->n_outputs; i++) {
        const kd_ktx_output *o = &tx->outputs[i];
        kd_kaspa_hasher_u64(h, o->value);
        kd_kaspa_hasher_u16(h, o->spk.version);
        kd_kaspa_hasher_var_bytes(h, o->spk.script, o->spk.script_len);
    }
    kd_kaspa_hasher_u64(h, tx->lock_time);
    kd_kaspa_hasher_update(h, tx->subnetwork_id, KD_KASPA_SUBNET_LEN);
    kd_kaspa_hasher_u64(h, tx->gas);
    kd_kaspa_hasher_var_bytes(h, tx->payload, tx->payload_len);
    if (include_mass && tx->mass)
        kd_kaspa_hasher_u64(h, tx->mass);
}

static kd_err tx_digest(const kd_ktx *tx, const char *domain, int without_sig_scripts, int include_mass,
                        uint8_t out[KD_KASPA_HASH_LEN])
{
    kd_kaspa_hasher h;
    kd_err err = kd_kaspa_hasher_init(&h, domain);
    if (!err) {
        write_tx(&h, tx, without_sig_scripts, include_mass);
        err = kd_kaspa_hasher_final(&h, out);
    }
    kd_kaspa_hasher_fini(&h);
    return err;
}

kd_err kd_ktx_id(const kd_ktx *tx, uint8_t out[KD_KASPA_HASH_LEN])
{
    return tx_digest(tx, "TransactionID", !kd_ktx_is_coinbase(tx), 0, out);
}

kd_err kd_ktx_hash(const kd_ktx *tx, int include_mass, uint8_t out[KD_KASPA_HASH_LEN])
{
    return tx_digest(tx, "TransactionHash", 0, include_mass, out);
}
