/*
 * prompt.h — the turn prompt for a player: the rule in force, the board,
 * the recent moves oldest to newest and the mark that will be removed next
 * (stress mode), or the classic prompt. The MCP prompt kdapp_turn and the
 * `kdapp play` language-model player both use it, so agents see one text.
 */
#ifndef KD_HANDLERS_PROMPT_H
#define KD_HANDLERS_PROMPT_H

#include "handlers/view.h"

/* Appends the prompt for `player` ('X' or 'O') to `out` (NUL-terminated).
 * Errors: KD_ERR_INVALID_ARG (not a tic-tac-toe view, or player not X/O),
 * KD_ERR_NOMEM. */
kd_err kd_turn_prompt(const kd_episode_view *view, char player, kd_buf *out) KD_WARN_UNUSED;

#endif
