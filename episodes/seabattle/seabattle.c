/*
 * seabattle.c — the rules of sea battle over committed boards, and the
 * kd_episode_ops table that plugs them into the engine. The state holds
 * roots, shots and answers only; deadlines are DAA scores from the block
 * metadata. Rules and formats in seabattle.h.
 */
#include "episodes/seabattle/seabattle.h"
#include "episodes/ops_adapter.h"

#include <stdlib.h>
#include <string.h>

const kd_rule_code kd_sb_rule_codes[] = {
    {"game_over", "the game has ended"},
    {"unauthorised", "the command is unsigned, or signed by a key that is not a participant"},
    {"not_your_turn", "the signer may not act now: the other seat shoots, answers or reveals"},
    {"out_of_bounds", "the cell is not on the 10 x 10 board"},
    {"already_shot", "the cell of the other board was shot before"},
    {"answer_owed", "a shot waits for its answer: nothing else happens until it comes or the deadline passes"},
    {"no_shot_pending", "an answer was sent while no shot waits for one"},
    {"wrong_cell", "the answer opens another cell than the one shot"},
    {"bad_content", "the answer's content is not 0 (empty) or a ship id 1..5"},
    {"false_opening", "the answer's content, salt and path do not open to the seat's committed root"},
    {"not_reveal_phase", "a whole board is revealed only after the play ended (a fleet sunk, a resignation)"},
    {"already_revealed", "the seat has revealed its board already"},
    {"false_board", "the revealed board does not hash to the seat's committed root"},
    {"too_early", "a claim before the deadline (timeout in DAA score after the wait began)"},
    {"nothing_to_claim", "a claim while the other seat owes nothing, or by a seat that owes something itself"},
    {NULL, NULL},
};

static const char *const seat_words[2] = {"blue", "red"};

unsigned kd_sb_hits(const kd_sb_state *state, int seat, unsigned id)
{
    unsigned n = 0;
    for (int i = 0; i < KD_SB_CELLS; i++)
        n += state->marks[seat][i] == id + 1;
    return n;
}

int kd_sb_fleet_sunk(const kd_sb_state *state, int seat)
{
    for (unsigned id = 1; id <= KD_SB_SHIPS; id++)
        if (kd_sb_hits(state, seat, id) < kd_sb_ship_len[id])
            return 0;
    return 1;
}

int kd_sb_to_move(const kd_sb_state *s)
{
    if (s->phase == KD_SB_PLAY)
        return s->pending != KD_SB_NO_CELL ? 1 - s->turn : s->turn;
    if (s->phase == KD_SB_REVEAL)
        return s->revealed[0] == KD_SB_UNREVEALED ? 0 : 1;
    return KD_SEAT_NONE;
}

kd_err kd_sb_state_init(kd_sb_state *state, const kd_participants *participants, const kd_sb_params *params,
                        kd_reject *rej)
{
    memset(state, 0, sizeof *state);
    if (kd_two_seats_check(participants, "sea battle", seat_words, rej) != KD_OK)
        return KD_ERR_BAD_PARTICIPANTS;
    if (params->timeout < KD_DEADLINE_MIN || params->timeout > KD_SB_TIMEOUT_MAX)
        return kd_reject_say(rej, KD_ERR_BAD_PARAMS,
                             "timeout %llu: it must be %u..%u DAA score (the rules' floor under every deadline is %u)",
                             (unsigned long long)params->timeout, KD_DEADLINE_MIN, KD_SB_TIMEOUT_MAX, KD_DEADLINE_MIN);
    memcpy(state->players, participants->keys, sizeof state->players);
    memcpy(state->roots, params->roots, sizeof state->roots);
    memcpy(state->bindings, params->bindings, sizeof state->bindings);
    state->timeout = params->timeout;
    state->pending = KD_SB_NO_CELL;
    state->winner = KD_SB_NO_SEAT;
    return KD_OK;
}

/* Ends the play: `winner` provisionally, the reveal begins at `daa`. */
static void end_play(kd_sb_state *s, int winner, kd_sb_reason reason, uint64_t daa)
{
    s->phase = KD_SB_REVEAL;
    s->winner = (uint8_t)winner;
    s->reason = (uint8_t)reason;
    s->since = daa;
}

/* The result once both boards are revealed. */
static void settle(kd_sb_state *s)
{
    int w = s->winner, l = 1 - w;
    if (s->revealed[w] == KD_SB_ILLEGAL && s->revealed[l] == KD_SB_LEGAL)
        s->winner = (uint8_t)l;
    s->phase = KD_SB_OVER;
}

static kd_err do_shot(kd_sb_state *s, int seat, uint32_t cell, kd_reject *rej)
{
    if (s->pending != KD_SB_NO_CELL)
        return kd_reject_rule(rej, "answer_owed", "%s must first answer the shot at cell %u", seat_words[1 - s->turn],
                              (unsigned)s->pending);
    if (seat != s->turn)
        return kd_reject_rule(rej, "not_your_turn", "it is %s's shot, not %s's", seat_words[s->turn], seat_words[seat]);
    if (cell >= KD_SB_CELLS)
        return kd_reject_rule(rej, "out_of_bounds", "there is no cell %u: cells are 0..99 (a1..j10)", (unsigned)cell);
    if (s->marks[1 - seat][cell])
        return kd_reject_rule(rej, "already_shot", "cell %u of %s's board was shot before", (unsigned)cell,
                              seat_words[1 - seat]);
    s->pending = (uint8_t)cell;
    return KD_OK;
}

