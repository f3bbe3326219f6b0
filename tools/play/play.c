/*
 * play.c — the `kdapp play` coordinator (see play.h): start the gateway
 * connection and the episode, run the turns, the reorgs and the result.
 *
 * A reorg, as the coordinator shows it:
 *
 *   before      the board after move N (read from the gateway)
 *   rollback    kdapp_simulate_reorg reverts the last D blocks: their moves
 *               are undone and the marks they evicted come back — read at
 *               once, so the rolled-back board is what the engine holds
 *   re-mined    the devnet puts the reverted transactions in new blocks;
 *               the coordinator waits (bounded) until the episode's move
 *               count is back, then carries on from the gateway's state
 *
 * The devnet mines the re-queued moves on its next tick, so the rolled-back
 * state is usually, not always, still there when it is read; when it is
 * gone already the output says so instead of inventing it.
 */
#include "tools/play/play.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engine/bytes.h"
#include "engine/netutil.h"
#include "handlers/view.h"
#include "tools/play/mcp_client.h"

typedef struct {
    const kd_play_options *o;
    FILE *out;
    kd_mcp_client *mcp;
    kd_player *players[2]; /* [0] X, [1] O */
    uint32_t episode;
    kd_ttt_view last; /* the latest view the gateway sent (status, move_count) */
    kd_play_result *res;
} game;

typedef struct {
    game *g;
    char me;
} prompt_ctx;

__attribute__((format(printf, 3, 4))) static void say(char *why, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, len, fmt, ap);
    va_end(ap);
}

