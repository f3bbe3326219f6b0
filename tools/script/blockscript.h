/*
 * blockscript.h — the block script: chain events as JSON Lines, for people
 * and tests.
 *
 * A block script describes what a chain listener would report: blocks that
 * were accepted (with their transactions) and blocks that were reverted. Each
 * non-blank line is one JSON object; lines whose first non-blank character is
 * '#' are comments.
 *
 *     # two players open a game, X plays, the block is reorged away
 *     {"accept": {"hash": "b1", "txs": [{"new_episode": {"id": 7,
 *         "type": "tictactoe", "participants": ["test:alice", "test:bob"]}}]}}
 *     {"accept": {"hash": "b2", "daa": 5, "time": 500, "txs": [{"move":
 *         {"episode": 7, "row": 0, "col": 2, "player": "X", "signer": "test:alice"}}]}}
 *     {"revert": "b2"}
 *
 * (each event on one line in a real script). The grammar:
 *
 *   event   {"accept": {"hash": H, "daa": N?, "time": MS?, "txs": [TX...]?}}
 *           {"revert": H}
 *   TX      {"new_episode": {"id": 1..2^32-1, "type": S, "participants": [P...],
 *                            "params": {...}? | "cap": 0..255 | null ?,
 *                            "consent": [KEYREF...]?}, "tx_id": H?}
 *           {"command": {"episode": 1..2^32-1, "signer": KEYREF?, "counter": N?,
 *                        "episode_type": S?, "command": {...}}, "tx_id": H?}
 *           {"command": {"episode": ..., "signer": ..., ...the command's own members}}
 *           {"move": {"episode": 1..2^32-1, "row": 0..255, "col": 0..255,
 *                     "player": "X"|"O"|0|1, "signer": KEYREF?, "counter": N?},
 *            "tx_id": H?}
 *           {"payload_hex": "even number of hex digits, may be empty", "tx_id": H?}
 *   H       64 hex digits (the raw 32-byte hash), or any other non-empty
 *           string, which stands for its SHA-256 ("b1" is shorthand). A
 *           string of only hex digits that is 32 or more characters long
 *           must be exactly 64 digits: it is taken for a mistyped raw hash.
 *   P       66 hex digits (a compressed pubkey; its curve validity is left to
 *           the engine so tests can exercise the rejection), or a KEYREF,
 *           resolved to its public key. An all-hex string of 32 or more
 *           characters must be exactly 66 digits.
 *   KEYREF  "test:NAME" (deterministic test key) or the name of a key file in
 *           the key directory (kd_key_resolve). A raw pubkey cannot sign.
 *
 * "consent" (at most 8 keys): each key consents to the creation as the
 * seat of the first participant whose pubkey it is; a key that is no
 * participant is an error naming the line and the key. Without it, every
 * participant given by key reference consents as its own seat (the engine
 * refuses a creation a named seat did not sign: engine/rules.c); a raw
 * pubkey cannot, and "consent": [] gives none. The parser
 * resolves the keys; the feed signs (kd_feeder_new_episode:
 * kd_consent_sign over the episode id, type, participants and the
 * converted params bytes, for the chain of the store it feeds, which the
 * consent names: engine/chain.h). The same key twice is not refused here,
 * so the engine's refusal of a seat consenting twice can be tested.
 *
 * Generic forms, for any registered type (episode_type.h): "params" is the
 * type's params JSON (params_from_json) and a command is the type's command
 * JSON (command_from_json), given as the "command" member or inline (every
 * member but episode, signer, counter and episode_type). A command is
 * converted with the type of its episode: the type of an earlier
 * new_episode of the same script, else "episode_type". The signer's seat,
 * when the script created the episode, is handed to command_from_json.
 *
 * Tic-tac-toe shorthand (kept from before the generic forms): "cap" in a
 * new_episode is params {"cap": N} (0: the engine default), and "move" is
 * the command {"row", "col", "player"} of a "tictactoe" episode.
 *
 * Defaults: daa = the previous accept's daa + 1 (the first accept gets 1),
 * time = daa * 100, txs = none, tx_id = SHA-256(block hash || index as u32
 * BE) with the 0-based index in `txs`. Row and column are not range-checked
 * beyond 255: out-of-bounds moves must reach the engine so its rejection can
 * be tested. Unknown fields, wrong types, missing required fields, duplicate
 * keys and bad hex are errors that name the line and the place.
 *
 * The parser produces domain structures and never calls the engine. Signing
 * happens later, in the feed, because the signed digests depend on where
 * the transaction is applied: a move's on the episode's move counter at
 * apply time, a consent's on the chain of the store; the parser only
 * resolves keys.
 *
 * Nothing here keeps global state; all functions are reentrant and a script
 * may be used by one thread at a time.
 */
