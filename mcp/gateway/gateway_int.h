/*
 * gateway_int.h — the gateway's shared state (gateway.c: lifecycle, views,
 * waiting for outcomes, keys; gateway_tools.c: the tools; gateway_content.c:
 * resources and prompts; gateway_types.c: what it says of its episode types).
 * Not for use outside mcp/.
 */
#ifndef KD_MCP_GATEWAY_INT_H
#define KD_MCP_GATEWAY_INT_H

#include <nng/nng.h>
#include <pthread.h>

#include "engine/chain.h"
#include "engine/netutil.h"
#include "engine/wire.h"
#include "episodes/episode_type.h"
#include "handlers/view.h"
#include "mcp/gateway/gateway.h"

#define KD_GW_RECENT 4096   /* tx outcomes remembered for late waiters */
#define KD_GW_SEEN 4096     /* block summaries remembered by log position */
#define KD_GW_MAX_AGENTS 64 /* key names read from the key directory at once */
#define KD_GW_MAX_KEYS 64   /* keys the grants and the house name */

/* A key the gateway acts with (gateway_keys.c): named by a grant, or the
 * house's. Loaded at open, wiped at close. */
typedef struct {
    char name[KD_KEY_NAME_MAX + 1];
    kd_key key;
    int granted; /* some grant holds it */
} kd_gw_key;

/* A seat grant: the keys a session may sign with and whose seats' secrets
 * it sees. Sessions carry a pointer to one as their principal. */
typedef struct kd_gw_grant {
    char name[KD_GATEWAY_GRANT_NAME_MAX]; /* as given ("agent1,agent2"): what a funding wallet's budget is kept under */
    size_t n;
    const kd_gw_key *keys[KD_GW_MAX_KEYS];
} kd_gw_grant;

/* The limits of the house's terms per type: min[i][k] and max[i][k] for
 * types->entries[i]'s house_terms[k] (gateway_terms.c). */
typedef struct {
    uint32_t min[KD_TYPES_MAX][KD_HOUSE_TERMS_MAX], max[KD_TYPES_MAX][KD_HOUSE_TERMS_MAX];
} kd_gw_limits;

typedef struct kd_gw_duties kd_gw_duties; /* gateway_duties.c */
typedef struct kd_gw_cache kd_gw_cache;   /* gateway_cache.c */

typedef struct {
    uint8_t tx_id[KD_HASH_LEN];
    uint64_t log_seq; /* the log entry of the block that carried it */
    int applied;
    uint32_t episode_id;
    char error_code[32];
    char error[KD_DETAIL_MAX];
} kd_gw_outcome;

struct kd_gateway {
    kd_gateway_options o;
    const kd_type_table *types;           /* o.types, or &own_types; entries[0] is the default type */
    kd_type_table own_types;              /* the built-in types, when the options name no table */
    json_t *params_schema[KD_TYPES_MAX];  /* types->entries[i]'s params_schema, parsed */
    json_t *command_schema[KD_TYPES_MAX]; /* and its command_schema */
    char views_url[512];
    char keys_dir[4096];
    char made_keys[KD_GW_MAX_AGENTS * 12]; /* the agent keys made at open ("agent1, agent2"), else "" */
    kd_mcp_server *srv;
    nng_socket sub;
    kd_nng_redialer *views_dialer; /* keeps dialing the views when NNG 1.5.2 gives up */
    nng_aio *recv_aio;             /* stopped by kd_gateway_close to end follow_views */
    pthread_t thread;
    int thread_started;
    pthread_mutex_t lock;
    pthread_cond_t changed;             /* a summary arrived (CLOCK_MONOTONIC) */
    kd_gw_outcome recent[KD_GW_RECENT]; /* ring buffer */
    size_t n_recent, next_recent;
    uint64_t evicted_seq;        /* newest log position whose outcomes left `recent` */
    uint64_t seen[KD_GW_SEEN];   /* seen[s % KD_GW_SEEN] == s: the summary of log entry s arrived */
    uint64_t summaries_received; /* for the drop_summaries test seam */
    int stopping;
    /* gw->lock: who hears of each view update (kd_gateway_set_view_listener) */
    void (*listener)(void *ctx, const char *event, const char *data);
    void *listener_ctx;
    /* the views thread's: the lobby's tables last sent to the page
     * (gateway_lobby.c), and the nearest deadline among them */
    char *lobby_sent;
    uint64_t lobby_next;
    /* the keys it acts with and for whom (gateway_keys.c); read-only after open */
    kd_gw_key keys[KD_GW_MAX_KEYS];
    size_t n_keys;
    kd_gw_grant *grants; /* o.grants, loaded */
    size_t n_grants;
    const kd_gw_key *house; /* the house's key, or NULL */
    uint8_t store_id[KD_STORE_ID_LEN];
    char chain[KD_CHAIN_MAX]; /* the chain the store follows: what consents sign (engine/chain.h) */
    kd_gw_limits limits;      /* of the house's terms, fixed at open (gateway_terms.c) */
    kd_gw_duties *duties;     /* the duties thread, when a key acts for someone */
    kd_gw_cache *cache;       /* the read tools' answers by log position */
};