__attribute__((format(printf, 2, 3))) static void show(game *g, const char *fmt, ...)
{
    if (g->o->quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(g->out, fmt, ap);
    va_end(ap);
}

static int side_of(uint8_t symbol) { return symbol == KD_TTT_O ? 1 : 0; }

static void print_board(game *g, const kd_ttt_view *v)
{
    kd_buf b;
    kd_buf_init(&b);
    if (kd_render_board(v, &b) == KD_OK && kd_buf_append(&b, "", 1) == KD_OK)
        show(g, "%s", (const char *)b.data);
    kd_buf_fini(&b);
}

static uint64_t mix(uint64_t seed, uint64_t k)
{
    kd_play_rng r;
    kd_play_rng_seed(&r, seed ^ (k * 0xd1b54a32d192ed03ull));
    return kd_play_rng_next(&r);
}

/* ------------------------------------------------------- gateway calls */

/* Calls a tool that must succeed; *sc is its structured result. */
static kd_err call_ok(game *g, const char *tool, json_t *args, json_t **sc, char *why, size_t why_len)
{
    int is_error = 0;
    kd_err err = kd_mcp_client_call_tool(g->mcp, tool, args, sc, &is_error, why, why_len);
    if (!err && (is_error || !*sc)) {
        char text[600];
        snprintf(text, sizeof text, "%s", why);
        say(why, why_len, "%s failed: %s", tool, text[0] ? text : "no structured result");
        json_decref(*sc);
        *sc = NULL;
        err = KD_ERR_UNSUPPORTED;
    }
    return err;
}

static json_t *episode_args(game *g) { return json_pack("{s:I}", "episode_id", (json_int_t)g->episode); }

/* kdapp_get_episode_state; *exists 0 when the episode is gone (its
 * creation rolled back). `digest` (65 bytes, may be NULL) gets the digest. */
static kd_err read_state(game *g, kd_ttt_view *v, int *exists, char *digest, char *why, size_t why_len)
{
    json_t *sc = NULL;
    int is_error = 0;
    kd_err err =
        kd_mcp_client_call_tool(g->mcp, "kdapp_get_episode_state", episode_args(g), &sc, &is_error, why, why_len);
    *exists = 0;
    if (!err && is_error && strstr(why, "does not exist")) {
        json_decref(sc);
        return KD_OK;
    }
    if (!err && (is_error || !sc)) {
        char text[600];
        snprintf(text, sizeof text, "%s", why);
        say(why, why_len, "kdapp_get_episode_state failed: %s", text);
        err = KD_ERR_UNSUPPORTED;
    }
    if (!err && json_is_true(json_object_get(sc, "deleted"))) {
        json_decref(sc);
        return KD_OK;
    }
    if (!err)
        err = kd_play_view_from_json(sc, v, why, why_len);
    if (!err) {
        *exists = 1;
        const char *d = json_string_value(json_object_get(sc, "digest"));
        if (digest)
            snprintf(digest, 65, "%s", d ? d : "");
    }
    json_decref(sc);
    return err;
}

static kd_err read_context(game *g, kd_ttt_view *v, char *why, size_t why_len)
{
    json_t *sc = NULL;
    kd_err err = call_ok(g, "kdapp_get_strategy_context", episode_args(g), &sc, why, why_len);
    if (!err)
        err = kd_play_view_from_json(sc, v, why, why_len);
    json_decref(sc);
    v->status = g->last.status; /* the context has neither; the last view has both */
    v->move_count = g->last.move_count;
    return err;
}

static kd_err fetch_prompt(void *ctx, char **text, char *why, size_t why_len)
{
    prompt_ctx *p = ctx;
    char id[16], me[2] = {p->me, 0};
    snprintf(id, sizeof id, "%u", p->g->episode);
    return kd_mcp_client_get_prompt(p->g->mcp, "kdapp_turn", json_pack("{s:s, s:s}", "episode_id", id, "player", me),
                                    text, why, why_len);
}

/* ---------------------------------------------------------------- turns */

static void legal_text(const kd_ttt_view *v, char *out, size_t len)
{
    size_t n = (size_t)snprintf(out, len, "Legal moves (row, col):");
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            if (v->board[r][c] == KD_TTT_EMPTY && n < len)
                n += (size_t)snprintf(out + n, len - n, " (%d, %d)", r, c);
}

/* Submits a move; *legal 0 with the gateway's reason in `refusal`. */
static kd_err submit(game *g, const kd_ttt_cell *m, char me, int *legal, char *refusal, size_t refusal_len, char *why,
                     size_t why_len)
{
    char player[2] = {me, 0};
    json_t *args = json_pack("{s:I, s:{s:s, s:i, s:i, s:s}}", "episode_id", (json_int_t)g->episode, "command", "type",
                             "move", "row", (int)m->row, "col", (int)m->col, "player", player);
    json_t *sc = NULL;
    int is_error = 0;
    kd_err err = kd_mcp_client_call_tool(g->mcp, "kdapp_execute_command", args, &sc, &is_error, why, why_len);
    if (err)
        return err;
    *legal = json_is_true(json_object_get(sc, "legal"));
    json_t *view = json_object_get(sc, "view");
    if (!is_error && *legal && view) {
        err = kd_play_view_from_json(view, &g->last, why, why_len);
    } else if (json_object_get(sc, "legal") && !*legal) {
        const char *e = json_string_value(json_object_get(sc, "error"));
        snprintf(refusal, refusal_len, "%s", e ? e : "refused");
        *legal = 0;
    } else {
        char text[600];
        snprintf(text, sizeof text, "%s", why);
        say(why, why_len, "kdapp_execute_command failed: %s", text[0] ? text : "no structured result");
        err = KD_ERR_UNSUPPORTED;
    }
    json_decref(sc);
    return err;
}

/* Plays one turn: context, player (with retries and the fallback), move. */
static kd_err play_turn(game *g, char *why, size_t why_len)
{
    kd_ttt_view ctx;
    kd_err err = read_context(g, &ctx, why, why_len);
    if (err)
        return err;
    int side = side_of(ctx.current);
    kd_player *p = g->players[side];
    prompt_ctx pc = {.g = g, .me = kd_ttt_symbol_char(ctx.current)};
    kd_play_turn turn = {
        .episode_id = g->episode, .me = pc.me, .view = ctx, .get_prompt = fetch_prompt, .prompt_ctx = &pc};
    if ((err = kd_play_state_from_view(&ctx, &turn.state, why, why_len)))
        return err;
    char feedback[1200], legal[200], reason[600];
    const char *fb = NULL;
    unsigned limit = kd_player_retry_limit(p), refused = 0;
    int interactive = kd_player_interactive(p); /* it shows the player the refusals itself */
    legal_text(&ctx, legal, sizeof legal);
    for (;;) {
        kd_ttt_cell m;
        int fallback = limit && refused > limit; /* the first answer and `limit` retries */
        if (fallback) {
            if ((err = kd_player_fallback(p, &turn, &m))) {
                say(why, why_len, "no legal move left for %c", pc.me);
                return err;
            }
            show(g, "  %c (%s): %u answers refused; a random legal move is played instead\n", pc.me, kd_player_name(p),
                 refused);
        } else {
            err = kd_player_choose(p, &turn, fb, &m, reason, sizeof reason);
            if (err == KD_ERR_PARSE) {
                refused++;
                if (!interactive)
                    show(g, "  %c (%s): answer refused: %s\n", pc.me, kd_player_name(p), reason);
                snprintf(feedback, sizeof feedback, "Your answer could not be used: %s.\n%s", reason, legal);
                fb = feedback;
                continue;
            }
            if (err) {
                say(why, why_len, "%c (%s): %s", pc.me, kd_player_name(p), reason);
                return err;
            }
        }
        int ok = 0;
        if ((err = submit(g, &m, pc.me, &ok, reason, sizeof reason, why, why_len)))
            return err;
        if (!ok) {
            kd_player_note_refused(p);
            refused++;
            if (!interactive)
                show(g, "  %c (%s) tried (%u,%u): refused by the gateway: %s\n", pc.me, kd_player_name(p), m.row, m.col,
                     reason);
            if (fallback) {
                say(why, why_len, "the gateway refused a legal-looking move (%u,%u) for %c: %s", m.row, m.col, pc.me,
                    reason);
                return KD_ERR_INTERNAL;
            }
            snprintf(feedback, sizeof feedback, "The move (%u, %u) was refused by the gateway: %s.\n%s", m.row, m.col,
                     reason, legal);
            fb = feedback;
            continue;
        }
        kd_player_note_move(p);
        show(g, "\nmove %u: %c (%s) plays (%u,%u)", g->last.move_count, pc.me, kd_player_name(p), m.row, m.col);
        if (ctx.has_next_to_remove)
            show(g, "; first the oldest mark, %c at (%u,%u), is removed", kd_ttt_symbol_char(ctx.next_to_remove.symbol),
                 ctx.next_to_remove.row, ctx.next_to_remove.col);
        show(g, "%s\n", fallback ? " [random fallback]" : "");
        print_board(g, &g->last);
        return KD_OK;
    }
}

/* ---------------------------------------------------------------- reorgs */

/* Waits until the episode exists with at least `moves` moves (bounded). */
static kd_err wait_remined(game *g, uint32_t moves, kd_ttt_view *now, int *done, char *why, size_t why_len)
{
    uint64_t deadline = kd_now_ms() + KD_PLAY_REMINE_WAIT_MS;
    *done = 0;
    for (;;) {
        int exists;
        kd_err err = read_state(g, now, &exists, NULL, why, why_len);
        if (err)
            return err;
        if (exists && (now->move_count >= moves || now->status != KD_TTT_IN_PROGRESS)) {
            *done = 1;
            return KD_OK;
        }
        if (kd_now_ms() >= deadline)
            return exists ? KD_OK : KD_ERR_TIMEOUT;
        struct timespec ts = {0, 20 * 1000 * 1000}; /* poll the condition; the wait is bounded above */
        nanosleep(&ts, NULL);
    }
}

static kd_err reorg(game *g, char *why, size_t why_len)
{
    kd_ttt_view before, after, now;
    int exists;
    kd_err err = read_state(g, &before, &exists, NULL, why, why_len);
    if (err)
        return err;
    json_t *sc = NULL;
    int is_error = 0;
    err = kd_mcp_client_call_tool(g->mcp, "kdapp_simulate_reorg",
                                  json_pack("{s:I}", "depth", (json_int_t)g->o->reorg_depth), &sc, &is_error, why,
                                  why_len);
    if (err)
        return err;
    if (is_error) {
        show(g, "\nreorg after move %u did not happen: %s\n", before.move_count, why);
        json_decref(sc);
        return KD_OK;
    }
    long long reverted = json_integer_value(json_object_get(sc, "reverted"));
    long long reincluded = json_integer_value(json_object_get(sc, "reincluded"));
    json_decref(sc);
    if ((err = read_state(g, &after, &exists, NULL, why, why_len)))
        return err;
    g->res->reorgs++;
    show(g,
         "\n=== reorg after move %u: the devnet reverted its last %lld block%s; %lld transaction%s back "
         "in the queue to be mined again ===\n",
         before.move_count, reverted, reverted == 1 ? "" : "s", reincluded, reincluded == 1 ? " goes" : "s go");
    show(g, "before the reorg:\n");
    print_board(g, &before);
    if (!exists) {
        show(g, "after the rollback: the episode is gone (its creation was in a reverted block)\n");
    } else if (after.move_count >= before.move_count) {
        show(g, "after the rollback: the reverted moves were already mined again before the rolled-back board "
                "could be read\n");
    } else {
        show(g, "after the rollback (%u move%s undone):\n", before.move_count - after.move_count,
             before.move_count - after.move_count == 1 ? "" : "s");
        print_board(g, &after);
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++) {
                uint8_t b = before.board[r][c], a = after.board[r][c];
                if (a != KD_TTT_EMPTY && a != b) {
                    g->res->restored++;
                    show(g, "  restored: %c at (%d,%d) came back: the undone move had evicted it\n",
                         kd_ttt_symbol_char(a), r, c);
                }
                if (b != KD_TTT_EMPTY && a != b)
                    show(g, "  undone:   %c at (%d,%d) was placed in a reverted block\n", kd_ttt_symbol_char(b), r, c);
            }
    }
    int done;
    if ((err = wait_remined(g, before.move_count, &now, &done, why, why_len))) {
        if (err == KD_ERR_TIMEOUT)
            say(why, why_len, "after the reorg the episode did not come back within %u ms", KD_PLAY_REMINE_WAIT_MS);
        return err;
    }
    g->last = now;
    if (!done) {
        show(g,
             "the reverted moves were not all mined again within %u ms; carrying on from the gateway's state "
             "(%u moves):\n",
             KD_PLAY_REMINE_WAIT_MS, now.move_count);
        print_board(g, &now);
    } else if (memcmp(now.board, before.board, sizeof now.board) == 0) {
        show(g, "re-mined: the reverted moves were applied again in new blocks; the board is as before the reorg\n");
    } else {
        show(g, "re-mined: the reverted moves were applied again in new blocks:\n");
        print_board(g, &now);
    }
    return KD_OK;
}

