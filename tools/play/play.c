/*
 * play.c — the `kdapp play` coordinator (see play.h): start the gateway
 * connection and the episode, run the turns, the reorgs and the result,
 * for any registered type. The views it reads are play_view.c's; a
 * table's steps (opening, joining, resuming one that waits for players,
 * waiting on another owner's turns) are play_owners.c's (see play_int.h).
 *
 * What the coordinator reads of the gateway's view is generic: "type",
 * "phase", "winner", "to_move", "seats" (their count must be the players')
 * and "state" (the engine state's hex, decoded with the type's
 * decode_state for the players and drawn with its view_encode +
 * render_text). Legal moves come from kdapp_legal_moves
 * ({command, notation} per move, converted with the type's
 * command_from_json), or, from a gateway whose moves carry no command, the
 * type's legal_moves over the same state.
 *
 * A reorg, as the coordinator shows it:
 *
 *   before      the position after move N (read from the gateway)
 *   rollback    kdapp_simulate_reorg reverts the last D blocks: their moves
 *               are undone — read at once, so the rolled-back position is
 *               what the engine holds
 *   re-mined    the devnet puts the reverted transactions in new blocks;
 *               the coordinator waits (bounded) until the episode's state is
 *               back, then carries on from the gateway's state
 *
 * The devnet mines the re-queued moves on its next tick, so the rolled-back
 * state is usually, not always, still there when it is read; when it is
 * gone already the output says so instead of inventing it.
 */
#include "tools/play/play.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engine/bytes.h"
#include "engine/netutil.h"
#include "tools/play/play_int.h"

#define POLL_MS 50L /* poll_pause */

typedef struct {
    kd_play_game *g;
    const char *seat_name;
} prompt_ctx;

static uint64_t mix(uint64_t seed, uint64_t k)
{
    kd_play_rng r;
    kd_play_rng_seed(&r, seed ^ (k * 0xd1b54a32d192ed03ull));
    return kd_play_rng_next(&r);
}

/* ------------------------------------------------------- gateway calls */

/* Calls a tool that must succeed; *sc is its structured result. */
static kd_err call_ok(kd_play_game *g, const char *tool, json_t *args, json_t **sc, char *why, size_t why_len)
{
    return kd_play_call(g->mcp, tool, args, sc, why, why_len);
}

static kd_err fetch_prompt(void *ctx, char **text, char *why, size_t why_len)
{
    prompt_ctx *p = ctx;
    char id[16];
    snprintf(id, sizeof id, "%u", p->g->episode);
    return kd_mcp_client_get_prompt(
        p->g->mcp, "kdapp_turn", json_pack("{s:s, s:s}", "episode_id", id, "player", p->seat_name), text, why, why_len);
}

/* The seat's own_secret from kdapp_get_episode_state with "player". */
static kd_err fetch_own_secret(void *ctx, json_t **out, char *why, size_t why_len)
{
    prompt_ctx *p = ctx;
    json_t *sc = NULL;
    *out = NULL;
    kd_err err = call_ok(p->g, "kdapp_get_episode_state",
                         json_pack("{s:I, s:s}", "episode_id", (json_int_t)p->g->episode, "player", p->seat_name), &sc,
                         why, why_len);
    if (!err)
        *out = json_incref(json_object_get(sc, "own_secret"));
    json_decref(sc);
    return err;
}

/* The legal moves of `seat` in the view `now`: kdapp_legal_moves when its
 * moves carry the command JSON, else the type's legal_moves over the
 * view's state. *moved is set when the gateway's list is for another log
 * entry than `now` (the episode moved between the two reads). */
static kd_err read_legal(kd_play_game *g, int seat, const kd_play_view *now, kd_legal_moves *out, int *moved, char *why,
                         size_t why_len)
{
    kd_legal_moves_clear(out);
    *moved = 0;
    json_t *sc = NULL;
    kd_err err = call_ok(g, "kdapp_legal_moves", kd_play_game_episode_args(g), &sc, why, why_len);
    if (err)
        return err;
    const json_t *seq = json_object_get(sc, "log_seq");
    *moved = json_is_integer(seq) && (uint64_t)json_integer_value(seq) != now->log_seq;
    if (*moved) { /* the caller reads both again: the list is not kept */
        json_decref(sc);
        return KD_OK;
    }
    json_t *moves = json_object_get(sc, "moves");
    int generic = json_array_size(moves) > 0 && json_is_object(json_object_get(json_array_get(moves, 0), "command"));
    kd_buf cmd;
    kd_buf_init(&cmd);
    for (size_t i = 0; generic && !err && i < json_array_size(moves); i++) {
        const json_t *m = json_array_get(moves, i);
        const char *notation = json_string_value(json_object_get(m, "notation"));
        char detail[KD_REJECT_DETAIL_MAX] = "";
        cmd.len = 0;
        err = g->type->command_from_json(json_object_get(m, "command"), seat, &cmd, detail, sizeof detail);
        if (err)
            kd_reject_write(why, why_len, "kdapp_legal_moves sent a command the type refuses: %s", detail);
        else
            err = kd_legal_moves_push(out, cmd.data, cmd.len, notation ? notation : "?");
    }
    kd_buf_fini(&cmd);
    json_decref(sc);
    return err || generic ? err : g->type->legal_moves(now->state, seat, out);
}

