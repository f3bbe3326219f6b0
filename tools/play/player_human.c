/*
 * player_human.c — the human player: shows the legal moves of the seat to
 * move and reads one line from the terminal: a legal move's notation
 * (compared on letters and digits only, so "(1, 2)", "1 2" and "1,2" are
 * the same move, as are "e2e4" and "E2-E4"), its number in the list, or the
 * type's command JSON. A line that is none of these, or a move the gateway
 * refused, is answered with the reason and asked again, as often as needed;
 * the end of input ends the game. The board itself is printed by the
 * coordinator before each turn.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/play/players.h"

typedef struct {
    FILE *in, *out;
} human;

/* The letters and digits of `s`, lower-cased, into `out`. */
static void squeeze(const char *s, char *out, size_t len)
{
    size_t n = 0;
    for (; *s && n + 1 < len; s++)
        if (isalnum((unsigned char)*s))
            out[n++] = (char)tolower((unsigned char)*s);
    out[n] = '\0';
}

/* The move a line names, or -1. */
static int parse_line(const kd_play_turn *turn, const char *line, kd_legal_move *move)
{
    char typed[128], notation[KD_NOTATION_MAX];
    squeeze(line, typed, sizeof typed);
    if (!typed[0])
        return -1;
    for (size_t i = 0; i < turn->legal->count; i++) {
        squeeze(turn->legal->moves[i].notation, notation, sizeof notation);
        if (strcmp(typed, notation) == 0) {
            *move = turn->legal->moves[i];
            return 0;
        }
    }
    char *end;
    unsigned long k = strtoul(line, &end, 10);
    while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')
        end++;
    if (end != line && !*end && k >= 1 && k <= turn->legal->count) {
        *move = turn->legal->moves[k - 1];
        return 0;
    }
    json_t *j = json_loads(line, JSON_REJECT_DUPLICATES, NULL);
    kd_buf cmd;
    kd_buf_init(&cmd);
    int rc = json_is_object(j) && turn->type->command_from_json(j, turn->seat, &cmd, NULL, 0) == KD_OK &&
                     kd_play_move_of(turn, cmd.data, cmd.len, move) == KD_OK
                 ? 0
                 : -1;
    kd_buf_fini(&cmd);
    json_decref(j);
    return rc;
}

static kd_err human_choose(void *impl, const kd_play_turn *turn, const char *feedback, kd_legal_move *move, char *why,
                           size_t why_len)
{
    human *h = impl;
    if (feedback)
        fprintf(h->out, "%s\n", feedback);
    for (;;) {
        fprintf(h->out, "%s to move:", turn->seat_name);
        for (size_t i = 0; i < turn->legal->count; i++)
            fprintf(h->out, " %zu. %s", i + 1, turn->legal->moves[i].notation);
        fprintf(h->out, "\nyour move (its notation, its number, or the command JSON): ");
        fflush(h->out);
        char line[512];
        if (!fgets(line, sizeof line, h->in)) {
            snprintf(why, why_len, "input ended while waiting for %s's move", turn->seat_name);
            return KD_ERR_CLOSED;
        }
        if (parse_line(turn, line, move) == 0)
            return KD_OK;
        fprintf(h->out,
                "that is not a move: type one of the legal moves above (e.g. \"%s\"), its number, or the "
                "command JSON\n",
                turn->legal->count ? turn->legal->moves[0].notation : "");
    }
}

static void human_free(void *impl) { free(impl); }

const kd_player_ops kd_player_human_ops = {
    .kind = "human", .choose = human_choose, .free = human_free, .retry_limit = 0, .interactive = 1};

kd_err kd_player_human_open(const kd_player_options *o, void **impl)
{
    human *h = calloc(1, sizeof *h);
    if (!h)
        return KD_ERR_NOMEM;
    h->in = o->in ? o->in : stdin;
    h->out = o->out ? o->out : stdout;
    *impl = h;
    return KD_OK;
}
