/*
 * publisher.h — the view publisher: an NNG PUB socket and a handler that,
 * after each commit, publishes
 *
 *   "ep/<id>" NUL EpisodeView     once per episode the commit touched (the
 *                                 type's public view: never a seat's secret)
 *   "blk"     NUL BlockSummary    once per commit
 *
 * Subscribe to "ep/7" plus the NUL byte for one episode, to "ep/" for all
 * of them, to "blk" for block summaries. Sends never block: a slow or
 * absent subscriber loses messages (NNG drops them), it never slows ingest.
 */
#ifndef KD_HANDLERS_PUBLISHER_H
#define KD_HANDLERS_PUBLISHER_H

#include "episodes/episode_type.h"
#include "handlers/handler.h"

#define KD_TOPIC_EPISODE "ep/"
#define KD_TOPIC_BLOCK "blk"

typedef struct kd_publisher kd_publisher;

/* Opens a PUB socket listening on `urls` (comma-separated). Views are built
 * with the types of `types` (NULL: the built-in types), which must outlive
 * the publisher. Errors: KD_ERR_NET, KD_ERR_LOCKED (address in use), with
 * `why`. */
kd_err kd_publisher_open(const char *urls, const kd_type_table *types, kd_publisher **out, char *why,
                         size_t why_len) KD_WARN_UNUSED;
void kd_publisher_close(kd_publisher *pub);
/* The handler to add to a kd_handler_set (ctx = pub). */
kd_handler kd_publisher_handler(kd_publisher *pub);
/* Messages published so far. */
uint64_t kd_publisher_count(const kd_publisher *pub);
/* Subscribers whose connection is attached (each change is also logged at
 * info level: "subscribers: N"). */
int kd_publisher_subscribers(const kd_publisher *pub);

/* Splits a received frame into topic and payload. Returns 0, or -1 when
 * the frame has no NUL after its topic. Pointers point into `frame`. */
int kd_pub_split(const uint8_t *frame, size_t len, const char **topic, const uint8_t **payload, size_t *payload_len);

#endif
