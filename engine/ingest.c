/* ingest.c — IngestRequest/IngestReply: the one wire boundary for ingest. */
#include "engine/ingest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/chain.h"
#include "engine/logger.h"
#include "engine/sigcheck.h"
#include "kdapp.pb-c.h"

static void fill_tx_result(Kdapp__TxResult *out, const kd_tx_result *r)
{
    Kdapp__TxResult init = KDAPP__TX_RESULT__INIT;
    *out = init;
    out->tx_id.data = (uint8_t *)r->tx_id;
    out->tx_id.len = KD_HASH_LEN;
    out->episode_id = r->episode_id;
    out->applied = r->applied;
    out->error_code = (char *)(r->applied ? "" : r->code);
    out->error = (char *)(r->applied ? "" : r->detail);
}

static const Kdapp__MsgStatus status_wire[] = {
    [KD_MSG_APPLIED] = KDAPP__MSG_STATUS__MSG_APPLIED,
    [KD_MSG_DUPLICATE] = KDAPP__MSG_STATUS__MSG_DUPLICATE,
    [KD_MSG_REFUSED] = KDAPP__MSG_STATUS__MSG_REFUSED,
};

/* Packs the reply for `results` (the first `count` filled), or for a dry
 * run (`dry`, not NULL). */
static kd_err pack_reply(kd_engine *engine, const kd_msg_result *results, size_t count, kd_err req_err,
                         const char *req_detail, Kdapp__DryRunResult *dry, kd_buf *out)
{
    Kdapp__IngestReply reply = KDAPP__INGEST_REPLY__INIT;
    Kdapp__MsgResult *msgs = calloc(count ? count : 1, sizeof *msgs);
    Kdapp__MsgResult **msg_ptrs = calloc(count ? count : 1, sizeof *msg_ptrs);
    size_t n_txs = 0;
    for (size_t i = 0; i < count; i++)
        n_txs += results[i].tx_count;
    Kdapp__TxResult *txs = calloc(n_txs ? n_txs : 1, sizeof *txs);
    Kdapp__TxResult **tx_ptrs = calloc(n_txs ? n_txs : 1, sizeof *tx_ptrs);
    kd_err err = KD_ERR_NOMEM;
    kd_tip tip;
    if (!msgs || !msg_ptrs || !txs || !tx_ptrs)
        goto done;
    size_t t = 0;
    for (size_t i = 0; i < count; i++) {
        const kd_msg_result *r = &results[i];
        Kdapp__MsgResult init = KDAPP__MSG_RESULT__INIT;
        msgs[i] = init;
        msgs[i].status = status_wire[r->status];
        msgs[i].block_hash.data = (uint8_t *)r->block_hash;
        msgs[i].block_hash.len = KD_HASH_LEN;
        msgs[i].error_code = (char *)(r->status == KD_MSG_REFUSED ? kd_err_code(r->err) : "");
        msgs[i].error = (char *)(r->status == KD_MSG_REFUSED ? r->detail : "");
        msgs[i].log_seq = r->log_seq;
        msgs[i].reverted = r->reverted;
        msgs[i].txs = &tx_ptrs[t];
        msgs[i].n_txs = r->tx_count;
        for (size_t j = 0; j < r->tx_count; j++, t++) {
            fill_tx_result(&txs[t], &r->txs[j]);
            tx_ptrs[t] = &txs[t];
        }
        msg_ptrs[i] = &msgs[i];
    }
    reply.n_results = count;
    reply.results = msg_ptrs;
    if ((err = kd_engine_tip(engine, &tip)))
        goto done;
    if (tip.has_tip) {
        reply.tip_hash.data = tip.hash;
        reply.tip_hash.len = KD_HASH_LEN;
    }
    reply.tip_height = tip.height;
    reply.finality_depth = tip.finality_depth;
    reply.revertible = tip.revertible;
    reply.digest.data = tip.digest;
    reply.digest.len = KD_HASH_LEN;
    reply.error_code = (char *)(req_err ? kd_err_code(req_err) : "");
    reply.error = (char *)(req_err ? req_detail : "");
    reply.dry_run = dry;
    reply.chain = (char *)kd_engine_chain(engine);
    size_t n = kdapp__ingest_reply__get_packed_size(&reply);
    if ((err = kd_buf_reserve(out, n)))
        goto done;
    kdapp__ingest_reply__pack(&reply, out->data + out->len);
    out->len += n;
done:
    free(msgs);
    free(msg_ptrs);
    free(txs);
    free(tx_ptrs);
    return err;
}

