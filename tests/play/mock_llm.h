/*
 * mock_llm.h — a tiny OpenAI-compatible chat-completions endpoint for the
 * play tests, on libmicrohttpd, bound to 127.0.0.1 on a free port.
 *
 * It records every request (the parsed JSON body and its Authorization
 * header) and answers from a script of reply kinds, one per request:
 *
 *   "legal"    the first legal move listed in the conversation's turn prompt
 *   "illegal"  an occupied cell (one not listed as legal), as clean JSON
 *   "prose"    a sentence with no JSON in it
 *   "fence"    the first legal move inside a ```json code fence
 *   "=TEXT"    TEXT verbatim
 *   "!CODE"    an HTTP error status CODE
 *
 * When the script runs out it answers "legal".
 */
#ifndef KD_TESTS_PLAY_MOCK_LLM_H
#define KD_TESTS_PLAY_MOCK_LLM_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

typedef struct mock_llm mock_llm;

/* Starts the endpoint; aborts the test on failure. `script` is borrowed
 * and must outlive the mock. */
mock_llm *mock_llm_start(const char *const *script, size_t n_script);
void mock_llm_stop(mock_llm *m);

/* "http://127.0.0.1:PORT/v1" */
const char *mock_llm_url(const mock_llm *m);

/* Requests so far (a new reference to an array of bodies). */
json_t *mock_llm_requests(mock_llm *m);

/* The Authorization header of the last request ("" when absent). */
void mock_llm_last_auth(mock_llm *m, char *out, size_t len);

#endif