/* ----------------------------------------------------------------- game */

static kd_err start_episode(game *g, char *why, size_t why_len)
{
    json_t *args = g->o->cap ? json_pack("{s:i}", "cap", (int)g->o->cap) : json_object();
    json_t *sc = NULL;
    kd_err err = call_ok(g, "kdapp_start_episode", args, &sc, why, why_len);
    if (err)
        return err;
    json_int_t id = json_integer_value(json_object_get(sc, "episode_id"));
    if (id <= 0 || id > UINT32_MAX) {
        say(why, why_len, "kdapp_start_episode answered no episode id");
        err = KD_ERR_DECODE;
    } else {
        g->episode = (uint32_t)id;
        err = kd_play_view_from_json(json_object_get(sc, "view"), &g->last, why, why_len);
    }
    json_decref(sc);
    return err;
}

static kd_err open_gateway(game *g, char *why, size_t why_len)
{
    const kd_play_options *o = g->o;
    kd_mcp_client_options co = {.url = o->mcp_url, .bearer_token = o->mcp_token, .client_name = "kdapp-play"};
    char exe[4096];
    char *argv[] = {exe, "mcp", "--data", (char *)o->data_dir, "--keys", (char *)o->keys_dir, NULL};
    if (!o->mcp_url && o->mcp_cmd) {
        co.command = o->mcp_cmd;
    } else if (!o->mcp_url) {
        if (o->self_exe) {
            snprintf(exe, sizeof exe, "%s", o->self_exe);
        } else {
            ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
            if (n <= 0) {
                say(why, why_len,
                    "cannot find the kdapp binary (/proc/self/exe) to start the gateway; "
                    "use --mcp-cmd or --mcp-url");
                return KD_ERR_IO;
            }
            exe[n] = '\0';
        }
        if (!o->data_dir || !o->keys_dir) {
            say(why, why_len, "the embedded gateway needs a data and a key directory");
            return KD_ERR_INVALID_ARG;
        }
        co.argv = argv;
    }
    return kd_mcp_client_open(&co, &g->mcp, why, why_len);
}

