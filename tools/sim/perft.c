/*
 * perft.c — counting legal move sequences by execute and rollback through
 * an episode type's own functions (see perft.h).
 *
 * The walk keeps one row of storage per ply, allocated once:
 *
 *   ply   saved state (memcmp after each rollback)   undo record   moves
 *   0     state before the root's moves              undo[0]       moves[0]
 *   1     state after path[0]                        undo[1]       moves[1]
 *   ...
 *
 * so the recursion allocates nothing but the move lists' growth.
 */
#include "tools/sim/perft.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/crypto.h"
#include "episodes/secrets.h"

typedef struct {
    const kd_episode_type *type;
    kd_perft_signers *signers;
    void *state;
    unsigned char *saved;  /* depth rows of state_size bytes, kd_record_stride apart */
    unsigned char *undo;   /* depth rows of undo_size bytes, kd_record_stride apart */
    kd_legal_moves *moves; /* depth lists */
    const kd_legal_move *path[KD_PERFT_MAX_DEPTH];
    kd_perft_divide_fn divide;
    void *divide_ctx;
    char *why;
    size_t why_len;
} walk;

void kd_perft_signers_wipe(kd_perft_signers *signers)
{
    memset(signers->seeds, 0, sizeof signers->seeds);
    signers->seeded = 0;
}

void kd_perft_signers_from_participants(kd_perft_signers *signers, const kd_participants *participants)
{
    memset(signers, 0, sizeof *signers);
    for (size_t i = 0; i < KD_MAX_PARTICIPANTS; i++)
        signers->seat_key[i] = i < participants->count ? (int)i : -1;
    for (size_t i = 0; i < participants->count; i++)
        signers->candidates[i] = participants->keys[i];
    signers->candidate_count = participants->count;
}

kd_err kd_perft_signers_from_state(kd_perft_signers *signers, const uint8_t *encoded, size_t len)
{
    memset(signers, 0, sizeof *signers);
    for (size_t i = 0; i < KD_MAX_PARTICIPANTS; i++)
        signers->seat_key[i] = -1;
    for (size_t at = 0; at + KD_PUBKEY_LEN <= len && signers->candidate_count < KD_PERFT_MAX_CANDIDATES; at++) {
        if (encoded[at] != 0x02 && encoded[at] != 0x03)
            continue;
        kd_pubkey key;
        memcpy(key.bytes, encoded + at, KD_PUBKEY_LEN);
        if (kd_pubkey_check(&key) != KD_OK)
            continue;
        int seen = 0;
        for (size_t c = 0; c < signers->candidate_count; c++)
            seen |= memcmp(signers->candidates[c].bytes, key.bytes, KD_PUBKEY_LEN) == 0;
        if (!seen)
            signers->candidates[signers->candidate_count++] = key;
    }
    return signers->candidate_count ? KD_OK : KD_ERR_NOT_FOUND;
}