static kd_err do_answer(kd_sb_state *s, int seat, const kd_sb_command *c, uint64_t daa, kd_reject *rej)
{
    if (s->pending == KD_SB_NO_CELL)
        return kd_reject_rule(rej, "no_shot_pending", "no shot waits for an answer");
    if (seat == s->turn)
        return kd_reject_rule(rej, "not_your_turn", "%s shot; %s answers", seat_words[seat], seat_words[1 - seat]);
    if (c->cell != s->pending)
        return kd_reject_rule(rej, "wrong_cell", "the shot was at cell %u, the answer opens cell %u",
                              (unsigned)s->pending, (unsigned)c->cell);
    if (c->content > KD_SB_SHIPS)
        return kd_reject_rule(rej, "bad_content", "content %u: a cell holds 0 (empty) or a ship id 1..5",
                              (unsigned)c->content);
    if (!kd_sb_path_ok(s->roots[seat], c->cell, (uint8_t)c->content, c->salt, c->path))
        return kd_reject_rule(rej, "false_opening", "the opening of cell %u does not match %s's committed root",
                              (unsigned)c->cell, seat_words[seat]);
    s->marks[seat][c->cell] = (uint8_t)(c->content + 1);
    s->pending = KD_SB_NO_CELL;
    int shooter = s->turn;
    s->turn = (uint8_t)(1 - s->turn);
    if (c->content && kd_sb_fleet_sunk(s, seat)) {
        end_play(s, shooter, KD_SB_REASON_SUNK, daa);
        return KD_OK;
    }
    int unshot = 0;
    for (int i = 0; i < KD_SB_CELLS && !unshot; i++)
        unshot = s->marks[seat][i] == 0;
    if (!unshot)
        end_play(s, shooter, KD_SB_REASON_EXHAUSTED, daa);
    return KD_OK;
}

static kd_err do_reveal(kd_sb_state *s, int seat, const kd_sb_command *c, kd_reject *rej)
{
    if (s->revealed[seat] != KD_SB_UNREVEALED)
        return kd_reject_rule(rej, "already_revealed", "%s has revealed its board already", seat_words[seat]);
    kd_sb_board board;
    memcpy(board.contents, c->contents, sizeof board.contents);
    memcpy(board.salts, c->salts, sizeof board.salts);
    for (int i = 0; i < KD_SB_CELLS; i++)
        if (board.contents[i] > KD_SB_SHIPS)
            return kd_reject_rule(rej, "bad_content", "cell %d holds %u: a cell holds 0 or a ship id 1..5", i,
                                  board.contents[i]);
    uint8_t root[KD_HASH_LEN];
    kd_sb_root(&board, root);
    if (memcmp(root, s->roots[seat], KD_HASH_LEN) != 0)
        return kd_reject_rule(rej, "false_board", "the revealed board does not hash to %s's committed root",
                              seat_words[seat]);
    int legal = kd_sb_fleet_legal(board.contents, NULL, 0);
    for (int i = 0; legal && i < KD_SB_CELLS; i++)
        legal = s->marks[seat][i] == 0 || s->marks[seat][i] == board.contents[i] + 1;
    s->revealed[seat] = legal ? KD_SB_LEGAL : KD_SB_ILLEGAL;
    if (s->revealed[1 - seat] != KD_SB_UNREVEALED)
        settle(s);
    return KD_OK;
}

static kd_err do_claim(kd_sb_state *s, int seat, uint64_t daa, kd_reject *rej)
{
    int waiting = s->phase == KD_SB_PLAY
                      ? s->pending != KD_SB_NO_CELL && seat == s->turn
                      : s->revealed[seat] != KD_SB_UNREVEALED && s->revealed[1 - seat] == KD_SB_UNREVEALED;
    if (!waiting)
        return kd_reject_rule(rej, "nothing_to_claim", "%s owes %s nothing now", seat_words[1 - seat],
                              seat_words[seat]);
    if (daa < s->since + s->timeout)
        return kd_reject_rule(rej, "too_early", "the deadline is DAA score %llu; this block is at %llu",
                              (unsigned long long)(s->since + s->timeout), (unsigned long long)daa);
    if (s->phase == KD_SB_PLAY) {
        s->winner = (uint8_t)seat;
        s->reason = KD_SB_REASON_NO_ANSWER;
        s->pending = KD_SB_NO_CELL;
    } else if (s->revealed[seat] == KD_SB_LEGAL) {
        s->winner = (uint8_t)seat;
        s->reason = KD_SB_REASON_NO_REVEAL;
    } /* a claimant whose own fleet is illegal leaves the play's result */
    s->phase = KD_SB_OVER;
    return KD_OK;
}

