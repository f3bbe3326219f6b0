/*
 * nim_type_test.c — Nim's type-table entry (kd_nim_type) in a kd_type_table
 * this test owns: registration and configuration from a fake environment,
 * schemas, JSON ⇄ bytes, views and their renderings, legal moves (each one
 * accepted by execute), random commands (legal ones accepted, illegal ones
 * refused by a rule), the nim-sum bot, perft through legal_moves, and a
 * real engine opened on the table's registry.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "engine/support.h"
#include "engine/wire.h"
#include "nim/nim.h"
#include "nim/nim_support.h"

static const kd_block_meta no_meta = {0};
static const kd_episode_type *const T = &kd_nim_type;

/* A fake environment: NULL-terminated name/value pairs. */
static const char *fake_env(void *ctx, const char *name)
{
    for (const char *const *kv = ctx; kv[0]; kv += 2)
        if (strcmp(kv[0], name) == 0)
            return kv[1];
    return NULL;
}

static kd_pubkey seat_key(int seat) { return et_key(seat == KD_NIM_FIRST ? "alice" : "bob").pub; }

/* Executes `cmd` signed by the key of `seat`. */
static kd_err execute(kd_nim_state *s, const uint8_t *cmd, size_t len, int seat, kd_nim_undo *undo, kd_reject *rej)
{
    kd_pubkey key = seat_key(seat);
    memset(rej, 0, sizeof *rej);
    return T->ops->execute(s, cmd, len, &key, &no_meta, undo, rej);
}

/* The index of `code` in the type's rule codes, or -1. */
static int rule_index(const char *code)
{
    for (int i = 0; T->rule_codes[i].code; i++)
        if (strcmp(T->rule_codes[i].code, code) == 0)
            return i;
    return -1;
}

/* -------------------------------------------------------------- table */

Test(nim_type, registered_and_configured_in_a_table_of_its_own)
{
    kd_type_table table;
    kd_type_table_init_empty(&table);
    ET_ASSERT_OK(kd_type_table_add(&table, T));
    ET_EXPECT_ERR(kd_type_table_add(&table, T), KD_ERR_INVALID_ARG);
    cr_expect_eq(kd_type_table_find(&table, "nim"), T);
    cr_expect_null(kd_type_table_find(&table, "tictactoe"));
    cr_expect_null(kd_type_table_config(&table, "nim"), "unconfigured: no config");

    char why[256] = "";
    const char *bad[] = {KD_NIM_ENV_HEAPS, "3,0,5", NULL, NULL};
    ET_EXPECT_ERR(kd_type_table_configure(&table, fake_env, (void *)bad, why, sizeof why), KD_ERR_INVALID_ARG);
    cr_expect(strstr(why, KD_NIM_ENV_HEAPS) && strstr(why, "3,0,5"), "why names the variable and value: %s", why);

    const char *good[] = {KD_NIM_ENV_HEAPS, "2, 6", NULL, NULL};
    ET_ASSERT_OK(kd_type_table_configure(&table, fake_env, (void *)good, why, sizeof why));
    const kd_nim_config *cfg = kd_type_table_config(&table, "nim");
    cr_assert_not_null(cfg);
    cr_expect_eq(cfg->heaps.count, 2);
    cr_expect_eq(cfg->heaps.sizes[0], 2);
    cr_expect_eq(cfg->heaps.sizes[1], 6);

    const char *unset[] = {NULL, NULL};
    ET_ASSERT_OK(kd_type_table_configure(&table, fake_env, (void *)unset, why, sizeof why));
    cfg = kd_type_table_config(&table, "nim");
    cr_assert_not_null(cfg);
    cr_expect_eq(cfg->heaps.count, 0, "unset: the built-in 3, 4, 5");

    cr_expect_str_eq(T->env_names[0], KD_NIM_ENV_HEAPS);
    cr_expect_null(T->env_names[1]);
}

