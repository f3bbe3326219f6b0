/*
 * audit.c — one episode's draws proved from the log (audit.h).
 */
#include "handlers/audit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handlers/proto_json.h"
#include "kdapp.pb-c.h"
#include "store.pb-c.h"

typedef struct {
    const kd_type_table *types;
    uint32_t id;
    const kd_episode_type *type; /* set by the creation */
    void *state, *undo;
    kd_participants parts;
    json_t *report, *draws;
    uint64_t commands;
    kd_buf asks, ask_bytes; /* ask_rec records of the applied commands, and their bytes */
    char verdict[512];      /* empty: nothing wrong so far */
} audit;

/* An applied command, found again by the digest a draw's input (version
 * 3) ends with: the audit prints the ask's own bytes. */
typedef struct {
    uint8_t digest[KD_FAIR_ASK_LEN];
    uint8_t tx_id[KD_HASH_LEN];
    uint64_t seq;
    size_t at, len; /* in ask_bytes */
} ask_rec;

/* Where a transaction of an accepted block ran: the block meta the rules
 * saw, and the position for the report. */
typedef struct {
    kd_block_meta meta;
    uint64_t seq;
} audit_at;

static json_t *at_json(const audit_at *at)
{
    return json_pack("{s:I, s:o, s:I}", "log_seq", (json_int_t)at->seq, "block",
                     kd_json_hex(at->meta.block_hash, KD_HASH_LEN), "daa", (json_int_t)at->meta.daa);
}

static void on_word(void *ctx, uint32_t block, uint32_t word, uint32_t n, uint64_t bound, int kept)
{
    char hex[9];
    snprintf(hex, sizeof hex, "%08x", (unsigned)word);
    json_t *w = json_pack("{s:I, s:s, s:I, s:I, s:b}", "block", (json_int_t)block, "word", hex, "n", (json_int_t)n,
                          "bound", (json_int_t)bound, "kept", kept);
    if (w && kept)
        json_object_set_new(w, "value", json_integer((json_int_t)(word % n)));
    json_array_append_new(ctx, w);
}

static kd_err create(audit *a, const Kdapp__NewEpisode *ne, const ProtobufCBinaryData *effective, const audit_at *at,
                     char *why, size_t why_len)
{
    a->type = kd_type_table_find(a->types, ne->episode_type);
    if (!a->type) {
        snprintf(why, why_len, "episode %u is a %.40s, a type this build does not know", a->id, ne->episode_type);
        return KD_ERR_UNKNOWN_TYPE;
    }
    if (!a->type->draw_of || !a->type->draw_outcome) {
        snprintf(why, why_len, "episode %u is a %s, a game with no draws to audit", a->id, ne->episode_type);
        return KD_ERR_UNSUPPORTED;
    }
    const kd_episode_ops *ops = a->type->ops;
    a->state = calloc(1, ops->state_size);
    a->undo = calloc(1, ops->undo_size ? ops->undo_size : 1);
    json_t *parts = json_array();
    if (!a->state || !a->undo || !parts) {
        json_decref(parts);
        return KD_ERR_NOMEM;
    }
    a->parts.count = ne->n_participants < KD_MAX_PARTICIPANTS ? ne->n_participants : KD_MAX_PARTICIPANTS;
    for (size_t i = 0; i < a->parts.count; i++) {
        memcpy(a->parts.keys[i].bytes, ne->participants[i].data, KD_PUBKEY_LEN); /* checked when applied */
        json_array_append_new(parts, kd_json_hex(ne->participants[i].data, KD_PUBKEY_LEN));
    }
    json_t *params = a->type->params_message ? kd_proto_json(a->type->params_message, effective->data, effective->len)
                                             : kd_json_hex(effective->data, effective->len);
    json_object_set_new(a->report, "type", json_string(ne->episode_type));
    json_object_set_new(a->report, "participants", parts);
    json_object_set_new(a->report, "params", params ? params : json_null());
    json_object_set_new(a->report, "created", at_json(at));
    kd_reject rej = {0};
    if (ops->init(a->state, &a->parts, effective->data, effective->len, &at->meta, &rej) != KD_OK)
        snprintf(a->verdict, sizeof a->verdict,
                 "the creation at log entry %llu is applied in the log, but the rules refuse it on replay: %s",
                 (unsigned long long)at->seq, rej.detail);
    return KD_OK;
}