/* What the planner predicts of an episode for a request. */
typedef struct {
    uint32_t id;
    uint64_t counter;
    const kd_episode_ops *ops; /* a type with a precheck, and */
    void *state;               /* its state as stored (owned until a precheck job takes it), or NULL */
} predicted;

/* The prediction for episode `id`: its move counter as predicted so far in
 * this request, else as stored; and, for a type with a precheck, its
 * stored state, until its first command takes it. */
static predicted *predict(kd_read *rd, predicted **map, size_t *n, uint32_t id)
{
    for (size_t i = 0; i < *n; i++)
        if ((*map)[i].id == id)
            return &(*map)[i];
    predicted *p = realloc(*map, (*n + 1) * sizeof *p);
    if (!p)
        return NULL;
    *map = p;
    p += *n;
    memset(p, 0, sizeof *p);
    p->id = id;
    kd_episode_snapshot snap;
    if (kd_read_episode(rd, id, &snap) == KD_OK) {
        p->counter = snap.undo_depth;
        if (snap.ops->precheck_key) {
            p->ops = snap.ops;
            p->state = snap.state; /* taken */
            snap.state = NULL;
        }
        kd_episode_snapshot_fini(&snap);
    }
    (*n)++;
    return p;
}

/* Plans the precheck of episode p's first command in the request (later
 * ones meet a state the store does not hold yet) when its type has one for
 * it: the job takes the stored state. */
static kd_err plan_precheck(predicted *p, const ProtobufCBinaryData *cmd, const kd_pubkey *signer, kd_sig_job *j,
                            int *planned)
{
    *planned = 0;
    if (!p->state)
        return KD_OK;
    kd_precheck_job *pre = calloc(1, sizeof *pre);
    uint8_t *copy = malloc(cmd->len ? cmd->len : 1);
    if (!pre || !copy) {
        free(pre);
        free(copy);
        return KD_ERR_NOMEM;
    }
    memset(j, 0, sizeof *j);
    if (!p->ops->precheck_key(p->state, cmd->data, cmd->len, signer, p->id, j->digest)) {
        free(pre);
        free(copy);
        free(p->state);
        p->state = NULL;
        return KD_OK;
    }
    memcpy(copy, cmd->data, cmd->len);
    pre->ops = p->ops;
    pre->state = p->state;
    p->state = NULL;
    pre->command = copy;
    pre->command_len = cmd->len;
    pre->episode_id = p->id;
    pre->has_signer = signer != NULL;
    if (signer)
        j->pubkey = *signer;
    j->pre = pre;
    j->verdict = KD_ERR_NOMEM;
    atomic_init(&j->state, 0);
    *planned = 1;
    return KD_OK;
}

static void predicted_free(predicted *map, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(map[i].state);
    free(map);
}

/* The signature checks and prechecks of a request, in the array the pool
 * reads. */
typedef struct {
    kd_sig_job *jobs;
    size_t count;
    size_t handed;       /* of count, the jobs the pool has */
    kd_sig_batch *batch; /* NULL until the first jobs are handed over */
} sig_plan;

/* Hands the jobs planned since the last call to the pool (a block of
 * creations only adds none: the verifiers are not woken for it). */
static void hand_over(kd_sig_pool *pool, sig_plan *plan)
{
    if (plan->count == plan->handed)
        return;
    if (!plan->batch)
        plan->batch = kd_sig_pool_start(pool, plan->jobs, plan->count);
    else
        kd_sig_pool_extend(pool, plan->batch, plan->count);
    plan->handed = plan->count;
}

/* Lists the signature checks of a request with the digests they will most
 * likely be checked against (every earlier command applies), and the
 * prechecks of the types that have them on the states as stored, handing
 * each block's to the pool as soon as it is planned. The stored counters
 * and states are read through one handle, ended before the writer
 * ingests. A failure leaves the plan as far as it got: the writer verifies
 * the rest itself. */
