/*
 * episode.h — the interface an episode type implements, and its registry.
 *
 * An episode type is a table of functions registered by name. The engine
 * owns storage, ordering, signatures and rollback bookkeeping; the type owns
 * its rules. Execution must be a pure function of (state, command,
 * authorising key, metadata): no clock, no environment, no randomness. Any
 * setting that changes the rules is resolved into the effective parameters
 * at creation (resolve_params) and kept in the state, so a replay under
 * another environment yields the same bytes.
 *
 * States and undo records live in caller-provided storage of state_size /
 * undo_size bytes (plain structs, no pointers), which lets the engine keep a
 * block's working set without allocation per move. That storage is aligned
 * for any type: a caller keeping records in rows spaces them
 * kd_record_stride(size) bytes apart.
 */
#ifndef KD_ENGINE_EPISODE_H
#define KD_ENGINE_EPISODE_H

#include <stddef.h>
#include <stdint.h>

#include "engine/bytes.h"
#include "engine/err.h"

#define KD_HASH_LEN 32
/* The alignment of every state and undo record a caller provides. */
#define KD_RECORD_ALIGN _Alignof(max_align_t)

/* The distance between records of `size` bytes kept in one row of storage,
 * so each stays aligned to KD_RECORD_ALIGN. */
static inline size_t kd_record_stride(size_t size)
{
    return (size + KD_RECORD_ALIGN - 1) / KD_RECORD_ALIGN * KD_RECORD_ALIGN;
}

#define KD_PUBKEY_LEN 33
#define KD_MAX_PARTICIPANTS 8
#define KD_TYPE_NAME_MAX 32

typedef struct {
    uint8_t bytes[KD_PUBKEY_LEN];
} kd_pubkey;

typedef struct {
    kd_pubkey keys[KD_MAX_PARTICIPANTS];
    size_t count;
} kd_participants;

#define KD_RULE_CODE_MAX 32
#define KD_REJECT_DETAIL_MAX 160

/*
 * A rejected command or creation: which rule, and a sentence for people
 * ("cell (1,2) is occupied by O"). `code` is set with KD_ERR_RULE: the
 * type's own stable short code ("cell_occupied", see kd_rule_code in
 * episodes/episode_type.h), which the engine stores and sends in place of
 * the generic "rule". `detail` may be empty.
 */
typedef struct {
    char code[KD_RULE_CODE_MAX];
    char detail[KD_REJECT_DETAIL_MAX];
} kd_reject;

/* Writes a sentence (printf format) into `why` (may be NULL; truncated to
 * `len`, always NUL-terminated when len > 0): the one sentence helper of
 * every "char *why, size_t why_len" out-parameter. */
