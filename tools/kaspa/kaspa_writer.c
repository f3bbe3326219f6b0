/*
 * kaspa_writer.c — kdapp commands as transactions on a kaspad node
 * (kaspa_writer.h): who pays and within which budget, the pending list
 * that chains commands on unconfirmed change, the submission that never
 * pays twice, and the transactions clients pay for themselves.
 */
#include "tools/kaspa/kaspa_writer.h"

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/bytes.h"
#include "engine/logger.h"
#include "engine/netutil.h"
#include "kdapp.pb-c.h"
#include "tools/kaspa/kaspa_wallet.h"
#include "tools/listen/kaspa_rpc.h"

#define DEFAULT_TIMEOUT_MS 10000u
#define DEFAULT_RETRY_MS 20000u
#define DEFAULT_GRACE_MS 30000u

/* One of our transactions the node has not settled. */
typedef struct {
    uint8_t id[KD_KASPA_HASH_LEN];
    kd_ktx_outpoint *ins; /* owned */
    size_t n_ins;
    int has_change;
    kd_kutxo change; /* spk borrowed from the payer */
    uint64_t last_seen_ms;
} pend;

typedef struct {
    char name[KD_KLEDGER_NAME_MAX]; /* the key's name or reference, for messages and the ledger */
    char address[KD_KADDR_TEXT_MAX];
    kd_key key;
    kd_kaddr addr;
    uint8_t script[KD_KSPK_SCRIPT_MAX];
    size_t script_len;
    pend *pending;
    size_t n_pending;
} payer;

struct kd_kwriter {
    kd_kwriter_options o;
    char *rpc_url, *network, *keys_dir;
    payer **payers; /* owned; the funding wallet (if any) is funding_ix */
    size_t n_payers;
    long funding_ix;
    kd_wrpc *c;
    kd_kaspa_net net;
    pthread_mutex_t mu;
    kd_kwriter_stats stats;
    kd_kledger ledger; /* what the wallets paid; the budgets' counts */
    char *ledger_path; /* NULL: kept in memory only */
    int ledger_dirty;  /* refusals counted since the last save */
};

static uint32_t timeout_of(const kd_kwriter *w) { return w->o.timeout_ms ? w->o.timeout_ms : DEFAULT_TIMEOUT_MS; }

static void sleep_ms(uint32_t ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void hex_id(const uint8_t id[KD_KASPA_HASH_LEN], char out[2 * KD_KASPA_HASH_LEN + 1])
{
    kd_hex_encode(id, KD_KASPA_HASH_LEN, out);
}

/* ------------------------------------------------------------ payers */

static void pend_fini(pend *p) { free(p->ins); }

static void payer_free(payer *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->n_pending; i++)
        pend_fini(&p->pending[i]);
    free(p->pending);
    memset(&p->key, 0, sizeof p->key);
    free(p);
}

static kd_err payer_add(kd_kwriter *w, const char *name, const kd_key *key, payer **out)
{
    payer **grown = realloc(w->payers, (w->n_payers + 1) * sizeof *grown);
    if (!grown)
        return KD_ERR_NOMEM;
    w->payers = grown;
    payer *p = calloc(1, sizeof *p);
    if (!p)
        return KD_ERR_NOMEM;
    p->key = *key;
    snprintf(p->name, sizeof p->name, "%s", name);
    kd_kaddr_of_key(key, w->net, &p->addr);
    if (kd_kaddr_encode(&p->addr, p->address) || kd_kaddr_to_script(&p->addr, p->script, &p->script_len)) {
        payer_free(p);
        return KD_ERR_INTERNAL;
    }
    w->payers[w->n_payers++] = p;
    *out = p;
    return KD_OK;
}

static payer *payer_of_pub(kd_kwriter *w, const uint8_t *pub, size_t len)
{
    for (size_t i = 0; i < w->n_payers; i++)
        if ((long)i != w->funding_ix && len == sizeof w->payers[i]->key.pub &&
            !memcmp(&w->payers[i]->key.pub, pub, len))
            return w->payers[i];
    return NULL;
}

/* Finds the key of `pub` in the key directory: 1 with *key and `name` set
 * (wipe the key), 0 when the directory holds none. */
static int find_in_dir(const kd_kwriter *w, const uint8_t *pub, size_t len, kd_key *key, char name[KD_KLEDGER_NAME_MAX])
{
    DIR *d = w->keys_dir && len == sizeof key->pub ? opendir(w->keys_dir) : NULL;
    if (!d)
        return 0;
    int found = 0;
    struct dirent *e;
    while (!found && (e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n <= 4 || n - 4 >= KD_KLEDGER_NAME_MAX || strcmp(e->d_name + n - 4, ".key"))
            continue;
        snprintf(name, KD_KLEDGER_NAME_MAX, "%.*s", (int)(n - 4), e->d_name);
        char why[256];
        if (kd_key_load(w->keys_dir, name, key, why, sizeof why))
            continue;
        found = !memcmp(&key->pub, pub, len);
        if (!found)
            memset(key, 0, sizeof *key);
    }
    closedir(d);
    return found;
}

