/* prompt.c — the turn prompt (see prompt.h). */
#include "handlers/prompt.h"

#include <stdarg.h>
#include <stdio.h>

__attribute__((format(printf, 2, 3))) static kd_err put(kd_buf *out, const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (n < 0)
        return KD_ERR_INTERNAL;
    return kd_buf_append(out, text, (size_t)n < sizeof text ? (size_t)n : sizeof text - 1);
}

kd_err kd_turn_prompt(const kd_episode_view *v, char player, kd_buf *out)
{
    if (!v->has_ttt || (player != 'X' && player != 'O'))
        return KD_ERR_INVALID_ARG;
    const kd_ttt_view *t = &v->ttt;
    char rule[256];
    kd_ttt_rule_text(t->cap, rule, sizeof rule);
    kd_err err =
        t->cap ? put(out, "You are playing tic-tac-toe as %c in episode %u, in stress mode.\n", player, v->episode_id)
               : put(out, "You are playing classic tic-tac-toe as %c in episode %u.\n", player, v->episode_id);
    if (!err)
        err = put(out, "Rule: %s\nThree of your marks in a row, column or diagonal win.\n\n", rule);
    if (!err)
        err = put(out, "Board (row and column count from 0; X, O, . for empty):\n");
    if (!err)
        err = kd_render_board(t, out);
    if (!err && t->cap) {
        err = put(out, "\nRecent moves (oldest to newest):");
        for (size_t i = 0; !err && i < t->recent_len; i++)
            err = put(out, "%s (%u, %u, %c)", i ? "," : "", t->recent[i].row, t->recent[i].col,
                      kd_ttt_symbol_char(t->recent[i].symbol));
        if (!err && !t->recent_len)
            err = put(out, " none yet");
        if (!err && t->has_next_to_remove)
            err = put(out,
                      "\nWill be removed next: (%u, %u, %c) — it disappears before the next mark is placed, "
                      "and its cell stays occupied until then.",
                      t->next_to_remove.row, t->next_to_remove.col, kd_ttt_symbol_char(t->next_to_remove.symbol));
        if (!err)
            err = put(out, "\n");
    }
    if (err)
        return err;
    if (t->status != KD_TTT_IN_PROGRESS) {
        err = put(out, "\nThe game is over (%s).\n", kd_ttt_status_name(t->status));
    } else if (kd_ttt_symbol_char(t->current) != player) {
        err = put(out, "\nIt is %c's turn, not yours; wait for their move.\n", kd_ttt_symbol_char(t->current));
    } else {
        err = put(out, "\nIt is your turn. Legal moves (row, col):");
        for (int r = 0; !err && r < 3; r++)
            for (int c = 0; !err && c < 3; c++)
                if (t->board[r][c] == KD_TTT_EMPTY)
                    err = put(out, " (%d, %d)", r, c);
        if (!err)
            err = put(out, "\nAnswer with exactly one move as JSON and nothing else: {\"row\": R, \"col\": C}\n");
    }
    return err ? err : kd_buf_append(out, "", 1);
}