/* ---------------------------------------------------------------- turns */

static void legal_text(const kd_legal_moves *legal, char *out, size_t len)
{
    size_t n = (size_t)snprintf(out, len, "Legal moves:");
    for (size_t i = 0; i < legal->count && n < len; i++)
        n += (size_t)snprintf(out + n, len - n, " %s", legal->moves[i].notation);
}

/* Submits a move; *legal 0 with the gateway's reason in `refusal`. */
static kd_err submit(kd_play_game *g, const kd_legal_move *m, int *legal, char *refusal, size_t refusal_len, char *why,
                     size_t why_len)
{
    json_t *command = g->type->command_to_json(m->command, m->command_len);
    if (!command) {
        kd_reject_write(why, why_len, "the move %s has no command JSON", m->notation);
        return KD_ERR_INTERNAL;
    }
    json_t *args = json_pack("{s:I, s:o}", "episode_id", (json_int_t)g->episode, "command", command);
    json_t *sc = NULL;
    int is_error = 0;
    kd_err err = kd_mcp_client_call_tool(g->mcp, "kdapp_execute_command", args, &sc, &is_error, why, why_len);
    if (err)
        return err;
    *legal = json_is_true(json_object_get(sc, "legal"));
    json_t *view = json_object_get(sc, "view");
    if (!is_error && *legal && view) {
        err = kd_play_view_parse(g->type, view, &g->last, why, why_len);
    } else if (json_object_get(sc, "legal") && !*legal) {
        const char *e = json_string_value(json_object_get(sc, "error"));
        snprintf(refusal, refusal_len, "%s", e ? e : "refused");
        *legal = 0;
    } else {
        char text[600];
        snprintf(text, sizeof text, "%s", why);
        kd_reject_write(why, why_len, "kdapp_execute_command failed: %s", text[0] ? text : "no structured result");
        err = KD_ERR_UNSUPPORTED;
    }
    json_decref(sc);
    return err;
}

/* The seat to act: the one to move, or the first with a legal move when
 * no single seat must act (ours before another owner's). */
static int acting_seat(kd_play_game *g, const kd_play_view *v, kd_legal_moves *scratch)
{
    if (v->to_move != KD_SEAT_NONE)
        return (size_t)v->to_move < g->seats ? v->to_move : KD_SEAT_NONE;
    for (int remote = 0; remote < 2; remote++) /* ours first: another owner's seat is only waited for */
        for (size_t s = 0; s < g->seats; s++) {
            kd_legal_moves_clear(scratch);
            if (kd_play_game_seat_remote(g, (int)s) == remote &&
                g->type->legal_moves(v->state, (int)s, scratch) == KD_OK && scratch->count)
                return (int)s;
        }
    return KD_SEAT_NONE;
}

/* Between two looks at a condition the gateway will change (the wait is
 * bounded by its caller): half a block at Kaspa's pace, and 20 calls a
 * second, well inside the gateway's per-session call rate. */
static void poll_pause(void)
{
    struct timespec ts = {0, POLL_MS * 1000000L};
    nanosleep(&ts, NULL);
}

kd_err kd_play_game_await_change(kd_play_game *g, const kd_play_view *now, uint64_t deadline, kd_play_view *next,
                                 char *why, size_t why_len)
{
    for (;;) {
        int exists;
        kd_err err = kd_play_game_read_state(g, next, &exists, NULL, why, why_len);
        if (!err && !exists) {
            kd_reject_write(why, why_len, "episode %u is gone", g->episode);
            err = KD_ERR_NOT_FOUND;
        }
        if (!err && strcmp(next->state_hex, now->state_hex) != 0)
            return KD_OK;
        kd_play_view_fini(next);
        if (err || kd_play_game_stopping(g))
            return err;
        if (deadline && kd_now_ms() >= deadline)
            return KD_ERR_TIMEOUT;
        poll_pause();
    }
}

void kd_play_game_take_change(kd_play_game *g, const kd_play_view *now, kd_play_view *next, const char *lead)
{
    kd_play_game_show_change(g, now->state, next->state, lead, "");
    kd_play_game_show(g, "\n");
    kd_play_game_print_board(g, next->state);
    kd_play_view_fini(&g->last);
    g->last = *next;
    memset(next, 0, sizeof *next);
}