kd_err kd_perft_start(const kd_episode_type *type, const void *config, const json_t *params, size_t seats, void *state,
                      kd_perft_signers *signers, char *why, size_t why_len)
{
    const kd_episode_ops *ops = type->ops;
    kd_buf wire, effective;
    kd_buf_init(&wire);
    kd_buf_init(&effective);
    kd_reject rej = {0};
    kd_participants participants = {0};
    kd_key keys[KD_MAX_PARTICIPANTS];
    json_t *committed = NULL;
    static const uint8_t perft_store[KD_STORE_ID_LEN] = {'k', 'd', 'a', 'p', 'p', '-', 'p', 'e', 'r', 'f', 't'};
    memset(keys, 0, sizeof keys);
    kd_err err = KD_OK;
    if (seats < type->min_seats || seats > type->max_seats) {
        kd_reject_write(why, why_len, "%s seats %zu to %zu players, not %zu", ops->type_name, type->min_seats,
                        type->max_seats, seats);
        err = KD_ERR_INVALID_ARG;
        goto done;
    }
    char detail[KD_REJECT_DETAIL_MAX] = "";
    /* a type with secrets: each seat commits from its fresh key, as its
     * holder would (kd_seat_commit, for perft's own store id) */
    committed = type->secret_commit ? (params ? json_deep_copy(params) : json_object()) : NULL;
    if (type->secret_commit && !committed) {
        err = KD_ERR_NOMEM;
        goto done;
    }
    for (size_t i = 0; i < seats; i++) {
        kd_key *key = &keys[i];
        err = kd_key_generate(key);
        if (err) {
            kd_reject_write(why, why_len, "cannot generate a participant key: %s", kd_err_str(err));
            goto done;
        }
        participants.keys[i] = key->pub;
        if (committed) {
            err = kd_seat_commit(type, key, perft_store, 1, (int)i, committed, detail, sizeof detail);
            err = err == KD_ERR_UNSUPPORTED ? KD_OK : err;
        }
        if (err) {
            kd_reject_write(why, why_len, "params: %s", detail[0] ? detail : kd_err_str(err));
            goto done;
        }
    }
    participants.count = seats;
    err = type->params_from_json(committed ? committed : params, &wire, detail, sizeof detail);
    if (err) {
        kd_reject_write(why, why_len, "params: %s", detail[0] ? detail : kd_err_str(err));
        goto done;
    }
    err = ops->resolve_params(config, wire.data, wire.len, &effective, &rej);
    if (err) {
        kd_reject_write(why, why_len, "params: %s", rej.detail[0] ? rej.detail : kd_err_str(err));
        goto done;
    }
    uint8_t zero[KD_HASH_LEN] = {0};
    kd_block_meta meta = {.block_hash = zero, .daa = 1, .time_ms = 100, .tx_id = zero, .episode_id = 1};
    memset(state, 0, ops->state_size);
    err = ops->init(state, &participants, effective.data, effective.len, &meta, &rej);
    if (err) {
        kd_reject_write(why, why_len, "the start position: %s", rej.detail[0] ? rej.detail : kd_err_str(err));
        goto done;
    }
    kd_perft_signers_from_participants(signers, &participants);
    for (size_t i = 0; type->secret_duty && i < seats; i++)
        if (kd_seat_seed(type, &keys[i], perft_store, 1, (int)i, state, signers->seeds[i]) == KD_OK)
            signers->seeded |= 1u << i;
done:
    memset(keys, 0, sizeof keys);
    json_decref(committed);
    kd_buf_fini(&effective);
    kd_buf_fini(&wire);
    return err;
}

/* Writes "after M1 M2: <what>" (or "at the start: <what>") into w->why. */
static kd_err fail(walk *w, unsigned ply, const char *what, const kd_legal_move *move, const char *detail)
{
    char path[KD_PERFT_MAX_DEPTH * (KD_NOTATION_MAX + 1) + 1] = "";
    size_t used = 0;
    for (unsigned i = 0; i < ply && used < sizeof path - 1; i++)
        used += (size_t)snprintf(path + used, sizeof path - used, "%s%s", i ? " " : "", w->path[i]->notation);
    kd_reject_write(w->why, w->why_len, "%s%s: %s %s%s%s", ply ? "after " : "at the start", path, what, move->notation,
                    detail && *detail ? ": " : "", detail ? detail : "");
    return KD_ERR_INTERNAL;
}

/* Executes `move` for `seat`, finding the seat's key among the candidates
 * the first time that seat acts. */
