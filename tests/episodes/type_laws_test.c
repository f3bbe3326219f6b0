/*
 * type_laws_test.c — what every type in the table owes the engine, checked
 * the same way for each through its kd_episode_type and kd_episode_ops
 * alone (one test per entry of kd_type_table_init's table; nothing here
 * names a game). Random legal games from the start position
 * (kd_perft_start: fresh seat keys, secrets committed as a holder would),
 * and at every position they pass through:
 *
 *   - every legal move of the seats to move (up to MOVES_TRIED of them)
 *     executes, and its rollback, from the undo record taken through its
 *     bytes (encode_undo → decode_undo, as from disk), gives back the state
 *     byte for byte: the struct (ops->state_size bytes) and its encoding;
 *     The rollback is also made on the state decoded from its bytes after
 *     the move (an engine restarted between the move and the reorg);
 *   - every encoding round-trips: the state (encode → decode → encode, and
 *     the decoded struct is the state byte for byte), the
 *     undo record (the same) and the command (command_to_json →
 *     command_from_json gives the same bytes);
 *   - random_command's legal command executes (and rolls back); its illegal
 *     one is refused by one of the type's rule codes, the state untouched,
 *     or, when the clock has made it legal (a claim past its deadline:
 *     the DAA score grows 20 a ply), rolls back like any move;
 *   - when no seat has a legal move but one owes a duty from its secret
 *     (the house's reveal, a deck's key), the duty is paid and checked like
 *     a move;
 *   - every seat's result (kd_episode_seat_result, what ratings count)
 *     agrees with the status: none in progress, the winner's a win and
 *     every other seat's a loss of some kind, a draw for all in a draw.
 *
 * And of a type's table alone: a type whose seats serve as a house states
 * the terms its house consents to (house_terms; none without a house
 * seat), each a member of its params schema, a whole-number field of its
 * params message, with default limits min <= max.
 *
 * Game-specific rules stay in each game's own tests.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdlib.h>
#include <string.h>

#include "episodes/episode_type.h"
#include "tools/sim/perft.h"

#define GAMES 6        /* per type */
#define PLIES_MAX 400  /* a game longer than this is cut there */
#define MOVES_TRIED 40 /* legal moves applied and rolled back per position */

typedef struct {
    const kd_episode_type *type;
    const char *name;
    kd_perft_signers signers;
    void *state;
    unsigned char *before, *after, *undo, *undo_back;
    size_t refused; /* illegal random commands refused by a rule */
    kd_buf enc_before, enc, enc_again, undo_bytes, undo_again, cmd_again;
    uint64_t rng;
    unsigned game, ply;
    size_t checked;
} walk;

static void walk_init(walk *w, const kd_episode_type *type)
{
    memset(w, 0, sizeof *w);
    w->type = type;
    w->name = type->ops->type_name;
    const kd_episode_ops *ops = type->ops;
    w->state = calloc(1, ops->state_size);
    w->before = calloc(1, ops->state_size);
    w->after = calloc(1, ops->state_size);
    w->undo = calloc(1, ops->undo_size ? ops->undo_size : 1);
    w->undo_back = calloc(1, ops->undo_size ? ops->undo_size : 1);
    cr_assert(w->state && w->before && w->after && w->undo && w->undo_back);
    kd_buf *bufs[] = {&w->enc_before, &w->enc, &w->enc_again, &w->undo_bytes, &w->undo_again, &w->cmd_again};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        kd_buf_init(bufs[i]);
    w->rng = 0x6b646170706c6177u ^ (uint64_t)strlen(w->name);
}

static void walk_fini(walk *w)
{
    kd_perft_signers_wipe(&w->signers);
    free(w->state);
    free(w->before);
    free(w->after);
    free(w->undo);
    free(w->undo_back);
    kd_buf *bufs[] = {&w->enc_before, &w->enc, &w->enc_again, &w->undo_bytes, &w->undo_again, &w->cmd_again};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        kd_buf_fini(bufs[i]);
}

static int type_is_rule_code(const kd_episode_type *type, const char *code)
{
    for (const kd_rule_code *c = type->rule_codes; c->code; c++)
        if (!strcmp(c->code, code))
            return 1;
    return 0;
}