Test(nim_type, identity_seats_and_schemas)
{
    cr_expect_str_eq(T->ops->type_name, "nim");
    cr_expect_str_eq(T->title, "Nim");
    cr_expect_eq(T->min_seats, 2);
    cr_expect_eq(T->max_seats, 2);
    cr_expect_eq(kd_episode_type_seat(T, "first"), KD_NIM_FIRST);
    cr_expect_eq(kd_episode_type_seat(T, "second"), KD_NIM_SECOND);
    cr_expect_eq(kd_episode_type_seat(T, "X"), KD_SEAT_NONE);
    cr_expect_str_eq(kd_episode_type_seat_name(T, 1), "second");
    const char *schemas[] = {T->params_schema, T->command_schema};
    for (size_t i = 0; i < 2; i++) {
        json_error_t jerr;
        json_t *s = json_loads(schemas[i], 0, &jerr);
        cr_assert_not_null(s, "schema %zu: %s", i, jerr.text);
        cr_expect_str_eq(json_string_value(json_object_get(s, "type")), "object");
        cr_expect(json_is_object(json_object_get(s, "properties")));
        json_decref(s);
    }
}

/* ---------------------------------------------------------- JSON ⇄ bytes */

static json_t *parse(const char *text)
{
    json_error_t jerr;
    json_t *j = json_loads(text, JSON_DECODE_ANY, &jerr);
    cr_assert_not_null(j, "%s: %s", text, jerr.text);
    return j;
}

Test(nim_type, params_from_json)
{
    char why[160] = "";
    kd_buf b;
    kd_buf_init(&b);
    ET_ASSERT_OK(T->params_from_json(NULL, &b, why, sizeof why));
    cr_expect_eq(b.len, 0, "no params: the engine default");
    json_t *empty = parse("{}");
    ET_ASSERT_OK(T->params_from_json(empty, &b, why, sizeof why));
    cr_expect_eq(b.len, 0);
    json_decref(empty);

    json_t *j = parse("{\"heaps\": [2, 15, 1]}");
    ET_ASSERT_OK(T->params_from_json(j, &b, why, sizeof why));
    json_decref(j);
    kd_nim_heaps h;
    ET_ASSERT_OK(kd_nim_params_decode(b.data, b.len, &h, NULL));
    cr_expect_eq(h.count, 3);
    cr_expect_eq(h.sizes[1], 15);

    const char *bad[] = {"{\"heaps\": []}",
                         "{\"heaps\": [0]}",
                         "{\"heaps\": [16]}",
                         "{\"heaps\": [1,1,1,1,1,1,1]}",
                         "{\"heaps\": [1], \"x\": 1}",
                         "{\"heap\": [1]}",
                         "{\"heaps\": \"3,4,5\"}",
                         "[3,4,5]",
                         "{\"heaps\": [1.5]}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        b.len = 0;
        why[0] = '\0';
        j = parse(bad[i]);
        ET_EXPECT_ERR(T->params_from_json(j, &b, why, sizeof why), KD_ERR_BAD_PARAMS);
        cr_expect_neq(why[0], '\0', "%s: says why", bad[i]);
        json_decref(j);
    }
    kd_buf_fini(&b);
}