/* An episode's line in listings and in the page's events: the summary
 * (kd_gw_summary_json) with its seat count, log position and last event.
 * New reference; NULL when out of memory. */
json_t *kd_gw_listing_json(const kd_episode_view *v);

/* An episode as the board page draws it (gateway_page.c): {"view": the
 * enriched view, "text": the type's text board (Unicode), "renderer":
 * "/types/<type>.js" or null}. New reference; NULL when out of memory. */
json_t *kd_gw_page_episode_json(const kd_episode_view *v);

/* Waits until the outcome of `tx_id` is known, from a block summary or
 * from the engine's log after position `after_seq` (the tip's last_seq
 * noted before submitting), at most the gateway's wait_ms. Errors:
 * KD_ERR_TIMEOUT (no applied block carried it in time), KD_ERR_CLOSED (the
 * gateway is closing). */
kd_err kd_gw_wait_outcome(kd_gateway *gw, const uint8_t tx_id[KD_HASH_LEN], uint64_t after_seq,
                          kd_gw_outcome *out) KD_WARN_UNUSED;

/* Reads episode `id` as a view (kd_episode_view_init'ed by the caller, who
 * finis it) in a read handle of its own: for answers made of this one view
 * (several reads of one answer share one handle and call
 * kd_episode_view_read). A type the gateway does not serve reads with
 * view->type NULL. Errors: KD_ERR_NOT_FOUND, storage errors. */
kd_err kd_gw_read_view(kd_gateway *gw, uint32_t id, kd_episode_view *out) KD_WARN_UNUSED;

/* A page of views in id order, all read through one handle (one commit):
 * the episodes after `after`, up to `max`, leaving out any this gateway
 * cannot read (a type it does not know). *views is malloc'ed: fini each of
 * the *n views, then free it; *next is the cursor of the next page, 0 when
 * this page is the last. */
kd_err kd_gw_read_page(kd_gateway *gw, uint32_t after, size_t max, kd_episode_view **views, size_t *n,
                       uint32_t *next) KD_WARN_UNUSED;
/* A listed episode: {episode_id, type, phase}, and the members status,
 * move_count and cap of its view JSON when it has them. */
json_t *kd_gw_summary_json(const kd_episode_view *v);

/* ---- keys and grants (gateway_keys.c) */

/* The public key of a participant reference: a key name in the key
 * directory, "test:NAME", or 66 hex digits. `why` names what was wrong. */
