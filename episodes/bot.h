/*
 * bot.h — what the board games' bots (negamax with alpha-beta over each
 * game's own position) share: the depth a request searches and the
 * alpha-beta step after a child's score. The search loops themselves stay
 * per game: each walks its own position type and move generator, and a
 * shared loop would cost a call through a pointer at every node.
 */
#ifndef KD_EPISODES_BOT_H
#define KD_EPISODES_BOT_H

/* The plies a bot searches for a request of `depth`: 0 asks for `dflt`;
 * deeper than `max` searches `max` (kd_episode_type.bot_max_depth). */
static inline unsigned kd_bot_depth(unsigned depth, unsigned dflt, unsigned max)
{
    return depth == 0 ? dflt : depth > max ? max : depth;
}

/* One child's `score` in a negamax node with window (*alpha, beta): raises
 * *best and *alpha; 1 when the window has closed (the remaining children
 * are cut off). */
static inline int kd_bot_cutoff(int score, int *best, int *alpha, int beta)
{
    if (score > *best)
        *best = score;
    if (*best > *alpha)
        *alpha = *best;
    return *alpha >= beta;
}

#endif