Test(nim_type, command_json_round_trips)
{
    char why[160] = "";
    kd_buf b;
    kd_buf_init(&b);
    for (unsigned heap = 1; heap <= 255; heap += 7)
        for (unsigned take = 1; take <= 255; take += 11) {
            uint8_t cmd[KD_NIM_COMMAND_LEN] = {KD_NIM_VERSION, (uint8_t)heap, (uint8_t)take};
            json_t *j = T->command_to_json(cmd, sizeof cmd);
            cr_assert_not_null(j);
            cr_expect_eq(json_integer_value(json_object_get(j, "heap")), heap);
            b.len = 0;
            ET_ASSERT_OK(T->command_from_json(j, KD_SEAT_NONE, &b, why, sizeof why));
            cr_assert_eq(b.len, sizeof cmd);
            cr_expect_eq(memcmp(b.data, cmd, sizeof cmd), 0);
            json_decref(j);
        }
    const char *bad[] = {"{\"heap\": 0, \"take\": 1}",
                         "{\"heap\": 1, \"take\": 0}",
                         "{\"heap\": 256, \"take\": 1}",
                         "{\"heap\": 1}",

                         "{\"heap\": \"1\", \"take\": 1}",
                         "[1, 1]",
                         "null"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *j = parse(bad[i]);
        b.len = 0;
        why[0] = '\0';
        ET_EXPECT_ERR(T->command_from_json(j, KD_SEAT_NONE, &b, why, sizeof why), KD_ERR_BAD_COMMAND);
        cr_expect_neq(why[0], '\0');
        json_decref(j);
    }
    json_t *wrapped = parse("{\"episode\": 7, \"signer\": \"test:alice\", \"heap\": 2, \"take\": 3}");
    b.len = 0;
    ET_ASSERT_OK(T->command_from_json(wrapped, KD_SEAT_NONE, &b, why, sizeof why));
    const uint8_t h2t3[] = {KD_NIM_VERSION, 2, 3};
    cr_expect(b.len == sizeof h2t3 && memcmp(b.data, h2t3, b.len) == 0, "members other than heap and take are ignored");
    json_decref(wrapped);
    const uint8_t malformed[][4] = {{2, 1, 1}, {1, 0, 1}, {1, 1, 0}, {1, 1, 1, 1}};
    const size_t lens[] = {3, 3, 3, 4};
    for (size_t i = 0; i < 4; i++)
        cr_expect_null(T->command_to_json(malformed[i], lens[i]));
    kd_buf_fini(&b);
}

/* ---------------------------------------------------------------- views */

static void view_of(const kd_nim_state *s, int seat, kd_buf *out)
{
    out->len = 0;
    ET_ASSERT_OK(T->view_encode(s, seat, out));
}

Test(nim_type, view_and_renderings)
{
    kd_nim_state s;
    nt_new_game(&s, NULL);
    kd_nim_undo undo;
    kd_reject rej;
    uint8_t cmd[KD_NIM_COMMAND_LEN] = {KD_NIM_VERSION, 2, 3};
    ET_ASSERT_OK(execute(&s, cmd, sizeof cmd, KD_NIM_FIRST, &undo, &rej)); /* 3 1 5 */

    kd_game_status st = T->status(&s);
    cr_expect_eq(st.phase, KD_PHASE_IN_PROGRESS);
    cr_expect_eq(st.to_move, KD_NIM_SECOND);
    cr_expect_eq(st.winner, KD_SEAT_NONE);

    kd_buf pub, seat0;
    kd_buf_init(&pub);
    kd_buf_init(&seat0);
    view_of(&s, KD_SEAT_PUBLIC, &pub);
    view_of(&s, KD_NIM_FIRST, &seat0);
    cr_expect(pub.len == seat0.len && memcmp(pub.data, seat0.data, pub.len) == 0, "Nim has no secret");

    json_t *v = T->view_json(pub.data, pub.len);
    cr_assert_not_null(v);
    char *text = json_dumps(v, JSON_SORT_KEYS | JSON_COMPACT);
    cr_expect_str_eq(text, "{\"heaps\":[3,1,5],\"initial_heaps\":[3,4,5],\"move_count\":1}",
                     "Nim's own members; phase, winner and to_move are the enriched view's");
    free(text);
    json_decref(v);

    json_t *ctx = T->strategy_context(pub.data, pub.len);
    cr_assert_not_null(ctx);
    cr_expect_eq(json_integer_value(json_object_get(ctx, "nim_sum")), 3 ^ 1 ^ 5);
    cr_expect_str_eq(json_string_value(json_object_get(ctx, "status")), "in_progress");
    cr_expect_str_eq(json_string_value(json_object_get(ctx, "to_move")), "second");
    cr_expect(json_is_null(json_object_get(ctx, "winner")));
    json_t *moves = json_object_get(ctx, "legal_moves");
    cr_expect_eq(json_array_size(moves), 9);
    cr_expect_str_eq(json_string_value(json_object_get(json_array_get(moves, 0), "notation")), "h1-1");
    json_decref(ctx);

    kd_buf out;
    kd_buf_init(&out);
    ET_ASSERT_OK(T->render_text(pub.data, pub.len, 0, &out));
    ET_ASSERT_OK(kd_buf_append(&out, "", 1));
    cr_expect(strstr((char *)out.data, "heap 1: |||") != NULL, "%s", (char *)out.data);
    cr_expect(strstr((char *)out.data, "second to move") != NULL, "%s", (char *)out.data);

    out.len = 0;
    ET_ASSERT_OK(T->prompt(pub.data, pub.len, 7, KD_NIM_SECOND, &out));
    ET_ASSERT_OK(kd_buf_append(&out, "", 1));
    const char *p = (const char *)out.data;
    cr_expect(strstr(p, "episode 7") && strstr(p, "as second"), "%s", p);
    cr_expect(strstr(p, " h3-5") && !strstr(p, " h2-2"), "the legal moves: %s", p);
    cr_expect(strstr(p, "{\"heap\": H, \"take\": T}") != NULL, "the answer format: %s", p);
    out.len = 0;
    ET_ASSERT_OK(T->prompt(pub.data, pub.len, 7, KD_NIM_FIRST, &out));
    ET_ASSERT_OK(kd_buf_append(&out, "", 1));
    cr_expect(strstr((char *)out.data, "not your move") != NULL);
    ET_EXPECT_ERR(T->prompt(pub.data, pub.len, 7, 2, &out), KD_ERR_INVALID_ARG);

    /* malformed view bytes: every truncation, a bad version, left > start */
    for (size_t n = 0; n < pub.len; n++) {
        cr_expect_null(T->view_json(pub.data, n));
        cr_expect_null(T->strategy_context(pub.data, n));
        ET_EXPECT_ERR(T->render_text(pub.data, n, 0, &out), KD_ERR_DECODE);
        ET_EXPECT_ERR(T->prompt(pub.data, n, 1, 0, &out), KD_ERR_DECODE);
    }
    pub.data[KD_NIM_VIEW_FIXED_LEN + 3] = 9; /* heap 2: 9 left of 4 */
    cr_expect_null(T->view_json(pub.data, pub.len));
    pub.data[0] = 2;
    cr_expect_null(T->view_json(pub.data, pub.len));
    kd_buf_fini(&out);
    kd_buf_fini(&pub);
    kd_buf_fini(&seat0);
}

