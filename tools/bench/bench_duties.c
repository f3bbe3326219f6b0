/*
 * bench_duties.c — the duties part of `kdapp bench`: what the steps a seat
 * owes from its secret cost (the type table's secret_duty: proofs a
 * command carries, openings of a commitment), for each type that has them
 * (or --type), through the type table alone.
 *
 * A match from perft's start (tools/sim/perft.h: fresh keys, each seat's
 * commitment) is played by its duties and seeded random legal moves. Each
 * duty command is timed three ways, in CPU time of this thread (one core):
 *
 *   prove     secret_duty: the seat makes it from its seed
 *   verify    execute on a copy of the state: the rules take it, checking
 *             everything (the engine's cost with no verifier pool)
 *   writer    for a type with a precheck: the precheck alone (what the
 *             engine's verifier pool runs ahead), and execute given its
 *             verdict (what is left on the single writer)
 *   baseline  right after, in the same run: the check of a signature of
 *             the same command (its digest and a secp256k1 ECDSA verify),
 *             what the engine does for every command; each time above is
 *             also given as a ratio to it
 *
 * and measured in bytes: its transaction payload (EpisodeMessage with a
 * SignedCommand and a 72-byte signature, the longest DER ECDSA). The report
 * is per kind of command (the first key of its JSON: "shuffle", "lock",
 * ...): the median and max of each time, the largest payload. A run plays
 * until it has b->run_s seconds of duties and at least MIN_SAMPLES of each
 * kind it met (--quick: one of each, 0.1 s).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/crypto.h"
#include "engine/wire.h"
#include "tools/bench/bench.h"
#include "tools/sim/perft.h"

#define MIN_SAMPLES 5
#define MAX_KINDS 8
#define MAX_SAMPLES 256
#define MAX_STEPS 20000

/* The samples of one kind of duty command. */
typedef struct {
    char name[32];
    double prove[MAX_SAMPLES], verify[MAX_SAMPLES], pool[MAX_SAMPLES], writer[MAX_SAMPLES], sig[MAX_SAMPLES];
    size_t n;
    size_t payload; /* the largest */
} kind_samples;

typedef struct {
    const kd_episode_type *type;
    void *state, *copy, *undo; /* ops sizes, owned */
    kd_perft_signers signers;
    kind_samples kinds[MAX_KINDS];
    size_t n_kinds;
    kd_key signer; /* the baseline's: a key whose signature of each duty is checked */
    double spent;  /* CPU seconds of duties so far */
} duty_run;

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The kind of a command: the first key of its JSON ("?" when it has none). */
static kind_samples *kind_of(duty_run *r, const kd_buf *cmd)
{
    json_t *j = r->type->command_to_json ? r->type->command_to_json(cmd->data, cmd->len) : NULL;
    const char *name = "?";
    void *iter = json_is_object(j) ? json_object_iter(j) : NULL;
    if (iter)
        name = json_object_iter_key(iter);
    kind_samples *k = NULL;
    for (size_t i = 0; i < r->n_kinds && !k; i++)
        if (strcmp(r->kinds[i].name, name) == 0)
            k = &r->kinds[i];
    if (!k && r->n_kinds < MAX_KINDS) {
        k = &r->kinds[r->n_kinds++];
        memset(k, 0, sizeof *k);
        snprintf(k->name, sizeof k->name, "%s", name);
    }
    json_decref(j);
    return k;
}

static const kd_pubkey *signer_of(const duty_run *r, int seat)
{
    int key = r->signers.seat_key[seat];
    return key >= 0 ? &r->signers.candidates[key] : NULL;
}

/* Executes `cmd` for `seat` on the state: 0, or -1 with a sentence. */
static int apply(duty_run *r, int seat, const kd_buf *cmd, uint64_t daa, char *why, size_t why_len)
{
    uint8_t zero[KD_HASH_LEN] = {0};
    kd_block_meta meta = {.block_hash = zero, .tx_id = zero, .daa = daa, .episode_id = 1};
    kd_reject rej = {0};
    kd_err err = r->type->ops->execute(r->state, cmd->data, cmd->len, signer_of(r, seat), &meta, r->undo, &rej);
    if (err)
        kd_reject_write(why, why_len, "%s refuses a command of seat %d: %s %s", r->type->ops->type_name, seat, rej.code,
                        rej.detail);
    return err ? -1 : 0;
}

