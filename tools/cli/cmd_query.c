/*
 * cmd_query.c — read-only views of a data directory: `show`, `strategy`,
 * `list`, `log` and `audit`. They open the store read-only, so they work beside a
 * running daemon.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handlers/audit.h"
#include "handlers/proto_json.h"
#include "handlers/ratings.h"
#include "handlers/view.h"
#include "kdapp.pb-c.h"
#include "store.pb-c.h"
#include "tools/cli/commands.h"
#include "tools/common/options.h"

/* Parses "[--data DIR] [--json] [ID]" for show/strategy/list/log. */
static int parse_args(kd_cli *cli, int argc, char **argv, int want_id, int *json, uint32_t *id, const char *usage)
{
    char text[200], prog[48];
    snprintf(text, sizeof text, "usage: %s\n", usage);
    snprintf(prog, sizeof prog, "kdapp %s", argc > 0 ? argv[0] : "");
    *json = 0;
    const kd_option opts[] = {
        KD_CLI_OPTIONS(cli), {.name = "json", .short_name = 'j', .kind = KD_OPT_FLAG, .value = json}, {0}};
    const kd_usage u = {.prog = prog, .print = kd_usage_print_text, .ctx = text, .operands = want_id};
    int optind_first, stop, rc = kd_options_parse_usage(&u, opts, argc, argv, &optind_first, &stop);
    if (rc || stop)
        return stop ? -1 : rc;
    if (want_id) {
        uint64_t v;
        const char *arg = argv[optind_first];
        if (kd_cli_parse_u64(arg, 1, UINT32_MAX, &v) != 0) {
            fprintf(stderr, "%s: episode id '%s' is not valid: use 1 to %u\n", argv[0], arg, UINT32_MAX);
            return KD_EXIT_USAGE;
        }
        *id = (uint32_t)v;
    }
    return KD_EXIT_OK;
}

/* Reads episode `id` into a view (state and digest from one commit);
 * prints why not. */
static int load_view(kd_cli *cli, kd_engine *engine, uint32_t id, kd_episode_view *view, const char *cmd)
{
    kd_read *rd;
    kd_err err = kd_engine_read_begin(engine, &rd);
    if (!err)
        err = kd_episode_view_read(&cli->types, rd, id, view);
    kd_engine_read_end(rd);
    if (err == KD_ERR_NOT_FOUND) {
        fprintf(stderr, "kdapp %s: episode %u does not exist in %s\n", cmd, id, kd_engine_dir(engine));
        return KD_EXIT_USAGE;
    }
    if (err) {
        fprintf(stderr, "kdapp %s: cannot read episode %u: %s\n", cmd, id, kd_err_str(err));
        return KD_EXIT_FAIL;
    }
    return KD_EXIT_OK;
}

/* The start of every query: its arguments (parse_args), then the store,
 * opened read-only. Returns the exit code to leave with when not 0; 0 with
 * *engine NULL when --help was answered, else the caller closes *engine. */
static int open_query(kd_cli *cli, int argc, char **argv, int want_id, int *json, uint32_t *id, const char *usage,
                      kd_engine **engine)
{
    *engine = NULL;
    int rc = parse_args(cli, argc, argv, want_id, json, id, usage);
    if (rc)
        return rc < 0 ? KD_EXIT_OK : rc;
    return kd_cli_open_engine(cli, NULL, 1, 0, engine);
}

/* open_query for a command about one episode (show, strategy: `cmd`), then
 * that episode's view. Returns as open_query; when it returns 0 with an
 * engine, the caller finis `view` and closes *engine, otherwise there is
 * nothing to release. */
static int open_episode_query(kd_cli *cli, int argc, char **argv, const char *usage, const char *cmd, int *json,
                              uint32_t *id, kd_engine **engine, kd_episode_view *view)
{
    int rc = open_query(cli, argc, argv, 1, json, id, usage, engine);
    if (rc || !*engine)
        return rc;
    kd_episode_view_init(view);
    if ((rc = load_view(cli, *engine, *id, view, cmd))) {
        kd_episode_view_fini(view);
        kd_engine_close(*engine);
        *engine = NULL;
    }
    return rc;
}