void kd_reject_write(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Writes the sentence (printf format) into `rej` (may be NULL) and returns
 * `err`: `return kd_reject_say(rej, KD_ERR_BAD_PARAMS, "cap %u ...", cap);` */
kd_err kd_reject_say(kd_reject *rej, kd_err err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A refusal by a rule of the type: writes `code` (a kd_rule_code of the
 * type, under KD_RULE_CODE_MAX bytes) and the sentence into `rej` (may be
 * NULL) and returns KD_ERR_RULE. */
kd_err kd_reject_rule(kd_reject *rej, const char *code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The short code a rejection is stored and sent under: rej->code for
 * KD_ERR_RULE (or "rule" when it is empty), else kd_err_code(err). */
const char *kd_reject_code(kd_err err, const kd_reject *rej);

/* The verdict of a type's precheck (kd_episode_ops below) on the command
 * being executed, found ahead of the writer. */
typedef struct {
    kd_err verdict; /* KD_OK: the check holds; else the refusal execute gives (KD_ERR_RULE with rej) */
    kd_reject rej;
} kd_precheck;

/* Where a command or creation happens: the only outside input an episode may
 * use besides the command itself. Pointers are valid for the call only. */
typedef struct {
    const uint8_t *block_hash; /* KD_HASH_LEN bytes */
    uint64_t daa;
    uint64_t time_ms;
    const uint8_t *tx_id; /* KD_HASH_LEN bytes */
    uint32_t episode_id;
    /* For execute of a type with a precheck: that check's verdict on this
     * very command and state, when the engine has it (computed ahead by its
     * verifier pool for the same key, or a replay of its own log that
     * applied the command); NULL: the type makes the check itself. It
     * never changes what execute decides, only whether it recomputes it. */
    const kd_precheck *precheck;
} kd_block_meta;

typedef struct kd_episode_ops {
    const char *type_name;
    size_t state_size;
    size_t undo_size;
    /* Turns NewEpisode params (possibly empty) into the effective params
     * with the type's defaults, taken from `config` (the pointer given at
     * registration), resolved. Errors: KD_ERR_BAD_PARAMS (detail in rej). */
    kd_err (*resolve_params)(const void *config, const uint8_t *params, size_t len, kd_buf *effective, kd_reject *rej);
    /* Creates the initial state from effective params. Errors:
     * KD_ERR_BAD_PARTICIPANTS, KD_ERR_BAD_PARAMS. */
    kd_err (*init)(void *state, const kd_participants *participants, const uint8_t *params, size_t len,
                   const kd_block_meta *meta, kd_reject *rej);
    /* Applies a command. `signer` is the verified signer's key, or NULL for
     * an unsigned command. On success fills `undo`; on any error `state` is
     * untouched and the error names the rule that refused it. */
    kd_err (*execute)(void *state, const uint8_t *command, size_t len, const kd_pubkey *signer,
                      const kd_block_meta *meta, void *undo, kd_reject *rej);
    /* Exactly inverts the execute that produced `undo`. Undo records come
     * from disk: one that does not belong to the state's last command is
     * refused with KD_ERR_DECODE and the state is left untouched. */
    kd_err (*rollback)(void *state, const void *undo);

    /* Deterministic encodings (appended to `out`). Decoders return
     * KD_ERR_DECODE on malformed input. */
    kd_err (*encode_state)(const void *state, kd_buf *out);
    kd_err (*decode_state)(const uint8_t *data, size_t len, void *state);
    kd_err (*encode_undo)(const void *undo, kd_buf *out);
    kd_err (*decode_undo)(const uint8_t *data, size_t len, void *undo);

    /* Open seats (issue 39). Optional (NULL: a joiner brings no params of
     * its own, and a join's params must be empty): checks a stranger's
     * part of the params for open seat `seat` (JoinEpisode.params), a
     * params message holding that seat's commitment (its binding, its
     * root) and nothing else; the engine appends it to the creation's
     * params when the last seat is taken. Errors: KD_ERR_BAD_PARAMS
     * (detail in rej). */
    kd_err (*join_params)(int seat, const uint8_t *params, size_t len, kd_reject *rej);
    /*
     * Optional, both or neither: a costly part of execute that is a pure
     * function of the state and the command (a zero-knowledge proof), which
     * the engine's verifier pool runs ahead of the single writer as it
     * verifies signatures (engine/sigcheck.h), on the state the store holds
     * before the request.
     *
     * precheck_key: 1 when `command` met by `state` has such a check, with
     * `key` the SHA-256 of everything its verdict depends on (the type
     * hashes what the check reads: its statement and its proof); 0 when it
     * has none. Cheap: the writer calls it for every command of the type.
     * precheck: the verdict, as execute would reach it (KD_OK, or the
     * refusal with rej), or KD_ERR_NOMEM. Both pure and thread-safe.
     *
     * The writer looks the verdict up by the key it computes on the state
     * it has: equal keys give the same verdict, so a state the pool
     * predicted wrongly costs a check in execute, never a wrong one.
     */
    int (*precheck_key)(const void *state, const uint8_t *command, size_t len, const kd_pubkey *signer,
                        uint32_t episode_id, uint8_t key[KD_HASH_LEN]);
    kd_err (*precheck)(const void *state, const uint8_t *command, size_t len, const kd_pubkey *signer,
                       uint32_t episode_id, kd_reject *rej);
} kd_episode_ops;

/* ---------------------------------------------------------------- registry */

#define KD_REGISTRY_MAX 16

typedef struct {
    const kd_episode_ops *ops;
    const void *config;
} kd_registry_entry;

/* The episode types an engine knows. Caller's storage; no fini needed. */
typedef struct {
    kd_registry_entry entries[KD_REGISTRY_MAX];
    size_t count;
} kd_registry;

void kd_registry_init(kd_registry *reg);
/* Registers a type; `config` (may be NULL) is handed to resolve_params and
 * must outlive the registry. Errors: KD_ERR_INVALID_ARG (duplicate name or
 * incomplete ops), KD_ERR_TOO_LARGE (registry full). */
kd_err kd_registry_add(kd_registry *reg, const kd_episode_ops *ops, const void *config) KD_WARN_UNUSED;
/* Returns the entry for `type_name`, or NULL. */
const kd_registry_entry *kd_registry_find(const kd_registry *reg, const char *type_name);

#endif