Test(nim_type, finished_game_status_and_view)
{
    kd_nim_state s;
    kd_nim_heaps one = {.count = 1, .sizes = {1}};
    nt_new_game(&s, &one);
    uint8_t cmd[KD_NIM_COMMAND_LEN] = {KD_NIM_VERSION, 1, 1};
    kd_nim_undo undo;
    kd_reject rej;
    ET_ASSERT_OK(execute(&s, cmd, sizeof cmd, KD_NIM_FIRST, &undo, &rej));
    kd_game_status st = T->status(&s);
    cr_expect_eq(st.phase, KD_PHASE_WON);
    cr_expect_eq(st.winner, KD_NIM_FIRST);
    cr_expect_eq(st.to_move, KD_SEAT_NONE);
    kd_buf view;
    kd_buf_init(&view);
    view_of(&s, KD_SEAT_PUBLIC, &view);
    json_t *v = T->strategy_context(view.data, view.len);
    cr_assert_not_null(v);
    cr_expect_str_eq(json_string_value(json_object_get(v, "status")), "won");
    cr_expect_str_eq(json_string_value(json_object_get(v, "winner")), "first");
    cr_expect(json_is_null(json_object_get(v, "to_move")));
    cr_expect_eq(json_array_size(json_object_get(v, "legal_moves")), 0);
    json_decref(v);
    v = T->view_json(view.data, view.len);
    cr_assert_not_null(v);
    cr_expect_eq(json_integer_value(json_object_get(v, "move_count")), 1);
    json_decref(v);
    kd_legal_moves moves;
    kd_legal_moves_init(&moves);
    ET_ASSERT_OK(T->legal_moves(&s, KD_NIM_SECOND, &moves));
    cr_expect_eq(moves.count, 0, "a finished game has no legal moves");
    kd_buf b;
    kd_buf_init(&b);
    uint64_t rng = 1;
    ET_EXPECT_ERR(T->random_command(&s, KD_NIM_SECOND, 1, &rng, &b), KD_ERR_NO_MOVE);
    ET_EXPECT_ERR(T->bot_command(&s, 1, 0, &b), KD_ERR_NO_MOVE);
    kd_legal_moves_fini(&moves);
    kd_buf_fini(&b);
    kd_buf_fini(&view);
}