kd_err kd_gw_resolve_pubkey(kd_gateway *gw, const char *ref, kd_pubkey *pub, char *why, size_t why_len) KD_WARN_UNUSED;
/* Lists key names in the key directory (sorted); returns the count. */
size_t kd_gw_list_keys(kd_gateway *gw, char names[][KD_KEY_NAME_MAX + 1], size_t max);
/* Creates agent1, agent2, ... when the key directory holds no key. */
kd_err kd_gw_ensure_agent_keys(kd_gateway *gw, char *why, size_t why_len) KD_WARN_UNUSED;
/* Loads the keys of o.grants and o.house. Errors: KD_ERR_NOT_FOUND (a
 * named key is not in the directory), KD_ERR_INVALID_ARG (a bad name, or a
 * test key), KD_ERR_TOO_LARGE, the key file's errors, with `why`. */
kd_err kd_gw_grants_open(kd_gateway *gw, char *why, size_t why_len) KD_WARN_UNUSED;
/* Wipes and frees what kd_gw_grants_open loaded; safe after a failure. */
void kd_gw_grants_close(kd_gateway *gw);
/* The grant a session acts under, NULL for the public (no grant). */
const kd_gw_grant *kd_gw_session_grant(kd_mcp_session *s);
/* The key of `g` (may be NULL) whose public key is `pub`, or NULL. */
const kd_gw_key *kd_gw_grant_find(const kd_gw_grant *g, const kd_pubkey *pub);
/* The key of `g` (may be NULL) named `name`, or NULL. */
const kd_gw_key *kd_gw_grant_named(const kd_gw_grant *g, const char *name);
/* "agent1, agent2" (or "no key") into `out`, for messages. */
void kd_gw_grant_names(const kd_gw_grant *g, char *out, size_t len);
/* Who asks when session grant `g` (NULL: none) writes: its keys and name
 * (gateway.h kd_gateway_spend). */
void kd_gw_spend_of_session(const kd_gw_grant *g, kd_gateway_spend *out);
/* Who asks when the duties thread pays a duty with key `k`: that key, under
 * the first grant holding it, else "house:NAME". */
void kd_gw_spend_of_duty(const kd_gateway *gw, const kd_gw_key *k, kd_gateway_spend *out);
/* The key the gateway acts with for `seat` of an episode of type `t`
 * whose participant there is `pub`, without a session (commitments made
 * for the house, duties): a key some grant holds (any seat), or the house's
 * key in a seat of t->house_seats. NULL when it acts for nobody there. */
const kd_gw_key *kd_gw_acting_key(const kd_gateway *gw, const kd_episode_type *t, int seat, const kd_pubkey *pub);

/* ---- episode types (gateway_types.c) */

/* Takes `types` (NULL: the built-in types) and parses every type's params
 * and command schema. Errors: KD_ERR_INVALID_ARG (no type), KD_ERR_PARSE (a
 * schema is not a JSON object), with `why` naming the type. */
kd_err kd_gw_types_open(kd_gateway *gw, const kd_type_table *types, char *why, size_t why_len) KD_WARN_UNUSED;
/* Releases the parsed schemas; safe after a failed or no kd_gw_types_open. */
void kd_gw_types_close(kd_gateway *gw);
/* The type named `name`, the default (first registered) type when `name`
 * is NULL; NULL when there is no such type. */
const kd_episode_type *kd_gw_type(const kd_gateway *gw, const char *name);
/* The parsed params (command 0) or command (1) schema of `t` (borrowed,
 * valid while the gateway lives); NULL when `t` is not in the table. */
const json_t *kd_gw_type_schema(const kd_gateway *gw, const kd_episode_type *t, int command);
/* Entropy for agents: when `t`'s command schema has a property named
 * "entropy" and `command` (an object) lacks it, sets *filled to a copy of
 * `command` with "entropy": 32 bytes from a CSPRNG (RAND_bytes) as 64 hex
 * digits (new reference); else *filled = NULL (use `command` as is).
 * Errors: KD_ERR_NOMEM, KD_ERR_IO (the CSPRNG failed). */
kd_err kd_gw_fill_entropy(const kd_gateway *gw, const kd_episode_type *t, const json_t *command,
                          json_t **filled) KD_WARN_UNUSED;
