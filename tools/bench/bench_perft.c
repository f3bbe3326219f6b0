/*
 * bench_perft.c — the perft part of `kdapp bench`: how fast each type
 * generates, executes (signature check included) and rolls back moves
 * through the type table (tools/sim/perft.h), in nodes per second, and
 * against a peer program's own perft (--peer) measured in the same run.
 *
 * The depth: --perft-depth N, else grown from 1 until one count takes at
 * least GROW_TARGET_S (--quick: QUICK_TARGET_S), stopping earlier when the
 * next depth is predicted (this step's time times the last step's growth)
 * to take more than GROW_MAX_S, when a count is 0 (every game over before
 * that depth: the last depth with moves is kept), or at GROW_MAX_DEPTH.
 *
 * Then `repeats` timed counts; with a peer, each of ours is followed by one
 * of the peer's, so load from other processes falls on both, and the best
 * of each side is compared (the least disturbed run).
 *
 * The peer protocol: the command runs under /bin/sh -c, once per run, with
 *
 *   KDAPP_PERFT_TYPE    the type's name (its ops->type_name)
 *   KDAPP_PERFT_DEPTH   the depth (decimal)
 *   KDAPP_PERFT_PARAMS  the --params JSON, compact (unset without --params)
 *
 * in its environment, and prints on stdout a line
 *
 *   nodes N seconds S
 *
 * (N its count, S the seconds its perft took, timed by itself so that its
 * start-up is left out; other lines are ignored). A peer whose N differs
 * from ours, that exits non-zero or prints no such line fails the bench;
 * so does one still running after --peer-timeout seconds (its process
 * group is killed: the shell and whatever it started).
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/bench/bench.h"
#include "tools/bench/bench_proc.h"
#include "tools/sim/perft.h"

#define GROW_TARGET_S 0.5
#define QUICK_TARGET_S 0.2
#define GROW_MAX_S 2.0
#define GROW_MAX_DEPTH 24u

/* The start position of one type, with the keys that sign its moves. */
typedef struct {
    const kd_episode_type *type;
    void *state; /* ops->state_size bytes, owned */
    kd_perft_signers signers;
} position;

static kd_err position_open(const kd_bench_ctx *b, const kd_episode_type *type, position *p, char *why, size_t why_len)
{
    p->type = type;
    if (!(p->state = calloc(1, type->ops->state_size)))
        return KD_ERR_NOMEM;
    size_t seats = type->min_seats >= 2 || type->max_seats < 2 ? type->min_seats : 2;
    kd_err err = kd_perft_start(type, kd_type_table_config(b->types, type->ops->type_name), b->params, seats, p->state,
                                &p->signers, why, why_len);
    if (err) {
        free(p->state);
        p->state = NULL;
    }
    return err;
}

static void position_close(position *p)
{
    free(p->state);
    p->state = NULL;
}

/* One count of `depth` plies, timed. */
static kd_err count_timed(position *p, unsigned depth, uint64_t *nodes, double *secs, char *why, size_t why_len)
{
    double start = kd_bench_now();
    kd_err err = kd_perft_count(p->type, &p->signers, p->state, depth, NULL, NULL, nodes, why, why_len);
    *secs = kd_bench_now() - start;
    return err;
}

/* The depth of the measured runs (see the top of the file). */
static kd_err choose_depth(const kd_bench_ctx *b, position *p, unsigned *depth, char *why, size_t why_len)
{
    if (b->perft_depth) {
        *depth = b->perft_depth;
        return KD_OK;
    }
    double target = b->quick ? QUICK_TARGET_S : GROW_TARGET_S, last = 0;
    unsigned d = 1;
    for (;; d++) {
        uint64_t nodes;
        double secs;
        kd_err err = count_timed(p, d, &nodes, &secs, why, why_len);
        if (err)
            return err;
        if (!nodes) { /* the game tree ends before depth d */
            d = d > 1 ? d - 1 : 1;
            break;
        }
        double growth = last > 0 ? secs / last : 2.0;
        if (secs >= target || d >= GROW_MAX_DEPTH || secs * (growth > 1 ? growth : 1) > GROW_MAX_S)
            break;
        last = secs;
    }
    *depth = d;
    return KD_OK;
}

/* "nodes N seconds S" (surrounding blanks allowed); 0 when `line` is one. */
static int parse_peer_line(const char *line, uint64_t *nodes, double *secs)
{
    unsigned long long n;
    double s;
    int end = 0;
    if (sscanf(line, " nodes %llu seconds %lf %n", &n, &s, &end) != 2 || line[end] || !(s > 0))
        return -1;
    *nodes = n;
    *secs = s;
    return 0;
}