static void print_result(game *g, const char *digest)
{
    const kd_ttt_view *v = &g->last;
    FILE *out = g->out;
    fprintf(out, "%sepisode %u: ", g->o->quiet ? "" : "\n", g->episode);
    if (v->status == KD_TTT_X_WON || v->status == KD_TTT_O_WON) {
        int side = v->status == KD_TTT_O_WON;
        fprintf(out, "%c (%s) won after %u moves\n", side ? 'O' : 'X', kd_player_name(g->players[side]), v->move_count);
    } else if (v->status == KD_TTT_DRAW) {
        fprintf(out, "draw after %u moves\n", v->move_count);
    } else {
        fprintf(out, "stopped at --max-moves %u, game in progress\n", v->move_count);
    }
    for (int i = 0; i < 2; i++) {
        kd_player_stats s = kd_player_get_stats(g->players[i]);
        fprintf(out, "  %c %-8s %u moves, %u answers refused, %u random fallbacks\n", i ? 'O' : 'X',
                kd_player_name(g->players[i]), s.moves, s.refused, s.fallbacks);
    }
    if (g->o->reorg_every)
        fprintf(out, "  reorgs: %u (marks seen coming back: %u)\n", g->res->reorgs, g->res->restored);
    fprintf(out, "digest: %s\n", digest);
    fflush(out);
}

