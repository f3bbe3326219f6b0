/*
 * seabattle_int.h — what sea battle's files share and nothing else uses:
 * the rules text, the seat names and the view functions of the type table
 * (seabattle_view.c). Pure functions.
 */
#ifndef KD_EPISODES_SEABATTLE_INT_H
#define KD_EPISODES_SEABATTLE_INT_H

#include <jansson.h>

#include "episodes/seabattle/seabattle.h"

#define KD_SB_RULES_TEXT                                                                                             \
    "Sea battle: each seat hides a fleet of five ships (lengths 5, 4, 3, 3, 2) on its own 10 x 10 board (columns "   \
    "a..j, rows 1..10), each ship straight, no two touching even diagonally, committed as a Merkle root at the "     \
    "start. Blue shoots first; the seats alternate one shot each at the other's board; each shot is answered by "    \
    "opening the cell against the root (a miss, or a hit on a ship; a ship is sunk when all its cells are hit). "    \
    "Sinking the whole enemy fleet (or the enemy's resignation) wins, once both boards are revealed and checked: a " \
    "seat whose revealed fleet is illegal loses, and a seat that does not answer or reveal within the timeout (DAA " \
    "score) loses to the other's claim."

extern const char *const kd_sb_seat_names[2];

/* The view functions of the type table (episode_type.h says what each does). */
kd_err kd_sb_view_encode(const void *state, int seat, kd_buf *out);
json_t *kd_sb_view_json(const uint8_t *view, size_t len);
json_t *kd_sb_strategy_context(const uint8_t *view, size_t len);
kd_err kd_sb_render_text(const uint8_t *view, size_t len, unsigned flags, kd_buf *out);
kd_err kd_sb_prompt(const uint8_t *view, size_t len, uint32_t episode_id, int seat, kd_buf *out);
/* View bytes back into the public fields of a state (players are left
 * zero): 0, or -1 when malformed. */
int kd_sb_view_decode(const uint8_t *data, size_t len, kd_sb_state *out);

#endif