/* The payer of `pub`: one already known, or its key in the key directory,
 * added as a payer; NULL when neither holds it. */
static payer *payer_find(kd_kwriter *w, const uint8_t *pub, size_t len)
{
    payer *p = payer_of_pub(w, pub, len);
    kd_key key;
    char name[KD_KLEDGER_NAME_MAX];
    if (!p && find_in_dir(w, pub, len, &key, name) && payer_add(w, name, &key, &p))
        p = NULL;
    memset(&key, 0, sizeof key);
    return p;
}

/* Whether `spend` lets the funding wallet pay: the owner's requests, and
 * those that name a grant. */
static int funding_may_pay(const kd_chain_spend *spend)
{
    return !spend || spend->kind == KD_SPEND_OWNER || spend->grant[0];
}

/* The name the funding wallet's budget per grant is kept under. */
static const char *grant_of_spend(const kd_chain_spend *spend)
{
    return !spend || spend->kind == KD_SPEND_OWNER ? "(owner)" : spend->grant;
}

static payer *funding_of(kd_kwriter *w) { return w->funding_ix >= 0 ? w->payers[w->funding_ix] : NULL; }

/* Counts a refusal (saved with the next payment, or at close). */
static kd_err refused(kd_kwriter *w, kd_krefuse reason, kd_err err)
{
    w->ledger.refused[reason]++;
    w->ledger_dirty = 1;
    return err;
}

/* What keys a message names as its payer: a signed command's signer, a
 * join's joiner, a cancel's signer, or a creation's participants (the first
 * is the owner's payer; a session's is the first it may spend; an open
 * seat's is empty and pays nothing). */
typedef struct {
    Kdapp__EpisodeMessage *em;
    const ProtobufCBinaryData *keys;
    size_t n;
    const char *whose;
} named_keys;

static void named_keys_of(const uint8_t *message, size_t len, named_keys *k)
{
    memset(k, 0, sizeof *k);
    k->em = kdapp__episode_message__unpack(NULL, len, message);
    k->whose = "";
    if (k->em && k->em->body_case == KDAPP__EPISODE_MESSAGE__BODY_SIGNED_COMMAND && k->em->signed_command) {
        k->keys = &k->em->signed_command->pubkey;
        k->n = 1;
        k->whose = "the command's signer";
    } else if (k->em && k->em->body_case == KDAPP__EPISODE_MESSAGE__BODY_JOIN && k->em->join) {
        k->keys = &k->em->join->pubkey;
        k->n = 1;
        k->whose = "the joiner";
    } else if (k->em && k->em->body_case == KDAPP__EPISODE_MESSAGE__BODY_CANCEL && k->em->cancel) {
        k->keys = &k->em->cancel->pubkey;
        k->n = 1;
        k->whose = "the table's canceller";
    } else if (k->em && k->em->body_case == KDAPP__EPISODE_MESSAGE__BODY_NEW_EPISODE && k->em->new_episode) {
        k->keys = k->em->new_episode->participants;
        k->n = k->em->new_episode->n_participants;
        k->whose = "the creation's first participant";
    }
}

/* The refusal of a request that may not spend: it names the wallets it
 * would have been (the key of the message in the key directory, the
 * funding wallet) and why not. */
static kd_err refuse_unpaid(kd_kwriter *w, const kd_chain_spend *spend, const named_keys *k, char *why, size_t why_len)
{
    char hex[2 * KD_PUBKEY_LEN + 1] = "", key_part[KD_KLEDGER_NAME_MAX + KD_KADDR_TEXT_MAX + 160] = "";
    char fund_part[KD_KLEDGER_NAME_MAX + KD_KADDR_TEXT_MAX + 160] = "";
    const payer *f = funding_of(w);
    if (k->n && k->keys[0].len == KD_PUBKEY_LEN)
        kd_hex_encode(k->keys[0].data, KD_PUBKEY_LEN, hex);
    if (hex[0] && spend && spend->kind != KD_SPEND_OWNER) {
        kd_key key;
        char name[KD_KLEDGER_NAME_MAX];
        const payer *known = payer_of_pub(w, k->keys[0].data, KD_PUBKEY_LEN);
        if (known)
            snprintf(key_part, sizeof key_part, " %s, the key %s (%s), pays only for a session granted it;", k->whose,
                     known->name, known->address);
        else if (find_in_dir(w, k->keys[0].data, KD_PUBKEY_LEN, &key, name))
            snprintf(key_part, sizeof key_part,
                     " %s, the key %s of the key directory, pays only for a session granted it;", k->whose, name);
        memset(&key, 0, sizeof key);
    }
    if (f)
        snprintf(fund_part, sizeof fund_part, " the funding wallet %s (%s) pays only for sessions that hold a grant",
                 f->name, f->address);
    if (spend && spend->kind != KD_SPEND_OWNER && !spend->grant[0])
        return refused(w, KD_KREFUSE_NO_GRANT,
                       kd_kaspa_why(KD_ERR_DENIED, why, why_len,
                                    "no wallet pays for this command: the session that asked holds no grant, so "
                                    "nobody's coins pay for it:%s%s. A client pays for its own commands with a "
                                    "Kaspa transaction it builds, signs and pays for itself",
                                    key_part, fund_part[0] ? fund_part : " no funding wallet was given"));
    if (!hex[0])
        return refused(w, KD_KREFUSE_NO_PAYER,
                       kd_kaspa_why(KD_ERR_DENIED, why, why_len,
                                    "no key pays for this command: it names no signer and no --funding wallet was "
                                    "given (give --funding NAME)"));
    return refused(w, KD_KREFUSE_NO_PAYER,
                   kd_kaspa_why(KD_ERR_DENIED, why, why_len,
                                "no key pays for this command: %s %s is not a key of %s%s and no --funding wallet "
                                "was given (give --funding NAME, or put the seat's key in the key directory)",
                                k->whose, hex, w->keys_dir ? w->keys_dir : "the key directory",
                                spend && spend->kind != KD_SPEND_OWNER ? " that the request may spend" : ""));
}