static int same(const kd_buf *a, const kd_buf *b) { return a->len == b->len && !memcmp(a->data, b->data, a->len); }

/* The state's encoding round-trips: encode → decode → encode; leaves the
 * bytes in w->enc. */
static void state_round_trip(walk *w)
{
    const kd_episode_ops *ops = w->type->ops;
    w->enc.len = w->enc_again.len = 0;
    cr_assert_eq(ops->encode_state(w->state, &w->enc), KD_OK, "%s game %u ply %u: encode_state", w->name, w->game,
                 w->ply);
    memset(w->after, 0, ops->state_size);
    cr_assert_eq(ops->decode_state(w->enc.data, w->enc.len, w->after), KD_OK,
                 "%s game %u ply %u: decode_state refused its own encoding", w->name, w->game, w->ply);
    cr_assert_eq(ops->encode_state(w->after, &w->enc_again), KD_OK);
    cr_assert(same(&w->enc, &w->enc_again), "%s game %u ply %u: the state's encoding does not round-trip", w->name,
              w->game, w->ply);
    cr_assert_eq(memcmp(w->after, w->state, ops->state_size), 0,
                 "%s game %u ply %u: the state decoded from its encoding is not the state, byte for byte", w->name,
                 w->game, w->ply);
}

static const kd_pubkey *signer_of(walk *w, int seat)
{
    cr_assert(seat >= 0 && seat < KD_MAX_PARTICIPANTS && w->signers.seat_key[seat] >= 0, "%s: no key for seat %d",
              w->name, seat);
    return &w->signers.candidates[w->signers.seat_key[seat]];
}

static kd_block_meta meta_at(const walk *w)
{
    static const uint8_t zero[KD_HASH_LEN];
    return (kd_block_meta){.block_hash = zero,
                           .daa = 2 + 20 * (uint64_t)w->ply,
                           .time_ms = 100 * (2 + (uint64_t)w->ply),
                           .tx_id = zero,
                           .episode_id = 1};
}

/* Executes `command` for `seat` into w->undo: KD_OK, or (unless `must`,
 * when the rules must accept it) the refusal with its code in `rej`. */
static kd_err try_execute(walk *w, int seat, const uint8_t *command, size_t len, const char *notation, int must,
                          kd_reject *rej)
{
    memset(rej, 0, sizeof *rej);
    kd_block_meta meta = meta_at(w);
    memset(w->undo, 0, w->type->ops->undo_size);
    kd_err err = w->type->ops->execute(w->state, command, len, signer_of(w, seat), &meta, w->undo, rej);
    if (must)
        cr_assert_eq(err, KD_OK, "%s game %u ply %u: seat %d's %s refused: %s %s", w->name, w->game, w->ply, seat,
                     notation, rej->code, rej->detail);
    return err;
}

static void execute(walk *w, int seat, const uint8_t *command, size_t len, const char *notation)
{
    kd_reject rej;
    (void)try_execute(w, seat, command, len, notation, 1, &rej);
}

/* Applies `command` (the rules must accept it unless `must` is 0: then a
 * refusal is checked to be by a rule, the state untouched), checks the
 * command and undo encodings, rolls back from the decoded undo, on the
 * state and on its copy decoded from its bytes, and checks both are back
 * byte for byte. */