/* The largest min_seats of the types (how many agent keys to create). */
size_t kd_gw_max_min_seats(const kd_gateway *gw);
/* "2 seats (X, O)" / "2 to 4 seats (A, B, C, D)" into `out`. Errors: KD_ERR_NOMEM. */
kd_err kd_gw_seats_sentence(const kd_episode_type *t, char *out, size_t len) KD_WARN_UNUSED;
/* The texts of the start and execute tools, built from the table
 * (malloc'ed; NULL when out of memory). */
char *kd_gw_start_description(const kd_gateway *gw);
char *kd_gw_start_schema(const kd_gateway *gw);
char *kd_gw_execute_description(const kd_gateway *gw);
char *kd_gw_execute_schema(const kd_gateway *gw);
/* The kdapp://types document: {default, types: [{name, title, summary,
 * seats {names, min, max}, params_schema, command_schema, rule_codes
 * [{code, meaning}], env}]} (new reference, NULL when out of memory). */
json_t *kd_gw_types_json(const kd_gateway *gw);
/* The params of a kdapp_start_episode call: args.params plus every other
 * top-level argument that is not the tool's own (type, participants,
 * params, episode_id). New reference, or NULL with `why` (params not an
 * object, a member given twice). */
json_t *kd_gw_start_params(json_t *args, char *why, size_t why_len);
/* Checks `value` against `schema`; 0 with `why` ("<what>/row: expected
 * integer, got string") when it does not conform. */
int kd_gw_check_json(const json_t *schema, const json_t *value, const char *what, char *why, size_t why_len);
/* KD_OK when `n` participants fit the type's seats, else
 * KD_ERR_BAD_PARTICIPANTS with `why` naming the type and its seats. */
kd_err kd_gw_check_seats(const kd_episode_type *t, size_t n, char *why, size_t why_len) KD_WARN_UNUSED;
/* {seat, name} for a seat, JSON null for KD_SEAT_NONE (new reference). */
json_t *kd_gw_seat_json(const kd_episode_type *t, int seat);
/* The legal moves `list` of `seat` as [{command, notation, ...the
 * command's members}], and, when `text` is not NULL, "legal moves for X: a
 * b c" appended to it (no NUL; "none (the game is over)" when `over`). New
 * reference, NULL when out of memory or a command does not convert. */
json_t *kd_gw_moves_json(const kd_episode_type *t, const kd_legal_moves *list, int seat, int over, kd_buf *text);

/* The MCP App widget (gateway_widget.c): its two resources, and the _meta
 * of a tool that returns a board (MCP Apps' ui.resourceUri, its older flat
 * key, and the OpenAI Apps SDK's output template). */
#define KD_GW_WIDGET_URI "ui://kdapp/board.html"
#define KD_GW_WIDGET_SKYBRIDGE_URI "ui://kdapp/board-skybridge.html"
#define KD_GW_WIDGET_META                                                                             \
    "{\"ui\":{\"resourceUri\":\"" KD_GW_WIDGET_URI "\"},\"ui/resourceUri\":\"" KD_GW_WIDGET_URI "\"," \
    "\"openai/outputTemplate\":\"" KD_GW_WIDGET_SKYBRIDGE_URI "\"}"
/* Appends the widget's document (widget.html with the styles and scripts
 * it names put inline) to `out`. Errors: KD_ERR_NOT_FOUND (a file is not
 * built in), KD_ERR_INVALID_ARG (a file holds "</"), KD_ERR_NOMEM. */
kd_err kd_gw_widget_html(kd_buf *out) KD_WARN_UNUSED;

/* Submits a payload asked for by `spend` and waits for the block that
 * carries it (see gateway_write.c). On an error `why` says what happened
 * and *maybe whether the chain may still apply it. */
kd_err kd_gw_submit_and_wait(kd_gateway *gw, const kd_buf *payload, const kd_gateway_spend *spend, kd_gw_outcome *out,
                             int *maybe, char *why, size_t why_len) KD_WARN_UNUSED;

