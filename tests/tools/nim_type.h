/*
 * nim_type.h — a small game that exists only in the tests: Nim with one
 * heap. Two seats take turns taking 1..max_take tokens; whoever takes the
 * last token wins. Params {"heap": 1..40, "max_take": 1..5} (defaults 10
 * and 3); a command takes {"take": n} (one byte on the wire). Registered by
 * the tests themselves (kd_type_table_add), to show that perft, the
 * simulator and block scripts need no change for a new type.
 */
#ifndef KD_TESTS_TOOLS_NIM_TYPE_H
#define KD_TESTS_TOOLS_NIM_TYPE_H

#include "episodes/episode_type.h"

typedef struct {
    uint8_t heap, max_take, turn, phase, winner;
    uint32_t moves;
    kd_pubkey players[2];
} nim_state;

extern const kd_episode_type nim_type;

#endif
