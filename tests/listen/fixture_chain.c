/* fixture_chain.c — the fixture node's chain (fixture_chain.h). */
#include "fixture_chain.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "engine/bytes.h"
#include "engine/wire.h"
#include "episodes/episode_type.h"
#include "tools/listen/txfilter.h"

#define GENESIS_DAA 1000u
#define TIME_BASE_MS 1700000000000ull

/* splitmix64: the fixture's random numbers, a function of the seed. */
static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* `n` bytes of the seeded stream `salt`. */
static void fill_random(uint64_t salt, uint8_t *out, size_t n)
{
    for (size_t i = 0; i < n; i += 8) {
        uint8_t w[8];
        kd_put_u64be(w, mix64(mix64(salt) + i));
        memcpy(out + i, w, n - i < 8 ? n - i : 8);
    }
}

/* A P2PK output (OP_DATA_32 <x-only key> OP_CHECKSIG, version 0). */
static kd_err add_p2pk_output(kd_ktx *tx, uint64_t salt, uint64_t value)
{
    uint8_t script[34];
    script[0] = 0x20;
    fill_random(salt, script + 1, 32);
    script[33] = 0xac;
    return kd_ktx_add_output(tx, value, 0, script, sizeof script);
}

/* The inputs and outputs of a native tx, a function of `salt`: one or two
 * inputs (OP_DATA_65 <64-byte signature> SIGHASH_ALL), sequences that
 * are 2^64-1 for every other salt, and a payment plus change. */
static kd_err fill_tx(kd_ktx *tx, uint64_t salt)
{
    kd_err err = KD_OK;
    size_t n_inputs = 1 + (mix64(salt ^ 0x1f) % 2);
    for (size_t i = 0; i < n_inputs && !err; i++) {
        kd_ktx_outpoint prev = {.index = (uint32_t)(mix64(salt + 100 + i) % 4)};
        fill_random(salt * 31 + i, prev.txid, sizeof prev.txid);
        uint64_t seq = (salt + i) % 2 ? UINT64_MAX : mix64(salt ^ (0x5e9u + i));
        uint8_t sig[66];
        sig[0] = 0x41;
        fill_random(salt * 37 + i, sig + 1, 64);
        sig[65] = 0x01;
        if (!(err = kd_ktx_add_input(tx, &prev, seq, 1)))
            err = kd_ktx_set_sig_script(tx, tx->n_inputs - 1, sig, sizeof sig);
    }
    if (!err)
        err = add_p2pk_output(tx, salt * 41, 100000000u + mix64(salt + 7) % 1000000000000u);
    if (!err)
        err = add_p2pk_output(tx, salt * 43, mix64(salt + 9) % 2900000000000000000u);
    return err;
}

/* A tx whose payload is header(prefix, nonce) || body, the nonce ground
 * until the id fits the pattern (want_fit) or does not. */
static kd_err make_tx(const kd_tx_filter *f, uint64_t salt, const uint8_t *body, size_t len, int want_fit, fx_tx *out)
{
    uint8_t *payload = malloc(KD_TX_HEADER_LEN + len);
    kd_err err = payload ? kd_ktx_alloc(&out->tx) : KD_ERR_NOMEM;
    if (!err) {
        memcpy(payload + KD_TX_HEADER_LEN, body, len);
        if (!(err = fill_tx(out->tx, salt)))
            err = kd_ktx_set_payload(out->tx, payload, KD_TX_HEADER_LEN + len);
    }
    for (uint32_t nonce = 0; !err; nonce++) {
        kd_tx_header_write(f, nonce, out->tx->payload);
        if ((err = kd_ktx_id(out->tx, out->id)) || kd_tx_filter_id(f, out->id) == want_fit)
            break;
    }
    free(payload);
    if (err) {
        kd_ktx_free(out->tx);
        out->tx = NULL;
    }
    return err;
}

/* A coinbase (subnetwork 01, no inputs): its payload as rusty-kaspa's
 * coinbase payload (blue score, subsidy, the miner's script public key)
 * with the block hash as extra data; one output to the miner. */