static kd_err plan_sig_jobs(kd_engine *engine, kd_sig_pool *pool, const Kdapp__IngestRequest *req, sig_plan *plan)
{
    size_t cap = 0;
    for (size_t m = 0; m < req->n_msgs; m++)
        if (req->msgs[m]->kind_case == KDAPP__ENGINE_MSG__KIND_ACCEPTED)
            cap += req->msgs[m]->accepted->n_txs;
    if (!cap)
        return KD_OK;
    /* in place until the batch is finished: the pool reads it meanwhile;
     * a signature and a precheck per tx at most */
    if (!(plan->jobs = malloc(2 * cap * sizeof *plan->jobs)))
        return KD_ERR_NOMEM;
    predicted *map = NULL;
    size_t n_map = 0;
    kd_read *rd;
    kd_err err = kd_engine_read_begin(engine, &rd);
    if (err)
        return err;
    for (size_t m = 0; m < req->n_msgs && !err; m++) {
        const Kdapp__EngineMsg *em = req->msgs[m];
        if (em->kind_case != KDAPP__ENGINE_MSG__KIND_ACCEPTED)
            continue;
        for (size_t t = 0; t < em->accepted->n_txs && !err; t++) {
            const ProtobufCBinaryData *pl = &em->accepted->txs[t]->payload;
            Kdapp__EpisodeMessage *ep = kdapp__episode_message__unpack(NULL, pl->len, pl->data);
            if (!ep)
                continue;
            predicted *p = predict(rd, &map, &n_map, ep->episode_id);
            int planned;
            if (!p) {
                err = KD_ERR_NOMEM;
            } else if (ep->body_case == KDAPP__EPISODE_MESSAGE__BODY_NEW_EPISODE) {
                p->counter = 0;
                free(p->state); /* a new episode: not the one stored */
                p->state = NULL;
            } else if (ep->body_case == KDAPP__EPISODE_MESSAGE__BODY_SIGNED_COMMAND) {
                const Kdapp__SignedCommand *sc = ep->signed_command;
                if (sc->pubkey.len == KD_PUBKEY_LEN && sc->signature.len <= KD_SIG_MAX_LEN) {
                    kd_sig_job *j = &plan->jobs[plan->count++];
                    kd_command_digest(ep->episode_id, p->counter, sc->command.data, sc->command.len, j->digest);
                    memcpy(j->pubkey.bytes, sc->pubkey.data, KD_PUBKEY_LEN);
                    memcpy(j->sig, sc->signature.data, sc->signature.len);
                    j->sig_len = (uint8_t)sc->signature.len;
                    j->verdict = KD_ERR_BAD_SIGNATURE;
                    j->pre = NULL;
                    atomic_init(&j->state, 0);
                    err = plan_precheck(p, &sc->command, &j->pubkey, &plan->jobs[plan->count], &planned);
                    plan->count += (size_t)planned;
                }
                p->counter++;
            } else if (ep->body_case == KDAPP__EPISODE_MESSAGE__BODY_UNSIGNED_COMMAND) {
                err = plan_precheck(p, &ep->unsigned_command->command, NULL, &plan->jobs[plan->count], &planned);
                plan->count += (size_t)planned;
                p->counter++;
            }
            kdapp__episode_message__free_unpacked(ep, NULL);
        }
        hand_over(pool, plan);
    }
    kd_engine_read_end(rd);
    predicted_free(map, n_map);
    return err;
}

/* Frees what the plan's prechecks own (after the pool is done with them). */
static void plan_free(sig_plan *plan)
{
    for (size_t i = 0; plan->jobs && i < plan->count; i++)
        if (plan->jobs[i].pre) {
            free(plan->jobs[i].pre->state);
            free(plan->jobs[i].pre->command);
            free(plan->jobs[i].pre);
        }
    free(plan->jobs);
}

/* Adds episode `id` to the counters of a dry run's answer, once. */
static kd_err add_counter(kd_dryrun *run, uint32_t id, Kdapp__EpisodeCounter *all, size_t *n)
{
    for (size_t i = 0; i < *n; i++)
        if (all[i].episode_id == id)
            return KD_OK;
    if (*n == KD_DRYRUN_MAX_EPISODES)
        return KD_ERR_TOO_LARGE;
    Kdapp__EpisodeCounter init = KDAPP__EPISODE_COUNTER__INIT;
    Kdapp__EpisodeCounter *c = &all[(*n)++];
    *c = init;
    c->episode_id = id;
    int exists = 0;
    kd_err err = kd_dryrun_episode(run, id, &exists, &c->counter);
    c->exists = exists;
    return err;
}

/* Answers IngestRequest.dry_run: the block's txs run through kd_dryrun,
 * nothing committed. On the writer thread, so the prediction is exact as
 * of the tip the reply carries. */