/* Who pays for `message` asked for by `spend` (kaspa_writer.h "Who pays"). */
static kd_err choose_payer(kd_kwriter *w, const uint8_t *message, size_t len, const kd_chain_spend *spend, payer **out,
                           char *why, size_t why_len)
{
    named_keys k;
    named_keys_of(message, len, &k);
    int owner = !spend || spend->kind == KD_SPEND_OWNER;
    payer *p = NULL;
    /* the owner: the first key named; a session or duty: the first it may spend */
    for (size_t i = 0; !p && i < (owner && k.n ? 1 : k.n); i++)
        if (k.keys[i].len == KD_PUBKEY_LEN && (owner || kd_chain_spend_has(spend, k.keys[i].data, k.keys[i].len)))
            p = payer_find(w, k.keys[i].data, k.keys[i].len);
    /* a duty for a command another key signed (the house sending again a
     * player's dropped ask it answered): the duty's own key */
    for (size_t i = 0; !p && spend && spend->kind == KD_SPEND_DUTY && i < spend->n_keys; i++)
        p = payer_find(w, spend->keys[i].bytes, KD_PUBKEY_LEN);
    if (!p && funding_may_pay(spend))
        p = funding_of(w);
    kd_err err = p ? KD_OK : refuse_unpaid(w, spend, &k, why, why_len);
    if (k.em)
        kdapp__episode_message__free_unpacked(k.em, NULL);
    *out = p;
    return err;
}

/* ------------------------------------------------------------ node */

static kd_err ensure_connected(kd_kwriter *w, char *why, size_t why_len)
{
    if (w->c && kd_wrpc_connected(w->c))
        return KD_OK;
    if (w->c)
        return kd_wrpc_reconnect(w->c, timeout_of(w), why, why_len);
    return kd_kwallet_connect(w->rpc_url, w->network, timeout_of(w), &w->c, &w->net, NULL, why, why_len);
}

/* Asks whether the node's mempool holds `id`: *held 1 or 0. Errors: the
 * connection's. */
static kd_err mempool_holds(kd_kwriter *w, const uint8_t id[KD_KASPA_HASH_LEN], int *held, char *why, size_t why_len)
{
    char hex[2 * KD_KASPA_HASH_LEN + 1];
    hex_id(id, hex);
    json_t *res = NULL, *params = json_pack("{s:s, s:b, s:b}", "transactionId", hex, "includeOrphanPool", 1,
                                            "filterTransactionPool", 0);
    if (!params)
        return KD_ERR_NOMEM;
    kd_err err = kd_wrpc_call(w->c, "getMempoolEntry", params, timeout_of(w), &res, why, why_len);
    json_decref(params);
    json_decref(res);
    *held = !err;
    return err == KD_ERR_NOT_FOUND ? KD_OK : err;
}

static int outpoint_eq(const kd_ktx_outpoint *a, const kd_ktx_outpoint *b)
{
    return a->index == b->index && !memcmp(a->txid, b->txid, KD_KASPA_HASH_LEN);
}

static int in_utxos(const kd_kutxo_list *l, const kd_ktx_outpoint *op)
{
    for (size_t i = 0; i < l->n; i++)
        if (outpoint_eq(&l->utxos[i].outpoint, op))
            return 1;
    return 0;
}

/* 1 when a pending tx of `p` other than `skip` has `op` as its change. */
static int is_pending_change(const payer *p, size_t skip, const kd_ktx_outpoint *op)
{
    for (size_t i = 0; i < p->n_pending; i++)
        if (i != skip && p->pending[i].has_change && outpoint_eq(&p->pending[i].change.outpoint, op))
            return 1;
    return 0;
}

