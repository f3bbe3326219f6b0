/*
 * blackjack_draw.c — pending draws and the cards they give: the part of a
 * round that asks the house for a card and takes its reveal, a VRF proof
 * for the episode's next draw (episodes/fair.h).
 */
#include <string.h>

#include "episodes/blackjack/blackjack.h"

void kd_bj_pending_ask(const kd_bj_state *s, kd_bj_pending *p, const kd_bj_command *c, uint64_t daa)
{
    int v2 = s->params.draw_input == KD_FAIR_DRAW_V2;
    memcpy(p->ask, v2 ? c->entropy : c->digest, KD_FAIR_ASK_LEN);
    p->asked_daa = daa;
    p->asked = s->seq;
    p->ask_daa = v2 ? 0 : daa; /* draw input 2's bytes have no room for it */
}

uint64_t kd_bj_due(const kd_bj_state *s, size_t i)
{
    const kd_bj_pending *p = &s->players[i].round.pending;
    return s->params.draw_input == KD_FAIR_DRAW_V2 ? 0 : p->ask_daa + s->params.reveal_depth;
}

void kd_bj_shoe_fill(kd_bj_state *s)
{
    memset(s->shoe, (int)s->params.decks, sizeof s->shoe);
    s->shoe_left = (uint16_t)(s->params.decks * KD_BJ_CARDS);
}

uint8_t kd_bj_pick(kd_fair_stream *stream, const uint8_t shoe[KD_BJ_CARDS], uint32_t left)
{
    uint32_t k = kd_fair_below(stream, left);
    uint8_t card = 0;
    while (card + 1 < KD_BJ_CARDS && k >= shoe[card]) {
        k -= shoe[card];
        card++;
    }
    return card;
}

kd_err kd_bj_draw_verify(const kd_bj_state *s, const kd_bj_pending *p, const uint8_t proof[KD_VRF_PROOF_LEN],
                         uint8_t seed[KD_HASH_LEN], kd_reject *rej)
{
    kd_err err =
        kd_fair_verify(&s->params.house_key, s->params.draw_input, s->episode_id, s->draws + 1, p->ask, proof, seed);
    if (err == KD_ERR_BAD_SIGNATURE || err == KD_ERR_BAD_PUBKEY)
        return kd_reject_rule(rej, "bad_proof",
                              "the proof does not verify for draw %u (the oldest ask waiting for a card) against the "
                              "house's key",
                              (unsigned)s->draws + 1);
    if (err)
        return kd_reject_say(rej, err, "the house's proof could not be checked: %s", kd_err_str(err));
    return KD_OK;
}

uint8_t kd_bj_draw_card(kd_bj_state *s, kd_fair_stream *stream)
{
    s->draws++;
    if (s->shoe_left == 0)
        kd_bj_shoe_fill(s);
    uint8_t card = kd_bj_pick(stream, s->shoe, s->shoe_left);
    s->shoe[card]--;
    s->shoe_left--;
    return card;
}
