/*
 * ingest_server.h — the engine's NNG REP socket: receives IngestRequest
 * frames, applies them on one writer thread in arrival order, and replies
 * after the commits are durable (each commit is synced before the reply).
 *
 * Stopping finishes the request in progress, then closes the socket:
 * nothing acknowledged is ever lost, and a request that was not answered
 * is re-sent by the client and applied exactly once (idempotent by hash).
 */
#ifndef KD_ENGINE_INGEST_SERVER_H
#define KD_ENGINE_INGEST_SERVER_H

#include "engine/engine.h"

typedef struct kd_ingest_server kd_ingest_server;

/* Listens on `urls` (comma-separated) and starts the writer thread. The
 * engine must outlive the server and must not be ingested into by anyone
 * else while it runs. Errors: KD_ERR_NET, KD_ERR_LOCKED (address in use),
 * KD_ERR_INVALID_ARG (bad URL), with `why`. */
kd_err kd_ingest_server_start(kd_engine *engine, const char *urls, kd_ingest_server **out, char *why,
                              size_t why_len) KD_WARN_UNUSED;
/* Finishes the current request, stops and frees. Accepts NULL. */
void kd_ingest_server_stop(kd_ingest_server *server);
/* Requests served so far (for tests and stats). */
uint64_t kd_ingest_server_requests(const kd_ingest_server *server);

#endif