/* In a type with secrets, a seat to move with no legal move owes what only
 * its secret can make (the house's reveal, a shot's answer), and the
 * gateway holding its key pays it after the block (gateway_duties.c): waits
 * (bounded) until the episode moves on from `now`, and shows what changed. */
static kd_err wait_for_duty(kd_play_game *g, int seat, const kd_play_view *now, char *why, size_t why_len)
{
    kd_play_view next = {0};
    kd_err err = kd_play_game_await_change(g, now, kd_now_ms() + KD_PLAY_REMINE_WAIT_MS, &next, why, why_len);
    if (err == KD_ERR_TIMEOUT)
        kd_reject_write(why, why_len, "%s owes a move only its key's holder can make, and none came in %u ms",
                        kd_play_game_seat_name(g, seat), KD_PLAY_REMINE_WAIT_MS);
    if (err || !next.state_hex) /* an error, or stopped (Ctrl-C) */
        return err;
    kd_play_game_show(g, "\n%s (its key's holder, the gateway) pays what it owes", kd_play_game_seat_name(g, seat));
    kd_play_game_take_change(g, now, &next, ": ");
    return KD_OK;
}

/* The view, the acting seat and its legal moves, all of one log entry:
 * the two reads are made again while the episode moves between them (a
 * block, a reorg), so a player never searches one state and picks from
 * another's moves. */
static kd_err read_turn(kd_play_game *g, kd_play_view *now, int *seat, kd_legal_moves *legal, char *why, size_t why_len)
{
    enum { TRIES = 100 }; /* with a pause between: seconds of a chain that never stops moving */
    for (int t = 0; t < TRIES; t++) {
        int exists, moved = 0;
        kd_err err = kd_play_game_read_state(g, now, &exists, NULL, why, why_len);
        if (!err && !exists) {
            kd_reject_write(why, why_len, "episode %u is gone", g->episode);
            err = KD_ERR_NOT_FOUND;
        }
        *seat = err ? KD_SEAT_NONE : acting_seat(g, now, legal);
        if (!err && *seat == KD_SEAT_NONE) {
            kd_reject_write(why, why_len, "no seat may act in episode %u", g->episode);
            err = KD_ERR_DECODE;
        }
        if (!err && kd_play_game_seat_remote(g, *seat)) { /* its moves are another owner's to choose */
            kd_legal_moves_clear(legal);
            return KD_OK;
        }
        if (!err)
            err = read_legal(g, *seat, now, legal, &moved, why, why_len);
        if (err || !moved)
            return err;
        kd_play_view_fini(now);
        poll_pause();
    }
    kd_reject_write(why, why_len, "episode %u moved between every read of its state and its legal moves (%d tries)",
                    g->episode, (int)TRIES);
    return KD_ERR_BUSY;
}

/* Plays one turn: view, legal moves, player (with retries and the
 * fallback), move. */