/* Remembers an applied command's bytes under their digest. */
static kd_err note_command(audit *a, const ProtobufCBinaryData *cmd, const audit_at *at)
{
    ask_rec r = {.seq = at->seq, .at = a->ask_bytes.len, .len = cmd->len};
    kd_fair_ask_digest(cmd->data, cmd->len, r.digest);
    memcpy(r.tx_id, at->meta.tx_id, KD_HASH_LEN);
    kd_err err = kd_buf_append(&a->ask_bytes, cmd->data, cmd->len);
    return err ? err : kd_buf_append(&a->asks, &r, sizeof r);
}

/* The newest applied command whose bytes hash to `digest`, or NULL. */
static const ask_rec *find_ask(const audit *a, const uint8_t digest[KD_FAIR_ASK_LEN])
{
    const ask_rec *recs = (const ask_rec *)a->asks.data;
    for (size_t i = a->asks.len / sizeof *recs; i-- > 0;)
        if (memcmp(recs[i].digest, digest, KD_FAIR_ASK_LEN) == 0)
            return &recs[i];
    return NULL;
}

/* The parts of a draw's input (fair.h), each as hex, and the ask it
 * names: its own bytes for version 3 (found among the applied commands),
 * its entropy for version 2. */
static void input_parts(audit *a, const kd_fair_draw *d, const uint8_t alpha[KD_FAIR_ALPHA_LEN], json_t *j)
{
    const int v2 = d->version == KD_FAIR_DRAW_V2;
    json_t *parts =
        json_pack("{s:s, s:o, s:o, s:o, s:o}", "tag", v2 ? "kdapp-draw-v2" : "kdapp-draw-v3", "tag_hex",
                  kd_json_hex(alpha, 13), "episode_id", kd_json_hex(alpha + 13, 4), "draw", kd_json_hex(alpha + 17, 4),
                  v2 ? "entropy" : "ask_sha256", kd_json_hex(alpha + 21, KD_FAIR_ASK_LEN));
    json_object_set_new(j, "draw_input", json_integer(d->version));
    json_object_set_new(j, "input_parts", parts ? parts : json_null());
    if (v2) {
        json_object_set_new(j, "entropy", kd_json_hex(d->ask, KD_FAIR_ASK_LEN));
        return;
    }
    const ask_rec *r = find_ask(a, d->ask);
    json_t *ask =
        r ? json_pack("{s:I, s:o, s:o}", "log_seq", (json_int_t)r->seq, "tx", kd_json_hex(r->tx_id, KD_HASH_LEN),
                      "command", kd_json_hex(a->ask_bytes.data + r->at, r->len))
          : NULL;
    json_object_set_new(j, "ask", ask ? ask : json_null());
}

/* The derivation of the draw `d` answers, before the command is applied. */
static json_t *draw_json(audit *a, const kd_fair_draw *d, const audit_at *at)
{
    uint8_t alpha[KD_FAIR_ALPHA_LEN], output[KD_HASH_LEN];
    kd_fair_alpha(d->version, d->episode_id, d->index, d->ask, alpha);
    int verified = kd_fair_draw_verify(d, output) == KD_OK;
    json_t *j = at_json(at);
    if (!j)
        return NULL;
    json_object_set_new(j, "draw", json_integer(d->index));
    json_object_set_new(j, "tx", kd_json_hex(at->meta.tx_id, KD_HASH_LEN));
    json_object_set_new(j, "house_key", kd_json_hex(d->key.bytes, KD_PUBKEY_LEN));
    input_parts(a, d, alpha, j);
    json_object_set_new(j, "input", kd_json_hex(alpha, sizeof alpha));
    json_object_set_new(j, "proof", kd_json_hex(d->proof, KD_VRF_PROOF_LEN));
    json_object_set_new(j, "verified", json_boolean(verified));
    if (!verified) {
        if (!a->verdict[0])
            snprintf(a->verdict, sizeof a->verdict,
                     "draw %u (log entry %llu) is applied, but its proof does not verify under the house's key",
                     (unsigned)d->index, (unsigned long long)at->seq);
        return j;
    }
    json_t *words = json_array();
    kd_fair_stream stream;
    kd_fair_stream_init(&stream, output);
    stream.on_word = on_word;
    stream.on_word_ctx = words;
    json_t *outcome = words ? a->type->draw_outcome(a->state, &stream) : NULL;
    json_object_set_new(j, "output", kd_json_hex(output, KD_HASH_LEN));
    json_object_set_new(j, "words", words ? words : json_null());
    json_object_set_new(j, "outcome", outcome ? outcome : json_null());
    return j;
}

