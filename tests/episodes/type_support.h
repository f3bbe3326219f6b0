/*
 * type_support.h — what every episode type's table test (tictactoe_,
 * fourinarow_, checkers_, chess_type_test.c) checks the same way: test JSON
 * parsed or the test fails, JSON compared with a readable difference, a
 * state's view bytes, a type's rule codes. Criterion assertions; one
 * thread per test.
 */
#ifndef KD_TESTS_EPISODES_TYPE_SUPPORT_H
#define KD_TESTS_EPISODES_TYPE_SUPPORT_H

#include <jansson.h>

#include "engine/bytes.h"
#include "episodes/episode_type.h"

/* The JSON of `text` (any value; new reference); the test fails when it
 * does not parse. */
json_t *type_test_parse(const char *text);
/* Expects `got` (not NULL; borrowed) to equal the JSON of `want`, printing
 * both when they differ. */
void type_test_expect_json(const json_t *got, const char *want);
/* Replaces `out`'s bytes with the view of `state` for `seat`
 * (KD_SEAT_PUBLIC: the public view); the test fails when it cannot. */
void type_test_view(const kd_episode_type *type, const void *state, int seat, kd_buf *out);
/* Whether `code` is one of the type's rule codes. */
int type_test_is_rule_code(const kd_episode_type *type, const char *code);

#endif