static kd_err make_coinbase(const fx_chain *c, const fx_block *blk, fx_tx *out)
{
    uint8_t payload[8 + 8 + 2 + 1 + 34 + KD_HASH_LEN];
    const uint64_t subsidy = 50000000000u;
    for (int i = 0; i < 8; i++) {
        payload[i] = (uint8_t)(blk->daa >> (8 * i));
        payload[8 + i] = (uint8_t)(subsidy >> (8 * i));
    }
    payload[16] = payload[17] = 0;
    payload[18] = 34;
    payload[19] = 0x20;
    fill_random(kd_get_u64be(blk->hash), payload + 20, 32);
    payload[52] = 0xac;
    memcpy(payload + 53, blk->hash, KD_HASH_LEN);
    out->kdapp = 0;
    kd_err err = kd_ktx_alloc(&out->tx);
    if (!err) {
        out->tx->subnetwork_id[0] = 1;
        out->tx->version = c->coinbase_version;
        if (!(err = kd_ktx_add_output(out->tx, subsidy, 0, payload + 19, 34)) &&
            !(err = kd_ktx_set_payload(out->tx, payload, sizeof payload)))
            err = kd_ktx_id(out->tx, out->id);
    }
    if (err) {
        kd_ktx_free(out->tx);
        out->tx = NULL;
    }
    return err;
}

kd_err fx_chain_push_pending(fx_chain *c, const fx_tx *tx)
{
    fx_tx *p = realloc(c->pending, (c->n_pending + 1) * sizeof *p);
    if (!p)
        return KD_ERR_NOMEM;
    c->pending = p;
    c->pending[c->n_pending++] = *tx;
    return KD_OK;
}

/* The game: episode 1, X (alice) wins along the top row. Every command
 * is signed for the counter it is applied at. */
static kd_err make_game(fx_chain *c)
{
    static const struct {
        int row, col, x;
    } moves[] = {{0, 0, 1}, {1, 1, 0}, {0, 1, 1}, {2, 2, 0}, {0, 2, 1}};
    kd_type_table types;
    kd_type_table_init(&types);
    const kd_episode_type *ttt = kd_type_table_find(&types, "tictactoe");
    kd_key alice, bob;
    kd_participants parts = {.count = 2};
    kd_tx_filter f;
    kd_tx_filter_default(&f);
    kd_buf b;
    kd_buf_init(&b);
    kd_err err = ttt ? KD_OK : KD_ERR_UNKNOWN_TYPE;
    if (!err && !(err = kd_key_test("alice", &alice)) && !(err = kd_key_test("bob", &bob))) {
        parts.keys[0] = alice.pub;
        parts.keys[1] = bob.pub;
        kd_consent cs[2]; /* both seats consent, for the chain the fixture node serves */
        if (!(err = kd_consent_sign(&alice, 0, "kaspa:testnet-10", 1, "tictactoe", &parts, NULL, 0, &cs[0])) &&
            !(err = kd_consent_sign(&bob, 1, "kaspa:testnet-10", 1, "tictactoe", &parts, NULL, 0, &cs[1])))
            err = kd_wire_new_episode_consented(1, "tictactoe", &parts, NULL, 0, cs, 2, &b);
    }
    fx_tx tx = {.kdapp = 1};
    if (!err && !(err = make_tx(&f, c->seed * 1000, b.data, b.len, 1, &tx)))
        err = fx_chain_push_pending(c, &tx);
    for (size_t i = 0; !err && i < sizeof moves / sizeof moves[0]; i++) {
        char why[128];
        kd_buf cmd;
        kd_buf_init(&cmd);
        json_t *j =
            json_pack("{s:i, s:i, s:s}", "row", moves[i].row, "col", moves[i].col, "player", moves[i].x ? "X" : "O");
        err = j ? ttt->command_from_json(j, moves[i].x ? 0 : 1, &cmd, why, sizeof why) : KD_ERR_NOMEM;
        json_decref(j);
        b.len = 0;
        if (!err)
            err = kd_wire_signed_command(1, cmd.data, cmd.len, moves[i].x ? &alice : &bob, i, &b);
        kd_buf_fini(&cmd);
        fx_tx t = {.kdapp = 1};
        if (!err && !(err = make_tx(&f, c->seed * 1000 + 1 + i, b.data, b.len, 1, &t)))
            err = fx_chain_push_pending(c, &t);
    }
    kd_buf_fini(&b);
    return err;
}

/* A new block on parent `parent` (-1: genesis) taking the next pending
 * tx: a chain block merging `red` (or -1), or with `side` a block off the
 * chain. */
