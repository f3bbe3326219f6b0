/*
 * holdem_check.c — cards opened with both seats' keys, a seat's own hole
 * cards from its seed, and protocol 1's check: a seat's steps recomputed
 * from its hand secret and compared byte for byte (holdem.h,
 * holdem_deck.h). Protocol 2 checks each step's proof as it arrives
 * (holdem_proof.h) and publishes no hand secret.
 *
 * Why recomputation (protocol 1): every step a seat makes (its shuffle, its lock, its
 * keys) is a function of its hand secret and of the public data before it.
 * Once the secret is published, anyone re-runs the honest protocol and
 * compares; a duplicated or missing card, a wrong permutation, a lock with
 * another key, a key that does not belong: each makes some byte differ,
 * and the seat whose bytes differ is the cheater. The other seat's
 * misbehaviour cannot make an honest seat's recomputation fail, because
 * each seat's step is checked against its own input as it stands in the
 * state.
 */
#include <string.h>

#include "episodes/holdem/holdem.h"

int kd_hm_check_seat(const kd_hm_state *s, int seat, const uint8_t secret[KD_HASH_LEN])
{
    if (seat != 0 && seat != 1)
        return 0;
    kd_hm_keys keys;
    kd_hm_keys_derive(secret, &keys);
    kd_hm_point deck[KD_HM_CARDS], in[KD_HM_CARDS], locked[KD_HM_DEALT], commits[KD_HM_DEALT];
    int ok = 1;
    if (seat == 0)
        ok = kd_hm_card_points(in) == KD_OK;
    else
        memcpy(in, s->deck[0], sizeof in);
    ok = ok && kd_hm_shuffle(&keys, (const kd_hm_point *)in, deck) == KD_OK &&
         memcmp(deck, s->deck[seat], sizeof deck) == 0;
    ok = ok && kd_hm_lock(&keys, seat == 0 ? (const kd_hm_point *)s->deck[1] : (const kd_hm_point *)s->locked[0],
                          locked, commits) == KD_OK;
    ok = ok && memcmp(locked, s->locked[seat], sizeof locked) == 0 &&
         memcmp(commits, s->commits[seat], sizeof commits) == 0;
    for (unsigned pos = 0; ok && pos < KD_HM_DEALT; pos++)
        if (s->opened[seat] & (1u << pos))
            ok = memcmp(keys.card_keys[pos], s->keys[seat][pos], KD_HM_SCALAR_LEN) == 0;
    memset(&keys, 0, sizeof keys);
    return ok;
}

int kd_hm_open_position(const kd_hm_state *s, const kd_hm_point cards[KD_HM_CARDS], unsigned pos)
{
    kd_hm_point a, b;
    if (pos >= KD_HM_DEALT || !(s->opened[0] & s->opened[1] & (1u << pos)))
        return -1;
    if (kd_hm_unlock(s->locked[1][pos], s->keys[1][pos], a) != KD_OK || kd_hm_unlock(a, s->keys[0][pos], b) != KD_OK)
        return -1;
    return kd_hm_card_find(cards, b);
}

int kd_hm_own_cards(const kd_hm_state *s, int seat, const uint8_t seed[KD_SECRET_SEED_LEN], uint8_t out[2])
{
    out[0] = out[1] = KD_HM_NO_CARD;
    if ((seat != 0 && seat != 1) || s->phase == KD_HM_SHUFFLE || s->phase == KD_HM_LOCK || s->phase == KD_HM_OVER)
        return -1;
    int o = 1 - seat;
    unsigned mine = 0x3u << (2 * seat);
    if ((s->opened[o] & mine) != mine)
        return -1;
    uint8_t hs[KD_HASH_LEN];
    kd_hm_keys keys;
    kd_hm_point cards[KD_HM_CARDS], a, b;
    kd_hm_hand_secret(seed, s->hand, hs);
    kd_hm_keys_derive(hs, &keys);
    int rc = kd_hm_card_points(cards) == KD_OK ? 0 : -1;
    for (int j = 0; !rc && j < 2; j++) {
        unsigned pos = (unsigned)(2 * seat + j);
        int c = -1;
        if (kd_hm_unlock(s->locked[1][pos], s->keys[o][pos], a) == KD_OK &&
            kd_hm_unlock(a, keys.card_keys[pos], b) == KD_OK)
            c = kd_hm_card_find(cards, b);
        if (c < 0)
            rc = -1;
        else
            out[j] = (uint8_t)c;
    }
    if (rc)
        out[0] = out[1] = KD_HM_NO_CARD;
    memset(hs, 0, sizeof hs);
    memset(&keys, 0, sizeof keys);
    return rc;
}
