/*
 * seabattle_view.c — sea battle's public view (SbView) and every rendering
 * made from its bytes: view JSON, strategy context, text and the prompt.
 * The view carries roots, shots and answers only: never a fleet.
 *
 * Boards are drawn row 1 at the top, columns a..j left to right; marks:
 * '.' unshot, 'o' miss, 'x' hit, '#' a cell of a sunk ship, '?' the shot
 * waiting for its answer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "episodes/seabattle/seabattle.h"
#include "episodes/seabattle/seabattle_int.h"
#include "episodes/wire_alloc.h"
#include "seabattle.pb-c.h"

const char *const kd_sb_seat_names[2] = {"blue", "red"};

kd_err kd_sb_view_encode(const void *state_ptr, int seat, kd_buf *out)
{
    (void)seat; /* the state is public: a seat's own fleet comes from its seed (secret_view) */
    const kd_sb_state *s = state_ptr;
    uint32_t marks[2][KD_SB_CELLS];
    for (int b = 0; b < 2; b++)
        for (int i = 0; i < KD_SB_CELLS; i++)
            marks[b][i] = s->marks[b][i];
    Kdapp__SbView v = KDAPP__SB_VIEW__INIT;
    v.n_marks_blue = v.n_marks_red = KD_SB_CELLS;
    v.marks_blue = marks[0];
    v.marks_red = marks[1];
    v.phase = s->phase;
    v.turn = s->turn;
    v.pending = s->pending == KD_SB_NO_CELL ? 0 : (uint32_t)s->pending + 1;
    v.winner = s->winner == KD_SB_NO_SEAT ? 0 : (uint32_t)s->winner + 1;
    v.reason = s->reason;
    v.revealed_blue = s->revealed[0];
    v.revealed_red = s->revealed[1];
    v.timeout = s->timeout;
    v.since = s->since;
    v.move_count = s->move_count;
    v.root_blue = (ProtobufCBinaryData){KD_HASH_LEN, (uint8_t *)s->roots[0]};
    v.root_red = (ProtobufCBinaryData){KD_HASH_LEN, (uint8_t *)s->roots[1]};
    v.binding_blue = (ProtobufCBinaryData){KD_SECRET_BINDING_LEN, (uint8_t *)s->bindings[0]};
    v.binding_red = (ProtobufCBinaryData){KD_SECRET_BINDING_LEN, (uint8_t *)s->bindings[1]};
    return kd_pb_append(&v.base, out);
}

int kd_sb_view_decode(const uint8_t *data, size_t len, kd_sb_state *out)
{
    memset(out, 0, sizeof *out);
    if (!data || len == 0)
        return -1;
    Kdapp__SbView *v = kdapp__sb_view__unpack(NULL, len, data);
    int rc = -1;
    if (!v || v->n_marks_blue != KD_SB_CELLS || v->n_marks_red != KD_SB_CELLS || v->phase > KD_SB_OVER || v->turn > 1 ||
        v->pending > KD_SB_CELLS || v->winner > 2 || v->reason > KD_SB_REASON_NO_REVEAL || v->revealed_blue > 2 ||
        v->revealed_red > 2 || v->root_blue.len != KD_HASH_LEN || v->root_red.len != KD_HASH_LEN ||
        v->binding_blue.len != KD_SECRET_BINDING_LEN || v->binding_red.len != KD_SECRET_BINDING_LEN)
        goto done;
    for (int i = 0; i < KD_SB_CELLS; i++) {
        if (v->marks_blue[i] > KD_SB_SHIPS + 1 || v->marks_red[i] > KD_SB_SHIPS + 1)
            goto done;
        out->marks[0][i] = (uint8_t)v->marks_blue[i];
        out->marks[1][i] = (uint8_t)v->marks_red[i];
    }
    out->phase = (uint8_t)v->phase;
    out->turn = (uint8_t)v->turn;
    out->pending = v->pending ? (uint8_t)(v->pending - 1) : KD_SB_NO_CELL;
    out->winner = v->winner ? (uint8_t)(v->winner - 1) : KD_SB_NO_SEAT;
    out->reason = (uint8_t)v->reason;
    out->revealed[0] = (uint8_t)v->revealed_blue;
    out->revealed[1] = (uint8_t)v->revealed_red;
    out->timeout = v->timeout;
    out->since = v->since;
    out->move_count = v->move_count;
    memcpy(out->roots[0], v->root_blue.data, KD_HASH_LEN);
    memcpy(out->roots[1], v->root_red.data, KD_HASH_LEN);
    memcpy(out->bindings[0], v->binding_blue.data, KD_SECRET_BINDING_LEN);
    memcpy(out->bindings[1], v->binding_red.data, KD_SECRET_BINDING_LEN);
    rc = 0;
done:
    kdapp__sb_view__free_unpacked(v, NULL);
    return rc;
}

static const char *phase_name(uint8_t phase)
{
    return phase == KD_SB_PLAY ? "play" : phase == KD_SB_REVEAL ? "reveal" : "over";
}