/* ---- secrets and duties (gateway_secrets.c, gateway_duties.c) */

/* The keys that act in a new episode (kdapp_start_episode), per seat: the
 * session's granted key of the seat's participant, or the house's key in a
 * house seat (bit seat of `as_house`: the house acts there for all comers,
 * not for this session's grant); NULL where the gateway does not act. */
typedef struct {
    const kd_gw_key *seat[KD_MAX_PARTICIPANTS];
    uint32_t as_house;
} kd_gw_actors;
void kd_gw_actors_of(const kd_gateway *gw, const kd_gw_grant *g, const kd_episode_type *t, const kd_participants *parts,
                     kd_gw_actors *out);
/* Adds to the creation `params` what each acting seat commits to
 * (kd_seat_commit: a fresh binding for this store, the seed from it, the
 * type's secret_commit), overwriting what the caller put there for those
 * seats: a commitment is made by its seat's key, never taken from a caller;
 * and, in a house seat the gateway's house plays, the house's own terms
 * (its reveal depth: kd_house_terms_json; a granted key in a house seat
 * names its own in the params). An open seat's fields (participants'
 * key of zeros) are zeros, which no seed opens: the joiner's own part
 * replaces them when the table starts (gateway_tables.c).
 * Errors: the type's, with `why`. */
/* 1 when `k` is an open seat's key: 33 zero bytes (engine/wire.h). */
int kd_gw_open_key(const kd_pubkey *k);
/* An open seat's commitment in `params`: the fields a seat's commitment
 * sets, in zeros (no seed opens them). */
kd_err kd_gw_open_seat_placeholder(const kd_episode_type *t, const uint8_t store_id[KD_STORE_ID_LEN], uint32_t id,
                                   int seat, json_t *params, char *why, size_t why_len) KD_WARN_UNUSED;
kd_err kd_gw_commit_secrets(kd_gateway *gw, const kd_episode_type *t, uint32_t id, const kd_participants *parts,
                            const kd_gw_actors *actors, json_t *params, char *why, size_t why_len) KD_WARN_UNUSED;
/* The consents of every named seat (engine/rules.c: no key is seated
 * without its own signature), signed by the acting keys over the creation
 * on the store's chain (gw->chain), a table's join_timeout (0: none)
 * with them; *n of them in `out`. An open seat
 * consents when it joins. The house consents (a seat in actors->as_house)
 * only to params within its terms (kd_gw_terms_check). Errors:
 * KD_ERR_NO_CONSENT with `why` naming a named seat the session does not act
 * for and saying to leave it open or obtain that key's consent; those of
 * kd_gw_terms_check. */
kd_err kd_gw_sign_consents(const kd_gateway *gw, const kd_episode_type *t, uint32_t id, const kd_participants *parts,
                           const kd_buf *params, uint32_t join_timeout, const kd_gw_actors *actors, kd_consent *out,
                           size_t *n, char *why, size_t why_len) KD_WARN_UNUSED;

/* ---- the house's terms (gateway_terms.c) */

/* Fills `out` with the limits of every type's house terms: the types'
 * defaults, then the operator's `limits` (n of them) in order.
 * Errors: KD_ERR_INVALID_ARG with `why` (a limit that is not
 * [TYPE.]NAME=MAX or =MIN..MAX, names no term of a type's house, or comes
 * without a `house`). */
kd_err kd_gw_limits_make(const kd_type_table *types, const char *house, const char *const *limits, size_t n,
                         kd_gw_limits *out, char *why, size_t why_len) KD_WARN_UNUSED;
/* KD_OK when the creation params `params` (NewEpisode.params bytes) of a
 * `t` episode keep every term of its house within the limits. Errors:
 * KD_ERR_DENIED with `why` naming the term, the value and the limit;
 * KD_ERR_BAD_PARAMS (and the type's other refusals) when the params do not
 * resolve; KD_ERR_NOMEM. Thread-safe. */