static void command(audit *a, const Kdapp__EpisodeMessage *em, const audit_at *at)
{
    const ProtobufCBinaryData *cmd;
    kd_pubkey signer;
    const kd_pubkey *signed_by = NULL;
    if (em->body_case == KDAPP__EPISODE_MESSAGE__BODY_SIGNED_COMMAND) {
        cmd = &em->signed_command->command;
        if (em->signed_command->pubkey.len == KD_PUBKEY_LEN) {
            memcpy(signer.bytes, em->signed_command->pubkey.data, KD_PUBKEY_LEN);
            signed_by = &signer;
        }
    } else {
        cmd = &em->unsigned_command->command;
    }
    kd_fair_draw d;
    if (a->type->draw_of(a->state, cmd->data, cmd->len, &d))
        json_array_append_new(a->draws, draw_json(a, &d, at));
    else if (note_command(a, cmd, at) != KD_OK && !a->verdict[0])
        snprintf(a->verdict, sizeof a->verdict, "out of memory at log entry %llu", (unsigned long long)at->seq);
    kd_reject rej = {0};
    a->commands++;
    if (a->type->ops->execute(a->state, cmd->data, cmd->len, signed_by, &at->meta, a->undo, &rej) != KD_OK &&
        !a->verdict[0])
        snprintf(a->verdict, sizeof a->verdict,
                 "the command at log entry %llu is applied in the log, but the rules refuse it on replay (%s: %s)",
                 (unsigned long long)at->seq, rej.code, rej.detail);
}

/* Whether accept `ba`, logged at `seq`, is on the canonical chain: its
 * block is still applied, by this very entry (a block reverted and
 * applied again has a later entry). */
static kd_err canonical(kd_read *rd, const Kdapp__BlockAccepted *ba, uint64_t seq, int *yes)
{
    uint64_t applied_at = 0;
    *yes = 0;
    if (ba->accepting_hash.len != KD_HASH_LEN)
        return KD_OK;
    kd_err err = kd_read_block_seq(rd, ba->accepting_hash.data, &applied_at);
    *yes = !err && applied_at == seq;
    return err == KD_ERR_NOT_FOUND ? KD_OK : err;
}

/* Replays the transactions of episode `a->id` that log entry `seq`
 * applied, when its block is on the canonical chain. */
static kd_err entry(audit *a, kd_read *rd, uint64_t seq, const uint8_t *data, size_t len, char *why, size_t why_len)
{
    Kdapp__Store__LogEntry *le = kdapp__store__log_entry__unpack(NULL, len, data);
    Kdapp__EngineMsg *m = le ? kdapp__engine_msg__unpack(NULL, le->message.len, le->message.data) : NULL;
    kd_err err = m ? KD_OK : KD_ERR_STORE;
    int on_chain = 0;
    if (!err && m->kind_case == KDAPP__ENGINE_MSG__KIND_ACCEPTED && (err = canonical(rd, m->accepted, seq, &on_chain)))
        goto done;
    if (!err && on_chain && m->accepted->n_txs == le->n_txs) {
        const Kdapp__BlockAccepted *ba = m->accepted;
        for (size_t i = 0; !err && !a->verdict[0] && i < le->n_txs; i++) {
            const Kdapp__Store__TxOutcome *o = le->txs[i];
            if (!o->applied || o->episode_id != a->id || ba->accepting_hash.len != KD_HASH_LEN ||
                ba->txs[i]->tx_id.len != KD_HASH_LEN)
                continue;
            Kdapp__EpisodeMessage *em =
                kdapp__episode_message__unpack(NULL, ba->txs[i]->payload.len, ba->txs[i]->payload.data);
            if (!em) {
                err = KD_ERR_STORE;
                break;
            }
            audit_at at = {.meta = {.block_hash = ba->accepting_hash.data,
                                    .daa = ba->accepting_daa,
                                    .time_ms = ba->accepting_time,
                                    .tx_id = ba->txs[i]->tx_id.data,
                                    .episode_id = a->id},
                           .seq = seq};
            if (em->body_case == KDAPP__EPISODE_MESSAGE__BODY_NEW_EPISODE)
                err = a->type ? KD_OK : create(a, em->new_episode, &o->effective_params, &at, why, why_len);
            else if (a->type)
                command(a, em, &at);
            kdapp__episode_message__free_unpacked(em, NULL);
        }
    }
    if (err == KD_ERR_STORE)
        snprintf(why, why_len, "log entry %llu does not decode", (unsigned long long)seq);
done:
    if (m)
        kdapp__engine_msg__free_unpacked(m, NULL);
    if (le)
        kdapp__store__log_entry__free_unpacked(le, NULL);
    return err;
}

