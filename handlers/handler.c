/* handler.c — fans one engine commit out to the registered handlers. */
#include "handlers/handler.h"

#include <string.h>

void kd_handler_set_init(kd_handler_set *set) { memset(set, 0, sizeof *set); }

kd_err kd_handler_set_add(kd_handler_set *set, const kd_handler *handler)
{
    if (set->count == KD_HANDLERS_MAX)
        return KD_ERR_TOO_LARGE;
    set->handlers[set->count++] = *handler;
    return KD_OK;
}

void kd_handler_set_dispatch(void *ctx, const kd_commit *commit)
{
    kd_handler_set *set = ctx;
    for (size_t i = 0; i < commit->event_count; i++) {
        const kd_episode_event *ev = &commit->events[i];
        for (size_t h = 0; h < set->count; h++) {
            const kd_handler *hd = &set->handlers[h];
            kd_handler_event_fn fn = ev->kind == KD_EVENT_INITIALIZE ? hd->on_initialize
                                     : ev->kind == KD_EVENT_COMMAND  ? hd->on_command
                                                                     : hd->on_rollback;
            if (fn)
                fn(hd->ctx, ev, commit);
        }
    }
    for (size_t h = 0; h < set->count; h++)
        if (set->handlers[h].on_commit_end)
            set->handlers[h].on_commit_end(set->handlers[h].ctx, commit);
}

void kd_handler_set_attach(kd_handler_set *set, kd_engine *engine)
{
    kd_engine_set_listener(engine, kd_handler_set_dispatch, set);
}