/* The seat of `signer`, or -1 (rej filled). */
static int seat_of(const kd_sb_state *s, const kd_pubkey *signer, kd_reject *rej)
{
    for (int seat = 0; signer && seat < 2; seat++)
        if (memcmp(signer->bytes, s->players[seat].bytes, KD_PUBKEY_LEN) == 0)
            return seat;
    (void)kd_reject_rule(rej, "unauthorised",
                         signer ? "the signer is not a participant of this game"
                                : "the command is unsigned; sea-battle commands are signed");
    return -1;
}

static kd_err dispatch(kd_sb_state *s, int seat, const kd_sb_command *cmd, uint64_t daa, kd_reject *rej)
{
    int play = s->phase == KD_SB_PLAY;
    switch (cmd->kind) {
    case KD_SB_SHOT:
        return play ? do_shot(s, seat, cmd->cell, rej)
                    : kd_reject_rule(rej, "game_over", "the play has ended: no more shots");
    case KD_SB_ANSWER:
        return play ? do_answer(s, seat, cmd, daa, rej)
                    : kd_reject_rule(rej, "game_over", "the play has ended: no shot waits");
    case KD_SB_REVEAL_BOARD:
        return play ? kd_reject_rule(rej, "not_reveal_phase", "the play goes on: boards are revealed at its end")
                    : do_reveal(s, seat, cmd, rej);
    case KD_SB_RESIGN:
        if (!play)
            return kd_reject_rule(rej, "game_over", "the play has ended: nothing to resign");
        end_play(s, 1 - seat, KD_SB_REASON_RESIGNED, daa);
        s->pending = KD_SB_NO_CELL;
        return KD_OK;
    case KD_SB_CLAIM:
        return do_claim(s, seat, daa, rej);
    }
    return kd_reject_say(rej, KD_ERR_BAD_COMMAND, "unknown sea-battle command");
}

kd_err kd_sb_apply(kd_sb_state *state, const kd_sb_command *cmd, const kd_pubkey *signer, uint64_t daa,
                   kd_sb_undo *undo, kd_reject *rej)
{
    if (state->phase == KD_SB_OVER)
        return kd_reject_rule(rej, "game_over", "the game is over: %s won", seat_words[state->winner & 1]);
    int seat = seat_of(state, signer, rej);
    if (seat < 0)
        return KD_ERR_RULE;
    kd_sb_state s = *state;
    kd_err err = dispatch(&s, seat, cmd, daa, rej);
    if (err)
        return err;
    if (s.pending != KD_SB_NO_CELL && state->pending == KD_SB_NO_CELL)
        s.since = daa; /* a shot starts the answer's wait */
    s.move_count++;
    memset(undo, 0, sizeof *undo);
    undo->before = *state;
    kd_sb_state_hash(&s, undo->after_hash);
    *state = s;
    return KD_OK;
}

kd_err kd_sb_rollback(kd_sb_state *state, const kd_sb_undo *undo)
{
    uint8_t h[KD_HASH_LEN];
    kd_sb_state_hash(state, h);
    if (memcmp(h, undo->after_hash, KD_HASH_LEN) != 0 || undo->before.move_count + 1 != state->move_count)
        return KD_ERR_DECODE;
    *state = undo->before;
    return KD_OK;
}

/* -------------------------------------------------------- ops table */

static kd_err ops_resolve_params(const void *config, const uint8_t *params, size_t len, kd_buf *effective,
                                 kd_reject *rej)
{
    (void)config;
    kd_sb_params p;
    kd_err err = kd_sb_params_decode(params, len, &p, rej);
    if (err)
        return err;
    if (!p.timeout)
        p.timeout = KD_SB_DEFAULT_TIMEOUT;
    if (p.timeout < KD_DEADLINE_MIN || p.timeout > KD_SB_TIMEOUT_MAX)
        return kd_reject_say(rej, KD_ERR_BAD_PARAMS,
                             "timeout %llu: it must be %u..%u DAA score (the rules' floor under every deadline is %u)",
                             (unsigned long long)p.timeout, KD_DEADLINE_MIN, KD_SB_TIMEOUT_MAX, KD_DEADLINE_MIN);
    return kd_sb_params_encode(&p, effective);
}

static kd_err ops_init(void *state, const kd_participants *participants, const uint8_t *params, size_t len,
                       const kd_block_meta *meta, kd_reject *rej)
{
    (void)meta;
    kd_sb_params p;
    memset(state, 0, sizeof(kd_sb_state));
    kd_err err = kd_sb_params_decode(params, len, &p, rej);
    if (err)
        return err;
    return kd_sb_state_init(state, participants, &p, rej);
}

KD_OPS_EXECUTE_DAA(sb, kd_sb_apply);
KD_OPS_CODEC(sb);

const kd_episode_ops kd_sb_ops = {
    .type_name = KD_SB_TYPE_NAME,
    KD_OPS_MEMBERS(sb),
    .join_params = kd_sb_join_params,
};