static kd_err add_block(fx_chain *c, int parent, int red, int side)
{
    if (c->n_blocks == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 64;
        fx_block *p = realloc(c->blocks, cap * sizeof *p);
        int *ch = realloc(c->chain, cap * sizeof *ch);
        if (p)
            c->blocks = p;
        if (ch)
            c->chain = ch;
        if (!p || !ch)
            return KD_ERR_NOMEM;
        c->cap = cap;
    }
    fx_block *blk = &c->blocks[c->n_blocks];
    memset(blk, 0, sizeof *blk);
    blk->parent = parent;
    blk->red = red;
    blk->daa = parent < 0 ? GENESIS_DAA : c->blocks[parent].daa + 1 + (c->branch % 2);
    blk->time_ms = TIME_BASE_MS + blk->daa * 100;
    blk->nonce = c->n_blocks == 0   ? UINT64_MAX
                 : c->n_blocks == 1 ? (uint64_t)1 << 63
                                    : mix64(c->seed * 0x100000001b3ull + c->n_blocks);
    uint8_t seed[8 + 8 + KD_HASH_LEN] = {0};
    kd_put_u64be(seed, c->seed);
    kd_put_u64be(seed + 8, c->branch++);
    if (parent >= 0)
        memcpy(seed + 16, c->blocks[parent].hash, KD_HASH_LEN);
    kd_sha256(seed, sizeof seed, blk->hash);
    blk->txs = calloc(4, sizeof *blk->txs);
    if (!blk->txs)
        return KD_ERR_NOMEM;
    kd_tx_filter f;
    kd_tx_filter_default(&f);
    /* the coinbase: its id may fit the pattern; the listener skips it */
    kd_err cb_err = make_coinbase(c, blk, &blk->txs[0]);
    if (cb_err)
        return cb_err;
    blk->n = 1;
    if (parent >= 0 && c->n_pending) {
        blk->txs[blk->n++] = c->pending[0];
        memmove(c->pending, c->pending + 1, (c->n_pending - 1) * sizeof *c->pending);
        c->n_pending--;
    }
    if (parent >= 0) { /* noise: a foreign prefix fitting the pattern, and ours not fitting it */
        static const uint8_t foreign[] = {1, 2, 3, 4, 0xde, 0xad};
        kd_tx_filter other = f;
        other.prefix = 0x706d6f43u; /* another app's prefix, "Copm" */
        kd_err err = make_tx(&other, c->seed + c->branch, foreign, sizeof foreign, 1, &blk->txs[blk->n]);
        if (!err)
            blk->n++;
        if (!err && blk->n >= 2 && blk->txs[1].kdapp) {
            fx_tx *u = &blk->txs[blk->n]; /* a copy of the kdapp tx that does not fit the pattern */
            const kd_ktx *k = blk->txs[1].tx;
            err = make_tx(&f, c->seed + c->branch + 7, k->payload + KD_TX_HEADER_LEN, k->payload_len - KD_TX_HEADER_LEN,
                          0, u);
            if (!err)
                blk->n++;
        }
        if (err)
            return err;
    }
    blk->on_chain = !side;
    if (!side)
        c->chain[c->chain_len++] = (int)c->n_blocks;
    c->n_blocks++;
    return KD_OK;
}

kd_err fx_chain_init(fx_chain *c, uint64_t seed, uint16_t coinbase_version)
{
    memset(c, 0, sizeof *c);
    c->seed = seed;
    c->coinbase_version = coinbase_version;
    kd_err err = make_game(c);
    if (!err)
        err = add_block(c, -1, -1, 0);
    return err;
}

void fx_chain_fini(fx_chain *c)
{
    for (size_t i = 0; i < c->n_blocks; i++) {
        for (size_t t = 0; t < c->blocks[i].n; t++)
            kd_ktx_free(c->blocks[i].txs[t].tx);
        free(c->blocks[i].txs);
    }
    for (size_t i = 0; i < c->n_pending; i++)
        kd_ktx_free(c->pending[i].tx);
    free(c->pending);
    free(c->blocks);
    free(c->chain);
    memset(c, 0, sizeof *c);
}

void fx_chain_clear_pending(fx_chain *c)
{
    for (size_t i = 0; i < c->n_pending; i++)
        kd_ktx_free(c->pending[i].tx);
    c->n_pending = 0;
}

int fx_chain_sink(const fx_chain *c) { return c->chain[c->chain_len - 1]; }