static kd_err play_turn(kd_play_game *g, kd_legal_moves *legal, char *why, size_t why_len)
{
    kd_play_view now = {0};
    int seat;
    kd_err err = read_turn(g, &now, &seat, legal, why, why_len);
    if (!err && kd_play_game_seat_remote(g, seat)) {
        err = kd_play_game_wait_remote(g, seat, &now, why, why_len);
        kd_play_view_fini(&now);
        return err;
    }
    if (!err && !legal->count && g->type->secret_duty) {
        err = wait_for_duty(g, seat, &now, why, why_len);
        kd_play_view_fini(&now);
        return err;
    }
    if (!err && !legal->count) {
        kd_reject_write(why, why_len, "no legal move for %s", kd_play_game_seat_name(g, seat));
        err = KD_ERR_NO_MOVE;
    }
    if (err) {
        kd_play_view_fini(&now);
        return err;
    }
    kd_player *p = g->players[seat];
    prompt_ctx pc = {.g = g, .seat_name = kd_play_game_seat_name(g, seat)};
    kd_play_turn turn = {.episode_id = g->episode,
                         .type = g->type,
                         .seat = seat,
                         .seat_name = pc.seat_name,
                         .state = now.state,
                         .legal = legal,
                         .get_prompt = fetch_prompt,
                         .prompt_ctx = &pc,
                         .get_own_secret = fetch_own_secret};
    char feedback[1500], legal_list[700], reason[600];
    const char *fb = NULL;
    unsigned limit = kd_player_retry_limit(p), refused = 0;
    int interactive = kd_player_interactive(p); /* it shows the player the refusals itself */
    legal_text(legal, legal_list, sizeof legal_list);
    for (;;) {
        kd_legal_move m;
        int fallback = limit && refused > limit; /* the first answer and `limit` retries */
        if (fallback) {
            if ((err = kd_player_fallback(p, &turn, &m))) {
                kd_reject_write(why, why_len, "no legal move left for %s", pc.seat_name);
                break;
            }
            kd_play_game_show(g, "  %s (%s): %u answers refused; a random legal move is played instead\n", pc.seat_name,
                              kd_player_name(p), refused);
        } else {
            err = kd_player_choose(p, &turn, fb, &m, reason, sizeof reason);
            if (err == KD_ERR_PARSE) {
                refused++;
                if (!interactive)
                    kd_play_game_show(g, "  %s (%s): answer refused: %s\n", pc.seat_name, kd_player_name(p), reason);
                snprintf(feedback, sizeof feedback, "Your answer could not be used: %s.\n%s", reason, legal_list);
                fb = feedback;
                continue;
            }
            if (err) {
                kd_reject_write(why, why_len, "%s (%s): %s", pc.seat_name, kd_player_name(p), reason);
                break;
            }
        }
        int ok = 0;
        if ((err = submit(g, &m, &ok, reason, sizeof reason, why, why_len)))
            break;
        if (!ok) {
            kd_player_note_refused(p);
            refused++;
            if (!interactive)
                kd_play_game_show(g, "  %s (%s) tried %s: refused by the gateway: %s\n", pc.seat_name,
                                  kd_player_name(p), m.notation, reason);
            if (fallback) {
                kd_reject_write(why, why_len, "the gateway refused the legal move %s for %s: %s", m.notation,
                                pc.seat_name, reason);
                err = KD_ERR_INTERNAL;
                break;
            }
            snprintf(feedback, sizeof feedback, "The move %s was refused by the gateway: %s.\n%s", m.notation, reason,
                     legal_list);
            fb = feedback;
            continue;
        }
        kd_player_note_move(p);
        g->moves++;
        kd_play_game_show(g, "\nmove %llu: %s (%s) plays %s", (unsigned long long)g->last.moves, pc.seat_name,
                          kd_player_name(p), m.notation);
        kd_play_game_show_change(g, now.state, g->last.state, "; ", "");
        kd_play_game_show(g, "%s\n", fallback ? " [random fallback]" : "");
        kd_play_game_print_board(g, g->last.state);
        break;
    }
    kd_play_view_fini(&now);
    return err;
}

/* ---------------------------------------------------------------- reorgs */

/* Waits (bounded) until the reverted moves are mined again: the episode is
 * back as it was (`before`), or a command newer than `before` was applied
 * (the devnet re-includes a reorg's transactions together in its next
 * block; a state that records a block's DAA score, for a deadline, differs
 * in those bytes from before), or the game is over. */
static kd_err wait_remined(kd_play_game *g, const kd_play_view *before, kd_play_view *now, int *done, char *why,
                           size_t why_len)
{
    uint64_t deadline = kd_now_ms() + KD_PLAY_REMINE_WAIT_MS;
    *done = 0;
    for (;;) {
        int exists;
        kd_err err = kd_play_game_read_state(g, now, &exists, NULL, why, why_len);
        if (err)
            return err;
        if (exists && (strcmp(now->state_hex, before->state_hex) == 0 || now->phase != KD_PHASE_IN_PROGRESS ||
                       (now->by_command && now->log_seq > before->log_seq))) {
            *done = 1;
            return KD_OK;
        }
        if (kd_now_ms() >= deadline)
            return exists ? KD_OK : KD_ERR_TIMEOUT;
        poll_pause();
    }
}

