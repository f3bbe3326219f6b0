/*
 * dryrun.c — predicting what transactions would do, changing nothing (the
 * API and its guarantees are in engine.h, "dry run").
 *
 * The dry run keeps its own working set: a copy of each episode it has
 * touched (state, move counter, or the fact that it does not exist), read
 * from the store the first time a transaction names it. Transactions run
 * through engine/rules.c, the same steps the writer takes, against these
 * copies; nothing is written. Every read comes from one read handle, held
 * from alloc to free, so the tip and every episode are of one commit. Creations and
 * commands are the only effects an accepted block has on episodes, so the
 * copies after N transactions are exactly what the writer's working set
 * would hold after the same N.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/rules.h"
#include "engine/txn.h"

typedef struct {
    uint32_t id;
    int exists;
    const kd_episode_ops *ops; /* NULL while it does not exist */
    uint64_t counter;          /* commands applied */
    void *state;               /* owned, ops->state_size bytes; NULL while it does not exist */
} dry_episode;

struct kd_dryrun {
    kd_engine *engine;
    kd_read *rd; /* the commit the prediction builds on */
    kd_tip tip;
    dry_episode *eps;
    size_t n_eps, cap_eps;
    size_t n_txs;     /* transactions run so far (for messages) */
    kd_buf scratch;   /* execute's copy of the state */
    kd_buf undo;      /* the undo record execute fills, then forgets */
    kd_buf effective; /* a creation's resolved parameters */
};

/* The one place a dry run reads the store: episode `id` as committed. */
static kd_err read_committed(kd_dryrun *run, uint32_t id, kd_episode_snapshot *snap)
{
    return kd_read_episode(run->rd, id, snap);
}

kd_err kd_dryrun_alloc(kd_engine *engine, kd_dryrun **out)
{
    kd_dryrun *run = calloc(1, sizeof *run);
    if (!run)
        return KD_ERR_NOMEM;
    run->engine = engine;
    kd_buf_init(&run->scratch);
    kd_buf_init(&run->undo);
    kd_buf_init(&run->effective);
    kd_err err = kd_engine_read_begin(engine, &run->rd);
    if (!err)
        err = kd_read_tip(run->rd, &run->tip);
    if (err) {
        kd_dryrun_free(run);
        return err;
    }
    *out = run;
    return KD_OK;
}

void kd_dryrun_free(kd_dryrun *run)
{
    if (!run)
        return;
    for (size_t i = 0; i < run->n_eps; i++)
        free(run->eps[i].state);
    free(run->eps);
    kd_engine_read_end(run->rd);
    kd_buf_fini(&run->scratch);
    kd_buf_fini(&run->undo);
    kd_buf_fini(&run->effective);
    free(run);
}

const kd_tip *kd_dryrun_tip(const kd_dryrun *run) { return &run->tip; }

/* Episode `id` in the working set, read from the store the first time. */
static kd_err load(kd_dryrun *run, uint32_t id, dry_episode **out)
{
    for (size_t i = 0; i < run->n_eps; i++)
        if (run->eps[i].id == id) {
            *out = &run->eps[i];
            return KD_OK;
        }
    kd_err err = kd_grow_array((void **)&run->eps, &run->cap_eps, run->n_eps + 1, sizeof *run->eps);
    if (err)
        return err;
    dry_episode *ep = &run->eps[run->n_eps];
    memset(ep, 0, sizeof *ep);
    ep->id = id;
    kd_episode_snapshot snap;
    err = read_committed(run, id, &snap);
    if (err && err != KD_ERR_NOT_FOUND)
        return err;
    if (!err) {
        ep->exists = 1;
        ep->ops = snap.ops;
        ep->counter = snap.undo_depth;
        ep->state = snap.state; /* ours now */
        snap.state = NULL;
        kd_episode_snapshot_fini(&snap);
    }
    run->n_eps++;
    *out = ep;
    return KD_OK;
}

static kd_err run_create(void *ctx, const Kdapp__EpisodeMessage *em, const kd_block_meta *meta, kd_tx_result *r)
{
    kd_dryrun *run = ctx;
    dry_episode *ep;
    kd_err err = load(run, em->episode_id, &ep);
    if (err)
        return err;
    kd_participants parts;
    uint32_t open;
    const kd_registry_entry *type = kd_rules_check_create(kd_engine_registry(run->engine), kd_engine_chain(run->engine),
                                                          em, ep->exists, 0, &parts, &open, r);
    if (!type)
        return KD_OK;
    if (open) { /* a table: no episode until its seats are taken */
        r->applied = 1;
        return KD_OK;
    }
    void *state = calloc(1, type->ops->state_size);
    if (!state)
        return KD_ERR_NOMEM;
    run->effective.len = 0;
    int ok;
    err = kd_rules_init(type, em->new_episode->params.data, em->new_episode->params.len, NULL, &parts, meta, state,
                        &run->effective, r, &ok);
    if (err || !ok) {
        free(state);
        return err;
    }
    ep->exists = 1;
    ep->ops = type->ops;
    ep->counter = 0;
    ep->state = state;
    r->applied = 1;
    return KD_OK;
}