static kd_err execute_as(walk *w, int seat, const uint8_t *command, size_t len, unsigned ply, void *undo,
                         kd_reject *rej)
{
    const kd_episode_ops *ops = w->type->ops;
    kd_perft_signers *s = w->signers;
    uint8_t zero[KD_HASH_LEN] = {0};
    kd_block_meta meta = {
        .block_hash = zero, .daa = 2 + ply, .time_ms = 100 * (2 + ply), .tx_id = zero, .episode_id = 1};
    if (seat >= 0 && seat < KD_MAX_PARTICIPANTS && s->seat_key[seat] >= 0)
        return ops->execute(w->state, command, len, &s->candidates[s->seat_key[seat]], &meta, undo, rej);
    kd_err err = KD_ERR_RULE;
    for (size_t c = 0; c < s->candidate_count; c++) {
        err = ops->execute(w->state, command, len, &s->candidates[c], &meta, undo, rej);
        if (err == KD_OK) {
            if (seat >= 0 && seat < KD_MAX_PARTICIPANTS)
                s->seat_key[seat] = (int)c;
            return KD_OK;
        }
    }
    return err;
}

static kd_err count(walk *w, unsigned ply, unsigned depth, uint64_t *nodes);

/* The first duty a seat to move owes from its seed, into `cmd`: its seat,
 * or -1 when none. */
static int owed_duty(walk *w, kd_game_status st, kd_buf *cmd)
{
    const kd_episode_type *type = w->type;
    int first = st.to_move == KD_SEAT_NONE ? 0 : st.to_move;
    int last = st.to_move == KD_SEAT_NONE ? (int)type->max_seats - 1 : st.to_move;
    for (int seat = first; type->secret_duty && seat <= last; seat++) {
        if (!(w->signers->seeded & (1u << seat)))
            continue;
        cmd->len = 0;
        if (type->secret_duty(w->state, seat, w->signers->seeds[seat], cmd) == KD_OK)
            return seat;
    }
    return -1;
}

/* Pays `seat`'s duty `cmd` as a forced step (not a ply), counts below it
 * and rolls it back. */
static kd_err forced(walk *w, int seat, const kd_buf *cmd, unsigned ply, unsigned depth, uint64_t *nodes)
{
    const kd_episode_ops *ops = w->type->ops;
    kd_legal_move *m = malloc(sizeof *m);
    unsigned char *saved = malloc(ops->state_size), *undo = calloc(1, ops->undo_size ? ops->undo_size : 1);
    kd_err err = m && saved && undo ? KD_OK : KD_ERR_NOMEM;
    if (!err) {
        memcpy(saved, w->state, ops->state_size);
        m->command_len = 0; /* the notation only: the duty's bytes are `cmd` */
        snprintf(m->notation, sizeof m->notation, "(duty of seat %d)", seat);
        kd_reject rej;
        rej.code[0] = rej.detail[0] = '\0';
        err = execute_as(w, seat, cmd->data, cmd->len, ply, undo, &rej);
        if (err)
            err = fail(w, ply, "execute refused the duty", m, rej.detail[0] ? rej.detail : kd_reject_code(err, &rej));
    }
    if (!err && !(err = count(w, ply, depth, nodes))) {
        err = ops->rollback(w->state, undo);
        if (err)
            err = fail(w, ply, "rollback failed for", m, kd_err_str(err));
        else if (memcmp(saved, w->state, ops->state_size) != 0)
            err = fail(w, ply, "the state's bytes changed after execute and rollback of", m, NULL);
    }
    free(m);
    free(saved);
    free(undo);
    return err;
}

