/*
 * err.h — the one error type of kdapp-c.
 *
 * Every fallible function returns a kd_err and writes its results through
 * out-parameters. The table below generates the enum, the short machine
 * names ("bad_signature", used in logs, ingest replies and MCP results) and
 * the human messages, so the three can never drift apart. Library errors
 * (LMDB, NNG, protobuf-c, jansson, the OS) are translated where they are
 * called; the original code goes to the log line.
 *
 * Rule errors belong to the episode type: a type refuses a command by one
 * of its rules with KD_ERR_RULE and its own short code in kd_reject.code
 * ("cell_occupied", see kd_rule_code in episodes/episode_type.h), and the
 * engine stores and sends that code in place of "rule". The codes
 * game_over, out_of_bounds, wrong_turn, unauthorised and cell_occupied
 * were entries of this table once; they now live, with the same names
 * (and the same rejection sentences), as the rule codes of the type that
 * uses them, so the stored vocabulary is unchanged.
 *
 * Codes outlive the process, so the short names are append-only: a name,
 * once released, is never renamed, reused or removed. That holds for the
 * union of the engine's codes and every type's rule codes: a type's code
 * never takes an engine name, nor an engine code a type's. Everything
 * that stores or sends a code stores its name, never its number: the log
 * (LogEntry and TxOutcome error_code, store.proto), the metrics
 * (CodeCount, store.proto), the wire (TxResult, MsgResult, IngestReply,
 * DevnetReply error_code, kdapp.proto) and MCP results. So a new code may
 * go anywhere in the table; the enum numbers are this build's alone and
 * must never be written anywhere.
 */
#ifndef KD_ENGINE_ERR_H
#define KD_ENGINE_ERR_H

#define KD_WARN_UNUSED __attribute__((warn_unused_result))

/* X(NAME, short_code, message) */
#define KD_ERR_TABLE(X)                                                                                           \
    X(OK, "ok", "success")                                                                                        \
    X(NOMEM, "no_memory", "out of memory")                                                                        \
    X(INVALID_ARG, "invalid_argument", "invalid argument")                                                        \
    X(IO, "io", "input/output error")                                                                             \
    X(NO_SPACE, "no_space", "the disk is full")                                                                   \
    X(STORE, "store", "storage error")                                                                            \
    X(MAP_FULL, "map_full", "the data file is full and could not grow")                                           \
    X(SCHEMA, "schema_mismatch", "the data directory has another schema version")                                 \
    X(SETTINGS, "settings_mismatch", "the data directory was created with other settings")                        \
    X(LOCKED, "locked", "the data directory is in use by another process")                                        \
    X(NOT_FOUND, "not_found", "not found")                                                                        \
    X(TOO_LARGE, "too_large", "input exceeds its size limit")                                                     \
    X(DECODE, "decode", "the message does not decode")                                                            \
    X(PARSE, "parse", "the input does not parse")                                                                 \
    X(UNKNOWN_TYPE, "unknown_type", "unknown episode type")                                                       \
    X(UNKNOWN_EPISODE, "unknown_episode", "unknown episode")                                                      \
    X(EPISODE_EXISTS, "episode_exists", "an episode with this id already exists")                                 \
    X(BAD_EPISODE_ID, "bad_episode_id", "episode id 0 is not valid")                                              \
    X(BAD_PARTICIPANTS, "bad_participants", "the participants are not valid")                                     \
    X(BAD_PARAMS, "bad_params", "the episode parameters are not valid")                                           \
    X(BAD_COMMAND, "bad_command", "the command is malformed")                                                     \
    X(BAD_PUBKEY, "bad_pubkey", "the public key is not a valid compressed secp256k1 key")                         \
    X(BAD_SIGNATURE, "bad_signature", "the signature does not verify")                                            \
    X(RULE, "rule", "a rule of the episode type refused it")                                                      \
    X(NO_MOVE, "no_move", "there is no legal move")                                                               \
    X(BAD_HASH, "bad_hash", "a block hash must be 32 bytes")                                                      \
    X(UNKNOWN_BLOCK, "unknown_block", "the block is not applied")                                                 \
    X(NOT_TIP, "not_tip", "the block is not the tip")                                                             \
    X(BEYOND_FINALITY, "beyond_finality",                                                                         \
      "the block is beyond the finality depth; its undo records were pruned: a re-sync is needed")                \
    X(BAD_KEY, "bad_key", "the key file is not valid")                                                            \
    X(EXISTS, "exists", "it already exists")                                                                      \
    X(NET, "network", "network error")                                                                            \
    X(TIMEOUT, "timeout", "timed out")                                                                            \
    X(CLOSED, "closed", "closed")                                                                                 \
    X(BUSY, "busy", "a limit was reached; try again later")                                                       \
    X(UNSUPPORTED, "unsupported", "not supported")                                                                \
    X(INTERNAL, "internal", "internal error")                                                                     \
    X(NO_CONSENT, "no_consent", "a seat the creation names did not sign it (or a consent does not verify)")       \
    X(WRONG_CHAIN, "wrong_chain", "the request is for another chain than the store follows")                      \
    X(STALE_COMMAND, "stale_command", "the command was signed for an earlier move of the episode: sign it again") \
    X(DENIED, "denied", "the caller is not granted that key or seat")                                             \
    X(INSUFFICIENT_FUNDS, "insufficient_funds", "the wallet's coins do not cover the transaction and its fee")    \
    X(REJECTED, "rejected", "the node rejected the transaction")                                                  \
    X(NOT_A_TABLE, "not_a_table", "no open table has that episode id")                                            \
    X(SEAT_TAKEN, "seat_taken", "the seat is not open: taken, or the table is full")                              \
    X(TABLE_CLOSED, "table_closed", "the table was cancelled, has started, or its deadline passed")               \
    X(ALREADY_SEATED, "already_seated", "the key already sits at this table")                                     \
    X(TABLE_JOINED, "table_joined", "someone has joined the table: it can no longer be cancelled")

typedef enum {
#define KD_ERR_ENUM(name, code, msg) KD_ERR_##name,
    KD_ERR_TABLE(KD_ERR_ENUM)
#undef KD_ERR_ENUM
        KD_ERR_COUNT_
} kd_err;

#define KD_OK KD_ERR_OK

/* Short machine name ("bad_signature"); never NULL, static storage. */
const char *kd_err_code(kd_err err);
/* Human message ("the signature does not verify"); never NULL, static storage. */
const char *kd_err_str(kd_err err);
/* Parses a short machine name back; returns KD_ERR_INTERNAL when unknown. */
kd_err kd_err_from_code(const char *code);
/* Parses a short machine name into *out. Returns KD_OK, or
 * KD_ERR_NOT_FOUND for a name this build does not know (a type's rule
 * code, or a newer build's code). */
kd_err kd_err_parse(const char *code, kd_err *out) KD_WARN_UNUSED;

#endif