/*
 * Runs the peer once (see the top of the file) and reads its result.
 * Errors, with a sentence in `why`: KD_ERR_IO (it could not be started or
 * exited non-zero), KD_ERR_TIMEOUT (still running after b->peer_timeout_s:
 * stopped), KD_ERR_PARSE (no result line), KD_ERR_NOMEM.
 */
static kd_err peer_run(const kd_bench_ctx *b, const kd_episode_type *type, unsigned depth, const char *params,
                       uint64_t *nodes, double *secs, char *why, size_t why_len)
{
    char *argv[] = {"/bin/sh", "-c", (char *)b->peer, NULL}, *env[4] = {NULL}, *line;
    char depth_text[40], type_text[160];
    kd_bench_proc p;
    kd_buf param_text;
    kd_buf_init(&param_text);
    snprintf(depth_text, sizeof depth_text, "KDAPP_PERFT_DEPTH=%u", depth);
    snprintf(type_text, sizeof type_text, "KDAPP_PERFT_TYPE=%s", type->ops->type_name);
    if (kd_buf_append(&param_text, "KDAPP_PERFT_PARAMS", 18) || /* without --params: unset */
        (params && (kd_buf_append(&param_text, "=", 1) || kd_buf_append(&param_text, params, strlen(params)))) ||
        kd_buf_append(&param_text, "", 1)) {
        kd_buf_fini(&param_text);
        return KD_ERR_NOMEM;
    }
    env[0] = type_text, env[1] = depth_text, env[2] = (char *)param_text.data;
    int rc = kd_bench_proc_spawn(&p, argv, (const char *const *)env, NULL,
                                 KD_BENCH_PIPES | KD_BENCH_GROUP | KD_BENCH_STDERR);
    kd_buf_fini(&param_text);
    if (rc != 0) {
        kd_reject_write(why, why_len, "--peer: cannot start /bin/sh: %s", strerror(errno));
        return KD_ERR_IO;
    }
    close(p.to); /* no input */
    p.to = -1;
    double deadline = kd_bench_now() + (double)b->peer_timeout_s;
    int found = 0;
    while (kd_bench_read_line(&p.out, deadline, &line, NULL) == 0)
        found = found || parse_peer_line(line, nodes, secs) == 0;
    if (!found && p.len > p.off) /* a last line without its newline */
        found = parse_peer_line(p.buf + p.off, nodes, secs) == 0;
    int st = kd_bench_now() < deadline ? kd_bench_proc_reap(&p, deadline) : -1;
    if (st < 0) {
        kill(-p.pid, SIGKILL); /* the group: the shell and what it started */
        kd_bench_proc_stop(&p, 0);
        kd_reject_write(why, why_len, "--peer '%s' did not finish within %u s (--peer-timeout): stopped", b->peer,
                        b->peer_timeout_s);
        return KD_ERR_TIMEOUT;
    }
    kd_bench_proc_stop(&p, 0);
    if (st != 0) {
        kd_reject_write(why, why_len, "--peer '%s' %s %d", b->peer,
                        st < 128 ? "exited with status" : "was killed by signal", st < 128 ? st : st - 128);
        return KD_ERR_IO;
    }
    if (found)
        return KD_OK;
    kd_reject_write(why, why_len, "--peer '%s' printed no line 'nodes N seconds S' (S > 0)", b->peer);
    return KD_ERR_PARSE;
}

/* One side's runs: the best (least) and median seconds. */
static void report_side(const kd_bench_ctx *b, const char *who, uint64_t nodes, double *secs, size_t runs)
{
    kd_bench_stat s = kd_bench_stat_of(secs, runs);
    kd_bench_note(b, "%-8s %14.0f nodes/s, best of %zu run%s (%.3g s; median %.3g s, max %.3g s)", who,
                  (double)nodes / s.min, runs, runs == 1 ? "" : "s", s.min, s.median, s.max);
}

