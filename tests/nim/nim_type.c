/*
 * nim_type.c — Nim's entry in the type table (episodes/episode_type.h):
 * schemas and JSON for params and commands, the view (this file's own
 * bytes, see nim.h) and its renderings, legal moves, random commands for
 * the simulator, a perfect bot (the nim-sum) and the engine default read
 * from KDAPP_NIM_HEAPS. Pure functions; the environment is read only
 * through config_from_env's getter.
 */
#include <stdio.h>
#include <string.h>

#include "nim/nim.h"

static const char *const seat_names[2] = {"first", "second"};
static const char *const env_names[] = {KD_NIM_ENV_HEAPS, NULL};

#define RULES_TEXT                                                                                 \
    "Nim (normal play): two players take turns; a move takes one or more counters from one heap; " \
    "whoever takes the last counter wins."

/* ------------------------------------------------------------- view bytes */

/* The decoded view: everything public about a game (no keys). */
typedef struct {
    uint8_t heap_count, status, turn;
    uint32_t move_count;
    uint8_t start[KD_NIM_MAX_HEAPS], left[KD_NIM_MAX_HEAPS];
} nim_view;

static kd_err view_encode(const void *state_ptr, int seat, kd_buf *out)
{
    (void)seat; /* Nim has no secret: every seat sees the public view */
    const kd_nim_state *s = state_ptr;
    uint8_t bytes[KD_NIM_VIEW_FIXED_LEN + 2 * KD_NIM_MAX_HEAPS];
    size_t n = 0;
    bytes[n++] = KD_NIM_VERSION;
    bytes[n++] = s->heap_count;
    bytes[n++] = s->status;
    bytes[n++] = s->turn;
    kd_put_u32be(&bytes[n], s->move_count);
    n += 4;
    for (size_t i = 0; i < s->heap_count && i < KD_NIM_MAX_HEAPS; i++) {
        bytes[n++] = s->start[i];
        bytes[n++] = s->left[i];
    }
    return kd_buf_append(out, bytes, n);
}

/* Decodes and validates view bytes: 0, or -1 when malformed. */
static int view_decode(const uint8_t *data, size_t len, nim_view *v)
{
    memset(v, 0, sizeof *v);
    if (!data || len < KD_NIM_VIEW_FIXED_LEN || data[0] != KD_NIM_VERSION)
        return -1;
    v->heap_count = data[1];
    v->status = data[2];
    v->turn = data[3];
    v->move_count = kd_get_u32be(&data[4]);
    if (v->heap_count < 1 || v->heap_count > KD_NIM_MAX_HEAPS || len != KD_NIM_VIEW_FIXED_LEN + 2u * v->heap_count ||
        v->status > KD_NIM_SECOND_WON || v->turn > 1)
        return -1;
    for (size_t i = 0; i < v->heap_count; i++) {
        v->start[i] = data[KD_NIM_VIEW_FIXED_LEN + 2 * i];
        v->left[i] = data[KD_NIM_VIEW_FIXED_LEN + 2 * i + 1];
        if (v->start[i] < 1 || v->start[i] > KD_NIM_MAX_COUNTERS || v->left[i] > v->start[i])
            return -1;
    }
    return 0;
}

static unsigned view_nim_sum(const nim_view *v)
{
    unsigned x = 0;
    for (size_t i = 0; i < v->heap_count; i++)
        x ^= v->left[i];
    return x;
}

static kd_game_status status_of(uint8_t status, uint8_t turn)
{
    kd_game_status st = {KD_PHASE_IN_PROGRESS, KD_SEAT_NONE, turn};
    if (status != KD_NIM_IN_PROGRESS) {
        st.phase = KD_PHASE_WON;
        st.winner = status == KD_NIM_FIRST_WON ? KD_NIM_FIRST : KD_NIM_SECOND;
        st.to_move = KD_SEAT_NONE;
    }
    return st;
}

static kd_game_status status(const void *state_ptr)
{
    const kd_nim_state *s = state_ptr;
    return status_of(s->status, s->turn);
}

/* ------------------------------------------------------------ JSON helpers */

