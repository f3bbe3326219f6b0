/*
 * play_owners.c — the coordinator's side of a game with other owners (see
 * play_int.h): `kdapp play --open` opens a table with our seats and the
 * others open, `--join ID` takes a seat of one, `--episode ID` resumes one
 * still waiting for players; each then waits until every seat is taken
 * and reads the game's first view. During the game, a seat another owner
 * plays (through its own kdapp play and gateway) is waited for, never
 * played. The gateway calls themselves are play_table.c's.
 */
#include <stdlib.h>
#include <string.h>

#include "tools/play/play_int.h"

/* Waits until every seat of the table is taken, then reads the game's
 * first view. Stopped first (Ctrl-C), res->stopped is set and the command
 * that waits on is printed. */
static kd_err wait_start(kd_play_game *g, char *why, size_t why_len)
{
    int stopped = 0, exists = 0;
    kd_err err =
        kd_play_table_wait(g->mcp, g->episode, g->type, g->o->stop, g->o->quiet, g->out, &stopped, why, why_len);
    if (!err && stopped) {
        g->res->stopped = 1;
        fprintf(g->out, "table %u: stopped while it waits for players (it stays open until its deadline)\n",
                g->episode);
        fprintf(g->out, "resume: kdapp play --episode %u%s\n", g->episode, g->o->resume_args ? g->o->resume_args : "");
        fflush(g->out);
        return KD_OK;
    }
    if (!err)
        err = kd_play_game_read_state(g, &g->last, &exists, NULL, why, why_len);
    if (!err && !exists) {
        kd_reject_write(why, why_len, "table %u started, and its episode is not there", g->episode);
        err = KD_ERR_DECODE;
    }
    return err;
}

/* The seats line of a table: each seat's player, or "open". */
static void show_seats(kd_play_game *g, const char *lead)
{
    kd_play_game_show(g, "%s", lead);
    for (size_t i = 0; i < g->seats; i++)
        kd_play_game_show(g, "%s %s: %s", i ? "," : "", kd_play_game_seat_name(g, (int)i),
                          kd_play_game_seat_remote(g, (int)i) ? "another owner's" : kd_player_name(g->players[i]));
    kd_play_game_show(g, " | seed %llu\n", (unsigned long long)g->o->seed);
}

kd_err kd_play_game_open_table(kd_play_game *g, char *why, size_t why_len)
{
    uint32_t mine = (uint32_t)((UINT64_C(1) << g->seats) - 1) & ~g->remote;
    kd_err err = kd_play_table_open(g->mcp, g->o, g->type, g->seats, mine, &g->episode, why, why_len);
    if (err)
        return err;
    g->res->episode_id = g->episode;
    char lead[160];
    snprintf(lead, sizeof lead, "kdapp play: opened table %u (%s) |", g->episode, g->type->title);
    show_seats(g, lead);
    fprintf(g->out, "another owner joins with: kdapp play --join %u%s\n", g->episode,
            g->o->join_args ? g->o->join_args : "");
    fflush(g->out);
    return wait_start(g, why, why_len);
}

/* The seat `name` (a seat name or number) of table `t`, open; -1 with a
 * sentence otherwise. */
static int open_seat_named(kd_play_game *g, const kd_play_table *t, const char *name, char *why, size_t why_len)
{
    char *end;
    int seat = kd_episode_type_seat(g->type, name);
    unsigned long k = strtoul(name, &end, 10);
    if (seat == KD_SEAT_NONE && !*end && end != name && k < t->seats)
        seat = (int)k;
    char open[200] = "";
    for (size_t s = 0; s < t->seats; s++)
        if (!(t->taken & (UINT32_C(1) << s)))
            snprintf(open + strlen(open), sizeof open - strlen(open), "%s%s", open[0] ? ", " : "",
                     kd_play_game_seat_name(g, (int)s));
    if (seat == KD_SEAT_NONE || (size_t)seat >= t->seats) {
        kd_reject_write(why, why_len, "--seat %s: table %u (%s) has no seat %s (its open seats: %s)", name, g->o->join,
                        t->type, name, open);
        return -1;
    }
    if (t->taken & (UINT32_C(1) << seat)) {
        kd_reject_write(why, why_len, "--seat %s: seat %s of table %u is not open: it is taken (its open seats: %s)",
                        name, kd_play_game_seat_name(g, seat), g->o->join, open);
        return -1;
    }
    return seat;
}

/* 1 when table `id` (`t`) is open; 0 with a sentence saying why not
 * (started, cancelled, closed unfilled). */
static int table_joinable(uint32_t id, const kd_play_table *t, char *why, size_t why_len)
{
    if (strcmp(t->status, "open") == 0)
        return 1;
    if (strcmp(t->status, "started") == 0)
        kd_reject_write(why, why_len,
                        "table %u is full: its game has started (a seat of yours in it: kdapp play --episode %u)", id,
                        id);
    else if (strcmp(t->status, "cancelled") == 0)
        kd_reject_write(why, why_len, "table %u was cancelled by its creator", id);
    else
        kd_reject_write(why, why_len,
                        "table %u closed unfilled at DAA score %llu: its deadline passed (the chain is at %llu)", id,
                        (unsigned long long)t->deadline_daa, (unsigned long long)t->tip_daa);
    return 0;
}