static kd_err handle_dry_run(kd_engine *engine, const Kdapp__IngestRequest *req, kd_buf *reply)
{
    const Kdapp__DryRun *dr = req->dry_run;
    char detail[KD_DETAIL_MAX] = "";
    kd_err req_err = KD_OK, err = KD_OK;
    kd_dryrun *run = NULL;
    kd_msg_result res;
    kd_msg_result_init(&res);
    kd_buf msg;
    kd_buf_init(&msg);
    size_t max = (dr->block ? dr->block->n_txs : 0) + dr->n_episodes, n_counters = 0;
    if (max > KD_DRYRUN_MAX_EPISODES)
        max = KD_DRYRUN_MAX_EPISODES; /* add_counter refuses more */
    Kdapp__EpisodeCounter *counters = calloc(max ? max : 1, sizeof *counters);
    Kdapp__EpisodeCounter **counter_ptrs = calloc(max ? max : 1, sizeof *counter_ptrs);
    Kdapp__TxResult *txs = NULL;
    Kdapp__TxResult **tx_ptrs = NULL;
    Kdapp__DryRunResult answer = KDAPP__DRY_RUN_RESULT__INIT;
    if (!counters || !counter_ptrs) {
        err = KD_ERR_NOMEM;
        goto done;
    }
    if (req->n_msgs || !dr->block) {
        req_err = KD_ERR_INVALID_ARG;
        snprintf(detail, sizeof detail, "a dry run carries one block in dry_run.block and no chain events");
        goto reply;
    }
    Kdapp__EngineMsg m = KDAPP__ENGINE_MSG__INIT;
    m.kind_case = KDAPP__ENGINE_MSG__KIND_ACCEPTED;
    m.accepted = dr->block;
    size_t n = kdapp__engine_msg__get_packed_size(&m);
    if ((err = kd_buf_reserve(&msg, n)))
        goto done;
    msg.len = kdapp__engine_msg__pack(&m, msg.data);
    if ((err = kd_dryrun_alloc(engine, &run)))
        goto done;
    if ((err = kd_dryrun_block(run, msg.data, msg.len, &res)) || res.status == KD_MSG_REFUSED) {
        if (err && err != KD_ERR_DECODE)
            goto done;
        req_err = err ? err : res.err;
        err = KD_OK;
        snprintf(detail, sizeof detail, "%s", res.detail);
        goto reply;
    }
    for (size_t i = 0; i < res.tx_count && !err; i++)
        if (res.txs[i].episode_id)
            err = add_counter(run, res.txs[i].episode_id, counters, &n_counters);
    for (size_t i = 0; i < dr->n_episodes && !err; i++)
        err = add_counter(run, dr->episodes[i], counters, &n_counters);
    if (err == KD_ERR_TOO_LARGE) {
        req_err = err;
        err = KD_OK;
        snprintf(detail, sizeof detail, "a dry run reports at most %d episodes", KD_DRYRUN_MAX_EPISODES);
        goto reply;
    }
    if (err)
        goto done;
    txs = calloc(res.tx_count ? res.tx_count : 1, sizeof *txs);
    tx_ptrs = calloc(res.tx_count ? res.tx_count : 1, sizeof *tx_ptrs);
    if (!txs || !tx_ptrs) {
        err = KD_ERR_NOMEM;
        goto done;
    }
    for (size_t i = 0; i < res.tx_count; i++) {
        fill_tx_result(&txs[i], &res.txs[i]);
        tx_ptrs[i] = &txs[i];
    }
    for (size_t i = 0; i < n_counters; i++)
        counter_ptrs[i] = &counters[i];
    answer.n_txs = res.tx_count;
    answer.txs = tx_ptrs;
    answer.n_episodes = n_counters;
    answer.episodes = counter_ptrs;
reply:
    err = pack_reply(engine, NULL, 0, req_err, detail, req_err ? NULL : &answer, reply);
done:
    if (err && reply->len == 0) { /* say so: a reply-less request would be re-sent for ever */
        KD_LOG_E("ingest", "dry run failed: %s", kd_err_str(err));
        snprintf(detail, sizeof detail, "the dry run failed: %s", kd_err_str(err));
        (void)!pack_reply(engine, NULL, 0, err, detail, NULL, reply);
    }
    kd_dryrun_free(run);
    kd_msg_result_fini(&res);
    kd_buf_fini(&msg);
    free(counters);
    free(counter_ptrs);
    free(txs);
    free(tx_ptrs);
    return err;
}

