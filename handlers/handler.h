/*
 * handler.h — snapshot handlers: code that reacts to committed changes.
 *
 * The engine reports each durable commit once (kd_commit, engine.h); a
 * handler set turns that into per-episode calls, in application order:
 *
 *   on_initialize(episode, event, block)   an episode was created
 *   on_command(episode, event, block)      a command was applied
 *   on_rollback(episode, event, block)     a command or creation was undone
 *   on_commit_end(block)                   after the last event of a commit
 *
 * Handlers run on the engine's writer thread, after the commit is durable:
 * they must be quick (publishing is a non-blocking send) and must never
 * call back into kd_engine_ingest. The state an event points at is the
 * state after the whole commit.
 */
#ifndef KD_HANDLERS_HANDLER_H
#define KD_HANDLERS_HANDLER_H

#include "engine/engine.h"

typedef void (*kd_handler_event_fn)(void *ctx, const kd_episode_event *event, const kd_commit *commit);
typedef void (*kd_handler_commit_fn)(void *ctx, const kd_commit *commit);

typedef struct {
    const char *name;
    kd_handler_event_fn on_initialize; /* each may be NULL */
    kd_handler_event_fn on_command;
    kd_handler_event_fn on_rollback;
    kd_handler_commit_fn on_commit_end;
    void *ctx;
} kd_handler;

#define KD_HANDLERS_MAX 8

/* A list of handlers in the caller's storage. */
typedef struct {
    kd_handler handlers[KD_HANDLERS_MAX];
    size_t count;
} kd_handler_set;

void kd_handler_set_init(kd_handler_set *set);
/* Errors: KD_ERR_TOO_LARGE when full. */
kd_err kd_handler_set_add(kd_handler_set *set, const kd_handler *handler) KD_WARN_UNUSED;
/* Makes `set` the engine's commit listener; `set` must outlive the engine
 * (or be detached with kd_engine_set_listener(engine, NULL, NULL)). */
void kd_handler_set_attach(kd_handler_set *set, kd_engine *engine);
/* Dispatches one commit to every handler (the listener function). */
void kd_handler_set_dispatch(void *set, const kd_commit *commit);

#endif