static void apply_and_roll_back(walk *w, int seat, const uint8_t *command, size_t len, const char *notation, int must)
{
    const kd_episode_type *type = w->type;
    const kd_episode_ops *ops = type->ops;
    json_t *json = type->command_to_json(command, len);
    cr_assert(json, "%s: command_to_json of %s", w->name, notation);
    char why[256] = "";
    w->cmd_again.len = 0;
    kd_err err = type->command_from_json(json, seat, &w->cmd_again, why, sizeof why);
    json_decref(json);
    cr_assert_eq(err, KD_OK, "%s: command_from_json(command_to_json(%s)): %s", w->name, notation, why);
    cr_assert(w->cmd_again.len == len && !memcmp(w->cmd_again.data, command, len),
              "%s game %u ply %u: the command %s does not round-trip through its JSON", w->name, w->game, w->ply,
              notation);

    memcpy(w->before, w->state, ops->state_size);
    kd_reject rej;
    if (try_execute(w, seat, command, len, notation, must, &rej) != KD_OK) {
        cr_assert(rej.code[0] && type_is_rule_code(type, rej.code),
                  "%s game %u ply %u: seat %d's illegal %s is not refused by one of the type's rules (code '%s': %s)",
                  w->name, w->game, w->ply, seat, notation, rej.code, rej.detail);
        cr_assert_eq(memcmp(w->before, w->state, ops->state_size), 0,
                     "%s game %u ply %u: the refused %s changed the state", w->name, w->game, w->ply, notation);
        w->refused++;
        return;
    }
    w->undo_bytes.len = w->undo_again.len = 0;
    cr_assert_eq(ops->encode_undo(w->undo, &w->undo_bytes), KD_OK, "%s: encode_undo of %s", w->name, notation);
    memset(w->undo_back, 0, ops->undo_size);
    cr_assert_eq(ops->decode_undo(w->undo_bytes.data, w->undo_bytes.len, w->undo_back), KD_OK,
                 "%s game %u ply %u: decode_undo refused the undo of %s", w->name, w->game, w->ply, notation);
    cr_assert_eq(ops->encode_undo(w->undo_back, &w->undo_again), KD_OK);
    cr_assert(same(&w->undo_bytes, &w->undo_again), "%s game %u ply %u: the undo of %s does not round-trip", w->name,
              w->game, w->ply, notation);
    state_round_trip(w); /* w->after: the state decoded from its bytes */
    cr_assert_eq(ops->rollback(w->after, w->undo_back), KD_OK,
                 "%s game %u ply %u: rollback of %s on the decoded state failed", w->name, w->game, w->ply, notation);
    cr_assert_eq(memcmp(w->before, w->after, ops->state_size), 0,
                 "%s game %u ply %u: the decoded state's bytes changed after execute and rollback of %s", w->name,
                 w->game, w->ply, notation);

    cr_assert_eq(ops->rollback(w->state, w->undo_back), KD_OK, "%s game %u ply %u: rollback of %s failed", w->name,
                 w->game, w->ply, notation);
    cr_assert_eq(memcmp(w->before, w->state, ops->state_size), 0,
                 "%s game %u ply %u: the state's bytes changed after execute and rollback of %s", w->name, w->game,
                 w->ply, notation);
    state_round_trip(w);
    cr_assert(same(&w->enc, &w->enc_before), "%s game %u ply %u: the state's encoding changed after the rollback of %s",
              w->name, w->game, w->ply, notation);
    w->checked++;
}

/* The duty a seat owes from its seed when none has a legal move: 1 and
 * `cmd`, `seat` filled, else 0. */
static int owed_duty(walk *w, kd_game_status st, kd_buf *cmd, int *seat)
{
    const kd_episode_type *type = w->type;
    int first = st.to_move == KD_SEAT_NONE ? 0 : st.to_move;
    int last = st.to_move == KD_SEAT_NONE ? (int)type->max_seats - 1 : st.to_move;
    for (int s = first; type->secret_duty && s <= last; s++) {
        if (!(w->signers.seeded & (1u << s)))
            continue;
        cmd->len = 0;
        if (type->secret_duty(w->state, s, w->signers.seeds[s], cmd) == KD_OK) {
            *seat = s;
            return 1;
        }
    }
    return 0;
}

/* random_command's legal and illegal commands for `seat` (a seat to
 * move), through `cmd`. */
static void random_commands(walk *w, int seat, kd_buf *cmd)
{
    for (int legal = 1; legal >= 0; legal--) {
        cmd->len = 0;
        kd_err err = w->type->random_command(w->state, seat, legal, &w->rng, cmd);
        if (err == KD_ERR_NO_MOVE || (!legal && err == KD_ERR_UNSUPPORTED))
            continue;
        cr_assert_eq(err, KD_OK, "%s game %u ply %u: random_command(seat %d, legal %d): %s", w->name, w->game, w->ply,
                     seat, legal, kd_err_str(err));
        apply_and_roll_back(w, seat, cmd->data, cmd->len,
                            legal ? "(a random legal command)" : "(a random illegal command)", legal);
    }
}