/* ---------------------------------------------------------------- moves */

/* Random positions: legal_moves lists exactly the counters left, each
 * accepted by execute and its JSON round-tripping; the other seat has
 * none; random legal commands are accepted and illegal ones refused by a
 * rule of the type, by both seats. */
Test(nim_type, legal_moves_and_random_commands, .timeout = 60)
{
    uint64_t rng = et_seed("nim_type.legal_moves_and_random_commands", 33);
    kd_legal_moves moves;
    kd_legal_moves_init(&moves);
    kd_buf b;
    kd_buf_init(&b);
    char why[160];
    unsigned refused[8] = {0}; /* per rule code */
    for (int game = 0; game < 100; game++) {
        kd_nim_heaps h = {.count = (uint8_t)(1 + kd_type_rng_below(&rng, KD_NIM_MAX_HEAPS))};
        for (size_t i = 0; i < h.count; i++)
            h.sizes[i] = (uint8_t)(1 + kd_type_rng_below(&rng, KD_NIM_MAX_COUNTERS));
        kd_nim_state s;
        nt_new_game(&s, &h);
        while (T->status(&s).phase == KD_PHASE_IN_PROGRESS) {
            int seat = T->status(&s).to_move;
            kd_legal_moves_clear(&moves);
            ET_ASSERT_OK(T->legal_moves(&s, 1 - seat, &moves));
            cr_assert_eq(moves.count, 0, "the seat not to move has no legal move");
            ET_ASSERT_OK(T->legal_moves(&s, seat, &moves));
            unsigned left = 0;
            for (size_t i = 0; i < s.heap_count; i++)
                left += s.left[i];
            cr_assert_eq(moves.count, left);
            for (size_t i = 0; i < moves.count; i++) {
                const kd_legal_move *m = &moves.moves[i];
                kd_nim_state copy = s;
                kd_nim_undo undo;
                kd_reject rej;
                kd_err err = execute(&copy, m->command, m->command_len, seat, &undo, &rej);
                cr_assert_eq(err, KD_OK, "%s: %s (%s)", m->notation, kd_err_code(err), rej.detail);
                json_t *j = T->command_to_json(m->command, m->command_len);
                cr_assert_not_null(j);
                char notation[KD_NOTATION_MAX];
                snprintf(notation, sizeof notation, "h%lld-%lld",
                         (long long)json_integer_value(json_object_get(j, "heap")),
                         (long long)json_integer_value(json_object_get(j, "take")));
                cr_expect_str_eq(m->notation, notation);
                b.len = 0;
                ET_ASSERT_OK(T->command_from_json(j, seat, &b, why, sizeof why));
                cr_expect(b.len == m->command_len && memcmp(b.data, m->command, b.len) == 0);
                json_decref(j);
            }
            for (int k = 0; k < 4; k++) {
                int who = k < 3 ? seat : 1 - seat;
                b.len = 0;
                ET_ASSERT_OK(T->random_command(&s, who, 0, &rng, &b));
                kd_nim_state copy = s;
                kd_nim_undo undo;
                kd_reject rej;
                ET_ASSERT_ERR(execute(&copy, b.data, b.len, who, &undo, &rej), KD_ERR_RULE);
                int code = rule_index(rej.code);
                cr_assert(code >= 0 && code < 8, "code %s", rej.code);
                cr_assert_eq(memcmp(&copy, &s, sizeof s), 0);
                refused[code]++;
            }
            b.len = 0;
            ET_ASSERT_OK(T->random_command(&s, seat, 1, &rng, &b));
            kd_nim_undo undo;
            kd_reject rej;
            kd_err err = execute(&s, b.data, b.len, seat, &undo, &rej);
            cr_assert_eq(err, KD_OK, "random legal command: %s (%s)", kd_err_code(err), rej.detail);
        }
    }
    const char *expected[] = {"not_your_turn", "no_such_heap", "take_too_many"};
    for (size_t i = 0; i < 3; i++)
        cr_expect_gt(refused[rule_index(expected[i])], 0, "random illegal commands met %s", expected[i]);
    kd_legal_moves_fini(&moves);
    kd_buf_fini(&b);
}

