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

#include "engine/netutil.h"
#include "episodes/episode_type.h"
#include "handlers/view.h"
#include "mcp/gateway/gateway.h"

#define KD_GW_RECENT 4096     /* tx outcomes remembered for late waiters */
#define KD_GW_SEEN 4096       /* block summaries remembered by log position */
#define KD_GW_MAX_AGENTS 64   /* keys listed by kdapp_get_agent_pubkeys */
#define KD_GW_DUTY_QUEUE 1024 /* episodes waiting for the duties thread */

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
    /* gw->lock: episodes whose seats may owe a duty (gateway_duties.c) */
    uint32_t duties[KD_GW_DUTY_QUEUE];
    size_t n_duties;
    pthread_cond_t duty_cond;
    pthread_t duty_thread;
    int duties_started;
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

/* Resolves a participant or signer reference (key name, "test:NAME"), or a
 * 66-hex pubkey when `allow_pubkey`. `why` names what was wrong. */
kd_err kd_gw_resolve_key(kd_gateway *gw, const char *ref, int allow_pubkey, kd_key *key, kd_pubkey *pub,
                         int *has_secret, char *why, size_t why_len) KD_WARN_UNUSED;
/* Finds a key in the key directory whose public key is `pub`. */
kd_err kd_gw_find_key(kd_gateway *gw, const kd_pubkey *pub, kd_key *key, char *name, size_t name_len) KD_WARN_UNUSED;
/* Lists key names in the key directory (sorted); returns the count. */
size_t kd_gw_list_keys(kd_gateway *gw, char names[][KD_KEY_NAME_MAX + 1], size_t max);

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

/* Submits a payload and waits for the block that carries it (see
 * gateway_tools.c). On an error `why` says what happened and *maybe
 * whether the chain may still apply it. */
kd_err kd_gw_submit_and_wait(kd_gateway *gw, const kd_buf *payload, kd_gw_outcome *out, int *maybe, char *why,
                             size_t why_len) KD_WARN_UNUSED;

/* Secrets (gateway_duties.c). Sets in the creation `params` what each seat
 * of `parts` whose key the gateway holds commits to (kd_seat_commit of its
 * key for episode `id` and this gateway's store). Errors: the type's, with
 * `why`; KD_ERR_IO (no store id or no random bytes). */
kd_err kd_gw_commit_secrets(kd_gateway *gw, const kd_episode_type *t, uint32_t id, const kd_participants *parts,
                            json_t *params, char *why, size_t why_len) KD_WARN_UNUSED;
/* The NewEpisode payload of episode `id` with the consents of the seats
 * the type requires (ops->consent_seats) whose keys the gateway holds,
 * each signed over these params bytes; a required seat whose key is
 * elsewhere must consent itself (the engine refuses the creation
 * no_consent otherwise). Errors: KD_ERR_NOMEM, KD_ERR_BAD_KEY. */
kd_err kd_gw_creation_payload(kd_gateway *gw, const kd_episode_type *t, uint32_t id, const kd_participants *parts,
                              const uint8_t *params, size_t len, kd_buf *payload) KD_WARN_UNUSED;
/* Adds "own_secret" to `out` (an answer about view `v`): what the seat
 * `player` names (its name or number) alone may see, from its key
 * (type->secret_view), when this gateway holds that key. Errors, with a
 * sentence in `why`: KD_ERR_UNSUPPORTED (the type shows no secret),
 * KD_ERR_INVALID_ARG (no such seat), KD_ERR_NOT_FOUND (the key is not
 * here), KD_ERR_NOMEM, KD_ERR_DECODE. Thread-safe. */
kd_err kd_gw_own_secret(kd_gateway *gw, const kd_episode_view *v, const json_t *player, json_t *out, char *why,
                        size_t why_len) KD_WARN_UNUSED;
/* The tool result of `answer` (taken) and `text`, with "own_secret" added
 * when `args` name a "player" (kd_gw_own_secret); an error result saying
 * why when it cannot be shown. */
json_t *kd_gw_with_own_secret(kd_gateway *gw, const kd_episode_view *v, json_t *args, json_t *answer, const char *text);
/* Queues episode `id` for the duties thread (from the views thread). */
void kd_gw_duties_notify(kd_gateway *gw, uint32_t id);
/* Starts and stops the duties thread (stop sets gw->stopping). */
kd_err kd_gw_duties_start(kd_gateway *gw) KD_WARN_UNUSED;
void kd_gw_duties_stop(kd_gateway *gw);

/* Registration of the kinds of content. */
kd_err kd_gw_add_tools(kd_gateway *gw) KD_WARN_UNUSED;
kd_err kd_gw_add_content(kd_gateway *gw) KD_WARN_UNUSED;
kd_err kd_gw_add_widget(kd_gateway *gw) KD_WARN_UNUSED;

#endif