/* Brings the payer's pending list up to date against `utxos` (the
 * header's table), oldest first. */
static kd_err refresh_pending(kd_kwriter *w, payer *p, const kd_kutxo_list *utxos, char *why, size_t why_len)
{
    uint64_t now = kd_now_ms(), grace = w->o.grace_ms ? w->o.grace_ms : DEFAULT_GRACE_MS;
    size_t i = 0;
    while (i < p->n_pending) {
        pend *t = &p->pending[i];
        int held;
        kd_err err = mempool_holds(w, t->id, &held, why, why_len);
        if (err)
            return err;
        int live = 0;
        for (size_t k = 0; k < t->n_ins && !live; k++)
            live = in_utxos(utxos, &t->ins[k]) || is_pending_change(p, i, &t->ins[k]);
        if (held)
            t->last_seen_ms = now;
        int keep = held || (live && now - t->last_seen_ms < grace);
        if (keep) {
            i++;
            continue;
        }
        if (live)
            w->stats.given_back++;
        pend_fini(t);
        memmove(t, t + 1, (p->n_pending - i - 1) * sizeof *t);
        p->n_pending--;
    }
    return KD_OK;
}

/* The coins a new command of `p` may spend (the header's formula) into a
 * new array (free() it; spks borrowed from `utxos` and the payer). */
static kd_err available_coins(const payer *p, const kd_kutxo_list *utxos, kd_kutxo **out, size_t *n)
{
    kd_kutxo *a = calloc(utxos->n + p->n_pending + 1, sizeof *a);
    if (!a)
        return KD_ERR_NOMEM;
    size_t m = 0;
    for (int pass = 0; pass < 2; pass++) {
        size_t count = pass ? p->n_pending : utxos->n;
        for (size_t i = 0; i < count; i++) {
            const kd_kutxo *u = pass ? &p->pending[i].change : &utxos->utxos[i];
            if (pass && !p->pending[i].has_change)
                continue;
            int spent = 0;
            for (size_t j = 0; j < p->n_pending && !spent; j++)
                for (size_t k = 0; k < p->pending[j].n_ins && !spent; k++)
                    spent = outpoint_eq(&p->pending[j].ins[k], &u->outpoint);
            if (!spent)
                a[m++] = *u;
        }
    }
    *out = a;
    *n = m;
    return KD_OK;
}

static kd_err pending_add(payer *p, const kd_kbuild_result *res)
{
    pend *grown = realloc(p->pending, (p->n_pending + 1) * sizeof *grown);
    if (!grown)
        return KD_ERR_NOMEM;
    p->pending = grown;
    pend *t = &p->pending[p->n_pending];
    memset(t, 0, sizeof *t);
    t->ins = calloc(res->tx->n_inputs ? res->tx->n_inputs : 1, sizeof *t->ins);
    if (!t->ins)
        return KD_ERR_NOMEM;
    memcpy(t->id, res->id, KD_KASPA_HASH_LEN);
    for (size_t i = 0; i < res->tx->n_inputs; i++)
        t->ins[i] = res->tx->inputs[i].prev;
    t->n_ins = res->tx->n_inputs;
    if (res->tx->n_outputs) {
        t->has_change = 1;
        memcpy(t->change.outpoint.txid, res->id, KD_KASPA_HASH_LEN);
        t->change.outpoint.index = 0;
        t->change.amount = res->tx->outputs[0].value;
        t->change.spk = (kd_kspk){.version = 0, .script = p->script, .script_len = p->script_len};
    }
    t->last_seen_ms = kd_now_ms();
    p->n_pending++;
    return KD_OK;
}

/* Builds `message`'s transaction for payer `p` from the node's coins now. */
static kd_err build(kd_kwriter *w, payer *p, const uint8_t *message, size_t len, kd_kbuild_result *res, char *why,
                    size_t why_len)
{
    kd_kutxo_list utxos = {0};
    kd_kutxo *coins = NULL;
    size_t n_coins = 0;
    uint64_t rate = w->o.fee_rate;
    kd_err err = kd_kwallet_utxos(w->c, &p->addr, timeout_of(w), &utxos, why, why_len);
    if (!err)
        err = refresh_pending(w, p, &utxos, why, why_len);
    if (!err && !rate)
        err = kd_kwallet_fee_rate(w->c, timeout_of(w), &rate, why, why_len);
    uint64_t daa = 0; /* coinbase maturity is judged at the node's virtual DAA score */
    if (!err)
        err = kd_kwallet_daa_score(w->c, timeout_of(w), &daa, why, why_len);
    if (!err)
        err = available_coins(p, &utxos, &coins, &n_coins);
    uint32_t nonce = 0;
    if (!err && kd_random_bytes((uint8_t *)&nonce, sizeof nonce))
        err = KD_ERR_IO;
    if (!err) {
        w->stats.fee_rate = rate;
        const kd_kbuild_req req = {.utxos = coins,
                                   .n_utxos = n_coins,
                                   .key = &p->key,
                                   .change = &p->addr,
                                   .message = message,
                                   .message_len = len,
                                   .filter = &w->o.filter,
                                   .nonce_start = nonce,
                                   .fee_rate = rate,
                                   .rules = KD_KASPA_RULES_CRESCENDO,
                                   .daa_score = daa,
                                   .has_daa_score = 1};
        char inner[400] = "";
        err = kd_kaspa_build(&req, res, inner, sizeof inner);
        if (err) {
            char addr[KD_KADDR_TEXT_MAX] = "";
            if (kd_kaddr_encode(&p->addr, addr))
                addr[0] = 0;
            kd_kaspa_why(err, why, why_len, "%s (the wallet %s%s)", inner[0] ? inner : kd_err_str(err), addr,
                         p->n_pending ? ", besides the change of its commands the node has not settled yet" : "");
        }
    }
    free(coins);
    kd_kutxo_list_fini(&utxos);
    return err;
}