static int print_json(json_t *j)
{
    if (!j)
        return KD_EXIT_FAIL;
    char *text = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(j);
    if (!text)
        return KD_EXIT_FAIL;
    puts(text);
    free(text);
    return KD_EXIT_OK;
}

int kd_cmd_show(kd_cli *cli, int argc, char **argv)
{
    int json;
    uint32_t id = 0;
    kd_engine *engine;
    kd_episode_view view;
    int rc =
        open_episode_query(cli, argc, argv, "kdapp show [--data DIR] [--json] ID", "show", &json, &id, &engine, &view);
    if (rc || !engine)
        return rc;
    if (json) {
        rc = print_json(kd_episode_view_json(&view));
        goto done;
    }
    char h[17];
    kd_hex_encode(view.block_hash, 8, h);
    printf("episode %u (%s) after %s in block %s, log seq %llu\n", view.episode_id, view.type_name,
           kd_event_kind_name(view.last_event), h, (unsigned long long)view.log_seq);
    kd_buf board;
    kd_buf_init(&board);
    if (kd_episode_view_render(&view, cli->render_flags, &board) == KD_OK)
        fwrite(board.data, 1, board.len, stdout);
    kd_buf_fini(&board);
done:
    kd_episode_view_fini(&view);
    kd_engine_close(engine);
    return rc;
}

int kd_cmd_strategy(kd_cli *cli, int argc, char **argv)
{
    int json;
    uint32_t id = 0;
    kd_engine *engine;
    kd_episode_view view;
    int rc =
        open_episode_query(cli, argc, argv, "kdapp strategy [--data DIR] ID", "strategy", &json, &id, &engine, &view);
    if (rc || !engine)
        return rc;
    json_t *sc = kd_episode_view_strategy_json(&view);
    if (!sc) {
        fprintf(stderr, "kdapp strategy: episode %u is a %s, which has no strategy context\n", id, view.type_name);
        rc = KD_EXIT_USAGE;
    } else {
        rc = print_json(sc);
    }
    kd_episode_view_fini(&view);
    kd_engine_close(engine);
    return rc;
}

/* The STATUS, MOVES and MODE columns of `kdapp list`: the type's view
 * members "status" and "cap" where it has them ("-" otherwise; the phase
 * when it has no status), and the move counter (every command applied). */
static void list_columns(const kd_episode_view *v, char *status, size_t status_len, unsigned *moves, char *mode,
                         size_t mode_len)
{
    json_t *own = v->type && v->view.len ? v->type->view_json(v->view.data, v->view.len) : NULL;
    json_t *st = json_object_get(own, "status");
    json_t *cap = json_object_get(own, "cap");
    snprintf(status, status_len, "%s",
             json_is_string(st) ? json_string_value(st)
             : own              ? kd_game_phase_name(v->status.phase)
                                : "-");
    *moves = (unsigned)v->moves; /* the move counter, for every type */
    if (json_is_integer(cap))
        snprintf(mode, mode_len, "stress %u", (unsigned)json_integer_value(cap));
    else
        snprintf(mode, mode_len, "%s", own && json_is_null(cap) ? "classic" : "-");
    json_decref(own);
}