static json_t *heaps_json(const uint8_t *v, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++)
        if (json_array_append_new(a, json_integer(v[i])) != 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

/* Nim's own members only: the enriched view (handlers/) carries the
 * generic phase, winner, to_move and seats beside them. */
static json_t *view_json(const uint8_t *view, size_t len)
{
    nim_view v;
    if (view_decode(view, len, &v) != 0)
        return NULL;
    json_t *left = heaps_json(v.left, v.heap_count), *start = heaps_json(v.start, v.heap_count);
    if (!left || !start) {
        json_decref(left);
        json_decref(start);
        return NULL;
    }
    return json_pack("{s:o, s:o, s:I}", "heaps", left, "initial_heaps", start, "move_count", (json_int_t)v.move_count);
}

/* The legal moves of a view as [{heap, take, notation}] (none when over). */
static json_t *moves_json(const nim_view *v)
{
    json_t *a = json_array();
    for (size_t i = 0; a && v->status == KD_NIM_IN_PROGRESS && i < v->heap_count; i++)
        for (unsigned t = 1; t <= v->left[i]; t++) {
            char notation[KD_NOTATION_MAX];
            snprintf(notation, sizeof notation, "h%zu-%u", i + 1, t);
            if (json_array_append_new(a, json_pack("{s:I, s:I, s:s}", "heap", (json_int_t)(i + 1), "take",
                                                   (json_int_t)t, "notation", notation)) != 0) {
                json_decref(a);
                return NULL;
            }
        }
    return a;
}

static json_t *strategy_context(const uint8_t *view, size_t len)
{
    nim_view v;
    if (view_decode(view, len, &v) != 0)
        return NULL;
    kd_game_status st = status_of(v.status, v.turn);
    json_t *left = heaps_json(v.left, v.heap_count), *moves = moves_json(&v);
    if (!left || !moves) {
        json_decref(left);
        json_decref(moves);
        return NULL;
    }
    return json_pack(
        "{s:s, s:s, s:o, s:s, s:s?, s:s?, s:I, s:o}", "game", KD_NIM_TYPE_NAME, "rules", RULES_TEXT, "heaps", left,
        "status", kd_game_phase_name(st.phase), "to_move", st.to_move >= 0 ? seat_names[st.to_move] : NULL, "winner",
        st.winner >= 0 ? seat_names[st.winner] : NULL, "nim_sum", (json_int_t)view_nim_sum(&v), "legal_moves", moves);
}

/* "heap 1: ||| (3 of 3)" lines and the status line. */
static kd_err put_position(const nim_view *v, kd_buf *out)
{
    kd_err err = KD_OK;
    for (size_t i = 0; !err && i < v->heap_count; i++) {
        char bars[KD_NIM_MAX_COUNTERS + 1];
        memset(bars, '|', v->left[i]);
        bars[v->left[i]] = '\0';
        err = kd_buf_appendf(out, "heap %zu: %-15s (%u of %u)\n", i + 1, bars, (unsigned)v->left[i],
                             (unsigned)v->start[i]);
    }
    if (err)
        return err;
    if (v->status == KD_NIM_IN_PROGRESS)
        return kd_buf_appendf(out, "%s to move (move %u)\n", seat_names[v->turn], (unsigned)v->move_count + 1);
    return kd_buf_appendf(out, "%s won: it took the last counter\n", seat_names[v->status == KD_NIM_FIRST_WON ? 0 : 1]);
}

static kd_err render_text(const uint8_t *view, size_t len, unsigned flags, kd_buf *out)
{
    (void)flags;
    nim_view v;
    if (view_decode(view, len, &v) != 0)
        return KD_ERR_DECODE;
    return put_position(&v, out);
}

static kd_err prompt(const uint8_t *view, size_t len, uint32_t episode_id, int seat, kd_buf *out)
{
    nim_view v;
    if (view_decode(view, len, &v) != 0)
        return KD_ERR_DECODE;
    if (seat != KD_NIM_FIRST && seat != KD_NIM_SECOND)
        return KD_ERR_INVALID_ARG;
    kd_err err = kd_buf_appendf(out, "You play Nim episode %u as %s. %s\n\nPosition:\n", (unsigned)episode_id,
                                seat_names[seat], RULES_TEXT);
    if (!err)
        err = put_position(&v, out);
    if (!err && v.status == KD_NIM_IN_PROGRESS && v.turn == seat) {
        err = kd_buf_appendf(out, "\nLegal moves (heap-take):");
        for (size_t i = 0; !err && i < v.heap_count; i++)
            for (unsigned t = 1; !err && t <= v.left[i]; t++)
                err = kd_buf_appendf(out, " h%zu-%u", i + 1, t);
        if (!err)
            err = kd_buf_appendf(out, "\n\nAnswer with the command JSON only, heaps numbered from 1: "
                                      "{\"heap\": H, \"take\": T}\n");
    } else if (!err) {
        err = kd_buf_appendf(out, "\nIt is not your move.\n");
    }
    return err;
}

/* ----------------------------------------------------------- JSON ⇄ bytes */

static const char params_schema[] =
    "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{\"heaps\":{\"type\":\"array\","
    "\"description\":\"counters per heap (default from KDAPP_NIM_HEAPS, else [3,4,5])\",\"minItems\":1,"
    "\"maxItems\":6,\"items\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":15}}}}";