/* submitTransaction. KD_OK: the node took it. KD_ERR_NOT_FOUND: the node
 * refused it, its words in `node`. Others: the connection's. */
static kd_err submit_once(kd_kwriter *w, const kd_ktx *tx, char *node, size_t node_len)
{
    char *text = NULL, why[200];
    json_t *tj = NULL, *res = NULL;
    kd_err err = kd_ktx_json_render(tx, &text);
    if (!err)
        err = kd_kaspa_json_load(text, strlen(text), &tj, why, sizeof why) ? KD_ERR_INTERNAL : KD_OK;
    free(text);
    json_t *params = err ? NULL : json_pack("{s:o, s:b}", "transaction", tj, "allowOrphan", 0);
    if (!err && !params)
        err = KD_ERR_NOMEM;
    if (!err)
        err = kd_wrpc_call(w->c, "submitTransaction", params, timeout_of(w), &res, node, node_len);
    json_decref(params);
    json_decref(res);
    return err;
}

static int says(const char *node, const char *words) { return strstr(node, words) != NULL; }

/* The node refused because the coins are not (yet) in its UTXO set. */
static int says_orphan(const char *node) { return says(node, "orphan") || says(node, "lacking a matching UTXO"); }

/* The node already holds the tx (in its mempool or accepted). */
static int says_held(const char *node)
{
    return says(node, "already in the mempool") || says(node, "already accepted");
}

/* After a dropped submission of `res` (already pending): asks the node,
 * resends the same transaction, until the node holds it, refuses it, or the
 * time runs out. */
static kd_err settle_unknown(kd_kwriter *w, payer *p, const kd_kbuild_result *res, uint64_t deadline, char *why,
                             size_t why_len)
{
    char hex[2 * KD_KASPA_HASH_LEN + 1], node[KD_KWALLET_NODE_MAX] = "";
    hex_id(res->id, hex);
    uint32_t backoff = 100;
    for (;;) {
        kd_err err = ensure_connected(w, node, sizeof node);
        int held = 0;
        if (!err)
            err = mempool_holds(w, res->id, &held, node, sizeof node);
        if (!err && held) {
            w->stats.recovered++;
            return KD_OK;
        }
        if (!err) {
            w->stats.resent++;
            err = submit_once(w, res->tx, node, sizeof node);
            if (!err || (err == KD_ERR_NOT_FOUND && says_held(node))) {
                if (!err)
                    w->stats.submitted++;
                else
                    w->stats.recovered++;
                return KD_OK;
            }
            if (err == KD_ERR_NOT_FOUND && says_orphan(node)) {
                /* accepted already (its coins are gone), or its parent is not: the UTXOs tell */
                kd_kutxo_list utxos = {0};
                kd_err uerr = kd_kwallet_utxos(w->c, &p->addr, timeout_of(w), &utxos, node, sizeof node);
                int gone = 0;
                for (size_t i = 0; !uerr && i < res->tx->n_inputs && !gone; i++)
                    gone = !in_utxos(&utxos, &res->tx->inputs[i].prev) &&
                           !is_pending_change(p, (size_t)-1, &res->tx->inputs[i].prev);
                kd_kutxo_list_fini(&utxos);
                if (!uerr && gone) {
                    w->stats.recovered++;
                    return KD_OK;
                }
            } else if (err == KD_ERR_NOT_FOUND) {
                /* refused outright: it was never taken, its coins are free */
                p->n_pending--;
                pend_fini(&p->pending[p->n_pending]);
                w->stats.rejected++;
                return kd_kaspa_why(KD_ERR_REJECTED, why, why_len, "the node rejected transaction %s: \"%s\"", hex,
                                    node);
            }
        }
        if (kd_now_ms() + backoff >= deadline)
            return kd_kaspa_why(err == KD_ERR_TIMEOUT ? KD_ERR_TIMEOUT : KD_ERR_NET, why, why_len,
                                "the connection to the node dropped while transaction %s was submitted, and the node "
                                "has not said since whether it holds it (%s); it is kept as pending, so its coins are "
                                "not spent again, and will be resent as it is, never re-signed",
                                hex, node);
        sleep_ms(backoff);
        backoff = backoff < 2000 ? backoff * 2 : 2000;
    }
}

