/*
 * ingest_client.h — a listener's side of ingest: an NNG REQ socket dialed
 * to the engine. Each request is sent once; NNG sends it again when the
 * connection that carried it closes (a restarted engine), and re-dials
 * the engine; kd_nng_redialer (engine/netutil.h) dials again where NNG
 * 1.5.2's dialer gives up. A wait that times out leaves its request in
 * flight, and sending the same events again waits for that request rather
 * than sending a copy (ingest_client.c says why: copies of a slow request
 * made feeder and engine livelock). Re-sent blocks are applied once
 * (idempotent by hash), so "send until acknowledged" is safe.
 *
 * Threading: any number of threads may share a client; each request
 * travels in its own NNG context (see kd_nng_request).
 */
#ifndef KD_TOOLS_INGEST_CLIENT_H
#define KD_TOOLS_INGEST_CLIENT_H

#include "engine/ingest.h"

typedef struct kd_ingest_client kd_ingest_client;

/* Dials `url` (the engine need not be up yet). timeout_ms: how long one
 * request may wait for its reply (0 = forever). */
kd_err kd_ingest_client_open(const char *url, uint32_t timeout_ms, kd_ingest_client **out, char *why,
                             size_t why_len) KD_WARN_UNUSED;
/* Closes; accepts NULL. Call once no request is in progress. */
void kd_ingest_client_close(kd_ingest_client *client);

/* Makes every later request name `chain` (IngestRequest.chain,
 * engine/chain.h: a chain name, or "local" for any local chain; NULL or
 * "": none), so an engine whose store follows another chain refuses it
 * (reply->err KD_ERR_WRONG_CHAIN) instead of applying it. Call before
 * the client is shared or used. Errors: KD_ERR_INVALID_ARG (not a chain
 * name nor "local"). */
kd_err kd_ingest_client_name_chain(kd_ingest_client *client, const char *chain) KD_WARN_UNUSED;

/* Sends `count` encoded EngineMsgs as one IngestRequest and waits for the
 * reply. Errors: KD_ERR_TIMEOUT (no reply within the client's timeout:
 * the request stays in flight, and the next send of the same events waits
 * for it instead of sending a copy), KD_ERR_NET, KD_ERR_DECODE (bad
 * reply). */
kd_err kd_ingest_client_send(kd_ingest_client *client, const kd_buf *msgs, size_t count,
                             kd_ingest_reply *reply) KD_WARN_UNUSED;

/* As kd_ingest_client_send, telling the engine the time (ms) of the
 * feeder's chain source's tip (a Kaspa node's sink), which the engine
 * keeps for the lag gauge (IngestRequest.source_tip_time_ms). */
kd_err kd_ingest_client_send_source(kd_ingest_client *client, const kd_buf *msgs, size_t count,
                                    uint64_t source_tip_time_ms, kd_ingest_reply *reply) KD_WARN_UNUSED;

/* Asks the engine for a dry run of `block` (an encoded
 * EngineMsg{BlockAccepted}; IngestRequest.dry_run): reply->dry_run gets
 * each tx's predicted outcome and reply->counters the move counters of
 * the episodes the txs name and of `episodes` afterwards; nothing is
 * applied. An engine without dry runs answers reply->err
 * KD_ERR_INVALID_ARG. Errors as kd_ingest_client_send. */
kd_err kd_ingest_client_dry_run(kd_ingest_client *client, const kd_buf *block, const uint32_t *episodes, size_t n,
                                kd_ingest_reply *reply) KD_WARN_UNUSED;

#endif
