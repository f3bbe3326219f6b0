/* err.c — names and messages generated from KD_ERR_TABLE. */
#include "engine/err.h"

#include <string.h>

static const char *const codes[] = {
#define KD_ERR_CODE(name, code, msg) code,
    KD_ERR_TABLE(KD_ERR_CODE)
#undef KD_ERR_CODE
};

static const char *const messages[] = {
#define KD_ERR_MSG(name, code, msg) msg,
    KD_ERR_TABLE(KD_ERR_MSG)
#undef KD_ERR_MSG
};

const char *kd_err_code(kd_err err)
{
    if ((unsigned)err >= KD_ERR_COUNT_)
        return "unknown_error";
    return codes[err];
}

const char *kd_err_str(kd_err err)
{
    if ((unsigned)err >= KD_ERR_COUNT_)
        return "unknown error";
    return messages[err];
}

kd_err kd_err_parse(const char *code, kd_err *out)
{
    for (unsigned i = 0; code && i < KD_ERR_COUNT_; i++) {
        if (strcmp(codes[i], code) == 0) {
            *out = (kd_err)i;
            return KD_OK;
        }
    }
    return KD_ERR_NOT_FOUND;
}

kd_err kd_err_from_code(const char *code)
{
    kd_err err;
    return kd_err_parse(code, &err) == KD_OK ? err : KD_ERR_INTERNAL;
}