/* Times one duty of `seat` (its command in `cmd`) and records it. */
static int measure(duty_run *r, int seat, const kd_buf *cmd, double proving, uint64_t daa, char *why, size_t why_len)
{
    const kd_episode_ops *ops = r->type->ops;
    uint8_t zero[KD_HASH_LEN] = {0};
    kd_block_meta meta = {.block_hash = zero, .tx_id = zero, .daa = daa, .episode_id = 1};
    kd_reject rej = {0};
    kind_samples *k = kind_of(r, cmd);
    if (!k)
        return 0;
    size_t i = k->n < MAX_SAMPLES ? k->n++ : MAX_SAMPLES - 1;
    k->prove[i] = proving;
    memcpy(r->copy, r->state, ops->state_size);
    double t0 = cpu_now();
    kd_err err = ops->execute(r->copy, cmd->data, cmd->len, signer_of(r, seat), &meta, r->undo, &rej);
    k->verify[i] = cpu_now() - t0;
    if (!err && ops->precheck) {
        kd_precheck pc;
        memset(&pc, 0, sizeof pc);
        t0 = cpu_now();
        pc.verdict = ops->precheck(r->state, cmd->data, cmd->len, signer_of(r, seat), 1, &pc.rej);
        k->pool[i] = cpu_now() - t0;
        memcpy(r->copy, r->state, ops->state_size);
        meta.precheck = &pc;
        t0 = cpu_now();
        err = ops->execute(r->copy, cmd->data, cmd->len, signer_of(r, seat), &meta, r->undo, &rej);
        k->writer[i] = cpu_now() - t0;
    }
    if (err) {
        kd_reject_write(why, why_len, "%s refuses seat %d's own duty: %s %s", ops->type_name, seat, rej.code,
                        rej.detail);
        return -1;
    }
    uint8_t digest[KD_HASH_LEN], compact[KD_SIG_COMPACT_LEN];
    kd_command_digest(1, i, cmd->data, cmd->len, digest);
    if (kd_key_sign(&r->signer, digest, compact) != KD_OK) {
        kd_reject_write(why, why_len, "the baseline's signature failed");
        return -1;
    }
    t0 = cpu_now();
    kd_command_digest(1, i, cmd->data, cmd->len, digest);
    err = kd_sig_verify(&r->signer.pub, digest, compact, sizeof compact);
    k->sig[i] = cpu_now() - t0;
    if (err) {
        kd_reject_write(why, why_len, "the baseline's signature check failed: %s", kd_err_str(err));
        return -1;
    }
    kd_buf payload;
    kd_buf_init(&payload);
    uint8_t sig[72];
    memset(sig, 0x30, sizeof sig);
    if (signer_of(r, seat) &&
        kd_wire_presigned_command(1, cmd->data, cmd->len, signer_of(r, seat), sig, sizeof sig, &payload) == KD_OK &&
        payload.len > k->payload)
        k->payload = payload.len;
    kd_buf_fini(&payload);
    r->spent += k->prove[i] + k->verify[i];
    return 0;
}

/* Whether the run has what it needs. */
static int enough(const kd_bench_ctx *b, const duty_run *r)
{
    size_t want = b->quick ? 1 : MIN_SAMPLES;
    for (size_t i = 0; i < r->n_kinds; i++)
        if (r->kinds[i].n < want)
            return 0;
    return r->n_kinds && r->spent >= b->run_s;
}

/* Plays the match until enough() or it ends. */
static int play(const kd_bench_ctx *b, duty_run *r, char *why, size_t why_len)
{
    const kd_episode_type *t = r->type;
    uint64_t rng = 0x5eed5eedull, daa = 2;
    kd_buf cmd;
    kd_buf_init(&cmd);
    int rc = 0;
    for (unsigned step = 0; !rc && step < MAX_STEPS && !enough(b, r); step++, daa++) {
        int acted = 0;
        for (int seat = 0; !rc && !acted && seat < (int)t->max_seats; seat++) {
            if (!(r->signers.seeded & (1u << seat)))
                continue;
            cmd.len = 0;
            double t0 = cpu_now();
            kd_err err = t->secret_duty(r->state, seat, r->signers.seeds[seat], &cmd);
            double proving = cpu_now() - t0;
            if (err == KD_ERR_NO_MOVE)
                continue;
            if (err) {
                kd_reject_write(why, why_len, "%s: seat %d's duty: %s", t->ops->type_name, seat, kd_err_str(err));
                rc = -1;
                break;
            }
            rc = measure(r, seat, &cmd, proving, daa, why, why_len);
            if (!rc)
                rc = apply(r, seat, &cmd, daa, why, why_len);
            acted = 1;
        }
        if (rc || acted)
            continue;
        kd_game_status st = t->status(r->state);
        if (st.phase != KD_PHASE_IN_PROGRESS || st.to_move < 0)
            break; /* the match is over */
        cmd.len = 0;
        if (t->random_command(r->state, st.to_move, 1, &rng, &cmd) != KD_OK)
            break;
        rc = apply(r, st.to_move, &cmd, daa, why, why_len);
    }
    kd_buf_fini(&cmd);
    return rc;
}