static kd_err reorg(kd_play_game *g, char *why, size_t why_len)
{
    kd_play_view before = {0}, after = {0}, now = {0};
    int exists;
    json_t *sc = NULL;
    int is_error = 0;
    kd_err err = kd_play_game_read_state(g, &before, &exists, NULL, why, why_len);
    if (!err && !exists) {
        kd_reject_write(why, why_len, "episode %u is gone before the reorg", g->episode);
        err = KD_ERR_NOT_FOUND;
    }
    if (!err)
        err = kd_mcp_client_call_tool(g->mcp, "kdapp_simulate_reorg",
                                      json_pack("{s:I}", "depth", (json_int_t)g->o->reorg_depth), &sc, &is_error, why,
                                      why_len);
    if (err)
        goto done;
    if (is_error) {
        kd_play_game_show(g, "\nreorg after move %u did not happen: %s\n", g->moves, why);
        goto done;
    }
    long long reverted = json_integer_value(json_object_get(sc, "reverted"));
    long long reincluded = json_integer_value(json_object_get(sc, "reincluded"));
    if ((err = kd_play_game_read_state(g, &after, &exists, NULL, why, why_len)))
        goto done;
    g->res->reorgs++;
    kd_play_game_show(g,
                      "\n=== reorg after move %u: the devnet reverted its last %lld block%s; %lld transaction%s back "
                      "in the queue to be mined again ===\n",
                      g->moves, reverted, reverted == 1 ? "" : "s", reincluded, reincluded == 1 ? " goes" : "s go");
    kd_play_game_show(g, "before the reorg:\n");
    kd_play_game_print_board(g, before.state);
    if (!exists) {
        kd_play_game_show(g, "after the rollback: the episode is gone (its creation was in a reverted block)\n");
    } else if (strcmp(after.state_hex, before.state_hex) == 0) {
        kd_play_game_show(
            g, "after the rollback: the reverted moves were already mined again before the rolled-back position "
               "could be read\n");
    } else {
        kd_play_game_show(g, "after the rollback (the reverted blocks' moves undone):\n");
        kd_play_game_print_board(g, after.state);
        kd_play_game_show_change(g, before.state, after.state, "  ", "\n");
    }
    int back;
    if ((err = wait_remined(g, &before, &now, &back, why, why_len))) {
        if (err == KD_ERR_TIMEOUT)
            kd_reject_write(why, why_len, "after the reorg the episode did not come back within %u ms",
                            KD_PLAY_REMINE_WAIT_MS);
        goto done;
    }
    if (!back) {
        kd_play_game_show(
            g, "the reverted moves were not all mined again within %u ms; carrying on from the gateway's state:\n",
            KD_PLAY_REMINE_WAIT_MS);
        kd_play_game_print_board(g, now.state);
    } else if (strcmp(now.state_hex, before.state_hex) == 0) {
        kd_play_game_show(
            g, "re-mined: the reverted moves were applied again in new blocks; the position is as before the "
               "reorg\n");
    } else {
        kd_play_game_show(g, "re-mined: the reverted moves were applied again in new blocks:\n");
        kd_play_game_print_board(g, now.state);
    }
    kd_play_view_fini(&g->last);
    g->last = now;
    memset(&now, 0, sizeof now);
done:
    json_decref(sc);
    kd_play_view_fini(&now);
    kd_play_view_fini(&after);
    kd_play_view_fini(&before);
    return err;
}

/* ----------------------------------------------------------------- game */

/* kdapp_start_episode {type?, ...params}: the params' members go as
 * top-level arguments, which the gateway takes as members of params. */
static kd_err start_episode(kd_play_game *g, char *why, size_t why_len)
{
    json_t *args = json_object();
    if (g->o->params) {
        json_error_t jerr;
        json_t *params = json_loads(g->o->params, JSON_REJECT_DUPLICATES, &jerr);
        if (!json_is_object(params)) {
            kd_reject_write(why, why_len, "--params must be a JSON object: %s", params ? "it is not one" : jerr.text);
            json_decref(params);
            json_decref(args);
            return KD_ERR_INVALID_ARG;
        }
        json_object_update(args, params);
        json_decref(params);
    }
    if (g->o->type)
        json_object_set_new(args, "type", json_string(g->o->type));
    json_t *sc = NULL;
    kd_err err = call_ok(g, "kdapp_start_episode", args, &sc, why, why_len);
    if (err)
        return err;
    json_int_t id = json_integer_value(json_object_get(sc, "episode_id"));
    json_t *view = json_object_get(sc, "view");
    const char *type = json_string_value(json_object_get(view, "type"));
    json_t *seats = json_object_get(view, "seats");
    if (id <= 0 || id > UINT32_MAX) {
        kd_reject_write(why, why_len, "kdapp_start_episode answered no episode id");
        err = KD_ERR_DECODE;
    } else if (type && strcmp(type, g->type->ops->type_name) != 0) {
        kd_reject_write(why, why_len, "kdapp_start_episode started a %s episode, not %s", type,
                        g->type->ops->type_name);
        err = KD_ERR_DECODE;
    } else if (json_is_array(seats) && json_array_size(seats) != g->seats) {
        kd_reject_write(why, why_len, "kdapp_start_episode seated %zu participants, and there are %zu players",
                        json_array_size(seats), g->seats);
        err = KD_ERR_INVALID_ARG;
    } else {
        g->episode = (uint32_t)id;
        err = kd_play_view_parse(g->type, view, &g->last, why, why_len);
    }
    json_decref(sc);
    return err;
}