/* The bot keeps the nim-sum at zero for the other side, so from [3,4,5]
 * (nim-sum 2) it wins as first against random play, every time. */
Test(nim_type, the_bot_plays_perfectly)
{
    uint64_t rng = et_seed("nim_type.the_bot_plays_perfectly", 9);
    kd_buf b;
    kd_buf_init(&b);
    for (int game = 0; game < 50; game++) {
        kd_nim_state s;
        nt_new_game(&s, NULL);
        while (T->status(&s).phase == KD_PHASE_IN_PROGRESS) {
            int seat = T->status(&s).to_move;
            b.len = 0;
            if (seat == KD_NIM_FIRST) {
                ET_ASSERT_OK(T->bot_command(&s, 0, kd_type_rng_next(&rng), &b));
            } else {
                cr_assert_eq(kd_nim_sum(&s), 0, "the bot left a zero nim-sum");
                ET_ASSERT_OK(T->random_command(&s, seat, 1, &rng, &b));
            }
            kd_nim_undo undo;
            kd_reject rej;
            kd_err err = execute(&s, b.data, b.len, seat, &undo, &rej);
            cr_assert_eq(err, KD_OK, "%s (%s)", kd_err_code(err), rej.detail);
        }
        cr_expect_eq(T->status(&s).winner, KD_NIM_FIRST);
    }
    kd_buf_fini(&b);
}

/* perft through the type's own legal_moves, execute and rollback, with the
 * state byte-identical after every rollback. */
static uint64_t perft(kd_nim_state *s, unsigned depth, kd_buf *scratch)
{
    if (depth == 0)
        return 1;
    int seat = T->status(s).to_move;
    if (seat == KD_SEAT_NONE)
        return 0;
    kd_legal_moves moves;
    kd_legal_moves_init(&moves);
    ET_ASSERT_OK(T->legal_moves(s, seat, &moves));
    size_t mark = scratch->len;
    ET_ASSERT_OK(T->ops->encode_state(s, scratch));
    size_t len = scratch->len - mark;
    kd_pubkey key = seat_key(seat);
    uint64_t total = 0;
    for (size_t i = 0; i < moves.count; i++) {
        kd_nim_undo undo;
        ET_ASSERT_OK(
            T->ops->execute(s, moves.moves[i].command, moves.moves[i].command_len, &key, &no_meta, &undo, NULL));
        total += perft(s, depth - 1, scratch);
        ET_ASSERT_OK(T->ops->rollback(s, &undo));
        size_t at = scratch->len;
        ET_ASSERT_OK(T->ops->encode_state(s, scratch));
        cr_assert(scratch->len - at == len && memcmp(scratch->data + at, scratch->data + mark, len) == 0,
                  "rollback of %s", moves.moves[i].notation);
        scratch->len = at;
    }
    scratch->len = mark;
    kd_legal_moves_fini(&moves);
    return total;
}

Test(nim_type, perft_through_legal_moves, .timeout = 60)
{
    kd_nim_state s;
    nt_new_game(&s, NULL);
    kd_buf scratch;
    kd_buf_init(&scratch);
    for (unsigned depth = 0; depth <= 4; depth++) {
        uint8_t h[KD_NIM_MAX_HEAPS] = {3, 4, 5};
        cr_expect_eq(perft(&s, depth, &scratch), nt_tuple_count(h, 3, depth), "depth %u", depth);
    }
    kd_buf_fini(&scratch);
}