/* The seat --join takes at table `t`: --seat's, else the first open one;
 * -1 with a sentence when there is none. */
static int seat_to_join(kd_play_game *g, const kd_play_table *t, char *why, size_t why_len)
{
    if (g->o->join_seat)
        return open_seat_named(g, t, g->o->join_seat, why, why_len);
    for (size_t s = 0; s < t->seats; s++)
        if (!(t->taken & (UINT32_C(1) << s)))
            return (int)s;
    kd_reject_write(why, why_len, "table %u has no open seat", g->o->join);
    return -1;
}

kd_err kd_play_game_join_table(kd_play_game *g, char *why, size_t why_len)
{
    const kd_play_options *o = g->o;
    kd_play_table t;
    g->episode = o->join;
    kd_err err = kd_play_table_read(g->mcp, o->join, &t, why, why_len);
    if (err == KD_ERR_NOT_FOUND)
        return KD_ERR_INVALID_ARG; /* the gateway's sentence: there is no table ID */
    if (err)
        return err;
    if (!table_joinable(o->join, &t, why, why_len))
        return KD_ERR_INVALID_ARG;
    if (!(g->type = kd_type_table_find(o->types, t.type))) {
        kd_reject_write(why, why_len, "table %u is of type %s, which this kdapp does not know", o->join, t.type);
        return KD_ERR_INVALID_ARG;
    }
    int seat = seat_to_join(g, &t, why, why_len);
    if (seat < 0)
        return KD_ERR_INVALID_ARG;
    const char *specs[KD_PLAY_MAX_SEATS] = {0};
    specs[seat] = o->join_player;
    if ((err = kd_play_game_setup(g, t.type, t.seats, specs, why, why_len)))
        return err;
    g->remote = (uint32_t)((UINT64_C(1) << g->seats) - 1) & ~(UINT32_C(1) << seat);
    if ((err = kd_play_table_join(g->mcp, o->join, seat, why, why_len))) {
        char text[700];
        snprintf(text, sizeof text, "%s", why);
        kd_reject_write(why, why_len, "cannot join table %u as %s: %s", o->join, kd_play_game_seat_name(g, seat), text);
        return err;
    }
    g->res->episode_id = g->episode;
    char lead[160];
    snprintf(lead, sizeof lead, "kdapp play: joined table %u (%s) as %s |", g->episode, g->type->title,
             kd_play_game_seat_name(g, seat));
    show_seats(g, lead);
    return wait_start(g, why, why_len);
}

/* The seats of table g->episode whose keys the session holds (a bit per
 * seat in *mine). Errors: the client's. */
static kd_err table_seats_held(kd_play_game *g, uint32_t *mine, char *why, size_t why_len)
{
    json_t *sc = NULL, *keys = json_array();
    kd_err err = keys ? kd_play_call(g->mcp, "kdapp_list_tables",
                                     json_pack("{s:I}", "episode_id", (json_int_t)g->episode), &sc, why, why_len)
                      : KD_ERR_NOMEM;
    json_t *seats = json_object_get(json_array_get(json_object_get(sc, "tables"), 0), "seats");
    for (size_t s = 0; !err && s < json_array_size(seats); s++)
        json_array_append(keys, json_object_get(json_array_get(seats, s), "key"));
    *mine = 0;
    if (!err)
        err = kd_play_seats_held(g->mcp, keys, mine, why, why_len);
    json_decref(keys);
    json_decref(sc);
    return err;
}

kd_err kd_play_game_resume_table(kd_play_game *g, const kd_play_table *t, char *why, size_t why_len)
{
    uint32_t mine = 0;
    kd_err err = table_seats_held(g, &mine, why, why_len);
    if (!err && !mine) {
        kd_reject_write(why, why_len,
                        "table %u waits for players, and this gateway's session holds no key seated at it", g->episode);
        err = KD_ERR_INVALID_ARG;
    }
    if (!err)
        err = kd_play_game_setup(g, t->type, t->seats, g->o->players, why, why_len);
    if (err)
        return err;
    g->remote = (uint32_t)((UINT64_C(1) << g->seats) - 1) & ~mine;
    g->res->episode_id = g->episode;
    char lead[160];
    snprintf(lead, sizeof lead, "kdapp play: table %u (%s) waits for players |", g->episode, g->type->title);
    show_seats(g, lead);
    return wait_start(g, why, why_len);
}

kd_err kd_play_game_wait_remote(kd_play_game *g, int seat, const kd_play_view *now, char *why, size_t why_len)
{
    kd_play_view next = {0};
    kd_err err = kd_play_game_await_change(g, now, 0, &next, why, why_len);
    if (err || !next.state_hex) /* an error, or stopped (Ctrl-C) */
        return err;
    kd_play_game_show(g, "\nmove %llu: %s (another owner's seat) moved", (unsigned long long)next.moves,
                      kd_play_game_seat_name(g, seat));
    kd_play_game_take_change(g, now, &next, "; ");
    return KD_OK;
}
