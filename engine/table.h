/*
 * table.h — open tables (issue 39; internal to engine/): a creation that
 * leaves seats open makes a table, not yet an episode; each stranger's
 * JoinEpisode takes a seat with its own key, its own part of the params
 * and its signature over the terms (kd_join_digest); the last seat taken
 * creates the episode from the creation's params followed by each seat's
 * part (kd_apply_start). A seat named at creation may cancel the table
 * while nobody has joined; a join in a block past the table's deadline
 * is refused. Tables live in db "tables" (store.proto TableRecord); every
 * change is an EFFECT_TABLE whose undo is the record before, so a revert
 * puts it back, and the records written extend the block's digest
 * (kd_txn.table_marks).
 *
 * The refusals, each changing nothing: not_a_table, table_closed
 * (cancelled, started, past its deadline), seat_taken (not an open seat),
 * already_seated (the key sits at the table), bad_pubkey, bad_signature
 * (not the joiner's signature over this table on this chain: a join made
 * for another key or chain), bad_params (the type's join_params: a bad
 * commitment), the type's own refusal of the game's creation at the last
 * join; cancel: table_joined, unauthorised (not a seat named at creation).
 */
#ifndef KD_ENGINE_TABLE_H
#define KD_ENGINE_TABLE_H

#include "engine/txn.h"

/* Sets *exists when a table (open or not) has id `id`. */
kd_err kd_table_exists(kd_txn *c, uint32_t id, int *exists) KD_WARN_UNUSED;
/* Opens the table a checked creation with open seats (`open`, bit per
 * seat) makes. */
kd_err kd_table_open(kd_txn *c, const Kdapp__EpisodeMessage *em, const kd_registry_entry *type,
                     const kd_participants *parts, uint32_t open, const kd_block_meta *meta,
                     kd_tx_result *r) KD_WARN_UNUSED;
/* A JoinEpisode; `override`: a replay's recorded effective params of the
 * game the last join starts; `effective` gets them. `trusted` skips the
 * signature (a replay of our own log). */
kd_err kd_table_join(kd_txn *c, const Kdapp__EpisodeMessage *em, const kd_block_meta *meta,
                     const ProtobufCBinaryData *override, int trusted, kd_tx_result *r,
                     kd_buf *effective) KD_WARN_UNUSED;
/* A CancelTable. */
kd_err kd_table_cancel(kd_txn *c, const Kdapp__EpisodeMessage *em, const kd_block_meta *meta, int trusted,
                       kd_tx_result *r) KD_WARN_UNUSED;
/* Undoes one EFFECT_TABLE. */
kd_err kd_table_revert(kd_txn *c, const Kdapp__Store__Effect *fx) KD_WARN_UNUSED;

#endif
