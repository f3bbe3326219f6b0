/* sim_model.c — the simulator's recompute-from-snapshots oracle (see .h). */
#include "tools/sim/sim_model.h"

#include "engine/chain.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/crypto.h"
#include "kdapp.pb-c.h"

typedef struct {
    uint8_t hash[KD_HASH_LEN];
    uint8_t digest[KD_HASH_LEN];
    int final;
    kd_model_episode *eps; /* sorted by id */
    size_t n_eps;
    uint32_t moves; /* what this block applied */
} snapshot;

struct kd_model {
    const kd_registry *registry;
    char store_chain[KD_CHAIN_MAX]; /* the chain of the store it models: what consents sign */
    kd_sim_verdicts *verdicts;      /* borrowed: the prechecks' verdicts, shared with the generator */
    uint64_t finality;
    uint8_t genesis_digest[KD_HASH_LEN];
    snapshot *chain; /* chain[0] = genesis (no hash), chain[n-1] = tip */
    size_t n_chain, cap_chain;
    uint8_t (*reverted)[KD_HASH_LEN];
    size_t n_reverted, cap_reverted;
    uint8_t (*hashes)[KD_HASH_LEN]; /* scratch for kd_model_chain */
};

static void eps_free(kd_model_episode *eps, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(eps[i].state);
    free(eps);
}

static kd_err eps_copy(const kd_model_episode *src, size_t n, kd_model_episode **out)
{
    kd_model_episode *eps = calloc(n ? n : 1, sizeof *eps);
    if (!eps)
        return KD_ERR_NOMEM;
    for (size_t i = 0; i < n; i++) {
        eps[i] = src[i];
        eps[i].state = malloc(src[i].type->ops->state_size);
        if (!eps[i].state) {
            eps_free(eps, i);
            return KD_ERR_NOMEM;
        }
        memcpy(eps[i].state, src[i].state, src[i].type->ops->state_size);
    }
    *out = eps;
    return KD_OK;
}

void kd_model_outcome_fini(kd_model_outcome *o)
{
    if (!o)
        return;
    free(o->tx_err);
    free(o->tx_code);
    memset(o, 0, sizeof *o);
}

kd_err kd_model_alloc(const kd_registry *registry, uint64_t finality, const uint8_t genesis_digest[KD_HASH_LEN],
                      const char *chain, kd_sim_verdicts *verdicts, kd_model **out)
{
    kd_model *m = calloc(1, sizeof *m);
    if (!m)
        return KD_ERR_NOMEM;
    m->registry = registry;
    m->verdicts = verdicts;
    snprintf(m->store_chain, sizeof m->store_chain, "%s", chain);
    m->finality = finality;
    memcpy(m->genesis_digest, genesis_digest, KD_HASH_LEN);
    m->cap_chain = 64;
    m->chain = calloc(m->cap_chain, sizeof *m->chain);
    if (!m->chain) {
        free(m);
        return KD_ERR_NOMEM;
    }
    memcpy(m->chain[0].digest, genesis_digest, KD_HASH_LEN);
    m->n_chain = 1;
    *out = m;
    return KD_OK;
}

void kd_model_free(kd_model *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->n_chain; i++)
        eps_free(m->chain[i].eps, m->chain[i].n_eps);
    free(m->chain);
    free(m->reverted);
    free(m->hashes);
    free(m);
}

