/* wire_alloc.c — the tracking protobuf-c allocator (see wire_alloc.h). */
#include "episodes/wire_alloc.h"

#include <stdlib.h>

static void *track_malloc(void *data, size_t size)
{
    void *p = malloc(size);
    if (!p)
        ((kd_pb_alloc *)data)->failed = 1;
    return p;
}

static void track_free(void *data, void *ptr)
{
    (void)data;
    free(ptr);
}

void kd_pb_alloc_init(kd_pb_alloc *alloc)
{
    alloc->base.alloc = track_malloc;
    alloc->base.free = track_free;
    alloc->base.allocator_data = alloc;
    alloc->failed = 0;
}