int kd_cmd_list(kd_cli *cli, int argc, char **argv)
{
    int json;
    kd_engine *engine;
    int rc = open_query(cli, argc, argv, 0, &json, NULL, "kdapp list [--data DIR] [--json]", &engine);
    if (rc || !engine)
        return rc;
    enum { PAGE = 256 };
    uint32_t ids[PAGE], after = 0;
    kd_episode_view *views = malloc(PAGE * sizeof *views);
    size_t n = 0;
    if (!views) {
        kd_engine_close(engine);
        return KD_EXIT_FAIL;
    }
    for (size_t i = 0; i < PAGE; i++)
        kd_episode_view_init(&views[i]);
    if (!json)
        printf("%-10s %-10s %-12s %6s %s\n", "ID", "TYPE", "STATUS", "MOVES", "MODE");
    do {
        /* A page at a time, read through one handle and printed after it
         * ends (a slow reader of our output must not pin the store). */
        kd_read *rd;
        size_t n_views = 0;
        kd_err err = kd_engine_read_begin(engine, &rd);
        if (!err)
            err = kd_read_episode_ids(rd, after, ids, PAGE, &n);
        for (size_t i = 0; !err && i < n; i++)
            if (kd_episode_view_read(&cli->types, rd, ids[i], &views[n_views]) == KD_OK)
                n_views++;
        kd_engine_read_end(rd);
        if (err) {
            fprintf(stderr, "kdapp list: cannot read episodes: %s\n", kd_err_str(err));
            rc = KD_EXIT_FAIL;
            break;
        }
        if (n)
            after = ids[n - 1];
        for (size_t i = 0; i < n_views; i++) {
            const kd_episode_view *view = &views[i];
            if (json) {
                json_t *j = kd_episode_view_json(view);
                char *text = j ? json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
                if (text)
                    puts(text);
                free(text);
                json_decref(j);
                continue;
            }
            char status[16], mode[16];
            unsigned moves;
            list_columns(view, status, sizeof status, &moves, mode, sizeof mode);
            printf("%-10u %-10s %-12s %6u %s\n", view->episode_id, view->type_name, status, moves, mode);
        }
    } while (n == PAGE);
    for (size_t i = 0; i < PAGE; i++)
        kd_episode_view_fini(&views[i]);
    free(views);
    kd_engine_close(engine);
    return rc;
}

/* An applied accept the chain later left, and the revert entry that undid
 * it. */
typedef struct {
    uint64_t accept, revert;
} log_undone;

typedef struct {
    log_undone *by_revert; /* in log order of the reverts */
    log_undone *by_accept; /* the same pairs, in log order of the accepts */
    size_t n;
} log_reverts;

static void log_reverts_fini(log_reverts *r)
{
    free(r->by_revert);
    free(r->by_accept);
}

static int by_accept_cmp(const void *a, const void *b)
{
    const log_undone *x = a, *y = b;
    return x->accept < y->accept ? -1 : x->accept > y->accept;
}

/* Pairs every applied revert with the accept it undid: a revert undoes the
 * newest block still applied, so the applied accepts form a stack. One
 * pass over entries 1..last; what remains on the stack is the canonical
 * chain. Errors: storage errors, KD_ERR_NOMEM. */
static kd_err log_reverts_read(kd_engine *engine, uint64_t last, log_reverts *out)
{
    memset(out, 0, sizeof *out);
    kd_buf stack = {0}, pairs = {0};
    kd_err err = KD_OK;
    for (uint64_t seq = 1; !err && seq <= last; seq++) {
        kd_read *rd;
        kd_log_change change = {0};
        err = kd_engine_read_begin(engine, &rd);
        if (!err) {
            err = kd_read_log_change(rd, seq, &change);
            kd_engine_read_end(rd);
        }
        if (!err && change.applied && !change.reverted) {
            err = kd_buf_append(&stack, &seq, sizeof seq);
        } else if (!err && change.applied) {
            if (stack.len < sizeof(uint64_t)) {
                err = KD_ERR_STORE; /* a revert with no block applied */
            } else {
                stack.len -= sizeof(uint64_t);
                log_undone pair = {.revert = seq};
                memcpy(&pair.accept, stack.data + stack.len, sizeof pair.accept);
                err = kd_buf_append(&pairs, &pair, sizeof pair);
            }
        }
        kd_log_change_fini(&change);
    }
    kd_buf_fini(&stack);
    out->n = pairs.len / sizeof(log_undone);
    out->by_revert = (log_undone *)pairs.data;
    if (!err && out->n) {
        out->by_accept = malloc(pairs.len);
        if (!out->by_accept)
            err = KD_ERR_NOMEM;
        else {
            memcpy(out->by_accept, pairs.data, pairs.len);
            qsort(out->by_accept, out->n, sizeof *out->by_accept, by_accept_cmp);
        }
    }
    if (err)
        log_reverts_fini(out);
    return err;
}