static void report(const kd_bench_ctx *b, duty_run *r)
{
    const char *name = r->type->ops->type_name;
    kd_bench_heading(b,
                     "duties of %s: each step a seat owes, made (prove) and taken by the rules (verify), CPU time "
                     "on one core",
                     name);
    for (size_t i = 0; i < r->n_kinds; i++) {
        kind_samples *k = &r->kinds[i];
        char id[96], what[200];
        struct {
            const char *tag, *text;
            double *v;
        } parts[] = {
            {"prove", "made from the seat's secret (secret_duty)", k->prove},
            {"verify", "taken by the rules, every check included (execute)", k->verify},
            {"pool", "its precheck, run ahead by the engine's verifier pool", k->pool},
            {"writer", "taken by the rules given the precheck's verdict (the single writer)", k->writer},
        };
        double base[MAX_SAMPLES];
        for (size_t s = 0; s < k->n; s++)
            base[s] = k->sig[s] * 1e3;
        kd_bench_stat sig = kd_bench_stat_of(base, k->n);
        snprintf(id, sizeof id, "duties.%s.%s.baseline", name, k->name);
        snprintf(what, sizeof what,
                 "%s %s, baseline (same run): its signature checked (digest + secp256k1 verify), median of %zu", name,
                 k->name, k->n);
        kd_bench_figure(b, id, what, sig.median, "ms", &sig);
        for (size_t p = 0; p < sizeof parts / sizeof parts[0]; p++) {
            if (p >= 2 && !r->type->ops->precheck)
                break;
            double ms[MAX_SAMPLES];
            for (size_t s = 0; s < k->n; s++)
                ms[s] = parts[p].v[s] * 1e3;
            kd_bench_stat st = kd_bench_stat_of(ms, k->n);
            snprintf(id, sizeof id, "duties.%s.%s.%s", name, k->name, parts[p].tag);
            snprintf(what, sizeof what, "%s %s, %s, median of %zu", name, k->name, parts[p].text, k->n);
            kd_bench_figure(b, id, what, st.median, "ms", &st);
            if (sig.median > 0) {
                snprintf(id, sizeof id, "duties.%s.%s.%s_ratio", name, k->name, parts[p].tag);
                snprintf(what, sizeof what, "%s %s, %s / baseline (signature checks)", name, k->name, parts[p].tag);
                kd_bench_figure(b, id, what, st.median / sig.median, "x", NULL);
            }
        }
        snprintf(id, sizeof id, "duties.%s.%s.payload", name, k->name);
        snprintf(what, sizeof what, "%s %s, transaction payload (a 72-byte signature)", name, k->name);
        kd_bench_figure(b, id, what, (double)k->payload, "bytes", NULL);
    }
}

static kd_err bench_type(const kd_bench_ctx *b, const kd_episode_type *type, char *why, size_t why_len)
{
    const kd_episode_ops *ops = type->ops;
    duty_run *r = calloc(1, sizeof *r);
    if (!r)
        return KD_ERR_NOMEM;
    r->type = type;
    kd_err err = kd_key_test("bench-duties", &r->signer);
    r->state = calloc(1, ops->state_size);
    r->copy = calloc(1, ops->state_size);
    r->undo = calloc(1, ops->undo_size);
    if (!err && !(r->state && r->copy && r->undo))
        err = KD_ERR_NOMEM;
    size_t seats = type->min_seats >= 2 || type->max_seats < 2 ? type->min_seats : 2;
    if (!err)
        err = kd_perft_start(type, kd_type_table_config(b->types, ops->type_name), b->params, seats, r->state,
                             &r->signers, why, why_len);
    if (!err && play(b, r, why, why_len) != 0)
        err = KD_ERR_INTERNAL;
    if (!err)
        report(b, r);
    kd_perft_signers_wipe(&r->signers);
    memset(&r->signer, 0, sizeof r->signer);
    free(r->state);
    free(r->copy);
    free(r->undo);
    free(r);
    return err;
}

kd_err kd_bench_duties(const kd_bench_ctx *b, char *why, size_t why_len)
{
    kd_err err = KD_OK;
    int one = b->type_given || b->params;
    char detail[512] = "";
    for (size_t i = 0; !err && i < (one ? 1 : b->types->count); i++) {
        const kd_episode_type *type = one ? b->type : b->types->entries[i].type;
        if (!type->secret_duty)
            continue;
        err = bench_type(b, type, detail, sizeof detail);
        if (err)
            kd_reject_write(why, why_len, "duties of %s: %s", type->ops->type_name,
                            detail[0] ? detail : kd_err_str(err));
    }
    fflush(b->out);
    return err;
}
