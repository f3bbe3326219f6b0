/*
 * holdem_duty.c — what a seat owes from its secret seed (the type's
 * secret_duty): its shuffle and its lock (in protocol 2 with their
 * proofs), its keys, at the showdown its show, or its muck when it shows
 * second and its hand loses to the one shown; in protocol 1 its hand
 * secret at the end of a hand, or a dispute when its own hole cards do not
 * decrypt. The seed never leaves the seat's side; only these commands are
 * sent.
 */
#include <stdlib.h>
#include <string.h>

#include "episodes/holdem/holdem.h"

/* Fills `c` with what `seat` owes; KD_ERR_NO_MOVE when nothing. */
static kd_err duty_of(const kd_hm_state *s, int seat, const kd_hm_keys *keys, const uint8_t seed[KD_SECRET_SEED_LEN],
                      kd_hm_command *c)
{
    unsigned owes = kd_hm_owes(s, seat);
    uint8_t mine[2];
    unsigned hole = 0x3u << (2 * seat);
    int proved = s->params.protocol >= 2;
    kd_hm_bind bind;
    kd_hm_bind_of(s, seat, &bind);
    if (!proved && s->phase == KD_HM_PLAY && (s->opened[1 - seat] & hole) == hole &&
        kd_hm_own_cards(s, seat, seed, mine) != 0) {
        c->kind = KD_HM_CMD_DISPUTE; /* the other's key strips to no card of ours */
        return KD_OK;
    }
    if ((owes & KD_HM_OWE_SHOW) && s->first_show <= 1 && s->first_show != seat &&
        kd_hm_own_cards(s, seat, seed, mine) == 0) {
        /* the second to show: a hand that loses to the one shown is mucked */
        uint8_t seven[7] = {mine[0], mine[1]};
        memcpy(seven + 2, s->board, KD_HM_BOARD);
        if (kd_hm_eval(seven, 7) < s->values[s->first_show]) {
            c->kind = KD_HM_CMD_MUCK;
            return KD_OK;
        }
    }
    if (owes & KD_HM_OWE_SHUFFLE) {
        kd_hm_point *in = malloc(sizeof(kd_hm_point) * KD_HM_CARDS);
        if (!in)
            return KD_ERR_NOMEM;
        kd_err err = KD_OK;
        if (seat == 0)
            err = kd_hm_card_points(in);
        else
            memcpy(in, s->deck[0], sizeof(kd_hm_point) * KD_HM_CARDS);
        if (!err && proved)
            err = kd_hm_shuffle_prove(&bind, keys, (const kd_hm_point *)in, c->deck, c->key, c->proof);
        else if (!err)
            err = kd_hm_shuffle(keys, (const kd_hm_point *)in, c->deck);
        free(in);
        c->kind = KD_HM_CMD_SHUFFLE;
        c->proved = proved;
        return err;
    }
    if (owes & KD_HM_OWE_LOCK) {
        const kd_hm_point *in = seat == 0 ? (const kd_hm_point *)s->deck[1] : (const kd_hm_point *)s->locked[0];
        c->kind = KD_HM_CMD_LOCK;
        c->proved = proved;
        return proved ? kd_hm_lock_prove(&bind, keys, in, c->cards, c->commits, c->proofs)
                      : kd_hm_lock(keys, in, c->cards, c->commits);
    }
    if (owes & (KD_HM_OWE_KEYS | KD_HM_OWE_SHOW)) {
        unsigned owed = kd_hm_keys_owed(s, seat);
        c->kind = KD_HM_CMD_KEYS;
        for (unsigned pos = 0; pos < KD_HM_DEALT; pos++)
            if (owed & (1u << pos)) {
                c->positions[c->n_keys] = (uint8_t)pos;
                memcpy(c->keys[c->n_keys++], keys->card_keys[pos], KD_HM_SCALAR_LEN);
            }
        return KD_OK;
    }
    if (owes & KD_HM_OWE_SECRET) {
        c->kind = KD_HM_CMD_REVEAL;
        memcpy(c->secret, keys->hand_secret, KD_HASH_LEN);
        return KD_OK;
    }
    return KD_ERR_NO_MOVE;
}

kd_err kd_hm_duty(const void *state, int seat, const uint8_t seed[KD_SECRET_SEED_LEN], kd_buf *out)
{
    const kd_hm_state *s = state;
    if ((seat != 0 && seat != 1) || s->phase == KD_HM_OVER)
        return KD_ERR_NO_MOVE;
    kd_hm_command *c = calloc(1, sizeof *c);
    kd_hm_keys *keys = malloc(sizeof *keys);
    kd_err err = c && keys ? KD_OK : KD_ERR_NOMEM;
    if (!err) {
        uint8_t hs[KD_HASH_LEN];
        kd_hm_hand_secret(seed, s->hand, hs);
        kd_hm_keys_derive(hs, keys);
        memset(hs, 0, sizeof hs);
        err = duty_of(s, seat, keys, seed, c);
    }
    if (!err)
        err = kd_hm_command_encode(c, out);
    if (keys)
        memset(keys, 0, sizeof *keys);
    if (c)
        memset(c, 0, sizeof *c);
    free(keys);
    free(c);
    return err;
}