static kd_err count(walk *w, unsigned ply, unsigned depth, uint64_t *nodes)
{
    if (depth == 0) {
        *nodes = 1;
        return KD_OK;
    }
    const kd_episode_type *type = w->type;
    const kd_episode_ops *ops = type->ops;
    *nodes = 0;
    kd_game_status st = type->status(w->state);
    if (st.phase != KD_PHASE_IN_PROGRESS)
        return KD_OK;
    /* The moves of the seat to move, or of every seat when none must act;
     * bounds[s]..bounds[s+1] are seat s's moves. */
    kd_legal_moves *moves = &w->moves[ply];
    kd_legal_moves_clear(moves);
    size_t bounds[KD_MAX_PARTICIPANTS + 1] = {0};
    int first = st.to_move == KD_SEAT_NONE ? 0 : st.to_move;
    int last = st.to_move == KD_SEAT_NONE ? (int)type->max_seats - 1 : st.to_move;
    for (int seat = first; seat <= last; seat++) {
        kd_err err = type->legal_moves(w->state, seat, moves);
        if (err)
            return err;
        bounds[seat + 1 - first] = moves->count;
    }
    if (!moves->count && type->secret_duty && w->signers->seeded) {
        kd_buf cmd;
        kd_buf_init(&cmd);
        int seat = owed_duty(w, st, &cmd);
        kd_err err = seat >= 0 ? forced(w, seat, &cmd, ply, depth, nodes) : KD_OK;
        kd_buf_fini(&cmd);
        return err;
    }
    unsigned char *saved = w->saved + (size_t)ply * kd_record_stride(ops->state_size);
    void *undo = w->undo + (size_t)ply * kd_record_stride(ops->undo_size);
    memcpy(saved, w->state, ops->state_size);
    for (size_t i = 0; i < moves->count; i++) {
        const kd_legal_move *m = &moves->moves[i];
        int seat = first;
        while (i >= bounds[seat + 1 - first])
            seat++;
        kd_reject rej; /* read only on failure: empty strings, not 192 zeroed bytes per node */
        rej.code[0] = rej.detail[0] = '\0';
        memset(undo, 0, ops->undo_size);
        kd_err err = execute_as(w, seat, m->command, m->command_len, ply, undo, &rej);
        if (err) {
            memcpy(w->state, saved, ops->state_size);
            return fail(w, ply, "execute refused the legal move", m,
                        rej.detail[0] ? rej.detail : kd_reject_code(err, &rej));
        }
        w->path[ply] = m;
        uint64_t sub = 0;
        err = count(w, ply + 1, depth - 1, &sub);
        if (err)
            return err;
        err = ops->rollback(w->state, undo);
        if (err)
            return fail(w, ply, "rollback failed for", m, kd_err_str(err));
        if (memcmp(saved, w->state, ops->state_size) != 0)
            return fail(w, ply, "the state's bytes changed after execute and rollback of", m, NULL);
        *nodes += sub;
        if (ply == 0 && w->divide)
            w->divide(w->divide_ctx, m, sub);
    }
    return KD_OK;
}

kd_err kd_perft_count(const kd_episode_type *type, kd_perft_signers *signers, void *state, unsigned depth,
                      kd_perft_divide_fn divide, void *divide_ctx, uint64_t *nodes, char *why, size_t why_len)
{
    if (depth > KD_PERFT_MAX_DEPTH) {
        kd_reject_write(why, why_len, "depth %u is over the limit of %d", depth, KD_PERFT_MAX_DEPTH);
        return KD_ERR_INVALID_ARG;
    }
    const kd_episode_ops *ops = type->ops;
    size_t rows = depth ? depth : 1;
    walk w = {.type = type,
              .signers = signers,
              .state = state,
              .divide = divide,
              .divide_ctx = divide_ctx,
              .why = why,
              .why_len = why_len};
    kd_err err = KD_ERR_NOMEM;
    w.saved = calloc(rows, kd_record_stride(ops->state_size));
    w.undo = calloc(rows, kd_record_stride(ops->undo_size ? ops->undo_size : 1));
    w.moves = calloc(rows, sizeof *w.moves);
    if (!w.saved || !w.undo || !w.moves) {
        kd_reject_write(why, why_len, "out of memory");
        goto done;
    }
    err = count(&w, 0, depth, nodes);
done:
    for (size_t i = 0; w.moves && i < rows; i++)
        kd_legal_moves_fini(&w.moves[i]);
    free(w.moves);
    free(w.undo);
    free(w.saved);
    return err;
}