static const char command_schema[] =
    "{\"type\":\"object\",\"required\":[\"heap\",\"take\"],\"properties\":{"
    "\"heap\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":255,\"description\":\"the heap, numbered from 1\"},"
    "\"take\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":255,\"description\":\"counters to take, 1 to the "
    "heap's size\"}}}";

static kd_err params_from_json(const json_t *params, kd_buf *out, char *why, size_t why_len)
{
    if (!params || (json_is_object(params) && json_object_size(params) == 0))
        return KD_OK; /* the engine default: zero bytes */
    const json_t *heaps = json_is_object(params) ? json_object_get(params, "heaps") : NULL;
    if (!heaps || json_object_size(params) != 1 || !json_is_array(heaps) || json_array_size(heaps) < 1 ||
        json_array_size(heaps) > KD_NIM_MAX_HEAPS) {
        kd_reject_write(why, why_len, "nim params are {\"heaps\": [1 to %d integers]}", KD_NIM_MAX_HEAPS);
        return KD_ERR_BAD_PARAMS;
    }
    kd_nim_heaps h;
    memset(&h, 0, sizeof h);
    for (size_t i = 0; i < json_array_size(heaps); i++) {
        const json_t *n = json_array_get(heaps, i);
        if (!json_is_integer(n) || json_integer_value(n) < 1 || json_integer_value(n) > KD_NIM_MAX_COUNTERS) {
            kd_reject_write(why, why_len, "heap %zu must be an integer from 1 to %d", i + 1, KD_NIM_MAX_COUNTERS);
            return KD_ERR_BAD_PARAMS;
        }
        h.sizes[h.count++] = (uint8_t)json_integer_value(n);
    }
    return kd_nim_params_encode(&h, out);
}

/* The integer field `name` of `obj` in 1..255: 0, or -1. */
static int byte_field(const json_t *obj, const char *name, uint8_t *out)
{
    const json_t *v = json_object_get(obj, name);
    if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > 255)
        return -1;
    *out = (uint8_t)json_integer_value(v);
    return 0;
}

/* Reads `heap` and `take`; other members are left to whoever wraps the
 * command (a block script's episode and signer), as tic-tac-toe does. */
static kd_err command_from_json(const json_t *command, int seat, kd_buf *out, char *why, size_t why_len)
{
    (void)seat; /* the signer says who moves */
    uint8_t heap = 0, take = 0;
    if (!json_is_object(command) || byte_field(command, "heap", &heap) != 0 ||
        byte_field(command, "take", &take) != 0) {
        kd_reject_write(why, why_len, "a nim command is {\"heap\": 1..255, \"take\": 1..255} (heaps numbered from 1)");
        return KD_ERR_BAD_COMMAND;
    }
    return kd_nim_command_encode(heap, take, out);
}

static json_t *command_to_json(const uint8_t *command, size_t len)
{
    kd_nim_move m;
    if (kd_nim_command_decode(command, len, &m, NULL) != KD_OK)
        return NULL;
    return json_pack("{s:I, s:I}", "heap", (json_int_t)m.heap, "take", (json_int_t)m.take);
}

/* ------------------------------------------------------------------ moves */

static kd_err push_move(kd_legal_moves *out, unsigned heap, unsigned take)
{
    uint8_t cmd[KD_NIM_COMMAND_LEN] = {KD_NIM_VERSION, (uint8_t)heap, (uint8_t)take};
    char notation[KD_NOTATION_MAX];
    snprintf(notation, sizeof notation, "h%u-%u", heap, take);
    return kd_legal_moves_push(out, cmd, sizeof cmd, notation);
}

static kd_err legal_moves(const void *state_ptr, int seat, kd_legal_moves *out)
{
    const kd_nim_state *s = state_ptr;
    kd_err err = KD_OK;
    if (s->status != KD_NIM_IN_PROGRESS || seat != s->turn)
        return KD_OK;
    for (unsigned i = 0; !err && i < s->heap_count; i++)
        for (unsigned t = 1; !err && t <= s->left[i]; t++)
            err = push_move(out, i + 1, t);
    return err;
}

static unsigned counters_left(const kd_nim_state *s)
{
    unsigned n = 0;
    for (size_t i = 0; i < s->heap_count; i++)
        n += s->left[i];
    return n;
}

/*
 * Legal: uniform over the legal moves (their number is the counters left:
 * heap i offers left[i] takes). Illegal, refused by a rule: half the time
 * a heap beyond the game (no_such_heap), else more than a heap holds
 * (take_too_many). A seat not to move is refused by not_your_turn whatever
 * it sends, and a finished game by game_over.
 */