kd_err fx_chain_grow(fx_chain *c, unsigned n)
{
    kd_err err = KD_OK;
    for (unsigned i = 0; i < n && !err; i++) {
        int red = -1;
        if (c->branch % 3 == 0 && c->n_pending) { /* a side block first, merged as a red */
            red = (int)c->n_blocks;
            err = add_block(c, fx_chain_sink(c), -1, 1);
        }
        if (!err)
            err = add_block(c, fx_chain_sink(c), red, 0);
    }
    return err;
}

kd_err fx_chain_reorg(fx_chain *c, unsigned depth, unsigned n)
{
    if (depth >= c->chain_len)
        return KD_ERR_INVALID_ARG;
    /* the removed bodies' kdapp txs go back to the front of the pool, in order */
    size_t back = 0;
    for (size_t i = c->chain_len - depth; i < c->chain_len; i++) {
        fx_block *b = &c->blocks[c->chain[i]];
        b->on_chain = 0;
        back += b->n > 1 && b->txs[1].kdapp;
        back += b->red >= 0 && c->blocks[b->red].n > 1 && c->blocks[b->red].txs[1].kdapp;
    }
    fx_tx *p = malloc((c->n_pending + back + 1) * sizeof *p);
    if (!p)
        return KD_ERR_NOMEM;
    size_t k = 0;
    for (size_t i = c->chain_len - depth; i < c->chain_len; i++) {
        /* in the order they were accepted: the red a block merged, then its own body */
        const fx_block *b = &c->blocks[c->chain[i]];
        const fx_block *from[2] = {b->red >= 0 ? &c->blocks[b->red] : NULL, b};
        for (int f = 0; f < 2; f++) {
            if (!from[f] || from[f]->n < 2 || !from[f]->txs[1].kdapp)
                continue;
            p[k] = from[f]->txs[1];
            if (kd_ktx_clone(from[f]->txs[1].tx, &p[k].tx)) {
                for (size_t j = 0; j < k; j++)
                    kd_ktx_free(p[j].tx);
                free(p);
                return KD_ERR_NOMEM;
            }
            k++;
        }
    }
    memcpy(p + k, c->pending, c->n_pending * sizeof *p);
    free(c->pending);
    c->pending = p;
    c->n_pending += k;
    c->chain_len -= depth;
    return fx_chain_grow(c, n);
}

int fx_chain_find(const fx_chain *c, const uint8_t hash[KD_HASH_LEN])
{
    for (size_t i = 0; i < c->n_blocks; i++)
        if (!memcmp(c->blocks[i].hash, hash, KD_HASH_LEN))
            return (int)i;
    return -1;
}

void fx_chain_write_script(const fx_chain *c, FILE *out)
{
    kd_tx_filter f;
    kd_tx_filter_default(&f);
    fprintf(out, "# the fixture node's selected chain, genesis to sink\n");
    for (size_t i = 0; i < c->chain_len; i++) {
        const fx_block *b = &c->blocks[c->chain[i]];
        char h[2 * KD_HASH_LEN + 1];
        kd_hex_encode(b->hash, KD_HASH_LEN, h);
        fprintf(out, "{\"accept\": {\"hash\": \"%s\", \"daa\": %llu, \"time\": %llu, \"txs\": [", h,
                (unsigned long long)b->daa, (unsigned long long)b->time_ms);
        const fx_block *merged[2] = {b->parent >= 0 ? &c->blocks[b->parent] : NULL,
                                     b->red >= 0 ? &c->blocks[b->red] : NULL};
        int first = 1;
        for (int m = 0; m < 2; m++)
            for (size_t t = 1; merged[m] && t < merged[m]->n; t++) {
                const fx_tx *tx = &merged[m]->txs[t];
                if (!kd_tx_filter_id(&f, tx->id) || !kd_tx_filter_payload(&f, tx->tx->payload, tx->tx->payload_len))
                    continue;
                char id[2 * KD_HASH_LEN + 1];
                kd_hex_encode(tx->id, KD_HASH_LEN, id);
                fprintf(out, "%s{\"tx_id\": \"%s\", \"payload_hex\": \"", first ? "" : ", ", id);
                for (size_t k = KD_TX_HEADER_LEN; k < tx->tx->payload_len; k++)
                    fprintf(out, "%02x", tx->tx->payload[k]);
                fprintf(out, "\"}");
                first = 0;
            }
        fprintf(out, "]}}\n");
    }
}

/* ------------------------------------------------------------- record */