static kd_err open_gateway(kd_play_game *g, char *why, size_t why_len)
{
    const kd_play_options *o = g->o;
    kd_mcp_client_options co = {.url = o->mcp_url, .bearer_token = o->mcp_token, .client_name = "kdapp-play"};
    char exe[4096], grant[KD_MAX_PARTICIPANTS * 12] = "";
    /* It plays every seat: its gateway is granted the agent keys the
     * episode's default participants are (agent1 .. agentN), or, resuming,
     * the keys that sit in its seats (kd_play_resume_find). At a table
     * it plays its own seats (agent1 .. agentK for K of them); a joiner
     * gets agent1 and agent2, of which the gateway joins with the first
     * not at the table already (two owners sharing one key directory). */
    size_t keys = o->join ? 2 : g->seats - (size_t)__builtin_popcount(g->remote);
    for (size_t i = 0; !o->grant && i < keys && i < KD_MAX_PARTICIPANTS; i++)
        snprintf(grant + strlen(grant), sizeof grant - strlen(grant), "%sagent%zu", i ? "," : "", i + 1);
    char *argv[] = {exe,
                    "mcp",
                    "--data",
                    (char *)o->data_dir,
                    "--keys",
                    (char *)o->keys_dir,
                    "--grant",
                    o->grant ? (char *)o->grant : grant,
                    o->quiet ? "--quiet" : NULL,
                    NULL};
    if (!o->mcp_url && o->mcp_cmd) {
        co.command = o->mcp_cmd;
    } else if (!o->mcp_url) {
        if (o->self_exe) {
            snprintf(exe, sizeof exe, "%s", o->self_exe);
        } else {
            ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
            if (n <= 0) {
                kd_reject_write(why, why_len,
                                "cannot find the kdapp binary (/proc/self/exe) to start the gateway; "
                                "use --mcp-cmd or --mcp-url");
                return KD_ERR_IO;
            }
            exe[n] = '\0';
        }
        if (!o->data_dir || !o->keys_dir) {
            kd_reject_write(why, why_len, "the embedded gateway needs a data and a key directory");
            return KD_ERR_INVALID_ARG;
        }
        co.argv = argv;
    }
    return kd_mcp_client_open(&co, &g->mcp, why, why_len);
}

static void print_result(kd_play_game *g, const char *digest)
{
    const kd_play_view *v = &g->last;
    FILE *out = g->out;
    unsigned long long moves = (unsigned long long)v->moves;
    const char *plural = moves == 1 ? "" : "s";
    fprintf(out, "%sepisode %u: ", g->o->quiet ? "" : "\n", g->episode);
    if (v->phase == KD_PHASE_WON && (size_t)v->winner < g->seats)
        fprintf(out, "%s (%s) won after %llu move%s", kd_play_game_seat_name(g, v->winner),
                kd_play_game_seat_remote(g, v->winner) ? "another owner" : kd_player_name(g->players[v->winner]), moves,
                plural);
    else if (v->phase == KD_PHASE_DRAW)
        fprintf(out, "draw after %llu move%s", moves, plural);
    else if (g->res->stopped)
        fprintf(out, "stopped at %llu move%s, game in progress", moves, plural);
    else
        fprintf(out, "stopped at --max-moves %u, game in progress at %llu move%s", g->moves, moves, plural);
    if (g->moves != v->moves) /* a move is any command applied: a duty paid for a seat too */
        fprintf(out, " (%u chosen by the players in this run)", g->moves);
    /* A result is final only beyond the finality depth: before that a reorg
     * may still undo its last moves (a dice game's "draw after 12 moves"
     * left at 9 of 12, in progress), so it is said as of its block. */
    if (v->phase != KD_PHASE_IN_PROGRESS)
        fprintf(out,
                v->final ? ", final at block %llu" : ", as of block %llu (not final yet: a reorg may still undo it)",
                (unsigned long long)v->height);
    fputc('\n', out);
    for (size_t i = 0; i < g->seats; i++) {
        kd_player_stats s = kd_player_get_stats(g->players[i]);
        if (kd_play_game_seat_remote(g, (int)i)) {
            fprintf(out, "  %s another owner's seat, played through its own gateway\n",
                    kd_play_game_seat_name(g, (int)i));
            continue;
        }
        if (kd_player_is_house(g->players[i])) {
            fprintf(out, "  %s house: the gateway holding its key paid its duties\n",
                    kd_play_game_seat_name(g, (int)i));
            continue;
        }
        fprintf(out, "  %s %-8s %u moves chosen, %u answers refused, %u random fallbacks",
                kd_play_game_seat_name(g, (int)i), kd_player_name(g->players[i]), s.moves, s.refused, s.fallbacks);
        if (s.depth_max)
            fprintf(out, ", searched %u..%u plies, at most %u ms a move", s.depth_min, s.depth_max, s.think_ms_max);
        fputc('\n', out);
    }
    if (g->o->reorg_every)
        fprintf(out, "  reorgs: %u\n", g->res->reorgs);
    fprintf(out, "digest: %s\n", digest);
    if (v->phase == KD_PHASE_IN_PROGRESS)
        fprintf(out, "resume: kdapp play --episode %u%s\n", g->episode, g->o->resume_args ? g->o->resume_args : "");
    fflush(out);
}