#ifndef KD_TOOLS_BLOCKSCRIPT_H
#define KD_TOOLS_BLOCKSCRIPT_H

#include <stddef.h>
#include <stdint.h>

#include "engine/bytes.h"
#include "engine/crypto.h"
#include "engine/episode.h"
#include "engine/err.h"
#include "engine/wire.h"
#include "episodes/episode_type.h"

/* Longest accepted line in bytes, without its newline. */
#define KD_SCRIPT_MAX_LINE ((size_t)1 << 20)
/* Most transactions in one accept. */
#define KD_SCRIPT_MAX_TXS 10000
/* Room for a signer reference, NUL included ("test:" + a 64-char name fits). */
#define KD_SCRIPT_SIGNER_REF_MAX 80

typedef enum { KD_SCRIPT_ACCEPT = 1, KD_SCRIPT_REVERT = 2 } kd_script_op_kind;

typedef enum {
    KD_SCRIPT_TX_NEW_EPISODE = 1,
    KD_SCRIPT_TX_MOVE = 2, /* the tic-tac-toe shorthand */
    KD_SCRIPT_TX_RAW = 3,
    KD_SCRIPT_TX_COMMAND = 4, /* the generic form */
} kd_script_tx_kind;

/* A new_episode's consent: the key, its seat and the key as written. */
typedef struct {
    kd_key key;                         /* resolved key pair (holds a secret; kd_script_op_fini wipes it) */
    uint32_t seat;                      /* the participant it is */
    char ref[KD_SCRIPT_SIGNER_REF_MAX]; /* as written: "test:house" */
} kd_script_consent;

/* One transaction of an accepted block. Fields not used by `kind` are zero. */
typedef struct {
    kd_script_tx_kind kind;
    uint8_t tx_id[KD_HASH_LEN];
    uint32_t episode_id; /* new_episode id / move episode */
    /* new_episode */
    char type[KD_TYPE_NAME_MAX]; /* NUL-terminated; for a command: its episode's type */
    kd_participants participants;
    int has_cap; /* shorthand "cap"; 0: the engine's default applies */
    uint32_t cap;
    kd_script_consent *consents; /* owned; "consent", consent_count entries */
    size_t consent_count;
    int consent_implicit; /* no "consent" was written: every participant given by key reference consents */
    /* generic forms: the "params" / command JSON as written, compact text
     * (owned; NULL for the shorthand and when a new_episode has no params) */
    char *json;
    /* new_episode: the NewEpisode params; move and command: the command bytes
     * (owned; converted through the type table at parse time) */
    uint8_t *body;
    size_t body_len;
    /* move (shorthand) */
    uint8_t row, col, player;                  /* player 0 = X, 1 = O */
    int has_signer;                            /* 0: unsigned command */
    kd_key signer;                             /* resolved key pair (holds a secret) */
    char signer_ref[KD_SCRIPT_SIGNER_REF_MAX]; /* as written: "test:alice" */
    int has_counter;                           /* 0: the feed uses the episode's counter */
    uint64_t counter;
    /* raw */
    uint8_t *raw; /* owned; NULL when raw_len is 0 */
    size_t raw_len;
} kd_script_tx;

/* One event. A revert has only `hash` (and `line`). */
typedef struct {
    kd_script_op_kind kind;
    unsigned line; /* 1-based source line */
    uint8_t hash[KD_HASH_LEN];
    uint64_t daa, time_ms;
    kd_script_tx *txs; /* owned, tx_count entries */
    size_t tx_count;
} kd_script_op;

/* An episode a script created: what its later commands convert with. */
typedef struct {
    uint32_t id;
    char type[KD_TYPE_NAME_MAX];
    kd_participants participants;
} kd_script_episode;

