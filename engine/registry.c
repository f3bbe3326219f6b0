/* registry.c — the table of episode types an engine knows, and the
 * rejection helpers every type uses. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "engine/episode.h"

void kd_registry_init(kd_registry *reg) { memset(reg, 0, sizeof *reg); }

kd_err kd_registry_add(kd_registry *reg, const kd_episode_ops *ops, const void *config)
{
    if (!ops || !ops->type_name || !ops->resolve_params || !ops->init || !ops->execute || !ops->rollback ||
        !ops->encode_state || !ops->decode_state || !ops->encode_undo || !ops->decode_undo ||
        strlen(ops->type_name) >= KD_TYPE_NAME_MAX || !ops->precheck_key != !ops->precheck)
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

static void vsay(kd_reject *rej, const char *fmt, va_list ap) { vsnprintf(rej->detail, sizeof rej->detail, fmt, ap); }

void kd_reject_write(char *why, size_t len, const char *fmt, ...)
{
    if (!why || !len)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, len, fmt, ap);
    va_end(ap);
}

kd_err kd_reject_say(kd_reject *rej, kd_err err, const char *fmt, ...)
{
    if (!rej)
        return err;
    rej->code[0] = '\0';
    va_list ap;
    va_start(ap, fmt);
    vsay(rej, fmt, ap);
    va_end(ap);
    return err;
}

kd_err kd_reject_rule(kd_reject *rej, const char *code, const char *fmt, ...)
{
    if (!rej)
        return KD_ERR_RULE;
    snprintf(rej->code, sizeof rej->code, "%s", code);
    va_list ap;
    va_start(ap, fmt);
    vsay(rej, fmt, ap);
    va_end(ap);
    return KD_ERR_RULE;
}

const char *kd_reject_code(kd_err err, const kd_reject *rej)
{
    if (err != KD_ERR_RULE)
        return kd_err_code(err);
    return rej && rej->code[0] ? rej->code : kd_err_code(KD_ERR_RULE);
}