kd_err kd_play_run(const kd_play_options *o, kd_play_result *res, char *why, size_t why_len)
{
    memset(res, 0, sizeof *res);
    game g = {.o = o, .out = o->out ? o->out : stdout, .res = res};
    const char *specs[2] = {o->x ? o->x : "search", o->o ? o->o : "search"};
    kd_err err = KD_OK;
    for (int i = 0; i < 2; i++) {
        kd_player_options po = {.seed = mix(o->seed, (uint64_t)i + 1),
                                .depth = o->depth,
                                .model = o->model,
                                .api_key = o->llm_api_key,
                                .show_prompts = o->show_prompts,
                                .in = o->in,
                                .out = g.out,
                                .log = o->log};
        if ((err = kd_player_alloc(specs[i], &po, &g.players[i], why, why_len)))
            goto done;
    }
    if ((err = open_gateway(&g, why, why_len)) || (err = start_episode(&g, why, why_len)))
        goto done;
    res->episode_id = g.episode;
    uint32_t max_moves = o->max_moves ? o->max_moves : KD_PLAY_DEFAULT_MAX_MOVES;
    char rule[256];
    kd_ttt_rule_text(g.last.cap, rule, sizeof rule);
    show(&g, "kdapp play: episode %u | X: %s, O: %s | seed %llu\n%s\n", g.episode, specs[0], specs[1],
         (unsigned long long)o->seed, rule);
    print_board(&g, &g.last);
    while (g.last.status == KD_TTT_IN_PROGRESS && g.last.move_count < max_moves) {
        if ((err = play_turn(&g, why, why_len)))
            goto done;
        /* Also after a winning move: the win is rolled back and mined again. */
        if (o->reorg_every && o->reorg_depth && g.last.move_count % o->reorg_every == 0 &&
            (err = reorg(&g, why, why_len)))
            goto done;
    }
    int exists;
    char digest[65] = "";
    kd_ttt_view final;
    if ((err = read_state(&g, &final, &exists, digest, why, why_len)))
        goto done;
    if (exists)
        g.last = final;
    res->status = g.last.status;
    res->move_count = g.last.move_count;
    snprintf(res->digest, sizeof res->digest, "%s", digest);
    print_result(&g, digest);
done:
    for (int i = 0; i < 2; i++)
        if (g.players[i])
            res->stats[i] = kd_player_get_stats(g.players[i]);
    int rc = kd_mcp_client_close(g.mcp);
    if (g.mcp && rc != 0) /* the game's outcome stands; the gateway's own messages say more */
        fprintf(o->log ? o->log : stderr, "kdapp play: the gateway exited with status %d\n", rc);
    kd_player_free(g.players[0]);
    kd_player_free(g.players[1]);
    return err;
}
