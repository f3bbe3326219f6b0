/* registry.c — the table of episode types an engine knows. */
#include <string.h>

#include "engine/episode.h"

void kd_registry_init(kd_registry *reg) { memset(reg, 0, sizeof *reg); }

kd_err kd_registry_add(kd_registry *reg, const kd_episode_ops *ops, const void *config)
{
    if (!ops || !ops->type_name || !ops->resolve_params || !ops->init || !ops->execute || !ops->rollback ||
        !ops->encode_state || !ops->decode_state || !ops->encode_undo || !ops->decode_undo ||
        strlen(ops->type_name) >= KD_TYPE_NAME_MAX)
        return KD_ERR_INVALID_ARG;
    if (kd_registry_find(reg, ops->type_name))
        return KD_ERR_INVALID_ARG;
    if (reg->count == KD_REGISTRY_MAX)
        return KD_ERR_TOO_LARGE;
    reg->entries[reg->count].ops = ops;
    reg->entries[reg->count].config = config;
    reg->count++;
    return KD_OK;
}

const kd_registry_entry *kd_registry_find(const kd_registry *reg, const char *type_name)
{
    for (size_t i = 0; i < reg->count; i++)
        if (strcmp(reg->entries[i].ops->type_name, type_name) == 0)
            return &reg->entries[i];
    return NULL;
}