static kd_model_episode *find_ep(kd_model_episode *eps, size_t n, uint32_t id)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (eps[mid].id == id)
            return &eps[mid];
        if (eps[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static ssize_t find_chain(const kd_model *m, const uint8_t *hash)
{
    for (size_t i = m->n_chain; i-- > 1;)
        if (memcmp(m->chain[i].hash, hash, KD_HASH_LEN) == 0)
            return (ssize_t)i;
    return -1;
}

static ssize_t find_reverted(const kd_model *m, const uint8_t *hash)
{
    for (size_t i = 0; i < m->n_reverted; i++)
        if (memcmp(m->reverted[i], hash, KD_HASH_LEN) == 0)
            return (ssize_t)i;
    return -1;
}

int kd_model_was_reverted(const kd_model *m, const uint8_t hash[KD_HASH_LEN]) { return find_reverted(m, hash) >= 0; }

/* Inserts a new episode keeping the array sorted. */
static kd_err insert_ep(snapshot *s, const kd_model_episode *ep)
{
    kd_model_episode *p = realloc(s->eps, (s->n_eps + 1) * sizeof *p);
    if (!p)
        return KD_ERR_NOMEM;
    s->eps = p;
    size_t at = 0;
    while (at < s->n_eps && s->eps[at].id < ep->id)
        at++;
    memmove(&s->eps[at + 1], &s->eps[at], (s->n_eps - at) * sizeof *p);
    s->eps[at] = *ep;
    s->n_eps++;
    return KD_OK;
}

/* Whether a creation carries the consents the rules need: every consent
 * names a distinct seat below the count and verifies over the creation
 * digest on the model's chain, and every seat has one (the model's
 * creations name every seat: none is open). */
static int model_consented(const kd_model *m, const Kdapp__EpisodeMessage *em, const kd_participants *parts)
{
    const Kdapp__NewEpisode *ne = em->new_episode;
    uint32_t seen = 0;
    uint8_t digest[KD_HASH_LEN];
    kd_creation_digest(m->store_chain, em->episode_id, ne->episode_type, parts, ne->params.data, ne->params.len,
                       ne->join_timeout, digest);
    for (size_t i = 0; i < ne->n_consents; i++) {
        uint32_t seat = ne->consents[i]->seat;
        if (seat >= parts->count || (seen >> seat & 1))
            return 0;
        seen |= UINT32_C(1) << seat;
    }
    for (size_t i = 0; i < ne->n_consents; i++) {
        const Kdapp__SeatConsent *c = ne->consents[i];
        if (kd_sig_verify(&parts->keys[c->seat], digest, c->signature.data, c->signature.len) != KD_OK)
            return 0;
    }
    uint32_t all = parts->count >= 32 ? UINT32_MAX : (UINT32_C(1) << parts->count) - 1;
    return (all & ~seen) == 0;
}

/* The engine's rules for one transaction, recomputed. Returns the verdict
 * in *verdict and the episode it changed in *touched (0 = none); only
 * allocation failures are returned. */
static kd_err model_verdict(kd_model *m, snapshot *s, const Kdapp__BlockAccepted *ba, const Kdapp__Tx *tx,
                            uint32_t *touched, kd_err *verdict, kd_reject *rej);

/* The same, with the short code the verdict is stored under in `code`
 * (kd_reject_code: a type's rule code for KD_ERR_RULE; "" when applied). */
static kd_err model_tx(kd_model *m, snapshot *s, const Kdapp__BlockAccepted *ba, const Kdapp__Tx *tx, uint32_t *touched,
                       kd_err *verdict, char code[KD_RULE_CODE_MAX])
{
    kd_reject rej = {{0}, {0}};
    kd_err err = model_verdict(m, s, ba, tx, touched, verdict, &rej);
    snprintf(code, KD_RULE_CODE_MAX, "%s", *verdict ? kd_reject_code(*verdict, &rej) : "");
    return err;
}

static kd_err model_verdict(kd_model *m, snapshot *s, const Kdapp__BlockAccepted *ba, const Kdapp__Tx *tx,
                            uint32_t *touched, kd_err *verdict, kd_reject *rej)
{
    *verdict = KD_OK;
    if (tx->tx_id.len != KD_HASH_LEN) {
        *verdict = KD_ERR_DECODE;
        return KD_OK;
    }
    Kdapp__EpisodeMessage *em = kdapp__episode_message__unpack(NULL, tx->payload.len, tx->payload.data);
    if (!em) {
        *verdict = KD_ERR_DECODE;
        return KD_OK;
    }
    kd_err err = KD_OK;
    kd_block_meta meta = {.block_hash = ba->accepting_hash.data,
                          .daa = ba->accepting_daa,
                          .time_ms = ba->accepting_time,
                          .tx_id = tx->tx_id.data,
                          .episode_id = em->episode_id};
    kd_model_episode *ep = find_ep(s->eps, s->n_eps, em->episode_id);
    if (em->body_case == KDAPP__EPISODE_MESSAGE__BODY_NEW_EPISODE) {
        const Kdapp__NewEpisode *ne = em->new_episode;
        const kd_registry_entry *type = kd_registry_find(m->registry, ne->episode_type ? ne->episode_type : "");
        kd_participants parts = {.count = 0};
        int parts_ok = ne->n_participants >= 1 && ne->n_participants <= KD_MAX_PARTICIPANTS;
        for (size_t i = 0; parts_ok && i < ne->n_participants; i++) {
            parts_ok = ne->participants[i].len == KD_PUBKEY_LEN;
            if (parts_ok) {
                memcpy(parts.keys[i].bytes, ne->participants[i].data, KD_PUBKEY_LEN);
                parts_ok = kd_pubkey_check(&parts.keys[i]) == KD_OK;
            }
        }
        parts.count = ne->n_participants;
        kd_buf eff;
        kd_buf_init(&eff);
        kd_model_episode fresh = {.id = em->episode_id, .type = type};
        if (em->episode_id == 0)
            *verdict = KD_ERR_BAD_EPISODE_ID;
        else if (ep)
            *verdict = KD_ERR_EPISODE_EXISTS;
        else if (!type)
            *verdict = KD_ERR_UNKNOWN_TYPE;
        else if (!parts_ok)
            *verdict = KD_ERR_BAD_PARTICIPANTS;
        else if (!model_consented(m, em, &parts))
            *verdict = KD_ERR_NO_CONSENT;
        else if ((*verdict = type->ops->resolve_params(type->config, ne->params.data, ne->params.len, &eff, rej)))
            ;
        else if (!(fresh.state = calloc(1, type->ops->state_size)))
            err = KD_ERR_NOMEM;
        else if ((*verdict = type->ops->init(fresh.state, &parts, eff.data, eff.len, &meta, rej)))
            ;
        else {
            fresh.participants = parts;
            err = insert_ep(s, &fresh);
            if (!err) {
                fresh.state = NULL; /* owned by the snapshot now */
                *touched = em->episode_id;
            }
        }
        free(fresh.state);
        kd_buf_fini(&eff);
    } else if (em->body_case == KDAPP__EPISODE_MESSAGE__BODY_SIGNED_COMMAND ||
               em->body_case == KDAPP__EPISODE_MESSAGE__BODY_UNSIGNED_COMMAND) {
        const ProtobufCBinaryData *cmd = em->body_case == KDAPP__EPISODE_MESSAGE__BODY_SIGNED_COMMAND
                                             ? &em->signed_command->command
                                             : &em->unsigned_command->command;
        kd_pubkey pk;
        const kd_pubkey *signer = NULL;
        int stale = 0; /* authentic, signed for an earlier move */
        if (!ep) {
            *verdict = KD_ERR_UNKNOWN_EPISODE;
        } else if (em->body_case == KDAPP__EPISODE_MESSAGE__BODY_SIGNED_COMMAND) {
            const Kdapp__SignedCommand *sc = em->signed_command;
            if (sc->pubkey.len != KD_PUBKEY_LEN) {
                *verdict = KD_ERR_BAD_PUBKEY;
            } else {
                memcpy(pk.bytes, sc->pubkey.data, KD_PUBKEY_LEN);
                uint8_t digest[KD_HASH_LEN];
                kd_command_digest(ep->id, ep->counter, cmd->data, cmd->len, digest);
                *verdict = kd_sig_verify(&pk, digest, sc->signature.data, sc->signature.len);
                signer = &pk;
                /* Signed for one of the KD_STALE_WINDOW moves before? */
                for (uint64_t c = ep->counter;
                     *verdict == KD_ERR_BAD_SIGNATURE && c > 0 && ep->counter - c < KD_STALE_WINDOW && !stale;) {
                    kd_command_digest(ep->id, --c, cmd->data, cmd->len, digest);
                    stale = kd_sig_verify(&pk, digest, sc->signature.data, sc->signature.len) == KD_OK;
                }
                if (stale)
                    *verdict = KD_OK;
            }
        }
        if (ep && *verdict == KD_OK) {
            const kd_episode_ops *ops = ep->type->ops;
            uint8_t *work = malloc(ops->state_size), *undo = calloc(1, ops->undo_size);
            kd_precheck pc;
            if (!work || !undo) {
                err = KD_ERR_NOMEM;
            } else if (!(err = kd_sim_verdict(m->verdicts, ops, ep->state, cmd->data, cmd->len, signer, &meta, &pc))) {
                memcpy(work, ep->state, ops->state_size);
                *verdict = ops->execute(work, cmd->data, cmd->len, signer, &meta, undo, rej);
                if (*verdict == KD_OK && stale) /* never applied: the rules alone would take it */
                    *verdict = KD_ERR_STALE_COMMAND;
                else if (*verdict == KD_OK) {
                    memcpy(ep->state, work, ops->state_size);
                    ep->counter++;
                    s->moves++;
                    *touched = em->episode_id;
                }
            }
            free(work);
            free(undo);
        }
    } else {
        *verdict = KD_ERR_DECODE;
    }
    kdapp__episode_message__free_unpacked(em, NULL);
    return err;
}

static kd_err model_accept(kd_model *m, const Kdapp__BlockAccepted *ba, kd_model_outcome *out)
{
    if (ba->accepting_hash.len != KD_HASH_LEN) {
        out->status = KD_MSG_REFUSED;
        out->err = KD_ERR_BAD_HASH;
        return KD_OK;
    }
    if (find_chain(m, ba->accepting_hash.data) >= 0) {
        out->status = KD_MSG_DUPLICATE;
        return KD_OK;
    }
    if (m->n_chain == m->cap_chain) {
        snapshot *p = realloc(m->chain, 2 * m->cap_chain * sizeof *p);
        if (!p)
            return KD_ERR_NOMEM;
        m->chain = p;
        m->cap_chain *= 2;
    }
    const snapshot *top = &m->chain[m->n_chain - 1];
    snapshot next = {0};
    memcpy(next.hash, ba->accepting_hash.data, KD_HASH_LEN);
    kd_err err = eps_copy(top->eps, top->n_eps, &next.eps);
    if (err)
        return err;
    next.n_eps = top->n_eps;
    out->tx_err = calloc(ba->n_txs ? ba->n_txs : 1, sizeof *out->tx_err);
    if (!out->tx_err) {
        eps_free(next.eps, next.n_eps);
        return KD_ERR_NOMEM;
    }
    out->tx_code = calloc(ba->n_txs ? ba->n_txs : 1, sizeof *out->tx_code);
    if (!out->tx_code) {
        eps_free(next.eps, next.n_eps);
        return KD_ERR_NOMEM;
    }
    out->tx_count = ba->n_txs;
    /* touched ids, to hash in id order like the engine */
    uint32_t *touched = calloc(ba->n_txs ? ba->n_txs : 1, sizeof *touched);
    size_t n_touched = 0;
    if (!touched) {
        eps_free(next.eps, next.n_eps);
        return KD_ERR_NOMEM;
    }
    for (size_t i = 0; i < ba->n_txs && !err; i++) {
        uint32_t id = 0;
        err = model_tx(m, &next, ba, ba->txs[i], &id, &out->tx_err[i], out->tx_code[i]);
        if (id) {
            size_t k = 0;
            while (k < n_touched && touched[k] != id)
                k++;
            if (k == n_touched)
                touched[n_touched++] = id;
        }
    }
    if (err) {
        free(touched);
        eps_free(next.eps, next.n_eps);
        return err;
    }
    /* D(B) = SHA-256(D(P) || B || (id || SHA-256(state)) for touched ids ascending) */
    for (size_t a = 0; a < n_touched; a++)
        for (size_t b = a + 1; b < n_touched; b++)
            if (touched[b] < touched[a]) {
                uint32_t t = touched[a];
                touched[a] = touched[b];
                touched[b] = t;
            }
    kd_sha256_ctx sha;
    if ((err = kd_sha256_init(&sha)) == KD_OK) {
        kd_sha256_update(&sha, top->digest, KD_HASH_LEN);
        kd_sha256_update(&sha, next.hash, KD_HASH_LEN);
        kd_buf enc;
        kd_buf_init(&enc);
        for (size_t i = 0; i < n_touched && !err; i++) {
            kd_model_episode *ep = find_ep(next.eps, next.n_eps, touched[i]);
            uint8_t id_be[4], h[KD_HASH_LEN];
            kd_put_u32be(id_be, touched[i]);
            enc.len = 0;
            err = ep->type->ops->encode_state(ep->state, &enc);
            kd_sha256(enc.data, enc.len, h);
            kd_sha256_update(&sha, id_be, 4);
            kd_sha256_update(&sha, h, KD_HASH_LEN);
        }
        kd_buf_fini(&enc);
        kd_sha256_final(&sha, next.digest);
    }
    kd_sha256_fini(&sha);
    free(touched);
    if (err) {
        eps_free(next.eps, next.n_eps);
        return err;
    }
    m->chain[m->n_chain++] = next;
    /* The block `finality` below the new one becomes final. */
    size_t height = m->n_chain - 1;
    if (height > m->finality)
        m->chain[height - m->finality].final = 1;
    ssize_t r = find_reverted(m, next.hash);
    if (r >= 0)
        memcpy(m->reverted[r], m->reverted[--m->n_reverted], KD_HASH_LEN);
    out->status = KD_MSG_APPLIED;
    out->moves_applied = next.moves;
    return KD_OK;
}

static kd_err model_revert(kd_model *m, const Kdapp__BlockReverted *br, kd_model_outcome *out)
{
    out->status = KD_MSG_REFUSED;
    if (br->accepting_hash.len != KD_HASH_LEN) {
        out->err = KD_ERR_BAD_HASH;
        return KD_OK;
    }
    ssize_t at = find_chain(m, br->accepting_hash.data);
    if (at < 0) {
        if (find_reverted(m, br->accepting_hash.data) >= 0)
            out->status = KD_MSG_DUPLICATE;
        else
            out->err = KD_ERR_UNKNOWN_BLOCK;
        return KD_OK;
    }
    if ((size_t)at != m->n_chain - 1) {
        out->err = KD_ERR_NOT_TIP;
        return KD_OK;
    }
    snapshot *tip = &m->chain[at];
    if (tip->final) {
        out->err = KD_ERR_BEYOND_FINALITY;
        return KD_OK;
    }
    if (m->n_reverted == m->cap_reverted) {
        size_t cap = m->cap_reverted ? 2 * m->cap_reverted : 64;
        uint8_t(*p)[KD_HASH_LEN] = realloc(m->reverted, cap * sizeof *p);
        if (!p)
            return KD_ERR_NOMEM;
        m->reverted = p;
        m->cap_reverted = cap;
    }
    memcpy(m->reverted[m->n_reverted++], tip->hash, KD_HASH_LEN);
    out->status = KD_MSG_APPLIED;
    out->moves_rolled_back = tip->moves;
    eps_free(tip->eps, tip->n_eps);
    m->n_chain--;
    return KD_OK;
}

kd_err kd_model_ingest(kd_model *m, const uint8_t *msg, size_t len, kd_model_outcome *out)
{
    memset(out, 0, sizeof *out);
    Kdapp__EngineMsg *em = kdapp__engine_msg__unpack(NULL, len, msg);
    if (!em)
        return KD_ERR_DECODE;
    kd_err err = KD_ERR_DECODE;
    if (em->kind_case == KDAPP__ENGINE_MSG__KIND_ACCEPTED)
        err = model_accept(m, em->accepted, out);
    else if (em->kind_case == KDAPP__ENGINE_MSG__KIND_REVERTED)
        err = model_revert(m, em->reverted, out);
    kdapp__engine_msg__free_unpacked(em, NULL);
    return err;
}

void kd_model_tip(const kd_model *m, uint8_t digest[KD_HASH_LEN], uint64_t *height)
{
    memcpy(digest, m->chain[m->n_chain - 1].digest, KD_HASH_LEN);
    *height = m->n_chain - 1;
}

const kd_model_episode *kd_model_episodes(const kd_model *m, size_t *count)
{
    *count = m->chain[m->n_chain - 1].n_eps;
    return m->chain[m->n_chain - 1].eps;
}

size_t kd_model_chain(const kd_model *m, const uint8_t (**hashes)[KD_HASH_LEN])
{
    kd_model *mm = (kd_model *)m;
    free(mm->hashes);
    mm->hashes = calloc(m->n_chain, KD_HASH_LEN);
    if (!mm->hashes)
        return 0;
    for (size_t i = 1; i < m->n_chain; i++)
        memcpy(mm->hashes[i - 1], m->chain[i].hash, KD_HASH_LEN);
    *hashes = (const uint8_t(*)[KD_HASH_LEN])mm->hashes;
    return m->n_chain - 1;
}