/* Builds `message`'s transaction for *p; the funding wallet builds it
 * instead (*p is then the funding wallet) if `spend` lets it pay and either
 * the seat's own key has no coins to pay with, or the key could pay only by
 * leaving a leftover to the fee (kaspa_build.h) that the funding wallet
 * would not leave. A funding wallet's transaction must fit its budgets
 * (kaspa_ledger.h): else KD_ERR_DENIED naming them. */
static kd_err build_paid(kd_kwriter *w, payer **p, const kd_chain_spend *spend, const uint8_t *message, size_t len,
                         kd_kbuild_result *res, char *why, size_t why_len)
{
    payer *f = funding_of(w);
    kd_err err = build(w, *p, message, len, res, why, why_len);
    int cannot = err == KD_ERR_NOT_FOUND || err == KD_ERR_INSUFFICIENT_FUNDS;
    int stranded = !err && res->leftover_why != KD_KLEFTOVER_NONE && res->leftover_why != KD_KLEFTOVER_DUST;
    if (f && *p != f && (cannot || stranded) && funding_may_pay(spend)) {
        kd_kbuild_result alt = {0};
        char alt_why[KD_KWALLET_WHY_MAX];
        kd_err aerr = build(w, f, message, len, &alt, cannot ? why : alt_why, cannot ? why_len : sizeof alt_why);
        if (cannot || (!aerr && alt.leftover < res->leftover)) {
            kd_kbuild_result_fini(res);
            *res = alt;
            *p = f;
            err = aerr;
        } else {
            kd_kbuild_result_fini(&alt);
        }
    }
    kd_krefuse reason;
    char inner[400];
    if (!err && *p == f &&
        kd_kledger_check(&w->ledger, &w->o.budget, grant_of_spend(spend), res->fee, kd_wall_ms(), &reason, inner,
                         sizeof inner)) {
        kd_kbuild_result_fini(res);
        err = refused(w, reason,
                      kd_kaspa_why(KD_ERR_DENIED, why, why_len, "the funding wallet %s (%s) does not pay for this: %s",
                                   f->name, f->address, inner));
    }
    return err;
}

/* Saves the ledger; a failure is logged, never fatal (the counts stay in
 * memory and the next save tries again). */
static void ledger_save(kd_kwriter *w)
{
    char why[512];
    w->ledger_dirty = 0;
    if (w->ledger_path && kd_kledger_save(w->ledger_path, &w->ledger, why, sizeof why))
        KD_LOG_W("kaspa", "the ledger of payments was not saved: %s", why);
}

/* Counts what `p` paid for a transaction the node took (or may have). */
static void charge(kd_kwriter *w, const payer *p, const kd_chain_spend *spend, uint64_t fee)
{
    kd_kledger_charge(&w->ledger, p->name, p->address, p == funding_of(w), grant_of_spend(spend), fee, kd_wall_ms());
    ledger_save(w);
}

kd_err kd_kwriter_submit(kd_kwriter *w, const uint8_t *message, size_t len, const kd_chain_spend *spend,
                         uint8_t tx_id[KD_KASPA_HASH_LEN], kd_kbuild_result *out, char *why, size_t why_len)
{
    if (out)
        memset(out, 0, sizeof *out);
    pthread_mutex_lock(&w->mu);
    uint64_t deadline = kd_now_ms() + (w->o.retry_ms ? w->o.retry_ms : DEFAULT_RETRY_MS);
    uint32_t backoff = 100;
    payer *p = NULL;
    kd_err err = choose_payer(w, message, len, spend, &p, why, why_len);
    while (!err) {
        kd_kbuild_result res = {0};
        char node[KD_KWALLET_NODE_MAX] = "";
        payer *chosen = p;
        err = ensure_connected(w, why, why_len);
        if (!err)
            err = build_paid(w, &chosen, spend, message, len, &res, why, why_len);
        if (err) {
            kd_kbuild_result_fini(&res);
            if ((err == KD_ERR_NET || err == KD_ERR_TIMEOUT) && kd_now_ms() + backoff < deadline) {
                sleep_ms(backoff);
                backoff = backoff < 2000 ? backoff * 2 : 2000;
                err = KD_OK;
                continue;
            }
            break;
        }
        memcpy(tx_id, res.id, KD_KASPA_HASH_LEN);
        err = submit_once(w, res.tx, node, sizeof node);
        if (!err || (err == KD_ERR_NOT_FOUND && says_held(node))) {
            w->stats.submitted++;
            err = pending_add(chosen, &res);
            charge(w, chosen, spend, res.fee);
        } else if (err == KD_ERR_NOT_FOUND && says_orphan(node) && kd_now_ms() + backoff < deadline) {
            sleep_ms(backoff); /* the previous command's block is not accepted yet: build again */
            backoff = backoff < 2000 ? backoff * 2 : 2000;
            err = KD_OK;
            kd_kbuild_result_fini(&res);
            continue;
        } else if (err == KD_ERR_NOT_FOUND) {
            char hex[2 * KD_KASPA_HASH_LEN + 1];
            hex_id(res.id, hex);
            w->stats.rejected++;
            err = kd_kaspa_why(KD_ERR_REJECTED, why, why_len, "the node rejected transaction %s: \"%s\"", hex, node);
        } else if (err == KD_ERR_NET || err == KD_ERR_TIMEOUT) {
            /* the fate of this transaction is unknown: keep its coins, ask */
            if (!(err = pending_add(chosen, &res)))
                err = settle_unknown(w, chosen, &res, deadline, why, why_len);
            if (err != KD_ERR_REJECTED) /* taken, or perhaps: the budget counts it */
                charge(w, chosen, spend, res.fee);
        }
        if (!err && out) {
            *out = res;
            memset(&res, 0, sizeof res);
        }
        kd_kbuild_result_fini(&res);
        break;
    }
    if (w->ledger_dirty)
        ledger_save(w);
    pthread_mutex_unlock(&w->mu);
    return err;
}

