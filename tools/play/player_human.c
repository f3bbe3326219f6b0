/*
 * player_human.c — the human player: shows whose turn it is and reads
 * "row col" from the terminal (also "row,col" or "(row, col)"). A line
 * that is not a move, or a move the gateway refused, is answered with the
 * reason and asked again, as often as needed; the end of input ends the
 * game. The board itself is printed by the coordinator before each turn.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/play/players.h"

typedef struct {
    FILE *in, *out;
} human;

/* Parses "r c", "r,c" or "(r, c)" with r, c in 0..2; returns 0 or -1. */
static int parse_line(const char *line, kd_ttt_cell *m)
{
    int digits[2], n = 0;
    for (const char *p = line; *p; p++) {
        if (*p >= '0' && *p <= '9') {
            if (n == 2 || (p[1] >= '0' && p[1] <= '9'))
                return -1;
            digits[n++] = *p - '0';
        } else if (!strchr(" \t\r\n,()", *p)) {
            return -1;
        }
    }
    if (n != 2 || digits[0] > 2 || digits[1] > 2)
        return -1;
    m->row = (uint8_t)digits[0];
    m->col = (uint8_t)digits[1];
    return 0;
}

static kd_err human_choose(void *impl, const kd_play_turn *turn, const char *feedback, kd_ttt_cell *move, char *why,
                           size_t why_len)
{
    human *h = impl;
    if (feedback)
        fprintf(h->out, "%s\n", feedback);
    for (;;) {
        fprintf(h->out, "%c to move: your move as \"row col\" (0-2 each): ", turn->me);
        fflush(h->out);
        char line[128];
        if (!fgets(line, sizeof line, h->in)) {
            snprintf(why, why_len, "input ended while waiting for %c's move", turn->me);
            return KD_ERR_CLOSED;
        }
        if (parse_line(line, move) == 0) {
            move->symbol = turn->state.turn;
            return KD_OK;
        }
        fprintf(h->out, "that is not a move: type a row and a column, each 0, 1 or 2, e.g. \"1 2\"\n");
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