static kd_err random_command(const void *state_ptr, int seat, int legal, uint64_t *rng, kd_buf *out)
{
    const kd_nim_state *s = state_ptr;
    if (legal) {
        unsigned total = counters_left(s);
        if (s->status != KD_NIM_IN_PROGRESS || seat != s->turn || total == 0)
            return KD_ERR_NO_MOVE;
        unsigned pick = kd_type_rng_below(rng, total);
        for (unsigned i = 0; i < s->heap_count; i++) {
            if (pick < s->left[i])
                return kd_nim_command_encode((uint8_t)(i + 1), (uint8_t)(pick + 1), out);
            pick -= s->left[i];
        }
        return KD_ERR_INTERNAL; /* unreachable: pick < total */
    }
    if (kd_type_rng_below(rng, 2) == 0) {
        unsigned heap = s->heap_count + 1 + kd_type_rng_below(rng, 255u - s->heap_count);
        return kd_nim_command_encode((uint8_t)heap, (uint8_t)(1 + kd_type_rng_below(rng, 255)), out);
    }
    unsigned heap = 1 + kd_type_rng_below(rng, s->heap_count);
    unsigned left = s->left[heap - 1];
    return kd_nim_command_encode((uint8_t)heap, (uint8_t)(left + 1 + kd_type_rng_below(rng, 255u - left)), out);
}

/*
 * Perfect play: when the nim-sum x is not zero, a heap h with h ^ x < h
 * exists, and leaving h ^ x in it makes the nim-sum zero, which the other
 * side cannot keep. When x is zero every move loses against perfect play:
 * take one counter from a non-empty heap chosen by `tiebreak`.
 */
static kd_err bot_command(const void *state_ptr, unsigned depth, uint64_t tiebreak, kd_buf *out)
{
    (void)depth; /* Nim is solved: no search */
    const kd_nim_state *s = state_ptr;
    if (s->status != KD_NIM_IN_PROGRESS)
        return KD_ERR_NO_MOVE;
    unsigned x = kd_nim_sum(s);
    unsigned candidates[KD_NIM_MAX_HEAPS], n = 0;
    for (unsigned i = 0; i < s->heap_count; i++)
        if (x ? (s->left[i] ^ x) < s->left[i] : s->left[i] > 0)
            candidates[n++] = i;
    if (n == 0)
        return KD_ERR_INTERNAL; /* unreachable: the game is in progress */
    unsigned i = candidates[tiebreak % n];
    unsigned take = x ? s->left[i] - (s->left[i] ^ x) : 1;
    return kd_nim_command_encode((uint8_t)(i + 1), (uint8_t)take, out);
}

/* ---------------------------------------------------------- configuration */

static kd_err config_from_env(kd_getenv_fn get, void *get_ctx, void *config, char *why, size_t why_len)
{
    kd_nim_config *cfg = config;
    const char *value = get(get_ctx, KD_NIM_ENV_HEAPS);
    memset(cfg, 0, sizeof *cfg);
    if (!value || !*value)
        return KD_OK; /* the built-in 3, 4, 5 */
    if (kd_nim_heaps_parse(value, &cfg->heaps) != 0) {
        kd_reject_write(why, why_len,
                        "%s=\"%.32s\" is not valid: use 1 to %d comma-separated heap sizes from 1 to %d, "
                        "e.g. 3,4,5",
                        KD_NIM_ENV_HEAPS, value, KD_NIM_MAX_HEAPS, KD_NIM_MAX_COUNTERS);
        memset(cfg, 0, sizeof *cfg);
        return KD_ERR_INVALID_ARG;
    }
    return KD_OK;
}

const kd_episode_type kd_nim_type = {
    .ops = &kd_nim_ops,
    .title = "Nim",
    .summary = RULES_TEXT " Heaps are set at creation: 1 to 6 heaps of 1 to 15 counters (default 3, 4, 5).",
    .min_seats = 2,
    .max_seats = 2,
    .seat_names = seat_names,
    .rule_codes = kd_nim_rule_codes,
    .env_names = env_names,
    .config_from_env = config_from_env,
    .config_size = sizeof(kd_nim_config),
    .params_schema = params_schema,
    .command_schema = command_schema,
    .params_from_json = params_from_json,
    .command_from_json = command_from_json,
    .command_to_json = command_to_json,
    .status = status,
    .view_encode = view_encode,
    .view_json = view_json,
    .strategy_context = strategy_context,
    .render_text = render_text,
    .prompt = prompt,
    .legal_moves = legal_moves,
    .random_command = random_command,
    .bot_command = bot_command,
};