/* The type (`type`, else --type, else the first registered) and one
 * player per seat: `seats` of them when resuming an episode, else as many
 * as named, at least the type's minimum. */
kd_err kd_play_game_setup(kd_play_game *g, const char *type, size_t seats, const char *const *specs, char *why,
                          size_t why_len)
{
    const kd_play_options *o = g->o;
    if (!type)
        type = o->type;
    g->type = type ? kd_type_table_find(o->types, type) : o->types->count ? o->types->entries[0].type : NULL;
    if (!g->type) {
        kd_reject_write(why, why_len, "'%s' is not a registered episode type", type ? type : "");
        return KD_ERR_INVALID_ARG;
    }
    size_t given = 0; /* seats up to the last one named */
    for (size_t i = 0; i < KD_PLAY_MAX_SEATS; i++)
        if (specs[i])
            given = i + 1;
    g->seats = seats ? seats : g->type->min_seats > given ? g->type->min_seats : given;
    if (g->seats > g->type->max_seats || g->seats > KD_PLAY_MAX_SEATS || given > g->seats) {
        if (seats)
            kd_reject_write(why, why_len, "episode %u seats %zu players, and a player is named for seat %zu",
                            o->episode, seats, given - 1);
        else
            kd_reject_write(why, why_len, "%s seats %zu to %zu players, not %zu", g->type->ops->type_name,
                            g->type->min_seats, g->type->max_seats, given);
        return KD_ERR_INVALID_ARG;
    }
    for (size_t i = 0; i < g->seats; i++) {
        kd_player_options po = {.seed = mix(o->seed, (uint64_t)i + 1),
                                .depth = o->depth,
                                .think_ms = o->think_ms,
                                .model = o->model,
                                .api_key = o->llm_api_key,
                                .show_prompts = o->show_prompts,
                                .in = o->in,
                                .out = g->out,
                                .log = o->log};
        const char *spec = specs[i] ? specs[i] : kd_play_default_player(g->type, (int)i);
        kd_err err = kd_player_alloc(spec, &po, &g->players[i], why, why_len);
        if (err)
            return err;
        if (kd_player_needs_bot(g->players[i]) && !g->type->bot_command) {
            kd_reject_write(
                why, why_len,
                "%s has no bot, so the search player cannot play %s: use random, llm:URL or human for that seat",
                g->type->ops->type_name, kd_play_game_seat_name(g, (int)i));
            return KD_ERR_INVALID_ARG;
        }
    }
    g->res->seats = g->seats;
    return KD_OK;
}

/* Resuming: the episode's view from the gateway gives the type and the
 * seats (then the players are set up), and is the position play goes on
 * from; a table still waiting for players is waited for first. */
static kd_err resume_episode(kd_play_game *g, char *why, size_t why_len)
{
    const kd_play_options *o = g->o;
    json_t *sc = NULL;
    int is_error = 0;
    g->episode = o->episode;
    kd_play_table t;
    if (kd_play_table_read(g->mcp, o->episode, &t, why, why_len) == KD_OK && strcmp(t.status, "open") == 0)
        return kd_play_game_resume_table(g, &t, why, why_len);
    why[0] = '\0';
    kd_err err = kd_mcp_client_call_tool(g->mcp, "kdapp_get_episode_state", kd_play_game_episode_args(g), &sc,
                                         &is_error, why, why_len);
    if (!err && (is_error || !sc || json_is_true(json_object_get(sc, "deleted")))) {
        char text[600];
        snprintf(text, sizeof text, "%s", why);
        kd_reject_write(why, why_len, "episode %u cannot be resumed: %s", o->episode,
                        text[0] ? text : "its creation was rolled back");
        err = KD_ERR_NOT_FOUND;
    }
    const char *type = json_string_value(json_object_get(sc, "type"));
    size_t seats = json_array_size(json_object_get(sc, "seats"));
    if (!err && (!type || !seats)) {
        kd_reject_write(why, why_len, "the gateway's view of episode %u names no type or seats", o->episode);
        err = KD_ERR_DECODE;
    }
    if (!err && o->type && strcmp(o->type, type) != 0) {
        kd_reject_write(why, why_len, "episode %u is %s, not %s (leave out --type when resuming)", o->episode, type,
                        o->type);
        err = KD_ERR_INVALID_ARG;
    }
    if (!err)
        err = kd_play_game_setup(g, type, seats, o->players, why, why_len);
    if (!err)
        err = kd_play_view_parse(g->type, sc, &g->last, why, why_len);
    uint32_t mine = 0; /* the seats whose keys the session holds: another owner plays the rest */
    if (!err)
        err = kd_play_seats_held(g->mcp, json_object_get(sc, "participants"), &mine, why, why_len);
    if (!err && mine) /* holding none: every seat is played as before, the gateway says what it refuses */
        g->remote = (uint32_t)((UINT64_C(1) << g->seats) - 1) & ~mine;
    json_decref(sc);
    return err;
}

