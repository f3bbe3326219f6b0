/*
 * play_view.c — the game as the coordinator sees it (see play_int.h): the
 * gateway's view of the episode read (kdapp_get_episode_state) and parsed
 * (its generic members, the state decoded with the type's decode_state),
 * its board drawn (the type's view_encode + render_text), what changed
 * between two states said (describe_change), and the lines printed unless
 * quiet.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "engine/bytes.h"
#include "tools/play/play_int.h"

__attribute__((format(printf, 2, 3))) void kd_play_game_show(kd_play_game *g, const char *fmt, ...)
{
    if (g->o->quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(g->out, fmt, ap);
    va_end(ap);
}

void kd_play_view_fini(kd_play_view *v)
{
    free(v->state_hex);
    free(v->state);
    memset(v, 0, sizeof *v);
}

static int seat_of(const json_t *j)
{
    return json_is_integer(j) && json_integer_value(j) >= 0 && json_integer_value(j) < KD_PLAY_MAX_SEATS
               ? (int)json_integer_value(j)
               : KD_SEAT_NONE;
}

/* Parses the generic members of a view into `v` (released first). */
kd_err kd_play_view_parse(const kd_episode_type *type, const json_t *j, kd_play_view *v, char *why, size_t why_len)
{
    kd_play_view_fini(v);
    const char *phase = json_string_value(json_object_get(j, "phase"));
    const char *hex = json_string_value(json_object_get(j, "state"));
    if (!phase || !hex) {
        kd_reject_write(why, why_len, "the gateway's view has no \"phase\" or \"state\"");
        return KD_ERR_DECODE;
    }
    v->phase = strcmp(phase, "won") == 0    ? KD_PHASE_WON
               : strcmp(phase, "draw") == 0 ? KD_PHASE_DRAW
                                            : KD_PHASE_IN_PROGRESS;
    v->winner = seat_of(json_object_get(j, "winner"));
    v->to_move = seat_of(json_object_get(j, "to_move"));
    v->log_seq = (uint64_t)json_integer_value(json_object_get(j, "log_seq"));
    v->moves = (uint64_t)json_integer_value(json_object_get(j, "move_count"));
    v->height = (uint64_t)json_integer_value(json_object_get(j, "height"));
    v->final = json_is_true(json_object_get(j, "final"));
    const char *event = json_string_value(json_object_get(j, "last_event"));
    v->by_command = event && strcmp(event, "command") == 0;
    size_t len = strlen(hex) / 2;
    uint8_t *bytes = malloc(len ? len : 1);
    v->state_hex = strdup(hex);
    v->state = calloc(1, type->ops->state_size);
    kd_err err = bytes && v->state_hex && v->state ? KD_OK : KD_ERR_NOMEM;
    if (!err && (strlen(hex) % 2 || kd_hex_decode(hex, bytes, len) != 0 ||
                 type->ops->decode_state(bytes, len, v->state) != KD_OK)) {
        kd_reject_write(why, why_len, "the gateway's view carries a state that does not decode as %s",
                        type->ops->type_name);
        err = KD_ERR_DECODE;
    }
    free(bytes);
    if (err)
        kd_play_view_fini(v);
    return err;
}

void kd_play_game_print_board(kd_play_game *g, const void *state)
{
    kd_buf view, b;
    kd_buf_init(&view);
    kd_buf_init(&b);
    if (g->type->view_encode(state, KD_SEAT_PUBLIC, &view) == KD_OK &&
        g->type->render_text(view.data, view.len, g->o->render_flags, &b) == KD_OK && kd_buf_append(&b, "", 1) == KD_OK)
        kd_play_game_show(g, "%s%s", (const char *)b.data, b.len > 1 && b.data[b.len - 2] != '\n' ? "\n" : "");
    kd_buf_fini(&b);
    kd_buf_fini(&view);
}

/* Shows the type's describe_change from `from` to `to`: each sentence
 * after `lead`, and `tail` after it ("; " ... "" to stay on a move's line,
 * "  " ... "\n" for lines of their own). */
void kd_play_game_show_change(kd_play_game *g, const void *from, const void *to, const char *lead, const char *tail)
{
    if (!g->type->describe_change)
        return;
    kd_buf b;
    kd_buf_init(&b);
    if (g->type->describe_change(from, to, &b) == KD_OK && kd_buf_append(&b, "", 1) == KD_OK) {
        char *rest = (char *)b.data;
        for (char *nl; (nl = strchr(rest, '\n')); rest = nl + 1) {
            *nl = '\0';
            kd_play_game_show(g, "%s%s%s", lead, rest, tail);
        }
    }
    kd_buf_fini(&b);
}

/* kdapp_get_episode_state; *exists 0 when the episode is gone (its
 * creation rolled back). `digest` (65 bytes, may be NULL) gets the digest. */
kd_err kd_play_game_read_state(kd_play_game *g, kd_play_view *v, int *exists, char *digest, char *why, size_t why_len)
{
    json_t *sc = NULL;
    int is_error = 0;
    kd_err err = kd_mcp_client_call_tool(g->mcp, "kdapp_get_episode_state", kd_play_game_episode_args(g), &sc,
                                         &is_error, why, why_len);
    *exists = 0;
    if (!err && is_error && strstr(why, "does not exist")) {
        json_decref(sc);
        return KD_OK;
    }
    if (!err && (is_error || !sc)) {
        char text[600];
        snprintf(text, sizeof text, "%s", why);
        kd_reject_write(why, why_len, "kdapp_get_episode_state failed: %s", text);
        err = KD_ERR_UNSUPPORTED;
    }
    if (!err && json_is_true(json_object_get(sc, "deleted"))) {
        json_decref(sc);
        return KD_OK;
    }
    if (!err)
        err = kd_play_view_parse(g->type, sc, v, why, why_len);
    if (!err) {
        *exists = 1;
        const char *d = json_string_value(json_object_get(sc, "digest"));
        if (digest)
            snprintf(digest, 65, "%s", d ? d : "");
    }
    json_decref(sc);
    return err;
}