kd_err kd_gw_terms_check(const kd_gateway *gw, const kd_episode_type *t, const kd_buf *params, char *why,
                         size_t why_len) KD_WARN_UNUSED;
/* The house's terms of `t` with the limits in effect, [{name, meaning,
 * min, max}] ([] for a type without a house); new reference, NULL when
 * out of memory. */
json_t *kd_gw_terms_json(const kd_gateway *gw, const kd_episode_type *t);
/* Adds "own_secret" to `out` (an answer about view `v`): what the seat
 * `player` names (its name or number) alone may see (type->secret_view),
 * when grant `g` holds that seat's key and the seat's commitment is that
 * key's for this store. Errors, with a sentence in `why`:
 * KD_ERR_UNSUPPORTED (the type shows no secret), KD_ERR_INVALID_ARG (no
 * such seat), KD_ERR_DENIED (the session holds no grant for that seat),
 * KD_ERR_NOT_FOUND (the commitment is not the key's), KD_ERR_NOMEM,
 * KD_ERR_DECODE. Thread-safe. */
kd_err kd_gw_own_secret(kd_gateway *gw, const kd_gw_grant *g, const kd_episode_view *v, const json_t *player,
                        json_t *out, char *why, size_t why_len) KD_WARN_UNUSED;
/* The tool result of `answer` (taken) and `text`, with "own_secret" added
 * when `args` name a "player" (kd_gw_own_secret for the session's grant);
 * an error result saying why when it cannot be shown. */
json_t *kd_gw_with_own_secret(kd_gateway *gw, kd_mcp_session *s, const kd_episode_view *v, json_t *args, json_t *answer,
                              const char *text);
/* Wakes the duties thread: the log holds a new entry (views thread, on a block summary). */
void kd_gw_duties_kick(kd_gateway *gw);
/* Starts the duties thread when the gateway acts with some key; stops it. */
kd_err kd_gw_duties_start(kd_gateway *gw) KD_WARN_UNUSED;
void kd_gw_duties_stop(kd_gateway *gw);

/* ---- the cache of answers (gateway_cache.c) */

#define KD_GW_CACHE_PLAYER_MAX 64

/* What an answer is a function of. Zero it (memset) before filling it. */
typedef struct {
    int tool;                            /* which read tool */
    uint32_t episode_id;                 /* its episode_id argument */
    const void *view_class;              /* NULL: the public; else the grant deciding what "player" may see */
    char player[KD_GW_CACHE_PLAYER_MAX]; /* the "player" argument as compact JSON, "" when absent */
    uint64_t seq;                        /* the store's newest log entry, read with the answer */
    uint8_t digest[KD_HASH_LEN];         /* and its state digest */
} kd_gw_cache_key;

/* A cache of 512 answers and 1 MiB at most. KD_ERR_NOMEM. */
kd_err kd_gw_cache_alloc(kd_gw_cache **out) KD_WARN_UNUSED;
/* Frees it and drops its answers; NULL is a no-op. No call may run. */
void kd_gw_cache_free(kd_gw_cache *c);
/* The answer kept for exactly `k` (a reference for the caller), or NULL.
 * Thread-safe. */
kd_mcp_encoded *kd_gw_cache_get(kd_gw_cache *c, const kd_gw_cache_key *k);
/* Keeps `e` (takes its own reference) for `k`, unless a newer position was
 * kept already or it is too large; a newer position drops every older
 * answer. Thread-safe. */
void kd_gw_cache_put(kd_gw_cache *c, const kd_gw_cache_key *k, kd_mcp_encoded *e);
void kd_gw_cache_stats(kd_gw_cache *c, kd_gateway_cache_stats *out);

/* ---- the tools (gateway_tools.c: reads and registration; gateway_write.c) */