kd_err kd_ingest_handle(kd_engine *engine, const uint8_t *frame, size_t len, kd_buf *reply)
{
    return kd_ingest_handle_pooled(engine, NULL, frame, len, reply, NULL);
}

kd_err kd_ingest_handle_pooled(kd_engine *engine, struct kd_sig_pool *pool, const uint8_t *frame, size_t len,
                               kd_buf *reply, size_t *events)
{
    char detail[KD_DETAIL_MAX];
    size_t no_events;
    if (!events)
        events = &no_events;
    *events = 0;
    if (len > KD_INGEST_MAX_BYTES) {
        snprintf(detail, sizeof detail, "request of %zu bytes exceeds the limit of %zu bytes", len,
                 KD_INGEST_MAX_BYTES);
        return pack_reply(engine, NULL, 0, KD_ERR_TOO_LARGE, detail, NULL, reply);
    }
    Kdapp__IngestRequest *req = kdapp__ingest_request__unpack(NULL, len, frame);
    if (!req) {
        snprintf(detail, sizeof detail, "frame of %zu bytes is not a kdapp.IngestRequest", len);
        return pack_reply(engine, NULL, 0, KD_ERR_DECODE, detail, NULL, reply);
    }
    kd_err err = KD_OK, failed = KD_OK;
    kd_msg_result *results = NULL;
    sig_plan plan = {0};
    kd_buf msg;
    kd_buf_init(&msg);
    size_t done_count = 0;
    if (!kd_chain_matches(kd_engine_chain(engine), req->chain)) {
        /* A feeder of another chain: nothing of it may reach this store
         * (its consents would not verify, its blocks are not this chain's). */
        char wrong[400];
        snprintf(wrong, sizeof wrong,
                 "the store follows chain %.63s, not %.63s: feed that chain to a store of its own "
                 "(kdapp engine --chain %.63s --data NEWDIR)",
                 kd_engine_chain(engine), req->chain, req->chain);
        err = pack_reply(engine, NULL, 0, KD_ERR_WRONG_CHAIN, wrong, NULL, reply);
        goto done;
    }
    if (req->dry_run) {
        err = handle_dry_run(engine, req, reply);
        goto done;
    }
    if (req->n_msgs == 0 || req->n_msgs > KD_INGEST_MAX_MSGS) {
        snprintf(detail, sizeof detail, "a request carries 1 to %d chain events, this one %zu", KD_INGEST_MAX_MSGS,
                 req->n_msgs);
        err = pack_reply(engine, NULL, 0, req->n_msgs ? KD_ERR_TOO_LARGE : KD_ERR_INVALID_ARG, detail, NULL, reply);
        goto done;
    }
    results = calloc(req->n_msgs, sizeof *results);
    if (!results) {
        err = KD_ERR_NOMEM;
        goto done;
    }
    if (req->source_tip_time_ms) /* stored with the commits of this request */
        kd_engine_note_source_tip(engine, req->source_tip_time_ms);
    if (pool) {
        (void)!plan_sig_jobs(engine, pool, req, &plan); /* a short plan only costs time */
        kd_engine_use_sig_batch(engine, plan.batch);
    }
    detail[0] = '\0';
    for (size_t i = 0; i < req->n_msgs; i++) {
        size_t run = 0; /* a reorg: consecutive reverts, applied together */
        while (i + run < req->n_msgs && req->msgs[i + run]->kind_case == KDAPP__ENGINE_MSG__KIND_REVERTED)
            run++;
        if (run > 1) {
            size_t ok = 0;
            failed = kd_engine_ingest_reverts(engine, req->msgs + i, run, results + i, &ok);
            done_count = i + ok;
            if (failed) {
                snprintf(detail, sizeof detail,
                         "chain event %zu could not be stored: %.100s; later events were not applied", i + ok,
                         results[i + ok].detail);
                KD_LOG_E("ingest", "%s", detail);
                break;
            }
            i += run - 1;
            continue;
        }
        /* The event as received, re-encoded canonically for the log;
         * the engine applies the decoded one. */
        msg.len = 0;
        size_t n = kdapp__engine_msg__get_packed_size(req->msgs[i]);
        if ((failed = kd_buf_reserve(&msg, n)))
            break;
        kdapp__engine_msg__pack(req->msgs[i], msg.data);
        msg.len = n;
        failed = kd_engine_ingest_decoded(engine, req->msgs[i], msg.data, msg.len, &results[i]);
        if (failed == KD_ERR_DECODE) {
            /* An event the engine cannot read is refused on its own. */
            results[i].status = KD_MSG_REFUSED;
            results[i].err = KD_ERR_DECODE;
            failed = KD_OK;
        }
        done_count = i + 1;
        if (failed) {
            snprintf(detail, sizeof detail,
                     "chain event %zu could not be stored: %.100s; later events were not applied", i,
                     results[i].detail);
            done_count = i; /* its result is not a verdict */
            KD_LOG_E("ingest", "%s", detail);
            break;
        }
    }
    err = pack_reply(engine, results, done_count, failed, detail, NULL, reply);
    *events = done_count;
    if (!err)
        err = failed;
done:
    if (plan.batch) {
        kd_engine_use_sig_batch(engine, NULL);
        kd_sig_pool_finish(pool, plan.batch);
    }
    plan_free(&plan);
    if (results)
        for (size_t i = 0; i < req->n_msgs; i++)
            kd_msg_result_fini(&results[i]);
    free(results);
    kd_buf_fini(&msg);
    kdapp__ingest_request__free_unpacked(req, NULL);
    return err;
}