/* The seats' results agree with the status of the state. */
static void results_agree(walk *w, size_t seats)
{
    kd_game_status st = w->type->status(w->state);
    for (size_t seat = 0; seat < seats; seat++) {
        kd_seat_result r = kd_episode_seat_result(w->type, w->state, (int)seat);
        if (st.phase == KD_PHASE_IN_PROGRESS)
            cr_expect_eq(r, KD_RESULT_NONE, "%s: seat %zu has a result (%s) in a game in progress", w->name, seat,
                         kd_seat_result_name(r));
        else if (st.phase == KD_PHASE_DRAW)
            cr_expect_eq(r, KD_RESULT_DRAW, "%s: seat %zu's result is %s in a draw", w->name, seat,
                         kd_seat_result_name(r));
        else if ((int)seat == st.winner)
            cr_expect_eq(r, KD_RESULT_WIN, "%s: the winner's result is %s", w->name, kd_seat_result_name(r));
        else
            cr_expect(r == KD_RESULT_LOSS || r == KD_RESULT_CHEAT || r == KD_RESULT_FORFEIT,
                      "%s: seat %zu lost but its result is %s", w->name, seat, kd_seat_result_name(r));
    }
}

/* One random game; returns the plies played. */
static unsigned play_one(walk *w, size_t seats, kd_legal_moves *moves, const void *config)
{
    const kd_episode_type *type = w->type;
    char why[256] = "";
    kd_err err = kd_perft_start(type, config, NULL, seats, w->state, &w->signers, why, sizeof why);
    cr_assert_eq(err, KD_OK, "%s: the start position with %zu seats: %s", w->name, seats, why);
    kd_buf duty;
    kd_buf_init(&duty);
    for (w->ply = 0; w->ply < PLIES_MAX; w->ply++) {
        kd_game_status st = type->status(w->state);
        results_agree(w, seats);
        if (st.phase != KD_PHASE_IN_PROGRESS)
            break;
        state_round_trip(w);
        w->enc_before.len = 0;
        cr_assert_eq(kd_buf_append(&w->enc_before, w->enc.data, w->enc.len), KD_OK);
        /* the moves of the seat to move, or of every seat when none must act */
        kd_legal_moves_clear(moves);
        int seat_of[KD_MAX_PARTICIPANTS + 1];
        size_t bounds[KD_MAX_PARTICIPANTS + 1] = {0};
        int first = st.to_move == KD_SEAT_NONE ? 0 : st.to_move;
        int last = st.to_move == KD_SEAT_NONE ? (int)seats - 1 : st.to_move;
        size_t n_seats = 0;
        for (int seat = first; seat <= last; seat++) {
            cr_assert_eq(type->legal_moves(w->state, seat, moves), KD_OK);
            seat_of[n_seats] = seat;
            bounds[++n_seats] = moves->count;
        }
        if (!moves->count) {
            int seat = -1;
            if (!owed_duty(w, st, &duty, &seat))
                break; /* waiting on a clock or a seat without a key: the walk ends here */
            apply_and_roll_back(w, seat, duty.data, duty.len, "(duty)", 1);
            execute(w, seat, duty.data, duty.len, "(duty)");
            continue;
        }
        size_t step = moves->count > MOVES_TRIED ? moves->count / MOVES_TRIED + 1 : 1;
        size_t pick = kd_type_rng_below(&w->rng, (uint32_t)moves->count);
        for (size_t i = 0; i < moves->count; i++) {
            if (i % step && i != pick)
                continue;
            size_t k = 0;
            while (i >= bounds[k + 1])
                k++;
            const kd_legal_move *m = &moves->moves[i];
            apply_and_roll_back(w, seat_of[k], m->command, m->command_len, m->notation, 1);
        }
        for (size_t k = 0; k < n_seats; k++)
            random_commands(w, seat_of[k], &duty);
        size_t k = 0;
        while (pick >= bounds[k + 1])
            k++;
        const kd_legal_move *m = &moves->moves[pick];
        execute(w, seat_of[k], m->command, m->command_len, m->notation);
    }
    kd_buf_fini(&duty);
    kd_perft_signers_wipe(&w->signers);
    return w->ply;
}

