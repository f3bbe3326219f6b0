/*
 * gw_env.h — the kdapp gateway in process, for tests: a real engine on a
 * fresh store, the gateway on it with the grants and the house a test
 * asks for, and MCP sessions, each with the principal of a grant or none
 * (the public). The chain is this file's submit, which applies each
 * payload in a block of its own at once (the gateway finds the outcome in
 * the engine's log: nothing publishes). Keys agent1, agent2, agent3 and
 * house are made in the key directory before the gateway opens.
 *
 * One environment at a time (E), set up by each suite's .init.
 */
#ifndef KD_TESTS_GW_ENV_H
#define KD_TESTS_GW_ENV_H

#include <jansson.h>
#include <stdint.h>

#include "engine/crypto.h"
#include "engine/engine.h"
#include "episodes/episode_type.h"
#include "mcp/gateway/gateway.h"

#define GW_ENV_SESSIONS 4

typedef struct {
    kd_type_table types;
    kd_registry reg;
    kd_engine *engine;
    kd_mcp_server *srv;
    kd_gateway *gw;
    kd_mcp_session *sessions[GW_ENV_SESSIONS];
    kd_mcp_session *s; /* the session requests go to */
    char dir[512], keys[512];
    int next_id;
    uint64_t blocks; /* blocks applied */
    int clock_daa;   /* 1: a block's DAA score is 1 + ms since open / 100 (Kaspa's 10 a second); 0: its number */
    uint64_t t0_ms;
    kd_buf inject;             /* a payload the chain applies, in a block of its own, before the gateway's next one */
    kd_gateway_spend spend[2]; /* who asked for the last payload submitted: [0] a session's, [1] a duty's */
    uint64_t spends[2];        /* payloads submitted by sessions, by duties (gw_last_spend reads them) */
    int refuse_unpaid;         /* 1: refuse a session without a grant (KD_ERR_DENIED), as a chain that costs coins */
    int hold_duties; /* 1: a duty's payload is taken and held, never applied (a Kaspa node's mempool before its block)
                      */
    kd_buf held;     /* the episode ids (uint32_t) of the duties held, in the order submitted */
} gw_env;

extern gw_env E;

/* Opens E: the built-in types plus `extra` (may be NULL), the gateway with
 * `grants` (n of them; each "name,name") and `house` (may be NULL), and
 * one initialized session per grant (sessions[i] has grant i) plus a
 * public one (sessions[n]). E.s is sessions[0]. Asserts on failure. */
void gw_env_open(const kd_episode_type *extra, const char *const *grants, size_t n, const char *house);
/* The same, with the house's operator limits `limits` (n_limits of them,
 * kd_gateway_options.house_limits). */
void gw_env_open_limits(const kd_episode_type *extra, const char *const *grants, size_t n, const char *house,
                        const char *const *limits, size_t n_limits);
void gw_env_close(void);

/* The JSON-RPC result (new reference), or the error when `want_error`. */
json_t *gw_request(const char *method, json_t *params, int want_error);
/* tools/call on E.s; the whole CallToolResult. Asserts isError as wanted. */
json_t *gw_tool(const char *name, const char *args_json, int want_error);
const char *gw_text_of(json_t *r);
json_t *gw_sc(json_t *r);
/* An error result whose text holds every one of `parts` (NULL-ended). */
void gw_refused(const char *name, const char *args_json, const char *const *parts);
#define GW_REFUSED(name, args, ...) gw_refused(name, args, (const char *const[]){__VA_ARGS__, NULL})
json_int_t gw_int_at(json_t *obj, const char *key);
/* kdapp_start_episode; the episode id. */
uint32_t gw_start(const char *args_json);
/* kdapp_execute_command on episode `id` with the members `rest_json`. */
json_t *gw_execute(uint32_t id, const char *rest_json, int want_error);
json_t *gw_legal_moves(uint32_t id);
/* Loads a key of E.keys (or "test:NAME"). */
void gw_key(const char *name, kd_key *out);
/* Who asked for the last payload submitted by a session (duty 0) or by the
 * duties thread (duty 1), into *out; returns how many were. Thread-safe. */
uint64_t gw_last_spend(int duty, kd_gateway_spend *out);
/* How many duty payloads of episode `id` the chain holds (hold_duties). Thread-safe. */
size_t gw_held(uint32_t id);
/* Applies one payload in a block of its own at DAA `daa` (0: as the
 * gateway's blocks get it). Safe beside the gateway's own submits. */
void gw_apply(const uint8_t *payload, size_t len, uint64_t daa);

/* Reverts the last block applied (its number is not used again). */
void gw_revert_last(void);
/* Creates episode `id` of type `type_name` with a raw payload, as a client
 * that needs no gateway would: the participants by key name (of E.keys, or
 * "test:NAME"); each seat in the bitmask `commit_seats` commits with its
 * key for the store `store` (NULL: this store), and each seat the type
 * requires consent of signs the creation with its key. `params` (taken;
 * NULL: {}) are the rest. Asserts the creation applied when `want`. */
void gw_create_raw(uint32_t id, const char *type_name, const char *const *names, size_t n, unsigned commit_seats,
                   const uint8_t *store, json_t *params, int want);
/* Applies `command` (JSON of the episode's type, taken) signed by the key
 * `signer` for move counter `counter`, in a block of its own. */
void gw_command_raw(uint32_t id, const char *type_name, const char *signer, int seat, json_t *command,
                    uint64_t counter);

#endif