kd_err kd_ingest_request_pack(const kd_buf *msgs, size_t count, kd_buf *out)
{
    return kd_ingest_request_pack_source(msgs, count, 0, NULL, out);
}

kd_err kd_ingest_request_pack_source(const kd_buf *msgs, size_t count, uint64_t source_tip_time_ms, const char *chain,
                                     kd_buf *out)
{
    Kdapp__EngineMsg **ptrs = calloc(count ? count : 1, sizeof *ptrs);
    kd_err err = KD_ERR_NOMEM;
    if (!ptrs)
        return err;
    size_t unpacked = 0;
    Kdapp__IngestRequest req = KDAPP__INGEST_REQUEST__INIT;
    for (; unpacked < count; unpacked++) {
        ptrs[unpacked] = kdapp__engine_msg__unpack(NULL, msgs[unpacked].len, msgs[unpacked].data);
        if (!ptrs[unpacked]) {
            err = KD_ERR_INVALID_ARG;
            goto done;
        }
    }
    req.n_msgs = count;
    req.msgs = ptrs;
    req.source_tip_time_ms = source_tip_time_ms;
    if (chain && chain[0])
        req.chain = (char *)chain;
    size_t n = kdapp__ingest_request__get_packed_size(&req);
    if ((err = kd_buf_reserve(out, n)))
        goto done;
    kdapp__ingest_request__pack(&req, out->data + out->len);
    out->len += n;
done:
    for (size_t i = 0; i < unpacked; i++)
        kdapp__engine_msg__free_unpacked(ptrs[i], NULL);
    free(ptrs);
    return err;
}

kd_err kd_ingest_dry_run_pack(const kd_buf *block, const uint32_t *episodes, size_t n, const char *chain, kd_buf *out)
{
    if (n > KD_DRYRUN_MAX_EPISODES)
        return KD_ERR_INVALID_ARG;
    Kdapp__EngineMsg *m = kdapp__engine_msg__unpack(NULL, block->len, block->data);
    if (!m || m->kind_case != KDAPP__ENGINE_MSG__KIND_ACCEPTED) {
        if (m)
            kdapp__engine_msg__free_unpacked(m, NULL);
        return KD_ERR_INVALID_ARG;
    }
    Kdapp__DryRun dr = KDAPP__DRY_RUN__INIT;
    dr.block = m->accepted;
    dr.n_episodes = n;
    dr.episodes = (uint32_t *)episodes;
    Kdapp__IngestRequest req = KDAPP__INGEST_REQUEST__INIT;
    req.dry_run = &dr;
    if (chain && chain[0])
        req.chain = (char *)chain;
    size_t len = kdapp__ingest_request__get_packed_size(&req);
    kd_err err = kd_buf_reserve(out, len);
    if (!err) {
        kdapp__ingest_request__pack(&req, out->data + out->len);
        out->len += len;
    }
    kdapp__engine_msg__free_unpacked(m, NULL);
    return err;
}

void kd_ingest_reply_fini(kd_ingest_reply *reply)
{
    if (!reply)
        return;
    for (size_t i = 0; i < reply->count; i++)
        kd_msg_result_fini(&reply->results[i]);
    free(reply->results);
    kd_msg_result_fini(&reply->dry_run);
    free(reply->counters);
    memset(reply, 0, sizeof *reply);
}