static const char *reason_name(uint8_t reason)
{
    static const char *const names[] = {NULL, "fleet_sunk", "resigned", "board_exhausted", "no_answer", "no_reveal"};
    return reason <= KD_SB_REASON_NO_REVEAL ? names[reason] : NULL;
}

static const char *reveal_name(uint8_t r) { return r == KD_SB_LEGAL ? "legal" : r == KD_SB_ILLEGAL ? "illegal" : "no"; }

/* The mark character of cell `i` of board `b`. */
static char mark_char(const kd_sb_state *s, int b, int i)
{
    uint8_t m = s->marks[b][i];
    if (m == 0)
        return s->pending == i && b == 1 - s->turn && s->phase == KD_SB_PLAY ? '?' : '.';
    if (m == KD_SB_MARK_MISS)
        return 'o';
    return kd_sb_hits(s, b, m - 1u) >= kd_sb_ship_len[m - 1] ? '#' : 'x';
}

/* Board `b` as 10 strings, row 1 first. */
static json_t *board_rows(const kd_sb_state *s, int b)
{
    json_t *rows = json_array();
    for (int r = 0; rows && r < KD_SB_SIZE; r++) {
        char line[KD_SB_SIZE + 1];
        for (int c = 0; c < KD_SB_SIZE; c++)
            line[c] = mark_char(s, b, r * KD_SB_SIZE + c);
        line[KD_SB_SIZE] = '\0';
        if (json_array_append_new(rows, json_string(line)) != 0) {
            json_decref(rows);
            return NULL;
        }
    }
    return rows;
}