/* The measured runs of one type, and the peer's when there is one. */
static kd_err bench_type(const kd_bench_ctx *b, const kd_episode_type *type, const char *params, int *missed, char *why,
                         size_t why_len)
{
    position p = {0};
    size_t runs = (size_t)b->repeats;
    double *ours = calloc(runs, sizeof *ours), *theirs = calloc(runs, sizeof *theirs);
    unsigned depth = 0;
    uint64_t nodes = 0;
    kd_err err = ours && theirs ? position_open(b, type, &p, why, why_len) : KD_ERR_NOMEM;
    if (!err)
        err = choose_depth(b, &p, &depth, why, why_len);
    for (size_t r = 0; !err && r < runs; r++) {
        err = count_timed(&p, depth, &nodes, &ours[r], why, why_len);
        uint64_t peer_nodes = 0;
        if (!err && b->peer)
            err = peer_run(b, type, depth, params, &peer_nodes, &theirs[r], why, why_len);
        if (!err && b->peer && peer_nodes != nodes) {
            kd_reject_write(why, why_len,
                            "MISMATCH at depth %u: kdapp-c counts %llu nodes, the peer %llu: the two move "
                            "generators disagree",
                            depth, (unsigned long long)nodes, (unsigned long long)peer_nodes);
            err = KD_ERR_INTERNAL;
        }
    }
    if (err)
        goto done;
    kd_bench_heading(b, "perft %s from %s, depth %u: %llu nodes (legal_moves, execute, rollback, memcmp per node)",
                     type->ops->type_name, params ? params : "the start position", depth, (unsigned long long)nodes);
    /* each of our counts was followed by one of the peer's: a pair, whose ratio of nodes/s is theirs/ours in seconds */
    double *ratio = b->peer ? calloc(runs, sizeof *ratio) : NULL;
    for (size_t r = 0; ratio && r < runs; r++)
        ratio[r] = ours[r] > 0 ? theirs[r] / ours[r] : 0;
    report_side(b, "kdapp-c", nodes, ours, runs);
    char id[96], what[160];
    snprintf(id, sizeof id, "perft.%s", type->ops->type_name);
    snprintf(what, sizeof what, "perft %s, depth %u, best of %zu", type->ops->type_name, depth, runs);
    kd_bench_stat so = kd_bench_stat_of(ours, runs);
    kd_bench_stat nodes_s = {(double)nodes / so.median, (double)nodes / so.max, (double)nodes / so.min};
    kd_bench_figure(b, id, what, nodes_s.max, "nodes/s", &nodes_s);
    if (ratio) {
        report_side(b, "peer", nodes, theirs, runs);
        kd_bench_stat rs = kd_bench_stat_of(ratio, runs);
        double spread = rs.median > 0 ? (rs.max - rs.min) / rs.median : 0;
        kd_bench_note(b, "peer: %s (the same count; its own timing, start-up left out)", b->peer);
        if (b->peer_target > 0) {
            const char *verdict = kd_bench_verdict(b, b->peer_target, 1, rs);
            kd_bench_note(b,
                          "ratio ours/peer %.2f (min %.2f, max %.2f over %zu pairs, spread %.0f%%), target >= %.2f: %s",
                          rs.median, rs.min, rs.max, runs, spread * 100, b->peer_target, verdict);
            *missed += strcmp(verdict, "SHORT") == 0;
        } else {
            kd_bench_note(b, "ratio ours/peer %.2f (min %.2f, max %.2f over %zu pairs, spread %.0f%%)", rs.median,
                          rs.min, rs.max, runs, spread * 100);
        }
        snprintf(id, sizeof id, "perft.%s.peer_ratio", type->ops->type_name);
        snprintf(what, sizeof what, "perft %s, depth %u: nodes/s ours over the peer's (median of pairs)",
                 type->ops->type_name, depth);
        kd_bench_figure(b, id, what, rs.median, "×", &rs);
    }
    free(ratio);
done:
    position_close(&p);
    free(ours);
    free(theirs);
    return err;
}

kd_err kd_bench_perft(const kd_bench_ctx *b, int *missed, char *why, size_t why_len)
{
    char *params = b->params ? json_dumps(b->params, JSON_COMPACT) : NULL;
    kd_err err = b->params && !params ? KD_ERR_NOMEM : KD_OK;
    char detail[1024] = "";
    /* One type when chosen (or given params, which belong to one type); else each registered type. */
    int one = b->type_given || b->params;
    for (size_t i = 0; !err && i < (one ? 1 : b->types->count); i++) {
        const kd_episode_type *type = one ? b->type : b->types->entries[i].type;
        err = bench_type(b, type, params, missed, detail, sizeof detail);
        if (err)
            kd_reject_write(why, why_len, "perft %s: %s", type->ops->type_name, detail[0] ? detail : kd_err_str(err));
    }
    fflush(b->out);
    free(params);
    return err;
}