static void copy_hash(uint8_t *dst, const ProtobufCBinaryData *src)
{
    if (src->len == KD_HASH_LEN)
        memcpy(dst, src->data, KD_HASH_LEN);
}

/* Copies `n` wire tx results into r->txs. Errors: KD_ERR_NOMEM. */
static kd_err unpack_txs(Kdapp__TxResult *const *txs, size_t n, kd_msg_result *r)
{
    if (n && !(r->txs = calloc(n, sizeof *r->txs)))
        return KD_ERR_NOMEM;
    r->tx_count = n;
    for (size_t j = 0; j < n; j++) {
        const Kdapp__TxResult *t = txs[j];
        copy_hash(r->txs[j].tx_id, &t->tx_id);
        r->txs[j].episode_id = t->episode_id;
        r->txs[j].applied = t->applied;
        if (!t->applied)
            kd_tx_result_set_rejected(&r->txs[j], t->error_code, t->error);
    }
    return KD_OK;
}

/* The answer to a dry run. Errors: KD_ERR_NOMEM. */
static kd_err unpack_dry_run(const Kdapp__DryRunResult *d, kd_ingest_reply *out)
{
    out->has_dry_run = 1;
    out->dry_run.status = KD_MSG_APPLIED;
    kd_err err = unpack_txs(d->txs, d->n_txs, &out->dry_run);
    if (err)
        return err;
    if (d->n_episodes && !(out->counters = calloc(d->n_episodes, sizeof *out->counters)))
        return KD_ERR_NOMEM;
    out->counter_count = d->n_episodes;
    for (size_t i = 0; i < d->n_episodes; i++) {
        out->counters[i].episode_id = d->episodes[i]->episode_id;
        out->counters[i].exists = d->episodes[i]->exists;
        out->counters[i].counter = d->episodes[i]->counter;
    }
    return KD_OK;
}

kd_err kd_ingest_reply_unpack(const uint8_t *frame, size_t len, kd_ingest_reply *out)
{
    memset(out, 0, sizeof *out);
    Kdapp__IngestReply *rep = kdapp__ingest_reply__unpack(NULL, len, frame);
    if (!rep)
        return KD_ERR_DECODE;
    kd_err err = KD_ERR_NOMEM;
    out->results = calloc(rep->n_results ? rep->n_results : 1, sizeof *out->results);
    if (!out->results)
        goto done;
    for (size_t i = 0; i < rep->n_results; i++) {
        const Kdapp__MsgResult *m = rep->results[i];
        kd_msg_result *r = &out->results[i];
        out->count = i + 1;
        r->status = m->status == KDAPP__MSG_STATUS__MSG_APPLIED     ? KD_MSG_APPLIED
                    : m->status == KDAPP__MSG_STATUS__MSG_DUPLICATE ? KD_MSG_DUPLICATE
                                                                    : KD_MSG_REFUSED;
        copy_hash(r->block_hash, &m->block_hash);
        r->err = m->error_code && *m->error_code ? kd_err_from_code(m->error_code) : KD_OK;
        snprintf(r->detail, sizeof r->detail, "%s", m->error ? m->error : "");
        r->log_seq = m->log_seq;
        r->reverted = m->reverted;
        if ((err = unpack_txs(m->txs, m->n_txs, r)))
            goto done;
    }
    if (rep->dry_run && (err = unpack_dry_run(rep->dry_run, out)))
        goto done;
    out->tip.has_tip = rep->tip_hash.len == KD_HASH_LEN;
    copy_hash(out->tip.hash, &rep->tip_hash);
    out->tip.height = rep->tip_height;
    out->tip.finality_depth = rep->finality_depth;
    out->tip.revertible = rep->revertible;
    copy_hash(out->tip.digest, &rep->digest);
    out->err = rep->error_code && *rep->error_code ? kd_err_from_code(rep->error_code) : KD_OK;
    snprintf(out->detail, sizeof out->detail, "%s", rep->error ? rep->error : "");
    if (rep->chain && kd_chain_valid(rep->chain))
        snprintf(out->chain, sizeof out->chain, "%s", rep->chain);
    err = KD_OK;
done:
    kdapp__ingest_reply__free_unpacked(rep, NULL);
    if (err)
        kd_ingest_reply_fini(out);
    return err;
}