/* ------------------------------------------------------ through an engine */

/* An engine on the table's registry: the default comes from the fake
 * environment, creation params and commands from JSON, and the stored
 * state renders through the view. */
Test(nim_type, an_engine_on_the_tables_registry)
{
    kd_type_table table;
    kd_type_table_init_empty(&table);
    ET_ASSERT_OK(kd_type_table_add(&table, T));
    char why[256] = "";
    const char *env[] = {KD_NIM_ENV_HEAPS, "2,2", NULL, NULL};
    ET_ASSERT_OK(kd_type_table_configure(&table, fake_env, (void *)env, why, sizeof why));
    kd_registry reg;
    kd_registry_init(&reg);
    ET_ASSERT_OK(kd_type_table_registry(&table, &reg));

    char dir[512];
    et_tmpdir(dir, sizeof dir);
    kd_engine_options opts = {.data_dir = dir,
                              .registry = &reg,
                              .durability = KD_DURABILITY_RELAXED,
                              .map_size = (size_t)16 << 20,
                              .chain = ET_CHAIN};
    kd_engine *engine = NULL;
    kd_err err = kd_engine_open(&opts, &engine, why, sizeof why);
    cr_assert_eq(err, KD_OK, "%s (%s)", kd_err_code(err), why);

    et_txs txs;
    et_txs_init(&txs);
    kd_key keys[2] = {et_key("alice"), et_key("bob")}; /* seat_key(KD_NIM_FIRST), seat_key(KD_NIM_SECOND) */
    kd_buf params;
    kd_buf_init(&params);
    ET_ASSERT_OK(T->params_from_json(NULL, &params, why, sizeof why));
    et_add_create_signed(&txs, 1, T->ops->type_name, keys, 2, params.data, params.len);
    const char *moves[] = {"{\"heap\": 1, \"take\": 3}", "{\"heap\": 3, \"take\": 1}", "{\"heap\": 1, \"take\": 2}"};
    const char *signer[] = {"alice", "alice", "alice"};
    for (size_t i = 0; i < 3; i++) {
        json_t *j = parse(moves[i]);
        kd_buf cmd, payload;
        kd_buf_init(&cmd);
        kd_buf_init(&payload);
        ET_ASSERT_OK(T->command_from_json(j, KD_NIM_FIRST, &cmd, why, sizeof why));
        kd_key key = et_key(signer[i]);
        ET_ASSERT_OK(kd_wire_signed_command(1, cmd.data, cmd.len, &key, 0, &payload));
        et_add_raw(&txs, payload.data, payload.len);
        kd_buf_fini(&cmd);
        kd_buf_fini(&payload);
        json_decref(j);
    }
    kd_msg_result res;
    et_accept(engine, "b1", &txs, &res);
    cr_assert_eq(res.tx_count, 4);
    cr_expect(res.txs[0].applied, "%s", res.txs[0].detail);
    ET_EXPECT_ERR(res.txs[1].err, KD_ERR_RULE); /* take 3 of the default heap of 2 */
    ET_EXPECT_ERR(res.txs[2].err, KD_ERR_RULE); /* no heap 3 */
    cr_expect(res.txs[3].applied, "%s", res.txs[3].detail);
    kd_msg_result_fini(&res);

    kd_episode_snapshot snap;
    ET_ASSERT_OK(kd_engine_episode_read(engine, 1, &snap));
    kd_buf view;
    kd_buf_init(&view);
    ET_ASSERT_OK(T->view_encode(snap.state, KD_SEAT_PUBLIC, &view));
    json_t *v = T->view_json(view.data, view.len);
    char *text = json_dumps(json_object_get(v, "heaps"), JSON_COMPACT);
    cr_expect_str_eq(text, "[0,2]", "the configured default [2,2], then h1-2");
    free(text);
    json_decref(v);
    kd_buf_fini(&view);
    kd_episode_snapshot_fini(&snap);
    kd_engine_close(engine);
    et_rmtree(dir);
    kd_buf_fini(&params);
    et_txs_fini(&txs);
}