/* A parsed script: ops in source order. Caller's storage. */
typedef struct {
    kd_script_op *ops;
    size_t count;
    size_t cap; /* allocated entries of ops */
    /* the types generic forms convert through (borrowed, must outlive the
     * parse calls); NULL: the built-in types */
    const kd_type_table *types;
    kd_script_episode *episodes; /* owned: every new_episode parsed so far */
    size_t episode_count, episode_cap;
} kd_script;

/* Prepares an empty script converting through the built-in types. */
void kd_script_init(kd_script *s);
/* Prepares an empty script converting through `types` (borrowed). */
void kd_script_init_types(kd_script *s, const kd_type_table *types);
/* Frees every op and the array and leaves the script empty (re-initialised).
 * Safe on an initialised or partially filled script; accepts NULL. */
void kd_script_fini(kd_script *s);

/*
 * Parses a whole script from memory (`len` bytes, need not be NUL-terminated;
 * a leading UTF-8 byte-order mark and CRLF line ends are accepted) and
 * appends its ops to `out`.
 *
 * keys_dir resolves key names (may be NULL when only "test:" keys and raw
 * pubkeys are used). `why` (may be NULL) receives "line N: <what was wrong>"
 * on error.
 *
 * Errors: KD_ERR_PARSE (malformed line, or generic params / command JSON
 * its type refuses, or a command whose episode type is not known),
 * KD_ERR_NOMEM, or the key error of
 * kd_key_resolve (KD_ERR_NOT_FOUND, KD_ERR_BAD_KEY, KD_ERR_INVALID_ARG,
 * KD_ERR_IO). On error `out` holds nothing from the failing line; the ops of
 * earlier lines are kept so callers may choose to use them. Either way the
 * caller releases `out` with kd_script_fini.
 */
kd_err kd_script_parse(const char *text, size_t len, const char *keys_dir, kd_script *out, char *why,
                       size_t why_len) KD_WARN_UNUSED;

/*
 * Reads the file at `path` ("-" = standard input) and parses it as
 * kd_script_parse does. Errors: those of kd_script_parse, and KD_ERR_IO or
 * KD_ERR_NOT_FOUND when the file cannot be read, with `why` naming the path
 * and the OS error.
 */
kd_err kd_script_load(const char *path, const char *keys_dir, kd_script *out, char *why, size_t why_len) KD_WARN_UNUSED;

/*
 * Parses ONE line (`len` bytes, no trailing newline needed) into `op`, for
 * streaming callers, converting through the built-in types; a command on
 * this line alone must name its "episode_type" unless a new_episode of the
 * same line created its episode. line_no is used in `op->line` and in messages; prev_daa
 * is the daa of the previous accept (0 before the first), for the default.
 *
 * Returns KD_OK with *is_blank = 1 (and `op` zeroed) for a blank or comment
 * line; otherwise *is_blank = 0 and on success the caller owns `op` and
 * releases it with kd_script_op_fini. On error `op` is zeroed and holds
 * nothing. Errors as kd_script_parse.
 */
kd_err kd_script_parse_line(const char *line, size_t len, unsigned line_no, uint64_t prev_daa, const char *keys_dir,
                            kd_script_op *op, int *is_blank, char *why, size_t why_len) KD_WARN_UNUSED;

/* Frees what `op` owns (wiping signer secrets) and zeroes it. Accepts NULL. */
void kd_script_op_fini(kd_script_op *op);

/*
 * Appends `op` to `out` as one canonical JSON line, newline included: hashes
 * and tx ids as 64 hex digits (every tx carries its tx_id explicitly, so a
 * reduced script keeps the ids of the original), generic commands with
 * their "episode_type" (so the line parses on its own), daa and time always,
 * participants as 66 hex digits, the signer as its original reference
 * (signer_ref), optional fields only when set. Used to emit minimal
 * reproduction scripts; parsing the line gives back an equal op.
 *
 * Errors: KD_ERR_INVALID_ARG (an op no script could express: unknown kind,
 * a value beyond a JSON integer, a signer without signer_ref, a player other
 * than 0/1, a type that is not UTF-8), KD_ERR_NOMEM. On error `out` is
 * unchanged.
 */
kd_err kd_script_op_write(const kd_script_op *op, kd_buf *out) KD_WARN_UNUSED;

#endif