kd_err kd_kwriter_dry_run(kd_kwriter *w, const uint8_t *message, size_t len, char **tx_json, kd_kbuild_result *out,
                          char *why, size_t why_len)
{
    *tx_json = NULL;
    pthread_mutex_lock(&w->mu);
    payer *p = NULL;
    kd_kbuild_result res = {0};
    kd_err err = choose_payer(w, message, len, NULL, &p, why, why_len);
    if (!err)
        err = ensure_connected(w, why, why_len);
    if (!err)
        err = build_paid(w, &p, NULL, message, len, &res, why, why_len);
    if (!err)
        err = kd_ktx_json_render(res.tx, tx_json);
    if (!err && out) {
        *out = res;
        memset(&res, 0, sizeof res);
    }
    kd_kbuild_result_fini(&res);
    pthread_mutex_unlock(&w->mu);
    return err;
}

/* The transaction of a client's JSON (kd_kwriter_submit_tx), checked to be
 * one the listener sees. */
static kd_err client_tx(const kd_kwriter *w, const char *json, size_t len, kd_ktx **tx, uint8_t id[KD_KASPA_HASH_LEN],
                        char *why, size_t why_len)
{
    json_t *root = NULL;
    char inner[300] = "";
    *tx = NULL;
    if (kd_kaspa_json_load(json, len, &root, inner, sizeof inner))
        return kd_kaspa_why(KD_ERR_INVALID_ARG, why, why_len, "the transaction is not JSON: %s", inner);
    json_t *t = json_object_get(root, "transaction");
    kd_err err = kd_ktx_json_parse(json_is_object(t) ? t : root, tx, inner, sizeof inner);
    json_decref(root);
    if (err)
        return kd_kaspa_why(KD_ERR_INVALID_ARG, why, why_len,
                            "the transaction is not the node's JSON of a Kaspa transaction: %s", inner);
    const kd_ktx *x = *tx;
    Kdapp__EpisodeMessage *em = NULL;
    if (!kd_tx_filter_payload(&w->o.filter, x->payload, x->payload_len))
        err = kd_kaspa_why(KD_ERR_INVALID_ARG, why, why_len,
                           "the transaction's payload does not start with this chain's kdapp header (the prefix "
                           "%08x, then a nonce: tools/listen/README.md), so the listener would never read it",
                           (unsigned)w->o.filter.prefix);
    else if (!(em = kdapp__episode_message__unpack(NULL, x->payload_len - KD_TX_HEADER_LEN,
                                                   x->payload + KD_TX_HEADER_LEN)))
        err = kd_kaspa_why(KD_ERR_INVALID_ARG, why, why_len,
                           "the transaction's payload after its 8-byte header is not an EpisodeMessage");
    else if ((err = kd_ktx_id(x, id)))
        err = kd_kaspa_why(err, why, why_len, "cannot compute the transaction's id");
    else if (!kd_tx_filter_id(&w->o.filter, id))
        err = kd_kaspa_why(KD_ERR_INVALID_ARG, why, why_len,
                           "the transaction's id does not fit the listener's pattern, so the listener would never "
                           "read it: grind the payload's nonce until it does (kdapp wallet send --dry-run does)");
    if (em)
        kdapp__episode_message__free_unpacked(em, NULL);
    if (err) {
        kd_ktx_free(*tx);
        *tx = NULL;
    }
    return err;
}