/* Whether the replayed state is the store's, byte for byte. */
static kd_err compare_with_store(audit *a, kd_read *rd, int *same)
{
    kd_episode_snapshot snap;
    kd_err err = kd_read_episode(rd, a->id, &snap);
    if (err == KD_ERR_NOT_FOUND) {
        *same = 0;
        return KD_OK;
    }
    if (err)
        return err;
    kd_buf mine, stored;
    kd_buf_init(&mine);
    kd_buf_init(&stored);
    err = a->type->ops->encode_state(a->state, &mine);
    if (!err)
        err = a->type->ops->encode_state(snap.state, &stored);
    *same = !err && mine.len == stored.len && memcmp(mine.data, stored.data, mine.len) == 0;
    kd_buf_fini(&mine);
    kd_buf_fini(&stored);
    kd_episode_snapshot_fini(&snap);
    return err;
}

/* The episode's own log entries (the store's index: the audit costs the
 * episode's length, not the log's), its accepts on the canonical chain
 * replayed in log order. */
static kd_err replay(audit *a, kd_read *rd, char *why, size_t why_len)
{
    kd_history_entry *hist = NULL;
    size_t n = 0;
    kd_err err = kd_read_episode_history(rd, a->id, &hist, &n);
    if (err == KD_ERR_NOT_FOUND)
        err = KD_OK; /* no such episode: said below */
    for (size_t i = 0; !err && !a->verdict[0] && i < n; i++) {
        const uint8_t *data;
        size_t len;
        if (hist[i].reverted)
            continue;
        err = kd_read_log_entry(rd, hist[i].seq, &data, &len);
        if (!err)
            err = entry(a, rd, hist[i].seq, data, len, why, why_len);
    }
    free(hist);
    if (!err && !a->type) {
        snprintf(why, why_len, "episode %u was not created on the chain this store follows", a->id);
        return KD_ERR_NOT_FOUND;
    }
    int same = 0;
    if (!err && !a->verdict[0])
        err = compare_with_store(a, rd, &same);
    if (!err && !a->verdict[0] && !same)
        snprintf(a->verdict, sizeof a->verdict, "the replayed state differs from the store's state of episode %u",
                 a->id);
    json_object_set_new(a->report, "replay_matches_store", json_boolean(same));
    return err;
}

kd_err kd_audit_episode(kd_engine *engine, const kd_type_table *types, uint32_t id, json_t **out, char *why,
                        size_t why_len)
{
    *out = NULL;
    why[0] = '\0';
    audit a = {.types = types, .id = id, .report = json_pack("{s:I}", "episode", (json_int_t)id)};
    a.draws = json_array();
    kd_err err = a.report && a.draws ? KD_OK : KD_ERR_NOMEM;
    kd_read *rd = NULL;
    if (!err)
        err = kd_engine_read_begin(engine, &rd);
    if (!err) {
        err = replay(&a, rd, why, why_len);
        kd_engine_read_end(rd);
    }
    if (!err) {
        json_object_set_new(a.report, "draws", json_incref(a.draws));
        json_object_set_new(a.report, "commands", json_integer((json_int_t)a.commands));
        json_object_set_new(a.report, "verdict", json_string(a.verdict[0] ? a.verdict : "ok"));
        *out = json_incref(a.report);
    } else if (!why[0]) {
        snprintf(why, why_len, "the log cannot be read: %s", kd_err_str(err));
    }
    json_decref(a.draws);
    json_decref(a.report);
    kd_buf_fini(&a.asks);
    kd_buf_fini(&a.ask_bytes);
    free(a.state);
    free(a.undo);
    return err;
}

/* ------------------------------------------------------------- text */