/* The pair whose `accept` (by_accept) or `revert` (by_revert) is `seq`, or
 * NULL; both arrays are sorted on the field searched. */
static const log_undone *log_undone_find(const log_undone *pairs, size_t n, uint64_t seq, int by_revert)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t key = by_revert ? pairs[mid].revert : pairs[mid].accept;
        if (key == seq)
            return &pairs[mid];
        if (key < seq)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* For an applied creation, its type and the params it was created with
 * (the log keeps them with the engine's defaults resolved) set in `tx`:
 * the type's params message as JSON, or hex when this build does not
 * know the type. Nothing is set for a command. */
static void creation_json(const kd_type_table *types, const ProtobufCBinaryData *payload,
                          const ProtobufCBinaryData *effective, json_t *tx)
{
    Kdapp__EpisodeMessage *em = kdapp__episode_message__unpack(NULL, payload->len, payload->data);
    if (em && em->body_case == KDAPP__EPISODE_MESSAGE__BODY_NEW_EPISODE) {
        const char *name = em->new_episode->episode_type;
        const kd_episode_type *type = kd_type_table_find(types, name);
        json_t *params =
            type && type->params_message ? kd_proto_json(type->params_message, effective->data, effective->len) : NULL;
        json_object_set_new(tx, "type", json_string(name));
        json_object_set_new(tx, "params", params ? params : kd_json_hex(effective->data, effective->len));
    }
    if (em)
        kdapp__episode_message__free_unpacked(em, NULL);
}

/* One log entry as JSON: seq, kind, block, status, height, digest; for an
 * accept its daa, whether the block is still on the canonical chain (and
 * else the revert that undid it) and, per tx, the episode, applied (or
 * error_code and error), canonical (applied on a block still on the
 * chain), the payload (the EpisodeMessage as received, hex) and, on the
 * last transaction applied to a finished game on the canonical chain, its
 * "result" (handlers/ratings.h: players, each seat's result, the house
 * seats): what the ratings are computed from. For an applied revert the
 * accept entry it undid. */
static json_t *entry_json(const kd_type_table *types, uint64_t seq, const Kdapp__Store__LogEntry *le,
                          const log_reverts *reverts, const kd_ratings *games)
{
    char hash[2 * KD_HASH_LEN + 1] = "", digest[2 * KD_HASH_LEN + 1] = "";
    const char *kind = "invalid";
    Kdapp__EngineMsg *m = kdapp__engine_msg__unpack(NULL, le->message.len, le->message.data);
    const ProtobufCBinaryData *h = NULL;
    if (m && m->kind_case == KDAPP__ENGINE_MSG__KIND_ACCEPTED) {
        kind = "accept";
        h = &m->accepted->accepting_hash;
    } else if (m && m->kind_case == KDAPP__ENGINE_MSG__KIND_REVERTED) {
        kind = "revert";
        h = &m->reverted->accepting_hash;
    }
    if (h && h->len == KD_HASH_LEN)
        kd_hex_encode(h->data, KD_HASH_LEN, hash);
    if (le->digest.len == KD_HASH_LEN)
        kd_hex_encode(le->digest.data, KD_HASH_LEN, digest);
    const char *status = le->status == KDAPP__MSG_STATUS__MSG_APPLIED ? "applied" : "refused";
    json_t *j = json_pack("{s:I, s:s, s:s, s:s, s:I, s:s}", "seq", (json_int_t)seq, "kind", kind, "block", hash,
                          "status", status, "height", (json_int_t)le->tip_height, "digest", digest);
    if (j && le->status != KDAPP__MSG_STATUS__MSG_APPLIED) {
        json_object_set_new(j, "error_code", json_string(le->error_code ? le->error_code : ""));
        json_object_set_new(j, "error", json_string(le->error ? le->error : ""));
    }
    int applied = le->status == KDAPP__MSG_STATUS__MSG_APPLIED;
    const log_undone *undone = NULL;
    if (j && m && m->kind_case == KDAPP__ENGINE_MSG__KIND_ACCEPTED) {
        json_object_set_new(j, "daa", json_integer((json_int_t)m->accepted->accepting_daa));
        undone = applied ? log_undone_find(reverts->by_accept, reverts->n, seq, 0) : NULL;
        json_object_set_new(j, "canonical", json_boolean(applied && !undone));
        json_object_set_new(j, "reverted_by", undone ? json_integer((json_int_t)undone->revert) : json_null());
    } else if (j && m && m->kind_case == KDAPP__ENGINE_MSG__KIND_REVERTED && applied) {
        const log_undone *pair = log_undone_find(reverts->by_revert, reverts->n, seq, 1);
        json_object_set_new(j, "reverts", pair ? json_integer((json_int_t)pair->accept) : json_null());
    }
    if (j && le->n_txs) {
        json_t *txs = json_array();
        for (size_t i = 0; txs && i < le->n_txs; i++) {
            const Kdapp__Store__TxOutcome *o = le->txs[i];
            json_t *t = o->applied
                            ? json_pack("{s:i, s:b, s:b}", "episode", (json_int_t)o->episode_id, "applied", 1,
                                        "canonical", applied && !undone)
                            : json_pack("{s:i, s:b, s:b, s:s, s:s}", "episode", (json_int_t)o->episode_id, "applied", 0,
                                        "canonical", 0, "error_code", o->error_code, "error", o->error);
            /* the EpisodeMessage as received, so anyone can re-check it
             * from the log alone (the chance games' draws) */
            if (t && h && m->accepted->n_txs == le->n_txs) {
                json_object_set_new(t, "payload",
                                    kd_json_hex(m->accepted->txs[i]->payload.data, m->accepted->txs[i]->payload.len));
                if (o->applied)
                    creation_json(types, &m->accepted->txs[i]->payload, &o->effective_params, t);
            }
            const kd_rated_game *g = t && o->applied ? kd_ratings_game_at(games, seq, (uint32_t)i) : NULL;
            if (g)
                json_object_set_new(t, "result", kd_game_result_json(g));
            json_array_append_new(txs, t);
        }
        json_object_set_new(j, "txs", txs);
    }
    if (m)
        kdapp__engine_msg__free_unpacked(m, NULL);
    return j;
}

static void print_entry_text(const json_t *j)
{
    const char *block = json_string_value(json_object_get(j, "block"));
    printf("%6lld %-6s %.16s %-7s height %lld digest %.16s", (long long)json_integer_value(json_object_get(j, "seq")),
           json_string_value(json_object_get(j, "kind")), block ? block : "",
           json_string_value(json_object_get(j, "status")), (long long)json_integer_value(json_object_get(j, "height")),
           json_string_value(json_object_get(j, "digest")));
    const json_t *txs = json_object_get(j, "txs");
    if (txs) {
        size_t applied = 0, i;
        const json_t *t;
        json_array_foreach(txs, i, t) applied += json_is_true(json_object_get(t, "applied"));
        printf(" txs %zu/%zu", applied, json_array_size(txs));
        json_array_foreach(txs, i, t) if (!json_is_true(json_object_get(t, "applied")))
            printf(" [%zu:%s]", i, json_string_value(json_object_get(t, "error_code")));
    }
    const json_t *undone = json_object_get(j, "reverted_by");
    if (json_is_integer(undone))
        printf(" reverted by %lld", (long long)json_integer_value(undone));
    if (json_object_get(j, "error"))
        printf(" %s: %s", json_string_value(json_object_get(j, "error_code")),
               json_string_value(json_object_get(j, "error")));
    putchar('\n');
}

int kd_cmd_log(kd_cli *cli, int argc, char **argv)
{
    int json;
    kd_engine *engine;
    int rc = open_query(cli, argc, argv, 0, &json, NULL, "kdapp log [--data DIR] [--json]", &engine);
    if (rc || !engine)
        return rc;
    kd_tip tip;
    if (kd_engine_tip(engine, &tip) != KD_OK) {
        kd_engine_close(engine);
        return KD_EXIT_FAIL;
    }
    log_reverts reverts;
    if (log_reverts_read(engine, tip.last_seq, &reverts) != KD_OK) {
        fprintf(stderr, "kdapp log: the log cannot be read to pair its reverts with their blocks\n");
        kd_engine_close(engine);
        return KD_EXIT_FAIL;
    }
    /* the finished games, from the same commit as the tip read above when
     * no writer runs; beside a daemon, from a later one: a game finished
     * after `tip` is simply not among the entries printed */
    kd_ratings games = {0};
    kd_read *grd = NULL;
    kd_err gerr = json ? kd_engine_read_begin(engine, &grd) : KD_OK;
    if (json && !gerr)
        gerr = kd_ratings_compute(grd, &cli->types, NULL, &games);
    kd_engine_read_end(grd);
    if (gerr) {
        fprintf(stderr, "kdapp log: the finished games cannot be read: %s\n", kd_err_str(gerr));
        log_reverts_fini(&reverts);
        kd_engine_close(engine);
        return KD_EXIT_FAIL;
    }
    for (uint64_t seq = 1; seq <= tip.last_seq; seq++) {
        /* Entries never change once written: a handle per entry, ended
         * before printing. */
        kd_read *rd;
        const uint8_t *data;
        size_t len;
        Kdapp__Store__LogEntry *le = NULL;
        if (kd_engine_read_begin(engine, &rd) == KD_OK && kd_read_log_entry(rd, seq, &data, &len) == KD_OK)
            le = kdapp__store__log_entry__unpack(NULL, len, data);
        kd_engine_read_end(rd);
        if (!le) {
            fprintf(stderr, "kdapp log: entry %llu cannot be read\n", (unsigned long long)seq);
            rc = KD_EXIT_FAIL;
            break;
        }
        json_t *j = entry_json(&cli->types, seq, le, &reverts, &games);
        kdapp__store__log_entry__free_unpacked(le, NULL);
        if (!j) {
            rc = KD_EXIT_FAIL;
            break;
        }
        if (json) {
            char *text = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
            if (text)
                puts(text);
            free(text);
        } else {
            print_entry_text(j);
        }
        json_decref(j);
    }
    log_reverts_fini(&reverts);
    kd_ratings_fini(&games);
    kd_engine_close(engine);
    return rc;
}

int kd_cmd_audit(kd_cli *cli, int argc, char **argv)
{
    int json;
    uint32_t id;
    kd_engine *engine;
    int rc = open_query(cli, argc, argv, 1, &json, &id, "kdapp audit [--data DIR] [--json] ID", &engine);
    if (rc || !engine)
        return rc;
    json_t *report;
    char why[512];
    kd_err err = kd_audit_episode(engine, &cli->types, id, &report, why, sizeof why);
    kd_engine_close(engine);
    if (err) {
        fprintf(stderr, "kdapp audit: %s\n", why);
        return err == KD_ERR_NOT_FOUND || err == KD_ERR_UNSUPPORTED || err == KD_ERR_UNKNOWN_TYPE ? KD_EXIT_USAGE
                                                                                                  : KD_EXIT_FAIL;
    }
    int ok = strcmp(json_string_value(json_object_get(report, "verdict")), "ok") == 0;
    if (json) {
        rc = print_json(report);
    } else {
        kd_buf text;
        kd_buf_init(&text);
        err = kd_audit_text(report, &text);
        if (!err)
            fwrite(text.data, 1, text.len, stdout);
        kd_buf_fini(&text);
        json_decref(report);
        rc = err ? KD_EXIT_FAIL : KD_EXIT_OK;
    }
    return rc ? rc : ok ? KD_EXIT_OK : KD_EXIT_FAIL;
}
