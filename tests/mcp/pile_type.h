/*
 * pile_type.h — "pile", an episode type that exists only in the tests: two
 * or three seats (A, B, C) take turns taking 1..max_take stones from a pile;
 * whoever takes the last stone wins. It registers itself in a test's
 * kd_type_table, so the gateway's tests show that nothing in the gateway
 * knows a particular game.
 *
 *   params   {"pile": 1..200, "max_take": 1..9}  (absent: 10 and 3)
 *   command  {"take": k}                        (one byte k on the wire)
 *   rules    game_over, not_your_turn, too_many (more than max_take or the
 *            pile), in that order; the signer must be the seat to move.
 */
#ifndef KD_TESTS_MCP_PILE_TYPE_H
#define KD_TESTS_MCP_PILE_TYPE_H

#include "episodes/episode_type.h"

#define PILE_TYPE_NAME "pile"

extern const kd_episode_type pile_type;

#endif
