/*
 * view_json.c — the enriched view and the strategy context as JSON, and the
 * text board. These shapes are a public contract (DESIGN.md, MCP tools);
 * tests/handlers hold golden copies.
 */
#include <stdio.h>
#include <string.h>

#include "handlers/view.h"

const char *kd_event_kind_name(kd_event_kind kind)
{
    switch (kind) {
    case KD_EVENT_INITIALIZE:
        return "initialize";
    case KD_EVENT_COMMAND:
        return "command";
    case KD_EVENT_ROLLBACK:
        return "rollback";
    }
    return "unknown";
}

const char *kd_ttt_status_name(uint8_t status)
{
    switch (status) {
    case KD_TTT_IN_PROGRESS:
        return "in_progress";
    case KD_TTT_X_WON:
        return "x_won";
    case KD_TTT_O_WON:
        return "o_won";
    case KD_TTT_DRAW:
        return "draw";
    }
    return "unknown";
}

static json_t *hex_json(const uint8_t *data, size_t len)
{
    char hex[2 * 64 + 1];
    kd_hex_encode(data, len, hex);
    return json_string(hex);
}

static json_t *player_json(uint8_t symbol)
{
    char s[2] = {kd_ttt_symbol_char(symbol), '\0'};
    return json_string(s);
}

static json_t *cell_json(const kd_ttt_cell *c)
{
    return json_pack("{s:i, s:i, s:o}", "row", c->row, "col", c->col, "player", player_json(c->symbol));
}

static json_t *board_json(const kd_ttt_view *t)
{
    json_t *rows = json_array();
    for (int r = 0; rows && r < 3; r++)
        json_array_append_new(rows, json_pack("[i,i,i]", t->board[r][0], t->board[r][1], t->board[r][2]));
    return rows;
}

static json_t *recent_json(const kd_ttt_view *t)
{
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < t->recent_len; i++)
        json_array_append_new(arr, cell_json(&t->recent[i]));
    return arr;
}

json_t *kd_strategy_context_json(const kd_ttt_view *t)
{
    char rule[256];
    kd_ttt_rule_text(t->cap, rule, sizeof rule);
    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:s}", "board", board_json(t), "current", player_json(t->current),
                     "cap", t->cap ? json_integer(t->cap) : json_null(), "next_to_remove",
                     t->has_next_to_remove ? cell_json(&t->next_to_remove) : json_null(), "recent_moves",
                     recent_json(t), "rule_text", rule);
}

json_t *kd_episode_view_json(const kd_episode_view *v)
{
    json_t *parts = json_array();
    for (size_t i = 0; parts && i < v->participants.count; i++)
        json_array_append_new(parts, hex_json(v->participants.keys[i].bytes, KD_PUBKEY_LEN));
    json_t *j = json_pack("{s:i, s:s, s:o, s:s, s:o, s:I, s:o, s:b}", "episode_id", (json_int_t)v->episode_id, "type",
                          v->type, "participants", parts, "last_event", kd_event_kind_name(v->last_event), "block_hash",
                          hex_json(v->block_hash, KD_HASH_LEN), "log_seq", (json_int_t)v->log_seq, "digest",
                          hex_json(v->digest, KD_HASH_LEN), "deleted", v->deleted);
    if (!j || !v->has_ttt)
        return j;
    const kd_ttt_view *t = &v->ttt;
    json_object_set_new(j, "board", board_json(t));
    json_object_set_new(j, "current", player_json(t->current));
    json_object_set_new(j, "status", json_string(kd_ttt_status_name(t->status)));
    json_object_set_new(j, "cap", t->cap ? json_integer(t->cap) : json_null());
    json_object_set_new(j, "recent_moves", recent_json(t));
    json_object_set_new(j, "next_to_remove", t->has_next_to_remove ? cell_json(&t->next_to_remove) : json_null());
    json_object_set_new(j, "move_count", json_integer(t->move_count));
    return j;
}

kd_err kd_render_board(const kd_ttt_view *t, kd_buf *out)
{
    char text[512];
    size_t n = 0;
    n += (size_t)snprintf(text + n, sizeof text - n, "    0 1 2\n");
    for (int r = 0; r < 3; r++) {
        n += (size_t)snprintf(text + n, sizeof text - n, "  %d", r);
        for (int c = 0; c < 3; c++) {
            int next = t->has_next_to_remove && t->next_to_remove.row == r && t->next_to_remove.col == c;
            char mark = kd_ttt_symbol_char(t->board[r][c]);
            /* The mark removed next is shown lower-case: x / o. */
            if (next)
                mark = mark == 'X' ? 'x' : 'o';
            n += (size_t)snprintf(text + n, sizeof text - n, " %c", mark);
        }
        n += (size_t)snprintf(text + n, sizeof text - n, "\n");
    }
    if (t->status == KD_TTT_IN_PROGRESS)
        n += (size_t)snprintf(text + n, sizeof text - n, "  %c to move", kd_ttt_symbol_char(t->current));
    else
        n += (size_t)snprintf(text + n, sizeof text - n, "  game over: %s", kd_ttt_status_name(t->status));
    if (t->cap)
        n += (size_t)snprintf(text + n, sizeof text - n, " | stress cap %u", t->cap);
    else
        n += (size_t)snprintf(text + n, sizeof text - n, " | classic");
    if (t->has_next_to_remove)
        n += (size_t)snprintf(text + n, sizeof text - n, " | removed next: %c at (%u,%u)",
                              kd_ttt_symbol_char(t->next_to_remove.symbol), t->next_to_remove.row,
                              t->next_to_remove.col);
    n += (size_t)snprintf(text + n, sizeof text - n, " | moves %u\n", t->move_count);
    return kd_buf_append(out, text, n);
}