kd_err kd_kwriter_submit_tx(kd_kwriter *w, const char *json, size_t len, uint8_t tx_id[KD_KASPA_HASH_LEN], char *why,
                            size_t why_len)
{
    kd_ktx *tx = NULL;
    kd_err err = client_tx(w, json, len, &tx, tx_id, why, why_len);
    if (err)
        return err;
    pthread_mutex_lock(&w->mu);
    char node[512] = "", hex[2 * KD_KASPA_HASH_LEN + 1];
    hex_id(tx_id, hex);
    if (!(err = ensure_connected(w, why, why_len)))
        err = submit_once(w, tx, node, sizeof node);
    if (!err || (err == KD_ERR_NOT_FOUND && says_held(node))) {
        err = KD_OK;
        w->ledger.client_txs++;
        ledger_save(w);
    } else if (err == KD_ERR_NOT_FOUND) {
        err = kd_kaspa_why(KD_ERR_REJECTED, why, why_len, "the node rejected transaction %s: \"%s\"", hex, node);
    } else if (err == KD_ERR_NET || err == KD_ERR_TIMEOUT) {
        err = kd_kaspa_why(err, why, why_len,
                           "the connection to the node dropped while transaction %s was submitted (%s); send the "
                           "same transaction again: the node takes it at most once",
                           hex, node[0] ? node : kd_err_str(err));
    }
    pthread_mutex_unlock(&w->mu);
    kd_ktx_free(tx);
    return err;
}

void kd_kwriter_ledger(kd_kwriter *w, kd_kledger *out)
{
    pthread_mutex_lock(&w->mu);
    *out = w->ledger;
    pthread_mutex_unlock(&w->mu);
}

void kd_kwriter_stats_get(kd_kwriter *w, kd_kwriter_stats *out)
{
    pthread_mutex_lock(&w->mu);
    *out = w->stats;
    out->pending = 0;
    for (size_t i = 0; i < w->n_payers; i++)
        out->pending += w->payers[i]->n_pending;
    pthread_mutex_unlock(&w->mu);
}

/* ------------------------------------------------------------ open/close */

static kd_err add_ref(kd_kwriter *w, const char *ref, char *why, size_t why_len)
{
    kd_key key;
    kd_err err = kd_key_resolve(w->keys_dir, ref, &key, why, why_len);
    payer *p = NULL;
    if (!err)
        err = payer_add(w, ref, &key, &p);
    memset(&key, 0, sizeof key);
    return err;
}

kd_err kd_kwriter_open(const kd_kwriter_options *o, kd_kwriter **out, char *why, size_t why_len)
{
    *out = NULL;
    kd_kwriter *w = calloc(1, sizeof *w);
    if (!w)
        return KD_ERR_NOMEM;
    w->o = *o;
    w->funding_ix = -1;
    w->rpc_url = o->rpc_url ? strdup(o->rpc_url) : NULL;
    w->network = o->network ? strdup(o->network) : NULL;
    w->keys_dir = o->keys_dir ? strdup(o->keys_dir) : NULL;
    w->ledger_path = o->ledger_path ? strdup(o->ledger_path) : NULL;
    if (!w->o.budget.per_grant && !w->o.budget.per_hour && !w->o.budget.total)
        kd_kbudget_default(&w->o.budget);
    pthread_mutex_init(&w->mu, NULL);
    kd_err err = w->rpc_url && (!o->network || w->network) && (!o->keys_dir || w->keys_dir) &&
                         (!o->ledger_path || w->ledger_path)
                     ? KD_OK
                     : KD_ERR_NOMEM;
    if (!err && w->ledger_path && (err = kd_kledger_load(w->ledger_path, &w->ledger, why, why_len)) == KD_ERR_NOT_FOUND)
        err = KD_OK; /* a first start: every count from zero */
    if (!err)
        err = kd_kwallet_connect(w->rpc_url, w->network, timeout_of(w), &w->c, &w->net, NULL, why, why_len);
    if (!err && o->funding) {
        if (!(err = add_ref(w, o->funding, why, why_len)))
            w->funding_ix = (long)w->n_payers - 1;
    }
    if (!err && o->payers) {
        char *list = strdup(o->payers), *save = NULL;
        err = list ? KD_OK : KD_ERR_NOMEM;
        for (char *ref = list ? strtok_r(list, ",", &save) : NULL; ref && !err; ref = strtok_r(NULL, ",", &save))
            err = add_ref(w, ref, why, why_len);
        free(list);
    }
    if (err) {
        kd_kwriter_close(w);
        return err;
    }
    w->o.rpc_url = w->rpc_url;
    w->o.network = w->network;
    w->o.keys_dir = w->keys_dir;
    w->o.ledger_path = w->ledger_path;
    w->o.funding = w->o.payers = NULL;
    *out = w;
    return KD_OK;
}

void kd_kwriter_close(kd_kwriter *w)
{
    if (!w)
        return;
    if (w->ledger_dirty)
        ledger_save(w);
    kd_wrpc_close(w->c);
    for (size_t i = 0; i < w->n_payers; i++)
        payer_free(w->payers[i]);
    free(w->payers);
    free(w->rpc_url);
    free(w->network);
    free(w->keys_dir);
    free(w->ledger_path);
    pthread_mutex_destroy(&w->mu);
    free(w);
}