/* The ids of the sunk ships of board `b`. */
static json_t *sunk_json(const kd_sb_state *s, int b)
{
    json_t *a = json_array();
    for (unsigned id = 1; a && id <= KD_SB_SHIPS; id++)
        if (kd_sb_hits(s, b, id) >= kd_sb_ship_len[id] && json_array_append_new(a, json_integer(id)) != 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

/* The members every JSON rendering shares. */
static json_t *common_json(const kd_sb_state *s)
{
    int to_move = kd_sb_to_move(s);
    char pending[4] = "";
    if (s->pending != KD_SB_NO_CELL)
        kd_sb_cell_name(s->pending, pending);
    int waiting = s->phase != KD_SB_OVER && (s->pending != KD_SB_NO_CELL || s->phase == KD_SB_REVEAL);
    return json_pack(
        "{s:s, s:s, s:s?, s:s?, s:o, s:o, s:{s:o, s:o}, s:s?, s:s?, s:{s:s, s:s}, s:I, s:o, s:I, "
        "s:{s:o, s:o}, s:{s:o, s:o}}",
        "stage", phase_name(s->phase), "shooter", kd_sb_seat_names[s->turn], "to_move",
        to_move >= 0 ? kd_sb_seat_names[to_move] : NULL, "pending_shot", pending[0] ? pending : NULL, "board_blue",
        board_rows(s, 0), "board_red", board_rows(s, 1), "sunk", "blue", sunk_json(s, 0), "red", sunk_json(s, 1),
        "leader", s->winner <= 1 ? kd_sb_seat_names[s->winner] : NULL, "reason", reason_name(s->reason), "revealed",
        "blue", reveal_name(s->revealed[0]), "red", reveal_name(s->revealed[1]), "timeout", (json_int_t)s->timeout,
        "deadline", waiting ? json_integer((json_int_t)(s->since + s->timeout)) : json_null(), "move_count",
        (json_int_t)s->move_count, "roots", "blue", kd_json_hex(s->roots[0], KD_HASH_LEN), "red",
        kd_json_hex(s->roots[1], KD_HASH_LEN), "bindings", "blue", kd_json_hex(s->bindings[0], KD_SECRET_BINDING_LEN),
        "red", kd_json_hex(s->bindings[1], KD_SECRET_BINDING_LEN));
}

json_t *kd_sb_view_json(const uint8_t *view, size_t len)
{
    kd_sb_state s;
    if (kd_sb_view_decode(view, len, &s) != 0)
        return NULL;
    json_t *j = common_json(&s);
    if (j && json_object_set_new(j, "board_rows",
                                 json_string("row 1 first, columns a..j; . unshot, o miss, x hit, "
                                             "# sunk, ? shot awaiting its answer")) != 0) {
        json_decref(j);
        return NULL;
    }
    return j;
}

/* The unshot cells of the board the shooter fires at (none unless a shot
 * may be fired now). */
static json_t *shots_json(const kd_sb_state *s)
{
    json_t *a = json_array();
    int target = 1 - s->turn;
    for (int i = 0; a && s->phase == KD_SB_PLAY && s->pending == KD_SB_NO_CELL && i < KD_SB_CELLS; i++) {
        char name[4];
        kd_sb_cell_name((uint32_t)i, name);
        if (!s->marks[target][i] && json_array_append_new(a, json_string(name)) != 0) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

json_t *kd_sb_strategy_context(const uint8_t *view, size_t len)
{
    kd_sb_state s;
    if (kd_sb_view_decode(view, len, &s) != 0)
        return NULL;
    json_t *j = common_json(&s);
    if (j && (json_object_set_new(j, "game", json_string(KD_SB_TYPE_NAME)) ||
              json_object_set_new(j, "rules", json_string(KD_SB_RULES_TEXT)) ||
              json_object_set_new(j, "legal_shots", shots_json(&s)))) {
        json_decref(j);
        return NULL;
    }
    return j;
}

static kd_err put_board(const kd_sb_state *s, int b, kd_buf *out)
{
    kd_err err = kd_buf_appendf(out, "%s's board (shot by %s):\n    a b c d e f g h i j\n", kd_sb_seat_names[b],
                                kd_sb_seat_names[1 - b]);
    for (int r = 0; !err && r < KD_SB_SIZE; r++) {
        char line[3 * KD_SB_SIZE + 8];
        size_t n = (size_t)snprintf(line, sizeof line, "%2d  ", r + 1);
        for (int c = 0; c < KD_SB_SIZE; c++) {
            line[n++] = mark_char(s, b, r * KD_SB_SIZE + c);
            line[n++] = c + 1 < KD_SB_SIZE ? ' ' : '\n';
        }
        err = kd_buf_append(out, line, n);
    }
    return err;
}

static kd_err put_status(const kd_sb_state *s, kd_buf *out)
{
    int to_move = kd_sb_to_move(s);
    if (s->phase == KD_SB_PLAY && s->pending != KD_SB_NO_CELL) {
        char c[4];
        kd_sb_cell_name(s->pending, c);
        return kd_buf_appendf(out, "%s shot at %s; %s owes the answer by DAA score %llu\n", kd_sb_seat_names[s->turn],
                              c, kd_sb_seat_names[1 - s->turn], (unsigned long long)(s->since + s->timeout));
    }
    if (s->phase == KD_SB_PLAY)
        return kd_buf_appendf(out, "%s to shoot (move %u)\n", kd_sb_seat_names[s->turn], (unsigned)s->move_count + 1);
    if (s->phase == KD_SB_REVEAL)
        return kd_buf_appendf(out, "play over (%s): %s leads; %s owes its whole board by DAA score %llu\n",
                              reason_name(s->reason), kd_sb_seat_names[s->winner & 1], kd_sb_seat_names[to_move],
                              (unsigned long long)(s->since + s->timeout));
    return kd_buf_appendf(out, "%s won (%s; boards: blue %s, red %s)\n", kd_sb_seat_names[s->winner & 1],
                          reason_name(s->reason), reveal_name(s->revealed[0]), reveal_name(s->revealed[1]));
}

static kd_err put_position(const kd_sb_state *s, kd_buf *out)
{
    kd_err err = put_board(s, 0, out);
    if (!err)
        err = put_board(s, 1, out);
    if (!err)
        err = put_status(s, out);
    return err;
}

kd_err kd_sb_render_text(const uint8_t *view, size_t len, unsigned flags, kd_buf *out)
{
    (void)flags; /* ASCII marks read the same everywhere */
    kd_sb_state s;
    if (kd_sb_view_decode(view, len, &s) != 0)
        return KD_ERR_DECODE;
    return put_position(&s, out);
}

kd_err kd_sb_prompt(const uint8_t *view, size_t len, uint32_t episode_id, int seat, kd_buf *out)
{
    kd_sb_state s;
    if (kd_sb_view_decode(view, len, &s) != 0)
        return KD_ERR_DECODE;
    if (seat != KD_SB_BLUE && seat != KD_SB_RED)
        return KD_ERR_INVALID_ARG;
    kd_err err =
        kd_buf_appendf(out,
                       "You play sea battle episode %u as %s. %s\n\nYou fire at %s's board; marks: . "
                       "unshot, o miss, x hit, # sunk.\n",
                       (unsigned)episode_id, kd_sb_seat_names[seat], KD_SB_RULES_TEXT, kd_sb_seat_names[1 - seat]);
    if (!err)
        err = put_position(&s, out);
    if (err)
        return err;
    if (s.phase == KD_SB_PLAY && s.pending == KD_SB_NO_CELL && s.turn == seat) {
        err = kd_buf_appendf(out, "\nUnshot cells of %s's board:", kd_sb_seat_names[1 - seat]);
        for (int i = 0; !err && i < KD_SB_CELLS; i++) {
            char c[4];
            kd_sb_cell_name((uint32_t)i, c);
            if (!s.marks[1 - seat][i])
                err = kd_buf_appendf(out, " %s", c);
        }
        if (!err)
            err = kd_buf_appendf(out, "\n\nAnswer with the command JSON only, CELL one of the unshot cells (a "
                                      "letter a..j then a row 1..10): {\"shot\": \"CELL\"}\n");
        return err;
    }
    return kd_buf_appendf(out, "\nIt is not your shot: answers and reveals are sent for you from your key.\n");
}