/* A failed tool result (isError) with a printf-formatted text. */
json_t *kd_gw_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "episode 5 (<type>)\n" and the type's text board; malloc'ed, NULL when
 * out of memory. */
char *kd_gw_view_text(const kd_episode_view *v);
/* Reads a view (kd_episode_view_init'ed by the caller) or makes the tool
 * error for it: unknown episode, or a type this gateway does not serve. */
json_t *kd_gw_read_view_or_fail(kd_gateway *gw, uint32_t id, kd_episode_view *v);
/* The legal moves of the seat to move in a view's state, and their text
 * ("legal moves for X: (0, 0) ..." into `text`, NUL-terminated). */
json_t *kd_gw_view_moves(const kd_episode_view *v, char *text, size_t text_len);
/* The writing tools' calls (kd_mcp_tool.call). */
json_t *kd_gw_tool_start(void *ctx, kd_mcp_session *s, json_t *args, int *code, char *msg, size_t len);
json_t *kd_gw_tool_execute(void *ctx, kd_mcp_session *s, json_t *args, int *code, char *msg, size_t len);
json_t *kd_gw_tool_reorg(void *ctx, kd_mcp_session *s, json_t *args, int *code, char *msg, size_t len);
json_t *kd_gw_tool_submit_tx(void *ctx, kd_mcp_session *s, json_t *args, int *code, char *msg, size_t len);

/* Registration of the kinds of content. */
kd_err kd_gw_add_tools(kd_gateway *gw) KD_WARN_UNUSED;
/* gateway_tables.c: kdapp_list_tables, kdapp_join_episode,
 * kdapp_cancel_table; the tables waiting for players as kdapp://tables
 * shows them ({"tables": [...]}, new reference; NULL when unreadable). */
kd_err kd_gw_add_table_tools(kd_gateway *gw) KD_WARN_UNUSED;
json_t *kd_gw_tables_json(kd_gateway *gw);
/* One table as kdapp_list_tables shows it, its status judged at the tip's
 * DAA score `tip` (new reference, NULL when out of memory), with `text`
 * (may be NULL) one line of it. */
json_t *kd_gw_table_json(kd_gateway *gw, const kd_table_info *t, uint64_t tip, kd_buf *text);
/* gateway_lobby.c: the board page's lobby, /api/tables's answer, its
 * "your_keys" those of grant `g` (may be NULL); errors KD_ERR_NOMEM, or
 * the store's. */
kd_err kd_gw_lobby_json(kd_gateway *gw, const kd_gw_grant *g, json_t **out) KD_WARN_UNUSED;
/* At a block summary (views thread): sends the page's "tables" event when
 * the lobby changed; `may_change`: the block applied a transaction or was
 * reverted. */
void kd_gw_lobby_block(kd_gateway *gw, int may_change);
/* The answer of kdapp_start_episode for a creation that left seats open:
 * the table waiting for players (a tool result), or NULL when `id` is no
 * waiting table. */
json_t *kd_gw_table_result(kd_gateway *gw, uint32_t id);
kd_err kd_gw_add_content(kd_gateway *gw) KD_WARN_UNUSED;
kd_err kd_gw_add_widget(kd_gateway *gw) KD_WARN_UNUSED;
/* gateway_ratings.c: the tool kdapp_get_ratings and the resource
 * kdapp://ratings. */
kd_err kd_gw_add_ratings(kd_gateway *gw) KD_WARN_UNUSED;
/* Tells kdapp://ratings's subscribers that a block was applied or reverted. */
void kd_gw_ratings_changed(kd_gateway *gw);
/* The ratings (handlers/ratings.h) of `type` (NULL: all) as JSON in *out
 * (new reference) and, when `text` is not NULL, as text appended to it;
 * one read of the store. Errors: KD_ERR_UNKNOWN_TYPE, storage errors,
 * KD_ERR_NOMEM. */
kd_err kd_gw_ratings_json(kd_gateway *gw, const char *type, json_t **out, kd_buf *text) KD_WARN_UNUSED;

#endif