static const char *str(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

/* The ask a draw answers and its input, byte for byte. */
static kd_err input_text(const json_t *d, kd_buf *out)
{
    const json_t *p = json_object_get(d, "input_parts"), *ask = json_object_get(d, "ask");
    int v2 = json_integer_value(json_object_get(d, "draw_input")) == KD_FAIR_DRAW_V2;
    kd_err err = KD_OK;
    if (v2)
        err = kd_buf_appendf(out, "  entropy of the ask  %s\n", str(d, "entropy"));
    else if (json_is_object(ask))
        err = kd_buf_appendf(out,
                             "  the ask             log entry %lld, tx %.16s; its bytes (SignedCommand.command):\n"
                             "                      %s\n",
                             (long long)json_integer_value(json_object_get(ask, "log_seq")), str(ask, "tx"),
                             str(ask, "command"));
    else
        err = kd_buf_appendf(out, "  the ask             not among the episode's applied commands\n");
    if (!err)
        err = kd_buf_appendf(out,
                             "  input               %s %s %s\n"
                             "                      %s\n"
                             "                      (\"%s\" || episode %lld || draw %lld, 4 bytes BE each || %s)\n",
                             str(p, "tag_hex"), str(p, "episode_id"), str(p, "draw"),
                             str(p, v2 ? "entropy" : "ask_sha256"), str(p, "tag"),
                             (long long)strtoll(str(p, "episode_id"), NULL, 16),
                             (long long)json_integer_value(json_object_get(d, "draw")),
                             v2 ? "the ask's entropy" : "SHA-256 of the ask's bytes");
    return err;
}

static kd_err draw_text(const json_t *d, kd_buf *out)
{
    kd_err err = kd_buf_appendf(out, "draw %lld  log entry %lld, block %.16s, DAA %lld, tx %.16s\n",
                                (long long)json_integer_value(json_object_get(d, "draw")),
                                (long long)json_integer_value(json_object_get(d, "log_seq")), str(d, "block"),
                                (long long)json_integer_value(json_object_get(d, "daa")), str(d, "tx"));
    if (!err)
        err = input_text(d, out);
    if (!err)
        err = kd_buf_appendf(out,
                             "  proof               %s\n"
                             "  verifies under the house's key %s: %s\n",
                             str(d, "proof"), str(d, "house_key"),
                             json_is_true(json_object_get(d, "verified")) ? "yes" : "NO");
    if (err || !json_is_true(json_object_get(d, "verified")))
        return err;
    err = kd_buf_appendf(out, "  output              %s\n", str(d, "output"));
    size_t i;
    const json_t *w;
    json_array_foreach(json_object_get(d, "words"), i, w)
    {
        if (err)
            break;
        long long n = json_integer_value(json_object_get(w, "n")),
                  bound = json_integer_value(json_object_get(w, "bound"));
        if (json_is_true(json_object_get(w, "kept")))
            err = kd_buf_appendf(out, "  word %s of SHA-256(output || %08llx): below %lld, mod %lld = %lld\n",
                                 str(w, "word"), (long long)json_integer_value(json_object_get(w, "block")), bound, n,
                                 (long long)json_integer_value(json_object_get(w, "value")));
        else
            err = kd_buf_appendf(out, "  word %s of SHA-256(output || %08llx): not below %lld, skipped\n",
                                 str(w, "word"), (long long)json_integer_value(json_object_get(w, "block")), bound);
    }
    char *outcome = err ? NULL : json_dumps(json_object_get(d, "outcome"), JSON_COMPACT | JSON_PRESERVE_ORDER);
    if (!err)
        err = outcome ? kd_buf_appendf(out, "  outcome             %s\n", outcome) : KD_ERR_NOMEM;
    free(outcome);
    return err;
}

kd_err kd_audit_text(const json_t *audit_json, kd_buf *out)
{
    char *params = json_dumps(json_object_get(audit_json, "params"), JSON_COMPACT | JSON_PRESERVE_ORDER);
    if (!params)
        return KD_ERR_NOMEM;
    const json_t *created = json_object_get(audit_json, "created");
    kd_err err =
        kd_buf_appendf(out, "episode %lld (%s), created at log entry %lld, block %.16s, DAA %lld\nparams %s\n\n",
                       (long long)json_integer_value(json_object_get(audit_json, "episode")), str(audit_json, "type"),
                       (long long)json_integer_value(json_object_get(created, "log_seq")), str(created, "block"),
                       (long long)json_integer_value(json_object_get(created, "daa")), params);
    free(params);
    size_t i;
    const json_t *d;
    json_array_foreach(json_object_get(audit_json, "draws"), i, d)
    {
        if (!err)
            err = draw_text(d, out);
        if (!err)
            err = kd_buf_append(out, "\n", 1);
    }
    if (!err)
        err = kd_buf_appendf(out,
                             "%lld commands replayed from the canonical chain; the final state %s the store's\n"
                             "verdict: %s\n",
                             (long long)json_integer_value(json_object_get(audit_json, "commands")),
                             json_is_true(json_object_get(audit_json, "replay_matches_store")) ? "equals"
                                                                                               : "differs from",
                             str(audit_json, "verdict"));
    return err;
}