kd_err kd_play_run(const kd_play_options *o, kd_play_result *res, char *why, size_t why_len)
{
    memset(res, 0, sizeof *res);
    res->winner = KD_SEAT_NONE;
    kd_play_game g = {.o = o, .out = o->out ? o->out : stdout, .res = res};
    kd_legal_moves legal;
    kd_legal_moves_init(&legal);
    kd_err err;
    if (o->join) { /* the gateway first: the table says its type and seats */
        err = open_gateway(&g, why, why_len);
        if (!err)
            err = kd_play_game_join_table(&g, why, why_len);
    } else if (o->episode) { /* the gateway first: the episode says its type and seats */
        err = open_gateway(&g, why, why_len);
        if (!err)
            err = resume_episode(&g, why, why_len);
    } else {
        err = kd_play_game_setup(&g, NULL, 0, o->players, why, why_len);
        if (!err && o->open) {
            uint32_t mine = 0; /* the seats given a player; none given: the first */
            for (size_t i = 0; i < g.seats; i++)
                if (o->players[i])
                    mine |= UINT32_C(1) << i;
            g.remote = (uint32_t)((UINT64_C(1) << g.seats) - 1) & ~(mine ? mine : 1u);
        }
        if (!err)
            err = open_gateway(&g, why, why_len);
        if (!err)
            err = o->open ? kd_play_game_open_table(&g, why, why_len) : start_episode(&g, why, why_len);
    }
    if (err || res->stopped)
        goto done;
    res->episode_id = g.episode;
    uint32_t max_moves = o->max_moves ? o->max_moves : KD_PLAY_DEFAULT_MAX_MOVES;
    kd_play_game_show(&g, "kdapp play: %s episode %u (%s) |",
                      o->episode           ? "resuming"
                      : o->open || o->join ? "every seat is taken: playing"
                                           : "started",
                      g.episode, g.type->title);
    for (size_t i = 0; i < g.seats; i++)
        kd_play_game_show(&g, "%s %s: %s", i ? "," : "", kd_play_game_seat_name(&g, (int)i),
                          kd_play_game_seat_remote(&g, (int)i) ? "another owner" : kd_player_name(g.players[i]));
    kd_play_game_show(&g, " | seed %llu\n", (unsigned long long)o->seed);
    kd_play_game_print_board(&g, g.last.state);
    while (g.last.phase == KD_PHASE_IN_PROGRESS && g.moves < max_moves && !kd_play_game_stopping(&g)) {
        if ((err = play_turn(&g, &legal, why, why_len)))
            goto done;
        /* Also after a winning move: the win is rolled back and mined again. */
        if (o->reorg_every && o->reorg_depth && g.moves % o->reorg_every == 0 && (err = reorg(&g, why, why_len)))
            goto done;
    }
    int exists;
    char digest[65] = "";
    kd_play_view final = {0};
    if ((err = kd_play_game_read_state(&g, &final, &exists, digest, why, why_len)))
        goto done;
    if (exists) {
        kd_play_view_fini(&g.last);
        g.last = final;
    }
    res->stopped = g.last.phase == KD_PHASE_IN_PROGRESS && kd_play_game_stopping(&g);
    res->remote = g.remote;
    res->phase = g.last.phase;
    res->winner = g.last.phase == KD_PHASE_WON ? g.last.winner : KD_SEAT_NONE;
    res->move_count = (uint32_t)g.last.moves;
    res->chosen = g.moves;
    snprintf(res->digest, sizeof res->digest, "%s", digest);
    print_result(&g, digest);
done:
    for (size_t i = 0; i < g.seats; i++)
        if (g.players[i])
            res->stats[i] = kd_player_get_stats(g.players[i]);
    int rc = kd_mcp_client_close(g.mcp);
    if (g.mcp && rc != 0) /* the game's outcome stands; the gateway's own messages say more */
        fprintf(o->log ? o->log : stderr, "kdapp play: the gateway exited with status %d\n", rc);
    for (size_t i = 0; i < g.seats; i++)
        kd_player_free(g.players[i]);
    kd_legal_moves_fini(&legal);
    kd_play_view_fini(&g.last);
    return err;
}