static kd_err run_command(void *ctx, const Kdapp__EpisodeMessage *em, const kd_block_meta *meta, kd_tx_result *r)
{
    kd_dryrun *run = ctx;
    dry_episode *ep;
    kd_err err = load(run, em->episode_id, &ep);
    if (err)
        return err;
    if (!ep->exists) {
        kd_rules_reject_missing(ep->id, r);
        return KD_OK;
    }
    const ProtobufCBinaryData *cmd;
    const kd_pubkey *signer;
    kd_pubkey pk;
    uint64_t signed_at;
    kd_auth auth = kd_rules_authorise(em, ep->id, ep->counter, NULL, 0, &pk, &signer, &cmd, &signed_at, r);
    if (auth == KD_AUTH_REFUSED)
        return KD_OK;
    run->undo.len = 0;
    err = kd_buf_reserve(&run->undo, ep->ops->undo_size);
    if (err)
        return err;
    memset(run->undo.data, 0, ep->ops->undo_size);
    if (auth == KD_AUTH_STALE)
        return kd_rules_refuse_stale(ep->ops, ep->state, &run->scratch, cmd, signer, meta, run->undo.data, ep->id,
                                     signed_at, ep->counter, r);
    int ok;
    if ((err =
             kd_rules_execute(ep->ops, ep->state, &run->scratch, cmd, signer, meta, NULL, 0, run->undo.data, r, &ok)) ||
        !ok)
        return err;
    ep->counter++;
    r->applied = 1;
    return KD_OK;
}

/* A join or a cancel: open tables are not in the dry run's copy. */
static kd_err run_table(void *ctx, const Kdapp__EpisodeMessage *em, const kd_block_meta *meta, kd_tx_result *r)
{
    (void)ctx;
    (void)meta;
    kd_txn_reject(r, KD_ERR_UNSUPPORTED, NULL,
                  em->body_case == KDAPP__EPISODE_MESSAGE__BODY_JOIN
                      ? "a dry run does not predict a join: send it (the engine's verdict names what was wrong)"
                      : "a dry run does not predict a cancel: send it");
    return KD_OK;
}

/* One transaction of `ba`, decided as apply.c decides it. */
static kd_err run_tx(kd_dryrun *run, const Kdapp__BlockAccepted *ba, size_t index, kd_tx_result *r)
{
    static const kd_rules_handlers handlers = {.create = run_create, .command = run_command, .table = run_table};
    return kd_rules_run_tx(ba, index, &handlers, run, r);
}

kd_err kd_dryrun_tx(kd_dryrun *run, const kd_block_meta *where, const uint8_t *payload, size_t len, kd_tx_result *out)
{
    Kdapp__Tx tx = KDAPP__TX__INIT;
    tx.tx_id.data = (uint8_t *)where->tx_id;
    tx.tx_id.len = KD_HASH_LEN;
    tx.payload.data = (uint8_t *)payload;
    tx.payload.len = len;
    Kdapp__Tx *one = &tx;
    Kdapp__BlockAccepted ba = KDAPP__BLOCK_ACCEPTED__INIT;
    ba.accepting_hash.data = (uint8_t *)where->block_hash;
    ba.accepting_hash.len = KD_HASH_LEN;
    ba.accepting_daa = where->daa;
    ba.accepting_time = where->time_ms;
    ba.n_txs = 1;
    ba.txs = &one;
    return run_tx(run, &ba, 0, out);
}

kd_err kd_dryrun_block(kd_dryrun *run, const uint8_t *msg, size_t len, kd_msg_result *res)
{
    kd_msg_result_init(res);
    Kdapp__EngineMsg *m = kdapp__engine_msg__unpack(NULL, len, msg);
    kd_err err = KD_OK;
    if (!m || m->kind_case != KDAPP__ENGINE_MSG__KIND_ACCEPTED) {
        snprintf(res->detail, sizeof res->detail, "a dry run takes an EngineMsg carrying an accepted block");
        err = KD_ERR_DECODE;
        goto done;
    }
    const Kdapp__BlockAccepted *ba = m->accepted;
    if (ba->accepting_hash.len != KD_HASH_LEN) {
        res->status = KD_MSG_REFUSED;
        res->err = KD_ERR_BAD_HASH;
        snprintf(res->detail, sizeof res->detail, "accepting_hash is %zu bytes, not 32", ba->accepting_hash.len);
        goto done;
    }
    memcpy(res->block_hash, ba->accepting_hash.data, KD_HASH_LEN);
    if (!(res->txs = calloc(ba->n_txs ? ba->n_txs : 1, sizeof *res->txs))) {
        err = KD_ERR_NOMEM;
        goto done;
    }
    res->status = KD_MSG_APPLIED;
    for (size_t i = 0; i < ba->n_txs && !err; i++)
        if (!(err = run_tx(run, ba, i, &res->txs[i])))
            res->tx_count = i + 1;
done:
    if (m)
        kdapp__engine_msg__free_unpacked(m, NULL);
    return err;
}

kd_err kd_dryrun_episode(kd_dryrun *run, uint32_t id, int *exists, uint64_t *counter)
{
    dry_episode *ep;
    kd_err err = load(run, id, &ep);
    if (err)
        return err;
    *exists = ep->exists;
    *counter = ep->exists ? ep->counter : 0;
    return KD_OK;
}
