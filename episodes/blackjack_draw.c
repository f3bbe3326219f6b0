/*
 * blackjack_draw.c — pending draws and the cards they give: the part of a
 * round that asks the house for a card and takes its reveal. Kept apart
 * from the rules (blackjack.c) so it can merge with a shared module for
 * the house's pending draws (dice, roulette, slots) later.
 */
#include <string.h>

#include "episodes/blackjack.h"

void kd_bj_pending_ask(kd_bj_pending *p, const uint8_t entropy[KD_FAIR_ENTROPY_LEN], uint64_t daa)
{
    memcpy(p->entropy, entropy, KD_FAIR_ENTROPY_LEN);
    p->asked_daa = daa;
}

int kd_bj_pending_due(const kd_bj_pending *p, uint32_t timeout, uint64_t daa)
{
    return daa >= p->asked_daa && daa - p->asked_daa >= timeout;
}

void kd_bj_shoe_fill(kd_bj_state *s)
{
    memset(s->shoe, (int)s->params.decks, sizeof s->shoe);
    s->shoe_left = (uint16_t)(s->params.decks * KD_BJ_CARDS);
}

uint8_t kd_bj_pick(const uint8_t seed[KD_HASH_LEN], const uint8_t shoe[KD_BJ_CARDS], uint32_t left)
{
    kd_fair_stream stream;
    kd_fair_stream_init(&stream, seed);
    uint32_t k = kd_fair_below(&stream, left);
    uint8_t card = 0;
    while (card + 1 < KD_BJ_CARDS && k >= shoe[card]) {
        k -= shoe[card];
        card++;
    }
    return card;
}

kd_err kd_bj_draw_card(kd_bj_state *s, const kd_bj_pending *p, const uint8_t link[KD_FAIR_LINK_LEN],
                       uint32_t episode_id, uint8_t *card, kd_reject *rej)
{
    if (s->chain.revealed >= s->chain.length)
        return kd_reject_rule(rej, "wrong_link", "the house's chain is used up (%u links)", (unsigned)s->chain.length);
    if (!kd_fair_chain_next_ok(&s->chain, link))
        return kd_reject_rule(rej, "wrong_link",
                              "the link is not link %u of the committed chain: its SHA-256 is not the last revealed "
                              "link",
                              (unsigned)s->chain.revealed + 1);
    kd_fair_chain_advance(&s->chain, link);
    if (s->shoe_left == 0)
        kd_bj_shoe_fill(s);
    uint8_t seed[KD_HASH_LEN];
    kd_fair_draw(link, p->entropy, episode_id, s->chain.revealed, seed);
    *card = kd_bj_pick(seed, s->shoe, s->shoe_left);
    s->shoe[*card]--;
    s->shoe_left--;
    return KD_OK;
}