static size_t indices[KD_TYPES_MAX];

ParameterizedTestParameters(type_laws, every_type)
{
    for (size_t i = 0; i < KD_TYPES_MAX; i++)
        indices[i] = i;
    return cr_make_param_array(size_t, indices, kd_builtin_type_count);
}

ParameterizedTest(size_t *index, type_laws, every_type, .timeout = 300)
{
    kd_type_table table;
    kd_type_table_init(&table);
    cr_assert_lt(*index, table.count);
    const kd_episode_type *type = table.entries[*index].type;
    walk w;
    walk_init(&w, type);
    kd_legal_moves moves;
    kd_legal_moves_init(&moves);
    unsigned plies = 0;
    for (w.game = 0; w.game < GAMES; w.game++) {
        /* the fewest seats, and the most every other game */
        size_t seats = w.game % 2 ? type->max_seats : type->min_seats;
        if (seats > 4)
            seats = 4;
        if (seats < type->min_seats)
            seats = type->min_seats;
        plies += play_one(&w, seats, &moves, kd_type_table_config(&table, w.name));
    }
    cr_log_info("%s: %u plies, %zu moves applied and rolled back, %zu illegal ones refused", w.name, plies, w.checked,
                w.refused);
    cr_expect_geq(plies, GAMES, "%s: the random games made no progress", w.name);
    cr_expect_gt(w.checked, 20, "%s: too few moves checked", w.name);
    kd_legal_moves_fini(&moves);
    walk_fini(&w);
}

/* 1 when the dotted `path` names a uint32 field of `desc` (through
 * nested messages). */
static int whole_field(const ProtobufCMessageDescriptor *desc, const char *path)
{
    char part[64];
    while (desc && *path) {
        const char *dot = strchr(path, '.');
        size_t n = dot ? (size_t)(dot - path) : strlen(path);
        if (n >= sizeof part)
            return 0;
        memcpy(part, path, n);
        part[n] = '\0';
        const ProtobufCFieldDescriptor *f = protobuf_c_message_descriptor_get_field_by_name(desc, part);
        if (!f)
            return 0;
        if (!dot)
            return f->type == PROTOBUF_C_TYPE_UINT32 && f->label != PROTOBUF_C_LABEL_REPEATED;
        if (f->type != PROTOBUF_C_TYPE_MESSAGE)
            return 0;
        desc = f->descriptor;
        path = dot + 1;
    }
    return 0;
}

Test(type_laws, a_house_states_its_terms)
{
    for (size_t i = 0; i < kd_builtin_type_count; i++) {
        const kd_episode_type *t = kd_builtin_types[i];
        const char *name = t->ops->type_name;
        cr_expect_eq(!t->house_seats, !t->house_terms, "%s: a house seat, and only one, has terms", name);
        if (!t->house_terms)
            continue;
        json_error_t jerr;
        json_t *schema = json_loads(t->params_schema, 0, &jerr);
        cr_assert(schema, "%s: params_schema: %s", name, jerr.text);
        json_t *props = json_object_get(schema, "properties");
        size_t k = 0;
        for (; t->house_terms[k].name; k++) {
            const kd_house_term *term = &t->house_terms[k];
            cr_expect(term->meaning && term->meaning[0], "%s.%s: says what it means", name, term->name);
            cr_expect_leq(term->min, term->max, "%s.%s: min <= max", name, term->name);
            cr_expect(json_object_get(props, term->name), "%s.%s: a member of the params schema", name, term->name);
            cr_expect(whole_field(t->params_message, term->field ? term->field : term->name),
                      "%s.%s: a whole-number field of the params message", name, term->name);
        }
        cr_expect_gt(k, 0, "%s: at least one term", name);
        cr_expect_leq(k, KD_HOUSE_TERMS_MAX, "%s: at most KD_HOUSE_TERMS_MAX terms", name);
        json_decref(schema);
    }
}