static json_t *u64_text(uint64_t v)
{
    char s[24];
    snprintf(s, sizeof s, "%llu", (unsigned long long)v);
    return json_string(s);
}

static json_t *tx_record(const fx_tx *t)
{
    const kd_ktx *tx = t->tx;
    uint8_t hash[KD_HASH_LEN];
    if (kd_ktx_hash(tx, 0, hash))
        return NULL;
    json_t *ins = json_array(), *outs = json_array();
    for (size_t i = 0; i < tx->n_inputs; i++) {
        const kd_ktx_input *in = &tx->inputs[i];
        json_array_append_new(ins, json_pack("{s:o, s:i, s:o, s:i}", "transactionId", kd_json_hex(in->prev.txid, 32),
                                             "index", (int)in->prev.index, "sequence", u64_text(in->sequence),
                                             "sigOpCount", (int)in->sig_op_count));
    }
    for (size_t i = 0; i < tx->n_outputs; i++) {
        const kd_ktx_output *o = &tx->outputs[i];
        uint8_t *spk = malloc(o->spk.script_len + 2); /* version (big-endian, as serde writes it) | script */
        if (spk) {
            spk[0] = (uint8_t)(o->spk.version >> 8);
            spk[1] = (uint8_t)o->spk.version;
            memcpy(spk + 2, o->spk.script, o->spk.script_len);
            json_array_append_new(outs, json_pack("{s:o, s:o}", "value", u64_text(o->value), "scriptPublicKey",
                                                  kd_json_hex(spk, o->spk.script_len + 2)));
        }
        free(spk);
    }
    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "transactionId", kd_json_hex(t->id, KD_HASH_LEN),
                     "hash", kd_json_hex(hash, KD_HASH_LEN), "payload", kd_json_hex(tx->payload, tx->payload_len),
                     "lockTime", u64_text(tx->lock_time), "gas", u64_text(tx->gas), "subnetworkId",
                     kd_json_hex(tx->subnetwork_id, KD_KASPA_SUBNET_LEN), "inputs", ins, "outputs", outs);
}

kd_err fx_chain_write_record(const fx_chain *c, FILE *out)
{
    const fx_block *sink = &c->blocks[fx_chain_sink(c)];
    json_t *blocks = json_array(), *chain = json_array();
    kd_err err = blocks && chain ? KD_OK : KD_ERR_NOMEM;
    for (size_t i = 0; !err && i < c->chain_len; i++)
        if (json_array_append_new(chain, kd_json_hex(c->blocks[c->chain[i]].hash, KD_HASH_LEN)))
            err = KD_ERR_NOMEM;
    for (size_t i = 0; !err && i < c->n_blocks; i++) {
        const fx_block *b = &c->blocks[i];
        json_t *txs = json_array(), *blues = json_array(), *reds = json_array();
        if (b->parent >= 0)
            json_array_append_new(blues, kd_json_hex(c->blocks[b->parent].hash, KD_HASH_LEN));
        if (b->red >= 0)
            json_array_append_new(reds, kd_json_hex(c->blocks[b->red].hash, KD_HASH_LEN));
        for (size_t t = 0; t < b->n; t++)
            if (json_array_append_new(txs, tx_record(&b->txs[t])))
                err = KD_ERR_INTERNAL;
        json_t *j =
            json_pack("{s:o, s:o, s:o, s:o, s:o, s:b, s:o, s:o, s:o}", "hash", kd_json_hex(b->hash, KD_HASH_LEN),
                      "daaScore", u64_text(b->daa), "blueScore", u64_text(b->daa), "timestamp", u64_text(b->time_ms),
                      "nonce", u64_text(b->nonce), "isChainBlock", b->on_chain, "mergeSetBlues", blues, "mergeSetReds",
                      reds, "transactions", txs);
        if (!err && json_array_append_new(blocks, j))
            err = KD_ERR_NOMEM;
    }
    json_t *doc = err ? NULL
                      : json_pack("{s:s, s:o, s:o, s:O, s:O}", "network", "testnet-10", "sink",
                                  kd_json_hex(sink->hash, KD_HASH_LEN), "virtualDaaScore", u64_text(sink->daa), "chain",
                                  chain, "blocks", blocks);
    if (!err && !doc)
        err = KD_ERR_NOMEM;
    if (!err && json_dumpf(doc, out, JSON_COMPACT))
        err = KD_ERR_IO;
    json_decref(doc);
    json_decref(chain);
    json_decref(blocks);
    return err;
}
